//! Cycles by cause: every cycle of the IGC, the BS port, the transfer unit and the IGC port's
//! transmitter charged to what the block did (executing, waiting on a semaphore, a transfer,
//! TxReady, the Ring), and the cycles in which two blocks worked at once.

use super::observer::{Cx, Observer};
use crate::records::BlockCauses;
use pp5_rtl::cause::Cause;

impl Observer for BlockCauses {
    #[inline]
    fn cycle(&mut self, cx: &mut Cx) {
        let b = cx.board;
        let (igc, bs) = (cx.igc_cause, cx.bs_cause);
        self.igc.add(igc);
        self.bs_port.add(bs);
        let xfer = b.transfer.busy() || b.transfer.done;
        self.transfer
            .add(if xfer { Cause::Executing } else { Cause::Idle });
        let (i, p) = (igc == Cause::Executing, bs == Cause::Executing);
        let o = &mut self.overlap;
        o.igc_and_transfer += (i && xfer) as u64;
        o.igc_and_bs_port += (i && p) as u64;
        o.transfer_and_bs_port += (xfer && p) as u64;
        self.igc_tx.add(if b.igc_port.messages.pending() {
            if b.tx_ready_igc {
                Cause::Executing
            } else {
                Cause::TxHold
            }
        } else {
            Cause::Idle
        });
    }
}
