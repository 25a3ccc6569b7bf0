//! Programs of [`crate::r700_reference`] written with the R700 names of the flow language
//! (docs/flow-control.md, "R700 names"), and run two ways: as IGC microcode on the board
//! ([`Written::microcode`]), or, much faster, lowered by the assembler's own flow lowering and
//! executed on the flow-control unit alone ([`run_on_unit`]) with a plane-wide leaf adder in
//! place of the microcode's 8-cycle add.
//!
//! Layout: leaf counter `k` at pixel bits `8k .. 8k+8`, data at 64..128 (as in
//! [`crate::r700_reference::PixelMem`]).

use crate::r700_reference::{Cond, LoopKind, PixelMem, Program, Stmt};
use pp5_rtl::emc_array::plane::{Plane, ONES_PLANE, PLANE_WORDS, ZERO_PLANE};
use pp5_rtl::flow_control::instruction::{FcInstr, FcOp};
use pp5_rtl::flow_control::{FcRequest, FlowControl};
use pp5_sim::asm::flow::{self, Pred};
use std::collections::HashMap;

/// One line of a written program: an optional label and its text (a construct, `LEAF k`
/// or `dispatch`).
#[derive(Clone, Debug)]
pub struct Line {
    pub label: Option<String>,
    pub text: String,
}

/// A program written out.
#[derive(Clone, Debug, Default)]
pub struct Written {
    pub lines: Vec<Line>,
    /// Loop constants by number: (count, init, step).
    pub consts: Vec<(u8, u8, i8)>,
}

fn cond(c: &Cond) -> String {
    let neg = if c.negate { "!" } else { "" };
    let al = if c.al { "+al" } else { "" };
    format!("{neg}mem[#{}{al}]", c.addr)
}

struct Writer {
    w: Written,
    labels: usize,
    pending: Option<String>,
}

impl Writer {
    fn line(&mut self, text: String) {
        let label = self.pending.take();
        self.w.lines.push(Line { label, text });
    }

    fn fresh(&mut self) -> String {
        self.labels += 1;
        format!("r7l_{}", self.labels)
    }

    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    /// Write one statement (a label set in `pending` goes on the next line written).
    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Leaf(k) => self.line(format!("LEAF {k}")),
            Stmt::If { cond: c, then, els } => {
                self.line(format!("IF {}", cond(c)));
                self.block(then);
                if let Some(e) = els {
                    self.line("ELSE".into());
                    self.block(e);
                }
                self.line("ENDIF".into());
            }
            Stmt::Skip { cond: c, body } => {
                let l = self.fresh();
                self.line(format!("JUMP {l} {}", cond(c)));
                self.block(body);
                self.pending = Some(l);
                self.line("POP".into());
            }
            Stmt::Goto(body) => {
                // JUMP over the body to a PUSH/POP pair (a line that can carry the label).
                let l = self.fresh();
                self.line(format!("JUMP {l}"));
                self.block(body);
                self.pending = Some(l);
                self.line("PUSH".into());
                self.line("POP".into());
            }
            Stmt::Push(body) => {
                self.line("PUSH".into());
                self.block(body);
                self.line("POP".into());
            }
            Stmt::Loop { kind, body } => {
                let start = match *kind {
                    LoopKind::Dx9 { count, init, step } => {
                        self.w.consts.push((count, init, step));
                        format!("LOOP_START {}", self.w.consts.len() - 1)
                    }
                    LoopKind::NoAl { count } => {
                        self.w.consts.push((count, 0, 0));
                        format!("LOOP_START_NO_AL {}", self.w.consts.len() - 1)
                    }
                    LoopKind::Dx10 => "LOOP_START_DX10".into(),
                };
                self.line(start);
                self.block(body);
                self.line("LOOP_END".into());
            }
            Stmt::Break(c) => self.line(with_cond("LOOP_BREAK", c)),
            Stmt::Continue(c) => self.line(with_cond("LOOP_CONTINUE", c)),
            Stmt::Call { sub, cond: c } => self.line(with_cond(&format!("CALL r7sub_{sub}"), c)),
            Stmt::End => self.line("END_OF_PROGRAM".into()),
        }
    }
}

fn with_cond(kw: &str, c: &Option<Cond>) -> String {
    match c {
        Some(c) => format!("{kw} {}", cond(c)),
        None => kw.to_string(),
    }
}

/// Write `p`: the main program, `dispatch`, then each subroutine and its RETURN. Fails when
/// it needs more than 32 loop constants.
pub fn write(p: &Program) -> Result<Written, String> {
    let mut w = Writer {
        w: Written::default(),
        labels: 0,
        pending: None,
    };
    w.block(&p.main);
    w.line("dispatch".into());
    for (k, sub) in p.subs.iter().enumerate() {
        w.pending = Some(format!("r7sub_{k}"));
        w.block(sub);
        w.line("RETURN".into());
    }
    if w.w.consts.len() > 32 {
        return Err(format!("{} loop constants", w.w.consts.len()));
    }
    Ok(w.w)
}

impl Written {
    /// The program as the microcode command `R7PROG()`, to append to the standard microcode.
    pub fn microcode(&self) -> String {
        let mut s = String::from(".fcmode full\n");
        for (k, (c, i, st)) in self.consts.iter().enumerate() {
            s += &format!(".fcconst {k} count={c} init={i} step={st}\n");
        }
        s += ".command R7PROG() -> r7prog\nr7prog:\n";
        for (n, l) in self.lines.iter().enumerate() {
            let label = l.label.as_ref().map_or(String::new(), |l| format!("{l}:"));
            match l.text.strip_prefix("LEAF ") {
                Some(k) => {
                    let b = 8 * k.parse::<usize>().expect("leaf id");
                    s += &format!("{label} c=1 i=0 l=#8\n");
                    s += &format!(
                        "r7leaf_{n}: a=mem[#{b}+i] r=a^c c=a&c wall=mem[#{b}+i] i++ loop r7leaf_{n}\n"
                    );
                }
                None => s += &format!("{label} {}\n", l.text),
            }
        }
        s
    }
}

/// Pixel memory as 128 bit planes.
pub type Planes = Vec<Plane>;

/// The planes of `mems`, pixel `p` at PE `p` (word `p / 64`, bit `p % 64`), repeated with
/// period `mems.len()` (a divisor of 16,384) over the whole array.
pub fn planes_of(mems: &[PixelMem]) -> Planes {
    let mut planes = vec![ZERO_PLANE; 128];
    for (b, plane) in planes.iter_mut().enumerate() {
        for (w, word) in plane.iter_mut().enumerate() {
            let mut v = 0u64;
            for bit in 0..64 {
                let p = (w * 64 + bit) % mems.len();
                v |= ((mems[p] >> b & 1) as u64) << bit;
            }
            *word = v;
        }
    }
    planes
}

/// Pixel `p`'s memory from the planes.
pub fn mem_of(planes: &Planes, p: usize) -> PixelMem {
    let (w, bit) = (p / 64, p % 64);
    (0..128).fold(0, |m, b| m | ((planes[b][w] >> bit & 1) as u128) << b)
}

/// Run the written program on a flow-control unit (full mode) over `planes`: constructs
/// lowered by the assembler's flow lowering, each executed by [`FlowControl::step`] (its
/// W3 encoded and decoded on the way); `LEAF k` adds 1 to counter k of the active PEs.
/// Returns the instructions executed, or the first error (a flow-control error, a runaway).
pub fn run_on_unit(w: &Written, planes: &mut Planes, max_steps: u64) -> Result<u64, String> {
    let toks: Vec<Vec<String>> = w
        .lines
        .iter()
        .map(|l| l.text.split_whitespace().map(String::from).collect())
        .collect();
    let labels: HashMap<&str, u32> = w
        .lines
        .iter()
        .enumerate()
        .filter_map(|(k, l)| l.label.as_deref().map(|n| (n, k as u32)))
        .collect();
    let refs: Vec<&[String]> = toks.iter().map(|t| t.as_slice()).collect();
    let plans = flow::lower(&refs, |k| k + 1, |l| labels.get(l).copied())
        .map_err(|e| format!("lowering: {e:?}"))?;
    let mut fc = FlowControl::default();
    let (mut pc, mut steps) = (0usize, 0u64);
    let mut errors = Vec::new();
    while toks[pc][0] != "dispatch" {
        steps += 1;
        if steps > max_steps {
            return Err(format!("more than {max_steps} steps"));
        }
        let Some(plan) = &plans[pc] else {
            let k: usize = toks[pc][1].parse().map_err(|_| "leaf id")?;
            add_one(&mut planes[8 * k..8 * k + 8], fc.active_mask());
            pc += 1;
            continue;
        };
        let instr = FcInstr::decode(plan.instr.encode()).map_err(|e| e.to_string())?;
        let (count, init, step) = match instr.op {
            FcOp::Loop | FcOp::Rep => w
                .consts
                .get(plan.fc_const as usize)
                .copied()
                .unwrap_or_default(),
            _ => (0, 0, 0),
        };
        let req = FcRequest {
            instr,
            pc: pc as u16,
            target: plan.target as u16,
            bool_value: false,
            count: count as u32,
            init: init as i32,
            step: step as i32,
        };
        let pred = match &plan.pred {
            Some(Pred::Mem(inner)) => &planes[address(inner, fc.al())?],
            _ => &ZERO_PLANE,
        };
        let out = fc.step(&req, &ZERO_PLANE, pred, &ONES_PLANE, &mut errors);
        if let Some(e) = errors.iter().find(|e| e.is_error()) {
            return Err(e.message());
        }
        pc = if out.jump {
            out.target as usize
        } else {
            pc + 1
        };
    }
    Ok(steps)
}

/// `#a` or `#a+al`.
fn address(inner: &str, al: Option<i32>) -> Result<usize, String> {
    let (base, rel) = match inner.strip_suffix("+al") {
        Some(b) => (b, true),
        None => (inner, false),
    };
    let a: i32 = base
        .strip_prefix('#')
        .and_then(|b| b.parse().ok())
        .ok_or_else(|| format!("address `{inner}`"))?;
    let a = a + if rel { al.unwrap_or(0) } else { 0 };
    usize::try_from(a)
        .ok()
        .filter(|&a| a < 128)
        .ok_or_else(|| format!("address {a} out of the pixel memory"))
}

/// counter += 1 (8 planes, LSB first) where `mask` (all PEs when `None`).
fn add_one(counter: &mut [Plane], mask: Option<&Plane>) {
    for w in 0..PLANE_WORDS {
        let mut carry = mask.map_or(u64::MAX, |m| m[w]);
        for plane in counter.iter_mut() {
            let t = plane[w] & carry;
            plane[w] ^= carry;
            carry = t;
        }
    }
}
