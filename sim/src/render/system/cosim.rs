//! The Renderers and the Ring stepped together in time order (docs/rendering.md, "The
//! Ring"): the boards are cycle-accurate and the Ring is shared, so a message goes on the
//! Ring only when the GPs have it ready, its receiver's port can take it (RxReady) and a
//! channel is free, and a Renderer's BS port sends each packet of its pixels only on a
//! channel granted in the slot its first word would go (TxReady drops while it waits). A
//! full Renderer input holds the message at its GP; a busy Ring holds the BS port (its
//! `tx_hold` cause).
//!
//! Conservative and exact: each board runs by itself (the boards in turn) until the next
//! cycle it asks the Ring for something (a channel for its next message or packet, or, with
//! next free, a region), or until the first cycle a waiting sender could be granted a
//! channel (none is free before it); then the requests of the earliest such cycle are
//! decided, in the order asked (cycle, Renderer, IGC input, BS input, BS output: first come,
//! first served), and the boards go on. Every grant and TxReady change is written into the
//! board's saved stream (`at=`, `txready bs`), so re-running a saved stream takes the same
//! cycles.

use super::board::{Board, RECORDS_KEPT};
use super::feed::{ready_times, Feed, Pending, FB_PACKET};
use super::gp_cost::GpSchedule;
use super::ring::{Node, Ring};
use super::{FeedRun, Policy, SystemError};
use crate::engine::{StopReason, HELD};
use crate::render::gp::Frame;
use crate::render::shading::Shading;
use crate::stream::{Port, RingEvent, RingEventKind};
use pp5_rtl::clock::{ring_enable, RING_DIVIDE};
use pp5_rtl::ring::tx::MsgKind;
use std::collections::{BTreeSet, VecDeque};

/// What a Renderer asks the Ring for: a channel for its IGC port's next message, for its BS
/// port's next message, for its BS port's next packet out (the order of the asks of one
/// Renderer in one cycle).
const IGC_IN: usize = 0;
const BS_IN: usize = 1;
const BS_OUT: usize = 2;

/// A message held at its GP until the Ring takes it.
struct Held {
    p: Pending,
    region: usize,
    /// Its index in the saved stream, when the stream is saved.
    saved: Option<usize>,
}

/// What a board stopped for: the cycle, the channels it asks for, whether it asks for a
/// region.
#[derive(Clone, Copy)]
struct Stop {
    cycle: u64,
    wants: [bool; 3],
    region: bool,
}

/// One Renderer and its side of the Ring.
struct Unit<'f> {
    board: Board<'f>,
    /// The messages held for the Ring, of the IGC port and the BS port, in order.
    held: [VecDeque<Held>; 2],
    /// Channels asked for and not yet granted (IGC in, BS in, BS out).
    asked: [bool; 3],
    /// The cycle the BS port's granted packet ends.
    packet_end: Option<u64>,
    /// The BS port's TxReady as the Ring drives it.
    tx_ready: bool,
    /// Frame-buffer messages the BS port has begun.
    fb_begun: usize,
    /// The latest ready time of this Renderer's messages (a GP sends them in order), with
    /// and without the floors.
    last_ready: (u64, u64),
    /// Requests the GPs may have delayed (asked in the first slot after `gp_ready`).
    gp_waits: usize,
    stop: Option<Stop>,
    done: bool,
}

/// What every board reads while it runs.
struct Ctx<'a, 'f> {
    frame: &'f Frame,
    shading: &'a Shading,
    gp: Option<&'a GpSchedule>,
    policy: Policy,
    /// Regions are still to be handed out (next free).
    regions_left: bool,
}

impl<'f> Unit<'f> {
    fn new(mut board: Board<'f>) -> Unit<'f> {
        board.waits = Some(Vec::new());
        Unit {
            board,
            held: [VecDeque::new(), VecDeque::new()],
            asked: [false; 3],
            packet_end: None,
            tx_ready: true,
            fb_begun: 0,
            last_ready: (0, 0),
            gp_waits: 0,
            stop: None,
            done: false,
        }
    }

    /// Drive the BS port's TxReady from this cycle on, and keep the change in the saved
    /// stream.
    fn set_tx_ready(&mut self, ready: bool) {
        let c = self.board.sim.board.cycle;
        self.board.sim.schedule_tx_ready(c, Port::Bs, ready);
        self.tx_ready = ready;
        if let Some(s) = &mut self.board.saved {
            s.events.push(RingEvent {
                kind: RingEventKind::TxReady {
                    port: Port::Bs,
                    ready,
                },
                before: s.messages.len(),
                at: Some(c),
                line: 0,
            });
        }
    }

    /// Queue region `r`, its messages held for the Ring, none ready before `floor` (from
    /// the frame's start).
    fn queue_region(&mut self, ctx: &Ctx<'_, 'f>, r: usize, floor: u64) -> Result<(), SystemError> {
        let (mut s, setup) = self.board.build(ctx.frame, r, ctx.shading)?;
        let pending = ready_times(ctx.frame, ctx.gp, r, setup, &s, floor, &mut self.last_ready);
        let base = self.board.saved.as_ref().map(|x| x.messages.len());
        for (k, (m, p)) in s.messages.iter_mut().zip(pending).enumerate() {
            m.at = Some(HELD);
            self.held[usize::from(p.port == Port::Bs)].push_back(Held {
                p,
                region: r,
                saved: base.map(|b| b + k),
            });
        }
        self.board.queue(s);
        Ok(())
    }

    /// What the board asks for in this cycle, before stepping it (`None`: nothing new).
    fn wants(&mut self, ctx: &Ctx) -> Option<Stop> {
        let c = self.board.sim.board.cycle;
        let mut wants = [false; 3];
        if ring_enable(c) {
            // TxReady stays as it was after a packet: the port sends no word before the
            // next slot's decision (granted, or TxReady low).
            if self.packet_end.is_some_and(|e| c >= e) {
                self.packet_end = None;
            }
            let sim = &self.board.sim;
            let rel = c - self.board.boot_end;
            let rx = [sim.board.rx_ready(), sim.board.bs_rx_ready()];
            let src = [&sim.ring.igc, &sim.ring.bs];
            for k in [IGC_IN, BS_IN] {
                wants[k] = !self.asked[k]
                    && rx[k]
                    && src[k].next_held()
                    && self.held[k].front().is_some_and(|h| h.p.ready <= rel);
                if wants[k] && ctx.gp.is_some() {
                    let gp_ready = self.held[k].front().map_or(0, |h| h.p.gp_ready);
                    self.gp_waits += usize::from(gp_ready + RING_DIVIDE > rel);
                }
            }
            wants[BS_OUT] =
                !self.asked[BS_OUT] && self.packet_end.is_none() && sim.board.bs_port.tx.busy();
        }
        let region = ctx.policy == Policy::NextFree
            && ctx.regions_left
            && self.board.pending.is_empty()
            && self.board.sim.ring.igc.is_empty()
            && self.board.igc_free();
        (region || wants.contains(&true)).then_some(Stop {
            cycle: c,
            wants,
            region,
        })
    }

    /// The first cycle from now on in which [`Unit::wants`] may find something new while the
    /// board stands still: a held message's ready time, the end of the BS port's packet.
    /// (RxReady, the BS port's transmitter and whether the IGC is free do not change while
    /// the board is still.)
    fn next_want(&self) -> u64 {
        let sim = &self.board.sim;
        let c = sim.board.cycle;
        let rx = [sim.board.rx_ready(), sim.board.bs_rx_ready()];
        let src = [&sim.ring.igc, &sim.ring.bs];
        let mut t = self.packet_end.unwrap_or(u64::MAX);
        for k in [IGC_IN, BS_IN] {
            if !self.asked[k] && rx[k] && src[k].next_held() {
                if let Some(h) = self.held[k].front() {
                    t = t.min(h.p.ready.saturating_add(self.board.boot_end));
                }
            }
        }
        t.max(c)
    }

    /// Run the board until it asks for something, reaches `limit` or is done.
    fn advance(&mut self, ctx: &Ctx<'_, 'f>, limit: u64) -> Result<(), SystemError> {
        if self.done || self.stop.is_some() {
            return Ok(());
        }
        loop {
            if self.board.sim.ring.igc.is_empty() {
                if let Some(r) = self.board.pending.pop_front() {
                    self.queue_region(ctx, r, 0)?;
                }
            }
            if self.board.sim.commands.len() > RECORDS_KEPT {
                self.board.read_timing(ctx.frame);
            }
            if let Some(s) = self.wants(ctx) {
                self.stop = Some(s);
                return Ok(());
            }
            if self.board.sim.board.cycle >= limit {
                return Ok(());
            }
            // A board that waits passes its still cycles at once, up to the next cycle it
            // may ask for something.
            if self.board.sim.skip_still(limit.min(self.next_want())) > 0 {
                self.board.watch_timeout();
                continue;
            }
            self.board.note_wait();
            if self.asked[BS_OUT] {
                // Held by the Ring (TxReady low): not stuck, whatever the board looks like.
                self.board.sim.step();
                self.board.watch_timeout();
                continue;
            }
            let tick = self.board.sim.tick();
            self.board.watch_timeout();
            if self.board.replay_regions.is_some() {
                self.board.replay_check(false)?;
            }
            match tick {
                None => {}
                Some(StopReason::Done) => {
                    self.done = true;
                    return Ok(());
                }
                Some(stop) => return Err(self.board.stopped(stop)),
            }
        }
    }

    /// Grant the next held message of input `k` (asked for at `t`) a channel at `d`, if one
    /// is free.
    fn grant_in(&mut self, ring: &mut Ring, k: usize, t: u64, d: u64) -> bool {
        let boot = self.board.boot_end;
        let Some(h) = self.held[k].front() else {
            return false;
        };
        let to = Node::Renderer(self.board.index);
        let from = Node::Gp(h.p.gp);
        if ring
            .grant(from, to, h.region, h.p.words, t - boot, d - boot)
            .is_none()
        {
            return false;
        }
        let saved = h.saved;
        self.held[k].pop_front();
        let sim = &mut self.board.sim;
        let src = if k == IGC_IN {
            &mut sim.ring.igc
        } else {
            &mut sim.ring.bs
        };
        src.release_next(d);
        if let (Some(s), Some(i)) = (&mut self.board.saved, saved) {
            s.messages[i].at = Some(d);
        }
        self.asked[k] = false;
        true
    }

    /// Grant the BS port's next packet out (asked for at `t`) a channel at `d`, if one is
    /// free.
    fn grant_out(&mut self, ring: &mut Ring, t: u64, d: u64) -> bool {
        let boot = self.board.boot_end;
        let tx = &self.board.sim.board.bs_port.tx;
        let first = tx.next_index() == 0;
        let data = tx.kind() == Some(MsgKind::Data);
        let words = match (data, first) {
            (true, true) => FB_PACKET + 1,
            (true, false) => FB_PACKET,
            (false, _) => 3u64.saturating_sub(tx.next_index() as u64).max(1),
        };
        let k = self.fb_begun + usize::from(data && first);
        let region = k
            .checked_sub(1)
            .and_then(|k| self.board.plans.get(k))
            .map_or(0, |p| p.region);
        let from = Node::Renderer(self.board.index);
        if ring
            .grant(from, Node::FrameBuffer, region, words, t - boot, d - boot)
            .is_none()
        {
            return false;
        }
        self.fb_begun = k;
        self.packet_end = Some(d + words * RING_DIVIDE);
        if !self.tx_ready {
            self.set_tx_ready(true);
        }
        self.asked[BS_OUT] = false;
        true
    }
}

/// The requests waiting for a channel: (cycle asked, Renderer, what), in that order.
type Waiting = BTreeSet<(u64, usize, usize)>;

/// Grant the waiting requests channels at cycle `d`, first come first served, while any is
/// free; the BS ports still waiting are held (TxReady low).
fn grant(units: &mut [Unit], ring: &mut Ring, waiting: &mut Waiting, d: u64) {
    let mut granted = Vec::new();
    for &(t, i, k) in waiting.iter() {
        let u = &mut units[i];
        debug_assert_eq!(u.board.sim.board.cycle, d, "Renderer {i}");
        let ok = match k {
            BS_OUT => u.grant_out(ring, t, d),
            _ => u.grant_in(ring, k, t, d),
        };
        if !ok {
            break;
        }
        granted.push((t, i, k));
    }
    for g in granted {
        waiting.remove(&g);
    }
    for &(_, i, k) in waiting.iter() {
        if k == BS_OUT && units[i].tx_ready {
            units[i].set_tx_ready(false);
        }
    }
}

/// Run the booted `boards` (their prologue queued) through the frame with the GPs and the
/// Ring of `feed` in front of them; `progress(regions)` as regions go out. Returns the
/// finished boards and what the GPs and the Ring did.
pub(super) fn run<'f>(
    frame: &'f Frame,
    shading: &Shading,
    boards: Vec<Board<'f>>,
    policy: Policy,
    feed: Feed,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<(Vec<Board<'f>>, FeedRun), SystemError> {
    let gp = feed.gps.map(|(n, mops)| GpSchedule::new(frame, n, mops));
    let mut ring = Ring::new(feed.ring);
    let mut units: Vec<Unit> = boards.into_iter().map(Unit::new).collect();
    let n = units.len();
    let regions = frame.bins.regions.len();
    let mut next = 0;
    if policy == Policy::RoundRobin {
        for r in 0..regions {
            units[r % n].board.pending.push_back(r);
        }
        next = regions;
    }
    let boot = units[0].board.boot_end;
    let mut waiting = Waiting::new();
    let mut sent = 0;
    loop {
        let ctx = Ctx {
            frame,
            shading,
            gp: gp.as_ref(),
            policy,
            regions_left: next < regions,
        };
        // No waiting sender can be granted a channel before one is free (the Ring counts
        // from the frame's start, the boards from their power-up: every board's boot takes
        // the same cycles).
        let limit = match waiting.is_empty() {
            true => u64::MAX,
            false => ring.next_free().map_or(u64::MAX, |f| f + boot),
        };
        // The boards in turn, on this thread: a round is short (up to a board's next ask of
        // the Ring), so handing boards to other threads cost more CPU than it saved (spheres:
        // 3.3 s against 2.5 s); a study runs its frames in parallel instead (bounds.rs).
        for u in units.iter_mut().filter(|u| !u.done && u.stop.is_none()) {
            u.advance(&ctx, limit)?;
        }
        let first = units.iter().filter_map(|u| u.stop.map(|s| s.cycle)).min();
        let d = match first {
            Some(c) => c.min(limit),
            None if limit < u64::MAX => limit,
            None => break,
        };
        for (i, u) in units.iter_mut().enumerate() {
            let Some(s) = u.stop.filter(|s| s.cycle == d) else {
                continue;
            };
            u.stop = None;
            if s.region && next < regions {
                u.queue_region(&ctx, next, d - boot)?;
                next += 1;
            }
            for k in (0..3).filter(|&k| s.wants[k]) {
                u.asked[k] = true;
                waiting.insert((d, i, k));
            }
        }
        grant(&mut units, &mut ring, &mut waiting, d);
        let begun: usize = units.iter().map(|u| u.fb_begun).sum();
        if begun > sent {
            sent = begun;
            progress(sent);
        }
    }
    let fb_end = ring
        .transfers
        .iter()
        .filter(|t| t.to == Node::FrameBuffer)
        .map(|t| t.end)
        .max()
        .unwrap_or(0);
    let mut waits = Vec::new();
    let gp_waits = units.iter().map(|u| u.gp_waits).sum();
    let boards: Vec<Board> = units
        .into_iter()
        .map(|mut u| {
            let boot = u.board.boot_end;
            let w = u.board.waits.take().unwrap_or_default();
            waits.push(
                w.into_iter()
                    .map(|(c, on)| (c.saturating_sub(boot), on))
                    .collect(),
            );
            u.board
        })
        .collect();
    let run = FeedRun {
        feed,
        gp,
        ring,
        waits,
        fb_end,
        gp_waits,
    };
    Ok((boards, run))
}
