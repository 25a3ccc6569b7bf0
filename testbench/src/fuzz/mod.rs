//! Fuzz targets: what must hold for any input, as plain functions of the fuzz bytes.
//!
//! Each target is `fn(&[u8])` that panics (an `assert!`) when a property fails. The same
//! functions run under libFuzzer (`testbench/fuzz/`, `cargo fuzz`) and in ordinary
//! `cargo test --release` (`testbench/tests/fuzz_corpus.rs`), which replays the seed corpus
//! ([`seeds`]) and every regression input kept under `testbench/fixtures/fuzz/<target>/`.
//! docs/testing.md has the recipe.
//!
//! | target | input | what must hold |
//! | --- | --- | --- |
//! | [`text_stream`] | text | parse → disassemble → parse and → binary → read give the same words; errors have a line |
//! | [`binary_stream`] | bytes | read → write → read gives the same bytes; its text form reads back the same |
//! | [`microcode_asm`] | text | an image fits the store, its JSON reads back equal; errors are sorted, with lines |
//! | [`microcode_run`] | choices | random microcode loaded through the stream stops within its cycle bound, a fault names an illegal microinstruction, a self-loop is stuck, the run's invariants |
//! | [`board_ring`] | choices | random Ring words on both ports: the run's invariants, error bits where the input demands them |
//! | [`wave_writers`] | choices | a VCD or FST of random signals reads back (wellen) with every value written; the `.gtkw` names them |
//!
//! The run invariants ([`check_run`]): the run stops by itself or at its bound, never past
//! it; a finished run delivered and consumed everything; a deadlock names who waits; a stuck
//! IGC is on HANG, an illegal microinstruction or a jump to itself; every sticky error bit
//! came with an error message to Ring address 0; the summary's error bits are the status
//! word's, and the exit code follows from both ([`pp5_sim::exit::of_run`]).

pub mod binary_stream;
pub mod board_ring;
pub mod bytes;
pub mod microcode_asm;
pub mod microcode_run;
pub mod seeds;
pub mod text_stream;
pub mod wave_writers;

use crate::Testbench;
use pp5_rtl::igc::microinstruction::{Seq, SEQ, TARGET};
use pp5_rtl::igc::IgcState;
use pp5_rtl::status::ERROR_MASK;
use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::engine::StopReason;
use pp5_sim::report::Summary;
use std::sync::OnceLock;

/// A fuzz target: panics when a property fails.
pub type Target = fn(&[u8]);

/// Every target by name (the names of the `cargo fuzz` targets and of the directories under
/// `testbench/fixtures/fuzz/`).
pub const TARGETS: [(&str, Target); 6] = [
    ("text_stream", text_stream::check),
    ("binary_stream", binary_stream::check),
    ("microcode_asm", microcode_asm::check),
    ("microcode_run", microcode_run::check),
    ("board_ring", board_ring::check),
    ("wave_writers", wave_writers::check),
];

/// The default microcode (standard + QEE + flow control), assembled once: its opcode table
/// names the commands of the stream targets.
pub fn image() -> &'static McImage {
    static IMG: OnceLock<McImage> = OnceLock::new();
    IMG.get_or_init(microcode::default_image)
}

/// A board booted with the standard microcode, once; each case runs on a clone.
pub fn booted() -> &'static Testbench {
    static TB: OnceLock<Testbench> = OnceLock::new();
    TB.get_or_init(Testbench::standard)
}

/// The invariants of a run of `tb` that started at cycle `start` and was allowed `bound`
/// cycles (see the module documentation).
pub fn check_run(tb: &Testbench, stop: &StopReason, start: u64, bound: u64) {
    let sim = &tb.sim;
    let b = &sim.board;
    assert!(
        b.cycle <= start + bound,
        "ran past its bound: cycle {} > {start} + {bound}",
        b.cycle
    );
    match stop {
        StopReason::Done => {
            assert!(sim.ring.igc.is_empty() && sim.ring.bs.is_empty());
            assert_eq!(sim.ring.igc.delivered, sim.ring.igc.total);
            assert_eq!(sim.ring.bs.delivered, sim.ring.bs.total);
            assert!(b.quiescent(), "done but not quiescent");
        }
        StopReason::MaxCycles => assert_eq!(b.cycle, start + bound, "cycle limit"),
        StopReason::Deadlock { since, waits } => {
            assert!(!waits.is_empty(), "a deadlock names who waits");
            assert!(*since <= b.cycle && waits.iter().all(|w| w.since <= b.cycle));
            assert!(
                sim.diagnostics.dropped > 0
                    || sim
                        .diagnostics
                        .iter()
                        .any(|d| d.msg.starts_with("deadlock: ")),
                "a deadlock without its diagnostic"
            );
        }
        StopReason::Stuck(why) => check_stuck(tb, why),
        StopReason::Interrupted => panic!("interrupted without an interrupt"),
        StopReason::Breakpoint(what) => panic!("a breakpoint without one set: {what}"),
    }
    check_error_messages(tb, stop);
    check_exit_code(tb, stop);
}

/// A stuck IGC is on HANG, on an illegal microinstruction (with a fault diagnostic), or on a
/// microinstruction that jumps to itself (by its sequencer or its flow-control instruction).
fn check_stuck(tb: &Testbench, why: &str) {
    let igc = &tb.sim.board.igc;
    match igc.state {
        IgcState::Hang => {}
        IgcState::Fault => {
            assert!(
                igc.store.uinst(igc.pc).is_err(),
                "faulted on a legal microinstruction at PC {}: {why}",
                igc.pc
            );
            assert!(
                tb.sim.diagnostics.dropped > 0
                    || tb
                        .sim
                        .diagnostics
                        .iter()
                        .any(|d| d.level == "fault" && d.msg.contains("illegal microinstruction")),
                "a fault without its diagnostic: {why}"
            );
        }
        IgcState::Run => {
            let w = igc.store.uinst_words(igc.pc);
            assert_eq!(
                TARGET.get(&w),
                u32::from(igc.pc),
                "stuck in Run at PC {} on a microinstruction that does not jump to itself: {why}",
                igc.pc
            );
            // The jump is the sequencer's or the flow-control unit's (its JUMP goes to
            // TARGET too).
            let fc_jump = igc
                .store
                .uinst(igc.pc)
                .as_ref()
                .is_ok_and(|m| m.fc.is_some());
            assert!(SEQ.get(&w) != Seq::Next as u32 || fc_jump, "{why}");
        }
        s => panic!("stuck in IGC state {s:?}: {why}"),
    }
}

/// Every sticky error bit was reported by an error message to Ring address 0 since the last
/// reset (or one is still waiting to go out), and an error message carries only bits that
/// are set.
fn check_error_messages(tb: &Testbench, stop: &StopReason) {
    let sim = &tb.sim;
    let b = &sim.board;
    let reset = sim.ring.resets_done.last().copied().unwrap_or(0);
    let errors = b.status() & ERROR_MASK;
    let sent: Vec<_> = sim
        .tx
        .iter()
        .filter(|m| m.is_error() && m.start >= reset)
        .collect();
    let in_flight = b.igc_port.messages.pending() || *stop == StopReason::MaxCycles;
    for bit in 0..32 {
        if errors & (1 << bit) != 0 {
            assert!(
                in_flight
                    || sent
                        .iter()
                        .any(|m| m.words.get(2).is_some_and(|w| w & (1 << bit) != 0)),
                "status bit {bit} without an error message"
            );
        }
    }
    for m in &sent {
        assert_eq!(m.dest(), 0, "error messages go to Ring address 0");
        let carried = m.words.get(2).copied().unwrap_or(0);
        assert_eq!(carried & ERROR_MASK & !errors, 0, "sticky bits stay set");
    }
    if errors == 0 {
        assert!(sent.is_empty(), "an error message without an error bit");
    }
}

/// The summary lists exactly the status word's sticky error bits, renders in every format,
/// and the exit code follows from the stop and the bits.
fn check_exit_code(tb: &Testbench, stop: &StopReason) {
    use pp5_sim::exit;
    let status = tb.sim.board.status();
    let summary = Summary::of(&tb.sim, stop);
    assert_eq!(
        summary.error_bits.len() as u32,
        (status & ERROR_MASK).count_ones(),
        "the summary's error bits {:?} are not the status word's {status:#010x}",
        summary.error_bits
    );
    let code = exit::of_run(stop, status);
    assert_eq!(
        summary.clean(),
        code == exit::OK,
        "exit code {code}: {stop:?}"
    );
    let hw = matches!(stop, StopReason::Stuck(_))
        || (*stop == StopReason::Done && status & ERROR_MASK != 0);
    assert_eq!(code == exit::HW_ERROR, hw, "exit code {code}: {stop:?}");
    assert!(!summary.table(0).is_empty());
    assert!(!summary.csv().is_empty());
    let json: Result<serde_json::Value, _> = serde_json::from_str(&summary.json());
    assert!(json.is_ok(), "the JSON report does not parse");
}
