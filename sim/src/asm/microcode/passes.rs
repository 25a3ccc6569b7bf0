//! The assembler's passes after the first ([`super::parse`]): argument-name scopes, the
//! opcode table, the flow-control lowering, the microinstructions, the dispatch table and the
//! flow-control words; then the image.

use super::errors::{AsmErrors, Errs};
use super::fields::{build_fc, build_inst};
use super::image::{McImage, IMAGE_FORMAT};
use super::parse::{self, Decl, Inst, Labels, Scan};
use super::table::opcode_table;
use crate::asm::flow::{self, FcPlan};
use crate::asm::opcodes::OpcodeTable;
use pp5_rtl::igc::microinstruction::{encode, WORDS_PER_UINST};
use pp5_rtl::igc::store::{CONTROL_STORE_UINSTS, DISPATCH_BASE, DISPATCH_VALID};

/// Assemble `src`; `file` names it in errors.
pub(super) fn assemble(src: &str, file: &str) -> Result<McImage, AsmErrors> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut errs = Errs::new(file);
    let mut scan = parse::scan(src, &mut errs);
    check_fits(&scan.insts, &mut errs);
    scopes(&scan.decls, &scan.labels, &mut scan.insts, &mut errs);
    let table = opcode_table(&scan.decls, &scan.labels, &mut errs);
    let plans = lower_flow(&scan.insts, &scan.labels, &mut errs);
    let mut words = encode_insts(&scan, &plans, &mut errs);
    words.extend(dispatch_words(&table));
    words.extend(scan.fc_words.iter().map(|&(a, v, _)| (a, v)));
    if let Some((b, _)) = scan.fc_bools {
        words.push((flow::BOOL_WORD, b));
    }
    errs.finish()?;
    Ok(McImage {
        format: IMAGE_FORMAT.to_string(),
        words,
        table,
        labels: scan.label_order,
        uinsts: scan.insts.len() as u32,
    })
}

/// An error if the microinstructions do not fit the control store.
fn check_fits(insts: &[Inst], errs: &mut Errs) {
    if insts.len() > CONTROL_STORE_UINSTS {
        errs.push(
            insts.last().map_or(0, |i| i.line),
            format!(
                "{} microinstructions do not fit the control store ({CONTROL_STORE_UINSTS})",
                insts.len()
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
}

/// Flow-control constructs, lowered once every label is known: a plan for each construct
/// line (none for any line when a construct has an error).
fn lower_flow(insts: &[Inst], labels: &Labels, errs: &mut Errs) -> Vec<Option<FcPlan>> {
    let lines: Vec<&[String]> = insts.iter().map(|i| i.tokens.as_slice()).collect();
    match flow::lower(&lines, |l| labels.get(l).map(|x| x.0)) {
        Ok(p) => p,
        Err(es) => {
            for (k, m) in es {
                errs.push(insts[k].line, m);
            }
            vec![None; insts.len()]
        }
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
