//! The tracer interface: how a hardware block shows its registers to a waveform writer.
//!
//! A block implements [`Traced`]; its `trace` method walks its registers and calls the
//! [`Tracer`] once per signal, inside named scopes. The walk must visit the same signals in
//! the same order on every call (the set may depend only on configuration fixed before the
//! first call, such as the probe pixels), so a sink can declare the signals on the first walk
//! and afterwards match values to signals by position alone, without hashing names.
//!
//! The blocks do no I/O: writers (VCD, FST) live in the `pp5-sim` crate. When tracing is off
//! nobody calls `trace`, so it costs nothing in the clocked step.

use std::sync::Arc;

/// Shows the signals of a [`Tracer::record`] or [`Tracer::record_group`] from its words: a
/// pure function of `words` (a plain `fn`, so it captures nothing), which must visit the
/// same signals in the same order for every `words`. A record must pass the same function
/// on every walk (a waveform writer keeps the one of its declaration walk), and must not
/// open groups ([`Tracer::group`]) or records inside it.
pub type Decode = fn(words: &[u64], t: &mut dyn Tracer);

/// A [`Decode`] that holds what a run fixes before its first walk (names from the microcode's
/// assembly, by the numbers a record carries): shared with a waveform writer's thread, which
/// keeps the declaration walk's ([`Tracer::record_with`]). The same rules as a [`Decode`].
pub type DecodeWith = Arc<dyn Fn(&[u64], &mut dyn Tracer) + Send + Sync>;

/// Gives a tracer as `&mut dyn Tracer` (implemented for every sized [`Tracer`]), so the
/// default [`Tracer::record`] can hand itself to a [`Decode`] function.
pub trait AsDynTracer {
    fn as_dyn_tracer(&mut self) -> &mut dyn Tracer;
}

impl<T: Tracer> AsDynTracer for T {
    fn as_dyn_tracer(&mut self) -> &mut dyn Tracer {
        self
    }
}

/// Receives the signals of a block, one call per signal, in a stable order.
///
/// A waveform writer shows text signals only from records ([`Tracer::record`] and its kin):
/// a text is the name of a number a record carries, decoded on the writer's thread.
pub trait Tracer: AsDynTracer {
    /// Enter a child scope (a hardware block), e.g. `igc` inside `renderer`.
    fn push_scope(&mut self, name: &str);
    /// Leave the current scope.
    fn pop_scope(&mut self);
    /// A register or wire of `width` bits (1..=64); only the low `width` bits of `value` count.
    fn bits(&mut self, name: &str, width: u32, value: u64);
    /// 1-bit signals `names[i]` = bit `i` of `value`, in that order (at most 64): the same as
    /// calling [`bit`] for each, which is what the default does; a sink may compare them
    /// all at once.
    fn bits_packed(&mut self, names: &[&str], value: u64) {
        for (i, name) in names.iter().enumerate().take(64) {
            self.bits(name, 1, value >> i & 1);
        }
    }
    /// A signal whose value is a name: an FSM state, a decoded opcode or field.
    /// Writers show it as a string in GTKWave.
    fn text(&mut self, name: &str, value: &str);

    /// [`Tracer::text`] for a value that is a constant name (an enum's state name): a sink
    /// may detect "unchanged" by the string's address alone. Prefer it whenever the value is
    /// `'static`.
    fn text_static(&mut self, name: &str, value: &'static str) {
        self.text(name, value);
    }

    /// Open a group of signals (and scopes) whose whole content is a function of `key`,
    /// closed by [`Tracer::end_group`] only when this returned `true`. A waveform writer
    /// returns `false`, and the block must then not visit the group's content, while `key`
    /// equals its value at the group's last visit: a block keeps the walk of its registers
    /// that change rarely, or cost much to show, off the cycles in which they did not change.
    /// The default visits every group.
    fn group(&mut self, key: u64) -> bool {
        let _ = key;
        true
    }

    /// Close the group opened by [`Tracer::group`].
    fn end_group(&mut self) {}

    /// Scope `name` whose whole content is `decode(words, t)`: the block copies its
    /// registers (packed into a few words) instead of walking its signals. The same as
    /// `t.push_scope(name); t.record_group(words, decode); t.pop_scope()`, which is what
    /// the default does; a waveform writer keeps the words and runs `decode` on its writer
    /// thread when they changed, so the clocked thread pays for a copy only.
    #[inline(always)]
    fn record(&mut self, name: &str, words: &[u64], decode: Decode) {
        self.push_scope(name);
        self.record_group(words, decode);
        self.pop_scope();
    }

    /// [`Tracer::record`] for signals of the current scope, without a scope of their own.
    /// The same as `decode(words, t)`, the default.
    fn record_group(&mut self, words: &[u64], decode: Decode) {
        decode(words, self.as_dyn_tracer());
    }

    /// [`Tracer::record_group`] with a decode function that holds the run's names
    /// ([`DecodeWith`]). The same as `decode(words, t)`, the default.
    fn record_with(&mut self, words: &[u64], decode: &DecodeWith) {
        decode(words, self.as_dyn_tracer());
    }
}

/// A block whose registers can be traced.
pub trait Traced {
    /// Walk every register of the block (see the module comment for the ordering rule).
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T);
}

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

pub use pp5_derive::{wave_view, Wave, WaveEnum};

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

/// Shorthand for a 1-bit signal.
#[inline]
pub fn bit<T: Tracer + ?Sized>(t: &mut T, name: &str, value: bool) {
    t.bits(name, 1, value as u64);
}

/// A tracer that records the signals it is shown as `(path, width, value)`; used by tests
/// and by the simulator's `--peek`-style reports. Text signals have width 0.
#[derive(Debug, Default, Clone)]
pub struct Recorder {
    scope: Vec<String>,
    /// Every signal seen, in visiting order: hierarchical name, width, numeric value, text.
    pub signals: Vec<(String, u32, u64, String)>,
}

impl Recorder {
    fn path(&self, name: &str) -> String {
        let mut p = self.scope.join(".");
        if !p.is_empty() {
            p.push('.');
        }
        p.push_str(name);
        p
    }

    /// The numeric value of the signal with this hierarchical name, if it was recorded.
    pub fn value(&self, path: &str) -> Option<u64> {
        self.signals.iter().find(|s| s.0 == path).map(|s| s.2)
    }

    /// The text value of the string signal with this hierarchical name.
    pub fn text_value(&self, path: &str) -> Option<&str> {
        self.signals
            .iter()
            .find(|s| s.0 == path)
            .map(|s| s.3.as_str())
    }
}

impl Tracer for Recorder {
    fn push_scope(&mut self, name: &str) {
        self.scope.push(name.to_string());
    }
    fn pop_scope(&mut self) {
        self.scope.pop();
    }
    fn bits(&mut self, name: &str, width: u32, value: u64) {
        let p = self.path(name);
        self.signals
            .push((p, width, value & mask(width), String::new()));
    }
    fn text(&mut self, name: &str, value: &str) {
        let p = self.path(name);
        self.signals.push((p, 0, 0, value.to_string()));
    }
}
