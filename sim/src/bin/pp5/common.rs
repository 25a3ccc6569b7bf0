//! What `demo` and `run` share: the [`Common`] options with their parsers, and reading the
//! inputs (microcode, streams) with the exit code each failure gets.

use crate::{input, Fail, EXIT_IO, EXIT_USAGE};
use clap::Args;
use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::engine::Resume;
use pp5_sim::microcode_view::MicrocodeSources;
use pp5_sim::stream::{binary, text, Stream};
use std::path::{Path, PathBuf};

// The options of a simulated run: microcode, what the waveform traces, the cycle limit, what
// is written and printed after the run. (No doc comment: clap would take it as help text.)
#[derive(Args, Clone)]
pub struct Common {
    /// Microcode: an image (.json), or sources (.pp5uc) assembled together in the order
    /// given (repeatable: `--microcode my.pp5uc --microcode sim/microcode/qee.pp5uc ...`).
    /// Default: the built-in sim/microcode/standard.pp5uc + qee.pp5uc + flow.pp5uc.
    #[arg(long)]
    pub microcode: Vec<PathBuf>,
    /// Probe pixel traced in the waveform, as X,Y (repeatable). Given ones replace the
    /// default probe pixels (0,0) and (1,0).
    #[arg(long, value_parser = parse_xy)]
    pub probe: Vec<(usize, usize)>,
    /// Trace EMC K's quadratic expression evaluator as renderer.emc[K].qee: its configuration
    /// register and origin, the coefficient shift chains, the root pixel's tree bit
    /// (repeatable; K is 0..=63 or `all`). Default: EMC 0 and the EMCs that hold the probe
    /// pixels.
    #[arg(long = "trace-emc", value_name = "K", value_parser = parse_emc)]
    pub trace_emc: Vec<u64>,
    /// Trace only these scopes (path prefixes such as renderer.igc; repeatable).
    #[arg(long)]
    pub scope: Vec<String>,
    /// Trace only cycles FIRST:LAST.
    #[arg(long, value_parser = parse_window)]
    pub window: Option<(u64, u64)>,
    /// Cycles the .gtkw shows across the wave pane when GTKWave opens it.
    #[arg(long, default_value_t = pp5_sim::trace::gtkw::VISIBLE_CYCLES, value_parser = clap::value_parser!(u64).range(1..))]
    pub view: u64,
    /// Stop after this many 40 MHz cycles.
    #[arg(long, default_value_t = 100_000_000)]
    pub max_cycles: u64,
    /// Print pixel memory mem[ADDR:LEN] of pixel X,Y after the run (repeatable).
    #[arg(long, value_parser = parse_peek)]
    pub peek: Vec<(usize, usize, usize, usize)>,
    /// Write all pixel memory to a file (16,384 pixels row-major × 26 bytes, bit 0 first).
    #[arg(long)]
    pub dump_mem: Option<PathBuf>,
    /// Write a PNG of the array after the run (repeatable): FILE.png=rgb:R,G,B (three 8-bit
    /// fields), FILE.png=grey:ADDR,LEN (LEN <= 16 bits scaled to 0..255) or FILE.png=enable.
    /// Image row 0 is y = 0 (the top). Default for `demo`: WAVE.png=rgb:0,8,16 and
    /// WAVE-gcd.png=grey:116,7.
    #[arg(long, value_parser = pp5_sim::image::parse_spec)]
    pub image: Vec<pp5_sim::image::ImageSpec>,
    /// Do not load the microcode through the stream first (write the store directly).
    #[arg(long)]
    pub no_boot: bool,
    /// Trace the microcode boot too (by default the waveform starts after it).
    #[arg(long)]
    pub trace_boot: bool,
    /// Report format.
    #[arg(long, default_value = "table", value_parser = ["table", "json", "csv"])]
    pub report: String,
    /// Command rows to print in the table (0 = all).
    #[arg(long, default_value_t = 40)]
    pub rows: usize,
    /// Write the microcode coverage as an lcov tracefile (`genhtml FILE` renders it): per
    /// source line of the microcode, how often its microinstructions executed, and each
    /// conditional branch taken and not taken (docs/microcode.md, "Debugging microcode").
    #[arg(long, value_name = "FILE.info")]
    pub coverage: Option<PathBuf>,
    /// Print where the cycles went inside the microcode: the top N routines and source lines
    /// (`--profile` alone: 10; `--profile=0`: all), cycles executing and stalled by cause (and
    /// a "profile" object in --report json). N goes after `=` so that `--profile STREAM`
    /// reads STREAM as the stream.
    #[arg(
        long,
        value_name = "N",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "10"
    )]
    pub profile: Option<usize>,
    /// The annotated listing (as `perf annotate`): every microinstruction in source order
    /// with its executions, cycles, stalls by cause, share of the stream, the PEs enabled
    /// when it ran (min/mean/max), branch outcomes and calls. `--annotate` alone prints it
    /// after the report, `--annotate=FILE` writes it to FILE (and an "annotate" object goes
    /// into --report json either way).
    #[arg(
        long,
        value_name = "FILE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "-"
    )]
    pub annotate: Option<PathBuf>,
    /// Breakpoint (repeatable, also `--break`): stop the run before the IGC executes
    /// LABEL[+OFFSET] for the N-th time (#N, default the first), as gdb does: the IGC is at
    /// it, it has not run. LABEL is a microcode label or a command's name (its first
    /// microinstruction). `LABEL if SIGNAL == VALUE` stops there only where the condition
    /// holds (signals by their waveform names; `== != < <= > >=`, `&&`). The first
    /// breakpoint or watchpoint reached stops the run.
    #[arg(
        long,
        visible_alias = "break",
        value_name = "LABEL[+OFFSET][#N] [if COND]"
    )]
    pub until: Vec<String>,
    /// Breakpoint after the cycle in which the IGC executed LABEL[+OFFSET] for the N-th
    /// time (repeatable; the microinstruction's effects are there).
    #[arg(long, value_name = "LABEL[+OFFSET][#N] [if COND]")]
    pub until_after: Vec<String>,
    /// Stop the run before cycle C runs (the waveform ends at time C).
    #[arg(long, value_name = "C")]
    pub until_cycle: Option<u64>,
    /// Watchpoint (repeatable): stop when SIGNAL changes, or when `SIGNAL OP VALUE` becomes
    /// true; SIGNAL is a waveform name (renderer.igc.l) or a pixel's memory,
    /// renderer.pixel_X_Y.mem[A] or mem[A:LEN]. The stop is at the cycle whose value
    /// changed (the waveform ends there).
    #[arg(long, value_name = "SIGNAL[ OP VALUE]")]
    pub watch: Vec<String>,
    /// After a breakpoint or watchpoint stops the run, go on as gdb's command (repeatable,
    /// in order): `step` (one microinstruction), `next` (over a CALL, or at a loop's last
    /// line over the rest of the loop), `finish` (until the routine returns) or `continue`
    /// (to the next breakpoint reached). Each stop gone on from is reported on stderr; the
    /// report, the waveform and the exit code are the last stop's.
    #[arg(long, value_name = "step|next|finish|continue", value_parser = Resume::parse)]
    pub then: Vec<Resume>,
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

/// An input file's bytes: a file that cannot be read exits 1, one over the input limit 3.
pub fn read_input(path: &Path) -> Result<Vec<u8>, Fail> {
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

/// The microcode `--microcode` names: one image or source, several sources assembled
/// together, or the built-in default when none is given.
pub fn load_microcode(paths: &[PathBuf]) -> Result<McImage, Fail> {
    if paths.is_empty() {
        return Ok(microcode::default_image());
    }
    load_microcode_sources(paths).map(|(image, _)| image)
}

/// [`load_microcode`] with the microcode's sources and source map (`None` for an image read
/// from a .json file, which has none).
pub fn load_microcode_sources(
    paths: &[PathBuf],
) -> Result<(McImage, Option<MicrocodeSources>), Fail> {
    if paths.is_empty() {
        let (image, sources) = MicrocodeSources::default_image();
        return Ok((image, Some(sources)));
    }
    let mut parts = Vec::new();
    for p in paths {
        // A file that cannot be read is an I/O error (exit 1), not bad input.
        let text = read_text(p)?;
        parts.push((p.display().to_string(), text));
    }
    match &parts[..] {
        [(name, text)] if text.trim_start().starts_with('{') => McImage::load(text, name)
            .map(|image| (image, None))
            .map_err(input),
        _ if parts.iter().any(|(_, t)| t.trim_start().starts_with('{')) => Err(Fail(
            EXIT_USAGE,
            "a microcode image (.json) must be the only --microcode".into(),
        )),
        _ => MicrocodeSources::assemble(parts)
            .map(|(i, s)| (i, Some(s)))
            .map_err(|e| input(e.to_string())),
    }
}

/// A binary Ring-message file, parsed.
pub fn read_binary_stream(path: &Path, bytes: &[u8]) -> Result<Stream, Fail> {
    binary::read(bytes).map_err(|mut e| {
        e.file = path.display().to_string();
        input(e.to_string())
    })
}

/// A stream file, binary or text (detected by content); text names commands by `image`'s
/// opcode table.
pub fn load_stream(path: &Path, image: &McImage) -> Result<Stream, Fail> {
    let bytes = read_input(path)?;
    if binary::is_binary(&bytes) {
        read_binary_stream(path, &bytes)
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
