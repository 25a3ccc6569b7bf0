//! Still cycles passed in one step (docs/timing.md, "Still cycles"). When the board waits
//! and nothing but its counters can change before the next thing that comes from outside (a
//! Ring word it can take, a message's arrival time, a TxReady change, a timed Ring reset, the
//! IGC timeout firing, the cycle limit, the caller's limit), and no observer needs those
//! cycles shown one by one, the engine advances the board to that cycle at once and shows the
//! observers the stretch through [`Observer::still`]: counters, causes, records and reports
//! come out as if every cycle had been stepped. `PP5_NO_SKIP=1` (or
//! [`Sim::set_skip_still`]) turns it off, for checking.

use super::observer::{Cx, Observer};
use super::Sim;
use pp5_rtl::cause::Cause;
use pp5_rtl::renderer::Stillness;

/// The environment variable that turns still-cycle skipping off (any value but `0`).
pub const NO_SKIP_ENV: &str = "PP5_NO_SKIP";

/// Whether still cycles are skipped unless the caller says otherwise: yes, unless
/// [`NO_SKIP_ENV`] is set.
pub fn skip_by_default() -> bool {
    std::env::var_os(NO_SKIP_ENV).is_none_or(|v| v == "0")
}

/// What the engine knows of the last cycles stepped, for the still check.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LastStep {
    /// The last cycle took no Ring word and no TxReady change, had no event, sent no word
    /// and raised no strobe from outside.
    pub quiet: bool,
    /// The cycle after which the board was last found still (or still but for its
    /// background units) after a quiet cycle, how many such cycles ran in a row up to it, and
    /// whether they were background cycles.
    still_at: u64,
    still_run: u32,
    background: bool,
}

impl LastStep {
    /// The board is still and the last cycle quiet after cycle `now - 1`: whether the last
    /// two cycles were such cycles (both phases of the Ring's 20 MHz enable), so that the
    /// last one is a fair sample of every still cycle to come (its causes, its pulses).
    fn still_twice(&mut self, now: u64, background: bool) -> bool {
        self.still_run = if self.still_at + 1 == now && self.background == background {
            self.still_run.saturating_add(1)
        } else {
            1
        };
        self.still_at = now;
        self.background = background;
        self.still_run >= 2
    }
}

impl Sim {
    /// Skip still cycles (or not): on by default unless [`NO_SKIP_ENV`] is set.
    pub fn set_skip_still(&mut self, on: bool) {
        self.skip_still = on;
    }

    /// Whether still cycles are skipped.
    pub fn skips_still(&self) -> bool {
        self.skip_still
    }

    /// Cycles passed as still cycles so far (not stepped one by one).
    pub fn still_cycles(&self) -> u64 {
        self.still_cycles
    }

    /// After a cycle: if the board is still, advance it over the still cycles before the
    /// next cycle anything can change in, but not to `limit` or past it (the caller's
    /// next cycle of its own, e.g. the system study's next Ring decision). Returns the
    /// cycles passed (0: the board is not still, or skipping is off).
    // Not inlined: scripts/callgrind-cycles.sh counts its instructions with the cycles'.
    #[inline(never)]
    pub fn skip_still(&mut self, limit: u64) -> u64 {
        let now = self.board.cycle;
        if !self.skip_still || !self.last.quiet || limit <= now + 1 {
            return 0;
        }
        // Still, or still but for the background units (the BS port sending with TxReady
        // high, a transfer running: the deadlock watch does not settle then, they move). Not
        // when the run is over, or when the next tick would fire a Ring reset that waits for
        // the board to settle: the cycles up to the next input are still only while input is
        // to come.
        let background = match (self.board.stillness(), self.settled.is_some()) {
            (Stillness::Still, true) => false,
            (Stillness::Background, _) => true,
            _ => return 0,
        };
        if self.done() || !self.last.still_twice(now, background) {
            return 0;
        }
        let until = limit
            .min(self.max_cycles)
            .min(self.ring.next_change(&self.board, now))
            .min(self.needs_from(now));
        // The last cycle before the change is stepped, so that what the engine checks after
        // a cycle (a Ring reset waiting for the board to settle, the stall check) sees the
        // cycle the change comes in as stepping does.
        let mut n = self
            .board
            .still_until_timeout(until.saturating_sub(now).saturating_sub(1));
        if background {
            n = self.board.background_before_change(n);
        }
        if n == 0 {
            return 0;
        }
        self.show_still(now, n);
        self.ring.still(now, n);
        if background {
            self.board.advance_background(n);
            self.watch.moving();
        } else {
            self.board.advance_still(n);
            self.watch.still(n);
        }
        self.still_cycles += n;
        // The stretch is a run of still cycles up to its end.
        self.last.still_at = now + n;
        n
    }

    /// The first cycle from `now` on some observer must be shown one by one.
    fn needs_from(&self, now: u64) -> u64 {
        if self.trace.active() {
            return now;
        }
        let mut t = u64::MAX;
        if let Some(p) = &self.profile {
            t = t.min(p.needs_from(now));
        }
        if let Some(s) = &self.tap {
            t = t.min(s.needs_from(now));
        }
        if let Some(b) = &self.breakpoint {
            t = t.min(b.needs_from(now));
        }
        t
    }

    /// Show the observers `n` still cycles from `c` on.
    fn show_still(&mut self, c: u64, n: u64) {
        let (igc_cause, bs_cause) = self.causes_of_cycle();
        self.commands.charge_n(igc_cause, n);
        let mut cx = cx!(self, c, self.commands.open(), igc_cause, bs_cause);
        self.causes.still(n, &mut cx);
        if let Some(p) = &mut self.profile {
            p.still(n, &mut cx);
        }
        if let Some(s) = &mut self.tap {
            s.still(n, &mut cx);
        }
        if let Some(b) = &mut self.breakpoint {
            b.still(n, &mut cx);
        }
        let last = c + n - 1;
        self.commands.after(&self.board, last);
        self.bs_commands.still(&self.board.bs_port, n);
    }

    /// How the IGC and the BS port spend the cycle just stepped, as the observers are told:
    /// idle with words still to come on the Ring is waiting for Ring input.
    #[inline]
    pub(super) fn causes_of_cycle(&self) -> (Cause, Cause) {
        let b = &self.board;
        let mut igc_cause = b.igc_cause;
        if igc_cause == Cause::Idle && !self.ring.igc.is_empty() {
            igc_cause = Cause::FifoEmpty;
        }
        let mut bs_cause = b.bs_port.cause;
        if bs_cause == Cause::Idle && !self.ring.bs.is_empty() {
            bs_cause = Cause::FifoEmpty;
        }
        (igc_cause, bs_cause)
    }
}
