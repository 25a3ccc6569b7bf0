//! The microcode profile: every IGC cycle charged to the microinstruction it executed (or was
//! stalled on), by cause, and every conditional sequencer branch's outcomes (taken, not
//! taken). It is what the microcode author's coverage (lcov tracefile) and profile (cycles per
//! routine and source line) are made from (the microcode view).
//!
//! A cycle is charged to the microinstruction at `last_pc` when the IGC started it in `Run`
//! or stalled on a handshake (`WAIT_XFER`, `WAIT_SEM`, `WAIT_TX`); otherwise to where the IGC
//! was instead: between commands (waiting at a DISPATCH for the next command), in RMode (the
//! hardwired RMode commands: the microcode boot), or stuck (HANG, an illegal
//! microinstruction). The cycles of all charges add up to the run's cycles, and their causes
//! to the IGC's cycles by cause.
//!
//! SIMD lane use: each execution also counts the PEs *enabled* when the microinstruction
//! started, the Enable plane ANDed with the flow-control unit's active mask at the start of
//! its cycle ([`enabled_pes`]; [`Lanes`]: min, mean, max per microinstruction). Only a board
//! with a profile pays for the count: a popcount over the 256 words of a bit plane at the end
//! of each cycle after which the IGC may execute.

use super::lanes::{enabled_pes, Lanes};
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

/// What was counted when the boot ended ([`MicrocodeProfile::mark_boot`]).
#[derive(Clone, Debug)]
struct AtBoot {
    by_pc: Vec<CauseCounts>,
    outside: [CauseCounts; 3],
    branches: Vec<[u64; 2]>,
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
    /// Per microinstruction address: the PEs enabled at the start of its executions (since
    /// the boot: [`MicrocodeProfile::mark_boot`] starts them again).
    pub lanes: Vec<Lanes>,
    /// The IGC's state at the start of the next cycle (after the last one observed).
    state: IgcState,
    /// The PEs enabled at the start of the next cycle, when the IGC may execute in it
    /// (`None` before the first cycle observed, or while the IGC cannot execute).
    next_lanes: Option<u32>,
    /// The counts when the microcode boot ended ([`MicrocodeProfile::mark_boot`]): the
    /// profile's rows leave them out, so its shares are of the user's stream.
    at_boot: Option<Box<AtBoot>>,
}

impl MicrocodeProfile {
    /// An empty profile for a board whose IGC is now in `state`.
    pub fn new(state: IgcState) -> MicrocodeProfile {
        MicrocodeProfile {
            by_pc: vec![CauseCounts::default(); CONTROL_STORE_UINSTS],
            outside: [CauseCounts::default(); 3],
            branches: vec![[0; 2]; CONTROL_STORE_UINSTS],
            lanes: vec![Lanes::default(); CONTROL_STORE_UINSTS],
            state,
            next_lanes: None,
            at_boot: None,
        }
    }

    /// The microcode boot ended now: what was counted so far is the boot's. The lane counts
    /// start again (a minimum cannot be taken back).
    pub fn mark_boot(&mut self) {
        self.at_boot = Some(Box::new(AtBoot {
            by_pc: self.by_pc.clone(),
            outside: self.outside,
            branches: self.branches.clone(),
        }));
        self.lanes.fill(Lanes::default());
    }

    /// The branch outcomes since the boot ([`MicrocodeProfile::mark_boot`]; all of them
    /// without a mark), per microinstruction address: (taken, not taken).
    pub fn branches_since_boot(&self) -> Vec<[u64; 2]> {
        match &self.at_boot {
            None => self.branches.clone(),
            Some(b) => (self.branches.iter().zip(&b.branches))
                .map(|(n, e)| [n[0].saturating_sub(e[0]), n[1].saturating_sub(e[1])])
                .collect(),
        }
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
                    .zip(&b.by_pc)
                    .map(|(n, e)| n.since(e))
                    .collect();
                let outside = std::array::from_fn(|k| self.outside[k].since(&b.outside[k]));
                let boot = (b.by_pc.iter().chain(&b.outside))
                    .map(CauseCounts::total)
                    .sum();
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
        for (a, b) in self.lanes.iter_mut().zip(&other.lanes) {
            a.merge(b);
        }
    }

    /// Charge `n` cycles, each as `cx` shows the cycle, to where the IGC was at its start
    /// (`self.state`): `n` executions of the same microinstruction count the same outcome
    /// and the same enabled PEs.
    #[inline]
    fn charge(&mut self, cx: &Cx, n: u64) {
        let igc = &cx.board.igc;
        let cause = cx.igc_cause;
        match self.state {
            IgcState::Run | IgcState::WaitXfer | IgcState::WaitSem | IgcState::WaitTx => {
                let pc = usize::from(igc.last_pc);
                if let Some(c) = self.by_pc.get_mut(pc) {
                    c.0[cause as usize] += n;
                }
                if cause == Cause::Executing && igc.state != IgcState::Fault {
                    if let (Some(l), Some(lanes)) = (self.next_lanes, self.lanes.get_mut(pc)) {
                        lanes.add(l, n);
                    }
                    let m = &igc.last;
                    let taken = if m.fc.is_some() {
                        Some(igc.pc != igc.last_pc.wrapping_add(1))
                    } else if conditional(m.seq) {
                        Some(igc.pc == m.target)
                    } else {
                        None
                    };
                    if let (Some(t), Some(b)) = (taken, self.branches.get_mut(pc)) {
                        b[usize::from(!t)] += n;
                    }
                }
            }
            IgcState::WaitCmd => {
                self.outside[Outside::BetweenCommands as usize].0[cause as usize] += n
            }
            IgcState::RMode => self.outside[Outside::RMode as usize].0[cause as usize] += n,
            IgcState::Hang | IgcState::Fault => {
                self.outside[Outside::Stuck as usize].0[cause as usize] += n
            }
        }
        self.state = igc.state;
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
        self.charge(cx, 1);
        // The PEs the next cycle's microinstruction starts with: counted only when the IGC
        // may execute in it.
        self.next_lanes = matches!(
            self.state,
            IgcState::Run | IgcState::WaitXfer | IgcState::WaitSem | IgcState::WaitTx
        )
        .then(|| enabled_pes(cx.board));
    }

    /// Still cycles are charged whole ([`Observer::still`]).
    #[inline]
    fn needs_from(&self, _now: u64) -> u64 {
        u64::MAX
    }

    /// `n` still cycles: the board does not change, so the enabled PEs stay what they were
    /// at the first.
    fn still(&mut self, n: u64, cx: &mut Cx) {
        if n == 0 {
            return;
        }
        // The first starts where the cycle before left the IGC; the others where it stays.
        self.charge(cx, 1);
        self.charge(cx, n - 1);
    }

    fn ring_reset(&mut self, _at: u64) {
        // The IGC enters RMode.
        self.state = IgcState::RMode;
    }
}

/// A microcode profile counted beside the run's own for a report outside the run (the whole
/// test suite's coverage): it counts every cycle as [`MicrocodeProfile`] does, and hands its
/// counts, with its `key`, to `done` when it is dropped.
#[derive(Clone, Debug)]
pub struct ProfileTap {
    profile: MicrocodeProfile,
    key: usize,
    done: fn(usize, &MicrocodeProfile),
}

impl ProfileTap {
    /// A tap for a board whose IGC is now in `state`.
    pub fn new(state: IgcState, key: usize, done: fn(usize, &MicrocodeProfile)) -> ProfileTap {
        ProfileTap {
            profile: MicrocodeProfile::new(state),
            key,
            done,
        }
    }
}

impl Observer for ProfileTap {
    #[inline]
    fn cycle(&mut self, cx: &mut Cx) {
        self.profile.cycle(cx);
    }

    #[inline]
    fn needs_from(&self, now: u64) -> u64 {
        self.profile.needs_from(now)
    }

    fn still(&mut self, n: u64, cx: &mut Cx) {
        self.profile.still(n, cx);
    }

    fn ring_reset(&mut self, at: u64) {
        self.profile.ring_reset(at);
    }
}

impl Drop for ProfileTap {
    fn drop(&mut self) {
        (self.done)(self.key, &self.profile);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::microcode::default_image;
    use crate::engine::{Sim, SimOptions};
    use crate::session::{prepare, RunSpec};

    /// A board in the middle of CLEAR's bit loop, with half the PEs enabled.
    fn executing() -> Sim {
        let image = default_image();
        let stream = crate::stream::text::parse("SETENABS\n", "s", &image.table).unwrap();
        let spec = RunSpec {
            image: &image,
            boot: false,
            stream: &stream,
            opts: SimOptions::default(),
            wave: None,
        };
        let mut sim = prepare(&spec).unwrap();
        let clear = crate::stream::text::parse("CLEAR 0 8\n", "s", &image.table).unwrap();
        sim.queue_stream(&clear);
        for w in sim.board.array.enable.iter_mut().step_by(2) {
            *w = u64::MAX;
        }
        sim.board.array.refresh_aeo();
        while !(sim.board.igc.state == IgcState::Run && sim.board.igc.last_pc != 0) {
            sim.step();
            assert!(sim.board.cycle < 1000, "CLEAR never ran");
        }
        sim
    }

    /// `n` still cycles count as `n` cycles shown one by one: the same causes, outcomes
    /// and enabled PEs.
    #[test]
    fn still_cycles_count_as_the_cycles_one_by_one() {
        let sim = executing();
        let mut diag = super::super::Diagnostics::default();
        let mut show = |p: &mut MicrocodeProfile, still: Option<u64>| {
            let mut cx = Cx {
                cycle: sim.board.cycle,
                board: &sim.board,
                ring: &sim.ring,
                table: &sim.table,
                index: &sim.index,
                command: None,
                igc_cause: Cause::Executing,
                bs_cause: Cause::Idle,
                diag: &mut diag,
                names: &sim.names,
                flag_format_error: false,
            };
            match still {
                None => p.cycle(&mut cx),
                Some(n) => p.still(n, &mut cx),
            }
        };
        let (mut one, mut all) = (
            MicrocodeProfile::new(IgcState::Run),
            MicrocodeProfile::new(IgcState::Run),
        );
        show(&mut one, None);
        show(&mut all, None);
        for _ in 0..5 {
            show(&mut one, None);
        }
        show(&mut all, Some(5));
        let pc = usize::from(sim.board.igc.last_pc);
        assert_eq!(one.by_pc, all.by_pc);
        assert_eq!(one.branches, all.branches);
        assert_eq!(one.lanes, all.lanes);
        assert_eq!(all.executions(pc), 6);
        // The first cycle had no count before it; the five after it had half the PEs.
        assert_eq!(
            all.lanes[pc],
            Lanes {
                samples: 5,
                sum: 5 * 8192,
                min: 8192,
                max: 8192
            }
        );
    }
}
