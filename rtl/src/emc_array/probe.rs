//! The probe pixels: pixels chosen for the waveform, each sampled before every edge (its ALU
//! inputs and the operation's constants, [`Probe::sample`]), and what a sample implies (the
//! ALU's outputs and the memory write, [`probe_outputs`]). They are the waveform's, not the
//! array's: whoever traces the board keeps them; `trace.rs` shows them as records.

use super::plane::{self, Plane, PLANE_WORDS};
use super::{emc_of, ArrayOp, BSource, EmcArray, MEM_BITS};

/// What a probe pixel saw in the last cycle, packed for its waveform record: the ALU's
/// inputs at the pixel and the operation's constants, from which the record's decoder (on
/// the waveform writer's thread) derives the ALU and carry outputs and the memory write.
pub mod probe_bits {
    /// Carry, port B and port A before the edge: bits 2:0 are the truth tables' index
    /// `(a << 2) | (b << 1) | c`. Then Enable and "active" (flow control).
    pub const CARRY: u32 = 0;
    pub const B: u32 = 1;
    pub const A: u32 = 2;
    pub const ENABLE: u32 = 3;
    pub const ACTIVE: u32 = 4;
    /// The operation writes a memory bit (a valid address).
    pub const W_OK: u32 = 5;
    /// The operation writes at every PE, not only where Enable is set.
    pub const WR_ALL: u32 = 6;
    /// The result and carry truth tables (8 bits each).
    pub const LUT_R: u32 = 8;
    pub const LUT_C: u32 = 16;
}

/// A pixel chosen for tracing, and its last sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub x: usize,
    pub y: usize,
    /// The last cycle's sample (see [`probe_bits`]; 0 after a cycle that changed nothing).
    pub sample: u64,
    /// Where the pixel lives in a plane (word, bit number), and its EMC.
    pub word: usize,
    pub shift: u32,
    pub emc: u64,
    /// Scope name in the waveform, `pixel_<x>_<y>`.
    pub scope: String,
}

/// A probe pixel's ALU inputs before the edge (B as the operation selects it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeInputs {
    pub a: bool,
    pub b: bool,
    pub carry: bool,
    pub enable: bool,
    /// The flow-control unit leaves the PE active.
    pub active: bool,
}

impl Probe {
    /// The probe at pixel (x, y), traced as `pixel_<x>_<y>`; `None` off the array.
    pub fn new(x: usize, y: usize) -> Option<Probe> {
        if x >= plane::ARRAY_DIM || y >= plane::ARRAY_DIM {
            return None;
        }
        let (word, mask) = plane::locate(x, y);
        Some(Probe {
            x,
            y,
            sample: 0,
            word,
            shift: mask.trailing_zeros(),
            emc: emc_of(x, y) as u64,
            scope: format!("pixel_{x}_{y}"),
        })
    }

    /// The pixel's bit of plane `pl`.
    #[inline]
    pub fn bit(&self, pl: &Plane) -> bool {
        pl[self.word % PLANE_WORDS] >> self.shift & 1 != 0
    }

    /// The sample of a cycle that executed `op` with these inputs at the pixel (0 for the
    /// no-op, which changes nothing).
    #[inline]
    pub fn sample(op: &ArrayOp, i: ProbeInputs) -> u64 {
        use probe_bits::*;
        if op.is_nop() {
            return 0;
        }
        let w_ok = op.w.is_some_and(|w| (w as usize) < MEM_BITS);
        (w_ok as u64) << W_OK
            | (op.wr_all as u64) << WR_ALL
            | (op.lut_r as u64) << LUT_R
            | (op.lut_c as u64) << LUT_C
            | (i.a as u64) << A
            | (i.b as u64) << B
            | (i.carry as u64) << CARRY
            | (i.enable as u64) << ENABLE
            | (i.active as u64) << ACTIVE
    }

    /// [`Probe::sample`] with the inputs read from `array` before the edge: the tree plane
    /// `tree` and the flow-control unit's mask `active` (`None`: every PE) as the array's
    /// step gets them.
    pub fn sample_array(
        &self,
        array: &EmcArray,
        op: &ArrayOp,
        tree: &Plane,
        active: Option<&Plane>,
    ) -> u64 {
        let mem = |a: u8| array.mem.get(a as usize).is_some_and(|p| self.bit(p));
        let b = match op.b {
            BSource::Zero => false,
            BSource::One => true,
            BSource::Mem(b) => mem(b),
            BSource::Enable => self.bit(&array.enable),
            BSource::Tree => self.bit(tree),
        };
        let inputs = ProbeInputs {
            a: op.a.is_some_and(mem),
            b,
            carry: self.bit(&array.carry),
            enable: self.bit(&array.enable),
            active: active.is_none_or(|p| self.bit(p)),
        };
        Probe::sample(op, inputs)
    }
}

/// The ALU outputs and memory write a probe's sample word implies, as
/// `(alu_out, carry_out, mem_written, mem_write)` (the written bit's value).
pub fn probe_outputs(s: u64) -> (bool, bool, bool, bool) {
    use probe_bits::*;
    let bit = |k: u32| s >> k & 1 != 0;
    let idx = (s & 7) as u32;
    let alu_out = s >> (LUT_R + idx) & 1 != 0;
    let carry_out = s >> (LUT_C + idx) & 1 != 0;
    let written = bit(W_OK) && (bit(WR_ALL) || bit(ENABLE)) && bit(ACTIVE);
    (alu_out, carry_out, written, written && alu_out)
}
