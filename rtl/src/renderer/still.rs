//! Still cycles: the board waits, and until one of its Ring inputs changes nothing but its
//! counters moves (docs/timing.md, "Still cycles"). The simulator advances the board over
//! such a stretch in one step ([`Renderer::advance_still`]) instead of stepping each cycle;
//! the result is the state stepping would give, register for register.

use super::Renderer;
use crate::backing_store::transfer::XFER_STEPS;
use crate::bs_port::{BsRequests, BsState};
use crate::clock::{ring_enable, RING_DIVIDE};
use crate::igc::IgcState;
use crate::status::IGC_TIMEOUT_RING_CYCLES;

/// How a board stands after a cycle ([`Renderer::stillness`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stillness {
    /// Something but counters moves in the next cycle.
    Moving,
    /// Only counters move until a Ring input changes.
    Still,
    /// Still but for the background units: the BS port sends a BS_TRANSMIT's words with
    /// TxReady high, or the transfer unit moves a sector, or both.
    Background,
}

impl Renderer {
    /// Whether the board, as it stands after a cycle with no input word and no event, can
    /// change in a later cycle only through its counters while its Ring inputs (words,
    /// TxReady) stay as they are ([`Stillness::Still`]): the IGC waits for a command, the IGC
    /// semaphore or TxReady (or is stuck), the Stream Parser waits for words or for the LLPR,
    /// the BS port is idle or waits for the BS semaphore, TxReady or words, no transfer runs,
    /// no message can go out. The counters that still move are the cycle, the IGC timeout's
    /// count (while a command waits in the LLPR) and the QEE's bit counter
    /// ([`Renderer::advance_still`]).
    ///
    /// Or still but for its background units ([`Stillness::Background`]): the BS port sends
    /// a BS_TRANSMIT's words with TxReady high, one every Ring slot, and/or the transfer unit
    /// moves a sector, one step a cycle (the IGC may wait for it in BSWAIT): the system
    /// study's Renderers spend much of a frame so, their IGC waiting for a free buffer or a
    /// command. [`Renderer::advance_background`] passes such cycles stepping those units
    /// alone.
    ///
    /// One-cycle pulses (a transfer's `done`, a receiver's word, a semaphore's V) are not
    /// looked at: the caller also requires two cycles running with the same
    /// [`Renderer::progress_key`], after which they have cleared.
    pub fn stillness(&self) -> Stillness {
        if !self.still_but_the_background() {
            return Stillness::Moving;
        }
        let port = &self.bs_port;
        let waits = match port.state {
            BsState::Opcode | BsState::Skip => port.rx.rxfifo.is_empty(),
            BsState::Pbs => !self.bs_sem.can_p(),
            BsState::StatusSend { .. } | BsState::Transmit { .. } => !self.tx_ready_bs,
            _ => port.rx.rxfifo.is_empty(),
        };
        match (waits, self.bs_port_sends(), self.transfer.busy()) {
            (true, _, false) => Stillness::Still,
            (true, _, true) | (false, true, _) => Stillness::Background,
            (false, false, _) => Stillness::Moving,
        }
    }

    /// The BS port sends a BS_TRANSMIT's words with TxReady high.
    fn bs_port_sends(&self) -> bool {
        let port = &self.bs_port;
        matches!(port.state, BsState::Transmit { .. }) && self.tx_ready_bs && port.tx.busy()
    }

    /// Every block but the background units (the BS port, the transfer unit) waits
    /// ([`Renderer::stillness`]).
    fn still_but_the_background(&self) -> bool {
        let igc_waits = match self.igc.state {
            IgcState::WaitCmd | IgcState::RMode => !self.llpr.go,
            IgcState::WaitSem => !self.igc_sem.can_p(),
            IgcState::WaitTx => !self.tx_ready_igc,
            // BSWAIT (or a XFER behind the running transfer) waits for its end.
            IgcState::WaitXfer => self.transfer.busy(),
            IgcState::Hang | IgcState::Fault => true,
            IgcState::Run => false,
        };
        let m = &self.igc_port.messages;
        let no_message = !m.pending()
            || (!self.tx_ready_igc && m.tx.busy() && m.latched.is_none() && !m.error_req);
        // The Stream Parser reads words while the RxFIFO has some, into the LLPR or, while
        // the LLPR holds a command, into a command it holds until the LLPR is free: it waits
        // with no word to read, or holding a command for a full LLPR.
        let parser = &self.igc_port.parser;
        let parser_waits = if parser.holds_command() {
            self.llpr.go
        } else {
            self.igc_port.rx.rxfifo.is_empty()
        };
        igc_waits
            && no_message
            && parser_waits
            && !self.transfer.done
            && self.error_strobe == 0
            && !self.last_strobe
            && self.ring_in.is_none()
            && self.bs_ring_in.is_none()
    }

    /// Of the next `n` cycles of a board still but for its background units
    /// ([`Stillness::Background`]), how many come before the first that must be stepped:
    /// the cycle its BS port sends the message's last word (which ends the BS_TRANSMIT), the
    /// cycle the transfer makes its last step (its `done` pulse, a VBSlater's V, the IGC's
    /// BSWAIT ending).
    pub fn background_before_change(&self, mut n: u64) -> u64 {
        if self.bs_port_sends() {
            let left = self.bs_port.tx.remaining() as u64;
            if left == 0 {
                return 0;
            }
            let first_slot = self.cycle.next_multiple_of(RING_DIVIDE) - self.cycle;
            n = n.min(first_slot + (left - 1) * RING_DIVIDE);
        }
        if self.transfer.busy() {
            n = n.min(u64::from(XFER_STEPS.saturating_sub(self.transfer.step + 1)));
        }
        n
    }

    /// Advance a board still but for its background units ([`Stillness::Background`]) over
    /// `n` cycles: the transfer unit and the sending BS port step as in [`Renderer::step`]
    /// (one transfer step a cycle; a word every Ring slot, read from the backing store), the
    /// rest of the board as in [`Renderer::advance_still`]. The caller keeps `n` within
    /// [`Renderer::still_until_timeout`] and [`Renderer::background_before_change`] and short
    /// of any input change.
    pub fn advance_background(&mut self, n: u64) {
        debug_assert!(
            self.stillness() == Stillness::Background && n <= self.background_before_change(n)
        );
        let sends = self.bs_port_sends();
        let xfer = self.transfer.busy();
        for c in self.cycle..self.cycle + n {
            // The order of Renderer::step: the Ring side, the transfer unit, the BS port.
            if sends {
                self.bs_port.ring_cycle(None, self.tx_ready_bs);
            }
            if xfer {
                let done = self.transfer_clock();
                debug_assert!(!done);
            }
            if sends {
                let req = self.bs_port.step(
                    c,
                    ring_enable(c),
                    self.bs_sem.can_p(),
                    0,
                    &mut self.backing_store,
                    &mut self.tx,
                    &mut self.bs_ev,
                );
                debug_assert!(req == BsRequests::default() && self.tx.is_empty());
            }
        }
        self.advance_counters(n);
    }

    /// A Ring word waits to enter either port at the next edge.
    #[inline]
    pub fn ring_input_pending(&self) -> bool {
        self.ring_in.is_some() || self.bs_ring_in.is_some()
    }

    /// How many of the next `n` cycles the board can pass as still cycles before its IGC
    /// timeout fires (the strobe's cycle must be stepped): `n` when the timeout is not
    /// counting or has fired already.
    pub fn still_until_timeout(&self, n: u64) -> u64 {
        if !self.llpr.go || self.timeout_count >= IGC_TIMEOUT_RING_CYCLES {
            return n;
        }
        // The count reaches the limit in the cycle of its `left`-th slot from now.
        let left = IGC_TIMEOUT_RING_CYCLES - self.timeout_count;
        let first_slot = self.cycle.next_multiple_of(RING_DIVIDE) - self.cycle;
        let strobe_in = first_slot + (left - 1) * RING_DIVIDE;
        n.min(strobe_in)
    }

    /// Advance over `n` still cycles ([`Stillness::Still`]) at once: the state after them is
    /// the state `n` calls of [`Renderer::step`] give. The caller keeps `n` within
    /// [`Renderer::still_until_timeout`] and short of any input change.
    pub fn advance_still(&mut self, n: u64) {
        debug_assert!(self.stillness() == Stillness::Still && n <= self.still_until_timeout(n));
        self.advance_counters(n);
    }

    /// The counters that move while the board waits, `n` cycles on: the IGC timeout's, the
    /// QEE's bit counter, the cycle.
    fn advance_counters(&mut self, n: u64) {
        if self.llpr.go {
            // The IGC does not take the waiting command: one count per Ring slot.
            self.timeout_count += ring_slots(self.cycle, n);
        }
        let q = &mut self.qee;
        if q.active {
            // `Qee::tick`, n times: the delay runs out first, then the bit counter runs.
            let n32 = u32::try_from(n).unwrap_or(u32::MAX);
            let d = q.delay.min(n32);
            q.delay -= d;
            q.bit = q.bit.saturating_add(n32 - d);
        }
        self.cycle += n;
    }
}

/// The Ring slots (20 MHz enables) among the `n` cycles from `from`.
fn ring_slots(from: u64, n: u64) -> u64 {
    let slots_before = |c: u64| c.div_ceil(RING_DIVIDE);
    slots_before(from + n) - slots_before(from)
}

#[cfg(test)]
mod tests {
    use super::ring_slots;
    use crate::clock::ring_enable;

    #[test]
    fn ring_slots_counts_the_enables() {
        for from in 0..6 {
            for n in 0..9 {
                let want = (from..from + n).filter(|&c| ring_enable(c)).count() as u64;
                assert_eq!(ring_slots(from, n), want, "from {from}, n {n}");
            }
        }
    }
}
