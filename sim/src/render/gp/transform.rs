//! Vertex processing: world → clip space, normals → eye space.

use super::super::math::{self, V3, V4};
use super::super::scene::Mesh;
use super::super::view::Camera;

/// A vertex after the model-view-projection transform, with what is interpolated across a
/// primitive: the eye-space normal and the albedo.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipVertex {
    pub pos: V4,
    pub normal: V3,
    pub color: V3,
}

impl ClipVertex {
    /// The vertex at `t` of the way from `self` to `o` (clip space is where interpolation is
    /// linear before the perspective division).
    pub fn lerp(&self, o: &ClipVertex, t: f64) -> ClipVertex {
        let l = |a: f64, b: f64| a + (b - a) * t;
        ClipVertex {
            pos: std::array::from_fn(|k| l(self.pos[k], o.pos[k])),
            normal: std::array::from_fn(|k| l(self.normal[k], o.normal[k])),
            color: std::array::from_fn(|k| l(self.color[k], o.color[k])),
        }
    }
}

/// Every vertex of `mesh` through the camera (the model matrix is the identity: meshes are
/// in world space).
pub fn transform(mesh: &Mesh, camera: &Camera) -> Vec<ClipVertex> {
    let mvp = math::mul(&camera.proj, &camera.view);
    mesh.positions
        .iter()
        .zip(&mesh.normals)
        .zip(&mesh.colors)
        .map(|((p, n), c)| ClipVertex {
            pos: math::apply_point(&mvp, p.map(f64::from)),
            // The view matrix is a rotation and a translation: normals need no inverse
            // transpose.
            normal: math::normalize(math::apply_dir(&camera.view, n.map(f64::from))),
            color: c.map(|v| f64::from(v).clamp(0.0, 1.0)),
        })
        .collect()
}
