//! The EMC array: 64 enhanced memory chips, 16,384 bit-serial pixel processors.
//!
//! Seed 003 §III.4.1 and §III.4.2.5.1: each PE has 208 bits of memory, an Enable register, a
//! Carry register and a bit-serial ALU. All PEs execute the same [`ArrayOp`] each 40 MHz cycle.
//!
//! **Model choice** (docs/model-choices.md, "EMC geometry"): EMC `k` covers the 8-column ×
//! 32-row block with chip column `k % 16` and chip row `k / 16`, so the four AEO stripes fall
//! on chip boundaries.
//!
//! State is bit-sliced ([`plane`]): 208 memory planes, Enable and Carry, each 256 `u64`.
//! [`EmcArray::step`] (in `step.rs`) executes a cycle's operation with the kernels of
//! `kernel.rs`.

pub mod alu;
mod kernel;
pub mod plane;
mod probe;
mod step;
mod trace;

use plane::{AlignedPlane, Plane};
pub use probe::{Probe, ProbeAlu, ProbeInputs};

/// Bits of pixel memory per PE (seed 003 §III.4.2.5.1: "208 bits of random access memory").
pub const MEM_BITS: usize = 208;
/// EMCs on a Renderer (seed 003 §III.4.1).
pub const NUM_EMCS: usize = 64;
/// Columns of PEs per EMC (model choice, "EMC geometry").
pub const EMC_COLS: usize = 8;
/// Rows of PEs per EMC (model choice, "EMC geometry").
pub const EMC_ROWS: usize = 32;
/// EMCs per row of chips.
pub const EMCS_PER_ROW: usize = plane::ARRAY_DIM / EMC_COLS;

/// The EMC (chip number 0..64) holding pixel (x, y).
pub fn emc_of(x: usize, y: usize) -> usize {
    (y / EMC_ROWS) * EMCS_PER_ROW + x / EMC_COLS
}

/// The second ALU operand, as the IGC selected it for this cycle (the waveform shows the
/// variant's name: `0`, `1`, `mem`, `enable`, `tree`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, crate::trace::WaveEnum)]
pub enum BSource {
    /// Constant 0 (also the value of a broadcast scalar bit that is 0).
    #[default]
    #[wave(name = "0")]
    Zero,
    /// Constant 1 (a broadcast scalar bit that is 1).
    #[wave(name = "1")]
    One,
    /// The memory bit at this address.
    #[wave(name = "mem")]
    Mem(u8),
    /// Each PE's own Enable register.
    #[wave(name = "enable")]
    Enable,
    /// The QEE result bit on each PE's tree input.
    #[wave(name = "tree")]
    Tree,
}

/// One cycle's operation of the whole array: what the IGC's PE-array fields asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ArrayOp {
    /// Port A memory address (`None`: A reads 0).
    pub a: Option<u8>,
    /// Port B source.
    pub b: BSource,
    /// Result truth table, index `(a<<2)|(b<<1)|c`.
    pub lut_r: u8,
    /// Carry truth table, same index.
    pub lut_c: u8,
    /// Enable truth table, index `(e<<1)|r`.
    pub lut_e: u8,
    /// Write Carry (all PEs).
    pub cry_we: bool,
    /// Write Enable (all PEs).
    pub en_we: bool,
    /// Write the result to this memory address.
    pub w: Option<u8>,
    /// Write memory at every PE (true) or only where Enable is set (false).
    pub wr_all: bool,
}

impl ArrayOp {
    /// An operation that changes nothing.
    pub fn is_nop(&self) -> bool {
        !self.cry_we && !self.en_we && self.w.is_none()
    }
}

/// Population count of Enable for the waveform, recomputed only when Enable changed since
/// the last trace (tracing must not slow the array step). `u32::MAX` = unknown.
#[derive(Debug)]
struct Counts {
    enable: std::sync::atomic::AtomicU32,
}

impl Default for Counts {
    fn default() -> Self {
        Counts {
            enable: std::sync::atomic::AtomicU32::new(u32::MAX),
        }
    }
}

impl Clone for Counts {
    fn clone(&self) -> Self {
        Counts::default()
    }
}

impl Counts {
    fn invalidate(&self) {
        self.enable
            .store(u32::MAX, std::sync::atomic::Ordering::Relaxed);
    }
    fn enable(&self, p: &Plane) -> u32 {
        use std::sync::atomic::Ordering::Relaxed;
        match self.enable.load(Relaxed) {
            u32::MAX => {
                let n = plane::count(p);
                self.enable.store(n, Relaxed);
                n
            }
            n => n,
        }
    }
}

/// The array of 128×128 pixel processors.
#[derive(Clone)]
pub struct EmcArray {
    /// Pixel memory: `mem[bit]` is the plane of bit `bit` of every PE.
    pub mem: Box<[AlignedPlane; MEM_BITS]>,
    /// Enable registers. A direct write (a testbench's) must be followed by
    /// [`EmcArray::refresh_aeo`], which also forgets what the array knows of the plane.
    pub enable: Box<AlignedPlane>,
    /// Carry registers.
    pub carry: Box<AlignedPlane>,
    /// OR of Enable per AEO stripe (status bits 0-3 are these; seed §III.4.1-6).
    stripes: [bool; 4],
    /// Scratch planes: the next Carry, a copy of Enable, the ALU result.
    cbuf: Box<AlignedPlane>,
    bbuf: Box<AlignedPlane>,
    rbuf: Box<AlignedPlane>,
    counts: Counts,
    /// Whether every bit of Enable is set, once a step has looked (`None`: not known since
    /// Enable was last written). A write conditioned by Enable with Enable all set writes
    /// everywhere, without the blend; the whole plane is scanned once per change of Enable,
    /// not in every such cycle.
    enable_full: Option<bool>,
    /// The fast kernel of the last operation kind (`step.rs`).
    fast: step::FastPlan,
}

impl Default for EmcArray {
    fn default() -> Self {
        Self::new()
    }
}

impl EmcArray {
    /// A freshly powered array: memory, Enable and Carry cleared.
    pub fn new() -> Self {
        let mem: Box<[AlignedPlane; MEM_BITS]> = vec![AlignedPlane::ZERO; MEM_BITS]
            .into_boxed_slice()
            .try_into()
            .unwrap_or_else(|_| unreachable!("length is MEM_BITS"));
        EmcArray {
            mem,
            enable: Box::new(AlignedPlane::ZERO),
            carry: Box::new(AlignedPlane::ZERO),
            stripes: [false; 4],
            cbuf: Box::new(AlignedPlane::ZERO),
            bbuf: Box::new(AlignedPlane::ZERO),
            rbuf: Box::new(AlignedPlane::ZERO),
            counts: Counts::default(),
            enable_full: None,
            fast: step::FastPlan::default(),
        }
    }

    /// AEO: global NOR of the Enable registers (seed §III.4.1-6).
    pub fn aeo(&self) -> bool {
        !self.stripes.iter().any(|&s| s)
    }

    /// The four stripe ORs (status word bits 0-3, the inverses of AEO0..AEO3).
    pub fn stripes(&self) -> [bool; 4] {
        self.stripes
    }

    /// [`EmcArray::stripes`] as bits 0..3 (stripe k in bit k).
    #[inline]
    pub fn stripe_bits(&self) -> u32 {
        // One byte (0 or 1) per stripe; the multiplication gathers byte k's bit into bit
        // 24 + k, without carries (every partial product lands on its own bit).
        let x = u32::from_le_bytes(self.stripes.map(u8::from));
        x.wrapping_mul(0x0102_0408) >> 24 & 0xf
    }

    /// Set the stripe ORs from [`EmcArray::stripe_bits`]'s form (a replay, which does not
    /// compute Enable: `renderer::replay`).
    pub fn set_stripe_bits(&mut self, bits: u32) {
        self.stripes = std::array::from_fn(|k| bits >> k & 1 != 0);
    }

    /// Recompute the stripe ORs from the Enable plane (after a direct write by a testbench).
    pub fn refresh_aeo(&mut self) {
        self.counts = Counts::default();
        self.enable_full = None;
        let acc = self.enable.iter().fold(0u64, |acc, w| acc | w);
        self.stripes = std::array::from_fn(|k| acc & plane::stripe_mask(k) != 0);
    }

    /// Read an unsigned field `mem[lsb : len]` (len ≤ 64) of pixel (x, y), for testbenches.
    pub fn peek(&self, x: usize, y: usize, lsb: usize, len: usize) -> u64 {
        (0..len.min(64))
            .filter(|i| lsb + i < MEM_BITS && plane::get(&self.mem[lsb + i], x, y))
            .fold(0, |v, i| v | 1 << i)
    }

    /// Write an unsigned field `mem[lsb : len]` (len ≤ 64) of pixel (x, y), for testbenches.
    pub fn poke(&mut self, x: usize, y: usize, lsb: usize, len: usize, value: u64) {
        for i in 0..len.min(64) {
            if lsb + i < MEM_BITS {
                plane::set(&mut self.mem[lsb + i], x, y, (value >> i) & 1 != 0);
            }
        }
    }

    /// Recompute the stripe ORs (AEO) over the PEs in `active` (`None`: every PE), after the
    /// flow-control unit changed which PEs are active (docs/flow-control.md).
    pub fn refresh_stripes(&mut self, active: Option<&Plane>) {
        let acc = match active {
            None => self.enable.iter().fold(0u64, |acc, w| acc | w),
            Some(act) => self
                .enable
                .iter()
                .zip(act.iter())
                .fold(0u64, |acc, (e, a)| acc | (e & a)),
        };
        self.stripes = std::array::from_fn(|k| acc & plane::stripe_mask(k) != 0);
    }
}

#[cfg(test)]
mod tests {
    use super::{alu::Lut, ArrayOp, BSource, EmcArray, Probe};
    use crate::emc_array::plane::{Plane, ZERO_PLANE};
    use crate::trace::Recorder;

    /// Every combination of a probe's inputs, each table bit and each write control: the
    /// sample taken before the edge shows in the waveform's record as the ALU inputs, the
    /// outputs the truth tables give and the memory write the array performed at the pixel.
    #[test]
    fn probe_sample_decodes_to_the_alu_outputs() {
        let (x, y) = (70, 5);
        for inputs in 0..32u32 {
            let [a, b, c, e, act] = [0, 1, 2, 3, 4].map(|k| inputs >> k & 1 != 0);
            for table in [0x00u8, 0xe8, 0x96, 0x17, 0xff, 0x5a] {
                for (w, wr_all) in [(None, false), (Some(9), false), (Some(9), true)] {
                    let mut arr = EmcArray::new();
                    let mut probe = Probe::new(x, y).expect("on the array");
                    arr.poke(x, y, 3, 1, a as u64);
                    arr.poke(x, y, 4, 1, b as u64);
                    arr.poke(x, y, 9, 1, 1 - (table & 1) as u64);
                    let (word, mask) = crate::emc_array::plane::locate(x, y);
                    if c {
                        arr.carry[word] |= mask;
                    }
                    if e {
                        arr.enable[word] |= mask;
                    }
                    let mut active: Plane = ZERO_PLANE;
                    if act {
                        active[word] |= mask;
                    }
                    let op = ArrayOp {
                        a: Some(3),
                        b: BSource::Mem(4),
                        lut_r: table,
                        lut_c: !table,
                        cry_we: true,
                        w,
                        wr_all,
                        ..ArrayOp::default()
                    };
                    let before = arr.peek(x, y, 9, 1);
                    probe.sample = probe.sample_array(&arr, &op, &ZERO_PLANE, Some(&active));
                    arr.step(&op, &ZERO_PLANE, Some(&active));
                    let mut rec = Recorder::default();
                    probe.trace_alu(&mut rec, &arr);
                    let v = |name| rec.value(name).expect("a probe signal") == 1;
                    let [r, cout, written, wdata] =
                        ["alu_out", "alu_cout", "mem_we", "mem_wdata"].map(v);
                    assert_eq!(["alu_a", "alu_b", "alu_cin"].map(v), [a, b, c]);
                    assert_eq!(r, Lut::eval_bit(table, a, b, c), "{inputs:05b} {table:#x}");
                    assert_eq!(cout, Lut::eval_bit(!table, a, b, c));
                    assert_eq!(written, w.is_some() && (wr_all || e) && act);
                    assert_eq!(wdata, written && r);
                    let after = arr.peek(x, y, 9, 1);
                    assert_eq!(after, if written { r as u64 } else { before });
                }
            }
        }
    }

    #[test]
    fn stripe_bits_are_the_stripes() {
        let mut a = EmcArray::new();
        for m in 0..16u32 {
            a.stripes = std::array::from_fn(|k| m >> k & 1 != 0);
            assert_eq!(a.stripe_bits(), m);
        }
    }
}
