//! The flow-control unit wired into the IGC: microcode commands written with the structured
//! constructs (IF/ELSE/ENDIF, LOOP/BRK/ENDLOOP, REP/CONT, CALL/RET), loaded through
//! RMODEON/MCWRITE/RMODEOFF like any other microcode, run on all 16,384 pixels and checked
//! against a per-pixel model; stack errors in status bit 4.

use pp5_sim::asm::microcode::{assemble, STANDARD_SOURCE};
use pp5_sim::engine::StopReason;
use pp5_testbench::support::{for_all_pixels as for_all, pixel_bit as bit};
use pp5_testbench::Testbench;

/// Extra commands appended to the standard microcode (new CMD numbers after the standard ones).
const FC_SOURCE: &str = "
.fcmode full
.fcconst 0 count=opr1 init=0 step=1
.fcconst 1 count=opr1 init=opr2 step=-1
.fcconst 2 count=1
.command FCSEL(dst:addr, flag:addr) -> fcsel
.command FCCOUNT(cnt:addr, n:count, stop:addr) -> fccount
.command FCSKIP(cnt:addr, n:count, skip:addr) -> fcskip
.command FCCALL(cnt:addr, flag:addr) -> fccall
.command FCDEEP() -> fcdeep
.command FCCALLDEEP() -> fccalldeep
.command FCRET() -> fcret
.command FCIFDEEP(flag:addr) -> fcifdeep
.command FCRAW() -> fcraw

; dst = flag ? 1 : 0, through IF/ELSE (wall: every active PE writes)
fcsel:     IF mem[flag]
           wall=mem[dst] r=1
           ELSE
           wall=mem[dst] r=0
           ENDIF
           dispatch

; cnt (8 bits) = the first aL in 0..n with stop[aL] set, or n: a per-pixel trip count
fccount:   wall=mem[cnt+i] r=0 i++ l=#8
fcc_clr:   wall=mem[cnt+i] r=0 i++ loop fcc_clr
           LOOP 0
           BRK mem[stop+al]
           c=1 i=0 l=#8
fcc_inc:   a=mem[cnt+i] r=a^c c=a&c wall=mem[cnt+i] i++ loop fcc_inc
           ENDLOOP
           dispatch

; cnt = number of iterations k in 0..n with skip[k] clear (CONTINUE), in a REP inside a
; LOOP that only provides aL (counting down from n-1 to 0 with constant 1)
fcskip:    wall=mem[cnt+i] r=0 i++ l=#8
fcs_clr:   wall=mem[cnt+i] r=0 i++ loop fcs_clr
           LOOP 0
           REP 2
           CONT mem[skip+al]
           CALL inc8
           ENDREP
           ENDLOOP
           dispatch

; cnt = flag ? 2 : 1: a subroutine called once for everyone and once under an IF
fccall:    wall=mem[cnt+i] r=0 i++ l=#8
fcl_clr:   wall=mem[cnt+i] r=0 i++ loop fcl_clr
           CALL inc8
           IF mem[flag]
           CALL inc8
           ENDIF
           dispatch

; five nested loops: the fifth overflows the loop stack (depth 4)
fcdeep:    REP 2
           REP 2
           REP 2
           REP 2
           REP 2
           ENDREP
           ENDREP
           ENDREP
           ENDREP
           ENDREP
           dispatch

; CALLs nested five deep: the fifth overflows the address stack (depth 4)
fccalldeep: CALL d1
           dispatch
d1:        CALL d2
           RET
d2:        CALL d3
           RET
d3:        CALL d4
           RET
d4:        CALL d5
           RET
d5:        RET

; RET without CALL: address-stack underflow
fcret:     RET
           dispatch

; five nested IFs deactivating the flag-clear PEs at the first: in partial mode their
; branch counter would need to reach 4
fcifdeep:  IF mem[flag]
           IF mem[flag]
           IF mem[flag]
           IF mem[flag]
           IF mem[flag]
           ENDIF
           ENDIF
           ENDIF
           ENDIF
           ENDIF
           dispatch

; replaced by the test with a raw ENDLOOP outside any loop
fcraw:     JMP fcraw_end
fcraw_end: dispatch

; cnt += 1 (8 bits) for the active PEs
inc8:      c=1 i=0 l=#8
inc8_l:    a=mem[opr0+i] r=a^c c=a&c wall=mem[opr0+i] i++ loop inc8_l
           RET
";

fn bench() -> Testbench {
    let src = format!("{STANDARD_SOURCE}\n{FC_SOURCE}");
    let img = assemble(&src, "<fc test>").unwrap_or_else(|e| panic!("{e}"));
    Testbench::boot(img)
}

fn assert_clean(tb: &Testbench) {
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

#[test]
fn if_else_selects_per_pixel() {
    let mut tb = bench();
    for_all(|x, y| tb.poke(x, y, 100, 1, bit(x, y, 0) as u64));
    let o = tb.run_text("FCSEL 10 100\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_clean(&tb);
    for_all(|x, y| assert_eq!(tb.peek(x, y, 10, 1), bit(x, y, 0) as u64, "pixel ({x},{y})"));
    assert!(
        tb.sim.board.igc.fc.all_active,
        "every PE active again after ENDIF"
    );
}

#[test]
fn loop_with_a_per_pixel_break_counts_to_the_first_stop_bit() {
    for n in [0usize, 1, 5, 12] {
        let mut tb = bench();
        for_all(|x, y| {
            for k in 0..16 {
                tb.poke(x, y, 120 + k, 1, bit(x, y, k + 3) as u64);
            }
        });
        let o = tb.run_text(&format!("FCCOUNT 0 {n} 120\n"));
        assert_eq!(o.stop, StopReason::Done);
        assert_clean(&tb);
        for_all(|x, y| {
            let want = (0..n).find(|&k| bit(x, y, k + 3)).unwrap_or(n);
            assert_eq!(tb.peek(x, y, 0, 8), want as u64, "n = {n}, pixel ({x},{y})");
        });
        assert!(tb.sim.board.igc.fc.all_active);
        assert_eq!(tb.sim.board.igc.fc.loops.depth(), 0);
    }
}

#[test]
fn continue_in_a_rep_that_sees_the_outer_al() {
    let n = 9usize;
    let mut tb = bench();
    for_all(|x, y| {
        for k in 0..16 {
            tb.poke(x, y, 140 + k, 1, bit(x, y, k + 20) as u64);
        }
    });
    let o = tb.run_text(&format!("FCSKIP 0 {n} 140\n"));
    assert_eq!(o.stop, StopReason::Done);
    assert_clean(&tb);
    for_all(|x, y| {
        // LOOP 0: aL = 0, 1, ..., n-1; the REP (one iteration) skips where skip[aL] is set.
        let want = (0..n).filter(|&k| !bit(x, y, k + 20)).count();
        assert_eq!(tb.peek(x, y, 0, 8), want as u64, "pixel ({x},{y})");
    });
}

#[test]
fn subroutines_run_for_the_calling_pixels_only() {
    let mut tb = bench();
    for_all(|x, y| tb.poke(x, y, 90, 1, bit(x, y, 7) as u64));
    let o = tb.run_text("FCCALL 30 90\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_clean(&tb);
    for_all(|x, y| {
        assert_eq!(
            tb.peek(x, y, 30, 8),
            1 + bit(x, y, 7) as u64,
            "pixel ({x},{y})"
        );
    });
    assert_eq!(tb.sim.board.igc.fc.addrs.depth(), 0);
}

#[test]
fn loop_stack_overflow_sets_status_bit_4_and_sends_an_error_message() {
    let mut tb = bench();
    let o = tb.run_text("FCDEEP\n");
    assert_eq!(
        o.stop,
        StopReason::Done,
        "an overflow is an error, not a hang"
    );
    assert_ne!(tb.status() & 1 << 4, 0, "status bit 4");
    assert!(
        tb.sim.tx.iter().any(|m| m.is_error()),
        "an error message went out"
    );
    assert!(
        tb.sim
            .diagnostics
            .iter()
            .any(|d| d.level == "error" && d.msg.contains("loop stack overflow")),
        "{:?}",
        tb.sim.diagnostics
    );
}

#[test]
fn partial_mode_has_no_loop_stack() {
    let src = partial_source();
    let img = assemble(&src, "<fc test>").unwrap_or_else(|e| panic!("{e}"));
    let mut tb = Testbench::boot(img);
    tb.run_text("FCCOUNT 0 3 120\n");
    assert_ne!(
        tb.status() & 1 << 4,
        0,
        "LOOP overflows the (absent) loop stack"
    );
    // IF/ELSE works in partial mode.
    let mut tb2 =
        Testbench::boot(assemble(&partial_source(), "<fc>").unwrap_or_else(|e| panic!("{e}")));
    for_all(|x, y| tb2.poke(x, y, 100, 1, bit(x, y, 1) as u64));
    tb2.run_text("FCSEL 10 100\n");
    assert_clean(&tb2);
    for_all(|x, y| assert_eq!(tb2.peek(x, y, 10, 1), bit(x, y, 1) as u64));
}

#[test]
fn unbalanced_constructs_are_assembly_errors() {
    for (src, msg) in [
        (
            ".command A() -> a\na: IF carry\ndispatch\n",
            "IF/PUSH without ENDIF/POP",
        ),
        (
            ".command A() -> a\na: ENDIF\ndispatch\n",
            "ENDIF without an open IF/PUSH",
        ),
        (
            ".command A() -> a\na: BRK\ndispatch\n",
            "BRK outside a LOOP/REP",
        ),
        (
            ".command A() -> a\na: REP 0\nENDLOOP\ndispatch\n",
            "ENDLOOP closes a REP",
        ),
        (
            ".command A() -> a\na: LOOP 40\nENDLOOP\ndispatch\n",
            "loop constants are 0..=31",
        ),
        (
            ".command A() -> a\na: CALL nowhere\ndispatch\n",
            "unknown label `nowhere`",
        ),
        (
            ".command A() -> a\na: IF mem[q]\nENDIF\ndispatch\n",
            "`q` is not an argument",
        ),
        (".fcconst 3 count=opr9\n", "opr0..opr4"),
    ] {
        let e = assemble(src, "<t>").expect_err(src).to_string();
        assert!(e.contains(msg), "{src}: {e}");
    }
}

/// Run `text` and report whether the waveform's `renderer.igc.fc.error` was 1 in some cycle
/// (read through the tracer interface, as a waveform writer reads it).
fn run_watching_fc_error(tb: &mut Testbench, text: &str) -> bool {
    use pp5_rtl::trace::{Recorder, Traced};
    let s = tb.parse(text);
    let mut seen = false;
    tb.run_with(&s, 100_000, |sim| {
        if sim.board.igc.fc.last.error {
            let mut r = Recorder::default();
            sim.trace_view().trace(&mut r);
            seen |= r.value("renderer.igc.fc.error") == Some(1);
        }
    });
    seen
}

fn assert_fc_error(tb: &Testbench, what: &str) {
    assert_ne!(tb.status() & 1 << 4, 0, "{what}: status bit 4");
    assert!(
        tb.sim.tx.iter().any(|m| m.is_error()),
        "{what}: error message"
    );
    assert!(
        tb.sim
            .diagnostics
            .iter()
            .any(|d| d.level == "error" && d.msg.contains(what)),
        "{what}: {:?}",
        tb.sim.diagnostics
    );
}

#[test]
fn every_stack_error_shows_in_status_diagnostics_and_trace() {
    let mut tb = bench();
    assert!(run_watching_fc_error(&mut tb, "FCDEEP\n"));
    assert_fc_error(&tb, "loop stack overflow");

    let mut tb = bench();
    assert!(run_watching_fc_error(&mut tb, "FCCALLDEEP\n"));
    assert_fc_error(&tb, "address stack overflow");

    let mut tb = bench();
    assert!(run_watching_fc_error(&mut tb, "FCRET\n"));
    assert_fc_error(&tb, "address stack underflow");

    // Partial mode: the branch counter overflows at the fifth nested IF.
    let src = partial_source();
    let mut tb = Testbench::boot(assemble(&src, "<fc>").unwrap_or_else(|e| panic!("{e}")));
    // One pixel takes the IFs; the others are deactivated at the first and counted deeper.
    tb.poke(0, 0, 100, 1, 1);
    assert!(run_watching_fc_error(&mut tb, "FCIFDEEP 100\n"));
    assert_fc_error(&tb, "branch counter overflow");
    // Full mode has room for it.
    let mut tb = bench();
    tb.poke(0, 0, 100, 1, 1);
    assert!(!run_watching_fc_error(&mut tb, "FCIFDEEP 100\n"));
    assert_clean(&tb);

    // Loop-stack underflow cannot be written with the constructs: a raw ENDLOOP.
    use pp5_rtl::flow_control::instruction::{FcInstr, FcOp};
    use pp5_rtl::igc::microinstruction::{encode, Microinstruction};
    let mut img = assemble(&format!("{STANDARD_SOURCE}\n{FC_SOURCE}"), "<fc>")
        .unwrap_or_else(|e| panic!("{e}"));
    let at = img
        .labels
        .iter()
        .find(|(l, _)| l == "fcraw")
        .map(|l| l.1)
        .expect("label");
    let raw = Microinstruction {
        fc: Some(FcInstr {
            op: FcOp::EndLoop,
            jump_func: 0xff,
            jump_any: true,
            ..FcInstr::default()
        }),
        target: at as u16 + 1,
        ..Microinstruction::default()
    };
    for (k, w) in encode(&raw).iter().enumerate() {
        let addr = at * 4 + k as u32;
        for word in img.words.iter_mut().filter(|x| x.0 == addr) {
            word.1 = *w;
        }
    }
    let mut tb = Testbench::boot(img);
    assert!(run_watching_fc_error(&mut tb, "FCRAW\n"));
    assert_fc_error(&tb, "loop stack underflow");
}

#[test]
fn gcdsteps_counts_subtractive_euclid_at_every_pixel() {
    use pp5_sim::demo::{gcd_steps, GCD_FIELDS, GCD_STREAM};
    let mut tb = Testbench::boot(pp5_sim::asm::microcode::default_image());
    let o = tb.run_text(GCD_STREAM);
    assert_eq!(o.stop, StopReason::Done);
    assert_clean(&tb);
    let [fx, fy, fc] = GCD_FIELDS;
    let mut max = 0;
    for_all(|x, y| {
        let (a, b) = (x as u8 + 1, y as u8 + 1);
        let want = gcd_steps(a, b);
        max = max.max(want);
        assert_eq!(tb.peek(x, y, fc, 8), want as u64, "steps at ({x},{y})");
        // Both numbers end as their gcd.
        let g = (1..=a.min(b))
            .rev()
            .find(|d| a % d == 0 && b % d == 0)
            .unwrap_or(1);
        assert_eq!(
            (tb.peek(x, y, fx, 8), tb.peek(x, y, fy, 8)),
            (g as u64, g as u64)
        );
    });
    assert_eq!(max, 127, "gcd(1, 128) takes 127 steps");
    let steps = o
        .command_cycles
        .iter()
        .find(|c| c.0 == "GCDSTEPS")
        .map(|c| c.1)
        .expect("GCDSTEPS ran");
    // 21 + 50 per iteration while pixels take both sides of the IF; the loop runs until the
    // slowest pixel is done (127 steps; docs in sim/microcode/flow.pp5uc).
    assert_eq!(steps, 21 + 127 * 50);
}

#[test]
fn aeo_looks_at_the_active_pixels_only() {
    let mut tb = bench();
    // Enable everywhere except (0, 0), the only pixel whose flag is set: inside FCSEL's IF only
    // (0, 0) is active, and its Enable is clear, so AEO is asserted there.
    tb.run_text("SETENABS\n");
    tb.set_enable(0, 0, false);
    tb.poke(0, 0, 100, 1, 1);
    let s = tb.parse("FCSEL 10 100\n");
    let (mut inside, mut aeo_inside) = (0, true);
    tb.run_with(&s, 10_000, |sim| {
        let fc = &sim.board.igc.fc;
        // The IF side: (0, 0) alone is active (the ELSE side has the others).
        if !fc.all_active && pp5_rtl::emc_array::plane::get(&fc.pe.active, 0, 0) {
            inside += 1;
            aeo_inside &= sim.board.array.aeo();
        }
    });
    assert!(inside > 0, "the IF deactivated pixels");
    assert!(aeo_inside, "AEO over the active pixels");
    // After ENDIF every pixel is active again: Enable elsewhere makes AEO false.
    assert!(!tb.sim.board.array.aeo());
    assert_eq!(tb.peek(0, 0, 10, 1), 1, "the active pixel wrote");
}

/// The standard and flow-control sources with flow.pp5uc's mode set to partial (setting it
/// again after flow.pp5uc would be refused: the mode is one for the whole image).
fn partial_source() -> String {
    let fc = FC_SOURCE.replace(".fcmode full", ".fcmode partial");
    assert_ne!(fc, FC_SOURCE, "flow.pp5uc sets .fcmode full");
    format!("{STANDARD_SOURCE}\n{fc}\n")
}
