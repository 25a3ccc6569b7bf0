//! A simulated run of `demo` or `run`: the options become a [`RunSpec`], the run goes with a
//! progress bar and Ctrl-C, and its report and files are written after it.

use crate::common::Common;
use crate::{input, io_fail, Fail, EXIT_IO, EXIT_USAGE};
use pp5_sim::asm::microcode::McImage;
use pp5_sim::engine::{Keep, Resume, Sim, SimOptions, StopReason, TxSink, Until};
use pp5_sim::microcode_view::annotate::Annotation;
use pp5_sim::microcode_view::profile::Profile;
use pp5_sim::microcode_view::{coverage, parse_until, MicrocodeSources, StopReport};
use pp5_sim::out_file;
use pp5_sim::records::{MAX_REPORT_MESSAGES, MAX_REPORT_RECORDS};
use pp5_sim::report::Summary;
use pp5_sim::session::{run_then, RunError, RunResult, RunSpec, WaveSpec};
use pp5_sim::stream::binary::SentWriter;
use pp5_sim::stream::Stream;
use pp5_sim::trace::{gtkwave_command, TraceConfig, WaveFormat};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The engine's options: the cycle limit, the records the report needs, the probe pixels,
/// the microcode profile and the breakpoint.
fn sim_options(common: &Common, until: Vec<Until>) -> SimOptions {
    // The table prints the first `rows` commands and per-name totals, so a long run keeps
    // only those records; JSON and CSV list every command.
    // JSON and CSV list every command up to MAX_REPORT_RECORDS (then count the rest), so
    // memory stays bounded however long the run.
    let keep = match (common.report.as_str(), common.rows) {
        ("json" | "csv", _) | (_, 0) => Keep::First(MAX_REPORT_RECORDS),
        (_, rows) => Keep::First(rows),
    };
    let mut opts = SimOptions {
        max_cycles: common.max_cycles,
        keep,
        profile: common.profile.is_some() || common.coverage.is_some() || common.annotate.is_some(),
        until,
        // `--tx-out` streams every message to its file as it is sent (`TxWriter`): the
        // report keeps its first ones only.
        keep_messages: MAX_REPORT_MESSAGES,
        ..SimOptions::default()
    };
    if !common.probe.is_empty() {
        opts.probes = common.probe.clone();
    }
    opts
}

/// The waveform to write at `path`, as the options select it.
fn wave_spec(common: &Common, path: PathBuf, sources: Option<&MicrocodeSources>) -> WaveSpec {
    WaveSpec {
        format: WaveFormat::from_path(&path).unwrap_or(WaveFormat::Vcd),
        cfg: TraceConfig {
            scopes: common.scope.clone(),
            window: common.window,
        },
        gtkw: true,
        trace_boot: common.trace_boot || common.window.is_some(),
        emcs: (!common.trace_emc.is_empty()).then(|| {
            let mask = common.trace_emc.iter().fold(0, |m, k| m | k);
            (0..64).filter(|k| mask >> k & 1 != 0).collect()
        }),
        view_cycles: common.view,
        uinst_names: sources.map(MicrocodeSources::uinst_names),
        path,
    }
}

/// Run `spec` with a progress bar (shown once a run is long), stopped by Ctrl-C, SIGTERM or
/// SIGHUP ([`crate::interrupt`]), going on from breakpoint stops as `then` says (each stop
/// gone on from is reported on stderr, with `sources`' lines).
fn run_with_progress(
    spec: RunSpec,
    total_words: u64,
    then: &[Resume],
    sources: Option<&MicrocodeSources>,
) -> Result<RunResult, Fail> {
    let interrupt = crate::interrupt::flag();
    let bar = indicatif::ProgressBar::new(total_words.max(1));
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} words  {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let progress = |cycle: u64, delivered: u64, total: u64| {
        if cycle >= 1 << 22 {
            bar.set_length(total.max(1));
            bar.set_position(delivered);
            bar.set_message(format!("{cycle} cycles"));
        }
    };
    let on_stop = |sim: &Sim, _: &StopReason| {
        if let Some(report) = StopReport::of(sim, sources) {
            bar.suspend(|| errln!("{}", report.text().trim_end()));
        }
    };
    let result = run_then(spec, then, on_stop, progress, Some(&interrupt));
    bar.finish_and_clear();
    result.map_err(|e| match e {
        RunError::Input(m) => input(m),
        RunError::Selection(m) => Fail(EXIT_USAGE, m),
        RunError::Io(e) => Fail(EXIT_IO, e.to_string()),
    })
}

/// `--until` (`--break`), `--until-after`, `--until-cycle` and `--watch` as breakpoints of
/// `image`'s microcode (exit 2 for an unknown label, naming the nearest known ones; a
/// watchpoint's unknown signal is refused when the run is prepared).
fn breakpoints(common: &Common, image: &McImage) -> Result<Vec<Until>, Fail> {
    let usage = |m| Fail(EXIT_USAGE, m);
    let mut list = Vec::new();
    for spec in &common.until {
        list.push(parse_until(spec, image, "--until").map_err(usage)?);
    }
    for spec in &common.until_after {
        list.push(
            parse_until(spec, image, "--until-after")
                .map_err(usage)?
                .after(),
        );
    }
    list.extend(common.until_cycle.map(Until::Cycle));
    for spec in &common.watch {
        list.push(Until::watch(spec).map_err(usage)?);
    }
    if list.is_empty() && !common.then.is_empty() {
        return Err(usage(
            "--then goes on from a stop: set a breakpoint or watchpoint to stop at first \
             (--until, --until-after, --until-cycle or --watch)"
                .into(),
        ));
    }
    Ok(list)
}

/// Run `stream` as `common` says, print the report, write the files asked for; the exit
/// code of how the run ended. `sources` are the microcode's sources (for the coverage and
/// the profile).
pub fn simulate(
    stream: &Stream,
    common: &Common,
    wave: Option<PathBuf>,
    (image, sources): (&McImage, Option<&MicrocodeSources>),
    tx_out: Option<&Path>,
) -> Result<u8, Fail> {
    if common.coverage.is_some() && sources.is_none() {
        return Err(Fail(
            EXIT_USAGE,
            "--coverage needs the microcode's sources (.pp5uc), not an image (.json)".into(),
        ));
    }
    let until = breakpoints(common, image)?;
    let wave = wave.map(|p| wave_spec(common, p, sources));
    let tx = tx_out.map(TxWriter::create).transpose().map_err(io_fail)?;
    let spec = RunSpec {
        image,
        boot: !common.no_boot,
        stream,
        opts: SimOptions {
            uinst_names: sources.map(MicrocodeSources::uinst_names),
            tx_sink: tx.as_ref().map(TxWriter::sink),
            ..sim_options(common, until)
        },
        wave: wave.clone(),
    };
    let mut r = run_with_progress(spec, stream.total_words() as u64, &common.then, sources)?;
    // gdb's stop: where, the source line, the registers, the backtrace (before the report
    // takes the command records).
    let stop_report = matches!(r.stop, StopReason::Breakpoint(_))
        .then(|| StopReport::of(&r.sim, sources))
        .flatten();
    if let Some(report) = &stop_report {
        errln!("{}", report.text().trim_end());
    }
    let mut summary = Summary::take(&mut r.sim, &r.stop);
    summary.stop_report = stop_report;
    let profile = r.sim.profile.as_ref().map(|p| {
        Profile::of(p, sources, |pc| {
            r.sim.label_of(pc).map(|(l, o)| (l.to_string(), o))
        })
    });
    if common.profile.is_some() {
        summary.profile = profile.clone();
    }
    let annotation = match (&common.annotate, &r.sim.profile) {
        (Some(_), Some(p)) => Some(Annotation::of(p, sources, image.uinsts, |pc| {
            r.sim.label_of(pc).map(|(l, o)| (l.to_string(), o))
        })),
        _ => None,
    };
    let print_annotation = common.annotate.as_deref() == Some(Path::new("-"));
    summary.annotate = annotation.clone();
    match common.report.as_str() {
        "json" => crate::stdout::with(|w| {
            summary
                .write_json(&mut *w)
                .and_then(|()| w.write_all(b"\n"))
        })?,
        "csv" => crate::stdout::with(|w| summary.write_csv(w))?,
        _ => {
            out!("{}", summary.table(common.rows));
            if let (Some(n), Some(p)) = (common.profile, &profile) {
                out!("{}", p.table(n));
            }
            if let (true, Some(a)) = (print_annotation, &annotation) {
                out!("{}", a.text());
            }
        }
    }
    if common.report != "table" {
        if let Some(note) = summary.left_out() {
            errln!("note: {note}");
        }
    }
    write_outputs(&r, common)?;
    if let (Some(path), Some(a)) = (&common.annotate, &annotation) {
        if !print_annotation {
            out_file::write(path, a.text()).map_err(io_fail)?;
            errln!("annotated listing: {}", path.display());
        }
    }
    if let Some(tx) = tx {
        tx.finish(&r.sim.tx)?;
    }
    if let (Some(path), Some(p), Some(src)) = (&common.coverage, &r.sim.profile, sources) {
        let name = path
            .file_stem()
            .map_or("pp5".into(), |s| s.to_string_lossy());
        out_file::write(path, coverage::lcov(p, src, &name)).map_err(io_fail)?;
        errln!(
            "coverage: {} (render it: genhtml {} -o coverage-html)",
            path.display(),
            path.display()
        );
    }
    if let Some(w) = &wave {
        errln!(
            "waveform: {} ({} signals)",
            w.path.display(),
            r.signals.len()
        );
        errln!("open it:  {}", gtkwave_command(&w.path, &w.gtkw_path()));
    }
    let code = pp5_sim::exit::of_run(&r.stop, r.sim.board.status());
    // A breakpoint still set at the end was never reached (a reached one is taken off).
    let missed = r.stop == StopReason::Done && r.sim.breakpoint.is_some();
    Ok(if code == pp5_sim::exit::OK && missed {
        pp5_sim::exit::BREAKPOINT_MISSED
    } else {
        code
    })
}

/// `--tx-out`: the file every message the board sends is written to as it is sent (kept
/// under its temporary name until the run ends well).
struct TxWriter {
    path: PathBuf,
    out: out_file::OutFile,
    writer: Arc<Mutex<Option<SentWriter<BufWriter<File>>>>>,
}

impl TxWriter {
    fn create(path: &Path) -> std::io::Result<TxWriter> {
        let out = out_file::OutFile::new(path);
        let file = File::create(out.path()).map_err(|e| out_file::named(path, e))?;
        let writer = Arc::new(Mutex::new(Some(SentWriter::new(BufWriter::new(file)))));
        Ok(TxWriter {
            path: path.to_path_buf(),
            out,
            writer,
        })
    }

    /// The engine's end of it.
    fn sink(&self) -> TxSink {
        let w = self.writer.clone();
        TxSink(Arc::new(Mutex::new(move |m: &_| {
            let mut w = w.lock().map_err(|_| std::io::Error::other("poisoned"))?;
            match w.as_mut() {
                Some(w) => w.push(m),
                None => Ok(()),
            }
        })))
    }

    /// The run ended: the file takes its name, or the first write error is the command's.
    fn finish(self, log: &pp5_sim::engine::MessageLog) -> Result<(), Fail> {
        let named = |e: String| Fail(EXIT_IO, format!("{}: {e}", self.path.display()));
        if let Some(e) = &log.sink_error {
            return Err(named(e.clone()));
        }
        let writer = self.writer.lock().ok().and_then(|mut w| w.take());
        let count = writer.as_ref().map_or(0, |w| w.count);
        if let Some(w) = writer {
            w.finish().map_err(|e| named(e.to_string()))?;
        }
        self.out.commit().map_err(io_fail)?;
        errln!(
            "Ring messages sent: {} ({count} messages)",
            self.path.display()
        );
        Ok(())
    }
}

/// After the run: `--peek`, `--dump-mem`, `--image`.
fn write_outputs(r: &RunResult, common: &Common) -> Result<(), Fail> {
    for &(x, y, a, l) in &common.peek {
        let v = r.sim.board.array.peek(x, y, a, l);
        errln!("peek pixel ({x},{y}) mem[{a}:{l}] = {v} ({v:#x})");
    }
    if let Some(p) = &common.dump_mem {
        let mut out = Vec::with_capacity(128 * 128 * 26);
        for y in 0..128 {
            for x in 0..128 {
                for byte in 0..26 {
                    out.push(r.sim.board.array.peek(x, y, byte * 8, 8) as u8);
                }
            }
        }
        out_file::write(p, out).map_err(io_fail)?;
        errln!("pixel memory written to {}", p.display());
    }
    for spec in &common.image {
        out_file::write_with(&spec.path, |p| {
            pp5_sim::image::write_image_at(&r.sim.board.array, spec.kind, p)
        })
        .map_err(io_fail)?;
        errln!("image: {}", spec.path.display());
    }
    Ok(())
}
