//! The writer thread's side of [`Tracer::record`]: a block hands the sample walk a few words
//! and a pure [`Decode`] function instead of its signals; the simulation thread copies every
//! record's words (and every walked bits signal's value) into a fixed frame, and this thread
//! compares each frame with the last one word by word ([`Decoder::decode_frame`]), runs the
//! decode function of the records whose words changed to get their signals, and compares
//! those with the values it wrote last. The changes come out in slot order, so the file is
//! the same as if the block had walked its signals.

use super::declare::{Declaration, Shows, NOT_SELECTED};
use pp5_rtl::trace::{mask, Tracer};
use std::io;

/// A record's place in the frame of words ([`Decoder::decode_frame`]) and in the walk.
#[derive(Clone)]
struct FrameRecord {
    /// Its first frame word and number of words.
    off: u32,
    len: u32,
    /// Its first position and the position after its last signal.
    first: u32,
    end: u32,
    /// A signal in it is selected (otherwise it is never decoded).
    selected: bool,
    shows: Shows,
}

/// Kind of a text position (bits positions hold their width, 1..=64).
const TEXT_KIND: u8 = 0;

/// One position of the walk, as the decoder sees it.
#[derive(Clone, Copy)]
struct Pos {
    /// The last written value (bits signals inside records).
    last: u64,
    /// The mask of a bits signal's width (0 for a text).
    mask: u64,
    /// Slot ([`NOT_SELECTED`] if none).
    slot: u32,
    /// Width, or [`TEXT_KIND`].
    kind: u8,
    /// How many 1-bit positions follow from here, this one included (at most 255).
    ones: u8,
}

/// Decodes records and keeps the last written value of each signal inside one.
pub(crate) struct Decoder {
    /// Per record: where its words lie in a frame, whether a signal in it is selected, and
    /// its decode function (the declaration walk's).
    recs: Vec<FrameRecord>,
    /// The last frame's words.
    last: Vec<u64>,
    /// Per frame word: the record it belongs to (`u32::MAX`: padding).
    rec_at: Vec<u32>,
    /// Per 64 frame words: which of them changed in the frame being decoded.
    changed: Vec<u64>,
    pos: Vec<Pos>,
    /// Per slot: the last written text (text signals inside records).
    last_text: Vec<String>,
    /// The changes of the frame being decoded, in slot order: `bits[..nbits]` (one per
    /// position at most: a frame decodes each record once, so the length is the number of
    /// positions and nothing is pushed).
    bits: Vec<(u32, u64)>,
    nbits: usize,
    /// (slot, start, end) of the changed texts; the text is `text_bytes[start..end]`.
    pub(crate) texts: Vec<(u32, u32, u32)>,
    pub(crate) text_bytes: String,
}

impl Decoder {
    pub(crate) fn new(decl: &Declaration) -> Decoder {
        let (entries, records) = (&decl.layout.entries, &decl.shape.records);
        // Frames and walks are far smaller than 2^32 words and positions (a declaration that
        // is not gets records that fail as malformed instead).
        let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Decoder {
            recs: records
                .iter()
                .map(|r| FrameRecord {
                    off: small(r.word_off),
                    len: small(r.words),
                    first: small(r.first_sig),
                    end: small(r.first_sig + r.sigs),
                    selected: !decl.none_selected(r.first_sig, r.sigs),
                    shows: r.shows.clone(),
                })
                .collect(),
            last: vec![0; decl.shape.frame_words()],
            rec_at: {
                let mut at = vec![u32::MAX; decl.shape.frame_words()];
                for (k, r) in records.iter().enumerate() {
                    if let Some(ws) = at.get_mut(r.word_off..r.word_off + r.words) {
                        ws.fill(small(k));
                    }
                }
                at
            },
            changed: vec![0; decl.shape.frame_words().div_ceil(64)],
            pos: {
                let mut pos: Vec<Pos> = entries
                    .iter()
                    .map(|e| Pos {
                        last: 0,
                        mask: if e.is_text { 0 } else { mask(e.width) },
                        slot: e.slot,
                        kind: if e.is_text { TEXT_KIND } else { e.width as u8 },
                        ones: 0,
                    })
                    .collect();
                let mut run = 0u8;
                for p in pos.iter_mut().rev() {
                    run = if p.kind == 1 {
                        run.saturating_add(1)
                    } else {
                        0
                    };
                    p.ones = run;
                }
                pos
            },
            last_text: vec![String::new(); decl.layout.nslots],
            bits: vec![(0, 0); entries.len()],
            nbits: 0,
            texts: Vec::new(),
            text_bytes: String::new(),
        }
    }

    /// Start a frame.
    pub(crate) fn clear(&mut self) {
        self.nbits = 0;
        self.texts.clear();
        self.text_bytes.clear();
    }

    /// The bits changes of the frame, in slot order.
    pub(crate) fn bits(&self) -> &[(u32, u64)] {
        self.bits.get(..self.nbits).unwrap_or(&[])
    }

    /// Words per frame in a batch.
    pub(crate) fn frame_words(&self) -> usize {
        self.last.len()
    }

    /// Decode the records of a frame whose words differ from the last frame's (every
    /// selected one if `force`, a record without words too), in walk order. After an error (a
    /// decode function that does not show its declared signals) the decoder's state is not to
    /// be used again: the writer thread stops with that error.
    pub(crate) fn decode_frame(&mut self, words: &[u64], force: bool) -> io::Result<()> {
        if words.len() != self.last.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "malformed trace frame",
            ));
        }
        // The words that changed, as a set of bits (a branch-free pass over the frame; a
        // cycle changes a few of its words, and the records are found from those).
        for ((set, cur), old) in self
            .changed
            .iter_mut()
            .zip(words.chunks(64))
            .zip(self.last.chunks_mut(64))
        {
            let mut m = 0u64;
            for (i, (c, o)) in cur.iter().zip(old.iter_mut()).enumerate() {
                m |= ((*c != *o) as u64) << i;
                *o = *c;
            }
            *set = m;
        }
        let Decoder {
            recs,
            rec_at,
            changed,
            pos,
            last_text,
            bits,
            nbits,
            texts,
            text_bytes,
            ..
        } = self;
        // One tracer for the frame; each record's decode runs on its own positions.
        let mut t = DecodeTracer {
            pos,
            next: 0,
            end: 0,
            out: bits,
            nout: *nbits,
            last_text,
            texts,
            text_bytes,
            force,
            bad: false,
        };
        if force {
            let r = recs.iter().try_for_each(|r| t.record(r, words));
            *nbits = t.nout;
            return r;
        }
        // The records below `done` are decoded (a record's words are consecutive, and the
        // records are in word order).
        let mut done = 0usize;
        for (k, &set) in changed.iter().enumerate() {
            let mut set = set;
            while set != 0 {
                let w = k * 64 + set.trailing_zeros() as usize;
                set &= set - 1;
                let Some(&ri) = rec_at.get(w) else { break };
                let ri = ri as usize;
                // Padding (`u32::MAX`) follows the records.
                if ri < done || ri == u32::MAX as usize {
                    continue;
                }
                done = ri + 1;
                if let Some(r) = recs.get(ri) {
                    if let Err(e) = t.record(r, words) {
                        *nbits = t.nout;
                        return Err(e);
                    }
                }
            }
        }
        *nbits = t.nout;
        Ok(())
    }
}

impl DecodeTracer<'_> {
    /// Decode record `r` of the frame `words` (nothing if none of its signals is selected).
    #[inline(always)]
    fn record(&mut self, r: &FrameRecord, words: &[u64]) -> io::Result<()> {
        if !r.selected {
            return Ok(());
        }
        let (off, len) = (r.off as usize, r.len as usize);
        let Some(cur) = words.get(off..off + len) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "malformed trace frame",
            ));
        };
        self.next = r.first as usize;
        self.end = r.end as usize;
        match &r.shows {
            Shows::Word => self.put_bits(None, cur.first().copied().unwrap_or(0)),
            Shows::Fn(decode) => decode(cur, self),
            Shows::With(decode) => decode(cur, self),
        }
        if self.bad || self.next != self.end {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a trace record's decode function does not show the declared signals",
            ));
        }
        Ok(())
    }
}

/// Position `n` of `pos` if it is below `end`, the end of the record being decoded.
#[inline(always)]
fn record_pos(pos: &mut [Pos], end: usize, n: usize) -> Option<&mut Pos> {
    if n < end {
        pos.get_mut(n)
    } else {
        None
    }
}

/// The tracer the [`Decode`] functions of a frame run on: every position of the walk, of which
/// the record being decoded may use its own only (`next..end`).
struct DecodeTracer<'a> {
    /// Every position of the walk.
    pos: &'a mut [Pos],
    /// Index in `pos` of the next signal, and the end of the record's positions.
    next: usize,
    end: usize,
    /// The frame's bits changes: `out[..nout]`.
    out: &'a mut [(u32, u64)],
    nout: usize,
    last_text: &'a mut [String],
    texts: &'a mut Vec<(u32, u32, u32)>,
    text_bytes: &'a mut String,
    force: bool,
    bad: bool,
}

impl DecodeTracer<'_> {
    /// Position `n`, if it is one of the record's.
    #[inline(always)]
    fn pos_at(&mut self, n: usize) -> Option<&mut Pos> {
        record_pos(self.pos, self.end, n)
    }

    /// Append a bits change (a frame has room for one per position; more is malformed).
    #[inline(always)]
    fn emit(&mut self, slot: u32, v: u64) {
        match self.out.get_mut(self.nout) {
            Some(o) => {
                *o = (slot, v);
                self.nout += 1;
            }
            None => self.bad = true,
        }
    }
}

impl DecodeTracer<'_> {
    /// The next position's value: a bits signal of `width` (`None`: a walked bits signal,
    /// of the declared width).
    #[inline(always)]
    fn put_bits(&mut self, width: Option<u32>, value: u64) {
        let n = self.next;
        self.next = n + 1;
        // (Not `pos_at`: `self.force` and `emit` are used while `p` is borrowed.)
        match record_pos(self.pos, self.end, n) {
            // Declared bits kinds are widths in 1..=64; a text's kind (0) is no width.
            Some(p) if p.kind != TEXT_KIND && width.is_none_or(|w| u32::from(p.kind) == w) => {
                let v = value & p.mask;
                if p.last != v || self.force {
                    p.last = v;
                    if p.slot != NOT_SELECTED {
                        let slot = p.slot;
                        self.emit(slot, v);
                    }
                }
            }
            _ => self.bad = true,
        }
    }
}

impl Tracer for DecodeTracer<'_> {
    fn push_scope(&mut self, _name: &str) {}
    fn pop_scope(&mut self) {}

    #[inline]
    fn bits(&mut self, _name: &str, width: u32, value: u64) {
        self.put_bits(Some(width), value);
    }

    fn bits_packed(&mut self, names: &[&str], value: u64) {
        // At most 64 names count, as in the default (which the declaration walk uses).
        let (n, len) = (self.next, names.len().min(64));
        self.next = n + len;
        let Some(ps) = self.pos.get_mut(n..n + len).filter(|_| n + len <= self.end) else {
            self.bad = true;
            return;
        };
        if len == 0 {
            return;
        }
        if usize::from(ps[0].ones) < len {
            self.bad = true;
            return;
        }
        // The last value of a 1-bit position is 0 or 1 (a plain loop: a few positions).
        let old = ps.iter().rev().fold(0u64, |o, p| o << 1 | p.last);
        let mut changed = if self.force { u64::MAX } else { old ^ value } & mask(len as u32);
        while changed != 0 {
            let i = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            if let Some(p) = ps.get_mut(i) {
                let v = value >> i & 1;
                p.last = v;
                if p.slot != NOT_SELECTED {
                    match self.out.get_mut(self.nout) {
                        Some(o) => {
                            *o = (p.slot, v);
                            self.nout += 1;
                        }
                        None => self.bad = true,
                    }
                }
            }
        }
    }

    #[inline]
    fn text_static(&mut self, name: &str, value: &'static str) {
        // A `'static` str never changes its bytes: the same address and length as last time
        // is the same text (`last` of a text position holds the address of the last static
        // text written there, 0 after a dynamic one).
        let key = value.as_ptr() as u64 ^ (value.len() as u64) << 48;
        if let Some(p) = self.pos_at(self.next) {
            if p.kind == TEXT_KIND && p.last == key && key != 0 && !self.force {
                self.next += 1;
                return;
            }
        }
        let n = self.next;
        self.text(name, value);
        if let Some(p) = self.pos_at(n) {
            p.last = key;
        }
    }

    fn text(&mut self, _name: &str, value: &str) {
        let n = self.next;
        self.next = n + 1;
        if let Some(p) = self.pos_at(n) {
            p.last = 0;
        }
        let Some(p) = self.pos_at(n).copied() else {
            self.bad = true;
            return;
        };
        if p.kind != TEXT_KIND {
            self.bad = true;
            return;
        }
        if p.slot == NOT_SELECTED {
            return;
        }
        if let Some(last) = self.last_text.get_mut(p.slot as usize) {
            if self.force || last.as_str() != value {
                last.clear();
                last.push_str(value);
                let start = self.text_bytes.len() as u32;
                self.text_bytes.push_str(value);
                self.texts
                    .push((p.slot, start, self.text_bytes.len() as u32));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{TraceConfig, WaveFormat, WaveWriter};
    use pp5_rtl::trace::{bit, Decode, DecodeWith, Traced, Tracer};
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    /// The same registers traced two ways: walked signal by signal (the text, which a walk
    /// cannot show alone, from a decode function that holds its names), or as records.
    struct Block {
        a: u64,
        b: u64,
        records: bool,
        kind: DecodeWith,
    }

    const FLAGS: [&str; 3] = ["f0", "f1", "f2"];

    fn decode_inner(w: &[u64], t: &mut dyn Tracer) {
        let a = w.first().copied().unwrap_or(0);
        t.bits_packed(&FLAGS, a & 7);
        t.bits("val", 12, a >> 3);
        t.text_static("kind", if a & 1 != 0 { "ODD" } else { "EVEN" });
    }

    fn decode_group(w: &[u64], t: &mut dyn Tracer) {
        t.bits("b", 64, w.first().copied().unwrap_or(0));
    }

    impl Traced for Block {
        fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
            t.push_scope("top");
            bit(t, "head", self.a & 1 != 0);
            if self.records {
                t.record("inner", &[self.a], decode_inner);
                // A record inside a keyed group: skipped with it, it keeps its words.
                if t.group(self.b) {
                    t.record_group(&[self.b], decode_group);
                    t.end_group();
                }
            } else {
                t.push_scope("inner");
                for (i, name) in FLAGS.iter().enumerate() {
                    bit(t, name, self.a >> i & 1 != 0);
                }
                t.bits("val", 12, self.a >> 3);
                t.record_with(&[self.a & 1], &self.kind);
                t.pop_scope();
                if t.group(self.b) {
                    t.bits("b", 64, self.b);
                    t.end_group();
                }
            }
            t.bits("tail", 4, self.b);
            t.pop_scope();
        }
    }

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("pp5-decode-{}-{name}", std::process::id()))
    }

    fn write(records: bool, path: &Path, cfg: TraceConfig) {
        let names: Arc<[&str]> = Arc::from(["EVEN", "ODD"]);
        let mut blk = Block {
            a: 0,
            b: 0,
            records,
            kind: Arc::new(move |w, t| {
                t.text("kind", names[w.first().map_or(0, |x| x & 1) as usize])
            }),
        };
        let mut w = WaveWriter::create(path, WaveFormat::Vcd, cfg, &blk).expect("create");
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for c in 0..3000u64 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // Change the registers in some cycles only, a few bits at a time.
            if s.is_multiple_of(3) {
                blk.a ^= s >> 40;
            }
            if s.is_multiple_of(5) {
                blk.b = blk.b.wrapping_add(s >> 50);
            }
            w.sample(c, &blk).expect("sample");
        }
        w.finish().expect("finish");
    }

    #[test]
    fn records_write_the_same_file_as_walked_signals() {
        for (k, scopes) in [vec![], vec!["top.inner.f1".to_string(), "top.b".into()]]
            .into_iter()
            .enumerate()
        {
            let cfg = TraceConfig {
                scopes,
                window: Some((7, 2900)),
            };
            let (p1, p2) = (temp(&format!("walk{k}.vcd")), temp(&format!("rec{k}.vcd")));
            write(false, &p1, cfg.clone());
            write(true, &p2, cfg);
            let (a, b) = (
                std::fs::read(&p1).expect("walk"),
                std::fs::read(&p2).expect("rec"),
            );
            let _ = (std::fs::remove_file(&p1), std::fs::remove_file(&p2));
            assert!(a.len() > 1000);
            assert!(a == b, "the record file differs from the walked one");
        }
    }

    /// A decode function whose signals depend on the words breaks the declaration: an error,
    /// not a wrong file.
    #[test]
    fn a_decode_that_changes_shape_is_an_error() {
        /// A record whose decode shows another kind, or one signal more, once its word is
        /// not 0; then a well-formed record. Either is reported as an error (the writer stops)
        /// instead of a file with wrong values.
        struct Bad(u64, Decode);
        fn other_kind(w: &[u64], t: &mut dyn Tracer) {
            if w.first().copied().unwrap_or(0) == 0 {
                t.bits("x", 8, 0);
            } else {
                t.text_static("x", "NOW_TEXT");
            }
        }
        fn one_more(w: &[u64], t: &mut dyn Tracer) {
            t.bits("x", 8, 0);
            if w.first().copied().unwrap_or(0) != 0 {
                t.bits("y", 8, 1);
            }
        }
        fn good(w: &[u64], t: &mut dyn Tracer) {
            t.bits("y", 8, w.first().copied().unwrap_or(0));
        }
        impl Traced for Bad {
            fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
                t.record("bad", &[self.0], self.1);
                t.record("good", &[self.0 + 1], good);
            }
        }
        for decode in [other_kind as Decode, one_more] {
            let p = temp("bad.vcd");
            let mut blk = Bad(0, decode);
            let mut w = WaveWriter::create(&p, WaveFormat::Vcd, TraceConfig::default(), &blk)
                .expect("create");
            let mut failed = false;
            for c in 0..5000u64 {
                blk.0 = c / 10;
                failed |= w.sample(c, &blk).is_err();
            }
            failed |= w.finish().is_err();
            let _ = std::fs::remove_file(&p);
            assert!(failed, "the malformed record was not reported");
        }
    }

    /// A record without words (its signals constant) is written with the first sample, as
    /// every signal is.
    #[test]
    fn a_record_without_words_is_written_on_the_first_sample() {
        struct Const(u64);
        fn constant(_: &[u64], t: &mut dyn Tracer) {
            t.bits("c", 8, 0x5a);
            t.text_static("name", "CONST");
        }
        impl Traced for Const {
            fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
                t.push_scope("top");
                t.record("k", &[], constant);
                t.bits("v", 8, self.0);
                t.pop_scope();
            }
        }
        let p = temp("const.vcd");
        let mut w = WaveWriter::create(&p, WaveFormat::Vcd, TraceConfig::default(), &Const(0))
            .expect("create");
        for c in 0..3u64 {
            w.sample(c, &Const(c)).expect("sample");
        }
        w.finish().expect("finish");
        let text = std::fs::read_to_string(&p).expect("read");
        let _ = std::fs::remove_file(&p);
        let id = |name: &str| {
            text.lines()
                .find(|l| l.starts_with("$var") && l.split_whitespace().nth(4) == Some(name))
                .and_then(|l| l.split_whitespace().nth(3))
                .map(str::to_string)
                .unwrap_or_else(|| panic!("{name} is not declared"))
        };
        let dump = text.split("$dumpvars").nth(1).expect("a $dumpvars block");
        let dump = dump.split("$end").next().unwrap_or("");
        assert!(
            dump.lines()
                .any(|l| l == format!("b1011010 {}", id("c"))
                    || l == format!("b01011010 {}", id("c"))),
            "c is not in the first sample:\n{dump}"
        );
        assert!(
            dump.lines().any(|l| l == format!("sCONST {}", id("name"))),
            "name is not in the first sample:\n{dump}"
        );
    }

    /// A walk that leaves out a signal just before a group whose key is unchanged reaches
    /// the group's end as declared; the checking walk (the first of each batch) still reports
    /// it, where the walk reaches the group.
    #[test]
    fn a_signal_missed_before_a_skipped_group_is_an_error() {
        struct Walk {
            with_a: bool,
        }
        impl Traced for Walk {
            fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
                t.push_scope("top");
                if self.with_a {
                    t.bits("a", 8, 1);
                }
                if t.group(7) {
                    t.bits("g", 8, 2);
                    t.end_group();
                }
                t.bits("b", 4, 3);
                t.pop_scope();
            }
        }
        let p = temp("skipped.vcd");
        let mut blk = Walk { with_a: true };
        let mut w =
            WaveWriter::create(&p, WaveFormat::Vcd, TraceConfig::default(), &blk).expect("create");
        let mut failed = false;
        for c in 0..5000u64 {
            // From the first sample of the second batch (a checking walk) on.
            blk.with_a = c < 2048;
            failed |= w.sample(c, &blk).is_err();
        }
        failed |= w.finish().is_err();
        let _ = std::fs::remove_file(&p);
        assert!(failed, "the missed signal was not reported");
    }
}
