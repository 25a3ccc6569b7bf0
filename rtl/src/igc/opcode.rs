//! The IGC opcode word and supplementary (P) word as the hardware decodes them.
//!
//! Seed 003 §III.4.2.1-III.4.2.2 fixes bit 31 (P word follows), bits 21:20 (CoefMode) and bits
//! 19:18 (QEEMode). The remaining bits are ours (the seed leaves them to `asmpp5`); the layout
//! is documented in docs/encodings.md:
//!
//! ```text
//! opcode word                                   P word
//!  31   30..23  22    21:20    19:18  17..8 7..0   31..24 23..16 15..8 7..0
//!  P    FBITS   FBLD  CoefMode QEEMode F0   CMD    F4     F3     F2    F1
//! ```
//!
//! `CMD` indexes the IGC's dispatch RAM (a writable part of the microcode store), which holds
//! the microcode entry address of the command's routine. `F0`..`F4` are the operand fields
//! (pixel-memory addresses, lengths, counts), latched into operand registers OPR0..OPR4 when
//! the command is dispatched. `FBLD` = 1 loads the FBITS register from bits 30:23 with the
//! command (this is how `FBITS(N)` works, and how any non-QEE command may change FBITS, as the
//! seed allows). CMD values from [`HARDWIRED_BASE`] up are decoded by IGC control logic, not
//! microcode (they must work with an empty store): for them bits 30:22 and 17:8 form one
//! 19-bit address field.

/// Bit 31 of the opcode word: a supplementary opcode (P word) follows.
pub const LONG_BIT: u32 = 1 << 31;
/// Shift of the CoefMode field (bits 21:20).
pub const COEFMODE_SHIFT: u32 = 20;
/// Shift of the QEEMode field (bits 19:18).
pub const QEEMODE_SHIFT: u32 = 18;
/// Shift of the FBITS field (bits 30:23) used with [`FBLD_BIT`].
pub const FBITS_SHIFT: u32 = 23;
/// Bit 22: load the FBITS register from bits 30:23.
pub const FBLD_BIT: u32 = 1 << 22;
/// Shift of operand field F0 (bits 17:8, 10 bits).
pub const F0_SHIFT: u32 = 8;
/// Mask of operand field F0 after shifting.
pub const F0_MASK: u32 = 0x3ff;
/// Largest legal FBITS value (seed 003 §III.4.2.5.1-1: "variable between 0 and 30").
pub const FBITS_MAX: u32 = 30;

/// First CMD value decoded by hardwired IGC control logic.
pub const HARDWIRED_BASE: u8 = 0xF8;
/// CMD of RMODEON (hardwired).
pub const CMD_RMODEON: u8 = 0xF8;
/// CMD of RMODEOFF (hardwired).
pub const CMD_RMODEOFF: u8 = 0xF9;
/// CMD of MCWRITE (hardwired): writes the C word (`sca[32]`) at the address field.
pub const CMD_MCWRITE: u8 = 0xFA;
/// CMD of MCREAD (hardwired): sets the microprogram counter.
pub const CMD_MCREAD: u8 = 0xFB;
/// CMD of NOOP. Outside RMode it dispatches to the microcode's NOOP routine like any command;
/// in RMode the IGC control logic accepts it without microcode (seed 003 §III.4.2.5.3).
pub const CMD_NOOP: u8 = 0x00;
/// CMD of FBITS. Outside RMode it runs microcode (FBITS is loaded from the opcode's FBITS
/// field at dispatch); in RMode it loads FBITS and leaves RMode.
pub const CMD_FBITS: u8 = 0x01;

/// The parser's view of an opcode word: which words follow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeWord(pub u32);

impl OpcodeWord {
    /// A P word follows.
    pub fn long(self) -> bool {
        self.0 & LONG_BIT != 0
    }
    /// CoefMode (bits 21:20): 0 none, 1 C, 2 A,B,C, 3 all six (or the lookup table).
    pub fn coef_mode(self) -> u32 {
        (self.0 >> COEFMODE_SHIFT) & 3
    }
    /// QEEMode (bits 19:18): 0 unused, 1 constant, 2 linear, 3 quadratic.
    pub fn qee_mode(self) -> u32 {
        (self.0 >> QEEMODE_SHIFT) & 3
    }
    /// Lookup-table mode: CoefMode = 11 and QEEMode = 0x (bit 19 clear).
    pub fn table_mode(self) -> bool {
        self.coef_mode() == 3 && self.0 & (1 << 19) == 0
    }
    /// Number of coefficient words following (opcode and P word excluded); `None` in
    /// lookup-table mode, where C words follow until one has bit 31 set.
    pub fn coef_words(self) -> Option<usize> {
        match self.coef_mode() {
            0 => Some(0),
            1 => Some(1),
            2 => Some(3),
            _ if self.table_mode() => None,
            _ => Some(6),
        }
    }
    /// The dispatch index.
    pub fn cmd(self) -> u8 {
        self.0 as u8
    }
    /// Operand field F0.
    pub fn f0(self) -> u32 {
        (self.0 >> F0_SHIFT) & F0_MASK
    }
    /// FBLD: this command loads FBITS.
    pub fn fbits_load(self) -> bool {
        self.0 & FBLD_BIT != 0
    }
    /// The FBITS field (bits 30:23).
    pub fn fbits(self) -> u32 {
        (self.0 >> FBITS_SHIFT) & 0xff
    }
    /// Hardwired commands' 19-bit address field: bits 17:8 low, bits 30:22 high.
    pub fn hardwired_addr(self) -> u32 {
        self.f0() | (((self.0 >> 22) & 0x1ff) << 10)
    }
}

/// Split a P word into operand fields F1..F4.
pub fn p_fields(p: u32) -> [u32; 4] {
    [p & 0xff, (p >> 8) & 0xff, (p >> 16) & 0xff, p >> 24]
}

/// Build the address bits of a hardwired command (inverse of [`OpcodeWord::hardwired_addr`]).
pub fn hardwired_addr_bits(addr: u32) -> u32 {
    ((addr & F0_MASK) << F0_SHIFT) | (((addr >> 10) & 0x1ff) << 22)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficient_words_follow_the_seed_table() {
        let w = |long: bool, c: u32, b19: bool| {
            OpcodeWord((long as u32) << 31 | c << 20 | (b19 as u32) << 19)
        };
        assert_eq!(w(false, 0, false).coef_words(), Some(0));
        assert_eq!(w(true, 1, true).coef_words(), Some(1));
        assert_eq!(w(false, 2, false).coef_words(), Some(3));
        assert_eq!(w(false, 3, true).coef_words(), Some(6));
        assert_eq!(w(true, 3, false).coef_words(), None);
        assert!(w(true, 3, false).long());
    }

    #[test]
    fn hardwired_address_round_trips() {
        for a in [0u32, 1, 0x3ff, 0x400, 0x2100, 0x7ffff] {
            let op = OpcodeWord(hardwired_addr_bits(a) | CMD_MCWRITE as u32);
            assert_eq!(op.hardwired_addr(), a);
            assert_eq!(op.cmd(), CMD_MCWRITE);
        }
    }
}
