//! The Ring side of the ports in the waveform: the receiver's signals (`ring_valid`,
//! `ring_word`, `ring_sop`, `RxReady` in the port's scope, `level`, `empty`, `overrun` in its
//! `rxfifo` scope) and the transmitter's (scope `tx`).

use super::receiver::Receiver;
use super::tx::Transmitter;
use crate::trace::{bit, words, Tracer};

impl Receiver {
    /// Everything the receiver shows, packed in one word: the Ring word (bits 0..31), valid
    /// (32), sop (33), RxReady (34), overrun (35), the FIFO empty (36) and its level (40..).
    /// [`trace_ring`] and [`trace_rxfifo`] show the signals from it.
    pub(crate) fn trace_word(&self) -> u64 {
        self.word as u64
            | (self.valid as u64) << 32
            | (self.sop as u64) << 33
            | (self.rx_ready() as u64) << 34
            | (self.overrun as u64) << 35
            | (self.rxfifo.is_empty() as u64) << 36
            | (self.rxfifo.len() as u64) << 40
    }
}

/// The Ring input (`ring_valid`, `ring_word`, `ring_sop`, `RxReady`) from
/// [`Receiver::trace_word`]'s word.
pub(crate) fn trace_ring<T: Tracer + ?Sized>(w: u64, t: &mut T) {
    bit(t, "ring_valid", w >> 32 & 1 != 0);
    t.bits("ring_word", 32, w & 0xffff_ffff);
    bit(t, "ring_sop", w >> 33 & 1 != 0);
    bit(t, "RxReady", w >> 34 & 1 != 0);
}

/// The RxFIFO's `level`, `empty` and `overrun` (inside its scope) from
/// [`Receiver::trace_word`]'s word.
pub(crate) fn trace_rxfifo<T: Tracer + ?Sized>(w: u64, t: &mut T) {
    t.bits("level", 13, w >> 40 & 0xffff);
    bit(t, "empty", w >> 36 & 1 != 0);
    bit(t, "overrun", w >> 35 & 1 != 0);
}

impl Transmitter {
    /// Everything the transmitter shows, packed ([`decode_tx`] shows it): the word
    /// (bits 0..31), valid (32), sop (33), TxReady (34), the message's kind (35.., 0 when
    /// idle); the words remaining.
    pub fn trace_words(&self) -> [u64; 2] {
        [
            self.word as u64
                | (self.valid as u64) << 32
                | (self.sop as u64) << 33
                | (self.tx_ready as u64) << 34
                | (self.kind().map_or(0, |k| k as u64 + 1)) << 35,
            self.remaining as u64,
        ]
    }

    /// The transmitter as scope `tx` of the caller's (the port's) scope.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        t.record("tx", &self.trace_words(), decode_tx);
    }
}

/// The kinds by their code in [`Transmitter::trace_words`] (0: idle).
const TX_KINDS: [&str; 4] = ["IDLE", "STATUS", "ERROR", "DATA"];

/// The transmitter's signals from [`Transmitter::trace_words`]'s words (inside its `tx`
/// scope).
pub(crate) fn decode_tx(w: &[u64], t: &mut dyn Tracer) {
    let [w0, w1] = words(w);
    let kind = (w0 >> 35 & 3) as usize;
    bit(t, "TxReady", w0 >> 34 & 1 != 0);
    bit(t, "busy", kind != 0);
    t.text_static("kind", TX_KINDS[kind]);
    bit(t, "valid", w0 >> 32 & 1 != 0);
    bit(t, "sop", w0 >> 33 & 1 != 0);
    t.bits("word", 32, w0 & 0xffff_ffff);
    t.bits("remaining", 15, w1);
}

#[cfg(test)]
mod tests {
    use super::TX_KINDS;
    use crate::ring::tx::MsgKind;

    #[test]
    fn the_kind_codes_name_the_kinds() {
        for k in [MsgKind::Status, MsgKind::Error, MsgKind::Data] {
            assert_eq!(TX_KINDS[k as usize + 1], k.name());
        }
    }
}
