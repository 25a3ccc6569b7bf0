//! Every file the `pp5` binary writes, sent where it cannot be written: a full device
//! (`/dev/full`), a missing directory, a path under a regular file (`file/x`: ENOTDIR), and a
//! read-only directory (for root, an immutable one). Each gives one line naming the file,
//! exit code 1, and leaves no file (nor a temporary one) behind. A run stopped by Ctrl-C
//! leaves a complete waveform that ends at the cycle it stopped.

mod common;

use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const EXIT_IO: i32 = 1;
const EXIT_INTERRUPTED: i32 = 130;

fn pp5() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pp5"))
}

fn show(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Where an output is sent.
#[derive(Clone, Copy, Debug)]
enum Dest {
    /// `/dev/full` itself (or a link to it where the name is derived).
    Full,
    /// `scratch/no/such/NAME`.
    MissingDir,
    /// `scratch/file/NAME`, `file` a regular file.
    UnderFile,
    /// `scratch/ro/NAME`, `ro` a directory without write permission.
    ReadOnly,
}

impl Dest {
    /// The path for an output called `name` (`None`: this destination cannot be tried).
    fn path(self, s: &Scratch, name: &str) -> Option<PathBuf> {
        match self {
            Dest::Full => Some(PathBuf::from("/dev/full")),
            Dest::MissingDir => Some(s.path("no/such").join(name)),
            Dest::UnderFile => {
                std::fs::write(s.path("file"), "").expect("write");
                Some(s.path("file").join(name))
            }
            Dest::ReadOnly => read_only_dir(s).map(|d| d.join(name)),
        }
    }
}

/// A directory this process cannot write into: mode 0555, and for root (who writes there
/// all the same) also immutable (`chattr +i`, released when the scratch directory goes).
/// `None` when neither works (root on a file system without the attribute).
fn read_only_dir(s: &Scratch) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let d = s.path("ro");
    std::fs::create_dir_all(&d).expect("mkdir");
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let writable = || {
        let ok = std::fs::write(d.join("probe"), "").is_ok();
        let _ = std::fs::remove_file(d.join("probe"));
        ok
    };
    if writable() {
        let _ = Command::new("chattr").arg("+i").arg(&d).output();
    }
    if writable() {
        let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755));
        let _ = std::fs::remove_dir(&d);
        return None;
    }
    Some(d)
}

const ALL: [Dest; 4] = [
    Dest::Full,
    Dest::MissingDir,
    Dest::UnderFile,
    Dest::ReadOnly,
];

/// A [`Scratch`] directory whose immutable `ro` directory (see [`read_only_dir`]) is released
/// before it goes.
struct Outputs(Scratch);

impl std::ops::Deref for Outputs {
    type Target = Scratch;
    fn deref(&self) -> &Scratch {
        &self.0
    }
}

impl Drop for Outputs {
    fn drop(&mut self) {
        let ro = self.path("ro");
        if ro.exists() {
            let _ = Command::new("chattr").arg("-i").arg(&ro).output();
        }
    }
}

/// A scratch directory with a small text stream `s.pp5s` and its binary `s.bin`.
fn with_streams() -> Outputs {
    let s = Outputs(Scratch::new());
    std::fs::write(s.path("s.pp5s"), "SETENABS\nCLEAR 0 8\nINC 0 0 8\n").expect("write");
    let o = pp5()
        .arg("stream")
        .arg(s.path("s.pp5s"))
        .arg("-o")
        .arg(s.path("s.bin"))
        .output()
        .expect("run pp5");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    s
}

/// Run `args(path)` for every destination of `dests`: exit 1, the last stderr line is
/// `pp5: <named>: ...` (`named(path)` is the file the message must name), and the scratch
/// directory holds what it held before.
fn check_output(
    what: &str,
    dests: &[Dest],
    name: &str,
    args: impl Fn(&Scratch, &Path) -> Vec<std::ffi::OsString>,
    named: impl Fn(&Path) -> PathBuf,
) {
    check_output_making(what, dests, name, &[], args, named);
}

/// [`check_output`] for a command that writes the files `made` (complete) before the one
/// that fails.
fn check_output_making(
    what: &str,
    dests: &[Dest],
    name: &str,
    made: &[&str],
    args: impl Fn(&Scratch, &Path) -> Vec<std::ffi::OsString>,
    named: impl Fn(&Path) -> PathBuf,
) {
    for &dest in dests {
        let s = with_streams();
        let Some(path) = dest.path(&s, name) else {
            common::skipped(
                &format!("{what} {dest:?}"),
                "no read-only directory can be made",
            );
            continue;
        };
        let mut before = s.listing();
        before.extend(made.iter().map(|m| m.to_string()));
        before.sort();
        let o = pp5()
            .args(args(&s, &path))
            .current_dir(s.dir())
            .output()
            .expect("run pp5");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            o.status.code(),
            Some(EXIT_IO),
            "{what} {dest:?}: {}",
            show(&o)
        );
        let last = err.lines().last().unwrap_or("");
        let want = format!("pp5: {}: ", named(&path).display());
        assert!(
            last.starts_with(&want),
            "{what} {dest:?}: `{want}`\n{}",
            show(&o)
        );
        assert!(!err.contains("panicked"), "{what} {dest:?}: {}", show(&o));
        assert_eq!(s.listing(), before, "{what} {dest:?}: files left behind");
    }
}

fn os(v: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<std::ffi::OsString> {
    v.iter().map(|a| a.as_ref().to_os_string()).collect()
}

fn same(p: &Path) -> PathBuf {
    p.to_path_buf()
}

#[test]
fn run_outputs_that_cannot_be_written_exit_1_naming_the_file() {
    let st = |s: &Scratch| s.path("s.pp5s");
    check_output(
        "--vcd",
        &ALL,
        "w.vcd",
        |s, p| os(&[&"run", &st(s), &"--vcd", &p]),
        same,
    );
    check_output(
        "--fst",
        &ALL,
        "w.fst",
        |s, p| os(&[&"run", &st(s), &"--fst", &p]),
        same,
    );
    check_output(
        "--dump-mem",
        &ALL,
        "m.bin",
        |s, p| os(&[&"run", &st(s), &"--dump-mem", &p]),
        same,
    );
    check_output(
        "--image",
        &ALL,
        "e.png",
        |s, p| {
            let spec = format!("{}=enable", p.display());
            os(&[&"run", &st(s), &"--image", &spec])
        },
        same,
    );
    check_output(
        "--tx-out",
        &ALL,
        "t.bin",
        |s, p| os(&[&"run", &st(s), &"--tx-out", &p]),
        same,
    );
}

/// The `.gtkw` beside a waveform: a link to `/dev/full`, and a directory in its place. Both are
/// found before the run (a device takes a write of no bytes, issue 39 item 5): exit 1 naming
/// the `.gtkw`, no report, and no waveform either.
#[test]
fn an_unwritable_gtkw_exits_1_naming_it() {
    for kind in ["full", "dir"] {
        let s = with_streams();
        let gtkw = s.path("w.gtkw");
        match kind {
            "full" => std::os::unix::fs::symlink("/dev/full", &gtkw).expect("symlink"),
            _ => std::fs::create_dir(&gtkw).expect("mkdir"),
        }
        let before = s.listing();
        let o = pp5()
            .arg("run")
            .arg(s.path("s.pp5s"))
            .arg("--vcd")
            .arg(s.path("w.vcd"))
            .output()
            .expect("run pp5");
        assert_eq!(o.status.code(), Some(EXIT_IO), "{kind}: {}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        let want = format!("pp5: {}: ", gtkw.display());
        assert!(
            err.lines().last().is_some_and(|l| l.starts_with(&want)),
            "{kind}: {}",
            show(&o)
        );
        assert!(o.stdout.is_empty(), "{kind}: it ran: {}", show(&o));
        assert_eq!(s.listing(), before, "{kind}");
    }
}

#[test]
fn demo_outputs_that_cannot_be_written_exit_1_naming_the_file() {
    // The demo writes its stream beside the waveform first (`/dev/full` has no "beside").
    check_output(
        "demo --wave",
        &[Dest::MissingDir, Dest::UnderFile, Dest::ReadOnly],
        "d.vcd",
        |_, p| os(&[&"demo", &"--wave", &p]),
        |p| p.with_extension("pp5s"),
    );
}

#[test]
fn stream_and_asm_outputs_that_cannot_be_written_exit_1_naming_the_file() {
    check_output(
        "stream -o (binary)",
        &ALL,
        "x.bin",
        |s, p| os(&[&"stream", &s.path("s.pp5s"), &"-o", &p]),
        same,
    );
    check_output(
        "stream -o (text)",
        &ALL,
        "x.pp5s",
        |s, p| os(&[&"stream", &s.path("s.bin"), &"-o", &p]),
        same,
    );
    check_output(
        "asm -o",
        &ALL,
        "x.json",
        |_, p| os(&[&"asm", &"-o", &p]),
        same,
    );
    check_output(
        "asm --header",
        &ALL,
        "x.h",
        |_, p| os(&[&"asm", &"--header", &p]),
        same,
    );
}

#[test]
fn bench_and_render_outputs_that_cannot_be_written_exit_1_naming_the_file() {
    // --save-streams creates a missing directory, for bench as for render (issue 27, item 4),
    // but not its missing parents (item 5): `no/such/streams` is refused.
    check_output(
        "bench --save-streams",
        &[
            Dest::Full,
            Dest::MissingDir,
            Dest::UnderFile,
            Dest::ReadOnly,
        ],
        "streams",
        |_, p| os(&[&"bench", &"--save-streams", &p]),
        same,
    );
    let render = |extra: Vec<std::ffi::OsString>| {
        let mut v = os(&[
            &"render",
            &"--scene",
            &"triangle",
            &"--screen",
            &"128x128",
            &"--renderers",
            &"1",
        ]);
        v.extend(extra);
        v
    };
    check_output(
        "render -o",
        &ALL,
        "f.png",
        |_, p| render(os(&[&"-o", &p])),
        same,
    );
    // Every output is checked before the render, so none is written (issue 27, item 4);
    // --save-streams creates a missing directory.
    let with_frame = |s: &Scratch, extra: &[&dyn AsRef<std::ffi::OsStr>]| {
        let mut v = render(os(&[&"-o", &s.path("f.png")]));
        v.extend(os(extra));
        v
    };
    check_output_making(
        "render --save-streams",
        &[
            Dest::Full,
            Dest::MissingDir,
            Dest::UnderFile,
            Dest::ReadOnly,
        ],
        "streams",
        &[],
        |s, p| with_frame(s, &[&"--save-streams", &p]),
        same,
    );
    check_output_making(
        "render --wave",
        &[Dest::MissingDir, Dest::UnderFile, Dest::ReadOnly],
        "r.vcd",
        &[],
        |s, p| with_frame(s, &[&"--wave", &p, &"--region", &"0,0"]),
        same,
    );
    // A device takes a trial write of no bytes, which `/dev/full` refuses: found before the
    // frame, which is not written either (issue 39, item 5).
    check_output(
        "render --wave",
        &[Dest::Full],
        "r.vcd",
        |s, p| with_frame(s, &[&"--wave", &p, &"--region", &"0,0"]),
        same,
    );
    for (flag, name) in [
        ("--system-wave", "sys.vcd"),
        ("--timeline", "t.svg"),
        ("--coverage", "c.info"),
    ] {
        check_output(
            &format!("render {flag}"),
            &ALL,
            name,
            |s, p| with_frame(s, &[&flag, &p]),
            same,
        );
    }
}

/// Reports and disassembly on a full standard output: exit 1, `standard output: ...`.
#[test]
fn a_full_standard_output_exits_1() {
    let s = with_streams();
    let cases: Vec<Vec<std::ffi::OsString>> = vec![
        os(&[&"run", &s.path("s.pp5s")]),
        os(&[&"run", &s.path("s.pp5s"), &"--report", &"json"]),
        os(&[&"run", &s.path("s.pp5s"), &"--report", &"csv"]),
        os(&[&"stream", &s.path("s.bin")]),
        os(&[&"asm"]),
        os(&[
            &"render",
            &"--scene",
            &"triangle",
            &"--screen",
            &"128x128",
            &"--renderers",
            &"1",
            &"-o",
            &s.path("f.png"),
            &"--report",
            &"csv",
        ]),
    ];
    for args in cases {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let o = pp5()
            .args(&args)
            .stdout(Stdio::from(full))
            .output()
            .expect("run pp5");
        assert_eq!(o.status.code(), Some(EXIT_IO), "{args:?}: {}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.lines()
                .last()
                .is_some_and(|l| l.starts_with("pp5: standard output: ")),
            "{args:?}: {}",
            show(&o)
        );
    }
}

/// Ctrl-C (SIGINT) during a traced run: exit 130, and the waveform and its `.gtkw` are
/// complete (read back with `wellen`), ending at the cycle the run stopped (the summary's
/// `cycles`), with no temporary file left.
#[test]
fn sigint_leaves_a_complete_waveform_ending_where_the_run_stopped() {
    stopped_by_signal(
        "sigint_leaves_a_complete_waveform_ending_where_the_run_stopped",
        "-INT",
    );
}

/// SIGTERM (and SIGHUP) stop a run as Ctrl-C does: the summary, exit 130, a complete
/// waveform (issue 21, item 7).
#[test]
fn sigterm_stops_a_run_with_its_summary_like_ctrl_c() {
    stopped_by_signal("sigterm_stops_a_run_with_its_summary_like_ctrl_c", "-TERM");
}

/// Whether this test process inherited `signal` (a number) as ignored: its children then
/// inherit it too, and `pp5` rightly keeps ignoring it (a background job's SIGINT).
fn inherited_ignored(signal: u32) -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("SigIgn:"))
                .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
        })
        .is_some_and(|mask| mask >> (signal - 1) & 1 != 0)
}

/// The signal number of a `kill` option such as `-INT`.
fn signal_number(signal: &str) -> u32 {
    match signal {
        "-HUP" => 1,
        "-INT" => 2,
        "-TERM" => 15,
        _ => panic!("no number for {signal}"),
    }
}

/// Send `signal` (a `kill` option) to `child`.
fn kill(signal: &str, child: &std::process::Child) {
    let killed = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
}

/// Run a long traced stream, send `signal` (a `kill` option) once the waveform is being
/// written, and check what the run leaves (for the test `test`).
fn stopped_by_signal(test: &str, signal: &str) {
    if inherited_ignored(signal_number(signal)) {
        eprintln!("SKIPPED: {test}: this test runs with {signal} ignored, as pp5 would");
        return;
    }
    let s = Scratch::new();
    // Far more cycles than the test waits (each 128-bit add takes hundreds of cycles).
    let stream = s.path("long.pp5s");
    std::fs::write(
        &stream,
        "SETENABS\n".to_string() + &"MEMplusMEM 0 0 0 128 128\n".repeat(100_000),
    )
    .expect("write");
    let vcd = s.path("w.vcd");
    let child = pp5()
        .arg("run")
        .arg(&stream)
        .arg("--vcd")
        .arg(&vcd)
        .args(["--scope", "renderer.igc", "--report", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pp5");
    // Wait until the waveform is being written (its temporary file exists).
    let started = std::time::Instant::now();
    while !s.listing().iter().any(|n| n.ends_with(".partial")) {
        assert!(started.elapsed().as_secs() < 60, "no waveform appeared");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    kill(signal, &child);
    let o = child.wait_with_output().expect("wait");
    assert_eq!(o.status.code(), Some(EXIT_INTERRUPTED), "{}", show(&o));
    let report: String = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        report.contains("\"stop\": \"Interrupted\""),
        "{report:.300}"
    );
    let cycles: u64 = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("\"cycles\": "))
        .and_then(|v| v.trim_end_matches(',').parse().ok())
        .expect("cycles in the report");
    assert_eq!(s.listing(), ["long.pp5s", "w.gtkw", "w.vcd"]);
    let wave = wellen::simple::read(&vcd).expect("wellen reads the interrupted VCD");
    let cycle_ps = pp5_rtl::clock::CYCLE_PS;
    assert_eq!(
        wave.time_table().last().copied(),
        Some(cycles * cycle_ps + pp5_rtl::clock::HALF_CYCLE_PS),
        "the last timestamp is the falling clock edge of the cycle the run stopped at"
    );
    // GTKWave's own reader converts it.
    if let Some(c) = common::tool_output(test, "vcd2fst", [&vcd, &s.path("w.fst")]) {
        assert!(c.status.success(), "vcd2fst: {}", show(&c));
    }
}

/// A SIGHUP or SIGINT the program inherited as ignored (`nohup pp5 run …`, a background job)
/// stays ignored: the run goes on; a SIGTERM then stops it as usual (issue 27, item 3).
#[test]
fn a_signal_inherited_as_ignored_stays_ignored() {
    for (trap, signal) in [("HUP", "-HUP"), ("INT", "-INT")] {
        let s = Scratch::new();
        let stream = s.path("long.pp5s");
        std::fs::write(
            &stream,
            "SETENABS\n".to_string() + &"MEMplusMEM 0 0 0 128 128\n".repeat(100_000),
        )
        .expect("write");
        // The shell sets the signal to "ignore", and `exec` hands that on to pp5.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("trap '' {trap}; exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_pp5"))
            .arg("run")
            .arg(&stream)
            .arg("--vcd")
            .arg(s.path("w.vcd"))
            .args(["--scope", "renderer.igc", "--report", "json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn sh");
        // Wait until the run is under way (the waveform's temporary file exists).
        let started = std::time::Instant::now();
        while !s.listing().iter().any(|n| n.ends_with(".partial")) {
            assert!(started.elapsed().as_secs() < 60, "no waveform appeared");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        kill(signal, &child);
        std::thread::sleep(std::time::Duration::from_millis(500));
        let still = child.try_wait().expect("try_wait");
        if still.is_none() {
            kill("-TERM", &child);
        }
        let o = child.wait_with_output().expect("wait");
        assert!(
            still.is_none(),
            "{signal} (ignored) stopped the run: {}",
            show(&o)
        );
        assert_eq!(o.status.code(), Some(EXIT_INTERRUPTED), "{}", show(&o));
    }
}

/// SIGTERM, SIGHUP and SIGINT stop `pp5 render` as they stop `pp5 run`: exit 130, a line
/// saying it was interrupted and what was done, and no frame (issue 27, item 3).
#[test]
fn a_stop_signal_ends_a_render_with_exit_130_and_a_summary() {
    for signal in ["-TERM", "-HUP", "-INT"] {
        if inherited_ignored(signal_number(signal)) {
            eprintln!("note: this test runs with {signal} ignored, as pp5 would; skipped");
            continue;
        }
        let s = Scratch::new();
        // A render of several seconds: one Renderer, a large screen.
        let child = pp5()
            .args(["render", "--scene", "spheres", "--renderers", "1"])
            .args(["--screen", "4096x4096", "-o"])
            .arg(s.path("x.png"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn pp5");
        std::thread::sleep(std::time::Duration::from_millis(400));
        kill(signal, &child);
        let o = child.wait_with_output().expect("wait");
        assert_eq!(
            o.status.code(),
            Some(EXIT_INTERRUPTED),
            "{signal}: {}",
            show(&o)
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("interrupted after") && err.contains("regions drawn"),
            "{signal}: {err}"
        );
        assert!(s.listing().is_empty(), "{signal}: {:?}", s.listing());
    }
}

/// A disk that fills up in the middle of a file (a file-size limit of 1 KiB, `ulimit -f 1`):
/// exit 1 naming the file, the half-written temporary file removed, and the file of that name
/// from before untouched; with SIGXFSZ ignored by the shell, and with it left at its default
/// action, which would end `pp5` with exit 153 and no message if it did not catch it (issue
/// 38, item 7).
#[test]
fn an_output_cut_short_is_removed_and_the_older_file_kept() {
    for trap in ["trap '' XFSZ; ", ""] {
        cut_short(trap);
    }
}

/// [`an_output_cut_short_is_removed_and_the_older_file_kept`] with `trap` run before `pp5`.
fn cut_short(trap: &str) {
    let s = with_streams();
    let long = s.path("long.pp5s");
    std::fs::write(
        &long,
        "SETENABS\n".to_string() + &"CLEAR 0 8\n".repeat(2000),
    )
    .expect("write");
    let render = "render --scene triangle --screen 128x128 --renderers 1 -o";
    let cases = [
        ("w.vcd", "run s.pp5s --vcd"),
        ("w.fst", "run s.pp5s --fst"),
        ("m.bin", "run s.pp5s --dump-mem"),
        ("i.json", "asm -o"),
        ("h.h", "asm --header"),
        ("x.bin", "stream long.pp5s -o"),
        ("f.png", render),
        ("streams/alu.bin", "bench --save-streams streams #"),
    ];
    std::fs::create_dir(s.path("streams")).expect("mkdir");
    std::fs::write(s.path("streams/alu.bin"), "older").expect("write");
    for (name, cmd) in cases {
        let target = s.path(name);
        std::fs::write(&target, "older").expect("write");
        let before = s.listing();
        let script = format!("ulimit -f 1; {trap}exec \"$0\" {cmd} {name}");
        let o = Command::new("bash")
            .args(["-c", &script, env!("CARGO_BIN_EXE_pp5")])
            .current_dir(s.dir())
            .output()
            .expect("run bash");
        assert_eq!(o.status.code(), Some(EXIT_IO), "{trap}{cmd}: {}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        let want = format!("pp5: {name}: ");
        assert!(
            err.lines().last().is_some_and(|l| l.starts_with(&want)),
            "{cmd}: {}",
            show(&o)
        );
        assert_eq!(s.listing(), before, "{cmd}: files left behind");
        let inner: Vec<String> = std::fs::read_dir(s.path("streams"))
            .expect("read dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(inner, ["alu.bin"], "{cmd}");
        assert_eq!(
            std::fs::read_to_string(&target).expect("read"),
            "older",
            "{cmd}"
        );
    }
}

/// `pp5 render --scene triangle` on one 128x128 region: a quick render.
fn small_render() -> Command {
    let mut c = pp5();
    c.args(["render", "--scene", "triangle", "--screen", "128x128"]);
    c.args(["--renderers", "1"]);
    c
}

/// An output onto a `.mtl` library the OBJ names is an output onto an input: refused with
/// exit 2, the library untouched (issue 27, item 4).
#[test]
fn render_outputs_may_not_overwrite_the_objs_materials() {
    let s = Scratch::new();
    let mtl = "newmtl red\nKd 1 0 0\n";
    std::fs::write(s.path("poly.mtl"), mtl).expect("write");
    std::fs::write(
        s.path("poly.obj"),
        "mtllib poly.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n",
    )
    .expect("write");
    let o = pp5()
        .args(["render", "poly.obj", "--screen", "128x128", "-o", "x.png"])
        .current_dir(s.dir())
        .output()
        .expect("run pp5");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    for args in [
        vec!["-o", "poly.mtl"],
        vec!["--wave", "poly.mtl", "--region", "0,0"],
        vec!["-o", "poly.obj"],
    ] {
        let o = pp5()
            .args(["render", "poly.obj", "--screen", "128x128"])
            .args(&args)
            .current_dir(s.dir())
            .output()
            .expect("run pp5");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", show(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("writing it would destroy it"),
            "{args:?}: {}",
            show(&o)
        );
        assert_eq!(
            std::fs::read_to_string(s.path("poly.mtl")).expect("mtl"),
            mtl
        );
    }
}

/// A waveform or picture flag and its file's extension agree, or the command is refused with
/// exit 2 saying which extension it expects, before anything is written (issue 27, item 4).
#[test]
fn output_flags_and_extensions_must_agree() {
    let s = with_streams();
    let before = s.listing();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", "s.pp5s", "--vcd", "w.fst"], "*.vcd"),
        (vec!["run", "s.pp5s", "--fst", "w.vcd"], "*.fst"),
        (vec!["run", "s.pp5s", "--fst", "trace"], "has no extension"),
        (vec!["run", "s.pp5s", "--image", "x.jpg=enable"], "*.png"),
        (vec!["demo", "--wave", "d.txt"], "*.vcd or *.fst"),
        (vec!["demo", "--image", "x.jpg=enable"], "*.png"),
    ];
    for (args, want) in &cases {
        let o = pp5()
            .args(args)
            .current_dir(s.dir())
            .output()
            .expect("run pp5");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", show(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(want),
            "{args:?}: {}",
            show(&o)
        );
        assert_eq!(s.listing(), before, "{args:?}: files written");
    }
    for (args, want) in [
        (vec!["-o", "x.jpg"], "*.png"),
        (vec!["--wave", "w", "--region", "0,0"], "*.vcd or *.fst"),
    ] {
        let o = small_render()
            .args(&args)
            .current_dir(s.dir())
            .output()
            .expect("run pp5");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", show(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(want),
            "{args:?}: {}",
            show(&o)
        );
        assert_eq!(s.listing(), before, "{args:?}: files written");
    }
}

/// An output that cannot be written is found before the simulation: the outputs that could
/// be written are not written either (issue 27, item 4).
#[test]
fn unwritable_outputs_are_found_before_the_work() {
    let s = with_streams();
    let before = s.listing();
    let o = pp5()
        .args([
            "run",
            "s.pp5s",
            "--vcd",
            "w.vcd",
            "--dump-mem",
            "no/such/m.bin",
        ])
        .current_dir(s.dir())
        .output()
        .expect("run pp5");
    assert_eq!(o.status.code(), Some(EXIT_IO), "{}", show(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("pp5: no/such/m.bin: "),
        "{}",
        show(&o)
    );
    assert!(o.stdout.is_empty(), "it simulated: {}", show(&o));
    assert_eq!(s.listing(), before);
    let o = small_render()
        .args(["-o", "x.png", "--wave", "no/such/w.vcd", "--region", "0,0"])
        .current_dir(s.dir())
        .output()
        .expect("run pp5");
    assert_eq!(o.status.code(), Some(EXIT_IO), "{}", show(&o));
    assert!(o.stdout.is_empty(), "it rendered: {}", show(&o));
    assert_eq!(s.listing(), before);
}

/// A killed run's `.NAME.PID.partial` is removed by the next complete write of NAME when its
/// process no longer runs; one of a running process stays (issue 27, item 4).
#[test]
fn stale_partial_files_of_dead_processes_are_removed() {
    if !Path::new("/proc/self").exists() {
        eprintln!("note: no /proc: stale temporary files are kept; check skipped");
        return;
    }
    let s = with_streams();
    // No process has an id above the kernel's limit (at most 4,194,304).
    let dead = ".w.vcd.4000000000.partial";
    let live = format!(".w.vcd.{}.partial", std::process::id());
    let other = ".x.vcd.4000000000.partial";
    for name in [dead, &live, other] {
        std::fs::write(s.path(name), "half").expect("write");
    }
    let o = pp5()
        .args(["run", "s.pp5s", "--vcd", "w.vcd"])
        .current_dir(s.dir())
        .output()
        .expect("run pp5");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    let names = s.listing();
    assert!(!names.iter().any(|n| n == dead), "{names:?}");
    assert!(names.contains(&live), "{names:?}");
    assert!(names.iter().any(|n| n == other), "{names:?}");
}

/// `--coverage` onto an input (the stream, the microcode) or another output (the waveform, its
/// `.gtkw`, the memory dump, `--tx-out`, the demo's stream) is refused with exit 2 before
/// anything is written, the file kept as it was (issue 38, item 1). Every output option of
/// every subcommand against every input and output: `main.rs`'s unit tests.
#[test]
fn coverage_may_not_overwrite_an_input_or_another_output() {
    let s = with_streams();
    let mc = s.path("m.pp5uc");
    std::fs::write(&mc, "; my microcode\n").expect("write");
    let run = |extra: &[&str], target: &str| -> Vec<String> {
        let mut v: Vec<String> = vec!["run".into(), "s.pp5s".into()];
        v.extend(extra.iter().map(|a| a.to_string()));
        v.extend(["--coverage".into(), target.into()]);
        v
    };
    let cases: Vec<Vec<String>> = vec![
        run(&[], "s.pp5s"),
        run(&["--microcode", "m.pp5uc"], "m.pp5uc"),
        run(&["--vcd", "w.vcd"], "w.vcd"),
        run(&["--vcd", "w.vcd"], "w.gtkw"),
        run(&["--dump-mem", "mem.bin"], "mem.bin"),
        run(&["--tx-out", "tx.bin"], "tx.bin"),
        ["demo", "--wave", "d.vcd", "--coverage", "d.pp5s"]
            .map(String::from)
            .to_vec(),
        ["demo", "--wave", "d.vcd", "--coverage", "d.png"]
            .map(String::from)
            .to_vec(),
    ];
    for args in cases {
        let target = s.path(args.last().expect("target"));
        let kept = format!("kept: {}", target.display());
        if !target.exists() {
            std::fs::write(&target, &kept).expect("write");
        }
        let text = std::fs::read(&target).expect("read");
        let before = s.listing();
        let o = pp5()
            .args(&args)
            .current_dir(s.dir())
            .output()
            .expect("run pp5");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--coverage") && err.contains(args.last().expect("target")),
            "{args:?}: {}",
            show(&o)
        );
        assert_eq!(std::fs::read(&target).expect("read"), text, "{args:?}");
        assert_eq!(s.listing(), before, "{args:?}");
    }
}

/// A `--coverage` file that cannot be written is found before the run, as the other outputs
/// are: exit 1 naming it, and no report (the run did not happen), no file left (issue 38,
/// item 2).
#[test]
fn an_unwritable_coverage_file_is_found_before_the_run() {
    for dest in ALL {
        let s = with_streams();
        let Some(path) = dest.path(&s, "c.info") else {
            continue;
        };
        let before = s.listing();
        for sub in [&["run", "s.pp5s"][..], &["demo", "--wave", "d.vcd"][..]] {
            let o = pp5()
                .args(sub)
                .arg("--coverage")
                .arg(&path)
                .current_dir(s.dir())
                .output()
                .expect("run pp5");
            assert_eq!(o.status.code(), Some(EXIT_IO), "{dest:?}: {}", show(&o));
            let err = String::from_utf8_lossy(&o.stderr);
            let want = format!("pp5: {}: ", path.display());
            assert!(err.starts_with(&want), "{sub:?} {dest:?}: {}", show(&o));
            assert!(
                o.stdout.is_empty(),
                "{sub:?} {dest:?}: it ran: {}",
                show(&o)
            );
            assert_eq!(s.listing(), before, "{sub:?} {dest:?}");
        }
    }
}

/// `pp5 render`'s outputs that cannot be written are found before the frame, and none is left
/// (issue 39, item 5): `--system-wave .`, a `--timeline` that is a directory or `/dev/full`, and
/// a `--system-wave w.vcd` whose `w.gtkw` is a directory (the message names `w.gtkw`, and no
/// `w.vcd` is written). Two outputs with one `.gtkw` are named by their options.
#[test]
fn render_outputs_are_checked_before_the_frame() {
    let s = Scratch::new();
    std::fs::create_dir(s.path("dir")).expect("mkdir");
    std::fs::create_dir(s.path("w.gtkw")).expect("mkdir");
    let before = s.listing();
    for (args, named) in [
        (vec!["--system-wave", "."], "."),
        (vec!["--timeline", "dir"], "dir"),
        (vec!["--timeline", "/dev/full"], "/dev/full"),
        (vec!["--system-wave", "/dev/full"], "/dev/full"),
        (vec!["--coverage", "dir"], "dir"),
        (vec!["--system-wave", "w.vcd"], "w.gtkw"),
    ] {
        let o = small_render()
            .args(["-o", "f.png"])
            .args(&args)
            .current_dir(s.dir())
            .output()
            .expect("run pp5");
        assert_eq!(o.status.code(), Some(EXIT_IO), "{args:?}: {}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.lines()
                .last()
                .is_some_and(|l| l.starts_with(&format!("pp5: {named}: "))),
            "{args:?}: {}",
            show(&o)
        );
        assert!(o.stdout.is_empty(), "{args:?}: it rendered: {}", show(&o));
        assert_eq!(s.listing(), before, "{args:?}: files left");
    }
    let o = small_render()
        .args(["-o", "f.png", "--wave", "x.vcd", "--region", "0,0"])
        .args(["--system-wave", "x.fst"])
        .current_dir(s.dir())
        .output()
        .expect("run pp5");
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("--system-wave's .gtkw x.gtkw and --wave's .gtkw are the same file"),
        "{}",
        show(&o)
    );
    assert_eq!(s.listing(), before);
}

/// An output that fails after the frame (here the system waveform, past a file-size limit the
/// frame's PNG fits under) takes back the outputs written before it: the new PNG is removed,
/// an older one gets its contents back, and no temporary file stays (issue 39, item 5).
#[test]
fn an_output_failing_after_the_frame_takes_back_the_others() {
    let s = Scratch::new();
    for old_png in [false, true] {
        if old_png {
            std::fs::write(s.path("f.png"), "older").expect("write");
        }
        let before = s.listing();
        // 5 KiB: the frame's PNG (about 3 KB) fits, the system waveform (about 6 KB) does not.
        let script = "ulimit -f 5; exec \"$0\" render --scene triangle --screen 128x128 \
                      --renderers 1 -o f.png --system-wave sw.vcd";
        let o = Command::new("bash")
            .args(["-c", script, env!("CARGO_BIN_EXE_pp5")])
            .current_dir(s.dir())
            .output()
            .expect("run bash");
        assert_eq!(o.status.code(), Some(EXIT_IO), "{}", show(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.lines()
                .last()
                .is_some_and(|l| l.starts_with("pp5: sw.vcd: ")),
            "{}",
            show(&o)
        );
        assert_eq!(s.listing(), before, "old PNG: {old_png}");
        if old_png {
            assert_eq!(
                std::fs::read_to_string(s.path("f.png")).expect("png"),
                "older"
            );
        }
    }
    // The same render without the limit writes both.
    let o = small_render()
        .args(["-o", "f.png", "--system-wave", "sw.vcd"])
        .current_dir(s.dir())
        .output()
        .expect("run pp5");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    let png = std::fs::read(s.path("f.png")).expect("png");
    assert!(png.len() < 5 << 10 && &png[1..4] == b"PNG", "{}", png.len());
    assert!(std::fs::metadata(s.path("sw.vcd")).expect("vcd").len() > 5 << 10);
}

/// `pp5 render` reads its OBJ file once: from a FIFO and from a pipe (`/dev/stdin`) it
/// renders the triangle; while it waits for a FIFO's writer, SIGTERM (and SIGINT, unless the
/// test runs with it ignored) ends it (issue 38, item 6).
#[test]
fn render_reads_its_obj_once_from_a_fifo_or_a_pipe() {
    use std::io::Write as _;
    use std::os::unix::process::ExitStatusExt;
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    let s = Scratch::new();
    let fifo = s.path("t.obj");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, obj).expect("write the fifo"))
    };
    let obj_render = || {
        let mut c = pp5();
        c.args(["render", "t.obj", "--screen", "128x128", "--renderers", "1"]);
        c
    };
    let mut child = obj_render()
        .args(["-o", "f.png"])
        .current_dir(s.dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pp5");
    let started = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed().as_secs() > 60 {
            let _ = child.kill();
            panic!("the render of a FIFO does not end");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let o = child.wait_with_output().expect("wait");
    if o.status.code() != Some(0) {
        // The writer waits for a reader: be one, so that it ends.
        let _ = std::fs::read(&fifo);
        panic!("FIFO: {}", show(&o));
    }
    writer.join().expect("writer");
    // From a pipe, as /dev/stdin.
    let _ = std::fs::remove_file(s.path("f.png"));
    let mut child = pp5()
        .args([
            "render",
            "/dev/stdin",
            "--screen",
            "128x128",
            "--renderers",
            "1",
        ])
        .args(["--report", "json", "-o", "f.png"])
        .current_dir(s.dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn pp5");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(obj.as_bytes())
        .expect("write the pipe");
    let o = child.wait_with_output().expect("wait");
    assert_eq!(o.status.code(), Some(0), "pipe: {}", show(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"triangles\": 1"));
    assert!(s.path("f.png").exists());
    // A FIFO no one writes: a stop signal ends the wait.
    for signal in ["-TERM", "-INT"] {
        if inherited_ignored(signal_number(signal)) {
            eprintln!("note: this test runs with {signal} ignored, as pp5 would; skipped");
            continue;
        }
        let child = obj_render()
            .args(["-o", "g.png"])
            .current_dir(s.dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn pp5");
        std::thread::sleep(std::time::Duration::from_millis(300));
        kill(signal, &child);
        let started = std::time::Instant::now();
        let mut child = child;
        while child.try_wait().expect("wait").is_none() {
            if started.elapsed().as_secs() > 20 {
                let _ = child.kill();
                panic!("{signal} did not stop a render waiting for its OBJ");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let o = child.wait_with_output().expect("wait");
        let stopped = o.status.signal().is_some() || o.status.code() == Some(EXIT_INTERRUPTED);
        assert!(stopped, "{signal}: {}", show(&o));
        assert!(!s.path("g.png").exists());
    }
}
