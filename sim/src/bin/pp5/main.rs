//! `pp5`: the command-line front end of pp5-rtl.
//!
//! Exit codes (for scripts): 0 success; 1 I/O or internal error; 2 usage error; 3 bad input
//! (stream, microcode or file); 4 simulated hardware error (error bits set, IGC stuck);
//! 5 the cycle limit stopped the run; 130 interrupted.
//!
//! One file per subcommand (`demo`, `run`, `asm`, `stream`, `render`, `bench`); `common` holds
//! the options and input loading `demo` and `run` share, `simulate` their run and its outputs,
//! `files` the checks on output files, `stdout` printing to a pipe that may close, `interrupt`
//! the stop signals.

/// Print to standard output through [`stdout::write`] (`?` on its error: an I/O error other
/// than a closed pipe).
macro_rules! out {
    ($($t:tt)*) => { crate::stdout::write(format_args!($($t)*))? };
}

/// [`out!`] with a newline.
macro_rules! outln {
    ($($t:tt)*) => { crate::stdout::write(format_args!("{}\n", format_args!($($t)*)))? };
}

/// Print a line to standard error; if it cannot be written (closed), there is no one to tell.
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($t)*);
    }};
}

mod asm;
mod bench;
mod common;
mod demo;
mod files;
mod interrupt;
mod render;
mod run;
mod simulate;
mod stdout;
mod stream;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

const EXIT_IO: u8 = pp5_sim::exit::IO;
const EXIT_INPUT: u8 = pp5_sim::exit::INPUT;
const EXIT_HW_ERROR: u8 = pp5_sim::exit::HW_ERROR;
/// A usage error: arguments that contradict each other or the files they name.
const EXIT_USAGE: u8 = 2;

#[derive(Parser)]
#[command(name = "pp5", version, about = "Cycle-accurate signal-level model of the Pixel-Planes 5 Renderer", long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the built-in example stream and write a waveform plus a GTKWave save file.
    Demo(demo::DemoArgs),
    /// Run a command stream (text .pp5s or binary Ring messages) on both Ring ports.
    Run(run::RunArgs),
    /// Assemble IGC microcode: write the image (JSON) and print the opcode table.
    Asm(asm::AsmArgs),
    /// Assemble a text stream to binary Ring messages, or disassemble binary to text.
    Stream(stream::StreamArgs),
    /// Render a scene (an OBJ file or a built-in one) on a simulated system of up to 16
    /// Renderers: the frame as a PNG and its timing study.
    Render(render::RenderArgs),
    /// Measure simulated cycles per second, tracing off and with a VCD, in one run, and
    /// whether a second core is free (two untraced runs at once).
    Bench(bench::BenchArgs),
}

/// An error with its exit code.
struct Fail(u8, String);

/// An I/O error (exit code 1); errors from [`pp5_sim::out_file`] already name their file.
fn io_fail(e: std::io::Error) -> Fail {
    Fail(EXIT_IO, e.to_string())
}

/// Bad input (exit code 3).
fn input(msg: impl Into<String>) -> Fail {
    Fail(EXIT_INPUT, msg.into())
}

/// Run the subcommand; its exit code.
fn dispatch(cmd: Cmd) -> Result<u8, Fail> {
    match cmd {
        Cmd::Demo(args) => demo::run(args),
        Cmd::Run(args) => run::run(args),
        Cmd::Asm(args) => asm::run(args),
        Cmd::Stream(args) => stream::run(args),
        Cmd::Render(args) => render::run(args),
        Cmd::Bench(args) => bench::run(args),
    }
}

fn main() -> ExitCode {
    interrupt::survive_file_size_limit();
    let cli = Cli::parse();
    match dispatch(cli.cmd) {
        Ok(code) => ExitCode::from(code),
        Err(Fail(code, msg)) => {
            errln!("pp5: {msg}");
            ExitCode::from(code)
        }
    }
}
