//! The Ring as a shared resource, at the level of transfers (docs/rendering.md, "The Ring"):
//! channels of 32-bit words at 20 MHz, each message occupying one channel for its words
//! (destination word included) from its start; a message starts at the earliest time it is
//! ready, its receiver's port is free (a port takes one word per 20 MHz slot, so messages to
//! one port follow each other), and some channel is free for its whole length (first fit, in
//! the order messages are placed). Contention makes a sender wait.

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
    /// Each channel's busy intervals, sorted, disjoint.
    busy: Vec<Vec<(u64, u64)>>,
    /// When each receiving port is free again: (node, port).
    port_free: std::collections::HashMap<(Node, u8), u64>,
    /// Every message placed.
    pub transfers: Vec<Transfer>,
}

/// The earliest start ≥ `t` of an interval of `len` cycles among sorted disjoint `busy`.
fn first_fit(busy: &[(u64, u64)], t: u64, len: u64) -> u64 {
    let mut s = t;
    let from = busy.partition_point(|b| b.1 <= s);
    for b in &busy[from..] {
        if s + len <= b.0 {
            break;
        }
        s = s.max(b.1);
    }
    s
}

impl Ring {
    /// A Ring of `channels` channels (`None`: unbounded).
    pub fn new(channels: Option<usize>) -> Ring {
        let n = channels.unwrap_or(1).max(1);
        Ring {
            limit: channels,
            busy: vec![Vec::new(); n],
            port_free: Default::default(),
            transfers: Vec::new(),
        }
    }

    /// Channels in use (for an unbounded Ring: the most used at once).
    pub fn channels(&self) -> usize {
        self.busy.len()
    }

    /// Place a message of `words` words (destination included) ready at `ready`, to `port`
    /// of `to` when the receiver takes one message at a time (`None`: the frame buffer, which
    /// takes every channel at once). Returns when its first word goes out.
    pub fn place(
        &mut self,
        from: Node,
        to: Node,
        port: Option<u8>,
        region: usize,
        words: u64,
        ready: u64,
    ) -> u64 {
        let len = words * RING_DIVIDE;
        let key = port.map(|p| (to, p));
        let t = key
            .and_then(|k| self.port_free.get(&k).copied())
            .unwrap_or(0)
            .max(ready);
        let (channel, start) = self
            .busy
            .iter()
            .enumerate()
            .map(|(c, b)| (c, first_fit(b, t, len)))
            .min_by_key(|&(c, s)| (s, c))
            .unwrap_or((0, t));
        let (channel, start) = if self.limit.is_none() && start > t {
            self.busy.push(Vec::new());
            (self.busy.len() - 1, t)
        } else {
            (channel, start)
        };
        let b = &mut self.busy[channel];
        let k = b.partition_point(|x| x.0 < start);
        b.insert(k, (start, start + len));
        if let Some(k) = key {
            self.port_free.insert(k, start + len);
        }
        self.transfers.push(Transfer {
            channel,
            from,
            to,
            region,
            words,
            ready,
            start,
            end: start + len,
        });
        start
    }

    /// Each channel's busy cycles.
    pub fn busy(&self) -> Vec<u64> {
        self.busy
            .iter()
            .map(|b| b.iter().map(|x| x.1 - x.0).sum())
            .collect()
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
        let mut r = Ring::new(Some(1));
        let a = r.place(Node::Gp(0), Node::Renderer(0), Some(0), 0, 10, 0);
        let b = r.place(Node::Gp(1), Node::Renderer(1), Some(0), 1, 10, 4);
        assert_eq!((a, b), (0, 20));
        // A gap that fits is used.
        let c = r.place(Node::Gp(2), Node::Renderer(2), Some(0), 2, 3, 100);
        let d = r.place(Node::Gp(3), Node::Renderer(3), Some(0), 3, 2, 40);
        assert_eq!((c, d), (100, 40));
        // Two channels: both at once; one port: one after the other.
        let mut r = Ring::new(Some(2));
        assert_eq!(r.place(Node::Gp(0), Node::Renderer(0), Some(0), 0, 5, 0), 0);
        assert_eq!(r.place(Node::Gp(1), Node::Renderer(1), Some(0), 0, 5, 0), 0);
        assert_eq!(
            r.place(Node::Gp(1), Node::Renderer(1), Some(0), 0, 5, 0),
            10
        );
        // Unbounded: a new channel rather than a wait.
        let mut r = Ring::new(None);
        for k in 0..5 {
            assert_eq!(r.place(Node::Gp(k), Node::FrameBuffer, None, 0, 5, 0), 0);
        }
        assert_eq!(r.channels(), 5);
        assert_eq!(r.busy(), vec![10; 5]);
    }
}
