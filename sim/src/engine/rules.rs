//! Rule checks: the argument and sequencing rules of the seed that the hardware does not check
//! itself (seed §III.4.2.5.1: "No error checking is done on arguments"), checked as each
//! command is taken. A segment length or address out of range is flagged as an IGC formatting
//! error (status bit 29 and its error message; docs/model-choices.md) and the command still
//! runs as the hardware would run it; a sequencing rule broken (SUPCFG/SEPCFG not followed by
//! two NOOPs, §III.4.2.5.4; a QEE command right after a PIGC, §III.4.2.5.5) is a warning.

use super::observer::{Cx, Observer};
use crate::asm::opcodes::{ArgKind, CommandSpec, OperandClass};
use pp5_rtl::emc_array::MEM_BITS;
use pp5_rtl::igc::IgcEvent;
use pp5_rtl::renderer::BoardEvent;

/// The sequencing state the rules need across commands.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuleCheck {
    /// Commands still owed as NOOPs after a QEE configuration (SUPCFG/SEPCFG).
    cfg_noops_owed: u8,
    /// Commands still to come that must not use the QEE after a PIGC.
    after_pigc: u8,
}

impl Observer for RuleCheck {
    fn event(&mut self, ev: &BoardEvent, cx: &mut Cx) {
        if let BoardEvent::Igc(IgcEvent::Dispatch { opcode, .. }) = ev {
            self.check(*opcode, cx);
        }
    }
}

impl RuleCheck {
    /// Check the command just taken.
    fn check(&mut self, opcode: u32, cx: &mut Cx) {
        let Some(spec) = cx.spec(opcode) else {
            return;
        };
        // The command log (shown the event first) holds the command's name and operands.
        let record = cx.command.filter(|c| c.opcode == opcode);
        let operands = record.map_or_else(|| cx.operands(opcode), |c| c.operands);
        let name = record.map_or(spec.name.as_str(), |c| &c.name);
        let fbits = u32::from(cx.board.igc.fbits);
        let out_of_range = length_rules(spec, name, &operands, fbits);
        self.sequencing(spec, name, cx);
        if !out_of_range.is_empty() {
            cx.flag_format_error = true;
        }
        for msg in out_of_range {
            cx.report(
                "error",
                format!(
                    "IGC formatting error (status bit 29), from the model's command checker: {msg}"
                ),
            );
        }
    }

    /// SUPCFG/SEPCFG must be followed by two NOOPs; the two commands after a PIGC must not
    /// use the QEE.
    fn sequencing(&mut self, spec: &CommandSpec, name: &str, cx: &mut Cx) {
        if self.cfg_noops_owed > 0 && name != "NOOP" {
            cx.report(
                "warning",
                format!(
                    "{name} follows a QEE configuration (SUPCFG/SEPCFG) with {} of the two NOOPs the seed requires missing",
                    self.cfg_noops_owed
                ),
            );
            self.cfg_noops_owed = 0;
        }
        if self.after_pigc > 0 {
            if spec.class == OperandClass::Tree {
                cx.report(
                    "warning",
                    format!(
                        "{name} uses the QEE as one of the two commands right after a PIGC (seed §III.4.2.5.5: they must not, the PIGC's time is unbounded and the QEEs are dynamic); the model computes it anyway"
                    ),
                );
            }
            self.after_pigc -= 1;
        }
        if name == "PIGC" {
            self.after_pigc = 2;
        }
        match name {
            "SUPCFG" | "SEPCFG" => self.cfg_noops_owed = 2,
            "NOOP" => self.cfg_noops_owed = self.cfg_noops_owed.saturating_sub(1),
            _ => {}
        }
    }
}

/// Length rules (seed §III.4.2.5.1): dlen/slen 1..=128, a tree operand's len <= 73 - FBITS,
/// every segment inside the pixel memory. One message per operand that breaks one.
fn length_rules(spec: &CommandSpec, name: &str, operands: &[u32], fbits: u32) -> Vec<String> {
    // The operand arguments in order, each with the operand register it latched (a plain
    // loop: no list built, no adapters; a command taken costs no allocation unless a rule is
    // broken).
    let mut found = Vec::new();
    let mut values = operands.iter();
    for a in &spec.args {
        if !a.kind.is_operand() {
            continue;
        }
        let Some(&v) = values.next() else {
            break;
        };
        match a.kind {
            ArgKind::TreeLen if spec.class == OperandClass::Tree && v > 73 - fbits => {
                found.push(format!(
                    "{name}: {} = {v} exceeds 73 - FBITS = {} (seed: the longest tree operand)",
                    a.name,
                    73 - fbits
                ))
            }
            ArgKind::Len if v == 0 || v > 128 => found.push(format!(
                "{name}: {} = {v} is outside 1..=128 (seed: segment lengths)",
                a.name
            )),
            ArgKind::Addr => {
                let len = a
                    .seg_len
                    .and_then(|k| operand_value(spec, operands, k))
                    .unwrap_or(1);
                if v + len > MEM_BITS as u32 {
                    found.push(format!(
                        "{name}: the segment {} = {v} of {len} bits runs past pixel-memory bit {}",
                        a.name,
                        MEM_BITS - 1
                    ));
                }
            }
            _ => {}
        }
    }
    found
}

/// The value argument `k` of `spec` latched, if it is an operand argument within `operands`.
fn operand_value(spec: &CommandSpec, operands: &[u32], k: usize) -> Option<u32> {
    if !spec.args.get(k)?.kind.is_operand() {
        return None;
    }
    let position = spec.args[..k]
        .iter()
        .filter(|a| a.kind.is_operand())
        .count();
    operands.get(position).copied()
}
