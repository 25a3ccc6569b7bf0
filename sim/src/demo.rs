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

/// One flat-edged, Gouraud-shaded triangle of the triangle demo: integer pixel vertices and
/// an 8-bit RGB colour at each vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Triangle {
    pub v: [(i64, i64); 3],
    pub rgb: [[u8; 3]; 3],
}

/// FBITS of the triangle demo: coefficients are multiples of 2^-10.
pub const TRI_FBITS: u32 = 10;
/// Bit addresses of the red, green and blue 8-bit fields the triangle demo draws into.
pub const TRI_FIELDS: [usize; 3] = [0, 8, 16];

/// The triangles of [`TRIANGLES_STREAM`], drawn in this order (later ones on top).
pub const TRIANGLES: [Triangle; 3] = [
    Triangle {
        v: [(8, 10), (100, 22), (36, 112)],
        rgb: [[250, 40, 20], [250, 220, 30], [120, 0, 90]],
    },
    Triangle {
        v: [(60, 6), (122, 64), (28, 84)],
        rgb: [[20, 200, 60], [0, 90, 40], [200, 255, 120]],
    },
    Triangle {
        v: [(72, 56), (120, 120), (14, 124)],
        rgb: [[40, 60, 255], [160, 200, 255], [0, 10, 80]],
    },
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

/// Is pixel (x, y) inside `t` (edges included)? What FEDGE and the two TREEgeZERO leave
/// enabled.
pub fn inside(t: &Triangle, x: i64, y: i64) -> bool {
    edge_coefs(t).iter().all(|[a, b, c]| a * x + b * y + c >= 0)
}

/// Fixed-point coefficients `[a, b, c]` (units of 2^-TRI_FBITS) of channel `ch` of `t`: the
/// plane through the three vertex colours plus 1/2, so the QEE's downward truncation rounds.
/// Exact at vertex 0; elsewhere the quantization error is below 1/8 inside the array, so the
/// value stays in 0..=255 inside the triangle.
pub fn shade_coefs(t: &Triangle, ch: usize) -> [i64; 3] {
    let [(x0, y0), (x1, y1), (x2, y2)] = t.v;
    let c = |k: usize| i64::from(t.rgb[k][ch]);
    let (d1, d2) = (c(1) - c(0), c(2) - c(0));
    let area = area2(t) as f64;
    if area2(t) == 0 {
        // Degenerate: no pixel is inside; a constant keeps the arithmetic finite.
        return [0, 0, (c(0) << TRI_FBITS) + (1 << (TRI_FBITS - 1))];
    }
    let one = f64::from(1u32 << TRI_FBITS);
    let a = ((d1 * (y2 - y0) - d2 * (y1 - y0)) as f64 / area * one).round() as i64;
    let b = (((x1 - x0) * d2 - (x2 - x0) * d1) as f64 / area * one).round() as i64;
    let c0 = (c(0) << TRI_FBITS) + (1 << (TRI_FBITS - 1)) - a * x0 - b * y0;
    [a, b, c0]
}

/// The 8-bit value channel `ch` of `t` gets at pixel (x, y): what TREEIntoMEM_L3 stores.
pub fn shade(t: &Triangle, ch: usize, x: i64, y: i64) -> u8 {
    let [a, b, c] = shade_coefs(t, ch);
    ((a * x + b * y + c) >> TRI_FBITS) as u8
}

/// A fixed-point coefficient as a decimal the text stream reads back exactly (k / 2^FBITS).
fn coef_text(k: i64) -> String {
    if k % (1 << TRI_FBITS) == 0 {
        format!("{}", k >> TRI_FBITS)
    } else {
        format!("{}", k as f64 / f64::from(1u32 << TRI_FBITS))
    }
}

/// The text stream that clears the colour fields and draws `tris` in order, the
/// Pixel-Planes way: per triangle FEDGE_L3 (enable = first edge >= 0), two TREEgeZERO_L3
/// (enable &&= edge >= 0), then
/// one TREEIntoMEM_L3 per colour channel (linear in x and y).
pub fn triangles_text(tris: &[Triangle]) -> String {
    let [r, g, b] = TRI_FIELDS;
    let mut s = format!(
        "# pp5 triangles: {} shaded triangles in painter's order into R mem[{r}:8], G \
         mem[{g}:8], B mem[{b}:8]\n\
         # (generated by pp5_sim::demo::triangles_text; see `pp5 demo --image`)\n\
         message\n\
         FBITS {TRI_FBITS}\n\
         SETENABS\n\
         CLEAR 0 24                    # background: black\n",
        tris.len()
    );
    for (n, t) in tris.iter().enumerate() {
        let [(x0, y0), (x1, y1), (x2, y2)] = t.v;
        s.push_str(&format!(
            "# triangle {}: ({x0},{y0}) ({x1},{y1}) ({x2},{y2})\n",
            n + 1
        ));
        for (k, [a, b, c]) in edge_coefs(t).into_iter().enumerate() {
            let op = if k == 0 { "FEDGE" } else { "TREEgeZERO" };
            s.push_str(&format!("{op}_L3 {a} {b} {c}\n"));
        }
        for (ch, dst) in TRI_FIELDS.iter().enumerate() {
            let [a, b, c] = shade_coefs(t, ch);
            s.push_str(&format!(
                "TREEIntoMEM_L3 {dst} 8 {} {} {}\n",
                coef_text(a),
                coef_text(b),
                coef_text(c)
            ));
        }
    }
    s
}

/// Text of the triangle demo, [`triangles_text`] of [`TRIANGLES`] (a unit test keeps them
/// equal).
pub const TRIANGLES_STREAM: &str = "\
# pp5 triangles: 3 shaded triangles in painter's order into R mem[0:8], G mem[8:8], B mem[16:8]
# (generated by pp5_sim::demo::triangles_text; see `pp5 demo --image`)
message
FBITS 10
SETENABS
CLEAR 0 24                    # background: black
# triangle 1: (8,10) (100,22) (36,112)
FEDGE_L3 -12 92 -824
TREEgeZERO_L3 -90 -64 10408
TREEgeZERO_L3 102 -28 -536
TREEIntoMEM_L3 0 8 0.1728515625 -1.322265625 262.33984375
TREEIntoMEM_L3 8 8 2.08203125 -0.9638671875 33.482421875
TREEIntoMEM_L3 16 8 0.01953125 0.6806640625 13.537109375
# triangle 2: (60,6) (122,64) (28,84)
FEDGE_L3 -58 62 3108
TREEgeZERO_L3 -20 -94 8456
TREEgeZERO_L3 78 32 -4872
TREEIntoMEM_L3 0 8 -1.79296875 1.572265625 118.64453125
TREEIntoMEM_L3 8 8 -1.7587890625 -0.0166015625 306.126953125
TREEIntoMEM_L3 16 8 -0.7529296875 0.4599609375 102.916015625
# triangle 3: (72,56) (120,120) (14,124)
FEDGE_L3 -64 48 1920
TREEgeZERO_L3 -4 -106 13200
TREEgeZERO_L3 68 58 -8144
TREEIntoMEM_L3 0 8 1.537109375 0.72265625 -110.640625
TREEIntoMEM_L3 8 8 1.8232421875 0.8203125 -116.7109375
TREEIntoMEM_L3 16 8 1.60546875 -1.2041015625 207.3359375
";

/// The stream `pp5 demo` runs: [`DEMO_STREAM`] then [`TRIANGLES_STREAM`].
pub fn full_demo_text() -> String {
    format!("{DEMO_STREAM}\n{TRIANGLES_STREAM}")
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

    #[test]
    fn coefficients_are_exact_in_single_precision() {
        for t in &TRIANGLES {
            for ch in 0..3 {
                for k in shade_coefs(t, ch) {
                    assert!(k.abs() < 1 << 24, "{k}");
                    let f: f32 = coef_text(k).parse().expect("float");
                    assert_eq!(f64::from(f) * f64::from(1u32 << TRI_FBITS), k as f64);
                }
            }
        }
    }

    #[test]
    fn shading_stays_in_range_and_hits_the_vertices() {
        for t in &TRIANGLES {
            for ch in 0..3 {
                let [a, b, c] = shade_coefs(t, ch);
                for y in 0..128 {
                    for x in 0..128 {
                        if inside(t, x, y) {
                            let v = (a * x + b * y + c) >> TRI_FBITS;
                            assert!((0..=255).contains(&v), "{t:?} ch {ch} ({x},{y}) {v}");
                        }
                    }
                }
                for k in 0..3 {
                    let (x, y) = t.v[k];
                    assert_eq!(shade(t, ch, x, y), t.rgb[k][ch], "{t:?} ch {ch} vertex {k}");
                }
            }
        }
    }
}
