//! The bit-serial pixel ALU, applied to all 16,384 pixel processors at once.
//!
//! Each 40 MHz cycle every PE reads up to two memory bits (ports A and B), combines them with
//! its Carry through two 3-input truth tables (result `r` and carry `c'`), and may write `r`
//! to one memory bit (conditioned by Enable or not), `c'` to Carry, and a function of
//! (Enable, r) to Enable. See docs/microcode.md, "PE-array fields".
//!
//! Truth tables are indexed by `(a << 2) | (b << 1) | c`. The evaluation is bit-sliced: the
//! table is a per-cycle constant, so it is turned once into a [`Lut`] (a mux tree with
//! constant leaves) and then applied with a few word operations per 64 pixels.

/// A 3-input boolean function, in a form that evaluates with word operations.
///
/// `f(a,b,c) = a ? (b ? l11 : l10) : (b ? l01 : l00)` where each leaf `lxy(c)` is
/// `(c & m) ^ k` with per-table constants `m`, `k` ∈ {0, !0}.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lut {
    m: [u64; 4],
    k: [u64; 4],
    /// The original truth table.
    pub table: u8,
}

impl Lut {
    /// Build from an 8-entry truth table indexed by `(a << 2) | (b << 1) | c`.
    pub const fn new(table: u8) -> Lut {
        let mut m = [0u64; 4];
        let mut k = [0u64; 4];
        let mut ab = 0;
        while ab < 4 {
            let f0 = (table >> (ab * 2)) & 1; // c = 0
            let f1 = (table >> (ab * 2 + 1)) & 1; // c = 1
                                                  // leaf = (c & m) ^ k: k = f0, m = f0 ^ f1
            k[ab] = if f0 == 1 { u64::MAX } else { 0 };
            m[ab] = if f0 != f1 { u64::MAX } else { 0 };
            ab += 1;
        }
        Lut { m, k, table }
    }

    /// Evaluate on 64 pixels at once.
    #[inline(always)]
    pub fn eval(&self, a: u64, b: u64, c: u64) -> u64 {
        let l00 = (c & self.m[0]) ^ self.k[0];
        let l01 = (c & self.m[1]) ^ self.k[1];
        let l10 = (c & self.m[2]) ^ self.k[2];
        let l11 = (c & self.m[3]) ^ self.k[3];
        let lo = l00 ^ (b & (l01 ^ l00));
        let hi = l10 ^ (b & (l11 ^ l10));
        lo ^ (a & (hi ^ lo))
    }

    /// Evaluate on one pixel.
    #[inline]
    pub fn eval_bit(table: u8, a: bool, b: bool, c: bool) -> bool {
        let i = ((a as u8) << 2) | ((b as u8) << 1) | c as u8;
        (table >> i) & 1 != 0
    }

    /// The table with input `a` fixed to `v` (the function no longer depends on `a`).
    pub const fn fix_a(table: u8, v: bool) -> u8 {
        let half = if v { table >> 4 } else { table & 0x0f };
        half | (half << 4)
    }

    /// The table with inputs `a` and `b` exchanged: `swap_ab(t)(a, b, c) = t(b, a, c)`.
    pub const fn swap_ab(table: u8) -> u8 {
        let mut out = 0u8;
        let mut i = 0;
        while i < 8 {
            let src = (i & 1) | ((i >> 1) & 0b010) | ((i << 1) & 0b100);
            out |= ((table >> src) & 1) << i;
            i += 1;
        }
        out
    }

    /// The table with input `b` fixed to `v`.
    pub const fn fix_b(table: u8, v: bool) -> u8 {
        let mut out = 0u8;
        let mut i = 0;
        while i < 8 {
            let src = (i & 0b101) | if v { 0b010 } else { 0 };
            out |= ((table >> src) & 1) << i;
            i += 1;
        }
        out
    }
}

/// Well-known truth tables (index `(a<<2)|(b<<1)|c`).
pub mod tables {
    /// Constant 0.
    pub const ZERO: u8 = 0x00;
    /// Constant 1.
    pub const ONE: u8 = 0xff;
    /// `a`.
    pub const A: u8 = 0xf0;
    /// `b`.
    pub const B: u8 = 0xcc;
    /// `c`.
    pub const C: u8 = 0xaa;
    /// `a ^ b ^ c` (full-adder sum).
    pub const XOR3: u8 = 0x96;
    /// `maj(a, b, c)` (full-adder carry).
    pub const MAJ: u8 = 0xe8;
}

/// Apply a 2-input enable table, indexed by `(e << 1) | r`, to 64 pixels.
#[inline(always)]
pub fn enable_eval(table: u8, e: u64, r: u64) -> u64 {
    let bit = |i: u8| if (table >> i) & 1 != 0 { u64::MAX } else { 0 };
    let lo = bit(0) ^ (r & (bit(1) ^ bit(0)));
    let hi = bit(2) ^ (r & (bit(3) ^ bit(2)));
    lo ^ (e & (hi ^ lo))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lut_matches_its_truth_table_for_every_table() {
        for t in 0..=255u8 {
            let lut = Lut::new(t);
            for i in 0..8u8 {
                let (a, b, c) = (i & 4 != 0, i & 2 != 0, i & 1 != 0);
                let w = |x: bool| if x { u64::MAX } else { 0 };
                let got = lut.eval(w(a), w(b), w(c)) == u64::MAX;
                assert_eq!(got, Lut::eval_bit(t, a, b, c), "table {t:#x} index {i}");
                assert_eq!(
                    Lut::eval_bit(Lut::fix_a(t, a), !a, b, c),
                    Lut::eval_bit(t, a, b, c)
                );
                assert_eq!(
                    Lut::eval_bit(Lut::fix_b(t, b), a, !b, c),
                    Lut::eval_bit(t, a, b, c)
                );
                assert_eq!(
                    Lut::eval_bit(Lut::swap_ab(t), b, a, c),
                    Lut::eval_bit(t, a, b, c)
                );
            }
        }
    }

    #[test]
    fn enable_table() {
        // index (e<<1)|r: "e &= r" is 0b1000, "e = r" is 0b1010, "keep e" 0b1100.
        assert_eq!(enable_eval(0b1000, 0b1100, 0b1010), 0b1000);
        assert_eq!(enable_eval(0b1010, 0b1100, 0b1010), 0b1010);
        assert_eq!(enable_eval(0b1100, 0b1100, 0b1010), 0b1100);
        assert_eq!(enable_eval(0b1110, 0b1100, 0b1010), 0b1110);
    }

    #[test]
    fn named_tables() {
        for i in 0..8u8 {
            let (a, b, c) = (i & 4 != 0, i & 2 != 0, i & 1 != 0);
            assert_eq!(Lut::eval_bit(tables::XOR3, a, b, c), a ^ b ^ c);
            assert_eq!(
                Lut::eval_bit(tables::MAJ, a, b, c),
                (a & b) | (a & c) | (b & c)
            );
            assert_eq!(Lut::eval_bit(tables::A, a, b, c), a);
            assert_eq!(Lut::eval_bit(tables::B, a, b, c), b);
            assert_eq!(Lut::eval_bit(tables::C, a, b, c), c);
        }
    }
}
