//! The flow-control unit: ATI R5xx `US_FC` semantics (seeds 000, 002, 004) as clocked
//! registers beside the IGC's microsequencer, so microcode can run data-dependent SIMD
//! control flow: nested IF/ELSE, loops, BREAK/CONTINUE, subroutines.
//!
//! A microinstruction whose W3 has the FC flag is a flow-control instruction
//! ([`instruction`]). The IGC resolves its address fields (jump address, the boolean and the
//! loop constant, the predicate bit's address) into an [`FcRequest`]; [`FlowControl::step`]
//! (in `step.rs`, one function per construct family) evaluates it against the per-PE state
//! and inputs and returns whether the sequencer jumps and where. The unit's per-PE `active` plane masks every array write (docs/flow-control.md).
//!
//! Model choices (docs/flow-control.md, "Inputs"): a PE's *ALU result* is its Carry, its
//! *predicate* the pixel-memory bit the instruction's port A addresses (0 when port A is
//! off), and it is *uncovered* when its Enable is clear.

pub mod instruction;
pub mod pe_state;
pub mod replay;
pub mod stacks;
mod step;
mod trace;

use crate::emc_array::plane::{Plane, ONES_PLANE, PLANE_WORDS};
use crate::trace::{Wave, WaveEnum};
use instruction::{FcInstr, FcOp};
use pe_state::PeState;
use stacks::{AddrStack, LoopKind, LoopStack, STACK_DEPTH};

/// Largest branch counter in partial mode (seed 004: 0..3).
pub const BCNT_MAX_PARTIAL: u32 = 3;
/// Largest branch counter in full mode (seed 004: 0..31).
pub const BCNT_MAX_FULL: u32 = 31;

/// What the IGC hands the unit for one flow-control instruction (in the waveform, in this
/// order).
#[derive(Clone, Copy, Debug, Default, Wave)]
#[wave(part)]
pub struct FcRequest {
    #[wave(flatten)]
    pub instr: FcInstr,
    /// Address of this instruction.
    #[wave(bits = 11)]
    pub pc: u16,
    /// JUMP_ADDR (the microinstruction's TARGET).
    #[wave(bits = 11, rename = "jump_addr")]
    pub target: u16,
    /// The selected boolean constant.
    #[wave(rename = "bool")]
    pub bool_value: bool,
    /// The selected loop constant, with operand sources already resolved.
    #[wave(bits = 8, rename = "const_count")]
    pub count: u32,
    #[wave(bits = 8, rename = "const_init")]
    pub init: i32,
    #[wave(bits = 8, rename = "const_step")]
    pub step: i32,
}

/// The unit's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FcOutcome {
    pub jump: bool,
    /// The next PC when jumping (TARGET, or the popped return address).
    pub target: u16,
}

/// A condition the hardware leaves undefined (seed 004: "Stack overflows and underflows
/// produce undefined behaviour"), which the model reports (status bit 4, an error message and
/// a diagnostic), or a misuse it only warns about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FcError {
    LoopStackOverflow {
        pc: u16,
    },
    LoopStackUnderflow {
        pc: u16,
    },
    AddrStackOverflow {
        pc: u16,
    },
    AddrStackUnderflow {
        pc: u16,
    },
    /// INCR on a counter already at the mode's maximum (`pes` PEs).
    BranchCounterOverflow {
        pc: u16,
        pes: u32,
    },
    /// BREAKLOOP in a REP loop or BREAKREP in a LOOP loop (seed 002: use the one that matches
    /// the innermost construct). A warning: the model behaves the same either way.
    BreakKind {
        pc: u16,
        op: FcOp,
        innermost: LoopKind,
    },
}

impl FcError {
    /// Whether this is an error (status bit 4) rather than a warning.
    pub fn is_error(&self) -> bool {
        !matches!(self, FcError::BreakKind { .. })
    }

    /// The microinstruction it happened at.
    pub fn pc(&self) -> u16 {
        match self {
            FcError::LoopStackOverflow { pc }
            | FcError::LoopStackUnderflow { pc }
            | FcError::AddrStackOverflow { pc }
            | FcError::AddrStackUnderflow { pc }
            | FcError::BranchCounterOverflow { pc, .. }
            | FcError::BreakKind { pc, .. } => *pc,
        }
    }

    /// What happened, without where (the simulator names the microinstruction).
    pub fn what(&self) -> String {
        match self {
            FcError::LoopStackOverflow { .. } => {
                "loop stack overflow (LOOP/REP beyond the mode's depth; the frame was not pushed)"
                    .into()
            }
            FcError::LoopStackUnderflow { .. } => {
                "loop stack underflow (ENDLOOP/ENDREP/BREAK/CONTINUE outside a loop)".into()
            }
            FcError::AddrStackOverflow { .. } => {
                "address stack overflow (CALL beyond the mode's depth; the return address was lost)"
                    .into()
            }
            FcError::AddrStackUnderflow { .. } => {
                "address stack underflow (RETURN without CALL; jumped to JUMP_ADDR instead)".into()
            }
            FcError::BranchCounterOverflow { pes, .. } => format!(
                "branch counter overflow at {pes} PE(s) (conditionals nested deeper than the mode allows)"
            ),
            FcError::BreakKind { op, innermost, .. } => format!(
                "{} inside a {} loop (use {} there)",
                op.name(),
                innermost.name(),
                if *innermost == LoopKind::Loop { "BREAKLOOP" } else { "BREAKREP" }
            ),
        }
    }

    /// `flow control at PC 0x0e9: what` ([`FcError::what`]).
    pub fn message(&self) -> String {
        format!(
            "flow control at PC {}: {}",
            crate::igc::store::pc_text(self.pc()),
            self.what()
        )
    }
}

/// The last instruction the unit executed (for the waveform, in this order after its `op`).
#[derive(Clone, Copy, Debug, Default, Wave)]
#[wave(part)]
pub struct LastFc {
    #[wave(skip)]
    pub valid: bool,
    #[wave(flatten)]
    pub req: FcRequest,
    pub jump: bool,
    /// It met an error (status bit 4): a stack over/underflow or a counter overflow.
    pub error: bool,
    /// PEs that wanted to jump / took part in the decision.
    #[wave(bits = 15)]
    pub wanted: u32,
    #[wave(bits = 15)]
    pub participants: u32,
}

/// The flow-control unit.
#[derive(Clone)]
pub struct FlowControl {
    /// Full flow-control mode (the control register; partial mode has counters 0..3 and no
    /// stacks).
    pub full: bool,
    pub pe: PeState,
    pub loops: LoopStack,
    pub addrs: AddrStack,
    /// Every PE is active (the array's fast path).
    pub all_active: bool,
    pub last: LastFc,
    /// Scratch planes.
    want: Box<Plane>,
    /// A flow-control instruction ran since the last reset (the per-PE planes may differ
    /// from their reset values; a command without one leaves them as they were).
    touched: bool,
    /// The data tap of the timing study's replay ([`replay`]; `None`: neither recording nor
    /// replaying).
    pub tap: Option<Box<replay::FcTap>>,
}

impl Default for FlowControl {
    fn default() -> Self {
        FlowControl {
            full: true,
            pe: PeState::default(),
            loops: LoopStack::default(),
            addrs: AddrStack::default(),
            all_active: true,
            last: LastFc::default(),
            want: Box::new(ONES_PLANE),
            touched: false,
            tap: None,
        }
    }
}

impl FlowControl {
    /// Every PE active, stacks empty (reset, and the start of every command). Returns whether
    /// anything changed.
    pub fn reset_state(&mut self) -> bool {
        if !std::mem::take(&mut self.touched) {
            // Nothing changed the planes or the stacks since the last reset (the common case:
            // commands without flow control), so skip clearing 14 KB per dispatch.
            return false;
        }
        *self.pe.active = ONES_PLANE;
        *self.pe.branch = [0; PLANE_WORDS];
        for p in self.pe.bcnt.iter_mut() {
            *p = [0; PLANE_WORDS];
        }
        self.loops.clear();
        self.addrs.clear();
        self.all_active = true;
        true
    }

    fn bcnt_max(&self) -> u32 {
        if self.full {
            BCNT_MAX_FULL
        } else {
            BCNT_MAX_PARTIAL
        }
    }

    fn stack_limit(&self) -> usize {
        if self.full {
            STACK_DEPTH
        } else {
            0
        }
    }

    /// A word that changes whenever the unit's loop and address state or its last
    /// decision's active counts change (a mix, for the simulator's "can anything still
    /// change" check; not for exact comparisons).
    pub fn progress_word(&self) -> u64 {
        let mut h = (self.loops.depth() as u64) << 56
            ^ (self.addrs.depth() as u64) << 48
            ^ (self.last.wanted as u64) << 24
            ^ self.last.participants as u64;
        for f in self.loops.frames() {
            h = h.rotate_left(17) ^ (f.count as u64) ^ (f.al.unwrap_or(-1) as u32 as u64) << 32;
            if f.uncounted {
                // A DX10 loop's count stays 0: its PEs leaving it are the progress.
                h ^= f
                    .brk
                    .iter()
                    .chain(f.cont.iter())
                    .fold(0u64, |a, w| a.rotate_left(1) ^ w);
            }
        }
        for &a in self.addrs.entries() {
            h = h.rotate_left(11) ^ a as u64;
        }
        h
    }

    /// Set the mode (the control register's full/partial bit, read at every dispatch).
    /// Returns whether it changed.
    pub fn set_full(&mut self, full: bool) -> bool {
        let changed = self.full != full;
        self.full = full;
        changed
    }

    /// The aL the address generators see (`None` outside every LOOP).
    pub fn al(&self) -> Option<i32> {
        self.loops.al()
    }

    /// The active mask, or `None` when every PE is active.
    pub fn active_mask(&self) -> Option<&Plane> {
        (!self.all_active).then_some(&*self.pe.active)
    }

    /// A PE's flow-control state, for probes: (active, branch counter, state).
    pub fn pe_view(&self, x: usize, y: usize) -> (bool, u32, PeFlowState) {
        if self.all_active {
            return (true, 0, PeFlowState::Active);
        }
        let (w, m) = crate::emc_array::plane::locate(x, y);
        let active = self.pe.active[w] & m != 0;
        let branch = self.pe.branch[w] & m != 0;
        // Not active and not branch-inactive: loop-inactive, found in a frame below.
        let mut state = if branch {
            PeFlowState::Branch
        } else {
            PeFlowState::Active
        };
        for c in self.addrs.waiting() {
            if c[w] & m != 0 {
                state = PeFlowState::Call;
            }
        }
        for f in self.loops.frames() {
            if f.brk[w] & m != 0 {
                state = PeFlowState::Break;
            } else if f.cont[w] & m != 0 {
                state = PeFlowState::Continue;
            }
        }
        (
            active,
            if branch { self.pe.counter_at(w, m) } else { 0 },
            state,
        )
    }
}

/// Why a PE is (in)active.
#[derive(Clone, Copy, Debug, PartialEq, Eq, WaveEnum)]
pub enum PeFlowState {
    Active,
    /// Deactivated by IF/ELSE (see its branch counter).
    Branch,
    /// Deactivated by BREAK until its loop ends.
    Break,
    /// Deactivated by CONTINUE until its ENDLOOP/ENDREP.
    Continue,
    /// Left behind by a conditional CALL until its RETURN.
    Call,
}

impl PeFlowState {
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }
}

#[cfg(test)]
mod tests;
