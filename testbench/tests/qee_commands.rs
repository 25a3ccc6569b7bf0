//! Every QEE command of `sim/microcode/qee.pp5uc` against a per-pixel reference built on the
//! QEE arithmetic (`Q(x,y)` from the truncated coefficients, floored), with random
//! coefficients, FBITS, operands, memory, Enable and Carry, through the whole machine.

use pp5_rtl::emc_array::plane::{self, ARRAY_DIM, PLANE_WORDS};
use pp5_rtl::emc_array::MEM_BITS;
use pp5_rtl::qee::arith::{coef_to_fixed, max_tree_len, tree_value, QeeMode};
use pp5_sim::engine::StopReason;
use pp5_testbench::Testbench;
use proptest::prelude::*;
use std::sync::OnceLock;

fn bench() -> Testbench {
    static TB: OnceLock<Testbench> = OnceLock::new();
    TB.get_or_init(Testbench::standard).clone()
}

/// Every command of `sim/microcode/qee.pp5uc` has a test in this file (SUPCFG and SEPCFG in
/// qee.rs).
pub const COVERED: &[&str] = &[
    "TREEIntoMEM",
    "TREEBARIntoMEM",
    "MEMpluseqTREE",
    "TREEminusMEM",
    "MEMandTREE",
    "MEMorTREE",
    "MEMxorTREE",
    "TREEeqZERO",
    "TREEgeZERO",
    "TREEltZERO",
    "MESH",
    "GRID",
    "MEMeqTREE",
    "MEMneTREE",
    "FTECT",
    "FEDGE",
    "FEDGEBAR",
    "SEEDGE",
    "SEEDGEBAR",
    "EDGE2",
    "MEMEDGE",
    "SUPCFG",
    "SEPCFG",
    "MEMleTREE",
    "MEMltTREE",
    "MEMgeTREE",
    "MEMgtTREE",
    "FCMEMA",
    "SCMEMA",
    "STRIPEDGE",
    "TREEcImpIntoMEM",
    "SPLAT",
];

#[test]
fn every_qee_command_is_covered() {
    let src = include_str!("../../sim/microcode/qee.pp5uc");
    for line in src.lines() {
        if let Some(decl) = line.strip_prefix(".command ") {
            let name = decl.split('(').next().unwrap_or("").trim();
            assert!(COVERED.contains(&name), "{name} has no test");
        }
    }
}

#[derive(Clone, Debug)]
struct Case {
    /// 1 constant, 2 linear, 3 quadratic.
    mode: u32,
    coefs: [f32; 6], // A B C D E F
    fbits: u32,
    dst: usize,
    src: usize,
    len: usize,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        1u32..=3,
        (-40.0f32..40.0, -40.0f32..40.0, -3000.0f32..3000.0),
        (-0.5f32..0.5, -0.5f32..0.5, -0.5f32..0.5),
        0u32..=20,
        1usize..=40,
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(|(mode, (a, b, c), (d, e, f), fbits, len, seed, same)| {
            let len = len.min(max_tree_len(fbits) as usize);
            let dst = (seed as usize % (MEM_BITS - len)).min(MEM_BITS - len);
            // dst and src are the same segment or disjoint (the seed forbids partial overlap).
            let mut src = ((seed >> 16) as usize % (MEM_BITS - len)).min(MEM_BITS - len);
            if same {
                src = dst;
            } else if src < dst + len && dst < src + len {
                src = if dst + 2 * len <= MEM_BITS {
                    dst + len
                } else {
                    dst.saturating_sub(len)
                };
            }
            Case {
                mode,
                coefs: [a, b, c, d, e, f],
                fbits,
                dst,
                src,
                len,
                seed,
            }
        })
}

/// The macro form and coefficient words for the case (all coefficients sent).
fn form(c: &Case) -> (String, String) {
    let [a, b, cc, d, e, f] = c.coefs;
    match c.mode {
        1 => ("C1".into(), format!("{cc:?}")),
        2 => ("L3".into(), format!("{a:?} {b:?} {cc:?}")),
        _ => ("Q6".into(), format!("{a:?} {b:?} {cc:?} {d:?} {e:?} {f:?}")),
    }
}

/// Q at every pixel (row-major), as the reference computes it.
fn reference_q(c: &Case) -> Vec<i128> {
    let mode = QeeMode::from_bits(c.mode);
    let k = c.coefs.map(|v| coef_to_fixed(v.to_bits(), c.fbits));
    let k = [k[0], k[1], k[2], k[3], k[4], k[5]];
    let mut out = Vec::with_capacity(ARRAY_DIM * ARRAY_DIM);
    for y in 0..ARRAY_DIM {
        for x in 0..ARRAY_DIM {
            out.push(tree_value(mode, &k, x as i64, y as i64, c.fbits));
        }
    }
    out
}

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Random memory, Enable and Carry.
fn randomise(tb: &mut Testbench, seed: u64) {
    let mut s = seed | 1;
    let a = &mut tb.sim.board.array;
    for p in a.mem.iter_mut() {
        for w in p.iter_mut() {
            *w = xorshift(&mut s);
        }
    }
    for i in 0..PLANE_WORDS {
        a.enable[i] = xorshift(&mut s) | xorshift(&mut s);
        a.carry[i] = xorshift(&mut s);
    }
    a.refresh_aeo();
}

struct Snapshot {
    mem: Vec<[u64; 4]>,
    enable: Vec<bool>,
    carry: Vec<bool>,
}

fn snapshot(tb: &Testbench) -> Snapshot {
    let a = &tb.sim.board.array;
    let mut mem = Vec::new();
    let mut enable = Vec::new();
    let mut carry = Vec::new();
    for y in 0..ARRAY_DIM {
        for x in 0..ARRAY_DIM {
            let mut m = [0u64; 4];
            for (k, word) in m.iter_mut().enumerate() {
                let lo = k * 64;
                let n = 64.min(MEM_BITS.saturating_sub(lo));
                if n > 0 {
                    *word = a.peek(x, y, lo, n);
                }
            }
            mem.push(m);
            enable.push(plane::get(&a.enable, x, y));
            carry.push(plane::get(&a.carry, x, y));
        }
    }
    Snapshot { mem, enable, carry }
}

fn field(m: &[u64; 4], lsb: usize, len: usize) -> u128 {
    (0..len).fold(0u128, |v, i| {
        let b = lsb + i;
        v | ((((m[b / 64] >> (b % 64)) & 1) as u128) << i)
    })
}

fn set_field(m: &mut [u64; 4], lsb: usize, len: usize, v: u128) {
    for i in 0..len {
        let b = lsb + i;
        let bit = 1u64 << (b % 64);
        if (v >> i) & 1 == 1 {
            m[b / 64] |= bit;
        } else {
            m[b / 64] &= !bit;
        }
    }
}

fn mask(len: usize) -> u128 {
    if len >= 128 {
        u128::MAX
    } else {
        (1u128 << len) - 1
    }
}

/// Run `cmd` (a command line without the coefficients) for the case and check every pixel
/// with `reference(q, mem, enable, carry)` that updates the pixel's expected state.
fn check(
    c: &Case,
    name: &str,
    args: &str,
    cycles: u64,
    reference: impl Fn(i128, &mut [u64; 4], &mut bool, &mut bool),
) -> Result<(), TestCaseError> {
    let mut tb = bench();
    tb.run_text(&format!("FBITS {}\n", c.fbits));
    randomise(&mut tb, c.seed);
    let before = snapshot(&tb);
    let (f, coefs) = form(c);
    let out = tb.run_text(&format!("{name}_{f} {args} {coefs}\n"));
    prop_assert_eq!(&out.stop, &StopReason::Done);
    let errors: Vec<_> = tb
        .sim
        .diagnostics
        .iter()
        .filter(|d| d.level != "note")
        .collect();
    prop_assert!(errors.is_empty(), "{:?}", errors);
    prop_assert_eq!(out.command_cycles.last().map(|x| x.1), Some(cycles));
    let after = snapshot(&tb);
    let q = reference_q(c);
    for (p, &qp) in q.iter().enumerate() {
        let mut m = before.mem[p];
        let (mut e, mut cy) = (before.enable[p], before.carry[p]);
        reference(qp, &mut m, &mut e, &mut cy);
        let (x, y) = (p % ARRAY_DIM, p / ARRAY_DIM);
        prop_assert_eq!(
            after.mem[p],
            m,
            "{} memory at ({},{}) q = {}",
            name,
            x,
            y,
            qp
        );
        prop_assert_eq!(
            after.enable[p],
            e,
            "{} Enable at ({},{}) q = {}",
            name,
            x,
            y,
            qp
        );
        prop_assert_eq!(
            after.carry[p],
            cy,
            "{} Carry at ({},{}) q = {}",
            name,
            x,
            y,
            qp
        );
    }
    Ok(())
}

fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: 12,
        ..ProptestConfig::default()
    }
}

/// A memory-writing command: `op(q, src) -> dst value`, conditioned by Enable. Carry is not
/// defined after arithmetic commands; the reference takes the routine's final carry `fc`.
fn writes(
    c: &Case,
    name: &str,
    with_src: bool,
    op: fn(u128, u128) -> u128,
) -> Result<(), TestCaseError> {
    let (dst, src, len) = (c.dst, c.src, c.len);
    let args = if with_src {
        format!("{dst} {src} {len}")
    } else {
        format!("{dst} {len}")
    };
    let keep_carry = !matches!(name, "MEMpluseqTREE" | "TREEminusMEM");
    check(c, name, &args, 1 + len as u64, |q, m, e, cy| {
        let s = field(m, src, len);
        let t = (q as u128) & mask(len);
        let r = op(t, s) & mask(len);
        if keep_carry {
        } else if name == "MEMpluseqTREE" {
            *cy = (s + t) >> len & 1 == 1;
        } else {
            *cy = t < s; // borrow of tree - mem over len bits
        }
        if *e {
            set_field(m, dst, len, r);
        }
    })
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn tree_into_mem(c in case()) { writes(&c, "TREEIntoMEM", false, |t, _| t)?; }
    #[test]
    fn treebar_into_mem(c in case()) { writes(&c, "TREEBARIntoMEM", false, |t, _| !t)?; }
    #[test]
    fn mem_pluseq_tree(c in case()) { writes(&c, "MEMpluseqTREE", true, |t, s| s.wrapping_add(t))?; }
    #[test]
    fn tree_minus_mem(c in case()) { writes(&c, "TREEminusMEM", true, |t, s| t.wrapping_sub(s))?; }
    #[test]
    fn mem_and_tree(c in case()) { writes(&c, "MEMandTREE", true, |t, s| s & t)?; }
    #[test]
    fn mem_or_tree(c in case()) { writes(&c, "MEMorTREE", true, |t, s| s | t)?; }
    #[test]
    fn mem_xor_tree(c in case()) { writes(&c, "MEMxorTREE", true, |t, s| s ^ t)?; }

    #[test]
    fn tree_eq_ge_lt_zero(c in case()) {
        let w = max_tree_len(c.fbits) as u64;
        check(&c, "TREEeqZERO", "", 1 + w, |q, _, e, _| *e &= q == 0)?;
        check(&c, "TREEgeZERO", "", 2 + w, |q, _, e, _| *e &= q >= 0)?;
        check(&c, "TREEltZERO", "", 2 + w, |q, _, e, _| *e &= q < 0)?;
    }

    #[test]
    fn mesh_and_grid(c in case()) {
        let len = c.len;
        check(&c, "MESH", &len.to_string(), 1 + len as u64, |q, _, e, _| {
            *e &= (q as u128) & mask(len) == 0
        })?;
        check(&c, "GRID", &len.to_string(), 1 + len as u64, |q, _, e, _| {
            *e &= (q as u128) & mask(len) == mask(len)
        })?;
    }

    #[test]
    fn mem_eq_ne_tree(c in case()) {
        let (src, len) = (c.src, c.len);
        check(&c, "MEMeqTREE", &format!("{src} {len}"), 1 + len as u64, |q, m, e, _| {
            *e &= field(m, src, len) == (q as u128) & mask(len)
        })?;
        check(&c, "MEMneTREE", &format!("{src} {len}"), 2 + len as u64, |q, m, e, cy| {
            let ne = field(m, src, len) != (q as u128) & mask(len);
            *cy = ne;
            *e &= ne;
        })?;
    }

    #[test]
    fn edges(c in case()) {
        let w = max_tree_len(c.fbits) as u64;
        let src = c.src;
        check(&c, "FTECT", "", 2, |q, _, e, _| *e = q & 1 == 1)?;
        check(&c, "FEDGE", "", 2 + w, |q, _, e, _| *e = q >= 0)?;
        check(&c, "FEDGEBAR", "", 2 + w, |q, _, e, _| *e = q < 0)?;
        check(&c, "SEEDGE", &src.to_string(), 2 + w, |q, m, e, _| {
            *e = field(m, src, 1) == 1 && q >= 0
        })?;
        check(&c, "SEEDGEBAR", &src.to_string(), 2 + w, |q, m, e, _| {
            *e = field(m, src, 1) == 1 && q < 0
        })?;
        check(&c, "EDGE2", "", 2 + w, |q, _, e, cy| {
            *e &= q >= 0;
            *cy &= q < 0;
        })?;
        check(&c, "MEMEDGE", &c.dst.to_string(), 2 + w, |q, m, _, _| {
            set_field(m, c.dst, 1, (q >= 0) as u128)
        })?;
    }
}

proptest! {
    #![proptest_config(cfg())]

    /// Note 3: the segment is unsigned, zero-extended to the full tree length.
    #[test]
    fn mem_compares_with_the_full_tree(c in case()) {
        let w = max_tree_len(c.fbits) as usize;
        let (src, len) = (c.src, c.len);
        let args = format!("{src} {len}");
        let cyc = 2 + w as u64;
        let qw = move |q: i128| (q as u128) & mask(w);
        check(&c, "MEMgeTREE", &args, cyc, |q, m, e, cy| {
            let v = field(m, src, len);
            *cy = v < qw(q);
            *e &= (v as i128) >= q;
        })?;
        check(&c, "MEMltTREE", &args, cyc, |q, m, e, cy| {
            let v = field(m, src, len);
            *cy = v < qw(q);
            *e &= (v as i128) < q;
        })?;
        check(&c, "MEMgtTREE", &args, cyc, |q, m, e, cy| {
            let v = field(m, src, len);
            *cy = qw(q) < v;
            *e &= (v as i128) > q;
        })?;
        check(&c, "MEMleTREE", &args, cyc, |q, m, e, cy| {
            let v = field(m, src, len);
            *cy = qw(q) < v;
            *e &= (v as i128) <= q;
        })?;
        check(&c, "FCMEMA", &args, cyc, |q, m, e, cy| {
            let v = field(m, src, len);
            *cy = qw(q) < v;
            *e = (v as i128) <= q;
        })?;
        let aux = c.dst;
        check(&c, "SCMEMA", &format!("{src} {len} {aux}"), cyc, |q, m, e, cy| {
            let v = field(m, src, len);
            *cy = qw(q) < v;
            *e = field(m, aux, 1) == 1 && (v as i128) <= q;
        })?;
    }

    #[test]
    fn stripedge(c in case()) {
        let w = max_tree_len(c.fbits) as u64;
        let (src, dst) = (c.src, c.dst);
        check(&c, "STRIPEDGE", &format!("{src} {dst}"), 3 + w, |q, m, e, _| {
            let s = field(m, src, 1) == 1;
            *e &= q >= 0;
            set_field(m, dst, 1, (s && q < 0) as u128);
        })?;
    }

    /// Note 17: clamped to all ones above the largest `len`-bit value, to 0 when negative.
    #[test]
    fn tree_cimp_into_mem(c in case()) {
        let w = max_tree_len(c.fbits) as u64;
        let (dst, len) = (c.dst, c.len);
        let cyc = 3 + w + 2 * len as u64;
        check(&c, "TREEcImpIntoMEM", &format!("{dst} {len}"), cyc, |q, m, e, cy| {
            let top = mask(len) as i128;
            *cy = q < 0 || q > top;
            if *e {
                set_field(m, dst, len, q.clamp(0, top) as u128);
            }
        })?;
    }

    /// Note 18: tmp is scratch; dst gets tree[len] only where the result is non-negative.
    #[test]
    fn splat(c in case()) {
        let w = max_tree_len(c.fbits) as u64;
        let (dst, len, tmp) = (c.dst, c.len, c.src);
        prop_assume!(tmp + len <= dst || dst + len <= tmp);
        let cyc = 3 + w + 2 * len as u64;
        check(&c, "SPLAT", &format!("{dst} {len} {tmp}"), cyc, |q, m, e, _| {
            set_field(m, tmp, len, (q as u128) & mask(len));
            *e = q >= 0;
            if q >= 0 {
                set_field(m, dst, len, (q as u128) & mask(len));
            }
        })?;
    }
}
