//! The opcode table from the `.command` declarations: CMD numbers, argument specs and the
//! checks that the operands fit the opcode and P word.

use super::errors::Errs;
use super::parse::{Decl, Labels};
use crate::asm::opcodes::{ArgKind, ArgSpec, CommandSpec, OpcodeTable};
use pp5_rtl::igc::microinstruction::NUM_OPR;
use pp5_rtl::igc::opcode::{CMD_FBITS, CMD_NOOP, HARDWIRED_BASE};
use std::collections::HashMap;

/// The hardwired commands followed by the declared ones. CMD numbers: NOOP and FBITS are
/// fixed by the hardware; the rest in order from 2 unless a declaration gives `cmd=N`.
pub(super) fn opcode_table(decls: &[Decl], labels: &Labels, errs: &mut Errs) -> OpcodeTable {
    let mut used: HashMap<u8, String> = HashMap::new();
    let mut table = OpcodeTable {
        commands: OpcodeTable::hardwired(),
    };
    let mut next_cmd = 2u8;
    for d in decls {
        if table.get(&d.name).is_some() {
            errs.push(
                d.line,
                format!(
                    "command `{}` is declared twice or is a hardwired command",
                    d.name
                ),
            );
            continue;
        }
        let Some(cmd) = cmd_number(d, &used, &mut next_cmd, errs) else {
            continue;
        };
        used.insert(cmd, d.name.clone());
        let args = arg_specs(d, errs);
        check_operands(d, &args, errs);
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
    table
}

/// The CMD number of `d`, or None (with an error) if it is reserved or taken.
fn cmd_number(
    d: &Decl,
    used: &HashMap<u8, String>,
    next_cmd: &mut u8,
    errs: &mut Errs,
) -> Option<u8> {
    let cmd = match (d.cmd, d.name.as_str()) {
        (Some(c), _) => c,
        (None, "NOOP") => CMD_NOOP,
        (None, "FBITS") => CMD_FBITS,
        (None, _) => {
            while used.contains_key(next_cmd) {
                *next_cmd = next_cmd.saturating_add(1);
            }
            *next_cmd
        }
    };
    if cmd >= HARDWIRED_BASE {
        errs.push(
            d.line,
            format!(
                "{}: CMD {cmd:#04x} is reserved for hardwired commands (≥ {HARDWIRED_BASE:#04x})",
                d.name
            ),
        );
        return None;
    }
    if let Some(other) = used.get(&cmd) {
        errs.push(
            d.line,
            format!("{}: CMD {cmd:#04x} is already used by {other}", d.name),
        );
        return None;
    }
    Some(cmd)
}

/// The argument specs of `d`, each segment length resolved to its argument's index.
fn arg_specs(d: &Decl, errs: &mut Errs) -> Vec<ArgSpec> {
    let names: Vec<&str> = d.args.iter().map(|a| a.0.as_str()).collect();
    let mut args = Vec::new();
    for (n, kind, seg) in &d.args {
        let seg_len = match seg {
            None => None,
            Some(s) => match names.iter().position(|x| x == s) {
                Some(p) => Some(p),
                None => {
                    errs.push(
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
    args
}

/// Errors if the operand arguments do not fit the opcode and P word.
fn check_operands(d: &Decl, args: &[ArgSpec], errs: &mut Errs) {
    let plain = args.iter().filter(|a| a.kind.is_operand()).count();
    if args.iter().any(|a| a.kind == ArgKind::Id) && plain > 1 {
        errs.push(
            d.line,
            format!(
                "{}: an `id` argument fills the P word, so at most one operand argument fits beside it",
                d.name
            ),
        );
    }
    if plain > NUM_OPR {
        errs.push(
            d.line,
            format!(
                "{}: at most {NUM_OPR} operand arguments fit the opcode and P word",
                d.name
            ),
        );
    }
}
