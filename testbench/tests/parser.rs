//! The Stream Parser through the real board (seed 003 §III.4.1-1, §III.4.2.1, §III.4.2.5.3):
//! every formatting-error path, the lookup-table mode, coefficient re-use, flush-able
//! messages, and the RMode rules of the IGC control logic.
//!
//! Each formatting error must: set status bit 29, send one error message to Ring address 0
//! (ID low byte = board ID, status word with bit 29), leave a diagnostic, drop the partial
//! command, and let the parser start the next message from the beginning.

use pp5_rtl::igc::opcode::{
    CMD_FBITS, CMD_MCREAD, CMD_RMODEON, COEFMODE_SHIFT, FBITS_SHIFT, FBLD_BIT, LONG_BIT,
};
use pp5_rtl::igc::IgcState;
use pp5_rtl::igc_port::parser::ParserState;
use pp5_rtl::status::DEFAULT_BOARD_ID;
use pp5_sim::engine::StopReason;
use pp5_testbench::Testbench;

const FORMAT_ERROR: u32 = 1 << 29;
/// Pixels checked in every memory test: corners, the middle, and one in each AEO stripe.
const PIXELS: [(usize, usize); 6] = [(0, 0), (127, 127), (64, 64), (9, 100), (33, 5), (120, 31)];

/// The stream words of one macro (opcode, P word, coefficients) from the image's table.
fn encode(tb: &Testbench, mac: &str, args: &[u32], coefs: &[u32]) -> Vec<u32> {
    let (spec, form) = tb
        .image
        .table
        .resolve(mac)
        .unwrap_or_else(|| panic!("no macro {mac}"));
    spec.encode(form, args, coefs)
        .unwrap_or_else(|e| panic!("{mac}: {e}"))
}

/// A `word` line of the text format.
fn word_line(ws: &[u32]) -> String {
    let hex: Vec<String> = ws.iter().map(|w| format!("{w:#010x}")).collect();
    format!("word {}", hex.join(" "))
}

/// The error messages the board sent: (destination, ID, status).
fn error_messages(tb: &Testbench) -> Vec<[u32; 3]> {
    tb.sim
        .tx
        .iter()
        .filter(|m| m.is_error())
        .map(|m| [m.words[0], m.words[1], m.words[2]])
        .collect()
}

/// Names of the commands taken after the first `from` records.
fn names_from(tb: &Testbench, from: usize) -> Vec<String> {
    tb.sim.commands[from..]
        .iter()
        .map(|c| c.name.to_string())
        .collect()
}

/// `mem[lsb:len]` at every pixel of [`PIXELS`] equals `v`.
fn assert_mem(tb: &Testbench, lsb: usize, len: usize, v: u64) {
    for &(x, y) in &PIXELS {
        assert_eq!(
            tb.peek(x, y, lsb, len),
            v,
            "mem[{lsb}:{len}] of pixel ({x},{y})"
        );
    }
}

/// Exactly one formatting error was reported, with the hardware's and the simulator's signs.
fn assert_one_format_error(tb: &Testbench, diag_has: &[&str]) {
    assert_ne!(tb.status() & FORMAT_ERROR, 0, "status bit 29");
    let msgs = error_messages(tb);
    assert_eq!(msgs.len(), 1, "one error message: {msgs:x?}");
    let [dest, id, status] = msgs[0];
    assert_eq!(dest, 0, "error messages go to Ring address 0");
    assert_eq!(
        id & 0xff,
        DEFAULT_BOARD_ID as u32,
        "board ID in the ID's low byte"
    );
    assert_ne!(
        status & FORMAT_ERROR,
        0,
        "status word of the message has bit 29"
    );
    let errors: Vec<&str> = tb
        .sim
        .diagnostics
        .iter()
        .filter(|d| d.level == "error")
        .map(|d| d.msg.as_str())
        .collect();
    assert_eq!(errors.len(), 1, "one error diagnostic: {errors:?}");
    assert!(errors[0].contains("status bit 29"), "{}", errors[0]);
    for s in diag_has {
        assert!(
            errors[0].contains(s),
            "diagnostic {:?} lacks {s:?}",
            errors[0]
        );
    }
}

fn assert_clean(tb: &Testbench) {
    assert_eq!(tb.status() & FORMAT_ERROR, 0, "status bit 29");
    assert!(error_messages(tb).is_empty());
    assert!(
        tb.sim.diagnostics.iter().all(|d| d.level != "error"),
        "{:?}",
        tb.sim.diagnostics
    );
}

/// A booted board with every pixel enabled and mem[0:32] = 0, mem[32:8] = 0x5a.
fn prepared() -> Testbench {
    let mut tb = Testbench::standard();
    let o = tb.run_text("SETENABS\nCLEAR 0 32\nSCAIntoMEM_S1 32 8 0x5a\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_clean(&tb);
    tb
}

/// Send a message holding `partial` (a command cut short), then a message with
/// `SCAIntoMEM_S1 16 8 42`. `before` commands of the partial message execute before the
/// error (lookup-table entries already read).
fn truncated_then_next(partial: &[u32], state: ParserState, before: &[&str]) -> Testbench {
    let mut tb = prepared();
    let first = tb.sim.commands.len();
    let text = format!(
        "message\n{}\nmessage\nSCAIntoMEM_S1 16 8 42\n",
        word_line(partial)
    );
    let o = tb.run_text(&text);
    assert_eq!(o.stop, StopReason::Done);
    let state_text = format!("parser in {}", state.name());
    assert_one_format_error(
        &tb,
        &["message ended in the middle of a command", &state_text],
    );
    let opcode_text = format!("opcode {:#010x}", partial[0]);
    assert!(
        tb.sim.diagnostics[0].msg.contains(&opcode_text),
        "{:?}",
        tb.sim.diagnostics[0]
    );
    // The partial command was dropped; the next message parsed from its beginning.
    let mut want: Vec<String> = before.iter().map(|s| s.to_string()).collect();
    want.push("SCAIntoMEM".into());
    assert_eq!(names_from(&tb, first), want);
    assert_eq!(
        tb.sim.commands.last().map(|c| c.operands.to_vec()),
        Some(vec![16, 8])
    );
    assert_mem(&tb, 16, 8, 42);
    assert_eq!(tb.sim.board.igc_port.parser.state, ParserState::Opcode);
    // The error was raised in the cycle the next message's destination was read; its message
    // starts in the same cycle or, off the 20 MHz slot, the next.
    let err_start = tb.sim.tx[0].start;
    let diag = tb.sim.diagnostics[0].cycle;
    assert!(
        err_start == diag || err_start == diag + 1,
        "{err_start} vs {diag}"
    );
    tb
}

#[test]
fn message_ends_where_the_p_word_should_be() {
    let tb = prepared();
    let w = encode(&tb, "SCAIntoMEM_S1", &[0, 8], &[0x77]);
    assert_eq!(w.len(), 3, "opcode, P, C");
    assert_ne!(w[0] & LONG_BIT, 0);
    let tb = truncated_then_next(&w[..1], ParserState::PWord, &[]);
    assert_mem(&tb, 0, 16, 0);
    assert_mem(&tb, 24, 8, 0);
}

#[test]
fn message_ends_inside_the_coefficients() {
    // MEMeqSCA_S1 0 8 with C = 7 would clear every Enable (mem[0:8] = 0 != 7): dropped, the
    // Enables stay set and the next SCAIntoMEM writes everywhere.
    let tb = prepared();
    let w = encode(&tb, "MEMeqSCA_S1", &[0, 8], &[7]);
    assert_eq!(w.len(), 3);
    let tb = truncated_then_next(&w[..2], ParserState::Coef(0), &[]);
    assert!(PIXELS.iter().all(|&(x, y)| tb.enable(x, y)));
    assert_eq!(tb.status() & 0xf, 0xf, "all four AEO stripes still on");
}

#[test]
fn message_ends_inside_six_coefficients() {
    // A quadratic-mode opcode (CoefMode 11, bit 19 set) with 3 of its 6 coefficients.
    let tb = prepared();
    let noop = encode(&tb, "NOOP", &[], &[])[0];
    let op = noop | 3 << COEFMODE_SHIFT | 3 << 18;
    truncated_then_next(&[op, 1, 2, 3], ParserState::Coef(3), &[]);
}

#[test]
fn message_ends_inside_a_lookup_table() {
    // SCAIntoMEM_TBL 0 8 with the values 1, 2 and no word with bit 31: each value already
    // executed one SCAIntoMEM when it was read; the end of the message is an error.
    let tb = prepared();
    let w = encode(&tb, "SCAIntoMEM_TBL", &[0, 8], &[1, 2]);
    assert_eq!(w.len(), 4);
    let mut partial = w.clone();
    partial[3] &= !LONG_BIT; // the last value no longer ends the table
    let tb = truncated_then_next(&partial, ParserState::Table, &["SCAIntoMEM", "SCAIntoMEM"]);
    assert_mem(&tb, 0, 8, 2);
}

#[test]
fn message_ends_before_the_first_table_entry() {
    let tb = prepared();
    let w = encode(&tb, "SCAIntoMEM_TBL", &[0, 8], &[1]);
    let tb = truncated_then_next(&w[..2], ParserState::Table, &[]);
    assert_mem(&tb, 0, 8, 0);
}

#[test]
fn a_stream_ending_mid_command_waits_and_errs_when_the_next_message_comes() {
    // Nothing marks the end of the last message but the start of another (seed: "actually
    // the beginning of the next message"): the parser waits, so with no more input the run
    // stops as a deadlock (the parser waits for the rest of its command), without a hardware
    // error; the command never executes, and the error comes with the next message.
    let mut tb = prepared();
    let first = tb.sim.commands.len();
    let w = encode(&tb, "SCAIntoMEM_S1", &[0, 8], &[0x77]);
    let o = tb.run(
        &tb.parse(&format!("message\n{}\n", word_line(&w[..2]))),
        100_000,
    );
    match &o.stop {
        StopReason::Deadlock { waits, .. } => {
            assert_eq!(waits.len(), 1, "{waits:?}");
            assert_eq!(waits[0].block, "igc_port.parser");
            assert!(waits[0].waits_for.contains("COEF"), "{waits:?}");
        }
        s => panic!("expected the starved parser as a deadlock: {s:?}"),
    }
    assert!(
        o.cycles < 100,
        "stopped soon after the last word: {}",
        o.cycles
    );
    assert_eq!(tb.sim.board.igc_port.parser.state, ParserState::Coef(0));
    assert_eq!(tb.status() & FORMAT_ERROR, 0, "status bit 29");
    assert!(error_messages(&tb).is_empty());
    tb.sim.diagnostics.clear();
    assert!(names_from(&tb, first).is_empty());
    let o = tb.run_text("message\nSCAIntoMEM_S1 16 8 42\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_one_format_error(&tb, &["parser in COEF"]);
    assert_eq!(names_from(&tb, first), ["SCAIntoMEM"]);
    assert_mem(&tb, 0, 16, 0);
    assert_mem(&tb, 16, 8, 42);
}

#[test]
fn errors_are_sticky_and_each_one_sends_a_message() {
    let mut tb = prepared();
    let op = encode(&tb, "SCAIntoMEM_S1", &[0, 8], &[1])[0];
    let text = format!(
        "message\n{w}\nmessage\n{w}\nmessage\nNOOP\n",
        w = word_line(&[op])
    );
    tb.run_text(&text);
    let msgs = error_messages(&tb);
    assert_eq!(msgs.len(), 2, "{msgs:x?}");
    assert!(msgs.iter().all(|m| m[0] == 0 && m[2] & FORMAT_ERROR != 0));
    // A later clean command does not clear the sticky bit.
    tb.run_text("NOOP\n");
    assert_ne!(tb.status() & FORMAT_ERROR, 0);
    assert_eq!(error_messages(&tb).len(), 2);
}

#[test]
fn lookup_table_mode_runs_once_per_c_word() {
    let mut tb = prepared();
    let first = tb.sim.commands.len();
    let o = tb.run_text("SCAIntoMEM_TBL 0 8 1 2 3 4 5\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_clean(&tb);
    assert_eq!(o.command_cycles, vec![("SCAIntoMEM".to_string(), 9); 5]);
    assert_eq!(tb.sim.commands.len() - first, 5);
    // The last value (with bit 31 set as the table end) wins; 8 bits are written.
    assert_mem(&tb, 0, 8, 5);
    assert_eq!(
        tb.sim.board.igc.sca(),
        5 | LONG_BIT,
        "sca holds the last C word"
    );
    // Table values are read one per command: a MEMeqSCA table over mem[32:8] = 0x5a ANDs
    // every comparison into Enable.
    let o = tb.run_text("MEMeqSCA_TBL 32 8 0x5a 0x5a\n");
    assert_eq!(o.command_cycles.len(), 2);
    assert!(PIXELS.iter().all(|&(x, y)| tb.enable(x, y)));
    let o = tb.run_text("MEMeqSCA_TBL 32 8 0x5a 0x11 0x5a\n");
    assert_eq!(o.command_cycles.len(), 3);
    assert!(
        PIXELS.iter().all(|&(x, y)| !tb.enable(x, y)),
        "the 0x11 entry ran"
    );
}

#[test]
fn a_single_entry_table_is_one_command() {
    let mut tb = prepared();
    let o = tb.run_text("SCAIntoMEM_TBL 0 8 9\n");
    assert_eq!(o.command_cycles, vec![("SCAIntoMEM".to_string(), 9)]);
    assert_mem(&tb, 0, 8, 9);
}

#[test]
fn coefficient_c_is_reused_by_s0() {
    let mut tb = prepared();
    let o = tb.run_text("SCAIntoMEM_S1 0 8 42\nSCAIntoMEM_S0 8 8\nSCAIntoMEM_S0 16 16\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_clean(&tb);
    assert_mem(&tb, 0, 8, 42);
    assert_mem(&tb, 8, 8, 42);
    assert_mem(&tb, 16, 16, 42);
    // After a table the C register holds the last table word, bit 31 included, and
    // sca[n] sign-extends past bit 31.
    tb.run_text("SCAIntoMEM_TBL 0 8 1 3\nSCAIntoMEM_S0 40 40\n");
    assert_eq!(tb.peek(3, 4, 40, 40), 0xff_8000_0003);
    // A command without the scalar does not disturb it.
    tb.run_text("CLEAR 100 8\nSCAIntoMEM_S0 100 8\n");
    assert_eq!(tb.peek(0, 0, 100, 8), 3);
}

/// Words of a flush-able message: SETENABS, INDON, ENABIntoMEM 60 (each visible even with all
/// Enables off), `pad` NOOPs.
fn probe_flush_message(pad: usize) -> String {
    format!(
        "message flush\nSETENABS\nINDON\nENABIntoMEM 60\n{}",
        "NOOP\n".repeat(pad)
    )
}

#[test]
fn flushable_message_is_discarded_while_aeo_is_asserted() {
    let mut tb = prepared();
    let o = tb.run_text("message\nCLRENABS\nNOOP\nNOOP\nNOOP\nNOOP\n");
    assert_eq!(o.stop, StopReason::Done);
    assert!(tb.sim.board.array.aeo());
    tb.poke(5, 5, 60, 1, 1);
    let first = tb.sim.commands.len();
    let read0 = tb.sim.board.igc_port.parser.words_read;
    let flushed0 = tb.sim.board.igc_port.parser.flushed;
    let stream = tb.parse(&probe_flush_message(10));
    assert_eq!(stream.messages.len(), 1);
    assert_eq!(
        stream.messages[0].dest & 1,
        1,
        "flush-able: destination LSB set"
    );
    let len = stream.messages[0].len_words() as u64;
    assert_eq!(len, 14);
    let o = tb.run(&stream, 10_000);
    assert_eq!(o.stop, StopReason::Done);
    // Read from the FIFO word by word (the FIFO time is still spent) ...
    assert_eq!(tb.sim.board.igc_port.parser.words_read - read0, len);
    assert!(
        o.cycles >= 2 * (len - 1),
        "one word per 20 MHz slot: {}",
        o.cycles
    );
    assert_eq!(tb.sim.board.igc_port.parser.flushed - flushed0, 1);
    // ... but nothing reached the IGC.
    assert!(names_from(&tb, first).is_empty());
    assert!(!tb.sim.board.igc.indicator, "INDON did not run");
    assert!(tb.sim.board.array.aeo(), "SETENABS did not run");
    assert_eq!(tb.peek(5, 5, 60, 1), 1, "ENABIntoMEM did not run");
    assert_eq!(tb.peek(0, 0, 60, 1), 0);
    assert_clean(&tb);
    assert!(tb
        .sim
        .diagnostics
        .iter()
        .any(|d| d.level == "note" && d.msg.contains("flush-able message")));
    // A formatting error inside a flushed message goes undetected (seed §III.4.1-1).
    let op = encode(&tb, "SCAIntoMEM_S1", &[0, 8], &[1])[0];
    tb.run_text(&format!(
        "message flush\n{}\nmessage flush\nNOOP\n",
        word_line(&[op])
    ));
    assert_clean(&tb);
    assert_eq!(tb.sim.board.igc_port.parser.flushed - flushed0, 3);
    // An ordinary message runs again.
    let o = tb.run_text("message\nSETENABS\nINDON\n");
    assert_eq!(o.command_cycles.len(), 2);
    assert!(tb.sim.board.igc.indicator);
}

#[test]
fn flushable_message_runs_when_aeo_is_not_asserted() {
    let mut tb = prepared();
    tb.run_text("message\nCLRENABS\nSCAIntoMEM_S1 60 1 1\nNOOP\nNOOP\nNOOP\nNOOP\n");
    // One pixel enabled: AEO is not asserted.
    tb.set_enable(7, 9, true);
    assert!(!tb.sim.board.array.aeo());
    let first = tb.sim.commands.len();
    let flushed0 = tb.sim.board.igc_port.parser.flushed;
    let o = tb.run_text(&probe_flush_message(10));
    assert_eq!(o.stop, StopReason::Done);
    assert_eq!(tb.sim.board.igc_port.parser.flushed, flushed0);
    let mut want = vec!["SETENABS", "INDON", "ENABIntoMEM"];
    want.extend(["NOOP"; 10]);
    assert_eq!(names_from(&tb, first), want);
    assert!(tb.sim.board.igc.indicator);
    assert_mem(&tb, 60, 1, 1);
    assert_clean(&tb);
}

#[test]
fn aeo_is_sampled_when_the_flushable_message_starts() {
    // Inside a flushed message's predecessor, the Enables change 4 commands before its end:
    // the flush decision sees the settled AEO (seed §III.4.1-6).
    let mut tb = prepared();
    let first = tb.sim.commands.len();
    tb.run_text(&format!(
        "message\nSETENABS\nCLRENABS\nNOOP\nNOOP\nNOOP\nNOOP\n{}",
        probe_flush_message(0)
    ));
    assert_eq!(
        names_from(&tb, first),
        ["SETENABS", "CLRENABS", "NOOP", "NOOP", "NOOP", "NOOP"]
    );
    tb.run_text(&format!(
        "message\nCLRENABS\nSETENABS\nNOOP\nNOOP\nNOOP\nNOOP\n{}",
        probe_flush_message(0)
    ));
    assert_eq!(tb.sim.commands.len() - first, 6 + 6 + 3);
}

#[test]
fn illegal_command_in_rmode_is_a_formatting_error() {
    let mut tb = prepared();
    let store_before: Vec<Option<u32>> =
        (0..9000).map(|a| tb.sim.board.igc.store.read(a)).collect();
    let writes = tb.sim.board.igc.store.writes;
    let first = tb.sim.commands.len();
    let o = tb.run_text("NOOP\nNOOP\nRMODEON\nSET 0 8\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_eq!(tb.sim.board.igc.state, IgcState::RMode);
    assert_one_format_error(&tb, &["not allowed in RMode"]);
    assert_eq!(names_from(&tb, first), ["NOOP", "NOOP"], "SET was not run");
    assert_mem(&tb, 0, 8, 0);
    assert_eq!(tb.sim.board.igc.store.writes, writes);
    let store_after: Vec<Option<u32>> = (0..9000).map(|a| tb.sim.board.igc.store.read(a)).collect();
    assert!(store_before == store_after, "store unchanged");
    // NOOP2 is not legal in RMode either (seed: "NOOP (but not NOOP2)").
    tb.run_text("NOOP2\n");
    assert_eq!(error_messages(&tb).len(), 2);
    // NOOP resets the PC, RMODEOFF leaves RMode, and commands run again.
    let o = tb.run_text("NOOP\nRMODEOFF\nSET 0 8\n");
    assert_eq!(o.command_cycles, vec![("SET".to_string(), 9)]);
    assert_mem(&tb, 0, 8, 0xff);
}

#[test]
fn mcwrite_outside_rmode_is_a_formatting_error() {
    let mut tb = prepared();
    let writes = tb.sim.board.igc.store.writes;
    let before = tb.sim.board.igc.store.read(4);
    let o = tb.run_text("MCWRITE 4 0xdeadbeef\nSET 0 8\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_one_format_error(&tb, &["MCWRITE outside RMode"]);
    assert_eq!(tb.sim.board.igc.store.writes, writes);
    assert_eq!(tb.sim.board.igc.store.read(4), before);
    assert_eq!(o.command_cycles, vec![("SET".to_string(), 9)]);
    assert_mem(&tb, 0, 8, 0xff);
}

#[test]
fn mcread_outside_rmode_is_a_formatting_error() {
    let mut tb = prepared();
    let o = tb.run_text("MCREAD 7\nSET 0 8\n");
    assert_one_format_error(&tb, &["MCREAD outside RMode"]);
    assert_eq!(o.command_cycles, vec![("SET".to_string(), 9)]);
}

#[test]
fn opcode_without_microcode_is_a_formatting_error() {
    let mut tb = prepared();
    let first = tb.sim.commands.len();
    let o = tb.run_text("word 0x000000f0\nSCAIntoMEM_S1 16 8 42\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_one_format_error(&tb, &["no microcode routine for CMD 0xf0"]);
    assert_eq!(names_from(&tb, first), ["SCAIntoMEM"]);
    assert_mem(&tb, 16, 8, 42);
    // A reserved hardwired code (0xfc..0xff) too.
    tb.run_text("word 0x000000fe\nNOOP\n");
    assert_eq!(error_messages(&tb).len(), 2);
}

#[test]
fn fbits_out_of_range_is_a_formatting_error() {
    let mut tb = prepared();
    tb.run_text("FBITS 12\n");
    assert_clean(&tb);
    assert_eq!(tb.sim.board.igc.fbits, 12);
    let bad = CMD_FBITS as u32 | FBLD_BIT | 31 << FBITS_SHIFT;
    let o = tb.run_text(&format!("{}\nSET 0 8\n", word_line(&[bad])));
    assert_one_format_error(&tb, &["FBITS field 31 is out of range"]);
    assert_eq!(tb.sim.board.igc.fbits, 12, "FBITS unchanged");
    // The FBITS routine (a NOOP) still runs; the next command too.
    assert_eq!(
        o.command_cycles,
        vec![("FBITS".to_string(), 1), ("SET".to_string(), 9)]
    );
    // The text format refuses it before it reaches the board.
    let err = pp5_sim::stream::text::parse("FBITS 31\n", "t", &tb.image.table).unwrap_err();
    assert_eq!(err.line, 1);
}

#[test]
fn fbits_out_of_range_in_rmode_is_an_error_and_leaves_rmode() {
    let mut tb = prepared();
    let bad = CMD_FBITS as u32 | FBLD_BIT | 200 << FBITS_SHIFT;
    let o = tb.run_text(&format!(
        "NOOP\nNOOP\nRMODEON\nNOOP\n{}\nSET 0 8\n",
        word_line(&[bad])
    ));
    assert_one_format_error(&tb, &["FBITS field 200"]);
    assert_ne!(tb.sim.board.igc.state, IgcState::RMode);
    assert_eq!(o.command_cycles.last(), Some(&("SET".to_string(), 9)));
}

#[test]
fn noop_in_rmode_resets_the_pc() {
    let mut tb = prepared();
    let rmodeon = CMD_RMODEON as u32;
    let mcread = |a: u32| CMD_MCREAD as u32 | pp5_rtl::igc::opcode::hardwired_addr_bits(a);
    tb.run_text(&format!(
        "NOOP\nNOOP\n{}\n{}\n",
        word_line(&[rmodeon]),
        word_line(&[mcread(37)])
    ));
    assert_eq!(tb.sim.board.igc.state, IgcState::RMode);
    assert_eq!(tb.sim.board.igc.pc, 37, "MCREAD sets the PC");
    tb.run_text("MCREAD 1234\n");
    assert_eq!(tb.sim.board.igc.pc, 1234);
    tb.run_text("NOOP\n");
    assert_eq!(tb.sim.board.igc.pc, 0, "NOOP resets the PC in RMode");
    assert_eq!(tb.sim.board.igc.state, IgcState::RMode);
    assert_clean(&tb);
    // MCREAD past the control store is an error and leaves the PC alone.
    tb.run_text("MCREAD 5000\n");
    assert_eq!(tb.sim.board.igc.pc, 0);
    assert_one_format_error(&tb, &["outside the control store"]);
    // Leave RMode: the IGC starts at address 0 (a DISPATCH) and takes the next command.
    let o = tb.run_text("RMODEOFF\nSET 0 8\n");
    assert_eq!(o.command_cycles, vec![("SET".to_string(), 9)]);
    assert_mem(&tb, 0, 8, 0xff);
}

#[test]
fn mcwrite_out_of_store_is_an_error() {
    let mut tb = prepared();
    tb.run_text("NOOP\nNOOP\nRMODEON\nMCWRITE 0x7ffff 1\nNOOP\nRMODEOFF\n");
    assert_one_format_error(&tb, &["outside the microcode store"]);
    let o = tb.run_text("SET 0 8\n");
    assert_eq!(o.command_cycles, vec![("SET".to_string(), 9)]);
}

#[test]
fn mcwrite_writes_the_c_register_and_reuses_it_without_a_c_word() {
    // Seed §III.4.2.5.3: MCWRITE(addr) loads `sca[32]`; with CoefMode 00 no C word follows
    // and the C register keeps its previous value (coefficient re-use).
    let mut tb = prepared();
    let addr = 4 * 2000; // a microinstruction far past the standard microcode
    let mcwrite_s0 = pp5_rtl::igc::opcode::CMD_MCWRITE as u32
        | pp5_rtl::igc::opcode::hardwired_addr_bits(addr + 1);
    tb.run_text(&format!(
        "NOOP\nNOOP\nRMODEON\nMCWRITE {addr} 0x1234\n{}\nNOOP\nRMODEOFF\n",
        word_line(&[mcwrite_s0])
    ));
    assert_clean(&tb);
    assert_eq!(tb.sim.board.igc.store.read(addr), Some(0x1234));
    assert_eq!(tb.sim.board.igc.store.read(addr + 1), Some(0x1234));
    assert_eq!(
        tb.sim.board.igc.sca(),
        0x1234,
        "MCWRITE's C word is in the C register"
    );
}

#[test]
fn destination_word_is_ignored_except_its_lsb() {
    let mut tb = prepared();
    let o = tb.run_text("message dest=0xdeadbeee\nSCAIntoMEM_S1 16 8 42\n");
    assert_eq!(o.command_cycles, vec![("SCAIntoMEM".to_string(), 9)]);
    assert_eq!(tb.sim.board.igc_port.parser.dest, 0xdead_beee);
    assert_mem(&tb, 16, 8, 42);
    // LSB set: flush-able, and flushed while AEO is asserted.
    tb.run_text("message\nCLRENABS\nNOOP\nNOOP\nNOOP\nNOOP\n");
    let first = tb.sim.commands.len();
    tb.run_text("message dest=0xffffffff\nSETENABS\nINDON\n");
    assert!(names_from(&tb, first).is_empty());
    assert_eq!(tb.sim.board.igc_port.parser.flushed, 1);
    assert_clean(&tb);
}

#[test]
fn a_parsed_command_waits_in_the_llpr_while_the_igc_is_busy() {
    // WrEnLLPR per word, GoLLPR per command: while CPY runs (129 cycles) the next NOOP waits
    // in the LLPR and the one after is held in the parser; each then starts the cycle after
    // its predecessor's last one.
    let mut tb = prepared();
    let first = tb.sim.commands.len();
    let s = tb.parse("SETENABS\nCPY 0 64 128\nNOOP\nNOOP\nNOOP\n");
    for m in &s.messages {
        tb.sim.queue(pp5_sim::engine::RingMessage {
            dest: m.dest,
            body: m.body.clone(),
        });
    }
    let mut saw_wait = false;
    for _ in 0..1000 {
        tb.sim.step();
        let b = &tb.sim.board;
        if b.llpr.go && b.igc_port.parser.held() && !saw_wait {
            saw_wait = true;
            assert_eq!(tb.sim.commands.last().map(|c| c.name.as_str()), Some("CPY"));
        }
        if tb.sim.done() {
            break;
        }
    }
    assert!(
        saw_wait,
        "a command waited in the LLPR with the next one held"
    );
    let c = &tb.sim.commands[first..];
    let names: Vec<&str> = c.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["SETENABS", "CPY", "NOOP", "NOOP", "NOOP"]);
    assert_eq!(c[1].cycles, 129);
    for w in c[1..].windows(2) {
        assert_eq!(
            w[1].start,
            w[0].start + w[0].cycles,
            "{} -> {}",
            w[0].name,
            w[1].name
        );
    }
    assert_clean(&tb);
}
