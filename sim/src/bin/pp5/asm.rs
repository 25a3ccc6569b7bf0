//! `pp5 asm`: assemble microcode, write its image and C header, print its opcode table.

use crate::common::load_microcode_sources;
use crate::files::{check_outputs, noted, write_or_print, Output};
use crate::{Fail, EXIT_IO, EXIT_USAGE};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct AsmArgs {
    /// Microcode sources (.pp5uc), assembled together in the order given as `pp5 run
    /// --microcode` does (a user's copy of standard.pp5uc, then qee.pp5uc, flow.pp5uc, ...);
    /// the built-in standard + qee + flow microcode if omitted.
    source: Vec<PathBuf>,
    /// Image file to write.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also write a C header with I_/P_/Ix_ macros (our igc_opcodes.h).
    #[arg(long)]
    header: Option<PathBuf>,
    /// Write a listing: per store address the encoded words, the routine and offset, the
    /// source file:line and text, and under each flow-control construct its lowered form.
    #[arg(long, value_name = "FILE")]
    listing: Option<PathBuf>,
}

/// The files `pp5 asm` writes.
pub fn outputs(a: &AsmArgs) -> Vec<Output> {
    [
        ("output", &a.output),
        ("header", &a.header),
        ("listing", &a.listing),
    ]
    .into_iter()
    .filter_map(|(id, p)| p.clone().map(|p| Output::new("asm", id, p)))
    .collect()
}

/// Run `pp5 asm`.
pub fn run(args: AsmArgs) -> Result<u8, Fail> {
    let outputs = outputs(&args);
    let AsmArgs {
        source,
        output,
        header,
        listing,
    } = args;
    let inputs: Vec<&Path> = source.iter().map(PathBuf::as_path).collect();
    check_outputs(&inputs, &outputs)?;
    let (image, sources) = load_microcode_sources(source.as_slice())?;
    // From here a failure takes back the outputs already written.
    let noted = noted(&outputs);
    if let Some(l) = &listing {
        let Some(src) = &sources else {
            return Err(Fail(
                EXIT_USAGE,
                "--listing needs microcode sources (.pp5uc), not an image (.json)".into(),
            ));
        };
        let text = pp5_sim::asm::listing::listing(&image, &src.map, &src.parts);
        write_or_print(Some(l), &text)?;
        errln!("listing: {}", l.display());
    }
    if let Some(o) = &output {
        let json =
            serde_json::to_string_pretty(&image).map_err(|e| Fail(EXIT_IO, e.to_string()))?;
        write_or_print(Some(o), &json)?;
        errln!(
            "image: {} ({} microinstructions, {} store words)",
            o.display(),
            image.uinsts,
            image.words.len()
        );
    }
    if let Some(h) = &header {
        write_or_print(Some(h), &pp5_sim::asm::header::c_header(&image.table))?;
    }
    noted.keep();
    out!("{}", pp5_sim::asm::header::table_text(&image));
    Ok(0)
}
