//! The lowering's refusals of flow control that leaves a construct or a subroutine
//! (docs/flow-control.md, "Jumps stay in their construct"), each through the whole assembler
//! (its file:line and message), the shapes that stay legal, and PUSH with no active pixel.

use super::*;
use crate::asm::microcode::assemble;

/// `body` as the routine of command X, its first line at source line 5 (after a full-mode
/// header and an idle `dispatch` at address 0).
fn src(body: &str) -> String {
    format!(".fcmode full\n.fcconst 0 count=3\n.command X() -> x\nidle: dispatch\nx: {body}\n")
}

/// `body` is refused with one error, at `line`, whose message contains `msg`.
#[track_caller]
fn refused(body: &str, line: usize, msg: &str) {
    let e = assemble(&src(body), "t.pp5uc").expect_err(body);
    assert_eq!(e.errors.len(), 1, "{body}\n{e}");
    assert_eq!(e.errors[0].line, line, "{body}\n{e}");
    assert!(e.errors[0].msg.contains(msg), "{body}\n{e}\nwanted: {msg}");
}

#[test]
fn a_return_inside_a_conditional_jump_is_refused() {
    // The first program: the mem[1] pixels wait at l1 and would never return.
    refused(
        "CALL s1\ndispatch\ns1: JUMP l1 mem[#1]\nRETURN\nl1: POP\nRETURN",
        8,
        "RETURN inside the conditional JUMP on the line above (`JUMP l1 mem[#1]`): the pixels \
         it sent to l1 would never return; a RETURN goes outside every construct (after its \
         POP on the line below)",
    );
}

#[test]
fn a_conditional_jump_out_of_its_subroutine_is_refused() {
    // Its POP in the main code of another routine: the subroutine's RETURN is inside it.
    refused(
        "CALL s\ndispatch\ns: JUMP l mem[#1]\nRETURN\ny: c=0\nl: POP\ndispatch",
        8,
        "RETURN inside the conditional JUMP on the line above (`JUMP l mem[#1]`): the pixels \
         it sent to l would never return; a RETURN goes outside every construct (after its \
         POP 2 lines down)",
    );
}

#[test]
fn a_jump_out_of_a_conditional_jump_is_refused() {
    // The second program: the parked pixels would be lost.
    refused(
        "JUMP l1 mem[#1]\nJUMP out\nl1: POP\nout: dispatch",
        6,
        "`JUMP out` leaves the conditional JUMP on the line above: the pixels it sent to l1 \
         would never be active again (jump to its POP on the line below instead)",
    );
}

#[test]
fn a_jump_out_of_a_loop_is_refused() {
    refused(
        "LOOP_START 0\nJUMP out\nLOOP_END\nout: dispatch",
        6,
        "`JUMP out` leaves the LOOP_START on the line above: the loop's entry would stay on \
         the stack, with the pixels waiting in it (leave a loop with LOOP_BREAK, or jump to \
         its LOOP_END on the line below)",
    );
}

#[test]
fn a_jump_out_of_an_inner_loop_is_refused() {
    refused(
        "LOOP_START 0\nLOOP_START_NO_AL 0\nJMP next\nLOOP_END\nnext: LOOP_END\ndispatch",
        7,
        "`JMP next` leaves the LOOP_START_NO_AL on the line above",
    );
}

#[test]
fn a_jump_out_of_an_if_is_refused() {
    refused(
        "IF mem[#1]\nJUMP out\nENDIF\nout: dispatch",
        6,
        "`JUMP out` leaves the IF on the line above: the pixels it set aside would never be \
         active again (jump to its ENDIF on the line below instead)",
    );
    // Past the ELSE: the pixels of the ELSE part would skip it.
    refused(
        "IF mem[#1]\nJUMP e\nELSE\nc=0\ne: ENDIF\ndispatch",
        6,
        "`JUMP e` leaves the IF on the line above: the pixels it set aside would never be \
         active again (jump to its ELSE on the line below instead)",
    );
    // Out of the ELSE part, and back to the IF that opened it.
    refused(
        "IF mem[#1]\nELSE\nJUMP out\nENDIF\nout: dispatch",
        7,
        "`JUMP out` leaves the ELSE part (on the line above) of the IF 2 lines up",
    );
    refused(
        "c=0\nl: PUSH\nJUMP l\nPOP\ndispatch",
        7,
        "`JUMP l` leaves the PUSH on the line above",
    );
}

#[test]
fn a_jump_from_a_subroutine_into_the_main_code_is_refused() {
    refused(
        "CALL s\nback: dispatch\ns: JUMP back\nRETURN",
        7,
        "`JUMP back` leaves its subroutine (it ends with the RETURN on the line below) for the \
         main code at back (it reaches the `dispatch` on the line above): the CALL's entry \
         would stay on the stack (end a subroutine with its RETURN)",
    );
}

#[test]
fn a_jump_into_a_construct_or_a_subroutine_is_refused() {
    refused(
        "JUMP in\nIF mem[#1]\nin: c=0\nENDIF\ndispatch",
        5,
        "`JUMP in` jumps into the IF on the line below without passing its start: its ENDIF 3 \
         lines down would restore an active mask that was never saved (enter a construct \
         through its first line)",
    );
    refused(
        "JUMP end\nLOOP_START 0\nc=0\nend: LOOP_END\ndispatch",
        5,
        "`JUMP end` jumps into the LOOP_START on the line below without passing its start: \
         its LOOP_END 3 lines down would end a loop that never started",
    );
    refused(
        "JUMP s\ndispatch\ns: c=0\nRETURN",
        5,
        "`JUMP s` jumps from the main code into the subroutine code at s (it ends with the \
         RETURN 3 lines down): that RETURN would pop a call entry no CALL pushed (use CALL)",
    );
}

#[test]
fn a_return_inside_a_loop_or_an_if_is_refused() {
    refused(
        "CALL s\ndispatch\ns: LOOP_START_DX10\nRETURN\nLOOP_END\nRETURN",
        8,
        "RETURN inside the LOOP_START_DX10 on the line above: the loop's entry would stay on \
         the stack, with the pixels waiting in it; a RETURN goes outside every construct \
         (after its LOOP_END on the line below)",
    );
    refused(
        "CALL s\ndispatch\ns: IF mem[#1]\nRET\nENDIF\nRET",
        8,
        "RET inside the IF on the line above: the pixels it set aside would never return",
    );
}

#[test]
fn a_conditional_jump_past_the_end_of_its_construct_is_refused() {
    refused(
        "LOOP_START 0\nJUMP l1 mem[#1]\nLOOP_END\nl1: POP\ndispatch",
        6,
        "`JUMP l1 mem[#1]` leaves the LOOP_START on the line above: its target l1 is past the \
         LOOP_END on the line below that ends it; a conditional JUMP goes forward to the POP \
         that closes it, inside the same construct",
    );
    refused(
        "IF mem[#2]\nJUMP l mem[#1]\nELSE\nl: POP\nENDIF\ndispatch",
        6,
        "`JUMP l mem[#1]` leaves the IF on the line above: its target l is past the ELSE on \
         the line below",
    );
    refused(
        "JUMP l1 mem[#1]\nJUMP l2 mem[#2]\nl1: POP\nl2: POP\ndispatch",
        6,
        "`JUMP l2 mem[#2]` leaves the conditional JUMP on the line above: its target l2 is \
         past the POP on the line below",
    );
}

#[test]
fn a_call_of_code_inside_a_construct_or_without_return_is_refused() {
    refused(
        "CALL s\ndispatch\nIF mem[#1]\ns: c=0\nENDIF\nRETURN",
        5,
        "`CALL s` calls s, inside the IF 2 lines down: a subroutine goes outside every \
         construct (its RETURN would leave the construct)",
    );
    refused(
        "CALL s mem[#1]\ndispatch\ns: c=0\ndispatch",
        5,
        "`CALL s mem[#1]`: the code at s reaches the `dispatch` 3 lines down before any \
         RETURN: the CALL's entry would stay on the stack (and a conditional CALL's waiting \
         pixels would never run again); end the subroutine with RETURN",
    );
}

#[test]
fn a_misplaced_pop_points_at_its_jump_by_source_lines() {
    // Source lines, not microinstructions: the comment and the blank line count.
    refused(
        "c=0\nJUMP b mem[#1]\n; a comment\n\nc=0\nb: ENDIF\ndispatch",
        10,
        "ENDIF closes the conditional JUMP 4 lines up: put its label on this POP",
    );
}

#[test]
fn references_stay_right_when_files_are_assembled_as_one() {
    // The error's file:line moves to the second file; its message points 2 lines up.
    let parts = [
        (
            "a.pp5uc".to_string(),
            ".command A() -> a\nidle: dispatch\na: dispatch\n".into(),
        ),
        (
            "b.pp5uc".to_string(),
            ".fcmode full\n.fcconst 0 count=3\n.command B() -> b\nb: LOOP_START 0\n\
             c=0\nJUMP out\nLOOP_END\nout: dispatch\n"
                .into(),
        ),
    ];
    let e = crate::asm::microcode::assemble_files(&parts).expect_err("refused");
    assert_eq!(e.errors.len(), 1, "{e}");
    let (file, line, msg) = (&e.errors[0].file, e.errors[0].line, &e.errors[0].msg);
    assert_eq!((file.as_str(), line), ("b.pp5uc", 6), "{e}");
    assert!(msg.contains("leaves the LOOP_START 2 lines up"), "{e}");
}

#[test]
fn jumps_that_stay_in_their_construct_and_subroutines_assemble() {
    for body in [
        // To the end of its block: the LOOP_END, the ELSE, the ENDIF, the POP.
        "LOOP_START 0\nJUMP e\nc=0\ne: LOOP_END\ndispatch",
        "IF mem[#1]\nJUMP e\nc=0\ne: ELSE\nc=0\nENDIF\ndispatch",
        "IF mem[#1]\nELSE\nJUMP e\nc=0\ne: ENDIF\ndispatch",
        "IF mem[#1]\nJUMP e\nc=0\ne: ENDIF\ndispatch",
        "JUMP e mem[#1]\nJUMP e\nc=0\ne: POP\ndispatch",
        // Within a block, both ways; over whole constructs.
        "l: c=0\nLOOP_START 0\nm: c=1\nJUMP m\nLOOP_END\nJUMP l\ndispatch",
        "JUMP over\nIF mem[#1]\nc=0\nENDIF\nover: PUSH\nPOP\ndispatch",
        // Within a subroutine, and from one subroutine into another (its RETURN returns).
        "CALL s\ndispatch\ns: JUMP t\nc=0\nt: JUMP u\nRETURN\nu: c=1\nRETURN",
        // CALLs from inside constructs; END_OF_PROGRAM anywhere; RETURN without CALL (a
        // run-time underflow, tests/r700_constructs.rs).
        "IF mem[#1]\nCALL s\nLOOP_START 0\nCALL s mem[#2]\nLOOP_END\nENDIF\ndispatch\ns: RETURN",
        "IF mem[#1]\nEND_OF_PROGRAM\nENDIF\ndispatch",
        "RETURN\ndispatch",
    ] {
        if let Err(e) = assemble(&src(body), "t.pp5uc") {
            panic!("{body}\n{e}");
        }
    }
}

/// The lowering of `lines` (tokens split at blanks, labels `name:` first).
fn lowered(lines: &[&str]) -> Vec<Option<FcPlan>> {
    let mut labels = Vec::new();
    let toks: Vec<Vec<String>> = lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let mut t: Vec<String> = l.split_whitespace().map(String::from).collect();
            if let Some(name) = t.first().and_then(|x| x.strip_suffix(':')) {
                labels.push((name.to_string(), k as u32));
                t.remove(0);
            }
            t
        })
        .collect();
    let refs: Vec<&[String]> = toks.iter().map(Vec::as_slice).collect();
    let find = |l: &str| labels.iter().find(|x| x.0 == l).map(|x| x.1);
    lower(&refs, |k| k + 1, find).expect("lowers")
}

#[test]
fn a_push_with_no_active_pixel_skips_past_its_pop() {
    // PUSH, ELSE, END_OF_PROGRAM, POP: whatever is active stays (JUMP_FUNC 0: nobody wants
    // to jump), so the PUSH jumps only when no pixel is active (ALL over no participant),
    // and then past its POP, with no count changed: its ELSE part is for nobody.
    let p = lowered(&["PUSH", "ELSE", "END_OF_PROGRAM", "POP", "dispatch"]);
    let push = p[0].as_ref().unwrap();
    assert_eq!(push.target, 4);
    assert_eq!(push.instr.jump_func, 0x00);
    assert!(!push.instr.jump_any);
    assert_eq!((push.instr.b_op0, push.instr.b_op1), (BOp::Incr, BOp::None));
    // Its ELSE is unchanged: past the POP.
    assert_eq!(p[1].as_ref().unwrap().target, 4);
    // A PUSH without ELSE already did so; an IF with an ELSE still jumps into the ELSE part
    // when every participating pixel's condition is false.
    assert_eq!(
        lowered(&["PUSH", "POP", "dispatch"])[0]
            .as_ref()
            .unwrap()
            .target,
        2
    );
    let p = lowered(&["IF carry", "ELSE", "END_OF_PROGRAM", "ENDIF", "dispatch"]);
    let i = p[0].as_ref().unwrap();
    assert_eq!((i.target, i.instr.b_op1), (2, BOp::Incr));
}

#[test]
fn a_jump_to_a_label_past_the_control_store_is_not_checked_here() {
    // The code does not fit (one error says so); the jump checks must not look past it.
    use pp5_rtl::igc::store::CONTROL_STORE_UINSTS;
    let body = format!(
        "JUMP far\nCALL far\n{}far: c=0\nRETURN",
        "c=0\n".repeat(CONTROL_STORE_UINSTS)
    );
    let e = assemble(&src(&body), "t.pp5uc").expect_err("too long");
    assert!(
        e.to_string().contains("do not fit the control store"),
        "{e}"
    );
}
