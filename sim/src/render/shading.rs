//! Deferred Phong shading of a region: once every primitive has written its z, normal and
//! albedo, each pixel is lit once (docs/rendering.md, "Shading"). The arithmetic is microcode
//! (`sim/microcode/shade.pp5uc`: MEMtimesSCA, MEMtimesMEM, MEMmaxZERO, MEMsat) driven by the
//! commands below; [`Shading::colour`] is the same maths in floating point, for the reference
//! rasteriser.
//!
//! With `N` the interpolated normal (not renormalised, as the trees interpolate it) and the
//! albedo as pixel memory holds them (8-bit fields), `L` the direction towards the light and
//! `H` the half vector, in eye space, intensities in 0..=255:
//!
//! ```text
//! I  = min(IMAX, ambient + max(0, N·L))              diffuse plus ambient
//! s  = min(IMAX, max(0, N·H)); s = s²/256 (log2 shininess times)
//! c  = round(min(255, albedo_c·I/256 + s·specular/256))   for c = R, G, B
//! ```
//!
//! `IMAX` = 16383/64 (255.98), the largest intensity in the 8.6 fixed point the microcode keeps.
//! `N·L` in units of 1/255: the normal's components are stored ×120 (8-bit signed) and `L`'s
//! are sent ×136 (9-bit signed scalars), so `(N·L)·120·136/64 = 255·(N·L)`: the dot product is
//! the intensity with 6 fractional bits, exactly. The microcode keeps every step exact but the
//! squarings, which it rounds to 8 fractional bits (and the specular term, to 14), and rounds
//! the colour once at the end: [`Shading::colour`] is the same maths in floating point, which
//! the reference rasteriser checks the frames against (docs/rendering.md, "Checking the
//! pictures").

use super::gp::Frame;
use super::layout::{ALBEDO, NORMAL, SCRATCH, Z, Z_LEN};
use super::math::V3;
use super::view::View;
use crate::asm::opcodes::EncodeError;
use crate::stream::builder::StreamBuilder;

/// An IGC command writer that counts what it writes (the system finds each stage's
/// commands in the run's command records by these counts).
pub struct Cmds<'b, 't> {
    b: &'b mut StreamBuilder<'t>,
    pub count: usize,
}

impl<'b, 't> Cmds<'b, 't> {
    pub fn new(b: &'b mut StreamBuilder<'t>) -> Self {
        Cmds { b, count: 0 }
    }

    /// An IGC command with integer arguments (`StreamBuilder::igc`).
    pub fn igc(&mut self, name: &str, args: &[u32]) -> Result<(), EncodeError> {
        self.b.igc(name, args)?;
        self.count += 1;
        Ok(())
    }

    /// An IGC command with QEE coefficients (`StreamBuilder::igc_f`).
    pub fn igc_f(&mut self, name: &str, args: &[u32], coefs: &[f32]) -> Result<(), EncodeError> {
        self.b.igc_f(name, args, coefs)?;
        self.count += 1;
        Ok(())
    }
}

/// A light or half-vector component is sent as `round(component × LIGHT_SCALE)`.
pub const LIGHT_SCALE: f64 = 136.0;
/// Bits of a light component (signed).
const LIGHT_BITS: u32 = 9;
/// `NORMAL_SCALE · LIGHT_SCALE / 2^DOT_SHIFT = 255`: the dot product's fractional bits.
const DOT_SHIFT: u32 = 6;
/// Bits of a dot product of an 8-bit normal and a 9-bit light: signed 17.
const DOT_BITS: u32 = 17;
/// An intensity in 8.6 fixed point (saturated at 2^14 - 1: [`IMAX`]).
const I_BITS: u32 = 8 + DOT_SHIFT;
/// The largest intensity, `(2^I_BITS - 1) / 2^DOT_SHIFT`: where `MEMsat` saturates.
pub const IMAX: f64 = ((1u32 << I_BITS) - 1) as f64 / (1u32 << DOT_SHIFT) as f64;
/// The specular term while it is squared: 8.8 fixed point.
const S_FRAC: u32 = 8;
const S_BITS: u32 = 8 + S_FRAC;
/// A colour channel before rounding: `albedo · I` has 8 + 6 fractional bits (14).
const C_FRAC: u32 = 8 + DOT_SHIFT;
/// `albedo · I` (8 × 14 bits, as `MEMtimesMEM` multiplies equal lengths): 28 bits.
const C_BITS: u32 = 2 * I_BITS;
/// The specular term times the weight (`MEMtimesSCA`: 17 + 9 bits, signed), 16 fractional
/// bits; its value is below 2^24 (16 bits × 8 bits), so the bits above are not read again.
const SW_BITS: u32 = 24;

// Scratch fields (bits 100-207), by phase. The dot products: D (then the intensity I, its low
// 14 bits), P (a product), S.
const D: u32 = SCRATCH;
const P: u32 = D + DOT_BITS;
const S: u32 = P + DOT_BITS;
/// The specular term, 8.8, with a 0 above it (`MEMtimesSCA` reads it as signed).
const SA: u32 = S + DOT_BITS;
/// Its square (over P and S, which are done with).
const Q: u32 = P;
/// The specular term times its weight (over Q, after the squarings).
const SW: u32 = P;
/// An albedo channel widened to 14 bits (over SW's unused top and SA, after SW is formed).
const A14: u32 = SW + SW_BITS;
/// A channel's `albedo · I + specular`, 14 fractional bits.
const C: u32 = A14 + I_BITS;
/// The shaded colour, R, G, B (8 bits each): what the output stage copies to bits 0-23.
pub const COLOUR: u32 = C + C_BITS;
const _: () = assert!(COLOUR + 24 <= pp5_rtl::emc_array::MEM_BITS as u32);
// The squares fit below SA; `MEMtimesSCA`'s window (17 + 9 bits) below SA as well.
const _: () = assert!(Q + 2 * S_BITS <= SA && SW + S_BITS + 1 + LIGHT_BITS <= SA);

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

    /// The colour the shading maths gives a pixel whose normal is `normal` (in stored units,
    /// ×`NORMAL_SCALE`) and albedo `albedo` (×`ALBEDO_SCALE`), in floating point without the
    /// microcode's roundings, before the final rounding to 8 bits.
    pub fn colour(&self, normal: V3, albedo: V3) -> [f64; 3] {
        let dot = |l: [i32; 3]| (0..3).map(|k| normal[k] * f64::from(l[k])).sum::<f64>();
        let scale = f64::from(1u32 << DOT_SHIFT);
        let i = (dot(self.light).max(0.0) / scale + f64::from(self.ambient)).min(IMAX);
        let mut s = (dot(self.half).max(0.0) / scale).min(IMAX);
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

/// The shading commands of a region: every PE enabled, lighting into [`COLOUR`], the
/// background where z is 0 (nothing drawn).
pub fn commands(b: &mut Cmds, s: &Shading) -> Result<(), EncodeError> {
    b.igc("SETENABS", &[])?;
    // Diffuse: I = min(IMAX, ambient + max(0, N·L)), 8.6 in D's low 14 bits.
    dot(b, D, s.light)?;
    b.igc(
        "MEMplusseqSCA_S1",
        &[D, D, DOT_BITS, s.ambient << DOT_SHIFT],
    )?;
    b.igc("MEMsat", &[D, DOT_BITS, I_BITS])?;
    // Specular: s = min(IMAX, max(0, N·H)), widened to 8.8, squared log2(shininess) times,
    // each square rounded to 8 fractional bits.
    dot(b, S, s.half)?;
    b.igc("MEMsat", &[S, DOT_BITS, I_BITS])?;
    b.igc("CPY", &[SA + S_FRAC - DOT_SHIFT, S, I_BITS])?;
    b.igc("CLEAR", &[SA, S_FRAC - DOT_SHIFT])?;
    b.igc("CLEAR", &[SA + S_BITS, 1])?;
    for _ in 0..s.squarings {
        b.igc("MEMtimesMEM", &[Q, SA, SA, S_BITS])?;
        b.igc(
            "MEMplusseqSCA_S1",
            &[Q, Q, 2 * S_BITS, 1 << (2 * S_FRAC - 1)],
        )?;
        b.igc("CPY", &[SA, Q + 2 * S_FRAC, S_BITS])?;
    }
    // Its weight: SW = s·specular, 16 fractional bits.
    b.igc(
        "MEMtimesSCA_S1",
        &[
            SW,
            SA,
            S_BITS + 1,
            LIGHT_BITS,
            signed_field(s.specular as i32, LIGHT_BITS),
        ],
    )?;
    // Each channel: round(min(255, albedo·I/256 + s·specular/256)), in 14 fractional bits.
    for c in 0..3u32 {
        b.igc("CPY", &[A14, ALBEDO + 8 * c, 8])?;
        b.igc("CLEAR", &[A14 + 8, I_BITS - 8])?;
        b.igc("MEMtimesMEM", &[C, A14, D, I_BITS])?;
        let shift = 2 * S_FRAC - C_FRAC;
        b.igc("MEMplusseqMEM", &[C, SW + shift, C_BITS, SW_BITS - shift])?;
        b.igc("MEMplusseqSCA_S1", &[C, C, C_BITS, 1 << (C_FRAC - 1)])?;
        b.igc("MEMsat", &[C + C_FRAC, C_BITS - C_FRAC, 8])?;
        b.igc("CPY", &[COLOUR + 8 * c, C + C_FRAC, 8])?;
    }
    // The background where nothing was drawn.
    b.igc("MEMeqZERO", &[Z, Z_LEN])?;
    b.igc("SCAIntoMEM_S1", &[COLOUR, 24, s.background_word()])?;
    b.igc("SETENABS", &[])?;
    Ok(())
}
