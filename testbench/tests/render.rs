//! `pp5 render` end to end on small scenes: the simulated system's frame against the plain
//! reference rasteriser (testbench/src/raster_reference.rs), pixel for pixel; the floating-point
//! shading within its documented tolerance; the same results for any number of threads and
//! for both policies; bad input refused; the cycle counts of a small scene as a snapshot.

use pp5_sim::asm::microcode::{render_image, McImage};
use pp5_sim::render::scene::{builtin, Mesh};
use pp5_sim::render::view::View;
use pp5_sim::render::{render, Policy, RenderError, RenderOptions, Rendered};
use pp5_testbench::raster_reference;
use std::sync::OnceLock;

fn image() -> &'static McImage {
    static IMAGE: OnceLock<McImage> = OnceLock::new();
    IMAGE.get_or_init(render_image)
}

/// A small screen: 2×2 regions, so primitives cross region borders.
fn small_view() -> View {
    View {
        width: 256,
        height: 256,
        ..View::default()
    }
}

fn draw(mesh: &Mesh, view: View, renderers: usize, policy: Policy) -> Rendered {
    let opts = RenderOptions {
        view,
        renderers,
        policy,
        ..RenderOptions::default()
    };
    render(mesh, &mesh.name, &opts, image(), &|_| {}).unwrap_or_else(|e| panic!("{e}"))
}

/// The largest per-channel difference between two frames, and how many pixels differ.
fn compare(a: &[[u8; 3]], b: &[[u8; 3]]) -> (u8, usize) {
    a.iter().zip(b).fold((0, 0), |(m, n), (p, q)| {
        let d = (0..3).map(|k| p[k].abs_diff(q[k])).max().unwrap_or(0);
        (m.max(d), n + (d > 0) as usize)
    })
}

/// The tolerance of the microcode's shading against the same maths in floating point on the
/// same stored attributes, per channel (docs/rendering.md, "Checking the pictures"): the
/// squarings rounded to 8 fractional bits can move a colour that lies near a half to the
/// other side of it, by 1.
const FLOAT_TOLERANCE: u8 = 1;
/// At least this share of the pixels equal the floating-point shading exactly (measured
/// 99.90-99.98% on full frames; the bar is 99%).
const FLOAT_EXACT: f64 = 0.99;

/// The model's frame equals the integer reference exactly, and the floating-point shading on
/// at least 99% of the pixels, the others within [`FLOAT_TOLERANCE`].
fn check_against_reference(mesh: &Mesh, view: View) -> Rendered {
    let r = draw(mesh, view.clone(), 4, Policy::RoundRobin);
    assert_eq!(r.study.hardware_errors(), vec![], "{}", mesh.name);
    let want = raster_reference::rasterise(&r.frame, &r.shading, view.width, view.height);
    let (worst, differing) = compare(&r.run.pixels, &want);
    assert_eq!(
        differing, 0,
        "{}: {differing} pixels differ from the reference (by up to {worst})",
        mesh.name
    );
    let float = raster_reference::rasterise_float(&r.frame, &r.shading, view.width, view.height);
    let (worst, differing) = compare(&r.run.pixels, &float);
    let exact = 1.0 - differing as f64 / float.len() as f64;
    assert!(
        worst <= FLOAT_TOLERANCE && exact >= FLOAT_EXACT,
        "{}: {differing} pixels differ from the floating-point shading, by up to {worst}",
        mesh.name
    );
    r
}

/// A mesh from triangles given by their vertices (each its own vertices), all facing +z.
fn mesh_of(name: &str, tris: &[([[f32; 3]; 3], [f32; 3])]) -> Mesh {
    let mut m = Mesh {
        name: name.into(),
        positions: Vec::new(),
        normals: Vec::new(),
        colors: Vec::new(),
        triangles: Vec::new(),
    };
    for (v, c) in tris {
        let base = m.positions.len() as u32;
        for p in v {
            m.positions.push(*p);
            m.normals.push([0.0, 0.0, 1.0]);
            m.colors.push(*c);
        }
        m.triangles.push([base, base + 1, base + 2]);
    }
    m
}

/// A camera straight down −z onto the z = 0 plane, seeing x, y in about −1..1.
fn front_view() -> View {
    View {
        eye: Some([0.0, 0.0, 3.0]),
        target: Some([0.0, 0.0, 0.0]),
        fov: 40.0,
        ..small_view()
    }
}

#[test]
fn one_triangle_matches_the_reference() {
    let m = builtin("triangle").expect("scene");
    let r = check_against_reference(&m, small_view());
    assert_eq!(r.frame.stats.triangles, 1);
    assert!(r.frame.stats.prims >= 1);
    let drawn = r
        .run
        .pixels
        .iter()
        .filter(|p| **p != r.shading.background)
        .count();
    assert!(drawn > 100, "{drawn} pixels drawn");
}

#[test]
fn spheres_match_the_reference() {
    let m = builtin("spheres:n=2,sub=1").expect("scene");
    check_against_reference(&m, small_view());
}

#[test]
fn overlapping_triangles_are_drawn_in_z_order() {
    // Red behind, green in front (nearer the camera at z = 3), drawn in both orders.
    let red = (
        [[-0.8, -0.8, -0.2], [0.8, -0.8, -0.2], [0.0, 0.8, -0.2]],
        [1.0, 0.0, 0.0],
    );
    let green = (
        [[-0.8, 0.8, 0.2], [-0.8, -0.6, 0.2], [0.8, 0.2, 0.2]],
        [0.0, 1.0, 0.0],
    );
    for tris in [[red, green], [green, red]] {
        let m = mesh_of("overlap", &tris);
        let r = check_against_reference(&m, front_view());
        // The centre of the screen is covered by both: green wins.
        let c = r.run.pixels[128 * 256 + 128];
        assert!(c[1] > c[0], "centre {c:?}");
    }
}

#[test]
fn triangles_crossing_region_borders_and_the_screen_edge() {
    // One large triangle over all four regions and past the left and bottom edges.
    let big = (
        [[-2.5, -2.5, 0.0], [1.0, -0.5, 0.0], [-0.5, 1.0, 0.0]],
        [0.3, 0.6, 0.9],
    );
    let m = mesh_of("border", &[big]);
    let r = check_against_reference(&m, front_view());
    assert!(r.frame.stats.clipped >= 1, "{:?}", r.frame.stats);
    let regions_drawn = r.run.regions.iter().filter(|x| x.prims > 0).count();
    assert_eq!(regions_drawn, 4);
}

#[test]
fn back_facing_degenerate_and_outside_triangles_are_dropped() {
    let back = (
        [[-0.5, -0.5, 0.0], [0.0, 0.5, 0.0], [0.5, -0.5, 0.0]],
        [1.0, 1.0, 1.0],
    );
    let flat = (
        [[-0.5, 0.0, 0.0], [0.0, 0.0, 0.0], [0.5, 0.0, 0.0]],
        [1.0, 1.0, 1.0],
    );
    let away = (
        [[10.0, 10.0, 0.0], [11.0, 10.0, 0.0], [10.0, 11.0, 0.0]],
        [1.0, 1.0, 1.0],
    );
    let m = mesh_of("dropped", &[back, flat, away]);
    let r = check_against_reference(&m, front_view());
    let s = &r.frame.stats;
    assert_eq!(
        (s.back_facing, s.degenerate, s.outside, s.prims),
        (1, 1, 1, 0),
        "{s:?}"
    );
    assert!(r.run.pixels.iter().all(|p| *p == r.shading.background));
}

#[test]
fn results_do_not_depend_on_threads_and_policies_change_only_timing() {
    let m = builtin("spheres:n=3,sub=1").expect("scene");
    let run_with = |threads: usize, renderers: usize, policy: Policy| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| draw(&m, small_view(), renderers, policy))
    };
    let one = run_with(1, 3, Policy::RoundRobin);
    for threads in [2, 4] {
        let r = run_with(threads, 3, Policy::RoundRobin);
        assert_eq!(r.run.pixels, one.run.pixels, "{threads} threads");
        assert_eq!(r.run.cycles, one.run.cycles, "{threads} threads");
        assert_eq!(r.study.region_cycles, one.study.region_cycles);
    }
    let nf1 = run_with(1, 3, Policy::NextFree);
    let nf2 = run_with(2, 3, Policy::NextFree);
    assert_eq!(
        nf1.run.pixels, one.run.pixels,
        "the picture does not depend on the policy"
    );
    assert_eq!(nf1.run.cycles, nf2.run.cycles);
    let regions =
        |r: &Rendered| -> Vec<usize> { r.run.regions.iter().map(|x| x.renderer).collect() };
    assert_eq!(regions(&nf1), regions(&nf2));
    // The dynamic policy never loses against round robin by more than one region's time.
    let longest = one
        .run
        .regions
        .iter()
        .map(|x| x.end - x.start)
        .max()
        .unwrap_or(0);
    assert!(nf1.run.cycles <= one.run.cycles + longest);
}

#[test]
fn cycle_counts_of_a_small_scene() {
    let m = builtin("quad").expect("scene");
    let r = draw(&m, small_view(), 2, Policy::RoundRobin);
    let lines: Vec<String> = r
        .run
        .regions
        .iter()
        .map(|x| {
            format!(
                "region {} on renderer {}: {} prims, cycles {}..{} (setup {}, prims {}, shading {}, output {})",
                x.region, x.renderer, x.prims, x.start, x.end, x.setup, x.primitives, x.shading, x.output
            )
        })
        .chain(std::iter::once(format!("frame {} cycles", r.run.cycles)))
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
    // Every primitive costs the same in every region: 11 commands, FBITS 16.
    assert!(r.run.prim_cycles.iter().all(|&c| c == r.run.prim_cycles[0]));
}

/// The study's stages add up to the regions' cycles: the IGC's waits between a region's
/// commands are a stage of their own (`input_wait`), 63 cycles in a region whose set-up maps
/// the array (each SEPCFG after its two NOOPs waits one cycle for its third word), none in
/// region 0, where the array is already mapped (issue 27 item 5).
#[test]
fn the_stages_add_up_to_the_regions_cycles() {
    use pp5_sim::render::study::Stages;
    let m = builtin("quad").expect("scene");
    let r = draw(&m, small_view(), 2, Policy::RoundRobin);
    for x in &r.run.regions {
        let st = Stages::of(x);
        assert_eq!(st.total(), x.end - x.start, "region {}", x.region);
        let want = if x.region == 0 { 0 } else { 63 };
        assert_eq!(st.input_wait, want, "region {}", x.region);
    }
    let sum: u64 = r.run.regions.iter().map(|x| x.end - x.start).sum();
    assert_eq!(r.study.stage_cycles.total(), sum);
    assert_eq!(r.study.stage_cycles.input_wait, 63 * 3);
    // The CSV's region rows add up too: setup..output and input_wait make `cycles`.
    let csv = r.study.csv();
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    for row in csv.lines().filter(|l| l.starts_with("region,")) {
        let f: Vec<&str> = row.split(',').collect();
        let n = |name: &str| f[col(name)].parse::<u64>().expect(name);
        let parts = ["setup", "primitives", "shading", "output", "input_wait"];
        assert_eq!(
            parts.iter().map(|p| n(p)).sum::<u64>(),
            n("cycles"),
            "{row}"
        );
    }
    assert!(r
        .study
        .table()
        .contains("waiting for the next command's words 189 ("));
}

/// The headline rate is the primitives drawn; the scene's triangles (culled ones included)
/// are named for what they count (issue 27 item 5: `triangles_per_sec` counted back faces).
#[test]
fn the_headline_rate_counts_the_primitives_drawn() {
    let m = builtin("spheres:n=2,sub=1").expect("scene");
    let r = draw(&m, small_view(), 1, Policy::RoundRobin);
    let g = &r.study.gp;
    assert!(g.back_facing > 0 && g.prims < g.triangles, "{g:?}");
    let secs = r.study.frame_us / 1e6;
    assert!((r.study.prims_per_sec - g.prims as f64 / secs).abs() < 1e-6);
    assert!((r.study.scene_triangles_per_sec - g.triangles as f64 / secs).abs() < 1e-6);
    // The JSON (as `--report json` writes it, fields in order): the headline first.
    let json = serde_json::to_string(&r.study).expect("json");
    let at = |k: &str| json.find(&format!("\"{k}\":"));
    assert_eq!(at("triangles_per_sec"), None);
    assert!(at("prims_per_sec").is_some());
    assert!(at("prims_per_sec") < at("scene_triangles_per_sec"));
    let table = r.study.table();
    let line = table
        .lines()
        .find(|l| l.starts_with("system: "))
        .expect("rates");
    assert!(
        line.starts_with(&format!(
            "system: {:.0} drawn primitives/s",
            r.study.prims_per_sec
        )),
        "{line}"
    );
}

#[test]
fn bad_input_is_refused_not_panicked_on() {
    let m = builtin("triangle").expect("scene");
    for n in [0, 17] {
        let opts = RenderOptions {
            view: small_view(),
            renderers: n,
            policy: Policy::RoundRobin,
            ..RenderOptions::default()
        };
        match render(&m, "t", &opts, image(), &|_| {}) {
            Err(RenderError::Input(msg)) => assert!(msg.contains("1..=16"), "{msg}"),
            other => panic!("{n} Renderers: {:?}", other.err()),
        }
    }
    let mut nan = m.clone();
    nan.positions[0][1] = f32::NAN;
    let inside = View {
        eye: Some([0.0, 0.0, 0.0]),
        ..small_view()
    };
    let mut huge = m.clone();
    huge.positions[1][0] = 1e30;
    let mut missing = m.clone();
    missing.triangles[0][2] = 99;
    let spheres = builtin("spheres:n=2,sub=1").expect("scene");
    for (mesh, view) in [
        (&nan, small_view()),
        (&spheres, inside),
        (&huge, small_view()),
        (&missing, small_view()),
    ] {
        let opts = RenderOptions {
            view,
            renderers: 1,
            policy: Policy::RoundRobin,
            ..RenderOptions::default()
        };
        assert!(matches!(
            render(mesh, "bad", &opts, image(), &|_| {}),
            Err(RenderError::Input(_))
        ));
    }
}

#[test]
fn the_default_spheres_frame_matches_the_reference() {
    let m = builtin("spheres").expect("scene");
    let r = check_against_reference(&m, View::default());
    assert_eq!((r.study.screen, r.study.renderers), ((1280, 1024), 4));
    assert_eq!(r.run.regions.len(), 80);
}

#[test]
fn error_bits_left_on_a_renderer_are_reported() {
    let m = builtin("triangle").expect("scene");
    let mut r = draw(&m, small_view(), 2, Policy::RoundRobin);
    assert_eq!(r.study.hardware_errors(), vec![]);
    // Streams are kept only on request (--save-streams, --wave).
    assert!(r.run.streams.is_empty());
    r.study.renderer_runs[1].error_bits = 1 << 26;
    assert_eq!(r.study.hardware_errors(), vec![(1, 1 << 26)]);
    assert!(r
        .study
        .table()
        .contains("renderer 1: error bits 0x04000000 set in its status word"));
}

#[test]
fn a_scene_is_framed_whatever_its_scale() {
    // The default camera frames the scene's bounding sphere: the same picture at any scale
    // (a scene a millionth or 10^-20 of a unit across once vanished behind a fixed near
    // plane).
    let m = builtin("spheres:n=2,sub=1").expect("scene");
    let drawn = |scale: f32| {
        let mut s = m.clone();
        for p in &mut s.positions {
            *p = p.map(|c| c * scale);
        }
        let r = draw(&s, small_view(), 1, Policy::RoundRobin);
        r.run
            .pixels
            .iter()
            .filter(|p| **p != r.shading.background)
            .count()
    };
    let unit = drawn(1.0);
    assert!(unit > 1000, "{unit} pixels drawn");
    for scale in [1e-5, 1e-12, 1e-20, 1e5] {
        let n = drawn(scale);
        assert!(
            n.abs_diff(unit) * 100 <= unit,
            "scale {scale}: {n} pixels drawn, {unit} at scale 1"
        );
    }
}

/// The steps of `MEMtimesSCA` that add or subtract for a scalar `v` of `slen` bits: the bits
/// 0..slen-1 that differ from its sign bit (sim/microcode/shade.pp5uc's cycle formula).
fn sca_steps(v: i32, slen: u32) -> u64 {
    let f = (v as u32) & ((1 << slen) - 1);
    let sign = (f >> (slen - 1)) & 1;
    (0..slen - 1).filter(|k| (f >> k) & 1 != sign).count() as u64
}

/// The shading pass's cycles per region depend on the view only through the six light and
/// half-vector scalars of its dot products (docs/rendering.md, "Shading"): 1,700 + 376 per
/// squaring + 17 per step of the specular weight's multiply + per scalar 8 per step (the
/// normal is 8 bits) and 1 if it is negative; the same in every region of a frame.
#[test]
fn the_shading_cycles_follow_the_documented_formula() {
    let m = builtin("triangle").expect("scene");
    let lights = [
        [0.4, 0.6, 0.7],
        [0.0, 0.0, 1.0],
        [-1.0, -1.0, 0.1],
        [1.0, -0.3, 0.2],
        [0.3, 0.3, -1.0],
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (k, light) in lights.into_iter().enumerate() {
        let (shininess, specular) = [(16, 0.5), (1, 0.5), (128, 0.3), (16, 1.0), (4, 0.0)][k];
        let view = View {
            width: 256,
            height: 256,
            light,
            shininess,
            specular,
            ..View::default()
        };
        let r = draw(&m, view, 2, Policy::RoundRobin);
        let s = &r.shading;
        let dots: u64 = s
            .light
            .iter()
            .chain(&s.half)
            .map(|&c| 8 * sca_steps(c, 9) + (c < 0) as u64)
            .sum();
        let want =
            1700 + 376 * u64::from(s.squarings) + 17 * sca_steps(s.specular as i32, 9) + dots;
        for x in &r.run.regions {
            assert_eq!(
                x.shading, want,
                "light {light:?}: {s:?}, region {}",
                x.region
            );
        }
        if (shininess, specular) == (16, 0.5) {
            assert_eq!(want, 3413, "the default view's figure in docs/rendering.md");
        }
        seen.insert(want);
    }
    assert_eq!(
        seen.len(),
        lights.len(),
        "the views cost different cycles: {seen:?}"
    );
}
