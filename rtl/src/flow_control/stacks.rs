//! The loop stack (iteration count, aL, and the PEs BREAK/CONTINUE deactivated in that loop)
//! and the address stack (CALL/RETURN), seed 004 §3.5.2. Depth 4 each in full mode, absent
//! in partial mode. Fixed storage: pushing never allocates.

use crate::emc_array::plane::{Plane, ZERO_PLANE};

/// Loop and address stack depth in full mode (seed 004: "Loop stack 4, Address stack 4").
pub const STACK_DEPTH: usize = 4;

/// Which looping construct pushed a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LoopKind {
    /// LOOP/ENDLOOP: the frame has its own aL.
    #[default]
    Loop,
    /// REP/ENDREP: no aL of its own; it sees the aL of the enclosing LOOP.
    Rep,
}

impl LoopKind {
    pub fn name(self) -> &'static str {
        match self {
            LoopKind::Loop => "LOOP",
            LoopKind::Rep => "REP",
        }
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

/// The address stack.
#[derive(Clone, Debug, Default)]
pub struct AddrStack {
    entries: [u16; STACK_DEPTH],
    depth: usize,
}

impl AddrStack {
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The entries, bottom first.
    pub fn entries(&self) -> &[u16] {
        &self.entries[..self.depth]
    }

    pub fn push(&mut self, a: u16, limit: usize) -> bool {
        if self.depth >= limit.min(STACK_DEPTH) {
            return false;
        }
        self.entries[self.depth] = a;
        self.depth += 1;
        true
    }

    pub fn pop(&mut self) -> Option<u16> {
        self.depth = self.depth.checked_sub(1)?;
        Some(self.entries[self.depth])
    }

    pub fn clear(&mut self) {
        self.depth = 0;
    }
}
