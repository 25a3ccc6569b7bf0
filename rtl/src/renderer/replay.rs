//! The timing study's replay (docs/rendering.md, "Which rows are simulated, which
//! derived"): a board that runs the same commands as a recorded run, at other times, takes
//! what the PEs' data decided from the recorded run's log instead of computing the array,
//! the QEE and the transfers' data.
//!
//! The data reaches the board's control in two places only: AEO (the IGC's conditional
//! jumps, the Stream Parser's conditional messages, the status word's stripes) and the
//! flow-control unit's vote (its own log, [`crate::flow_control::replay`]); addresses,
//! counts and the command words come from the commands. AEO changes only when the array
//! executes an operation or the flow-control unit's active PEs change (an *array event*,
//! counted the same way in both runs), so the log keeps the stripes after each event that
//! changed them, by event number.
//!
//! The replay is exact when the board runs the recorded run's commands. A replay that meets
//! anything the recorded run did not says so ([`Renderer::replay_error`]) and its caller
//! runs the frame in full instead: another command (each command the IGC takes is logged
//! as a hash of its words); another flow-control instruction; a conditional message
//! flushed in one run and not in the other (AEO sampled at another point of the IGC's
//! work: the commands differ from then on); a transfer conflict, whose data depends on
//! timing.

use super::Renderer;
use crate::emc_array::ArrayOp;
use crate::flow_control::replay::{FcDecision, FcTap};
use std::sync::Arc;

/// What a recorded run's data decided, in the order its board met it.
#[derive(Clone, Debug, Default)]
pub struct DataLog {
    /// The AEO stripes (status bits 0-3) after each array event that changed them: (event
    /// number, stripes).
    stripes: Vec<(u64, u32)>,
    /// The flow-control unit's decisions.
    fc: Arc<[FcDecision]>,
    /// Array events in the whole run.
    events: u64,
    /// Whether each conditional message was flushed, in order.
    flushes: Vec<bool>,
    /// Each command the IGC took, in order: a hash of its words ([`command_hash`]).
    commands: Vec<u32>,
    /// The run met a transfer conflict (an access to bits 0-31 during a transfer): its data
    /// depended on timing, so the log may not be replayed.
    conflict: bool,
}

impl DataLog {
    /// Whether another run of the same commands may replay this log.
    pub fn replayable(&self) -> bool {
        !self.conflict
    }
}

/// The board's data tap.
#[derive(Clone, Debug)]
pub(super) enum DataTap {
    Record {
        log: DataLog,
        /// The stripes as last logged.
        last: u32,
    },
    Replay {
        log: Arc<DataLog>,
        /// The next stripes change to make.
        next: usize,
        /// Array events so far.
        events: u64,
        /// Conditional messages so far.
        flushes: usize,
        /// Commands taken so far.
        commands: usize,
        /// Why the run is not the recorded one, once it is not.
        diverged: Option<String>,
    },
}

/// The Stream Parser's conditional messages and flushes and the IGC's commands, as the tap
/// last saw them.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TapSeen {
    conditional: u64,
    flushed: u64,
    commands: u64,
}

/// A hash of the command the IGC took last (its opcode, P word and coefficients), which a
/// replay compares with the recorded run's.
fn command_hash(igc: &crate::igc::Igc) -> u32 {
    let words = [igc.opcode, igc.pword].into_iter().chain(igc.coef);
    let h = words.fold(0xcbf2_9ce4_8422_2325u64, |h, w| {
        (h ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    (h ^ h >> 32) as u32
}

impl Renderer {
    /// Record what the PEs' data decides from now on, for [`Renderer::take_data_log`].
    pub fn record_data(&mut self) {
        self.tap = Some(Box::new(DataTap::Record {
            log: DataLog::default(),
            last: self.array.stripe_bits(),
        }));
        self.tap_seen = self.seen_now();
        self.igc.fc.tap = Some(Box::new(FcTap::Record(Vec::new())));
    }

    /// Stop recording (or replaying) and return the log recorded.
    pub fn take_data_log(&mut self) -> Option<DataLog> {
        let fc = self.igc.fc.tap.take();
        match self.tap.take().map(|t| *t) {
            Some(DataTap::Record { mut log, .. }) => {
                if let Some(FcTap::Record(d)) = fc.map(|t| *t) {
                    log.fc = d.into();
                }
                Some(log)
            }
            _ => None,
        }
    }

    /// From now on, take what the PEs' data decides from `log` (recorded by a board that was
    /// in this board's state when it began recording) and leave the array, the QEE's
    /// evaluations and the transfers' data alone: the board's timing, its control state and
    /// its reports are the recorded run's for the same commands, its pixels are not kept.
    pub fn replay_data(&mut self, log: Arc<DataLog>) {
        self.igc.fc.tap = Some(Box::new(FcTap::Replay {
            log: log.fc.clone(),
            next: 0,
            diverged: None,
        }));
        self.tap = Some(Box::new(DataTap::Replay {
            log,
            next: 0,
            events: 0,
            flushes: 0,
            commands: 0,
            diverged: None,
        }));
        self.tap_seen = self.seen_now();
    }

    /// Whether this board replays a log (its pixels are not computed).
    pub fn replaying(&self) -> bool {
        matches!(self.tap.as_deref(), Some(DataTap::Replay { .. }))
    }

    /// Why a replay is not the recorded run: it met something the recorded run did not, or
    /// (`ended`: the run is over) it did not reach everything the recorded run did. `None`
    /// when not replaying.
    pub fn replay_error(&self, ended: bool) -> Option<String> {
        let Some(DataTap::Replay {
            log,
            events,
            flushes,
            commands,
            diverged,
            ..
        }) = self.tap.as_deref()
        else {
            return None;
        };
        if let Some(d) = diverged {
            return Some(d.clone());
        }
        // The flow-control unit's log: diverged, or (at the end) not all given back.
        let fc = self.igc.fc.tap.as_deref();
        if let Some(e) = fc
            .filter(|t| ended || t.diverged())
            .and_then(FcTap::replay_error)
        {
            return Some(e);
        }
        if ended && *commands != log.commands.len() {
            return Some(format!(
                "{commands} commands replayed, {} recorded",
                log.commands.len()
            ));
        }
        if ended && *flushes != log.flushes.len() {
            return Some(format!(
                "{flushes} conditional messages replayed, {} recorded",
                log.flushes.len()
            ));
        }
        (ended && *events != log.events)
            .then(|| format!("{events} array events replayed, {} recorded", log.events))
    }

    /// The Stream Parser's conditional messages and flushes and the IGC's commands so far.
    fn seen_now(&self) -> TapSeen {
        let p = &self.igc_port.parser;
        TapSeen {
            conditional: p.conditional,
            flushed: p.flushed,
            commands: self.igc.commands,
        }
    }

    /// The tap's part of a cycle (after the IGC and the Stream Parser, in place of the
    /// array's part, which executes `op`): what the data decided is logged or replayed.
    /// (Cold: the untapped step's code is laid out without it.)
    #[cold]
    #[inline(never)]
    pub(super) fn tapped(&mut self, op: ArrayOp) {
        self.control_tapped();
        self.emc_array_tapped(&op);
    }

    /// The IGC's and the Stream Parser's part of a cycle while tapped: the command the IGC
    /// took, and a conditional message's flush (AEO as the parser sampled it), are logged
    /// or compared with the log.
    #[inline]
    fn control_tapped(&mut self) {
        let now = self.seen_now();
        if now.commands != self.tap_seen.commands {
            self.command_tapped();
        }
        if now.conditional == self.tap_seen.conditional {
            self.tap_seen = now;
            return;
        }
        let flushed = now.flushed != self.tap_seen.flushed;
        self.tap_seen = now;
        match self.tap.as_deref_mut() {
            Some(DataTap::Record { log, .. }) => log.flushes.push(flushed),
            Some(DataTap::Replay {
                log,
                flushes,
                diverged,
                ..
            }) => {
                if log.flushes.get(*flushes) != Some(&flushed) {
                    diverged.get_or_insert_with(|| {
                        format!(
                            "conditional message {} was {} in the recorded run",
                            *flushes + 1,
                            if flushed { "not flushed" } else { "flushed" }
                        )
                    });
                }
                *flushes += 1;
            }
            None => {}
        }
    }

    /// A command the IGC took, logged or compared with the log.
    #[inline(never)]
    fn command_tapped(&mut self) {
        let h = command_hash(&self.igc);
        match self.tap.as_deref_mut() {
            Some(DataTap::Record { log, .. }) => log.commands.push(h),
            Some(DataTap::Replay {
                log,
                commands,
                diverged,
                ..
            }) => {
                if log.commands.get(*commands) != Some(&h) {
                    diverged.get_or_insert_with(|| {
                        format!("command {} is not the recorded run's", *commands + 1)
                    });
                }
                *commands += 1;
            }
            None => {}
        }
    }

    /// The array's part of a cycle while tapped: recording, the array executes and the
    /// stripes are logged when they change; replaying, the stripes are set from the log.
    /// An array event is a cycle whose operation writes something or in which the
    /// flow-control unit changed (the cycles in which AEO can change).
    #[inline]
    fn emc_array_tapped(&mut self, op: &ArrayOp) {
        let event = !op.is_nop() || self.igc.fc_changed;
        if !self.replaying() {
            self.emc_array(op);
        }
        match self.tap.as_deref_mut() {
            Some(DataTap::Record { log, last }) => {
                let now = self.array.stripe_bits();
                log.events += event as u64;
                if now != *last {
                    // AEO changed in a cycle that is not an event: nothing to key it by.
                    log.conflict |= !event;
                    log.stripes.push((log.events, now));
                    *last = now;
                }
            }
            Some(DataTap::Replay {
                log, next, events, ..
            }) => {
                *events += event as u64;
                if let Some(&(at, stripes)) = log.stripes.get(*next) {
                    if at == *events {
                        self.array.set_stripe_bits(stripes);
                        *next += 1;
                    }
                }
                self.record = super::CycleRecord {
                    array_op: *op,
                    fc_changed: self.igc.fc_stepped,
                };
            }
            None => {}
        }
    }

    /// A transfer conflict (its data depends on timing): a recorded log may not be
    /// replayed, a replay is not the recorded run.
    pub(super) fn tap_conflict(&mut self) {
        match self.tap.as_deref_mut() {
            Some(DataTap::Record { log, .. }) => log.conflict = true,
            Some(DataTap::Replay { diverged, .. }) => {
                diverged.get_or_insert_with(|| {
                    "a transfer conflict (its data depends on timing)".into()
                });
            }
            None => {}
        }
    }
}
