//! Why a block spent a cycle the way it did: the board-wide [`Cause`] the IGC and the BS
//! port report each cycle, which the simulator counts for its timing reports.

/// Why a block spent a cycle the way it did (the IGC's and the BS port's; for timing reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cause {
    /// Doing its work.
    Executing,
    /// Waiting for a semaphore P.
    SemWait,
    /// Waiting for the next word of a command (RxFIFO empty in the middle of a command).
    FifoEmpty,
    /// Waiting for a backing-store transfer (BSWAIT, or BSLOAD/BSSTORE behind another).
    XferStall,
    /// A message waits for TxReady (or, on the IGC port, for the previous message).
    TxHold,
    /// Nothing to do: between commands with an empty FIFO.
    Idle,
    /// Stuck (HANG, a fault).
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
        match self {
            Cause::Executing => "executing",
            Cause::SemWait => "semaphore_wait",
            Cause::FifoEmpty => "fifo_empty",
            Cause::XferStall => "transfer_stall",
            Cause::TxHold => "tx_hold",
            Cause::Idle => "idle",
            Cause::Hung => "hung",
        }
    }
}
