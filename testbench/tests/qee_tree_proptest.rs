//! The bit-serial QEE tree (rtl/src/qee/tree.rs) against the plain per-pixel formula:
//! `tree[n]` of `Dx² + Exy + Fy² + Ax + By + C` from the FBITS-truncated coefficients, floored,
//! at every one of the 16,384 pixels' screen positions, over random coefficients, FBITS,
//! modes, lengths up to 73 - FBITS and re-mapped EMC origins (SUPCFG, SEPCFG), including
//! results that need more than 64 bits.
//!
//! The bits are read the way the pixels read them: START, the latency, then one bit per
//! clock (`Qee::tick`), in some runs with cycles in which the routine does not read the tree
//! (as TREEgeZERO waits for the sign bit), so the tree's catching up is exercised too.

use pp5_rtl::emc_array::plane::{self, ARRAY_DIM, NUM_PES};
use pp5_rtl::qee::arith::{self, max_tree_len, QeeMode, FBITS_MAX};
use pp5_rtl::qee::{Qee, QEE_LATENCY};
use proptest::prelude::*;

/// An IEEE single with the given sign, unbiased exponent and mantissa bits.
fn float_bits(neg: bool, exp: i32, mant: u32) -> u32 {
    ((neg as u32) << 31) | (((exp + 127).clamp(1, 254) as u32) << 23) | (mant & 0x7f_ffff)
}

/// A coefficient: zero sometimes, else an exponent around the range FBITS allows (a little
/// outside it too, where it reads as 0), large ones included.
fn coefficient(fbits: u32) -> impl Strategy<Value = u32> {
    let lo = -(fbits as i32) - 2;
    let hi = 63 - fbits as i32 + 1;
    prop_oneof![
        1 => Just(0u32),
        3 => (any::<bool>(), lo..=12i32, any::<u32>()).prop_map(|(s, e, m)| float_bits(s, e, m)),
        1 => (any::<bool>(), lo..=hi, any::<u32>()).prop_map(|(s, e, m)| float_bits(s, e, m)),
    ]
}

fn mode() -> impl Strategy<Value = QeeMode> {
    prop_oneof![
        1 => Just(QeeMode::None),
        1 => Just(QeeMode::Constant),
        2 => Just(QeeMode::Linear),
        2 => Just(QeeMode::Quadratic),
    ]
}

/// A configuration word: an origin near the array, or anywhere in the 16-bit range.
fn origin_word() -> impl Strategy<Value = u32> {
    prop_oneof![(-300i16..300, -300i16..300), (any::<i16>(), any::<i16>()),]
        .prop_map(|(x, y)| x as u16 as u32 | (y as u16 as u32) << 16)
}

#[derive(Debug, Clone)]
struct Case {
    mode: QeeMode,
    fbits: u32,
    raw: [u32; 6],
    /// SUPCFG of this value first (all EMCs), when present.
    all: Option<u32>,
    /// Then SEPCFG of these (chip, value).
    chips: Vec<(usize, u32)>,
    len: u32,
    /// Read the tree only in cycles whose bit index is set here (bit len-1 always).
    reads: u128,
}

fn case() -> impl Strategy<Value = Case> {
    (0..=FBITS_MAX).prop_flat_map(|fbits| {
        (
            mode(),
            proptest::array::uniform6(coefficient(fbits)),
            proptest::option::of(origin_word()),
            proptest::collection::vec((0usize..64, origin_word()), 0..4),
            1..=max_tree_len(fbits),
            prop_oneof![Just(u128::MAX), any::<u128>()],
        )
            .prop_map(move |(mode, raw, all, chips, len, reads)| Case {
                mode,
                fbits,
                raw,
                all,
                chips,
                len,
                reads,
            })
    })
}

/// `tree[len]` at every pixel, as the pixels receive it bit by bit.
fn delivered(q: &mut Qee, c: &Case) -> Vec<u128> {
    q.start(c.mode, &c.raw, c.fbits);
    // Bit 0 arrives QEE_LATENCY cycles after the START cycle.
    (1..QEE_LATENCY.max(1)).for_each(|_| q.tick());
    let mut fields = vec![0u128; NUM_PES];
    for k in 0..c.len {
        assert!(q.delivering());
        assert_eq!(q.bit, k);
        if c.reads >> k & 1 != 0 || k == c.len - 1 {
            let p = *q.tree_plane();
            for (i, f) in fields.iter_mut().enumerate() {
                let bit = plane::get(&p, i % ARRAY_DIM, i / ARRAY_DIM);
                *f |= (bit as u128) << k;
            }
        }
        q.tick();
    }
    fields
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_bit_serial_tree_delivers_tree_n_of_the_formula_at_every_pixel(c in case()) {
        let mut q = Qee::new();
        if let Some(v) = c.all {
            q.config.supcfg(!v, 32);
        }
        for &(chip, v) in &c.chips {
            q.config.sepcfg(chip, v, 32);
        }
        let got = delivered(&mut q, &c);
        let fixed: [i128; 6] = std::array::from_fn(|k| arith::coef_to_fixed(c.raw[k], c.fbits));
        prop_assert_eq!(q.coefs, fixed);
        // Bits the routine did not read are not checked (the pixels never saw them).
        let mask = (0..c.len)
            .filter(|&k| c.reads >> k & 1 != 0 || k == c.len - 1)
            .fold(0u128, |m, k| m | 1 << k);
        for (i, g) in got.iter().enumerate() {
            let (x, y) = (i % ARRAY_DIM, i / ARRAY_DIM);
            let (sx, sy) = q.config.screen_xy(x, y);
            let v = arith::tree_value(c.mode, &fixed, sx, sy, c.fbits);
            let want = arith::tree_bits(v, c.len) & mask;
            prop_assert_eq!(g & mask, want, "pixel ({}, {}) at screen ({}, {}): Q = {}", x, y, sx, sy, v);
        }
    }
}

/// The cases above do reach results wider than 64 bits (a check that the generator is not
/// too tame): the largest exponents on the farthest origins.
#[test]
fn wide_results_are_exercised() {
    let fbits = 0;
    let big = float_bits(true, 63, 0x7f_ffff);
    let c = Case {
        mode: QeeMode::Quadratic,
        fbits,
        raw: [big; 6],
        all: Some(0x8000_8000),
        chips: vec![],
        len: max_tree_len(fbits),
        reads: u128::MAX,
    };
    let mut q = Qee::new();
    q.config.supcfg(!0x8000_8000, 32);
    let got = delivered(&mut q, &c);
    let fixed: [i128; 6] = std::array::from_fn(|k| arith::coef_to_fixed(c.raw[k], fbits));
    let (sx, sy) = q.config.screen_xy(5, 6);
    let v = arith::tree_value(c.mode, &fixed, sx, sy, fbits);
    assert!(v.unsigned_abs() > 1 << 90, "{v}");
    assert_eq!(got[6 * ARRAY_DIM + 5], arith::tree_bits(v, c.len));
}
