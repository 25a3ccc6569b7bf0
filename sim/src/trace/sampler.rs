//! The per-cycle sample: one walk of the blocks that copies every record's words, and every
//! walked bits signal's value, into its place in a frame of words.
//!
//! The walk runs on the simulation thread every cycle, so it does as little as it can there:
//! a record costs a copy of its words, a walked bits signal a store, and the whole frame goes
//! to the writer thread, which finds the records whose words changed and decodes them
//! ([`super::decode`]). A group whose key is unchanged is jumped over: its words stay in the
//! frame as they were, which, its content being a function of its key, are still its words. A
//! walk whose shape turns out wrong writes nothing, and the next one is forced.

use super::declare::{Cursor, Declaration, Item, CHUNK};
use super::worker::Batch;
use pp5_rtl::trace::{Decode, DecodeWith, Tracer};

/// A group of the walk as the sample walk keeps it.
#[derive(Clone, Copy, Debug, Default)]
struct GroupState {
    /// Its key at its last visit, if `valid`.
    key: u64,
    valid: bool,
    /// No signal in it is selected: always jumped over.
    unselected: bool,
    /// Where the walk is when it opens the group (checked by a checking walk), and where
    /// it continues when it is jumped over.
    start: Cursor,
    end: Cursor,
}

/// What the sample walks keep from one to the next: the frame and the groups' keys; and the
/// shape they must have.
pub(crate) struct SampleState {
    /// This walk's words, padded to whole chunks of [`CHUNK`] words.
    frame: Vec<u64>,
    /// The declared items, in walk order (checked by a checking walk).
    items: Vec<Item>,
    groups: Vec<GroupState>,
    end: Cursor,
}

impl SampleState {
    pub(crate) fn new(decl: &Declaration) -> SampleState {
        let shape = &decl.shape;
        SampleState {
            frame: vec![0; shape.frame_words()],
            items: shape.items.clone(),
            groups: shape
                .groups
                .iter()
                .map(|g| GroupState {
                    unselected: decl.none_selected(g.first_sig, g.sigs),
                    start: g.start,
                    end: g.end,
                    ..GroupState::default()
                })
                .collect(),
            end: shape.end,
        }
    }

    /// Forget every group's key (the next walk visits everything).
    pub(crate) fn invalidate(&mut self) {
        self.groups.iter_mut().for_each(|g| g.valid = false);
    }

    /// Copy this walk's frame into `batch` as its next frame (number `batch.frames.len()`).
    /// The frame is a whole number of [`CHUNK`]s, copied chunk by chunk (inline vector
    /// moves: a `memcpy` call per cycle was a measurable part of the walk) into words the
    /// batch already has after its first use (the first use appends them).
    #[inline]
    pub(crate) fn commit(&self, batch: &mut Batch) {
        let n = self.frame.len();
        let start = batch.frames.len() * n;
        let words = &mut batch.record_words;
        if words.len() < start + n {
            words.resize(start, 0);
            words.extend_from_slice(&self.frame);
            return;
        }
        if let Some(dst) = words.get_mut(start..start + n) {
            for (d, s) in dst
                .chunks_exact_mut(CHUNK)
                .zip(self.frame.chunks_exact(CHUNK))
            {
                d.copy_from_slice(s);
            }
        }
    }
}

/// The tracer of one sample walk. With `CHECK` it also checks every visited item against the
/// declaration; the writer checks the first sample of each batch (and every sample after a
/// failed one), which keeps the check off the path of the others.
pub(crate) struct Sampler<'a, const CHECK: bool> {
    pub(crate) st: &'a mut SampleState,
    pub(crate) at: Cursor,
    pub(crate) bad: bool,
    /// First sample (or a resynchronisation): no group is jumped over by key.
    pub(crate) force: bool,
}

impl<const CHECK: bool> Sampler<'_, CHECK> {
    /// Whether the walk visited (or jumped over) everything declared.
    pub(crate) fn complete(&self) -> bool {
        let (a, e) = (&self.at, &self.st.end);
        a.word == e.word && a.group == e.group && (!CHECK || a.item == e.item)
    }

    /// The next item is `item` (checked by a checking walk).
    #[inline(always)]
    fn check(&mut self, item: Item) {
        if CHECK {
            self.bad |= self.st.items.get(self.at.item) != Some(&item);
            self.at.item += 1;
        }
    }
}

impl<const CHECK: bool> Tracer for Sampler<'_, CHECK> {
    fn push_scope(&mut self, _name: &str) {}
    fn pop_scope(&mut self) {}

    #[inline(always)]
    fn group(&mut self, key: u64) -> bool {
        let Some(g) = self.st.groups.get_mut(self.at.group) else {
            self.bad = true;
            return false;
        };
        if CHECK {
            // The walk reached the group where the declaration did (jumping over it would
            // hide a signal missed or added before it).
            let (s, a) = (&g.start, &self.at);
            self.bad |= (s.item, s.word) != (a.item, a.word);
        }
        let same = g.valid && g.key == key && !self.force;
        (g.key, g.valid) = (key, true);
        if same || g.unselected {
            let item = self.at.item;
            self.at = g.end;
            if !CHECK {
                self.at.item = item;
            }
            return false;
        }
        self.at.group += 1;
        true
    }

    fn end_group(&mut self) {}

    /// The record's words go to its place in the frame. (Its decode function is the
    /// declaration's: the writer thread keeps that one.)
    #[inline(always)]
    fn record_group(&mut self, words: &[u64], _decode: Decode) {
        let (off, len) = (self.at.word, words.len());
        self.check(Item::Record(len));
        self.at.word = off + len;
        match self.st.frame.get_mut(off..off + len) {
            Some(dst) => dst.copy_from_slice(words),
            None => self.bad = true,
        }
    }

    #[inline(always)]
    fn bits(&mut self, _name: &str, width: u32, value: u64) {
        self.check(Item::Bits(width));
        match self.st.frame.get_mut(self.at.word) {
            Some(w) => *w = value,
            None => self.bad = true,
        }
        self.at.word += 1;
    }

    #[inline(always)]
    fn record_with(&mut self, words: &[u64], _decode: &DecodeWith) {
        self.record_group(words, |_, _| {});
    }

    /// A text outside a record, which the declaration refuses.
    fn text(&mut self, _name: &str, _value: &str) {
        self.bad = true;
    }
}
