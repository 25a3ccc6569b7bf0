//! Helpers shared by the integration tests of pp5-testbench and pp5-sim: a scratch directory
//! that removes itself ([`Scratch`]), the usual [`session::run`] of a stream ([`spec`],
//! [`run`]), GTKWave's tools, which a test may not silently go without ([`tool_output`],
//! [`skipped`]), and the array's pixels with a pseudo-random bit each ([`for_all_pixels`],
//! [`pixel_bit`]).
//!
//! pp5-sim's tests cannot depend on pp5-testbench (which depends on pp5-sim), so they include
//! this same file as their `common` module (`sim/tests/common/mod.rs`): it uses nothing but
//! `std` and `pp5_sim`.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use pp5_sim::asm::microcode::McImage;
use pp5_sim::engine::SimOptions;
use pp5_sim::session::{self, RunError, RunResult, RunSpec};
use pp5_sim::stream::Stream;

/// A new, empty directory under the system's temporary directory, removed with its contents
/// when dropped, except while a test panics (its files are then left to look at).
pub struct Scratch(PathBuf);

impl Scratch {
    /// A directory no other scratch directory of this process shares.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "pp5-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        // A directory left by an earlier process of the same id.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        Scratch(dir)
    }

    /// The directory itself.
    pub fn dir(&self) -> &Path {
        &self.0
    }

    /// The path of `name` in the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Write `text` to the file `name` in the directory; its path.
    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, text).expect("write a scratch file");
        p
    }

    /// The names in the directory, sorted (hidden ones included).
    pub fn listing(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .expect("read the scratch directory")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The usual run: `image` booted through the stream (as `pp5 run` boots it), then `stream`,
/// with the default options and no waveform. Change what a test needs with struct update
/// syntax: `RunSpec { wave: Some(w), ..spec(&image, &stream) }`.
pub fn spec<'a>(image: &'a McImage, stream: &'a Stream) -> RunSpec<'a> {
    RunSpec {
        image,
        boot: true,
        stream,
        opts: SimOptions::default(),
        wave: None,
    }
}

/// [`session::run`] of `spec`, with no progress callback and no interrupt flag.
pub fn run(spec: RunSpec<'_>) -> Result<RunResult, RunError> {
    session::run(spec, |_, _, _| {}, None)
}

/// The output of the external `tool` (GTKWave's `vcd2fst`, `fst2vcd`) run with `args` for
/// the test `test`, whatever its exit status. When the tool is not installed the test cannot
/// check what it is for: in CI (the environment variable `CI` is `true`; CI installs GTKWave)
/// the test fails; elsewhere a `SKIPPED: <test>: <tool> not installed` line goes to stderr,
/// visible among the test results, and the answer is `None`.
pub fn tool_output<S: AsRef<OsStr>>(
    test: &str,
    tool: &str,
    args: impl IntoIterator<Item = S>,
) -> Option<Output> {
    match Command::new(tool).args(args).output() {
        Ok(out) => Some(out),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let package = match tool {
                "genhtml" | "lcov" => "lcov",
                _ => "gtkwave",
            };
            let why = format!("{tool} not installed (Debian package {package})");
            if std::env::var_os("CI").is_some_and(|v| v == "true") {
                panic!("{test}: {why}, and CI (CI=true) must run this check");
            }
            skipped(test, &why);
            None
        }
        Err(e) => panic!("{test}: cannot run {tool}: {e}"),
    }
}

/// Say that `test` (or a part of it) checked nothing because `why`: a `SKIPPED: <test>:
/// <why>` line on stderr, visible among the test results even when the test passes.
pub fn skipped(test: &str, why: &str) {
    // Straight to stderr: the test harness captures `eprintln!` of a passing test.
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {why}");
}

/// Every change of the signal `path` (scopes joined by `.`, e.g. `renderer.igc.pc`) in a
/// waveform read back with `wellen`: (time in ps, the value as a bit string, or the text of a
/// VCD `string`). Panics naming `path` when the waveform has no such signal.
pub fn wave_changes(w: &mut wellen::simple::Waveform, path: &str) -> Vec<(u64, String)> {
    let parts: Vec<&str> = path.split('.').collect();
    let (name, scopes) = parts.split_last().expect("a signal path");
    let var = w
        .hierarchy()
        .lookup_var(scopes, name)
        .unwrap_or_else(|| panic!("no signal {path}"));
    let sig = w.hierarchy()[var].signal_ref();
    w.load_signals(&[sig]);
    let tt = w.time_table().to_vec();
    let signal = w.get_signal(sig).expect("loaded");
    signal
        .iter_changes()
        .map(|(i, v)| {
            let value = match v {
                wellen::SignalValueRef::String(s) => s.to_string(),
                other => other.to_bit_string().expect("a bit vector"),
            };
            (tt[i as usize], value)
        })
        .collect()
}

/// A pseudo-random bit per (pixel, k): the same for every run.
pub fn pixel_bit(x: usize, y: usize, k: usize) -> bool {
    let h = (x as u64 * 0x9e37_79b9 + y as u64 * 0x85eb_ca6b + k as u64 * 0xc2b2_ae35)
        .wrapping_mul(0x2545_f491_4f6c_dd1d);
    (h >> 61) & 1 == 1
}

/// `f(x, y)` for every pixel of the 128×128 array, row by row.
pub fn for_all_pixels(mut f: impl FnMut(usize, usize)) {
    for y in 0..128 {
        for x in 0..128 {
            f(x, y);
        }
    }
}
