//! The IGC microcode assembler (our `asmpp5`): microcode source → an image of store words and
//! the opcode table. The language is described in docs/microcode.md.

use super::expr::truth_table;
use super::opcodes::{ArgKind, ArgSpec, CommandSpec, OpcodeTable, OperandClass};
use pp5_rtl::igc::microinstruction::{
    encode, AddrGen, BExt, BSrc, Base, IOp, Idx, LLoad, Microinstruction, Misc, QeeOp, Seq,
    NUM_OPR, WORDS_PER_UINST,
};
use pp5_rtl::igc::opcode::{CMD_FBITS, CMD_NOOP, HARDWIRED_BASE};
use pp5_rtl::igc::store::{CONTROL_STORE_UINSTS, DISPATCH_BASE, DISPATCH_VALID};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// The standard microcode source, shipped with the simulator (our `igc_microcode.h` source):
/// `sim/microcode/standard.pp5uc` (everything but the QEE) followed by
/// `sim/microcode/qee.pp5uc` (the commands that use `tree`, SUPCFG, SEPCFG).
pub const STANDARD_SOURCE: &str = concat!(
    include_str!("../../microcode/standard.pp5uc"),
    "\n",
    include_str!("../../microcode/qee.pp5uc")
);
/// Commands written with the flow-control unit (`sim/microcode/flow.pp5uc`), assembled after
/// the standard microcode into the default image.
pub const FLOW_SOURCE: &str = include_str!("../../microcode/flow.pp5uc");

/// The image `pp5 run` and `pp5 demo` boot when no `--microcode` is given: the standard
/// microcode plus [`FLOW_SOURCE`].
pub fn default_image() -> McImage {
    let src = format!("{STANDARD_SOURCE}\n{FLOW_SOURCE}");
    assemble(&src, "sim/microcode/standard.pp5uc+qee.pp5uc+flow.pp5uc").unwrap_or_else(|e| {
        unreachable!("the shipped microcode assembles (a unit test checks): {e}")
    })
}

/// File name used in messages about the standard source.
pub const STANDARD_NAME: &str = "sim/microcode/standard.pp5uc+qee.pp5uc";

/// Bit-serial arithmetic for deferred shading (`sim/microcode/shade.pp5uc`): MEMtimesMEM,
/// MEMtimesSCA, MEMmaxZERO, MEMsat. Not in [`default_image`]; [`render_image`] has it.
pub const SHADE_SOURCE: &str = include_str!("../../microcode/shade.pp5uc");

/// The image for rendering and shading studies: the standard microcode, [`FLOW_SOURCE`] and
/// [`SHADE_SOURCE`], in that order, so every command of [`default_image`] keeps its CMD number
/// (the shading commands are numbered after GCDSTEPS) and a stream built for the default image
/// runs unchanged. Everything fits the control store (the shading ladders are most of it), but
/// it boots longer than the default image, which is why `pp5 run` and `pp5 demo` do not load
/// it. Both flow.pp5uc and shade.pp5uc set the flow-control unit's full mode; their loop
/// constants are different ones (0 and 1).
pub fn render_image() -> McImage {
    assemble(&render_source(), RENDER_NAME).unwrap_or_else(|e| {
        unreachable!("the shipped microcode assembles (a unit test checks): {e}")
    })
}

/// The source [`render_image`] assembles, as one text (`pp5 run --microcode` on a file holding
/// it boots the same image).
pub fn render_source() -> String {
    format!("{STANDARD_SOURCE}\n{FLOW_SOURCE}\n{SHADE_SOURCE}")
}

/// File name used in messages about the render image's source.
pub const RENDER_NAME: &str = "sim/microcode/standard.pp5uc+qee.pp5uc+flow.pp5uc+shade.pp5uc";

/// Assemble several sources as one, in order (a user's copy of standard.pp5uc, then
/// qee.pp5uc, flow.pp5uc, ...): an error names the file and line it is in.
pub fn assemble_files(parts: &[(String, String)]) -> Result<McImage, AsmErrors> {
    let mut text = String::new();
    // (first line in `text`, file) of each part.
    let mut starts = Vec::new();
    for (file, src) in parts {
        // The part starts on the line after the newlines so far.
        starts.push((text.matches('\n').count() + 1, file.as_str()));
        text.push_str(src);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    let name = parts
        .iter()
        .map(|(f, _)| f.as_str())
        .collect::<Vec<_>>()
        .join("+");
    assemble(&text, &name).map_err(|AsmErrors(errs)| {
        AsmErrors(
            errs.into_iter()
                .map(|mut e| {
                    if let Some(&(start, file)) = starts.iter().rev().find(|(s, _)| *s <= e.line) {
                        e.line = e.line - start + 1;
                        e.file = file.to_string();
                    }
                    e
                })
                .collect(),
        )
    })
}

/// An assembled microcode image.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct McImage {
    /// Identifies the file format.
    pub format: String,
    /// `(store address, word)` pairs, in the order MCWRITE should send them.
    pub words: Vec<(u32, u32)>,
    /// The commands the image implements (plus the hardwired ones).
    pub table: OpcodeTable,
    /// Label → microinstruction address.
    pub labels: Vec<(String, u32)>,
    /// Number of microinstructions.
    pub uinsts: u32,
}

/// Format tag of image files.
pub const IMAGE_FORMAT: &str = "pp5-microcode-image-v1";

/// An assembly error at a source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub file: String,
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.msg)
    }
}

/// All errors of one assembly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmErrors(pub Vec<AsmError>);

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmErrors {}

/// Assemble the standard microcode.
pub fn standard() -> McImage {
    assemble(STANDARD_SOURCE, STANDARD_NAME)
        .unwrap_or_else(|e| panic!("the standard microcode must assemble:\n{e}"))
}

struct Decl {
    line: usize,
    name: String,
    args: Vec<(String, ArgKind, Option<String>)>,
    class: OperandClass,
    long: bool,
    cmd: Option<u8>,
    entry: String,
}

struct Inst {
    line: usize,
    /// Index of the command whose argument names are in scope.
    scope: Option<usize>,
    tokens: Vec<String>,
}

/// Assemble a microcode source. `file` names it in error messages.
pub fn assemble(src: &str, file: &str) -> Result<McImage, AsmErrors> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut errs = Vec::new();
    let err = |errs: &mut Vec<AsmError>, line: usize, msg: String| {
        errs.push(AsmError {
            file: file.to_string(),
            line,
            msg,
        })
    };
    let mut decls: Vec<Decl> = Vec::new();
    let mut labels: HashMap<String, (u32, usize)> = HashMap::new();
    let mut label_order: Vec<(String, u32)> = Vec::new();
    let mut insts: Vec<Inst> = Vec::new();
    let mut pending_labels: Vec<(String, usize)> = Vec::new();
    // Store words set by the flow-control directives, and the boolean constants.
    let mut fc_words: Vec<(u32, u32)> = Vec::new();
    let mut fc_bools: Option<u32> = None;

    for (ln, raw) in src.lines().enumerate() {
        let line = ln + 1;
        let text = strip_comment(raw).trim();
        if text.is_empty() {
            continue;
        }
        if let Some(rest) = text.strip_prefix(".command") {
            match parse_decl(rest.trim(), line) {
                Ok(d) => decls.push(d),
                Err(m) => err(&mut errs, line, m),
            }
            continue;
        }
        if let Some(d) = super::flow::directive(text) {
            match d {
                Ok(super::flow::Directive::Word(a, v)) => {
                    fc_words.retain(|w| w.0 != a);
                    fc_words.push((a, v));
                }
                Ok(super::flow::Directive::Bool(k, v)) => {
                    let w = fc_bools.get_or_insert(0);
                    *w = (*w & !(1 << k)) | (v as u32) << k;
                }
                Err(m) => err(&mut errs, line, m),
            }
            continue;
        }
        if text.starts_with('.') {
            err(
                &mut errs,
                line,
                format!(
                    "unknown directive `{}`",
                    text.split_whitespace().next().unwrap_or(text)
                ),
            );
            continue;
        }
        let mut body = text;
        // Labels: `name:` prefixes.
        while let Some((head, tail)) = body.split_once(':') {
            let head = head.trim();
            if head.is_empty()
                || !head.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                || head.contains(' ')
            {
                break;
            }
            pending_labels.push((head.to_string(), line));
            body = tail.trim();
        }
        if body.is_empty() {
            continue;
        }
        let addr = insts.len() as u32;
        for (l, lline) in pending_labels.drain(..) {
            if labels.contains_key(&l) {
                err(&mut errs, lline, format!("label `{l}` defined twice"));
            } else {
                labels.insert(l.clone(), (addr, lline));
                label_order.push((l, addr));
            }
        }
        insts.push(Inst {
            line,
            scope: None,
            tokens: body.split_whitespace().map(str::to_string).collect(),
        });
    }
    for (l, lline) in pending_labels {
        err(
            &mut errs,
            lline,
            format!("label `{l}` is not followed by a microinstruction"),
        );
    }
    if insts.len() > CONTROL_STORE_UINSTS {
        err(
            &mut errs,
            insts.last().map_or(0, |i| i.line),
            format!(
                "{} microinstructions do not fit the control store ({CONTROL_STORE_UINSTS})",
                insts.len()
            ),
        );
    }

    // Argument-name scope: a microinstruction belongs to the last command whose entry label
    // is at or before it.
    let mut entries: Vec<(u32, usize)> = Vec::new();
    for (k, d) in decls.iter().enumerate() {
        match labels.get(&d.entry) {
            Some(&(a, _)) => entries.push((a, k)),
            None => err(
                &mut errs,
                d.line,
                format!("entry label `{}` of {} is not defined", d.entry, d.name),
            ),
        }
    }
    entries.sort();
    for (addr, inst) in insts.iter_mut().enumerate() {
        inst.scope = entries
            .iter()
            .rev()
            .find(|(a, _)| *a as usize <= addr)
            .map(|&(_, k)| k);
    }

    // CMD numbers: NOOP and FBITS are fixed by the hardware; the rest in order from 2.
    let mut used: HashMap<u8, String> = HashMap::new();
    let mut table = OpcodeTable {
        commands: OpcodeTable::hardwired(),
    };
    let mut next_cmd = 2u8;
    for d in &decls {
        if table.get(&d.name).is_some() {
            err(
                &mut errs,
                d.line,
                format!(
                    "command `{}` is declared twice or is a hardwired command",
                    d.name
                ),
            );
            continue;
        }
        let cmd = match (d.cmd, d.name.as_str()) {
            (Some(c), _) => c,
            (None, "NOOP") => CMD_NOOP,
            (None, "FBITS") => CMD_FBITS,
            (None, _) => {
                while used.contains_key(&next_cmd) {
                    next_cmd = next_cmd.saturating_add(1);
                }
                next_cmd
            }
        };
        if cmd >= HARDWIRED_BASE {
            err(&mut errs, d.line, format!("{}: CMD {cmd:#04x} is reserved for hardwired commands (≥ {HARDWIRED_BASE:#04x})", d.name));
            continue;
        }
        if let Some(other) = used.get(&cmd) {
            err(
                &mut errs,
                d.line,
                format!("{}: CMD {cmd:#04x} is already used by {other}", d.name),
            );
            continue;
        }
        used.insert(cmd, d.name.clone());
        let names: Vec<&str> = d.args.iter().map(|a| a.0.as_str()).collect();
        let mut args = Vec::new();
        for (n, kind, seg) in &d.args {
            let seg_len = match seg {
                None => None,
                Some(s) => match names.iter().position(|x| x == s) {
                    Some(p) => Some(p),
                    None => {
                        err(
                            &mut errs,
                            d.line,
                            format!("{}: segment length `{s}` is not an argument", d.name),
                        );
                        None
                    }
                },
            };
            args.push(ArgSpec {
                name: n.clone(),
                kind: *kind,
                seg_len,
            });
        }
        let plain = args.iter().filter(|a| a.kind.is_operand()).count();
        if args.iter().any(|a| a.kind == ArgKind::Id) && plain > 1 {
            err(
                &mut errs,
                d.line,
                format!(
                    "{}: an `id` argument fills the P word, so at most one operand argument fits beside it",
                    d.name
                ),
            );
        }
        if plain > NUM_OPR {
            err(
                &mut errs,
                d.line,
                format!(
                    "{}: at most {NUM_OPR} operand arguments fit the opcode and P word",
                    d.name
                ),
            );
        }
        let mut spec = CommandSpec {
            name: d.name.clone(),
            cmd,
            args,
            class: d.class,
            entry: labels.get(&d.entry).map(|l| l.0),
            long: false,
        };
        spec.long = d.long || spec.needs_p();
        table.commands.push(spec);
    }

    // Flow-control constructs, lowered once every label is known.
    let lines: Vec<&[String]> = insts.iter().map(|i| i.tokens.as_slice()).collect();
    let plans = match super::flow::lower(&lines, |l| labels.get(l).map(|x| x.0)) {
        Ok(p) => p,
        Err(es) => {
            for (k, m) in es {
                err(&mut errs, insts[k].line, m);
            }
            vec![None; insts.len()]
        }
    };

    // Microinstructions.
    let mut words = Vec::new();
    for (addr, inst) in insts.iter().enumerate() {
        let scope = inst.scope.map(|k| &decls[k]);
        let built = match &plans[addr] {
            Some(plan) => build_fc(plan, scope),
            None if super::flow::is_construct(&inst.tokens) => continue,
            None => build_inst(&inst.tokens, scope, &labels),
        };
        match built {
            Ok(m) => {
                let w = encode(&m);
                for (k, v) in w.iter().enumerate() {
                    words.push(((addr * WORDS_PER_UINST + k) as u32, *v));
                }
            }
            Err(m) => err(&mut errs, inst.line, m),
        }
    }
    for c in &table.commands {
        if let Some(e) = c.entry {
            words.push((DISPATCH_BASE as u32 + c.cmd as u32, DISPATCH_VALID | e));
        }
    }
    words.extend(fc_words);
    if let Some(b) = fc_bools {
        words.push((super::flow::BOOL_WORD, b));
    }
    if !errs.is_empty() {
        errs.sort_by_key(|e| e.line);
        return Err(AsmErrors(errs));
    }
    Ok(McImage {
        format: IMAGE_FORMAT.to_string(),
        words,
        table,
        labels: label_order,
        uinsts: insts.len() as u32,
    })
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
    let mut args = Vec::new();
    let inner = head[open + 1..close].trim();
    if !inner.is_empty() {
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
    }
    let mut class = OperandClass::Plain;
    let mut long = false;
    let mut cmd = None;
    for t in head[close + 1..].split_whitespace() {
        match t {
            "sca" => class = OperandClass::Scalar,
            "tree" => class = OperandClass::Tree,
            "long" => long = true,
            _ if t.starts_with("cmd=") => {
                cmd = Some(
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
    Ok(Decl {
        line,
        name,
        args,
        class,
        long,
        cmd,
        entry,
    })
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

fn parse_num(s: &str) -> Option<u32> {
    if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// Resolve an operand-register name: `oprK` or an argument of the command in scope.
fn opr(name: &str, scope: Option<&Decl>) -> Result<u8, String> {
    if let Some(k) = name.strip_prefix("opr").and_then(|k| k.parse::<u8>().ok()) {
        if (k as usize) < NUM_OPR {
            return Ok(k);
        }
    }
    let d =
        scope.ok_or_else(|| format!("`{name}`: no command is in scope here; use opr0..opr4"))?;
    let mut k = 0u8;
    for (n, kind, _) in &d.args {
        if !kind.is_operand() {
            continue;
        }
        if n == name {
            return Ok(k);
        }
        k += 1;
    }
    Err(format!(
        "`{name}` is not an argument of {} ({})",
        d.name,
        d.args
            .iter()
            .map(|a| a.0.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Parse `mem[X]` / `sca[X]` address expressions: `base`, `base+i`, `base+ri`, `base+al`,
/// `i`, `al`, where `base` is an argument, `oprN`, `0` or `#N` (the constant address N, held in
/// IMM8: returned as the second value).
fn addr_gen(inner: &str, scope: Option<&Decl>) -> Result<(AddrGen, Option<u8>), String> {
    let (b, idx) = match inner.split_once('+') {
        Some((b, "i")) => (b, Idx::I),
        Some((b, "ri")) => (b, Idx::IRev),
        Some((b, "al")) => (b, Idx::Al),
        Some((_, x)) => return Err(format!("index `{x}` must be `i`, `ri` or `al`")),
        None if inner == "i" => ("0", Idx::I),
        None if inner == "al" => ("0", Idx::Al),
        None => (inner, Idx::None),
    };
    if let Some(n) = b.strip_prefix('#') {
        let v = parse_num(n)
            .filter(|v| *v <= 255)
            .ok_or_else(|| format!("constant address `{b}` must be #0..=#255"))?;
        return Ok((
            AddrGen {
                base: Base::Imm,
                idx,
            },
            Some(v as u8),
        ));
    }
    let base = if b == "0" {
        Base::Abs
    } else {
        Base::Opr(opr(b, scope)?)
    };
    Ok((AddrGen { base, idx }, None))
}

/// The IMM8 value the ports' constant addresses need (all must agree), checked against the
/// other users of IMM8.
fn port_imm(m: &mut Microinstruction, imms: &[u8]) -> Result<(), String> {
    let Some(&v) = imms.first() else {
        return Ok(());
    };
    if imms.iter().any(|&x| x != v) {
        return Err("the ports' constant addresses must be equal (they share IMM8)".into());
    }
    if m.l_load == LLoad::Imm || m.seq == Seq::JOprGt || m.b_off.is_some() {
        return Err("a constant address (#N) shares IMM8 with l=#N, jgt and boff".into());
    }
    m.imm = v;
    Ok(())
}

fn bracket<'a>(v: &'a str, prefix: &str) -> Option<&'a str> {
    v.strip_prefix(prefix)?.strip_prefix('[')?.strip_suffix(']')
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

/// A lowered flow-control construct as a microinstruction.
fn build_fc(plan: &super::flow::FcPlan, scope: Option<&Decl>) -> Result<Microinstruction, String> {
    let off = AddrGen {
        base: Base::Off,
        idx: Idx::None,
    };
    let mut m = Microinstruction {
        a: off,
        b: off,
        w: off,
        fc: Some(plan.instr),
        target: plan.target as u16,
        fc_bool: plan.fc_bool,
        fc_const: plan.fc_const,
        ..Microinstruction::default()
    };
    if let Some(super::flow::Pred::Mem(inner)) = &plan.pred {
        let (a, imm) = addr_gen(inner, scope)?;
        m.a = a;
        port_imm(&mut m, imm.as_slice())?;
    }
    let w = encode(&m);
    pp5_rtl::igc::microinstruction::decode(&w)
        .map_err(|e| format!("illegal flow-control microinstruction: {e}"))?;
    Ok(m)
}

fn build_inst(
    tokens: &[String],
    scope: Option<&Decl>,
    labels: &HashMap<String, (u32, usize)>,
) -> Result<Microinstruction, String> {
    let mut m = Microinstruction::default();
    let off = AddrGen {
        base: Base::Off,
        idx: Idx::None,
    };
    m.a = off;
    m.b = off;
    m.w = off;
    let mut seq_set = false;
    let mut imms: Vec<u8> = Vec::new();
    let mut misc_imm: Option<u8> = None;
    let set_misc = |m: &mut Microinstruction, misc: Misc| -> Result<(), String> {
        if m.misc != Misc::None {
            return Err(format!(
                "second MISC operation {} after {} (one per microinstruction)",
                misc.name(),
                m.misc.name()
            ));
        }
        m.misc = misc;
        Ok(())
    };
    let label = |t: Option<&String>| -> Result<u16, String> {
        let t = t.ok_or("missing jump label")?;
        labels
            .get(t.as_str())
            .map(|l| l.0 as u16)
            .ok_or_else(|| format!("unknown label `{t}`"))
    };
    let mut it = tokens.iter().peekable();
    while let Some(tok) = it.next() {
        let mut set_seq = |m: &mut Microinstruction, s: Seq| -> Result<(), String> {
            if seq_set {
                return Err(format!("second sequencer operation `{tok}`"));
            }
            seq_set = true;
            m.seq = s;
            Ok(())
        };
        match tok.as_str() {
            "next" => set_seq(&mut m, Seq::Next)?,
            "dispatch" => set_seq(&mut m, Seq::Dispatch)?,
            "hang" => set_seq(&mut m, Seq::Hang)?,
            "jump" | "loop" | "loopd" | "jaeo" | "jnaeo" => {
                let s = match tok.as_str() {
                    "jump" => Seq::Jump,
                    "loop" => Seq::Loop,
                    "loopd" => Seq::LoopD,
                    "jaeo" => Seq::JAeo,
                    _ => Seq::JNAeo,
                };
                set_seq(&mut m, s)?;
                m.target = label(it.next())?;
            }
            "jgt" => {
                set_seq(&mut m, Seq::JOprGt)?;
                let x = opr(it.next().ok_or("jgt needs `x y label`")?, scope)?;
                let y = opr(it.next().ok_or("jgt needs `x y label`")?, scope)?;
                m.imm = x | (y << 4);
                m.target = label(it.next())?;
            }
            "i++" => m.i_op = IOp::Inc,
            "bswait" | "vbs" | "pigc" | "sendstatus" => {
                let misc = match tok.as_str() {
                    "bswait" => Misc::BsWait,
                    "vbs" => Misc::Vbs,
                    "pigc" => Misc::Pigc,
                    _ => Misc::SendStatus,
                };
                set_misc(&mut m, misc)?;
            }
            _ => {
                let (k, v) = tok
                    .split_once('=')
                    .ok_or_else(|| format!("unknown microinstruction field `{tok}`"))?;
                match k {
                    "a" => {
                        let inner = bracket(v, "mem").ok_or("port A reads `mem[...]`")?;
                        let (a, imm) = addr_gen(inner, scope)?;
                        m.a = a;
                        imms.extend(imm);
                    }
                    "b" => match v {
                        "0" => m.b_src = BSrc::Zero,
                        "1" => m.b_src = BSrc::One,
                        "enable" => m.b_src = BSrc::Enable,
                        "tree" => m.b_src = BSrc::Tree,
                        _ => {
                            if let Some(inner) = bracket(v, "mem") {
                                m.b_src = BSrc::Mem;
                                let (b, imm) = addr_gen(inner, scope)?;
                                m.b = b;
                                imms.extend(imm);
                            } else if let Some(inner) = bracket(v, "sca") {
                                m.b_src = BSrc::Sca;
                                let (b, imm) = addr_gen(inner, scope)?;
                                m.b = b;
                                imms.extend(imm);
                            } else {
                                return Err(format!(
                                    "port B source `{v}`: mem[..], sca[..], tree, enable, 0 or 1"
                                ));
                            }
                        }
                    },
                    "bext" | "rlen" => {
                        let (mode, reg) = if k == "rlen" {
                            (m.b_ext, v)
                        } else if let Some(r) =
                            v.strip_prefix("zx(").and_then(|r| r.strip_suffix(')'))
                        {
                            (BExt::Zero, r)
                        } else if let Some(r) =
                            v.strip_prefix("sx(").and_then(|r| r.strip_suffix(')'))
                        {
                            (BExt::Sign, r)
                        } else if let Some(r) =
                            v.strip_prefix("azx(").and_then(|r| r.strip_suffix(')'))
                        {
                            (BExt::AZero, r)
                        } else {
                            return Err(format!("`bext={v}`: use zx(len) or sx(len)"));
                        };
                        m.b_ext = mode;
                        m.b_lim = opr(reg, scope)?;
                    }
                    "r" => m.lut_r = truth_table(v, &['a', 'b', 'c'])?,
                    "c" => {
                        m.lut_c = truth_table(v, &['a', 'b', 'c'])?;
                        m.cry_we = true;
                    }
                    "e" => {
                        m.lut_e = truth_table(v, &['e', 'r'])?;
                        m.en_we = true;
                    }
                    "w" | "wall" => {
                        let inner = bracket(v, "mem").ok_or("write port takes `mem[...]`")?;
                        let (w, imm) = addr_gen(inner, scope)?;
                        m.w = w;
                        imms.extend(imm);
                        m.mem_we = true;
                        m.wr_all = k == "wall";
                    }
                    "i" if v == "0" => m.i_op = IOp::Clear,
                    "l" => {
                        m.l_load = if v == "treelen" {
                            LLoad::TreeLen
                        } else if let Some(n) = v.strip_prefix('#') {
                            m.imm = parse_num(n)
                                .filter(|x| *x <= 255)
                                .ok_or_else(|| format!("bad loop count `{v}`"))?
                                as u8;
                            LLoad::Imm
                        } else {
                            LLoad::Opr(opr(v, scope)?)
                        }
                    }
                    "boff" => {
                        let (neg, reg) = match (v.strip_prefix('-'), v.strip_prefix('+')) {
                            (Some(r), _) => (true, r),
                            (_, Some(r)) => (false, r),
                            _ => return Err(format!("`boff={v}`: use -arg or +arg")),
                        };
                        m.b_off = Some((opr(reg, scope)?, neg));
                    }
                    "qee" => {
                        m.qee = match v {
                            "start" => QeeOp::Start,
                            "cfgall" => QeeOp::CfgAll,
                            "cfgone" => QeeOp::CfgOne,
                            _ => return Err(format!("`qee={v}`: start, cfgall or cfgone")),
                        }
                    }
                    "ind" => {
                        let misc = match v {
                            "on" => Misc::IndOn,
                            "off" => Misc::IndOff,
                            _ => return Err(format!("`ind={v}`: on or off")),
                        };
                        set_misc(&mut m, misc)?;
                    }
                    "vbs" => {
                        set_misc(&mut m, Misc::Vbs)?;
                        misc_imm = Some(match v {
                            "now" => 0,
                            "later" => 1,
                            _ => return Err(format!("`vbs={v}`: now or later")),
                        });
                    }
                    "xfer" => {
                        let (store, reg) = if let Some(r) =
                            v.strip_prefix("load(").and_then(|r| r.strip_suffix(')'))
                        {
                            (false, r)
                        } else if let Some(r) =
                            v.strip_prefix("store(").and_then(|r| r.strip_suffix(')'))
                        {
                            (true, r)
                        } else {
                            return Err(format!("`xfer={v}`: load(sector) or store(sector)"));
                        };
                        set_misc(&mut m, Misc::Xfer)?;
                        misc_imm = Some(store as u8 | opr(reg, scope)? << 1);
                    }
                    _ => return Err(format!("unknown microinstruction field `{tok}`")),
                }
            }
        }
    }
    if let Some(v) = misc_imm {
        if m.b_off.is_some() || m.l_load == LLoad::Imm || m.seq == Seq::JOprGt || !imms.is_empty() {
            return Err(format!(
                "{} keeps its operand in IMM8, which l=#N, jgt, boff and #N addresses also use; put them in different microinstructions",
                m.misc.name()
            ));
        }
        m.imm = v;
    }
    port_imm(&mut m, &imms)?;
    if m.b_off.is_some() && (m.l_load == LLoad::Imm || m.seq == Seq::JOprGt) {
        return Err(
            "boff shares IMM8 with l=#N and jgt; use them in different microinstructions".into(),
        );
    }
    // Uses of the index-reversal need B_LIM; check the result decodes.
    let w = encode(&m);
    pp5_rtl::igc::microinstruction::decode(&w)
        .map_err(|e| format!("illegal microinstruction: {e}"))?;
    Ok(m)
}

impl McImage {
    /// Command-stream words that load this image exactly as the seed prescribes
    /// (§III.4.2.5.3): two NOOPs, RMODEON, one MCWRITE per word, NOOP (resets the PC),
    /// RMODEOFF. Returned as message bodies of at most `max_body` words each.
    pub fn boot_messages(&self, max_body: usize) -> Vec<Vec<u32>> {
        use pp5_rtl::igc::opcode::{
            hardwired_addr_bits, CMD_MCWRITE, CMD_RMODEOFF, CMD_RMODEON, COEFMODE_SHIFT,
        };
        let mut cmds: Vec<Vec<u32>> = vec![
            vec![CMD_NOOP as u32],
            vec![CMD_NOOP as u32],
            vec![CMD_RMODEON as u32],
        ];
        for &(a, v) in &self.words {
            cmds.push(vec![
                CMD_MCWRITE as u32 | hardwired_addr_bits(a) | 1 << COEFMODE_SHIFT,
                v,
            ]);
        }
        cmds.push(vec![CMD_NOOP as u32]);
        cmds.push(vec![CMD_RMODEOFF as u32]);
        let mut msgs: Vec<Vec<u32>> = vec![Vec::new()];
        for c in cmds {
            if msgs.last().is_some_and(|m| m.len() + c.len() > max_body) {
                msgs.push(Vec::new());
            }
            if let Some(m) = msgs.last_mut() {
                m.extend(c);
            }
        }
        msgs
    }

    /// Read an image file (JSON) or assemble a source, by content.
    pub fn load(text: &str, file: &str) -> Result<McImage, String> {
        if text.trim_start().starts_with('{') {
            let img: McImage = serde_json::from_str(text)
                .map_err(|e| format!("{file}: not a microcode image: {e}"))?;
            if img.format != IMAGE_FORMAT {
                return Err(format!(
                    "{file}: unknown image format `{}` (expected {IMAGE_FORMAT})",
                    img.format
                ));
            }
            Ok(img)
        } else {
            assemble(text, file).map_err(|e| e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_microcode_assembles() {
        let img = standard();
        assert!(img.table.get("MEMplusMEM").is_some());
        assert_eq!(img.table.get("NOOP").map(|c| c.cmd), Some(CMD_NOOP));
    }

    #[test]
    fn demo_microcode_assembles() {
        let img = default_image();
        assert!(img.table.get("GCDSTEPS").is_some());
        assert_eq!(
            img.table.commands.len(),
            standard().table.commands.len() + 1
        );
    }

    #[test]
    fn several_files_assemble_as_one_and_errors_name_their_file_and_line() {
        let parts = vec![
            ("a.pp5uc".to_string(), STANDARD_SOURCE.to_string()),
            ("b.pp5uc".to_string(), FLOW_SOURCE.to_string()),
        ];
        let img = assemble_files(&parts).expect("assembles");
        assert_eq!(img.table, default_image().table);
        let bad = vec![
            ("a.pp5uc".to_string(), "; one\n; two".to_string()),
            (
                "b.pp5uc".to_string(),
                "; first\nnosuch: r=zork\n".to_string(),
            ),
        ];
        let e = assemble_files(&bad).expect_err("fails").to_string();
        assert!(e.starts_with("b.pp5uc:2:"), "{e}");
    }

    #[test]
    fn render_microcode_assembles() {
        let img = render_image();
        let default = default_image();
        for c in &default.table.commands {
            assert_eq!(
                img.table.get(&c.name).map(|s| s.cmd),
                Some(c.cmd),
                "{}",
                c.name
            );
        }
        for name in ["MEMtimesMEM", "MEMtimesSCA", "MEMmaxZERO", "MEMsat"] {
            assert!(img.table.get(name).is_some(), "{name}");
        }
        assert_eq!(img.table.commands.len(), default.table.commands.len() + 4);
        assert!(img.uinsts as usize <= CONTROL_STORE_UINSTS);
        assert_eq!(
            assemble(&render_source(), "<t>").map(|i| i.words),
            Ok(img.words)
        );
    }

    #[test]
    fn an_immediate_loop_count_is_not_a_comment() {
        let img = assemble(
            ".command A() -> a\na: l=#7 # comment\n dispatch ; c\n",
            "<t>",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let w: Vec<u32> = (0..4).map(|k| img.words[k].1).collect();
        let m = pp5_rtl::igc::microinstruction::decode(&[w[0], w[1], w[2], w[3]]).unwrap();
        assert_eq!((m.l_load, m.imm), (LLoad::Imm, 7));
        assert_eq!(img.uinsts, 2);
    }

    #[test]
    fn constant_addresses_share_imm8() {
        let img = assemble(
            ".command A() -> a\na: a=mem[#40+i] wall=mem[#40+i] r=a i++\n dispatch\n",
            "<t>",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let w: Vec<u32> = (0..4).map(|k| img.words[k].1).collect();
        let m = pp5_rtl::igc::microinstruction::decode(&[w[0], w[1], w[2], w[3]]).unwrap();
        assert_eq!((m.a.base, m.w.base, m.imm), (Base::Imm, Base::Imm, 40));
        for bad in [
            "a=mem[#40] w=mem[#41] r=a",
            "a=mem[#40] l=#3",
            "a=mem[#300]",
        ] {
            let src = format!(".command A() -> a\na: {bad}\n dispatch\n");
            assert!(assemble(&src, "<t>").is_err(), "{bad}");
        }
    }

    #[test]
    fn errors_name_lines() {
        let src = "idle: dispatch\n.command X(dst:addr) -> nowhere\nfoo: a=mem[dst] bogus\n";
        let e = assemble(src, "t.pp5uc").unwrap_err();
        let text = e.to_string();
        assert!(text.contains("t.pp5uc:2:"), "{text}");
        assert!(text.contains("t.pp5uc:3:"), "{text}");
    }
}
