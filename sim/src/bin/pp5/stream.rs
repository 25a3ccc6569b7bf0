//! `pp5 stream`: a text stream assembled to binary Ring messages, or binary disassembled to
//! text.

use crate::common::{load_microcode, load_stream, read_binary_stream, read_input};
use crate::files::{check_outputs, write_or_print, Output};
use crate::{io_fail, Fail, EXIT_USAGE};
use clap::Args;
use pp5_sim::stream::{binary, text};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct StreamArgs {
    /// Input (text or binary, detected by content).
    input: PathBuf,
    /// Output file (default: standard output for text, required for binary).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Microcode whose opcode table names the commands (repeatable, as for `run`;
    /// default: the built-in standard + qee + flow sources).
    #[arg(long)]
    microcode: Vec<PathBuf>,
}

/// The files `pp5 stream` writes.
pub fn outputs(a: &StreamArgs) -> Vec<Output> {
    (a.output.iter())
        .map(|p| Output::new("stream", "output", p.clone()))
        .collect()
}

/// Run `pp5 stream`.
pub fn run(args: StreamArgs) -> Result<u8, Fail> {
    let outputs = outputs(&args);
    let StreamArgs {
        input: inp,
        output,
        microcode,
    } = args;
    let mut inputs: Vec<&Path> = vec![&inp];
    inputs.extend(microcode.iter().map(PathBuf::as_path));
    check_outputs(&inputs, &outputs)?;
    let image = load_microcode(&microcode)?;
    let bytes = read_input(&inp)?;
    if binary::is_binary(&bytes) {
        let s = read_binary_stream(&inp, &bytes)?;
        write_or_print(output.as_deref(), &text::disassemble(&s, &image.table))?;
    } else {
        let s = load_stream(&inp, &image)?;
        let out = output.ok_or_else(|| Fail(EXIT_USAGE, "binary output needs -o FILE".into()))?;
        pp5_sim::out_file::write_buffered(&out, |w| binary::write(&s, w)).map_err(io_fail)?;
        errln!(
            "{}: {} messages, {} words",
            out.display(),
            s.messages.len(),
            s.total_words()
        );
    }
    Ok(0)
}
