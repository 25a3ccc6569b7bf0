//! The board in the waveform: scope `renderer` (the cycle number, the 20 MHz enable, the
//! status word, LEDs and AEO, the IGC timeout counter) holding every block's scope: the walk
//! of [`TraceView`], a separate pass over the board's state after a cycle, with the
//! waveform's context ([`TraceCtx`], `trace_ctx.rs`).

use super::{leds_from, Renderer, TraceCtx, TraceView};
use crate::clock::ring_enable;
use crate::emc_array::Probe;
use crate::flow_control::PeFlowState;
use crate::status::ST_AEO_STRIPES;
use crate::trace::{bit, wave_view, Traced, Tracer, Wave};

/// The board's status word, LEDs and AEO: the status word and the inputs of the LEDs that
/// are not in it.
#[wave_view(Renderer)]
struct Top {
    #[wave(get = self.status())]
    status: u32,
    #[wave(bits = 8, hide, get = self.led_extra(), then(
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
        Top(self).record_group(t);
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
