//! A run stopped at a random cycle leaves a waveform that ends where it stopped (issue 19,
//! item 4): random valid streams, run with a VCD or FST (the boot traced or not), stopped by a
//! random cycle limit or by the interrupt flag (what Ctrl-C sets) raised at a random moment
//! from another thread. The file is read back with `wellen`: it is well formed, its time axis
//! ends at the falling clock edge of the cycle the run stopped at, the clock has both edges
//! of every traced cycle, and the `.gtkw` beside it names it.

use pp5_rtl::clock::{CYCLE_PS, HALF_CYCLE_PS};
use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::engine::{SimOptions, StopReason};
use pp5_sim::session::{run, RunSpec, WaveSpec};
use pp5_testbench::support::{self, Scratch};
use proptest::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

fn image() -> &'static McImage {
    static IMG: OnceLock<McImage> = OnceLock::new();
    IMG.get_or_init(microcode::standard)
}

/// Valid commands of the standard microcode.
const COMMANDS: [&str; 10] = [
    "SETENABS",
    "CLEAR 0 32",
    "SET 32 16",
    "CPY 64 0 32",
    "SCAIntoMEM_S1 0 16 77",
    "MEMgtSCA_S1 0 8 3",
    "INC 0 0 8",
    "MEMplusMEM 96 0 32 32 32",
    "INDON",
    "SCAIntoMEM_TBL 40 8 1 2 3",
];

/// How the run is stopped.
#[derive(Clone, Debug)]
enum Stop {
    /// `--max-cycles`.
    Limit(u64),
    /// The interrupt flag, raised after this many microseconds.
    Interrupt(u64),
}

fn stop_strategy() -> impl Strategy<Value = Stop> {
    prop_oneof![
        // Inside the boot (about 4,500 cycles), or during the stream.
        (1u64..60_000).prop_map(Stop::Limit),
        (0u64..4_000).prop_map(Stop::Interrupt),
    ]
}

fn check(cmds: &[&str], repeat: usize, stop: &Stop, fst: bool, trace_boot: bool) {
    let text = cmds.iter().map(|c| format!("{c}\n")).collect::<String>();
    let stream = pp5_sim::stream::text::parse(&text.repeat(repeat), "<p>", &image().table)
        .expect("a valid stream");
    let dir = Scratch::new();
    let path = dir.path(if fst { "w.fst" } else { "w.vcd" });
    let max_cycles = match stop {
        Stop::Limit(n) => *n,
        Stop::Interrupt(_) => SimOptions::default().max_cycles,
    };
    let flag = Arc::new(AtomicBool::new(false));
    let raiser = match stop {
        Stop::Interrupt(us) => {
            let (flag, us) = (flag.clone(), *us);
            Some(std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_micros(us));
                flag.store(true, Ordering::Relaxed);
            }))
        }
        Stop::Limit(_) => None,
    };
    let spec = RunSpec {
        opts: SimOptions {
            max_cycles,
            ..SimOptions::default()
        },
        wave: Some(WaveSpec {
            trace_boot,
            ..WaveSpec::new(&path)
        }),
        ..support::spec(image(), &stream)
    };
    let r = run(spec, |_, _, _| {}, Some(&flag)).expect("run");
    if let Some(t) = raiser {
        t.join().expect("raiser");
    }
    let end = r.sim.board.cycle;
    match (stop, &r.stop) {
        (Stop::Limit(n), StopReason::MaxCycles) => assert_eq!(end, *n),
        (_, StopReason::Done | StopReason::Interrupted) => {}
        (_, other) => panic!("stopped by {other:?}"),
    }
    let wave = wellen::simple::read(&path)
        .unwrap_or_else(|e| panic!("wellen cannot read the waveform of {stop:?}: {e:?}"));
    assert_eq!(
        wave.time_table().last().copied(),
        Some(end * CYCLE_PS + HALF_CYCLE_PS),
        "the last timestamp is the falling edge of the stop cycle {end} ({stop:?}, {:?})",
        r.stop
    );
    // Both clock edges of every traced cycle: from the first sample to the stop cycle.
    let h = wave.hierarchy();
    let clk = h.lookup_var(&["renderer"], "clk").expect("renderer.clk");
    let sig = h[clk].signal_ref();
    let mut wave = wave;
    wave.load_signals(&[sig]);
    let times = wave.time_table().to_vec();
    let edges: Vec<(u64, String)> = wave
        .get_signal(sig)
        .expect("loaded")
        .iter_changes()
        .map(|(k, v)| (times[k as usize], v.to_bit_string().unwrap_or_default()))
        .filter(|(_, v)| v == "0" || v == "1")
        .collect();
    let first = edges.first().map(|e| e.0 / CYCLE_PS).expect("a clock edge");
    assert_eq!(edges.len() as u64, 2 * (end - first + 1), "{stop:?}");
    let gtkw = std::fs::read_to_string(path.with_extension("gtkw")).expect("the .gtkw");
    assert!(gtkw.contains(if fst { "w.fst" } else { "w.vcd" }));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn a_run_stopped_at_a_random_cycle_leaves_a_waveform_ending_there(
        cmds in prop::collection::vec(prop::sample::select(COMMANDS.to_vec()), 1..12),
        repeat in 200usize..1000,
        stop in stop_strategy(),
        fst in any::<bool>(),
        trace_boot in any::<bool>(),
    ) {
        check(&cmds, repeat, &stop, fst, trace_boot);
    }
}
