//! The probe pixels: pixels chosen for the waveform, each sampled before every edge (its ALU
//! inputs and the operation's constants, [`Probe::sample`]), from which the waveform derives
//! the ALU's outputs and the memory write (`trace.rs`, on the writer's thread). They are the
//! waveform's, not the array's: whoever traces the board keeps them.

use super::plane::{self, Plane, PLANE_WORDS};
use super::{emc_of, ArrayOp, BSource, EmcArray, MEM_BITS};
use crate::trace::{Packed, Wave};

/// A probe pixel's ALU record: Enable and Carry after the edge, filled in when the record is
/// shown ([`Probe::trace_alu`]), and the sample taken before the edge ([`Probe::sample`]):
/// the ALU's inputs at the pixel (`alu_a`, `alu_b`, `alu_cin`) and the operation's
/// constants, from which the record derives the ALU and carry outputs and the memory write
/// (the `then` signals, on the writer's thread).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Wave)]
pub struct ProbeAlu {
    /// Enable and Carry after the edge (false in a sample).
    #[wave(rename = "enable")]
    pub enable_now: bool,
    #[wave(rename = "carry")]
    pub carry_now: bool,
    /// Port A, port B and Carry before the edge: the truth tables' index is
    /// `(a << 2) | (b << 1) | carry`.
    #[wave(rename = "alu_a")]
    pub a: bool,
    #[wave(rename = "alu_b")]
    pub b: bool,
    #[wave(rename = "alu_cin")]
    pub carry: bool,
    /// Enable before the edge, and "active" (the flow-control unit leaves the PE active).
    #[wave(hide)]
    pub enable: bool,
    #[wave(hide)]
    pub active: bool,
    /// The operation writes a memory bit (a valid address).
    #[wave(hide)]
    pub w_ok: bool,
    /// The operation writes at every PE, not only where Enable is set.
    #[wave(hide)]
    pub wr_all: bool,
    /// The result and carry truth tables.
    #[wave(hide)]
    pub lut_r: u8,
    #[wave(hide, then(
        alu_out: 1 = lut_r >> (a << 2 | b << 1 | carry),
        alu_cout: 1 = lut_c >> (a << 2 | b << 1 | carry),
        mem_we: 1 = w_ok & (wr_all | enable) & active,
        mem_wdata: 1 = w_ok & (wr_all | enable) & active & lut_r >> (a << 2 | b << 1 | carry),
    ))]
    pub lut_c: u8,
}

/// A pixel chosen for tracing, and its last sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub x: usize,
    pub y: usize,
    /// The last cycle's sample, packed (all 0 after a cycle that changed nothing).
    pub sample: Packed<ProbeAlu>,
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
            sample: Packed::default(),
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

    /// The sample of a cycle that executed `op` with these inputs at the pixel (all 0 for
    /// the no-op, which changes nothing).
    #[inline]
    pub fn sample(op: &ArrayOp, i: ProbeInputs) -> Packed<ProbeAlu> {
        Probe::sample_of(Probe::op_sample(op), i)
    }

    /// The part of a cycle's samples that its operation `op` fixes, the same at every probe
    /// (`None` for the no-op).
    #[inline]
    pub fn op_sample(op: &ArrayOp) -> Option<Packed<ProbeAlu>> {
        (!op.is_nop()).then(|| {
            Packed::new(&ProbeAlu {
                w_ok: op.w.is_some_and(|w| (w as usize) < MEM_BITS),
                wr_all: op.wr_all,
                lut_r: op.lut_r,
                lut_c: op.lut_c,
                ..ProbeAlu::default()
            })
        })
    }

    /// [`Probe::sample`] from the operation's part of it ([`Probe::op_sample`]).
    #[inline]
    pub fn sample_of(op: Option<Packed<ProbeAlu>>, i: ProbeInputs) -> Packed<ProbeAlu> {
        let Some(op) = op else {
            return Packed::default();
        };
        op.merged(Packed::new(&ProbeAlu {
            a: i.a,
            b: i.b,
            carry: i.carry,
            enable: i.enable,
            active: i.active,
            ..ProbeAlu::default()
        }))
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
    ) -> Packed<ProbeAlu> {
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
