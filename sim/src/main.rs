//! `pp5`: the command-line front end of pp5-rtl.
//!
//! Exit codes (for scripts): 0 success; 1 I/O or internal error; 2 usage error; 3 bad input
//! (stream, microcode or file); 4 simulated hardware error (error bits set, IGC stuck);
//! 5 the cycle limit stopped the run; 130 interrupted.

/// Print to standard output through [`stdout_write`] (`?` on its error: an I/O error other
/// than a closed pipe).
macro_rules! out {
    ($($t:tt)*) => { crate::stdout_write(format_args!($($t)*))? };
}

/// [`out!`] with a newline.
macro_rules! outln {
    ($($t:tt)*) => { crate::stdout_write(format_args!("{}\n", format_args!($($t)*)))? };
}

/// Print a line to standard error; if it cannot be written (closed), there is no one to tell.
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($t)*);
    }};
}

mod cli_files;
mod cli_render;

use clap::{Args, Parser, Subcommand};
use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::engine::{Keep, SimOptions};
use pp5_sim::out_file;
use pp5_sim::report::Summary;
use pp5_sim::session::{run, RunError, RunSpec, WaveSpec};
use pp5_sim::stream::{binary, text, Stream};
use pp5_sim::trace::{gtkwave_command, TraceConfig, WaveFormat};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const EXIT_IO: u8 = pp5_sim::exit::IO;
const EXIT_INPUT: u8 = pp5_sim::exit::INPUT;
const EXIT_HW_ERROR: u8 = pp5_sim::exit::HW_ERROR;

#[derive(Parser)]
#[command(name = "pp5", version, about = "Cycle-accurate signal-level model of the Pixel-Planes 5 Renderer", long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the built-in example stream and write a waveform plus a GTKWave save file.
    Demo {
        /// Waveform to write (.vcd or .fst); a .gtkw is written beside it.
        #[arg(long, default_value = "pp5-demo.vcd")]
        wave: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Run a command stream (text .pp5s or binary Ring messages) on both Ring ports.
    Run {
        /// The stream file: messages for the IGC port (and, after `message bs`, the BS port).
        stream: PathBuf,
        /// A second stream whose messages all go to the BS port (each starts with
        /// `message bs`); it is interleaved with the first by arrival times (`at=`).
        #[arg(long)]
        bs: Option<PathBuf>,
        /// Write the messages the board sent onto the Ring to this file, in the binary Ring
        /// format (`pp5 stream FILE` prints them).
        #[arg(long)]
        tx_out: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
        /// Write a VCD waveform (and a .gtkw beside it).
        #[arg(long)]
        vcd: Option<PathBuf>,
        /// Write an FST waveform (and a .gtkw beside it).
        #[arg(long)]
        fst: Option<PathBuf>,
    },
    /// Assemble IGC microcode: write the image (JSON) and print the opcode table.
    Asm {
        /// Microcode source (.pp5uc); the standard microcode if omitted.
        source: Option<PathBuf>,
        /// Image file to write.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Also write a C header with I_/P_/Ix_ macros (our igc_opcodes.h).
        #[arg(long)]
        header: Option<PathBuf>,
    },
    /// Assemble a text stream to binary Ring messages, or disassemble binary to text.
    Stream {
        /// Input (text or binary, detected by content).
        input: PathBuf,
        /// Output file (default: standard output for text, required for binary).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Microcode whose opcode table names the commands (repeatable, as for `run`;
        /// default: the built-in standard + qee + flow sources).
        #[arg(long)]
        microcode: Vec<PathBuf>,
    },
    /// Render a scene (an OBJ file or a built-in one) on a simulated system of up to 16
    /// Renderers: the frame as a PNG and its timing study.
    Render(cli_render::RenderArgs),
    /// Measure simulated cycles per second, tracing off and with a VCD, in one run, and
    /// whether a second core is free (two untraced runs at once).
    Bench {
        /// Rounds of the ALU-heavy stream (10,000: about 2 M cycles).
        #[arg(long, default_value_t = 10_000)]
        reps: usize,
        /// Runs of each configuration, alternating; the fastest is reported, and every run's
        /// time after it.
        #[arg(long, default_value_t = pp5_sim::bench::RUNS_PER_FIGURE)]
        runs: usize,
        /// Rounds run first and not counted (a process's first runs are slower: its memory
        /// is mapped as it is first touched).
        #[arg(long, default_value_t = pp5_sim::bench::WARMUP_ROUNDS)]
        warmup: usize,
        /// Trace only these scopes in the traced runs (path prefixes; repeatable; default:
        /// everything), to see what a selection costs.
        #[arg(long)]
        scope: Vec<String>,
        /// Write the two streams (alu.bin, triangles.pp5s, for --reps) into this directory
        /// and stop, without measuring: to run them with `pp5 run` under a profiler
        /// (scripts/callgrind-cycles.sh).
        #[arg(long, value_name = "DIR")]
        save_streams: Option<PathBuf>,
        /// Also render a frame of the built-in scene (`pp5 render --scene spheres`) on one
        /// thread and on all, and print the speed-up (`--render=false` to skip it).
        #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
        render: bool,
    },
}

#[derive(Args, Clone)]
struct Common {
    /// Microcode: an image (.json), or sources (.pp5uc) assembled together in the order
    /// given (repeatable: `--microcode my.pp5uc --microcode sim/microcode/qee.pp5uc ...`).
    /// Default: the built-in sim/microcode/standard.pp5uc + qee.pp5uc + flow.pp5uc.
    #[arg(long)]
    microcode: Vec<PathBuf>,
    /// Probe pixel traced in the waveform, as X,Y (repeatable).
    #[arg(long, value_parser = parse_xy)]
    probe: Vec<(usize, usize)>,
    /// Trace EMC K's quadratic expression evaluator as renderer.emc[K].qee: its configuration
    /// register and origin, the coefficient shift chains, the root pixel's tree bit
    /// (repeatable; K is 0..=63 or `all`). Default: EMC 0 and the EMCs that hold the probe
    /// pixels.
    #[arg(long = "trace-emc", value_name = "K", value_parser = parse_emc)]
    trace_emc: Vec<u64>,
    /// Trace only these scopes (path prefixes such as renderer.igc; repeatable).
    #[arg(long)]
    scope: Vec<String>,
    /// Trace only cycles FIRST:LAST.
    #[arg(long, value_parser = parse_window)]
    window: Option<(u64, u64)>,
    /// Cycles the .gtkw shows across the wave pane when GTKWave opens it.
    #[arg(long, default_value_t = pp5_sim::trace::gtkw::VISIBLE_CYCLES, value_parser = clap::value_parser!(u64).range(1..))]
    view: u64,
    /// Stop after this many 40 MHz cycles.
    #[arg(long, default_value_t = 100_000_000)]
    max_cycles: u64,
    /// Print pixel memory mem[ADDR:LEN] of pixel X,Y after the run (repeatable).
    #[arg(long, value_parser = parse_peek)]
    peek: Vec<(usize, usize, usize, usize)>,
    /// Write all pixel memory to a file (16,384 pixels row-major × 26 bytes, bit 0 first).
    #[arg(long)]
    dump_mem: Option<PathBuf>,
    /// Write a PNG of the array after the run (repeatable): FILE.png=rgb:R,G,B (three 8-bit
    /// fields), FILE.png=grey:ADDR,LEN (LEN <= 16 bits scaled to 0..255) or FILE.png=enable.
    /// Image row 0 is y = 0 (the top). Default for `demo`: WAVE.png=rgb:0,8,16 and
    /// WAVE-gcd.png=grey:116,7.
    #[arg(long, value_parser = pp5_sim::image::parse_spec)]
    image: Vec<pp5_sim::image::ImageSpec>,
    /// Do not load the microcode through the stream first (write the store directly).
    #[arg(long)]
    no_boot: bool,
    /// Trace the microcode boot too (by default the waveform starts after it).
    #[arg(long)]
    trace_boot: bool,
    /// Report format.
    #[arg(long, default_value = "table", value_parser = ["table", "json", "csv"])]
    report: String,
    /// Command rows to print in the table (0 = all).
    #[arg(long, default_value_t = 40)]
    rows: usize,
}

fn parse_xy(s: &str) -> Result<(usize, usize), String> {
    let v = nums(s, 2)?;
    if v[0] >= 128 || v[1] >= 128 {
        return Err("pixel coordinates are 0..=127".into());
    }
    Ok((v[0], v[1]))
}

/// `--trace-emc`: one EMC number or `all`, as a selection mask (bit k = EMC k).
fn parse_emc(s: &str) -> Result<u64, String> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("all") {
        return Ok(u64::MAX);
    }
    match s.parse::<u32>() {
        Ok(k) if k < 64 => Ok(1 << k),
        _ => Err(format!("`{s}` is not an EMC: use a number 0..=63 or `all`")),
    }
}

fn parse_peek(s: &str) -> Result<(usize, usize, usize, usize), String> {
    let v = nums(s, 4)?;
    if v[0] >= 128 || v[1] >= 128 {
        return Err("pixel coordinates are 0..=127".into());
    }
    if v[3] == 0 || v[3] > 64 || v[2] + v[3] > 208 {
        return Err("ADDR,LEN must be a segment of 1..=64 bits inside the 208".into());
    }
    Ok((v[0], v[1], v[2], v[3]))
}

fn parse_window(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s.split_once(':').ok_or("use FIRST:LAST")?;
    let a: u64 = a.trim().parse().map_err(|_| "bad FIRST")?;
    let b: u64 = b.trim().parse().map_err(|_| "bad LAST")?;
    if b < a {
        return Err("LAST is before FIRST".into());
    }
    Ok((a, b))
}

fn nums(s: &str, n: usize) -> Result<Vec<usize>, String> {
    let v: Result<Vec<usize>, _> = s.split(',').map(|x| x.trim().parse::<usize>()).collect();
    let v = v.map_err(|_| format!("expected {n} comma-separated numbers, got `{s}`"))?;
    if v.len() != n {
        return Err(format!("expected {n} comma-separated numbers, got `{s}`"));
    }
    Ok(v)
}

/// An error with its exit code.
struct Fail(u8, String);

/// Standard output went away (its reader, `head` say, closed the pipe): what is still to be
/// printed is dropped, and the program finishes its other work and exits as it would have.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);

/// Write to standard output: a closed pipe is not an error (see [`STDOUT_GONE`]), any other
/// failure is an I/O error (exit code 1).
fn stdout_write(args: std::fmt::Arguments) -> Result<(), Fail> {
    stdout_with(|w| w.write_fmt(args))
}

/// Write to standard output through a buffer, as [`stdout_write`] does (a closed pipe ends
/// the output quietly): for outputs too long to build as one string first.
fn stdout_with(f: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<(), Fail> {
    use std::io::Write as _;
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    match f(&mut w).and_then(|()| w.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            STDOUT_GONE.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(Fail(EXIT_IO, format!("standard output: {e}"))),
    }
}

/// An I/O error (exit code 1); errors from [`out_file`] already name their file.
fn io_fail(e: std::io::Error) -> Fail {
    Fail(EXIT_IO, e.to_string())
}

fn input(msg: impl Into<String>) -> Fail {
    Fail(EXIT_INPUT, msg.into())
}

/// The files a run writes besides `--tx-out`: the waveform and its `.gtkw`, the memory dump,
/// the images.
fn run_outputs(common: &Common, wave: Option<&Path>, vcd: bool) -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    if let Some(w) = wave {
        out.push((if vcd { "--vcd" } else { "--fst" }, w.to_path_buf()));
        out.push(("the .gtkw", w.with_extension("gtkw")));
    }
    out.extend(common.dump_mem.clone().map(|p| ("--dump-mem", p)));
    out.extend(common.image.iter().map(|i| ("--image", i.path.clone())));
    out
}

/// An input file's bytes: a file that cannot be read exits 1, one over the input limit 3.
fn read_input(path: &Path) -> Result<Vec<u8>, Fail> {
    pp5_sim::input::read_file(path).map_err(|e| match e {
        pp5_sim::input::ReadError::Io(_) => Fail(EXIT_IO, format!("{}: {e}", path.display())),
        pp5_sim::input::ReadError::TooLarge => input(format!("{}: {e}", path.display())),
    })
}

/// An input file as UTF-8 text (a byte-order mark stays for the parsers to strip).
fn read_text(path: &Path) -> Result<String, Fail> {
    String::from_utf8(read_input(path)?)
        .map_err(|_| input(format!("{}: not UTF-8 text", path.display())))
}

fn load_microcode(paths: &[PathBuf]) -> Result<McImage, Fail> {
    if paths.is_empty() {
        return Ok(microcode::default_image());
    }
    let mut parts = Vec::new();
    for p in paths {
        // A file that cannot be read is an I/O error (exit 1), not bad input.
        let text = read_text(p)?;
        parts.push((p.display().to_string(), text));
    }
    match &parts[..] {
        [(name, text)] => McImage::load(text, name).map_err(input),
        _ if parts.iter().any(|(_, t)| t.trim_start().starts_with('{')) => Err(Fail(
            2,
            "a microcode image (.json) must be the only --microcode".into(),
        )),
        _ => microcode::assemble_files(&parts).map_err(|e| input(e.to_string())),
    }
}

fn load_stream(path: &Path, image: &McImage) -> Result<Stream, Fail> {
    let bytes = read_input(path)?;
    if binary::is_binary(&bytes) {
        binary::read(&bytes[..]).map_err(|mut e| {
            e.file = path.display().to_string();
            input(e.to_string())
        })
    } else {
        let text = String::from_utf8(bytes).map_err(|_| {
            input(format!(
                "{}: neither a binary Ring-message file nor UTF-8 text",
                path.display()
            ))
        })?;
        text::parse(&text, &path.display().to_string(), &image.table)
            .map_err(|e| input(e.to_string()))
    }
}

fn simulate(
    stream: &Stream,
    common: &Common,
    wave: Option<PathBuf>,
    image: &McImage,
    tx_out: Option<&Path>,
) -> Result<u8, Fail> {
    // The table prints the first `rows` commands and per-name totals, so a long run keeps
    // only those records; JSON and CSV list every command.
    let keep = match (common.report.as_str(), common.rows) {
        ("json" | "csv", _) | (_, 0) => Keep::All,
        (_, rows) => Keep::First(rows),
    };
    let mut opts = SimOptions {
        max_cycles: common.max_cycles,
        keep,
        ..SimOptions::default()
    };
    if !common.probe.is_empty() {
        opts.probes = common.probe.clone();
    }
    let wave = wave.map(|p| WaveSpec {
        format: WaveFormat::from_path(&p).unwrap_or(WaveFormat::Vcd),
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
        path: p,
    });
    let spec = RunSpec {
        image,
        boot: !common.no_boot,
        stream,
        opts,
        wave: wave.clone(),
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        // A second Ctrl-C while the first is handled falls back to the default handler.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    }
    let total_words = stream.total_words() as u64;
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
    let result = run(spec, progress, Some(&interrupt));
    bar.finish_and_clear();
    let mut r = match result {
        Ok(r) => r,
        Err(RunError::Input(m)) => return Err(input(m)),
        Err(RunError::Selection(m)) => return Err(Fail(2, m)),
        Err(RunError::Io(e)) => return Err(Fail(EXIT_IO, e.to_string())),
    };
    let summary = Summary::take(&mut r.sim, &r.stop);
    match common.report.as_str() {
        "json" => stdout_with(|w| {
            summary
                .write_json(&mut *w)
                .and_then(|()| w.write_all(b"\n"))
        })?,
        "csv" => stdout_with(|w| summary.write_csv(w))?,
        _ => out!("{}", summary.table(common.rows)),
    }
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
    if let Some(p) = tx_out {
        let sent = pp5_sim::stream::sent_stream(&r.sim.tx);
        out_file::write_buffered(p, |w| binary::write(&sent, w)).map_err(io_fail)?;
        errln!(
            "Ring messages sent: {} ({} messages)",
            p.display(),
            sent.messages.len()
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
    Ok(pp5_sim::exit::of_run(&r.stop, r.sim.board.status()))
}

fn write_or_print(path: &Option<PathBuf>, text: &str) -> Result<(), Fail> {
    match path {
        Some(p) => out_file::write(p, text).map_err(io_fail),
        None => {
            out!("{text}");
            Ok(())
        }
    }
}

fn main_inner(cli: Cli) -> Result<u8, Fail> {
    match cli.cmd {
        Cmd::Demo { wave, mut common } => {
            let image = load_microcode(&common.microcode)?;
            let stream = pp5_sim::demo::full_demo_stream(&image.table).map_err(input)?;
            if common.image.is_empty() {
                let [r, g, b] = pp5_sim::demo::TRI_FIELDS;
                common.image.push(pp5_sim::image::ImageSpec {
                    path: wave.with_extension("png"),
                    kind: pp5_sim::image::ImageKind::Rgb { r, g, b },
                });
                let stem = wave.file_stem().unwrap_or_default().to_string_lossy();
                common.image.push(pp5_sim::image::ImageSpec {
                    path: wave.with_file_name(format!("{stem}-gcd.png")),
                    kind: pp5_sim::image::ImageKind::Grey {
                        addr: pp5_sim::demo::GCD_FIELDS[2],
                        // The counts stay below 128: 7 bits span the grey scale.
                        len: 7,
                    },
                });
            }
            let src = wave.with_extension("pp5s");
            let inputs: Vec<&Path> = common.microcode.iter().map(PathBuf::as_path).collect();
            let mut outputs = run_outputs(&common, Some(&wave), true);
            outputs.push(("the demo stream", src.clone()));
            cli_files::check_distinct(&inputs, &outputs)?;
            out_file::write(&src, pp5_sim::demo::full_demo_text()).map_err(io_fail)?;
            errln!("demo stream: {} (edit it and `pp5 run` it)", src.display());
            simulate(&stream, &common, Some(wave), &image, None)
        }
        Cmd::Run {
            stream,
            bs,
            tx_out,
            common,
            vcd,
            fst,
        } => {
            let image = load_microcode(&common.microcode)?;
            let mut s = load_stream(&stream, &image)?;
            s.check_sendable(&stream.display().to_string())
                .map_err(|e| input(e.to_string()))?;
            if let Some(bs) = &bs {
                let b = load_stream(bs, &image)?;
                b.check_sendable(&bs.display().to_string())
                    .map_err(|e| input(e.to_string()))?;
                if let Some(m) = b
                    .messages
                    .iter()
                    .find(|m| m.port != pp5_sim::stream::Port::Bs)
                {
                    return Err(input(format!(
                        "{}:{}: --bs takes messages for the BS port only; this one goes to the {} port (start it with `message bs`)",
                        bs.display(),
                        m.line,
                        m.port
                    )));
                }
                s.append(b);
            }
            if vcd.is_some() && fst.is_some() {
                return Err(Fail(2, "choose one of --vcd and --fst".into()));
            }
            let wave = vcd.clone().or(fst.clone());
            let mut inputs: Vec<&Path> = vec![&stream];
            inputs.extend(bs.as_deref());
            inputs.extend(common.microcode.iter().map(PathBuf::as_path));
            let mut outputs = run_outputs(&common, wave.as_deref(), vcd.is_some());
            outputs.extend(tx_out.clone().map(|p| ("--tx-out", p)));
            cli_files::check_distinct(&inputs, &outputs)?;
            simulate(&s, &common, wave, &image, tx_out.as_deref())
        }
        Cmd::Asm {
            source,
            output,
            header,
        } => {
            let inputs: Vec<&Path> = source.iter().map(PathBuf::as_path).collect();
            let outputs: Vec<(&str, PathBuf)> = [("-o", &output), ("--header", &header)]
                .into_iter()
                .filter_map(|(w, p)| p.clone().map(|p| (w, p)))
                .collect();
            cli_files::check_distinct(&inputs, &outputs)?;
            let image = load_microcode(source.as_slice())?;
            if let Some(o) = &output {
                let json = serde_json::to_string_pretty(&image)
                    .map_err(|e| Fail(EXIT_IO, e.to_string()))?;
                write_or_print(&Some(o.clone()), &json)?;
                errln!(
                    "image: {} ({} microinstructions, {} store words)",
                    o.display(),
                    image.uinsts,
                    image.words.len()
                );
            }
            if let Some(h) = &header {
                write_or_print(
                    &Some(h.clone()),
                    &pp5_sim::asm::header::c_header(&image.table),
                )?;
            }
            out!("{}", pp5_sim::asm::header::table_text(&image));
            Ok(0)
        }
        Cmd::Stream {
            input: inp,
            output,
            microcode,
        } => {
            let mut inputs: Vec<&Path> = vec![&inp];
            inputs.extend(microcode.iter().map(PathBuf::as_path));
            let outputs: Vec<(&str, PathBuf)> =
                output.clone().map(|p| ("-o", p)).into_iter().collect();
            cli_files::check_distinct(&inputs, &outputs)?;
            let image = load_microcode(&microcode)?;
            let bytes = read_input(&inp)?;
            if binary::is_binary(&bytes) {
                let s = binary::read(&bytes[..]).map_err(|mut e| {
                    e.file = inp.display().to_string();
                    input(e.to_string())
                })?;
                write_or_print(&output, &text::disassemble(&s, &image.table))?;
            } else {
                let s = load_stream(&inp, &image)?;
                let out = output.ok_or_else(|| Fail(2, "binary output needs -o FILE".into()))?;
                out_file::write_buffered(&out, |w| binary::write(&s, w)).map_err(io_fail)?;
                errln!(
                    "{}: {} messages, {} words",
                    out.display(),
                    s.messages.len(),
                    s.total_words()
                );
            }
            Ok(0)
        }
        Cmd::Render(args) => cli_render::run(args),
        Cmd::Bench {
            reps,
            runs,
            warmup,
            scope,
            save_streams,
            render,
        } => {
            let image = load_microcode(&[])?;
            if let Some(dir) = save_streams {
                let paths = pp5_sim::bench::save_streams(&image, reps, &dir)
                    .map_err(|e| Fail(EXIT_IO, e))?;
                for p in paths {
                    outln!("{}", p.display());
                }
                return Ok(0);
            }
            let mut figs =
                pp5_sim::bench::bench(&image, reps, runs, warmup, &scope, &std::env::temp_dir())
                    .map_err(|e| Fail(EXIT_IO, e))?;
            let render_figs = if render {
                pp5_sim::bench::bench_render(runs, warmup).map_err(|e| Fail(EXIT_IO, e))?
            } else {
                Vec::new()
            };
            figs.extend(render_figs.iter().cloned());
            outln!(
                "{:<28} {:>12} {:>10} {:>16}   every run (s), in order",
                "run",
                "cycles",
                "seconds",
                "cycles/s"
            );
            for f in &figs {
                let runs: Vec<String> = f.runs.iter().map(|s| format!("{s:.4}")).collect();
                outln!(
                    "{:<28} {:>12} {:>10.4} {:>16.0}   {}",
                    f.name,
                    f.cycles,
                    f.seconds,
                    f.cycles_per_sec,
                    runs.join(" ")
                );
            }
            // The tracing figures in pairs (off, VCD), and the second-core figure.
            let pairs: Vec<&pp5_sim::bench::BenchFigure> = figs
                .iter()
                .filter(|f| f.name != pp5_sim::bench::TWO_AT_ONCE)
                .filter(|f| !f.name.starts_with("render "))
                .collect();
            for pair in pairs.chunks(2) {
                if let [off, on] = pair {
                    let (best, median) = pp5_sim::bench::slowdown(off, on);
                    outln!(
                        "{}: tracing slowdown (VCD on / off): {best:.2}x fastest runs, \
                         {median:.2}x median of back-to-back pairs",
                        off.name.split(',').next().unwrap_or(""),
                    );
                }
            }
            let named = |n: &str| figs.iter().find(|f| f.name == n);
            if let [one, all] = &render_figs[..] {
                outln!(
                    "render: {} threads simulate {:.2}x as many cycles per second as one \
                     (fastest runs)",
                    rayon::current_num_threads(),
                    all.cycles_per_sec / one.cycles_per_sec.max(1e-9)
                );
            }
            if let (Some(alu), Some(qee)) = (
                named(pp5_sim::bench::ALU_OFF),
                named(pp5_sim::bench::QEE_OFF),
            ) {
                outln!(
                    "QEE triangles / ALU stream, tracing off: {:.2} of the ALU stream's \
                     cycles per second (fastest runs)",
                    qee.cycles_per_sec / alu.cycles_per_sec.max(1e-9)
                );
            }
            if let (Some(one), Some(two)) = (
                named(pp5_sim::bench::ALU_OFF),
                named(pp5_sim::bench::TWO_AT_ONCE),
            ) {
                let (best, median) = pp5_sim::bench::slowdown(one, two);
                outln!(
                    "second core: two untraced ALU runs at once take {best:.2}x the time of one \
                     (fastest runs; {median:.2}x median of same-round pairs; 1x: two free cores, \
                     2x: one; a traced run's waveform writer needs the second)"
                );
            }
            Ok(0)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match main_inner(cli) {
        Ok(code) => ExitCode::from(code),
        Err(Fail(code, msg)) => {
            errln!("pp5: {msg}");
            ExitCode::from(code)
        }
    }
}
