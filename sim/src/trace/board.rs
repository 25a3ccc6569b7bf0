//! The waveform's observer of the board: it keeps the waveform's context ([`TraceCtx`]: the
//! command names, the traced EMCs, the skip keys of the flow-control unit and of the usually
//! idle blocks) beside the board, so the board's step keeps none of it.
//!
//! The skip key of the usually idle blocks (the QEE, the BS port, the semaphores, the
//! transfer unit, the IGC port's message unit) advances after every cycle in which one of
//! them may have changed. A cycle is *quiet* when none of them did anything but clear last
//! cycle's pulses; two quiet cycles in a row leave them as they were, so only a cycle that is
//! not quiet, or follows one that was not, advances it. Whether a cycle is quiet follows
//! from the board before the edge ([`BoardTrace::before_step`]) and after it
//! ([`Observer::cycle`]).

use crate::engine::observer::{Cx, Observer};
use pp5_rtl::igc::{IgcState, MiscCtl, QeeCtl};
use pp5_rtl::renderer::{TraceCtx, TraceView};
use pp5_rtl::semaphore::Semaphore;
use pp5_rtl::Renderer;

/// The waveform's observer: its context, and the quiet-cycle tracking that keeps the key of
/// the usually idle blocks. Idle (and free) until [`BoardTrace::set_keyed`] turns it on,
/// which the simulator does when it writes a waveform.
#[derive(Clone, Debug, Default)]
pub struct BoardTrace {
    /// What the waveform shows beside the board's registers.
    pub ctx: TraceCtx,
    /// The board before the edge allowed a quiet cycle.
    quiet_before: bool,
    /// The last cycle was quiet.
    last_quiet: bool,
}

impl BoardTrace {
    /// The board as the waveform walks it.
    pub fn view<'a>(&'a self, board: &'a Renderer) -> TraceView<'a> {
        TraceView {
            board,
            ctx: &self.ctx,
        }
    }

    /// Whether the observer keeps the skip keys (a waveform is being written).
    #[inline]
    pub fn keyed(&self) -> bool {
        self.ctx.keyed
    }

    /// Keep the skip keys from now on (`true`), or stop (the walk then keys those scopes by
    /// the cycle number).
    pub fn set_keyed(&mut self, on: bool) {
        self.ctx.keyed = on;
        self.touched();
    }

    /// The board was changed from outside its step (a testbench wrote it): the next walk
    /// visits the usually idle blocks and the flow-control unit again.
    pub fn touched(&mut self) {
        self.ctx.slow_key += 1;
        self.ctx.fc_key += 1;
        self.last_quiet = false;
    }
}

impl Observer for BoardTrace {
    /// The conditions of a quiet cycle that the board shows before the edge: nothing enters
    /// the BS port, TxReady is unchanged, the BS port, the message unit, the transfer unit,
    /// the QEE and both semaphores are idle.
    #[inline]
    fn before_step(&mut self, b: &Renderer) {
        self.quiet_before = !b.bs_ring_pending()
            && b.bs_port.tx.tx_ready == b.tx_ready_bs
            && b.bs_port.idle()
            && b.igc_port.messages.tx.tx_ready == b.tx_ready_igc
            && !b.igc_port.messages.pending()
            && b.transfer.active.is_none()
            && !b.transfer.done
            && !b.qee.active
            && b.bs_sem == Semaphore::idle(b.bs_sem.count)
            && b.igc_sem == Semaphore::idle(b.igc_sem.count);
    }

    /// The conditions the board shows after the edge: the IGC asked nothing of the QEE nor
    /// of the other blocks and does not wait on its semaphore, no error strobe fired, the BS
    /// port and the message unit are still idle.
    #[inline]
    fn cycle(&mut self, cx: &mut Cx) {
        let b = cx.board;
        if b.record.fc_changed {
            self.ctx.fc_key += 1;
        }
        let quiet = self.quiet_before
            && b.igc.qee_ctl == QeeCtl::None
            && b.igc.misc_ctl == MiscCtl::None
            && b.igc.state != IgcState::WaitSem
            && !b.error_strobed()
            && b.bs_port.idle()
            && !b.igc_port.messages.pending();
        if !(quiet && self.last_quiet) {
            self.ctx.slow_key += 1;
        }
        self.last_quiet = quiet;
    }

    /// A Ring reset changes every block: both keys move on.
    fn ring_reset(&mut self, _at: u64) {
        self.touched();
    }
}
