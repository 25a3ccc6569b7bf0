//! SIMD lane use: how many PEs a microinstruction ran on. A PE is *enabled* for a
//! microinstruction when its Enable register is set and the flow-control unit leaves it
//! active (docs/flow-control.md), both at the start of the microinstruction's cycle: the PEs
//! an Enable-masked write reaches. The microcode profile ([`super::MicrocodeProfile`])
//! counts them per execution; the profile, the annotated listing and Python's `where()`
//! report them.

use pp5_rtl::emc_array::plane;
use pp5_rtl::Renderer;
use serde::Serialize;

/// The PEs enabled now: Enable ANDed with the flow-control unit's active mask (the PEs a
/// microinstruction started now writes where it writes only Enabled pixels).
pub fn enabled_pes(board: &Renderer) -> u32 {
    let enable = &board.array.enable;
    match board.igc.fc.active_mask() {
        None => plane::count(enable),
        Some(active) => enable
            .iter()
            .zip(active.iter())
            .map(|(e, a)| (e & a).count_ones())
            .sum(),
    }
}

/// SIMD lane use of one microinstruction (or of a line, a routine: [`Lanes::merge`]): how
/// many PEs were enabled ([`enabled_pes`]) at the start of each of its executions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lanes {
    /// Executions counted.
    pub samples: u64,
    /// The enabled PEs summed over them.
    pub sum: u64,
    /// The fewest and most (0 without samples).
    pub min: u32,
    pub max: u32,
}

impl Lanes {
    /// Count `times` executions with `n` PEs enabled.
    #[inline]
    pub fn add(&mut self, n: u32, times: u64) {
        if times == 0 {
            return;
        }
        if self.samples == 0 {
            (self.min, self.max) = (n, n);
        } else {
            self.min = self.min.min(n);
            self.max = self.max.max(n);
        }
        self.samples += times;
        self.sum += u64::from(n) * times;
    }

    /// Add another count's executions.
    pub fn merge(&mut self, other: &Lanes) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = *other;
            return;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.samples += other.samples;
        self.sum += other.sum;
    }

    /// The mean enabled PEs per execution (`None` without samples).
    pub fn mean(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.sum as f64 / self.samples as f64)
    }

    /// Min, mean and max as reports show them (`None` without samples).
    pub fn stats(&self) -> Option<LaneStats> {
        Some(LaneStats {
            min: self.min,
            mean: self.mean()?,
            max: self.max,
        })
    }
}

/// The enabled PEs of a microinstruction's executions: fewest, mean, most.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LaneStats {
    pub min: u32,
    pub mean: f64,
    pub max: u32,
}

impl LaneStats {
    /// `min/mean/max`, the mean to one decimal.
    pub fn text(&self) -> String {
        format!("{}/{:.1}/{}", self.min, self.mean, self.max)
    }
}
