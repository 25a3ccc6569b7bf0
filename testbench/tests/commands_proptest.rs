//! Property tests of every SIMD-array command of the standard microcode against the plain
//! per-pixel reference model (`pp5_testbench::reference`).
//!
//! Each case clones a booted board, fills all 208 memory planes, Enable and Carry with random
//! patterns (plus "interesting" operand values at some pixels: 0, all ones, the scalar, the
//! scalar ± 1, the other operand ± 1), runs one command through the command stream (text form,
//! through the Ring, the Stream Parser and the microcoded IGC), and compares every pixel's
//! memory, Enable and Carry with the reference applied to that pixel's initial state (the
//! global commands GMAX and GMIN: to the whole initial array). It also checks that the run
//! finished, raised no diagnostics, and that the command took the number of cycles documented
//! in `sim/microcode/standard.pp5uc`. The one-bit `tmp` operand of a command "becomes
//! undefined" (seed note 9) and is the only memory not compared.

use pp5_sim::asm::microcode::{self, STANDARD_SOURCE};
use pp5_sim::engine::StopReason;
use pp5_testbench::reference::{
    apply_all, carry_rule, mask, sca_bits, signed_range, CarryRule, Pixel, RefCmd, MEM_BITS,
};
use pp5_testbench::Testbench;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::sync::OnceLock;

/// Pixels of the array (pixel `i` is bit `i % 64` of plane word `i / 64`).
const NPIX: usize = 128 * 128;
/// Plane words.
const WORDS: usize = NPIX / 64;
/// Cases per command: 16, or `PP5_PROPTEST_CASES` for a longer soak run.
fn cases() -> u32 {
    std::env::var("PP5_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16)
}
/// Which kinds of Carry results are compared (see `CarryRule`). The seed does not promise a
/// carry/borrow out of arithmetic and compare commands, nor any Carry after most of the
/// others, but the standard microcode documents what it leaves (`c = borrow`, "Carry = old
/// Enable", ...), so all kinds are compared here.
const CHECKED_CARRY: &[CarryRule] = &[
    CarryRule::Kept,
    CarryRule::Defined,
    CarryRule::CarryOut,
    CarryRule::Documented,
];

/// The standard microcode, booted once.
fn standard() -> &'static Testbench {
    static BENCH: OnceLock<Testbench> = OnceLock::new();
    BENCH.get_or_init(Testbench::standard)
}

// ------------------------------------------------------------------------------ test cases

/// How the scalar is sent.
#[derive(Clone, Debug)]
enum ScaForm {
    /// Not a scalar command.
    None,
    /// `_S1`: the scalar follows the arguments.
    S1(u32),
    /// `_S0`: reuse the C register. `preset` (only on a stream's first command) loads it
    /// through the back door before the run; otherwise it holds the previous command's scalar.
    S0 { preset: Option<u32> },
    /// `_TBL`: one execution per value (bit 31 clear; the assembler sets it on the last).
    Tbl(Vec<u32>),
}

impl ScaForm {
    /// The scalar of each execution, as the IGC's C register holds it, given the register's
    /// value `c_reg` before the command.
    fn executions(&self, c_reg: u32) -> Vec<u32> {
        match self {
            ScaForm::None | ScaForm::S0 { .. } => vec![c_reg],
            ScaForm::S1(v) => vec![*v],
            ScaForm::Tbl(vs) => {
                let mut vs = vs.clone();
                if let Some(last) = vs.last_mut() {
                    *last |= 1 << 31;
                }
                vs
            }
        }
    }
}

/// A fill pattern for Enable or Carry.
#[derive(Clone, Copy, Debug)]
enum Pat {
    Random,
    Zeros,
    Ones,
    /// About one pixel in 256 (a few dozen in the array: what GMAX / GMIN want).
    Sparse,
}

/// The initial state of the array, generated from a seed.
#[derive(Clone, Copy, Debug)]
struct Init {
    seed: u64,
    enable: Pat,
    carry: Pat,
    /// Put interesting values into the operands at about half of the pixels.
    inject: bool,
    /// AND every source operand with one random mask per case (before the injection), so
    /// that many pixels share their high bits: ties for compares and for GMAX / GMIN.
    narrow: bool,
    /// The indicator (status bit 31) before the command.
    indicator: bool,
}

/// SplitMix64: a small deterministic generator for the bulk pixel data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn u128(&mut self) -> u128 {
        (u128::from(self.next()) << 64) | u128::from(self.next())
    }
}

fn pattern_bit(p: Pat, rng: &mut Rng) -> bool {
    match p {
        Pat::Random => rng.next() & 1 != 0,
        Pat::Zeros => false,
        Pat::Ones => true,
        Pat::Sparse => rng.next() & 0xff == 0,
    }
}

/// The initial pixels of a case: random bits, then interesting values in `sources`.
fn initial_pixels(init: &Init, sources: &[(usize, usize)], scalars: &[u32]) -> Vec<Pixel> {
    let mut rng = Rng(init.seed);
    // The narrowing mask: a quarter, half or three quarters of the bits set.
    let narrow = match rng.below(3) {
        0 => rng.u128() & rng.u128(),
        1 => rng.u128(),
        _ => rng.u128() | rng.u128(),
    };
    (0..NPIX)
        .map(|_| {
            let mut p = Pixel::default();
            for b in p.mem.iter_mut() {
                *b = rng.next() & 1 != 0;
            }
            p.enable = pattern_bit(init.enable, &mut rng);
            p.carry = pattern_bit(init.carry, &mut rng);
            if init.narrow {
                for &(lsb, len) in sources {
                    let v = p.field(lsb, len) & narrow;
                    p.set_field(lsb, len, v);
                }
            }
            if init.inject && !sources.is_empty() && rng.next() & 1 != 0 {
                let (lsb, len) = sources[rng.below(sources.len())];
                let sca = sca_bits(scalars[rng.below(scalars.len())], len);
                let other = sources[rng.below(sources.len())];
                let other = p.field(other.0, other.1.min(len));
                let v = match rng.below(9) {
                    0 => 0,
                    1 => mask(len),
                    2 => 1,
                    3 => sca,
                    4 => sca.wrapping_add(1),
                    5 => sca.wrapping_sub(1),
                    6 => other,
                    7 => other.wrapping_add(1),
                    _ => other.wrapping_sub(1) ^ (rng.u128() & 1),
                };
                p.set_field(lsb, len, v & mask(len));
            }
            p
        })
        .collect()
}

/// Write pixels into the array's bit planes (a testbench back door).
fn load(tb: &mut Testbench, px: &[Pixel]) {
    let a = &mut tb.sim.board.array;
    let word = |w: usize, f: &dyn Fn(&Pixel) -> bool| {
        (0..64).fold(0u64, |acc, k| acc | (u64::from(f(&px[w * 64 + k])) << k))
    };
    for b in 0..MEM_BITS {
        for w in 0..WORDS {
            a.mem[b][w] = word(w, &|p| p.mem[b]);
        }
    }
    for w in 0..WORDS {
        a.enable[w] = word(w, &|p| p.enable);
        a.carry[w] = word(w, &|p| p.carry);
    }
    a.refresh_aeo();
}

/// Read every pixel back from the bit planes.
fn unload(tb: &Testbench) -> Vec<Pixel> {
    let a = &tb.sim.board.array;
    (0..NPIX)
        .map(|i| {
            let (w, k) = (i / 64, i % 64);
            let bit = |plane: &[u64; WORDS]| (plane[w] >> k) & 1 != 0;
            let mut p = Pixel::default();
            for (b, m) in p.mem.iter_mut().enumerate() {
                *m = bit(&a.mem[b]);
            }
            p.enable = bit(&a.enable);
            p.carry = bit(&a.carry);
            p
        })
        .collect()
}

/// The stream text of one command.
fn command_text(cmd: &RefCmd, form: &ScaForm) -> String {
    let mut s = cmd.name().to_string();
    s.push_str(match form {
        ScaForm::None => "",
        ScaForm::S1(_) => "_S1",
        ScaForm::S0 { .. } => "_S0",
        ScaForm::Tbl(_) => "_TBL",
    });
    for a in cmd.args() {
        s.push_str(&format!(" {a}"));
    }
    match form {
        // Scalars are written as signed decimals, so negative ones exercise that path.
        ScaForm::S1(v) => s.push_str(&format!(" {}", *v as i32)),
        ScaForm::Tbl(vs) => vs
            .iter()
            .for_each(|v| s.push_str(&format!(" {}", *v as i32))),
        ScaForm::None | ScaForm::S0 { .. } => {}
    }
    s
}

/// Cycles of one execution, as listed in sim/microcode/standard.pp5uc.
fn expected_cycles(cmd: &RefCmd) -> u64 {
    use RefCmd::*;
    let n = match *cmd {
        Clear { dlen, .. }
        | Set { dlen, .. }
        | ScaIntoMem { dlen, .. }
        | Cpy { dlen, .. }
        | Invert { dlen, .. }
        | Inc { dlen, .. }
        | Dec { dlen, .. }
        | Negate { dlen, .. }
        | MemPlusMem { dlen, .. }
        | MemMinusMem { dlen, .. }
        | MemPlusEqMem { dlen, .. }
        | MemPlusEqSca { dlen, .. }
        | MemMinusEqMem { dlen, .. }
        | MemPlusMem2 { dlen, .. }
        | MemPlusEqMem2 { dlen, .. }
        | MemMinusMem2 { dlen, .. }
        | MemMinusEqMem2 { dlen, .. }
        | MemAndMem { dlen, .. }
        | MemAndEqMem { dlen, .. }
        | MemOrMem { dlen, .. }
        | MemOrEqMem { dlen, .. }
        | MemXorMem { dlen, .. }
        | MemXorEqMem { dlen, .. }
        | Ovsix { dlen, .. } => 1 + dlen,
        MemEqZero { slen, .. }
        | MemEqSca { slen, .. }
        | MemEqOnes { slen, .. }
        | MemNeZero { slen, .. }
        | MemEqMem { slen, .. }
        | MemNeMem { slen, .. }
        | MemGtMem { slen, .. }
        | Mem2GeMem2 { slen, .. }
        | Mem2GtMem2 { slen, .. } => 1 + slen,
        MemGeSca { slen, .. } | MemGtSca { slen, .. } | MemGeMem { slen, .. } => 2 + slen,
        Swap { dlen, .. } => 1 + 2 * dlen,
        MemCImpPlusEqMem { dlen, .. } | Mem2CImpPlusEqMem2 { dlen, .. } => 2 + 2 * dlen,
        TbEntry { dlen, slen, .. } => 2 + slen + dlen,
        Gmax { dlen, .. } | Gmin { dlen, .. } => 2 + 3 * dlen,
        ClrEnabs
        | SetEnabs
        | EnabInv
        | MemIntoEnab { .. }
        | EnabIntoMem { .. }
        | EnabIntoCry
        | CryIntoEnab
        | ClrCry
        | CryIntoMem { .. }
        | Noop
        | Noop2
        | Fbits { .. }
        | IndOn
        | IndOff
        | EnabAndEqMem { .. }
        | EnabAndEqMemBar { .. }
        | EnabOrEqMem { .. }
        | EnabXorEqMem { .. }
        | EnabOrEqCry
        | MemOrEqEnab { .. }
        | MemAndEqEnab { .. } => 1,
    };
    n as u64
}

/// Run a sequence of commands on `base` from the state `init` and compare everything with
/// the reference. `Err` describes the first difference.
fn check_seq(base: &Testbench, cmds: &[(RefCmd, ScaForm)], init: &Init) -> Result<(), String> {
    let mut tb = base.clone();
    tb.sim.board.igc.indicator = init.indicator;

    // The scalar of every execution, tracking the C register (`_S0` reuses it).
    let mut c_reg = tb.sim.board.igc.coef[2];
    let mut plan: Vec<(RefCmd, Vec<u32>)> = Vec::new();
    for (k, (cmd, form)) in cmds.iter().enumerate() {
        if let ScaForm::S0 { preset: Some(p) } = form {
            assert_eq!(k, 0, "a back-door scalar preset is only possible first");
            tb.sim.board.igc.coef[2] = *p;
            c_reg = *p;
        }
        let scas = form.executions(c_reg);
        c_reg = *scas.last().unwrap_or(&c_reg);
        plan.push((*cmd, scas));
    }
    let scalars: Vec<u32> = plan.iter().flat_map(|p| p.1.clone()).collect();
    let sources: Vec<(usize, usize)> = cmds.iter().flat_map(|c| c.0.sources()).collect();
    let before = initial_pixels(init, &sources, &scalars);
    load(&mut tb, &before);
    let text: String = cmds
        .iter()
        .map(|(c, f)| command_text(c, f) + "\n")
        .collect();

    // The reference, and what the board should report.
    let mut expected = before.clone();
    let mut expected_cycles_log = Vec::new();
    let mut indicator = init.indicator;
    let mut fbits = tb.sim.board.igc.fbits;
    for (cmd, scas) in &plan {
        for &sca in scas {
            apply_all(cmd, &mut expected, sca);
            expected_cycles_log.push((cmd.name().to_string(), expected_cycles(cmd)));
        }
        match cmd {
            RefCmd::IndOn => indicator = true,
            RefCmd::IndOff => indicator = false,
            RefCmd::Fbits { n } => fbits = *n as u8,
            _ => {}
        }
    }

    let diags = tb.sim.diagnostics.len();
    let stream = tb.parse(&text);
    let out = tb.run(&stream, 100_000);
    let ctx = || format!("stream:\n{text}init: {init:?}");
    if out.stop != StopReason::Done {
        return Err(format!("run stopped with {:?}\n{}", out.stop, ctx()));
    }
    let new_diags: Vec<_> = tb.sim.diagnostics[diags..]
        .iter()
        .filter(|d| matches!(d.level, "error" | "fault" | "warning"))
        .collect();
    if !new_diags.is_empty() {
        return Err(format!("diagnostics: {new_diags:?}\n{}", ctx()));
    }
    if out.command_cycles != expected_cycles_log {
        return Err(format!(
            "command cycles {:?}, expected {:?}\n{}",
            out.command_cycles,
            expected_cycles_log,
            ctx()
        ));
    }
    if tb.sim.board.igc.indicator != indicator || (tb.status() >> 31 != 0) != indicator {
        return Err(format!(
            "indicator (status bit 31) is {}, expected {indicator}\n{}",
            tb.sim.board.igc.indicator,
            ctx()
        ));
    }
    if tb.sim.board.igc.fbits != fbits {
        return Err(format!(
            "FBITS is {}, expected {fbits}\n{}",
            tb.sim.board.igc.fbits,
            ctx()
        ));
    }

    let mut after = unload(&tb);
    // `tmp` operands are undefined afterwards (note 9): take the board's bits. (Random
    // sequences put a command with a `tmp` only last, so no later command reads them.)
    for (lsb, len) in cmds.iter().filter_map(|c| c.0.scratch()) {
        for (a, e) in after.iter().zip(expected.iter_mut()) {
            e.mem[lsb..lsb + len].copy_from_slice(&a.mem[lsb..lsb + len]);
        }
    }
    if !plan
        .iter()
        .all(|(c, _)| CHECKED_CARRY.contains(&carry_rule(c)))
    {
        for (a, e) in after.iter_mut().zip(&expected) {
            a.carry = e.carry;
        }
    }
    let bad: Vec<usize> = (0..NPIX).filter(|&i| after[i] != expected[i]).collect();
    if let Some(&i) = bad.first() {
        return Err(format!(
            "{} of {NPIX} pixels differ from the reference; first at (x={}, y={}):\n{}{}",
            bad.len(),
            i % 128,
            i / 128,
            describe(cmds, &before[i], &expected[i], &after[i]),
            ctx()
        ));
    }
    // AEO stripes (status bits 0-3) follow the final Enable plane.
    let stripes: [bool; 4] =
        std::array::from_fn(|k| (0..NPIX).any(|i| after[i].enable && ((i % 128) / 8) % 4 == k));
    if tb.sim.board.array.stripes() != stripes {
        return Err(format!(
            "AEO stripes {:?}, expected {stripes:?}\n{}",
            tb.sim.board.array.stripes(),
            ctx()
        ));
    }
    Ok(())
}

/// A readable account of one pixel's difference.
fn describe(cmds: &[(RefCmd, ScaForm)], before: &Pixel, want: &Pixel, got: &Pixel) -> String {
    let mut s = String::new();
    let diff: Vec<usize> = (0..MEM_BITS)
        .filter(|&b| want.mem[b] != got.mem[b])
        .collect();
    if !diff.is_empty() {
        s.push_str(&format!("  memory bits differing: {diff:?}\n"));
    }
    s.push_str(&format!(
        "  enable {} -> expected {}, got {}\n  carry  {} -> expected {}, got {}\n",
        before.enable, want.enable, got.enable, before.carry, want.carry, got.carry
    ));
    for (cmd, _) in cmds {
        for (what, segs) in [
            ("source", cmd.sources()),
            ("dest", cmd.dest().into_iter().collect()),
            ("tmp (not compared)", cmd.scratch().into_iter().collect()),
        ] {
            for (lsb, len) in segs {
                s.push_str(&format!(
                    "  {} {what} mem[{lsb}:{len}]: before {:#x}, expected {:#x}, got {:#x}\n",
                    cmd.name(),
                    before.field(lsb, len),
                    want.field(lsb, len),
                    got.field(lsb, len)
                ));
            }
        }
    }
    s
}

fn check(base: &Testbench, cmd: RefCmd, form: ScaForm, init: &Init) -> Result<(), String> {
    check_seq(base, &[(cmd, form)], init)
}

// ------------------------------------------------------------------------------ strategies

fn pat() -> impl Strategy<Value = Pat> {
    prop_oneof![
        3 => Just(Pat::Random),
        1 => Just(Pat::Zeros),
        1 => Just(Pat::Ones),
        1 => Just(Pat::Sparse),
    ]
}

fn init() -> impl Strategy<Value = Init> {
    (
        any::<u64>(),
        pat(),
        pat(),
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.25),
        any::<bool>(),
    )
        .prop_map(|(seed, enable, carry, inject, narrow, indicator)| Init {
            seed,
            enable,
            carry,
            inject,
            narrow,
            indicator,
        })
}

/// The initial state for GMAX / GMIN: mostly a few dozen Enabled pixels, operands narrowed
/// (ties, and maxima with zero bits), and no injected values (one all-ones pixel would make
/// every maximum all ones).
fn global_init() -> impl Strategy<Value = Init> {
    (
        any::<u64>(),
        prop_oneof![
            4 => Just(Pat::Sparse),
            1 => Just(Pat::Random),
            1 => Just(Pat::Zeros),
            1 => Just(Pat::Ones),
        ],
        pat(),
        prop::bool::weighted(0.75),
        any::<bool>(),
    )
        .prop_map(|(seed, enable, carry, narrow, indicator)| Init {
            seed,
            enable,
            carry,
            inject: false,
            narrow,
            indicator,
        })
}

/// A segment length 1..=128, biased to small values and to the word boundaries.
fn len() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => 1usize..=128,
        2 => 1usize..=40,
        2 => prop::sample::select(vec![1usize, 2, 31, 32, 33, 63, 64, 65, 104, 127, 128]),
    ]
}

/// A scalar, including negative ones and the extremes.
fn scalar() -> impl Strategy<Value = u32> {
    prop_oneof![
        2 => any::<u32>(),
        2 => (-300i32..300).prop_map(|v| v as u32),
        1 => prop::sample::select(vec![0u32, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff]),
    ]
}

fn sca_form() -> impl Strategy<Value = ScaForm> {
    prop_oneof![
        4 => scalar().prop_map(ScaForm::S1),
        1 => scalar().prop_map(|p| ScaForm::S0 { preset: Some(p) }),
        1 => prop::collection::vec(scalar().prop_map(|v| v & 0x7fff_ffff), 1..4)
            .prop_map(ScaForm::Tbl),
    ]
}

fn overlaps(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 < b.0 + b.1 && b.0 < a.0 + a.1
}

/// A position for a segment of `len` bits that overlaps none of `avoid` and satisfies `ok`,
/// chosen by `raw` among all such positions.
fn place(len: usize, avoid: &[(usize, usize)], raw: u32, ok: impl Fn(usize) -> bool) -> usize {
    let cands: Vec<usize> = (0..=MEM_BITS - len)
        .filter(|&p| avoid.iter().all(|&a| !overlaps((p, len), a)) && ok(p))
        .collect();
    assert!(
        !cands.is_empty(),
        "no room for {len} bits avoiding {avoid:?}"
    );
    // Favour the extremes: segments at bit 0 and ending at bit 207.
    match raw % 8 {
        0 => cands[0],
        1 => cands[cands.len() - 1],
        _ => cands[(raw / 8) as usize % cands.len()],
    }
}

fn anywhere(len: usize, raw: u32) -> usize {
    place(len, &[], raw, |_| true)
}

/// Whether `len` more bits fit somewhere outside `avoid`.
fn room(len: usize, avoid: &[(usize, usize)]) -> bool {
    (0..=MEM_BITS - len).any(|p| avoid.iter().all(|&a| !overlaps((p, len), a)))
}

type Raw = (u32, u32, u32);

fn raws() -> impl Strategy<Value = Raw> {
    (any::<u32>(), any::<u32>(), any::<u32>())
}

fn no_args(cmd: RefCmd) -> BoxedStrategy<RefCmd> {
    Just(cmd).boxed()
}

fn one_bit(f: fn(usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    (0..MEM_BITS).prop_map(f).boxed()
}

fn dst_len(f: fn(usize, usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    (len(), any::<u32>())
        .prop_map(move |(l, r)| f(anywhere(l, r), l))
        .boxed()
}

/// `(dst, src, dlen)` with dst == src or disjoint (seed: no partial overlap).
fn unary(f: fn(usize, usize, usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    (len(), any::<bool>(), raws())
        .prop_map(move |(l, same, (r0, r1, _))| {
            if same {
                let p = anywhere(l, r0);
                f(p, p, l)
            } else {
                let l = l.min(MEM_BITS / 2);
                let dst = place(l, &[], r0, |p| room(l, &[(p, l)]));
                let src = place(l, &[(dst, l)], r1, |_| true);
                f(dst, src, l)
            }
        })
        .boxed()
}

/// CPY's `(dst, src, dlen)`: any overlap (note 12), biased to overlapping both ways.
fn any_overlap(f: fn(usize, usize, usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    (len(), 0..3u8, raws())
        .prop_map(move |(l, mode, (r0, r1, _))| {
            let src = anywhere(l, r0);
            let dst = match mode {
                0 => anywhere(l, r1),
                // A one-bit segment cannot overlap another one partially.
                _ if l == 1 => src,
                1 => src,
                _ => place(l, &[], r1, |p| p != src && overlaps((p, l), (src, l))),
            };
            f(dst, src, l)
        })
        .boxed()
}

/// `(dst, lsrc, src, dlen, slen)`: dst == lsrc, dst == src (same length) or dst disjoint from
/// both; lsrc and src may overlap each other.
fn three(f: fn(usize, usize, usize, usize, usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    (len(), len(), prop::bool::weighted(0.3), 0..4u8, raws())
        .prop_map(move |(dl, sl, eq_len, mode, (r0, r1, r2))| {
            let sl = if eq_len { dl } else { sl };
            match mode {
                // dst == lsrc; src disjoint.
                0 => {
                    let sl = sl.min(MEM_BITS - dl);
                    let dst = place(dl, &[], r0, |p| room(sl, &[(p, dl)]));
                    let src = place(sl, &[(dst, dl)], r1, |_| true);
                    f(dst, dst, src, dl, sl)
                }
                // dst == lsrc == src.
                1 => {
                    let p = anywhere(dl, r0);
                    f(p, p, p, dl, dl)
                }
                // dst == src; lsrc disjoint.
                2 => {
                    let dl = dl.min(MEM_BITS / 2);
                    let dst = place(dl, &[], r0, |p| room(dl, &[(p, dl)]));
                    let lsrc = place(dl, &[(dst, dl)], r1, |_| true);
                    f(dst, lsrc, dst, dl, dl)
                }
                // all disjoint from dst; sources anywhere else.
                _ => {
                    let dl = dl.min(MEM_BITS / 2);
                    let sl = sl.min(MEM_BITS - dl);
                    let dst = place(dl, &[], r0, |p| {
                        room(dl, &[(p, dl)]) && room(sl, &[(p, dl)])
                    });
                    let lsrc = place(dl, &[(dst, dl)], r1, |_| true);
                    let src = place(sl, &[(dst, dl)], r2, |_| true);
                    f(dst, lsrc, src, dl, sl)
                }
            }
        })
        .boxed()
}

/// `(dst, src, dlen, slen)` for `dst += src`: src == dst (same length) or disjoint.
fn accumulate(f: fn(usize, usize, usize, usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    (len(), len(), any::<bool>(), 0..3u8, raws())
        .prop_map(move |(dl, sl, eq_len, mode, (r0, r1, _))| {
            if mode == 0 {
                let p = anywhere(dl, r0);
                f(p, p, dl, dl)
            } else {
                let sl = if eq_len { dl } else { sl }.min(MEM_BITS - dl);
                let dst = place(dl, &[], r0, |p| room(sl, &[(p, dl)]));
                let src = place(sl, &[(dst, dl)], r1, |_| true);
                f(dst, src, dl, sl)
            }
        })
        .boxed()
}

fn src_len(f: fn(usize, usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    dst_len(f)
}

/// `(lsrc, src, slen)`: no destination, so any overlap, biased to the same segment.
fn two_sources(f: fn(usize, usize, usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    (len(), prop::bool::weighted(0.25), raws())
        .prop_map(move |(l, same, (r0, r1, _))| {
            let lsrc = anywhere(l, r0);
            let src = if same { lsrc } else { anywhere(l, r1) };
            f(lsrc, src, l)
        })
        .boxed()
}

/// `(dst, lsrc, src, dlen)`, all of one length: dst == lsrc, dst == src, all three equal, or
/// dst disjoint from both (lsrc and src may overlap each other).
fn three_eq(f: fn(usize, usize, usize, usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    (len(), 0..4u8, raws())
        .prop_map(move |(l, mode, (r0, r1, r2))| {
            if mode == 1 {
                let p = anywhere(l, r0);
                return f(p, p, p, l);
            }
            let l = l.min(MEM_BITS / 2);
            let dst = place(l, &[], r0, |p| room(l, &[(p, l)]));
            let other = place(l, &[(dst, l)], r1, |_| true);
            match mode {
                0 => f(dst, dst, other, l),
                2 => f(dst, other, dst, l),
                _ => f(dst, other, place(l, &[(dst, l)], r2, |_| true), l),
            }
        })
        .boxed()
}

/// `(dst, src, dlen, tmp)`: dst == src or disjoint; the one-bit tmp outside both.
fn with_tmp(f: fn(usize, usize, usize, usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    (len(), any::<bool>(), raws())
        .prop_map(move |(l, same, (r0, r1, r2))| {
            if same {
                let l = l.min(MEM_BITS - 1);
                let dst = place(l, &[], r0, |p| room(1, &[(p, l)]));
                let tmp = place(1, &[(dst, l)], r1, |_| true);
                f(dst, dst, l, tmp)
            } else {
                let l = l.min((MEM_BITS - 1) / 2);
                let dst = place(l, &[], r0, |p| room(l, &[(p, l)]));
                let src = place(l, &[(dst, l)], r1, |_| true);
                let tmp = place(1, &[(dst, l), (src, l)], r2, |_| true);
                f(dst, src, l, tmp)
            }
        })
        .boxed()
}

/// OVSIX's `(dst, dlen, tmp)`: tmp outside dst.
fn dst_len_tmp(f: fn(usize, usize, usize) -> RefCmd) -> BoxedStrategy<RefCmd> {
    (len(), raws())
        .prop_map(move |(l, (r0, r1, _))| {
            let l = l.min(MEM_BITS - 1);
            let dst = place(l, &[], r0, |p| room(1, &[(p, l)]));
            f(dst, l, place(1, &[(dst, l)], r1, |_| true))
        })
        .boxed()
}

/// A command of the given strategy with a scalar form when it takes one.
fn with_form(cmd: BoxedStrategy<RefCmd>) -> impl Strategy<Value = (RefCmd, ScaForm)> {
    (cmd, sca_form()).prop_map(|(c, f)| {
        let f = if c.uses_scalar() { f } else { ScaForm::None };
        (c, f)
    })
}

fn run_prop(cmd: RefCmd, form: ScaForm, init: Init) -> Result<(), TestCaseError> {
    check(standard(), cmd, form, &init).map_err(TestCaseError::fail)
}

// ------------------------------------------------------------------------------ properties

/// One property test per command, and [`all_commands`] from the same list. An entry may name
/// its initial-state strategy (`@ global_init()`); the default is `init()`.
macro_rules! command_props {
    ($($test:ident => $strategy:expr $(, @ $init:expr)?;)*) => {
        /// Every command with its argument strategy.
        fn all_commands() -> Vec<BoxedStrategy<RefCmd>> {
            vec![$($strategy),*]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(cases()))]
            $(
                #[test]
                fn $test(
                    (cmd, form) in with_form($strategy),
                    init in command_props!(@init $($init)?),
                ) {
                    run_prop(cmd, form, init)?;
                }
            )*
        }
    };
    (@init) => { init().boxed() };
    (@init $init:expr) => { $init.boxed() };
}

command_props! {
    noop => no_args(RefCmd::Noop);
    noop2 => no_args(RefCmd::Noop2);
    fbits => (0..=30usize).prop_map(|n| RefCmd::Fbits { n }).boxed();
    clrenabs => no_args(RefCmd::ClrEnabs);
    setenabs => no_args(RefCmd::SetEnabs);
    enabinv => no_args(RefCmd::EnabInv);
    memintoenab => one_bit(|src| RefCmd::MemIntoEnab { src });
    enabintomem => one_bit(|dst| RefCmd::EnabIntoMem { dst });
    enabintocry => no_args(RefCmd::EnabIntoCry);
    cryintoenab => no_args(RefCmd::CryIntoEnab);
    clear => dst_len(|dst, dlen| RefCmd::Clear { dst, dlen });
    set => dst_len(|dst, dlen| RefCmd::Set { dst, dlen });
    clrcry => no_args(RefCmd::ClrCry);
    scaintomem => dst_len(|dst, dlen| RefCmd::ScaIntoMem { dst, dlen });
    cpy => any_overlap(|dst, src, dlen| RefCmd::Cpy { dst, src, dlen });
    invert => unary(|dst, src, dlen| RefCmd::Invert { dst, src, dlen });
    inc => unary(|dst, src, dlen| RefCmd::Inc { dst, src, dlen });
    dec => unary(|dst, src, dlen| RefCmd::Dec { dst, src, dlen });
    negate => unary(|dst, src, dlen| RefCmd::Negate { dst, src, dlen });
    memplusmem => three(|dst, lsrc, src, dlen, slen| RefCmd::MemPlusMem { dst, lsrc, src, dlen, slen });
    memminusmem => three(|dst, lsrc, src, dlen, slen| RefCmd::MemMinusMem { dst, lsrc, src, dlen, slen });
    memplusseqmem => accumulate(|dst, src, dlen, slen| RefCmd::MemPlusEqMem { dst, src, dlen, slen });
    memeqzero => src_len(|src, slen| RefCmd::MemEqZero { src, slen });
    memeqsca => src_len(|src, slen| RefCmd::MemEqSca { src, slen });
    memgesca => src_len(|src, slen| RefCmd::MemGeSca { src, slen });
    memgtsca => src_len(|src, slen| RefCmd::MemGtSca { src, slen });
    memgemem => two_sources(|lsrc, src, slen| RefCmd::MemGeMem { lsrc, src, slen });
    cryintomem => one_bit(|dst| RefCmd::CryIntoMem { dst });
    indon => no_args(RefCmd::IndOn);
    indoff => no_args(RefCmd::IndOff);
    // Issue 4: the non-QEE commands.
    memeqones => src_len(|src, slen| RefCmd::MemEqOnes { src, slen });
    memnezero => src_len(|src, slen| RefCmd::MemNeZero { src, slen });
    memeqmem => two_sources(|lsrc, src, slen| RefCmd::MemEqMem { lsrc, src, slen });
    memnemem => two_sources(|lsrc, src, slen| RefCmd::MemNeMem { lsrc, src, slen });
    memgtmem => two_sources(|lsrc, src, slen| RefCmd::MemGtMem { lsrc, src, slen });
    mem2gemem2 => two_sources(|lsrc, src, slen| RefCmd::Mem2GeMem2 { lsrc, src, slen });
    mem2gtmem2 => two_sources(|lsrc, src, slen| RefCmd::Mem2GtMem2 { lsrc, src, slen });
    enabandeqmem => one_bit(|src| RefCmd::EnabAndEqMem { src });
    enabandeqmembar => one_bit(|src| RefCmd::EnabAndEqMemBar { src });
    enaboreqmem => one_bit(|src| RefCmd::EnabOrEqMem { src });
    enabxoreqmem => one_bit(|src| RefCmd::EnabXorEqMem { src });
    enaboreqcry => no_args(RefCmd::EnabOrEqCry);
    memoreqenab => one_bit(|dst| RefCmd::MemOrEqEnab { dst });
    memandeqenab => one_bit(|dst| RefCmd::MemAndEqEnab { dst });
    swap => unary(|dst, src, dlen| RefCmd::Swap { dst, src, dlen });
    memplusseqsca => unary(|dst, src, dlen| RefCmd::MemPlusEqSca { dst, src, dlen });
    memminuseqmem => accumulate(|dst, src, dlen, slen| RefCmd::MemMinusEqMem { dst, src, dlen, slen });
    memplusmem2 => three(|dst, lsrc, src, dlen, slen| RefCmd::MemPlusMem2 { dst, lsrc, src, dlen, slen });
    memplusseqmem2 => accumulate(|dst, src, dlen, slen| RefCmd::MemPlusEqMem2 { dst, src, dlen, slen });
    memminusmem2 => three(|dst, lsrc, src, dlen, slen| RefCmd::MemMinusMem2 { dst, lsrc, src, dlen, slen });
    memminuseqmem2 => accumulate(|dst, src, dlen, slen| RefCmd::MemMinusEqMem2 { dst, src, dlen, slen });
    memandmem => three_eq(|dst, lsrc, src, dlen| RefCmd::MemAndMem { dst, lsrc, src, dlen });
    memandeqmem => unary(|dst, src, dlen| RefCmd::MemAndEqMem { dst, src, dlen });
    memormem => three_eq(|dst, lsrc, src, dlen| RefCmd::MemOrMem { dst, lsrc, src, dlen });
    memoreqmem => unary(|dst, src, dlen| RefCmd::MemOrEqMem { dst, src, dlen });
    memxormem => three_eq(|dst, lsrc, src, dlen| RefCmd::MemXorMem { dst, lsrc, src, dlen });
    memxoreqmem => unary(|dst, src, dlen| RefCmd::MemXorEqMem { dst, src, dlen });
    memcimpplusseqmem => with_tmp(|dst, src, dlen, tmp| RefCmd::MemCImpPlusEqMem { dst, src, dlen, tmp });
    mem2cimpplusseqmem2 => with_tmp(|dst, src, dlen, tmp| RefCmd::Mem2CImpPlusEqMem2 { dst, src, dlen, tmp });
    ovsix => dst_len_tmp(|dst, dlen, tmp| RefCmd::Ovsix { dst, dlen, tmp });
    tbentry => accumulate(|dst, src, dlen, slen| RefCmd::TbEntry { dst, src, dlen, slen });
    gmax => with_tmp(|dst, src, dlen, tmp| RefCmd::Gmax { dst, src, dlen, tmp }), @ global_init();
    gmin => with_tmp(|dst, src, dlen, tmp| RefCmd::Gmin { dst, src, dlen, tmp }), @ global_init();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases() * 2 / 3))]

    /// Short random programs: commands back to back in one message (the next command waits
    /// in the LLPR while the previous one runs), Carry and Enable flowing between them.
    #[test]
    fn random_sequences(
        cmds in prop::collection::vec(
            with_form(proptest::strategy::Union::new(all_commands()).boxed()),
            2..6,
        ),
        init in init(),
    ) {
        // A back-door preset is only possible first; later `_S0`s reuse the previous
        // scalar, which the reference tracks. A command with a `tmp` leaves it undefined, so
        // it may only come last.
        let last = cmds.len() - 1;
        let cmds: Vec<_> = cmds
            .into_iter()
            .enumerate()
            .filter(|(k, (c, _))| *k == last || c.scratch().is_none())
            .enumerate()
            .map(|(k, (_, (c, f)))| match f {
                ScaForm::S0 { .. } if k > 0 => (c, ScaForm::S0 { preset: None }),
                f => (c, f),
            })
            .collect();
        check_seq(standard(), &cmds, &init).map_err(TestCaseError::fail)?;
    }
}

// ------------------------------------------------------------------------------ directed

fn fixed_init(seed: u64) -> Init {
    Init {
        seed,
        enable: Pat::Random,
        carry: Pat::Random,
        inject: true,
        narrow: false,
        indicator: false,
    }
}

#[test]
fn every_command_of_the_standard_microcode_is_covered() {
    let names: Vec<String> = standard()
        .image
        .table
        .commands
        .iter()
        .filter(|c| c.entry.is_some())
        .map(|c| c.name.clone())
        .collect();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let covered: Vec<&str> = all_commands()
        .iter()
        .map(|s| s.new_tree(&mut runner).expect("strategy").current().name())
        .collect();
    // The QEE commands (sim/microcode/qee.pp5uc) are tested in qee_commands.rs and qee.rs,
    // SHIFTL and SHIFTR in shifts.rs, the transfer, semaphore and status commands (which
    // act on the board, not on pixels alone) in board_ports.rs and board_proptest.rs.
    const BOARD: [&str; 7] = [
        "BSLOAD",
        "BSSTORE",
        "BSWAIT",
        "VBS",
        "VBSlater",
        "PIGC",
        "SENDSTATUS",
    ];
    let qee = include_str!("../../sim/microcode/qee.pp5uc");
    for n in &names {
        let in_qee = qee.contains(&format!(".command {n}("));
        assert!(
            covered.contains(&n.as_str())
                || n == "HANG"
                || in_qee
                || n == "SHIFTL"
                || n == "SHIFTR"
                || BOARD.contains(&n.as_str()),
            "{n} has no property test"
        );
    }
}

#[test]
fn tbl_form_executes_once_per_value() {
    let mut tb = standard().clone();
    tb.run_text("SETENABS\n");
    for x in 0..128 {
        tb.poke(x, 0, 0, 8, x as u64);
    }
    let out = tb.run_text("MEMgtSCA_TBL 0 8 3 40 7\n");
    assert_eq!(out.stop, StopReason::Done);
    // Three executions, one per value, each 2 + slen cycles.
    assert_eq!(
        out.command_cycles,
        vec![("MEMgtSCA".to_string(), 10); 3],
        "{out:?}"
    );
    for x in 0..128 {
        assert_eq!(tb.enable(x, 0), x > 40, "pixel ({x}, 0)");
    }
    // The assembler sets bit 31 on the last value, and the IGC uses the word as it came:
    // it shows past bit 31 (sca[40] sign-extends), which is why the seed restricts _TBL to
    // commands that use the 31 LSBs.
    let out = tb.run_text("SETENABS\nSCAIntoMEM_TBL 100 40 5 6\n");
    assert_eq!(out.command_cycles.len(), 3);
    assert_eq!(tb.peek(3, 3, 100, 40), 0xff_8000_0006);
    // The same through the property checker: every pixel, Enable and Carry.
    check(
        standard(),
        RefCmd::ScaIntoMem { dst: 7, dlen: 20 },
        ScaForm::Tbl(vec![1, 0x1234, 0x7fff_ffff, 77]),
        &fixed_init(1),
    )
    .unwrap();
}

#[test]
fn s0_form_reuses_the_previous_scalar() {
    let mut tb = standard().clone();
    let out =
        tb.run_text("SETENABS\nSCAIntoMEM_S1 0 16 1234\nSCAIntoMEM_S0 16 16\nMEMeqSCA_S0 16 16\n");
    assert_eq!(out.stop, StopReason::Done);
    assert_eq!(out.command_cycles.len(), 4);
    for (x, y) in [(0, 0), (127, 127), (64, 33)] {
        assert_eq!(tb.peek(x, y, 16, 16), 1234);
        assert!(tb.enable(x, y));
    }
    // A sequence through the checker: the _S0 commands use the scalar the _S1 sent, also
    // across a command that takes no scalar.
    check_seq(
        standard(),
        &[
            (
                RefCmd::ScaIntoMem { dst: 0, dlen: 40 },
                ScaForm::S1(-9i32 as u32),
            ),
            (RefCmd::SetEnabs, ScaForm::None),
            (
                RefCmd::MemGeSca { src: 50, slen: 40 },
                ScaForm::S0 { preset: None },
            ),
            (
                RefCmd::ScaIntoMem { dst: 100, dlen: 64 },
                ScaForm::S0 { preset: None },
            ),
        ],
        &fixed_init(2),
    )
    .unwrap();
}

#[test]
fn indon_and_indoff_toggle_status_bit_31() {
    let mut tb = standard().clone();
    assert_eq!(tb.status() >> 31, 0);
    let out = tb.run_text("INDON\n");
    assert_eq!(out.command_cycles, vec![("INDON".to_string(), 1)]);
    assert_eq!(tb.status() >> 31, 1);
    tb.run_text("NOOP\nINDON\n");
    assert_eq!(tb.status() >> 31, 1);
    let out = tb.run_text("INDOFF\n");
    assert_eq!(out.command_cycles, vec![("INDOFF".to_string(), 1)]);
    assert_eq!(tb.status() >> 31, 0);
}

#[test]
fn negative_scalar_sign_extends_past_32_bits() {
    let mut tb = standard().clone();
    let out = tb.run_text("SETENABS\nCLEAR 0 128\nSCAIntoMEM_S1 10 100 -5\n");
    assert_eq!(out.stop, StopReason::Done);
    let want = (-5i128 as u128) & mask(100);
    for (x, y) in [(0, 0), (5, 77), (127, 127)] {
        let lo = tb.peek(x, y, 10, 64) as u128;
        let hi = tb.peek(x, y, 74, 36) as u128;
        assert_eq!(lo | hi << 64, want, "pixel ({x}, {y})");
        assert_eq!(tb.peek(x, y, 0, 10), 0);
        assert_eq!(tb.peek(x, y, 110, 18), 0);
    }
    // The compare sees the same 100-bit value; -4 (sign-extended) is above it, unsigned.
    tb.run_text("MEMeqSCA_S1 10 100 -5\nENABIntoMEM 200\nSETENABS\nMEMgeSCA_S1 10 100 -4\nENABIntoMEM 201\n");
    assert_eq!(tb.peek(9, 9, 200, 2), 0b01);
    for (cmd, sca) in [
        (RefCmd::ScaIntoMem { dst: 60, dlen: 128 }, -2i32),
        (RefCmd::MemEqSca { src: 3, slen: 33 }, -1),
        (RefCmd::MemGtSca { src: 70, slen: 90 }, i32::MIN),
    ] {
        check(standard(), cmd, ScaForm::S1(sca as u32), &fixed_init(3)).unwrap();
    }
}

// ------------------------------------------------------------------------------ mutations

/// Boot the standard microcode with `from` replaced by `to` (which must occur).
fn mutant(from: &str, to: &str) -> Testbench {
    assert!(
        STANDARD_SOURCE.contains(from),
        "mutation target `{from}` not found"
    );
    let src = STANDARD_SOURCE.replacen(from, to, 1);
    Testbench::boot(microcode::assemble(&src, "mutant.pp5uc").expect("mutant assembles"))
}

/// The checker must reject each mutant on at least one of a few fixed cases.
fn assert_caught(tb: &Testbench, cases: &[(RefCmd, ScaForm)]) {
    let caught = cases
        .iter()
        .enumerate()
        .find_map(|(k, (c, f))| check(tb, *c, f.clone(), &fixed_init(100 + k as u64)).err());
    assert!(caught.is_some(), "mutant survived {cases:?}");
}

#[test]
fn a_broken_inc_is_caught() {
    // Carry chain: `a|c` instead of `a&c`.
    let tb = mutant("r=a^c c=a&c w=mem[dst+i]", "r=a^c c=a|c w=mem[dst+i]");
    assert_caught(
        &tb,
        &[(
            RefCmd::Inc {
                dst: 0,
                src: 40,
                dlen: 16,
            },
            ScaForm::None,
        )],
    );
    // The standard image passes the same case.
    check(
        standard(),
        RefCmd::Inc {
            dst: 0,
            src: 40,
            dlen: 16,
        },
        ScaForm::None,
        &fixed_init(100),
    )
    .unwrap();
}

#[test]
fn a_missing_zero_extension_is_caught() {
    let tb = mutant(
        "b=mem[src+i] bext=zx(slen) r=a^b^c c=maj(a,b,c) w=mem[dst+i] i++ loopd memplusmem_l",
        "b=mem[src+i] r=a^b^c c=maj(a,b,c) w=mem[dst+i] i++ loopd memplusmem_l",
    );
    assert_caught(
        &tb,
        &[(
            RefCmd::MemPlusMem {
                dst: 0,
                lsrc: 40,
                src: 80,
                dlen: 24,
                slen: 8,
            },
            ScaForm::None,
        )],
    );
}

#[test]
fn an_enable_conditioned_enable_store_is_caught() {
    let tb = mutant("b=enable r=b wall=mem[dst]", "b=enable r=b w=mem[dst]");
    assert_caught(&tb, &[(RefCmd::EnabIntoMem { dst: 5 }, ScaForm::None)]);
}

#[test]
fn a_wrong_compare_boundary_is_caught() {
    // `>=` turned into `>` (borrow-in 1): only pixels equal to the scalar tell them apart,
    // and the injected values put the scalar itself into many pixels.
    let tb = mutant(
        "memgesca:     c=0 i=0 l=slen",
        "memgesca:     c=1 i=0 l=slen",
    );
    assert_caught(
        &tb,
        &[(RefCmd::MemGeSca { src: 9, slen: 12 }, ScaForm::S1(300))],
    );
}

#[test]
fn a_wrong_cycle_count_is_caught() {
    // One extra microinstruction before the compare's result: 3 + slen cycles.
    let tb = mutant(
        "memgemem:     c=0 i=0 l=slen",
        "memgemem:     c=0\n              i=0 l=slen",
    );
    let cmd = RefCmd::MemGeMem {
        lsrc: 0,
        src: 20,
        slen: 10,
    };
    let err = check(&tb, cmd, ScaForm::None, &fixed_init(9)).unwrap_err();
    assert!(err.contains("command cycles"), "{err}");
}

// ------------------------------------------------------------------------------ issue 4

/// An initial state for the global commands: a few dozen Enabled pixels, narrowed operands.
fn sparse_init(seed: u64) -> Init {
    Init {
        seed,
        enable: Pat::Sparse,
        carry: Pat::Random,
        inject: false,
        narrow: true,
        indicator: false,
    }
}

#[test]
fn gmax_and_gmin_find_the_extreme_of_the_enabled_pixels() {
    let mut tb = standard().clone();
    tb.run_text("CLRENABS\n");
    // src = mem[0:12], dst = mem[20:12], tmp = 40. Background values everywhere (disabled
    // pixels hold larger and smaller ones), then a few Enabled pixels.
    for y in 0..128 {
        for x in 0..128 {
            tb.poke(x, y, 0, 12, ((x * 31 + y * 17) % 4096) as u64);
            tb.poke(x, y, 20, 12, 0xabc);
        }
    }
    tb.poke(0, 0, 0, 12, 4095);
    tb.poke(127, 127, 0, 12, 0);
    let enabled = [
        (3, 4, 0x5a0),
        (100, 7, 0x5a3),
        (64, 64, 0x123),
        (9, 120, 0x5a3),
    ];
    for &(x, y, v) in &enabled {
        tb.poke(x, y, 0, 12, v);
        tb.set_enable(x, y, true);
    }
    let out = tb.run_text("GMAX 20 0 12 40\nENABIntoMEM 41\nGMIN 60 0 12 40\n");
    assert_eq!(out.stop, StopReason::Done);
    assert_eq!(
        out.command_cycles,
        vec![
            ("GMAX".to_string(), 2 + 3 * 12),
            ("ENABIntoMEM".to_string(), 1),
            ("GMIN".to_string(), 2 + 3 * 12)
        ]
    );
    for &(x, y, v) in &enabled {
        assert_eq!(tb.peek(x, y, 20, 12), 0x5a3, "max at ({x}, {y})");
        assert_eq!(tb.peek(x, y, 60, 12), 0x123, "min at ({x}, {y})");
        assert!(tb.enable(x, y), "Enable restored at ({x}, {y})");
        assert_eq!(tb.peek(x, y, 41, 1), 1);
        // Carry after GMIN: the Enabled pixels holding the minimum.
        assert_eq!(tb.carry(x, y), v == 0x123, "carry at ({x}, {y})");
    }
    for (x, y) in [(0, 0), (127, 127), (5, 5)] {
        assert_eq!(tb.peek(x, y, 20, 12), 0xabc, "disabled ({x}, {y}) written");
        assert!(!tb.enable(x, y));
        assert!(!tb.carry(x, y));
    }
    // No Enabled pixel: nothing is written and AEO stays asserted.
    tb.run_text("CLRENABS\nGMAX 20 0 12 40\nGMIN 20 0 12 40\n");
    assert_eq!(tb.peek(3, 4, 20, 12), 0x5a3);
    assert_eq!(tb.status() & 0xf, 0);
    // The same through the checker, on every pixel; and one Enabled pixel alone.
    for (k, enable) in [Pat::Zeros, Pat::Sparse, Pat::Random]
        .into_iter()
        .enumerate()
    {
        for cmd in [
            RefCmd::Gmax {
                dst: 100,
                src: 0,
                dlen: 40,
                tmp: 207,
            },
            RefCmd::Gmin {
                dst: 0,
                src: 0,
                dlen: 128,
                tmp: 130,
            },
        ] {
            let init = Init {
                enable,
                ..sparse_init(20 + k as u64)
            };
            check(standard(), cmd, ScaForm::None, &init).unwrap();
        }
    }
}

#[test]
fn tbentry_tbl_is_a_table_lookup() {
    let mut tb = standard().clone();
    tb.run_text("SETENABS\n");
    // mem[0:2] = x % 4 is the index; a 4-entry table of 8-bit values (word = entry << 2 | index).
    let table = [0x11u32, 0x22, 0x33, 0xfe];
    for x in 0..128 {
        tb.poke(x, 0, 0, 2, (x % 4) as u64);
        tb.poke(x, 0, 8, 8, 0x55);
    }
    tb.set_enable(5, 0, false);
    let words: Vec<String> = table
        .iter()
        .enumerate()
        .map(|(i, e)| (e << 2 | i as u32).to_string())
        .collect();
    let out = tb.run_text(&format!("TBENTRY_TBL 8 0 8 2 {}\n", words.join(" ")));
    assert_eq!(out.stop, StopReason::Done);
    assert_eq!(
        out.command_cycles,
        vec![("TBENTRY".to_string(), 2 + 2 + 8); 4]
    );
    for x in 0..128 {
        let want = if x == 5 { 0x55 } else { table[x % 4] as u64 };
        assert_eq!(tb.peek(x, 0, 8, 8), want, "pixel ({x}, 0)");
    }
    // Enable is not disturbed.
    assert!(!tb.enable(5, 0) && tb.enable(4, 0));
}

#[test]
fn saturating_adds_clamp_at_the_edges() {
    let mut tb = standard().clone();
    tb.run_text("SETENABS\n");
    let signed8 = [
        (100i64, 100i64),
        (-100, -100),
        (127, 1),
        (-128, -1),
        (-1, 1),
        (-128, 127),
        (64, 63),
        (-64, -64),
        (-65, -64),
    ];
    let unsigned8 = [(200u64, 55u64), (200, 56), (255, 255), (0, 0), (1, 254)];
    for (x, &(a, b)) in signed8.iter().enumerate() {
        tb.poke(x, 0, 0, 8, a as u64 & 0xff);
        tb.poke(x, 0, 8, 8, b as u64 & 0xff);
    }
    for (x, &(a, b)) in unsigned8.iter().enumerate() {
        tb.poke(x, 1, 16, 8, a);
        tb.poke(x, 1, 24, 8, b);
    }
    let out = tb.run_text("MEM2cImpplusseqMEM2 0 8 8 200\nMEMcImpplusseqMEM 16 24 8 201\n");
    assert_eq!(out.stop, StopReason::Done);
    assert_eq!(
        out.command_cycles,
        vec![
            ("MEM2cImpplusseqMEM2".to_string(), 18),
            ("MEMcImpplusseqMEM".to_string(), 18)
        ]
    );
    let (lo, hi) = signed_range(8);
    for (x, &(a, b)) in signed8.iter().enumerate() {
        let want = (a + b).clamp(lo as i64, hi as i64);
        assert_eq!(tb.peek(x, 0, 0, 8), want as u64 & 0xff, "{a} + {b}");
    }
    for (x, &(a, b)) in unsigned8.iter().enumerate() {
        assert_eq!(tb.peek(x, 1, 16, 8), (a + b).min(255), "{a} + {b}");
    }
    // One-bit signed values are 0 and -1: -1 + -1 clamps to -1.
    tb.poke(0, 2, 50, 1, 1);
    tb.poke(0, 2, 51, 1, 1);
    tb.run_text("MEM2cImpplusseqMEM2 50 51 1 52\n");
    assert_eq!(tb.peek(0, 2, 50, 1), 1);
    assert!(tb.carry(0, 2), "Carry = overflow");
}

/// The checker must reject each mutant with the given initial state.
fn assert_caught_with(tb: &Testbench, cmd: RefCmd, form: ScaForm, inits: &[Init]) {
    assert!(
        inits
            .iter()
            .any(|init| check(tb, cmd, form.clone(), init).is_err()),
        "mutant survived {cmd:?}"
    );
    for init in inits {
        check(standard(), cmd, form.clone(), init).unwrap();
    }
}

#[test]
fn broken_issue_4_routines_are_caught() {
    let sparse = [sparse_init(40), sparse_init(41), sparse_init(42)];
    let gmax = RefCmd::Gmax {
        dst: 10,
        src: 60,
        dlen: 24,
        tmp: 5,
    };
    // GMAX branching the wrong way, or not restoring the candidates on the "none" path.
    let tb = mutant("jaeo gmax_n", "jnaeo gmax_n");
    assert_caught_with(&tb, gmax, ScaForm::None, &sparse);
    let tb = mutant("gmax_n:       r=c e=r i++", "gmax_n:       i++");
    assert_caught_with(&tb, gmax, ScaForm::None, &sparse);
    // GMIN looking for ones instead of zeros.
    let tb = mutant("rlen=dlen r=~a e=e&r c=b", "rlen=dlen r=a e=e&r c=b");
    assert_caught_with(
        &tb,
        RefCmd::Gmin {
            dst: 100,
            src: 100,
            dlen: 30,
            tmp: 0,
        },
        ScaForm::None,
        &sparse,
    );
    // The signed compare's sign step done as an unsigned one.
    let tb = mutant(
        "rlen=slen r=c|~a|b e=e&r c=c|(a^b) i++ loopd mem2gemem2_l",
        "rlen=slen r=c|a|~b e=e&r c=c|(a^b) i++ loopd mem2gemem2_l",
    );
    let fixed = [fixed_init(50), fixed_init(51)];
    assert_caught_with(
        &tb,
        RefCmd::Mem2GeMem2 {
            lsrc: 0,
            src: 30,
            slen: 9,
        },
        ScaForm::None,
        &fixed,
    );
    // The signed clamp writing the wrong sign bit.
    let tb = mutant("rlen=dlen r=c&a|~c&b", "rlen=dlen r=c&~a|~c&b");
    assert_caught_with(
        &tb,
        RefCmd::Mem2CImpPlusEqMem2 {
            dst: 0,
            src: 16,
            dlen: 6,
            tmp: 40,
        },
        ScaForm::None,
        &fixed,
    );
    // TBENTRY writing the index bits instead of the entry.
    let tb = mutant("b=sca[slen+i]", "b=sca[i]");
    assert_caught_with(
        &tb,
        RefCmd::TbEntry {
            dst: 50,
            src: 3,
            dlen: 5,
            slen: 3,
        },
        ScaForm::S1(0b10110 << 3 | 0b101),
        &fixed,
    );
}
