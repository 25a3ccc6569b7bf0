//! A Pixel-Planes 5 system of N Renderers drawing one frame (docs/rendering.md, "The
//! system"): regions assigned to Renderers, each Renderer a full simulated board running its
//! regions' command streams one after the other, the Renderers simulated in parallel (rayon;
//! the results do not depend on the number of threads), and the frame assembled from what
//! the Renderers' BS ports sent to the frame buffer.
//!
//! - **Round robin** (static): region `k` (row-major) goes to Renderer `k mod N`.
//! - **Next free** (dynamic): the next region goes to the Renderer whose IGC has finished its
//!   last region first (the lowest index on a tie), at that cycle. Simulated exactly: every
//!   region's IGC time is at least that of an empty region (the same fixed commands, no
//!   waits), so every Renderer free before the earliest free one's time plus that bound is
//!   certain to be handed its region first, and those Renderers run at once.

use super::gp::Frame;
use super::region::{RendererStream, FRAME_BUFFER, PRIM_COMMANDS};
use super::shading::Shading;
use crate::asm::microcode::McImage;
use crate::engine::{Sim, SimOptions, StopReason};
use crate::stream::Stream;
use pp5_rtl::emc_array::plane::ARRAY_DIM;
use pp5_rtl::igc::IgcState;
use rayon::prelude::*;

/// The most Renderers a Pixel-Planes 5 system has (SIGGRAPH 1989).
pub const MAX_RENDERERS: usize = 16;

/// How regions are handed to Renderers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Policy {
    RoundRobin,
    NextFree,
}

/// One region as drawn: where, by whom, when (IGC cycles from the Renderer's boot end).
#[derive(Clone, Debug, serde::Serialize)]
pub struct RegionRun {
    pub region: usize,
    pub origin: (i64, i64),
    pub renderer: usize,
    pub prims: usize,
    /// Cycle of its first command and the cycle after its last (VBSlater).
    pub start: u64,
    pub end: u64,
    /// Its IGC cycles by stage: set-up (SEPCFG, CLEAR), primitives, shading, output (PIGC,
    /// BSWAIT, CPY, BSSTORE: the waits for the previous region's transfer included).
    pub setup: u64,
    pub primitives: u64,
    pub shading: u64,
    pub output: u64,
}

/// One Renderer over the frame.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RendererRun {
    pub index: usize,
    pub regions: Vec<usize>,
    /// Cycles from the end of its boot to its last activity (its last transmission).
    pub cycles: u64,
    /// Cycles its IGC spent on regions (first command to last), and its BS port sending.
    pub igc_busy: u64,
    pub bs_busy: u64,
    pub boot_cycles: u64,
    /// What the simulator reported about this Renderer's run (warnings, errors), the first
    /// [`MAX_REPORTED`], and how many there were in all.
    pub diagnostics: Vec<String>,
    pub diagnostics_total: usize,
}

/// Diagnostics kept per Renderer in the report.
pub const MAX_REPORTED: usize = 10;

/// A simulated frame.
pub struct FrameRun {
    pub regions: Vec<RegionRun>,
    pub renderers: Vec<RendererRun>,
    /// Cycles of every primitive-in-a-region (the commands that draw it there).
    pub prim_cycles: Vec<u64>,
    /// The frame as the frame buffer received it, row-major RGB.
    pub pixels: Vec<[u8; 3]>,
    /// The frame's cycles: the last Renderer's.
    pub cycles: u64,
    /// Each Renderer's stream, for `--save-streams`.
    pub streams: Vec<Stream>,
}

/// A problem that stopped a Renderer.
#[derive(Debug)]
pub struct SystemError(pub String);

impl std::fmt::Display for SystemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Commands of a region's stages, in the order the stream has them.
#[derive(Clone, Debug, Default)]
struct Plan {
    region: usize,
    setup: usize,
    prims: usize,
    shading: usize,
    output: usize,
}

/// A Renderer being simulated.
struct Board<'f> {
    index: usize,
    sim: Sim,
    stream: RendererStream<'f>,
    plans: Vec<Plan>,
    saved: Stream,
    boot_end: u64,
}

impl Board<'_> {
    /// Whether the IGC has taken every command sent so far and waits for the next.
    fn igc_free(&self) -> bool {
        let b = &self.sim.board;
        self.sim.source.is_empty()
            && b.igc_port.rxfifo.is_empty()
            && !b.igc_port.parser.busy()
            && !b.llpr.go
            && b.igc.state == IgcState::WaitCmd
    }

    /// Send region `r` to this Renderer.
    fn send(&mut self, frame: &Frame, r: usize, shading: &Shading) -> Result<(), SystemError> {
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
        self.sim.queue_stream(&s);
        self.saved.append(s);
        Ok(())
    }

    /// Step until the IGC is free (`to_end`: until the whole board is done).
    fn run(&mut self, to_end: bool) -> Result<(), SystemError> {
        loop {
            if !to_end && self.igc_free() {
                return Ok(());
            }
            match self.sim.tick() {
                None => {}
                Some(StopReason::Done) => return Ok(()),
                Some(stop) => {
                    let diag: Vec<String> = self
                        .sim
                        .diagnostics
                        .iter()
                        .rev()
                        .take(5)
                        .map(|d| format!("{}: {}", d.level, d.msg))
                        .collect();
                    return Err(SystemError(format!(
                        "Renderer {} stopped at cycle {}: {stop:?} ({})",
                        self.index,
                        self.sim.board.cycle,
                        diag.join("; ")
                    )));
                }
            }
        }
    }
}

/// The system a frame is drawn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SystemSpec {
    /// Renderers, 1..=[`MAX_RENDERERS`].
    pub renderers: usize,
    pub policy: Policy,
    /// The screen.
    pub width: u32,
    pub height: u32,
}

/// Simulate `frame` on the Renderers of `system`. `progress(regions_done)` is called as
/// regions finish.
pub fn run_frame(
    frame: &Frame,
    shading: &Shading,
    image: &McImage,
    system: &SystemSpec,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<FrameRun, SystemError> {
    let SystemSpec {
        renderers: n,
        policy,
        width,
        height,
    } = *system;
    if !(1..=MAX_RENDERERS).contains(&n) {
        return Err(SystemError(format!(
            "{n} Renderers: a system has 1..={MAX_RENDERERS}"
        )));
    }
    let opts = SimOptions {
        probes: Vec::new(),
        max_cycles: u64::MAX,
        ..SimOptions::default()
    };
    let mut boards: Vec<Board> = (0..n)
        .map(|index| {
            let mut sim = Sim::new(&opts, image.table.clone());
            sim.queue_boot(image);
            let stream = RendererStream::new(&image.table);
            Ok(Board {
                index,
                sim,
                stream,
                plans: Vec::new(),
                saved: Stream::default(),
                boot_end: 0,
            })
        })
        .collect::<Result<_, SystemError>>()?;
    boards.par_iter_mut().try_for_each(|b| {
        if let Some(stop) = b.sim.run_boot() {
            return Err(SystemError(format!("Renderer {}: boot: {stop:?}", b.index)));
        }
        b.boot_end = b.sim.board.cycle;
        let prologue = b
            .stream
            .prologue()
            .map_err(|e| SystemError(format!("stream: {e}")))?;
        b.sim.queue_stream(&prologue);
        b.saved.append(prologue);
        Ok(())
    })?;
    let regions = frame.bins.regions.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    match policy {
        Policy::RoundRobin => {
            for r in 0..regions {
                boards[r % n].send(frame, r, shading)?;
            }
            boards.par_iter_mut().try_for_each(|b| {
                b.run(true)?;
                let n = b.plans.len();
                progress(done.fetch_add(n, std::sync::atomic::Ordering::Relaxed) + n);
                Ok(())
            })?;
        }
        Policy::NextFree => {
            let bound = empty_region_cycles(frame, shading, image, &opts)?;
            boards.par_iter_mut().try_for_each(|b| b.run(false))?;
            let mut next = 0;
            while next < regions {
                // The Renderers by the cycle their IGC became free, then by index.
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by_key(|&i| (boards[i].sim.board.cycle, i));
                let first = boards[order[0]].sim.board.cycle;
                let mut batch = Vec::new();
                for &i in &order {
                    if next < regions
                        && (batch.is_empty() || boards[i].sim.board.cycle < first + bound)
                    {
                        boards[i].send(frame, next, shading)?;
                        next += 1;
                        batch.push(i);
                    }
                }
                boards
                    .par_iter_mut()
                    .filter(|b| batch.contains(&b.index))
                    .try_for_each(|b| b.run(false))?;
                progress(next);
            }
            boards.par_iter_mut().try_for_each(|b| b.run(true))?;
        }
    }
    assemble(frame, boards, width, height)
}

/// The IGC cycles of a region without primitives on a fresh board whose array is already
/// mapped there: no region can take fewer.
fn empty_region_cycles(
    frame: &Frame,
    shading: &Shading,
    image: &McImage,
    opts: &SimOptions,
) -> Result<u64, SystemError> {
    let mut sim = Sim::new(opts, image.table.clone());
    sim.queue_boot(image);
    if let Some(stop) = sim.run_boot() {
        return Err(SystemError(format!("boot: {stop:?}")));
    }
    let mut stream = RendererStream::new(&image.table);
    let prologue = stream
        .prologue()
        .map_err(|e| SystemError(format!("stream: {e}")))?;
    sim.queue_stream(&prologue);
    let empty = Frame {
        bins: super::gp::Bins {
            cols: 1,
            rows: 1,
            regions: vec![Vec::new()],
        },
        ..frame.clone()
    };
    let (s, _) = stream
        .region(&empty, 0, shading)
        .map_err(|e| SystemError(e.to_string()))?;
    let start = sim.board.cycle;
    sim.queue_stream(&s);
    let mut board = Board {
        index: 0,
        sim,
        stream,
        plans: Vec::new(),
        saved: Stream::default(),
        boot_end: start,
    };
    board.run(false)?;
    Ok(board.sim.board.cycle - start)
}

/// Turn the finished boards into the frame and its timing.
fn assemble(
    frame: &Frame,
    boards: Vec<Board>,
    width: u32,
    height: u32,
) -> Result<FrameRun, SystemError> {
    let (w, h) = (width as usize, height as usize);
    let mut pixels = vec![[0u8; 3]; w * h];
    let mut regions = Vec::new();
    let mut renderers = Vec::new();
    let mut prim_cycles = Vec::new();
    let mut streams = Vec::new();
    for b in boards {
        let cmds: Vec<&crate::engine::CommandRecord> = b.sim.user_commands().collect();
        // The prologue (FBITS, SETENABS) comes first.
        let mut k = 2;
        let mut igc_busy = 0;
        let sent: Vec<&pp5_rtl::ring::tx::OutMessage> = b
            .sim
            .tx
            .iter()
            .filter(|m| m.words.first() == Some(&FRAME_BUFFER))
            .collect();
        for (pi, plan) in b.plans.iter().enumerate() {
            let stage = |from: usize, count: usize| -> Result<u64, SystemError> {
                cmds.get(from..from + count)
                    .map(|c| c.iter().map(|r| r.cycles).sum())
                    .ok_or_else(|| {
                        SystemError(format!(
                            "Renderer {}: region {} did not run to its end",
                            b.index, plan.region
                        ))
                    })
            };
            let setup = stage(k, plan.setup)?;
            let first = cmds[k].start;
            k += plan.setup;
            let mut primitives = 0;
            for _ in 0..plan.prims {
                let c = stage(k, PRIM_COMMANDS)?;
                prim_cycles.push(c);
                primitives += c;
                k += PRIM_COMMANDS;
            }
            let shading = stage(k, plan.shading)?;
            k += plan.shading;
            let output = stage(k, plan.output)?;
            k += plan.output;
            let last = cmds[k - 1];
            let end = last.start + last.cycles;
            igc_busy += end - first;
            regions.push(RegionRun {
                region: plan.region,
                origin: frame.bins.origin(plan.region),
                renderer: b.index,
                prims: plan.prims,
                start: first - b.boot_end,
                end: end - b.boot_end,
                setup,
                primitives,
                shading,
                output,
            });
            // The region's colours as the frame buffer received them: 128 scanlines.
            let msg = sent.get(pi).ok_or_else(|| {
                SystemError(format!(
                    "Renderer {}: region {} was not transmitted",
                    b.index, plan.region
                ))
            })?;
            let (ox, oy) = frame.bins.origin(plan.region);
            for (i, word) in msg
                .words
                .iter()
                .skip(1)
                .enumerate()
                .take(ARRAY_DIM * ARRAY_DIM)
            {
                let (x, y) = (ox + (i % ARRAY_DIM) as i64, oy + (i / ARRAY_DIM) as i64);
                if x < width as i64 && y < height as i64 {
                    pixels[y as usize * w + x as usize] =
                        [*word as u8, (word >> 8) as u8, (word >> 16) as u8];
                }
            }
        }
        let bs_busy = b.sim.causes.bs_port.get(pp5_rtl::bs_port::Cause::Executing);
        let notes: Vec<String> = b
            .sim
            .diagnostics
            .iter()
            .filter(|d| d.level != "note")
            .map(|d| format!("cycle {}: {}: {}", d.cycle, d.level, d.msg))
            .collect();
        renderers.push(RendererRun {
            diagnostics: notes.iter().take(MAX_REPORTED).cloned().collect(),
            diagnostics_total: notes.len() + b.sim.dropped_diagnostics as usize,
            index: b.index,
            regions: b.plans.iter().map(|p| p.region).collect(),
            cycles: b.sim.board.cycle - b.boot_end,
            igc_busy,
            bs_busy,
            boot_cycles: b.boot_end,
        });
        streams.push(b.saved);
    }
    regions.sort_by_key(|r| r.region);
    let cycles = renderers.iter().map(|r| r.cycles).max().unwrap_or(0);
    Ok(FrameRun {
        regions,
        renderers,
        prim_cycles,
        pixels,
        cycles,
        streams,
    })
}
