//! `pp5` for the microcode author (issue 28): `asm --listing` over several sources, `run
//! --coverage` (an lcov tracefile genhtml renders), `--profile` in the table and the JSON
//! report, `--until` / `--until-cycle` breakpoints and their errors.

mod common;

use common::{tool_output, Scratch};
use std::process::{Command, Output};

fn pp5(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(args)
        .output()
        .expect("run pp5")
}

macro_rules! pp5 {
    ($($a:expr),* $(,)?) => { pp5(&[$(std::ffi::OsStr::new(&$a)),*]) };
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A user's file after the shipped sources: FIVE sets five bits in a LOOP (line 3).
const MINE: &str = "\
.command FIVE(dst:addr) -> five
five:    i=0 l=#5
five_l:  r=1 w=mem[dst+i] i++ loop five_l
         dispatch
";

/// TWICE, which CALLs a subroutine twice (after MINE).
const CALLS: &str = "\
.command TWICE(dst:addr) -> twice
twice:   i=0
         CALL tw_sub
         CALL tw_sub
         dispatch
tw_sub:  r=1 w=mem[dst+i] i++
         RETURN
";

/// The shipped sources and `mine.pp5uc` as `--microcode` arguments.
fn microcode(s: &Scratch) -> Vec<String> {
    microcode_with(s, MINE)
}

/// The shipped sources and `mine.pp5uc` holding `mine` as `--microcode` arguments.
fn microcode_with(s: &Scratch, mine: &str) -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/microcode");
    let mine = s.file("mine.pp5uc", mine);
    let mut args = Vec::new();
    for f in [
        format!("{root}/standard.pp5uc"),
        format!("{root}/qee.pp5uc"),
        format!("{root}/flow.pp5uc"),
        mine.display().to_string(),
    ] {
        args.push("--microcode".to_string());
        args.push(f);
    }
    args
}

fn run(s: &Scratch, stream: &str, extra: &[&str]) -> Output {
    let st = s.file("s.pp5s", stream);
    let mut args: Vec<String> = vec!["run".into(), st.display().to_string()];
    args.extend(microcode(s));
    args.extend(extra.iter().map(|a| a.to_string()));
    Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(&args)
        .output()
        .expect("run pp5")
}

#[test]
fn asm_lists_several_sources_with_their_files_lines_and_lowered_constructs() {
    let s = Scratch::new();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/microcode");
    let mine = s.file("mine.pp5uc", MINE);
    let listing = s.path("l.txt");
    let o = pp5!(
        "asm",
        format!("{root}/standard.pp5uc"),
        format!("{root}/qee.pp5uc"),
        format!("{root}/flow.pp5uc"),
        mine,
        "--listing",
        listing
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let l = std::fs::read_to_string(&listing).expect("listing");
    let line = l
        .lines()
        .find(|x| x.contains("FIVE+1"))
        .unwrap_or_else(|| panic!("FIVE+1 in\n{l}"));
    assert!(
        line.contains("mine.pp5uc:3") && line.contains("five_l:"),
        "{line}"
    );
    // Flow-control constructs with their lowered form under their line.
    assert!(
        l.contains("flow.pp5uc:") && l.contains("; lowered: REP"),
        "{l}"
    );
    // The opcode table names the user's command.
    assert!(text(&o.stdout).contains("FIVE"));
    // An image has no sources to list.
    let img = s.path("i.json");
    assert_eq!(pp5!("asm", "-o", img).status.code(), Some(0));
    let o = pp5!("asm", img, "--listing", s.path("l2.txt"));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
}

#[test]
fn coverage_is_an_lcov_tracefile_genhtml_renders() {
    let s = Scratch::new();
    let info = s.path("five.info");
    let o = run(
        &s,
        "SETENABS\nFIVE 10\n",
        &["--coverage", info.to_str().expect("utf-8")],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let t = std::fs::read_to_string(&info).expect("tracefile");
    assert!(
        t.contains("DA:3,5\n") && t.contains("BRDA:3,0,0,4\n"),
        "{t}"
    );
    assert_eq!(
        t.matches("end_of_record").count(),
        4,
        "one record per source file"
    );
    let html = s.path("html");
    if let Some(g) = tool_output(
        "coverage_is_an_lcov_tracefile_genhtml_renders",
        "genhtml",
        [info.as_os_str(), "-o".as_ref(), html.as_os_str()],
    ) {
        assert!(g.status.success(), "genhtml: {}", text(&g.stderr));
        assert!(html.join("index.html").is_file());
    }
}

#[test]
fn the_profile_is_printed_and_reported_and_adds_up() {
    let s = Scratch::new();
    let o = run(&s, "SETENABS\nFIVE 10\n", &["--profile=3"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("microcode profile:"), "{out}");
    assert!(
        out.contains("mine.pp5uc:3") && out.contains("five_l:"),
        "{out}"
    );
    let o = run(
        &s,
        "SETENABS\nFIVE 10\n",
        &["--profile", "--report", "json"],
    );
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let cycles = j["cycles"].as_u64().expect("cycles");
    let boot = j["boot_cycles"].as_u64().expect("boot_cycles");
    let p = &j["profile"];
    // The rows are the user's stream's cycles: the boot apart (issue 37 item 11: the shares
    // included the boot's 4,500 cycles).
    assert_eq!(p["cycles"].as_u64(), Some(cycles - boot));
    assert_eq!(p["boot_cycles"].as_u64(), Some(boot));
    let cycles = cycles - boot;
    let sum: u64 = p["routines"]
        .as_array()
        .expect("routines")
        .iter()
        .map(|r| r["cycles"].as_u64().expect("cycles"))
        .sum();
    assert_eq!(sum, cycles);
    // Without --profile the report has no profile.
    let o = run(&s, "SETENABS\n", &["--report", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(j.get("profile").is_none());
}

#[test]
fn breakpoints_stop_the_run_with_its_summary_and_a_waveform_that_ends_there() {
    let s = Scratch::new();
    let vcd = s.path("b.vcd");
    let o = run(
        &s,
        "SETENABS\nFIVE 10\nFIVE 20\n",
        &["--until", "five_l#7", "--vcd", vcd.to_str().expect("utf-8")],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains("breakpoint: the IGC is about to execute five_l"),
        "{out}"
    );
    assert!(out.contains("7th time"), "{out}");
    let cycles: u64 = out
        .lines()
        .find_map(|l| l.strip_prefix("cycles:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("cycles line");
    let v = std::fs::read_to_string(&vcd).expect("vcd");
    let last_time: u64 = v
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix('#'))
        .and_then(|t| t.parse().ok())
        .expect("a time");
    assert_eq!(
        last_time / 25_000,
        cycles,
        "the waveform ends at the breakpoint"
    );
    // The user's microcode by its own file and lines in the waveform, beside the PC.
    let strings: Vec<&str> = v.lines().filter(|l| l.starts_with('s')).collect();
    assert!(
        strings.iter().any(|l| l.starts_with("sFIVE+1 ")),
        "{strings:?}"
    );
    assert!(
        strings.iter().any(|l| l
            .split(' ')
            .next()
            .is_some_and(|s| s.ends_with("mine.pp5uc:3"))),
        "{strings:?}"
    );
    let o = run(&s, &"FIVE 10\n".repeat(200), &["--until-cycle", "5000"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).contains("breakpoint: cycle 5000 reached"));
    // Unknown labels: a usage error that names the nearest ones.
    let o = run(&s, "FIVE 10\n", &["--until", "five_ll"]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("no label or command \"five_ll\"") && e.contains("five_l"),
        "{e}"
    );
    // A cycle before the stream's start is never reached (breakpoints are armed after the
    // boot).
    let o = run(
        &s,
        "FIVE 10\n",
        &["--until", "five_ll#2", "--until-cycle", "9"],
    );
    assert_eq!(o.status.code(), Some(2));
    let o = run(&s, "FIVE 10\n", &["--until-cycle", "9"]);
    assert_eq!(o.status.code(), Some(7));
}

/// With `PP5_MICROCODE_COVERAGE=DIR`, a run of the shipped microcode leaves its coverage in
/// DIR for the whole suite's report (`scripts/microcode-coverage.sh --suite`); a user's
/// microcode is not counted there; without the variable nothing is written.
#[test]
fn the_suite_coverage_variable_leaves_an_lcov_file_per_process() {
    let s = Scratch::new();
    let dir = s.path("suite");
    let st = s.file("s.pp5s", "SETENABS\nINC 8 0 8\n");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args([std::ffi::OsStr::new("run"), st.as_os_str()])
        .env("PP5_MICROCODE_COVERAGE", &dir)
        .output()
        .expect("run pp5");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the directory is made")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let info = std::fs::read_to_string(&files[0]).expect("read");
    let name = files[0].file_name().unwrap().to_string_lossy().to_string();
    assert!(
        name.starts_with("suite-") && name.ends_with(".info"),
        "{name}"
    );
    // SETENABS (standard.pp5uc:55) ran once; CLEAR (line 65) not at all.
    let std_record = info
        .split("end_of_record")
        .find(|r| r.contains("standard.pp5uc\n"))
        .expect("a record for standard.pp5uc");
    assert!(std_record.contains("\nDA:55,1\n"), "{std_record}");
    assert!(std_record.contains("\nDA:65,0\n"), "{std_record}");
    // A user's microcode: not counted.
    let mine = s.path("mine");
    let mut args: Vec<String> = vec!["run".into(), st.display().to_string()];
    args.extend(microcode(&s));
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(&args)
        .env("PP5_MICROCODE_COVERAGE", &mine)
        .output()
        .expect("run pp5");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!mine.exists());
    // Without the variable (or empty): nothing.
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args([std::ffi::OsStr::new("run"), st.as_os_str()])
        .env("PP5_MICROCODE_COVERAGE", "")
        .output()
        .expect("run pp5");
    assert!(o.status.success());
}

/// `pp5 render --coverage`: one tracefile over the renderer's four sources, every Renderer's
/// counts added together (each region ends with one BSSTORE, whichever Renderer drew it).
#[test]
fn render_coverage_merges_the_renderers() {
    let s = Scratch::new();
    let info = s.path("render.info");
    let png = s.path("f.png");
    let o = pp5!(
        "render",
        "--scene",
        "spheres",
        "--screen",
        "256x256",
        "--renderers",
        "2",
        "--renderers-only",
        "-o",
        png,
        "--coverage",
        info
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let t = std::fs::read_to_string(&info).expect("tracefile");
    assert_eq!(t.matches("end_of_record").count(), 4, "{t}");
    assert!(t.contains("shade.pp5uc\n"), "{t}");
    // 2x2 regions on 2 Renderers: four BSSTOREs and four SEPCFG-set-up regions in all.
    assert!(t.contains("\nFNDA:4,BSSTORE\n"), "{t}");
    assert!(t.contains("\nFNDA:4,VBSlater\n"), "{t}");
    let html = s.path("html");
    if let Some(g) = tool_output(
        "render_coverage_merges_the_renderers",
        "genhtml",
        [info.as_os_str(), "-o".as_ref(), html.as_os_str()],
    ) {
        assert!(g.status.success(), "genhtml: {}", text(&g.stderr));
    }
}

/// The whole suite's report is made of many processes' tracefiles: `lcov -a` merges a `pp5
/// run`'s and a `pp5 render`'s (different images, shared sources) with their branch records,
/// and `genhtml` renders the result (as scripts/microcode-coverage.sh --suite does).
#[test]
fn suite_tracefiles_merge_and_render() {
    let s = Scratch::new();
    let dir = s.path("suite");
    let st = s.file("s.pp5s", "SETENABS\nINC 8 0 8\n");
    let png = s.path("f.png");
    for args in [
        vec![std::ffi::OsStr::new("run"), st.as_os_str()],
        [
            "render",
            "--scene",
            "triangle",
            "--screen",
            "128x128",
            "--renderers-only",
            "-o",
        ]
        .iter()
        .map(std::ffi::OsStr::new)
        .chain([png.as_os_str()])
        .collect(),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .args(&args)
            .env("PP5_MICROCODE_COVERAGE", &dir)
            .output()
            .expect("run pp5");
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(files.len(), 2, "one per process: {files:?}");
    let all = s.path("all.info");
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    for f in &files {
        args.push("-a".into());
        args.push(f.into());
    }
    args.extend(["-o".into(), all.clone().into_os_string()]);
    // lcov 1.x calls the setting lcov_branch_coverage (and ignores the other), 2.x both.
    for rc in ["lcov_branch_coverage=1", "branch_coverage=1"] {
        args.extend(["--rc".into(), rc.into()]);
    }
    let Some(m) = tool_output("suite_tracefiles_merge_and_render", "lcov", &args) else {
        return;
    };
    assert!(m.status.success(), "lcov: {}", text(&m.stderr));
    let t = std::fs::read_to_string(&all).expect("merged");
    assert!(t.contains("shade.pp5uc") && t.contains("BRDA:"), "{t}");
    let html = s.path("html");
    let g = tool_output(
        "suite_tracefiles_merge_and_render",
        "genhtml",
        [
            all.as_os_str(),
            "--branch-coverage".as_ref(),
            "-o".as_ref(),
            html.as_os_str(),
        ],
    )
    .expect("genhtml is there where lcov is");
    assert!(g.status.success(), "genhtml: {}", text(&g.stderr));
    assert!(html.join("index.html").is_file());
}

/// `--profile` before the stream takes no value from it, and `--profile=0` lists every row
/// (issue 37 item 11: the stream was read as N, and 0 printed nothing).
#[test]
fn profile_takes_its_number_after_an_equals_sign_and_0_is_all() {
    let s = Scratch::new();
    let st = s.file("s.pp5s", "SETENABS\nFIVE 10\n");
    let mut args: Vec<String> = vec!["run".into(), "--profile".into(), st.display().to_string()];
    args.extend(microcode(&s));
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(&args)
        .output()
        .expect("run pp5");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains("the top 10 routines and source lines"),
        "{out}"
    );
    let all = run(&s, "SETENABS\nFIVE 10\n", &["--profile=0"]);
    let out = text(&all.stdout);
    assert!(out.contains("every routine and source line"), "{out}");
    assert!(out.contains("mine.pp5uc:3"), "{out}");
    assert!(!out.contains("... and"), "{out}");
}

/// A breakpoint never reached: a warning and exit 7, told from a hit (exit 0) by a script
/// (issue 37 item 6).
#[test]
fn a_breakpoint_never_reached_exits_7_with_a_warning() {
    let s = Scratch::new();
    let miss = run(&s, "SETENABS\n", &["--until", "five_l"]);
    assert_eq!(miss.status.code(), Some(7), "{}", text(&miss.stderr));
    let out = text(&miss.stdout);
    assert!(
        out.contains("the breakpoint five_l was never reached"),
        "{out}"
    );
    let hit = run(&s, "SETENABS\nFIVE 10\n", &["--until", "five_l"]);
    assert_eq!(hit.status.code(), Some(0), "{}", text(&hit.stderr));
    let late = run(&s, "SETENABS\n", &["--until-cycle", "99999999"]);
    assert_eq!(late.status.code(), Some(7), "{}", text(&late.stderr));
}

/// A run stopped at a breakpoint writes a `.gtkw` whose view opens on the stop, not on the
/// trace's start (issue 37 item 11).
#[test]
fn a_breakpoint_runs_gtkw_opens_at_the_stop() {
    let s = Scratch::new();
    let vcd = s.path("b.vcd");
    let vcd_arg = vcd.display().to_string();
    let args = [
        "--until", "five_l#3", "--view", "8", "--report", "json", "--vcd", &vcd_arg,
    ];
    let o = run(&s, "SETENABS\nFIVE 10\n", &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let end = j["cycles"].as_u64().expect("cycles");
    let gtkw = std::fs::read_to_string(s.path("b.gtkw")).expect("gtkw");
    let start: u64 = gtkw
        .lines()
        .find_map(|l| l.strip_prefix("[timestart] "))
        .expect("timestart")
        .parse()
        .expect("a number");
    assert_eq!(start, (end - 6) * pp5_rtl::clock::CYCLE_PS, "{gtkw}");
}

/// The stop report `pp5 run --report json` holds, from a run with `extra`, and its stderr.
fn stop_json(s: &Scratch, stream: &str, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = extra.to_vec();
    args.extend(["--report", "json", "--peek", "0,0,10,5"]);
    let o = run(s, stream, &args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    (j, err)
}

/// The value `--peek 0,0,10,5` printed: FIVE 10's bits written so far.
fn peeked(stderr: &str) -> u64 {
    peeked_at(stderr, 10, 5)
}

/// `--until` stops before the microinstruction runs (gdb's convention): the IGC is at it,
/// its effect is absent; `--until-after` stops after the cycle that ran it. The stop report
/// (stderr and JSON) gives file:line, the source text, the registers and the backtrace, at
/// the report's cycle.
#[test]
fn a_breakpoint_stops_before_its_microinstruction_runs() {
    let s = Scratch::new();
    let (j, err) = stop_json(&s, "SETENABS\nFIVE 10\n", &["--until", "five_l#3"]);
    // Two of the five bits: the third execution has not run.
    assert_eq!(peeked(&err), 0b00011, "{err}");
    let r = &j["stop_report"];
    assert_eq!(r["cycle"], j["cycles"], "{r}");
    assert_eq!(r["spec"], "five_l#3");
    assert_eq!(r["next"]["at"], "FIVE+1");
    assert!(r["next"]["src"]
        .as_str()
        .is_some_and(|p| p.ends_with("mine.pp5uc:3")));
    assert_eq!(
        r["next"]["text"],
        "five_l:  r=1 w=mem[dst+i] i++ loop five_l"
    );
    assert_eq!(r["igc"]["state"], "RUN");
    assert_eq!(r["igc"]["pc"], r["next"]["pc"]);
    assert_eq!(
        (r["igc"]["l"].as_u64(), r["igc"]["i"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(r["igc"]["command"], "FIVE");
    assert_eq!(r["igc"]["opr"][0], 10);
    let kinds: Vec<&str> = r["backtrace"]
        .as_array()
        .expect("backtrace")
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["next", "command"], "{r}");
    assert_eq!(r["backtrace"][1]["at"], "FIVE+0");
    // On stderr at the stop.
    assert!(err.contains("stopped before cycle"), "{err}");
    assert!(err.contains("next: FIVE+1 (PC 0x0fb"), "{err}");
    assert!(err.contains("3 | five_l:  r=1"), "{err}");
    assert!(err.contains("igc: state RUN pc 0x0fb"), "{err}");
    assert!(err.contains("#1 in the command entered at FIVE+0"), "{err}");
    assert!(j["stop"]["Breakpoint"]
        .as_str()
        .is_some_and(|m| m.contains("about to execute five_l") && m.contains("3rd time")));
    // The old form, named: after the third execution.
    let (j, err) = stop_json(&s, "SETENABS\nFIVE 10\n", &["--until-after", "five_l#3"]);
    assert_eq!(peeked(&err), 0b00111, "{err}");
    assert_eq!(j["stop_report"]["spec"], "five_l#3 (after)");
}

/// `LABEL if COND` stops at the label only where the condition holds; `--watch` stops when
/// a register changes, when a condition becomes true, and when a pixel's memory bit changes.
#[test]
fn conditional_breakpoints_and_watchpoints() {
    let s = Scratch::new();
    let st = "SETENABS\nFIVE 10\n";
    let (j, err) = stop_json(&s, st, &["--break", "five_l if renderer.igc.l == 2"]);
    assert_eq!(peeked(&err), 0b00111, "{err}");
    assert_eq!(j["stop_report"]["igc"]["l"], 2);
    assert_eq!(j["stop_report"]["spec"], "five_l if renderer.igc.l == 2");
    // Which time the IGC got there, the condition held or not (the fourth: l counts down).
    assert!(
        j["stop"]["Breakpoint"]
            .as_str()
            .is_some_and(|m| m.ends_with("(renderer.igc.l == 2; the IGC got there 4 times)")),
        "{}",
        j["stop"]
    );
    // A register: FIVE+0 loads l = 5.
    let (j, _) = stop_json(&s, st, &["--watch", "renderer.igc.l"]);
    let r = &j["stop_report"];
    assert_eq!(r["watch"]["signal"], "renderer.igc.l");
    assert_eq!(
        (r["watch"]["old"].as_u64(), r["watch"]["new"].as_u64()),
        (Some(0), Some(5))
    );
    assert_eq!(r["next"]["at"], "FIVE+1");
    assert_eq!(r["igc"]["last_pc"], r["backtrace"][1]["pc"]);
    // A condition becoming true.
    let (j, err) = stop_json(&s, st, &["--watch", "renderer.igc.i == 2"]);
    assert_eq!(peeked(&err), 0b00011, "{err}");
    assert_eq!(j["stop_report"]["igc"]["i"], 2);
    // A pixel's memory bit: the third write sets bit 12.
    let (j, err) = stop_json(&s, st, &["--watch", "renderer.pixel_0_0.mem[12]"]);
    assert_eq!(peeked(&err), 0b00111, "{err}");
    let w = &j["stop_report"]["watch"];
    assert_eq!(
        (w["old"].as_u64(), w["new"].as_u64()),
        (Some(0), Some(1)),
        "{w}"
    );
    assert!(err.contains("renderer.pixel_0_0.mem[12]: 0 -> 1"), "{err}");
    // The waveform's name for it, with the pixel probed and traced.
    let vcd = s.path("w.vcd").display().to_string();
    let (j, _) = stop_json(
        &s,
        st,
        &["--watch", "renderer.pixel_0_0.mem_we == 1", "--vcd", &vcd],
    );
    assert_eq!(j["stop_report"]["next"]["at"], "FIVE+1");
    // An unknown signal: a usage error naming the near one.
    let o = run(&s, st, &["--watch", "renderer.igc.ll"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("did you mean `renderer.igc.l`"),
        "{}",
        text(&o.stderr)
    );
    let o = run(&s, st, &["--until", "five_l if renderer.igc.l"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Several breakpoints in one run: the first reached stops it, and the report says which.
#[test]
fn several_breakpoints_in_one_run() {
    let s = Scratch::new();
    let st = "SETENABS\nFIVE 10\nFIVE 20\n";
    let (j, err) = stop_json(
        &s,
        st,
        &[
            "--until",
            "five_l#9",
            "--break",
            "five#2",
            "--watch",
            "renderer.igc.l == 1",
        ],
    );
    assert_eq!(j["stop_report"]["breakpoint"], 2, "{err}");
    assert_eq!(peeked(&err), 0b01111, "{err}");
    let (j, _) = stop_json(&s, st, &["--until", "five_l#9", "--break", "five#2"]);
    assert_eq!(j["stop_report"]["breakpoint"], 1);
    assert_eq!(j["stop_report"]["next"]["at"], "FIVE+0");
}

/// `--then` goes on from a stop as gdb's commands do, in order: `next` over the rest of a
/// loop and over a CALL, `step` one microinstruction, `finish` out of a subroutine and out of
/// a command's routine, `continue` to a breakpoint's next time. Each stop gone on from is
/// reported on stderr; the report, the JSON's stop report and the exit code are the last
/// stop's.
#[test]
fn then_goes_on_from_a_stop_as_gdb_does() {
    let s = Scratch::new();
    let then = |extra: &[&str]| {
        let st = s.file("s.pp5s", "SETENABS\nFIVE 10\nTWICE 20\n");
        let mut args: Vec<String> = vec!["run".into(), st.display().to_string()];
        args.extend(microcode_with(&s, &format!("{MINE}{CALLS}")));
        args.extend(extra.iter().map(|a| a.to_string()));
        args.extend(["--report", "json", "--peek", "0,0,20,2"].map(String::from));
        let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .args(&args)
            .output()
            .expect("run pp5");
        let err = text(&o.stderr);
        // (A usage error prints no report.)
        let j = serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Null);
        (o.status.code(), j, err)
    };
    let at = |j: &serde_json::Value| j["stop_report"]["next"]["at"].clone();
    // FIVE+0, then over the rest of the bit loop to its dispatch.
    let (code, j, err) = then(&["--until", "five", "--then", "next", "--then", "next"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(at(&j), "FIVE+2", "{err}");
    assert_eq!(
        err.matches("\n  backtrace:").count(),
        3,
        "a report per stop: {err}"
    );
    assert_eq!(
        err.matches(": next: the IGC is about to execute").count(),
        2,
        "{err}"
    );
    // Over a CALL: the subroutine ran once (one bit written), the IGC is at the second.
    let (_, j, err) = then(&["--until", "twice", "--then", "next", "--then", "next"]);
    assert_eq!(at(&j), "TWICE+2", "{err}");
    assert_eq!(peeked_at(&err, 20, 2), 0b01, "{err}");
    // Into the subroutine, and finish: back after its CALL.
    let (_, j, err) = then(&["--until", "tw_sub", "--then", "finish"]);
    assert_eq!(at(&j), "TWICE+2", "{err}");
    let kinds: Vec<_> = j["stop_report"]["backtrace"]
        .as_array()
        .expect("backtrace")
        .iter()
        .map(|f| f["kind"].clone())
        .collect();
    assert_eq!(kinds, ["next", "command"], "returned: no call frame left");
    assert!(err.contains("finish: the routine returned"), "{err}");
    // finish in a command's routine: until it dispatches.
    let (_, j, err) = then(&["--until", "twice", "--then", "finish"]);
    assert_eq!(j["stop_report"]["igc"]["state"], "WAIT_CMD", "{err}");
    assert_eq!(peeked_at(&err, 20, 2), 0b11, "{err}");
    // step: one microinstruction.
    let (_, j, err) = then(&["--until", "twice", "--then", "step"]);
    assert_eq!(at(&j), "TWICE+1", "{err}");
    assert!(err.contains("step: the IGC executed PC"), "{err}");
    // continue: to the breakpoint's next time (from its first, it stops every time).
    let (_, j, err) = then(&["--until", "tw_sub", "--then", "continue"]);
    assert!(
        j["stop"]["Breakpoint"]
            .as_str()
            .is_some_and(|m| m.contains("2nd time")),
        "{err}"
    );
    assert_eq!(peeked_at(&err, 20, 2), 0b01, "{err}");
    // Past the end: the run finishes, says so, and exits 7 as a breakpoint missed.
    let (code, j, err) = then(&["--until", "twice", "--then", "finish", "--then", "next"]);
    assert_eq!(code, Some(7), "{err}");
    let all = j.to_string();
    assert!(all.contains("`next` was never reached"), "{all}");
    assert!(
        all.contains("the breakpoint twice was not reached again: the IGC executed it once in all"),
        "{all}"
    );
    // Nothing to go on from, or no such command: usage errors.
    let (code, _, err) = then(&["--then", "next"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--then goes on from a stop"), "{err}");
}

/// The value `--peek 0,0,A,L` printed.
fn peeked_at(stderr: &str, a: u32, l: u32) -> u64 {
    let prefix = format!("peek pixel (0,0) mem[{a}:{l}] = ");
    stderr
        .lines()
        .find_map(|x| x.strip_prefix(prefix.as_str()))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no peek in {stderr}"))
}
