//! [`FlowControl::step`]: one flow-control instruction, in the order the unit evaluates it
//! (seed 002): the loop-use checks, the PEs' vote (B_ELSE, JUMP_FUNC, the inhibitors), the
//! decision with the loop special cases, then the branch counters (B_OP0/B_OP1), the loop
//! stack (LOOP/REP, ENDLOOP/ENDREP, BREAK, CONTINUE) and the address stack (A_OP: CALL,
//! RETURN). Each construct family has its own function below.

use super::instruction::{AOp, BOp, FcInstr, FcOp};
use super::replay::FcDecision;
use super::stacks::LoopKind;
use super::{FcError, FcOutcome, FcRequest, FlowControl, LastFc};
use crate::emc_array::alu::Lut;
use crate::emc_array::plane::{Plane, PLANE_WORDS};

/// How the PEs voted on one instruction (after B_ELSE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Vote {
    /// Every participating PE wants to jump (the JUMP_ALL decision).
    all_want: bool,
    /// Some participating PE wants to jump (the JUMP_ANY decision).
    any_want: bool,
    /// A covered PE may not leave the loop (BREAK, CONTINUE): it sits in a conditional
    /// deeper than B_POP_CNT, or (BREAK) waits at a CONTINUE.
    inhibited: bool,
    /// Participating PEs that want to jump, and all participating PEs.
    wanted: u32,
    participants: u32,
}

impl FlowControl {
    /// Execute one flow-control instruction. `carry` is each PE's ALU result, `pred` its
    /// predicate bit, `enable` its Enable (clear = uncovered).
    pub fn step(
        &mut self,
        req: &FcRequest,
        carry: &Plane,
        pred: &Plane,
        enable: &Plane,
        errors: &mut Vec<FcError>,
    ) -> FcOutcome {
        self.touched = true;
        let ins = req.instr;
        let pc = req.pc;
        let errors_before = errors.len();
        self.check_loop_use(ins, pc, errors);
        // CONTINUE ends at the loop's end: those PEs take part in the ENDLOOP/ENDREP again.
        if matches!(ins.op, FcOp::EndLoop | FcOp::EndRep) {
            self.resume_continued();
        }
        // Replaying (docs/rendering.md): what the PEs' data decided comes from the log.
        let replayed = self.tap.as_mut().and_then(|t| t.replayed(pc));
        let vote = match replayed {
            Some(d) => d.vote,
            None => self.vote(req, carry, pred, enable),
        };
        let jump = self.decide(req, &vote);
        let overflow_pes = replayed.map(|d| d.overflow_pes);
        let overflow_pes = self.branch_counters(ins, jump, pc, errors, overflow_pes);
        self.loop_stack(req, jump, errors);
        let target = if jump {
            self.address_stack(ins, req.target, pc, errors)
        } else {
            req.target
        };
        self.all_active = match replayed {
            Some(d) => d.all_active,
            None => self.pe.active.iter().all(|&w| w == u64::MAX),
        };
        if let Some(t) = &mut self.tap {
            t.record(FcDecision {
                pc,
                vote,
                overflow_pes,
                all_active: self.all_active,
            });
        }
        self.last = LastFc {
            valid: true,
            req: *req,
            jump,
            wanted: vote.wanted,
            participants: vote.participants,
            error: errors[errors_before..].iter().any(FcError::is_error),
        };
        FcOutcome { jump, target }
    }

    /// Report a loop instruction outside every loop (an underflow) and a BREAK of the wrong
    /// kind for the innermost loop (a warning).
    #[inline]
    fn check_loop_use(&self, ins: FcInstr, pc: u16, errors: &mut Vec<FcError>) {
        let loop_op = matches!(
            ins.op,
            FcOp::EndLoop | FcOp::EndRep | FcOp::BreakLoop | FcOp::BreakRep | FcOp::Continue
        );
        if loop_op && self.loops.depth() == 0 {
            errors.push(FcError::LoopStackUnderflow { pc });
        }
        if let (FcOp::BreakLoop | FcOp::BreakRep, Some(top)) = (ins.op, self.loops.top()) {
            let expect = if ins.op == FcOp::BreakLoop {
                LoopKind::Loop
            } else {
                LoopKind::Rep
            };
            if top.kind != expect {
                errors.push(FcError::BreakKind {
                    pc,
                    op: ins.op,
                    innermost: top.kind,
                });
            }
        }
    }

    /// ENDLOOP/ENDREP: the PEs that CONTINUEd in the innermost loop are active again.
    #[inline]
    fn resume_continued(&mut self) {
        if let Some(top) = self.loops.top_mut() {
            for w in 0..PLANE_WORDS {
                let m = top.cont[w];
                self.pe.active[w] |= m;
                top.cont[w] = 0;
            }
        }
    }

    /// B_ELSE, then every PE's wish (JUMP_FUNC over its ALU result, predicate and the
    /// boolean constant; in `self.want`), the participants and the inhibitors.
    #[inline]
    fn vote(&mut self, req: &FcRequest, carry: &Plane, pred: &Plane, enable: &Plane) -> Vote {
        let ins = req.instr;
        let lut = Lut::new(ins.jump_func);
        let boolv = if req.bool_value { u64::MAX } else { 0 };
        let mut all_want = true;
        let mut any_want = false;
        let mut inhibited = false;
        let (mut wanted, mut participants) = (0u32, 0u32);
        let pop = ins.b_pop_cnt as u32;
        let cont_top = self.loops.top().map(|f| &f.cont);
        for w in 0..PLANE_WORDS {
            let mut else_deact = 0;
            if ins.b_else {
                // Activate the PEs the innermost conditional deactivated (counter 0) and
                // deactivate the active ones (counter 0).
                let react = self.pe.branch[w] & self.pe.below(w, 1);
                else_deact = self.pe.active[w];
                self.pe.active[w] = react;
                self.pe.branch[w] = (self.pe.branch[w] & !react) | else_deact;
                self.pe.clear_counter(w, else_deact | react);
            }
            let covered = if ins.ignore_uncovered {
                enable[w]
            } else {
                u64::MAX
            };
            // PEs deactivated by B_ELSE want to jump regardless of JUMP_FUNC.
            let want = lut.eval(carry[w], pred[w], boolv) | else_deact;
            self.want[w] = want;
            let part = (self.pe.active[w] | else_deact) & covered;
            all_want &= part & !want == 0;
            any_want |= part & want != 0;
            wanted += (part & want).count_ones();
            participants += part.count_ones();
            let inhibit = match ins.op {
                FcOp::BreakLoop | FcOp::BreakRep => {
                    (self.pe.branch[w] & self.pe.below(w, pop)) | cont_top.map_or(0, |c| c[w])
                }
                FcOp::Continue => self.pe.branch[w] & self.pe.below(w, pop),
                _ => 0,
            };
            inhibited |= inhibit & covered != 0;
        }
        Vote {
            all_want,
            any_want,
            inhibited,
            wanted,
            participants,
        }
    }

    /// The decision: JUMP_ANY or JUMP_ALL over the vote, with the seed-002 special cases.
    #[inline]
    fn decide(&self, req: &FcRequest, vote: &Vote) -> bool {
        let ins = req.instr;
        let by_func = if ins.jump_any {
            vote.any_want
        } else {
            vote.all_want
        };
        let top_count = self.loops.top().map(|f| (f.count, f.uncounted));
        match ins.op {
            FcOp::Jump => by_func,
            // Zero iterations: jump (skip the loop) regardless of JUMP_FUNC.
            // A DX10 loop has no count (seed 001 item 3): only JUMP_FUNC decides.
            FcOp::Loop | FcOp::Rep => (!ins.uncounted && req.count == 0) || by_func,
            // The count becoming zero: do not jump regardless of JUMP_FUNC.
            FcOp::EndLoop | FcOp::EndRep => match top_count {
                Some((_, true)) => by_func,
                Some((c, false)) => c > 1 && by_func,
                None => false,
            },
            FcOp::BreakLoop | FcOp::BreakRep | FcOp::Continue => by_func && !vote.inhibited,
        }
    }

    /// Branch counters (IF/ELSE/ENDIF): B_OP1 if jumping, B_OP0 if staying. "Decided to
    /// jump" = wanted. Returns the PEs whose counter overflowed (`replayed`: their number
    /// as recorded, when replaying).
    #[inline]
    fn branch_counters(
        &mut self,
        ins: FcInstr,
        jump: bool,
        pc: u16,
        errors: &mut Vec<FcError>,
        replayed: Option<u32>,
    ) -> u32 {
        match if jump { ins.b_op1 } else { ins.b_op0 } {
            BOp::None => 0,
            BOp::Decr => {
                self.pe.decrement(ins.b_pop_cnt as u32);
                0
            }
            BOp::Incr => {
                let over = self.pe.increment(self.bcnt_max());
                let pes = replayed.unwrap_or_else(|| over.iter().map(|w| w.count_ones()).sum());
                if pes > 0 {
                    errors.push(FcError::BranchCounterOverflow { pc, pes });
                }
                for w in 0..PLANE_WORDS {
                    // Active PEs that disagree with the decision.
                    let disagree = if jump { !self.want[w] } else { self.want[w] };
                    self.pe.deactivate_branch(w, disagree);
                }
                pes
            }
        }
    }

    /// The loop stack: LOOP/REP push a frame when they stay, ENDLOOP/ENDREP count an
    /// iteration or pop, BREAK pops when it jumps, and BREAK/CONTINUE that stay park the PEs
    /// that wanted to leave.
    #[inline]
    fn loop_stack(&mut self, req: &FcRequest, jump: bool, errors: &mut Vec<FcError>) {
        let op = req.instr.op;
        match op {
            FcOp::Jump => {}
            FcOp::Loop | FcOp::Rep if !jump => self.push_loop(req, errors),
            FcOp::Loop | FcOp::Rep => {}
            FcOp::EndLoop | FcOp::EndRep if jump => self.next_iteration(op),
            FcOp::EndLoop | FcOp::EndRep => self.pop_loop(),
            FcOp::BreakLoop | FcOp::BreakRep if jump => self.pop_loop(),
            FcOp::BreakLoop | FcOp::BreakRep | FcOp::Continue => {
                if !jump {
                    self.park(op == FcOp::Continue);
                }
            }
        }
    }

    /// LOOP/REP entering the loop: push a frame (a LOOP with its own aL, a REP with the
    /// enclosing one's).
    fn push_loop(&mut self, req: &FcRequest, errors: &mut Vec<FcError>) {
        let ins = req.instr;
        let (kind, al, step) = if ins.op == FcOp::Loop {
            (LoopKind::Loop, Some(req.init), req.step)
        } else {
            (LoopKind::Rep, self.loops.al(), 0)
        };
        let count = if ins.uncounted { 0 } else { req.count };
        if !self.loops.push(kind, count, al, step, self.stack_limit()) {
            errors.push(FcError::LoopStackOverflow { pc: req.pc });
        } else if let Some(f) = self.loops.top_mut() {
            f.uncounted = ins.uncounted;
        }
    }

    /// ENDLOOP/ENDREP jumping back: one iteration less (a counted loop), aL advances (LOOP).
    #[inline]
    fn next_iteration(&mut self, op: FcOp) {
        if let Some(f) = self.loops.top_mut().filter(|f| !f.uncounted) {
            f.count -= 1;
            if op == FcOp::EndLoop {
                f.al = f.al.map(|a| a.wrapping_add(f.step));
            }
        }
    }

    /// BREAK or CONTINUE (`cont`) that stays: the active PEs that wanted to leave wait in the
    /// innermost frame (until the loop ends, or until its ENDLOOP/ENDREP).
    #[inline]
    fn park(&mut self, cont: bool) {
        if let Some(f) = self.loops.top_mut() {
            let into = if cont { &mut f.cont } else { &mut f.brk };
            for w in 0..PLANE_WORDS {
                let m = self.pe.active[w] & self.want[w];
                into[w] |= m;
                self.pe.active[w] &= !m;
            }
        }
    }

    /// Pop the loop stack: its BREAK and CONTINUE PEs are active again.
    fn pop_loop(&mut self) {
        if let Some(f) = self.loops.pop() {
            for w in 0..PLANE_WORDS {
                self.pe.active[w] |= f.brk[w] | f.cont[w];
            }
        }
    }

    /// The address stack of an instruction that jumps (A_OP): CALL pushes, RETURN pops and
    /// jumps to the popped address. Returns the jump target.
    #[inline]
    fn address_stack(
        &mut self,
        ins: FcInstr,
        target: u16,
        pc: u16,
        errors: &mut Vec<FcError>,
    ) -> u16 {
        match ins.a_op {
            AOp::None => {}
            AOp::Push => self.call(ins.call_per_pe, pc, self.stack_limit(), errors),
            AOp::Pop => match self.addrs.pop() {
                Some((a, waiting)) => {
                    for (act, wait) in self.pe.active.iter_mut().zip(waiting) {
                        *act |= wait;
                    }
                    return a;
                }
                None => errors.push(FcError::AddrStackUnderflow { pc }),
            },
        }
        target
    }

    /// A CALL that jumps: push the return address; with `per_pe` (a conditional CALL), the
    /// active PEs that did not want to jump wait in the new entry until its RETURN.
    fn call(&mut self, per_pe: bool, pc: u16, limit: usize, errors: &mut Vec<FcError>) {
        let ret = (pc as usize + 1) as u16;
        if !self.addrs.push(ret, limit) {
            errors.push(FcError::AddrStackOverflow { pc });
            return;
        }
        if let (true, Some(waiting)) = (per_pe, self.addrs.top_waiting_mut()) {
            let planes = self.pe.active.iter_mut().zip(self.want.iter());
            for (wait, (act, want)) in waiting.iter_mut().zip(planes) {
                *wait = *act & !want;
                *act &= want;
            }
        }
    }
}
