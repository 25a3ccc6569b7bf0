//! The simulation engine: drives the Ring into the Renderer's IGC port, clocks the board,
//! samples the tracer, and keeps the per-command timing log and the diagnostics.
//!
//! The engine is generic about what it drives (a [`Renderer`]) only in the sense that all
//! block-specific behaviour lives in `pp5-rtl`; here are the run loop, the stop conditions and
//! the bookkeeping a user of a hardware simulator expects.

use crate::asm::microcode::McImage;
use crate::asm::opcodes::OpcodeTable;
pub use crate::records::{
    BlockCauses, BsCommandRecord, CauseCounts, CommandRecord, Keep, NameTally, Overlap, Tally,
    TransferRecord,
};
use crate::stream::{Port, RingEventKind, Stream};
use crate::trace::WaveWriter;
use pp5_rtl::bs_port::{BsEvent, BsState};
use pp5_rtl::cause::Cause;
use pp5_rtl::igc::microinstruction::Seq;
use pp5_rtl::igc::opcode::OpcodeWord;
use pp5_rtl::igc::{IgcEvent, IgcState};
use pp5_rtl::igc_port::parser::ParserEvent;
use pp5_rtl::igc_port::MAX_MESSAGE_WORDS;
use pp5_rtl::renderer::{BoardEvent, OutMessage};
use pp5_rtl::status::IGC_TIMEOUT_RING_CYCLES;
use pp5_rtl::{Renderer, RendererConfig};
use serde::Serialize;
use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One Ring message for a port: destination word, then the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingMessage {
    pub dest: u32,
    pub body: Vec<u32>,
}

/// A message waiting in a [`RingSource`].
#[derive(Clone, Debug)]
struct Queued {
    msg: RingMessage,
    /// Not offered before this cycle.
    at: Option<u64>,
    /// Position in the input's file order (Ring resets order against it).
    seq: u64,
}

/// The Ring side of one port: delivers queued messages one word per 20 MHz slot, starting
/// a message only while the port asserts RxReady (seed §III.4.1-3), not before its arrival
/// time, and not past a pending Ring reset.
#[derive(Clone, Debug, Default)]
pub struct RingSource {
    queue: VecDeque<Queued>,
    cur: Option<(RingMessage, usize, u64)>,
    /// Words delivered so far.
    pub delivered: u64,
    /// Words queued in total.
    pub total: u64,
}

impl RingSource {
    /// Queue a message offered as soon as possible.
    pub fn push(&mut self, m: RingMessage) {
        let seq = self.queue.back().map_or(0, |q| q.seq + 1);
        self.push_at(m, None, seq);
    }

    fn push_at(&mut self, m: RingMessage, at: Option<u64>, seq: u64) {
        self.total += 1 + m.body.len() as u64;
        self.queue.push_back(Queued { msg: m, at, seq });
    }

    /// Nothing left to deliver.
    pub fn is_empty(&self) -> bool {
        self.cur.is_none() && self.queue.is_empty()
    }

    /// Words not yet delivered.
    pub fn pending_words(&self) -> u64 {
        self.total - self.delivered
    }

    /// File-order position of the oldest undelivered message.
    fn oldest_seq(&self) -> Option<u64> {
        match &self.cur {
            Some((_, _, seq)) => Some(*seq),
            None => self.queue.front().map(|q| q.seq),
        }
    }

    /// Whether a word can go out in the next Ring slot: the rest of a message under way
    /// (delivered whatever RxReady says, as the Ring does), or a message that may start
    /// (RxReady, its arrival time reached, before any pending Ring reset).
    fn can_deliver(&self, rx_ready: bool, now: u64, barrier: u64) -> bool {
        match (&self.cur, self.queue.front()) {
            (Some(_), _) => true,
            (None, Some(q)) => rx_ready && q.seq < barrier && q.at.is_none_or(|a| a <= now),
            (None, None) => false,
        }
    }

    /// The next message waits for its arrival time, later than `now`.
    fn waits_for_time(&self, now: u64) -> Option<u64> {
        match (&self.cur, self.queue.front()) {
            (None, Some(q)) => q.at.filter(|&a| a > now),
            _ => None,
        }
    }

    /// The word to deliver this slot, if any: `(word, start_of_message)`. Messages at or
    /// past `barrier` (a pending Ring reset) are held.
    fn next(&mut self, rx_ready: bool, now: u64, barrier: u64) -> Option<(u32, bool)> {
        if self.cur.is_none() {
            let q = self.queue.front()?;
            if !rx_ready || q.seq >= barrier || q.at.is_some_and(|a| a > now) {
                return None;
            }
            let q = self.queue.pop_front()?;
            let dest = q.msg.dest;
            if !q.msg.body.is_empty() {
                self.cur = Some((q.msg, 0, q.seq));
            }
            self.delivered += 1;
            return Some((dest, true));
        }
        let (m, i, _) = self.cur.as_mut()?;
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
    /// No block can make progress, and some wait: who waits on what, since when.
    Deadlock { since: u64, waits: Vec<Wait> },
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
    /// How many command records to keep ([`Keep::All`] by default).
    pub keep: Keep,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            board: RendererConfig::default(),
            max_cycles: 100_000_000,
            probes: vec![(0, 0), (1, 0)],
            keep: Keep::All,
        }
    }
}

/// Cap on the stored diagnostics (the count of dropped ones is kept).
pub const MAX_DIAGNOSTICS: usize = 1000;

/// A Ring reset still to happen.
#[derive(Clone, Copy, Debug)]
struct PendingReset {
    /// File-order position: after every earlier message was delivered.
    seq: u64,
    at: Option<u64>,
}

/// A simulation: the board, its Ring input, and the logs.
#[derive(Clone)]
pub struct Sim {
    pub board: Renderer,
    /// The Ring input of the IGC port.
    pub source: RingSource,
    /// The Ring input of the BS port.
    pub bs_source: RingSource,
    resets: VecDeque<PendingReset>,
    /// TxReady changes still to happen: (cycle, port, ready), in time order.
    tx_schedule: VecDeque<(u64, Port, bool)>,
    next_seq: u64,
    /// Ring resets carried out: the cycles.
    pub resets_done: Vec<u64>,
    /// Every cycle of each block by cause.
    pub causes: BlockCauses,
    /// BS port commands.
    pub bs_commands: Vec<BsCommandRecord>,
    /// Backing-store transfers.
    pub transfers: Vec<TransferRecord>,
    open_bs: Option<usize>,
    /// Cycle since which the IGC / the BS port are in their current state, and since which
    /// each port's TxReady has its value.
    igc_since: (IgcState, u64),
    bs_since: (u64, u64),
    txready_since: [u64; 2],
    /// Since when each port's Ring input has had words it could not deliver (IGC, BS).
    ring_held_since: [Option<u64>; 2],
    /// Consecutive cycles with an unchanged [`Renderer::progress_key`].
    stable: u64,
    last_key: Option<[u64; 12]>,
    pub table: OpcodeTable,
    /// The commands taken, from the first not yet handed over by [`Sim::take_ended_commands`]
    /// (with [`Keep::First`], the first ones and the one executing).
    pub commands: Vec<CommandRecord>,
    /// The user's commands that ended, by name (all of them, whatever is kept).
    pub tally: Tally,
    /// Records of the user's commands not kept ([`Keep::First`]): IGC, BS port.
    pub not_kept: [u64; 2],
    keep: Keep,
    /// Records kept of the user's commands: IGC, BS port.
    kept: [usize; 2],
    /// Index of the next command record: IGC, BS port.
    next_index: [u64; 2],
    pub diagnostics: Vec<Diagnostic>,
    pub dropped_diagnostics: u64,
    pub tx: Vec<OutMessage>,
    /// Cycle at which the boot sequence ended (RMODEOFF executed), if a boot was queued.
    pub boot_end: Option<u64>,
    /// Cycles the microcode boot took, from its first Ring word to the board idle again: the
    /// cycle the user's stream starts on (set by [`crate::session::boot`]).
    pub boot_cycles: Option<u64>,
    boot_pending: bool,
    open: Option<usize>,
    interrupt: Arc<AtomicBool>,
    max_cycles: u64,
    last_sampled: Option<u64>,
    /// Commands still owed as NOOPs after a QEE configuration (SUPCFG/SEPCFG).
    cfg_noops_owed: u8,
    /// Commands still to come that must not use the QEE after a PIGC.
    after_pigc: u8,
    /// The command (index into `commands`) whose transfer conflict was reported.
    conflict_reported: Option<usize>,
    /// The booted image's labels by address, to name microinstructions in reports.
    labels: Vec<(String, u32)>,
}

impl Sim {
    /// A board after Ring reset, with the opcode table used to name commands.
    pub fn new(opts: &SimOptions, table: OpcodeTable) -> Sim {
        let mut board = Renderer::new(opts.board);
        for &(x, y) in &opts.probes {
            board.array.add_probe(x, y);
        }
        // The waveform's `renderer.igc.command`: the table's names by dispatch index.
        board.igc.command_names = (0..=u8::MAX)
            .map(|cmd| table.by_cmd(cmd).map_or("", |c| c.name.as_str()).into())
            .collect();
        Sim {
            board,
            source: RingSource::default(),
            bs_source: RingSource::default(),
            resets: VecDeque::new(),
            tx_schedule: VecDeque::new(),
            next_seq: 0,
            resets_done: Vec::new(),
            causes: BlockCauses::default(),
            bs_commands: Vec::new(),
            transfers: Vec::new(),
            open_bs: None,
            igc_since: (IgcState::RMode, 0),
            bs_since: (0, 0),
            txready_since: [0; 2],
            ring_held_since: [None; 2],
            stable: 0,
            last_key: None,
            table,
            commands: Vec::new(),
            tally: Tally::default(),
            not_kept: [0; 2],
            keep: opts.keep,
            kept: [0; 2],
            next_index: [0; 2],
            diagnostics: Vec::new(),
            dropped_diagnostics: 0,
            tx: Vec::new(),
            boot_end: None,
            boot_cycles: None,
            boot_pending: false,
            open: None,
            interrupt: Arc::new(AtomicBool::new(false)),
            max_cycles: opts.max_cycles,
            last_sampled: None,
            cfg_noops_owed: 0,
            after_pigc: 0,
            conflict_reported: None,
            labels: Vec::new(),
        }
    }

    /// Queue the boot sequence that loads `image` through the stream (RMODEON, MCWRITE...,
    /// NOOP, RMODEOFF), as the seed prescribes.
    pub fn queue_boot(&mut self, image: &McImage) {
        for body in image.boot_messages(MAX_MESSAGE_WORDS - 1) {
            self.queue(RingMessage { dest: 0, body });
        }
        self.boot_pending = true;
        self.labels = image.labels.clone();
        self.labels.sort_by_key(|l| l.1);
    }

    /// The microinstruction at store address `pc` by the labels of the booted image
    /// (`label` or `label+offset`), or just the address.
    pub fn microinstruction_name(&self, pc: u32) -> String {
        match self.labels.iter().rev().find(|l| l.1 <= pc) {
            Some((name, at)) if *at == pc => format!("{name} (PC {pc})"),
            Some((name, at)) => format!("{name}+{} (PC {pc})", pc - at),
            None => format!("PC {pc}"),
        }
    }

    /// Queue a message for the IGC port.
    pub fn queue(&mut self, m: RingMessage) {
        self.queue_at(Port::Igc, m, None);
    }

    /// Queue a message for `port`, offered not before cycle `at`.
    pub fn queue_at(&mut self, port: Port, m: RingMessage, at: Option<u64>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        match port {
            Port::Igc => self.source.push_at(m, at, seq),
            Port::Bs => self.bs_source.push_at(m, at, seq),
        }
    }

    /// Queue a Ring reset after everything queued so far: at cycle `at`, or (`None`) when
    /// the board can make no more progress.
    pub fn queue_reset(&mut self, at: Option<u64>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.resets.push_back(PendingReset { seq, at });
    }

    /// Schedule a TxReady change of `port` at cycle `at`.
    pub fn schedule_tx_ready(&mut self, at: u64, port: Port, ready: bool) {
        let k = self.tx_schedule.partition_point(|e| e.0 <= at);
        self.tx_schedule.insert(k, (at, port, ready));
    }

    /// Queue a whole stream: its messages for both ports, its resets and TxReady changes.
    pub fn queue_stream(&mut self, stream: &Stream) {
        let mut events = stream.events.iter().peekable();
        for (k, m) in stream.messages.iter().enumerate() {
            while let Some(e) = events.next_if(|e| e.before <= k) {
                self.queue_event(e.kind, e.at);
            }
            let rm = RingMessage {
                dest: m.dest,
                body: m.body.clone(),
            };
            self.queue_at(m.port, rm, m.at);
        }
        for e in events {
            self.queue_event(e.kind, e.at);
        }
    }

    fn queue_event(&mut self, kind: RingEventKind, at: Option<u64>) {
        match kind {
            RingEventKind::Reset => self.queue_reset(at),
            RingEventKind::TxReady { port, ready } => {
                self.schedule_tx_ready(at.unwrap_or(0), port, ready)
            }
        }
    }

    /// Words still to deliver on both ports, and words in total.
    pub fn input_progress(&self) -> (u64, u64) {
        (
            self.source.delivered + self.bs_source.delivered,
            self.source.total + self.bs_source.total,
        )
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

    fn close_bs(&mut self, end: u64) {
        if let Some(k) = self.open_bs.take() {
            let r = &mut self.bs_commands[k];
            r.cycles = end + 1 - r.start;
            if !self.keeps(1, false) && k + 1 == self.bs_commands.len() {
                self.bs_commands.pop();
            }
        }
    }

    fn close_open(&mut self, end: u64) {
        if let Some(k) = self.open.take() {
            let r = &mut self.commands[k];
            r.cycles = end + 1 - r.start;
            let boot = r.boot;
            if !boot {
                self.tally.add(r);
            }
            if !self.keeps(0, boot) && k + 1 == self.commands.len() {
                self.commands.pop();
                if self.conflict_reported == Some(k) {
                    self.conflict_reported = None;
                }
            }
        }
    }

    /// Whether the record of a command of `port` (0 IGC, 1 BS) that just ended is kept, and
    /// count it as kept or not.
    fn keeps(&mut self, port: usize, boot: bool) -> bool {
        match self.keep {
            Keep::All => true,
            Keep::First(_) if boot => false,
            Keep::First(n) if self.kept[port] < n => {
                self.kept[port] += 1;
                true
            }
            Keep::First(_) => {
                self.not_kept[port] += 1;
                false
            }
        }
    }

    /// A command is open and the IGC is back between commands (or stuck): `after_cycle`
    /// closes it (or, stuck, updates its cycles).
    fn command_may_end(&self) -> bool {
        self.open.is_some()
            && matches!(
                self.board.igc.state,
                IgcState::WaitCmd | IgcState::RMode | IgcState::Hang | IgcState::Fault
            )
    }

    /// Process the events of the cycle just stepped (cycle number `c`).
    fn after_cycle(&mut self, c: u64) {
        // Drained and handed back, so the board's event buffer keeps its capacity (no
        // allocation per cycle).
        let mut events = std::mem::take(&mut self.board.events);
        for ev in events.drain(..) {
            match ev {
                BoardEvent::Igc(IgcEvent::Dispatch { cmd: _, opcode, entry: _ }) => {
                    self.close_open(c);
                    let spec_args = self.board.igc.opr.to_vec();
                    let name = self.command_name(opcode);
                    let nargs = self
                        .table
                        .by_cmd(OpcodeWord(opcode).cmd())
                        .map_or(0, |s| s.args.iter().filter(|a| a.kind.is_operand()).count());
                    let operands: Vec<u32> = spec_args.into_iter().take(nargs).collect();
                    self.check_command(&name, opcode, &operands);
                    self.commands.push(CommandRecord {
                        index: self.next_index[0],
                        name,
                        operands,
                        opcode,
                        start: c + 1,
                        cycles: 0,
                        boot: self.boot_pending,
                        causes: CauseCounts::default(),
                    });
                    self.next_index[0] += 1;
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
                BoardEvent::Igc(IgcEvent::XferConflict { pc, bit, port }) => {
                    if self.open.is_none_or(|k| self.conflict_reported != Some(k)) {
                        self.conflict_reported = self.open;
                        let name = self
                            .open
                            .map(|k| self.commands[k].name.clone())
                            .unwrap_or_else(|| "a command".into());
                        let xfer = match self.board.transfer.active {
                            Some((d, s)) => format!("a BS{} of sector {s}", if d == pp5_rtl::backing_store::transfer::XferDir::Store { "STORE" } else { "LOAD" }),
                            None => "a transfer".into(),
                        };
                        self.diag(
                            "warning",
                            format!(
                                "{name} accessed pixel-memory bit {bit} (port {port}, PC {pc}) during {xfer}: bits 0-31 belong to the transfer, so the command was not executed correctly (the access read 0 / wrote nothing; seed §III.4.2.5.2: use BSWAIT first)"
                            ),
                        );
                    }
                }
                BoardEvent::Igc(IgcEvent::StatusLost) => self.diag(
                    "note",
                    "SENDSTATUS was interrupted by an error while it waited for the transmitter: its status message is lost (seed §III.4.1-5)".into(),
                ),
                BoardEvent::Bs(BsEvent::Command { name, word }) => {
                    self.close_bs(c.saturating_sub(1));
                    self.bs_commands.push(BsCommandRecord {
                        index: self.next_index[1],
                        name: name.to_string(),
                        word,
                        start: c,
                        cycles: 0,
                        causes: CauseCounts::default(),
                    });
                    self.next_index[1] += 1;
                    self.open_bs = Some(self.bs_commands.len() - 1);
                }
                BoardEvent::Bs(BsEvent::FormatError(m)) => {
                    self.diag("error", format!("BS port formatting error (status bit 28): {m}"))
                }
                BoardEvent::BsRxFifoOverwritten => self.diag(
                    "error",
                    "BS RxFIFO overwritten (status bit 26): a Ring word was lost; an over-long BS message must hold only BS_RECEIVE (and BS_VIGC) commands, seed §III.4.1-3".into(),
                ),
                BoardEvent::SemOverflow { bs } => self.diag(
                    "error",
                    format!(
                        "{} semaphore overflowed (status bit {}): the counter wrapped to 0",
                        if bs { "BS" } else { "IGC" },
                        if bs { 24 } else { 25 }
                    ),
                ),
                BoardEvent::VbsWhilePending { later } => self.diag(
                    "warning",
                    format!(
                        "{} issued while a VBSlater is pending (seed §III.4.2.5.5: no VBS or VBSlater until the transfer completes); {}",
                        if later { "VBSlater" } else { "VBS" },
                        if later { "the two merge: one V is lost" } else { "it increments the BS semaphore now, before the pending one" }
                    ),
                ),
                BoardEvent::XferStart { dir, sector } => self.transfers.push(TransferRecord {
                    dir: dir.name(),
                    sector,
                    start: c,
                    end: None,
                }),
                BoardEvent::XferDone { .. } => {
                    if let Some(t) = self.transfers.last_mut() {
                        t.end = Some(c);
                    }
                }
                BoardEvent::StatusLatched => {}
            }
        }
        self.board.events = events;
        self.tx.append(&mut self.board.tx);
        if self.command_may_end() {
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
        let uses_qee = spec.class == OperandClass::Tree;
        let plain: Vec<(usize, &crate::asm::opcodes::ArgSpec, u32)> = spec
            .args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.kind.is_operand())
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
        if self.after_pigc > 0 {
            if uses_qee {
                self.diag(
                    "warning",
                    format!(
                        "{name} uses the QEE as one of the two commands right after a PIGC (seed §III.4.2.5.5: they must not, the PIGC's time is unbounded and the QEEs are dynamic); the model computes it anyway"
                    ),
                );
            }
            self.after_pigc -= 1;
        }
        if name == "PIGC" {
            self.after_pigc = 2;
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

    /// Whether the run can stop because nothing is left to do: no input left on either port
    /// (nor a Ring reset or TxReady change to come) and the board idle.
    pub fn done(&self) -> bool {
        self.source.is_empty()
            && self.bs_source.is_empty()
            && self.resets.is_empty()
            && self.tx_schedule.is_empty()
            && self.board.quiescent()
    }

    /// The first pending Ring reset, if every message before it was delivered.
    fn reset_due(&self) -> Option<PendingReset> {
        let r = *self.resets.front()?;
        let before = |s: &RingSource| s.oldest_seq().is_none_or(|q| q > r.seq);
        (before(&self.source) && before(&self.bs_source)).then_some(r)
    }

    fn fire_reset(&mut self) {
        self.resets.pop_front();
        let c = self.board.cycle;
        self.close_open(c.saturating_sub(1));
        self.close_bs(c.saturating_sub(1));
        self.board.ring_reset();
        self.resets_done.push(c);
        self.stable = 0;
        self.last_key = None;
        self.diag("note", format!("Ring reset at cycle {c}"));
    }

    /// Step one 40 MHz cycle (Ring environment, Ring delivery, board, bookkeeping).
    pub fn step(&mut self) {
        let now = self.board.cycle;
        while self.tx_schedule.front().is_some_and(|e| e.0 <= now) {
            if let Some((_, port, ready)) = self.tx_schedule.pop_front() {
                let (r, k) = match port {
                    Port::Igc => (&mut self.board.tx_ready_igc, 0),
                    Port::Bs => (&mut self.board.tx_ready_bs, 1),
                };
                if *r != ready {
                    self.txready_since[k] = now;
                    // An input changed: the board may move again (a held message goes out
                    // at the next Ring slot).
                    self.stable = 0;
                    self.last_key = None;
                }
                *r = ready;
            }
        }
        if let Some(r) = self.reset_due() {
            if r.at.is_some_and(|a| a <= now) {
                self.fire_reset();
            }
        }
        if self.board.ring_slot() {
            let barrier = self.resets.front().map_or(u64::MAX, |r| r.seq);
            let igc = self.source.next(self.board.rx_ready(), now, barrier);
            if let Some((w, sop)) = igc {
                self.board.ring_in(w, sop);
            }
            let bs = self.bs_source.next(self.board.bs_rx_ready(), now, barrier);
            if let Some((w, sop)) = bs {
                self.board.bs_ring_in(w, sop);
            }
            // A source with words to send that sent none in its slot is held (by RxReady or
            // a pending reset); note since when, for deadlock reports.
            for (k, (sent, src)) in [
                (igc.is_some(), &self.source),
                (bs.is_some(), &self.bs_source),
            ]
            .into_iter()
            .enumerate()
            {
                let held = !sent && src.pending_words() > 0 && src.waits_for_time(now).is_none();
                match (held, self.ring_held_since[k]) {
                    (true, None) => self.ring_held_since[k] = Some(now),
                    (false, Some(_)) => self.ring_held_since[k] = None,
                    _ => {}
                }
            }
        }
        let c = self.board.cycle;
        self.board.step();
        self.account(c);
        // Without events or Ring output, `after_cycle` only closes an open command when the IGC
        // is back between commands (or stuck): skip it in the cycles a command executes.
        if !self.board.events.is_empty()
            || !self.board.tx.is_empty()
            || self.command_may_end()
            || self.boot_pending
        {
            self.after_cycle(c);
        }
        if let Some(k) = self.open_bs {
            self.bs_commands[k].causes.add(self.board.bs_port.cause);
            if matches!(self.board.bs_port.state, BsState::Opcode | BsState::Skip) {
                self.close_bs(c);
            }
        }
    }

    /// Attribute cycle `c` of every block to a cause, and note state changes for deadlock
    /// reports.
    #[inline]
    fn account(&mut self, c: u64) {
        let b = &self.board;
        let mut igc = b.igc_cause;
        if igc == Cause::Idle && !self.source.is_empty() {
            igc = Cause::FifoEmpty;
        }
        self.causes.igc.add(igc);
        if let Some(k) = self.open {
            self.commands[k].causes.add(igc);
        }
        let mut bs = b.bs_port.cause;
        if bs == Cause::Idle && !self.bs_source.is_empty() {
            bs = Cause::FifoEmpty;
        }
        self.causes.bs_port.add(bs);
        let xfer = b.transfer.busy() || b.transfer.done;
        self.causes
            .transfer
            .add(if xfer { Cause::Executing } else { Cause::Idle });
        let (i, p) = (igc == Cause::Executing, bs == Cause::Executing);
        let o = &mut self.causes.overlap;
        o.igc_and_transfer += (i && xfer) as u64;
        o.igc_and_bs_port += (i && p) as u64;
        o.transfer_and_bs_port += (xfer && p) as u64;
        let tx = &b.igc_port.messages;
        self.causes.igc_tx.add(if tx.pending() {
            if b.tx_ready_igc {
                Cause::Executing
            } else {
                Cause::TxHold
            }
        } else {
            Cause::Idle
        });
        if self.igc_since.0 != b.igc.state {
            self.igc_since = (b.igc.state, c);
        }
        let code = b.bs_port.state.code();
        if self.bs_since.0 != code {
            self.bs_since = (code, c);
        }
    }

    /// After a cycle: whether the board can still change without new input. Returns the
    /// stop reason when it cannot (a deadlock, a stuck IGC), after firing a pending Ring
    /// reset that waits for this moment.
    fn check_stall(&mut self) -> Option<StopReason> {
        let b = &self.board;
        // Fast path: the IGC moved to another microinstruction, or loops on one with the
        // loop counter running (a LOOP/LOOPD with L > 1; L left over from an earlier loop
        // does not run under a JUMP to itself).
        let counting = b.igc.l > 1
            && matches!(b.igc.store.uinst(b.igc.pc),
                Ok(m) if matches!(m.seq, Seq::Loop | Seq::LoopD));
        if b.igc.state == IgcState::Run && (b.igc.pc != b.igc.last_pc || counting) {
            self.stable = 0;
            return None;
        }
        let key = b.progress_key();
        if self.last_key == Some(key) {
            self.stable += 1;
        } else {
            self.stable = 0;
            self.last_key = Some(key);
        }
        // Two cycles cover both phases of the 20 MHz enable.
        if self.stable < 2 {
            return None;
        }
        let now = b.cycle;
        let timeout_counting = b.llpr.go && b.timeout_count < IGC_TIMEOUT_RING_CYCLES;
        let barrier = self.resets.front().map_or(u64::MAX, |r| r.seq);
        if timeout_counting
            || self.source.waits_for_time(now).is_some()
            || self.bs_source.waits_for_time(now).is_some()
            || !self.tx_schedule.is_empty()
            || self.reset_due().is_some_and(|r| r.at.is_some())
            || self.source.can_deliver(b.rx_ready(), now, barrier)
            || self.bs_source.can_deliver(b.bs_rx_ready(), now, barrier)
        {
            return None;
        }
        if self.reset_due().is_some() {
            self.fire_reset();
            return None;
        }
        if self.done() {
            return None;
        }
        let since = now.saturating_sub(self.stable + 1);
        if b.igc.stuck() {
            let why = match b.igc.state {
                IgcState::Hang => format!(
                    "the IGC executed HANG at PC {} (cycle {})",
                    b.igc.pc, self.igc_since.1
                ),
                _ => format!(
                    "the IGC stopped on an illegal microinstruction at PC {} (cycle {})",
                    b.igc.pc, self.igc_since.1
                ),
            };
            return Some(StopReason::Stuck(why));
        }
        if b.igc.state == IgcState::Run && b.igc.pc == b.igc.last_pc {
            // The IGC executes one microinstruction over and over and nothing changes: a
            // microcode loop (a jump to itself), not a wait on another block.
            let cmd = self
                .open
                .and_then(|i| self.commands.get(i))
                .map_or(String::new(), |c| format!(" in command {}", c.name));
            return Some(StopReason::Stuck(format!(
                "the IGC loops on microinstruction {}{cmd} since cycle {since}, and nothing \
                 else can change",
                self.microinstruction_name(u32::from(b.igc.pc))
            )));
        }
        Some(StopReason::Deadlock {
            since,
            waits: self.waits(),
        })
    }

    /// Who waits on what, for a deadlock report.
    pub fn waits(&self) -> Vec<Wait> {
        let b = &self.board;
        let mut w = Vec::new();
        let mut add = |block: &str, what: String, since: u64| {
            w.push(Wait {
                block: block.into(),
                waits_for: what,
                since,
            })
        };
        let cmd = self
            .open
            .map(|k| self.commands[k].name.clone())
            .unwrap_or_else(|| "its command".into());
        match b.igc.state {
            IgcState::WaitSem => add(
                "igc",
                format!("the IGC semaphore to be non-zero ({}; no BS_VIGC is coming)", in_cmd(&cmd, "PIGC")),
                self.igc_since.1,
            ),
            IgcState::WaitTx => add(
                "igc",
                format!(
                    "the IGC port's transmitter ({} behind a pending message; TxReady on the IGC port is {})",
                    in_cmd(&cmd, "SENDSTATUS"),
                    if b.tx_ready_igc { "high" } else { "low" }
                ),
                self.igc_since.1,
            ),
            IgcState::WaitXfer => add(
                "igc",
                format!("the backing-store transfer ({cmd})"),
                self.igc_since.1,
            ),
            IgcState::WaitCmd | IgcState::RMode if b.igc_port.parser.busy() => add(
                "igc_port.parser",
                format!(
                    "the rest of a command (parser in {}); the IGC stream has ended",
                    b.igc_port.parser.state.name()
                ),
                self.igc_since.1,
            ),
            _ => {}
        }
        if b.igc_port.messages.pending() && !b.tx_ready_igc {
            add(
                "igc_port.tx",
                "TxReady on the IGC port (a status or error message waits to go out)".into(),
                self.txready_since[0],
            );
        }
        let bs_since = self.bs_since.1;
        match b.bs_port.state {
            BsState::Pbs => add(
                "bs_port",
                "the BS semaphore to be non-zero (BS_PBS; no VBS or VBSlater is coming)".into(),
                bs_since,
            ),
            BsState::StatusSend { .. } | BsState::Transmit { .. } if !b.tx_ready_bs => add(
                "bs_port",
                format!(
                    "TxReady on the BS port ({} holds the BS stream)",
                    b.bs_port.state.command().unwrap_or("a message")
                ),
                self.txready_since[1].max(bs_since),
            ),
            BsState::Opcode | BsState::Skip => {}
            s => add(
                "bs_port",
                format!(
                    "the rest of {} ({}); the BS stream has ended",
                    s.command().unwrap_or("a command"),
                    s.name()
                ),
                bs_since,
            ),
        }
        for (name, src, rx, since) in [
            (
                "ring.igc",
                &self.source,
                b.rx_ready(),
                self.ring_held_since[0],
            ),
            (
                "ring.bs",
                &self.bs_source,
                b.bs_rx_ready(),
                self.ring_held_since[1],
            ),
        ] {
            if src.pending_words() > 0 {
                add(
                    name,
                    format!(
                        "{} (RxReady is {}; {} word(s) not delivered)",
                        if self.resets.is_empty() {
                            "RxReady"
                        } else {
                            "a Ring reset"
                        },
                        if rx { "high" } else { "low" },
                        src.pending_words()
                    ),
                    since.unwrap_or(b.cycle),
                );
            }
        }
        w
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
                w.sample(self.board.cycle, &self.board)?;
                self.last_sampled = Some(self.board.cycle);
            }
        }
        loop {
            if self.board.cycle >= self.max_cycles && !self.done() {
                return Ok(StopReason::MaxCycles);
            }
            if self.interrupt.load(Ordering::Relaxed) {
                return Ok(StopReason::Interrupted);
            }
            let stop = self.tick();
            if stop.is_none() {
                if let Some(w) = wave.as_deref_mut() {
                    w.sample(self.board.cycle, &self.board)?;
                    self.last_sampled = Some(self.board.cycle);
                }
                if self.board.cycle & 0xffff == 0 {
                    let (d, t) = self.input_progress();
                    progress(self.board.cycle, d, t);
                }
            }
            if let Some(stop) = stop {
                return Ok(stop);
            }
        }
    }

    /// One step of [`Sim::run`] without a waveform: `Some(reason)` when the run is over
    /// (done, a deadlock, a stuck IGC) instead of stepping or after the step that showed it.
    pub fn tick(&mut self) -> Option<StopReason> {
        if self.done() {
            self.close_bs(self.board.cycle.saturating_sub(1));
            return Some(StopReason::Done);
        }
        self.step();
        let stop = self.check_stall()?;
        if let StopReason::Deadlock { waits, .. } = &stop {
            for w in waits.clone() {
                self.diag("error", format!("deadlock: {w}"));
            }
        }
        Some(stop)
    }

    /// The record of the command executing (or stuck), if any.
    pub fn open_command(&self) -> Option<&CommandRecord> {
        self.open.and_then(|k| self.commands.get(k))
    }

    /// Commands of the user's stream (after the boot).
    pub fn user_commands(&self) -> impl Iterator<Item = &CommandRecord> {
        self.commands.iter().filter(|c| !c.boot)
    }

    /// Hand over the records of the commands that have ended (all but the one executing),
    /// in order, and forget them: a long run that reads its timing as it goes (`pp5 render`)
    /// keeps memory bounded. [`Sim::commands`] keeps the open command; the records' `index`
    /// keeps counting from the first command.
    pub fn take_ended_commands(&mut self) -> Vec<CommandRecord> {
        let ended = self.open.unwrap_or(self.commands.len());
        let taken: Vec<CommandRecord> = self.commands.drain(..ended).collect();
        self.open = self.open.map(|k| k - ended);
        self.conflict_reported = self.conflict_reported.and_then(|k| k.checked_sub(ended));
        taken
    }
}

/// `PIGC`, or `CMD executes a PIGC microinstruction` when a user's microcode names its command
/// differently.
fn in_cmd(cmd: &str, handshake: &str) -> String {
    if cmd == handshake {
        cmd.to_string()
    } else {
        format!("{cmd} executes a {handshake} microinstruction")
    }
}
