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

/// Most characters of one token an error message quotes ([`shown`]).
pub const SHOWN_CHARS: usize = 40;

/// `s` with its control characters escaped (`\u{0}`, `\u{1b}`, `\n`): what a message may
/// echo of its input, which must not write raw NULs or terminal escapes.
pub fn escaped(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A token as an error message quotes it: control characters escaped ([`escaped`]), and a
/// token longer than [`SHOWN_CHARS`] cut to its first characters with its length, so a
/// megabyte token makes a one-line message.
pub fn shown(token: &str) -> String {
    let n = token.chars().count();
    if n <= SHOWN_CHARS {
        return escaped(token);
    }
    let head: String = token.chars().take(SHOWN_CHARS - 8).collect();
    format!("{}… ({n} characters)", escaped(&head))
}

/// Most Ring words (destinations included) a parsed stream may hold: as many as the input
/// limit ([`crate::input::MAX_INPUT_BYTES`], 64 MiB) holds words. A short text can ask for
/// many words (`BS_RECEIVE ... fill=N` is 16 K words per line); past this the stream is bad
/// input (the CLI exits 3) instead of growing memory without bound (docs/user-guide.md,
/// "Limits").
pub const MAX_STREAM_WORDS: usize = (crate::input::MAX_INPUT_BYTES / 4) as usize;

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

impl Port {
    /// `IGC` or `BS`, as the seed names the ports.
    pub fn name_upper(self) -> &'static str {
        match self {
            Port::Igc => "IGC",
            Port::Bs => "BS",
        }
    }
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
/// source lines. Eight bytes: a long stream holds one per command. Its text is made on
/// demand ([`Message::command_text`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandSite {
    /// Index into [`Message::words`] (the destination first) of the command's first word:
    /// 0 for a BS message's first command when the destination is its opcode (the seed's
    /// rule, §III.4.1-2), otherwise 1 + its index in [`Message::body`].
    pub word: u32,
    /// 1-based source line (0 if unknown).
    pub line: u32,
}

impl CommandSite {
    /// A site; indices past `u32::MAX` (a message of 16 GiB) saturate.
    pub fn new(word: usize, line: usize) -> Self {
        CommandSite {
            word: u32::try_from(word).unwrap_or(u32::MAX),
            line: u32::try_from(line).unwrap_or(u32::MAX),
        }
    }
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
    /// Arrival time: the sender offers the message to the Ring at this 40 MHz cycle, not
    /// before (`None`: as soon as the port's previous message has gone). For messages the
    /// board sent, the cycle its first word went out.
    #[serde(default)]
    pub at: Option<u64>,
    /// `Some`: a message the board sent from `port` (what `pp5 run --tx-out` writes), a
    /// record of the board's output rather than something to send it.
    #[serde(default)]
    pub sent: Option<SentKind>,
}

/// What a message the board sent is (the transmitter's [`pp5_rtl::ring::tx::MsgKind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SentKind {
    /// A status message (SENDSTATUS, BS_SENDSTATUS): destination, ID, status word.
    Status,
    /// An error message of the IGC port (to Ring address 0): destination, ID, status word.
    Error,
    /// Backing-store data (BS_TRANSMIT): destination, then 128 words per scanline segment.
    Data,
}

impl SentKind {
    /// All kinds, in the order of their names in the text format.
    pub const ALL: [SentKind; 3] = [SentKind::Status, SentKind::Error, SentKind::Data];

    /// The name in the text format (`message igc sent=status`) and in reports: lower case.
    pub fn name(self) -> &'static str {
        match self {
            SentKind::Status => "status",
            SentKind::Error => "error",
            SentKind::Data => "data",
        }
    }

    /// The kind of a message the board's transmitter sent.
    pub fn of(k: pp5_rtl::ring::tx::MsgKind) -> SentKind {
        use pp5_rtl::ring::tx::MsgKind;
        match k {
            MsgKind::Status => SentKind::Status,
            MsgKind::Error => SentKind::Error,
            MsgKind::Data => SentKind::Data,
        }
    }
}

impl Message {
    /// A message of raw words to `port`, sent as soon as possible (no source line, no
    /// command sites).
    pub fn new(port: Port, dest: u32, body: Vec<u32>) -> Message {
        Message {
            port,
            dest,
            body,
            line: 0,
            commands: Vec::new(),
            at: None,
            sent: None,
        }
    }

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

    /// The text of command `k` (see [`Message::commands`]) as the disassembler prints it,
    /// e.g. `MEMplusMEM 0 8 16 8 8` (`None` if there is no such command or it does not
    /// decode with `table`).
    pub fn command_text(
        &self,
        k: usize,
        table: &crate::asm::opcodes::OpcodeTable,
    ) -> Option<String> {
        text::command_text(self, self.commands.get(k)?, table)
    }

    /// Whether two messages carry the same words to the same port (ignoring `line`,
    /// `commands` and `at`).
    pub fn same_words(&self, other: &Message) -> bool {
        self.port == other.port && self.dest == other.dest && self.body == other.body
    }
}

/// Something that happens on the Ring besides a message (the Ring environment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RingEventKind {
    /// A Ring reset (seed §III.4.2.5.3): the board returns to its reset state (semaphores and
    /// sticky error bits cleared, the IGC in RMode); memories keep their contents.
    Reset,
    /// The Ring changes TxReady for one of the board's ports (whether its outgoing messages
    /// may proceed).
    TxReady { port: Port, ready: bool },
}

/// A Ring event placed in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RingEvent {
    pub kind: RingEventKind,
    /// Index of the first message after it in file order: a reset waits until every earlier
    /// message was delivered, and later messages wait for it.
    pub before: usize,
    /// When it happens (40 MHz cycle). `None` for a reset: once the earlier messages were
    /// delivered and the board can make no more progress (idle, or deadlocked). TxReady
    /// changes always have a time.
    pub at: Option<u64>,
    /// 1-based source line (0 if unknown).
    pub line: usize,
}

/// A command stream: Ring messages in the order they are sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stream {
    /// The messages, in sending order.
    pub messages: Vec<Message>,
    /// Ring resets and TxReady changes, in file order.
    #[serde(default)]
    pub events: Vec<RingEvent>,
}

impl Stream {
    /// Refuse a stream that holds messages a board sent (`pp5 run --tx-out`, `sent=`): they
    /// record a board's output, and sending them to a board would feed it its own data words
    /// as commands.
    pub fn check_sendable(&self, file: &str) -> Result<(), StreamError> {
        match self
            .messages
            .iter()
            .enumerate()
            .find(|(_, m)| m.sent.is_some())
        {
            None => Ok(()),
            Some((k, m)) => Err(StreamError::new(
                file,
                m.line,
                format!(
                    "message {k} is one a board sent (`sent={}`, as `pp5 run --tx-out` writes \
                     them), not one to send it; `pp5 stream` shows such a file",
                    m.sent.map_or("", SentKind::name)
                ),
            )),
        }
    }

    /// Total number of words, destination words included.
    pub fn total_words(&self) -> usize {
        self.messages.iter().map(Message::len_words).sum()
    }

    /// Append `other`'s messages and events after this stream's (each port's messages keep
    /// their order; the ports travel independently).
    pub fn append(&mut self, other: Stream) {
        let base = self.messages.len();
        self.messages.extend(other.messages);
        self.events
            .extend(other.events.into_iter().map(|e| RingEvent {
                before: e.before + base,
                ..e
            }));
    }

    /// Whether two streams carry the same messages word for word (ignoring source lines and
    /// command sites).
    pub fn same_words(&self, other: &Stream) -> bool {
        self.messages.len() == other.messages.len()
            && self.events.len() == other.events.len()
            && self
                .events
                .iter()
                .zip(&other.events)
                .all(|(a, b)| a.kind == b.kind && a.before == b.before && a.at == b.at)
            && self
                .messages
                .iter()
                .zip(&other.messages)
                .all(|(a, b)| a.at == b.at)
            && self
                .messages
                .iter()
                .zip(&other.messages)
                .all(|(a, b)| a.same_words(b))
    }
}

/// The messages a board sent, as a stream (port = the port that sent it, `at` = the cycle
/// its first word went out), for writing in the binary Ring format.
pub fn sent_stream(sent: &[pp5_rtl::renderer::OutMessage]) -> Stream {
    Stream {
        messages: sent.iter().map(sent_message).collect(),
        events: Vec::new(),
    }
}

/// One message the board sent, as a stream's message (its port, destination, words, the
/// cycle it started and what it is).
pub fn sent_message(m: &pp5_rtl::renderer::OutMessage) -> Message {
    Message {
        port: match m.port {
            pp5_rtl::ring::PortId::Igc => Port::Igc,
            pp5_rtl::ring::PortId::Bs => Port::Bs,
        },
        dest: m.dest(),
        body: m.words.get(1..).unwrap_or(&[]).to_vec(),
        line: 0,
        commands: Vec::new(),
        at: Some(m.start),
        sent: Some(SentKind::of(m.kind)),
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
        if self.line == 0 {
            // No line (a binary file): the message says where.
            write!(f, "{}: {}", self.file, self.msg)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.msg)
        }
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

/// The BS port command encoding; it lives with the BS port's hardware model.
pub use pp5_rtl::bs_port::command as bs;

/// The latest arrival time a stream may give (`at=`, in 40 MHz cycles: about 289 days). The
/// text and binary readers accept the same range, so what `pp5 stream` prints reads back.
pub const MAX_AT: u64 = 1_000_000_000_000_000;
