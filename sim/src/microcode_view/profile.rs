//! Where a run's cycles went inside the microcode: per routine and per source line, the
//! cycles charged to its microinstructions by cause (executing, or stalled on a semaphore, a
//! transfer, the transmitter), sorted, with the IGC's cycles outside the microcode (between
//! commands, RMode, stuck) as rows of their own, so the routines' cycles add up to the run's.
//! Each row has its SIMD lane use (the PEs enabled when its microinstructions ran:
//! [`super::lanes`]), and the CALLs that ran are listed apart (a CALL is no branch).

use super::MicrocodeSources;
use crate::engine::lanes::{LaneStats, Lanes};
use crate::engine::{MicrocodeProfile, Outside};
use crate::records::CauseCounts;
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::store::pc_text;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write;

/// One row: a routine or a source line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The routine (`MEMplusMEM`), a source position (`standard.pp5uc:141`), or a place
    /// outside the microcode (`(between commands)`).
    pub name: String,
    /// The source text of a line.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    pub cycles: u64,
    pub causes: CauseCounts,
    /// The PEs enabled when its microinstructions executed (none for a row that executed
    /// nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lanes: Option<LaneStats>,
}

/// A CALL that ran: where it is, where it goes, how often.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallRow {
    /// The CALL's routine and offset (`F+3`) and source position.
    pub at: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub src: String,
    /// The subroutine's label (or address) and how many times the CALL went there.
    pub target: String,
    pub count: u64,
}

/// The profile of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Profile {
    /// The cycles charged to the rows: the run's cycles since the profile started, the
    /// microcode boot's left out (the shares are of the user's stream).
    pub cycles: u64,
    /// The boot's cycles, left out of the rows (0 without a boot or a profile started
    /// after it).
    #[serde(skip_serializing_if = "is_zero")]
    pub boot_cycles: u64,
    /// Routines and the places outside the microcode, most cycles first.
    pub routines: Vec<Row>,
    /// Source lines, most cycles first.
    pub lines: Vec<Row>,
    /// The CALLs that ran, most calls first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallRow>,
}

impl Profile {
    /// The profile of `p`, named by `sources` (or by `label_of`, a microinstruction's label
    /// and offset, for an image without sources).
    pub fn of(
        p: &MicrocodeProfile,
        sources: Option<&MicrocodeSources>,
        label_of: impl Fn(u32) -> Option<(String, u32)>,
    ) -> Profile {
        type Counts = (CauseCounts, Lanes);
        let mut routines: HashMap<String, Counts> = HashMap::new();
        let mut lines: HashMap<(String, usize), Counts> = HashMap::new();
        let (by_pc, outside, boot_cycles) = p.since_boot();
        let add = |to: &mut Counts, c: &CauseCounts, l: Option<&Lanes>| {
            to.0.merge(c);
            if let Some(l) = l {
                to.1.merge(l);
            }
        };
        for (pc, c) in by_pc.iter().enumerate() {
            if c.total() == 0 {
                continue;
            }
            let lanes = p.lanes.get(pc);
            let src = sources.and_then(|s| s.uinst(pc as u32));
            let routine = match src {
                Some(e) => e.routine.clone().unwrap_or_else(|| e.at()),
                None => label_of(pc as u32)
                    .map_or_else(|| format!("PC {}", pc_text(pc as u32)), |(l, _)| l),
            };
            add(routines.entry(routine).or_default(), c, lanes);
            let line = match src {
                Some(e) => (e.file.clone(), e.line),
                None => (format!("PC {}", pc_text(pc as u32)), 0),
            };
            add(lines.entry(line).or_default(), c, lanes);
        }
        let mut routines: Vec<Row> = routines
            .into_iter()
            .map(|(name, (causes, lanes))| row(name, String::new(), causes, lanes))
            .collect();
        for o in Outside::ALL {
            let c = outside[o as usize];
            if c.total() > 0 {
                routines.push(row(o.name().into(), String::new(), c, Lanes::default()));
            }
        }
        let mut lines: Vec<Row> = lines
            .into_iter()
            .map(|((file, line), (causes, lanes))| {
                let (name, text) = match sources {
                    Some(s) if line > 0 => (
                        format!("{file}:{line}"),
                        s.line_text(&file, line).to_string(),
                    ),
                    _ => (file, String::new()),
                };
                row(name, text, causes, lanes)
            })
            .collect();
        let order = |a: &Row, b: &Row| b.cycles.cmp(&a.cycles).then_with(|| a.name.cmp(&b.name));
        routines.sort_by(order);
        lines.sort_by(order);
        let cycles = by_pc.iter().chain(&outside).map(CauseCounts::total).sum();
        let calls = sources.map_or_else(Vec::new, |s| call_rows(p, s));
        Profile {
            cycles,
            boot_cycles,
            routines,
            lines,
            calls,
        }
    }

    /// The table `pp5 run --profile` prints: the top `n` routines and lines (0: all).
    pub fn table(&self, n: usize) -> String {
        let mut out = String::new();
        let which = if n == 0 {
            "every routine and source line".to_string()
        } else {
            format!("the top {n} routines and source lines")
        };
        let boot = if self.boot_cycles > 0 {
            format!(" of the stream (the boot's {} left out)", self.boot_cycles)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "microcode profile: {} cycles{boot}; {which}",
            self.cycles
        );
        let n = if n == 0 { usize::MAX } else { n };
        section(&mut out, "routine", &self.routines, n, self.cycles);
        section(&mut out, "source line", &self.lines, n, self.cycles);
        calls_section(&mut out, &self.calls, n);
        out
    }
}

fn row(name: String, text: String, causes: CauseCounts, lanes: Lanes) -> Row {
    Row {
        name,
        text,
        cycles: causes.total(),
        causes,
        lanes: lanes.stats(),
    }
}

/// The CALLs that went to their subroutine since the boot, most first.
pub fn call_rows(p: &MicrocodeProfile, sources: &MicrocodeSources) -> Vec<CallRow> {
    let branches = p.branches_since_boot();
    let mut rows: Vec<CallRow> = (sources.calls.iter().enumerate())
        .filter_map(|(pc, t)| {
            let target = (*t)?;
            // Every CALL that went to its subroutine counts as taken.
            let count = branches.get(pc).map_or(0, |b| b[0]);
            if count == 0 {
                return None;
            }
            let src = sources.uinst(pc as u32);
            Some(CallRow {
                at: src.map_or_else(|| format!("PC {}", pc_text(pc as u32)), |e| e.at()),
                src: src.map_or_else(String::new, |e| e.position()),
                target: sources
                    .subroutine_at(target)
                    .map_or_else(|| format!("PC {}", pc_text(target)), str::to_string),
                count,
            })
        })
        .collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.at.cmp(&b.at)));
    rows
}

/// The CALLs: site, source, subroutine, calls.
fn calls_section(out: &mut String, rows: &[CallRow], n: usize) {
    if rows.is_empty() {
        return;
    }
    let w = |f: fn(&CallRow) -> &str, h: &str| {
        (rows.iter().take(n).map(|r| f(r).chars().count()))
            .max()
            .unwrap_or(0)
            .max(h.len())
    };
    let (wa, ws) = (w(|r| &r.at, "call"), w(|r| &r.src, "source"));
    let _ = writeln!(
        out,
        "  {:<wa$} {:<ws$} {:>12}  subroutine",
        "call", "source", "calls"
    );
    for r in rows.iter().take(n) {
        let _ = writeln!(
            out,
            "  {:<wa$} {:<ws$} {:>12}  {}",
            r.at, r.src, r.count, r.target
        );
    }
    if rows.len() > n {
        let _ = writeln!(out, "  ... and {} more", rows.len() - n);
    }
}

/// One table: name, cycles, share, executing cycles, and the other causes that occur.
fn section(out: &mut String, what: &str, rows: &[Row], n: usize, total: u64) {
    let width = rows
        .iter()
        .take(n)
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(what.len());
    let _ = writeln!(
        out,
        "  {what:<width$} {:>12} {:>6} {:>12} {:>21}  stalled / other",
        "cycles", "%", "executing", "lanes min/mean/max"
    );
    for r in rows.iter().take(n) {
        let pct = if total == 0 {
            0.0
        } else {
            100.0 * r.cycles as f64 / total as f64
        };
        let others: Vec<String> = Cause::ALL
            .iter()
            .filter(|&&c| c != Cause::Executing && r.causes.get(c) > 0)
            .map(|&c| format!("{} {}", c.name(), r.causes.get(c)))
            .collect();
        let lanes = r.lanes.map_or_else(String::new, |l| l.text());
        let _ = write!(
            out,
            "  {:<width$} {:>12} {:>5.1}% {:>12} {:>21}  {}",
            r.name,
            r.cycles,
            pct,
            r.causes.get(Cause::Executing),
            lanes,
            others.join(", ")
        );
        if !r.text.is_empty() {
            let _ = write!(out, "    | {}", r.text);
        }
        // No trailing blanks where a row has no other causes.
        let end = out.trim_end_matches(' ').len();
        out.truncate(end);
        out.push('\n');
    }
    if rows.len() > n {
        let _ = writeln!(out, "  ... and {} more", rows.len() - n);
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
