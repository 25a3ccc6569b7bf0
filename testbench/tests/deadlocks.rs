//! Every way the board can stop making progress (seed 003 §III.4.1-2: "This can potentially
//! lead to a deadlock situation, so the programmer must beware"), each provoked on purpose and
//! checked to be *reported* as what it is: the stop reason (a deadlock naming who waits on
//! what and since when, or a stuck IGC for HANG), a stop within a bounded number of cycles of
//! the moment the board froze (the simulator never spins), the `deadlock: ...` diagnostics and
//! the report text, and the cycle report charging the waiting cycles to the right cause.
//!
//! Also the ways out: TxReady coming back, a later message, a Ring reset; and the seed's
//! "Programming Hints and Pitfalls" that the model can observe (§III.4.2.6, §III.4.2.5.2,
//! §III.4.2.5.5, §III.4.1-3), including "the two commands immediately following a PIGC()
//! command must not use the QEEs" (§III.4.2.5.5): the model computes the QEE command
//! correctly and the command checker warns.

use pp5_rtl::bs_port::BsState;
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::IgcState;
use pp5_rtl::igc_port::parser::ParserState;
use pp5_rtl::renderer::MsgKind;
use pp5_rtl::ring::rxfifo::RXFIFO_WORDS;
use pp5_rtl::ring::PortId;
use pp5_rtl::status::{DEFAULT_BOARD_ID, ERROR_MASK, IGC_TIMEOUT_RING_CYCLES};
use pp5_sim::engine::{CauseCounts, StopReason, Wait};
use pp5_sim::report::{stop_text, Summary};
use pp5_sim::stream::Stream;
use pp5_testbench::{Outcome, Testbench};
use std::sync::OnceLock;

const BS_SEM_OVERFLOW: u32 = 1 << 24;
const BS_RXFIFO_OVERWRITTEN: u32 = 1 << 26;
const BS_FORMAT_ERROR: u32 = 1 << 28;
const IGC_FORMAT_ERROR: u32 = 1 << 29;
const TIMEOUT: u32 = 1 << 30;
const TXREADY_BS: u32 = 1 << 6;
const TXREADY_IGC: u32 = 1 << 7;

/// 40 MHz cycles of the IGC timeout (64K 20 MHz cycles).
const TIMEOUT_CYCLES: u64 = 2 * IGC_TIMEOUT_RING_CYCLES;

/// Once the board froze, the run must stop within this many cycles (the detector needs two
/// unchanged cycles; a few more for the last Ring slot).
const STOP_SLACK: u64 = 8;

/// The standard microcode, booted once; every test works on a clone.
fn booted() -> &'static Testbench {
    static TB: OnceLock<Testbench> = OnceLock::new();
    TB.get_or_init(Testbench::standard)
}

/// A booted board, the cycle it is at (the base of absolute `at=` times), and its cycle
/// counts by cause so far.
struct Run {
    tb: Testbench,
    base: u64,
    before: pp5_sim::engine::BlockCauses,
}

impl Run {
    fn new() -> Run {
        let tb = booted().clone();
        let base = tb.sim.board.cycle;
        let before = tb.sim.causes();
        Run { tb, base, before }
    }

    /// Parse `text` and run it (`at=` times in it are absolute: callers add `base`).
    fn run(&mut self, text: &str, max: u64) -> Outcome {
        let s = self.tb.parse(text);
        self.tb.run(&s, max)
    }

    fn run_stream(&mut self, s: &Stream, max: u64) -> Outcome {
        self.tb.run(s, max)
    }

    /// The first 20 MHz Ring slot (an even 40 MHz cycle) at or after `base + dt`.
    fn slot(&self, dt: u64) -> u64 {
        (self.base + dt + 1) & !1
    }

    fn end(&self) -> u64 {
        self.tb.sim.board.cycle
    }

    /// Cycles of `cause` a block spent during this run.
    fn igc(&self, c: Cause) -> u64 {
        delta(&self.tb.sim.causes().igc, &self.before.igc, c)
    }
    fn bs(&self, c: Cause) -> u64 {
        delta(&self.tb.sim.causes().bs_port, &self.before.bs_port, c)
    }
    fn igc_tx(&self, c: Cause) -> u64 {
        delta(&self.tb.sim.causes().igc_tx, &self.before.igc_tx, c)
    }

    fn diags(&self) -> String {
        self.tb
            .sim
            .diagnostics
            .iter()
            .map(|d| format!("  {} {}: {}\n", d.cycle, d.level, d.msg))
            .collect()
    }

    fn has_diag(&self, level: &str, part: &str) -> bool {
        self.tb
            .sim
            .diagnostics
            .iter()
            .any(|d| d.level == level && d.msg.contains(part))
    }

    /// The report `pp5 run` prints.
    fn report(&self, stop: &StopReason) -> String {
        Summary::of(&self.tb.sim, stop).table(0)
    }

    /// Every cycle of every block is charged to exactly one cause.
    fn check_cause_totals(&self) {
        let c = &self.tb.sim.causes();
        let n = self.end();
        for (name, cc) in [
            ("igc", c.igc),
            ("bs_port", c.bs_port),
            ("transfer", c.transfer),
            ("igc_tx", c.igc_tx),
        ] {
            assert_eq!(cc.total(), n, "{name}: cycles by cause vs cycles");
        }
    }

    /// The run ended in a deadlock whose waits are exactly `expect` (block, a part of
    /// `waits_for`), in that order; the waits began after the stream started, the run stopped
    /// soon after the last of them began (or `extra` cycles later: a timeout still counting),
    /// and the diagnostics and the report say so. Returns the waits.
    fn expect_deadlock(&self, o: &Outcome, expect: &[(&str, &str)], extra: u64) -> Vec<Wait> {
        let StopReason::Deadlock { since, waits } = &o.stop else {
            panic!("expected a deadlock, got {:?}\n{}", o.stop, self.diags());
        };
        let got: Vec<(&str, &str)> = waits
            .iter()
            .map(|w| (w.block.as_str(), w.waits_for.as_str()))
            .collect();
        assert_eq!(
            waits.len(),
            expect.len(),
            "waits {got:#?} vs expected {expect:?}"
        );
        for (w, (block, part)) in waits.iter().zip(expect) {
            assert_eq!(w.block, *block, "{got:#?}");
            assert!(
                w.waits_for.contains(part),
                "{}: `{}` does not mention `{part}`",
                w.block,
                w.waits_for
            );
            // (Ring waits are checked where they occur: their `since` is a known problem.)
            assert!(
                (w.since >= self.base || w.block.starts_with("ring.")) && w.since <= self.end(),
                "{w}: since outside the run {}..{}",
                self.base,
                self.end()
            );
            // The diagnostic the engine adds for each wait.
            assert!(
                self.tb
                    .sim
                    .diagnostics
                    .iter()
                    .any(|d| d.level == "error" && d.msg == format!("deadlock: {w}")),
                "no diagnostic for {w}:\n{}",
                self.diags()
            );
        }
        let last = waits
            .iter()
            .filter(|w| !w.block.starts_with("ring."))
            .map(|w| w.since)
            .max()
            .unwrap_or(0);
        assert!(
            *since >= last && *since <= self.end(),
            "since {since}, last wait {last}"
        );
        assert!(
            self.end() - last <= extra + STOP_SLACK,
            "stopped at {} but the last wait began at {last} (allowed {extra} + {STOP_SLACK})",
            self.end()
        );
        // What `pp5 run` prints.
        let text = self.report(&o.stop);
        assert!(text.starts_with("stopped: deadlock: no block can make progress since cycle"));
        for w in waits {
            assert!(text.contains(&format!("\n  {w}\n")), "{text}");
        }
        assert_eq!(stop_text(&o.stop).lines().count(), 1 + waits.len());
        self.check_cause_totals();
        waits.clone()
    }
}

fn delta(after: &CauseCounts, before: &CauseCounts, c: Cause) -> u64 {
    after.get(c) - before.get(c)
}

/// `a` within `tol` of `b`.
fn near(a: u64, b: u64, tol: u64) -> bool {
    a.abs_diff(b) <= tol
}

// -------------------------------------------------------------------------------------------
// 1-3: semaphores

#[test]
fn pigc_without_a_bs_vigc_deadlocks_on_the_igc_semaphore() {
    let mut r = Run::new();
    let o = r.run("SETENABS\nPIGC\n", 1_000_000);
    let w = r.expect_deadlock(
        &o,
        &[("igc", "the IGC semaphore to be non-zero (PIGC; no BS_VIGC")],
        0,
    );
    let b = &r.tb.sim.board;
    assert_eq!(b.igc.state, IgcState::WaitSem);
    assert_eq!(b.igc_sem.count, 0);
    assert!(
        w[0].since < r.base + 40,
        "PIGC starts at once: {}",
        w[0].since
    );
    // The waiting cycles are semaphore waits, of the IGC and of the PIGC command.
    let waited = r.end() - w[0].since;
    assert!(
        near(r.igc(Cause::SemWait), waited, 1),
        "{} vs {waited}",
        r.igc(Cause::SemWait)
    );
    let pigc = r.tb.sim.commands.last().expect("PIGC taken");
    assert_eq!(pigc.name, "PIGC");
    assert_eq!(pigc.causes.get(Cause::SemWait), r.igc(Cause::SemWait));
    assert_eq!(pigc.causes.get(Cause::Executing), 0);
    // No command waits behind it, so the IGC timeout does not run; no error at all.
    assert_eq!(r.tb.status() & ERROR_MASK, 0);
    assert!(r.tb.sim.tx.is_empty());
    // The BS side did nothing.
    assert_eq!(r.bs(Cause::Idle), r.end() - r.base);
}

#[test]
fn pigc_completes_when_the_bs_vigc_arrives_late() {
    let mut r = Run::new();
    let late = r.base + 3000;
    let o = r.run(&format!("PIGC\nmessage bs at={late}\nBS_VIGC\n"), 1_000_000);
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    assert_eq!(r.tb.sim.board.igc_sem.count, 0);
    let pigc = &r.tb.sim.commands[r.tb.sim.commands.len() - 1];
    assert_eq!(pigc.name, "PIGC");
    // It waited from its start until the V, which came in the message's first Ring slot.
    let waited = pigc.causes.get(Cause::SemWait);
    assert!(
        near(waited, late - pigc.start, 4),
        "{waited} vs {}",
        late - pigc.start
    );
    assert_eq!(r.igc(Cause::SemWait), waited);
    r.check_cause_totals();
}

#[test]
fn bs_pbs_without_a_vbs_deadlocks_on_the_bs_semaphore() {
    let mut r = Run::new();
    let o = r.run("message bs\nBS_NOOP\nBS_PBS\n", 1_000_000);
    let w = r.expect_deadlock(
        &o,
        &[(
            "bs_port",
            "the BS semaphore to be non-zero (BS_PBS; no VBS or VBSlater is coming)",
        )],
        0,
    );
    let b = &r.tb.sim.board;
    assert_eq!(b.bs_port.state, BsState::Pbs);
    assert_eq!(b.bs_sem.count, 0);
    assert!(w[0].since < r.base + 20);
    let waited = r.end() - w[0].since;
    assert!(
        near(r.bs(Cause::SemWait), waited, 1),
        "{} vs {waited}",
        r.bs(Cause::SemWait)
    );
    let pbs = r.tb.sim.bs_commands.last().expect("BS_PBS read");
    assert_eq!(pbs.name, "BS_PBS");
    assert_eq!(pbs.causes.get(Cause::SemWait), r.bs(Cause::SemWait));
    // The IGC was idle all along.
    assert_eq!(r.igc(Cause::SemWait), 0);
    assert_eq!(r.tb.status() & ERROR_MASK, 0);
}

#[test]
fn bs_pbs_completes_on_a_vbslater_at_the_end_of_the_transfer() {
    let mut r = Run::new();
    let o = r.run(
        "message bs\nBS_PBS\nBS_TRANSMIT 6 0 1 0x99\nmessage igc\nBSSTORE 6\nVBSlater\n",
        1_000_000,
    );
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    let b = &r.tb.sim.board;
    assert_eq!(b.bs_sem.count, 0);
    let pbs = &r.tb.sim.bs_commands[0];
    assert_eq!(pbs.name, "BS_PBS");
    // A whole sector transfer is 4096 cycles; the BS_PBS waits for all of it.
    let sw = pbs.causes.get(Cause::SemWait);
    assert!((4096..4096 + 60).contains(&sw), "{sw}");
    let data: Vec<_> =
        r.tb.sim
            .tx
            .iter()
            .filter(|m| m.kind == MsgKind::Data)
            .collect();
    assert_eq!(data.len(), 1);
    assert!(data[0].start > pbs.start + 4096);
    r.check_cause_totals();
}

#[test]
fn pigc_before_vbs_and_bs_pbs_before_bs_vigc_wait_for_each_other() {
    let mut r = Run::new();
    // Each port waits for the V the other would give after its own P.
    let o = r.run(
        "PIGC\nVBS\nmessage bs\nBS_PBS\nBS_VIGC\n",
        2 * TIMEOUT_CYCLES,
    );
    // VBS waits in the command registers behind the stalled PIGC, so the IGC timeout runs:
    // the deadlock is only certain once it fired (64K 20 MHz cycles).
    let w = r.expect_deadlock(
        &o,
        &[
            ("igc", "the IGC semaphore to be non-zero"),
            ("bs_port", "the BS semaphore to be non-zero"),
        ],
        TIMEOUT_CYCLES + 40,
    );
    let b = &r.tb.sim.board;
    assert_eq!(
        (b.igc.state, b.bs_port.state),
        (IgcState::WaitSem, BsState::Pbs)
    );
    assert_eq!((b.igc_sem.count, b.bs_sem.count), (0, 0));
    // Both began waiting right away, and nothing else happened but the timeout.
    assert!(w.iter().all(|w| w.since < r.base + 40), "{w:?}");
    assert!(r.end() - r.base >= TIMEOUT_CYCLES);
    assert_eq!(r.tb.status() & ERROR_MASK, TIMEOUT);
    let errs: Vec<_> = r.tb.sim.tx.iter().filter(|m| m.is_error()).collect();
    assert_eq!(errs.len(), 1);
    assert_ne!(errs[0].words[2] & TIMEOUT, 0);
    assert!(r.has_diag("error", "IGC timeout (status bit 30)"));
    // The whole wait is a semaphore wait on both sides.
    assert!(near(r.igc(Cause::SemWait), r.end() - w[0].since, 1));
    assert!(near(r.bs(Cause::SemWait), r.end() - w[1].since, 1));
    // The same two streams in the right order (each V before the P) finish.
    let mut r = Run::new();
    let o = r.run("VBS\nPIGC\nmessage bs\nBS_VIGC\nBS_PBS\n", 1_000_000);
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    let b = &r.tb.sim.board;
    assert_eq!((b.igc_sem.count, b.bs_sem.count), (0, 0));
    assert_eq!(r.tb.status() & ERROR_MASK, 0);
}

// -------------------------------------------------------------------------------------------
// 4-5: TxReady

#[test]
fn bs_sendstatus_held_by_txready_low_forever_deadlocks() {
    let mut r = Run::new();
    let t = r.base;
    let o = r.run(
        &format!("txready bs off at={t}\nmessage bs\nBS_SENDSTATUS 0x1111 0x22\nBS_VIGC\nmessage igc\nPIGC\n"),
        1_000_000,
    );
    // The held stream never reaches its BS_VIGC, so the PIGC waits too.
    let w = r.expect_deadlock(
        &o,
        &[
            ("igc", "the IGC semaphore"),
            (
                "bs_port",
                "TxReady on the BS port (BS_SENDSTATUS holds the BS stream)",
            ),
        ],
        0,
    );
    let b = &r.tb.sim.board;
    assert!(matches!(
        b.bs_port.state,
        BsState::StatusSend {
            id: 0x1111,
            dest: 0x22
        }
    ));
    assert_eq!(b.status() & TXREADY_BS, 0, "status bit 6 shows TxReady low");
    assert!(r.tb.sim.tx.is_empty());
    let held = r.end() - w[1].since;
    assert!(
        near(r.bs(Cause::TxHold), held, 1),
        "{} vs {held}",
        r.bs(Cause::TxHold)
    );
    assert_eq!(
        r.tb.sim.bs_commands.last().map(|c| c.name.as_str()),
        Some("BS_SENDSTATUS")
    );
}

#[test]
fn bs_sendstatus_goes_out_when_txready_comes_back() {
    let mut r = Run::new();
    let (off, on) = (r.base, r.slot(5000));
    let o = r.run(
        &format!(
            "txready bs off at={off}\ntxready bs on at={on}\nmessage bs\nBS_SENDSTATUS 0x1111 0x22\nBS_VIGC\nmessage igc\nPIGC\n"
        ),
        1_000_000,
    );
    assert_eq!(o.stop, StopReason::Done, "not a deadlock: {}", r.diags());
    let st: Vec<_> =
        r.tb.sim
            .tx
            .iter()
            .filter(|m| m.port == PortId::Bs)
            .collect();
    assert_eq!(st.len(), 1);
    assert!(st[0].start >= on && st[0].start < on + 4, "{}", st[0].start);
    assert_eq!(&st[0].words[..2], &[0x22, 0x1111]);
    // The BS status word: TxReady BS set at the time it went out, no IGC-only bits.
    assert_ne!(st[0].words[2] & TXREADY_BS, 0);
    assert_eq!(st[0].words[2] & 0xff00_0000, 0);
    let cmd =
        r.tb.sim
            .bs_commands
            .iter()
            .find(|c| c.name == "BS_SENDSTATUS")
            .expect("record");
    let hold = cmd.causes.get(Cause::TxHold);
    assert!(
        near(hold, on - cmd.start, 6),
        "{hold} vs {}",
        on - cmd.start
    );
    assert_eq!(r.bs(Cause::TxHold), hold);
    assert_eq!(r.tb.sim.board.igc_sem.count, 0, "the PIGC got its V");
    r.check_cause_totals();
}

#[test]
fn bs_transmit_held_by_txready_low_forever_deadlocks_and_completes_when_it_returns() {
    let stream = |off: u64, on: Option<u64>| {
        let mut s = format!("txready bs off at={off}\n");
        if let Some(on) = on {
            s.push_str(&format!("txready bs on at={on}\n"));
        }
        s.push_str("message bs\nBS_RECEIVE 2 0 1 ramp\nBS_TRANSMIT 2 0 1 0x99\nBS_NOOP\n");
        s
    };
    let mut r = Run::new();
    let o = r.run(&stream(r.base, None), 1_000_000);
    let w = r.expect_deadlock(
        &o,
        &[(
            "bs_port",
            "TxReady on the BS port (BS_TRANSMIT holds the BS stream)",
        )],
        0,
    );
    assert!(matches!(
        r.tb.sim.board.bs_port.state,
        BsState::Transmit { sector: 2, .. }
    ));
    assert!(near(r.bs(Cause::TxHold), r.end() - w[0].since, 1));
    // With TxReady back, the data message goes out word for word.
    let mut r = Run::new();
    let on = r.slot(4000);
    let o = r.run(&stream(r.base, Some(on)), 1_000_000);
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    let d: Vec<_> =
        r.tb.sim
            .tx
            .iter()
            .filter(|m| m.kind == MsgKind::Data)
            .collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].words[0], 0x99);
    assert_eq!(d[0].words[1..], (0..128).collect::<Vec<u32>>()[..]);
    assert!(d[0].start >= on);
    assert!(
        d[0].end - d[0].start <= 2 * 129 + 2,
        "one word per 20 MHz slot"
    );
    r.check_cause_totals();
}

#[test]
fn bs_transmit_stalls_word_by_word_when_txready_drops_mid_message() {
    let mut r = Run::new();
    // RECEIVE of one scanline takes ~260 cycles; drop TxReady in the middle of the TRANSMIT.
    let (off, on) = (r.base + 400, r.slot(3000));
    let o = r.run(
        &format!(
            "txready bs off at={off}\ntxready bs on at={on}\nmessage bs\nBS_RECEIVE 2 0 1 ramp\nBS_TRANSMIT 2 0 1 0x99\n"
        ),
        1_000_000,
    );
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    let d: Vec<_> =
        r.tb.sim
            .tx
            .iter()
            .filter(|m| m.kind == MsgKind::Data)
            .collect();
    assert_eq!(d.len(), 1);
    assert!(
        d[0].start < off && d[0].end > on,
        "{}..{}",
        d[0].start,
        d[0].end
    );
    assert_eq!(d[0].words[1..], (0..128).collect::<Vec<u32>>()[..]);
    let hold = r.bs(Cause::TxHold);
    assert!(near(hold, on - off, 4), "{hold} vs {}", on - off);
}

#[test]
fn igc_sendstatus_behind_a_pending_status_message_with_txready_low_deadlocks() {
    let text = |t: u64, on: Option<u64>| {
        let mut s = format!("txready igc off at={t}\n");
        if let Some(on) = on {
            s.push_str(&format!("txready igc on at={on}\n"));
        }
        s.push_str("SENDSTATUS_S1 0xabcdef00 0x77\nSENDSTATUS_S1 0x12345600 0x78\n");
        s
    };
    let mut r = Run::new();
    let o = r.run(&text(r.base, None), 1_000_000);
    let w = r.expect_deadlock(
        &o,
        &[
            (
                "igc",
                "the IGC port's transmitter (SENDSTATUS behind a pending message; TxReady on the IGC port is low)",
            ),
            (
                "igc_port.tx",
                "TxReady on the IGC port (a status or error message waits to go out)",
            ),
        ],
        0,
    );
    let b = &r.tb.sim.board;
    assert_eq!(b.igc.state, IgcState::WaitTx);
    assert!(b.igc_port.messages.pending());
    assert_eq!(b.status() & TXREADY_IGC, 0);
    assert!(r.tb.sim.tx.is_empty());
    // The second SENDSTATUS waits (tx_hold of the IGC); the first message waits on the
    // transmitter (tx_hold of igc_tx) from the cycle it was latched.
    assert!(near(r.igc(Cause::TxHold), r.end() - w[0].since, 1));
    let first =
        r.tb.sim
            .commands
            .iter()
            .rev()
            .find(|c| c.name == "SENDSTATUS")
            .expect("record");
    assert_eq!(first.causes.get(Cause::TxHold), r.igc(Cause::TxHold));
    assert!(r.igc_tx(Cause::TxHold) > r.igc(Cause::TxHold));
    // TxReady has been low since the start; the first message waits from its latch.
    assert!(w[1].since <= r.base + 1, "{w:?}");
    let latched =
        r.tb.sim
            .commands
            .iter()
            .find(|c| c.start > r.base && c.name == "SENDSTATUS")
            .expect("first SENDSTATUS")
            .start;
    assert!(
        near(r.igc_tx(Cause::TxHold), r.end() - latched, 2),
        "{} vs {}",
        r.igc_tx(Cause::TxHold),
        r.end() - latched
    );

    // TxReady back: both go out in order, each with the status of its own execution.
    let mut r = Run::new();
    let on = r.slot(2000);
    let o = r.run(&text(r.base, Some(on)), 1_000_000);
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    let st: Vec<_> =
        r.tb.sim
            .tx
            .iter()
            .filter(|m| m.kind == MsgKind::Status)
            .collect();
    assert_eq!(st.len(), 2);
    let id = |hi: u32| hi | DEFAULT_BOARD_ID as u32;
    assert_eq!(&st[0].words[..2], &[0x77, id(0xabcdef00)]);
    assert_eq!(&st[1].words[..2], &[0x78, id(0x12345600)]);
    assert!(st[0].start >= on && st[1].start > st[0].end);
    assert_eq!(
        st[0].words[2] & TXREADY_IGC,
        0,
        "latched while TxReady was low"
    );
    assert_ne!(
        st[1].words[2] & TXREADY_IGC,
        0,
        "latched after it came back"
    );
    r.check_cause_totals();
}

#[test]
fn igc_sendstatus_waiting_with_a_command_behind_it_is_interrupted_by_the_timeout_error() {
    // Seed §III.4.1-5: an error interrupts an executing SENDSTATUS, whose status message is
    // lost. Here the error is the IGC timeout of the NOOP waiting behind it.
    let mut r = Run::new();
    let t = r.base;
    let o = r.run(
        &format!(
            "txready igc off at={t}\nSENDSTATUS_S1 0x100 0x77\nSENDSTATUS_S1 0x200 0x78\nNOOP\n"
        ),
        4 * TIMEOUT_CYCLES,
    );
    let w = r.expect_deadlock(
        &o,
        &[("igc_port.tx", "TxReady on the IGC port")],
        TIMEOUT_CYCLES + 40,
    );
    assert!(w[0].since <= r.base + 4);
    let b = &r.tb.sim.board;
    assert_eq!(b.status() & ERROR_MASK, TIMEOUT);
    assert_eq!(
        b.igc.state,
        IgcState::WaitCmd,
        "the IGC went on and took the NOOP"
    );
    assert!(r.has_diag("note", "SENDSTATUS was interrupted by an error"));
    assert_eq!(
        r.tb.sim.commands.last().map(|c| c.name.as_str()),
        Some("NOOP")
    );
    // Nothing went out: the first status message and the error message wait for TxReady.
    assert!(r.tb.sim.tx.is_empty());
    assert!(b.igc_port.messages.error_req || b.igc_port.messages.tx.busy());
}

#[test]
fn a_second_igc_timeout_interrupting_a_waiting_sendstatus_is_not_a_deadlock() {
    // As above with a third SENDSTATUS: the first timeout (bit 30 set) interrupts the second
    // SENDSTATUS; the third waits in its place with the NOOP behind it, and the second timeout
    // (bit 30 already set, the error request already pending: nothing visible changes)
    // interrupts it in turn, so the IGC takes the NOOP. Only the transmitter waits at the end.
    let mut r = Run::new();
    let t = r.base;
    let o = r.run(
        &format!(
            "txready igc off at={t}\nSENDSTATUS_S1 0x100 0x77\nSENDSTATUS_S1 0x200 0x78\n\
             SENDSTATUS_S1 0x300 0x79\nNOOP\n"
        ),
        6 * TIMEOUT_CYCLES,
    );
    let b = &r.tb.sim.board;
    let lost =
        r.tb.sim
            .diagnostics
            .iter()
            .filter(|d| d.msg.starts_with("SENDSTATUS was interrupted by an error"))
            .count();
    assert_eq!(
        (
            b.igc.state,
            lost,
            r.tb.sim.commands.last().map(|c| c.name.as_str())
        ),
        (IgcState::WaitCmd, 2, Some("NOOP")),
        "the second timeout must interrupt the third SENDSTATUS:\n{}",
        r.report(&o.stop)
    );
    r.expect_deadlock(
        &o,
        &[("igc_port.tx", "TxReady on the IGC port")],
        2 * TIMEOUT_CYCLES + 40,
    );
    assert_eq!(b.status() & ERROR_MASK, TIMEOUT);
}

// -------------------------------------------------------------------------------------------
// 6: HANG

#[test]
fn hang_stops_the_run_as_stuck_at_once() {
    let mut r = Run::new();
    let o = r.run("SETENABS\nHANG\n", 1_000_000);
    match &o.stop {
        StopReason::Stuck(why) => assert!(
            why.starts_with("the IGC executed HANG at hang (PC "),
            "{why}"
        ),
        s => panic!("{s:?}"),
    }
    assert!(r.end() - r.base < 40, "{}", r.end() - r.base);
    assert_eq!(r.tb.sim.board.igc.state, IgcState::Hang);
    assert!(r.igc(Cause::Hung) >= 1);
    assert_eq!(r.igc(Cause::SemWait) + r.igc(Cause::TxHold), 0);
    assert_eq!(r.tb.status() & ERROR_MASK, 0, "nothing waits: no timeout");
    assert!(r
        .report(&o.stop)
        .starts_with("stopped: IGC stuck: the IGC executed HANG"));
    r.check_cause_totals();
}

#[test]
fn hang_with_commands_queued_times_out_before_the_run_stops() {
    let mut r = Run::new();
    let o = r.run("HANG\nNOOP\nSETENABS\nNOOP\n", 4 * TIMEOUT_CYCLES);
    assert!(
        matches!(&o.stop, StopReason::Stuck(w) if w.contains("HANG")),
        "{:?}",
        o.stop
    );
    let b = &r.tb.sim.board;
    assert!(b.llpr.go, "a command still waits");
    assert_ne!(b.status() & TIMEOUT, 0, "status bit 30");
    let errs: Vec<_> = r.tb.sim.tx.iter().filter(|m| m.is_error()).collect();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].words[0], 0);
    assert_ne!(errs[0].words[2] & TIMEOUT, 0);
    // The error message went out before the run stopped, and the stop came right after.
    assert!(errs[0].end < r.end());
    assert!(
        r.end() - errs[0].end <= STOP_SLACK,
        "{} vs {}",
        r.end(),
        errs[0].end
    );
    let hang =
        r.tb.sim
            .commands
            .iter()
            .rev()
            .find(|c| c.name == "HANG")
            .expect("HANG");
    assert!(
        near(errs[0].start - hang.start, TIMEOUT_CYCLES, 40),
        "{}",
        errs[0].start - hang.start
    );
    // Every cycle since is a hung cycle of the IGC.
    assert!(near(r.igc(Cause::Hung), r.end() - hang.start, 2));
    assert_eq!(hang.causes.get(Cause::Hung), r.igc(Cause::Hung));
    r.check_cause_totals();
}

#[test]
fn hang_lets_the_bs_port_finish_its_stream_first() {
    let mut r = Run::new();
    let o = r.run(
        "HANG\nmessage bs\nBS_RECEIVE 9 0 2 fill=5\nBS_SENDSTATUS 1 2\n",
        1_000_000,
    );
    assert!(matches!(o.stop, StopReason::Stuck(_)), "{:?}", o.stop);
    assert!(r.tb.sim.ring.bs.is_empty());
    assert!(r.tb.sim.board.bs_port.idle());
    assert_eq!(r.tb.sim.board.backing_store.read(9, 127, 1), 5);
    assert_eq!(
        r.tb.sim.tx.iter().filter(|m| m.port == PortId::Bs).count(),
        1
    );
}

// -------------------------------------------------------------------------------------------
// 7: a stream that ends in the middle of a command

/// `text` parsed, with the last `cut` words of its first message removed.
fn truncated(tb: &Testbench, text: &str, cut: usize) -> Stream {
    let mut s = tb.parse(text);
    let body = &mut s.messages[0].body;
    body.truncate(body.len() - cut);
    s
}

#[test]
fn igc_message_ending_in_the_middle_of_a_command_waits_for_its_rest() {
    let mut r = Run::new();
    // SCAIntoMEM_S1: opcode, P word, C word; the C word is missing.
    let s = truncated(&r.tb, "SETENABS\nSCAIntoMEM_S1 40 8 5\n", 1);
    let o = r.run_stream(&s, 1_000_000);
    let w = r.expect_deadlock(
        &o,
        &[(
            "igc_port.parser",
            "the rest of a command (parser in COEF); the IGC stream has ended",
        )],
        0,
    );
    let b = &r.tb.sim.board;
    assert!(matches!(b.igc_port.parser.state, ParserState::Coef(_)));
    assert_eq!(b.igc.state, IgcState::WaitCmd);
    // The IGC waited for the rest of a command: fifo_empty, not idle.
    // The IGC waited for Ring words (fifo_empty) all along except SETENABS's one cycle;
    // never idle, since a command was under way.
    assert!(w[0].since > r.base && w[0].since < r.end());
    assert_eq!(r.igc(Cause::Executing), 1);
    assert_eq!(r.igc(Cause::FifoEmpty), r.end() - r.base - 1);
    assert_eq!(
        r.tb.status() & ERROR_MASK,
        0,
        "no error until a next message comes"
    );

    // A next message: the hanging command is a formatting error and is lost; the rest runs.
    let mut r = Run::new();
    let mut s = truncated(&r.tb, "SETENABS\nSCAIntoMEM_S1 40 8 5\n", 1);
    s.append(r.tb.parse("NOOP\nSCAIntoMEM_S1 48 8 9\n"));
    let o = r.run_stream(&s, 1_000_000);
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    assert_eq!(r.tb.status() & ERROR_MASK, IGC_FORMAT_ERROR);
    assert!(r
        .tb
        .sim
        .tx
        .iter()
        .any(|m| m.is_error() && m.words[2] & IGC_FORMAT_ERROR != 0));
    let names: Vec<&str> = o.command_cycles.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["SETENABS", "NOOP", "SCAIntoMEM"]);
    assert_eq!(r.tb.peek(3, 3, 40, 8), 0);
    assert_eq!(r.tb.peek(3, 3, 48, 8), 9);
}

#[test]
fn bs_message_ending_in_the_middle_of_a_command_waits_for_its_rest() {
    for (text, cut, what, state) in [
        (
            "message bs\nBS_RECEIVE 3 0 1 fill=7\n",
            28,
            "the rest of BS_RECEIVE (RECEIVE); the BS stream has ended",
            "RECEIVE",
        ),
        (
            "message bs\nBS_NOOP\nBS_SENDSTATUS 1 2\n",
            1,
            "the rest of BS_SENDSTATUS (STATUS_ARGS); the BS stream has ended",
            "STATUS_ARGS",
        ),
        (
            "message bs\nBS_NOOP\nBS_TRANSMIT 1 0 1 9\n",
            1,
            "the rest of BS_TRANSMIT (TRANSMIT_ARGS); the BS stream has ended",
            "TRANSMIT_ARGS",
        ),
    ] {
        let mut r = Run::new();
        let s = truncated(&r.tb, text, cut);
        let words = s.total_words() as u64;
        let o = r.run_stream(&s, 1_000_000);
        // `since` is when the port entered the command's state: for BS_RECEIVE that is its
        // first word, and the data kept arriving (one word per 20 MHz cycle) until the
        // stream ran dry.
        let w = r.expect_deadlock(&o, &[("bs_port", what)], 2 * words);
        assert!(
            r.end() - r.base <= 2 * words + STOP_SLACK,
            "{text}: stops when the words end"
        );
        assert_eq!(r.tb.sim.board.bs_port.state.name(), state);
        // Waiting for Ring words: fifo_empty, never idle, once the command began.
        assert_eq!(r.bs(Cause::Idle), 0, "{text}");
        assert!(
            r.bs(Cause::FifoEmpty) >= r.end() - w[0].since - words,
            "{text}: {} fifo_empty of {}",
            r.bs(Cause::FifoEmpty),
            r.end() - w[0].since
        );
        assert_eq!(r.tb.status() & ERROR_MASK, 0);
        assert!(r.tb.sim.tx.is_empty());
    }
    // The RECEIVE wrote the 100 words it got.
    let mut r = Run::new();
    let s = truncated(&r.tb, "message bs\nBS_RECEIVE 3 0 1 fill=7\n", 28);
    r.run_stream(&s, 1_000_000);
    let row = &r.tb.sim.board.backing_store.sector(3)[..128];
    assert!(row[..100].iter().all(|&v| v == 7) && row[100..].iter().all(|&v| v == 0));
    // A next message: formatting error (bit 28), and its first command runs.
    let mut r = Run::new();
    let mut s = truncated(&r.tb, "message bs\nBS_RECEIVE 3 0 1 fill=7\n", 28);
    s.append(r.tb.parse("message bs\nBS_VIGC\nBS_VIGC\n"));
    let o = r.run_stream(&s, 1_000_000);
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    assert_eq!(r.tb.status() & ERROR_MASK, BS_FORMAT_ERROR);
    assert!(r.has_diag("error", "BS port formatting error (status bit 28)"));
    assert_eq!(r.tb.sim.board.igc_sem.count, 2);
}

// -------------------------------------------------------------------------------------------
// 8: over-long BS messages (seed §III.4.1-3)

#[test]
fn over_long_bs_message_with_a_blocking_bs_pbs_overflows_the_rxfifo_and_deadlocks() {
    let mut r = Run::new();
    // BS_PBS, then 20 scanlines of data: 1 + 1 + 2560 words in one message.
    let o = r.run(
        "message bs oversize\nBS_PBS\nBS_RECEIVE 5 0 20 fill=3\n",
        1_000_000,
    );
    let total = 2 + 20 * 128u64;
    let w = r.expect_deadlock(
        &o,
        &[("bs_port", "the BS semaphore to be non-zero (BS_PBS")],
        2 * total + 40,
    );
    let b = &r.tb.sim.board;
    assert_eq!(b.bs_port.state, BsState::Pbs);
    // The FIFO filled up behind the BS_PBS and the rest was lost.
    assert_eq!(b.bs_port.rx.rxfifo.len(), RXFIFO_WORDS);
    assert_eq!(
        b.bs_port.rx.rxfifo.overruns,
        total - 1 - RXFIFO_WORDS as u64
    );
    assert_eq!(b.status() & ERROR_MASK, BS_RXFIFO_OVERWRITTEN);
    assert!(r.has_diag("error", "BS RxFIFO overwritten (status bit 26)"));
    let errs: Vec<_> = r.tb.sim.tx.iter().filter(|m| m.is_error()).collect();
    assert!(!errs.is_empty());
    assert!(errs
        .iter()
        .all(|m| m.words[0] == 0 && m.words[2] & BS_RXFIFO_OVERWRITTEN != 0));
    // Nothing was written to the sector; the whole run is one semaphore wait of the BS port.
    assert!(r
        .tb
        .sim
        .board
        .backing_store
        .sector(5)
        .iter()
        .all(|&v| v == 0));
    assert!(near(r.bs(Cause::SemWait), r.end() - w[0].since, 1));
}

#[test]
fn over_long_bs_message_of_bs_receive_only_is_swallowed_at_full_rate() {
    let mut r = Run::new();
    // The same 20 scanlines as BS_RECEIVEs, with a BS_VIGC sprinkled in.
    let o = r.run(
        "message bs oversize\nBS_RECEIVE 5 0 12 ramp\nBS_VIGC\nBS_RECEIVE 5 12 8 fill=3\nBS_VIGC\n",
        1_000_000,
    );
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    let b = &r.tb.sim.board;
    assert_eq!(b.bs_port.rx.rxfifo.overruns, 0);
    assert_eq!(b.status() & ERROR_MASK, 0);
    assert_eq!(b.igc_sem.count, 2);
    let words = 1 + 12 * 128 + 1 + 1 + 8 * 128;
    // One Ring word per 20 MHz cycle, and the port keeps up: the FIFO never fills.
    assert!(
        o.cycles <= 2 * words + 20,
        "{} cycles for {words} words",
        o.cycles
    );
    assert!(
        b.bs_port.rx.rxfifo.max_level < 8,
        "{}",
        b.bs_port.rx.rxfifo.max_level
    );
    let sec = b.backing_store.sector(5);
    assert!(sec[..12 * 128]
        .iter()
        .enumerate()
        .all(|(k, &v)| v == k as u32));
    assert!(sec[12 * 128..20 * 128].iter().all(|&v| v == 3));
    assert!(sec[20 * 128..].iter().all(|&v| v == 0));
    // The port was executing (receiving) or waiting for Ring words, never held.
    assert_eq!(r.bs(Cause::SemWait) + r.bs(Cause::TxHold), 0);
    r.check_cause_totals();
}

// -------------------------------------------------------------------------------------------
// 9: Ring reset

#[test]
fn ring_reset_after_a_deadlock_recovers_the_board() {
    let mut r = Run::new();
    // Before the reset: BS semaphore at 2, an IGC waiting in PIGC, a bogus BS command
    // (status bit 28), the indicator on.
    let text = "INDON\nVBS\nVBS\nPIGC\nmessage bs dest=0\nword 0xf\n\
                reset\n\
                message igc\nRMODEOFF\nSETENABS\nSCAIntoMEM_S1 40 8 0x5a\nPIGC\nVBS\n\
                message bs\nBS_VIGC\nBS_PBS\n";
    let mut at_reset = None;
    let s = r.tb.parse(text);
    let o = r.tb.run_with(&s, 1_000_000, |sim| {
        if at_reset.is_none() && !sim.ring.resets_done.is_empty() {
            let b = &sim.board;
            at_reset = Some((
                b.bs_sem.count,
                b.igc_sem.count,
                b.errors,
                b.igc.state,
                b.igc.indicator,
                b.bs_port.state,
            ));
        }
    });
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    assert_eq!(r.tb.sim.ring.resets_done.len(), 1);
    assert_eq!(
        at_reset,
        Some((0, 0, 0, IgcState::RMode, false, BsState::Opcode)),
        "the reset state"
    );
    // The reset came once the board was stuck, not before.
    let reset = r.tb.sim.ring.resets_done[0];
    let before: Vec<_> =
        r.tb.sim
            .commands
            .iter()
            .filter(|c| c.start < reset)
            .collect();
    assert_eq!(before.last().map(|c| c.name.as_str()), Some("PIGC"));
    assert!(r
        .tb
        .sim
        .tx
        .iter()
        .any(|m| m.is_error() && m.words[2] & BS_FORMAT_ERROR != 0));
    assert!(r.has_diag("note", &format!("Ring reset at cycle {reset}")));
    assert!(
        !r.has_diag("error", "deadlock: "),
        "not reported as a deadlock:\n{}",
        r.diags()
    );
    // After it: the later messages ran, the semaphores balanced out, no error bits.
    let b = &r.tb.sim.board;
    assert_eq!((b.bs_sem.count, b.igc_sem.count), (0, 0));
    assert_eq!(b.status() & ERROR_MASK, 0);
    assert!(!b.igc.indicator);
    assert_eq!(r.tb.peek(7, 7, 40, 8), 0x5a);
    let after: Vec<&str> =
        r.tb.sim
            .commands
            .iter()
            .filter(|c| c.start > reset)
            .map(|c| c.name.as_str())
            .collect();
    assert_eq!(after, ["SETENABS", "SCAIntoMEM", "PIGC", "VBS"]);
    r.check_cause_totals();
}

#[test]
fn timed_ring_reset_ends_a_deadlock_at_its_time() {
    let mut r = Run::new();
    let t = r.base + 20_000;
    let o = r.run(
        &format!("PIGC\nreset at={t}\nmessage igc\nRMODEOFF\nSETENABS\nSET 64 4\n"),
        1_000_000,
    );
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    assert_eq!(r.tb.sim.ring.resets_done, [t]);
    assert_eq!(r.tb.peek(0, 0, 64, 4), 0xf);
    // The PIGC waited until the reset.
    let pigc =
        r.tb.sim
            .commands
            .iter()
            .find(|c| c.start >= r.base && c.name == "PIGC")
            .expect("PIGC");
    assert!(near(pigc.causes.get(Cause::SemWait), t - pigc.start, 2));
    r.check_cause_totals();
}

#[test]
fn commands_after_a_ring_reset_without_rmodeoff_are_formatting_errors() {
    // After a Ring reset the IGC is in RMode: only MCWRITE, MCREAD, NOOP, RMODEOFF, FBITS.
    let mut r = Run::new();
    let o = r.run("PIGC\nreset\nmessage igc\nSETENABS\nSET 64 4\n", 1_000_000);
    assert_eq!(o.stop, StopReason::Done, "{}", r.diags());
    let b = &r.tb.sim.board;
    assert_eq!(b.igc.state, IgcState::RMode);
    assert_eq!(b.status() & ERROR_MASK, IGC_FORMAT_ERROR);
    assert_eq!(r.tb.peek(0, 0, 64, 4), 0);
}

// -------------------------------------------------------------------------------------------
// 10: programming pitfalls the model can observe

#[test]
fn vbslater_while_a_vbslater_is_pending_is_warned_and_loses_a_v() {
    let mut r = Run::new();
    let o = r.run("BSSTORE 5\nVBSlater\nVBSlater\n", 1_000_000);
    assert_eq!(o.stop, StopReason::Done);
    assert!(r.has_diag(
        "warning",
        "VBSlater issued while a VBSlater is pending (seed §III.4.2.5.5"
    ));
    assert_eq!(
        r.tb.sim.board.bs_sem.count, 1,
        "the two merge: one V is lost"
    );
    // VBS while a VBSlater is pending: warned, increments at once.
    let mut r = Run::new();
    let o = r.run("BSSTORE 5\nVBSlater\nVBS\n", 1_000_000);
    assert_eq!(o.stop, StopReason::Done);
    assert!(r.has_diag("warning", "VBS issued while a VBSlater is pending"));
    assert_eq!(r.tb.sim.board.bs_sem.count, 2);
    // The legal sequence gives no warning.
    let mut r = Run::new();
    let o = r.run("BSSTORE 5\nVBSlater\nBSWAIT\nVBS\nVBSlater\n", 1_000_000);
    assert_eq!(o.stop, StopReason::Done);
    assert!(
        !r.tb.sim.diagnostics.iter().any(|d| d.level == "warning"),
        "{}",
        r.diags()
    );
    assert_eq!(r.tb.sim.board.bs_sem.count, 3);
    // Overflow of the BS semaphore (256 V's) wraps to 0 with an error (bit 24).
    let mut r = Run::new();
    let o = r.run(&"VBS\n".repeat(256), 1_000_000);
    assert_eq!(o.stop, StopReason::Done);
    assert_eq!(r.tb.sim.board.bs_sem.count, 0);
    assert_eq!(r.tb.status() & ERROR_MASK, BS_SEM_OVERFLOW);
}

#[test]
fn qee_commands_right_after_a_pigc_are_warned() {
    // The second command after PIGC uses the QEE: warned, and computed as usual.
    let mut r = Run::new();
    let o = r.run(
        "SETENABS
PIGC
NOOP
TREEIntoMEM_L3 64 8 1.0 0.0 0.0
message bs
BS_VIGC
",
        1_000_000,
    );
    assert_eq!(o.stop, StopReason::Done);
    assert!(
        r.has_diag(
            "warning",
            "TREEIntoMEM uses the QEE as one of the two commands right after a PIGC"
        ),
        "{}",
        r.diags()
    );
    assert_eq!(r.tb.peek(5, 0, 64, 8), 5, "x at pixel (5,0)");
    // The third command may use it.
    let mut r = Run::new();
    let o = r.run(
        "SETENABS
PIGC
NOOP
NOOP
TREEIntoMEM_L3 64 8 1.0 0.0 0.0
message bs
BS_VIGC
",
        1_000_000,
    );
    assert_eq!(o.stop, StopReason::Done);
    assert!(
        !r.tb.sim.diagnostics.iter().any(|d| d.level == "warning"),
        "{}",
        r.diags()
    );
}

#[test]
fn commands_touching_bits_0_to_31_during_a_transfer_are_warned_and_do_not_corrupt_it() {
    let mut r = Run::new();
    r.tb.poke(1, 2, 0, 32, 0x1234_5678);
    let o = r.run(
        "SETENABS\nBSSTORE 4\nSET 0 8\nSET 40 8\nBSWAIT\nBSLOAD 4\nBSWAIT\n",
        1_000_000,
    );
    assert_eq!(o.stop, StopReason::Done);
    assert!(
        r.has_diag("warning", "SET accessed pixel-memory bit 0 (port W")
            && r.has_diag("warning", "during a BSSTORE of sector 4"),
        "{}",
        r.diags()
    );
    // Only the offending SET is reported; SET 40 8 (bits 32+) is legal during a transfer.
    let warned =
        r.tb.sim
            .diagnostics
            .iter()
            .filter(|d| d.level == "warning")
            .count();
    assert_eq!(warned, 1, "{}", r.diags());
    // The transfer was undisturbed and pixel memory was not corrupted.
    assert_eq!(r.tb.sim.board.backing_store.read(4, 1, 2), 0x1234_5678);
    assert_eq!(r.tb.peek(1, 2, 0, 32), 0x1234_5678);
    assert_eq!(r.tb.peek(1, 2, 40, 8), 0xff);
    // After BSWAIT the same command works.
    let mut r = Run::new();
    let o = r.run("SETENABS\nBSSTORE 4\nBSWAIT\nSET 0 8\n", 1_000_000);
    assert_eq!(o.stop, StopReason::Done);
    assert!(!r.tb.sim.diagnostics.iter().any(|d| d.level == "warning"));
    assert_eq!(r.tb.peek(1, 2, 0, 8), 0xff);
}

// -------------------------------------------------------------------------------------------
// The stall detector's edge cases: Ring events it must not mistake for the end of progress,
// and the Ring waits it reports.

#[test]
fn txready_coming_back_between_two_ring_slots_is_not_a_deadlock() {
    // The same streams as above, with TxReady returning at an odd 40 MHz cycle (between two
    // 20 MHz Ring slots). The held message must go out at the next slot.
    let mut false_deadlocks = Vec::new();
    for (port, text) in [
        ("bs", "message bs\nBS_SENDSTATUS 0x1111 0x22\n"),
        (
            "bs",
            "message bs\nBS_RECEIVE 2 0 1 ramp\nBS_TRANSMIT 2 0 1 0x99\n",
        ),
        (
            "igc",
            "SENDSTATUS_S1 0x100 0x77\nSENDSTATUS_S1 0x200 0x78\n",
        ),
    ] {
        for dt in [3000, 3001] {
            let mut r = Run::new();
            let on = r.base + dt;
            let o = r.run(
                &format!(
                    "txready {port} off at={}\ntxready {port} on at={on}\n{text}",
                    r.base
                ),
                1_000_000,
            );
            if o.stop != StopReason::Done {
                false_deadlocks.push(format!(
                    "TxReady {port} back at cycle {on} ({}), `{}`: {}",
                    if on.is_multiple_of(2) {
                        "a Ring slot"
                    } else {
                        "between Ring slots"
                    },
                    text.lines().last().unwrap_or(""),
                    stop_text(&o.stop)
                ));
            }
        }
    }
    assert!(false_deadlocks.is_empty(), "{}", false_deadlocks.join("\n"));
}

#[test]
fn a_message_arriving_later_ahead_of_a_ring_reset_is_delivered_not_a_deadlock() {
    // The reset waits until every earlier message was delivered; the message before it
    // arrives at its time. Neither is a reason to stop.
    for (at, reset) in [
        (2, "reset"),
        (3, "reset"),
        (67, "reset"),
        (67, "reset at=10000"),
    ] {
        let mut r = Run::new();
        let t = r.base + at;
        let o = r.run(
            &format!("message igc at={t}\nSETENABS\nSET 64 4\n{reset}\nmessage igc\nRMODEOFF\nSET 68 4\n"),
            1_000_000,
        );
        assert_eq!(
            o.stop,
            StopReason::Done,
            "message at={t} then `{reset}`: {}",
            stop_text(&o.stop)
        );
        assert_eq!(r.tb.sim.ring.resets_done.len(), 1);
        assert_eq!(r.tb.peek(0, 0, 64, 8), 0xff);
    }
}

#[test]
fn bs_messages_piling_up_behind_a_bs_pbs_wait_on_the_ring() {
    // BS_PBS holds the port; the next messages fill its RxFIFO until RxReady drops (less than
    // half the FIFO free), and the last two stay on the Ring.
    let mut r = Run::new();
    let mut text = String::from("message bs\nBS_PBS\n");
    for s in 0..4 {
        text.push_str(&format!("message bs\nBS_RECEIVE {s} 0 7 fill={s}\n"));
    }
    let o = r.run(&text, 1_000_000);
    let w = r.expect_deadlock(
        &o,
        &[
            ("bs_port", "the BS semaphore to be non-zero (BS_PBS"),
            (
                "ring.bs",
                "RxReady (RxReady is low; 1794 word(s) not delivered)",
            ),
        ],
        2 * 3 * 897 + 40,
    );
    let b = &r.tb.sim.board;
    assert!(!b.bs_rx_ready());
    assert_eq!(b.bs_port.rx.rxfifo.len(), 2 * 897);
    assert_eq!(
        b.bs_port.rx.rxfifo.overruns, 0,
        "RxReady holds the Ring: nothing is lost"
    );
    assert_eq!(b.status() & ERROR_MASK, 0);
    // The Ring wait began when RxReady dropped: after the second RECEIVE message went in,
    // long after the port's own wait began. (The engine reports the earlier of the IGC's and
    // the BS port's state changes, here the end of the microcode boot, before this stream.)
    let dropped = r.base + 2 * (1 + 2 * 897);
    assert!(
        w[1].since >= w[0].since && near(w[1].since, dropped, 8),
        "{}: RxReady dropped at about cycle {dropped}",
        w[1]
    );
}

#[test]
fn over_long_bs_message_is_delivered_to_its_end_even_when_no_error_message_can_go_out() {
    // As above, with TxReady low on the IGC port: the error messages for the lost words
    // cannot go out, so nothing on the board changes while the rest of the message streams
    // in and is lost. The Ring still delivers it (a message, once started, is not held back
    // by RxReady), so the run must not stop before its last word.
    let mut r = Run::new();
    let t = r.base;
    let o = r.run(
        &format!("txready igc off at={t}\nmessage bs oversize\nBS_PBS\nBS_RECEIVE 5 0 20 fill=3\n"),
        1_000_000,
    );
    let total = 2 + 20 * 128u64;
    let b = &r.tb.sim.board;
    assert!(
        matches!(o.stop, StopReason::Deadlock { .. }),
        "{:?}",
        o.stop
    );
    assert_eq!(
        (
            r.tb.sim.ring.bs.pending_words(),
            b.bs_port.rx.rxfifo.overruns
        ),
        (0, total - 1 - RXFIFO_WORDS as u64),
        "words still on the Ring / lost at the stop:\n{}",
        stop_text(&o.stop)
    );
    r.expect_deadlock(
        &o,
        &[
            ("igc_port.tx", "TxReady on the IGC port"),
            ("bs_port", "the BS semaphore to be non-zero (BS_PBS"),
        ],
        2 * total + 40,
    );
}
