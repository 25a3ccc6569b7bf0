//! The CLI's files: no output may be one of the inputs, and no two outputs may be the same
//! file (an output written over an input destroyed it; two outputs in one file interleave).
//! Files that exist and are not regular (`/dev/null`, a FIFO) are exempt.

use crate::Fail;
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
