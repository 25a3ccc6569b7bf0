//! The per-command cycle table of a fixed stream that uses every command of the standard
//! microcode, as an insta snapshot (a timing study's baseline: a change of the microcode, the
//! parser or the sequencer that moves any number shows up in review). Each number is also
//! checked against the cycle formula written beside the command's `.command` declaration in
//! `sim/microcode/standard.pp5uc` and `sim/microcode/qee.pp5uc` (`W` = 73 - FBITS, the full
//! tree length; the stream runs at FBITS 10).

use pp5_rtl::cause::Cause;
use pp5_sim::asm::microcode::{self, McImage, STANDARD_SOURCE};
use pp5_sim::asm::opcodes::ArgKind;
use pp5_sim::engine::{CommandRecord, StopReason};
use pp5_sim::report::Summary;
use pp5_testbench::support;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

/// Every command of the standard microcode, each scalar form, both CPY directions; HANG last.
const STREAM: &str = "\
FBITS 10
SETENABS
NOOP
NOOP2
SCAIntoMEM_S1 0 16 1234
SCAIntoMEM_S0 16 8
SCAIntoMEM_TBL 24 8 1 2 3
CPY 32 0 16
CPY 0 8 8
CPY 40 32 16
INVERT 56 0 16
INC 72 0 16
DEC 88 0 16
NEGATE 104 0 16
MEMplusMEM 120 0 16 16 8
MEMminusMEM 136 0 16 16 8
MEMplusseqMEM 0 16 16 8
CLEAR 152 32
SET 184 24
CLRCRY
CRYIntoMEM 200
ENABIntoMEM 201
ENABIntoCRY
CRYIntoENAB
ENABINV
ENABINV
MEMintoENAB 201
MEMeqZERO 152 32
MEMeqSCA_S1 0 16 1234
MEMgeSCA_S1 0 16 1000
MEMgtSCA_S0 0 16
MEMgeMEM 0 72 16
MEMeqONES 184 24
MEMneZERO 152 32
MEMeqMEM 0 72 16
MEMneMEM 0 72 16
MEMgtMEM 0 72 16
MEM2geMEM2 0 72 16
MEM2gtMEM2 0 72 16
SWAP 0 16 16
MEMplusseqSCA_S1 32 0 16 77
MEMplusseqSCA_S0 32 32 16
MEMminuseqMEM 32 0 16 8
MEMplusMEM2 48 0 16 16 8
MEMplusseqMEM2 48 0 16 8
MEMminusMEM2 64 0 16 16 8
MEMminuseqMEM2 64 0 16 8
MEMandMEM 80 0 16 16
MEMandeqMEM 80 16 16
MEMorMEM 96 0 16 16
MEMoreqMEM 96 16 16
MEMxorMEM 112 0 16 16
MEMxoreqMEM 112 16 16
MEMcImpplusseqMEM 0 16 16 204
MEM2cImpplusseqMEM2 32 48 16 204
OVSIX 128 16 204
TBENTRY_S1 136 0 8 4 0x5a3
TBENTRY_TBL 136 0 8 4 0x5a3 0x7f1
GMAX 144 0 16 205
GMIN 160 0 16 205
SETENABS
ENABandeqMEM 201
ENABandeqMEMBAR 200
ENABoreqMEM 201
ENABxoreqMEM 200
ENABoreqCRY
MEMoreqENAB 202
MEMandeqENAB 203
SHIFTL 0 0 16 3
SHIFTR 16 0 16 16 5
CLEAR 150 50
TREEIntoMEM_L3 0 16 1.0 2.0 3.0
TREEBARIntoMEM_L0 16 16
MEMpluseqTREE_L0 32 0 16
TREEminusMEM_L0 48 0 16
MEMandTREE_C1 64 0 16 5.0
MEMorTREE_C0 80 0 16
MEMxorTREE_Q6 96 0 16 1.0 1.0 0.0 0.25 0.0 0.25
TREEeqZERO_C1 0.0
SETENABS
TREEgeZERO_L3 1.0 1.0 -50.0
SETENABS
TREEltZERO_L0
SETENABS
MESH_L0 4
SETENABS
GRID_L0 4
SETENABS
MEMeqTREE_L0 0 16
MEMneTREE_L0 0 16
FTECT_L0
FEDGE_L0
FEDGEBAR_L0
SEEDGE_L0 201
SEEDGEBAR_L0 201
EDGE2_L0
MEMEDGE_L0 202
SETENABS
MEMleTREE_L0 0 16
SETENABS
MEMltTREE_L0 0 16
SETENABS
MEMgeTREE_L0 0 16
SETENABS
MEMgtTREE_L0 0 16
FCMEMA_L0 0 16
SCMEMA_L0 0 16 201
STRIPEDGE_L0 201 203
SETENABS
TREEcImpIntoMEM_L0 112 8
SPLAT_L0 120 8 128
SEPCFG_S1 5 32 40
NOOP
NOOP
SUPCFG_S1 32 -1
NOOP
NOOP
CLRENABS
BSSTORE 3
CLEAR 64 8
BSWAIT
BSLOAD 3
VBSlater
BSWAIT
VBS
SENDSTATUS_S1 0x12345600 0x40
PIGC
INDON
INDOFF
HANG
message bs
BS_VIGC
BS_PBS
BS_PBS
";

fn run_stream(image: &McImage) -> (Summary, StopReason) {
    let stream = pp5_sim::stream::text::parse(STREAM, "<snapshot>", &image.table)
        .unwrap_or_else(|e| panic!("{e}"));
    let r = support::run(support::spec(image, &stream)).expect("run");
    let s = Summary::of(&r.sim, &r.stop);
    (s, r.stop)
}

fn table(s: &Summary) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "boot cycles:  {:?}", s.boot_cycles);
    let _ = writeln!(t, "total cycles: {}", s.cycles);
    let _ = writeln!(t, "user cycles:  {}", s.user_cycles);
    let _ = writeln!(t, "status:       {:#010x}", s.status);
    let _ = writeln!(t, "commands:     {}", s.commands.len());
    let _ = writeln!(t);
    let _ = writeln!(
        t,
        "  # command                                  start  cycles"
    );
    for c in &s.commands {
        let ops: Vec<String> = c.operands.iter().map(|o| o.to_string()).collect();
        let _ = writeln!(
            t,
            "{:>3} {:<38} {:>7} {:>7}",
            c.index,
            format!("{}({})", c.name, ops.join(", ")),
            c.start,
            c.cycles
        );
    }
    t
}

/// A cycle formula: a sum of terms `(k, None)` = the constant k and `(k, Some(arg))` = k times
/// the argument `arg` (written `N`, `arg` or `N*arg`, e.g. `2 + slen + dlen`, `2 + 3*dlen`).
type Formula = Vec<(u64, Option<String>)>;

/// The cycle formulas of the `.command` comments: name → formula, `None` for "forever".
fn formulas() -> HashMap<String, Option<Formula>> {
    let mut out = HashMap::new();
    for line in STANDARD_SOURCE.lines() {
        let Some(decl) = line.strip_prefix(".command ") else {
            continue;
        };
        let name = decl.split('(').next().expect("name").trim().to_string();
        let comment = line.split(';').nth(1).expect("cycle comment").trim();
        let f = if comment == "forever" {
            None
        } else {
            let expr = comment.split('(').next().expect("expr").trim();
            let term = |t: &str| match t.split_once('*') {
                Some((k, arg)) => (k.trim().parse().expect("factor"), Some(arg.trim().into())),
                None => match t.parse() {
                    Ok(k) => (k, None),
                    Err(_) => (1, Some(t.to_string())),
                },
            };
            Some(expr.split('+').map(str::trim).map(term).collect())
        };
        out.insert(name, f);
    }
    out
}

/// The cycles the formula gives for `c` with the standard image's argument names.
fn expected_cycles(img: &McImage, c: &CommandRecord) -> Option<u64> {
    let f = formulas();
    let terms = f
        .get(c.name.as_str())
        .unwrap_or_else(|| panic!("no formula for {}", c.name))
        .clone()?;
    let spec = img.table.get(&c.name).expect("spec");
    let value = |arg: &str| {
        if arg == "W" {
            return 73 - 10; // the full tree at the stream's FBITS 10
        }
        let pos = spec
            .args
            .iter()
            .filter(|a| a.kind != ArgKind::Fbits)
            .position(|a| a.name == arg)
            .unwrap_or_else(|| panic!("{}: formula argument {arg}", c.name));
        c.operands[pos] as u64
    };
    Some(
        terms
            .iter()
            .map(|(k, arg)| k * arg.as_deref().map_or(1, value))
            .sum(),
    )
}

#[test]
fn cycle_table_of_every_standard_command() {
    let img = microcode::standard();
    let (s, stop) = run_stream(&img);
    assert!(
        matches!(&stop, StopReason::Stuck(why) if why.contains("HANG")),
        "{stop:?}"
    );
    assert_eq!(
        s.status & 0x7f00_0000,
        0,
        "no error bits: {:?}",
        s.diagnostics
    );

    // Every declared command appears.
    let f = formulas();
    let declared: BTreeSet<&str> = f.keys().map(String::as_str).collect();
    let used: BTreeSet<&str> = s.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(used, declared);
    assert_eq!(declared.len(), 105);

    // Each count matches its formula, once the cycles a command waits for the board (a
    // transfer, a semaphore, the transmitter) are taken off; HANG's record stays open (its
    // cycles "hung" until the simulator sees that nothing can change: 3 cycles).
    for c in &s.commands {
        let waited = c.causes.get(Cause::XferStall)
            + c.causes.get(Cause::SemWait)
            + c.causes.get(Cause::TxHold);
        let hung = c.causes.get(Cause::Hung);
        assert_eq!(
            c.causes.get(Cause::Executing) + waited + hung,
            c.cycles,
            "{}",
            c.name
        );
        match expected_cycles(&img, c) {
            Some(n) => assert_eq!(c.cycles - waited, n, "{} {:?}", c.name, c.operands),
            None => assert_eq!(c.name, "HANG"),
        }
    }
    // The IGC is the bottleneck after the first few commands: each starts as the previous
    // one ends.
    for w in s.commands.windows(2).skip(8) {
        // (BSWAIT and the commands after it wait for their words: the Ring is slower
        // than one-cycle commands.)
        if w[1].name != "HANG" && w[0].causes.get(Cause::XferStall) == 0 {
            assert_eq!(
                w[1].start,
                w[0].start + w[0].cycles,
                "{} -> {}",
                w[0].name,
                w[1].name
            );
        }
    }
    insta::assert_snapshot!(table(&s));
}
