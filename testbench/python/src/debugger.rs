//! The microcode author's view from Python (issue 28), without Python: where the IGC is in the
//! microcode, breakpoints by label or cycle, the profile and the coverage. `board.rs` wraps
//! these as `pp5.Board` methods.

use crate::machine::Machine;
use pp5_sim::engine::lanes::enabled_pes;
use pp5_sim::microcode_view::annotate::Annotation;
use pp5_sim::microcode_view::coverage;
use pp5_sim::microcode_view::profile::Profile;
use std::path::Path;

/// Where the IGC is: the microinstruction it executed last.
pub struct Where {
    pub pc: u16,
    /// Routine and offset (`MEMplusMEM+3`), or label and offset without sources.
    pub at: String,
    /// Source position (`standard.pp5uc:141`), when the microcode has sources.
    pub src: Option<String>,
    /// The source line's text.
    pub text: Option<String>,
    /// The IGC's state (`RUN`, `WAIT_CMD`, ...).
    pub state: &'static str,
    /// The PEs enabled now (Enable and active in the flow-control unit): those the
    /// microinstruction at the PC runs on.
    pub lanes: u32,
}

/// Where the IGC is on `m`.
pub fn where_is(m: &Machine) -> Where {
    let igc = &m.sim.board.igc;
    // The PC: the microinstruction the IGC executes in the board's next cycle (the cycle
    // `board.cycle` numbers), as the waveform's `uinst.at` and `.src` at that time.
    let pc = igc.pc;
    let entry = m
        .sources
        .as_ref()
        .and_then(|s| s.uinst(u32::from(pc)).map(|e| (s, e)));
    let at = match entry {
        Some((_, e)) => e.at(),
        None => m
            .sim
            .label_of(u32::from(pc))
            .map_or(format!("@{pc}"), |(l, o)| format!("{l}+{o}")),
    };
    Where {
        pc,
        at,
        src: entry.map(|(_, e)| e.position()),
        text: entry.map(|(s, e)| s.line_text(&e.file, e.line).to_string()),
        state: igc.state.name(),
        lanes: enabled_pes(&m.sim.board),
    }
}

/// The profile as JSON (`Profile`), or `None` when no profile is kept.
pub fn profile_json(m: &Machine) -> Option<String> {
    let p = m.sim.profile.as_ref()?;
    let profile = Profile::of(p, m.sources.as_deref(), |pc| {
        m.sim.label_of(pc).map(|(l, o)| (l.to_string(), o))
    });
    serde_json::to_string(&profile).ok()
}

/// The annotated listing as JSON (`Annotation`), or `None` when no profile is kept.
pub fn annotate_json(m: &Machine) -> Option<String> {
    let p = m.sim.profile.as_ref()?;
    let a = Annotation::of(p, m.sources.as_deref(), m.image.uinsts, |pc| {
        m.sim.label_of(pc).map(|(l, o)| (l.to_string(), o))
    });
    serde_json::to_string(&a).ok()
}

/// The lcov tracefile of the profile so far, to be written at `path`: `Err` without a
/// profile or without sources. A source given as text (named `<microcode N>`, no file of
/// its own) is written beside the tracefile as `STEM.microcode-N.pp5uc` and named there, so
/// `genhtml` finds every `SF:` file.
pub fn coverage_text(m: &Machine, test: &str, path: &Path) -> Result<String, String> {
    let p = m
        .sim
        .profile
        .as_ref()
        .ok_or("no profile is kept: call enable_profile() before the run")?;
    let s = m
        .sources
        .as_deref()
        .ok_or("the microcode has no sources (a pp5.Image or a .json image): no coverage")?;
    let mut s = s.clone();
    let stem = path
        .file_stem()
        .map_or("coverage".into(), |x| x.to_string_lossy().into_owned());
    for (k, (name, text)) in s.parts.iter().enumerate() {
        if !name.starts_with('<') {
            continue;
        }
        let file = path.with_file_name(format!("{stem}.microcode-{k}.pp5uc"));
        pp5_sim::out_file::write(&file, text).map_err(|e| e.to_string())?;
        s.paths[k] = file.display().to_string();
    }
    Ok(coverage::lcov(p, &s, test))
}
