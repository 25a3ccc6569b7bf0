//! The unit's decisions that depend on the PEs' data, kept in one run and given back in
//! another that executes the same instructions without the array's data (the timing study's
//! replay: docs/rendering.md, "Which rows are simulated, which derived").
//!
//! Of [`FlowControl::step`](super::FlowControl::step), only the vote, the number of PEs a
//! branch counter overflowed at and whether every PE is active afterwards read the per-PE
//! planes; the decision, the stacks, the loop counters and aL follow from them and from the
//! instruction. A replayed unit takes those three from the log and computes the rest, so
//! its scalar state (what the IGC reads: the jump, aL, the errors, "every PE active") is the
//! recorded run's, and its planes are not kept.

use super::step::Vote;
use std::sync::Arc;

/// What one flow-control instruction took from the PEs' data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FcDecision {
    /// The instruction's address: a replay that reaches another instruction has diverged.
    pub pc: u16,
    pub(super) vote: Vote,
    /// PEs whose branch counter overflowed (0: none).
    pub(super) overflow_pes: u32,
    /// Every PE is active after the instruction.
    pub(super) all_active: bool,
}

/// The unit's data tap: recording its decisions, or replaying recorded ones.
#[derive(Clone, Debug)]
pub enum FcTap {
    Record(Vec<FcDecision>),
    Replay {
        log: Arc<[FcDecision]>,
        /// The next decision to give back.
        next: usize,
        /// The instruction at which the replay met an instruction the log does not have
        /// next (the run is not the recorded one).
        diverged: Option<u16>,
    },
}

impl FcTap {
    /// The recorded decision for the instruction at `pc`, when replaying; `None` when
    /// recording, or when the log has another instruction next (the divergence is kept).
    pub(super) fn replayed(&mut self, pc: u16) -> Option<FcDecision> {
        let FcTap::Replay {
            log,
            next,
            diverged,
        } = self
        else {
            return None;
        };
        match log.get(*next) {
            Some(d) if d.pc == pc && diverged.is_none() => {
                *next += 1;
                Some(*d)
            }
            _ => {
                diverged.get_or_insert(pc);
                None
            }
        }
    }

    /// Keep a decision, when recording.
    pub(super) fn record(&mut self, d: FcDecision) {
        if let FcTap::Record(log) = self {
            log.push(d);
        }
    }

    /// The replay met an instruction the log does not have next.
    pub fn diverged(&self) -> bool {
        matches!(
            self,
            FcTap::Replay {
                diverged: Some(_),
                ..
            }
        )
    }

    /// Whether a replay gave back exactly the log: every decision, in order, and no other.
    pub fn replay_error(&self) -> Option<String> {
        match self {
            FcTap::Record(_) => None,
            FcTap::Replay {
                diverged: Some(pc), ..
            } => Some(format!(
                "flow control at PC {} is not the recorded run's next instruction",
                crate::igc::store::pc_text(*pc)
            )),
            FcTap::Replay { log, next, .. } if *next < log.len() => Some(format!(
                "{} of {} recorded flow-control decisions were not reached",
                log.len() - next,
                log.len()
            )),
            FcTap::Replay { .. } => None,
        }
    }
}
