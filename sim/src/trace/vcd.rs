//! VCD back end: the `vcd` crate over a 1 MiB `BufWriter<File>`.
//!
//! The header (scopes, variables, timescale) and the `$dumpvars` commands go through
//! [`vcd::Writer`]; value changes and timestamps are formatted into a fixed-size line buffer
//! with pre-rendered identifier codes and written in blocks of about 1 MiB, so a sample does
//! not allocate. Timestamps are kept as decimal digits (packed BCD) and advanced by decimal
//! addition, instead of being formatted from binary each time.
//!
//! A *plain* VCD (`VcdSink<true>`: the system waveform of `pp5 render`) has no `$version`,
//! `$comment` or `clk`, and its vectors are written at their full width, leading zeros and
//! all; the board's (`VcdSink<false>`) is compiled without those choices.

use super::declare::DeclItem;
use super::Sink;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use vcd::{IdCode, SimulationCommand, TimescaleUnit, VarType};

const BUF_BYTES: usize = 1 << 20;

pub(crate) struct VcdSink<const PLAIN: bool> {
    w: vcd::Writer<BufWriter<File>>,
    clk: Code,
    /// A plain VCD's width of each slot.
    widths: Vec<u8>,
    /// Identifier code and kind of each slot, as written in the file (inline: no pointer to
    /// follow per change).
    ids: Vec<Code>,
    /// Inside the `$dumpvars` block of the first sample.
    in_dumpvars: bool,
    /// The line buffer: `line[..len]` holds the text not yet handed to the file writer. Its
    /// length is fixed ([`LINE_BYTES`]); a change is written into [`ROOM`] bytes at `len`,
    /// which are always there ([`VcdSink::room`] flushes past [`LINE_FLUSH`]).
    line: Box<[u8; LINE_BYTES]>,
    len: usize,
    /// The last timestamp and its decimal digits ([`Time`]).
    time: Time,
    /// A text change being formatted (reused).
    scratch: Vec<u8>,
    finished: bool,
    /// Time at which the trace starts (the run was already there when the writer was made):
    /// a first sample at this time is the `$dumpvars`; a later one is preceded by unknowns.
    start_ps: u64,
}

/// A VCD identifier code (at most [`CODE_MAX`] characters: 94^8 signals), and whether its
/// variable is a multi-bit vector (else a 1-bit wire or a string) or a string.
#[derive(Clone, Copy, Debug, Default)]
struct Code {
    bytes: [u8; CODE_MAX],
    len: u8,
    vector: bool,
    string: bool,
}

const CODE_MAX: usize = 8;

impl Code {
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len).min(CODE_MAX)]
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
        len: s.len() as u8,
        vector: false,
        string: false,
    })
}

/// The last written timestamp `t` and, while `t` < [`BCD_LIMIT`], its decimal digits as
/// packed BCD (one digit per nibble, the units in the low nibble). The next timestamp is
/// usually `t` plus the same step as last time (half a cycle), so it is found by one BCD
/// addition of the step's digits.
#[derive(Clone, Copy)]
struct Time {
    t: u64,
    bcd: u64,
    step: u64,
    step_bcd: u64,
}

/// Timestamps below this have their digits in [`Time::bcd`] (15 digits: the top nibble
/// stays free for [`bcd_add`]); later ones are formatted from binary.
const BCD_LIMIT: u64 = 1_000_000_000_000_000;

/// Packed BCD of `v` (< [`BCD_LIMIT`]).
fn to_bcd(mut v: u64) -> u64 {
    let mut bcd = 0;
    let mut shift = 0;
    while v != 0 && shift < 64 {
        bcd |= (v % 10) << shift;
        v /= 10;
        shift += 4;
    }
    bcd
}

/// Sum of two packed BCD numbers whose sum is below [`BCD_LIMIT`]: a binary addition with 6
/// added to every digit (so a digit's decimal carry is a binary one), then 6 taken back from
/// the digits that did not carry.
fn bcd_add(a: u64, b: u64) -> u64 {
    let t1 = a.wrapping_add(0x0666_6666_6666_6666);
    let t2 = t1.wrapping_add(b);
    // Carries into each bit; a digit that carried has a 1 at the next digit's lowest bit.
    let carries = t2 ^ t1 ^ b;
    let no_carry = !carries & 0x1111_1111_1111_1110;
    t2.wrapping_sub((no_carry >> 2) | (no_carry >> 3))
}

/// Eight BCD digits (the first in the high nibble) as ASCII, the first digit first in memory.
#[inline(always)]
fn bcd_ascii(x: u32) -> [u8; 8] {
    let x = u64::from(x);
    let x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    let x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    let x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    (x | 0x3030_3030_3030_3030).to_be_bytes()
}

impl<const PLAIN: bool> VcdSink<PLAIN> {
    /// The file at `path` with the hierarchy `items` declared, for a trace that starts at
    /// `start_ps`.
    pub(crate) fn create(
        path: &Path,
        items: &[DeclItem],
        nslots: usize,
        start_ps: u64,
    ) -> io::Result<Self> {
        let file = File::create(path)?;
        let mut w = vcd::Writer::new(BufWriter::with_capacity(BUF_BYTES, file));
        if !PLAIN {
            w.version(concat!("pp5-sim ", env!("CARGO_PKG_VERSION")))?;
            w.comment("Pixel-Planes 5 Renderer model; clk = 40 MHz, one sample per cycle")?;
        }
        w.timescale(1, TimescaleUnit::PS)?;
        let mut clk = None;
        let mut ids: Vec<Option<Code>> = vec![None; nslots];
        let mut widths = vec![0u8; if PLAIN { nslots } else { 0 }];
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
                    if let Some(w) = widths.get_mut(*slot) {
                        *w = *width as u8;
                    }
                    if let Some(s) = ids.get_mut(*slot) {
                        *s = Some(Code {
                            vector: !*is_text && *width > 1,
                            string: *is_text,
                            ..id_bytes(id)?
                        });
                    }
                }
            }
        }
        w.enddefinitions()?;
        // A plain VCD has no clock (and never writes one).
        let clk = match clk {
            None if PLAIN => Code::default(),
            c => c.ok_or_else(|| io::Error::other("declaration without clk"))?,
        };
        let ids = ids
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| io::Error::other("declaration misses a signal"))?;
        Ok(VcdSink {
            w,
            clk,
            widths,
            ids,
            in_dumpvars: false,
            line: vec![0; LINE_BYTES]
                .into_boxed_slice()
                .try_into()
                .map_err(|_| io::Error::other("VCD line buffer"))?,
            len: 0,
            time: Time {
                t: 0,
                bcd: 0,
                step: 0,
                step_bcd: 0,
            },
            scratch: Vec::new(),
            finished: false,
            start_ps,
        })
    }

    /// [`ROOM`] bytes at the end of the buffered text (flushing it first when it is past
    /// [`LINE_FLUSH`]), for a change or a timestamp; the caller then advances `len` by what
    /// it wrote (fixed-size stores only: a variable-length copy would call `memmove` for
    /// every change).
    #[inline(always)]
    fn room(&mut self) -> io::Result<&mut [u8; ROOM]> {
        let mut at = self.len;
        if at >= LINE_FLUSH {
            self.flush_line()?;
            at = 0;
        }
        // In bounds: `at` < LINE_FLUSH, and ROOM ≤ LINE_BYTES - LINE_FLUSH.
        self.line
            .get_mut(at..at + ROOM)
            .and_then(|r| r.first_chunk_mut::<ROOM>())
            .ok_or_else(|| io::Error::other("VCD line buffer overrun"))
    }

    /// Append `bytes` to the buffered text (any length).
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.len + bytes.len() > LINE_BYTES {
            self.flush_line()?;
            if bytes.len() > LINE_BYTES {
                return self.w.writer().write_all(bytes);
            }
        }
        let end = self.len + bytes.len();
        self.line
            .get_mut(self.len..end)
            .ok_or_else(|| io::Error::other("VCD line buffer overrun"))?
            .copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }

    #[inline(always)]
    fn clk(&mut self, v: bool) -> io::Result<()> {
        let clk = self.clk;
        let room = self.room()?;
        room[0] = if v { b'1' } else { b'0' };
        room[1..1 + CODE_MAX].copy_from_slice(&clk.bytes);
        let end = 1 + usize::from(clk.len).min(CODE_MAX);
        room[end] = b'\n';
        self.len += end + 1;
        Ok(())
    }

    /// Append `#<time>\n` to the buffered text.
    #[inline(always)]
    fn push_time(&mut self, t: u64) -> io::Result<()> {
        let time = &mut self.time;
        if t >= BCD_LIMIT {
            return self.push_time_binary(t);
        }
        let step = t.wrapping_sub(time.t);
        if step == time.step && t > time.t {
            time.bcd = bcd_add(time.bcd, time.step_bcd);
        } else {
            self.push_time_slow(t);
        }
        let time = &mut self.time;
        time.t = t;
        // The digits from the first significant one, at the top of the word.
        let n = ((67 - time.bcd.leading_zeros()) / 4).max(1) as usize;
        let v = time.bcd << (64 - 4 * n);
        let room = self.room()?;
        room[0] = b'#';
        room[1..9].copy_from_slice(&bcd_ascii((v >> 32) as u32));
        room[9..17].copy_from_slice(&bcd_ascii(v as u32));
        room[n + 1] = b'\n';
        self.len += n + 2;
        Ok(())
    }

    /// [`VcdSink::push_time`] for a step other than the last one: the digits from binary.
    #[cold]
    #[inline(never)]
    fn push_time_slow(&mut self, t: u64) {
        let time = &mut self.time;
        if t > time.t {
            time.step = t - time.t;
            time.step_bcd = to_bcd(time.step);
            time.bcd = bcd_add(time.bcd, time.step_bcd);
        } else {
            time.bcd = to_bcd(t);
        }
    }

    /// `#<time>\n` for a time past [`BCD_LIMIT`], formatted from binary.
    #[cold]
    #[inline(never)]
    fn push_time_binary(&mut self, t: u64) -> io::Result<()> {
        self.time = Time {
            t,
            bcd: 0,
            step: 0,
            step_bcd: 0,
        };
        let mut s = Vec::with_capacity(24);
        s.push(b'#');
        s.extend_from_slice(t.to_string().as_bytes());
        s.push(b'\n');
        self.put(&s)
    }

    /// Hand the buffered text to the file writer.
    fn flush_line(&mut self) -> io::Result<()> {
        let n = std::mem::take(&mut self.len);
        self.w.writer().write_all(self.line.get(..n).unwrap_or(&[]))
    }

    /// Keep the timestamp digits in step with a timestamp the `vcd` crate wrote.
    fn set_time(&mut self, t: u64) {
        self.time = Time {
            t,
            bcd: if t < BCD_LIMIT { to_bcd(t) } else { 0 },
            step: 0,
            step_bcd: 0,
        };
    }
}

/// Room for one line of a change or timestamp at the end of the buffered text: `b`, 64
/// digits, a space, a code of at most [`CODE_MAX`] bytes and a newline fit (and a code
/// length masked to 4 bits, so no bounds check is needed).
const ROOM: usize = 96;

/// Buffered bytes after which the text is handed to the file writer. At least the
/// `BufWriter`'s capacity, so the block goes straight to the file instead of being copied
/// into the `BufWriter` first.
const LINE_FLUSH: usize = BUF_BYTES;

/// Length of the line buffer: a change or timestamp written below [`LINE_FLUSH`] fits.
const LINE_BYTES: usize = LINE_FLUSH + 4096;

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

impl<const PLAIN: bool> Sink for VcdSink<PLAIN> {
    fn time(&mut self, time_ps: u64) -> io::Result<()> {
        self.push_time(time_ps)
    }

    fn begin(&mut self, time_ps: u64, first: bool) -> io::Result<()> {
        if first {
            self.flush_line()?;
        }
        if first && time_ps > self.start_ps {
            // The window starts later: `$dumpvars` at #0 with every wire unknown (strings have
            // no unknown value and are left out), then the first sample as plain changes.
            self.w.timestamp(0)?;
            self.w.begin(SimulationCommand::Dumpvars)?;
            let mut line = Vec::new();
            line.push(b'x');
            line.extend_from_slice(self.clk.as_slice());
            line.push(b'\n');
            for id in &self.ids {
                if id.string {
                    continue;
                }
                line.extend_from_slice(if id.vector { b"bx " } else { b"x" });
                line.extend_from_slice(id.as_slice());
                line.push(b'\n');
            }
            self.w.writer().write_all(&line)?;
            self.w.end()?;
            self.w.timestamp(time_ps)?;
            self.set_time(time_ps);
        } else if first {
            self.w.timestamp(time_ps)?;
            self.set_time(time_ps);
            self.w.begin(SimulationCommand::Dumpvars)?;
            self.in_dumpvars = true;
        } else {
            self.push_time(time_ps)?;
        }
        self.clk(true)
    }

    #[inline(always)]
    fn bits(&mut self, slot: usize, value: u64) -> io::Result<()> {
        let id = *self
            .ids
            .get(slot)
            .ok_or_else(|| io::Error::other("unknown signal slot"))?;
        let full = match PLAIN {
            true => usize::from(self.widths.get(slot).map_or(64, |&w| w.clamp(1, 64))),
            false => 0,
        };
        // `<bit><id>\n` or `b<digits> <id>\n` is written straight into room at the end of the
        // line buffer, then the length advances by what was written.
        let room = self.room()?;
        let at = if !id.vector {
            room[0] = b'0' + (value & 1) as u8;
            1
        } else {
            // Leading zeros are left out (VCD zero-extends a shorter binary value) but in a
            // plain VCD: the value is shifted so its first digit comes first, and only the
            // bytes that hold digits are written.
            let n = if PLAIN {
                full
            } else {
                64 - value.max(1).leading_zeros() as usize
            };
            let v = value << (64 - n);
            room[0] = b'b';
            for (k, d) in room[1..65]
                .chunks_exact_mut(8)
                .take(n.div_ceil(8))
                .enumerate()
            {
                d.copy_from_slice(&BYTE_DIGITS[((v >> (56 - 8 * k)) & 0xff) as usize]);
            }
            room[1 + n] = b' ';
            2 + n
        };
        // `at` ≤ 66 and codes are at most 8 bytes (`len & 15` < 16 for the bounds): the code
        // and newline fit in the room.
        room[at..at + CODE_MAX].copy_from_slice(&id.bytes);
        let end = at + usize::from(id.len & 15);
        room[end] = b'\n';
        self.len += end + 1;
        Ok(())
    }

    fn text(&mut self, slot: usize, value: &str) -> io::Result<()> {
        let id = *self
            .ids
            .get(slot)
            .ok_or_else(|| io::Error::other("unknown signal slot"))?;
        let mut line = std::mem::take(&mut self.scratch);
        line.clear();
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
        let r = self.put(&line);
        self.scratch = line;
        r
    }

    fn end(&mut self, fall_ps: u64, _first: bool) -> io::Result<()> {
        if self.in_dumpvars {
            self.in_dumpvars = false;
            self.flush_line()?;
            self.w.end()?;
        }
        self.push_time(fall_ps)?;
        self.clk(false)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn bcd_digits(bcd: u64) -> String {
        let n = ((67 - bcd.leading_zeros()) / 4).max(1) as usize;
        let v = bcd << (64 - 4 * n);
        let mut s = bcd_ascii((v >> 32) as u32).to_vec();
        s.extend_from_slice(&bcd_ascii(v as u32));
        String::from_utf8(s[..n].to_vec()).unwrap()
    }

    #[test]
    fn bcd_sums_are_decimal_sums() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges = [0, 1, 9, 10, 99, 12_500, 999_999_999_999_999, BCD_LIMIT / 2];
        for _ in 0..100_000 {
            let r = next();
            let a = match r % 4 {
                0 => edges[(r >> 8) as usize % edges.len()],
                1 => BCD_LIMIT - 1 - (r >> 20) % 100_000,
                _ => (r >> 4) % BCD_LIMIT,
            };
            let b = match r >> 60 {
                0..=7 => (r >> 30) % 100_000,
                _ => (next() >> 4) % BCD_LIMIT,
            };
            let Some(sum) = a.checked_add(b).filter(|&s| s < BCD_LIMIT) else {
                continue;
            };
            assert_eq!(bcd_add(to_bcd(a), to_bcd(b)), to_bcd(sum), "{a} + {b}");
            assert_eq!(bcd_digits(to_bcd(sum)), sum.to_string());
        }
        assert_eq!(bcd_digits(0), "0");
    }

    #[test]
    fn timestamps_are_their_decimal_digits() {
        let path = std::env::temp_dir().join(format!("pp5-vcd-time-{}.vcd", std::process::id()));
        let mut sink = VcdSink::<false>::create(&path, &[DeclItem::Clk], 0, 0).unwrap();
        let mut times = vec![0u64, 12_500, 25_000, 37_500, 50_000, 50_001, 50_002, 60_000];
        times.extend((0..3000).map(|k| 987_654_321 + 12_500 * k));
        times.extend([5, 99_999_999_999, 100_000_000_000, 100_000_000_007]);
        times.extend([
            BCD_LIMIT - 12_500,
            BCD_LIMIT - 1,
            BCD_LIMIT,
            BCD_LIMIT + 12_500,
        ]);
        times.extend([u64::MAX - 1, u64::MAX, 3, 3, 12_503, 25_003]);
        let mut want = String::new();
        for &t in &times {
            sink.push_time(t).unwrap();
            want.push_str(&format!("#{t}\n"));
        }
        assert_eq!(std::str::from_utf8(&sink.line[..sink.len]).unwrap(), want);
        let _ = std::fs::remove_file(&path);
    }
}
