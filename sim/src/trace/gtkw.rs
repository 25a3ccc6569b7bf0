//! GTKWave save files (`.gtkw`) that open a ready view of a trace.
//!
//! Format notes (GTKWave 3.3 `savefile.c`, `analyzer.h`): a line `@<hex>` sets the trace
//! flags for the following trace lines; a line `-<text>` is a blank/comment trace; signal
//! lines are full hierarchical names, vectors with the range GTKWave gives them
//! (`name[w-1:0]` for a VCD/FST wire of width `w > 1`, no range for a VCD `string`). Flags
//! used here:
//!
//! | flags      | meaning                                             |
//! |------------|-----------------------------------------------------|
//! | `22`       | hex, right-justified (multi-bit signals)            |
//! | `24`       | decimal, right-justified (`cycle` counters)         |
//! | `28`       | binary, right-justified (1-bit signals, VCD strings) |
//! | `820`      | ASCII, right-justified (FST text vectors)           |
//! | `800200`   | group begin (blank trace carrying the group name)   |
//! | `1000200`  | group end                                           |
//! | `c00200`   | group begin, closed (`TR_CLOSED`)                   |
//! | `1401200`  | group end, closed and collapsed                     |
//!
//! The zoom line is `*<z> <marker>`: GTKWave shows `2^-z / 200` time units per pixel.

use super::SignalInfo;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

const FLAGS_HEX: u32 = 0x22;
/// Decimal, right-justified: counts such as `renderer.cycle`.
const FLAGS_DEC: u32 = 0x24;
const FLAGS_BIN: u32 = 0x28;
const FLAGS_ASCII: u32 = 0x820;
const FLAGS_GROUP_BEGIN: u32 = 0x80_0200;
const FLAGS_GROUP_END: u32 = 0x100_0200;
const FLAGS_GROUP_BEGIN_CLOSED: u32 = 0xc0_0200;
const FLAGS_GROUP_END_CLOSED: u32 = 0x140_1200;

/// Scopes (and the scopes inside them) that are idle most of the time or of second interest
/// when reading what the commands do: the Ring ports, the semaphores, the background transfer
/// and the flow-control unit's loop registers. Their groups start closed, one row each after
/// the others, when the waveform also shows something else (the IGC, the QEE, the array, the
/// probe pixels), so the view opens on the commands and the pixels; a waveform of only these
/// scopes shows them open.
const CLOSED_SCOPES: &[&str] = &[
    "renderer.igc_port",
    "renderer.bs_port",
    "renderer.bs_sem",
    "renderer.igc_sem",
    "renderer.transfer",
    "renderer.igc.fc.loop",
];

/// Signals shown beside another one rather than in their own scope's group (when both are
/// in the waveform): the executed microinstruction's routine+offset and source position
/// beside its address, `renderer.igc.upc` (docs/microcode.md, "Debugging microcode").
const BESIDE: &[(&str, &[&str])] = &[(
    "renderer.igc.upc",
    &["renderer.igc.uinst.at", "renderer.igc.uinst.src"],
)];

/// The signals shown beside `anchor` ([`BESIDE`]) that are in `signals`.
fn beside<'a>(anchor: &str, signals: &'a [SignalInfo]) -> Vec<&'a SignalInfo> {
    BESIDE
        .iter()
        .filter(|(a, _)| *a == anchor)
        .flat_map(|(_, names)| names.iter())
        .filter_map(|n| signals.iter().find(|s| s.path == *n))
        .collect()
}

/// Whether `scope`'s group starts closed in a focused view (see [`CLOSED_SCOPES`]).
fn closed_by_default(scope: &str) -> bool {
    CLOSED_SCOPES.iter().any(|c| scope.starts_with(c))
}

/// Window size written to `[size]`, and the panes.
const WINDOW_W: u32 = 1400;
const WINDOW_H: u32 = 900;
const SST_WIDTH: u32 = 240;
const SIGNALS_WIDTH: u32 = 320;
/// Cycles visible at the initial zoom unless the run asks for another span (`--view`).
pub const VISIBLE_CYCLES: u64 = 200;

/// The name GTKWave gives this signal (full path, `[w-1:0]` for vectors).
fn gtkwave_name(s: &SignalInfo) -> String {
    if s.width > 1 {
        format!("{}[{}:0]", s.path, s.width - 1)
    } else {
        s.path.clone()
    }
}

fn flags_for(s: &SignalInfo) -> u32 {
    if s.is_text {
        if s.width > 1 {
            FLAGS_ASCII
        } else {
            FLAGS_BIN
        }
    } else if s.width > 1 && s.path.ends_with(".cycle") {
        FLAGS_DEC
    } else if s.width > 1 {
        FLAGS_HEX
    } else {
        FLAGS_BIN
    }
}

fn scope_of(path: &str) -> &str {
    match path.rfind('.') {
        Some(i) => &path[..i],
        None => "",
    }
}

/// The zoom value that shows `visible` cycles across the wave pane.
fn initial_zoom(visible: u64) -> f64 {
    let pane_px = f64::from(WINDOW_W - SST_WIDTH - SIGNALS_WIDTH);
    let span_ps = (visible.max(1) as f64) * pp5_rtl::clock::CYCLE_PS as f64;
    let ps_per_px = span_ps / pane_px;
    // GTKWave: time units per pixel = 2^-zoom / 200.
    -(ps_per_px * 200.0).log2()
}

fn canonical_dir(p: &Path) -> PathBuf {
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    dir.canonicalize().unwrap_or(dir)
}

/// The `[dumpfile]` path: the bare file name if the wave file sits in the save file's
/// directory, else an absolute path.
fn dumpfile_path(gtkw_path: &Path, wave_path: &Path) -> io::Result<String> {
    let same_dir = canonical_dir(gtkw_path) == canonical_dir(wave_path);
    let p = match (same_dir, wave_path.file_name()) {
        (true, Some(name)) => PathBuf::from(name),
        _ => std::path::absolute(wave_path)?,
    };
    Ok(p.to_string_lossy().into_owned())
}

/// Build the text of a `.gtkw` save file for `signals` (as returned by
/// [`super::WaveWriter::signals`]).
pub(crate) fn render_gtkw(
    dumpfile: &str,
    signals: &[SignalInfo],
    start_ps: u64,
    visible: u64,
    focus: bool,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "[*]");
    let _ = writeln!(
        out,
        "[*] pp5-sim {} GTKWave save file",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(out, "[*]");
    let _ = writeln!(out, "[dumpfile] \"{dumpfile}\"");
    let _ = writeln!(out, "[timestart] {start_ps}");
    let _ = writeln!(out, "[size] {WINDOW_W} {WINDOW_H}");
    let _ = writeln!(out, "[pos] -1 -1");
    let _ = writeln!(out, "*{:.6} -1", initial_zoom(visible));

    // Scopes in first-seen order; every ancestor of a signal's scope is opened in the tree.
    let mut scopes: Vec<&str> = Vec::new();
    let mut open: Vec<&str> = Vec::new();
    for s in signals {
        let scope = scope_of(&s.path);
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
        let mut end = 0;
        while let Some(i) = scope[end..].find('.').map(|i| i + end) {
            if !open.contains(&&scope[..i]) {
                open.push(&scope[..i]);
            }
            end = i + 1;
        }
        if !scope.is_empty() && !open.contains(&scope) {
            open.push(scope);
        }
    }
    for o in &open {
        let _ = writeln!(out, "[treeopen] {o}.");
    }
    let _ = writeln!(out, "[sst_width] {SST_WIDTH}");
    let _ = writeln!(out, "[signals_width] {SIGNALS_WIDTH}");
    let _ = writeln!(out, "[sst_expanded] 1");
    let _ = writeln!(out, "[sst_vpaned_height] 200");

    let mut flags: Option<u32> = None;
    let mut set_flags = |out: &mut String, f: u32| {
        if flags != Some(f) {
            let _ = writeln!(out, "@{f:x}");
            flags = Some(f);
        }
    };

    // The clock(s) first, outside any group.
    let is_clk = |s: &SignalInfo| {
        !s.is_text && s.width == 1 && s.path.ends_with(".clk") && !scope_of(&s.path).contains('.')
    };
    let clk_index = signals.iter().position(is_clk);
    if let Some(i) = clk_index {
        set_flags(&mut out, flags_for(&signals[i]));
        let _ = writeln!(out, "{}", gtkwave_name(&signals[i]));
    }

    // One group per scope, in first-seen order: the open ones first, then the closed ones.
    let any_open = focus && scopes.iter().any(|s| !closed_by_default(s));
    let closed = |scope: &str| any_open && closed_by_default(scope);
    scopes.sort_by_key(|s| closed(s));
    let moved: Vec<&str> = signals
        .iter()
        .flat_map(|s| beside(&s.path, signals))
        .map(|s| s.path.as_str())
        .collect();
    for scope in scopes {
        let members: Vec<&SignalInfo> = signals
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                Some(*i) != clk_index
                    && scope_of(&s.path) == scope
                    && !moved.contains(&s.path.as_str())
            })
            .flat_map(|(_, s)| std::iter::once(s).chain(beside(&s.path, signals)))
            .collect();
        if members.is_empty() {
            continue;
        }
        let label = if scope.is_empty() { "(root)" } else { scope };
        let (begin, end) = if closed(scope) {
            (FLAGS_GROUP_BEGIN_CLOSED, FLAGS_GROUP_END_CLOSED)
        } else {
            (FLAGS_GROUP_BEGIN, FLAGS_GROUP_END)
        };
        set_flags(&mut out, begin);
        let _ = writeln!(out, "-{label}");
        for s in members {
            set_flags(&mut out, flags_for(s));
            let _ = writeln!(out, "{}", gtkwave_name(s));
        }
        set_flags(&mut out, end);
        let _ = writeln!(out, "-{label}");
    }
    let _ = writeln!(out, "[pattern_trace] 1");
    let _ = writeln!(out, "[pattern_trace] 0");
    out
}

/// Write a GTKWave save file at `gtkw_path` that opens `wave_path` with `signals` grouped by
/// scope (`clk` first, then one group per scope in first-seen order), vectors in hex, 1-bit
/// signals in binary, text as strings (FST text vectors in ASCII), showing ~200 cycles from
/// `start_ps` (the first sampled cycle: the view opens on known values even when the trace
/// starts after the boot or in a window).
pub fn write_gtkw(
    gtkw_path: &Path,
    wave_path: &Path,
    signals: &[SignalInfo],
    start_ps: u64,
    visible_cycles: u64,
) -> io::Result<()> {
    write_gtkw_view(
        gtkw_path,
        wave_path,
        signals,
        start_ps,
        visible_cycles,
        false,
    )
}

/// [`write_gtkw`], and with `focus` the groups of [`CLOSED_SCOPES`] start closed after the
/// others: the view of a waveform of every scope (no `--scope` selection), which opens on the
/// IGC, the QEE and the array rather than on rows of idle ports.
pub fn write_gtkw_view(
    gtkw_path: &Path,
    wave_path: &Path,
    signals: &[SignalInfo],
    start_ps: u64,
    visible_cycles: u64,
    focus: bool,
) -> io::Result<()> {
    let dumpfile = dumpfile_path(gtkw_path, wave_path)?;
    std::fs::write(
        gtkw_path,
        render_gtkw(&dumpfile, signals, start_ps, visible_cycles, focus),
    )
}

/// Quote a path for a POSIX shell if it holds anything but plain characters.
fn shell_word(p: &Path) -> String {
    let s = p.to_string_lossy();
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./+,:=@%".contains(c));
    if plain {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The command that opens `wave` with the save file `gtkw`: `gtkwave <wave> <gtkw>` (paths
/// quoted for a POSIX shell when needed).
pub fn gtkwave_command(wave: &Path, gtkw: &Path) -> String {
    format!("gtkwave {} {}", shell_word(wave), shell_word(gtkw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoom_shows_about_200_cycles() {
        for want in [VISIBLE_CYCLES, 150_000] {
            let z = initial_zoom(want);
            let ps_per_px = 2f64.powf(-z) / 200.0;
            let visible = ps_per_px * f64::from(WINDOW_W - SST_WIDTH - SIGNALS_WIDTH);
            let cycles = visible / pp5_rtl::clock::CYCLE_PS as f64;
            assert!((cycles - want as f64).abs() < 1.0, "{cycles}");
        }
    }

    fn signal(path: &str, width: u32, is_text: bool) -> SignalInfo {
        SignalInfo {
            path: path.into(),
            width,
            is_text,
        }
    }

    /// The signal rows of a save file, in order (group labels as `-scope`).
    fn rows(text: &str) -> Vec<&str> {
        text.lines()
            .filter(|l| l.starts_with("renderer") || l.starts_with('-'))
            .collect()
    }

    #[test]
    fn source_position_sits_beside_the_pc() {
        let mut signals = vec![
            signal("renderer.igc.pc", 11, false),
            signal("renderer.igc.upc", 11, false),
            signal("renderer.igc.cmd", 8, false),
            signal("renderer.igc.uinst.seq", 0, true),
            signal("renderer.igc.uinst.at", 0, true),
            signal("renderer.igc.uinst.src", 0, true),
        ];
        let text = render_gtkw("w.vcd", &signals, 0, 200, true);
        assert_eq!(
            rows(&text),
            [
                "-renderer.igc",
                "renderer.igc.pc[10:0]",
                "renderer.igc.upc[10:0]",
                "renderer.igc.uinst.at",
                "renderer.igc.uinst.src",
                "renderer.igc.cmd[7:0]",
                "-renderer.igc",
                "-renderer.igc.uinst",
                "renderer.igc.uinst.seq",
                "-renderer.igc.uinst",
            ]
        );
        // Without the PC in the waveform they stay in their own scope.
        signals.drain(..3);
        let text = render_gtkw("w.vcd", &signals, 0, 200, true);
        assert_eq!(
            rows(&text),
            [
                "-renderer.igc.uinst",
                "renderer.igc.uinst.seq",
                "renderer.igc.uinst.at",
                "renderer.igc.uinst.src",
                "-renderer.igc.uinst",
            ]
        );
    }

    #[test]
    fn command_quotes_odd_paths() {
        assert_eq!(
            gtkwave_command(Path::new("w/a.vcd"), Path::new("w/a.gtkw")),
            "gtkwave w/a.vcd w/a.gtkw"
        );
        assert_eq!(
            gtkwave_command(Path::new("my run/a.vcd"), Path::new("it's.gtkw")),
            "gtkwave 'my run/a.vcd' 'it'\\''s.gtkw'"
        );
    }
}
