//! `pp5 render`: a scene drawn by a simulated Pixel-Planes 5 system, its picture and its timing
//! study (docs/rendering.md).

use crate::files::{check_distinct, check_extensions, check_writable, streams_dir, Output};
use crate::{Fail, EXIT_HW_ERROR, EXIT_INPUT, EXIT_IO, EXIT_USAGE};
use clap::builder::RangedU64ValueParser;
use clap::{Args, ValueEnum};
use pp5_sim::asm::microcode::McImage;
use pp5_sim::exit::INTERRUPTED as EXIT_INTERRUPTED;
use pp5_sim::render::run::{self as study, ReportFormat, SceneSource, StudyError, StudySpec};
use pp5_sim::render::{self, scene, view, Policy};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc};

/// Region assignment policies, as the command line names them.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PolicyArg {
    /// Region k goes to Renderer k mod N.
    RoundRobin,
    /// The next region goes to the Renderer that is free first.
    NextFree,
}

/// Report formats.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ReportArg {
    Table,
    Json,
    Csv,
}

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// A Wavefront OBJ file (its .mtl colours are used when they load).
    pub obj: Option<PathBuf>,
    /// A built-in scene instead: NAME or NAME:key=value,... (spheres, torus, terrain, random,
    /// triangle, quad; `--scene help` lists the parameters).
    #[arg(long)]
    pub scene: Option<String>,
    /// Screen size, WIDTHxHEIGHT, each side 1..=8192 pixels.
    #[arg(long, default_value = "1280x1024", value_parser = parse_screen)]
    pub screen: (u32, u32),
    /// Renderers in the system, 1..=16.
    #[arg(long, default_value_t = 16, value_parser = RangedU64ValueParser::<usize>::new().range(1..=render::system::MAX_RENDERERS as u64))]
    pub renderers: usize,
    /// How regions are assigned to Renderers.
    #[arg(long, value_enum, default_value = "round-robin")]
    pub policy: PolicyArg,
    /// Graphics Processors in the system, 0..=32 (0: unbounded, every primitive ready at the
    /// frame's start). Scene triangle t goes to GP t mod N.
    #[arg(long, default_value_t = render::system::gp_cost::GPS_DEFAULT, value_parser = RangedU64ValueParser::<usize>::new().range(0..=render::system::gp_cost::MAX_GPS as u64))]
    pub gps: usize,
    /// Each GP's sustained rate, M operations/s of the cost model, 1..=10000
    /// (docs/rendering.md; the default is 20% of an i860's 80 MFLOPS peak).
    #[arg(long, default_value_t = render::system::gp_cost::GP_MOPS_DEFAULT, value_parser = parse_gp_mops, allow_negative_numbers = true)]
    pub gp_mops: f64,
    /// Channels of the Ring, 32 bits at 20 MHz each, 0..=64 (0: unbounded).
    #[arg(long, default_value_t = render::system::ring::RING_CHANNELS, value_parser = RangedU64ValueParser::<usize>::new().range(0..=MAX_RING_CHANNELS))]
    pub ring_channels: usize,
    /// Time the Renderers alone, as if the GPs and the Ring were unbounded (no study of what
    /// bounds the frame).
    #[arg(long)]
    pub renderers_only: bool,
    /// Write the whole system over the frame as a waveform (.vcd or .fst, and a .gtkw beside
    /// it): per GP, Ring channel and Renderer, and the frame buffer, at 20 MHz resolution.
    #[arg(long, value_name = "FILE", conflicts_with = "renderers_only")]
    pub system_wave: Option<PathBuf>,
    /// Draw the frame's timeline (a Gantt chart of the GPs, the Ring's channels and the
    /// Renderers) as SVG.
    #[arg(long, value_name = "FILE.svg", conflicts_with = "renderers_only")]
    pub timeline: Option<PathBuf>,
    /// Write the microcode coverage of the frame's run as an lcov tracefile (`genhtml FILE`
    /// renders it): every Renderer's boot and regions counted together, over the renderer's
    /// microcode sources (standard, qee, flow and shade .pp5uc; docs/microcode.md).
    #[arg(long, value_name = "FILE.info")]
    pub coverage: Option<PathBuf>,
    /// Camera position X,Y,Z, each coordinate -1e6..=1e6 (default: framing the scene's
    /// bounding sphere).
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true)]
    pub eye: Option<[f64; 3]>,
    /// The point the camera looks at, each coordinate -1e6..=1e6 (default: the scene's
    /// centre).
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true)]
    pub target: Option<[f64; 3]>,
    /// The camera's up direction (not zero, each coordinate -1e6..=1e6).
    #[arg(long, value_parser = parse_direction, allow_hyphen_values = true, default_value = "0,1,0")]
    pub up: [f64; 3],
    /// Vertical field of view, degrees, more than 1 and less than 170.
    #[arg(long, default_value_t = view::FOV_DEFAULT, value_parser = parse_fov, allow_negative_numbers = true)]
    pub fov: f64,
    /// Direction towards the directional light, world space (not zero, each coordinate
    /// -1e6..=1e6).
    #[arg(long, value_parser = parse_direction, allow_hyphen_values = true, default_value = "0.4,0.6,0.7")]
    pub light: [f64; 3],
    /// Ambient light, 0..=1.
    #[arg(long, default_value_t = 0.15, value_parser = parse_weight, allow_negative_numbers = true)]
    pub ambient: f64,
    /// Specular weight, 0..=1.
    #[arg(long, default_value_t = 0.5, value_parser = parse_weight, allow_negative_numbers = true)]
    pub specular: f64,
    /// Specular exponent, a power of two 1..=128.
    #[arg(long, default_value_t = 16, value_parser = parse_shininess)]
    pub shininess: u32,
    /// The picture of the frame (PNG).
    #[arg(short, long, default_value = "pp5-render.png")]
    pub output: PathBuf,
    /// The timing study's format (printed on standard output).
    #[arg(long, value_enum, default_value = "table")]
    pub report: ReportArg,
    /// Write each Renderer's command stream into this directory (renderer-K.pp5s and .bin)
    /// with the microcode they need (render.pp5uc), to re-run one with `pp5 run`. DIR is
    /// made when missing; its parent must exist.
    #[arg(long, value_name = "DIR")]
    pub save_streams: Option<PathBuf>,
    /// Write a waveform (.vcd or .fst, and a .gtkw beside it) of one region as its Renderer
    /// drew it: the Renderer's stream run again, traced over that region's cycles.
    #[arg(long, value_name = "FILE", requires = "region")]
    pub wave: Option<PathBuf>,
    /// The region of --wave: column I, row J of the screen's 128x128 regions (0,0 at the top
    /// left; each 0..=63, and on the screen).
    #[arg(long, value_name = "I,J", value_parser = parse_region, requires = "wave")]
    pub region: Option<(u32, u32)>,
}

/// The most Ring channels `--ring-channels` takes (the paper's Ring has 8): more cost
/// simulation time and memory for nothing (10^9 took minutes on one triangle).
const MAX_RING_CHANNELS: u64 = 64;
/// The range of `--gp-mops`, M operations/s: below it a frame takes minutes to simulate (the
/// study times it again at a quarter of the rate), above it (125 times an i860's peak) the
/// GPs cost nothing anyway.
const GP_MOPS: std::ops::RangeInclusive<f64> = 1.0..=10_000.0;
/// The largest coordinate of a point or direction (as [`view::View::validate`] takes them).
const MAX_COORD: f64 = 1e6;

/// Parse `I,J`, each 0..=63 (the regions of the largest screen).
fn parse_region(s: &str) -> Result<(u32, u32), String> {
    let (i, j) = view::parse_pair(s, &[','], "I,J (a region's column and row)")?;
    let max = view::SCREEN_MAX.div_ceil(128) - 1;
    if i > max || j > max {
        return Err(format!("each of I and J is 0..={max}"));
    }
    Ok((i, j))
}

/// Parse `WIDTHxHEIGHT`, each side 1..=8192.
fn parse_screen(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = view::parse_screen(s)?;
    let max = view::SCREEN_MAX;
    if !(1..=max).contains(&w) || !(1..=max).contains(&h) {
        return Err(format!("each side is 1..={max} pixels"));
    }
    Ok((w, h))
}

/// A number in `range` (an `f64` option); `what` says what it is in the message.
fn parse_in(s: &str, range: std::ops::RangeInclusive<f64>, what: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if range.contains(&v) => Ok(v),
        _ => Err(format!(
            "{what} is a number in {}..={}",
            range.start(),
            range.end()
        )),
    }
}

/// Parse `--gp-mops`, 1..=10000.
fn parse_gp_mops(s: &str) -> Result<f64, String> {
    parse_in(s, GP_MOPS, "a GP's rate (M operations/s)")
}

/// Parse `--ambient` or `--specular`, 0..=1.
fn parse_weight(s: &str) -> Result<f64, String> {
    parse_in(s, 0.0..=1.0, "a weight")
}

/// Parse `--fov`, more than 1 and less than 170 degrees.
fn parse_fov(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 1.0 && v < 170.0 => Ok(v),
        _ => Err("the field of view is more than 1 and less than 170 degrees".into()),
    }
}

/// Parse `--shininess`, a power of two 1..=128.
fn parse_shininess(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(v) if v.is_power_of_two() && v <= 128 => Ok(v),
        _ => Err("the specular exponent is a power of two, 1..=128".into()),
    }
}

/// Parse a point `X,Y,Z`, each coordinate -1e6..=1e6.
fn parse_point(s: &str) -> Result<[f64; 3], String> {
    let v = view::parse_v3(s)?;
    if !v.iter().all(|c| c.abs() <= MAX_COORD) {
        return Err("each coordinate is -1e6..=1e6".into());
    }
    Ok(v)
}

/// Parse a direction `X,Y,Z`: a point ([`parse_point`]) other than 0,0,0.
fn parse_direction(s: &str) -> Result<[f64; 3], String> {
    let v = parse_point(s)?;
    if v == [0.0; 3] {
        return Err("a direction is not 0,0,0".into());
    }
    Ok(v)
}

fn input(m: impl std::fmt::Display) -> Fail {
    Fail(EXIT_INPUT, m.to_string())
}

/// The mesh the arguments name and its name, and the `.mtl` libraries an OBJ file names
/// (inputs no output may overwrite). An OBJ file is read once: it may be a pipe or a FIFO.
fn load_mesh(a: &RenderArgs) -> Result<(scene::Mesh, String, Vec<PathBuf>), Fail> {
    let scene_error = |e: scene::SceneError| match e {
        // A file that cannot be read is an I/O error, as for streams.
        scene::SceneError::Io { .. } => Fail(EXIT_IO, e.to_string()),
        e => input(e),
    };
    match (&a.obj, &a.scene) {
        (Some(p), _) => {
            let data = scene::read_obj(p).map_err(scene_error)?;
            let libraries = material_libraries(p, &data);
            let mesh = scene::load_obj_bytes(p, data).map_err(scene_error)?;
            Ok((mesh, p.display().to_string(), libraries))
        }
        (None, spec) => {
            let spec = spec.as_deref().unwrap_or("spheres");
            let mesh = scene::builtin(spec).map_err(input)?;
            Ok((mesh, spec.to_string(), Vec::new()))
        }
    }
}

/// The files `pp5 render` writes, named as [`check_distinct`] reports them.
pub fn outputs(a: &RenderArgs) -> Vec<Output> {
    let mut outputs = vec![Output::new("render", "output", a.output.clone())];
    if let Some(w) = &a.wave {
        outputs.extend(Output::wave("render", "wave", w));
    }
    if let Some(w) = &a.system_wave {
        outputs.extend(Output::wave("render", "system_wave", w));
    }
    if let Some(t) = &a.timeline {
        outputs.push(Output::new("render", "timeline", t.clone()));
    }
    if let Some(c) = &a.coverage {
        outputs.push(Output::new("render", "coverage", c.clone()));
    }
    if let Some(dir) = &a.save_streams {
        let file = |name: String| Output::new("render", "save_streams", dir.join(name));
        outputs.push(file("render.pp5uc".into()));
        for k in 0..a.renderers.min(render::system::MAX_RENDERERS) {
            outputs.push(file(format!("renderer-{k}.pp5s")));
            outputs.push(file(format!("renderer-{k}.bin")));
        }
    }
    outputs
}

/// The `.mtl` libraries the OBJ file `obj` (its bytes `data`) names (`mtllib NAME`, relative
/// to the OBJ's directory, as the loader takes them).
fn material_libraries(obj: &Path, data: &[u8]) -> Vec<PathBuf> {
    let dir = obj.parent().unwrap_or(Path::new(""));
    let mut libs = Vec::new();
    for line in data.split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(line);
        let line = line.trim();
        if line.split_whitespace().next() == Some("mtllib") {
            // The rest of the line is one name (names may hold spaces), as tobj reads it.
            if let Some((_, name)) = line.split_once(char::is_whitespace) {
                libs.push(dir.join(name.trim()));
            }
        }
    }
    libs
}

/// The study the arguments describe ([`pp5_sim::render::run`], as Python's `pp5.render`).
fn study_spec(a: &RenderArgs) -> StudySpec {
    StudySpec {
        scene: match (&a.obj, &a.scene) {
            (Some(p), _) => SceneSource::Obj(p.clone()),
            (None, spec) => SceneSource::Builtin(spec.as_deref().unwrap_or("spheres").into()),
        },
        view: view::View {
            width: a.screen.0,
            height: a.screen.1,
            eye: a.eye,
            target: a.target,
            up: a.up,
            fov: a.fov,
            light: a.light,
            ambient: a.ambient,
            specular: a.specular,
            shininess: a.shininess,
            ..view::View::default()
        },
        renderers: a.renderers,
        policy: match a.policy {
            PolicyArg::RoundRobin => Policy::RoundRobin,
            PolicyArg::NextFree => Policy::NextFree,
        },
        gps: a.gps,
        gp_mops: a.gp_mops,
        ring_channels: a.ring_channels,
        renderers_only: a.renderers_only,
        outputs: study::StudyOutputs {
            picture: Some(a.output.clone()),
            save_streams: a.save_streams.clone(),
            wave: a.wave.clone().zip(a.region),
            system_wave: a.system_wave.clone(),
            timeline: a.timeline.clone(),
            coverage: a.coverage.clone(),
        },
        threads: None,
    }
}

/// A study's error as the CLI's exit code and message.
fn fail(e: StudyError) -> Fail {
    let code = match &e {
        StudyError::Usage(_) => EXIT_USAGE,
        StudyError::Input(_) => EXIT_INPUT,
        StudyError::Io(_) => EXIT_IO,
        StudyError::Sim(_) => EXIT_HW_ERROR,
        StudyError::Interrupted => EXIT_INTERRUPTED,
    };
    Fail(code, e.to_string())
}

/// Run `pp5 render`.
pub fn run(a: RenderArgs) -> Result<u8, Fail> {
    if a.obj.is_some() && a.scene.is_some() {
        return Err(Fail(
            EXIT_USAGE,
            "give an OBJ file or --scene, not both".into(),
        ));
    }
    if a.scene.as_deref() == Some("help") {
        out!("{}", scene::builtin_help());
        return Ok(0);
    }
    let (cols, rows) = (a.screen.0.div_ceil(128), a.screen.1.div_ceil(128));
    if let Some((i, j)) = a.region {
        if i >= cols || j >= rows {
            return Err(Fail(
                EXIT_USAGE,
                format!(
                    "--region {i},{j}: the screen has regions 0..{cols} across and 0..{rows} down"
                ),
            ));
        }
    }
    // The OBJ is read first, once (it may be a pipe): it names the `.mtl` libraries no output
    // may overwrite. Then every output is checked, before the work.
    let (mesh, name, libraries) = load_mesh(&a)?;
    let mut inputs: Vec<&Path> = a.obj.iter().map(PathBuf::as_path).collect();
    inputs.extend(libraries.iter().map(PathBuf::as_path));
    let outputs = outputs(&a);
    check_distinct(&inputs, &outputs)?;
    check_extensions(&outputs)?;
    // A failure from here takes back what was written (a `--save-streams` directory made).
    let mut noted = pp5_sim::out_file::Outputs::new();
    if let Some(dir) = &a.save_streams {
        streams_dir(dir, &mut noted)?;
    }
    check_writable(&outputs)?;
    let spec = study_spec(&a);
    spec.view.validate().map_err(input)?;
    // From here on a stop signal is seen (and one inherited as ignored stays ignored);
    // before, while the OBJ is read, it ends the program as it would any other.
    let _ = crate::interrupt::flag();
    for o in &outputs {
        noted.note(&o.path);
    }
    let image = Arc::new(pp5_sim::asm::microcode::render_image());
    let job = Job {
        mesh,
        name: name.clone(),
        spec: spec.clone(),
    };
    let Some(r) = render_interruptibly(job, image.clone(), (cols * rows) as usize)? else {
        return Ok(EXIT_INTERRUPTED);
    };
    let interrupt = crate::interrupt::flag();
    let written = study::write_outputs(&spec, &r, &name, &image, Some(&interrupt), &mut |n| {
        errln!("{n}")
    })
    .map_err(fail)?;
    if written == study::Written::WaveInterrupted {
        if let Some(wave) = &a.wave {
            noted.keep();
            errln!(
                "pp5: interrupted: the frame {} is written, the waveform {} ends where the \
                 region's run stopped",
                a.output.display(),
                wave.display()
            );
            return Ok(EXIT_INTERRUPTED);
        }
    }
    noted.keep();
    report(&a, &r)
}

/// What the render thread draws: the mesh, its name and the study's options.
struct Job {
    mesh: scene::Mesh,
    name: String,
    spec: StudySpec,
}

/// Render on a thread of its own while this one watches the interrupt flag: `None` when a
/// stop signal came first (what was done is said on standard error; the frame is not
/// written).
fn render_interruptibly(
    job: Job,
    image: Arc<McImage>,
    regions: usize,
) -> Result<Option<render::Rendered>, Fail> {
    let interrupt = crate::interrupt::flag();
    let bar = indicatif::ProgressBar::new(regions as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} regions",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    // Shown only for a render that takes more than a second.
    bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    let started = std::time::Instant::now();
    let (tx, rx) = mpsc::channel();
    let worker = {
        let bar = bar.clone();
        std::thread::spawn(move || {
            let progress = |done: usize| {
                if started.elapsed().as_secs_f64() > 1.0 && bar.is_hidden() {
                    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                }
                bar.set_position(done as u64);
            };
            let Job { mesh, name, spec } = job;
            let _ = tx.send(study::render(&spec, &mesh, &name, &image, &progress));
        })
    };
    loop {
        match rx.recv_timeout(std::time::Duration::from_millis(50)) {
            Ok(r) => {
                bar.finish_and_clear();
                return r.map(Some).map_err(fail);
            }
            Err(mpsc::RecvTimeoutError::Timeout) if interrupt.load(Ordering::Relaxed) => {
                let done = bar.position();
                bar.finish_and_clear();
                errln!(
                    "pp5: interrupted after {:.1} s: {done} of {regions} regions drawn \
                     (counted as each Renderer finishes its share); no frame written",
                    started.elapsed().as_secs_f64()
                );
                // The render thread ends with the program.
                return Ok(None);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // The render thread panicked: panic here as it did on this thread before.
                match worker.join() {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => unreachable!("the render thread sends its result before it ends"),
                }
            }
        }
    }
}

/// The timing study on standard output, and the exit code (4 when a Renderer set error bits).
fn report(a: &RenderArgs, r: &render::Rendered) -> Result<u8, Fail> {
    let text = report_text(a, r)?;
    out!("{text}");
    errln!("frame: {}", a.output.display());
    let errors = r.study.hardware_errors();
    if !errors.is_empty() {
        let list: Vec<String> = errors
            .iter()
            .map(|(k, bits)| format!("Renderer {k} ({bits:#010x})"))
            .collect();
        errln!(
            "pp5: error bits set on {}: the frame is written but not to be trusted (see the \
             diagnostics above)",
            list.join(", ")
        );
        return Ok(EXIT_HW_ERROR);
    }
    Ok(0)
}

/// The study in the format of `--report`, with what bounds the frame when the GPs and the
/// Ring were modelled ([`pp5_sim::render::run::report`], as Python's `report()`).
fn report_text(a: &RenderArgs, r: &render::Rendered) -> Result<String, Fail> {
    Ok(study::report(
        r,
        match a.report {
            ReportArg::Table => ReportFormat::Table,
            ReportArg::Json => ReportFormat::Json,
            ReportArg::Csv => ReportFormat::Csv,
        },
    ))
}
