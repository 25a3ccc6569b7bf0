//! A semaphore in the waveform: scope `bs_sem` or `igc_sem` (the counter and this cycle's
//! requests).

use super::{Semaphore, SEMAPHORE_BITS};
use crate::trace::{bit, words, Tracer};

impl Semaphore {
    /// Everything the semaphore shows, packed ([`decode_semaphore`] shows it).
    pub fn trace_word(&self) -> u64 {
        self.count as u64
            | (self.v as u64) << 8
            | (self.p as u64) << 16
            | (self.p_wait as u64) << 17
            | (self.overflow as u64) << 18
    }

    /// The semaphore as scope `name`.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, name: &str) {
        t.record(name, &[self.trace_word()], decode_semaphore);
    }
}

/// The semaphore's signals from [`Semaphore::trace_word`]'s word.
fn decode_semaphore(w: &[u64], t: &mut dyn Tracer) {
    let [w] = words(w);
    t.bits("count", SEMAPHORE_BITS, w & 0xff);
    t.bits("v", 2, w >> 8 & 0xff);
    bit(t, "p", w >> 16 & 1 != 0);
    bit(t, "p_wait", w >> 17 & 1 != 0);
    bit(t, "overflow", w >> 18 & 1 != 0);
}
