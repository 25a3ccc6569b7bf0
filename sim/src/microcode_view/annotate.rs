//! The annotated listing, `perf annotate` for microcode: every microinstruction in source
//! order with its executions, its cycles (and their share of the user's stream, the boot
//! left out as in the profile), the cycles it stalled by cause, its SIMD lane use (the PEs
//! enabled when it ran: [`super::lanes`]), a conditional branch's outcomes and a CALL's
//! calls. Microinstructions are grouped by function: a command's routine, or a subroutine (a
//! label some CALL goes to) up to the next function. `pp5 run --annotate[=FILE]` prints or
//! writes [`Annotation::text`]; `--report json` holds the same as `"annotate"`.

use super::profile::Row;
use super::MicrocodeSources;
use crate::asm::microcode::StoreKind;
use crate::engine::lanes::LaneStats;
use crate::engine::{MicrocodeProfile, Outside};
use crate::records::CauseCounts;
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::store::pc_text;
use serde::Serialize;
use std::collections::HashSet;
use std::fmt::Write;

/// A conditional branch's outcomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Branch {
    pub taken: u64,
    pub not_taken: u64,
}

/// A CALL: the subroutine it goes to, and how many times it went there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Call {
    pub target: String,
    pub count: u64,
}

/// One microinstruction of the listing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Uinst {
    /// Its address, and the same as the listing's `uinst` column writes it (`0fb`).
    pub pc: u32,
    pub uinst: String,
    /// The function it belongs to: its command's routine, or the subroutine it is in.
    pub function: String,
    /// Routine and offset (`FIVE+1`).
    pub at: String,
    /// Source position and text (empty for an image without sources).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub src: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Times it executed (a stalled one executes once, after its stall).
    pub executions: u64,
    /// Cycles charged to it (executing and stalled), and their share of the stream's.
    pub cycles: u64,
    pub percent: f64,
    pub causes: CauseCounts,
    /// The PEs enabled when it executed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lanes: Option<LaneStats>,
    /// A conditional branch's outcomes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<Branch>,
    /// A CALL's subroutine and calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<Call>,
}

/// The annotated listing of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Annotation {
    /// The stream's cycles (the boot's left out), which the shares are of.
    pub cycles: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub boot_cycles: u64,
    /// The cycles outside the microcode (between commands, RMode, stuck).
    pub outside: Vec<Row>,
    /// Every microinstruction, in source order.
    pub uinsts: Vec<Uinst>,
}

impl Annotation {
    /// The annotated listing of `p` over the image's `uinsts` microinstructions, named by
    /// `sources` (or by `label_of`, a microinstruction's label and offset, for an image
    /// without sources: then in address order).
    pub fn of(
        p: &MicrocodeProfile,
        sources: Option<&MicrocodeSources>,
        uinsts: u32,
        label_of: impl Fn(u32) -> Option<(String, u32)>,
    ) -> Annotation {
        let (by_pc, outside, boot_cycles) = p.since_boot();
        let branches = p.branches_since_boot();
        let cycles: u64 = by_pc.iter().chain(&outside).map(CauseCounts::total).sum();
        let share = |c: u64| {
            if cycles == 0 {
                0.0
            } else {
                100.0 * c as f64 / cycles as f64
            }
        };
        let outside = Outside::ALL
            .iter()
            .filter(|o| outside[**o as usize].total() > 0)
            .map(|o| {
                let c = outside[*o as usize];
                Row {
                    name: o.name().into(),
                    text: String::new(),
                    cycles: c.total(),
                    causes: c,
                    lanes: None,
                }
            })
            .collect();
        // The microinstructions in source order: (pc, at, src, text, starts a function).
        let order: Vec<(u32, String, String, String, Option<String>)> = match sources {
            Some(s) => {
                let file_index = |f: &str| s.parts.iter().position(|p| p.0 == f);
                let mut v: Vec<_> = (s.map.entries.iter())
                    .filter(|e| matches!(e.kind, StoreKind::Uinst { word: 0, .. }))
                    .collect();
                v.sort_by_key(|e| (file_index(&e.file), e.line, e.addr));
                let targets: HashSet<u32> = s.calls.iter().flatten().copied().collect();
                v.into_iter()
                    .filter_map(|e| {
                        let StoreKind::Uinst { uinst, .. } = e.kind else {
                            return None;
                        };
                        let start = if targets.contains(&uinst) {
                            s.subroutine_at(uinst).map(str::to_string)
                        } else if e.offset == 0 {
                            e.routine.clone()
                        } else {
                            None
                        };
                        let text = s.line_text(&e.file, e.line).to_string();
                        Some((uinst, e.at(), e.position(), text, start))
                    })
                    .collect()
            }
            None => (0..uinsts)
                .map(|pc| {
                    let l = label_of(pc);
                    let at = l
                        .as_ref()
                        .map_or_else(|| format!("@{pc}"), |(l, o)| format!("{l}+{o}"));
                    let start = l.filter(|(_, o)| *o == 0).map(|(l, _)| l);
                    (pc, at, String::new(), String::new(), start)
                })
                .collect(),
        };
        let mut function = String::new();
        let uinsts = order
            .into_iter()
            .map(|(pc, at, src, text, start)| {
                if let Some(f) = start {
                    function = f;
                } else if function.is_empty() {
                    function.clone_from(&at);
                }
                let k = pc as usize;
                let c = by_pc.get(k).copied().unwrap_or_default();
                let [taken, not_taken] = branches.get(k).copied().unwrap_or([0, 0]);
                let is_branch = sources.map_or(taken + not_taken > 0, |s| {
                    s.branches.get(k).copied().unwrap_or(false)
                });
                let call = sources.and_then(|s| s.calls.get(k).copied().flatten());
                Uinst {
                    pc,
                    uinst: format!("{pc:03x}"),
                    function: function.clone(),
                    at,
                    src,
                    text,
                    executions: c.get(Cause::Executing) + c.get(Cause::Hung),
                    cycles: c.total(),
                    percent: share(c.total()),
                    causes: c,
                    lanes: p.lanes.get(k).and_then(|l| l.stats()),
                    branch: is_branch.then_some(Branch { taken, not_taken }),
                    call: call.map(|t| Call {
                        target: sources
                            .and_then(|s| s.subroutine_at(t))
                            .map_or_else(|| format!("PC {}", pc_text(t)), str::to_string),
                        count: taken,
                    }),
                }
            })
            .collect();
        Annotation {
            cycles,
            boot_cycles,
            outside,
            uinsts,
        }
    }

    /// The listing as text: a header with the stream's cycles and those outside the
    /// microcode, then per function a line with its cycles and each microinstruction under
    /// it (a function that did not run is one line), a microinstruction's stalls, branch
    /// outcomes and calls on a `;` line under it.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let boot = if self.boot_cycles > 0 {
            format!(" of the stream (the boot's {} left out)", self.boot_cycles)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "microcode annotate: {} cycles{boot}; every microinstruction in source order",
            self.cycles
        );
        let pct = |c: u64| {
            if self.cycles == 0 {
                0.0
            } else {
                100.0 * c as f64 / self.cycles as f64
            }
        };
        for r in &self.outside {
            let _ = writeln!(
                out,
                "; {}: {} cycle{}, {:.1}% ({})",
                r.name,
                r.cycles,
                if r.cycles == 1 { "" } else { "s" },
                pct(r.cycles),
                causes_text(&r.causes, true)
            );
        }
        // The columns fit the functions that ran (the others are one line each).
        let ran: HashSet<&str> = (self.uinsts.iter())
            .filter(|u| u.cycles > 0)
            .map(|u| u.function.as_str())
            .collect();
        let width = |f: fn(&Uinst) -> &str, h: &str| {
            (self.uinsts.iter())
                .filter(|u| ran.contains(u.function.as_str()))
                .map(|u| f(u).chars().count())
                .max()
                .unwrap_or(0)
                .max(h.len())
        };
        let (wa, ws) = (width(|u| &u.at, "at"), width(|u| &u.src, "source"));
        let head = format!(
            "{:>7} {:>10} {:>10} {:>8} {:>6} {:>8} {:>6}  {:<5}  {:<wa$}  {:<ws$}  ",
            "%", "cycles", "execs", "stalled", "min", "mean", "max", "uinst", "at", "source"
        );
        let indent = head.chars().count();
        let lanes = format!("{:39}{:^22}", "", "lanes (enabled PEs)");
        let _ = writeln!(out, "{}", lanes.trim_end());
        let _ = writeln!(out, "{head}text");
        let mut k = 0;
        while k < self.uinsts.len() {
            let f = &self.uinsts[k].function;
            let n = self.uinsts[k..]
                .iter()
                .take_while(|u| u.function == *f)
                .count();
            let group = &self.uinsts[k..k + n];
            k += n;
            let cycles: u64 = group.iter().map(|u| u.cycles).sum();
            let calls = self.calls_into(f);
            let called = if calls > 0 {
                format!(", called {calls} time{}", if calls == 1 { "" } else { "s" })
            } else {
                String::new()
            };
            if cycles == 0 {
                let _ = writeln!(
                    out,
                    "; {f}: did not run ({} microinstruction{}{}){called}",
                    n,
                    if n == 1 { "" } else { "s" },
                    span(group)
                );
                continue;
            }
            let _ = writeln!(
                out,
                "; {f}: {cycles} cycle{}, {:.1}%{called}",
                if cycles == 1 { "" } else { "s" },
                pct(cycles)
            );
            for u in group {
                let (min, mean, max) =
                    u.lanes
                        .map_or((String::new(), String::new(), String::new()), |l| {
                            (
                                l.min.to_string(),
                                format!("{:.1}", l.mean),
                                l.max.to_string(),
                            )
                        });
                let _ = writeln!(
                    out,
                    "{:>6.1}% {:>10} {:>10} {:>8} {:>6} {:>8} {:>6}  {:<5}  {:<wa$}  {:<ws$}  {}",
                    u.percent,
                    u.cycles,
                    u.executions,
                    u.cycles - u.causes.get(Cause::Executing),
                    min,
                    mean,
                    max,
                    u.uinst,
                    u.at,
                    u.src,
                    u.text
                );
                let mut notes = Vec::new();
                let stalls = causes_text(&u.causes, false);
                if !stalls.is_empty() {
                    notes.push(format!("stalled: {stalls}"));
                }
                if let Some(b) = u.branch {
                    notes.push(format!(
                        "branch: taken {}, not taken {}",
                        b.taken, b.not_taken
                    ));
                }
                if let Some(c) = &u.call {
                    notes.push(format!("call {}: {}", c.target, c.count));
                }
                if !notes.is_empty() {
                    let _ = writeln!(out, "{:indent$}; {}", "", notes.join("; "));
                }
            }
        }
        out
    }

    /// How many times the CALLs went to the subroutine `f`.
    fn calls_into(&self, f: &str) -> u64 {
        (self.uinsts.iter())
            .filter_map(|u| u.call.as_ref())
            .filter(|c| c.target == f)
            .map(|c| c.count)
            .sum()
    }
}

/// `standard.pp5uc:60-62` for the lines of a group (in one file), `` without sources.
fn span(group: &[Uinst]) -> String {
    let pos = |u: &Uinst| {
        u.src
            .rsplit_once(':')
            .map(|(f, l)| (f.to_string(), l.to_string()))
    };
    match (group.first().and_then(pos), group.last().and_then(pos)) {
        (Some((f, a)), Some((g, b))) if f == g && a != b => format!(", {f}:{a}-{b}"),
        (Some((f, a)), _) => format!(", {f}:{a}"),
        _ => String::new(),
    }
}

/// The causes of `c` other than executing (with `all`, every one), `name n` by commas.
fn causes_text(c: &CauseCounts, all: bool) -> String {
    Cause::ALL
        .iter()
        .filter(|&&k| (all || k != Cause::Executing) && c.get(k) > 0)
        .map(|&k| format!("{} {}", k.name(), c.get(k)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
