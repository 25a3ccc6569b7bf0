//! The transfer unit in the waveform: scope `transfer` (direction, sector, progress, the
//! pending VBSlater).

use super::transfer::{TransferUnit, XFER_PES_PER_STEP};
use super::ARRAY_DIM;
use crate::trace::{bit, Tracer};

impl TransferUnit {
    /// Everything [`TransferUnit::trace`] shows, packed exactly.
    pub fn trace_key(&self) -> [u64; 2] {
        [
            self.active
                .map_or(0, |(d, s)| 1 | (d as u64) << 1 | (s as u64) << 2)
                | (self.vbs_later as u64) << 10
                | (self.done as u64) << 11
                | (self.step as u64) << 12,
            self.completed,
        ]
    }

    /// Walk the unit's signals as scope `transfer`.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        let key = self.trace_key();
        if !t.enter_keyed("transfer", &key) {
            return;
        }
        t.text_static("state", self.active.map_or("IDLE", |(d, _)| d.name()));
        bit(t, "busy", self.busy());
        t.bits("sector", 7, self.active.map_or(0, |a| a.1) as u64);
        t.bits("step", 13, self.step as u64);
        t.bits(
            "scanline",
            7,
            (self.step as usize * XFER_PES_PER_STEP / ARRAY_DIM).min(ARRAY_DIM - 1) as u64,
        );
        bit(t, "vbs_later", self.vbs_later);
        bit(t, "done", self.done);
        t.bits("completed", 32, self.completed);
        t.pop_scope();
    }
}
