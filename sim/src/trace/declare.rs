//! The declaration walk: the first walk of a block, turned into the hierarchy and signals a
//! waveform declares (a [`Layout`], checked and filtered by the selection as it is built) and
//! the shape of the per-cycle sample walk ([`Shape`]): where each walked signal and each
//! record's words lie in the frame of words the simulation thread fills every cycle, and
//! where each group ends, so a later walk can jump over it.

use super::{
    invalid_data, invalid_input, prefix_selects, SignalInfo, TraceConfig, UnmatchedScopes,
};
use super::{WaveFormat, FST_TEXT_BITS};
use pp5_rtl::trace::{Decode, DecodeWith, Traced, Tracer};
use std::io;

/// Longest scope or signal name accepted (the FST hierarchy limit).
const MAX_NAME_LEN: usize = 512;

/// Words of a frame copied at once (inline vector moves); frames are padded to whole chunks.
pub(crate) const CHUNK: usize = 4;

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

/// What the sample walk visits, in walk order (checked on the first sample of each batch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Item {
    /// A signal walked with [`Tracer::bits`] of this width: one frame word.
    Bits(u32),
    /// A record of this many words.
    Record(usize),
}

/// Where the sample walk is: its next item, frame word and group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Cursor {
    pub(crate) item: usize,
    pub(crate) word: usize,
    pub(crate) group: usize,
}

/// How a record's signals come from its words.
#[derive(Clone)]
pub(crate) enum Shows {
    /// A walked bits signal: its one word is its value.
    Word,
    /// A [`Tracer::record`] or [`Tracer::record_group`].
    Fn(Decode),
    /// A [`Tracer::record_with`].
    With(DecodeWith),
}

/// A group ([`Tracer::group`]) of the walk: where it starts and ends in the walk, and the
/// signal positions in it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GroupDecl {
    /// Where the walk is when it opens the group (checked), and where it continues when it
    /// jumps over it.
    pub(crate) start: Cursor,
    pub(crate) end: Cursor,
    pub(crate) first_sig: usize,
    pub(crate) sigs: usize,
}

/// A record of the walk ([`Tracer::record`] and its kin; a walked bits signal is a record of
/// one word that shows it): its signals, decoded on the writer thread, and where its words
/// lie in the frame.
#[derive(Clone)]
pub(crate) struct RecordDecl {
    pub(crate) first_sig: usize,
    pub(crate) sigs: usize,
    pub(crate) word_off: usize,
    pub(crate) words: usize,
    pub(crate) shows: Shows,
}

/// The shape of the sample walk.
#[derive(Clone, Default)]
pub(crate) struct Shape {
    pub(crate) items: Vec<Item>,
    pub(crate) records: Vec<RecordDecl>,
    pub(crate) groups: Vec<GroupDecl>,
    /// The cursor at the end of the walk.
    pub(crate) end: Cursor,
}

impl Shape {
    /// Words of the frame: the records' words, padded to whole chunks of [`CHUNK`].
    pub(crate) fn frame_words(&self) -> usize {
        self.end.word.div_ceil(CHUNK) * CHUNK
    }
}

/// Records the declaration walk.
#[derive(Default)]
struct Collector {
    events: Vec<RawEvent>,
    /// Signal positions so far.
    sigs: usize,
    shape: Shape,
    /// Open groups, innermost last (`None`: a group inside a record, a plain one there).
    open: Vec<Option<usize>>,
    /// Inside a record's decode function.
    in_record: usize,
    /// `end_group` without a group.
    unbalanced: bool,
    /// The first text signal outside a record, if any.
    loose_text: Option<String>,
}

impl Collector {
    fn sig(&mut self, name: &str, width: u32, is_text: bool) {
        self.events.push(RawEvent::Sig {
            name: sanitize_name(name),
            width,
            is_text,
        });
        self.sigs += 1;
    }

    /// An item of the sample walk (nothing inside a record).
    fn item(&mut self, item: Item) {
        let s = &mut self.shape;
        s.items.push(item);
        s.end.item += 1;
        s.end.word += match item {
            Item::Bits(_) => 1,
            Item::Record(n) => n,
        };
    }

    /// A record: its signals are those `shows` shows of `words`.
    fn add_record(&mut self, words: &[u64], shows: Shows) {
        let first_sig = self.sigs;
        let word_off = self.shape.end.word;
        self.in_record += 1;
        match &shows {
            Shows::Word => {}
            Shows::Fn(decode) => decode(words, self),
            Shows::With(decode) => decode(words, self),
        }
        self.in_record -= 1;
        self.shape.records.push(RecordDecl {
            first_sig,
            sigs: self.sigs - first_sig,
            word_off,
            words: words.len(),
            shows,
        });
        self.item(Item::Record(words.len()));
    }
}

impl Tracer for Collector {
    fn push_scope(&mut self, name: &str) {
        self.events.push(RawEvent::Push(sanitize_name(name)));
    }
    fn pop_scope(&mut self) {
        self.events.push(RawEvent::Pop);
    }
    fn group(&mut self, _key: u64) -> bool {
        let k = (self.in_record == 0).then(|| {
            self.shape.groups.push(GroupDecl {
                start: self.shape.end,
                first_sig: self.sigs,
                ..GroupDecl::default()
            });
            self.shape.end.group += 1;
            self.shape.groups.len() - 1
        });
        self.open.push(k);
        true
    }
    fn end_group(&mut self) {
        match self.open.pop() {
            Some(Some(k)) => {
                let (end, sigs) = (self.shape.end, self.sigs);
                if let Some(g) = self.shape.groups.get_mut(k) {
                    g.end = end;
                    g.sigs = sigs - g.first_sig;
                }
            }
            Some(None) => {}
            None => self.unbalanced = true,
        }
    }
    fn record_group(&mut self, words: &[u64], decode: Decode) {
        if self.in_record > 0 {
            decode(words, self);
        } else {
            self.add_record(words, Shows::Fn(decode));
        }
    }
    fn record_with(&mut self, words: &[u64], decode: &DecodeWith) {
        if self.in_record > 0 {
            decode(words, self);
        } else {
            self.add_record(words, Shows::With(decode.clone()));
        }
    }
    fn bits(&mut self, name: &str, width: u32, _value: u64) {
        if self.in_record == 0 {
            self.shape.records.push(RecordDecl {
                first_sig: self.sigs,
                sigs: 1,
                word_off: self.shape.end.word,
                words: 1,
                shows: Shows::Word,
            });
            self.item(Item::Bits(width));
        }
        self.sig(name, width, false);
    }
    fn text(&mut self, name: &str, _value: &str) {
        if self.in_record == 0 && self.loose_text.is_none() {
            self.loose_text = Some(name.to_string());
        }
        self.sig(name, 0, true);
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

/// The result of the declaration walk.
pub(crate) struct Layout {
    pub(crate) items: Vec<DeclItem>,
    pub(crate) entries: Vec<Entry>,
    /// Number of selected signals (slots).
    pub(crate) nslots: usize,
    pub(crate) signals: Vec<SignalInfo>,
    /// The selection's prefixes that select nothing.
    pub(crate) unmatched: Option<UnmatchedScopes>,
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

/// The declaration walk of a block, made once: the hierarchy and signals a waveform declares,
/// what a selection keeps of them, which of its scope prefixes select nothing, and the shape
/// of the sample walk.
pub struct Declaration {
    pub(crate) format: WaveFormat,
    pub(crate) cfg: TraceConfig,
    pub(crate) layout: Layout,
    pub(crate) shape: Shape,
}

impl Declaration {
    /// Walk `top` once and lay out its signals for `format` and the selection `cfg`. A walk
    /// that is malformed (unbalanced scopes or groups, widths outside 1..=64, a text outside
    /// a record) is an error.
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
        if collector.unbalanced || !collector.open.is_empty() {
            return Err(invalid_data(
                "trace walk has an end_group without a group, or a group left open",
            ));
        }
        if let Some(name) = collector.loose_text {
            return Err(invalid_input(format!(
                "text signal `{name}` outside a record: a waveform shows a text decoded from a \
                 record's words (Tracer::record)"
            )));
        }
        let layout = Layout::build(collector.events, &cfg, text_width)?;
        Ok(Declaration {
            format,
            cfg,
            layout,
            shape: collector.shape,
        })
    }

    /// The selection's scope prefixes that select no signal (the writer's `clk` aside), if
    /// any.
    pub fn unmatched_scopes(&self) -> Option<&UnmatchedScopes> {
        self.layout.unmatched.as_ref()
    }

    /// Whether no signal at positions `first..first + n` is selected.
    pub(crate) fn none_selected(&self, first: usize, n: usize) -> bool {
        self.layout
            .entries
            .get(first..first + n)
            .is_some_and(|es| es.iter().all(|e| e.slot == NOT_SELECTED))
    }
}
