//! The EMC array in the waveform: scope `emc_array` (AEO, the stripes, the Enable count, the
//! operands of the last operation) and the probe pixels' ALU view (from each probe's sample
//! of the last cycle, `probe.rs`). All are records, decoded on the writer's thread.

use super::probe::{Probe, ProbeAlu};
use super::{ArrayOp, BSource, EmcArray};
use crate::trace::{wave_view, Packed, Tracer};

impl Probe {
    /// The probe's ALU view as a record of the caller's scope (the pixel's): Enable and Carry
    /// now, and the ALU's inputs and outputs of the last cycle ([`ProbeAlu`]).
    #[inline]
    pub fn trace_alu<T: Tracer + ?Sized>(&self, t: &mut T, array: &EmcArray) {
        let now = Packed::new(&ProbeAlu {
            enable_now: self.bit(&array.enable),
            carry_now: self.bit(&array.carry),
            ..ProbeAlu::default()
        });
        t.record_group(&[self.sample.merged(now).bits()], ProbeAlu::decode);
    }
}

/// The AEO, the stripes and the Enable count: they change with Enable.
#[wave_view(EmcArray)]
struct ArrayRegs {
    #[wave(bits = 1, each = "stripe{}", before(aeo: 1 = stripes == [0; 4]), get = {
        let s = self.stripe_bits();
        std::array::from_fn(|k| s >> k & 1 != 0)
    })]
    stripes: [bool; 4],
    #[wave(bits = 15, get = self.counts.enable(&self.enable))]
    enable_count: u32,
}

/// The operands of the last operation: the resolved addresses and sources the array used
/// (the truth tables and write enables are in renderer.igc.uinst).
#[wave_view(ArrayOp)]
struct Operands {
    #[wave(get = self.a.unwrap_or(0))]
    a_addr: u8,
    #[wave(get = self.a.is_some())]
    a_en: bool,
    #[wave(name, get = self.b)]
    b_src: BSource,
    #[wave(get = match self.b { BSource::Mem(b) => b, _ => 0 })]
    b_addr: u8,
    #[wave(rename = "mem_we", get = self.w.is_some())]
    w_en: bool,
    #[wave(get = self.w.unwrap_or(0))]
    w_addr: u8,
}

impl EmcArray {
    /// Trace the array as scope `emc_array`, with `op`, the last operation it executed (the
    /// board's cycle record keeps it).
    #[inline]
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, op: &ArrayOp) {
        t.push_scope("emc_array");
        ArrayRegs(self).record_group(t);
        Operands(op).record_group(t);
        t.pop_scope();
    }
}
