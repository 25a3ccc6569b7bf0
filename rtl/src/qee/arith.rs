//! The arithmetic of the quadratic expression evaluator (seed 003 §III.4.2.2, §III.4.2.5.1).
//!
//! Coefficients arrive as IEEE single floats and are converted to fixed point with FBITS
//! fractional bits, truncated toward zero; exponents outside `-FBITS ..= 63-FBITS` (and zero,
//! denormals, infinities, NaNs) read as 0. The tree result
//! `Q(x,y) = Dx² + Exy + Fy² + Ax + By + C` is computed exactly from the truncated coefficients
//! and then truncated *downward* to an integer. `tree[n]` sign-extends to `n` bits.
//!
//! These are pure functions; the clocked QEE block (shift chains, per-EMC configuration
//! register, the bit-serial tree output) is built on them.

/// Largest FBITS (seed §III.4.2.5.1-1: "variable between 0 and 30").
pub const FBITS_MAX: u32 = 30;

/// Bits of a coefficient's fixed-point magnitude the hardware carries: valid exponents reach
/// `63 - FBITS` (seed §III.4.2.2), so the integer part of a coefficient is below 2^64.
pub const COEF_INT_BITS: u32 = 64;

/// Longest `len` of a QEE operand for a given FBITS (seed: "73-FBITS (always at least 43)").
pub const fn max_tree_len(fbits: u32) -> u32 {
    73 - fbits
}

/// The QEE mode of a command (opcode bits 19:18; the waveform shows the variant's name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, crate::trace::WaveEnum)]
pub enum QeeMode {
    /// QEE not used.
    None,
    /// `Q = C`.
    Constant,
    /// `Q = Ax + By + C`.
    Linear,
    /// `Q = Dx² + Exy + Fy² + Ax + By + C`.
    Quadratic,
}

impl QeeMode {
    /// Decode opcode bits 19:18.
    pub fn from_bits(b: u32) -> QeeMode {
        match b & 3 {
            0 => QeeMode::None,
            1 => QeeMode::Constant,
            2 => QeeMode::Linear,
            _ => QeeMode::Quadratic,
        }
    }
}

/// Convert an IEEE single (raw bits) to fixed point with `fbits` fractional bits, truncated
/// toward zero; out-of-range exponents, zero, denormals, infinities and NaNs give 0.
pub fn coef_to_fixed(bits: u32, fbits: u32) -> i128 {
    let fbits = fbits.min(FBITS_MAX) as i32;
    let exp_field = ((bits >> 23) & 0xff) as i32;
    if exp_field == 0 || exp_field == 0xff {
        return 0;
    }
    let e = exp_field - 127;
    if e < -fbits || e > 63 - fbits {
        return 0;
    }
    let mant = ((bits & 0x7f_ffff) | 0x80_0000) as i128; // 1.m × 2^23
                                                         // value × 2^fbits = mant × 2^(e + fbits - 23); truncation toward zero = on the magnitude.
    let shift = e + fbits - 23;
    let mag = if shift >= 0 {
        mant << shift
    } else {
        mant >> (-shift)
    };
    if bits >> 31 == 1 {
        -mag
    } else {
        mag
    }
}

/// Fixed-point coefficients A, B, C, D, E, F (in that order) of one evaluation.
pub type FixedCoefs = [i128; 6];

/// `Q(x, y)` truncated downward to an integer, for the mode's terms, from fixed-point
/// coefficients with `fbits` fractional bits.
pub fn tree_value(mode: QeeMode, c: &FixedCoefs, x: i64, y: i64, fbits: u32) -> i128 {
    let (x, y) = (x as i128, y as i128);
    let [a, b, cc, d, e, f] = *c;
    let q = match mode {
        QeeMode::None => 0,
        QeeMode::Constant => cc,
        QeeMode::Linear => a * x + b * y + cc,
        QeeMode::Quadratic => d * x * x + e * x * y + f * y * y + a * x + b * y + cc,
    };
    // An arithmetic shift right is division rounding toward minus infinity.
    q >> fbits.min(FBITS_MAX)
}

/// Bit `k` of the tree result as the bit-serial output delivers it (two's complement, sign
/// extended without limit).
pub fn tree_bit(q: i128, k: u32) -> bool {
    (q >> k.min(127)) & 1 != 0
}

/// `tree[n]`: the result sign-extended (or truncated) to `n` bits (n ≤ 128), as an unsigned
/// field value.
pub fn tree_bits(q: i128, n: u32) -> u128 {
    if n >= 128 {
        q as u128
    } else {
        (q as u128) & ((1u128 << n) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fx(v: f32, fbits: u32) -> i128 {
        coef_to_fixed(v.to_bits(), fbits)
    }

    fn linear(a: f32, b: f32, c: f32, x: i64, y: i64, fbits: u32) -> i128 {
        let k = [fx(a, fbits), fx(b, fbits), fx(c, fbits), 0, 0, 0];
        tree_value(QeeMode::Linear, &k, x, y, fbits)
    }

    #[test]
    fn seed_worked_examples() {
        // "the linear expression x+y+1.99 will evaluate to the integer '1' at pixel x=0,y=0,
        // while x+y-1.99 will evaluate to the integer '-2'" (any FBITS that keeps 1.99 > 1).
        for fbits in [1, 10, 20, 30] {
            assert_eq!(linear(1.0, 1.0, 1.99, 0, 0, fbits), 1, "fbits {fbits}");
            assert_eq!(linear(1.0, 1.0, -1.99, 0, 0, fbits), -2, "fbits {fbits}");
        }
        // "with an FBITS setting of 10, the linear expression 0.1x + y + 0 will evaluate to
        // the integer 0 at x=10, y=0, since 0.1 is truncated to 102/1024"
        assert_eq!(fx(0.1, 10), 102);
        assert_eq!(linear(0.1, 1.0, 0.0, 10, 0, 10), 0);
        // "On the other hand, -0.1x + y + 0 evaluates to the integer -1 at x=10, y=0."
        assert_eq!(fx(-0.1, 10), -102);
        assert_eq!(linear(-0.1, 1.0, 0.0, 10, 0, 10), -1);
    }

    #[test]
    fn conversion_truncates_toward_zero_and_limits_exponents() {
        assert_eq!(fx(2.75, 0), 2);
        assert_eq!(fx(-2.75, 0), -2);
        assert_eq!(fx(2.75, 2), 11);
        assert_eq!(fx(0.0, 10), 0);
        assert_eq!(fx(-0.0, 10), 0);
        assert_eq!(coef_to_fixed(f32::INFINITY.to_bits(), 4), 0);
        assert_eq!(coef_to_fixed(f32::NAN.to_bits(), 4), 0);
        assert_eq!(coef_to_fixed(1, 4), 0, "denormal");
        // exponent -FBITS is the smallest that counts; below it reads as 0
        assert_eq!(fx(1.0 / 1024.0, 10), 1);
        assert_eq!(fx(1.0 / 2048.0, 10), 0);
        // exponent 63-FBITS is the largest that counts
        assert_eq!(fx(2f32.powi(53), 10), 1i128 << 63);
        assert_eq!(fx(2f32.powi(54), 10), 0);
        assert_eq!(fx(-(2f32.powi(63)), 0), -(1i128 << 63));
    }

    #[test]
    fn quadratic_and_constant_modes() {
        let k = [
            fx(1.0, 4),
            fx(0.0, 4),
            fx(-3.5, 4),
            fx(2.0, 4),
            fx(0.5, 4),
            fx(-1.0, 4),
        ];
        // 2x² + 0.5xy - y² + x - 3.5 at (3, 2): 18 + 3 - 4 + 3 - 3.5 = 16.5 → 16
        assert_eq!(tree_value(QeeMode::Quadratic, &k, 3, 2, 4), 16);
        assert_eq!(tree_value(QeeMode::Constant, &k, 3, 2, 4), -4);
        // x - 3.5 at x = 3 is -0.5, truncated downward to -1
        assert_eq!(tree_value(QeeMode::Linear, &k, 3, 2, 4), -1);
    }

    #[test]
    fn tree_n_sign_extends() {
        assert_eq!(tree_bits(-2, 8), 0xfe);
        assert_eq!(tree_bits(5, 3), 5);
        assert_eq!(tree_bits(-1, 100), (1u128 << 100) - 1);
        assert!(tree_bit(-2, 90));
        assert!(!tree_bit(-2, 0));
        assert_eq!(max_tree_len(30), 43);
    }
}
