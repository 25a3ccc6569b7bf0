//! The deadlock watch: notices when the board can no longer change by itself (the same
//! progress snapshot two cycles running, docs/model-choices.md "Deadlock detection") and says
//! why: the IGC stuck (HANG, an illegal microinstruction, a microcode loop that changes
//! nothing), or who waits on what since when. It keeps, for that report, the cycle since
//! which each block has been in its state and each port's TxReady has had its value.

use super::observer::{Cx, Observer};
use super::ring_env::RingEnv;
use super::{StopReason, Wait};
use crate::records::CommandRecord;
use pp5_rtl::bs_port::BsState;
use pp5_rtl::igc::microinstruction::Seq;
use pp5_rtl::igc::IgcState;
use pp5_rtl::Renderer;

/// Since-when bookkeeping and the progress snapshot.
#[derive(Clone, Debug)]
pub struct DeadlockWatch {
    /// The IGC's state and the cycle since which it has been in it.
    igc_since: (IgcState, u64),
    /// The BS port's state code and the cycle since which it has been in it.
    bs_since: (u64, u64),
    /// Since when each port's TxReady has had its value (IGC, BS).
    txready_since: [u64; 2],
    /// Consecutive cycles with an unchanged [`Renderer::progress_key`].
    stable: u64,
    last_key: Option<[u64; 12]>,
}

impl Default for DeadlockWatch {
    fn default() -> Self {
        DeadlockWatch {
            igc_since: (IgcState::RMode, 0),
            bs_since: (0, 0),
            txready_since: [0; 2],
            stable: 0,
            last_key: None,
        }
    }
}

impl Observer for DeadlockWatch {
    #[inline]
    fn cycle(&mut self, cx: &mut Cx) {
        self.states(cx.board, cx.cycle);
    }

    fn ring_reset(&mut self, _at: u64) {
        self.moved();
    }
}

impl DeadlockWatch {
    /// Since when the IGC and the BS port of board `b` have been in their states, after
    /// cycle `c` ([`Observer::cycle`]; the engine calls it directly, with no context built).
    #[inline]
    pub fn states(&mut self, b: &Renderer, c: u64) {
        if self.igc_since.0 != b.igc.state {
            self.igc_since = (b.igc.state, c);
        }
        let code = b.bs_port.state.code();
        if self.bs_since.0 != code {
            self.bs_since = (code, c);
        }
    }

    /// An input changed (TxReady of the ports in `ports`, bit 0 IGC, bit 1 BS) at cycle
    /// `now`: the board may move again.
    #[inline]
    pub fn inputs_changed(&mut self, ports: u8, now: u64) {
        if ports == 0 {
            return;
        }
        for k in 0..2 {
            if ports >> k & 1 != 0 {
                self.txready_since[k] = now;
            }
        }
        self.moved();
    }

    /// `n` still cycles passed at once: the board stood still in each.
    pub fn still(&mut self, n: u64) {
        self.stable += n;
    }

    /// Cycles passed in which a block moved ([`moving`]): the count restarts.
    pub fn moving(&mut self) {
        self.stable = 0;
        self.last_key = None;
    }

    fn moved(&mut self) {
        self.stable = 0;
        self.last_key = None;
    }

    /// After a cycle: `Some(since)` when the board has not changed for two cycles (both
    /// phases of the 20 MHz enable) and so will not change by itself, unless input comes;
    /// `since` is the first cycle of the standstill.
    // The fast path is inlined into the engine's step; the rest is a call of its own (the
    // fast path's share of a call frame was some 20 instructions per executing cycle:
    // scripts/callgrind-cycles.sh).
    #[inline(always)]
    pub fn settled(&mut self, b: &Renderer) -> Option<u64> {
        // Fast path: the IGC moved to another microinstruction, or loops on one with the
        // loop counter running (a LOOP/LOOPD with L > 1; L left over from an earlier loop
        // does not run under a JUMP to itself).
        let counting = || {
            b.igc.l > 1
                && matches!(b.igc.store.uinst(b.igc.pc),
                    Ok(m) if matches!(m.seq, Seq::Loop | Seq::LoopD))
        };
        if b.igc.state == IgcState::Run && (b.igc.pc != b.igc.last_pc || counting()) {
            self.stable = 0;
            return None;
        }
        self.settled_slow(b)
    }

    /// [`DeadlockWatch::settled`] past its fast path.
    #[inline(never)]
    fn settled_slow(&mut self, b: &Renderer) -> Option<u64> {
        if moving(b) {
            // The snapshot changes in this cycle or the next, and again in the one after,
            // until the movement ends with a change: the count restarts then as it would.
            self.stable = 0;
            self.last_key = None;
            return None;
        }
        let key = b.progress_key();
        if self.last_key == Some(key) {
            self.stable += 1;
        } else {
            self.stable = 0;
            self.last_key = Some(key);
        }
        (self.stable >= 2).then(|| b.cycle.saturating_sub(self.stable + 1))
    }

    /// Why a board that settled at `since` with nothing left to come stopped: the IGC stuck,
    /// or a deadlock with who waits on what. `at` names a microinstruction by its address.
    pub fn stop_reason(
        &self,
        b: &Renderer,
        ring: &RingEnv,
        command: Option<&CommandRecord>,
        since: u64,
        at: impl Fn(u32) -> String,
    ) -> StopReason {
        if b.igc.stuck() {
            let why = match b.igc.state {
                IgcState::Hang => format!(
                    "the IGC executed HANG at {} (cycle {})",
                    at(u32::from(b.igc.pc)),
                    self.igc_since.1
                ),
                _ => format!(
                    "the IGC stopped on an illegal microinstruction at {} (cycle {})",
                    at(u32::from(b.igc.pc)),
                    self.igc_since.1
                ),
            };
            return StopReason::Stuck(why);
        }
        if b.igc.state == IgcState::Run && b.igc.pc == b.igc.last_pc {
            // The IGC executes one microinstruction over and over and nothing changes: a
            // microcode loop (a jump to itself), not a wait on another block.
            let cmd = command.map_or(String::new(), |c| format!(" in command {}", c.name));
            return StopReason::Stuck(format!(
                "the IGC loops on microinstruction {}{cmd} since cycle {since}, and nothing \
                 else can change",
                at(u32::from(b.igc.pc))
            ));
        }
        StopReason::Deadlock {
            since,
            waits: self.waits(b, ring, command),
        }
    }

    /// Who waits on what, for a deadlock report.
    pub fn waits(
        &self,
        b: &Renderer,
        ring: &RingEnv,
        command: Option<&CommandRecord>,
    ) -> Vec<Wait> {
        let mut w = Vec::new();
        let mut add = |block: &str, what: String, since: u64| {
            w.push(Wait {
                block: block.into(),
                waits_for: what,
                since,
            })
        };
        let cmd = command.map_or_else(|| "its command".into(), |c| c.name.to_string());
        match b.igc.state {
            IgcState::WaitSem => add(
                "igc",
                format!("the IGC semaphore to be non-zero ({}; no BS_VIGC is coming)", in_cmd(&cmd, "PIGC")),
                self.igc_since.1,
            ),
            IgcState::WaitTx => add(
                "igc",
                format!(
                    "the IGC port's transmitter ({} behind a pending message; TxReady on the IGC port is {})",
                    in_cmd(&cmd, "SENDSTATUS"),
                    if b.tx_ready_igc { "high" } else { "low" }
                ),
                self.igc_since.1,
            ),
            IgcState::WaitXfer => add(
                "igc",
                format!("the backing-store transfer ({cmd})"),
                self.igc_since.1,
            ),
            IgcState::WaitCmd | IgcState::RMode if b.igc_port.parser.busy() => add(
                "igc_port.parser",
                format!(
                    "the rest of a command (parser in {}); the IGC stream has ended",
                    b.igc_port.parser.state.name()
                ),
                self.igc_since.1,
            ),
            _ => {}
        }
        if b.igc_port.messages.pending() && !b.tx_ready_igc {
            add(
                "igc_port.tx",
                "TxReady on the IGC port (a status or error message waits to go out)".into(),
                self.txready_since[0],
            );
        }
        let bs_since = self.bs_since.1;
        match b.bs_port.state {
            BsState::Pbs => add(
                "bs_port",
                "the BS semaphore to be non-zero (BS_PBS; no VBS or VBSlater is coming)".into(),
                bs_since,
            ),
            BsState::StatusSend { .. } | BsState::Transmit { .. } if !b.tx_ready_bs => add(
                "bs_port",
                format!(
                    "TxReady on the BS port ({} holds the BS stream)",
                    b.bs_port.state.command().unwrap_or("a message")
                ),
                self.txready_since[1].max(bs_since),
            ),
            BsState::Opcode | BsState::Skip => {}
            s => add(
                "bs_port",
                format!(
                    "the rest of {} ({}); the BS stream has ended",
                    s.command().unwrap_or("a command"),
                    s.name()
                ),
                bs_since,
            ),
        }
        for (name, src, rx, since) in [
            ("ring.igc", &ring.igc, b.rx_ready(), ring.held_since[0]),
            ("ring.bs", &ring.bs, b.bs_rx_ready(), ring.held_since[1]),
        ] {
            if src.pending_words() > 0 {
                add(
                    name,
                    format!(
                        "{} (RxReady is {}; {} word(s) not delivered)",
                        if !ring.resets_pending() {
                            "RxReady"
                        } else {
                            "a Ring reset"
                        },
                        if rx { "high" } else { "low" },
                        src.pending_words()
                    ),
                    since.unwrap_or(b.cycle),
                );
            }
        }
        w
    }
}

/// Whether a block of `b` moves on by itself at least every other cycle, each step changing
/// [`Renderer::progress_key`] and the last one too: a transfer running (its step count), the
/// BS port sending a message with TxReady high (a word every Ring slot). The system study's
/// Renderers spend much of a frame so; the snapshot is not taken then.
#[inline]
fn moving(b: &Renderer) -> bool {
    let sending = b.tx_ready_bs
        && b.bs_port.tx.busy()
        && matches!(
            b.bs_port.state,
            BsState::Transmit { .. } | BsState::StatusSend { .. }
        );
    b.transfer.busy() || sending
}

/// `PIGC`, or `CMD executes a PIGC microinstruction` when a user's microcode names its command
/// differently.
fn in_cmd(cmd: &str, handshake: &str) -> String {
    if cmd == handshake {
        cmd.to_string()
    } else {
        format!("{cmd} executes a {handshake} microinstruction")
    }
}
