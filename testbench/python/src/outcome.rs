//! What a run gives back to Python: `pp5.Outcome` with its per-command records, the
//! diagnostics and the messages the board sent, built from the run's log (the first
//! 100,000 records per port and 10,000 messages, the rest counted: [`crate::run_log`]).

use crate::run_log::RunLog;
use crate::status::{error_bits, Status};
use pp5_rtl::cause::Cause;
use pp5_sim::engine::{BsCommandRecord, CauseCounts, CommandRecord, Diagnostic as EngineDiag};
use pp5_sim::engine::{Sim, StopReason};
use pp5_sim::report::stop_text;
use pyo3::prelude::*;
use std::collections::BTreeMap;

/// Cycles by cause, named as in `pp5 run --report json`.
fn causes(c: &CauseCounts) -> BTreeMap<String, u64> {
    Cause::ALL
        .iter()
        .map(|&k| (k.name().to_string(), c.get(k)))
        .collect()
}

/// One IGC command the run took (a row of the CLI's command table).
#[pyclass(module = "pp5", frozen, get_all)]
#[derive(Clone)]
pub struct Command {
    /// Sequence number among all commands the board took (the boot's included).
    pub index: u64,
    /// Mnemonic from the opcode table (or `CMD 0x..`).
    pub name: String,
    /// Operand registers as latched.
    pub operands: Vec<u32>,
    /// The opcode word.
    pub opcode: u32,
    /// First cycle of its routine.
    pub start: u64,
    /// Cycles from its first microinstruction through its dispatching one.
    pub cycles: u64,
    /// Of those, cycles waiting on a semaphore, a transfer or the transmitter.
    pub waited: u64,
    /// Its cycles by cause (`executing`, `sem_wait`, ...).
    pub causes: BTreeMap<String, u64>,
}

#[pymethods]
impl Command {
    fn __repr__(&self) -> String {
        let ops: Vec<String> = self.operands.iter().map(u32::to_string).collect();
        format!(
            "Command(#{} {}({}) start={} cycles={} waited={})",
            self.index,
            self.name,
            ops.join(", "),
            self.start,
            self.cycles,
            self.waited
        )
    }
}

impl Command {
    pub fn of(c: &CommandRecord) -> Command {
        Command {
            index: c.index,
            name: c.name.to_string(),
            operands: c.operands.to_vec(),
            opcode: c.opcode,
            start: c.start,
            cycles: c.cycles,
            waited: c.causes.waited(),
            causes: causes(&c.causes),
        }
    }
}

/// One BS port command (a row of the CLI's BS command table).
#[pyclass(module = "pp5", frozen, get_all)]
#[derive(Clone)]
pub struct BsCommand {
    /// Sequence number among the BS commands.
    pub index: u64,
    /// The macro name (`BS_RECEIVE`, ...).
    pub name: String,
    /// Its first word.
    pub word: u32,
    /// Cycle its first word was read.
    pub start: u64,
    /// Cycles until the port was ready for the next command.
    pub cycles: u64,
    /// Its cycles by cause (`executing`, `semaphore_wait`, `tx_hold`, ...).
    pub causes: BTreeMap<String, u64>,
}

#[pymethods]
impl BsCommand {
    fn __repr__(&self) -> String {
        format!(
            "BsCommand(#{} {} start={} cycles={})",
            self.index, self.name, self.start, self.cycles
        )
    }
}

impl BsCommand {
    fn of(c: &BsCommandRecord) -> BsCommand {
        BsCommand {
            index: c.index,
            name: c.name.clone(),
            word: c.word,
            start: c.start,
            cycles: c.cycles,
            causes: causes(&c.causes),
        }
    }
}

/// A diagnostic: what the CLI lists under `diagnostics:`.
#[pyclass(module = "pp5", frozen, get_all)]
#[derive(Clone)]
pub struct Diagnostic {
    /// The cycle it happened in.
    pub cycle: u64,
    /// `error` (a hardware error bit was set), `fault`, `warning` or `note`.
    pub level: String,
    /// The message, as the CLI prints it.
    pub msg: String,
}

#[pymethods]
impl Diagnostic {
    fn __repr__(&self) -> String {
        format!(
            "Diagnostic(cycle {}: {}: {})",
            self.cycle, self.level, self.msg
        )
    }
    fn __str__(&self) -> String {
        format!("cycle {}: {}: {}", self.cycle, self.level, self.msg)
    }
}

impl Diagnostic {
    pub fn of(d: &EngineDiag) -> Diagnostic {
        Diagnostic {
            cycle: d.cycle,
            level: d.level.to_string(),
            msg: d.msg.clone(),
        }
    }
}

/// A Ring message the board sent (status, error, or BS_TRANSMIT data).
#[pyclass(module = "pp5", frozen, get_all)]
#[derive(Clone)]
pub struct SentMessage {
    /// `igc` or `bs`.
    pub port: String,
    /// `STATUS`, `ERROR` or `DATA`.
    pub kind: String,
    /// Cycle of its first word.
    pub start: u64,
    /// Cycle of its last word.
    pub end: u64,
    /// Every word, the destination first.
    pub words: Vec<u32>,
}

#[pymethods]
impl SentMessage {
    /// The ID word of a status or error message (None for data).
    #[getter]
    fn id(&self) -> Option<u32> {
        self.words.get(1).copied().filter(|_| self.kind != "DATA")
    }

    /// The status word of a status or error message, with its bits by name (None for data).
    #[getter]
    fn status(&self) -> Option<Status> {
        self.words
            .get(2)
            .copied()
            .filter(|_| self.kind != "DATA")
            .map(|word| Status { word })
    }

    fn __repr__(&self) -> String {
        format!(
            "SentMessage({} {} cycles {}..{}, {} words)",
            self.port,
            self.kind,
            self.start,
            self.end,
            self.words.len()
        )
    }
}

impl SentMessage {
    pub fn of(t: &pp5_rtl::renderer::OutMessage) -> SentMessage {
        SentMessage {
            port: t.port.name().into(),
            kind: t.kind.name().into(),
            start: t.start,
            end: t.end,
            words: t.words.clone(),
        }
    }
}

/// The result of `Board.run`: why it stopped, its cycles, and what happened in it.
#[pyclass(module = "pp5", frozen, get_all)]
#[derive(Clone)]
pub struct Outcome {
    /// `done` (the stream was consumed and the board is idle), `max_cycles`, `stuck` or
    /// `deadlock` (those two raise `pp5.Stuck` / `pp5.Deadlock` carrying this outcome).
    pub stop: String,
    /// Why it stopped, in the CLI's words (`pp5 run`'s `stopped:` line).
    pub stop_text: String,
    /// 40 MHz cycles of this run: from the board's cycle when it started to when it stopped.
    pub cycles: u64,
    /// The board's cycle counter when the run started.
    pub start_cycle: u64,
    /// The board's cycle counter when the run stopped.
    pub end_cycle: u64,
    /// The IGC commands taken in this run, in order: the first 100,000 (as `pp5 run
    /// --report json`), so that memory does not grow with the run.
    pub commands: Vec<Command>,
    /// IGC commands of this run past the 100,000 kept (`by_name` and `command_cycles` see
    /// only the kept ones).
    pub commands_not_kept: u64,
    /// The BS port commands of this run: the first 100,000.
    pub bs_commands: Vec<BsCommand>,
    /// BS port commands of this run past the 100,000 kept.
    pub bs_commands_not_kept: u64,
    /// Diagnostics reported during this run.
    pub diagnostics: Vec<Diagnostic>,
    /// Ring messages the board sent during this run: the first 10,000.
    pub sent: Vec<SentMessage>,
    /// Messages of this run past the 10,000 kept.
    pub sent_not_kept: u64,
    /// The status word when the run stopped.
    pub status: Status,
    /// Error bits 24-30 set at the end, as the CLI lists them (`"29: IGC formatting error"`).
    pub error_bits: Vec<String>,
    /// The stop report of a run stopped at a breakpoint, as JSON (`stop_report` gives it as
    /// a dict).
    pub stop_report_json: Option<String>,
}

#[pymethods]
impl Outcome {
    /// Where a run stopped at a breakpoint or watchpoint stopped, as `pp5 run` prints it and
    /// `--report json` has it (None for other stops): {"reason", "breakpoint" (its index),
    /// "spec", "cycle" (the stop is before it runs), "next" {"pc", "at", "src", "text"}: the
    /// microinstruction not yet run, "igc" {"state", "pc", "last_pc", "l", "i", "fbits",
    /// "indicator", "command", "opcode", "pword", "opr", "coef"}, "backtrace" [frames
    /// {"kind": "next"/"call"/"command", "pc", "at", "src", "text"}, innermost first],
    /// "loops" [{"kind", "count", "al"}], "watch" {"signal", "old", "new"} for a watchpoint}.
    #[getter]
    fn stop_report<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.stop_report_json {
            Some(j) => Ok(Some(py.import("json")?.call_method1("loads", (j,))?)),
            None => Ok(None),
        }
    }

    /// Whether the run finished cleanly: `done` and no error bit (what makes `pp5 run` exit 0).
    #[getter]
    fn ok(&self) -> bool {
        self.stop == "done" && self.error_bits.is_empty()
    }

    /// `(name, cycles)` of each command, as the Rust testbench's `Outcome::command_cycles`.
    #[getter]
    fn command_cycles(&self) -> Vec<(String, u64)> {
        self.commands
            .iter()
            .map(|c| (c.name.clone(), c.cycles))
            .collect()
    }

    /// Cycles by command name: name → (count, total cycles), as the CLI's `by command` table.
    fn by_name(&self) -> BTreeMap<String, (u64, u64)> {
        let mut m: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for c in &self.commands {
            let e = m.entry(c.name.clone()).or_default();
            e.0 += 1;
            e.1 += c.cycles;
        }
        m
    }

    fn __repr__(&self) -> String {
        format!(
            "Outcome(stop={:?}, cycles={}, commands={}, status={:#010x}{})",
            self.stop,
            self.cycles,
            self.commands.len(),
            self.status.word,
            if self.error_bits.is_empty() {
                String::new()
            } else {
                format!(", errors: {}", self.error_bits.join(", "))
            }
        )
    }
}

/// Where the board stood when a run started (its records are the run's log's), to report
/// only what the run added.
#[derive(Clone, Copy, Debug)]
pub struct Marks {
    pub cycle: u64,
    pub diagnostics: usize,
}

impl Marks {
    pub fn of(sim: &Sim) -> Marks {
        Marks {
            cycle: sim.board.cycle,
            diagnostics: sim.diagnostics.len(),
        }
    }
}

/// The short name of a stop reason.
pub fn stop_name(s: &StopReason) -> &'static str {
    match s {
        StopReason::Done => "done",
        StopReason::MaxCycles => "max_cycles",
        StopReason::Stuck(_) => "stuck",
        StopReason::Deadlock { .. } => "deadlock",
        StopReason::Interrupted => "interrupted",
        StopReason::Breakpoint(_) => "breakpoint",
    }
}

/// The outcome of the run that started at `m`, logged in `log` (collected up to its stop),
/// and stopped for `stop`. The commands still under way come after the ended ones, within
/// the cap.
pub fn outcome(sim: &Sim, log: &RunLog, m: Marks, stop: &StopReason) -> Outcome {
    let status = sim.board.status();
    let (open, open_bs) = log.open_commands(sim);
    let mut commands = log.commands.clone();
    open.iter().for_each(|r| commands.push(r.clone()));
    let mut bs_commands = log.bs_commands.clone();
    open_bs.iter().for_each(|r| bs_commands.push(r.clone()));
    Outcome {
        stop: stop_name(stop).into(),
        stop_text: stop_text(stop),
        cycles: sim.board.cycle - m.cycle.min(sim.board.cycle),
        start_cycle: m.cycle,
        end_cycle: sim.board.cycle,
        commands: commands.kept.iter().map(Command::of).collect(),
        commands_not_kept: commands.not_kept,
        bs_commands: bs_commands.kept.iter().map(BsCommand::of).collect(),
        bs_commands_not_kept: bs_commands.not_kept,
        diagnostics: sim.diagnostics[m.diagnostics.min(sim.diagnostics.len())..]
            .iter()
            .map(Diagnostic::of)
            .collect(),
        sent: log.sent.kept.iter().map(SentMessage::of).collect(),
        sent_not_kept: log.sent.not_kept,
        status: Status { word: status },
        error_bits: error_bits(status),
        stop_report_json: None,
    }
}
