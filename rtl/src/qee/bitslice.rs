//! Bit-sliced building blocks of the QEE tree (docs/model-choices.md, "QEE tree"): a word
//! holds one bit of 64 serial values, a full adder on words is 64 serial adders clocked once.
//!
//! - [`emc_lane`]: where EMC `k`'s serial value sits in a word of the per-EMC trees;
//! - [`SlicedChain`]: 64 shift chains (or any 64 serial values loaded at START), bit-sliced;
//! - [`full_add`]: one clock of 64 bit-serial adders;
//! - [`Chunk`]: four words as 32 bytes, the unit of the tree's vector work ([`full_add_chunk`]);
//! - [`transpose64`]: the 64×64 bit transpose that loads a [`SlicedChain`].

/// The low bit of every byte lane of a word.
pub const BYTE_LSBS: u64 = 0x0101_0101_0101_0101;

/// The bit of a per-EMC tree word that carries EMC `k`'s serial value: `8·(k mod 8) + k div 8`.
///
/// A plane word (64 pixels of one row, 8 EMCs of 8 columns each: `plane.rs`) holds EMCs
/// `8j .. 8j+8` in its byte lanes 0..8, where `j = 2·(row div 32) + (word mod 2)`; in this
/// order they are bits `j, 8+j, 16+j, ...` of a tree word, so `(word >> j) & BYTE_LSBS` puts
/// each EMC's bit at the bottom of its own byte lane.
#[inline]
pub const fn emc_lane(k: usize) -> usize {
    8 * (k % 8) + k / 8
}

/// Bits of a serial value the model keeps: the fixed-point coefficients and sums fit 128 bits
/// (coefficients below 2^64 · 2^FBITS_MAX, origins below 2^15: docs/model-choices.md).
pub const SERIAL_BITS: usize = 128;

/// One clock of 64 bit-serial adders: the sum bits of `a + b + carry`, and the carries for the
/// next clock left in `carry`.
#[inline(always)]
pub fn full_add(a: u64, b: u64, carry: &mut u64) -> u64 {
    let t = a ^ b;
    let s = t ^ *carry;
    *carry = (a & b) | (*carry & t);
    s
}

/// Zero words a [`SlicedChain`] keeps before its bit 0: reads of its output delayed by up to
/// this many bits ([`SlicedChain::delayed`]) need no test of the index.
pub const LEAD: usize = 8;
/// Sign words a [`SlicedChain`] keeps after its last bit, for the same reads past it.
const TAIL: usize = 8;
/// Words a [`SlicedChain`] stores.
const CHAIN_WORDS: usize = LEAD + SERIAL_BITS + TAIL;

/// Words per [`Chunk`].
pub const CHUNK_WORDS: usize = 4;
/// Bytes per [`Chunk`].
pub const CHUNK_BYTES: usize = 8 * CHUNK_WORDS;

/// Four words as 32 bytes (word `k` is bytes `8k .. 8k+8`, little-endian): the unit of the
/// tree's vector work. A loop over a chunk's bytes is one 256-bit operation that the compiler
/// vectorises (AVX2); the same work on four `u64`s it leaves scalar.
pub type Chunk = [u8; CHUNK_BYTES];

/// The chunk of 4 words.
#[inline(always)]
pub fn chunk_of(w: [u64; CHUNK_WORDS]) -> Chunk {
    std::array::from_fn(|b| w[b / 8].to_le_bytes()[b % 8])
}

/// The 4 words of a chunk ([`chunk_of`] inverted).
#[inline(always)]
pub fn words_of(b: &Chunk) -> [u64; CHUNK_WORDS] {
    std::array::from_fn(|k| u64::from_le_bytes(std::array::from_fn(|i| b[8 * k + i])))
}

/// [`full_add`] on 256 serial adders: the sums of `a + b + carry`, the carries for the next
/// clock left in `carry`. With `TRACK`, the carries' changes are ORed into `changed`.
#[inline(always)]
pub fn full_add_chunk<const TRACK: bool>(
    a: &Chunk,
    b: &Chunk,
    carry: &mut Chunk,
    changed: &mut Chunk,
) -> Chunk {
    let mut sum = [0; CHUNK_BYTES];
    for i in 0..CHUNK_BYTES {
        let (old, t) = (carry[i], a[i] ^ b[i]);
        sum[i] = t ^ old;
        let new = (a[i] & b[i]) | (old & t);
        if TRACK {
            changed[i] |= old ^ new;
        }
        carry[i] = new;
    }
    sum
}

/// 64 serial values of up to [`SERIAL_BITS`] bits, bit-sliced: `word(s)` holds bit `s` of
/// each (two's complement, sign-extended without limit; zero for `s < 0`, before the value's
/// first bit). Value `i` (in the caller's lane order) is bit `i` of every word.
///
/// This is the model of a shift chain that is loaded at START and shifts one bit per clock:
/// the chain's output in clock `s` is `word(s)`, and "shifting" is moving the index.
#[derive(Clone)]
pub struct SlicedChain {
    /// `words[LEAD + s]` is bit `s` for `s` in `-LEAD .. SERIAL_BITS + TAIL`: zeros before bit
    /// 0, the sign word after bit 127 (and after bit 63 when every value fits 64 bits).
    words: [u64; CHAIN_WORDS],
    /// From this bit on every word is the sign word: the widest value's width.
    width: usize,
}

impl Default for SlicedChain {
    fn default() -> Self {
        SlicedChain {
            words: [0; CHAIN_WORDS],
            width: 0,
        }
    }
}

impl SlicedChain {
    /// Load the chains with `values` (`values[i]` into lane `i`).
    pub fn load(&mut self, values: &[i128; 64]) {
        let first = values[0];
        if values.iter().all(|&v| v == first) {
            return self.load_uniform(first);
        }
        let low: [u64; 64] = std::array::from_fn(|i| values[i] as u64);
        let high: [u64; 64] = std::array::from_fn(|i| (values[i] >> 64) as u64);
        // The bits that differ from the sign, over all values: their top is the width. Values
        // that fit 64 bits (their high words the sign of the low ones) are the usual case.
        let sign_of = |w: u64| ((w as i64) >> 63) as u64;
        let wide = low
            .iter()
            .zip(&high)
            .fold(0, |m, (&l, &h)| m | (h ^ sign_of(l)));
        self.width = if wide == 0 {
            let magnitude = low.iter().fold(0, |m, &l| m | (l ^ sign_of(l)));
            64 - magnitude.leading_zeros() as usize
        } else {
            let magnitude = values
                .iter()
                .fold(0u128, |m, &v| m | (v ^ (v >> 127)) as u128);
            SERIAL_BITS - magnitude.leading_zeros() as usize
        };
        let mut block = low;
        transpose64(&mut block);
        let (bits_low, bits_high) = self.words[LEAD..LEAD + SERIAL_BITS].split_at_mut(64);
        bits_low.copy_from_slice(&block);
        if self.width < 64 {
            // Word 63 is the sign word.
            bits_high.fill(block[63]);
        } else {
            let mut block = high;
            transpose64(&mut block);
            bits_high.copy_from_slice(&block);
        }
        self.fill_tail();
    }

    /// Load the chains with `values` that fit 64 bits (`values[i]` into lane `i`).
    pub fn load_narrow(&mut self, values: &[i64; 64]) {
        let magnitude = values.iter().fold(0, |m, &v| m | (v ^ (v >> 63)) as u64);
        self.width = 64 - magnitude.leading_zeros() as usize;
        let mut block = values.map(|v| v as u64);
        transpose64(&mut block);
        let bits = &mut self.words[LEAD..LEAD + SERIAL_BITS];
        bits[..64].copy_from_slice(&block);
        // Word 63 is the sign word.
        bits[64..].fill(block[63]);
        self.fill_tail();
    }

    /// Load every lane with `value` (a coefficient no EMC re-bases): each word is all zeros or
    /// all ones.
    pub fn load_uniform(&mut self, value: i128) {
        self.width = SERIAL_BITS - ((value ^ (value >> 127)) as u128).leading_zeros() as usize;
        let halves = [value as u64, (value >> 64) as u64];
        let bits = &mut self.words[LEAD..LEAD + SERIAL_BITS];
        for (half, words) in halves.iter().zip(bits.chunks_exact_mut(64)) {
            for (s, w) in words.iter_mut().enumerate() {
                *w = 0u64.wrapping_sub((half >> s) & 1);
            }
        }
        self.fill_tail();
    }

    /// The words after bit 127: its sign word.
    fn fill_tail(&mut self) {
        let sign = self.words[LEAD + SERIAL_BITS - 1];
        self.words[LEAD + SERIAL_BITS..].fill(sign);
    }

    /// Bit `s` of every value (`s < 0`: zero).
    #[inline(always)]
    pub fn word(&self, s: i64) -> u64 {
        self.words[s
            .saturating_add(LEAD as i64)
            .clamp(0, CHAIN_WORDS as i64 - 1) as usize]
    }

    /// Bits `s, s - 1, .., s - (N - 1)` of every value: the chain's output at step `s` and
    /// delayed by 1 .. N - 1 bits (`N` at most [`LEAD`]).
    #[inline(always)]
    pub fn delayed<const N: usize>(&self, s: u64) -> [u64; N] {
        // Past the last bit every word is the sign word, and the TAIL words keep it.
        let top = (s.min(CHAIN_WORDS as u64) as usize + LEAD).min(CHAIN_WORDS - 1);
        let run = &self.words[top + 1 - N..=top];
        std::array::from_fn(|t| run[N - 1 - t])
    }

    /// From this bit on, `word` returns the sign word.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Below this bit every word is zero: every value is a multiple of 2 to this power
    /// (`usize::MAX` when every value is zero).
    pub fn zero_bits(&self) -> usize {
        self.words[LEAD..LEAD + SERIAL_BITS]
            .iter()
            .position(|&w| w != 0)
            .unwrap_or(usize::MAX)
    }
}

/// Load 64 per-EMC values into a [`SlicedChain`] in the tree's lane order ([`emc_lane`]).
pub fn load_emc_chain(chain: &mut SlicedChain, per_emc: impl Fn(usize) -> i128) {
    // `emc_lane` is its own inverse (it transposes an 8×8 index): lane `i` holds EMC
    // `emc_lane(i)`, so the lanes are built in order, without a scattered store.
    let lanes: [i128; 64] = std::array::from_fn(|i| per_emc(emc_lane(i)));
    chain.load(&lanes);
}

/// Transpose a 64×64 bit matrix: afterwards bit `i` of word `k` is bit `k` of the former
/// word `i` (the recursive block-swap method: six stages with fixed masks, each stage's loop
/// over whole words of constant stride, so the compiler unrolls and vectorises it).
pub fn transpose64(m: &mut [u64; 64]) {
    swap_blocks::<32>(m, 0x0000_0000_ffff_ffff);
    swap_blocks::<16>(m, 0x0000_ffff_0000_ffff);
    swap_blocks::<8>(m, 0x00ff_00ff_00ff_00ff);
    swap_blocks::<4>(m, 0x0f0f_0f0f_0f0f_0f0f);
    swap_blocks::<2>(m, 0x3333_3333_3333_3333);
    swap_blocks::<1>(m, 0x5555_5555_5555_5555);
}

/// One stage of [`transpose64`]: with "bit j of word i" as row i, column j, swap the
/// off-diagonal `J`×`J` blocks of every `2J`×`2J` block on the diagonal (`mask`: the low `J`
/// bits of every `2J`).
#[inline(always)]
fn swap_blocks<const J: usize>(m: &mut [u64; 64], mask: u64) {
    for k in (0..64).step_by(2 * J) {
        for i in k..k + J {
            let t = ((m[i] >> J) ^ m[i + J]) & mask;
            m[i] ^= t << J;
            m[i + J] ^= t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_sliced_chain_gives_every_bit_and_then_the_sign() {
        let mut vals = [0i128; 64];
        vals[0] = -1;
        vals[1] = 5;
        vals[2] = 1 << 70;
        vals[3] = -(1 << 90) + 3;
        vals[63] = -2;
        let mut c = SlicedChain::default();
        c.load(&vals);
        assert_eq!(c.width(), 90, "-(2^90)+3: bit 90 up are sign bits");
        for s in -3i64..300 {
            let w = c.word(s);
            for (i, v) in vals.iter().enumerate() {
                let want = s >= 0 && (v >> (s.min(127) as u32)) & 1 != 0;
                assert_eq!((w >> i) & 1 != 0, want, "value {i} bit {s}");
            }
        }
        // Values of 64 bits or fewer: the sign word from bit 64 on too.
        c.load(&[-7; 64]);
        assert_eq!(c.width(), 3);
        assert_eq!(c.word(1000), u64::MAX);
        assert_eq!(c.delayed::<3>(130), [u64::MAX; 3]);
        assert_eq!(c.delayed::<5>(2), [0, 0, u64::MAX, 0, 0], "-7 = ...11001");
        let mut v = [0i128; 64];
        v[1] = 5;
        v[2] = -2;
        c.load(&v);
        assert_eq!(c.delayed::<4>(64), [0b100, 0b100, 0b100, 0b100]);
        assert_eq!(c.delayed::<4>(2), [0b110, 0b100, 0b010, 0]);
        assert_eq!(c.delayed::<4>(1000), [0b100; 4]);
        c.load(&[0; 64]);
        assert_eq!((c.word(0), c.word(99), c.width()), (0, 0, 0));
        assert_eq!(c.zero_bits(), usize::MAX, "all zero");
        // The lowest bit set in any value.
        let mut v = [0i128; 64];
        v[5] = -16;
        c.load(&v);
        assert_eq!(c.zero_bits(), 4);
        v[9] = 3 << 70;
        v[5] = 0;
        c.load(&v);
        assert_eq!(c.zero_bits(), 70);
        c.load(&[-1; 64]);
        assert_eq!(c.zero_bits(), 0);
        // Widths on both sides of 32 and 64.
        for extreme in [
            -(1i128 << 31),
            (1 << 31) - 1,
            1 << 31,
            -(1 << 31) - 1,
            3 << 62,
        ] {
            let mut v: [i128; 64] = std::array::from_fn(|i| (i as i128 * 0x9e37_79b9) % 1000);
            v[17] = extreme;
            c.load(&v);
            for s in 0..140i64 {
                let w = c.word(s);
                for (i, v) in v.iter().enumerate() {
                    let want = (v >> (s.min(127) as u32)) & 1 != 0;
                    assert_eq!((w >> i) & 1 != 0, want, "{extreme}: value {i} bit {s}");
                }
            }
            // Values that fit 64 bits load the same through load_narrow.
            if let Ok(narrow) = v
                .map(i64::try_from)
                .into_iter()
                .collect::<Result<Vec<_>, _>>()
            {
                let mut n = SlicedChain::default();
                n.load_narrow(&narrow.try_into().unwrap());
                assert_eq!((n.width(), n.zero_bits()), (c.width(), c.zero_bits()));
                for s in -8..140i64 {
                    assert_eq!(n.word(s), c.word(s), "{extreme}: bit {s}");
                }
            }
        }
    }

    #[test]
    fn the_adder_adds_64_serial_values_lsb_first() {
        let (a, b) = ([3u64, 9, 255, 0], [5u64, 7, 1, 0]);
        let mut carry = 0;
        let mut sums = [0u64; 4];
        for s in 0..12 {
            let word = |v: &[u64; 4]| (0..4).fold(0u64, |w, i| w | ((v[i] >> s) & 1) << i);
            let out = full_add(word(&a), word(&b), &mut carry);
            for (i, sum) in sums.iter_mut().enumerate() {
                *sum |= ((out >> i) & 1) << s;
            }
        }
        assert_eq!(sums, [8, 16, 256, 0]);
    }

    #[test]
    fn emc_lanes_are_a_permutation_that_puts_a_plane_words_emcs_in_byte_lanes() {
        let mut seen = 0u64;
        for k in 0..64 {
            seen |= 1 << emc_lane(k);
        }
        assert_eq!(seen, u64::MAX);
        // Its own inverse (load_emc_chain relies on it).
        for k in 0..64 {
            assert_eq!(emc_lane(emc_lane(k)), k);
        }
        // Plane word j's byte lane i is EMC 8j + i.
        for j in 0..8 {
            for i in 0..8 {
                assert_eq!(emc_lane(8 * j + i), 8 * i + j);
            }
        }
    }
}
