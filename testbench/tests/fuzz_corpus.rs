//! The fuzz targets (`pp5_testbench::fuzz`) on their seed corpus and on every regression
//! input kept under `testbench/fixtures/fuzz/<target>/` (inputs that once found a bug,
//! minimised by `cargo fuzz tmin`): what `cargo fuzz` checks, run by plain `cargo test`, so a
//! regression shows in CI without libFuzzer (docs/testing.md).

use pp5_testbench::fuzz::seeds::{fixtures, seeds};
use pp5_testbench::fuzz::{Target, TARGETS};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The regression inputs of `target`, as (file name, bytes), sorted.
fn regressions(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = fixtures().join("fuzz").join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .map(|e| {
            let bytes = std::fs::read(e.path()).expect("read a regression input");
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    out.sort();
    out
}

/// Run `target` on its seeds and regression inputs; panic naming every input that fails.
fn replay(name: &str) {
    let target: Target = TARGETS
        .iter()
        .find(|t| t.0 == name)
        .map(|t| t.1)
        .expect("a target");
    let seeds = seeds(name);
    assert!(!seeds.is_empty(), "{name} has no seeds");
    let mut failed = Vec::new();
    let inputs = seeds
        .into_iter()
        .map(|(n, b)| (format!("seed {n}"), b))
        .chain(
            regressions(name)
                .into_iter()
                .map(|(n, b)| (format!("testbench/fixtures/fuzz/{name}/{n}"), b)),
        );
    for (input, bytes) in inputs {
        if catch_unwind(AssertUnwindSafe(|| target(&bytes))).is_err() {
            failed.push(input);
        }
    }
    assert!(failed.is_empty(), "{name} fails on: {failed:#?}");
}

#[test]
fn every_regression_directory_is_a_target() {
    let Ok(dirs) = std::fs::read_dir(fixtures().join("fuzz")) else {
        return;
    };
    for d in dirs.filter_map(Result::ok) {
        let n = d.file_name().to_string_lossy().into_owned();
        assert!(
            TARGETS.iter().any(|t| t.0 == n),
            "testbench/fixtures/fuzz/{n} is not a fuzz target"
        );
    }
}

#[test]
fn text_stream() {
    replay("text_stream");
}

#[test]
fn binary_stream() {
    replay("binary_stream");
}

#[test]
fn microcode_asm() {
    replay("microcode_asm");
}

#[test]
fn microcode_run() {
    replay("microcode_run");
}

#[test]
fn board_ring() {
    replay("board_ring");
}

#[test]
fn wave_writers() {
    replay("wave_writers");
}
