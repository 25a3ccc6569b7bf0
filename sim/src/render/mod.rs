//! `pp5 render`: scenes turned into the command streams a Pixel-Planes 5 system sends its
//! Renderers, run on N simulated Renderers, with the timing study (docs/rendering.md).
//!
//! This is Graphics Processor software, not Renderer hardware: it lives in `sim/`.
//!
//! - [`scene`]: the input: built-in generated scenes and Wavefront OBJ files.
//! - [`view`]: screen, camera, light and material; [`math`]: vectors and matrices.
//! - [`gp`]: the Graphics Processor's work: transform, clipping, set-up, binning.
//! - [`layout`]: where a region's attributes live in pixel memory.
//! - [`region`]: a region's command stream; [`shading`]: the deferred shading pass.
//! - [`system`]: N Renderers drawing a frame, in parallel; the frame assembled.
//! - [`study`]: the timing study of a frame.
//! - [`run`]: one study as `pp5 render` and Python's `pp5.render` run it: options, frame,
//!   output files, report.
//!
//! [`render`] runs all of it: the CLI (`pp5 render`) and the tests call it.

pub mod gp;
pub mod layout;
pub mod math;
pub mod region;
pub mod run;
pub mod scene;
pub mod shading;
pub mod study;
pub mod system;
pub mod view;

use crate::asm::microcode::McImage;
pub use system::Policy;

/// What to render besides the mesh.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    pub view: view::View,
    /// Renderers in the system, 1..=16.
    pub renderers: usize,
    pub policy: Policy,
    /// Keep each Renderer's whole command stream in the result (`--save-streams`, `--wave`);
    /// off, a region's stream is dropped once sent, so memory does not grow with it.
    pub keep_streams: bool,
    /// Keep the Renderers' microcode profile ([`system::FrameRun::profile`]: `--coverage`).
    pub profile: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            view: view::View::default(),
            renderers: system::MAX_RENDERERS,
            policy: Policy::RoundRobin,
            keep_streams: false,
            profile: false,
        }
    }
}

/// A rendered frame: the GP's output, the simulated system's and the study.
pub struct Rendered {
    pub frame: gp::Frame,
    pub shading: shading::Shading,
    pub run: system::FrameRun,
    pub study: study::Study,
    /// What bounds the frame, when the GPs and the Ring were modelled ([`render_system`]).
    pub bounds: Option<system::bounds::Bounds>,
}

/// Why a frame could not be rendered.
#[derive(Debug)]
pub enum RenderError {
    /// Bad input (scene, view, options): the CLI exits with code 3.
    Input(String),
    /// A simulated Renderer stopped (a hardware error, a deadlock): code 4.
    Sim(String),
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenderError::Input(m) | RenderError::Sim(m) => f.write_str(m),
        }
    }
}

/// Render `mesh` (named `scene` in the report) on a simulated system with the render
/// microcode `image` (`asm::microcode::render_image`). `progress(regions_done)` is called as
/// regions finish.
pub fn render(
    mesh: &scene::Mesh,
    scene: &str,
    opts: &RenderOptions,
    image: &McImage,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Rendered, RenderError> {
    render_system(mesh, scene, opts, None, image, progress)
}

/// [`render`] with the Graphics Processors and the Ring in front of the Renderers (`feed`;
/// `None`: as [`render`], the Renderers alone): the frame on the full system, and the study
/// of what bounds it ([`system::bounds`]: the frame again with each resource unbounded, and
/// at other GP rates).
pub fn render_system(
    mesh: &scene::Mesh,
    scene: &str,
    opts: &RenderOptions,
    feed: Option<system::Feed>,
    image: &McImage,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Rendered, RenderError> {
    if let Some((g, mops)) = feed.and_then(|f| f.gps) {
        if !(1..=system::gp_cost::MAX_GPS).contains(&g) || mops.is_nan() || mops <= 0.0 {
            return Err(RenderError::Input(format!(
                "--gps {g} --gp-mops {mops}: a Pixel-Planes 5 system has 1..={} Graphics \
                 Processors, each with a rate above 0",
                system::gp_cost::MAX_GPS
            )));
        }
    }
    if feed.and_then(|f| f.ring) == Some(0) {
        return Err(RenderError::Input(
            "--ring-channels 0: the Ring has 1 or more".into(),
        ));
    }
    if !(1..=system::MAX_RENDERERS).contains(&opts.renderers) {
        return Err(RenderError::Input(format!(
            "--renderers {}: a Pixel-Planes 5 system has 1..={} Renderers",
            opts.renderers,
            system::MAX_RENDERERS
        )));
    }
    let frame = gp::process(mesh, &opts.view).map_err(RenderError::Input)?;
    let shading = shading::Shading::new(&frame, &opts.view);
    let (w, h) = (opts.view.width, opts.view.height);
    let spec = system::SystemSpec {
        renderers: opts.renderers,
        policy: opts.policy,
        width: w,
        height: h,
        keep_streams: opts.keep_streams,
        feed,
        profile: opts.profile,
    };
    // The full system's frame; its study's other frames replay what it recorded, after it
    // (docs/rendering.md, "Which rows are simulated, which derived"). Without the replay,
    // the study's frames that do not depend on the full system's run beside it.
    let replay = feed.is_some() && system::replay_by_default();
    let (taps, early) = match feed {
        Some(_) if replay => (system::DataTaps::Record, Vec::new()),
        Some(f) => (system::DataTaps::Compute, system::bounds::unconditional(f)),
        None => (system::DataTaps::Compute, Vec::new()),
    };
    let (run, done) = rayon::join(
        || system::run_frame_tapped(&frame, &shading, image, &spec, progress, taps),
        || system::bounds::simulate(&frame, &shading, image, &spec, &early, None),
    );
    let sim_err = |e: system::SystemError| RenderError::Sim(e.to_string());
    let mut run = run.map_err(sim_err)?;
    let done = done.map_err(sim_err)?;
    let study = study::Study::new(scene, (w, h), opts.policy, &frame.stats, &run);
    let bounds = match feed {
        Some(f) => Some(
            system::bounds::Bounds::new(&frame, &shading, image, &spec, f, &run, &done)
                .map_err(sim_err)?,
        ),
        None => None,
    };
    // The record served the study's frames: its memory goes now, not with the frame.
    run.recorded = None;
    Ok(Rendered {
        frame,
        shading,
        run,
        study,
        bounds,
    })
}
