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
use pp5_rtl::igc::microinstruction::{encode, WORDS_PER_UINST};
use pp5_rtl::igc::store::{CONTROL_STORE_UINSTS, DISPATCH_BASE, DISPATCH_VALID};

/// Assemble `src`; `file` names it in errors and in the source map.
pub(super) fn assemble(src: &str, file: &str) -> Result<(McImage, SourceMap), AsmErrors> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut errs = Errs::new(file);
    let mut scan = parse::scan(src, &mut errs);
    check_fits(&scan, &mut errs);
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

/// An error if the microinstructions do not fit the control store.
fn check_fits(scan: &parse::Scan, errs: &mut Errs) {
    let (beyond, last_line) = scan.beyond_store;
    if beyond > 0 {
        errs.push(
            last_line,
            format!(
                "{} microinstructions do not fit the control store ({CONTROL_STORE_UINSTS})",
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
