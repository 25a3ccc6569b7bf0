//! `pp5 asm`: assemble microcode, write its image and C header, print its opcode table.

use crate::common::load_microcode;
use crate::files::{check_distinct, write_or_print};
use crate::{Fail, EXIT_IO};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct AsmArgs {
    /// Microcode source (.pp5uc); the standard microcode if omitted.
    source: Option<PathBuf>,
    /// Image file to write.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also write a C header with I_/P_/Ix_ macros (our igc_opcodes.h).
    #[arg(long)]
    header: Option<PathBuf>,
}

/// Run `pp5 asm`.
pub fn run(args: AsmArgs) -> Result<u8, Fail> {
    let AsmArgs {
        source,
        output,
        header,
    } = args;
    let inputs: Vec<&Path> = source.iter().map(PathBuf::as_path).collect();
    let outputs: Vec<(&str, PathBuf)> = [("-o", &output), ("--header", &header)]
        .into_iter()
        .filter_map(|(w, p)| p.clone().map(|p| (w, p)))
        .collect();
    check_distinct(&inputs, &outputs)?;
    let image = load_microcode(source.as_slice())?;
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
    out!("{}", pp5_sim::asm::header::table_text(&image));
    Ok(0)
}
