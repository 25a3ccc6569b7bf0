//! Where jumps, RETURNs and CALLs may go (docs/flow-control.md, "Jumps stay in their
//! construct"): the checks [`super::lower`] makes once the constructs are sound, and the
//! names its messages give the constructs.

use super::{keyword, kw_of, Kw, Lowering, Part};

/// Where the straight-line code at a microinstruction ends: at the first RETURN or
/// top-level `dispatch` at or after it, or at the end of the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    /// Subroutine code: it ends with the RETURN at this index.
    Return(usize),
    /// Main code: it ends with the `dispatch` at this index.
    Dispatch(usize),
    /// Code that runs to the end of the source.
    Open,
}

impl Lowering<'_> {
    /// Where microinstruction `to` is, seen from the error at `from`: "on the line above",
    /// "12 lines up". Relative, so it stays right when several files are assembled as one
    /// (an error's own file:line is moved to its file; the text of its message is not).
    pub(super) fn rel(&self, from: usize, to: usize) -> String {
        let (f, t) = (self.src_line[from], self.src_line[to]);
        match (t < f, f.abs_diff(t)) {
            (_, 0) => "on the same line".to_string(),
            (true, 1) => "on the line above".to_string(),
            (false, 1) => "on the line below".to_string(),
            (true, d) => format!("{d} lines up"),
            (false, d) => format!("{d} lines down"),
        }
    }

    /// The construct block `b` belongs to, by its opener's name and place, seen from `from`:
    /// "the LOOP_START 12 lines up", "the conditional JUMP on the line above", "the ELSE part
    /// (2 lines up) of the IF 5 lines up".
    pub(super) fn name(&self, b: usize, from: usize) -> String {
        let blk = &self.blocks[b];
        let o = blk.opener;
        let kw = match kw_of(self.lines[o]) {
            Some(Kw::Jump) => "conditional JUMP",
            _ => self.lines[o][0].as_str(),
        };
        match blk.else_at {
            Some(e) => format!(
                "the ELSE part ({}) of the {kw} {}",
                self.rel(from, e),
                self.rel(from, o)
            ),
            None => format!("the {kw} {}", self.rel(from, o)),
        }
    }

    /// Where block `b` ends, seen from `from`: "its LOOP_END on the line below".
    fn end_name(&self, b: usize, from: usize) -> String {
        match self.blocks[b].end {
            Some(e) => format!("its {} {}", self.lines[e][0], self.rel(from, e)),
            None => "its end".to_string(),
        }
    }

    /// What leaving block `b` early loses.
    fn loss(&self, b: usize) -> String {
        let blk = &self.blocks[b];
        match self.lines[blk.opener] {
            _ if blk.part == Part::Loop => {
                "the loop's entry would stay on the stack, with the pixels waiting in it".into()
            }
            [jump, l, _] if keyword(jump) == Some(Kw::Jump) => {
                format!("the pixels it sent to {l} would never be active again")
            }
            _ => "the pixels it set aside would never be active again".into(),
        }
    }

    /// The region of every microinstruction (see [`Region`]).
    fn regions(&self) -> Vec<Region> {
        let mut out = vec![Region::Open; self.lines.len()];
        let mut end = Region::Open;
        for k in (0..self.lines.len()).rev() {
            // A RETURN inside a construct is refused on its own; taken as an end here, it
            // adds no error about the CALL of its subroutine.
            if kw_of(self.lines[k]) == Some(Kw::Ret) {
                end = Region::Return(k);
            } else if self.block_of[k] == 0 && self.lines[k].iter().any(|t| t == "dispatch") {
                end = Region::Dispatch(k);
            }
            out[k] = end;
        }
        out
    }

    /// How the code of `r` ends, for a message about `from`.
    fn region_end(&self, r: Region, from: usize) -> String {
        match r {
            Region::Return(e) => format!("ends with the RETURN {}", self.rel(from, e)),
            Region::Dispatch(d) => format!("reaches the `dispatch` {}", self.rel(from, d)),
            Region::Open => "runs to the end of the source".to_string(),
        }
    }

    /// Whether block `a` is `b` or encloses it.
    fn encloses(&self, a: usize, mut b: usize) -> bool {
        loop {
            if a == b {
                return true;
            }
            if b == 0 {
                return false;
            }
            b = self.blocks[b].parent;
        }
    }

    /// Once the constructs are sound: refuse every unconditional JUMP that leaves its block
    /// or enters another one, or goes between a subroutine and the main code; every RETURN
    /// inside a construct; every CALL of code inside a construct or without a RETURN.
    pub(super) fn check_jumps(&mut self, label: &impl Fn(&str) -> Option<u32>) {
        let regions = self.regions();
        for k in 0..self.lines.len() {
            let toks = self.lines[k];
            let kw = kw_of(toks);
            // (A label past the control store has no microinstruction here: the assembler
            // refuses that code as not fitting.)
            let target = || {
                label(&toks[1])
                    .map(|t| t as usize)
                    .filter(|&t| t < self.lines.len())
            };
            let err = match kw {
                Some(Kw::Ret) => self.check_return(k),
                Some(Kw::Jmp | Kw::Jump) if toks.len() == 2 => {
                    target().and_then(|t| self.check_jump(k, t, &regions))
                }
                Some(Kw::Call) => target().and_then(|t| self.check_call(k, t, &regions)),
                _ => None,
            };
            if let Some(m) = err {
                self.errs.push((k, m));
            }
        }
    }

    /// A RETURN must be outside every construct.
    fn check_return(&self, k: usize) -> Option<String> {
        let b = self.block_of[k];
        if b == 0 {
            return None;
        }
        let o = self.blocks[b].opener;
        let (what, who) = match self.lines[o] {
            [jump, l, _] if keyword(jump) == Some(Kw::Jump) => (
                format!(" (`{}`)", self.text(o)),
                format!("the pixels it sent to {l} would never return"),
            ),
            _ if self.blocks[b].part == Part::Loop => (String::new(), self.loss(b)),
            _ => (
                String::new(),
                "the pixels it set aside would never return".to_string(),
            ),
        };
        Some(format!(
            "{} inside {}{what}: {who}; a RETURN goes outside every construct (after {})",
            self.lines[k][0],
            self.name(b, k),
            self.end_name(b, k)
        ))
    }

    /// An unconditional JUMP from `k` to `t` stays in its block (or goes to its end), and at
    /// the top level in the main code or in the subroutine code.
    fn check_jump(&self, k: usize, t: usize, regions: &[Region]) -> Option<String> {
        let (kb, tb) = (self.block_of[k], self.block_of[t]);
        let jump = self.text(k);
        if !self.encloses(kb, tb) {
            let how = if self.blocks[kb].part == Part::Loop {
                format!(
                    "leave a loop with LOOP_BREAK, or jump to {}",
                    self.end_name(kb, k)
                )
            } else {
                format!("jump to {} instead", self.end_name(kb, k))
            };
            return Some(format!(
                "`{jump}` leaves {}: {} ({how})",
                self.name(kb, k),
                self.loss(kb)
            ));
        }
        if kb != tb {
            // Into a construct: the block inside `kb` that holds `t`.
            let mut inner = tb;
            while self.blocks[inner].parent != kb {
                inner = self.blocks[inner].parent;
            }
            let undo = if self.blocks[inner].part == Part::Loop {
                "would end a loop that never started"
            } else {
                "would restore an active mask that was never saved"
            };
            return Some(format!(
                "`{jump}` jumps into {} without passing its start: {} {undo} (enter a \
                 construct through its first line)",
                self.name(inner, k),
                self.end_name(inner, k)
            ));
        }
        let to = &self.lines[k][1];
        match (regions[k], regions[t]) {
            (from @ Region::Return(_), main @ (Region::Dispatch(_) | Region::Open)) => {
                Some(format!(
                    "`{jump}` leaves its subroutine (it {}) for the main code at {to} (it {}): \
                     the CALL's entry would stay on the stack (end a subroutine with its \
                     RETURN)",
                    self.region_end(from, k),
                    self.region_end(main, k)
                ))
            }
            (Region::Dispatch(_) | Region::Open, sub @ Region::Return(_)) => Some(format!(
                "`{jump}` jumps from the main code into the subroutine code at {to} (it {}): \
                 that RETURN would pop a call entry no CALL pushed (use CALL)",
                self.region_end(sub, k)
            )),
            _ => None,
        }
    }

    /// A CALL's target is outside every construct and ends with a RETURN.
    fn check_call(&self, k: usize, t: usize, regions: &[Region]) -> Option<String> {
        let call = self.text(k);
        let sub = &self.lines[k][1];
        let tb = self.block_of[t];
        if tb != 0 {
            return Some(format!(
                "`{call}` calls {sub}, inside {}: a subroutine goes outside every construct \
                 (its RETURN would leave the construct)",
                self.name(tb, k)
            ));
        }
        match regions[t] {
            Region::Return(_) => None,
            r => Some(format!(
                "`{call}`: the code at {sub} {} before any RETURN: the CALL's entry would \
                 stay on the stack (and a conditional CALL's waiting pixels would never run \
                 again); end the subroutine with RETURN",
                self.region_end(r, k)
            )),
        }
    }
}
