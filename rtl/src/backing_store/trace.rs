//! The transfer unit in the waveform: scope `transfer` (direction, sector, progress, the
//! pending VBSlater).

use super::transfer::{TransferUnit, XferDir, XFER_PES_PER_STEP};
use super::ARRAY_DIM;
use crate::trace::{bit, words, Tracer};

impl TransferUnit {
    /// Everything the unit shows, packed ([`decode_transfer`] shows it).
    pub fn trace_words(&self) -> [u64; 2] {
        [
            self.active
                .map_or(0, |(d, s)| 1 | (d as u64) << 1 | (s as u64) << 2)
                | (self.vbs_later as u64) << 10
                | (self.done as u64) << 11
                | (self.step as u64) << 12,
            self.completed,
        ]
    }

    /// The unit as scope `transfer`.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        t.record("transfer", &self.trace_words(), decode_transfer);
    }
}

/// The unit's signals from [`TransferUnit::trace_words`]'s words.
fn decode_transfer(w: &[u64], t: &mut dyn Tracer) {
    let [w0, completed] = words(w);
    let busy = w0 & 1 != 0;
    let dir = if w0 >> 1 & 1 == XferDir::Load as u64 {
        XferDir::Load
    } else {
        XferDir::Store
    };
    let step = w0 >> 12 & 0xffff_ffff;
    t.text_static("state", if busy { dir.name() } else { "IDLE" });
    bit(t, "busy", busy);
    t.bits("sector", 7, w0 >> 2 & 0xff);
    t.bits("step", 13, step);
    t.bits(
        "scanline",
        7,
        (step as usize * XFER_PES_PER_STEP / ARRAY_DIM).min(ARRAY_DIM - 1) as u64,
    );
    bit(t, "vbs_later", w0 >> 10 & 1 != 0);
    bit(t, "done", w0 >> 11 & 1 != 0);
    t.bits("completed", 32, completed);
}
