//! The seed corpus of each fuzz target, made from the fixtures and the demo: what
//! `scripts/fuzz-soak.sh` writes into `testbench/fuzz/corpus/<target>/` before fuzzing, and
//! what `cargo test` replays through the targets (`testbench/tests/fuzz_corpus.rs`).

use pp5_sim::stream::{binary, text};
use std::path::{Path, PathBuf};

/// The stream fixtures (`testbench/fixtures/streams/*.pp5s`), sorted by name.
fn stream_fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = fixtures().join("streams");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "pp5s"))
                .filter_map(|p| Some((name(&p), std::fs::read(&p).ok()?)))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn name(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `testbench/fixtures`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The syntax tour of the text format (the module documentation of `stream::text`).
const TEXT_TOUR: &str = "\
# comment (also ';'); a line ending in '\\' continues on the next line
CLEAR 0 8
message igc flush
SCAIntoMEM_S1 16 8 -3
SCAIntoMEM_TBL 0 8 1 2 3
TREEIntoMEM_Q6 0 10 1.0 2.0 0.5 0 0 0x3f800000
MCWRITE 12 0xdeadbeef
word 0x80000012 7
message bs
BS_RECEIVE 3 0 2 fill=7
BS_SENDSTATUS 1 0x40
txready bs off at=2us
txready bs on at=50us
reset
message igc at=12us dest=0 \\
  auto
INDON
";

/// Text streams: the fixtures, the demo's stream, the syntax tour.
fn text_seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = stream_fixtures();
    out.push(("demo".into(), pp5_sim::demo::full_demo_text().into_bytes()));
    out.push(("tour".into(), TEXT_TOUR.as_bytes().to_vec()));
    out
}

/// Binary streams: each text seed that parses, written in the binary format.
fn binary_seeds() -> Vec<(String, Vec<u8>)> {
    let table = &super::image().table;
    text_seeds()
        .into_iter()
        .filter_map(|(n, src)| {
            let s = text::parse(std::str::from_utf8(&src).ok()?, &n, table).ok()?;
            let mut bytes = Vec::new();
            binary::write(&s, &mut bytes).ok()?;
            Some((n, bytes))
        })
        .collect()
}

/// A microcode source small enough for the fuzzer to change in many places.
const SMALL_MICROCODE: &str = "\
; a small microcode
.fcmode full
.fcconst 0 count=3
.command NOOP() -> noop
.command CLEAR(dst:addr(dlen), dlen:len) -> clear
.command TWICE(dst:addr) -> twice
idle: dispatch
noop: dispatch
clear: i=0 l=dlen
clear_l: r=0 w=mem[dst+i] i++ loopd clear_l
twice: REP 0
       a=mem[dst] r=~a w=mem[dst]
       ENDREP
       dispatch
";

/// Microcode: the standard, QEE and flow-control sources, a small one, and a small image
/// as JSON.
fn asm_seeds() -> Vec<(String, Vec<u8>)> {
    use pp5_sim::asm::microcode;
    let mut out = vec![
        (
            "standard".to_string(),
            microcode::STANDARD_SOURCE.as_bytes().to_vec(),
        ),
        (
            "flow".to_string(),
            microcode::FLOW_SOURCE.as_bytes().to_vec(),
        ),
        ("small".to_string(), SMALL_MICROCODE.as_bytes().to_vec()),
    ];
    if let Ok(img) = microcode::assemble(SMALL_MICROCODE, "small.pp5uc") {
        if let Ok(json) = serde_json::to_string_pretty(&img) {
            out.push(("small-image".to_string(), json.into_bytes()));
        }
    }
    out
}

/// Byte patterns for the targets that read their input as choices.
fn choice_seeds() -> Vec<(String, Vec<u8>)> {
    vec![
        ("empty".into(), Vec::new()),
        ("ramp".into(), (0..=255).collect()),
        ("down".into(), (0..=255).rev().collect()),
        ("sevens".into(), vec![7; 200]),
        (
            "mixed".into(),
            (0u32..400).map(|k| (k * 37 % 251) as u8).collect(),
        ),
    ]
}

/// The seeds of `target` as (name, bytes); empty for an unknown target.
pub fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    match target {
        "text_stream" => text_seeds(),
        "binary_stream" => binary_seeds(),
        "microcode_asm" => asm_seeds(),
        "microcode_run" | "board_ring" | "wave_writers" => choice_seeds(),
        _ => Vec::new(),
    }
}
