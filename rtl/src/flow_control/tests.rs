//! Directed tests of the unit against the encodings an R500 compiler emits (Mesa's
//! `r500_fragprog_emit.c`: IF = JUMP_FUNC 0x0f + B_OP0 INCR, ELSE = B_ELSE + B_OP1 DECR
//! POP_CNT 1, ENDIF = JUMP_ANY + B_OP0 DECR POP_CNT 1, LOOP/ENDLOOP, BREAKLOOP and CONTINUE
//! with B_OP1 DECR POP_CNT = the branch depth inside the loop) and the special cases of
//! seeds 002 and 004. A tiny sequencer runs a program of FC instructions and "leaves" (which
//! record the active mask); the per-PE condition (the ALU result, i.e. Carry) is a function
//! of the PE and of aL.

use super::instruction::{AOp, BOp, FcInstr, FcOp};
use super::*;
use crate::emc_array::plane::{Plane, ONES_PLANE, ZERO_PLANE};

/// PEs the tests look at (the first 64: word 0); the other PEs behave like PE 0.
const N: usize = 64;

enum Ins {
    Fc(FcInstr, u16),
    /// LOOP/REP with (count, init, step), target.
    LoopFc(FcInstr, u16, u32, i32, i32),
    Leaf(u8),
}

/// Execute `req` with `carry` as every PE's ALU result, no predicate, every PE covered.
fn exec(
    f: &mut FlowControl,
    req: FcRequest,
    carry: &Plane,
    errors: &mut Vec<FcError>,
) -> FcOutcome {
    f.step(&req, carry, &ZERO_PLANE, &ONES_PLANE, errors)
}

fn fc(op: FcOp) -> FcInstr {
    FcInstr {
        op,
        ..FcInstr::default()
    }
}

fn if_(has_else: bool) -> FcInstr {
    FcInstr {
        jump_func: 0x0f,
        b_op0: BOp::Incr,
        b_op1: if has_else { BOp::Incr } else { BOp::None },
        ..fc(FcOp::Jump)
    }
}

fn else_() -> FcInstr {
    FcInstr {
        b_else: true,
        b_op1: BOp::Decr,
        b_pop_cnt: 1,
        ..fc(FcOp::Jump)
    }
}

fn endif() -> FcInstr {
    FcInstr {
        jump_any: true,
        b_op0: BOp::Decr,
        b_pop_cnt: 1,
        ..fc(FcOp::Jump)
    }
}

fn endloop(op: FcOp) -> FcInstr {
    FcInstr {
        jump_func: 0xff,
        jump_any: true,
        ..fc(op)
    }
}

fn brk(op: FcOp, depth: u8) -> FcInstr {
    FcInstr {
        jump_func: 0xff,
        b_op1: BOp::Decr,
        b_pop_cnt: depth,
        ..fc(op)
    }
}

/// Run `prog`; `cond(pe, al)` is each PE's ALU result. Returns the leaves executed with
/// their active masks (over the first N PEs, as a u64), and the errors.
fn run(
    f: &mut FlowControl,
    prog: &[Ins],
    cond: impl Fn(usize, i32) -> bool,
) -> (Vec<(u8, u64)>, Vec<FcError>) {
    let mut pc = 0usize;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut steps = 0;
    while pc < prog.len() {
        steps += 1;
        assert!(steps < 10_000, "runaway program");
        let al = f.al().unwrap_or(0);
        let mut carry: Plane = if cond(0, al) { ONES_PLANE } else { ZERO_PLANE };
        carry[0] = (0..N).fold(0, |m, pe| m | (cond(pe, al) as u64) << pe);
        let (instr, target, count, init, step) = match prog[pc] {
            Ins::Leaf(id) => {
                out.push((id, f.pe.active[0]));
                pc += 1;
                continue;
            }
            Ins::Fc(i, t) => (i, t, 0, 0, 0),
            Ins::LoopFc(i, t, c, a, s) => (i, t, c, a, s),
        };
        let req = FcRequest {
            instr,
            pc: pc as u16,
            target,
            bool_value: false,
            count,
            init,
            step,
        };
        let o = exec(f, req, &carry, &mut errors);
        pc = if o.jump { o.target as usize } else { pc + 1 };
    }
    (out, errors)
}

/// The instruction with JUMP_FUNC "jump where the ALU result is 1".
fn on_alu(i: FcInstr) -> FcInstr {
    FcInstr {
        jump_func: 0xf0,
        ..i
    }
}

fn mask(f: impl Fn(usize) -> bool) -> u64 {
    (0..N).fold(0, |m, pe| m | (f(pe) as u64) << pe)
}

fn if_else_prog() -> Vec<Ins> {
    vec![
        Ins::Fc(if_(true), 3), // 0: IF -> ELSE+1
        Ins::Leaf(0),          // 1
        Ins::Fc(else_(), 5),   // 2: ELSE -> ENDIF+1
        Ins::Leaf(1),          // 3
        Ins::Fc(endif(), 5),   // 4: ENDIF
        Ins::Leaf(2),          // 5
    ]
}

#[test]
fn if_else_endif_split_and_rejoin() {
    let mut f = FlowControl::default();
    let (out, errors) = run(&mut f, &if_else_prog(), |pe, _| pe % 3 == 0);
    assert!(errors.is_empty(), "{errors:?}");
    let t = mask(|pe| pe % 3 == 0);
    assert_eq!(out, vec![(0, t), (1, !t), (2, u64::MAX)]);
    assert!(f.all_active);
}

#[test]
fn uniform_conditions_skip_the_other_side() {
    // All true: the ELSE finds no active PE and jumps over the else side (B_OP1 DECR
    // reactivates everyone).
    let mut f = FlowControl::default();
    let (out, _) = run(&mut f, &if_else_prog(), |_, _| true);
    assert_eq!(out, vec![(0, u64::MAX), (2, u64::MAX)]);
    // All false: the IF jumps straight to the else side.
    let mut f = FlowControl::default();
    let (out, _) = run(&mut f, &if_else_prog(), |_, _| false);
    assert_eq!(out, vec![(1, u64::MAX), (2, u64::MAX)]);
    assert!(f.all_active);
}

#[test]
fn nested_ifs_count_branch_depth() {
    // IF a { IF b { L0 } L1 } L2  with a = pe%2, b = pe%4 < 2
    let prog = vec![
        Ins::Fc(if_(false), 7), // 0 -> ENDIF(outer)+1
        Ins::Fc(if_(false), 4), // 1 -> inner ENDIF+1
        Ins::Leaf(0),           // 2
        Ins::Fc(endif(), 4),    // 3
        Ins::Leaf(1),           // 4
        Ins::Fc(endif(), 6),    // 5 (dummy target)
        Ins::Leaf(2),           // 6
    ];
    let mut f = FlowControl::default();
    // The condition depends on which IF asks: both read Carry, so encode both tests as
    // one predicate table by PC through aL = 0: use pe-only conditions that nest.
    let (out, errors) = run(&mut f, &prog, |pe, _| pe % 2 == 0);
    assert!(errors.is_empty());
    let a = mask(|pe| pe % 2 == 0);
    assert_eq!(out, vec![(0, a), (1, a), (2, u64::MAX)]);
}

fn loop_prog(count: u32) -> Vec<Ins> {
    let lp = FcInstr { ..fc(FcOp::Loop) };
    vec![
        Ins::LoopFc(lp, 7, count, 0, 1),     // 0: LOOP (skip -> 7)
        Ins::Leaf(0),                        // 1
        Ins::Fc(if_(false), 5),              // 2: IF pe < aL
        Ins::Fc(brk(FcOp::BreakLoop, 1), 7), // 3: BRK -> ENDLOOP+1
        Ins::Fc(endif(), 5),                 // 4: ENDIF
        Ins::Leaf(1),                        // 5
        Ins::Fc(endloop(FcOp::EndLoop), 1),  // 6: ENDLOOP -> body
        Ins::Leaf(2),                        // 7
    ]
}

#[test]
fn loop_with_a_per_pe_break() {
    let mut f = FlowControl::default();
    // PE p leaves the loop in the iteration where aL (0, 1, 2, ...) exceeds p.
    let (out, errors) = run(&mut f, &loop_prog(4), |pe, al| (pe as i32) < al);
    assert!(errors.is_empty(), "{errors:?}");
    // Compare against a direct per-PE model.
    let mut model = Vec::new();
    let mut broken = 0u64;
    for it in 0..4i32 {
        model.push((0u8, !broken));
        broken |= mask(|pe| (pe as i32) < it);
        model.push((1u8, !broken));
    }
    model.push((2u8, u64::MAX));
    assert_eq!(out, model);
    assert_eq!(f.loops.depth(), 0);
    assert!(f.all_active, "BREAK PEs are active again after the loop");
}

#[test]
fn zero_iteration_loop_jumps_over_the_body() {
    let mut f = FlowControl::default();
    let (out, errors) = run(&mut f, &loop_prog(0), |_, _| false);
    assert!(errors.is_empty());
    assert_eq!(out, vec![(2, u64::MAX)]);
    assert_eq!(f.loops.depth(), 0);
}

#[test]
fn break_by_every_pe_jumps_out_at_once() {
    // Everyone breaks in iteration 0: no PE inhibits, the BREAKLOOP jumps, leaf 1 never runs.
    let mut f = FlowControl::default();
    let (out, _) = run(&mut f, &loop_prog(3), |_, _| true);
    assert_eq!(out, vec![(0, u64::MAX), (2, u64::MAX)]);
}

#[test]
fn continue_skips_the_rest_of_the_iteration() {
    let prog = vec![
        Ins::LoopFc(fc(FcOp::Rep), 7, 3, 0, 0), // 0: REP x3
        Ins::Leaf(0),                           // 1
        Ins::Fc(if_(false), 5),                 // 2: IF odd
        Ins::Fc(brk(FcOp::Continue, 1), 6),     // 3: CONT -> ENDREP
        Ins::Fc(endif(), 5),                    // 4
        Ins::Leaf(1),                           // 5
        Ins::Fc(endloop(FcOp::EndRep), 1),      // 6
        Ins::Leaf(2),                           // 7
    ];
    let mut f = FlowControl::default();
    let (out, errors) = run(&mut f, &prog, |pe, _| pe % 2 == 1);
    assert!(errors.is_empty(), "{errors:?}");
    let even = mask(|pe| pe % 2 == 0);
    let mut model = Vec::new();
    for _ in 0..3 {
        model.push((0u8, u64::MAX));
        model.push((1u8, even));
    }
    model.push((2, u64::MAX));
    assert_eq!(out, model);
}

#[test]
fn continue_deactivated_pes_inhibit_break_but_not_continue() {
    let mut f = FlowControl::default();
    f.loops.push(stacks::LoopKind::Rep, 5, None, 0, STACK_DEPTH);
    let mut errors = Vec::new();
    let carry = ONES_PLANE;
    // Half the PEs CONTINUE first: the others disagree, so it does not jump.
    let mut half = ZERO_PLANE;
    half.iter_mut().for_each(|w| *w = 0x5555_5555_5555_5555);
    let req = |i: FcInstr| FcRequest {
        instr: i,
        target: 9,
        ..FcRequest::default()
    };
    let o = exec(
        &mut f,
        req(on_alu(brk(FcOp::Continue, 0))),
        &half,
        &mut errors,
    );
    assert!(!o.jump);
    // Everyone left wants to BREAK, but the CONTINUE PEs inhibit it.
    let o = exec(
        &mut f,
        req(on_alu(brk(FcOp::BreakRep, 0))),
        &carry,
        &mut errors,
    );
    assert!(!o.jump, "CONTINUE PEs inhibit BREAK");
    // A second CONTINUE by the remaining PEs is not inhibited by the first ones.
    let mut g = FlowControl::default();
    g.loops.push(stacks::LoopKind::Rep, 5, None, 0, STACK_DEPTH);
    exec(
        &mut g,
        req(on_alu(brk(FcOp::Continue, 0))),
        &half,
        &mut errors,
    );
    let o = exec(
        &mut g,
        req(on_alu(brk(FcOp::Continue, 0))),
        &carry,
        &mut errors,
    );
    assert!(o.jump, "CONTINUE PEs do not inhibit CONTINUE");
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn branch_deactivated_pes_inhibit_break_outer_ones_are_indifferent() {
    // PEs 0..32 deactivated by an IF *outside* the loop (counter incremented once inside:
    // counter 1 at BRK with POP_CNT 1): indifferent. PEs deactivated inside: inhibit.
    let mut f = FlowControl::default();
    let mut errors = Vec::new();
    let req = |i: FcInstr| FcRequest {
        instr: i,
        target: 9,
        ..FcRequest::default()
    };
    // Outer IF: low PEs want to jump (ALU 0) and are deactivated.
    let o = exec(
        &mut f,
        req(if_(false)),
        &{
            let mut c = ONES_PLANE;
            c[0] = !0xffff_ffff;
            c
        },
        &mut errors,
    );
    assert!(!o.jump);
    f.loops
        .push(stacks::LoopKind::Loop, 3, Some(0), 1, STACK_DEPTH);
    // IF inside the loop, everyone active agrees (ALU 1): stays, the outer PEs' counters go to 1.
    exec(&mut f, req(if_(false)), &ONES_PLANE, &mut errors);
    let o = exec(
        &mut f,
        req(brk(FcOp::BreakLoop, 1)),
        &ONES_PLANE,
        &mut errors,
    );
    assert!(o.jump, "outer-deactivated PEs do not inhibit");
    // The jump undid the inner IF's increment: the outer PEs are back at counter 0.
    assert_eq!(f.pe.counter_at(0, 1), 0);
    assert!(errors.is_empty(), "{errors:?}");

    let mut g = FlowControl::default();
    g.loops
        .push(stacks::LoopKind::Loop, 3, Some(0), 1, STACK_DEPTH);
    let mut c = ONES_PLANE;
    c[0] = !0xffff_ffff;
    exec(&mut g, req(if_(false)), &c, &mut errors);
    let o = exec(
        &mut g,
        req(brk(FcOp::BreakLoop, 1)),
        &ONES_PLANE,
        &mut errors,
    );
    assert!(!o.jump, "PEs deactivated inside the loop inhibit BREAK");
}

#[test]
fn b_else_deactivated_pes_want_to_jump_regardless_of_jump_func() {
    // ELSE with JUMP_ANY and a JUMP_FUNC nobody satisfies still jumps: the deactivated PEs
    // want to.
    let mut f = FlowControl::default();
    let mut errors = Vec::new();
    let i = FcInstr {
        jump_any: true,
        jump_func: 0,
        ..else_()
    };
    let o = exec(
        &mut f,
        FcRequest {
            instr: i,
            target: 4,
            ..FcRequest::default()
        },
        &ZERO_PLANE,
        &mut errors,
    );
    assert!(o.jump);
}

#[test]
fn endloop_ignores_jump_func_when_the_count_runs_out() {
    let mut f = FlowControl::default();
    let mut errors = Vec::new();
    f.loops
        .push(stacks::LoopKind::Loop, 1, Some(0), 1, STACK_DEPTH);
    let o = exec(
        &mut f,
        FcRequest {
            instr: endloop(FcOp::EndLoop),
            target: 1,
            ..FcRequest::default()
        },
        &ONES_PLANE,
        &mut errors,
    );
    assert!(!o.jump);
    assert_eq!(f.loops.depth(), 0);
}

#[test]
fn nested_loops_shadow_al_and_rep_sees_the_outer_one() {
    let mut f = FlowControl::default();
    let mut errors = Vec::new();
    let mut go = |f: &mut FlowControl, op: FcOp, count: u32, init: i32| {
        exec(
            f,
            FcRequest {
                instr: fc(op),
                target: 99,
                count,
                init,
                step: 1,
                ..FcRequest::default()
            },
            &ZERO_PLANE,
            &mut errors,
        )
    };
    assert_eq!(f.al(), None);
    go(&mut f, FcOp::Loop, 2, 10);
    assert_eq!(f.al(), Some(10));
    go(&mut f, FcOp::Rep, 2, 0);
    assert_eq!(f.al(), Some(10), "REP sees the outer aL");
    go(&mut f, FcOp::Loop, 2, 50);
    assert_eq!(f.al(), Some(50), "LOOP shadows");
    assert!(errors.is_empty());
}

#[test]
fn stacks_overflow_and_underflow_are_reported() {
    let mut errors = Vec::new();
    let mut f = FlowControl::default();
    for _ in 0..5 {
        exec(
            &mut f,
            FcRequest {
                instr: fc(FcOp::Loop),
                count: 3,
                ..FcRequest::default()
            },
            &ZERO_PLANE,
            &mut errors,
        );
    }
    assert_eq!(errors, vec![FcError::LoopStackOverflow { pc: 0 }]);
    errors.clear();
    let mut g = FlowControl::default();
    exec(
        &mut g,
        FcRequest {
            instr: endloop(FcOp::EndLoop),
            ..FcRequest::default()
        },
        &ZERO_PLANE,
        &mut errors,
    );
    assert_eq!(errors, vec![FcError::LoopStackUnderflow { pc: 0 }]);
    errors.clear();
    // CALL five times (unconditional: ALL + func 0xff), RETURN on an empty stack.
    let call = FcInstr {
        jump_func: 0xff,
        a_op: AOp::Push,
        ..fc(FcOp::Jump)
    };
    let ret = FcInstr {
        jump_func: 0xff,
        a_op: AOp::Pop,
        ..fc(FcOp::Jump)
    };
    let mut h = FlowControl::default();
    for k in 0..5u16 {
        exec(
            &mut h,
            FcRequest {
                instr: call,
                pc: k,
                target: 100,
                ..FcRequest::default()
            },
            &ZERO_PLANE,
            &mut errors,
        );
    }
    assert_eq!(errors, vec![FcError::AddrStackOverflow { pc: 4 }]);
    for _ in 0..4 {
        exec(
            &mut h,
            FcRequest {
                instr: ret,
                ..FcRequest::default()
            },
            &ZERO_PLANE,
            &mut errors,
        );
    }
    let o = exec(
        &mut h,
        FcRequest {
            instr: ret,
            pc: 7,
            target: 42,
            ..FcRequest::default()
        },
        &ZERO_PLANE,
        &mut errors,
    );
    assert_eq!(o.target, 42);
    assert_eq!(errors.last(), Some(&FcError::AddrStackUnderflow { pc: 7 }));
    // Partial mode has no stacks: the first LOOP overflows.
    errors.clear();
    let mut p = FlowControl {
        full: false,
        ..FlowControl::default()
    };
    exec(
        &mut p,
        FcRequest {
            instr: fc(FcOp::Loop),
            count: 1,
            ..FcRequest::default()
        },
        &ZERO_PLANE,
        &mut errors,
    );
    assert_eq!(errors, vec![FcError::LoopStackOverflow { pc: 0 }]);
}

#[test]
fn call_and_return_nest() {
    let call = FcInstr {
        jump_func: 0xff,
        a_op: AOp::Push,
        ..fc(FcOp::Jump)
    };
    let ret = FcInstr {
        jump_func: 0xff,
        a_op: AOp::Pop,
        ..fc(FcOp::Jump)
    };
    let prog = vec![
        Ins::Fc(call, 4),            // 0: CALL sub1
        Ins::Leaf(0),                // 1
        Ins::Fc(fc(FcOp::Jump), 99), // 2: JUMP end (func 0, ALL: jumps only with no PE active... use 0xff)
        Ins::Leaf(9),                // 3 (never)
        Ins::Leaf(1),                // 4: sub1
        Ins::Fc(call, 7),            // 5: CALL sub2
        Ins::Fc(ret, 0),             // 6: RET
        Ins::Leaf(2),                // 7: sub2
        Ins::Fc(ret, 0),             // 8: RET
    ];
    let mut prog = prog;
    prog[2] = Ins::Fc(
        FcInstr {
            jump_func: 0xff,
            ..fc(FcOp::Jump)
        },
        99,
    );
    let mut f = FlowControl::default();
    let (out, errors) = run(&mut f, &prog, |_, _| false);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(out, vec![(1, u64::MAX), (2, u64::MAX), (0, u64::MAX)]);
    assert_eq!(f.addrs.depth(), 0);
}

#[test]
fn partial_mode_counter_overflow_is_reported() {
    // Five nested IFs that each deactivate PE 0: its counter would need to reach 4.
    let mut f = FlowControl {
        full: false,
        ..FlowControl::default()
    };
    let mut errors = Vec::new();
    let mut c = ONES_PLANE;
    c[0] &= !1;
    for k in 0..5 {
        exec(
            &mut f,
            FcRequest {
                instr: if_(false),
                pc: k,
                target: 99,
                ..FcRequest::default()
            },
            &c,
            &mut errors,
        );
    }
    assert_eq!(
        errors,
        vec![FcError::BranchCounterOverflow { pc: 4, pes: 1 }]
    );
    assert_eq!(f.pe.counter_at(0, 1), 3);
}

/// The R700 stack of issue 29: a conditional CALL's entry holds the PEs that did not take it
/// until its RETURN; a DX10 loop's entry has no count and runs past 255 iterations.
#[test]
fn r700_conditional_call_and_uncounted_loop_entries() {
    let mut errors = Vec::new();
    let mut f = FlowControl::default();
    let mut odd = ZERO_PLANE;
    odd.iter_mut().for_each(|w| *w = 0xaaaa_aaaa_aaaa_aaaa);
    let call = FcInstr {
        jump_func: 0xf0,
        jump_any: true,
        a_op: AOp::Push,
        call_per_pe: true,
        ..fc(FcOp::Jump)
    };
    let req = |instr, pc, target| FcRequest {
        instr,
        pc,
        target,
        ..FcRequest::default()
    };
    let o = exec(&mut f, req(call, 3, 50), &odd, &mut errors);
    assert_eq!(
        o,
        FcOutcome {
            jump: true,
            target: 50
        }
    );
    assert_eq!(
        *f.pe.active, odd,
        "only the PEs that meet the condition run the call"
    );
    assert_eq!(f.pe_view(0, 0).2, PeFlowState::Call);
    let ret = FcInstr {
        jump_func: 0xff,
        a_op: AOp::Pop,
        ..fc(FcOp::Jump)
    };
    let o = exec(&mut f, req(ret, 60, 0), &odd, &mut errors);
    assert_eq!(
        o,
        FcOutcome {
            jump: true,
            target: 4
        }
    );
    assert!(
        f.pe.active.iter().all(|&w| w == u64::MAX),
        "all back at RETURN"
    );
    // Nobody meets the condition: the CALL is not taken, nothing is pushed.
    let o = exec(&mut f, req(call, 3, 50), &ZERO_PLANE, &mut errors);
    assert!(!o.jump);
    assert_eq!(f.addrs.depth(), 0);

    // A DX10 loop (REP + UNCOUNTED): count 0 does not skip it; 300 iterations.
    let start = FcInstr {
        uncounted: true,
        ..fc(FcOp::Rep)
    };
    assert!(!exec(&mut f, req(start, 0, 9), &ZERO_PLANE, &mut errors).jump);
    assert!(f.loops.top().is_some_and(|t| t.uncounted));
    for _ in 0..300 {
        let o = exec(
            &mut f,
            req(endloop(FcOp::EndRep), 5, 1),
            &ZERO_PLANE,
            &mut errors,
        );
        assert!(o.jump, "an uncounted loop goes on while a PE is in it");
    }
    let o = exec(
        &mut f,
        req(brk(FcOp::BreakRep, 0), 4, 6),
        &ONES_PLANE,
        &mut errors,
    );
    assert!(o.jump, "every PE breaks: the loop ends");
    assert_eq!(f.loops.depth(), 0);
    assert!(errors.is_empty(), "{errors:?}");
}
