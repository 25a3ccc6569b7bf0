//! What the Graphics Processors and the Ring feed the Renderers: each region stream's
//! messages placed on the Ring when the GPs have done the primitives in them (and every
//! message before them to the same Renderer), giving each message its arrival time on the
//! Renderer's Ring input; and, after the Renderers ran, each region's pixels from the
//! Renderer to the frame buffer.

use super::gp_cost::GpSchedule;
use super::ring::{Node, Ring};
use crate::render::gp::Frame;
use crate::render::region::PRIM_COMMANDS;
use crate::stream::{Port, Stream};

/// The Graphics Processors and the Ring in front of the Renderers.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Feed {
    /// GPs and their rate, M operations/s (`None`: unbounded: every primitive ready at the
    /// frame's start).
    pub gps: Option<(usize, f64)>,
    /// Ring channels (`None`: unbounded).
    pub ring: Option<usize>,
}

/// One message of a region's stream, ready to place on the Ring.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    pub ready: u64,
    pub words: u64,
    pub port: u8,
    pub gp: usize,
}

/// The GPs' schedule and the Ring, placing Renderers' messages.
pub(super) struct Feeder<'f> {
    pub frame: &'f Frame,
    pub gp: Option<GpSchedule>,
    pub ring: Ring,
    /// Each Renderer's latest message ready time: a GP sends one Renderer's messages in order.
    last_ready: Vec<u64>,
}

impl<'f> Feeder<'f> {
    pub fn new(frame: &'f Frame, feed: &Feed, renderers: usize) -> Feeder<'f> {
        Feeder {
            frame,
            gp: feed.gps.map(|(n, mops)| GpSchedule::new(frame, n, mops)),
            ring: Ring::new(feed.ring),
            last_ready: vec![0; renderers],
        }
    }

    /// The messages of region `r`'s stream `s` for Renderer `k` (`setup`: its set-up
    /// commands), none ready before `floor`: when the GPs have done every primitive whose
    /// commands are in it or before it.
    pub fn pending(
        &mut self,
        k: usize,
        r: usize,
        setup: usize,
        s: &Stream,
        floor: u64,
    ) -> Vec<Pending> {
        let prims = &self.frame.bins.regions[r];
        let gps = self.gp.as_ref().map_or(1, |g| g.gps);
        // Ready time of the first i primitives, and the GP of the i-th.
        let mut prefix = Vec::with_capacity(prims.len() + 1);
        let mut m = 0;
        prefix.push((0, r % gps));
        for &p in prims {
            let (t, g) = match &self.gp {
                Some(gs) => (
                    gs.prim_ready(self.frame, p as usize),
                    gs.prim_gp(self.frame, p as usize),
                ),
                None => (0, 0),
            };
            m = m.max(t);
            prefix.push((m, g));
        }
        let mut commands = 0;
        let mut out = Vec::with_capacity(s.messages.len());
        for msg in &s.messages {
            let done = match msg.port {
                Port::Igc => {
                    commands += msg.commands.len();
                    commands.saturating_sub(setup).div_ceil(PRIM_COMMANDS)
                }
                Port::Bs => prims.len(),
            }
            .min(prims.len());
            let (t, gp) = prefix[done];
            let ready = t.max(floor).max(self.last_ready[k]);
            self.last_ready[k] = ready;
            out.push(Pending {
                ready,
                words: 1 + msg.body.len() as u64,
                port: u8::from(msg.port == Port::Bs),
                gp,
            });
        }
        out
    }

    /// Place `msgs` of region `r` to Renderer `k`: their start times.
    pub fn place(&mut self, k: usize, r: usize, msgs: &[Pending]) -> Vec<u64> {
        msgs.iter()
            .map(|m| {
                self.ring.place(
                    Node::Gp(m.gp),
                    Node::Renderer(k),
                    Some(m.port),
                    r,
                    m.words,
                    m.ready,
                )
            })
            .collect()
    }
}

/// A region's pixels sent to the frame buffer: (Renderer, region, cycle its BS port sent
/// the first word, from the frame's start, words).
pub type FbSend = (usize, usize, u64, u64);

/// Words of one scanline segment of a frame-buffer transfer: the Ring carries a region's
/// pixels as packets of this many words (at most 1024 words a message, seed 003 §III.4.1-3).
pub const FB_PACKET: u64 = 128;

/// Place the frame buffer transfers on the Ring after everything else, packet by packet
/// (the destination word with the first), each at the earliest the Ring allows from when
/// the Renderer's BS port sent it, and after the same Renderer's previous packet. Returns
/// the last packet's end.
pub(super) fn place_fb(ring: &mut Ring, sends: &[FbSend]) -> u64 {
    let mut order: Vec<&FbSend> = sends.iter().collect();
    order.sort_by_key(|s| (s.2, s.0));
    let mut sender_free = std::collections::HashMap::new();
    let mut end = 0;
    for &&(k, r, at, words) in &order {
        let mut left = words;
        let mut ready = at;
        while left > 0 {
            let n = if left == words {
                (FB_PACKET + 1).min(left)
            } else {
                FB_PACKET.min(left)
            };
            let t = ready.max(sender_free.get(&k).copied().unwrap_or(0));
            let start = ring.place(Node::Renderer(k), Node::FrameBuffer, None, r, n, t);
            let e = start + n * pp5_rtl::clock::RING_DIVIDE;
            sender_free.insert(k, e);
            end = end.max(e);
            ready += n * pp5_rtl::clock::RING_DIVIDE;
            left -= n;
        }
    }
    end
}
