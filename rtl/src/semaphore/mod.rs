//! The two hardware semaphores, BS and IGC (seed 003 §III.4.1-4).
//!
//! "Each semaphore consists of an 8-bit counter with overflow and zero-detection, and
//! arbitration logic on the increment and decrement inputs. Both counters are zeroed when the
//! Ring is reset." A P operation waits for the counter to be non-zero, then decrements it; a V
//! increments it; an overflow wraps to zero and raises the semaphore's sticky error bit
//! (status bit 24 for BS, 25 for IGC) with an error message.
//!
//! Arbitration (docs/model-choices.md, "Semaphores"): within one 40 MHz cycle every requester
//! sees the counter's value at the start of the cycle; a P is granted when that value is
//! non-zero, and the cycle's increments and the granted decrement are applied together, so a
//! V and a P in the same cycle leave a non-zero counter unchanged and never overflow it.

use crate::trace::Wave;

/// Width of a semaphore counter in bits (seed §III.4.1-4: "an 8-bit counter").
pub const SEMAPHORE_BITS: u32 = 8;

/// One semaphore (its fields are its waveform record, scope `bs_sem` or `igc_sem`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Wave)]
pub struct Semaphore {
    /// The counter (status bits 8-15 for BS, 16-23 for IGC).
    #[wave(bits = SEMAPHORE_BITS)]
    pub count: u8,
    /// This cycle's requests (for the waveform): increments, decrement granted, P waiting.
    #[wave(bits = 2)]
    pub v: u8,
    pub p: bool,
    pub p_wait: bool,
    /// The counter overflowed this cycle (the error strobe).
    pub overflow: bool,
}

impl Semaphore {
    /// The semaphore holding `count` with no request this cycle (its state after a quiet
    /// cycle: the board skips the update then).
    pub fn idle(count: u8) -> Semaphore {
        Semaphore {
            count,
            ..Semaphore::default()
        }
    }

    /// Whether the semaphore shows a request or an overflow (it is not [`Semaphore::idle`]).
    pub fn pulsed(&self) -> bool {
        *self != Semaphore::idle(self.count)
    }

    /// Whether a P issued this cycle is granted (the counter is non-zero).
    pub fn can_p(&self) -> bool {
        self.count != 0
    }

    /// End of a cycle: apply `v` increments and a decrement if `p` (a granted P; the caller
    /// checked [`Semaphore::can_p`]); `p_wait` records a P that is waiting. Returns true on
    /// overflow.
    pub fn update(&mut self, v: u8, p: bool, p_wait: bool) -> bool {
        self.v = v;
        self.p = p && self.count != 0;
        self.p_wait = p_wait;
        let next = self.count as u32 + v as u32 - self.p as u32;
        self.overflow = next > u8::MAX as u32;
        self.count = (next & u8::MAX as u32) as u8;
        self.overflow
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_waits_for_nonzero_and_v_overflow_wraps() {
        let mut s = Semaphore::default();
        assert!(!s.can_p());
        // A V and a P in the same cycle on a zero counter: the P sees zero and waits.
        assert!(!s.update(1, s.can_p(), true));
        assert_eq!(s.count, 1);
        assert!(s.can_p());
        // V and P together on a non-zero counter: unchanged.
        assert!(!s.update(1, true, false));
        assert_eq!(s.count, 1);
        s.update(0, true, false);
        assert_eq!(s.count, 0);
        s.count = 255;
        assert!(s.update(1, false, false), "255 + 1 overflows");
        assert_eq!(s.count, 0, "and wraps to zero");
        s.count = 255;
        assert!(
            !s.update(1, true, false),
            "a granted P in the same cycle absorbs the V"
        );
        assert_eq!(s.count, 255);
    }
}
