//! The Renderer status word and the front-panel LEDs (seed 003 §III.4.1-5).

/// Status bit: the four "inverses of AEO" stripe signals occupy bits 0-3.
pub const ST_AEO_STRIPES: u32 = 0;
/// Status bit 4 (sticky error, our extension: reserved in the seed's table): the
/// flow-control unit met a condition the hardware leaves undefined (stack overflow or
/// underflow, branch-counter overflow; docs/flow-control.md).
pub const ST_FC_ERROR: u32 = 4;
/// Status bit 6: TxReady asserted on the BS port.
pub const ST_TXREADY_BS: u32 = 6;
/// Status bit 7: TxReady asserted on the IGC port.
pub const ST_TXREADY_IGC: u32 = 7;
/// Status bits 8-15: the BS semaphore counter.
pub const ST_BS_SEM: u32 = 8;
/// Status bits 16-23: the IGC semaphore counter.
pub const ST_IGC_SEM: u32 = 16;
/// Status bit 24 (sticky error): BS semaphore overflowed.
pub const ST_BS_SEM_OVF: u32 = 24;
/// Status bit 25 (sticky error): IGC semaphore overflowed.
pub const ST_IGC_SEM_OVF: u32 = 25;
/// Status bit 26 (sticky error): BS RxFIFO was overwritten.
pub const ST_BS_RXFIFO_OVW: u32 = 26;
/// Status bit 27 (sticky error): IGC RxFIFO was overwritten.
pub const ST_IGC_RXFIFO_OVW: u32 = 27;
/// Status bit 28 (sticky error): formatting error or bogus command in the BS stream.
pub const ST_BS_FORMAT: u32 = 28;
/// Status bit 29 (sticky error): formatting error in the IGC command stream.
pub const ST_IGC_FORMAT: u32 = 29;
/// Status bit 30 (sticky error): IGC timeout.
pub const ST_IGC_TIMEOUT: u32 = 30;
/// Status bit 31: the IGC "indicator" signal.
pub const ST_INDICATOR: u32 = 31;

/// Mask of the sticky error bits: 24-30, and 4 (flow control).
pub const ERROR_MASK: u32 = 0x7f << 24 | 1 << ST_FC_ERROR;

/// The bits of the status word the BS port reports: the seed marks 24-31 "available only in
/// the status message transmitted from the IGC Port"; our flow-control bit 4 is the IGC's too.
pub const BS_STATUS_MASK: u32 = 0x00ff_ffff & !(1 << ST_FC_ERROR);

/// IGC timeout in 20 MHz cycles (seed §III.4.1-5: "64K 20 MHz cycles without a new cmd").
pub const IGC_TIMEOUT_RING_CYCLES: u64 = 65_536;

/// Name of a status bit, for reports.
pub fn bit_name(bit: u32) -> &'static str {
    match bit {
        0..=3 => "AEO stripe (inverted)",
        4 => "flow-control error (model extension)",
        6 => "TxReady BS",
        7 => "TxReady IGC",
        8..=15 => "BS semaphore",
        16..=23 => "IGC semaphore",
        24 => "BS semaphore overflow",
        25 => "IGC semaphore overflow",
        26 => "BS RxFIFO overwritten",
        27 => "IGC RxFIFO overwritten",
        28 => "BS formatting error / bogus command",
        29 => "IGC formatting error",
        30 => "IGC timeout",
        31 => "IGC indicator",
        _ => "reserved",
    }
}

/// The board ID blown into a PAL (seed §III.4.1-5); the low byte of IGC message IDs.
/// A parameter of the board; this is its default.
pub const DEFAULT_BOARD_ID: u8 = 0x05;
