//! Waveform writers (VCD and FST) and GTKWave save files.
//!
//! A [`WaveWriter`] is fed by the [`pp5_rtl::trace::Tracer`] interface: [`WaveWriter::create`]
//! walks the top block once to declare the selected signals in a scope hierarchy that mirrors
//! the walk, and [`WaveWriter::sample`] walks it again after every 40 MHz cycle and writes the
//! values that changed. Values are matched to signals by their position in the walk, so a
//! sample hashes no names and, in steady state, allocates nothing.
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
//! Nothing here panics on bad input: a walk whose shape differs from the declaration gives an
//! [`io::ErrorKind::InvalidData`] error and writes nothing for that sample; a non-increasing
//! cycle number gives [`io::ErrorKind::InvalidInput`]. A writer dropped without
//! [`WaveWriter::finish`] (early stop, error path, unwinding) still closes its file, so the
//! trace of a stopped run is valid up to the last sample.

pub mod board;
mod decode;
pub(crate) mod fst;
pub mod gtkw;
mod sampler;
mod vcd;
mod worker;

pub use gtkw::{gtkwave_command, write_gtkw, write_gtkw_view};

use pp5_rtl::clock::{CYCLE_PS, HALF_CYCLE_PS};
use pp5_rtl::trace::{Decode, Traced, Tracer};
use std::io;
use std::path::Path;

/// Number of text bytes an FST text signal holds (see the module documentation).
pub const FST_TEXT_CHARS: u32 = 32;
/// Width in bits of an FST text signal: 8 bits per byte.
pub const FST_TEXT_BITS: u32 = FST_TEXT_CHARS * 8;

/// Longest scope or signal name accepted (the FST hierarchy limit).
const MAX_NAME_LEN: usize = 512;

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

/// Finds the prefixes of a selection that select no signal, one signal path at a time.
struct ScopeCheck<'a> {
    prefixes: &'a [String],
    matched: Vec<bool>,
    scopes: std::collections::BTreeSet<String>,
}

impl<'a> ScopeCheck<'a> {
    fn new(cfg: &'a TraceConfig) -> Self {
        ScopeCheck {
            prefixes: &cfg.scopes,
            matched: vec![false; cfg.scopes.len()],
            scopes: Default::default(),
        }
    }

    /// A signal of the walk (nothing to do without a selection).
    #[inline]
    fn signal(&mut self, path: &str) {
        if self.prefixes.is_empty() {
            return;
        }
        for (m, prefix) in self.matched.iter_mut().zip(self.prefixes) {
            *m = *m || prefix_selects(prefix, path);
        }
        if let Some((scope, _)) = path.rsplit_once('.') {
            if !self.scopes.contains(scope) {
                self.scopes.insert(scope.to_string());
            }
        }
    }

    fn finish(self) -> Option<UnmatchedScopes> {
        let unmatched: Vec<String> = self
            .prefixes
            .iter()
            .zip(&self.matched)
            .filter(|(_, &m)| !m)
            .map(|(p, _)| p.clone())
            .collect();
        (!unmatched.is_empty()).then(|| UnmatchedScopes {
            unmatched,
            scopes: self.scopes.into_iter().collect(),
        })
    }
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

// ---------------------------------------------------------------------------------------------
// Declaration: the first walk, turned into a hierarchy for the sinks and a per-position table.

/// One item of the declared hierarchy, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DeclItem {
    Scope(String),
    Up,
    /// The writer's 1-bit clock, always the first variable of the top scope.
    Clk,
    Var {
        slot: usize,
        name: String,
        width: u32,
        is_text: bool,
    },
}

/// What the walk shows at one position.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    /// 0 for text.
    pub(crate) width: u32,
    pub(crate) is_text: bool,
    /// Index into the value tables, or `NOT_SELECTED`.
    pub(crate) slot: u32,
}

pub(crate) const NOT_SELECTED: u32 = u32::MAX;

enum RawEvent {
    Push(String),
    Pop,
    Sig {
        name: String,
        width: u32,
        is_text: bool,
    },
}

/// A scope entered with [`Tracer::enter`] or [`Tracer::enter_keyed`], or a group: what it
/// spans, so a later walk can jump over it. Signals are counted twice: by their position in
/// the whole walk (`first_sig`, `sigs`) and among the walked ones, those outside records
/// (`walked`), which are the positions the sample walk visits.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Skippable {
    pub(crate) first_sig: usize,
    pub(crate) sigs: usize,
    pub(crate) first_walked: usize,
    pub(crate) walked: usize,
    /// Skippable scopes and groups nested in it.
    pub(crate) nested: usize,
    /// Its records' words in the frame (see `sampler::RecordFrame`).
    pub(crate) first_word: usize,
    pub(crate) words: usize,
    /// The length of its key in the declaration walk (`None`: entered without a key).
    pub(crate) key_len: Option<usize>,
}

/// A [`Tracer::record`] or [`Tracer::record_group`] of the walk: its signals (decoded on
/// the writer thread), where its words lie in the sample frame, and its decode function.
#[derive(Clone, Copy)]
pub(crate) struct RecordDecl {
    pub(crate) first_sig: usize,
    pub(crate) sigs: usize,
    pub(crate) word_off: usize,
    pub(crate) words: usize,
    pub(crate) decode: Decode,
}

/// Words of the records' frame: their words, padded to whole chunks of
/// [`sampler::CHUNK`].
pub(crate) fn frame_words(records: &[RecordDecl]) -> usize {
    let words: usize = records.iter().map(|r| r.words).sum();
    words.div_ceil(sampler::CHUNK) * sampler::CHUNK
}

/// Records the declaration walk.
#[derive(Default)]
struct Collector {
    events: Vec<RawEvent>,
    /// Signals so far, and those of them outside records.
    sigs: usize,
    walked: usize,
    /// Words of the records so far.
    words: usize,
    skippable: Vec<Skippable>,
    records: Vec<RecordDecl>,
    stack: Vec<Option<usize>>,
    /// Open groups ([`Tracer::group`]), innermost last (`None`: a group inside a record).
    groups: Vec<Option<usize>>,
    /// Inside a record's decode function (its scopes and groups are plain ones there).
    in_record: usize,
    /// `end_group` without a group.
    unbalanced: bool,
}

impl Collector {
    fn open_skippable(&mut self, key_len: Option<usize>) -> usize {
        self.skippable.push(Skippable {
            first_sig: self.sigs,
            first_walked: self.walked,
            first_word: self.words,
            key_len,
            ..Skippable::default()
        });
        self.skippable.len() - 1
    }

    fn close_skippable(&mut self, k: usize) {
        let len = self.skippable.len();
        let (sigs, walked, words) = (self.sigs, self.walked, self.words);
        if let Some(s) = self.skippable.get_mut(k) {
            s.sigs = sigs - s.first_sig;
            s.walked = walked - s.first_walked;
            s.words = words - s.first_word;
            s.nested = len - k - 1;
        }
    }

    /// A record: its signals are `decode(words)`'s.
    fn add_record(&mut self, words: &[u64], decode: Decode) {
        let first_sig = self.sigs;
        self.in_record += 1;
        decode(words, self);
        self.in_record -= 1;
        self.records.push(RecordDecl {
            first_sig,
            sigs: self.sigs - first_sig,
            word_off: self.words,
            words: words.len(),
            decode,
        });
        self.words += words.len();
    }
}

impl Tracer for Collector {
    fn push_scope(&mut self, name: &str) {
        self.events.push(RawEvent::Push(sanitize_name(name)));
        self.stack.push(None);
    }
    fn pop_scope(&mut self) {
        self.events.push(RawEvent::Pop);
        if let Some(Some(k)) = self.stack.pop() {
            self.close_skippable(k);
        }
    }
    fn enter(&mut self, name: &str, key: Option<u64>) -> bool {
        match key {
            Some(k) => self.enter_keyed(name, &[k]),
            None => {
                self.events.push(RawEvent::Push(sanitize_name(name)));
                let k = (self.in_record == 0).then(|| self.open_skippable(None));
                self.stack.push(k);
                true
            }
        }
    }
    fn enter_keyed(&mut self, name: &str, key: &[u64]) -> bool {
        self.events.push(RawEvent::Push(sanitize_name(name)));
        let k = (self.in_record == 0).then(|| self.open_skippable(Some(key.len())));
        self.stack.push(k);
        true
    }
    fn group(&mut self, key: &[u64]) -> bool {
        let k = (self.in_record == 0).then(|| self.open_skippable(Some(key.len())));
        self.groups.push(k);
        true
    }
    fn end_group(&mut self) {
        match self.groups.pop() {
            Some(Some(k)) => self.close_skippable(k),
            Some(None) => {}
            None => self.unbalanced = true,
        }
    }
    fn record(&mut self, name: &str, words: &[u64], decode: Decode) {
        if self.in_record > 0 {
            self.push_scope(name);
            decode(words, self);
            self.pop_scope();
            return;
        }
        self.push_scope(name);
        self.add_record(words, decode);
        self.pop_scope();
    }
    fn record_group(&mut self, words: &[u64], decode: Decode) {
        if self.in_record > 0 {
            decode(words, self);
            return;
        }
        self.add_record(words, decode);
    }
    fn bits(&mut self, name: &str, width: u32, _value: u64) {
        self.sig(name, width, false);
    }
    fn text(&mut self, name: &str, _value: &str) {
        self.sig(name, 0, true);
    }
}

impl Collector {
    fn sig(&mut self, name: &str, width: u32, is_text: bool) {
        self.sigs += 1;
        if self.in_record == 0 {
            self.walked += 1;
        }
        self.events.push(RawEvent::Sig {
            name: sanitize_name(name),
            width,
            is_text,
        });
    }
}

/// Names become single tokens: whitespace and control characters turn into `_`, the empty
/// name into `_` (what the writers make of a signal's or scope's name).
pub fn sanitize_name(name: &str) -> String {
    if name.is_empty() {
        return "_".to_string();
    }
    name.chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect()
}

fn invalid_data(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

fn invalid_input(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg.into())
}

/// The result of the declaration walk.
struct Layout {
    items: Vec<DeclItem>,
    entries: Vec<Entry>,
    /// Number of selected signals (slots).
    nslots: usize,
    signals: Vec<SignalInfo>,
    /// The selection's prefixes that select nothing.
    unmatched: Option<UnmatchedScopes>,
}

/// A scope of the walk while the layout is built: declared once a selected signal needs it.
struct Frame {
    name: String,
    path: String,
    emitted: bool,
}

/// Name of the scope that wraps a walk with signals outside any scope.
const SYNTHETIC_TOP: &str = "top";

/// Checks the walk's shape: balanced scopes, names and widths within the limits. Returns
/// whether the walk needs a synthetic top scope (it has signals outside every scope, or no
/// scope at all).
fn check_shape(events: &[RawEvent]) -> io::Result<bool> {
    let mut depth = 0usize;
    let mut has_scope = false;
    let mut sig_at_root = false;
    for e in events {
        match e {
            RawEvent::Push(name) => {
                if name.len() > MAX_NAME_LEN {
                    return Err(invalid_input(format!("scope name too long: {name:.40}...")));
                }
                depth += 1;
                has_scope = true;
            }
            RawEvent::Pop => {
                if depth == 0 {
                    return Err(invalid_data("pop_scope without a matching push_scope"));
                }
                depth -= 1;
            }
            RawEvent::Sig {
                name,
                width,
                is_text,
            } => {
                if name.len() > MAX_NAME_LEN {
                    return Err(invalid_input(format!(
                        "signal name too long: {name:.40}..."
                    )));
                }
                if !is_text && !(1..=64).contains(width) {
                    return Err(invalid_input(format!(
                        "signal `{name}` has width {width}; widths must be 1..=64"
                    )));
                }
                sig_at_root |= depth == 0;
            }
        }
    }
    Ok(!has_scope || sig_at_root)
}

/// The layout as it is built from the walk's events, one event at a time.
struct LayoutBuilder<'a> {
    cfg: &'a TraceConfig,
    text_width: u32,
    layout: Layout,
    stack: Vec<Frame>,
    /// The top scope (with the writer's `clk`) is declared.
    top_done: bool,
    check: ScopeCheck<'a>,
}

impl LayoutBuilder<'_> {
    /// Declare scope `frame` as the top one, with the writer's `clk` first in it.
    fn top(&mut self, mut frame: Frame) {
        let l = &mut self.layout;
        l.items.push(DeclItem::Scope(frame.name.clone()));
        l.items.push(DeclItem::Clk);
        l.signals.push(SignalInfo {
            path: format!("{}.clk", frame.path),
            width: 1,
            is_text: false,
        });
        frame.emitted = true;
        self.top_done = true;
        self.stack.push(frame);
    }

    /// The full path of `name` in the current scope.
    fn path(&self, name: &str) -> String {
        match self.stack.last() {
            Some(f) => format!("{}.{}", f.path, name),
            None => name.to_string(),
        }
    }

    fn push(&mut self, name: String) {
        let frame = Frame {
            path: self.path(&name),
            name,
            emitted: false,
        };
        if self.top_done {
            self.stack.push(frame);
        } else {
            self.top(frame);
        }
    }

    fn pop(&mut self) {
        if let Some(f) = self.stack.pop() {
            if f.emitted {
                self.layout.items.push(DeclItem::Up);
            }
        }
    }

    /// A signal: declared (with the scopes above it not declared yet) if selected.
    fn sig(&mut self, name: String, width: u32, is_text: bool) -> io::Result<()> {
        let path = self.path(&name);
        self.check.signal(&path);
        let l = &mut self.layout;
        let slot = if self.cfg.selects(&path) {
            for f in self.stack.iter_mut().filter(|f| !f.emitted) {
                l.items.push(DeclItem::Scope(f.name.clone()));
                f.emitted = true;
            }
            let slot = l.nslots;
            l.nslots += 1;
            l.items.push(DeclItem::Var {
                slot,
                name,
                width,
                is_text,
            });
            l.signals.push(SignalInfo {
                path,
                width: if is_text { self.text_width } else { width },
                is_text,
            });
            u32::try_from(slot).map_err(|_| invalid_input("too many signals"))?
        } else {
            NOT_SELECTED
        };
        l.entries.push(Entry {
            width,
            is_text,
            slot,
        });
        Ok(())
    }
}

impl Layout {
    /// The layout of a walk's events for the selection `cfg`; text signals are declared
    /// `text_width` bits wide.
    fn build(events: Vec<RawEvent>, cfg: &TraceConfig, text_width: u32) -> io::Result<Layout> {
        let wrap = check_shape(&events)?;
        let mut b = LayoutBuilder {
            cfg,
            text_width,
            layout: Layout {
                items: Vec::new(),
                entries: Vec::new(),
                nslots: 0,
                signals: Vec::new(),
                unmatched: None,
            },
            stack: Vec::new(),
            top_done: false,
            check: ScopeCheck::new(cfg),
        };
        if wrap {
            b.top(Frame {
                name: SYNTHETIC_TOP.to_string(),
                path: SYNTHETIC_TOP.to_string(),
                emitted: false,
            });
        }
        for e in events {
            match e {
                RawEvent::Push(name) => b.push(name),
                RawEvent::Pop => b.pop(),
                RawEvent::Sig {
                    name,
                    width,
                    is_text,
                } => b.sig(name, width, is_text)?,
            }
        }
        while !b.stack.is_empty() {
            b.pop();
        }
        b.layout.unmatched = b.check.finish();
        Ok(b.layout)
    }
}

// ---------------------------------------------------------------------------------------------
// Sinks: the format-specific back ends.

/// A format back end. Calls per written sample: `begin`, then `bits`/`text` for each changed
/// signal, then `end`.
pub(crate) trait Sink: Send {
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

// ---------------------------------------------------------------------------------------------
// The writer.

/// The declaration walk of a block, made once: the hierarchy and signals a waveform declares,
/// what a selection keeps of them, and which of its scope prefixes select nothing.
pub struct Declaration {
    format: WaveFormat,
    cfg: TraceConfig,
    layout: Layout,
    skippable: Vec<Skippable>,
    records: Vec<RecordDecl>,
}

impl Declaration {
    /// Walk `top` once and lay out its signals for `format` and the selection `cfg`. A walk
    /// that is malformed (unbalanced scopes or groups, widths outside 1..=64) is an error.
    pub fn new<B: Traced + ?Sized>(
        top: &B,
        format: WaveFormat,
        cfg: TraceConfig,
    ) -> io::Result<Declaration> {
        let mut collector = Collector::default();
        top.trace(&mut collector);
        let text_width = match format {
            WaveFormat::Vcd => 0,
            WaveFormat::Fst => FST_TEXT_BITS,
        };
        if collector.unbalanced || !collector.groups.is_empty() {
            return Err(invalid_data(
                "trace walk has an end_group without a group, or a group left open",
            ));
        }
        let layout = Layout::build(collector.events, &cfg, text_width)?;
        Ok(Declaration {
            format,
            cfg,
            layout,
            skippable: collector.skippable,
            records: collector.records,
        })
    }

    /// The selection's scope prefixes that select no signal (the writer's `clk` aside), if
    /// any.
    pub fn unmatched_scopes(&self) -> Option<&UnmatchedScopes> {
        self.layout.unmatched.as_ref()
    }
}

/// Writes a VCD or FST waveform of a [`Traced`] block, one sample per 40 MHz cycle.
pub struct WaveWriter {
    /// The background thread that owns the file.
    worker: worker::Worker,
    format: WaveFormat,
    cfg: TraceConfig,
    /// Signals the sample walk visits (those outside records).
    walked: usize,
    signals: Vec<SignalInfo>,
    /// The per-position values of the sample walk and the last written ones.
    capture: sampler::Capture,
    /// A walk failed after it had updated `last_*`: the next sample writes every value.
    resync: bool,
    /// Cycles of the first and the last written sample.
    first_cycle: Option<u64>,
    last_cycle: Option<u64>,
    /// Skippable scopes of the walk, whether nothing in each is selected, and each one's key
    /// at its last visit.
    scopes: sampler::Scopes,
    /// The records' words of this walk and of the last one.
    frame: sampler::RecordFrame,
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
    /// is malformed (unbalanced scopes, widths outside 1..=64) leaves no file behind.
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
    /// sample as its `$dumpvars`. FST: the FST writer (as `fst-writer` 0.3 before it) always begins its first section at
    /// time 0, so the file holds an all-unknown frame at 0 and the first sample at
    /// `start_cycle` (GTKWave shows `x` before it).
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
        let Declaration {
            format,
            cfg,
            layout,
            skippable,
            records,
        } = decl;
        let none_selected = |first: usize, n: usize| {
            layout
                .entries
                .get(first..first + n)
                .is_some_and(|es| es.iter().all(|e| e.slot == NOT_SELECTED))
        };
        let unselected: Vec<bool> = skippable
            .iter()
            .map(|k| none_selected(k.first_sig, k.sigs))
            .collect();
        let scopes = sampler::Scopes::new(&skippable, &unselected);
        let frame = sampler::RecordFrame::new(&records);
        let records_unselected: Vec<bool> = records
            .iter()
            .map(|r| none_selected(r.first_sig, r.sigs))
            .collect();
        // Positions inside records: their values are decoded on the writer thread; the
        // sample walk visits the others only.
        let mut decoded = vec![false; layout.entries.len()];
        for r in &records {
            if let Some(d) = decoded.get_mut(r.first_sig..r.first_sig + r.sigs) {
                d.iter_mut().for_each(|d| *d = true);
            }
        }
        let walked: Vec<Entry> = layout
            .entries
            .iter()
            .zip(&decoded)
            .filter(|(_, &d)| !d)
            .map(|(e, _)| *e)
            .collect();
        let n = layout.nslots;
        let decoder = decode::Decoder::new(&layout.entries, &records, &records_unselected, n);
        // The writer thread's loop is compiled for each sink (no virtual call per change).
        let worker = match format {
            WaveFormat::Vcd => worker::Worker::start(
                vcd::VcdSink::create(path, &layout.items, n, start_ps)?,
                decoder,
            )?,
            WaveFormat::Fst => {
                worker::Worker::start(fst::FstSink::create(path, &layout.items, n)?, decoder)?
            }
        };
        Ok(WaveWriter {
            worker,
            format,
            cfg,
            signals: layout.signals,
            capture: sampler::Capture::new(&walked, n),
            walked: walked.len(),
            resync: false,
            first_cycle: None,
            last_cycle: None,
            scopes,
            frame,
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
        let batch = &mut self.worker.batch;
        let lens0 = batch.lens();
        let texts0 = batch.texts.len();
        let check = force || batch.frames.is_empty();
        macro_rules! walk {
            ($check:literal) => {{
                let mut walk = sampler::Sampler::<$check> {
                    cap: &mut self.capture,
                    pos: 0,
                    epos: 0,
                    rpos: 0,
                    bad: false,
                    force,
                    scopes: &mut self.scopes,
                    frame: &mut self.frame,
                    batch,
                };
                top.trace(&mut walk);
                (walk.pos, walk.bad || !walk.complete())
            }};
        }
        let (pos, bad) = if check { walk!(true) } else { walk!(false) };
        if bad || pos != self.walked || (check && !self.capture.shape_ok()) {
            // Write nothing for this sample; the next one writes every value again.
            self.worker.batch.truncate(lens0);
            self.resync = true;
            self.capture.invalidate();
            self.scopes.clear();
            return Err(invalid_data(format!(
                "trace walk does not match the declaration: {pos} signals visited, {} declared{}",
                self.walked,
                if pos == self.walked {
                    ", or a signal, scope or record changed kind, width or place"
                } else {
                    ""
                }
            )));
        }
        self.resync = false;
        let batch = &mut self.worker.batch;
        self.capture.commit(batch, texts0);
        self.frame.commit(batch);
        let end = |n: usize| u32::try_from(n).map_err(|_| invalid_data("batch overflow"));
        batch.frames.push(worker::Frame {
            cycle,
            first,
            force,
            changes_end: end(batch.changes.len())?,
            texts_end: end(batch.texts.len())?,
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

#[inline]
pub(crate) fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
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
