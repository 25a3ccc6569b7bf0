//! The Renderer's two Ring ports at board level (seed 003 §III.4.1-1..6, §III.4.2.5.2,
//! §III.4.2.5.5, §III.4.2.5.6): every BS port command, the backing-store transfers, the two
//! semaphores, the status word bit by bit, the LEDs, SENDSTATUS on the IGC port with its
//! latch-and-go and interruption rules, and the error messages of every error path.
//!
//! Every test runs text streams through the booted standard microcode (one boot, cloned), and
//! checks exact values where the model defines them: words on the Ring, cycles, counters,
//! status bits, backing-store and pixel-memory contents.

use pp5_rtl::bs_port::BsState;
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::IgcState;
use pp5_rtl::renderer::{MsgKind, OutMessage};
use pp5_rtl::ring::PortId;
use pp5_sim::engine::{BsCommandRecord, CommandRecord, Diagnostic, Sim, StopReason};
use pp5_testbench::{Outcome, Testbench};
use std::sync::OnceLock;

/// The board ID blown into the PAL (the model's default, `status::DEFAULT_BOARD_ID`).
const BOARD_ID: u32 = 0x05;
/// Status bits (seed §III.4.1-5 table).
const TXREADY_BS: u32 = 1 << 6;
const TXREADY_IGC: u32 = 1 << 7;
const BS_SEM_OVF: u32 = 24;
const IGC_SEM_OVF: u32 = 25;
const BS_RXFIFO_OVW: u32 = 26;
const IGC_RXFIFO_OVW: u32 = 27;
const BS_FORMAT: u32 = 28;
const IGC_FORMAT: u32 = 29;
const IGC_TIMEOUT: u32 = 30;
const INDICATOR: u32 = 1 << 31;
/// Bits 24-30: the sticky error bits of the seed's table.
const ERROR_BITS: u32 = 0x7f00_0000;
/// A transfer: 4096 steps, one per 40 MHz cycle.
const XFER_CYCLES: u64 = 4096;

/// The standard microcode, booted once; every test works on a clone.
fn booted() -> &'static Testbench {
    static TB: OnceLock<Testbench> = OnceLock::new();
    TB.get_or_init(Testbench::standard)
}

fn fresh() -> Testbench {
    booted().clone()
}

/// What one run added to the logs.
struct Run {
    out: Outcome,
    /// Messages the board sent during the run.
    tx: Vec<OutMessage>,
    diags: Vec<Diagnostic>,
    bs: Vec<BsCommandRecord>,
    cmds: Vec<CommandRecord>,
}

impl Run {
    fn errors(&self) -> Vec<&OutMessage> {
        self.tx.iter().filter(|m| m.is_error()).collect()
    }

    fn sent(&self, port: PortId, kind: MsgKind) -> Vec<&OutMessage> {
        self.tx
            .iter()
            .filter(|m| m.port == port && m.kind == kind)
            .collect()
    }

    fn bs_names(&self) -> Vec<&str> {
        self.bs.iter().map(|r| r.name.as_str()).collect()
    }

    fn cmd(&self, name: &str) -> &CommandRecord {
        self.cmds
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no {name} command in {:?}", self.cmds))
    }

    fn has_diag(&self, level: &str, text: &str) -> bool {
        self.diags
            .iter()
            .any(|d| d.level == level && d.msg.contains(text))
    }
}

/// Run `text` (times in it are absolute cycles), calling `each` after every cycle.
fn run_watch(tb: &mut Testbench, text: &str, each: impl FnMut(&Sim)) -> Run {
    let stream = tb.parse(text);
    let (t0, d0, b0, c0) = (
        tb.sim.tx.len(),
        tb.sim.diagnostics.len(),
        tb.sim.bs_commands.len(),
        tb.sim.commands.len(),
    );
    let out = tb.run_with(&stream, 2_000_000, each);
    Run {
        out,
        tx: tb.sim.tx[t0..].to_vec(),
        diags: tb.sim.diagnostics[d0..].to_vec(),
        bs: tb.sim.bs_commands[b0..].to_vec(),
        cmds: tb.sim.commands[c0..].to_vec(),
    }
}

fn run(tb: &mut Testbench, text: &str) -> Run {
    run_watch(tb, text, |_| {})
}

/// Run `text` and require that the stream finished with the board idle.
fn run_done(tb: &mut Testbench, text: &str) -> Run {
    let r = run(tb, text);
    assert_eq!(
        r.out.stop,
        StopReason::Done,
        "stream did not finish: {:?}",
        r.diags
    );
    r
}

fn now(tb: &Testbench) -> u64 {
    tb.sim.board.cycle
}

/// The first 20 MHz Ring slot at or after cycle `c` (the even cycles). TxReady changes in
/// the functional tests are put on slots: see
/// `txready_rising_between_two_ring_slots_is_not_a_deadlock` for what happens otherwise.
fn slot(c: u64) -> u64 {
    c + c % 2
}

/// An error message as seed §III.4.1-5 describes it: from the IGC port, to Ring address 0,
/// the board ID in the ID's low byte, the status word with `bit` set.
fn assert_error_message(m: &OutMessage, bit: u32) {
    assert_eq!(m.port, PortId::Igc, "error messages leave by the IGC port");
    assert_eq!(m.kind, MsgKind::Error);
    assert_eq!(m.words.len(), 3, "destination, ID, status word: {m:?}");
    assert_eq!(m.words[0], 0, "error messages go to Ring address 0");
    assert_eq!(m.words[1] & 0xff, BOARD_ID, "board ID in the ID's low byte");
    assert_ne!(
        m.words[2] & 1 << bit,
        0,
        "status bit {bit} set in {:#010x}",
        m.words[2]
    );
}

/// Exactly one error message, with `bit` set.
fn assert_one_error_message(r: &Run, bit: u32) {
    let e = r.errors();
    assert_eq!(e.len(), 1, "one error message: {:?}", r.tx);
    assert_error_message(e[0], bit);
}

/// First word of BS_RECEIVE (op 2) / BS_TRANSMIT (op 3): sector 14:8, scanline 21:15,
/// no_scanlines-1 28:22.
fn region(op: u32, sector: u32, scanline: u32, n: u32) -> u32 {
    op | sector << 8 | scanline << 15 | (n - 1) << 22
}

fn words(ws: impl IntoIterator<Item = u32>) -> String {
    let v: Vec<String> = ws.into_iter().map(|w| format!("{w:#x}")).collect();
    format!("word {}\n", v.join(" "))
}

/// A distinct 32-bit value per pixel.
fn pattern(x: usize, y: usize, salt: u32) -> u32 {
    ((x as u32) << 24 | (y as u32) << 16 | (x * 3 + y * 7) as u32).wrapping_mul(0x9e37_79b1) ^ salt
}

// ===================== BS port commands (seed §III.4.1-2) =====================

#[test]
fn bs_command_sizes_and_encoding_match_the_seed_table() {
    let tb = booted();
    // `dest=` puts every command in the body: the body length is the command's size.
    let sizes = [
        ("BS_NOOP", 1),
        ("BS_SENDSTATUS 0x1111 0x22", 3),
        ("BS_RECEIVE 3 0 1 fill=7", 1 + 128),
        ("BS_RECEIVE 3 5 3 fill=7", 1 + 3 * 128),
        ("BS_RECEIVE 3 5 7 fill=7", 1 + 7 * 128),
        ("BS_TRANSMIT 5 0 1 0x99", 2),
        ("BS_PBS", 1),
        ("BS_VIGC", 1),
    ];
    for (cmd, size) in sizes {
        let s = tb.parse(&format!("message bs dest=0\n{cmd}\n"));
        assert_eq!(s.messages.len(), 1);
        assert_eq!(s.messages[0].body.len(), size, "{cmd}");
        // Without `dest=`, the first opcode is the destination word.
        let s = tb.parse(&format!("message bs\n{cmd}\n"));
        assert_eq!(s.messages[0].body.len(), size - 1, "{cmd} as first command");
    }
    let first = |cmd: &str| tb.parse(&format!("message bs\n{cmd}\n")).messages[0].dest;
    assert_eq!(first("BS_NOOP"), 0);
    assert_eq!(first("BS_SENDSTATUS 1 2"), 1);
    assert_eq!(first("BS_RECEIVE 3 5 3 fill=0"), region(2, 3, 5, 3));
    let whole = tb.parse("message bs oversize\nBS_RECEIVE 127 127 128 fill=0\n");
    assert_eq!(
        whole.messages[0].dest, 0x1fff_ff02,
        "all fields at their maximum"
    );
    assert_eq!(whole.messages[0].body.len(), 128 * 128);
    assert_eq!(first("BS_TRANSMIT 5 1 2 0x99"), region(3, 5, 1, 2));
    assert_eq!(first("BS_PBS"), 4);
    assert_eq!(first("BS_VIGC"), 5);
}

#[test]
fn bs_port_consumes_exactly_the_table_sizes_from_raw_words() {
    let mut tb = fresh();
    // A BS semaphore count for the BS_PBS at the end.
    run_done(&mut tb, "VBS\n");
    let b = now(&tb);
    let mut text = String::from("message bs dest=0\n"); // BS_NOOP as the destination word
    text += &words([1, 0x1111, 0x22]); // BS_SENDSTATUS id retaddr
    text += &words([region(2, 3, 0, 1)]); // BS_RECEIVE, 128 data words
    text += &words((0..128).map(|k| 0x700 + k));
    text += &words([region(3, 3, 0, 1), 0x99]); // BS_TRANSMIT retaddr
    text += &words([5, 0, 4, 5]); // VIGC NOOP PBS VIGC
    let r = run_done(&mut tb, &text);
    assert_eq!(
        r.bs_names(),
        [
            "BS_NOOP",
            "BS_SENDSTATUS",
            "BS_RECEIVE",
            "BS_TRANSMIT",
            "BS_VIGC",
            "BS_NOOP",
            "BS_PBS",
            "BS_VIGC"
        ]
    );
    assert!(r.errors().is_empty(), "no error: {:?}", r.diags);
    assert_eq!(tb.status() & ERROR_BITS, 0);
    let st = r.sent(PortId::Bs, MsgKind::Status);
    assert_eq!(st.len(), 1);
    assert_eq!(&st[0].words[..2], &[0x22, 0x1111]);
    let data = r.sent(PortId::Bs, MsgKind::Data);
    assert_eq!(data.len(), 1);
    let want: Vec<u32> = std::iter::once(0x99).chain(0x700..0x780).collect();
    assert_eq!(data[0].words, want);
    assert_eq!(tb.sim.board.igc_sem.count, 2);
    assert_eq!(tb.sim.board.bs_sem.count, 0, "BS_PBS decremented");
    assert!(r.tx.iter().all(|m| m.start >= b));
}

#[test]
fn bs_noop_does_nothing() {
    let mut tb = fresh();
    let (status, writes, leds) = (
        tb.status(),
        tb.sim.board.backing_store.writes,
        tb.sim.board.leds(),
    );
    let r = run_done(&mut tb, "message bs\nBS_NOOP\nBS_NOOP\nBS_NOOP\n");
    assert_eq!(r.bs_names(), ["BS_NOOP"; 3]);
    for rec in &r.bs {
        assert_eq!(rec.cycles, 1, "{rec:?}");
    }
    assert!(r.tx.is_empty());
    assert!(r.cmds.is_empty(), "no IGC command");
    assert!(r.diags.is_empty(), "{:?}", r.diags);
    assert_eq!(tb.status(), status);
    assert_eq!(tb.sim.board.leds(), leds);
    assert_eq!(tb.sim.board.backing_store.writes, writes);
}

#[test]
fn bs_sendstatus_sends_retaddr_id_and_the_bs_status_word() {
    let mut tb = fresh();
    // Bits the BS status word has (stripes, TxReady, semaphores) and bits it must not have
    // (a sticky error, 28, and the indicator, 31).
    run_done(&mut tb, "SETENABS\nINDON\nVBS\nVBS\nmessage bs dest=6\n");
    let r = run_done(
        &mut tb,
        "message bs\nBS_VIGC\nBS_VIGC\nBS_VIGC\nBS_SENDSTATUS 0xcafe0000 0x42\n",
    );
    let full = tb.status();
    assert_eq!(
        full, 0x9003_02cf,
        "IGC view: error 28, indicator, sems, TxReady, stripes"
    );
    assert_eq!(tb.sim.board.bs_status(), 0x0003_02cf);
    let st = r.sent(PortId::Bs, MsgKind::Status);
    assert_eq!(st.len(), 1, "{:?}", r.tx);
    assert_eq!(
        st[0].words,
        [0x42, 0xcafe_0000, 0x0003_02cf],
        "the BS ID is the argument as given; no bits 24-31 (nor 4) in the BS status word"
    );
    assert_eq!(st[0].end - st[0].start, 4, "3 words, one per 20 MHz slot");
    assert_eq!(
        r.bs_names(),
        ["BS_VIGC", "BS_VIGC", "BS_VIGC", "BS_SENDSTATUS"]
    );
    assert!(r.errors().is_empty());
    // The IGC's own status message carries the bits the BS one leaves out.
    let r = run_done(&mut tb, "SENDSTATUS_S1 0x1200 0x43\n");
    let st = r.sent(PortId::Igc, MsgKind::Status);
    assert_eq!(st[0].words, [0x43, 0x1205, 0x9003_02cf]);
}

#[test]
fn bs_receive_writes_in_scanline_order_from_the_start_scanline_and_wraps_in_the_sector() {
    let mut tb = fresh();
    for s in 2..=4 {
        tb.sim.board.backing_store.sector_mut(s).fill(0xdead_beef);
    }
    let r = run_done(&mut tb, "message bs\nBS_RECEIVE 3 126 4 ramp\n");
    assert_eq!(r.bs_names(), ["BS_RECEIVE"]);
    let bs = &tb.sim.board.backing_store;
    for x in 0..128 {
        assert_eq!(bs.read(3, x, 126), x as u32);
        assert_eq!(bs.read(3, x, 127), 128 + x as u32);
        assert_eq!(bs.read(3, x, 0), 256 + x as u32, "wrapped to scanline 0");
        assert_eq!(bs.read(3, x, 1), 384 + x as u32);
        for y in [2, 64, 125] {
            assert_eq!(bs.read(3, x, y), 0xdead_beef, "scanline {y} untouched");
        }
        for y in [0, 1, 126, 127] {
            assert_eq!(
                bs.read(2, x, y),
                0xdead_beef,
                "same sector, not the previous"
            );
            assert_eq!(bs.read(4, x, y), 0xdead_beef, "same sector, not the next");
        }
    }
    assert_eq!(tb.status() & ERROR_BITS, 0);
    assert!(r.tx.is_empty());
}

#[test]
fn oversize_bs_receive_of_a_whole_sector_at_full_ring_rate_is_not_overrun() {
    let mut tb = fresh();
    let text = "message bs oversize\nBS_RECEIVE 7 0 128 ramp\n";
    let s = tb.parse(text);
    assert_eq!(
        1 + s.messages[0].body.len(),
        16385,
        "one 16385-word message"
    );
    let mut max_level = 0;
    let start = now(&tb);
    let r = run_watch(&mut tb, text, |sim| {
        max_level = max_level.max(sim.board.bs_port.rx.rxfifo.len());
    });
    assert_eq!(r.out.stop, StopReason::Done);
    assert_eq!(tb.status() & 1 << BS_RXFIFO_OVW, 0, "no RxFIFO overwrite");
    assert_eq!(tb.status() & ERROR_BITS, 0);
    assert!(r.errors().is_empty(), "{:?}", r.diags);
    assert!(!r.has_diag("error", ""), "{:?}", r.diags);
    // The Ring delivered a word in every 20 MHz slot: 16385 words in 2 × 16385 cycles.
    let ring_cycles = now(&tb) - start;
    assert!(
        (2 * 16385 - 2..=2 * 16385 + 4).contains(&ring_cycles),
        "{ring_cycles} cycles"
    );
    assert!(
        max_level <= 2,
        "the port swallows at full rate: level {max_level}"
    );
    assert_eq!(tb.sim.board.leds() & 1 << 4, 0, "LED 4 dark when done");
    let sector = tb.sim.board.backing_store.sector(7);
    assert!(sector.iter().enumerate().all(|(k, &w)| w == k as u32));
}

#[test]
fn seed_example_a_sector_in_three_messages_with_bs_vigc_sprinkled_in_is_not_overrun() {
    // Seed §III.4.1-3: two messages of one 4-scanline BS_RECEIVE each, then the remaining
    // 120 scanlines in one over-sized message (here with a few BS_VIGC among the receives).
    let mut tb = fresh();
    let fill = |first: u32, n: u32| {
        let data: Vec<String> = (first * 128..(first + n) * 128)
            .map(|k| (k ^ 0xa5a5_0000).to_string())
            .collect();
        format!("BS_RECEIVE 12 {first} {n} {}\n", data.join(" "))
    };
    let mut text = format!("message bs\n{}message bs\n{}", fill(0, 4), fill(4, 4));
    text += "message bs oversize\n";
    for k in 0..4 {
        text += &fill(8 + 30 * k, 30);
        text += "BS_VIGC\n";
    }
    let s = tb.parse(&text);
    let sizes: Vec<usize> = s.messages.iter().map(|m| 1 + m.body.len()).collect();
    assert_eq!(sizes, [513, 513, 4 * (1 + 30 * 128) + 4]);
    let r = run_done(&mut tb, &text);
    assert_eq!(tb.status() & ERROR_BITS, 0, "{:?}", r.diags);
    assert!(r.errors().is_empty());
    assert_eq!(tb.sim.board.igc_sem.count, 4);
    let sector = tb.sim.board.backing_store.sector(12);
    assert!(sector
        .iter()
        .enumerate()
        .all(|(k, &w)| w == k as u32 ^ 0xa5a5_0000));
}

#[test]
fn bs_transmit_sends_dest_then_scanline_data_with_wrap() {
    let mut tb = fresh();
    {
        let s = tb.sim.board.backing_store.sector_mut(5);
        for y in 0..128 {
            for x in 0..128 {
                s[y * 128 + x] = 0x5000_0000 | (y as u32) << 8 | x as u32;
            }
        }
    }
    let writes = tb.sim.board.backing_store.writes;
    let r = run_done(&mut tb, "message bs\nBS_TRANSMIT 5 127 2 0x99\n");
    let data = r.sent(PortId::Bs, MsgKind::Data);
    assert_eq!(data.len(), 1);
    let mut want = vec![0x99];
    for y in [127u32, 0] {
        want.extend((0..128).map(|x| 0x5000_0000 | y << 8 | x));
    }
    assert_eq!(
        data[0].words, want,
        "destination, scanline 127, then scanline 0"
    );
    assert_eq!(data[0].dest(), 0x99);
    assert_eq!(
        data[0].end - data[0].start,
        2 * 256,
        "one word per 20 MHz slot"
    );
    assert_eq!(tb.sim.board.backing_store.writes, writes, "read only");
    assert_eq!(r.tx.len(), 1);
    assert_eq!(tb.status() & ERROR_BITS, 0);
}

#[test]
fn bs_pbs_waits_for_a_nonzero_bs_semaphore_then_decrements_it() {
    let mut tb = fresh();
    let b = now(&tb);
    let mut vigc_at = None;
    let text = format!(
        "message bs\nBS_PBS\nBS_VIGC\nmessage igc at={}\nVBS\n",
        b + 3000
    );
    let r = run_watch(&mut tb, &text, |sim| {
        if vigc_at.is_none() && sim.board.igc_sem.count == 1 {
            vigc_at = Some(sim.board.cycle - 1);
        }
    });
    assert_eq!(r.out.stop, StopReason::Done);
    let vbs = r.cmd("VBS").start;
    assert!(vbs >= b + 3000);
    let vigc_at = vigc_at.expect("BS_VIGC ran");
    assert!(
        vigc_at > vbs && vigc_at <= vbs + 4,
        "BS_VIGC ran right after the VBS ({vbs}), at {vigc_at}"
    );
    assert_eq!(r.bs_names(), ["BS_PBS", "BS_VIGC"]);
    assert!(r.bs[0].causes.get(Cause::SemWait) >= 2990, "{:?}", r.bs[0]);
    assert_eq!(tb.sim.board.bs_sem.count, 0, "P decremented the V");
    assert_eq!(tb.sim.board.igc_sem.count, 1);

    // With a count of 2, one P takes exactly one.
    let r = run_done(&mut tb, "VBS\nVBS\n");
    assert!(r.errors().is_empty());
    assert_eq!(tb.sim.board.bs_sem.count, 2);
    let r = run_done(&mut tb, "message bs\nBS_PBS\n");
    assert_eq!(r.bs[0].causes.get(Cause::SemWait), 0);
    assert_eq!(tb.sim.board.bs_sem.count, 1);
}

#[test]
fn bs_pbs_without_a_v_is_a_reported_deadlock() {
    let mut tb = fresh();
    let r = run(&mut tb, "message bs\nBS_PBS\nBS_VIGC\n");
    let StopReason::Deadlock { waits, .. } = &r.out.stop else {
        panic!("expected a deadlock, got {:?}", r.out.stop);
    };
    assert!(
        waits
            .iter()
            .any(|w| w.block == "bs_port" && w.waits_for.contains("BS semaphore")),
        "{waits:?}"
    );
    assert_eq!(tb.sim.board.bs_port.state, BsState::Pbs);
    assert_eq!(tb.sim.board.igc_sem.count, 0, "BS_VIGC held behind BS_PBS");
}

#[test]
fn bs_vigc_increments_the_igc_semaphore() {
    let mut tb = fresh();
    let r = run_done(&mut tb, "message bs\nBS_VIGC\nBS_VIGC\nBS_VIGC\n");
    assert_eq!(r.bs_names(), ["BS_VIGC"; 3]);
    for rec in &r.bs {
        assert_eq!(rec.cycles, 1);
    }
    assert_eq!(tb.sim.board.igc_sem.count, 3);
    assert_eq!(tb.status() >> 16 & 0xff, 3);
    run_done(&mut tb, "PIGC\n");
    assert_eq!(tb.sim.board.igc_sem.count, 2);
}

#[test]
fn bs_destination_word_is_the_first_opcode_and_node_bits_are_ignored() {
    let mut tb = fresh();
    let mut text = String::from("message bs dest=0xe0000005\n"); // BS_VIGC, node 7
    text += &words([0xa000_0005, 0x2000_0005]);
    text += &format!("message bs dest={:#x}\n", 0x6000_0000 | region(2, 9, 4, 1));
    text += &words((0..128).map(|k| 0x900 + k));
    text += &format!("message bs dest=0x80000001\n{}", words([0x77, 0x31]));
    text += &format!(
        "message bs dest={:#x}\n{}",
        0x4000_0000 | region(3, 9, 4, 1),
        words([0x32])
    );
    let r = run_done(&mut tb, &text);
    assert!(r.errors().is_empty(), "{:?}", r.diags);
    assert_eq!(tb.status() & ERROR_BITS, 0);
    assert_eq!(
        r.bs_names(),
        [
            "BS_VIGC",
            "BS_VIGC",
            "BS_VIGC",
            "BS_RECEIVE",
            "BS_SENDSTATUS",
            "BS_TRANSMIT"
        ]
    );
    assert_eq!(tb.sim.board.igc_sem.count, 3);
    for x in 0..128 {
        assert_eq!(tb.sim.board.backing_store.read(9, x, 4), 0x900 + x as u32);
    }
    let st = r.sent(PortId::Bs, MsgKind::Status);
    assert_eq!(&st[0].words[..2], &[0x31, 0x77]);
    let data = r.sent(PortId::Bs, MsgKind::Data);
    assert_eq!(data[0].words.len(), 129);
    assert_eq!(data[0].words[0], 0x32);
    assert_eq!(data[0].words[128], 0x900 + 127);
}

#[test]
fn bogus_bs_command_sets_bit_28_sends_an_error_message_and_skips_its_message() {
    // Opcodes 6..15, and a valid opcode with stray bits outside its fields.
    for bogus in [0x6u32, 0xf, 0x105, 0x10, 0x4000_0044] {
        let mut tb = fresh();
        let mut text = String::from("message bs dest=5\n"); // BS_VIGC runs
        text += &words([bogus, 5, 5, 2]); // bogus, then two VIGCs and a RECEIVE head: skipped
        text += "message bs\nBS_VIGC\n"; // the next message is parsed again
        let r = run_done(&mut tb, &text);
        assert_eq!(tb.sim.board.igc_sem.count, 2, "bogus {bogus:#x}");
        assert_eq!(r.bs_names(), ["BS_VIGC", "BS_VIGC"], "bogus {bogus:#x}");
        assert_ne!(tb.status() & 1 << BS_FORMAT, 0, "bogus {bogus:#x}");
        assert_eq!(tb.status() & ERROR_BITS, 1 << BS_FORMAT);
        assert_one_error_message(&r, BS_FORMAT);
        assert!(
            r.has_diag("error", &format!("bogus BS command word {bogus:#010x}")),
            "{:?}",
            r.diags
        );
        assert_eq!(tb.sim.board.leds() & 1 << 12, 1 << 12, "LED 12");
    }
}

#[test]
fn bs_command_left_hanging_at_a_message_boundary_sets_bit_28() {
    let cases: [(&str, u32, Vec<u32>); 3] = [
        ("BS_SENDSTATUS", 1, vec![0x1111]),
        ("BS_TRANSMIT", region(3, 1, 0, 1), vec![]),
        ("BS_RECEIVE", region(2, 1, 0, 1), (0..10).collect()),
    ];
    for (name, head, rest) in cases {
        let mut tb = fresh();
        let mut text = format!("message bs dest={head:#x}\n");
        if !rest.is_empty() {
            text += &words(rest);
        }
        text += "message bs\nBS_VIGC\n";
        let r = run_done(&mut tb, &text);
        assert_eq!(r.bs_names(), [name, "BS_VIGC"], "{name}");
        assert_eq!(
            tb.sim.board.igc_sem.count, 1,
            "{name}: the next message is parsed from its first word"
        );
        assert_eq!(tb.status() & ERROR_BITS, 1 << BS_FORMAT, "{name}");
        assert_one_error_message(&r, BS_FORMAT);
        assert!(r.sent(PortId::Bs, MsgKind::Status).is_empty());
        assert!(r.sent(PortId::Bs, MsgKind::Data).is_empty());
        assert!(
            r.has_diag("error", &format!("{name} left hanging")),
            "{name}: {:?}",
            r.diags
        );
    }
}

#[test]
fn bs_port_runs_one_command_at_a_time_transmit_and_sendstatus_hold_the_stream() {
    let mut tb = fresh();
    let b = now(&tb);
    let on = slot(b + 5000);
    let text = format!(
        "txready bs off at={b}\nmessage bs\nBS_TRANSMIT 0 0 1 0x99\nBS_VIGC\nBS_SENDSTATUS 7 0x55\nBS_VIGC\ntxready bs on at={on}\n"
    );
    let mut vigc = Vec::new();
    let mut last = 0;
    let r = run_watch(&mut tb, &text, |sim| {
        let c = sim.board.igc_sem.count;
        if c != last {
            vigc.push(sim.board.cycle - 1);
            last = c;
        }
    });
    assert_eq!(r.out.stop, StopReason::Done, "{:?}", r.diags);
    let data = r.sent(PortId::Bs, MsgKind::Data);
    let st = r.sent(PortId::Bs, MsgKind::Status);
    assert_eq!((data.len(), st.len()), (1, 1));
    assert!(data[0].start >= on, "TxReady low held the data message");
    assert_eq!(vigc.len(), 2, "{vigc:?}");
    assert!(
        vigc[0] > data[0].end,
        "BS_VIGC waited for BS_TRANSMIT's message"
    );
    assert!(st[0].start > vigc[0]);
    assert!(
        vigc[1] > st[0].end,
        "BS_VIGC waited for BS_SENDSTATUS's message"
    );
    assert!(r.bs[0].causes.get(Cause::TxHold) >= 4900, "{:?}", r.bs[0]);
    assert_eq!(
        st[0].words[2] & TXREADY_BS,
        TXREADY_BS,
        "sampled after TxReady came back"
    );
    assert_eq!(tb.status() & ERROR_BITS, 0, "nothing lost");
}

// ===================== Transfers (seed §III.4.2.5.2) =====================

/// Bits 0-31 of every pixel from `pattern(.., salt)`; bits 32-63 from another.
fn poke_all(tb: &mut Testbench, salt: u32) {
    for y in 0..128 {
        for x in 0..128 {
            tb.poke(x, y, 0, 32, pattern(x, y, salt) as u64);
            tb.poke(x, y, 32, 32, pattern(x, y, !salt) as u64);
        }
    }
}

/// Watch transfers: (start cycle, done cycle) of each.
#[derive(Default)]
struct XferLog {
    spans: Vec<(u64, Option<u64>)>,
    was_busy: bool,
    /// Last cycle the IGC was in WAIT_XFER.
    last_wait: Option<u64>,
    /// Cycle the BS semaphore first changed, and its value.
    bs_sem_change: Option<(u64, u8)>,
    bs_sem0: Option<u8>,
    /// The cycle last watched (the testbench calls back once more, without a step, when
    /// the run ends).
    last: Option<u64>,
}

impl XferLog {
    fn watch(&mut self, sim: &Sim) {
        let c = sim.board.cycle - 1;
        if self.last.replace(c) == Some(c) {
            return;
        }
        let t = &sim.board.transfer;
        if (t.busy() || t.done) && !self.was_busy {
            self.spans.push((c, None));
        }
        if t.done {
            if let Some(s) = self.spans.last_mut() {
                s.1 = Some(c);
            }
        }
        self.was_busy = t.busy();
        if sim.board.igc.state == IgcState::WaitXfer {
            self.last_wait = Some(c);
        }
        let s = sim.board.bs_sem.count;
        let s0 = *self.bs_sem0.get_or_insert(s);
        if self.bs_sem_change.is_none() && s != s0 {
            self.bs_sem_change = Some((c, s));
        }
    }

    fn span(&self, k: usize) -> (u64, u64) {
        let (s, d) = self.spans[k];
        (s, d.expect("transfer completed"))
    }
}

#[test]
fn bsstore_moves_bits_0_to_31_of_every_pixel_into_the_sector() {
    let mut tb = fresh();
    poke_all(&mut tb, 0x1234_5678);
    let before: Vec<u64> = (0..128 * 128)
        .map(|k| tb.peek(k % 128, k / 128, 0, 64))
        .collect();
    let mut log = XferLog::default();
    let r = run_watch(&mut tb, "BSSTORE 9\n", |s| log.watch(s));
    assert_eq!(r.out.stop, StopReason::Done);
    let (s, d) = log.span(0);
    assert_eq!(d - s + 1, XFER_CYCLES, "4096 cycles, one step each");
    let bs = &tb.sim.board.backing_store;
    for (x, y) in [(0, 0), (5, 0), (0, 5), (64, 100), (127, 0), (127, 127)] {
        assert_eq!(
            bs.read(9, x, y),
            pattern(x, y, 0x1234_5678),
            "pixel ({x},{y})"
        );
    }
    for (k, (&w, &px)) in bs.sector(9).iter().zip(&before).enumerate() {
        assert_eq!(w as u64, px & 0xffff_ffff, "word {k}");
        assert_eq!(tb.peek(k % 128, k / 128, 0, 64), px, "pixel memory kept");
    }
    assert!(bs.sector(8).iter().chain(bs.sector(10)).all(|&w| w == 0));
    assert!(r.diags.is_empty(), "{:?}", r.diags);
}

#[test]
fn bsload_moves_the_sector_into_bits_0_to_31_and_leaves_bits_32_up() {
    let mut tb = fresh();
    poke_all(&mut tb, 0x0bad_f00d);
    for y in 0..128 {
        for x in 0..128 {
            tb.poke(x, y, 200, 8, (x ^ y) as u64);
        }
    }
    {
        let s = tb.sim.board.backing_store.sector_mut(11);
        for (k, w) in s.iter_mut().enumerate() {
            *w = pattern(k % 128, k / 128, 0x5555_aaaa);
        }
    }
    let mut log = XferLog::default();
    let r = run_watch(&mut tb, "BSLOAD 11\n", |s| log.watch(s));
    assert_eq!(r.out.stop, StopReason::Done);
    let (s, d) = log.span(0);
    assert_eq!(d - s + 1, XFER_CYCLES);
    for (x, y) in [(0, 0), (1, 0), (127, 127), (64, 3)] {
        assert_eq!(tb.peek(x, y, 0, 32) as u32, pattern(x, y, 0x5555_aaaa));
    }
    for y in 0..128 {
        for x in 0..128 {
            assert_eq!(tb.peek(x, y, 0, 32) as u32, pattern(x, y, 0x5555_aaaa));
            assert_eq!(tb.peek(x, y, 32, 32) as u32, pattern(x, y, !0x0bad_f00d));
            assert_eq!(tb.peek(x, y, 200, 8), (x ^ y) as u64);
        }
    }
}

#[test]
fn bswait_waits_for_the_transfer_and_returns_at_once_when_idle() {
    let mut tb = fresh();
    // Idle: BSWAIT takes one cycle, like a NOOP.
    let r = run_done(&mut tb, "BSWAIT\nNOOP\n");
    assert_eq!(
        r.out.command_cycles,
        [("BSWAIT".to_string(), 1), ("NOOP".to_string(), 1)]
    );
    assert_eq!(r.cmds[0].causes.get(Cause::XferStall), 0);

    let mut log = XferLog::default();
    let r = run_watch(&mut tb, "BSSTORE 9\nBSWAIT\nINDON\n", |s| log.watch(s));
    assert_eq!(r.out.stop, StopReason::Done);
    let (s, d) = log.span(0);
    assert_eq!(d - s + 1, XFER_CYCLES);
    assert_eq!(
        r.cmd("BSSTORE").start,
        s,
        "the transfer starts in BSSTORE's cycle"
    );
    assert_eq!(r.cmd("BSSTORE").cycles, 1, "BSSTORE only initiates it");
    assert_eq!(
        log.last_wait,
        Some(d),
        "the IGC waits through the last step"
    );
    let w = r.cmd("BSWAIT");
    assert_eq!(w.start + w.cycles - 1, d + 1, "BSWAIT ends the cycle after");
    assert_eq!(w.causes.get(Cause::XferStall), w.cycles - 1);
    assert!(r.cmd("INDON").start > d + 1);
}

#[test]
fn bsload_and_bsstore_wait_for_a_pending_transfer() {
    let mut tb = fresh();
    poke_all(&mut tb, 0x4242_0000);
    let old: Vec<u32> = (0..128 * 128)
        .map(|k| tb.peek(k % 128, k / 128, 0, 32) as u32)
        .collect();
    {
        let s = tb.sim.board.backing_store.sector_mut(2);
        for (k, w) in s.iter_mut().enumerate() {
            *w = !(k as u32);
        }
    }
    let mut log = XferLog::default();
    let r = run_watch(&mut tb, "BSSTORE 1\nBSLOAD 2\nBSSTORE 3\n", |s| {
        log.watch(s)
    });
    assert_eq!(r.out.stop, StopReason::Done);
    assert_eq!(log.spans.len(), 3, "{:?}", log.spans);
    let (s1, d1) = log.span(0);
    let (s2, d2) = log.span(1);
    let (s3, d3) = log.span(2);
    assert_eq!(d1 - s1 + 1, XFER_CYCLES);
    assert_eq!(
        s2,
        d1 + 1,
        "BSLOAD starts right after the BSSTORE completes"
    );
    assert_eq!(d2 - s2 + 1, XFER_CYCLES);
    assert_eq!(
        s3,
        d2 + 1,
        "BSSTORE starts right after the BSLOAD completes"
    );
    assert_eq!(d3 - s3 + 1, XFER_CYCLES);
    assert!(r.cmd("BSLOAD").causes.get(Cause::XferStall) >= XFER_CYCLES - 4);
    let bs = &tb.sim.board.backing_store;
    assert_eq!(
        bs.sector(1),
        &old[..],
        "sector 1 = the pixels before the load"
    );
    for k in 0..128 * 128 {
        assert_eq!(tb.peek(k % 128, k / 128, 0, 32) as u32, !(k as u32));
    }
    assert_eq!(bs.sector(3), bs.sector(2), "sector 3 = the loaded pixels");
}

#[test]
fn vbslater_increments_the_bs_semaphore_when_the_transfer_completes() {
    let mut tb = fresh();
    let mut log = XferLog::default();
    let r = run_watch(&mut tb, "BSSTORE 3\nVBSlater\n", |s| log.watch(s));
    assert_eq!(r.out.stop, StopReason::Done);
    let (_, d) = log.span(0);
    assert_eq!(r.cmd("VBSlater").cycles, 1, "VBSlater does not wait");
    assert!(r.cmd("VBSlater").start < d);
    assert_eq!(
        log.bs_sem_change,
        Some((d, 1)),
        "V in the transfer's last cycle"
    );
    assert!(r.diags.is_empty(), "{:?}", r.diags);

    // No transfer: at once, like VBS.
    let mut log = XferLog::default();
    let r = run_watch(&mut tb, "VBSlater\n", |s| log.watch(s));
    assert_eq!(log.bs_sem_change, Some((r.cmd("VBSlater").start, 2)));
    let mut log = XferLog::default();
    let r = run_watch(&mut tb, "VBS\n", |s| log.watch(s));
    assert_eq!(log.bs_sem_change, Some((r.cmd("VBS").start, 3)));
}

#[test]
fn second_vbslater_while_one_is_pending_is_warned() {
    let mut tb = fresh();
    let r = run_done(&mut tb, "BSSTORE 3\nVBSlater\nVBSlater\n");
    assert!(
        r.has_diag("warning", "VBSlater issued while a VBSlater is pending"),
        "{:?}",
        r.diags
    );
    let mut tb = fresh();
    let r = run_done(&mut tb, "BSSTORE 3\nVBSlater\nVBS\n");
    assert!(
        r.has_diag("warning", "VBS issued while a VBSlater is pending"),
        "{:?}",
        r.diags
    );
}

#[test]
fn igc_commands_avoiding_bits_0_to_31_run_during_a_bsstore() {
    let mut tb = fresh();
    poke_all(&mut tb, 0x7777_0000);
    for y in 0..128 {
        for x in 0..128 {
            tb.poke(x, y, 40, 8, 0xff);
            tb.poke(x, y, 50, 8, (x * 2 + y) as u64 & 0xff);
        }
    }
    let lo: Vec<u32> = (0..128 * 128)
        .map(|k| tb.peek(k % 128, k / 128, 0, 32) as u32)
        .collect();
    run_done(&mut tb, "SETENABS\n");
    let mut log = XferLog::default();
    let r = run_watch(
        &mut tb,
        "BSSTORE 4\nCLEAR 40 8\nCPY 60 50 8\nSET 92 8\nINC 70 60 8\n",
        |s| log.watch(s),
    );
    assert_eq!(r.out.stop, StopReason::Done);
    let (_, d) = log.span(0);
    for name in ["CLEAR", "CPY", "SET", "INC"] {
        assert!(r.cmd(name).start < d, "{name} overlapped the transfer");
    }
    assert!(!r.has_diag("warning", ""), "no conflict: {:?}", r.diags);
    for y in 0..128 {
        for x in 0..128 {
            let v = (x * 2 + y) as u64 & 0xff;
            assert_eq!(tb.peek(x, y, 40, 8), 0, "CLEAR ({x},{y})");
            assert_eq!(tb.peek(x, y, 60, 8), v, "CPY ({x},{y})");
            assert_eq!(tb.peek(x, y, 92, 8), 0xff, "SET ({x},{y})");
            assert_eq!(tb.peek(x, y, 70, 8), (v + 1) & 0xff, "INC ({x},{y})");
        }
    }
    assert_eq!(
        tb.sim.board.backing_store.sector(4),
        &lo[..],
        "stored sector"
    );
}

#[test]
fn igc_command_touching_bits_0_to_31_during_a_bsstore_does_not_disturb_it() {
    let mut tb = fresh();
    poke_all(&mut tb, 0x00c0_ffee);
    let before: Vec<u64> = (0..128 * 128)
        .map(|k| tb.peek(k % 128, k / 128, 0, 64))
        .collect();
    run_done(&mut tb, "SETENABS\n");
    let r = run_done(&mut tb, "BSSTORE 6\nCLEAR 0 8\n");
    let sector = tb.sim.board.backing_store.sector(6);
    for k in 0..128 * 128 {
        assert_eq!(
            sector[k] as u64,
            before[k] & 0xffff_ffff,
            "transfer undisturbed"
        );
        assert_eq!(
            tb.peek(k % 128, k / 128, 0, 64),
            before[k],
            "pixel memory not corrupted"
        );
    }
    let warn: Vec<_> = r
        .diags
        .iter()
        .filter(|d| d.level == "warning" && d.msg.contains("during a BSSTORE of sector 6"))
        .collect();
    assert_eq!(warn.len(), 1, "{:?}", r.diags);
    assert!(
        warn[0].msg.starts_with("CLEAR "),
        "names the command: {}",
        warn[0].msg
    );
    assert!(warn[0].msg.contains("bit 0"), "{}", warn[0].msg);
    assert_eq!(tb.status() & ERROR_BITS, 0, "no hardware error bit");
}

// ===================== Semaphores (seed §III.4.1-4, §III.4.2.5.5) =====================

#[test]
fn semaphores_are_zero_after_boot_and_after_a_ring_reset_and_show_in_status() {
    let mut tb = fresh();
    assert_eq!(tb.sim.board.bs_sem.count, 0);
    assert_eq!(tb.sim.board.igc_sem.count, 0);
    assert_eq!(tb.status() & 0x00ff_ff00, 0);
    let mut text = "VBS\nVBS\nVBS\nmessage bs\n".to_string();
    text += &"BS_VIGC\n".repeat(5);
    run_done(&mut tb, &text);
    assert_eq!(tb.status() >> 8 & 0xff, 3, "BS semaphore in bits 8-15");
    assert_eq!(tb.status() >> 16 & 0xff, 5, "IGC semaphore in bits 16-23");
    assert_eq!(tb.status() & 0x00ff_ff00, 0x0005_0300);
    assert_eq!(tb.sim.board.leds() & 0b1100, 0b1100, "LEDs 2 and 3");
    let r = run_done(&mut tb, "reset\n");
    assert_eq!(tb.sim.ring.resets_done.len(), 1);
    assert!(r.has_diag("note", "Ring reset"));
    assert_eq!(tb.status() & 0x00ff_ff00, 0, "zeroed by the Ring reset");
    assert_eq!(tb.sim.board.leds() & 0b1100, 0);
}

#[test]
fn a_ring_reset_leaves_a_fresh_board_holding_the_old_memories() {
    // Stop a busy board at several points (commands in the FIFO, the QEE evaluating, a
    // transfer running, the BS port receiving, semaphores and error bits set), reset it, and
    // compare it signal by signal with a new board given the same memories.
    let text = "FBITS 10\nSETENABS\nVBS\nVBS\nTREEIntoMEM_Q6 0 10 1 2 3 4 5 6\n\
                BSSTORE 3\nVBSlater\nCLEAR 0 8\nword 0xff\n\
                message bs\nBS_VIGC\nBS_RECEIVE 0 0 1 ramp\nBS_SENDSTATUS 1 0x40\n";
    for stop_after in [40, 200, 900, 5000] {
        let mut tb = fresh();
        let s = tb.parse(text);
        tb.run(&s, stop_after);
        let old = tb.sim.board.clone();
        let old_keys = tb.sim.trace.ctx.clone();
        // What the engine does at a Ring reset: the waveform's observer, then the board.
        pp5_sim::engine::Observer::ring_reset(&mut tb.sim.trace, old.cycle);
        tb.sim.board.ring_reset();
        let mut new = pp5_rtl::Renderer::new(old.config);
        new.cycle = old.cycle;
        new.igc.store = old.igc.store.clone();
        new.array = old.array.clone();
        new.backing_store = old.backing_store.clone();
        new.tx_ready_igc = old.tx_ready_igc;
        new.tx_ready_bs = old.tx_ready_bs;
        // The last array operation is the array's, kept like it.
        new.record.array_op = old.record.array_op;
        let ctx = &tb.sim.trace.ctx;
        let signals = |b: &pp5_rtl::Renderer| {
            let mut r = pp5_rtl::trace::Recorder::default();
            pp5_rtl::trace::Traced::trace(&pp5_rtl::renderer::TraceView { board: b, ctx }, &mut r);
            r.signals
        };
        let (got, want) = (signals(&tb.sim.board), signals(&new));
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "after {stop_after} cycles");
        }
        assert!(
            signals(&old) != want,
            "after {stop_after} cycles the board was busy"
        );
        let store = |b: &pp5_rtl::Renderer| -> Vec<u32> {
            (0..).map_while(|a| b.igc.store.read(a)).collect()
        };
        assert_eq!(store(&tb.sim.board), store(&old));
        for k in 0..pp5_rtl::backing_store::SECTORS {
            assert!(tb.sim.board.backing_store.sector(k) == old.backing_store.sector(k));
        }
        assert!(ctx.fc_key > old_keys.fc_key);
    }
}

#[test]
fn pigc_waits_for_a_bs_vigc_then_decrements() {
    let mut tb = fresh();
    let b = now(&tb);
    let at = b + 3000;
    let mut waited = 0u64;
    let mut led1_waiting = true;
    let mut v_at = None;
    let text = format!("PIGC\nINDON\nmessage bs at={at}\nBS_VIGC\n");
    let r = run_watch(&mut tb, &text, |sim| {
        if sim.board.igc.state == IgcState::WaitSem {
            waited += 1;
            led1_waiting &= sim.board.leds() & 2 != 0;
        }
        if v_at.is_none() && sim.board.bs_port.commands > 0 {
            v_at = Some(sim.board.cycle - 1);
        }
    });
    assert_eq!(r.out.stop, StopReason::Done);
    assert!(waited >= 2900, "PIGC waited {waited} cycles");
    assert!(led1_waiting, "LED 1 (BusyHSPR) lit while PIGC waits");
    let v_at = v_at.unwrap();
    let pigc = r.cmd("PIGC");
    assert!(pigc.start < b + 10);
    assert!(pigc.start + pigc.cycles > v_at, "PIGC ended after the V");
    assert!(pigc.causes.get(Cause::SemWait) >= 2900);
    assert!(r.cmd("INDON").start > v_at);
    assert_eq!(tb.sim.board.igc_sem.count, 0, "P decremented the V");
    assert_eq!(tb.status() & INDICATOR, INDICATOR);
    assert_eq!(tb.sim.board.leds() & 2, 0, "LED 1 dark when idle");
}

#[test]
fn pigc_without_a_v_is_a_reported_deadlock() {
    let mut tb = fresh();
    let r = run(&mut tb, "PIGC\nINDON\n");
    let StopReason::Deadlock { waits, .. } = &r.out.stop else {
        panic!("expected a deadlock, got {:?}", r.out.stop);
    };
    assert!(
        waits
            .iter()
            .any(|w| w.block == "igc" && w.waits_for.contains("IGC semaphore")),
        "{waits:?}"
    );
    assert_eq!(tb.sim.board.igc.state, IgcState::WaitSem);
    assert_eq!(tb.status() & INDICATOR, 0);
}

#[test]
fn bs_semaphore_overflow_wraps_to_zero_and_sets_bit_24() {
    let mut tb = fresh();
    let r = run_done(&mut tb, &"VBS\n".repeat(255));
    assert_eq!(tb.sim.board.bs_sem.count, 255);
    assert_eq!(tb.status() >> 8 & 0xff, 255);
    assert!(r.errors().is_empty());
    assert_eq!(tb.status() & ERROR_BITS, 0);
    let r = run_done(&mut tb, "VBS\n");
    assert_eq!(tb.sim.board.bs_sem.count, 0, "wrapped");
    assert_eq!(tb.status() & ERROR_BITS, 1 << BS_SEM_OVF);
    assert_one_error_message(&r, BS_SEM_OVF);
    assert_eq!(
        r.errors()[0].words[2] >> 8 & 0xff,
        0,
        "status shows the wrapped count"
    );
    assert!(
        r.has_diag("error", "BS semaphore overflowed"),
        "{:?}",
        r.diags
    );
    assert_eq!(tb.sim.board.leds() >> 8 & 0x7f, 1, "LED 8");
}

#[test]
fn igc_semaphore_overflow_wraps_to_zero_and_sets_bit_25() {
    let mut tb = fresh();
    let r = run_done(&mut tb, &format!("message bs\n{}", "BS_VIGC\n".repeat(255)));
    assert_eq!(tb.sim.board.igc_sem.count, 255);
    assert!(r.errors().is_empty());
    let r = run_done(&mut tb, "message bs\nBS_VIGC\n");
    assert_eq!(tb.sim.board.igc_sem.count, 0, "wrapped");
    assert_eq!(tb.status() & ERROR_BITS, 1 << IGC_SEM_OVF);
    assert_one_error_message(&r, IGC_SEM_OVF);
    assert!(
        r.has_diag("error", "IGC semaphore overflowed"),
        "{:?}",
        r.diags
    );
    assert_eq!(tb.sim.board.leds() >> 8 & 0x7f, 2, "LED 9");
}

// ===================== Status word and LEDs (seed §III.4.1-5, -6) =====================

#[test]
fn status_bits_0_to_3_are_the_aeo_stripes() {
    let mut tb = fresh();
    assert_eq!(tb.status() & 0xf, 0, "enables off after boot");
    assert_eq!(tb.sim.board.leds() & 1, 1, "LED 0: AEO");
    // Stripe k covers columns 8k..8k+7 + 32m.
    let cases: [(&[(usize, usize)], u32); 6] = [
        (&[(8, 5)], 0b0010),
        (&[(100, 0)], 0b0001),
        (&[(127, 127)], 0b1000),
        (&[(16, 0), (56, 9)], 0b1100),
        (&[(39, 1), (72, 2)], 0b0011),
        (&[(7, 0), (15, 0), (23, 0), (31, 0)], 0b1111),
    ];
    for (pixels, want) in cases {
        let mut t = tb.clone();
        for &(x, y) in pixels {
            t.set_enable(x, y, true);
        }
        assert_eq!(t.status() & 0xf, want, "{pixels:?}");
        assert_eq!(t.sim.board.leds() & 1, 0, "LED 0 dark: not all enables off");
        // The IGC's status message reports them.
        let r = run_done(&mut t, "SENDSTATUS_S1 0 0x10\n");
        assert_eq!(r.sent(PortId::Igc, MsgKind::Status)[0].words[2] & 0xf, want);
    }
    run_done(&mut tb, "SETENABS\n");
    assert_eq!(tb.status() & 0xf, 0xf);
    run_done(&mut tb, "CLRENABS\n");
    assert_eq!(tb.status() & 0xf, 0);
    assert_eq!(tb.sim.board.leds() & 1, 1);
}

#[test]
fn status_bits_6_and_7_follow_txready() {
    let mut tb = fresh();
    assert_eq!(tb.status() & 0xc0, TXREADY_BS | TXREADY_IGC);
    let b = now(&tb);
    run_done(&mut tb, &format!("txready igc off at={b}\n"));
    assert_eq!(tb.status() & 0xc0, TXREADY_BS);
    assert_eq!(tb.sim.board.leds() & 0xc0, 0x40, "LED 7 dark, LED 6 lit");
    let b = now(&tb);
    run_done(&mut tb, &format!("txready bs off at={b}\n"));
    assert_eq!(tb.status() & 0xc0, 0);
    assert_eq!(tb.sim.board.leds() & 0xc0, 0);
    let b = now(&tb);
    run_done(&mut tb, &format!("txready igc on at={b}\n"));
    assert_eq!(tb.status() & 0xc0, TXREADY_IGC);
    assert_eq!(tb.sim.board.leds() & 0xc0, 0x80);
    // The BS status word has them too.
    assert_eq!(tb.sim.board.bs_status() & 0xc0, TXREADY_IGC);
}

#[test]
fn status_bit_26_bs_rxfifo_overwritten_by_an_over_long_message_behind_a_blocked_bs_pbs() {
    let mut tb = fresh();
    let b = now(&tb);
    let text = format!(
        "message bs oversize\nBS_PBS\nBS_RECEIVE 0 0 32 fill=1\nmessage igc at={}\nVBS\n",
        b + 20_000
    );
    let r = run(&mut tb, &text);
    assert_ne!(tb.status() & 1 << BS_RXFIFO_OVW, 0);
    assert_eq!(tb.status() & ERROR_BITS, 1 << BS_RXFIFO_OVW);
    assert!(!r.errors().is_empty());
    assert_error_message(r.errors()[0], BS_RXFIFO_OVW);
    assert!(
        r.has_diag("error", "BS RxFIFO overwritten"),
        "{:?}",
        r.diags
    );
    assert!(
        r.errors()[0].start < b + 20_000,
        "reported while BS_PBS blocks"
    );
    assert_eq!(tb.sim.board.leds() >> 8 & 0x7f, 1 << 2, "LED 10");
    // Words were lost, so the BS_RECEIVE never gets all its data.
    let StopReason::Deadlock { waits, .. } = &r.out.stop else {
        panic!("expected the starved BS_RECEIVE, got {:?}", r.out.stop);
    };
    assert!(
        waits.iter().any(|w| w.waits_for.contains("BS_RECEIVE")),
        "{waits:?}"
    );
}

#[test]
fn status_bit_27_igc_rxfifo_overwritten_by_an_over_long_message_behind_a_blocked_pigc() {
    let mut tb = fresh();
    let b = now(&tb);
    let text = format!(
        "PIGC\nmessage igc oversize\n{}message bs at={}\nBS_VIGC\n",
        "NOOP\n".repeat(3000),
        b + 20_000
    );
    let r = run_done(&mut tb, &text);
    assert_eq!(tb.status() & ERROR_BITS, 1 << IGC_RXFIFO_OVW);
    assert!(!r.errors().is_empty());
    assert_error_message(r.errors()[0], IGC_RXFIFO_OVW);
    assert!(
        r.errors()[0].start < b + 20_000,
        "reported while PIGC blocks"
    );
    assert!(
        r.has_diag("error", "IGC RxFIFO overwritten"),
        "{:?}",
        r.diags
    );
    let noops = r.cmds.iter().filter(|c| c.name == "NOOP").count();
    assert!((2000..3000).contains(&noops), "{noops} NOOPs survived");
    assert_eq!(tb.sim.board.leds() >> 8 & 0x7f, 1 << 3, "LED 11");
}

#[test]
fn status_bit_29_igc_command_left_hanging_at_a_message_boundary() {
    let mut tb = fresh();
    let s = tb.parse("SCAIntoMEM_S1 0 8 5\n");
    let body = &s.messages[0].body;
    assert_eq!(body.last(), Some(&5), "the C word comes last");
    // The command without its C word, then a new message.
    let cut = body[..body.len() - 1].to_vec();
    let text = format!("message igc\n{}message igc\nINDON\n", words(cut));
    let r = run_done(&mut tb, &text);
    assert_eq!(tb.status() & ERROR_BITS, 1 << IGC_FORMAT);
    assert_one_error_message(&r, IGC_FORMAT);
    assert!(r.has_diag("error", "IGC formatting error"), "{:?}", r.diags);
    assert_eq!(
        tb.status() & INDICATOR,
        INDICATOR,
        "the next message is parsed from its first word"
    );
    assert_eq!(tb.sim.board.leds() >> 8 & 0x7f, 1 << 5, "LED 13");
}

#[test]
fn status_bit_30_igc_timeout_after_64k_ring_cycles() {
    let mut tb = fresh();
    let (mut waiting_from, mut strobe) = (None, None);
    let taken = tb.sim.board.igc.commands;
    let r = run_watch(&mut tb, "HANG\nNOOP\n", |sim| {
        let c = sim.board.cycle - 1;
        // HANG taken and the NOOP waiting in the command registers.
        let hang_taken = sim.board.igc.commands > taken;
        if waiting_from.is_none() && hang_taken && sim.board.llpr.go {
            waiting_from = Some(c);
        }
        if strobe.is_none() && sim.board.errors & 1 << IGC_TIMEOUT != 0 {
            strobe = Some(c);
        }
    });
    assert!(
        matches!(r.out.stop, StopReason::Stuck(_)),
        "{:?}",
        r.out.stop
    );
    assert_eq!(tb.status() & ERROR_BITS, 1 << IGC_TIMEOUT);
    assert_one_error_message(&r, IGC_TIMEOUT);
    // The NOOP arrives in cycle g; the strobe comes in the 65536th 20 MHz cycle (even 40 MHz
    // cycle) counting from g.
    let (g, e) = (waiting_from.unwrap(), strobe.unwrap());
    assert_eq!(
        e / 2 - g.div_ceil(2) + 1,
        65_536,
        "timeout strobe at {e}, command waiting since {g}"
    );
    assert!(e % 2 == 0 && e - g <= 131_072);
    assert_eq!(
        r.errors()[0].start,
        e,
        "the error message starts at once (the strobe's cycle is a Ring slot)"
    );
    assert!(r.has_diag("error", "IGC timeout"), "{:?}", r.diags);
    assert_eq!(tb.sim.board.leds() >> 8 & 0x7f, 1 << 6, "LED 14");
}

#[test]
fn status_bit_31_is_the_indicator() {
    let mut tb = fresh();
    assert_eq!(tb.status() & INDICATOR, 0, "off after reset");
    let r = run_done(&mut tb, "INDON\nSENDSTATUS_S1 0 0x10\n");
    assert_eq!(tb.status() & INDICATOR, INDICATOR);
    assert_eq!(tb.sim.board.leds() & 0x8000, 0x8000, "LED 15");
    assert_eq!(
        r.sent(PortId::Igc, MsgKind::Status)[0].words[2] & INDICATOR,
        INDICATOR
    );
    assert_eq!(
        tb.sim.board.bs_status() & INDICATOR,
        0,
        "not in the BS status word"
    );
    run_done(&mut tb, "INDOFF\n");
    assert_eq!(tb.status() & INDICATOR, 0);
    assert_eq!(tb.sim.board.leds() & 0x8000, 0);
    assert_eq!(tb.status() & ERROR_BITS, 0, "not an error");
}

#[test]
fn sticky_error_bits_stay_set_until_a_ring_reset() {
    let mut tb = fresh();
    let s = tb.parse("SCAIntoMEM_S1 0 8 5\n");
    let body = &s.messages[0].body;
    let cut = body[..body.len() - 1].to_vec();
    let text = format!(
        "INDON\nmessage igc\n{}message igc\nNOOP\nmessage bs dest=6\n",
        words(cut)
    );
    run_done(&mut tb, &text);
    let sticky = 1 << BS_FORMAT | 1 << IGC_FORMAT;
    assert_eq!(tb.status() & ERROR_BITS, sticky);
    let r = run_done(
        &mut tb,
        "VBS\nINDOFF\nSETENABS\nCLEAR 40 8\nmessage bs\nBS_VIGC\nBS_PBS\nBS_SENDSTATUS 1 2\n",
    );
    assert!(r.errors().is_empty());
    assert_eq!(tb.status() & ERROR_BITS, sticky, "still set");
    assert_eq!(tb.sim.board.leds() >> 8 & 0x7f, 0b011_0000, "LEDs 12, 13");
    run_done(&mut tb, "INDON\n");
    run_done(&mut tb, "reset\n");
    assert_eq!(tb.status() & ERROR_BITS, 0, "cleared by the Ring reset");
    assert_eq!(
        tb.status() & INDICATOR,
        0,
        "the indicator is off after reset"
    );
    assert_eq!(tb.sim.board.leds() & 0xff00, 0);
}

#[test]
fn leds_follow_the_seed_table() {
    let mut tb = fresh();
    // Idle after boot: AEO (all enables off), TxReady on both ports.
    assert_eq!(tb.sim.board.leds(), 0x00c1);
    run_done(&mut tb, "SETENABS\nVBS\nmessage bs\nBS_VIGC\n");
    assert_eq!(tb.sim.board.leds(), 0x00cc, "LEDs 2, 3, 6, 7");
    run_done(&mut tb, "INDON\n");
    assert_eq!(tb.sim.board.leds(), 0x80cc);
    // LED 5 (IGC RxFIFO not empty) and LED 1 (IGC busy) while a long command stream runs.
    let mut seen = 0u16;
    let r = run_watch(&mut tb, &"CLEAR 40 100\n".repeat(20), |sim| {
        seen |= sim.board.leds();
    });
    assert_eq!(r.out.stop, StopReason::Done);
    assert_eq!(seen & 0b10_0010, 0b10_0010, "LEDs 1 and 5 lit: {seen:#06x}");
    assert_eq!(seen & 0b1_0000, 0, "LED 4 dark: nothing for the BS port");
    assert_eq!(tb.sim.board.leds(), 0x80cc);
    // LED 4 (BS RxFIFO not empty) while BS commands wait behind a blocked BS_PBS.
    run_done(&mut tb, "message bs\nBS_PBS\n"); // BS semaphore back to 0
    let b = now(&tb);
    let mut lit = 0u64;
    let text = format!(
        "message bs\nBS_PBS\nBS_NOOP\nBS_NOOP\nmessage igc at={}\nVBS\n",
        b + 1000
    );
    let r = run_watch(&mut tb, &text, |sim| {
        if sim.board.leds() & 1 << 4 != 0 {
            lit += 1;
        }
    });
    assert_eq!(r.out.stop, StopReason::Done);
    assert!(lit >= 900, "LED 4 lit {lit} cycles");
    assert_eq!(tb.sim.board.leds(), 0x80c8, "LED 2 dark again");
    // Errors on LEDs 8-14 mirror status bits 24-30.
    run_done(&mut tb, "message bs dest=6\n");
    assert_eq!(tb.sim.board.leds(), 0x90c8);
    assert_eq!(
        (tb.sim.board.leds() >> 8) as u32 & 0x7f,
        tb.status() >> 24 & 0x7f
    );
}

// ===================== SENDSTATUS and error messages (seed §III.4.1-5, §III.4.2.5.6) ==========

#[test]
fn sendstatus_latches_and_goes_with_the_board_id_in_the_id() {
    let mut tb = fresh();
    let r = run_done(&mut tb, "VBS\nSENDSTATUS_S1 0xabcdefff 0x77\nVBS\nVBS\n");
    let st = r.sent(PortId::Igc, MsgKind::Status);
    assert_eq!(st.len(), 1);
    assert_eq!(
        st[0].words,
        [0x77, 0xabcd_ef05, 0x0000_01c0],
        "retaddr from sca, ID low byte = board ID, status at execution (BS sem 1)"
    );
    assert_eq!(st[0].end - st[0].start, 4, "three words at 20 MHz");
    let ss = r.cmd("SENDSTATUS");
    assert_eq!(ss.cycles, 1, "SENDSTATUS takes one cycle");
    assert!(ss.start <= st[0].start);
    let later = r.cmds.iter().filter(|c| c.name == "VBS").nth(1).unwrap();
    assert!(
        later.start <= st[0].end,
        "the next command runs while the message goes out"
    );
    assert_eq!(tb.sim.board.bs_sem.count, 3);
    assert!(r.errors().is_empty());
}

#[test]
fn next_sendstatus_waits_for_the_pending_one() {
    let mut tb = fresh();
    let b = now(&tb);
    let on = slot(b + 5000);
    let text = format!(
        "txready igc off at={b}\nSENDSTATUS_S1 0x100 0x10\nSENDSTATUS_S1 0x200 0x20\nINDON\ntxready igc on at={on}\n"
    );
    let mut wait_tx = 0u64;
    let r = run_watch(&mut tb, &text, |sim| {
        if sim.board.igc.state == IgcState::WaitTx {
            wait_tx += 1;
        }
    });
    assert_eq!(r.out.stop, StopReason::Done, "{:?}", r.diags);
    let st = r.sent(PortId::Igc, MsgKind::Status);
    assert_eq!(st.len(), 2, "{:?}", r.tx);
    assert_eq!(st[0].words[..2], [0x10, 0x105]);
    assert_eq!(st[1].words[..2], [0x20, 0x205]);
    assert_eq!(
        st[0].words[2] & TXREADY_IGC,
        0,
        "first latched while TxReady was low"
    );
    assert_eq!(
        st[1].words[2] & TXREADY_IGC,
        TXREADY_IGC,
        "second latched after the first went out"
    );
    assert!(st[0].start >= on);
    assert!(st[1].start > st[0].end);
    let cmds: Vec<_> = r.cmds.iter().filter(|c| c.name == "SENDSTATUS").collect();
    assert_eq!(cmds[0].cycles, 1);
    assert!(cmds[1].cycles >= 4900, "{:?}", cmds[1]);
    assert_eq!(cmds[1].causes.get(Cause::TxHold), cmds[1].cycles - 1);
    assert!(wait_tx >= 4900, "WAIT_TX for {wait_tx} cycles");
    assert!(cmds[1].start + cmds[1].cycles > st[0].end);
    assert!(r.cmd("INDON").start > st[0].end);
    assert!(r.errors().is_empty());
}

#[test]
fn error_while_sendstatus_waits_loses_its_message_and_sends_the_error() {
    let mut tb = fresh();
    let b = now(&tb);
    let (err_at, on) = (b + 2000, slot(b + 6000));
    let text = format!(
        "txready igc off at={b}\nSENDSTATUS_S1 0x100 0x10\nSENDSTATUS_S1 0x200 0x20\nINDON\n\
         message bs dest=6 at={err_at}\ntxready igc on at={on}\n"
    );
    let mut ind_at = None;
    let r = run_watch(&mut tb, &text, |sim| {
        if ind_at.is_none() && sim.board.igc.indicator {
            ind_at = Some(sim.board.cycle - 1);
        }
    });
    assert_eq!(r.out.stop, StopReason::Done, "{:?}", r.diags);
    let igc: Vec<&OutMessage> = r.tx.iter().filter(|m| m.port == PortId::Igc).collect();
    assert_eq!(igc.len(), 2, "{igc:?}");
    assert_eq!(
        igc[0].kind,
        MsgKind::Status,
        "the latched status message first"
    );
    assert_eq!(igc[0].words[..2], [0x10, 0x105]);
    assert_eq!(igc[0].words[2] & ERROR_BITS, 0, "status at its execution");
    assert_error_message(igc[1], BS_FORMAT);
    assert!(igc[0].start >= on && igc[1].start > igc[0].end);
    assert!(
        !r.tx.iter().any(|m| m.dest() == 0x20),
        "the interrupted SENDSTATUS lost its message"
    );
    assert!(
        r.has_diag("note", "SENDSTATUS was interrupted"),
        "{:?}",
        r.diags
    );
    let ind_at = ind_at.expect("INDON ran");
    assert!(
        ind_at > err_at && ind_at < on,
        "the IGC went on after the interruption: INDON at {ind_at}"
    );
}

#[test]
fn error_message_waits_for_an_already_latched_status_message() {
    let mut tb = fresh();
    let b = now(&tb);
    let (err_at, on) = (b + 1000, slot(b + 3000));
    let text = format!(
        "txready igc off at={b}\nSENDSTATUS_S1 0x300 0x30\nmessage bs dest=6 at={err_at}\n\
         txready igc on at={on}\n"
    );
    let r = run_done(&mut tb, &text);
    let igc: Vec<&OutMessage> = r.tx.iter().filter(|m| m.port == PortId::Igc).collect();
    assert_eq!(igc.len(), 2, "{igc:?}");
    assert_eq!(igc[0].kind, MsgKind::Status);
    assert_eq!(
        igc[0].words,
        [0x30, 0x305, 0x0000_0040],
        "TxReady IGC was low at latch"
    );
    assert_error_message(igc[1], BS_FORMAT);
    assert!(igc[0].start >= on);
    assert!(igc[1].start > igc[0].end, "the error message waited");
    assert!(!r.has_diag("note", "SENDSTATUS was interrupted"));
}

#[test]
fn sendstatus_waits_for_a_pending_error_message_and_is_not_lost() {
    // The error comes before the SENDSTATUS executes: nothing is interrupted; SENDSTATUS
    // waits for the error message (state WAIT_TX), then latches the status of that moment.
    let mut tb = fresh();
    let b = now(&tb);
    let on = slot(b + 4000);
    let text = format!(
        "txready igc off at={b}\nmessage bs dest=6\nmessage igc at={}\n\
         SENDSTATUS_S1 0x400 0x40\nINDON\ntxready igc on at={on}\n",
        b + 1000
    );
    let mut wait_tx = 0u64;
    let r = run_watch(&mut tb, &text, |sim| {
        wait_tx += (sim.board.igc.state == IgcState::WaitTx) as u64;
    });
    assert_eq!(r.out.stop, StopReason::Done, "{:?}", r.diags);
    let igc: Vec<&OutMessage> = r.tx.iter().filter(|m| m.port == PortId::Igc).collect();
    assert_eq!(igc.len(), 2, "{igc:?}");
    assert_error_message(igc[0], BS_FORMAT);
    assert_eq!(igc[1].kind, MsgKind::Status);
    assert_eq!(
        igc[1].words,
        [0x40, 0x405, 1 << BS_FORMAT | TXREADY_BS | TXREADY_IGC],
        "latched after the error message went out"
    );
    assert!(igc[0].start >= on && igc[1].start > igc[0].end);
    assert!(wait_tx >= 2900, "WAIT_TX for {wait_tx} cycles");
    assert!(!r.has_diag("note", "SENDSTATUS was interrupted"));
    assert!(r.cmd("INDON").start > igc[0].end);
}

#[test]
fn errors_while_an_error_message_is_being_sent_send_more_error_messages() {
    let mut tb = fresh();
    let b = now(&tb);
    let on = slot(b + 4000);
    // The first error message starts (TxReady low holds its words); a second error while it
    // is being sent requests another.
    let text = format!(
        "txready igc off at={b}\nmessage bs dest=6 at={}\nmessage bs dest=7 at={}\n\
         txready igc on at={on}\n",
        b + 1000,
        b + 2000
    );
    let r = run_done(&mut tb, &text);
    let e = r.errors();
    assert_eq!(e.len(), 2, "{:?}", r.tx);
    for m in &e {
        assert_error_message(m, BS_FORMAT);
        assert!(m.start >= on);
    }
    assert!(e[1].start > e[0].end);
}

// ===================== Deadlock detection around TxReady (engine) =====================

/// A port waiting for TxReady is not deadlocked while a TxReady change is scheduled; once
/// TxReady rises, the message must go out, whichever 40 MHz cycle the change falls on.
#[test]
fn txready_rising_between_two_ring_slots_is_not_a_deadlock() {
    let mut wrong = Vec::new();
    for (port, text) in [
        ("bs", "message bs\nBS_TRANSMIT 0 0 1 0x99\nBS_VIGC\n"),
        ("igc", "SENDSTATUS_S1 0x100 0x10\n"),
    ] {
        for parity in 0..2 {
            let mut tb = fresh();
            let b = now(&tb);
            let on = slot(b + 3000) + parity;
            let text = format!("txready {port} off at={b}\n{text}txready {port} on at={on}\n");
            let r = run(&mut tb, &text);
            let sent = r.tx.len() == 1 && r.tx[0].start >= on;
            if r.out.stop != StopReason::Done || !sent {
                let when = if parity == 0 {
                    "a Ring slot"
                } else {
                    "between slots"
                };
                wrong.push(format!(
                    "{port} port, TxReady back at cycle {on} ({when}): stop {:?}, {} message(s) sent",
                    r.out.stop,
                    r.tx.len()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
