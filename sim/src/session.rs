//! One simulation run from inputs to results: boot the microcode through the stream and run
//! the board until it is idle, then queue the user's messages and run them, with or without a
//! waveform, and close the waveform (and write its `.gtkw`) however the run ended. The CLI,
//! the demo, the benchmark, the Rust [`Testbench`] and the Python `pp5.Board` all boot through
//! [`prepare`] and [`boot`], so a stream starts on the same cycle in each
//! (docs/model-choices.md, "The boot").
//!
//! [`Testbench`]: https://docs.rs/pp5-testbench

use crate::asm::microcode::McImage;
use crate::engine::{Resume, Sim, SimOptions, StopReason};
use crate::microcode_view::suite_coverage;
use crate::out_file::{self, named, OutFile};
use crate::stream::Stream;
use crate::trace::board::BoardTrace;
use crate::trace::{write_gtkw_view, Declaration, SignalInfo, TraceConfig, WaveFormat, WaveWriter};
use pp5_rtl::igc::UinstNames;
use std::io;
use std::path::{Path, PathBuf};

/// Where and how to write a waveform.
#[derive(Clone, Debug)]
pub struct WaveSpec {
    pub path: PathBuf,
    pub format: WaveFormat,
    pub cfg: TraceConfig,
    /// Also write `<path without extension>.gtkw`.
    pub gtkw: bool,
    /// Trace the microcode boot too. By default the waveform starts where the boot ends, so
    /// a first look shows the user's stream (the boot is ~1000 cycles of MCWRITEs).
    pub trace_boot: bool,
    /// EMCs (0..=63) whose QEE is traced as `renderer.emc[k].qee`; `None`: EMC 0 and the
    /// EMCs holding the probe pixels.
    pub emcs: Option<Vec<usize>>,
    /// Cycles the `.gtkw` shows across the wave pane at first.
    pub view_cycles: u64,
    /// Where each microinstruction came from, for `renderer.igc.uinst.at` and `.src`
    /// ([`crate::microcode_view::MicrocodeSources::uinst_names`]); `None`: no such signals.
    pub uinst_names: Option<UinstNames>,
}

impl WaveSpec {
    /// A waveform of the default scopes at `path` (format from the extension, VCD otherwise).
    pub fn new(path: &Path) -> WaveSpec {
        WaveSpec {
            path: path.to_path_buf(),
            format: WaveFormat::from_path(path).unwrap_or(WaveFormat::Vcd),
            cfg: TraceConfig::default(),
            gtkw: true,
            trace_boot: false,
            emcs: None,
            view_cycles: crate::trace::gtkw::VISIBLE_CYCLES,
            uinst_names: None,
        }
    }

    /// The `.gtkw` path beside the waveform.
    pub fn gtkw_path(&self) -> PathBuf {
        self.path.with_extension("gtkw")
    }
}

/// Inputs of a run.
pub struct RunSpec<'a> {
    pub image: &'a McImage,
    /// Load the microcode through the stream first (the default, as the hardware must).
    pub boot: bool,
    pub stream: &'a Stream,
    pub opts: SimOptions,
    pub wave: Option<WaveSpec>,
}

/// Outputs of a run.
pub struct RunResult {
    pub sim: Sim,
    pub stop: StopReason,
    /// Signals written to the waveform, if one was written.
    pub signals: Vec<SignalInfo>,
}

/// Problems with the inputs (as opposed to I/O errors).
#[derive(Debug)]
pub enum RunError {
    Input(String),
    /// A waveform selection that selects nothing (scopes no signal matches, a window after
    /// the run's end): a usage error.
    Selection(String),
    Io(io::Error),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Input(m) | RunError::Selection(m) => f.write_str(m),
            RunError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Refuse `--scope` prefixes that select no signal (but `clk`), naming the scopes that exist,
/// as the declaration walk found them.
fn check_scopes(decl: &Declaration) -> Result<(), RunError> {
    let Some(u) = decl.unmatched_scopes() else {
        return Ok(());
    };
    Err(RunError::Selection(format!(
        "--scope {}: no signal has that path or prefix; the scopes are: {}",
        u.unmatched.join(", "),
        u.scopes.join(", ")
    )))
}

impl From<io::Error> for RunError {
    fn from(e: io::Error) -> Self {
        RunError::Io(e)
    }
}

/// Build the board of `spec` without running it: the microcode boot queued on the IGC port
/// (or, with `boot: false`, the store written directly). The stream is not queued: a run
/// boots first ([`boot`]), then queues `spec.stream` ([`Sim::queue_stream`]).
pub fn prepare(spec: &RunSpec) -> Result<Sim, RunError> {
    spec.stream
        .check_sendable("stream")
        .map_err(|e| RunError::Input(e.to_string()))?;
    // Probe pixels exist for the waveform only; without one they would cost array time.
    let mut sim = if spec.wave.is_none() && !spec.opts.probes.is_empty() {
        let opts = SimOptions {
            probes: Vec::new(),
            ..spec.opts.clone()
        };
        Sim::new(&opts, spec.image.table.clone())
    } else {
        Sim::new(&spec.opts, spec.image.table.clone())
    };
    if spec.boot {
        queue_boot(&mut sim, spec.image);
    } else {
        // Without a boot the store is written directly (a testbench shortcut, never the
        // default): the IGC still starts in RMode, so leave it as RMODEOFF would.
        for &(a, v) in &spec.image.words {
            sim.board.igc.store.write(a, v).map_err(RunError::Input)?;
        }
        sim.board.igc.state = pp5_rtl::igc::IgcState::Run;
        sim.board.igc.pc = 0;
        sim.set_image(spec.image);
    }
    if let Some(w) = &spec.wave {
        // A waveform skips the flow-control unit while it does not change
        // (`TraceCtx::fc_key`).
        sim.trace.set_keyed(true, &sim.board);
        // The probes are sampled in the cycles the waveform shows them only.
        let cfg = &w.cfg;
        let shown = (sim.trace.ctx.probes.iter())
            .any(|p| cfg.selects_within(&format!("renderer.{}", p.scope)));
        let (first, last) = cfg.window.unwrap_or((0, u64::MAX));
        sim.trace.sample_probes_in(if shown {
            first..=last
        } else {
            BoardTrace::NO_CYCLES
        });
    }
    if let Some(names) = spec.wave.as_ref().and_then(|w| w.uinst_names.clone()) {
        sim.trace.ctx.igc.set_uinsts(names);
    }
    if let Some(emcs) = spec.wave.as_ref().and_then(|w| w.emcs.as_ref()) {
        sim.trace.ctx.emcs = Some(emc_mask(emcs)?);
    }
    // A watchpoint's or condition's signal is one the waveform has (with these probes and
    // EMCs): an unknown name is a usage error.
    sim.check_breakpoints().map_err(RunError::Selection)?;
    sim.arm_breakpoints();
    Ok(sim)
}

/// Queue the boot that loads `image` ([`Sim::queue_boot`]) and, with
/// `PP5_MICROCODE_COVERAGE` set, count the board's microcode for the test suite's coverage
/// ([`crate::microcode_view::suite_coverage`]).
pub fn queue_boot(sim: &mut Sim, image: &McImage) {
    sim.queue_boot(image);
    sim.set_tap(suite_coverage::for_image(image, sim.board.igc.state));
}

/// Run a [`prepare`]d board's boot until the board is idle again (sampling `wave`, if any):
/// `Done` when the microcode is loaded, otherwise why the boot stopped (the cycle limit, an
/// interrupt, a stuck IGC, a deadlock). The user's stream is queued after this returns, so its
/// first word enters the port on the first cycle after the boot (`boot_cycles`).
pub fn boot(
    sim: &mut Sim,
    wave: Option<&mut WaveWriter>,
    progress: impl FnMut(u64, u64, u64),
) -> io::Result<StopReason> {
    // Breakpoints and watchpoints are armed for the user's stream, after the boot.
    let breakpoints = sim.breakpoint.take();
    let stop = sim.run(wave, progress);
    sim.breakpoint = breakpoints;
    sim.arm_breakpoints();
    let stop = stop?;
    if stop == StopReason::Done {
        sim.boot_cycles = Some(sim.board.cycle);
        if let Some(p) = &mut sim.profile {
            // The profile's shares are of the user's stream.
            p.mark_boot();
        }
    }
    Ok(stop)
}

/// The selection mask (bit k = EMC k) of a list of EMC numbers.
fn emc_mask(emcs: &[usize]) -> Result<u64, RunError> {
    emcs.iter().try_fold(0u64, |m, &k| {
        if k < pp5_rtl::emc_array::NUM_EMCS {
            Ok(m | 1 << k)
        } else {
            Err(RunError::Input(format!(
                "EMC {k} cannot be traced: EMCs are numbered 0..=63"
            )))
        }
    })
}

/// Run `spec` to the end. The waveform is closed and its `.gtkw` written however the run
/// stopped (done, cycle limit, deadlock, stuck IGC, interrupt); both are written under
/// temporary names and renamed into place when complete, so an error of the run itself (a
/// write error: a full disk) leaves neither behind ([`crate::out_file`]). I/O errors name
/// the file.
pub fn run(
    spec: RunSpec,
    progress: impl FnMut(u64, u64, u64),
    interrupt: Option<&std::sync::Arc<std::sync::atomic::AtomicBool>>,
) -> Result<RunResult, RunError> {
    run_then(spec, &[], |_, _| {}, progress, interrupt)
}

/// [`run`], going on from a breakpoint stop as each of `then` says in turn (gdb's `stepi`,
/// `next`, `finish`, `continue`: `pp5 run --then`); `on_stop` is shown each stop gone on
/// from. A run that ends otherwise (done, the cycle limit) takes no more of `then`.
pub fn run_then(
    spec: RunSpec,
    then: &[Resume],
    mut on_stop: impl FnMut(&Sim, &StopReason),
    mut progress: impl FnMut(u64, u64, u64),
    interrupt: Option<&std::sync::Arc<std::sync::atomic::AtomicBool>>,
) -> Result<RunResult, RunError> {
    let mut sim = prepare(&spec)?;
    // The waveform's layout, made once before the run (the walk's shape is fixed by the
    // configuration): a `--scope` that selects nothing stops the run before it starts.
    let mut decl = match &spec.wave {
        Some(w) => {
            let d = Declaration::new(&sim.trace_view(), w.format, w.cfg.clone())
                .map_err(|e| named(&w.path, e))?;
            check_scopes(&d)?;
            Some(d)
        }
        None => None,
    };
    if let Some(flag) = interrupt {
        sim.set_interrupt_flag(flag.clone());
    }
    let out = spec.wave.as_ref().map(|w| (w, OutFile::new(&w.path)));
    let mut create = |sim: &Sim| match (&out, decl.take()) {
        (Some((w, o)), Some(d)) => WaveWriter::declared(o.path(), d, sim.board.cycle)
            .map(Some)
            .map_err(|e| named(&w.path, e)),
        _ => Ok(None),
    };
    let traced_boot = spec.wave.as_ref().is_some_and(|w| w.trace_boot);
    let mut wave = if spec.boot && !traced_boot {
        None
    } else {
        create(&sim)?
    };
    let mut stop = if spec.boot {
        boot(&mut sim, wave.as_mut(), &mut progress)
    } else {
        Ok(StopReason::Done)
    };
    if matches!(stop, Ok(StopReason::Done)) {
        sim.queue_stream(spec.stream);
        if wave.is_none() {
            wave = create(&sim)?;
        }
        stop = sim.run(wave.as_mut(), &mut progress);
        for &how in then {
            match &stop {
                Ok(at @ StopReason::Breakpoint(_)) => on_stop(&sim, at),
                _ => break,
            }
            sim.resume(how);
            stop = sim.run(wave.as_mut(), &mut progress);
        }
    } else if wave.is_none() {
        // The boot itself did not finish: the waveform holds the state where it stopped
        // (and its `.gtkw`), and the result says why.
        wave = create(&sim)?;
        if let Some(w) = wave.as_mut() {
            stop = w.sample(sim.board.cycle, &sim.trace_view()).and(stop);
        }
    }
    let signals = wave
        .as_ref()
        .map(|w| w.signals().to_vec())
        .unwrap_or_default();
    let first = wave
        .as_ref()
        .and_then(WaveWriter::first_sample_cycle)
        .unwrap_or(0);
    // A run stopped at a breakpoint opens its view on the stop (the last quarter of the
    // window after it), not on the trace's start.
    let view = spec.wave.as_ref().map_or(0, |w| w.view_cycles);
    let start = match &stop {
        Ok(StopReason::Breakpoint(_)) => first.max(sim.board.cycle.saturating_sub(view * 3 / 4)),
        _ => first,
    };
    let start_ps = start.saturating_mul(pp5_rtl::clock::CYCLE_PS);
    let closed = match wave {
        Some(w) => w.finish(),
        None => Ok(()),
    };
    let Some((w, o)) = out else {
        return Ok(RunResult {
            sim,
            stop: stop?,
            signals,
        });
    };
    // On an error the temporary waveform is removed (`o` dropped) and no `.gtkw` written.
    let stop = stop
        .and_then(|s| closed.map(|()| s))
        .map_err(|e| named(&w.path, e))?;
    if let Some((first, _)) = w.cfg.window {
        let end = sim.board.cycle;
        if first > end {
            // Nothing was traced: the file would hold a header only.
            return Err(RunError::Selection(format!(
                "--window starts at cycle {first}, after the run ended at cycle {end}: \
                 nothing to trace"
            )));
        }
    }
    if w.gtkw {
        // Without a scope selection the view opens on the IGC and the array.
        let focus = w.cfg.scopes.is_empty();
        out_file::commit_with_companion(o, &w.path, &w.gtkw_path(), |p| {
            write_gtkw_view(p, &w.path, &signals, start_ps, w.view_cycles, focus)
        })?;
    } else {
        o.commit().map_err(|e| named(&w.path, e))?;
    }
    Ok(RunResult { sim, stop, signals })
}
