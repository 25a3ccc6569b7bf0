//! The built-in example: a short stream that exercises the parser, the microcoded IGC and the
//! PE array, so `pp5 demo` shows something in GTKWave with no input files.

use crate::asm::opcodes::{EncodeError, OpcodeTable};
use crate::stream::builder::StreamBuilder;
use crate::stream::Stream;

/// Text of the demo stream (also written next to the waveform so users can edit and re-run
/// it with `pp5 run`).
pub const DEMO_STREAM: &str = "\
# pp5 demo: arithmetic on all 16,384 pixels, compares into Enable, a flushed message.
message
FBITS 10
SETENABS
SCAIntoMEM_S1 0 8 37          # mem[0:8]  = 37
SCAIntoMEM_S1 8 8 5           # mem[8:8]  = 5
MEMplusMEM 16 0 8 8 8         # mem[16:8] = 42
MEMminusMEM 24 16 8 8 8       # mem[24:8] = 37
INC 32 24 8                   # mem[32:8] = 38
NEGATE 40 32 8                # mem[40:8] = -38 = 218
CPY 48 40 8                   # mem[48:8] = 218
MEMgeSCA_S1 16 8 40           # enable &&= 42 >= 40   (stays on)
MEMeqSCA_S1 32 8 38           # enable &&= 38 == 38   (stays on)
ENABIntoMEM 56                # mem[56] = 1
MEMgtSCA_S1 0 8 99            # enable &&= 37 > 99    (all off: AEO)
NOOP
NOOP
NOOP
NOOP
message flush                 # flushed: AEO is asserted when it starts
SET 64 8
message
SETENABS
SCAIntoMEM_TBL 72 8 1 2 3     # three executions, the last value wins
INDON
";

/// Build the demo stream with `table` (the standard microcode's opcode table).
pub fn demo_stream(table: &OpcodeTable) -> Result<Stream, String> {
    crate::stream::text::parse(DEMO_STREAM, "<demo>", table).map_err(|e| e.to_string())
}

/// An ALU-heavy stream for the benchmark: `reps` rounds of 32-bit adds, subtracts, copies and
/// compares over all pixels.
pub fn alu_stream(table: &OpcodeTable, reps: usize) -> Result<Stream, EncodeError> {
    let mut b = StreamBuilder::new(table);
    b.igc("SETENABS", &[])?;
    b.igc("SCAIntoMEM_S1", &[0, 32, 123_456])?;
    b.igc("SCAIntoMEM_S1", &[32, 32, 654_321])?;
    for _ in 0..reps {
        b.igc("MEMplusMEM", &[64, 0, 32, 32, 32])?;
        b.igc("MEMminusMEM", &[96, 64, 0, 32, 32])?;
        b.igc("MEMplusseqMEM", &[0, 96, 32, 32])?;
        b.igc("CPY", &[128, 64, 32])?;
        b.igc("MEMgeMEM", &[0, 32, 32])?;
        b.igc("INVERT", &[160, 128, 32])?;
    }
    Ok(b.finish())
}

/// One Gouraud-shaded triangle of the triangle demo: integer pixel vertices, and at each
/// vertex a depth `z` and an 8-bit RGB colour.
///
/// `z` is *nearness*: larger is nearer, 0 (the value the z field is cleared to) is the far
/// plane. FCMEMA keeps a pixel where `mem[src:len] <= tree` (the stored z is unsigned), so a
/// new pixel wins when its z is at least the stored one; ties go to the later triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Triangle {
    pub v: [(i64, i64); 3],
    pub z: [i64; 3],
    pub rgb: [[u8; 3]; 3],
}

/// A shape of the triangle demo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One triangle.
    Tri(Triangle),
    /// Two triangles of one z plane sharing an edge, a convex planar quadrilateral split along
    /// its diagonal: the first is (p0, p1, p2), the second (p0, p2, p3), with the same z and
    /// colour at p0 and p2. Drawn with one z test and one pass over the outer edges; EDGE2 on
    /// the diagonal splits the quadrilateral, the first triangle's side into Enable and the
    /// second's into Carry. Pixels on the diagonal belong to the first.
    Pair([Triangle; 2]),
}

impl Shape {
    /// The triangles of the shape, in drawing order.
    pub fn triangles(&self) -> &[Triangle] {
        match self {
            Shape::Tri(t) => std::slice::from_ref(t),
            Shape::Pair(p) => p,
        }
    }

    /// The z plane the shape is tested and drawn with (a pair's first triangle's).
    pub fn z_coefs(&self) -> [i64; 3] {
        z_coefs(&self.triangles()[0])
    }

    /// The triangle of the shape that draws pixel (x, y), if any (a pair's diagonal belongs
    /// to its first triangle).
    pub fn covering(&self, x: i64, y: i64) -> Option<&Triangle> {
        self.triangles().iter().find(|t| inside(t, x, y))
    }
}

/// FBITS of the triangle demo: coefficients are multiples of 2^-10.
pub const TRI_FBITS: u32 = 10;
/// Bit addresses of the red, green and blue 8-bit fields the triangle demo draws into.
pub const TRI_FIELDS: [usize; 3] = [0, 8, 16];
/// Bit address of the z field the triangle demo tests and writes (after the colour fields).
pub const TRI_Z: usize = 24;
/// Length of the z field in bits.
pub const TRI_Z_LEN: usize = 16;

/// The shapes of [`TRIANGLES_STREAM`], drawn in this order, with a z test: two triangles that
/// interpenetrate (each is in front of the other somewhere) and a pair of triangles (a planar
/// quadrilateral) that cuts through the second.
pub const TRIANGLES: [Shape; 3] = [
    Shape::Tri(Triangle {
        v: [(8, 10), (100, 22), (36, 112)],
        z: [3000, 600, 4200],
        rgb: [[250, 40, 20], [250, 220, 30], [120, 0, 90]],
    }),
    Shape::Tri(Triangle {
        v: [(60, 6), (122, 64), (28, 84)],
        z: [400, 3800, 3400],
        rgb: [[20, 200, 60], [0, 90, 40], [200, 255, 120]],
    }),
    Shape::Pair([
        Triangle {
            v: [(70, 52), (124, 90), (100, 124)],
            z: [4200, 300, 2000],
            rgb: [[40, 60, 255], [160, 200, 255], [0, 10, 80]],
        },
        Triangle {
            v: [(70, 52), (100, 124), (46, 86)],
            z: [4200, 2000, 5900],
            rgb: [[40, 60, 255], [0, 10, 80], [90, 140, 230]],
        },
    ]),
];

/// Twice the signed area of `t` (positive when the vertices turn from +x towards +y).
fn area2(t: &Triangle) -> i64 {
    let [(x0, y0), (x1, y1), (x2, y2)] = t.v;
    (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
}

/// Integer coefficients `[A, B, C]` of the three edge functions of `t`, each `>= 0` exactly
/// on the inside (edges included), in either vertex order. Edge k runs from vertex k to k+1.
pub fn edge_coefs(t: &Triangle) -> [[i64; 3]; 3] {
    let s = area2(t).signum();
    std::array::from_fn(|k| {
        let (xi, yi) = t.v[k];
        let (xj, yj) = t.v[(k + 1) % 3];
        // s · ((xj - xi)(y - yi) - (yj - yi)(x - xi))
        [
            -s * (yj - yi),
            s * (xj - xi),
            s * ((yj - yi) * xi - (xj - xi) * yi),
        ]
    })
}

/// `A·x + B·y + C` of integer (edge) coefficients.
pub fn edge_value([a, b, c]: [i64; 3], x: i64, y: i64) -> i64 {
    a * x + b * y + c
}

/// Is pixel (x, y) inside `t` (edges included)? Where all three edge functions are `>= 0`.
pub fn inside(t: &Triangle, x: i64, y: i64) -> bool {
    edge_coefs(t).iter().all(|&e| edge_value(e, x, y) >= 0)
}

/// Fixed-point coefficients `[a, b, c]` (units of 2^-TRI_FBITS) of the plane through the values
/// `vals` at the vertices of `t`, plus 1/2 so the QEE's downward truncation rounds. Exact at
/// vertex 0; elsewhere the quantization error of `a` and `b` is below 2^-11 per pixel.
pub fn plane_coefs(t: &Triangle, vals: [i64; 3]) -> [i64; 3] {
    let [(x0, y0), (x1, y1), (x2, y2)] = t.v;
    let (d1, d2) = (vals[1] - vals[0], vals[2] - vals[0]);
    let half = 1 << (TRI_FBITS - 1);
    if area2(t) == 0 {
        // Degenerate: no pixel is inside; a constant keeps the arithmetic finite.
        return [0, 0, (vals[0] << TRI_FBITS) + half];
    }
    let area = area2(t) as f64;
    let one = f64::from(1u32 << TRI_FBITS);
    let a = ((d1 * (y2 - y0) - d2 * (y1 - y0)) as f64 / area * one).round() as i64;
    let b = (((x1 - x0) * d2 - (x2 - x0) * d1) as f64 / area * one).round() as i64;
    [a, b, (vals[0] << TRI_FBITS) + half - a * x0 - b * y0]
}

/// The plane of colour channel `ch` of `t` ([`plane_coefs`] of the vertex colours).
pub fn shade_coefs(t: &Triangle, ch: usize) -> [i64; 3] {
    plane_coefs(t, t.rgb.map(|c| i64::from(c[ch])))
}

/// The z plane of `t` ([`plane_coefs`] of the vertex z).
pub fn z_coefs(t: &Triangle) -> [i64; 3] {
    plane_coefs(t, t.z)
}

/// The QEE's integer result of fixed-point coefficients at pixel (x, y): truncated downward.
pub fn plane_value([a, b, c]: [i64; 3], x: i64, y: i64) -> i64 {
    (a * x + b * y + c) >> TRI_FBITS
}

/// The 8-bit value channel `ch` of `t` gets at pixel (x, y): what TREEIntoMEM_L3 stores.
pub fn shade(t: &Triangle, ch: usize, x: i64, y: i64) -> u8 {
    plane_value(shade_coefs(t, ch), x, y) as u8
}

/// The z of `t` at pixel (x, y) (the full QEE result; TREEIntoMEM stores its low
/// [`TRI_Z_LEN`] bits).
pub fn depth(t: &Triangle, x: i64, y: i64) -> i64 {
    plane_value(z_coefs(t), x, y)
}

/// A fixed-point coefficient as a decimal the text stream reads back exactly (k / 2^FBITS).
fn coef_text(k: i64) -> String {
    if k % (1 << TRI_FBITS) == 0 {
        format!("{}", k >> TRI_FBITS)
    } else {
        format!("{}", k as f64 / f64::from(1u32 << TRI_FBITS))
    }
}

fn coefs_text([a, b, c]: [i64; 3]) -> String {
    format!("{} {} {}", coef_text(a), coef_text(b), coef_text(c))
}

/// One command line of the stream, with a comment at column 31 when given.
fn line(s: &mut String, cmd: &str, comment: &str) {
    if comment.is_empty() {
        s.push_str(cmd);
    } else {
        s.push_str(&format!("{cmd:<29} # {comment}"));
    }
    s.push('\n');
}

fn edge_line(s: &mut String, op: &str, [a, b, c]: [i64; 3], comment: &str) {
    line(s, &format!("{op}_L3 {a} {b} {c}"), comment);
}

fn z_line(s: &mut String, t: &Triangle) {
    let cmd = format!(
        "TREEIntoMEM_L3 {TRI_Z} {TRI_Z_LEN} {}",
        coefs_text(z_coefs(t))
    );
    line(s, &cmd, "z");
}

fn colours_text(s: &mut String, t: &Triangle) {
    for (ch, (dst, name)) in TRI_FIELDS.iter().zip(["red", "green", "blue"]).enumerate() {
        let cmd = format!("TREEIntoMEM_L3 {dst} 8 {}", coefs_text(shade_coefs(t, ch)));
        line(s, &cmd, name);
    }
}

fn vertices_text(v: &[(i64, i64)], z: &[i64]) -> String {
    let v: Vec<String> = v.iter().map(|(x, y)| format!("({x},{y})")).collect();
    let z: Vec<String> = z.iter().map(|z| z.to_string()).collect();
    format!("{}, z {}", v.join(" "), z.join(" "))
}

/// The text stream that clears the colour and z fields and draws `shapes` in order with a
/// z test, the Pixel-Planes way (each line's comment in the stream says what it does):
///
/// - a triangle: `FCMEMA_L3 z 16` with its z plane (Enable = stored z <= new z; FCMEMA *sets*
///   Enable, so it starts the sequence), `TREEgeZERO_L3` per edge (Enable &&= edge >= 0),
///   `TREEIntoMEM_L3` of the z plane into the z field, one `TREEIntoMEM_L3` per colour
///   channel (linear in x and y). The first shape is drawn on the cleared z buffer, where
///   every z test passes, so it starts with `FEDGE_L3` of its first edge instead (Enable =
///   edge >= 0, one command fewer);
/// - a pair (a quadrilateral split along its diagonal p0-p2): FCMEMA with the common z plane,
///   TREEgeZERO on the four outer edges, the z, `ENABIntoCRY` (Carry = the quadrilateral),
///   `EDGE2_L3` of the diagonal (Enable &&= the first triangle's side, Carry &&= the other
///   side), the first triangle's colours, `CRYIntoENAB`, the second's colours.
pub fn triangles_text(shapes: &[Shape]) -> String {
    let [r, g, b] = TRI_FIELDS;
    let (z, zl) = (TRI_Z, TRI_Z_LEN);
    let n_tri: usize = shapes.iter().map(|s| s.triangles().len()).sum();
    let mut s = format!(
        "# pp5 triangles: {n_tri} shaded triangles with a z buffer into R mem[{r}:8], G mem[{g}:8], \
         B mem[{b}:8], z mem[{z}:{zl}]\n\
         # (generated by pp5_sim::demo::triangles_text; see `pp5 demo --image`)\n\
         # z is nearness (larger is nearer, 0 is the far plane): FCMEMA keeps a pixel whose new z\n\
         # is at least the stored one\n\
         message\n\
         FBITS {TRI_FBITS}\n\
         SETENABS\n"
    );
    line(&mut s, &format!("CLEAR {r} 24"), "background: black");
    line(&mut s, &format!("CLEAR {z} {zl}"), "z: the far plane");
    let mut n = 0;
    for (k, shape) in shapes.iter().enumerate() {
        let tris = shape.triangles();
        let first = &tris[0];
        let mut edges: Vec<[i64; 3]> = match shape {
            Shape::Tri(t) => {
                n += 1;
                s.push_str(&format!("# triangle {n}: {}\n", vertices_text(&t.v, &t.z)));
                edge_coefs(t).to_vec()
            }
            Shape::Pair([a, b]) => {
                n += 2;
                let (p0, p2) = (a.v[0], a.v[2]);
                let v = [a.v[0], a.v[1], a.v[2], b.v[2]];
                let z = [a.z[0], a.z[1], a.z[2], b.z[2]];
                s.push_str(&format!(
                    "# triangles {} and {n}: {}\n\
                     # a planar quadrilateral, split along ({},{})-({},{}) by EDGE2\n",
                    n - 1,
                    vertices_text(&v, &z),
                    p0.0,
                    p0.1,
                    p2.0,
                    p2.1
                ));
                let (ea, eb) = (edge_coefs(a), edge_coefs(b));
                vec![ea[0], ea[1], eb[1], eb[2]]
            }
        };
        if k == 0 {
            // The z buffer is clear: every z test would pass.
            let e = edges.remove(0);
            edge_line(&mut s, "FEDGE", e, "z buffer clear: enable = edge >= 0");
        } else {
            let cmd = format!("FCMEMA_L3 {z} {zl} {}", coefs_text(shape.z_coefs()));
            line(&mut s, &cmd, "enable = (stored z <= new z)");
        }
        for e in edges {
            edge_line(&mut s, "TREEgeZERO", e, "");
        }
        z_line(&mut s, first);
        match shape {
            Shape::Tri(t) => colours_text(&mut s, t),
            Shape::Pair([a, b]) => {
                line(&mut s, "ENABIntoCRY", "carry = the quadrilateral");
                let diag = edge_coefs(a)[2];
                let comment = format!("enable: triangle {}, carry: triangle {n}", n - 1);
                edge_line(&mut s, "EDGE2", diag, &comment);
                colours_text(&mut s, a);
                line(&mut s, "CRYIntoENAB", &format!("enable = triangle {n}"));
                colours_text(&mut s, b);
            }
        }
    }
    s
}

/// Text of the triangle demo, [`triangles_text`] of [`TRIANGLES`] (a unit test keeps them
/// equal).
pub const TRIANGLES_STREAM: &str = "\
# pp5 triangles: 4 shaded triangles with a z buffer into R mem[0:8], G mem[8:8], B mem[16:8], z mem[24:16]
# (generated by pp5_sim::demo::triangles_text; see `pp5 demo --image`)
# z is nearness (larger is nearer, 0 is the far plane): FCMEMA keeps a pixel whose new z
# is at least the stored one
message
FBITS 10
SETENABS
CLEAR 0 24                    # background: black
CLEAR 24 16                   # z: the far plane
# triangle 1: (8,10) (100,22) (36,112), z 3000 600 4200
FEDGE_L3 -12 92 -824          # z buffer clear: enable = edge >= 0
TREEgeZERO_L3 -90 -64 10408
TREEgeZERO_L3 102 -28 -536
TREEIntoMEM_L3 24 16 -28.6474609375 19.62890625 3033.390625 # z
TREEIntoMEM_L3 0 8 0.1728515625 -1.322265625 262.33984375 # red
TREEIntoMEM_L3 8 8 2.08203125 -0.9638671875 33.482421875 # green
TREEIntoMEM_L3 16 8 0.01953125 0.6806640625 13.537109375 # blue
# triangle 2: (60,6) (122,64) (28,84), z 400 3800 3400
FCMEMA_L3 24 16 13.6279296875 44.052734375 -681.4921875 # enable = (stored z <= new z)
TREEgeZERO_L3 -58 62 3108
TREEgeZERO_L3 -20 -94 8456
TREEgeZERO_L3 78 32 -4872
TREEIntoMEM_L3 24 16 13.6279296875 44.052734375 -681.4921875 # z
TREEIntoMEM_L3 0 8 -1.79296875 1.572265625 118.64453125 # red
TREEIntoMEM_L3 8 8 -1.7587890625 -0.0166015625 306.126953125 # green
TREEIntoMEM_L3 16 8 -0.7529296875 0.4599609375 102.916015625 # blue
# triangles 3 and 4: (70,52) (124,90) (100,124) (46,86), z 4200 300 2000 5900
# a planar quadrilateral, split along (70,52)-(100,124) by EDGE2
FCMEMA_L3 24 16 -71.76171875 -0.6552734375 9257.89453125 # enable = (stored z <= new z)
TREEgeZERO_L3 -38 54 -148
TREEgeZERO_L3 -34 -24 6376
TREEgeZERO_L3 38 -54 2896
TREEgeZERO_L3 34 24 -3628
TREEIntoMEM_L3 24 16 -71.76171875 -0.6552734375 9257.89453125 # z
ENABIntoCRY                   # carry = the quadrilateral
EDGE2_L3 72 -30 -3480         # enable: triangle 3, carry: triangle 4
TREEIntoMEM_L3 0 8 3.697265625 -2.095703125 -109.33203125 # red
TREEIntoMEM_L3 8 8 4.359375 -2.5107421875 -114.09765625 # green
TREEIntoMEM_L3 16 8 2.419921875 -3.4384765625 264.90625 # blue
CRYIntoENAB                   # enable = triangle 4
TREEIntoMEM_L3 0 8 -1.8046875 0.1962890625 156.62109375 # red
TREEIntoMEM_L3 8 8 -2.71484375 0.4365234375 227.83984375 # green
TREEIntoMEM_L3 16 8 -1.509765625 -1.8017578125 454.875 # blue
";

/// The stream `pp5 demo` runs: [`DEMO_STREAM`] then [`TRIANGLES_STREAM`].
pub fn full_demo_text() -> String {
    format!("{DEMO_STREAM}\n{TRIANGLES_STREAM}\n{GCD_STREAM}")
}

/// Bit addresses of the GCD demo's x, y and step count (8 bits each).
pub const GCD_FIELDS: [usize; 3] = [100, 108, 116];

/// The flow-control demo: at every pixel, the steps of subtractive Euclid on (x+1, y+1),
/// counted by GCDSTEPS (`sim/microcode/flow.pp5uc`), a loop whose trip count differs from
/// pixel to pixel. Needs the demo microcode ([`crate::asm::microcode::demo`]).
pub const GCD_STREAM: &str = "\
# pp5 flow control: GCDSTEPS counts the steps of subtractive Euclid on (x+1, y+1) at every
# pixel into mem[116:8]: a loop with a per-pixel trip count (microcode: sim/microcode/flow.pp5uc)
message
FBITS 10
SETENABS
TREEIntoMEM_L3 100 8 1 0 1     # x + 1
TREEIntoMEM_L3 108 8 0 1 1     # y + 1
GCDSTEPS 116 100 108
";

/// What GCDSTEPS leaves in `cnt` for `x` and `y` (the reference model).
pub fn gcd_steps(mut x: u8, mut y: u8) -> u8 {
    let mut n = 0u8;
    while x != y && n < 255 {
        if x > y {
            x -= y;
        } else {
            y -= x;
        }
        n += 1;
    }
    n
}

/// Build the full demo stream (registers, then triangles) with `table`.
pub fn full_demo_stream(table: &OpcodeTable) -> Result<Stream, String> {
    crate::stream::text::parse(&full_demo_text(), "<demo>", table).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangles_stream_is_the_generated_text() {
        assert_eq!(TRIANGLES_STREAM, triangles_text(&TRIANGLES));
    }

    fn all_triangles() -> impl Iterator<Item = &'static Triangle> {
        TRIANGLES.iter().flat_map(|s| s.triangles())
    }

    #[test]
    fn coefficients_are_exact_in_single_precision() {
        for t in all_triangles() {
            let planes = (0..3).map(|ch| shade_coefs(t, ch)).chain([z_coefs(t)]);
            for k in planes.flatten().chain(edge_coefs(t).into_iter().flatten()) {
                assert!(k.abs() < 1 << 24, "{k}");
                let f: f32 = coef_text(k).parse().expect("float");
                assert_eq!(f64::from(f) * f64::from(1u32 << TRI_FBITS), k as f64);
            }
        }
    }

    #[test]
    fn shading_and_z_stay_in_range_and_hit_the_vertices() {
        for shape in &TRIANGLES {
            for t in shape.triangles() {
                for y in 0..128 {
                    for x in 0..128 {
                        if inside(t, x, y) {
                            for ch in 0..3 {
                                let v = plane_value(shade_coefs(t, ch), x, y);
                                assert!((0..=255).contains(&v), "{t:?} ch {ch} ({x},{y}) {v}");
                            }
                            // z >= 0 (not behind the cleared far plane, so the first shape
                            // may skip its z test) and fits the z field.
                            let z = plane_value(shape.z_coefs(), x, y);
                            assert!((0..1 << TRI_Z_LEN).contains(&z), "{t:?} ({x},{y}) z {z}");
                        }
                    }
                }
                for k in 0..3 {
                    let (x, y) = t.v[k];
                    for ch in 0..3 {
                        assert_eq!(shade(t, ch, x, y), t.rgb[k][ch], "{t:?} ch {ch} vertex {k}");
                    }
                    assert_eq!(depth(t, x, y), t.z[k], "{t:?} z at vertex {k}");
                }
            }
        }
    }

    #[test]
    fn pairs_are_convex_planar_quadrilaterals_split_along_the_diagonal() {
        for shape in &TRIANGLES {
            let Shape::Pair([a, b]) = shape else { continue };
            assert_eq!((b.v[0], b.v[1]), (a.v[0], a.v[2]), "shared edge p0-p2");
            assert_eq!((b.z[0], b.z[1]), (a.z[0], a.z[2]));
            assert_eq!((b.rgb[0], b.rgb[1]), (a.rgb[0], a.rgb[2]));
            assert_eq!(area2(a).signum(), area2(b).signum(), "convex: same turn");
            // p3 lies on the plane through a's vertices (exact integer test).
            let [(x0, y0), (x1, y1), (x2, y2)] = a.v;
            let (x3, y3) = b.v[2];
            let (d1, d2) = (a.z[1] - a.z[0], a.z[2] - a.z[0]);
            let na = d1 * (y2 - y0) - d2 * (y1 - y0);
            let nb = (x1 - x0) * d2 - (x2 - x0) * d1;
            assert_eq!(
                (b.z[2] - a.z[0]) * area2(a),
                na * (x3 - x0) + nb * (y3 - y0),
                "p3's z is on the plane"
            );
            // What the stream does (four outer edges, then the diagonal splits Enable and
            // Carry) is `covering`: a's pixels, then b's off the diagonal.
            let (ea, eb) = (edge_coefs(a), edge_coefs(b));
            let mut seen = [0; 2];
            for y in 0..128 {
                for x in 0..128 {
                    let quad = [ea[0], ea[1], eb[1], eb[2]]
                        .iter()
                        .all(|&e| edge_value(e, x, y) >= 0);
                    let diag = edge_value(ea[2], x, y);
                    let by_stream = match (quad, diag >= 0) {
                        (false, _) => None,
                        (true, true) => Some(0),
                        (true, false) => Some(1),
                    };
                    let by_shape = shape.covering(x, y).map(|t| if t == a { 0 } else { 1 });
                    assert_eq!(by_stream, by_shape, "({x},{y})");
                    if let Some(k) = by_stream {
                        seen[k] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
        }
    }
}
