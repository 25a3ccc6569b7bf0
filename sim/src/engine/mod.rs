//! The simulation engine: a loop over the board, its Ring environment and its observers.
//!
//! Each cycle the Ring environment ([`RingEnv`]: both ports' queued messages and arrival
//! times, Ring resets, the TxReady schedule) drives the board's inputs, the board
//! ([`Renderer`]) steps one 40 MHz edge and reports the cycle's events and causes, and every
//! observer is shown the cycle ([`Observer`], [`Cx`]): the command log, the BS command and
//! transfer logs, the cycles by cause, the board's events told as diagnostics, the rule
//! checks and the deadlock watch, each in its own file. When a waveform is written, its
//! observer ([`BoardTrace`]) also sees the board before the edge, and the writer samples the
//! board after each cycle. The engine stops when nothing is left to do, at the cycle limit, on an
//! interrupt, or when the deadlock watch finds the board stuck.

/// The observers' context of cycle `$c` of `$sim` (a [`Cx`]), with the command `$command`
/// open and the IGC's and BS port's causes: a macro, not a method, so that it borrows the
/// `Sim`'s fields one by one while the observers (other fields) are borrowed mutably.
/// `Sim::observe` (every cycle) and `Sim::show_still` (a still stretch) build it.
macro_rules! cx {
    ($sim:ident, $c:expr, $command:expr, $igc_cause:expr, $bs_cause:expr) => {
        Cx {
            cycle: $c,
            board: &$sim.board,
            ring: &$sim.ring,
            table: &$sim.table,
            index: &$sim.index,
            command: $command,
            igc_cause: $igc_cause,
            bs_cause: $bs_cause,
            diag: &mut $sim.diagnostics,
            names: &$sim.names,
            flag_format_error: false,
        }
    };
}

mod board_events;
mod breakpoint;
mod bs_log;
mod causes;
mod command_log;
mod deadlock;
pub mod lanes;
mod message_log;
mod microcode_names;
mod microcode_profile;
pub mod observer;
mod ring_env;
mod rules;
mod still;
mod watch;

use self::board_events::BoardEvents;
pub use self::breakpoint::{Breakpoints, Hit, Resume, Until};
pub use self::bs_log::{BsCommandLog, TransferLog};
pub use self::causes::CauseTally;
pub use self::command_log::CommandLog;
use self::deadlock::DeadlockWatch;
pub use self::message_log::{MessageLog, TxSink, KEEP_ALL_MESSAGES};
pub use self::microcode_names::MicrocodeNames;
pub use self::microcode_profile::{MicrocodeProfile, Outside, ProfileTap};
pub use self::observer::{CommandIndex, Cx, Diagnostic, Diagnostics, Observer, MAX_DIAGNOSTICS};
pub use self::ring_env::{RingEnv, RingMessage, RingSource, HELD};
use self::rules::RuleCheck;
use self::still::LastStep;
pub use self::still::{skip_by_default, NO_SKIP_ENV};
pub use self::watch::{Cond, Signal, Value, Watch};
use crate::asm::microcode::McImage;
use crate::asm::opcodes::OpcodeTable;
pub use crate::records::{
    BlockCauses, BsCommandRecord, CauseCounts, CommandName, CommandRecord, Keep, NameTally,
    Overlap, Tally, TransferRecord,
};
use crate::stream::{Port, Stream};
use crate::trace::board::BoardTrace;
use crate::trace::WaveWriter;
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::microinstruction::{decode, Microinstruction, Seq};
use pp5_rtl::igc::UinstNames;
use pp5_rtl::igc_port::MAX_MESSAGE_WORDS;
use pp5_rtl::renderer::TraceView;
use pp5_rtl::status::IGC_TIMEOUT_RING_CYCLES;
use pp5_rtl::{Renderer, RendererConfig};
use serde::Serialize;
use std::fmt;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// [`Sim::run`] reports its progress every 2^16 cycles (one less: a mask).
const PROGRESS_EVERY: u64 = 0xffff;

/// Who waits on what, in a deadlock report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Wait {
    /// The block (`igc`, `bs_port`, `igc_port.parser`, `ring.igc`, ...).
    pub block: String,
    /// What it waits for.
    pub waits_for: String,
    /// Since which 40 MHz cycle.
    pub since: u64,
}

impl fmt::Display for Wait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} waits for {} since cycle {}",
            self.block, self.waits_for, self.since
        )
    }
}

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum StopReason {
    /// The stream was consumed and the board is idle.
    Done,
    /// The cycle limit was reached first.
    MaxCycles,
    /// The IGC is stuck (HANG or an illegal microinstruction) and nothing else can happen.
    Stuck(String),
    /// No block can make progress, and some wait: who waits on what, since when.
    Deadlock { since: u64, waits: Vec<Wait> },
    /// Interrupted by the user (Ctrl-C).
    Interrupted,
    /// A breakpoint was reached ([`Sim::set_breakpoint`]): what it was.
    Breakpoint(String),
}

/// Options of a run.
#[derive(Clone, Debug)]
pub struct SimOptions {
    pub board: RendererConfig,
    /// Stop after this many 40 MHz cycles.
    pub max_cycles: u64,
    /// Probe pixels (x, y) for the waveform.
    pub probes: Vec<(usize, usize)>,
    /// How many command records to keep ([`Keep::All`] by default).
    pub keep: Keep,
    /// Keep the microcode profile and coverage ([`Sim::enable_profile`]) from the start.
    pub profile: bool,
    /// Stop at the first of these breakpoints reached ([`Sim::set_breakpoints`]; their
    /// signals are checked by [`Sim::check_breakpoints`]).
    pub until: Vec<Until>,
    /// How many of the messages the board sends to keep ([`KEEP_ALL_MESSAGES`] by default;
    /// the rest are counted).
    pub keep_messages: usize,
    /// Each microinstruction's routine and source position, when the run has the
    /// microcode's sources: messages that name a microinstruction add its `file:line`
    /// ([`MicrocodeNames`]).
    pub uinst_names: Option<UinstNames>,
    /// Where every message the board sends is written as it is sent ([`TxSink`]).
    pub tx_sink: Option<TxSink>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            board: RendererConfig::default(),
            max_cycles: 100_000_000,
            probes: vec![(0, 0), (1, 0)],
            keep: Keep::All,
            profile: false,
            until: Vec::new(),
            keep_messages: KEEP_ALL_MESSAGES,
            uinst_names: None,
            tx_sink: None,
        }
    }
}

/// A simulation: the board, its Ring environment, and its observers.
#[derive(Clone)]
pub struct Sim {
    pub board: Renderer,
    /// What the Ring delivers to both ports, and when.
    pub ring: RingEnv,
    /// The booted microcode's opcode table, to name commands.
    pub table: OpcodeTable,
    /// Its commands by dispatch byte.
    index: CommandIndex,
    /// The IGC's commands.
    pub commands: CommandLog,
    /// Every cycle of each block by cause ([`Sim::causes`]).
    causes: CauseTally,
    /// The BS port's commands.
    pub bs_commands: BsCommandLog,
    /// The backing-store transfers.
    pub transfers: TransferLog,
    events: BoardEvents,
    rules: RuleCheck,
    watch: DeadlockWatch,
    /// The microcode profile and coverage, when asked for ([`Sim::enable_profile`]).
    pub profile: Option<MicrocodeProfile>,
    /// A second profile for a count outside the run ([`Sim::set_tap`]).
    tap: Option<ProfileTap>,
    /// Where to stop, if anywhere ([`Sim::set_breakpoints`]).
    pub breakpoint: Option<Breakpoints>,
    /// What the observers reported, in order.
    pub diagnostics: Diagnostics,
    /// The waveform's observer and context (command names, traced EMCs, skip keys).
    pub trace: BoardTrace,
    /// The messages the board sent onto the Ring.
    pub tx: MessageLog,
    /// Cycles the microcode boot took, from its first Ring word to the board idle again: the
    /// cycle the user's stream starts on (set by [`crate::session::boot`]).
    pub boot_cycles: Option<u64>,
    interrupt: Arc<AtomicBool>,
    max_cycles: u64,
    last_sampled: Option<u64>,
    /// The booted image's labels and source positions, to name microinstructions in
    /// reports.
    names: MicrocodeNames,
    /// Pass still cycles in one step ([`Sim::skip_still`]).
    skip_still: bool,
    /// Cycles passed as still cycles.
    still_cycles: u64,
    /// What the engine knows of the last cycle stepped.
    last: LastStep,
    /// After the last cycle: since when the board has not changed by itself
    /// ([`DeadlockWatch::settled`]).
    settled: Option<u64>,
}

impl Sim {
    /// A board after Ring reset, with the opcode table used to name commands.
    pub fn new(opts: &SimOptions, table: OpcodeTable) -> Sim {
        let board = Renderer::new(opts.board);
        let mut trace = BoardTrace::default();
        for &(x, y) in &opts.probes {
            trace.add_probe(x, y, &board);
        }
        // `renderer.cycle` as wide as the cycle limit needs.
        trace.ctx.max_cycle = opts.max_cycles;
        // The waveform's `renderer.igc.command`: the table's names by dispatch index.
        trace.ctx.igc.set_commands(
            (0..=u8::MAX)
                .map(|cmd| table.by_cmd(cmd).map_or("", |c| c.name.as_str()).into())
                .collect(),
        );
        let profile = opts.profile.then(|| MicrocodeProfile::new(board.igc.state));
        let breakpoint =
            (!opts.until.is_empty()).then(|| Breakpoints::new(opts.until.clone(), &board));
        Sim {
            board,
            ring: RingEnv::default(),
            index: CommandIndex::new(&table),
            table,
            commands: CommandLog::new(opts.keep),
            causes: CauseTally::default(),
            bs_commands: BsCommandLog::new(opts.keep),
            transfers: TransferLog::default(),
            events: BoardEvents::default(),
            rules: RuleCheck::default(),
            watch: DeadlockWatch::default(),
            profile,
            tap: None,
            breakpoint,
            diagnostics: Diagnostics::default(),
            trace,
            tx: {
                let mut log = MessageLog::new(opts.keep_messages);
                if let Some(sink) = &opts.tx_sink {
                    log.set_sink(sink.clone());
                }
                log
            },
            boot_cycles: None,
            interrupt: Arc::new(AtomicBool::new(false)),
            max_cycles: opts.max_cycles,
            last_sampled: None,
            names: MicrocodeNames::new(opts.uinst_names.as_deref()),
            skip_still: skip_by_default(),
            still_cycles: 0,
            last: LastStep::default(),
            settled: None,
        }
    }

    /// Count the microcode in a second profile, for a report outside the run, from now on
    /// (`None`: no longer); [`crate::session::queue_boot`] sets the test suite's.
    pub fn set_tap(&mut self, tap: Option<ProfileTap>) {
        self.tap = tap;
    }

    /// Queue the boot sequence that loads `image` through the stream (RMODEON, MCWRITE...,
    /// NOOP, RMODEOFF), as the seed prescribes ([`crate::session::queue_boot`] also counts
    /// it for the test suite's coverage).
    pub fn queue_boot(&mut self, image: &McImage) {
        for body in image.boot_messages(MAX_MESSAGE_WORDS - 1) {
            self.queue(RingMessage { dest: 0, body });
        }
        self.commands.boot_queued();
        self.set_image(image);
    }

    /// The microcode the board runs: its labels name microinstructions in messages, and a
    /// warning is reported if address 0 does not hold an idle `dispatch` (the IGC starts
    /// there after the boot's RMODEOFF, or at once without a boot: what is there runs once
    /// without a command). [`Sim::queue_boot`] calls it; a board whose store is written
    /// directly calls it itself.
    pub fn set_image(&mut self, image: &McImage) {
        self.names.set_labels(&image.labels);
        let mut w = [0u32; 4];
        for &(a, v) in &image.words {
            if let Some(x) = w.get_mut(a as usize) {
                *x = v;
            }
        }
        let idle = Microinstruction {
            seq: Seq::Dispatch,
            ..Microinstruction::default()
        };
        if image.uinsts > 0 && decode(&w) != Ok(idle) {
            self.diagnostics.push(
                self.board.cycle,
                "warning",
                format!(
                    "address 0 holds {}, not an idle `dispatch`: the IGC starts there after \
                     the boot (RMODEOFF) and runs it once without a command \
                     (docs/microcode.md, \"Loading\")",
                    self.microinstruction_name(0)
                ),
            );
        }
    }

    /// The microinstruction at store address `pc`: `label+offset (PC n, file:line)`
    /// ([`MicrocodeNames::name`]).
    pub fn microinstruction_name(&self, pc: u32) -> String {
        self.names.name(pc)
    }

    /// Queue a message for the IGC port.
    pub fn queue(&mut self, m: RingMessage) {
        self.ring.queue_at(Port::Igc, m, None);
    }

    /// Queue a message for `port`, offered not before cycle `at`.
    pub fn queue_at(&mut self, port: Port, m: RingMessage, at: Option<u64>) {
        self.ring.queue_at(port, m, at);
    }

    /// Queue a Ring reset after everything queued so far: at cycle `at`, or (`None`) when
    /// the board can make no more progress.
    pub fn queue_reset(&mut self, at: Option<u64>) {
        self.ring.queue_reset(at);
    }

    /// Schedule a TxReady change of `port` at cycle `at`.
    pub fn schedule_tx_ready(&mut self, at: u64, port: Port, ready: bool) {
        self.ring.schedule_tx_ready(at, port, ready);
    }

    /// Queue a whole stream: its messages for both ports, its resets and TxReady changes.
    pub fn queue_stream(&mut self, stream: &Stream) {
        self.ring.queue_stream(stream);
    }

    /// Words delivered on both ports, and words in total.
    pub fn input_progress(&self) -> (u64, u64) {
        self.ring.progress()
    }

    /// A flag that stops the run when set (wire it to Ctrl-C).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// Use `flag` as the interrupt flag.
    pub fn set_interrupt_flag(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = flag;
    }

    /// Charge every cycle from now on to the microinstruction it executed (the microcode
    /// profile and coverage, [`Sim::profile`]).
    pub fn enable_profile(&mut self) {
        if self.profile.is_none() {
            self.profile = Some(MicrocodeProfile::new(self.board.igc.state));
        }
    }

    /// Stop the run at `until` (replacing any breakpoint set before; a watchpoint's or
    /// condition's signals are not checked: [`Sim::set_breakpoints`]).
    pub fn set_breakpoint(&mut self, until: Until) {
        let mut b = Breakpoints::new(vec![until], &self.board);
        b.arm(&self.trace.view(&self.board));
        self.breakpoint = Some(b);
    }

    /// Stop the run at the first of `list` reached (replacing the breakpoints set before),
    /// armed from the board as it is now: `Err` names a signal the board does not have.
    pub fn set_breakpoints(&mut self, list: Vec<Until>) -> Result<(), String> {
        self.breakpoint = None;
        if list.is_empty() {
            return Ok(());
        }
        let b = Breakpoints::new(list, &self.board);
        b.check(&self.trace.view(&self.board))?;
        self.breakpoint = Some(b);
        self.arm_breakpoints();
        Ok(())
    }

    /// Whether the board has every signal the breakpoints read ([`Breakpoints::check`]).
    pub fn check_breakpoints(&self) -> Result<(), String> {
        match &self.breakpoint {
            Some(b) => b.check(&self.trace.view(&self.board)),
            None => Ok(()),
        }
    }

    /// Go on from a breakpoint stop as gdb's `stepi`, `next`, `finish` or `continue`
    /// ([`Breakpoints::resume`]): the next [`Sim::run`] stops there. Without breakpoints
    /// (the run did not stop at one) only `step`, `next` and `finish` are set.
    pub fn resume(&mut self, how: Resume) {
        let view = self.trace.view(&self.board);
        match &mut self.breakpoint {
            Some(b) => b.resume(how, &view),
            None => {
                let mut b = Breakpoints::new(Vec::new(), &self.board);
                b.resume(how, &view);
                self.breakpoint = Some(b);
            }
        }
    }

    /// Read the watchpoints' values from the board as it is now ([`Breakpoints::arm`]).
    pub fn arm_breakpoints(&mut self) {
        if let Some(b) = &mut self.breakpoint {
            b.arm(&self.trace.view(&self.board));
        }
    }

    /// The microinstruction at store address `pc` by the labels of the booted image: the
    /// nearest label at or before it and the offset from it (`None` before every label).
    pub fn label_of(&self, pc: u32) -> Option<(&str, u32)> {
        self.names.label_of(pc)
    }

    /// The booted image's labels, by address.
    pub fn labels(&self) -> &[(String, u32)] {
        self.names.labels()
    }

    /// How messages name microinstructions.
    pub fn names(&self) -> &MicrocodeNames {
        &self.names
    }

    /// Name of a command by its opcode.
    pub fn command_name(&self, opcode: u32) -> String {
        observer::command_name(&self.table, opcode)
    }

    /// Whether the run can stop because nothing is left to do: no input left on either port
    /// (nor a Ring reset or TxReady change to come) and the board idle.
    // (The board first: while it executes, its check fails at once.)
    pub fn done(&self) -> bool {
        self.board.quiescent() && self.ring.exhausted()
    }

    fn fire_reset(&mut self) {
        let c = self.board.cycle;
        self.ring.take_reset(c);
        self.commands.ring_reset(c);
        self.bs_commands.ring_reset(c);
        self.watch.ring_reset(c);
        if let Some(p) = &mut self.profile {
            p.ring_reset(c);
        }
        if let Some(s) = &mut self.tap {
            s.ring_reset(c);
        }
        if let Some(b) = &mut self.breakpoint {
            b.ring_reset(c);
        }
        self.trace.ring_reset(c);
        self.board.ring_reset();
        self.settled = None;
        self.diagnostics.push(
            c.saturating_sub(1),
            "note",
            format!("Ring reset at cycle {c}"),
        );
    }

    /// Step one 40 MHz cycle (Ring environment, Ring delivery, board, observers).
    // Inlined into `tick`: a call frame of its own cost some 16 instructions per cycle
    // (callgrind, scripts/callgrind-cycles.sh).
    #[inline(always)]
    pub fn step(&mut self) {
        let now = self.board.cycle;
        let changed = self.ring.apply_tx_ready(&mut self.board, now);
        // An input changed: the board may move again (a held message goes out at the next
        // Ring slot).
        self.watch.inputs_changed(changed, now);
        if let Some(r) = self.ring.reset_due() {
            if r.at.is_some_and(|a| a <= now) {
                self.fire_reset();
            }
        }
        if self.board.ring_slot() {
            self.ring.deliver(&mut self.board, now);
        }
        let c = self.board.cycle;
        self.last.quiet = changed == 0 && !self.board.ring_input_pending();
        if self.trace.active() {
            self.trace.before_step(&self.board);
        }
        self.board.step();
        self.observe(c);
        self.settled = self.watch.settled(&self.board);
    }

    /// The board as the waveform walks it (its registers and the waveform's context).
    pub fn trace_view(&self) -> TraceView<'_> {
        self.trace.view(&self.board)
    }

    /// Show cycle `c`, just stepped, to the observers.
    #[inline(always)]
    fn observe(&mut self, c: u64) {
        let (igc_cause, bs_cause) = self.causes_of_cycle();
        // The command log first: the others see the command it has open. The hooks of the
        // observers every run has are called directly (no context to build: the hottest
        // ones); the optional observers' (the profile, the breakpoints, the waveform) are shown
        // the context, only when there are any.
        self.commands.charge(igc_cause);
        self.causes.charge(&self.board, igc_cause, bs_cause, 1);
        self.watch.states(&self.board, c);
        if self.profile.is_some()
            || self.tap.is_some()
            || self.breakpoint.is_some()
            || self.trace.active()
        {
            self.observe_optional(c, igc_cause, bs_cause);
        }
        let mut flag = false;
        self.last.quiet &= self.board.events.is_empty() && self.board.tx.is_empty();
        if !self.board.events.is_empty() {
            // Read in place and cleared, so the board's event buffer keeps its capacity (no
            // allocation per cycle, and no buffer moved out and back).
            for ev in &self.board.events {
                self.commands
                    .event(ev, &mut cx!(self, c, None, igc_cause, bs_cause));
                let mut cx = cx!(self, c, self.commands.open(), igc_cause, bs_cause);
                self.rules.event(ev, &mut cx);
                self.events.event(ev, &mut cx);
                self.bs_commands.event(ev, &mut cx);
                self.transfers.event(ev, &mut cx);
                flag |= cx.flag_format_error;
            }
            self.board.events.clear();
        }
        self.commands.after(&self.board, c);
        if !self.board.tx.is_empty() {
            self.tx
                .cycle_end(&mut cx!(self, c, None, igc_cause, bs_cause));
            self.board.tx.clear();
        }
        self.bs_commands.after(&self.board.bs_port, c);
        if flag {
            self.last.quiet = false;
            self.board.flag_format_error();
        }
    }

    /// Show cycle `c` to the optional observers ([`Sim::observe`]).
    #[inline(never)]
    fn observe_optional(&mut self, c: u64, igc_cause: Cause, bs_cause: Cause) {
        let mut cx = cx!(self, c, self.commands.open(), igc_cause, bs_cause);
        if let Some(p) = &mut self.profile {
            p.cycle(&mut cx);
        }
        if let Some(s) = &mut self.tap {
            s.cycle(&mut cx);
        }
        if let Some(b) = &mut self.breakpoint {
            b.cycle(&mut cx);
        }
        if self.trace.active() {
            self.trace.cycle(&mut cx);
        }
    }

    /// After a cycle: whether the board can still change without new input. Returns the
    /// stop reason when it cannot (a deadlock, a stuck IGC), after firing a pending Ring
    /// reset that waits for this moment.
    fn check_stall(&mut self) -> Option<StopReason> {
        let since = self.settled?;
        let b = &self.board;
        let timeout_counting = b.llpr.go && b.timeout_count < IGC_TIMEOUT_RING_CYCLES;
        if timeout_counting || self.ring.input_to_come(b, b.cycle) {
            return None;
        }
        if self.ring.reset_due().is_some() {
            self.fire_reset();
            return None;
        }
        if self.done() {
            return None;
        }
        let b = &self.board;
        Some(
            self.watch
                .stop_reason(b, &self.ring, self.commands.open(), since, |pc| {
                    self.microinstruction_name(pc)
                }),
        )
    }

    /// Run until done, the cycle limit, a deadlock, a stuck IGC, or an interrupt. Samples
    /// `wave` after every cycle; `progress` is called every 2^16 cycles with (cycle, words
    /// delivered, words total).
    pub fn run(
        &mut self,
        mut wave: Option<&mut WaveWriter>,
        mut progress: impl FnMut(u64, u64, u64),
    ) -> io::Result<StopReason> {
        if let Some(w) = wave.as_deref_mut() {
            // The state at the start of the traced part of the run.
            if self.last_sampled != Some(self.board.cycle) {
                w.sample(self.board.cycle, &self.trace_view())?;
                self.last_sampled = Some(self.board.cycle);
            }
        }
        if let Some(b) = &mut self.breakpoint {
            // A breakpoint on a cycle the board has reached already.
            b.check_cycle(self.board.cycle);
            if let Some(msg) = b.take_reached() {
                return Ok(StopReason::Breakpoint(msg));
            }
        }
        let mut next_progress = self.board.cycle | PROGRESS_EVERY;
        loop {
            if self.board.cycle >= self.max_cycles && !self.done() {
                return Ok(self.stopped(StopReason::MaxCycles));
            }
            if self.interrupt.load(Ordering::Relaxed) {
                return Ok(self.stopped(StopReason::Interrupted));
            }
            let stop = self.tick();
            // The waveform ends at a breakpoint's cycle.
            if stop.is_none() || matches!(stop, Some(StopReason::Breakpoint(_))) {
                if let Some(w) = wave.as_deref_mut() {
                    w.sample(self.board.cycle, &self.trace_view())?;
                    self.last_sampled = Some(self.board.cycle);
                }
            }
            if let Some(stop) = stop {
                return Ok(self.stopped(stop));
            }
            // (Never while a waveform is written: it needs every cycle.)
            self.skip_still(u64::MAX);
            if self.board.cycle > next_progress {
                next_progress = self.board.cycle | PROGRESS_EVERY;
                let (d, t) = self.input_progress();
                progress(self.board.cycle, d, t);
            }
        }
    }

    /// What a run that stops says of the cycle it stopped at: the command still open gets
    /// its cycles so far (the report, JSON and Python's `Outcome` show them as the profile
    /// charges them), a run that finished with its breakpoint not reached says so (a
    /// warning), and at the cycle limit a note says where the IGC executes
    /// ([`Sim::note_cycle_limit`]). [`Sim::run`] calls it; a loop of its own over
    /// [`Sim::tick`] calls it when it stops.
    pub fn stopped(&mut self, stop: StopReason) -> StopReason {
        if stop != StopReason::Done {
            self.commands.so_far(self.board.cycle);
        }
        // (Not at the end of the boot, which the user's stream follows: `boot_cycles` is set
        // when the boot has run, and a board booted without the stream has no boot end.)
        let boot_run = self.boot_cycles.is_none() && self.commands.boot_end.is_some();
        let missed = self.breakpoint.as_ref().filter(|b| b.last.is_none());
        if let (StopReason::Done, Some(b), false) = (&stop, missed, boot_run) {
            // A script tells a run that missed its breakpoint from one that hit it by the
            // stop reason, the exit code (`exit::of_run`) and this warning.
            let msg = b.missed();
            self.diagnostics
                .push(self.board.cycle.saturating_sub(1), "warning", msg);
        }
        if stop == StopReason::MaxCycles {
            self.note_cycle_limit();
        }
        stop
    }

    /// One step of [`Sim::run`] without a waveform: `Some(reason)` when the run is over
    /// (done, a deadlock, a stuck IGC) instead of stepping or after the step that showed it.
    pub fn tick(&mut self) -> Option<StopReason> {
        if self.done() {
            self.bs_commands.done(self.board.cycle);
            return Some(StopReason::Done);
        }
        self.step();
        if let Some(b) = &mut self.breakpoint {
            if b.wants_view() {
                b.view(&self.trace.view(&self.board));
            }
            if let Some(msg) = b.take_reached() {
                return Some(StopReason::Breakpoint(msg));
            }
        }
        let stop = self.check_stall()?;
        if let StopReason::Deadlock { waits, .. } = &stop {
            let at = self.board.cycle.saturating_sub(1);
            for w in waits {
                self.diagnostics.push(at, "error", format!("deadlock: {w}"));
            }
        }
        Some(stop)
    }

    /// At the cycle limit, a note of where the IGC executes, if it does (not waiting for a
    /// command or a handshake): a microcode loop that never ends is found here, by routine
    /// and source line.
    fn note_cycle_limit(&mut self) {
        if self.board.igc.state != pp5_rtl::igc::IgcState::Run {
            return;
        }
        let at = self.microinstruction_name(u32::from(self.board.igc.pc));
        let cmd = self.commands.open().map_or(String::new(), |c| {
            format!(" in command {} (started in cycle {})", c.name, c.start)
        });
        self.diagnostics.push(
            self.board.cycle.saturating_sub(1),
            "note",
            format!("at the cycle limit the IGC executes {at}{cmd}"),
        );
    }

    /// Every cycle so far of each block, by cause, and the cycles two blocks worked at once.
    pub fn causes(&self) -> BlockCauses {
        self.causes.totals()
    }

    /// The record of the command executing (or stuck), if any.
    pub fn open_command(&self) -> Option<&CommandRecord> {
        self.commands.open()
    }

    /// Commands of the user's stream (after the boot).
    pub fn user_commands(&self) -> impl Iterator<Item = &CommandRecord> {
        self.commands.user()
    }

    /// Hand over the records of the commands that have ended (all but the one executing),
    /// in order, and forget them: a long run that reads its timing as it goes (`pp5 render`)
    /// keeps memory bounded. [`Sim::commands`] keeps the open command; the records' `index`
    /// keeps counting from the first command.
    pub fn take_ended_commands(&mut self) -> Vec<CommandRecord> {
        self.commands.take_ended()
    }
}
