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
//! [`emc_lane`](super::bitslice::emc_lane)`(k)`); a step is one clock of every adder. The state is the adders' carries
//! and the chains' position (the step index); the output of a step is the bit plane of bit `s`
//! of every pixel's `V`.

use super::bitslice::{
    chunk_of, full_add, full_add_chunk, words_of, Chunk, SlicedChain, BYTE_LSBS, CHUNK_BYTES,
    CHUNK_WORDS,
};
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

/// Steps a catch-up takes through the leaves together at most ([`Tree::steps`]).
const BATCH: usize = 4;
/// Chunks per run of the leaf carries (a run: the 32 rows of one plane-word column `j`).
const CHUNKS_PER_RUN: usize = Y_NODES / CHUNK_WORDS;
/// Chunks of the leaf carries: one bit per pixel.
const CHUNKS: usize = PLANE_WORDS / CHUNK_WORDS;
/// Chunks of y-tree nodes: nodes `4q .. 4q+4` in chunk `q`.
const Y_CHUNKS: usize = Y_NODES / CHUNK_WORDS;
/// Chunks of x-tree nodes.
const X_CHUNKS: usize = X_NODES / CHUNK_WORDS;
/// Levels of the y tree: the B chain's output and its delays by 1 .. 4 bits.
const Y_LEVELS: usize = Y_NODES.ilog2() as usize;
/// Levels of the x tree.
const X_LEVELS: usize = X_NODES.ilog2() as usize;
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
    /// Carries of the y-tree and x-tree nodes, four per chunk (node 0 has no adder).
    y_carry: [Chunk; Y_CHUNKS],
    x_carry: [Chunk; X_CHUNKS],
    /// Carries of the leaf adders (`Y + X`) and of the quadratic adders (`+ Z`), column-major
    /// (see [`leaves`]).
    leaf_carry: Box<LeafCarries>,
    z_carry: Box<LeafCarries>,
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
            y_carry: [[0; CHUNK_BYTES]; Y_CHUNKS],
            x_carry: [[0; CHUNK_BYTES]; X_CHUNKS],
            leaf_carry: Box::new(LeafCarries::ZERO),
            z_carry: Box::new(LeafCarries::ZERO),
            out: Box::new(AlignedPlane::ZERO),
            next: 0,
            settled: None,
            inputs_constant: 0,
            zero_steps: 0,
        }
    }
}

impl Tree {
    /// START: load the chains with each EMC's local coefficients `[A_k, B_k, C_k]` and `[D,
    /// E, F]` (fixed point; `uniform`: A_k and B_k are the same in every EMC) and clear every
    /// carry.
    pub fn load(&mut self, local: &[[i128; 3]; NUM_EMCS], [d, e, f]: [i128; 3], uniform: bool) {
        if uniform {
            self.a.load_uniform(local[0][0]);
            self.b.load_uniform(local[0][1]);
        } else {
            super::bitslice::load_emc_chain(&mut self.a, |k| local[k][0]);
            super::bitslice::load_emc_chain(&mut self.b, |k| local[k][1]);
        }
        super::bitslice::load_emc_chain(&mut self.c, |k| local[k][2]);
        self.quad = (d, e, f) != (0, 0, 0);
        let (mut zeros, mut widths) = self.chain_bounds();
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
        self.start_at(zeros, widths);
    }

    /// Below the first of these bits the A, B and C chains deliver zeros only; from the
    /// second on, sign bits only (their outputs delayed as the trees delay them).
    fn chain_bounds(&self) -> (usize, u64) {
        let zeros = [&self.a, &self.b, &self.c]
            .map(SlicedChain::zero_bits)
            .into_iter()
            .min()
            .unwrap_or(usize::MAX);
        let widths = [
            self.c.width() as u64,
            self.a.width() as u64 + X_DELAY_MAX,
            self.b.width() as u64 + Y_DELAY_MAX,
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        (zeros, widths)
    }

    /// The chains loaded: the steps whose inputs are all zero and the step from which they
    /// are constant, and the state right after START.
    fn start_at(&mut self, zeros: usize, widths: u64) {
        self.inputs_constant = widths;
        self.zero_steps = (zeros as u64).min(widths);
        self.restart();
    }

    /// START outside quadratic mode: A and B the same in every EMC, and every C_k fitting 64
    /// bits (`lanes`, in the tree's lane order).
    pub fn load_linear(&mut self, [a, b]: [i128; 2], lanes: &[i64; NUM_EMCS]) {
        self.a.load_uniform(a);
        self.b.load_uniform(b);
        self.c.load_narrow(lanes);
        self.quad = false;
        let (zeros, widths) = self.chain_bounds();
        self.start_at(zeros, widths);
    }

    /// Back to the state right after START: carries clear, chains at bit 0.
    fn restart(&mut self) {
        self.y_carry = [[0; CHUNK_BYTES]; Y_CHUNKS];
        self.x_carry = [[0; CHUNK_BYTES]; X_CHUNKS];
        *self.leaf_carry = LeafCarries::ZERO;
        if self.quad {
            *self.z_carry = LeafCarries::ZERO;
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
            // Steps before the inputs are constant cannot be the fixed point: outside
            // quadratic mode, up to BATCH of them go through the leaves together.
            let plain = self.inputs_constant.min(s + 1).saturating_sub(self.next);
            if !self.quad && plain >= 2 {
                let n = plain.min(BATCH as u64);
                self.steps(self.next, n as usize, self.next + n - 1 == s);
                self.next += n;
                continue;
            }
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
    #[inline(never)]
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
        let mut changed = [0; CHUNK_BYTES];
        let (y, xw) = self.trees::<TRACK>(s, &mut changed);
        let (ys, xws) = (&[y], &[xw]);
        let (carry, out) = (&mut *self.leaf_carry, &mut **self.out);
        if QUAD {
            let zrow: [u64; Y_NODES] = std::array::from_fn(|ly| {
                let [g] = self.z[ly / 8].delayed::<1>(s);
                ((g >> (8 * (ly % 8))) & 0xff).wrapping_mul(BYTE_LSBS)
            });
            let zc = &mut self.z_carry;
            leaves::<1, true, TRACK, OUT>(ys, xws, &zrow, carry, zc, out, &mut changed);
        } else {
            let zc = &mut self.z_carry;
            let zrow = &[0; Y_NODES];
            leaves::<1, false, TRACK, OUT>(ys, xws, zrow, carry, zc, out, &mut changed);
        }
        changed != [0; CHUNK_BYTES]
    }

    /// One clock of the y and x trees (bit `s`): the row sums, four per chunk, and the
    /// column sums in byte lanes (word j, lane i, bit lx = X_{8j+i}(lx), for the plane words
    /// whose 8 EMCs are 8j .. 8j+8). With `TRACK`, the carries' changes are ORed into
    /// `changed`.
    #[inline(always)]
    fn trees<const TRACK: bool>(
        &mut self,
        s: u64,
        changed: &mut Chunk,
    ) -> ([Chunk; Y_CHUNKS], [u64; LANES]) {
        let [c] = self.c.delayed::<1>(s);
        let y = y_tree::<TRACK>(c, self.b.delayed(s), &mut self.y_carry, changed);
        let x = x_tree::<TRACK>(self.a.delayed(s), &mut self.x_carry, changed);
        (y, byte_lane_columns(&x))
    }

    /// Steps `first .. first + n` together (2 ≤ `n` ≤ [`BATCH`]), outside quadratic mode and
    /// before the inputs are constant (no step can be the fixed point): the trees step `n`
    /// times, then each chunk of leaves takes its `n` clocks with its carries in a register.
    /// The output plane is written when `out` (the last step is the bit asked for).
    #[inline(never)]
    fn steps(&mut self, first: u64, n: usize, out: bool) {
        match (n, out) {
            (2, false) => self.steps_with::<2, false>(first),
            (2, true) => self.steps_with::<2, true>(first),
            (3, false) => self.steps_with::<3, false>(first),
            (3, true) => self.steps_with::<3, true>(first),
            (_, false) => self.steps_with::<4, false>(first),
            (_, true) => self.steps_with::<4, true>(first),
        }
    }

    /// [`Tree::steps`] for `N` steps, writing the output plane in the last or not (`OUT`).
    #[inline(always)]
    fn steps_with<const N: usize, const OUT: bool>(&mut self, first: u64) {
        let mut unused = [0; CHUNK_BYTES];
        let mut ys = [[[0; CHUNK_BYTES]; Y_CHUNKS]; N];
        let mut xws = [[0; LANES]; N];
        for (i, (y, xw)) in ys.iter_mut().zip(&mut xws).enumerate() {
            (*y, *xw) = self.trees::<false>(first + i as u64, &mut unused);
        }
        let (carry, out, zc) = (&mut *self.leaf_carry, &mut **self.out, &mut self.z_carry);
        let zrow = &[0; Y_NODES];
        leaves::<N, false, false, OUT>(&ys, &xws, zrow, carry, zc, out, &mut unused);
    }
}

/// Levels 0 and 1 of a tree, word adders: nodes `[v0, v0 + i0, v0 + i1, (v0 + i0) + i1]`
/// (`i0`, `i1`: the input and the input delayed one bit), their carries words 1 .. 4 of
/// `carry` (node 0 has no adder). With `TRACK`, the carries' changes are ORed into `changed`.
#[inline(always)]
fn first_levels<const TRACK: bool>(
    v0: u64,
    [i0, i1]: [u64; 2],
    carry: &mut Chunk,
    changed: &mut Chunk,
) -> [u64; CHUNK_WORDS] {
    let before = words_of(carry);
    let mut c = before;
    let v1 = full_add(v0, i0, &mut c[1]);
    let v2 = full_add(v0, i1, &mut c[2]);
    let v3 = full_add(v1, i1, &mut c[3]);
    *carry = chunk_of(c);
    if TRACK {
        let d = chunk_of(std::array::from_fn(|k| before[k] ^ c[k]));
        for (ch, d) in changed.iter_mut().zip(d) {
            *ch |= d;
        }
    }
    [v0, v1, v2, v3]
}

/// The y tree: `Y(0) = C`, `Y(n) = Y(n - 2^t) + 2^t·B` (`t` the top bit of `n`), `b[t]`
/// being the B chain's output delayed `t` bits. Levels 0 and 1 (nodes 1 .. 4) are word
/// adders; level `t` from 2 on adds `b[t]` to chunks `0 .. 2^(t-2)` of the nodes, giving
/// chunks `2^(t-2) .. 2^(t-1)`. Returns the 32 row sums, four per chunk; with `TRACK`, the
/// carries' changes are ORed into `changed`.
#[inline(always)]
fn y_tree<const TRACK: bool>(
    c: u64,
    b: [u64; Y_LEVELS],
    carry: &mut [Chunk; Y_CHUNKS],
    changed: &mut Chunk,
) -> [Chunk; Y_CHUNKS] {
    let mut y = [[0; CHUNK_BYTES]; Y_CHUNKS];
    y[0] = chunk_of(first_levels::<TRACK>(
        c,
        [b[0], b[1]],
        &mut carry[0],
        changed,
    ));
    chunk_level::<TRACK, 1>(&mut y, b[2], carry, changed);
    chunk_level::<TRACK, 2>(&mut y, b[3], carry, changed);
    chunk_level::<TRACK, 4>(&mut y, b[4], carry, changed);
    y
}

/// A level of chunk adders of the y tree: chunks `FIRST .. 2·FIRST` of the nodes are chunks
/// `0 .. FIRST` plus `inc`, their carries the same chunks of `carry` (a constant `FIRST`, so
/// that the compiler unrolls the level).
#[inline(always)]
fn chunk_level<const TRACK: bool, const FIRST: usize>(
    y: &mut [Chunk; Y_CHUNKS],
    inc: u64,
    carry: &mut [Chunk; Y_CHUNKS],
    changed: &mut Chunk,
) {
    let inc = chunk_of([inc; CHUNK_WORDS]);
    for q in 0..FIRST {
        let sum = full_add_chunk::<TRACK>(&y[q], &inc, &mut carry[FIRST + q], changed);
        y[FIRST + q] = sum;
    }
}

/// The x tree: `X(0) = 0`, `X(n) = X(n - 2^t) + 2^t·A`, `a[t]` being the A chain's output
/// delayed `t` bits (nodes 1 .. 4 word adders, nodes 4 .. 8 one chunk). Returns the 8 column
/// sums; with `TRACK`, the carries' changes are ORed into `changed`.
#[inline(always)]
fn x_tree<const TRACK: bool>(
    a: [u64; X_LEVELS],
    carry: &mut [Chunk; X_CHUNKS],
    changed: &mut Chunk,
) -> [u64; X_NODES] {
    let low = first_levels::<TRACK>(0, [a[0], a[1]], &mut carry[0], changed);
    let inc = chunk_of([a[2]; CHUNK_WORDS]);
    let high = words_of(&full_add_chunk::<TRACK>(
        &chunk_of(low),
        &inc,
        &mut carry[1],
        changed,
    ));
    std::array::from_fn(|n| {
        if n < CHUNK_WORDS {
            low[n]
        } else {
            high[n - CHUNK_WORDS]
        }
    })
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

/// The carries of 16384 leaf adders, byte-addressed: chunk `8·j + q` holds plane words
/// `64·r + 2·ly + h` (`j = 2r + h`) of rows `ly = 4q .. 4q+4`, each word's 8 bytes being its 8
/// EMCs' 8 columns (see [`leaves`]).
#[derive(Clone)]
#[repr(C, align(64))]
struct LeafCarries([[u8; CHUNK_BYTES]; CHUNKS]);

impl LeafCarries {
    const ZERO: LeafCarries = LeafCarries([[0; CHUNK_BYTES]; CHUNKS]);
}

/// One clock of 32 bytes of leaf adders (`Y + X`) whose `Y` bit is the same across each
/// byte: the top bit of `sel[b]`. `x`: the `X` bits. With `want_sum` (a constant where it is
/// inlined), the sum bits go to `sum`; with `TRACK`, the carries' changes are ORed into
/// `changed`.
///
/// With `Y` all zeros or all ones in a byte, the carry is `X | c` or `X & c` and the sum
/// `!(X ^ c)` or `X ^ c`: a byte select (the compiler makes it one blend per 32 bytes).
#[inline(always)]
fn leaf_chunk<const TRACK: bool>(
    want_sum: bool,
    c: &mut [u8; CHUNK_BYTES],
    sel: &[u8; CHUNK_BYTES],
    x: &[u8; CHUNK_BYTES],
    sum: &mut [u8; CHUNK_BYTES],
    changed: &mut [u8; CHUNK_BYTES],
) {
    for b in 0..CHUNK_BYTES {
        let one = (sel[b] as i8) < 0;
        let old = c[b];
        if want_sum {
            let t = old ^ x[b];
            sum[b] = if one { !t } else { t };
        }
        let new = if one { old | x[b] } else { old & x[b] };
        if TRACK {
            changed[b] |= old ^ new;
        }
        c[b] = new;
    }
}

/// The leaf adders, `Y + X` at every pixel, and with `QUAD` the quadratic adders, `(Y + X) +
/// Z`. Plane word `w` is row `w / 2` (EMC row `r = w / 64`, local row `ly`), half `h = w %
/// 2`, so its EMCs are `8j .. 8j+8` with `j = 2r + h`; `y[ly]` holds their row sums in tree
/// bits `j + 8i` (byte `i`), `xw[j]` their column sums, and `zrow[ly]` the tile's row `ly` in
/// every byte lane. The carries are kept column-major ([`LeafCarries`]: the 32 rows of one
/// `j` in a run of chunks), so a chunk's row-sum bits are 4 words of `y` shifted left by `7 -
/// j` (each EMC's bit at the top of its byte) and its column sums one word; the sums go to
/// `out` in plane order. With `TRACK`, returns the OR of the carries' changes (else 0). With
/// `OUT`, writes the sums to `out` (else only the carries move).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn leaves<const N: usize, const QUAD: bool, const TRACK: bool, const OUT: bool>(
    ys: &[[Chunk; Y_CHUNKS]; N],
    xws: &[[u64; LANES]; N],
    zrow: &[u64; Y_NODES],
    carry: &mut LeafCarries,
    z_carry: &mut LeafCarries,
    out: &mut Plane,
    changed: &mut Chunk,
) {
    for r in 0..PLANE_WORDS / WORDS_PER_EMC_ROW {
        for q in 0..CHUNKS_PER_RUN {
            let mut sums = [[0u64; CHUNK_WORDS]; 2];
            for (h, half) in sums.iter_mut().enumerate() {
                let j = 2 * r + h;
                let chunk = CHUNKS_PER_RUN * j + q;
                // The chunk's carries stay in a register through the N steps.
                let mut c = carry.0[chunk];
                let mut sum = [0u8; CHUNK_BYTES];
                for (i, (y, xw)) in ys.iter().zip(xws).enumerate() {
                    let sel = words_of(&y[q]).map(|v| v << (LANES - 1 - j));
                    leaf_chunk::<TRACK>(
                        (OUT && i == N - 1) || QUAD,
                        &mut c,
                        &chunk_of(sel),
                        &chunk_of([xw[j]; CHUNK_WORDS]),
                        &mut sum,
                        changed,
                    );
                    if QUAD {
                        let z: [u64; CHUNK_WORDS] =
                            std::array::from_fn(|k| zrow[CHUNK_WORDS * q + k]);
                        sum = full_add_chunk::<TRACK>(
                            &sum,
                            &chunk_of(z),
                            &mut z_carry.0[chunk],
                            changed,
                        );
                    }
                }
                carry.0[chunk] = c;
                if OUT {
                    *half = words_of(&sum);
                }
            }
            if OUT {
                let first = r * WORDS_PER_EMC_ROW + 2 * CHUNK_WORDS * q;
                let o = &mut out[first..first + 2 * CHUNK_WORDS];
                for (k, pair) in o.chunks_exact_mut(2).enumerate() {
                    pair[0] = sums[0][k];
                    pair[1] = sums[1][k];
                }
            }
        }
    }
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
