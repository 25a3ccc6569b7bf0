//! PNG pictures of the array (`--image`) and the built-in triangle demo drawn by the QEE.

use pp5_rtl::emc_array::EmcArray;
use pp5_sim::asm::microcode;
use pp5_sim::demo::{self, TRIANGLES, TRI_FBITS, TRI_FIELDS};
use pp5_sim::engine::{SimOptions, StopReason};
use pp5_sim::image::{self, parse_spec, ImageKind, ImageSpec};
use pp5_sim::report::Summary;
use pp5_sim::session::{self, RunResult, RunSpec};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A scratch directory under the system temp dir, removed when the test passes.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "pp5-image-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Scratch(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

fn run_text(text: &str) -> (RunResult, Summary) {
    let img = microcode::standard();
    let stream = pp5_sim::stream::text::parse(text, "<test>", &img.table).expect("parse");
    let r = session::run(
        RunSpec {
            image: &img,
            boot: true,
            stream: &stream,
            opts: SimOptions::default(),
            wave: None,
        },
        |_, _, _| {},
        None,
    )
    .expect("run");
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

/// The colour the triangle stream leaves at (x, y): the last triangle that covers it, or the
/// black background.
fn expected_colour(x: i64, y: i64) -> [u8; 3] {
    TRIANGLES
        .iter()
        .rev()
        .find(|t| demo::inside(t, x, y))
        .map(|t| [0, 1, 2].map(|ch| demo::shade(t, ch, x, y)))
        .unwrap_or([0; 3])
}

#[test]
fn triangles_are_drawn_with_their_shading_in_painters_order() {
    let (r, s) = run_text(demo::TRIANGLES_STREAM);
    assert_eq!(r.stop, StopReason::Done, "{:?}", r.sim.diagnostics);
    assert!(s.error_bits.is_empty(), "{:?}", s.error_bits);
    let [fr, fg, fb] = TRI_FIELDS;
    let rgb = image::colour_image(&r.sim.board.array, fr, fg, fb);
    // Every pixel: the linear shading of the topmost triangle covering it, or background.
    let mut visible = [0usize; TRIANGLES.len()];
    let mut background = 0;
    for y in 0..128i64 {
        for x in 0..128i64 {
            let at = ((y * 128 + x) * 3) as usize;
            assert_eq!(rgb[at..at + 3], expected_colour(x, y), "pixel ({x},{y})");
            match (0..TRIANGLES.len())
                .rev()
                .find(|&k| demo::inside(&TRIANGLES[k], x, y))
            {
                Some(k) => visible[k] += 1,
                None => background += 1,
            }
        }
    }
    assert!(visible.iter().all(|&n| n > 100), "{visible:?}");
    assert!(background > 100);
    // Spot checks: a pixel of each triangle that no later one covers, and the corner.
    for (k, t) in TRIANGLES.iter().enumerate() {
        let (x, y) = (0..128 * 128)
            .map(|i| (i % 128, i / 128))
            .find(|&(x, y)| {
                demo::inside(t, x, y) && !TRIANGLES[k + 1..].iter().any(|u| demo::inside(u, x, y))
            })
            .expect("a visible pixel");
        let a = &r.sim.board.array;
        let got = TRI_FIELDS.map(|f| a.peek(x as usize, y as usize, f, 8) as u8);
        assert_eq!(got, [0, 1, 2].map(|ch| demo::shade(t, ch, x, y)), "{k}");
    }
    assert_eq!(
        TRI_FIELDS.map(|f| r.sim.board.array.peek(0, 127, f, 8)),
        [0; 3]
    );
}

#[test]
fn one_triangle_costs_three_edges_and_three_channels() {
    let (_, s) = run_text(demo::TRIANGLES_STREAM);
    let w = 73 - u64::from(TRI_FBITS);
    // FEDGE and two TREEgeZERO (2 + W each), three TREEIntoMEM (1 + 8 each).
    let per_triangle = 3 * (2 + w) + 3 * (1 + 8);
    let cmds: Vec<_> = s.commands.iter().filter(|c| !c.boot).collect();
    // FBITS, SETENABS, CLEAR, then 6 commands per triangle.
    assert_eq!(cmds.len(), 3 + 6 * TRIANGLES.len());
    for tri in cmds[3..].chunks(6) {
        assert_eq!(tri[0].name, "FEDGE");
        let cycles: u64 = tri.iter().map(|c| c.cycles).sum();
        assert_eq!(cycles, per_triangle, "{tri:?}");
    }
    assert_eq!(per_triangle, 222);
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
    for (x, y) in [(60, 40), (90, 100), (0, 0), (127, 127)] {
        let at = (y * 128 + x) * 3;
        assert_eq!(
            rgb[at..at + 3],
            expected_colour(x as i64, y as i64),
            "({x},{y})"
        );
    }

    // `run` with explicit specs: grey and enable images of the written demo stream.
    let g = dir.path("g.png");
    let e = dir.path("e.png");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("run")
        .arg(dir.path("d.pp5s"))
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
    let at = (40 * 128 + 60) * 3;
    assert_eq!(grey[at..at + 3], [expected_colour(60, 40)[1]; 3]);
    let (_, _, en) = read_png(&e);
    let last = &TRIANGLES[TRIANGLES.len() - 1];
    for (x, y) in [(70usize, 110usize), (2, 2)] {
        let want = if demo::inside(last, x as i64, y as i64) {
            255
        } else {
            0
        };
        assert_eq!(en[(y * 128 + x) * 3], want, "enable at ({x},{y})");
    }

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
