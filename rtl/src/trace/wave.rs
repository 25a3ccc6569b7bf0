//! The runtime of `#[derive(Wave)]` (the `pp5-derive` crate documents its attributes): the
//! [`Wave`] and [`WaveEnum`] traits the derive implements, and the layout arithmetic its code
//! calls ([`part`] to pack a field into a record's words, [`get`] to take it out again, the
//! compile-time width checks).

use super::Tracer;
use std::marker::PhantomData;

/// A record, or a part of one, shown from bits of its words: `#[derive(Wave)]` (the
/// `pp5-derive` crate documents its attributes) generates this from the struct, so that its
/// packing ([`Wave::word`], the struct's `words`) and its signals ([`Wave::show`], the
/// struct's `decode`) come from one description.
pub trait Wave {
    /// Bits it takes in a record.
    const BITS: u32;
    /// Its part of word `k` of a record it lies in from bit `at` (0 where it has no bits
    /// there): one expression, the OR of its fields' [`part`]s, so that with `at` and `k`
    /// constants (inlined) each word is built in registers ([`words`]).
    fn word(&self, at: u32, k: usize) -> u64;
    /// Show its signals from the bits of `w` from `at`, as `name`: a record's in a scope of
    /// that name (none if empty), an enum's as a text signal.
    fn show(w: &[u64], at: u32, name: &str, t: &mut dyn Tracer);
}

/// A part held by reference (a record of several blocks' registers, none copied).
impl<T: Wave + ?Sized> Wave for &T {
    const BITS: u32 = T::BITS;
    #[inline(always)]
    fn word(&self, at: u32, k: usize) -> u64 {
        (**self).word(at, k)
    }
    fn show(w: &[u64], at: u32, name: &str, t: &mut dyn Tracer) {
        T::show(w, at, name, t)
    }
}

/// An enum the waveform shows by the name of its variant (`#[derive(WaveEnum)]`): the names
/// by code, the code of a value (its variant's index) and the value of a code (the payload's
/// fields `Default`).
pub trait WaveEnum: Sized {
    const NAMES: &'static [&'static str];
    fn code(&self) -> u64;
    fn from_code(code: u64) -> Self;
    /// The variant's name.
    #[inline]
    fn name(&self) -> &'static str {
        Self::NAMES
            .get(self.code() as usize)
            .copied()
            .unwrap_or("?")
    }
}

/// The bits of codes `0..n` (at least 1).
pub const fn bits_for(n: usize) -> u32 {
    if n <= 2 {
        1
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// A field of `width` bits (`#[derive(Wave)]`'s compile-time check): 1..=64, and no wider
/// than its type `T`.
pub const fn check_width<T>(width: u32) {
    assert!(width >= 1 && width <= 64, "a signal's width is 1..=64");
    assert!(
        width as usize <= 8 * std::mem::size_of::<T>(),
        "a field's width is wider than its type"
    );
}

/// A record of `bits` bits fits in `words` words (`#[wave(words = N)]`'s check).
pub const fn check_words(bits: u32, words: usize) {
    assert!(
        bits as usize <= 64 * words,
        "the record is wider than its words"
    );
}

/// The mask of a `width`-bit value (all ones from 64 bits).
#[inline(always)]
pub const fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The part of word `k` of the low `width` bits of `v` put from bit `at` (0 if none of
/// them is in word `k`).
#[inline(always)]
pub const fn part(v: u64, at: u32, width: u32, k: usize) -> u64 {
    let (i, s, v) = ((at / 64) as usize, at % 64, v & mask(width));
    if i == k {
        v << s
    } else if i + 1 == k && s + width > 64 {
        v >> (64 - s)
    } else {
        0
    }
}

/// The `N` words of record `x` ([`Wave::word`] from bit 0), each stored once: the first 8
/// unrolled, so that each is built in registers whatever the optimiser's unrolling.
#[inline(always)]
pub fn words<T: Wave + ?Sized, const N: usize>(x: &T) -> [u64; N] {
    let mut w = [0u64; N];
    macro_rules! unrolled {
        ($($k:literal)*) => {$(
            if let Some(v) = w.get_mut($k) {
                *v = x.word(0, $k);
            }
        )*};
    }
    unrolled!(0 1 2 3 4 5 6 7);
    for (k, v) in w.iter_mut().enumerate().skip(8) {
        *v = x.word(0, k);
    }
    w
}

/// The `width` bits of `w` from bit `at` (0 past its end).
#[inline(always)]
pub fn get(w: &[u64], at: u32, width: u32) -> u64 {
    let (i, s) = ((at / 64) as usize, at % 64);
    let mut v = w.get(i).map_or(0, |x| x >> s);
    if s + width > 64 {
        v |= w.get(i + 1).map_or(0, |x| x << (64 - s));
    }
    v & mask(width)
}

/// A one-word record `T` kept as its bits (`T`'s layout, at most 64 bits): a value taken
/// every cycle and shown seldom, stored as one word and handed to the tracer as its record's
/// words (with `T::decode`). The default is all bits 0.
#[derive(Debug, PartialEq, Eq)]
pub struct Packed<T>(u64, PhantomData<T>);

impl<T> Clone for Packed<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Packed<T> {}

impl<T> Default for Packed<T> {
    fn default() -> Self {
        Packed(0, PhantomData)
    }
}

impl<T: Wave> Packed<T> {
    /// `x`'s bits.
    #[inline(always)]
    pub fn new(x: &T) -> Self {
        const { assert!(T::BITS <= 64, "a packed record fits in a word") };
        Packed(x.word(0, 0), PhantomData)
    }

    /// The fields of `self` and of `other`, each of which leaves the other's fields at their
    /// zero value (a sample taken before an edge, and the fields known after it).
    #[inline(always)]
    pub fn merged(self, other: Self) -> Self {
        debug_assert_eq!(self.0 & other.0, 0, "merged records overlap");
        Packed(self.0 | other.0, PhantomData)
    }

    /// The record's word.
    #[inline(always)]
    pub fn bits(self) -> u64 {
        self.0
    }
}
