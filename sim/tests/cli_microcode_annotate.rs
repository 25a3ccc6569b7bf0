//! `pp5 run --annotate` (the annotated listing, `perf annotate` for microcode), the SIMD lane
//! use of each line in it and in the profile, and gcov's habits in `--coverage`: calls apart
//! from branches, a CALLed subroutine as a function of its own, the `LCOV_EXCL_*` markers
//! (issue 37). The numbers are checked by hand on a small microcode with an IF/ELSE and a
//! CALL.

mod common;

use common::{tool_output, Scratch};
use serde_json::Value;
use std::process::{Command, Output};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// HALF(src, dst) (testbench/fixtures/microcode/half.pp5uc): an IF whose part CALLs a
/// subroutine, and an ELSE.
const HALF: &str = include_str!("../../testbench/fixtures/microcode/half.pp5uc");

/// Bits 0..7 = x (odd x: bit 0 set, 8192 PEs); HALF with every PE enabled, then with the
/// odd-x PEs only.
const STREAM: &str = "\
SETENABS
TREEIntoMEM_L3 0 8 1.0 0.0 0.0
HALF 0 8
MEMintoENAB 0
HALF 0 9
";

/// `pp5 run STREAM` over the shipped sources and `name` (holding `src`), with `extra`.
fn run(s: &Scratch, name: &str, src: &str, extra: &[&str]) -> Output {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/microcode");
    let mine = s.file(name, src);
    let stream = s.file("s.pp5s", STREAM);
    let mut args: Vec<String> = vec!["run".into(), stream.display().to_string()];
    for f in [
        format!("{root}/standard.pp5uc"),
        format!("{root}/qee.pp5uc"),
        format!("{root}/flow.pp5uc"),
        mine.display().to_string(),
    ] {
        args.push("--microcode".into());
        args.push(f);
    }
    args.extend(extra.iter().map(|a| a.to_string()));
    Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(&args)
        .output()
        .expect("run pp5")
}

/// The annotated microinstruction of `half.pp5uc`'s line `line` in the JSON report.
fn uinst(j: &Value, line: usize) -> &Value {
    let want = format!("half.pp5uc:{line}");
    j["annotate"]["uinsts"]
        .as_array()
        .expect("uinsts")
        .iter()
        .find(|u| u["src"] == want.as_str())
        .unwrap_or_else(|| panic!("no {want}"))
}

fn lanes(v: &Value) -> (u64, f64, u64) {
    let l = &v["lanes"];
    (
        l["min"].as_u64().expect("min"),
        l["mean"].as_f64().expect("mean"),
        l["max"].as_u64().expect("max"),
    )
}

/// Hand count. Each HALF runs its 8 microinstructions once, one cycle each: IF, CALL,
/// setone's two, ELSE, the ELSE part, ENDIF, dispatch. The PEs enabled (Enable and
/// flow-control active, at the start of the cycle): first HALF (every PE enabled): the IF
/// 16384; the CALL, the subroutine and its RET 8192 (odd x); the ELSE 8192 (odd x still
/// active when it starts); the ELSE part and the ENDIF 8192 (even x); the dispatch 16384.
/// Second HALF (Enable = odd x): IF 8192, CALL/subroutine/RET/ELSE 8192, ELSE part and
/// ENDIF 0 (even x active, none enabled), dispatch 8192.
#[test]
fn the_annotated_listing_counts_a_hand_checked_if_else_and_call() {
    let s = Scratch::new();
    let a = s.path("a.txt");
    let o = run(
        &s,
        "half.pp5uc",
        HALF,
        &[
            &format!("--annotate={}", a.display()),
            "--profile=0",
            "--report",
            "json",
            "--peek",
            "3,0,0,10",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // x = 3: bits 0, 1; the subroutine wrote bit 8, then (odd x enabled) bit 9.
    assert!(
        text(&o.stderr).contains("mem[0:10] = 771"),
        "{}",
        text(&o.stderr)
    );
    let j: Value = serde_json::from_slice(&o.stdout).expect("json");
    let an = &j["annotate"];
    let stream = j["cycles"].as_u64().unwrap() - j["boot_cycles"].as_u64().unwrap();
    assert_eq!(an["cycles"].as_u64(), Some(stream));
    assert_eq!(an["cycles"], j["profile"]["cycles"]);
    let expect: [(usize, (u64, f64, u64)); 8] = [
        (2, (8192, 12288.0, 16384)), // IF
        (3, (8192, 8192.0, 8192)),   // CALL
        (4, (8192, 8192.0, 8192)),   // ELSE
        (5, (0, 4096.0, 8192)),      // the ELSE part
        (6, (0, 4096.0, 8192)),      // ENDIF
        (7, (8192, 12288.0, 16384)), // dispatch
        (8, (8192, 8192.0, 8192)),   // setone
        (9, (8192, 8192.0, 8192)),   // RET
    ];
    for (line, l) in expect {
        let u = uinst(&j, line);
        assert_eq!(u["executions"].as_u64(), Some(2), "line {line}: {u}");
        assert_eq!(u["cycles"].as_u64(), Some(2), "line {line}: {u}");
        assert_eq!(lanes(u), l, "line {line}: {u}");
        let pct = u["percent"].as_f64().unwrap();
        assert!((pct - 200.0 / stream as f64).abs() < 1e-9, "{pct}");
    }
    // The IF and the ELSE never jumped (PEs on both sides); the CALL is a call, no branch.
    assert_eq!(uinst(&j, 2)["branch"]["not_taken"].as_u64(), Some(2));
    assert_eq!(uinst(&j, 2)["branch"]["taken"].as_u64(), Some(0));
    assert_eq!(uinst(&j, 4)["branch"]["not_taken"].as_u64(), Some(2));
    let call = uinst(&j, 3);
    assert!(call.get("branch").is_none(), "{call}");
    assert_eq!(call["call"]["target"], "setone");
    assert_eq!(call["call"]["count"].as_u64(), Some(2));
    for line in [5, 6, 7, 9] {
        assert!(uinst(&j, line).get("branch").is_none(), "line {line}");
    }
    assert_eq!(uinst(&j, 8)["function"], "setone");
    assert_eq!(uinst(&j, 7)["function"], "HALF");
    // The profile's lines have the same lanes; its routine HALF merges its 8 lines.
    let prof = &j["profile"];
    let row = |rows: &str, name: &str| -> Value {
        prof[rows]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    assert_eq!(lanes(&row("lines", "half.pp5uc:5")), (0, 4096.0, 8192));
    // Summed over both runs: IF 24576, CALL, ELSE, setone, RET 16384 each, the ELSE part
    // and ENDIF 8192 each, dispatch 24576: 131072 over 16 executions = 8192.
    assert_eq!(lanes(&row("routines", "HALF")), (0, 8192.0, 16384));
    let calls = prof["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0]["at"], "HALF+1");
    assert_eq!(calls[0]["target"], "setone");
    assert_eq!(calls[0]["count"].as_u64(), Some(2));
    // The text: a header, a line per function, each microinstruction with its numbers.
    let t = std::fs::read_to_string(&a).expect("annotated listing");
    assert!(t.starts_with("microcode annotate:"), "{t}");
    let line = |needle: &str| -> Vec<String> {
        t.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle} in\n{t}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    // %, cycles, execs, stalled, lanes min, mean, max, uinst, at, source
    let if_line = line("half.pp5uc:2 ");
    assert_eq!(&if_line[1..7], ["2", "2", "0", "8192", "12288.0", "16384"]);
    assert_eq!(if_line[8], "HALF+0");
    assert!(
        t.contains("; setone: 4 cycles") && t.contains("called 2 times"),
        "{t}"
    );
    assert!(t.contains("; call setone: 2"), "{t}");
    assert!(t.contains("; branch: taken 0, not taken 2"), "{t}");
    assert!(t.contains("did not run"), "{t}");
}

#[test]
fn annotate_alone_prints_after_the_report_and_lanes_are_in_the_profile_table() {
    let s = Scratch::new();
    let o = run(&s, "half.pp5uc", HALF, &["--annotate", "--profile"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let (p, a) = (
        out.find("microcode profile:").expect("profile"),
        out.find("microcode annotate:").expect("annotate"),
    );
    assert!(p < a, "{out}");
    assert!(out.contains("lanes min/mean/max"), "{out}");
    assert!(out.contains("0/4096.0/8192"), "{out}");
    assert!(out.contains("HALF+1 half.pp5uc:3"), "the calls: {out}");
    // Without --annotate the JSON report has no "annotate".
    let o = run(&s, "half.pp5uc", HALF, &["--report", "json"]);
    let j: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(j.get("annotate").is_none());
}

/// The lcov records of the file whose path ends in `name`.
fn record<'a>(info: &'a str, name: &str) -> Vec<&'a str> {
    info.split("end_of_record\n")
        .find(|r| r.lines().any(|l| l.starts_with("SF:") && l.ends_with(name)))
        .unwrap_or_else(|| panic!("no record for {name} in\n{info}"))
        .lines()
        .collect()
}

fn genhtml(test: &str, s: &Scratch, info: &std::path::Path) {
    let html = s.path("html");
    if let Some(g) = tool_output(
        test,
        "genhtml",
        [
            info.as_os_str(),
            "--branch-coverage".as_ref(),
            "-o".as_ref(),
            html.as_os_str(),
        ],
    ) {
        assert!(g.status.success(), "genhtml: {}", text(&g.stderr));
        assert!(html.join("index.html").is_file());
    }
}

#[test]
fn coverage_counts_a_called_subroutine_as_a_function_and_no_call_as_a_branch() {
    let s = Scratch::new();
    let info = s.path("h.info");
    let o = run(
        &s,
        "half.pp5uc",
        HALF,
        &["--coverage", info.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let t = std::fs::read_to_string(&info).expect("tracefile");
    let r = record(&t, "/half.pp5uc");
    for rec in [
        "FN:2,HALF",
        "FN:8,setone",
        "FNDA:2,HALF",
        "FNDA:2,setone",
        "FNF:2",
        "FNH:2",
        "BRDA:2,0,0,0",
        "BRDA:2,0,1,2",
        "BRDA:4,0,0,0",
        "BRDA:4,0,1,2",
        "BRF:4",
        "BRH:2",
        "DA:3,2",
        "DA:8,2",
        "LF:8",
        "LH:8",
    ] {
        assert!(r.contains(&rec), "{rec} in {r:?}");
    }
    assert!(!r.iter().any(|l| l.starts_with("BRDA:3,")), "CALL: {r:?}");
    genhtml(
        "coverage_counts_a_called_subroutine_as_a_function_and_no_call_as_a_branch",
        &s,
        &info,
    );
}

#[test]
fn lcov_exclusion_markers_take_lines_and_branches_out() {
    let marked = HALF
        .replace("; the pixels whose bit src is set", "; LCOV_EXCL_BR_LINE")
        .replace(
            "         ELSE\n",
            "         ELSE                     ; LCOV_EXCL_LINE\n",
        )
        .replace("setone:", "; LCOV_EXCL_START\nsetone:")
        + "; LCOV_EXCL_STOP\n";
    let s = Scratch::new();
    let info = s.path("x.info");
    let o = run(
        &s,
        "half.pp5uc",
        &marked,
        &["--coverage", info.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let t = std::fs::read_to_string(&info).expect("tracefile");
    let r = record(&t, "/half.pp5uc");
    // Kept: the IF's line (its branches out), the CALL, the ELSE part, ENDIF, dispatch.
    let da: Vec<&str> = r.iter().copied().filter(|l| l.starts_with("DA:")).collect();
    assert_eq!(
        da,
        ["DA:2,2", "DA:3,2", "DA:5,2", "DA:6,2", "DA:7,2"],
        "{r:?}"
    );
    assert!(!r.iter().any(|l| l.starts_with("BRDA:")), "{r:?}");
    assert!(r.contains(&"BRF:0") && r.contains(&"LF:5") && r.contains(&"LH:5"));
    // The subroutine starts in the excluded region: no function of its own.
    assert!(r.contains(&"FN:2,HALF") && r.contains(&"FNF:1"), "{r:?}");
    assert!(!r.iter().any(|l| l.contains("setone")), "{r:?}");
    genhtml(
        "lcov_exclusion_markers_take_lines_and_branches_out",
        &s,
        &info,
    );
}
