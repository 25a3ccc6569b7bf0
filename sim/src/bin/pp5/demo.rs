//! `pp5 demo`: the built-in example stream, written beside its waveform and run.

use crate::common::{load_microcode_sources, Common};
use crate::files::{check_outputs, noted, run_outputs, Output};
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

/// The files `pp5 demo` writes: its stream beside the waveform (written first), the
/// waveform and its `.gtkw`, the pictures (the default ones beside the waveform), the memory
/// dump and the coverage.
pub fn outputs(a: &DemoArgs) -> Vec<Output> {
    let stream = a.wave.with_extension("pp5s");
    let mut out = vec![Output::beside("demo", "wave", "demo stream", stream)];
    out.extend(run_outputs("demo", &a.common, Some(("wave", &a.wave))));
    if a.common.image.is_empty() {
        out.extend(
            default_images(&a.wave)
                .map(|i| Output::beside("demo", "wave", "default picture", i.path)),
        );
    }
    out
}

/// Run `pp5 demo`.
pub fn run(args: DemoArgs) -> Result<u8, Fail> {
    let outputs = outputs(&args);
    let inputs: Vec<&Path> = args.common.microcode.iter().map(PathBuf::as_path).collect();
    check_outputs(&inputs, &outputs)?;
    let DemoArgs { wave, mut common } = args;
    let (image, sources) = load_microcode_sources(&common.microcode)?;
    let stream = pp5_sim::demo::full_demo_stream(&image.table).map_err(input)?;
    if common.image.is_empty() {
        common.image.extend(default_images(&wave));
    }
    // From here a failure takes back the outputs already written.
    let noted = noted(&outputs);
    let src = wave.with_extension("pp5s");
    pp5_sim::out_file::write(&src, pp5_sim::demo::full_demo_text()).map_err(io_fail)?;
    errln!("demo stream: {} (edit it and `pp5 run` it)", src.display());
    let code = crate::simulate::simulate(
        &stream,
        &common,
        Some(wave),
        (&image, sources.as_ref()),
        None,
    )?;
    noted.keep();
    Ok(code)
}
