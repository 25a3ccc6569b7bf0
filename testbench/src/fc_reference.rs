//! Reference side of the flow-control unit (issue 5, SPEC §2): structured programs, two plain
//! interpreters for them, static limit helpers and a random program generator.
//!
//! This module is the *contract* the hardware lowering (R700 CF constructs → R5xx US_FC
//! microinstructions) is tested against. It shares nothing with the hardware: it executes a
//! structured program tree directly.
//!
//! # Program model
//!
//! A [`Program`] is a `main` statement list plus subroutines `subs`. Each processing element
//! (PE) owns a [`PeMem`] (208 pixel-memory bits, `mem[k]`):
//!
//! - `mem[LEAF_BASE + 8k .. LEAF_BASE + 8k + 8)` is the 8-bit counter of leaf `k` (LSB first,
//!   `k < MAX_LEAVES`), so leaf counters occupy `mem[0..64)`;
//! - `mem[DATA_BASE .. DATA_BASE + DATA_BITS)` = `mem[64..128)` is per-PE input, never written;
//! - `mem[128..208)` is unused (zero in [`random_mems`]).
//!
//! Statements ([`Stmt`]):
//!
//! - `Leaf(id)`: every active PE increments its counter of leaf `id` (mod 256).
//! - `If { cond, then, els }`: PEs whose [`Cond`] is true run `then`, the others run `els`
//!   (nothing when `None`). The condition is evaluated once, when the `If` is reached.
//! - `Loop { count, init, step, body }`: DX9 loop. The body runs `count` times (`count = 0`:
//!   never). The loop register aL is `init` in the first iteration and grows by `step` (an `i8`,
//!   wrapping `i32` arithmetic) after each iteration. A nested `Loop` shadows aL; after it
//!   ends, the outer aL is visible again.
//! - `Rep { count, body }`: repeat loop, `count` iterations, no aL of its own: inside it aL is
//!   that of the innermost enclosing `Loop` (0 when there is none).
//! - `Break`: the PE leaves the innermost `Loop`/`Rep` for good (it is back, active, after the
//!   loop statement).
//! - `Continue`: the PE skips the rest of the current iteration of the innermost `Loop`/`Rep`
//!   and takes part in the next iteration.
//! - `Call(k)`: run `subs[k]` with the caller's activity. aL is *dynamic*: a subroutine sees
//!   the aL of the innermost `Loop` that is running when it is called (the hardware loop stack
//!   is global state), or 0 outside any loop.
//!
//! Conditions ([`Cond`]) read pixel-memory bit `addr`, or `addr + aL` when `al_relative`,
//! inverted when `negate`. Every address read must lie in `mem[0..128)`
//! ([`COND_ADDR_LIMIT`]); the interpreters panic with a clear message otherwise.
//!
//! Structural rules ([`validate`]): leaf ids `< MAX_LEAVES`; `Break`/`Continue` only inside a
//! `Loop`/`Rep` of the same body (directly or nested in `If`s; a subroutine body has none
//! outside its own loops); `Call(k)` names an existing subroutine, and `subs[k]` only calls
//! `subs[j]` with `j < k` (no recursion); an absolute condition address is `< 128`.
//!
//! # Interpreters
//!
//! - [`run_scalar`]: one PE, plain recursive execution.
//! - [`run_masked`]: all PEs in lockstep with an active mask (what the SIMD hardware does): an
//!   `If` splits the mask; a loop keeps a "broken" mask; `Break` moves the active PEs into it
//!   and clears them for the rest of the loop; `Continue` clears them for the rest of the
//!   current iteration; each iteration starts with the loop's entry mask minus the broken PEs;
//!   iterations stop early once that is empty. It returns the leaf trace: every leaf execution
//!   with a non-empty mask, in execution order. Final memories equal [`run_scalar`] per PE, and
//!   the trace restricted to one PE is that PE's [`run_scalar_leaves`] sequence.
//!
//! # Hardware modes
//!
//! [`partial_mode_legal`]: no `Loop`/`Rep`/`Call` anywhere and [`if_depth`] ≤ 4 (branch counter
//! 0..3). [`full_mode_legal`]: [`loop_depth`] ≤ 4, [`call_depth`] ≤ 4, [`if_depth`] ≤ 32. The
//! depths count through calls (a call adds the callee's depth to the caller's) and are the
//! maximum over `main` and every subroutine taken on its own (so an uncalled subroutine is
//! still counted; this is conservative).
//!
//! # Generator
//!
//! [`program_from_choices`] builds a legal program from a *choice sequence* (`&[u32]`): every
//! decision reads the next number, and an exhausted sequence reads 0, which always means the
//! simplest option (end the block, a `Leaf`, leaf 0, ...). Proptest's shrinking of the
//! sequence (shorter, smaller numbers) therefore shrinks the program. The crate's `proptest` is
//! a dev-dependency only, so the `Strategy` itself is the macro
//! [`fc_program_strategy!`](crate::fc_program_strategy), expanded in the test crate:
//!
//! ```ignore
//! fn program_strategy(cfg: GenConfig) -> impl Strategy<Value = Program> {
//!     pp5_testbench::fc_program_strategy!(cfg)
//! }
//! ```
//!
//! [`random_program`] and [`random_mems`] give the same without proptest (seeded).

use crate::reference::MEM_BITS;
use std::fmt;

/// Pixel memory of one PE as the reference sees it: 208 bits, `mem[k]` is bit `k`.
pub type PeMem = [bool; MEM_BITS];
/// Leaf counters: leaf `k` owns `mem[LEAF_BASE + 8k .. LEAF_BASE + 8k + 8)`, LSB first.
pub const LEAF_BASE: usize = 0;
/// Width of a leaf counter.
pub const LEAF_BITS: usize = 8;
/// Leaf ids are `0..MAX_LEAVES` (counters in `mem[0..64)`).
pub const MAX_LEAVES: usize = 8;
/// Per-PE random input `mem[64..128)`, never written by a program.
pub const DATA_BASE: usize = 64;
/// Bits of per-PE input.
pub const DATA_BITS: usize = 64;
/// A condition must read `mem[0..COND_ADDR_LIMIT)` (counters and data).
pub const COND_ADDR_LIMIT: usize = 128;

/// Partial mode: branch counter 0..3, at most 4 nested Ifs, no loop or address stack.
pub const PARTIAL_MAX_IF_DEPTH: usize = 4;
/// Full mode: branch counter 0..31, at most 32 nested Ifs.
pub const FULL_MAX_IF_DEPTH: usize = 32;
/// Full mode: loop stack of 4.
pub const FULL_MAX_LOOP_DEPTH: usize = 4;
/// Full mode: address stack of 4.
pub const FULL_MAX_CALL_DEPTH: usize = 4;

/// The generator keeps every aL in `0..=GEN_AL_MAX` ...
pub const GEN_AL_MAX: usize = 48;
/// ... and every aL-relative `addr` below this, so `addr + aL < 128`.
pub const GEN_AL_ADDR_LIMIT: usize = COND_ADDR_LIMIT - GEN_AL_MAX;
/// Length bound of the choice sequence [`fc_program_strategy!`](crate::fc_program_strategy)
/// draws (more than any program within the default budgets consumes).
pub const MAX_CHOICES: usize = 1024;

/// A per-PE condition: `mem[addr]`, or `mem[addr + aL]` when `al_relative` (aL of the
/// innermost running `Loop`, 0 outside any loop), inverted when `negate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cond {
    pub addr: u8,
    pub al_relative: bool,
    pub negate: bool,
}

impl Cond {
    /// `mem[addr]`.
    pub fn bit(addr: usize) -> Cond {
        Cond {
            addr: addr as u8,
            al_relative: false,
            negate: false,
        }
    }

    /// `!mem[addr]`.
    pub fn not(addr: usize) -> Cond {
        Cond {
            negate: true,
            ..Cond::bit(addr)
        }
    }

    /// `mem[addr + aL]`.
    pub fn al(addr: usize) -> Cond {
        Cond {
            al_relative: true,
            ..Cond::bit(addr)
        }
    }

    /// This condition inverted.
    pub fn negated(self) -> Cond {
        Cond {
            negate: !self.negate,
            ..self
        }
    }

    /// The address read when the loop register is `al`. Panics (with the condition and aL in
    /// the message) when it falls outside `mem[0..128)`.
    pub fn address(&self, al: i32) -> usize {
        let a = if self.al_relative {
            (self.addr as i64) + (al as i64)
        } else {
            self.addr as i64
        };
        assert!(
            (0..COND_ADDR_LIMIT as i64).contains(&a),
            "fc_reference: condition {self} reads mem[{a}] (aL = {al}), outside mem[0..{COND_ADDR_LIMIT})"
        );
        a as usize
    }

    /// The condition's value for a PE with memory `mem` when the loop register is `al`.
    pub fn eval(&self, mem: &PeMem, al: i32) -> bool {
        mem[self.address(al)] != self.negate
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let neg = if self.negate { "!" } else { "" };
        if self.al_relative {
            write!(f, "{neg}mem[{}+aL]", self.addr)
        } else {
            write!(f, "{neg}mem[{}]", self.addr)
        }
    }
}

/// A structured statement (see the module documentation for the exact semantics).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stmt {
    /// Every active PE increments its 8-bit counter of leaf `id` (wrapping).
    Leaf(u8),
    /// Per-PE two-way branch; `els: None` is an If without Else.
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
    },
    /// DX9-style loop: `count` iterations (0 = body never runs), aL = `init`, then
    /// aL += `step` after each iteration.
    Loop {
        count: u8,
        init: u8,
        step: i8,
        body: Vec<Stmt>,
    },
    /// Repeat loop without its own aL (inside, aL is that of the innermost enclosing Loop).
    Rep { count: u8, body: Vec<Stmt> },
    /// Leave the innermost Loop/Rep for good (per PE).
    Break,
    /// Skip the rest of this iteration of the innermost Loop/Rep (per PE).
    Continue,
    /// Run subroutine `subs[k]` (unconditional; per-PE activity is inherited).
    Call(usize),
}

/// A structured program: `main` plus subroutines (`subs[k]` may call only `subs[j]`, `j < k`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Program {
    pub main: Vec<Stmt>,
    pub subs: Vec<Vec<Stmt>>,
}

impl Program {
    /// A program without subroutines.
    pub fn new(main: Vec<Stmt>) -> Program {
        Program { main, subs: vec![] }
    }
}

fn fmt_block(f: &mut fmt::Formatter<'_>, stmts: &[Stmt], indent: usize) -> fmt::Result {
    let pad = "  ".repeat(indent);
    for s in stmts {
        match s {
            Stmt::Leaf(id) => writeln!(f, "{pad}leaf {id}")?,
            Stmt::If { cond, then, els } => {
                writeln!(f, "{pad}if {cond} {{")?;
                fmt_block(f, then, indent + 1)?;
                if let Some(e) = els {
                    writeln!(f, "{pad}}} else {{")?;
                    fmt_block(f, e, indent + 1)?;
                }
                writeln!(f, "{pad}}}")?;
            }
            Stmt::Loop {
                count,
                init,
                step,
                body,
            } => {
                writeln!(f, "{pad}loop count={count} aL={init} step={step:+} {{")?;
                fmt_block(f, body, indent + 1)?;
                writeln!(f, "{pad}}}")?;
            }
            Stmt::Rep { count, body } => {
                writeln!(f, "{pad}rep count={count} {{")?;
                fmt_block(f, body, indent + 1)?;
                writeln!(f, "{pad}}}")?;
            }
            Stmt::Break => writeln!(f, "{pad}break")?,
            Stmt::Continue => writeln!(f, "{pad}continue")?,
            Stmt::Call(k) => writeln!(f, "{pad}call sub{k}")?,
        }
    }
    Ok(())
}

/// A readable listing (`main:` then `sub0:` ...), handy in failing-test messages.
impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "main:")?;
        fmt_block(f, &self.main, 1)?;
        for (k, s) in self.subs.iter().enumerate() {
            writeln!(f, "sub{k}:")?;
            fmt_block(f, s, 1)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Memory helpers
// ---------------------------------------------------------------------------------------------

/// An all-zero pixel memory.
pub fn zero_mem() -> PeMem {
    [false; MEM_BITS]
}

/// The counter of leaf `id`.
pub fn leaf_counter(mem: &PeMem, id: usize) -> u8 {
    assert!(id < MAX_LEAVES, "leaf id {id} >= {MAX_LEAVES}");
    let base = LEAF_BASE + LEAF_BITS * id;
    (0..LEAF_BITS).fold(0u8, |v, b| v | ((mem[base + b] as u8) << b))
}

/// All leaf counters.
pub fn leaf_counters(mem: &PeMem) -> [u8; MAX_LEAVES] {
    std::array::from_fn(|id| leaf_counter(mem, id))
}

/// Set the counter of leaf `id`.
pub fn set_leaf_counter(mem: &mut PeMem, id: usize, v: u8) {
    assert!(id < MAX_LEAVES, "leaf id {id} >= {MAX_LEAVES}");
    let base = LEAF_BASE + LEAF_BITS * id;
    for b in 0..LEAF_BITS {
        mem[base + b] = (v >> b) & 1 == 1;
    }
}

/// Data bit `i` (`mem[DATA_BASE + i]`).
pub fn data_bit(mem: &PeMem, i: usize) -> bool {
    assert!(i < DATA_BITS);
    mem[DATA_BASE + i]
}

/// The 64 data bits as an integer (bit `i` = `mem[DATA_BASE + i]`).
pub fn data_word(mem: &PeMem) -> u64 {
    (0..DATA_BITS).fold(0u64, |v, i| v | ((mem[DATA_BASE + i] as u64) << i))
}

/// Set the 64 data bits from an integer.
pub fn set_data_word(mem: &mut PeMem, v: u64) {
    for i in 0..DATA_BITS {
        mem[DATA_BASE + i] = (v >> i) & 1 == 1;
    }
}

/// SplitMix64, the PRNG of [`random_mems`] and [`random_program`].
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` pixel memories: data region random (from `seed`), counters and the rest zero.
pub fn random_mems(n: usize, seed: u64) -> Vec<PeMem> {
    let mut st = seed;
    (0..n)
        .map(|_| {
            let mut m = zero_mem();
            set_data_word(&mut m, splitmix64(&mut st));
            m
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

fn validate_block(
    p: &Program,
    stmts: &[Stmt],
    in_loop: bool,
    sub: Option<usize>,
) -> Result<(), String> {
    let whereis = || match sub {
        None => "main".to_string(),
        Some(k) => format!("sub{k}"),
    };
    for s in stmts {
        match s {
            Stmt::Leaf(id) => {
                if *id as usize >= MAX_LEAVES {
                    return Err(format!("{}: leaf id {id} >= {MAX_LEAVES}", whereis()));
                }
            }
            Stmt::If { cond, then, els } => {
                if !cond.al_relative && cond.addr as usize >= COND_ADDR_LIMIT {
                    return Err(format!(
                        "{}: condition {cond} outside mem[0..{COND_ADDR_LIMIT})",
                        whereis()
                    ));
                }
                validate_block(p, then, in_loop, sub)?;
                if let Some(e) = els {
                    validate_block(p, e, in_loop, sub)?;
                }
            }
            Stmt::Loop { body, .. } | Stmt::Rep { body, .. } => {
                validate_block(p, body, true, sub)?;
            }
            Stmt::Break | Stmt::Continue => {
                if !in_loop {
                    return Err(format!("{}: {s:?} outside a Loop/Rep", whereis()));
                }
            }
            Stmt::Call(k) => {
                let limit = sub.unwrap_or(p.subs.len());
                if *k >= limit {
                    return Err(match sub {
                        None => format!("main: call of sub{k}, but there are {limit} subs"),
                        Some(j) => {
                            format!("sub{j}: call of sub{k} (only sub0..sub{j} - 1 allowed)")
                        }
                    });
                }
            }
        }
    }
    Ok(())
}

/// Check the structural rules of the module documentation.
pub fn validate(p: &Program) -> Result<(), String> {
    validate_block(p, &p.main, false, None)?;
    for (k, s) in p.subs.iter().enumerate() {
        validate_block(p, s, false, Some(k))?;
    }
    Ok(())
}

fn assert_valid(p: &Program) {
    if let Err(e) = validate(p) {
        panic!("fc_reference: invalid program: {e}\n{p}");
    }
}

// ---------------------------------------------------------------------------------------------
// Scalar interpreter
// ---------------------------------------------------------------------------------------------

/// How a statement list ended for one PE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Normal,
    Break,
    Continue,
}

struct Scalar<'a> {
    p: &'a Program,
    leaves: Vec<u8>,
}

impl Scalar<'_> {
    fn block(&mut self, stmts: &[Stmt], mem: &mut PeMem, al: i32) -> Flow {
        for s in stmts {
            match s {
                Stmt::Leaf(id) => {
                    let id = *id as usize;
                    let v = leaf_counter(mem, id).wrapping_add(1);
                    set_leaf_counter(mem, id, v);
                    self.leaves.push(id as u8);
                }
                Stmt::If { cond, then, els } => {
                    let f = if cond.eval(mem, al) {
                        self.block(then, mem, al)
                    } else if let Some(e) = els {
                        self.block(e, mem, al)
                    } else {
                        Flow::Normal
                    };
                    if f != Flow::Normal {
                        return f;
                    }
                }
                Stmt::Loop {
                    count,
                    init,
                    step,
                    body,
                } => {
                    let mut a = *init as i32;
                    for _ in 0..*count {
                        if self.block(body, mem, a) == Flow::Break {
                            break;
                        }
                        a = a.wrapping_add(*step as i32);
                    }
                }
                Stmt::Rep { count, body } => {
                    for _ in 0..*count {
                        if self.block(body, mem, al) == Flow::Break {
                            break;
                        }
                    }
                }
                Stmt::Break => return Flow::Break,
                Stmt::Continue => return Flow::Continue,
                Stmt::Call(k) => {
                    let p = self.p;
                    let f = self.block(&p.subs[*k], mem, al);
                    debug_assert_eq!(f, Flow::Normal, "validated: no break/continue in a sub");
                }
            }
        }
        Flow::Normal
    }
}

/// Run `p` on one PE (plain recursive structured execution).
pub fn run_scalar(p: &Program, mem: &mut PeMem) {
    run_scalar_leaves(p, mem);
}

/// [`run_scalar`], returning the leaf ids this PE executed, in order.
pub fn run_scalar_leaves(p: &Program, mem: &mut PeMem) -> Vec<u8> {
    assert_valid(p);
    let mut s = Scalar { p, leaves: vec![] };
    s.block(&p.main, mem, 0);
    s.leaves
}

// ---------------------------------------------------------------------------------------------
// Masked (SIMD) interpreter
// ---------------------------------------------------------------------------------------------

/// One leaf execution of [`run_masked`]: leaf id and the mask of PEs that executed it.
pub type LeafExec = (u8, Vec<bool>);

struct Masked<'a, 'm> {
    p: &'a Program,
    mems: &'m mut [PeMem],
    /// Per running loop (innermost last): the PEs that executed Break in it.
    broken: Vec<Vec<bool>>,
    trace: Vec<LeafExec>,
}

impl Masked<'_, '_> {
    /// Run `stmts` for the PEs in `mask`; on return `mask` holds the PEs still active (those
    /// that executed Break or Continue are cleared).
    fn block(&mut self, stmts: &[Stmt], mask: &mut [bool], al: i32) {
        for s in stmts {
            if !mask.iter().any(|&b| b) {
                return;
            }
            match s {
                Stmt::Leaf(id) => {
                    let id = *id as usize;
                    for (m, &on) in self.mems.iter_mut().zip(mask.iter()) {
                        if on {
                            let v = leaf_counter(m, id).wrapping_add(1);
                            set_leaf_counter(m, id, v);
                        }
                    }
                    self.trace.push((id as u8, mask.to_vec()));
                }
                Stmt::If { cond, then, els } => {
                    let c: Vec<bool> = self.mems.iter().map(|m| cond.eval(m, al)).collect();
                    let mut t: Vec<bool> = mask.iter().zip(&c).map(|(&m, &c)| m && c).collect();
                    let mut e: Vec<bool> = mask.iter().zip(&c).map(|(&m, &c)| m && !c).collect();
                    self.block(then, &mut t, al);
                    if let Some(eb) = els {
                        self.block(eb, &mut e, al);
                    }
                    for (i, m) in mask.iter_mut().enumerate() {
                        *m = t[i] || e[i];
                    }
                }
                Stmt::Loop {
                    count,
                    init,
                    step,
                    body,
                } => {
                    let mut a = *init as i32;
                    self.run_loop(*count, mask, body, |_| {
                        let cur = a;
                        a = a.wrapping_add(*step as i32);
                        cur
                    });
                }
                Stmt::Rep { count, body } => {
                    self.run_loop(*count, mask, body, |_| al);
                }
                Stmt::Break => {
                    let b = self
                        .broken
                        .last_mut()
                        .expect("validated: break inside a loop");
                    for (i, m) in mask.iter_mut().enumerate() {
                        if *m {
                            b[i] = true;
                            *m = false;
                        }
                    }
                }
                Stmt::Continue => mask.iter_mut().for_each(|m| *m = false),
                Stmt::Call(k) => {
                    let p = self.p;
                    self.block(&p.subs[*k], mask, al);
                }
            }
        }
    }

    /// `count` iterations of `body` for the PEs of `entry`; `al_of(i)` is aL in iteration `i`.
    /// `entry` is unchanged (Break and Continue do not leak out of the loop).
    fn run_loop(
        &mut self,
        count: u8,
        entry: &[bool],
        body: &[Stmt],
        mut al_of: impl FnMut(u8) -> i32,
    ) {
        self.broken.push(vec![false; entry.len()]);
        for i in 0..count {
            let al = al_of(i);
            let b = self.broken.last().unwrap();
            let mut m: Vec<bool> = entry.iter().zip(b).map(|(&e, &b)| e && !b).collect();
            if !m.iter().any(|&x| x) {
                break;
            }
            self.block(body, &mut m, al);
        }
        self.broken.pop();
    }
}

/// Run `p` on all PEs in lockstep with an active mask. Returns every leaf execution whose
/// mask is not empty, in execution order: (leaf id, mask with one entry per PE).
pub fn run_masked(p: &Program, mems: &mut [PeMem]) -> Vec<LeafExec> {
    assert_valid(p);
    let n = mems.len();
    let mut m = Masked {
        p,
        mems,
        broken: vec![],
        trace: vec![],
    };
    let mut mask = vec![true; n];
    m.block(&p.main, &mut mask, 0);
    m.trace
}

// ---------------------------------------------------------------------------------------------
// Static limits
// ---------------------------------------------------------------------------------------------

/// Static nesting depths of a statement list (each the maximum along any path, counted
/// through calls).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Depths {
    /// Nested Ifs (Loops/Reps do not count; a call adds the callee's).
    pub ifs: usize,
    /// Nested Loops/Reps (a call adds the callee's).
    pub loops: usize,
    /// Nested Calls (a Call counts 1 plus the callee's).
    pub calls: usize,
}

impl Depths {
    fn max(self, o: Depths) -> Depths {
        Depths {
            ifs: self.ifs.max(o.ifs),
            loops: self.loops.max(o.loops),
            calls: self.calls.max(o.calls),
        }
    }
}

/// Depths of `stmts`, given the depths of the subroutines it may call.
pub fn block_depths(stmts: &[Stmt], sub_depths: &[Depths]) -> Depths {
    let mut d = Depths::default();
    for s in stmts {
        let sd = match s {
            Stmt::Leaf(_) | Stmt::Break | Stmt::Continue => Depths::default(),
            Stmt::If { then, els, .. } => {
                let mut x = block_depths(then, sub_depths);
                if let Some(e) = els {
                    x = x.max(block_depths(e, sub_depths));
                }
                Depths {
                    ifs: x.ifs + 1,
                    ..x
                }
            }
            Stmt::Loop { body, .. } | Stmt::Rep { body, .. } => {
                let x = block_depths(body, sub_depths);
                Depths {
                    loops: x.loops + 1,
                    ..x
                }
            }
            Stmt::Call(k) => {
                let x = sub_depths[*k];
                Depths {
                    calls: x.calls + 1,
                    ..x
                }
            }
        };
        d = d.max(sd);
    }
    d
}

/// Depths of every subroutine on its own (sub `k` computed after subs `0..k`).
pub fn sub_depths(p: &Program) -> Vec<Depths> {
    assert_valid(p);
    let mut v: Vec<Depths> = Vec::with_capacity(p.subs.len());
    for s in &p.subs {
        let d = block_depths(s, &v);
        v.push(d);
    }
    v
}

/// Depths of the program: the maximum over `main` and every subroutine on its own.
pub fn depths(p: &Program) -> Depths {
    let subs = sub_depths(p);
    subs.iter()
        .fold(block_depths(&p.main, &subs), |a, &b| a.max(b))
}

/// Maximum If nesting, counting through Calls and loops.
pub fn if_depth(p: &Program) -> usize {
    depths(p).ifs
}

/// Maximum Loop/Rep nesting, counting through Calls.
pub fn loop_depth(p: &Program) -> usize {
    depths(p).loops
}

/// Maximum Call nesting (address-stack entries needed).
pub fn call_depth(p: &Program) -> usize {
    depths(p).calls
}

fn has_loop_or_call(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Loop { .. } | Stmt::Rep { .. } | Stmt::Call(_) => true,
        Stmt::If { then, els, .. } => {
            has_loop_or_call(then) || els.as_deref().is_some_and(has_loop_or_call)
        }
        _ => false,
    })
}

/// Partial mode: no Loop/Rep/Call anywhere (main or subs) and at most 4 nested Ifs.
pub fn partial_mode_legal(p: &Program) -> bool {
    !has_loop_or_call(&p.main)
        && !p.subs.iter().any(|s| has_loop_or_call(s))
        && if_depth(p) <= PARTIAL_MAX_IF_DEPTH
}

/// Full mode: loop stack and address stack of 4, at most 32 nested Ifs.
pub fn full_mode_legal(p: &Program) -> bool {
    let d = depths(p);
    d.loops <= FULL_MAX_LOOP_DEPTH && d.calls <= FULL_MAX_CALL_DEPTH && d.ifs <= FULL_MAX_IF_DEPTH
}

/// Statement and leaf-statement counts (static, main plus all subs).
pub fn count_stmts(p: &Program) -> (usize, usize) {
    fn walk(stmts: &[Stmt], n: &mut usize, leaves: &mut usize) {
        for s in stmts {
            *n += 1;
            match s {
                Stmt::Leaf(_) => *leaves += 1,
                Stmt::If { then, els, .. } => {
                    walk(then, n, leaves);
                    if let Some(e) = els {
                        walk(e, n, leaves);
                    }
                }
                Stmt::Loop { body, .. } | Stmt::Rep { body, .. } => walk(body, n, leaves),
                _ => {}
            }
        }
    }
    let (mut n, mut leaves) = (0, 0);
    walk(&p.main, &mut n, &mut leaves);
    for s in &p.subs {
        walk(s, &mut n, &mut leaves);
    }
    (n, leaves)
}

// ---------------------------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------------------------

/// Knobs of the program generator. Limits are clamped to what the mode allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Generate only [`partial_mode_legal`] programs (Ifs only, depth ≤ 4).
    pub partial: bool,
    /// Total statements (main plus subs, every nesting level).
    pub max_stmts: usize,
    /// Total `Leaf` statements.
    pub max_leaves: usize,
    /// Subroutines (0..=max_subs; 0 in partial mode).
    pub max_subs: usize,
    /// If nesting (≤ 4 partial, ≤ 32 full), counted through calls.
    pub max_if_depth: usize,
    /// Loop/Rep nesting (≤ 4; 0 in partial mode), counted through calls.
    pub max_loop_depth: usize,
    /// Call nesting (≤ 4; 0 in partial mode).
    pub max_call_depth: usize,
    /// Loop/Rep counts are drawn from `0..=max_count`.
    pub max_count: u8,
}

impl GenConfig {
    /// Partial-mode programs: nested If/Else only, depth ≤ 4.
    pub fn partial() -> GenConfig {
        GenConfig {
            partial: true,
            max_stmts: 40,
            max_leaves: 40,
            max_subs: 0,
            max_if_depth: PARTIAL_MAX_IF_DEPTH,
            max_loop_depth: 0,
            max_call_depth: 0,
            max_count: 0,
        }
    }

    /// Full-mode programs: Ifs (depth ≤ 6), loops (depth ≤ 4, counts 0..=5),
    /// Break/Continue, up to 3 subroutines.
    pub fn full() -> GenConfig {
        GenConfig {
            partial: false,
            max_stmts: 80,
            max_leaves: 40,
            max_subs: 3,
            max_if_depth: 6,
            max_loop_depth: FULL_MAX_LOOP_DEPTH,
            max_call_depth: FULL_MAX_CALL_DEPTH,
            max_count: 5,
        }
    }

    /// The configuration with every limit clamped to the mode's hardware limits.
    pub fn clamped(self) -> GenConfig {
        if self.partial {
            GenConfig {
                max_subs: 0,
                max_if_depth: self.max_if_depth.min(PARTIAL_MAX_IF_DEPTH),
                max_loop_depth: 0,
                max_call_depth: 0,
                ..self
            }
        } else {
            GenConfig {
                max_if_depth: self.max_if_depth.min(FULL_MAX_IF_DEPTH),
                max_loop_depth: self.max_loop_depth.min(FULL_MAX_LOOP_DEPTH),
                max_call_depth: self.max_call_depth.min(FULL_MAX_CALL_DEPTH),
                ..self
            }
        }
    }
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig::full()
    }
}

/// A choice sequence reader: exhausted → 0 (the simplest option).
struct Choices<'a> {
    data: &'a [u32],
    pos: usize,
}

impl Choices<'_> {
    fn next(&mut self) -> u32 {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }

    /// Uniform in `0..n` (`n` ≥ 1).
    fn below(&mut self, n: usize) -> usize {
        (self.next() as usize) % n
    }

    /// An index into `weights` with probability proportional to its weight; 0 maps to the
    /// first non-zero weight. At least one weight must be non-zero.
    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        debug_assert!(total > 0);
        let mut r = self.next() % total;
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        unreachable!()
    }

    fn flip(&mut self, num: u32, den: u32) -> bool {
        self.next() % den >= den - num
    }
}

/// Lexical context of the statement being generated.
#[derive(Clone, Copy, Debug)]
struct Ctx {
    ifs: usize,
    loops: usize,
    calls: usize,
    /// Inside a Loop/Rep of this body: Break/Continue allowed.
    in_loop: bool,
    /// Inside a Loop of this body: aL-relative conditions allowed.
    has_al: bool,
    /// Number of subroutines this body may call (`0..callable`).
    callable: usize,
}

struct Gen<'a> {
    c: Choices<'a>,
    cfg: GenConfig,
    stmts_left: usize,
    leaves_left: usize,
    subs: Vec<Depths>,
    last_leaf: u8,
}

// Statement kinds, index 0 is the simplest.
const K_LEAF: usize = 0;
const K_IF: usize = 1;
const K_EXIT_IF: usize = 2;
const K_BREAK: usize = 3;
const K_CONTINUE: usize = 4;
const K_LOOP: usize = 5;
const K_REP: usize = 6;
const K_CALL: usize = 7;

impl Gen<'_> {
    fn callable(&self, ctx: &Ctx) -> Vec<usize> {
        (0..ctx.callable)
            .filter(|&k| {
                let d = self.subs[k];
                ctx.calls + 1 + d.calls <= self.cfg.max_call_depth
                    && ctx.loops + d.loops <= self.cfg.max_loop_depth
                    && ctx.ifs + d.ifs <= self.cfg.max_if_depth
            })
            .collect()
    }

    fn block(&mut self, ctx: Ctx) -> Vec<Stmt> {
        let mut v = Vec::new();
        let depth = ctx.ifs + ctx.loops;
        loop {
            if self.stmts_left == 0 {
                break;
            }
            let room_if = ctx.ifs < self.cfg.max_if_depth;
            let room_loop = ctx.loops < self.cfg.max_loop_depth && self.stmts_left >= 2;
            let calls = self.callable(&ctx);
            let mut w = [0u32; 8];
            w[K_LEAF] = if self.leaves_left > 0 { 6 } else { 0 };
            w[K_IF] = if room_if { 3 } else { 0 };
            w[K_EXIT_IF] = if room_if && ctx.in_loop && self.stmts_left >= 2 {
                3
            } else {
                0
            };
            w[K_BREAK] = if ctx.in_loop { 1 } else { 0 };
            w[K_CONTINUE] = if ctx.in_loop { 1 } else { 0 };
            w[K_LOOP] = if room_loop { 2 } else { 0 };
            w[K_REP] = if room_loop { 1 } else { 0 };
            w[K_CALL] = if calls.is_empty() { 0 } else { 3 };
            if w.iter().all(|&x| x == 0) {
                break;
            }
            // 0 = end the block. A top-level body runs long; a nested block rarely stays
            // empty and ends sooner the deeper it is.
            let go = if depth == 0 {
                10
            } else if v.is_empty() {
                8
            } else {
                4
            };
            let stop = if v.is_empty() { 1 } else { 1 + depth as u32 };
            if self.c.weighted(&[stop, go]) == 0 {
                break;
            }
            self.stmts_left = self.stmts_left.checked_sub(1).expect("statement budget");
            let k = self.c.weighted(&w);
            let s = match k {
                K_LEAF => self.leaf(),
                K_IF => {
                    let cond = self.cond(&ctx, false);
                    let inner = Ctx {
                        ifs: ctx.ifs + 1,
                        ..ctx
                    };
                    let then = self.block(inner);
                    let els = if self.c.flip(2, 3) {
                        Some(self.block(inner))
                    } else {
                        None
                    };
                    Stmt::If { cond, then, els }
                }
                K_EXIT_IF => self.exit_if(ctx),
                K_BREAK => Stmt::Break,
                K_CONTINUE => Stmt::Continue,
                K_LOOP | K_REP => {
                    let count = self.c.below(self.cfg.max_count as usize + 1) as u8;
                    let inner = Ctx {
                        loops: ctx.loops + 1,
                        in_loop: true,
                        has_al: ctx.has_al || k == K_LOOP,
                        ..ctx
                    };
                    if k == K_LOOP {
                        let (init, step) = self.al_params(count);
                        let body = self.block(inner);
                        Stmt::Loop {
                            count,
                            init,
                            step,
                            body,
                        }
                    } else {
                        let body = self.block(inner);
                        Stmt::Rep { count, body }
                    }
                }
                K_CALL => Stmt::Call(calls[self.c.below(calls.len())]),
                _ => unreachable!(),
            };
            v.push(s);
        }
        v
    }

    /// Take `n` statements from the budget if there are that many left.
    fn take(&mut self, n: usize) -> bool {
        if self.stmts_left >= n {
            self.stmts_left -= n;
            true
        } else {
            false
        }
    }

    fn leaf(&mut self) -> Stmt {
        // Mostly a recently used leaf, so counter-bit conditions see varied values.
        let id = if self.c.flip(1, 3) {
            self.last_leaf
        } else {
            self.c.below(MAX_LEAVES) as u8
        };
        self.leaves_left = self.leaves_left.checked_sub(1).expect("leaf budget");
        self.last_leaf = id;
        Stmt::Leaf(id)
    }

    /// `init` and `step` such that every aL of the `count` iterations is in `0..=GEN_AL_MAX`.
    fn al_params(&mut self, count: u8) -> (u8, i8) {
        let span_iters = (count as usize).saturating_sub(1);
        let max_abs = GEN_AL_MAX.checked_div(span_iters).map_or(4, |q| q.min(4)) as i32;
        const STEPS: [i32; 9] = [1, 0, -1, 2, -2, 3, -3, 4, -4];
        let allowed: Vec<i32> = STEPS
            .iter()
            .copied()
            .filter(|s| s.abs() <= max_abs)
            .collect();
        let step = allowed[self.c.below(allowed.len())];
        let span = step.unsigned_abs() as usize * span_iters;
        let lo = if step < 0 { span } else { 0 };
        let hi = GEN_AL_MAX - if step > 0 { span } else { 0 };
        let init = lo + self.c.below(hi - lo + 1);
        (init as u8, step as i8)
    }

    /// A condition. `exit`: for a Break/Continue guard, prefer bits that change per
    /// iteration (counter bits of the last leaf, aL-relative data bits).
    fn cond(&mut self, ctx: &Ctx, exit: bool) -> Cond {
        let w_al = if ctx.has_al { 3 } else { 0 };
        let w_counter = if exit { 4 } else { 2 };
        let kind = self.c.weighted(&[3, w_counter, w_al]);
        let negate = self.c.flip(1, 2);
        let c = match kind {
            0 => Cond::bit(DATA_BASE + self.c.below(DATA_BITS)),
            1 => {
                let leaf = if self.c.flip(1, 2) {
                    self.last_leaf as usize
                } else {
                    self.c.below(MAX_LEAVES)
                };
                let bit = self.c.weighted(&[4, 3, 2, 1]);
                Cond::bit(LEAF_BASE + LEAF_BITS * leaf + bit)
            }
            _ => {
                // Mostly data bits (data varies per PE), sometimes counter bits.
                if self.c.flip(3, 4) {
                    Cond::al(DATA_BASE + self.c.below(GEN_AL_ADDR_LIMIT - DATA_BASE))
                } else {
                    Cond::al(self.c.below(GEN_AL_ADDR_LIMIT))
                }
            }
        };
        if negate {
            c.negated()
        } else {
            c
        }
    }

    /// `If cond { [leaf] Break|Continue [leaf] } [else { ... }]`: a PE-dependent loop exit.
    fn exit_if(&mut self, ctx: Ctx) -> Stmt {
        let cond = self.cond(&ctx, true);
        let inner = Ctx {
            ifs: ctx.ifs + 1,
            ..ctx
        };
        // The exit statement itself (the caller checked there is room for it).
        self.stmts_left = self.stmts_left.checked_sub(1).expect("statement budget");
        let exit = if self.c.flip(1, 2) {
            Stmt::Break
        } else {
            Stmt::Continue
        };
        let mut then = Vec::new();
        if self.leaves_left > 0 && self.c.flip(1, 3) && self.take(1) {
            then.push(self.leaf());
        }
        // Sometimes the exit sits one If deeper.
        if inner.ifs < self.cfg.max_if_depth && self.c.flip(1, 3) && self.take(1) {
            let c2 = self.cond(&inner, true);
            then.push(Stmt::If {
                cond: c2,
                then: vec![exit],
                els: None,
            });
        } else {
            then.push(exit);
        }
        // Statements after the exit (dead for PEs that took it; live after a nested exit).
        if self.leaves_left > 0 && self.c.flip(1, 4) && self.take(1) {
            then.push(self.leaf());
        }
        let els = if self.c.flip(1, 3) {
            Some(self.block(inner))
        } else {
            None
        };
        Stmt::If { cond, then, els }
    }
}

/// Build a legal program from a choice sequence (see the module documentation). The result
/// satisfies [`validate`], the limits of `cfg` (clamped to the mode), [`partial_mode_legal`]
/// when `cfg.partial` and [`full_mode_legal`] otherwise; it has at most `cfg.max_stmts`
/// statements and `cfg.max_leaves` leaves, aL-relative conditions only lexically inside a
/// Loop, every aL in `0..=GEN_AL_MAX` and so every condition address in `0..128`.
pub fn program_from_choices(cfg: &GenConfig, choices: &[u32]) -> Program {
    let cfg = cfg.clamped();
    let mut g = Gen {
        c: Choices {
            data: choices,
            pos: 0,
        },
        cfg,
        stmts_left: cfg.max_stmts,
        leaves_left: cfg.max_leaves,
        subs: vec![],
        last_leaf: 0,
    };
    let root = Ctx {
        ifs: 0,
        loops: 0,
        calls: 0,
        in_loop: false,
        has_al: false,
        callable: 0,
    };
    let nsubs = if cfg.partial || cfg.max_call_depth == 0 {
        0
    } else {
        g.c.below(cfg.max_subs + 1)
    };
    let mut subs = Vec::with_capacity(nsubs);
    for k in 0..nsubs {
        // Each subroutine gets at most an eighth of the statement budget.
        let share = (cfg.max_stmts / 8).min(g.stmts_left);
        let rest = g.stmts_left - share;
        g.stmts_left = share;
        let body = g.block(Ctx {
            callable: k,
            ..root
        });
        g.stmts_left += rest;
        let d = block_depths(&body, &g.subs);
        g.subs.push(d);
        subs.push(body);
    }
    let main = g.block(Ctx {
        callable: nsubs,
        ..root
    });
    Program { main, subs }
}

/// A random program from `seed` (a [`MAX_CHOICES`]-long SplitMix64 choice sequence).
pub fn random_program(cfg: &GenConfig, seed: u64) -> Program {
    let mut st = seed;
    let choices: Vec<u32> = (0..MAX_CHOICES)
        .map(|_| splitmix64(&mut st) as u32)
        .collect();
    program_from_choices(cfg, &choices)
}

/// The proptest `Strategy` of programs for a [`GenConfig`](crate::fc_reference::GenConfig):
/// `fc_program_strategy!(cfg)` is `impl Strategy<Value = Program>`. A macro because
/// `proptest` is a dev-dependency of this crate: it expands in the test crate, which must
/// depend on `proptest`.
#[macro_export]
macro_rules! fc_program_strategy {
    ($cfg:expr) => {{
        let cfg: $crate::fc_reference::GenConfig = $cfg;
        ::proptest::strategy::Strategy::prop_map(
            ::proptest::collection::vec(
                ::proptest::prelude::any::<u32>(),
                0..=$crate::fc_reference::MAX_CHOICES,
            ),
            move |choices| $crate::fc_reference::program_from_choices(&cfg, &choices),
        )
    }};
}
