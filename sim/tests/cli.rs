//! The `pp5` binary as scripts use it: outputs, files written, and the documented exit codes
//! (0 success; 1 I/O; 2 usage; 3 bad input; 4 simulated hardware error; 5 cycle limit).

mod common;

use common::Scratch;
use pp5_sim::asm::microcode;
use pp5_sim::stream::{binary, text, Port, SentKind};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pp5(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pp5"));
    for a in args {
        c.arg(a);
    }
    c.output().expect("run pp5")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn show(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status.code(),
        stdout(o),
        stderr(o)
    )
}

#[test]
fn demo_writes_a_vcd_and_a_gtkw_and_prints_the_gtkwave_line() {
    let dir = Scratch::new();
    let vcd = dir.path("d.vcd");
    let o = pp5(&[&"demo", &"--wave", &vcd]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    assert!(vcd.is_file());
    let gtkw = dir.path("d.gtkw");
    assert!(gtkw.is_file());
    assert!(
        dir.path("d.pp5s").is_file(),
        "the demo stream is written beside it"
    );
    let err = stderr(&o);
    let line = format!("gtkwave {} {}", vcd.display(), gtkw.display());
    assert!(
        err.lines().any(|l| l.trim_start().ends_with(&line)),
        "{}",
        show(&o)
    );
    assert!(
        stdout(&o).starts_with("stopped: stream finished, board idle\n"),
        "{}",
        show(&o)
    );
    // The .gtkw names the VCD it belongs to.
    let save = std::fs::read_to_string(&gtkw).expect("gtkw");
    assert!(save.contains("d.vcd"), "{save}");
    // The written demo stream runs again with `pp5 run`, with the same result.
    let again = pp5(&[&"run", &dir.path("d.pp5s")]);
    assert_eq!(code(&again), 0, "{}", show(&again));
    let cycles = |s: &str| s.lines().nth(1).map(str::to_string);
    assert_eq!(cycles(&stdout(&again)), cycles(&stdout(&o)));
}

#[test]
fn demo_writes_an_fst_too() {
    let dir = Scratch::new();
    let fst = dir.path("d.fst");
    let o = pp5(&[&"demo", &"--wave", &fst]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    assert!(fst.is_file() && dir.path("d.gtkw").is_file());
}

/// The times GTKWave shows for a waveform's first `n` time steps: for an FST, as GTKWave's
/// own `fst2vcd` prints them, with the header's time zero added as GTKWave adds it (`None`:
/// `fst2vcd` is not installed, see [`common::tool_output`]; for the test `test`).
fn gtkwave_times(test: &str, path: &Path, n: usize) -> Option<Vec<u64>> {
    let text = if path.extension().is_some_and(|e| e == "fst") {
        let o = common::tool_output(test, "fst2vcd", [path])?;
        String::from_utf8_lossy(&o.stdout).into_owned()
    } else {
        std::fs::read_to_string(path).expect("read vcd")
    };
    let mut words = text.split_whitespace();
    let mut zero = 0;
    while let Some(w) = words.next() {
        if w == "$timezero" {
            zero = words
                .next()
                .and_then(|z| z.parse().ok())
                .expect("time zero");
        }
        if w == "$enddefinitions" {
            break;
        }
    }
    let times = text
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .filter_map(|t| t.trim().parse::<u64>().ok())
        .map(|t| t + zero)
        .take(n)
        .collect();
    Some(times)
}

#[test]
fn gtkwave_shows_an_fst_at_the_same_times_as_the_vcd() {
    const T: &str = "gtkwave_shows_an_fst_at_the_same_times_as_the_vcd";
    // The trace starts after the microcode boot (111.225 us): GTKWave must show the FST's
    // changes there, not 111.225 us later (issue 21, item 1).
    let dir = Scratch::new();
    let s = dir.path("s.pp5s");
    std::fs::write(&s, "SETENABS\nMEMplusMEM 0 8 16 8 8\n").expect("write stream");
    let (vcd, fst) = (dir.path("a.vcd"), dir.path("a.fst"));
    for (flag, w) in [("--vcd", &vcd), ("--fst", &fst)] {
        let o = pp5(&[&"run", &s, &flag, w]);
        assert_eq!(code(&o), 0, "{}", show(&o));
    }
    let want = gtkwave_times(T, &vcd, 5).expect("vcd");
    assert!(
        want[0] > 100_000_000,
        "the trace starts after the boot: {want:?}"
    );
    if let Some(got) = gtkwave_times(T, &fst, 5) {
        assert_eq!(got, want);
    }
}

#[test]
fn endless_input_is_refused_with_bounded_memory() {
    // /dev/zero as a stream, a stream to convert, microcode and a scene: read up to the input
    // limit, then exit 3 naming the file (it once grew past 4 GB).
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let dir = Scratch::new();
    let s = dir.path("s.pp5s");
    std::fs::write(&s, "SETENABS\n").expect("write stream");
    for args in [
        vec!["run", "/dev/zero"],
        vec!["stream", "/dev/zero"],
        vec!["render", "/dev/zero"],
        vec!["run", s.to_str().expect("path"), "--microcode", "/dev/zero"],
    ] {
        let args: Vec<&dyn AsRef<std::ffi::OsStr>> = args
            .iter()
            .map(|a| a as &dyn AsRef<std::ffi::OsStr>)
            .collect();
        let o = pp5(&args);
        assert_eq!(code(&o), 3, "{}", show(&o));
        assert!(
            stderr(&o).contains("/dev/zero: larger than the input limit of 64 MiB"),
            "{}",
            show(&o)
        );
    }
}

#[test]
fn the_default_view_opens_on_the_igc_and_the_array() {
    // Without --scope, the .gtkw lists the IGC (with the command's name and the cycle number)
    // and the array first, open, and the ports, semaphores and transfer after them, closed.
    let dir = Scratch::new();
    let s = dir.path("s.pp5s");
    std::fs::write(&s, "SETENABS\nMEMplusMEM 0 8 16 8 8\n").expect("write stream");
    let vcd = dir.path("a.vcd");
    let o = pp5(&[&"run", &s, &"--vcd", &vcd]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let gtkw = std::fs::read_to_string(dir.path("a.gtkw")).expect("gtkw");
    let mut groups = Vec::new();
    let mut flags = "";
    for line in gtkw.lines() {
        if let Some(f) = line.strip_prefix('@') {
            flags = f;
        } else if let Some(name) = line.strip_prefix('-') {
            match flags {
                "800200" => groups.push((name, false)),
                "c00200" => groups.push((name, true)),
                _ => {}
            }
        }
    }
    let closed: Vec<&str> = groups.iter().filter(|g| g.1).map(|g| g.0).collect();
    let open: Vec<&str> = groups.iter().filter(|g| !g.1).map(|g| g.0).collect();
    for g in [
        "renderer",
        "renderer.igc",
        "renderer.qee",
        "renderer.emc_array",
    ] {
        assert!(open.contains(&g), "{g} open in {groups:?}");
    }
    for g in [
        "renderer.igc_port",
        "renderer.bs_port",
        "renderer.transfer",
        "renderer.bs_sem",
    ] {
        assert!(closed.contains(&g), "{g} closed in {groups:?}");
    }
    assert!(
        groups.iter().skip_while(|g| !g.1).all(|g| g.1),
        "{groups:?}"
    );
    assert!(gtkw.contains("\nrenderer.igc.command\n") && gtkw.contains("\nrenderer.cycle[26:0]\n"));
    // `renderer.cycle` is as wide as the default cycle limit (100,000,000) needs: 27 bits.
    let vcd_text = std::fs::read_to_string(&vcd).expect("vcd");
    let decl = vcd_text.lines().find(|l| l.ends_with(" cycle $end"));
    assert!(
        decl.is_some_and(|l| l.starts_with("$var wire 27 ")),
        "{decl:?}"
    );
    // The command's name and the cycle number in the waveform, as the report has them.
    let text = std::fs::read_to_string(&vcd).expect("vcd");
    assert!(
        text.contains("sMEMplusMEM "),
        "the command's name as a string signal"
    );
}

#[test]
fn syntax_error_exits_3_with_file_and_line() {
    let dir = Scratch::new();
    let s = dir.file("bad.pp5s", "SETENABS\n# a comment\nCLEAR 0\nNOOP\n");
    let o = pp5(&[&"run", &s]);
    assert_eq!(code(&o), 3, "{}", show(&o));
    let want = format!("{}:3: ", s.display());
    assert!(stderr(&o).contains(&want), "{}", show(&o));
    assert!(stdout(&o).is_empty());
    // An unknown command and a bad number too.
    let s = dir.file("bad2.pp5s", "NOOP\nNOOP\nFROB 1 2\n");
    let o = pp5(&[&"run", &s]);
    assert_eq!(code(&o), 3);
    assert!(
        stderr(&o).contains(&format!("{}:3: ", s.display())),
        "{}",
        show(&o)
    );
    let s = dir.file("bad3.pp5s", "CLEAR 0 0x\n");
    let o = pp5(&[&"run", &s]);
    assert_eq!(code(&o), 3);
    assert!(
        stderr(&o).contains(&format!("{}:1: ", s.display())),
        "{}",
        show(&o)
    );
}

/// A stream that cannot be read is an I/O error: exit 1, as the README documents (issue 21).
#[test]
fn missing_input_exits_1() {
    let dir = Scratch::new();
    let o = pp5(&[&"run", &dir.path("nope.pp5s")]);
    assert_eq!(code(&o), 1, "{}", show(&o));
    assert!(stderr(&o).contains("nope.pp5s"));
}

#[test]
fn bad_microcode_exits_3_with_file_and_line() {
    let dir = Scratch::new();
    let uc = dir.file("bad.pp5uc", "idle: dispatch\n\nx: jump nowhere\n");
    let s = dir.file("s.pp5s", "NOOP\n");
    let o = pp5(&[&"run", &s, &"--microcode", &uc]);
    assert_eq!(code(&o), 3, "{}", show(&o));
    assert!(
        stderr(&o).contains(&format!("{}:3: unknown label `nowhere`", uc.display())),
        "{}",
        show(&o)
    );
    let o = pp5(&[&"asm", &uc]);
    assert_eq!(code(&o), 3, "{}", show(&o));
}

/// The assembler's messages escape the control characters they quote (`\u{0}`), in `pp5 asm`
/// and in `pp5 run --microcode`, as the stream parser's do (issue 27 item 8).
#[test]
fn microcode_errors_do_not_echo_control_characters() {
    let dir = Scratch::new();
    let uc = dir.file("nul.pp5uc", "x:  bogus\u{0}thing\n");
    let s = dir.file("s.pp5s", "NOOP\n");
    for o in [pp5(&[&"asm", &uc]), pp5(&[&"run", &s, &"--microcode", &uc])] {
        assert_eq!(code(&o), 3, "{}", show(&o));
        assert!(!o.stderr.contains(&0), "{}", show(&o));
        assert!(stderr(&o).contains("`bogus\\u{0}thing`"), "{}", show(&o));
    }
}

/// `pp5 asm` keeps and prints the first `MAX_ASM_ERRORS` errors by line and counts the rest,
/// so a long file of bad lines costs bounded memory (issue 27 item 1).
#[test]
fn asm_prints_at_most_the_error_cap_and_counts_the_rest() {
    let dir = Scratch::new();
    let n = microcode::MAX_ASM_ERRORS + 150;
    let uc = dir.file("bogus.pp5uc", &"bogus\n".repeat(n));
    let o = pp5(&[&"asm", &uc]);
    assert_eq!(code(&o), 3, "{}", show(&o));
    let err = stderr(&o);
    let first = format!("{}:1: ", uc.display());
    let last = format!("{}:{}: ", uc.display(), microcode::MAX_ASM_ERRORS);
    let past = format!("{}:{}: ", uc.display(), microcode::MAX_ASM_ERRORS + 1);
    assert!(err.contains(&first) && err.contains(&last), "{err}");
    assert!(!err.contains(&past), "{err}");
    assert!(err.contains("and 150 more errors"), "{err}");
    // Each error is its line, the source line and its caret.
    assert!(
        err.lines().count() <= 3 * microcode::MAX_ASM_ERRORS + 3,
        "{err}"
    );
}

/// A short text that asks for more Ring words than the input limit holds is refused at the
/// line that crosses the limit, exit 3, before its words fill memory (issue 27 item 1).
#[test]
fn a_stream_expanding_past_the_limit_exits_3_naming_the_line() {
    let dir = Scratch::new();
    let text = format!(
        "message bs oversize\n{}",
        "BS_RECEIVE 5 0 128 fill=1\n".repeat(1100)
    );
    let s = dir.file("amp.pp5s", &text);
    let limit = pp5_sim::stream::MAX_STREAM_WORDS;
    // Each line is 3 + 128 * 128 words; the line that crosses the limit:
    let line = limit / (3 + 128 * 128) + 2;
    let out = dir.path("amp.bin");
    let stream: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"stream", &s, &"-o", &out];
    let run: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"run", &s];
    for a in [stream, run] {
        let o = pp5(&a);
        assert_eq!(code(&o), 3, "{}", show(&o));
        let err = stderr(&o);
        assert!(
            err.contains(&format!("{}:{line}: ", s.display())),
            "{}",
            show(&o)
        );
        assert!(err.contains(&limit.to_string()), "{}", show(&o));
        assert!(!out.exists(), "{}", show(&o));
    }
}

#[test]
fn cycle_limit_exits_5() {
    let dir = Scratch::new();
    let s = dir.file("s.pp5s", "SETENABS\nCLEAR 0 8\n");
    let o = pp5(&[&"run", &s, &"--max-cycles", &"10"]);
    assert_eq!(code(&o), 5, "{}", show(&o));
    assert!(
        stdout(&o).starts_with("stopped: cycle limit reached"),
        "{}",
        show(&o)
    );
    assert!(stdout(&o).contains("cycles:  10 at 40 MHz"), "{}", show(&o));
}

#[test]
fn formatting_error_exits_4() {
    let img = microcode::standard();
    let (spec, form) = img.table.resolve("SCAIntoMEM_S1").expect("macro");
    let op = spec.encode(form, &[0, 8], &[1]).expect("encode")[0];
    let dir = Scratch::new();
    let s = dir.file(
        "fmt.pp5s",
        &format!("message\nSETENABS\nword {op:#x}\nmessage\nNOOP\n"),
    );
    let o = pp5(&[&"run", &s]);
    assert_eq!(code(&o), 4, "{}", show(&o));
    let out = stdout(&o);
    assert!(out.contains("errors: 29: IGC formatting error"), "{out}");
    assert!(
        out.contains("igc ERROR to 0x0: id 0x00000005 status 0x200000"),
        "{out}"
    );
    assert!(
        out.contains("message ended in the middle of a command"),
        "{out}"
    );
}

#[test]
fn a_stream_ending_mid_command_is_reported_as_a_deadlock() {
    let img = microcode::standard();
    let (spec, form) = img.table.resolve("SCAIntoMEM_S1").expect("macro");
    let op = spec.encode(form, &[0, 8], &[1]).expect("encode")[0];
    let dir = Scratch::new();
    let s = dir.file("tail.pp5s", &format!("SETENABS\nword {op:#x}\n"));
    let o = pp5(&[&"run", &s]);
    // The parser waits for words that never come: nothing can happen any more.
    assert_eq!(code(&o), 6, "{}", show(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("stopped: deadlock: no block can make progress since cycle"),
        "{out}"
    );
    assert!(
        out.contains(
            "igc_port.parser waits for the rest of a command (parser in PWORD); the IGC stream has ended"
        ),
        "{out}"
    );
}

#[test]
fn hang_exits_4() {
    let dir = Scratch::new();
    let s = dir.file("hang.pp5s", "SETENABS\nHANG\n");
    let o = pp5(&[&"run", &s]);
    assert_eq!(code(&o), 4, "{}", show(&o));
    assert!(
        stdout(&o).starts_with("stopped: IGC stuck: the IGC executed HANG"),
        "{}",
        show(&o)
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = Scratch::new();
    let s = dir.file("s.pp5s", "NOOP\n");
    for probe in ["200,0", "1", "a,b", "1,2,3"] {
        let o = pp5(&[&"run", &s, &"--probe", &probe]);
        assert_eq!(code(&o), 2, "--probe {probe}: {}", show(&o));
        assert!(stderr(&o).contains("--probe"), "{}", show(&o));
    }
    let o = pp5(&[
        &"run",
        &s,
        &"--vcd",
        &dir.path("a.vcd"),
        &"--fst",
        &dir.path("a.fst"),
    ]);
    assert_eq!(code(&o), 2, "{}", show(&o));
    assert!(!dir.path("a.vcd").exists());
    let o = pp5(&[&"run", &s, &"--window", &"9:3"]);
    assert_eq!(code(&o), 2, "{}", show(&o));
    for emc in ["64", "-1", "", "x", "3,4", "all5", "99999999999999999999"] {
        let vcd = dir.path("e.vcd");
        let o = pp5(&[&"run", &s, &"--vcd", &vcd, &format!("--trace-emc={emc}")]);
        assert_eq!(code(&o), 2, "--trace-emc {emc}: {}", show(&o));
        assert!(stderr(&o).contains("--trace-emc"), "{}", show(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", show(&o));
        assert!(!vcd.exists());
    }
    let o = pp5(&[&"frobnicate"]);
    assert_eq!(code(&o), 2, "{}", show(&o));
    let o = pp5(&[&"stream", &s]);
    assert_eq!(code(&o), 2, "binary output needs -o: {}", show(&o));
}

#[test]
fn stream_text_to_binary_and_back_round_trips() {
    let img = microcode::standard();
    let dir = Scratch::new();
    let src = "\
SETENABS
SCAIntoMEM_S1 0 16 -3
SCAIntoMEM_TBL 16 8 1 2 3
CPY 32 0 16
message flush
SET 64 8
message
word 0x80000012 7
MCWRITE 12 0xdeadbeef
";
    let s = dir.file("x.pp5s", src);
    let bin = dir.path("x.bin");
    let o = pp5(&[&"stream", &s, &"-o", &bin]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let bytes = std::fs::read(&bin).expect("binary written");
    assert!(binary::is_binary(&bytes));
    let original = text::parse(src, "x", &img.table).expect("parse");
    assert!(binary::read(&bytes[..])
        .expect("read")
        .same_words(&original));
    // Disassemble to standard output, then assemble that text again: the same words.
    let o = pp5(&[&"stream", &bin]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let dis = stdout(&o);
    let back = text::parse(&dis, "dis", &img.table).unwrap_or_else(|e| panic!("{e}\n{dis}"));
    assert!(back.same_words(&original), "{dis}");
    // And to a file.
    let txt = dir.path("y.pp5s");
    let o = pp5(&[&"stream", &bin, &"-o", &txt]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    assert_eq!(std::fs::read_to_string(&txt).expect("text"), dis);
    // A binary stream runs like its text.
    let a = pp5(&[&"run", &s]);
    let b = pp5(&[&"run", &bin]);
    assert_eq!(code(&a), code(&b));
    assert_eq!(stdout(&a), stdout(&b));
}

#[test]
fn truncated_binary_stream_exits_3() {
    let dir = Scratch::new();
    let s = dir.file("x.pp5s", "SETENABS\nCLEAR 0 8\n");
    let bin = dir.path("x.bin");
    assert_eq!(code(&pp5(&[&"stream", &s, &"-o", &bin])), 0);
    let bytes = std::fs::read(&bin).expect("read");
    let cut = dir.path("cut.bin");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).expect("write");
    let o = pp5(&[&"run", &cut]);
    assert_eq!(code(&o), 3, "{}", show(&o));
    assert!(stderr(&o).contains("truncated"), "{}", show(&o));
    let o = pp5(&[&"stream", &cut]);
    assert_eq!(code(&o), 3, "{}", show(&o));
}

#[test]
fn asm_prints_the_opcode_table_and_writes_an_image() {
    let img = microcode::default_image();
    let o = pp5(&[&"asm"]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let out = stdout(&o);
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some(
            format!(
                "{} microinstructions, {} store words",
                img.uinsts,
                img.words.len()
            )
            .as_str()
        )
    );
    assert!(
        lines.next().is_some_and(|l| l.starts_with("command")),
        "{out}"
    );
    // One row per command, hardwired ones included, in table order.
    let rows: Vec<&str> = lines
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    let names: Vec<&str> = img.table.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(rows, names);
    assert!(out.contains("SCAIntoMEM"));
    assert!(out
        .lines()
        .any(|l| l.starts_with("MCWRITE") && l.contains("0xfa") && l.contains("hw")));
    assert!(out
        .lines()
        .any(|l| l.starts_with("SCAIntoMEM") && l.ends_with("_S0 _S1 _TBL")));
    // The image file loads back as the same image; the header has the macros.
    let dir = Scratch::new();
    let json = dir.path("std.json");
    let h = dir.path("igc_opcodes.h");
    let o = pp5(&[&"asm", &"-o", &json, &"--header", &h]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let text = std::fs::read_to_string(&json).expect("image");
    assert_eq!(
        microcode::McImage::load(&text, "std.json").expect("load"),
        img
    );
    let header = std::fs::read_to_string(&h).expect("header");
    assert!(header.contains("Ix_SCAIntoMEM_TBL"), "{header}");
    // And a run with that image as --microcode behaves as the default.
    let s = dir.file("s.pp5s", "SETENABS\nCLEAR 0 8\n");
    let a = pp5(&[&"run", &s]);
    let b = pp5(&[&"run", &s, &"--microcode", &json]);
    assert_eq!(code(&b), 0, "{}", show(&b));
    assert_eq!(stdout(&a), stdout(&b));
}

#[test]
fn json_and_csv_reports() {
    let dir = Scratch::new();
    let s = dir.file("s.pp5s", "SETENABS\nCLEAR 0 8\nSET 8 4\n");
    let o = pp5(&[&"run", &s, &"--report", &"json"]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON report");
    assert_eq!(v["stop"], "Done");
    let cmds = v["commands"].as_array().expect("commands");
    let names: Vec<&str> = cmds.iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(names, ["SETENABS", "CLEAR", "SET"]);
    assert_eq!(cmds[1]["cycles"], 9);
    assert_eq!(cmds[2]["cycles"], 5);
    let o = pp5(&[&"run", &s, &"--report", &"csv"]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "port,index,name,operands,start,cycles,executing,semaphore_wait,fifo_empty,transfer_stall,tx_hold,idle,hung"
    );
    // Three commands, then a total per block (igc, bs_port, transfer, igc_tx).
    assert_eq!(lines.len(), 8, "{out}");
    assert!(lines[2].starts_with("igc,1,CLEAR,0 8,"), "{out}");
    let f: Vec<&str> = lines[2].split(',').collect();
    assert_eq!((f[5], f[6]), ("9", "9"), "9 cycles, all executing: {out}");
    assert!(lines[4].starts_with("igc,total,"), "{out}");
}

#[test]
fn run_with_vcd_and_peek() {
    let dir = Scratch::new();
    let s = dir.file("s.pp5s", "SETENABS\nSCAIntoMEM_S1 0 8 77\n");
    let vcd = dir.path("r.vcd");
    let o = pp5(&[
        &"run", &s, &"--vcd", &vcd, &"--peek", &"3,4,0,8", &"--probe", &"3,4",
    ]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    assert!(vcd.is_file() && dir.path("r.gtkw").is_file());
    assert!(
        stderr(&o).contains("peek pixel (3,4) mem[0:8] = 77 (0x4d)"),
        "{}",
        show(&o)
    );
    let text = std::fs::read_to_string(&vcd).expect("vcd");
    assert!(
        text.contains("$scope module pixel_3_4 $end"),
        "the probe is traced"
    );
}

#[test]
fn unwritable_waveform_exits_1() {
    let dir = Scratch::new();
    let vcd = dir.path("no/such/dir/d.vcd");
    // `demo` writes its stream file beside the waveform first, and says which file failed.
    let o = pp5(&[&"demo", &"--wave", &vcd]);
    assert_eq!(code(&o), 1, "{}", show(&o));
    assert!(stderr(&o).contains("no/such/dir/d.pp5s"), "{}", show(&o));
    assert!(!vcd.exists());
    // `run` fails on the waveform itself.
    let stream = dir.path("s.pp5s");
    std::fs::write(&stream, "NOOP\n").expect("write stream");
    let o = pp5(&[&"run", &stream, &"--vcd", &vcd]);
    assert_eq!(code(&o), 1, "{}", show(&o));
    assert!(stderr(&o).contains("no/such/dir/d.vcd: "), "{}", show(&o));
    assert!(!vcd.exists());
}

#[test]
fn trace_emc_selects_the_per_emc_qee_scopes() {
    let dir = Scratch::new();
    let s = dir.file(
        "q.pp5s",
        "SETENABS\nFBITS 4\nTREEIntoMEM_L3 0 8 1.0 2.0 3.0\n",
    );
    let scopes = |vcd: &std::path::Path| -> Vec<String> {
        let text = std::fs::read_to_string(vcd).expect("vcd");
        text.lines()
            .filter_map(|l| l.strip_prefix("$scope module emc["))
            .map(|l| l.split(']').next().unwrap_or("").to_string())
            .collect()
    };
    // Default: EMC 0 and the probes' EMCs ((100,100) is in EMC 60).
    let vcd = dir.path("d.vcd");
    let o = pp5(&[&"run", &s, &"--vcd", &vcd, &"--probe", &"100,100"]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    assert_eq!(scopes(&vcd), ["0", "60"]);
    // Explicit EMCs replace the default, in increasing order, duplicates once.
    let vcd = dir.path("e.vcd");
    let o = pp5(&[
        &"run",
        &s,
        &"--vcd",
        &vcd,
        &"--trace-emc",
        &"63",
        &"--trace-emc",
        &"5",
        &"--trace-emc",
        &"63",
    ]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    assert_eq!(scopes(&vcd), ["5", "63"]);
    let gtkw = std::fs::read_to_string(dir.path("e.gtkw")).expect("gtkw");
    assert!(gtkw.contains("-renderer.emc[63].qee\n"), "{gtkw}");
    assert!(
        gtkw.contains("renderer.emc[5].qee.chain_C[63:0]\n"),
        "{gtkw}"
    );
    // `all` (any case), on `demo` too.
    let vcd = dir.path("all.vcd");
    let o = pp5(&[&"demo", &"--wave", &vcd, &"--trace-emc", &"ALL"]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let all = scopes(&vcd);
    assert_eq!(all.len(), 64);
    assert_eq!(all[..3], ["0", "1", "2"]);
    // The help says what the default is.
    let help = stdout(&pp5(&[&"run", &"--help"]));
    assert!(help.contains("--trace-emc <K>"), "{help}");
    assert!(
        help.contains("Default: EMC 0 and the EMCs that hold the probe"),
        "{help}"
    );
}

#[test]
fn two_port_run_with_a_bs_stream_and_the_sent_messages_in_a_file() {
    let dir = Scratch::new();
    // The IGC side stores bits 0-31 into sector 4 and V's the BS semaphore when the transfer
    // is done; the BS side (a second file) waits for it, sends the sector's first scanline
    // and a status message.
    let igc = dir.file(
        "igc.pp5s",
        "SETENABS\nSCAIntoMEM_S1 0 32 0x1234\nBSSTORE 4\nVBSlater\nPIGC\nSENDSTATUS_S1 0x777700 0x41\n",
    );
    let bs = dir.file(
        "bs.pp5s",
        "message bs at=100\nBS_PBS\nBS_TRANSMIT 4 0 1 0x40\nBS_VIGC\n",
    );
    let sent = dir.path("sent.bin");
    let o = pp5(&[
        &"run",
        &igc,
        &"--bs",
        &bs,
        &"--tx-out",
        &sent,
        &"--report",
        &"json",
    ]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["stop"], "Done");
    let bs_names: Vec<&str> = v["bs_commands"]
        .as_array()
        .expect("bs_commands")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(bs_names, ["BS_PBS", "BS_TRANSMIT", "BS_VIGC"]);
    // BS_PBS waited for the transfer: its cycles are semaphore waits.
    assert!(v["bs_commands"][0]["causes"]["semaphore_wait"].as_u64() > Some(4000));
    assert_eq!(v["causes"]["transfer"]["executing"], 4096);
    assert_eq!(v["transfers"][0]["dir"], "STORE");
    assert_eq!(v["sent"].as_array().map(Vec::len), Some(2));
    // The binary file holds the data message and the status message, with their ports and
    // start cycles.
    let bytes = std::fs::read(&sent).expect("sent.bin");
    let s = binary::read(&bytes[..]).expect("PP5R");
    assert_eq!(s.messages.len(), 2);
    let data = &s.messages[0];
    assert_eq!(
        (data.port, data.dest, data.body.len()),
        (Port::Bs, 0x40, 128)
    );
    assert!(
        data.body.iter().all(|&w| w == 0x1234),
        "the stored scanline"
    );
    let status = &s.messages[1];
    assert_eq!((status.port, status.dest), (Port::Igc, 0x41));
    assert_eq!(status.body[0], 0x777705, "the ID carries the board ID");
    assert!(status.at > data.at);
    assert_eq!(
        (data.sent, status.sent),
        (Some(SentKind::Data), Some(SentKind::Status))
    );
    // `pp5 stream` shows the messages as the board sent them (not as BS commands), and its
    // text reads back to the same file.
    let o = pp5(&[&"stream", &sent]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let text = stdout(&o);
    assert!(
        text.contains(&format!(
            "message bs sent=data dest=0x40 at={}",
            data.at.unwrap()
        )),
        "{text}"
    );
    assert!(text.contains("# scanline segment 0"), "{text}");
    assert!(
        text.contains("message igc sent=status dest=0x41")
            && text.contains("ID 0x00777705, status"),
        "{text}"
    );
    assert!(!text.contains("bogus"), "{text}");
    let back = dir.file("sent.pp5s", &text);
    let again = dir.path("again.bin");
    let o = pp5(&[&"stream", &back, &"-o", &again]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    assert_eq!(std::fs::read(&again).unwrap(), bytes);
    // What a board sent is not a stream to send it.
    for f in [&sent, &back] {
        let o = pp5(&[&"run", f]);
        assert_eq!(code(&o), 3, "{}", show(&o));
        assert!(
            stderr(&o).contains("message 0 is one a board sent (`sent=data`"),
            "{}",
            show(&o)
        );
    }

    // A --bs file must hold BS messages only.
    let o = pp5(&[&"run", &igc, &"--bs", &igc]);
    assert_eq!(code(&o), 3, "{}", show(&o));
    assert!(
        stderr(&o).contains("--bs takes messages for the BS port only"),
        "{}",
        show(&o)
    );
}

#[test]
fn a_deadlock_exits_6_with_who_waits_on_what() {
    let dir = Scratch::new();
    let s = dir.file("dl.pp5s", "PIGC\nmessage bs\nBS_PBS\n");
    let wave = dir.path("dl.vcd");
    let o = pp5(&[&"run", &s, &"--vcd", &wave]);
    assert_eq!(code(&o), 6, "{}", show(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("stopped: deadlock: no block can make progress since cycle"),
        "{out}"
    );
    assert!(
        out.contains("igc waits for the IGC semaphore to be non-zero (PIGC; no BS_VIGC"),
        "{out}"
    );
    assert!(
        out.contains("bs_port waits for the BS semaphore to be non-zero (BS_PBS"),
        "{out}"
    );
    // The waveform is closed and readable.
    let text = std::fs::read_to_string(&wave).expect("vcd");
    assert!(text.contains("$enddefinitions"));
    assert!(dir.path("dl.gtkw").exists());
}

/// `pp5 bench` on a short stream: every figure with each of its runs, the slowdowns and the
/// second-core figure, the same cycle count for the ALU stream run alone and two at once (the
/// bench itself fails if the two simultaneous runs disagree), and no waveform left behind.
#[test]
fn bench_prints_every_figure_and_cleans_up() {
    let s = Scratch::new();
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(["bench", "--reps", "10", "--runs", "2"])
        .env("TMPDIR", s.dir())
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let figure = |name: &str| -> (u64, usize) {
        let line = out
            .lines()
            .find(|l| {
                l.strip_prefix(name)
                    .is_some_and(|r| r.starts_with(char::is_whitespace))
            })
            .unwrap_or_else(|| panic!("no `{name}` line in\n{out}"));
        let fields: Vec<&str> = line[name.len()..].split_whitespace().collect();
        // cycles, seconds, cycles/s, then every run's seconds.
        let cycles = fields[0].parse().expect("cycles");
        assert!(fields[1].parse::<f64>().expect("seconds") > 0.0);
        (cycles, fields.len() - 3)
    };
    let (alu, runs) = figure("ALU stream, tracing off");
    assert!(alu > 1000, "{out}");
    assert_eq!(runs, 2, "{out}");
    assert_eq!(figure("ALU stream, VCD"), (alu, 2));
    assert_eq!(figure("ALU stream, off, two at once"), (alu, 2));
    let (tri, runs) = figure("QEE triangles, tracing off");
    assert!(tri > 1000 && runs == 2, "{out}");
    assert_eq!(figure("QEE triangles, VCD"), (tri, 2));
    // Each summary line: its two ratios, finite and positive.
    for l in [
        "ALU stream: tracing slowdown",
        "QEE triangles: tracing slowdown",
        "second core: two untraced ALU runs at once take",
    ] {
        let line = out
            .lines()
            .find(|x| x.starts_with(l))
            .unwrap_or_else(|| panic!("no `{l}` in\n{out}"));
        let ratios: Vec<f64> = line
            .split_whitespace()
            .filter_map(|w| w.strip_suffix('x').and_then(|n| n.parse().ok()))
            .collect();
        assert!(ratios.len() >= 2, "{line}");
        assert!(
            ratios[..2].iter().all(|r| r.is_finite() && *r > 0.0),
            "{line}"
        );
    }
    // The QEE stream's speed as a share of the ALU stream's, from the two untraced figures.
    let share: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("QEE triangles / ALU stream, tracing off: "))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no QEE/ALU share in\n{out}"));
    let cps = |name: &str| -> f64 {
        let line = out.lines().find(|l| l.starts_with(name)).expect(name);
        line[name.len()..]
            .split_whitespace()
            .nth(2)
            .expect("cycles/s")
            .parse()
            .expect("number")
    };
    let want = cps("QEE triangles, tracing off") / cps("ALU stream, tracing off");
    assert!(
        (share - want).abs() < 0.011,
        "{share} against {want}\n{out}"
    );
    // The render figures: the same frame (the same cycles) on one thread and on all.
    let (one, runs) = figure("render spheres, 1 thread");
    assert!(one > 100_000 && runs == 2, "{out}");
    let all = out
        .lines()
        .find(|l| l.starts_with("render spheres, ") && l.contains(" threads "))
        .unwrap_or_else(|| panic!("no all-threads render figure in\n{out}"));
    let name_end = all.find(" threads").expect("name") + " threads".len();
    assert_eq!(figure(&all[..name_end]), (one, 2));
    let speedup: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("render: "))
        .and_then(|r| {
            r.split_whitespace()
                .find_map(|w| w.strip_suffix('x')?.parse().ok())
        })
        .unwrap_or_else(|| panic!("no render speed-up in\n{out}"));
    assert!(speedup > 0.0 && speedup.is_finite(), "{out}");
    let left: Vec<_> = std::fs::read_dir(s.dir()).expect("dir").collect();
    assert!(left.is_empty(), "the bench left files behind: {left:?}");
}

/// `pp5 bench --save-streams DIR` writes the bench's two streams, which `pp5 run` runs, and
/// measures nothing.
#[test]
fn bench_saves_its_streams_for_a_profiler() {
    let s = Scratch::new();
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(["bench", "--reps", "20", "--save-streams"])
        .arg(s.dir())
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        !stdout(&o).contains("cycles/s"),
        "it measured: {}",
        stdout(&o)
    );
    for name in ["alu.bin", "triangles.pp5s"] {
        let path = s.path(name);
        assert!(
            stdout(&o).contains(&*path.to_string_lossy()),
            "{}",
            stdout(&o)
        );
        let r = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .args(["run", "--report", "json"])
            .arg(&path)
            .output()
            .expect("run pp5");
        assert_eq!(code(&r), 0, "{name}: {}", stderr(&r));
        let report: serde_json::Value = serde_json::from_str(&stdout(&r)).expect("json");
        assert_eq!(report["stop"], "Done", "{name}");
        assert!(
            report["user_cycles"].as_u64().expect("cycles") > 1000,
            "{name}"
        );
    }
    let text = std::fs::read_to_string(s.path("triangles.pp5s")).expect("text");
    assert_eq!(
        text.matches("FEDGE_L3").count(),
        2,
        "20 reps: 2 passes of the triangles"
    );
    // A directory that does not exist is made, as `render --save-streams` makes it (issue
    // 27, item 4), but not its missing parents (item 5: exit 1 naming it, nothing made); a
    // file in its place is an I/O error naming it.
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(["bench", "--reps", "20", "--save-streams"])
        .arg(s.path("missing"))
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(s.path("missing/alu.bin").is_file());
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(["bench", "--reps", "20", "--save-streams"])
        .arg(s.path("absent/deeper"))
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("absent/deeper: "), "{}", stderr(&o));
    assert!(!s.path("absent").exists());
    std::fs::write(s.path("file"), "").expect("write");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(["bench", "--save-streams"])
        .arg(s.path("file"))
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("file: not a directory"),
        "{}",
        stderr(&o)
    );
}

/// The scene fixtures of the testbench.
fn scene_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testbench/fixtures/scenes")
        .join(name)
}

/// `pp5 render` of a small scene: a PNG of the screen's size, a study that adds up, JSON and
/// CSV reports, and streams that `pp5 run` runs to the same cycle count.
#[test]
fn render_writes_the_frame_the_study_and_streams_that_run() {
    let s = Scratch::new();
    let png = s.path("f.png");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args([
            "render",
            "--scene",
            "quad",
            "--screen",
            "256x128",
            "--renderers",
            "2",
        ])
        .arg("-o")
        .arg(&png)
        .arg("--save-streams")
        .arg(s.path("streams"))
        .args(["--report", "json"])
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let study: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(study["renderers"], 2);
    assert_eq!(study["regions"].as_array().map(Vec::len), Some(2));
    let frame = study["frame_cycles"].as_u64().expect("cycles");
    // The PNG's header: 256 × 128.
    let bytes = std::fs::read(&png).expect("png");
    assert_eq!(&bytes[1..4], b"PNG");
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 256);
    assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 128);
    // The slower Renderer's stream, re-run alone, takes the frame's cycles after its boot.
    let slowest = study["renderer_runs"]
        .as_array()
        .expect("runs")
        .iter()
        .max_by_key(|r| r["cycles"].as_u64())
        .expect("a renderer");
    let k = slowest["index"].as_u64().expect("index");
    let r = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("run")
        .arg(s.path(&format!("streams/renderer-{k}.pp5s")))
        .arg("--microcode")
        .arg(s.path("streams/render.pp5uc"))
        .args(["--report", "json"])
        .output()
        .expect("run pp5");
    assert_eq!(code(&r), 0, "{}", stderr(&r));
    let run: serde_json::Value = serde_json::from_str(&stdout(&r)).expect("json");
    assert_eq!(run["user_cycles"].as_u64(), Some(frame));
    assert_eq!(
        run["diagnostics"].as_array().map(Vec::len),
        Some(0),
        "{run}"
    );
    // CSV: a row per region and per Renderer.
    let o = small_render()
        .arg("-o")
        .arg(&png)
        .args(["--report", "csv"])
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let csv = stdout(&o);
    // One header for both kinds of row, every row as long as it.
    let columns = |l: &str| l.split(',').count();
    let header = csv.lines().next().expect("header");
    assert!(
        header.ends_with(",regions,igc_busy,bs_busy,idle,error_bits,input_wait"),
        "{header}"
    );
    assert!(csv.lines().all(|l| columns(l) == columns(header)), "{csv}");
    assert_eq!(csv.lines().filter(|l| l.starts_with("region,")).count(), 1);
    assert_eq!(
        csv.lines().filter(|l| l.starts_with("renderer,")).count(),
        1
    );
}

/// Bad scenes and options: exit 3 (2 for usage) with a one-line reason, no panic, no PNG.
#[test]
fn render_refuses_bad_input_with_exit_code_3() {
    let s = Scratch::new();
    let png = s.path("never.png");
    let cases: Vec<(Vec<String>, i32, &str)> = vec![
        // Numbers out of their range are usage errors (issue 39, item 4).
        (vec!["--renderers".into(), "17".into()], 2, "1..=16"),
        (vec!["--renderers".into(), "0".into()], 2, "1..=16"),
        (vec!["--scene".into(), "nosuch".into()], 3, "nosuch"),
        (vec!["--scene".into(), "random:n=0".into()], 3, "random"),
        (vec!["--eye".into(), "0,0,0".into()], 3, "inside"),
        (vec!["--screen".into(), "0x100".into()], 2, "screen"),
        (vec!["--shininess".into(), "12".into()], 2, "shininess"),
        (
            vec![
                scene_fixture("cube.obj").display().to_string(),
                "--scene".into(),
                "quad".into(),
            ],
            2,
            "not both",
        ),
    ];
    // OBJ files: an unreadable one is an I/O error (1), a bad one bad input (3).
    let objs = [
        ("missing.obj", 1, "missing.obj"),
        ("empty.obj", 3, "empty.obj"),
        ("malformed.obj", 3, "malformed.obj"),
        ("missing_vertex.obj", 3, "vertex"),
        ("nan.obj", 3, "NaN"),
        ("huge.obj", 3, "huge.obj"),
    ];
    let cases = cases.into_iter().chain(
        objs.into_iter()
            .map(|(f, want, needle)| (vec![scene_fixture(f).display().to_string()], want, needle)),
    );
    for (args, want, needle) in cases {
        let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .arg("render")
            .args(&args)
            .args(
                ["--screen", "128x128"]
                    .iter()
                    .filter(|_| !args.contains(&"--screen".to_string())),
            )
            .arg("-o")
            .arg(&png)
            .output()
            .expect("run pp5");
        let err = stderr(&o);
        assert_eq!(code(&o), want, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!png.exists(), "{args:?} left a picture");
    }
    // The OBJ fixture with its materials renders.
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("render")
        .arg(scene_fixture("cube.obj"))
        .args(["--screen", "256x256", "--renderers", "4"])
        .arg("-o")
        .arg(&png)
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(png.exists());
    // `--scene help` lists the scenes.
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(["render", "--scene", "help"])
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0);
    for name in ["spheres", "torus", "terrain", "random"] {
        assert!(stdout(&o).contains(name), "{}", stdout(&o));
    }
}

/// Every numeric option of `pp5 render` and `pp5 bench` has a range, said in its help: a value
/// outside it is refused at once with exit 2 and the range (issue 39, item 4: a Ring of 2^32 + 1
/// channels aborted allocating, 10^9 channels or a GP rate of 0.001 took minutes on one
/// triangle, 1e-30 never ended, `inf` was taken).
#[test]
fn render_and_bench_refuse_numbers_out_of_range() {
    let s = Scratch::new();
    let cases: Vec<(&str, &str, &str)> = vec![
        ("--ring-channels", "4294967297", "0..=64"),
        ("--ring-channels", "1000000000", "0..=64"),
        ("--ring-channels", "65", "0..=64"),
        ("--gp-mops", "1e-30", "1..=10000"),
        ("--gp-mops", "0.001", "1..=10000"),
        ("--gp-mops", "inf", "1..=10000"),
        ("--gp-mops", "nan", "1..=10000"),
        ("--gp-mops", "10001", "1..=10000"),
        ("--gps", "33", "0..=32"),
        ("--renderers", "17", "1..=16"),
        ("--screen", "8193x128", "1..=8192"),
        ("--screen", "128x0", "1..=8192"),
        ("--fov", "170", "less than 170"),
        ("--fov", "nan", "less than 170"),
        ("--ambient", "1.5", "0..=1"),
        ("--specular", "-0.1", "0..=1"),
        ("--shininess", "256", "1..=128"),
        ("--eye", "1e7,0,0", "-1e6..=1e6"),
        ("--target", "0,inf,0", "-1e6..=1e6"),
        ("--up", "0,0,0", "not 0,0,0"),
        ("--light", "nan,1,0", "-1e6..=1e6"),
        ("--region", "64,0", "0..=63"),
    ];
    for (flag, value, range) in cases {
        let started = std::time::Instant::now();
        let mut c = Command::new(env!("CARGO_BIN_EXE_pp5"));
        c.args(["render", "--scene", "triangle", "-o", "f.png"]);
        if flag != "--renderers" {
            c.args(["--renderers", "1"]);
        }
        if flag != "--screen" {
            c.args(["--screen", "128x128"]);
        }
        if flag == "--region" {
            c.args(["--wave", "w.vcd"]);
        }
        let o = c
            .arg(flag)
            .arg(value)
            .current_dir(s.dir())
            .output()
            .expect("run pp5");
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{flag} {value}: {err}");
        assert!(
            err.contains(flag) && err.contains(range),
            "{flag} {value}: {err}"
        );
        assert!(started.elapsed().as_secs() < 10, "{flag} {value}: slow");
    }
    for (flag, value, range) in [
        ("--reps", "0", "1..=100000"),
        ("--reps", "100001", "1..=100000"),
        ("--runs", "0", "1..=100"),
        ("--runs", "101", "1..=100"),
        ("--warmup", "101", "0..=100"),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .args(["bench", flag, value])
            .current_dir(s.dir())
            .output()
            .expect("run pp5");
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{flag} {value}: {err}");
        assert!(
            err.contains(flag) && err.contains(range),
            "{flag} {value}: {err}"
        );
    }
    assert!(s.listing().is_empty(), "{:?}", s.listing());
    // The ranges are in the help.
    for (sub, needles) in [
        (
            "render",
            &["0..=64", "1..=10000", "0..=32", "1..=16", "1..=8192"][..],
        ),
        ("bench", &["1..=100000", "1..=100", "0..=100"][..]),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .args([sub, "--help"])
            .output()
            .expect("run pp5");
        let help = stdout(&o);
        for n in needles {
            assert!(help.contains(n), "pp5 {sub} --help does not say {n}");
        }
    }
}

/// `pp5 render --wave F --region I,J`: a waveform of that region's cycles on its Renderer,
/// with its `.gtkw`; a region off the screen is refused.
#[test]
fn render_writes_the_waveform_of_one_region() {
    let s = Scratch::new();
    let wave = s.path("r.vcd");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args([
            "render",
            "--scene",
            "quad",
            "--screen",
            "256x256",
            "--renderers",
            "2",
        ])
        .args(["--region", "1,1", "--report", "json", "-o"])
        .arg(s.path("f.png"))
        .arg("--wave")
        .arg(&wave)
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let study: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let region = &study["regions"][3];
    let k = region["renderer"].as_u64().expect("renderer") as usize;
    let boot = study["renderer_runs"][k]["boot_cycles"]
        .as_u64()
        .expect("boot");
    let first = boot + region["start"].as_u64().expect("start");
    let last = boot + region["end"].as_u64().expect("end");
    let text = std::fs::read_to_string(&wave).expect("vcd");
    let times: Vec<u64> = text
        .lines()
        .filter_map(|l| l.strip_prefix('#').and_then(|t| t.parse().ok()))
        .filter(|&t| t > 0)
        .collect();
    let ps = 25_000;
    assert_eq!(times.first(), Some(&(first * ps)), "{first}");
    assert!(
        times.iter().all(|&t| t <= last * ps + ps / 2),
        "past cycle {last}"
    );
    assert!(times.last() >= Some(&(last * ps)));
    assert!(s.path("r.gtkw").exists());
    // --region needs --wave, and must be on the screen.
    for (args, want) in [
        (vec!["--region", "1,1"], 2),
        (vec!["--region", "2,0", "--wave", "x.vcd"], 2),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .args(["render", "--scene", "quad", "--screen", "256x256"])
            .args(&args)
            .current_dir(s.dir())
            .output()
            .expect("run pp5");
        assert_eq!(code(&o), want, "{args:?}: {}", stderr(&o));
    }
    assert!(!s.path("x.vcd").exists());
}

/// An output that is not a regular file (a FIFO here; `/dev/null` in use) is written as it is,
/// never replaced by a renamed temporary file.
#[cfg(unix)]
#[test]
fn render_writes_into_a_fifo_without_replacing_it() {
    use std::os::unix::fs::FileTypeExt;
    let s = Scratch::new();
    let fifo = s.path("frame.png");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).expect("read the fifo"))
    };
    let o = small_render()
        .arg("-o")
        .arg(&fifo)
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Checked before joining: a replaced FIFO would leave the reader waiting for ever.
    let kind = std::fs::metadata(&fifo).expect("fifo").file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
    let png = reader.join().expect("reader");
    assert_eq!(&png[1..4], b"PNG");
}

/// Every subcommand with its standard output's reader gone (as with `| head -1`), then with
/// standard error closed: no panic, the exit code it has with both open.
#[test]
fn every_subcommand_survives_a_closed_pipe() {
    use std::process::Stdio;
    let s = Scratch::new();
    // A stream whose report and disassembly are longer than a pipe's buffer.
    let long = s.path("long.pp5s");
    std::fs::write(
        &long,
        "SETENABS\n".to_string() + &"CLEAR 0 8\n".repeat(3000),
    )
    .expect("write");
    let bin = s.path("long.bin");
    let made = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("stream")
        .arg(&long)
        .arg("-o")
        .arg(&bin)
        .output()
        .expect("run pp5");
    assert_eq!(code(&made), 0, "{}", stderr(&made));
    let long = long.display().to_string();
    let bin = bin.display().to_string();
    let png = s.path("r.png").display().to_string();
    let vcd = s.path("demo.vcd").display().to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", &long, "--report", "csv"],
        vec!["run", &long],
        vec!["stream", &bin],
        vec!["asm"],
        vec!["demo", "--wave", &vcd],
        vec![
            "bench",
            "--reps",
            "10",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--render=false",
        ],
        vec![
            "render",
            "--scene",
            "triangle",
            "--screen",
            "128x128",
            "--renderers",
            "1",
            "-o",
            &png,
        ],
        vec!["render", "--scene", "help"],
    ];
    for args in &cases {
        for close_stderr in [false, true] {
            let mut child = Command::new(env!("CARGO_BIN_EXE_pp5"))
                .args(args)
                .current_dir(s.dir())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn pp5");
            // Close our end before the program writes anything.
            if close_stderr {
                drop(child.stderr.take());
            } else {
                drop(child.stdout.take());
            }
            let o = child.wait_with_output().expect("wait");
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(
                code(&o),
                0,
                "{args:?} (stderr closed: {close_stderr}): {err}"
            );
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
}

/// `--report json` into a closed pipe (`pp5 run … --report json | head -1`) exits as csv and
/// the table do: the JSON writer's broken pipe is not an I/O error (issue 27, item 2).
#[test]
fn a_json_report_into_a_closed_pipe_exits_as_csv_does() {
    use std::process::Stdio;
    let s = Scratch::new();
    // A report longer than a pipe's buffer.
    let long = s.path("long.pp5s");
    std::fs::write(
        &long,
        "SETENABS\n".to_string() + &"CLEAR 0 8\n".repeat(3000),
    )
    .expect("write");
    for report in ["json", "csv", "table"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .arg("run")
            .arg(&long)
            .args(["--report", report])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn pp5");
        drop(child.stdout.take());
        let o = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(code(&o), 0, "--report {report}: {err}");
        assert!(!err.contains("Broken pipe"), "--report {report}: {err}");
    }
}

/// The README's microcode recipe: a copy of standard.pp5uc with qee.pp5uc and flow.pp5uc, as
/// repeated `--microcode`, runs the demo; an error in a later file names that file and line;
/// a microcode file or stream that does not exist is an I/O error (exit 1).
#[test]
fn repeated_microcode_files_assemble_together_and_missing_inputs_exit_1() {
    let s = Scratch::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mine = s.path("my.pp5uc");
    std::fs::copy(root.join("microcode/standard.pp5uc"), &mine).expect("copy");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("demo")
        .arg("--wave")
        .arg(s.path("d.vcd"))
        .arg("--microcode")
        .arg(&mine)
        .arg("--microcode")
        .arg(root.join("microcode/qee.pp5uc"))
        .arg("--microcode")
        .arg(root.join("microcode/flow.pp5uc"))
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The same run with the built-in microcode reports the same cycles.
    let builtin = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("demo")
        .arg("--wave")
        .arg(s.path("e.vcd"))
        .output()
        .expect("run pp5");
    let cycles = |o: &Output| {
        stdout(o)
            .lines()
            .find(|l| l.contains("cycles"))
            .map(str::to_string)
    };
    assert!(cycles(&o).is_some(), "{}", stdout(&o));
    assert_eq!(cycles(&o), cycles(&builtin));
    let bad = s.path("bad.pp5uc");
    std::fs::write(&bad, "; a comment\nbroken: r=zork\n").expect("write");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("run")
        .arg(s.path("none.pp5s"))
        .arg("--microcode")
        .arg(&mine)
        .arg("--microcode")
        .arg(&bad)
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.pp5uc:2:"), "{}", stderr(&o));
    for args in [
        vec!["run".to_string(), s.path("none.pp5s").display().to_string()],
        vec![
            "run".into(),
            root.join("../testbench/fixtures/streams/double_buffer.pp5s")
                .display()
                .to_string(),
            "--microcode".into(),
            s.path("none.pp5uc").display().to_string(),
        ],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .args(&args)
            .output()
            .expect("run pp5");
        assert_eq!(code(&o), 1, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("none.pp5"), "{}", stderr(&o));
    }
}

/// A stream that starts with a UTF-8 byte-order mark runs (the mark is not part of the first
/// command), and so does microcode source that starts with one.
#[test]
fn a_byte_order_mark_is_not_part_of_the_first_command() {
    let s = Scratch::new();
    let stream = s.path("bom.pp5s");
    std::fs::write(&stream, "\u{feff}SETENABS\nCLEAR 0 8\n").expect("write");
    let uc = s.path("bom.pp5uc");
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("microcode/standard.pp5uc"),
    )
    .expect("read");
    std::fs::write(&uc, format!("\u{feff}{src}")).expect("write");
    for extra in [
        vec![],
        vec!["--microcode".to_string(), uc.display().to_string()],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .arg("run")
            .arg(&stream)
            .args(&extra)
            .output()
            .expect("run pp5");
        assert_eq!(code(&o), 0, "{extra:?}: {}", stderr(&o));
    }
}

/// The README's `--peek` example prints a value the demo leaves there (it printed 0: the demo
/// clears the field it named at that pixel later).
#[test]
fn the_readme_peek_example_shows_a_drawn_pixel() {
    let s = Scratch::new();
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .expect("README");
    let line = readme
        .lines()
        .find(|l| l.contains("--peek"))
        .expect("a --peek example");
    let peek = line
        .split_whitespace()
        .skip_while(|w| *w != "--peek")
        .nth(1)
        .expect("its argument");
    let demo = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("demo")
        .arg("--wave")
        .arg(s.path("pp5-demo.vcd"))
        .output()
        .expect("run pp5");
    assert_eq!(code(&demo), 0, "{}", stderr(&demo));
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("run")
        .arg(s.path("pp5-demo.pp5s"))
        .args(["--peek", peek])
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let shown = stderr(&o);
    let value = shown
        .lines()
        .find(|l| l.starts_with("peek pixel"))
        .and_then(|l| l.split(" = ").nth(1))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no peek in {shown}"));
    assert_ne!(value, 0, "{line}");
}

/// An output that is an input, or two outputs that are one file, are refused (exit 2) before
/// anything is written; the input is left as it was.
#[test]
fn outputs_may_not_overwrite_inputs_or_each_other() {
    let s = Scratch::new();
    let stream = s.path("s.pp5s");
    std::fs::write(&stream, "SETENABS\nCLEAR 0 8\n").expect("write");
    let uc = s.path("s.pp5uc");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("microcode/standard.pp5uc"),
        &uc,
    )
    .expect("copy");
    let bin = s.path("x.bin");
    let made = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(["stream"])
        .arg(&stream)
        .arg("-o")
        .arg(&bin)
        .output()
        .expect("run pp5");
    assert_eq!(code(&made), 0, "{}", stderr(&made));
    let before: Vec<Vec<u8>> = [&stream, &uc, &bin]
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    let p = |x: &Path| x.display().to_string();
    let f = p(&s.path("f.out"));
    let cases: Vec<Vec<String>> = vec![
        vec!["run".into(), p(&stream), "--vcd".into(), p(&stream)],
        vec!["run".into(), p(&stream), "--dump-mem".into(), p(&stream)],
        vec![
            "run".into(),
            p(&stream),
            "--tx-out".into(),
            p(&uc),
            "--microcode".into(),
            p(&uc),
        ],
        vec![
            "run".into(),
            p(&stream),
            "--vcd".into(),
            f.clone(),
            "--dump-mem".into(),
            f.clone(),
        ],
        vec!["asm".into(), p(&uc), "-o".into(), p(&uc)],
        vec![
            "asm".into(),
            p(&uc),
            "-o".into(),
            f.clone(),
            "--header".into(),
            f.clone(),
        ],
        vec!["stream".into(), p(&bin), "-o".into(), p(&bin)],
        // The same file by another name.
        vec![
            "stream".into(),
            p(&bin),
            "-o".into(),
            format!("{}/./x.bin", s.dir().display()),
        ],
        vec!["demo".into(), "--wave".into(), p(&s.path("d.pp5s"))],
    ];
    for args in &cases {
        let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .args(args)
            .current_dir(s.dir())
            .output()
            .expect("run pp5");
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("would destroy it") || stderr(&o).contains("same file"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let after: Vec<Vec<u8>> = [&stream, &uc, &bin]
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    assert_eq!(before, after, "an input changed");
    assert!(!s.path("f.out").exists());
    // /dev/null may take two outputs.
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("run")
        .arg(&stream)
        .args(["--tx-out", "/dev/null", "--dump-mem", "/dev/null"])
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// A trace selection that selects nothing is refused (exit 2) instead of writing a waveform
/// of `clk` alone or a header: a `--scope` no signal matches (the message lists the scopes
/// that exist) and a `--window` that starts after the run's end (no file is left).
#[test]
fn an_empty_trace_selection_is_a_usage_error() {
    let s = Scratch::new();
    let stream = s.path("s.pp5s");
    std::fs::write(&stream, "SETENABS\nCLEAR 0 8\n").expect("write");
    let vcd = s.path("w.vcd");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pp5"))
            .arg("run")
            .arg(&stream)
            .arg("--vcd")
            .arg(&vcd)
            .args(extra)
            .output()
            .expect("run pp5")
    };
    let o = run(&["--scope", "igc"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("renderer.igc,"), "{}", stderr(&o));
    assert!(!vcd.exists());
    let o = run(&["--window", "9000000:9000010"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("after the run ended"), "{}", stderr(&o));
    assert!(!vcd.exists() && !s.path("w.gtkw").exists());
    // A scope that exists, and one of two that does not.
    assert_eq!(code(&run(&["--scope", "renderer.igc"])), 0);
    let o = run(&["--scope", "renderer.igc", "--scope", "renderer.nope"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("renderer.nope"), "{}", stderr(&o));
}

/// A microinstruction that jumps to itself is reported as a stuck IGC (exit 4) naming it by
/// its label and command, not as a deadlock (it was exit 6, "no block can make progress",
/// with no waiter named).
#[test]
fn a_microcode_self_loop_is_stuck_and_named() {
    let s = Scratch::new();
    let std_src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("microcode/standard.pp5uc"),
    )
    .expect("read");
    let uc = s.path("spin.pp5uc");
    std::fs::write(
        &uc,
        format!("{std_src}\n.command SPIN() -> spin\nspin: jump spin\n"),
    )
    .expect("write");
    let stream = s.path("spin.pp5s");
    std::fs::write(&stream, "SETENABS\nSPIN\n").expect("write");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("run")
        .arg(&stream)
        .arg("--microcode")
        .arg(&uc)
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 4, "{}", stdout(&o));
    let all = stdout(&o) + &stderr(&o);
    assert!(
        all.contains("loops on microinstruction spin (PC") && all.contains("in command SPIN"),
        "{all}"
    );
    assert!(!all.to_lowercase().contains("deadlock"), "{all}");
}

/// An error in a binary stream names the file (it said `<binary>:0:`).
#[test]
fn binary_stream_errors_name_the_file() {
    let s = Scratch::new();
    let text = s.path("s.pp5s");
    std::fs::write(&text, "SETENABS\n".repeat(50)).expect("write");
    let bin = s.path("s.bin");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("stream")
        .arg(&text)
        .arg("-o")
        .arg(&bin)
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let bytes = std::fs::read(&bin).expect("read");
    let cut = s.path("cut.bin");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).expect("write");
    for sub in ["run", "stream"] {
        let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .arg(sub)
            .arg(&cut)
            .output()
            .expect("run pp5");
        assert_eq!(code(&o), 3, "{sub}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains(&format!("{}: ", cut.display())),
            "{sub}: {err}"
        );
        assert!(
            !err.contains("<binary>") && !err.contains(":0:"),
            "{sub}: {err}"
        );
    }
}

/// Arrival times: what `pp5 stream` prints, `pp5 run` reads back. Times past 32 bits are
/// accepted in text; a binary file with a time past the largest a stream may give (it
/// printed `at=18446744073709551614`, which the text reader refused) is refused on reading.
#[test]
fn arrival_times_round_trip_between_text_and_binary() {
    let s = Scratch::new();
    let text = s.path("t.pp5s");
    std::fs::write(&text, "message at=5000000000\nSETENABS\n").expect("write");
    let bin = s.path("t.bin");
    let o = pp5(&[&"stream", &text, &"-o", &bin]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = pp5(&[&"stream", &bin]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("at=5000000000"), "{}", stdout(&o));
    // The `at` field of the first record (after the magic and the version, and its kind).
    let mut bytes = std::fs::read(&bin).expect("read");
    bytes[12..20].copy_from_slice(&(u64::MAX - 1).to_le_bytes());
    std::fs::write(&bin, &bytes).expect("write");
    let o = pp5(&[&"stream", &bin]);
    assert_eq!(code(&o), 3, "{}", stdout(&o));
    assert!(stderr(&o).contains("beyond the latest"), "{}", stderr(&o));
    std::fs::write(&text, "message at=2000000000000000\nSETENABS\n").expect("write");
    assert_eq!(code(&pp5(&[&"stream", &text, &"-o", &bin])), 3);
}

/// Review findings: `-o` inside `--save-streams` would overwrite a saved stream (refused,
/// exit 2); the paper's-goal line counts drawn primitives only (a camera looking away draws
/// none: it said 232x the goal).
#[test]
fn render_save_streams_are_outputs_and_the_goal_counts_drawn_primitives() {
    let s = Scratch::new();
    let dir = s.path("ss");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args([
            "render",
            "--scene",
            "quad",
            "--screen",
            "128x128",
            "--renderers",
            "1",
            "-o",
        ])
        .arg(dir.join("renderer-0.pp5s"))
        .arg("--save-streams")
        .arg(&dir)
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("same file"), "{}", stderr(&o));
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args([
            "render",
            "--scene",
            "spheres",
            "--screen",
            "128x128",
            "--renderers",
            "1",
        ])
        .args(["--eye", "0,0,5", "--target", "0,0,10", "-o"])
        .arg(s.path("away.png"))
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("this run: 0 drawn primitives/s"),
        "{}",
        stdout(&o)
    );
}

/// `pp5 render` of one triangle on a 128×128 screen and one Renderer (add `-o` and the rest).
#[test]
fn next_free_streams_rerun_with_the_frame_timing() {
    // Next free hands a region to a Renderer when its IGC becomes free: the saved stream says
    // when (`at=`), so `pp5 run` of each Renderer's stream takes that Renderer's cycles.
    let s = Scratch::new();
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args([
            "render",
            "--scene",
            "spheres:n=3,sub=1",
            "--screen",
            "512x256",
        ])
        .args([
            "--renderers",
            "3",
            "--policy",
            "next-free",
            "--report",
            "json",
        ])
        .arg("-o")
        .arg(s.path("f.png"))
        .arg("--save-streams")
        .arg(s.path("streams"))
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let study: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let runs = study["renderer_runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 3);
    for r in runs {
        let k = r["index"].as_u64().expect("index");
        let rerun = Command::new(env!("CARGO_BIN_EXE_pp5"))
            .arg("run")
            .arg(s.path(&format!("streams/renderer-{k}.pp5s")))
            .arg("--microcode")
            .arg(s.path("streams/render.pp5uc"))
            .args(["--report", "json"])
            .output()
            .expect("run pp5");
        assert_eq!(code(&rerun), 0, "{}", stderr(&rerun));
        let run: serde_json::Value = serde_json::from_str(&stdout(&rerun)).expect("json");
        assert_eq!(run["user_cycles"], r["cycles"], "Renderer {k}");
    }
}

/// `pp5 render` on a scarce Ring: a Renderer's IGC waits longer than the IGC timeout (status
/// bit 30) for pixels the Ring holds. A finding about the configuration, reported in the
/// table, the JSON and the verdict, not a frame "not to be trusted": exit 0 (issue 39,
/// defect 1).
#[test]
fn render_reports_the_igc_timeout_of_a_scarce_ring_as_a_finding_and_exits_0() {
    let s = Scratch::new();
    let args = [
        "render",
        "--scene",
        "spheres:n=2,sub=2",
        "--screen",
        "512x512",
        "--renderers",
        "4",
        "--ring-channels",
        "1",
    ];
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(args)
        .args(["--report", "json", "-o"])
        .arg(s.path("f.png"))
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("not to be trusted"), "{}", stderr(&o));
    let study: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let t = &study["igc_timeout"];
    assert_eq!(t["limit"], 65536, "{t}");
    assert!(
        t["renderers"].as_array().is_some_and(|r| !r.is_empty()),
        "{t}"
    );
    assert!(t["longest_wait"].as_u64() > Some(65536), "{t}");
    let verdict = study["system"]["verdict"].as_str().expect("verdict");
    assert!(verdict.contains("IGC timeout"), "{verdict}");
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .args(args)
        .arg("-o")
        .arg(s.path("f.png"))
        .output()
        .expect("run pp5");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("IGC timeout: the IGC timeout (status bit 30"));
}

fn small_render() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pp5"));
    c.args([
        "render",
        "--scene",
        "triangle",
        "--screen",
        "128x128",
        "--renderers",
        "1",
    ]);
    c
}

/// The README gets `pp5` onto the PATH for its tour, says what the first test run costs, and
/// runs its recipes in a scratch directory; `--probe`'s help says it replaces the default
/// probe pixels (issue 27 item 9).
#[test]
fn the_readme_and_probe_help_say_how_to_use_them() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .expect("README");
    for needle in [
        "cargo install --path sim",
        "target/release/pp5",
        "10-15 minutes on 2 cores",
        "scratch directory",
        "replaces the default probe pixels",
    ] {
        assert!(readme.contains(needle), "README lacks {needle:?}");
    }
    // The recipes run in a scratch directory: the checkout's files are named under $REPO.
    for line in readme
        .lines()
        .filter(|l| l.trim_start().starts_with("pp5 "))
    {
        for word in line.split_whitespace() {
            let ours = word.starts_with("sim/") || word.starts_with("testbench/");
            assert!(!ours, "README recipe names {word} outside $REPO: {line}");
        }
    }
    let o = pp5(&[&"run", &"--help"]);
    assert_eq!(code(&o), 0, "{}", show(&o));
    let help = stdout(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("Given ones replace the default probe pixels (0,0) and (1,0)"),
        "{help}"
    );
}
