//! The QEE through the whole machine: coefficients through the Stream Parser, a microcode
//! routine that starts the evaluator and stores the bit-serial tree result, the seed's worked
//! examples, and a re-mapped EMC (SEPCFG) changing only its own pixels.
//!
//! The routines are the standard microcode's (`sim/microcode/qee.pp5uc`).

use pp5_rtl::qee::arith::max_tree_len;
use pp5_rtl::qee::QEE_LATENCY;
use pp5_sim::engine::StopReason;
use pp5_testbench::Testbench;
use std::sync::OnceLock;

fn bench() -> Testbench {
    static TB: OnceLock<Testbench> = OnceLock::new();
    TB.get_or_init(Testbench::standard).clone()
}

/// Sign-extend a `len`-bit field.
fn signed(v: u64, len: usize) -> i64 {
    ((v << (64 - len)) as i64) >> (64 - len)
}

#[test]
fn linear_tree_into_memory_matches_the_seed_examples() {
    let mut tb = bench();
    let out = tb.run_text(
        "SETENABS\nFBITS 10\n\
         TREEIntoMEM_L3 0 16 1.0 1.0 1.99\n\
         TREEIntoMEM_L3 16 16 1.0 1.0 -1.99\n\
         TREEIntoMEM_L3 32 16 0.1 0.0 0.0\n\
         TREEIntoMEM_L3 48 16 -0.1 0.0 0.0\n",
    );
    assert_eq!(out.stop, StopReason::Done, "{:?}", tb.sim.diagnostics);
    for (x, y) in [(0usize, 0usize), (10, 0), (3, 7), (127, 127), (64, 31)] {
        let (xi, yi) = (x as i64, y as i64);
        // x+y+1.99 → x+y+1; x+y-1.99 → x+y-2 (the floor)
        assert_eq!(signed(tb.peek(x, y, 0, 16), 16), xi + yi + 1, "({x},{y})");
        assert_eq!(signed(tb.peek(x, y, 16, 16), 16), xi + yi - 2, "({x},{y})");
        // 0.1 is 102/1024 at FBITS 10: 0.1x at x=10 is 1020/1024 → 0; -0.1x → -1
        let pos = (102 * xi) >> 10;
        let neg = (-102 * xi) >> 10;
        assert_eq!(signed(tb.peek(x, y, 32, 16), 16), pos, "({x},{y})");
        assert_eq!(signed(tb.peek(x, y, 48, 16), 16), neg, "({x},{y})");
    }
    assert_eq!(signed(tb.peek(10, 0, 32, 16), 16), 0);
    assert_eq!(signed(tb.peek(10, 0, 48, 16), 16), -1);
    // One set-up cycle that starts the QEE, then one cycle per bit.
    let tree_cycles: Vec<u64> = out
        .command_cycles
        .iter()
        .filter(|c| c.0 == "TREEIntoMEM")
        .map(|c| c.1)
        .collect();
    assert_eq!(tree_cycles, vec![17; 4]);
    assert_eq!(
        QEE_LATENCY, 1,
        "the routine reads bit 0 in the cycle after qee=start"
    );
}

#[test]
fn quadratic_mode_and_coefficient_reuse() {
    let mut tb = bench();
    // Q6 sends A B C D E F (macro order); Q1 re-uses A, B, D, E, F with a new C.
    tb.run_text(
        "SETENABS\nFBITS 4\n\
         TREEIntoMEM_Q6 0 24 1.0 -2.0 3.5 0.5 0.25 -1.0\n\
         TREEIntoMEM_Q1 24 24 -10.0\n",
    );
    for (x, y) in [(0usize, 0usize), (5, 3), (100, 17), (127, 127)] {
        let (xf, yf) = (x as f64, y as f64);
        let q = |c: f64| (0.5 * xf * xf + 0.25 * xf * yf - yf * yf + xf - 2.0 * yf + c).floor();
        assert_eq!(signed(tb.peek(x, y, 0, 24), 24), q(3.5) as i64, "({x},{y})");
        assert_eq!(
            signed(tb.peek(x, y, 24, 24), 24),
            q(-10.0) as i64,
            "({x},{y})"
        );
    }
}

#[test]
fn tree_writes_respect_enable() {
    let mut tb = bench();
    tb.run_text("SETENABS\nSET 0 8\n");
    tb.set_enable(3, 3, false);
    tb.run_text("TREEIntoMEM_C1 0 8 5.0\n");
    assert_eq!(tb.peek(3, 3, 0, 8), 0xff, "disabled pixel untouched");
    assert_eq!(tb.peek(4, 3, 0, 8), 5);
}

#[test]
fn sepcfg_remaps_one_chip_and_only_it() {
    let mut tb = bench();
    // EMC 5 covers columns 40..48 of rows 0..32. Move its origin to (1000, 2000).
    let cfg = 1000u32 | (2000u32 << 16);
    let out = tb.run_text(&format!(
        "SETENABS\nFBITS 0\nSEPCFG_S1 5 32 {cfg}\nNOOP\nNOOP\nTREEIntoMEM_L3 0 16 1.0 0.0 0.0\nTREEIntoMEM_L3 16 16 0.0 1.0 0.0\n"
    ));
    assert_eq!(out.stop, StopReason::Done);
    assert_eq!(tb.peek(42, 5, 0, 16), 1002, "x of a remapped pixel");
    assert_eq!(tb.peek(42, 5, 16, 16), 2005, "y of a remapped pixel");
    assert_eq!(tb.peek(39, 5, 0, 16), 39, "the neighbour chip is unchanged");
    assert_eq!(tb.peek(48, 5, 0, 16), 48);
    assert_eq!(tb.peek(42, 32, 16, 16), 32, "the chip below is unchanged");
    // SEPCFG takes one cycle per bit after its set-up cycle.
    let sep = out
        .command_cycles
        .iter()
        .find(|c| c.0 == "SEPCFG")
        .map(|c| c.1);
    assert_eq!(sep, Some(33));
}

#[test]
fn supcfg_shifts_the_ones_complement_into_every_chip() {
    let mut tb = bench();
    // Every EMC gets origin (-8, 16): send the 1's complement as the scalar.
    let cfg = (-8i16 as u16 as u32) | (16u32 << 16);
    tb.run_text(&format!(
        "SETENABS\nFBITS 0\nSUPCFG_S1 32 {}\nNOOP\nNOOP\nTREEIntoMEM_L3 0 16 1.0 0.0 0.0\n",
        !cfg as i32
    ));
    for (x, y) in [(0usize, 0usize), (9, 40), (127, 127)] {
        assert_eq!(
            signed(tb.peek(x, y, 0, 16), 16),
            -8 + (x % 8) as i64,
            "({x},{y})"
        );
    }
}

#[test]
fn the_longest_tree_operand_is_73_minus_fbits() {
    assert_eq!(max_tree_len(10), 63);
    let mut tb = bench();
    tb.run_text("SETENABS\nFBITS 30\nTREEIntoMEM_C1 0 43 -1.0\n");
    assert_eq!(
        tb.peek(0, 0, 0, 43),
        (1u64 << 43) - 1,
        "-1 sign-extended to 43 bits"
    );
}

#[test]
fn coefficients_reused_after_fbits_keep_their_old_scaling_and_are_flagged() {
    let mut tb = bench();
    // A, B, C sent at FBITS 10, re-used (_L0) at FBITS 4: the hardware would shift in the old
    // fixed-point values, so the result is mis-scaled; the model says so.
    let out = tb.run_text(
        "SETENABS\nFBITS 10\nTREEIntoMEM_L3 0 16 1.5 -2.0 3.0\nFBITS 4\nTREEIntoMEM_L0 16 20\n",
    );
    assert_eq!(out.stop, StopReason::Done);
    let notes: Vec<&str> = tb
        .sim
        .diagnostics
        .iter()
        .map(|d| d.msg.as_str())
        .filter(|m| m.contains("re-uses coefficient"))
        .collect();
    assert_eq!(notes.len(), 3, "{:?}", tb.sim.diagnostics);
    assert!(
        notes[0].contains("sent at FBITS 10; FBITS is now 4"),
        "{notes:?}"
    );
    for (x, y) in [(3usize, 1usize), (100, 50)] {
        let (xi, yi) = (x as i64, y as i64);
        // fresh at FBITS 10: floor(1.5x - 2y + 3)
        let fresh = (3 * xi - 4 * yi + 6).div_euclid(2);
        assert_eq!(signed(tb.peek(x, y, 0, 16), 16), fresh, "({x},{y})");
        // 1536x - 2048y + 3072, floored at 4 fractional bits
        let stale = (1536 * xi - 2048 * yi + 3072).div_euclid(16);
        assert_eq!(signed(tb.peek(x, y, 16, 20), 20), stale, "({x},{y})");
    }
}

#[test]
fn coefficients_are_stale_after_a_microcode_reload() {
    let mut tb = bench();
    tb.run_text("SETENABS\nFBITS 10\nTREEIntoMEM_C1 0 8 5.0\n");
    // Reload the same microcode on the fly, then re-use C.
    for body in tb.image.boot_messages(1023) {
        tb.sim.queue(pp5_sim::engine::RingMessage { dest: 0, body });
    }
    tb.run_text("FBITS 10\nTREEIntoMEM_C0 8 8\n");
    assert!(
        tb.sim.diagnostics.iter().any(|d| d
            .msg
            .contains("coefficient C, which was not sent since reset or the last microcode load")),
        "{:?}",
        tb.sim.diagnostics
    );
}

#[test]
fn qee_rules_the_hardware_does_not_check_are_flagged() {
    let mut tb = bench();
    // SEPCFG followed directly by a QEE command (no NOOPs): a warning. len 60 at FBITS 20
    // (> 53): the command checker's formatting error (status bit 29 and an error message).
    tb.run_text("SETENABS\nFBITS 20\nSEPCFG_S1 5 32 40\nTREEIntoMEM_C1 0 60 1.0\n");
    let by_level = |tb: &Testbench, level: &str| -> Vec<String> {
        tb.sim
            .diagnostics
            .iter()
            .filter(|d| d.level == level)
            .map(|d| d.msg.clone())
            .collect()
    };
    let w = by_level(&tb, "warning");
    assert!(
        w.iter()
            .any(|m| m.contains("TREEIntoMEM follows a QEE configuration")
                && m.contains("2 of the two NOOPs")),
        "{w:?}"
    );
    let e = by_level(&tb, "error");
    assert!(
        e.iter()
            .any(|m| m.contains("len = 60 exceeds 73 - FBITS = 53")),
        "{e:?}"
    );
    assert_ne!(tb.status() & 1 << 29, 0, "status bit 29");
    assert!(
        tb.sim.tx.iter().any(|m| m.is_error()),
        "an error message went out"
    );
    // With the two NOOPs and a legal length: neither.
    let mut tb = bench();
    tb.run_text("SETENABS\nFBITS 20\nSEPCFG_S1 5 32 40\nNOOP\nNOOP\nTREEIntoMEM_C1 0 53 1.0\n");
    assert!(
        tb.sim
            .diagnostics
            .iter()
            .all(|d| d.level != "warning" && d.level != "error"),
        "{:?}",
        tb.sim.diagnostics
    );
    assert_eq!(tb.status() & 1 << 29, 0);
}

/// A raw CPY(0, 40, 8) with its P word patched.
fn raw_cpy(tb: &Testbench, dst: u32, dlen: u32) -> pp5_sim::stream::Stream {
    let spec = tb.sim.table.get("CPY").expect("CPY");
    let mut words = spec
        .encode(pp5_sim::asm::opcodes::Form::Plain, &[0, 40, 8], &[])
        .expect("encode");
    // Opcode F0 (bits 17:8) = dst; P word F2 (bits 15:8) = dlen (docs/encodings.md).
    words[0] = (words[0] & !(0x3ff << 8)) | dst << 8;
    words[1] = (words[1] & !(0xff << 8)) | dlen << 8;
    let mut b = tb.builder();
    b.words(&words).expect("words");
    b.finish()
}

#[test]
fn out_of_range_lengths_in_raw_streams_are_formatting_errors() {
    for (dst, dlen, what) in [
        (0, 200, "dlen = 200 is outside 1..=128"),
        (0, 0, "dlen = 0 is outside 1..=128"),
        (200, 16, "runs past pixel-memory bit 207"),
    ] {
        let mut tb = bench();
        let s = raw_cpy(&tb, dst, dlen);
        tb.run(&s, 100_000);
        let errors: Vec<&str> = tb
            .sim
            .diagnostics
            .iter()
            .filter(|d| d.level == "error")
            .map(|d| d.msg.as_str())
            .collect();
        assert!(
            errors.iter().any(|m| m.contains(what)),
            "{what}: {errors:?}"
        );
        assert_ne!(tb.status() & 1 << 29, 0, "{what}: status bit 29");
    }
    // The same command with legal fields: no error.
    let mut tb = bench();
    let s = raw_cpy(&tb, 100, 16);
    tb.run(&s, 100_000);
    assert_eq!(tb.status() & 1 << 29, 0);
}
