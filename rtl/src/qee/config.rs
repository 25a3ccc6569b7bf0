//! Each EMC's QEE configuration register (seed 003 §III.4.2.5.4), loaded bit-serially by SUPCFG
//! (all EMCs, the 1's complement of `sca`) and SEPCFG (one EMC, `sca`).
//!
//! **Model choice** (docs/model-choices.md, "QEE configuration register"): the register holds
//! the EMC's screen origin, x in bits 15:0 and y in bits 31:16 (two's complement), so a
//! Renderer can be mapped onto any 128×128 region and re-mapped. The standard mapping puts EMC
//! `k` at (8·(k mod 16), 32·(k div 16)).

use crate::emc_array::{emc_of, EMCS_PER_ROW, EMC_COLS, EMC_ROWS, NUM_EMCS};

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

#[cfg(test)]
mod tests {
    use super::*;

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
