//! Waveform writers (VCD and FST) and GTKWave save files.
//!
//! A [`WaveWriter`] is fed by the [`pp5_rtl::trace::Tracer`] interface: [`WaveWriter::create`]
//! walks the top block once to declare the selected signals in a scope hierarchy that mirrors
//! the walk ([`declare`]), and [`WaveWriter::sample`] walks it again after every 40 MHz cycle
//! ([`sampler`]): the blocks' records and walked values go into a frame of words by their
//! position in the walk, so a sample hashes no names and, in steady state, allocates nothing.
//! A writer thread ([`worker`]) decodes the records whose words changed ([`decode`]) and
//! writes the values that changed ([`vcd`], [`fst`]).
//!
//! # What the files contain
//!
//! - Timescale 1 ps. Cycle `c` is sampled at `c * CYCLE_PS`; the writer's own 1-bit `clk`
//!   (declared first, inside the top scope) is `1` at `c * CYCLE_PS` and `0` at
//!   `c * CYCLE_PS + HALF_CYCLE_PS`.
//! - Bits signals are wires of their width; GTKWave names a vector `name[w-1:0]`.
//! - Text signals (FSM states, decoded opcodes):
//!   - VCD: `string` variables (`$var string 1 <id> name $end`, changes `s<text> <id>`).
//!     VCD tokens cannot hold whitespace, so spaces and control characters are written as
//!     `_`, and the empty text is written as `-`.
//!   - FST: the writer (`fst.rs`) has no variable-length string signals; a text is written as
//!     a [`FST_TEXT_BITS`]-bit vector holding its first [`FST_TEXT_CHARS`] bytes, 8 bits per
//!     byte, the first byte in the most significant bits and NUL bytes as padding. In
//!     GTKWave choose *Data Format → ASCII* (the `.gtkw` written by [`write_gtkw`] already
//!     does); GTKWave skips the NUL bytes. Longer texts are truncated.
//! - Change-only dumping: the first sample in the window writes every selected signal (in a
//!   VCD inside `$dumpvars ... $end` at `#0`), later samples only the signals whose value
//!   changed.
//! - A window starting at cycle `W > 0`: both formats begin at time 0 with every wire
//!   unknown (`x`) and hold the first real values at `W * CYCLE_PS`. In a VCD that is a
//!   `$dumpvars` block at `#0` setting the wires to `x` (string variables, which have no
//!   unknown value, are left out of it), followed at `#W*CYCLE_PS` by the first sample as
//!   ordinary changes; in an FST it is the initial all-`x` frame, which the FST writer always
//!   places at time 0. No known value lies outside the window.
//!
//! # Failure behaviour
//!
//! Nothing here panics on bad input: a declaration walk that is malformed (unbalanced scopes
//! or groups: [`io::ErrorKind::InvalidData`]; a width outside 1..=64, a name too long, a text
//! outside a record: [`io::ErrorKind::InvalidInput`]) creates no file; a later walk whose
//! shape differs from the declaration gives an [`io::ErrorKind::InvalidData`] error and
//! writes nothing for that sample; a non-increasing cycle number gives
//! [`io::ErrorKind::InvalidInput`]. A writer dropped without [`WaveWriter::finish`] (early
//! stop, error path, unwinding) still closes its file, so the trace of a stopped run is valid
//! up to the last sample.

pub mod board;
mod declare;
mod decode;
mod fst;
pub mod gtkw;
mod sampler;
mod vcd;
mod worker;

pub(crate) use declare::DeclItem;
pub use declare::{sanitize_name, Declaration};
pub use gtkw::{gtkwave_command, write_gtkw, write_gtkw_view};

use pp5_rtl::clock::{CYCLE_PS, HALF_CYCLE_PS};
use pp5_rtl::trace::Traced;
use std::io;
use std::path::Path;

/// Number of text bytes an FST text signal holds (see the module documentation).
pub const FST_TEXT_CHARS: u32 = 32;
/// Width in bits of an FST text signal: 8 bits per byte.
pub const FST_TEXT_BITS: u32 = FST_TEXT_CHARS * 8;

/// Which signals and which cycles to record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceConfig {
    /// Hierarchical path prefixes such as `renderer.igc` or `renderer.pixel_3_4`; a signal is
    /// kept if its full path equals a prefix or continues it at a `.` boundary. Empty = all.
    /// The writer's `clk` is always kept.
    pub scopes: Vec<String>,
    /// Inclusive range `(first, last)` of 40 MHz cycle numbers to record; `None` = whole run.
    pub window: Option<(u64, u64)>,
}

impl TraceConfig {
    /// True if the signal with this full hierarchical path is selected by [`Self::scopes`].
    pub fn selects(&self, path: &str) -> bool {
        self.scopes.is_empty()
            || self
                .scopes
                .iter()
                .any(|prefix| prefix_selects(prefix, path))
    }

    /// True if a signal inside the scope with this full path may be selected: a prefix
    /// selects the scope, or lies inside it.
    pub fn selects_within(&self, scope: &str) -> bool {
        self.selects(scope) || self.scopes.iter().any(|p| prefix_selects(scope, p))
    }

    /// True if cycle `cycle` lies inside [`Self::window`].
    pub fn in_window(&self, cycle: u64) -> bool {
        match self.window {
            None => true,
            Some((first, last)) => first <= cycle && cycle <= last,
        }
    }
}

/// Whether the scope prefix `prefix` selects the signal with the full path `path`.
fn prefix_selects(prefix: &str, path: &str) -> bool {
    let p = prefix.trim_end_matches('.');
    p.is_empty()
        || path == p
        || (path.len() > p.len() && path.starts_with(p) && path.as_bytes()[p.len()] == b'.')
}

/// The scope prefixes of a selection ([`TraceConfig::scopes`]) that select no signal of the
/// walk (the writer's `clk` aside), found as the declaration is built.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnmatchedScopes {
    /// The prefixes that select nothing, in the selection's order.
    pub unmatched: Vec<String>,
    /// Every scope that holds a signal, sorted, each once.
    pub scopes: Vec<String>,
}

/// Waveform file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaveFormat {
    /// Value Change Dump (IEEE 1364), text.
    Vcd,
    /// Fast Signal Trace (GTKWave's compressed binary format).
    Fst,
}

impl WaveFormat {
    /// The format named by the file's extension (`.vcd` or `.fst`, any case).
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?;
        if ext.eq_ignore_ascii_case("vcd") {
            Some(WaveFormat::Vcd)
        } else if ext.eq_ignore_ascii_case("fst") {
            Some(WaveFormat::Fst)
        } else {
            None
        }
    }

    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            WaveFormat::Vcd => "vcd",
            WaveFormat::Fst => "fst",
        }
    }
}

/// One declared signal of a wave file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignalInfo {
    /// Full hierarchical path, scopes joined by `.`, e.g. `renderer.igc.pc`.
    pub path: String,
    /// Width in bits as declared in the file. For text signals: 0 in a VCD (a variable-length
    /// `string`), [`FST_TEXT_BITS`] in an FST (the fixed-width ASCII encoding).
    pub width: u32,
    /// True for a text signal (FSM state name, decoded opcode).
    pub is_text: bool,
}

fn invalid_data(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

fn invalid_input(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg.into())
}

// ---------------------------------------------------------------------------------------------
// Sinks: the format-specific back ends.

/// A format back end. Calls per written sample: `begin`, then `bits`/`text` for each changed
/// signal, then `end`; a waveform without the board's clock ([`plain_sink`]) calls `time`
/// instead of `begin` and `end`.
pub(crate) trait Sink: Send {
    /// Move to `time_ps` (not earlier than the last time).
    fn time(&mut self, time_ps: u64) -> io::Result<()>;
    /// Rising edge at `time_ps`: timestamp, the initial dump if `first` (see the module
    /// documentation for a window starting later), `clk = 1`.
    fn begin(&mut self, time_ps: u64, first: bool) -> io::Result<()>;
    /// A bits signal's new value (the sink knows the slot's width from the declaration).
    fn bits(&mut self, slot: usize, value: u64) -> io::Result<()>;
    fn text(&mut self, slot: usize, value: &str) -> io::Result<()>;
    /// Close an open `$dumpvars` block; falling edge at `fall_ps`: `clk = 0`.
    fn end(&mut self, fall_ps: u64, first: bool) -> io::Result<()>;
    /// Flush and close the file. Called at most once by the writer.
    fn finish(&mut self) -> io::Result<()>;
}

/// The sink of a waveform that has no clock and writes its own times and changes (the system
/// waveform of `pp5 render`): the file at `path` with the hierarchy `items` declared, a VCD
/// without the board's `$version` and `$comment`, its vectors at full width.
pub(crate) fn plain_sink(
    path: &Path,
    format: WaveFormat,
    items: &[DeclItem],
    nslots: usize,
) -> io::Result<Box<dyn Sink>> {
    Ok(match format {
        WaveFormat::Vcd => Box::new(vcd::VcdSink::<true>::create(path, items, nslots, 0)?),
        WaveFormat::Fst => Box::new(fst::FstSink::create(path, items, nslots)?),
    })
}

// ---------------------------------------------------------------------------------------------
// The writer.

/// Writes a VCD or FST waveform of a [`Traced`] block, one sample per 40 MHz cycle.
pub struct WaveWriter {
    /// The background thread that owns the file.
    worker: worker::Worker,
    format: WaveFormat,
    cfg: TraceConfig,
    signals: Vec<SignalInfo>,
    /// The frame and the groups' keys the sample walks keep.
    state: sampler::SampleState,
    /// A walk failed after it had updated the kept state: the next sample writes every value.
    resync: bool,
    /// Cycles of the first and the last written sample.
    first_cycle: Option<u64>,
    last_cycle: Option<u64>,
}

impl std::fmt::Debug for WaveWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaveWriter")
            .field("format", &self.format)
            .field("cfg", &self.cfg)
            .field("signals", &self.signals.len())
            .field("last_cycle", &self.last_cycle)
            .field("finished", &self.worker.finished())
            .finish()
    }
}

impl WaveWriter {
    /// Walk `top` once, declare every selected signal (plus `clk` in the top scope) and
    /// create the file at `path`. The walk happens before the file is created, so a walk that
    /// is malformed (unbalanced scopes, widths outside 1..=64, a text outside a record)
    /// leaves no file behind.
    pub fn create<B: Traced + ?Sized>(
        path: &Path,
        format: WaveFormat,
        cfg: TraceConfig,
        top: &B,
    ) -> io::Result<WaveWriter> {
        Self::create_at(path, format, cfg, top, 0)
    }

    /// As [`WaveWriter::create`] for a run that is already at cycle `start_cycle` (e.g. after
    /// an untraced microcode boot). VCD: the file's time axis starts there, with the first
    /// sample as its `$dumpvars`. FST: the FST writer (as `fst-writer` 0.3 before it) always
    /// begins its first section at time 0, so the file holds an all-unknown frame at 0 and the
    /// first sample at `start_cycle` (GTKWave shows `x` before it).
    pub fn create_at<B: Traced + ?Sized>(
        path: &Path,
        format: WaveFormat,
        cfg: TraceConfig,
        top: &B,
        start_cycle: u64,
    ) -> io::Result<WaveWriter> {
        Self::declared(path, Declaration::new(top, format, cfg)?, start_cycle)
    }

    /// As [`WaveWriter::create_at`] from a declaration walk made earlier (the walk's shape is
    /// fixed by configuration, so a declaration stays valid while the block runs).
    pub fn declared(path: &Path, decl: Declaration, start_cycle: u64) -> io::Result<WaveWriter> {
        let start_ps = start_cycle.saturating_mul(CYCLE_PS);
        let state = sampler::SampleState::new(&decl);
        let decoder = decode::Decoder::new(&decl);
        let (items, n) = (&decl.layout.items, decl.layout.nslots);
        // The writer thread's loop is compiled for each sink (no virtual call per change).
        let worker = match decl.format {
            WaveFormat::Vcd => {
                let sink = vcd::VcdSink::<false>::create(path, items, n, start_ps)?;
                worker::Worker::start(sink, decoder)?
            }
            WaveFormat::Fst => {
                worker::Worker::start(fst::FstSink::create(path, items, n)?, decoder)?
            }
        };
        Ok(WaveWriter {
            worker,
            format: decl.format,
            cfg: decl.cfg,
            signals: decl.layout.signals,
            state,
            resync: false,
            first_cycle: None,
            last_cycle: None,
        })
    }

    /// The cycle of the first written sample (`None` before it).
    pub fn first_sample_cycle(&self) -> Option<u64> {
        self.first_cycle
    }

    /// The declared signals in declaration order, `clk` first.
    pub fn signals(&self) -> &[SignalInfo] {
        &self.signals
    }

    /// The file format.
    pub fn format(&self) -> WaveFormat {
        self.format
    }

    /// The configuration the writer was created with.
    pub fn config(&self) -> &TraceConfig {
        &self.cfg
    }

    /// Record cycle `cycle`; call after the cycle's registers were updated. Writes, at
    /// `cycle * CYCLE_PS`, `clk = 1` and every selected signal that changed since the last
    /// written sample (everything on the first one), then `clk = 0` half a cycle later.
    /// Outside the window it does nothing (the walk is skipped).
    pub fn sample<B: Traced + ?Sized>(&mut self, cycle: u64, top: &B) -> io::Result<()> {
        if !self.cfg.in_window(cycle) {
            return Ok(());
        }
        if self.worker.finished() {
            return Err(io::Error::other("wave writer already finished"));
        }
        if let Some(last) = self.last_cycle {
            if cycle <= last {
                return Err(invalid_input(format!(
                    "sample cycle {cycle} does not follow the previous sample cycle {last}"
                )));
            }
        }
        cycle
            .checked_mul(CYCLE_PS)
            .and_then(|t| t.checked_add(HALF_CYCLE_PS))
            .ok_or_else(|| invalid_input(format!("cycle {cycle} overflows the time axis")))?;
        let first = self.last_cycle.is_none();
        let force = first || self.resync;
        let check = force || self.worker.batch.frames.is_empty();
        macro_rules! walk {
            ($check:literal) => {{
                let mut walk = sampler::Sampler::<$check> {
                    st: &mut self.state,
                    at: Default::default(),
                    bad: false,
                    force,
                };
                top.trace(&mut walk);
                walk.bad || !walk.complete()
            }};
        }
        let bad = if check { walk!(true) } else { walk!(false) };
        if bad {
            // Write nothing for this sample; the next one writes every value again.
            self.resync = true;
            self.state.invalidate();
            return Err(invalid_data(
                "trace walk does not match the declaration: a signal, group or record is \
                 missing, added, or changed kind, width or place",
            ));
        }
        self.resync = false;
        let batch = &mut self.worker.batch;
        self.state.commit(batch);
        batch.frames.push(worker::Frame {
            cycle,
            first,
            force,
        });
        self.first_cycle.get_or_insert(cycle);
        self.last_cycle = Some(cycle);
        if batch.frames.len() >= worker::BATCH_CYCLES {
            self.worker.send()?;
        }
        match self.worker.take_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Flush and close the file (an FST gets its final header here).
    pub fn finish(mut self) -> io::Result<()> {
        self.worker.finish()
    }
}

impl Drop for WaveWriter {
    fn drop(&mut self) {
        if !self.worker.finished() {
            let _ = self.worker.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_selection_respects_dot_boundaries() {
        let cfg = TraceConfig {
            scopes: vec!["renderer.igc".into(), "renderer.pixel_3_4.".into()],
            window: None,
        };
        assert!(cfg.selects("renderer.igc.pc"));
        assert!(cfg.selects("renderer.igc"));
        assert!(!cfg.selects("renderer.igc2.pc"));
        assert!(cfg.selects("renderer.pixel_3_4.acc"));
        assert!(!cfg.selects("renderer.pixel_3_45.acc"));
        assert!(!cfg.selects("renderer.status"));
        assert!(TraceConfig::default().selects("anything"));
        assert!(cfg.selects_within("renderer.pixel_3_4"));
        assert!(cfg.selects_within("renderer"));
        assert!(!cfg.selects_within("renderer.pixel_3_45"));
        assert!(!cfg.selects_within("renderer.qee"));
    }

    #[test]
    fn window_is_inclusive() {
        let cfg = TraceConfig {
            scopes: vec![],
            window: Some((3, 5)),
        };
        assert!(!cfg.in_window(2));
        assert!(cfg.in_window(3) && cfg.in_window(5));
        assert!(!cfg.in_window(6));
    }

    #[test]
    fn format_from_extension() {
        assert_eq!(
            WaveFormat::from_path(Path::new("a/b.vcd")),
            Some(WaveFormat::Vcd)
        );
        assert_eq!(
            WaveFormat::from_path(Path::new("b.FST")),
            Some(WaveFormat::Fst)
        );
        assert_eq!(WaveFormat::from_path(Path::new("b.txt")), None);
        assert_eq!(WaveFormat::from_path(Path::new("vcd")), None);
    }

    #[test]
    fn names_become_tokens() {
        assert_eq!(sanitize_name("a b\tc"), "a_b_c");
        assert_eq!(sanitize_name(""), "_");
    }
}
