//! The per-cycle sample: one walk of the blocks that compares each walked value with the one
//! at its position and hands the changes to the batch as it goes, and copies the records'
//! words into a frame.
//!
//! The walk runs on the simulation thread every cycle, so each signal must cost as little as
//! possible there: [`Sampler::bits`] masks the value (the width is usually a constant, so the
//! mask folds away), compares it with the one stored at the signal's position and, if it
//! changed, stores it and appends it to the batch (walk order is slot order, the order the
//! writer thread wants). Scopes skipped by key keep their stored values, which is what makes
//! skipping exact. Most signals are in records ([`Tracer::record`]): a record costs the walk
//! a copy of its words into its place in a [`RecordFrame`], which goes to the writer thread
//! whole; that thread finds the records whose words changed and decodes them. A walk whose
//! shape turns out wrong is undone (the batch is truncated) and the next one is forced.

use super::worker::Batch;
use super::{frame_words, mask, Entry, RecordDecl, Skippable, NOT_SELECTED};
use pp5_rtl::trace::{Decode, Tracer};

/// Words of a frame copied at once (inline vector moves); frames are padded to whole chunks.
pub(crate) const CHUNK: usize = 4;

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
    /// Slot of each position declared as bits, and of each declared as text
    /// ([`NOT_SELECTED`] if unselected or of the other kind).
    bits_slot: Vec<u32>,
    text_slot: Vec<u32>,
    last_text: Vec<String>,
    /// The static texts of this walk that go to the batch, by slot: appended after the walk
    /// ([`Capture::commit`]), which puts them in slot order with the texts [`Tracer::text`]
    /// appended during it.
    static_texts: Vec<(u32, &'static str)>,
}

impl Capture {
    /// `entries`: the walked positions (the signals outside records), in walk order.
    pub(crate) fn new(entries: &[Entry], nslots: usize) -> Capture {
        let decl_kinds: Vec<u8> = entries
            .iter()
            .map(|e| if e.is_text { TEXT_KIND } else { e.width as u8 })
            .collect();
        let slot_if = |text: bool| {
            entries
                .iter()
                .map(|e| {
                    if e.is_text == text {
                        e.slot
                    } else {
                        NOT_SELECTED
                    }
                })
                .collect()
        };
        Capture {
            vals: vec![0; entries.len()],
            kinds: decl_kinds.clone(),
            decl_kinds,
            statics: vec![""; entries.len()],
            bits_slot: slot_if(false),
            text_slot: slot_if(true),
            last_text: vec![String::new(); nslots],
            static_texts: Vec::new(),
        }
    }

    /// Append this walk's static texts to `batch`, whose texts from `first` on are this
    /// walk's: they are then put in slot order (the declaration's, which the writer thread
    /// merges with the decoded ones), as they would be walked.
    #[inline]
    pub(crate) fn commit(&mut self, batch: &mut Batch, first: usize) {
        if !self.static_texts.is_empty() {
            for &(slot, s) in &self.static_texts {
                push_text(batch, slot, s);
            }
            self.static_texts.clear();
            if let Some(texts) = batch.texts.get_mut(first..) {
                texts.sort_by_key(|t| t.0);
            }
        }
    }

    /// Forget what was last written (after a failed walk): the next walk must be forced.
    pub(crate) fn invalidate(&mut self) {
        self.kinds.copy_from_slice(&self.decl_kinds);
        self.static_texts.clear();
    }

    /// Whether the walk visited exactly the declared kinds (the signal count is checked by
    /// the caller).
    pub(crate) fn shape_ok(&self) -> bool {
        self.kinds == self.decl_kinds
    }

    /// Static text `s` was shown at position `p` (another one than last time, or `force`):
    /// keep it for the batch if the position is selected and the text differs from the one
    /// last written.
    #[inline(never)]
    fn static_text_changed(&mut self, p: usize, s: &'static str, force: bool) {
        let Some(&slot) = self.text_slot.get(p).filter(|&&slot| slot != NOT_SELECTED) else {
            return;
        };
        let Some(last) = self.last_text.get_mut(slot as usize) else {
            return;
        };
        if force || last.as_str() != s {
            last.clear();
            last.push_str(s);
            self.static_texts.push((slot, s));
        }
    }
}

fn push_text(batch: &mut Batch, slot: u32, text: &str) {
    let b = &mut batch.text_bytes;
    let start = b.len() as u32;
    b.push_str(text);
    batch.texts.push((slot, start, b.len() as u32));
}

/// What the sample walk needs of one skippable scope or group (32 bytes).
#[derive(Clone, Copy, Debug, Default)]
struct ScopeState {
    /// Its key at its last visit, if the declaration's key is one word (the usual case);
    /// longer keys are `Scopes::keys[key_off..key_off + key_len]`.
    key: u64,
    /// Where the walk continues when it is skipped: the next walked position, skippable
    /// scope and frame word.
    end_pos: u32,
    end_epos: u32,
    end_rpos: u32,
    key_off: u32,
    /// The length of the declaration's key ([`NO_KEY`]: entered without one).
    key_len: u16,
    /// Whether the stored key is the one of its last visit (a scope entered without a key,
    /// or with a key of another length, is never skipped by key).
    valid: bool,
    /// No signal in it is selected: always skipped.
    unselected: bool,
}

/// [`ScopeState::key_len`] of a scope declared without a key.
const NO_KEY: u16 = u16::MAX;

/// The skippable scopes of the walk and the key each had at its last visit, in one table
/// (a visit costs a few loads and an inline comparison).
pub(crate) struct Scopes {
    info: Vec<ScopeState>,
    keys: Vec<u64>,
}

impl Scopes {
    pub(crate) fn new(skippable: &[Skippable], unselected: &[bool]) -> Scopes {
        let mut keys = 0usize;
        let info = skippable
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let key_len = match s.key_len {
                    Some(n) => u16::try_from(n).unwrap_or(NO_KEY - 1),
                    None => NO_KEY,
                };
                let key_off = keys as u32;
                if key_len > 1 && key_len != NO_KEY {
                    keys += key_len as usize;
                }
                ScopeState {
                    key: 0,
                    end_pos: (s.first_walked + s.walked) as u32,
                    end_epos: (k + 1 + s.nested) as u32,
                    end_rpos: (s.first_word + s.words) as u32,
                    key_off,
                    key_len,
                    valid: false,
                    unselected: unselected.get(k).copied().unwrap_or(false),
                }
            })
            .collect();
        Scopes {
            info,
            keys: vec![0; keys],
        }
    }

    /// Forget every key (the next walk visits everything).
    pub(crate) fn clear(&mut self) {
        self.info.iter_mut().for_each(|s| s.valid = false);
    }
}

/// Whether `key` equals the key `s` had at its last visit; records `key`.
#[inline(always)]
fn same_then_store(keys: &mut [u64], s: &mut ScopeState, key: &[u64]) -> bool {
    if let [k0] = key {
        if s.key_len == 1 {
            let same = s.valid && s.key == *k0;
            s.key = *k0;
            s.valid = true;
            return same;
        }
    }
    let (off, len) = (s.key_off as usize, s.key_len as usize);
    match keys.get_mut(off..off + len) {
        Some(old) if len == key.len() && len > 1 => {
            let diff = old.iter().zip(key).fold(0u64, |d, (&a, &b)| d | (a ^ b));
            let same = s.valid && diff == 0;
            if !same {
                old.copy_from_slice(key);
                s.valid = true;
            }
            same
        }
        _ => {
            // An empty key (the content is constant), or one of another length than the
            // declaration's.
            let same = s.valid && key.is_empty() && s.key_len == 0;
            s.valid = key.is_empty() && s.key_len == 0;
            same
        }
    }
}

/// The records' words of one walk: each record has a fixed place in a frame of words that
/// every walk overwrites (a record costs the walk a copy of its words and nothing else), and
/// the whole frame goes to the writer thread, which compares it with the last one and decodes
/// the records whose words changed ([`super::decode::Decoder::decode_frame`]). A record
/// inside a skipped scope is not visited and keeps its words, which, the scope's content
/// being a function of its key, are still its words.
pub(crate) struct RecordFrame {
    /// This walk's words, padded to whole chunks of [`CHUNK`] words.
    cur: Vec<u64>,
    /// Per frame word: the length of the record starting there (0 if none starts there).
    len_at: Vec<u32>,
    /// Words of the records (the frame without its padding).
    words: usize,
}

impl RecordFrame {
    pub(crate) fn new(records: &[RecordDecl]) -> RecordFrame {
        let mut len_at = vec![0; frame_words(records)];
        for r in records {
            if let Some(l) = len_at.get_mut(r.word_off) {
                *l = r.words as u32;
            }
        }
        RecordFrame {
            cur: vec![0; frame_words(records)],
            len_at,
            words: records.iter().map(|r| r.words).sum(),
        }
    }

    /// Copy this walk's frame into `batch` as its next frame (number `batch.frames.len()`).
    /// The frame is a whole number of [`CHUNK`]s, copied chunk by chunk (inline vector
    /// moves: a `memcpy` call per cycle was a measurable part of the walk) into words the
    /// batch already has after its first use (the first use appends them).
    #[inline]
    pub(crate) fn commit(&self, batch: &mut Batch) {
        let n = self.cur.len();
        let start = batch.frames.len() * n;
        let words = &mut batch.record_words;
        if words.len() < start + n {
            // A batch's first use: the frame is appended (its words are then kept).
            words.resize(start, 0);
            words.extend_from_slice(&self.cur);
            return;
        }
        if let Some(dst) = words.get_mut(start..start + n) {
            for (d, s) in dst
                .chunks_exact_mut(CHUNK)
                .zip(self.cur.chunks_exact(CHUNK))
            {
                d.copy_from_slice(s);
            }
        }
    }
}

/// The tracer of one sample walk. With `CHECK` it also records the kind (width or text) of
/// every visited position for [`Capture::shape_ok`]; the writer checks the first sample of
/// each batch (and every sample after a failed one), which keeps the check off the
/// per-signal path of the others.
pub(crate) struct Sampler<'a, const CHECK: bool> {
    pub(crate) cap: &'a mut Capture,
    /// Position of the next walked signal (outside records).
    pub(crate) pos: usize,
    /// Index of the next skippable scope of the walk.
    pub(crate) epos: usize,
    /// Frame word of the next record.
    pub(crate) rpos: usize,
    pub(crate) bad: bool,
    /// First sample (or a resynchronisation): nothing is skipped by key, every text counts.
    pub(crate) force: bool,
    pub(crate) scopes: &'a mut Scopes,
    pub(crate) frame: &'a mut RecordFrame,
    /// The batch, for texts written with [`Tracer::text`] (copied during the walk).
    pub(crate) batch: &'a mut Batch,
}

impl<const CHECK: bool> Sampler<'_, CHECK> {
    /// Whether the walk visited (or skipped) every declared scope and record.
    pub(crate) fn complete(&self) -> bool {
        self.epos == self.scopes.info.len() && self.rpos == self.frame.words
    }

    /// Enter skippable scope or group number `epos`, or skip it (unselected, or its key is
    /// unchanged) and return false.
    #[inline(always)]
    fn skip_or_enter(&mut self, key: Option<&[u64]>) -> bool {
        let k = self.epos;
        let sc = &mut *self.scopes;
        let Some(info) = sc.info.get_mut(k) else {
            self.bad = true;
            return false;
        };
        let unchanged = match key {
            Some(key) => same_then_store(&mut sc.keys, info, key) && !self.force,
            None => {
                info.valid = false;
                false
            }
        };
        if info.unselected || unchanged {
            self.pos = info.end_pos as usize;
            self.epos = info.end_epos as usize;
            self.rpos = info.end_rpos as usize;
            return false;
        }
        self.epos = k + 1;
        true
    }

    /// The next record of the walk: its words go to its place in the frame.
    #[inline(always)]
    fn record_words(&mut self, words: &[u64], decode: Decode) {
        let (off, len) = (self.rpos, words.len());
        self.rpos = off + len;
        let f = &mut *self.frame;
        match f.cur.get_mut(off..off + len) {
            Some(dst) => dst.copy_from_slice(words),
            None => self.bad = true,
        }
        if CHECK {
            // A record of the declaration's length starts here. (Its decode function is the
            // declaration's too: the writer thread keeps that one.)
            let _ = decode;
            self.bad |= len != 0 && f.len_at.get(off) != Some(&(len as u32));
        }
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
        if let Some(v) = cap.vals.get_mut(p) {
            let new = value & mask(width);
            // Walk order is slot order: a change goes straight to the batch.
            if *v != new || self.force {
                *v = new;
                if let Some(&slot) = cap.bits_slot.get(p).filter(|&&s| s != NOT_SELECTED) {
                    self.batch.changes.push((slot, new));
                }
            }
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
        if let Some(s) = cap.statics.get_mut(p) {
            // A `'static` str never changes its bytes: the same address and length is the
            // same text.
            if !std::ptr::eq(*s, value) || self.force {
                *s = value;
                cap.static_text_changed(p, value, self.force);
            }
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
            cap.text_slot.get(p),
        ) else {
            return;
        };
        *s = DYNAMIC;
        *kind = TEXT_KIND;
        if slot == NOT_SELECTED {
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
