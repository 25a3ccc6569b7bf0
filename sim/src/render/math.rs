//! The little linear algebra the Graphics Processor needs: 3- and 4-vectors and 4×4 matrices in
//! `f64` (column vectors, `m[row][col]`), the look-at and perspective matrices of OpenGL.

/// A 3-vector.
pub type V3 = [f64; 3];
/// A 4-vector (homogeneous).
pub type V4 = [f64; 4];
/// A 4×4 matrix, `m[row][col]`, applied to column vectors.
pub type M4 = [[f64; 4]; 4];

pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn length(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// `a` scaled to unit length; the zero vector stays zero.
pub fn normalize(a: V3) -> V3 {
    let l = length(a);
    if l > 0.0 {
        scale(a, 1.0 / l)
    } else {
        a
    }
}

/// The view matrix of a camera at `eye` looking at `target` with `up` roughly up: eye space
/// has the camera at the origin looking down −z, +y up.
pub fn look_at(eye: V3, target: V3, up: V3) -> M4 {
    let f = normalize(sub(target, eye));
    let mut s = normalize(cross(f, up));
    if length(s) == 0.0 {
        // `up` along the view direction: any perpendicular will do.
        s = normalize(cross(f, [1.0, 0.0, 0.0]));
        if length(s) == 0.0 {
            s = normalize(cross(f, [0.0, 0.0, 1.0]));
        }
    }
    let u = cross(s, f);
    [
        [s[0], s[1], s[2], -dot(s, eye)],
        [u[0], u[1], u[2], -dot(u, eye)],
        [-f[0], -f[1], -f[2], dot(f, eye)],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

/// The OpenGL perspective projection: vertical field of view `fovy` (radians), aspect
/// width/height, near and far planes (distances > 0). Clip space: visible where
/// −w ≤ x, y, z ≤ w.
pub fn perspective(fovy: f64, aspect: f64, near: f64, far: f64) -> M4 {
    let f = 1.0 / (fovy / 2.0).tan();
    [
        [f / aspect, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [
            0.0,
            0.0,
            (far + near) / (near - far),
            2.0 * far * near / (near - far),
        ],
        [0.0, 0.0, -1.0, 0.0],
    ]
}

/// `a · b`.
pub fn mul(a: &M4, b: &M4) -> M4 {
    std::array::from_fn(|r| std::array::from_fn(|c| (0..4).map(|k| a[r][k] * b[k][c]).sum()))
}

/// `m · v`.
pub fn apply(m: &M4, v: V4) -> V4 {
    std::array::from_fn(|r| (0..4).map(|k| m[r][k] * v[k]).sum())
}

/// A point (w = 1) through `m`.
pub fn apply_point(m: &M4, p: V3) -> V4 {
    apply(m, [p[0], p[1], p[2], 1.0])
}

/// A direction (w = 0) through the upper 3×3 of `m`.
pub fn apply_dir(m: &M4, d: V3) -> V3 {
    let v = apply(m, [d[0], d[1], d[2], 0.0]);
    [v[0], v[1], v[2]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_at_puts_the_target_on_the_negative_z_axis() {
        let v = look_at([0.0, 0.0, 5.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        let p = apply_point(&v, [0.0, 0.0, 0.0]);
        assert!((p[0]).abs() < 1e-12 && (p[1]).abs() < 1e-12 && (p[2] + 5.0).abs() < 1e-12);
        let up = apply_point(&v, [0.0, 1.0, 0.0]);
        assert!(up[1] > 0.99);
        // Looking straight down with up = +y still gives a valid frame.
        let d = look_at([0.0, 5.0, 0.0], [0.0; 3], [0.0, 1.0, 0.0]);
        assert!(d.iter().flatten().all(|x| x.is_finite()));
    }

    #[test]
    fn perspective_maps_near_and_far_to_minus_one_and_one() {
        let p = perspective(1.0, 1.0, 1.0, 10.0);
        let n = apply(&p, [0.0, 0.0, -1.0, 1.0]);
        let f = apply(&p, [0.0, 0.0, -10.0, 1.0]);
        assert!((n[2] / n[3] + 1.0).abs() < 1e-12);
        assert!((f[2] / f[3] - 1.0).abs() < 1e-12);
    }
}
