//! `pp5 demo`: the built-in example stream, written beside its waveform and run.

use crate::common::{load_microcode, Common};
use crate::files::{check_distinct, run_outputs};
use crate::{input, io_fail, Fail};
use clap::Args;
use pp5_sim::image::{ImageKind, ImageSpec};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct DemoArgs {
    /// Waveform to write (.vcd or .fst); a .gtkw is written beside it.
    #[arg(long, default_value = "pp5-demo.vcd")]
    wave: PathBuf,
    #[command(flatten)]
    common: Common,
}

/// The demo's default pictures beside WAVE: the shaded triangles (WAVE.png) and the GCD
/// counts (WAVE-gcd.png).
fn default_images(wave: &Path) -> [ImageSpec; 2] {
    let [r, g, b] = pp5_sim::demo::TRI_FIELDS;
    let stem = wave.file_stem().unwrap_or_default().to_string_lossy();
    [
        ImageSpec {
            path: wave.with_extension("png"),
            kind: ImageKind::Rgb { r, g, b },
        },
        ImageSpec {
            path: wave.with_file_name(format!("{stem}-gcd.png")),
            kind: ImageKind::Grey {
                addr: pp5_sim::demo::GCD_FIELDS[2],
                // The counts stay below 128: 7 bits span the grey scale.
                len: 7,
            },
        },
    ]
}

/// Run `pp5 demo`.
pub fn run(args: DemoArgs) -> Result<u8, Fail> {
    let DemoArgs { wave, mut common } = args;
    let image = load_microcode(&common.microcode)?;
    let stream = pp5_sim::demo::full_demo_stream(&image.table).map_err(input)?;
    if common.image.is_empty() {
        common.image.extend(default_images(&wave));
    }
    let src = wave.with_extension("pp5s");
    let inputs: Vec<&Path> = common.microcode.iter().map(PathBuf::as_path).collect();
    let mut outputs = run_outputs(&common, Some(&wave), true);
    outputs.push(("the demo stream", src.clone()));
    check_distinct(&inputs, &outputs)?;
    pp5_sim::out_file::write(&src, pp5_sim::demo::full_demo_text()).map_err(io_fail)?;
    errln!("demo stream: {} (edit it and `pp5 run` it)", src.display());
    crate::simulate::simulate(&stream, &common, Some(wave), &image, None)
}
