//! `pp5 bench`: simulated 40 MHz cycles per wall-clock second, tracing off and on, measured in
//! one run so the ratio is meaningful on a shared machine.

use crate::asm::microcode::McImage;
use crate::demo::alu_stream;
use crate::engine::SimOptions;
use crate::session::{run, RunSpec, WaveSpec};
use std::path::Path;
use std::time::Instant;

/// One measurement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchFigure {
    pub name: String,
    pub cycles: u64,
    pub seconds: f64,
    pub cycles_per_sec: f64,
}

/// Runs of each configuration; the fastest is kept (the others absorb noise from a shared
/// machine: page faults, other processes).
pub const RUNS_PER_FIGURE: usize = 3;

/// Run the ALU-heavy stream (`reps` rounds) and the QEE-heavy triangle stream, each with
/// tracing off and with a VCD of the default scopes and probes into `dir`, each
/// [`RUNS_PER_FIGURE`] times, alternating. `scopes` restricts the traced signals (empty:
/// all). Returns the fastest run of each, in pairs (off,
/// VCD).
pub fn bench(
    image: &McImage,
    reps: usize,
    scopes: &[String],
    dir: &Path,
) -> Result<Vec<BenchFigure>, String> {
    let alu = alu_stream(&image.table, reps).map_err(|e| e.to_string())?;
    // The QEE-heavy stream: the demo's shaded triangles, drawn over and over.
    let tri_text = crate::demo::TRIANGLES_STREAM.repeat((reps / 20).max(1));
    let tri = crate::stream::text::parse(&tri_text, "<triangles>", &image.table)
        .map_err(|e| e.to_string())?;
    let mut out: Vec<BenchFigure> = Vec::new();
    let vcd = dir.join("pp5-bench.vcd");
    let runs = [
        ("ALU stream, tracing off", &alu, false),
        ("ALU stream, VCD", &alu, true),
        ("QEE triangles, tracing off", &tri, false),
        ("QEE triangles, VCD", &tri, true),
    ];
    for _ in 0..RUNS_PER_FIGURE {
        for (k, (name, stream, traced)) in runs.iter().enumerate() {
            let wave = traced.then(|| {
                let mut w = WaveSpec {
                    gtkw: false,
                    ..WaveSpec::new(&vcd)
                };
                w.cfg.scopes = scopes.to_vec();
                w
            });
            let spec = RunSpec {
                image,
                boot: true,
                stream,
                opts: SimOptions::default(),
                wave,
            };
            let t = Instant::now();
            let r = run(spec, |_, _, _| {}, None).map_err(|e| e.to_string())?;
            let secs = t.elapsed().as_secs_f64();
            let cycles = r.sim.board.cycle;
            let fig = BenchFigure {
                name: (*name).into(),
                cycles,
                seconds: secs,
                cycles_per_sec: cycles as f64 / secs.max(1e-9),
            };
            match out.get_mut(k) {
                Some(best) if best.seconds <= secs => {}
                Some(best) => *best = fig,
                None => out.push(fig),
            }
        }
    }
    let _ = std::fs::remove_file(&vcd);
    Ok(out)
}
