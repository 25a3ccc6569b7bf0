//! FST back end: writes GTKWave's Fast Signal Trace format directly (the blocks libfst and
//! `fst-writer` write: a header, an LZ4 hierarchy, the geometry, then value-change sections of
//! the "dynamic alias 2" kind).
//!
//! Each value change is encoded as the format stores it when it happens (a variable-length
//! time-table index delta, then the value packed 8 bits per byte) and appended to its
//! signal's list; a section is written once the lists pass [`FLUSH_BYTES`], each list LZ4
//! compressed. Values arrive as numbers and never go through text. Text signals are
//! [`FST_TEXT_BITS`]-bit vectors (see the module documentation of [`super`]).
//!
//! After each section the header's end time and section count are rewritten for the sections
//! in the file (`FstSink::patch_header`), so a file cut short by a killed process (the
//! `.NAME.PID.partial` it leaves) is a valid FST of its whole sections: GTKWave, `fst2vcd`
//! and `wellen` read it up to the last section's end.
//!
//! The same sink writes the system waveform (`render::system::system_wave`), which has no
//! `clk` and calls [`FstSink::time`] instead of [`Sink::begin`] and [`Sink::end`].

use super::declare::DeclItem;
use super::{Sink, FST_TEXT_BITS, FST_TEXT_CHARS};
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

const BUF_BYTES: usize = 1 << 20;

/// Write a value-change section once this much change data is buffered.
pub(crate) const FLUSH_BYTES: usize = 32 << 20;

/// Block types, header layout and hierarchy codes of the FST format.
const BLOCK_HEADER: u8 = 0;
const BLOCK_GEOMETRY: u8 = 3;
const BLOCK_HIERARCHY_LZ4: u8 = 6;
const BLOCK_VC_DYN_ALIAS2: u8 = 8;
const HEADER_LENGTH: u64 = 329;
const HEADER_VERSION_LEN: usize = 128;
const HEADER_DATE_LEN: usize = 119;
const SCOPE_MODULE: u8 = 0;
const HIER_SCOPE: u8 = 254;
const HIER_UPSCOPE: u8 = 255;
const VAR_WIRE: u8 = 16;
const DIR_IMPLICIT: u8 = 0;
const PACK_LZ4: u8 = b'4';
/// Timescale exponent: picoseconds.
const TIMESCALE: i8 = -12;
/// Change lists shorter than this are stored uncompressed.
const MIN_COMPRESS: usize = 32;

/// Appends `v` as the format's unsigned LEB128 varint.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v > 0x7f {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` as the format's signed varint (the offset table's).
fn varint_signed(out: &mut Vec<u8>, mut v: i64) {
    let bits = if v >= 0 {
        65 - v.leading_zeros()
    } else {
        65 - v.leading_ones()
    };
    let n = bits.div_ceil(7).max(1);
    for k in 0..n {
        out.push(v as u8 & 0x7f | if k + 1 == n { 0 } else { 0x80 });
        v >>= 7;
    }
}

/// A variable's value: its bits left-aligned, the first (most significant) in the top bit of
/// word 0; a bits signal uses word 0, a text signal all four.
type Value = [u64; 4];
const _: () = assert!(FST_TEXT_BITS == 256, "a text signal's value is a Value");

/// One variable of the file (a handle).
#[derive(Clone, Copy)]
struct Var {
    width: u32,
    /// It has a value (else it is unknown, `x`).
    known: bool,
}

pub(crate) struct FstSink {
    out: BufWriter<File>,
    clk: Option<usize>,
    /// The handle (index into `vars`) of each slot.
    slots: Vec<usize>,
    vars: Vec<Var>,
    /// Every variable's current value.
    values: Vec<Value>,
    /// Each variable's changes in this section, encoded, and the time-table index of its last.
    changes: Vec<Vec<u8>>,
    last: Vec<u32>,
    /// Bytes in `changes`, the section's time table (varint deltas) and its last index.
    buffered: usize,
    time_table: Vec<u8>,
    index: u32,
    /// The section's values at its start (`x` for the unknown), as `'0'`/`'1'`/`'x'` bytes.
    frame: Vec<u8>,
    start_time: u64,
    end_time: u64,
    first_section: bool,
    sections: u64,
    flush_at: usize,
    scopes: u64,
    closed: bool,
}

impl FstSink {
    pub(crate) fn create(path: &Path, items: &[DeclItem], nslots: usize) -> io::Result<FstSink> {
        Self::create_with_flush(path, items, nslots, FLUSH_BYTES)
    }

    /// The file at `path` with the hierarchy `items` declared (a `clk` if they hold one).
    pub(crate) fn create_with_flush(
        path: &Path,
        items: &[DeclItem],
        nslots: usize,
        flush_at: usize,
    ) -> io::Result<FstSink> {
        let mut hier = Vec::new();
        let (mut vars, mut clk, mut scopes) = (Vec::new(), None, 0u64);
        let mut slots = vec![usize::MAX; nslots];
        for item in items {
            let (name, width) = match item {
                DeclItem::Scope(name) => {
                    scopes += 1;
                    hier.extend([HIER_SCOPE, SCOPE_MODULE]);
                    hier.extend(name.as_bytes());
                    hier.extend([0, 0]);
                    continue;
                }
                DeclItem::Up => {
                    hier.push(HIER_UPSCOPE);
                    continue;
                }
                DeclItem::Clk => {
                    clk = Some(vars.len());
                    ("clk", 1)
                }
                DeclItem::Var {
                    slot,
                    name,
                    width,
                    is_text,
                } => {
                    *slots
                        .get_mut(*slot)
                        .ok_or_else(|| io::Error::other("unknown signal slot"))? = vars.len();
                    (name.as_str(), if *is_text { FST_TEXT_BITS } else { *width })
                }
            };
            if !(1..=64).contains(&width) && width != FST_TEXT_BITS {
                return Err(io::Error::other(format!("FST signal width {width}")));
            }
            hier.extend([VAR_WIRE, DIR_IMPLICIT]);
            hier.extend(name.as_bytes());
            hier.push(0);
            varint(&mut hier, u64::from(width));
            varint(&mut hier, 0);
            vars.push(Var {
                width,
                known: false,
            });
        }
        if slots.contains(&usize::MAX) {
            return Err(io::Error::other("declaration misses a signal"));
        }
        let mut out = BufWriter::with_capacity(BUF_BYTES, File::create(path)?);
        out.write_all(&header(0, scopes, vars.len() as u64, 0))?;
        let mut block = vec![BLOCK_HIERARCHY_LZ4];
        let compressed = lz4_flex::compress(&hier);
        block.extend((16 + compressed.len() as u64).to_be_bytes());
        block.extend((hier.len() as u64).to_be_bytes());
        block.extend(compressed);
        let mut geometry = Vec::new();
        for v in &vars {
            varint(&mut geometry, u64::from(v.width));
        }
        block.push(BLOCK_GEOMETRY);
        block.extend((24 + geometry.len() as u64).to_be_bytes());
        block.extend((geometry.len() as u64).to_be_bytes());
        block.extend((vars.len() as u64).to_be_bytes());
        block.extend(geometry);
        out.write_all(&block)?;
        let n = vars.len();
        Ok(FstSink {
            out,
            clk,
            slots,
            vars,
            values: vec![[0; 4]; n],
            changes: vec![Vec::new(); n],
            last: vec![0; n],
            buffered: 0,
            time_table: Vec::new(),
            index: 0,
            frame: Vec::new(),
            start_time: 0,
            end_time: 0,
            first_section: true,
            sections: 0,
            flush_at,
            scopes,
            closed: false,
        })
    }

    /// The current values as frame bytes.
    fn frame_now(&self) -> Vec<u8> {
        let mut f = Vec::with_capacity(self.vars.iter().map(|v| v.width as usize).sum());
        for (v, words) in self.vars.iter().zip(&self.values) {
            f.extend((0..v.width as usize).map(|i| {
                if v.known {
                    b'0' + (words[i / 64] >> (63 - i % 64) & 1) as u8
                } else {
                    b'x'
                }
            }));
        }
        f
    }

    /// Variable `h` takes `value`: its change is encoded as the format stores it, a
    /// time-table index delta, then the bit (one-bit signals) or the bits packed 8 to a byte.
    #[inline]
    fn change(&mut self, h: usize, value: Value) {
        let (Some(v), Some(cur)) = (self.vars.get_mut(h), self.values.get_mut(h)) else {
            return;
        };
        if v.known && *cur == value {
            return;
        }
        v.known = true;
        *cur = value;
        if self.time_table.is_empty() && self.first_section {
            return; // time 0 of the file: the first frame
        }
        let delta = u64::from(self.index - self.last[h]);
        self.last[h] = self.index;
        let list = &mut self.changes[h];
        let len0 = list.len();
        if v.width == 1 {
            varint(list, delta << 2 | (value[0] >> 63) << 1);
        } else if v.width <= 64 {
            varint(list, delta << 1);
            // Eight bytes copied, then cut to the value's (a fixed-size store, no memcpy).
            let end = list.len() + v.width.div_ceil(8) as usize;
            list.extend_from_slice(&value[0].to_be_bytes());
            list.truncate(end);
        } else {
            varint(list, delta << 1);
            value
                .iter()
                .for_each(|w| list.extend_from_slice(&w.to_be_bytes()));
        }
        self.buffered += list.len() - len0;
    }

    /// Variable `h` (at most 64 bits wide) takes the bits value `value`.
    #[inline]
    fn set_bits(&mut self, h: usize, value: u64) {
        let w = self.vars.get(h).map_or(64, |v| v.width.min(64));
        self.change(h, [value << (64 - w), 0, 0, 0]);
    }

    /// The variable of slot `slot`.
    #[inline]
    fn handle(&self, slot: usize) -> io::Result<usize> {
        self.slots
            .get(slot)
            .copied()
            .ok_or_else(|| io::Error::other("unknown signal slot"))
    }

    /// Write the section: its frame, its change lists, their offsets and its time table.
    fn write_section(&mut self) -> io::Result<()> {
        let mut b = vec![BLOCK_VC_DYN_ALIAS2];
        b.extend([0; 8]); // the section's length, set below
        b.extend(self.start_time.to_be_bytes());
        b.extend(self.end_time.to_be_bytes());
        let memory: usize = self.changes.iter().map(Vec::len).sum();
        b.extend((memory as u64).to_be_bytes());
        let frame = if self.time_table.is_empty() && self.first_section {
            self.frame_now()
        } else {
            std::mem::take(&mut self.frame)
        };
        varint(&mut b, frame.len() as u64);
        varint(&mut b, frame.len() as u64);
        varint(&mut b, self.vars.len() as u64);
        b.extend(&frame);
        varint(&mut b, self.vars.len() as u64);
        b.push(PACK_LZ4);
        let (mut offsets, mut zeros, mut prev) = (Vec::new(), 0u64, b.len() - 1);
        for list in &mut self.changes {
            if list.is_empty() {
                zeros += 1;
                continue;
            }
            if zeros > 0 {
                varint(&mut offsets, zeros << 1);
                zeros = 0;
            }
            let start = b.len();
            let compressed = (list.len() >= MIN_COMPRESS)
                .then(|| lz4_flex::compress(list))
                .filter(|c| c.len() < list.len());
            match compressed {
                Some(c) => {
                    varint(&mut b, list.len() as u64);
                    b.extend(c);
                }
                None => {
                    varint(&mut b, 0);
                    b.extend(&*list);
                }
            }
            varint_signed(&mut offsets, ((start - prev) as i64) << 1 | 1);
            prev = start;
            list.clear();
        }
        if zeros > 0 {
            varint(&mut offsets, zeros << 1);
        }
        b.extend(&offsets);
        b.extend((offsets.len() as u64).to_be_bytes());
        let table = &self.time_table;
        let zipped = miniz_oxide::deflate::compress_to_vec_zlib(table, 3);
        let stored = if zipped.len() < table.len() {
            &zipped
        } else {
            table
        };
        b.extend(stored);
        b.extend((table.len() as u64).to_be_bytes());
        b.extend((stored.len() as u64).to_be_bytes());
        let entries = if table.is_empty() { 0 } else { self.index + 1 };
        b.extend(u64::from(entries).to_be_bytes());
        let len = (b.len() - 1) as u64;
        b[1..9].copy_from_slice(&len.to_be_bytes());
        self.out.write_all(&b)?;
        self.sections += 1;
        self.start_time = self.end_time;
        self.time_table.clear();
        self.index = 0;
        self.last.iter_mut().for_each(|l| *l = 0);
        self.buffered = 0;
        self.first_section = false;
        self.patch_header()
    }

    /// Make the header true for the sections in the file so far: its end time and section
    /// count, which the header otherwise gets only when the file is finished. The section is
    /// written out first (seeking flushes the buffer), then the header over the first block,
    /// so a process killed at any moment leaves a file whose header describes whole sections
    /// (at most one behind them). One seek and a 330-byte write per section (32 MiB of
    /// changes): nothing beside the section's own cost.
    fn patch_header(&mut self) -> io::Result<()> {
        let h = header(
            self.end_time,
            self.scopes,
            self.vars.len() as u64,
            self.sections,
        );
        self.out.seek(SeekFrom::Start(0))?;
        self.out.write_all(&h)?;
        self.out.seek(SeekFrom::End(0))?;
        Ok(())
    }
}

/// The header block: the end time and the section count are those of the sections written
/// ([`FstSink::patch_header`] sets them as each is written).
fn header(end_time: u64, scopes: u64, vars: u64, sections: u64) -> Vec<u8> {
    let mut h = vec![BLOCK_HEADER];
    for v in [HEADER_LENGTH, 0, end_time] {
        h.extend(v.to_be_bytes());
    }
    h.extend(std::f64::consts::E.to_le_bytes());
    for v in [0, scopes, vars, vars, sections] {
        h.extend(v.to_be_bytes());
    }
    h.push(TIMESCALE as u8);
    let version = concat!("pp5-sim ", env!("CARGO_PKG_VERSION")).as_bytes();
    h.extend(version);
    h.resize(
        h.len() + HEADER_VERSION_LEN - version.len() + HEADER_DATE_LEN,
        0,
    );
    h.push(0); // file type: Verilog
               // Time zero, which GTKWave adds to every timestamp: ours are absolute already.
    h.extend(0u64.to_be_bytes());
    h
}

impl Sink for FstSink {
    /// Moves to time `t` (not earlier than the last): first writes the section when it is
    /// full.
    fn time(&mut self, t: u64) -> io::Result<()> {
        if self.closed {
            return Err(io::Error::other("FST file already closed"));
        }
        if t < self.end_time {
            return Err(io::Error::other(format!(
                "FST time {t} before {}",
                self.end_time
            )));
        }
        if t == self.end_time {
            return Ok(());
        }
        if !self.time_table.is_empty() && self.buffered >= self.flush_at {
            self.write_section()?;
        }
        if self.time_table.is_empty() {
            // The section starts: its frame holds the values as they are.
            self.frame = self.frame_now();
            varint(&mut self.time_table, t);
        } else {
            self.index += 1;
            varint(&mut self.time_table, t - self.end_time);
        }
        self.end_time = t;
        Ok(())
    }

    fn begin(&mut self, time_ps: u64, _first: bool) -> io::Result<()> {
        self.time(time_ps)?;
        if let Some(clk) = self.clk {
            self.set_bits(clk, 1);
        }
        Ok(())
    }

    #[inline]
    fn bits(&mut self, slot: usize, value: u64) -> io::Result<()> {
        let h = self.handle(slot)?;
        self.set_bits(h, value);
        Ok(())
    }

    fn text(&mut self, slot: usize, value: &str) -> io::Result<()> {
        let h = self.handle(slot)?;
        let mut bytes = [0u8; FST_TEXT_CHARS as usize];
        let n = value.len().min(bytes.len());
        bytes[..n].copy_from_slice(&value.as_bytes()[..n]);
        let mut words = [0u64; 4];
        for (w, b) in words.iter_mut().zip(bytes.chunks_exact(8)) {
            *w = b.iter().fold(0, |w, &b| w << 8 | u64::from(b));
        }
        self.change(h, words);
        Ok(())
    }

    fn end(&mut self, fall_ps: u64, _first: bool) -> io::Result<()> {
        self.time(fall_ps)?;
        if let Some(clk) = self.clk {
            self.set_bits(clk, 0);
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        // The last section, and the header patched for it.
        self.write_section()?;
        self.closed = true;
        self.out.flush()
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// The scope `top` with `clk` and the variables `(name, width, is_text)` in slots 0, 1, ...
    fn top(vars: &[(&str, u32, bool)]) -> Vec<DeclItem> {
        let vars = vars
            .iter()
            .enumerate()
            .map(|(slot, &(name, width, is_text))| {
                let name = name.into();
                DeclItem::Var {
                    slot,
                    name,
                    width,
                    is_text,
                }
            });
        let mut items = vec![DeclItem::Scope("top".into()), DeclItem::Clk];
        items.extend(vars);
        items.push(DeclItem::Up);
        items
    }

    /// Value-change blocks flushed in the middle of a run read back as one continuous trace.
    #[test]
    fn flushed_blocks_read_back() {
        let dir = std::env::temp_dir().join(format!("pp5-fst-flush-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("flush.fst");
        let items = top(&[("v", 8, false), ("s", 0, true)]);
        // Flush after every few bytes: many blocks.
        let mut sink = FstSink::create_with_flush(&path, &items, 2, 16).unwrap();
        for cycle in 0..50u64 {
            let t = cycle * 25_000;
            sink.begin(t, cycle == 0).unwrap();
            sink.bits(0, cycle * 7).unwrap();
            if cycle % 5 == 0 {
                sink.text(1, if cycle % 10 == 0 { "EVEN" } else { "ODD" })
                    .unwrap();
            }
            sink.end(t + 12_500, cycle == 0).unwrap();
        }
        sink.finish().unwrap();

        let mut w = wellen::simple::read(&path).unwrap();
        let h = w.hierarchy();
        let v = h.lookup_var(&["top"], "v").unwrap();
        let clk = h.lookup_var(&["top"], "clk").unwrap();
        let (v, clk) = (h[v].signal_ref(), h[clk].signal_ref());
        w.load_signals(&[v, clk]);
        let tt = w.time_table().to_vec();
        let vs: Vec<(u64, String)> = w
            .get_signal(v)
            .unwrap()
            .iter_changes()
            .map(|(i, x)| (tt[i as usize], x.to_bit_string().unwrap()))
            .collect();
        let expected: Vec<(u64, String)> = (0..50u64)
            .map(|c| (c * 25_000, format!("{:08b}", (c * 7) & 0xFF)))
            .collect();
        assert_eq!(vs, expected);
        let clk_changes = w.get_signal(clk).unwrap().iter_changes().count();
        assert_eq!(clk_changes, 100);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The header's end time and section count of a file.
    fn header_counts(bytes: &[u8]) -> (u64, u64) {
        let word = |at: usize| u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
        // Block type, length, start time, end time, ..., section count at byte 65.
        (word(17), word(65))
    }

    /// The value-change sections of a file: (start, end) of each, walking its blocks.
    fn sections(bytes: &[u8]) -> Vec<(u64, u64)> {
        let word = |at: usize| u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
        let (mut at, mut out) = (0, Vec::new());
        while at < bytes.len() {
            if bytes[at] == BLOCK_VC_DYN_ALIAS2 {
                out.push((word(at + 9), word(at + 17)));
            }
            at += 1 + word(at + 1) as usize;
        }
        assert_eq!(at, bytes.len(), "the file ends with a whole block");
        out
    }

    /// A writer that never finishes (a process killed outright: what its buffer held is
    /// lost) leaves a file whose header gives the end time and count of the sections in it,
    /// and which reads back up to the last one's end.
    #[test]
    fn a_file_never_finished_has_a_true_header() {
        let dir = std::env::temp_dir().join(format!("pp5-fst-killed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("killed.fst");
        let items = top(&[("v", 16, false)]);
        let mut sink = FstSink::create_with_flush(&path, &items, 1, 64).unwrap();
        for cycle in 0..200u64 {
            let t = cycle * 25_000;
            sink.begin(t, cycle == 0).unwrap();
            sink.bits(0, cycle * 3).unwrap();
            sink.end(t + 12_500, cycle == 0).unwrap();
        }
        // Killed: nothing more is written, not even what the buffer holds.
        std::mem::forget(sink);

        let bytes = std::fs::read(&path).unwrap();
        let secs = sections(&bytes);
        assert!(secs.len() > 3, "{secs:?}");
        let (end, count) = header_counts(&bytes);
        assert_eq!(count, secs.len() as u64);
        assert_eq!(end, secs.last().unwrap().1);
        assert!(end > 0 && end < 200 * 25_000, "{end}");

        let mut w = wellen::simple::read(&path).unwrap();
        let h = w.hierarchy();
        let v = h[h.lookup_var(&["top"], "v").unwrap()].signal_ref();
        w.load_signals(&[v]);
        let tt = w.time_table().to_vec();
        assert_eq!(tt.last(), Some(&end));
        let vs: Vec<(u64, String)> = w
            .get_signal(v)
            .unwrap()
            .iter_changes()
            .map(|(i, x)| (tt[i as usize], x.to_bit_string().unwrap()))
            .collect();
        let expected: Vec<(u64, String)> = (0..200u64)
            .map(|c| (c * 25_000, format!("{:016b}", c * 3)))
            .take_while(|(t, _)| *t <= end)
            .collect();
        assert_eq!(vs, expected);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
