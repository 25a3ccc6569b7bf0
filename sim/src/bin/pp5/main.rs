//! `pp5`: the command-line front end of pp5-rtl.
//!
//! Exit codes (for scripts): 0 success; 1 I/O or internal error; 2 usage error; 3 bad input
//! (stream, microcode or file); 4 simulated hardware error (error bits set, IGC stuck);
//! 5 the cycle limit stopped the run; 6 a deadlock stopped it; 7 the run finished without
//! reaching its breakpoint (`--until`, `--until-cycle`); 130 interrupted.
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

/// The files a command writes, as its subcommand lists them for the output guard.
#[cfg(test)]
fn outputs_of(cmd: &Cmd) -> Vec<files::Output> {
    match cmd {
        Cmd::Demo(a) => demo::outputs(a),
        Cmd::Run(a) => run::outputs(a),
        Cmd::Asm(a) => asm::outputs(a),
        Cmd::Stream(a) => stream::outputs(a),
        Cmd::Render(a) => render::outputs(a),
        Cmd::Bench(a) => bench::outputs(a),
    }
}

/// The output guard against the CLI's definition: every option that names a file is a known
/// input or output ([`files::OUTPUT_OPTIONS`], [`files::INPUT_OPTIONS`]), every output option
/// reaches the guard, and no output may be an input or another output, tried for every pair
/// by running the command (in this process) on real files: a new option cannot be forgotten.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::{INPUT_OPTIONS, OUTPUT_OPTIONS};
    use clap::CommandFactory;
    use std::any::TypeId;
    use std::ffi::OsString;
    use std::path::{Path, PathBuf};

    /// Whether `arg` names a file: its value is a path (or an image spec, `FILE.png=...`), or
    /// its value hint says it is one.
    fn names_a_file(arg: &clap::Arg) -> bool {
        use clap::ValueHint::{AnyPath, DirPath, ExecutablePath, FilePath};
        let ty = arg.get_value_parser().type_id();
        ty == TypeId::of::<PathBuf>()
            || ty == TypeId::of::<pp5_sim::image::ImageSpec>()
            || matches!(
                arg.get_value_hint(),
                AnyPath | DirPath | FilePath | ExecutablePath
            )
    }

    fn subcommand(name: &str) -> clap::Command {
        Cli::command()
            .find_subcommand(name)
            .unwrap_or_else(|| panic!("no subcommand {name}"))
            .clone()
    }

    #[test]
    fn every_option_that_names_a_file_is_a_known_input_or_output() {
        let cli = Cli::command();
        let mut subs = Vec::new();
        for sub in cli.get_subcommands() {
            let name = sub.get_name();
            subs.push(name.to_string());
            for arg in sub.get_arguments() {
                let id = arg.get_id().as_str();
                let is_out = OUTPUT_OPTIONS.iter().any(|o| o.sub == name && o.id == id);
                let is_in = INPUT_OPTIONS.contains(&(name, id));
                if names_a_file(arg) {
                    assert!(
                        is_out != is_in,
                        "`pp5 {name}`'s option {id} names a file: list it in exactly one of \
                         files::OUTPUT_OPTIONS (the output guard) and files::INPUT_OPTIONS"
                    );
                } else {
                    assert!(!is_out && !is_in, "{name} {id} names no file");
                }
            }
        }
        // No entry names an option the CLI does not have.
        let known = |sub: &str, id: &str| {
            subcommand(sub)
                .get_arguments()
                .any(|a| a.get_id().as_str() == id)
        };
        for o in OUTPUT_OPTIONS {
            assert!(known(o.sub, o.id), "{} {}", o.sub, o.id);
            let arg = subcommand(o.sub)
                .get_arguments()
                .find(|a| a.get_id().as_str() == o.id)
                .cloned()
                .expect("arg");
            let flag = match (arg.get_long(), arg.get_short()) {
                (_, Some(c)) => format!("-{c}"),
                (Some(l), None) => format!("--{l}"),
                _ => panic!("{} {}: an output is an option", o.sub, o.id),
            };
            assert_eq!(flag, o.flag, "{} {}", o.sub, o.id);
        }
        for (sub, id) in INPUT_OPTIONS {
            assert!(known(sub, id), "{sub} {id}");
        }
        assert_eq!(subs, ["demo", "run", "asm", "stream", "render", "bench"]);
    }

    /// A scratch directory, removed at the end.
    struct Dir(PathBuf);

    impl Dir {
        fn new(name: &str) -> Dir {
            let d = std::env::temp_dir().join(format!("pp5-guard-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).expect("scratch");
            Dir(d)
        }
        fn path(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const MICROCODE: [&str; 3] = [
        include_str!("../../../microcode/standard.pp5uc"),
        include_str!("../../../microcode/qee.pp5uc"),
        include_str!("../../../microcode/flow.pp5uc"),
    ];
    const STREAM: &str = "SETENABS\nCLEAR 0 8\nINC 0 0 8\n";
    const BS_STREAM: &str = "message bs\nBS_PBS\n";
    const OBJ: &str = "mtllib t.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n";
    const MTL: &str = "newmtl red\nKd 1 0 0\n";

    /// The value an output option is given (in `d`): a name its extension check takes.
    fn output_value(sub: &str, id: &str) -> &'static str {
        match (sub, id) {
            (_, "vcd" | "wave") => "w.vcd",
            (_, "fst") => "w.fst",
            (_, "system_wave") => "sys.vcd",
            (_, "timeline") => "t.svg",
            (_, "image") => "i.png",
            (_, "save_streams") => "streams",
            ("render", "output") => "f.png",
            (_, "output") => "o.bin",
            (_, "header") => "h.h",
            (_, "listing") => "l.lst",
            (_, "coverage") => "c.info",
            (_, "annotate") => "a.txt",
            (_, "dump_mem") => "m.bin",
            (_, "tx_out") => "tx.bin",
            _ => panic!("no value for {sub} {id}: add one"),
        }
    }

    /// The command line of `sub` that reads its inputs from `d` (input `id` replaced by a
    /// file at the path `input` holds, where given) and writes the outputs `outs` (option
    /// id, path); an output left out that would go to the current directory by default is
    /// sent into `d` too.
    fn command_line(
        d: &Dir,
        sub: &str,
        input: Option<(&str, &Path)>,
        outs: &[(&str, PathBuf)],
    ) -> Vec<OsString> {
        let file = |id: &str, name: &str, text: &str| -> PathBuf {
            match input {
                Some((i, p)) if i == id => p.to_path_buf(),
                _ => {
                    let p = d.path(name);
                    std::fs::write(&p, text).expect("write input");
                    p
                }
            }
        };
        let mut v: Vec<OsString> = vec!["pp5".into(), sub.into()];
        let mut push = |a: &dyn AsRef<std::ffi::OsStr>| v.push(a.as_ref().to_os_string());
        let microcode = |push: &mut dyn FnMut(&dyn AsRef<std::ffi::OsStr>), flag: bool| {
            let names = ["standard.pp5uc", "qee.pp5uc", "flow.pp5uc"];
            for (k, (name, text)) in names.iter().zip(MICROCODE).enumerate() {
                let p = if k == 0 {
                    file("microcode", name, text)
                } else {
                    let p = d.path(name);
                    std::fs::write(&p, text).expect("write input");
                    p
                };
                if flag {
                    push(&"--microcode");
                }
                push(&p);
            }
        };
        match sub {
            "demo" => microcode(&mut push, true),
            "run" => {
                push(&file("stream", "s.pp5s", STREAM));
                push(&"--bs");
                push(&file("bs", "b.pp5s", BS_STREAM));
                microcode(&mut push, true);
            }
            "asm" => {
                // Its sources are the option `source`.
                let names = ["standard.pp5uc", "qee.pp5uc", "flow.pp5uc"];
                for (k, (name, text)) in names.iter().zip(MICROCODE).enumerate() {
                    let p = if k == 0 {
                        file("source", name, text)
                    } else {
                        let p = d.path(name);
                        std::fs::write(&p, text).expect("write input");
                        p
                    };
                    push(&p);
                }
            }
            "stream" => {
                push(&file("input", "s.pp5s", STREAM));
                microcode(&mut push, true);
            }
            "render" => {
                let mtl = file("mtl", "t.mtl", MTL);
                let obj = OBJ.replace("t.mtl", &mtl.display().to_string());
                push(&file("obj", "t.obj", &obj));
                for a in ["--screen", "128x128", "--renderers", "1"] {
                    push(&a);
                }
            }
            "bench" => {
                for a in [
                    "--reps",
                    "1",
                    "--runs",
                    "1",
                    "--warmup",
                    "0",
                    "--render=false",
                ] {
                    push(&a);
                }
            }
            _ => panic!("no command line for {sub}"),
        }
        let given = |id: &str| outs.iter().any(|(o, _)| *o == id);
        let mut outs = outs.to_vec();
        for (s, id) in [("demo", "wave"), ("render", "output")] {
            if sub == s && !given(id) {
                outs.push((id, d.path(output_value(sub, id))));
            }
        }
        for (id, path) in &outs {
            let o = files::output_option(sub, id);
            if *id == "annotate" {
                // Its FILE goes after `=` (`--annotate` alone prints).
                push(&format!("--annotate={}", path.display()));
                continue;
            }
            push(&o.flag);
            if *id == "image" {
                push(&format!("{}=enable", path.display()));
            } else {
                push(path);
            }
            if (sub, *id) == ("render", "wave") {
                push(&"--region");
                push(&"0,0");
            }
        }
        v
    }

    fn parse(args: &[OsString]) -> Cmd {
        match Cli::try_parse_from(args) {
            Ok(cli) => cli.cmd,
            Err(e) => panic!("{args:?}: {e}"),
        }
    }

    /// The files output option `id` of `sub` makes, given the path `value`.
    fn made_by(d: &Dir, sub: &str, id: &str, value: &Path) -> Vec<PathBuf> {
        let cmd = parse(&command_line(d, sub, None, &[(id, value.to_path_buf())]));
        let made: Vec<PathBuf> = outputs_of(&cmd)
            .into_iter()
            .filter(|o| o.option.sub == sub && o.option.id == id)
            .map(|o| o.path)
            .collect();
        assert!(
            // A directory's files are in it.
            made.iter().any(|p| p == value || p.parent() == Some(value)),
            "`pp5 {sub}` does not give the file of {id} to the output guard: {made:?}"
        );
        made
    }

    /// The inputs of `sub` as [`command_line`] names them (render's `.mtl` too).
    fn inputs(sub: &str) -> Vec<&'static str> {
        let mut v: Vec<&str> = (INPUT_OPTIONS.iter())
            .filter(|(s, _)| *s == sub)
            .map(|(_, id)| *id)
            .collect();
        if sub == "render" {
            v.push("mtl");
        }
        v
    }

    /// Run `args` (`pp5 SUB ...`) in this process: it must be refused as a usage error (exit
    /// 2) with `needle` in the message, and `keep` must still hold `text`.
    fn refused(args: &[OsString], needle: &str, keep: &Path, text: &str) {
        let r = dispatch(parse(args));
        match r {
            Err(Fail(EXIT_USAGE, m)) => assert!(m.contains(needle), "{args:?}: {m}"),
            Err(Fail(code, m)) => panic!("{args:?}: exit {code}: {m}"),
            Ok(code) => panic!("{args:?}: not refused (exit {code})"),
        }
        let now = std::fs::read_to_string(keep).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(now, text, "{args:?}: {} was written", keep.display());
    }

    #[test]
    fn no_output_may_be_an_input_or_another_output() {
        let subs: Vec<&str> = OUTPUT_OPTIONS.iter().map(|o| o.sub).collect();
        let mut tried = 0;
        for (k, o) in OUTPUT_OPTIONS.iter().enumerate() {
            let d = Dir::new(&format!("{k}"));
            let value = d.path(output_value(o.sub, o.id));
            let made = made_by(&d, o.sub, o.id, &value);
            for p in &made {
                std::fs::create_dir_all(p.parent().expect("dir")).expect("mkdir");
                // Each input of the subcommand read from this output's file.
                for input in inputs(o.sub) {
                    let text = match input {
                        "microcode" | "source" => MICROCODE[0],
                        "bs" => BS_STREAM,
                        "obj" => OBJ,
                        "mtl" => MTL,
                        _ => STREAM,
                    };
                    std::fs::write(p, text).expect("write");
                    let args = command_line(&d, o.sub, Some((input, p)), &[(o.id, value.clone())]);
                    refused(&args, "would destroy it", p, text);
                    tried += 1;
                }
                // Each other output of the subcommand onto this output's file.
                for other in OUTPUT_OPTIONS.iter().filter(|x| x.sub == o.sub) {
                    if other.id == o.id || other.id == "save_streams" {
                        continue;
                    }
                    std::fs::write(p, "keep").expect("write");
                    let outs = [(o.id, value.clone()), (other.id, p.clone())];
                    let args = command_line(&d, o.sub, None, &outs);
                    // A file made by default only (the demo's pictures without --image).
                    let still_made = outputs_of(&parse(&args))
                        .iter()
                        .any(|x| x.option.id == o.id && x.path == *p);
                    if !still_made {
                        continue;
                    }
                    refused(&args, "", p, "keep");
                    tried += 1;
                }
                let _ = std::fs::remove_file(p);
            }
        }
        assert!(subs.contains(&"bench") && tried > 100, "{tried}");
    }
}
