//! The board in the waveform: scope `renderer` (the cycle number, the 20 MHz enable, the
//! status word, LEDs and AEO, the IGC timeout counter) holding every block's scope, with the
//! usually idle blocks skipped by [`Renderer::slow_version`].

use super::{leds_from, Renderer};
use crate::clock::ring_enable;
use crate::status::ST_AEO_STRIPES;
use crate::trace::{bit, Traced, Tracer};

impl Renderer {
    /// The EMCs whose QEE the waveform shows as `renderer.emc[k].qee` (bit k = EMC k): the
    /// selection in `qee.trace_emcs`, or by default EMC 0 and the EMCs holding the probe
    /// pixels.
    pub fn traced_emcs(&self) -> u64 {
        self.qee
            .trace_emcs
            .unwrap_or_else(|| 1 | self.array.probe_emcs())
    }
}

/// The board's status word, LEDs and AEO from their record: the status word and the inputs
/// of the LEDs that are not in it (the IGC timeout counter has its own record,
/// [`decode_timeout`]).
fn decode_top(w: &[u64], t: &mut dyn Tracer) {
    let w0 = w.first().copied().unwrap_or(0);
    let st = (w0 & 0xffff_ffff) as u32;
    t.bits("status", 32, st as u64);
    t.bits("leds", 16, leds_from(st, (w0 >> 32) as u32 & 0xff) as u64);
    bit(t, "aeo", st >> ST_AEO_STRIPES & 0xf == 0);
}

/// `timeout_count` from its record.
fn decode_timeout(w: &[u64], t: &mut dyn Tracer) {
    t.bits("timeout_count", 17, w.first().copied().unwrap_or(0));
}

impl Traced for Renderer {
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        if !t.enter("renderer", None) {
            return;
        }
        // The cycle number, as the reports count cycles (a simulation annotation: the
        // hardware has no such counter), so a cursor in the viewer reads the report's cycles.
        t.bits("cycle", 64, self.cycle);
        // Changes every other cycle: cheaper walked than in the record.
        bit(t, "clk20_en", ring_enable(self.cycle.wrapping_sub(1)));
        t.record_group(
            &[self.status() as u64 | (self.led_extra() as u64) << 32],
            decode_top,
        );
        // Counts while a command waits: its own record, so the status is not decoded again.
        t.record_group(&[self.timeout_count], decode_timeout);
        let slow = self.slow_version;
        self.igc_port.trace_with(t, Some(slow));
        // The BS side (port, semaphores, transfer) is often idle: skipped by `slow_version`,
        // then by one exact key.
        if t.group(&[slow]) {
            let [b0, b1, b2, b3, b4, b5] = self.bs_port.trace_key();
            let [x0, x1] = self.transfer.trace_key();
            let bs_side = [
                b0,
                b1,
                b2,
                b3,
                b4,
                b5,
                x0,
                x1,
                self.bs_sem.trace_key() | self.igc_sem.trace_key() << 32,
            ];
            if t.group(&bs_side) {
                self.bs_port.trace(t);
                self.bs_sem.trace(t, "bs_sem");
                self.igc_sem.trace(t, "igc_sem");
                self.transfer.trace(t);
                t.end_group();
            }
            t.end_group();
        }
        self.igc.trace(t);
        let emcs = self.traced_emcs();
        if t.group(&[slow, emcs]) {
            self.qee.trace(t);
            self.qee.trace_emcs(t, emcs);
            t.end_group();
        }
        self.array.trace(t);
        self.array.trace_probes(t, &self.igc.fc);
        t.pop_scope();
    }
}
