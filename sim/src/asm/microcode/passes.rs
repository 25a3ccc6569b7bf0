//! The assembler's passes after the first ([`super::parse`]): argument-name scopes, the
//! opcode table, the flow-control lowering, the microinstructions, the dispatch table and the
//! flow-control words; then the image and its source map.

use super::errors::{AsmErrors, Errs};
use super::fields::{build_fc, build_inst};
use super::image::{McImage, IMAGE_FORMAT};
use super::parse::{self, Decl, Inst, Labels, Scan};
use super::source_map::{Routines, SourceMap, StoreKind, StoreSource};
use super::table::opcode_table;
use crate::asm::flow::{self, FcPlan};
use crate::asm::opcodes::OpcodeTable;
use pp5_rtl::flow_control::instruction::{AOp, FcOp};
use pp5_rtl::igc::microinstruction::{decode, encode, Microinstruction, Seq, WORDS_PER_UINST};
use pp5_rtl::igc::store::{CONTROL_STORE_UINSTS, DISPATCH_BASE, DISPATCH_VALID, FC_CONST_BASE};

/// Assemble `src`; `file` names it in errors and in the source map.
pub(super) fn assemble(src: &str, file: &str) -> Result<(McImage, SourceMap), AsmErrors> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut errs = Errs::new(file);
    let mut scan = parse::scan(src, &mut errs);
    check_fits(&scan, &mut errs);
    scopes(&scan.decls, &scan.labels, &mut scan.insts, &mut errs);
    let table = opcode_table(&scan.decls, &scan.labels, &mut errs);
    let plans = lower_flow(&scan.insts, &scan.labels, &mut errs);
    check_loop_consts(&scan, &plans, &mut errs);
    let mut words = encode_insts(&scan, &plans, &mut errs);
    check_ends(&scan, &words, &mut errs);
    words.extend(dispatch_words(&table));
    words.extend(scan.fc_words.iter().map(|&(a, v, _)| (a, v)));
    if let Some((b, _)) = scan.fc_bools {
        words.push((flow::BOOL_WORD, b));
    }
    errs.finish()?;
    let map = source_map(&scan, &plans, &table, file);
    let image = McImage {
        format: IMAGE_FORMAT.to_string(),
        words,
        table,
        labels: scan.label_order,
        uinsts: scan.insts.len() as u32,
    };
    Ok((image, map))
}

/// A fatal error, shown first, if the microinstructions do not fit the control store: the
/// lines past it are counted, not checked (so the other errors are those of the lines that
/// fit), and the message says so.
fn check_fits(scan: &parse::Scan, errs: &mut Errs) {
    let (beyond, last_line) = scan.beyond_store;
    if beyond > 0 {
        errs.push_fatal(
            last_line,
            format!(
                "{} microinstructions do not fit the control store ({CONTROL_STORE_UINSTS}); \
                 the {beyond} past it were not checked",
                scan.insts.len() + beyond
            ),
        );
    }
}

/// Argument-name scope: a microinstruction belongs to the last command whose entry label is
/// at or before it.
fn scopes(decls: &[Decl], labels: &Labels, insts: &mut [Inst], errs: &mut Errs) {
    let mut entries: Vec<(u32, usize)> = Vec::new();
    for (k, d) in decls.iter().enumerate() {
        match labels.get(&d.entry) {
            Some(&(a, _)) => entries.push((a, k)),
            None => errs.push(
                d.line,
                format!(
                    "entry label `{}` of {} is not defined{}",
                    d.entry,
                    d.name,
                    crate::suggest::did_you_mean(&d.entry, labels.keys().map(String::as_str))
                ),
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
}

/// Flow-control constructs, lowered once every label is known: a plan for each construct
/// line (none for any line when a construct has an error).
fn lower_flow(insts: &[Inst], labels: &Labels, errs: &mut Errs) -> Vec<Option<FcPlan>> {
    let lines: Vec<&[String]> = insts.iter().map(|i| i.tokens.as_slice()).collect();
    match flow::lower(&lines, |k| insts[k].line, |l| labels.get(l).map(|x| x.0)) {
        Ok(p) => p,
        Err(es) => {
            for (k, m) in es {
                errs.push(insts[k].line, m);
            }
            vec![None; insts.len()]
        }
    }
}

/// An error at every counted LOOP/REP whose loop constant no `.fcconst` sets: its count
/// would be the store's 0, and the loop would skip its body without a word.
fn check_loop_consts(scan: &Scan, plans: &[Option<FcPlan>], errs: &mut Errs) {
    let set = |k: u8| {
        let a = FC_CONST_BASE as u32 + k as u32;
        scan.fc_words.iter().any(|w| w.0 == a)
    };
    for (inst, plan) in scan.insts.iter().zip(plans) {
        let Some(p) = plan else { continue };
        if matches!(p.instr.op, FcOp::Loop | FcOp::Rep) && !p.instr.uncounted && !set(p.fc_const) {
            errs.push(
                inst.line,
                format!(
                    "{} uses loop constant {k}, which no `.fcconst {k} count=...` sets \
                     (its count would be 0: the loop would never run its body)",
                    inst.tokens.join(" "),
                    k = p.fc_const
                ),
            );
        }
    }
}

/// An error where the code runs off what it assembled: a last microinstruction that can go
/// on to the next address (no source sets it: the IGC would run the empty store, PC 2047
/// then PC 0, as NOPs).
fn check_ends(scan: &Scan, words: &[(u32, u32)], errs: &mut Errs) {
    let n = scan.insts.len();
    if n == 0 || n >= CONTROL_STORE_UINSTS {
        return;
    }
    let last = (n - 1) as u32;
    let mut w = [0u32; WORDS_PER_UINST];
    let mut encoded = false;
    for &(a, v) in words {
        if a / WORDS_PER_UINST as u32 == last {
            w[a as usize % WORDS_PER_UINST] = v;
            encoded = true;
        }
    }
    let inst = &scan.insts[n - 1];
    // (One that did not encode has its error already.)
    if encoded && decode(&w).is_ok_and(|m| falls_through(&m)) {
        errs.push(
            inst.line,
            format!(
                "the last microinstruction (`{}`, address {last}) can go on to address {n}, \
                 which no source sets: end the code with `dispatch`, a jump or a RET",
                inst.tokens.join(" ")
            ),
        );
    }
}

/// Whether a microinstruction can go on to the next address: a sequencer operation other
/// than JUMP, DISPATCH, LOOPD or HANG, or a flow-control instruction other than an
/// unconditional jump (JMP, RET, END_OF_PROGRAM; a CALL returns to the next address).
fn falls_through(m: &Microinstruction) -> bool {
    match m.fc {
        Some(fc) => !(fc.op == FcOp::Jump && fc.jump_func == 0xff && fc.a_op != AOp::Push),
        None => !matches!(m.seq, Seq::Jump | Seq::Dispatch | Seq::LoopD | Seq::Hang),
    }
}

/// The store words of the microinstructions.
fn encode_insts(scan: &Scan, plans: &[Option<FcPlan>], errs: &mut Errs) -> Vec<(u32, u32)> {
    let mut words = Vec::new();
    for (addr, inst) in scan.insts.iter().enumerate() {
        let scope = inst.scope.map(|k| &scan.decls[k]);
        let built = match &plans[addr] {
            Some(plan) => build_fc(plan, scope),
            None if flow::is_construct(&inst.tokens) => continue,
            None => build_inst(&inst.tokens, scope, &scan.labels),
        };
        match built {
            Ok(m) => {
                let w = encode(&m);
                for (k, v) in w.iter().enumerate() {
                    words.push(((addr * WORDS_PER_UINST + k) as u32, *v));
                }
            }
            // Under a label defined twice the argument names belong to a routine that is
            // not there: the duplicate's error says what is wrong.
            Err(m) if inst.shadowed && m.contains("is not an argument of") => {}
            Err(m) => errs.push(inst.line, m),
        }
    }
    words
}

/// The dispatch table: each command with an entry, by CMD number.
fn dispatch_words(table: &OpcodeTable) -> impl Iterator<Item = (u32, u32)> + '_ {
    table.commands.iter().filter_map(|c| {
        c.entry
            .map(|e| (DISPATCH_BASE as u32 + c.cmd as u32, DISPATCH_VALID | e))
    })
}

/// The source of every store word of an image that assembled, in the order of its words.
fn source_map(scan: &Scan, plans: &[Option<FcPlan>], table: &OpcodeTable, file: &str) -> SourceMap {
    let entry = |d: &Decl| scan.labels.get(&d.entry).map(|l| l.0);
    let cmd_entries: Vec<(u32, &str)> = scan
        .decls
        .iter()
        .filter_map(|d| Some((entry(d)?, d.name.as_str())))
        .collect();
    let routines = Routines::new(&cmd_entries, &scan.label_order);
    let source = |addr: u32, kind, line, (routine, offset)| StoreSource {
        addr,
        kind,
        file: file.to_string(),
        line,
        routine,
        offset,
        construct: false,
    };
    let mut entries = Vec::new();
    for (k, inst) in scan.insts.iter().enumerate() {
        let uinst = k as u32;
        for word in 0..WORDS_PER_UINST as u8 {
            let kind = StoreKind::Uinst { uinst, word };
            let addr = uinst * WORDS_PER_UINST as u32 + word as u32;
            entries.push(StoreSource {
                construct: plans[k].is_some(),
                ..source(addr, kind, inst.line, routines.of(uinst))
            });
        }
    }
    for (addr, _) in dispatch_words(table) {
        let cmd = addr - DISPATCH_BASE as u32;
        let spec = table.commands.iter().find(|c| c.cmd as u32 == cmd);
        let decl = spec.and_then(|c| scan.decls.iter().find(|d| d.name == c.name));
        let line = decl.map_or(0, |d| d.line);
        let routine = spec.map(|c| c.name.clone());
        entries.push(source(addr, StoreKind::Dispatch, line, (routine, 0)));
    }
    for &(addr, _, line) in &scan.fc_words {
        entries.push(source(addr, StoreKind::FlowControl, line, (None, 0)));
    }
    if let Some((_, line)) = scan.fc_bools {
        entries.push(source(
            flow::BOOL_WORD,
            StoreKind::FlowControl,
            line,
            (None, 0),
        ));
    }
    SourceMap { entries }
}

#[cfg(test)]
mod tests {
    use super::super::{assemble, assemble_files, default_parts, AsmErrors};

    /// The shipped sources and one more file `x.pp5uc` holding `extra`, assembled together.
    fn with_shipped(extra: &str) -> Result<(), AsmErrors> {
        let mut parts = default_parts();
        parts.push(("x.pp5uc".into(), extra.into()));
        assemble_files(&parts).map(|_| ())
    }

    /// A later file may not silently change an earlier one's loop constants or mode (issue
    /// 37 item 1: flow-control.md's COUNT example's `.fcconst 0` after the shipped sources
    /// made GCDSTEPS wrong without a word).
    #[test]
    fn a_flow_control_word_set_again_to_another_value_names_both_lines() {
        let e = with_shipped(".fcconst 0 count=3 init=0 step=1\n").unwrap_err();
        let text = e.to_string();
        assert_eq!(e.errors.len(), 1, "{text}");
        assert!(
            text.starts_with("x.pp5uc:1: loop constant 0 is set again"),
            "{text}"
        );
        assert!(
            text.ends_with("\nflow.pp5uc:6: note: first set here"),
            "{text}"
        );
        let e = with_shipped(".fcmode partial\n").unwrap_err().to_string();
        assert!(e.starts_with("x.pp5uc:1: the flow-control mode"), "{e}");
        assert!(e.contains("flow.pp5uc:5: note: first set here"), "{e}");
        let e = assemble(".fcbool 3 1\n.fcbool 3 0\nx: dispatch\n", "b.pp5uc").unwrap_err();
        assert!(
            e.to_string().starts_with("b.pp5uc:2: boolean constant 3"),
            "{e}"
        );
        // The same value again is no clash (shade.pp5uc sets `.fcmode full` as flow.pp5uc).
        with_shipped(".fcmode full\n.fcconst 0 count=255\n.fcbool 2 1\n.fcbool 2 1\n")
            .expect("the same values again assemble");
    }

    /// `LOOP 9` with no `.fcconst 9` would run with count 0 and skip its body (issue 37 item 1).
    #[test]
    fn a_counted_loop_needs_its_constant_set() {
        let body = ".command F() -> f\nidle: dispatch\nf: LOOP 9\n e=1\n ENDLOOP\n dispatch\n";
        let e = assemble(body, "l.pp5uc").unwrap_err().to_string();
        assert!(
            e.starts_with("l.pp5uc:3: LOOP 9 uses loop constant 9, which no `.fcconst 9"),
            "{e}"
        );
        assemble(&format!(".fcconst 9 count=opr0\n{body}"), "l.pp5uc")
            .expect("a constant set from an operand is set");
        let rep = body.replace("LOOP 9", "REP 4").replace("ENDLOOP", "ENDREP");
        let e = assemble(&rep, "r.pp5uc").unwrap_err().to_string();
        assert!(e.contains("REP 4 uses loop constant 4"), "{e}");
        // A DX10 loop has no constant.
        let dx10 = body
            .replace("LOOP 9", "LOOP_START_DX10")
            .replace("ENDLOOP", "LOOP_END");
        let dx10 = dx10.replace(" e=1\n", " e=1\n LOOP_BREAK\n");
        assemble(&dx10, "d.pp5uc").expect("a DX10 loop needs no constant");
    }

    /// Code that can run past its last microinstruction into the empty store is refused
    /// (issue 37 item 2); code that ends in a dispatch, a jump, a RET or a HANG is not.
    #[test]
    fn the_last_microinstruction_may_not_run_off_the_end() {
        let head = ".command F() -> f\nidle: dispatch\nf: e=1\n";
        for (last, off) in [
            ("e=0", true),
            ("e=0 loop f", true),
            ("e=0 jaeo f", true),
            ("e=0 dispatch", false),
            ("e=0 jump f", false),
            ("e=0 loopd f", false),
            ("hang", false),
            ("RET", false),
            ("JMP f", false),
        ] {
            let r = assemble(&format!("{head}   {last}\n"), "e.pp5uc");
            match (r, off) {
                (Ok(_), false) => {}
                (Err(e), true) => {
                    let e = e.to_string();
                    assert!(
                        e.starts_with("e.pp5uc:4: the last microinstruction")
                            && e.contains("can go on to address 3, which no source sets"),
                        "{last}: {e}"
                    );
                }
                (r, _) => panic!("{last}: {:?}", r.map(|_| ())),
            }
        }
        // A CALL returns to the address after it.
        let call = ".command F() -> f\nidle: dispatch\ns: RET\nf: CALL s\n";
        let e = assemble(call, "c.pp5uc").unwrap_err().to_string();
        assert!(e.contains("can go on to address 3"), "{e}");
        // A last line that does not encode has its own error only.
        let e = assemble(&format!("{head}   e=0 bogus=1\n"), "e.pp5uc").unwrap_err();
        assert_eq!(e.errors.len(), 1, "{e}");
    }

    /// The error that makes the rest moot comes first, and says the lines past the store were
    /// not checked (issue 38 item 8: it hid among 1,949 others, counted the same for 3,000
    /// and 3,000,000 bad lines).
    #[test]
    fn code_past_the_control_store_is_the_first_error_and_says_what_was_not_checked() {
        for n in [3000, 30_000] {
            let e = assemble(&"bogus\n".repeat(n), "big.pp5uc").unwrap_err();
            assert_eq!(
                e.errors[0].to_string(),
                format!(
                    "big.pp5uc:{n}: {n} microinstructions do not fit the control store (2048); \
                     the {} past it were not checked",
                    n - 2048
                )
            );
            assert_eq!(e.errors[1].line, 1, "{e}");
            // The checked lines' errors are counted exactly: 2048 bad lines, 100 kept.
            assert_eq!(e.errors.len() - 1 + e.more, 2048, "{n}");
        }
    }

    /// Re-declaring a shipped label gives that error alone, not argument-name errors from
    /// the routine the label's first definition starts (issue 37 item 9).
    #[test]
    fn a_shipped_label_declared_again_has_no_follow_on_errors() {
        let mine = ".command MYCLR(dst:addr(dlen), dlen:len) -> clear\n\
                    clear:  i=0 l=dlen\n\
                    \x20       r=0 w=mem[dst+i] i++ loop clear\n\
                    \x20       dispatch\n";
        let e = with_shipped(mine).unwrap_err();
        let text = e.to_string();
        assert_eq!(e.errors.len(), 1, "{text}");
        assert!(
            text.starts_with("x.pp5uc:2: label `clear` defined twice\n"),
            "{text}"
        );
        assert!(text.contains("standard.pp5uc:"), "{text}");
    }

    /// A label defined twice points at its first definition (issue 37 item 9).
    #[test]
    fn a_label_defined_twice_points_at_the_first() {
        let e = assemble("a: dispatch\nb: dispatch\na: dispatch\n", "t.pp5uc").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.pp5uc:3: label `a` defined twice\n  | a: dispatch\n  | ^\n\
             t.pp5uc:1: note: first defined here"
        );
    }

    /// An error shows its line with a caret under the token it is about (issue 37 item 9).
    #[test]
    fn an_error_marks_its_token_with_a_caret() {
        let src = "a:  r=0 w=mem[0]  bogus=1 dispatch\n";
        let e = assemble(src, "c.pp5uc").unwrap_err();
        let at = e.errors[0].at.as_ref().expect("a caret");
        assert_eq!((at.column, at.len), (19, 7), "{e}");
        let text = e.to_string();
        assert!(
            text.contains(
                "\n  | a:  r=0 w=mem[0]  bogus=1 dispatch\n  |                   ^^^^^^^"
            ),
            "{text}"
        );
    }
}

#[cfg(test)]
mod suggestions {
    use super::super::assemble;

    /// A mistyped label, entry label, field or keyword names the near one (issue 37 item 9).
    #[test]
    fn mistyped_names_get_a_did_you_mean() {
        let err = |src: &str| assemble(src, "d.pp5uc").unwrap_err().to_string();
        let e = err("idle: dispatch\nloop_top: e=1 jump loop_tpo\n");
        assert!(
            e.contains("unknown label `loop_tpo` (did you mean `loop_top`?)"),
            "{e}"
        );
        let e = err(".command F() -> fooo\nidle: dispatch\nfoo: dispatch\n");
        assert!(
            e.contains("entry label `fooo` of F is not defined (did you mean `foo`?)"),
            "{e}"
        );
        let e = err("idle: dispach\n");
        assert!(e.contains("`dispach` (did you mean `dispatch`?)"), "{e}");
        let e = err("idle: wal=mem[#3] dispatch\n");
        assert!(
            e.contains("`wal=mem[#3]` (did you mean `wall=...`?)"),
            "{e}"
        );
        // Nothing near: no guess.
        let e = err("idle: zzzzzz dispatch\n");
        assert!(!e.contains("did you mean"), "{e}");
    }
}
