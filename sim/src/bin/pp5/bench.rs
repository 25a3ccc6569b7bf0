//! `pp5 bench`: simulated cycles per second, tracing off and on, with a second core and in
//! the N-Renderer system; or the benchmark's streams saved for a profiler.

use crate::common::load_microcode;
use crate::files::{check_outputs, streams_dir, Output};
use crate::{Fail, EXIT_IO};
use clap::builder::RangedU64ValueParser;
use clap::Args;
use pp5_sim::bench::BenchFigure;
use pp5_sim::microcode_view::MicrocodeSources;
use std::path::PathBuf;

/// The most rounds of `--reps` (100,000: about 20 M cycles a run; the ALU stream 4.8 MB).
const MAX_REPS: u64 = 100_000;
/// The most `--runs` and `--warmup` rounds.
const MAX_RUNS: u64 = 100;

/// The files `--save-streams DIR` writes ([`pp5_sim::bench::save_streams`] names them).
const SAVED_STREAMS: [&str; 2] = ["alu.bin", "triangles.pp5s"];

#[derive(Args)]
pub struct BenchArgs {
    /// Rounds of the ALU-heavy stream, 1..=100000 (10,000: about 2 M cycles).
    #[arg(long, default_value_t = 10_000, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_REPS))]
    reps: usize,
    /// Runs of each configuration, alternating, 1..=100; the fastest is reported, and every
    /// run's time after it.
    #[arg(long, default_value_t = pp5_sim::bench::RUNS_PER_FIGURE, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_RUNS))]
    runs: usize,
    /// Rounds run first and not counted, 0..=100 (a process's first runs are slower: its
    /// memory is mapped as it is first touched).
    #[arg(long, default_value_t = pp5_sim::bench::WARMUP_ROUNDS, value_parser = RangedU64ValueParser::<usize>::new().range(0..=MAX_RUNS))]
    warmup: usize,
    /// Trace only these scopes in the traced runs (path prefixes; repeatable; default:
    /// everything), to see what a selection costs.
    #[arg(long)]
    scope: Vec<String>,
    /// Write the two streams (alu.bin, triangles.pp5s, for --reps) into this directory
    /// and stop, without measuring: to run them with `pp5 run` under a profiler
    /// (scripts/callgrind-cycles.sh). DIR is made when missing; its parent must exist.
    #[arg(long, value_name = "DIR")]
    save_streams: Option<PathBuf>,
    /// Also render a frame of the built-in scene (`pp5 render --scene spheres`) on one
    /// thread and on all, and print the speed-up (`--render=false` to skip it).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    render: bool,
    /// Also time whole-system studies (`pp5 render --scene SCENE`) on one thread, once
    /// each: the built-in spheres and the large random scene, or the scenes given with
    /// `--study-scene`; prints CPU seconds and the Renderer cycles stepped against those
    /// passed at once as still cycles (docs/timing.md, "Still cycles"). Takes about a minute.
    #[arg(long)]
    study: bool,
    /// A scene for `--study` (repeatable; a built-in scene name as `pp5 render --scene`
    /// takes).
    #[arg(long, value_name = "SCENE", requires = "study")]
    study_scene: Vec<String>,
}

/// The files `pp5 bench` writes.
pub fn outputs(a: &BenchArgs) -> Vec<Output> {
    (a.save_streams.iter())
        .flat_map(|d| SAVED_STREAMS.map(|n| Output::new("bench", "save_streams", d.join(n))))
        .collect()
}

/// Run `pp5 bench`.
pub fn run(args: BenchArgs) -> Result<u8, Fail> {
    let image = load_microcode(&[])?;
    if let Some(dir) = &args.save_streams {
        let outputs = outputs(&args);
        let mut noted = pp5_sim::out_file::Outputs::new();
        streams_dir(dir, &mut noted)?;
        check_outputs(&[], &outputs)?;
        for o in &outputs {
            noted.note(&o.path);
        }
        let paths =
            pp5_sim::bench::save_streams(&image, args.reps, dir).map_err(|e| Fail(EXIT_IO, e))?;
        debug_assert!(paths.iter().zip(&outputs).all(|(p, o)| *p == o.path));
        noted.keep();
        for p in paths {
            outln!("{}", p.display());
        }
        return Ok(0);
    }
    // The traced figures include the microcode's source names, as `pp5 run`'s waveform does.
    let names = MicrocodeSources::default_image().1.uinst_names();
    let mut figs = pp5_sim::bench::bench(
        (&image, Some(names)),
        args.reps,
        args.runs,
        args.warmup,
        &args.scope,
        &std::env::temp_dir(),
    )
    .map_err(|e| Fail(EXIT_IO, e))?;
    let render_figs = if args.render {
        pp5_sim::bench::bench_render(args.runs, args.warmup).map_err(|e| Fail(EXIT_IO, e))?
    } else {
        Vec::new()
    };
    figs.extend(render_figs.iter().cloned());
    print_figures(&figs)?;
    print_ratios(&figs, &render_figs)?;
    if args.study {
        let scenes = match args.study_scene.is_empty() {
            true => pp5_sim::bench::STUDY_SCENES.map(String::from).to_vec(),
            false => args.study_scene.clone(),
        };
        let studies = pp5_sim::bench::bench_study(&scenes).map_err(|e| Fail(EXIT_IO, e))?;
        print_studies(&studies)?;
    }
    Ok(0)
}

/// The study figures: seconds, and the Renderer cycles stepped and passed at once.
fn print_studies(studies: &[pp5_sim::bench::StudyFigure]) -> Result<(), Fail> {
    outln!(
        "\n{:<28} {:>10} {:>12} {:>14} {:>14} {:>7} {:>9}",
        "study (one thread)",
        "seconds",
        "frame cycles",
        "stepped",
        "still",
        "still %",
        "replayed"
    );
    for s in studies {
        let all = (s.stepped + s.still).max(1);
        outln!(
            "{:<28} {:>10.2} {:>12} {:>14} {:>14} {:>6.1}% {:>5} of {}",
            s.scene,
            s.seconds,
            s.frame_cycles,
            s.stepped,
            s.still,
            100.0 * s.still as f64 / all as f64,
            s.frames_replayed,
            s.frames_replayed + s.frames_full
        );
    }
    Ok(())
}

/// The table of figures: each configuration's fastest run and every run's time.
fn print_figures(figs: &[BenchFigure]) -> Result<(), Fail> {
    outln!(
        "{:<28} {:>12} {:>10} {:>16}   every run (s), in order",
        "run",
        "cycles",
        "seconds",
        "cycles/s"
    );
    for f in figs {
        let runs: Vec<String> = f.runs.iter().map(|s| format!("{s:.4}")).collect();
        outln!(
            "{:<28} {:>12} {:>10.4} {:>16.0}   {}",
            f.name,
            f.cycles,
            f.seconds,
            f.cycles_per_sec,
            runs.join(" ")
        );
    }
    Ok(())
}

/// What the figures say: the tracing slowdowns, the render speed-up, QEE against ALU, the
/// second core.
fn print_ratios(figs: &[BenchFigure], render_figs: &[BenchFigure]) -> Result<(), Fail> {
    // The tracing figures in pairs (off, VCD), and the second-core figure.
    let pairs: Vec<&BenchFigure> = figs
        .iter()
        .filter(|f| f.name != pp5_sim::bench::TWO_AT_ONCE)
        .filter(|f| !f.name.starts_with("render "))
        .collect();
    for pair in pairs.chunks(2) {
        if let [off, on] = pair {
            let (best, median) = pp5_sim::bench::slowdown(off, on);
            outln!(
                "{}: tracing slowdown (VCD on / off): {best:.2}x fastest runs, \
                 {median:.2}x median of back-to-back pairs",
                off.name.split(',').next().unwrap_or(""),
            );
        }
    }
    let named = |n: &str| figs.iter().find(|f| f.name == n);
    if let [one, all] = render_figs {
        outln!(
            "render: {} threads simulate {:.2}x as many cycles per second as one \
             (fastest runs)",
            rayon::current_num_threads(),
            all.cycles_per_sec / one.cycles_per_sec.max(1e-9)
        );
    }
    if let (Some(alu), Some(qee)) = (
        named(pp5_sim::bench::ALU_OFF),
        named(pp5_sim::bench::QEE_OFF),
    ) {
        outln!(
            "QEE triangles / ALU stream, tracing off: {:.2} of the ALU stream's \
             cycles per second (fastest runs)",
            qee.cycles_per_sec / alu.cycles_per_sec.max(1e-9)
        );
    }
    if let (Some(one), Some(two)) = (
        named(pp5_sim::bench::ALU_OFF),
        named(pp5_sim::bench::TWO_AT_ONCE),
    ) {
        let (best, median) = pp5_sim::bench::slowdown(one, two);
        outln!(
            "second core: two untraced ALU runs at once take {best:.2}x the time of one \
             (fastest runs; {median:.2}x median of same-round pairs; 1x: two free cores, \
             2x: one; a traced run's waveform writer needs the second)"
        );
    }
    Ok(())
}
