//! One render study as `pp5 render` runs it, for the CLI and for Python's `pp5.render` (one
//! implementation): the options ([`StudySpec`]), the frame rendered on the system they
//! describe ([`render`]), the files the CLI writes beside the picture ([`write_outputs`]) and
//! the report in its three formats ([`report`]).
//!
//! The CLI checks its arguments and output files first (clap, `files.rs`), then calls these;
//! Python calls [`run`], which does the same in one go. Both give the same report for the
//! same options (`testbench/python/tests/test_render.py` compares their JSON).

use super::{scene, system, view, Policy, RenderError, RenderOptions, Rendered};
use crate::asm::microcode::McImage;
use crate::microcode_view::{coverage, MicrocodeSources};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The most Ring channels a study takes (`--ring-channels`): more than the Ring's senders (32
/// GPs, 16 Renderers' two ports) can use at once.
pub const MAX_RING_CHANNELS: usize = 64;
/// The range of a GP's rate (`--gp-mops`), M operations/s: below it a frame takes minutes to
/// simulate, above it the GPs cost nothing anyway.
pub const GP_MOPS: std::ops::RangeInclusive<f64> = 1.0..=10_000.0;

/// The scene a study draws.
#[derive(Clone, Debug, PartialEq)]
pub enum SceneSource {
    /// A built-in scene: `NAME` or `NAME:key=value,...` (`scene::builtin_help`).
    Builtin(String),
    /// A Wavefront OBJ file.
    Obj(PathBuf),
}

impl Default for SceneSource {
    fn default() -> Self {
        SceneSource::Builtin("spheres".into())
    }
}

/// The files a study writes besides its report (all optional).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StudyOutputs {
    /// The frame as a PNG (`-o`).
    pub picture: Option<PathBuf>,
    /// Each Renderer's stream and the microcode, into this directory (`--save-streams`; made
    /// if missing, its parent must exist).
    pub save_streams: Option<PathBuf>,
    /// A waveform of one region (column, row) as its Renderer drew it (`--wave --region`).
    pub wave: Option<(PathBuf, (u32, u32))>,
    /// The whole system over the frame as a waveform (`--system-wave`).
    pub system_wave: Option<PathBuf>,
    /// The frame's timeline as SVG (`--timeline`).
    pub timeline: Option<PathBuf>,
    /// The microcode coverage of the frame as an lcov tracefile (`--coverage`).
    pub coverage: Option<PathBuf>,
}

/// A study's options: those of `pp5 render`, with the CLI's defaults.
#[derive(Clone, Debug)]
pub struct StudySpec {
    pub scene: SceneSource,
    /// Screen, camera, light and material.
    pub view: view::View,
    /// Renderers, 1..=16.
    pub renderers: usize,
    pub policy: Policy,
    /// Graphics Processors, 0..=32 (0: unbounded).
    pub gps: usize,
    /// Each GP's rate, M operations/s ([`GP_MOPS`]).
    pub gp_mops: f64,
    /// Ring channels, 0..=64 (0: unbounded).
    pub ring_channels: usize,
    /// Time the Renderers alone (no GPs, no Ring, no study of what bounds the frame).
    pub renderers_only: bool,
    pub outputs: StudyOutputs,
    /// Threads for this study's simulation (rayon); `None`: rayon's global pool (every core,
    /// or `RAYON_NUM_THREADS`). The results do not depend on it.
    pub threads: Option<usize>,
}

impl Default for StudySpec {
    fn default() -> Self {
        StudySpec {
            scene: SceneSource::default(),
            view: view::View::default(),
            renderers: system::MAX_RENDERERS,
            policy: Policy::RoundRobin,
            gps: system::gp_cost::GPS_DEFAULT,
            gp_mops: system::gp_cost::GP_MOPS_DEFAULT,
            ring_channels: system::ring::RING_CHANNELS,
            renderers_only: false,
            outputs: StudyOutputs::default(),
            threads: None,
        }
    }
}

/// Why a study did not run or finish: the CLI's exit code follows the kind.
#[derive(Debug, Clone, PartialEq)]
pub enum StudyError {
    /// Options that do not go together (the CLI's usage errors, exit 2).
    Usage(String),
    /// Bad input: a scene, a view, an option out of range (exit 3).
    Input(String),
    /// A file that cannot be read or written.
    Io(String),
    /// A simulated Renderer stopped (a hardware error, a deadlock): exit 4.
    Sim(String),
    /// A stop signal came while the frame was simulated: no file was written.
    Interrupted,
}

impl std::fmt::Display for StudyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StudyError::Usage(m)
            | StudyError::Input(m)
            | StudyError::Io(m)
            | StudyError::Sim(m) => f.write_str(m),
            StudyError::Interrupted => f.write_str("interrupted: no frame written"),
        }
    }
}

impl std::error::Error for StudyError {}

impl From<RenderError> for StudyError {
    fn from(e: RenderError) -> Self {
        match e {
            RenderError::Input(m) => StudyError::Input(m),
            RenderError::Sim(m) => StudyError::Sim(m),
        }
    }
}

fn io(e: impl std::fmt::Display) -> StudyError {
    StudyError::Io(e.to_string())
}

/// The report's formats (`--report`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Table,
    Json,
    Csv,
}

impl StudySpec {
    /// The screen's regions across and down.
    pub fn regions(&self) -> (u32, u32) {
        (
            self.view.width.div_ceil(128),
            self.view.height.div_ceil(128),
        )
    }

    /// Check the options as `pp5 render` does (the ranges of its arguments, the view, the
    /// region of a waveform, the outputs that need the GPs and the Ring).
    pub fn check(&self) -> Result<(), StudyError> {
        let input = |m: String| Err(StudyError::Input(m));
        if !(1..=system::MAX_RENDERERS).contains(&self.renderers) {
            return input(format!(
                "renderers {}: a Pixel-Planes 5 system has 1..={} Renderers",
                self.renderers,
                system::MAX_RENDERERS
            ));
        }
        if self.gps > system::gp_cost::MAX_GPS {
            return input(format!(
                "gps {}: 0..={} Graphics Processors (0: unbounded)",
                self.gps,
                system::gp_cost::MAX_GPS
            ));
        }
        if !GP_MOPS.contains(&self.gp_mops) {
            return input(format!(
                "gp_mops {}: a GP's rate (M operations/s) is a number in {}..={}",
                self.gp_mops,
                GP_MOPS.start(),
                GP_MOPS.end()
            ));
        }
        if self.ring_channels > MAX_RING_CHANNELS {
            return input(format!(
                "ring_channels {}: 0..={MAX_RING_CHANNELS} channels (0: unbounded)",
                self.ring_channels
            ));
        }
        if self.threads == Some(0) {
            return input("threads 0: a study runs on 1 or more threads".into());
        }
        self.view.validate().map_err(StudyError::Input)?;
        let o = &self.outputs;
        if self.renderers_only && (o.system_wave.is_some() || o.timeline.is_some()) {
            return Err(StudyError::Usage(
                "the system waveform and the timeline draw the GPs and the Ring: not with \
                 renderers_only"
                    .into(),
            ));
        }
        if let Some((_, (i, j))) = &o.wave {
            let (cols, rows) = self.regions();
            if *i >= cols || *j >= rows {
                return Err(StudyError::Usage(format!(
                    "--region {i},{j}: the screen has regions 0..{cols} across and 0..{rows} down"
                )));
            }
        }
        Ok(())
    }

    /// The renderer's options.
    pub fn render_options(&self) -> RenderOptions {
        RenderOptions {
            view: self.view.clone(),
            renderers: self.renderers,
            policy: self.policy,
            keep_streams: self.outputs.save_streams.is_some() || self.outputs.wave.is_some(),
            profile: self.outputs.coverage.is_some(),
        }
    }

    /// The GPs and the Ring in front of the Renderers (`None`: the Renderers alone).
    pub fn feed(&self) -> Option<system::Feed> {
        (!self.renderers_only).then_some(system::Feed {
            gps: (self.gps > 0).then_some((self.gps, self.gp_mops)),
            ring: (self.ring_channels > 0).then_some(self.ring_channels),
        })
    }

    /// The scene's mesh and its name in the report.
    pub fn load_mesh(&self) -> Result<(scene::Mesh, String), StudyError> {
        match &self.scene {
            SceneSource::Obj(p) => {
                let mesh = scene::load_obj(p).map_err(|e| match e {
                    scene::SceneError::Io { .. } => StudyError::Io(e.to_string()),
                    e => StudyError::Input(e.to_string()),
                })?;
                Ok((mesh, p.display().to_string()))
            }
            SceneSource::Builtin(spec) => {
                let mesh = scene::builtin(spec).map_err(|e| StudyError::Input(e.to_string()))?;
                Ok((mesh, spec.clone()))
            }
        }
    }
}

/// Render `mesh` (named `name`) as `spec` says, with the render microcode `image`
/// (`asm::microcode::render_image`), on `spec.threads` threads. `progress(regions_done)` is
/// called as regions finish.
pub fn render(
    spec: &StudySpec,
    mesh: &scene::Mesh,
    name: &str,
    image: &McImage,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Rendered, StudyError> {
    let opts = spec.render_options();
    let go = || super::render_system(mesh, name, &opts, spec.feed(), image, progress);
    Ok(match spec.threads {
        None => go(),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(io)?
            .install(go),
    }?)
}

/// Write `path` whole or not at all; the error names the file.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), StudyError> {
    crate::out_file::write_with(path, write).map_err(io)
}

/// Whether [`write_outputs`] wrote everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    All,
    /// A stop signal ended the region's run of `--wave`: its waveform ends there, the system
    /// outputs and the coverage were not written.
    WaveInterrupted,
}

/// Write the files `spec.outputs` names from the rendered frame `r` (named `name`), in the
/// CLI's order: the picture, the streams, the region's waveform, the system waveform, the
/// timeline, the coverage. `note` gets the lines the CLI prints on standard error about
/// them; `interrupt` stops the region's run (the only long one).
pub fn write_outputs(
    spec: &StudySpec,
    r: &Rendered,
    name: &str,
    image: &McImage,
    interrupt: Option<&Arc<AtomicBool>>,
    note: &mut dyn FnMut(String),
) -> Result<Written, StudyError> {
    let o = &spec.outputs;
    if let Some(path) = &o.picture {
        let rgb: Vec<u8> = r.run.pixels.iter().flatten().copied().collect();
        let (w, h) = (spec.view.width, spec.view.height);
        write_atomically(path, |tmp| crate::image::write_png(tmp, w, h, &rgb))?;
    }
    if let Some(dir) = &o.save_streams {
        save_streams(dir, r, image, note)?;
    }
    if let Some((wave, (i, j))) = &o.wave {
        let cols = spec.regions().0;
        if !write_region_wave(wave, (j * cols + i) as usize, r, image, interrupt, note)? {
            return Ok(Written::WaveInterrupted);
        }
    }
    if let Some(path) = &o.system_wave {
        let signals = system::system_wave::write(path, &r.run)
            .map_err(|e| StudyError::Io(format!("{}: {e}", path.display())))?;
        note(format!(
            "system waveform: {} ({} signals); open it:  {}",
            path.display(),
            signals.len(),
            crate::trace::gtkwave_command(path, &path.with_extension("gtkw"))
        ));
    }
    if let Some(path) = &o.timeline {
        let title = format!(
            "{name}: {} Renderers, {} cycles",
            r.run.renderers.len(),
            r.run.cycles
        );
        // Under a temporary name, as every other output (plotters writes the file it is
        // given); its error names that name, the target's is put in front instead.
        write_atomically(path, |tmp| {
            let notes = r.bounds.as_ref().map_or_else(Vec::new, |b| {
                system::timeline::wrap(&format!("verdict: {}", b.verdict))
            });
            system::timeline::write(tmp, &r.run, &title, &notes).map_err(|e| {
                let own = format!("{}: ", tmp.display());
                std::io::Error::other(e.strip_prefix(&own).unwrap_or(&e).to_string())
            })
        })?;
        note(format!("timeline: {}", path.display()));
    }
    if let Some(path) = &o.coverage {
        write_coverage(path, r, image, note)?;
    }
    Ok(Written::All)
}

/// `--coverage`: the Renderers' merged profile over the renderer's microcode sources.
fn write_coverage(
    path: &Path,
    r: &Rendered,
    image: &McImage,
    note: &mut dyn FnMut(String),
) -> Result<(), StudyError> {
    let Some(profile) = &r.run.profile else {
        return Ok(());
    };
    let (built, sources) = MicrocodeSources::assemble(crate::asm::microcode::render_parts())
        .map_err(|e| StudyError::Io(format!("the renderer's microcode sources: {e}")))?;
    // The parts assemble into the image the Renderers booted (a unit test checks).
    debug_assert_eq!(built.words, image.words);
    let stem = path
        .file_stem()
        .map_or("pp5".into(), |s| s.to_string_lossy());
    write_atomically(path, |tmp| {
        std::fs::write(tmp, coverage::lcov(profile, &sources, &stem))
    })?;
    note(format!(
        "coverage: {} (render it: genhtml {} -o coverage-html)",
        path.display(),
        path.display()
    ));
    Ok(())
}

/// `--save-streams DIR`: each Renderer's stream as text and binary, and the microcode. DIR is
/// made if missing.
fn save_streams(
    dir: &Path,
    r: &Rendered,
    image: &McImage,
    note: &mut dyn FnMut(String),
) -> Result<(), StudyError> {
    if !dir.is_dir() {
        std::fs::create_dir(dir).map_err(|e| StudyError::Io(format!("{}: {e}", dir.display())))?;
    }
    let src = dir.join("render.pp5uc");
    write_atomically(&src, |p| {
        std::fs::write(p, crate::asm::microcode::render_source())
    })?;
    for (k, s) in r.run.streams.iter().enumerate() {
        let text = crate::stream::text::disassemble(s, &image.table);
        let t = dir.join(format!("renderer-{k}.pp5s"));
        write_atomically(&t, |p| std::fs::write(p, &text))?;
        let b = dir.join(format!("renderer-{k}.bin"));
        crate::out_file::write_buffered(&b, |w| crate::stream::binary::write(s, w)).map_err(io)?;
    }
    note(format!(
        "streams: {} (run one: pp5 run {} --microcode {})",
        dir.display(),
        dir.join("renderer-0.pp5s").display(),
        src.display()
    ));
    Ok(())
}

/// `--wave FILE --region I,J`: run the region's Renderer again (the same stream: the same
/// cycles) with a waveform over the region's cycles, and write its `.gtkw`. `false` when a
/// stop signal ended the run early (the waveform ends where it stopped).
fn write_region_wave(
    path: &Path,
    region: usize,
    r: &Rendered,
    image: &McImage,
    interrupt: Option<&Arc<AtomicBool>>,
    note: &mut dyn FnMut(String),
) -> Result<bool, StudyError> {
    use crate::session::{run, RunError, RunSpec, WaveSpec};
    let reg = r
        .run
        .regions
        .iter()
        .find(|x| x.region == region)
        .ok_or_else(|| StudyError::Input(format!("region {region} was not drawn")))?;
    let k = reg.renderer;
    let boot = r.run.renderers[k].boot_cycles;
    let (first, last) = (boot + reg.start, boot + reg.end);
    let mut wave = WaveSpec::new(path);
    wave.cfg.window = Some((first, last));
    wave.trace_boot = true;
    let spec = RunSpec {
        image,
        boot: true,
        stream: &r.run.streams[k],
        opts: crate::engine::SimOptions {
            // The region is all the waveform shows: stop after it.
            max_cycles: last + 1,
            ..crate::engine::SimOptions::default()
        },
        wave: Some(wave.clone()),
    };
    let out = run(spec, |_, _, _| {}, interrupt).map_err(|e| match e {
        RunError::Input(m) | RunError::Selection(m) => StudyError::Input(m),
        RunError::Io(e) => io(e),
    })?;
    note(format!(
        "waveform: {} (region {region} at {:?}, Renderer {k}, cycles {first}..={last}; {} signals)",
        path.display(),
        reg.origin,
        out.signals.len()
    ));
    note(format!(
        "open it:  {}",
        crate::trace::gtkwave_command(path, &wave.gtkw_path())
    ));
    Ok(out.stop != crate::engine::StopReason::Interrupted)
}

/// The report of a rendered frame in `format`: the study, with what bounds the frame when the
/// GPs and the Ring were modelled (`pp5 render`'s standard output).
pub fn report(r: &Rendered, format: ReportFormat) -> String {
    match format {
        ReportFormat::Table => {
            r.study.table() + &r.bounds.as_ref().map(|b| b.table()).unwrap_or_default()
        }
        ReportFormat::Json => {
            #[derive(serde::Serialize)]
            struct Report<'a> {
                #[serde(flatten)]
                study: &'a super::study::Study,
                #[serde(skip_serializing_if = "Option::is_none")]
                system: Option<&'a system::bounds::Bounds>,
            }
            let report = Report {
                study: &r.study,
                system: r.bounds.as_ref(),
            };
            // Plain numbers, strings and lists: serialising them cannot fail.
            serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
        }
        ReportFormat::Csv => {
            r.study.csv() + &r.bounds.as_ref().map(|b| b.csv()).unwrap_or_default()
        }
    }
}

/// A study run whole ([`run`]): the rendered frame, its scene's name, and whether the outputs
/// were all written.
pub struct StudyRun {
    pub rendered: Rendered,
    pub name: String,
    pub written: Written,
    /// The lines about the outputs the CLI prints on standard error.
    pub notes: Vec<String>,
}

/// A whole study: check the options, load the scene, render, write the outputs. (The CLI
/// does these steps itself, with its checks of the files in between.) When `interrupt` is set
/// by the time the frame is done, nothing is written ([`StudyError::Interrupted`]); set
/// later, it stops the region's run of a `--wave`.
pub fn run(
    spec: &StudySpec,
    progress: &(dyn Fn(usize) + Sync),
    interrupt: Option<&Arc<AtomicBool>>,
) -> Result<StudyRun, StudyError> {
    spec.check()?;
    let (mesh, name) = spec.load_mesh()?;
    let image = crate::asm::microcode::render_image();
    let rendered = render(spec, &mesh, &name, &image, progress)?;
    if interrupt.is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed)) {
        return Err(StudyError::Interrupted);
    }
    let mut notes = Vec::new();
    let written = write_outputs(spec, &rendered, &name, &image, interrupt, &mut |n| {
        notes.push(n)
    })?;
    Ok(StudyRun {
        rendered,
        name,
        written,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> StudySpec {
        StudySpec {
            scene: SceneSource::Builtin("random:n=20,size=0.1".into()),
            view: view::View {
                width: 128,
                height: 128,
                ..view::View::default()
            },
            renderers: 2,
            ..StudySpec::default()
        }
    }

    #[test]
    fn threads_do_not_change_the_report() {
        let one = run(
            &StudySpec {
                threads: Some(1),
                ..tiny()
            },
            &|_| {},
            None,
        )
        .unwrap();
        let any = run(&tiny(), &|_| {}, None).unwrap();
        assert_eq!(
            report(&one.rendered, ReportFormat::Json),
            report(&any.rendered, ReportFormat::Json)
        );
        assert_eq!(one.rendered.run.pixels, any.rendered.run.pixels);
    }

    #[test]
    fn options_out_of_range_are_input_errors() {
        for spec in [
            StudySpec {
                renderers: 0,
                ..tiny()
            },
            StudySpec { gps: 33, ..tiny() },
            StudySpec {
                gp_mops: 0.5,
                ..tiny()
            },
            StudySpec {
                ring_channels: 65,
                ..tiny()
            },
            StudySpec {
                scene: SceneSource::Builtin("nonesuch".into()),
                ..tiny()
            },
        ] {
            assert!(matches!(
                run(&spec, &|_| {}, None),
                Err(StudyError::Input(_))
            ));
        }
        let wave = StudySpec {
            outputs: StudyOutputs {
                wave: Some(("x.vcd".into(), (1, 0))),
                ..StudyOutputs::default()
            },
            ..tiny()
        };
        assert!(matches!(wave.check(), Err(StudyError::Usage(_))));
    }
}
