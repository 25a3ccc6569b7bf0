//! The quadratic expression evaluators (QEE), one per EMC (seed 003 §III.4.2.2,
//! §III.4.2.5.4).
//!
//! - [`arith`]: coefficient conversion, the tree value and `tree[n]` (pure functions).
//! - [`QeeConfig`]: each EMC's configuration register, loaded bit-serially by SUPCFG (all
//!   EMCs, the 1's complement of `sca`) and SEPCFG (one EMC, `sca`).
//!
//! **Model choice** (docs/model-choices.md, "QEE configuration register"): the register
//! holds the EMC's screen origin, x in bits 15:0 and y in bits 31:16 (two's complement), so a
//! Renderer can be mapped onto any 128×128 region and re-mapped. The standard mapping puts
//! EMC `k` at (8·(k mod 16), 32·(k div 16)).
//!
//! - [`Qee`]: the clocked evaluator: started by a microinstruction (QEE_OP = START) with the
//!   command's coefficients, QEEMode and FBITS, it delivers the result to every pixel
//!   bit-serially, LSB first, one bit per 40 MHz cycle, [`QEE_LATENCY`] cycles after the start
//!   (the `tree` input of the pixel ALUs).
//!
//! **Model choice** (docs/model-choices.md, "QEE coefficient shift chains"): each EMC's
//! evaluator has six coefficient shift chains. At START they are loaded with the EMC's
//! *chip-local* fixed-point coefficients, the expression rewritten around the EMC's origin
//! (ox, oy) from its configuration register, so that the EMC's root pixel (its local (0, 0),
//! array pixel (8·(k mod 16), 32·(k div 16))) sees the constant term alone:
//!
//! ```text
//! A_k = A + 2D·ox + E·oy     B_k = B + E·ox + 2F·oy     D_k = D   E_k = E   F_k = F
//! C_k = D·ox² + E·ox·oy + F·oy² + A·ox + B·oy + C        (= Q(ox, oy) in fixed point)
//! ```
//!
//! (coefficients the mode does not use are 0). The FBITS fractional bits are absorbed in the
//! START cycle (the one-cycle [`QEE_LATENCY`]); from the first delivered bit on, each chain
//! shifts right one bit per 40 MHz cycle while the tree delivers, so it holds
//! `X_k >> (FBITS + bit)`: the bits still to come, its LSB the bit of weight 2^bit on the wire
//! into the tree's adders. The C chain's LSB is therefore the root pixel's tree bit. The model
//! keeps the chains as 128-bit values (sign-extended without limit); the waveform shows their
//! low 64 bits, the next 64 bits to be delivered, so bits above 63 come into view as they
//! shift. The chains are a view of the evaluation: the tree values every pixel reads are
//! computed from the same coefficients ([`Qee::tree_plane`], [`Qee::bit_at`]).

pub mod arith;

use crate::emc_array::plane::{Plane, ARRAY_DIM, NUM_PES, PLANE_WORDS, ZERO_PLANE};
use crate::emc_array::{emc_of, EMCS_PER_ROW, EMC_COLS, EMC_ROWS, NUM_EMCS};
use crate::trace::{bit, Traced, Tracer};
use arith::{coef_to_fixed, QeeMode};

/// Single bit planes gathered from one evaluation before all 64 low planes are built by
/// transposition (a simulator speed trade-off, invisible to the model).
const TRANSPOSE_AFTER: u32 = 1;

/// Cycles from the microinstruction that starts the QEE to the cycle in which bit 0 of the
/// result is on the pixels' `tree` input (model choice, docs/model-choices.md "QEE timing").
pub const QEE_LATENCY: u32 = 1;

/// The bit index the waveform shows saturates here (`qee.bit`, `emc[k].qee.tree_bit_index`,
/// 8 bits); every traced value is constant once the index passes it.
pub const TRACE_BIT_MAX: u32 = 255;

/// Scope names of the per-EMC QEE scopes, `emc[k]` (the waveform's `renderer.emc[k].qee`).
const EMC_SCOPES: [&str; NUM_EMCS] = [
    "emc[0]", "emc[1]", "emc[2]", "emc[3]", "emc[4]", "emc[5]", "emc[6]", "emc[7]", "emc[8]",
    "emc[9]", "emc[10]", "emc[11]", "emc[12]", "emc[13]", "emc[14]", "emc[15]", "emc[16]",
    "emc[17]", "emc[18]", "emc[19]", "emc[20]", "emc[21]", "emc[22]", "emc[23]", "emc[24]",
    "emc[25]", "emc[26]", "emc[27]", "emc[28]", "emc[29]", "emc[30]", "emc[31]", "emc[32]",
    "emc[33]", "emc[34]", "emc[35]", "emc[36]", "emc[37]", "emc[38]", "emc[39]", "emc[40]",
    "emc[41]", "emc[42]", "emc[43]", "emc[44]", "emc[45]", "emc[46]", "emc[47]", "emc[48]",
    "emc[49]", "emc[50]", "emc[51]", "emc[52]", "emc[53]", "emc[54]", "emc[55]", "emc[56]",
    "emc[57]", "emc[58]", "emc[59]", "emc[60]", "emc[61]", "emc[62]", "emc[63]",
];

/// Names of the six coefficient shift chains, in the order A, B, C, D, E, F.
const CHAIN_NAMES: [&str; 6] = [
    "chain_A", "chain_B", "chain_C", "chain_D", "chain_E", "chain_F",
];

/// The array pixel at EMC `k`'s local (0, 0): its root pixel.
pub fn root_pixel(k: usize) -> (usize, usize) {
    let k = k % NUM_EMCS;
    ((k % EMCS_PER_ROW) * EMC_COLS, (k / EMCS_PER_ROW) * EMC_ROWS)
}

/// Smallest `bits` argument of SUPCFG/SEPCFG (seed §III.4.2.5.4: "in the range 2 to 32").
pub const CFG_BITS_MIN: u32 = 2;
/// Largest `bits` argument of SUPCFG/SEPCFG.
pub const CFG_BITS_MAX: u32 = 32;

/// The configuration word of the standard (identity) mapping for EMC `k`.
pub fn identity_config(k: usize) -> u32 {
    let x = ((k % EMCS_PER_ROW) * EMC_COLS) as u32;
    let y = ((k / EMCS_PER_ROW) * EMC_ROWS) as u32;
    x | (y << 16)
}

/// The 64 configuration registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QeeConfig {
    pub reg: [u32; NUM_EMCS],
}

impl Default for QeeConfig {
    fn default() -> Self {
        Self::identity()
    }
}

impl QeeConfig {
    /// Every EMC mapped onto its own position of the 128×128 region.
    pub fn identity() -> Self {
        QeeConfig {
            reg: std::array::from_fn(identity_config),
        }
    }

    /// Shift one bit into a register: it enters at the MSB and everything moves toward the
    /// LSB, so shifting the 32 bits of a value LSB first leaves exactly that value.
    fn shift(reg: &mut u32, bit: bool) {
        *reg = (*reg >> 1) | ((bit as u32) << 31);
    }

    /// One SUPCFG shift: every EMC takes `bit` (the caller supplies the 1's complement of
    /// the scalar's bit, as the seed says).
    pub fn shift_all(&mut self, bit: bool) {
        for r in &mut self.reg {
            Self::shift(r, bit);
        }
    }

    /// One SEPCFG shift into EMC `chip` (ignored for `chip` ≥ 64).
    pub fn shift_one(&mut self, chip: usize, bit: bool) {
        if let Some(r) = self.reg.get_mut(chip) {
            Self::shift(r, bit);
        }
    }

    /// The whole SUPCFG(bits) with scalar `sca`: `bits` shifts of `~sca`, LSB first.
    pub fn supcfg(&mut self, sca: u32, bits: u32) {
        for i in 0..bits.min(CFG_BITS_MAX) {
            self.shift_all((!sca >> i) & 1 != 0);
        }
    }

    /// The whole SEPCFG(chip, bits) with scalar `sca`.
    pub fn sepcfg(&mut self, chip: usize, sca: u32, bits: u32) {
        for i in 0..bits.min(CFG_BITS_MAX) {
            self.shift_one(chip, (sca >> i) & 1 != 0);
        }
    }

    /// Screen origin (x, y) of EMC `k`.
    pub fn origin(&self, k: usize) -> (i64, i64) {
        let r = self.reg[k % NUM_EMCS];
        (
            (r & 0xffff) as u16 as i16 as i64,
            (r >> 16) as u16 as i16 as i64,
        )
    }

    /// Screen coordinates of the PE at array position (x, y): its EMC's origin plus its place
    /// inside the EMC.
    pub fn screen_xy(&self, x: usize, y: usize) -> (i64, i64) {
        let (ox, oy) = self.origin(emc_of(x, y));
        (ox + (x % EMC_COLS) as i64, oy + (y % EMC_ROWS) as i64)
    }
}

/// The clocked evaluator (all 64 EMCs' trees, seen together).
#[derive(Clone)]
pub struct Qee {
    pub config: QeeConfig,
    /// Mode and fixed-point coefficients A, B, C, D, E, F of the current evaluation.
    pub mode: QeeMode,
    pub coefs: arith::FixedCoefs,
    pub fbits: u32,
    /// Cycles until bit 0 is delivered (0: delivering).
    pub delay: u32,
    /// Index of the bit on the tree input this cycle.
    pub bit: u32,
    /// An evaluation has been started since reset.
    pub active: bool,
    /// Evaluations started since reset (for the waveform's skip keys).
    pub starts: u64,
    /// EMCs whose evaluator is traced as `emc[k].qee` (bit k = EMC k); `None`: the default
    /// the board chooses (`Renderer::traced_emcs`). Tracing only; fix it before the first walk.
    pub trace_emcs: Option<u64>,
    /// The chip-local coefficients A_k .. F_k each EMC's shift chains were loaded with at the
    /// last START (see the module documentation).
    local: Box<[[i128; 6]; NUM_EMCS]>,
    /// The result at every pixel (row-major), computed when started.
    values: Vec<i128>,
    /// Bit planes 0..63 of the results, and whether every result fits 64 bits (then higher
    /// bits are sign copies).
    planes: Box<[Plane; 64]>,
    fits64: bool,
    /// `planes` holds the current evaluation; single bits gathered so far.
    transposed: bool,
    extracted: u32,
    /// A plane of a bit above 63 when the results need it.
    plane: Box<Plane>,
    plane_bit: Option<u32>,
}

/// Transpose a 64×64 bit matrix: afterwards bit `i` of word `k` is bit `k` of the former
/// word `i` (the recursive block-swap method).
fn transpose64(m: &mut [u64; 64]) {
    // Work with "bit j of word i" as row i, column j; swap off-diagonal blocks of halving size.
    let mut j = 32;
    let mut mask: u64 = 0x0000_0000_ffff_ffff;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            for i in k..k + j {
                let t = ((m[i] >> j) ^ m[i + j]) & mask;
                m[i] ^= t << j;
                m[i + j] ^= t;
            }
            k += 2 * j;
        }
        j >>= 1;
        mask ^= mask << j;
    }
}

impl Default for Qee {
    fn default() -> Self {
        Self::new()
    }
}

impl Qee {
    /// The QEE after reset: identity mapping, no evaluation.
    pub fn new() -> Self {
        Qee {
            config: QeeConfig::identity(),
            mode: QeeMode::None,
            coefs: [0; 6],
            fbits: 0,
            delay: 0,
            bit: 0,
            active: false,
            starts: 0,
            trace_emcs: None,
            local: Box::new([[0; 6]; NUM_EMCS]),
            values: vec![0; NUM_PES],
            planes: vec![ZERO_PLANE; 64]
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!("length is 64")),
            fits64: true,
            transposed: false,
            extracted: 0,
            plane: Box::new(ZERO_PLANE),
            plane_bit: None,
        }
    }

    /// Start an evaluation with raw coefficient words A, B, C, D, E, F.
    pub fn start(&mut self, mode: QeeMode, raw: &[u32; 6], fbits: u32) {
        self.start_with(mode, raw, &[fbits; 6], fbits)
    }

    /// Start an evaluation whose coefficients were converted to fixed point when they arrived,
    /// each with the FBITS of that moment (`loaded_fbits`): a coefficient re-used after an
    /// FBITS change keeps its old scaling, as in the hardware (seed §III.4.2.5.1-1: "all QEE
    /// coefficients must be sent again").
    pub fn start_with(
        &mut self,
        mode: QeeMode,
        raw: &[u32; 6],
        loaded_fbits: &[u32; 6],
        fbits: u32,
    ) {
        self.mode = mode;
        self.fbits = fbits;
        self.coefs = std::array::from_fn(|k| coef_to_fixed(raw[k], loaded_fbits[k]));
        self.evaluate();
        // Started in this cycle: bit 0 is on the tree input QEE_LATENCY cycles later.
        self.delay = QEE_LATENCY.saturating_sub(1);
        self.bit = 0;
        self.active = true;
        self.starts += 1;
        self.plane_bit = None;
    }

    /// Compute every pixel's result and the bit planes of its low 64 bits.
    ///
    /// Along a row of an EMC (8 pixels) the fixed-point sum changes by forward differences
    /// (`ΔQ = D(2x+1) + Ey + A`, `Δ²Q = 2D`), so each pixel costs two additions; the row's
    /// first pixel is evaluated directly.
    fn evaluate(&mut self) {
        let (mode, fbits) = (self.mode, self.fbits.min(arith::FBITS_MAX));
        let [a, b, c, d, e, f] = self.coefs;
        let lin = matches!(mode, QeeMode::Linear | QeeMode::Quadratic);
        let quad = mode == QeeMode::Quadratic;
        let (a, b) = if lin { (a, b) } else { (0, 0) };
        let (d, e, f) = if quad { (d, e, f) } else { (0, 0, 0) };
        let c = if mode == QeeMode::None { 0 } else { c };
        // The shift chains' contents: the expression around each EMC's origin.
        for (k, l) in self.local.iter_mut().enumerate() {
            let (ox, oy) = self.config.origin(k);
            let (ox, oy) = (ox as i128, oy as i128);
            *l = [
                a + 2 * d * ox + e * oy,
                b + e * ox + 2 * f * oy,
                d * ox * ox + e * ox * oy + f * oy * oy + a * ox + b * oy + c,
                d,
                e,
                f,
            ];
        }
        // Largest |coordinate| any pixel has, to decide whether 64-bit sums cannot overflow.
        let m = (0..NUM_EMCS)
            .map(|k| {
                let (ox, oy) = self.config.origin(k);
                ox.unsigned_abs().max(oy.unsigned_abs()) as i128 + ARRAY_DIM as i128
            })
            .max()
            .unwrap_or(0);
        let bound = (d.abs() + e.abs() + f.abs()) * m * m * 4
            + (a.abs() + b.abs() + d.abs() + e.abs() + f.abs()) * m * 4
            + c.abs();
        // Along a row of an EMC: ΔQ = D(2x+1) + Ey + A, Δ²Q = 2D. Down a column: ΔQ = F(2y+1)
        // + Ex + B, Δ²Q = 2F. One direct evaluation per EMC, two additions per pixel.
        macro_rules! walk {
            ($t:ty) => {{
                let (a, b, c, d, e, f) = (a as $t, b as $t, c as $t, d as $t, e as $t, f as $t);
                let mut fits64 = true;
                for k in 0..NUM_EMCS {
                    let (ox, oy) = self.config.origin(k);
                    let (ox, oy) = (ox as $t, oy as $t);
                    let cx = (k % EMCS_PER_ROW) * EMC_COLS;
                    let cy = (k / EMCS_PER_ROW) * EMC_ROWS;
                    let mut row_q = d * ox * ox + e * ox * oy + f * oy * oy + a * ox + b * oy + c;
                    let mut row_dy = f * (2 * oy + 1) + e * ox + b;
                    for ly in 0..EMC_ROWS {
                        let mut q = row_q;
                        let mut dq = d * (2 * ox + 1) + e * (oy + ly as $t) + a;
                        let base = (cy + ly) * ARRAY_DIM + cx;
                        for v in &mut self.values[base..base + EMC_COLS] {
                            let r = q >> fbits;
                            fits64 &= r as i128 == r as i64 as i128;
                            *v = r as i128;
                            q += dq;
                            dq += 2 * d;
                        }
                        row_q += row_dy;
                        row_dy += 2 * f;
                    }
                }
                fits64
            }};
        }
        self.fits64 = if bound < (1i128 << 62) {
            walk!(i64)
        } else {
            walk!(i128)
        };
        self.transposed = false;
        self.extracted = 0;
        self.plane_bit = None;
    }

    /// Build the planes of bits 0..63 of every result: one 64×64 bit transpose per plane
    /// word. Worth it once a routine reads many bits of one evaluation.
    fn transpose_all(&mut self) {
        for w in 0..PLANE_WORDS {
            let mut block = [0u64; 64];
            for (i, v) in block.iter_mut().enumerate() {
                *v = self.values[w * 64 + i] as u64;
            }
            transpose64(&mut block);
            for (k, bits) in block.iter().enumerate() {
                self.planes[k][w] = *bits;
            }
        }
        self.transposed = true;
    }

    /// The clock edge: the result advances by one bit once the latency has passed.
    pub fn tick(&mut self) {
        if !self.active {
            return;
        }
        if self.delay > 0 {
            self.delay -= 1;
        } else {
            self.bit = self.bit.saturating_add(1);
        }
    }

    /// Whether bit `self.bit` is on the tree input this cycle.
    pub fn delivering(&self) -> bool {
        self.active && self.delay == 0
    }

    /// The bit plane on the tree input this cycle (zero while nothing is delivered).
    ///
    /// Planes are built on demand (only cycles whose microinstruction reads the tree pay for
    /// one): single bits are gathered directly; after [`TRANSPOSE_AFTER`] of them in one
    /// evaluation, all 64 low planes are built at once.
    pub fn tree_plane(&mut self) -> &Plane {
        if !self.delivering() {
            return &ZERO_PLANE;
        }
        // Every result fits 64 bits: the bits above are copies of bit 63 (the sign).
        let k = if self.fits64 {
            self.bit.min(63)
        } else {
            self.bit
        };
        if k < 64 && self.transposed {
            return &self.planes[k as usize];
        }
        if k < 64 && self.extracted >= TRANSPOSE_AFTER {
            self.transpose_all();
            return &self.planes[k as usize];
        }
        if self.plane_bit != Some(k) {
            self.extracted += 1;
            let k = k.min(127);
            let p = &mut self.plane;
            for (w, word) in p.iter_mut().enumerate() {
                let vals = &self.values[w * 64..w * 64 + 64];
                *word = if k < 64 {
                    // The low 64 bits suffice: 64-bit shifts, which vectorise.
                    vals.iter()
                        .enumerate()
                        .fold(0u64, |v, (i, q)| v | (((*q as u64) >> k) & 1) << i)
                } else {
                    vals.iter()
                        .enumerate()
                        .fold(0u64, |v, (i, q)| v | (((q >> k) & 1) as u64) << i)
                };
            }
            self.plane_bit = Some(k);
        }
        &self.plane
    }

    /// The result at array pixel (x, y) of the current evaluation.
    pub fn value_at(&self, x: usize, y: usize) -> i128 {
        self.values[(y % ARRAY_DIM) * ARRAY_DIM + x % ARRAY_DIM]
    }

    /// The tree bit at pixel (x, y) this cycle.
    pub fn bit_at(&self, x: usize, y: usize) -> bool {
        self.delivering() && arith::tree_bit(self.value_at(x, y), self.bit)
    }

    /// The chip-local coefficients `[A_k, B_k, C_k, D_k, E_k, F_k]` EMC `k`'s shift chains were
    /// loaded with at the last START (fixed point, FBITS fractional bits; zero before the
    /// first START).
    pub fn local_coefs(&self, k: usize) -> [i128; 6] {
        self.local[k % NUM_EMCS]
    }

    /// How far the shift chains have shifted: FBITS at START (the fractional bits, absorbed
    /// in the START cycle), then one more per delivered bit.
    fn chain_shift(&self) -> u32 {
        let fbits = self.fbits.min(arith::FBITS_MAX);
        if self.delivering() {
            fbits.saturating_add(self.bit).min(127)
        } else {
            fbits
        }
    }

    /// The content of EMC `k`'s shift chain of coefficient `j` (0..6 = A..F) this cycle: the
    /// bits still to come, LSB first (zero before the first START).
    pub fn chain(&self, k: usize, j: usize) -> i128 {
        if !self.active {
            return 0;
        }
        self.local[k % NUM_EMCS][j % 6] >> self.chain_shift()
    }

    /// The serial tree bit of EMC `k`'s root pixel this cycle (what the pixel at its local
    /// (0, 0) reads as `tree`).
    pub fn emc_tree_bit(&self, k: usize) -> bool {
        let (x, y) = root_pixel(k);
        self.bit_at(x, y)
    }

    /// A key that changes whenever a signal of the `qee` scope or of the evaluation part of a
    /// per-EMC scope changes: the evaluation (START count), the bit index as traced, the
    /// latency counter, started or not.
    fn trace_key(&self) -> u64 {
        let bit = u64::from(self.bit.min(TRACE_BIT_MAX));
        (self.starts << 13) | (bit << 5) | (u64::from(self.delay.min(15)) << 1) | self.active as u64
    }

    /// Trace the evaluators of the EMCs in `emcs` (bit k = EMC k), in increasing k, each as a
    /// scope `emc[k]` holding a scope `qee` (siblings of the caller's scope's other blocks):
    ///
    /// - `config` (32 bits): the configuration register; `origin_x`, `origin_y` (16 bits,
    ///   two's complement): the screen origin it holds;
    /// - `chain_A` .. `chain_F` (64 bits): the coefficient shift chains, low 64 bits;
    /// - `tree_bit_index` (8 bits, saturating at [`TRACE_BIT_MAX`]): the result bit on the
    ///   tree this cycle; `tree_bit`: the root pixel's result bit.
    ///
    /// Each scope is entered with a key of its whole content (the evaluation state and the
    /// configuration register), so a waveform writer skips an idle EMC.
    pub fn trace_emcs<T: Tracer + ?Sized>(&self, t: &mut T, emcs: u64) {
        let mut rest = emcs;
        if rest == 0 {
            return;
        }
        let key = self.trace_key();
        while rest != 0 {
            let k = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let reg = self.config.reg[k];
            // The key's upper half: the evaluation state (its START count wraps, harmlessly:
            // it changes by at most one between two walks); the lower half: the register.
            if !t.enter(EMC_SCOPES[k], Some((key << 32) | u64::from(reg))) {
                continue;
            }
            t.push_scope("qee");
            t.bits("config", 32, u64::from(reg));
            let (ox, oy) = self.config.origin(k);
            t.bits("origin_x", 16, ox as u64);
            t.bits("origin_y", 16, oy as u64);
            for (j, name) in CHAIN_NAMES.iter().enumerate() {
                // The low 64 bits: the next 64 to be delivered.
                t.bits(name, 64, self.chain(k, j) as u64);
            }
            t.bits("tree_bit_index", 8, u64::from(self.bit.min(TRACE_BIT_MAX)));
            bit(t, "tree_bit", self.emc_tree_bit(k));
            t.pop_scope();
            t.pop_scope();
        }
    }
}

impl Traced for Qee {
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        // Everything here changes only at a START or with the bit index.
        if !t.enter("qee", Some(self.trace_key())) {
            return;
        }
        t.text(
            "mode",
            match self.mode {
                QeeMode::None => "NONE",
                QeeMode::Constant => "CONSTANT",
                QeeMode::Linear => "LINEAR",
                QeeMode::Quadratic => "QUADRATIC",
            },
        );
        bit(t, "delivering", self.delivering());
        t.bits("bit", 8, u64::from(self.bit.min(TRACE_BIT_MAX)));
        t.bits("delay", 4, self.delay.min(15) as u64);
        t.bits("fbits", 5, self.fbits as u64);
        for (name, c) in ["A", "B", "C", "D", "E", "F"].iter().zip(&self.coefs) {
            t.bits(name, 64, *c as i64 as u64);
        }
        t.pop_scope();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emc_array::plane;

    #[test]
    fn the_tree_delivers_bits_lsb_first_after_the_latency() {
        let mut q = Qee::new();
        let raw = [1.0f32, 2.0, -3.0, 0.0, 0.0, 0.0].map(f32::to_bits);
        q.start(QeeMode::Linear, &raw, 4);
        let mut waited = 1;
        while waited < QEE_LATENCY {
            assert!(!q.delivering());
            q.tick();
            waited += 1;
        }
        // Q(x, y) = x + 2y - 3 at every pixel, in two's complement, bit by bit.
        for k in 0..12u32 {
            assert!(q.delivering());
            let p = *q.tree_plane();
            for (x, y) in [(0usize, 0usize), (5, 9), (127, 127), (64, 1)] {
                let v = x as i128 + 2 * y as i128 - 3;
                assert_eq!(
                    plane::get(&p, x, y),
                    (v >> k) & 1 != 0,
                    "bit {k} at ({x},{y})"
                );
            }
            q.tick();
        }
    }

    #[test]
    fn transpose_moves_bit_k_of_word_i_to_bit_i_of_word_k() {
        let mut m = [0u64; 64];
        let mut s = 0x1234_5678_9abc_def1u64;
        for v in m.iter_mut() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            *v = s;
        }
        let orig = m;
        transpose64(&mut m);
        for (i, word) in orig.iter().enumerate() {
            for (k, row) in m.iter().enumerate() {
                assert_eq!((row >> i) & 1, (word >> k) & 1, "i {i} k {k}");
            }
        }
    }

    #[test]
    fn planes_match_direct_evaluation_for_a_quadratic_and_a_remapped_chip() {
        let mut q = Qee::new();
        q.config.sepcfg(9, 300 | (5000 << 16), 32);
        let raw = [3.25f32, -1.5, 77.0, 0.75, -0.125, 0.5].map(f32::to_bits);
        q.start(QeeMode::Quadratic, &raw, 6);
        let coefs = q.coefs;
        for (x, y) in [
            (0usize, 0usize),
            (7, 31),
            (72, 3),
            (79, 31),
            (127, 127),
            (5, 100),
        ] {
            let (sx, sy) = q.config.screen_xy(x, y);
            let direct = arith::tree_value(QeeMode::Quadratic, &coefs, sx, sy, 6);
            assert_eq!(q.value_at(x, y), direct, "({x},{y})");
            for k in 0..70u32 {
                q.bit = k;
                q.delay = 0;
                let p = *q.tree_plane();
                assert_eq!(
                    plane::get(&p, x, y),
                    arith::tree_bit(direct, k),
                    "({x},{y}) bit {k}"
                );
            }
        }
    }

    #[test]
    fn the_c_chain_is_the_root_pixels_value_and_the_chains_reproduce_every_pixel() {
        let mut q = Qee::new();
        q.config
            .sepcfg(9, (-300i16 as u16 as u32) | (5000 << 16), 32);
        let raw = [3.25f32, -1.5, 77.0, 0.75, -0.125, 0.5].map(f32::to_bits);
        q.start(QeeMode::Quadratic, &raw, 6);
        for k in 0..NUM_EMCS {
            let [a, b, c, d, e, f] = q.local_coefs(k);
            let (rx, ry) = root_pixel(k);
            assert_eq!(emc_of(rx, ry), k);
            assert_eq!(q.value_at(rx, ry), c >> 6, "EMC {k}");
            // Every pixel of the EMC from the local coefficients alone.
            for (lx, ly) in [(0i128, 0i128), (7, 0), (0, 31), (5, 17)] {
                let v = (d * lx * lx + e * lx * ly + f * ly * ly + a * lx + b * ly + c) >> 6;
                assert_eq!(
                    q.value_at(rx + lx as usize, ry + ly as usize),
                    v,
                    "EMC {k} local ({lx},{ly})"
                );
            }
        }
    }

    #[test]
    fn traced_tree_bit_and_c_chain_lsb_follow_the_root_pixel_bit_by_bit() {
        use crate::trace::Recorder;
        let mut q = Qee::new();
        q.config.sepcfg(5, 1000 | (2000 << 16), 32);
        let raw = [1.5f32, -2.0, -3.25, 0.0, 0.0, 0.0].map(f32::to_bits);
        q.start(QeeMode::Linear, &raw, 4);
        let emcs = (1u64 << 5) | (1 << 0) | (1 << 63);
        for _ in 0..80 {
            let mut r = Recorder::default();
            q.trace_emcs(&mut r, emcs);
            for k in [0usize, 5, 63] {
                let (x, y) = root_pixel(k);
                let p = |n: &str| format!("emc[{k}].qee.{n}");
                let want = q.delivering() && arith::tree_bit(q.value_at(x, y), q.bit);
                assert_eq!(r.value(&p("tree_bit")), Some(want as u64), "EMC {k}");
                assert_eq!(r.value(&p("chain_C")).map(|v| v & 1), Some(want as u64));
                assert_eq!(r.value(&p("tree_bit_index")), Some(q.bit.min(255) as u64));
                assert_eq!(
                    plane::get(q.tree_plane(), x, y),
                    want,
                    "what the array reads"
                );
            }
            assert_eq!(r.value("emc[5].qee.origin_x"), Some(1000));
            assert_eq!(r.value("emc[5].qee.origin_y"), Some(2000));
            assert_eq!(
                r.value("emc[63].qee.config"),
                Some(identity_config(63) as u64)
            );
            assert!(r.value("emc[1].qee.config").is_none(), "not selected");
            q.tick();
        }
    }

    #[test]
    fn identity_mapping_gives_array_coordinates() {
        let c = QeeConfig::identity();
        for (x, y) in [(0, 0), (7, 31), (8, 0), (127, 127), (64, 33)] {
            assert_eq!(c.screen_xy(x, y), (x as i64, y as i64));
        }
    }

    #[test]
    fn sepcfg_remaps_one_chip_only() {
        let mut c = QeeConfig::identity();
        let v = 1000u32 | (2000u32 << 16);
        c.sepcfg(5, v, 32);
        assert_eq!(c.origin(5), (1000, 2000));
        assert_eq!(c.screen_xy(5 * 8 + 3, 2), (1003, 2002));
        assert_eq!(
            c.screen_xy(4 * 8 + 3, 2),
            (35, 2),
            "a neighbour is unchanged"
        );
    }

    #[test]
    fn supcfg_takes_the_ones_complement_of_sca() {
        let mut c = QeeConfig::identity();
        let v = (-8i16 as u16 as u32) | (16u32 << 16);
        c.supcfg(!v, 32);
        assert!(c.reg.iter().all(|&r| r == v));
        assert_eq!(c.screen_xy(0, 0), (-8, 16));
    }

    #[test]
    fn a_partial_shift_moves_old_bits_down() {
        let mut c = QeeConfig::identity();
        c.reg[0] = 0xffff_0000;
        c.sepcfg(0, 0b01, 2);
        assert_eq!(c.reg[0], 0x7fff_c000);
    }
}
