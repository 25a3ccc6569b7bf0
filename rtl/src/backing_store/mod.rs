//! The Backing Store: the 64 video RAMs beside the EMCs (seed 003 §III.4.1).
//!
//! "128 32-bit registers *per pixel processor*; that is, there are 128 *sectors* of Backing
//! Store, each sector arranged as a 128×128 array of 32-bit values" (2 MWords, 8 MB). Word
//! `(x, y)` of a sector belongs to pixel processor `(x, y)`; a sector is stored in scanline
//! order (row `y`, then column `x`), the order BS_RECEIVE and BS_TRANSMIT use.
//!
//! - [`transfer`]: the transfer unit that moves pixel-memory bits 0-31 to and from a sector
//!   (BSLOAD, BSSTORE, BSWAIT, VBSlater; §III.4.2.5.2).
//!
//! The BS port (`crate::bs_port`) reads and writes the store through its other side.

mod trace;
pub mod transfer;

use crate::emc_array::plane::{ARRAY_DIM, NUM_PES};

/// Sectors of backing store (seed §III.4.1: 128).
pub const SECTORS: usize = 128;
/// Words per sector: one per pixel processor (128 × 128).
pub const SECTOR_WORDS: usize = NUM_PES;
/// Words per scanline segment (seed §III.4.1-2: "a row of 128 pixel values within a sector").
pub const SCANLINE_WORDS: usize = ARRAY_DIM;
/// Pixel-memory bits a transfer moves: bits 0-31 (seed §III.4.2.5.2).
pub const XFER_BITS: usize = 32;

/// The backing-store memory.
#[derive(Clone)]
pub struct BackingStore {
    /// `SECTORS × SECTOR_WORDS` words, sector-major. Allocated zeroed (the model's power-up
    /// contents; the real VRAMs power up with garbage).
    words: Vec<u32>,
    /// Words written since reset, by either side (for the waveform and reports).
    pub writes: u64,
}

impl Default for BackingStore {
    fn default() -> Self {
        Self::new()
    }
}

impl BackingStore {
    /// An all-zero store.
    pub fn new() -> Self {
        BackingStore {
            words: vec![0; SECTORS * SECTOR_WORDS],
            writes: 0,
        }
    }

    /// Index of word (x, y) of `sector` (all taken modulo their ranges).
    #[inline]
    fn index(sector: usize, x: usize, y: usize) -> usize {
        (sector % SECTORS) * SECTOR_WORDS + (y % ARRAY_DIM) * ARRAY_DIM + x % ARRAY_DIM
    }

    /// Word (x, y) of `sector`.
    #[inline]
    pub fn read(&self, sector: usize, x: usize, y: usize) -> u32 {
        self.words[Self::index(sector, x, y)]
    }

    /// Write word (x, y) of `sector`.
    #[inline]
    pub fn write(&mut self, sector: usize, x: usize, y: usize, value: u32) {
        self.words[Self::index(sector, x, y)] = value;
        self.writes += 1;
    }

    /// A whole sector, scanline order.
    pub fn sector(&self, sector: usize) -> &[u32] {
        let s = (sector % SECTORS) * SECTOR_WORDS;
        &self.words[s..s + SECTOR_WORDS]
    }

    /// A whole sector, scanline order, for testbenches that preload the store.
    pub fn sector_mut(&mut self, sector: usize) -> &mut [u32] {
        let s = (sector % SECTORS) * SECTOR_WORDS;
        &mut self.words[s..s + SECTOR_WORDS]
    }
}
