//! Microcode coverage of every simulation a process runs, for the whole test suite's report
//! (`scripts/microcode-coverage.sh --suite`, docs/microcode.md "Debugging microcode").
//!
//! With `PP5_MICROCODE_COVERAGE=DIR` in the environment, every board that boots one of the
//! shipped microcode images ([`shipped`]: the standard source, with the QEE, flow-control and
//! shading sources after it) counts its microinstructions as `pp5 run --coverage` does, in an
//! observer of its own (the board's [`super::Sim::profile`] stays as the run asked). When the
//! board is dropped its counts are added to the process's, which are written to
//! `DIR/suite-<pid>-<image>.info` (an lcov tracefile) whenever they cover a line or a branch
//! outcome more than the last file did: what runs and what does not is exact, the counts are
//! at least the file's (a process's last boards may add counts but no coverage). A user's own
//! microcode is not counted (its sources are not known here). Without the variable nothing is
//! counted and nothing is written.

use super::{coverage, MicrocodeSources};
use crate::asm::microcode::{render_parts, McImage};
use crate::engine::{MicrocodeProfile, ProfileTap};
use pp5_rtl::igc::IgcState;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// The environment variable that turns the suite's coverage on: the directory to write to.
pub const ENV: &str = "PP5_MICROCODE_COVERAGE";

/// The shipped images a board may boot, with their sources: the standard source and the
/// ones after it in [`render_parts`]' order (standard; +QEE, `pp5 run`'s default; +flow
/// control; +shading, the renderer's). Assembled once, when the variable is set.
fn shipped() -> &'static [(McImage, MicrocodeSources)] {
    static SHIPPED: OnceLock<Vec<(McImage, MicrocodeSources)>> = OnceLock::new();
    SHIPPED.get_or_init(|| {
        let parts = render_parts();
        (1..=parts.len())
            .filter_map(|n| MicrocodeSources::assemble(parts[..n].to_vec()).ok())
            .collect()
    })
}

/// The directory of [`ENV`], read once.
fn dir() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        std::env::var_os(ENV)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
    })
    .as_ref()
}

/// Counts for a board about to boot `image` (its IGC now in `state`): `None` unless [`ENV`]
/// is set and `image` is one of the shipped ones. The board's counts are added to the
/// process's when it is dropped (`add`).
pub fn for_image(image: &McImage, state: IgcState) -> Option<ProfileTap> {
    dir()?;
    let k = shipped().iter().position(|(i, _)| i.words == image.words)?;
    Some(ProfileTap::new(state, k, add))
}

/// The process's counts per shipped image, and how much each file written covered.
static MERGED: Mutex<Vec<Option<(MicrocodeProfile, usize)>>> = Mutex::new(Vec::new());

/// Lines (microinstructions) executed and branch outcomes seen.
fn covered(p: &MicrocodeProfile) -> usize {
    let pcs = (0..p.by_pc.len()).filter(|&k| p.executions(k) > 0).count();
    let outcomes = p.branches.iter().flatten().filter(|&&n| n > 0).count();
    pcs + outcomes
}

/// Add a board's counts for the shipped image `image` to the process's, and write them when
/// they cover more than the last file did.
fn add(image: usize, profile: &MicrocodeProfile) {
    let (Some(dir), Some((_, sources))) = (dir(), shipped().get(image)) else {
        return;
    };
    // A panic elsewhere while the lock was held leaves the counts usable.
    let mut merged = MERGED.lock().unwrap_or_else(|e| e.into_inner());
    if merged.len() <= image {
        merged.resize(image + 1, None);
    }
    let slot = &mut merged[image];
    match slot {
        Some((total, _)) => total.merge(profile),
        None => *slot = Some((profile.clone(), 0)),
    }
    let Some((total, written)) = slot else {
        return;
    };
    let now = covered(total);
    if now <= *written {
        return;
    }
    let name = format!("suite-{}-{}", std::process::id(), image);
    let text = coverage::lcov(total, sources, &name);
    // Written beside and renamed, so a reader never sees half a file. A failure to write
    // is not the test's failure: the report will miss this process's counts.
    let tmp = dir.join(format!(".{name}.info.partial"));
    let ok = std::fs::create_dir_all(dir).is_ok()
        && std::fs::write(&tmp, text).is_ok()
        && std::fs::rename(&tmp, dir.join(format!("{name}.info"))).is_ok();
    if ok {
        *written = now;
    } else {
        eprintln!("{ENV}: could not write {}", dir.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::microcode::{render_image, standard};

    /// The images the simulator boots are among the shipped ones, so the suite counts them.
    #[test]
    fn the_simulators_images_are_shipped_ones() {
        let words: Vec<_> = shipped().iter().map(|(i, _)| &i.words).collect();
        assert_eq!(words.len(), 4);
        assert_eq!(words[1], &standard().words, "pp5 run's default image");
        assert_eq!(words[3], &render_image().words, "pp5 render's image");
        let (default, _) = MicrocodeSources::default_image();
        assert_eq!(words[2], &default.words, "the default parts");
    }
}
