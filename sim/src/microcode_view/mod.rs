//! What a microcode author sees of a run (issue 28): where each microinstruction came from
//! ([`MicrocodeSources`]: the source texts and the assembler's source map), the coverage of
//! the microcode sources as an lcov tracefile ([`coverage`]), where the cycles went per
//! routine and source line ([`profile`]), breakpoints by label ([`parse_until`]), what a
//! run stopped at a breakpoint shows ([`StopReport`]) and the whole test suite's coverage
//! ([`suite_coverage`]).
//!
//! The counts come from the engine's [`crate::engine::MicrocodeProfile`] observer; the
//! engine knows nothing of this view.

pub mod annotate;
pub mod coverage;
pub mod profile;
pub mod stop_report;
pub mod suite_coverage;

pub use self::stop_report::StopReport;

use crate::asm::microcode::{self, McImage, SourceMap, StoreSource};
use crate::engine::{Cond, Until};
use pp5_rtl::igc::store::pc_text;
use pp5_rtl::igc::UinstNames;

/// The microcode sources of an image: the `(file, text)` parts it was assembled from, in
/// order, and its source map. A part is named by the shortest end of its path that tells it
/// from the others ([`short_names`]: `my.pp5uc` for `$REPO/sim/microcode/../my.pp5uc`) in
/// the listing, the profile, run-time messages and the waveform; the path as given is kept
/// for assembly errors (as compilers name files) and the coverage report, which must find
/// the file.
#[derive(Clone, Debug, Default)]
pub struct MicrocodeSources {
    pub parts: Vec<(String, String)>,
    /// Per part, in order: the path as it was given.
    pub paths: Vec<String>,
    pub map: SourceMap,
    /// Per microinstruction address: it is a conditional branch (a conditional sequencer
    /// operation or a flow-control instruction that can both jump and go on).
    pub branches: Vec<bool>,
    /// Per microinstruction address: the address a CALL there goes to (`None` for the
    /// microinstructions that are no CALL). A CALL is counted apart from the branches.
    pub calls: Vec<Option<u32>>,
    /// The image's labels and their microinstruction addresses, in source order.
    pub labels: Vec<(String, u32)>,
}

impl MicrocodeSources {
    /// Assemble `parts` together (as `pp5 run --microcode A --microcode B` does); one part is
    /// assembled on its own, as `pp5 run --microcode A` always did (the same messages).
    pub fn assemble(
        parts: Vec<(String, String)>,
    ) -> Result<(McImage, MicrocodeSources), microcode::AsmErrors> {
        let paths: Vec<String> = parts.iter().map(|p| p.0.clone()).collect();
        let names = short_names(&paths);
        let parts: Vec<(String, String)> = names
            .into_iter()
            .zip(parts.into_iter().map(|p| p.1))
            .collect();
        let assembled = match &parts[..] {
            [(file, text)] => microcode::assemble_mapped(text, file),
            _ => microcode::assemble_files_mapped(&parts),
        };
        // Errors name the files as they were given, as compilers do.
        let typed = |name: &mut String| {
            if let Some(k) = parts.iter().position(|p| p.0 == *name) {
                name.clone_from(&paths[k]);
            }
        };
        let (image, map) = assembled.map_err(|mut errs| {
            for e in &mut errs.errors {
                typed(&mut e.file);
                if let Some(n) = &mut e.note {
                    typed(&mut n.file);
                }
            }
            errs
        })?;
        let (branches, calls) = branches(&image);
        let labels = image.labels.clone();
        Ok((
            image,
            MicrocodeSources {
                parts,
                paths,
                map,
                branches,
                calls,
                labels,
            },
        ))
    }

    /// The path `file` (a part's name) was given as; `file` itself if no part has that name.
    pub fn path_of<'a>(&'a self, file: &'a str) -> &'a str {
        self.parts
            .iter()
            .position(|p| p.0 == file)
            .and_then(|k| self.paths.get(k))
            .map_or(file, String::as_str)
    }

    /// The built-in default microcode (standard, qee and flow sources), with its sources.
    pub fn default_image() -> (McImage, MicrocodeSources) {
        let parts = microcode::default_parts();
        Self::assemble(parts).unwrap_or_else(|e| {
            unreachable!("the shipped microcode assembles (a unit test checks): {e}")
        })
    }

    /// Where the microinstruction at `pc` came from.
    pub fn uinst(&self, pc: u32) -> Option<&StoreSource> {
        self.map.uinst(pc)
    }

    /// Per microinstruction address, its routine and offset and its source position, for
    /// the waveform's `renderer.igc.uinst.at` and `.src` ([`IgcNames::set_uinsts`];
    /// `""` where no source sets the address).
    ///
    /// [`IgcNames::set_uinsts`]: pp5_rtl::igc::IgcNames::set_uinsts
    pub fn uinst_names(&self) -> UinstNames {
        (0..self.branches.len() as u32)
            .map(|pc| {
                self.uinst(pc).map_or_else(
                    || (Box::from(""), Box::from("")),
                    |s| (s.at().into(), s.position().into()),
                )
            })
            .collect()
    }

    /// The path a coverage report names for `file`: the shipped sources by their place in
    /// this checkout (`sim/microcode/standard.pp5uc`, absolute), a user's file as given,
    /// made absolute when it exists.
    pub fn report_path(&self, file: &str) -> String {
        let file = self.path_of(file);
        let shipped = ["standard.pp5uc", "qee.pp5uc", "flow.pp5uc", "shade.pp5uc"];
        if shipped.contains(&file) && !std::path::Path::new(file).exists() {
            return format!("{}/microcode/{file}", env!("CARGO_MANIFEST_DIR"));
        }
        std::fs::canonicalize(file).map_or_else(|_| file.to_string(), |p| p.display().to_string())
    }

    /// The source text of `file`'s line `line` (1-based), trimmed.
    pub fn line_text(&self, file: &str, line: usize) -> &str {
        self.parts
            .iter()
            .find(|(f, _)| f == file)
            .and_then(|(_, t)| t.lines().nth(line.wrapping_sub(1)))
            .map_or("", |l| l.trim_start_matches('\u{feff}').trim())
    }
}

/// The names of files given by these paths: the shortest end of each path (whole
/// components) that no other path ends in, so `a/s.pp5uc` and `b/s.pp5uc` stay apart and
/// `/work/x/my.pp5uc` is `my.pp5uc`. Paths that are the same are named the same.
pub fn short_names(paths: &[String]) -> Vec<String> {
    let comps = |p: &str| -> Vec<String> {
        std::path::Path::new(p)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect()
    };
    let all: Vec<Vec<String>> = paths.iter().map(|p| comps(p)).collect();
    let tail = |c: &[String], n: usize| c[c.len().saturating_sub(n)..].join("/");
    all.iter()
        .zip(paths)
        .map(|(c, path)| {
            (1..=c.len())
                .map(|n| tail(c, n))
                .find(|t| {
                    all.iter()
                        .zip(paths)
                        .filter(|(_, q)| *q != path)
                        .all(|(o, _)| tail(o, t.matches('/').count() + 1) != *t)
                })
                .unwrap_or_else(|| path.clone())
        })
        .collect()
}

/// Which microinstructions of `image` are conditional branches, and where its CALLs go.
fn branches(image: &McImage) -> (Vec<bool>, Vec<Option<u32>>) {
    use pp5_rtl::igc::microinstruction::{decode, Seq, WORDS_PER_UINST};
    let mut words = vec![[0u32; 4]; image.uinsts as usize];
    for &(a, v) in &image.words {
        let (u, k) = (a as usize / WORDS_PER_UINST, a as usize % WORDS_PER_UINST);
        if let Some(w) = words.get_mut(u) {
            w[k] = v;
        }
    }
    let branches = words
        .iter()
        .map(|w| {
            decode(w).is_ok_and(|m| match m.fc {
                Some(fc) => fc_can_jump_and_go_on(&fc),
                None => matches!(
                    m.seq,
                    Seq::Loop | Seq::LoopD | Seq::JAeo | Seq::JNAeo | Seq::JOprGt
                ),
            })
        })
        .collect();
    let calls = words
        .iter()
        .map(|w| {
            use pp5_rtl::flow_control::instruction::{AOp, FcOp};
            let m = decode(w).ok()?;
            let fc = m.fc?;
            (fc.op == FcOp::Jump && fc.a_op == AOp::Push).then_some(u32::from(m.target))
        })
        .collect();
    (branches, calls)
}

impl MicrocodeSources {
    /// The name of the subroutine at `pc`, when a CALL goes there: its first label.
    pub fn subroutine_at(&self, pc: u32) -> Option<&str> {
        if !self.calls.contains(&Some(pc)) {
            return None;
        }
        self.labels.iter().find(|l| l.1 == pc).map(|l| l.0.as_str())
    }
}

/// Whether a flow-control instruction can both jump and go on (rtl/src/flow_control/step.rs,
/// `decide`): an unconditional JUMP with JUMP_FUNC 0xff voted by all PEs (JMP, CALL,
/// RETURN) always jumps, and a JUMP_ANY with JUMP_FUNC 0x00 and no B_ELSE (ENDIF, POP)
/// never does; loops, breaks and the rest go either way.
fn fc_can_jump_and_go_on(fc: &pp5_rtl::flow_control::instruction::FcInstr) -> bool {
    use pp5_rtl::flow_control::instruction::FcOp;
    if fc.op != FcOp::Jump {
        return true;
    }
    let always = !fc.jump_any && fc.jump_func == 0xff;
    let never = fc.jump_any && fc.jump_func == 0 && !fc.b_else;
    !always && !never
}

/// A breakpoint as the user writes it: `LABEL[+OFFSET][#N]`, before the microinstruction
/// runs ([`resolve_until`]), with a condition after ` if ` (`five_l if renderer.igc.l == 3`,
/// [`Cond::parse`]). `option` names it in errors (`--break`).
pub fn parse_until(spec: &str, image: &McImage, option: &str) -> Result<Until, String> {
    let (place, cond) = match spec.split_once(" if ") {
        Some((p, c)) => (p.trim(), Some(c.trim())),
        None => (spec.trim(), None),
    };
    let until = resolve_until(place, image)
        .map_err(|e| e.replacen("--until ", &format!("{option} "), 1))?;
    match cond {
        None => Ok(until),
        Some(c) => Cond::parse(c)
            .map(|c| Until::If(Box::new(until), c))
            .map_err(|e| format!("{option} {spec}: {e}")),
    }
}

/// A breakpoint as the user writes it, `LABEL[+OFFSET][#N]`: a label of the microcode (or a
/// command's name, meaning its first microinstruction), an offset in microinstructions from
/// it, and which time the IGC reaches it (the first by default). An unknown label is an
/// error that names the nearest known ones.
pub fn resolve_until(spec: &str, image: &McImage) -> Result<Until, String> {
    let (place, hits) = match spec.rsplit_once('#') {
        Some((p, n)) => (
            p,
            n.parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("--until {spec}: #N must be a positive count"))?,
        ),
        None => (spec, 1),
    };
    let (label, offset) = match place.split_once('+') {
        Some((l, o)) => (
            l,
            o.parse::<u32>()
                .map_err(|_| format!("--until {spec}: +OFFSET must be a number"))?,
        ),
        None => (place, 0),
    };
    let base = image
        .labels
        .iter()
        .find(|(n, _)| n == label)
        .map(|l| l.1)
        .or_else(|| {
            image
                .table
                .commands
                .iter()
                .find(|c| c.name == label)
                .and_then(|c| c.entry)
        });
    let Some(base) = base else {
        return Err(format!(
            "--until {spec}: no label or command {label:?} in the microcode; the nearest: {}",
            nearest(label, image).join(", ")
        ));
    };
    // The routine ends where the next command's routine starts (or the code ends).
    let end = image
        .table
        .commands
        .iter()
        .filter_map(|c| c.entry)
        .filter(|&e| e > base)
        .min()
        .unwrap_or(image.uinsts)
        .min(image.uinsts);
    let pc = base.saturating_add(offset);
    if pc >= end {
        return Err(format!(
            "--until {spec}: {label}+{offset} is past the end of its routine: {label} has {n} \
             microinstruction{s} ({label}+0..{label}+{last}, PC {}..{})",
            pc_text(base),
            pc_text(end.saturating_sub(1)),
            n = end - base,
            s = if end - base == 1 { "" } else { "s" },
            last = (end - base).saturating_sub(1),
        ));
    }
    Ok(Until::Uinst {
        pc: pc as u16,
        hits,
        name: place.to_string(),
    })
}

/// The known labels and command names nearest to `name` (by edit distance, case ignored),
/// at most five.
fn nearest(name: &str, image: &McImage) -> Vec<String> {
    let labels = image.labels.iter().map(|l| l.0.as_str());
    let commands = image.table.commands.iter().map(|c| c.name.as_str());
    crate::suggest::nearest(name, labels.chain(commands), 5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breakpoints_resolve_labels_commands_offsets_and_counts() {
        let (image, _) = MicrocodeSources::default_image();
        let at = |l: &str| image.labels.iter().find(|x| x.0 == l).unwrap().1 as u16;
        assert_eq!(
            resolve_until("gcd_inc", &image),
            Ok(Until::Uinst {
                pc: at("gcd_inc"),
                hits: 1,
                name: "gcd_inc".into()
            })
        );
        assert_eq!(
            resolve_until("gcd_inc+1#3", &image),
            Ok(Until::Uinst {
                pc: at("gcd_inc") + 1,
                hits: 3,
                name: "gcd_inc+1".into()
            })
        );
        let entry = image
            .table
            .commands
            .iter()
            .find(|c| c.name == "GCDSTEPS")
            .and_then(|c| c.entry)
            .unwrap() as u16;
        assert!(
            matches!(resolve_until("GCDSTEPS", &image), Ok(Until::Uinst { pc, .. }) if pc == entry)
        );
        let e = resolve_until("gcd_incc", &image).unwrap_err();
        assert!(
            e.contains("no label or command \"gcd_incc\"") && e.contains("gcd_inc"),
            "{e}"
        );
        assert!(resolve_until("gcd_inc#0", &image).is_err());
        assert!(resolve_until("gcd_inc+x", &image).is_err());
        assert!(resolve_until("gcd_inc+5000", &image).is_err());
        // Past the routine's end, though inside the code (issue 37 item 11).
        let entry_of = |n: &str| {
            let c = image.table.commands.iter().find(|c| c.name == n);
            c.and_then(|c| c.entry).unwrap()
        };
        let clear = entry_of("CLEAR");
        let next = (image.table.commands.iter())
            .filter_map(|c| c.entry)
            .filter(|&e| e > clear)
            .min()
            .unwrap();
        assert!(next < image.uinsts - 1);
        let len = next - clear;
        assert!(resolve_until(&format!("CLEAR+{}", len - 1), &image).is_ok());
        let e = resolve_until(&format!("CLEAR+{len}"), &image).unwrap_err();
        assert!(e.contains("past the end of its routine"), "{e}");
    }
}

#[cfg(test)]
mod names_and_branches {
    use super::{short_names, MicrocodeSources};

    fn names(p: &[&str]) -> Vec<String> {
        short_names(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    /// A source is named by the shortest end of its path that tells it from the others
    /// (issue 37 item 4: `$REPO/sim/microcode/...` showed as `/wo+` in GTKWave).
    #[test]
    fn sources_are_named_by_the_shortest_unique_end_of_their_path() {
        assert_eq!(
            names(&["/work/repo/sim/microcode/standard.pp5uc", "../x/my.pp5uc"]),
            ["standard.pp5uc", "my.pp5uc"]
        );
        assert_eq!(
            names(&["a/s.pp5uc", "b/s.pp5uc", "/c/a/t.pp5uc"]),
            ["a/s.pp5uc", "b/s.pp5uc", "t.pp5uc"]
        );
        assert_eq!(names(&["x/s.pp5uc", "x/s.pp5uc"]), ["s.pp5uc", "s.pp5uc"]);
        assert_eq!(names(&["<microcode 0>"]), ["<microcode 0>"]);
        // The map, the listing and the messages use the name; the coverage the path.
        let parts = vec![(
            "/tmp/deep/dir/my.pp5uc".to_string(),
            "idle: dispatch\n".to_string(),
        )];
        let (_, s) = MicrocodeSources::assemble(parts).unwrap();
        assert_eq!(s.uinst(0).unwrap().position(), "my.pp5uc:1");
        assert_eq!(s.path_of("my.pp5uc"), "/tmp/deep/dir/my.pp5uc");
    }

    /// Only what can both jump and go on is a branch (issue 37 item 5: CALL, RETURN, JMP had
    /// an impossible "not taken", ENDIF an impossible "taken").
    #[test]
    fn unconditional_flow_control_is_not_a_branch() {
        let src = "idle: dispatch\n.fcmode full\n.command F() -> f\n\
                   s:  RET\n\
                   f:  IF mem[#1]\n    e=1\n    ELSE\n    e=0\n    ENDIF\n    CALL s\n\
                   \x20   JMP t\nt:  e=1 loop t\n    dispatch\n";
        let (image, s) = MicrocodeSources::assemble(vec![("b.pp5uc".into(), src.into())]).unwrap();
        let by_line: Vec<(usize, bool)> = (0..image.uinsts)
            .map(|pc| (s.uinst(pc).unwrap().line, s.branches[pc as usize]))
            .collect();
        let branch = |line| by_line.iter().find(|x| x.0 == line).unwrap().1;
        assert!(!branch(4), "RET");
        assert!(branch(5), "IF");
        assert!(branch(7), "ELSE");
        assert!(!branch(9), "ENDIF");
        assert!(!branch(10), "CALL");
        assert!(!branch(11), "JMP");
        assert!(branch(12), "loop");
        assert!(!branch(13), "dispatch");
    }
}

#[cfg(test)]
mod default_sources {
    use super::MicrocodeSources;
    use crate::asm::microcode::{default_image, StoreKind};

    #[test]
    fn the_default_image_assembled_from_its_files_is_the_default_image() {
        let (image, sources) = MicrocodeSources::default_image();
        assert_eq!(image.words, default_image().words);
        assert_eq!(image.labels, default_image().labels);
        assert_eq!(image.uinsts, default_image().uinsts);
        // Every microinstruction has a source line in one of the three files.
        for pc in 0..image.uinsts {
            let e = sources
                .uinst(pc)
                .expect("a source for every microinstruction");
            assert!(matches!(e.kind, StoreKind::Uinst { .. }));
            assert!(e.file.ends_with(".pp5uc") && e.line > 0, "{e}");
            assert!(!sources.line_text(&e.file, e.line).is_empty(), "{e}");
        }
    }
}
