//! A TREEIntoMEM run's waveform read back with `wellen`: the coefficient words through the
//! parser, the QEE's mode and fixed-point coefficients, and the result's bits on the probe
//! pixels' tree input, LSB first, one per cycle from QEE_LATENCY cycles after the start, at
//! exact times.

use pp5_rtl::clock::CYCLE_PS;
use pp5_rtl::qee::QEE_LATENCY;
use pp5_sim::asm::microcode;
use pp5_sim::engine::{CommandRecord, SimOptions, StopReason};
use pp5_sim::report::Summary;
use pp5_sim::session::{RunResult, RunSpec, WaveSpec};
use pp5_testbench::support::{self, Scratch};
use std::path::Path;

/// INDON at the end: the trace goes on past TREEIntoMEM's last cycle (a run ends with its
/// last command), so the cycle after the last bit is in the waveform.
const STREAM: &str = "SETENABS\nFBITS 4\nTREEIntoMEM_L3 0 12 1.5 -2.0 3.0\nINDON\n";
/// Result width (TREEIntoMEM's `len`).
const LEN: u64 = 12;

fn run_stream(path: &Path) -> (RunResult, Summary) {
    run_with(path, STREAM, vec![(5, 2), (7, 0)], None)
}

/// Run `text` with these probe pixels and traced EMCs (`None`: the default selection).
fn run_with(
    path: &Path,
    text: &str,
    probes: Vec<(usize, usize)>,
    emcs: Option<Vec<usize>>,
) -> (RunResult, Summary) {
    let img = microcode::standard();
    let stream = pp5_sim::stream::text::parse(text, "<vcd_qee>", &img.table).expect("stream");
    let r = support::run(RunSpec {
        opts: SimOptions {
            probes,
            ..Default::default()
        },
        wave: Some(WaveSpec {
            emcs,
            ..WaveSpec::new(path)
        }),
        ..support::spec(&img, &stream)
    })
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

    /// Names of the scopes directly inside scope `path`.
    fn child_scopes(&self, path: &str) -> Vec<String> {
        let h = self.0.hierarchy();
        let parts: Vec<&str> = path.split('.').collect();
        let scope = h
            .lookup_scope(&parts)
            .unwrap_or_else(|| panic!("no scope {path}"));
        h[scope]
            .scopes(h)
            .map(|c| h[c].name(h).to_string())
            .collect()
    }

    /// (name, width) of the signals directly inside scope `path`, in file order.
    fn vars(&self, path: &str) -> Vec<(String, u32)> {
        let h = self.0.hierarchy();
        let parts: Vec<&str> = path.split('.').collect();
        let scope = h
            .lookup_scope(&parts)
            .unwrap_or_else(|| panic!("no scope {path}"));
        h[scope]
            .vars(h)
            .map(|v| (h[v].name(h).to_string(), h[v].length(h).unwrap_or(0)))
            .collect()
    }

    /// Every change of a signal: (time in ps, bit string or text).
    fn changes(&mut self, path: &str) -> Vec<(u64, String)> {
        support::wave_changes(&mut self.0, path)
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
    let dir = Scratch::new();
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

/// The signals of a per-EMC scope `renderer.emc[k].qee`, in walk order, with their widths.
const EMC_QEE_VARS: [(&str, u32); 11] = [
    ("config", 32),
    ("origin_x", 16),
    ("origin_y", 16),
    ("chain_A", 64),
    ("chain_B", 64),
    ("chain_C", 64),
    ("chain_D", 64),
    ("chain_E", 64),
    ("chain_F", 64),
    ("tree_bit_index", 8),
    ("tree_bit", 1),
];

fn emc_scopes(wave: &Wave) -> Vec<String> {
    wave.child_scopes("renderer")
        .into_iter()
        .filter(|n| n.starts_with("emc["))
        .collect()
}

#[test]
fn per_emc_scopes_show_the_shift_chains_and_the_root_pixels_tree_bit_lsb_first() {
    let dir = Scratch::new();
    let path = dir.path("emc.vcd");
    // EMC 17's root pixel (8, 32) is a probe; EMCs 17, 5 and 0 are traced (any order).
    let (r, s) = run_with(&path, STREAM, vec![(8, 32), (5, 2)], Some(vec![17, 5, 0]));
    assert_eq!(r.stop, StopReason::Done);
    assert!(s.clean(), "{:?}", s.diagnostics);
    let start = command(&s, "TREEIntoMEM").start;
    let t = |cycle: u64| cycle * CYCLE_PS;
    let mut wave = Wave::read(&path);

    // Exactly the selected EMCs, in increasing order, each holding `qee` with its signals.
    assert_eq!(emc_scopes(&wave), ["emc[0]", "emc[5]", "emc[17]"]);
    for k in [0, 5, 17] {
        assert_eq!(wave.child_scopes(&format!("renderer.emc[{k}]")), ["qee"]);
        let vars = wave.vars(&format!("renderer.emc[{k}].qee"));
        let want: Vec<(String, u32)> = EMC_QEE_VARS
            .iter()
            .map(|(n, w)| (n.to_string(), *w))
            .collect();
        assert_eq!(vars, want, "EMC {k}");
    }

    // Fixed point at FBITS 4: A = 24, B = -32, C = 48. Each EMC's chains hold its local
    // coefficients (linear: A_k = A, B_k = B, C_k = Q(origin) · 16); D..F are 0.
    for (k, (rx, ry)) in [(0usize, (0i64, 0i64)), (5, (40, 0)), (17, (8, 32))] {
        let qv = q(rx, ry);
        let sig = |n: &str| format!("renderer.emc[{k}].qee.{n}");
        let ch = |wave: &mut Wave, n: &str| wave.changes(&sig(n));
        let config = ch(&mut wave, "config");
        assert_eq!(
            config.len(),
            1,
            "EMC {k}: the identity mapping, never shifted"
        );
        assert_eq!(config[0].1, bits(((ry as u64) << 16) | rx as u64, 32));
        assert_eq!(ch(&mut wave, "origin_x")[0].1, bits(rx as u64, 16));
        assert_eq!(ch(&mut wave, "origin_y")[0].1, bits(ry as u64, 16));
        let tb = ch(&mut wave, "tree_bit");
        let idx = ch(&mut wave, "tree_bit_index");
        let chain_c = ch(&mut wave, "chain_C");
        // Before the START nothing is on the wire and the chains are empty.
        assert_eq!(at(&tb, t(start)), "0", "EMC {k}");
        assert_eq!(at(&chain_c, t(start)), bits(0, 64), "EMC {k}");
        // In cycle start + 1 + b, bit b of Q(root) is on the wire (LSB first, QEE_LATENCY
        // after the START); the C chain holds the bits still to come, Q >> b, and its LSB
        // is that bit.
        // (The trace ends shortly after the command: INDON follows it.)
        for b in 0..=LEN {
            let c = t(start + 1 + b);
            assert_eq!(at(&idx, c), bits(b, 8), "EMC {k} cycle start+1+{b}");
            let want = ((qv >> b) & 1).to_string();
            assert_eq!(at(&tb, c), want, "EMC {k} tree bit {b}");
            let chain = at(&chain_c, c);
            assert_eq!(
                chain,
                bits((qv >> b) as u64, 64),
                "EMC {k} chain_C at bit {b}"
            );
            assert_eq!(
                &chain[63..],
                want,
                "EMC {k}: the chain's LSB is on the wire"
            );
        }
        let first = t(start + 1);
        assert_eq!(at(&ch(&mut wave, "chain_A"), first), bits(24 >> 4, 64));
        assert_eq!(at(&ch(&mut wave, "chain_B"), first), bits(-2i64 as u64, 64));
        for n in ["chain_D", "chain_E", "chain_F"] {
            assert_eq!(
                ch(&mut wave, n).len(),
                1,
                "EMC {k} {n} stays 0 in linear mode"
            );
        }
    }
    assert_eq!(q(8, 32), -49);

    // What EMC 17's root pixel read as `tree` (its probe's alu_b, recorded in the sample after
    // the cycle) is the traced tree bit of that cycle, and ends up in memory.
    let alu_b = wave.changes("renderer.pixel_8_32.alu_b");
    let tb17 = wave.changes("renderer.emc[17].qee.tree_bit");
    for b in 0..LEN {
        assert_eq!(
            at(&alu_b, t(start + 2 + b)),
            at(&tb17, t(start + 1 + b)),
            "bit {b}"
        );
    }
    assert_eq!(
        r.sim.board.array.peek(8, 32, 0, LEN as usize),
        (-49i64 as u64) & ((1 << LEN) - 1)
    );
}

#[test]
fn the_default_selection_is_emc_0_and_the_probes_emcs_in_vcd_and_fst() {
    let dir = Scratch::new();
    for name in ["d.vcd", "d.fst"] {
        let path = dir.path(name);
        // (100, 100) is in EMC 3·16 + 12 = 60; (5, 2) in EMC 0.
        let (r, _) = run_with(&path, STREAM, vec![(5, 2), (100, 100)], None);
        assert_eq!(r.stop, StopReason::Done);
        let mut wave = Wave::read(&path);
        assert_eq!(emc_scopes(&wave), ["emc[0]", "emc[60]"], "{name}");
        // (An FST begins with an all-unknown frame at time 0: the value is the last change.)
        let cfg = wave.changes("renderer.emc[60].qee.config");
        assert_eq!(
            cfg.last().map(|c| c.1.clone()),
            Some(bits((96 << 16) | 96, 32)),
            "{name}"
        );
    }
    // An explicit empty selection traces none; all 64 can be selected.
    let path = dir.path("none.vcd");
    run_with(&path, STREAM, vec![(5, 2)], Some(vec![]));
    assert!(emc_scopes(&Wave::read(&path)).is_empty());
    let path = dir.path("all.vcd");
    run_with(&path, STREAM, vec![], Some((0..64).collect()));
    let all = emc_scopes(&Wave::read(&path));
    assert_eq!(all.len(), 64);
    assert_eq!(all[63], "emc[63]");
}

#[test]
fn an_emc_outside_0_to_63_is_an_input_error() {
    let img = microcode::standard();
    let stream = pp5_sim::stream::text::parse(STREAM, "<vcd_qee>", &img.table).expect("stream");
    let dir = Scratch::new();
    let path = dir.path("bad.vcd");
    let e = support::run(RunSpec {
        wave: Some(WaveSpec {
            emcs: Some(vec![3, 64]),
            ..WaveSpec::new(&path)
        }),
        ..support::spec(&img, &stream)
    });
    match e {
        Err(pp5_sim::session::RunError::Input(m)) => assert!(m.contains("64"), "{m}"),
        Err(e) => panic!("expected an input error, got {e}"),
        Ok(_) => panic!("expected an input error"),
    }
    assert!(!path.exists(), "no waveform is written");
}

#[test]
fn a_sepcfg_remap_changes_the_traced_config_origin_and_tree_bits_of_that_emc_only() {
    let dir = Scratch::new();
    let path = dir.path("sepcfg.vcd");
    let new_cfg: u64 = 1000 | (2000 << 16);
    let text = format!(
        "SETENABS\nFBITS 4\nSEPCFG_S1 5 32 {new_cfg}\nNOOP\nNOOP\n\
         TREEIntoMEM_L3 0 12 1.5 -2.0 3.0\nINDON\n"
    );
    let (r, s) = run_with(&path, &text, vec![], Some(vec![4, 5]));
    assert_eq!(r.stop, StopReason::Done);
    assert!(s.clean(), "{:?}", s.diagnostics);
    let sep = command(&s, "SEPCFG");
    assert_eq!(sep.cycles, 1 + 32);
    let t = |cycle: u64| cycle * CYCLE_PS;
    let mut wave = Wave::read(&path);

    // EMC 5's register takes one bit of `sca` per cycle, LSB first at the MSB end: after j
    // shifts (cycle sep.start + j, visible in the sample after it) it holds the old value
    // moved down j places under the first j bits of the new one.
    let old: u64 = 40;
    let cfg5 = wave.changes("renderer.emc[5].qee.config");
    for j in 0..=32u64 {
        let want = if j == 0 {
            old
        } else if j == 32 {
            new_cfg
        } else {
            (old >> j) | ((new_cfg & ((1 << j) - 1)) << (32 - j))
        };
        assert_eq!(
            at(&cfg5, t(sep.start + 1 + j)),
            bits(want, 32),
            "after {j} shifts"
        );
    }
    assert_eq!(cfg5.last().map(|c| c.1.clone()), Some(bits(new_cfg, 32)));
    let ox = wave.changes("renderer.emc[5].qee.origin_x");
    let oy = wave.changes("renderer.emc[5].qee.origin_y");
    assert_eq!(ox.last().map(|c| c.1.clone()), Some(bits(1000, 16)));
    assert_eq!(oy.last().map(|c| c.1.clone()), Some(bits(2000, 16)));
    // EMC 4 is untouched: one value each, the identity mapping.
    for (n, v, w) in [
        ("config", 32u64, 32usize),
        ("origin_x", 32, 16),
        ("origin_y", 0, 16),
    ] {
        let ch = wave.changes(&format!("renderer.emc[4].qee.{n}"));
        assert_eq!(ch.len(), 1, "emc[4].{n}");
        assert_eq!(ch[0].1, bits(v, w), "emc[4].{n}");
    }

    // The QEE command afterwards: EMC 5's root pixel is at screen (1000, 2000), EMC 4's at
    // (32, 0).
    let start = command(&s, "TREEIntoMEM").start;
    for (k, qv) in [(5usize, q(1000, 2000)), (4, q(32, 0))] {
        let tb = wave.changes(&format!("renderer.emc[{k}].qee.tree_bit"));
        let cc = wave.changes(&format!("renderer.emc[{k}].qee.chain_C"));
        for b in 0..LEN {
            let c = t(start + 1 + b);
            assert_eq!(at(&tb, c), ((qv >> b) & 1).to_string(), "EMC {k} bit {b}");
            assert_eq!(at(&cc, c), bits((qv >> b) as u64, 64), "EMC {k} chain_C");
        }
    }
    assert_eq!(q(1000, 2000), -2497);
    assert_eq!(
        r.sim.board.array.peek(40, 0, 0, 12),
        (-2497i64 as u64) & 0xfff
    );
}

/// Cycle by cycle, on a booted testbench: the traced tree bit of each selected EMC is bit
/// `bit` of the value at its root pixel, the tree plane the array reads has that bit there,
/// and the C chain's LSB is the same bit, through a quadratic command on a re-mapped EMC.
#[test]
fn the_traced_tree_bit_is_what_the_array_reads_every_cycle() {
    use pp5_rtl::emc_array::plane;
    use pp5_rtl::qee::{arith, root_pixel};
    use pp5_rtl::trace::{Recorder, Traced};
    let mut tb = pp5_testbench::Testbench::standard();
    let emcs = [5usize, 17, 63];
    tb.sim.trace.ctx.emcs = Some(emcs.iter().fold(0, |m, k| m | 1 << k));
    let cfg = (-700i16 as u16 as u32) | (300 << 16);
    let stream = tb.parse(&format!(
        "SETENABS\nFBITS 6\nSEPCFG_S1 17 32 {cfg}\nNOOP\nNOOP\n\
         TREEIntoMEM_Q6 0 40 0.75 -1.5 -21.25 0.125 -0.5 0.0625\nINDON\n"
    ));
    for m in &stream.messages {
        tb.sim.queue(pp5_sim::engine::RingMessage {
            dest: m.dest,
            body: m.body.clone(),
        });
    }
    let mut delivered = 0;
    let mut cycles = 0;
    while !tb.sim.done() && cycles < 100_000 {
        tb.sim.step();
        cycles += 1;
        let mut rec = Recorder::default();
        tb.sim.trace_view().trace(&mut rec);
        let qee = &mut tb.sim.board.qee;
        for k in emcs {
            let (x, y) = root_pixel(k);
            let p = |n: &str| format!("renderer.emc[{k}].qee.{n}");
            let traced = rec.value(&p("tree_bit")).expect("tree_bit") == 1;
            let want = qee.delivering() && arith::tree_bit(qee.value_at(x, y), qee.bit);
            assert_eq!(traced, want, "EMC {k} cycle {}", tb.sim.board.cycle);
            assert_eq!(traced, plane::get(qee.tree_plane(), x, y), "EMC {k} plane");
            let chain = rec.value(&p("chain_C")).expect("chain_C");
            assert_eq!(chain & 1 == 1, traced, "EMC {k} chain LSB");
            if qee.delivering() {
                let c = qee.local_coefs(k)[2];
                let shift = (qee.fbits + qee.bit).min(127);
                assert_eq!(chain, (c >> shift) as u64, "EMC {k} chain_C");
            }
            delivered += qee.delivering() as u32;
        }
    }
    assert!(tb.sim.done());
    assert!(delivered >= 3 * 40, "{delivered}");
    assert_eq!(tb.sim.board.qee.config.origin(17), (-700, 300));
    // The memory of EMC 17's root pixel holds tree[40] of Q at screen (-700, 300).
    let v = tb.sim.board.qee.value_at(8, 32);
    assert_eq!(tb.peek(8, 32, 0, 40), arith::tree_bits(v, 40) as u64);
}
