//! Built-in generated scenes: `NAME` or `NAME:key=value,key=value`.
//!
//! Each scene is centred near the origin and about two units across, and is a pure function
//! of its spec: the random ones draw from a seeded SplitMix64 generator and use only `+ - * /`
//! and `sqrt` on their random numbers, so a spec gives the same mesh on every platform.

use std::collections::HashMap;

use super::{face_normals, unit_or_z, Mesh, SceneError, MAX_TRIANGLES};

/// One built-in scene, for `--help` texts and listings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinScene {
    /// The scene's name, the part of the spec before `:`.
    pub name: &'static str,
    /// Its parameters with their defaults, as a spec tail (`n=4,sub=3,seed=1`); empty if it
    /// has none. `NAME:PARAMS` is the canonical spec of the default scene.
    pub params: &'static str,
    /// What it is, with its triangle count.
    pub description: &'static str,
}

/// The built-in scenes, in the order of [`builtin_help`].
pub const BUILTIN_SCENES: &[BuiltinScene] = &[
    BuiltinScene {
        name: "spheres",
        params: "n=4,sub=3,seed=1",
        description: "n icospheres of different colours side by side (a row up to 4, else a \
                      grid); 20*4^sub triangles each: 5120 at the defaults",
    },
    BuiltinScene {
        name: "torus",
        params: "major=0.7,minor=0.3,seg=48,sides=24,tilt=30",
        description: "a torus with a colour gradient around it, turned tilt degrees about x; \
                      2*seg*sides triangles: 2304 at the defaults",
    },
    BuiltinScene {
        name: "terrain",
        params: "n=64,height=0.3,seed=1,tilt=45",
        description: "a random height field of n x n cells over 2 x 2 units, coloured by \
                      height, turned tilt degrees about x; 2*n*n triangles: 8192 at the defaults",
    },
    BuiltinScene {
        name: "random",
        params: "n=1000,size=0.1,back=0.1,seed=1",
        description: "n equilateral triangles of edge `size`, random colours, scattered in \
                      [-1,1]x[-1,1]x[-0.5,0.5], facing +z within 45 degrees; a fraction `back` \
                      wound the other way (back faces from +z); n triangles",
    },
    BuiltinScene {
        name: "triangle",
        params: "size=1.6,z=0",
        description: "one triangle facing +z, size wide, red, green and blue corners; 1 triangle",
    },
    BuiltinScene {
        name: "quad",
        params: "size=1.6,z=0",
        description: "a size x size square facing +z, red, green, blue and yellow corners; \
                      2 triangles",
    },
];

const HELP: &str = "\
Built-in scenes: NAME or NAME:key=value,key=value (defaults shown)
  spheres:n=4,sub=3,seed=1
      n icospheres of different colours side by side (a row up to 4, else a grid),
      20*4^sub triangles each: 5120 in all at the defaults
  torus:major=0.7,minor=0.3,seg=48,sides=24,tilt=30
      a torus, radii major and minor, turned tilt degrees about x;
      2*seg*sides triangles: 2304 at the defaults
  terrain:n=64,height=0.3,seed=1,tilt=45
      a random height field of n x n cells, coloured by height, turned tilt degrees
      about x; 2*n*n triangles: 8192 at the defaults (n=250: 125000)
  random:n=1000,size=0.1,back=0.1,seed=1
      n triangles of edge size, random colours, in the box [-1,1]x[-1,1]x[-0.5,0.5],
      facing +z but for a fraction back wound away from it; n triangles
  triangle:size=1.6,z=0
      one triangle facing +z with red, green and blue corners
  quad:size=1.6,z=0
      a square facing +z, two triangles
At most 10000000 triangles.";

/// A `--help` text listing the built-in scenes, their parameters with defaults, and their
/// triangle counts.
pub fn builtin_help() -> &'static str {
    HELP
}

/// The built-in scene `spec` names: `NAME` or `NAME:key=value,key=value`
/// (see [`BUILTIN_SCENES`] for the names, parameters and defaults).
///
/// The mesh's [`Mesh::name`] is the canonical spec, every parameter spelled out. Unknown scenes
/// or parameters, values that are not numbers or are out of range, and scenes of more than
/// [`MAX_TRIANGLES`] triangles are refused with a [`SceneError`].
pub fn builtin(spec: &str) -> Result<Mesh, SceneError> {
    let s = Spec::parse(spec)?;
    let mesh = match s.name {
        "spheres" => spheres(&s)?,
        "torus" => torus(&s)?,
        "terrain" => terrain(&s)?,
        "random" => random(&s)?,
        "triangle" => triangle(&s)?,
        "quad" => quad(&s)?,
        other => {
            let names: Vec<&str> = BUILTIN_SCENES.iter().map(|b| b.name).collect();
            return Err(s.error(format!(
                "unknown scene {other:?} (built-in scenes: {}; or an .obj file)",
                names.join(", ")
            )));
        }
    };
    mesh.validate()?;
    Ok(mesh)
}

/// A parsed spec: the name and the `key=value` pairs.
struct Spec<'a> {
    text: &'a str,
    name: &'a str,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Spec<'a> {
    fn parse(text: &'a str) -> Result<Self, SceneError> {
        let text = text.trim();
        let (name, tail) = match text.split_once(':') {
            Some((n, t)) => (n.trim(), Some(t)),
            None => (text, None),
        };
        let mut s = Spec {
            text,
            name,
            pairs: Vec::new(),
        };
        if name.is_empty() {
            return Err(s.error("no scene name (expected NAME or NAME:key=value,...)".to_string()));
        }
        if let Some(tail) = tail {
            for item in tail.split(',') {
                let Some((k, v)) = item.split_once('=') else {
                    return Err(s.error(format!("parameter {:?} is not key=value", item.trim())));
                };
                let (k, v) = (k.trim(), v.trim());
                if k.is_empty() {
                    return Err(s.error(format!("parameter {:?} has no key", item.trim())));
                }
                if s.pairs.iter().any(|&(k2, _)| k2 == k) {
                    return Err(s.error(format!("parameter {k:?} is given twice")));
                }
                s.pairs.push((k, v));
            }
        }
        Ok(s)
    }

    fn error(&self, reason: String) -> SceneError {
        SceneError::Spec {
            spec: self.text.to_string(),
            reason,
        }
    }

    /// Refuse keys not in `allowed`.
    fn allow(&self, allowed: &[&str]) -> Result<(), SceneError> {
        for &(k, _) in &self.pairs {
            if !allowed.contains(&k) {
                let expected = if allowed.is_empty() {
                    "it takes none".to_string()
                } else {
                    format!("it takes {}", allowed.join(", "))
                };
                return Err(self.error(format!(
                    "unknown parameter {k:?} for scene {:?} ({expected})",
                    self.name
                )));
            }
        }
        Ok(())
    }

    fn value(&self, key: &str) -> Option<&'a str> {
        self.pairs.iter().find(|&&(k, _)| k == key).map(|&(_, v)| v)
    }

    /// A whole-number parameter in `min..=max` (`_` separators allowed).
    fn int(&self, key: &str, default: u64, min: u64, max: u64) -> Result<u64, SceneError> {
        let Some(v) = self.value(key) else {
            return Ok(default);
        };
        let n: u64 = v
            .replace('_', "")
            .parse()
            .map_err(|_| self.error(format!("{key}={v:?} is not a whole number")))?;
        if !(min..=max).contains(&n) {
            // A parameter bounded only by the scene's size (`random:n`) has no upper limit of
            // its own to print (`u64::MAX`): its limit is [`MAX_TRIANGLES`], checked later.
            let range = if max == u64::MAX {
                format!("at least {min}")
            } else {
                format!("{min}..={max}")
            };
            return Err(self.error(format!("{key}={n} is out of range ({range})")));
        }
        Ok(n)
    }

    /// A number parameter in `min..=max`.
    fn float(&self, key: &str, default: f32, min: f32, max: f32) -> Result<f32, SceneError> {
        let Some(v) = self.value(key) else {
            return Ok(default);
        };
        let x: f32 = v
            .parse()
            .map_err(|_| self.error(format!("{key}={v:?} is not a number")))?;
        if !x.is_finite() || !(min..=max).contains(&x) {
            return Err(self.error(format!("{key}={v} is out of range ({min}..={max})")));
        }
        Ok(x)
    }

    /// Refuse a scene of more than [`MAX_TRIANGLES`] triangles, before building it.
    fn limit(&self, triangles: u64) -> Result<(), SceneError> {
        if triangles > MAX_TRIANGLES {
            return Err(SceneError::TooLarge {
                scene: self.text.to_string(),
                triangles,
            });
        }
        Ok(())
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): a small, fast generator with a 64-bit state whose
/// output is the same on every platform.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// Uniform in `[0, 1)`, 53 bits.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// The SplitMix64 output function: a good 64-bit mixer.
fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// HSV (each in 0..=1, hue wrapping) to RGB in 0..=1.
fn hsv(h: f64, s: f64, v: f64) -> [f32; 3] {
    let h6 = h.rem_euclid(1.0) * 6.0;
    let i = h6.floor();
    let f = h6 - i;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    let rgb = match i as u32 % 6 {
        0 => [v, t, p],
        1 => [q, v, p],
        2 => [p, v, t],
        3 => [p, q, v],
        4 => [t, p, v],
        _ => [v, p, q],
    };
    rgb.map(|c| c.clamp(0.0, 1.0) as f32)
}

/// Turn `p` by `deg` degrees about the x axis, its +y side going towards -z: a surface facing
/// +z ends up facing up and towards the viewer.
fn tilt(p: [f64; 3], sin: f64, cos: f64) -> [f64; 3] {
    [p[0], p[1] * cos + p[2] * sin, -p[1] * sin + p[2] * cos]
}

fn f32v(p: [f64; 3]) -> [f32; 3] {
    p.map(|c| c as f32)
}

// ---------------------------------------------------------------------------------------------
// spheres

fn spheres(s: &Spec) -> Result<Mesh, SceneError> {
    s.allow(&["n", "sub", "seed"])?;
    let n = s.int("n", 4, 1, MAX_TRIANGLES)?;
    let sub = s.int("sub", 3, 0, 10)? as u32;
    let seed = s.int("seed", 1, 0, u64::MAX)?;
    let per = 20u64 << (2 * sub);
    s.limit(n.saturating_mul(per))?;

    let (unit, tris) = icosphere(sub);
    let cols = if n <= 4 { n } else { ceil_sqrt(n) };
    let rows = n.div_ceil(cols);
    let pitch = 2.0 / cols as f64;
    let mut rng = SplitMix64::new(seed);
    let hue0 = rng.unit();

    let nv = unit.len() * n as usize;
    let mut mesh = Mesh {
        name: format!("spheres:n={n},sub={sub},seed={seed}"),
        positions: Vec::with_capacity(nv),
        normals: Vec::with_capacity(nv),
        colors: Vec::with_capacity(nv),
        triangles: Vec::with_capacity(tris.len() * n as usize),
    };
    for k in 0..n {
        let (col, row) = (k % cols, k / cols);
        let centre = [
            (col as f64 - (cols - 1) as f64 / 2.0) * pitch,
            ((rows - 1) as f64 / 2.0 - row as f64) * pitch,
            rng.range(-0.25, 0.25) * pitch,
        ];
        let r = pitch * 0.5 * rng.range(0.6, 0.9);
        let colour = hsv(hue0 + k as f64 * 0.618_033_988_749_895, 0.7, 0.9);
        let base = mesh.positions.len() as u32;
        for u in &unit {
            mesh.positions
                .push(f32v([0, 1, 2].map(|i| centre[i] + r * u[i])));
            mesh.normals.push(f32v(*u));
            mesh.colors.push(colour);
        }
        mesh.triangles
            .extend(tris.iter().map(|t| t.map(|i| base + i)));
    }
    Ok(mesh)
}

/// The smallest `c` with `c * c >= n`.
fn ceil_sqrt(n: u64) -> u64 {
    let mut c = (n as f64).sqrt() as u64;
    while c > 0 && c.saturating_mul(c) >= n {
        c -= 1;
    }
    while c.saturating_mul(c) < n {
        c += 1;
    }
    c
}

/// The unit icosphere: an icosahedron with each triangle split in four `sub` times, vertices
/// pushed onto the sphere. `10 * 4^sub + 2` vertices, `20 * 4^sub` triangles, counter-clockwise
/// seen from outside.
fn icosphere(sub: u32) -> (Vec<[f64; 3]>, Vec<[u32; 3]>) {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let mut verts: Vec<[f64; 3]> = [
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ]
    .into_iter()
    .map(normalize)
    .collect();
    let mut tris: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..sub {
        let mut mid: HashMap<(u32, u32), u32> = HashMap::with_capacity(tris.len() * 3 / 2);
        let mut midpoint = |a: u32, b: u32, verts: &mut Vec<[f64; 3]>| -> u32 {
            let key = (a.min(b), a.max(b));
            *mid.entry(key).or_insert_with(|| {
                let (pa, pb) = (verts[a as usize], verts[b as usize]);
                verts.push(normalize([0, 1, 2].map(|k| pa[k] + pb[k])));
                (verts.len() - 1) as u32
            })
        };
        let mut next = Vec::with_capacity(tris.len() * 4);
        for &[a, b, c] in &tris {
            let ab = midpoint(a, b, &mut verts);
            let bc = midpoint(b, c, &mut verts);
            let ca = midpoint(c, a, &mut verts);
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        tris = next;
    }
    (verts, tris)
}

fn normalize(v: [f64; 3]) -> [f64; 3] {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|c| c / len)
}

// ---------------------------------------------------------------------------------------------
// torus

fn torus(s: &Spec) -> Result<Mesh, SceneError> {
    s.allow(&["major", "minor", "seg", "sides", "tilt"])?;
    let major = s.float("major", 0.7, 1e-3, 100.0)?;
    let minor = s.float("minor", 0.3, 1e-4, 100.0)?;
    let seg = s.int("seg", 48, 3, MAX_TRIANGLES)?;
    let sides = s.int("sides", 24, 3, MAX_TRIANGLES)?;
    let tilt_deg = s.float("tilt", 30.0, -360.0, 360.0)?;
    if minor >= major {
        return Err(s.error(format!(
            "minor={minor} must be smaller than major={major} (the torus would cut itself)"
        )));
    }
    s.limit(2u64.saturating_mul(seg).saturating_mul(sides))?;
    let (seg, sides) = (seg as usize, sides as usize);
    let (big, small) = (f64::from(major), f64::from(minor));
    let (ts, tc) = f64::from(tilt_deg).to_radians().sin_cos();

    let nv = seg * sides;
    let mut mesh = Mesh {
        name: format!("torus:major={major},minor={minor},seg={seg},sides={sides},tilt={tilt_deg}"),
        positions: Vec::with_capacity(nv),
        normals: Vec::with_capacity(nv),
        colors: Vec::with_capacity(nv),
        triangles: Vec::with_capacity(2 * nv),
    };
    // Vertex (i, j): angle u = 2πi/seg around the axis (z before the tilt), v = 2πj/sides
    // around the tube. dP/du × dP/dv points outwards, so (i,j) → (i+1,j) → (i+1,j+1) is
    // counter-clockwise seen from outside.
    let sides_cs: Vec<(f64, f64)> = (0..sides)
        .map(|j| (std::f64::consts::TAU * j as f64 / sides as f64).sin_cos())
        .collect();
    for i in 0..seg {
        let (su, cu) = (std::f64::consts::TAU * i as f64 / seg as f64).sin_cos();
        let colour = hsv(i as f64 / seg as f64, 0.55, 0.9);
        for &(sv, cv) in &sides_cs {
            let ring = big + small * cv;
            let p = [ring * cu, ring * su, small * sv];
            let n = [cu * cv, su * cv, sv];
            mesh.positions.push(f32v(tilt(p, ts, tc)));
            mesh.normals.push(unit_or_z(tilt(n, ts, tc)));
            mesh.colors.push(colour);
        }
    }
    let idx = |i: usize, j: usize| ((i % seg) * sides + (j % sides)) as u32;
    for i in 0..seg {
        for j in 0..sides {
            let (a, b, c, d) = (idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1));
            mesh.triangles.push([a, b, c]);
            mesh.triangles.push([a, c, d]);
        }
    }
    Ok(mesh)
}

// ---------------------------------------------------------------------------------------------
// terrain

fn terrain(s: &Spec) -> Result<Mesh, SceneError> {
    s.allow(&["n", "height", "seed", "tilt"])?;
    let n = s.int("n", 64, 1, MAX_TRIANGLES)?;
    let height = s.float("height", 0.3, 0.0, 10.0)?;
    let seed = s.int("seed", 1, 0, u64::MAX)?;
    let tilt_deg = s.float("tilt", 45.0, -360.0, 360.0)?;
    s.limit(2u64.saturating_mul(n).saturating_mul(n))?;
    let n = n as usize;
    let (ts, tc) = f64::from(tilt_deg).to_radians().sin_cos();

    let side = n + 1;
    let mut heights = Vec::with_capacity(side * side);
    for j in 0..side {
        for i in 0..side {
            let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
            heights.push(f64::from(height) * (2.0 * fbm(seed, u, v) - 1.0));
        }
    }
    let (lo, hi) = heights
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &h| {
            (lo.min(h), hi.max(h))
        });
    let span = hi - lo;

    let mut positions = Vec::with_capacity(side * side);
    let mut colors = Vec::with_capacity(side * side);
    for j in 0..side {
        for i in 0..side {
            let h = heights[j * side + i];
            let p = [
                -1.0 + 2.0 * i as f64 / n as f64,
                -1.0 + 2.0 * j as f64 / n as f64,
                h,
            ];
            positions.push(f32v(tilt(p, ts, tc)));
            let t = if span > 0.0 { (h - lo) / span } else { 0.5 };
            colors.push(height_colour(t));
        }
    }
    let mut triangles = Vec::with_capacity(2 * n * n);
    for j in 0..n {
        for i in 0..n {
            let a = (j * side + i) as u32;
            let (b, c, d) = (a + 1, a + 1 + side as u32, a + side as u32);
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    let normals = face_normals(&positions, &triangles);
    Ok(Mesh {
        name: format!("terrain:n={n},height={height},seed={seed},tilt={tilt_deg}"),
        positions,
        normals,
        colors,
        triangles,
    })
}

/// Fractal value noise on `[0, 1]²`: five octaves, result in `[0, 1)`.
fn fbm(seed: u64, u: f64, v: f64) -> f64 {
    let (mut sum, mut norm, mut amp, mut freq) = (0.0, 0.0, 1.0, 3.0);
    for octave in 0..5u64 {
        sum += amp * value_noise(seed, octave, u * freq, v * freq);
        norm += amp;
        amp *= 0.5;
        freq *= 2.0;
    }
    sum / norm
}

/// Smoothly interpolated random values at integer lattice points, in `[0, 1)`.
fn value_noise(seed: u64, octave: u64, x: f64, y: f64) -> f64 {
    let (fx, fy) = (x.floor(), y.floor());
    let (ix, iy) = (fx as i64, fy as i64);
    let (tx, ty) = (x - fx, y - fy);
    let (sx, sy) = (tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty));
    let at = |dx: i64, dy: i64| {
        let h = mix(seed
            ^ mix((octave << 56)
                ^ ((ix + dx) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ ((iy + dy) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)));
        (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    };
    let top = at(0, 0) + (at(1, 0) - at(0, 0)) * sx;
    let bottom = at(0, 1) + (at(1, 1) - at(0, 1)) * sx;
    top + (bottom - top) * sy
}

/// Water, sand, grass, rock, snow for `t` from 0 (lowest) to 1 (highest).
fn height_colour(t: f64) -> [f32; 3] {
    const STOPS: [(f64, [f64; 3]); 6] = [
        (0.0, [0.08, 0.20, 0.55]),
        (0.30, [0.20, 0.45, 0.75]),
        (0.36, [0.80, 0.75, 0.50]),
        (0.50, [0.25, 0.60, 0.20]),
        (0.78, [0.45, 0.35, 0.25]),
        (0.92, [0.95, 0.95, 0.95]),
    ];
    let t = t.clamp(0.0, 1.0);
    let mut colour = STOPS[STOPS.len() - 1].1;
    for w in STOPS.windows(2) {
        let ((t0, c0), (t1, c1)) = (w[0], w[1]);
        if t <= t1 {
            let f = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
            colour = [0, 1, 2].map(|k| c0[k] + (c1[k] - c0[k]) * f);
            break;
        }
    }
    colour.map(|c| c.clamp(0.0, 1.0) as f32)
}

// ---------------------------------------------------------------------------------------------
// random

fn random(s: &Spec) -> Result<Mesh, SceneError> {
    s.allow(&["n", "size", "back", "seed"])?;
    let n = s.int("n", 1000, 1, u64::MAX)?;
    let size = s.float("size", 0.1, 1e-6, 2.0)?;
    let back = s.float("back", 0.1, 0.0, 1.0)?;
    let seed = s.int("seed", 1, 0, u64::MAX)?;
    s.limit(n)?;
    let n = n as usize;
    let mut rng = SplitMix64::new(seed);
    // Circumradius of an equilateral triangle of edge `size`; cos and sin of 120°.
    let r = f64::from(size) / 3f64.sqrt();
    let (c120, s120) = (-0.5, 3f64.sqrt() / 2.0);

    let mut positions = Vec::with_capacity(3 * n);
    let mut colors = Vec::with_capacity(3 * n);
    let mut triangles = Vec::with_capacity(n);
    for t in 0..n {
        let centre = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-0.5, 0.5),
        ];
        // Facing +z within atan(0.7·√2) ≈ 45° at the corners, 35° along the axes.
        let (a, b) = (rng.range(-0.7, 0.7), rng.range(-0.7, 0.7));
        let normal = normalize([a, b, 1.0]);
        // An orthonormal basis (e1, e2) of the plane, e1 × e2 = normal.
        let e1 = normalize([1.0, 0.0, -a]);
        let e2 = cross(normal, e1);
        // A random direction in the plane, without trigonometry.
        let (mut dx, mut dy) = (1.0, 0.0);
        for _ in 0..16 {
            let (x, y) = (rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
            let l2 = x * x + y * y;
            if l2 > 1e-4 && l2 <= 1.0 {
                let l = l2.sqrt();
                (dx, dy) = (x / l, y / l);
                break;
            }
        }
        let mut corners = [[0.0f64; 3]; 3];
        for corner in &mut corners {
            *corner = [0, 1, 2].map(|k| centre[k] + r * (dx * e1[k] + dy * e2[k]));
            (dx, dy) = (dx * c120 - dy * s120, dx * s120 + dy * c120);
        }
        if rng.unit() < f64::from(back) {
            corners.swap(1, 2);
        }
        let colour = hsv(rng.unit(), rng.range(0.5, 0.9), rng.range(0.6, 1.0));
        let base = (3 * t) as u32;
        positions.extend(corners.map(f32v));
        colors.extend([colour; 3]);
        triangles.push([base, base + 1, base + 2]);
    }
    let normals = face_normals(&positions, &triangles);
    Ok(Mesh {
        name: format!("random:n={n},size={size},back={back},seed={seed}"),
        positions,
        normals,
        colors,
        triangles,
    })
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

// ---------------------------------------------------------------------------------------------
// triangle, quad

/// A flat mesh at depth `z` facing +z.
fn flat(
    name: String,
    z: f32,
    corners: &[[f32; 2]],
    colors: &[[f32; 3]],
    triangles: Vec<[u32; 3]>,
) -> Mesh {
    Mesh {
        name,
        positions: corners.iter().map(|c| [c[0], c[1], z]).collect(),
        normals: vec![[0.0, 0.0, 1.0]; corners.len()],
        colors: colors.to_vec(),
        triangles,
    }
}

fn size_z(s: &Spec) -> Result<(f32, f32), SceneError> {
    s.allow(&["size", "z"])?;
    let size = s.float("size", 1.6, 1e-6, 1000.0)?;
    let z = s.float("z", 0.0, -1000.0, 1000.0)?;
    Ok((size, z))
}

fn triangle(s: &Spec) -> Result<Mesh, SceneError> {
    let (size, z) = size_z(s)?;
    let h = size / 2.0;
    Ok(flat(
        format!("triangle:size={size},z={z}"),
        z,
        &[[-h, -0.75 * h], [h, -0.75 * h], [0.0, h]],
        &[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        vec![[0, 1, 2]],
    ))
}

fn quad(s: &Spec) -> Result<Mesh, SceneError> {
    let (size, z) = size_z(s)?;
    let h = size / 2.0;
    Ok(flat(
        format!("quad:size={size},z={z}"),
        z,
        &[[-h, -h], [h, -h], [h, h], [-h, h]],
        &[
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 1.0, 0.0],
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    ))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;
    use std::time::Instant;

    fn spec_error(spec: &str) -> String {
        match builtin(spec) {
            Err(e @ SceneError::Spec { .. }) => e.to_string(),
            other => panic!("{spec}: {other:?}"),
        }
    }

    #[test]
    fn splitmix64_reference_values() {
        // The published first outputs for state 0: the same on every platform.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
        let mut r = SplitMix64::new(42);
        for _ in 0..1000 {
            let x = r.range(-1.0, 2.0);
            assert!((-1.0..2.0).contains(&x));
        }
    }

    #[test]
    fn defaults_and_documented_triangle_counts() {
        for (spec, triangles) in [
            ("spheres", 5120),
            ("torus", 2304),
            ("terrain", 8192),
            ("random", 1000),
            ("triangle", 1),
            ("quad", 2),
            ("spheres:n=1,sub=0", 20),
            ("spheres:n=2,sub=1", 160),
            ("spheres:n=7,sub=2", 7 * 320),
            ("torus:seg=3,sides=3", 18),
            ("torus:seg=100,sides=50", 10_000),
            ("terrain:n=1", 2),
            ("terrain:n=250", 125_000),
            ("random:n=1", 1),
            ("random:n=100000", 100_000),
        ] {
            let m = builtin(spec).unwrap();
            assert_eq!(m.triangle_count(), triangles, "{spec}");
            m.validate().unwrap();
            assert_unit_normals(&m);
            if spec == "random:n=1" {
                continue;
            }
            // Centred near the origin, about unit size.
            let (c, r) = m.bounding_sphere();
            assert!(c.iter().all(|c| c.abs() < 0.5), "{spec}: centre {c:?}");
            assert!(r > 0.5 && r < 2.0, "{spec}: radius {r}");
        }
        let vertices = |spec| builtin(spec).unwrap().vertex_count();
        assert_eq!(vertices("spheres"), 4 * 642);
        assert_eq!(vertices("torus"), 48 * 24);
        assert_eq!(vertices("terrain"), 65 * 65);
        assert_eq!(vertices("random"), 3000);
    }

    #[test]
    fn help_matches_the_scenes() {
        let help = builtin_help();
        for b in BUILTIN_SCENES {
            let canonical = format!("{}:{}", b.name, b.params);
            assert!(
                help.contains(&canonical),
                "{canonical} missing from the help"
            );
            // The documented defaults are the real ones: the default scene's name spells
            // them out, and giving them explicitly changes nothing.
            let m = builtin(b.name).unwrap();
            assert_eq!(m.name, canonical);
            assert_eq!(builtin(&canonical).unwrap(), m);
        }
    }

    #[test]
    fn same_spec_same_mesh_different_seed_different_mesh() {
        for spec in ["spheres", "torus", "terrain", "random", "triangle", "quad"] {
            assert_eq!(builtin(spec).unwrap(), builtin(spec).unwrap(), "{spec}");
        }
        for spec in ["spheres", "terrain", "random"] {
            let a = builtin(&format!("{spec}:seed=1")).unwrap();
            let b = builtin(&format!("{spec}:seed=2")).unwrap();
            assert_ne!(a.positions, b.positions, "{spec}");
        }
        // Whitespace and `_` are tolerated.
        assert_eq!(
            builtin(" random : n = 1_000 , seed=1 ").unwrap(),
            builtin("random").unwrap()
        );
    }

    #[test]
    fn random_scene_golden_values() {
        // Pins the generator and the arithmetic: any change shows up here.
        let m = builtin("random:n=3,seed=7").unwrap();
        let sum: f64 = m.positions.iter().flatten().map(|&c| f64::from(c)).sum();
        assert_eq!(m.positions.len(), 9);
        assert_eq!(m.positions[0], [-0.277_282_66, -0.973_731_94, 0.406_885_18]);
        assert_eq!(sum, 3.840_258_359_909_057_6);
    }

    #[test]
    fn spheres_face_outwards() {
        for spec in ["spheres", "spheres:n=9,sub=1,seed=5", "spheres:n=1,sub=0"] {
            let m = builtin(spec).unwrap();
            let n: usize = spec
                .split("n=")
                .nth(1)
                .map_or(4, |t| t.split(',').next().unwrap().parse().unwrap());
            let per_v = m.vertex_count() / n;
            let per_t = m.triangle_count() / n;
            for k in 0..n {
                let vs = &m.positions[k * per_v..(k + 1) * per_v];
                let centre = [0, 1, 2]
                    .map(|i| vs.iter().map(|p| f64::from(p[i])).sum::<f64>() / per_v as f64);
                for (j, p) in vs.iter().enumerate() {
                    // The analytic normal: from the centre through the vertex.
                    let d = [0, 1, 2].map(|i| f64::from(p[i]) - centre[i]);
                    let len = dot(d, d).sqrt();
                    let nrm = f64v(m.normals[k * per_v + j]);
                    assert!(dot(d, nrm) / len > 0.9999, "{spec}: sphere {k} vertex {j}");
                }
                for t in k * per_t..(k + 1) * per_t {
                    let c = centroid(&m, t);
                    let out = [0, 1, 2].map(|i| c[i] - centre[i]);
                    assert!(
                        dot(winding_normal(&m, t), out) > 0.0,
                        "{spec}: triangle {t}"
                    );
                    for &i in &m.triangles[t] {
                        assert!(
                            (i as usize) / per_v == k,
                            "{spec}: triangle {t} crosses spheres"
                        );
                    }
                }
            }
            assert_winding_agrees_with_normals(&m);
            // Different colours.
            let first: Vec<[f32; 3]> = (0..n).map(|k| m.colors[k * per_v]).collect();
            for a in 0..n {
                for b in a + 1..n {
                    assert_ne!(first[a], first[b], "{spec}: spheres {a} and {b}");
                }
            }
        }
    }

    #[test]
    fn torus_faces_outwards() {
        let m = builtin("torus:tilt=0,major=0.8,minor=0.2").unwrap();
        for t in 0..m.triangle_count() {
            let c = centroid(&m, t);
            // The nearest point of the core circle (radius major, in the xy plane).
            let r = (c[0] * c[0] + c[1] * c[1]).sqrt();
            let core = [0.8 * c[0] / r, 0.8 * c[1] / r, 0.0];
            let out = [0, 1, 2].map(|i| c[i] - core[i]);
            assert!(dot(winding_normal(&m, t), out) > 0.0, "triangle {t}");
        }
        for (p, n) in m.positions.iter().zip(&m.normals) {
            let p = f64v(*p);
            let r = (p[0] * p[0] + p[1] * p[1]).sqrt();
            let core = [0.8 * p[0] / r, 0.8 * p[1] / r, 0.0];
            let out = [0, 1, 2].map(|i| (p[i] - core[i]) / 0.2);
            assert!(dot(out, f64v(*n)) > 0.9999, "{p:?} {n:?}");
        }
        assert_winding_agrees_with_normals(&m);
        for spec in [
            "torus",
            "torus:seg=3,sides=3,tilt=-70",
            "torus:seg=500,sides=7",
        ] {
            let m = builtin(spec).unwrap();
            assert_winding_agrees_with_normals(&m);
        }
    }

    #[test]
    fn terrain_and_flat_scenes_face_the_viewer() {
        for spec in [
            "terrain",
            "terrain:n=250,seed=9",
            "terrain:height=0",
            "terrain:tilt=0",
        ] {
            let m = builtin(spec).unwrap();
            assert_winding_agrees_with_normals(&m);
            let up = if spec.ends_with("tilt=0") {
                [0.0, 0.0, 1.0]
            } else {
                let (s, c) = 45f64.to_radians().sin_cos();
                [0.0, s, c]
            };
            for t in 0..m.triangle_count() {
                assert!(dot(winding_normal(&m, t), up) > 0.0, "{spec}: triangle {t}");
            }
            // Coloured by height: several colours.
            let mut colours = m.colors.clone();
            colours.dedup();
            assert!(spec.contains("height=0") || colours.len() > 10, "{spec}");
        }
        for spec in [
            "triangle",
            "quad",
            "triangle:size=0.5,z=-3",
            "quad:size=100",
        ] {
            let m = builtin(spec).unwrap();
            assert_winding_agrees_with_normals(&m);
            for t in 0..m.triangle_count() {
                assert!(winding_normal(&m, t)[2] > 0.0, "{spec}");
            }
        }
        let q = builtin("quad:size=2,z=0.5").unwrap();
        assert_eq!(q.bounds(), ([-1.0, -1.0, 0.5], [1.0, 1.0, 0.5]));
    }

    #[test]
    fn random_triangles_mostly_face_the_viewer() {
        let front = |spec: &str| {
            let m = builtin(spec).unwrap();
            assert_winding_agrees_with_normals(&m);
            let f = (0..m.triangle_count())
                .filter(|&t| winding_normal(&m, t)[2] > 0.0)
                .count();
            (m, f)
        };
        let (m, f) = front("random:n=10000");
        assert!((8700..=9300).contains(&f), "{f} front-facing of 10000");
        // Each is equilateral with edge `size`, inside the box (with a margin of `size`).
        for t in 0..m.triangle_count() {
            let [a, b, c] = m.triangles[t].map(|i| f64v(m.positions[i as usize]));
            for (p, q) in [(a, b), (b, c), (c, a)] {
                let d = [0, 1, 2].map(|k| p[k] - q[k]);
                assert!((dot(d, d).sqrt() - 0.1).abs() < 1e-5, "triangle {t}");
            }
            let g = centroid(&m, t);
            assert!(g[0].abs() <= 1.0 && g[1].abs() <= 1.0 && g[2].abs() <= 0.5);
            // Within 45° of +z (or of -z for the back faces).
            let n = winding_normal(&m, t);
            assert!(n[2].abs() / dot(n, n).sqrt() > 0.7, "triangle {t}");
        }
        assert_eq!(front("random:n=1000,back=0").1, 1000);
        assert_eq!(front("random:n=1000,back=1").1, 0);
        let (m, _) = front("random:n=100,size=2");
        m.validate().unwrap();
    }

    #[test]
    fn large_scenes_build_quickly() {
        for spec in [
            "random:n=100000",
            "terrain:n=250",
            "spheres:n=2,sub=6",
            "torus:seg=500,sides=100",
        ] {
            let start = Instant::now();
            let m = builtin(spec).unwrap();
            let took = start.elapsed();
            println!("{spec}: {} triangles in {took:?}", m.triangle_count());
            assert!(m.triangle_count() >= 100_000, "{spec}");
            assert!(took.as_secs_f64() < 1.0, "{spec} took {took:?}");
        }
    }

    #[test]
    fn bad_specs_are_refused() {
        for (spec, message) in [
            ("", "scene \"\": no scene name"),
            (":n=3", "no scene name"),
            (
                "cube",
                "unknown scene \"cube\" (built-in scenes: spheres, torus, terrain",
            ),
            ("Spheres", "unknown scene \"Spheres\""),
            (
                "torus:foo=1",
                "unknown parameter \"foo\" for scene \"torus\" (it takes major, minor",
            ),
            (
                "triangle:n=3",
                "unknown parameter \"n\" for scene \"triangle\"",
            ),
            ("spheres:n", "parameter \"n\" is not key=value"),
            ("spheres:n=3,", "parameter \"\" is not key=value"),
            ("spheres:=3", "parameter \"=3\" has no key"),
            ("spheres:n=3,n=4", "parameter \"n\" is given twice"),
            ("spheres:n=abc", "n=\"abc\" is not a whole number"),
            ("spheres:n=2.5", "n=\"2.5\" is not a whole number"),
            ("spheres:n=-1", "n=\"-1\" is not a whole number"),
            ("spheres:n=", "n=\"\" is not a whole number"),
            ("spheres:n=0", "n=0 is out of range (1..=10000000)"),
            ("spheres:sub=11", "sub=11 is out of range (0..=10)"),
            ("random:n=0", "n=0 is out of range (at least 1)"),
            ("random:n=99999999999999999999999", "is not a whole number"),
            ("terrain:n=0", "n=0 is out of range"),
            ("torus:seg=2", "seg=2 is out of range (3..=10000000)"),
            ("torus:major=x", "major=\"x\" is not a number"),
            ("torus:major=nan", "major=nan is out of range"),
            ("torus:major=inf", "major=inf is out of range"),
            ("torus:minor=0", "minor=0 is out of range"),
            (
                "torus:major=0.5,minor=0.5",
                "minor=0.5 must be smaller than major=0.5",
            ),
            ("terrain:height=-1", "height=-1 is out of range (0..=10)"),
            ("random:size=0", "size=0 is out of range"),
            ("random:back=1.5", "back=1.5 is out of range (0..=1)"),
            ("quad:size=1e9", "size=1e9 is out of range"),
        ] {
            let msg = spec_error(spec);
            assert!(msg.contains(message), "{spec}: {msg}");
            assert!(!msg.contains('\n'));
            assert!(!msg.contains(&u64::MAX.to_string()), "{spec}: {msg}");
        }
        assert_eq!(
            spec_error("torus:seg=x"),
            "scene \"torus:seg=x\": seg=\"x\" is not a whole number"
        );
    }

    #[test]
    fn too_many_triangles_are_refused_before_building() {
        for (spec, triangles) in [
            ("random:n=10000001", 10_000_001u64),
            ("random:n=18446744073709551615", u64::MAX),
            ("terrain:n=2237", 2 * 2237 * 2237),
            ("terrain:n=10000000", u64::MAX),
            ("spheres:n=2,sub=9", 2 * 20 * (1 << 18)),
            ("spheres:n=10000000,sub=10", u64::MAX),
            ("torus:seg=10000,sides=1000", 20_000_000),
        ] {
            let start = Instant::now();
            match builtin(spec) {
                Err(SceneError::TooLarge {
                    scene,
                    triangles: t,
                }) => {
                    assert_eq!(scene, spec);
                    assert!(t == triangles || triangles == u64::MAX && t > MAX_TRIANGLES);
                }
                other => panic!("{spec}: {other:?}"),
            }
            assert!(start.elapsed().as_millis() < 100, "{spec}");
        }
        let e = builtin("random:n=20000000").unwrap_err().to_string();
        assert_eq!(
            e,
            "scene \"random:n=20000000\": 20000000 triangles is too many (the limit is 10000000)"
        );
        // Just at the limit is fine (not built here: 10M triangles take a while in a test).
        assert!(Spec::parse("random:n=10000000")
            .unwrap()
            .limit(10_000_000)
            .is_ok());
    }
}
