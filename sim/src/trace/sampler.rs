//! The per-cycle sample: one walk of the blocks that stores each value at its position and
//! notes whether it changed, then a pass over the changed positions only.
//!
//! The walk runs on the simulation thread every cycle, so each signal must cost as little as
//! possible there: [`Sampler::bits`] masks the value (the width is usually a constant, so the
//! mask folds away), stores it and its width at the signal's position and sets the
//! position's bit in a dirty mask if the value differs from the stored one, all without
//! data-dependent branches. After the walk, [`Capture::commit`] checks the walk's shape (one
//! slice comparison) and appends the selected dirty positions to the batch for the writer
//! thread. Scopes skipped by key keep their stored values, which is what makes skipping
//! exact. A record ([`Tracer::record`]) costs a comparison of its words with the last ones
//! and, when they differ, a copy into the batch: the writer thread decodes it.

use super::worker::{Batch, RecordRef};
use super::{mask, Entry, Skippable, NOT_SELECTED};
use pp5_rtl::trace::{Decode, Tracer};

/// Kind of a text position in [`Capture::kinds`] (bits positions hold their width, 1..=64).
const TEXT_KIND: u8 = 0;
/// Kind recorded for a width outside 1..=64 (never declared).
const BAD_KIND: u8 = 255;
/// Marks a text position written with [`Tracer::text`] (handled during the walk).
static DYNAMIC: &str = "\u{0}dynamic";

/// What one walk saw, by position, plus the last written values, by slot.
pub(crate) struct Capture {
    /// The value at each position (kept from earlier walks where a scope was skipped).
    vals: Vec<u64>,
    /// The kind at each position: width, or [`TEXT_KIND`].
    kinds: Vec<u8>,
    /// The declared kind of each position.
    decl_kinds: Vec<u8>,
    /// The text at each text position written with [`Tracer::text_static`].
    statics: Vec<&'static str>,
    /// Per 64 positions, which changed during this walk.
    dirty: Vec<u64>,
    /// Per 64 positions, which are selected bits signals.
    selected: Vec<u64>,
    /// Per 64 positions, which are selected text signals.
    selected_text: Vec<u64>,
    /// Slot of each position ([`NOT_SELECTED`] if none).
    slot_of: Vec<u32>,
    last_text: Vec<String>,
}

impl Capture {
    /// `decoded[pos]`: position `pos` lies in a record (the writer thread writes it).
    pub(crate) fn new(entries: &[Entry], decoded: &[bool], nslots: usize) -> Capture {
        let mut selected = vec![0u64; entries.len().div_ceil(64)];
        let mut selected_text = vec![0u64; entries.len().div_ceil(64)];
        for (pos, e) in entries.iter().enumerate() {
            if e.slot == NOT_SELECTED || decoded.get(pos).copied().unwrap_or(false) {
                continue;
            }
            if e.is_text {
                selected_text[pos / 64] |= 1 << (pos % 64);
            } else {
                selected[pos / 64] |= 1 << (pos % 64);
            }
        }
        let decl_kinds: Vec<u8> = entries
            .iter()
            .map(|e| if e.is_text { TEXT_KIND } else { e.width as u8 })
            .collect();
        Capture {
            vals: vec![0; entries.len()],
            kinds: decl_kinds.clone(),
            decl_kinds,
            statics: vec![""; entries.len()],
            dirty: vec![0; entries.len().div_ceil(64)],
            selected,
            selected_text,
            slot_of: entries.iter().map(|e| e.slot).collect(),
            last_text: vec![String::new(); nslots],
        }
    }

    /// Forget what was last written (after a failed walk): the next commit must be forced.
    pub(crate) fn invalidate(&mut self) {
        self.kinds.copy_from_slice(&self.decl_kinds);
    }

    /// Whether the walk visited exactly the declared kinds (the signal count is checked by
    /// the caller).
    pub(crate) fn shape_ok(&self) -> bool {
        self.kinds == self.decl_kinds
    }

    /// Append this walk's changes (every selected value if `force`) to `batch`.
    pub(crate) fn commit(&mut self, batch: &mut Batch, force: bool) {
        let words = self
            .dirty
            .iter_mut()
            .zip(&self.selected)
            .zip(&self.selected_text);
        for (w, ((dirty, &selected), &selected_text)) in words.enumerate() {
            let (mut changed, mut texts) = if force {
                (selected, selected_text)
            } else {
                (*dirty & selected, *dirty & selected_text)
            };
            *dirty = 0;
            while changed != 0 {
                let p = w * 64 + changed.trailing_zeros() as usize;
                changed &= changed - 1;
                if let (Some(&slot), Some(&v)) = (self.slot_of.get(p), self.vals.get(p)) {
                    batch.changes.push((slot, v));
                }
            }
            // Text positions are dirty when a different constant string was shown there.
            while texts != 0 {
                let p = w * 64 + texts.trailing_zeros() as usize;
                texts &= texts - 1;
                let (Some(&s), Some(&slot)) = (self.statics.get(p), self.slot_of.get(p)) else {
                    continue;
                };
                if std::ptr::eq(s, DYNAMIC) {
                    continue;
                }
                let Some(last) = self.last_text.get_mut(slot as usize) else {
                    continue;
                };
                if force || last.as_str() != s {
                    last.clear();
                    last.push_str(s);
                    push_text(batch, slot, s);
                }
            }
        }
    }
}

fn push_text(batch: &mut Batch, slot: u32, text: &str) {
    let b = &mut batch.text_bytes;
    let start = b.len() as u32;
    b.push_str(text);
    batch.texts.push((slot, start, b.len() as u32));
}

/// What the sample walk needs of one skippable scope, group or record.
#[derive(Clone, Copy, Debug, Default)]
struct ScopeState {
    /// Signals it spans, and skippable scopes it spans plus one (itself).
    sigs: u32,
    span: u32,
    /// Its last key: `words[key_off..key_off + key_len]`, if `valid`.
    key_off: u32,
    key_len: u32,
    valid: bool,
    /// No signal in it is selected.
    unselected: bool,
    record: bool,
}

/// The skippable scopes of the walk and the key each had at its last visit, in one table
/// and one flat word list (a visit costs a few loads and an inline comparison).
pub(crate) struct Scopes {
    info: Vec<ScopeState>,
    words: Vec<u64>,
}

impl Scopes {
    pub(crate) fn new(skippable: &[Skippable], unselected: &[bool]) -> Scopes {
        let info = skippable
            .iter()
            .enumerate()
            .map(|(k, s)| ScopeState {
                sigs: s.sigs as u32,
                span: 1 + s.nested as u32,
                unselected: unselected.get(k).copied().unwrap_or(false),
                record: s.record,
                ..ScopeState::default()
            })
            .collect();
        Scopes {
            info,
            words: Vec::new(),
        }
    }

    /// Forget every key (the next walk visits everything).
    pub(crate) fn clear(&mut self) {
        self.info.iter_mut().for_each(|s| s.valid = false);
    }
}

/// Whether `key` equals the key `s` had at its last visit; records `key`.
#[inline(always)]
fn same_then_store(words: &mut Vec<u64>, s: &mut ScopeState, key: &[u64]) -> bool {
    let (off, len) = (s.key_off as usize, s.key_len as usize);
    if len == key.len() {
        if let Some(old) = words.get_mut(off..off + len) {
            let diff = old.iter().zip(key).fold(0u64, |d, (&a, &b)| d | (a ^ b));
            let same = s.valid && diff == 0;
            if !same {
                old.iter_mut().zip(key).for_each(|(o, &k)| *o = k);
                s.valid = true;
            }
            return same;
        }
    }
    // First visit, or a key of another length: give it room at the end.
    s.key_off = words.len() as u32;
    s.key_len = key.len() as u32;
    words.extend_from_slice(key);
    s.valid = true;
    false
}

/// The tracer of one sample walk. With `CHECK` it also records the kind (width or text) of
/// every visited position for [`Capture::shape_ok`]; the writer checks the first sample of
/// each batch (and every sample after a failed one), which keeps the check off the
/// per-signal path of the others.
pub(crate) struct Sampler<'a, const CHECK: bool> {
    pub(crate) cap: &'a mut Capture,
    /// Position of the next signal.
    pub(crate) pos: usize,
    /// Index of the next skippable scope of the walk.
    pub(crate) epos: usize,
    pub(crate) bad: bool,
    /// First sample (or a resynchronisation): nothing is skipped by key, every text counts.
    pub(crate) force: bool,
    pub(crate) scopes: &'a mut Scopes,
    /// The batch, for texts written with [`Tracer::text`] (copied during the walk).
    pub(crate) batch: &'a mut Batch,
}

impl<const CHECK: bool> Sampler<'_, CHECK> {
    /// Enter skippable scope or group number `epos`, or skip it (unselected, or its key is
    /// unchanged) and return false.
    #[inline(always)]
    fn skip_or_enter(&mut self, key: Option<&[u64]>) -> bool {
        let k = self.epos;
        let sc = &mut *self.scopes;
        let Some(info) = sc.info.get_mut(k).filter(|i| !i.record) else {
            self.bad = true;
            return false;
        };
        let unchanged = match key {
            Some(key) => same_then_store(&mut sc.words, info, key) && !self.force,
            None => {
                info.valid = false;
                false
            }
        };
        if info.unselected || unchanged {
            self.pos += info.sigs as usize;
            self.epos += info.span as usize;
            return false;
        }
        self.epos += 1;
        true
    }

    /// Record number `epos`: jump over its signals; keep its words for the writer thread if
    /// it is selected and they changed.
    #[inline(always)]
    fn record_words(&mut self, words: &[u64], decode: Decode) {
        let k = self.epos;
        let sc = &mut *self.scopes;
        let Some(info) = sc.info.get_mut(k).filter(|i| i.record) else {
            self.bad = true;
            return;
        };
        self.pos += info.sigs as usize;
        self.epos += info.span as usize;
        if info.unselected || (same_then_store(&mut sc.words, info, words) && !self.force) {
            return;
        }
        let b = &mut *self.batch;
        b.record_words.extend_from_slice(words);
        b.records.push(RecordRef {
            k: k as u32,
            words_end: u32::try_from(b.record_words.len()).unwrap_or(u32::MAX),
            decode,
        });
    }
}

impl<const CHECK: bool> Tracer for Sampler<'_, CHECK> {
    fn push_scope(&mut self, _name: &str) {}
    fn pop_scope(&mut self) {}

    #[inline(always)]
    fn enter(&mut self, _name: &str, key: Option<u64>) -> bool {
        match key {
            Some(k) => self.skip_or_enter(Some(&[k])),
            None => self.skip_or_enter(None),
        }
    }

    #[inline(always)]
    fn enter_keyed(&mut self, _name: &str, key: &[u64]) -> bool {
        self.skip_or_enter(Some(key))
    }

    #[inline(always)]
    fn group(&mut self, key: &[u64]) -> bool {
        self.skip_or_enter(Some(key))
    }

    fn end_group(&mut self) {}

    #[inline(always)]
    fn record(&mut self, _name: &str, words: &[u64], decode: Decode) {
        self.record_words(words, decode);
    }

    #[inline(always)]
    fn record_group(&mut self, words: &[u64], decode: Decode) {
        self.record_words(words, decode);
    }

    #[inline(always)]
    fn bits(&mut self, _name: &str, width: u32, value: u64) {
        let p = self.pos;
        self.pos = p + 1;
        let cap = &mut *self.cap;
        if let (Some(v), Some(dirty)) = (cap.vals.get_mut(p), cap.dirty.get_mut(p / 64)) {
            let new = value & mask(width);
            *dirty |= ((*v != new) as u64) << (p % 64);
            *v = new;
        }
        if CHECK {
            if let Some(kind) = cap.kinds.get_mut(p) {
                *kind = if (1..=64).contains(&width) {
                    width as u8
                } else {
                    BAD_KIND
                };
            }
        }
    }

    #[inline(always)]
    fn text_static(&mut self, _name: &str, value: &'static str) {
        let p = self.pos;
        self.pos = p + 1;
        let cap = &mut *self.cap;
        if let (Some(s), Some(dirty)) = (cap.statics.get_mut(p), cap.dirty.get_mut(p / 64)) {
            // A `'static` str never changes its bytes: the same address and length is the
            // same text.
            *dirty |= (!std::ptr::eq(*s, value) as u64) << (p % 64);
            *s = value;
        }
        if CHECK {
            if let Some(kind) = cap.kinds.get_mut(p) {
                *kind = TEXT_KIND;
            }
        }
    }

    fn text(&mut self, _name: &str, value: &str) {
        let p = self.pos;
        self.pos = p + 1;
        let cap = &mut *self.cap;
        let (Some(s), Some(kind), Some(&slot)) = (
            cap.statics.get_mut(p),
            cap.kinds.get_mut(p),
            cap.slot_of.get(p),
        ) else {
            return;
        };
        *s = DYNAMIC;
        *kind = TEXT_KIND;
        if slot == NOT_SELECTED || cap.decl_kinds.get(p) != Some(&TEXT_KIND) {
            return;
        }
        let Some(last) = cap.last_text.get_mut(slot as usize) else {
            return;
        };
        if self.force || last.as_str() != value {
            last.clear();
            last.push_str(value);
            push_text(self.batch, slot, value);
        }
    }
}
