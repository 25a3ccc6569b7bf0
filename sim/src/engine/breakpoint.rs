//! Breakpoints and watchpoints, as gdb has them: stop *before* the IGC executes a given
//! microinstruction for the N-th time (`pp5 run --until LABEL[+OFFSET][#N]`, also `--break`),
//! after it executed it (`--until-after`), at a cycle (`--until-cycle C`, before cycle C
//! runs), when a condition on signals holds there (`--until 'LABEL if renderer.igc.l == 3'`),
//! when a signal changes or a condition on signals becomes true (`--watch`), over a CALL or
//! the rest of a loop (`next`), or when the routine returns (`finish`). Several in one run:
//! the first reached stops it. The engine asks after each cycle whether one was reached and
//! stops with [`super::StopReason::Breakpoint`]; the board is then at the start of the cycle
//! the message names (`board.cycle`), which the waveform's last time shows.
//!
//! One convention: a stop is *between* cycles. Stopped "in cycle N" means the board has
//! stepped N edges: `renderer.igc.pc` is the microinstruction the IGC executes in cycle N,
//! not yet run (its effects are absent), and the waveform ends at time N.

use super::observer::{Cx, Observer};
use super::watch::{Cond, Value, Watch};
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::store::pc_text;
use pp5_rtl::igc::IgcState;
use pp5_rtl::renderer::TraceView;
use pp5_rtl::Renderer;

/// How a run stopped at a breakpoint goes on, as gdb's commands (`pp5 run --then`,
/// [`super::Sim::resume`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// gdb's `stepi`: after the next microinstruction the IGC executes.
    Step,
    /// gdb's `next`: over a CALL, or at a loop's last line over the rest of the loop.
    Next,
    /// gdb's `finish`: until the routine returns.
    Finish,
    /// gdb's `continue`: to the next breakpoint or watchpoint reached.
    Continue,
}

impl Resume {
    /// `step`, `next`, `finish` or `continue` (gdb's short forms `s`, `n`, `fin`, `c` too).
    pub fn parse(s: &str) -> Result<Resume, String> {
        match s.trim() {
            "step" | "s" | "stepi" | "si" => Ok(Resume::Step),
            "next" | "n" => Ok(Resume::Next),
            "finish" | "fin" => Ok(Resume::Finish),
            "continue" | "c" => Ok(Resume::Continue),
            other => Err(format!(
                "`{other}` is not a way to go on: use step, next, finish or continue"
            )),
        }
    }

    /// The one-shot breakpoint it adds to those set.
    fn until(self) -> Option<Until> {
        match self {
            Resume::Step => Some(Until::NextUinst),
            Resume::Next => Some(Until::Next),
            Resume::Finish => Some(Until::Finish),
            Resume::Continue => None,
        }
    }
}

/// Where to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Until {
    /// Before the `hits`-th time the IGC executes the microinstruction at `pc` (gdb's
    /// convention: the IGC is at `pc`, the microinstruction has not run); `name` says it as
    /// the user did (`MEMplusMEM+3#2`).
    Uinst { pc: u16, hits: u64, name: String },
    /// After the cycle in which the IGC executed the microinstruction at `pc` for the
    /// `hits`-th time (`--until-after`).
    After { pc: u16, hits: u64, name: String },
    /// Before cycle `cycle`: the board's cycle counter reads `cycle`.
    Cycle(u64),
    /// After the next cycle in which the IGC executes a microinstruction (a single step).
    NextUinst,
    /// Before the next microinstruction, from where the IGC is when the breakpoint is set,
    /// that is not inside a CALL made from here and is past the current one (or in a
    /// routine the current one returns to, or in the next command): gdb's `next`, which
    /// steps over a CALL, and at a loop's last line over the rest of the loop (gdb's
    /// `until`).
    Next,
    /// When the routine the IGC is in returns: before the microinstruction after its CALL,
    /// or, in a command's routine, when the command has dispatched (gdb's `finish`).
    Finish,
    /// A watchpoint: when a signal changes, or a condition on signals becomes true.
    Watch(Watch),
    /// A breakpoint that counts (and stops) only where the condition holds.
    If(Box<Until>, Cond),
}

impl Until {
    /// A watchpoint as the user writes it: `SIGNAL` (stop when it changes) or `SIGNAL OP
    /// VALUE [&& ...]` (stop when it becomes true).
    pub fn watch(spec: &str) -> Result<Until, String> {
        Watch::parse(spec)
            .map(Until::Watch)
            .map_err(|e| format!("--watch {spec}: {e}"))
    }

    /// A stop that holds for one run only: `step`, `next` and `finish` are taken off when
    /// the run goes on from a stop ([`Breakpoints::resume`]).
    pub fn one_shot(&self) -> bool {
        matches!(self, Until::NextUinst | Until::Next | Until::Finish)
    }

    /// The "after" form of a breakpoint on a microinstruction (others are unchanged).
    pub fn after(self) -> Until {
        match self {
            Until::Uinst { pc, hits, name } => Until::After { pc, hits, name },
            Until::If(u, c) => Until::If(Box::new(u.after()), c),
            u => u,
        }
    }

    /// The breakpoint as the user writes it.
    pub fn spec(&self) -> String {
        match self {
            Until::Uinst { name, hits, .. } | Until::After { name, hits, .. } => {
                let after = if matches!(self, Until::After { .. }) {
                    " (after)"
                } else {
                    ""
                };
                match hits {
                    1 => format!("{name}{after}"),
                    n => format!("{name}#{n}{after}"),
                }
            }
            Until::Cycle(c) => format!("cycle {c}"),
            Until::NextUinst => "step".into(),
            Until::Next => "next".into(),
            Until::Finish => "finish".into(),
            Until::Watch(w) => format!("watch {w}"),
            Until::If(u, c) => format!("{} if {c}", u.spec()),
        }
    }
}

/// A breakpoint that was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// What to tell the user (`breakpoint: ...`).
    pub msg: String,
    /// Which breakpoint, by its place in the list set.
    pub index: usize,
    /// A watchpoint's signal (or condition), its value before and now.
    pub change: Option<(String, Value, Value)>,
}

/// One breakpoint and how close the run is to it.
#[derive(Clone, Debug)]
struct Stop {
    until: Until,
    cond: Option<Cond>,
    /// Times reached so far (where the condition held).
    hits: u64,
    /// Times reached so far, the condition held or not.
    passes: u64,
    /// Reached at this cycle's end, waiting for its condition to be checked.
    pending: bool,
    /// A watchpoint's last value (a condition's: 0 or 1).
    old: Option<Value>,
    /// Where the IGC was when it was set: PC, address-stack depth, commands taken.
    start: (u16, usize, u64),
    /// A cycle breakpoint that fired (it fires once).
    spent: bool,
}

impl Stop {
    fn new(u: Until, board: &Renderer) -> Stop {
        let igc = &board.igc;
        let (until, cond) = match u {
            Until::If(u, c) => (*u, Some(c)),
            u => (u, None),
        };
        Stop {
            until,
            cond,
            hits: 0,
            passes: 0,
            pending: false,
            old: None,
            start: (igc.pc, igc.fc.addrs.depth(), igc.commands),
            spent: false,
        }
    }
}

/// Some of `stops` is a watchpoint (read after every cycle).
fn watches(stops: &[Stop]) -> bool {
    stops.iter().any(|s| matches!(s.until, Until::Watch(_)))
}

/// The breakpoints and watchpoints of a run: an observer of the board.
#[derive(Clone, Debug)]
pub struct Breakpoints {
    stops: Vec<Stop>,
    /// The IGC's state at the start of the next cycle.
    state: IgcState,
    /// Some stop reads signals every cycle (a watchpoint).
    watching: bool,
    /// Some stop waits for its condition to be checked ([`Breakpoints::view`]).
    pending: bool,
    reached: Option<Hit>,
    /// The last breakpoint reached (the stop report's).
    pub last: Option<Hit>,
}

/// The IGC executes (or stalls on) the microinstruction at its PC in this state.
fn runs(s: IgcState) -> bool {
    matches!(
        s,
        IgcState::Run | IgcState::WaitXfer | IgcState::WaitSem | IgcState::WaitTx
    )
}

/// `2nd`, `3rd`, `11th`, ...
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, r) if r != 11 => "st",
        (2, r) if r != 12 => "nd",
        (3, r) if r != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// ` for the 3rd time` (nothing for the first).
/// `once`, `twice`, `5 times`.
fn times(n: u64) -> String {
    match n {
        1 => "once".into(),
        2 => "twice".into(),
        n => format!("{n} times"),
    }
}

fn time(n: u64) -> String {
    if n == 1 {
        String::new()
    } else {
        format!(" for the {} time", ordinal(n))
    }
}

impl Breakpoints {
    /// The breakpoints `list` on `board` as it is now (a watchpoint's value is read when it is
    /// armed: [`Breakpoints::arm`]).
    pub fn new(list: Vec<Until>, board: &Renderer) -> Breakpoints {
        let igc = &board.igc;
        let stops: Vec<Stop> = list.into_iter().map(|u| Stop::new(u, board)).collect();
        Breakpoints {
            watching: watches(&stops),
            stops,
            state: igc.state,
            pending: false,
            reached: None,
            last: None,
        }
    }

    /// The breakpoints as set (with their conditions).
    pub fn list(&self) -> Vec<Until> {
        self.stops
            .iter()
            .map(|s| match &s.cond {
                Some(c) => Until::If(Box::new(s.until.clone()), c.clone()),
                None => s.until.clone(),
            })
            .collect()
    }

    /// Take up hit counts from an earlier run (each breakpoint's, in order).
    pub fn set_hits(&mut self, hits: &[u64]) {
        for (s, &h) in self.stops.iter_mut().zip(hits) {
            s.hits = h;
        }
    }

    /// Go on from a stop as `how` says: the breakpoints set stay, with their hit counts (a
    /// breakpoint reached its N-th time stops again at each later time, as gdb's), the
    /// one-shot ones (`step`, `next`, `finish`) are taken off, and `how`'s is added; all
    /// are armed from the board as `view` shows it.
    pub fn resume(&mut self, how: Resume, view: &TraceView) {
        self.stops.retain(|s| !s.until.one_shot());
        self.stops
            .extend(how.until().map(|u| Stop::new(u, view.board)));
        self.watching = watches(&self.stops);
        self.reached = None;
        self.last = None;
        self.arm(view);
    }

    /// Each breakpoint's hit count so far.
    pub fn hits(&self) -> Vec<u64> {
        self.stops.iter().map(|s| s.hits).collect()
    }

    /// Every signal a watchpoint or condition reads exists on `view`; `Err` names the one
    /// that does not, and the nearest names the board has.
    pub fn check(&self, view: &TraceView) -> Result<(), String> {
        for s in &self.stops {
            if let Until::Watch(w) = &s.until {
                w.check(view)?;
            }
            if let Some(c) = &s.cond {
                c.check(view)?;
            }
        }
        Ok(())
    }

    /// Read the watchpoints' values now: a watchpoint stops at the first change from here
    /// (the engine arms them when they are set and when the user's stream starts after the
    /// boot). Also takes the IGC's place as the start of `next` and `finish`.
    pub fn arm(&mut self, view: &TraceView) {
        let igc = &view.board.igc;
        self.state = igc.state;
        let cycle = view.board.cycle;
        for s in &mut self.stops {
            s.start = (igc.pc, igc.fc.addrs.depth(), igc.commands);
            if let Until::Cycle(c) = s.until {
                // A cycle already run is never reached.
                s.spent |= c < cycle;
            }
            s.old = match &s.until {
                Until::Watch(Watch::Changes(sig)) => sig.read(view),
                Until::Watch(Watch::Becomes(c)) => Some(Value::Num(c.holds(view) as u64)),
                _ => None,
            };
        }
    }

    /// Whether [`Breakpoints::view`] must be called after this cycle (a watchpoint, or a
    /// condition to check).
    #[inline]
    pub fn wants_view(&self) -> bool {
        self.watching || self.pending
    }

    /// After a cycle, with the board as the waveform walks it: check the conditions of the
    /// breakpoints reached, and the watchpoints.
    pub fn view(&mut self, view: &TraceView) {
        let cycle = view.board.cycle;
        self.pending = false;
        for k in 0..self.stops.len() {
            let s = &mut self.stops[k];
            if s.pending {
                s.pending = false;
                if s.cond.as_ref().is_some_and(|c| c.holds(view)) {
                    let msg = self.count(k, view.board);
                    self.fire(k, msg, None);
                }
                continue;
            }
            let Until::Watch(w) = &s.until else {
                continue;
            };
            let (now, cond) = match w {
                Watch::Changes(sig) => (sig.read(view), None),
                Watch::Becomes(c) => (Some(Value::Num(c.holds(view) as u64)), Some(c)),
            };
            if now == s.old {
                continue;
            }
            let name = w.to_string();
            let became = cond.is_some();
            let old = std::mem::replace(&mut s.old, now.clone());
            let (Some(old), Some(now)) = (old, now) else {
                continue;
            };
            let msg = if !became {
                format!("watchpoint: {name} changed from {old} to {now} at cycle {cycle}")
            } else if now == Value::Num(1) {
                format!("watchpoint: {name} became true at cycle {cycle}")
            } else {
                continue;
            };
            s.hits += 1;
            self.fire(k, Some(msg), Some((name, old, now)));
        }
    }

    /// Breakpoint `k` was reached (its condition held): count it, and the message if this
    /// is the time it stops at.
    fn count(&mut self, k: usize, board: &Renderer) -> Option<String> {
        let s = &mut self.stops[k];
        s.hits += 1;
        let cycle = board.cycle;
        // A conditional stop says how often the IGC got there, the condition held or not.
        let cond = s.cond.as_ref().map_or(String::new(), |c| {
            format!(" ({c}; the IGC got there {})", times(s.passes))
        });
        let msg = match &s.until {
            Until::Uinst { pc, hits, name } => (s.hits >= *hits).then(|| {
                format!(
                    "breakpoint: the IGC is about to execute {name} (PC {}){} in cycle {cycle}{cond}",
                    pc_text(*pc),
                    time(s.hits)
                )
            }),
            Until::After { pc, hits, name } => (s.hits >= *hits).then(|| {
                format!(
                    "breakpoint: the IGC executed {name} (PC {}){} in cycle {}{cond}",
                    pc_text(*pc),
                    time(s.hits),
                    cycle - 1
                )
            }),
            Until::Cycle(c) => {
                s.spent = true;
                Some(format!("breakpoint: cycle {c} reached{cond}"))
            }
            Until::NextUinst => Some(format!(
                "step: the IGC executed PC {} in cycle {}",
                pc_text(board.igc.last_pc),
                cycle - 1
            )),
            Until::Next => Some(format!(
                "next: the IGC is about to execute PC {} in cycle {cycle}",
                pc_text(board.igc.pc)
            )),
            Until::Finish => Some(if board.igc.commands != s.start.2 {
                format!(
                    "finish: the command's routine dispatched; the next command's is about to execute PC {} in cycle {cycle}",
                    pc_text(board.igc.pc)
                )
            } else if runs(board.igc.state) {
                format!(
                    "finish: the routine returned; the IGC is about to execute PC {} in cycle {cycle}",
                    pc_text(board.igc.pc)
                )
            } else {
                format!("finish: the command's routine dispatched; the IGC waits for a command at cycle {cycle}")
            }),
            Until::Watch(_) | Until::If(..) => None,
        };
        msg
    }

    fn fire(&mut self, k: usize, msg: Option<String>, change: Option<(String, Value, Value)>) {
        if let (Some(msg), None) = (msg, &self.reached) {
            self.reached = Some(Hit {
                msg,
                index: k,
                change,
            });
        }
    }

    /// A breakpoint was reached: what to tell the user (taken: the run stops once). The
    /// breakpoints stay set ([`Breakpoints::last`] keeps the hit).
    pub fn take_reached(&mut self) -> Option<String> {
        let hit = self.reached.take()?;
        let msg = hit.msg.clone();
        self.last = Some(hit);
        Some(msg)
    }

    /// The breakpoint was reached (not yet taken).
    pub fn reached(&self) -> Option<&str> {
        self.reached.as_ref().map(|h| h.msg.as_str())
    }

    /// What to tell the user when the run ended without reaching any.
    pub fn missed(&self) -> String {
        let one = |s: &Stop| match &s.until {
            Until::Uinst { name, hits, .. } | Until::After { name, hits, .. } => {
                let times = times(s.hits);
                let cond = s
                    .cond
                    .as_ref()
                    .map_or(String::new(), |c| format!(" if {c}"));
                let there = if s.cond.is_some() {
                    "reached it with the condition holding"
                } else {
                    "executed it"
                };
                if s.hits == 0 {
                    format!("the breakpoint {name}{cond} was never reached: the IGC never {there}")
                } else if s.hits >= *hits {
                    // Reached before the run went on from it (`--then continue`).
                    format!(
                        "the breakpoint {name}{cond} was not reached again: the IGC {there} {times} in all"
                    )
                } else {
                    format!(
                        "the breakpoint {name}#{hits}{cond} was never reached: the IGC {there} {times}"
                    )
                }
            }
            Until::Cycle(c) if s.hits > 0 => {
                format!("the breakpoint at cycle {c} stopped the run once; it stops only once")
            }
            Until::Cycle(c) if s.spent => format!(
                "the breakpoint at cycle {c} was never reached: the run was past it when it \
                 was armed (breakpoints are armed when the stream starts, after the microcode \
                 boot)"
            ),
            Until::Cycle(c) => format!("the breakpoint at cycle {c} was never reached"),
            Until::NextUinst => "the IGC executed no microinstruction".to_string(),
            Until::Next | Until::Finish => format!("`{}` was never reached", s.until.spec()),
            Until::Watch(w) => format!("the watchpoint {w} never fired"),
            Until::If(..) => String::new(),
        };
        let all: Vec<String> = self.stops.iter().map(one).collect();
        all.join("; ")
    }

    /// A breakpoint on a cycle is reached before any cycle runs when the board is there
    /// already.
    pub fn check_cycle(&mut self, cycle: u64) {
        for k in 0..self.stops.len() {
            let s = &self.stops[k];
            if let Until::Cycle(c) = s.until {
                if cycle >= c && !s.spent && s.cond.is_none() {
                    self.stops[k].spent = true;
                    self.stops[k].hits += 1;
                    self.fire(k, Some(format!("breakpoint: cycle {c} reached")), None);
                }
            }
        }
    }

    /// Stop `k` was reached this cycle: counted now, or its condition checked in
    /// [`Breakpoints::view`].
    fn reach(&mut self, k: usize, board: &Renderer) {
        self.stops[k].passes += 1;
        if self.stops[k].cond.is_some() {
            self.stops[k].pending = true;
            self.pending = true;
        } else {
            let msg = self.count(k, board);
            self.fire(k, msg, None);
        }
    }
}

impl Observer for Breakpoints {
    #[inline]
    fn cycle(&mut self, cx: &mut Cx) {
        let b = cx.board;
        let igc = &b.igc;
        let executed = runs(self.state) && cx.igc_cause == Cause::Executing;
        // The IGC is about to execute the microinstruction at its PC for a new time: it
        // executed one in this cycle, or it starts running (a command dispatched).
        let arrived = runs(igc.state) && (executed || !runs(self.state));
        let depth = igc.fc.addrs.depth();
        for k in 0..self.stops.len() {
            let s = &self.stops[k];
            let (spc, sdepth, scmds) = s.start;
            let reached = match &s.until {
                Until::Uinst { pc, .. } => arrived && igc.pc == *pc,
                Until::After { pc, .. } => executed && igc.last_pc == *pc,
                Until::Cycle(c) => !s.spent && cx.cycle + 1 >= *c,
                Until::NextUinst => executed,
                Until::Next => {
                    arrived
                        && (igc.commands != scmds
                            || depth < sdepth
                            || (depth == sdepth && igc.pc > spc))
                }
                Until::Finish => {
                    (arrived && (igc.commands != scmds || depth < sdepth))
                        || (sdepth == 0 && runs(self.state) && !runs(igc.state))
                }
                Until::Watch(_) | Until::If(..) => false,
            };
            if reached {
                self.reach(k, b);
            }
        }
        self.state = igc.state;
    }

    /// A watchpoint or a condition reads signals that may change in any cycle; a
    /// breakpoint on a microinstruction lets still cycles pass (the IGC waits, its PC does
    /// not change); one on cycle C needs cycle C - 1, after which it stops.
    fn needs_from(&self, now: u64) -> u64 {
        if self.watching || self.stops.iter().any(|s| s.cond.is_some()) {
            return now;
        }
        self.stops
            .iter()
            .filter_map(|s| match s.until {
                Until::Cycle(c) if !s.spent => Some(c.saturating_sub(1).max(now)),
                _ => None,
            })
            .min()
            .unwrap_or(u64::MAX)
    }

    fn still(&mut self, n: u64, cx: &mut Cx) {
        self.state = cx.board.igc.state;
        self.check_cycle(cx.cycle + n);
    }

    fn ring_reset(&mut self, _at: u64) {
        self.state = IgcState::RMode;
    }
}

#[cfg(test)]
mod tests {
    use super::{ordinal, Until};

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }

    #[test]
    fn specs() {
        let u = Until::Uinst {
            pc: 3,
            hits: 2,
            name: "x".into(),
        };
        assert_eq!(u.spec(), "x#2");
        assert_eq!(u.after().spec(), "x#2 (after)");
    }
}
