//! A bit plane: one bit of every pixel processor, bit-sliced as 256 `u64` words.
//!
//! Pixel (x, y) is bit `x % 64` of word `2*y + x / 64` (row-major, LSB = leftmost). With this
//! layout the four AEO stripes (columns 0-7, 32-39, 64-71, 96-103 → AEO0, ...) are fixed byte
//! masks inside every word, and one EMC (8 columns × 32 rows) is one byte lane of 32 rows.

/// Width and height of the pixel-processor array (seed 003 §III.4.1: 128×128).
pub const ARRAY_DIM: usize = 128;
/// Number of pixel processors.
pub const NUM_PES: usize = ARRAY_DIM * ARRAY_DIM;
/// `u64` words per bit plane.
pub const PLANE_WORDS: usize = NUM_PES / 64;

/// One bit plane.
pub type Plane = [u64; PLANE_WORDS];

/// A plane of zeros.
pub const ZERO_PLANE: Plane = [0; PLANE_WORDS];

/// A [`Plane`] stored at a 64-byte (cache-line) boundary. The array keeps its registers and
/// pixel memory in these: the kernels read and write whole planes with 32-byte vector
/// accesses, and a plane at the heap's default 16-byte alignment makes every other access
/// straddle two cache lines (`pp5 bench`: docs/timing.md). Derefs to the plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct AlignedPlane(pub Plane);

impl AlignedPlane {
    /// A plane of zeros.
    pub const ZERO: AlignedPlane = AlignedPlane(ZERO_PLANE);
}

impl std::ops::Deref for AlignedPlane {
    type Target = Plane;
    #[inline(always)]
    fn deref(&self) -> &Plane {
        &self.0
    }
}

impl std::ops::DerefMut for AlignedPlane {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Plane {
        &mut self.0
    }
}
/// A plane of ones.
pub const ONES_PLANE: Plane = [u64::MAX; PLANE_WORDS];

/// Word index and bit mask of pixel (x, y). Coordinates are taken modulo 128.
#[inline]
pub fn locate(x: usize, y: usize) -> (usize, u64) {
    let (x, y) = (x % ARRAY_DIM, y % ARRAY_DIM);
    (2 * y + x / 64, 1u64 << (x % 64))
}

/// Read pixel (x, y) of a plane.
#[inline]
pub fn get(p: &Plane, x: usize, y: usize) -> bool {
    let (w, m) = locate(x, y);
    p[w] & m != 0
}

/// Write pixel (x, y) of a plane.
#[inline]
pub fn set(p: &mut Plane, x: usize, y: usize, v: bool) {
    let (w, m) = locate(x, y);
    if v {
        p[w] |= m;
    } else {
        p[w] &= !m;
    }
}

/// Mask of the columns of AEO stripe `k` (0..4) inside any plane word: columns whose
/// `(x / 8) % 4 == k` (seed 003 §III.4.1-6).
#[inline]
pub const fn stripe_mask(k: usize) -> u64 {
    0x0000_00ff_0000_00ffu64 << (8 * k)
}

/// Number of set bits in a plane.
pub fn count(p: &Plane) -> u32 {
    p.iter().map(|w| w.count_ones()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripes_cover_the_seed_columns() {
        for x in 0..ARRAY_DIM {
            let (_, m) = locate(x, 0);
            let k = (0..4).find(|&k| stripe_mask(k) & m != 0).unwrap();
            let expect = (x / 8) % 4;
            assert_eq!(k, expect, "column {x}");
        }
        assert_eq!(
            stripe_mask(0) | stripe_mask(1) | stripe_mask(2) | stripe_mask(3),
            !0
        );
    }

    #[test]
    fn get_set_round_trip() {
        let mut p = ZERO_PLANE;
        set(&mut p, 127, 127, true);
        set(&mut p, 64, 3, true);
        assert!(get(&p, 127, 127) && get(&p, 64, 3) && !get(&p, 63, 3));
        assert_eq!(count(&p), 2);
        assert_eq!(locate(127, 127), (255, 1 << 63));
    }
}
