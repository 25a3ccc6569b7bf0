//! Write the fuzz targets' seed corpus (`pp5_testbench::fuzz::seeds`) into DIR/<target>/,
//! one file per seed: `cargo run --release -p pp5-testbench --example fuzz_seeds -- DIR`
//! (scripts/fuzz-soak.sh does this before fuzzing).

use pp5_testbench::fuzz::{seeds::seeds, TARGETS};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: fuzz_seeds DIR");
        return ExitCode::from(2);
    };
    for (target, _) in TARGETS {
        let d = dir.join(target);
        let mut n = 0;
        let written = std::fs::create_dir_all(&d).and_then(|()| {
            for (name, bytes) in seeds(target) {
                std::fs::write(d.join(format!("seed-{name}")), bytes)?;
                n += 1;
            }
            Ok(())
        });
        if let Err(e) = written {
            eprintln!("fuzz_seeds: {}: {e}", d.display());
            return ExitCode::from(1);
        }
        println!("{}: {n} seeds", d.display());
    }
    ExitCode::SUCCESS
}
