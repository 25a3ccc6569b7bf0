//! One Renderer of the system being simulated: its board, the regions it was given, the
//! streams sent to it as its Ring input runs dry, and each region's timing read off the
//! engine's command records as they end (so memory stays bounded however many primitives a
//! frame has).

use super::{RegionRun, SystemError};
use crate::engine::{Sim, StopReason};
use crate::render::gp::Frame;
use crate::render::region::{RendererStream, PRIM_COMMANDS};
use crate::render::shading::Shading;
use crate::stream::Stream;
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::IgcState;
use std::collections::VecDeque;

/// Commands of a region's stages, in the order the stream has them.
#[derive(Clone, Debug, Default)]
pub(super) struct Plan {
    pub region: usize,
    pub setup: usize,
    pub prims: usize,
    pub shading: usize,
    pub output: usize,
}

impl Plan {
    /// Commands in the region's stream.
    fn commands(&self) -> usize {
        self.setup + self.prims * PRIM_COMMANDS + self.shading + self.output
    }
}

/// Command records the engine may hold before a board reads their timing off them.
pub(super) const RECORDS_KEPT: usize = 4096;

/// Commands of the prologue (FBITS, SETENABS), before the first region.
const PROLOGUE_COMMANDS: usize = 2;

/// A Renderer being simulated.
pub(super) struct Board<'f> {
    pub index: usize,
    pub sim: Sim,
    pub stream: RendererStream<'f>,
    /// Regions assigned to this Renderer and not yet sent: each is built and queued only when
    /// the Ring input has sent everything before it, so one region's stream is in memory at a
    /// time (the port sees the same words at the same cycles as if all were queued at once).
    pub pending: VecDeque<usize>,
    /// The regions sent, in order.
    pub plans: Vec<Plan>,
    /// Ended user commands not yet measured: the prologue's, then the commands of
    /// `plans[measured.len()..]`.
    timing: VecDeque<Timed>,
    prologue_left: usize,
    /// The IGC's executing cycles of the prologue's commands.
    pub prologue_work: u64,
    /// The regions measured, in the order of `plans`.
    pub measured: Vec<RegionRun>,
    /// Cycles of each primitive-in-a-region, in the order drawn.
    pub prim_cycles: Vec<u64>,
    /// IGC cycles spent on regions (each region's first command to its last).
    pub igc_busy: u64,
    /// The whole stream sent, when the caller keeps it (`--save-streams`, `--wave`).
    pub saved: Option<Stream>,
    pub boot_end: u64,
    /// When recorded: the cycles at which the IGC began (`true`) and stopped (`false`)
    /// waiting for a command, in order.
    pub waits: Option<Vec<(u64, bool)>>,
    /// The longest a command waited in the LLPR registers for the IGC to take it, in 20 MHz
    /// cycles: the IGC timeout's count at its highest (status bit 30 at 65,536).
    pub longest_command_wait: u64,
    /// When the board replays a recorded frame: that frame's regions on this Renderer, in
    /// order (the replay must send the same).
    pub replay_regions: Option<std::sync::Arc<[usize]>>,
}

/// An ended command's timing: its first cycle, its cycles, and of them the cycles its IGC
/// executed, waited on a semaphore (PIGC: a free backing-store buffer) and waited for the
/// transfer unit (BSWAIT, BSSTORE behind another transfer).
#[derive(Clone, Copy, Debug)]
struct Timed {
    start: u64,
    cycles: u64,
    work: u64,
    sem: u64,
    xfer: u64,
}

impl<'f> Board<'f> {
    pub fn new(index: usize, sim: Sim, stream: RendererStream<'f>, keep: bool) -> Board<'f> {
        Board {
            index,
            sim,
            stream,
            pending: VecDeque::new(),
            plans: Vec::new(),
            timing: VecDeque::new(),
            prologue_left: PROLOGUE_COMMANDS,
            prologue_work: 0,
            measured: Vec::new(),
            prim_cycles: Vec::new(),
            igc_busy: 0,
            saved: keep.then(Stream::default),
            boot_end: 0,
            waits: None,
            longest_command_wait: 0,
            replay_regions: None,
        }
    }

    /// Keep the IGC timeout's count at its highest (call after every cycle).
    #[inline]
    pub(super) fn watch_timeout(&mut self) {
        self.longest_command_wait = self.longest_command_wait.max(self.sim.board.timeout_count);
    }

    /// Whether the IGC has taken every command sent so far and waits for the next.
    pub(super) fn igc_free(&self) -> bool {
        let b = &self.sim.board;
        self.sim.ring.igc.is_empty()
            && b.igc_port.rx.rxfifo.is_empty()
            && !b.igc_port.parser.busy()
            && !b.llpr.go
            && b.igc.state == IgcState::WaitCmd
    }

    /// Queue `s` on the Ring input (and keep it, when the stream is saved).
    pub fn queue(&mut self, s: Stream) {
        self.sim.queue_stream(&s);
        if let Some(saved) = &mut self.saved {
            saved.append(s);
        }
    }

    /// Send region `r` to this Renderer.
    pub fn send(&mut self, frame: &Frame, r: usize, shading: &Shading) -> Result<(), SystemError> {
        self.send_at(frame, r, shading, None)
    }

    /// Send region `r`, its first message offered to the Ring at cycle `at` (`None`: right
    /// after the previous one): a region handed out when the Renderer became free says when,
    /// so that its saved stream re-runs with the same timing.
    pub fn send_at(
        &mut self,
        frame: &Frame,
        r: usize,
        shading: &Shading,
        at: Option<u64>,
    ) -> Result<(), SystemError> {
        let (mut s, _) = self.build(frame, r, shading)?;
        if let Some(first) = s.messages.first_mut() {
            first.at = at;
        }
        self.queue(s);
        Ok(())
    }

    /// Region `r`'s stream, its plan kept (the region is being sent): the stream and its
    /// set-up commands.
    pub fn build(
        &mut self,
        frame: &Frame,
        r: usize,
        shading: &Shading,
    ) -> Result<(Stream, usize), SystemError> {
        self.replay_region(r)?;
        let (s, counts) = self
            .stream
            .region(frame, r, shading)
            .map_err(|e| SystemError(format!("region {r}: {e}")))?;
        self.plans.push(Plan {
            region: r,
            setup: counts.0,
            prims: frame.bins.regions[r].len(),
            shading: counts.1,
            output: counts.2,
        });
        Ok((s, counts.0))
    }

    /// Note whether the IGC waits for a command now (when the waits are recorded).
    pub fn note_wait(&mut self) {
        if let Some(w) = &mut self.waits {
            let waiting = self.sim.board.igc.state == IgcState::WaitCmd;
            if w.last().is_none_or(|l| l.1) != waiting {
                w.push((self.sim.board.cycle, waiting));
            }
        }
    }

    /// The simulator's stop as an error of this Renderer.
    pub fn stopped(&self, stop: StopReason) -> SystemError {
        let diag: Vec<String> = self
            .sim
            .diagnostics
            .iter()
            .rev()
            .take(5)
            .map(|d| format!("{}: {}", d.level, d.msg))
            .collect();
        SystemError(format!(
            "Renderer {} stopped at cycle {}: {stop:?} ({})",
            self.index,
            self.sim.board.cycle,
            diag.join("; ")
        ))
    }

    /// Read the timing of the commands that ended, and measure every region whose commands
    /// have all ended.
    pub fn read_timing(&mut self, frame: &Frame) {
        let ended = self.sim.take_ended_commands();
        self.timing
            .extend(ended.iter().filter(|c| !c.boot).map(|c| Timed {
                start: c.start,
                cycles: c.cycles,
                work: c.causes.get(Cause::Executing),
                sem: c.causes.get(Cause::SemWait),
                xfer: c.causes.get(Cause::XferStall),
            }));
        let prologue = self.prologue_left.min(self.timing.len());
        self.prologue_work += self.timing.drain(..prologue).map(|c| c.work).sum::<u64>();
        self.prologue_left -= prologue;
        while let Some(plan) = self.plans.get(self.measured.len()) {
            if self.timing.len() < plan.commands() {
                break;
            }
            let cmds: Vec<Timed> = self.timing.drain(..plan.commands()).collect();
            let run = measure(plan, &cmds, &mut self.prim_cycles);
            self.igc_busy += run.end - run.start;
            self.measured.push(RegionRun {
                origin: frame.bins.origin(plan.region),
                renderer: self.index,
                start: run.start - self.boot_end,
                end: run.end - self.boot_end,
                ..run
            });
        }
    }

    /// Step until the IGC is free (`to_end`: until the whole board is done), sending the
    /// pending regions as the Ring input runs dry.
    pub fn run(
        &mut self,
        frame: &Frame,
        shading: &Shading,
        to_end: bool,
    ) -> Result<(), SystemError> {
        loop {
            if self.sim.ring.igc.is_empty() {
                if let Some(r) = self.pending.pop_front() {
                    self.send(frame, r, shading)?;
                }
            }
            if self.sim.commands.len() > RECORDS_KEPT {
                self.read_timing(frame);
            }
            if !to_end && self.igc_free() {
                return Ok(());
            }
            self.note_wait();
            let tick = self.sim.tick();
            self.watch_timeout();
            if self.replay_regions.is_some() {
                self.replay_check(false)?;
            }
            match tick {
                None => {}
                Some(StopReason::Done) => return Ok(()),
                Some(stop) => return Err(self.stopped(stop)),
            }
        }
    }
}

/// A region's stage cycles from its commands' timing (absolute cycles; the caller sets the
/// origin, the Renderer and the times relative to the boot's end).
fn measure(plan: &Plan, cmds: &[Timed], prim_cycles: &mut Vec<u64>) -> RegionRun {
    let sum = |c: &[Timed]| c.iter().map(|r| r.cycles).sum::<u64>();
    let (setup, rest) = cmds.split_at(plan.setup);
    let (prims, rest) = rest.split_at(plan.prims * PRIM_COMMANDS);
    let (shading, output) = rest.split_at(plan.shading);
    let mut primitives = 0;
    for p in prims.chunks(PRIM_COMMANDS) {
        let c = sum(p);
        prim_cycles.push(c);
        primitives += c;
    }
    let first = cmds.first().map_or(0, |c| c.start);
    let end = cmds.last().map_or(first, |c| c.start + c.cycles);
    RegionRun {
        region: plan.region,
        origin: (0, 0),
        renderer: 0,
        prims: plan.prims,
        start: first,
        end,
        setup: sum(setup),
        primitives,
        shading: sum(shading),
        output: sum(output),
        work: cmds.iter().map(|c| c.work).sum(),
        wait_buffer: cmds.iter().map(|c| c.sem).sum(),
        wait_transfer: cmds.iter().map(|c| c.xfer).sum(),
    }
}
