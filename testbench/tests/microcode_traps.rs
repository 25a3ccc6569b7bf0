//! Microcode that goes wrong without a word from the assembler says so at run time (issue 37
//! item 2): the IGC going on to a microinstruction no source set, a microcode loop that never
//! ends (at the IGC timeout and at the cycle limit, by routine and source line), and code at
//! address 0 that runs once at the boot.

use pp5_sim::asm::microcode::McImage;
use pp5_sim::engine::StopReason;
use pp5_sim::engine::{Diagnostic, SimOptions};
use pp5_sim::microcode_view::MicrocodeSources;
use pp5_sim::session::{RunResult, RunSpec};
use pp5_sim::stream::text;
use pp5_testbench::support;

/// `src` (file `my.pp5uc`) assembled after the shipped sources, with its sources.
fn image(src: &str) -> (McImage, MicrocodeSources) {
    let mut parts = pp5_sim::asm::microcode::default_parts();
    parts.push(("my.pp5uc".into(), src.into()));
    MicrocodeSources::assemble(parts).unwrap_or_else(|e| panic!("{e}"))
}

/// Run `stream` on `image` with its sources known to the messages.
fn run(image: &McImage, sources: &MicrocodeSources, stream: &str, max: u64) -> RunResult {
    let stream = text::parse(stream, "s.pp5s", &image.table).unwrap_or_else(|e| panic!("{e}"));
    support::run(RunSpec {
        opts: SimOptions {
            max_cycles: max,
            uinst_names: Some(sources.uinst_names()),
            ..SimOptions::default()
        },
        ..support::spec(image, &stream)
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// [`run`]'s diagnostics.
fn diagnostics(
    image: &McImage,
    sources: &MicrocodeSources,
    stream: &str,
    max: u64,
) -> Vec<Diagnostic> {
    run(image, sources, stream, max).sim.diagnostics.to_vec()
}

fn find<'a>(d: &'a [Diagnostic], level: &str, text: &str) -> &'a Diagnostic {
    d.iter()
        .find(|d| d.level == level && d.msg.contains(text))
        .unwrap_or_else(|| panic!("no {level} with `{text}` in {d:#?}"))
}

/// An image whose last microinstruction was patched to go on to the next address (the
/// assembler refuses such code; a hand-made image or a JSON one can still hold it): the run
/// warns when the IGC leaves the code.
#[test]
fn the_igc_going_on_to_a_word_no_source_set_is_reported() {
    let (mut img, sources) = image(".command OFF() -> off\noff: e=1\n     e=0 dispatch\n");
    let last = img.uinsts - 1;
    let w2 = last * 4 + 2;
    for w in img.words.iter_mut().filter(|w| w.0 == w2) {
        w.1 = 0; // SEQ NEXT
    }
    let d = diagnostics(&img, &sources, "OFF\n", 200_000);
    let w = find(&d, "warning", "which no microcode source set");
    assert_eq!(
        w.msg,
        format!(
            "the IGC went on from off+1 (PC {:#05x}, my.pp5uc:3) to PC {:#05x}, which no microcode \
             source set (the empty store runs as NOPs): code that runs off its end, or a jump \
             to a wrong address",
            last,
            last + 1
        )
    );
    // Once, not at every word of the empty store.
    assert_eq!(
        d.iter()
            .filter(|x| x.msg.contains("no microcode source set"))
            .count(),
        1
    );
    // The shipped microcode never leaves its code.
    let (img, sources) = image("");
    let d = diagnostics(
        &img,
        &sources,
        "SETENABS\nCLEAR 0 8\nGCDSTEPS 100 3 9\n",
        1_000_000,
    );
    assert!(
        d.iter().all(|x| !x.msg.contains("no microcode source")),
        "{d:#?}"
    );
}

/// A loop of two microinstructions that never exits: the IGC timeout names where the IGC
/// is, and so does the cycle limit when no command waits (issue 37 item 2).
#[test]
fn a_microcode_loop_that_never_ends_is_named_by_routine_and_line() {
    let (img, sources) = image(".command SPIN() -> spin\nspin: e=1\n      e=0 jump spin\n");
    let d = diagnostics(&img, &sources, "SPIN\nNOOP\n", 400_000);
    let t = find(&d, "error", "IGC timeout");
    assert!(
        t.msg.contains("the IGC is at spin")
            && t.msg.contains("my.pp5uc:")
            && t.msg
                .contains("of SPIN (Run): a microcode loop that does not end?"),
        "{}",
        t.msg
    );
    let r = run(&img, &sources, "SPIN\n", 400_000);
    assert_eq!(r.stop, StopReason::MaxCycles);
    // The command open at the limit shows its cycles so far (issue 37 item 6: it showed 0).
    let spin = r.sim.open_command().expect("SPIN is open");
    assert_eq!(spin.cycles, 400_000 - spin.start);
    let d = r.sim.diagnostics.to_vec();
    let n = find(&d, "note", "at the cycle limit");
    assert!(
        n.msg
            .starts_with("at the cycle limit the IGC executes spin")
            && n.msg.contains("my.pp5uc:")
            && n.msg.contains("in command SPIN (started in cycle"),
        "{}",
        n.msg
    );
    // A run that ends waiting for input has no such note.
    let d = diagnostics(&img, &sources, "NOOP\n", 400_000);
    assert!(d.iter().all(|x| !x.msg.contains("cycle limit")), "{d:#?}");
}

/// A file with a command's routine at address 0 runs it once after the boot's RMODEOFF.
#[test]
fn code_at_address_0_other_than_an_idle_dispatch_is_reported() {
    let src = ".command F() -> f\nf: e=1 dispatch\n";
    let (img, sources) = MicrocodeSources::assemble(vec![("my.pp5uc".into(), src.into())])
        .unwrap_or_else(|e| panic!("{e}"));
    let d = diagnostics(&img, &sources, "F\n", 200_000);
    let w = find(&d, "warning", "address 0 holds");
    assert!(
        w.msg
            .starts_with("address 0 holds f (PC 0x000, my.pp5uc:2), not an idle `dispatch`"),
        "{}",
        w.msg
    );
    let (img, sources) = image("");
    let d = diagnostics(&img, &sources, "NOOP\n", 200_000);
    assert!(d.iter().all(|x| !x.msg.contains("address 0")), "{d:#?}");
}

/// A run that finishes without reaching its breakpoint says so (issue 37 item 6: it ended
/// "stream finished" with no word, like a run with no breakpoint).
#[test]
fn a_breakpoint_never_reached_is_reported() {
    let (img, sources) = image("");
    let until = |spec: &str| pp5_sim::microcode_view::resolve_until(spec, &img).unwrap();
    let stream = text::parse("SETENABS\nCLEAR 0 8\n", "s.pp5s", &img.table).unwrap();
    let run_until = |spec: &str| {
        support::run(RunSpec {
            opts: SimOptions {
                until: vec![until(spec)],
                uinst_names: Some(sources.uinst_names()),
                ..SimOptions::default()
            },
            ..support::spec(&img, &stream)
        })
        .unwrap()
    };
    let r = run_until("gcd_inc");
    assert_eq!(r.stop, StopReason::Done);
    let d = r.sim.diagnostics.to_vec();
    let w = find(&d, "warning", "never reached");
    assert_eq!(
        w.msg,
        "the breakpoint gcd_inc was never reached: the IGC never executed it"
    );
    let r = run_until("clear#2");
    let d = r.sim.diagnostics.to_vec();
    let w = find(&d, "warning", "never reached");
    assert!(w.msg.ends_with("the IGC executed it once"), "{}", w.msg);
    // One that is reached: no such warning (and none at the end of the boot).
    let r = run_until("clear");
    assert!(matches!(r.stop, StopReason::Breakpoint(_)), "{:?}", r.stop);
    assert!(r
        .sim
        .diagnostics
        .iter()
        .all(|x| !x.msg.contains("never reached")));
}
