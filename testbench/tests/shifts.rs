//! SHIFTL and SHIFTR (seed notes 1, 4, 5) against a per-pixel reference at every pixel, with
//! random memory, Enable, operands (dst equal to src or disjoint) and shift counts.

use pp5_rtl::emc_array::plane::{self, ARRAY_DIM, PLANE_WORDS};
use pp5_rtl::emc_array::MEM_BITS;
use pp5_sim::engine::StopReason;
use pp5_testbench::Testbench;
use proptest::prelude::*;
use std::sync::OnceLock;

fn bench() -> Testbench {
    static TB: OnceLock<Testbench> = OnceLock::new();
    TB.get_or_init(Testbench::standard).clone()
}

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Every pixel's 208 memory bits (as bools) and Enable.
fn state(tb: &Testbench) -> Vec<(Vec<bool>, bool)> {
    let a = &tb.sim.board.array;
    let mut out = Vec::with_capacity(ARRAY_DIM * ARRAY_DIM);
    for y in 0..ARRAY_DIM {
        for x in 0..ARRAY_DIM {
            let m = (0..MEM_BITS).map(|b| plane::get(&a.mem[b], x, y)).collect();
            out.push((m, plane::get(&a.enable, x, y)));
        }
    }
    out
}

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
    }
    a.refresh_aeo();
}

/// Run `cmd` and compare every pixel with `reference(mem_before) -> new dst bits`, written
/// where Enable is set.
fn check(
    seed: u64,
    cmd: &str,
    dst: usize,
    dlen: usize,
    cycles: u64,
    reference: impl Fn(&[bool]) -> Vec<bool>,
) -> Result<(), TestCaseError> {
    let mut tb = bench();
    randomise(&mut tb, seed);
    let before = state(&tb);
    let out = tb.run_text(cmd);
    prop_assert_eq!(&out.stop, &StopReason::Done);
    prop_assert!(tb.sim.diagnostics.is_empty(), "{:?}", tb.sim.diagnostics);
    prop_assert_eq!(out.command_cycles.last().map(|c| c.1), Some(cycles));
    let after = state(&tb);
    for (p, ((m0, e0), (m1, e1))) in before.iter().zip(&after).enumerate() {
        let mut want = m0.clone();
        if *e0 {
            let bits = reference(m0);
            want[dst..dst + dlen].copy_from_slice(&bits);
        }
        prop_assert_eq!(e1, e0, "Enable at pixel {}", p);
        prop_assert!(m1 == &want, "{} memory differs at pixel {}", cmd, p);
    }
    Ok(())
}

/// `src` equal to `dst` or disjoint from it, both segments inside the memory.
fn operands(dlen: usize, slen: usize, same: bool, seed: u64) -> (usize, usize) {
    let dst = (seed as usize) % (MEM_BITS - dlen + 1);
    if same && dlen == slen {
        return (dst, dst);
    }
    let src = ((seed >> 20) as usize) % (MEM_BITS - slen + 1);
    if src + slen <= dst || dst + dlen <= src {
        (dst, src)
    } else if dst + dlen + slen <= MEM_BITS {
        (dst, dst + dlen)
    } else if dst >= slen {
        (dst, dst - slen)
    } else {
        // slen + dlen ≤ 208 here (slen ≤ 96, dlen ≤ 104): src at 0, dst at the top.
        (MEM_BITS - dlen, 0)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Note 4: mem[dst:dlen] = mem[src:dlen] << n, 0 ≤ n < dlen.
    #[test]
    fn shiftl(dlen in 1usize..=96, nfrac in 0.0f64..1.0, same in any::<bool>(), seed in any::<u64>()) {
        let n = ((dlen as f64 * nfrac) as usize).min(dlen - 1);
        let (dst, src) = operands(dlen, dlen, same, seed);
        let cmd = format!("SHIFTL {dst} {src} {dlen} {n}\n");
        check(seed, &cmd, dst, dlen, 1 + dlen as u64, |m| {
            (0..dlen).map(|i| i >= n && m[src + i - n]).collect()
        })?;
    }

    /// Notes 1, 5: mem[dst:dlen] = mem[src:slen] >> n (unsigned), dlen ≥ slen − n, 0 ≤ n < slen.
    #[test]
    fn shiftr(slen in 1usize..=96, nfrac in 0.0f64..1.0, extra in 0usize..16, same in any::<bool>(), seed in any::<u64>()) {
        let n = ((slen as f64 * nfrac) as usize).min(slen - 1);
        let dlen = (slen - n + extra).min(MEM_BITS / 2);
        let (dst, src) = operands(dlen, slen, same, seed);
        let cmd = format!("SHIFTR {dst} {src} {dlen} {slen} {n}\n");
        check(seed, &cmd, dst, dlen, 1 + dlen as u64, |m| {
            (0..dlen).map(|i| i + n < slen && m[src + i + n]).collect()
        })?;
    }
}
