//! The quadratic expression evaluators (QEE), one per EMC (seed 003 §III.4.2.2,
//! §III.4.2.5.4).
//!
//! - [`arith`]: coefficient conversion, the tree value and `tree[n]` (pure functions, the
//!   reference the tree is tested against).
//! - [`config`]: each EMC's configuration register ([`QeeConfig`]), loaded bit-serially by
//!   SUPCFG and SEPCFG.
//! - [`Qee`] (this file): the clocked evaluator. A microinstruction with QEE_OP = START loads
//!   the coefficient shift chains with the command's coefficients, QEEMode and FBITS; the
//!   result reaches every pixel bit-serially, LSB first, one bit per 40 MHz cycle,
//!   [`QEE_LATENCY`] cycles after the start (the `tree` input of the pixel ALUs).
//! - [`tree`]: the bit-serial adder tree that computes those bits from the chains.
//! - [`bitslice`]: its bit-sliced building blocks.
//! - `trace`: the QEE in the waveform.
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
//! (coefficients the mode does not use are 0). The FBITS fractional bits are added in the
//! START cycle (the one-cycle [`QEE_LATENCY`]); from the first delivered bit on, each chain
//! shifts one bit per 40 MHz cycle, so it holds `X_k >> (FBITS + bit)`: the bits still to
//! come, its LSB the bit on the wire into the tree's adders. The C chain's LSB is therefore the
//! root pixel's tree bit. The waveform shows the chains' low 64 bits, the next 64 bits to be
//! delivered, so bits above 63 come into view as they shift.
//!
//! **Model choice** (docs/model-choices.md, "QEE tree"): the tree steps only in cycles whose
//! microinstruction reads it (catching up to the bit on the wire), and not past the point from
//! which its output no longer changes; what the pixels see is the same as a tree stepped every
//! cycle.

pub mod arith;
pub mod bitslice;
pub mod config;
mod trace;
pub mod tree;

pub use config::{identity_config, root_pixel, QeeConfig, CFG_BITS_MAX, CFG_BITS_MIN};

use crate::emc_array::plane::{Plane, ARRAY_DIM, ZERO_PLANE};
use crate::emc_array::{emc_of, EMC_COLS, EMC_ROWS, NUM_EMCS};
use crate::trace::Wave;
use arith::{coef_to_fixed, QeeMode};
use tree::Tree;

/// Cycles from the microinstruction that starts the QEE to the cycle in which bit 0 of the
/// result is on the pixels' `tree` input (model choice, docs/model-choices.md "QEE timing").
pub const QEE_LATENCY: u32 = 1;

/// Below this magnitude a linear START's A and B times an origin coordinate (|ox|, |oy| <=
/// 2^15) fit 61 bits...
const NARROW_AB: u128 = 1 << 46;
/// ... and with C below this one, C_k = A·ox + B·oy + C fits 63 bits: the START computes it
/// in 64-bit words.
const NARROW_C: u128 = 1 << 61;

/// The bit index the waveform shows saturates here (`qee.bit`, `emc[k].qee.tree_bit_index`,
/// 8 bits); every traced value is constant once the index passes it.
pub const TRACE_BIT_MAX: u32 = 255;

/// The chip-local coefficients of a START: `[A_k, B_k, C_k]` per EMC (A_k and B_k from
/// `uniform_ab` when it is set: outside quadratic mode they are A and B in every EMC, and a
/// START does not write them per EMC) and D, E, F (zero outside quadratic mode), the same in
/// every EMC.
#[derive(Clone)]
struct LocalCoefs {
    abc: [[i128; 3]; NUM_EMCS],
    uniform_ab: Option<[i128; 2]>,
    quad: [i128; 3],
}

/// The clocked evaluator (all 64 EMCs' trees, seen together), its registers in the order
/// the waveform's `qee` scope shows them (the bit index and the latency counter saturated).
#[derive(Clone, Wave)]
pub struct Qee {
    #[wave(skip)]
    pub config: QeeConfig,
    /// Mode and fixed-point coefficients A, B, C, D, E, F of the current evaluation.
    #[wave(name)]
    pub mode: QeeMode,
    /// An evaluation has been started since reset (shown: whether it delivers).
    #[wave(rename = "delivering", get = self.delivering())]
    pub active: bool,
    /// Index of the bit on the tree input this cycle.
    #[wave(bits = 8, get = self.bit.min(TRACE_BIT_MAX))]
    pub bit: u32,
    /// Cycles until bit 0 is delivered (0: delivering).
    #[wave(bits = 4, get = self.delay.min(15))]
    pub delay: u32,
    #[wave(bits = 5)]
    pub fbits: u32,
    #[wave(bits = 64, each = "{A}")]
    pub coefs: [i128; 6],
    /// Evaluations started since reset (for the waveform's skip keys).
    #[wave(skip)]
    pub starts: u64,
    /// The chip-local coefficients each EMC's shift chains were loaded with at the last
    /// START (see the module documentation).
    #[wave(skip)]
    local: Box<LocalCoefs>,
    /// The bit-serial tree the chains feed.
    #[wave(skip)]
    tree: Box<Tree>,
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
            local: Box::new(LocalCoefs {
                abc: [[0; 3]; NUM_EMCS],
                uniform_ab: None,
                quad: [0; 3],
            }),
            tree: Box::default(),
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
        self.coefs = std::array::from_fn(|k| coef_to_fixed(raw[k], loaded_fbits[k]));
        self.start_counters(mode, fbits);
        self.load_chains();
    }

    /// A START's mode and counters, without the evaluation (the timing study's replay, which
    /// does not keep pixels: `renderer::replay`; [`Qee::start_with`] does both).
    pub fn start_counters(&mut self, mode: QeeMode, fbits: u32) {
        self.mode = mode;
        self.fbits = fbits;
        // Started in this cycle: bit 0 is on the tree input QEE_LATENCY cycles later.
        self.delay = QEE_LATENCY.saturating_sub(1);
        self.bit = 0;
        self.active = true;
        self.starts += 1;
    }

    /// Load every EMC's shift chains with its chip-local coefficients (the expression around
    /// the EMC's origin) and the tree with them.
    fn load_chains(&mut self) {
        let mode = self.mode;
        let [a, b, c, d, e, f] = self.coefs;
        let lin = matches!(mode, QeeMode::Linear | QeeMode::Quadratic);
        let quad = mode == QeeMode::Quadratic;
        let (a, b) = if lin { (a, b) } else { (0, 0) };
        let (d, e, f) = if quad { (d, e, f) } else { (0, 0, 0) };
        let c = if mode == QeeMode::None { 0 } else { c };
        let local = &mut *self.local;
        local.quad = [d, e, f];
        local.uniform_ab = (!quad).then_some([a, b]);
        if !quad
            && a.unsigned_abs() < NARROW_AB
            && b.unsigned_abs() < NARROW_AB
            && c.unsigned_abs() < NARROW_C
        {
            // A_k = A, B_k = B, and C_k fits 64 bits: one word multiply per term, and the C
            // chain's lanes built here, in the tree's lane order.
            let (a64, b64, c64) = (a as i64, b as i64, c as i64);
            let mut lanes = [0i64; NUM_EMCS];
            for (k, l) in local.abc.iter_mut().enumerate() {
                let (ox, oy) = self.config.origin(k);
                let ck = a64 * ox + b64 * oy + c64;
                l[2] = i128::from(ck);
                lanes[bitslice::emc_lane(k)] = ck;
            }
            self.tree.load_linear([a, b], &lanes);
        } else {
            for (k, l) in local.abc.iter_mut().enumerate() {
                let (ox, oy) = self.config.origin(k);
                let (ox, oy) = (ox as i128, oy as i128);
                *l = [a, b, a * ox + b * oy + c];
                if quad {
                    l[0] += 2 * d * ox + e * oy;
                    l[1] += e * ox + 2 * f * oy;
                    l[2] += d * ox * ox + e * ox * oy + f * oy * oy;
                }
            }
            self.tree.load(&local.abc, local.quad, !quad);
        }
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

    /// The bit position of the fixed-point sums on the wire this cycle: FBITS + `bit`.
    fn tree_step(&self) -> u64 {
        u64::from(self.fbits.min(arith::FBITS_MAX)) + u64::from(self.bit)
    }

    /// The bit plane on the tree input this cycle (zero while nothing is delivered): bit
    /// `bit` of every pixel's result, from the bit-serial tree.
    pub fn tree_plane(&mut self) -> &Plane {
        if !self.delivering() {
            return &ZERO_PLANE;
        }
        let s = self.tree_step();
        self.tree.plane(s)
    }

    /// The result at array pixel (x, y) of the current evaluation, from the coefficients its
    /// EMC's chains were loaded with (one pixel's arithmetic, for tests and the debugger; the
    /// pixels read the tree).
    pub fn value_at(&self, x: usize, y: usize) -> i128 {
        let (x, y) = (x % ARRAY_DIM, y % ARRAY_DIM);
        let [a, b, c, d, e, f] = self.local_coefs(emc_of(x, y));
        let (lx, ly) = ((x % EMC_COLS) as i128, (y % EMC_ROWS) as i128);
        let v = c + a * lx + b * ly + d * lx * lx + e * lx * ly + f * ly * ly;
        v >> self.fbits.min(arith::FBITS_MAX)
    }

    /// The tree bit at pixel (x, y) this cycle (from [`Qee::value_at`]).
    pub fn bit_at(&self, x: usize, y: usize) -> bool {
        self.delivering() && arith::tree_bit(self.value_at(x, y), self.bit)
    }

    /// The chip-local coefficients `[A_k, B_k, C_k, D_k, E_k, F_k]` EMC `k`'s shift chains were
    /// loaded with at the last START (fixed point, FBITS fractional bits; zero before the
    /// first START).
    pub fn local_coefs(&self, k: usize) -> [i128; 6] {
        let local = &*self.local;
        let ([a, b, c], [d, e, f]) = (local.abc[k % NUM_EMCS], local.quad);
        let [a, b] = local.uniform_ab.unwrap_or([a, b]);
        [a, b, c, d, e, f]
    }

    /// How far the shift chains have shifted: FBITS at START (the fractional bits, added in
    /// the START cycle), then one more per delivered bit.
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
        self.chains(k)[j % 6]
    }

    /// EMC `k`'s six shift chains this cycle ([`Qee::chain`] of A..F).
    pub fn chains(&self, k: usize) -> [i128; 6] {
        if !self.active {
            return [0; 6];
        }
        let shift = self.chain_shift();
        self.local_coefs(k).map(|c| c >> shift)
    }

    /// The serial tree bit of EMC `k`'s root pixel this cycle (what the pixel at its local
    /// (0, 0) reads as `tree`): its C chain's LSB, the root pixel's sum having no other term.
    pub fn emc_tree_bit(&self, k: usize) -> bool {
        self.delivering() && self.chain(k, 2) & 1 != 0
    }

    /// The tree's position: the next bit position it computes and, once it has reached its
    /// fixed point, the position from which its output stays the same (tests, debugger).
    pub fn tree_position(&self) -> (u64, Option<u64>) {
        self.tree.position()
    }
}

#[cfg(test)]
mod tests;
