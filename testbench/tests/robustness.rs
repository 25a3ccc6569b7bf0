//! No input makes the simulator panic, hang or lose data (SPEC §5): random word streams,
//! random microcode, over-length messages, a hung IGC, malformed microcode sources and
//! malformed stream and image files. Errors are the hardware's error bits plus diagnostics.

use pp5_rtl::igc::opcode::{COEFMODE_SHIFT, FBITS_SHIFT, FBLD_BIT, LONG_BIT, QEEMODE_SHIFT};
use pp5_rtl::igc::store::{CONTROL_STORE_UINSTS, DISPATCH_BASE, DISPATCH_VALID, STORE_WORDS};
use pp5_rtl::igc::IgcState;
use pp5_rtl::igc_port::rxfifo::RXFIFO_WORDS;
use pp5_rtl::status::{ERROR_MASK, IGC_TIMEOUT_RING_CYCLES};
use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::engine::{RingMessage, StopReason};
use pp5_sim::session::{RunError, RunSpec};
use pp5_sim::stream::{binary, Message, Port, Stream};
use pp5_testbench::support;
use pp5_testbench::Testbench;
use proptest::prelude::*;
use std::sync::OnceLock;

const RXFIFO_OVERWRITTEN: u32 = 1 << 27;
const FORMAT_ERROR: u32 = 1 << 29;
const TIMEOUT: u32 = 1 << 30;

/// The standard microcode, booted once; every test case works on a clone.
fn booted() -> &'static Testbench {
    static TB: OnceLock<Testbench> = OnceLock::new();
    TB.get_or_init(Testbench::standard)
}

fn igc_message(dest: u32, body: Vec<u32>) -> Message {
    Message::new(Port::Igc, dest, body)
}

/// Opcode words of the standard table (HANG left out: it is rare in the raw arm), with random
/// P bit, CoefMode, QEEMode, F0 and sometimes an FBITS load.
fn opcode_word() -> impl Strategy<Value = u32> {
    let cmds: Vec<u8> = booted()
        .image
        .table
        .commands
        .iter()
        .filter(|c| c.name != "HANG")
        .map(|c| c.cmd)
        .collect();
    (
        prop::sample::select(cmds),
        any::<bool>(),
        0u32..4,
        0u32..4,
        0u32..1024,
        prop::option::weighted(0.1, 0u32..256),
    )
        .prop_map(|(cmd, long, coef, qee, f0, fbits)| {
            let mut w = cmd as u32
                | (long as u32) << 31
                | coef << COEFMODE_SHIFT
                | qee << QEEMODE_SHIFT
                | f0 << 8;
            if let Some(n) = fbits {
                w |= FBLD_BIT | (n & 0xff) << FBITS_SHIFT;
            }
            w
        })
}

fn stream_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => any::<u32>(),
        2 => 0u32..256,
        1 => Just(LONG_BIT | 7),
        5 => opcode_word(),
    ]
}

fn random_stream() -> impl Strategy<Value = Stream> {
    prop::collection::vec(
        (any::<u32>(), prop::collection::vec(stream_word(), 0..60)),
        1..12,
    )
    .prop_map(|msgs| Stream {
        events: Vec::new(),
        messages: msgs.into_iter().map(|(d, b)| igc_message(d, b)).collect(),
    })
}

/// The invariants of any finished run on `tb` (booted with `boot_writes` store writes).
fn check_run(tb: &Testbench, stop: &StopReason, boot_writes: u64) -> Result<(), TestCaseError> {
    let b = &tb.sim.board;
    match stop {
        StopReason::Done => {
            // Every word delivered was read by the parser or lost to a full FIFO.
            prop_assert!(b.igc_port.rx.rxfifo.is_empty());
            prop_assert_eq!(
                b.igc_port.parser.words_read + b.igc_port.rx.rxfifo.overruns,
                tb.sim.ring.igc.delivered
            );
            prop_assert!(tb.sim.ring.igc.is_empty());
        }
        StopReason::Deadlock { waits, since } => {
            // Every deadlock is reported as one: who waits on what, since a cycle that
            // has passed.
            prop_assert!(!waits.is_empty());
            prop_assert!(waits
                .iter()
                .all(|w| w.since <= b.cycle && *since <= b.cycle));
            // (unless the diagnostics overflowed their cap before it)
            prop_assert!(
                tb.sim.diagnostics.dropped > 0
                    || tb
                        .sim
                        .diagnostics
                        .iter()
                        .any(|d| d.msg.starts_with("deadlock: "))
            );
        }
        StopReason::Stuck(why) => {
            prop_assert!(b.igc.stuck(), "{}", why);
            if b.igc.state == IgcState::Fault {
                prop_assert!(
                    tb.sim
                        .diagnostics
                        .iter()
                        .any(|d| d.level == "fault" && d.msg.contains("illegal microinstruction")),
                    "a fault has a diagnostic: {:?}",
                    tb.sim.diagnostics
                );
            }
        }
        // Only microcode rewritten by the stream can loop forever.
        StopReason::MaxCycles => prop_assert!(
            b.igc.store.writes > boot_writes,
            "cycle limit without a microcode change: IGC {:?} at PC {}",
            b.igc.state,
            b.igc.pc
        ),
        StopReason::Interrupted => prop_assert!(false, "interrupted"),
        StopReason::Breakpoint(what) => prop_assert!(false, "breakpoint without one set: {}", what),
    }
    // Error bits come with error messages that carry them.
    let errors = tb.status() & ERROR_MASK;
    prop_assert_eq!(errors & !(RXFIFO_OVERWRITTEN | FORMAT_ERROR | TIMEOUT), 0);
    for bit in 24..31 {
        if errors & (1 << bit) != 0 {
            prop_assert!(
                tb.sim
                    .tx
                    .iter()
                    .any(|m| m.is_error() && m.words[0] == 0 && m.words[2] & (1 << bit) != 0),
                "bit {} without an error message",
                bit
            );
        }
    }
    if errors == 0 {
        prop_assert!(tb.sim.tx.iter().all(|m| !m.is_error()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_word_streams_never_panic_and_stop(stream in random_stream()) {
        let mut tb = booted().clone();
        let boot_writes = tb.sim.board.igc.store.writes;
        let o = tb.run(&stream, 2_000_000);
        check_run(&tb, &o.stop, boot_writes)?;
    }
}

/// A random microinstruction: mostly with the reserved fields cleared (so some of them are
/// legal and run), sometimes raw.
fn uinst() -> impl Strategy<Value = [u32; 4]> {
    (any::<[u32; 4]>(), any::<bool>(), 0u32..9).prop_map(|(mut w, raw, seq)| {
        if !raw {
            w[0] &= 0x1fff_ffff; // QEE_OP
            w[1] &= 0x001f_ffff; // FC_BOOL, FC_CONST, reserved
            w[2] = (w[2] & !0x800f) | seq; // reserved bit, SEQ 0..=8
            w[3] = 0;
        }
        w
    })
}

/// A microinstruction address: mostly inside the standard routines (so the commands run
/// into the random words), sometimes anywhere.
fn upc() -> impl Strategy<Value = u32> {
    let used = booted().image.uinsts;
    prop_oneof![3 => 0..used, 1 => 0..CONTROL_STORE_UINSTS as u32]
}

/// A random microcode image over the standard one: microinstructions at random addresses
/// and dispatch entries for random commands.
fn random_image() -> impl Strategy<Value = Vec<(u32, u32)>> {
    (
        prop::collection::vec((upc(), uinst()), 1..24),
        prop::collection::vec((0u32..64, upc(), any::<bool>()), 0..12),
    )
        .prop_map(|(us, ds)| {
            let mut words = Vec::new();
            for (pc, w) in us {
                for (k, v) in w.iter().enumerate() {
                    words.push((4 * pc + k as u32, *v));
                }
            }
            for (cmd, entry, valid) in ds {
                let v = if valid { DISPATCH_VALID | entry } else { entry };
                words.push((DISPATCH_BASE as u32 + cmd, v));
            }
            words
        })
}

/// The commands the microcode-run fuzz target runs after a reload.
use pp5_testbench::fuzz::microcode_run::COMMANDS as SOME_COMMANDS;

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_microcode_never_panics(
        words in random_image(),
        cmds in prop::collection::vec(prop::sample::select(SOME_COMMANDS.to_vec()), 1..12),
    ) {
        let mut tb = booted().clone();
        let boot_writes = tb.sim.board.igc.store.writes;
        // An on-the-fly reload through the stream: NOOP NOOP RMODEON MCWRITE... NOOP RMODEOFF.
        let image = McImage { words: words.clone(), ..tb.image.clone() };
        for body in image.boot_messages(1023) {
            tb.sim.queue(RingMessage { dest: 0, body });
        }
        let text: String = cmds.iter().map(|c| format!("{c}\n")).collect();
        let stream = tb.parse(&text);
        let o = tb.run(&stream, 300_000);
        check_run(&tb, &o.stop, boot_writes)?;
        // The reload itself always completes (RMode runs no microcode): every word written.
        prop_assert_eq!(tb.sim.board.igc.store.writes, boot_writes + words.len() as u64);
    }
}

/// The entry address of `name` in the standard image.
fn label(tb: &Testbench, name: &str) -> u32 {
    tb.image
        .labels
        .iter()
        .find(|l| l.0 == name)
        .map(|l| l.1)
        .unwrap_or_else(|| panic!("no label {name}"))
}

#[test]
fn illegal_microinstruction_faults_with_a_diagnostic_and_stops() {
    let mut tb = booted().clone();
    let clear = label(&tb, "clear");
    // Put a W3 word without the FC flag (illegal) into CLEAR's first microinstruction.
    let o = tb.run_text(&format!(
        "NOOP\nNOOP\nRMODEON\nMCWRITE {} 1\nNOOP\nRMODEOFF\nSETENABS\nCLEAR 0 8\nSET 0 8\n",
        4 * clear + 3
    ));
    assert!(matches!(o.stop, StopReason::Stuck(_)), "{:?}", o.stop);
    assert_eq!(tb.sim.board.igc.state, IgcState::Fault);
    assert_eq!(tb.sim.board.igc.pc, clear as u16);
    let faults: Vec<_> = tb
        .sim
        .diagnostics
        .iter()
        .filter(|d| d.level == "fault")
        .collect();
    assert_eq!(faults.len(), 1, "{:?}", tb.sim.diagnostics);
    assert_eq!(
        faults[0].msg,
        format!(
            "IGC stopped on an illegal microinstruction at clear (PC {clear:#05x}): FC = 1 is set without the FC flag (bit 31)"
        )
    );
    // SET never ran; CLEAR never wrote.
    let names: Vec<&str> = o.command_cycles.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["NOOP", "NOOP", "SETENABS", "CLEAR"]);
    // The same through the session (the CLI's path): the run stops, it does not spin.
    let img = microcode::standard();
    let stream = tb.parse(&format!(
        "NOOP\nNOOP\nRMODEON\nMCWRITE {} 1\nNOOP\nRMODEOFF\nCLEAR 0 8\n",
        4 * clear + 3
    ));
    let r = support::run(support::spec(&img, &stream)).expect("run");
    match &r.stop {
        StopReason::Stuck(why) => assert!(why.contains("illegal microinstruction"), "{why}"),
        s => panic!("{s:?}"),
    }
    assert!(
        r.sim.board.cycle < 10_000,
        "stopped at once: {}",
        r.sim.board.cycle
    );
}

#[test]
fn ring_reset_recovers_a_faulted_igc() {
    let mut tb = booted().clone();
    let clear = label(&tb, "clear");
    tb.run_text(&format!(
        "NOOP\nNOOP\nRMODEON\nMCWRITE {} 1\nNOOP\nRMODEOFF\nCLEAR 0 8\n",
        4 * clear + 3
    ));
    assert_eq!(tb.sim.board.igc.state, IgcState::Fault);
    // RMODEON does not help: the faulted IGC takes no command at all.
    let s = tb.parse("RMODEON\n");
    for m in &s.messages {
        tb.sim.queue(RingMessage {
            dest: m.dest,
            body: m.body.clone(),
        });
    }
    step_until(&mut tb, 100, |_| false);
    assert_eq!(tb.sim.board.igc.state, IgcState::Fault);
    assert!(tb.sim.board.llpr.go, "RMODEON waits in the LLPR");
    tb.sim.board.ring_reset();
    assert_eq!(tb.sim.board.igc.state, IgcState::RMode, "Ring reset: RMode");
    // Reload the standard microcode (the store survives a Ring reset; rewrite it anyway).
    let image = microcode::standard();
    for body in image.boot_messages(1023) {
        tb.sim.queue(RingMessage { dest: 0, body });
    }
    let o = tb.run_text("SETENABS\nSET 0 8\nCLEAR 0 4\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_eq!(tb.peek(1, 2, 0, 8), 0xf0);
}

/// Step `tb` one cycle at a time (the Testbench's `run` stops as soon as the IGC is stuck).
fn step_until(tb: &mut Testbench, max: u64, mut stop: impl FnMut(&Testbench) -> bool) -> u64 {
    for _ in 0..max {
        tb.sim.step();
        if stop(tb) {
            break;
        }
    }
    tb.sim.board.cycle
}

#[test]
fn over_length_message_behind_a_hang_overwrites_the_rxfifo() {
    let mut tb = booted().clone();
    let read0 = tb.sim.board.igc_port.parser.words_read;
    let noops = 2100usize;
    let text = format!(
        "message\nHANG\nmessage oversize\n{}",
        "NOOP\n".repeat(noops)
    );
    let stream = tb.parse(&text);
    assert_eq!(stream.messages[1].len_words(), noops + 1);
    for m in &stream.messages {
        tb.sim.queue(RingMessage {
            dest: m.dest,
            body: m.body.clone(),
        });
    }
    let start = tb.sim.board.cycle;
    let end = step_until(&mut tb, 10_000, |tb| tb.sim.ring.igc.is_empty());
    let b = &tb.sim.board;
    assert_eq!(b.igc.state, IgcState::Hang);
    assert!(end - start <= 2 * (noops as u64 + 3), "{}", end - start);
    // The parser read the HANG message, the destination and two NOOPs (one in the LLPR, one
    // held); the FIFO filled up and the rest was lost.
    let read = b.igc_port.parser.words_read - read0;
    assert_eq!(read, 2 + 3);
    assert!(b.igc_port.parser.held());
    assert_eq!(b.igc_port.rx.rxfifo.len(), RXFIFO_WORDS);
    let lost = (noops as u64 + 1) - 3 - RXFIFO_WORDS as u64;
    assert_eq!(b.igc_port.rx.rxfifo.overruns, lost);
    assert_ne!(tb.status() & RXFIFO_OVERWRITTEN, 0, "status bit 27");
    let msgs: Vec<_> = tb.sim.tx.iter().filter(|m| m.is_error()).collect();
    assert!(!msgs.is_empty() && msgs.len() as u64 <= lost);
    assert!(msgs
        .iter()
        .all(|m| m.words[0] == 0 && m.words[2] & RXFIFO_OVERWRITTEN != 0));
    assert!(tb
        .sim
        .diagnostics
        .iter()
        .any(|d| d.level == "error" && d.msg.contains("status bit 27")));
}

#[test]
fn over_length_message_while_the_igc_is_slow_overwrites_the_rxfifo() {
    // No HANG: 40 CPYs of 128 bits (129 cycles each, 5160 in all) keep the IGC busy while one
    // oversize message of 2600 words streams in at 20 MHz (5200 cycles). The parser stalls on
    // the held command, the FIFO fills up, and words are lost.
    const CPYS: usize = 40;
    const WORDS: usize = 2600;
    let noops = WORDS - 1 - 1 - 2 * CPYS;
    let body = |tb: &Testbench| {
        let mut text = String::from("SETENABS\n");
        text.push_str(&"CPY 0 64 128\n".repeat(CPYS));
        text.push_str(&"NOOP\n".repeat(noops));
        let _ = tb;
        text
    };
    let mut tb = booted().clone();
    let stream = tb.parse(&format!("message oversize\n{}", body(&tb)));
    assert_eq!(stream.messages.len(), 1);
    assert_eq!(stream.messages[0].len_words(), WORDS);
    let o = tb.run(&stream, 1_000_000);
    assert_eq!(o.stop, StopReason::Done);
    let b = &tb.sim.board;
    let lost = b.igc_port.rx.rxfifo.overruns;
    assert!(lost > 0);
    assert_eq!(b.igc_port.rx.rxfifo.max_level, RXFIFO_WORDS);
    assert_ne!(tb.status() & RXFIFO_OVERWRITTEN, 0);
    // Every CPY ran; of the NOOPs, exactly the lost ones are missing.
    let count = |name: &str| o.command_cycles.iter().filter(|c| c.0 == name).count() as u64;
    assert_eq!(count("CPY"), CPYS as u64);
    assert_eq!(count("NOOP") + lost, noops as u64);
    // The same commands in messages of legal size lose nothing: RxReady holds the Ring.
    let mut tb = booted().clone();
    let stream = tb.parse(&body(&tb));
    assert!(stream.messages.len() >= 3);
    let o = tb.run(&stream, 1_000_000);
    assert_eq!(o.stop, StopReason::Done);
    assert_eq!(tb.sim.board.igc_port.rx.rxfifo.overruns, 0);
    assert_eq!(tb.status() & ERROR_MASK, 0);
    assert_eq!(
        o.command_cycles.iter().filter(|c| c.0 == "NOOP").count(),
        noops
    );
}

#[test]
fn hang_with_a_command_waiting_times_out_after_64k_ring_cycles() {
    let mut tb = booted().clone();
    let stream = tb.parse("HANG\nNOOP\nNOOP\n");
    for m in &stream.messages {
        tb.sim.queue(RingMessage {
            dest: m.dest,
            body: m.body.clone(),
        });
    }
    let mut t_go = None;
    let end = step_until(&mut tb, 300_000, |tb| {
        let b = &tb.sim.board;
        if t_go.is_none() && b.igc.state == IgcState::Hang && b.llpr.go {
            t_go = Some(b.cycle - 1);
        }
        b.status() & TIMEOUT != 0
    });
    let t_go = t_go.expect("a command waits behind the HANG");
    let t30 = end - 1; // the cycle whose step set the bit
    let waited = t30 - t_go;
    let nominal = IGC_TIMEOUT_RING_CYCLES * 2;
    assert!(
        waited.abs_diff(nominal) <= 2,
        "timeout after {waited} 40 MHz cycles, expected {nominal}"
    );
    // The error message goes out over the next 20 MHz slots (three words).
    step_until(&mut tb, 8, |_| false);
    let msgs: Vec<_> = tb.sim.tx.iter().filter(|m| m.is_error()).collect();
    assert_eq!(msgs.len(), 1);
    assert!(
        msgs[0].start == t30 || msgs[0].start == t30 + 1,
        "{}",
        msgs[0].start
    );
    assert_ne!(msgs[0].words[2] & TIMEOUT, 0);
    assert!(tb
        .sim
        .diagnostics
        .iter()
        .any(|d| d.level == "error" && d.msg.contains("status bit 30")));
    // It fires once: the bit is sticky and no second message follows.
    step_until(&mut tb, 10_000, |_| false);
    assert_eq!(tb.sim.tx.iter().filter(|m| m.is_error()).count(), 1);
}

#[test]
fn hang_without_a_command_waiting_never_times_out() {
    let mut tb = booted().clone();
    let stream = tb.parse("HANG\n");
    let o = tb.run(&stream, 1000);
    assert!(matches!(o.stop, StopReason::Stuck(_)));
    step_until(&mut tb, 2 * IGC_TIMEOUT_RING_CYCLES + 1000, |_| false);
    assert_eq!(tb.status() & TIMEOUT, 0);
    // An idle IGC (no HANG) with an empty FIFO does not time out either.
    let mut tb = booted().clone();
    step_until(&mut tb, 2 * IGC_TIMEOUT_RING_CYCLES + 1000, |_| false);
    assert_eq!(tb.status() & ERROR_MASK, 0);
}

#[test]
fn session_reports_the_timeout_of_a_command_that_arrives_late_behind_a_hang() {
    // The IGC hangs; a flushed message (AEO asserted) delays the next command by ~2000
    // cycles. The run must still wait for the IGC timeout of that command and report it.
    let img = microcode::standard();
    let text = format!(
        "message\nCLRENABS\nNOOP\nNOOP\nNOOP\nNOOP\nHANG\nmessage flush\n{}message\nNOOP\n",
        "NOOP\n".repeat(1000)
    );
    let stream = pp5_sim::stream::text::parse(&text, "t", &img.table).expect("parse");
    let r = support::run(support::spec(&img, &stream)).expect("run");
    assert!(matches!(r.stop, StopReason::Stuck(_)), "{:?}", r.stop);
    assert_ne!(r.sim.board.status() & TIMEOUT, 0, "status bit 30");
    assert!(r
        .sim
        .tx
        .iter()
        .any(|m| m.is_error() && m.words[2] & TIMEOUT != 0));
}

#[test]
fn session_stops_a_hang_with_nothing_waiting_at_once() {
    let img = microcode::standard();
    let stream = pp5_sim::stream::text::parse("SETENABS\nHANG\n", "t", &img.table).expect("parse");
    let r = support::run(support::spec(&img, &stream)).expect("run");
    match &r.stop {
        StopReason::Stuck(why) => assert!(why.contains("HANG"), "{why}"),
        s => panic!("{s:?}"),
    }
    let boot = r.sim.commands.boot_end.expect("booted");
    assert!(
        r.sim.board.cycle < boot + 20,
        "{} vs boot {boot}",
        r.sim.board.cycle
    );
    assert_eq!(r.sim.board.status() & ERROR_MASK, 0);
}

// ---------------------------------------------------------------------------------------------
// Malformed microcode source

/// The errors of assembling `src`, as (line, message).
fn asm_errors(src: &str) -> Vec<(usize, String)> {
    match microcode::assemble(src, "bad.pp5uc") {
        Ok(_) => panic!("assembled:\n{src}"),
        Err(e) => {
            for x in &e.errors {
                assert_eq!(x.file, "bad.pp5uc");
                assert!(e.to_string().contains(&format!("bad.pp5uc:{}: ", x.line)));
            }
            e.errors.into_iter().map(|x| (x.line, x.msg)).collect()
        }
    }
}

const GOOD_HEAD: &str = "\
; a small microcode
.command NOOP() -> noop
.command CLEAR(dst:addr(dlen), dlen:len) -> clear
idle: dispatch
noop: dispatch
clear: i=0 l=dlen
clear_l: r=0 w=mem[dst+i] i++ loopd clear_l
";

#[test]
fn the_good_head_assembles() {
    let img = microcode::assemble(GOOD_HEAD, "good.pp5uc").expect("assembles");
    assert_eq!(img.uinsts, 4);
}

#[test]
fn unknown_field_is_reported_at_its_line() {
    let e = asm_errors(&format!("{GOOD_HEAD}\nfoo: a=mem[0] bogus dispatch\n"));
    assert_eq!(
        e,
        [(9, "unknown microinstruction field `bogus`".to_string())]
    );
    let e = asm_errors(&format!("{GOOD_HEAD}x: q=1 dispatch\n"));
    assert_eq!(e, [(8, "unknown microinstruction field `q=1`".to_string())]);
}

#[test]
fn bad_label_is_reported_at_its_line() {
    let e = asm_errors(&format!("{GOOD_HEAD}x: jump nowhere\n"));
    assert_eq!(e, [(8, "unknown label `nowhere`".to_string())]);
    let e = asm_errors(&format!("{GOOD_HEAD}noop: dispatch\n"));
    assert_eq!(e, [(8, "label `noop` defined twice".to_string())]);
    let e = asm_errors(&format!("{GOOD_HEAD}dangling:\n"));
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].0, 8);
    assert!(
        e[0].1.contains("not followed by a microinstruction"),
        "{e:?}"
    );
    let e = asm_errors(&format!(".command X() -> missing\n{GOOD_HEAD}"));
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].0, 1);
    assert!(e[0].1.contains("entry label `missing`"), "{e:?}");
}

#[test]
fn bad_expression_is_reported_at_its_line() {
    for (bad, what) in [
        ("r=a&&b", "r"),
        ("r=(a|b", "r"),
        ("c=maj(a,b)", "c"),
        ("e=e&q", "e"),
        ("r=", "r"),
    ] {
        let e = asm_errors(&format!("{GOOD_HEAD}\n\nx: {bad} dispatch\n"));
        assert_eq!(e.len(), 1, "{bad}: {e:?}");
        assert_eq!(e[0].0, 10, "{bad} ({what}): {e:?}");
    }
    // An address expression with a bad index, and an argument that does not exist.
    let e = asm_errors(&format!("{GOOD_HEAD}x: a=mem[dst+j] dispatch\n"));
    assert_eq!(e, [(8, "index `j` must be `i`, `ri` or `al`".to_string())]);
    let e = asm_errors(&format!("{GOOD_HEAD}x: a=mem[src+i] dispatch\n"));
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].0, 8);
    assert!(
        e[0].1.contains("`src` is not an argument of CLEAR"),
        "{e:?}"
    );
}

#[test]
fn too_many_arguments_is_reported_at_its_line() {
    let e = asm_errors(&format!(
        "{GOOD_HEAD}.command BIG(a:addr, b:addr, c:addr, d:addr, e:len, f:len) -> noop\n"
    ));
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, 8);
    assert!(e[0].1.contains("at most 5 operand arguments"), "{e:?}");
    let e = asm_errors(&format!("{GOOD_HEAD}.command K(a:weird) -> noop\n"));
    assert_eq!(e[0].0, 8);
    assert!(e[0].1.contains("unknown argument kind `weird`"), "{e:?}");
    let e = asm_errors(&format!("{GOOD_HEAD}.command K(a:addr) cmd=0xf9 -> noop\n"));
    assert!(e[0].1.contains("reserved for hardwired commands"), "{e:?}");
    let e = asm_errors(&format!("{GOOD_HEAD}.macro\n"));
    assert_eq!(e, [(8, "unknown directive `.macro`".to_string())]);
}

#[test]
fn several_errors_are_all_reported_in_line_order() {
    let src = format!("{GOOD_HEAD}a: jump nowhere\nb: bogus\n.command NOOP() -> noop\nc: r=a&&b\n");
    let lines: Vec<usize> = asm_errors(&src).into_iter().map(|e| e.0).collect();
    assert_eq!(lines, [8, 9, 10, 11]);
}

#[test]
fn too_many_microinstructions_is_an_error() {
    let src = format!("{GOOD_HEAD}{}", "next\n".repeat(CONTROL_STORE_UINSTS));
    let e = asm_errors(&src);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].0, 7 + CONTROL_STORE_UINSTS);
    assert!(e[0].1.contains("do not fit the control store"), "{e:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any text: an image or errors with lines inside the source, never a panic.
    #[test]
    fn random_microcode_source_never_panics(
        lines in prop::collection::vec(
            prop_oneof![
                Just("x: r=a^b^c c=maj(a,b,c) w=mem[dst+i] i++ loopd x".to_string()),
                Just(".command Z(a:addr(b), b:len) sca -> clear".to_string()),
                Just("jgt dst dlen clear".to_string()),
                Just("b=sca[dst+ri] rlen=dlen r=b".to_string()),
                "[a-z=\\[\\]+()&|^~:. 0-9]{0,30}",
                any::<String>(),
            ],
            0..12,
        )
    ) {
        let src = format!("{GOOD_HEAD}{}\n", lines.join("\n"));
        let n = src.lines().count();
        if let Err(e) = microcode::assemble(&src, "p.pp5uc") {
            prop_assert!(!e.errors.is_empty());
            for x in &e.errors {
                prop_assert!(x.line >= 1 && x.line <= n, "line {} of {}", x.line, n);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Malformed files

fn sample_binary() -> Vec<u8> {
    let tb = booted();
    let s = tb.parse("SETENABS\nSCAIntoMEM_S1 0 8 3\nmessage flush\nNOOP\n");
    let mut bytes = Vec::new();
    binary::write(&s, &mut bytes).expect("write");
    bytes
}

#[test]
fn truncated_binary_streams_are_errors() {
    let bytes = sample_binary();
    let table = &booted().image.table;
    let whole = binary::read(&bytes[..]).expect("whole file");
    assert_eq!(whole.messages.len(), 2);
    // Message boundaries: after the header and after each message.
    let first_len = 8 + 4 * whole.messages[0].len_words();
    for cut in 0..bytes.len() {
        let r = binary::read(&bytes[..cut]);
        match cut {
            8 => assert_eq!(r.expect("header only").messages.len(), 0),
            c if c == 8 + first_len => assert_eq!(r.expect("one message").messages.len(), 1),
            _ => {
                let e = r.expect_err("truncated");
                assert!(
                    e.msg.contains("truncated") || e.msg.contains("bad magic"),
                    "cut {cut}: {e}"
                );
            }
        }
        // Through the loader, which names the file.
        if let Err(e) = pp5_sim::stream::load(&bytes[..cut], "x.bin", table) {
            assert_eq!(e.file, "x.bin");
        }
    }
}

#[test]
fn malformed_binary_headers_are_errors() {
    let good = sample_binary();
    let mut bad_version = good.clone();
    bad_version[4] = 9;
    assert!(binary::read(&bad_version[..])
        .unwrap_err()
        .msg
        .contains("unsupported PP5R version 9"));
    let mut bad_port = good.clone();
    bad_port[8] = 7;
    assert!(binary::read(&bad_port[..])
        .unwrap_err()
        .msg
        .contains("bad port/kind 7"));
    let mut zero = good.clone();
    zero[12..16].copy_from_slice(&0u32.to_le_bytes());
    assert!(binary::read(&zero[..])
        .unwrap_err()
        .msg
        .contains("bad length 0"));
    // A lying length: an error, and no gigabyte allocation.
    let mut huge = good.clone();
    huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(binary::read(&huge[..])
        .unwrap_err()
        .msg
        .contains("bad length"));
    let mut big = good;
    big[12..16].copy_from_slice(&(1u32 << 24).to_le_bytes());
    assert!(binary::read(&big[..])
        .unwrap_err()
        .msg
        .contains("truncated"));
}

#[test]
fn non_utf8_text_stream_is_an_error_with_a_line() {
    let table = &booted().image.table;
    let e = pp5_sim::stream::load(b"NOOP\nNOOP\n\xff\xfe\n", "t.pp5s", table).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("t.pp5s", 3));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic_the_stream_loaders(
        tail in prop::collection::vec(any::<u8>(), 0..200),
        magic in any::<bool>(),
    ) {
        let mut bytes = Vec::new();
        if magic {
            bytes.extend_from_slice(b"PP5R\x01\0\0\0");
        }
        bytes.extend_from_slice(&tail);
        let table = &booted().image.table;
        let _ = binary::read(&bytes[..]);
        let _ = pp5_sim::stream::load(&bytes, "r", table);
    }

    #[test]
    fn random_corruption_of_a_binary_stream_never_panics(
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let mut bytes = sample_binary();
        for (i, v) in flips {
            let k = i.index(bytes.len());
            bytes[k] = v;
        }
        if let Ok(s) = binary::read(&bytes[..]) {
            // Whatever reads back runs on the board without a panic.
            let mut tb = booted().clone();
            // Both ports, Ring resets and TxReady changes included.
            let o = tb.run(&s, 2_000_000);
            check_run(&tb, &o.stop, tb.sim.board.igc.store.writes)?;
        }
    }
}

#[test]
fn json_image_with_the_wrong_format_tag_is_an_error() {
    let json = |tag: &str| {
        format!(
            r#"{{"format": "{tag}", "words": [[1, 2], [4096, 3]], "table": {{"commands": []}},
                "labels": [["idle", 0]], "uinsts": 1}}"#
        )
    };
    let e = McImage::load(&json("pp5-microcode-image-v0"), "old.json").unwrap_err();
    assert_eq!(
        e,
        "old.json: unknown image format `pp5-microcode-image-v0` (expected pp5-microcode-image-v1)"
    );
    // The right tag loads.
    let img = McImage::load(&json(microcode::IMAGE_FORMAT), "ok.json").expect("loads");
    assert_eq!(img.words, [(1, 2), (4096, 3)]);
    assert_eq!(img.labels, [("idle".to_string(), 0)]);
    // Not JSON of an image: errors, not panics.
    for bad in [
        "{",
        "{}",
        "{\"format\": 3}",
        "{\"format\":\"pp5-microcode-image-v1\"}",
        &json("pp5-microcode-image-v1").replace("[1, 2]", "[1, -2]"),
    ] {
        let e = McImage::load(bad, "b.json").unwrap_err();
        assert!(e.starts_with("b.json: "), "{e}");
    }
}

#[test]
fn image_words_outside_the_store_are_errors_not_panics() {
    let mut img = microcode::standard();
    img.words.push((STORE_WORDS as u32 + 5, 1));
    let stream = Stream::default();
    // Without a boot the store is written directly: an input error.
    let r = support::run(RunSpec {
        boot: false,
        ..support::spec(&img, &stream)
    });
    match r {
        Err(RunError::Input(m)) => assert!(m.contains("outside the microcode store"), "{m}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("accepted"),
    }
    // Booted through the stream: the MCWRITE is a formatting error of the hardware, the
    // hardwired address field cannot even hold some addresses (it is 19 bits).
    let r = support::run(support::spec(&img, &stream)).expect("runs");
    assert_eq!(r.stop, StopReason::Done);
    assert_ne!(r.sim.board.status() & FORMAT_ERROR, 0);
    assert!(r
        .sim
        .diagnostics
        .iter()
        .any(|d| d.msg.contains("outside the microcode store")));
}
