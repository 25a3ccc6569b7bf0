//! The annotated listing and the profile's SIMD lane use as text (issue 37), on a microcode
//! of its own (so the snapshots do not move with the shipped sources): an IF/ELSE whose IF
//! part CALLs a subroutine, run once with every PE enabled and once with half of them.

use pp5_sim::microcode_view::annotate::Annotation;
use pp5_sim::microcode_view::profile::Profile;
use pp5_sim::microcode_view::MicrocodeSources;
use pp5_testbench::Testbench;

/// HALF(src, dst): an IF whose part CALLs a subroutine, and an ELSE.
const HALF: &str = include_str!("../fixtures/microcode/half.pp5uc");

/// The test's microcode before HALF.
const PRELUDE: &str = "\
.fcmode full
idle:    dispatch
.command ALL() -> all
all:     e=1 dispatch
.command ENAB(src:addr) -> enab
enab:    a=mem[src] r=a e=r dispatch
";

/// The run: bit 0 set at odd x (8192 PEs); HALF with every PE enabled, then with the odd-x
/// PEs only. Returns the annotated listing and the profile.
fn run() -> (Annotation, Profile) {
    let (image, sources) =
        MicrocodeSources::assemble(vec![("half.pp5uc".into(), format!("{PRELUDE}{HALF}"))])
            .expect("assembles");
    let uinsts = image.uinsts;
    let mut tb = Testbench::boot(image);
    for y in 0..128 {
        for x in 0..128 {
            tb.poke(x, y, 0, 1, x as u64 & 1);
        }
    }
    tb.sim.enable_profile();
    let o = tb.run_text("ALL\nHALF 0 8\nENAB 0\nHALF 0 9\n");
    assert_eq!(o.stop, pp5_sim::engine::StopReason::Done);
    assert_eq!(
        tb.status() & pp5_rtl::status::ERROR_MASK,
        0,
        "{:#x}",
        tb.status()
    );
    assert_eq!(tb.peek(3, 7, 8, 2), 0b11);
    assert_eq!(tb.peek(2, 7, 8, 2), 0b00);
    let p = tb.sim.profile.as_ref().expect("profile");
    let label = |pc| tb.sim.label_of(pc).map(|(l, o)| (l.to_string(), o));
    (
        Annotation::of(p, Some(&sources), uinsts, label),
        Profile::of(p, Some(&sources), label),
    )
}

#[test]
fn annotated_listing_of_an_if_else_and_a_call() {
    let (a, _) = run();
    insta::assert_snapshot!(a.text());
}

#[test]
fn profile_with_lanes_and_calls() {
    let (_, p) = run();
    insta::assert_snapshot!(p.table(0));
}
