//! The simulation engine: drives the Ring into the Renderer's IGC port, clocks the board,
//! samples the tracer, and keeps the per-command timing log and the diagnostics.
//!
//! The engine is generic about what it drives (a [`Renderer`]) only in the sense that all
//! block-specific behaviour lives in `pp5-rtl`; here are the run loop, the stop conditions and
//! the bookkeeping a user of a hardware simulator expects.

use crate::asm::microcode::McImage;
use crate::asm::opcodes::OpcodeTable;
use crate::trace::WaveWriter;
use pp5_rtl::igc::opcode::OpcodeWord;
use pp5_rtl::igc::{IgcEvent, IgcState};
use pp5_rtl::igc_port::parser::ParserEvent;
use pp5_rtl::igc_port::MAX_MESSAGE_WORDS;
use pp5_rtl::renderer::{BoardEvent, OutMessage};
use pp5_rtl::status::IGC_TIMEOUT_RING_CYCLES;
use pp5_rtl::{Renderer, RendererConfig};
use serde::Serialize;
use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One message for the IGC port: destination word, then the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingMessage {
    pub dest: u32,
    pub body: Vec<u32>,
}

/// The Ring side of the IGC port: delivers queued messages one word per 20 MHz slot, starting
/// a message only while the port asserts RxReady (seed §III.4.1-3).
#[derive(Clone, Debug, Default)]
pub struct RingSource {
    queue: VecDeque<RingMessage>,
    cur: Option<(RingMessage, usize)>,
    /// Words delivered so far.
    pub delivered: u64,
    /// Words queued in total.
    pub total: u64,
}

impl RingSource {
    /// Queue a message.
    pub fn push(&mut self, m: RingMessage) {
        self.total += 1 + m.body.len() as u64;
        self.queue.push_back(m);
    }

    /// Nothing left to deliver.
    pub fn is_empty(&self) -> bool {
        self.cur.is_none() && self.queue.is_empty()
    }

    /// The word to deliver this slot, if any: `(word, start_of_message)`.
    fn next(&mut self, rx_ready: bool) -> Option<(u32, bool)> {
        if self.cur.is_none() {
            if !rx_ready {
                return None;
            }
            let m = self.queue.pop_front()?;
            let dest = m.dest;
            if !m.body.is_empty() {
                self.cur = Some((m, 0));
            }
            self.delivered += 1;
            return Some((dest, true));
        }
        let (m, i) = self.cur.as_mut()?;
        let w = m.body.get(*i).copied();
        *i += 1;
        if *i >= m.body.len() {
            self.cur = None;
        }
        if w.is_some() {
            self.delivered += 1;
        }
        w.map(|w| (w, false))
    }
}

/// One executed command, for the timing report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommandRecord {
    /// Sequence number among all commands taken.
    pub index: u64,
    /// Mnemonic from the opcode table (or `CMD 0x..`).
    pub name: String,
    /// Operand registers as latched.
    pub operands: Vec<u32>,
    pub opcode: u32,
    /// First cycle of its routine.
    pub start: u64,
    /// Cycles from its first microinstruction through its dispatching one.
    pub cycles: u64,
    /// Part of the microcode boot sequence.
    pub boot: bool,
}

/// Something the simulator reports to the user.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub cycle: u64,
    /// `error` (a hardware error bit was set), `fault`, `warning` or `note`.
    pub level: &'static str,
    pub msg: String,
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
    /// Interrupted by the user (Ctrl-C).
    Interrupted,
}

/// Options of a run.
#[derive(Clone, Debug)]
pub struct SimOptions {
    pub board: RendererConfig,
    /// Stop after this many 40 MHz cycles.
    pub max_cycles: u64,
    /// Probe pixels (x, y) for the waveform.
    pub probes: Vec<(usize, usize)>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            board: RendererConfig::default(),
            max_cycles: 100_000_000,
            probes: vec![(0, 0), (1, 0)],
        }
    }
}

/// Cap on the stored diagnostics (the count of dropped ones is kept).
pub const MAX_DIAGNOSTICS: usize = 1000;

/// A simulation: the board, its Ring input, and the logs.
#[derive(Clone)]
pub struct Sim {
    pub board: Renderer,
    pub source: RingSource,
    pub table: OpcodeTable,
    pub commands: Vec<CommandRecord>,
    pub diagnostics: Vec<Diagnostic>,
    pub dropped_diagnostics: u64,
    pub tx: Vec<OutMessage>,
    /// Cycle at which the boot sequence ended (RMODEOFF executed), if a boot was queued.
    pub boot_end: Option<u64>,
    boot_pending: bool,
    open: Option<usize>,
    interrupt: Arc<AtomicBool>,
    max_cycles: u64,
    last_sampled: Option<u64>,
    /// Commands still owed as NOOPs after a QEE configuration (SUPCFG/SEPCFG).
    cfg_noops_owed: u8,
}

impl Sim {
    /// A board after Ring reset, with the opcode table used to name commands.
    pub fn new(opts: &SimOptions, table: OpcodeTable) -> Sim {
        let mut board = Renderer::new(opts.board);
        for &(x, y) in &opts.probes {
            board.array.add_probe(x, y);
        }
        Sim {
            board,
            source: RingSource::default(),
            table,
            commands: Vec::new(),
            diagnostics: Vec::new(),
            dropped_diagnostics: 0,
            tx: Vec::new(),
            boot_end: None,
            boot_pending: false,
            open: None,
            interrupt: Arc::new(AtomicBool::new(false)),
            max_cycles: opts.max_cycles,
            last_sampled: None,
            cfg_noops_owed: 0,
        }
    }

    /// Queue the boot sequence that loads `image` through the stream (RMODEON, MCWRITE...,
    /// NOOP, RMODEOFF), as the seed prescribes.
    pub fn queue_boot(&mut self, image: &McImage) {
        for body in image.boot_messages(MAX_MESSAGE_WORDS - 1) {
            self.source.push(RingMessage { dest: 0, body });
        }
        self.boot_pending = true;
    }

    /// Queue a message for the IGC port.
    pub fn queue(&mut self, m: RingMessage) {
        self.source.push(m);
    }

    /// A flag that stops the run when set (wire it to Ctrl-C).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// Use `flag` as the interrupt flag.
    pub fn set_interrupt_flag(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = flag;
    }

    fn diag(&mut self, level: &'static str, msg: String) {
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            self.diagnostics.push(Diagnostic {
                cycle: self.board.cycle.saturating_sub(1),
                level,
                msg,
            });
        } else {
            self.dropped_diagnostics += 1;
        }
    }

    /// Name of a command by its opcode.
    pub fn command_name(&self, opcode: u32) -> String {
        let cmd = OpcodeWord(opcode).cmd();
        self.table
            .by_cmd(cmd)
            .map(|c| c.name.clone())
            .unwrap_or_else(|| format!("CMD {cmd:#04x}"))
    }

    fn close_open(&mut self, end: u64) {
        if let Some(k) = self.open.take() {
            let r = &mut self.commands[k];
            r.cycles = end + 1 - r.start;
        }
    }

    /// Process the events of the cycle just stepped (cycle number `c`).
    fn after_cycle(&mut self, c: u64) {
        let events = std::mem::take(&mut self.board.events);
        for ev in events {
            match ev {
                BoardEvent::Igc(IgcEvent::Dispatch { cmd: _, opcode, entry: _ }) => {
                    self.close_open(c);
                    let spec_args = self.board.igc.opr.to_vec();
                    let name = self.command_name(opcode);
                    let nargs = self
                        .table
                        .by_cmd(OpcodeWord(opcode).cmd())
                        .map_or(0, |s| s.args.iter().filter(|a| a.kind != crate::asm::opcodes::ArgKind::Fbits).count());
                    let operands: Vec<u32> = spec_args.into_iter().take(nargs).collect();
                    self.check_command(&name, opcode, &operands);
                    self.commands.push(CommandRecord {
                        index: self.commands.len() as u64,
                        name,
                        operands,
                        opcode,
                        start: c + 1,
                        cycles: 0,
                        boot: self.boot_pending,
                    });
                    self.open = Some(self.commands.len() - 1);
                }
                BoardEvent::Igc(IgcEvent::Control { .. }) => {}
                BoardEvent::Igc(IgcEvent::FormatError(m)) => {
                    self.diag("error", format!("IGC formatting error (status bit 29): {m}"))
                }
                BoardEvent::Igc(IgcEvent::Fault { pc, why }) => self.diag(
                    "fault",
                    format!("IGC stopped on an illegal microinstruction at PC {pc}: {why}"),
                ),
                BoardEvent::Igc(IgcEvent::Diagnostic(m)) => self.diag("warning", m),
                BoardEvent::Igc(IgcEvent::Flow(e)) => {
                    if e.is_error() {
                        self.diag("error", format!("flow-control error (status bit 4): {}", e.message()))
                    } else {
                        self.diag("warning", e.message())
                    }
                }
                BoardEvent::Parser(ParserEvent::FormatError(m)) => {
                    self.diag("error", format!("IGC formatting error (status bit 29): {m}"))
                }
                BoardEvent::Parser(ParserEvent::Flushed { dest }) => self.diag(
                    "note",
                    format!("flush-able message (destination {dest:#x}) discarded: AEO was asserted"),
                ),
                BoardEvent::RxFifoOverwritten => self.diag(
                    "error",
                    "IGC RxFIFO overwritten (status bit 27): a Ring word was lost; is a message longer than 1024 words?".into(),
                ),
                BoardEvent::IgcTimeout => self.diag(
                    "error",
                    format!("IGC timeout (status bit 30): a command waited {IGC_TIMEOUT_RING_CYCLES} 20 MHz cycles"),
                ),
            }
        }
        self.tx.append(&mut self.board.tx);
        if self.open.is_some()
            && matches!(
                self.board.igc.state,
                IgcState::WaitCmd | IgcState::RMode | IgcState::Hang | IgcState::Fault
            )
        {
            if self.board.igc.state == IgcState::Hang || self.board.igc.state == IgcState::Fault {
                // A stuck command never ends; leave it open with its cycles so far.
                if let Some(k) = self.open {
                    let r = &mut self.commands[k];
                    r.cycles = c + 1 - r.start;
                }
            } else {
                self.close_open(c);
            }
        }
        if self.boot_pending
            && self.board.igc.state != IgcState::RMode
            && self.board.igc.store.writes > 0
        {
            self.boot_pending = false;
            self.boot_end = Some(c);
        }
    }

    /// Argument and sequencing rules the hardware does not check (seed §III.4.2.5.1: "No error
    /// checking is done on arguments"), reported as warnings when a command is taken:
    /// `len` of a QEE operand above 73 − FBITS, and SUPCFG/SEPCFG not followed by two NOOPs
    /// (§III.4.2.5.4; the model finishes the configuration anyway, the hardware might shift a
    /// new command's coefficients into a half-configured QEE).
    fn check_command(&mut self, name: &str, opcode: u32, operands: &[u32]) {
        use crate::asm::opcodes::{ArgKind, OperandClass};
        // The length warnings are worked out while the opcode table is borrowed, then reported.
        let fbits = self.board.igc.fbits as u32;
        let Some(spec) = self.table.by_cmd(OpcodeWord(opcode).cmd()) else {
            return;
        };
        // Length rules (seed §III.4.2.5.1): dlen/slen 1..=128, len <= 73 - FBITS, every
        // segment inside the 208 bits. The hardware does not check them; the model's command
        // checker flags a violation as an IGC formatting error (status bit 29, an error
        // message) and the command still runs as the hardware would run it.
        let mut too_long = Vec::new();
        let plain: Vec<(usize, &crate::asm::opcodes::ArgSpec, u32)> = spec
            .args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.kind != ArgKind::Fbits)
            .zip(operands)
            .map(|((k, a), &v)| (k, a, v))
            .collect();
        let value_of = |k: usize| plain.iter().find(|(j, _, _)| *j == k).map(|t| t.2);
        for &(_, a, v) in &plain {
            match a.kind {
                ArgKind::TreeLen if spec.class == OperandClass::Tree && v > 73 - fbits => too_long
                    .push(format!(
                        "{name}: {} = {v} exceeds 73 - FBITS = {} (seed: the longest tree operand)",
                        a.name,
                        73 - fbits
                    )),
                ArgKind::Len if v == 0 || v > 128 => too_long.push(format!(
                    "{name}: {} = {v} is outside 1..=128 (seed: segment lengths)",
                    a.name
                )),
                ArgKind::Addr => {
                    let len = a.seg_len.and_then(value_of).unwrap_or(1);
                    if v + len > pp5_rtl::emc_array::MEM_BITS as u32 {
                        too_long.push(format!(
                            "{name}: the segment {} = {v} of {len} bits runs past pixel-memory bit {}",
                            a.name,
                            pp5_rtl::emc_array::MEM_BITS - 1
                        ));
                    }
                }
                _ => {}
            }
        }
        if self.cfg_noops_owed > 0 && name != "NOOP" {
            self.diag(
                "warning",
                format!(
                    "{name} follows a QEE configuration (SUPCFG/SEPCFG) with {} of the two NOOPs the seed requires missing",
                    self.cfg_noops_owed
                ),
            );
            self.cfg_noops_owed = 0;
        }
        match name {
            "SUPCFG" | "SEPCFG" => self.cfg_noops_owed = 2,
            "NOOP" => self.cfg_noops_owed = self.cfg_noops_owed.saturating_sub(1),
            _ => {}
        }
        if !too_long.is_empty() {
            self.board.flag_format_error();
        }
        for msg in too_long {
            self.diag(
                "error",
                format!(
                    "IGC formatting error (status bit 29), from the model's command checker: {msg}"
                ),
            );
        }
    }

    /// Whether the run can stop because nothing is left to do. A stream whose last message
    /// ends in the middle of a command counts as done: the parser waits for words that will
    /// never come (the hardware reports the formatting error only when a next message
    /// starts), and nothing else can happen.
    pub fn done(&self) -> bool {
        self.source.is_empty() && (self.board.quiescent() || self.starved_mid_command())
    }

    /// The parser holds part of a command and has no more words to read, with the IGC idle.
    fn starved_mid_command(&self) -> bool {
        let b = &self.board;
        b.igc_port.parser.busy()
            && !b.igc_port.parser.held()
            && b.igc_port.rxfifo.is_empty()
            && !b.llpr.go
            && matches!(b.igc.state, IgcState::WaitCmd | IgcState::RMode)
    }

    /// Step one 40 MHz cycle (Ring delivery, board, bookkeeping).
    pub fn step(&mut self) {
        if self.board.ring_slot() {
            if let Some((w, sop)) = self.source.next(self.board.rx_ready()) {
                self.board.ring_in(w, sop);
            }
        }
        let c = self.board.cycle;
        self.board.step();
        if !self.board.events.is_empty()
            || !self.board.tx.is_empty()
            || self.open.is_some()
            || self.boot_pending
        {
            self.after_cycle(c);
        }
    }

    /// Run until done, the cycle limit, a stuck IGC, or an interrupt. Samples `wave` after
    /// every cycle; `progress` is called every 2^16 cycles with (cycle, words delivered, words
    /// total).
    pub fn run(
        &mut self,
        mut wave: Option<&mut WaveWriter>,
        mut progress: impl FnMut(u64, u64, u64),
    ) -> io::Result<StopReason> {
        if let Some(w) = wave.as_deref_mut() {
            // The state at the start of the traced part of the run.
            if self.last_sampled != Some(self.board.cycle) {
                w.sample(self.board.cycle, &self.board)?;
                self.last_sampled = Some(self.board.cycle);
            }
        }
        let mut stuck_since: Option<u64> = None;
        loop {
            if self.done() {
                if self.starved_mid_command() {
                    let p = &self.board.igc_port.parser;
                    self.diag(
                        "warning",
                        format!(
                            "the stream ended in the middle of a command (parser in {}): it was not executed",
                            p.state.name()
                        ),
                    );
                }
                return Ok(StopReason::Done);
            }
            if self.board.cycle >= self.max_cycles {
                return Ok(StopReason::MaxCycles);
            }
            if self.interrupt.load(Ordering::Relaxed) {
                return Ok(StopReason::Interrupted);
            }
            self.step();
            if let Some(w) = wave.as_deref_mut() {
                w.sample(self.board.cycle, &self.board)?;
                self.last_sampled = Some(self.board.cycle);
            }
            if self.board.cycle & 0xffff == 0 {
                progress(self.board.cycle, self.source.delivered, self.source.total);
            }
            if self.board.igc.stuck() {
                // Let the IGC timeout fire if a command is waiting (it is bounded), then stop.
                // Words still to come may form a command later (e.g. behind a flushed
                // message): the parser reads them unless it holds a command, and a held
                // command means the timeout is counting.
                let since = *stuck_since.get_or_insert(self.board.cycle);
                let waiting = self.board.llpr.go
                    || !self.source.is_empty()
                    || !self.board.igc_port.rxfifo.is_empty();
                let timed_out = self.board.timeout_count >= IGC_TIMEOUT_RING_CYCLES;
                if !waiting || timed_out {
                    let why = match self.board.igc.state {
                        IgcState::Hang => format!("the IGC executed HANG at PC {} (cycle {since})", self.board.igc.pc),
                        _ => format!("the IGC stopped on an illegal microinstruction at PC {} (cycle {since})", self.board.igc.pc),
                    };
                    return Ok(StopReason::Stuck(why));
                }
            }
        }
    }

    /// Run (untraced) until the queued microcode boot has finished, i.e. the IGC left RMode
    /// after loading the store. Returns `None` when the boot finished, or why it did not.
    pub fn run_boot(&mut self) -> Option<StopReason> {
        while self.boot_pending {
            if self.board.cycle >= self.max_cycles {
                return Some(StopReason::MaxCycles);
            }
            if self.interrupt.load(Ordering::Relaxed) {
                return Some(StopReason::Interrupted);
            }
            if self.done() {
                return Some(StopReason::Done);
            }
            self.step();
            if self.board.igc.stuck() {
                return Some(StopReason::Stuck(
                    "the IGC stopped during the microcode boot".into(),
                ));
            }
        }
        None
    }

    /// Commands of the user's stream (after the boot).
    pub fn user_commands(&self) -> impl Iterator<Item = &CommandRecord> {
        self.commands.iter().filter(|c| !c.boot)
    }
}
