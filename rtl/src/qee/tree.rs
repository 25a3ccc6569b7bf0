//! The QEE tree: the bit-serial adders that turn the coefficient shift chains into one result
//! bit plane per clock (docs/model-choices.md, "QEE tree").
//!
//! Inside EMC `k` the pixel at local (lx, ly) receives, in fixed point,
//!
//! ```text
//! V(lx, ly) = Y_k(ly) + X_k(lx) + Z(lx, ly)
//! Y_k(ly) = C_k + B_k·ly     X_k(lx) = A_k·lx     Z(lx, ly) = D·lx² + E·lx·ly + F·ly²
//! ```
//!
//! - the **y tree** forms the 32 row sums `Y_k(ly)` from the C and B chains, one serial adder
//!   per node: `Y(n) = Y(n - 2^t) + (B delayed t bits)`, `t` the top bit of `n`;
//! - the **x tree** forms the 8 column sums `X_k(lx)` from the A chain the same way;
//! - the **quadratic tile** `Z` (the same in every EMC: D, E, F are global) is a bit-sliced
//!   shift register loaded at START, present in quadratic mode only;
//! - the **leaves**: one serial adder per pixel adds its row's `Y` and its column's `X` (and a
//!   second one `Z`); their carries are bit planes.
//!
//! Every node of the per-EMC trees is one word of 64 lanes (EMC `k` in lane
//! [`emc_lane`]`(k)`); a step is one clock of every adder. The state is the adders' carries
//! and the chains' position (the step index); the output of a step is the bit plane of bit `s`
//! of every pixel's `V`.

use super::bitslice::{full_add, SlicedChain, BYTE_LSBS};
use crate::emc_array::plane::{AlignedPlane, Plane, PLANE_WORDS};
use crate::emc_array::{EMC_COLS, EMC_ROWS, NUM_EMCS};

/// Nodes of the y tree per EMC: one per row of the EMC.
const Y_NODES: usize = EMC_ROWS;
/// Nodes of the x tree per EMC: one per column of the EMC.
const X_NODES: usize = EMC_COLS;
/// The longest delay of the A chain's output in the x tree (the increment 4·A of node 4).
const X_DELAY_MAX: u64 = X_NODES.ilog2() as u64 - 1;
/// The longest delay of the B chain's output in the y tree (the increment 16·B of node 16).
const Y_DELAY_MAX: u64 = Y_NODES.ilog2() as u64 - 1;
/// Row groups of the quadratic tile: 8 rows of 8 columns per 64-lane word.
const Z_GROUPS: usize = EMC_ROWS / 8;
/// Byte lanes of a plane word: the 8 EMCs side by side in 64 columns.
const LANES: usize = 8;
/// Plane words per EMC row of the array (32 rows × 2 words).
const WORDS_PER_EMC_ROW: usize = 2 * EMC_ROWS;

/// Longest chain of adders from a chain output to a leaf: 5 y-tree levels, the leaf and the
/// quadratic adder. Once every input is constant, each adder's carry is constant one step
/// after its inputs are, so the tree reaches its fixed point within this many steps (plus
/// one to see it); the tree stops stepping at a bound well past it whatever happens.
const ADDER_DEPTH: u64 = 7;

/// The bit plane a tree adds: the parent of node `n` and the delay (in bits) of its increment.
#[inline(always)]
#[cfg(test)]
fn node_parent(n: usize) -> (usize, usize) {
    let t = (usize::BITS - 1 - n.leading_zeros()) as usize;
    (n - (1 << t), t)
}

/// Spread the lowest bit of each byte lane over the whole lane (0 → 0x00, 1 → 0xff).
#[inline(always)]
fn spread_bytes(v: u64) -> u64 {
    (v << 8).wrapping_sub(v)
}

/// The bit-serial tree of all 64 EMCs.
#[derive(Clone)]
pub struct Tree {
    /// The A, B and C chains of the 64 EMCs, in lane order.
    a: SlicedChain,
    b: SlicedChain,
    c: SlicedChain,
    /// The quadratic tile: group `g` holds rows `8g .. 8g+8`, lane `8·(ly mod 8) + lx`.
    z: [SlicedChain; Z_GROUPS],
    /// The tile is not all zero (quadratic mode with a D, E or F): the second leaf adder runs.
    quad: bool,
    /// Carries of the y-tree and x-tree nodes (node 0 has no adder).
    y_carry: [u64; Y_NODES],
    x_carry: [u64; X_NODES],
    /// Carries of the leaf adders (`Y + X`) and of the quadratic adders (`+ Z`), half-major
    /// (see [`leaves`]: word `64·r + 32·h + ly` is plane word `64·r + 2·ly + h`).
    leaf_carry: Box<AlignedPlane>,
    z_carry: Box<AlignedPlane>,
    /// The last step's output: bit `next - 1` of every pixel's `V`.
    out: Box<AlignedPlane>,
    /// The next step to take (the chains' position).
    next: u64,
    /// The output is the same in every step from this one on (the state is a fixed point).
    settled: Option<u64>,
    /// From this step on every chain delivers sign bits only.
    inputs_constant: u64,
    /// Before this step every chain delivers zeros (at most `inputs_constant`): from START,
    /// every carry and output stays zero up to it, so the tree starts there.
    zero_steps: u64,
}

impl Default for Tree {
    fn default() -> Self {
        Tree {
            a: SlicedChain::default(),
            b: SlicedChain::default(),
            c: SlicedChain::default(),
            z: Default::default(),
            quad: false,
            y_carry: [0; Y_NODES],
            x_carry: [0; X_NODES],
            leaf_carry: Box::new(AlignedPlane::ZERO),
            z_carry: Box::new(AlignedPlane::ZERO),
            out: Box::new(AlignedPlane::ZERO),
            next: 0,
            settled: None,
            inputs_constant: 0,
            zero_steps: 0,
        }
    }
}

impl Tree {
    /// START: load the chains with each EMC's local coefficients `[A_k, B_k, C_k, D, E, F]`
    /// (fixed point) and clear every carry.
    pub fn load(&mut self, local: &[[i128; 6]; NUM_EMCS]) {
        super::bitslice::load_emc_chain(&mut self.a, |k| local[k][0]);
        super::bitslice::load_emc_chain(&mut self.b, |k| local[k][1]);
        super::bitslice::load_emc_chain(&mut self.c, |k| local[k][2]);
        // D, E and F are the same in every EMC.
        let [d, e, f] = [local[0][3], local[0][4], local[0][5]];
        self.quad = (d, e, f) != (0, 0, 0);
        let mut zeros = [&self.a, &self.b, &self.c]
            .map(SlicedChain::zero_bits)
            .into_iter()
            .min()
            .unwrap_or(usize::MAX);
        let mut widths = [
            self.c.width() as u64,
            self.a.width() as u64 + X_DELAY_MAX,
            self.b.width() as u64 + Y_DELAY_MAX,
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        if self.quad {
            for (g, chain) in self.z.iter_mut().enumerate() {
                let tile: [i128; 64] = std::array::from_fn(|lane| {
                    let (lx, ly) = ((lane % 8) as i128, (8 * g + lane / 8) as i128);
                    d * lx * lx + e * lx * ly + f * ly * ly
                });
                chain.load(&tile);
                widths = widths.max(chain.width() as u64);
                zeros = zeros.min(chain.zero_bits());
            }
        }
        self.inputs_constant = widths;
        self.zero_steps = (zeros as u64).min(widths);
        self.restart();
    }

    /// Back to the state right after START: carries clear, chains at bit 0.
    fn restart(&mut self) {
        self.y_carry = [0; Y_NODES];
        self.x_carry = [0; X_NODES];
        **self.leaf_carry = [0; crate::emc_array::plane::PLANE_WORDS];
        if self.quad {
            **self.z_carry = [0; crate::emc_array::plane::PLANE_WORDS];
        }
        self.next = 0;
        self.settled = None;
    }

    /// The bit plane of bit `s` of every pixel's fixed-point sum `V`: the tree steps up to `s`
    /// from where it is (or from START, for an earlier bit), and not at all past its fixed
    /// point.
    pub fn plane(&mut self, s: u64) -> &Plane {
        if self.next > s.saturating_add(1) {
            self.restart();
        }
        // Steps whose inputs are all zero leave the state as START left it (all zero).
        if self.next < self.zero_steps && self.next <= s {
            self.next = self.zero_steps.min(s);
        }
        // Bounded: the tree settles within ADDER_DEPTH steps of its inputs becoming constant.
        let bound = self.inputs_constant + 8 * ADDER_DEPTH;
        while self.next <= s && self.settled.is_none() {
            let changed = self.step(self.next, self.next == s);
            if self.next >= self.inputs_constant && !changed {
                self.settled = Some(self.next);
            } else if self.next >= bound {
                debug_assert!(false, "the QEE tree did not settle by step {bound}");
                self.settled = Some(self.next);
            }
            self.next += 1;
        }
        &self.out
    }

    /// The step the tree has reached (for tests and the debugger): the next bit it computes,
    /// and the step from which its output stays the same, once known.
    pub fn position(&self) -> (u64, Option<u64>) {
        (self.next, self.settled)
    }

    /// One clock of every adder: bit `s` of every node and leaf. Returns whether any carry
    /// changed. The output plane is written when `last` (the bit asked for) or when the step
    /// may turn out to be the fixed point (the inputs constant): in a step that is neither,
    /// the caller steps on and overwrites it, so only the carries move.
    fn step(&mut self, s: u64, last: bool) -> bool {
        // Whether the carries changed matters only once the inputs are constant (before that
        // the tree cannot be at its fixed point).
        match (self.quad, s >= self.inputs_constant, last) {
            (false, false, false) => self.step_with::<false, false, false>(s),
            (false, false, true) => self.step_with::<false, false, true>(s),
            (false, true, _) => self.step_with::<false, true, true>(s),
            (true, false, false) => self.step_with::<true, false, false>(s),
            (true, false, true) => self.step_with::<true, false, true>(s),
            (true, true, _) => self.step_with::<true, true, true>(s),
        }
    }

    /// [`Tree::step`] for a tile present or not (`QUAD`), tracking the carries' changes or
    /// not (`TRACK`: else it returns false), writing the output plane or not (`OUT`).
    #[inline(always)]
    fn step_with<const QUAD: bool, const TRACK: bool, const OUT: bool>(&mut self, s: u64) -> bool {
        let s = s.min(i64::MAX as u64) as i64;
        let mut changed = 0u64;
        // The y tree: Y(0) = C, Y(n) = Y(n - 2^t) + 2^t·B, level by level (the nodes of
        // level t, 2^t .. 2^(t+1), add the same input to the nodes before them).
        let mut y = [0u64; Y_NODES];
        y[0] = self.c.word(s);
        let (b, yc) = (&self.b, &mut self.y_carry);
        changed |= tree_level::<TRACK, 0>(&mut y, yc, b.word(s));
        changed |= tree_level::<TRACK, 1>(&mut y, yc, b.word(s - 1));
        changed |= tree_level::<TRACK, 2>(&mut y, yc, b.word(s - 2));
        changed |= tree_level::<TRACK, 3>(&mut y, yc, b.word(s - 3));
        changed |= tree_level::<TRACK, 4>(&mut y, yc, b.word(s - 4));
        // The x tree: X(0) = 0, X(n) = X(n - 2^t) + 2^t·A.
        let mut x = [0u64; X_NODES];
        let (a, xc) = (&self.a, &mut self.x_carry);
        changed |= tree_level::<TRACK, 0>(&mut x, xc, a.word(s));
        changed |= tree_level::<TRACK, 1>(&mut x, xc, a.word(s - 1));
        changed |= tree_level::<TRACK, 2>(&mut x, xc, a.word(s - 2));
        // The x sums in byte lanes: word j, lane i, bit lx = X_{8j+i}(lx), for the plane
        // words whose 8 EMCs are 8j .. 8j+8.
        let xw = byte_lane_columns(&x);
        // The row sums for each half, the second shifted by one: plane words 2·ly + h of an
        // EMC row take row ly's sums of the EMCs in tree bits 2r + h + 8i.
        let yh: [[u64; Y_NODES]; 2] = [y, y.map(|v| v >> 1)];
        let (carry, out) = (&mut **self.leaf_carry, &mut **self.out);
        changed |= if QUAD {
            let zrow: [u64; Y_NODES] = std::array::from_fn(|ly| {
                let g = self.z[ly / 8].word(s);
                ((g >> (8 * (ly % 8))) & 0xff).wrapping_mul(BYTE_LSBS)
            });
            leaves::<true, TRACK, OUT>(&yh, &xw, &zrow, carry, &mut self.z_carry[..], out)
        } else {
            leaves::<false, TRACK, OUT>(&yh, &xw, &[0; Y_NODES], carry, &mut [], out)
        };
        changed != 0
    }
}

/// The x sums in byte lanes: `out[j]` has in bit `lx` of byte `i` bit `8i + j` of `x[lx]`
/// (an 8×8 bit transpose in each byte lane at once, by the block-swap method).
#[inline(always)]
fn byte_lane_columns(x: &[u64; X_NODES]) -> [u64; LANES] {
    let mut m = *x;
    swap_rows::<4>(&mut m, 0x0f0f_0f0f_0f0f_0f0f);
    swap_rows::<2>(&mut m, 0x3333_3333_3333_3333);
    swap_rows::<1>(&mut m, 0x5555_5555_5555_5555);
    m
}

/// One stage of [`byte_lane_columns`]: swap the off-diagonal `K`×`K` blocks of every
/// `2K`×`2K` block (rows `r` with `r & K == 0` against rows `r + K`), every byte lane at once.
#[inline(always)]
fn swap_rows<const K: usize>(m: &mut [u64; LANES], mask: u64) {
    for k in (0..LANES).step_by(2 * K) {
        for r in k..k + K {
            let t = ((m[r] >> K) ^ m[r + K]) & mask;
            m[r] ^= t << K;
            m[r + K] ^= t;
        }
    }
}

/// Level `T` of a bit-serial adder tree: nodes `2^T .. 2^(T+1)` of `v` are their parents
/// `0 .. 2^T` plus `inc` (the tree's input delayed `T` bits), with their carries in `carry`.
/// With `TRACK`, returns the OR of the carries' changes (else 0).
#[inline(always)]
fn tree_level<const TRACK: bool, const T: usize>(
    v: &mut [u64],
    carry: &mut [u64],
    inc: u64,
) -> u64 {
    let n = 1 << T;
    let (parents, nodes) = v.split_at_mut(n);
    let mut changed = 0;
    for ((node, &parent), c) in nodes[..n]
        .iter_mut()
        .zip(parents.iter())
        .zip(carry[n..2 * n].iter_mut())
    {
        let before = *c;
        *node = full_add(parent, inc, c);
        if TRACK {
            changed |= before ^ *c;
        }
    }
    changed
}

/// The leaf adders, `Y + X` at every pixel, and with `QUAD` the quadratic adders, `(Y + X) +
/// Z`. Plane word `w` is row `w / 2` (EMC row `r = w / 64`, local row `ly`), half `h = w %
/// 2`, so its EMCs are `8j .. 8j+8` with `j = 2r + h`; `yh[h][ly]` holds their row sums in
/// tree bits `2r + 8i`, `xw[j]` their column sums, and `zrow[ly]` the tile's row `ly` in every
/// byte lane. The carries are kept half-major (word `64·r + 32·h + ly`), so each half's
/// adders are one run of words with the same column sums (no per-word select); the sums go
/// to `out` in plane order. With `TRACK`, returns the OR of the carries' changes (else 0).
/// With `OUT`, writes the sums to `out` (else only the carries move).
#[inline(always)]
fn leaves<const QUAD: bool, const TRACK: bool, const OUT: bool>(
    yh: &[[u64; Y_NODES]; 2],
    xw: &[u64; LANES],
    zrow: &[u64; Y_NODES],
    carry: &mut Plane,
    z_carry: &mut [u64],
    out: &mut Plane,
) -> u64 {
    let mut changed = 0;
    for r in 0..PLANE_WORDS / WORDS_PER_EMC_ROW {
        let mut sums = [[0u64; Y_NODES]; 2];
        for (h, half) in sums.iter_mut().enumerate() {
            let words =
                r * WORDS_PER_EMC_ROW + h * Y_NODES..r * WORDS_PER_EMC_ROW + (h + 1) * Y_NODES;
            let c = &mut carry[words.clone()];
            let zc = if QUAD {
                &mut z_carry[words]
            } else {
                &mut [][..]
            };
            let xv = xw[2 * r + h];
            for ly in 0..Y_NODES {
                let ys = spread_bytes((yh[h][ly] >> (2 * r)) & BYTE_LSBS);
                let before = c[ly];
                let mut v = full_add(ys, xv, &mut c[ly]);
                if TRACK {
                    changed |= before ^ c[ly];
                }
                if QUAD {
                    let before = zc[ly];
                    v = full_add(v, zrow[ly], &mut zc[ly]);
                    if TRACK {
                        changed |= before ^ zc[ly];
                    }
                }
                if OUT {
                    half[ly] = v;
                }
            }
        }
        if OUT {
            let o = &mut out[r * WORDS_PER_EMC_ROW..(r + 1) * WORDS_PER_EMC_ROW];
            for (ly, pair) in o.chunks_exact_mut(2).enumerate() {
                pair[0] = sums[0][ly];
                pair[1] = sums[1][ly];
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_parents_add_one_increment_each() {
        assert_eq!(node_parent(1), (0, 0));
        assert_eq!(node_parent(2), (0, 1));
        assert_eq!(node_parent(3), (1, 1));
        assert_eq!(node_parent(31), (15, 4));
        assert_eq!(node_parent(16), (0, 4));
        // Every node's value is its parent's plus 2^t: n = p + 2^t.
        for n in 1..32 {
            let (p, t) = node_parent(n);
            assert_eq!(p + (1 << t), n);
            assert!(p < n);
        }
    }

    #[test]
    fn byte_lane_columns_gather_bit_j_of_every_byte() {
        let mut x = [0u64; X_NODES];
        let mut v = 0x9e37_79b9_7f4a_7c15u64;
        for w in x.iter_mut() {
            v ^= v << 13;
            v ^= v >> 7;
            v ^= v << 17;
            *w = v;
        }
        let got = byte_lane_columns(&x);
        for (j, g) in got.iter().enumerate() {
            let want = x
                .iter()
                .enumerate()
                .fold(0u64, |w, (lx, v)| w | ((v >> j) & BYTE_LSBS) << lx);
            assert_eq!(*g, want, "column {j}");
        }
    }

    #[test]
    fn spreading_fills_each_byte_lane_from_its_low_bit() {
        assert_eq!(spread_bytes(0), 0);
        assert_eq!(spread_bytes(BYTE_LSBS), u64::MAX);
        assert_eq!(spread_bytes(0x0100_0000_0000_0001), 0xff00_0000_0000_00ff);
    }

    #[test]
    fn lanes_line_up_with_plane_words() {
        // Plane word w holds EMCs 8j..8j+8 with j = 2·(w / 64) + w % 2 (plane.rs layout).
        use super::super::bitslice::emc_lane;
        use crate::emc_array::emc_of;
        for w in 0..256 {
            let (y, half) = (w / 2, w % 2);
            let j = 2 * (w / 64) + half;
            for i in 0..8 {
                assert_eq!(emc_of(64 * half + 8 * i, y), 8 * j + i);
                assert_eq!(emc_lane(8 * j + i), 8 * i + j);
            }
        }
    }
}
