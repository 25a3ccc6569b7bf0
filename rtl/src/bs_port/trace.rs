//! The BS port in the waveform: scope `bs_port` (the Ring input, `rxfifo`, `parser`: the
//! command being executed and its progress, and the transmitter's `tx`).

use super::{BsPort, BsState};
use crate::ring::trace::{trace_ring, trace_rxfifo};
use crate::trace::{bit, Tracer};

impl BsPort {
    /// Everything [`BsPort::trace`] shows, packed exactly (the board skips the port's whole
    /// scope when it is unchanged).
    pub fn trace_key(&self) -> [u64; 6] {
        let (a, sector, scanline) = self.state_fields();
        let (b, c) = (sector as u64, scanline as u64);
        let [t0, t1] = self.tx.trace_key();
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

    /// Walk the port's signals as scope `bs_port` (the caller's board scope).
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        if !t.enter("bs_port", None) {
            return;
        }
        let rx = self.rx.trace_word();
        // The Ring input and RxReady: the word's bits 0..34.
        let ring_key = rx & 0x7_ffff_ffff;
        if t.group(&[ring_key]) {
            trace_ring(rx, t);
            t.end_group();
        }
        let fifo_key = self.rx.rxfifo.len() as u64
            | (self.rx.overrun as u64) << 32
            | (self.fifo_read as u64) << 33;
        if t.enter("rxfifo", Some(fifo_key)) {
            trace_rxfifo(rx, t);
            bit(t, "read", self.fifo_read);
            t.pop_scope();
        }
        let (a, sector, scanline) = self.state_fields();
        let parser_key = [
            self.state.code()
                | (self.cause as u64) << 8
                | (sector as u64) << 16
                | (scanline as u64) << 24,
            a,
            self.commands,
        ];
        if t.enter_keyed("parser", &parser_key) {
            t.text_static("state", self.state.name());
            t.text_static("command", self.state.command().unwrap_or("-"));
            t.text_static("cause", self.cause.name());
            t.bits("sector", 7, sector as u64);
            t.bits("scanline", 7, scanline as u64);
            let (k, total) = match self.state {
                BsState::Receive { k, total, .. } => (k, total),
                _ => (0, 0),
            };
            t.bits("words_done", 15, k as u64);
            t.bits("words_total", 15, total as u64);
            t.bits("commands", 32, self.commands);
            t.pop_scope();
        }
        self.tx.trace(t);
        t.pop_scope();
    }
}
