//! Random interleavings of both Ring ports (SPEC §5: no input makes the simulator panic, hang
//! or lose data; SPEC §1: "deadlock is possible, and the simulator must detect and report it
//! rather than spin").
//!
//! 1. `random_two_port_streams_stop_and_report_what_they_did`: random IGC commands (transfers,
//!    semaphores, SENDSTATUS, a few ALU commands on bits 32+, INDON/INDOFF, a rare HANG) and BS
//!    commands (all six), random arrival times, TxReady changes, Ring resets and raw garbage
//!    words. Each run must stop by itself; a finished run has delivered everything; a deadlock
//!    names exactly the blocks that wait, and each of them really waits (and stays frozen when
//!    stepped further); error bits come with error messages; the semaphores hold what the V's
//!    and P's performed since the last reset leave; every cycle of every block has one cause.
//! 2. `a_replay_at_other_times_gives_the_full_run_or_says_it_cannot`: the timing study's
//!    replay (docs/rendering.md) of a recorded run, with every arrival time moved, against
//!    the full run at those times.
//! 3. `synchronised_transfers_match_a_plain_reference_model`: BS_RECEIVE, BSLOAD, BSSTORE and
//!    BS_TRANSMIT, synchronised with VBSlater/BS_PBS and BS_VIGC/PIGC as seed §III.4.1-4
//!    describes, against a plain Rust model of 128 sectors and pixel-memory bits 0-31.

use pp5_rtl::backing_store::{SECTORS, SECTOR_WORDS, XFER_BITS};
use pp5_rtl::bs_port::BsState;
use pp5_rtl::emc_array::plane::PLANE_WORDS;
use pp5_rtl::igc::IgcState;
use pp5_rtl::renderer::MsgKind;
use pp5_rtl::ring::PortId;
use pp5_rtl::status::{ERROR_MASK, IGC_TIMEOUT_RING_CYCLES};
use pp5_sim::engine::{CommandRecord, StopReason, Wait};
use pp5_sim::stream::{Port, Stream};
use pp5_testbench::Testbench;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

const TIMEOUT_CYCLES: u64 = 2 * IGC_TIMEOUT_RING_CYCLES;
const BS_SEM_OVERFLOW: u32 = 1 << 24;
const IGC_SEM_OVERFLOW: u32 = 1 << 25;

/// The standard microcode, booted once; every case works on a clone.
fn booted() -> &'static Testbench {
    static TB: OnceLock<Testbench> = OnceLock::new();
    TB.get_or_init(Testbench::standard)
}

// -------------------------------------------------------------------------------------------
// Random two-port streams

/// Sectors the streams use: a few, so that commands meet on the same data.
const SECTOR_CHOICES: [u32; 5] = [0, 1, 2, 3, 127];

#[derive(Clone, Debug)]
enum Igc {
    Load(u32),
    Store(u32),
    Wait,
    Vbs,
    VbsLater,
    Pigc,
    SendStatus(u32, u32),
    Alu(&'static str),
    Hang,
}

#[derive(Clone, Debug)]
enum Bs {
    Noop,
    Pbs,
    Vigc,
    SendStatus(u32, u32),
    Transmit(u32, u32, u32, u32),
    Receive(u32, u32, u32, u32),
}

#[derive(Clone, Debug)]
enum Item {
    IgcMsg(Option<u64>, Vec<Igc>),
    /// Arrival, commands, `oversize` (an over-long message of BS_RECEIVEs, maybe behind a
    /// BS_PBS: seed §III.4.1-3).
    BsMsg(Option<u64>, Vec<Bs>, bool),
    TxReady {
        igc: bool,
        on: bool,
        at: u64,
    },
    Reset(Option<u64>),
    Garbage {
        bs: bool,
        dest: u32,
        words: Vec<u32>,
    },
}

const ALU: [&str; 8] = [
    "SETENABS",
    "SCAIntoMEM_S1 40 8 0x5a",
    "INC 48 40 8",
    "MEMplusMEM 56 40 48 8 8",
    "INDON",
    "INDOFF",
    "NOOP",
    "CLEAR 64 16",
];

fn sector() -> impl Strategy<Value = u32> {
    prop::sample::select(SECTOR_CHOICES.to_vec())
}

/// IGC commands beyond [`ALU`] for the still-cycle exactness property: the QEE (linear and
/// quadratic expressions, a test) and the flow-control unit (GCDSTEPS: IF/ELSE in a counted
/// loop), on bits 64 and up.
const QEE_AND_FLOW: [&str; 5] = [
    "TREEIntoMEM_L3 64 16 0.5 -0.25 3.0",
    "TREEgeZERO_L3 0.75 0.5 -60.0",
    "MEMpluseqTREE_Q6 80 64 12 0.01 -0.02 1.5 0.003 0.001 -2.0",
    "GCDSTEPS 100 64 72",
    "SETENABS",
];

fn igc_cmd_from(alu: &[&'static str]) -> impl Strategy<Value = Igc> {
    prop_oneof![
        2 => sector().prop_map(Igc::Load),
        2 => sector().prop_map(Igc::Store),
        1 => Just(Igc::Wait),
        2 => Just(Igc::Vbs),
        2 => Just(Igc::VbsLater),
        3 => Just(Igc::Pigc),
        1 => (any::<u32>(), 0u32..64).prop_map(|(i, a)| Igc::SendStatus(i, a)),
        3 => prop::sample::select(alu.to_vec()).prop_map(Igc::Alu),
        // Rare: a HANG stops the IGC until a Ring reset.
        1 => (0u32..8).prop_map(|k| if k == 0 { Igc::Hang } else { Igc::Wait }),
    ]
}

fn bs_cmd() -> impl Strategy<Value = Bs> {
    prop_oneof![
        1 => Just(Bs::Noop),
        3 => Just(Bs::Pbs),
        3 => Just(Bs::Vigc),
        1 => (any::<u32>(), 0u32..64).prop_map(|(i, a)| Bs::SendStatus(i, a)),
        2 => (sector(), 0u32..128, 1u32..3, 0u32..64).prop_map(|(s, l, n, a)| Bs::Transmit(s, l, n, a)),
        2 => (sector(), 0u32..128, 1u32..3, any::<u32>()).prop_map(|(s, l, n, v)| Bs::Receive(s, l, n, v)),
    ]
}

/// An arrival time (relative to the start of the stream), or none.
fn arrival() -> impl Strategy<Value = Option<u64>> {
    prop::option::weighted(0.3, 0u64..30_000)
}

/// Raw words for the IGC port: anything but the hardwired RMode commands (CMD 0xF8..0xFB),
/// which could rewrite the microcode store (only such a stream may legitimately run forever).
fn igc_garbage_word() -> impl Strategy<Value = u32> {
    prop_oneof![any::<u32>(), 0u32..64].prop_map(|w| if (w & 0xfc) == 0xf8 { w & !0xff } else { w })
}

fn bs_garbage_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        0u32..16,
        (0u32..6, 0u32..0x2000).prop_map(|(o, f)| o | f << 8)
    ]
}

fn item() -> impl Strategy<Value = Item> {
    item_from(&ALU)
}

fn item_from(alu: &[&'static str]) -> impl Strategy<Value = Item> {
    prop_oneof![
        6 => (arrival(), prop::collection::vec(igc_cmd_from(alu), 1..8)).prop_map(|(a, c)| Item::IgcMsg(a, c)),
        6 => (arrival(), prop::collection::vec(bs_cmd(), 1..6)).prop_map(|(a, c)| Item::BsMsg(a, c, false)),
        // Over-long BS message: maybe a BS_PBS, then 9-12 scanlines of BS_RECEIVE.
        1 => (arrival(), any::<bool>(), sector(), 9u32..13, any::<u32>()).prop_map(|(a, pbs, s, n, v)| {
            let mut c = Vec::new();
            if pbs {
                c.push(Bs::Pbs);
            }
            c.push(Bs::Receive(s, 0, n, v));
            Item::BsMsg(a, c, true)
        }),
        3 => (any::<bool>(), any::<bool>(), 0u64..30_000).prop_map(|(igc, on, at)| Item::TxReady { igc, on, at }),
        1 => prop::option::weighted(0.4, 0u64..30_000).prop_map(Item::Reset),
        1 => any::<u32>().prop_flat_map(|dest| {
            prop_oneof![
                prop::collection::vec(igc_garbage_word(), 1..12)
                    .prop_map(move |words| Item::Garbage { bs: false, dest, words }),
                prop::collection::vec(bs_garbage_word(), 1..12)
                    .prop_map(move |words| Item::Garbage { bs: true, dest, words }),
            ]
        }),
    ]
}

/// What the property needs to know about a rendered stream.
#[derive(Debug, Default)]
struct Shape {
    /// Latest time given anywhere (absolute).
    last_time: u64,
    transfers: u64,
    /// Commands that can keep the IGC waiting (each may cost one IGC timeout).
    blocking: u64,
    resets: u64,
    garbage_words: u64,
    oversize: bool,
}

/// Render the items as a text stream with absolute times from `base`.
fn render(items: &[Item], base: u64) -> (String, Shape) {
    let mut t = String::new();
    let mut sh = Shape::default();
    let time = |sh: &mut Shape, dt: u64| {
        let at = base + dt;
        sh.last_time = sh.last_time.max(at);
        at
    };
    let mut after_reset = false;
    for it in items {
        match it {
            Item::IgcMsg(at, cmds) => {
                t.push_str("message igc");
                if let Some(a) = at {
                    let _ = write!(t, " at={}", time(&mut sh, *a));
                }
                t.push('\n');
                if std::mem::take(&mut after_reset) {
                    t.push_str("RMODEOFF\n");
                }
                for c in cmds {
                    let _ = match c {
                        Igc::Load(s) => writeln!(t, "BSLOAD {s}"),
                        Igc::Store(s) => writeln!(t, "BSSTORE {s}"),
                        Igc::Wait => writeln!(t, "BSWAIT"),
                        Igc::Vbs => writeln!(t, "VBS"),
                        Igc::VbsLater => writeln!(t, "VBSlater"),
                        Igc::Pigc => writeln!(t, "PIGC"),
                        Igc::SendStatus(id, a) => writeln!(t, "SENDSTATUS_S1 {id} {a}"),
                        Igc::Alu(s) => writeln!(t, "{s}"),
                        Igc::Hang => writeln!(t, "HANG"),
                    };
                    match c {
                        Igc::Load(_) | Igc::Store(_) => sh.transfers += 1,
                        Igc::Pigc | Igc::SendStatus(..) | Igc::Hang => sh.blocking += 1,
                        _ => {}
                    }
                }
            }
            Item::BsMsg(at, cmds, oversize) => {
                t.push_str("message bs");
                if *oversize {
                    t.push_str(" oversize");
                    sh.oversize = true;
                }
                if let Some(a) = at {
                    let _ = write!(t, " at={}", time(&mut sh, *a));
                }
                t.push('\n');
                let mut words = 0;
                for c in cmds {
                    let (n, line) = match c {
                        Bs::Noop => (1, "BS_NOOP".to_string()),
                        Bs::Pbs => (1, "BS_PBS".into()),
                        Bs::Vigc => (1, "BS_VIGC".into()),
                        Bs::SendStatus(i, a) => (3, format!("BS_SENDSTATUS {i} {a}")),
                        Bs::Transmit(s, l, n, a) => (2, format!("BS_TRANSMIT {s} {l} {n} {a}")),
                        Bs::Receive(s, l, n, v) => (
                            1 + 128 * *n as usize,
                            format!("BS_RECEIVE {s} {l} {n} fill={v}"),
                        ),
                    };
                    if !*oversize && words + n > 1024 {
                        continue;
                    }
                    words += n;
                    t.push_str(&line);
                    t.push('\n');
                }
            }
            Item::TxReady { igc, on, at } => {
                let at = time(&mut sh, *at);
                let _ = writeln!(
                    t,
                    "txready {} {} at={at}",
                    if *igc { "igc" } else { "bs" },
                    if *on { "on" } else { "off" }
                );
            }
            Item::Reset(at) => {
                sh.resets += 1;
                after_reset = true;
                match at {
                    Some(a) => {
                        let _ = writeln!(t, "reset at={}", time(&mut sh, *a));
                    }
                    None => t.push_str("reset\n"),
                }
            }
            Item::Garbage { bs, dest, words } => {
                let _ = writeln!(t, "message {} dest={dest}", if *bs { "bs" } else { "igc" });
                for w in words {
                    let _ = writeln!(t, "word {w}");
                }
                sh.garbage_words += words.len() as u64;
            }
        }
    }
    (t, sh)
}

/// A cycle cap no legitimate run of the stream can reach: every arrival time, every word at
/// the Ring's rate, every transfer, and an IGC timeout for each command that can keep the IGC
/// waiting (a SENDSTATUS interrupted by the timeout error lets the next one wait again).
fn cap(s: &Stream, sh: &Shape, base: u64) -> u64 {
    let words = s.total_words() as u64;
    (sh.last_time.saturating_sub(base))
        + 4 * words
        + 4200 * (sh.transfers + sh.garbage_words)
        + (sh.blocking + sh.resets + sh.garbage_words + 2) * (TIMEOUT_CYCLES + 2000)
        + 100_000
}

fn count(recs: &[&CommandRecord], name: &str) -> i64 {
    recs.iter().filter(|c| c.name == name).count() as i64
}

/// The invariants of a finished run (see the module documentation).
fn check(tb: &Testbench, stop: &StopReason, text: &str) -> Result<(), TestCaseError> {
    let sim = &tb.sim;
    let b = &sim.board;
    let reset = sim.ring.resets_done.last().copied().unwrap_or(0);
    prop_assert!(
        stop != &StopReason::MaxCycles,
        "the run did not stop by itself"
    );
    prop_assert!(stop != &StopReason::Interrupted);
    match stop {
        StopReason::Done => {
            // Everything delivered and consumed; both ports between commands.
            prop_assert!(sim.ring.igc.is_empty() && sim.ring.bs.is_empty());
            prop_assert_eq!(sim.ring.igc.delivered, sim.ring.igc.total);
            prop_assert_eq!(sim.ring.bs.delivered, sim.ring.bs.total);
            prop_assert!(b.quiescent());
            prop_assert!(b.bs_port.idle());
            prop_assert!(matches!(b.bs_port.state, BsState::Opcode | BsState::Skip));
            prop_assert!(!b.igc_port.messages.pending());
        }
        StopReason::Deadlock { since, waits } => {
            prop_assert!(!waits.is_empty());
            prop_assert!(*since <= b.cycle);
            check_waits(tb, waits)?;
            prop_assert!(
                sim.diagnostics.dropped > 0
                    || waits.iter().all(|w| sim
                        .diagnostics
                        .iter()
                        .any(|d| d.msg == format!("deadlock: {w}"))),
                "a wait without its diagnostic"
            );
            check_frozen(tb)?;
        }
        StopReason::Stuck(why) => {
            prop_assert_eq!(b.igc.state, IgcState::Hang, "{}", why);
            prop_assert!(why.contains("HANG"));
            check_frozen(tb)?;
        }
        _ => {}
    }

    // Error bits come with error messages that carry them (sent since the last reset, or
    // still waiting for TxReady on the IGC port).
    let errors = b.status() & ERROR_MASK;
    let sent: Vec<_> = sim
        .tx
        .iter()
        .filter(|m| m.is_error() && m.start >= reset)
        .collect();
    let waiting = b.igc_port.messages.pending() && !b.tx_ready_igc;
    for bit in 0..32 {
        if errors & (1 << bit) != 0 {
            prop_assert!(
                waiting || sent.iter().any(|m| m.words[2] & (1 << bit) != 0),
                "status bit {} without an error message",
                bit
            );
        }
    }
    for m in &sent {
        prop_assert_eq!(m.words[0], 0, "error messages go to Ring address 0");
        prop_assert_eq!(m.words[2] & ERROR_MASK & !errors, 0, "sticky bits stay set");
    }
    if errors == 0 {
        prop_assert!(sent.is_empty());
    }
    if !text.contains("oversize") {
        prop_assert_eq!(b.bs_port.rx.rxfifo.overruns, 0);
    }
    prop_assert_eq!(b.igc_port.rx.rxfifo.overruns, 0);

    // Semaphores: the V's minus the P's performed since the last Ring reset.
    if errors & (BS_SEM_OVERFLOW | IGC_SEM_OVERFLOW) == 0 && sim.diagnostics.dropped == 0 {
        // IGC commands dispatched after the reset (the first one can only come after
        // RMODEOFF, so `start > reset` excludes one dispatched in the reset's cycle).
        let igc: Vec<&CommandRecord> = sim.commands.iter().filter(|c| c.start > reset).collect();
        let bs: Vec<_> = sim
            .bs_commands
            .iter()
            .filter(|c| c.start >= reset)
            .collect();
        let pigc_waiting = b.igc.state == IgcState::WaitSem;
        if pigc_waiting {
            prop_assert_eq!(igc.last().map(|c| c.name.as_str()), Some("PIGC"));
        }
        let pbs_waiting = b.bs_port.state == BsState::Pbs;
        if pbs_waiting {
            prop_assert_eq!(bs.last().map(|c| c.name.as_str()), Some("BS_PBS"));
        }
        let merged = sim
            .diagnostics
            .iter()
            .filter(|d| {
                d.cycle >= reset
                    && d.msg
                        .starts_with("VBSlater issued while a VBSlater is pending")
            })
            .count() as i64;
        let bs_p = bs.iter().filter(|c| c.name == "BS_PBS").count() as i64 - pbs_waiting as i64;
        let bs_v = bs.iter().filter(|c| c.name == "BS_VIGC").count() as i64;
        let vbs = count(&igc, "VBS") + count(&igc, "VBSlater") - merged;
        let pigc = count(&igc, "PIGC") - pigc_waiting as i64;
        prop_assert!(!b.transfer.vbs_later, "a VBSlater still pending at the end");
        prop_assert_eq!(b.bs_sem.count as i64, vbs - bs_p, "BS semaphore");
        prop_assert_eq!(b.igc_sem.count as i64, bs_v - pigc, "IGC semaphore");
    }

    // Every cycle of every block has exactly one cause; so has every cycle of a command.
    let c = &sim.causes();
    for (name, cc) in [
        ("igc", c.igc),
        ("bs_port", c.bs_port),
        ("transfer", c.transfer),
        ("igc_tx", c.igc_tx),
    ] {
        prop_assert_eq!(cc.total(), b.cycle, "{} cycles by cause", name);
    }
    if let Some((_, done)) = sim.commands.split_last() {
        for r in done {
            prop_assert_eq!(r.causes.total(), r.cycles, "IGC command {:?}", r);
        }
    }
    if let Some((_, done)) = sim.bs_commands.split_last() {
        for r in done {
            prop_assert_eq!(r.causes.total(), r.cycles, "BS command {:?}", r);
        }
    }
    Ok(())
}

/// Each wait names a block that really waits on what it says, and every waiting block is
/// named.
fn check_waits(tb: &Testbench, waits: &[Wait]) -> Result<(), TestCaseError> {
    let sim = &tb.sim;
    let b = &sim.board;
    let has = |block: &str, part: &str| {
        waits
            .iter()
            .any(|w| w.block == block && w.waits_for.contains(part))
    };
    for w in waits {
        prop_assert!(w.since <= b.cycle, "{}", w);
        let ok = match w.block.as_str() {
            "igc" if w.waits_for.contains("IGC semaphore") => {
                b.igc.state == IgcState::WaitSem && b.igc_sem.count == 0
            }
            "igc" if w.waits_for.contains("transmitter") => {
                b.igc.state == IgcState::WaitTx
                    && b.igc_port.messages.pending()
                    && !b.tx_ready_igc
                    && w.waits_for.contains("TxReady on the IGC port is low")
            }
            "igc_port.parser" => b.igc_port.parser.busy() && b.igc_port.rx.rxfifo.is_empty(),
            "igc_port.tx" => b.igc_port.messages.pending() && !b.tx_ready_igc,
            "bs_port" if w.waits_for.contains("BS semaphore") => {
                b.bs_port.state == BsState::Pbs && b.bs_sem.count == 0
            }
            "bs_port" if w.waits_for.starts_with("TxReady on the BS port") => {
                matches!(
                    b.bs_port.state,
                    BsState::StatusSend { .. } | BsState::Transmit { .. }
                ) && !b.tx_ready_bs
            }
            "bs_port" if w.waits_for.starts_with("the rest of") => {
                b.bs_port.rx.rxfifo.is_empty()
                    && matches!(
                        b.bs_port.state,
                        BsState::StatusId
                            | BsState::StatusAddr { .. }
                            | BsState::Receive { .. }
                            | BsState::TransmitAddr { .. }
                    )
            }
            "ring.igc" => {
                sim.ring.igc.pending_words() > 0
                    && (!b.rx_ready() || w.waits_for.starts_with("a Ring reset"))
            }
            "ring.bs" => {
                sim.ring.bs.pending_words() > 0
                    && (!b.bs_rx_ready() || w.waits_for.starts_with("a Ring reset"))
            }
            _ => false,
        };
        prop_assert!(ok, "a wait that does not hold: {}", w);
    }
    // Completeness: every block that waits is reported.
    match b.igc.state {
        IgcState::WaitSem => prop_assert!(has("igc", "IGC semaphore")),
        IgcState::WaitTx => prop_assert!(has("igc", "transmitter")),
        IgcState::Run | IgcState::WaitXfer => {
            prop_assert!(false, "a deadlock with the IGC in {:?}", b.igc.state)
        }
        IgcState::WaitCmd | IgcState::RMode => {
            prop_assert!(!b.llpr.go, "a command waits for an idle IGC");
            if b.igc_port.parser.busy() {
                prop_assert!(has("igc_port.parser", "the rest of a command"));
            }
        }
        IgcState::Hang | IgcState::Fault => prop_assert!(false, "stuck, not deadlocked"),
    }
    if !matches!(b.bs_port.state, BsState::Opcode | BsState::Skip) {
        prop_assert!(has("bs_port", ""), "the BS port waits unreported");
    } else {
        prop_assert!(
            b.bs_port.rx.rxfifo.is_empty(),
            "BS words waiting for an idle port"
        );
    }
    if b.igc_port.messages.pending() && !b.tx_ready_igc {
        prop_assert!(has("igc_port.tx", "TxReady"));
    }
    prop_assert!(!b.transfer.busy());
    if sim.ring.igc.pending_words() > 0 {
        prop_assert!(has("ring.igc", ""));
    }
    if sim.ring.bs.pending_words() > 0 {
        prop_assert!(has("ring.bs", ""));
    }
    Ok(())
}

/// A deadlocked or stuck board stays as it is: stepping on changes nothing.
fn check_frozen(tb: &Testbench) -> Result<(), TestCaseError> {
    let mut sim = tb.sim.clone();
    let key = sim.board.progress_key();
    let sent = sim.tx.len();
    let delivered = sim.input_progress().0;
    for _ in 0..1000 {
        sim.step();
    }
    prop_assert_eq!(
        sim.input_progress().0,
        delivered,
        "Ring words moved after the stop"
    );
    prop_assert_eq!(
        sim.board.progress_key(),
        key,
        "the board moved on after the stop"
    );
    prop_assert_eq!(sim.tx.len(), sent);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_two_port_streams_stop_and_report_what_they_did(
        items in prop::collection::vec(item(), 1..10)
    ) {
        let mut tb = booted().clone();
        let base = tb.sim.board.cycle;
        let (text, shape) = render(&items, base);
        let stream = tb.parse(&text);
        let max = cap(&stream, &shape, base);
        let o = tb.run(&stream, max);
        check(&tb, &o.stop, &text).map_err(|e| {
            TestCaseError::fail(format!("{e}\nstop: {:?}\nstream:\n{text}", o.stop))
        })?;
    }
}

// -------------------------------------------------------------------------------------------
// Still cycles passed at once give what stepping every cycle gives

/// The image `pp5 run` boots (standard, QEE and flow-control microcode), booted once.
fn booted_default() -> &'static Testbench {
    static TB: OnceLock<Testbench> = OnceLock::new();
    TB.get_or_init(|| Testbench::boot(pp5_sim::asm::microcode::default_image()))
}

/// Every signal of the waveform's walk (path, width, value, text), the memories' hash, the
/// IGC timeout's count.
type BoardState = (Vec<(String, u32, u64, String)>, u64, u64);

/// Everything the board holds, as the waveform walks it (every register of every block),
/// with pixel memory, Enable, Carry and the backing store hashed, and the IGC timeout count.
fn board_state(tb: &Testbench) -> BoardState {
    use pp5_rtl::trace::{Recorder, Traced};
    let mut r = Recorder::default();
    tb.sim.trace_view().trace(&mut r);
    let b = &tb.sim.board;
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |w: u64| h = mix(h ^ w);
    for plane in b
        .array
        .mem
        .iter()
        .chain([&*b.array.enable, &*b.array.carry])
    {
        plane.iter().for_each(|&w| eat(w));
    }
    for s in 0..SECTORS {
        for k in 0..SECTOR_WORDS {
            eat(u64::from(b.backing_store.read(s, k % 128, k / 128)));
        }
    }
    (r.signals, h, b.timeout_count)
}

/// Where two boards differ (empty: nowhere), for the failure message.
fn board_diff(a: &Testbench, b: &Testbench) -> String {
    let (sa, ha, ta) = board_state(a);
    let (sb, hb, tb) = board_state(b);
    let mut d: Vec<String> = sa
        .iter()
        .zip(&sb)
        .filter(|(x, y)| x != y)
        .take(8)
        .map(|(x, y)| {
            let show = |s: &(String, u32, u64, String)| match s.3.is_empty() {
                true => format!("{:#x}", s.2),
                false => s.3.clone(),
            };
            format!("{} = {} / {}", x.0, show(x), show(y))
        })
        .collect();
    if sa.len() != sb.len() {
        d.push(format!("{} / {} signals", sa.len(), sb.len()));
    }
    if ha != hb {
        d.push("memories differ".into());
    }
    if ta != tb {
        d.push(format!("timeout count {ta} / {tb}"));
    }
    d.join("; ")
}

/// The records and reports of a run, as text to compare.
fn records(tb: &Testbench) -> String {
    let s = &tb.sim;
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        &*s.commands,
        &*s.bs_commands,
        s.transfers,
        s.causes(),
        &*s.diagnostics,
        s.tx,
        s.input_progress(),
        s.ring.resets_done,
        s.profile,
    )
}

/// The properties that run two or three boards per case: 40 cases, nothing persisted.
fn forty_cases() -> ProptestConfig {
    ProptestConfig {
        cases: 40,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// One to nine items of every kind, ALU, QEE and flow-control commands among them.
fn all_items() -> impl Strategy<Value = Vec<Item>> {
    let commands: Vec<_> = ALU.iter().chain(&QEE_AND_FLOW).copied().collect();
    prop::collection::vec(item_from(&commands), 1..10)
}

proptest! {
    #![proptest_config(forty_cases())]

    /// Random two-port streams of ALU, QEE and flow-control commands, transfers, semaphores,
    /// status messages, arrival times, TxReady changes, Ring resets and garbage, run twice:
    /// stepping every cycle, and passing still cycles at once. At every command boundary
    /// (of the IGC or the BS port) the skipping run's board equals the stepping run's at the
    /// same cycle, register for register, and at the end the stop, the board, every record
    /// and the diagnostics are the same.
    #[test]
    fn still_cycles_passed_at_once_give_what_stepping_gives(
        items in all_items()
    ) {
        let mut a = booted_default().clone();
        let mut b = booted_default().clone();
        a.sim.set_skip_still(false);
        b.sim.set_skip_still(true);
        // With the microcode profile (and its lanes) on: it takes still cycles whole.
        a.sim.enable_profile();
        b.sim.enable_profile();
        let base = a.sim.board.cycle;
        let (text, shape) = render(&items, base);
        let stream = a.parse(&text);
        let limit = base + cap(&stream, &shape, base);
        a.sim.queue_stream(&stream);
        b.sim.queue_stream(&stream);
        let fail = |what: String| TestCaseError::fail(format!("{what}\nstream:\n{text}"));
        let (stop, stop_a) = loop {
            if b.sim.board.cycle >= limit && !b.sim.done() {
                let a_stops = a.sim.board.cycle >= limit && !a.sim.done();
                break (StopReason::MaxCycles, a_stops.then_some(StopReason::MaxCycles));
            }
            let commands = (b.sim.commands.len(), b.sim.bs_commands.len());
            let stop = b.sim.tick();
            if stop.is_none() {
                b.sim.skip_still(limit);
            }
            let mut stop_a = None;
            while a.sim.board.cycle < b.sim.board.cycle && stop_a.is_none() {
                stop_a = a.sim.tick();
            }
            match (stop, stop_a) {
                (Some(s), None) => break (s, a.sim.tick()),
                (Some(s), Some(t)) => break (s, Some(t)),
                (None, Some(t)) => {
                    return Err(fail(format!(
                        "stepping stopped at cycle {} ({t:?}), skipping went on to {}",
                        a.sim.board.cycle, b.sim.board.cycle
                    )))
                }
                (None, None) => {}
            }
            if commands != (b.sim.commands.len(), b.sim.bs_commands.len()) {
                let d = board_diff(&a, &b);
                prop_assert!(d.is_empty(), "boards differ at cycle {} (stepping / skipping): {d}\nstream:\n{text}", b.sim.board.cycle);
            }
        };
        prop_assert_eq!(stop_a, Some(stop), "stops differ\nstream:\n{}", text);
        prop_assert_eq!(a.sim.board.cycle, b.sim.board.cycle);
        let d = board_diff(&a, &b);
        prop_assert!(d.is_empty(), "boards differ at the end (stepping / skipping): {d}\nstream:\n{text}");
        prop_assert_eq!(records(&a), records(&b), "records differ\nstream:\n{}", text);
    }
}

#[test]
fn the_still_cycle_property_passes_cycles() {
    // A stream whose one message waits for its arrival time: the wait is passed at once.
    let mut tb = booted().clone();
    tb.sim.set_skip_still(true);
    let base = tb.sim.board.cycle;
    let text = format!("message igc at={}\nSETENABS\n", base + 50_000);
    let s = tb.parse(&text);
    let o = tb.run(&s, 100_000);
    assert_eq!(o.stop, StopReason::Done);
    assert!(
        tb.sim.still_cycles() > 45_000,
        "{} still cycles",
        tb.sim.still_cycles()
    );
    // A BS_TRANSMIT of 8 scanlines (1,025 words, one every other cycle) while the IGC waits:
    // the BS port's sending is passed at once, all but its last word's cycles.
    let before = tb.sim.still_cycles();
    let s = tb.parse("message bs\nBS_TRANSMIT 1 0 8 3\n");
    let o = tb.run(&s, 100_000);
    assert_eq!(o.stop, StopReason::Done);
    let passed = tb.sim.still_cycles() - before;
    assert!(passed > 1900, "{passed} cycles passed at once");
    // A transfer (4,096 cycles) while the IGC waits for it in BSWAIT, then another while the
    // IGC waits for a command: each passed at once, all but its first and last cycles.
    for text in ["BSSTORE 3\nBSWAIT\n", "BSLOAD 3\n"] {
        let before = tb.sim.still_cycles();
        let s = tb.parse(text);
        let o = tb.run(&s, 100_000);
        assert_eq!(o.stop, StopReason::Done);
        assert!(!tb.sim.board.transfer.busy(), "{text}");
        let passed = tb.sim.still_cycles() - before;
        assert!(passed > 4000, "{text}: {passed} cycles passed at once");
    }
}

// -------------------------------------------------------------------------------------------
// Reference model of the backing store and the transfers

#[derive(Clone, Debug)]
enum Op {
    Receive {
        sector: u32,
        scanline: u32,
        n: u32,
        seed: u32,
    },
    Load(u32),
    Store(u32),
    Transmit {
        sector: u32,
        scanline: u32,
        n: u32,
        ret: u32,
    },
}

impl Op {
    fn on_bs_port(&self) -> bool {
        matches!(self, Op::Receive { .. } | Op::Transmit { .. })
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (sector(), 0u32..128, 1u32..4, any::<u32>())
            .prop_map(|(sector, scanline, n, seed)| Op::Receive { sector, scanline, n, seed }),
        2 => sector().prop_map(Op::Load),
        2 => sector().prop_map(Op::Store),
        2 => (sector(), 0u32..128, 1u32..3, 0u32..0x100)
            .prop_map(|(sector, scanline, n, ret)| Op::Transmit { sector, scanline, n, ret }),
    ]
}

/// A small deterministic generator (SplitMix64).
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn receive_data(seed: u32, n: u32) -> Vec<u32> {
    (0..128 * n as u64)
        .map(|k| mix((seed as u64) << 32 | k) as u32)
        .collect()
}

/// The plain model: 128 sectors of 128×128 words (scanline order, index y·128 + x) and
/// bits 0-31 of every pixel (same order).
struct Model {
    sectors: BTreeMap<u32, Vec<u32>>,
    pixels: Vec<u32>,
    sent: Vec<Vec<u32>>,
}

impl Model {
    fn sector(&mut self, s: u32) -> &mut Vec<u32> {
        self.sectors
            .entry(s)
            .or_insert_with(|| vec![0; SECTOR_WORDS])
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Receive {
                sector,
                scanline,
                n,
                seed,
            } => {
                let data = receive_data(seed, n);
                let sec = self.sector(sector);
                for (k, w) in data.into_iter().enumerate() {
                    let y = (scanline as usize + k / 128) % 128;
                    sec[y * 128 + k % 128] = w;
                }
            }
            Op::Load(s) => {
                let sec = self.sector(s).clone();
                self.pixels.copy_from_slice(&sec);
            }
            Op::Store(s) => {
                let px = self.pixels.clone();
                self.sector(s).copy_from_slice(&px);
            }
            Op::Transmit {
                sector,
                scanline,
                n,
                ret,
            } => {
                let sec = self.sector(sector).clone();
                let mut m = vec![ret];
                for k in 0..128 * n as usize {
                    let y = (scanline as usize + k / 128) % 128;
                    m.push(sec[y * 128 + k % 128]);
                }
                self.sent.push(m);
            }
        }
    }
}

/// The ops as two port streams, handing a token between the ports: after a BS port op
/// BS_VIGC / PIGC, after IGC transfers VBSlater / BS_PBS (seed §III.4.1-4, §III.4.2.5.5).
fn synchronised(tb: &Testbench, ops: &[Op]) -> Stream {
    let mut igc: Vec<(&str, u32)> = Vec::new();
    enum B {
        Cmd(Op),
        Pbs,
        Vigc,
    }
    let mut bs: Vec<B> = Vec::new();
    let mut prev: Option<bool> = None;
    for op in ops {
        let on_bs = op.on_bs_port();
        match (prev, on_bs) {
            (Some(true), false) => {
                bs.push(B::Vigc);
                igc.push(("PIGC", 0));
            }
            (Some(false), true) => {
                igc.push(("VBSlater", 0));
                bs.push(B::Pbs);
            }
            _ => {}
        }
        match *op {
            Op::Load(s) => igc.push(("BSLOAD", s)),
            Op::Store(s) => igc.push(("BSSTORE", s)),
            _ => bs.push(B::Cmd(op.clone())),
        }
        prev = Some(on_bs);
    }
    let mut b = tb.builder();
    for (name, arg) in igc {
        let args: &[u32] = if name.starts_with("BS") { &[arg] } else { &[] };
        b.igc(name, args).expect("IGC command");
    }
    let mut words: Option<usize> = None;
    for c in bs {
        let n = match &c {
            B::Cmd(Op::Receive { n, .. }) => 1 + 128 * *n as usize,
            B::Cmd(Op::Transmit { .. }) => 2,
            _ => 1,
        };
        if words.is_none_or(|w| w + n > 1024) {
            b.message(Port::Bs, false);
            words = Some(0);
        }
        words = words.map(|w| w + n);
        match c {
            B::Pbs => b.bs_pbs(),
            B::Vigc => b.bs_vigc(),
            B::Cmd(Op::Receive {
                sector,
                scanline,
                n,
                seed,
            }) => b.bs_receive(sector, scanline, &receive_data(seed, n)),
            B::Cmd(Op::Transmit {
                sector,
                scanline,
                n,
                ret,
            }) => b.bs_transmit(sector, scanline, n, ret),
            B::Cmd(_) => unreachable!("IGC ops go to the IGC stream"),
        }
        .expect("BS command");
    }
    b.finish()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn synchronised_transfers_match_a_plain_reference_model(
        ops in prop::collection::vec(op(), 1..9),
        seed in any::<u64>(),
    ) {
        let mut tb = booted().clone();
        // Random starting contents: pixel bits 0-31 (and one bit above, which no transfer
        // may touch) and the sectors in use.
        let mem = &mut tb.sim.board.array.mem;
        for (b, plane) in mem.iter_mut().take(XFER_BITS + 1).enumerate() {
            for (w, word) in plane.iter_mut().enumerate() {
                *word = mix(seed ^ (b * PLANE_WORDS + w) as u64);
            }
        }
        let mut model = Model {
            sectors: BTreeMap::new(),
            pixels: vec![0; SECTOR_WORDS],
            sent: Vec::new(),
        };
        for (k, &s) in SECTOR_CHOICES.iter().enumerate() {
            let data: Vec<u32> = (0..SECTOR_WORDS as u64)
                .map(|i| mix(seed.rotate_left(17) ^ (k as u64) << 40 ^ i) as u32)
                .collect();
            tb.sim.board.backing_store.sector_mut(s as usize).copy_from_slice(&data);
            model.sectors.insert(s, data);
        }
        for y in 0..128 {
            for x in 0..128 {
                model.pixels[y * 128 + x] = tb.peek(x, y, 0, 32) as u32;
            }
        }
        let bit32: Vec<u64> = (0..128).map(|y| tb.peek(y, 127 - y, 32, 1)).collect();
        let stream = synchronised(&tb, &ops);
        let o = tb.run(&stream, 2_000_000);
        prop_assert_eq!(&o.stop, &StopReason::Done, "{:?}", tb.sim.diagnostics);
        for op in &ops {
            model.apply(op);
        }
        let b = &tb.sim.board;
        prop_assert_eq!(b.status() & ERROR_MASK, 0);
        prop_assert!(tb.sim.diagnostics.iter().all(|d| d.level == "note"), "{:?}", tb.sim.diagnostics);
        prop_assert_eq!((b.bs_sem.count, b.igc_sem.count), (0, 0));
        for s in 0..SECTORS as u32 {
            let want = model.sectors.get(&s).map_or(&[0u32; 0][..], |v| &v[..]);
            let got = b.backing_store.sector(s as usize);
            if want.is_empty() {
                prop_assert!(got.iter().all(|&w| w == 0), "sector {} was touched", s);
            } else {
                let bad = (0..SECTOR_WORDS).find(|&i| got[i] != want[i]);
                prop_assert!(bad.is_none(), "sector {} differs at word {:?}", s, bad);
            }
        }
        for y in 0..128 {
            for x in 0..128 {
                prop_assert_eq!(
                    tb.peek(x, y, 0, 32) as u32,
                    model.pixels[y * 128 + x],
                    "pixel ({}, {}) bits 0-31", x, y
                );
            }
        }
        let after: Vec<u64> = (0..128).map(|y| tb.peek(y, 127 - y, 32, 1)).collect();
        prop_assert_eq!(after, bit32, "bit 32 is not part of a transfer");
        let sent: Vec<&Vec<u32>> = tb
            .sim
            .tx
            .iter()
            .filter(|m| m.port == PortId::Bs && m.kind == MsgKind::Data)
            .map(|m| &m.words)
            .collect();
        prop_assert_eq!(sent.len(), model.sent.len());
        for (k, (got, want)) in sent.iter().zip(&model.sent).enumerate() {
            prop_assert!(*got == want, "transmitted message {} differs", k);
        }
    }
}

// -------------------------------------------------------------------------------------------
// A run replayed from another run of the same commands at other times (issue 36: the timing
// study's replay, docs/rendering.md "Which rows are simulated, which derived")

/// What a replay must give as a full run does: every record and report, the outgoing
/// messages' times and lengths (a replay does not keep pixels, so the BS port's data words
/// are not compared; the IGC port's status and error messages are), the board's control
/// state.
fn timing_records(tb: &Testbench) -> String {
    let s = &tb.sim;
    let b = &s.board;
    let tx: Vec<_> =
        s.tx.iter()
            .map(|m| {
                let words = (m.port == PortId::Igc).then(|| m.words.clone());
                (m.port, m.kind, m.start, m.end, m.words.len(), words)
            })
            .collect();
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{tx:?}\n{:?}\n{:?}\n{:?}\ncycle {} status {:#x} timeout {} key {:?}",
        &*s.commands,
        &*s.bs_commands,
        s.transfers,
        s.causes(),
        &*s.diagnostics,
        s.input_progress(),
        s.ring.resets_done,
        s.profile,
        b.cycle,
        b.status(),
        b.timeout_count,
        &b.progress_key()[..10],
    )
}

proptest! {
    #![proptest_config(forty_cases())]

    /// Random two-port streams (ALU, QEE and flow-control commands, transfers, semaphores,
    /// status messages, TxReady changes, Ring resets, garbage) recorded, then run again
    /// with every arrival time moved: replaying the record gives what running in full gives
    /// (the records, the messages' times, the control state), or says it is not the
    /// recorded run.
    #[test]
    fn a_replay_at_other_times_gives_the_full_run_or_says_it_cannot(
        items in all_items(),
        shift in 1u64..5_000,
    ) {
        let booted = booted_default();
        let base = booted.sim.board.cycle;
        let run = |shift: u64, tap: &dyn Fn(&mut Testbench)| {
            let mut tb = booted.clone();
            tap(&mut tb);
            let (text, shape) = render(&items, base + shift);
            let stream = tb.parse(&text);
            let o = tb.run(&stream, cap(&stream, &shape, base) + shift);
            (tb, o.stop, text)
        };
        let (mut recorded, _, _) = run(0, &|tb| tb.sim.board.record_data());
        let Some(log) = recorded.sim.board.take_data_log().filter(|l| l.replayable()) else {
            return Ok(());
        };
        let log = std::sync::Arc::new(log);
        let (full, full_stop, text) = run(shift, &|_| {});
        let (replayed, stop, _) = run(shift, &|tb| tb.sim.board.replay_data(log.clone()));
        if replayed.sim.board.replay_error(true).is_some() {
            return Ok(());
        }
        prop_assert_eq!(&stop, &full_stop, "stops differ\nstream:\n{}", text);
        prop_assert_eq!(timing_records(&replayed), timing_records(&full), "replay / full\nstream:\n{}", text);
    }
}
