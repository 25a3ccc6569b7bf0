//! What the waveform shows beside the board's registers ([`TraceCtx`]: the command names, the
//! traced EMCs and probe pixels, the skip keys the waveform writer keeps), and the board as
//! the waveform walks it ([`TraceView`]: its registers with that context; the walk is in
//! `trace.rs`). The board's step never touches the context.

use super::Renderer;
use crate::emc_array::Probe;
use crate::igc::IgcNames;

/// What the waveform shows beside the board's registers, kept by whoever walks the board
/// (the simulator's waveform observer): not the hardware's state.
#[derive(Clone, Debug, Default)]
pub struct TraceCtx {
    /// The names the IGC's scope shows: the commands' and the microinstructions' sources.
    pub igc: IgcNames,
    /// The EMCs whose QEE is shown as `renderer.emc[k].qee` (bit k = EMC k); `None`: EMC 0
    /// and the EMCs holding the probe pixels. Fix it before the first walk.
    pub emcs: Option<u64>,
    /// The probe pixels, traced as `renderer.pixel_<x>_<y>`, each with its sample of the last
    /// cycle (taken by whoever keeps the context). Fix the set before the first walk.
    pub probes: Vec<Probe>,
    /// [`TraceCtx::fc_key`] is kept up to date (by the waveform observer). When false, the
    /// walk keys the flow-control unit's scope by the cycle number instead: exact, never
    /// skipped between two cycles.
    pub keyed: bool,
    /// Key of the flow-control unit's scope: must change in every cycle in which the unit
    /// changed (the board's [`super::CycleRecord::fc_changed`]) and never repeat a value.
    pub fc_key: u64,
    /// The largest cycle number the run can reach (its cycle limit): `renderer.cycle` is as
    /// wide as that needs. 0: not known, 64 bits.
    pub max_cycle: u64,
}

impl TraceCtx {
    /// The key of the flow-control unit's scope for the walk of `board`:
    /// [`TraceCtx::fc_key`], or the cycle number when it is not kept (odd, so the two kinds
    /// never meet).
    #[inline]
    pub fn fc_key(&self, board: &Renderer) -> u64 {
        if self.keyed {
            self.fc_key << 1
        } else {
            board.cycle << 1 | 1
        }
    }

    /// The width of `renderer.cycle`: the bits of [`TraceCtx::max_cycle`] (64 when unknown).
    pub fn cycle_bits(&self) -> u32 {
        match self.max_cycle {
            0 => 64,
            m => 64 - m.leading_zeros(),
        }
    }
}

/// The board as the waveform walks it: its registers, its last cycle's record and the
/// waveform's context.
#[derive(Clone, Copy)]
pub struct TraceView<'a> {
    pub board: &'a Renderer,
    pub ctx: &'a TraceCtx,
}

impl TraceView<'_> {
    /// The EMCs whose QEE the waveform shows as `renderer.emc[k].qee` (bit k = EMC k): the
    /// selection in [`TraceCtx::emcs`], or by default EMC 0 and the EMCs holding the probe
    /// pixels.
    pub fn traced_emcs(&self) -> u64 {
        self.ctx
            .emcs
            .unwrap_or_else(|| self.ctx.probes.iter().fold(1, |m, p| m | 1 << p.emc))
    }
}

#[cfg(test)]
mod tests {
    use super::TraceCtx;

    #[test]
    fn the_cycle_number_is_as_wide_as_the_limit_needs() {
        let width = |max_cycle| {
            TraceCtx {
                max_cycle,
                ..TraceCtx::default()
            }
            .cycle_bits()
        };
        assert_eq!(width(0), 64);
        assert_eq!(width(1), 1);
        assert_eq!(width(100_000_000), 27);
        assert_eq!(width((1 << 27) - 1), 27);
        assert_eq!(width(1 << 27), 28);
        assert_eq!(width(u64::MAX), 64);
    }
}
