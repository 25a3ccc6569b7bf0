//! Microcode-loading testbenches (SPEC §1 "IGC and the command stream", seed 003
//! §III.4.2.5.3): microcode goes into the IGC only through the command stream (RMODEON,
//! MCWRITE, MCREAD/NOOP, RMODEOFF/FBITS), and what a command does and how long it takes comes
//! from the microcode that was loaded.

use pp5_rtl::igc::IgcState;
use pp5_rtl::status::ERROR_MASK;
use pp5_sim::asm::microcode::{self, McImage, STANDARD_SOURCE};
use pp5_sim::engine::{RingMessage, StopReason};
use pp5_testbench::{Outcome, Testbench};

/// CLEAR's routine in the standard source.
const STD_CLEAR: &str = "\
clear:        i=0 l=dlen
clear_l:      r=0 w=mem[dst+i] i++ loopd clear_l
";

/// The modified CLEAR: writes ones, and spends one more cycle.
const ONES_CLEAR: &str = "\
clear:        i=0 l=dlen
              next                           ; one extra cycle
clear_l:      r=1 w=mem[dst+i] i++ loopd clear_l
";

fn modified_image() -> McImage {
    assert!(
        STANDARD_SOURCE.contains(STD_CLEAR),
        "the standard CLEAR changed"
    );
    let src = STANDARD_SOURCE.replace(STD_CLEAR, ONES_CLEAR);
    microcode::assemble(&src, "ones_clear.pp5uc").unwrap_or_else(|e| panic!("{e}"))
}

/// A stream run on every image below; CLEAR comes last so its cycle decides the end.
const STREAM: &str = "\
SETENABS
SCAIntoMEM_S1 0 16 1234
CPY 16 0 16
INC 32 16 16
CLEAR 0 8
";

fn names_and_cycles(o: &Outcome) -> Vec<(&str, u64)> {
    o.command_cycles
        .iter()
        .map(|(n, c)| (n.as_str(), *c))
        .collect()
}

/// Check the effect of [`STREAM`] on a few pixels: `low` is what CLEAR left in mem[0:8].
fn check_stream_result(tb: &Testbench, low: u64) {
    for (x, y) in [(0, 0), (127, 0), (0, 127), (77, 33)] {
        assert_eq!(
            tb.peek(x, y, 0, 16),
            (1234 & 0xff00) | low,
            "pixel ({x},{y})"
        );
        assert_eq!(tb.peek(x, y, 16, 16), 1234);
        assert_eq!(tb.peek(x, y, 32, 16), 1235);
    }
}

fn assert_no_errors(tb: &Testbench) {
    assert_eq!(tb.status() & ERROR_MASK, 0, "{:?}", tb.sim.diagnostics);
    assert!(tb.sim.diagnostics.is_empty(), "{:?}", tb.sim.diagnostics);
}

#[test]
fn standard_image_boots_through_the_stream_and_runs() {
    let img = microcode::standard();
    let mut tb = Testbench::standard();
    // Loaded by MCWRITE commands only: one store write per image word.
    assert_eq!(tb.sim.board.igc.store.writes, img.words.len() as u64);
    for &(a, v) in &img.words {
        assert_eq!(tb.sim.board.igc.store.read(a), Some(v), "store word {a}");
    }
    assert!(tb.sim.commands.boot_end.is_some());
    assert_eq!(tb.sim.board.igc.state, IgcState::WaitCmd);
    assert!(tb.sim.commands.is_empty(), "the boot runs no microcode");
    let o = tb.run_text(STREAM);
    assert_eq!(o.stop, StopReason::Done);
    assert_no_errors(&tb);
    assert_eq!(
        names_and_cycles(&o),
        [
            ("SETENABS", 1),
            ("SCAIntoMEM", 17),
            ("CPY", 17),
            ("INC", 17),
            ("CLEAR", 9)
        ]
    );
    check_stream_result(&tb, 0);
}

#[test]
fn modified_clear_changes_result_and_cycle_count() {
    let std_img = microcode::standard();
    let img = modified_image();
    // Same commands and CMD numbers; the routines after CLEAR moved by one microinstruction.
    assert_eq!(img.table.commands.len(), std_img.table.commands.len());
    for c in &std_img.table.commands {
        let m = img.table.get(&c.name).expect("same command set");
        assert_eq!(m.cmd, c.cmd, "{}", c.name);
    }
    assert_eq!(img.uinsts, std_img.uinsts + 1);
    let at = |i: &McImage, l: &str| i.labels.iter().find(|x| x.0 == l).map(|x| x.1);
    assert_eq!(at(&img, "clear"), at(&std_img, "clear"));
    assert_eq!(at(&img, "set").map(|a| a - 1), at(&std_img, "set"));

    let mut std_tb = Testbench::standard();
    let o_std = std_tb.run_text(STREAM);
    let mut tb = Testbench::boot(img);
    let o = tb.run_text(STREAM);
    assert_eq!(o.stop, StopReason::Done);
    assert_no_errors(&tb);
    // CLEAR writes ones now, in 2 + dlen cycles; everything else is as before.
    check_stream_result(&tb, 0xff);
    assert_eq!(
        names_and_cycles(&o),
        [
            ("SETENABS", 1),
            ("SCAIntoMEM", 17),
            ("CPY", 17),
            ("INC", 17),
            ("CLEAR", 10)
        ]
    );
    assert_eq!(o.cycles, o_std.cycles + 1, "the run ends one cycle later");
    // Longer segments: 1 + dlen against 2 + dlen.
    for dlen in [1u64, 50, 128] {
        let text = format!("CLEAR 60 {dlen}\n");
        let a = std_tb.run_text(&text);
        let b = tb.run_text(&text);
        assert_eq!(a.command_cycles, vec![("CLEAR".to_string(), 1 + dlen)]);
        assert_eq!(b.command_cycles, vec![("CLEAR".to_string(), 2 + dlen)]);
        let want = if dlen == 128 {
            u64::MAX
        } else {
            (1 << dlen.min(64)) - 1
        };
        assert_eq!(tb.peek(5, 6, 60, dlen.min(64) as usize), want);
        assert_eq!(std_tb.peek(5, 6, 60, dlen.min(64) as usize), 0);
    }
}

/// Queue `image`'s reload sequence (NOOP NOOP RMODEON MCWRITE... NOOP RMODEOFF) as Ring
/// messages and run until the board is idle.
fn reload(tb: &mut Testbench, image: &McImage) -> Outcome {
    for body in image.boot_messages(1023) {
        assert!(body.len() <= 1023);
        tb.sim.queue(RingMessage { dest: 0, body });
    }
    let o = tb.run(&tb.parse(""), 1_000_000);
    assert_eq!(o.stop, StopReason::Done);
    o
}

#[test]
fn on_the_fly_reload_changes_behaviour() {
    let img = modified_image();
    let mut tb = Testbench::standard();
    let writes0 = tb.sim.board.igc.store.writes;
    let o = tb.run_text("SETENABS\nSET 0 16\nCLEAR 0 8\n");
    assert_eq!(o.command_cycles.last(), Some(&("CLEAR".to_string(), 9)));
    assert_eq!(tb.peek(3, 3, 0, 16), 0xff00);

    // The seed's sequence: the two NOOPs run as ordinary commands, the rest is RMode.
    let msgs = img.boot_messages(1023);
    assert_eq!(
        msgs[0][..3],
        [0, 0, pp5_rtl::igc::opcode::CMD_RMODEON as u32]
    );
    let o = reload(&mut tb, &img);
    assert_eq!(names_and_cycles(&o), [("NOOP", 1), ("NOOP", 1)]);
    assert_eq!(
        tb.sim.board.igc.store.writes,
        writes0 + img.words.len() as u64
    );
    assert_ne!(tb.sim.board.igc.state, IgcState::RMode);
    assert_eq!(tb.sim.board.igc.pc, 0, "NOOP reset the PC before RMODEOFF");
    assert_no_errors(&tb);

    // The new CLEAR.
    let o = tb.run_text("SET 0 16\nCLEAR 0 8\n");
    assert_eq!(names_and_cycles(&o), [("SET", 17), ("CLEAR", 10)]);
    assert_eq!(tb.peek(3, 3, 0, 16), 0xffff);
    let o = tb.run_text("CLEAR 100 8\n");
    assert_eq!(tb.peek(3, 3, 100, 8), 0xff);
    assert_eq!(o.command_cycles[0].1, 10);

    // And back to the standard microcode.
    reload(&mut tb, &microcode::standard());
    let o = tb.run_text("CLEAR 100 8\n");
    assert_eq!(names_and_cycles(&o), [("CLEAR", 9)]);
    assert_eq!(tb.peek(3, 3, 100, 8), 0);
    assert_no_errors(&tb);
}

#[test]
fn boot_with_mcread_zero_and_fbits_instead_of_noop_and_rmodeoff() {
    // Seed §III.4.2.5.3: "a NOOP() or MCREAD(0) command is used to reset the IGC program
    // counter, and RMode is exited using an RMODEOFF() or FBITS() command".
    let img = modified_image();
    let mut tb = Testbench::standard();
    let mut text = String::from("NOOP\nNOOP\nRMODEON\n");
    for &(a, v) in &img.words {
        text.push_str(&format!("MCWRITE {a} {v:#x}\n"));
    }
    text.push_str("MCREAD 0\nFBITS 17\n");
    let o = tb.run_text(&text);
    assert_eq!(o.stop, StopReason::Done);
    assert_no_errors(&tb);
    assert_eq!(
        tb.sim.board.igc.fbits, 17,
        "FBITS loaded while leaving RMode"
    );
    assert_ne!(tb.sim.board.igc.state, IgcState::RMode);
    let o = tb.run_text("SETENABS\nCLEAR 0 8\n");
    assert_eq!(names_and_cycles(&o), [("SETENABS", 1), ("CLEAR", 10)]);
    assert_eq!(tb.peek(9, 9, 0, 8), 0xff);
}

#[test]
fn partial_reload_patches_one_routine() {
    // Only CLEAR's loop body is rewritten (same addresses): r=0 becomes r=1.
    let std_img = microcode::standard();
    let img = modified_image();
    let clear_l = std_img
        .labels
        .iter()
        .find(|l| l.0 == "clear_l")
        .map(|l| l.1)
        .expect("clear_l");
    // The modified image's clear_l is one further down; take its words and write them at the
    // standard address, where the standard `clear` falls through into it.
    let new_l = img
        .labels
        .iter()
        .find(|l| l.0 == "clear_l")
        .map(|l| l.1)
        .expect("clear_l");
    let mut patch = Vec::new();
    for k in 0..4 {
        let v = img
            .words
            .iter()
            .find(|w| w.0 == 4 * new_l + k)
            .map(|w| w.1)
            .expect("word");
        patch.push((4 * clear_l + k, v));
    }
    // The loop's TARGET field points at the modified image's address: fix it up.
    let target = pp5_rtl::igc::microinstruction::TARGET;
    let mut w: [u32; 4] = std::array::from_fn(|k| patch[k].1);
    target.put(&mut w, clear_l);
    for (k, p) in patch.iter_mut().enumerate() {
        p.1 = w[k];
    }
    let patch_img = McImage {
        words: patch,
        ..std_img.clone()
    };
    let mut tb = Testbench::standard();
    reload(&mut tb, &patch_img);
    let o = tb.run_text("SETENABS\nCLEAR 0 12\n");
    assert_eq!(names_and_cycles(&o), [("SETENABS", 1), ("CLEAR", 13)]);
    assert_eq!(tb.peek(0, 0, 0, 12), 0xfff);
    assert_no_errors(&tb);
}

/// A new command, written as alternative microcode: `MEMpluseqSCA(dst, dlen)`,
/// `mem[dst:dlen] += sca[dlen]`, added to the standard source.
const PLUSEQ_SCA: &str = "
.command MEMpluseqSCA(dst:addr(dlen), dlen:len) sca -> mempluseqsca   ; 1 + dlen
mempluseqsca:   c=0 i=0 l=dlen
mempluseqsca_l: a=mem[dst+i] b=sca[i] r=a^b^c c=maj(a,b,c) w=mem[dst+i] i++ loopd mempluseqsca_l
";

#[test]
fn alternative_microcode_adds_a_command() {
    let src = format!("{STANDARD_SOURCE}{PLUSEQ_SCA}");
    let img = microcode::assemble(&src, "pluseq.pp5uc").unwrap_or_else(|e| panic!("{e}"));
    let spec = img.table.get("MEMpluseqSCA").expect("declared").clone();
    assert!(microcode::standard().table.get("MEMpluseqSCA").is_none());
    assert!(spec.entry.is_some());
    let mut tb = Testbench::boot(img);
    let o = tb.run_text(
        "SETENABS\nSCAIntoMEM_S1 0 16 1000\nMEMpluseqSCA_S1 0 16 234\nMEMpluseqSCA_TBL 0 16 1 2 3\n",
    );
    assert_eq!(o.stop, StopReason::Done);
    assert_no_errors(&tb);
    assert_eq!(
        names_and_cycles(&o),
        [
            ("SETENABS", 1),
            ("SCAIntoMEM", 17),
            ("MEMpluseqSCA", 17),
            ("MEMpluseqSCA", 17),
            ("MEMpluseqSCA", 17),
            ("MEMpluseqSCA", 17)
        ]
    );
    assert_eq!(tb.peek(10, 20, 0, 16), 1240);
    // A negative scalar sign-extends: -1240 brings it to 0.
    tb.run_text(&format!("MEMpluseqSCA_S1 0 16 {}\n", -1240i32));
    assert_eq!(tb.peek(10, 20, 0, 16), 0);
    // The standard image does not know the command: its CMD is a formatting error there.
    let op = spec
        .encode(pp5_sim::asm::opcodes::Form::S1, &[0, 16], &[5])
        .expect("encode");
    let mut std_tb = Testbench::standard();
    let words: Vec<String> = op.iter().map(|w| format!("{w:#x}")).collect();
    std_tb.run_text(&format!("word {}\n", words.join(" ")));
    assert_ne!(std_tb.status() & (1 << 29), 0);
}
