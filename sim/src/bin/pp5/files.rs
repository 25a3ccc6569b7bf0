//! The CLI's files, checked before any work: no output may be one of the inputs, and no two
//! outputs may be the same file (an output written over an input destroyed it; two outputs in
//! one file interleave); an output's extension says what its flag writes; every output can be
//! written. Files that exist and are not regular (`/dev/null`, a FIFO) are exempt from the
//! first two checks.

use crate::common::Common;
use crate::{io_fail, Fail, EXIT_USAGE};
use std::path::{Path, PathBuf};

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

/// Check the outputs before the work that makes them: [`check_distinct`], the extensions of
/// the waveform (`--vcd`, `--fst`, `--wave`) and image (`--image`) flags
/// ([`check_extension`]), then every output can be written ([`check_writable`]).
pub fn check_outputs(inputs: &[&Path], outputs: &[(&str, PathBuf)]) -> Result<(), Fail> {
    check_distinct(inputs, outputs)?;
    for (flag, p) in outputs {
        match *flag {
            "--vcd" => check_extension(flag, p, &["vcd"])?,
            "--fst" => check_extension(flag, p, &["fst"])?,
            "--wave" => check_extension(flag, p, &["vcd", "fst"])?,
            "--image" => check_extension(flag, p, &["png"])?,
            _ => {}
        }
    }
    check_writable(outputs)
}

/// Every output can be written: its directory exists and takes a file (exit code 1 naming
/// the file, as a failed write).
pub fn check_writable(outputs: &[(&str, PathBuf)]) -> Result<(), Fail> {
    for (_, p) in outputs {
        pp5_sim::out_file::OutFile::new(p)
            .check()
            .map_err(io_fail)?;
    }
    Ok(())
}

/// Refuse (usage error, exit code 2) an output that is an input or the same file as another
/// output. `outputs` are (what it is, e.g. `--vcd`, path).
pub fn check_distinct(inputs: &[&Path], outputs: &[(&str, PathBuf)]) -> Result<(), Fail> {
    let ins: Vec<(&Path, FileId)> = inputs
        .iter()
        .filter_map(|p| identity(p).map(|id| (*p, id)))
        .collect();
    let mut seen: Vec<(&str, &Path, FileId)> = Vec::new();
    for (what, p) in outputs {
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
        seen.push((what, p, id));
    }
    Ok(())
}

/// The files a run writes besides `--tx-out`: the waveform (named by its flag) and its
/// `.gtkw`, the memory dump, the images.
pub fn run_outputs(
    common: &Common,
    wave: Option<(&'static str, &Path)>,
) -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    if let Some((flag, w)) = wave {
        out.push((flag, w.to_path_buf()));
        out.push(("the .gtkw", w.with_extension("gtkw")));
    }
    out.extend(common.dump_mem.clone().map(|p| ("--dump-mem", p)));
    out.extend(common.image.iter().map(|i| ("--image", i.path.clone())));
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
/// exits 1 naming it.
pub fn streams_dir(dir: &Path) -> Result<(), Fail> {
    if dir.exists() && !dir.is_dir() {
        return Err(Fail(
            crate::EXIT_IO,
            format!("{}: not a directory", dir.display()),
        ));
    }
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir(dir).map_err(|e| Fail(crate::EXIT_IO, format!("{}: {e}", dir.display())))
}
