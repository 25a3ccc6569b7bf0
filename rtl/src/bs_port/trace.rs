//! The BS port in the waveform: scope `bs_port` (the Ring input, `rxfifo`, `parser`: the
//! command being executed and its progress, and the transmitter's `tx`), one record.

use super::{BsPort, BsState};
use crate::cause::Cause;
use crate::ring::trace::{RingInput, RxFifoWave};
use crate::ring::tx::Transmitter;
use crate::trace::{Tracer, Wave};

#[derive(Wave)]
struct BsPortWave<'a> {
    #[wave(flatten)]
    ring: RingInput,
    rxfifo: FifoWave,
    parser: ParserWave,
    tx: &'a Transmitter,
}

#[derive(Wave)]
struct FifoWave {
    #[wave(flatten)]
    fifo: RxFifoWave,
    read: bool,
}

/// The command being executed and its progress.
#[derive(Wave)]
struct ParserWave {
    #[wave(name, then(command: text = state.command().unwrap_or("-")))]
    state: BsState,
    cause: Cause,
    #[wave(bits = 7)]
    sector: u8,
    #[wave(bits = 7)]
    scanline: u8,
    #[wave(bits = 15)]
    words_done: u32,
    #[wave(bits = 15)]
    words_total: u32,
    #[wave(bits = 32)]
    commands: u64,
}

impl BsPort {
    /// The port as scope `bs_port` of the caller's (the board's) scope.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        let (ring, fifo) = self.rx.wave();
        let ((sector, scanline), (words_done, words_total)) = match self.state {
            BsState::Receive {
                sector,
                scanline,
                total,
                k,
            } => ((sector, scanline), (k, total)),
            BsState::TransmitAddr {
                sector, scanline, ..
            }
            | BsState::Transmit {
                sector, scanline, ..
            } => ((sector, scanline), (0, 0)),
            _ => ((0, 0), (0, 0)),
        };
        let parser = ParserWave {
            state: self.state,
            cause: self.cause,
            sector,
            scanline,
            words_done,
            words_total,
            commands: self.commands,
        };
        BsPortWave {
            ring,
            rxfifo: FifoWave {
                fifo,
                read: self.fifo_read,
            },
            parser,
            tx: &self.tx,
        }
        .record(t, "bs_port");
    }
}
