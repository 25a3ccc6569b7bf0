//! Clocks of the Renderer (SPEC §1 Clocks; seed 003 §III.4.1).
//!
//! One 40 MHz clock drives the pixel ALUs, the QEE, the IGC microsequencer and the stream
//! parser. The Ring delivers at most one word per 20 MHz cycle; we model the 20 MHz domain as
//! an enable that is high on every other 40 MHz edge (see docs/model-choices.md, "Clocking").

/// Frequency of the pixel-ALU / IGC clock in Hz (seed 003 §III.4.1: "bit-serial pixel-ALU
/// operating at 40 MHz").
pub const CLK_HZ: u64 = 40_000_000;

/// Frequency of a Ring channel word slot in Hz (seed 003 §III.4.1-3: "full 20 MegaWord/sec rate
/// supported by a Ring channel").
pub const RING_HZ: u64 = 20_000_000;

/// Number of 40 MHz cycles per 20 MHz enable pulse.
pub const RING_DIVIDE: u64 = CLK_HZ / RING_HZ;

/// Waveform time unit: 1 ps, so both edges of the 25 ns clock are integers
/// (docs/model-choices.md, "Waveform timescale").
pub const TIMESCALE_PS: u64 = 1;

/// One 40 MHz period in picoseconds.
pub const CYCLE_PS: u64 = 1_000_000_000_000 / CLK_HZ;

/// Half a 40 MHz period (the falling edge) in picoseconds.
pub const HALF_CYCLE_PS: u64 = CYCLE_PS / 2;

/// The 20 MHz enable for 40 MHz cycle number `cycle`: high on even cycles.
#[inline]
pub fn ring_enable(cycle: u64) -> bool {
    cycle.is_multiple_of(RING_DIVIDE)
}

/// Hardware time in picoseconds of the rising edge that starts 40 MHz cycle `cycle`.
#[inline]
pub fn cycle_time_ps(cycle: u64) -> u64 {
    cycle * CYCLE_PS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_exact_integers() {
        assert_eq!(CYCLE_PS, 25_000);
        assert_eq!(HALF_CYCLE_PS * 2, CYCLE_PS);
        assert_eq!(RING_DIVIDE, 2);
        assert!(ring_enable(0) && !ring_enable(1) && ring_enable(2));
        assert_eq!(cycle_time_ps(3), 75_000);
    }
}
