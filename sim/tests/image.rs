//! PNG pictures of the array (`--image`) and the built-in triangle demo drawn by the QEE.

mod common;

use common::Scratch;
use pp5_rtl::emc_array::EmcArray;
use pp5_sim::asm::microcode;
use pp5_sim::demo::{self, TRIANGLES, TRI_FBITS, TRI_FIELDS, TRI_Z, TRI_Z_LEN};
use pp5_sim::engine::StopReason;
use pp5_sim::image::{self, parse_spec, ImageKind, ImageSpec};
use pp5_sim::report::Summary;
use pp5_sim::session::RunResult;
use std::path::PathBuf;
use std::process::Command;

const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

fn run_text(text: &str) -> (RunResult, Summary) {
    let img = microcode::standard();
    let stream = pp5_sim::stream::text::parse(text, "<test>", &img.table).expect("parse");
    let r = common::run(common::spec(&img, &stream)).expect("run");
    let s = Summary::of(&r.sim, &r.stop);
    (r, s)
}

/// Decode a PNG: (width, height, RGB bytes).
fn read_png(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).expect("open png"),
    ));
    let mut reader = dec.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("png frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn good_specs_parse() {
    assert_eq!(
        parse_spec("out.png=rgb:0,8,16"),
        Ok(ImageSpec {
            path: "out.png".into(),
            kind: ImageKind::Rgb { r: 0, g: 8, b: 16 }
        })
    );
    assert_eq!(
        parse_spec("dir/a=b.png=grey:100,16").map(|s| (s.path, s.kind)),
        Ok((
            PathBuf::from("dir/a=b.png"),
            ImageKind::Grey { addr: 100, len: 16 }
        ))
    );
    assert_eq!(
        parse_spec("g.png=gray: 192 , 16").map(|s| s.kind),
        Ok(ImageKind::Grey { addr: 192, len: 16 })
    );
    assert_eq!(
        parse_spec("e.png=enable").map(|s| s.kind),
        Ok(ImageKind::Enable)
    );
    assert_eq!(
        parse_spec("c.png=RGB:200,0,0").map(|s| s.kind),
        Ok(ImageKind::Rgb { r: 200, g: 0, b: 0 })
    );
}

#[test]
fn bad_specs_are_errors_not_panics() {
    for bad in [
        "",
        "out.png",
        "=rgb:0,8,16",
        "out.png=",
        "out.png=rgb",
        "out.png=rgb:0,8",
        "out.png=rgb:0,8,16,24",
        "out.png=rgb:0,8,201",
        "out.png=rgb:0,-8,16",
        "out.png=rgb:a,b,c",
        "out.png=grey:0,0",
        "out.png=grey:0,17",
        "out.png=grey:200,9",
        "out.png=grey:0",
        "out.png=grey:99999999999999999999999,1",
        "out.png=enable:3",
        "out.png=colour:0,8,16",
    ] {
        let e = parse_spec(bad).expect_err(bad);
        assert!(!e.is_empty(), "{bad}");
    }
}

#[test]
fn colour_grey_and_enable_images_read_the_array() {
    let mut a = EmcArray::new();
    a.poke(0, 0, 0, 8, 0x12);
    a.poke(0, 0, 8, 8, 0x34);
    a.poke(0, 0, 16, 8, 0x56);
    a.poke(127, 0, 0, 24, 0xff_00_80);
    a.poke(3, 5, 8, 8, 200);
    let rgb = image::colour_image(&a, 0, 8, 16);
    assert_eq!(rgb.len(), 128 * 128 * 3);
    let px = |img: &[u8], x: usize, y: usize| [0, 1, 2].map(|c| img[(y * 128 + x) * 3 + c]);
    assert_eq!(px(&rgb, 0, 0), [0x12, 0x34, 0x56]);
    assert_eq!(
        px(&rgb, 127, 0),
        [0x80, 0x00, 0xff],
        "row 0 ends with x = 127"
    );
    assert_eq!(px(&rgb, 3, 5), [0, 200, 0], "y is the row");
    assert_eq!(px(&rgb, 5, 3), [0, 0, 0]);
    // The fields may be in any order.
    assert_eq!(
        px(&image::colour_image(&a, 16, 8, 0), 0, 0),
        [0x56, 0x34, 0x12]
    );
    // Grey: a 4-bit field scaled to 0..=255.
    a.poke(9, 9, 40, 4, 15);
    a.poke(10, 9, 40, 4, 5);
    let g = image::grey_image(&a, 40, 4);
    assert_eq!(px(&g, 9, 9), [255; 3]);
    assert_eq!(px(&g, 10, 9), [85; 3]);
    assert_eq!(px(&g, 11, 9), [0; 3]);
    // Enable.
    pp5_rtl::emc_array::plane::set(&mut a.enable, 7, 100, true);
    let e = image::enable_image(&a);
    assert_eq!(px(&e, 7, 100), [255; 3]);
    assert_eq!(px(&e, 100, 7), [0; 3]);
}

#[test]
fn png_files_are_written_and_read_back() {
    let dir = Scratch::new();
    let mut a = EmcArray::new();
    a.poke(1, 2, 0, 24, 0x0a_0b_0c);
    let p = dir.path("x.png");
    let spec = parse_spec(&format!("{}=rgb:0,8,16", p.display())).expect("spec");
    image::write_image(&a, &spec).expect("write");
    let bytes = std::fs::read(&p).expect("read");
    assert_eq!(bytes[..8], PNG_SIGNATURE);
    let (w, h, rgb) = read_png(&p);
    assert_eq!((w, h), (128, 128));
    assert_eq!(rgb, image::colour_image(&a, 0, 8, 16));
    assert_eq!(rgb[(2 * 128 + 1) * 3..][..3], [0x0c, 0x0b, 0x0a]);
    // A size mismatch and an unwritable path are I/O errors, not panics.
    assert!(image::write_png(&dir.path("y.png"), 2, 2, &[0; 5]).is_err());
    assert!(image::write_png(&dir.path("no/such/dir/z.png"), 1, 1, &[0; 3]).is_err());
}

/// What a reference rasteriser leaves in the array: colour, z field, and which triangle
/// (numbered over all shapes in drawing order) each pixel shows.
struct Picture {
    rgb: Vec<[u8; 3]>,
    z: Vec<u64>,
    owner: Vec<Option<usize>>,
    /// Every triangle whose edges cover the pixel, z test or not.
    covers: Vec<Vec<usize>>,
}

/// `(p1 - p0) × (q - p0)`: positive when q is to the left of p0→p1 (y down: clockwise).
fn cross((x0, y0): (i64, i64), (x1, y1): (i64, i64), (x, y): (i64, i64)) -> i64 {
    (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)
}

/// Pixel q is inside triangle `v` or on its boundary: on the inner side of every edge.
fn in_triangle(v: [(i64, i64); 3], q: (i64, i64)) -> bool {
    let s = cross(v[0], v[1], v[2]).signum();
    (0..3).all(|k| s * cross(v[k], v[(k + 1) % 3], q) >= 0)
}

/// A plain rasteriser of [`TRIANGLES`], per pixel, in drawing order, with the hardware's
/// rules: the QEE result is `floor((a·x + b·y + c) / 2^FBITS)` of the fixed-point plane
/// coefficients the stream sends (`demo::plane_coefs`); a pixel passes the z test when the
/// stored z (an unsigned 16-bit field) is at most the new z (the full signed result), as
/// FCMEMA compares; a pair's pixels on its diagonal (and its first triangle's side) belong to
/// the first triangle, the rest of the quadrilateral to the second; z and colours are stored
/// as their low 16 and 8 bits (`tree[len]`). With `z_test` false: painter's order.
fn reference(z_test: bool) -> Picture {
    let n = 128 * 128;
    let mut p = Picture {
        rgb: vec![[0; 3]; n],
        z: vec![0; n],
        owner: vec![None; n],
        covers: vec![Vec::new(); n],
    };
    let mut id = 0;
    for shape in &TRIANGLES {
        let zc = shape.z_coefs();
        let tris = shape.triangles();
        for y in 0..128i64 {
            for x in 0..128i64 {
                let i = (y * 128 + x) as usize;
                let Some(k) = tris.iter().position(|t| in_triangle(t.v, (x, y))) else {
                    continue;
                };
                p.covers[i].push(id + k);
                let znew = demo::plane_value(zc, x, y);
                if z_test && (p.z[i] as i64) > znew {
                    continue;
                }
                let t = &tris[k];
                p.z[i] = (znew as u64) & 0xffff;
                p.rgb[i] =
                    [0, 1, 2].map(|ch| demo::plane_value(demo::shade_coefs(t, ch), x, y) as u8);
                p.owner[i] = Some(id + k);
            }
        }
        id += tris.len();
    }
    p
}

/// Compare two pictures; on a mismatch name the first differing pixel and the count (not the
/// whole picture).
fn assert_same_picture(got: &[[u8; 3]], want: &[[u8; 3]], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: size");
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    if let Some(&i) = bad.first() {
        panic!(
            "{what}: {} pixels differ, first ({},{}): {:?} instead of {:?}",
            bad.len(),
            i % 128,
            i / 128,
            got[i],
            want[i]
        );
    }
}

/// An RGB image (`colour_image`, PNG bytes) as pixels.
fn pixels(rgb: &[u8]) -> Vec<[u8; 3]> {
    rgb.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
}

/// Number of triangles over all shapes.
fn n_triangles() -> usize {
    TRIANGLES.iter().map(|s| s.triangles().len()).sum()
}

#[test]
fn triangles_are_drawn_like_the_reference_rasteriser_with_a_z_buffer() {
    let (r, s) = run_text(demo::TRIANGLES_STREAM);
    assert_eq!(r.stop, StopReason::Done, "{:?}", r.sim.diagnostics);
    assert!(s.clean(), "{:?}", s.diagnostics);
    let [fr, fg, fb] = TRI_FIELDS;
    let a = &r.sim.board.array;
    let rgb = image::colour_image(a, fr, fg, fb);
    let want = reference(true);
    let mut visible = vec![0usize; n_triangles()];
    let mut background = 0;
    for y in 0..128usize {
        for x in 0..128usize {
            let i = y * 128 + x;
            assert_eq!(rgb[i * 3..i * 3 + 3], want.rgb[i], "colour at ({x},{y})");
            assert_eq!(a.peek(x, y, TRI_Z, TRI_Z_LEN), want.z[i], "z at ({x},{y})");
            match want.owner[i] {
                Some(k) => visible[k] += 1,
                None => background += 1,
            }
        }
    }
    assert!(visible.iter().all(|&n| n > 100), "{visible:?}");
    assert!(background > 100);
    assert_eq!(TRI_FIELDS.map(|f| a.peek(0, 127, f, 8)), [0; 3]);
    // Spot checks against the shading functions: each vertex of each triangle shows its own
    // colour where that triangle is the visible one.
    let tris: Vec<&demo::Triangle> = TRIANGLES.iter().flat_map(|s| s.triangles()).collect();
    for (k, t) in tris.iter().enumerate() {
        for (j, &(x, y)) in t.v.iter().enumerate() {
            let i = (y * 128 + x) as usize;
            if want.owner[i] == Some(k) {
                let got = TRI_FIELDS.map(|f| a.peek(x as usize, y as usize, f, 8) as u8);
                assert_eq!(got, t.rgb[j], "triangle {k} vertex {j}");
                assert_eq!(
                    a.peek(x as usize, y as usize, TRI_Z, TRI_Z_LEN),
                    t.z[j] as u64
                );
            }
        }
    }
}

#[test]
fn the_triangles_interpenetrate_so_the_z_buffer_picture_is_not_a_painters_one() {
    let z = reference(true);
    let painter = reference(false);
    let differ = (0..128 * 128)
        .filter(|&i| z.rgb[i] != painter.rgb[i])
        .count();
    assert!(differ > 1000, "{differ} pixels differ from painter's order");
    // Interpenetration: for triangles 0 and 1, and for 1 and the pair's first triangle (2),
    // each is in front of the other somewhere: no drawing order gives this picture.
    for (i, j) in [(0usize, 1usize), (1, 2)] {
        let both: Vec<usize> = (0..128 * 128)
            .filter(|&p| z.covers[p].contains(&i) && z.covers[p].contains(&j))
            .collect();
        let i_wins = both.iter().filter(|&&p| z.owner[p] == Some(i)).count();
        let j_wins = both.iter().filter(|&&p| z.owner[p] == Some(j)).count();
        assert!(
            i_wins > 50 && j_wins > 50,
            "{i} vs {j}: {i_wins} / {j_wins}"
        );
    }
    // And the hardware drew the z-buffer picture, not the painter's one.
    let (r, _) = run_text(demo::TRIANGLES_STREAM);
    let [fr, fg, fb] = TRI_FIELDS;
    let hw = pixels(&image::colour_image(&r.sim.board.array, fr, fg, fb));
    assert_same_picture(&hw, &z.rgb, "the hardware's picture");
    assert!(
        hw != painter.rgb,
        "a painter's-order picture would be the same"
    );
}

#[test]
fn triangle_cycles_follow_the_command_formulas() {
    let (_, s) = run_text(demo::TRIANGLES_STREAM);
    let w = 73 - u64::from(TRI_FBITS);
    let edge = 2 + w; // FEDGE, FCMEMA, TREEgeZERO, EDGE2
    let z = 1 + TRI_Z_LEN as u64;
    let colours = 3 * (1 + 8);
    let cmds: Vec<_> = s.commands.iter().filter(|c| !c.boot).collect();
    let names: Vec<&str> = cmds.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names[..4], ["FBITS", "SETENABS", "CLEAR", "CLEAR"]);
    // Triangle 1 on the cleared z buffer: FEDGE, two TREEgeZERO, z, colours.
    // Triangle 2: FCMEMA, three TREEgeZERO, z, colours.
    // The pair: FCMEMA, four TREEgeZERO, z, ENABIntoCRY, EDGE2, colours, CRYIntoENAB, colours.
    let shapes: [(&[&str], u64); 3] = [
        (
            &[
                "FEDGE",
                "TREEgeZERO",
                "TREEgeZERO",
                "TREEIntoMEM",
                "TREEIntoMEM",
                "TREEIntoMEM",
                "TREEIntoMEM",
            ],
            3 * edge + z + colours,
        ),
        (
            &[
                "FCMEMA",
                "TREEgeZERO",
                "TREEgeZERO",
                "TREEgeZERO",
                "TREEIntoMEM",
                "TREEIntoMEM",
                "TREEIntoMEM",
                "TREEIntoMEM",
            ],
            4 * edge + z + colours,
        ),
        (
            &[
                "FCMEMA",
                "TREEgeZERO",
                "TREEgeZERO",
                "TREEgeZERO",
                "TREEgeZERO",
                "TREEIntoMEM",
                "ENABIntoCRY",
                "EDGE2",
                "TREEIntoMEM",
                "TREEIntoMEM",
                "TREEIntoMEM",
                "CRYIntoENAB",
                "TREEIntoMEM",
                "TREEIntoMEM",
                "TREEIntoMEM",
            ],
            6 * edge + z + 1 + 2 * colours + 1,
        ),
    ];
    let mut at = 4;
    for (names_want, cycles) in shapes {
        let these = &cmds[at..at + names_want.len()];
        let got: Vec<&str> = these.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(got, names_want);
        assert_eq!(
            these.iter().map(|c| c.cycles).sum::<u64>(),
            cycles,
            "{got:?}"
        );
        at += names_want.len();
    }
    assert_eq!(at, cmds.len());
    assert_eq!(
        [
            3 * edge + z + colours,
            4 * edge + z + colours,
            6 * edge + z + 2 + 2 * colours
        ],
        [239, 304, 463]
    );
}

#[test]
fn cli_demo_writes_a_png_beside_the_waveform_and_run_takes_image_specs() {
    let dir = Scratch::new();
    let vcd = dir.path("d.vcd");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("demo")
        .arg("--wave")
        .arg(&vcd)
        .output()
        .expect("run pp5");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{err}");
    let png = dir.path("d.png");
    assert!(err.contains(&png.display().to_string()), "{err}");
    let bytes = std::fs::read(&png).expect("d.png");
    assert_eq!(bytes[..8], PNG_SIGNATURE);
    let (_, _, rgb) = read_png(&png);
    let want = reference(true);
    assert_same_picture(&pixels(&rgb), &want.rgb, "the demo's PNG");

    // The demo's second picture: GCDSTEPS's step counts (grey:116,7).
    let (_, _, gcd) = read_png(&dir.path("d-gcd.png"));
    for (i, px) in gcd.chunks(3).enumerate() {
        let (x, y) = (i % 128, i / 128);
        let steps = pp5_sim::demo::gcd_steps(x as u8 + 1, y as u8 + 1) as u32;
        assert_eq!(
            px[0] as u32,
            (steps * 255 + 63) / 127,
            "gcd picture at ({x},{y})"
        );
    }

    // `run` with explicit specs: grey and enable images of the triangle stream.
    let tri = dir.path("t.pp5s");
    std::fs::write(&tri, demo::TRIANGLES_STREAM).expect("write t.pp5s");
    let g = dir.path("g.png");
    let e = dir.path("e.png");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("run")
        .arg(&tri)
        .arg("--image")
        .arg(format!("{}=grey:8,8", g.display()))
        .arg("--image")
        .arg(format!("{}=enable", e.display()))
        .output()
        .expect("run pp5");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let (_, _, grey) = read_png(&g);
    let at = 40 * 128 + 60;
    assert_eq!(grey[at * 3..at * 3 + 3], [want.rgb[at][1]; 3]);
    // Enable is left on the last triangle drawn (the pair's second, through Carry).
    let (_, _, en) = read_png(&e);
    let last = n_triangles() - 1;
    let mut on = 0;
    for i in 0..128 * 128 {
        let lit = want.owner[i] == Some(last);
        assert_eq!(en[i * 3] == 255, lit, "enable at pixel {i}");
        on += lit as usize;
    }
    assert!(on > 100, "{on}");

    // A bad spec is a usage error (exit 2); an unwritable image an I/O error (exit 1) naming it.
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(["demo", "--image", "x.png=rgb:0,8"])
        .arg("--wave")
        .arg(dir.path("bad.vcd"))
        .output()
        .expect("run pp5");
    assert_eq!(o.status.code(), Some(2));
    let bad = dir.path("no/such/dir/x.png");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("run")
        .arg(dir.path("d.pp5s"))
        .arg("--image")
        .arg(format!("{}=enable", bad.display()))
        .output()
        .expect("run pp5");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains(&bad.display().to_string()));
}
