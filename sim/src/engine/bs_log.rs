//! The BS port's command log (one [`BsCommandRecord`] per BS command: its first word and
//! cycle, its cycles by cause) and the backing-store transfer log. Each reads as a slice of
//! its records.

use super::observer::{Cx, Observer};
use crate::records::{BsCommandRecord, CauseCounts, Keep, Keeper, TransferRecord};
use pp5_rtl::bs_port::{BsEvent, BsPort, BsState};
use pp5_rtl::renderer::BoardEvent;

/// The BS port's commands, as its command FSM reads them.
#[derive(Clone, Debug)]
pub struct BsCommandLog {
    records: Vec<BsCommandRecord>,
    keeper: Keeper,
    next_index: u64,
    /// Position in `records` of the command under way.
    open: Option<usize>,
}

impl BsCommandLog {
    /// An empty log keeping `keep` records.
    pub fn new(keep: Keep) -> BsCommandLog {
        BsCommandLog {
            records: Vec::new(),
            keeper: Keeper::new(keep),
            next_index: 0,
            open: None,
        }
    }

    /// Records not kept ([`Keep::First`]).
    pub fn not_kept(&self) -> u64 {
        self.keeper.not_kept
    }

    /// Hand over the records of the commands that have ended (all but the one under way), in
    /// order, and forget them, as [`super::command_log::CommandLog::take_ended`] does: the
    /// Python `Board` reads a long run's records as it goes, so its memory stays bounded.
    pub fn take_ended(&mut self) -> Vec<BsCommandRecord> {
        let ended = self.open.unwrap_or(self.records.len());
        let taken: Vec<BsCommandRecord> = self.records.drain(..ended).collect();
        self.open = self.open.map(|k| k - ended);
        taken
    }

    /// Move every record out (the open one too), leaving the log empty: a finished run's
    /// report takes them instead of copying.
    pub fn take_records(&mut self) -> Vec<BsCommandRecord> {
        self.open = None;
        std::mem::take(&mut self.records)
    }

    /// After cycle `c`: charge it to the command under way and close that command when the
    /// port is back between commands ([`Observer::cycle_end`]; the engine calls it directly).
    #[inline]
    pub fn after(&mut self, port: &BsPort, c: u64) {
        if let Some(k) = self.open {
            self.records[k].causes.add(port.cause);
            if matches!(port.state, BsState::Opcode | BsState::Skip) {
                self.close(c);
            }
        }
    }

    /// After `n` still cycles: the command under way gets them, with the port's cause (the
    /// port waits, so it stays open).
    pub fn still(&mut self, port: &BsPort, n: u64) {
        if let Some(k) = self.open {
            self.records[k].causes.add_n(port.cause, n);
        }
    }

    /// Close the command under way at cycle `end` (its last cycle).
    fn close(&mut self, end: u64) {
        if let Some(k) = self.open.take() {
            let r = &mut self.records[k];
            r.cycles = end + 1 - r.start;
            if !self.keeper.keeps(false) && k + 1 == self.records.len() {
                self.records.pop();
            }
        }
    }
}

impl Observer for BsCommandLog {
    fn event(&mut self, ev: &BoardEvent, cx: &mut Cx) {
        if let BoardEvent::Bs(BsEvent::Command { name, word }) = ev {
            self.close(cx.cycle.saturating_sub(1));
            self.records.push(BsCommandRecord {
                index: self.next_index,
                name: name.to_string(),
                word: *word,
                start: cx.cycle,
                cycles: 0,
                causes: CauseCounts::default(),
            });
            self.next_index += 1;
            self.open = Some(self.records.len() - 1);
        }
    }

    #[inline]
    fn cycle_end(&mut self, cx: &mut Cx) {
        self.after(&cx.board.bs_port, cx.cycle);
    }

    fn ring_reset(&mut self, at: u64) {
        self.close(at.saturating_sub(1));
    }

    fn done(&mut self, at: u64) {
        self.close(at.saturating_sub(1));
    }
}

impl std::ops::Deref for BsCommandLog {
    type Target = [BsCommandRecord];
    fn deref(&self) -> &[BsCommandRecord] {
        &self.records
    }
}

impl<'a> IntoIterator for &'a BsCommandLog {
    type Item = &'a BsCommandRecord;
    type IntoIter = std::slice::Iter<'a, BsCommandRecord>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The backing-store transfers (BSLOAD, BSSTORE), from their first step to their last.
#[derive(Clone, Debug, Default)]
pub struct TransferLog {
    records: Vec<TransferRecord>,
}

impl Observer for TransferLog {
    fn event(&mut self, ev: &BoardEvent, cx: &mut Cx) {
        match ev {
            BoardEvent::XferStart { dir, sector } => self.records.push(TransferRecord {
                dir: dir.name(),
                sector: *sector,
                start: cx.cycle,
                end: None,
            }),
            BoardEvent::XferDone { .. } => {
                if let Some(t) = self.records.last_mut() {
                    t.end = Some(cx.cycle);
                }
            }
            _ => {}
        }
    }
}

impl std::ops::Deref for TransferLog {
    type Target = [TransferRecord];
    fn deref(&self) -> &[TransferRecord] {
        &self.records
    }
}

impl<'a> IntoIterator for &'a TransferLog {
    type Item = &'a TransferRecord;
    type IntoIter = std::slice::Iter<'a, TransferRecord>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
