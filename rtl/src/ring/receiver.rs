//! A port's Ring receiver (seed 003 §III.4.1-3): takes the word the Ring delivers in a
//! 20 MHz slot, with its start-of-message tag, into the port's [`RxFifo`]; asserts RxReady
//! while the FIFO has room for a whole maximum-size message (half its depth); counts the
//! words lost to a full FIFO (the RxFIFO-overwritten error strobe). The IGC port and the
//! BS port each have one.

use super::rxfifo::{RxFifo, RxWord};

/// The receiver: the RxFIFO and the Ring input of the current cycle.
#[derive(Clone, Debug)]
pub struct Receiver {
    /// The receive FIFO the port's parser reads.
    pub rxfifo: RxFifo,
    /// A Ring word was delivered this cycle.
    pub valid: bool,
    /// The Ring word delivered (the last one, when `valid` is false).
    pub word: u32,
    /// The delivered word starts a message (it is the destination word).
    pub sop: bool,
    /// A word was lost to a full RxFIFO this cycle (the overwrite error strobe).
    pub overrun: bool,
}

impl Receiver {
    /// A receiver with an RxFIFO of `fifo_words` words, after Ring reset.
    pub fn new(fifo_words: usize) -> Self {
        Receiver {
            rxfifo: RxFifo::new(fifo_words),
            valid: false,
            word: 0,
            sop: false,
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
    pub fn cycle(&mut self, input: Option<(u32, bool)>) -> bool {
        self.valid = false;
        self.overrun = false;
        let Some((word, sop)) = input else {
            return true;
        };
        self.valid = true;
        self.word = word;
        self.sop = sop;
        let ok = self.rxfifo.push(RxWord { word, sop });
        self.overrun = !ok;
        ok
    }
}
