//! Command streams for the Renderer's two Ring ports.
//!
//! A [`Stream`] is a list of Ring [`Message`]s, each addressed to the IGC port or the BS port
//! (seed 003 §III.4.1-1, §III.4.1-2). Three ways to make or keep one:
//!
//! - [`text`]: the human format, written with the seed's own macro names
//!   (`CLEAR 0 8`, `SCAIntoMEM_S1 16 8 42`, `BS_RECEIVE 3 0 2 fill=7`), plus its disassembler.
//! - [`binary`]: the Ring-message file format (`PP5R`, version 1, little endian).
//! - [`builder`]: a Rust API mirroring the `IGC_*` / `BS_*` macros of `igc_commands.h` and
//!   `bs_commands.h`; the text parser is built on it, so both behave identically.
//!
//! IGC commands are encoded with an [`OpcodeTable`] (the
//! table a microcode image declares). BS commands have a fixed encoding defined here (the seed
//! gives their sizes, not their bits): see [`bs`].

pub mod binary;
pub mod builder;
pub mod text;

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::asm::opcodes::OpcodeTable;

/// Largest Ring message accepted by either port, in 32-bit words, **destination word
/// included** (so the body is at most 1023 words).
///
/// Seed 003 §III.4.1-3 ("Sizing of Messages"): "the maximum message size will be 1024 words.
/// This includes the destination address, so the message body is limited to 1023 words."
/// It is half the depth of the 2K-word RxFIFO. The BS port may exceed it for streams of
/// `BS_RECEIVE` commands processed at full rate (same section); such messages are written
/// `message bs oversize` in the text format.
pub const MAX_MESSAGE_WORDS: usize = 1024;

/// Which Renderer port a message is addressed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Port {
    /// The IGC port: a stream of IGC commands; the destination word is ignored except its LSB
    /// (flushable message).
    Igc,
    /// The Backing Store port: BS commands; the destination word is the first opcode.
    Bs,
}

impl fmt::Display for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Port::Igc => "igc",
            Port::Bs => "bs",
        })
    }
}

/// Where one command of a message came from: for reports that map stream words back to
/// source lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandSite {
    /// Index into [`Message::body`] of the command's opcode word.
    ///
    /// Exception: in a BS message whose destination word is the first command's opcode (the
    /// seed's rule), that first command has `word = 0`, the index of its first argument word
    /// (or of the next command when it has none).
    pub word: usize,
    /// 1-based source line (0 if unknown).
    pub line: usize,
    /// The command in canonical text form, e.g. `MEMplusMEM 0 8 16 8 8`.
    pub text: String,
}

/// One Ring message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// The port it is addressed to.
    pub port: Port,
    /// The Ring destination word. For [`Port::Igc`] only bit 0 matters (1 = flushable); for
    /// [`Port::Bs`] it is the opcode of the first BS command.
    pub dest: u32,
    /// The words after the destination.
    pub body: Vec<u32>,
    /// 1-based source line where the message started (0 if unknown).
    pub line: usize,
    /// The commands assembled into this message, in order (empty when unknown, e.g. after
    /// reading a binary file).
    pub commands: Vec<CommandSite>,
}

impl Message {
    /// Size in words, destination included (what [`MAX_MESSAGE_WORDS`] limits).
    pub fn len_words(&self) -> usize {
        1 + self.body.len()
    }

    /// For IGC messages: whether the destination LSB marks the message flushable.
    pub fn flushable(&self) -> bool {
        self.port == Port::Igc && self.dest & 1 != 0
    }

    /// The destination followed by the body: the words as they travel on the Ring.
    pub fn words(&self) -> Vec<u32> {
        let mut v = Vec::with_capacity(self.len_words());
        v.push(self.dest);
        v.extend_from_slice(&self.body);
        v
    }

    /// Whether two messages carry the same words to the same port (ignoring `line` and
    /// `commands`).
    pub fn same_words(&self, other: &Message) -> bool {
        self.port == other.port && self.dest == other.dest && self.body == other.body
    }
}

/// A command stream: Ring messages in the order they are sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stream {
    /// The messages, in sending order.
    pub messages: Vec<Message>,
}

impl Stream {
    /// Total number of words, destination words included.
    pub fn total_words(&self) -> usize {
        self.messages.iter().map(Message::len_words).sum()
    }

    /// Whether two streams carry the same messages word for word (ignoring source lines and
    /// command sites).
    pub fn same_words(&self, other: &Stream) -> bool {
        self.messages.len() == other.messages.len()
            && self
                .messages
                .iter()
                .zip(&other.messages)
                .all(|(a, b)| a.same_words(b))
    }
}

/// A stream error with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamError {
    /// The file name (as given by the caller; `<binary>` for [`binary::read`]).
    pub file: String,
    /// 1-based line (0 when it has no line, e.g. in a binary file).
    pub line: usize,
    /// What is wrong, fit for a user.
    pub msg: String,
}

impl StreamError {
    /// Build an error.
    pub fn new(file: &str, line: usize, msg: impl Into<String>) -> Self {
        StreamError {
            file: file.to_string(),
            line,
            msg: msg.into(),
        }
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.msg)
    }
}

impl std::error::Error for StreamError {}

/// Load a stream from file contents, binary ([`binary::is_binary`]) or text.
pub fn load(bytes: &[u8], file: &str, table: &OpcodeTable) -> Result<Stream, StreamError> {
    if binary::is_binary(bytes) {
        binary::read(bytes).map_err(|mut e| {
            e.file = file.to_string();
            e
        })
    } else {
        let src = std::str::from_utf8(bytes).map_err(|e| {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            StreamError::new(
                file,
                line,
                format!("not UTF-8 text (and not a PP5R binary): {e}"),
            )
        })?;
        text::parse(src, file, table)
    }
}

/// The BS port command encoding (a model choice: seed 003 §III.4.1-2 gives the commands and
/// their sizes in words, not their bits).
///
/// ```text
/// first word of a command
///  31..29  28..22          21..15    14..8   7..4  3..0
///  0       no_scanlines-1  scanline  sector  0     opcode      (RECEIVE, TRANSMIT)
///  0 ...                                           opcode      (the others)
/// ```
///
/// | command       | opcode | words                                   |
/// |---------------|--------|-----------------------------------------|
/// | BS_NOOP       | 0      | 1                                       |
/// | BS_SENDSTATUS | 1      | 3: opcode, id, retaddr                  |
/// | BS_RECEIVE    | 2      | 1 + 128 × no_scanlines: opcode, data    |
/// | BS_TRANSMIT   | 3      | 2: opcode, retaddr                      |
/// | BS_PBS        | 4      | 1                                       |
/// | BS_VIGC       | 5      | 1                                       |
///
/// Opcodes 6..15, or any nonzero bit outside the fields a command uses, make a bogus command
/// (status bit 28 in the port model).
pub mod bs {
    /// Opcode field mask (bits 3:0).
    pub const OPCODE_MASK: u32 = 0xf;
    /// BS_NOOP opcode.
    pub const OP_NOOP: u32 = 0;
    /// BS_SENDSTATUS opcode.
    pub const OP_SENDSTATUS: u32 = 1;
    /// BS_RECEIVE opcode.
    pub const OP_RECEIVE: u32 = 2;
    /// BS_TRANSMIT opcode.
    pub const OP_TRANSMIT: u32 = 3;
    /// BS_PBS opcode.
    pub const OP_PBS: u32 = 4;
    /// BS_VIGC opcode.
    pub const OP_VIGC: u32 = 5;
    /// Shift of the sector field (bits 14:8, 0..=127).
    pub const SECTOR_SHIFT: u32 = 8;
    /// Shift of the scanline field (bits 21:15, 0..=127).
    pub const SCANLINE_SHIFT: u32 = 15;
    /// Shift of the no_scanlines-1 field (bits 28:22).
    pub const NSCAN_SHIFT: u32 = 22;
    /// Mask of the sector, scanline and no_scanlines-1 fields after shifting.
    pub const FIELD_MASK: u32 = 0x7f;
    /// Sectors of backing store (seed: "range 0 to 127").
    pub const SECTORS: u32 = 128;
    /// Scanlines per sector, and words per scanline segment.
    pub const SCANLINE_WORDS: usize = 128;
    /// Largest no_scanlines (an entire sector).
    pub const MAX_SCANLINES: u32 = 128;

    /// The names of the BS macros, in opcode order.
    pub const NAMES: [&str; 6] = [
        "BS_NOOP",
        "BS_SENDSTATUS",
        "BS_RECEIVE",
        "BS_TRANSMIT",
        "BS_PBS",
        "BS_VIGC",
    ];

    /// First word of BS_RECEIVE or BS_TRANSMIT. Arguments must be in range (see
    /// [`check_region`]).
    pub fn region_word(op: u32, sector: u32, scanline: u32, no_scanlines: u32) -> u32 {
        op | (sector & FIELD_MASK) << SECTOR_SHIFT
            | (scanline & FIELD_MASK) << SCANLINE_SHIFT
            | (no_scanlines.wrapping_sub(1) & FIELD_MASK) << NSCAN_SHIFT
    }

    /// Check sector (0..=127), scanline (0..=127) and no_scanlines (1..=128).
    pub fn check_region(
        name: &str,
        sector: u32,
        scanline: u32,
        no_scanlines: u32,
    ) -> Result<(), String> {
        if sector >= SECTORS {
            return Err(format!("{name}: sector {sector} is out of range 0..=127"));
        }
        if scanline >= SECTORS {
            return Err(format!(
                "{name}: scanline {scanline} is out of range 0..=127"
            ));
        }
        if no_scanlines == 0 || no_scanlines > MAX_SCANLINES {
            return Err(format!(
                "{name}: no_scanlines {no_scanlines} is out of range 1..=128"
            ));
        }
        Ok(())
    }

    /// A decoded BS command head: what the first word says.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Head {
        /// BS_NOOP.
        Noop,
        /// BS_SENDSTATUS (id and retaddr follow).
        SendStatus,
        /// BS_RECEIVE (128 × no_scanlines data words follow).
        Receive {
            /// Sector 0..=127.
            sector: u32,
            /// First scanline 0..=127.
            scanline: u32,
            /// 1..=128.
            no_scanlines: u32,
        },
        /// BS_TRANSMIT (retaddr follows).
        Transmit {
            /// Sector 0..=127.
            sector: u32,
            /// First scanline 0..=127.
            scanline: u32,
            /// 1..=128.
            no_scanlines: u32,
        },
        /// BS_PBS.
        Pbs,
        /// BS_VIGC.
        Vigc,
    }

    impl Head {
        /// Decode a first word; `None` for a bogus command.
        pub fn decode(w: u32) -> Option<Head> {
            let op = w & OPCODE_MASK;
            let sector = (w >> SECTOR_SHIFT) & FIELD_MASK;
            let scanline = (w >> SCANLINE_SHIFT) & FIELD_MASK;
            let no_scanlines = ((w >> NSCAN_SHIFT) & FIELD_MASK) + 1;
            let region_only = w == region_word(op, sector, scanline, no_scanlines);
            Some(match op {
                OP_NOOP if w == op => Head::Noop,
                OP_SENDSTATUS if w == op => Head::SendStatus,
                OP_PBS if w == op => Head::Pbs,
                OP_VIGC if w == op => Head::Vigc,
                OP_RECEIVE if region_only => Head::Receive {
                    sector,
                    scanline,
                    no_scanlines,
                },
                OP_TRANSMIT if region_only => Head::Transmit {
                    sector,
                    scanline,
                    no_scanlines,
                },
                _ => return None,
            })
        }

        /// Words after the first word.
        pub fn arg_words(self) -> usize {
            match self {
                Head::Noop | Head::Pbs | Head::Vigc => 0,
                Head::SendStatus => 2,
                Head::Transmit { .. } => 1,
                Head::Receive { no_scanlines, .. } => SCANLINE_WORDS * no_scanlines as usize,
            }
        }

        /// The macro name.
        pub fn name(self) -> &'static str {
            match self {
                Head::Noop => NAMES[0],
                Head::SendStatus => NAMES[1],
                Head::Receive { .. } => NAMES[2],
                Head::Transmit { .. } => NAMES[3],
                Head::Pbs => NAMES[4],
                Head::Vigc => NAMES[5],
            }
        }
    }
}
