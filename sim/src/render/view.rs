//! What `pp5 render` is asked to draw besides the mesh: the screen, the camera, the light and
//! the material, with defaults that frame any scene (docs/rendering.md, "The view").

use super::math::{self, V3};
use super::scene::Mesh;

/// The Pixel-Planes 5 frame buffer: 1280×1024 (SIGGRAPH 1989 paper).
pub const SCREEN_DEFAULT: (u32, u32) = (1280, 1024);
/// The largest screen side accepted (the QEE configuration register's origins are 16-bit).
pub const SCREEN_MAX: u32 = 8192;
/// Default vertical field of view, degrees.
pub const FOV_DEFAULT: f64 = 40.0;

/// Everything about a frame but the geometry.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// Screen size in pixels.
    pub width: u32,
    pub height: u32,
    /// Camera position and the point it looks at (world space); `None`: framed from the
    /// mesh's bounding sphere (from the front, a little above and to the right).
    pub eye: Option<V3>,
    pub target: Option<V3>,
    pub up: V3,
    /// Vertical field of view, degrees.
    pub fov: f64,
    /// Direction *towards* the directional light (world space).
    pub light: V3,
    /// Ambient light, diffuse weight 1 (shade.md), specular weight, 0..=1.
    pub ambient: f64,
    pub specular: f64,
    /// Specular exponent, a power of two (the shading squares `log2` times).
    pub shininess: u32,
    /// Colour of pixels no triangle covers.
    pub background: [u8; 3],
}

impl Default for View {
    fn default() -> Self {
        View {
            width: SCREEN_DEFAULT.0,
            height: SCREEN_DEFAULT.1,
            eye: None,
            target: None,
            up: [0.0, 1.0, 0.0],
            fov: FOV_DEFAULT,
            light: [0.4, 0.6, 0.7],
            ambient: 0.15,
            specular: 0.5,
            shininess: 16,
            background: [16, 16, 40],
        }
    }
}

/// The camera of a frame, resolved against the mesh.
#[derive(Clone, Debug)]
pub struct Camera {
    pub view: math::M4,
    pub proj: math::M4,
    pub eye: V3,
}

impl View {
    /// Check the parameters a user gave (a message for each problem, exit code 3).
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=SCREEN_MAX).contains(&self.width) || !(1..=SCREEN_MAX).contains(&self.height) {
            return Err(format!(
                "screen {}x{}: each side must be 1..={SCREEN_MAX}",
                self.width, self.height
            ));
        }
        let finite = |v: &V3| v.iter().all(|c| c.is_finite() && c.abs() <= 1e6);
        for (name, v) in [("eye", self.eye), ("target", self.target)] {
            if let Some(v) = v {
                if !finite(&v) {
                    return Err(format!(
                        "{name} {v:?}: coordinates must be finite, |c| <= 1e6"
                    ));
                }
            }
        }
        if !finite(&self.up) || math::length(self.up) == 0.0 {
            return Err(format!(
                "up {:?}: must be a non-zero finite vector",
                self.up
            ));
        }
        if !finite(&self.light) || math::length(self.light) == 0.0 {
            return Err(format!(
                "light {:?}: must be a non-zero finite direction",
                self.light
            ));
        }
        if !(self.fov > 1.0 && self.fov < 170.0) {
            return Err(format!(
                "fov {}: must be between 1 and 170 degrees",
                self.fov
            ));
        }
        for (name, v) in [("ambient", self.ambient), ("specular", self.specular)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("{name} {v}: must be in 0..=1"));
            }
        }
        if !self.shininess.is_power_of_two() || self.shininess > 128 {
            return Err(format!(
                "shininess {}: must be a power of two, 1..=128",
                self.shininess
            ));
        }
        Ok(())
    }

    /// The camera for `mesh`: the given eye and target, or ones that frame its bounding
    /// sphere. An eye inside the mesh's bounding box is refused: the near plane would cut
    /// through the geometry in front of the camera.
    pub fn camera(&self, mesh: &Mesh) -> Result<Camera, String> {
        self.validate()?;
        let (centre, radius) = mesh.bounding_sphere();
        let centre = centre.map(f64::from);
        // Relative to the scene only: no fixed size or distance, so a scene is framed the
        // same at any scale (above f32's smallest normal numbers).
        let radius = f64::from(radius).max(1e-30);
        let target = self.target.unwrap_or(centre);
        let fov = self.fov.to_radians();
        let aspect = f64::from(self.width) / f64::from(self.height);
        let eye = self.eye.unwrap_or_else(|| {
            // Far enough that the sphere fits the narrower field of view.
            let half = (fov / 2.0).min(((fov / 2.0).tan() * aspect).atan());
            let dist = radius / half.sin() * 1.05;
            math::add(
                target,
                math::scale(math::normalize([0.25, 0.35, 1.0]), dist),
            )
        });
        let (lo, hi) = mesh.bounds();
        if (0..3).all(|k| eye[k] > f64::from(lo[k]) && eye[k] < f64::from(hi[k])) {
            return Err(format!(
                "the camera at {eye:?} is inside the scene's bounding box {lo:?}..{hi:?}: \
                 place it outside (--eye X,Y,Z)"
            ));
        }
        if math::length(math::sub(target, eye)) == 0.0 {
            if self.eye.is_none() {
                // The framing put the eye at the target: the scene has no size to frame.
                return Err(format!(
                    "the scene has no extent to frame: its vertices are all at one point \
                     ({centre:?}), or too close together for their distance from the origin"
                ));
            }
            return Err("the camera's eye and target are the same point".into());
        }
        let dist = math::length(math::sub(centre, eye));
        let near = (dist - radius * 1.01).max(dist * 1e-3).max(radius * 1e-3);
        let far = dist + radius * 1.01;
        Ok(Camera {
            view: math::look_at(eye, target, self.up),
            proj: math::perspective(fov, aspect, near, far.max(near * 1.01)),
            eye,
        })
    }
}

/// Parse `X,Y,Z`.
pub fn parse_v3(s: &str) -> Result<V3, String> {
    let parts: Vec<&str> = s.split(',').collect();
    let [x, y, z] = parts[..] else {
        return Err(format!("{s:?}: expected X,Y,Z"));
    };
    let f = |p: &str| {
        p.trim()
            .parse::<f64>()
            .map_err(|_| format!("{s:?}: {p:?} is not a number"))
    };
    Ok([f(x)?, f(y)?, f(z)?])
}

/// Parse `WxH` (or `W×H`).
pub fn parse_screen(s: &str) -> Result<(u32, u32), String> {
    parse_pair(s, &['x', 'X', '×'], "WIDTHxHEIGHT, e.g. 1280x1024")
}

/// Parse two whole numbers separated by one of `seps`; `expected` says the form in a message.
pub fn parse_pair(s: &str, seps: &[char], expected: &str) -> Result<(u32, u32), String> {
    let (a, b) = s
        .split_once(seps)
        .ok_or_else(|| format!("{s:?}: expected {expected}"))?;
    let n = |p: &str| {
        p.trim()
            .parse::<u32>()
            .map_err(|_| format!("{s:?}: {p:?} is not a whole number"))
    };
    Ok((n(a)?, n(b)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsing_vectors_and_screens() {
        assert_eq!(parse_v3("1, -2.5,3").unwrap(), [1.0, -2.5, 3.0]);
        assert!(parse_v3("1,2").is_err());
        assert!(parse_v3("1,2,x").is_err());
        assert_eq!(parse_screen("640x480").unwrap(), (640, 480));
        assert_eq!(parse_screen("256×128").unwrap(), (256, 128));
        assert!(parse_screen("640").is_err());
    }

    #[test]
    fn bad_parameters_are_refused() {
        let bad = [
            View {
                width: 0,
                ..View::default()
            },
            View {
                fov: 180.0,
                ..View::default()
            },
            View {
                light: [0.0; 3],
                ..View::default()
            },
            View {
                eye: Some([f64::NAN, 0.0, 0.0]),
                ..View::default()
            },
            View {
                shininess: 12,
                ..View::default()
            },
        ];
        for v in bad {
            assert!(v.validate().is_err(), "{v:?}");
        }
        assert!(View::default().validate().is_ok());
    }

    /// A mesh whose vertices are all one point: the framing has nothing to frame, which the
    /// message says (issue 27 item 5: it blamed an eye that was never given).
    #[test]
    fn a_scene_of_one_point_is_refused_for_what_it_is() {
        let mesh = Mesh {
            name: "point.obj".into(),
            positions: vec![[1.0, 2.0, 3.0]; 3],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            colors: vec![[0.5; 3]; 3],
            triangles: vec![[0, 1, 2]],
        };
        let e = View::default().camera(&mesh).unwrap_err();
        assert!(e.contains("the scene has no extent to frame"), "{e}");
        assert!(e.contains("[1.0, 2.0, 3.0]"), "{e}");
        assert!(!e.contains("eye"), "{e}");
        // An eye given at the target is still the user's mistake.
        let at = View {
            eye: Some([1.0, 2.0, 3.0]),
            target: Some([1.0, 2.0, 3.0]),
            ..View::default()
        };
        let e = at.camera(&mesh).unwrap_err();
        assert_eq!(e, "the camera's eye and target are the same point");
    }
}
