//! The flow-control instruction: the ATI R5xx `US_FC` fields (seed 000) at their seed bit
//! positions in microinstruction word W3, plus the address fields the IGC supplies (jump
//! address = TARGET, boolean and integer constant selects = FC_BOOL and FC_CONST in W1).
//!
//! Layout of W3 (docs/flow-control.md): bits 2:0 OP, 4 B_ELSE, 5 JUMP_ANY, 7:6 A_OP,
//! 15:8 JUMP_FUNC, 20:16 B_POP_CNT, 25:24 B_OP0, 27:26 B_OP1, 28 IGNORE_UNCOVERED, 31 FC
//! (this microinstruction is a flow-control instruction). Our R700 extensions (seed 001,
//! docs/model-choices.md): bit 3 UNCOUNTED (a DX10 loop) and bit 29 CALL_PER_PE (a
//! conditional CALL). Bits 23:21 and 30 are reserved and must be 0, as must A_OP = 3 and
//! B_OP = 3.

use crate::trace::{Wave, WaveEnum};
use std::fmt;

/// W3 bit 31: the microinstruction is a flow-control instruction.
pub const FC_FLAG: u32 = 1 << 31;
/// W3 bits that must be zero.
pub const RESERVED_MASK: u32 = (0b111 << 21) | (1 << 30);
/// W3 bit 3 (our R700 extension): LOOP/REP start a DX10 loop, which has no trip count.
pub const UNCOUNTED_BIT: u32 = 1 << 3;
/// W3 bit 29 (our R700 extension): a CALL (A_OP PUSH) taken only by the PEs that want it.
pub const CALL_PER_PE_BIT: u32 = 1 << 29;

/// `OP` (bits 2:0): the type of flow-control instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, WaveEnum)]
#[wave(uppercase)]
pub enum FcOp {
    /// If, endif, call, return, ...
    #[default]
    Jump,
    /// As JUMP, but always jumps if the loop count is 0; if it stays, pushes the loop stack
    /// (count and aL).
    Loop,
    /// As JUMP, but decrements the count and adds the increment to aL; does not jump when
    /// the count becomes 0 (then pops the loop stack).
    EndLoop,
    /// As LOOP without aL.
    Rep,
    /// As ENDLOOP without aL.
    EndRep,
    /// As JUMP; pops the loop stack if it jumps; PEs that want to jump but cannot (the
    /// others disagree) become loop-inactive until the loop ends.
    BreakLoop,
    /// BREAKLOOP for a REP loop.
    BreakRep,
    /// Disables PEs that want to jump to the ENDLOOP until that ENDLOOP.
    Continue,
}

impl FcOp {
    pub fn from_bits(v: u32) -> FcOp {
        match v & 7 {
            0 => FcOp::Jump,
            1 => FcOp::Loop,
            2 => FcOp::EndLoop,
            3 => FcOp::Rep,
            4 => FcOp::EndRep,
            5 => FcOp::BreakLoop,
            6 => FcOp::BreakRep,
            _ => FcOp::Continue,
        }
    }

    pub fn bits(self) -> u32 {
        self as u32
    }

    /// The seed's name.
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }

    /// All operations, in encoding order.
    pub const ALL: [FcOp; 8] = [
        FcOp::Jump,
        FcOp::Loop,
        FcOp::EndLoop,
        FcOp::Rep,
        FcOp::EndRep,
        FcOp::BreakLoop,
        FcOp::BreakRep,
        FcOp::Continue,
    ];
}

/// `A_OP` (bits 7:6): the address-stack operation if the instruction jumps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, WaveEnum)]
pub enum AOp {
    #[default]
    None,
    /// Pop the address stack and jump there (RETURN).
    Pop,
    /// Push the address of the next instruction, then jump (CALL).
    Push,
}

impl AOp {
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }
}

/// `B_OP0` / `B_OP1` (bits 25:24 / 27:26): the branch-counter operation if the instruction
/// stays / jumps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, WaveEnum)]
pub enum BOp {
    #[default]
    None,
    /// Decrement the counters of branch-inactive PEs by B_POP_CNT; activate the negative ones.
    Decr,
    /// Increment the counters of branch-inactive PEs by 1; deactivate the active PEs that
    /// disagree with the decision, with counter 0.
    Incr,
}

impl BOp {
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }
}

/// The decoded `US_FC` fields of one flow-control instruction (in the waveform: the fields
/// after `op`, which the unit's scope `fc` shows itself, in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Wave)]
#[wave(part)]
pub struct FcInstr {
    #[wave(skip)]
    pub op: FcOp,
    pub b_else: bool,
    pub jump_any: bool,
    pub a_op: AOp,
    /// Jump table indexed by `(alu_result << 2) | (predicate << 1) | bool`.
    pub jump_func: u8,
    #[wave(bits = 5)]
    pub b_pop_cnt: u8,
    pub b_op0: BOp,
    pub b_op1: BOp,
    pub ignore_uncovered: bool,
    /// LOOP/REP: a DX10 loop (seed 001 item 3, LOOP_START_DX10): no trip count; its
    /// ENDLOOP/ENDREP jumps back while any PE is still in it. Our extension (bit 3).
    #[wave(skip)]
    pub uncounted: bool,
    /// A_OP PUSH: a conditional CALL (seed 001 item 7, "executed only for the pixels that
    /// meet the condition"): the active PEs that do not want to jump wait in the pushed
    /// address-stack entry until its RETURN. Our extension (bit 29).
    #[wave(skip)]
    pub call_per_pe: bool,
}

/// Why a W3 word is not a valid flow-control instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadFc(pub String);

impl fmt::Display for BadFc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn b_op(v: u32, name: &str) -> Result<BOp, BadFc> {
    match v & 3 {
        0 => Ok(BOp::None),
        1 => Ok(BOp::Decr),
        2 => Ok(BOp::Incr),
        _ => Err(BadFc(format!("{name} = 3 is reserved"))),
    }
}

impl FcInstr {
    /// Decode W3 (the FC flag itself is not checked here).
    pub fn decode(w3: u32) -> Result<FcInstr, BadFc> {
        if w3 & RESERVED_MASK != 0 {
            return Err(BadFc(format!(
                "reserved W3 bits {:#010x} are set",
                w3 & RESERVED_MASK
            )));
        }
        let a_op = match (w3 >> 6) & 3 {
            0 => AOp::None,
            1 => AOp::Pop,
            2 => AOp::Push,
            _ => return Err(BadFc("A_OP = 3 is reserved".into())),
        };
        Ok(FcInstr {
            op: FcOp::from_bits(w3),
            b_else: w3 & (1 << 4) != 0,
            jump_any: w3 & (1 << 5) != 0,
            a_op,
            jump_func: (w3 >> 8) as u8,
            b_pop_cnt: ((w3 >> 16) & 0x1f) as u8,
            b_op0: b_op(w3 >> 24, "B_OP0")?,
            b_op1: b_op(w3 >> 26, "B_OP1")?,
            ignore_uncovered: w3 & (1 << 28) != 0,
            uncounted: w3 & UNCOUNTED_BIT != 0,
            call_per_pe: w3 & CALL_PER_PE_BIT != 0,
        })
    }

    /// Encode as W3, with the FC flag set.
    pub fn encode(&self) -> u32 {
        let a = match self.a_op {
            AOp::None => 0,
            AOp::Pop => 1,
            AOp::Push => 2,
        };
        let b = |o: BOp| match o {
            BOp::None => 0u32,
            BOp::Decr => 1,
            BOp::Incr => 2,
        };
        FC_FLAG
            | self.op.bits()
            | (self.b_else as u32) << 4
            | (self.jump_any as u32) << 5
            | a << 6
            | (self.jump_func as u32) << 8
            | ((self.b_pop_cnt & 0x1f) as u32) << 16
            | b(self.b_op0) << 24
            | b(self.b_op1) << 26
            | (self.ignore_uncovered as u32) << 28
            | if self.uncounted { UNCOUNTED_BIT } else { 0 }
            | if self.call_per_pe { CALL_PER_PE_BIT } else { 0 }
    }
}

/// One of the 32 integer loop constants (R5xx `US_FC_INT_CONST`): iteration count, initial
/// aL and signed aL increment, each 8 bits, plus (our extension, docs/flow-control.md) where
/// the count and the initial aL come from: the constant itself or an operand register of the
/// current command, so a bit-serial loop can run `dlen` times.
///
/// Word layout: bits 7:0 count (KR), 15:8 initial aL (KG), 23:16 increment (KB, signed),
/// 26:24 count source, 29:27 initial-aL source (0 = the constant, 1..5 = OPR0..OPR4;
/// 6, 7 reserved), 31:30 reserved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LoopConst {
    pub count: u8,
    pub init: u8,
    pub step: i8,
    /// `None`: the constant's own field; `Some(k)`: operand register OPR`k`.
    pub count_src: Option<u8>,
    pub init_src: Option<u8>,
}

impl LoopConst {
    /// Decode a constant word; reserved source codes and bits are errors.
    pub fn decode(w: u32) -> Result<LoopConst, BadFc> {
        let src = |v: u32, name: &str| match v & 7 {
            0 => Ok(None),
            k @ 1..=5 => Ok(Some(k as u8 - 1)),
            k => Err(BadFc(format!("{name} source {k} is reserved"))),
        };
        if w >> 30 != 0 {
            return Err(BadFc(format!("reserved loop-constant bits in {w:#010x}")));
        }
        Ok(LoopConst {
            count: w as u8,
            init: (w >> 8) as u8,
            step: (w >> 16) as u8 as i8,
            count_src: src(w >> 24, "count")?,
            init_src: src(w >> 27, "initial aL")?,
        })
    }

    pub fn encode(&self) -> u32 {
        let src = |s: Option<u8>| s.map_or(0, |k| (k as u32 & 7) + 1);
        self.count as u32
            | (self.init as u32) << 8
            | (self.step as u8 as u32) << 16
            | src(self.count_src) << 24
            | src(self.init_src) << 27
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_at_the_seed_positions() {
        let i = FcInstr {
            op: FcOp::BreakLoop,
            b_else: true,
            jump_any: true,
            a_op: AOp::Push,
            jump_func: 0xa5,
            b_pop_cnt: 17,
            b_op0: BOp::Incr,
            b_op1: BOp::Decr,
            ignore_uncovered: true,
            uncounted: true,
            call_per_pe: true,
        };
        let w = i.encode();
        assert_eq!(w & 7, 5);
        assert_eq!((w >> 8) & 0xff, 0xa5);
        assert_eq!((w >> 16) & 0x1f, 17);
        assert_eq!((w >> 24) & 3, 2);
        assert_eq!((w >> 26) & 3, 1);
        assert_eq!(w & (1 << 28), 1 << 28);
        assert_eq!(FcInstr::decode(w), Ok(i));
        assert_eq!(w & (1 << 3 | 1 << 29), 1 << 3 | 1 << 29);
        assert!(FcInstr::decode(w | 1 << 30).is_err());
        assert!(FcInstr::decode(w | 1 << 21).is_err());
        assert!(FcInstr::decode(w | 3 << 6).is_err());
        assert!(FcInstr::decode((w & !(3 << 24)) | 3 << 24).is_err());
    }

    #[test]
    fn loop_constants_round_trip() {
        let c = LoopConst {
            count: 200,
            init: 7,
            step: -3,
            count_src: Some(2),
            init_src: None,
        };
        assert_eq!(LoopConst::decode(c.encode()), Ok(c));
        assert!(LoopConst::decode(7 << 24).is_err());
        assert!(LoopConst::decode(1 << 30).is_err());
    }
}
