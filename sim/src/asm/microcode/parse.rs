//! The assembler's first pass: source lines → command declarations, labels, microinstruction
//! lines and the flow-control directives' store words, with the errors of each line.

use super::errors::Errs;
use crate::asm::flow::{self, Directive};
use crate::asm::opcodes::{ArgKind, OperandClass};
use pp5_rtl::igc::store::CONTROL_STORE_UINSTS;
use std::collections::HashMap;

/// A `.command` declaration.
pub(super) struct Decl {
    pub line: usize,
    pub name: String,
    /// `(name, kind, segment-length argument)` of each argument.
    pub args: Vec<(String, ArgKind, Option<String>)>,
    pub class: OperandClass,
    pub long: bool,
    pub cmd: Option<u8>,
    pub entry: String,
}

/// A microinstruction line.
pub(super) struct Inst {
    pub line: usize,
    /// Index of the command whose argument names are in scope.
    pub scope: Option<usize>,
    pub tokens: Vec<String>,
    /// The nearest label before it was defined twice (refused): the routine it meant to
    /// start is not where its command's entry points, so its argument names cannot be
    /// checked (no follow-on errors besides the duplicate's own).
    pub shadowed: bool,
}

/// Label → (microinstruction address, source line).
pub(super) type Labels = HashMap<String, (u32, usize)>;

/// What the first pass found.
#[derive(Default)]
pub(super) struct Scan {
    pub decls: Vec<Decl>,
    pub labels: Labels,
    /// Labels in the order they were defined, with their addresses.
    pub label_order: Vec<(String, u32)>,
    pub insts: Vec<Inst>,
    /// `(store address, word, line)` set by the flow-control directives: each word is set
    /// once (again with the same value is allowed, another value is an error naming the
    /// first line: the words are image-wide, so one source file must not silently change
    /// another's).
    pub fc_words: Vec<(u32, u32, usize)>,
    /// The boolean constants' word and the line of the last `.fcbool`, if any.
    pub fc_bools: Option<(u32, usize)>,
    /// The line that set each boolean constant, with its value.
    fc_bool_lines: [Option<(bool, usize)>; 32],
    /// Labels waiting for their microinstruction.
    pending_labels: Vec<(String, usize)>,
    /// The last label defined was a duplicate ([`Inst::shadowed`]).
    shadowed: bool,
    /// Microinstructions past the control store: counted with the line of the last, not kept
    /// (nor checked), so a long file costs bounded memory.
    pub beyond_store: (usize, usize),
}

/// Scan every line of `src`.
pub(super) fn scan(src: &str, errs: &mut Errs) -> Scan {
    let mut s = Scan::default();
    for (ln, raw) in src.lines().enumerate() {
        let line = ln + 1;
        let text = strip_comment(raw).trim();
        if !text.is_empty() {
            s.line(line, text, errs);
        }
    }
    for (l, lline) in std::mem::take(&mut s.pending_labels) {
        errs.push(
            lline,
            format!("label `{l}` is not followed by a microinstruction"),
        );
    }
    s
}

impl Scan {
    /// One non-empty line without its comment.
    fn line(&mut self, line: usize, text: &str, errs: &mut Errs) {
        if let Some(rest) = text.strip_prefix(".command") {
            match parse_decl(rest.trim(), line) {
                Ok(d) => self.decls.push(d),
                Err(m) => errs.push(line, m),
            }
            return;
        }
        if let Some(d) = flow::directive(text) {
            match d {
                Ok(d) => self.directive(d, text, line, errs),
                Err(m) => errs.push(line, m),
            }
            return;
        }
        if text.starts_with('.') {
            errs.push(
                line,
                format!(
                    "unknown directive `{}`",
                    text.split_whitespace().next().unwrap_or(text)
                ),
            );
            return;
        }
        let body = self.take_labels(text, line);
        if !body.is_empty() {
            self.inst(body, line, errs);
        }
    }

    /// A flow-control directive's store word or boolean constant. Setting one again to
    /// another value is an error naming the first line (they are image-wide: a later source
    /// file would change an earlier one's loops).
    fn directive(&mut self, d: Directive, text: &str, line: usize, errs: &mut Errs) {
        let what = || {
            let mut t = text.split_whitespace();
            let d = t.next().unwrap_or_default();
            let k = t.next().unwrap_or_default();
            match d {
                ".fcmode" => "the flow-control mode (.fcmode) is set again to another value; \
                              it is one for the whole image: every source must agree"
                    .to_string(),
                ".fcconst" => format!(
                    "loop constant {k} is set again to another value; it is one for the \
                     whole image (every source file's LOOP {k} uses it): give this loop a \
                     constant of its own"
                ),
                _ => format!(
                    "boolean constant {k} is set again to another value; it is one for the \
                     whole image (every source file's `bool={k}` reads it): use a constant of \
                     its own"
                ),
            }
        };
        let clash =
            |first: usize, errs: &mut Errs| errs.push_noted(line, what(), first, "first set here");
        match d {
            Directive::Word(a, v) => match self.fc_words.iter().find(|w| w.0 == a) {
                Some(&(_, old, _)) if old == v => {}
                Some(&(_, _, first)) => clash(first, errs),
                None => self.fc_words.push((a, v, line)),
            },
            Directive::Bool(k, v) => match self.fc_bool_lines[k as usize] {
                Some((old, _)) if old == v => {}
                Some((_, first)) => clash(first, errs),
                None => {
                    self.fc_bool_lines[k as usize] = Some((v, line));
                    let (w, _) = self.fc_bools.unwrap_or((0, line));
                    self.fc_bools = Some(((w & !(1 << k)) | (v as u32) << k, line));
                }
            },
        }
    }

    /// Take the `name:` prefixes of a line as pending labels; returns the rest.
    fn take_labels<'t>(&mut self, text: &'t str, line: usize) -> &'t str {
        let mut body = text;
        while let Some((head, tail)) = body.split_once(':') {
            let head = head.trim();
            if head.is_empty()
                || !head.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                || head.contains(' ')
            {
                break;
            }
            self.pending_labels.push((head.to_string(), line));
            body = tail.trim();
        }
        body
    }

    /// A microinstruction line: the pending labels get its address.
    fn inst(&mut self, body: &str, line: usize, errs: &mut Errs) {
        let addr = (self.insts.len() + self.beyond_store.0) as u32;
        for (l, lline) in self.pending_labels.drain(..) {
            self.shadowed = self.labels.contains_key(&l);
            if let Some(&(_, first)) = self.labels.get(&l) {
                errs.push_noted(
                    lline,
                    format!("label `{l}` defined twice"),
                    first,
                    "first defined here",
                );
            } else {
                self.labels.insert(l.clone(), (addr, lline));
                self.label_order.push((l, addr));
            }
        }
        if self.insts.len() >= CONTROL_STORE_UINSTS {
            self.beyond_store = (self.beyond_store.0 + 1, line);
            return;
        }
        self.insts.push(Inst {
            line,
            scope: None,
            tokens: body.split_whitespace().map(str::to_string).collect(),
            shadowed: self.shadowed,
        });
    }
}

fn parse_kind(s: &str) -> Option<ArgKind> {
    Some(match s {
        "addr" => ArgKind::Addr,
        "len" => ArgKind::Len,
        "treelen" => ArgKind::TreeLen,
        "count" => ArgKind::Count,
        "fbits" => ArgKind::Fbits,
        "id" => ArgKind::Id,
        "sector" => ArgKind::Sector,
        _ => return None,
    })
}

/// `.command NAME(arg:kind[(seg)], ...) [sca|tree] [long] [cmd=N] -> label`
fn parse_decl(s: &str, line: usize) -> Result<Decl, String> {
    let (head, entry) = s
        .split_once("->")
        .ok_or("a .command needs `-> entry_label`")?;
    let entry = entry.trim().to_string();
    let open = head
        .find('(')
        .ok_or("a .command needs an argument list `(...)`")?;
    let close = head.rfind(')').ok_or("missing `)` in .command")?;
    if close < open {
        return Err("misplaced `)` in .command".into());
    }
    let name = head[..open].trim().to_string();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("bad command name `{name}`"));
    }
    let args = parse_args(head[open + 1..close].trim())?;
    let mut d = Decl {
        line,
        name,
        args,
        class: OperandClass::Plain,
        long: false,
        cmd: None,
        entry,
    };
    for t in head[close + 1..].split_whitespace() {
        match t {
            "sca" => d.class = OperandClass::Scalar,
            "tree" => d.class = OperandClass::Tree,
            "long" => d.long = true,
            _ if t.starts_with("cmd=") => {
                d.cmd = Some(
                    parse_num(&t[4..])
                        .filter(|v| *v <= 255)
                        .ok_or_else(|| format!("bad `{t}`"))? as u8,
                )
            }
            _ => {
                return Err(format!(
                    "unknown .command attribute `{t}` (sca, tree, long, cmd=N)"
                ))
            }
        }
    }
    Ok(d)
}

/// The argument list of a `.command`, between its parentheses.
fn parse_args(inner: &str) -> Result<Vec<(String, ArgKind, Option<String>)>, String> {
    let mut args = Vec::new();
    if inner.is_empty() {
        return Ok(args);
    }
    for a in split_top(inner) {
        let a = a.trim();
        let (n, k) = a
            .split_once(':')
            .ok_or_else(|| format!("argument `{a}` needs a kind, e.g. `dst:addr(dlen)`"))?;
        let (kind, seg) = match k.split_once('(') {
            Some((kk, rest)) => (kk, Some(rest.trim_end_matches(')').trim().to_string())),
            None => (k, None),
        };
        let kind = parse_kind(kind.trim()).ok_or_else(|| {
            format!(
                "unknown argument kind `{}` (addr, len, treelen, count, fbits, sector, id)",
                kind.trim()
            )
        })?;
        args.push((n.trim().to_string(), kind, seg));
    }
    Ok(args)
}

fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A number, decimal or `0x` hexadecimal.
pub(super) fn parse_num(s: &str) -> Option<u32> {
    if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// The line without its comment: from `;`, or from a `#` that starts a word (so the
/// immediate in `l=#8` is not a comment).
fn strip_comment(line: &str) -> &str {
    let b = line.as_bytes();
    let end = (0..b.len())
        .find(|&i| b[i] == b';' || (b[i] == b'#' && (i == 0 || b[i - 1].is_ascii_whitespace())))
        .unwrap_or(b.len());
    &line[..end]
}
