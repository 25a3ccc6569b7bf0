//! The exit codes of `pp5` (for scripts; docs/user-guide.md), and how the end of a run maps
//! onto them.

use crate::engine::StopReason;
use pp5_rtl::status::ERROR_MASK;

/// Success.
pub const OK: u8 = 0;
/// An I/O error (a file that cannot be read or written) or an internal error.
pub const IO: u8 = 1;
/// A usage error (bad options).
pub const USAGE: u8 = 2;
/// Bad input: a stream, microcode or scene that does not parse.
pub const INPUT: u8 = 3;
/// A simulated hardware error: sticky error bits set, or the IGC stuck.
pub const HW_ERROR: u8 = 4;
/// The cycle limit stopped the run.
pub const LIMIT: u8 = 5;
/// A deadlock stopped the run.
pub const DEADLOCK: u8 = 6;
/// The run finished without reaching its breakpoint (`--until`, `--until-cycle`): told
/// apart from a run that stopped at it (0).
pub const BREAKPOINT_MISSED: u8 = 7;
/// Interrupted (Ctrl-C).
pub const INTERRUPTED: u8 = 130;

/// The exit code of a run that stopped with `stop` and ended with the status word `status`:
/// why it stopped, and for a run that finished, whether any sticky error bit
/// ([`ERROR_MASK`]) is set.
pub fn of_run(stop: &StopReason, status: u32) -> u8 {
    match stop {
        StopReason::Interrupted => INTERRUPTED,
        StopReason::MaxCycles => LIMIT,
        StopReason::Stuck(_) => HW_ERROR,
        StopReason::Deadlock { .. } => DEADLOCK,
        StopReason::Done | StopReason::Breakpoint(_) if status & ERROR_MASK != 0 => HW_ERROR,
        StopReason::Done | StopReason::Breakpoint(_) => OK,
    }
}
