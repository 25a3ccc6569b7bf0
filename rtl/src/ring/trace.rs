//! The Ring side of the ports in the waveform: the receiver's signals (`ring_valid`,
//! `ring_word`, `ring_sop`, `RxReady` in the port's scope, `level`, `empty`, `overrun` in its
//! `rxfifo` scope); the transmitter's registers are their own record part (scope `tx`).

use super::receiver::Receiver;
use crate::trace::wave_view;

/// The receiver's Ring input, in the port's scope.
#[wave_view(Receiver)]
pub(crate) struct RingInput {
    #[wave(get = self.valid)]
    ring_valid: bool,
    #[wave(get = self.word)]
    ring_word: u32,
    #[wave(get = self.sop)]
    ring_sop: bool,
    #[wave(rename = "RxReady", get = self.rx_ready())]
    rx_ready: bool,
}

/// The receiver's RxFIFO (scope `rxfifo`).
#[wave_view(Receiver)]
pub(crate) struct RxFifoWave {
    #[wave(bits = 13, get = self.rxfifo.len(), then(empty: 1 = level == 0))]
    level: usize,
    overrun: bool,
}
