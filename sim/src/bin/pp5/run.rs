//! `pp5 run`: a command stream (and a second one for the BS port) run on the board.

use crate::common::{load_microcode, load_stream, Common};
use crate::files::{check_distinct, run_outputs};
use crate::{input, Fail, EXIT_USAGE};
use clap::Args;
use pp5_sim::asm::microcode::McImage;
use pp5_sim::stream::Stream;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct RunArgs {
    /// The stream file: messages for the IGC port (and, after `message bs`, the BS port).
    stream: PathBuf,
    /// A second stream whose messages all go to the BS port (each starts with
    /// `message bs`); it is interleaved with the first by arrival times (`at=`).
    #[arg(long)]
    bs: Option<PathBuf>,
    /// Write the messages the board sent onto the Ring to this file, in the binary Ring
    /// format (`pp5 stream FILE` prints them).
    #[arg(long)]
    tx_out: Option<PathBuf>,
    #[command(flatten)]
    common: Common,
    /// Write a VCD waveform (and a .gtkw beside it).
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// Write an FST waveform (and a .gtkw beside it).
    #[arg(long)]
    fst: Option<PathBuf>,
}

/// A stream that may be sent to the board (no messages the board sent, `--tx-out` files).
fn load_sendable(path: &Path, image: &McImage) -> Result<Stream, Fail> {
    let s = load_stream(path, image)?;
    s.check_sendable(&path.display().to_string())
        .map_err(|e| input(e.to_string()))?;
    Ok(s)
}

/// `--bs FILE`: a stream all of whose messages go to the BS port.
fn load_bs(path: &Path, image: &McImage) -> Result<Stream, Fail> {
    let b = load_sendable(path, image)?;
    if let Some(m) = b
        .messages
        .iter()
        .find(|m| m.port != pp5_sim::stream::Port::Bs)
    {
        return Err(input(format!(
            "{}:{}: --bs takes messages for the BS port only; this one goes to the {} port (start it with `message bs`)",
            path.display(),
            m.line,
            m.port
        )));
    }
    Ok(b)
}

/// Run `pp5 run`.
pub fn run(args: RunArgs) -> Result<u8, Fail> {
    let RunArgs {
        stream,
        bs,
        tx_out,
        common,
        vcd,
        fst,
    } = args;
    let image = load_microcode(&common.microcode)?;
    let mut s = load_sendable(&stream, &image)?;
    if let Some(bs) = &bs {
        s.append(load_bs(bs, &image)?);
    }
    if vcd.is_some() && fst.is_some() {
        return Err(Fail(EXIT_USAGE, "choose one of --vcd and --fst".into()));
    }
    let wave = vcd.clone().or(fst.clone());
    let mut inputs: Vec<&Path> = vec![&stream];
    inputs.extend(bs.as_deref());
    inputs.extend(common.microcode.iter().map(PathBuf::as_path));
    let mut outputs = run_outputs(&common, wave.as_deref(), vcd.is_some());
    outputs.extend(tx_out.clone().map(|p| ("--tx-out", p)));
    check_distinct(&inputs, &outputs)?;
    crate::simulate::simulate(&s, &common, wave, &image, tx_out.as_deref())
}
