//! The board's events told to the user: every error the hardware flags (its status bit and
//! what went wrong), the IGC's faults and flow-control errors, and the warnings and notes of
//! events a user should know of (a transfer conflict, a status message lost, a discarded
//! flush-able message, VBS while a VBSlater is pending). One message per event, in the
//! order the board reported them.

use super::observer::{Cx, Observer};
use pp5_rtl::backing_store::transfer::XferDir;
use pp5_rtl::bs_port::BsEvent;
use pp5_rtl::igc::IgcEvent;
use pp5_rtl::igc_port::parser::ParserEvent;
use pp5_rtl::renderer::BoardEvent;
use pp5_rtl::status::IGC_TIMEOUT_RING_CYCLES;

/// Tells the board's events as diagnostics.
#[derive(Clone, Copy, Debug, Default)]
pub struct BoardEvents {
    /// The command (its record index) whose transfer conflict was reported: one report per
    /// command.
    conflict_reported: Option<u64>,
}

impl Observer for BoardEvents {
    fn event(&mut self, ev: &BoardEvent, cx: &mut Cx) {
        match ev {
            BoardEvent::Igc(e) => self.igc_event(e, cx),
            BoardEvent::Parser(ParserEvent::FormatError(m)) => {
                cx.report("error", format!("IGC formatting error (status bit 29): {m}"))
            }
            BoardEvent::Parser(ParserEvent::Flushed { dest }) => cx.report(
                "note",
                format!("flush-able message (destination {dest:#x}) discarded: AEO was asserted"),
            ),
            BoardEvent::RxFifoOverwritten => cx.report(
                "error",
                "IGC RxFIFO overwritten (status bit 27): a Ring word was lost; is a message longer than 1024 words?".into(),
            ),
            BoardEvent::IgcTimeout => {
                let igc = &cx.board.igc;
                let cmd = cx.command.map_or(String::new(), |c| format!(" of {}", c.name));
                let at = cx.names.name(u32::from(igc.pc));
                cx.report(
                    "error",
                    format!(
                        "IGC timeout (status bit 30): a command waited {IGC_TIMEOUT_RING_CYCLES} 20 MHz cycles; the IGC is at {at}{cmd} ({:?}){}",
                        igc.state,
                        if igc.state == pp5_rtl::igc::IgcState::Run {
                            ": a microcode loop that does not end?"
                        } else {
                            ""
                        }
                    ),
                )
            }
            BoardEvent::Bs(BsEvent::FormatError(m)) => {
                cx.report("error", format!("BS port formatting error (status bit 28): {m}"))
            }
            BoardEvent::BsRxFifoOverwritten => cx.report(
                "error",
                "BS RxFIFO overwritten (status bit 26): a Ring word was lost; an over-long BS message must hold only BS_RECEIVE (and BS_VIGC) commands, seed §III.4.1-3".into(),
            ),
            BoardEvent::SemOverflow { bs } => cx.report(
                "error",
                format!(
                    "{} semaphore overflowed (status bit {}): the counter wrapped to 0",
                    if *bs { "BS" } else { "IGC" },
                    if *bs { 24 } else { 25 }
                ),
            ),
            BoardEvent::VbsWhilePending { later } => cx.report(
                "warning",
                format!(
                    "{} issued while a VBSlater is pending (seed §III.4.2.5.5: no VBS or VBSlater until the transfer completes); {}",
                    if *later { "VBSlater" } else { "VBS" },
                    if *later { "the two merge: one V is lost" } else { "it increments the BS semaphore now, before the pending one" }
                ),
            ),
            BoardEvent::Bs(BsEvent::Command { .. })
            | BoardEvent::XferStart { .. }
            | BoardEvent::XferDone { .. }
            | BoardEvent::StatusLatched => {}
        }
    }
}

impl BoardEvents {
    fn igc_event(&mut self, ev: &IgcEvent, cx: &mut Cx) {
        match ev {
            IgcEvent::Dispatch { .. } | IgcEvent::Control { .. } => {}
            IgcEvent::FormatError(m) => {
                cx.report("error", format!("IGC formatting error (status bit 29): {m}"))
            }
            IgcEvent::Fault { pc, why } => {
                let at = cx.names.name(u32::from(*pc));
                cx.report(
                    "fault",
                    format!("IGC stopped on an illegal microinstruction at {at}: {why}"),
                )
            }
            IgcEvent::Unwritten { pc, from } => {
                let from = cx.names.name(u32::from(*from));
                let pc = pp5_rtl::igc::store::pc_text(*pc);
                cx.report(
                    "warning",
                    format!(
                        "the IGC went on from {from} to PC {pc}, which no microcode source set (the empty store runs as NOPs): code that runs off its end, or a jump to a wrong address"
                    ),
                )
            }
            IgcEvent::Diagnostic { pc, what, msg } => {
                let at = cx.names.name(u32::from(*pc));
                cx.report("warning", format!("{what} at {at} {msg}"))
            }
            IgcEvent::Flow(e) => {
                let at = cx.names.name(u32::from(e.pc()));
                let m = format!("flow control at {at}: {}", e.what());
                if e.is_error() {
                    cx.report("error", format!("flow-control error (status bit 4): {m}"))
                } else {
                    cx.report("warning", m)
                }
            }
            IgcEvent::XferConflict { pc, bit, port } => self.conflict(*pc, *bit, port, cx),
            IgcEvent::StatusLost => cx.report(
                "note",
                "SENDSTATUS was interrupted by an error while it waited for the transmitter: its status message is lost (seed §III.4.1-5)".into(),
            ),
        }
    }

    /// A command touched pixel-memory bits 0-31 while a transfer owned them: reported once
    /// per command.
    fn conflict(&mut self, pc: u16, bit: u8, port: &str, cx: &mut Cx) {
        let open = cx.command.map(|c| c.index);
        if open.is_some() && self.conflict_reported == open {
            return;
        }
        self.conflict_reported = open;
        let name = cx
            .command
            .map_or_else(|| "a command".into(), |c| c.name.to_string());
        let xfer = match cx.board.transfer.active {
            Some((d, s)) => format!(
                "a BS{} of sector {s}",
                if d == XferDir::Store { "STORE" } else { "LOAD" }
            ),
            None => "a transfer".into(),
        };
        let at = cx.names.name(u32::from(pc));
        cx.report(
            "warning",
            format!(
                "{name} accessed pixel-memory bit {bit} (port {port}, at {at}) during {xfer}: bits 0-31 belong to the transfer, so the command was not executed correctly (the access read 0 / wrote nothing; seed §III.4.2.5.2: use BSWAIT first)"
            ),
        );
    }
}
