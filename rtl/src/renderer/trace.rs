//! The board in the waveform: scope `renderer` (the cycle number, the 20 MHz enable, the
//! status word, LEDs and AEO, the IGC timeout counter) holding every block's scope.
//!
//! The walk is a separate pass over the board's state after a cycle ([`TraceView`]): what
//! the waveform shows beside the registers (the command names, the traced EMCs, the skip
//! keys the waveform writer keeps) is its context, [`TraceCtx`], which the board's step never
//! touches.

use super::{leds_from, Renderer};
use crate::clock::ring_enable;
use crate::emc_array::Probe;
use crate::flow_control::PeFlowState;
use crate::igc::IgcNames;
use crate::status::ST_AEO_STRIPES;
use crate::trace::{bit, Traced, Tracer, Wave};

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

/// The board's status word, LEDs and AEO: the status word and the inputs of the LEDs that
/// are not in it.
#[derive(Wave)]
struct Top {
    status: u32,
    #[wave(bits = 8, hide, then(
        leds: 16 = leds_from(status as u32, led_extra as u32),
        aeo: 1 = status >> ST_AEO_STRIPES & 0xf == 0,
    ))]
    led_extra: u32,
}

/// A probe pixel's EMC and flow-control view.
#[derive(Wave)]
struct ProbePlace {
    #[wave(bits = 6)]
    emc: u64,
    fc_active: bool,
    #[wave(bits = 5)]
    fc_bcnt: u32,
    fc_state: PeFlowState,
}

impl Traced for TraceView<'_> {
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        let (b, ctx) = (self.board, self.ctx);
        b.trace_board(t, ctx, self.traced_emcs());
    }
}

impl Renderer {
    /// The walk of [`TraceView`]: scope `renderer` and every block's scope in it.
    fn trace_board<T: Tracer + ?Sized>(&self, t: &mut T, ctx: &TraceCtx, emcs: u64) {
        t.push_scope("renderer");
        // The cycle number, as the reports count cycles (a simulation annotation: the
        // hardware has no such counter), so a cursor in the viewer reads the report's cycles.
        t.bits("cycle", ctx.cycle_bits(), self.cycle);
        // Changes every other cycle: cheaper walked than in the record.
        bit(t, "clk20_en", ring_enable(self.cycle.wrapping_sub(1)));
        Top {
            status: self.status(),
            led_extra: self.led_extra(),
        }
        .record_group(t);
        // The IGC timeout counter counts while a command waits: walked alone.
        t.bits("timeout_count", 17, self.timeout_count);
        self.igc_port.trace(t);
        self.bs_port.trace(t);
        self.bs_sem.record(t, "bs_sem");
        self.igc_sem.record(t, "igc_sem");
        self.transfer.trace(t);
        self.igc.trace(t, &ctx.igc, ctx.fc_key(self));
        self.qee.trace(t);
        self.qee.trace_emcs(t, emcs);
        self.array.trace(t, &self.record.array_op);
        self.trace_probes(t, &ctx.probes);
        t.pop_scope();
    }

    /// The probe pixels as sibling scopes `pixel_<x>_<y>` of `renderer`, each with two
    /// records: the ALU view ([`Probe::trace_alu`]), and the EMC and flow-control view
    /// ([`ProbePlace`]), which changes seldom (the writer thread decodes only a record
    /// whose words changed).
    #[inline]
    fn trace_probes<T: Tracer + ?Sized>(&self, t: &mut T, probes: &[Probe]) {
        for p in probes {
            t.push_scope(&p.scope);
            p.trace_alu(t, &self.array);
            let fc = &self.igc.fc;
            // Every PE active (the common case): the view every probe has, without a call.
            let (fc_active, fc_bcnt, fc_state) = match fc.all_active {
                true => (true, 0, PeFlowState::Active),
                false => fc.pe_view(p.x, p.y),
            };
            ProbePlace {
                emc: p.emc,
                fc_active,
                fc_bcnt,
                fc_state,
            }
            .record_group(t);
            t.pop_scope();
        }
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
