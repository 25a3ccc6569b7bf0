//! A port's Ring transmitter: sends one message at a time, one 32-bit word per 20 MHz slot in
//! which the Ring asserts TxReady for the port (seed 003 §III.4.1-5: "TxReady asserted on BS
//! Port / IGC Port", status bits 6 and 7).
//!
//! TxReady is an input from the Ring (the simulator's Ring model drives it). The model checks
//! it per word, so a message whose receiver stops accepting mid-way waits word by word
//! (docs/model-choices.md, "Ring transmitters"). The owner of the transmitter supplies the
//! words one at a time ([`Transmitter::send`]), so a data message can read backing store as
//! it goes, as the hardware's serial port does.

use super::PortId;
use crate::trace::{Wave, WaveEnum};

/// What kind of message a port sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, WaveEnum)]
pub enum MsgKind {
    /// A status message (SENDSTATUS on either port): destination, ID, status word.
    Status,
    /// An error message (IGC port only, to Ring address 0): same format as a status message.
    Error,
    /// Backing-store data (BS_TRANSMIT): destination, then 128 words per scanline.
    Data,
}

impl MsgKind {
    /// Name shown in reports and the waveform.
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }
}

/// A message the board sent onto the Ring, complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutMessage {
    /// The port that sent it.
    pub port: PortId,
    pub kind: MsgKind,
    /// 40 MHz cycle in which its first (destination) word went out.
    pub start: u64,
    /// 40 MHz cycle in which its last word went out.
    pub end: u64,
    /// The words as they went out: destination first.
    pub words: Vec<u32>,
}

impl OutMessage {
    /// An error message.
    pub fn is_error(&self) -> bool {
        self.kind == MsgKind::Error
    }

    /// The destination word.
    pub fn dest(&self) -> u32 {
        self.words.first().copied().unwrap_or(0)
    }
}

/// The transmitter's registers, in the order the waveform shows them (scope `tx`).
#[derive(Clone, Debug, Wave)]
#[wave(part)]
pub struct Transmitter {
    /// TxReady from the Ring this cycle.
    #[wave(rename = "TxReady")]
    pub tx_ready: bool,
    /// The message being sent (`None`: idle), shown as its kind.
    #[wave(name, none = "IDLE", rename = "kind", ty = Option<MsgKind>, get = self.kind())]
    #[wave(before(busy: 1 = cur.is_some()))]
    cur: Option<OutMessage>,
    /// A word went out this cycle (for the waveform).
    pub valid: bool,
    /// The word that went out is a destination word.
    pub sop: bool,
    /// The word that went out this cycle (held).
    pub word: u32,
    /// Words still to send of the current message, the one in flight included.
    #[wave(bits = 15)]
    pub(super) remaining: usize,
    #[wave(skip)]
    port: PortId,
    /// Words sent since reset.
    #[wave(skip)]
    pub words_sent: u64,
}

impl Transmitter {
    /// An idle transmitter of `port`.
    pub fn new(port: PortId) -> Self {
        Transmitter {
            port,
            cur: None,
            remaining: 0,
            tx_ready: true,
            valid: false,
            word: 0,
            sop: false,
            words_sent: 0,
        }
    }

    /// A message is being sent.
    pub fn busy(&self) -> bool {
        self.cur.is_some()
    }

    /// Words still to send of the current message, the one in flight included.
    pub fn remaining(&self) -> usize {
        self.remaining
    }

    /// Kind of the message being sent.
    pub fn kind(&self) -> Option<MsgKind> {
        self.cur.as_ref().map(|m| m.kind)
    }

    /// Begin a message of `len` words (destination included, at least 1). The owner then
    /// supplies the words with [`Transmitter::send`] whenever [`Transmitter::slot`] allows.
    /// Ignored while busy (owners check [`Transmitter::busy`] first).
    pub fn begin(&mut self, kind: MsgKind, len: usize) {
        if self.cur.is_some() || len == 0 {
            return;
        }
        self.cur = Some(OutMessage {
            port: self.port,
            kind,
            start: 0,
            end: 0,
            words: Vec::with_capacity(len),
        });
        self.remaining = len;
    }

    /// Start of a cycle: clears last cycle's pulse and takes TxReady from the Ring.
    pub fn clock(&mut self, tx_ready: bool) {
        self.valid = false;
        self.sop = false;
        self.tx_ready = tx_ready;
    }

    /// Whether a word may go out this cycle: a message is being sent, this is a 20 MHz slot
    /// and TxReady is asserted.
    pub fn slot(&self, ring_slot: bool) -> bool {
        self.cur.is_some() && ring_slot && self.tx_ready
    }

    /// Index of the next word of the current message (0 = destination).
    pub fn next_index(&self) -> usize {
        self.cur.as_ref().map_or(0, |m| m.words.len())
    }

    /// Send the next word of the current message in cycle `cycle` (only when
    /// [`Transmitter::slot`] said so). Returns the message when this was its last word.
    pub fn send(&mut self, cycle: u64, word: u32) -> Option<OutMessage> {
        let m = self.cur.as_mut()?;
        if m.words.is_empty() {
            m.start = cycle;
            self.sop = true;
        }
        m.words.push(word);
        m.end = cycle;
        self.valid = true;
        self.word = word;
        self.words_sent += 1;
        self.remaining -= 1;
        if self.remaining == 0 {
            return self.cur.take();
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sends_one_word_per_ready_slot() {
        let mut t = Transmitter::new(PortId::Bs);
        t.begin(MsgKind::Status, 3);
        let mut out = None;
        for c in 0..10u64 {
            t.clock(c != 2);
            if t.slot(c % 2 == 0) {
                let w = t.next_index() as u32 + 100;
                out = t.send(c, w).or(out);
            }
        }
        let m = out.expect("sent");
        assert_eq!(m.words, vec![100, 101, 102]);
        assert_eq!((m.start, m.end), (0, 6), "slot 2 had TxReady low");
        assert!(!t.busy());
    }
}
