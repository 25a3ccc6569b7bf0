//! What a run stopped at a breakpoint shows, as gdb does at a stop: where the IGC is (the
//! microinstruction it executes next: file:line and the source text), its registers, the
//! flow-control unit's CALL backtrace and loops, and a watchpoint's change. `pp5 run` prints
//! it on stderr at the stop and puts it in `--report json` as `"stop_report"`; Python's
//! `board.run_until(...)` gives it as `outcome.stop_report`.

use super::MicrocodeSources;
use crate::engine::{Sim, Value};
use pp5_rtl::igc::store::pc_text;
use serde::Serialize;
use std::fmt::Write as _;

/// A microinstruction, named for a user.
#[derive(Clone, Debug, Serialize)]
pub struct Place {
    pub pc: u16,
    /// Routine and offset (`FIVE+1`), or label and offset without sources (`@PC` before
    /// every label).
    pub at: String,
    /// Source position (`mine.pp5uc:3`), when the microcode has sources.
    pub src: Option<String>,
    /// The source line's text.
    pub text: Option<String>,
}

impl Place {
    fn of(sim: &Sim, sources: Option<&MicrocodeSources>, pc: u16) -> Place {
        let entry = sources.and_then(|s| s.uinst(u32::from(pc)).map(|e| (s, e)));
        let at = match entry {
            Some((_, e)) => e.at(),
            None => sim
                .label_of(u32::from(pc))
                .map_or(format!("@{pc}"), |(l, o)| format!("{l}+{o}")),
        };
        Place {
            pc,
            at,
            src: entry.map(|(_, e)| e.position()),
            text: entry.map(|(s, e)| s.line_text(&e.file, e.line).to_string()),
        }
    }

    /// `FIVE+1 (PC 0x0fb, mine.pp5uc:3)`.
    fn name(&self) -> String {
        match &self.src {
            Some(src) => format!("{} (PC {}, {src})", self.at, pc_text(u32::from(self.pc))),
            None => format!("{} (PC {})", self.at, pc_text(u32::from(self.pc))),
        }
    }
}

/// The IGC's registers at the stop.
#[derive(Clone, Debug, Serialize)]
pub struct IgcRegisters {
    /// `RUN`, `WAIT_CMD`, ...
    pub state: &'static str,
    /// The microinstruction executed next.
    pub pc: u16,
    /// The microinstruction executed last.
    pub last_pc: u16,
    pub l: u8,
    pub i: u8,
    pub fbits: u8,
    pub indicator: bool,
    /// The latched command: its name, opcode and P word, operand registers OPR0..OPR4.
    pub command: Option<String>,
    pub opcode: u32,
    pub pword: u32,
    pub opr: Vec<u32>,
    /// Coefficient registers A..F (C is also `sca`).
    pub coef: Vec<u32>,
}

/// One entry of the flow-control unit's loop stack, innermost last.
#[derive(Clone, Debug, Serialize)]
pub struct LoopEntry {
    pub kind: &'static str,
    /// Iterations left.
    pub count: u32,
    /// The loop index aL, if the loop has one.
    pub al: Option<i32>,
}

/// One frame of the backtrace.
#[derive(Clone, Debug, Serialize)]
pub struct Frame {
    /// `next` (where the IGC is), `call` (a CALL on the address stack) or `command` (the
    /// command's entry, the outermost).
    pub kind: &'static str,
    #[serde(flatten)]
    pub place: Place,
}

/// A watchpoint's change.
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    pub signal: String,
    pub old: Value,
    pub new: Value,
}

/// Where a run stopped at a breakpoint.
#[derive(Clone, Debug, Serialize)]
pub struct StopReport {
    /// The stop, in the run's words (`breakpoint: ...`).
    pub reason: String,
    /// Which breakpoint (its place among those set, 0 first) and as the user wrote it.
    pub breakpoint: usize,
    pub spec: String,
    /// The board's cycle counter: the stop is before this cycle runs (the waveform's last
    /// time).
    pub cycle: u64,
    /// The microinstruction the IGC executes next (not yet run).
    pub next: Place,
    pub igc: IgcRegisters,
    /// The CALL backtrace, innermost first: the microinstruction executed next, then each
    /// CALL on the flow-control unit's address stack (the microinstruction before its return
    /// address), then the command's entry. The IGC's own sequencer has no return address.
    pub backtrace: Vec<Frame>,
    /// The flow-control unit's loop stack, outermost first.
    pub loops: Vec<LoopEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch: Option<Change>,
}

impl StopReport {
    /// The report of `sim` stopped at its last breakpoint (`None` if none was reached).
    pub fn of(sim: &Sim, sources: Option<&MicrocodeSources>) -> Option<StopReport> {
        let bp = sim.breakpoint.as_ref()?;
        let hit = bp.last.as_ref()?;
        let b = &sim.board;
        let igc = &b.igc;
        let next = Place::of(sim, sources, igc.pc);
        let frame = |kind, pc| Frame {
            kind,
            place: Place::of(sim, sources, pc),
        };
        let mut backtrace = vec![frame("next", igc.pc)];
        for &ret in igc.fc.addrs.entries().iter().rev() {
            backtrace.push(frame("call", ret.wrapping_sub(1)));
        }
        let command = sim.open_command();
        if let Some(entry) = command
            .and_then(|c| {
                sim.table
                    .by_cmd(pp5_rtl::igc::opcode::OpcodeWord(c.opcode).cmd())
            })
            .and_then(|c| c.entry)
        {
            if u32::from(igc.pc) != entry || backtrace.len() > 1 {
                backtrace.push(frame("command", entry as u16));
            }
        }
        let spec = bp.list().get(hit.index).map_or(String::new(), |u| u.spec());
        Some(StopReport {
            reason: hit.msg.clone(),
            breakpoint: hit.index,
            spec,
            cycle: b.cycle,
            next,
            igc: IgcRegisters {
                state: igc.state.name(),
                pc: igc.pc,
                last_pc: igc.last_pc,
                l: igc.l,
                i: igc.i,
                fbits: igc.fbits,
                indicator: igc.indicator,
                command: command.map(|c| c.name.to_string()),
                opcode: igc.opcode,
                pword: igc.pword,
                opr: igc.opr.to_vec(),
                coef: igc.coef.to_vec(),
            },
            backtrace,
            loops: igc
                .fc
                .loops
                .frames()
                .iter()
                .map(|f| LoopEntry {
                    kind: f.kind.name(),
                    count: f.count,
                    al: f.al,
                })
                .collect(),
            watch: hit
                .change
                .clone()
                .map(|(signal, old, new)| Change { signal, old, new }),
        })
    }

    /// The report as `pp5 run` prints it on stderr.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "stopped before cycle {}: {}", self.cycle, self.reason);
        if let Some(w) = &self.watch {
            let _ = writeln!(s, "  {}: {} -> {}", w.signal, w.old, w.new);
        }
        let _ = writeln!(s, "  next: {}", self.next.name());
        if let (Some(src), Some(text)) = (&self.next.src, &self.next.text) {
            let line = src.rsplit_once(':').map_or("", |x| x.1);
            let _ = writeln!(s, "  {line:>5} | {text}");
        }
        let r = &self.igc;
        let opr: Vec<String> = r.opr.iter().map(u32::to_string).collect();
        let _ = writeln!(
            s,
            "  igc: state {} pc {} last_pc {} l {} i {} fbits {} indicator {}",
            r.state,
            pc_text(u32::from(r.pc)),
            pc_text(u32::from(r.last_pc)),
            r.l,
            r.i,
            r.fbits,
            r.indicator as u8
        );
        let coef: Vec<String> = r.coef.iter().map(|c| format!("{c:#x}")).collect();
        let _ = writeln!(
            s,
            "       command {} opcode {:#010x} pword {:#010x} opr [{}] coef [{}]",
            r.command.as_deref().unwrap_or("-"),
            r.opcode,
            r.pword,
            opr.join(", "),
            coef.join(", ")
        );
        let _ = writeln!(s, "  backtrace:");
        for (k, f) in self.backtrace.iter().enumerate() {
            let what = match f.kind {
                "next" => "at",
                "call" => "called from",
                _ => "in the command entered at",
            };
            let _ = writeln!(s, "    #{k} {what} {}", f.place.name());
        }
        if !self.loops.is_empty() {
            let loops: Vec<String> = self
                .loops
                .iter()
                .map(|l| match l.al {
                    Some(al) => format!("{} count {} aL {al}", l.kind, l.count),
                    None => format!("{} count {}", l.kind, l.count),
                })
                .collect();
            let _ = writeln!(s, "  loops: {}", loops.join("; "));
        }
        s
    }
}
