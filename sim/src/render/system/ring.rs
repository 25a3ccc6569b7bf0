//! The Ring as a shared resource, at the level of transfers (docs/rendering.md, "The Ring"):
//! channels of 32-bit words at 20 MHz, each message (or frame-buffer packet) occupying one
//! channel for its words (destination word included) from the 20 MHz slot it is granted. The
//! system's boards and the Ring are stepped together in time order (`cosim.rs`): a sender
//! asks for a channel when its receiver can take the message (RxReady) or its port has a
//! packet to send, and is granted the lowest channel free at that cycle, or waits for one
//! (first come, first served). Contention makes a sender wait.

use pp5_rtl::clock::RING_DIVIDE;

/// Channels of the Ring: 8 × 32 bits × 20 MHz = 5.12 Gbit/s, the paper's "5 gigabit" ring.
pub const RING_CHANNELS: usize = 8;

/// A unit on the Ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Node {
    /// Graphics Processor k.
    Gp(usize),
    /// Renderer k.
    Renderer(usize),
    /// The frame buffer.
    FrameBuffer,
}

/// One message on the Ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Transfer {
    pub channel: usize,
    pub from: Node,
    pub to: Node,
    /// The region it belongs to.
    pub region: usize,
    pub words: u64,
    /// When it was ready to send, and the cycles it occupied its channel (from the frame's
    /// start, 40 MHz).
    pub ready: u64,
    pub start: u64,
    pub end: u64,
}

/// The Ring's channels and what they carry.
#[derive(Clone, Debug)]
pub struct Ring {
    /// Channels (`None`: as many as there are messages at once: unbounded).
    limit: Option<usize>,
    /// The cycle each channel is free from.
    free: Vec<u64>,
    /// Each channel's busy cycles.
    busy: Vec<u64>,
    /// Every message granted, in the order granted.
    pub transfers: Vec<Transfer>,
}

impl Ring {
    /// A Ring of `channels` channels (`None`: unbounded).
    pub fn new(channels: Option<usize>) -> Ring {
        let n = channels.unwrap_or(0);
        Ring {
            limit: channels,
            free: vec![0; n],
            busy: vec![0; n],
            transfers: Vec::new(),
        }
    }

    /// Channels in use (for an unbounded Ring: the most used at once).
    pub fn channels(&self) -> usize {
        self.free.len()
    }

    /// Grant a message of `words` words (destination included) from `from` to `to`, asked
    /// for at `ready`, the lowest channel free at cycle `now` (an unbounded Ring adds one
    /// when none is). Returns the cycle its channel is free again, or `None`: every channel
    /// is busy, the sender waits.
    pub fn grant(
        &mut self,
        from: Node,
        to: Node,
        region: usize,
        words: u64,
        ready: u64,
        now: u64,
    ) -> Option<u64> {
        let channel = match self.free.iter().position(|&f| f <= now) {
            Some(c) => c,
            None if self.limit.is_none() => {
                self.free.push(0);
                self.busy.push(0);
                self.free.len() - 1
            }
            None => return None,
        };
        let end = now + words * RING_DIVIDE;
        self.free[channel] = end;
        self.busy[channel] += end - now;
        self.transfers.push(Transfer {
            channel,
            from,
            to,
            region,
            words,
            ready,
            start: now,
            end,
        });
        Some(end)
    }

    /// The earliest cycle a channel is free from (`None`: unbounded, always one free).
    pub fn next_free(&self) -> Option<u64> {
        match self.limit {
            Some(_) => self.free.iter().copied().min(),
            None => None,
        }
    }

    /// Each channel's busy cycles.
    pub fn busy(&self) -> Vec<u64> {
        self.busy.clone()
    }

    /// The cycle the last message ends.
    pub fn end(&self) -> u64 {
        self.transfers.iter().map(|t| t.end).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contention_makes_a_sender_wait() {
        let (g, r) = (Node::Gp(0), Node::Renderer(0));
        let mut ring = Ring::new(Some(1));
        assert_eq!(ring.grant(g, r, 0, 10, 0, 0), Some(20));
        assert_eq!(ring.grant(g, r, 1, 10, 4, 4), None);
        assert_eq!(ring.next_free(), Some(20));
        assert_eq!(ring.grant(g, r, 1, 10, 4, 20), Some(40));
        assert_eq!(ring.transfers[1].ready, 4);
        assert_eq!(ring.busy(), vec![40]);
        // Two channels: two at once, the lowest free first.
        let mut ring = Ring::new(Some(2));
        assert_eq!(ring.grant(g, r, 0, 5, 0, 0), Some(10));
        assert_eq!(ring.grant(g, r, 0, 3, 0, 0), Some(6));
        assert_eq!(ring.grant(g, r, 0, 1, 0, 2), None);
        assert_eq!(ring.next_free(), Some(6));
        assert_eq!(
            ring.grant(g, r, 0, 1, 2, 6)
                .map(|_| ring.transfers[2].channel),
            Some(1)
        );
        // Unbounded: a new channel rather than a wait.
        let mut ring = Ring::new(None);
        for _ in 0..5 {
            assert!(ring.grant(g, Node::FrameBuffer, 0, 5, 0, 0).is_some());
        }
        assert_eq!(ring.next_free(), None);
        assert_eq!(ring.channels(), 5);
        assert_eq!(ring.busy(), vec![10; 5]);
    }
}
