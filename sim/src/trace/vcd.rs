//! VCD back end: the `vcd` crate over a 1 MiB `BufWriter<File>`.
//!
//! The header (scopes, variables, timescale) and the timestamps go through [`vcd::Writer`];
//! value changes are formatted into a reused line buffer with pre-rendered identifier codes
//! and written in one call, so a sample does not allocate.

use super::{DeclItem, Sink};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use vcd::{IdCode, SimulationCommand, TimescaleUnit, VarType};

const BUF_BYTES: usize = 1 << 20;

pub(crate) struct VcdSink {
    w: vcd::Writer<BufWriter<File>>,
    clk: Code,
    /// Identifier code of each slot, as written in the file (inline: no pointer to follow
    /// per change).
    ids: Vec<Code>,
    /// Per slot: a multi-bit vector (else a 1-bit wire or a string).
    vector: Vec<bool>,
    /// Per slot: a string.
    string: Vec<bool>,
    /// Inside the `$dumpvars` block of the first sample.
    in_dumpvars: bool,
    line: Vec<u8>,
    finished: bool,
    /// Time at which the trace starts (the run was already there when the writer was made):
    /// a first sample at this time is the `$dumpvars`; a later one is preceded by unknowns.
    start_ps: u64,
}

/// A VCD identifier code (at most [`CODE_MAX`] characters: 94^8 signals).
#[derive(Clone, Copy, Debug)]
struct Code {
    bytes: [u8; CODE_MAX],
    len: usize,
}

const CODE_MAX: usize = 8;

impl Code {
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len.min(CODE_MAX)]
    }
}

fn id_bytes(id: IdCode) -> io::Result<Code> {
    let s = id.to_string();
    let mut bytes = [0u8; CODE_MAX];
    bytes
        .get_mut(..s.len())
        .ok_or_else(|| io::Error::other("VCD identifier code too long"))?
        .copy_from_slice(s.as_bytes());
    Ok(Code {
        bytes,
        len: s.len(),
    })
}

impl VcdSink {
    pub(crate) fn create(
        path: &Path,
        items: &[DeclItem],
        nslots: usize,
        start_ps: u64,
    ) -> io::Result<VcdSink> {
        let file = File::create(path)?;
        let mut w = vcd::Writer::new(BufWriter::with_capacity(BUF_BYTES, file));
        w.version(concat!("pp5-sim ", env!("CARGO_PKG_VERSION")))?;
        w.comment("Pixel-Planes 5 Renderer model; clk = 40 MHz, one sample per cycle")?;
        w.timescale(1, TimescaleUnit::PS)?;
        let mut clk = None;
        let mut ids: Vec<Option<Code>> = vec![None; nslots];
        let mut vector = vec![false; nslots];
        let mut string = vec![false; nslots];
        for item in items {
            match item {
                DeclItem::Scope(name) => w.add_module(name)?,
                DeclItem::Up => w.upscope()?,
                DeclItem::Clk => clk = Some(id_bytes(w.add_wire(1, "clk")?)?),
                DeclItem::Var {
                    slot,
                    name,
                    width,
                    is_text,
                } => {
                    let id = if *is_text {
                        w.add_var(VarType::String, 1, name, None)?
                    } else {
                        w.add_wire(*width, name)?
                    };
                    if let Some(s) = ids.get_mut(*slot) {
                        *s = Some(id_bytes(id)?);
                        vector[*slot] = !*is_text && *width > 1;
                        string[*slot] = *is_text;
                    }
                }
            }
        }
        w.enddefinitions()?;
        let clk = clk.ok_or_else(|| io::Error::other("declaration without clk"))?;
        let ids = ids
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| io::Error::other("declaration misses a signal"))?;
        Ok(VcdSink {
            w,
            clk,
            ids,
            vector,
            string,
            in_dumpvars: false,
            line: Vec::with_capacity(2 * LINE_FLUSH),
            finished: false,
            start_ps,
        })
    }

    fn clk(&mut self, v: bool) -> io::Result<()> {
        let (start, room) = room(&mut self.line);
        room[0] = if v { b'1' } else { b'0' };
        room[1..1 + CODE_MAX].copy_from_slice(&self.clk.bytes);
        let end = 1 + self.clk.len.min(CODE_MAX);
        room[end] = b'\n';
        self.line.truncate(start + end + 1);
        Ok(())
    }

    /// Append `#<time>\n` to the sample buffer (written into room at its end, as in
    /// [`Sink::bits`]).
    fn push_time(&mut self, t: u64) {
        // `#`, at most 20 digits, `\n`.
        let n = t.checked_ilog10().map_or(1, |l| l as usize + 1);
        let (start, buf) = room(&mut self.line);
        buf[0] = b'#';
        buf[n + 1] = b'\n';
        let mut i = n + 1;
        let mut v = t;
        while v >= 100 {
            let d = (v % 100) as usize * 2;
            v /= 100;
            i -= 2;
            buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[d..d + 2]);
        }
        if v >= 10 {
            let d = v as usize * 2;
            buf[1..3].copy_from_slice(&DIGIT_PAIRS[d..d + 2]);
        } else {
            buf[1] = b'0' + v as u8;
        }
        self.line.truncate(start + n + 2);
    }

    /// Hand the buffered value changes to the file writer.
    fn flush_line(&mut self) -> io::Result<()> {
        let r = self.w.writer().write_all(&self.line);
        self.line.clear();
        r
    }
}

/// Room for one line of a change or timestamp at the end of `line`.
const ROOM: usize = 80;

/// Make [`ROOM`] bytes at the end of `line`: returns where they start and the room (the
/// caller truncates the line to what it wrote).
#[inline(always)]
fn room(line: &mut Vec<u8>) -> (usize, &mut [u8; ROOM]) {
    let start = line.len();
    line.resize(start + ROOM, 0);
    let room = line
        .last_chunk_mut::<ROOM>()
        .expect("the line was just extended by ROOM bytes");
    (start, room)
}

/// The eight binary digits of every byte value, MSB first.
static BYTE_DIGITS: [[u8; 8]; 256] = {
    let mut t = [[b'0'; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut k = 0;
        while k < 8 {
            if (v >> (7 - k)) & 1 == 1 {
                t[v][k] = b'1';
            }
            k += 1;
        }
        v += 1;
    }
    t
};

/// "00" "01" ... "99".
static DIGIT_PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut v = 0;
    while v < 100 {
        t[2 * v] = b'0' + (v / 10) as u8;
        t[2 * v + 1] = b'0' + (v % 10) as u8;
        v += 1;
    }
    t
};

/// Buffered bytes after which the samples' text is handed to the file writer. At least the
/// `BufWriter`'s capacity, so the block goes straight to the file instead of being copied
/// into the `BufWriter` first.
const LINE_FLUSH: usize = BUF_BYTES;

impl Sink for VcdSink {
    fn begin(&mut self, time_ps: u64, first: bool) -> io::Result<()> {
        if first {
            self.flush_line()?;
        }
        if first && time_ps > self.start_ps {
            // The window starts later: `$dumpvars` at #0 with every wire unknown (strings have
            // no unknown value and are left out), then the first sample as plain changes.
            self.w.timestamp(0)?;
            self.w.begin(SimulationCommand::Dumpvars)?;
            let mut line = std::mem::take(&mut self.line);
            line.clear();
            line.push(b'x');
            line.extend_from_slice(self.clk.as_slice());
            line.push(b'\n');
            for (slot, id) in self.ids.iter().enumerate() {
                if self.string[slot] {
                    continue;
                }
                line.extend_from_slice(if self.vector[slot] { b"bx " } else { b"x" });
                line.extend_from_slice(id.as_slice());
                line.push(b'\n');
            }
            let r = self.w.writer().write_all(&line);
            line.clear();
            self.line = line;
            r?;
            self.w.end()?;
            self.w.timestamp(time_ps)?;
        } else if first {
            self.w.timestamp(time_ps)?;
            self.w.begin(SimulationCommand::Dumpvars)?;
            self.in_dumpvars = true;
        } else {
            self.push_time(time_ps);
        }
        self.clk(true)
    }

    fn bits(&mut self, slot: usize, width: u32, value: u64) -> io::Result<()> {
        let id = *self
            .ids
            .get(slot)
            .ok_or_else(|| io::Error::other("unknown signal slot"))?;
        // `<bit><id>\n` or `b<digits> <id>\n` is written straight into room made at the end
        // of the line buffer (fixed-size stores only: a variable-length copy would call
        // `memmove` for every change, and a line built in a stack buffer first would be
        // reloaded right after its byte stores, which stalls), then cut to its length.
        let (start, room) = room(&mut self.line);
        let at = if width == 1 {
            room[0] = b'0' + (value & 1) as u8;
            1
        } else {
            // Leading zeros are left out (VCD zero-extends a shorter binary value): the value
            // is shifted so its first significant digit comes first.
            let n = 64 - value.max(1).leading_zeros() as usize;
            let v = value << (64 - n);
            room[0] = b'b';
            for (k, d) in room[1..65].chunks_exact_mut(8).enumerate() {
                d.copy_from_slice(&BYTE_DIGITS[((v >> (56 - 8 * k)) & 0xff) as usize]);
            }
            room[1 + n] = b' ';
            2 + n
        };
        // `at` ≤ 66 and codes are at most 8 bytes: the code and newline fit in the room.
        room[at..at + CODE_MAX].copy_from_slice(&id.bytes);
        let end = at + id.len.min(CODE_MAX);
        room[end] = b'\n';
        self.line.truncate(start + end + 1);
        Ok(())
    }

    fn text(&mut self, slot: usize, value: &str) -> io::Result<()> {
        let id = self
            .ids
            .get(slot)
            .ok_or_else(|| io::Error::other("unknown signal slot"))?;
        let line = &mut self.line;
        line.push(b's');
        if value.is_empty() {
            line.push(b'-');
        }
        // A VCD value is one token: whitespace and control characters become `_`.
        line.extend(
            value
                .bytes()
                .map(|b| if b <= b' ' || b == 0x7f { b'_' } else { b }),
        );
        line.push(b' ');
        line.extend_from_slice(id.as_slice());
        line.push(b'\n');
        Ok(())
    }

    fn end(&mut self, fall_ps: u64, _first: bool) -> io::Result<()> {
        if self.in_dumpvars {
            self.in_dumpvars = false;
            self.flush_line()?;
            self.w.end()?;
        }
        self.push_time(fall_ps);
        self.clk(false)?;
        if self.line.len() >= LINE_FLUSH {
            self.flush_line()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        self.flush_line()?;
        self.w.flush()
    }
}
