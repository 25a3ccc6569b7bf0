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

mod assemble;
mod board;
pub mod bounds;
mod cosim;
pub mod feed;
pub mod gp_cost;
mod replay;
pub mod ring;
pub mod system_wave;
pub mod timeline;

use super::gp::Frame;
use super::region::RendererStream;
use super::shading::Shading;
use crate::asm::microcode::McImage;
use crate::engine::{MicrocodeProfile, Sim, SimOptions, StopReason};
use crate::stream::Stream;
use board::Board;
pub use feed::Feed;
use gp_cost::GpSchedule;
use rayon::prelude::*;
pub use replay::{replay_by_default, DataTaps, Recorded};
use ring::Ring;

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
    /// Its IGC cycles by what the IGC did: executing its commands (`work`: set-up,
    /// primitives, shading, output it can make progress on), waiting on PIGC's semaphore for
    /// a free backing-store buffer (`wait_buffer`: the previous region's pixels still going
    /// out, on the BS port or held by the Ring), waiting for the transfer unit
    /// (`wait_transfer`: BSWAIT, a BSSTORE behind another transfer). The rest of its cycles
    /// (`end - start` less these) it waited for a command's words.
    pub work: u64,
    pub wait_buffer: u64,
    pub wait_transfer: u64,
}

impl RegionRun {
    /// Its IGC cycles waiting for a command's words (between commands, or for the rest of
    /// one): the GPs, the Ring, or the port's word rate.
    pub fn wait_input(&self) -> u64 {
        (self.end - self.start).saturating_sub(self.work + self.wait_buffer + self.wait_transfer)
    }
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
    /// The status word's error bits at the end of the frame (seed §III.4.1-5; sticky until
    /// a Ring reset). The IGC timeout (bit 30) alone is a finding about the system, not an
    /// error in the frame ([`crate::render::study::Study::igc_timeout`]); any other bit means
    /// the frame went wrong on this Renderer.
    pub error_bits: u32,
    /// Its IGC's cycles from the frame's start (the end of its boot) to the end of its last
    /// region, by what the IGC did (they add up to that span): executing its commands
    /// (`work`; the two prologue commands included), waiting for a command's words
    /// (`wait_input`: before, between and within its regions' commands), for a free
    /// backing-store buffer (`wait_buffer`, PIGC), for the transfer unit (`wait_transfer`,
    /// BSWAIT). After its last region it is `done` (the frame's cycles less that span).
    pub work: u64,
    pub wait_input: u64,
    pub wait_buffer: u64,
    pub wait_transfer: u64,
    /// Cycles its BS port held a packet the Ring had no channel for (TxReady low).
    pub bs_held: u64,
    /// Of its cycles (boot included), those the simulator passed at once as still cycles
    /// (docs/timing.md, "Still cycles"): how the simulation ran, not what the board did,
    /// so not in the report.
    #[serde(skip)]
    pub still_cycles: u64,
    /// The longest a command waited in the LLPR registers for the IGC to take it, in 20 MHz
    /// cycles: the IGC timeout's count at its highest (status bit 30 when it reaches
    /// 65,536, `pp5_rtl::status::IGC_TIMEOUT_RING_CYCLES`).
    pub longest_command_wait: u64,
}

impl RendererRun {
    /// The cycle its last region ended (0 without regions).
    pub fn last_end(&self) -> u64 {
        self.work + self.wait_input + self.wait_buffer + self.wait_transfer
    }
}

/// Diagnostics kept per Renderer in the report.
pub const MAX_REPORTED: usize = 10;

/// A simulated frame.
pub struct FrameRun {
    pub regions: Vec<RegionRun>,
    pub renderers: Vec<RendererRun>,
    /// Cycles of every primitive-in-a-region (the commands that draw it there).
    pub prim_cycles: Vec<u64>,
    /// The frame as the frame buffer received it, row-major RGB (empty for a replayed
    /// frame, [`DataTaps::Replay`], which computes timing only).
    pub pixels: Vec<[u8; 3]>,
    /// The frame's cycles: the last Renderer's.
    pub cycles: u64,
    /// Each Renderer's stream, for `--save-streams` (empty unless
    /// [`SystemSpec::keep_streams`]).
    pub streams: Vec<Stream>,
    /// The GPs and the Ring, when they were modelled ([`SystemSpec::feed`]).
    pub feed: Option<FeedRun>,
    /// Every Renderer's microcode profile added together, when asked for
    /// ([`SystemSpec::profile`]): the boot and the frame, for the coverage of the microcode.
    pub profile: Option<MicrocodeProfile>,
    /// What its Renderers' data decided, when recorded ([`DataTaps::Record`]) and
    /// replayable: the study's other frames replay it.
    pub recorded: Option<Recorded>,
}

/// The Graphics Processors and the Ring over a frame.
#[derive(Clone, Debug)]
pub struct FeedRun {
    pub feed: Feed,
    /// When each triangle was done (`None`: GPs unbounded).
    pub gp: Option<GpSchedule>,
    /// Every message the Ring carried: region streams to the Renderers, pixels to the frame
    /// buffer.
    pub ring: Ring,
    /// Each Renderer's IGC waiting for a command: the cycles (from the frame's start) it
    /// began (`true`) and stopped (`false`) waiting.
    pub waits: Vec<Vec<(u64, bool)>>,
    /// The cycle the frame buffer received the last region's last word.
    pub fb_end: u64,
    /// Messages that asked for the Ring in the first slot after the GPs had them ready (the
    /// GPs may have delayed them). None: faster GPs would give the same frame, cycle for
    /// cycle.
    pub gp_waits: usize,
}

/// A problem that stopped a Renderer.
#[derive(Debug)]
pub struct SystemError(pub String);

impl std::fmt::Display for SystemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The system a frame is drawn on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SystemSpec {
    /// Renderers, 1..=[`MAX_RENDERERS`].
    pub renderers: usize,
    pub policy: Policy,
    /// The screen.
    pub width: u32,
    pub height: u32,
    /// Keep every Renderer's whole stream in [`FrameRun::streams`] (to save or re-run it);
    /// otherwise each region's stream is dropped once sent.
    pub keep_streams: bool,
    /// The GPs and the Ring in front of the Renderers (`None`: not modelled: every
    /// Renderer's commands arrive at its port's rate, as fast as it takes them).
    pub feed: Option<Feed>,
    /// Keep each Renderer's microcode profile, merged into [`FrameRun::profile`] (`pp5
    /// render --coverage`).
    pub profile: bool,
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
    run_frame_tapped(frame, shading, image, system, progress, DataTaps::Compute)
}

/// [`run_frame`], the Renderers' data recorded or replayed as `taps` says (a replay that
/// is not the recorded frame is an error: run the frame with [`DataTaps::Compute`] then).
pub fn run_frame_tapped(
    frame: &Frame,
    shading: &Shading,
    image: &McImage,
    system: &SystemSpec,
    progress: &(dyn Fn(usize) + Sync),
    taps: DataTaps,
) -> Result<FrameRun, SystemError> {
    let mut boards = boot_boards(image, system)?;
    taps.install(&mut boards);
    let (mut boards, feed_run) = run_boards(frame, shading, image, system, boards, progress)?;
    let recorded = taps.finish(&mut boards)?;
    let replayed = matches!(taps, DataTaps::Replay(_));
    let mut run = assemble::assemble(frame, boards, system.width, system.height, !replayed)?;
    if let Some(f) = feed_run {
        run.cycles = run.cycles.max(f.fb_end);
        run.feed = Some(f);
    }
    run.recorded = recorded;
    Ok(run)
}

/// Every Renderer of `system` booted, its prologue queued.
fn boot_boards<'f>(image: &'f McImage, system: &SystemSpec) -> Result<Vec<Board<'f>>, SystemError> {
    let n = system.renderers;
    if !(1..=MAX_RENDERERS).contains(&n) {
        return Err(SystemError(format!(
            "{n} Renderers: a system has 1..={MAX_RENDERERS}"
        )));
    }
    let opts = board_options(system);
    // Every board boots the same microcode with the same options, so one boot serves all:
    // the others are copies of it, cycle for cycle what booting each would give.
    let mut booted = Sim::new(&opts, image.table.clone());
    crate::session::queue_boot(&mut booted, image);
    match crate::session::boot(&mut booted, None, |_, _, _| {}) {
        Ok(StopReason::Done) => {}
        stop => return Err(SystemError(format!("Renderer boot: {stop:?}"))),
    }
    let boot_end = booted.board.cycle;
    (0..n)
        .map(|index| {
            let stream = RendererStream::new(&image.table);
            let mut b = Board::new(index, booted.clone(), stream, system.keep_streams);
            b.boot_end = boot_end;
            let prologue = b
                .stream
                .prologue()
                .map_err(|e| SystemError(format!("stream: {e}")))?;
            b.queue(prologue);
            Ok(b)
        })
        .collect()
}

/// Run the booted `boards` through the frame: with the GPs and the Ring in front
/// (`system.feed`, whose run is returned too), or the Renderers alone.
fn run_boards<'f>(
    frame: &'f Frame,
    shading: &Shading,
    image: &McImage,
    system: &SystemSpec,
    mut boards: Vec<Board<'f>>,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<(Vec<Board<'f>>, Option<FeedRun>), SystemError> {
    let (n, policy) = (boards.len(), system.policy);
    if let Some(f) = system.feed {
        let (boards, feed_run) = cosim::run(frame, shading, boards, policy, f, progress)?;
        return Ok((boards, Some(feed_run)));
    }
    let opts = board_options(system);
    let regions = frame.bins.regions.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    match policy {
        Policy::RoundRobin => {
            for r in 0..regions {
                boards[r % n].pending.push_back(r);
            }
            boards.par_iter_mut().try_for_each(|b| {
                b.run(frame, shading, true)?;
                let n = b.plans.len();
                progress(done.fetch_add(n, std::sync::atomic::Ordering::Relaxed) + n);
                Ok(())
            })?;
        }
        Policy::NextFree => {
            let bound = empty_region_cycles(frame, shading, image, &opts)?;
            boards
                .par_iter_mut()
                .try_for_each(|b| b.run(frame, shading, false))?;
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
                        let now = boards[i].sim.board.cycle;
                        boards[i].send_at(frame, next, shading, Some(now))?;
                        next += 1;
                        batch.push(i);
                    }
                }
                boards
                    .par_iter_mut()
                    .filter(|b| batch.contains(&b.index))
                    .try_for_each(|b| b.run(frame, shading, false))?;
                progress(next);
            }
            boards
                .par_iter_mut()
                .try_for_each(|b| b.run(frame, shading, true))?;
        }
    }
    Ok((boards, None))
}

/// The simulator's options for every Renderer of `system`.
fn board_options(system: &SystemSpec) -> SimOptions {
    SimOptions {
        probes: Vec::new(),
        max_cycles: u64::MAX,
        profile: system.profile,
        ..SimOptions::default()
    }
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
    crate::session::queue_boot(&mut sim, image);
    match crate::session::boot(&mut sim, None, |_, _, _| {}) {
        Ok(StopReason::Done) => {}
        stop => return Err(SystemError(format!("boot: {stop:?}"))),
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
    let mut board = Board::new(0, sim, stream, false);
    board.boot_end = start;
    board.run(frame, shading, false)?;
    Ok(board.sim.board.cycle - start)
}
