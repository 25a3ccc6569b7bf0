//! The IGC Ring port: the Ring receiver, the RxFIFO and the Stream Parser
//! (seed 003 §III.4.1-1, §III.4.1-3).

pub mod messages;
pub mod parser;
pub use crate::ring::rxfifo;

use crate::trace::{bit, Traced, Tracer};
use messages::MessageUnit;
use parser::StreamParser;
use rxfifo::{RxFifo, RxWord, RXFIFO_WORDS};

/// Largest message, destination word included (seed §III.4.1-3: half the FIFO depth).
pub const MAX_MESSAGE_WORDS: usize = RXFIFO_WORDS / 2;

/// The port.
#[derive(Clone, Debug)]
pub struct IgcPort {
    pub rxfifo: RxFifo,
    pub parser: StreamParser,
    /// Status and error messages, and the port's transmitter.
    pub messages: MessageUnit,
    /// The Ring word delivered this cycle (for the waveform).
    pub ring_valid: bool,
    pub ring_word: u32,
    pub ring_sop: bool,
    /// A word was lost to a full RxFIFO this cycle (the overwrite error strobe).
    pub overrun: bool,
}

impl IgcPort {
    /// A port with an RxFIFO of `fifo_words` words.
    pub fn new(fifo_words: usize) -> Self {
        IgcPort {
            rxfifo: RxFifo::new(fifo_words),
            parser: StreamParser::new(),
            messages: MessageUnit::default(),
            ring_valid: false,
            ring_word: 0,
            ring_sop: false,
            overrun: false,
        }
    }

    /// RxReady towards the Ring: a sender may start a message.
    pub fn rx_ready(&self) -> bool {
        self.rxfifo.rx_ready()
    }

    /// The Ring side of one cycle: clears last cycle's pulses and takes the word the Ring
    /// delivers this cycle, if any (at most one per 20 MHz cycle). Returns false if a word
    /// was lost because the FIFO was full.
    pub fn ring_cycle(&mut self, input: Option<(u32, bool)>) -> bool {
        self.ring_valid = false;
        self.overrun = false;
        let Some((word, sop)) = input else {
            return true;
        };
        self.ring_valid = true;
        self.ring_word = word;
        self.ring_sop = sop;
        let ok = self.rxfifo.push(RxWord { word, sop });
        self.overrun |= !ok;
        ok
    }
}

impl Default for IgcPort {
    fn default() -> Self {
        Self::new(RXFIFO_WORDS)
    }
}

impl Traced for IgcPort {
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        self.trace_with(t, None);
    }
}

impl IgcPort {
    /// [`Traced::trace`], with the message unit skipped while `messages_key` (if given) is
    /// unchanged: the board's key of its usually idle blocks (`Renderer::slow_version`).
    #[inline]
    pub fn trace_with<T: Tracer + ?Sized>(&self, t: &mut T, messages_key: Option<u64>) {
        if !t.enter("igc_port", None) {
            return;
        }
        // The receive side changes with most Ring words: a record, decoded by the writer.
        let [p0, p1, p2] = self.parser.trace_key();
        let words = [
            self.ring_word as u64
                | (self.ring_valid as u64) << 32
                | (self.ring_sop as u64) << 33
                | (self.rx_ready() as u64) << 34
                | (self.overrun as u64) << 35
                | (self.rxfifo.is_empty() as u64) << 36
                | (self.rxfifo.len() as u64) << 40,
            p0,
            p1,
            p2,
        ];
        t.record_group(&words, decode_receive);
        match messages_key {
            Some(k) => {
                if t.group(&[k]) {
                    self.messages.trace(t);
                    t.end_group();
                }
            }
            None => self.messages.trace(t),
        }
        t.pop_scope();
    }
}

/// The receive side (Ring input, RxFIFO, Stream Parser) from its record.
fn decode_receive(w: &[u64], t: &mut dyn Tracer) {
    let w0 = w.first().copied().unwrap_or(0);
    bit(t, "ring_valid", w0 >> 32 & 1 != 0);
    t.bits("ring_word", 32, w0 & 0xffff_ffff);
    bit(t, "ring_sop", w0 >> 33 & 1 != 0);
    bit(t, "RxReady", w0 >> 34 & 1 != 0);
    t.push_scope("rxfifo");
    t.bits("level", 13, w0 >> 40 & 0xffff);
    bit(t, "empty", w0 >> 36 & 1 != 0);
    bit(t, "overrun", w0 >> 35 & 1 != 0);
    t.pop_scope();
    t.push_scope("parser");
    parser::decode_parser(w.get(1..).unwrap_or(&[]), t);
    t.pop_scope();
}
