//! Pictures of the pixel array: pixel-memory fields (or the Enable registers) of all 128×128
//! pixel processors written as a PNG after a run (`pp5 run/demo --image FILE.png=SPEC`).
//!
//! Image row 0 is array row y = 0 and image column 0 is x = 0: x grows to the right and y
//! downward, as the QEE's pixel coordinates do, so the top of the picture is y = 0.

use pp5_rtl::emc_array::plane::{self, ARRAY_DIM};
use pp5_rtl::emc_array::{EmcArray, MEM_BITS};
use std::io;
use std::path::{Path, PathBuf};

/// Width and height of every image (the array's).
pub const IMAGE_DIM: usize = ARRAY_DIM;

/// What an image shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// Three 8-bit unsigned fields at these bit addresses: red, green, blue.
    Rgb { r: usize, g: usize, b: usize },
    /// One unsigned field of `len` (1..=16) bits scaled to 0..=255.
    Grey { addr: usize, len: usize },
    /// The Enable register: white where set, black where clear.
    Enable,
}

/// An image to write: `FILE.png=rgb:R,G,B`, `FILE.png=grey:ADDR,LEN` or `FILE.png=enable`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageSpec {
    pub path: PathBuf,
    pub kind: ImageKind,
}

const SPEC_HELP: &str = "use FILE.png=rgb:R,G,B, FILE.png=grey:ADDR,LEN or FILE.png=enable";

fn numbers(s: &str, n: usize, what: &str) -> Result<Vec<usize>, String> {
    let v: Result<Vec<usize>, _> = s.split(',').map(|t| t.trim().parse::<usize>()).collect();
    match v {
        Ok(v) if v.len() == n => Ok(v),
        _ => Err(format!(
            "`{s}`: expected {what} ({n} comma-separated numbers); {SPEC_HELP}"
        )),
    }
}

/// Parse an `--image` spec. The path is everything before the last `=`.
pub fn parse_spec(s: &str) -> Result<ImageSpec, String> {
    let (path, kind) = s
        .rsplit_once('=')
        .ok_or_else(|| format!("`{s}`: no `=`; {SPEC_HELP}"))?;
    if path.trim().is_empty() {
        return Err(format!("`{s}`: no file name before `=`; {SPEC_HELP}"));
    }
    let kind = kind.trim();
    let (name, args) = kind.split_once(':').unwrap_or((kind, ""));
    let kind = match name.trim().to_ascii_lowercase().as_str() {
        "rgb" => {
            let v = numbers(args, 3, "R,G,B bit addresses")?;
            for (&a, c) in v.iter().zip(["R", "G", "B"]) {
                if a + 8 > MEM_BITS {
                    return Err(format!(
                        "`{s}`: {c} = {a}: an 8-bit field must lie inside the {MEM_BITS} bits \
                         (address 0..={})",
                        MEM_BITS - 8
                    ));
                }
            }
            ImageKind::Rgb {
                r: v[0],
                g: v[1],
                b: v[2],
            }
        }
        "grey" | "gray" => {
            let v = numbers(args, 2, "ADDR,LEN")?;
            let (addr, len) = (v[0], v[1]);
            if len == 0 || len > 16 {
                return Err(format!("`{s}`: LEN = {len}: use 1..=16 bits"));
            }
            if addr + len > MEM_BITS {
                return Err(format!(
                    "`{s}`: mem[{addr}:{len}] is not inside the {MEM_BITS} bits"
                ));
            }
            ImageKind::Grey { addr, len }
        }
        "enable" if args.is_empty() => ImageKind::Enable,
        _ => return Err(format!("`{s}`: unknown image kind `{kind}`; {SPEC_HELP}")),
    };
    Ok(ImageSpec {
        path: PathBuf::from(path),
        kind,
    })
}

/// RGB bytes (row-major, y = 0 first) of three 8-bit fields at bit addresses `r`, `g`, `b`.
pub fn colour_image(array: &EmcArray, r: usize, g: usize, b: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(IMAGE_DIM * IMAGE_DIM * 3);
    for y in 0..IMAGE_DIM {
        for x in 0..IMAGE_DIM {
            for a in [r, g, b] {
                out.push(array.peek(x, y, a, 8) as u8);
            }
        }
    }
    out
}

/// RGB bytes of one unsigned field `mem[addr:len]` (len ≤ 16) scaled to 0..=255 (grey).
pub fn grey_image(array: &EmcArray, addr: usize, len: usize) -> Vec<u8> {
    let len = len.clamp(1, 16);
    let max = (1u64 << len) - 1;
    let mut out = Vec::with_capacity(IMAGE_DIM * IMAGE_DIM * 3);
    for y in 0..IMAGE_DIM {
        for x in 0..IMAGE_DIM {
            let v = array.peek(x, y, addr, len);
            let g = ((v * 255 + max / 2) / max) as u8;
            out.extend([g, g, g]);
        }
    }
    out
}

/// RGB bytes of the Enable registers: white where set, black where clear.
pub fn enable_image(array: &EmcArray) -> Vec<u8> {
    let mut out = Vec::with_capacity(IMAGE_DIM * IMAGE_DIM * 3);
    for y in 0..IMAGE_DIM {
        for x in 0..IMAGE_DIM {
            let g = if plane::get(&array.enable, x, y) {
                255
            } else {
                0
            };
            out.extend([g, g, g]);
        }
    }
    out
}

/// The RGB bytes of an image of `kind`.
pub fn render(array: &EmcArray, kind: ImageKind) -> Vec<u8> {
    match kind {
        ImageKind::Rgb { r, g, b } => colour_image(array, r, g, b),
        ImageKind::Grey { addr, len } => grey_image(array, addr, len),
        ImageKind::Enable => enable_image(array),
    }
}

/// Write `rgb` (`w`×`h` pixels, 3 bytes each, row-major) as an 8-bit RGB PNG.
pub fn write_png(path: &Path, w: u32, h: u32, rgb: &[u8]) -> io::Result<()> {
    if rgb.len() as u64 != u64::from(w) * u64::from(h) * 3 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} bytes is not a {w}×{h} RGB image", rgb.len()),
        ));
    }
    let file = std::fs::File::create(path)?;
    let mut enc = png::Encoder::new(io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let to_io = |e: png::EncodingError| match e {
        png::EncodingError::IoError(e) => e,
        e => io::Error::other(e.to_string()),
    };
    let mut writer = enc.write_header().map_err(to_io)?;
    writer.write_image_data(rgb).map_err(to_io)?;
    writer.finish().map_err(to_io)
}

/// Render `spec` from `array` and write it.
pub fn write_image(array: &EmcArray, spec: &ImageSpec) -> io::Result<()> {
    write_image_at(array, spec.kind, &spec.path)
}

/// Render `kind` from `array` and write it at `path`.
pub fn write_image_at(array: &EmcArray, kind: ImageKind, path: &Path) -> io::Result<()> {
    let rgb = render(array, kind);
    write_png(path, IMAGE_DIM as u32, IMAGE_DIM as u32, &rgb)
}
