//! The waveform is exact: at every sampled cycle, every signal in the VCD holds the value a
//! full walk of the board shows (the [`Recorder`] visits every signal; the writer skips
//! scopes and groups whose keys did not change and writes only what changed). Run on the
//! demo stream and on the QEE triangle stream, read back with `wellen`.

use pp5_rtl::clock::CYCLE_PS;
use pp5_rtl::trace::Packed;
use pp5_rtl::trace::{Recorder, Traced};
use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::engine::{SimOptions, StopReason};
use pp5_sim::session::{boot, prepare, RunSpec, WaveSpec};
use pp5_sim::stream::Stream;
use pp5_sim::trace::{TraceConfig, WaveFormat, WaveWriter};
use pp5_testbench::support::{self, Scratch};
use std::collections::HashMap;

/// One full walk: hierarchical path → value as the VCD writes it (a bit string without
/// leading zeros is normalised below; texts as written).
fn snapshot(board: &impl Traced) -> Vec<(String, u32, u64, String)> {
    let mut r = Recorder::default();
    board.trace(&mut r);
    r.signals
}

/// A VCD text value as our writer encodes it.
fn vcd_text(s: &str) -> String {
    if s.is_empty() {
        return "-".into();
    }
    s.chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect()
}

fn check_stream(name: &str, stream: &Stream, max_cycles: u64) {
    check_stream_with(name, stream, max_cycles, &microcode::standard());
}

fn check_stream_with(name: &str, stream: &Stream, max_cycles: u64, img: &McImage) {
    let dir = Scratch::new();
    let path = dir.path(&format!("{name}.vcd"));
    let spec = RunSpec {
        wave: Some(WaveSpec::new(&path)),
        ..support::spec(img, stream)
    };
    let mut sim = prepare(&spec).expect("prepare");
    assert_eq!(
        boot(&mut sim, None, |_, _, _| {}).ok(),
        Some(StopReason::Done)
    );
    sim.queue_stream(stream);
    let first = sim.board.cycle;
    let mut w = WaveWriter::create_at(
        &path,
        WaveFormat::Vcd,
        TraceConfig::default(),
        &sim.trace_view(),
        first,
    )
    .expect("writer");
    let mut walks = Vec::new();
    loop {
        w.sample(sim.board.cycle, &sim.trace_view())
            .expect("sample");
        walks.push((sim.board.cycle, snapshot(&sim.trace_view())));
        if sim.done() || sim.board.cycle - first >= max_cycles {
            break;
        }
        sim.step();
    }
    w.finish().expect("finish");

    let mut wave = wellen::simple::read(&path).expect("wellen reads our VCD");
    let names: Vec<(String, u32, bool)> = walks[0]
        .1
        .iter()
        .map(|(p, width, _, _)| (p.clone(), *width, *width == 0))
        .collect();
    let mut checked = 0usize;
    for (k, (path, width, is_text)) in names.iter().enumerate() {
        let changes: HashMap<u64, String> =
            support::wave_changes(&mut wave, path).into_iter().collect();
        let mut times: Vec<u64> = changes.keys().copied().collect();
        times.sort_unstable();
        let mut cur: Option<&String> = None;
        let mut ti = 0;
        for (cycle, walk) in &walks {
            let t = cycle * CYCLE_PS;
            while ti < times.len() && times[ti] <= t {
                cur = changes.get(&times[ti]);
                ti += 1;
            }
            let (p, w, v, text) = &walk[k];
            assert_eq!(p, path, "walk order is stable");
            let expect = if *is_text {
                vcd_text(text)
            } else {
                format!("{:0width$b}", v, width = *w as usize)
            };
            let got = cur.unwrap_or_else(|| panic!("{path} has no value at cycle {cycle}"));
            assert_eq!(got, &expect, "{path} at cycle {cycle} (width {width})");
            checked += 1;
        }
    }
    assert!(
        checked > 1000,
        "the comparison covered {checked} values only"
    );
}

#[test]
fn demo_vcd_matches_a_full_walk_every_cycle() {
    let img = microcode::standard();
    let stream = pp5_sim::demo::demo_stream(&img.table).expect("demo stream");
    check_stream("demo", &stream, 20_000);
}

#[test]
fn triangle_vcd_matches_a_full_walk_every_cycle() {
    let img = microcode::standard();
    let stream =
        pp5_sim::stream::text::parse(pp5_sim::demo::TRIANGLES_STREAM, "<triangles>", &img.table)
            .expect("triangle stream");
    check_stream("triangles", &stream, 3_000);
}

#[test]
fn flow_control_vcd_matches_a_full_walk_every_cycle() {
    // GCDSTEPS (sim/microcode/flow.pp5uc): every flow-control instruction changes the
    // unit's trace scope, which is keyed by its version counter.
    let img = microcode::default_image();
    let stream = pp5_sim::stream::text::parse(pp5_sim::demo::GCD_STREAM, "<gcd>", &img.table)
        .expect("gcd stream");
    check_stream_with("gcd", &stream, 8_000, &img);
}

#[test]
fn ring_side_vcd_matches_a_full_walk_every_cycle() {
    // Both ports, a transfer, the semaphores and status messages, with TxReady going low
    // and back: every Ring-side scope changes.
    let img = microcode::standard();
    let text = "SETENABS\nSCAIntoMEM_S1 0 32 7\nBSSTORE 3\nVBSlater\nPIGC\n\
                SENDSTATUS_S1 0x100 0x40\nSENDSTATUS_S1 0x200 0x41\nINDON\n\
                message bs\nBS_PBS\nBS_TRANSMIT 3 0 1 0x42\nBS_RECEIVE 5 0 1 ramp\n\
                BS_SENDSTATUS 9 0x43\nBS_VIGC\nword 0x6\n\
                txready igc off at=4300\ntxready igc on at=9000\n";
    let stream = pp5_sim::stream::text::parse(text, "<ring>", &img.table).expect("ring stream");
    check_stream("ring", &stream, 12_000);
}

#[test]
fn idle_board_vcd_matches_a_full_walk_every_cycle() {
    // Inputs that reach the usually idle blocks while the rest of the board is idle (they
    // are skipped by one key while nothing happens there): TxReady of both ports going low
    // and back, a late BS message, a bogus BS word (an error message), a late SENDSTATUS.
    let img = microcode::standard();
    let text = "SETENABS\n\
                txready bs off at=5000\ntxready bs on at=5300\n\
                txready igc off at=5500\ntxready igc on at=5700\n\
                message bs at=6000\nBS_SENDSTATUS 9 0x43\n\
                message bs at=6400\nword 0x1f\n\
                message at=7000\nSENDSTATUS_S1 0x100 0x40\nINDON\n";
    let stream = pp5_sim::stream::text::parse(text, "<idle>", &img.table).expect("idle stream");
    check_stream("idle", &stream, 9_000);
}

#[test]
fn store_writes_over_the_last_microinstruction_show_in_uinst() {
    // `uinst` reads the store at the last PC only when the store was written since that
    // microinstruction was fetched (`Igc::trace`): MCWRITEs over it in RMode must show in
    // `uinst.w0..w3` (checked against the store itself, every cycle) and in the VCD.
    let img = microcode::standard();
    let first = "SETENABS\nNOOP\n";
    let probe = pp5_sim::stream::text::parse(first, "<probe>", &img.table).expect("probe stream");
    let run = |stream: &Stream, check: bool| {
        let spec = support::spec(&img, stream);
        let mut sim = prepare(&spec).expect("prepare");
        assert_eq!(
            boot(&mut sim, None, |_, _, _| {}).ok(),
            Some(StopReason::Done)
        );
        sim.queue_stream(stream);
        while !sim.done() && sim.board.cycle < 200_000 {
            sim.step();
            if check {
                let mut r = Recorder::default();
                sim.trace_view().trace(&mut r);
                let pc = sim.board.igc.last_pc as u32;
                for k in 0..4u32 {
                    let shown = r.value(&format!("renderer.igc.uinst.w{k}")).expect("w");
                    let word = sim.board.igc.store.read(pc * 4 + k).expect("word");
                    assert_eq!(
                        shown, word as u64,
                        "uinst.w{k} at cycle {}",
                        sim.board.cycle
                    );
                }
            }
        }
        sim
    };
    let sim = run(&probe, false);
    let base = sim.board.igc.last_pc as u32 * 4;
    let mut text = format!("{first}NOOP\nNOOP\nRMODEON\n");
    let old: Vec<u32> = (0..4)
        .map(|k| sim.board.igc.store.read(base + k).expect("store word"))
        .collect();
    for (k, w) in old.iter().enumerate() {
        text.push_str(&format!(
            "MCWRITE {} {:#x}\n",
            base + k as u32,
            w ^ 0x0104_0810
        ));
    }
    let stream = pp5_sim::stream::text::parse(&text, "<mcwrite>", &img.table).expect("stream");
    let sim = run(&stream, true);
    assert_eq!(
        sim.board.igc.last_pc as u32 * 4,
        base,
        "the same last microinstruction"
    );
    assert_eq!(
        sim.board.igc.store.read(base),
        Some(old[0] ^ 0x0104_0810),
        "the MCWRITEs reached it"
    );
    check_stream("mcwrite", &stream, 4_000);
}

/// The probe pixels' samples, which the waveform's observer takes from its own copy of each
/// pixel's memory column, are the ALU inputs the array read before each edge (read here from
/// a copy of the array and of the QEE taken before the edge): on QEE triangles (B from the
/// tree) and around BSLOADs of a sector the BS port wrote (a transfer writes the pixels' bits
/// 0-31 while the array reads them).
#[test]
fn probe_samples_are_the_alu_inputs_before_each_edge() {
    let img = microcode::standard();
    let tri =
        pp5_sim::stream::text::parse(pp5_sim::demo::TRIANGLES_STREAM, "<triangles>", &img.table)
            .expect("triangle stream");
    let xfer = pp5_sim::stream::text::parse(
        "message bs\nBS_RECEIVE 5 0 1 ramp\nmessage at=3000\nSETENABS\nBSLOAD 5\n\
         MEMplusMEM 40 0 8 8 8\nBSLOAD 5\nCPY 48 0 16\n",
        "<xfer>",
        &img.table,
    )
    .expect("transfer stream");
    let dir = std::env::temp_dir().join(format!("pp5-probe-samples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, stream, max_cycles) in [("triangles", &tri, 6_000u64), ("xfer", &xfer, 30_000)] {
        let spec = RunSpec {
            image: &img,
            boot: true,
            stream,
            opts: SimOptions {
                probes: vec![(0, 0), (1, 0), (70, 5), (8, 32), (127, 127), (3, 64)],
                ..SimOptions::default()
            },
            wave: Some(WaveSpec::new(&dir.join("unused.vcd"))),
        };
        let mut sim = prepare(&spec).expect("prepare");
        assert_eq!(
            boot(&mut sim, None, |_, _, _| {}).ok(),
            Some(StopReason::Done)
        );
        sim.queue_stream(stream);
        let (first, mut busy) = (sim.board.cycle, 0);
        while !sim.done() && sim.board.cycle - first < max_cycles {
            let array = sim.board.array.clone();
            let tree = *sim.board.qee.clone().tree_plane();
            sim.step();
            let op = sim.board.record.array_op;
            let active = sim.board.igc.fc.active_mask();
            for p in &sim.trace.ctx.probes {
                let want = p.sample_array(&array, &op, &tree, active);
                assert_eq!(
                    p.sample, want,
                    "{name}: {} cycle {}",
                    p.scope, sim.board.cycle
                );
                busy += (want != Packed::default()) as u32;
            }
        }
        assert!(busy > 100, "{name}: the probes saw {busy} operations");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The value of a signal at time `t` from its changes (the last one at or before `t`).
fn value_at(changes: &[(u64, String)], t: u64) -> Option<&str> {
    let k = changes.partition_point(|c| c.0 <= t);
    k.checked_sub(1).map(|k| changes[k].1.as_str())
}

/// A run traced in a window (and one whose selection shows no probe) samples the probes in
/// those cycles only, yet shows in the window the same probe signals as the whole run's
/// waveform: the memory columns the skipped cycles changed (BSLOAD, the array's writes) are
/// gathered again before the window's first sample.
#[test]
fn a_windowed_run_shows_the_probes_as_the_whole_run_does() {
    let img = microcode::standard();
    // The window starts at the first CPY, which reads the bits the untraced SCAIntoMEM_S1
    // wrote.
    let stream = pp5_sim::stream::text::parse(
        "SETENABS\nSCAIntoMEM_S1 40 8 165\nCPY 48 40 8\nCPY 56 44 8\n",
        "<copies>",
        &img.table,
    )
    .expect("stream");
    let dir = Scratch::new();
    let run = |name: &str, cfg: TraceConfig| {
        let path = dir.path(name);
        let mut wave = WaveSpec::new(&path);
        wave.cfg = cfg;
        let mut spec = RunSpec {
            wave: Some(wave),
            ..support::spec(&img, &stream)
        };
        spec.opts.probes = vec![(0, 0), (5, 0), (70, 5), (127, 0), (3, 64)];
        let r = support::run(spec).expect("run");
        assert_eq!(r.stop, StopReason::Done);
        (
            wellen::simple::read(&path).expect("wellen reads our VCD"),
            r,
        )
    };
    let (mut whole, _) = run("whole.vcd", TraceConfig::default());
    // The window: from the CPY, which reads bits the skipped cycles wrote, to the end.
    let commands = support::wave_changes(&mut whole, "renderer.igc.command");
    let cpy = commands.iter().find(|c| c.1 == "CPY").expect("CPY").0;
    let last = whole.time_table().last().copied().unwrap_or(0) / CYCLE_PS;
    let window = (cpy / CYCLE_PS, last);
    let (mut part, r) = run(
        "part.vcd",
        TraceConfig {
            window: Some(window),
            scopes: vec![],
        },
    );
    let probes: Vec<String> = (r.signals.iter())
        .filter(|s| s.path.starts_with("renderer.pixel_"))
        .map(|s| s.path.clone())
        .collect();
    assert!(probes.len() > 10, "{probes:?}");
    let mut changed = 0;
    for path in &probes {
        let (w, p) = (
            support::wave_changes(&mut whole, path),
            support::wave_changes(&mut part, path),
        );
        for c in window.0..=window.1 {
            let t = c * CYCLE_PS;
            assert_eq!(value_at(&w, t), value_at(&p, t), "{path} at cycle {c}");
        }
        changed += w.iter().filter(|x| x.0 > window.0 * CYCLE_PS).count();
    }
    assert!(
        changed > 10,
        "the probes change {changed} times in the window"
    );
    // Stepped by hand: with the whole waveform the probes see the copies; with a selection
    // that shows none of them, they are never sampled.
    for (scopes, sampled) in [(vec![], true), (vec!["renderer.igc".to_string()], false)] {
        let mut wave = WaveSpec::new(&dir.path("unused.vcd"));
        wave.cfg.scopes = scopes;
        let mut spec = RunSpec {
            wave: Some(wave),
            ..support::spec(&img, &stream)
        };
        spec.opts.probes = vec![(0, 0), (5, 0)];
        let mut sim = prepare(&spec).expect("prepare");
        assert_eq!(
            boot(&mut sim, None, |_, _, _| {}).ok(),
            Some(StopReason::Done)
        );
        sim.queue_stream(&stream);
        let mut seen = 0;
        while !sim.done() {
            sim.step();
            seen += sim
                .trace
                .ctx
                .probes
                .iter()
                .filter(|p| p.sample != Packed::default())
                .count();
        }
        assert_eq!(
            seen > 0,
            sampled,
            "{:?}: {seen} samples",
            spec.wave.map(|w| w.cfg)
        );
    }
}
