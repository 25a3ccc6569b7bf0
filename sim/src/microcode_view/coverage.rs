//! Microcode coverage as an lcov tracefile (the format `genhtml` and `lcov` read: `SF`, `FN`,
//! `FNDA`, `BRDA`, `DA` records per source file, `end_of_record`).
//!
//! - `DA:line,count`: how many times the microinstructions of a source line executed (a
//!   flow-control construct counts on its own line); every line that holds a microinstruction
//!   is listed, executed or not.
//! - `FN`/`FNDA`: one function per routine (a command's microcode, or the code under a label
//!   before the first command), counted by the executions of its first microinstruction, and
//!   one per subroutine (a label a CALL goes to), counted by its calls.
//! - `BRDA:line,0,0,taken` and `BRDA:line,0,1,not_taken`: each conditional sequencer branch
//!   (LOOP, LOOPD, JAEO, JNAEO, JOPRGT) and each flow-control instruction that can both jump
//!   and go on; `-` for a branch whose microinstruction never executed. A CALL is no branch
//!   (lcov has no record for calls: the profile and the annotated listing count them).
//! - Exclusion markers, as gcov and lcov take them from comments in the source: a line with
//!   `LCOV_EXCL_LINE`, and the lines from one with `LCOV_EXCL_START` to one with
//!   `LCOV_EXCL_STOP` (both included), get no `DA` and no `BRDA` records (and a function
//!   that starts there no `FN`); `LCOV_EXCL_BR_LINE`, `LCOV_EXCL_BR_START`/`_STOP` take out
//!   the `BRDA` records only.

use super::MicrocodeSources;
use crate::asm::microcode::StoreKind;
use crate::engine::MicrocodeProfile;
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;

/// The lines of a source that its exclusion markers take out: (all records, branches only).
#[derive(Default)]
pub struct Excluded {
    pub lines: HashSet<usize>,
    pub branches: HashSet<usize>,
}

/// The 1-based lines `text`'s `LCOV_EXCL_*` markers exclude (as lcov: a region left open
/// runs to the end of the file).
pub fn excluded(text: &str) -> Excluded {
    let mut x = Excluded::default();
    let (mut all, mut br) = (false, false);
    for (k, l) in text.lines().enumerate() {
        let n = k + 1;
        // `LCOV_EXCL_BR_*` contains no `LCOV_EXCL_START` etc.: the forms are told apart.
        if l.contains("LCOV_EXCL_START") {
            all = true;
        }
        if l.contains("LCOV_EXCL_BR_START") {
            br = true;
        }
        if all || l.contains("LCOV_EXCL_LINE") {
            x.lines.insert(n);
        }
        if br || l.contains("LCOV_EXCL_BR_LINE") {
            x.branches.insert(n);
        }
        if l.contains("LCOV_EXCL_STOP") {
            all = false;
        }
        if l.contains("LCOV_EXCL_BR_STOP") {
            br = false;
        }
    }
    x
}

/// What one source line holds.
#[derive(Default)]
struct Line {
    count: u64,
    /// Branch outcomes of its conditional microinstructions, if it has any: (taken, not
    /// taken, executed).
    branch: Option<(u64, u64, bool)>,
}

/// The lcov tracefile of `profile` over the microcode `sources`, with test name `test`.
pub fn lcov(profile: &MicrocodeProfile, sources: &MicrocodeSources, test: &str) -> String {
    // file -> line -> counts; file -> routine -> (first line, executions of its first
    // microinstruction), in source order.
    let mut files: BTreeMap<&str, BTreeMap<usize, Line>> = BTreeMap::new();
    let mut routines: BTreeMap<&str, Vec<(String, usize, u64)>> = BTreeMap::new();
    // Calls into each subroutine (by address): the CALLs that went there.
    let mut calls: BTreeMap<u32, u64> = BTreeMap::new();
    for (pc, t) in sources.calls.iter().enumerate() {
        if let Some(t) = t {
            *calls.entry(*t).or_default() += profile.branches.get(pc).map_or(0, |b| b[0]);
        }
    }
    for e in &sources.map.entries {
        let StoreKind::Uinst { uinst, word: 0 } = e.kind else {
            continue;
        };
        let pc = uinst as usize;
        let execs = profile.executions(pc);
        let line = files
            .entry(e.file.as_str())
            .or_default()
            .entry(e.line)
            .or_default();
        line.count += execs;
        if is_branch(profile, pc, sources) {
            let [t, n] = profile.branches.get(pc).copied().unwrap_or([0, 0]);
            let b = line.branch.get_or_insert((0, 0, false));
            b.0 += t;
            b.1 += n;
            b.2 |= execs > 0;
        }
        let function = match (&e.routine, sources.subroutine_at(uinst)) {
            (Some(r), _) if e.offset == 0 => Some((r.clone(), execs)),
            // A subroutine that is not a command's entry: a function of its own.
            (_, Some(s)) => Some((s.to_string(), calls.get(&uinst).copied().unwrap_or(0))),
            _ => None,
        };
        if let Some((name, n)) = function {
            routines
                .entry(e.file.as_str())
                .or_default()
                .push((name, e.line, n));
        }
    }
    let mut out = String::new();
    for (file, lines) in &mut files {
        let text = sources
            .parts
            .iter()
            .find(|p| p.0 == *file)
            .map_or("", |p| p.1.as_str());
        let x = excluded(text);
        lines.retain(|n, _| !x.lines.contains(n));
        for (n, l) in lines.iter_mut() {
            if x.branches.contains(n) {
                l.branch = None;
            }
        }
        let _ = writeln!(out, "TN:{}", sanitize_test_name(test));
        let _ = writeln!(out, "SF:{}", sources.report_path(file));
        let mut fns = routines.get(file).cloned().unwrap_or_default();
        fns.retain(|f| !x.lines.contains(&f.1));
        let fns = fns.as_slice();
        for (name, line, _) in fns {
            let _ = writeln!(out, "FN:{line},{name}");
        }
        for (name, _, n) in fns {
            let _ = writeln!(out, "FNDA:{n},{name}");
        }
        let _ = writeln!(out, "FNF:{}", fns.len());
        let _ = writeln!(out, "FNH:{}", fns.iter().filter(|f| f.2 > 0).count());
        let (mut brf, mut brh) = (0, 0);
        for (line, l) in lines.iter() {
            if let Some((t, n, ran)) = l.branch {
                let show = |c: u64| if ran { c.to_string() } else { "-".into() };
                let _ = writeln!(out, "BRDA:{line},0,0,{}", show(t));
                let _ = writeln!(out, "BRDA:{line},0,1,{}", show(n));
                brf += 2;
                brh += u32::from(t > 0) + u32::from(n > 0);
            }
        }
        let _ = writeln!(out, "BRF:{brf}");
        let _ = writeln!(out, "BRH:{brh}");
        for (line, l) in lines.iter() {
            let _ = writeln!(out, "DA:{line},{}", l.count);
        }
        let _ = writeln!(out, "LF:{}", lines.len());
        let _ = writeln!(out, "LH:{}", lines.values().filter(|l| l.count > 0).count());
        out.push_str("end_of_record\n");
    }
    out
}

/// Whether the microinstruction at `pc` is a conditional branch, one that can both jump
/// and go on (decoded from the image's words: an unconditional JMP, CALL or RETURN, or an
/// ENDIF, is not one, though the profile counts its outcomes).
fn is_branch(profile: &MicrocodeProfile, pc: usize, sources: &MicrocodeSources) -> bool {
    // What the words say; past the sources' image (never), what the profile counted.
    let counted = || profile.branches.get(pc).is_some_and(|b| b[0] + b[1] > 0);
    sources.branches.get(pc).copied().unwrap_or_else(counted)
}

/// lcov test names are letters, digits and underscores.
fn sanitize_test_name(t: &str) -> String {
    t.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::excluded;

    /// The markers as lcov reads them: a line, a region with both ends in it, the branch
    /// forms apart from the others, a region left open running to the end.
    #[test]
    fn exclusion_markers() {
        let text = "a\nb ; LCOV_EXCL_LINE\nc\n; LCOV_EXCL_START\nd\n; LCOV_EXCL_STOP\ne\n\
                    f ; LCOV_EXCL_BR_LINE\n; LCOV_EXCL_BR_START\ng\n; LCOV_EXCL_BR_STOP\n\
                    h\n; LCOV_EXCL_START\ni\n";
        let x = excluded(text);
        let mut lines: Vec<usize> = x.lines.into_iter().collect();
        lines.sort_unstable();
        assert_eq!(lines, [2, 4, 5, 6, 13, 14]);
        let mut br: Vec<usize> = x.branches.into_iter().collect();
        br.sort_unstable();
        assert_eq!(br, [8, 9, 10, 11]);
    }
}
