//! Breakpoints and watchpoints from Python, as gdb has them (issue 37): `run_until` with a
//! label (before the microinstruction runs; `after=True` for after), a condition, a cycle or
//! a signal; breakpoints that stay set across runs (`add_breakpoint`, `add_watchpoint`);
//! `next` and `finish`; the stop report. `board.rs` wraps these as `pp5.Board` methods.

use crate::machine::Machine;
use pp5_sim::engine::Until;
use pp5_sim::microcode_view::{parse_until, StopReport};

/// Breakpoints that stay set across runs (gdb's), with their numbers and hit counts.
#[derive(Clone, Default)]
pub struct Saved {
    /// (number, breakpoint, hits so far), in the order set.
    pub list: Vec<(u64, Until, u64)>,
    next: u64,
}

impl Saved {
    /// Add `until`: its number.
    pub fn add(&mut self, until: Until) -> u64 {
        self.next += 1;
        self.list.push((self.next, until, 0));
        self.next
    }

    /// Delete breakpoint `id` (all with `None`): false if there is no such one.
    pub fn delete(&mut self, id: Option<u64>) -> bool {
        let n = self.list.len();
        match id {
            None => self.list.clear(),
            Some(id) => self.list.retain(|b| b.0 != id),
        }
        self.list.len() != n || (id.is_none() && n == 0)
    }

    pub fn untils(&self) -> Vec<Until> {
        self.list.iter().map(|b| b.1.clone()).collect()
    }

    /// Take the hit counts of the first breakpoints of a run's list (the saved ones).
    pub fn update_hits(&mut self, hits: &[u64]) {
        for (b, &h) in self.list.iter_mut().zip(hits) {
            b.2 = h;
        }
    }

    pub fn hits(&self) -> Vec<u64> {
        self.list.iter().map(|b| b.2).collect()
    }
}

/// A breakpoint as `spec` (`LABEL[+OFFSET][#N] [if COND]`), with `hits` (the N-th time) and
/// `condition` added, before its microinstruction (`after`: after it).
pub fn label_breakpoint(
    m: &Machine,
    spec: &str,
    hits: u64,
    condition: Option<&str>,
    after: bool,
) -> Result<Until, String> {
    if hits == 0 {
        return Err("hits must be at least 1".into());
    }
    let (place, cond) = match spec.split_once(" if ") {
        Some((p, c)) => (p.trim(), Some(c.trim())),
        None => (spec.trim(), None),
    };
    let place = if hits > 1 && !place.contains('#') {
        format!("{place}#{hits}")
    } else {
        place.to_string()
    };
    let cond = match (cond, condition) {
        (Some(a), Some(b)) => Some(format!("{a} && {b}")),
        (a, b) => a.or(b).map(str::to_string),
    };
    let spec = match cond {
        Some(c) => format!("{place} if {c}"),
        None => place,
    };
    let u = parse_until(&spec, &m.image, "run_until:")?;
    Ok(if after { u.after() } else { u })
}

/// A watchpoint on `signal`: when it changes (`value` None; `signal` may also be a
/// condition, `renderer.igc.l == 3`), or when it becomes equal to `value`.
pub fn watchpoint(signal: &str, value: Option<&str>) -> Result<Until, String> {
    let spec = match value {
        Some(v) => format!("{signal} == {v}"),
        None => signal.to_string(),
    };
    Until::watch(&spec).map_err(|e| e.replacen("--watch ", "watch ", 1))
}

/// The one breakpoint `run_until`'s arguments ask for, if any.
#[allow(clippy::too_many_arguments)]
pub fn until_of(
    m: &Machine,
    label: Option<&str>,
    cycle: Option<u64>,
    hits: u64,
    signal: Option<&str>,
    value: Option<&str>,
    condition: Option<&str>,
    after: bool,
) -> Result<Option<Until>, String> {
    let given = [label.is_some(), cycle.is_some(), signal.is_some()]
        .iter()
        .filter(|&&g| g)
        .count();
    if given > 1 {
        return Err("run_until: give one of label=, cycle= and signal=".into());
    }
    if value.is_some() && signal.is_none() {
        return Err("run_until: value= goes with signal=".into());
    }
    if let Some(l) = label {
        return label_breakpoint(m, l, hits, condition, after).map(Some);
    }
    if let Some(c) = cycle {
        let u = Until::Cycle(c);
        return Ok(Some(match condition {
            Some(c) => Until::If(
                Box::new(u),
                pp5_sim::engine::Cond::parse(c).map_err(|e| format!("run_until: {e}"))?,
            ),
            None => u,
        }));
    }
    if condition.is_some() {
        return Err("run_until: condition= goes with label= or cycle= (for a signal alone, signal=\"SIGNAL == VALUE\")".into());
    }
    match signal {
        Some(s) => watchpoint(s, value).map(Some),
        None => Ok(None),
    }
}

/// The stop report of the board's last breakpoint as JSON (`None` if none was reached).
pub fn stop_report_json(m: &Machine) -> Option<String> {
    let r = StopReport::of(&m.sim, m.sources.as_deref())?;
    serde_json::to_string(&r).ok()
}
