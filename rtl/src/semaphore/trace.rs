//! A semaphore in the waveform: scope `bs_sem` or `igc_sem` (the counter and this cycle's
//! requests), its registers as one record (`#[derive(Wave)]` on [`Semaphore`]).

use super::Semaphore;
use crate::trace::Tracer;

impl Semaphore {
    /// The semaphore as scope `name`.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, name: &str) {
        t.record(name, &self.words(), Semaphore::decode);
    }
}
