//! The binary Ring-message file format.
//!
//! ```text
//! "PP5R"                       magic, 4 bytes
//! u32 version                  = 1
//! per message, until the end of the file:
//!   u32 port                   0 = IGC, 1 = BS
//!   u32 n                      words in the message, destination included (1..=2^24)
//!   n × u32                    destination, then the body
//! ```
//!
//! All integers little endian. The format keeps words only: source lines and command sites
//! are not stored (they read back as 0 / empty). The BS command encoding is in
//! [`super::bs`].

use super::{Message, Port, Stream, StreamError};
use std::io::{self, Read, Write};

/// File magic.
pub const MAGIC: [u8; 4] = *b"PP5R";
/// Format version written and accepted.
pub const VERSION: u32 = 1;
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

/// Write `stream` in the binary format.
pub fn write(stream: &Stream, mut w: impl Write) -> io::Result<()> {
    w.write_all(&MAGIC)?;
    w.write_all(&VERSION.to_le_bytes())?;
    for m in &stream.messages {
        let port: u32 = match m.port {
            Port::Igc => 0,
            Port::Bs => 1,
        };
        let n = u32::try_from(m.len_words()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "message too long for the format",
            )
        })?;
        let mut buf = Vec::with_capacity(8 + 4 * m.len_words());
        buf.extend_from_slice(&port.to_le_bytes());
        buf.extend_from_slice(&n.to_le_bytes());
        buf.extend_from_slice(&m.dest.to_le_bytes());
        for word in &m.body {
            buf.extend_from_slice(&word.to_le_bytes());
        }
        w.write_all(&buf)?;
    }
    w.flush()
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

/// Read a stream in the binary format. Rejects bad magic, bad version, bad port, truncated
/// data and lengths of 0 or above [`MAX_READ_WORDS`] with an error (memory grows only with
/// the data actually present).
pub fn read(r: impl Read) -> Result<Stream, StreamError> {
    let mut r = r;
    let err = |msg: String| StreamError::new(NAME, 0, msg);
    let io_err = |e: io::Error| StreamError::new(NAME, 0, format!("read error: {e}"));
    let mut offset: u64 = 0;

    let mut head = [0u8; 8];
    let got = fill(&mut r, &mut head).map_err(io_err)?;
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
    if version != VERSION {
        return Err(err(format!(
            "unsupported PP5R version {version} (this reader knows version {VERSION})"
        )));
    }
    offset += 8;

    let mut messages = Vec::new();
    loop {
        let k = messages.len();
        let mut hdr = [0u8; 8];
        let got = fill(&mut r, &mut hdr).map_err(io_err)?;
        if got == 0 {
            break;
        }
        if got < 8 {
            return Err(err(format!(
                "truncated: message {k} header at byte {offset} is cut off ({got} of 8 bytes)"
            )));
        }
        let port = match u32::from_le_bytes([hdr[0], hdr[1], hdr[2], hdr[3]]) {
            0 => Port::Igc,
            1 => Port::Bs,
            p => {
                return Err(err(format!(
                    "message {k} at byte {offset}: bad port {p} (0 = igc, 1 = bs)"
                )))
            }
        };
        let n = u32::from_le_bytes([hdr[4], hdr[5], hdr[6], hdr[7]]);
        if n == 0 || n > MAX_READ_WORDS {
            return Err(err(format!(
                "message {k} at byte {offset}: bad length {n} words (must be 1..={MAX_READ_WORDS}, destination included)"
            )));
        }
        offset += 8;
        // Read in bounded chunks so a lying length costs no more memory than the data present.
        let want = n as usize * 4;
        let mut words: Vec<u32> = Vec::with_capacity((n as usize).min(4096));
        let mut chunk = vec![0u8; want.min(1 << 16)];
        let mut done = 0usize;
        while done < want {
            let len = (want - done).min(chunk.len());
            let got = fill(&mut r, &mut chunk[..len]).map_err(io_err)?;
            for b in chunk[..got - got % 4].chunks_exact(4) {
                words.push(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            }
            done += got;
            if got < len {
                return Err(err(format!(
                    "truncated: message {k} at byte {} declares {n} words but the file ends after {} byte(s) of them",
                    offset - 8,
                    done
                )));
            }
        }
        offset += want as u64;
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
        });
    }
    Ok(Stream { messages })
}
