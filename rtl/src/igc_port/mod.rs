//! The IGC Ring port: the Ring receiver, the RxFIFO and the Stream Parser
//! (seed 003 §III.4.1-1, §III.4.1-3).

pub mod messages;
pub mod parser;
pub use crate::ring::rxfifo;

use crate::ring::receiver::Receiver;
use crate::ring::trace::{trace_ring, trace_rxfifo};
use crate::trace::{Traced, Tracer};
use messages::MessageUnit;
use parser::StreamParser;
use rxfifo::RXFIFO_WORDS;

/// Largest message, destination word included (seed §III.4.1-3: half the FIFO depth).
pub const MAX_MESSAGE_WORDS: usize = RXFIFO_WORDS / 2;

/// The port.
#[derive(Clone, Debug)]
pub struct IgcPort {
    /// The Ring receiver and the RxFIFO.
    pub rx: Receiver,
    pub parser: StreamParser,
    /// Status and error messages, and the port's transmitter.
    pub messages: MessageUnit,
}

impl IgcPort {
    /// A port with an RxFIFO of `fifo_words` words.
    pub fn new(fifo_words: usize) -> Self {
        IgcPort {
            rx: Receiver::new(fifo_words),
            parser: StreamParser::new(),
            messages: MessageUnit::default(),
        }
    }

    /// RxReady towards the Ring: a sender may start a message.
    pub fn rx_ready(&self) -> bool {
        self.rx.rx_ready()
    }

    /// The Ring side of one cycle ([`Receiver::cycle`]). Returns false if a word was lost
    /// because the FIFO was full.
    pub fn ring_cycle(&mut self, input: Option<(u32, bool)>) -> bool {
        self.rx.cycle(input)
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
        let words = [self.rx.trace_word(), p0, p1, p2];
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
    trace_ring(w0, t);
    t.push_scope("rxfifo");
    trace_rxfifo(w0, t);
    t.pop_scope();
    t.push_scope("parser");
    parser::decode_parser(w.get(1..).unwrap_or(&[]), t);
    t.pop_scope();
}
