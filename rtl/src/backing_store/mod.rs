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
///
/// A sector never written is all zero and takes no memory: a board (and so a copy of one, as
/// the system study makes 16 per simulated frame from one booted board) holds only the
/// sectors written since reset. The whole store would be 8 MB a board, copied with it.
#[derive(Clone)]
pub struct BackingStore {
    /// The [`SECTORS`] sectors, `SECTOR_WORDS` words each in scanline order; `None`: never
    /// written, all zero (the model's power-up contents; the real VRAMs power up with
    /// garbage).
    sectors: Vec<Option<Box<[u32]>>>,
    /// Words written since reset, by either side (for the waveform and reports).
    pub writes: u64,
}

/// What a sector never written holds.
static ZERO_SECTOR: [u32; SECTOR_WORDS] = [0; SECTOR_WORDS];

impl Default for BackingStore {
    fn default() -> Self {
        Self::new()
    }
}

impl BackingStore {
    /// An all-zero store.
    pub fn new() -> Self {
        BackingStore {
            sectors: vec![None; SECTORS],
            writes: 0,
        }
    }

    /// Word (x, y) of a sector: its index in the sector (both taken modulo their ranges).
    #[inline]
    fn index(x: usize, y: usize) -> usize {
        (y % ARRAY_DIM) * ARRAY_DIM + x % ARRAY_DIM
    }

    /// Word (x, y) of `sector`.
    #[inline]
    pub fn read(&self, sector: usize, x: usize, y: usize) -> u32 {
        self.sector(sector)[Self::index(x, y)]
    }

    /// Write word (x, y) of `sector`.
    #[inline]
    pub fn write(&mut self, sector: usize, x: usize, y: usize, value: u32) {
        self.sector_mut(sector)[Self::index(x, y)] = value;
        self.writes += 1;
    }

    /// A whole sector, scanline order.
    pub fn sector(&self, sector: usize) -> &[u32] {
        match &self.sectors[sector % SECTORS] {
            Some(words) => words,
            None => &ZERO_SECTOR,
        }
    }

    /// A whole sector, scanline order, for testbenches that preload the store.
    /// (Also the write side of the transfer unit and the BS port: a sector is allocated when
    /// first written.)
    pub fn sector_mut(&mut self, sector: usize) -> &mut [u32] {
        self.sectors[sector % SECTORS].get_or_insert_with(|| vec![0; SECTOR_WORDS].into())
    }
}
