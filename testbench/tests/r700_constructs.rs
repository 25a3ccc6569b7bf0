//! Every R700 control-flow construct of seed 001, by its R700 name (docs/flow-control.md,
//! "R700 names"), in a test of its own: a microcode command written with it, booted through
//! the stream, run on all 16,384 pixels; each pixel's result and the command's cycle count
//! are checked. Also: a DX10 loop of 1,000 iterations that ends exactly when its last pixel
//! leaves it, a PUSH reached with no active pixel (it skips past its POP), and the R700
//! stack's overflow and underflow (status bit 4, an error message, exit code 4).

use pp5_sim::asm::microcode::{assemble, STANDARD_SOURCE};
use pp5_sim::engine::StopReason;
use pp5_testbench::support::{for_all_pixels as for_all, pixel_bit as bit};
use pp5_testbench::Testbench;

/// `cnt` (pixel bits 0..8) += 1 for the active pixels: 1 + 8 cycles.
const INC: &str = "c=1 i=0 l=#8\n           a=mem[#0+i] r=a^c c=a&c wall=mem[#0+i] i++ loop .-0";

/// The commands; each uses the 8-bit counter at bit 0 and the flag bits at 100...
const R700_SOURCE: &str = "
.fcmode full
.fcconst 0 count=5 init=2 step=3
.fcconst 1 count=4
.command R7EMPTY() -> r7empty
.command R7LOOP() -> r7loop
.command R7NOAL() -> r7noal
.command R7DX10() -> r7dx10
.command R7BREAK() -> r7break
.command R7CONT() -> r7cont
.command R7CALL() -> r7call
.command R7CALLC() -> r7callc
.command R7JUMP() -> r7jump
.command R7JUMPC() -> r7jumpc
.command R7ELSE() -> r7else
.command R7PUSH() -> r7push
.command R7END() -> r7end
.command R7DEEP() -> r7deep
.command R7CALLDEEP() -> r7calldeep
.command R7RETURN() -> r7return
.command R7DX10K() -> r7dx10k
.command R7PUSHNONE() -> r7pushnone

r7empty:   dispatch

; LOOP_START (DX9): aL = 2, 5, 8, 11, 14; cnt = the flags set at 100 + aL
r7loop:    LOOP_START 0
           IF mem[#100+al]
           INC
           ENDIF
           LOOP_END
           dispatch

; LOOP_START_NO_AL: 4 iterations
r7noal:    LOOP_START_NO_AL 1
           INC
           LOOP_END
           dispatch

; LOOP_START_DX10: cnt += 1 until its bit 7 is set (per pixel, from its own start value)
r7dx10:    LOOP_START_DX10
           INC
           LOOP_BREAK mem[#7]
           LOOP_END
           dispatch

; LOOP_START_DX10 with an 11-bit counter: cnt11 += 1 until its bit 10 is set
r7dx10k:   LOOP_START_DX10
           c=1 i=0 l=#11
r7k_inc:   a=mem[#0+i] r=a^c c=a&c wall=mem[#0+i] i++ loop r7k_inc
           LOOP_BREAK mem[#10]
           LOOP_END
           dispatch

; LOOP_BREAK (unconditional): one iteration of five
r7break:   LOOP_START 0
           INC
           LOOP_BREAK
           LOOP_END
           dispatch

; LOOP_CONTINUE mem[#100]: the flagged pixels skip the INC in each of 4 iterations
r7cont:    LOOP_START_NO_AL 1
           LOOP_CONTINUE mem[#100]
           INC
           LOOP_END
           dispatch

; CALL / RETURN, twice
r7call:    CALL r7sub
           CALL r7sub
           dispatch

; CALL label cond: only the flagged pixels run the subroutine
r7callc:   CALL r7sub mem[#100]
           dispatch

; JUMP label: nobody runs the INC
r7jump:    JUMP r7jump_to
           INC
r7jump_to: dispatch

; JUMP label cond: the flagged pixels skip the INC, to the POP at the label
r7jumpc:   JUMP r7jc_to mem[#100]
           INC
r7jc_to:   POP
           dispatch

; ELSE: cnt = flag ? 1 : 2
r7else:    IF mem[#100]
           INC
           ELSE
           INC
           INC
           ENDIF
           dispatch

; PUSH / POP around a conditional JUMP: cnt = (flag ? 0 : 1) + 1
r7push:    PUSH
           JUMP r7p_to mem[#100]
           INC
r7p_to:    POP
           INC
           POP
           dispatch

; END_OF_PROGRAM under an IF: if any pixel reaches it, the program ends for every pixel
r7end:     INC
           IF mem[#100]
           END_OF_PROGRAM
           ENDIF
           INC
           dispatch

; PUSH reached with no active pixel (the flagged ones broke out of the loop, the others wait
; in the IF): it skips past its POP, so the END_OF_PROGRAM of its ELSE part (for nobody) does
; not end the program. cnt = flag ? 0 : 4
r7pushnone: LOOP_START_NO_AL 1
           IF mem[#100]
           LOOP_BREAK
           PUSH
           ELSE
           END_OF_PROGRAM
           POP
           ENDIF
           INC
           LOOP_END
           dispatch

; five nested DX10 loops: the fifth overflows the R700 stack
r7deep:    LOOP_START_DX10
           LOOP_START_DX10
           LOOP_START_DX10
           LOOP_START_DX10
           LOOP_START_DX10
           LOOP_BREAK
           LOOP_END
           LOOP_BREAK
           LOOP_END
           LOOP_BREAK
           LOOP_END
           LOOP_BREAK
           LOOP_END
           LOOP_BREAK
           LOOP_END
           dispatch

; conditional CALLs nested five deep: the fifth overflows the R700 stack
r7calldeep: CALL r7d1 mem[#100]
           dispatch
r7d1:      CALL r7d2 mem[#100]
           RETURN
r7d2:      CALL r7d3 mem[#100]
           RETURN
r7d3:      CALL r7d4 mem[#100]
           RETURN
r7d4:      CALL r7d5 mem[#100]
           RETURN
r7d5:      RETURN

; RETURN without CALL: the R700 stack underflows
r7return:  RETURN
           dispatch

r7sub:     INC
           RETURN
";

/// The source with every `INC` expanded (its loop label made unique).
fn source() -> String {
    let mut out = String::new();
    for (n, line) in R700_SOURCE.lines().enumerate() {
        let (label, rest) = match line.split_once(':') {
            Some((l, r)) if !l.contains(' ') && !l.is_empty() => (format!("{l}:"), r),
            _ => (String::new(), line),
        };
        if rest.trim() == "INC" {
            let inc = INC.replace(".-0", &format!("inc_{n}"));
            let (first, second) = inc.split_once('\n').expect("two lines");
            out.push_str(&format!("{label} {first}\ninc_{n}: {}\n", second.trim()));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn bench() -> Testbench {
    let src = format!("{STANDARD_SOURCE}\n{}", source());
    let img = assemble(&src, "<r700 test>").unwrap_or_else(|e| panic!("{e}"));
    Testbench::boot(img)
}

/// Random flags at 100..116 for every pixel.
fn flags(tb: &mut Testbench) {
    for_all(|x, y| {
        for k in 0..16 {
            tb.poke(x, y, 100 + k, 1, bit(x, y, k) as u64);
        }
    });
}

fn assert_clean(tb: &Testbench) {
    assert_no_error(tb);
    assert!(tb.sim.board.igc.fc.all_active, "every PE active at the end");
    assert_eq!(tb.sim.board.igc.fc.loops.depth(), 0);
    assert_eq!(tb.sim.board.igc.fc.addrs.depth(), 0);
}

fn assert_no_error(tb: &Testbench) {
    assert_eq!(
        tb.status() & (1 << 4 | 1 << 29),
        0,
        "{:?}",
        tb.sim.diagnostics
    );
    assert!(
        tb.sim
            .diagnostics
            .iter()
            .all(|d| d.level != "error" && d.level != "fault"),
        "{:?}",
        tb.sim.diagnostics
    );
}

/// Run `cmd` and return its own cycles, minus those of an empty command (`dispatch` only):
/// the cycles of its flow-control program.
fn run(tb: &mut Testbench, cmd: &str) -> u64 {
    let o = tb.run_text(&format!("R7EMPTY\n{cmd}\n"));
    assert_eq!(o.stop, StopReason::Done, "{:?}", tb.sim.diagnostics);
    let c = &o.command_cycles;
    assert_eq!(c.len(), 2, "{c:?}");
    c[1].1 - c[0].1
}

/// One INC: 1 + 8 cycles.
const INC_CYCLES: u64 = 9;

/// Each pixel's counter must be `want(x, y)`.
fn expect(tb: &Testbench, want: impl Fn(usize, usize) -> u64) {
    for_all(|x, y| assert_eq!(tb.peek(x, y, 0, 8), want(x, y), "pixel ({x},{y})"));
}

#[test]
fn loop_start_dx9_with_count_initial_index_and_increment() {
    let mut tb = bench();
    flags(&mut tb);
    let cycles = run(&mut tb, "R7LOOP");
    assert_clean(&tb);
    expect(&tb, |x, y| {
        (0..5).filter(|k| bit(x, y, 2 + 3 * k)).count() as u64
    });
    // LOOP_START, then 5 × (IF, INC, ENDIF, LOOP_END).
    assert_eq!(cycles, 1 + 5 * (1 + INC_CYCLES + 1 + 1));
}

#[test]
fn loop_start_no_al_repeats_its_count() {
    let mut tb = bench();
    let cycles = run(&mut tb, "R7NOAL");
    assert_clean(&tb);
    expect(&tb, |_, _| 4);
    assert_eq!(cycles, 1 + 4 * (INC_CYCLES + 1));
}

#[test]
fn loop_start_dx10_runs_until_no_pixel_is_left() {
    let mut tb = bench();
    let start = |x: usize, y: usize| (x * 131 + y * 7) as u64 & 0xff;
    for_all(|x, y| tb.poke(x, y, 0, 8, start(x, y)));
    let cycles = run(&mut tb, "R7DX10");
    assert_clean(&tb);
    // Per pixel: INC until bit 7 is set after it.
    let iters = |v: u64| {
        let mut v = v;
        let mut n = 0;
        loop {
            v = (v + 1) & 0xff;
            n += 1;
            if v & 0x80 != 0 {
                return (v, n);
            }
        }
    };
    expect(&tb, |x, y| iters(start(x, y)).0);
    let most = (0..128 * 128)
        .map(|p| iters(start(p % 128, p / 128)).1)
        .max()
        .unwrap();
    assert!(most > 128, "the loop runs {most} iterations");
    // LOOP_START_DX10, then per iteration INC, LOOP_BREAK, LOOP_END, except the last one:
    // there every pixel left, so the LOOP_BREAK jumps past the LOOP_END.
    assert_eq!(cycles, 1 + most * (INC_CYCLES + 2) - 1);
}

#[test]
fn a_dx10_loop_of_1000_iterations_ends_exactly_when_its_last_pixel_leaves_it() {
    let mut tb = bench();
    // Pixel p needs n(p) in 1..=1000 iterations (one pixel exactly 1000): it starts at
    // 1024 - n(p) and leaves when bit 10 is set.
    let n = |x: usize, y: usize| {
        if (x, y) == (77, 45) {
            1000
        } else {
            1 + (x * 37 + y * 101) as u64 % 999
        }
    };
    for_all(|x, y| tb.poke(x, y, 0, 11, 1024 - n(x, y)));
    let cycles = run(&mut tb, "R7DX10K");
    assert_clean(&tb);
    for_all(|x, y| assert_eq!(tb.peek(x, y, 0, 11), 1024, "pixel ({x},{y})"));
    // LOOP_START_DX10, 1000 × (INC of 1 + 11 cycles, LOOP_BREAK, LOOP_END), minus the
    // last LOOP_END (the last pixel's LOOP_BREAK jumps past it): no 255-iteration cap.
    assert_eq!(cycles, 1 + 1000 * (12 + 2) - 1);
    // One pixel fewer needing the 1000th iteration: it ends one iteration earlier.
    let mut tb = bench();
    for_all(|x, y| tb.poke(x, y, 0, 11, 1024 - n(x, y).min(999)));
    assert_eq!(run(&mut tb, "R7DX10K"), 1 + 999 * (12 + 2) - 1);
}

#[test]
fn loop_break_leaves_the_loop() {
    let mut tb = bench();
    let cycles = run(&mut tb, "R7BREAK");
    assert_clean(&tb);
    expect(&tb, |_, _| 1);
    assert_eq!(cycles, 1 + INC_CYCLES + 1);
}

#[test]
fn loop_continue_skips_the_rest_of_the_iteration() {
    let mut tb = bench();
    flags(&mut tb);
    let cycles = run(&mut tb, "R7CONT");
    assert_clean(&tb);
    expect(&tb, |x, y| if bit(x, y, 0) { 0 } else { 4 });
    assert_eq!(cycles, 1 + 4 * (1 + INC_CYCLES + 1));
}

#[test]
fn call_and_return() {
    let mut tb = bench();
    let cycles = run(&mut tb, "R7CALL");
    assert_clean(&tb);
    expect(&tb, |_, _| 2);
    assert_eq!(cycles, 2 * (1 + INC_CYCLES + 1));
}

#[test]
fn conditional_call_runs_for_the_pixels_that_meet_the_condition() {
    let mut tb = bench();
    flags(&mut tb);
    let cycles = run(&mut tb, "R7CALLC");
    assert_clean(&tb);
    expect(&tb, |x, y| bit(x, y, 0) as u64);
    assert_eq!(cycles, 1 + INC_CYCLES + 1);
    // Nobody meets it: the CALL is not taken.
    for_all(|x, y| tb.poke(x, y, 100, 1, 0));
    let cycles = run(&mut tb, "R7CALLC");
    assert_clean(&tb);
    expect(&tb, |x, y| bit(x, y, 0) as u64);
    assert_eq!(cycles, 1);
}

#[test]
fn jump_unconditional() {
    let mut tb = bench();
    let cycles = run(&mut tb, "R7JUMP");
    assert_clean(&tb);
    expect(&tb, |_, _| 0);
    assert_eq!(cycles, 1);
}

#[test]
fn conditional_jump_is_taken_by_the_pixels_that_meet_the_condition() {
    let mut tb = bench();
    flags(&mut tb);
    let cycles = run(&mut tb, "R7JUMPC");
    assert_clean(&tb);
    expect(&tb, |x, y| !bit(x, y, 0) as u64);
    assert_eq!(cycles, 1 + INC_CYCLES + 1);
    // Every pixel meets it: the JUMP is taken by all, past the POP.
    for_all(|x, y| tb.poke(x, y, 100, 1, 1));
    let cycles = run(&mut tb, "R7JUMPC");
    assert_clean(&tb);
    expect(&tb, |x, y| !bit(x, y, 0) as u64);
    assert_eq!(cycles, 1);
}

#[test]
fn else_inverts_the_active_mask() {
    let mut tb = bench();
    flags(&mut tb);
    let cycles = run(&mut tb, "R7ELSE");
    assert_clean(&tb);
    expect(&tb, |x, y| if bit(x, y, 0) { 1 } else { 2 });
    assert_eq!(cycles, 1 + INC_CYCLES + 1 + 2 * INC_CYCLES + 1);
}

#[test]
fn push_and_pop_save_and_restore_the_active_mask() {
    let mut tb = bench();
    flags(&mut tb);
    let cycles = run(&mut tb, "R7PUSH");
    assert_clean(&tb);
    expect(&tb, |x, y| !bit(x, y, 0) as u64 + 1);
    assert_eq!(cycles, 2 + INC_CYCLES + 1 + INC_CYCLES + 1);
}

#[test]
fn end_of_program_ends_it_for_every_pixel_even_under_a_condition() {
    let mut tb = bench();
    flags(&mut tb);
    let cycles = run(&mut tb, "R7END");
    // The program ended inside the IF: the unit keeps its state until the next command
    // starts (every command starts with every PE active and empty stacks).
    assert_no_error(&tb);
    assert!(!tb.sim.board.igc.fc.all_active);
    expect(&tb, |_, _| 1);
    // INC, IF, END_OF_PROGRAM (a jump to the dispatch).
    assert_eq!(cycles, INC_CYCLES + 2);
    // No pixel reaches it: the IF skips it and the program goes on.
    for_all(|x, y| tb.poke(x, y, 100, 1, 0));
    let cycles = run(&mut tb, "R7END");
    assert_clean(&tb);
    expect(&tb, |_, _| 3);
    assert_eq!(cycles, INC_CYCLES + 1 + INC_CYCLES);
}

#[test]
fn push_with_no_active_pixel_skips_past_its_pop() {
    let mut tb = bench();
    flags(&mut tb);
    let cycles = run(&mut tb, "R7PUSHNONE");
    assert_clean(&tb);
    expect(&tb, |x, y| if bit(x, y, 0) { 0 } else { 4 });
    // LOOP_START_NO_AL; the first iteration: IF, LOOP_BREAK (it stays: the pixels in the IF
    // inhibit it), PUSH (no pixel active: it jumps past its POP), ENDIF, INC, LOOP_END; three
    // more: IF (every active pixel's flag is clear: it jumps), INC, LOOP_END.
    assert_eq!(cycles, 1 + (4 + INC_CYCLES + 1) + 3 * (1 + INC_CYCLES + 1));
}

/// The run ended with status bit 4, an error message sent, an `error` diagnostic containing
/// `what`, and exit code 4.
fn assert_stack_error(tb: &Testbench, stop: &StopReason, what: &str) {
    assert_eq!(*stop, StopReason::Done, "an error, not a hang");
    assert_ne!(tb.status() & 1 << 4, 0, "status bit 4");
    assert!(
        tb.sim.tx.iter().any(|m| m.is_error()),
        "an error message went out"
    );
    assert!(
        tb.sim
            .diagnostics
            .iter()
            .any(|d| d.level == "error" && d.msg.contains(what)),
        "{:?}",
        tb.sim.diagnostics
    );
    assert_eq!(pp5_sim::exit::of_run(stop, tb.status()), 4);
}

#[test]
fn nesting_deeper_than_the_stack_overflows_it() {
    let mut tb = bench();
    let o = tb.run_text("R7DEEP\n");
    assert_stack_error(&tb, &o.stop, "loop stack overflow");
    let mut tb = bench();
    for_all(|x, y| tb.poke(x, y, 100, 1, 1));
    let o = tb.run_text("R7CALLDEEP\n");
    assert_stack_error(&tb, &o.stop, "address stack overflow");
}

#[test]
fn return_without_call_underflows_the_stack() {
    let mut tb = bench();
    let o = tb.run_text("R7RETURN\n");
    assert_stack_error(&tb, &o.stop, "address stack underflow");
}

#[test]
fn r700_forms_that_do_not_fit_are_assembly_errors() {
    for (body, msg) in [
        ("JUMP a x mem[#1]\n", "takes 1 operand"),
        ("JUMP a mem[#1]\n", "goes forward"),
        ("JUMP b mem[#1]\nb: ENDIF\n", "put its label on this POP"),
        ("JUMP b mem[#1]\nELSE\nb: POP\n", "ELSE without an open IF"),
        (
            "JUMP b mem[#1]\nPOP\nb: dispatch\n",
            "put its label on this POP",
        ),
        ("LOOP_START_DX10 3\nLOOP_END\n", "takes 0 operand"),
        ("LOOP_END\n", "without an open LOOP/REP"),
        ("END_OF_PROGRAM\n", "without a `dispatch` after it"),
    ] {
        let src = format!(".command A() -> a\na: {body}");
        let e = assemble(&src, "<t>").expect_err(body).to_string();
        assert!(e.contains(msg), "{body}: {e}");
    }
}

/// The example of docs/flow-control.md and waves/examples/r700.pp5uc: per pixel, as the
/// comment in the file says.
#[test]
fn the_documented_example_counts_as_described() {
    let src = format!(
        "{STANDARD_SOURCE}\n{}",
        include_str!("../../waves/examples/r700.pp5uc")
    );
    let mut tb = Testbench::boot(assemble(&src, "r700.pp5uc").unwrap_or_else(|e| panic!("{e}")));
    for_all(|x, y| tb.poke(x, y, 100, 8, (x * 3 + y) as u64 & 0xff));
    let o = tb.run_text("R700DEMO 116 100 118\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_no_error(&tb);
    for_all(|x, y| {
        let flag = (x * 3 + y) as u64 & 0xff;
        let mut cnt = 0u64;
        for al in 0..3 {
            cnt += flag >> al & 1;
            loop {
                cnt += 1;
                if cnt & 4 != 0 {
                    break;
                }
            }
        }
        assert_eq!(tb.peek(x, y, 116, 8), cnt & 0xff, "pixel ({x},{y})");
    });
}
