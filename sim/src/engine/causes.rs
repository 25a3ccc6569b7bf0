//! Cycles by cause: every cycle of the IGC, the BS port, the transfer unit and the IGC port's
//! transmitter charged to what the block did (executing, waiting on a semaphore, a transfer,
//! TxReady, the Ring), and the cycles in which two blocks worked at once.

use super::observer::{Cx, Observer};
use crate::records::BlockCauses;
use pp5_rtl::cause::Cause;
use pp5_rtl::Renderer;

impl Observer for BlockCauses {
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

impl BlockCauses {
    /// Charge `n` cycles of board `b` whose IGC and BS port spent them as `igc` and `bs`
    /// ([`Observer::cycle`]; the engine calls it directly each cycle, with no context built).
    #[inline]
    pub(super) fn charge(&mut self, b: &Renderer, igc: Cause, bs: Cause, n: u64) {
        self.igc.add_n(igc, n);
        self.bs_port.add_n(bs, n);
        let xfer = b.transfer.busy() || b.transfer.done;
        self.transfer
            .add_n(if xfer { Cause::Executing } else { Cause::Idle }, n);
        let (i, p) = (igc == Cause::Executing, bs == Cause::Executing);
        let o = &mut self.overlap;
        o.igc_and_transfer += (i && xfer) as u64 * n;
        o.igc_and_bs_port += (i && p) as u64 * n;
        o.transfer_and_bs_port += (xfer && p) as u64 * n;
        self.igc_tx.add_n(
            if b.igc_port.messages.pending() {
                if b.tx_ready_igc {
                    Cause::Executing
                } else {
                    Cause::TxHold
                }
            } else {
                Cause::Idle
            },
            n,
        );
    }
}
