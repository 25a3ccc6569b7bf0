//! `pp5 run`: a command stream (and a second one for the BS port) run on the board.

use crate::common::{load_microcode_sources, load_stream, Common};
use crate::files::{check_outputs, noted, run_outputs, Output};
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

/// The files `pp5 run` reads: the stream, the `--bs` stream, the microcode.
pub fn inputs(a: &RunArgs) -> Vec<PathBuf> {
    let mut inputs = vec![a.stream.clone()];
    inputs.extend(a.bs.clone());
    inputs.extend(a.common.microcode.iter().cloned());
    inputs
}

/// The files `pp5 run` writes.
pub fn outputs(a: &RunArgs) -> Vec<Output> {
    let mut out = Vec::new();
    for (id, wave) in [("vcd", &a.vcd), ("fst", &a.fst)] {
        if let Some(w) = wave {
            out.extend(Output::wave("run", id, w));
        }
    }
    out.extend(run_outputs("run", &a.common, None));
    out.extend(
        a.tx_out
            .iter()
            .map(|p| Output::new("run", "tx_out", p.clone())),
    );
    out
}

/// Run `pp5 run`.
pub fn run(args: RunArgs) -> Result<u8, Fail> {
    if args.vcd.is_some() && args.fst.is_some() {
        return Err(Fail(EXIT_USAGE, "choose one of --vcd and --fst".into()));
    }
    let inputs = inputs(&args);
    let outputs = outputs(&args);
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    check_outputs(&inputs, &outputs)?;
    let RunArgs {
        stream,
        bs,
        tx_out,
        common,
        vcd,
        fst,
    } = args;
    let (image, sources) = load_microcode_sources(&common.microcode)?;
    let mut s = load_sendable(&stream, &image)?;
    if let Some(bs) = &bs {
        s.append(load_bs(bs, &image)?);
    }
    // From here a failure takes back the outputs already written.
    let noted = noted(&outputs);
    let code = crate::simulate::simulate(
        &s,
        &common,
        vcd.or(fst),
        (&image, sources.as_ref()),
        tx_out.as_deref(),
    )?;
    noted.keep();
    Ok(code)
}
