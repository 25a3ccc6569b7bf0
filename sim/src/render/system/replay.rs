//! The study's frames replayed (docs/rendering.md, "Which rows are simulated, which
//! derived"): every frame of a study runs the same regions on each Renderer in the same
//! order (round robin), so what the PEs' data decided is the same in each; only the times
//! differ. The full system's frame records it ([`pp5_rtl::renderer::replay`]), and the
//! study's other frames replay it: their Renderers run every control block cycle for cycle,
//! without the array, the QEE's evaluations or the transfers' data, and give the same cycles
//! as a full simulation. A frame whose Renderers meet anything the recorded frame did not
//! (another region order under next-free, another flow-control instruction) is run again in
//! full, as is every frame when the recorded frame's data depended on timing (a transfer
//! conflict) or `PP5_NO_SKIP` is set.

use super::board::Board;
use super::SystemError;
use pp5_rtl::renderer::replay::DataLog;
use std::sync::Arc;

/// What each Renderer of a recorded frame met: its data's decisions and its regions, in
/// order.
#[derive(Clone, Debug)]
pub struct Recorded {
    boards: Vec<(Arc<DataLog>, Arc<[usize]>)>,
}

/// How a frame's Renderers treat their data.
#[derive(Clone, Copy, Debug)]
pub enum DataTaps<'a> {
    /// Computed, nothing kept.
    Compute,
    /// Computed, and recorded for the study's other frames ([`super::FrameRun::recorded`]).
    Record,
    /// Replayed from a recorded frame: the frame's pixels are not computed.
    Replay(&'a Recorded),
}

impl DataTaps<'_> {
    /// Set the taps of a frame's boards, before their first cycle.
    pub(super) fn install(self, boards: &mut [Board]) {
        for b in boards.iter_mut() {
            match self {
                DataTaps::Compute => {}
                DataTaps::Record => b.sim.board.record_data(),
                DataTaps::Replay(rec) => {
                    if let Some((log, regions)) = rec.boards.get(b.index) {
                        b.sim.board.replay_data(log.clone());
                        b.replay_regions = Some(regions.clone());
                    }
                }
            }
        }
    }

    /// The recording of a frame's finished boards (`None` unless recording, or when a log
    /// may not be replayed); with a replay, whether every board replayed its log exactly.
    pub(super) fn finish(self, boards: &mut [Board]) -> Result<Option<Recorded>, SystemError> {
        match self {
            DataTaps::Compute => Ok(None),
            DataTaps::Record => {
                let mut rec = Vec::new();
                for b in boards.iter_mut() {
                    match b.sim.board.take_data_log() {
                        Some(log) if log.replayable() => {
                            let regions: Vec<usize> = b.plans.iter().map(|p| p.region).collect();
                            rec.push((Arc::new(log), regions.into()));
                        }
                        _ => return Ok(None),
                    }
                }
                Ok(Some(Recorded { boards: rec }))
            }
            DataTaps::Replay(_) => {
                for b in boards.iter() {
                    b.replay_check(true)?;
                }
                Ok(None)
            }
        }
    }
}

/// Whether the study replays its frames ([`crate::engine::skip_by_default`]: `PP5_NO_SKIP`
/// turns the replay off with the skipping, for checking).
pub fn replay_by_default() -> bool {
    crate::engine::skip_by_default()
}

impl Board<'_> {
    /// Whether this board's replay is still the recorded run (`ended`: the run is over, and
    /// must have met everything the recorded one did): an error says why not.
    pub(super) fn replay_check(&self, ended: bool) -> Result<(), SystemError> {
        match self.sim.board.replay_error(ended) {
            None => Ok(()),
            Some(e) => Err(SystemError(format!(
                "Renderer {}: the replay is not the recorded frame: {e}",
                self.index
            ))),
        }
    }

    /// Region `r` is the next this board sends: a replay must send the recorded regions,
    /// in order.
    pub(super) fn replay_region(&self, r: usize) -> Result<(), SystemError> {
        match &self.replay_regions {
            Some(rs) if rs.get(self.plans.len()) != Some(&r) => Err(SystemError(format!(
                "Renderer {}: region {r} is not the recorded frame's next region",
                self.index
            ))),
            _ => Ok(()),
        }
    }
}
