//! The board behind `pp5.Board`, without Python: the engine's [`Sim`] booted as `pp5 run`
//! boots it ([`session::prepare`], [`session::boot`]), its waveform, and the run loop the Python methods call
//! with the GIL released, a chunk of cycles at a time.

use crate::run_log::{Capped, RunLog};
use crate::tracing::Wave;
use pp5_rtl::igc::microinstruction::Seq;
use pp5_rtl::igc::IgcState;
use pp5_rtl::renderer::OutMessage;
use pp5_sim::asm::microcode::McImage;
use pp5_sim::engine::{Sim, SimOptions, StopReason};
use pp5_sim::microcode_view::MicrocodeSources;
use pp5_sim::report::stop_text;
use pp5_sim::session::{self, RunSpec};
use pp5_sim::stream::Stream;
use std::io;
use std::sync::Arc;

/// Cycles run between two checks for Ctrl-C (`KeyboardInterrupt`), with the GIL released:
/// the engine's progress period (2^16 cycles, a few milliseconds).
pub const CHUNK_CYCLES: u64 = 1 << 16;

/// A board, its image and its waveform.
pub struct Machine {
    pub sim: Sim,
    pub image: McImage,
    pub wave: Option<Wave>,
    /// Cycles of the microcode boot, as `pp5 run` reports them (`None` without a boot).
    pub boot_cycles: Option<u64>,
    /// Probe pixels to add when a trace starts, if not yet added.
    pub pending_probes: Vec<(usize, usize)>,
    /// The microcode's sources and source map (`None` for an image without them).
    pub sources: Option<Arc<MicrocodeSources>>,
    /// The current (or last) run's records, collected from the engine after every chunk.
    pub log: RunLog,
    /// The first messages the board sent since it was built (`Board.sent`), as many as
    /// [`crate::run_log::Capped::messages`] keeps.
    pub sent: Capped<OutMessage>,
    /// The microinstruction the IGC was found looping on, changing nothing, when the last
    /// run stopped (`pp5.Stuck`), if any.
    pub stuck_loop: Option<u16>,
}

/// Why a board could not be built.
pub enum BuildError {
    /// The image cannot be written to the store (`no_boot`).
    Input(String),
}

impl Machine {
    /// A board with `image` loaded: through the stream (NOOP, NOOP, RMODEON, MCWRITE...,
    /// NOOP, RMODEOFF, as `pp5 run` does) queued, to be run until idle by the caller (then
    /// [`Machine::booted`]), or written directly into the store (`no_boot`, as `pp5 run
    /// --no-boot`). `probes` are added now.
    pub fn build(
        image: McImage,
        no_boot: bool,
        probes: &[(usize, usize)],
    ) -> Result<Machine, BuildError> {
        let empty = Stream::default();
        let spec = RunSpec {
            image: &image,
            boot: !no_boot,
            stream: &empty,
            opts: SimOptions {
                max_cycles: u64::MAX,
                probes: Vec::new(),
                ..SimOptions::default()
            },
            wave: None,
        };
        let mut sim = session::prepare(&spec).map_err(|e| BuildError::Input(e.to_string()))?;
        for &(x, y) in probes {
            sim.trace.add_probe(x, y, &sim.board);
        }
        Ok(Machine {
            log: RunLog::start(&sim),
            sim,
            image,
            wave: None,
            boot_cycles: None,
            pending_probes: Vec::new(),
            sources: None,
            sent: Capped::messages(),
            stuck_loop: None,
        })
    }

    /// Start a run's records: what ended before it is collected (into the previous run's log)
    /// and left out of this one's.
    pub fn begin_run(&mut self) {
        self.collect();
        self.log = RunLog::start(&self.sim);
    }

    /// Move the ended records and the messages out of the engine's logs into the run's log
    /// and the board's messages, so that memory does not grow with the run.
    pub fn collect(&mut self) {
        self.log.collect(&mut self.sim, &mut self.sent);
    }

    /// After the boot's run (with [`Machine::run_for`], the boot stream queued by
    /// [`Machine::build`]) stopped for `stop`: its cycles, or why it did not finish (the CLI's
    /// stop text, then the diagnostics), as [`session::boot`] reports it.
    pub fn booted(&mut self, stop: &StopReason) -> Result<(), String> {
        let sim = &mut self.sim;
        if *stop != StopReason::Done {
            let mut msg = format!("the microcode boot did not finish: {}", stop_text(stop));
            for d in &sim.diagnostics {
                msg.push_str(&format!("\n  cycle {}: {}: {}", d.cycle, d.level, d.msg));
            }
            return Err(msg);
        }
        sim.boot_cycles = Some(sim.board.cycle);
        self.boot_cycles = sim.boot_cycles;
        Ok(())
    }

    /// Note how a run stopped: a microcode loop found changing nothing is remembered for
    /// [`Machine::still_stuck`].
    pub fn stopped(&mut self, stop: &StopReason) {
        self.sim.stopped(stop.clone());
        let igc = &self.sim.board.igc;
        self.stuck_loop =
            (matches!(stop, StopReason::Stuck(_)) && igc.state == IgcState::Run).then_some(igc.pc);
    }

    /// The last run stopped on a microinstruction that jumps to itself unconditionally (no
    /// flow-control instruction) and changed nothing, and the IGC is still on it: no input
    /// but a Ring reset can end that loop.
    fn in_stuck_self_jump(&self) -> bool {
        let igc = &self.sim.board.igc;
        self.stuck_loop == Some(igc.pc)
            && igc.state == IgcState::Run
            && igc.last_pc == igc.pc
            && matches!(igc.store.uinst(igc.pc),
                Ok(m) if m.seq == Seq::Jump && m.target == igc.pc && m.fc.is_none())
    }

    /// The stop at once of a run that cannot go on, with no Ring reset to come (`reset`: the
    /// new input holds one): the IGC halted (HANG, an illegal microinstruction), or the last
    /// run stopped on a microinstruction that jumps to itself ([`Machine::stopped`]). Without
    /// this a run with new input would wait out the IGC timeout (131,082 cycles) to say so
    /// again, or stop at a smaller `max_cycles` first.
    pub fn still_stuck(&self, reset: bool) -> Option<StopReason> {
        let sim = &self.sim;
        if reset || sim.ring.reset_due().is_some() {
            return None;
        }
        if self.in_stuck_self_jump() {
            return Some(StopReason::Stuck(format!(
                "the IGC loops on microinstruction {}, a jump to itself, since before this run, \
                 and only a Ring reset can end it",
                sim.microinstruction_name(u32::from(sim.board.igc.pc))
            )));
        }
        if !sim.board.igc.stuck() {
            return None;
        }
        let igc = &sim.board.igc;
        let what = if igc.state == IgcState::Hang {
            "executed HANG"
        } else {
            "stopped on an illegal microinstruction"
        };
        Some(StopReason::Stuck(format!(
            "the IGC {what} at {} before this run, and nothing else can happen",
            sim.microinstruction_name(u32::from(igc.pc))
        )))
    }

    /// Put a stream's messages, Ring resets and TxReady changes on the Ring, behind anything
    /// queued before.
    pub fn queue(&mut self, stream: &Stream) {
        self.sim.queue_stream(stream);
    }

    /// Run at most `n` cycles, stopping at cycle `limit`: `Some(reason)` when the run is over
    /// (done, the limit, a deadlock, a stuck IGC), `None` when the `n` cycles ran out first.
    /// The loop of [`Sim::run`], with the waveform sampled after every cycle.
    pub fn run_for(&mut self, n: u64, limit: u64) -> io::Result<Option<StopReason>> {
        let r = self.run_chunk(n, limit);
        self.collect();
        r
    }

    /// [`Machine::run_for`] without the collection.
    fn run_chunk(&mut self, n: u64, limit: u64) -> io::Result<Option<StopReason>> {
        let sim = &mut self.sim;
        match self.wave.as_mut() {
            None => {
                // `n` cycles, still ones passed at once (docs/timing.md, "Still cycles").
                let end = sim.board.cycle.saturating_add(n);
                while sim.board.cycle < end {
                    if sim.board.cycle >= limit && !sim.done() {
                        return Ok(Some(StopReason::MaxCycles));
                    }
                    if let Some(stop) = sim.tick() {
                        return Ok(Some(stop));
                    }
                    sim.skip_still(limit.min(end));
                }
            }
            Some(w) => {
                for _ in 0..n {
                    if sim.board.cycle >= limit && !sim.done() {
                        return Ok(Some(StopReason::MaxCycles));
                    }
                    let stop = sim.tick();
                    w.sample(&sim.trace_view())?;
                    if stop.is_some() {
                        return Ok(stop);
                    }
                }
            }
        }
        Ok(None)
    }

    /// Clock the board `n` cycles whatever it does (idle or not), sampling the waveform.
    pub fn step(&mut self, n: u64) -> io::Result<()> {
        for _ in 0..n {
            self.sim.step();
            if let Some(w) = self.wave.as_mut() {
                w.sample(&self.sim.trace_view())?;
            }
        }
        self.collect();
        Ok(())
    }

    /// After a testbench wrote the array directly: let a waveform see the change.
    pub fn touched(&mut self) {
        self.sim.trace.touched(&self.sim.board);
    }
}
