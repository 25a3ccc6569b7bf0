//! Triangle set-up: screen mapping on a 1/16-pixel grid, back-face culling, and the plane
//! equations the QEE evaluates, `A·x + B·y + C` at every pixel centre (integer x, y), as IEEE
//! singles that the Renderer converts to fixed point with [`FBITS`] fractional bits.
//!
//! - **Edges**: `E ≥ 0` inside, on the edge included, exact on the subpixel grid (the
//!   products of 1/16-pixel coordinates need 8 fractional bits); a shared edge's two
//!   functions are exact negatives, so neighbouring triangles leave no gap.
//! - **z, normal, albedo**: the plane through the three vertex values (screen-linear, as the
//!   Pixel-Planes trees interpolate), plus 1/2 so that the QEE's floor rounds to nearest.

use super::super::layout::{ALBEDO_SCALE, FBITS, NORMAL_SCALE, SUBPIXEL, Z_MAX};
use super::super::math::V3;
use super::super::view::View;
use super::transform::ClipVertex;
use pp5_rtl::qee::arith::{coef_to_fixed, tree_value, QeeMode};

/// A vertex on the screen: pixel coordinates (pixel centres at integers, y down) snapped to
/// 1/[`SUBPIXEL`], nearness (1 at the near plane, 0 at the far plane), and its attributes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenVertex {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub normal: V3,
    pub color: V3,
}

/// Map a clipped vertex (w > 0) to the screen.
pub fn to_screen(v: &ClipVertex, width: u32, height: u32) -> ScreenVertex {
    let w = v.pos[3].max(f64::MIN_POSITIVE);
    let (nx, ny, nz) = (v.pos[0] / w, v.pos[1] / w, v.pos[2] / w);
    let snap = |p: f64| (p * SUBPIXEL).round() / SUBPIXEL;
    ScreenVertex {
        x: snap((nx + 1.0) * f64::from(width) / 2.0 - 0.5),
        y: snap((1.0 - ny) * f64::from(height) / 2.0 - 0.5),
        z: ((1.0 - nz) / 2.0).clamp(0.0, 1.0),
        normal: v.normal,
        color: v.color,
    }
}

/// Why a triangle produced no primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejected {
    BackFacing,
    Degenerate,
}

/// A primitive as the Renderers receive it.
#[derive(Clone, Debug, PartialEq)]
pub struct Prim {
    /// The scene triangle it comes from.
    pub id: u32,
    /// Its snapped screen vertices.
    pub v: [(f64, f64); 3],
    /// `[A, B, C]` of its three edge functions.
    pub edges: [[f32; 3]; 3],
    /// The z plane (nearness × [`Z_MAX`], ≥ 1 inside).
    pub z: [f32; 3],
    /// The planes of the eye-space normal's x, y, z (× [`NORMAL_SCALE`]).
    pub normal: [[f32; 3]; 3],
    /// The planes of the albedo's R, G, B (× [`ALBEDO_SCALE`]).
    pub albedo: [[f32; 3]; 3],
    /// The pixels it can cover: `[x0, y0, x1, y1]`, inclusive, clipped to the screen.
    pub bbox: [i64; 4],
}

/// The QEE's value of a plane at pixel (x, y): the coefficients converted to fixed point as
/// the Renderer converts them, the sum exact, floored (what `TREEIntoMEM` stores, and whose
/// sign the edge tests read).
pub fn qee_value(coefs: &[f32; 3], x: i64, y: i64) -> i128 {
    let fixed = [
        coef_to_fixed(coefs[0].to_bits(), FBITS),
        coef_to_fixed(coefs[1].to_bits(), FBITS),
        coef_to_fixed(coefs[2].to_bits(), FBITS),
        0,
        0,
        0,
    ];
    tree_value(QeeMode::Linear, &fixed, x, y, FBITS)
}

impl Prim {
    /// Whether the Renderer's edge tests pass at pixel (x, y).
    pub fn covers(&self, x: i64, y: i64) -> bool {
        self.edges.iter().all(|e| qee_value(e, x, y) >= 0)
    }
}

/// The plane through `(x_k, y_k, val_k)`, with 1/2 added (the QEE floors).
fn plane(v: &[ScreenVertex; 3], val: impl Fn(&ScreenVertex) -> f64) -> [f32; 3] {
    let (x0, y0, v0) = (v[0].x, v[0].y, val(&v[0]));
    let (dx1, dy1, dv1) = (v[1].x - x0, v[1].y - y0, val(&v[1]) - v0);
    let (dx2, dy2, dv2) = (v[2].x - x0, v[2].y - y0, val(&v[2]) - v0);
    let det = dx1 * dy2 - dx2 * dy1;
    let a = (dv1 * dy2 - dv2 * dy1) / det;
    let b = (dx1 * dv2 - dx2 * dv1) / det;
    [a as f32, b as f32, (v0 - a * x0 - b * y0 + 0.5) as f32]
}

/// Set up one screen triangle (`id`: its scene triangle).
pub fn setup(v: [ScreenVertex; 3], id: u32, view: &View) -> Result<Prim, Rejected> {
    // Twice the signed area, y down: front faces (counter-clockwise seen from the camera,
    // with y up) come out negative.
    let det = (v[1].x - v[0].x) * (v[2].y - v[0].y) - (v[2].x - v[0].x) * (v[1].y - v[0].y);
    if det == 0.0 {
        return Err(Rejected::Degenerate);
    }
    if det > 0.0 {
        return Err(Rejected::BackFacing);
    }
    let edges = std::array::from_fn(|k| {
        let (a, b) = (&v[k], &v[(k + 1) % 3]);
        // E = (yb - ya)(x - xa) - (xb - xa)(y - ya): ≥ 0 on the inside of a front face.
        let (ea, eb) = (b.y - a.y, -(b.x - a.x));
        [ea as f32, eb as f32, (-ea * a.x - eb * a.y) as f32]
    });
    let (w, h) = (i64::from(view.width), i64::from(view.height));
    let lo = |p: f64, max: i64| (p.ceil() as i64).clamp(0, max);
    let hi = |p: f64, max: i64| (p.floor() as i64).clamp(-1, max - 1);
    let xs = [v[0].x, v[1].x, v[2].x];
    let ys = [v[0].y, v[1].y, v[2].y];
    let min = |a: [f64; 3]| a.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |a: [f64; 3]| a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Ok(Prim {
        id,
        v: [(v[0].x, v[0].y), (v[1].x, v[1].y), (v[2].x, v[2].y)],
        edges,
        z: plane(&v, |p| 1.0 + p.z * (Z_MAX - 1.0)),
        normal: std::array::from_fn(|k| plane(&v, |p| p.normal[k] * NORMAL_SCALE)),
        albedo: std::array::from_fn(|k| plane(&v, |p| p.color[k] * ALBEDO_SCALE)),
        bbox: [
            lo(min(xs), w),
            lo(min(ys), h),
            hi(max(xs), w),
            hi(max(ys), h),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sv(x: f64, y: f64) -> ScreenVertex {
        ScreenVertex {
            x,
            y,
            z: 0.5,
            normal: [0.0, 0.0, 1.0],
            color: [1.0, 0.5, 0.0],
        }
    }

    #[test]
    fn a_front_face_covers_its_inside_and_its_edges_only() {
        // Counter-clockwise as seen on the screen (row 0 at the top): top left, bottom left,
        // top right; in pixel coordinates (y down) its signed area is negative.
        let p = setup(
            [sv(0.0, 0.0), sv(0.0, 10.0), sv(10.0, 0.0)],
            7,
            &View::default(),
        )
        .expect("front");
        assert_eq!(p.id, 7);
        assert!(p.covers(2, 2) && p.covers(0, 0) && p.covers(5, 5) && p.covers(0, 10));
        assert!(!p.covers(6, 5) && !p.covers(-1, 0) && !p.covers(3, -1));
        assert_eq!(p.bbox, [0, 0, 10, 10]);
        // The reversed winding is a back face; collinear points are degenerate.
        let back = setup(
            [sv(0.0, 0.0), sv(10.0, 0.0), sv(0.0, 10.0)],
            0,
            &View::default(),
        );
        assert_eq!(back, Err(Rejected::BackFacing));
        let flat = setup(
            [sv(0.0, 0.0), sv(5.0, 5.0), sv(10.0, 10.0)],
            0,
            &View::default(),
        );
        assert_eq!(flat, Err(Rejected::Degenerate));
    }

    #[test]
    fn planes_round_to_the_vertex_values() {
        let mut v = [sv(0.0, 0.0), sv(0.0, 100.0), sv(100.0, 0.0)];
        v[0].color = [0.0; 3];
        v[1].color = [1.0; 3];
        v[2].color = [0.5; 3];
        let p = setup(v, 0, &View::default()).expect("front");
        assert_eq!(qee_value(&p.albedo[0], 0, 0), 0);
        assert_eq!(qee_value(&p.albedo[0], 0, 100), ALBEDO_SCALE as i128);
        assert_eq!(
            qee_value(&p.albedo[0], 100, 0),
            (ALBEDO_SCALE / 2.0) as i128
        );
        assert_eq!(qee_value(&p.normal[2], 30, 30), NORMAL_SCALE as i128);
    }

    #[test]
    fn shared_edges_leave_no_gap_and_no_overlap_off_the_edge() {
        // A quad split along its diagonal, off the pixel grid.
        let a = sv(3.3125, 2.5);
        let b = sv(3.0625, 40.75);
        let c = sv(50.1875, 38.0);
        let d = sv(47.5, 1.0625);
        let t1 = setup([a, b, c], 0, &View::default()).expect("front");
        let t2 = setup([a, c, d], 1, &View::default()).expect("front");
        for y in 0..45 {
            for x in 0..55 {
                let inside_quad = t1.covers(x, y) || t2.covers(x, y);
                let both = t1.covers(x, y) && t2.covers(x, y);
                // Pixels covered by both are exactly on the shared edge.
                if both {
                    assert_eq!(qee_value(&t1.edges[1], x, y), 0, "({x},{y})");
                }
                let _ = inside_quad;
            }
        }
        // Every pixel strictly inside the quad is covered by one of them.
        for (x, y) in [(10, 10), (25, 20), (40, 30), (20, 35), (45, 5)] {
            assert!(t1.covers(x, y) || t2.covers(x, y), "({x},{y})");
        }
    }
}
