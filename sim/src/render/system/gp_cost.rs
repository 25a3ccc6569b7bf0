//! The Graphics Processors' time: a cost model of the work `render::gp` does for each scene
//! triangle (transform, clip, set-up, binning), counted in operations from that code path,
//! times a per-GP rate (docs/rendering.md, "The Graphics Processors").
//!
//! **Operations** are the floating-point adds, multiplies and compares of the code path,
//! counted by reading it (the line references below); a divide or a square root counts
//! [`DIVIDE_OPS`] (the i860 has neither: a reciprocal estimate and Newton-Raphson steps).
//!
//! **Distribution**: scene triangle `t` goes to GP `t mod N` (round robin by triangle); each
//! GP works through its triangles in scene order, without a pause; a primitive is ready
//! when its triangle is done. The transform is per vertex in the code (shared vertices done
//! once), so each triangle is charged the mesh's vertices per triangle times a vertex's cost.
//!
//! **Rate**: an i860 at 40 MHz peaks at 80 MFLOPS single precision (a multiply and an add per
//! cycle, pipelined, dual-instruction mode). Scalar, branchy per-triangle code like this
//! reaches a fraction of that; we take 20% ([`GP_MOPS_DEFAULT`] = 16 M operations/s), which
//! also puts 32 GPs at about the paper's 1 M triangles/s on a typical mix. It is an
//! assumption: the study prints the frame time at other rates beside it.

use crate::render::gp::{ClipOutcome, Frame, TriWork};
use pp5_rtl::clock::CLK_HZ;

/// The most Graphics Processors a Pixel-Planes 5 system has (SIGGRAPH 1989).
pub const MAX_GPS: usize = 32;
/// The GPs of a full system, the default.
pub const GPS_DEFAULT: usize = 32;
/// The default sustained rate of one GP, M operations/s (20% of the i860's 80 MFLOPS peak).
pub const GP_MOPS_DEFAULT: f64 = 16.0;

/// A divide or square root in operations.
pub const DIVIDE_OPS: u64 = 8;
/// One vertex through `gp::transform::transform`: `apply_point` with the MVP matrix
/// (`math::apply`, a 4×4 product: 16 multiplies, 12 adds), `apply_dir` with the view matrix
/// (the same 28), `normalize` (3 multiplies, 2 adds, a square root, a divide, 3 multiplies)
/// and the colour's clamp (6 compares).
pub const VERTEX_OPS: u64 = 28 + 28 + 8 + 2 * DIVIDE_OPS + 6;
/// `gp::clip::clip`, the trivial-accept test: 6 planes × 3 vertices × `distance` (4
/// multiplies, 3 adds) and its compare.
pub const CLIP_TEST_OPS: u64 = 18 * 8;
/// The trivial-reject test (`PLANES.iter().any(...)`), run when the accept test fails: the
/// same 18 distances and compares at most.
pub const CLIP_REJECT_OPS: u64 = 18 * 8;
/// Sutherland-Hodgman, per plane and polygon vertex: two distances and two compares.
pub const CLIP_EDGE_OPS: u64 = 2 * 8;
/// Per new vertex (an edge crossing the plane): `ClipVertex::lerp` of 10 attributes (3
/// operations each) and the ratio `da / (da - db)`.
pub const CLIP_LERP_OPS: u64 = 30 + 1 + DIVIDE_OPS;
/// `gp::setup::to_screen`, per polygon vertex: three divisions by w, x and y mapped and
/// snapped to the subpixel grid (8 each), z mapped and clamped (5).
pub const SCREEN_OPS: u64 = 3 * DIVIDE_OPS + 8 + 8 + 5;
/// `gp::setup::setup`, the signed area and its two tests (culled triangles stop here).
pub const CULL_OPS: u64 = 7 + 2;
/// `gp::setup::setup` of a front face: three edge functions (10 each), seven `plane`s (z,
/// the normal's three, the albedo's three: the vertex values, 8 differences, the
/// determinant, A and B with a divide each, C; about 30 + 2 divides), the bounding box (20).
pub const SETUP_OPS: u64 = 3 * 10 + 7 * (30 + 2 * DIVIDE_OPS) + 20;
/// `gp::bin::Bins::new`, per region a primitive touches: the index and the push.
pub const BIN_OPS: u64 = 4;

/// The operations of one triangle: `vertices_per_tri` its share of the transform, `bins` the
/// regions its primitives touch.
pub fn triangle_ops(w: &TriWork, vertices_per_tri: f64, bins: u64) -> u64 {
    let transform = (vertices_per_tri * VERTEX_OPS as f64).round() as u64;
    let clip = match w.clip {
        ClipOutcome::Inside => CLIP_TEST_OPS,
        ClipOutcome::Outside => CLIP_TEST_OPS + CLIP_REJECT_OPS,
        ClipOutcome::Cut => {
            // Each plane sees a polygon of about the final size; the final polygon has
            // `polygon - 3` more vertices than the triangle, each from a crossing (two
            // crossings per cutting plane, counted once per new vertex and once per lost).
            let n = u64::from(w.polygon.max(3));
            CLIP_TEST_OPS + CLIP_REJECT_OPS + 6 * n * CLIP_EDGE_OPS + 2 * (n - 1) * CLIP_LERP_OPS
        }
    };
    let screen = u64::from(w.polygon) * SCREEN_OPS;
    let setup = u64::from(w.fans) * CULL_OPS + u64::from(w.prims) * SETUP_OPS;
    transform + clip + screen + setup + bins * BIN_OPS
}

/// The GPs over a frame: when each triangle was done, and each GP's busy time.
#[derive(Clone, Debug, Default)]
pub struct GpSchedule {
    /// GPs in the system.
    pub gps: usize,
    /// The rate, M operations/s (`f64::INFINITY`: unbounded, every triangle done at 0).
    pub mops: f64,
    /// Each triangle's (start, end) cycle from the frame's start, on GP `t mod gps`.
    pub tri: Vec<(u64, u64)>,
    /// Each triangle's operations.
    pub ops: Vec<u64>,
    /// Each GP's busy cycles.
    pub busy: Vec<u64>,
}

impl GpSchedule {
    /// Time `frame`'s triangles on `gps` GPs of `mops` M operations/s each.
    pub fn new(frame: &Frame, gps: usize, mops: f64) -> GpSchedule {
        let gps = gps.max(1);
        let n = frame.work.len();
        let per_tri = frame.vertices as f64 / n.max(1) as f64;
        let mut bins = vec![0u64; n];
        for p in &frame.prims {
            let [x0, y0, x1, y1] = p.bbox;
            if x1 >= x0 && y1 >= y0 {
                let r = crate::render::gp::bin::REGION;
                let touched = (x1 / r - x0 / r + 1) * (y1 / r - y0 / r + 1);
                bins[p.id as usize] += touched as u64;
            }
        }
        let ops: Vec<u64> = (0..n)
            .map(|t| triangle_ops(&frame.work[t], per_tri, bins[t]))
            .collect();
        let mut clock = vec![0f64; gps];
        let mut busy = vec![0u64; gps];
        let mut tri = Vec::with_capacity(n);
        for (t, &o) in ops.iter().enumerate() {
            let g = t % gps;
            let start = clock[g].ceil() as u64;
            if mops.is_finite() {
                clock[g] += o as f64 * CLK_HZ as f64 / (mops * 1e6);
            }
            let end = clock[g].ceil() as u64;
            busy[g] = end;
            tri.push((start, end));
        }
        GpSchedule {
            gps,
            mops,
            tri,
            ops,
            busy,
        }
    }

    /// The cycle primitive `p` of `frame` is ready to send (its triangle is done).
    pub fn prim_ready(&self, frame: &Frame, p: usize) -> u64 {
        self.tri[frame.prims[p].id as usize].1
    }

    /// The GP that did primitive `p`.
    pub fn prim_gp(&self, frame: &Frame, p: usize) -> usize {
        frame.prims[p].id as usize % self.gps
    }

    /// The cycle the last GP finished.
    pub fn end(&self) -> u64 {
        self.busy.iter().copied().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_visible_triangle_costs_more_than_a_culled_one() {
        let inside = TriWork {
            clip: ClipOutcome::Inside,
            polygon: 3,
            fans: 1,
            prims: 1,
        };
        let back = TriWork { prims: 0, ..inside };
        let out = TriWork {
            clip: ClipOutcome::Outside,
            ..TriWork::default()
        };
        let (a, b, c) = (
            triangle_ops(&inside, 0.5, 1),
            triangle_ops(&back, 0.5, 0),
            triangle_ops(&out, 0.5, 0),
        );
        assert!(a > 2 * b.max(c) - 100 && b > 300 && c > 300, "{a} {b} {c}");
        // About 700 operations for a visible triangle: 16 M operations/s give about 23,000
        // triangles/s per GP.
        assert!((500..1000).contains(&a), "{a}");
    }
}
