//! Where a region's per-pixel attributes live in the 208 bits of pixel memory, and the number
//! formats the GP's plane equations deliver them in (docs/rendering.md, "Pixel memory").
//!
//! Bits 0-31 are what BSSTORE moves to the backing store and BS_TRANSMIT sends to the frame
//! buffer: the final colour goes there only after the previous region's transfer is done
//! (BSWAIT), everything else lives above bit 31.

/// FBITS for every QEE command of a frame: edge coefficients have 1/16-pixel vertices (1/256
/// products), and 16 fractional bits keep the planes' slopes exact to 2^-16 per pixel.
pub const FBITS: u32 = 16;
/// Vertex positions are snapped to 1/SUBPIXEL of a pixel (4 bits, as graphics hardware did).
pub const SUBPIXEL: f64 = 16.0;

/// The final colour, 8 bits each of R, G, B (bits 24-31 are 0): the frame-buffer word.
pub const OUT: u32 = 0;
/// Depth as nearness (larger is nearer; 0 is the clear value: nothing drawn).
pub const Z: u32 = 32;
pub const Z_LEN: u32 = 20;
/// The interpolated eye-space normal, three signed 8-bit components (×[`NORMAL_SCALE`]).
pub const NORMAL: u32 = 52;
/// The diffuse albedo, three unsigned 8-bit components (×[`ALBEDO_SCALE`]).
pub const ALBEDO: u32 = 76;
/// Everything above is scratch for the shading (bits 100-207).
pub const SCRATCH: u32 = 100;
/// Bits cleared at the start of a region (z, normal, albedo; not bits 0-31, which a transfer
/// may still be reading).
pub const CLEAR_FROM: u32 = Z;
pub const CLEAR_LEN: u32 = SCRATCH - Z;

/// A unit normal component becomes this many units: below 127, so that the plane's rounding
/// (up to a few units over a very large triangle) cannot wrap the signed 8-bit field.
pub const NORMAL_SCALE: f64 = 120.0;
/// An albedo of 1 becomes this many units (below 255 for the same reason).
pub const ALBEDO_SCALE: f64 = 248.0;
/// The largest z the planes deliver; nearness 0..=1 maps to 1..=Z_MAX (0 stays "empty").
pub const Z_MAX: f64 = ((1u32 << Z_LEN) - 2) as f64;
