//! The binary Ring-message file format.
//!
//! ```text
//! "PP5R"                       magic, 4 bytes
//! u32 version                  1, 2 or 3
//! per record, until the end of the file:
//!   u32 kind                   0 = message to the IGC port, 1 = to the BS port;
//!                              (version 2 and 3:) 2 = Ring reset, 3 = TxReady of the IGC
//!                              port, 4 = TxReady of the BS port;
//!                              (version 3:) a message the board sent: 5 = STATUS from the
//!                              IGC port, 6 = ERROR from the IGC port, 7 = STATUS from the
//!                              BS port, 8 = DATA from the BS port
//!   u64 at                     (version 2 and 3) 40 MHz cycle, or u64::MAX for "none"
//!   kinds 0, 1, 5-8: u32 n     words in the message, destination included (1..=2^24)
//!                n × u32       destination, then the body
//!   kind 2:      u32 0
//!   kinds 3, 4:  u32 ready     0 or 1
//! ```
//!
//! All integers little endian. The oldest version that holds a stream is written: version 1
//! (messages only, no times) when it has no times and no Ring events, version 3 only when it
//! holds messages the board sent, so files stay readable by older readers. `pp5 run
//! --tx-out` writes the messages the board sent, `at` = the cycle each one's first word went
//! out. The format keeps words only: source lines and command sites are not stored (they
//! read back as 0 / empty). The BS command encoding is in [`super::bs`].

use super::{Message, Port, RingEvent, RingEventKind, SentKind, Stream, StreamError};
use std::io::{self, Read, Write};

/// File magic.
pub const MAGIC: [u8; 4] = *b"PP5R";
/// Newest format version written and accepted.
pub const VERSION: u32 = 3;

/// The record kind of a message: to a port (0, 1) or sent by one (5-8).
fn message_kind(m: &Message) -> u32 {
    match (m.port, m.sent) {
        (Port::Igc, None) => 0,
        (Port::Bs, None) => 1,
        (Port::Igc, Some(SentKind::Status)) => 5,
        (Port::Igc, Some(SentKind::Error)) => 6,
        (Port::Bs, Some(SentKind::Status)) => 7,
        (Port::Bs, Some(SentKind::Data)) => 8,
        // The BS port sends no error messages and the IGC port no data: the nearest
        // record keeps the words (the kind then reads back as the port's other one).
        (Port::Igc, Some(SentKind::Data)) => 5,
        (Port::Bs, Some(SentKind::Error)) => 7,
    }
}

/// The port and direction of a message record kind.
fn kind_message(kind: u32) -> Option<(Port, Option<SentKind>)> {
    Some(match kind {
        0 => (Port::Igc, None),
        1 => (Port::Bs, None),
        5 => (Port::Igc, Some(SentKind::Status)),
        6 => (Port::Igc, Some(SentKind::Error)),
        7 => (Port::Bs, Some(SentKind::Status)),
        8 => (Port::Bs, Some(SentKind::Data)),
        _ => return None,
    })
}
/// "No time" in a version-2 `at` field.
const NO_TIME: u64 = u64::MAX;
/// Largest message length (words, destination included) accepted when reading: far above
/// any real message (a full sector in one BS_RECEIVE is 16,385 words) but bounded, so a
/// corrupt length cannot ask for gigabytes.
pub const MAX_READ_WORDS: u32 = 1 << 24;

/// File name used in errors from [`read`] (callers may replace [`StreamError::file`]).
const NAME: &str = "<binary>";

/// Whether `bytes` start with the binary format's magic.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Write `stream` in the binary format (version 1 when it has no times and no Ring events).
pub fn write(stream: &Stream, mut w: impl Write) -> io::Result<()> {
    let v3 = stream.messages.iter().any(|m| m.sent.is_some());
    let v2 = v3 || !stream.events.is_empty() || stream.messages.iter().any(|m| m.at.is_some());
    let version: u32 = if v3 {
        3
    } else if v2 {
        2
    } else {
        1
    };
    w.write_all(&MAGIC)?;
    w.write_all(&version.to_le_bytes())?;
    let event = |e: &RingEvent, w: &mut dyn Write| -> io::Result<()> {
        let (kind, ready) = match e.kind {
            RingEventKind::Reset => (2u32, false),
            RingEventKind::TxReady {
                port: Port::Igc,
                ready,
            } => (3, ready),
            RingEventKind::TxReady {
                port: Port::Bs,
                ready,
            } => (4, ready),
        };
        w.write_all(&kind.to_le_bytes())?;
        w.write_all(&e.at.unwrap_or(NO_TIME).to_le_bytes())?;
        w.write_all(&(ready as u32).to_le_bytes())
    };
    for (k, m) in stream.messages.iter().enumerate() {
        for e in stream.events.iter().filter(|e| e.before == k) {
            event(e, &mut w)?;
        }
        write_message(m, v2, &mut w)?;
    }
    for e in stream
        .events
        .iter()
        .filter(|e| e.before >= stream.messages.len())
    {
        event(e, &mut w)?;
    }
    w.flush()
}

/// One message's record (with its arrival time when `v2`: formats 2 and 3).
fn write_message(m: &Message, v2: bool, w: &mut impl Write) -> io::Result<()> {
    let port = message_kind(m);
    let n = u32::try_from(m.len_words()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "message too long for the format",
        )
    })?;
    let mut buf = Vec::with_capacity(8 + 4 * m.len_words());
    buf.extend_from_slice(&port.to_le_bytes());
    if v2 {
        buf.extend_from_slice(&m.at.unwrap_or(NO_TIME).to_le_bytes());
    }
    buf.extend_from_slice(&n.to_le_bytes());
    buf.extend_from_slice(&m.dest.to_le_bytes());
    for word in &m.body {
        buf.extend_from_slice(&word.to_le_bytes());
    }
    w.write_all(&buf)
}

/// The messages a board sent, written as they are sent (`pp5 run --tx-out`): the file
/// [`write`] makes of [`super::sent_stream`] of them all, without keeping them.
pub struct SentWriter<W: Write> {
    w: W,
    /// Messages written.
    pub count: u64,
}

impl<W: Write> SentWriter<W> {
    /// Nothing written yet.
    pub fn new(w: W) -> Self {
        SentWriter { w, count: 0 }
    }

    /// Write one message the board sent.
    pub fn push(&mut self, m: &pp5_rtl::renderer::OutMessage) -> io::Result<()> {
        if self.count == 0 {
            self.w.write_all(&MAGIC)?;
            self.w.write_all(&3u32.to_le_bytes())?;
        }
        self.count += 1;
        write_message(&super::sent_message(m), true, &mut self.w)
    }

    /// The end: a file of no message is a format-1 header alone, as [`write`] makes it.
    pub fn finish(mut self) -> io::Result<W> {
        if self.count == 0 {
            self.w.write_all(&MAGIC)?;
            self.w.write_all(&1u32.to_le_bytes())?;
        }
        self.w.flush()?;
        Ok(self.w)
    }
}

/// Read bytes until `buf` is full or the input ends; returns how many were read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A format error (no line numbers in a binary file).
fn err(msg: String) -> StreamError {
    StreamError::new(NAME, 0, msg)
}

/// A read error of the input.
fn io_err(e: io::Error) -> StreamError {
    StreamError::new(NAME, 0, format!("read error: {e}"))
}

/// Read a stream in the binary format. Rejects bad magic, bad version, bad port, truncated
/// data and lengths of 0 or above [`MAX_READ_WORDS`] with an error (memory grows only with
/// the data actually present).
pub fn read(r: impl Read) -> Result<Stream, StreamError> {
    let mut r = r;
    let version = read_file_header(&mut r)?;
    let v2 = version >= 2;
    let mut offset: u64 = 8;

    let mut messages = Vec::new();
    let mut events = Vec::new();
    loop {
        let k = messages.len();
        // kind, [at], then n or ready.
        let hdr_len = if v2 { 16 } else { 8 };
        let mut hdr = [0u8; 16];
        let got = fill(&mut r, &mut hdr[..4]).map_err(io_err)?;
        if got == 0 {
            break;
        }
        let kind = u32::from_le_bytes([hdr[0], hdr[1], hdr[2], hdr[3]]);
        let (port, sent) = record_kind(kind, version, k + events.len(), offset)?;
        let got = 4 + fill(&mut r, &mut hdr[4..hdr_len]).map_err(io_err)?;
        if got < hdr_len {
            return Err(err(format!(
                "truncated: record {} header at byte {offset} is cut off ({got} of {hdr_len} bytes)",
                k + events.len()
            )));
        }
        let (at, rest) = record_time(&hdr, v2, offset)?;
        let value = u32::from_le_bytes(rest);
        if (2..=4).contains(&kind) {
            events.push(RingEvent {
                kind: ring_event(kind, value, at, offset)?,
                before: k,
                at,
                line: 0,
            });
            offset += hdr_len as u64;
            continue;
        }
        let n = value;
        if n == 0 || n > MAX_READ_WORDS {
            return Err(err(format!(
                "message {k} at byte {offset}: bad length {n} words (must be 1..={MAX_READ_WORDS}, destination included)"
            )));
        }
        let words = read_words(&mut r, k, n, offset)?;
        offset += (hdr_len + n as usize * 4) as u64;
        let (dest, body) = match words.split_first() {
            Some((&d, rest)) => (d, rest.to_vec()),
            None => return Err(err(format!("message {k}: empty"))),
        };
        messages.push(Message {
            port,
            dest,
            body,
            line: 0,
            commands: Vec::new(),
            at,
            sent,
        });
    }
    Ok(Stream { messages, events })
}

/// The magic and the version word; returns the version.
fn read_file_header(r: &mut impl Read) -> Result<u32, StreamError> {
    let mut head = [0u8; 8];
    let got = fill(r, &mut head).map_err(io_err)?;
    if got < 4 || head[..4] != MAGIC {
        return Err(err(format!(
            "not a PP5R stream file (bad magic {:02x?}, expected \"PP5R\")",
            &head[..got.min(4)]
        )));
    }
    if got < 8 {
        return Err(err(
            "truncated: the file ends inside the version word".into()
        ));
    }
    let version = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    if !(1..=VERSION).contains(&version) {
        return Err(err(format!(
            "unsupported PP5R version {version} (this reader knows versions 1 to {VERSION})"
        )));
    }
    Ok(version)
}

/// The port and sender of record `record` (at byte `offset`) from its kind word: a message's
/// port, or the IGC port for a ring event (kinds 2 to 4, version 2 on).
fn record_kind(
    kind: u32,
    version: u32,
    record: usize,
    offset: u64,
) -> Result<(Port, Option<SentKind>), StreamError> {
    let v2 = version >= 2;
    match kind_message(kind) {
        Some((port, sent)) if sent.is_none() || version >= 3 => Ok((port, sent)),
        _ if (2..=4).contains(&kind) && v2 => Ok((Port::Igc, None)),
        _ => Err(err(format!(
            "record {record} at byte {offset}: bad port/kind {kind} (0 = igc, 1 = bs{}{})",
            if v2 { ", 2 = reset, 3/4 = TxReady" } else { "" },
            if version >= 3 {
                ", 5-8 = sent by the board"
            } else {
                ""
            }
        ))),
    }
}

/// A record header's time (version 2 on) and its last word (the length or the value).
fn record_time(
    hdr: &[u8; 16],
    v2: bool,
    offset: u64,
) -> Result<(Option<u64>, [u8; 4]), StreamError> {
    if v2 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&hdr[4..12]);
        let a = u64::from_le_bytes(a);
        if a != NO_TIME && a > super::MAX_AT {
            return Err(err(format!(
                "record at byte {offset}: time {a} is beyond the latest a stream may give \
                 ({} cycles)",
                super::MAX_AT
            )));
        }
        Ok((
            (a != NO_TIME).then_some(a),
            [hdr[12], hdr[13], hdr[14], hdr[15]],
        ))
    } else {
        Ok((None, [hdr[4], hdr[5], hdr[6], hdr[7]]))
    }
}

/// The ring event of a record of kind 2 (reset) or 3/4 (TxReady of the IGC/BS port).
fn ring_event(
    kind: u32,
    value: u32,
    at: Option<u64>,
    offset: u64,
) -> Result<RingEventKind, StreamError> {
    match kind {
        2 => {
            if value != 0 {
                return Err(err(format!(
                    "record at byte {offset}: a reset carries no value (got {value})"
                )));
            }
            Ok(RingEventKind::Reset)
        }
        _ => {
            if value > 1 || at.is_none() {
                return Err(err(format!(
                    "record at byte {offset}: a TxReady change needs ready 0/1 and a time"
                )));
            }
            Ok(RingEventKind::TxReady {
                port: if kind == 3 { Port::Igc } else { Port::Bs },
                ready: value == 1,
            })
        }
    }
}

/// The `n` words of message `k` whose header starts at byte `offset`. Reads in bounded
/// chunks so a lying length costs no more memory than the data present.
fn read_words(r: &mut impl Read, k: usize, n: u32, offset: u64) -> Result<Vec<u32>, StreamError> {
    let want = n as usize * 4;
    let mut words: Vec<u32> = Vec::with_capacity((n as usize).min(4096));
    let mut chunk = vec![0u8; want.min(1 << 16)];
    let mut done = 0usize;
    while done < want {
        let len = (want - done).min(chunk.len());
        let got = fill(r, &mut chunk[..len]).map_err(io_err)?;
        for b in chunk[..got - got % 4].chunks_exact(4) {
            words.push(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
        done += got;
        if got < len {
            return Err(err(format!(
                "truncated: message {k} at byte {offset} declares {n} words but the file ends after {done} byte(s) of them"
            )));
        }
    }
    Ok(words)
}

#[cfg(test)]
mod sent_writer {
    use super::*;
    use pp5_rtl::renderer::OutMessage;
    use pp5_rtl::ring::tx::MsgKind;
    use pp5_rtl::ring::PortId;

    /// Writing messages one by one makes the file `write` makes of them all: with messages
    /// (format 3) and with none (format 1).
    #[test]
    fn sent_one_by_one_is_the_same_file() {
        let msgs: Vec<OutMessage> = (0..5u32)
            .map(|k| OutMessage {
                port: if k % 2 == 0 { PortId::Igc } else { PortId::Bs },
                kind: if k % 2 == 0 {
                    MsgKind::Status
                } else {
                    MsgKind::Data
                },
                start: 100 * k as u64,
                end: 100 * k as u64 + 3,
                words: (0..3 + k).collect(),
            })
            .collect();
        for n in [0, 1, 5] {
            let mut whole = Vec::new();
            write(&super::super::sent_stream(&msgs[..n]), &mut whole).unwrap();
            let mut w = SentWriter::new(Vec::new());
            for m in &msgs[..n] {
                w.push(m).unwrap();
            }
            assert_eq!(w.finish().unwrap(), whole, "{n} messages");
        }
    }
}
