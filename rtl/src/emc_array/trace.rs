//! The EMC array in the waveform: scope `emc_array` (AEO, the stripes, the Enable count, the
//! operands of the last operation) and the probe pixels' ALU view (from each probe's sample
//! of the last cycle, `probe.rs`). All are records, decoded on the writer's thread.

use super::probe::{probe_bits, probe_outputs, Probe};
use super::{ArrayOp, BSource, EmcArray};
use crate::trace::{wave_view, Tracer, Wave};

/// A probe pixel's Enable, Carry and ALU signals: the ALU sample (see [`probe_bits`]), from
/// which the ALU's inputs and outputs and the memory write follow.
#[derive(Wave)]
struct ProbeAlu {
    #[wave(bits = 64, hide)]
    s: u64,
    enable: bool,
    #[wave(bits = 1, then(
        alu_a: 1 = s >> probe_bits::A & 1,
        alu_b: 1 = s >> probe_bits::B & 1,
        alu_cin: 1 = s >> probe_bits::CARRY & 1,
        alu_out: 1 = probe_outputs(s).0,
        alu_cout: 1 = probe_outputs(s).1,
        mem_we: 1 = probe_outputs(s).2,
        mem_wdata: 1 = probe_outputs(s).3,
    ))]
    carry: bool,
}

impl Probe {
    /// The probe's ALU view as a record of the caller's scope (the pixel's): Enable, Carry
    /// and the ALU's inputs and outputs of the last cycle (`ProbeAlu`).
    #[inline]
    pub fn trace_alu<T: Tracer + ?Sized>(&self, t: &mut T, array: &EmcArray) {
        ProbeAlu {
            s: self.sample,
            enable: self.bit(&array.enable),
            carry: self.bit(&array.carry),
        }
        .record_group(t);
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
