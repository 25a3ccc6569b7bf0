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
        let [p0, p1, p2] = self.parser.trace_key();
        let key = [
            self.ring_word as u64
                | (self.ring_valid as u64) << 32
                | (self.ring_sop as u64) << 33
                | (self.rx_ready() as u64) << 34
                | (self.overrun as u64) << 35,
            self.rxfifo.len() as u64,
            p0,
            p1,
            p2,
        ];
        if !t.enter("igc_port", None) {
            return;
        }
        if t.group(&key) {
            self.trace_receive(t);
            t.end_group();
        }
        self.messages.trace(t);
        t.pop_scope();
    }
}

impl IgcPort {
    /// The receive side: Ring input, RxFIFO, Stream Parser.
    fn trace_receive<T: Tracer + ?Sized>(&self, t: &mut T) {
        bit(t, "ring_valid", self.ring_valid);
        t.bits("ring_word", 32, self.ring_word as u64);
        bit(t, "ring_sop", self.ring_sop);
        bit(t, "RxReady", self.rx_ready());
        if t.enter("rxfifo", None) {
            t.bits("level", 13, self.rxfifo.len() as u64);
            bit(t, "empty", self.rxfifo.is_empty());
            bit(t, "overrun", self.overrun);
            t.pop_scope();
        }
        self.parser.trace(t);
    }
}
