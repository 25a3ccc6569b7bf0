//! Microcode coverage as an lcov tracefile (the format `genhtml` and `lcov` read: `SF`, `FN`,
//! `FNDA`, `BRDA`, `DA` records per source file, `end_of_record`).
//!
//! - `DA:line,count`: how many times the microinstructions of a source line executed (a
//!   flow-control construct counts on its own line); every line that holds a microinstruction
//!   is listed, executed or not.
//! - `FN`/`FNDA`: one function per routine (a command's microcode, or the code under a label
//!   before the first command), counted by the executions of its first microinstruction.
//! - `BRDA:line,0,0,taken` and `BRDA:line,0,1,not_taken`: each conditional sequencer branch
//!   (LOOP, LOOPD, JAEO, JNAEO, JOPRGT) and each flow-control instruction; `-` for a branch
//!   whose microinstruction never executed.

use super::MicrocodeSources;
use crate::asm::microcode::StoreKind;
use crate::engine::MicrocodeProfile;
use std::collections::BTreeMap;
use std::fmt::Write;

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
        if e.offset == 0 {
            if let Some(r) = &e.routine {
                routines
                    .entry(e.file.as_str())
                    .or_default()
                    .push((r.clone(), e.line, execs));
            }
        }
    }
    let mut out = String::new();
    for (file, lines) in &files {
        let _ = writeln!(out, "TN:{}", sanitize_test_name(test));
        let _ = writeln!(out, "SF:{}", sources.report_path(file));
        let fns = routines.get(file).map(Vec::as_slice).unwrap_or(&[]);
        for (name, line, _) in fns {
            let _ = writeln!(out, "FN:{line},{name}");
        }
        for (name, _, n) in fns {
            let _ = writeln!(out, "FNDA:{n},{name}");
        }
        let _ = writeln!(out, "FNF:{}", fns.len());
        let _ = writeln!(out, "FNH:{}", fns.iter().filter(|f| f.2 > 0).count());
        let (mut brf, mut brh) = (0, 0);
        for (line, l) in lines {
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
        for (line, l) in lines {
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
