//! The receive FIFO (RxFIFO) of a Ring port (the IGC port and the BS port each have one).
//!
//! Seed 003 §III.4.1-3: "FIFOs for both the BS and IGC Ports will be 2Kwords deep (perhaps
//! upgraded to 4K later), so the maximum message size will be 1024 words". Each entry carries
//! the Ring word and a start-of-message tag, which is how the Stream Parser sees message
//! boundaries. A word arriving when the FIFO is full is lost and the RxFIFO-overwritten error
//! is raised (status bit 27 for the IGC port, 26 for the BS port).

use std::collections::VecDeque;

/// Default depth in words (seed 003 §III.4.1-3).
pub const RXFIFO_WORDS: usize = 2048;

/// One FIFO entry: a Ring word and whether it starts a message (it is the destination word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxWord {
    pub word: u32,
    pub sop: bool,
}

/// The receive FIFO.
#[derive(Clone, Debug)]
pub struct RxFifo {
    q: VecDeque<RxWord>,
    depth: usize,
    /// Words lost to overrun since reset.
    pub overruns: u64,
    /// High-water mark of the occupancy.
    pub max_level: usize,
}

impl RxFifo {
    /// A FIFO of `depth` words (use [`RXFIFO_WORDS`]; 4096 models the seed's upgrade).
    pub fn new(depth: usize) -> Self {
        let depth = depth.max(2);
        RxFifo {
            q: VecDeque::with_capacity(depth),
            depth,
            overruns: 0,
            max_level: 0,
        }
    }

    /// Depth in words.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Words held.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// No words held.
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// RxReady: room for a whole maximum-size message (half the depth; seed §III.4.1-3).
    pub fn rx_ready(&self) -> bool {
        self.depth - self.q.len() >= self.depth / 2
    }

    /// Write a word from the Ring. Returns false (and counts an overrun) if it was lost.
    pub fn push(&mut self, w: RxWord) -> bool {
        if self.q.len() >= self.depth {
            self.overruns += 1;
            return false;
        }
        self.q.push_back(w);
        self.max_level = self.max_level.max(self.q.len());
        true
    }

    /// Read the oldest word.
    pub fn pop(&mut self) -> Option<RxWord> {
        self.q.pop_front()
    }

    /// Look at the oldest word.
    pub fn peek(&self) -> Option<RxWord> {
        self.q.front().copied()
    }
}
