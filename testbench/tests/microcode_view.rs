//! The microcode author's view (issue 28): coverage counts, the profile's sums, breakpoints,
//! on a user's own microcode file assembled after the shipped sources.

use pp5_rtl::cause::Cause;
use pp5_sim::asm::microcode::default_parts;
use pp5_sim::engine::{StopReason, Until};
use pp5_sim::microcode_view::coverage::lcov;
use pp5_sim::microcode_view::profile::Profile;
use pp5_sim::microcode_view::{resolve_until, MicrocodeSources};
use pp5_testbench::Testbench;

/// A user's microcode: FIVE sets five bits with a LOOP of trip count 5 (line 3).
const MINE: &str = "\
.command FIVE(dst:addr) -> five
five:    i=0 l=#5
five_l:  r=1 w=mem[dst+i] i++ loop five_l
         dispatch
";

fn booted() -> (Testbench, MicrocodeSources) {
    let mut parts = default_parts();
    parts.push(("mine.pp5uc".into(), MINE.into()));
    let (image, sources) = MicrocodeSources::assemble(parts).expect("assembles");
    (Testbench::boot(image), sources)
}

/// The lcov records of `file`.
fn record<'a>(info: &'a str, file: &str) -> Vec<&'a str> {
    let start = info
        .split("end_of_record\n")
        .find(|r| r.lines().any(|l| l == format!("SF:{file}")))
        .unwrap_or_else(|| panic!("no record for {file} in\n{info}"));
    start.lines().collect()
}

#[test]
fn a_loop_of_known_trip_count_gives_that_count_on_its_body_and_both_branch_outcomes() {
    let (mut tb, sources) = booted();
    tb.sim.enable_profile();
    let o = tb.run_text("SETENABS\nFIVE 10\n");
    assert_eq!(o.stop, StopReason::Done);
    assert_eq!(tb.peek(3, 4, 10, 5), 0b11111);
    let p = tb.sim.profile.as_ref().expect("profile");
    let info = lcov(p, &sources, "five");
    let r = record(&info, "mine.pp5uc");
    assert!(r.contains(&"DA:2,1"), "the set-up line once: {r:?}");
    assert!(r.contains(&"DA:3,5"), "the body five times: {r:?}");
    assert!(r.contains(&"DA:4,1"), "the dispatch once: {r:?}");
    // The LOOP jumps back four times and falls through once.
    assert!(r.contains(&"BRDA:3,0,0,4"), "{r:?}");
    assert!(r.contains(&"BRDA:3,0,1,1"), "{r:?}");
    assert!(
        r.contains(&"FN:2,FIVE") && r.contains(&"FNDA:1,FIVE"),
        "{r:?}"
    );
    assert!(r.contains(&"LF:3") && r.contains(&"LH:3"), "{r:?}");
    // A shipped routine that never ran is listed with zero counts.
    let std = record(
        &info,
        &MicrocodeSources::default_image()
            .1
            .report_path("standard.pp5uc"),
    );
    assert!(std
        .iter()
        .any(|l| l.starts_with("DA:") && l.ends_with(",0")));
    assert!(std.iter().any(|l| l.starts_with("FNDA:0,")));
}

#[test]
fn the_profile_adds_up_to_the_run_and_its_causes_to_the_igc_causes() {
    let (mut tb, sources) = booted();
    let (start, before) = (tb.sim.board.cycle, tb.sim.causes().igc);
    tb.sim.enable_profile();
    let o = tb.run_text("SETENABS\nFIVE 10\nPIGC\n");
    // PIGC waits for a V that never comes: a deadlock, with semaphore-wait cycles.
    assert!(
        matches!(o.stop, StopReason::Deadlock { .. }),
        "{:?}",
        o.stop
    );
    let p = tb.sim.profile.as_ref().expect("profile");
    assert_eq!(p.total(), tb.sim.board.cycle - start);
    let profile = Profile::of(p, Some(&sources), |_| None);
    assert_eq!(profile.cycles, p.total());
    assert_eq!(
        profile.routines.iter().map(|r| r.cycles).sum::<u64>(),
        profile.cycles,
        "the routines add up to the run"
    );
    for c in Cause::ALL {
        let by_routine: u64 = profile.routines.iter().map(|r| r.causes.get(c)).sum();
        assert_eq!(
            by_routine,
            tb.sim.causes().igc.get(c) - before.get(c),
            "{} cycles",
            c.name()
        );
    }
    let five = profile
        .routines
        .iter()
        .find(|r| r.name == "FIVE")
        .expect("FIVE");
    assert_eq!(five.causes.get(Cause::Executing), 1 + 5 + 1);
    let pigc = profile
        .routines
        .iter()
        .find(|r| r.name == "PIGC")
        .expect("PIGC");
    assert!(pigc.causes.get(Cause::SemWait) > 0, "{pigc:?}");
    let body = profile
        .lines
        .iter()
        .find(|l| l.name == "mine.pp5uc:3")
        .expect("line 3");
    assert_eq!(body.cycles, 5);
    assert!(body.text.starts_with("five_l:"), "{body:?}");
}

#[test]
fn a_breakpoint_stops_at_the_nth_execution_and_the_run_goes_on_from_there() {
    let (mut tb, _) = booted();
    let until = resolve_until("five_l#3", &tb.image).expect("a label");
    tb.sim.set_breakpoint(until);
    let o = tb.run_text("SETENABS\nFIVE 10\n");
    let StopReason::Breakpoint(what) = &o.stop else {
        panic!("{:?}", o.stop);
    };
    assert!(
        what.contains("five_l") && what.contains("3rd time"),
        "{what}"
    );
    // Before the third execution (gdb's convention): two of the five bits are written.
    assert_eq!(tb.peek(0, 0, 10, 5), 0b00011);
    // The breakpoint stays set (as gdb's does): going on stops at the next execution.
    let o = tb.run(&Default::default(), 1000);
    let StopReason::Breakpoint(what) = &o.stop else {
        panic!("{:?}", o.stop);
    };
    assert!(what.contains("4th time"), "{what}");
    assert_eq!(tb.peek(0, 0, 10, 5), 0b00111);
    tb.sim.breakpoint = None;
    let o = tb.run(&Default::default(), 1000);
    assert_eq!(o.stop, StopReason::Done);
    assert_eq!(tb.peek(0, 0, 10, 5), 0b11111);
    // A cycle breakpoint.
    let at = tb.sim.board.cycle + 7;
    tb.sim.set_breakpoint(Until::Cycle(at));
    let o = tb.run_text("FIVE 20\n");
    assert!(matches!(o.stop, StopReason::Breakpoint(_)), "{:?}", o.stop);
    assert_eq!(tb.sim.board.cycle, at);
}

/// The HANG microinstruction counts as executed on its line, though its cycle is charged as
/// hung (the IGC stops there).
#[test]
fn a_hang_counts_on_its_line() {
    let (mut tb, sources) = booted();
    tb.sim.enable_profile();
    let o = tb.run_text("HANG\n");
    assert!(matches!(o.stop, StopReason::Stuck { .. }), "{:?}", o.stop);
    let p = tb.sim.profile.as_ref().expect("profile");
    let line = pp5_sim::asm::microcode::STANDARD_PP5UC
        .lines()
        .position(|l| l.starts_with("hang:"))
        .expect("a hang: line")
        + 1;
    let info = lcov(p, &sources, "hang");
    let r = record(
        &info,
        &MicrocodeSources::default_image()
            .1
            .report_path("standard.pp5uc"),
    );
    assert!(r.contains(&format!("DA:{line},1").as_str()), "{r:?}");
}
