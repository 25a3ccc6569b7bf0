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
//!
//! A block's signals are records of its registers: `#[derive(Wave)]` (the [`Wave`] traits
//! and the layout arithmetic the derive's code calls are in `trace/wave.rs`) generates each
//! record's packing into words and its decode into signals from one description.
//! [`Recorder`] (`trace/recorder.rs`) keeps every signal of a walk, to read them by name.

use std::sync::Arc;

mod recorder;
mod wave;

pub use pp5_derive::{wave_view, Wave, WaveEnum};
pub use recorder::Recorder;
pub use wave::{
    bits_for, check_width, check_words, get, mask, part, words, Packed, Wave, WaveEnum,
};

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

/// Shorthand for a 1-bit signal.
#[inline]
pub fn bit<T: Tracer + ?Sized>(t: &mut T, name: &str, value: bool) {
    t.bits(name, 1, value as u64);
}
