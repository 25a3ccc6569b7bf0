//! Deferred Phong shading of a region: once every primitive has written its z, normal and
//! albedo, each pixel is lit once (docs/rendering.md, "Shading"). The arithmetic is microcode
//! (`sim/microcode/shade.pp5uc`: MEMtimesSCA, MEMtimesMEM, MEMmaxZERO, MEMsat) driven by the
//! commands below; [`Shading::colour`] is the same maths in floating point, for the reference
//! rasteriser.
//!
//! With `N` the interpolated normal (not renormalised, as the trees interpolate it), `L` the
//! direction towards the light and `H` the half vector, in eye space, intensities in 0..=255:
//!
//! ```text
//! I  = min(255, ambient + max(0, N·L))             diffuse plus ambient
//! s  = min(255, max(0, N·H)); s = s²/256 (log2 shininess times)
//! c  = min(255, albedo_c·I/256 + s·specular/256)    for c = R, G, B
//! ```
//!
//! `N·L` in units of 1/255: the normal's components are stored ×120 (8-bit signed) and `L`'s
//! are sent ×136 (9-bit signed scalars), so `(N·L)·120·136/64 = 255·(N·L)`: the product
//! shifted right by 6 bits.

use super::gp::Frame;
use super::layout::{ALBEDO, NORMAL, SCRATCH, Z, Z_LEN};
use super::math::V3;
use super::region::Cmds;
use super::view::View;
use crate::asm::opcodes::EncodeError;

/// A light or half-vector component is sent as `round(component × LIGHT_SCALE)`.
pub const LIGHT_SCALE: f64 = 136.0;
/// Bits of a light component (signed).
const LIGHT_BITS: u32 = 9;
/// `NORMAL_SCALE · LIGHT_SCALE / 2^DOT_SHIFT = 255`: the dot product's scale.
const DOT_SHIFT: u32 = 6;
/// Bits of a dot product of an 8-bit normal and a 9-bit light: signed 17.
const DOT_BITS: u32 = 17;

// Scratch fields (above the attributes, below bit 208).
/// A product.
const P: u32 = SCRATCH;
/// The diffuse dot product, later a temporary.
const D: u32 = P + DOT_BITS;
/// The specular dot product.
const S: u32 = D + DOT_BITS;
/// The intensity (10 bits for the sum, 8 after saturation).
const I: u32 = S + DOT_BITS;
/// The specular term (10 bits, 8 after saturation).
const SP: u32 = I + 10;
/// The shaded colour, R, G, B (8 bits each): what the output stage copies to bits 0-23.
pub const COLOUR: u32 = SP + 10;
const _: () = assert!(COLOUR + 24 <= pp5_rtl::emc_array::MEM_BITS as u32);

/// The shading constants of a frame, as the commands carry them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shading {
    /// `L` and `H` ×[`LIGHT_SCALE`], rounded.
    pub light: [i32; 3],
    pub half: [i32; 3],
    /// Ambient and specular weights in 0..=255.
    pub ambient: u32,
    pub specular: u32,
    /// log2 of the shininess: how many times the specular term is squared.
    pub squarings: u32,
    pub background: [u8; 3],
}

impl Shading {
    /// The constants for `frame` seen with `view`.
    pub fn new(frame: &Frame, view: &View) -> Shading {
        let q = |v: V3| v.map(|c| (c * LIGHT_SCALE).round() as i32);
        Shading {
            light: q(frame.light_eye),
            half: q(frame.half_eye),
            ambient: (view.ambient * 255.0).round() as u32,
            specular: (view.specular * 255.0).round() as u32,
            squarings: view.shininess.trailing_zeros(),
            background: view.background,
        }
    }

    /// The colour the shading maths gives a pixel whose interpolated normal is `normal` (in
    /// stored units, ×`NORMAL_SCALE`) and albedo `albedo` (×`ALBEDO_SCALE`), in floating
    /// point without the microcode's truncations.
    pub fn colour(&self, normal: V3, albedo: V3) -> [f64; 3] {
        let dot = |l: [i32; 3]| (0..3).map(|k| normal[k] * f64::from(l[k])).sum::<f64>();
        let scale = f64::from(1u32 << DOT_SHIFT);
        let i = (dot(self.light).max(0.0) / scale + f64::from(self.ambient)).min(255.0);
        let mut s = (dot(self.half).max(0.0) / scale).min(255.0);
        for _ in 0..self.squarings {
            s = s * s / 256.0;
        }
        let sw = s * f64::from(self.specular) / 256.0;
        albedo.map(|a| (a * i / 256.0 + sw).min(255.0))
    }

    /// The packed 24-bit background (R in bits 0-7).
    fn background_word(&self) -> u32 {
        let [r, g, b] = self.background.map(u32::from);
        r | g << 8 | b << 16
    }
}

/// The low `bits` bits of a signed scalar (its two's complement).
fn signed_field(v: i32, bits: u32) -> u32 {
    (v as u32) & ((1u32 << bits) - 1)
}

/// `dst = N · l` (signed, [`DOT_BITS`]), using `P` as a temporary.
fn dot(b: &mut Cmds, dst: u32, l: [i32; 3]) -> Result<(), EncodeError> {
    let (n, lb) = (8, LIGHT_BITS);
    b.igc(
        "MEMtimesSCA_S1",
        &[dst, NORMAL, n, lb, signed_field(l[0], lb)],
    )?;
    for k in 1..3u32 {
        b.igc(
            "MEMtimesSCA_S1",
            &[P, NORMAL + 8 * k, n, lb, signed_field(l[k as usize], lb)],
        )?;
        b.igc("MEMplusseqMEM", &[dst, P, DOT_BITS, DOT_BITS])?;
    }
    b.igc("MEMmaxZERO", &[dst, DOT_BITS])
}

/// `field[0:10] = dot >> DOT_SHIFT` for a non-negative dot product (below 2^16: at most
/// 121·136·3, so 10 bits hold it).
fn scaled(b: &mut Cmds, field: u32, dot_field: u32) -> Result<(), EncodeError> {
    const { assert!(DOT_BITS - 1 - DOT_SHIFT == 10) };
    b.igc("CPY", &[field, dot_field + DOT_SHIFT, 10])?;
    Ok(())
}

/// The shading commands of a region: every PE enabled, lighting into [`COLOUR`], the
/// background where z is 0 (nothing drawn).
pub fn commands(b: &mut Cmds, s: &Shading) -> Result<(), EncodeError> {
    b.igc("SETENABS", &[])?;
    // Diffuse: I = min(255, ambient + max(0, N·L)).
    dot(b, D, s.light)?;
    scaled(b, I, D)?;
    b.igc("MEMplusseqSCA_S1", &[I, I, 10, s.ambient])?;
    b.igc("MEMsat", &[I, 10, 8])?;
    // Specular: s = min(255, max(0, N·H)), squared log2(shininess) times, weighted.
    dot(b, S, s.half)?;
    scaled(b, SP, S)?;
    b.igc("MEMsat", &[SP, 10, 8])?;
    for _ in 0..s.squarings {
        b.igc("MEMtimesMEM", &[P, SP, SP, 8])?;
        b.igc("CPY", &[SP, P + 8, 8])?;
    }
    b.igc("SCAIntoMEM_S1", &[D, 8, s.specular])?;
    b.igc("MEMtimesMEM", &[P, SP, D, 8])?;
    b.igc("CPY", &[SP, P + 8, 8])?;
    b.igc("CLEAR", &[SP + 8, 2])?;
    // Each channel: min(255, albedo·I/256 + specular).
    for c in 0..3u32 {
        b.igc("MEMtimesMEM", &[P, ALBEDO + 8 * c, I, 8])?;
        b.igc("CPY", &[D, P + 8, 8])?;
        b.igc("CLEAR", &[D + 8, 2])?;
        b.igc("MEMplusseqMEM", &[D, SP, 10, 8])?;
        b.igc("MEMsat", &[D, 10, 8])?;
        b.igc("CPY", &[COLOUR + 8 * c, D, 8])?;
    }
    // The background where nothing was drawn.
    b.igc("MEMeqZERO", &[Z, Z_LEN])?;
    b.igc("SCAIntoMEM_S1", &[COLOUR, 24, s.background_word()])?;
    b.igc("SETENABS", &[])?;
    Ok(())
}
