//! What an observer of the board sees, and the one small interface every observer implements.
//!
//! The engine steps the board and then shows each observer the cycle: the board's state after
//! the edge, the cycle's events (in the order the board reported them), the causes the cycle
//! is charged to, the Ring environment and the command executing. Observers keep their own
//! logs; none of them writes to the board. What they have to tell the user goes into the one
//! [`Diagnostics`] list, in the order the events happened; a rule check that finds a command
//! the hardware would mis-execute asks for the IGC formatting-error strobe
//! ([`Cx::flag_format_error`]), which the engine raises.

use super::ring_env::RingEnv;
use crate::asm::opcodes::{CommandSpec, OpcodeTable};
use crate::records::{CommandRecord, Operands};
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::opcode::OpcodeWord;
use pp5_rtl::renderer::BoardEvent;
use pp5_rtl::Renderer;
use serde::Serialize;

/// Something the simulator reports to the user.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub cycle: u64,
    /// `error` (a hardware error bit was set), `fault`, `warning` or `note`.
    pub level: &'static str,
    pub msg: String,
}

/// Cap on the stored diagnostics (the count of dropped ones is kept).
pub const MAX_DIAGNOSTICS: usize = 1000;

/// The run's diagnostics: the first [`MAX_DIAGNOSTICS`] in order, and how many more were
/// dropped. Reads as a slice of [`Diagnostic`].
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
    /// Diagnostics not stored (past the cap).
    pub dropped: u64,
}

impl Diagnostics {
    /// Report `msg` at `cycle`.
    pub fn push(&mut self, cycle: u64, level: &'static str, msg: String) {
        if self.list.len() < MAX_DIAGNOSTICS {
            self.list.push(Diagnostic { cycle, level, msg });
        } else {
            self.dropped += 1;
        }
    }

    /// Forget the diagnostics reported so far (a testbench that checks them stage by stage).
    pub fn clear(&mut self) {
        self.list.clear();
    }
}

impl std::ops::Deref for Diagnostics {
    type Target = [Diagnostic];
    fn deref(&self) -> &[Diagnostic] {
        &self.list
    }
}

/// The cycle an observer is shown.
pub struct Cx<'a> {
    /// The cycle just stepped (the board's cycle counter before the edge).
    pub cycle: u64,
    /// The board after the edge.
    pub board: &'a Renderer,
    /// What the Ring still holds for the board.
    pub ring: &'a RingEnv,
    /// The opcode table of the booted microcode, to name commands.
    pub table: &'a OpcodeTable,
    /// The table's commands by dispatch byte ([`Cx::spec`]).
    pub index: &'a CommandIndex,
    /// The command the IGC executes (or is stuck in), as the command log has it so far.
    pub command: Option<&'a CommandRecord>,
    /// How the IGC and the BS port spent the cycle ([`Cause::FifoEmpty`] where the board was
    /// idle but its Ring input still has words to come).
    pub igc_cause: Cause,
    pub bs_cause: Cause,
    /// Where observers report to the user.
    pub diag: &'a mut Diagnostics,
    /// How messages name a microinstruction.
    pub names: &'a super::MicrocodeNames,
    /// Set to raise the IGC formatting-error strobe (status bit 29) at the next edge.
    pub flag_format_error: bool,
}

impl<'a> Cx<'a> {
    /// Report `msg` at this cycle.
    pub fn report(&mut self, level: &'static str, msg: String) {
        self.diag.push(self.cycle, level, msg);
    }

    /// The opcode table's entry of a command by its opcode word, if it has one.
    #[inline]
    pub fn spec(&self, opcode: u32) -> Option<&'a CommandSpec> {
        self.index.get(self.table, OpcodeWord(opcode).cmd())
    }

    /// Name of a command by its opcode word: the opcode table's, or `CMD 0x..`.
    pub fn command_name(&self, opcode: u32) -> String {
        spec_name(self.spec(opcode), opcode)
    }

    /// The operand registers a command just latched, as many as its opcode table entry has.
    pub fn operands(&self, opcode: u32) -> Operands {
        let nargs = self
            .spec(opcode)
            .map_or(0, |s| s.args.iter().filter(|a| a.kind.is_operand()).count());
        Operands::latched(&self.board.igc.opr, nargs)
    }
}

/// Name of a command by its opcode word: the opcode table's, or `CMD 0x..`.
pub fn command_name(table: &OpcodeTable, opcode: u32) -> String {
    spec_name(table.by_cmd(OpcodeWord(opcode).cmd()), opcode)
}

/// The name of the command `spec` (the table's entry of `opcode`, if any), or `CMD 0x..`.
fn spec_name(spec: Option<&CommandSpec>, opcode: u32) -> String {
    spec.map(|c| c.name.clone())
        .unwrap_or_else(|| format!("CMD {:#04x}", OpcodeWord(opcode).cmd()))
}

/// The opcode table's commands by dispatch byte: a command taken is looked up by its byte
/// (its name, its operands, its rules) without searching the table
/// ([`OpcodeTable::by_cmd`] walks it: on the QEE triangles some 1,000 instructions per
/// command).
#[derive(Clone, Debug)]
pub struct CommandIndex {
    /// `slot[cmd]` = 1 + the position in the table of the first command with dispatch byte
    /// `cmd` (0: none).
    slot: [u16; 256],
}

impl CommandIndex {
    /// The index of `table` as it is now.
    pub fn new(table: &OpcodeTable) -> CommandIndex {
        let mut slot = [0u16; 256];
        for (k, c) in table.commands.iter().enumerate().rev() {
            slot[usize::from(c.cmd)] = u16::try_from(k + 1).unwrap_or(0);
        }
        CommandIndex { slot }
    }

    /// The command of `table` with dispatch byte `cmd`, as [`OpcodeTable::by_cmd`] finds it.
    /// A byte the index has no command for, or one whose entry moved (a table changed after
    /// the index was built), is searched for in the table.
    #[inline]
    pub fn get<'t>(&self, table: &'t OpcodeTable, cmd: u8) -> Option<&'t CommandSpec> {
        let s = usize::from(self.slot[usize::from(cmd)]);
        match s.checked_sub(1).and_then(|k| table.commands.get(k)) {
            Some(c) if c.cmd == cmd => Some(c),
            _ => table.by_cmd(cmd),
        }
    }
}

/// An observer of the board. Each hook has an empty default; an observer implements the ones
/// it needs. Per cycle the engine calls, for every observer in turn: [`Observer::cycle`], then
/// [`Observer::event`] for each of the cycle's events (each event shown to every observer
/// before the next event), then [`Observer::cycle_end`]. [`Observer::before_step`] is called
/// only for the observers that need the board before the edge (the waveform's).
pub trait Observer {
    /// The board before the edge, with this cycle's inputs applied.
    #[inline]
    fn before_step(&mut self, _board: &Renderer) {}
    /// The cycle, before its events.
    #[inline]
    fn cycle(&mut self, _cx: &mut Cx) {}
    /// One event of the cycle.
    #[inline]
    fn event(&mut self, _ev: &BoardEvent, _cx: &mut Cx) {}
    /// The cycle, after its events.
    #[inline]
    fn cycle_end(&mut self, _cx: &mut Cx) {}
    /// The first cycle, from `now` on, this observer must be shown one by one. Between now
    /// and then the engine may advance the board over *still* cycles (the board waits and
    /// nothing but its counters changes, docs/timing.md "Still cycles") in one step, and
    /// shows them through [`Observer::still`] instead of [`Observer::cycle`]. The default,
    /// `now`, needs every cycle (the waveform; a watchpoint on a signal).
    #[inline]
    fn needs_from(&self, now: u64) -> u64 {
        now
    }
    /// `n` still cycles from `cx.cycle` on, each as `cx` shows the first: the same state,
    /// causes and command, no events. Called only when [`Observer::needs_from`] let them
    /// pass, so the default (an observer that needs every cycle) is never called.
    #[inline]
    fn still(&mut self, _n: u64, _cx: &mut Cx) {
        debug_assert!(
            false,
            "still cycles shown to an observer that needs every cycle"
        );
    }
    /// A Ring reset at cycle `at` (before the board is reset): close what is open.
    fn ring_reset(&mut self, _at: u64) {}
    /// The run is done at cycle `at` (nothing is left to do): close what is open.
    fn done(&mut self, _at: u64) {}
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
