//! The shading arithmetic of `sim/microcode/shade.pp5uc` (MEMtimesMEM, MEMtimesSCA,
//! MEMmaxZERO, MEMsat), booted as part of `render_image()`, against a plain per-pixel
//! reference over all 16,384 pixels.
//!
//! Each case clones the booted board, fills all 208 memory planes, Enable and Carry with
//! random patterns (plus edge values in the operands at about 40% of the pixels: 0, all ones,
//! 1, the most negative and the most positive value), runs one command through the command
//! stream and checks: the run finished without diagnostics; the command took the cycles its
//! `.command` comment gives; every pixel's result field is the reference where Enable was set
//! and unchanged elsewhere; every other memory bit and Enable are unchanged; Carry is what the
//! comment says.

use pp5_rtl::emc_array::plane::PLANE_WORDS;
use pp5_rtl::emc_array::MEM_BITS;
use pp5_sim::asm::microcode;
use pp5_sim::engine::StopReason;
use pp5_testbench::Testbench;
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::sync::OnceLock;

/// Pixels of the array (pixel `i` is bit `i % 64` of plane word `i / 64`).
const NPIX: usize = 128 * 128;

/// The render image, booted once through the command stream.
fn bench() -> Testbench {
    static TB: OnceLock<Testbench> = OnceLock::new();
    TB.get_or_init(|| Testbench::boot(microcode::render_image()))
        .clone()
}

/// Cases per property: 32, or `PP5_PROPTEST_CASES` for a longer soak run.
fn config() -> Config {
    let cases = std::env::var("PP5_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

// ------------------------------------------------------------------------------ reference

fn mask(n: usize) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// `v`'s low `n` bits as a two's-complement number.
fn signed(v: u128, n: usize) -> i128 {
    let v = v & mask(n);
    if n < 128 && (v >> (n - 1)) & 1 == 1 {
        v as i128 - (1i128 << n)
    } else {
        v as i128
    }
}

/// A result field of up to 256 bits (a product of two 69-bit operands has 138), little-endian
/// 64-bit limbs.
type Wide = [u64; 4];

/// `v`, zero-extended (`false`) or sign-extended (`true`) to 256 bits, masked to `n` bits.
fn wide(v: u128, sign: bool, n: usize) -> Wide {
    let ext = if sign { u64::MAX } else { 0 };
    let mut w = [v as u64, (v >> 64) as u64, ext, ext];
    for (k, limb) in w.iter_mut().enumerate() {
        let lo = 64 * k;
        if n <= lo {
            *limb = 0;
        } else if n < lo + 64 {
            *limb &= (1u64 << (n - lo)) - 1;
        }
    }
    w
}

/// The product of two unsigned numbers, exactly.
fn wide_mul(a: u128, b: u128) -> Wide {
    let (a, b) = ([a as u64, (a >> 64) as u64], [b as u64, (b >> 64) as u64]);
    let mut w = [0u64; 4];
    for i in 0..2 {
        let mut carry = 0u128;
        for j in 0..2 {
            let t = u128::from(a[i]) * u128::from(b[j]) + u128::from(w[i + j]) + carry;
            w[i + j] = t as u64;
            carry = t >> 64;
        }
        w[i + 2] = carry as u64;
    }
    w
}

/// Bit `k` of the scalar as the microcode reads it (`sca[k]` sign-extends past bit 31).
fn sca_bit(sca: u32, k: usize) -> bool {
    (sca >> k.min(31)) & 1 != 0
}

/// The multiplier of MEMtimesSCA: the scalar's low `slen` bits, signed.
fn sca_value(sca: u32, slen: usize) -> i128 {
    signed((sca as i32 as i128) as u128, slen)
}

/// MEMtimesSCA's `n`: bits 0..slen-2 of the scalar that differ from bit slen-1.
fn sca_steps(sca: u32, slen: usize) -> u64 {
    let sign = sca_bit(sca, slen - 1);
    (0..slen).filter(|&k| sca_bit(sca, k) != sign).count() as u64
}

/// One of the four commands with its arguments and scalar.
#[derive(Clone, Copy, Debug)]
enum Cmd {
    TimesMem {
        dst: usize,
        lsrc: usize,
        src: usize,
        len: usize,
    },
    TimesSca {
        dst: usize,
        src: usize,
        len: usize,
        slen: usize,
        sca: u32,
    },
    MaxZero {
        dst: usize,
        len: usize,
    },
    Sat {
        dst: usize,
        len: usize,
        keep: usize,
    },
}

impl Cmd {
    fn name(&self) -> &'static str {
        match self {
            Cmd::TimesMem { .. } => "MEMtimesMEM",
            Cmd::TimesSca { .. } => "MEMtimesSCA",
            Cmd::MaxZero { .. } => "MEMmaxZERO",
            Cmd::Sat { .. } => "MEMsat",
        }
    }

    fn text(&self) -> String {
        match *self {
            Cmd::TimesMem {
                dst,
                lsrc,
                src,
                len,
            } => format!("MEMtimesMEM {dst} {lsrc} {src} {len}"),
            Cmd::TimesSca {
                dst,
                src,
                len,
                slen,
                sca,
            } => format!("MEMtimesSCA_S1 {dst} {src} {len} {slen} {}", sca as i32),
            Cmd::MaxZero { dst, len } => format!("MEMmaxZERO {dst} {len}"),
            Cmd::Sat { dst, len, keep } => format!("MEMsat {dst} {len} {keep}"),
        }
    }

    /// The field the command writes: (lsb, bits).
    fn dest(&self) -> (usize, usize) {
        match *self {
            Cmd::TimesMem { dst, len, .. } => (dst, 2 * len),
            Cmd::TimesSca { dst, len, slen, .. } => (dst, len + slen),
            Cmd::MaxZero { dst, len } => (dst, len),
            Cmd::Sat { dst, len, .. } => (dst, len),
        }
    }

    /// The operand fields (for the edge values).
    fn sources(&self) -> Vec<(usize, usize)> {
        match *self {
            Cmd::TimesMem { lsrc, src, len, .. } => vec![(lsrc, len), (src, len)],
            Cmd::TimesSca { src, len, .. } => vec![(src, len)],
            Cmd::MaxZero { dst, len } | Cmd::Sat { dst, len, .. } => vec![(dst, len)],
        }
    }

    /// The documented cycles (the `.command` comments of shade.pp5uc).
    fn cycles(&self, any_enabled: bool) -> u64 {
        match *self {
            Cmd::TimesMem { len, .. } => {
                let len = len as u64;
                if any_enabled {
                    len * len + 4 * len + 6
                } else {
                    3
                }
            }
            Cmd::TimesSca { len, slen, sca, .. } => {
                let neg = u64::from(sca_bit(sca, slen - 1));
                let n = sca_steps(sca, slen);
                let (len, slen) = (len as u64, slen as u64);
                4 + len + 4 * slen + n * len + neg
            }
            Cmd::MaxZero { len, .. } => 1 + len as u64,
            Cmd::Sat { len, keep, .. } => {
                if keep < len {
                    2 + (len + keep) as u64
                } else {
                    2
                }
            }
        }
    }

    /// The reference: (new value of the destination field, Carry afterwards), from the
    /// pixel's initial memory (`field`), Enable and Carry.
    fn apply(
        &self,
        field: impl Fn(usize, usize) -> u128,
        enable: bool,
        carry: bool,
    ) -> (Wide, bool) {
        match *self {
            // The product of two len-bit numbers has exactly 2*len bits.
            Cmd::TimesMem { lsrc, src, len, .. } => {
                (wide_mul(field(lsrc, len), field(src, len)), false)
            }
            Cmd::TimesSca {
                src,
                len,
                slen,
                sca,
                ..
            } => {
                let p = signed(field(src, len), len) * sca_value(sca, slen);
                (wide(p as u128, p < 0, len + slen), enable && p < 0)
            }
            Cmd::MaxZero { dst, len } => {
                let v = field(dst, len);
                let v = if signed(v, len) < 0 { 0 } else { v };
                (wide(v, false, len), carry)
            }
            Cmd::Sat { dst, len, keep } => {
                let v = field(dst, len);
                if keep >= len {
                    return (wide(v, false, len), false);
                }
                let over = v >> keep != 0;
                let low = if over { mask(keep) } else { v & mask(keep) };
                (wide((v & !mask(keep)) | low, false, len), over)
            }
        }
    }
}

// ------------------------------------------------------------------------------ the board

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
}

/// A fill pattern for Enable or Carry.
#[derive(Clone, Copy, Debug)]
enum Pat {
    Random,
    Zeros,
    Ones,
    /// About one pixel in 256.
    Sparse,
}

fn pat() -> impl Strategy<Value = Pat> {
    prop_oneof![
        6 => Just(Pat::Random),
        1 => Just(Pat::Zeros),
        2 => Just(Pat::Ones),
        1 => Just(Pat::Sparse),
    ]
}

fn plane_of(p: Pat, rng: &mut Rng) -> [u64; PLANE_WORDS] {
    let mut w = [0u64; PLANE_WORDS];
    for x in w.iter_mut() {
        *x = match p {
            Pat::Random => rng.next(),
            Pat::Zeros => 0,
            Pat::Ones => u64::MAX,
            Pat::Sparse => (0..64).fold(0, |acc, k| acc | u64::from(rng.next() & 0xff == 0) << k),
        };
    }
    w
}

/// A snapshot of the array: memory planes, Enable, Carry.
#[derive(Clone)]
struct State {
    mem: Vec<[u64; PLANE_WORDS]>,
    enable: [u64; PLANE_WORDS],
    carry: [u64; PLANE_WORDS],
}

fn bit(plane: &[u64; PLANE_WORDS], i: usize) -> bool {
    (plane[i / 64] >> (i % 64)) & 1 != 0
}

fn set_bit(plane: &mut [u64; PLANE_WORDS], i: usize, v: bool) {
    let m = 1u64 << (i % 64);
    if v {
        plane[i / 64] |= m;
    } else {
        plane[i / 64] &= !m;
    }
}

impl State {
    fn read(tb: &Testbench) -> State {
        let a = &tb.sim.board.array;
        State {
            mem: (0..MEM_BITS).map(|b| *a.mem[b]).collect(),
            enable: **a.enable,
            carry: **a.carry,
        }
    }

    fn write(&self, tb: &mut Testbench) {
        let a = &mut tb.sim.board.array;
        for (b, p) in self.mem.iter().enumerate() {
            *a.mem[b] = *p;
        }
        **a.enable = self.enable;
        **a.carry = self.carry;
        a.refresh_aeo();
    }

    fn field(&self, i: usize, lsb: usize, len: usize) -> u128 {
        (0..len).fold(0, |v, k| v | u128::from(bit(&self.mem[lsb + k], i)) << k)
    }

    fn wide_field(&self, i: usize, lsb: usize, len: usize) -> Wide {
        let mut w = [0u64; 4];
        for k in 0..len {
            w[k / 64] |= u64::from(bit(&self.mem[lsb + k], i)) << (k % 64);
        }
        w
    }

    fn set_field(&mut self, i: usize, lsb: usize, len: usize, v: u128) {
        for k in 0..len {
            set_bit(&mut self.mem[lsb + k], i, (v >> k) & 1 != 0);
        }
    }

    /// Random planes, then edge values in `sources` at about half of the pixels.
    fn random(seed: u64, enable: Pat, carry: Pat, sources: &[(usize, usize)]) -> State {
        let mut rng = Rng(seed);
        let mut s = State {
            mem: (0..MEM_BITS)
                .map(|_| plane_of(Pat::Random, &mut rng))
                .collect(),
            enable: plane_of(enable, &mut rng),
            carry: plane_of(carry, &mut rng),
        };
        for i in 0..NPIX {
            for &(lsb, len) in sources {
                let v = match rng.below(12) {
                    0 => 0,
                    1 => mask(len),
                    2 => 1,
                    3 => 1 << (len - 1),
                    4 => mask(len - 1),
                    _ => continue,
                };
                s.set_field(i, lsb, len, v);
            }
        }
        s
    }
}

/// Run `cmd` on `before` and compare everything with the reference.
fn check(cmd: &Cmd, before: &State) -> Result<(), String> {
    let mut tb = bench();
    before.write(&mut tb);
    let text = cmd.text() + "\n";
    let diags = tb.sim.diagnostics.len();
    let stream = pp5_sim::stream::text::parse(&text, "<test>", &tb.image.table)
        .map_err(|e| format!("{text}: {e}"))?;
    let out = tb.run(&stream, 1_000_000);
    if out.stop != StopReason::Done {
        return Err(format!("{text}: stopped with {:?}", out.stop));
    }
    let new: Vec<_> = tb.sim.diagnostics[diags..]
        .iter()
        .filter(|d| matches!(d.level, "error" | "fault" | "warning"))
        .collect();
    if !new.is_empty() {
        return Err(format!("{text}: diagnostics {new:?}"));
    }
    let any_enabled = before.enable.iter().any(|&w| w != 0);
    let want = vec![(cmd.name().to_string(), cmd.cycles(any_enabled))];
    if out.command_cycles != want {
        return Err(format!(
            "{text}: cycles {:?}, documented {want:?}",
            out.command_cycles
        ));
    }
    let after = State::read(&tb);
    if after.enable != before.enable {
        return Err(format!("{text}: Enable changed"));
    }
    let (dlsb, dlen) = cmd.dest();
    for b in (0..MEM_BITS).filter(|b| !(dlsb..dlsb + dlen).contains(b)) {
        if after.mem[b] != before.mem[b] {
            return Err(format!(
                "{text}: memory bit {b} (outside the result) changed"
            ));
        }
    }
    let mut bad = Vec::new();
    for i in 0..NPIX {
        let en = bit(&before.enable, i);
        let (v, c) = cmd.apply(|l, n| before.field(i, l, n), en, bit(&before.carry, i));
        let want = if en {
            v
        } else {
            before.wide_field(i, dlsb, dlen)
        };
        let got = after.wide_field(i, dlsb, dlen);
        let got_c = bit(&after.carry, i);
        if got != want || got_c != c {
            bad.push(format!(
                "pixel {i} (Enable {en}): result {got:x?}, expected {want:x?}; Carry {got_c}, expected {c}"
            ));
        }
    }
    if let Some(first) = bad.first() {
        return Err(format!(
            "{text}: {} of {NPIX} pixels differ; first: {first}",
            bad.len()
        ));
    }
    Ok(())
}

/// Places segments of the given lengths, in a random order with random gaps, inside the
/// 208 bits (their sum must fit). Returns their LSBs in the given order.
fn place(rng: &mut Rng, lens: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..lens.len()).collect();
    for k in (1..order.len()).rev() {
        order.swap(k, rng.below(k + 1));
    }
    let mut slack = MEM_BITS - lens.iter().sum::<usize>();
    let mut at = 0;
    let mut out = vec![0; lens.len()];
    for k in order {
        let gap = rng.below(slack / 2 + 1);
        slack -= gap;
        at += gap;
        out[k] = at;
        at += lens[k];
    }
    out
}

// ------------------------------------------------------------------------------ properties

/// Scalars: edge values for the scalar's length (with random bits above it) or random ones.
fn scalar() -> impl Strategy<Value = (u8, u32)> {
    (0u8..8, any::<u32>())
}

fn scalar_value(kind: u8, raw: u32, slen: usize) -> u32 {
    let low = if slen >= 32 {
        u32::MAX
    } else {
        (1u32 << slen) - 1
    };
    let high = raw & !low;
    match kind {
        0 => high,                             // zero
        1 => high | low,                       // -1: all ones
        2 => high | (1 << (slen.min(32) - 1)), // the most negative
        3 => high | (low >> 1),                // the most positive
        4 => high | 1,
        _ => raw,
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mem_times_mem(len in 1usize..=40, square in any::<bool>(), seed in any::<u64>(),
                     enable in pat(), carry in pat()) {
        let mut rng = Rng(seed);
        let (dst, lsrc, src) = if square {
            let at = place(&mut rng, &[2 * len, len]);
            (at[0], at[1], at[1])
        } else {
            let at = place(&mut rng, &[2 * len, len, len]);
            (at[0], at[1], at[2])
        };
        let cmd = Cmd::TimesMem { dst, lsrc, src, len };
        let before = State::random(rng.next(), enable, carry, &cmd.sources());
        prop_assert_eq!(check(&cmd, &before), Ok(()));
    }

    #[test]
    fn mem_times_sca(len in 1usize..=40, slen in 1usize..=40, (kind, raw) in scalar(),
                     seed in any::<u64>(), enable in pat(), carry in pat()) {
        let mut rng = Rng(seed);
        let at = place(&mut rng, &[len + slen, len]);
        let sca = scalar_value(kind, raw, slen);
        let cmd = Cmd::TimesSca { dst: at[0], src: at[1], len, slen, sca };
        let before = State::random(rng.next(), enable, carry, &cmd.sources());
        prop_assert_eq!(check(&cmd, &before), Ok(()));
    }

    #[test]
    fn mem_max_zero(len in 1usize..=100, seed in any::<u64>(), enable in pat(), carry in pat()) {
        let mut rng = Rng(seed);
        let dst = place(&mut rng, &[len])[0];
        let cmd = Cmd::MaxZero { dst, len };
        let before = State::random(rng.next(), enable, carry, &cmd.sources());
        prop_assert_eq!(check(&cmd, &before), Ok(()));
    }

    #[test]
    fn mem_sat(len in 2usize..=100, keep_frac in 0.0f64..1.0, seed in any::<u64>(),
               enable in pat(), carry in pat()) {
        let mut rng = Rng(seed);
        let keep = 1 + ((len - 1) as f64 * keep_frac) as usize; // 1 ..= len-1
        let dst = place(&mut rng, &[len])[0];
        let cmd = Cmd::Sat { dst, len, keep };
        let mut before = State::random(rng.next(), enable, carry, &cmd.sources());
        // Values just at and around the limit 2^keep - 1 at some pixels.
        for i in (0..NPIX).step_by(7) {
            let v = (mask(keep) + (i % 3) as u128).wrapping_sub(1) & mask(len);
            before.set_field(i, dst, len, v);
        }
        prop_assert_eq!(check(&cmd, &before), Ok(()));
    }
}

// ------------------------------------------------------------------------------ directed

/// Every edge scalar against every edge multiplicand, at the most negative scalar of each
/// length in particular, on a board where every pixel is Enabled and each holds an edge value.
#[test]
fn mem_times_sca_edges() {
    for (len, slen) in [(1, 1), (8, 8), (16, 16), (24, 16), (12, 32), (5, 37)] {
        let mut seed = 1;
        for kind in 0..5u8 {
            seed += 1;
            let sca = scalar_value(kind, 0xdead_beef, slen);
            let cmd = Cmd::TimesSca {
                dst: 0,
                src: 100,
                len,
                slen,
                sca,
            };
            let mut before = State::random(seed, Pat::Ones, Pat::Random, &[]);
            let edges = [0, mask(len), 1, 1 << (len - 1), mask(len - 1)];
            for i in 0..NPIX {
                before.set_field(i, 100, len, edges[i % edges.len()]);
            }
            assert_eq!(
                check(&cmd, &before),
                Ok(()),
                "len {len} slen {slen} sca {sca:#x}"
            );
        }
    }
}

/// Without an Enabled pixel nothing changes; MEMtimesMEM then skips its steps.
#[test]
fn nothing_is_written_without_enable() {
    let cmds = [
        Cmd::TimesMem {
            dst: 0,
            lsrc: 40,
            src: 60,
            len: 16,
        },
        Cmd::TimesSca {
            dst: 0,
            src: 40,
            len: 16,
            slen: 16,
            sca: 0x8000,
        },
        Cmd::MaxZero { dst: 0, len: 16 },
        Cmd::Sat {
            dst: 0,
            len: 16,
            keep: 8,
        },
    ];
    for cmd in cmds {
        let before = State::random(7, Pat::Zeros, Pat::Random, &cmd.sources());
        assert_eq!(check(&cmd, &before), Ok(()), "{cmd:?}");
    }
}

/// MEMsat with keep >= len leaves the field alone (2 cycles, Carry = 0).
#[test]
fn mem_sat_keep_not_below_len() {
    for (len, keep) in [(8, 8), (8, 9), (1, 1), (16, 100)] {
        let cmd = Cmd::Sat { dst: 3, len, keep };
        let before = State::random(9, Pat::Random, Pat::Random, &cmd.sources());
        assert_eq!(check(&cmd, &before), Ok(()), "{cmd:?}");
    }
}

/// The documented cycles at len 8 and 16 (the numbers in docs/commands.md), and the longest
/// lengths the ladders support (every entry of a ladder, and its last exit stub).
#[test]
fn cycles_at_len_8_and_16() {
    let mut rows = Vec::new();
    for len in [8usize, 16] {
        let cmds = [
            Cmd::TimesMem {
                dst: 0,
                lsrc: 40,
                src: 60,
                len,
            },
            // sca = 0x55.. : n = slen/2 (every other bit differs from the sign 0).
            Cmd::TimesSca {
                dst: 0,
                src: 40,
                len,
                slen: len,
                sca: 0x5555,
            },
            Cmd::TimesSca {
                dst: 0,
                src: 40,
                len,
                slen: len,
                sca: 0,
            },
            Cmd::TimesSca {
                dst: 0,
                src: 40,
                len,
                slen: len,
                sca: 1 << (len - 1),
            },
            Cmd::MaxZero { dst: 0, len },
            Cmd::Sat {
                dst: 0,
                len,
                keep: len / 2,
            },
        ];
        for cmd in cmds {
            let before = State::random(len as u64, Pat::Random, Pat::Random, &cmd.sources());
            assert_eq!(check(&cmd, &before), Ok(()), "{cmd:?}");
            rows.push(format!("{:<40} {}", cmd.text(), cmd.cycles(true)));
        }
    }
    // The ladders' last entries: the longest lengths whose operands fit apart.
    for cmd in [
        Cmd::TimesMem {
            dst: 0,
            lsrc: 138,
            src: 138,
            len: 69,
        },
        Cmd::TimesSca {
            dst: 0,
            src: 105,
            len: 103,
            slen: 2,
            sca: 0x8765_4321,
        },
        Cmd::TimesSca {
            dst: 0,
            src: 105,
            len: 103,
            slen: 2,
            sca: 0x8765_4322,
        },
    ] {
        let before = State::random(3, Pat::Random, Pat::Random, &cmd.sources());
        assert_eq!(check(&cmd, &before), Ok(()), "{cmd:?}");
        rows.push(format!("{:<40} {}", cmd.text(), cmd.cycles(true)));
    }
    eprintln!("{}", rows.join("\n"));
}

/// After MEMtimesMEM (which holds the Enabled pixels in the flow-control unit's active mask)
/// and MEMtimesSCA (which leaves its uniform IFs without their ENDIFs) every pixel is active
/// again and the flow-control unit reported nothing: a following command reaches them all.
#[test]
fn flow_control_state_is_clean_afterwards() {
    for text in [
        "MEMtimesMEM 0 40 60 8",
        "MEMtimesSCA_S1 0 40 8 8 -77",
        "MEMtimesSCA_S1 0 40 8 8 77",
    ] {
        let mut tb = bench();
        let before = State::random(11, Pat::Random, Pat::Random, &[]);
        before.write(&mut tb);
        let o = tb.run_text(&format!("{text}\nSETENABS\nSET 100 8\n"));
        assert_eq!(o.stop, StopReason::Done, "{text}");
        assert!(tb.sim.board.igc.fc.all_active, "{text}");
        assert!(
            tb.sim.diagnostics.is_empty(),
            "{text}: {:?}",
            tb.sim.diagnostics
        );
        let after = State::read(&tb);
        for b in 100..108 {
            assert_eq!(after.mem[b], [u64::MAX; PLANE_WORDS], "{text}: bit {b}");
        }
    }
}

/// Lengths out of range and segments past the 208 bits are rejected when the stream is
/// assembled, with a message that names the command and the argument.
#[test]
fn bad_arguments_are_rejected() {
    let tb = bench();
    const RANGE: &str = "out of range 1..=128";
    const PAST: &str = "runs past the 208 bits";
    for (text, needle) in [
        ("MEMtimesMEM 0 40 80 0", "(len) = 0 is out of range 1..=128"),
        (
            "MEMtimesMEM 0 1 2 129",
            "(len) = 129 is out of range 1..=128",
        ),
        ("MEMtimesMEM 0 40 200 16", "(src = 200, len = 16) runs past"),
        ("MEMtimesSCA_S1 0 40 16 0 5", "(slen) = 0 is out of range"),
        (
            "MEMtimesSCA_S1 0 40 16 200 5",
            "(slen) = 200 is out of range",
        ),
        (
            "MEMtimesSCA_S1 200 40 16 8 5",
            "(dst = 200, len = 16) runs past",
        ),
        ("MEMmaxZERO 0 0", RANGE),
        ("MEMmaxZERO 190 20", PAST),
        ("MEMsat 0 16 0", "(keep) = 0 is out of range"),
        ("MEMsat 0 129 4", "(len) = 129 is out of range"),
        ("MEMsat 100 120 4", PAST),
    ] {
        let e = pp5_sim::stream::text::parse(text, "<test>", &tb.image.table)
            .err()
            .unwrap_or_else(|| panic!("`{text}` was accepted"));
        let msg = e.to_string();
        let name = text.split(['_', ' ']).next().unwrap_or("");
        assert!(
            msg.contains(name) && msg.contains(needle),
            "`{text}`: {msg}"
        );
    }
}

/// The default image (what `pp5 run` and `pp5 demo` boot) does not have the commands.
#[test]
fn default_image_is_unchanged() {
    let img = microcode::default_image();
    assert!(img.table.get("MEMtimesMEM").is_none());
    assert!(img.table.get("MEMsat").is_none());
}

/// The ladders of shade.pp5uc are regular (entry r: bit r of the window, then its exit stub);
/// this is the pattern, so a hand edit that breaks one entry is caught here.
#[test]
fn ladders_follow_their_pattern() {
    let src = microcode::SHADE_SOURCE;
    let lines: Vec<&str> = src.lines().map(str::trim).collect();
    let ladders = [
        (
            "mtm_",
            69,
            "lsrc",
            ["r=a^b c=a&b", "r=a^b^c c=maj(a,b,c)"],
            "b=enable r=b&c wall=mem[len+al] jump mtm_next".to_string(),
        ),
        (
            "msn_",
            103,
            "src",
            ["r=a^b c=~a&b", "r=a^b^c c=maj(~a,b,c)"],
            "a=mem[len+al] b=mem[src+i] bext=sx(len) r=a^b^c c=a^b^maj(~a,b,c) w=mem[len+al] jump msn_next".to_string(),
        ),
        (
            "msp_",
            103,
            "src",
            ["r=a^b c=a&b", "r=a^b^c c=maj(a,b,c)"],
            "a=mem[len+al] b=mem[src+i] bext=sx(len) r=a^b^c c=a^b^maj(a,b,c) w=mem[len+al] jump msp_next".to_string(),
        ),
    ];
    for (prefix, n, mcand, luts, stub) in ladders {
        let at = lines
            .iter()
            .position(|l| l.starts_with(&format!("{prefix}0:")))
            .unwrap_or_else(|| panic!("no {prefix}0"));
        for r in 0..n {
            let lut = luts[usize::from(r > 0)];
            let seq = if r + 1 < n {
                format!(" loop {prefix}{}", r + 1)
            } else {
                String::new()
            };
            let entry = format!(
                "{prefix}{r}: a=mem[#{r}+al] b=mem[{mcand}+i] {lut} w=mem[#{r}+al] i++{seq}"
            );
            let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(norm(lines[at + 2 * r]), entry, "{prefix}{r}");
            assert_eq!(norm(lines[at + 2 * r + 1]), stub, "{prefix}{r}'s exit stub");
        }
        let after = lines[at + 2 * n];
        assert!(
            after.starts_with(&format!("{prefix}next:")) || after == "ENDIF",
            "{prefix}: more than {n} entries ({after})"
        );
    }
}

/// Every rung of the multiplies' ladders and every exit stub, which the properties (lengths up
/// to 40) and the renderer (its own lengths) leave unexecuted: MEMtimesMEM squaring at every
/// length whose operands fit apart (3 len bits: 1..=69), MEMtimesSCA at every length with
/// scalars of one and two bits of both signs (2 len + slen bits: 1..=103), on a board where
/// every pixel is Enabled and the operands are random (docs/microcode.md, "Debugging
/// microcode": the suite's coverage of shade.pp5uc).
#[test]
fn every_ladder_rung_runs() {
    for len in 1..=69 {
        let cmd = Cmd::TimesMem {
            dst: 0,
            lsrc: 2 * len,
            src: 2 * len,
            len,
        };
        let before = State::random(len as u64, Pat::Ones, Pat::Random, &cmd.sources());
        assert_eq!(check(&cmd, &before), Ok(()), "MEMtimesMEM len {len}");
    }
    for len in 1..=103 {
        for (slen, sca) in [(1, 0), (1, 1), (2, 1), (2, 2), (2, 3)] {
            if 2 * len + slen > 208 {
                continue;
            }
            let cmd = Cmd::TimesSca {
                dst: 0,
                src: len + slen,
                len,
                slen,
                sca,
            };
            let before = State::random(len as u64, Pat::Ones, Pat::Random, &cmd.sources());
            assert_eq!(
                check(&cmd, &before),
                Ok(()),
                "MEMtimesSCA len {len} slen {slen} sca {sca}"
            );
        }
    }
}
