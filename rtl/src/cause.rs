//! Why a block spent a cycle the way it did: the board-wide [`Cause`] the IGC and the BS
//! port report each cycle, which the simulator counts for its timing reports.

use crate::trace::WaveEnum;

/// Why a block spent a cycle the way it did (the IGC's and the BS port's; for timing reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, WaveEnum)]
pub enum Cause {
    /// Doing its work.
    #[wave(name = "executing")]
    Executing,
    /// Waiting for a semaphore P.
    #[wave(name = "semaphore_wait")]
    SemWait,
    /// Waiting for the next word of a command (RxFIFO empty in the middle of a command).
    #[wave(name = "fifo_empty")]
    FifoEmpty,
    /// Waiting for a backing-store transfer (BSWAIT, or BSLOAD/BSSTORE behind another).
    #[wave(name = "transfer_stall")]
    XferStall,
    /// A message waits for TxReady (or, on the IGC port, for the previous message).
    #[wave(name = "tx_hold")]
    TxHold,
    /// Nothing to do: between commands with an empty FIFO.
    #[wave(name = "idle")]
    Idle,
    /// Stuck (HANG, a fault).
    #[wave(name = "hung")]
    Hung,
}

impl Cause {
    /// All causes, in report order.
    pub const ALL: [Cause; 7] = [
        Cause::Executing,
        Cause::SemWait,
        Cause::FifoEmpty,
        Cause::XferStall,
        Cause::TxHold,
        Cause::Idle,
        Cause::Hung,
    ];

    /// Name used in reports.
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }
}
