//! Unit tests of the clocked evaluator: the bits it delivers against the plain formula.
use super::*;
use crate::emc_array::plane::{self, NUM_PES};

#[test]
fn the_tree_delivers_bits_lsb_first_after_the_latency() {
    let mut q = Qee::new();
    let raw = [1.0f32, 2.0, -3.0, 0.0, 0.0, 0.0].map(f32::to_bits);
    q.start(QeeMode::Linear, &raw, 4);
    let mut waited = 1;
    while waited < QEE_LATENCY {
        assert!(!q.delivering());
        q.tick();
        waited += 1;
    }
    // Q(x, y) = x + 2y - 3 at every pixel, in two's complement, bit by bit.
    for k in 0..12u32 {
        assert!(q.delivering());
        let p = *q.tree_plane();
        for (x, y) in [(0usize, 0usize), (5, 9), (127, 127), (64, 1)] {
            let v = x as i128 + 2 * y as i128 - 3;
            assert_eq!(
                plane::get(&p, x, y),
                (v >> k) & 1 != 0,
                "bit {k} at ({x},{y})"
            );
        }
        q.tick();
    }
}

#[test]
fn planes_match_direct_evaluation_for_a_quadratic_and_a_remapped_chip() {
    let mut q = Qee::new();
    q.config.sepcfg(9, 300 | (5000 << 16), 32);
    let raw = [3.25f32, -1.5, 77.0, 0.75, -0.125, 0.5].map(f32::to_bits);
    q.start(QeeMode::Quadratic, &raw, 6);
    let coefs = q.coefs;
    for (x, y) in [
        (0usize, 0usize),
        (7, 31),
        (72, 3),
        (79, 31),
        (127, 127),
        (5, 100),
    ] {
        let (sx, sy) = q.config.screen_xy(x, y);
        let direct = arith::tree_value(QeeMode::Quadratic, &coefs, sx, sy, 6);
        assert_eq!(q.value_at(x, y), direct, "({x},{y})");
        for k in 0..70u32 {
            q.bit = k;
            q.delay = 0;
            let p = *q.tree_plane();
            assert_eq!(
                plane::get(&p, x, y),
                arith::tree_bit(direct, k),
                "({x},{y}) bit {k}"
            );
        }
    }
}

#[test]
fn the_c_chain_is_the_root_pixels_value_and_the_chains_reproduce_every_pixel() {
    let mut q = Qee::new();
    q.config
        .sepcfg(9, (-300i16 as u16 as u32) | (5000 << 16), 32);
    let raw = [3.25f32, -1.5, 77.0, 0.75, -0.125, 0.5].map(f32::to_bits);
    q.start(QeeMode::Quadratic, &raw, 6);
    for k in 0..NUM_EMCS {
        let [a, b, c, d, e, f] = q.local_coefs(k);
        let (rx, ry) = root_pixel(k);
        assert_eq!(emc_of(rx, ry), k);
        assert_eq!(q.value_at(rx, ry), c >> 6, "EMC {k}");
        // Every pixel of the EMC from the local coefficients alone.
        for (lx, ly) in [(0i128, 0i128), (7, 0), (0, 31), (5, 17)] {
            let v = (d * lx * lx + e * lx * ly + f * ly * ly + a * lx + b * ly + c) >> 6;
            let (x, y) = (rx + lx as usize, ry + ly as usize);
            let (sx, sy) = q.config.screen_xy(x, y);
            let global = arith::tree_value(QeeMode::Quadratic, &q.coefs, sx, sy, 6);
            assert_eq!(v, global, "EMC {k} local ({lx},{ly}): the local rewrite");
            assert_eq!(q.value_at(x, y), v, "EMC {k} local ({lx},{ly})");
        }
    }
}

#[test]
fn traced_tree_bit_and_c_chain_lsb_follow_the_root_pixel_bit_by_bit() {
    use crate::trace::Recorder;
    let mut q = Qee::new();
    q.config.sepcfg(5, 1000 | (2000 << 16), 32);
    let raw = [1.5f32, -2.0, -3.25, 0.0, 0.0, 0.0].map(f32::to_bits);
    q.start(QeeMode::Linear, &raw, 4);
    let emcs = (1u64 << 5) | (1 << 0) | (1 << 63);
    for _ in 0..80 {
        let mut r = Recorder::default();
        q.trace_emcs(&mut r, emcs);
        for k in [0usize, 5, 63] {
            let (x, y) = root_pixel(k);
            let p = |n: &str| format!("emc[{k}].qee.{n}");
            let want = q.delivering() && arith::tree_bit(q.value_at(x, y), q.bit);
            assert_eq!(r.value(&p("tree_bit")), Some(want as u64), "EMC {k}");
            assert_eq!(r.value(&p("chain_C")).map(|v| v & 1), Some(want as u64));
            assert_eq!(r.value(&p("tree_bit_index")), Some(q.bit.min(255) as u64));
            assert_eq!(
                plane::get(q.tree_plane(), x, y),
                want,
                "what the array reads"
            );
        }
        assert_eq!(r.value("emc[5].qee.origin_x"), Some(1000));
        assert_eq!(r.value("emc[5].qee.origin_y"), Some(2000));
        assert_eq!(
            r.value("emc[63].qee.config"),
            Some(identity_config(63) as u64)
        );
        assert!(r.value("emc[1].qee.config").is_none(), "not selected");
        q.tick();
    }
}

/// Every pixel's every bit from the tree against the plain formula at its screen position.
fn check_every_pixel(q: &mut Qee, bits: u32) {
    let fbits = q.fbits;
    let values: Vec<i128> = (0..NUM_PES)
        .map(|i| {
            let (sx, sy) = q.config.screen_xy(i % ARRAY_DIM, i / ARRAY_DIM);
            arith::tree_value(q.mode, &q.coefs, sx, sy, fbits)
        })
        .collect();
    for k in 0..bits {
        q.bit = k;
        q.delay = 0;
        let p = *q.tree_plane();
        for (i, v) in values.iter().enumerate() {
            let (x, y) = (i % ARRAY_DIM, i / ARRAY_DIM);
            assert_eq!(
                plane::get(&p, x, y),
                arith::tree_bit(*v, k),
                "({x},{y}) bit {k}: value {v}"
            );
        }
    }
}

#[test]
fn every_pixel_every_bit_matches_the_formula_in_every_mode() {
    let raw = [3.25f32, -1.5, 77.0, 0.75, -0.125, 0.5].map(f32::to_bits);
    for mode in [
        QeeMode::None,
        QeeMode::Constant,
        QeeMode::Linear,
        QeeMode::Quadratic,
    ] {
        let mut q = Qee::new();
        q.config.sepcfg(9, 300 | (5000 << 16), 32);
        q.config
            .sepcfg(40, (-3000i16 as u16 as u32) | (32000 << 16), 32);
        q.start(mode, &raw, 6);
        check_every_pixel(&mut q, 100);
    }
}

#[test]
fn results_wider_than_64_bits_come_out_of_the_tree_exactly() {
    // Coefficients near 2^63 at FBITS 0 on far origins: results need about 100 bits.
    let big = 2f32.powi(62);
    let raw = [big, -big, big, -big, big, big].map(f32::to_bits);
    let mut q = Qee::new();
    q.config
        .supcfg(!((-32768i16 as u16 as u32) | (32767 << 16)), 32);
    q.config.sepcfg(3, 32767 | (32767 << 16), 32);
    q.start(QeeMode::Quadratic, &raw, 0);
    assert!(q.value_at(0, 0).unsigned_abs() > 1u128 << 90);
    check_every_pixel(&mut q, 130);
}

#[test]
fn the_tree_stops_stepping_at_its_fixed_point_and_reruns_for_an_earlier_bit() {
    let mut q = Qee::new();
    let raw = [1.0f32, 2.0, -3.0, 0.0, 0.0, 0.0].map(f32::to_bits);
    q.start(QeeMode::Linear, &raw, 4);
    q.bit = 1_000_000;
    let sign = *q.tree_plane();
    let (next, settled) = q.tree_position();
    assert!(next < 40, "stepped {next} times for a ~14-bit result");
    assert!(settled.is_some());
    // x + 2y - 3 is negative only at (0,0), (1,0), (2,0) and (0,1).
    for (x, y) in [(0, 0), (1, 0), (2, 0), (0, 1)] {
        assert!(plane::get(&sign, x, y));
    }
    assert_eq!(sign.iter().map(|w| w.count_ones()).sum::<u32>(), 4);
    // An earlier bit: the evaluation runs again from its START.
    q.bit = 0;
    let p = *q.tree_plane();
    assert!(plane::get(&p, 0, 0), "-3 is odd");
    assert!(!plane::get(&p, 1, 1), "0");
    assert_eq!(q.tree_position(), (5, None));
}

#[test]
fn linear_starts_rebase_c_exactly_with_small_and_large_coefficients() {
    // Small coefficients take the START's 64-bit path, large ones (A or B at or above 2^46,
    // C at or above 2^61 in fixed point) the 128-bit one; both give C_k = A·ox + B·oy + C.
    let mut q = Qee::new();
    q.config.sepcfg(5, 32767 | (32767 << 16), 32);
    q.config
        .sepcfg(6, (-32768i16 as u16 as u32) | (32767 << 16), 32);
    q.config
        .sepcfg(7, 12345 | ((-32768i16 as u16 as u32) << 16), 32);
    for (a, b, c, fbits) in [
        (1.5f32, -2.25f32, 1000.0f32, 10),
        (2f32.powi(35), -1.0, 3.0, 10),
        (-1.0, 2f32.powi(36) * 1.5, -7.0, 10),
        (3.0, 5.0, 2f32.powi(51), 10),
        (2f32.powi(45) * 1.75, -(2f32.powi(45)), 2f32.powi(50), 0),
    ] {
        let raw = [a, b, c, 0.0, 0.0, 0.0].map(f32::to_bits);
        q.start(QeeMode::Linear, &raw, fbits);
        let [fa, fb, fc, ..] = q.coefs;
        for k in 0..NUM_EMCS {
            let (ox, oy) = q.config.origin(k);
            let want = fa * ox as i128 + fb * oy as i128 + fc;
            assert_eq!(
                q.local_coefs(k),
                [fa, fb, want, 0, 0, 0],
                "EMC {k}, {a} {b} {c}"
            );
        }
        check_every_pixel(&mut q, 80);
    }
}
