//! The CLI's files: no output may be one of the inputs, and no two outputs may be the same
//! file (an output written over an input destroyed it; two outputs in one file interleave).
//! Files that exist and are not regular (`/dev/null`, a FIFO) are exempt.

use crate::common::Common;
use crate::{io_fail, Fail};
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
                2,
                format!(
                    "{what} {} is the input {}: writing it would destroy it",
                    p.display(),
                    input.display()
                ),
            ));
        }
        if let Some((other, _, _)) = seen.iter().find(|(_, _, i)| *i == id) {
            return Err(Fail(
                2,
                format!("{what} {} and {other} are the same file", p.display()),
            ));
        }
        seen.push((what, p, id));
    }
    Ok(())
}

/// The files a run writes besides `--tx-out`: the waveform and its `.gtkw`, the memory dump,
/// the images.
pub fn run_outputs(
    common: &Common,
    wave: Option<&Path>,
    vcd: bool,
) -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    if let Some(w) = wave {
        out.push((if vcd { "--vcd" } else { "--fst" }, w.to_path_buf()));
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
