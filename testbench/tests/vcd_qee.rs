//! A TREEIntoMEM run's waveform read back with `wellen`: the coefficient words through the
//! parser, the QEE's mode and fixed-point coefficients, and the result's bits on the probe
//! pixels' tree input, LSB first, one per cycle from QEE_LATENCY cycles after the start, at
//! exact times.

use pp5_rtl::clock::CYCLE_PS;
use pp5_rtl::qee::QEE_LATENCY;
use pp5_sim::asm::microcode;
use pp5_sim::engine::{CommandRecord, SimOptions, StopReason};
use pp5_sim::report::Summary;
use pp5_sim::session::{run, RunResult, RunSpec, WaveSpec};
use std::path::{Path, PathBuf};

/// INDON at the end: the trace goes on past TREEIntoMEM's last cycle (a run ends with its
/// last command), so the cycle after the last bit is in the waveform.
const STREAM: &str = "SETENABS\nFBITS 4\nTREEIntoMEM_L3 0 12 1.5 -2.0 3.0\nINDON\n";
/// Result width (TREEIntoMEM's `len`).
const LEN: u64 = 12;

/// A scratch directory under the system temp dir, removed when the test passes.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("pp5-vcd-qee-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Scratch(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn run_stream(path: &Path) -> (RunResult, Summary) {
    let img = microcode::standard();
    let stream = pp5_sim::stream::text::parse(STREAM, "<vcd_qee>", &img.table).expect("stream");
    let r = run(
        RunSpec {
            image: &img,
            boot: true,
            stream: &stream,
            opts: SimOptions {
                probes: vec![(5, 2), (7, 0)],
                ..Default::default()
            },
            wave: Some(WaveSpec::new(path)),
        },
        |_, _, _| {},
        None,
    )
    .expect("run");
    let s = Summary::of(&r.sim, &r.stop);
    (r, s)
}

struct Wave(wellen::simple::Waveform);

impl Wave {
    fn read(path: &Path) -> Wave {
        Wave(
            wellen::simple::read(path)
                .unwrap_or_else(|e| panic!("wellen cannot read {}: {e:?}", path.display())),
        )
    }

    /// Every change of a signal: (time in ps, bit string or text).
    fn changes(&mut self, path: &str) -> Vec<(u64, String)> {
        let parts: Vec<&str> = path.split('.').collect();
        let (name, scopes) = parts.split_last().expect("path");
        let h = self.0.hierarchy();
        let var = h
            .lookup_var(scopes, name)
            .unwrap_or_else(|| panic!("no signal {path}"));
        let sig = h[var].signal_ref();
        self.0.load_signals(&[sig]);
        let tt = self.0.time_table().to_vec();
        let signal = self.0.get_signal(sig).expect("loaded");
        signal
            .iter_changes()
            .map(|(idx, v)| {
                let s = match v {
                    wellen::SignalValueRef::String(s) => s.to_string(),
                    other => other.to_bit_string().expect("bits"),
                };
                (tt[idx as usize], s)
            })
            .collect()
    }
}

/// The value in effect at time `t`: the last change at or before it.
fn at(changes: &[(u64, String)], t: u64) -> &str {
    changes
        .iter()
        .take_while(|(ct, _)| *ct <= t)
        .last()
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no value at {t} ps"))
}

/// Times at which a 1-bit signal goes from 0 to 1.
fn rises(changes: &[(u64, String)]) -> Vec<u64> {
    changes
        .windows(2)
        .filter(|w| w[0].1 == "0" && w[1].1 == "1")
        .map(|w| w[1].0)
        .collect()
}

fn bits(v: u64, width: usize) -> String {
    format!("{v:0width$b}")
}

fn command<'a>(s: &'a Summary, name: &str) -> &'a CommandRecord {
    s.commands
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no {name} in the log"))
}

/// Q(x, y) = floor(1.5x - 2y + 3), the stream's coefficients (exact in binary, so the
/// fixed-point evaluation with FBITS 4 gives the same value).
fn q(x: i64, y: i64) -> i64 {
    (1.5 * x as f64 - 2.0 * y as f64 + 3.0).floor() as i64
}

#[test]
fn tree_into_mem_vcd_shows_the_qee_result_bit_serially() {
    let dir = Scratch::new("tree");
    let path = dir.path("tree.vcd");
    let (r, s) = run_stream(&path);
    assert_eq!(r.stop, StopReason::Done);
    assert!(s.clean(), "{:?}", s.diagnostics);
    let boot = s.boot_cycles.expect("booted");
    let cmd = command(&s, "TREEIntoMEM");
    assert_eq!(cmd.operands[..2], [0, LEN as u32], "dst, len");
    assert_eq!(cmd.cycles, 1 + LEN, "qee=start, then one cycle per bit");
    let start = cmd.start;
    assert!(start > boot);
    assert!(
        s.cycles >= start + 2 + LEN,
        "the trace covers the cycle after the last bit"
    );
    let t = |cycle: u64| cycle * CYCLE_PS;
    let mut wave = Wave::read(&path);

    // The waveform starts where the boot ended.
    let clk = wave.changes("renderer.clk");
    assert_eq!(clk[0], (t(boot), "1".to_string()));

    // 1. The parser: the coefficient words of 1.5, -2.0 and 3.0 pass through `word`, in that
    // order, after the previous command's GoLLPR and by the time GoLLPR rises for
    // TREEIntoMEM (the last rise at or before its start).
    let word = wave.changes("renderer.igc_port.parser.word");
    let go = wave.changes("renderer.igc_port.parser.GoLLPR");
    let go_rises = rises(&go);
    let go_t = *go_rises
        .iter()
        .rfind(|&&g| g <= t(start))
        .expect("GoLLPR rose for TREEIntoMEM");
    let prev_go = go_rises.iter().rfind(|&&g| g < go_t).copied().unwrap_or(0);
    let coef_words: Vec<String> = [1.5f32, -2.0, 3.0]
        .iter()
        .map(|c| bits(c.to_bits() as u64, 32))
        .collect();
    assert_eq!(
        coef_words,
        [
            "00111111110000000000000000000000", // 0x3fc00000
            "11000000000000000000000000000000", // 0xc0000000
            "01000000010000000000000000000000"
        ] // 0x40400000
    );
    let in_msg: Vec<&(u64, String)> = word
        .iter()
        .filter(|(ct, _)| *ct > prev_go && *ct <= go_t)
        .collect();
    let seen: Vec<&str> = in_msg
        .iter()
        .map(|(_, v)| v.as_str())
        .filter(|v| coef_words.iter().any(|c| c == v))
        .collect();
    assert_eq!(seen, coef_words, "coefficient words, in order: {in_msg:?}");
    // They are the last three words of the command, the last one on `word` as GoLLPR rises.
    let tail: Vec<&str> = in_msg[in_msg.len() - 3..]
        .iter()
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(tail, coef_words);
    assert_eq!(at(&word, go_t), coef_words[2]);
    assert_eq!(at(&go, go_t), "1");

    // 2. The QEE: mode and fixed-point coefficients (value · 2^FBITS, 64-bit two's
    // complement) from the sample after the START cycle; nothing before it.
    let mode = wave.changes("renderer.qee.mode");
    assert_eq!(at(&mode, t(start)), "NONE");
    assert_eq!(mode.last(), Some(&(t(start + 1), "LINEAR".to_string())));
    assert_eq!(
        at(&wave.changes("renderer.qee.fbits"), t(start + 1)),
        bits(4, 5)
    );
    for (name, v) in [
        ("A", 24i64),
        ("B", -32),
        ("C", 48),
        ("D", 0),
        ("E", 0),
        ("F", 0),
    ] {
        let ch = wave.changes(&format!("renderer.qee.{name}"));
        assert_eq!(at(&ch, t(start + 1)), bits(v as u64, 64), "qee.{name}");
        if v != 0 {
            assert_eq!(
                at(&ch, t(start)),
                bits(0, 64),
                "qee.{name} before the start"
            );
            assert_eq!(ch.last().map(|c| c.0), Some(t(start + 1)), "qee.{name}");
        }
    }
    assert_eq!(
        bits(-32i64 as u64, 64),
        format!("{}{}", "1".repeat(58), "100000"),
        "-32 as 64-bit two's complement"
    );

    // The tree delivers from QEE_LATENCY (= 1) cycles after the start: `delivering` and `bit`
    // are the state in cycle c, sampled at c · 25 ns, so bit k is on the tree in cycle
    // start + 1 + k.
    assert_eq!(QEE_LATENCY, 1);
    let delivering = wave.changes("renderer.qee.delivering");
    assert_eq!(at(&delivering, t(start)), "0");
    assert_eq!(rises(&delivering), [t(start + QEE_LATENCY as u64)]);
    let qbit = wave.changes("renderer.qee.bit");
    for k in 0..LEN {
        assert_eq!(
            at(&qbit, t(start + 1 + k)),
            bits(k, 8),
            "qee.bit in cycle start+1+{k}"
        );
    }

    // 3. The probe pixels: the microinstruction of cycle c reads the tree, and what the probe
    // saw in cycle c is in the sample after it, at (c + 1) · 25 ns. So bit k of Q (LSB first)
    // is the probe's `alu_b`/`alu_out`/`mem_wdata` at (start + 2 + k) · 25 ns, written
    // (`mem_we`) to mem[k].
    let probes = [(5usize, 2usize, 6i64), (7, 0, 13)];
    for (x, y, expect) in probes {
        assert_eq!(q(x as i64, y as i64), expect);
        let sig = |n: &str| format!("renderer.pixel_{x}_{y}.{n}");
        let alu_b = wave.changes(&sig("alu_b"));
        let alu_out = wave.changes(&sig("alu_out"));
        let we = wave.changes(&sig("mem_we"));
        let wdata = wave.changes(&sig("mem_wdata"));
        let enable = wave.changes(&sig("enable"));
        // The START cycle writes nothing (it reads no tree bit).
        assert_eq!(at(&we, t(start + 1)), "0", "({x},{y}) start cycle");
        let lsb_first: String = (0..LEN)
            .map(|k| if (expect >> k) & 1 == 1 { '1' } else { '0' })
            .collect();
        let sample = |ch: &[(u64, String)]| -> String {
            (0..LEN)
                .map(|k| at(ch, t(start + 2 + k)).to_string())
                .collect()
        };
        assert_eq!(
            sample(&alu_b),
            lsb_first,
            "({x},{y}) alu_b, bit k at start+2+k"
        );
        assert_eq!(sample(&alu_out), lsb_first, "({x},{y}) alu_out");
        assert_eq!(sample(&wdata), lsb_first, "({x},{y}) mem_wdata");
        assert_eq!(sample(&we), "1".repeat(LEN as usize), "({x},{y}) mem_we");
        assert_eq!(
            at(&enable, t(start + 1)),
            "1",
            "({x},{y}) enabled by SETENABS"
        );
        // Nothing is written after the last bit.
        assert_eq!(
            at(&we, t(start + 2 + LEN)),
            "0",
            "({x},{y}) after the last bit"
        );
        // 4. The memory holds Q afterwards.
        assert_eq!(
            r.sim.board.array.peek(x, y, 0, LEN as usize),
            expect as u64,
            "({x},{y})"
        );
    }
    // The expected bit strings are not symmetric, so the order is checked.
    assert_eq!(bits(6, 12), "000000000110");
    assert_eq!(bits(13, 12), "000000001101");
}
