//! The loop stack (iteration count, aL, and the PEs BREAK/CONTINUE deactivated in that loop)
//! and the address stack (CALL/RETURN, and the PEs a conditional CALL left behind), seed 004
//! §3.5.2. Depth 4 each in full mode, absent in partial mode. Fixed storage: pushing never
//! allocates.
//!
//! Together with the branch counters they are our model of the R700's "single
//! multi-entry stack, which is used to store and restore the active mask, cyclic counter,
//! and the return address" (seed 001): see docs/flow-control.md, "The R700 stack".

use crate::emc_array::plane::{Plane, ZERO_PLANE};
use crate::trace::WaveEnum;

/// Loop and address stack depth in full mode (seed 004: "Loop stack 4, Address stack 4").
pub const STACK_DEPTH: usize = 4;

/// The R700 stack of our model (seed 001): loop entries and call entries, [`STACK_DEPTH`]
/// of each in full mode; pushing beyond it is a stack overflow, popping an empty one an
/// underflow, both flow-control errors (status bit 4), never a wrap.
pub const R700_STACK_DEPTH: usize = 2 * STACK_DEPTH;

/// Which looping construct pushed a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, WaveEnum)]
pub enum LoopKind {
    /// LOOP/ENDLOOP: the frame has its own aL.
    #[default]
    Loop,
    /// REP/ENDREP: no aL of its own; it sees the aL of the enclosing LOOP.
    Rep,
}

impl LoopKind {
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }
}

/// One loop-stack frame.
#[derive(Clone)]
pub struct LoopFrame {
    pub kind: LoopKind,
    /// Iterations left, including the current one.
    pub count: u32,
    /// The loop register; for a REP frame a copy of the enclosing LOOP's (`None` outside
    /// any LOOP: aL is not valid there, seed 004).
    pub al: Option<i32>,
    pub step: i32,
    /// A DX10 loop (LOOP_START_DX10): `count` is not used; it runs while any PE is in it.
    pub uncounted: bool,
    /// PEs deactivated by BREAK in this loop (active again when the loop ends).
    pub brk: Box<Plane>,
    /// PEs deactivated by CONTINUE in this loop (active again at its ENDLOOP/ENDREP).
    pub cont: Box<Plane>,
}

impl Default for LoopFrame {
    fn default() -> Self {
        LoopFrame {
            kind: LoopKind::Loop,
            count: 0,
            al: None,
            step: 0,
            uncounted: false,
            brk: Box::new(ZERO_PLANE),
            cont: Box::new(ZERO_PLANE),
        }
    }
}

/// The loop stack.
#[derive(Clone)]
pub struct LoopStack {
    frames: Vec<LoopFrame>,
    depth: usize,
}

impl Default for LoopStack {
    fn default() -> Self {
        LoopStack {
            frames: (0..STACK_DEPTH).map(|_| LoopFrame::default()).collect(),
            depth: 0,
        }
    }
}

impl LoopStack {
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The frames, bottom first.
    pub fn frames(&self) -> &[LoopFrame] {
        &self.frames[..self.depth]
    }

    pub fn top(&self) -> Option<&LoopFrame> {
        self.depth.checked_sub(1).map(|k| &self.frames[k])
    }

    pub fn top_mut(&mut self) -> Option<&mut LoopFrame> {
        self.depth.checked_sub(1).map(|k| &mut self.frames[k])
    }

    /// Push a frame with empty BREAK/CONTINUE masks; false (nothing pushed) when `limit`
    /// frames are already there.
    pub fn push(
        &mut self,
        kind: LoopKind,
        count: u32,
        al: Option<i32>,
        step: i32,
        limit: usize,
    ) -> bool {
        if self.depth >= limit.min(STACK_DEPTH) {
            return false;
        }
        let f = &mut self.frames[self.depth];
        f.kind = kind;
        f.count = count;
        f.al = al;
        f.step = step;
        f.uncounted = false;
        *f.brk = ZERO_PLANE;
        *f.cont = ZERO_PLANE;
        self.depth += 1;
        true
    }

    /// Pop the top frame; returns it (still stored, valid until the next push) or `None` if
    /// the stack is empty.
    pub fn pop(&mut self) -> Option<&LoopFrame> {
        self.depth = self.depth.checked_sub(1)?;
        Some(&self.frames[self.depth])
    }

    /// The aL the address generators see: the innermost frame's.
    pub fn al(&self) -> Option<i32> {
        self.top().and_then(|f| f.al)
    }

    /// Empty the stack (reset).
    pub fn clear(&mut self) {
        self.depth = 0;
    }
}

/// The address stack: return addresses, and for each the PEs that did not take its CALL
/// (a conditional CALL, [`crate::flow_control::instruction::FcInstr::call_per_pe`]); they
/// are active again at its RETURN.
#[derive(Clone)]
pub struct AddrStack {
    entries: [u16; STACK_DEPTH],
    waiting: Vec<Plane>,
    depth: usize,
}

impl Default for AddrStack {
    fn default() -> Self {
        AddrStack {
            entries: [0; STACK_DEPTH],
            waiting: vec![ZERO_PLANE; STACK_DEPTH],
            depth: 0,
        }
    }
}

impl AddrStack {
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The entries, bottom first.
    pub fn entries(&self) -> &[u16] {
        &self.entries[..self.depth]
    }

    /// The PEs waiting for each entry's RETURN, bottom first.
    pub fn waiting(&self) -> &[Plane] {
        &self.waiting[..self.depth]
    }

    /// Push a return address with no waiting PEs; false (nothing pushed) when `limit`
    /// entries are already there.
    pub fn push(&mut self, a: u16, limit: usize) -> bool {
        if self.depth >= limit.min(STACK_DEPTH) {
            return false;
        }
        self.entries[self.depth] = a;
        self.waiting[self.depth] = ZERO_PLANE;
        self.depth += 1;
        true
    }

    /// The waiting PEs of the top entry.
    pub fn top_waiting_mut(&mut self) -> Option<&mut Plane> {
        self.depth.checked_sub(1).map(|k| &mut self.waiting[k])
    }

    /// Pop the top entry: its return address and its waiting PEs.
    pub fn pop(&mut self) -> Option<(u16, &Plane)> {
        self.depth = self.depth.checked_sub(1)?;
        Some((self.entries[self.depth], &self.waiting[self.depth]))
    }

    pub fn clear(&mut self) {
        self.depth = 0;
    }
}
