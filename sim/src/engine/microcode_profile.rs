//! The microcode profile: every IGC cycle charged to the microinstruction it executed (or was
//! stalled on), by cause, and every conditional sequencer branch's outcomes (taken, not
//! taken). It is what the microcode author's coverage (lcov tracefile) and profile (cycles per
//! routine and source line) are made from (`crate::microcode_view`).
//!
//! A cycle is charged to the microinstruction at `last_pc` when the IGC started it in `Run`
//! or stalled on a handshake (`WAIT_XFER`, `WAIT_SEM`, `WAIT_TX`); otherwise to where the IGC
//! was instead: between commands (waiting at a DISPATCH for the next command), in RMode (the
//! hardwired RMode commands: the microcode boot), or stuck (HANG, an illegal
//! microinstruction). The cycles of all charges add up to the run's cycles, and their causes
//! to the IGC's cycles by cause.

use super::observer::{Cx, Observer};
use crate::records::CauseCounts;
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::microinstruction::Seq;
use pp5_rtl::igc::store::CONTROL_STORE_UINSTS;
use pp5_rtl::igc::IgcState;

/// Where the IGC spent a cycle that executed no microinstruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outside {
    /// Waiting at a DISPATCH for the next command.
    BetweenCommands = 0,
    /// In RMode: the hardwired RMode commands (NOOP, MCWRITE, RMODEOFF, ...).
    RMode = 1,
    /// Stopped for good: HANG or an illegal microinstruction.
    Stuck = 2,
}

impl Outside {
    /// Every place, in report order.
    pub const ALL: [Outside; 3] = [Outside::BetweenCommands, Outside::RMode, Outside::Stuck];

    /// The name the profile shows.
    pub fn name(self) -> &'static str {
        match self {
            Outside::BetweenCommands => "(between commands)",
            Outside::RMode => "(RMode)",
            Outside::Stuck => "(stuck)",
        }
    }
}

/// Per-microinstruction cycles by cause and branch outcomes.
#[derive(Clone, Debug)]
pub struct MicrocodeProfile {
    /// Cycles charged to each microinstruction address, by cause.
    pub by_pc: Vec<CauseCounts>,
    /// Cycles the IGC executed no microinstruction, by where it was ([`Outside`]).
    pub outside: [CauseCounts; 3],
    /// Per microinstruction address: how often its conditional branch was taken and not
    /// taken (zero for microinstructions that are not conditional branches).
    pub branches: Vec<[u64; 2]>,
    /// The IGC's state at the start of the next cycle (after the last one observed).
    state: IgcState,
    /// The counts when the microcode boot ended ([`MicrocodeProfile::mark_boot`]): the
    /// profile's rows leave them out, so its shares are of the user's stream.
    at_boot: Option<Box<(Vec<CauseCounts>, [CauseCounts; 3])>>,
}

impl MicrocodeProfile {
    /// An empty profile for a board whose IGC is now in `state`.
    pub fn new(state: IgcState) -> MicrocodeProfile {
        MicrocodeProfile {
            by_pc: vec![CauseCounts::default(); CONTROL_STORE_UINSTS],
            outside: [CauseCounts::default(); 3],
            branches: vec![[0; 2]; CONTROL_STORE_UINSTS],
            state,
            at_boot: None,
        }
    }

    /// The microcode boot ended now: what was counted so far is the boot's.
    pub fn mark_boot(&mut self) {
        self.at_boot = Some(Box::new((self.by_pc.clone(), self.outside)));
    }

    /// The counts since the boot ([`MicrocodeProfile::mark_boot`]; all of them without a
    /// mark): per microinstruction address, outside the microcode, and the boot's cycles.
    pub fn since_boot(&self) -> (Vec<CauseCounts>, [CauseCounts; 3], u64) {
        match &self.at_boot {
            None => (self.by_pc.clone(), self.outside, 0),
            Some(b) => {
                let by_pc = self
                    .by_pc
                    .iter()
                    .zip(&b.0)
                    .map(|(n, e)| n.since(e))
                    .collect();
                let outside = std::array::from_fn(|k| self.outside[k].since(&b.1[k]));
                let boot = b.0.iter().chain(&b.1).map(CauseCounts::total).sum();
                (by_pc, outside, boot)
            }
        }
    }

    /// Times the microinstruction at `pc` executed: its cycles charged as executing, and the
    /// one charged as hung when it stopped the IGC (a HANG, an illegal microinstruction:
    /// from then on the cycles go to [`Outside::Stuck`]).
    pub fn executions(&self, pc: usize) -> u64 {
        self.by_pc
            .get(pc)
            .map_or(0, |c| c.get(Cause::Executing) + c.get(Cause::Hung))
    }

    /// All cycles charged, microcode and outside.
    pub fn total(&self) -> u64 {
        self.by_pc.iter().map(CauseCounts::total).sum::<u64>()
            + self.outside.iter().map(CauseCounts::total).sum::<u64>()
    }

    /// Add another board's profile (a system of Renderers: one profile over all).
    pub fn merge(&mut self, other: &MicrocodeProfile) {
        for (a, b) in self.by_pc.iter_mut().zip(&other.by_pc) {
            a.merge(b);
        }
        for (a, b) in self.outside.iter_mut().zip(&other.outside) {
            a.merge(b);
        }
        for (a, b) in self.branches.iter_mut().zip(&other.branches) {
            a[0] += b[0];
            a[1] += b[1];
        }
    }
}

/// Whether `seq` is a conditional sequencer branch.
fn conditional(seq: Seq) -> bool {
    matches!(
        seq,
        Seq::Loop | Seq::LoopD | Seq::JAeo | Seq::JNAeo | Seq::JOprGt
    )
}

impl Observer for MicrocodeProfile {
    #[inline]
    fn cycle(&mut self, cx: &mut Cx) {
        let igc = &cx.board.igc;
        let cause = cx.igc_cause;
        match self.state {
            IgcState::Run | IgcState::WaitXfer | IgcState::WaitSem | IgcState::WaitTx => {
                let pc = usize::from(igc.last_pc);
                if let Some(c) = self.by_pc.get_mut(pc) {
                    c.add(cause);
                }
                if cause == Cause::Executing && igc.state != IgcState::Fault {
                    let m = &igc.last;
                    let taken = if m.fc.is_some() {
                        Some(igc.pc != igc.last_pc.wrapping_add(1))
                    } else if conditional(m.seq) {
                        Some(igc.pc == m.target)
                    } else {
                        None
                    };
                    if let (Some(t), Some(b)) = (taken, self.branches.get_mut(pc)) {
                        b[usize::from(!t)] += 1;
                    }
                }
            }
            IgcState::WaitCmd => self.outside[Outside::BetweenCommands as usize].add(cause),
            IgcState::RMode => self.outside[Outside::RMode as usize].add(cause),
            IgcState::Hang | IgcState::Fault => self.outside[Outside::Stuck as usize].add(cause),
        }
        self.state = igc.state;
    }

    fn ring_reset(&mut self, _at: u64) {
        // The IGC enters RMode.
        self.state = IgcState::RMode;
    }
}
