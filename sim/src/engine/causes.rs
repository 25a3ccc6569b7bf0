//! Cycles by cause: every cycle of the IGC, the BS port, the transfer unit and the IGC port's
//! transmitter charged to what the block did (executing, waiting on a semaphore, a transfer,
//! TxReady, the Ring), and the cycles in which two blocks worked at once.
//!
//! Each cycle is counted once, under the combination of the four blocks' causes
//! ([`CauseTally`]); the per-block counts and the overlaps ([`BlockCauses`]) are summed from
//! those when read. Counting a cycle is one increment, not the eight counters it adds to.

use super::observer::{Cx, Observer};
use crate::records::BlockCauses;
use pp5_rtl::cause::Cause;
use pp5_rtl::Renderer;

/// Bits of a [`Cause`] in a [`CauseTally`] key (7 causes).
const CAUSE_BITS: u32 = 3;
/// Shift of the BS port's cause in a key (the IGC's is at 0).
const BS_SHIFT: u32 = CAUSE_BITS;
/// Shift of the transfer unit's bit (set: a transfer in progress) in a key.
const XFER_SHIFT: u32 = 2 * CAUSE_BITS;
/// Shift of the IGC port transmitter's state ([`TX_CAUSES`]) in a key.
const TX_SHIFT: u32 = XFER_SHIFT + 1;
/// The IGC port transmitter's causes, by their 2-bit code in a key.
const TX_CAUSES: [Cause; 3] = [Cause::Idle, Cause::TxHold, Cause::Executing];
/// Number of keys: every combination of the blocks' causes.
const KEYS: usize = 1 << (TX_SHIFT + 2);

/// Every cycle of the board, counted by the combination of its blocks' causes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CauseTally {
    /// Cycles by key: IGC cause | BS port cause << [`BS_SHIFT`] | transfer busy <<
    /// [`XFER_SHIFT`] | transmitter code << [`TX_SHIFT`].
    counts: Box<[u64; KEYS]>,
}

impl Default for CauseTally {
    fn default() -> Self {
        CauseTally {
            counts: Box::new([0; KEYS]),
        }
    }
}

impl Observer for CauseTally {
    #[inline]
    fn cycle(&mut self, cx: &mut Cx) {
        self.charge(cx.board, cx.igc_cause, cx.bs_cause, 1);
    }

    #[inline]
    fn needs_from(&self, _now: u64) -> u64 {
        u64::MAX
    }

    fn still(&mut self, n: u64, cx: &mut Cx) {
        self.charge(cx.board, cx.igc_cause, cx.bs_cause, n);
    }
}

impl CauseTally {
    /// Charge `n` cycles of board `b` whose IGC and BS port spent them as `igc` and `bs`
    /// ([`Observer::cycle`]; the engine calls it directly each cycle, with no context built).
    #[inline]
    pub(super) fn charge(&mut self, b: &Renderer, igc: Cause, bs: Cause, n: u64) {
        let xfer = b.transfer.busy() || b.transfer.done;
        let tx = if b.igc_port.messages.pending() {
            1 + usize::from(b.tx_ready_igc)
        } else {
            0
        };
        let key = igc as usize
            | (bs as usize) << BS_SHIFT
            | usize::from(xfer) << XFER_SHIFT
            | tx << TX_SHIFT;
        self.counts[key] += n;
    }

    /// The cycles of each block by cause, and the overlaps.
    pub fn totals(&self) -> BlockCauses {
        let mut t = BlockCauses::default();
        for (key, &n) in self.counts.iter().enumerate().filter(|(_, &n)| n > 0) {
            let igc = Cause::ALL[key & CAUSE_MASK];
            let bs = Cause::ALL[key >> BS_SHIFT & CAUSE_MASK];
            let xfer = key >> XFER_SHIFT & 1 != 0;
            t.igc.add_n(igc, n);
            t.bs_port.add_n(bs, n);
            t.transfer
                .add_n(if xfer { Cause::Executing } else { Cause::Idle }, n);
            t.igc_tx.add_n(TX_CAUSES[key >> TX_SHIFT], n);
            let (i, p) = (igc == Cause::Executing, bs == Cause::Executing);
            let o = &mut t.overlap;
            o.igc_and_transfer += u64::from(i && xfer) * n;
            o.igc_and_bs_port += u64::from(i && p) * n;
            o.transfer_and_bs_port += u64::from(xfer && p) * n;
        }
        t
    }
}

/// Mask of one cause in a key.
const CAUSE_MASK: usize = (1 << CAUSE_BITS) - 1;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cause appears in [`Cause::ALL`] at its own discriminant (the key decodes it).
    #[test]
    fn causes_decode_from_their_discriminants() {
        for (k, c) in Cause::ALL.into_iter().enumerate() {
            assert_eq!(c as usize, k);
        }
        assert!(Cause::ALL.len() <= 1 << CAUSE_BITS);
    }
}
