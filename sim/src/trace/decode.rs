//! The writer thread's side of [`Tracer::record`]: a block hands the sample walk a few words
//! and a pure [`Decode`] function instead of its signals; the simulation thread keeps the
//! words when they changed, and this thread runs the function to get the signals, compares
//! them with the values it wrote last and merges the changes with the walked ones, in slot
//! order (the order the simulation thread writes its own changes in), so the file is the same
//! as if the block had walked its signals.

use super::{mask, Entry, Skippable, NOT_SELECTED};
use pp5_rtl::trace::{Decode, Tracer};
use std::io;

/// Kind of a text position (bits positions hold their width, 1..=64).
const TEXT_KIND: u8 = 0;

/// Decodes records and keeps the last written value of each signal inside one.
pub(crate) struct Decoder {
    /// Per skippable scope of the walk: first position, number of signals, and whether it
    /// is a record.
    spans: Vec<(usize, usize, bool)>,
    /// Per position: slot ([`NOT_SELECTED`] if none) and kind (width, or [`TEXT_KIND`]).
    slot_of: Vec<u32>,
    kinds: Vec<u8>,
    /// Per slot: the last written value (only slots inside records are used).
    last: Vec<u64>,
    last_text: Vec<String>,
    /// The changes of the frame being decoded, in slot order.
    pub(crate) bits: Vec<(u32, u64)>,
    /// (slot, start, end) of the changed texts; the text is `text_bytes[start..end]`.
    pub(crate) texts: Vec<(u32, u32, u32)>,
    pub(crate) text_bytes: String,
}

impl Decoder {
    pub(crate) fn new(entries: &[Entry], skippable: &[Skippable], nslots: usize) -> Decoder {
        Decoder {
            spans: skippable
                .iter()
                .map(|k| (k.first_sig, k.sigs, k.record))
                .collect(),
            slot_of: entries.iter().map(|e| e.slot).collect(),
            kinds: entries
                .iter()
                .map(|e| if e.is_text { TEXT_KIND } else { e.width as u8 })
                .collect(),
            last: vec![0; nslots],
            last_text: vec![String::new(); nslots],
            bits: Vec::new(),
            texts: Vec::new(),
            text_bytes: String::new(),
        }
    }

    /// Start a frame.
    pub(crate) fn clear(&mut self) {
        self.bits.clear();
        self.texts.clear();
        self.text_bytes.clear();
    }

    /// Decode record `k` of the walk from `words`, appending the selected signals that
    /// changed (all of them if `force`). Records must come in walk order within a frame.
    pub(crate) fn decode(
        &mut self,
        k: u32,
        words: &[u64],
        decode: Decode,
        force: bool,
    ) -> io::Result<()> {
        let malformed = || io::Error::new(io::ErrorKind::InvalidData, "malformed trace record");
        let &(first, sigs, record) = self.spans.get(k as usize).ok_or_else(malformed)?;
        if !record {
            return Err(malformed());
        }
        let mut t = DecodeTracer {
            d: self,
            pos: first,
            end: first + sigs,
            force,
            bad: false,
        };
        decode(words, &mut t);
        if t.bad || t.pos != t.end {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a trace record's decode function does not show the declared signals",
            ));
        }
        Ok(())
    }
}

/// The tracer a [`Decode`] function runs on: positions `pos..end` of the walk.
struct DecodeTracer<'a> {
    d: &'a mut Decoder,
    pos: usize,
    end: usize,
    force: bool,
    bad: bool,
}

impl DecodeTracer<'_> {
    /// The next position's slot, if its declared kind is `kind` (else the walk is bad).
    fn next(&mut self, kind: u8) -> Option<u32> {
        let p = self.pos;
        self.pos = p + 1;
        match (self.d.kinds.get(p), self.d.slot_of.get(p)) {
            (Some(&k), Some(&slot)) if p < self.end && k == kind => Some(slot),
            _ => {
                self.bad = true;
                None
            }
        }
    }
}

impl Tracer for DecodeTracer<'_> {
    fn push_scope(&mut self, _name: &str) {}
    fn pop_scope(&mut self) {}

    fn bits(&mut self, _name: &str, width: u32, value: u64) {
        let kind = if (1..=64).contains(&width) {
            width as u8
        } else {
            u8::MAX
        };
        let Some(slot) = self.next(kind) else {
            return;
        };
        if slot == NOT_SELECTED {
            return;
        }
        let v = value & mask(width);
        if let Some(last) = self.d.last.get_mut(slot as usize) {
            if self.force || *last != v {
                *last = v;
                self.d.bits.push((slot, v));
            }
        }
    }

    fn text(&mut self, _name: &str, value: &str) {
        let Some(slot) = self.next(TEXT_KIND) else {
            return;
        };
        if slot == NOT_SELECTED {
            return;
        }
        let d = &mut *self.d;
        if let Some(last) = d.last_text.get_mut(slot as usize) {
            if self.force || last.as_str() != value {
                last.clear();
                last.push_str(value);
                let start = d.text_bytes.len() as u32;
                d.text_bytes.push_str(value);
                d.texts.push((slot, start, d.text_bytes.len() as u32));
            }
        }
    }
}

/// Visit two lists, each in increasing slot order, as one list in increasing slot order:
/// `emit(false, i)` for `a[i]`, `emit(true, j)` for `b[j]`.
pub(crate) fn merge_by_slot<A, B>(
    a: &[A],
    b: &[B],
    slot_a: impl Fn(&A) -> u32,
    slot_b: impl Fn(&B) -> u32,
    mut emit: impl FnMut(bool, usize) -> io::Result<()>,
) -> io::Result<()> {
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => {
                if slot_a(x) <= slot_b(y) {
                    emit(false, i)?;
                    i += 1;
                } else {
                    emit(true, j)?;
                    j += 1;
                }
            }
            (Some(_), None) => {
                emit(false, i)?;
                i += 1;
            }
            (None, Some(_)) => {
                emit(true, j)?;
                j += 1;
            }
            (None, None) => return Ok(()),
        }
    }
}
