//! The Renderer board: the IGC port, the IGC, the EMC array, the QEE, the backing store and its
//! transfer unit, the BS port, the two semaphores, the status word, the LEDs and the outgoing
//! messages, stepped together on the 40 MHz clock (seed 003 §III.4.1).
//!
//! - `cycle`: the board's record of the cycle it just stepped.
//! - `step`: [`Renderer::step`], the cycle block by block.
//! - `trace`: the board in the waveform; `trace_ctx`: the waveform's context beside it.

pub mod cycle;
pub mod replay;
mod step;
mod still;
mod trace;
mod trace_ctx;

pub use self::cycle::CycleRecord;
pub use self::still::Stillness;
pub use self::trace_ctx::{TraceCtx, TraceView};
use crate::backing_store::transfer::{TransferUnit, XferDir};
use crate::backing_store::BackingStore;
use crate::bs_port::{BsEvent, BsPort};
use crate::cause::Cause;
use crate::clock::ring_enable;
use crate::emc_array::EmcArray;
use crate::igc::llpr::Llpr;
use crate::igc::store::McStore;
use crate::igc::{Igc, IgcEvent, IgcState};
use crate::igc_port::parser::ParserEvent;
use crate::igc_port::IgcPort;
use crate::qee::Qee;
use crate::ring::rxfifo::RXFIFO_WORDS;
pub use crate::ring::tx::{MsgKind, OutMessage};
use crate::semaphore::Semaphore;
use crate::status::*;

/// Board parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RendererConfig {
    /// RxFIFO depth of each port in words (seed §III.4.1-3: 2K, perhaps 4K later).
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
    Bs(BsEvent),
    /// A Ring word was lost: the BS RxFIFO was full (status bit 26).
    BsRxFifoOverwritten,
    /// A semaphore counter overflowed and wrapped to 0 (status bit 24 for BS, 25 for IGC).
    SemOverflow {
        bs: bool,
    },
    /// A transfer started (BSLOAD / BSSTORE).
    XferStart {
        dir: XferDir,
        sector: u8,
    },
    /// The transfer completed.
    XferDone {
        dir: XferDir,
        sector: u8,
    },
    /// A VBS (`later` false) or VBSlater was issued while a VBSlater was pending, which seed
    /// §III.4.2.5.5 forbids: the pending flag merges a second VBSlater (one V is lost), a VBS
    /// increments at once, before the pending one.
    VbsWhilePending {
        later: bool,
    },
    /// A status message was latched (SENDSTATUS) or lost to an error (the interruption rule).
    StatusLatched,
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
    /// The backing store (VRAM) and the transfer unit.
    pub backing_store: BackingStore,
    pub transfer: TransferUnit,
    /// The Backing Store port.
    pub bs_port: BsPort,
    /// Sticky error bits 24..30 (and 4) of the status word.
    pub errors: u32,
    /// BS and IGC semaphores (status bits 8-23; zero at Ring reset).
    pub bs_sem: Semaphore,
    pub igc_sem: Semaphore,
    /// A semaphore still shows a request or an overflow from its last update (a cycle with no
    /// requests must then update it, to clear them; otherwise the update changes nothing).
    sem_pulses: bool,
    /// 20 MHz cycles a waiting command has not been taken.
    pub timeout_count: u64,
    /// TxReady from the Ring for the IGC port and the BS port (inputs; status bits 7 and 6).
    pub tx_ready_igc: bool,
    pub tx_ready_bs: bool,
    /// How the IGC spent the last cycle (for timing reports).
    pub igc_cause: Cause,
    ring_in: Option<(u32, bool)>,
    bs_ring_in: Option<(u32, bool)>,
    /// Events of the cycles since the simulator last drained them.
    pub events: Vec<BoardEvent>,
    /// Messages sent onto the Ring since the simulator last drained them.
    pub tx: Vec<OutMessage>,
    igc_ev: Vec<IgcEvent>,
    parser_ev: Vec<ParserEvent>,
    bs_ev: Vec<BsEvent>,
    error_strobe: u32,
    /// An error strobe fired in the last cycle.
    last_strobe: bool,
    /// What the last cycle did beyond its registers (see [`CycleRecord`]).
    pub record: CycleRecord,
    /// The timing study's data tap ([`replay`]; `None`: the board computes everything).
    tap: Option<Box<replay::DataTap>>,
    /// What the tap saw last of the Stream Parser and the IGC.
    tap_seen: replay::TapSeen,
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
            backing_store: BackingStore::new(),
            transfer: TransferUnit::default(),
            bs_port: BsPort::new(config.rxfifo_words),
            errors: 0,
            bs_sem: Semaphore::default(),
            igc_sem: Semaphore::default(),
            sem_pulses: false,
            timeout_count: 0,
            tx_ready_igc: true,
            tx_ready_bs: true,
            igc_cause: Cause::Idle,
            ring_in: None,
            bs_ring_in: None,
            events: Vec::new(),
            tx: Vec::new(),
            igc_ev: Vec::new(),
            parser_ev: Vec::new(),
            bs_ev: Vec::new(),
            error_strobe: 0,
            last_strobe: false,
            record: CycleRecord::default(),
            tap: None,
            tap_seen: replay::TapSeen::default(),
        }
    }

    /// Ring reset: everything but the memories (pixel memory, the microcode store, the
    /// backing store) returns to its reset state: the IGC enters RMode, the semaphores and
    /// the sticky error bits clear, the FIFOs empty, a transfer or message in progress is
    /// abandoned. TxReady (a Ring input) is kept.
    pub fn ring_reset(&mut self) {
        // In place: the memories stay where they are (building a new board would allocate
        // and clear them, 5 MB, only to drop them). Every field is named, so a new register
        // cannot be forgotten here; each gets the value `Renderer::new` gives it (a test
        // compares the two boards signal by signal).
        let Renderer {
            config,
            cycle: _,
            igc_port,
            llpr,
            igc,
            array: _,
            qee,
            backing_store: _,
            transfer,
            bs_port,
            errors,
            bs_sem,
            igc_sem,
            sem_pulses,
            timeout_count,
            tx_ready_igc: _,
            tx_ready_bs: _,
            igc_cause,
            ring_in,
            bs_ring_in,
            events,
            tx,
            igc_ev,
            parser_ev,
            bs_ev,
            error_strobe,
            last_strobe,
            record,
            tap: _,
            tap_seen,
        } = self;
        *igc_port = IgcPort::new(config.rxfifo_words);
        *llpr = Llpr::default();
        let store = std::mem::replace(&mut igc.store, McStore::empty());
        // A replay's or a recording's tap outlives the reset, like the board's own tap.
        let fc_tap = igc.fc.tap.take();
        *igc = Igc::with_store(store);
        igc.fc.tap = fc_tap;
        *qee = Qee::new();
        *transfer = TransferUnit::default();
        *bs_port = BsPort::new(config.rxfifo_words);
        *errors = 0;
        *bs_sem = Semaphore::default();
        *igc_sem = Semaphore::default();
        *sem_pulses = false;
        *timeout_count = 0;
        *igc_cause = Cause::Idle;
        *ring_in = None;
        *bs_ring_in = None;
        events.clear();
        tx.clear();
        igc_ev.clear();
        parser_ev.clear();
        bs_ev.clear();
        *error_strobe = 0;
        *last_strobe = false;
        // The new Stream Parser and IGC have seen nothing.
        *tap_seen = replay::TapSeen::default();
        // The array's last operation stays, like the array.
        record.fc_changed = false;
    }

    /// Whether the Ring may deliver a word to the IGC port in the current cycle
    /// (the 20 MHz enable).
    pub fn ring_slot(&self) -> bool {
        ring_enable(self.cycle)
    }

    /// A Ring word waits to enter the BS port at the next edge ([`Renderer::bs_ring_in`]).
    pub fn bs_ring_pending(&self) -> bool {
        self.bs_ring_in.is_some()
    }

    /// An error strobe fired in the last cycle (an error message is requested).
    pub fn error_strobed(&self) -> bool {
        self.last_strobe
    }

    /// RxReady of the IGC port.
    pub fn rx_ready(&self) -> bool {
        self.igc_port.rx_ready()
    }

    /// RxReady of the BS port.
    pub fn bs_rx_ready(&self) -> bool {
        self.bs_port.rx_ready()
    }

    /// Deliver a Ring word to the IGC port this cycle (call before [`Renderer::step`], only
    /// when [`Renderer::ring_slot`] is true). `sop` marks a destination word.
    pub fn ring_in(&mut self, word: u32, sop: bool) {
        self.ring_in = Some((word, sop));
    }

    /// Deliver a Ring word to the BS port this cycle (as [`Renderer::ring_in`]).
    pub fn bs_ring_in(&mut self, word: u32, sop: bool) {
        self.bs_ring_in = Some((word, sop));
    }

    /// The status word (seed §III.4.1-5), as the IGC port reports it.
    pub fn status(&self) -> u32 {
        let mut w = self.array.stripe_bits() << ST_AEO_STRIPES;
        w |= (self.tx_ready_bs as u32) << ST_TXREADY_BS;
        w |= (self.tx_ready_igc as u32) << ST_TXREADY_IGC;
        w |= (self.bs_sem.count as u32) << ST_BS_SEM;
        w |= (self.igc_sem.count as u32) << ST_IGC_SEM;
        w |= self.errors & ERROR_MASK;
        w |= (self.igc.indicator as u32) << ST_INDICATOR;
        w
    }

    /// The status word as the BS port reports it: without the bits the seed marks "available
    /// only in the status message transmitted from the IGC Port" (24-31, and our bit 4).
    pub fn bs_status(&self) -> u32 {
        self.status() & BS_STATUS_MASK
    }

    /// The 16 front-panel LEDs (seed §III.4.1-5), bit k = LED k.
    pub fn leds(&self) -> u16 {
        self.leds_with(self.status())
    }

    /// The LED inputs that are not in the status word: the IGC runs or waits (LED 1), the BS
    /// port's and the IGC port's RxFIFO hold words (LEDs 4 and 5); bits 0..3 of
    /// [`leds_from`]'s `extra`.
    fn led_extra(&self) -> u32 {
        (self.igc.state == IgcState::Run || self.igc.state.waiting()) as u32
            | ((!self.bs_port.rx.rxfifo.is_empty()) as u32) << 1
            | ((!self.igc_port.rx.rxfifo.is_empty()) as u32) << 2
    }

    /// [`Renderer::leds`] given the status word.
    fn leds_with(&self, st: u32) -> u16 {
        leds_from(st, self.led_extra())
    }

    /// Raise the IGC formatting-error strobe (status bit 29) from outside the board: the
    /// simulator's command checker, for rules the hardware does not check itself (operand
    /// lengths, docs/model-choices.md). The bit and the error message appear at the end of
    /// the next cycle.
    pub fn flag_format_error(&mut self) {
        self.error_strobe |= 1 << ST_IGC_FORMAT;
    }

    /// Whether nothing is left to do: both FIFOs empty, both parsers between commands, no
    /// command waiting, the IGC waiting for a command (or in RMode with nothing to take), no
    /// transfer, no message waiting or being sent.
    pub fn quiescent(&self) -> bool {
        self.igc_port.rx.rxfifo.is_empty()
            && !self.igc_port.parser.busy()
            && !self.llpr.go
            && matches!(self.igc.state, IgcState::WaitCmd | IgcState::RMode)
            && self.bs_port.idle()
            && !self.transfer.busy()
            && !self.igc_port.messages.pending()
    }

    /// A snapshot of every register that can change without Ring input: when two
    /// consecutive cycles give the same snapshot (and the IGC timeout is not counting), the
    /// board will never change again by itself. The simulator uses it to detect deadlocks
    /// and hangs (docs/model-choices.md, "Deadlock detection").
    pub fn progress_key(&self) -> [u64; 12] {
        let i = &self.igc;
        [
            i.pc as u64
                | (i.last_pc as u64) << 16
                | (i.i as u64) << 32
                | (i.l as u64) << 40
                | (i.state as u64) << 48
                | (self.llpr.go as u64) << 56,
            i.commands,
            self.igc_port.parser.words_read,
            self.igc_port.rx.rxfifo.len() as u64 | (self.bs_port.rx.rxfifo.len() as u64) << 32,
            self.bs_port.state.code()
                | (self.bs_sem.count as u64) << 8
                | (self.igc_sem.count as u64) << 16
                | (self.errors as u64) << 32,
            self.bs_port.commands,
            self.bs_port.tx.words_sent,
            self.transfer.step as u64 | self.transfer.completed << 16,
            self.igc_port.messages.tx.words_sent,
            self.igc_port.messages.pending() as u64
                | (self.qee.delivering() as u64) << 1
                | (self.tx_ready_igc as u64) << 2
                | (self.tx_ready_bs as u64) << 3
                | (self.last_strobe as u64) << 4
                | (self.igc_port.rx.rxfifo.overruns + self.bs_port.rx.rxfifo.overruns) << 8,
            self.backing_store.writes,
            self.igc.fc.progress_word(),
        ]
    }
}

/// The 16 front-panel LEDs from the status word `st` and [`Renderer::led_extra`]. AEO (LED 0)
/// is "no stripe has an enabled PE" (status bits 0..3), a semaphore's LED is its count
/// (status bits 8..15, 16..23) being non-zero.
fn leds_from(st: u32, extra: u32) -> u16 {
    let mut l = 0u16;
    l |= (st >> ST_AEO_STRIPES & 0xf == 0) as u16;
    l |= ((extra & 1) as u16) << 1;
    l |= ((st >> ST_BS_SEM & 0xff != 0) as u16) << 2;
    l |= ((st >> ST_IGC_SEM & 0xff != 0) as u16) << 3;
    l |= ((extra >> 1 & 1) as u16) << 4;
    l |= ((extra >> 2 & 1) as u16) << 5;
    l |= (((st >> ST_TXREADY_BS) & 1) as u16) << 6;
    l |= (((st >> ST_TXREADY_IGC) & 1) as u16) << 7;
    l |= ((st >> 24) as u16 & 0xff) << 8;
    l
}
