//! How close `pp5 render`'s frames are to the reference rasteriser
//! (testbench/src/raster_reference.rs), on full frames: the table in docs/rendering.md,
//! "Checking the pictures".
//!
//!     cargo run --release -p pp5-testbench --example picture_check -- [SCENE ...]
//!
//! SCENE is a built-in scene as `pp5 render --scene` takes it (default: spheres, torus,
//! terrain, random:n=5000,size=0.05). For each, the share of pixels by their largest
//! per-channel difference against the integer reference (which must be 100% at 0), the
//! floating-point shading of the stored attributes, and the floating-point shading of the
//! unrounded planes.

use pp5_sim::asm::microcode::render_image;
use pp5_sim::render::scene::builtin;
use pp5_sim::render::view::View;
use pp5_sim::render::{render, Policy, RenderOptions};
use pp5_testbench::raster_reference::{rasterise, rasterise_float, rasterise_float_planes};

/// Columns: pixels whose largest channel difference is in each bucket.
const BUCKETS: [(u8, u8); 6] = [(0, 0), (1, 1), (2, 2), (3, 4), (5, 8), (9, 255)];

fn histogram(a: &[[u8; 3]], b: &[[u8; 3]]) -> ([f64; 6], u8) {
    let mut n = [0usize; 6];
    let mut worst = 0;
    for (p, q) in a.iter().zip(b) {
        let d = (0..3).map(|k| p[k].abs_diff(q[k])).max().unwrap_or(0);
        worst = worst.max(d);
        let i = BUCKETS.iter().position(|&(lo, hi)| (lo..=hi).contains(&d));
        n[i.unwrap_or(5)] += 1;
    }
    let total = a.len().max(1) as f64;
    (n.map(|c| 100.0 * c as f64 / total), worst)
}

fn main() {
    let mut scenes: Vec<String> = std::env::args().skip(1).collect();
    if scenes.is_empty() {
        scenes = ["spheres", "torus", "terrain", "random:n=5000,size=0.05"]
            .map(String::from)
            .to_vec();
    }
    let image = render_image();
    println!("| scene | against | 0 | 1 | 2 | 3-4 | 5-8 | > 8 | largest |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for name in &scenes {
        let mesh = match builtin(name) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("picture_check: {name}: {e}");
                std::process::exit(3);
            }
        };
        let view = View::default();
        let opts = RenderOptions {
            view: view.clone(),
            renderers: 16,
            policy: Policy::RoundRobin,
            ..RenderOptions::default()
        };
        let r = match render(&mesh, name, &opts, &image, &|_| {}) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("picture_check: {name}: {e}");
                std::process::exit(1);
            }
        };
        let (w, h) = (view.width, view.height);
        let refs = [
            ("integer", rasterise(&r.frame, &r.shading, w, h)),
            ("float", rasterise_float(&r.frame, &r.shading, w, h)),
            (
                "float, planes",
                rasterise_float_planes(&r.frame, &r.shading, w, h),
            ),
        ];
        for (what, want) in refs {
            let (pct, worst) = histogram(&r.run.pixels, &want);
            let cols: Vec<String> = pct.iter().map(|p| format!("{p:.2}%")).collect();
            println!("| {name} | {what} | {} | {worst} |", cols.join(" | "));
        }
    }
}
