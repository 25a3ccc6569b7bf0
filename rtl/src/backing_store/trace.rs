//! The transfer unit in the waveform: scope `transfer` (direction, sector, progress, the
//! pending VBSlater).

use super::transfer::{TransferUnit, XferDir, XFER_PES_PER_STEP};
use super::ARRAY_DIM;
use crate::trace::{wave_view, Tracer};

#[wave_view(TransferUnit)]
struct TransferWave {
    #[wave(name, none = "IDLE", get = self.active.map(|a| a.0), then(busy: 1 = state.is_some()))]
    state: Option<XferDir>,
    #[wave(bits = 7, get = self.active.map_or(0, |a| a.1))]
    sector: u8,
    #[wave(bits = 13, then(scanline: 7 = (step as usize * XFER_PES_PER_STEP / ARRAY_DIM).min(ARRAY_DIM - 1)))]
    step: u32,
    vbs_later: bool,
    done: bool,
    #[wave(bits = 32)]
    completed: u64,
}

impl TransferUnit {
    /// The unit as scope `transfer`.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        TransferWave(self).record(t, "transfer");
    }
}
