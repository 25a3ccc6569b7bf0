//! The Ring side of the ports in the waveform: the receiver's signals (`ring_valid`,
//! `ring_word`, `ring_sop`, `RxReady` in the port's scope, `level`, `empty`, `overrun` in its
//! `rxfifo` scope); the transmitter's registers are their own record part (scope `tx`).

use super::receiver::Receiver;
use crate::trace::Wave;

/// The receiver's Ring input, in the port's scope.
#[derive(Wave)]
pub(crate) struct RingInput {
    ring_valid: bool,
    ring_word: u32,
    ring_sop: bool,
    #[wave(rename = "RxReady")]
    rx_ready: bool,
}

/// The receiver's RxFIFO (scope `rxfifo`).
#[derive(Wave)]
pub(crate) struct RxFifoWave {
    #[wave(bits = 13, then(empty: 1 = level == 0))]
    level: usize,
    overrun: bool,
}

impl Receiver {
    /// The Ring input and the RxFIFO as the waveform shows them.
    pub(crate) fn wave(&self) -> (RingInput, RxFifoWave) {
        let ring = RingInput {
            ring_valid: self.valid,
            ring_word: self.word,
            ring_sop: self.sop,
            rx_ready: self.rx_ready(),
        };
        let fifo = RxFifoWave {
            level: self.rxfifo.len(),
            overrun: self.overrun,
        };
        (ring, fifo)
    }
}
