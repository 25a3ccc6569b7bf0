//! The text command-stream format (`.pp5s`) and its disassembler.
//!
//! ```text
//! # comment (also ';'); a line ending in '\' continues on the next line
//! CLEAR 0 8                      # before any `message`: implicit IGC message, auto-split
//! message igc flush              # message [igc|bs] [flush] [dest=N] [oversize|auto] [at=T]
//! SCAIntoMEM_S1 16 8 -3          # macro name (optional IGC_ prefix), args, then scalar
//! SCAIntoMEM_TBL 0 8 1 2 3       # table values; bit 31 is set on the last one
//! TREEIntoMEM_Q6 0 10 1.0 2.0 0.5 0 0 0x3f800000   # A B C D E F (floats or raw 0x bits)
//! MCWRITE 12 0xdeadbeef
//! word 0x80000012 7              # raw words
//! message bs
//! BS_RECEIVE 3 0 2 fill=7        # or `ramp`, or 256 data words
//! BS_SENDSTATUS 1 0x40
//! txready bs off at=2us          # the Ring withholds TxReady from the BS port...
//! txready bs on at=50us          # ...and gives it back
//! reset                          # a Ring reset once the board can make no more progress
//! message bs sent=data dest=0x40 at=9426   # a message the board sent (pp5 run --tx-out):
//! word 0 1 2 3                   # raw words only; a record of output, not sent by pp5 run
//! ```
//!
//! Times (`at=T`): 40 MHz cycles, or with a unit `ns`, `us`, `ms` (rounded to the cycle).
//! A message with `at=` is offered to the Ring at that time, not before; without, as soon as
//! the port's previous message has gone. The two ports' messages travel independently.
//!
//! Numbers: decimal, `0x` hex, `0b` binary (`_` separators allowed); negative decimals are
//! two's complement (scalars, raw words, `dest`); command arguments are unsigned. QEE
//! coefficients are floats (`1.5`, `-0.1`, `1e3`, `inf`) encoded with `f32::to_bits`, or raw
//! `0x`/`0b` bits.
//!
//! `message` options: `igc` (default) or `bs`; `flush` sets the destination LSB (IGC only);
//! `dest=N` gives a raw destination word (for `bs`, the commands then all go into the body;
//! without it a BS message's first word, normally the first command's opcode, is the
//! destination, seed §III.4.1-2); `oversize` lifts the [`MAX_MESSAGE_WORDS`] limit; `auto`
//! splits the message at command boundaries like the implicit one (IGC only).

use super::builder::{
    self, coef_slot, receive_text, resolve_macro, Limit, MessageOpts, Slot, StreamBuilder,
};
use super::{
    bs, shown, CommandSite, Message, Port, RingEventKind, SentKind, Stream, StreamError,
    MAX_MESSAGE_WORDS,
};
use crate::asm::opcodes::{EncodeError, Form, OpcodeTable, OperandClass};
use pp5_rtl::igc::opcode::{p_fields, OpcodeWord, LONG_BIT};

/// Parse a text stream. `file` is used in error messages only.
pub fn parse(src: &str, file: &str, table: &OpcodeTable) -> Result<Stream, StreamError> {
    // A byte-order mark (editors on some systems write one) is not part of the first command.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut b = StreamBuilder::new(table);
    for (line, tokens) in logical_lines(src) {
        b.at_line(line);
        parse_line(&mut b, &tokens).map_err(|e| StreamError::new(file, line, e))?;
    }
    Ok(b.finish())
}

/// Split `src` into logical lines (comments removed, `\` continuations joined), each with
/// the 1-based number of its first physical line and its tokens. Blank lines are skipped.
/// Lines are produced one at a time, so a long stream's tokens are never all held at once.
fn logical_lines(src: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    let mut raw = src.lines().enumerate();
    std::iter::from_fn(move || {
        let mut pending: Option<(usize, Vec<&str>)> = None;
        loop {
            let Some((i, line)) = raw.next() else {
                return pending.filter(|e| !e.1.is_empty());
            };
            let code = match line.find(['#', ';']) {
                Some(p) => &line[..p],
                None => line,
            };
            let code = code.trim_end();
            let (code, cont) = match code.strip_suffix('\\') {
                Some(c) => (c, true),
                None => (code, false),
            };
            let entry = pending.get_or_insert_with(|| (i + 1, Vec::new()));
            entry.1.extend(code.split_whitespace());
            if !cont {
                match pending.take() {
                    Some(e) if !e.1.is_empty() => return Some(e),
                    _ => {}
                }
            }
        }
    })
}

fn parse_line(b: &mut StreamBuilder<'_>, tokens: &[&str]) -> Result<(), String> {
    let Some((&head, rest)) = tokens.split_first() else {
        return Ok(());
    };
    let enc = |e: EncodeError| e.0;
    match head {
        "message" => {
            let opts = parse_message_opts(rest)?;
            b.begin(opts).map_err(enc)?;
        }
        "reset" => {
            let at = match rest {
                [] => None,
                [t] => Some(parse_at(t)?),
                _ => return Err("usage: reset [at=T]".into()),
            };
            b.ring_event(RingEventKind::Reset, at).map_err(enc)?;
        }
        "txready" => {
            let usage = "usage: txready igc|bs on|off at=T";
            let [port, state, at] = rest else {
                return Err(usage.into());
            };
            let port = match *port {
                "igc" => Port::Igc,
                "bs" => Port::Bs,
                _ => return Err(usage.into()),
            };
            let ready = match *state {
                "on" | "1" => true,
                "off" | "0" => false,
                _ => return Err(usage.into()),
            };
            let at = parse_at(at)?;
            b.ring_event(RingEventKind::TxReady { port, ready }, Some(at))
                .map_err(enc)?;
        }
        "word" => {
            if rest.is_empty() {
                return Err("`word` needs at least one value".into());
            }
            let ws = rest
                .iter()
                .enumerate()
                .map(|(i, t)| parse_int(t).map_err(|e| format!("word value {}: {e}", i + 1)))
                .collect::<Result<Vec<_>, _>>()?;
            b.words(&ws).map_err(enc)?;
        }
        name if bs::NAMES.contains(&name) => parse_bs(b, name, rest)?,
        name => {
            let (spec, form) = resolve_macro(b.table(), name).map_err(enc)?;
            builder::check_count(spec, form, rest.len()).map_err(enc)?;
            let n = spec.args.len();
            let slot = coef_slot(spec);
            let mut values = Vec::with_capacity(rest.len());
            for (i, t) in rest.iter().enumerate() {
                let (kind, what) = if i < n {
                    (
                        Slot::Arg,
                        format!("argument {} ({})", i + 1, spec.args[i].name),
                    )
                } else {
                    (slot, format!("coefficient/scalar {}", i + 1 - n))
                };
                let v = parse_slot(kind, t).map_err(|e| format!("{name}: {what}: {e}"))?;
                values.push(v);
            }
            b.igc(name, &values).map_err(enc)?;
        }
    }
    Ok(())
}

fn parse_message_opts(tokens: &[&str]) -> Result<MessageOpts, String> {
    let mut port = None;
    let mut flush = false;
    let mut dest = None;
    let mut limit = None;
    let mut at = None;
    let mut sent = None;
    for &t in tokens {
        if let Some(v) = t.strip_prefix("sent=") {
            if sent.is_some() {
                return Err("`message`: `sent=` is given twice".into());
            }
            sent = Some(
                SentKind::ALL
                    .into_iter()
                    .find(|k| k.name() == v)
                    .ok_or_else(|| {
                        format!(
                            "`message`: `sent={}`: expected sent=status, error or data",
                            shown(v)
                        )
                    })?,
            );
            continue;
        }
        if t.starts_with("at=") {
            if at.is_some() {
                return Err("`message`: `at=` is given twice".into());
            }
            at = Some(parse_at(t)?);
            continue;
        }
        match t {
            "igc" | "bs" => {
                if port.is_some() {
                    return Err("`message`: the port is given twice".into());
                }
                port = Some(if t == "igc" { Port::Igc } else { Port::Bs });
            }
            "flush" => flush = true,
            "oversize" | "auto" => {
                if limit.is_some() {
                    return Err("`message`: give at most one of `oversize`, `auto`".into());
                }
                limit = Some(if t == "auto" {
                    Limit::AutoSplit
                } else {
                    Limit::Oversize
                });
            }
            _ => match t.strip_prefix("dest=") {
                Some(v) => {
                    if dest.is_some() {
                        return Err("`message`: `dest=` is given twice".into());
                    }
                    dest = Some(parse_int(v).map_err(|e| format!("`message` dest: {e}"))?);
                }
                None => {
                    return Err(format!(
                        "`message`: unknown option `{}` (expected igc, bs, flush, dest=N, oversize, auto, at=T, sent=KIND)",
                        shown(t)
                    ))
                }
            },
        }
    }
    Ok(MessageOpts {
        port: port.unwrap_or(Port::Igc),
        flush,
        dest,
        limit: limit.unwrap_or(Limit::Strict),
        at,
        sent,
    })
}

/// A time `at=T`: 40 MHz cycles, or a number with `ns`, `us` or `ms` (rounded to the nearest
/// cycle).
fn parse_at(t: &str) -> Result<u64, String> {
    let v = t
        .strip_prefix("at=")
        .ok_or_else(|| format!("expected at=T, got `{}`", shown(t)))?;
    let (num, ns_per_unit) = if let Some(n) = v.strip_suffix("ns") {
        (n, 1.0)
    } else if let Some(n) = v.strip_suffix("us") {
        (n, 1e3)
    } else if let Some(n) = v.strip_suffix("ms") {
        (n, 1e6)
    } else {
        return parse_unsigned(v, super::MAX_AT, "at most 10^15 cycles")
            .map_err(|e| format!("bad time `{}`: {e}", shown(v)));
    };
    let x: f64 = num
        .parse()
        .map_err(|e| format!("bad time `{}`: {e}", shown(v)))?;
    let ns_per_cycle = pp5_rtl::clock::CYCLE_PS as f64 / 1000.0;
    let cycles = (x * ns_per_unit / ns_per_cycle).round();
    if !(0.0..=super::MAX_AT as f64).contains(&cycles) {
        return Err(format!("time `{}` is out of range", shown(v)));
    }
    Ok(cycles as u64)
}

fn parse_bs(b: &mut StreamBuilder<'_>, name: &str, rest: &[&str]) -> Result<(), String> {
    let enc = |e: EncodeError| e.0;
    let want = |n: usize, usage: &str| {
        if rest.len() == n {
            Ok(())
        } else {
            Err(format!(
                "{name} takes {n} value(s), got {} (usage: {usage})",
                rest.len()
            ))
        }
    };
    let arg = |i: usize, what: &str| {
        parse_int(rest[i]).map_err(|e| format!("{name}: argument {} ({what}): {e}", i + 1))
    };
    match name {
        "BS_NOOP" => {
            want(0, "BS_NOOP")?;
            b.bs_noop().map_err(enc)?;
        }
        "BS_PBS" => {
            want(0, "BS_PBS")?;
            b.bs_pbs().map_err(enc)?;
        }
        "BS_VIGC" => {
            want(0, "BS_VIGC")?;
            b.bs_vigc().map_err(enc)?;
        }
        "BS_SENDSTATUS" => {
            want(2, "BS_SENDSTATUS id retaddr")?;
            b.bs_sendstatus(arg(0, "id")?, arg(1, "retaddr")?)
                .map_err(enc)?;
        }
        "BS_TRANSMIT" => {
            want(4, "BS_TRANSMIT sector scanline no_scanlines retaddr")?;
            b.bs_transmit(
                arg(0, "sector")?,
                arg(1, "scanline")?,
                arg(2, "no_scanlines")?,
                arg(3, "retaddr")?,
            )
            .map_err(enc)?;
        }
        _ => {
            // BS_RECEIVE sector scanline no_scanlines <data... | fill=N | ramp>
            const USAGE: &str =
                "BS_RECEIVE sector scanline no_scanlines <128*no_scanlines words | fill=N | ramp>";
            if rest.len() < 4 {
                return Err(format!(
                    "{name} takes at least 4 value(s), got {} (usage: {USAGE})",
                    rest.len()
                ));
            }
            let (sector, scanline, n) = (
                arg(0, "sector")?,
                arg(1, "scanline")?,
                arg(2, "no_scanlines")?,
            );
            bs::check_region(name, sector, scanline, n)?;
            let len = bs::SCANLINE_WORDS * n as usize;
            let data: Vec<u32> = match &rest[3..] {
                [one] if one.starts_with("fill=") => {
                    let v = parse_int(&one["fill=".len()..])
                        .map_err(|e| format!("{name}: fill value: {e}"))?;
                    vec![v; len]
                }
                ["ramp"] => (0..len as u32).collect(),
                words => {
                    if words.len() != len {
                        return Err(format!(
                            "{name} with no_scanlines = {n} needs {len} data words (128 × no_scanlines), \
                             `fill=N` or `ramp`; got {} (usage: {USAGE})",
                            words.len()
                        ));
                    }
                    words
                        .iter()
                        .enumerate()
                        .map(|(i, t)| {
                            parse_int(t).map_err(|e| format!("{name}: data word {}: {e}", i + 1))
                        })
                        .collect::<Result<_, _>>()?
                }
            };
            b.bs_receive(sector, scanline, &data).map_err(enc)?;
        }
    }
    Ok(())
}

fn parse_slot(slot: Slot, t: &str) -> Result<u32, String> {
    match slot {
        Slot::Arg => parse_uint(t),
        Slot::Scalar | Slot::Raw => parse_int(t),
        Slot::Coef => parse_coef(t),
    }
}

/// An unsigned integer: decimal, `0x` hex or `0b` binary, `_` separators allowed.
pub fn parse_uint(t: &str) -> Result<u32, String> {
    parse_unsigned(t, u64::from(u32::MAX), "does not fit in 32 bits").map(|v| v as u32)
}

/// An unsigned number (decimal, `0x` hex, `0b` binary, `_` separators) up to `max`;
/// `too_big` says why a larger one is refused.
fn parse_unsigned(t: &str, max: u64, too_big: &str) -> Result<u64, String> {
    let bad = |why: &str| Err(format!("bad number `{}`{why}", shown(t)));
    let too_big = format!(" ({too_big})");
    if t.starts_with('-') {
        return bad(" (must not be negative here)");
    }
    let clean: String = t.chars().filter(|&c| c != '_').collect();
    let (digits, radix) = if let Some(h) = clean
        .strip_prefix("0x")
        .or_else(|| clean.strip_prefix("0X"))
    {
        (h, 16)
    } else if let Some(b) = clean
        .strip_prefix("0b")
        .or_else(|| clean.strip_prefix("0B"))
    {
        (b, 2)
    } else {
        (clean.as_str(), 10)
    };
    if digits.is_empty() || digits.starts_with('+') {
        return bad("");
    }
    match u64::from_str_radix(digits, radix) {
        Ok(v) if v <= max => Ok(v),
        Ok(_) => bad(&too_big),
        Err(_) if digits.chars().all(|c| c.is_digit(radix)) => bad(&too_big),
        Err(_) => bad(""),
    }
}

/// An integer that may be negative (two's complement): `-3` is `0xfffffffd`.
pub fn parse_int(t: &str) -> Result<u32, String> {
    match t.strip_prefix('-') {
        Some(m) => {
            let v = parse_uint(m).map_err(|_| format!("bad number `{}`", shown(t)))?;
            if v > 1 << 31 {
                return Err(format!("bad number `{}` (below -2^31)", shown(t)));
            }
            Ok(v.wrapping_neg())
        }
        None => parse_uint(t),
    }
}

/// A QEE coefficient: a float (IEEE single bits) or raw `0x`/`0b` bits.
pub fn parse_coef(t: &str) -> Result<u32, String> {
    let mag = t.strip_prefix('-').unwrap_or(t);
    if mag.starts_with("0x")
        || mag.starts_with("0X")
        || mag.starts_with("0b")
        || mag.starts_with("0B")
    {
        return parse_int(t);
    }
    let f: f32 = t.parse().map_err(|_| {
        format!(
            "bad number `{}` (expected a float such as 1.5, -0.1, 1e3, or raw 0x bits)",
            shown(t)
        )
    })?;
    let spelled_inf = mag.eq_ignore_ascii_case("inf") || mag.eq_ignore_ascii_case("infinity");
    if f.is_infinite() && !spelled_inf {
        return Err(format!(
            "bad number `{}` (out of single-precision range; write `inf` if you mean it)",
            shown(t)
        ));
    }
    Ok(f.to_bits())
}

/// Disassemble a stream into text that [`parse`] reads back to the same words.
///
/// Commands are recognised with `table`; anything it cannot decode (unknown CMD, bits the
/// table's encoder would not produce, a command cut off by the end of its message, bogus BS
/// commands) is printed as `word` lines with a comment saying why.
pub fn disassemble(stream: &Stream, table: &OpcodeTable) -> String {
    let mut out = String::new();
    let what = if stream.messages.iter().any(|m| m.sent.is_some()) {
        "Ring messages a board sent (pp5 run --tx-out)"
    } else {
        "pp5 command stream"
    };
    out.push_str(&format!(
        "# {what}: {} message(s), {} word(s)\n",
        stream.messages.len(),
        stream.total_words()
    ));
    let events_before = |k: usize, out: &mut String| {
        for e in stream.events.iter().filter(|e| e.before == k) {
            out.push('\n');
            out.push_str(&event_text(e));
            out.push('\n');
        }
    };
    for (k, m) in stream.messages.iter().enumerate() {
        events_before(k, &mut out);
        out.push('\n');
        if let Some(kind) = m.sent {
            disassemble_sent(k, m, kind, &mut out);
            continue;
        }
        let mut head = format!("message {}", m.port);
        if let Some(at) = m.at {
            head.push_str(&format!(" at={at}"));
        }
        if m.port == Port::Igc {
            match m.dest {
                0 => {}
                1 => head.push_str(" flush"),
                d => head.push_str(&format!(" dest={d:#x}")),
            }
        }
        if m.len_words() > MAX_MESSAGE_WORDS {
            head.push_str(" oversize");
        }
        out.push_str(&format!(
            "{head}    # message {k}: {} word(s)\n",
            m.len_words()
        ));
        match m.port {
            Port::Igc => disassemble_igc(&m.body, table, &mut out),
            Port::Bs => disassemble_bs(&m.words(), table, &mut out),
        }
    }
    events_before(stream.messages.len(), &mut out);
    out
}

/// A message the board sent (`pp5 run --tx-out`): its header with what it is, then its words,
/// a status message's ID and status word named, a data message's words by scanline segment.
fn disassemble_sent(k: usize, m: &Message, kind: SentKind, out: &mut String) {
    let mut head = format!("message {} sent={} dest={:#x}", m.port, kind.name(), m.dest);
    if let Some(at) = m.at {
        head.push_str(&format!(" at={at}"));
    }
    if m.len_words() > MAX_MESSAGE_WORDS {
        head.push_str(" oversize");
    }
    let what = match kind {
        SentKind::Status => "a status message",
        SentKind::Error => "an error message",
        SentKind::Data => "backing-store data",
    };
    out.push_str(&format!(
        "{head}    # message {k}: {what} the {} port sent, {} word(s)\n",
        m.port.name_upper(),
        m.len_words()
    ));
    match (kind, &m.body[..]) {
        (SentKind::Status | SentKind::Error, &[id, status]) => {
            let bits: Vec<String> = (0..32)
                .rev()
                .filter(|b| status >> b & 1 != 0)
                .map(|b| format!("{b} {}", pp5_rtl::status::bit_name(b)))
                .collect();
            let why = if bits.is_empty() {
                format!("ID {id:#010x}, status {status:#010x}")
            } else {
                format!("ID {id:#010x}, status {status:#010x}: {}", bits.join(", "))
            };
            word_lines(&m.body, &why, out);
        }
        (SentKind::Data, body) if body.len() % bs::SCANLINE_WORDS == 0 => {
            for (i, seg) in body.chunks(bs::SCANLINE_WORDS).enumerate() {
                word_lines(seg, &format!("scanline segment {i}"), out);
            }
        }
        (_, body) => word_lines(body, "", out),
    }
}

/// A Ring event as a text line.
fn event_text(e: &super::RingEvent) -> String {
    let at = e.at.map(|a| format!(" at={a}")).unwrap_or_default();
    match e.kind {
        RingEventKind::Reset => format!("reset{at}"),
        RingEventKind::TxReady { port, ready } => {
            format!("txready {port} {}{at}", if ready { "on" } else { "off" })
        }
    }
}

/// Raw words as `word` lines (8 per line), the first one carrying `why` as a comment.
fn word_lines(ws: &[u32], why: &str, out: &mut String) {
    for (i, chunk) in ws.chunks(8).enumerate() {
        out.push_str("word");
        for w in chunk {
            out.push_str(&format!(" {w:#010x}"));
        }
        if i == 0 && !why.is_empty() {
            out.push_str(&format!("    # {why}"));
        }
        out.push('\n');
    }
}

/// Whether `text` parses (as one command in a message to `port`) back to exactly `words`.
fn reparses_to(text: &str, port: Port, words: &[u32], table: &OpcodeTable) -> bool {
    let mut b = StreamBuilder::new(table);
    let opts = MessageOpts {
        port,
        flush: false,
        dest: Some(0),
        limit: Limit::Oversize,
        at: None,
        sent: None,
    };
    if b.begin(opts).is_err() {
        return false;
    }
    let ok = logical_lines(text).all(|(_, toks)| parse_line(&mut b, &toks).is_ok());
    let s = b.finish();
    ok && s.messages.len() == 1 && s.messages[0].body == words
}

fn disassemble_igc(body: &[u32], table: &OpcodeTable, out: &mut String) {
    let mut i = 0;
    while i < body.len() {
        let Some((end, text)) = igc_unit(body, i, table) else {
            word_lines(
                &body[i..],
                "truncated command: the message ends inside it",
                out,
            );
            return;
        };
        match text {
            Ok(text) => {
                out.push_str(&text);
                out.push('\n');
            }
            Err(why) => word_lines(&body[i..end], &why, out),
        }
        i = end;
    }
}

/// The IGC command whose opcode is `body[i]`, delimited as the Stream Parser delimits it:
/// its end, and its text or why it does not decode. `None` when the message ends inside it.
fn igc_unit(
    body: &[u32],
    i: usize,
    table: &OpcodeTable,
) -> Option<(usize, Result<String, String>)> {
    let op = OpcodeWord(*body.get(i)?);
    let start = i + 1 + usize::from(op.long());
    let end = match op.coef_words() {
        Some(n) => start + n,
        None => {
            let r = body.get(start..)?;
            start + r.iter().position(|&w| w & LONG_BIT != 0)? + 1
        }
    };
    let cmd = body.get(i..end)?;
    Some((end, decode_igc(cmd, table)))
}

/// Decode one whole IGC command (its words as the stream parser would delimit them).
fn decode_igc(words: &[u32], table: &OpcodeTable) -> Result<String, String> {
    let op = OpcodeWord(words[0]);
    let Some(spec) = table.by_cmd(op.cmd()) else {
        return Err(format!("CMD {:#04x} is not in the opcode table", op.cmd()));
    };
    let form = if matches!(spec.class, OperandClass::Plain | OperandClass::HardwiredC) {
        Form::Plain
    } else {
        match Form::all_for(spec.class)
            .iter()
            .find(|f| f.modes() == (op.qee_mode(), op.coef_mode()))
        {
            Some(&f) => f,
            None => {
                return Err(format!(
                    "{}: QEEMode {} / CoefMode {} is none of its forms",
                    spec.name,
                    op.qee_mode(),
                    op.coef_mode()
                ))
            }
        }
    };
    let p = if spec.long() {
        words.get(1).copied()
    } else {
        None
    };
    let mut values = Vec::new();
    let mut field = 0usize;
    for a in &spec.args {
        use crate::asm::opcodes::ArgKind;
        let v = match a.kind {
            ArgKind::Fbits => op.fbits(),
            ArgKind::StoreAddr => op.hardwired_addr(),
            ArgKind::Id => p.ok_or_else(|| format!("{}: the ID word is missing", spec.name))?,
            _ => {
                let v = if field == 0 {
                    Some(op.f0())
                } else {
                    p.and_then(|p| p_fields(p).get(field - 1).copied())
                };
                field += 1;
                v.ok_or_else(|| format!("{}: operand fields do not decode", spec.name))?
            }
        };
        values.push(v);
    }
    let coef_start = 1 + usize::from(spec.long());
    let mut coefs = builder::to_macro_order(form, words.get(coef_start..).unwrap_or(&[]));
    if form == Form::Tbl {
        if let Some(last) = coefs.last_mut() {
            *last &= !LONG_BIT;
        }
    }
    values.extend(coefs);
    let text = builder::canonical_text(spec, form, &values);
    if reparses_to(&text, Port::Igc, words, table) {
        Ok(text)
    } else {
        Err(format!(
            "looks like {} but is not what the encoder produces",
            builder::macro_name(spec, form)
        ))
    }
}

fn disassemble_bs(words: &[u32], table: &OpcodeTable, out: &mut String) {
    let mut i = 0;
    while i < words.len() {
        match bs_unit(words, i, table) {
            BsUnit::Bogus => {
                word_lines(&words[i..=i], "bogus BS command", out);
                i += 1;
            }
            BsUnit::Truncated => {
                word_lines(
                    &words[i..],
                    "truncated BS command: the message ends inside it",
                    out,
                );
                return;
            }
            BsUnit::Whole(end, text) => {
                match text {
                    Some(text) => {
                        out.push_str(&text);
                        out.push('\n');
                    }
                    None => word_lines(&words[i..end], "BS command that does not re-encode", out),
                }
                i = end;
            }
        }
    }
}

/// What a BS message holds at one word.
enum BsUnit {
    /// A word that is no BS command.
    Bogus,
    /// A command the message ends inside.
    Truncated,
    /// A whole command: its end, and its text unless it would not re-encode to its words.
    Whole(usize, Option<String>),
}

/// The BS command whose first word is `words[i]` (`words`: the message's words as the BS
/// port reads them, the destination first).
fn bs_unit(words: &[u32], i: usize, table: &OpcodeTable) -> BsUnit {
    let Some(h) = words.get(i).and_then(|&w| bs::Head::decode(w)) else {
        return BsUnit::Bogus;
    };
    let end = i + 1 + h.arg_words();
    let Some(args) = words.get(i + 1..end) else {
        return BsUnit::Truncated;
    };
    let text = match h {
        bs::Head::SendStatus => format!("BS_SENDSTATUS {:#x} {:#x}", args[0], args[1]),
        bs::Head::Transmit {
            sector,
            scanline,
            no_scanlines,
        } => format!(
            "BS_TRANSMIT {sector} {scanline} {no_scanlines} {:#x}",
            args[0]
        ),
        bs::Head::Receive {
            sector,
            scanline,
            no_scanlines,
        } => receive_text(sector, scanline, no_scanlines, args, true),
        _ => h.name().to_string(),
    };
    let ok = reparses_to(&text, Port::Bs, &words[i..end], table);
    BsUnit::Whole(end, ok.then_some(text))
}

/// The text of one command of a message built from text or by [`StreamBuilder`], as
/// [`disassemble`] prints it (`None` if the site names no whole command that decodes).
/// Sites keep no text of their own, so that a long stream costs a few bytes per command.
pub fn command_text(m: &Message, site: &CommandSite, table: &OpcodeTable) -> Option<String> {
    let word = site.word as usize;
    match m.port {
        Port::Igc => {
            let (_, text) = igc_unit(&m.body, word.checked_sub(1)?, table)?;
            text.ok()
        }
        Port::Bs => {
            // The BS port's view: the destination, then the body. One command is at most a
            // BS_RECEIVE of 128 scanline segments.
            let max = 1 + bs::SCANLINE_WORDS * 128;
            let (head, from) = match word {
                0 => (Some(m.dest), 0),
                w => (None, w - 1),
            };
            let rest = m.body.get(from..)?;
            let unit: Vec<u32> = head
                .into_iter()
                .chain(rest.iter().copied())
                .take(max)
                .collect();
            match bs_unit(&unit, 0, table) {
                BsUnit::Whole(_, text) => text,
                _ => None,
            }
        }
    }
}
