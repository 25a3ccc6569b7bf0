//! Plain per-pixel reference models.
//!
//! [`Pixel`] is one pixel processor's state (208 memory bits, Enable, Carry) and [`apply`]
//! executes one SIMD-array command of the standard microcode on it, written directly from the
//! seed's command tables (seed 003 §III.4.2.5.1, notes 1-18, with the OCR errata of
//! SPEC §6). The model is deliberately *not* bit-serial: each command reads its operand
//! fields as integers (`u128`, lengths ≤ 128), computes the result with ordinary integer
//! arithmetic, and writes it back, so it shares nothing with the microcode it checks.
//!
//! Rules taken from the seed:
//! - `sca[n]` is the scalar's low `n` bits, sign-extended when `n > 32`.
//! - Arithmetic/logical results are written only where Enable = 1; the Enable-store command
//!   ENABIntoMEM writes regardless of Enable; MEMintoENAB / CLRENABS / ... write Enable at
//!   every pixel.
//! - Compares are `enable &&= (...)`; MEMgeSCA, MEMgtSCA and MEMgeMEM compare unsigned
//!   (note 1), against `sca[slen]` for the scalar forms.
//! - MEMplusMEM, MEMminusMEM and MEMplusseqMEM zero-extend `src` when `dlen > slen`, ignore
//!   its high bits when `dlen < slen`, and discard overflow (note 7).
//! - CPY allows any overlap (note 12): the model reads all sources before writing.
//! - The `...MEM2` commands read `src` as signed and sign-extend it when `dlen > slen`
//!   (note 8); MEM2geMEM2 / MEM2gtMEM2 compare signed (note 2).
//! - MEMcImpplusseqMEM clamps to all ones on unsigned overflow (notes 1, 15);
//!   MEM2cImpplusseqMEM2 clamps to the largest positive / smallest negative value (notes 2, 16).
//! - OVSIX: where Carry is set, `mem[dst:dlen] = ~0` (Enabled pixels).
//! - TBENTRY (note 13): index = `sca[slen]`, entry = the next `dlen` bits of the scalar (bits
//!   `slen..slen+dlen`, sign-extended past bit 31); Enabled pixels whose `mem[src:slen]`
//!   equals the index get the entry.
//! - GMAX / GMIN (note 14) are global: [`apply_all`] takes the maximum / minimum of the
//!   unsigned `mem[src:dlen]` over the Enabled pixels and writes it to `mem[dst:dlen]` of every
//!   Enabled pixel; Enable is unchanged.
//! - A `tmp` operand "becomes undefined" (note 9): [`RefCmd::scratch`] names it, and the model
//!   leaves it as it was; a test must not compare it.
//!
//! Carry: the seed says Carry is not reliable across commands unless a command is designed
//! for it, so [`carry_rule`] says what the model's Carry after each command means (see
//! [`CarryRule`]); a test compares Carry only where that is meaningful for the microcode under
//! test.

/// Bits of pixel memory (seed 003 §III.4.2.5.1).
pub const MEM_BITS: usize = 208;
/// Largest `dlen` / `slen` (seed 003 §III.4.2.5.1).
pub const MAX_LEN: usize = 128;

/// One pixel processor's architectural state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pixel {
    /// `mem[k]` is bit `k` of pixel memory (LSB of a segment at its lowest address).
    pub mem: [bool; MEM_BITS],
    pub enable: bool,
    pub carry: bool,
}

impl Default for Pixel {
    fn default() -> Self {
        Pixel {
            mem: [false; MEM_BITS],
            enable: false,
            carry: false,
        }
    }
}

/// All-ones mask of `len` bits (`len` ≤ 128).
pub fn mask(len: usize) -> u128 {
    assert!(len <= MAX_LEN, "length {len} > {MAX_LEN}");
    if len == 128 {
        u128::MAX
    } else {
        (1u128 << len) - 1
    }
}

/// `sca[n]`: the low `n` bits of the scalar, sign-extended from bit 31 when `n > 32`.
pub fn sca_bits(sca: u32, n: usize) -> u128 {
    (sca as i32 as i128 as u128) & mask(n)
}

impl Pixel {
    /// `mem[lsb : len]` as an unsigned integer (`len` ≤ 128, segment inside 208 bits).
    pub fn field(&self, lsb: usize, len: usize) -> u128 {
        assert!(len <= MAX_LEN && lsb + len <= MEM_BITS, "mem[{lsb}:{len}]");
        (0..len).fold(0u128, |v, k| v | (u128::from(self.mem[lsb + k]) << k))
    }

    /// Write the low `len` bits of `v` into `mem[lsb : len]`.
    pub fn set_field(&mut self, lsb: usize, len: usize, v: u128) {
        assert!(len <= MAX_LEN && lsb + len <= MEM_BITS, "mem[{lsb}:{len}]");
        for k in 0..len {
            self.mem[lsb + k] = (v >> k) & 1 != 0;
        }
    }

    /// Write `v` into `mem[lsb : len]` only where Enable is set (arithmetic/logical commands).
    fn store(&mut self, lsb: usize, len: usize, v: u128) {
        if self.enable {
            self.set_field(lsb, len, v);
        }
    }
}

/// `a + b` on `len`-bit unsigned operands: the `len`-bit sum and the carry out of bit `len-1`.
pub fn add(a: u128, b: u128, len: usize) -> (u128, bool) {
    let (a, b) = (a & mask(len), b & mask(len));
    let (s, overflow) = a.overflowing_add(b);
    if len == MAX_LEN {
        (s, overflow)
    } else {
        (s & mask(len), (s >> len) & 1 != 0)
    }
}

/// `a - b` on `len`-bit unsigned operands: the `len`-bit difference and the borrow.
pub fn sub(a: u128, b: u128, len: usize) -> (u128, bool) {
    let (a, b) = (a & mask(len), b & mask(len));
    (a.wrapping_sub(b) & mask(len), a < b)
}

/// The commands of the standard microcode that act on the pixel array (HANG excluded), with
/// their arguments in the seed's order. Addresses and lengths are bit numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefCmd {
    Noop,
    Noop2,
    Fbits {
        n: usize,
    },
    ClrEnabs,
    SetEnabs,
    EnabInv,
    MemIntoEnab {
        src: usize,
    },
    EnabIntoMem {
        dst: usize,
    },
    EnabIntoCry,
    CryIntoEnab,
    Clear {
        dst: usize,
        dlen: usize,
    },
    Set {
        dst: usize,
        dlen: usize,
    },
    ClrCry,
    ScaIntoMem {
        dst: usize,
        dlen: usize,
    },
    Cpy {
        dst: usize,
        src: usize,
        dlen: usize,
    },
    Invert {
        dst: usize,
        src: usize,
        dlen: usize,
    },
    Inc {
        dst: usize,
        src: usize,
        dlen: usize,
    },
    Dec {
        dst: usize,
        src: usize,
        dlen: usize,
    },
    Negate {
        dst: usize,
        src: usize,
        dlen: usize,
    },
    MemPlusMem {
        dst: usize,
        lsrc: usize,
        src: usize,
        dlen: usize,
        slen: usize,
    },
    MemMinusMem {
        dst: usize,
        lsrc: usize,
        src: usize,
        dlen: usize,
        slen: usize,
    },
    MemPlusEqMem {
        dst: usize,
        src: usize,
        dlen: usize,
        slen: usize,
    },
    MemEqZero {
        src: usize,
        slen: usize,
    },
    MemEqSca {
        src: usize,
        slen: usize,
    },
    MemGeSca {
        src: usize,
        slen: usize,
    },
    MemGtSca {
        src: usize,
        slen: usize,
    },
    MemGeMem {
        lsrc: usize,
        src: usize,
        slen: usize,
    },
    CryIntoMem {
        dst: usize,
    },
    IndOn,
    IndOff,
    // ---- non-QEE commands of issue 4
    MemEqOnes {
        src: usize,
        slen: usize,
    },
    MemNeZero {
        src: usize,
        slen: usize,
    },
    MemEqMem {
        lsrc: usize,
        src: usize,
        slen: usize,
    },
    MemNeMem {
        lsrc: usize,
        src: usize,
        slen: usize,
    },
    MemGtMem {
        lsrc: usize,
        src: usize,
        slen: usize,
    },
    Mem2GeMem2 {
        lsrc: usize,
        src: usize,
        slen: usize,
    },
    Mem2GtMem2 {
        lsrc: usize,
        src: usize,
        slen: usize,
    },
    EnabAndEqMem {
        src: usize,
    },
    EnabAndEqMemBar {
        src: usize,
    },
    EnabOrEqMem {
        src: usize,
    },
    EnabXorEqMem {
        src: usize,
    },
    EnabOrEqCry,
    MemOrEqEnab {
        dst: usize,
    },
    MemAndEqEnab {
        dst: usize,
    },
    Swap {
        dst: usize,
        src: usize,
        dlen: usize,
    },
    MemPlusEqSca {
        dst: usize,
        src: usize,
        dlen: usize,
    },
    MemMinusEqMem {
        dst: usize,
        src: usize,
        dlen: usize,
        slen: usize,
    },
    MemPlusMem2 {
        dst: usize,
        lsrc: usize,
        src: usize,
        dlen: usize,
        slen: usize,
    },
    MemPlusEqMem2 {
        dst: usize,
        src: usize,
        dlen: usize,
        slen: usize,
    },
    MemMinusMem2 {
        dst: usize,
        lsrc: usize,
        src: usize,
        dlen: usize,
        slen: usize,
    },
    MemMinusEqMem2 {
        dst: usize,
        src: usize,
        dlen: usize,
        slen: usize,
    },
    MemAndMem {
        dst: usize,
        lsrc: usize,
        src: usize,
        dlen: usize,
    },
    MemAndEqMem {
        dst: usize,
        src: usize,
        dlen: usize,
    },
    MemOrMem {
        dst: usize,
        lsrc: usize,
        src: usize,
        dlen: usize,
    },
    MemOrEqMem {
        dst: usize,
        src: usize,
        dlen: usize,
    },
    MemXorMem {
        dst: usize,
        lsrc: usize,
        src: usize,
        dlen: usize,
    },
    MemXorEqMem {
        dst: usize,
        src: usize,
        dlen: usize,
    },
    MemCImpPlusEqMem {
        dst: usize,
        src: usize,
        dlen: usize,
        tmp: usize,
    },
    Mem2CImpPlusEqMem2 {
        dst: usize,
        src: usize,
        dlen: usize,
        tmp: usize,
    },
    Ovsix {
        dst: usize,
        dlen: usize,
        tmp: usize,
    },
    TbEntry {
        dst: usize,
        src: usize,
        dlen: usize,
        slen: usize,
    },
    Gmax {
        dst: usize,
        src: usize,
        dlen: usize,
        tmp: usize,
    },
    Gmin {
        dst: usize,
        src: usize,
        dlen: usize,
        tmp: usize,
    },
}

impl RefCmd {
    /// The command's mnemonic (seed spelling, as the opcode table has it).
    pub fn name(&self) -> &'static str {
        use RefCmd::*;
        match self {
            Noop => "NOOP",
            Noop2 => "NOOP2",
            Fbits { .. } => "FBITS",
            ClrEnabs => "CLRENABS",
            SetEnabs => "SETENABS",
            EnabInv => "ENABINV",
            MemIntoEnab { .. } => "MEMintoENAB",
            EnabIntoMem { .. } => "ENABIntoMEM",
            EnabIntoCry => "ENABIntoCRY",
            CryIntoEnab => "CRYIntoENAB",
            Clear { .. } => "CLEAR",
            Set { .. } => "SET",
            ClrCry => "CLRCRY",
            ScaIntoMem { .. } => "SCAIntoMEM",
            Cpy { .. } => "CPY",
            Invert { .. } => "INVERT",
            Inc { .. } => "INC",
            Dec { .. } => "DEC",
            Negate { .. } => "NEGATE",
            MemPlusMem { .. } => "MEMplusMEM",
            MemMinusMem { .. } => "MEMminusMEM",
            MemPlusEqMem { .. } => "MEMplusseqMEM",
            MemEqZero { .. } => "MEMeqZERO",
            MemEqSca { .. } => "MEMeqSCA",
            MemGeSca { .. } => "MEMgeSCA",
            MemGtSca { .. } => "MEMgtSCA",
            MemGeMem { .. } => "MEMgeMEM",
            CryIntoMem { .. } => "CRYIntoMEM",
            IndOn => "INDON",
            IndOff => "INDOFF",
            MemEqOnes { .. } => "MEMeqONES",
            MemNeZero { .. } => "MEMneZERO",
            MemEqMem { .. } => "MEMeqMEM",
            MemNeMem { .. } => "MEMneMEM",
            MemGtMem { .. } => "MEMgtMEM",
            Mem2GeMem2 { .. } => "MEM2geMEM2",
            Mem2GtMem2 { .. } => "MEM2gtMEM2",
            EnabAndEqMem { .. } => "ENABandeqMEM",
            EnabAndEqMemBar { .. } => "ENABandeqMEMBAR",
            EnabOrEqMem { .. } => "ENABoreqMEM",
            EnabXorEqMem { .. } => "ENABxoreqMEM",
            EnabOrEqCry => "ENABoreqCRY",
            MemOrEqEnab { .. } => "MEMoreqENAB",
            MemAndEqEnab { .. } => "MEMandeqENAB",
            Swap { .. } => "SWAP",
            MemPlusEqSca { .. } => "MEMplusseqSCA",
            MemMinusEqMem { .. } => "MEMminuseqMEM",
            MemPlusMem2 { .. } => "MEMplusMEM2",
            MemPlusEqMem2 { .. } => "MEMplusseqMEM2",
            MemMinusMem2 { .. } => "MEMminusMEM2",
            MemMinusEqMem2 { .. } => "MEMminuseqMEM2",
            MemAndMem { .. } => "MEMandMEM",
            MemAndEqMem { .. } => "MEMandeqMEM",
            MemOrMem { .. } => "MEMorMEM",
            MemOrEqMem { .. } => "MEMoreqMEM",
            MemXorMem { .. } => "MEMxorMEM",
            MemXorEqMem { .. } => "MEMxoreqMEM",
            MemCImpPlusEqMem { .. } => "MEMcImpplusseqMEM",
            Mem2CImpPlusEqMem2 { .. } => "MEM2cImpplusseqMEM2",
            Ovsix { .. } => "OVSIX",
            TbEntry { .. } => "TBENTRY",
            Gmax { .. } => "GMAX",
            Gmin { .. } => "GMIN",
        }
    }

    /// The arguments in the seed's order (the order of the command-stream text form).
    pub fn args(&self) -> Vec<usize> {
        self.args_few().unwrap_or_else(|| self.args_many())
    }

    /// [`RefCmd::args`] of the commands with at most three arguments, `None` for the others.
    fn args_few(&self) -> Option<Vec<usize>> {
        use RefCmd::*;
        match *self {
            Noop | Noop2 | ClrEnabs | SetEnabs | EnabInv | EnabIntoCry | CryIntoEnab | ClrCry
            | IndOn | IndOff => Some(vec![]),
            Fbits { n } => Some(vec![n]),
            MemIntoEnab { src } => Some(vec![src]),
            EnabIntoMem { dst } | CryIntoMem { dst } => Some(vec![dst]),
            Clear { dst, dlen } | Set { dst, dlen } | ScaIntoMem { dst, dlen } => {
                Some(vec![dst, dlen])
            }
            Cpy { dst, src, dlen }
            | Invert { dst, src, dlen }
            | Inc { dst, src, dlen }
            | Dec { dst, src, dlen }
            | Negate { dst, src, dlen } => Some(vec![dst, src, dlen]),
            MemEqZero { src, slen }
            | MemEqSca { src, slen }
            | MemGeSca { src, slen }
            | MemGtSca { src, slen } => Some(vec![src, slen]),
            MemGeMem { lsrc, src, slen }
            | MemEqMem { lsrc, src, slen }
            | MemNeMem { lsrc, src, slen }
            | MemGtMem { lsrc, src, slen }
            | Mem2GeMem2 { lsrc, src, slen }
            | Mem2GtMem2 { lsrc, src, slen } => Some(vec![lsrc, src, slen]),
            MemEqOnes { src, slen } | MemNeZero { src, slen } => Some(vec![src, slen]),
            EnabAndEqMem { src }
            | EnabAndEqMemBar { src }
            | EnabOrEqMem { src }
            | EnabXorEqMem { src } => Some(vec![src]),
            EnabOrEqCry => Some(vec![]),
            MemOrEqEnab { dst } | MemAndEqEnab { dst } => Some(vec![dst]),
            Swap { dst, src, dlen }
            | MemPlusEqSca { dst, src, dlen }
            | MemAndEqMem { dst, src, dlen }
            | MemOrEqMem { dst, src, dlen }
            | MemXorEqMem { dst, src, dlen } => Some(vec![dst, src, dlen]),
            Ovsix { dst, dlen, tmp } => Some(vec![dst, dlen, tmp]),
            _ => None,
        }
    }

    /// [`RefCmd::args`] of the commands with four or five arguments.
    fn args_many(&self) -> Vec<usize> {
        use RefCmd::*;
        match *self {
            MemPlusMem {
                dst,
                lsrc,
                src,
                dlen,
                slen,
            }
            | MemMinusMem {
                dst,
                lsrc,
                src,
                dlen,
                slen,
            } => vec![dst, lsrc, src, dlen, slen],
            MemPlusEqMem {
                dst,
                src,
                dlen,
                slen,
            } => vec![dst, src, dlen, slen],
            MemMinusEqMem {
                dst,
                src,
                dlen,
                slen,
            }
            | MemPlusEqMem2 {
                dst,
                src,
                dlen,
                slen,
            }
            | MemMinusEqMem2 {
                dst,
                src,
                dlen,
                slen,
            }
            | TbEntry {
                dst,
                src,
                dlen,
                slen,
            } => vec![dst, src, dlen, slen],
            MemPlusMem2 {
                dst,
                lsrc,
                src,
                dlen,
                slen,
            }
            | MemMinusMem2 {
                dst,
                lsrc,
                src,
                dlen,
                slen,
            } => vec![dst, lsrc, src, dlen, slen],
            MemAndMem {
                dst,
                lsrc,
                src,
                dlen,
            }
            | MemOrMem {
                dst,
                lsrc,
                src,
                dlen,
            }
            | MemXorMem {
                dst,
                lsrc,
                src,
                dlen,
            } => vec![dst, lsrc, src, dlen],
            MemCImpPlusEqMem {
                dst,
                src,
                dlen,
                tmp,
            }
            | Mem2CImpPlusEqMem2 {
                dst,
                src,
                dlen,
                tmp,
            }
            | Gmax {
                dst,
                src,
                dlen,
                tmp,
            }
            | Gmin {
                dst,
                src,
                dlen,
                tmp,
            } => vec![dst, src, dlen, tmp],
            _ => unreachable!("args_few covers the commands with at most three arguments"),
        }
    }

    /// Whether the command takes the scalar `sca` (`_S0`, `_S1`, `_TBL` forms).
    pub fn uses_scalar(&self) -> bool {
        matches!(
            self,
            RefCmd::ScaIntoMem { .. }
                | RefCmd::MemEqSca { .. }
                | RefCmd::MemGeSca { .. }
                | RefCmd::MemGtSca { .. }
                | RefCmd::MemPlusEqSca { .. }
                | RefCmd::TbEntry { .. }
        )
    }

    /// The memory segments the command reads, as `(lsb, len)`.
    pub fn sources(&self) -> Vec<(usize, usize)> {
        use RefCmd::*;
        match *self {
            MemIntoEnab { src } => vec![(src, 1)],
            Cpy { src, dlen, .. }
            | Invert { src, dlen, .. }
            | Inc { src, dlen, .. }
            | Dec { src, dlen, .. }
            | Negate { src, dlen, .. } => vec![(src, dlen)],
            MemPlusMem {
                lsrc,
                src,
                dlen,
                slen,
                ..
            }
            | MemMinusMem {
                lsrc,
                src,
                dlen,
                slen,
                ..
            } => vec![(lsrc, dlen), (src, slen)],
            MemPlusEqMem {
                dst,
                src,
                dlen,
                slen,
            } => vec![(dst, dlen), (src, slen)],
            MemEqZero { src, slen }
            | MemEqSca { src, slen }
            | MemGeSca { src, slen }
            | MemGtSca { src, slen } => vec![(src, slen)],
            MemGeMem { lsrc, src, slen }
            | MemEqMem { lsrc, src, slen }
            | MemNeMem { lsrc, src, slen }
            | MemGtMem { lsrc, src, slen }
            | Mem2GeMem2 { lsrc, src, slen }
            | Mem2GtMem2 { lsrc, src, slen } => vec![(lsrc, slen), (src, slen)],
            MemEqOnes { src, slen } | MemNeZero { src, slen } => vec![(src, slen)],
            EnabAndEqMem { src }
            | EnabAndEqMemBar { src }
            | EnabOrEqMem { src }
            | EnabXorEqMem { src } => vec![(src, 1)],
            MemOrEqEnab { dst } | MemAndEqEnab { dst } => vec![(dst, 1)],
            Swap { dst, src, dlen }
            | MemAndEqMem { dst, src, dlen }
            | MemOrEqMem { dst, src, dlen }
            | MemXorEqMem { dst, src, dlen }
            | MemCImpPlusEqMem { dst, src, dlen, .. }
            | Mem2CImpPlusEqMem2 { dst, src, dlen, .. } => vec![(dst, dlen), (src, dlen)],
            MemPlusEqSca { src, dlen, .. } | Gmax { src, dlen, .. } | Gmin { src, dlen, .. } => {
                vec![(src, dlen)]
            }
            MemMinusEqMem {
                dst,
                src,
                dlen,
                slen,
            }
            | MemPlusEqMem2 {
                dst,
                src,
                dlen,
                slen,
            }
            | MemMinusEqMem2 {
                dst,
                src,
                dlen,
                slen,
            } => vec![(dst, dlen), (src, slen)],
            MemPlusMem2 {
                lsrc,
                src,
                dlen,
                slen,
                ..
            }
            | MemMinusMem2 {
                lsrc,
                src,
                dlen,
                slen,
                ..
            } => vec![(lsrc, dlen), (src, slen)],
            MemAndMem {
                lsrc, src, dlen, ..
            }
            | MemOrMem {
                lsrc, src, dlen, ..
            }
            | MemXorMem {
                lsrc, src, dlen, ..
            } => vec![(lsrc, dlen), (src, dlen)],
            Ovsix { dst, dlen, .. } => vec![(dst, dlen)],
            TbEntry {
                dst,
                src,
                dlen,
                slen,
            } => vec![(src, slen), (dst, dlen)],
            _ => vec![],
        }
    }

    /// The memory segment the command writes, as `(lsb, len)`.
    pub fn dest(&self) -> Option<(usize, usize)> {
        use RefCmd::*;
        match *self {
            EnabIntoMem { dst } | CryIntoMem { dst } => Some((dst, 1)),
            Clear { dst, dlen }
            | Set { dst, dlen }
            | ScaIntoMem { dst, dlen }
            | Cpy { dst, dlen, .. }
            | Invert { dst, dlen, .. }
            | Inc { dst, dlen, .. }
            | Dec { dst, dlen, .. }
            | Negate { dst, dlen, .. }
            | MemPlusMem { dst, dlen, .. }
            | MemMinusMem { dst, dlen, .. }
            | MemPlusEqMem { dst, dlen, .. } => Some((dst, dlen)),
            MemOrEqEnab { dst } | MemAndEqEnab { dst } => Some((dst, 1)),
            Swap { dst, dlen, .. }
            | MemPlusEqSca { dst, dlen, .. }
            | MemMinusEqMem { dst, dlen, .. }
            | MemPlusMem2 { dst, dlen, .. }
            | MemPlusEqMem2 { dst, dlen, .. }
            | MemMinusMem2 { dst, dlen, .. }
            | MemMinusEqMem2 { dst, dlen, .. }
            | MemAndMem { dst, dlen, .. }
            | MemAndEqMem { dst, dlen, .. }
            | MemOrMem { dst, dlen, .. }
            | MemOrEqMem { dst, dlen, .. }
            | MemXorMem { dst, dlen, .. }
            | MemXorEqMem { dst, dlen, .. }
            | MemCImpPlusEqMem { dst, dlen, .. }
            | Mem2CImpPlusEqMem2 { dst, dlen, .. }
            | Ovsix { dst, dlen, .. }
            | TbEntry { dst, dlen, .. }
            | Gmax { dst, dlen, .. }
            | Gmin { dst, dlen, .. } => Some((dst, dlen)),
            _ => None,
        }
    }

    /// The `tmp` operand, as `(lsb, len)`: "a memory location for temporary use. It becomes
    /// undefined" (note 9). The model leaves it unchanged; tests must not compare it.
    pub fn scratch(&self) -> Option<(usize, usize)> {
        use RefCmd::*;
        match *self {
            MemCImpPlusEqMem { tmp, .. }
            | Mem2CImpPlusEqMem2 { tmp, .. }
            | Ovsix { tmp, .. }
            | Gmax { tmp, .. }
            | Gmin { tmp, .. } => Some((tmp, 1)),
            _ => None,
        }
    }

    /// A global command (GMAX, GMIN): its result depends on every pixel (see [`apply_all`]).
    pub fn is_global(&self) -> bool {
        matches!(self, RefCmd::Gmax { .. } | RefCmd::Gmin { .. })
    }
}

/// What the model's Carry after a command means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarryRule {
    /// The command does not use Carry: it keeps its value.
    Kept,
    /// The seed defines it: CLRCRY (`carry = 0`), ENABIntoCRY (`carry = enable`).
    Defined,
    /// An arithmetic or compare command: the model leaves the carry (or borrow) out of the
    /// most significant bit of the operation. The seed does not promise this ("not
    /// reliable"), but the standard microcode documents it (`c = borrow` etc.), so tests of
    /// the standard microcode compare it.
    CarryOut,
    /// The seed leaves Carry undefined and it is not a carry or borrow out, but the standard
    /// microcode documents what its routine leaves there (the comment of the `.command`
    /// declaration: the old Enable, a match or overflow flag, ...), and the model sets that.
    Documented,
}

/// How Carry after `cmd` is to be read (see [`CarryRule`]).
pub fn carry_rule(cmd: &RefCmd) -> CarryRule {
    use RefCmd::*;
    match cmd {
        ClrCry | EnabIntoCry => CarryRule::Defined,
        Inc { .. }
        | Dec { .. }
        | Negate { .. }
        | MemPlusMem { .. }
        | MemMinusMem { .. }
        | MemPlusEqMem { .. }
        | MemGeSca { .. }
        | MemGtSca { .. }
        | MemGeMem { .. }
        | MemPlusEqSca { .. }
        | MemMinusEqMem { .. }
        | MemPlusMem2 { .. }
        | MemPlusEqMem2 { .. }
        | MemMinusMem2 { .. }
        | MemMinusEqMem2 { .. }
        | MemCImpPlusEqMem { .. } => CarryRule::CarryOut,
        MemNeZero { .. }
        | MemNeMem { .. }
        | MemGtMem { .. }
        | Mem2GeMem2 { .. }
        | Mem2GtMem2 { .. }
        | Swap { .. }
        | Mem2CImpPlusEqMem2 { .. }
        | TbEntry { .. }
        | Gmax { .. }
        | Gmin { .. } => CarryRule::Documented,
        _ => CarryRule::Kept,
    }
}

/// Execute `cmd` on every pixel of `pixels` (the whole array), with the scalar `sca`.
///
/// The global commands GMAX and GMIN (note 14) take the maximum / minimum of the unsigned
/// `mem[src:dlen]` over the Enabled pixels of `pixels` and write it into `mem[dst:dlen]` of
/// each Enabled pixel; Enable is unchanged; Carry (documented by the standard microcode) is
/// set at the Enabled pixels whose `mem[src:dlen]` equals that extreme and cleared elsewhere.
/// With no Enabled pixel nothing is written. Every other command acts on each pixel alone,
/// as [`apply`].
pub fn apply_all(cmd: &RefCmd, pixels: &mut [Pixel], sca: u32) {
    use RefCmd::*;
    match *cmd {
        Gmax { dst, src, dlen, .. } | Gmin { dst, src, dlen, .. } => {
            let values = pixels
                .iter()
                .filter(|p| p.enable)
                .map(|p| p.field(src, dlen));
            let extreme = if matches!(cmd, Gmax { .. }) {
                values.max()
            } else {
                values.min()
            };
            for p in pixels.iter_mut() {
                let hit = p.enable && Some(p.field(src, dlen)) == extreme;
                if let (true, Some(v)) = (p.enable, extreme) {
                    p.set_field(dst, dlen, v);
                }
                p.carry = hit;
            }
        }
        _ => pixels.iter_mut().for_each(|p| apply(cmd, p, sca)),
    }
}

/// Execute `cmd` on one pixel, with the scalar (C register) `sca`.
///
/// Commands without a pixel effect (NOOP, NOOP2, FBITS, INDON, INDOFF) leave the pixel as it
/// is. Carry is set as described by [`carry_rule`]. A global command (GMAX, GMIN) acts as if
/// this pixel were the whole array (see [`apply_all`]). The Enable and Carry commands are
/// one line each here; each other section of the seed's command tables has its function
/// below (`compare`, `one_operand`, `two_operand`, `special`).
pub fn apply(cmd: &RefCmd, px: &mut Pixel, sca: u32) {
    use RefCmd::*;
    match *cmd {
        Gmax { .. } | Gmin { .. } => apply_all(cmd, std::slice::from_mut(px), sca),
        Noop | Noop2 | Fbits { .. } | IndOn | IndOff => {}

        // Enable-modify (III.4.2.5.1-2): all pixels.
        ClrEnabs => px.enable = false,
        SetEnabs => px.enable = true,
        EnabInv => px.enable = !px.enable,
        MemIntoEnab { src } => px.enable = px.mem[src],
        CryIntoEnab => px.enable = px.carry,
        EnabAndEqMem { src } => px.enable &= px.mem[src],
        EnabAndEqMemBar { src } => px.enable &= !px.mem[src],
        EnabOrEqMem { src } => px.enable |= px.mem[src],
        EnabXorEqMem { src } => px.enable ^= px.mem[src],
        EnabOrEqCry => px.enable |= px.carry,

        // Enable-store (III.4.2.5.1-3): regardless of Enable.
        EnabIntoMem { dst } => px.mem[dst] = px.enable,
        EnabIntoCry => px.carry = px.enable,
        MemOrEqEnab { dst } => px.mem[dst] |= px.enable,
        MemAndEqEnab { dst } => px.mem[dst] &= px.enable,

        // Carry (note 11: all pixels).
        ClrCry => px.carry = false,

        MemEqZero { .. }
        | MemEqSca { .. }
        | MemGeSca { .. }
        | MemGtSca { .. }
        | MemGeMem { .. }
        | MemEqOnes { .. }
        | MemNeZero { .. }
        | MemEqMem { .. }
        | MemNeMem { .. }
        | MemGtMem { .. }
        | Mem2GeMem2 { .. }
        | Mem2GtMem2 { .. } => compare(cmd, px, sca),

        Clear { .. }
        | Set { .. }
        | ScaIntoMem { .. }
        | Cpy { .. }
        | Invert { .. }
        | Inc { .. }
        | Dec { .. }
        | Negate { .. }
        | CryIntoMem { .. }
        | Swap { .. }
        | MemPlusEqSca { .. } => one_operand(cmd, px, sca),

        MemPlusMem { .. }
        | MemPlusEqMem { .. }
        | MemMinusMem { .. }
        | MemMinusEqMem { .. }
        | MemPlusMem2 { .. }
        | MemPlusEqMem2 { .. }
        | MemMinusMem2 { .. }
        | MemMinusEqMem2 { .. }
        | MemAndMem { .. }
        | MemAndEqMem { .. }
        | MemOrMem { .. }
        | MemOrEqMem { .. }
        | MemXorMem { .. }
        | MemXorEqMem { .. } => two_operand(cmd, px),

        MemCImpPlusEqMem { .. } | Mem2CImpPlusEqMem2 { .. } | Ovsix { .. } | TbEntry { .. } => {
            special(cmd, px, sca)
        }
    }
}

/// The compares into Enable: `enable &&= (...)`, unsigned (note 1) but for the `MEM2` forms
/// (note 2). Carry is the borrow, or what the standard microcode documents.
fn compare(cmd: &RefCmd, px: &mut Pixel, sca: u32) {
    use RefCmd::*;
    match *cmd {
        MemEqZero { src, slen } => px.enable &= px.field(src, slen) == 0,
        MemEqSca { src, slen } => px.enable &= px.field(src, slen) == sca_bits(sca, slen),
        MemGeSca { src, slen } => {
            let (m, s) = (px.field(src, slen), sca_bits(sca, slen));
            px.enable &= m >= s;
            px.carry = m < s; // the borrow of m - s
        }
        MemGtSca { src, slen } => {
            let (m, s) = (px.field(src, slen), sca_bits(sca, slen));
            px.enable &= m > s;
            px.carry = s < m; // the borrow of s - m
        }
        MemGeMem { lsrc, src, slen } => {
            let (l, s) = (px.field(lsrc, slen), px.field(src, slen));
            px.enable &= l >= s;
            px.carry = l < s; // the borrow of l - s
        }
        MemEqOnes { src, slen } => px.enable &= px.field(src, slen) == mask(slen),
        MemNeZero { src, slen } => {
            px.carry = px.enable; // documented: the routine keeps the old Enable in Carry
            px.enable &= px.field(src, slen) != 0;
        }
        MemEqMem { lsrc, src, slen } => px.enable &= px.field(lsrc, slen) == px.field(src, slen),
        MemNeMem { lsrc, src, slen } => {
            px.carry = px.enable; // documented, as MEMneZERO
            px.enable &= px.field(lsrc, slen) != px.field(src, slen);
        }
        MemGtMem { lsrc, src, slen } => {
            let (l, s) = (px.field(lsrc, slen), px.field(src, slen));
            px.carry = px.enable && l == s; // documented
            px.enable &= l > s;
        }
        Mem2GeMem2 { lsrc, src, slen } => {
            let (l, s) = (
                signed(px.field(lsrc, slen), slen),
                signed(px.field(src, slen), slen),
            );
            px.carry = l != s; // documented
            px.enable &= l >= s;
        }
        Mem2GtMem2 { lsrc, src, slen } => {
            let (l, s) = (
                signed(px.field(lsrc, slen), slen),
                signed(px.field(src, slen), slen),
            );
            px.carry = px.enable && l == s; // documented
            px.enable &= l > s;
        }
        _ => unreachable!("{} is not a compare", cmd.name()),
    }
}

/// The arithmetic and logical commands (III.4.2.5.1-4) of one memory operand, or none:
/// written only where Enable is set.
fn one_operand(cmd: &RefCmd, px: &mut Pixel, sca: u32) {
    use RefCmd::*;
    match *cmd {
        Clear { dst, dlen } => px.store(dst, dlen, 0),
        Set { dst, dlen } => px.store(dst, dlen, mask(dlen)),
        ScaIntoMem { dst, dlen } => px.store(dst, dlen, sca_bits(sca, dlen)),
        Cpy { dst, src, dlen } => {
            let v = px.field(src, dlen);
            px.store(dst, dlen, v);
        }
        Invert { dst, src, dlen } => {
            let v = !px.field(src, dlen) & mask(dlen);
            px.store(dst, dlen, v);
        }
        Inc { dst, src, dlen } => {
            let (v, c) = add(px.field(src, dlen), 1, dlen);
            px.store(dst, dlen, v);
            px.carry = c;
        }
        Dec { dst, src, dlen } => {
            let (v, borrow) = sub(px.field(src, dlen), 1, dlen);
            px.store(dst, dlen, v);
            px.carry = borrow;
        }
        Negate { dst, src, dlen } => {
            // -x = ~x + 1; the carry out of that addition is set only for x = 0.
            let x = px.field(src, dlen);
            let (v, c) = add(!x & mask(dlen), 1, dlen);
            px.store(dst, dlen, v);
            px.carry = c;
        }
        CryIntoMem { dst } => {
            if px.enable {
                px.mem[dst] = px.carry;
            }
        }
        Swap { dst, src, dlen } => {
            let (d, s) = (px.field(dst, dlen), px.field(src, dlen));
            px.carry = px.mem[dst + dlen - 1]; // documented: the old MSB of dst
            px.store(dst, dlen, s);
            px.store(src, dlen, d);
        }
        MemPlusEqSca { dst, src, dlen } => {
            let (v, c) = add(px.field(src, dlen), sca_bits(sca, dlen), dlen);
            px.store(dst, dlen, v);
            px.carry = c;
        }
        _ => unreachable!("{} is not a one-operand command", cmd.name()),
    }
}

/// The arithmetic and logical commands (III.4.2.5.1-4) `mem[dst:dlen] = mem[lsrc:dlen] OP
/// mem[src:slen]`, written only where Enable is set, with `dst` and `dlen` from
/// [`RefCmd::dest`]. Each `…eq…` twin is the same command with `lsrc = dst`: its pattern reads
/// the twin's `dst` as `lsrc` (`MemPlusEqMem { dst: lsrc, .. }`). The logical commands have no
/// `slen` (`src` is `dlen` bits too).
fn two_operand(cmd: &RefCmd, px: &mut Pixel) {
    use RefCmd::*;
    let (dst, dlen) = cmd
        .dest()
        .expect("a two-operand command writes mem[dst:dlen]");
    let v = match *cmd {
        MemPlusMem {
            lsrc, src, slen, ..
        }
        | MemPlusEqMem {
            dst: lsrc,
            src,
            slen,
            ..
        } => {
            let (v, c) = add(
                px.field(lsrc, dlen),
                zero_extended(px, src, slen, dlen),
                dlen,
            );
            px.carry = c;
            v
        }
        MemMinusMem {
            lsrc, src, slen, ..
        }
        | MemMinusEqMem {
            dst: lsrc,
            src,
            slen,
            ..
        } => {
            let (v, borrow) = sub(
                px.field(lsrc, dlen),
                zero_extended(px, src, slen, dlen),
                dlen,
            );
            px.carry = borrow;
            v
        }
        MemPlusMem2 {
            lsrc, src, slen, ..
        }
        | MemPlusEqMem2 {
            dst: lsrc,
            src,
            slen,
            ..
        } => {
            let (v, c) = add(
                px.field(lsrc, dlen),
                sign_extended(px, src, slen, dlen),
                dlen,
            );
            px.carry = c;
            v
        }
        MemMinusMem2 {
            lsrc, src, slen, ..
        }
        | MemMinusEqMem2 {
            dst: lsrc,
            src,
            slen,
            ..
        } => {
            let (v, borrow) = sub(
                px.field(lsrc, dlen),
                sign_extended(px, src, slen, dlen),
                dlen,
            );
            px.carry = borrow;
            v
        }
        MemAndMem { lsrc, src, .. } | MemAndEqMem { dst: lsrc, src, .. } => {
            px.field(lsrc, dlen) & px.field(src, dlen)
        }
        MemOrMem { lsrc, src, .. } | MemOrEqMem { dst: lsrc, src, .. } => {
            px.field(lsrc, dlen) | px.field(src, dlen)
        }
        MemXorMem { lsrc, src, .. } | MemXorEqMem { dst: lsrc, src, .. } => {
            px.field(lsrc, dlen) ^ px.field(src, dlen)
        }
        _ => unreachable!("{} is not a two-operand command", cmd.name()),
    };
    px.store(dst, dlen, v);
}

/// The special-purpose commands: the clamped adds (notes 15, 16), OVSIX and TBENTRY (note 13).
fn special(cmd: &RefCmd, px: &mut Pixel, sca: u32) {
    use RefCmd::*;
    match *cmd {
        MemCImpPlusEqMem { dst, src, dlen, .. } => {
            // Unsigned, clamped to all ones on overflow (notes 1, 15).
            let (v, overflow) = add(px.field(dst, dlen), px.field(src, dlen), dlen);
            px.store(dst, dlen, if overflow { mask(dlen) } else { v });
            px.carry = overflow;
        }
        Mem2CImpPlusEqMem2 { dst, src, dlen, .. } => {
            // Signed, clamped to the representable range (notes 2, 16).
            let (a, b) = (
                signed(px.field(dst, dlen), dlen),
                signed(px.field(src, dlen), dlen),
            );
            let (lo, hi) = signed_range(dlen);
            let (v, overflow) = match a.checked_add(b) {
                Some(s) if s > hi => (hi, true),
                Some(s) if s < lo => (lo, true),
                Some(s) => (s, false),
                None if a < 0 => (lo, true),
                None => (hi, true),
            };
            px.store(dst, dlen, v as u128 & mask(dlen));
            px.carry = overflow; // documented: the signed overflow
        }
        Ovsix { dst, dlen, .. } => {
            if px.carry {
                px.store(dst, dlen, mask(dlen));
            }
        }
        TbEntry {
            dst,
            src,
            dlen,
            slen,
        } => {
            let index = sca_bits(sca, slen);
            // The entry: scalar bits slen.., sign-extended past bit 31.
            let entry = ((sca as i32 as i128) >> slen.min(127)) as u128 & mask(dlen);
            let hit = px.field(src, slen) == index;
            if hit {
                px.store(dst, dlen, entry);
            }
            px.carry = hit; // documented: the match flag
        }
        _ => unreachable!("{} is not a special-purpose command", cmd.name()),
    }
}

/// `v`, a `len`-bit two's-complement value, as a signed integer.
pub fn signed(v: u128, len: usize) -> i128 {
    let v = v & mask(len);
    if len < MAX_LEN && (v >> (len - 1)) & 1 != 0 {
        (v | !mask(len)) as i128
    } else {
        v as i128
    }
}

/// The smallest and largest `len`-bit two's-complement values.
pub fn signed_range(len: usize) -> (i128, i128) {
    if len == MAX_LEN {
        (i128::MIN, i128::MAX)
    } else {
        (-(1i128 << (len - 1)), (1i128 << (len - 1)) - 1)
    }
}

/// `mem[src : slen]` sign-extended (or truncated) to `dlen` bits (seed note 8).
fn sign_extended(px: &Pixel, src: usize, slen: usize, dlen: usize) -> u128 {
    signed(px.field(src, slen), slen) as u128 & mask(dlen)
}

/// `mem[src : slen]` zero-extended (or truncated) to `dlen` bits (seed note 7).
fn zero_extended(px: &Pixel, src: usize, slen: usize, dlen: usize) -> u128 {
    px.field(src, slen) & mask(dlen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_bits_sign_extend_past_32() {
        assert_eq!(sca_bits(0xffff_fffd, 8), 0xfd);
        assert_eq!(sca_bits(0xffff_fffd, 32), 0xffff_fffd);
        assert_eq!(sca_bits(0xffff_fffd, 40), 0xff_ffff_fffd);
        assert_eq!(sca_bits(0xffff_fffd, 128), (-3i128) as u128);
        assert_eq!(sca_bits(0x7fff_ffff, 64), 0x7fff_ffff);
    }

    #[test]
    fn field_round_trip_and_add_sub() {
        let mut p = Pixel::default();
        p.set_field(80, 128, u128::MAX - 5);
        assert_eq!(p.field(80, 128), u128::MAX - 5);
        assert_eq!(p.field(79, 1), 0);
        assert_eq!(add(u128::MAX, 1, 128), (0, true));
        assert_eq!(add(0xff, 1, 8), (0, true));
        assert_eq!(add(0x7f, 1, 8), (0x80, false));
        assert_eq!(sub(0, 1, 8), (0xff, true));
        assert_eq!(sub(0, 1, 128), (u128::MAX, true));
    }

    #[test]
    fn worked_commands() {
        let mut p = Pixel {
            enable: true,
            ..Pixel::default()
        };
        p.set_field(0, 8, 100);
        p.set_field(8, 8, 155);
        apply(
            &RefCmd::MemPlusMem {
                dst: 16,
                lsrc: 0,
                src: 8,
                dlen: 8,
                slen: 8,
            },
            &mut p,
            0,
        );
        assert_eq!(p.field(16, 8), 255);
        // Zero extension of src (note 7): 100 + 0xff (slen 8) in 16 bits.
        p.set_field(40, 16, 100);
        p.set_field(60, 8, 0xff);
        apply(
            &RefCmd::MemPlusMem {
                dst: 16,
                lsrc: 40,
                src: 60,
                dlen: 16,
                slen: 8,
            },
            &mut p,
            0,
        );
        assert_eq!(p.field(16, 16), 355);
        assert!(!p.carry);
        // A disabled pixel is not written but its Enable-store is.
        p.enable = false;
        apply(&RefCmd::Set { dst: 0, dlen: 8 }, &mut p, 0);
        assert_eq!(p.field(0, 8), 100);
        apply(&RefCmd::EnabIntoMem { dst: 0 }, &mut p, 0);
        assert_eq!(p.field(0, 8), 100 & !1);
        // Unsigned compare against sca[slen]: -1 in 8 bits is 255.
        p.enable = true;
        apply(&RefCmd::MemGeSca { src: 16, slen: 8 }, &mut p, u32::MAX);
        assert!(!p.enable);
    }

    #[test]
    fn signed_values_and_ranges() {
        assert_eq!(signed(0xff, 8), -1);
        assert_eq!(signed(0x7f, 8), 127);
        assert_eq!(signed(0x80, 8), -128);
        assert_eq!(signed(1, 1), -1);
        assert_eq!(signed(u128::MAX, 128), -1);
        assert_eq!(signed_range(1), (-1, 0));
        assert_eq!(signed_range(8), (-128, 127));
        assert_eq!(signed_range(128), (i128::MIN, i128::MAX));
    }

    #[test]
    fn worked_issue_4_commands() {
        let mut p = Pixel {
            enable: true,
            ..Pixel::default()
        };
        // Signed compares (note 2): -1 < 1, though 0xff > 1 unsigned.
        p.set_field(0, 8, 0xff);
        p.set_field(8, 8, 1);
        let ge2 = RefCmd::Mem2GeMem2 {
            lsrc: 0,
            src: 8,
            slen: 8,
        };
        apply(&ge2, &mut p, 0);
        assert!(!p.enable && p.carry, "carry = lsrc != src");
        p.enable = true;
        apply(
            &RefCmd::MemGtMem {
                lsrc: 0,
                src: 8,
                slen: 8,
            },
            &mut p,
            0,
        );
        assert!(p.enable && !p.carry, "carry = old Enable & equal");
        // Sign extension of src (note 8): 0x10 + (-1 in 4 bits) = 0x0f in 8 bits.
        p.set_field(16, 8, 0x10);
        p.set_field(24, 4, 0xf);
        apply(
            &RefCmd::MemPlusEqMem2 {
                dst: 16,
                src: 24,
                dlen: 8,
                slen: 4,
            },
            &mut p,
            0,
        );
        assert_eq!(p.field(16, 8), 0x0f);
        // Saturating adds (notes 15, 16).
        p.set_field(32, 8, 200);
        p.set_field(40, 8, 100);
        let cimp = RefCmd::MemCImpPlusEqMem {
            dst: 32,
            src: 40,
            dlen: 8,
            tmp: 100,
        };
        apply(&cimp, &mut p, 0);
        assert_eq!((p.field(32, 8), p.carry), (255, true));
        p.set_field(32, 8, 100);
        let cimp2 = RefCmd::Mem2CImpPlusEqMem2 {
            dst: 32,
            src: 40,
            dlen: 8,
            tmp: 100,
        };
        apply(&cimp2, &mut p, 0);
        assert_eq!((p.field(32, 8), p.carry), (127, true));
        p.set_field(32, 8, 0x9c); // -100
        p.set_field(40, 8, 0x9c);
        apply(&cimp2, &mut p, 0);
        assert_eq!(p.field(32, 8), 0x80);
        // TBENTRY (note 13): index = 3 LSBs of the scalar, entry = the next 5 bits.
        p.set_field(50, 3, 0b101);
        let tb = RefCmd::TbEntry {
            dst: 60,
            src: 50,
            dlen: 5,
            slen: 3,
        };
        apply(&tb, &mut p, 0b10110 << 3 | 0b101);
        assert_eq!((p.field(60, 5), p.carry), (0b10110, true));
        apply(&tb, &mut p, 0b00001 << 3 | 0b100);
        assert_eq!((p.field(60, 5), p.carry), (0b10110, false));
        // SWAP.
        p.set_field(70, 4, 0xa);
        p.set_field(74, 4, 0x3);
        apply(
            &RefCmd::Swap {
                dst: 70,
                src: 74,
                dlen: 4,
            },
            &mut p,
            0,
        );
        assert_eq!((p.field(70, 4), p.field(74, 4), p.carry), (0x3, 0xa, true));
    }

    #[test]
    fn gmax_and_gmin_over_the_enabled_pixels() {
        let mut px: Vec<Pixel> = [(5u128, true), (9, false), (7, true), (2, true), (0, false)]
            .iter()
            .map(|&(v, e)| {
                let mut p = Pixel {
                    enable: e,
                    ..Pixel::default()
                };
                p.set_field(0, 8, v);
                p.set_field(8, 8, 0x55);
                p
            })
            .collect();
        let cmd = |max| {
            let (dst, src, dlen, tmp) = (8, 0, 8, 200);
            if max {
                RefCmd::Gmax {
                    dst,
                    src,
                    dlen,
                    tmp,
                }
            } else {
                RefCmd::Gmin {
                    dst,
                    src,
                    dlen,
                    tmp,
                }
            }
        };
        apply_all(&cmd(true), &mut px, 0);
        let got: Vec<(u128, bool)> = px.iter().map(|p| (p.field(8, 8), p.carry)).collect();
        assert_eq!(
            got,
            [
                (7, false),
                (0x55, false),
                (7, true),
                (7, false),
                (0x55, false)
            ]
        );
        apply_all(&cmd(false), &mut px, 0);
        assert_eq!(px[3].field(8, 8), 2);
        assert!(px[3].carry && !px[0].carry);
        // No Enabled pixel: nothing written, Carry cleared.
        px.iter_mut().for_each(|p| p.enable = false);
        apply_all(&cmd(true), &mut px, 0);
        assert!(px.iter().all(|p| p.field(8, 8) != 9 && !p.carry));
        assert_eq!(px[1].field(8, 8), 0x55);
    }
}
