//! A semaphore in the waveform: scope `bs_sem` or `igc_sem` (the counter and this cycle's
//! requests).

use super::{Semaphore, SEMAPHORE_BITS};
use crate::trace::{bit, Tracer};

impl Semaphore {
    /// Everything [`Semaphore::trace`] shows, packed exactly.
    pub fn trace_key(&self) -> u64 {
        self.count as u64
            | (self.v as u64) << 8
            | (self.p as u64) << 16
            | (self.p_wait as u64) << 17
            | (self.overflow as u64) << 18
    }

    /// Walk the semaphore's signals as scope `name`.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, name: &str) {
        let key = self.trace_key();
        if !t.enter(name, Some(key)) {
            return;
        }
        t.bits("count", SEMAPHORE_BITS, self.count as u64);
        t.bits("v", 2, self.v as u64);
        bit(t, "p", self.p);
        bit(t, "p_wait", self.p_wait);
        bit(t, "overflow", self.overflow);
        t.pop_scope();
    }
}
