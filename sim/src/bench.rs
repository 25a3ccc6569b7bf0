//! `pp5 bench`: simulated 40 MHz cycles per wall-clock second, tracing off and on, measured in
//! one run so the ratio is meaningful on a shared machine; and, since a traced run needs a
//! second core for its waveform writer, whether one is free (two untraced runs at once).

use crate::asm::microcode::McImage;
use crate::demo::alu_stream;
use crate::engine::SimOptions;
use crate::session::{run, RunResult, RunSpec, WaveSpec};
use crate::stream::Stream;
use pp5_rtl::igc::UinstNames;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One measurement: the fastest of its runs, and every run's time. For several simulations at
/// once, `cycles` is one simulation's and `cycles_per_sec` one simulation's rate (its cycles
/// over the wall time of them all).
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchFigure {
    pub name: String,
    pub cycles: u64,
    pub seconds: f64,
    pub cycles_per_sec: f64,
    /// Wall-clock seconds of each run, in the order they ran.
    pub runs: Vec<f64>,
}

/// Name of the figure of the untraced ALU stream.
pub const ALU_OFF: &str = "ALU stream, tracing off";
/// Name of the figure of two untraced ALU runs at once.
pub const TWO_AT_ONCE: &str = "ALU stream, off, two at once";

/// Default runs of each configuration; the fastest is kept (the others absorb noise from a
/// shared machine: page faults, other processes).
pub const RUNS_PER_FIGURE: usize = 5;

/// Default warm-up rounds (every configuration once) before the counted ones.
pub const WARMUP_ROUNDS: usize = 1;

/// The slowdown of `on` relative to `off` two ways: the ratio of the fastest runs, and the
/// median of the ratios of the runs of the same round (round `k` of `on` against round `k` of
/// `off`; the tracing figures' runs are made back to back), which a machine whose speed drifts
/// during the benchmark disturbs less.
pub fn slowdown(off: &BenchFigure, on: &BenchFigure) -> (f64, f64) {
    let best = on.seconds / off.seconds.max(1e-9);
    let mut paired: Vec<f64> = on
        .runs
        .iter()
        .zip(&off.runs)
        .map(|(a, b)| a / b.max(1e-9))
        .collect();
    paired.sort_by(f64::total_cmp);
    let median = match paired.len() {
        0 => best,
        n if n % 2 == 1 => paired[n / 2],
        n => (paired[n / 2 - 1] + paired[n / 2]) / 2.0,
    };
    (best, median)
}

/// How many times the QEE-heavy stream draws the demo's triangles per 100 rounds of the
/// ALU stream: 10, so that at the default 10,000 rounds both streams run about a million
/// cycles or more.
pub const TRIANGLE_PASSES_PER_100_REPS: usize = 10;

/// The bench's two streams for `reps` rounds: the ALU-heavy stream (32-bit adds, subtracts,
/// copies, compares, `reps` times) and the QEE-heavy stream (the demo's four z-buffered,
/// Gouraud-shaded triangles, drawn over and over), with its text.
pub fn streams(image: &McImage, reps: usize) -> Result<(Stream, Stream), String> {
    let alu = alu_stream(&image.table, reps).map_err(|e| e.to_string())?;
    let tri = crate::stream::text::parse(&triangles_text(reps), "<triangles>", &image.table)
        .map_err(|e| e.to_string())?;
    Ok((alu, tri))
}

/// The text of the QEE-heavy stream for `reps` rounds.
pub fn triangles_text(reps: usize) -> String {
    let passes = (reps.saturating_mul(TRIANGLE_PASSES_PER_100_REPS) / 100).max(1);
    crate::demo::TRIANGLES_STREAM.repeat(passes)
}

/// Write the bench's streams for `reps` rounds into `dir` as `alu.bin` (binary Ring
/// messages) and `triangles.pp5s`, so that `pp5 run` (under a profiler, say) runs exactly
/// what the bench runs. Returns the two paths.
pub fn save_streams(image: &McImage, reps: usize, dir: &Path) -> Result<[PathBuf; 2], String> {
    let (alu, _) = streams(image, reps)?;
    let alu_path = dir.join("alu.bin");
    let tri_path = dir.join("triangles.pp5s");
    crate::out_file::write_buffered(&alu_path, |w| crate::stream::binary::write(&alu, w))
        .map_err(|e| e.to_string())?;
    crate::out_file::write(&tri_path, triangles_text(reps)).map_err(|e| e.to_string())?;
    Ok([alu_path, tri_path])
}

/// Name of the figure of the untraced QEE triangle stream.
pub const QEE_OFF: &str = "QEE triangles, tracing off";

/// Run the ALU-heavy stream (`reps` rounds) and the QEE-heavy triangle stream, each with
/// tracing off and with a VCD of the default scopes and probes into `dir`, then two untraced
/// ALU runs at once (one per thread), each `runs` times (at least once), alternating, after
/// `warmup` rounds that are not counted. `scopes` restricts the traced signals (empty: all).
/// Returns the fastest run of each: the pairs (off, VCD), then [`TWO_AT_ONCE`].
///
/// A process's first runs are slower than the later ones (measured: the first untraced ALU
/// run about 0.05 s of 0.27 s, the first traced one up to 0.2 s of 0.41 s): its memory is
/// mapped page by page as it is first touched, and the processor's caches and predictors
/// have not seen the code. The warm-up rounds take that cost out of the figures, which are the
/// simulator's steady speed.
///
/// A traced run uses two threads (the simulation and the waveform writer), so its speed
/// depends on a second core being free; the last figure measures that: two independent
/// untraced runs at once take the time of one on two free cores, twice that on one.
pub fn bench(
    (image, uinst_names): (&McImage, Option<UinstNames>),
    reps: usize,
    runs: usize,
    warmup: usize,
    scopes: &[String],
    dir: &Path,
) -> Result<Vec<BenchFigure>, String> {
    let (alu, tri) = streams(image, reps)?;
    let mut out: Vec<BenchFigure> = Vec::new();
    let vcd = dir.join("pp5-bench.vcd");
    // (name, stream, traced, simulations at once)
    let configs = [
        (ALU_OFF, &alu, false, 1),
        ("ALU stream, VCD", &alu, true, 1),
        (QEE_OFF, &tri, false, 1),
        ("QEE triangles, VCD", &tri, true, 1),
        (TWO_AT_ONCE, &alu, false, 2),
    ];
    for round in 0..warmup.saturating_add(runs.max(1)) {
        for (k, &(name, stream, traced, at_once)) in configs.iter().enumerate() {
            let spec = || RunSpec {
                image,
                boot: true,
                stream,
                opts: SimOptions::default(),
                wave: traced.then(|| {
                    let mut w = WaveSpec {
                        gtkw: false,
                        uinst_names: uinst_names.clone(),
                        ..WaveSpec::new(&vcd)
                    };
                    w.cfg.scopes = scopes.to_vec();
                    w
                }),
            };
            // Simultaneous traced runs would share one file.
            debug_assert!(!traced || at_once == 1);
            let t = Instant::now();
            let results: Vec<Result<RunResult, String>> = std::thread::scope(|s| {
                // Every simulation but the first on a thread of its own.
                let handles: Vec<_> = (1..at_once)
                    .map(|_| s.spawn(|| run(spec(), |_, _, _| {}, None).map_err(|e| e.to_string())))
                    .collect();
                let mut results = vec![run(spec(), |_, _, _| {}, None).map_err(|e| e.to_string())];
                // Every thread is joined before a result is looked at.
                results.extend(handles.into_iter().map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("a benchmark thread panicked".to_string()))
                }));
                results
            });
            let secs = t.elapsed().as_secs_f64();
            if traced {
                // Removed outside the timed run: the next traced run would otherwise truncate
                // it when it creates its file, and the kernel frees the old file's cached
                // pages (a few hundred MB) inside that run's time (20 to 90 ms measured).
                let _ = std::fs::remove_file(&vcd);
            }
            // The results (whole simulated boards) are dropped here, after the time was taken.
            let cycles = same_cycles(&results, name)?;
            if round < warmup {
                continue;
            }
            let fig = BenchFigure {
                name: name.into(),
                cycles,
                seconds: secs,
                cycles_per_sec: cycles as f64 / secs.max(1e-9),
                runs: vec![secs],
            };
            match out.get_mut(k) {
                Some(best) => {
                    best.runs.push(secs);
                    if secs < best.seconds {
                        best.seconds = secs;
                        best.cycles_per_sec = fig.cycles_per_sec;
                    }
                }
                None => out.push(fig),
            }
        }
    }
    let _ = std::fs::remove_file(&vcd);
    Ok(out)
}

/// The cycle count of the simulations of one configuration, which all ran the same stream: an
/// error if one failed or they disagree.
fn same_cycles(results: &[Result<RunResult, String>], name: &str) -> Result<u64, String> {
    let mut errors: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().err().cloned())
        .collect();
    let cycles: Vec<u64> = results
        .iter()
        .filter_map(|r| r.as_ref().ok().map(|r| r.sim.board.cycle))
        .collect();
    if cycles.windows(2).any(|w| w[0] != w[1]) {
        errors.push(format!(
            "{name}: the simulations ran {cycles:?} cycles, not the same"
        ));
    }
    match (errors.is_empty(), cycles.first()) {
        (true, Some(&c)) => Ok(c),
        (true, None) => Err(format!("{name}: no simulation ran")),
        (false, _) => Err(errors.join("; ")),
    }
}

/// The scenes of the study figures (`pp5 bench --study`): the built-in spheres and the
/// large random scene of the paper's design point (docs/timing.md, "Still cycles").
pub const STUDY_SCENES: [&str; 2] = ["spheres", "random:n=100000,size=0.02"];

/// One whole-system study (`pp5 render --scene SCENE` at its defaults) timed on one thread.
#[derive(Clone, Debug, serde::Serialize)]
pub struct StudyFigure {
    pub scene: String,
    /// Wall-clock seconds on one thread (about its CPU time).
    pub seconds: f64,
    /// The full system's frame, in cycles.
    pub frame_cycles: u64,
    /// The full-system frame's Renderer cycles (all 16, boots included): stepped one by
    /// one, and passed at once as still cycles.
    pub stepped: u64,
    pub still: u64,
    /// The study's other frames: replayed from the full system's frame, and run in full
    /// (docs/rendering.md, "Which rows are simulated, which derived").
    pub frames_replayed: usize,
    pub frames_full: usize,
}

/// Run the study of each of `scenes` once on one thread ([`StudyFigure`]).
pub fn bench_study(scenes: &[String]) -> Result<Vec<StudyFigure>, String> {
    use crate::render::run::{render, SceneSource, StudySpec};
    let image = crate::asm::microcode::render_image();
    let mut out = Vec::new();
    for scene in scenes {
        let spec = StudySpec {
            scene: SceneSource::Builtin(scene.clone()),
            threads: Some(1),
            ..StudySpec::default()
        };
        spec.check().map_err(|e| e.to_string())?;
        let (mesh, name) = spec.load_mesh().map_err(|e| e.to_string())?;
        let t = Instant::now();
        let r = render(&spec, &mesh, &name, &image, &|_| {}).map_err(|e| e.to_string())?;
        let seconds = t.elapsed().as_secs_f64();
        let all: u64 = r
            .run
            .renderers
            .iter()
            .map(|x| x.cycles + x.boot_cycles)
            .sum();
        let still: u64 = r.run.renderers.iter().map(|x| x.still_cycles).sum();
        let frames = r.bounds.as_ref().map(|b| b.frames).unwrap_or_default();
        out.push(StudyFigure {
            scene: scene.clone(),
            seconds,
            frame_cycles: r.run.cycles,
            stepped: all - still,
            still,
            frames_replayed: frames.replayed,
            frames_full: frames.full,
        });
    }
    Ok(out)
}

/// Names of the render figures: a frame of the built-in scene on 16 Renderers, on one thread
/// and on all of the machine's (the figure is then named with their number).
pub const RENDER_ONE: &str = "render spheres, 1 thread";
pub const RENDER_ALL: &str = "render spheres, all threads";

/// The scene and screen of the render figures: `pp5 render --scene spheres` at its defaults.
pub const RENDER_SCENE: &str = "spheres";

/// Render a frame of [`RENDER_SCENE`] on 16 Renderers, `runs` times (after `warmup` uncounted
/// rounds) on one thread and on all threads, alternating. A figure's cycles are all the
/// Renderers' simulated cycles together (each boot included).
pub fn bench_render(runs: usize, warmup: usize) -> Result<Vec<BenchFigure>, String> {
    use crate::render::{render, scene, RenderOptions};
    let image = crate::asm::microcode::render_image();
    let mesh = scene::builtin(RENDER_SCENE).map_err(|e| e.to_string())?;
    let opts = RenderOptions::default();
    let all = rayon::current_num_threads();
    let mut out: Vec<BenchFigure> = Vec::new();
    for round in 0..warmup.saturating_add(runs.max(1)) {
        for (k, (name, threads)) in [(RENDER_ONE, 1), (RENDER_ALL, all)].into_iter().enumerate() {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| e.to_string())?;
            let t = Instant::now();
            let r = pool
                .install(|| render(&mesh, RENDER_SCENE, &opts, &image, &|_| {}))
                .map_err(|e| e.to_string())?;
            let secs = t.elapsed().as_secs_f64();
            let cycles: u64 = r
                .run
                .renderers
                .iter()
                .map(|x| x.cycles + x.boot_cycles)
                .sum();
            drop(r);
            if round < warmup {
                continue;
            }
            match out.get_mut(k) {
                Some(best) => {
                    best.runs.push(secs);
                    if secs < best.seconds {
                        best.seconds = secs;
                        best.cycles_per_sec = cycles as f64 / secs.max(1e-9);
                    }
                }
                None => out.push(BenchFigure {
                    name: if threads == 1 {
                        name.into()
                    } else {
                        format!("render spheres, {threads} threads")
                    },
                    cycles,
                    seconds: secs,
                    cycles_per_sec: cycles as f64 / secs.max(1e-9),
                    runs: vec![secs],
                }),
            }
        }
    }
    Ok(out)
}
