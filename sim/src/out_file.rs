//! Output files written whole or not at all.
//!
//! Every file the simulator writes (waveforms, `.gtkw`, PNG, memory dumps, streams, images,
//! reports) is written under a temporary name beside it (`.NAME.PID.partial`) and renamed
//! onto its name once complete. A write that fails (full disk, an error of the run, a
//! second Ctrl-C) leaves no file under the name that looks complete: the temporary file is
//! removed on every error path, and a process killed outright leaves only a `.partial` file.
//!
//! A path that exists and is not a regular file (`/dev/null`, `/dev/full`, a FIFO) is written
//! as it is: renaming onto it would replace the device or the pipe. A symbolic link to a
//! regular file keeps its link: the temporary file is made beside the file it points to.
//!
//! A process killed outright leaves its `.NAME.PID.partial`: the next complete write of NAME
//! removes those of processes that no longer run (on Linux, where `/proc` tells; elsewhere
//! they stay). A waveform and its `.gtkw` become their names together under a lock on their
//! directory ([`commit_with_companion`]): two runs writing one waveform leave one run's pair.
//!
//! The outputs of one command are all made or none ([`Outputs`]): a command that fails after
//! writing some of its files takes them back.
//!
//! Errors name the file: an [`io::Error`] from here displays as `PATH: what went wrong`.

use std::io;
use std::path::{Path, PathBuf};

/// An output file being written: write to [`OutFile::path`], then [`OutFile::commit`].
/// Dropped without a commit, it removes what was written.
#[derive(Debug)]
pub struct OutFile {
    /// The name the file gets.
    target: PathBuf,
    /// The temporary name written to, or `None` when the target is written directly.
    tmp: Option<PathBuf>,
}

impl OutFile {
    /// Prepare writing `path` (nothing is created yet).
    pub fn new(path: &Path) -> OutFile {
        match regular_target(path) {
            Some((target, tmp)) => OutFile {
                target,
                tmp: Some(tmp),
            },
            None => OutFile {
                target: path.to_path_buf(),
                tmp: None,
            },
        }
    }

    /// Where to write now: the temporary file, or the target itself.
    pub fn path(&self) -> &Path {
        self.tmp.as_deref().unwrap_or(&self.target)
    }

    /// The written file becomes the target; temporary files of the target that processes no
    /// longer running left behind are removed.
    pub fn commit(mut self) -> io::Result<()> {
        match self.tmp.take() {
            Some(tmp) => {
                std::fs::rename(&tmp, &self.target).inspect_err(|_| {
                    let _ = std::fs::remove_file(&tmp);
                })?;
                remove_stale_partials(&self.target);
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Whether the file can be written, found before the work that makes it: its temporary
    /// file is created and removed (a missing directory, a file where a directory should be,
    /// a directory that cannot be written fail here). Of a target written in place, a
    /// directory fails, a character device is written zero bytes (`/dev/full` fails), a FIFO
    /// is not tried. The error names the target.
    pub fn check(&self) -> io::Result<()> {
        let Some(tmp) = &self.tmp else {
            return check_in_place(&self.target).map_err(|e| named(&self.target, e));
        };
        std::fs::File::create(tmp).map_err(|e| named(&self.target, e))?;
        std::fs::remove_file(tmp).map_err(|e| named(&self.target, e))
    }
}

/// The regular file a write of `path` replaces (`path`, or the file a link names) and the
/// temporary name beside it; `None` for a path written in place: one that exists and is not
/// a regular file (a device, a FIFO, a directory), a link to one, or a dangling link.
fn regular_target(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(path) {
            Ok(real) if real.is_file() => real,
            // A dangling link, or a link to a device: write through it.
            _ => return None,
        },
        Ok(m) if !m.is_file() => return None,
        _ => path.to_path_buf(),
    };
    let name = target.file_name()?;
    let tmp = target.with_file_name(format!(
        ".{}.{}.partial",
        name.to_string_lossy(),
        std::process::id()
    ));
    Some((target, tmp))
}

/// [`OutFile::check`] of a path written in place: a directory cannot take a file; a
/// character device is opened and written zero bytes (`/dev/full` refuses even those, a
/// terminal or `/dev/null` takes them); a FIFO is not opened (that would wait for a reader).
fn check_in_place(path: &Path) -> io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::FileTypeExt;
    let Ok(m) = std::fs::metadata(path) else {
        // A dangling link: the write creates the file it names, or fails then.
        return Ok(());
    };
    if m.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a file",
        ));
    }
    if m.file_type().is_char_device() {
        let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
        // `write`, not `write_all`: the latter makes no system call for no bytes.
        #[allow(clippy::unused_io_amount)]
        f.write(&[])?;
    }
    Ok(())
}

/// The files one command writes, taken back together when the command fails after writing
/// some of them: an [`OutFile`] makes each file whole or not at all, and this makes the
/// command's outputs all or none. Each output is noted before the work ([`Outputs::note`]):
/// a file that does not exist yet is removed again, one that exists gets its contents back
/// (kept meanwhile under a hard link beside it, `.NAME.PID.old.partial`), and a directory the
/// command made ([`Outputs::made_dir`]) is removed when empty, unless the command ends with
/// [`Outputs::keep`]. A device or a FIFO (written in place) is not taken back, nor a file that
/// cannot be linked (a file system without hard links): that one stays as the command left it.
/// A process killed outright leaves its links, removed as the other temporary files are.
#[derive(Debug, Default)]
pub struct Outputs {
    files: Vec<(PathBuf, Before)>,
    dirs: Vec<PathBuf>,
}

/// An output's state before the command wrote it.
#[derive(Debug)]
enum Before {
    /// No file.
    Missing,
    /// This file; its contents are kept under this link.
    Old(PathBuf),
    /// A file that could not be linked: not taken back.
    Unknown,
}

impl Outputs {
    /// No outputs noted yet.
    pub fn new() -> Outputs {
        Outputs::default()
    }

    /// Note `path`, an output the command is about to write (before it is written).
    pub fn note(&mut self, path: &Path) {
        let Some((target, _)) = regular_target(path) else {
            return;
        };
        if self.files.iter().any(|(p, _)| *p == target) {
            return;
        }
        let before = if std::fs::symlink_metadata(&target).is_err() {
            Before::Missing
        } else {
            let name = target.file_name().unwrap_or_default().to_string_lossy();
            let old = target.with_file_name(format!(".{name}.{}.old.partial", std::process::id()));
            let _ = std::fs::remove_file(&old);
            match std::fs::hard_link(&target, &old) {
                Ok(()) => Before::Old(old),
                Err(_) => Before::Unknown,
            }
        };
        self.files.push((target, before));
    }

    /// Note a directory the command made for its outputs (`--save-streams`).
    pub fn made_dir(&mut self, dir: &Path) {
        self.dirs.push(dir.to_path_buf());
    }

    /// The command succeeded: its outputs stay, the old contents go.
    pub fn keep(mut self) {
        for (_, before) in std::mem::take(&mut self.files) {
            if let Before::Old(old) = before {
                let _ = std::fs::remove_file(old);
            }
        }
        self.dirs.clear();
    }
}

impl Drop for Outputs {
    /// Without [`Outputs::keep`]: every noted output as it was before the command.
    fn drop(&mut self) {
        use std::os::unix::fs::MetadataExt;
        let inode = |p: &Path| {
            std::fs::symlink_metadata(p)
                .ok()
                .map(|m| (m.dev(), m.ino()))
        };
        for (path, before) in self.files.drain(..).rev() {
            match before {
                Before::Missing => {
                    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                        let _ = std::fs::remove_file(&path);
                    }
                }
                // Unchanged (renaming a link onto the same file would do nothing).
                Before::Old(old) if inode(&old) == inode(&path) => {
                    let _ = std::fs::remove_file(old);
                }
                Before::Old(old) => {
                    let _ = std::fs::rename(old, &path);
                }
                Before::Unknown => {}
            }
        }
        for dir in self.dirs.drain(..).rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// The process ids of running processes are the numeric names in `/proc` (Linux); `None`
/// where there is no `/proc` to ask.
fn process_runs(pid: u32) -> Option<bool> {
    let proc = Path::new("/proc");
    proc.join("self")
        .exists()
        .then(|| proc.join(pid.to_string()).exists())
}

/// Remove the `.NAME.PID.partial` (and `.NAME.PID.old.partial`) files beside `target` whose
/// process no longer runs.
fn remove_stale_partials(target: &Path) {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        // `.NAME.PID.partial`, or an [`Outputs`]' copy of the old file `.NAME.PID.old.partial`.
        let pid = file
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".partial"))
            .map(|rest| rest.strip_suffix(".old").unwrap_or(rest))
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id() && process_runs(pid) == Some(false) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Commit `main` (a waveform written at its temporary path) and a companion file written by
/// `write` (its `.gtkw`) as a pair: the companion is written first under its own temporary
/// name, then both are renamed onto their names while the directory is locked, so that two
/// processes writing the same pair leave the pair of one of them. When the companion cannot
/// be written, `main` still takes its name (it is complete) and the companion's error is
/// returned. Errors name their file (`main_path` for `main`).
pub fn commit_with_companion(
    main: OutFile,
    main_path: &Path,
    companion: &Path,
    write: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    let second = OutFile::new(companion);
    if let Err(e) = write(second.path()) {
        drop(second);
        main.commit().map_err(|e| named(main_path, e))?;
        return Err(named(companion, e));
    }
    let dir = main.target.parent().filter(|d| !d.as_os_str().is_empty());
    // Held until both renames are done; where the directory cannot be opened or locked, the
    // pair is renamed without it.
    let lock = std::fs::File::open(dir.unwrap_or(Path::new(".")))
        .ok()
        .filter(|d| d.lock().is_ok());
    main.commit().map_err(|e| named(main_path, e))?;
    second.commit().map_err(|e| named(companion, e))?;
    drop(lock);
    Ok(())
}

impl Drop for OutFile {
    fn drop(&mut self) {
        if let Some(tmp) = &self.tmp {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// `e` with the file's name in front (`PATH: e`), same kind.
pub fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Write `path` whole or not at all: `write` writes the file at the path it is given (the
/// temporary file), which then becomes `path`. The error names `path`.
pub fn write_with(path: &Path, write: impl FnOnce(&Path) -> io::Result<()>) -> io::Result<()> {
    let out = OutFile::new(path);
    write(out.path())
        .and_then(|()| out.commit())
        .map_err(|e| named(path, e))
}

/// Write `bytes` to `path` whole or not at all (see [`write_with`]).
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    write_with(path, |p| std::fs::write(p, bytes.as_ref()))
}

/// Write `path` through a buffered writer whole or not at all: `fill` writes the contents,
/// and the buffer is flushed before the file takes the name (a write error in the last
/// buffer is not lost in a drop).
pub fn write_buffered(
    path: &Path,
    fill: impl FnOnce(&mut io::BufWriter<std::fs::File>) -> io::Result<()>,
) -> io::Result<()> {
    write_with(path, |p| {
        let mut w = io::BufWriter::new(std::fs::File::create(p)?);
        fill(&mut w)?;
        io::Write::flush(&mut w)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("pp5-outfile-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch dir");
        d
    }

    fn listing(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_complete_write_takes_the_name_and_leaves_nothing_else() {
        let d = scratch("ok");
        let p = d.join("a.txt");
        write(&p, "old").expect("write");
        write(&p, "new").expect("write");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "new");
        assert_eq!(listing(&d), ["a.txt"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_partial_one() {
        let d = scratch("fail");
        let p = d.join("a.txt");
        write(&p, "old").expect("write");
        let e = write_with(&p, |t| {
            std::fs::write(t, "half")?;
            Err(io::Error::other("disk full"))
        })
        .expect_err("fails");
        assert_eq!(e.to_string(), format!("{}: disk full", p.display()));
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "old");
        assert_eq!(listing(&d), ["a.txt"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn devices_are_written_in_place_and_links_keep_their_link() {
        let full = write(Path::new("/dev/full"), [0u8; 100_000]).expect_err("full");
        assert!(full.to_string().starts_with("/dev/full: "), "{full}");
        assert!(std::fs::metadata("/dev/full").is_ok_and(|m| !m.is_file()));
        let d = scratch("link");
        let real = d.join("real.txt");
        write(&real, "old").expect("write");
        let link = d.join("link.txt");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        write(&link, "new").expect("write");
        assert!(std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).expect("read"), "new");
        assert_eq!(listing(&d), ["link.txt", "real.txt"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_pair_takes_its_names_together_and_a_failed_companion_keeps_the_main_file() {
        let d = scratch("pair");
        let (w, g) = (d.join("w.vcd"), d.join("w.gtkw"));
        let main = OutFile::new(&w);
        std::fs::write(main.path(), "wave").expect("write");
        commit_with_companion(main, &w, &g, |p| std::fs::write(p, "view")).expect("pair");
        assert_eq!(std::fs::read_to_string(&w).expect("read"), "wave");
        assert_eq!(std::fs::read_to_string(&g).expect("read"), "view");
        assert_eq!(listing(&d), ["w.gtkw", "w.vcd"]);
        let main = OutFile::new(&w);
        std::fs::write(main.path(), "wave 2").expect("write");
        let e = commit_with_companion(main, &w, &g, |p| {
            std::fs::write(p, "half")?;
            Err(io::Error::other("disk full"))
        })
        .expect_err("the companion fails");
        assert_eq!(e.to_string(), format!("{}: disk full", g.display()));
        assert_eq!(std::fs::read_to_string(&w).expect("read"), "wave 2");
        assert_eq!(std::fs::read_to_string(&g).expect("read"), "view");
        assert_eq!(listing(&d), ["w.gtkw", "w.vcd"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_check_tries_the_directory_and_leaves_nothing() {
        let d = scratch("check");
        OutFile::new(&d.join("a.txt")).check().expect("writable");
        assert!(listing(&d).is_empty());
        let e = OutFile::new(&d.join("no/a.txt"))
            .check()
            .expect_err("missing");
        assert!(e
            .to_string()
            .starts_with(&format!("{}: ", d.join("no/a.txt").display())));
        OutFile::new(Path::new("/dev/null"))
            .check()
            .expect("/dev/null takes a write");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn outputs_not_kept_are_taken_back_and_kept_ones_stay() {
        let d = scratch("outputs");
        let (old, new, sub) = (d.join("old.txt"), d.join("new.txt"), d.join("sub"));
        write(&old, "before").expect("write");
        let mut outs = Outputs::new();
        outs.note(&old);
        outs.note(&new);
        std::fs::create_dir(&sub).expect("mkdir");
        outs.made_dir(&sub);
        write(&old, "after").expect("write");
        write(&new, "made").expect("write");
        drop(outs);
        assert_eq!(std::fs::read_to_string(&old).expect("read"), "before");
        assert_eq!(listing(&d), ["old.txt"]);
        // Noted and not written: as before, and no link left.
        let mut outs = Outputs::new();
        outs.note(&old);
        drop(outs);
        assert_eq!(listing(&d), ["old.txt"]);
        let mut outs = Outputs::new();
        outs.note(&old);
        outs.note(&new);
        write(&old, "after").expect("write");
        write(&new, "made").expect("write");
        outs.keep();
        assert_eq!(std::fs::read_to_string(&old).expect("read"), "after");
        assert_eq!(listing(&d), ["new.txt", "old.txt"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn directories_and_full_devices_fail_the_check() {
        let d = scratch("check-in-place");
        let e = OutFile::new(&d).check().expect_err("a directory");
        assert!(e.to_string().contains("is a directory"), "{e}");
        if Path::new("/dev/full").exists() {
            let e = OutFile::new(Path::new("/dev/full"))
                .check()
                .expect_err("full");
            assert!(e.to_string().starts_with("/dev/full: "), "{e}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn missing_directories_and_files_used_as_directories_name_the_file() {
        let d = scratch("missing");
        for p in [d.join("no/such/a.txt"), d.join("file/a.txt")] {
            std::fs::write(d.join("file"), "").expect("write");
            let e = write_buffered(&p, |w| io::Write::write_all(w, b"x")).expect_err("fails");
            assert!(
                e.to_string().starts_with(&format!("{}: ", p.display())),
                "{e}"
            );
        }
        assert_eq!(listing(&d), ["file"]);
        let _ = std::fs::remove_dir_all(&d);
    }
}
