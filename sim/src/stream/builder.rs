//! A Rust API mirroring the seed's `IGC_*` and `BS_*` macros (seed 003 §III.4.2.4,
//! §III.4.1-2): our `igc_commands.h` / `bs_commands.h`.
//!
//! ```ignore
//! let mut b = StreamBuilder::new(&table);
//! b.igc("CLEAR", &[0, 8])?                  // IGC_CLEAR(p, 0, 8)
//!     .igc("SCAIntoMEM_S1", &[16, 8, 42])?  // IGC_SCAIntoMEM_S1(p, 16, 8, 42)
//!     .igc_f("TREEIntoMEM_L3", &[0, 10], &[1.0, 2.0, 0.5])?;
//! b.message(Port::Bs, false).bs_receive(3, 0, &[0; 256])?;
//! let stream = b.finish();
//! ```
//!
//! Commands given before any [`StreamBuilder::message`] go into an implicit IGC message that is
//! split automatically at command boundaries so that no message exceeds
//! [`MAX_MESSAGE_WORDS`]. An explicit message that would exceed it is an error (the command
//! that overflows it is refused), unless it was opened with [`Limit::Oversize`].
//!
//! The text format ([`super::text`]) is a thin layer over this builder.

use super::{
    bs, CommandSite, Message, Port, RingEvent, RingEventKind, SentKind, Stream, MAX_MESSAGE_WORDS,
    MAX_STREAM_WORDS,
};
use crate::asm::opcodes::{CommandSpec, EncodeError, Form, OpcodeTable, OperandClass};

/// How a message treats [`MAX_MESSAGE_WORDS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A command that would make the message exceed the limit is an error.
    Strict,
    /// No limit (the seed's over-length BS_RECEIVE streams, overrun tests).
    Oversize,
    /// Start a new message (same port and destination) when the next command would not fit.
    /// IGC port only (a BS message's destination is its first opcode).
    AutoSplit,
}

/// Options of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageOpts {
    /// The port.
    pub port: Port,
    /// IGC port: set the destination LSB (flushable message). Not allowed for the BS port.
    pub flush: bool,
    /// A raw destination word. `None`: 0 for the IGC port; for the BS port, the first word of
    /// the message content (the first command's opcode, seed §III.4.1-2), or a BS_NOOP when
    /// the message is empty. With `Some`, a BS message's commands all go into the body.
    pub dest: Option<u32>,
    /// Size limit policy.
    pub limit: Limit,
    /// Arrival time (40 MHz cycle), see [`Message::at`].
    pub at: Option<u64>,
    /// A message the board sent ([`Message::sent`]): raw words only, no commands.
    pub sent: Option<SentKind>,
}

impl MessageOpts {
    /// A strict message to `port`, flushable or not, with the default destination.
    pub fn new(port: Port, flush: bool) -> Self {
        MessageOpts {
            port,
            flush,
            dest: None,
            limit: Limit::Strict,
            at: None,
            sent: None,
        }
    }

    /// The implicit message: IGC, not flushable, auto-split.
    pub fn implicit() -> Self {
        MessageOpts {
            port: Port::Igc,
            flush: false,
            dest: None,
            limit: Limit::AutoSplit,
            at: None,
            sent: None,
        }
    }
}

/// What a unit pushed into a message is, for its [`CommandSite`] and error messages.
#[derive(Clone, Copy)]
enum Unit<'t> {
    /// Raw words (no command site).
    Raw,
    Igc(&'t CommandSpec, Form),
    Bs(&'static str),
}

impl Unit<'_> {
    /// The command's macro name (`None` for raw words).
    fn name(self) -> Option<String> {
        match self {
            Unit::Raw => None,
            Unit::Igc(spec, form) => Some(macro_name(spec, form)),
            Unit::Bs(name) => Some(name.to_string()),
        }
    }
}

/// A message being filled.
#[derive(Clone, Debug)]
struct Open {
    opts: MessageOpts,
    line: usize,
    /// The message content: the body, or for a BS message without an explicit destination,
    /// the destination followed by the body.
    words: Vec<u32>,
    /// Where each command starts: index into `words`, line.
    sites: Vec<(usize, usize)>,
}

impl Open {
    fn dest_is_content(&self) -> bool {
        self.opts.port == Port::Bs && self.opts.dest.is_none()
    }

    /// Size in words (destination included) once `extra` more words are added.
    fn size_with(&self, extra: usize) -> usize {
        let n = self.words.len() + extra;
        if self.dest_is_content() {
            n.max(1)
        } else {
            n + 1
        }
    }

    fn close(self) -> Message {
        let with_dest = self.dest_is_content();
        let (dest, body) = match (self.opts.port, self.opts.dest) {
            (Port::Igc, d) => (d.unwrap_or(0) | self.opts.flush as u32, self.words),
            (Port::Bs, Some(d)) => (d, self.words),
            (Port::Bs, None) => match self.words.split_first() {
                Some((&d, rest)) => (d, rest.to_vec()),
                None => (bs::OP_NOOP, Vec::new()),
            },
        };
        let commands = self
            .sites
            .into_iter()
            .map(|(i, line)| CommandSite::new(if with_dest { i } else { i + 1 }, line))
            .collect();
        Message {
            port: self.opts.port,
            dest,
            body,
            line: self.line,
            commands,
            at: self.opts.at,
            sent: self.opts.sent,
        }
    }
}

/// Builds a [`Stream`] command by command, like the seed's macros fill a message buffer.
#[derive(Clone, Debug)]
pub struct StreamBuilder<'t> {
    table: &'t OpcodeTable,
    /// The macros resolved so far (a region's stream names a few macros thousands of times).
    resolved: Vec<(String, &'t CommandSpec, Form)>,
    done: Vec<Message>,
    cur: Option<Open>,
    line: usize,
    events: Vec<RingEvent>,
    /// Ring words so far, destinations included (at most [`MAX_STREAM_WORDS`]).
    words: usize,
}

impl<'t> StreamBuilder<'t> {
    /// A builder encoding IGC commands with `table`.
    pub fn new(table: &'t OpcodeTable) -> Self {
        StreamBuilder {
            table,
            resolved: Vec::new(),
            done: Vec::new(),
            cur: None,
            line: 0,
            events: Vec::new(),
            words: 0,
        }
    }

    /// Close the current message and place a Ring event (a reset, a TxReady change) after
    /// it. A TxReady change needs a time.
    pub fn ring_event(
        &mut self,
        kind: RingEventKind,
        at: Option<u64>,
    ) -> Result<&mut Self, EncodeError> {
        if matches!(kind, RingEventKind::TxReady { .. }) && at.is_none() {
            return Err(EncodeError("`txready` needs a time: at=T".into()));
        }
        if let Some(o) = self.cur.take() {
            self.done.push(o.close());
        }
        self.events.push(RingEvent {
            kind,
            before: self.done.len(),
            at,
            line: self.line,
        });
        Ok(self)
    }

    /// The opcode table in use.
    pub fn table(&self) -> &'t OpcodeTable {
        self.table
    }

    /// Set the source line recorded for the following messages and commands (0 = unknown).
    pub fn at_line(&mut self, line: usize) -> &mut Self {
        self.line = line;
        self
    }

    /// The port of the message being filled, if any.
    pub fn current_port(&self) -> Option<Port> {
        self.cur.as_ref().map(|o| o.opts.port)
    }

    /// Start a new strict message to `port` (closing the current one). `flushable` sets the
    /// destination LSB of an IGC message; it is ignored for [`Port::Bs`], whose destination
    /// is the first opcode (use [`StreamBuilder::begin`] for full control).
    pub fn message(&mut self, port: Port, flushable: bool) -> &mut Self {
        let opts = MessageOpts::new(port, flushable && port == Port::Igc);
        self.open(opts);
        self
    }

    /// Start a new message with explicit options (closing the current one).
    pub fn begin(&mut self, opts: MessageOpts) -> Result<&mut Self, EncodeError> {
        if opts.port == Port::Bs && opts.flush {
            return Err(EncodeError(
                "`flush` applies to IGC messages only (a BS message's destination is its first opcode)"
                    .into(),
            ));
        }
        if opts.port == Port::Bs && opts.limit == Limit::AutoSplit {
            return Err(EncodeError(
                "automatic splitting applies to IGC messages only".into(),
            ));
        }
        if opts.sent.is_some() && (opts.flush || opts.limit == Limit::AutoSplit) {
            return Err(EncodeError(
                "a message the board sent (`sent=`) takes neither `flush` nor `auto`: give its \
                 destination with `dest=`"
                    .into(),
            ));
        }
        self.open(opts);
        Ok(self)
    }

    fn open(&mut self, opts: MessageOpts) {
        if let Some(o) = self.cur.take() {
            self.done.push(o.close());
        }
        self.cur = Some(Open {
            opts,
            line: self.line,
            words: Vec::new(),
            sites: Vec::new(),
        });
    }

    /// Append one unit (a command, or a run of raw words) to the current message, opening the
    /// implicit message or splitting as needed.
    fn push(&mut self, port: Port, unit: &[u32], what: Unit<'_>) -> Result<(), EncodeError> {
        if self.cur.is_none() {
            if port == Port::Bs {
                return Err(EncodeError(format!(
                    "{} is a BS port command: start a `message bs` first",
                    what.name().as_deref().unwrap_or("this")
                )));
            }
            self.open(MessageOpts::implicit());
        }
        let line = self.line;
        let Some(cur) = self.cur.as_mut() else {
            return Err(EncodeError("internal: no open message".into()));
        };
        if let Some((kind, name)) = cur.opts.sent.and_then(|k| Some((k, what.name()?))) {
            return Err(EncodeError(format!(
                "{name}: the message started at line {} is one the board sent (`sent={}`): it \
                 holds `word` lines only",
                cur.line,
                kind.name()
            )));
        }
        if cur.opts.port != port {
            let what = what.name().unwrap_or_else(|| "this command".into());
            return Err(EncodeError(match port {
                Port::Bs => format!(
                    "{what} is a BS port command, but the current message goes to the IGC port (start a `message bs`)"
                ),
                Port::Igc => format!(
                    "{what} is an IGC command, but the current message goes to the BS port (only {} there)",
                    bs::NAMES.join(", ")
                ),
            }));
        }
        let size = cur.size_with(unit.len());
        if size > MAX_MESSAGE_WORDS {
            match cur.opts.limit {
                Limit::Oversize => {}
                Limit::Strict => {
                    return Err(EncodeError(format!(
                        "the message started at line {} would have {} words (destination included) with this, \
                         more than the {} allowed (seed 003 §III.4.1-3); split it, or write `message ... oversize`",
                        cur.line, size, MAX_MESSAGE_WORDS
                    )))
                }
                Limit::AutoSplit => {
                    if unit.len() + 1 > MAX_MESSAGE_WORDS {
                        return Err(EncodeError(format!(
                            "{} of {} words cannot fit in one message (at most {} words after the destination, seed 003 §III.4.1-3)",
                            what.name().as_deref().unwrap_or("a run of raw words"),
                            unit.len(),
                            MAX_MESSAGE_WORDS - 1
                        )));
                    }
                    // The continuation follows the first part as soon as it can.
                    let opts = MessageOpts { at: None, ..cur.opts };
                    self.open(opts);
                }
            }
        }
        let Some(cur) = self.cur.as_mut() else {
            return Err(EncodeError("internal: no open message".into()));
        };
        // The destination word is counted with the message's first unit.
        let words =
            self.words + unit.len() + usize::from(cur.words.is_empty() && !cur.dest_is_content());
        if words > MAX_STREAM_WORDS {
            return Err(EncodeError(format!(
                "the stream would have {words} Ring words with this, more than the expansion \
                 limit of {MAX_STREAM_WORDS} (64 MiB of words, the input limit)"
            )));
        }
        self.words = words;
        if !matches!(what, Unit::Raw) {
            cur.sites.push((cur.words.len(), line));
        }
        cur.words.extend_from_slice(unit);
        Ok(())
    }

    /// Append an IGC command: `macro_name` as in the seed (`SCAIntoMEM_S1`, `CLEAR`, with or
    /// without the `IGC_` prefix), `args` exactly the macro's arguments after `p`: the command
    /// arguments, then the coefficient/scalar words in the macro's order (A, B, C, D, E, F for
    /// `_Q6`; the table values for `_TBL`, where bit 31 is set on the last by the encoder).
    pub fn igc(&mut self, macro_name: &str, args: &[u32]) -> Result<&mut Self, EncodeError> {
        let (spec, form) = self.resolve(macro_name)?;
        self.push_igc(spec, form, args)
    }

    /// `macro_name` resolved in the table ([`resolve_macro`]), remembered.
    fn resolve(&mut self, macro_name: &str) -> Result<(&'t CommandSpec, Form), EncodeError> {
        if let Some(&(_, spec, form)) = self.resolved.iter().find(|r| r.0 == macro_name) {
            return Ok((spec, form));
        }
        let (spec, form) = resolve_macro(self.table, macro_name)?;
        self.resolved.push((macro_name.to_string(), spec, form));
        Ok((spec, form))
    }

    /// Append the IGC command `spec` in `form` with the macro's arguments `args`.
    fn push_igc(
        &mut self,
        spec: &'t CommandSpec,
        form: Form,
        args: &[u32],
    ) -> Result<&mut Self, EncodeError> {
        let words = encode_values(spec, form, args)?;
        self.push(Port::Igc, &words, Unit::Igc(spec, form))?;
        Ok(self)
    }

    /// Append an IGC command that uses the QEE (`tree` forms `_C1`, `_L3`, `_Q6`, ...), with
    /// the command arguments in `args` and the coefficients as floats in the macro's order
    /// (encoded as IEEE single, `f32::to_bits`).
    pub fn igc_f(
        &mut self,
        macro_name: &str,
        args: &[u32],
        coefs: &[f32],
    ) -> Result<&mut Self, EncodeError> {
        let (spec, form) = self.resolve(macro_name)?;
        if spec.class != OperandClass::Tree {
            return Err(EncodeError(format!(
                "{macro_name} does not take QEE coefficients; use igc() with integer scalar words"
            )));
        }
        let mut values = args.to_vec();
        values.extend(coefs.iter().map(|c| c.to_bits()));
        self.push_igc(spec, form, &values)
    }

    /// Append one raw word (for malformed streams).
    pub fn word(&mut self, w: u32) -> Result<&mut Self, EncodeError> {
        self.words(&[w])
    }

    /// Append raw words as one unit (an auto-split message never splits inside it).
    pub fn words(&mut self, ws: &[u32]) -> Result<&mut Self, EncodeError> {
        let port = self.current_port().unwrap_or(Port::Igc);
        self.push(port, ws, Unit::Raw)?;
        Ok(self)
    }

    /// `BS_NOOP(p)`.
    pub fn bs_noop(&mut self) -> Result<&mut Self, EncodeError> {
        self.push(Port::Bs, &[bs::OP_NOOP], Unit::Bs("BS_NOOP"))?;
        Ok(self)
    }

    /// `BS_SENDSTATUS(p, id, retaddr)`.
    pub fn bs_sendstatus(&mut self, id: u32, retaddr: u32) -> Result<&mut Self, EncodeError> {
        self.push(
            Port::Bs,
            &[bs::OP_SENDSTATUS, id, retaddr],
            Unit::Bs("BS_SENDSTATUS"),
        )?;
        Ok(self)
    }

    /// `BS_RECEIVE(p, sector, scanline, no_scanlines, ptr)` with `no_scanlines` =
    /// `data.len() / 128` (the data must be whole scanline segments, 1 to 128 of them).
    pub fn bs_receive(
        &mut self,
        sector: u32,
        scanline: u32,
        data: &[u32],
    ) -> Result<&mut Self, EncodeError> {
        let segs = data.len() / bs::SCANLINE_WORDS;
        if data.is_empty() || !data.len().is_multiple_of(bs::SCANLINE_WORDS) {
            return Err(EncodeError(format!(
                "BS_RECEIVE: {} data words is not a whole number (1..=128) of 128-word scanline segments",
                data.len()
            )));
        }
        let n = u32::try_from(segs).unwrap_or(u32::MAX);
        bs::check_region("BS_RECEIVE", sector, scanline, n).map_err(EncodeError)?;
        let mut words = Vec::with_capacity(1 + data.len());
        words.push(bs::region_word(bs::OP_RECEIVE, sector, scanline, n));
        words.extend_from_slice(data);
        self.push(Port::Bs, &words, Unit::Bs("BS_RECEIVE"))?;
        Ok(self)
    }

    /// `BS_TRANSMIT(p, sector, scanline, no_scanlines, retaddr)`.
    pub fn bs_transmit(
        &mut self,
        sector: u32,
        scanline: u32,
        no_scanlines: u32,
        retaddr: u32,
    ) -> Result<&mut Self, EncodeError> {
        bs::check_region("BS_TRANSMIT", sector, scanline, no_scanlines).map_err(EncodeError)?;
        let w = bs::region_word(bs::OP_TRANSMIT, sector, scanline, no_scanlines);
        self.push(Port::Bs, &[w, retaddr], Unit::Bs("BS_TRANSMIT"))?;
        Ok(self)
    }

    /// `BS_PBS(p)`.
    pub fn bs_pbs(&mut self) -> Result<&mut Self, EncodeError> {
        self.push(Port::Bs, &[bs::OP_PBS], Unit::Bs("BS_PBS"))?;
        Ok(self)
    }

    /// `BS_VIGC(p)`.
    pub fn bs_vigc(&mut self) -> Result<&mut Self, EncodeError> {
        self.push(Port::Bs, &[bs::OP_VIGC], Unit::Bs("BS_VIGC"))?;
        Ok(self)
    }

    /// Close the current message and return the stream.
    pub fn finish(mut self) -> Stream {
        if let Some(o) = self.cur.take() {
            self.done.push(o.close());
        }
        Stream {
            messages: self.done,
            events: self.events,
        }
    }
}

/// What a value slot of a macro holds, for parsing and printing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A command argument (unsigned integer).
    Arg,
    /// A QEE coefficient (IEEE single).
    Coef,
    /// An integer scalar (`sca`, printed signed).
    Scalar,
    /// A raw 32-bit word (MCWRITE's microcode word, printed in hex).
    Raw,
}

/// The slot kind of the coefficient/scalar values of a command.
pub(crate) fn coef_slot(spec: &CommandSpec) -> Slot {
    match spec.class {
        OperandClass::Tree => Slot::Coef,
        OperandClass::HardwiredC => Slot::Raw,
        OperandClass::Scalar | OperandClass::Plain => Slot::Scalar,
    }
}

/// Number of coefficient/scalar values after the arguments (`None`: one or more, `_TBL`).
pub(crate) fn coef_count(spec: &CommandSpec, form: Form) -> Option<usize> {
    if spec.class == OperandClass::HardwiredC {
        Some(1)
    } else {
        form.coef_count()
    }
}

/// The macro name of a command form, e.g. `SCAIntoMEM_S1`.
pub(crate) fn macro_name(spec: &CommandSpec, form: Form) -> String {
    format!("{}{}", spec.name, form.suffix())
}

/// `SCAIntoMEM_S1 dst dlen S`: the usage line of a macro.
pub(crate) fn usage(spec: &CommandSpec, form: Form) -> String {
    let mut s = macro_name(spec, form);
    for a in &spec.args {
        s.push(' ');
        s.push_str(&a.name);
    }
    let coefs: &[&str] = if spec.class == OperandClass::HardwiredC {
        &["C"]
    } else {
        match form {
            Form::S1 => &["S"],
            Form::Tbl => &["S..."],
            Form::C1 | Form::L1 | Form::Q1 => &["C"],
            Form::L3 | Form::Q3 => &["A", "B", "C"],
            Form::Q6 => &["A", "B", "C", "D", "E", "F"],
            _ => &[],
        }
    };
    for c in coefs {
        s.push(' ');
        s.push_str(c);
    }
    s
}

/// Check the number of values given to a macro.
pub(crate) fn check_count(spec: &CommandSpec, form: Form, got: usize) -> Result<(), EncodeError> {
    let n = spec.args.len();
    let ok = match coef_count(spec, form) {
        Some(k) => got == n + k,
        None => got > n,
    };
    if ok {
        return Ok(());
    }
    let want = match coef_count(spec, form) {
        Some(k) => format!("{}", n + k),
        None => format!("at least {}", n + 1),
    };
    Err(EncodeError(format!(
        "{} takes {} value(s), got {} (usage: {})",
        macro_name(spec, form),
        want,
        got,
        usage(spec, form)
    )))
}

/// Macro order (A, B, C, D, E, F) to stream order (D, E, F, A, B, C; seed §III.4.2.1) for
/// `_Q6`; other forms are unchanged.
pub(crate) fn to_stream_order(form: Form, c: &[u32]) -> Vec<u32> {
    match (form, c) {
        (Form::Q6, [a, b, cc, d, e, f]) => vec![*d, *e, *f, *a, *b, *cc],
        _ => c.to_vec(),
    }
}

/// Stream order to macro order (inverse of [`to_stream_order`]).
pub(crate) fn to_macro_order(form: Form, c: &[u32]) -> Vec<u32> {
    match (form, c) {
        (Form::Q6, [d, e, f, a, b, cc]) => vec![*a, *b, *cc, *d, *e, *f],
        _ => c.to_vec(),
    }
}

/// Encode a macro's values (arguments then coefficients in macro order) into stream words.
pub(crate) fn encode_values(
    spec: &CommandSpec,
    form: Form,
    values: &[u32],
) -> Result<Vec<u32>, EncodeError> {
    check_count(spec, form, values.len())?;
    let (args, coefs) = values.split_at(spec.args.len());
    spec.encode(form, args, &to_stream_order(form, coefs))
}

/// Canonical text of an IGC command: `NAME arg... coef...`.
pub(crate) fn canonical_text(spec: &CommandSpec, form: Form, values: &[u32]) -> String {
    let mut s = macro_name(spec, form);
    let n = spec.args.len();
    let slot = coef_slot(spec);
    for (i, &v) in values.iter().enumerate() {
        s.push(' ');
        s.push_str(&format_value(if i < n { Slot::Arg } else { slot }, v));
    }
    s
}

/// Print a value so that the text parser reads back the same bits.
pub(crate) fn format_value(slot: Slot, v: u32) -> String {
    match slot {
        Slot::Arg => v.to_string(),
        Slot::Scalar => (v as i32).to_string(),
        Slot::Raw => format!("{v:#010x}"),
        Slot::Coef => format_coef(v),
    }
}

/// A coefficient as a float that parses back to exactly `bits` (Rust's shortest round-trip
/// form), or raw hex for NaNs.
pub(crate) fn format_coef(bits: u32) -> String {
    let f = f32::from_bits(bits);
    let s = format!("{f:?}");
    match s.parse::<f32>() {
        Ok(g) if !f.is_nan() && g.to_bits() == bits => s,
        _ => format!("{bits:#010x}"),
    }
}

/// Text of a BS_RECEIVE command: `fill=N` or `ramp` when the data allow it; otherwise the
/// data words in full (`full`) or a count.
pub(crate) fn receive_text(sector: u32, scanline: u32, n: u32, data: &[u32], full: bool) -> String {
    let head = format!("BS_RECEIVE {sector} {scanline} {n}");
    if let Some(&first) = data.first() {
        if data.iter().all(|&d| d == first) {
            return format!("{head} fill={}", first as i32);
        }
    }
    if data.iter().enumerate().all(|(i, &d)| d as usize == i) {
        return format!("{head} ramp");
    }
    if !full {
        return format!("{head} ({} data words)", data.len());
    }
    let mut s = head;
    for chunk in data.chunks(8) {
        s.push_str(" \\\n   ");
        for d in chunk {
            s.push_str(&format!(" {d:#x}"));
        }
    }
    s
}

/// Names a user may write for `table`'s commands: every macro form, and the BS macros.
pub(crate) fn known_names(table: &OpcodeTable) -> Vec<String> {
    let mut v: Vec<String> = table
        .commands
        .iter()
        .flat_map(|c| {
            Form::all_for(c.class)
                .iter()
                .map(move |f| macro_name(c, *f))
        })
        .collect();
    v.extend(bs::NAMES.iter().map(|s| s.to_string()));
    v
}

/// Up to three known names closest to `name`.
pub(crate) fn suggestions(table: &OpcodeTable, name: &str) -> Vec<String> {
    let known = known_names(table);
    crate::suggest::nearest(name, known.iter().map(String::as_str), 3)
}

/// Resolve a macro name (with or without the `IGC_` prefix) into a command and form, or an
/// error listing the closest known names.
pub(crate) fn resolve_macro<'a>(
    table: &'a OpcodeTable,
    name: &str,
) -> Result<(&'a CommandSpec, Form), EncodeError> {
    if let Some(r) = table.resolve(name) {
        return Ok(r);
    }
    if let Some(r) = name.strip_prefix("IGC_").and_then(|n| table.resolve(n)) {
        return Ok(r);
    }
    if bs::NAMES.contains(&name) {
        return Err(EncodeError(format!(
            "{name} is a BS port command: it belongs in a `message bs`"
        )));
    }
    let bare = name.strip_prefix("IGC_").unwrap_or(name);
    if let Some((c, suffix)) = bare
        .rsplit_once('_')
        .and_then(|(base, suffix)| Some((table.get(base)?, suffix)))
    {
        if Form::from_suffix(suffix).is_some() {
            return Err(EncodeError(format!(
                "{} has no _{suffix} form (forms: {})",
                c.name,
                c.form_names()
            )));
        }
    }
    if let Some(c) = table.get(bare) {
        return Err(EncodeError(format!(
            "{name} needs a form suffix: {}",
            c.form_names()
        )));
    }
    let shown_name = super::shown(name);
    // No name is near a token of more characters than a message quotes, and the edit
    // distance to every known name would cost its length times theirs.
    if name.chars().count() > super::SHOWN_CHARS {
        return Err(EncodeError(format!("unknown command `{shown_name}`")));
    }
    let sugg = suggestions(table, name);
    Err(EncodeError(if sugg.is_empty() {
        format!("unknown command `{shown_name}` (the opcode table has no commands)")
    } else {
        format!(
            "unknown command `{shown_name}`; closest known: {}",
            sugg.join(", ")
        )
    }))
}
