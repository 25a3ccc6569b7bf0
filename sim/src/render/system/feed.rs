//! What the Graphics Processors feed the Renderers: each region stream's messages with the
//! cycle they are ready to go on the Ring (the GPs have done the primitives in them and every
//! message before them to the same Renderer), and the frame buffer's packets.

use super::gp_cost::GpSchedule;
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

/// One message of a region's stream, waiting to go on the Ring.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    /// The cycle (from the frame's start) the GPs have it ready.
    pub ready: u64,
    pub words: u64,
    pub port: Port,
    /// The GP that sends it (the one that did its last primitive).
    pub gp: usize,
    /// The cycle the GPs alone have it ready (`ready` without the floor).
    pub gp_ready: u64,
}

/// The messages of region `r`'s stream `s` (`setup`: its set-up commands), none ready before
/// `floor` nor before `last` (the same Renderer's previous message's `(ready, gp_ready)`,
/// updated): when the GPs (`gp`; `None`: unbounded) have done every primitive whose commands
/// are in it or before it.
pub(super) fn ready_times(
    frame: &Frame,
    gp: Option<&GpSchedule>,
    r: usize,
    setup: usize,
    s: &Stream,
    floor: u64,
    last: &mut (u64, u64),
) -> Vec<Pending> {
    let prims = &frame.bins.regions[r];
    let gps = gp.map_or(1, |g| g.gps);
    // Ready time of the first i primitives, and the GP of the i-th.
    let mut prefix = Vec::with_capacity(prims.len() + 1);
    let mut m = 0;
    prefix.push((0, r % gps));
    for &p in prims {
        let (t, g) = match gp {
            Some(gs) => (
                gs.prim_ready(frame, p as usize),
                gs.prim_gp(frame, p as usize),
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
        let ready = t.max(floor).max(last.0);
        let gp_ready = t.max(last.1);
        *last = (ready, gp_ready);
        out.push(Pending {
            ready,
            words: 1 + msg.body.len() as u64,
            port: msg.port,
            gp,
            gp_ready,
        });
    }
    out
}

/// Words of one scanline segment of a frame-buffer transfer: the Ring carries a region's
/// pixels as packets of this many words (the destination word goes with the first), each
/// granted a channel of its own (at most 1024 words a message, seed 003 §III.4.1-3).
pub const FB_PACKET: u64 = 128;
