//! Clipping against the view volume −w ≤ x, y, z ≤ w in homogeneous coordinates
//! (Sutherland–Hodgman, one plane at a time), so that every vertex the set-up sees is in
//! front of the camera and on the screen.

use super::transform::ClipVertex;

/// The six planes as (coefficients of x, y, z, w): inside where the dot product is ≥ 0.
const PLANES: [[f64; 4]; 6] = [
    [1.0, 0.0, 0.0, 1.0],
    [-1.0, 0.0, 0.0, 1.0],
    [0.0, 1.0, 0.0, 1.0],
    [0.0, -1.0, 0.0, 1.0],
    [0.0, 0.0, 1.0, 1.0],
    [0.0, 0.0, -1.0, 1.0],
];

/// A triangle against the view volume.
#[derive(Clone, Debug, PartialEq)]
pub enum Clipped {
    /// Entirely inside: the three vertices.
    Inside(Vec<ClipVertex>),
    /// Cut: the convex polygon that remains (at least 3 vertices).
    Cut(Vec<ClipVertex>),
    /// Nothing remains.
    Outside,
}

fn distance(v: &ClipVertex, p: &[f64; 4]) -> f64 {
    (0..4).map(|k| v.pos[k] * p[k]).sum()
}

/// Clip one triangle.
pub fn clip(tri: [ClipVertex; 3]) -> Clipped {
    if tri
        .iter()
        .all(|v| PLANES.iter().all(|p| distance(v, p) >= 0.0))
    {
        return Clipped::Inside(tri.to_vec());
    }
    if PLANES
        .iter()
        .any(|p| tri.iter().all(|v| distance(v, p) < 0.0))
    {
        return Clipped::Outside;
    }
    let mut poly = tri.to_vec();
    for p in &PLANES {
        let mut out = Vec::with_capacity(poly.len() + 2);
        for (i, a) in poly.iter().enumerate() {
            let b = &poly[(i + 1) % poly.len()];
            let (da, db) = (distance(a, p), distance(b, p));
            if da >= 0.0 {
                out.push(*a);
            }
            if (da >= 0.0) != (db >= 0.0) {
                out.push(a.lerp(b, da / (da - db)));
            }
        }
        poly = out;
        if poly.len() < 3 {
            return Clipped::Outside;
        }
    }
    Clipped::Cut(poly)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64, z: f64) -> ClipVertex {
        ClipVertex {
            pos: [x, y, z, 1.0],
            normal: [0.0, 0.0, 1.0],
            color: [x, y, 0.5],
        }
    }

    #[test]
    fn inside_outside_and_cut() {
        let inside = [v(0.0, 0.0, 0.0), v(0.5, 0.0, 0.0), v(0.0, 0.5, 0.0)];
        assert_eq!(clip(inside), Clipped::Inside(inside.to_vec()));
        let outside = [v(2.0, 0.0, 0.0), v(3.0, 0.0, 0.0), v(2.0, 0.5, 0.0)];
        assert_eq!(clip(outside), Clipped::Outside);
        // Half over the right edge: a quadrilateral whose vertices all lie inside.
        let Clipped::Cut(p) = clip([v(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0), v(0.0, 1.0, 0.0)]) else {
            panic!("not cut");
        };
        assert_eq!(p.len(), 4);
        for q in &p {
            assert!(PLANES.iter().all(|pl| distance(q, pl) >= -1e-12), "{q:?}");
        }
        // Attributes interpolate with the position: colour.x follows x.
        assert!(p.iter().all(|q| (q.color[0] - q.pos[0]).abs() < 1e-12));
    }

    #[test]
    fn behind_the_camera_is_cut_at_the_near_plane() {
        // w < 0 for one vertex (behind the eye).
        let mut a = v(0.0, 0.0, 0.0);
        a.pos = [0.0, 0.0, -2.0, -1.0];
        let r = clip([a, v(0.5, 0.0, 0.0), v(0.0, 0.5, 0.0)]);
        let Clipped::Cut(p) = r else { panic!("{r:?}") };
        assert!(p.iter().all(|q| q.pos[3] > 0.0));
    }
}
