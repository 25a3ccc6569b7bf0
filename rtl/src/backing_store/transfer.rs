//! The transfer unit: BSLOAD / BSSTORE move pixel-memory bits 0-31 of every pixel processor
//! to or from one backing-store sector in the background (seed 003 §III.4.2.5.2).
//!
//! "Execution of a BSSTORE() or BSLOAD() command merely *initiates* a Transfer operation. It
//! may be followed by ordinary IGC commands [...] these commands must not access bits 0-31 of
//! pixel-memory [...] the offending IGC command will not be correctly executed; however, the
//! Transfer operation will not be disturbed, nor will the contents of pixel-memory be
//! corrupted." The IGC side of that rule lives in the IGC's address generators (an access to
//! bits 0-31 while [`TransferUnit::busy`] reads 0 and writes nothing, and is reported).
//!
//! Rate (docs/model-choices.md, "Backing-store transfers"): a transfer is
//! [`XFER_STEPS`] = 4096 steps, the seed's own count for "an entire transfer of 4096
//! nibbles" (the C simulator's note), one step per 40 MHz cycle: 102.4 µs per sector. Step `k`
//! moves the 32-bit words of pixel processors `4k .. 4k+3` in scanline order, so the
//! waveform's progress counter says which scanline is in flight (32 steps per scanline).

use super::{BackingStore, ARRAY_DIM, XFER_BITS};
use crate::emc_array::plane::{AlignedPlane, NUM_PES};
use crate::emc_array::MEM_BITS;
use crate::trace::WaveEnum;

/// Steps of one sector transfer (seed §III.4.2.5.2, the C simulator's "entire transfer of
/// 4096 nibbles"); one per 40 MHz cycle.
pub const XFER_STEPS: u32 = 4096;
/// Pixel processors whose words one step moves.
pub const XFER_PES_PER_STEP: usize = NUM_PES / XFER_STEPS as usize;

/// Direction of a transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, WaveEnum)]
pub enum XferDir {
    /// BSLOAD: sector → pixel-memory bits 0-31.
    Load,
    /// BSSTORE: pixel-memory bits 0-31 → sector.
    Store,
}

impl XferDir {
    /// Name shown in the waveform and reports.
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }
}

/// The transfer unit's registers.
#[derive(Clone, Debug, Default)]
pub struct TransferUnit {
    /// The transfer in progress: direction and sector.
    pub active: Option<(XferDir, u8)>,
    /// Steps done of the active transfer.
    pub step: u32,
    /// A VBSlater is pending: V the BS semaphore when the transfer completes.
    pub vbs_later: bool,
    /// A transfer completed this cycle (pulse).
    pub done: bool,
    /// Transfers completed since reset.
    pub completed: u64,
}

impl TransferUnit {
    /// A transfer is in progress (bits 0-31 belong to it).
    pub fn busy(&self) -> bool {
        self.active.is_some()
    }

    /// Start a transfer (the IGC only starts one when none is busy).
    pub fn start(&mut self, dir: XferDir, sector: u8) {
        if self.active.is_none() {
            self.active = Some((dir, sector % super::SECTORS as u8));
            self.step = 0;
        }
    }

    /// One 40 MHz cycle: move one step's words. Returns true when the transfer completed in
    /// this cycle (the caller V's the BS semaphore if [`TransferUnit::vbs_later`] was set).
    pub fn clock(&mut self, bs: &mut BackingStore, mem: &mut [AlignedPlane; MEM_BITS]) -> bool {
        self.done = false;
        let Some((dir, sector)) = self.active else {
            return false;
        };
        let first = self.step as usize * XFER_PES_PER_STEP;
        let word = first / 64;
        let shift = first % 64;
        let y = first / ARRAY_DIM;
        let x0 = first % ARRAY_DIM;
        let lane = (1u64 << XFER_PES_PER_STEP) - 1;
        match dir {
            XferDir::Store => {
                let mut words = [0u32; XFER_PES_PER_STEP];
                for (b, plane) in mem.iter().take(XFER_BITS).enumerate() {
                    let bits = plane[word] >> shift;
                    for (j, w) in words.iter_mut().enumerate() {
                        *w |= (((bits >> j) & 1) as u32) << b;
                    }
                }
                for (j, w) in words.iter().enumerate() {
                    bs.write(sector as usize, x0 + j, y, *w);
                }
            }
            XferDir::Load => {
                let words: [u32; XFER_PES_PER_STEP] =
                    std::array::from_fn(|j| bs.read(sector as usize, x0 + j, y));
                for (b, plane) in mem.iter_mut().take(XFER_BITS).enumerate() {
                    let nib = words
                        .iter()
                        .enumerate()
                        .fold(0u64, |n, (j, w)| n | (((w >> b) & 1) as u64) << j);
                    plane[word] = plane[word] & !(lane << shift) | nib << shift;
                }
            }
        }
        self.count_step()
    }

    /// [`TransferUnit::clock`] without moving the words (the timing study's replay, which
    /// does not keep pixels: `renderer::replay`).
    pub fn advance(&mut self) -> bool {
        self.done = false;
        self.active.is_some() && self.count_step()
    }

    /// One step done: the transfer completes after [`XFER_STEPS`].
    fn count_step(&mut self) -> bool {
        self.step += 1;
        if self.step >= XFER_STEPS {
            self.active = None;
            self.done = true;
            self.completed += 1;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emc_array::EmcArray;

    #[test]
    fn store_then_load_round_trips_bits_0_to_31_in_4096_cycles() {
        let mut a = EmcArray::new();
        for (x, y) in [(0, 0), (5, 0), (127, 3), (64, 127), (3, 64)] {
            a.poke(x, y, 0, 32, (x * 1000 + y) as u64 | 0x8000_0000);
            a.poke(x, y, 32, 1, 1);
        }
        let mut bs = BackingStore::new();
        let mut u = TransferUnit::default();
        u.start(XferDir::Store, 9);
        let mut cycles = 0;
        while u.busy() {
            u.clock(&mut bs, &mut a.mem);
            cycles += 1;
        }
        assert_eq!(cycles, XFER_STEPS);
        assert_eq!(bs.read(9, 127, 3), 127_003 | 0x8000_0000);
        assert_eq!(bs.read(9, 1, 0), 0);
        let mut b = EmcArray::new();
        b.poke(1, 0, 0, 32, 0xffff_ffff);
        b.poke(1, 0, 32, 1, 1);
        u.start(XferDir::Load, 9);
        while u.busy() {
            u.clock(&mut bs, &mut b.mem);
        }
        for (x, y) in [(0, 0), (5, 0), (127, 3), (64, 127), (3, 64), (1, 0)] {
            assert_eq!(b.peek(x, y, 0, 32), a.peek(x, y, 0, 32), "pixel {x},{y}");
        }
        assert_eq!(b.peek(1, 0, 32, 1), 1, "bit 32 is not part of a transfer");
    }
}
