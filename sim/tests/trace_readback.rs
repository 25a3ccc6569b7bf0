//! Waveform writers, checked by reading the files back with `wellen` (the reader behind the
//! Surfer viewer) and GTKWave's own `vcd2fst` and `fst2vcd`.

mod common;

use common::Scratch;
use pp5_rtl::clock::{CYCLE_PS, HALF_CYCLE_PS};
use pp5_rtl::trace::{bit, Traced, Tracer};
use pp5_sim::trace::gtkw::VISIBLE_CYCLES;
use pp5_sim::trace::{
    gtkwave_command, write_gtkw, SignalInfo, TraceConfig, WaveFormat, WaveWriter,
};
use std::io;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// Fixture

const STATES: [&str; 3] = ["IDLE", "RUN", "WAIT"];
const REG: u64 = 0xDEAD_BEEF;

/// A tiny block: `renderer.x.{count[3:0], flag, reg[31:0]}`, `renderer.x.fsm.state` (text),
/// `renderer.y.acc[15:0]`.
#[derive(Debug, Clone, Default)]
struct Fixture {
    count: u64,
    flag: bool,
    state: usize,
    acc: u64,
    /// Panic inside the walk (to test unwinding).
    panic_in_walk: bool,
    /// Show one extra signal (to test shape checks).
    extra: bool,
    /// Show one extra text outside a record (refused by the declaration; a later walk that
    /// shows one is malformed).
    loose_text: bool,
    /// Show `flag` as text (to test kind checks).
    flag_as_text: bool,
}

impl Fixture {
    fn step(&mut self) {
        self.count = (self.count + 1) & 0xF;
        self.flag = self.count.is_multiple_of(3);
        self.state = (self.state + 1) % STATES.len();
        self.acc = (self.acc + 0x111) & 0xFFFF;
    }

    /// The values the walk shows, by full path.
    fn expected(&self) -> Vec<(&'static str, String)> {
        vec![
            ("renderer.x.count", format!("{:04b}", self.count)),
            ("renderer.x.flag", format!("{}", self.flag as u8)),
            ("renderer.x.reg", format!("{REG:032b}")),
            ("renderer.x.fsm.state", STATES[self.state].to_string()),
            ("renderer.y.acc", format!("{:016b}", self.acc)),
        ]
    }
}

impl Traced for Fixture {
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        t.push_scope("renderer");
        t.push_scope("x");
        t.bits("count", 4, self.count);
        if self.flag_as_text {
            t.record_group(&[1], |_, t| t.text("flag", "yes"));
        } else {
            bit(t, "flag", self.flag);
        }
        t.bits("reg", 32, REG);
        if self.panic_in_walk {
            panic!("fixture panics inside its walk (expected by the test)");
        }
        t.record("fsm", &[self.state as u64], |w, t| {
            t.text_static("state", STATES[w.first().map_or(0, |&s| s as usize) % 3]);
        });
        t.pop_scope();
        t.push_scope("y");
        t.bits("acc", 16, self.acc);
        if self.extra {
            t.bits("extra", 1, 0);
        }
        if self.loose_text {
            t.text("loose", "LOOSE");
        }
        t.pop_scope();
        t.pop_scope();
    }
}

/// A unique scratch path `name` in a new scratch directory.
fn temp_path(name: &str) -> (Scratch, PathBuf) {
    let dir = Scratch::new();
    let path = dir.path(name);
    (dir, path)
}

/// Run the fixture for `cycles` cycles into a new file; returns the expected value of every
/// path at every cycle.
fn run(
    path: &Path,
    format: WaveFormat,
    cfg: TraceConfig,
    cycles: u64,
) -> (Vec<SignalInfo>, Vec<Fixture>) {
    let mut fx = Fixture::default();
    let mut w = WaveWriter::create(path, format, cfg, &fx).expect("create");
    let mut states = Vec::new();
    for cycle in 0..cycles {
        if cycle > 0 {
            fx.step();
        }
        w.sample(cycle, &fx).expect("sample");
        states.push(fx.clone());
    }
    let signals = w.signals().to_vec();
    w.finish().expect("finish");
    (signals, states)
}

// ---------------------------------------------------------------------------------------------
// Reading back

struct Wave {
    w: wellen::simple::Waveform,
    /// FST files hold text as ASCII bit vectors.
    fst_text: bool,
}

fn read(path: &Path, format: WaveFormat) -> Wave {
    let w = wellen::simple::read(path)
        .unwrap_or_else(|e| panic!("wellen cannot read {}: {e:?}", path.display()));
    Wave {
        w,
        fst_text: format == WaveFormat::Fst,
    }
}

/// Decode an FST text vector: 8 bits per byte, first byte most significant, NUL padding.
/// A vector with unknown bits is returned as is.
fn decode_ascii(bits: &str) -> String {
    if !bits.bytes().all(|b| b == b'0' || b == b'1') {
        return bits.to_string();
    }
    bits.as_bytes()
        .chunks(8)
        .map(|c| c.iter().fold(0u8, |a, b| (a << 1) | (b - b'0')))
        .filter(|&b| b != 0)
        .map(char::from)
        .collect()
}

impl Wave {
    fn var(&self, path: &str) -> Option<wellen::VarRef> {
        let parts: Vec<&str> = path.split('.').collect();
        let (name, scopes) = parts.split_last()?;
        self.w.hierarchy().lookup_var(scopes, name)
    }

    /// Every change of the signal: (time in ps, value as a bit string or text).
    fn changes(&mut self, path: &str) -> Vec<(u64, String)> {
        let is_text_vec = self.fst_text && path.ends_with("state");
        common::wave_changes(&mut self.w, path)
            .into_iter()
            .map(|(t, b)| (t, if is_text_vec { decode_ascii(&b) } else { b }))
            .collect()
    }

    fn width(&self, path: &str) -> Option<u32> {
        let var = self.var(path)?;
        let h = self.w.hierarchy();
        h[var].length(h)
    }
}

/// The change list a change-only dump of `states` must hold for `path`, for the cycles
/// `first..` (cycle i of `states` is cycle `first + i`).
fn expected_changes(states: &[Fixture], first: u64, path: &str) -> Vec<(u64, String)> {
    let mut out: Vec<(u64, String)> = Vec::new();
    for (i, fx) in states.iter().enumerate() {
        let v = fx
            .expected()
            .into_iter()
            .find(|(p, _)| *p == path)
            .expect("path")
            .1;
        if out.last().map(|(_, last)| last != &v).unwrap_or(true) {
            out.push(((first + i as u64) * CYCLE_PS, v));
        }
    }
    out
}

/// Drop a leading all-unknown value at time 0 (what a window starting later leaves there);
/// fail on any other unknown value.
fn known_changes(mut ch: Vec<(u64, String)>) -> Vec<(u64, String)> {
    if let Some((0, v)) = ch.first() {
        if !v.is_empty() && v.bytes().all(|b| b == b'x') {
            ch.remove(0);
        }
    }
    for (t, v) in &ch {
        assert!(!v.contains('x'), "unknown value at {t}: {v}");
    }
    ch
}

fn expected_clk(first: u64, last: u64) -> Vec<(u64, String)> {
    (first..=last)
        .flat_map(|c| {
            [
                (c * CYCLE_PS, "1".to_string()),
                (c * CYCLE_PS + HALF_CYCLE_PS, "0".to_string()),
            ]
        })
        .collect()
}

const PATHS: [&str; 5] = [
    "renderer.x.count",
    "renderer.x.flag",
    "renderer.x.reg",
    "renderer.x.fsm.state",
    "renderer.y.acc",
];

/// The full check for a whole-run trace of 20 cycles.
fn check_full_run(format: WaveFormat) {
    let (_path_dir, path) = temp_path(&format!("full.{}", format.extension()));
    let (signals, states) = run(&path, format, TraceConfig::default(), 20);

    // Declared signals: clk first, then walk order.
    let names: Vec<&str> = signals.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        names,
        [
            "renderer.clk",
            "renderer.x.count",
            "renderer.x.flag",
            "renderer.x.reg",
            "renderer.x.fsm.state",
            "renderer.y.acc"
        ]
    );
    let text = &signals[4];
    assert!(text.is_text);
    match format {
        WaveFormat::Vcd => assert_eq!(text.width, 0),
        WaveFormat::Fst => assert_eq!(text.width, pp5_sim::trace::FST_TEXT_BITS),
    }

    let mut wave = read(&path, format);
    let h = wave.w.hierarchy();

    // Timescale 1 ps.
    let ts = h.timescale().expect("timescale");
    assert_eq!(ts.factor, 1);
    assert_eq!(ts.unit, wellen::TimescaleUnit::PicoSeconds);

    // Scope tree: one top scope `renderer` with `x` (holding `fsm`) and `y`.
    let tops: Vec<String> = h.scopes().map(|s| h[s].name(h).to_string()).collect();
    assert_eq!(tops, ["renderer"]);
    let renderer = h.lookup_scope(&["renderer"]).expect("renderer");
    let children: Vec<String> = h[renderer]
        .scopes(h)
        .map(|s| h[s].name(h).to_string())
        .collect();
    assert_eq!(children, ["x", "y"]);
    let top_vars: Vec<String> = h[renderer]
        .vars(h)
        .map(|v| h[v].name(h).to_string())
        .collect();
    assert_eq!(top_vars, ["clk"]);
    assert!(h.lookup_scope(&["renderer", "x", "fsm"]).is_some());

    // Widths.
    assert_eq!(wave.width("renderer.clk"), Some(1));
    assert_eq!(wave.width("renderer.x.count"), Some(4));
    assert_eq!(wave.width("renderer.x.flag"), Some(1));
    assert_eq!(wave.width("renderer.x.reg"), Some(32));
    assert_eq!(wave.width("renderer.y.acc"), Some(16));
    let state = wave.var("renderer.x.fsm.state").expect("state");
    match format {
        WaveFormat::Vcd => assert!(h[state].is_string(h), "VCD text must be a string var"),
        WaveFormat::Fst => assert_eq!(wave.width("renderer.x.fsm.state"), Some(256)),
    }

    // The clock: 1 at every cycle start, 0 half a cycle later.
    let clk = wave.changes("renderer.clk");
    assert_eq!(clk[0], (0, "1".to_string()));
    assert_eq!(clk[1], (12_500, "0".to_string()));
    assert_eq!(clk, expected_clk(0, 19));

    // The counter's transitions at exactly cycle * 25000 ps.
    let count = wave.changes("renderer.x.count");
    assert_eq!(count.len(), 20, "the counter changes every cycle");
    assert_eq!(count[0], (0, "0000".to_string()));
    assert_eq!(count[1], (25_000, "0001".to_string()));
    assert_eq!(count[15], (15 * 25_000, "1111".to_string()));
    assert_eq!(count[16], (16 * 25_000, "0000".to_string()));

    // Change-only: the constant register has exactly one change, at time 0.
    assert_eq!(
        wave.changes("renderer.x.reg"),
        [(0, format!("{REG:032b}"))],
        "a constant signal is written once"
    );

    // Every signal against the model, including the text values as strings.
    for p in PATHS {
        assert_eq!(
            wave.changes(p),
            expected_changes(&states, 0, p),
            "{p} in {format:?}"
        );
    }
    let texts: Vec<String> = wave
        .changes("renderer.x.fsm.state")
        .into_iter()
        .map(|(_, s)| s)
        .take(4)
        .collect();
    assert_eq!(texts, ["IDLE", "RUN", "WAIT", "IDLE"]);

    // The time table ends with the last falling edge.
    assert_eq!(
        wave.w.time_table().last().copied(),
        Some(19 * CYCLE_PS + HALF_CYCLE_PS)
    );
}

// ---------------------------------------------------------------------------------------------
// Tests

#[test]
fn vcd_reads_back_exactly() {
    check_full_run(WaveFormat::Vcd);
}

#[test]
fn fst_reads_back_exactly() {
    check_full_run(WaveFormat::Fst);
}

#[test]
fn vcd_text_has_dumpvars_at_time_zero_and_changes_only() {
    let (_path_dir, path) = temp_path("text.vcd");
    let (_, states) = run(&path, WaveFormat::Vcd, TraceConfig::default(), 5);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("$timescale 1 ps $end"), "{text}");
    assert!(text.contains("$var string 1 "), "{text}");
    assert!(text.contains("$var wire 4 "), "{text}");
    let body = &text[text.find("$enddefinitions").expect("enddefinitions")..];
    assert!(
        body.contains("#0\n$dumpvars\n"),
        "first sample is a $dumpvars at #0:\n{body}"
    );
    assert_eq!(body.matches("$dumpvars").count(), 1);
    // 32-bit register value appears once (change-only).
    assert_eq!(
        body.matches("b11011110101011011011111011101111 ").count(),
        1
    );
    // Exactly one value line per change of the model, plus two clock edges per cycle.
    let value_lines = body
        .lines()
        .filter(|l| l.starts_with(['0', '1', 'b', 's', 'x']))
        .count();
    let expected: usize = PATHS
        .iter()
        .map(|p| expected_changes(&states, 0, p).len())
        .sum::<usize>()
        + 2 * states.len();
    assert_eq!(value_lines, expected, "{body}");
}

#[test]
fn windowed_vcd_starts_with_unknowns_at_time_zero() {
    let (_path_dir, path) = temp_path("late.vcd");
    let cfg = TraceConfig {
        scopes: vec![],
        window: Some((4, 6)),
    };
    run(&path, WaveFormat::Vcd, cfg, 10);
    let text = std::fs::read_to_string(&path).expect("read");
    let body = &text[text.find("$enddefinitions").expect("enddefinitions")..];
    let dump = &body[body.find("#0\n$dumpvars\n").expect("$dumpvars at #0")..];
    let dump = &dump[..dump.find("$end").expect("$end")];
    assert!(dump.contains("bx "), "{dump}");
    assert!(
        !dump.lines().any(|l| l.starts_with('s')),
        "no string in the x dump: {dump}"
    );
    assert!(
        !dump
            .lines()
            .any(|l| l.starts_with('b') && !l.starts_with("bx")),
        "{dump}"
    );
    assert_eq!(body.matches("$dumpvars").count(), 1);
    assert!(
        body.contains("\n#100000\n1"),
        "first sample at cycle 4:\n{body}"
    );
    assert!(
        body.trim_end()
            .ends_with(&format!("#{}\n0!", 6 * CYCLE_PS + HALF_CYCLE_PS)),
        "{body}"
    );
}

#[test]
fn window_and_scope_selection() {
    for format in [WaveFormat::Vcd, WaveFormat::Fst] {
        let (_path_dir, path) = temp_path(&format!("sel.{}", format.extension()));
        let cfg = TraceConfig {
            scopes: vec!["renderer.x.fsm".into(), "renderer.y".into()],
            window: Some((5, 12)),
        };
        let (signals, states) = run(&path, format, cfg, 20);
        let names: Vec<&str> = signals.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(
            names,
            ["renderer.clk", "renderer.x.fsm.state", "renderer.y.acc"]
        );

        let mut wave = read(&path, format);
        assert!(wave.var("renderer.x.count").is_none());
        assert!(wave.var("renderer.x.flag").is_none());
        assert!(wave.var("renderer.x.reg").is_none());
        let h = wave.w.hierarchy();
        let x = h.lookup_scope(&["renderer", "x"]).expect("x holds fsm");
        assert_eq!(h[x].vars(h).count(), 0, "no unselected signals in x");

        // Nothing known outside the window: at most an all-unknown value at time 0, then the
        // first sample at cycle 5 and the last falling edge at 12.5.
        let (lo, hi) = (5 * CYCLE_PS, 12 * CYCLE_PS + HALF_CYCLE_PS);
        for p in ["renderer.clk", "renderer.x.fsm.state", "renderer.y.acc"] {
            let ch = known_changes(wave.changes(p));
            assert!(!ch.is_empty(), "{p}");
            assert_eq!(ch[0].0, lo, "{p} starts at the window in {format:?}");
            assert!(ch.iter().all(|(t, _)| (lo..=hi).contains(t)), "{p}: {ch:?}");
        }
        assert_eq!(
            known_changes(wave.changes("renderer.clk")),
            expected_clk(5, 12)
        );
        for p in ["renderer.x.fsm.state", "renderer.y.acc"] {
            assert_eq!(
                known_changes(wave.changes(p)),
                expected_changes(&states[5..=12], 5, p),
                "{p} in {format:?}"
            );
        }
        assert_eq!(wave.w.time_table().last().copied(), Some(hi));
    }
}

#[test]
fn dropped_writer_leaves_a_valid_file() {
    for format in [WaveFormat::Vcd, WaveFormat::Fst] {
        let (_path_dir, path) = temp_path(&format!("drop.{}", format.extension()));
        {
            let mut fx = Fixture::default();
            let mut w =
                WaveWriter::create(&path, format, TraceConfig::default(), &fx).expect("create");
            for cycle in 0..10 {
                if cycle > 0 {
                    fx.step();
                }
                w.sample(cycle, &fx).expect("sample");
            }
            // dropped here without finish()
        }
        let mut wave = read(&path, format);
        assert_eq!(
            wave.changes("renderer.clk"),
            expected_clk(0, 9),
            "{format:?}"
        );
        assert_eq!(wave.changes("renderer.x.count").len(), 10);
    }
}

#[test]
fn panic_during_a_run_leaves_a_valid_file() {
    for format in [WaveFormat::Vcd, WaveFormat::Fst] {
        let (_path_dir, path) = temp_path(&format!("panic.{}", format.extension()));
        let p = path.clone();
        let result = std::panic::catch_unwind(move || {
            let mut fx = Fixture::default();
            let mut w = WaveWriter::create(&p, format, TraceConfig::default(), &fx).unwrap();
            for cycle in 0..10 {
                if cycle > 0 {
                    fx.step();
                }
                fx.panic_in_walk = cycle == 7;
                w.sample(cycle, &fx).unwrap();
            }
        });
        assert!(result.is_err(), "the fixture panicked");
        let mut wave = read(&path, format);
        assert_eq!(
            wave.changes("renderer.clk"),
            expected_clk(0, 6),
            "{format:?}"
        );
    }
}

#[test]
fn a_run_with_no_sample_is_still_valid() {
    for format in [WaveFormat::Vcd, WaveFormat::Fst] {
        let (_path_dir, path) = temp_path(&format!("empty.{}", format.extension()));
        let cfg = TraceConfig {
            scopes: vec![],
            window: Some((100, 200)),
        };
        let (signals, _) = run(&path, format, cfg, 20);
        assert_eq!(signals.len(), 6);
        let wave = read(&path, format);
        assert!(wave.var("renderer.x.count").is_some(), "{format:?}");
    }
}

#[test]
fn shape_changes_are_errors_not_panics() {
    let (_path_dir, path) = temp_path("shape.vcd");
    let fx = Fixture::default();
    let mut w = WaveWriter::create(&path, WaveFormat::Vcd, TraceConfig::default(), &fx).unwrap();
    w.sample(0, &fx).unwrap();

    let extra = Fixture {
        extra: true,
        ..Fixture::default()
    };
    let e = w.sample(1, &extra).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);

    let kind = Fixture {
        flag_as_text: true,
        ..Fixture::default()
    };
    let e = w.sample(1, &kind).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);

    // Time must move forward.
    let e = w.sample(0, &fx).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);

    // The writer still works after rejected samples.
    w.sample(1, &fx).unwrap();
    // A text outside a record, in a walk that is not checked item by item (the batch has
    // frames, and the last sample was good): still refused.
    let loose = Fixture {
        loose_text: true,
        ..Fixture::default()
    };
    let e = w.sample(2, &loose).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    w.finish().unwrap();
    let mut wave = read(&path, WaveFormat::Vcd);
    assert_eq!(wave.changes("renderer.clk"), expected_clk(0, 1));
}

#[test]
fn unbalanced_walk_is_rejected_before_creating_the_file() {
    struct Bad;
    impl Traced for Bad {
        fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
            t.pop_scope();
        }
    }
    struct Wide;
    impl Traced for Wide {
        fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
            t.push_scope("r");
            t.bits("w", 65, 0);
            t.pop_scope();
        }
    }
    let (_path_dir, path) = temp_path("bad.vcd");
    let e = WaveWriter::create(&path, WaveFormat::Vcd, TraceConfig::default(), &Bad).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    assert!(!path.exists());
    let e = WaveWriter::create(&path, WaveFormat::Vcd, TraceConfig::default(), &Wide).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    // A text is the name of a number a record carries: one walked alone is refused.
    struct Loose;
    impl Traced for Loose {
        fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
            t.push_scope("r");
            t.text("state", "IDLE");
            t.pop_scope();
        }
    }
    let e = WaveWriter::create(&path, WaveFormat::Vcd, TraceConfig::default(), &Loose).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    assert!(e.to_string().contains("`state` outside a record"), "{e}");
    assert!(!path.exists());
}

#[test]
fn signals_outside_a_scope_get_a_top_scope() {
    struct Flat(u64);
    impl Traced for Flat {
        fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
            t.bits("v", 8, self.0);
            t.record_group(&[], |_, t| {
                t.text("s", "a b");
                t.text("e", "");
            });
        }
    }
    let (_path_dir, path) = temp_path("flat.vcd");
    let mut w = WaveWriter::create(&path, WaveFormat::Vcd, TraceConfig::default(), &Flat(0))
        .expect("create");
    w.sample(0, &Flat(1)).unwrap();
    w.sample(1, &Flat(300)).unwrap();
    let names: Vec<String> = w.signals().iter().map(|s| s.path.clone()).collect();
    assert_eq!(names, ["top.clk", "top.v", "top.s", "top.e"]);
    w.finish().unwrap();
    let mut wave = read(&path, WaveFormat::Vcd);
    // 300 & 0xFF = 44.
    assert_eq!(
        wave.changes("top.v"),
        [
            (0, "00000001".to_string()),
            (25_000, "00101100".to_string())
        ]
    );
    // Whitespace is not representable in a VCD string value; the empty text becomes `-`.
    assert_eq!(wave.changes("top.s"), [(0, "a_b".to_string())]);
    assert_eq!(wave.changes("top.e"), [(0, "-".to_string())]);
}

/// Run a GTKWave helper for the test `test`, which must succeed; `None` if it is not
/// installed (see [`common::tool_output`]).
fn run_tool(test: &str, tool: &str, args: &[&Path]) -> Option<std::process::Output> {
    let out = common::tool_output(test, tool, args)?;
    assert!(
        out.status.success(),
        "{tool} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out)
}

#[test]
fn gtkwave_vcd2fst_accepts_our_vcd() {
    let (_vcd_dir, vcd) = temp_path("conv.vcd");
    run(&vcd, WaveFormat::Vcd, TraceConfig::default(), 20);
    let fst = vcd.with_extension("fst");
    if run_tool("gtkwave_vcd2fst_accepts_our_vcd", "vcd2fst", &[&vcd, &fst]).is_some() {
        // GTKWave's converter keeps the strings as strings and the values as written.
        let mut wave = read(&fst, WaveFormat::Vcd);
        let texts: Vec<String> = wave
            .changes("renderer.x.fsm.state")
            .into_iter()
            .map(|(_, s)| s)
            .take(3)
            .collect();
        assert_eq!(texts, ["IDLE", "RUN", "WAIT"]);
        assert_eq!(wave.changes("renderer.clk"), expected_clk(0, 19));
        assert_eq!(wave.changes("renderer.x.count").len(), 20);
    }
}

#[test]
fn gtkwave_fst2vcd_reads_our_fst() {
    let (_fst_dir, fst) = temp_path("ours.fst");
    let (_, states) = run(&fst, WaveFormat::Fst, TraceConfig::default(), 20);
    if let Some(out) = run_tool("gtkwave_fst2vcd_reads_our_fst", "fst2vcd", &[&fst]) {
        // GTKWave's FST reader (libfst) sees the same values at the same times.
        let vcd = fst.with_extension("vcd");
        std::fs::write(&vcd, &out.stdout).expect("write converted vcd");
        let mut wave = read(&vcd, WaveFormat::Fst);
        assert_eq!(wave.changes("renderer.clk"), expected_clk(0, 19));
        for p in PATHS {
            assert_eq!(wave.changes(p), expected_changes(&states, 0, p), "{p}");
        }
    }
}

#[test]
fn gtkw_groups_signals_by_scope() {
    let (_wave_dir, wave) = temp_path("view.vcd");
    let (signals, _) = run(&wave, WaveFormat::Vcd, TraceConfig::default(), 3);
    let gtkw = wave.with_extension("gtkw");
    write_gtkw(&gtkw, &wave, &signals, 0, VISIBLE_CYCLES).expect("write gtkw");
    let text = std::fs::read_to_string(&gtkw).expect("read gtkw");

    assert!(
        text.contains("[dumpfile] \"view.vcd\"\n"),
        "relative dumpfile:\n{text}"
    );
    assert!(text.contains("[timestart] 0\n"));
    // A trace that starts later opens where it starts.
    write_gtkw(&gtkw, &wave, &signals, 137_500_000, VISIBLE_CYCLES).expect("write gtkw");
    let later = std::fs::read_to_string(&gtkw).expect("read gtkw");
    assert!(later.contains("[timestart] 137500000\n"), "{later}");
    write_gtkw(&gtkw, &wave, &signals, 0, VISIBLE_CYCLES).expect("write gtkw");
    let text = std::fs::read_to_string(&gtkw).expect("read gtkw");
    assert!(text.contains("[size] "));
    assert!(text.lines().any(|l| l.starts_with('*')), "zoom line");
    for open in ["renderer.", "renderer.x.", "renderer.x.fsm.", "renderer.y."] {
        assert!(
            text.contains(&format!("[treeopen] {open}\n")),
            "treeopen {open}:\n{text}"
        );
    }

    // The trace list: clk first, then one group per scope in first-seen order.
    let traces: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with('@'))
        .take_while(|l| !l.starts_with("[pattern_trace]"))
        .collect();
    let expected = [
        "@28",
        "renderer.clk",
        "@800200",
        "-renderer.x",
        "@22",
        "renderer.x.count[3:0]",
        "@28",
        "renderer.x.flag",
        "@22",
        "renderer.x.reg[31:0]",
        "@1000200",
        "-renderer.x",
        "@800200",
        "-renderer.x.fsm",
        "@28",
        "renderer.x.fsm.state",
        "@1000200",
        "-renderer.x.fsm",
        "@800200",
        "-renderer.y",
        "@22",
        "renderer.y.acc[15:0]",
        "@1000200",
        "-renderer.y",
    ];
    assert_eq!(traces, expected, "{text}");
    assert_eq!(text.matches("@800200").count(), 3, "one group per scope");
    assert_eq!(text.matches("@1000200").count(), 3);

    // FST: text is an ASCII bit vector.
    let fst_signals: Vec<SignalInfo> = signals
        .iter()
        .cloned()
        .map(|mut s| {
            if s.is_text {
                s.width = pp5_sim::trace::FST_TEXT_BITS;
            }
            s
        })
        .collect();
    let (_other_tmp, other_gtkw) = temp_path("elsewhere.gtkw");
    write_gtkw(
        &other_gtkw,
        &wave.with_extension("fst"),
        &fst_signals,
        0,
        VISIBLE_CYCLES,
    )
    .unwrap();
    let text = std::fs::read_to_string(&other_gtkw).unwrap();
    assert!(
        text.contains("@820\nrenderer.x.fsm.state[255:0]\n"),
        "{text}"
    );
    let abs = std::path::absolute(wave.with_extension("fst")).unwrap();
    assert!(
        text.contains(&format!("[dumpfile] \"{}\"", abs.display())),
        "absolute dumpfile for another directory:\n{text}"
    );

    assert_eq!(
        gtkwave_command(&wave, &gtkw),
        format!("gtkwave {} {}", wave.display(), gtkw.display())
    );
}

#[test]
fn format_from_path() {
    assert_eq!(
        WaveFormat::from_path(Path::new("out/run.vcd")),
        Some(WaveFormat::Vcd)
    );
    assert_eq!(
        WaveFormat::from_path(Path::new("out/run.fst")),
        Some(WaveFormat::Fst)
    );
    assert_eq!(WaveFormat::from_path(Path::new("out/run.gtkw")), None);
}
