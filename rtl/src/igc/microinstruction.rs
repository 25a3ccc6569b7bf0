//! The IGC microinstruction: 128 bits in four 32-bit store words (W0..W3).
//!
//! ```text
//! W0  PE-array ALU      [7:0] LUT_R  [15:8] LUT_C  [19:16] LUT_E  [20] EN_WE  [21] CRY_WE
//!                       [22] MEM_WE  [23] WR_ALL   [26:24] B_SRC  [28:27] B_EXT  [31:29] QEE_OP
//! W1  address gens      [3:0] A_BASE [5:4] A_IDX   [9:6] B_BASE   [11:10] B_IDX
//!                       [15:12] W_BASE [17:16] W_IDX [20:18] B_LIM [21] B_OFF
//!                       [26:22] FC_BOOL [31:27] FC_CONST
//! W2  sequencer         [3:0] SEQ    [14:4] TARGET  [15] B_OFF_NEG [18:16] L_LOAD
//!                       [20:19] I_OP [23:21] MISC   [31:24] IMM8
//! W3  flow control      the R5xx US_FC fields at their seed-000 bit positions (issue 5)
//! ```
//!
//! Reserved codes (SEQ 9-15, QEE_OP 4-7, and invalid IMM8 modifiers of MISC) are *illegal*:
//! a microinstruction that sets them faults the IGC (see docs/microcode.md, where every field
//! is documented).

use crate::flow_control::instruction::{FcInstr, FC_FLAG};
use crate::trace::{Wave, WaveEnum};
use std::fmt;

/// Store words per microinstruction.
pub const WORDS_PER_UINST: usize = 4;

/// A bit field of the microinstruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub word: usize,
    pub shift: u32,
    pub width: u32,
}

impl Field {
    const fn new(name: &'static str, word: usize, shift: u32, width: u32) -> Field {
        Field {
            name,
            word,
            shift,
            width,
        }
    }
    /// Extract the field.
    #[inline]
    pub fn get(&self, w: &[u32; 4]) -> u32 {
        (w[self.word] >> self.shift) & ((1u64 << self.width) - 1) as u32
    }
    /// Insert a value (masked to the width).
    pub fn put(&self, w: &mut [u32; 4], v: u32) {
        let mask = ((1u64 << self.width) - 1) as u32;
        w[self.word] = (w[self.word] & !(mask << self.shift)) | ((v & mask) << self.shift);
    }
    /// Largest value the field holds.
    pub fn max(&self) -> u32 {
        ((1u64 << self.width) - 1) as u32
    }
}

pub const LUT_R: Field = Field::new("LUT_R", 0, 0, 8);
pub const LUT_C: Field = Field::new("LUT_C", 0, 8, 8);
pub const LUT_E: Field = Field::new("LUT_E", 0, 16, 4);
pub const EN_WE: Field = Field::new("EN_WE", 0, 20, 1);
pub const CRY_WE: Field = Field::new("CRY_WE", 0, 21, 1);
pub const MEM_WE: Field = Field::new("MEM_WE", 0, 22, 1);
pub const WR_ALL: Field = Field::new("WR_ALL", 0, 23, 1);
pub const B_SRC: Field = Field::new("B_SRC", 0, 24, 3);
pub const B_EXT: Field = Field::new("B_EXT", 0, 27, 2);
pub const QEE_OP: Field = Field::new("QEE_OP", 0, 29, 3);
pub const A_BASE: Field = Field::new("A_BASE", 1, 0, 4);
pub const A_IDX: Field = Field::new("A_IDX", 1, 4, 2);
pub const B_BASE: Field = Field::new("B_BASE", 1, 6, 4);
pub const B_IDX: Field = Field::new("B_IDX", 1, 10, 2);
pub const W_BASE: Field = Field::new("W_BASE", 1, 12, 4);
pub const W_IDX: Field = Field::new("W_IDX", 1, 16, 2);
pub const B_LIM: Field = Field::new("B_LIM", 1, 18, 3);
pub const B_OFF: Field = Field::new("B_OFF", 1, 21, 1);
pub const FC_BOOL: Field = Field::new("FC_BOOL", 1, 22, 5);
pub const FC_CONST: Field = Field::new("FC_CONST", 1, 27, 5);
pub const SEQ: Field = Field::new("SEQ", 2, 0, 4);
pub const TARGET: Field = Field::new("TARGET", 2, 4, 11);
pub const B_OFF_NEG: Field = Field::new("B_OFF_NEG", 2, 15, 1);
pub const L_LOAD: Field = Field::new("L_LOAD", 2, 16, 3);
pub const I_OP: Field = Field::new("I_OP", 2, 19, 2);
pub const MISC: Field = Field::new("MISC", 2, 21, 3);
pub const IMM8: Field = Field::new("IMM8", 2, 24, 8);
pub const FC_WORD: Field = Field::new("FC", 3, 0, 32);

/// Every field, in layout order (for documentation and the assembler's listing).
pub const FIELDS: &[Field] = &[
    LUT_R, LUT_C, LUT_E, EN_WE, CRY_WE, MEM_WE, WR_ALL, B_SRC, B_EXT, QEE_OP, A_BASE, A_IDX,
    B_BASE, B_IDX, W_BASE, W_IDX, B_LIM, B_OFF, FC_BOOL, FC_CONST, SEQ, TARGET, B_OFF_NEG, L_LOAD,
    I_OP, MISC, IMM8, FC_WORD,
];

/// Number of operand registers OPR0..OPR4 (fields F0..F4 of the opcode and P words).
pub const NUM_OPR: usize = 5;

/// Source of ALU input B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, WaveEnum)]
pub enum BSrc {
    /// Constant 0.
    #[wave(name = "0")]
    Zero = 0,
    /// Pixel memory at the B address.
    Mem = 1,
    /// Bit `min(B address, 31)` of the scalar `sca` (the C register): `sca[n]` sign-extends.
    Sca = 2,
    /// The QEE result bit on the pixels' tree input this cycle (`tree`).
    Tree = 3,
    /// Each PE's Enable register.
    Enable = 4,
    /// Constant 1.
    #[wave(name = "1")]
    One = 5,
}

/// Extension of operand B past a length (seed notes 7 and 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BExt {
    None = 0,
    /// When I ≥ OPR[B_LIM], B reads 0 (unsigned source).
    Zero = 1,
    /// When I ≥ OPR[B_LIM], B reads the sign bit `mem[B_BASE + OPR[B_LIM] - 1]`.
    Sign = 2,
    /// When I ≥ OPR[B_LIM], port A reads 0 (a memory operand zero-extended against the tree
    /// on port B, seed note 3).
    AZero = 3,
}

/// Base of an address generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// Port unused (A reads 0; W does not write; B must then not be `Mem`).
    Off,
    /// Operand register OPR0..OPR4.
    Opr(u8),
    /// Absolute: base 0 (address = index, e.g. IMM-free constant addressing via I).
    Abs,
    /// Absolute: base IMM8 (a constant address; IMM8 then has no other use in the
    /// microinstruction).
    Imm,
}

/// Index added to the base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Idx {
    None = 0,
    /// The bit counter I.
    I = 1,
    /// The flow-control unit's loop register aL (docs/flow-control.md).
    Al = 2,
    /// I counted from the top: `OPR[B_LIM] - 1 - I` (walks a segment MSB first, e.g. for an
    /// overlapping CPY).
    IRev = 3,
}

/// An address generator: `base + index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrGen {
    pub base: Base,
    pub idx: Idx,
}

/// Sequencer operation (its mnemonic, as the waveform shows it: the variant's name in
/// UPPERCASE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, WaveEnum)]
#[wave(uppercase)]
pub enum Seq {
    /// PC + 1.
    Next = 0,
    /// PC = TARGET.
    Jump = 1,
    /// If L > 1: L -= 1, PC = TARGET; else L = 0, PC + 1.
    Loop = 2,
    /// End of command: take the next command from the Stream Parser (stall until one is
    /// ready) and go to its dispatch-RAM entry.
    Dispatch = 3,
    /// PC = TARGET if AEO is asserted, else PC + 1.
    JAeo = 4,
    /// PC = TARGET if AEO is not asserted, else PC + 1.
    JNAeo = 5,
    /// As `Loop`, but dispatch instead of falling through when the loop ends.
    LoopD = 6,
    /// Stay here forever (the HANG command).
    Hang = 7,
    /// PC = TARGET if OPR[IMM8 bits 2:0] > OPR[IMM8 bits 6:4] (unsigned), else PC + 1.
    JOprGt = 8,
}

/// Loop-counter load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LLoad {
    None,
    /// `L = OPR[k]`.
    Opr(u8),
    /// L = IMM8.
    Imm,
    /// L = 73 - FBITS, the longest `tree` operand (seed §III.4.2.5.1-1).
    TreeLen,
}

/// QEE control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QeeOp {
    None = 0,
    /// Start an evaluation with the command's coefficients, QEEMode and FBITS: bit 0 of the
    /// result is on the tree input `QEE_LATENCY` cycles later, then one bit per cycle.
    Start = 1,
    /// SUPCFG step: shift bit I of the 1's complement of `sca` into every EMC's
    /// configuration register.
    CfgAll = 2,
    /// SEPCFG step: shift bit I of `sca` into the configuration register of EMC OPR0.
    CfgOne = 3,
}

/// Bit-counter operation (after the cycle's addresses were formed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IOp {
    Keep = 0,
    Clear = 1,
    Inc = 2,
}

/// Miscellaneous control: the indicator, and the IGC's handshakes with the rest of the board
/// (transfers, semaphores, the status transmitter; seed §III.4.2.5.2, §III.4.2.5.5-6).
///
/// The handshake codes *stall*: while their condition holds the microinstruction does not
/// execute (no array operation, no sequencing) and is retried next cycle; the IGC shows
/// WAIT_XFER, WAIT_SEM or WAIT_TX. IMM8 carries their modifiers.
///
/// Its name in the assembler and the waveform is the variant's name in UPPERCASE (`-`: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, WaveEnum)]
#[wave(uppercase)]
pub enum Misc {
    #[wave(name = "-")]
    None = 0,
    /// Turn on the IGC "indicator" signal (status bit 31).
    IndOn = 1,
    /// Turn it off.
    IndOff = 2,
    /// Start a backing-store transfer (BSLOAD/BSSTORE); stalls while one is in progress.
    /// IMM8 bit 0: 1 = store (pixel memory → sector), 0 = load; IMM8 bits 3:1: the operand
    /// register holding the sector.
    Xfer = 3,
    /// Stall while a transfer is in progress (BSWAIT).
    BsWait = 4,
    /// V the BS semaphore (VBS); with IMM8 bit 0 set, when the transfer in progress
    /// completes (VBSlater).
    Vbs = 5,
    /// P the IGC semaphore: stall while it is zero, then decrement it (PIGC).
    Pigc = 6,
    /// Latch a status message (destination `sca`, ID = the P word with the board ID in its
    /// low byte, the status word) into the IGC port's transmitter; stalls while a status or
    /// error message is pending (SENDSTATUS).
    SendStatus = 7,
}

impl Misc {
    /// Name in the assembler and the waveform.
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }
}

/// A decoded microinstruction. Its first fields are the waveform's `renderer.igc.uinst` in
/// its order (`#[derive(Wave)]`; decoded from the fetched words on the waveform writer's
/// thread, `igc/trace.rs`), the others are not shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Wave)]
#[wave(part)]
pub struct Microinstruction {
    #[wave(name)]
    pub seq: Seq,
    #[wave(name)]
    pub misc: Misc,
    #[wave(bits = 11)]
    pub target: u16,
    pub lut_r: u8,
    pub lut_c: u8,
    #[wave(bits = 4)]
    pub lut_e: u8,
    pub mem_we: bool,
    pub cry_we: bool,
    pub en_we: bool,
    pub wr_all: bool,
    #[wave(name)]
    pub b_src: BSrc,
    #[wave(skip)]
    pub b_ext: BExt,
    #[wave(skip)]
    pub qee: QeeOp,
    #[wave(skip)]
    pub a: AddrGen,
    #[wave(skip)]
    pub b: AddrGen,
    #[wave(skip)]
    pub w: AddrGen,
    #[wave(skip)]
    pub b_lim: u8,
    /// Port B's index offset: `(register, negative)`: the index becomes `idx ± OPR[reg]`
    /// (`reg` = IMM8 bits 2:0); a negative index reads 0, and B_EXT compares this index.
    #[wave(skip)]
    pub b_off: Option<(u8, bool)>,
    #[wave(skip)]
    pub l_load: LLoad,
    #[wave(skip)]
    pub i_op: IOp,
    #[wave(skip)]
    pub imm: u8,
    /// A flow-control instruction (W3 with the FC flag): the unit decides the next PC.
    #[wave(skip)]
    pub fc: Option<FcInstr>,
    /// FC_BOOL and FC_CONST: which boolean and loop constant it uses.
    #[wave(skip)]
    pub fc_bool: u8,
    #[wave(skip)]
    pub fc_const: u8,
}

/// Why a microinstruction cannot execute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal(pub String);

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Default for Microinstruction {
    /// The all-zero microinstruction: no array operation, `Seq::Next`.
    fn default() -> Self {
        decode(&[0; 4]).unwrap_or_else(|_| unreachable!("zero word is legal"))
    }
}

fn illegal<T>(field: &Field, v: u32, why: &str) -> Result<T, Illegal> {
    Err(Illegal(format!("{} = {} is {}", field.name, v, why)))
}

fn base(field: &Field, v: u32) -> Result<Base, Illegal> {
    match v {
        0 => Ok(Base::Off),
        1..=5 => Ok(Base::Opr(v as u8 - 1)),
        6 => Ok(Base::Abs),
        7 => Ok(Base::Imm),
        _ => illegal(field, v, "reserved"),
    }
}

fn idx(field: &Field, v: u32) -> Result<Idx, Illegal> {
    match v {
        0 => Ok(Idx::None),
        1 => Ok(Idx::I),
        2 => Ok(Idx::Al),
        3 => Ok(Idx::IRev),
        _ => illegal(field, v, "reserved"),
    }
}

/// Decode four store words.
pub fn decode(w: &[u32; 4]) -> Result<Microinstruction, Illegal> {
    let b_src = decode_b_src(w)?;
    let b_ext = decode_b_ext(w)?;
    let qee = decode_qee(w)?;
    let fc = decode_fc(w)?;
    let b_lim = B_LIM.get(w);
    if b_lim as usize >= NUM_OPR {
        return illegal(&B_LIM, b_lim, "not an operand register (0..=4)");
    }
    let b_off = decode_b_off(w)?;
    let seq = decode_seq(w)?;
    let l_load = decode_l_load(w)?;
    let i_op = decode_i_op(w)?;
    let misc = decode_misc(w)?;
    let a = addr_gen(w, &A_BASE, &A_IDX)?;
    let b = addr_gen(w, &B_BASE, &B_IDX)?;
    let wg = addr_gen(w, &W_BASE, &W_IDX)?;
    let mem_we = MEM_WE.get(w) != 0;
    if mem_we && wg.base == Base::Off {
        return illegal(&W_BASE, 0, "off while MEM_WE is set");
    }
    if b_src == BSrc::Mem && b.base == Base::Off {
        return illegal(&B_BASE, 0, "off while B_SRC = MEM");
    }
    if fc.is_some() {
        check_fc_idle(w, mem_we)?;
    }
    Ok(Microinstruction {
        lut_r: LUT_R.get(w) as u8,
        lut_c: LUT_C.get(w) as u8,
        lut_e: LUT_E.get(w) as u8,
        en_we: EN_WE.get(w) != 0,
        cry_we: CRY_WE.get(w) != 0,
        mem_we,
        wr_all: WR_ALL.get(w) != 0,
        b_src,
        b_ext,
        qee,
        a,
        b,
        w: wg,
        b_lim: b_lim as u8,
        b_off,
        seq,
        target: TARGET.get(w) as u16,
        l_load,
        i_op,
        misc,
        imm: IMM8.get(w) as u8,
        fc,
        fc_bool: FC_BOOL.get(w) as u8,
        fc_const: FC_CONST.get(w) as u8,
    })
}

#[inline]
fn decode_b_src(w: &[u32; 4]) -> Result<BSrc, Illegal> {
    Ok(match B_SRC.get(w) {
        0 => BSrc::Zero,
        1 => BSrc::Mem,
        2 => BSrc::Sca,
        3 => BSrc::Tree,
        4 => BSrc::Enable,
        5 => BSrc::One,
        v => return illegal(&B_SRC, v, "reserved"),
    })
}

#[inline]
fn decode_b_ext(w: &[u32; 4]) -> Result<BExt, Illegal> {
    Ok(match B_EXT.get(w) {
        0 => BExt::None,
        1 => BExt::Zero,
        2 => BExt::Sign,
        3 => BExt::AZero,
        v => return illegal(&B_EXT, v, "reserved"),
    })
}

#[inline]
fn decode_qee(w: &[u32; 4]) -> Result<QeeOp, Illegal> {
    Ok(match QEE_OP.get(w) {
        0 => QeeOp::None,
        1 => QeeOp::Start,
        2 => QeeOp::CfgAll,
        3 => QeeOp::CfgOne,
        v => return illegal(&QEE_OP, v, "reserved"),
    })
}

/// The flow-control word: an instruction when the FC flag is set, else it and the FC fields
/// must be 0.
#[inline]
fn decode_fc(w: &[u32; 4]) -> Result<Option<FcInstr>, Illegal> {
    if w[3] & FC_FLAG != 0 {
        Ok(Some(FcInstr::decode(w[3]).map_err(|e| {
            Illegal(format!("FC = {:#010x}: {e}", w[3]))
        })?))
    } else if w[3] != 0 {
        illegal(&FC_WORD, w[3], "set without the FC flag (bit 31)")
    } else {
        for f in [FC_BOOL, FC_CONST] {
            if f.get(w) != 0 {
                return illegal(
                    &f,
                    f.get(w),
                    "set in a microinstruction that is not flow control",
                );
            }
        }
        Ok(None)
    }
}

#[inline]
fn decode_b_off(w: &[u32; 4]) -> Result<Option<(u8, bool)>, Illegal> {
    if B_OFF.get(w) != 0 {
        let reg = (IMM8.get(w) & 7) as u8;
        if reg as usize >= NUM_OPR {
            return illegal(
                &IMM8,
                IMM8.get(w),
                "not an operand register for B_OFF (0..=4)",
            );
        }
        Ok(Some((reg, B_OFF_NEG.get(w) != 0)))
    } else if B_OFF_NEG.get(w) != 0 {
        illegal(&B_OFF_NEG, 1, "set without B_OFF")
    } else {
        Ok(None)
    }
}

#[inline]
fn decode_seq(w: &[u32; 4]) -> Result<Seq, Illegal> {
    Ok(match SEQ.get(w) {
        0 => Seq::Next,
        1 => Seq::Jump,
        2 => Seq::Loop,
        3 => Seq::Dispatch,
        4 => Seq::JAeo,
        5 => Seq::JNAeo,
        6 => Seq::LoopD,
        7 => Seq::Hang,
        8 => Seq::JOprGt,
        v => return illegal(&SEQ, v, "reserved (9-15 are for the flow-control unit)"),
    })
}

#[inline]
fn decode_l_load(w: &[u32; 4]) -> Result<LLoad, Illegal> {
    Ok(match L_LOAD.get(w) {
        0 => LLoad::None,
        v @ 1..=5 => LLoad::Opr(v as u8 - 1),
        6 => LLoad::Imm,
        7 => LLoad::TreeLen,
        v => return illegal(&L_LOAD, v, "reserved"),
    })
}

#[inline]
fn decode_i_op(w: &[u32; 4]) -> Result<IOp, Illegal> {
    Ok(match I_OP.get(w) {
        0 => IOp::Keep,
        1 => IOp::Clear,
        2 => IOp::Inc,
        v => return illegal(&I_OP, v, "reserved"),
    })
}

/// MISC, with XFER's sector register checked.
#[inline]
fn decode_misc(w: &[u32; 4]) -> Result<Misc, Illegal> {
    let misc = match MISC.get(w) {
        0 => Misc::None,
        1 => Misc::IndOn,
        2 => Misc::IndOff,
        3 => Misc::Xfer,
        4 => Misc::BsWait,
        5 => Misc::Vbs,
        6 => Misc::Pigc,
        _ => Misc::SendStatus,
    };
    if misc == Misc::Xfer && (IMM8.get(w) >> 1) & 7 >= NUM_OPR as u32 {
        return illegal(
            &IMM8,
            IMM8.get(w),
            "XFER's sector register (IMM8 bits 3:1) is not OPR0..OPR4",
        );
    }
    Ok(misc)
}

/// An address generator from its base and index fields.
#[inline]
fn addr_gen(w: &[u32; 4], base_f: &Field, idx_f: &Field) -> Result<AddrGen, Illegal> {
    Ok(AddrGen {
        base: base(base_f, base_f.get(w))?,
        idx: idx(idx_f, idx_f.get(w))?,
    })
}

/// A flow-control instruction decides the next PC and changes no array state.
#[inline]
fn check_fc_idle(w: &[u32; 4], mem_we: bool) -> Result<(), Illegal> {
    let busy = [
        (&MEM_WE, mem_we as u32),
        (&CRY_WE, CRY_WE.get(w)),
        (&EN_WE, EN_WE.get(w)),
        (&QEE_OP, QEE_OP.get(w)),
        (&MISC, MISC.get(w)),
        (&SEQ, SEQ.get(w)),
        (&I_OP, I_OP.get(w)),
        (&L_LOAD, L_LOAD.get(w)),
    ];
    if let Some((f, v)) = busy.into_iter().find(|(_, v)| *v != 0) {
        return illegal(f, v, "not allowed in a flow-control instruction (FC set)");
    }
    Ok(())
}

fn base_code(b: Base) -> u32 {
    match b {
        Base::Off => 0,
        Base::Opr(k) => k as u32 + 1,
        Base::Abs => 6,
        Base::Imm => 7,
    }
}

/// Encode into four store words (inverse of [`decode`]).
pub fn encode(m: &Microinstruction) -> [u32; 4] {
    let mut w = [0u32; 4];
    LUT_R.put(&mut w, m.lut_r as u32);
    LUT_C.put(&mut w, m.lut_c as u32);
    LUT_E.put(&mut w, m.lut_e as u32);
    EN_WE.put(&mut w, m.en_we as u32);
    CRY_WE.put(&mut w, m.cry_we as u32);
    MEM_WE.put(&mut w, m.mem_we as u32);
    WR_ALL.put(&mut w, m.wr_all as u32);
    B_SRC.put(&mut w, m.b_src as u32);
    B_EXT.put(&mut w, m.b_ext as u32);
    QEE_OP.put(&mut w, m.qee as u32);
    A_BASE.put(&mut w, base_code(m.a.base));
    A_IDX.put(&mut w, m.a.idx as u32);
    B_BASE.put(&mut w, base_code(m.b.base));
    B_IDX.put(&mut w, m.b.idx as u32);
    W_BASE.put(&mut w, base_code(m.w.base));
    W_IDX.put(&mut w, m.w.idx as u32);
    B_LIM.put(&mut w, m.b_lim as u32);
    if let Some((reg, neg)) = m.b_off {
        B_OFF.put(&mut w, 1);
        B_OFF_NEG.put(&mut w, neg as u32);
        IMM8.put(&mut w, (m.imm as u32 & !7) | reg as u32);
    }
    SEQ.put(&mut w, m.seq as u32);
    TARGET.put(&mut w, m.target as u32);
    L_LOAD.put(
        &mut w,
        match m.l_load {
            LLoad::None => 0,
            LLoad::Opr(k) => k as u32 + 1,
            LLoad::Imm => 6,
            LLoad::TreeLen => 7,
        },
    );
    I_OP.put(&mut w, m.i_op as u32);
    MISC.put(&mut w, m.misc as u32);
    if m.b_off.is_none() {
        IMM8.put(&mut w, m.imm as u32);
    }
    if let Some(fc) = m.fc {
        FC_WORD.put(&mut w, fc.encode());
        FC_BOOL.put(&mut w, m.fc_bool as u32);
        FC_CONST.put(&mut w, m.fc_const as u32);
    }
    w
}

impl Seq {
    /// Mnemonic, as the waveform shows it.
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_do_not_overlap_and_fill_their_words() {
        let mut used = [0u64; 4];
        for f in FIELDS {
            let m = ((1u64 << f.width) - 1) << f.shift;
            assert_eq!(used[f.word] & m, 0, "{} overlaps", f.name);
            used[f.word] |= m;
        }
        for u in used {
            assert_eq!(u, 0xffff_ffff);
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        let m = Microinstruction {
            lut_r: 0x96,
            lut_c: 0xe8,
            lut_e: 0b1000,
            en_we: true,
            cry_we: true,
            mem_we: true,
            wr_all: false,
            b_src: BSrc::Mem,
            b_ext: BExt::Sign,
            qee: QeeOp::Start,
            a: AddrGen {
                base: Base::Opr(1),
                idx: Idx::I,
            },
            b: AddrGen {
                base: Base::Opr(2),
                idx: Idx::I,
            },
            w: AddrGen {
                base: Base::Opr(0),
                idx: Idx::I,
            },
            b_lim: 4,
            b_off: None,
            seq: Seq::LoopD,
            target: 0x7ff,
            l_load: LLoad::Opr(3),
            i_op: IOp::Inc,
            misc: Misc::IndOn,
            imm: 200,
            fc: None,
            fc_bool: 0,
            fc_const: 0,
        };
        assert_eq!(decode(&encode(&m)), Ok(m));
    }

    #[test]
    fn flow_control_instructions_round_trip_and_exclude_array_effects() {
        use crate::flow_control::instruction::{BOp, FcInstr, FcOp};
        let off = AddrGen {
            base: Base::Off,
            idx: Idx::None,
        };
        let m = Microinstruction {
            a: AddrGen {
                base: Base::Opr(2),
                idx: Idx::Al,
            },
            b: off,
            w: off,
            target: 77,
            fc: Some(FcInstr {
                op: FcOp::BreakLoop,
                jump_func: 0xcc,
                b_op1: BOp::Decr,
                b_pop_cnt: 2,
                ..FcInstr::default()
            }),
            fc_bool: 9,
            fc_const: 31,
            ..Microinstruction::default()
        };
        assert_eq!(decode(&encode(&m)), Ok(m));
        let mut w = encode(&m);
        MEM_WE.put(&mut w, 1);
        W_BASE.put(&mut w, 1);
        assert!(
            decode(&w).is_err(),
            "no memory write in a flow-control instruction"
        );
        let mut w = encode(&m);
        SEQ.put(&mut w, 1);
        assert!(decode(&w).is_err(), "the unit decides the next PC");
        let mut w = [0u32; 4];
        FC_CONST.put(&mut w, 3);
        assert!(decode(&w).is_err(), "FC_CONST without the FC flag");
    }

    #[test]
    fn reserved_fields_are_illegal() {
        let mut w = [0u32; 4];
        B_SRC.put(&mut w, 6);
        assert!(decode(&w).is_err());
        let mut w = [0u32; 4];
        QEE_OP.put(&mut w, 4);
        assert!(decode(&w).is_err());
        let mut w = [0u32; 4];
        w[3] = 1;
        assert!(decode(&w).is_err());
        let mut w = [0u32; 4];
        SEQ.put(&mut w, 9);
        assert!(decode(&w).is_err());
        let mut w = [0u32; 4];
        MEM_WE.put(&mut w, 1);
        assert!(decode(&w).is_err(), "write with W port off");
    }
}
