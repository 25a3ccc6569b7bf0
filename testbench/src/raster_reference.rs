//! A plain software rasteriser of a GP frame (`pp5_sim::render`), the reference `pp5 render`'s
//! pictures are checked against: no microcode, no simulated hardware, the same set-up and the
//! same shading maths (docs/rendering.md, "Checking the pictures").
//!
//! - Coverage and depth: each primitive's edge and z planes evaluated at every pixel centre of
//!   its bounding box as the QEE evaluates them (the IEEE single coefficients in fixed point,
//!   the sum floored: `gp::setup::qee_value`); a pixel is drawn where the three edges are ≥ 0
//!   and its new z is at least the stored one (later primitives win ties), in the order the
//!   GP sends them.
//! - The stored normal and albedo: the planes' floored values, kept to 8 bits as
//!   TREEIntoMEM keeps them.
//! - Shading: [`shade_fixed`], the maths of `render::shading` with the microcode's roundings,
//!   in plain integer arithmetic ([`rasterise`]); or `Shading::colour`, the same maths in
//!   floating point on the attributes as pixel memory holds them ([`rasterise_float`]: the
//!   judge of the pictures), or on the unrounded planes ([`rasterise_float_planes`]: what the
//!   8-bit attribute fields cost on top).

use pp5_sim::render::gp::setup::qee_value;
use pp5_sim::render::gp::Frame;
use pp5_sim::render::shading::Shading;

/// What the primitives left at a pixel: z (0: nothing) and the eight-bit normal and albedo as
/// stored, plus the same planes unrounded (for the floating-point shading).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fragment {
    pub z: i128,
    pub normal: [i8; 3],
    pub albedo: [u8; 3],
    pub normal_f: [f64; 3],
    pub albedo_f: [f64; 3],
}

/// The plane `a·x + b·y + c` of IEEE single coefficients, without the 1/2 the GP adds for
/// rounding.
fn plane_f(p: &[f32; 3], x: i64, y: i64) -> f64 {
    f64::from(p[0]) * x as f64 + f64::from(p[1]) * y as f64 + f64::from(p[2]) - 0.5
}

/// Every pixel's fragment after all primitives (row-major, `width`×`height`).
pub fn fragments(frame: &Frame, width: u32, height: u32) -> Vec<Fragment> {
    let (w, h) = (width as i64, height as i64);
    let mut buf = vec![Fragment::default(); (w * h) as usize];
    for p in &frame.prims {
        let [x0, y0, x1, y1] = p.bbox;
        for y in y0.max(0)..=y1.min(h - 1) {
            for x in x0.max(0)..=x1.min(w - 1) {
                if !p.covers(x, y) {
                    continue;
                }
                // The 20-bit z field, compared unsigned with the tree's value.
                let z = qee_value(&p.z, x, y);
                let f = &mut buf[(y * w + x) as usize];
                if f.z > z {
                    continue;
                }
                f.z = z & ((1 << pp5_sim::render::layout::Z_LEN) - 1);
                f.normal = std::array::from_fn(|k| qee_value(&p.normal[k], x, y) as i8);
                f.albedo = std::array::from_fn(|k| qee_value(&p.albedo[k], x, y) as u8);
                f.normal_f = std::array::from_fn(|k| plane_f(&p.normal[k], x, y));
                f.albedo_f = std::array::from_fn(|k| plane_f(&p.albedo[k], x, y));
            }
        }
    }
    buf
}

/// The shading maths as the microcode does it (`render::shading::commands`): the dot products
/// exact (8-bit normal times 9-bit light component, floored at 0), the intensities in 8.6
/// fixed point saturated at 2^14 - 1, the specular term in 8.8 squared with each square
/// rounded to 8 fractional bits, its weight kept to 14 fractional bits, and the colour
/// `albedo·I/256 + specular` rounded once and saturated at 255.
pub fn shade_fixed(s: &Shading, normal: [i8; 3], albedo: [u8; 3]) -> [u8; 3] {
    let dot = |l: [i32; 3]| {
        (0..3)
            .map(|k| i32::from(normal[k]) * l[k])
            .sum::<i32>()
            .max(0) as u64
    };
    let i = (dot(s.light) + (u64::from(s.ambient) << 6)).min((1 << 14) - 1);
    let mut sp = dot(s.half).min((1 << 14) - 1) << 2;
    for _ in 0..s.squarings {
        sp = (sp * sp + (1 << 15)) >> 16;
    }
    let sw = (sp * u64::from(s.specular)) >> 2;
    albedo.map(|a| ((u64::from(a) * i + sw + (1 << 13)) >> 14).min(255) as u8)
}

/// The frame with [`shade_fixed`]: what the simulated system must produce exactly.
pub fn rasterise(frame: &Frame, s: &Shading, width: u32, height: u32) -> Vec<[u8; 3]> {
    shade_all(frame, s, width, height, |f| {
        shade_fixed(s, f.normal, f.albedo)
    })
}

/// The frame with the shading in floating point on the attributes as stored (the 8-bit
/// normal and albedo fields), rounded to 8 bits once.
pub fn rasterise_float(frame: &Frame, s: &Shading, width: u32, height: u32) -> Vec<[u8; 3]> {
    shade_all(frame, s, width, height, |f| {
        let normal = f.normal.map(f64::from);
        let albedo = f.albedo.map(f64::from);
        s.colour(normal, albedo).map(|c| c.round() as u8)
    })
}

/// The frame with the shading in floating point on the unrounded planes: what the 8-bit
/// attribute fields cost on top of the shading's roundings.
pub fn rasterise_float_planes(frame: &Frame, s: &Shading, width: u32, height: u32) -> Vec<[u8; 3]> {
    shade_all(frame, s, width, height, |f| {
        s.colour(f.normal_f, f.albedo_f).map(|c| c.round() as u8)
    })
}

/// Every pixel: the background where nothing was drawn, else `shade` of its fragment.
fn shade_all(
    frame: &Frame,
    s: &Shading,
    width: u32,
    height: u32,
    shade: impl Fn(&Fragment) -> [u8; 3],
) -> Vec<[u8; 3]> {
    fragments(frame, width, height)
        .iter()
        .map(|f| if f.z == 0 { s.background } else { shade(f) })
        .collect()
}
