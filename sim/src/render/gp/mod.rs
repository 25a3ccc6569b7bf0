//! The Graphics Processor's work on a frame (the GP is software in the Pixel-Planes 5
//! system; it runs here, in the simulator, not in the Renderer model):
//!
//! - [`transform`]: model-view-projection of every vertex, normals into eye space;
//! - [`clip`]: clipping against the view volume in homogeneous coordinates;
//! - [`setup`]: screen mapping, back-face culling, and the plane equations the QEE takes
//!   (edges, z, normal, albedo);
//! - [`bin`]: which 128×128 regions each primitive touches.

pub mod bin;
pub mod clip;
pub mod setup;
pub mod transform;

use super::math::{self, V3};
use super::scene::Mesh;
use super::view::View;
pub use bin::Bins;
pub use setup::Prim;

/// What the GP counted on a frame.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct GpStats {
    /// Triangles in the scene.
    pub triangles: usize,
    /// Entirely outside the view volume.
    pub outside: usize,
    /// Cut by the view volume's planes (each gives one or more primitives).
    pub clipped: usize,
    /// Facing away from the camera.
    pub back_facing: usize,
    /// No area left on the 1/16-pixel grid.
    pub degenerate: usize,
    /// Primitives sent to the Renderers (after clipping).
    pub prims: usize,
    /// Region-primitive pairs: how many times a primitive is sent to a region.
    pub binned: usize,
    /// The primitives' mean area in pixels (on the 1/16-pixel grid).
    pub mean_prim_area: f64,
}

/// A frame's primitives, bins and lighting, ready to become Renderer command streams.
#[derive(Clone, Debug)]
pub struct Frame {
    pub prims: Vec<Prim>,
    pub bins: Bins,
    pub stats: GpStats,
    /// Direction towards the light and the half vector (towards the light plus towards the
    /// viewer, normalised), in eye space: the viewer is taken at infinity along +z (the
    /// usual assumption of hardware Phong shading).
    pub light_eye: V3,
    pub half_eye: V3,
    /// What the GP did with each scene triangle, for the GP cost model
    /// (`system::gp_cost`).
    pub work: Vec<TriWork>,
    /// Vertices in the scene (the transform's work is per vertex).
    pub vertices: usize,
}

/// What the GP's code path did with one scene triangle: the outcome of each stage, from
/// which `system::gp_cost` counts its operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TriWork {
    /// The clip outcome.
    pub clip: ClipOutcome,
    /// Vertices of the polygon after clipping (0 when outside).
    pub polygon: u8,
    /// Triangles of the polygon's fan set up (culled or not).
    pub fans: u8,
    /// Primitives it gave (front-facing, not degenerate).
    pub prims: u8,
}

/// How a triangle came out of [`clip::clip`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClipOutcome {
    #[default]
    Inside,
    Cut,
    Outside,
}

/// Run the GP on `mesh` as seen by `view`.
pub fn process(mesh: &Mesh, view: &View) -> Result<Frame, String> {
    mesh.validate().map_err(|e| e.to_string())?;
    let camera = view.camera(mesh)?;
    let verts = transform::transform(mesh, &camera);
    let mut stats = GpStats {
        triangles: mesh.triangles.len(),
        ..GpStats::default()
    };
    let mut prims = Vec::new();
    let mut work = Vec::with_capacity(mesh.triangles.len());
    for (id, tri) in mesh.triangles.iter().enumerate() {
        let corners = tri.map(|i| verts[i as usize]);
        let mut w = TriWork::default();
        let polygon = match clip::clip(corners) {
            clip::Clipped::Inside(p) => p,
            clip::Clipped::Cut(p) => {
                stats.clipped += 1;
                w.clip = ClipOutcome::Cut;
                p
            }
            clip::Clipped::Outside => {
                stats.outside += 1;
                w.clip = ClipOutcome::Outside;
                work.push(w);
                continue;
            }
        };
        w.polygon = polygon.len().min(255) as u8;
        let screen: Vec<setup::ScreenVertex> = polygon
            .iter()
            .map(|v| setup::to_screen(v, view.width, view.height))
            .collect();
        // A fan of the (convex) clipped polygon.
        for k in 1..screen.len().saturating_sub(1) {
            w.fans = w.fans.saturating_add(1);
            match setup::setup([screen[0], screen[k], screen[k + 1]], id as u32, view) {
                Ok(p) => {
                    w.prims = w.prims.saturating_add(1);
                    prims.push(p)
                }
                Err(setup::Rejected::BackFacing) => stats.back_facing += 1,
                Err(setup::Rejected::Degenerate) => stats.degenerate += 1,
            }
        }
        work.push(w);
    }
    stats.prims = prims.len();
    if !prims.is_empty() {
        let area = |p: &Prim| {
            let [(x0, y0), (x1, y1), (x2, y2)] = p.v;
            ((x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)).abs() / 2.0
        };
        stats.mean_prim_area = prims.iter().map(area).sum::<f64>() / prims.len() as f64;
    }
    let bins = Bins::new(&prims, view.width, view.height);
    stats.binned = bins.pairs();
    let light_eye = math::normalize(math::apply_dir(&camera.view, view.light));
    let half_eye = math::normalize(math::add(light_eye, [0.0, 0.0, 1.0]));
    Ok(Frame {
        prims,
        bins,
        stats,
        light_eye,
        half_eye,
        work,
        vertices: mesh.positions.len(),
    })
}
