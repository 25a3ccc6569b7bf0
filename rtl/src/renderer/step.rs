//! [`Renderer::step`]: one 40 MHz cycle of the board, block by block in the order the
//! signals flow (seed 003 §III.4.1): the Ring ports, the IGC and the Stream Parser, the EMC
//! array (and the cycle's record), the QEE, the IGC's handshakes, the transfer unit, the BS
//! port, the semaphores, the IGC timeout, the error strobes and the IGC port's transmitter.

use super::{BoardEvent, CycleRecord, Renderer};
use crate::backing_store::transfer::XferDir;
use crate::bs_port::{BsRequests, BsState};
use crate::cause::Cause;
use crate::clock::ring_enable;
use crate::emc_array::plane::ZERO_PLANE;
use crate::emc_array::{ArrayOp, BSource};
use crate::igc::{IgcEvent, IgcInputs, IgcState, MiscCtl, QeeCtl, Sampled};
use crate::igc_port::parser::ParserEvent;
use crate::qee::arith::QeeMode;
use crate::status::*;

/// The IGC's command handshake before its step, for the IGC timeout at the end of the cycle.
#[derive(Clone, Copy, Debug)]
struct CommandBefore {
    /// Commands the IGC had taken.
    commands: u64,
    /// A command was waiting in the LLPR (GO).
    go: bool,
}

impl Renderer {
    /// One 40 MHz cycle.
    pub fn step(&mut self) {
        let slot = ring_enable(self.cycle);
        let aeo = self.array.aeo();
        self.ring_ports();
        let before = CommandBefore {
            commands: self.igc.commands,
            go: self.llpr.go,
        };
        let op = self.igc_step(before.go, aeo);
        self.stream_parser(aeo);
        if self.tap.is_some() {
            // The timing study's data tap (out of line: one test here when it is off).
            self.tapped(op);
        } else {
            self.emc_array(&op);
        }
        self.qee_step();
        let (v_bs, p_igc) = self.igc_handshakes();
        let v_bs = v_bs + self.transfer_unit();
        let req = self.bs_port_step(slot);
        self.semaphores(v_bs, p_igc, &req);
        if req.format_error {
            self.error_strobe |= 1 << ST_BS_FORMAT;
        }
        if !self.bs_ev.is_empty() {
            for ev in self.bs_ev.drain(..) {
                self.events.push(BoardEvent::Bs(ev));
            }
        }
        self.igc_timeout(before, slot);
        self.error_strobes();
        if self.igc_port.messages.pending() {
            self.igc_transmitter(slot);
        }
        self.cycle += 1;
    }

    /// The Ring side of both ports: the receivers take this cycle's word (a full RxFIFO loses
    /// it), the transmitters see TxReady.
    #[inline]
    fn ring_ports(&mut self) {
        if !self.igc_port.ring_cycle(self.ring_in.take()) {
            self.strobe(ST_IGC_RXFIFO_OVW, BoardEvent::RxFifoOverwritten);
        }
        self.igc_port.messages.tx.clock(self.tx_ready_igc);
        if !self
            .bs_port
            .ring_cycle(self.bs_ring_in.take(), self.tx_ready_bs)
        {
            self.strobe(ST_BS_RXFIFO_OVW, BoardEvent::BsRxFifoOverwritten);
        }
    }

    /// The IGC executes (or dispatches) with the board's signals at the start of the cycle
    /// (`was_go`: a command was waiting in the LLPR; `aeo`: AEO). Returns the array's
    /// operation.
    #[inline]
    fn igc_step(&mut self, was_go: bool, aeo: bool) -> ArrayOp {
        let igc_before = self.igc.state;
        let xfer_busy = self.transfer.busy();
        let inputs = || IgcInputs {
            xfer_busy,
            igc_sem_nonzero: self.igc_sem.can_p(),
            tx_pending: self.igc_port.messages.pending(),
            error_strobe: self.last_strobe,
            board_id: self.config.board_id,
        };
        let op = self.igc.step(
            &mut self.llpr,
            &self.array,
            &mut self.igc_ev,
            Sampled { aeo, xfer_busy },
            inputs,
        );
        self.igc_cause = self.igc_cause_of(igc_before, was_go && !self.llpr.go);
        op
    }

    /// The Stream Parser fills the LLPR from the IGC port's RxFIFO (`aeo`: AEO at the start
    /// of the cycle).
    #[inline]
    fn stream_parser(&mut self, aeo: bool) {
        self.igc_port.parser.step(
            &mut self.igc_port.rx.rxfifo,
            &mut self.llpr,
            aeo,
            &mut self.parser_ev,
        );
    }

    /// The EMC array executes `op` on the PEs the flow-control unit leaves active; the cycle's
    /// record says what it did.
    /// (`inline(always)`: the tap's recording calls it too, and the step must keep it
    /// inlined.)
    #[inline(always)]
    pub(super) fn emc_array(&mut self, op: &ArrayOp) {
        // The tree plane is only built in cycles that read it.
        let tree = if op.b == BSource::Tree {
            self.qee.tree_plane()
        } else {
            &ZERO_PLANE
        };
        let active = self.igc.fc.active_mask();
        self.array.step(op, tree, active);
        self.record = CycleRecord {
            array_op: *op,
            fc_changed: self.igc.fc_stepped,
        };
        if self.igc.fc_changed {
            // AEO is the OR of Enable over the *active* PEs.
            self.array.refresh_stripes(active);
        }
    }

    /// The QEE: starts an evaluation, shifts its configuration, or delivers the next bit.
    #[inline]
    fn qee_step(&mut self) {
        match self.igc.qee_ctl {
            QeeCtl::None => self.qee.tick(),
            QeeCtl::Start { mode_bits } => self.qee_start(mode_bits),
            QeeCtl::CfgAll(bit) => {
                self.qee.config.shift_all(bit);
                self.qee.tick();
            }
            QeeCtl::CfgOne { chip, bit } => {
                self.qee.config.shift_one(chip, bit);
                self.qee.tick();
            }
        }
    }

    /// The QEE starts an evaluation (QEEMode from the opcode's `mode_bits`, the coefficient
    /// registers, FBITS). Out of line: rare, and large.
    #[inline(never)]
    fn qee_start(&mut self, mode_bits: u32) {
        let mode = QeeMode::from_bits(mode_bits);
        let fb = self.igc.fbits as u32;
        if self.replaying() {
            // A replay does not evaluate: the QEE's counters run, its tree stays.
            return self.qee.start_counters(mode, fb);
        }
        let loaded = self.igc.coef_fbits.map(|f| f.map_or(fb, u32::from));
        self.qee.start_with(mode, &self.igc.coef, &loaded, fb)
    }

    /// The IGC's handshakes with the transfer unit, the semaphores and the transmitter.
    /// Returns the V operations on the BS semaphore and whether the IGC did a P on its own.
    #[inline]
    fn igc_handshakes(&mut self) -> (u8, bool) {
        if self.igc.misc_ctl == MiscCtl::None {
            return (0, false);
        }
        self.igc_handshake()
    }

    /// [`Renderer::igc_handshakes`] when the IGC asks for one (out of line: rare).
    #[inline(never)]
    fn igc_handshake(&mut self) -> (u8, bool) {
        let mut v_bs = 0u8;
        let mut p_igc = false;
        match self.igc.misc_ctl {
            MiscCtl::None => {}
            MiscCtl::StartXfer { store, sector } => {
                let dir = if store { XferDir::Store } else { XferDir::Load };
                self.transfer.start(dir, sector);
                self.events.push(BoardEvent::XferStart { dir, sector });
            }
            MiscCtl::Vbs => {
                if self.transfer.vbs_later {
                    self.events
                        .push(BoardEvent::VbsWhilePending { later: false });
                }
                v_bs += 1;
            }
            MiscCtl::VbsLater => {
                if self.transfer.vbs_later {
                    self.events
                        .push(BoardEvent::VbsWhilePending { later: true });
                }
                self.transfer.vbs_later = true;
            }
            MiscCtl::Pigc => p_igc = true,
            MiscCtl::SendStatus { dest, id } => {
                let st = self.status();
                self.igc_port.messages.latch_status(dest, id, st);
                self.events.push(BoardEvent::StatusLatched);
            }
        }
        (v_bs, p_igc)
    }

    /// The transfer unit moves the next word between the backing store and pixel memory.
    /// Returns the V on the BS semaphore a completed transfer's VBSlater makes (0 or 1).
    #[inline]
    fn transfer_unit(&mut self) -> u8 {
        if self.transfer.active.is_none() {
            // What `TransferUnit::clock` does with no transfer.
            self.transfer.done = false;
            return 0;
        }
        self.transfer_step()
    }

    /// [`Renderer::transfer_unit`] while a transfer runs (out of line).
    #[inline(never)]
    fn transfer_step(&mut self) -> u8 {
        let mut v_bs = 0u8;
        let xfer = self.transfer.active;
        if self.transfer_clock() {
            if std::mem::take(&mut self.transfer.vbs_later) {
                v_bs += 1;
            }
            if let Some((dir, sector)) = xfer {
                self.events.push(BoardEvent::XferDone { dir, sector });
            }
        }
        v_bs
    }

    /// The transfer unit's clock: one step's words moved (a replay moves none: its pixels
    /// are not kept). Returns whether the transfer completed.
    #[inline]
    pub(super) fn transfer_clock(&mut self) -> bool {
        if self.replaying() {
            return self.transfer.advance();
        }
        self.transfer
            .clock(&mut self.backing_store, &mut self.array.mem)
    }

    /// The BS port's parser and transmitter (`slot`: the Ring's 20 MHz enable). Returns what
    /// it asks of the semaphores.
    #[inline]
    fn bs_port_step(&mut self, slot: bool) -> BsRequests {
        if self.bs_port.idle() {
            // Nothing buffered and between commands (the common case of IGC-only work).
            self.bs_port.cause = Cause::Idle;
            return BsRequests::default();
        }
        self.bs_port_busy(slot)
    }

    /// [`Renderer::bs_port_step`] when the port has work (out of line).
    #[inline(never)]
    fn bs_port_busy(&mut self, slot: bool) -> BsRequests {
        // The status word is only sampled by a BS_SENDSTATUS.
        let bs_status = match self.bs_port.state {
            BsState::StatusSend { .. } => self.bs_status(),
            _ => 0,
        };
        self.bs_port.step(
            self.cycle,
            slot,
            self.bs_sem.can_p(),
            bs_status,
            &mut self.backing_store,
            &mut self.tx,
            &mut self.bs_ev,
        )
    }

    /// The BS and IGC semaphores take this cycle's V and P operations (`v_bs`, `p_igc` from
    /// the IGC and the transfer unit, `req` from the BS port); an overflow strobes its error.
    #[inline]
    fn semaphores(&mut self, v_bs: u8, p_igc: bool, req: &BsRequests) {
        let igc_waits = self.igc.state == IgcState::WaitSem;
        let bs_quiet = v_bs == 0 && !req.p_bs && !req.p_wait;
        let igc_quiet = !req.v_igc && !p_igc && !igc_waits;
        if bs_quiet && igc_quiet && !self.sem_pulses {
            // Neither has a request nor shows one: an update would change nothing.
            return;
        }
        if (!bs_quiet || self.bs_sem.pulsed()) && self.bs_sem.update(v_bs, req.p_bs, req.p_wait) {
            self.strobe(ST_BS_SEM_OVF, BoardEvent::SemOverflow { bs: true });
        }
        if (!igc_quiet || self.igc_sem.pulsed())
            && self.igc_sem.update(req.v_igc as u8, p_igc, igc_waits)
        {
            self.strobe(ST_IGC_SEM_OVF, BoardEvent::SemOverflow { bs: false });
        }
        self.sem_pulses = self.bs_sem.pulsed() || self.igc_sem.pulsed();
    }

    /// IGC timeout: a command waits and the IGC does not take it (docs/model-choices.md),
    /// counted in Ring cycles (`slot`).
    #[inline]
    fn igc_timeout(&mut self, before: CommandBefore, slot: bool) {
        let took = self.igc.commands != before.commands || (before.go && !self.llpr.go);
        if took || !self.llpr.go {
            self.timeout_count = 0;
        } else if slot {
            self.timeout_count += 1;
            if self.timeout_count == IGC_TIMEOUT_RING_CYCLES {
                self.strobe(ST_IGC_TIMEOUT, BoardEvent::IgcTimeout);
            }
        }
    }

    /// The cycle's IGC and parser events join the board's; the error strobes set their
    /// sticky status bits and request an error message.
    #[inline]
    fn error_strobes(&mut self) {
        if !(self.igc_ev.is_empty() && self.parser_ev.is_empty()) {
            self.collect_events();
        }
        self.last_strobe = self.error_strobe != 0;
        if self.error_strobe != 0 {
            self.errors |= self.error_strobe;
            // The OR of the error strobes requests an error message to Ring address 0; the
            // upper 24 bits of its ID are "garbage" in the seed, zero here.
            self.igc_port.messages.request_error();
        }
        self.error_strobe = 0;
    }

    /// The IGC port's message transmitter, while a status or error message is pending (out of
    /// line: rare).
    #[inline(never)]
    fn igc_transmitter(&mut self, slot: bool) {
        // An error message samples the status word when it starts.
        let status = self.status();
        self.igc_port.messages.clock(
            self.cycle,
            slot,
            status,
            self.config.board_id as u32,
            &mut self.tx,
        );
    }

    /// Move this cycle's IGC and parser events to the board's events, raising the error
    /// strobes they stand for.
    #[inline(never)]
    fn collect_events(&mut self) {
        let mut conflict = false;
        for ev in self.igc_ev.drain(..) {
            match &ev {
                IgcEvent::FormatError(_) => self.error_strobe |= 1 << ST_IGC_FORMAT,
                IgcEvent::Flow(e) if e.is_error() => self.error_strobe |= 1 << ST_FC_ERROR,
                IgcEvent::XferConflict { .. } => conflict = true,
                _ => {}
            }
            self.events.push(BoardEvent::Igc(ev));
        }
        for ev in self.parser_ev.drain(..) {
            if matches!(ev, ParserEvent::FormatError(_)) {
                self.error_strobe |= 1 << ST_IGC_FORMAT;
            }
            self.events.push(BoardEvent::Parser(ev));
        }
        if conflict {
            self.tap_conflict();
        }
    }

    /// How the IGC spent the cycle just executed, from its state before and after.
    fn igc_cause_of(&self, before: IgcState, took: bool) -> Cause {
        match self.igc.state {
            IgcState::WaitXfer => Cause::XferStall,
            IgcState::WaitSem => Cause::SemWait,
            IgcState::WaitTx => Cause::TxHold,
            IgcState::Hang | IgcState::Fault => Cause::Hung,
            _ => match before {
                IgcState::Run | IgcState::WaitXfer | IgcState::WaitSem | IgcState::WaitTx => {
                    Cause::Executing
                }
                IgcState::RMode if took => Cause::Executing,
                _ if self.igc_port.parser.busy() || !self.igc_port.rx.rxfifo.is_empty() => {
                    Cause::FifoEmpty
                }
                _ => Cause::Idle,
            },
        }
    }

    /// Raise the error strobe `bit` with its event.
    fn strobe(&mut self, bit: u32, ev: BoardEvent) {
        self.error_strobe |= 1 << bit;
        self.events.push(ev);
    }
}
