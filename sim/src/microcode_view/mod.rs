//! What a microcode author sees of a run (issue 28): where each microinstruction came from
//! ([`MicrocodeSources`]: the source texts and the assembler's source map), the coverage of
//! the microcode sources as an lcov tracefile ([`coverage`]), where the cycles went per
//! routine and source line ([`profile`]), and breakpoints by label ([`resolve_until`]).
//!
//! The counts come from the engine's [`crate::engine::MicrocodeProfile`] observer.

pub mod coverage;
pub mod profile;

use crate::asm::microcode::{self, McImage, SourceMap, StoreSource};
use crate::engine::Until;
use pp5_rtl::igc::UinstNames;

/// The microcode sources of an image: the `(file, text)` parts it was assembled from, in
/// order, and its source map.
#[derive(Clone, Debug, Default)]
pub struct MicrocodeSources {
    pub parts: Vec<(String, String)>,
    pub map: SourceMap,
    /// Per microinstruction address: it is a conditional branch (a conditional sequencer
    /// operation or a flow-control instruction).
    pub branches: Vec<bool>,
}

impl MicrocodeSources {
    /// Assemble `parts` together (as `pp5 run --microcode A --microcode B` does); one part is
    /// assembled on its own, as `pp5 run --microcode A` always did (the same messages).
    pub fn assemble(
        parts: Vec<(String, String)>,
    ) -> Result<(McImage, MicrocodeSources), microcode::AsmErrors> {
        let (image, map) = match &parts[..] {
            [(file, text)] => microcode::assemble_mapped(text, file)?,
            _ => microcode::assemble_files_mapped(&parts)?,
        };
        let branches = branches(&image);
        Ok((
            image,
            MicrocodeSources {
                parts,
                map,
                branches,
            },
        ))
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
    pub fn report_path(file: &str) -> String {
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

/// Which microinstructions of `image` are conditional branches.
fn branches(image: &McImage) -> Vec<bool> {
    use pp5_rtl::igc::microinstruction::{decode, Seq, WORDS_PER_UINST};
    let mut words = vec![[0u32; 4]; image.uinsts as usize];
    for &(a, v) in &image.words {
        let (u, k) = (a as usize / WORDS_PER_UINST, a as usize % WORDS_PER_UINST);
        if let Some(w) = words.get_mut(u) {
            w[k] = v;
        }
    }
    words
        .iter()
        .map(|w| {
            decode(w).is_ok_and(|m| {
                m.fc.is_some()
                    || matches!(
                        m.seq,
                        Seq::Loop | Seq::LoopD | Seq::JAeo | Seq::JNAeo | Seq::JOprGt
                    )
            })
        })
        .collect()
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
    let pc = base + offset;
    if pc as usize >= pp5_rtl::igc::store::CONTROL_STORE_UINSTS || pc >= image.uinsts {
        return Err(format!(
            "--until {spec}: {label}+{offset} is PC {pc}, past the microcode's last microinstruction ({})",
            image.uinsts.saturating_sub(1)
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
    let mut known: Vec<&str> = image.labels.iter().map(|l| l.0.as_str()).collect();
    known.extend(image.table.commands.iter().map(|c| c.name.as_str()));
    known.sort_unstable();
    known.dedup();
    let key = name.to_lowercase();
    let mut scored: Vec<(usize, &str)> = known
        .into_iter()
        .map(|k| (edit_distance(&key, &k.to_lowercase()), k))
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(5)
        .map(|(_, k)| k.to_string())
        .collect()
}

/// Levenshtein distance between `a` and `b` (by chars).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("gcd_inc", "gcd_inc"), 0);
    }

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
