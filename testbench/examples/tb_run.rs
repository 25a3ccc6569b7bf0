//! Run one stream file on a [`Testbench`] (the Rust API) and print what a parity test
//! compares: the boot's cycles, the run's stop reason and cycles, each command's name, start
//! and cycles, as JSON; with a second argument, write all pixel memory there in the layout of
//! `pp5 run --dump-mem` (16,384 pixels row-major × 26 bytes, bit 0 first).
//!
//! `cargo run --release -p pp5-testbench --example tb_run -- [--no-boot] STREAM [MEM_OUT]`;
//! `--no-boot` writes the store directly, as `pp5 run --no-boot`. The pytest suite
//! (testbench/python/tests/test_parity.py) runs the same stream through Python, this and the
//! CLI.

use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::engine::SimOptions;
use pp5_sim::session::{self, RunSpec};
use pp5_sim::stream::Stream;
use pp5_testbench::Testbench;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let no_boot = args.first().is_some_and(|a| a == "--no-boot");
    if no_boot {
        args.remove(0);
    }
    let Some(path) = args.first() else {
        eprintln!("usage: tb_run [--no-boot] STREAM [MEM_OUT]");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("tb_run: {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let image = microcode::default_image();
    let mut tb = if no_boot {
        match unbooted(image) {
            Ok(tb) => tb,
            Err(e) => {
                eprintln!("tb_run: {e}");
                return ExitCode::from(3);
            }
        }
    } else {
        Testbench::boot(image)
    };
    let boot_cycles = tb.sim.boot_cycles;
    let stream = match pp5_sim::stream::load(&bytes, path, &tb.image.table) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tb_run: {e}");
            return ExitCode::from(3);
        }
    };
    let first = tb.sim.commands.len();
    let out = tb.run(&stream, 100_000_000);
    let commands: Vec<serde_json::Value> = tb.sim.commands[first..]
        .iter()
        .map(|c| serde_json::json!({"name": c.name, "start": c.start, "cycles": c.cycles}))
        .collect();
    let report = serde_json::json!({
        "boot_cycles": boot_cycles,
        "stop": format!("{:?}", out.stop),
        "cycles": out.cycles,
        "end_cycle": tb.sim.board.cycle,
        "status": tb.status(),
        "commands": commands,
    });
    println!("{report}");
    if let Some(mem_out) = args.get(1) {
        let mut mem = Vec::with_capacity(128 * 128 * 26);
        for y in 0..128 {
            for x in 0..128 {
                for byte in 0..26 {
                    mem.push(tb.peek(x, y, byte * 8, 8) as u8);
                }
            }
        }
        if let Err(e) = std::fs::write(mem_out, mem) {
            eprintln!("tb_run: {mem_out}: {e}");
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}

/// A testbench whose store was written directly (`pp5 run --no-boot`).
fn unbooted(image: McImage) -> Result<Testbench, String> {
    let empty = Stream::default();
    let spec = RunSpec {
        image: &image,
        boot: false,
        stream: &empty,
        opts: SimOptions {
            probes: vec![],
            ..SimOptions::default()
        },
        wave: None,
    };
    let sim = session::prepare(&spec).map_err(|e| e.to_string())?;
    Ok(Testbench { sim, image })
}
