//! Scenes: triangle meshes from built-in generators or Wavefront OBJ files.
//!
//! A scene is one [`Mesh`] in world space: positions, unit normals and diffuse colours per
//! vertex, and triangles that index them, front faces counter-clockwise seen from outside.
//!
//! - [`builtin()`] generates one from a spec such as `spheres`, `torus:seg=96,sides=48` or
//!   `random:n=100000,seed=7` ([`builtin_help`] lists the scenes and their parameters);
//! - [`load_obj`] reads a Wavefront OBJ file (with its `.mtl` materials if they load);
//! - [`load`] picks one of the two for a command-line argument.
//!
//! Every mesh handed out has passed [`Mesh::validate`]; every problem with the input is a
//! [`SceneError`] (the CLI prints it and exits with code 3), never a panic.

use std::fmt;
use std::path::{Path, PathBuf};

mod builtin;
mod obj;

pub use builtin::{builtin, builtin_help, BuiltinScene, BUILTIN_SCENES};
pub use obj::{load_obj, load_obj_bytes, read_obj};

/// The largest number of triangles a scene may have (built-in or OBJ).
pub const MAX_TRIANGLES: u64 = 10_000_000;

/// The largest magnitude a vertex coordinate may have.
pub const MAX_COORD: f32 = 1e6;

/// The albedo of OBJ geometry without a material colour or vertex colours.
pub const DEFAULT_ALBEDO: [f32; 3] = [0.7, 0.7, 0.7];

/// A triangle mesh in world space, front faces counter-clockwise seen from outside.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// Where the mesh came from: the canonical built-in spec with every parameter spelled out
    /// (e.g. `torus:major=0.7,minor=0.3,seg=48,sides=24,tilt=30`), or the OBJ file's path.
    pub name: String,
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Per vertex, unit length.
    pub normals: Vec<[f32; 3]>,
    /// Per vertex diffuse albedo, each channel in 0..=1.
    pub colors: Vec<[f32; 3]>,
    /// Indices into the three vertex arrays.
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// The number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// The number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// The axis-aligned bounding box `(min, max)` of the vertex positions (non-finite
    /// coordinates are skipped); `([0; 3], [0; 3])` for a mesh without vertices.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in &self.positions {
            for k in 0..3 {
                if p[k].is_finite() {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
            }
        }
        for k in 0..3 {
            if lo[k] > hi[k] {
                lo[k] = 0.0;
                hi[k] = 0.0;
            }
        }
        (lo, hi)
    }

    /// A sphere `(centre, radius)` enclosing every vertex: centred on the bounding box, with
    /// the distance to the farthest vertex as radius (not the smallest such sphere, but within
    /// a factor √3 of it). `([0; 3], 0.0)` for a mesh without vertices.
    pub fn bounding_sphere(&self) -> ([f32; 3], f32) {
        let (lo, hi) = self.bounds();
        let centre = [0, 1, 2].map(|k| lo[k] + (hi[k] - lo[k]) * 0.5);
        let mut r2 = 0.0f64;
        for p in &self.positions {
            let d2: f64 = (0..3)
                .map(|k| {
                    let d = f64::from(p[k]) - f64::from(centre[k]);
                    d * d
                })
                .sum();
            if d2.is_finite() {
                r2 = r2.max(d2);
            }
        }
        // Round up so that every vertex is inside despite the f32 rounding of the radius.
        let r = r2.sqrt() as f32;
        (centre, if r > 0.0 { r * (1.0 + 1e-6) } else { 0.0 })
    }

    /// Check that the mesh is usable: at least one triangle, the four arrays consistent
    /// (positions, normals and colours of equal length, every index in range), every
    /// coordinate finite with magnitude at most [`MAX_COORD`], every normal finite, every colour
    /// channel in 0..=1, at most [`MAX_TRIANGLES`] triangles. The first problem found is
    /// returned, naming the mesh ([`Mesh::name`]) and the vertex or triangle concerned.
    pub fn validate(&self) -> Result<(), SceneError> {
        let bad = |reason: String| SceneError::Invalid {
            scene: self.name.clone(),
            reason,
        };
        let n = self.positions.len();
        if self.normals.len() != n || self.colors.len() != n {
            return Err(bad(format!(
                "{} positions but {} normals and {} colours (must be equal)",
                n,
                self.normals.len(),
                self.colors.len()
            )));
        }
        if self.triangles.is_empty() {
            return Err(SceneError::Empty {
                scene: self.name.clone(),
            });
        }
        if self.triangles.len() as u64 > MAX_TRIANGLES {
            return Err(SceneError::TooLarge {
                scene: self.name.clone(),
                triangles: self.triangles.len() as u64,
            });
        }
        for (t, tri) in self.triangles.iter().enumerate() {
            if let Some(&i) = tri.iter().find(|&&i| i as usize >= n) {
                return Err(bad(format!(
                    "triangle {t} refers to vertex {i}, but there are only {n} vertices"
                )));
            }
        }
        const AXES: [char; 3] = ['x', 'y', 'z'];
        for (v, p) in self.positions.iter().enumerate() {
            for k in 0..3 {
                if !p[k].is_finite() {
                    return Err(bad(format!(
                        "vertex {v} has a non-finite coordinate {} = {}",
                        AXES[k], p[k]
                    )));
                }
                if p[k].abs() > MAX_COORD {
                    return Err(bad(format!(
                        "vertex {v} has a huge coordinate {} = {:e} (the limit is ±{:e})",
                        AXES[k], p[k], MAX_COORD
                    )));
                }
            }
        }
        for (v, nv) in self.normals.iter().enumerate() {
            if !nv.iter().all(|c| c.is_finite()) {
                return Err(bad(format!("vertex {v} has a non-finite normal {nv:?}")));
            }
        }
        for (v, c) in self.colors.iter().enumerate() {
            if !c.iter().all(|c| (0.0..=1.0).contains(c)) {
                return Err(bad(format!("vertex {v} has a colour {c:?} outside 0..=1")));
            }
        }
        Ok(())
    }
}

/// Why a scene could not be made. The `Display` form is one line naming the scene spec or file
/// and what is wrong.
#[derive(Debug)]
pub enum SceneError {
    /// A built-in scene spec is not understood: unknown scene or parameter, a value that is not
    /// a number or is out of range.
    Spec {
        /// The spec as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The scene would have more than [`MAX_TRIANGLES`] triangles.
    TooLarge {
        /// The scene spec or file.
        scene: String,
        /// How many triangles it would have.
        triangles: u64,
    },
    /// An OBJ file could not be opened or read.
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// An OBJ file is not valid OBJ text (a statement that does not parse).
    Malformed {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the statement, when known.
        line: Option<usize>,
        /// What is wrong.
        reason: String,
    },
    /// An OBJ face refers to a vertex (or a normal, texture coordinate or vertex colour) that
    /// the file does not define.
    MissingVertex {
        /// The file.
        path: PathBuf,
        /// What is missing.
        reason: String,
    },
    /// The scene has no triangles (e.g. an empty OBJ file, or one without faces).
    Empty {
        /// The scene spec or file.
        scene: String,
    },
    /// The mesh fails [`Mesh::validate`]: a non-finite or huge coordinate, a non-finite
    /// normal, an index out of range, ...
    Invalid {
        /// The scene spec or file.
        scene: String,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneError::Spec { spec, reason } => write!(f, "scene {spec:?}: {reason}"),
            SceneError::TooLarge { scene, triangles } => write!(
                f,
                "scene {scene:?}: {triangles} triangles is too many (the limit is {MAX_TRIANGLES})"
            ),
            SceneError::Io { path, error } => {
                write!(f, "OBJ file {}: cannot read: {error}", path.display())
            }
            SceneError::Malformed {
                path,
                line: Some(line),
                reason,
            } => write!(f, "OBJ file {} line {line}: {reason}", path.display()),
            SceneError::Malformed {
                path,
                line: None,
                reason,
            } => write!(f, "OBJ file {}: {reason}", path.display()),
            SceneError::MissingVertex { path, reason } => {
                write!(f, "OBJ file {}: {reason}", path.display())
            }
            SceneError::Empty { scene } => {
                write!(f, "scene {scene:?}: no triangles (nothing to draw)")
            }
            SceneError::Invalid { scene, reason } => write!(f, "scene {scene:?}: {reason}"),
        }
    }
}

impl std::error::Error for SceneError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SceneError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// The scene a command-line argument names: an OBJ file if the argument ends in `.obj`
/// (any case) or names an existing file, else a built-in scene spec ([`builtin()`]).
pub fn load(arg: &str) -> Result<Mesh, SceneError> {
    let path = Path::new(arg);
    let is_obj = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("obj"));
    if is_obj || path.is_file() {
        load_obj(path)
    } else {
        builtin(arg)
    }
}

/// Unit per-vertex normals from the faces: each vertex gets the area-weighted average of the
/// normals of the triangles that use it (the unnormalised cross products summed), `+z` for a
/// vertex no triangle with a non-zero area uses. Indices must be in range (out-of-range ones
/// are skipped).
pub(crate) fn face_normals(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<[f32; 3]> {
    let mut acc = vec![[0.0f64; 3]; positions.len()];
    for tri in triangles {
        let [Some(a), Some(b), Some(c)] = tri.map(|i| positions.get(i as usize)) else {
            continue;
        };
        let n = cross64(sub64(*b, *a), sub64(*c, *a));
        if !n.iter().all(|c| c.is_finite()) {
            continue;
        }
        for &i in tri {
            let s = &mut acc[i as usize];
            for k in 0..3 {
                s[k] += n[k];
            }
        }
    }
    acc.into_iter().map(unit_or_z).collect()
}

fn sub64(a: [f32; 3], b: [f32; 3]) -> [f64; 3] {
    [0, 1, 2].map(|k| f64::from(a[k]) - f64::from(b[k]))
}

fn cross64(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `v` scaled to unit length, or `+z` if it has no usable direction.
pub(crate) fn unit_or_z(v: [f64; 3]) -> [f32; 3] {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if len.is_finite() && len > 1e-30 {
        v.map(|c| (c / len) as f32)
    } else {
        [0.0, 0.0, 1.0]
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Checks shared by the builtin and OBJ tests.
    use super::*;

    /// The geometric normal of triangle `t` (unnormalised, from its winding).
    pub fn winding_normal(m: &Mesh, t: usize) -> [f64; 3] {
        let [a, b, c] = m.triangles[t].map(|i| m.positions[i as usize]);
        cross64(sub64(b, a), sub64(c, a))
    }

    pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    pub fn f64v(a: [f32; 3]) -> [f64; 3] {
        a.map(f64::from)
    }

    /// The centroid of triangle `t`.
    pub fn centroid(m: &Mesh, t: usize) -> [f64; 3] {
        let [a, b, c] = m.triangles[t].map(|i| f64v(m.positions[i as usize]));
        [0, 1, 2].map(|k| (a[k] + b[k] + c[k]) / 3.0)
    }

    /// Every vertex normal has unit length.
    pub fn assert_unit_normals(m: &Mesh) {
        for (v, n) in m.normals.iter().enumerate() {
            let len = dot(f64v(*n), f64v(*n)).sqrt();
            assert!((len - 1.0).abs() < 1e-4, "{}: normal {v} {n:?}", m.name);
        }
    }

    /// The winding of every triangle agrees with its vertices' normals.
    pub fn assert_winding_agrees_with_normals(m: &Mesh) {
        for t in 0..m.triangle_count() {
            let g = winding_normal(m, t);
            for &i in &m.triangles[t] {
                let n = f64v(m.normals[i as usize]);
                assert!(
                    dot(g, n) > 0.0,
                    "{}: triangle {t} winds against vertex {i}'s normal",
                    m.name
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad() -> Mesh {
        Mesh {
            name: "test".into(),
            positions: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 2.0, 0.0],
                [0.0, 2.0, 0.0],
            ],
            normals: vec![[0.0, 0.0, 1.0]; 4],
            colors: vec![[0.5; 3]; 4],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        }
    }

    #[test]
    fn bounds_and_sphere() {
        let m = quad();
        assert_eq!(m.triangle_count(), 2);
        assert_eq!(m.vertex_count(), 4);
        assert_eq!(m.bounds(), ([0.0, 0.0, 0.0], [1.0, 2.0, 0.0]));
        let (c, r) = m.bounding_sphere();
        assert_eq!(c, [0.5, 1.0, 0.0]);
        assert!(r >= 1.25f32.sqrt() && r < 1.25f32.sqrt() * 1.001);
        for p in &m.positions {
            let d: f32 = (0..3).map(|k| (p[k] - c[k]).powi(2)).sum::<f32>().sqrt();
            assert!(d <= r);
        }
        let empty = Mesh {
            positions: vec![],
            normals: vec![],
            colors: vec![],
            triangles: vec![],
            ..quad()
        };
        assert_eq!(empty.bounds(), ([0.0; 3], [0.0; 3]));
        assert_eq!(empty.bounding_sphere(), ([0.0; 3], 0.0));
        assert!(matches!(empty.validate(), Err(SceneError::Empty { .. })));
    }

    #[test]
    fn validate_accepts_a_good_mesh() {
        quad().validate().unwrap();
    }

    #[test]
    fn validate_names_each_problem() {
        let msg = |m: Mesh| {
            let e = m.validate().unwrap_err();
            assert!(matches!(e, SceneError::Invalid { .. }), "{e:?}");
            e.to_string()
        };
        let mut m = quad();
        m.triangles[1] = [0, 2, 4];
        assert!(msg(m).contains("triangle 1 refers to vertex 4"));
        let mut m = quad();
        m.positions[2][1] = f32::NAN;
        assert!(msg(m).contains("vertex 2 has a non-finite coordinate y = NaN"));
        let mut m = quad();
        m.positions[3][2] = f32::INFINITY;
        assert!(msg(m).contains("vertex 3 has a non-finite coordinate z = inf"));
        let mut m = quad();
        m.positions[0][0] = -2e6;
        assert!(msg(m).contains("vertex 0 has a huge coordinate x = -2e6"));
        let mut m = quad();
        m.normals[1] = [f32::NAN, 0.0, 1.0];
        assert!(msg(m).contains("vertex 1 has a non-finite normal"));
        let mut m = quad();
        m.colors[1] = [1.5, 0.0, 0.0];
        assert!(msg(m).contains("vertex 1 has a colour"));
        let mut m = quad();
        m.normals.pop();
        assert!(msg(m).contains("4 positions but 3 normals and 4 colours"));
        let mut m = quad();
        m.positions[0][0] = 1e6;
        m.validate().unwrap();
        let mut m = quad();
        m.triangles.clear();
        assert_eq!(
            m.validate().unwrap_err().to_string(),
            "scene \"test\": no triangles (nothing to draw)"
        );
    }

    #[test]
    fn face_normals_are_area_weighted_and_unit() {
        // A vertex shared by a big triangle facing +z and a small one facing +x.
        let positions = vec![
            [0.0, 0.0, 0.0],
            [4.0, 0.0, 0.0],
            [0.0, 4.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [9.0, 9.0, 9.0], // unused
        ];
        let n = face_normals(&positions, &[[0, 1, 2], [0, 3, 4]]);
        assert_eq!(n[1], [0.0, 0.0, 1.0]);
        assert_eq!(n[4], [1.0, 0.0, 0.0]);
        assert!(n[0][2] > 0.99 && n[0][0] > 0.0);
        assert_eq!(n[5], [0.0, 0.0, 1.0]);
        // Degenerate and out-of-range triangles do not panic.
        let n = face_normals(&positions, &[[0, 0, 1], [0, 1, 99]]);
        assert_eq!(n[0], [0.0, 0.0, 1.0]);
    }

    #[test]
    fn load_picks_obj_or_builtin() {
        assert_eq!(load("quad").unwrap().triangle_count(), 2);
        assert!(matches!(
            load("no/such/file.obj"),
            Err(SceneError::Io { .. })
        ));
        assert!(matches!(load("nosuchscene"), Err(SceneError::Spec { .. })));
    }

    #[test]
    fn errors_are_std_errors_with_one_line_messages() {
        let e: Box<dyn std::error::Error> = Box::new(SceneError::TooLarge {
            scene: "random:n=20000000".into(),
            triangles: 20_000_000,
        });
        assert_eq!(
            e.to_string(),
            "scene \"random:n=20000000\": 20000000 triangles is too many (the limit is 10000000)"
        );
        assert!(!e.to_string().contains('\n'));
    }
}
