//! The BS port in the waveform: scope `bs_port` (the Ring input, `rxfifo`, `parser`: the
//! command being executed and its progress, and the transmitter's `tx`), one record.

use super::{BsPort, BsState};
use crate::cause::Cause;
use crate::ring::trace::{RingInput, RxFifoWave};
use crate::ring::tx::Transmitter;
use crate::trace::{wave_view, Tracer, Wave};

#[derive(Wave)]
struct BsPortWave<'a> {
    #[wave(flatten)]
    ring: RingInput<'a>,
    rxfifo: FifoWave<'a>,
    parser: ParserWave<'a>,
    tx: &'a Transmitter,
}

#[derive(Wave)]
struct FifoWave<'a> {
    #[wave(flatten)]
    fifo: RxFifoWave<'a>,
    read: bool,
}

/// The command being executed and its progress.
#[wave_view(BsPort)]
struct ParserWave {
    #[wave(name, then(command: text = state.command().unwrap_or("-")))]
    state: BsState,
    cause: Cause,
    #[wave(bits = 7, get = self.progress().0)]
    sector: u8,
    #[wave(bits = 7, get = self.progress().1)]
    scanline: u8,
    #[wave(bits = 15, get = self.progress().2)]
    words_done: u32,
    #[wave(bits = 15, get = self.progress().3)]
    words_total: u32,
    #[wave(bits = 32)]
    commands: u64,
}

impl BsPort {
    /// The command's sector, scanline, words done and words in all (0 where it has none).
    #[inline(always)]
    fn progress(&self) -> (u8, u8, u32, u32) {
        match self.state {
            BsState::Receive {
                sector,
                scanline,
                total,
                k,
            } => (sector, scanline, k, total),
            BsState::TransmitAddr {
                sector, scanline, ..
            }
            | BsState::Transmit {
                sector, scanline, ..
            } => (sector, scanline, 0, 0),
            _ => (0, 0, 0, 0),
        }
    }

    /// The port as scope `bs_port` of the caller's (the board's) scope.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        BsPortWave {
            ring: RingInput(&self.rx),
            rxfifo: FifoWave {
                fifo: RxFifoWave(&self.rx),
                read: self.fifo_read,
            },
            parser: ParserWave(self),
            tx: &self.tx,
        }
        .record(t, "bs_port");
    }
}
