//! Flow control in the microcode language (docs/flow-control.md, "In the microcode
//! language"): the constant directives, and the structured constructs (upper-case keywords)
//! lowered onto single flow-control microinstructions the way an R500 compiler emits them.
//!
//! | construct | lowering |
//! | --- | --- |
//! | `IF c` | JUMP, JUMP_FUNC = "c false", B_OP0 INCR (+ B_OP1 INCR with an ELSE) → ELSE+1 / ENDIF+1 |
//! | `ELSE` | JUMP, B_ELSE, B_OP1 DECR, POP_CNT 1 → ENDIF+1 |
//! | `ENDIF` | JUMP, JUMP_ANY, B_OP0 DECR, POP_CNT 1 |
//! | `LOOP k` / `REP k` | LOOP / REP with loop constant k → ENDLOOP+1 |
//! | `ENDLOOP` / `ENDREP` | ENDLOOP / ENDREP, JUMP_FUNC 0xff, JUMP_ANY → LOOP+1 |
//! | `BRK [c]` | BREAKLOOP / BREAKREP, JUMP_FUNC 0xff (or "c true"), B_OP1 DECR, POP_CNT = IFs since the loop → ENDLOOP+1 |
//! | `CONT [c]` | CONTINUE, the same → ENDLOOP |
//! | `CALL L` / `RET` / `JMP L` | JUMP, JUMP_FUNC 0xff, A_OP PUSH / POP / NONE |
//! | `PUSH` / `POP` | IF / ENDIF without a condition: save and restore the active mask; with no active pixel the PUSH jumps past its POP, ELSE part or not |
//!
//! Conditions `c`: `mem[X]` (the predicate: port A), `carry` (the ALU result), `bool=K`
//! (boolean constant K), each optionally negated with `!`.
//!
//! The R700 CF constructs of seed 001, by their names (docs/flow-control.md, "R700 names"):
//!
//! | R700 | lowering |
//! | --- | --- |
//! | `LOOP_START k` / `LOOP_START_NO_AL k` | `LOOP k` / `REP k` |
//! | `LOOP_START_DX10` | REP with UNCOUNTED (no trip count: it runs while a PE is in it) |
//! | `LOOP_END` | `ENDLOOP` or `ENDREP`, whichever closes the innermost loop |
//! | `LOOP_BREAK [c]` / `LOOP_CONTINUE [c]` | `BRK [c]` / `CONT [c]` |
//! | `CALL L c` | JUMP, JUMP_ANY, JUMP_FUNC = "c true", A_OP PUSH, CALL_PER_PE → L |
//! | `RETURN` | `RET` |
//! | `JUMP L` | `JMP L` |
//! | `JUMP L c` | an `IF !c` whose ENDIF is the `POP` at L: the pixels where c holds skip to L |
//! | `ELSE` / `PUSH` / `POP` | themselves |
//! | `END_OF_PROGRAM` | JUMP, JUMP_FUNC 0xff → the next `dispatch`: the program ends for every pixel |
//!
//! Once the constructs are lowered, [`lower`] refuses every JUMP, RETURN and CALL that would
//! leave a construct or a subroutine other than through its end, losing pixels or leaving an
//! entry on the stack (docs/flow-control.md, "Jumps stay in their construct"): an
//! unconditional JUMP stays in its block (a construct's part, or the top level) or goes to
//! its end, and at the top level goes neither from subroutine code (up to a RETURN) into main
//! code (up to a `dispatch`) nor back; a conditional JUMP's POP is in the construct the JUMP
//! is in; a RETURN is outside every construct; a CALL goes to subroutine code outside every
//! construct. The checks are in `flow/leave.rs`.

use pp5_rtl::flow_control::instruction::{AOp, BOp, FcInstr, FcOp, LoopConst};
use pp5_rtl::igc::store::{FC_BOOL_WORD, FC_CONSTS, FC_CONST_BASE, FC_CTRL_WORD};

mod leave;
#[cfg(test)]
mod tests;

/// A structured construct, by its keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kw {
    If,
    Else,
    EndIf,
    Loop,
    Rep,
    /// LOOP_START_DX10.
    LoopDx10,
    EndLoop,
    EndRep,
    /// LOOP_END: ENDLOOP or ENDREP, whichever closes the innermost loop.
    LoopEnd,
    Brk,
    Cont,
    Call,
    Jmp,
    /// JUMP: JMP, or with a condition an IF whose ENDIF is the POP at its label.
    Jump,
    Ret,
    Push,
    Pop,
    EndOfProgram,
}

/// The keywords of the structured constructs: ours, then the R700 names (seed 001), the one
/// place each name is spelled.
pub const KEYWORDS: [(&str, Kw); 23] = [
    ("IF", Kw::If),
    ("ELSE", Kw::Else),
    ("ENDIF", Kw::EndIf),
    ("LOOP", Kw::Loop),
    ("ENDLOOP", Kw::EndLoop),
    ("REP", Kw::Rep),
    ("ENDREP", Kw::EndRep),
    ("BRK", Kw::Brk),
    ("CONT", Kw::Cont),
    ("CALL", Kw::Call),
    ("RET", Kw::Ret),
    ("JMP", Kw::Jmp),
    ("PUSH", Kw::Push),
    ("POP", Kw::Pop),
    // The R700 names (seed 001).
    ("LOOP_START", Kw::Loop),
    ("LOOP_START_NO_AL", Kw::Rep),
    ("LOOP_START_DX10", Kw::LoopDx10),
    ("LOOP_END", Kw::LoopEnd),
    ("LOOP_BREAK", Kw::Brk),
    ("LOOP_CONTINUE", Kw::Cont),
    ("RETURN", Kw::Ret),
    ("JUMP", Kw::Jump),
    ("END_OF_PROGRAM", Kw::EndOfProgram),
];

/// The construct a token names, if it is a keyword.
pub fn keyword(tok: &str) -> Option<Kw> {
    KEYWORDS.iter().find(|k| k.0 == tok).map(|k| k.1)
}

/// The construct a microinstruction line opens with, if any.
fn kw_of(tokens: &[impl AsRef<str>]) -> Option<Kw> {
    tokens.first().and_then(|t| keyword(t.as_ref()))
}

/// Whether a microinstruction line is a structured flow-control construct.
pub fn is_construct(tokens: &[String]) -> bool {
    kw_of(tokens).is_some()
}

/// The predicate of a construct's condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pred {
    /// `mem[X]`: the inner address text, for the port-A address generator.
    Mem(String),
    Carry,
    Bool(u8),
}

/// A lowered construct: the flow-control fields, where it jumps, and its inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FcPlan {
    pub instr: FcInstr,
    pub target: u32,
    pub pred: Option<Pred>,
    pub fc_bool: u8,
    pub fc_const: u8,
}

/// JUMP_FUNC of "the condition holds" (index `(alu << 2) | (pred << 1) | bool`).
fn true_func(p: &Pred) -> u8 {
    match p {
        Pred::Mem(_) => 0xcc,
        Pred::Carry => 0xf0,
        Pred::Bool(_) => 0xaa,
    }
}

/// Parse a condition: `[!]mem[X]`, `[!]carry`, `[!]bool=K`. Returns the predicate and the
/// JUMP_FUNC of "the condition holds".
fn cond(tok: &str) -> Result<(Pred, u8), String> {
    let (neg, t) = match tok.strip_prefix('!') {
        Some(t) => (true, t),
        None => (false, tok),
    };
    let p = if t == "carry" {
        Pred::Carry
    } else if let Some(k) = t.strip_prefix("bool=") {
        Pred::Bool(
            k.parse::<u8>()
                .ok()
                .filter(|k| (*k as usize) < 32)
                .ok_or_else(|| format!("`{tok}`: boolean constants are 0..=31"))?,
        )
    } else if let Some(inner) = t.strip_prefix("mem[").and_then(|r| r.strip_suffix(']')) {
        Pred::Mem(inner.to_string())
    } else {
        return Err(format!(
            "condition `{tok}`: use mem[X], carry or bool=K, optionally with `!`"
        ));
    };
    let f = true_func(&p);
    Ok((p, if neg { !f } else { f }))
}

fn bool_of(p: &Option<Pred>) -> u8 {
    match p {
        Some(Pred::Bool(k)) => *k,
        _ => 0,
    }
}

fn jump(func: u8) -> FcInstr {
    FcInstr {
        op: FcOp::Jump,
        jump_func: func,
        ..FcInstr::default()
    }
}

/// A construct still open during the lowering.
enum Open {
    If {
        at: usize,
        else_at: Option<usize>,
        pred: Option<Pred>,
        func_true: u8,
        /// A conditional `JUMP L c`: the index of L, where its POP must be.
        jump_to: Option<usize>,
        /// The block of its current part (the then part, or the else part after its ELSE).
        block: usize,
    },
    Loop {
        at: usize,
        rep: bool,
        depth: u8,
        brks: Vec<usize>,
        conts: Vec<usize>,
        /// The block of its body.
        block: usize,
    },
}

impl Open {
    fn block(&self) -> usize {
        match self {
            Open::If { block, .. } | Open::Loop { block, .. } => *block,
        }
    }
}

/// Which part of the program a [`Block`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Outside every construct.
    Top,
    /// What an IF, a PUSH or a conditional JUMP runs, up to its ELSE or its ENDIF/POP.
    Then,
    /// The part of an IF (or PUSH) from its ELSE to its ENDIF/POP.
    Else,
    /// A loop's body, up to its LOOP_END.
    Loop,
}

/// A block: the microinstructions among which a jump keeps every stack entry and every
/// pixel where it is (docs/flow-control.md, "Jumps stay in their construct"). A construct's
/// opener (IF, PUSH, conditional JUMP, loop start) is in the enclosing block; the
/// microinstruction that ends a block (an ELSE, an ENDIF/POP, a LOOP_END) is in the block it
/// ends, so a jump to it from inside is a jump to the block's end.
struct Block {
    part: Part,
    /// The construct's opener (0 for the top).
    opener: usize,
    /// An else part's ELSE.
    else_at: Option<usize>,
    /// The enclosing block (the top is its own).
    parent: usize,
    /// The microinstruction that ends it, once seen.
    end: Option<usize>,
}

/// Lower the constructs of a microprogram. `lines[k]` are the tokens of microinstruction
/// `k`, `line(k)` its source line (a message says where another construct is from it);
/// `label(name)` resolves a label. Returns a plan for every construct line (None for the
/// others) or `(index, message)` errors. Besides the constructs' own forms, it refuses every
/// JUMP, RETURN and CALL that would leave a construct or a subroutine in a way that loses
/// pixels or leaves an entry on the stack (docs/flow-control.md, "Jumps stay in their
/// construct").
pub fn lower(
    lines: &[&[String]],
    line: impl Fn(usize) -> usize,
    label: impl Fn(&str) -> Option<u32>,
) -> Result<Vec<Option<FcPlan>>, Vec<(usize, String)>> {
    let mut l = Lowering {
        lines,
        src_line: (0..lines.len()).map(line).collect(),
        plans: vec![None; lines.len()],
        stack: Vec::new(),
        depth: 0,
        dispatches: (0..lines.len())
            .filter(|&k| lines[k].iter().any(|t| t == "dispatch"))
            .collect(),
        blocks: vec![Block {
            part: Part::Top,
            opener: 0,
            else_at: None,
            parent: 0,
            end: None,
        }],
        block_of: vec![0; lines.len()],
        orphan_pops: Vec::new(),
        errs: Vec::new(),
    };
    for (k, toks) in lines.iter().enumerate() {
        l.block_of[k] = l.current();
        if !is_construct(toks) {
            continue;
        }
        if let Err(m) = l.construct(k, toks, &label) {
            l.errs.push((k, m));
        }
    }
    let open = std::mem::take(&mut l.stack);
    l.errs.extend(open.into_iter().map(unclosed));
    if l.errs.is_empty() {
        // The structure is sound: check where its jumps and RETURNs go.
        l.check_jumps(&label);
    }
    if l.errs.is_empty() {
        Ok(l.plans)
    } else {
        l.errs.sort_by_key(|e| e.0);
        Err(l.errs)
    }
}

/// The error for a construct still open at the end of the source.
fn unclosed(o: Open) -> (usize, String) {
    let (at, what) = match o {
        Open::If {
            jump_to: Some(_),
            at,
            ..
        } => (
            at,
            "conditional JUMP without its POP (its label must be on the POP that closes it)",
        ),
        Open::If { at, .. } => (at, "IF/PUSH without ENDIF/POP"),
        Open::Loop { at, rep, .. } => (
            at,
            if rep {
                "REP without ENDREP"
            } else {
                "LOOP without ENDLOOP"
            },
        ),
    };
    (at, what.to_string())
}

/// A plan jumping to `target`, with the boolean constant of its predicate.
fn plan(instr: FcInstr, target: usize, pred: Option<Pred>) -> FcPlan {
    FcPlan {
        fc_bool: bool_of(&pred),
        instr,
        target: target as u32,
        pred,
        fc_const: 0,
    }
}

/// `Ok` if the construct `toks` has `n` operands.
fn want_args(toks: &[String], n: usize) -> Result<(), String> {
    let args = &toks[1..];
    if args.len() == n {
        Ok(())
    } else {
        Err(format!(
            "{} takes {n} operand(s), found {}: `{}`",
            toks[0],
            args.len(),
            toks.join(" ")
        ))
    }
}

/// The state of a lowering: the plans so far, the constructs still open and the blocks.
struct Lowering<'a> {
    lines: &'a [&'a [String]],
    /// Each microinstruction's source line.
    src_line: Vec<usize>,
    plans: Vec<Option<FcPlan>>,
    stack: Vec<Open>,
    /// Open IFs/PUSHes (the branch depth), for BRK/CONT's POP_CNT.
    depth: u8,
    /// The microinstructions with `dispatch`, in order (END_OF_PROGRAM's targets).
    dispatches: Vec<usize>,
    /// Every block seen; block 0 is the top.
    blocks: Vec<Block>,
    /// The block of each microinstruction.
    block_of: Vec<usize>,
    /// The POPs of conditional JUMPs refused for leaving their construct: they close
    /// nothing (so the refusal is the only error).
    orphan_pops: Vec<usize>,
    /// The errors: (microinstruction, message).
    errs: Vec<(usize, String)>,
}

impl Lowering<'_> {
    /// The innermost open block.
    fn current(&self) -> usize {
        self.stack.last().map_or(0, Open::block)
    }

    /// A new block inside `parent`.
    fn block(&mut self, part: Part, opener: usize, parent: usize) -> usize {
        self.blocks.push(Block {
            part,
            opener,
            else_at: None,
            parent,
            end: None,
        });
        self.blocks.len() - 1
    }

    /// Microinstruction `k` as written.
    fn text(&self, k: usize) -> String {
        self.lines[k].join(" ")
    }

    /// Lower the construct `toks` at microinstruction `k`.
    fn construct(
        &mut self,
        k: usize,
        toks: &[String],
        label: &impl Fn(&str) -> Option<u32>,
    ) -> Result<(), String> {
        let Some(kw) = kw_of(toks) else {
            unreachable!("is_construct checked the keyword")
        };
        match kw {
            Kw::If | Kw::Push => self.open_if(k, toks),
            Kw::Else => self.else_(k, toks),
            Kw::EndIf | Kw::Pop => self.end_if(k, toks),
            Kw::Loop | Kw::Rep | Kw::LoopDx10 => self.open_loop(k, toks, kw),
            Kw::EndLoop | Kw::EndRep | Kw::LoopEnd => self.end_loop(k, toks, kw),
            Kw::Brk | Kw::Cont => self.brk_cont(k, toks, kw),
            Kw::Call | Kw::Jmp | Kw::Jump => self.call_jmp(k, toks, kw, label),
            Kw::EndOfProgram => self.end_of_program(k, toks),
            Kw::Ret => {
                want_args(toks, 0)?;
                let i = FcInstr {
                    a_op: AOp::Pop,
                    ..jump(0xff)
                };
                self.plans[k] = Some(plan(i, 0, None));
                Ok(())
            }
        }
    }

    /// At the ELSE, ENDIF/POP or LOOP_END `k`: refuse the conditional JUMPs still open on
    /// top of the construct it ends whose POP is past it (they would leave that construct),
    /// and drop them so that `k` ends its own construct.
    fn leave_skips(&mut self, k: usize) {
        while let [.., enclosing, Open::If {
            at,
            jump_to: Some(t),
            ..
        }] = self.stack.as_slice()
        {
            let (at, t) = (*at, *t);
            if t <= k {
                break;
            }
            let m = format!(
                "`{}` leaves {}: its target {} is past the {} {} that ends it; a conditional \
                 JUMP goes forward to the POP that closes it, inside the same construct",
                self.text(at),
                self.name(enclosing.block(), at),
                self.lines[at][1],
                self.lines[k][0],
                self.rel(at, k)
            );
            self.errs.push((at, m));
            self.stack.pop();
            self.depth = self.depth.saturating_sub(1);
            self.orphan_pops.push(t);
        }
    }

    /// `IF c` / `PUSH`: opens a branch; planned at its ENDIF/POP.
    fn open_if(&mut self, k: usize, toks: &[String]) -> Result<(), String> {
        let (pred, func_true) = if kw_of(toks) == Some(Kw::If) {
            want_args(toks, 1)?;
            let (p, f) = cond(&toks[1])?;
            (Some(p), f)
        } else {
            want_args(toks, 0)?;
            (None, 0xff)
        };
        self.depth = self.depth.saturating_add(1);
        let block = self.block(Part::Then, k, self.current());
        self.stack.push(Open::If {
            at: k,
            else_at: None,
            pred,
            func_true,
            jump_to: None,
            block,
        });
        Ok(())
    }

    /// `ELSE`: noted in the open IF; planned at its ENDIF.
    fn else_(&mut self, k: usize, toks: &[String]) -> Result<(), String> {
        want_args(toks, 0)?;
        self.leave_skips(k);
        let (then, opener) = match self.stack.last() {
            Some(Open::If {
                else_at: None,
                jump_to: None,
                block,
                at,
                ..
            }) => (*block, *at),
            _ => {
                return Err(
                    "ELSE without an open IF (or a second ELSE, or in a conditional JUMP)".into(),
                )
            }
        };
        self.blocks[then].end = Some(k);
        let parent = self.blocks[then].parent;
        let els = self.block(Part::Else, opener, parent);
        self.blocks[els].else_at = Some(k);
        if let Some(Open::If { else_at, block, .. }) = self.stack.last_mut() {
            *else_at = Some(k);
            *block = els;
        }
        Ok(())
    }

    /// `ENDIF` / `POP`: plans the IF (or PUSH), its ELSE and itself.
    fn end_if(&mut self, k: usize, toks: &[String]) -> Result<(), String> {
        want_args(toks, 0)?;
        if let Some(i) = self.orphan_pops.iter().position(|&p| p == k) {
            self.orphan_pops.swap_remove(i);
            return Ok(());
        }
        self.leave_skips(k);
        let Some(Open::If {
            at,
            else_at,
            pred,
            func_true,
            jump_to,
            block,
        }) = self.stack.pop()
        else {
            return Err(format!("{} without an open IF/PUSH", toks[0]));
        };
        if jump_to.is_some_and(|t| t != k || kw_of(toks) != Some(Kw::Pop)) {
            return Err(format!(
                "{} closes the conditional JUMP {}: put its label on this POP",
                toks[0],
                self.rel(k, at)
            ));
        }
        self.blocks[block].end = Some(k);
        self.depth = self.depth.saturating_sub(1);
        // A PUSH (no condition, not a JUMP) with its ELSE: whatever is active stays, so it
        // jumps only when no pixel is active, and then past its POP: its ELSE part is for
        // nobody (R700: "If all pixels fail the test, PUSH does not push anything onto the
        // stack; instead, it ... jumps to a specified address").
        let push = pred.is_none() && jump_to.is_none();
        let mut i = jump(!func_true);
        i.b_op0 = BOp::Incr;
        let if_target = match else_at {
            Some(e) => {
                let el = FcInstr {
                    b_else: true,
                    b_op1: BOp::Decr,
                    b_pop_cnt: 1,
                    ..jump(0)
                };
                self.plans[e] = Some(plan(el, k + 1, None));
                if push {
                    k + 1
                } else {
                    i.b_op1 = BOp::Incr;
                    e + 1
                }
            }
            None => k + 1,
        };
        self.plans[at] = Some(plan(i, if_target, pred));
        let end = FcInstr {
            jump_any: true,
            b_op0: BOp::Decr,
            b_pop_cnt: 1,
            ..jump(0)
        };
        self.plans[k] = Some(plan(end, k + 1, None));
        Ok(())
    }

    /// `LOOP k` / `REP k` (`LOOP_START k` / `LOOP_START_NO_AL k`) and `LOOP_START_DX10`:
    /// planned now; its target is set at the ENDLOOP/ENDREP/LOOP_END.
    fn open_loop(&mut self, k: usize, toks: &[String], kw: Kw) -> Result<(), String> {
        let dx10 = kw == Kw::LoopDx10;
        let c = if dx10 {
            want_args(toks, 0)?;
            0
        } else {
            want_args(toks, 1)?;
            toks[1]
                .parse::<u8>()
                .ok()
                .filter(|c| (*c as usize) < FC_CONSTS)
                .ok_or_else(|| format!("{} {}: loop constants are 0..=31", toks[0], toks[1]))?
        };
        let rep = kw != Kw::Loop;
        let mut p = plan(jump(0), 0, None);
        p.instr.op = if rep { FcOp::Rep } else { FcOp::Loop };
        p.instr.uncounted = dx10;
        p.fc_const = c;
        self.plans[k] = Some(p);
        let block = self.block(Part::Loop, k, self.current());
        self.stack.push(Open::Loop {
            at: k,
            rep,
            depth: self.depth,
            brks: Vec::new(),
            conts: Vec::new(),
            block,
        });
        Ok(())
    }

    /// `ENDLOOP` / `ENDREP`: plans itself and sets the targets of its loop's LOOP/REP, BRKs
    /// and CONTs.
    fn end_loop(&mut self, k: usize, toks: &[String], end: Kw) -> Result<(), String> {
        let kw = toks[0].as_str();
        want_args(toks, 0)?;
        self.leave_skips(k);
        let Some(Open::Loop {
            at,
            rep,
            brks,
            conts,
            block,
            ..
        }) = self.stack.pop()
        else {
            return Err(format!(
                "{kw} without an open LOOP/REP (or an IF left open)"
            ));
        };
        if end != Kw::LoopEnd && rep != (end == Kw::EndRep) {
            return Err(format!(
                "{kw} closes a {}",
                if rep {
                    "REP (use ENDREP)"
                } else {
                    "LOOP (use ENDLOOP)"
                }
            ));
        }
        self.blocks[block].end = Some(k);
        let end = FcInstr {
            op: if rep { FcOp::EndRep } else { FcOp::EndLoop },
            jump_any: true,
            ..jump(0xff)
        };
        self.retarget(at, k + 1);
        self.plans[k] = Some(plan(end, at + 1, None));
        for b in brks {
            self.retarget(b, k + 1);
        }
        for c in conts {
            self.retarget(c, k);
        }
        Ok(())
    }

    /// Set the target of the plan at `at`, if it has one.
    fn retarget(&mut self, at: usize, target: usize) {
        if let Some(p) = self.plans[at].as_mut() {
            p.target = target as u32;
        }
    }

    /// `BRK [c]` / `CONT [c]`: planned now; its target is set at the ENDLOOP/ENDREP.
    fn brk_cont(&mut self, k: usize, toks: &[String], which: Kw) -> Result<(), String> {
        let kw = toks[0].as_str();
        let brk = which == Kw::Brk;
        if toks.len() > 2 {
            want_args(toks, 1)?;
        }
        let (pred, func) = match toks.get(1) {
            Some(a) => {
                let (p, f) = cond(a)?;
                (Some(p), f)
            }
            None => (None, 0xff),
        };
        let depth = self.depth;
        let Some(Open::Loop {
            rep,
            depth: at_depth,
            brks,
            conts,
            ..
        }) = self
            .stack
            .iter_mut()
            .rev()
            .find(|o| matches!(o, Open::Loop { .. }))
        else {
            return Err(format!("{kw} outside a LOOP/REP"));
        };
        let op = match (brk, *rep) {
            (false, _) => FcOp::Continue,
            (true, false) => FcOp::BreakLoop,
            (true, true) => FcOp::BreakRep,
        };
        let i = FcInstr {
            op,
            b_op1: BOp::Decr,
            b_pop_cnt: depth - *at_depth,
            ..jump(func)
        };
        if brk {
            brks.push(k);
        } else {
            conts.push(k);
        }
        self.plans[k] = Some(plan(i, 0, pred));
        Ok(())
    }

    /// `CALL L [c]` / `JMP L` / `JUMP L [c]`.
    fn call_jmp(
        &mut self,
        k: usize,
        toks: &[String],
        kw: Kw,
        label: &impl Fn(&str) -> Option<u32>,
    ) -> Result<(), String> {
        if kw == Kw::Jmp || toks.len() != 3 {
            want_args(toks, 1)?;
        }
        let t = label(&toks[1]).ok_or_else(|| format!("unknown label `{}`", toks[1]))?;
        let Some(c) = toks.get(2) else {
            let mut i = jump(0xff);
            if kw == Kw::Call {
                i.a_op = AOp::Push;
            }
            self.plans[k] = Some(plan(i, t as usize, None));
            return Ok(());
        };
        let (pred, f) = cond(c)?;
        if kw == Kw::Call {
            // Seed 001 item 7: executed only for the pixels that meet the condition.
            let i = FcInstr {
                jump_any: true,
                a_op: AOp::Push,
                call_per_pe: true,
                ..jump(f)
            };
            self.plans[k] = Some(plan(i, t as usize, Some(pred)));
            return Ok(());
        }
        // A conditional JUMP: an IF !c closed by the POP at its label.
        if t as usize <= k {
            return Err(format!(
                "JUMP {} {c}: a conditional JUMP goes forward, to the POP that closes it",
                toks[1]
            ));
        }
        self.depth = self.depth.saturating_add(1);
        let block = self.block(Part::Then, k, self.current());
        self.stack.push(Open::If {
            at: k,
            else_at: None,
            pred: Some(pred),
            func_true: !f,
            jump_to: Some(t as usize),
            block,
        });
        Ok(())
    }

    /// `END_OF_PROGRAM`: an unconditional JUMP to the next `dispatch`.
    fn end_of_program(&mut self, k: usize, toks: &[String]) -> Result<(), String> {
        want_args(toks, 0)?;
        let t = self
            .dispatches
            .iter()
            .find(|&&d| d > k)
            .ok_or("END_OF_PROGRAM without a `dispatch` after it")?;
        self.plans[k] = Some(plan(jump(0xff), *t, None));
        Ok(())
    }
}

/// A flow-control directive: `.fcconst K count=C init=I step=S` (count and init may be
/// `oprN`), `.fcbool K 0|1`, `.fcmode full|partial`. Returns the store words it sets, or
/// `None` if the line is not one of them. `.fcbool` returns one bit to OR into the word.
pub fn directive(text: &str) -> Option<Result<Directive, String>> {
    let mut toks = text.split_whitespace();
    let d = toks.next()?;
    let rest: Vec<&str> = toks.collect();
    Some(match d {
        ".fcconst" => fcconst(&rest),
        ".fcbool" => match rest.as_slice() {
            [k, v] => match (k.parse::<u32>().ok().filter(|k| *k < 32), *v) {
                (Some(k), "0") => Ok(Directive::Bool(k, false)),
                (Some(k), "1") => Ok(Directive::Bool(k, true)),
                _ => Err(format!(
                    ".fcbool {k} {v}: use .fcbool K 0|1 with K in 0..=31"
                )),
            },
            _ => Err(".fcbool takes K and 0 or 1".into()),
        },
        ".fcmode" => match rest.as_slice() {
            ["full"] => Ok(Directive::Word(FC_CTRL_WORD as u32, 1)),
            ["partial"] => Ok(Directive::Word(FC_CTRL_WORD as u32, 0)),
            _ => Err(".fcmode takes full or partial".into()),
        },
        _ => return None,
    })
}

/// What a directive asks of the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Directive {
    /// Set a store word.
    Word(u32, u32),
    /// Set boolean constant K.
    Bool(u32, bool),
}

/// The store word holding the boolean constants.
pub const BOOL_WORD: u32 = FC_BOOL_WORD as u32;

fn fcconst(rest: &[&str]) -> Result<Directive, String> {
    let usage = ".fcconst K count=C init=I step=S (count and init: a number or oprN)";
    let (k, fields) = rest.split_first().ok_or(usage)?;
    let k = k
        .parse::<u32>()
        .ok()
        .filter(|k| (*k as usize) < FC_CONSTS)
        .ok_or_else(|| format!("{usage}: K is 0..=31"))?;
    let mut c = LoopConst::default();
    for f in fields {
        let (name, v) = f.split_once('=').ok_or(usage)?;
        let src = |v: &str| -> Result<(u8, Option<u8>), String> {
            if let Some(r) = v.strip_prefix("opr") {
                let r = r.parse::<u8>().ok().filter(|r| *r < 5);
                return r
                    .map(|r| (0, Some(r)))
                    .ok_or_else(|| format!("`{v}`: opr0..opr4"));
            }
            v.parse::<u8>()
                .map(|n| (n, None))
                .map_err(|_| format!("`{v}`: a number 0..=255 or oprN"))
        };
        match name {
            "count" => (c.count, c.count_src) = src(v)?,
            "init" => (c.init, c.init_src) = src(v)?,
            "step" => {
                c.step = v
                    .parse::<i8>()
                    .map_err(|_| format!("`step={v}`: a number -128..=127"))?
            }
            _ => return Err(format!("`{f}`: {usage}")),
        }
    }
    Ok(Directive::Word(FC_CONST_BASE as u32 + k, c.encode()))
}
