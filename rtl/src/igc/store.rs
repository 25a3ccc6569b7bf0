//! The IGC's writable microcode store: the control store and the dispatch RAM.
//!
//! Loaded only through the command stream (MCWRITE writes `sca[32]` at an address; seed 003
//! §III.4.2.5.3). The store starts empty (all zero) at power-up. Address map (our choice,
//! docs/microcode.md "Store map"):
//!
//! - words `0 .. CONTROL_STORE_WORDS`: microinstruction `p` occupies words `4p .. 4p+3`;
//! - words `DISPATCH_BASE .. DISPATCH_BASE + 256`: the dispatch RAM, one word per CMD value:
//!   bit 31 = valid, bits 10:0 = the entry address of the command's routine;
//! - words `FC_CONST_BASE .. + 32`: the flow-control unit's 32 loop constants
//!   (docs/flow-control.md), `FC_BOOL_WORD`: its 32 boolean constants (bit k = constant k),
//!   `FC_CTRL_WORD`: its control register (bit 0 = full flow-control mode).

use super::microinstruction::{decode, Illegal, Microinstruction, WORDS_PER_UINST};

/// Microinstructions in the control store (the TARGET field is 11 bits).
pub const CONTROL_STORE_UINSTS: usize = 2048;

/// A microinstruction address as every message, the listing (`pp5 asm --listing`'s `uinst`
/// column), the profile and the `.gtkw`'s PC show it: hexadecimal, three digits (`0x0e9`).
pub fn pc_text(pc: impl Into<u32>) -> String {
    format!("0x{:03x}", pc.into())
}
/// 32-bit words of the control store.
pub const CONTROL_STORE_WORDS: usize = CONTROL_STORE_UINSTS * WORDS_PER_UINST;
/// First word of the dispatch RAM.
pub const DISPATCH_BASE: usize = CONTROL_STORE_WORDS;
/// Entries of the dispatch RAM (one per CMD value).
pub const DISPATCH_ENTRIES: usize = 256;
/// First of the 32 flow-control loop constants.
pub const FC_CONST_BASE: usize = DISPATCH_BASE + DISPATCH_ENTRIES;
/// Number of loop constants (FC_CONST is 5 bits).
pub const FC_CONSTS: usize = 32;
/// The 32 flow-control boolean constants.
pub const FC_BOOL_WORD: usize = FC_CONST_BASE + FC_CONSTS;
/// The flow-control control register: bit 0 = full mode (0 = partial, as after reset).
pub const FC_CTRL_WORD: usize = FC_BOOL_WORD + 1;
/// Total MCWRITE address space.
pub const STORE_WORDS: usize = FC_CTRL_WORD + 1;
/// Valid bit of a dispatch-RAM entry.
pub const DISPATCH_VALID: u32 = 1 << 31;
/// Mask of the entry address in a dispatch-RAM entry.
pub const DISPATCH_ADDR_MASK: u32 = (CONTROL_STORE_UINSTS - 1) as u32;

/// The microcode store with a decoded copy of every microinstruction (updated on write).
#[derive(Clone)]
pub struct McStore {
    words: Vec<u32>,
    decoded: Vec<Result<Microinstruction, Illegal>>,
    /// Per microinstruction: an MCWRITE set one of its words since power-up (a simulator
    /// aid, not a hardware register: the IGC reports going on to one that none set,
    /// [`super::IgcEvent::Unwritten`]).
    written: Vec<bool>,
    /// Number of MCWRITEs since reset (for reports).
    pub writes: u64,
}

impl Default for McStore {
    fn default() -> Self {
        Self::new()
    }
}

impl McStore {
    /// An empty store.
    pub fn new() -> Self {
        McStore {
            words: vec![0; STORE_WORDS],
            decoded: vec![Ok(Microinstruction::default()); CONTROL_STORE_UINSTS],
            written: vec![false; CONTROL_STORE_UINSTS],
            writes: 0,
        }
    }

    /// A store with no words at all, allocating nothing: only a placeholder while a store
    /// is moved (a Ring reset), never stepped.
    pub fn empty() -> Self {
        McStore {
            words: Vec::new(),
            decoded: Vec::new(),
            written: Vec::new(),
            writes: 0,
        }
    }

    /// Write one word (MCWRITE). Out-of-range addresses are refused.
    pub fn write(&mut self, addr: u32, value: u32) -> Result<(), String> {
        let a = addr as usize;
        if a >= STORE_WORDS {
            return Err(format!(
                "MCWRITE address {addr:#x} is outside the microcode store (0..{STORE_WORDS:#x})"
            ));
        }
        self.words[a] = value;
        self.writes += 1;
        if a < CONTROL_STORE_WORDS {
            let p = a / WORDS_PER_UINST;
            let w: [u32; 4] = std::array::from_fn(|k| self.words[p * WORDS_PER_UINST + k]);
            self.decoded[p] = decode(&w);
            self.written[p] = true;
        }
        Ok(())
    }

    /// Whether an MCWRITE set a word of the microinstruction at `pc` (wrapped into the
    /// store) since power-up.
    #[inline]
    pub fn written(&self, pc: u16) -> bool {
        self.written
            .get(pc as usize % CONTROL_STORE_UINSTS)
            .copied()
            .unwrap_or(false)
    }

    /// Read one word.
    pub fn read(&self, addr: u32) -> Option<u32> {
        self.words.get(addr as usize).copied()
    }

    /// The decoded microinstruction at `pc` (wrapped into the store).
    #[inline]
    pub fn uinst(&self, pc: u16) -> &Result<Microinstruction, Illegal> {
        &self.decoded[pc as usize % CONTROL_STORE_UINSTS]
    }

    /// The raw words of the microinstruction at `pc`.
    #[inline]
    pub fn uinst_words(&self, pc: u16) -> [u32; 4] {
        let p = pc as usize % CONTROL_STORE_UINSTS;
        std::array::from_fn(|k| self.words[p * WORDS_PER_UINST + k])
    }

    /// The dispatch-RAM entry address for `cmd`, if valid.
    pub fn entry(&self, cmd: u8) -> Option<u16> {
        let e = self.words[DISPATCH_BASE + cmd as usize];
        (e & DISPATCH_VALID != 0).then_some((e & DISPATCH_ADDR_MASK) as u16)
    }
}
