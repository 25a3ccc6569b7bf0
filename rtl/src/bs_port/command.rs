//! The BS port command encoding (a model choice: seed 003 §III.4.1-2 gives the commands and
//! their sizes in words, not their bits).
//!
//! ```text
//! first word of a command
//!  31..29  28..22          21..15    14..8   7..4  3..0
//!  node    no_scanlines-1  scanline  sector  0     opcode      (RECEIVE, TRANSMIT)
//!  node    0 ...                                   opcode      (the others)
//! ```
//!
//! | command       | opcode | words                                   |
//! |---------------|--------|-----------------------------------------|
//! | BS_NOOP       | 0      | 1                                       |
//! | BS_SENDSTATUS | 1      | 3: opcode, id, retaddr                  |
//! | BS_RECEIVE    | 2      | 1 + 128 × no_scanlines: opcode, data    |
//! | BS_TRANSMIT   | 3      | 2: opcode, retaddr                      |
//! | BS_PBS        | 4      | 1                                       |
//! | BS_VIGC       | 5      | 1                                       |
//!
//! Bits 31:29 are where a message's first word carries the Ring node address: the seed treats
//! the destination word as the first opcode "since the bits of the opcode corresponding to the
//! node address are not used", so the decoder ignores them in every command word.
//! Opcodes 6..15, or any nonzero bit outside the fields a command uses (bits 31:29 aside),
//! make a bogus command (status bit 28).

/// The node-address bits of a command word (31:29), ignored by the decoder.
pub const NODE_MASK: u32 = 0xe000_0000;
/// Opcode field mask (bits 3:0).
pub const OPCODE_MASK: u32 = 0xf;
/// BS_NOOP opcode.
pub const OP_NOOP: u32 = 0;
/// BS_SENDSTATUS opcode.
pub const OP_SENDSTATUS: u32 = 1;
/// BS_RECEIVE opcode.
pub const OP_RECEIVE: u32 = 2;
/// BS_TRANSMIT opcode.
pub const OP_TRANSMIT: u32 = 3;
/// BS_PBS opcode.
pub const OP_PBS: u32 = 4;
/// BS_VIGC opcode.
pub const OP_VIGC: u32 = 5;
/// Shift of the sector field (bits 14:8, 0..=127).
pub const SECTOR_SHIFT: u32 = 8;
/// Shift of the scanline field (bits 21:15, 0..=127).
pub const SCANLINE_SHIFT: u32 = 15;
/// Shift of the no_scanlines-1 field (bits 28:22).
pub const NSCAN_SHIFT: u32 = 22;
/// Mask of the sector, scanline and no_scanlines-1 fields after shifting.
pub const FIELD_MASK: u32 = 0x7f;
/// Sectors of backing store (seed: "range 0 to 127").
pub const SECTORS: u32 = 128;
/// Scanlines per sector, and words per scanline segment.
pub const SCANLINE_WORDS: usize = 128;
/// Largest no_scanlines (an entire sector).
pub const MAX_SCANLINES: u32 = 128;

/// The names of the BS macros, in opcode order.
pub const NAMES: [&str; 6] = [
    "BS_NOOP",
    "BS_SENDSTATUS",
    "BS_RECEIVE",
    "BS_TRANSMIT",
    "BS_PBS",
    "BS_VIGC",
];

/// First word of BS_RECEIVE or BS_TRANSMIT. Arguments must be in range (see
/// [`check_region`]).
pub fn region_word(op: u32, sector: u32, scanline: u32, no_scanlines: u32) -> u32 {
    op | (sector & FIELD_MASK) << SECTOR_SHIFT
        | (scanline & FIELD_MASK) << SCANLINE_SHIFT
        | (no_scanlines.wrapping_sub(1) & FIELD_MASK) << NSCAN_SHIFT
}

/// Check sector (0..=127), scanline (0..=127) and no_scanlines (1..=128).
pub fn check_region(
    name: &str,
    sector: u32,
    scanline: u32,
    no_scanlines: u32,
) -> Result<(), String> {
    if sector >= SECTORS {
        return Err(format!("{name}: sector {sector} is out of range 0..=127"));
    }
    if scanline >= SECTORS {
        return Err(format!(
            "{name}: scanline {scanline} is out of range 0..=127"
        ));
    }
    if no_scanlines == 0 || no_scanlines > MAX_SCANLINES {
        return Err(format!(
            "{name}: no_scanlines {no_scanlines} is out of range 1..=128"
        ));
    }
    Ok(())
}

/// A decoded BS command head: what the first word says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head {
    /// BS_NOOP.
    Noop,
    /// BS_SENDSTATUS (id and retaddr follow).
    SendStatus,
    /// BS_RECEIVE (128 × no_scanlines data words follow).
    Receive {
        /// Sector 0..=127.
        sector: u32,
        /// First scanline 0..=127.
        scanline: u32,
        /// 1..=128.
        no_scanlines: u32,
    },
    /// BS_TRANSMIT (retaddr follows).
    Transmit {
        /// Sector 0..=127.
        sector: u32,
        /// First scanline 0..=127.
        scanline: u32,
        /// 1..=128.
        no_scanlines: u32,
    },
    /// BS_PBS.
    Pbs,
    /// BS_VIGC.
    Vigc,
}

impl Head {
    /// Decode a first word; `None` for a bogus command.
    pub fn decode(w: u32) -> Option<Head> {
        let w = w & !NODE_MASK;
        let op = w & OPCODE_MASK;
        let sector = (w >> SECTOR_SHIFT) & FIELD_MASK;
        let scanline = (w >> SCANLINE_SHIFT) & FIELD_MASK;
        let no_scanlines = ((w >> NSCAN_SHIFT) & FIELD_MASK) + 1;
        let region_only = w == region_word(op, sector, scanline, no_scanlines);
        Some(match op {
            OP_NOOP if w == op => Head::Noop,
            OP_SENDSTATUS if w == op => Head::SendStatus,
            OP_PBS if w == op => Head::Pbs,
            OP_VIGC if w == op => Head::Vigc,
            OP_RECEIVE if region_only => Head::Receive {
                sector,
                scanline,
                no_scanlines,
            },
            OP_TRANSMIT if region_only => Head::Transmit {
                sector,
                scanline,
                no_scanlines,
            },
            _ => return None,
        })
    }

    /// Words after the first word.
    pub fn arg_words(self) -> usize {
        match self {
            Head::Noop | Head::Pbs | Head::Vigc => 0,
            Head::SendStatus => 2,
            Head::Transmit { .. } => 1,
            Head::Receive { no_scanlines, .. } => SCANLINE_WORDS * no_scanlines as usize,
        }
    }

    /// The macro name.
    pub fn name(self) -> &'static str {
        match self {
            Head::Noop => NAMES[0],
            Head::SendStatus => NAMES[1],
            Head::Receive { .. } => NAMES[2],
            Head::Transmit { .. } => NAMES[3],
            Head::Pbs => NAMES[4],
            Head::Vigc => NAMES[5],
        }
    }
}
