//! Structured programs of [`crate::fc_reference`] written as IGC microcode with the
//! flow-control constructs of our microcode language (docs/flow-control.md), so the hardware
//! can run them and be compared with the reference interpreters.
//!
//! The program becomes the command `FCPROG()`:
//! - a leaf `k` increments the 8-bit counter at `mem[8k .. 8k+8]` (two microinstructions: set
//!   Carry, then an 8-cycle add loop at the constant address `#8k`); its first microinstruction
//!   is labelled `leaf_<n>` (n counts leaf *statements*), see [`Lowered::leaf_ids`];
//! - `If` → `IF [!]mem[#a]` (or `mem[#a+al]`) / `ELSE` / `ENDIF`;
//! - `Loop`/`Rep` → a loop constant of their own (`.fcconst`) and `LOOP`/`REP` … `ENDLOOP`/
//!   `ENDREP`; `Break`/`Continue` → `BRK`/`CONT`;
//! - subroutine `k` → label `sub_<k>`, its body, `RET`; `Call(k)` → `CALL sub_<k>`.

use crate::fc_reference::{Cond, Program, Stmt, LEAF_BITS};
use std::fmt::Write;

/// A program as microcode source.
pub struct Lowered {
    /// Microcode source to append to the standard microcode.
    pub source: String,
    /// The leaf id of each `leaf_<n>` label.
    pub leaf_ids: Vec<u8>,
}

/// Loop constants available (FC_CONST is 5 bits).
const MAX_CONSTS: usize = 32;

struct Writer {
    body: String,
    consts: String,
    nconsts: usize,
    leaf_ids: Vec<u8>,
}

fn cond(c: &Cond) -> String {
    let neg = if c.negate { "!" } else { "" };
    let al = if c.al_relative { "+al" } else { "" };
    format!("{neg}mem[#{}{al}]", c.addr)
}

impl Writer {
    fn line(&mut self, s: &str) {
        self.body.push_str("          ");
        self.body.push_str(s);
        self.body.push('\n');
    }

    fn konst(&mut self, fields: &str) -> Result<usize, String> {
        let k = self.nconsts;
        if k >= MAX_CONSTS {
            return Err(format!("more than {MAX_CONSTS} loops"));
        }
        self.nconsts += 1;
        let _ = writeln!(self.consts, ".fcconst {k} {fields}");
        Ok(k)
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<(), String> {
        for s in stmts {
            match s {
                Stmt::Leaf(id) => {
                    let n = self.leaf_ids.len();
                    self.leaf_ids.push(*id);
                    let base = *id as usize * LEAF_BITS;
                    let _ = writeln!(self.body, "leaf_{n}:   c=1 i=0 l=#{LEAF_BITS}");
                    let _ = writeln!(
                        self.body,
                        "leaf_{n}_l: a=mem[#{base}+i] r=a^c c=a&c wall=mem[#{base}+i] i++ loop leaf_{n}_l"
                    );
                }
                Stmt::If { cond: c, then, els } => {
                    self.line(&format!("IF {}", cond(c)));
                    self.block(then)?;
                    if let Some(e) = els {
                        self.line("ELSE");
                        self.block(e)?;
                    }
                    self.line("ENDIF");
                }
                Stmt::Loop {
                    count,
                    init,
                    step,
                    body,
                } => {
                    let k = self.konst(&format!("count={count} init={init} step={step}"))?;
                    self.line(&format!("LOOP {k}"));
                    self.block(body)?;
                    self.line("ENDLOOP");
                }
                Stmt::Rep { count, body } => {
                    let k = self.konst(&format!("count={count}"))?;
                    self.line(&format!("REP {k}"));
                    self.block(body)?;
                    self.line("ENDREP");
                }
                Stmt::Break => self.line("BRK"),
                Stmt::Continue => self.line("CONT"),
                Stmt::Call(k) => self.line(&format!("CALL sub_{k}")),
            }
        }
        Ok(())
    }
}

/// Write `p` as the microcode command `FCPROG()`, for full or partial flow-control mode.
/// Fails only when the program needs more than 32 loop constants.
pub fn lower(p: &Program, full: bool) -> Result<Lowered, String> {
    let mut w = Writer {
        body: String::new(),
        consts: String::new(),
        nconsts: 0,
        leaf_ids: Vec::new(),
    };
    w.body.push_str("fcprog_main:\n");
    w.block(&p.main)?;
    w.line("dispatch");
    for (k, sub) in p.subs.iter().enumerate() {
        let _ = writeln!(w.body, "sub_{k}:");
        w.block(sub)?;
        w.line("RET");
    }
    let mode = if full { "full" } else { "partial" };
    Ok(Lowered {
        source: format!(
            ".fcmode {mode}\n{}.command FCPROG() -> fcprog_main\n{}",
            w.consts, w.body
        ),
        leaf_ids: w.leaf_ids,
    })
}
