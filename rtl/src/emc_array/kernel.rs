//! Bit-sliced kernels of the array step, specialised per truth table.
//!
//! A cycle's truth tables are constants, so instead of evaluating a generic 3-input table on
//! every word we run a loop monomorphised for the function ([`lut3`]: the functions
//! microcode uses most, in as few word operations as they take; the compiler vectorises the
//! loop); any other table falls back to the generic [`Lut`] evaluator. The fast kernels
//! ([`fused_kernel`], [`carry_kernel`]) do a whole cycle in one pass and are chosen once per
//! kind of operation (`step.rs`); the general passes ([`carry_plane`], [`result_plane`]) pick
//! their function per call. `kernel_arms_match_their_tables` and
//! `fused_kernels_match_their_tables` check every kernel against its tables.
//!
//! The kernels are plain loops over the plane's words. Loops over fixed-size chunks of a
//! plane took fewer instructions at AVX2 width (the chunk loop unrolled), but built for a host
//! with AVX-512 the compiler vectorised *across* chunks with gathers and scatters: three
//! times slower (docs/timing.md).

use super::alu::{enable_eval, Lut};
use super::plane::{Plane, PLANE_WORDS};

/// Call `$body` with `$k` bound to a closure `Fn(u64, u64, u64) -> u64` computing the truth
/// table `$table` (index `(a<<2)|(b<<1)|c`), specialised for common tables.
macro_rules! with_lut {
    ($table:expr, $k:ident => $body:expr) => {{
        match $table {
            0x00 => {
                let $k = lut3::<0x00>;
                $body
            }
            0xff => {
                let $k = lut3::<0xff>;
                $body
            }
            0xf0 => {
                let $k = lut3::<0xf0>;
                $body
            }
            0xcc => {
                let $k = lut3::<0xcc>;
                $body
            }
            0xaa => {
                let $k = lut3::<0xaa>;
                $body
            }
            0x0f => {
                let $k = lut3::<0x0f>;
                $body
            }
            0x33 => {
                let $k = lut3::<0x33>;
                $body
            }
            0x55 => {
                let $k = lut3::<0x55>;
                $body
            }
            0x3c => {
                let $k = lut3::<0x3c>;
                $body
            }
            0x5a => {
                let $k = lut3::<0x5a>;
                $body
            }
            0x66 => {
                let $k = lut3::<0x66>;
                $body
            }
            0xc3 => {
                let $k = lut3::<0xc3>;
                $body
            }
            0xa5 => {
                let $k = lut3::<0xa5>;
                $body
            }
            0x99 => {
                let $k = lut3::<0x99>;
                $body
            }
            0x96 => {
                let $k = lut3::<0x96>;
                $body
            }
            0x69 => {
                let $k = lut3::<0x69>;
                $body
            }
            0xe8 => {
                let $k = lut3::<0xe8>;
                $body
            }
            0x8e => {
                let $k = lut3::<0x8e>;
                $body
            }
            0xb2 => {
                let $k = lut3::<0xb2>;
                $body
            }
            0xc0 => {
                let $k = lut3::<0xc0>;
                $body
            }
            0xa0 => {
                let $k = lut3::<0xa0>;
                $body
            }
            0x88 => {
                let $k = lut3::<0x88>;
                $body
            }
            0x0a => {
                let $k = lut3::<0x0a>;
                $body
            }
            0x0c => {
                let $k = lut3::<0x0c>;
                $body
            }
            0x50 => {
                let $k = lut3::<0x50>;
                $body
            }
            0x22 => {
                let $k = lut3::<0x22>;
                $body
            }
            0x30 => {
                let $k = lut3::<0x30>;
                $body
            }
            0x44 => {
                let $k = lut3::<0x44>;
                $body
            }
            0xfc => {
                let $k = lut3::<0xfc>;
                $body
            }
            0xfa => {
                let $k = lut3::<0xfa>;
                $body
            }
            0xee => {
                let $k = lut3::<0xee>;
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

/// A fast kernel: `(w, a, b, carry, en)`, one pass over the planes (see [`fused`]).
pub type Kernel = fn(&mut Plane, &Plane, &Plane, &mut Plane, &Plane);

/// The truth table `T` (index `(a<<2)|(b<<1)|c`) in few word operations, for the tables
/// [`fused_kernel`] has kernels for (any other `T` evaluates as a [`Lut`]). `T` is a
/// constant, so each kernel's loop holds only its own function.
#[inline(always)]
fn lut3<const T: u8>(a: u64, b: u64, c: u64) -> u64 {
    match T {
        0x00 => 0,
        0xff => !0,
        0xf0 => a,
        0xcc => b,
        0xaa => c,
        0x0f => !a,
        0x33 => !b,
        0x55 => !c,
        0x3c => a ^ b,
        0x5a => a ^ c,
        0x66 => b ^ c,
        0xc3 => !(a ^ b),
        0xa5 => !(a ^ c),
        0x99 => !(b ^ c),
        0x96 => a ^ b ^ c,
        0x69 => !(a ^ b ^ c),
        // The majorities pick between two inputs on `a ^ b` (three operations, not four).
        // maj(a, b, c): `c` where a != b, else `a`.
        0xe8 => a ^ ((a ^ b) & (a ^ c)),
        // maj(!a, b, c) (borrow of a - b): `b` where a != b, else `c`.
        0x8e => c ^ ((a ^ b) & (b ^ c)),
        // maj(a, !b, c) (borrow of b - a): `a` where a != b, else `c`.
        0xb2 => c ^ ((a ^ b) & (a ^ c)),
        0xc0 => a & b,
        0xa0 => a & c,
        0x88 => b & c,
        0x0a => !a & c,
        0x0c => !a & b,
        0x50 => a & !c,
        0x22 => !b & c,
        0x30 => a & !b,
        0x44 => b & !c,
        0xfc => a | b,
        0xfa => a | c,
        0xee => b | c,
        t => Lut::new(t).eval(a, b, c),
    }
}

/// One pass for the common cases with every PE active and Enable not written:
/// - `WRITE`: write `r = TR(x, b, carry)` to the memory plane `w` (everywhere with `ALL`,
///   else where Enable is set), and with `CRY` the new Carry `TC(x, b, carry)` in place;
///   `x` is port A's plane, or with `A_IS_W` the written plane's old value (each word is read
///   before it is written, so one pass is exact);
/// - not `WRITE`: only the new Carry (`w` is not touched).
///
/// Port B is never the written plane (the caller exchanges the ports when it is).
#[inline(never)]
fn fused<
    const TR: u8,
    const TC: u8,
    const WRITE: bool,
    const CRY: bool,
    const ALL: bool,
    const A_IS_W: bool,
>(
    w: &mut Plane,
    a: &Plane,
    b: &Plane,
    carry: &mut Plane,
    en: &Plane,
) {
    for i in 0..PLANE_WORDS {
        let old = w[i];
        let (x, y, c) = (if A_IS_W { old } else { a[i] }, b[i], carry[i]);
        if CRY {
            carry[i] = lut3::<TC>(x, y, c);
        }
        if WRITE {
            let r = lut3::<TR>(x, y, c);
            w[i] = if ALL { r } else { old ^ ((r ^ old) & en[i]) };
        }
    }
}

/// Call `$m!(table)` for the tables with specialised kernels, as a `match` on `$t` (`None`
/// for any other table).
macro_rules! special_tables {
    ($t:expr, $m:ident) => {
        match $t {
            0x00 => Some($m!(0x00)),
            0xff => Some($m!(0xff)),
            0xf0 => Some($m!(0xf0)),
            0xcc => Some($m!(0xcc)),
            0xaa => Some($m!(0xaa)),
            0x0f => Some($m!(0x0f)),
            0x33 => Some($m!(0x33)),
            0x55 => Some($m!(0x55)),
            0x3c => Some($m!(0x3c)),
            0x5a => Some($m!(0x5a)),
            0x66 => Some($m!(0x66)),
            0xc3 => Some($m!(0xc3)),
            0xa5 => Some($m!(0xa5)),
            0x99 => Some($m!(0x99)),
            0x96 => Some($m!(0x96)),
            0x69 => Some($m!(0x69)),
            0xe8 => Some($m!(0xe8)),
            0x8e => Some($m!(0x8e)),
            0xb2 => Some($m!(0xb2)),
            0xc0 => Some($m!(0xc0)),
            0xa0 => Some($m!(0xa0)),
            0x88 => Some($m!(0x88)),
            0x0a => Some($m!(0x0a)),
            0x0c => Some($m!(0x0c)),
            0x50 => Some($m!(0x50)),
            0x22 => Some($m!(0x22)),
            0x30 => Some($m!(0x30)),
            0x44 => Some($m!(0x44)),
            0xfc => Some($m!(0xfc)),
            0xfa => Some($m!(0xfa)),
            0xee => Some($m!(0xee)),
            _ => None,
        }
    };
}

/// The fused kernel writing `tr` to memory (and `tc` to Carry when given), with the write
/// everywhere (`wr_all`) or under Enable, port A reading the written plane (`a_is_w`) or
/// its own; `None` when there is no specialised kernel for the tables (the caller runs the
/// general passes).
pub fn fused_kernel(tr: u8, tc: Option<u8>, wr_all: bool, a_is_w: bool) -> Option<Kernel> {
    macro_rules! four {
        ($tr:expr, $tc:expr, $cry:expr) => {
            match (wr_all, a_is_w) {
                (true, false) => fused::<{ $tr }, { $tc }, true, $cry, true, false> as Kernel,
                (false, false) => fused::<{ $tr }, { $tc }, true, $cry, false, false>,
                (true, true) => fused::<{ $tr }, { $tc }, true, $cry, true, true>,
                (false, true) => fused::<{ $tr }, { $tc }, true, $cry, false, true>,
            }
        };
    }
    macro_rules! result_only {
        ($tr:expr) => {
            four!($tr, 0, false)
        };
    }
    match tc {
        // A plane copied everywhere (port A's, or port B's: the ports are never the written
        // plane here).
        None if wr_all && !a_is_w && tr == 0xf0 => Some(copy_a),
        None if wr_all && !a_is_w && tr == 0xcc => Some(copy_b),
        // A constant plane written everywhere.
        None if wr_all && tr == 0x00 => Some(fill::<0>),
        None if wr_all && tr == 0xff => Some(fill::<{ u64::MAX }>),
        None => special_tables!(tr, result_only),
        // Full adder and subtractors (borrow chains), increment, decrement, negate.
        Some(0xe8) if tr == 0x96 => Some(four!(0x96, 0xe8, true)),
        Some(0x8e) if tr == 0x96 => Some(four!(0x96, 0x8e, true)),
        Some(0xb2) if tr == 0x96 => Some(four!(0x96, 0xb2, true)),
        Some(0xa0) if tr == 0x5a => Some(four!(0x5a, 0xa0, true)),
        Some(0x0a) if tr == 0x5a => Some(four!(0x5a, 0x0a, true)),
        Some(0x0a) if tr == 0xa5 => Some(four!(0xa5, 0x0a, true)),
        _ => None,
    }
}

/// `w = src`. Written as a plain loop the compiler calls the library's `memcpy` for the
/// plane (some 220 instructions under callgrind); ANDed with an all-ones word it cannot see
/// through, the loop is one vector AND (with its load) and one store per 4 words, unrolled
/// like the other kernels (some 130).
#[inline(always)]
fn copy(w: &mut Plane, src: &Plane) {
    let ones = std::hint::black_box(u64::MAX);
    for i in 0..PLANE_WORDS {
        w[i] = src[i] & ones;
    }
}

/// The kernel of `w = a` everywhere (the result table `0xf0`, no Carry).
#[inline(never)]
fn copy_a(w: &mut Plane, a: &Plane, _: &Plane, _: &mut Plane, _: &Plane) {
    copy(w, a);
}

/// The kernel of `w = b` everywhere (the result table `0xcc`, no Carry).
#[inline(never)]
fn copy_b(w: &mut Plane, _: &Plane, b: &Plane, _: &mut Plane, _: &Plane) {
    copy(w, b);
}

/// `p = V` everywhere. Written as a plain loop the compiler calls the library's `memset` for
/// the plane (some 126 instructions under callgrind); storing a word it cannot see through,
/// the loop is one vector store per 4 words (some 70).
#[inline(always)]
fn fill_plane<const V: u64>(p: &mut Plane) {
    let v = std::hint::black_box(V);
    for x in p.iter_mut() {
        *x = v;
    }
}

/// The kernel of `w = V` everywhere (the result table `0x00` or `0xff`, no Carry).
#[inline(never)]
fn fill<const V: u64>(w: &mut Plane, _: &Plane, _: &Plane, _: &mut Plane, _: &Plane) {
    fill_plane::<V>(w);
}

/// The kernel of Carry alone set to `V` (the Carry table `0x00` or `0xff`).
#[inline(never)]
fn fill_carry<const V: u64>(_: &mut Plane, _: &Plane, _: &Plane, carry: &mut Plane, _: &Plane) {
    fill_plane::<V>(carry);
}

/// The kernel of an operation that writes no register.
pub fn nothing(_: &mut Plane, _: &Plane, _: &Plane, _: &mut Plane, _: &Plane) {}

/// The kernel writing Carry only (`carry = tc(a, b, carry)`, in place: each word is read
/// before it is written); `None` when `tc` has no specialised kernel.
pub fn carry_kernel(tc: u8) -> Option<Kernel> {
    macro_rules! carry_only {
        ($tc:expr) => {
            fused::<0, { $tc }, false, true, true, false> as Kernel
        };
    }
    match tc {
        0x00 => Some(fill_carry::<0>),
        0xff => Some(fill_carry::<{ u64::MAX }>),
        _ => special_tables!(tc, carry_only),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emc_array::plane::ZERO_PLANE;

    /// Planes holding all 8 input combinations in bits 0..8 of word 0, and Enable set on bits
    /// 0..8 of word 0 except bit 5 (and 0 in every other word).
    fn inputs() -> (Plane, Plane, Plane, Plane) {
        let (mut a, mut b, mut c, mut en) = (ZERO_PLANE, ZERO_PLANE, ZERO_PLANE, ZERO_PLANE);
        for i in 0..8u64 {
            a[0] |= ((i >> 2) & 1) << i;
            b[0] |= ((i >> 1) & 1) << i;
            c[0] |= (i & 1) << i;
        }
        en[0] = 0xdf;
        (a, b, c, en)
    }

    #[test]
    fn kernel_arms_match_their_tables() {
        let (a, b, c, _) = inputs();
        for t in 0..=255u8 {
            let mut out = ZERO_PLANE;
            carry_plane(t, &mut out, &a, &b, &c);
            assert_eq!(out[0] & 0xff, t as u64, "carry kernel for table {t:#04x}");
            let mut out = ZERO_PLANE;
            result_plane(t, &mut out, &a, &b, &c);
            assert_eq!(out[0] & 0xff, t as u64, "result kernel for table {t:#04x}");
        }
    }

    /// Every fused kernel writes its tables' values: the result where it writes (everywhere
    /// or under Enable), the old value elsewhere, and Carry when it writes Carry.
    #[test]
    fn fused_kernels_match_their_tables() {
        let (a, b, c, en) = inputs();
        let old = 0x5a_u64;
        let pairs = (0..=255u8).map(|t| (t, None)).chain(
            [
                (0x96, 0xe8),
                (0x96, 0x8e),
                (0x96, 0xb2),
                (0x5a, 0xa0),
                (0x5a, 0x0a),
                (0xa5, 0x0a),
            ]
            .map(|(r, c)| (r, Some(c))),
        );
        let mut n = 0;
        for (tr, tc) in pairs {
            for wr_all in [false, true] {
                // Port A reading its own plane; port A reading the written plane (which then
                // holds A's bits).
                for a_is_w in [false, true] {
                    let Some(k) = fused_kernel(tr, tc, wr_all, a_is_w) else {
                        continue;
                    };
                    n += 1;
                    let mut w = ZERO_PLANE;
                    w[0] = if a_is_w { a[0] } else { old };
                    let before = w[0];
                    let mut carry = c;
                    k(
                        &mut w,
                        if a_is_w { &ZERO_PLANE } else { &a },
                        &b,
                        &mut carry,
                        &en,
                    );
                    let mask = if wr_all { 0xff } else { en[0] };
                    let want = (tr as u64 & mask) | (before & !mask & 0xff);
                    assert_eq!(
                        w[0] & 0xff,
                        want,
                        "result {tr:#04x} {tc:?} {wr_all} {a_is_w}"
                    );
                    let want_c = tc.map_or(c[0], u64::from);
                    assert_eq!(carry[0] & 0xff, want_c, "carry {tr:#04x} {tc:?}");
                }
            }
        }
        assert_eq!(n, (31 + 6) * 4);
        for tc in 0..=255u8 {
            let Some(k) = carry_kernel(tc) else { continue };
            let (mut w, mut carry) = (ZERO_PLANE, c);
            k(&mut w, &a, &b, &mut carry, &en);
            assert_eq!(carry[0] & 0xff, tc as u64, "carry only {tc:#04x}");
            assert_eq!(w, ZERO_PLANE);
        }
    }
}
