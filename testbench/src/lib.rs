//! Testbenches, reference models and fixtures for pp5-rtl.
//!
//! [`Testbench`] is a microcode-loading testbench: it boots a microcode image through the
//! command stream exactly as the hardware requires (NOOP, NOOP, RMODEON, MCWRITE..., NOOP,
//! RMODEOFF), then lets a test set pixel memory and Enable patterns, run commands through the
//! Ring and the Stream Parser, and read results and cycle counts back.

pub mod fc_program;
pub mod fc_reference;
pub mod fuzz;
pub mod r700_program;
pub mod r700_reference;
pub mod raster_reference;
pub mod reference;
pub mod support;

use pp5_rtl::emc_array::plane;
use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::engine::{Sim, SimOptions, StopReason};
use pp5_sim::session::{self, RunSpec};
use pp5_sim::stream::builder::StreamBuilder;
use pp5_sim::stream::Stream;

/// A booted board plus the image it runs.
#[derive(Clone)]
pub struct Testbench {
    pub sim: Sim,
    pub image: McImage,
}

/// The outcome of running some commands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stop: StopReason,
    /// 40 MHz cycles from the first word entering the port to the board being idle again.
    pub cycles: u64,
    /// Cycles of each command taken, in order (the command's own microcode cycles).
    pub command_cycles: Vec<(String, u64)>,
}

impl Testbench {
    /// Boot the standard microcode through the stream.
    pub fn standard() -> Testbench {
        Self::boot(microcode::standard())
    }

    /// Boot `image` through the stream (RMODEON, MCWRITE..., RMODEOFF) and run until idle,
    /// as `pp5 run` and `pp5.Board` do ([`session::prepare`], [`session::boot`]).
    pub fn boot(image: McImage) -> Testbench {
        let empty = Stream::default();
        let spec = RunSpec {
            image: &image,
            boot: true,
            stream: &empty,
            opts: SimOptions {
                probes: vec![],
                ..SimOptions::default()
            },
            wave: None,
        };
        let mut sim = session::prepare(&spec).expect("a booted image always prepares");
        let stop = session::boot(&mut sim, None, |_, _, _| {}).unwrap_or(StopReason::Interrupted);
        assert_eq!(
            stop,
            StopReason::Done,
            "boot did not finish: {:?}",
            sim.diagnostics
        );
        Testbench { sim, image }
    }

    /// Assemble a text stream with this image's opcode table.
    pub fn parse(&self, text: &str) -> Stream {
        pp5_sim::stream::text::parse(text, "<test>", &self.image.table)
            .unwrap_or_else(|e| panic!("test stream does not parse: {e}"))
    }

    /// A builder with this image's opcode table.
    pub fn builder(&self) -> StreamBuilder<'_> {
        StreamBuilder::new(&self.image.table)
    }

    /// Queue `stream` and run until the board is idle (or `max_cycles` more cycles pass).
    pub fn run(&mut self, stream: &Stream, max_cycles: u64) -> Outcome {
        self.drive(stream, max_cycles, true, |_| {})
    }

    /// [`Testbench::run`], calling `each` after every cycle (to watch the board as it runs).
    pub fn run_with(
        &mut self,
        stream: &Stream,
        max_cycles: u64,
        each: impl FnMut(&Sim),
    ) -> Outcome {
        self.drive(stream, max_cycles, false, each)
    }

    /// Run `stream`, calling `each` after every cycle stepped; `skip`: pass still cycles at
    /// once, as `pp5 run` does (unless the simulation's skipping is off), and show `each`
    /// only the cycles stepped.
    fn drive(
        &mut self,
        stream: &Stream,
        max_cycles: u64,
        skip: bool,
        mut each: impl FnMut(&Sim),
    ) -> Outcome {
        let start = self.sim.board.cycle;
        let first = self.sim.commands.len();
        self.sim.queue_stream(stream);
        let limit = start + max_cycles;
        let stop = loop {
            if self.sim.board.cycle >= limit && !self.sim.done() {
                break StopReason::MaxCycles;
            }
            let stop = self.sim.tick();
            each(&self.sim);
            if let Some(stop) = stop {
                break stop;
            }
            if skip {
                self.sim.skip_still(limit);
            }
        };
        Outcome {
            stop,
            cycles: self.sim.board.cycle - start,
            command_cycles: self.sim.commands[first..]
                .iter()
                .map(|c| (c.name.to_string(), c.cycles))
                .collect(),
        }
    }

    /// Run a text stream.
    pub fn run_text(&mut self, text: &str) -> Outcome {
        let s = self.parse(text);
        self.run(&s, 10_000_000)
    }

    /// Read `mem[lsb:len]` (len ≤ 64) of pixel (x, y).
    pub fn peek(&self, x: usize, y: usize, lsb: usize, len: usize) -> u64 {
        self.sim.board.array.peek(x, y, lsb, len)
    }

    /// Write `mem[lsb:len]` of pixel (x, y) directly (a testbench back door).
    pub fn poke(&mut self, x: usize, y: usize, lsb: usize, len: usize, v: u64) {
        self.sim.board.array.poke(x, y, lsb, len, v)
    }

    /// Enable register of pixel (x, y).
    pub fn enable(&self, x: usize, y: usize) -> bool {
        plane::get(&self.sim.board.array.enable, x, y)
    }

    /// Set the Enable register of pixel (x, y) directly (updates AEO).
    pub fn set_enable(&mut self, x: usize, y: usize, v: bool) {
        plane::set(&mut self.sim.board.array.enable, x, y, v);
        self.sim.board.array.refresh_aeo();
    }

    /// Carry register of pixel (x, y).
    pub fn carry(&self, x: usize, y: usize) -> bool {
        plane::get(&self.sim.board.array.carry, x, y)
    }

    /// The status word.
    pub fn status(&self) -> u32 {
        self.sim.board.status()
    }
}
