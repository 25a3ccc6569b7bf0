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
        }
    }

    /// The arguments in the seed's order (the order of the command-stream text form).
    pub fn args(&self) -> Vec<usize> {
        use RefCmd::*;
        match *self {
            Noop | Noop2 | ClrEnabs | SetEnabs | EnabInv | EnabIntoCry | CryIntoEnab | ClrCry
            | IndOn | IndOff => vec![],
            Fbits { n } => vec![n],
            MemIntoEnab { src } => vec![src],
            EnabIntoMem { dst } | CryIntoMem { dst } => vec![dst],
            Clear { dst, dlen } | Set { dst, dlen } | ScaIntoMem { dst, dlen } => vec![dst, dlen],
            Cpy { dst, src, dlen }
            | Invert { dst, src, dlen }
            | Inc { dst, src, dlen }
            | Dec { dst, src, dlen }
            | Negate { dst, src, dlen } => vec![dst, src, dlen],
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
            MemEqZero { src, slen }
            | MemEqSca { src, slen }
            | MemGeSca { src, slen }
            | MemGtSca { src, slen } => vec![src, slen],
            MemGeMem { lsrc, src, slen } => vec![lsrc, src, slen],
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
            MemGeMem { lsrc, src, slen } => vec![(lsrc, slen), (src, slen)],
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
            _ => None,
        }
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
        | MemGeMem { .. } => CarryRule::CarryOut,
        _ => CarryRule::Kept,
    }
}

/// Execute `cmd` on one pixel, with the scalar (C register) `sca`.
///
/// Commands without a pixel effect (NOOP, NOOP2, FBITS, INDON, INDOFF) leave the pixel as it
/// is. Carry is set as described by [`carry_rule`].
pub fn apply(cmd: &RefCmd, px: &mut Pixel, sca: u32) {
    use RefCmd::*;
    match *cmd {
        Noop | Noop2 | Fbits { .. } | IndOn | IndOff => {}

        // Enable-modify (III.4.2.5.1-2): all pixels.
        ClrEnabs => px.enable = false,
        SetEnabs => px.enable = true,
        EnabInv => px.enable = !px.enable,
        MemIntoEnab { src } => px.enable = px.mem[src],
        CryIntoEnab => px.enable = px.carry,

        // Enable-store (III.4.2.5.1-3): regardless of Enable.
        EnabIntoMem { dst } => px.mem[dst] = px.enable,
        EnabIntoCry => px.carry = px.enable,

        // Carry (note 11: all pixels).
        ClrCry => px.carry = false,

        // Arithmetic and logical (III.4.2.5.1-4): written only where Enable is set.
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
        MemPlusMem {
            dst,
            lsrc,
            src,
            dlen,
            slen,
        } => {
            let (v, c) = add(
                px.field(lsrc, dlen),
                zero_extended(px, src, slen, dlen),
                dlen,
            );
            px.store(dst, dlen, v);
            px.carry = c;
        }
        MemMinusMem {
            dst,
            lsrc,
            src,
            dlen,
            slen,
        } => {
            let (v, borrow) = sub(
                px.field(lsrc, dlen),
                zero_extended(px, src, slen, dlen),
                dlen,
            );
            px.store(dst, dlen, v);
            px.carry = borrow;
        }
        MemPlusEqMem {
            dst,
            src,
            dlen,
            slen,
        } => {
            let (v, c) = add(
                px.field(dst, dlen),
                zero_extended(px, src, slen, dlen),
                dlen,
            );
            px.store(dst, dlen, v);
            px.carry = c;
        }
        CryIntoMem { dst } => {
            if px.enable {
                px.mem[dst] = px.carry;
            }
        }

        // Compares into Enable: enable &&= (...), unsigned (note 1).
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
    }
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
}
