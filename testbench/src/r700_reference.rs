//! A reference interpreter of R700 control-flow (CF) programs, per pixel, in plain Rust:
//! written from seed 001 (R700 ISA chapter 3) and docs/flow-control.md ("R700 names", "The
//! R700 stack"), not from the flow-control unit's code. Plus a generator of random structured
//! programs over every CF construct of the seed.
//!
//! A pixel's memory is 128 bits ([`PixelMem`]): eight 8-bit leaf counters (bits 0..64) and 64
//! data bits (64..128). Per pixel, seed 001 reads as ordinary structured code:
//! - a leaf adds 1 to its counter;
//! - LOOP_START (DX9): "reads ... the cyclic count, initial index value, and index increment"
//!   — aL = init, then count iterations, aL += increment after each; LOOP_START_NO_AL: count
//!   iterations, no index of its own (the enclosing DX9 loop's aL is seen); LOOP_START_DX10:
//!   no count, it iterates until the pixel leaves it;
//! - LOOP_BREAK / LOOP_CONTINUE [cond]: "similar to the keyword break / continue in C", for
//!   the pixels that meet the condition;
//! - CALL label [cond]: "executed only when the pixel meets the condition"; RETURN at the
//!   subroutine's end;
//! - JUMP label: the pixel goes to the label (here: skips the statements up to it), when it
//!   meets the condition if there is one;
//! - IF/ELSE (PUSH, predicate, ELSE, POP) and PUSH/POP: the pixel runs the part its
//!   condition selects; PUSH/POP alone change nothing for it;
//! - END_OF_PROGRAM: "the CF program is terminated after the completion of this instruction";
//!   the generator puts it at the top level of the main program only, where every pixel that
//!   has not ended reaches it.

use crate::fc_reference::splitmix64;

/// A pixel's memory: counters at bits 0..64, data at 64..128.
pub type PixelMem = u128;

/// Leaf counters (8 bits each, at `8 * k`).
pub const LEAVES: usize = 8;
/// The first data bit.
pub const DATA_BIT: u8 = 64;
/// Leaves the generator keeps for the DX10 loops' counters (one per DX10 nesting level).
pub const DX10_LEAVES: [u8; 2] = [6, 7];

/// A condition: the memory bit at `addr` (plus the loop index aL when `al`), maybe negated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cond {
    pub addr: u8,
    pub al: bool,
    pub negate: bool,
}

impl Cond {
    /// Whether it holds for memory `m` with loop index `al`.
    pub fn eval(&self, m: PixelMem, al: i32) -> bool {
        let a = self.addr as i32 + if self.al { al } else { 0 };
        assert!(
            (0..128).contains(&a),
            "condition address {a} out of the pixel memory"
        );
        (m >> a & 1 == 1) != self.negate
    }
}

/// The kind of a loop (seed 001 items 2-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// LOOP_START: count, initial aL, increment.
    Dx9 { count: u8, init: u8, step: i8 },
    /// LOOP_START_NO_AL: count.
    NoAl { count: u8 },
    /// LOOP_START_DX10: no count.
    Dx10,
}

/// A statement of a structured CF program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// Leaf counter k += 1.
    Leaf(u8),
    /// IF cond / ELSE / ENDIF.
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
    },
    /// `JUMP L cond`, body, `L: POP`: the pixels meeting `cond` skip the body.
    Skip { cond: Cond, body: Vec<Stmt> },
    /// `JUMP L`, body, `L:`: every pixel skips the body.
    Goto(Vec<Stmt>),
    /// PUSH, body, POP.
    Push(Vec<Stmt>),
    /// A loop and LOOP_END.
    Loop { kind: LoopKind, body: Vec<Stmt> },
    /// LOOP_BREAK [cond].
    Break(Option<Cond>),
    /// LOOP_CONTINUE [cond].
    Continue(Option<Cond>),
    /// CALL sub_k [cond].
    Call { sub: usize, cond: Option<Cond> },
    /// END_OF_PROGRAM.
    End,
}

/// A program: the main statements and the subroutines (each ends with RETURN).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    pub main: Vec<Stmt>,
    pub subs: Vec<Vec<Stmt>>,
}

/// How a block ended for a pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Normal,
    Break,
    Continue,
    End,
}

/// Iterations after which a DX10 loop is taken for a runaway (a generator bug).
pub const DX10_LIMIT: u32 = 100_000;

/// Leaf counter `k` of `m`.
pub fn counter(m: PixelMem, k: usize) -> u8 {
    (m >> (8 * k)) as u8
}

fn bump(m: &mut PixelMem, k: u8) {
    let v = counter(*m, k as usize).wrapping_add(1) as u128;
    *m = *m & !(0xff << (8 * k)) | v << (8 * k);
}

/// Run `p` for one pixel, from memory `m`.
pub fn run(p: &Program, m: &mut PixelMem) {
    block(p, &p.main, m, 0);
}

fn block(p: &Program, stmts: &[Stmt], m: &mut PixelMem, al: i32) -> Flow {
    for s in stmts {
        let f = stmt(p, s, m, al);
        if f != Flow::Normal {
            return f;
        }
    }
    Flow::Normal
}

fn stmt(p: &Program, s: &Stmt, m: &mut PixelMem, al: i32) -> Flow {
    match s {
        Stmt::Leaf(k) => bump(m, *k),
        Stmt::If { cond, then, els } => {
            if cond.eval(*m, al) {
                return block(p, then, m, al);
            } else if let Some(e) = els {
                return block(p, e, m, al);
            }
        }
        Stmt::Skip { cond, body } => {
            if !cond.eval(*m, al) {
                return block(p, body, m, al);
            }
        }
        Stmt::Goto(_) => {}
        Stmt::Push(body) => return block(p, body, m, al),
        Stmt::Loop { kind, body } => return run_loop(p, *kind, body, m, al),
        Stmt::Break(c) => {
            if c.is_none_or(|c| c.eval(*m, al)) {
                return Flow::Break;
            }
        }
        Stmt::Continue(c) => {
            if c.is_none_or(|c| c.eval(*m, al)) {
                return Flow::Continue;
            }
        }
        Stmt::Call { sub, cond } => {
            if cond.is_none_or(|c| c.eval(*m, al)) && block(p, &p.subs[*sub], m, al) == Flow::End {
                return Flow::End;
            }
        }
        Stmt::End => return Flow::End,
    }
    Flow::Normal
}

fn run_loop(p: &Program, kind: LoopKind, body: &[Stmt], m: &mut PixelMem, al: i32) -> Flow {
    let (count, mut al, step) = match kind {
        LoopKind::Dx9 { count, init, step } => (Some(count as u32), init as i32, step as i32),
        LoopKind::NoAl { count } => (Some(count as u32), al, 0),
        LoopKind::Dx10 => (None, al, 0),
    };
    let mut k = 0u32;
    while count.is_none_or(|c| k < c) {
        assert!(k < DX10_LIMIT, "a DX10 loop ran away");
        match block(p, body, m, al) {
            Flow::Break => break,
            Flow::End => return Flow::End,
            Flow::Normal | Flow::Continue => {}
        }
        al += step;
        k += 1;
    }
    Flow::Normal
}

/// What the generator may use where it is.
#[derive(Clone, Copy)]
struct Ctx {
    /// Loop entries in use (the R700 stack's loop entries, `STACK_DEPTH` = 4).
    loops: usize,
    /// Call entries in use.
    calls: usize,
    /// Nesting of DX10 loops (their counters are [`DX10_LEAVES`]).
    dx10: usize,
    /// Inside a loop whose body may BREAK/CONTINUE (not at a DX10 loop's own level).
    in_loop: bool,
    /// CONTINUE allowed (not at a DX10 loop's own level).
    may_continue: bool,
    /// An enclosing DX9 loop gives aL.
    has_al: bool,
    /// Subroutines callable from here: those after this one.
    first_sub: usize,
    /// Statement nesting.
    depth: usize,
    /// At the main program's top level (END_OF_PROGRAM allowed).
    top: bool,
    /// DX10 loops allowed (not in subroutines).
    may_dx10: bool,
}

/// Stack entries a subroutine needs (loops, calls), itself included in calls.
#[derive(Clone, Copy, Default)]
struct Need {
    loops: usize,
    calls: usize,
}

/// The random source of the generator.
struct Gen {
    state: u64,
    budget: usize,
    needs: Vec<Need>,
}

/// Entries of each kind of the R700 stack in full mode (docs/flow-control.md).
const DEPTH: usize = 4;

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        splitmix64(&mut self.state) % n
    }

    fn cond(&mut self, c: &Ctx) -> Cond {
        let al = c.has_al && self.below(3) == 0;
        // aL stays in 5..=22 (see `loop_kind`), so an aL-relative address stays below 128.
        let addr = DATA_BIT + self.below(if al { 36 } else { 64 }) as u8;
        Cond {
            addr,
            al,
            negate: self.below(2) == 0,
        }
    }

    fn opt_cond(&mut self, c: &Ctx) -> Option<Cond> {
        (self.below(3) != 0).then(|| self.cond(c))
    }

    fn block(&mut self, c: Ctx, max: u64) -> Vec<Stmt> {
        let n = self.below(max + 1);
        (0..n).filter_map(|_| self.stmt(c)).collect()
    }

    fn stmt(&mut self, c: Ctx) -> Option<Stmt> {
        if self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        let nested = Ctx {
            depth: c.depth + 1,
            top: false,
            ..c
        };
        let deep = c.depth >= 4;
        Some(match self.below(14) {
            0..=2 => Stmt::Leaf(self.below(6) as u8),
            3 | 4 if !deep => Stmt::If {
                cond: self.cond(&c),
                then: self.block(nested, 3),
                els: (self.below(2) == 0).then(|| self.block(nested, 3)),
            },
            5 if !deep => Stmt::Skip {
                cond: self.cond(&c),
                body: self.block(nested, 3),
            },
            6 if !deep => match self.below(2) {
                0 => Stmt::Push(self.block(nested, 2)),
                _ => Stmt::Goto(self.block(nested, 2)),
            },
            7 | 8 if !deep && c.loops < DEPTH => self.loop_stmt(nested),
            9 if c.in_loop => Stmt::Break(self.opt_cond(&c)),
            10 if c.in_loop && c.may_continue => Stmt::Continue(self.opt_cond(&c)),
            11 | 12 => self.call(&c)?,
            13 if c.top => Stmt::End,
            _ => Stmt::Leaf(self.below(6) as u8),
        })
    }

    fn loop_stmt(&mut self, c: Ctx) -> Stmt {
        let kind = match self.below(3) {
            0 if c.may_dx10 && c.dx10 < DX10_LEAVES.len() => LoopKind::Dx10,
            0 | 1 => LoopKind::Dx9 {
                count: self.below(5) as u8,
                init: 8 + self.below(9) as u8,
                step: self.below(4) as i8 - 1,
            },
            _ => LoopKind::NoAl {
                count: self.below(5) as u8,
            },
        };
        let inner = Ctx {
            loops: c.loops + 1,
            in_loop: true,
            may_continue: kind != LoopKind::Dx10,
            has_al: c.has_al || matches!(kind, LoopKind::Dx9 { .. }),
            dx10: c.dx10 + (kind == LoopKind::Dx10) as usize,
            ..c
        };
        let mut body = self.block(inner, 3);
        if kind == LoopKind::Dx10 {
            // Its own counter, +1 every iteration, and a break on one of its bits: the loop
            // ends within 2^(j+1) iterations for every pixel.
            let leaf = DX10_LEAVES[c.dx10];
            body.insert(0, Stmt::Leaf(leaf));
            body.push(Stmt::Break(Some(Cond {
                addr: 8 * leaf + self.below(4) as u8,
                al: false,
                negate: false,
            })));
        }
        Stmt::Loop { kind, body }
    }

    fn call(&mut self, c: &Ctx) -> Option<Stmt> {
        let subs = self.needs.len();
        if c.first_sub >= subs {
            return None;
        }
        let sub = c.first_sub + self.below((subs - c.first_sub) as u64) as usize;
        let n = self.needs[sub];
        (c.loops + n.loops <= DEPTH && c.calls + n.calls <= DEPTH).then(|| Stmt::Call {
            sub,
            cond: self.opt_cond(c),
        })
    }
}

/// The stack entries the statements need at most (loops, calls), given the subroutines'.
fn need(stmts: &[Stmt], subs: &[Need]) -> Need {
    let mut n = Need::default();
    for s in stmts {
        let inner = match s {
            Stmt::If { then, els, .. } => {
                let a = need(then, subs);
                let b = els.as_deref().map_or(Need::default(), |e| need(e, subs));
                Need {
                    loops: a.loops.max(b.loops),
                    calls: a.calls.max(b.calls),
                }
            }
            Stmt::Skip { body, .. } | Stmt::Goto(body) | Stmt::Push(body) => need(body, subs),
            Stmt::Loop { body, .. } => {
                let b = need(body, subs);
                Need {
                    loops: b.loops + 1,
                    calls: b.calls,
                }
            }
            Stmt::Call { sub, .. } => subs[*sub],
            _ => Need::default(),
        };
        n.loops = n.loops.max(inner.loops);
        n.calls = n.calls.max(inner.calls);
    }
    n
}

/// A random structured program from `seed`: up to 3 subroutines, about `size` statements.
pub fn random_program(seed: u64, size: usize) -> Program {
    let mut g = Gen {
        state: seed,
        budget: size,
        needs: Vec::new(),
    };
    let nsubs = g.below(4) as usize;
    let mut subs: Vec<Vec<Stmt>> = vec![Vec::new(); nsubs];
    let mut needs = vec![Need::default(); nsubs];
    // The last subroutine first: a subroutine calls only later ones.
    for k in (0..nsubs).rev() {
        g.needs = needs.clone();
        g.budget = size / 3;
        let c = Ctx {
            loops: 0,
            calls: 1,
            dx10: 0,
            in_loop: false,
            may_continue: false,
            has_al: false,
            first_sub: k + 1,
            depth: 1,
            top: false,
            may_dx10: false,
        };
        subs[k] = g.block(c, 4);
        let n = need(&subs[k], &needs);
        needs[k] = Need {
            loops: n.loops,
            calls: n.calls + 1,
        };
    }
    g.needs = needs;
    g.budget = size;
    let c = Ctx {
        loops: 0,
        calls: 0,
        dx10: 0,
        in_loop: false,
        may_continue: false,
        has_al: false,
        first_sub: 0,
        depth: 0,
        top: true,
        may_dx10: true,
    };
    let main = g.block(c, 8);
    Program { main, subs }
}

/// Random memories: zero counters, random data bits.
pub fn random_mems(n: usize, seed: u64) -> Vec<PixelMem> {
    let mut s = seed ^ 0x5eed_0700;
    (0..n)
        .map(|_| (splitmix64(&mut s) as u128) << DATA_BIT)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(bit: u8) -> Cond {
        Cond {
            addr: DATA_BIT + bit,
            al: false,
            negate: false,
        }
    }

    #[test]
    fn known_answers() {
        // DX9: aL = 8, 10, 12; count the data bits set at 64 + aL.
        let dx9 = Program {
            main: vec![Stmt::Loop {
                kind: LoopKind::Dx9 {
                    count: 3,
                    init: 8,
                    step: 2,
                },
                body: vec![Stmt::If {
                    cond: Cond {
                        addr: DATA_BIT,
                        al: true,
                        negate: false,
                    },
                    then: vec![Stmt::Leaf(0)],
                    els: None,
                }],
            }],
            subs: vec![],
        };
        let mut m: PixelMem = 0b1_0001 << (DATA_BIT + 8);
        run(&dx9, &mut m);
        assert_eq!(counter(m, 0), 2);
        // DX10 with a break on counter 6's bit 2: 4 iterations from 0; END stops the rest.
        let dx10 = Program {
            main: vec![
                Stmt::Loop {
                    kind: LoopKind::Dx10,
                    body: vec![
                        Stmt::Leaf(6),
                        Stmt::Break(Some(Cond {
                            addr: 8 * 6 + 2,
                            al: false,
                            negate: false,
                        })),
                    ],
                },
                Stmt::Call {
                    sub: 0,
                    cond: Some(data(0)),
                },
                Stmt::End,
                Stmt::Leaf(1),
            ],
            subs: vec![vec![Stmt::Leaf(2)]],
        };
        let mut m: PixelMem = 1 << DATA_BIT;
        run(&dx10, &mut m);
        assert_eq!((counter(m, 6), counter(m, 2), counter(m, 1)), (4, 1, 0));
        let mut m: PixelMem = 0;
        run(&dx10, &mut m);
        assert_eq!((counter(m, 6), counter(m, 2), counter(m, 1)), (4, 0, 0));
        // A conditional JUMP skips its body where the condition holds.
        let skip = Program {
            main: vec![Stmt::Skip {
                cond: data(3),
                body: vec![Stmt::Leaf(0)],
            }],
            subs: vec![],
        };
        for (m0, want) in [(0, 1), (1u128 << (DATA_BIT + 3), 0)] {
            let mut m = m0;
            run(&skip, &mut m);
            assert_eq!(counter(m, 0), want);
        }
    }
}
