//! The command log: one [`CommandRecord`] per command the IGC takes (its name, operands, first
//! cycle, cycles and their causes), the per-name totals of the user's commands, and where the
//! microcode boot ended. Reads as a slice of the records it keeps.

use super::observer::{Cx, Observer};
use crate::records::{CauseCounts, CommandName, CommandRecord, Keep, Keeper, Tally};
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::opcode::OpcodeWord;
use pp5_rtl::igc::{IgcEvent, IgcState};
use pp5_rtl::renderer::BoardEvent;
use pp5_rtl::Renderer;

/// The IGC's commands, as the board takes them.
#[derive(Clone, Debug)]
pub struct CommandLog {
    /// The records kept, from the first not yet handed over by [`CommandLog::take_ended`]
    /// (with [`Keep::First`], the first ones and the one executing).
    records: Vec<CommandRecord>,
    /// The user's commands that ended, by name (all of them, whatever is kept).
    pub tally: Tally,
    keeper: Keeper,
    /// Index of the next record.
    next_index: u64,
    /// Position in `records` of the command executing.
    open: Option<usize>,
    /// The boot was queued and has not ended yet: its commands are marked `boot`.
    boot_pending: bool,
    /// Cycle at which the boot sequence ended (RMODEOFF executed), if a boot was queued.
    pub boot_end: Option<u64>,
    /// The records' names, shared.
    names: NameCache,
}

/// The name of the last command taken with each dispatch byte, shared by the records of that
/// name: a command taken allocates nothing unless its name is new (or the table changed).
#[derive(Clone, Debug)]
struct NameCache {
    /// `slot[cmd]`: the name and whether it is the opcode table's (not `CMD 0x..`).
    slot: Vec<Option<(bool, CommandName)>>,
}

impl Default for NameCache {
    fn default() -> Self {
        NameCache {
            slot: vec![None; 256],
        }
    }
}

impl NameCache {
    /// The name of the command `opcode` as [`Cx::command_name`] gives it.
    fn of(&mut self, opcode: u32, cx: &Cx) -> CommandName {
        let spec = cx.spec(opcode);
        let slot = &mut self.slot[usize::from(OpcodeWord(opcode).cmd())];
        match (&*slot, spec) {
            (Some((true, n)), Some(s)) if *n == *s.name => n.clone(),
            (Some((false, n)), None) => n.clone(),
            _ => {
                let n = CommandName::from(cx.command_name(opcode));
                *slot = Some((spec.is_some(), n.clone()));
                n
            }
        }
    }
}

impl CommandLog {
    /// An empty log keeping `keep` records.
    pub fn new(keep: Keep) -> CommandLog {
        CommandLog {
            records: Vec::new(),
            tally: Tally::default(),
            keeper: Keeper::new(keep),
            next_index: 0,
            open: None,
            boot_pending: false,
            boot_end: None,
            names: NameCache::default(),
        }
    }

    /// The commands to come are the microcode boot's, until RMODEOFF executes.
    pub fn boot_queued(&mut self) {
        self.boot_pending = true;
    }

    /// Records of the user's commands not kept ([`Keep::First`]).
    pub fn not_kept(&self) -> u64 {
        self.keeper.not_kept
    }

    /// The record of the command executing (or stuck), if any.
    pub fn open(&self) -> Option<&CommandRecord> {
        self.open.and_then(|k| self.records.get(k))
    }

    /// Commands of the user's stream (after the boot).
    pub fn user(&self) -> impl Iterator<Item = &CommandRecord> {
        self.records.iter().filter(|c| !c.boot)
    }

    /// Hand over the records of the commands that have ended (all but the one executing), in
    /// order, and forget them: a long run that reads its timing as it goes (`pp5 render`)
    /// keeps memory bounded. The open command stays; the records' `index` keeps counting from
    /// the first command.
    pub fn take_ended(&mut self) -> Vec<CommandRecord> {
        let ended = self.open.unwrap_or(self.records.len());
        let taken: Vec<CommandRecord> = self.records.drain(..ended).collect();
        self.open = self.open.map(|k| k - ended);
        taken
    }

    /// Move every record out (the open one too), leaving the log empty: a finished run's
    /// report takes them instead of copying.
    pub fn take_records(&mut self) -> Vec<CommandRecord> {
        self.open = None;
        std::mem::take(&mut self.records)
    }

    /// Close the command executing at cycle `end` (its last cycle).
    pub fn close(&mut self, end: u64) {
        if let Some(k) = self.open.take() {
            let r = &mut self.records[k];
            r.cycles = end + 1 - r.start;
            let boot = r.boot;
            if !boot {
                self.tally.add(r);
            }
            if !self.keeper.keeps(boot) && k + 1 == self.records.len() {
                self.records.pop();
            }
        }
    }

    /// The run stopped before cycle `at` with a command still open (a breakpoint, the cycle
    /// limit, an interrupt): its cycles so far, as the profile charges them. A run that goes
    /// on later closes it with its whole count.
    pub fn so_far(&mut self, at: u64) {
        if let Some(k) = self.open {
            let r = &mut self.records[k];
            r.cycles = at.saturating_sub(r.start);
        }
    }

    /// A command is open and the IGC is back between commands (or stuck).
    fn may_end(&self, board: &Renderer) -> bool {
        self.open.is_some()
            && matches!(
                board.igc.state,
                IgcState::WaitCmd | IgcState::RMode | IgcState::Hang | IgcState::Fault
            )
    }

    /// The cycle's cause, charged to the command executing ([`Observer::cycle`]; the engine
    /// calls it directly, the hottest hook).
    #[inline]
    pub fn charge(&mut self, cause: Cause) {
        // The open record is the last one (a command opens by pushing its record; the records
        // before it are the ones that go), so it is found without a bounds check.
        if self.open.is_some() {
            debug_assert_eq!(self.open, self.records.len().checked_sub(1));
            if let Some(r) = self.records.last_mut() {
                r.causes.add(cause);
            }
        }
    }

    /// Charge `n` cycles of `cause` to the command executing (still cycles).
    pub fn charge_n(&mut self, cause: Cause, n: u64) {
        if let Some(k) = self.open {
            self.records[k].causes.add_n(cause, n);
        }
    }

    /// After cycle `c`'s events: close the command when the IGC is back between commands,
    /// note where the boot ended ([`Observer::cycle_end`]; the engine calls it directly).
    #[inline]
    pub fn after(&mut self, b: &Renderer, c: u64) {
        if self.may_end(b) {
            if matches!(b.igc.state, IgcState::Hang | IgcState::Fault) {
                // A stuck command never ends; leave it open with its cycles so far.
                if let Some(k) = self.open {
                    let r = &mut self.records[k];
                    r.cycles = c + 1 - r.start;
                }
            } else {
                self.close(c);
            }
        }
        if self.boot_pending && b.igc.state != IgcState::RMode && b.igc.store.writes > 0 {
            self.boot_pending = false;
            self.boot_end = Some(c);
        }
    }

    fn dispatch(&mut self, opcode: u32, cx: &Cx) {
        self.close(cx.cycle);
        self.records.push(CommandRecord {
            index: self.next_index,
            name: self.names.of(opcode, cx),
            operands: cx.operands(opcode),
            opcode,
            start: cx.cycle + 1,
            cycles: 0,
            boot: self.boot_pending,
            causes: CauseCounts::default(),
        });
        self.next_index += 1;
        self.open = Some(self.records.len() - 1);
    }
}

impl Observer for CommandLog {
    #[inline]
    fn cycle(&mut self, cx: &mut Cx) {
        self.charge(cx.igc_cause);
    }

    fn event(&mut self, ev: &BoardEvent, cx: &mut Cx) {
        if let BoardEvent::Igc(IgcEvent::Dispatch { opcode, .. }) = ev {
            self.dispatch(*opcode, cx);
        }
    }

    #[inline]
    fn cycle_end(&mut self, cx: &mut Cx) {
        self.after(cx.board, cx.cycle);
    }

    fn ring_reset(&mut self, at: u64) {
        self.close(at.saturating_sub(1));
    }
}

impl std::ops::Deref for CommandLog {
    type Target = [CommandRecord];
    fn deref(&self) -> &[CommandRecord] {
        &self.records
    }
}

impl<'a> IntoIterator for &'a CommandLog {
    type Item = &'a CommandRecord;
    type IntoIter = std::slice::Iter<'a, CommandRecord>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
