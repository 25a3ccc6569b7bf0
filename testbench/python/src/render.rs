//! `pp5.render(...)`: the timing study of `pp5 render`, run by the same library function
//! (`pp5_sim::render::run`), with the report's figures as attributes, the picture as a NumPy
//! array, and the CLI's report text in its three formats.

use crate::errors::{escaped, type_error, value_error, SimulationError};
use numpy::ndarray::Array3;
use numpy::IntoPyArray;
use pp5_sim::render::run::{self as study, ReportFormat, SceneSource, StudyError, StudySpec};
use pp5_sim::render::{view, Policy, Rendered};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// A study error as the Python exception of its kind.
fn study_error(e: StudyError) -> PyErr {
    match e {
        StudyError::Usage(m) | StudyError::Input(m) => value_error(m),
        StudyError::Io(m) => PyOSError::new_err(escaped(&m)),
        StudyError::Sim(m) => SimulationError::new_err(escaped(&m)),
        StudyError::Interrupted => PyKeyboardInterrupt::new_err("interrupted: no frame written"),
    }
}

/// `"WxH"` or `(w, h)`.
fn screen_arg(o: &Bound<'_, PyAny>) -> PyResult<(u32, u32)> {
    if let Ok(s) = o.cast::<PyString>() {
        return view::parse_screen(&s.to_string()).map_err(|e| value_error(format!("screen: {e}")));
    }
    o.extract::<(u32, u32)>()
        .map_err(|_| type_error("screen: a 'WIDTHxHEIGHT' string or a (width, height) tuple"))
}

/// `"x,y,z"` or three numbers.
fn v3_arg(what: &str, o: &Bound<'_, PyAny>) -> PyResult<[f64; 3]> {
    if let Ok(s) = o.cast::<PyString>() {
        return view::parse_v3(&s.to_string()).map_err(|e| value_error(format!("{what}: {e}")));
    }
    o.extract::<(f64, f64, f64)>()
        .map(|(x, y, z)| [x, y, z])
        .map_err(|_| type_error(format!("{what}: an 'X,Y,Z' string or three numbers")))
}

/// `"i,j"` or `(i, j)`.
fn region_arg(o: &Bound<'_, PyAny>) -> PyResult<(u32, u32)> {
    if let Ok(s) = o.cast::<PyString>() {
        return view::parse_pair(&s.to_string(), &[','], "I,J (a region's column and row)")
            .map_err(|e| value_error(format!("region: {e}")));
    }
    o.extract::<(u32, u32)>()
        .map_err(|_| type_error("region: an 'I,J' string or a (column, row) tuple"))
}

fn policy_arg(s: &str) -> PyResult<Policy> {
    match s.replace('_', "-").as_str() {
        "round-robin" => Ok(Policy::RoundRobin),
        "next-free" => Ok(Policy::NextFree),
        _ => Err(value_error(format!(
            "policy {s:?}: 'round-robin' or 'next-free'"
        ))),
    }
}

/// Run the timing study of `pp5 render` on a simulated Pixel-Planes 5 system and return its
/// figures (:class:`RenderResult`). The options are the CLI's, with its defaults (``None``:
/// the default): ``scene`` a built-in scene (``"spheres"``, ``"random:n=1000,size=0.02"``,
/// ...) or a path (``pathlib.Path``) to a Wavefront OBJ file (or ``obj=``); ``screen``
/// ``"WxH"`` or ``(w, h)``; ``eye``, ``target``, ``up``, ``light`` ``"x,y,z"`` or three numbers;
/// ``policy`` ``"round-robin"`` or ``"next-free"``; ``gps=0`` or ``ring_channels=0``:
/// unbounded. Files are written only when named: ``output`` (the PNG), ``save_streams`` (a
/// directory), ``wave`` with ``region`` (``(i, j)``), ``system_wave``, ``timeline``,
/// ``coverage``. ``threads``: the simulation's threads (default: every core, or
/// ``RAYON_NUM_THREADS``); the figures do not depend on it. The GIL is released while the
/// frame is simulated. Bad options raise ``ValueError`` (the CLI's message), a Renderer that
/// stops ``pp5.SimulationError``, a file that cannot be read or written ``OSError``.
#[pyfunction]
#[pyo3(signature = (
    scene = None, *, obj = None, screen = None, renderers = None, policy = None, gps = None,
    gp_mops = None, ring_channels = None, renderers_only = false, eye = None, target = None,
    up = None, fov = None, light = None, ambient = None, specular = None, shininess = None,
    output = None, save_streams = None, wave = None, region = None, system_wave = None,
    timeline = None, coverage = None, threads = None
))]
#[allow(clippy::too_many_arguments)]
pub fn render(
    py: Python<'_>,
    scene: Option<&Bound<'_, PyAny>>,
    obj: Option<PathBuf>,
    screen: Option<&Bound<'_, PyAny>>,
    renderers: Option<usize>,
    policy: Option<&str>,
    gps: Option<usize>,
    gp_mops: Option<f64>,
    ring_channels: Option<usize>,
    renderers_only: bool,
    eye: Option<&Bound<'_, PyAny>>,
    target: Option<&Bound<'_, PyAny>>,
    up: Option<&Bound<'_, PyAny>>,
    fov: Option<f64>,
    light: Option<&Bound<'_, PyAny>>,
    ambient: Option<f64>,
    specular: Option<f64>,
    shininess: Option<u32>,
    output: Option<PathBuf>,
    save_streams: Option<PathBuf>,
    wave: Option<PathBuf>,
    region: Option<&Bound<'_, PyAny>>,
    system_wave: Option<PathBuf>,
    timeline: Option<PathBuf>,
    coverage: Option<PathBuf>,
    threads: Option<usize>,
) -> PyResult<RenderResult> {
    let scene = match (scene, obj) {
        (Some(_), Some(_)) => return Err(value_error("give an OBJ file or a scene, not both")),
        (None, Some(p)) => SceneSource::Obj(p),
        (None, None) => SceneSource::default(),
        (Some(s), None) => match s.cast::<PyString>() {
            Ok(s) => SceneSource::Builtin(s.to_string()),
            Err(_) => SceneSource::Obj(s.extract::<PathBuf>().map_err(|_| {
                type_error("scene: a built-in scene's name (str) or an OBJ file's path")
            })?),
        },
    };
    if scene == SceneSource::Builtin("help".into()) {
        return Err(value_error(pp5_sim::render::scene::builtin_help()));
    }
    let mut spec = StudySpec {
        scene,
        ..StudySpec::default()
    };
    let v = &mut spec.view;
    if let Some(s) = screen {
        (v.width, v.height) = screen_arg(s)?;
    }
    v.eye = eye.map(|o| v3_arg("eye", o)).transpose()?;
    v.target = target.map(|o| v3_arg("target", o)).transpose()?;
    if let Some(o) = up {
        v.up = v3_arg("up", o)?;
    }
    if let Some(o) = light {
        v.light = v3_arg("light", o)?;
    }
    if let Some(f) = fov {
        v.fov = f;
    }
    if let Some(a) = ambient {
        v.ambient = a;
    }
    if let Some(s) = specular {
        v.specular = s;
    }
    if let Some(s) = shininess {
        v.shininess = s;
    }
    if let Some(r) = renderers {
        spec.renderers = r;
    }
    if let Some(p) = policy {
        spec.policy = policy_arg(p)?;
    }
    if let Some(g) = gps {
        spec.gps = g;
    }
    if let Some(m) = gp_mops {
        spec.gp_mops = m;
    }
    if let Some(c) = ring_channels {
        spec.ring_channels = c;
    }
    spec.renderers_only = renderers_only;
    spec.threads = threads;
    let o = &mut spec.outputs;
    o.picture = output;
    o.save_streams = save_streams;
    o.system_wave = system_wave;
    o.timeline = timeline;
    o.coverage = coverage;
    o.wave = match (wave, region) {
        (Some(w), Some(r)) => Some((w, region_arg(r)?)),
        (None, None) => None,
        _ => return Err(value_error("wave and region go together")),
    };
    let run = run_interruptibly(py, spec)?;
    RenderResult::new(py, run.rendered, run.notes)
}

/// [`study::run`] on a thread of its own while this one, without the GIL, waits for it and
/// checks for Ctrl-C every 50 ms: `KeyboardInterrupt` abandons the frame (its thread finishes
/// the frame it simulates, then writes nothing), as `pp5 render` does on a stop signal.
fn run_interruptibly(py: Python<'_>, spec: StudySpec) -> PyResult<study::StudyRun> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let flag = interrupt.clone();
    std::thread::spawn(move || {
        let _ = tx.send(study::run(&spec, &|_| {}, Some(&flag)));
    });
    let mut rx = rx;
    loop {
        // The receiver goes to the GIL-free closure and back (it is Send, not Sync).
        let (got, back) = py.detach(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
        rx = back;
        match got {
            Ok(r) => return r.map_err(study_error),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    interrupt.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("the render thread panicked"))
            }
        }
    }
}

/// The figures of one study (``pp5.render``): the attributes are those of ``pp5 render
/// --report json`` (``as_dict()`` is that JSON as a dict), ``picture`` the frame.
#[pyclass(module = "pp5", frozen)]
pub struct RenderResult {
    rendered: Rendered,
    dict: Py<PyDict>,
    /// The lines about the files written (what the CLI prints on standard error).
    #[pyo3(get)]
    notes: Vec<String>,
}

impl RenderResult {
    fn new(py: Python<'_>, rendered: Rendered, notes: Vec<String>) -> PyResult<RenderResult> {
        let text = study::report(&rendered, ReportFormat::Json);
        let dict = py
            .import("json")?
            .call_method1("loads", (text,))?
            .cast_into::<PyDict>()?
            .unbind();
        Ok(RenderResult {
            rendered,
            dict,
            notes,
        })
    }

    /// The report's `key`, `None` when absent.
    fn get<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.dict.bind(py).get_item(key)
    }

    /// The `system` section's `key` (`None` with `renderers_only`).
    fn system<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.get(py, "system")? {
            Some(s) => Ok(s.cast_into::<PyDict>()?.get_item(key)?),
            None => Ok(None),
        }
    }
}

#[pymethods]
impl RenderResult {
    /// The scene's name as the report gives it.
    #[getter]
    fn scene(&self) -> String {
        self.rendered.study.scene.clone()
    }

    /// (width, height) in pixels.
    #[getter]
    fn screen(&self) -> (u32, u32) {
        self.rendered.study.screen
    }

    /// Renderers in the system.
    #[getter]
    fn renderers(&self) -> usize {
        self.rendered.study.renderers
    }

    /// The frame's 40 MHz cycles (the full system's, or the Renderers' alone).
    #[getter]
    fn frame_cycles(&self) -> u64 {
        self.rendered.study.frame_cycles
    }

    /// The frame's time in µs at 40 MHz.
    #[getter]
    fn frame_us(&self) -> f64 {
        self.rendered.study.frame_us
    }

    /// Drawn (front-facing, in view) primitives per second.
    #[getter]
    fn prims_per_sec(&self) -> f64 {
        self.rendered.study.prims_per_sec
    }

    /// The scene's triangles per second, culled ones included.
    #[getter]
    fn scene_triangles_per_sec(&self) -> f64 {
        self.rendered.study.scene_triangles_per_sec
    }

    /// The GP's statistics (triangles, outside, clipped, back_facing, degenerate, prims,
    /// binned, mean_prim_area).
    #[getter]
    fn gp<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.get(py, "gp")
    }

    /// IGC cycles by stage over all regions: setup, primitives, shading, output, input_wait.
    #[getter]
    fn stages<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.get(py, "stage_cycles")
    }

    /// What bounds the frame: one dict per system (full system, GPs unbounded, Ring
    /// unbounded, Renderers unbounded, the Renderers alone) with frame_cycles, frame_us,
    /// prims_per_sec; ``None`` with ``renderers_only``.
    #[getter]
    fn system_rows<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.system(py, "rows")
    }

    /// Each GP's busy share of the frame (``None`` with ``renderers_only``).
    #[getter]
    fn gp_util<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.system(py, "gp_util")
    }

    /// Each Ring channel's busy share of the frame.
    #[getter]
    fn ring_util<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.system(py, "ring_util")
    }

    /// Each Renderer's IGC working, share of the frame.
    #[getter]
    fn renderer_util<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.system(py, "renderer_util")
    }

    /// "GPs", "Ring", "Renderers" or "none" (``None`` with ``renderers_only``).
    #[getter]
    fn bound<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.system(py, "bound")
    }

    /// The report's verdict line.
    #[getter]
    fn verdict<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.system(py, "verdict")
    }

    /// (M operations/s per GP, frame cycles) of the full system at other GP rates.
    #[getter]
    fn sensitivity<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.system(py, "sensitivity")
    }

    /// The IGC timeout finding: ``limit``, ``renderers`` over it, ``longest_wait``,
    /// ``longest_renderer``.
    #[getter]
    fn igc_timeout<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.get(py, "igc_timeout")
    }

    /// (Renderer, error bits) of each Renderer that set error bits (the CLI exits 4).
    #[getter]
    fn hardware_errors(&self) -> Vec<(usize, u32)> {
        self.rendered.study.hardware_errors()
    }

    /// The frame as the frame buffer received it: ``uint8[height, width, 3]`` (RGB).
    #[getter]
    fn picture<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (w, h) = self.rendered.study.screen;
        let rgb: Vec<u8> = self.rendered.run.pixels.iter().flatten().copied().collect();
        let a = Array3::from_shape_vec((h as usize, w as usize, 3), rgb)
            .map_err(|e| value_error(e.to_string()))?;
        Ok(a.into_pyarray(py).into_any())
    }

    /// The report as ``pp5 render --report FORMAT`` prints it: ``"table"``, ``"json"`` or
    /// ``"csv"``.
    #[pyo3(signature = (format = "table"))]
    fn report(&self, format: &str) -> PyResult<String> {
        let f = match format {
            "table" => ReportFormat::Table,
            "json" => ReportFormat::Json,
            "csv" => ReportFormat::Csv,
            _ => {
                return Err(value_error(format!(
                    "format {format:?}: table, json or csv"
                )))
            }
        };
        Ok(study::report(&self.rendered, f))
    }

    /// The JSON report (``pp5 render --report json``) as a new dict.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = study::report(&self.rendered, ReportFormat::Json);
        py.import("json")?.call_method1("loads", (text,))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let bound = self
            .system(py, "bound")?
            .map(|b| b.str().map(|s| s.to_string()))
            .transpose()?
            .unwrap_or_else(|| "Renderers alone".into());
        Ok(format!(
            "<RenderResult {}: {} cycles, {:.1} us, bound: {bound}>",
            self.rendered.study.scene,
            self.rendered.study.frame_cycles,
            self.rendered.study.frame_us
        ))
    }
}
