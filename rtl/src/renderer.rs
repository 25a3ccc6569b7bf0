//! The Renderer board: the IGC port, the IGC, the EMC array, the status word, the LEDs and the
//! error-message transmitter, stepped together on the 40 MHz clock.

use crate::clock::ring_enable;
use crate::emc_array::plane::ZERO_PLANE;
use crate::emc_array::{emc_of, BSource, EmcArray};
use crate::igc::llpr::Llpr;
use crate::igc::{Igc, IgcEvent, IgcState, QeeCtl};
use crate::igc_port::parser::ParserEvent;
use crate::igc_port::rxfifo::RXFIFO_WORDS;
use crate::igc_port::IgcPort;
use crate::qee::arith::QeeMode;
use crate::qee::Qee;
use crate::status::*;
use crate::trace::{bit, Traced, Tracer};

/// Board parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RendererConfig {
    /// RxFIFO depth of the IGC port in words (seed §III.4.1-3: 2K, perhaps 4K later).
    pub rxfifo_words: usize,
    /// Board ID in the PAL (low byte of the IGC's message IDs).
    pub board_id: u8,
}

impl Default for RendererConfig {
    fn default() -> Self {
        RendererConfig {
            rxfifo_words: RXFIFO_WORDS,
            board_id: DEFAULT_BOARD_ID,
        }
    }
}

/// Something that happened on the board in a cycle, for the simulator's reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardEvent {
    Igc(IgcEvent),
    Parser(ParserEvent),
    /// A Ring word was lost: the IGC RxFIFO was full (status bit 27).
    RxFifoOverwritten,
    /// No command was taken for 64K 20 MHz cycles while one was waiting (status bit 30).
    IgcTimeout,
}

/// A message the board sends onto the Ring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutMessage {
    /// 40 MHz cycle at which it was generated.
    pub cycle: u64,
    /// Destination, ID word, status word (seed §III.4.1-5).
    pub words: [u32; 3],
    /// An error message (to Ring address 0) rather than a status message.
    pub error: bool,
}

/// The whole board.
#[derive(Clone)]
pub struct Renderer {
    pub config: RendererConfig,
    /// 40 MHz cycles since reset.
    pub cycle: u64,
    pub igc_port: IgcPort,
    /// The IGC's command registers, written by the Stream Parser.
    pub llpr: Llpr,
    pub igc: Igc,
    pub array: EmcArray,
    /// The quadratic expression evaluators of the 64 EMCs.
    pub qee: Qee,
    /// Sticky error bits 24..30 of the status word.
    pub errors: u32,
    /// BS and IGC semaphore counters (status bits 8-23; zero at Ring reset).
    pub bs_sem: u8,
    pub igc_sem: u8,
    /// 20 MHz cycles a waiting command has not been taken.
    pub timeout_count: u64,
    ring_in: Option<(u32, bool)>,
    /// Events of the cycles since the simulator last drained them.
    pub events: Vec<BoardEvent>,
    /// Messages sent onto the Ring since the simulator last drained them.
    pub tx: Vec<OutMessage>,
    igc_ev: Vec<IgcEvent>,
    parser_ev: Vec<ParserEvent>,
    error_strobe: u32,
}

impl Renderer {
    /// A board after Ring reset.
    pub fn new(config: RendererConfig) -> Self {
        Renderer {
            config,
            cycle: 0,
            igc_port: IgcPort::new(config.rxfifo_words),
            llpr: Llpr::default(),
            igc: Igc::new(),
            array: EmcArray::new(),
            qee: Qee::new(),
            errors: 0,
            bs_sem: 0,
            igc_sem: 0,
            timeout_count: 0,
            ring_in: None,
            events: Vec::new(),
            tx: Vec::new(),
            igc_ev: Vec::new(),
            parser_ev: Vec::new(),
            error_strobe: 0,
        }
    }

    /// Ring reset: everything but pixel memory and the microcode store returns to its reset
    /// state; the IGC enters RMode.
    pub fn ring_reset(&mut self) {
        let store = std::mem::take(&mut self.igc.store);
        let array = std::mem::take(&mut self.array);
        let cycle = self.cycle;
        let trace_emcs = self.qee.trace_emcs;
        *self = Renderer::new(self.config);
        self.igc.store = store;
        self.array = array;
        self.cycle = cycle;
        // Tracing configuration, like the probe pixels in the array, outlives the reset.
        self.qee.trace_emcs = trace_emcs;
    }

    /// The EMCs whose QEE the waveform shows as `renderer.emc[k].qee` (bit k = EMC k): the
    /// selection in `qee.trace_emcs`, or by default EMC 0 and the EMCs holding the probe
    /// pixels.
    pub fn traced_emcs(&self) -> u64 {
        self.qee.trace_emcs.unwrap_or_else(|| {
            self.array
                .probes()
                .iter()
                .fold(1u64, |m, p| m | 1 << emc_of(p.x, p.y))
        })
    }

    /// Whether the Ring may deliver a word to the IGC port in the current cycle
    /// (the 20 MHz enable).
    pub fn ring_slot(&self) -> bool {
        ring_enable(self.cycle)
    }

    /// RxReady of the IGC port.
    pub fn rx_ready(&self) -> bool {
        self.igc_port.rx_ready()
    }

    /// Deliver a Ring word to the IGC port this cycle (call before [`Renderer::step`], only
    /// when [`Renderer::ring_slot`] is true). `sop` marks a destination word.
    pub fn ring_in(&mut self, word: u32, sop: bool) {
        self.ring_in = Some((word, sop));
    }

    /// The status word (seed §III.4.1-5), as the IGC port reports it.
    pub fn status(&self) -> u32 {
        let s = self.array.stripes();
        let mut w = 0u32;
        for (k, on) in s.iter().enumerate() {
            w |= (*on as u32) << (ST_AEO_STRIPES + k as u32);
        }
        w |= 1 << ST_TXREADY_BS;
        w |= 1 << ST_TXREADY_IGC;
        w |= (self.bs_sem as u32) << ST_BS_SEM;
        w |= (self.igc_sem as u32) << ST_IGC_SEM;
        w |= self.errors & ERROR_MASK;
        w |= (self.igc.indicator as u32) << ST_INDICATOR;
        w
    }

    /// The 16 front-panel LEDs (seed §III.4.1-5), bit k = LED k.
    pub fn leds(&self) -> u16 {
        let st = self.status();
        let mut l = 0u16;
        l |= self.array.aeo() as u16;
        l |= ((self.igc.state == IgcState::Run) as u16) << 1;
        l |= ((self.bs_sem != 0) as u16) << 2;
        l |= ((self.igc_sem != 0) as u16) << 3;
        l |= ((!self.igc_port.rxfifo.is_empty()) as u16) << 5;
        l |= (((st >> ST_TXREADY_BS) & 1) as u16) << 6;
        l |= (((st >> ST_TXREADY_IGC) & 1) as u16) << 7;
        l |= ((st >> 24) as u16 & 0xff) << 8;
        l
    }

    /// One 40 MHz cycle.
    pub fn step(&mut self) {
        let aeo = self.array.aeo();
        if !self.igc_port.ring_cycle(self.ring_in.take()) {
            self.strobe(ST_IGC_RXFIFO_OVW, BoardEvent::RxFifoOverwritten);
        }
        let taken_before = self.igc.commands;
        let was_go = self.llpr.go;
        let op = self.igc.step(&mut self.llpr, &self.array, &mut self.igc_ev);
        self.igc_port.parser.step(
            &mut self.igc_port.rxfifo,
            &mut self.llpr,
            aeo,
            &mut self.parser_ev,
        );
        // The tree plane is only built in cycles that read it.
        let tree = if op.b == BSource::Tree {
            self.qee.tree_plane()
        } else {
            &ZERO_PLANE
        };
        let active = self.igc.fc.active_mask();
        self.array.step(&op, tree, active);
        if self.igc.fc_changed {
            // AEO is the OR of Enable over the *active* PEs.
            self.array.refresh_stripes(active);
        }
        match self.igc.qee_ctl {
            QeeCtl::None => self.qee.tick(),
            QeeCtl::Start { mode_bits } => {
                let mode = QeeMode::from_bits(mode_bits);
                let fb = self.igc.fbits as u32;
                let loaded = self.igc.coef_fbits.map(|f| f.map_or(fb, u32::from));
                self.qee.start_with(mode, &self.igc.coef, &loaded, fb)
            }
            QeeCtl::CfgAll(bit) => {
                self.qee.config.shift_all(bit);
                self.qee.tick();
            }
            QeeCtl::CfgOne { chip, bit } => {
                self.qee.config.shift_one(chip, bit);
                self.qee.tick();
            }
        }

        // IGC timeout: a command waits and the IGC does not take it (docs/model-choices.md).
        let took = self.igc.commands != taken_before || (was_go && !self.llpr.go);
        if took || !self.llpr.go {
            self.timeout_count = 0;
        } else if ring_enable(self.cycle) {
            self.timeout_count += 1;
            if self.timeout_count == IGC_TIMEOUT_RING_CYCLES {
                self.strobe(ST_IGC_TIMEOUT, BoardEvent::IgcTimeout);
            }
        }

        for ev in self.igc_ev.drain(..) {
            match &ev {
                IgcEvent::FormatError(_) => self.error_strobe |= 1 << ST_IGC_FORMAT,
                IgcEvent::Flow(e) if e.is_error() => self.error_strobe |= 1 << ST_FC_ERROR,
                _ => {}
            }
            self.events.push(BoardEvent::Igc(ev));
        }
        for ev in self.parser_ev.drain(..) {
            if matches!(ev, ParserEvent::FormatError(_)) {
                self.error_strobe |= 1 << ST_IGC_FORMAT;
            }
            self.events.push(BoardEvent::Parser(ev));
        }
        if self.error_strobe != 0 {
            self.errors |= self.error_strobe;
            // The OR of the error strobes sends one error message to Ring address 0; the
            // upper 24 bits of its ID are "garbage" in the seed, zero here.
            self.tx.push(OutMessage {
                cycle: self.cycle,
                words: [0, self.config.board_id as u32, self.status()],
                error: true,
            });
        }
        self.error_strobe = 0;
        self.cycle += 1;
    }

    /// Raise the IGC formatting-error strobe (status bit 29) from outside the board: the
    /// simulator's command checker, for rules the hardware does not check itself (operand
    /// lengths, docs/model-choices.md). The bit and the error message appear at the end of
    /// the next cycle.
    pub fn flag_format_error(&mut self) {
        self.error_strobe |= 1 << ST_IGC_FORMAT;
    }

    fn strobe(&mut self, bit: u32, ev: BoardEvent) {
        self.error_strobe |= 1 << bit;
        self.events.push(ev);
    }

    /// Whether nothing is left to do: FIFO empty, parser idle, no command waiting, and the
    /// IGC waiting for a command (or in RMode with nothing to take).
    pub fn quiescent(&self) -> bool {
        self.igc_port.rxfifo.is_empty()
            && !self.igc_port.parser.busy()
            && !self.llpr.go
            && matches!(self.igc.state, IgcState::WaitCmd | IgcState::RMode)
    }
}

impl Traced for Renderer {
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        if !t.enter("renderer", None) {
            return;
        }
        bit(t, "clk20_en", ring_enable(self.cycle.wrapping_sub(1)));
        t.bits("status", 32, self.status() as u64);
        t.bits("leds", 16, self.leds() as u64);
        bit(t, "aeo", self.array.aeo());
        t.bits("timeout_count", 17, self.timeout_count);
        self.igc_port.trace(t);
        self.igc.trace(t);
        self.qee.trace(t);
        self.qee.trace_emcs(t, self.traced_emcs());
        self.array.trace(t);
        self.array.trace_probes(t, &self.igc.fc);
        t.pop_scope();
    }
}
