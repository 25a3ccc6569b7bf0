//! Per-PE flow-control state, bit-sliced like the rest of the array: the active bit, the
//! branch counter (5 bit planes, 0..=31) and which PEs a conditional deactivated.
//!
//! A PE is in exactly one of: active; branch-inactive (deactivated by IF/ELSE, its branch
//! counter says how many conditional blocks must end before it is active again); or
//! loop-inactive (deactivated by BREAK or CONTINUE, recorded in a loop-stack frame, see
//! `stacks.rs`). `active` is kept as a plane of its own because the array reads it every
//! cycle.

use crate::emc_array::plane::{Plane, ONES_PLANE, PLANE_WORDS, ZERO_PLANE};

/// Bit planes of the branch counter (full mode counts to 31, seed 004).
pub const BCNT_BITS: usize = 5;

/// The per-PE state of the flow-control unit.
#[derive(Clone)]
pub struct PeState {
    pub active: Box<Plane>,
    /// Branch-inactive PEs.
    pub branch: Box<Plane>,
    /// Branch counter, bit `k` in plane `k`; meaningful only where `branch` is set (the
    /// hardware ignores it while a PE is active).
    pub bcnt: Box<[Plane; BCNT_BITS]>,
}

impl Default for PeState {
    fn default() -> Self {
        PeState {
            active: Box::new(ONES_PLANE),
            branch: Box::new(ZERO_PLANE),
            bcnt: Box::new([ZERO_PLANE; BCNT_BITS]),
        }
    }
}

impl PeState {
    /// Counter value of one PE (word `w`, bit mask `m`).
    pub fn counter_at(&self, w: usize, m: u64) -> u32 {
        (0..BCNT_BITS).fold(0, |v, k| v | (((self.bcnt[k][w] & m != 0) as u32) << k))
    }

    /// Per word: mask of the PEs in `sel` whose counter is below `n`.
    pub fn below(&self, w: usize, n: u32) -> u64 {
        // counter - n borrows out exactly when counter < n.
        let mut borrow = 0u64;
        for k in 0..BCNT_BITS {
            let x = self.bcnt[k][w];
            let y = if (n >> k) & 1 != 0 { u64::MAX } else { 0 };
            borrow = (!x & y) | (!(x ^ y) & borrow);
        }
        // n >= 32 is above every counter.
        if n >> BCNT_BITS != 0 {
            u64::MAX
        } else {
            borrow
        }
    }

    /// Set the counters of the PEs in `m` (word `w`) to zero.
    pub fn clear_counter(&mut self, w: usize, m: u64) {
        for p in self.bcnt.iter_mut() {
            p[w] &= !m;
        }
    }

    /// Add 1 to the counters of the branch-inactive PEs. Returns the PEs whose counter was
    /// already at `max` (they keep `max`: an overflow, which the caller reports).
    pub fn increment(&mut self, max: u32) -> Plane {
        let mut over = ZERO_PLANE;
        for (w, over) in over.iter_mut().enumerate() {
            let sel = self.branch[w];
            if sel == 0 {
                continue;
            }
            let at_max = !self.below(w, max) & sel;
            let m = sel & !at_max;
            let mut carry = m;
            for k in 0..BCNT_BITS {
                let x = self.bcnt[k][w];
                self.bcnt[k][w] = x ^ carry;
                carry &= x;
            }
            *over = at_max;
        }
        over
    }

    /// Subtract `n` from the counters of the branch-inactive PEs; the ones that go negative
    /// become active (counter 0).
    pub fn decrement(&mut self, n: u32) {
        for w in 0..PLANE_WORDS {
            let sel = self.branch[w];
            if sel == 0 {
                continue;
            }
            let mut borrow = 0u64;
            for k in 0..BCNT_BITS {
                let x = self.bcnt[k][w];
                let y = if (n >> k) & 1 != 0 { sel } else { 0 };
                let d = x ^ y ^ borrow;
                borrow = (!x & y) | (!(x ^ y) & borrow);
                self.bcnt[k][w] = (d & sel) | (x & !sel);
            }
            let neg = if n >> BCNT_BITS != 0 {
                sel
            } else {
                borrow & sel
            };
            self.activate(w, neg);
        }
    }

    /// Make the PEs in `m` (word `w`) active.
    pub fn activate(&mut self, w: usize, m: u64) {
        self.active[w] |= m;
        self.branch[w] &= !m;
        self.clear_counter(w, m);
    }

    /// Make the active PEs in `m` branch-inactive with counter 0.
    pub fn deactivate_branch(&mut self, w: usize, m: u64) {
        let m = m & self.active[w];
        self.active[w] &= !m;
        self.branch[w] |= m;
        self.clear_counter(w, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_count_and_reactivate() {
        let mut s = PeState::default();
        // PEs 0..4 of word 0 branch-inactive with counters 0, 1, 2, 3.
        s.deactivate_branch(0, 0xf);
        for _ in 0..3 {
            // Increment only the later ones: deactivate more as we go.
            s.increment(31);
        }
        assert_eq!(s.counter_at(0, 1), 3);
        let mut t = PeState::default();
        t.deactivate_branch(0, 0b1);
        t.increment(31);
        t.deactivate_branch(0, 0b10);
        t.increment(31);
        t.deactivate_branch(0, 0b100);
        assert_eq!(
            (t.counter_at(0, 1), t.counter_at(0, 2), t.counter_at(0, 4)),
            (2, 1, 0)
        );
        assert_eq!(t.below(0, 2) & 0b111, 0b110);
        t.decrement(1);
        // The counter-0 PE went negative: active again.
        assert_eq!(t.active[0] & 0b111, 0b100);
        assert_eq!((t.counter_at(0, 1), t.counter_at(0, 2)), (1, 0));
        t.decrement(2);
        assert_eq!(t.active[0] & 0b111, 0b111);
        assert_eq!(t.branch[0], 0);
    }

    #[test]
    fn increment_saturates_and_reports_at_the_limit() {
        let mut s = PeState::default();
        s.deactivate_branch(3, 1 << 9);
        for _ in 0..3 {
            assert_eq!(s.increment(3)[3], 0);
        }
        assert_eq!(s.increment(3)[3], 1 << 9);
        assert_eq!(s.counter_at(3, 1 << 9), 3);
    }
}
