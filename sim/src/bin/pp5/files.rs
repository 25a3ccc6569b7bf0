//! The CLI's files, checked before any work: no output may be one of the inputs, and no two
//! outputs may be the same file (an output written over an input destroyed it; two outputs in
//! one file interleave); an output's extension says what its flag writes; every output can be
//! written. Files that exist and are not regular (`/dev/null`, a FIFO) are exempt from the
//! first two checks.
//!
//! [`OUTPUT_OPTIONS`] lists every option that makes a subcommand write a file, and
//! [`INPUT_OPTIONS`] every one that names a file it reads: the unit tests in `main.rs` walk the
//! CLI's definition and fail for an option that names a file and is in neither, and try every
//! output option against every input and every other output.

use crate::common::Common;
use crate::{io_fail, Fail, EXIT_USAGE};
use std::path::{Path, PathBuf};

/// An option that makes its subcommand write a file (or files into a directory).
pub struct OutputOption {
    /// The subcommand.
    pub sub: &'static str,
    /// The argument's id in the CLI's definition (the field's name).
    pub id: &'static str,
    /// The option as messages name it.
    pub flag: &'static str,
    /// The extensions (without the dot, any case) its file must have; empty: any name.
    pub extensions: &'static [&'static str],
}

const fn out(
    sub: &'static str,
    id: &'static str,
    flag: &'static str,
    extensions: &'static [&'static str],
) -> OutputOption {
    OutputOption {
        sub,
        id,
        flag,
        extensions,
    }
}

const WAVE: &[&str] = &["vcd", "fst"];
const PNG: &[&str] = &["png"];

/// Every option that makes a subcommand write files: each goes through [`check_outputs`]
/// (the `.gtkw` beside a waveform and the files in a `--save-streams` directory under the
/// option that makes them).
pub const OUTPUT_OPTIONS: &[OutputOption] = &[
    out("demo", "wave", "--wave", WAVE),
    out("demo", "dump_mem", "--dump-mem", &[]),
    out("demo", "image", "--image", PNG),
    out("demo", "coverage", "--coverage", &[]),
    out("demo", "annotate", "--annotate", &[]),
    out("run", "vcd", "--vcd", &["vcd"]),
    out("run", "fst", "--fst", &["fst"]),
    out("run", "tx_out", "--tx-out", &[]),
    out("run", "dump_mem", "--dump-mem", &[]),
    out("run", "image", "--image", PNG),
    out("run", "coverage", "--coverage", &[]),
    out("run", "annotate", "--annotate", &[]),
    out("asm", "output", "-o", &[]),
    out("asm", "header", "--header", &[]),
    out("asm", "listing", "--listing", &[]),
    out("stream", "output", "-o", &[]),
    out("render", "output", "-o", PNG),
    out("render", "wave", "--wave", WAVE),
    out("render", "system_wave", "--system-wave", WAVE),
    out("render", "timeline", "--timeline", &["svg"]),
    out("render", "coverage", "--coverage", &[]),
    out("render", "save_streams", "--save-streams", &[]),
    out("bench", "save_streams", "--save-streams", &[]),
];

/// Every option (subcommand, argument id) that names a file a subcommand reads (for the unit
/// tests: each command lists its inputs itself).
#[cfg(test)]
pub const INPUT_OPTIONS: &[(&str, &str)] = &[
    ("demo", "microcode"),
    ("run", "stream"),
    ("run", "bs"),
    ("run", "microcode"),
    ("asm", "source"),
    ("stream", "input"),
    ("stream", "microcode"),
    ("render", "obj"),
];

/// The entry of [`OUTPUT_OPTIONS`] for option `id` of subcommand `sub` (one that is missing
/// is a mistake of this program: the unit tests find it).
pub fn output_option(sub: &str, id: &str) -> &'static OutputOption {
    OUTPUT_OPTIONS
        .iter()
        .find(|o| o.sub == sub && o.id == id)
        .unwrap_or_else(|| panic!("{sub} {id} is not in OUTPUT_OPTIONS"))
}

/// A file a command writes: the option that makes it, what messages call it, its path.
pub struct Output {
    pub option: &'static OutputOption,
    /// The option's flag for the file it names, else what the file is to it (`--vcd's .gtkw`).
    pub what: String,
    pub path: PathBuf,
}

impl Output {
    /// The file option `id` of `sub` names.
    pub fn new(sub: &str, id: &str, path: PathBuf) -> Output {
        let option = output_option(sub, id);
        Output {
            option,
            what: option.flag.to_string(),
            path,
        }
    }

    /// A file option `id` of `sub` makes beside the one it names: `what` it is to it.
    pub fn beside(sub: &str, id: &str, what: &str, path: PathBuf) -> Output {
        let option = output_option(sub, id);
        Output {
            option,
            what: format!("{}'s {what}", option.flag),
            path,
        }
    }

    /// A waveform (option `id` of `sub`) and its `.gtkw`.
    pub fn wave(sub: &str, id: &str, path: &Path) -> [Output; 2] {
        [
            Output::new(sub, id, path.to_path_buf()),
            Output::beside(sub, id, ".gtkw", path.with_extension("gtkw")),
        ]
    }

    /// The file the option names (not one made beside it).
    fn named_by_option(&self) -> bool {
        self.what == self.option.flag
    }
}

/// Note every output in `outputs` before the work that writes them
/// ([`pp5_sim::out_file::Outputs`]): on a failure they are taken back together.
pub fn noted(outputs: &[Output]) -> pp5_sim::out_file::Outputs {
    let mut noted = pp5_sim::out_file::Outputs::new();
    for o in outputs {
        noted.note(&o.path);
    }
    noted
}

/// What identifies a file: its device and inode when it exists, else its absolute path.
#[derive(PartialEq, Eq)]
enum FileId {
    Inode(u64, u64),
    Path(PathBuf),
}

/// `None` for a path that exists and is not a regular file.
fn identity(p: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(p) {
        Ok(m) if m.is_file() => Some(FileId::Inode(m.dev(), m.ino())),
        Ok(_) => None,
        Err(_) => {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
            let dir = dir.map_or_else(|| std::env::current_dir().ok(), |d| d.canonicalize().ok());
            let name = p.file_name()?;
            Some(FileId::Path(dir.unwrap_or_default().join(name)))
        }
    }
}

/// Check the outputs before the work that makes them: [`check_distinct`], the extensions
/// [`OUTPUT_OPTIONS`] gives ([`check_extension`]), then every output can be written
/// ([`check_writable`]).
pub fn check_outputs(inputs: &[&Path], outputs: &[Output]) -> Result<(), Fail> {
    check_distinct(inputs, outputs)?;
    check_extensions(outputs)?;
    check_writable(outputs)
}

/// [`check_extension`] of every file an option names, by its entry in [`OUTPUT_OPTIONS`].
pub fn check_extensions(outputs: &[Output]) -> Result<(), Fail> {
    for o in outputs {
        if o.named_by_option() && !o.option.extensions.is_empty() {
            check_extension(&o.what, &o.path, o.option.extensions)?;
        }
    }
    Ok(())
}

/// Every output can be written: its directory exists and takes a file, and it is not a
/// directory or a full device (exit code 1 naming the file, as a failed write).
pub fn check_writable(outputs: &[Output]) -> Result<(), Fail> {
    for o in outputs {
        pp5_sim::out_file::OutFile::new(&o.path)
            .check()
            .map_err(io_fail)?;
    }
    Ok(())
}

/// Refuse (usage error, exit code 2) an output that is an input or the same file as another
/// output; the message names the options.
pub fn check_distinct(inputs: &[&Path], outputs: &[Output]) -> Result<(), Fail> {
    let ins: Vec<(&Path, FileId)> = inputs
        .iter()
        .filter_map(|p| identity(p).map(|id| (*p, id)))
        .collect();
    let mut seen: Vec<(&str, &Path, FileId)> = Vec::new();
    for Output { what, path: p, .. } in outputs {
        let Some(id) = identity(p) else { continue };
        if let Some((input, _)) = ins.iter().find(|(_, i)| *i == id) {
            return Err(Fail(
                EXIT_USAGE,
                format!(
                    "{what} {} is the input {}: writing it would destroy it",
                    p.display(),
                    input.display()
                ),
            ));
        }
        if let Some((other, _, _)) = seen.iter().find(|(_, _, i)| *i == id) {
            return Err(Fail(
                EXIT_USAGE,
                format!("{what} {} and {other} are the same file", p.display()),
            ));
        }
        seen.push((what.as_str(), p, id));
    }
    Ok(())
}

/// The files a run of `sub` (`run` or `demo`) writes besides `--tx-out`: the waveform (the
/// option `wave` names) and its `.gtkw`, the memory dump, the images, the coverage, the
/// annotated listing.
pub fn run_outputs(sub: &str, common: &Common, wave: Option<(&str, &Path)>) -> Vec<Output> {
    let mut out = Vec::new();
    if let Some((id, w)) = wave {
        out.extend(Output::wave(sub, id, w));
    }
    out.extend((common.dump_mem.iter()).map(|p| Output::new(sub, "dump_mem", p.clone())));
    out.extend((common.image.iter()).map(|i| Output::new(sub, "image", i.path.clone())));
    out.extend((common.coverage.iter()).map(|p| Output::new(sub, "coverage", p.clone())));
    // `--annotate` alone (`-`) prints it.
    out.extend(
        (common.annotate.iter())
            .filter(|p| p.as_os_str() != "-")
            .map(|p| Output::new(sub, "annotate", p.clone())),
    );
    out
}

/// Write `text` to `path` (whole or not at all), or print it when no path is given.
pub fn write_or_print(path: Option<&Path>, text: &str) -> Result<(), Fail> {
    match path {
        Some(p) => pp5_sim::out_file::write(p, text).map_err(io_fail),
        None => {
            out!("{text}");
            Ok(())
        }
    }
}

/// Refuse (usage error, exit code 2) an output whose extension is not one of `extensions`
/// (without the dot, any case): `--vcd x.fst`, `--fst trace`, `--image x.jpg` would write one
/// format under another's name. A path that exists and is not a regular file (`/dev/null`, a
/// FIFO) has no extension to agree with and is taken as it is.
pub fn check_extension(flag: &str, path: &Path, extensions: &[&str]) -> Result<(), Fail> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Ok(());
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)) {
        return Ok(());
    }
    let want: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
    let has = if ext.is_empty() {
        "has no extension".to_string()
    } else {
        format!("ends in .{ext}")
    };
    Err(Fail(
        EXIT_USAGE,
        format!(
            "{flag} {}: the file {has}; {flag} writes a file named *{}",
            path.display(),
            want.join(" or *")
        ),
    ))
}

/// A `--save-streams` directory, as `render` and `bench` both take it: made when missing,
/// but not its parents (like every other output, it goes into a directory that exists:
/// a mistyped parent is an error, not a new tree); a file in its place is refused. An error
/// exits 1 naming it. A directory made here is noted in `noted` (removed again, when empty,
/// if the command fails).
pub fn streams_dir(dir: &Path, noted: &mut pp5_sim::out_file::Outputs) -> Result<(), Fail> {
    if dir.exists() && !dir.is_dir() {
        return Err(Fail(
            crate::EXIT_IO,
            format!("{}: not a directory", dir.display()),
        ));
    }
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir(dir)
        .map_err(|e| Fail(crate::EXIT_IO, format!("{}: {e}", dir.display())))?;
    noted.made_dir(dir);
    Ok(())
}
