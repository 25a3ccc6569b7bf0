//! The BS port in the waveform: scope `bs_port` (the Ring input, `rxfifo`, `parser`: the
//! command being executed and its progress, and the transmitter's `tx`).

use super::{BsPort, BsState};
use crate::cause::Cause;
use crate::ring::trace::{decode_tx, trace_ring, trace_rxfifo};
use crate::trace::{bit, words, Tracer};

impl BsPort {
    /// Everything [`BsPort::trace`] shows, packed exactly ([`decode_bs_port`] shows it).
    pub fn trace_words(&self) -> [u64; 6] {
        let (a, sector, scanline) = self.state_fields();
        let (b, c) = (sector as u64, scanline as u64);
        let [t0, t1] = self.tx.trace_words();
        [
            // The receiver's Ring input, RxReady and overrun (its word's bits 0..35).
            self.rx.trace_word() & 0xf_ffff_ffff
                | (self.fifo_read as u64) << 36
                | (self.cause as u64) << 40
                | self.state.code() << 48
                | b << 56,
            self.rx.rxfifo.len() as u64 | c << 32,
            a,
            self.commands,
            t0,
            t1,
        ]
    }

    /// The current command's fields the waveform shows, packed: its arguments or progress
    /// (one word), the sector and the scanline.
    fn state_fields(&self) -> (u64, u8, u8) {
        match self.state {
            BsState::Receive {
                sector,
                scanline,
                total,
                k,
            } => (k as u64 | (total as u64) << 32, sector, scanline),
            BsState::StatusAddr { id } => (id as u64, 0, 0),
            BsState::StatusSend { id, dest } => (id as u64 | (dest as u64) << 32, 0, 0),
            BsState::TransmitAddr {
                sector,
                scanline,
                no_scanlines,
            } => (no_scanlines as u64, sector, scanline),
            BsState::Transmit {
                sector,
                scanline,
                dest,
            } => (dest as u64, sector, scanline),
            _ => (0, 0, 0),
        }
    }

    /// The port as scope `bs_port` of the caller's (the board's) scope: one record,
    /// [`BsPort::trace_words`]'s words.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        t.record("bs_port", &self.trace_words(), decode_bs_port);
    }
}

/// A state of each code ([`BsState::code`]), for its name and command.
const STATES: [BsState; 9] = [
    BsState::Opcode,
    BsState::StatusId,
    BsState::StatusAddr { id: 0 },
    BsState::StatusSend { id: 0, dest: 0 },
    BsState::Receive {
        sector: 0,
        scanline: 0,
        total: 0,
        k: 0,
    },
    BsState::TransmitAddr {
        sector: 0,
        scanline: 0,
        no_scanlines: 0,
    },
    BsState::Transmit {
        sector: 0,
        scanline: 0,
        dest: 0,
    },
    BsState::Pbs,
    BsState::Skip,
];

/// The port's signals from [`BsPort::trace_words`]'s words: the Ring input, `rxfifo`,
/// `parser` and the transmitter's `tx`.
fn decode_bs_port(w: &[u64], t: &mut dyn Tracer) {
    let [w0, w1, a, commands, t0, t1] = words(w);
    // The receiver's word as `Receiver::trace_word` packs it: the Ring input and overrun
    // (bits 0..35), the FIFO empty (36) and its level (40..).
    let level = w1 & 0xffff_ffff;
    let rx = w0 & 0xf_ffff_ffff | ((level == 0) as u64) << 36 | level << 40;
    trace_ring(rx, t);
    t.push_scope("rxfifo");
    trace_rxfifo(rx, t);
    bit(t, "read", w0 >> 36 & 1 != 0);
    t.pop_scope();
    t.push_scope("parser");
    let state = STATES
        .get((w0 >> 48 & 0xff) as usize)
        .copied()
        .unwrap_or(BsState::Opcode);
    let cause = Cause::ALL
        .get((w0 >> 40 & 0xff) as usize)
        .copied()
        .unwrap_or(Cause::Idle);
    t.text_static("state", state.name());
    t.text_static("command", state.command().unwrap_or("-"));
    t.text_static("cause", cause.name());
    t.bits("sector", 7, w0 >> 56);
    t.bits("scanline", 7, w1 >> 32);
    let (k, total) = match state {
        BsState::Receive { .. } => (a & 0xffff_ffff, a >> 32),
        _ => (0, 0),
    };
    t.bits("words_done", 15, k);
    t.bits("words_total", 15, total);
    t.bits("commands", 32, commands);
    t.pop_scope();
    t.push_scope("tx");
    decode_tx(&[t0, t1], t);
    t.pop_scope();
}

#[cfg(test)]
mod tests {
    use super::STATES;
    use crate::cause::Cause;

    #[test]
    fn the_codes_name_the_states_and_causes() {
        for (k, s) in STATES.iter().enumerate() {
            assert_eq!(s.code(), k as u64);
        }
        for (k, c) in Cause::ALL.iter().enumerate() {
            assert_eq!(*c as usize, k);
        }
    }
}
