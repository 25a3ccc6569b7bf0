//! The IGC Ring port: the Ring receiver, the RxFIFO and the Stream Parser
//! (seed 003 §III.4.1-1, §III.4.1-3).

pub mod messages;
pub mod parser;
mod trace;
pub use crate::ring::rxfifo;

use crate::ring::receiver::Receiver;
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
