//! Bit-sliced kernels of the array step, specialised per truth table.
//!
//! A cycle's truth tables are constants, so instead of evaluating a generic 3-input table on
//! every word we match the table once per cycle against the functions microcode uses most
//! and run a loop monomorphised for that function (the compiler vectorises it); any other
//! table falls back to the generic [`Lut`] evaluator. `kernel_arms_match_their_tables`
//! checks every arm against its table.

use super::alu::{enable_eval, Lut};
use super::plane::{Plane, PLANE_WORDS, ZERO_PLANE};

/// Call `$body` with `$k` bound to a closure `Fn(u64, u64, u64) -> u64` computing the truth
/// table `$table` (index `(a<<2)|(b<<1)|c`), specialised for common tables.
macro_rules! with_lut {
    ($table:expr, $k:ident => $body:expr) => {{
        match $table {
            0x00 => {
                let $k = |_a: u64, _b: u64, _c: u64| 0u64;
                $body
            }
            0xff => {
                let $k = |_a: u64, _b: u64, _c: u64| !0u64;
                $body
            }
            0xf0 => {
                let $k = |a: u64, _b: u64, _c: u64| a;
                $body
            }
            0xcc => {
                let $k = |_a: u64, b: u64, _c: u64| b;
                $body
            }
            0xaa => {
                let $k = |_a: u64, _b: u64, c: u64| c;
                $body
            }
            0x0f => {
                let $k = |a: u64, _b: u64, _c: u64| !a;
                $body
            }
            0x33 => {
                let $k = |_a: u64, b: u64, _c: u64| !b;
                $body
            }
            0x55 => {
                let $k = |_a: u64, _b: u64, c: u64| !c;
                $body
            }
            0x3c => {
                let $k = |a: u64, b: u64, _c: u64| a ^ b;
                $body
            }
            0x5a => {
                let $k = |a: u64, _b: u64, c: u64| a ^ c;
                $body
            }
            0x66 => {
                let $k = |_a: u64, b: u64, c: u64| b ^ c;
                $body
            }
            0xc3 => {
                let $k = |a: u64, b: u64, _c: u64| !(a ^ b);
                $body
            }
            0xa5 => {
                let $k = |a: u64, _b: u64, c: u64| !(a ^ c);
                $body
            }
            0x99 => {
                let $k = |_a: u64, b: u64, c: u64| !(b ^ c);
                $body
            }
            0x96 => {
                let $k = |a: u64, b: u64, c: u64| a ^ b ^ c;
                $body
            }
            0x69 => {
                let $k = |a: u64, b: u64, c: u64| !(a ^ b ^ c);
                $body
            }
            0xe8 => {
                let $k = |a: u64, b: u64, c: u64| (a & b) | (c & (a | b));
                $body
            }
            0x8e => {
                let $k = |a: u64, b: u64, c: u64| (!a & b) | (c & (!a | b));
                $body
            }
            0xb2 => {
                let $k = |a: u64, b: u64, c: u64| (a & !b) | (c & (a | !b));
                $body
            }
            0xc0 => {
                let $k = |a: u64, b: u64, _c: u64| a & b;
                $body
            }
            0xa0 => {
                let $k = |a: u64, _b: u64, c: u64| a & c;
                $body
            }
            0x88 => {
                let $k = |_a: u64, b: u64, c: u64| b & c;
                $body
            }
            0x0a => {
                let $k = |a: u64, _b: u64, c: u64| !a & c;
                $body
            }
            0x0c => {
                let $k = |a: u64, b: u64, _c: u64| !a & b;
                $body
            }
            0x50 => {
                let $k = |a: u64, _b: u64, c: u64| a & !c;
                $body
            }
            0x22 => {
                let $k = |_a: u64, b: u64, c: u64| !b & c;
                $body
            }
            0x30 => {
                let $k = |a: u64, b: u64, _c: u64| a & !b;
                $body
            }
            0x44 => {
                let $k = |_a: u64, b: u64, c: u64| b & !c;
                $body
            }
            0xfc => {
                let $k = |a: u64, b: u64, _c: u64| a | b;
                $body
            }
            0xfa => {
                let $k = |a: u64, _b: u64, c: u64| a | c;
                $body
            }
            0xee => {
                let $k = |_a: u64, b: u64, c: u64| b | c;
                $body
            }
            t => {
                let l = Lut::new(t);
                let $k = move |a: u64, b: u64, c: u64| l.eval(a, b, c);
                $body
            }
        }
    }};
}

/// `out[i] = f(a[i], b[i], c[i])` for the whole plane.
#[inline(always)]
fn map3<F: Fn(u64, u64, u64) -> u64>(out: &mut Plane, a: &Plane, b: &Plane, c: &Plane, f: F) {
    for i in 0..PLANE_WORDS {
        out[i] = f(a[i], b[i], c[i]);
    }
}

/// New Carry plane: `out = table(a, b, c)`.
pub fn carry_plane(table: u8, out: &mut Plane, a: &Plane, b: &Plane, c: &Plane) {
    with_lut!(table, k => map3(out, a, b, c, k))
}

/// Write `r` into the memory plane `out`: everywhere (`wr_all`) or where Enable is set.
pub fn blend(out: &mut Plane, r: &Plane, en: &Plane, wr_all: bool) {
    if wr_all {
        out.copy_from_slice(r);
    } else {
        for i in 0..PLANE_WORDS {
            out[i] = (r[i] & en[i]) | (out[i] & !en[i]);
        }
    }
}

/// Whether every bit of the plane is set (a quarter at a time, stopping at the first quarter
/// with a clear bit).
pub fn all_ones(p: &Plane) -> bool {
    p.chunks_exact(PLANE_WORDS / 4).all(|c| {
        let acc: [u64; 4] = c.chunks_exact(4).fold([u64::MAX; 4], |acc, w| {
            std::array::from_fn(|i| acc[i] & w[i])
        });
        acc.iter().fold(u64::MAX, |a, &w| a & w) == u64::MAX
    })
}

/// Where `act` is clear, put the old value back: `new = (new & act) | (old & !act)` (the
/// flow-control unit's inactive PEs keep their registers).
pub fn keep_inactive(new: &mut Plane, old: &Plane, act: &Plane) {
    for i in 0..PLANE_WORDS {
        new[i] = (new[i] & act[i]) | (old[i] & !act[i]);
    }
}

/// `en = table(en, r)` for a 2-input table indexed `(e<<1)|r`; returns the OR of the result.
pub fn enable_update(en: &mut Plane, r: &Plane, table: u8) -> u64 {
    let mut acc = 0u64;
    for i in 0..PLANE_WORDS {
        let ne = enable_eval(table, en[i], r[i]);
        en[i] = ne;
        acc |= ne;
    }
    acc
}

/// The ALU result plane: `out = table(a, b, c)`.
pub fn result_plane(table: u8, out: &mut Plane, a: &Plane, b: &Plane, c: &Plane) {
    with_lut!(table, k => map3(out, a, b, c, k))
}

/// Where the fused pass reads port A from.
#[derive(Clone, Copy)]
pub enum PortA<'a> {
    /// A plane other than the written one.
    Plane(&'a Plane),
    /// The written plane itself (`dst = f(dst, b)`, e.g. MEMplusseqMEM): each word is read
    /// before it is written, so one pass is still exact.
    Dest,
}

/// One pass for the common case "write `r` to a memory plane that port B does not read,
/// Enable not written": computes `r`, the optional new Carry (in place), and the write.
/// `A_IS_W`: port A reads the written plane (its old value).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fused_write<FR, FC, const CRY: bool, const ALL: bool, const A_IS_W: bool>(
    fr: FR,
    fc: FC,
    w: &mut Plane,
    a: &Plane,
    b: &Plane,
    carry: &mut Plane,
    en: &Plane,
) where
    FR: Fn(u64, u64, u64) -> u64,
    FC: Fn(u64, u64, u64) -> u64,
{
    for i in 0..PLANE_WORDS {
        let old = w[i];
        let (x, y, c) = (if A_IS_W { old } else { a[i] }, b[i], carry[i]);
        let r = fr(x, y, c);
        if CRY {
            carry[i] = fc(x, y, c);
        }
        w[i] = if ALL { r } else { (r & en[i]) | (old & !en[i]) };
    }
}

/// The fused fast path; returns false (doing nothing) when the tables are not ones it has a
/// specialised loop for, so the caller runs the general passes.
#[allow(clippy::too_many_arguments)]
pub fn try_fused_write(
    tr: u8,
    tc: Option<u8>,
    wr_all: bool,
    w: &mut Plane,
    a: PortA<'_>,
    b: &Plane,
    carry: &mut Plane,
    en: &Plane,
) -> bool {
    let (a, a_is_w) = match a {
        PortA::Plane(p) => (p, false),
        PortA::Dest => (&ZERO_PLANE, true),
    };
    macro_rules! go {
        ($fr:expr, $fc:expr, $cry:expr) => {{
            match (wr_all, a_is_w) {
                (true, false) => {
                    fused_write::<_, _, $cry, true, false>($fr, $fc, w, a, b, carry, en)
                }
                (false, false) => {
                    fused_write::<_, _, $cry, false, false>($fr, $fc, w, a, b, carry, en)
                }
                (true, true) => fused_write::<_, _, $cry, true, true>($fr, $fc, w, a, b, carry, en),
                (false, true) => {
                    fused_write::<_, _, $cry, false, true>($fr, $fc, w, a, b, carry, en)
                }
            }
            true
        }};
    }
    let none = |_: u64, _: u64, _: u64| 0u64;
    match tc {
        None => with_lut!(tr, k => go!(k, none, false)),
        // Full adder and subtractors (borrow chains), increment, decrement, negate.
        Some(0xe8) if tr == 0x96 => go!(
            |a: u64, b: u64, c: u64| a ^ b ^ c,
            |a: u64, b: u64, c: u64| (a & b) | (c & (a | b)),
            true
        ),
        Some(0x8e) if tr == 0x96 => go!(
            |a: u64, b: u64, c: u64| a ^ b ^ c,
            |a: u64, b: u64, c: u64| (!a & b) | (c & (!a | b)),
            true
        ),
        Some(0xb2) if tr == 0x96 => go!(
            |a: u64, b: u64, c: u64| a ^ b ^ c,
            |a: u64, b: u64, c: u64| (a & !b) | (c & (a | !b)),
            true
        ),
        Some(0xa0) if tr == 0x5a => go!(
            |a: u64, _b: u64, c: u64| a ^ c,
            |a: u64, _b: u64, c: u64| a & c,
            true
        ),
        Some(0x0a) if tr == 0x5a => go!(
            |a: u64, _b: u64, c: u64| a ^ c,
            |a: u64, _b: u64, c: u64| !a & c,
            true
        ),
        Some(0x0a) if tr == 0xa5 => go!(
            |a: u64, _b: u64, c: u64| !(a ^ c),
            |a: u64, _b: u64, c: u64| !a & c,
            true
        ),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_arms_match_their_tables() {
        // Planes holding all 8 input combinations in bits 0..8 of word 0.
        let (mut a, mut b, mut c) = (ZERO_PLANE, ZERO_PLANE, ZERO_PLANE);
        for i in 0..8u64 {
            a[0] |= ((i >> 2) & 1) << i;
            b[0] |= ((i >> 1) & 1) << i;
            c[0] |= (i & 1) << i;
        }
        for t in 0..=255u8 {
            let mut out = ZERO_PLANE;
            carry_plane(t, &mut out, &a, &b, &c);
            assert_eq!(out[0] & 0xff, t as u64, "carry kernel for table {t:#04x}");
            let mut out = ZERO_PLANE;
            result_plane(t, &mut out, &a, &b, &c);
            assert_eq!(out[0] & 0xff, t as u64, "result kernel for table {t:#04x}");
        }
    }
}
