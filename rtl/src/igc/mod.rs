//! The Image Generation Controller (IGC): a microsequencer with a writable microcode store.
//!
//! Seed 003 §III.4.2: the IGC receives commands from the Stream Parser and executes them on
//! the EMC array. Here the command set is *microcode*: the hardware below provides the
//! datapath (operand registers, bit counter I, loop counter L, address generators, the
//! scalar) and the sequencer; what a command does and how long it takes comes from the
//! microcode loaded with RMODEON / MCWRITE / MCREAD / RMODEOFF (§III.4.2.5.3).
//!
//! - [`opcode`]: the opcode and P word layout.
//! - [`microinstruction`]: the 128-bit microinstruction.
//! - [`store`]: control store and dispatch RAM.
//! - [`llpr`]: the command registers the Stream Parser fills.

pub mod llpr;
pub mod microinstruction;
mod names;
pub mod opcode;
mod plan;
pub mod store;
mod trace;
pub use self::names::{IgcNames, UinstNames};

use crate::backing_store::XFER_BITS;
use crate::emc_array::plane::ZERO_PLANE;
use crate::emc_array::{ArrayOp, BSource, EmcArray, MEM_BITS};
use crate::flow_control::instruction::{FcOp, LoopConst};
use crate::flow_control::{FcError, FcRequest, FlowControl};
use crate::trace::WaveEnum;
use llpr::{Llpr, COEF_C};
use microinstruction::{
    AddrGen, BExt, BSrc, Base, IOp, Idx, LLoad, Microinstruction, Misc, QeeOp, Seq, NUM_OPR,
};
use opcode::{
    OpcodeWord, CMD_FBITS, CMD_MCREAD, CMD_MCWRITE, CMD_NOOP, CMD_RMODEOFF, CMD_RMODEON, FBITS_MAX,
    HARDWIRED_BASE,
};
use plan::{BPlan, Plan, Regs};
use std::ops::ControlFlow;
use store::{McStore, CONTROL_STORE_UINSTS, FC_BOOL_WORD, FC_CONST_BASE, FC_CTRL_WORD};

/// What the IGC is doing this cycle (an FSM, traced by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, WaveEnum)]
pub enum IgcState {
    /// Loading microcode: only MCWRITE, MCREAD, NOOP, RMODEOFF and FBITS are legal.
    #[wave(name = "RMODE")]
    RMode,
    /// Executing a microinstruction of a command's routine.
    Run,
    /// At a DISPATCH with no command from the parser.
    WaitCmd,
    /// Executing HANG: stuck until a Ring reset.
    Hang,
    /// Stopped on an illegal microinstruction: stuck until a Ring reset (seed §III.4.2.5.3:
    /// the Ring is reset "because the IGC is hung with faulty microcode").
    Fault,
    /// A XFER or BSWAIT microinstruction waits for the transfer in progress.
    WaitXfer,
    /// A PIGC microinstruction waits for the IGC semaphore to be non-zero.
    WaitSem,
    /// A SENDSTATUS microinstruction waits for the pending status or error message.
    WaitTx,
}

impl IgcState {
    /// Name shown in the waveform.
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }

    /// A handshake microinstruction is stalled.
    pub fn waiting(self) -> bool {
        matches!(
            self,
            IgcState::WaitXfer | IgcState::WaitSem | IgcState::WaitTx
        )
    }
}

/// What the IGC sees of the rest of the board at the start of a cycle (set by the board
/// before [`Igc::step`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IgcInputs {
    /// A backing-store transfer is in progress: it owns pixel-memory bits 0-31.
    pub xfer_busy: bool,
    /// The IGC semaphore's counter is non-zero.
    pub igc_sem_nonzero: bool,
    /// The IGC port's transmitter holds a status or error message not yet sent.
    pub tx_pending: bool,
    /// An error strobe fired in the previous cycle (interrupts a waiting SENDSTATUS: seed
    /// §III.4.1-5).
    pub error_strobe: bool,
    /// The board ID (the low byte of SENDSTATUS's message ID).
    pub board_id: u8,
}

/// The board's signals every cycle of the IGC reads (the others, [`IgcInputs`], only matter to
/// a handshake), sampled at the start of the cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sampled {
    /// The array's AEO (the conditional jumps).
    pub aeo: bool,
    /// [`IgcInputs::xfer_busy`] (the address generators' transfer check).
    pub xfer_busy: bool,
}

/// What the IGC asks of the rest of the board this cycle (the MISC handshakes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MiscCtl {
    #[default]
    None,
    /// Start a transfer (BSLOAD when `store` is false).
    StartXfer { store: bool, sector: u8 },
    /// V the BS semaphore now (VBS).
    Vbs,
    /// V the BS semaphore when the transfer in progress completes (VBSlater).
    VbsLater,
    /// Decrement the IGC semaphore (a granted PIGC).
    Pigc,
    /// Latch a status message: destination and ID (board ID in its low byte).
    SendStatus { dest: u32, id: u32 },
}

/// Something the IGC did this cycle that the board or the simulator must know about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IgcEvent {
    /// A microcoded command was taken; its routine starts at `entry` next cycle.
    Dispatch { cmd: u8, opcode: u32, entry: u16 },
    /// A command executed by the IGC control logic (RMode commands, RMODEON).
    Control { cmd: u8, opcode: u32 },
    /// A formatting error in the command stream as the IGC sees it (status bit 29 and an
    /// error message): an illegal command in RMode, an opcode without microcode, a bad FBITS.
    FormatError(String),
    /// The IGC stopped on an illegal microinstruction (no status bit in the seed; the
    /// simulator reports it and stops).
    Fault { pc: u16, why: String },
    /// Something suspicious with no hardware effect (e.g. an address past the 208 bits), at
    /// the microinstruction at `pc`: `{what} at <pc> {msg}` (as the engine reports it).
    Diagnostic {
        pc: u16,
        /// What did it: `microinstruction`, `QEE command`.
        what: &'static str,
        msg: String,
    },
    /// The flow-control unit met a condition the hardware leaves undefined (an error: status
    /// bit 4) or a misuse it only warns about.
    Flow(FcError),
    /// A microinstruction accessed pixel-memory bit `bit` (< 32) while a backing-store
    /// transfer owns bits 0-31: the access read 0 / wrote nothing (seed §III.4.2.5.2). Raised
    /// once per cycle; the simulator reports the first per command.
    XferConflict {
        pc: u16,
        bit: u8,
        port: &'static str,
    },
    /// A SENDSTATUS waiting for the transmitter was interrupted by an error: its status
    /// message is lost (seed §III.4.1-5).
    StatusLost,
    /// The IGC went on from a microinstruction some MCWRITE set to one at `pc` that none
    /// set since power-up (the store's zeros: it executes as a NOP with NEXT). No hardware
    /// error; the simulator reports it, since code that runs off its end (or a jump to a
    /// wrong address) otherwise runs the empty store silently.
    Unwritten { pc: u16, from: u16 },
}

/// The port names used by the address generators, as `'static` strings.
fn port_name(port: &str) -> &'static str {
    match port {
        "A" => "A",
        "B" => "B",
        "W" => "W",
        _ => "A (predicate)",
    }
}

/// The IGC's registers.
#[derive(Clone)]
pub struct Igc {
    pub store: McStore,
    pub state: IgcState,
    /// Microprogram counter.
    pub pc: u16,
    /// Operand registers OPR0..OPR4, latched from fields F0..F4 at dispatch.
    pub opr: [u32; NUM_OPR],
    /// The latched opcode and P word of the executing command.
    pub opcode: u32,
    pub pword: u32,
    /// Coefficient registers A..F (C is also the scalar `sca`).
    pub coef: [u32; 6],
    /// Fractional bits of the QEE (seed §III.4.2.5.1-1).
    pub fbits: u8,
    /// Bit counter I.
    pub i: u8,
    /// Loop counter L.
    pub l: u8,
    /// The "indicator" signal (status bit 31), INDON/INDOFF.
    pub indicator: bool,
    /// The last executed microinstruction (for the waveform).
    pub last: Microinstruction,
    /// The PC of the last executed microinstruction.
    pub last_pc: u16,
    /// The store words `last` was decoded from (for the waveform's record).
    last_words: [u32; 4],
    /// The store's write count when `last` was fetched (`None`: nothing fetched since reset),
    /// so the waveform can tell a re-fetch after a store write from no change.
    last_fetch: Option<u64>,
    /// Commands taken since reset.
    pub commands: u64,
    /// What the executed microinstruction asks of the QEE this cycle.
    pub qee_ctl: QeeCtl,
    /// For each coefficient register: the FBITS in effect when it was last loaded by a
    /// command outside RMode (`None`: never, or only during RMode: stale for the QEE).
    pub coef_fbits: [Option<u8>; 6],
    /// The flow-control unit (docs/flow-control.md).
    pub fc: FlowControl,
    /// The unit's active mask changed this cycle (the board recomputes AEO).
    pub fc_changed: bool,
    /// The board's signals as the IGC last sampled them (see [`IgcInputs`]): `xfer_busy`
    /// every cycle, the others when a microinstruction with a MISC field executes (the only
    /// reader).
    pub inputs: IgcInputs,
    /// The handshake the executed microinstruction asks for this cycle.
    pub misc_ctl: MiscCtl,
    /// The flow-control unit's state (its mode, planes, stacks or last decision) changed this
    /// cycle: the unit executed an instruction, or a dispatch reset it or changed its mode.
    pub fc_stepped: bool,
    /// `last` worked out with the registers that stay put while it repeats (a cache of the
    /// simulator's, rebuilt after a fetch, a dispatch or a flow-control instruction).
    plan: Plan,
}

/// Where the sequencer goes after a microinstruction (its SEQ field, evaluated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sequenced {
    /// Run on at this PC.
    Pc(u16),
    /// Take the next command (DISPATCH, a finished LOOPD).
    Dispatch,
    /// HANG: stuck until a Ring reset.
    Hang,
}

/// The IGC's control of the QEE for one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QeeCtl {
    #[default]
    None,
    /// Start an evaluation: QEEMode from the opcode (bits 19:18), the coefficient registers,
    /// FBITS.
    Start { mode_bits: u32 },
    /// Shift this bit into every EMC's configuration register (SUPCFG).
    CfgAll(bool),
    /// Shift this bit into EMC `chip`'s configuration register (SEPCFG).
    CfgOne { chip: usize, bit: bool },
}

impl Default for Igc {
    fn default() -> Self {
        Self::new()
    }
}

impl Igc {
    /// The IGC after a Ring reset: in RMode, PC 0, empty store (seed §III.4.2.5.3: "After a
    /// Ring reset, the IGC is guaranteed to be in RMode already").
    pub fn new() -> Self {
        Igc::with_store(McStore::new())
    }

    /// [`Igc::new`] keeping a microcode store (a Ring reset keeps its contents).
    pub fn with_store(store: McStore) -> Self {
        Igc {
            store,
            state: IgcState::RMode,
            pc: 0,
            opr: [0; NUM_OPR],
            opcode: 0,
            pword: 0,
            coef: [0; 6],
            fbits: 0,
            i: 0,
            l: 0,
            indicator: false,
            last: Microinstruction::default(),
            last_pc: 0,
            last_words: [0; 4],
            last_fetch: None,
            commands: 0,
            qee_ctl: QeeCtl::None,
            coef_fbits: [None; 6],
            fc: FlowControl::default(),
            fc_changed: false,
            inputs: IgcInputs::default(),
            misc_ctl: MiscCtl::None,
            fc_stepped: false,
            plan: Plan::default(),
        }
    }

    /// The scalar `sca` (the C coefficient register).
    pub fn sca(&self) -> u32 {
        self.coef[COEF_C]
    }

    /// Whether the IGC is stuck (HANG or an illegal microinstruction).
    pub fn stuck(&self) -> bool {
        matches!(self.state, IgcState::Hang | IgcState::Fault)
    }

    /// One 40 MHz cycle. Takes a command from `llpr` when the microcode dispatches (or, in
    /// RMode, whenever one is there), and returns the operation for the EMC array. The array
    /// is only read here (AEO, and the per-PE inputs of a flow-control instruction).
    /// `sampled` are the signals every cycle reads; `inputs` gives the others when a
    /// handshake needs them (most cycles do not).
    pub fn step(
        &mut self,
        llpr: &mut Llpr,
        array: &EmcArray,
        events: &mut Vec<IgcEvent>,
        sampled: Sampled,
        inputs: impl FnOnce() -> IgcInputs,
    ) -> ArrayOp {
        self.inputs.xfer_busy = sampled.xfer_busy;
        self.qee_ctl = QeeCtl::None;
        self.misc_ctl = MiscCtl::None;
        self.fc_changed = false;
        self.fc_stepped = false;
        match self.state {
            IgcState::RMode => {
                self.rmode_step(llpr, events);
                ArrayOp::default()
            }
            IgcState::Hang | IgcState::Fault => ArrayOp::default(),
            IgcState::Run
            | IgcState::WaitCmd
            | IgcState::WaitXfer
            | IgcState::WaitSem
            | IgcState::WaitTx => self.run_step(llpr, array, events, sampled.aeo, inputs),
        }
    }

    fn rmode_step(&mut self, llpr: &mut Llpr, events: &mut Vec<IgcEvent>) {
        if !llpr.go {
            return;
        }
        llpr.go = false;
        let op = OpcodeWord(llpr.opcode);
        let cmd = op.cmd();
        events.push(IgcEvent::Control {
            cmd,
            opcode: llpr.opcode,
        });
        // Coefficient words load their registers in RMode too: MCWRITE writes `sca[32]`, so
        // one sent without its C word writes the C register's previous value.
        for k in 0..6 {
            if llpr.coef_mask & (1 << k) != 0 {
                self.coef[k] = llpr.coef[k];
                // Loaded in RMode (e.g. as MCWRITE data): not a QEE coefficient.
                self.coef_fbits[k] = None;
            }
        }
        match cmd {
            CMD_MCWRITE => {
                if let Err(e) = self.store.write(op.hardwired_addr(), self.sca()) {
                    events.push(IgcEvent::FormatError(e));
                }
            }
            CMD_MCREAD => self.set_pc(op.hardwired_addr(), events),
            // "a NOOP() or MCREAD(0) command is used to reset the IGC program counter"
            CMD_NOOP => self.pc = 0,
            CMD_RMODEON => {}
            CMD_RMODEOFF => self.leave_rmode(),
            CMD_FBITS if op.fbits_load() => {
                self.load_fbits(op, events);
                self.leave_rmode();
            }
            _ => events.push(IgcEvent::FormatError(format!(
                "opcode {:#010x} (CMD {:#04x}) is not allowed in RMode: only MCWRITE, MCREAD, NOOP, RMODEOFF and FBITS are",
                llpr.opcode, cmd
            ))),
        }
    }

    fn set_pc(&mut self, addr: u32, events: &mut Vec<IgcEvent>) {
        if addr as usize >= CONTROL_STORE_UINSTS {
            events.push(IgcEvent::FormatError(format!(
                "MCREAD address {addr:#x} is outside the control store (0..{CONTROL_STORE_UINSTS:#x})"
            )));
        } else {
            self.pc = addr as u16;
        }
    }

    fn leave_rmode(&mut self) {
        self.state = IgcState::Run;
        self.plan.valid = false;
    }

    fn load_fbits(&mut self, op: OpcodeWord, events: &mut Vec<IgcEvent>) {
        let n = op.fbits();
        if n > FBITS_MAX {
            events.push(IgcEvent::FormatError(format!(
                "FBITS field {n} is out of range 0..=30; FBITS left at {}",
                self.fbits
            )));
        } else {
            self.fbits = n as u8;
        }
    }

    #[inline(always)]
    fn addr(&self, g: AddrGen) -> Option<u32> {
        let base = match g.base {
            Base::Off => return None,
            Base::Opr(k) => self.opr[k as usize],
            Base::Abs => 0,
            // IMM8 of the executing microinstruction (`last` is set before its addresses).
            Base::Imm => self.last.imm as u32,
        };
        Some(match g.idx {
            Idx::None => base,
            Idx::I => base + self.i as u32,
            // Outside every LOOP aL is not valid (seed 004); it reads as 0 (run_step warns).
            // A negative sum wraps to a huge address, which mem_addr drops with a diagnostic.
            Idx::Al => base.wrapping_add(self.fc.al().unwrap_or(0) as u32),
            Idx::IRev => {
                (base + self.opr[self.last.b_lim as usize]).wrapping_sub(1 + self.i as u32)
            }
        })
    }

    #[inline]
    fn mem_addr(&self, a: u32, port: &str, events: &mut Vec<IgcEvent>) -> Option<u8> {
        // The transfer's bits only while it runs; the rest of the memory always.
        let ok = if (a as usize) < XFER_BITS {
            !self.inputs.xfer_busy
        } else {
            (a as usize) < MEM_BITS
        };
        if ok {
            Some(a as u8)
        } else {
            self.mem_addr_dropped(a, port, events)
        }
    }

    /// [`Igc::mem_addr`] for an access it drops: the diagnostic or transfer conflict.
    #[cold]
    #[inline(never)]
    fn mem_addr_dropped(&self, a: u32, port: &str, events: &mut Vec<IgcEvent>) -> Option<u8> {
        if self.inputs.xfer_busy && (a as usize) < XFER_BITS {
            // Seed §III.4.2.5.2: the offending command "will not be correctly executed;
            // however, the Transfer operation will not be disturbed, nor will the contents of
            // pixel-memory be corrupted". The model reads 0 and drops the write.
            if !events
                .iter()
                .any(|e| matches!(e, IgcEvent::XferConflict { .. }))
            {
                events.push(IgcEvent::XferConflict {
                    pc: self.last_pc,
                    bit: a as u8,
                    port: port_name(port),
                });
            }
            None
        } else if (a as usize) < MEM_BITS {
            Some(a as u8)
        } else {
            events.push(IgcEvent::Diagnostic {
                pc: self.last_pc,
                what: "microinstruction",
                msg: format!(
                    "addressed pixel-memory bit {a} on port {port}, past the {MEM_BITS} bits; the access was dropped"
                ),
            });
            None
        }
    }

    fn array_op(&self, m: &Microinstruction, events: &mut Vec<IgcEvent>) -> ArrayOp {
        let lim = self.opr[m.b_lim as usize];
        let past_lim = self.i as u32 >= lim;
        let a = if m.b_ext == BExt::AZero && past_lim {
            None
        } else {
            self.addr(m.a).and_then(|a| self.mem_addr(a, "A", events))
        };
        let mut b_addr = self.addr(m.b).unwrap_or(0);
        let mut extended = matches!(m.b_ext, BExt::Zero | BExt::Sign) && past_lim;
        // Port B's index with an operand offset (SHIFTL/SHIFTR): `idx ± OPR[reg]`; below zero
        // B reads 0, and the extension compares this index instead of I.
        let mut below_zero = false;
        if let Some((reg, neg)) = m.b_off {
            let base = self
                .addr(AddrGen {
                    base: m.b.base,
                    idx: Idx::None,
                })
                .unwrap_or(0) as i64;
            let idx = self.addr(m.b).unwrap_or(0) as i64 - base;
            let off = self.opr[reg as usize] as i64;
            let j = if neg { idx - off } else { idx + off };
            below_zero = j < 0;
            extended = matches!(m.b_ext, BExt::Zero | BExt::Sign) && j >= lim as i64;
            b_addr = (base + j.max(0)) as u32;
        }
        if extended && m.b_ext == BExt::Sign {
            b_addr = self
                .addr(AddrGen {
                    base: m.b.base,
                    idx: Idx::None,
                })
                .unwrap_or(0)
                + lim.saturating_sub(1);
        }
        let b = match m.b_src {
            BSrc::Zero => BSource::Zero,
            BSrc::One => BSource::One,
            BSrc::Enable => BSource::Enable,
            BSrc::Tree => BSource::Tree,
            BSrc::Mem | BSrc::Sca if below_zero => BSource::Zero,
            BSrc::Mem if extended && m.b_ext == BExt::Zero => BSource::Zero,
            BSrc::Mem => match self.mem_addr(b_addr, "B", events) {
                Some(b) => BSource::Mem(b),
                None => BSource::Zero,
            },
            BSrc::Sca if extended && m.b_ext == BExt::Zero => BSource::Zero,
            BSrc::Sca => {
                if (self.sca() >> b_addr.min(31)) & 1 != 0 {
                    BSource::One
                } else {
                    BSource::Zero
                }
            }
        };
        let w = if m.mem_we {
            self.addr(m.w).and_then(|w| self.mem_addr(w, "W", events))
        } else {
            None
        };
        ArrayOp {
            a,
            b,
            lut_r: m.lut_r,
            lut_c: m.lut_c,
            lut_e: m.lut_e,
            cry_we: m.cry_we,
            en_we: m.en_we,
            w,
            wr_all: m.wr_all,
        }
    }

    /// The parts of [`Igc::run_step`] a plain microinstruction ([`Plan::plain`]) has none of:
    /// the aL diagnostic, a flow-control instruction, a handshake, B_OFF. Returns the array
    /// operation, or breaks with the step's result (a flow-control instruction, a stall).
    #[inline(never)]
    fn unusual_step(
        &mut self,
        pc: u16,
        array: &EmcArray,
        events: &mut Vec<IgcEvent>,
        inputs: impl FnOnce() -> IgcInputs,
    ) -> ControlFlow<ArrayOp, ArrayOp> {
        if self.plan.al_outside_loop {
            events.push(IgcEvent::Diagnostic {
                pc,
                what: "microinstruction",
                msg:
                    "addresses relative to aL outside every LOOP (aL is not valid there; read as 0)"
                        .into(),
            });
        }
        if let Some(instr) = self.last.fc {
            let m = self.last;
            return ControlFlow::Break(self.flow_step(&m, instr, pc, array, events));
        }
        if self.last.misc != Misc::None {
            self.inputs = inputs();
            let m = self.last;
            if !self.handshake(&m, events) {
                // Stalled: nothing executes; the same microinstruction is tried next cycle.
                return ControlFlow::Break(ArrayOp::default());
            }
        }
        ControlFlow::Continue(if self.last.b_off.is_some() {
            self.array_op(&self.last, events)
        } else {
            self.planned_op(events)
        })
    }

    /// [`Igc::array_op`] from the plan (a microinstruction without B_OFF): the addresses at
    /// this cycle's I, checked as there, in the same order (A, B, W).
    #[inline(always)]
    fn planned_op(&self, events: &mut Vec<IgcEvent>) -> ArrayOp {
        let p = &self.plan;
        let past_lim = self.i as u32 >= p.lim;
        let mut op = p.op;
        op.a = if p.a_zero_past_lim && past_lim {
            None
        } else {
            p.a.at(self.i).and_then(|a| self.mem_addr(a, "A", events))
        };
        let b_addr = || {
            if p.b_sign_past_lim && past_lim {
                p.b_sign_addr
            } else {
                p.b.at(self.i).unwrap_or(0)
            }
        };
        let zero = p.b_zero_past_lim && past_lim;
        match p.b_src {
            BPlan::Fixed => {}
            BPlan::Mem if zero => op.b = BSource::Zero,
            BPlan::Mem => {
                if let Some(b) = self.mem_addr(b_addr(), "B", events) {
                    op.b = BSource::Mem(b);
                }
            }
            BPlan::Sca if zero => op.b = BSource::Zero,
            BPlan::Sca => {
                if (self.sca() >> b_addr().min(31)) & 1 != 0 {
                    op.b = BSource::One;
                }
            }
        }
        op.w = p.w.at(self.i).and_then(|w| self.mem_addr(w, "W", events));
        op
    }

    /// One cycle outside RMode: fetch the microinstruction at PC, then dispatch (at a
    /// DISPATCH stall), run the flow-control unit (an FC instruction) or execute it: the
    /// handshake (MISC), the array operation (returned), the QEE, the sequencer and the
    /// counters.
    fn run_step(
        &mut self,
        llpr: &mut Llpr,
        array: &EmcArray,
        events: &mut Vec<IgcEvent>,
        aeo: bool,
        inputs: impl FnOnce() -> IgcInputs,
    ) -> ArrayOp {
        let pc = self.pc;
        let waiting = self.state == IgcState::WaitCmd;
        if !self.fetch(pc, waiting, events) {
            return ArrayOp::default();
        }
        if waiting {
            // Stalled at a DISPATCH (or a finished LOOPD): the array idles until a command
            // arrives.
            self.dispatch(llpr, events);
            return ArrayOp::default();
        }
        if !self.plan.valid {
            self.plan = Plan::new(
                &self.last,
                &Regs {
                    opr: &self.opr,
                    al: self.fc.al(),
                },
            );
        }
        let op = if self.plan.plain {
            self.planned_op(events)
        } else {
            match self.unusual_step(pc, array, events, inputs) {
                ControlFlow::Continue(op) => op,
                ControlFlow::Break(op) => return op,
            }
        };
        let m = &self.last;
        let (qee, seq, target, imm, i_op, l_load) =
            (m.qee, m.seq, m.target, m.imm, m.i_op, m.l_load);
        if self.plan.qee {
            self.qee_ctl = self.qee_control(qee, events);
        }
        let new_pc = match self.sequence(seq, pc, target, imm, aeo) {
            Sequenced::Pc(new_pc) => Some(new_pc),
            Sequenced::Dispatch => None,
            Sequenced::Hang => {
                self.state = IgcState::Hang;
                return op;
            }
        };
        self.counters(i_op, l_load, imm);
        match new_pc {
            Some(new_pc) => {
                self.state = IgcState::Run;
                self.pc = new_pc;
            }
            None => self.dispatch(llpr, events),
        }
        op
    }

    /// Fetch the microinstruction at `pc` into `last`, unless `last` already holds it (the
    /// IGC executed it in the previous cycle and the store was not written since: a
    /// microinstruction looping on itself). A stalled DISPATCH (`waiting`) only checks the
    /// address: it executes nothing, so `last` stays the last executed one. Returns false
    /// when the fetch faulted (the IGC stops).
    #[inline(always)]
    fn fetch(&mut self, pc: u16, waiting: bool, events: &mut Vec<IgcEvent>) -> bool {
        let fetched = pc == self.last_pc && self.last_fetch == Some(self.store.writes);
        if fetched && !waiting {
            return true;
        }
        match self.store.uinst(pc) {
            Err(e) => {
                events.push(IgcEvent::Fault {
                    pc,
                    why: e.to_string(),
                });
                self.state = IgcState::Fault;
                false
            }
            Ok(_) if waiting => true,
            Ok(m) => {
                if !self.store.written(pc) && self.store.written(self.last_pc) {
                    events.push(IgcEvent::Unwritten {
                        pc,
                        from: self.last_pc,
                    });
                }
                self.last = *m;
                self.last_words = self.store.uinst_words(pc);
                self.last_pc = pc;
                self.last_fetch = Some(self.store.writes);
                self.plan.valid = false;
                true
            }
        }
    }

    /// The QEE field: what the executed microinstruction asks of the QEE this cycle (the
    /// configuration bit comes from the scalar at bit I).
    #[inline(always)]
    fn qee_control(&self, qee: QeeOp, events: &mut Vec<IgcEvent>) -> QeeCtl {
        let sca_bit = (self.sca() >> (self.i as u32).min(31)) & 1 != 0;
        match qee {
            QeeOp::None => QeeCtl::None,
            QeeOp::Start => {
                let mode_bits = (self.opcode >> opcode::QEEMODE_SHIFT) & 3;
                self.check_coefficients(mode_bits, events);
                QeeCtl::Start { mode_bits }
            }
            QeeOp::CfgAll => QeeCtl::CfgAll(!sca_bit),
            QeeOp::CfgOne => QeeCtl::CfgOne {
                chip: self.opr[0] as usize,
                bit: sca_bit,
            },
        }
    }

    /// The SEQ field: where the sequencer goes after the microinstruction at `pc` (LOOP and
    /// LOOPD count L down here).
    #[inline(always)]
    fn sequence(&mut self, seq: Seq, pc: u16, target: u16, imm: u8, aeo: bool) -> Sequenced {
        let next = Sequenced::Pc((pc as usize + 1) as u16 % CONTROL_STORE_UINSTS as u16);
        match seq {
            Seq::Next => next,
            Seq::Jump => Sequenced::Pc(target),
            Seq::Loop | Seq::LoopD => {
                if self.l > 1 {
                    self.l -= 1;
                    Sequenced::Pc(target)
                } else {
                    self.l = 0;
                    if seq == Seq::LoopD {
                        Sequenced::Dispatch
                    } else {
                        next
                    }
                }
            }
            Seq::Dispatch => Sequenced::Dispatch,
            Seq::JAeo if aeo => Sequenced::Pc(target),
            Seq::JNAeo if !aeo => Sequenced::Pc(target),
            Seq::JAeo | Seq::JNAeo => next,
            Seq::JOprGt => {
                let x = self.opr[(imm & 7) as usize % NUM_OPR];
                let y = self.opr[((imm >> 4) & 7) as usize % NUM_OPR];
                if x > y {
                    Sequenced::Pc(target)
                } else {
                    next
                }
            }
            Seq::Hang => Sequenced::Hang,
        }
    }

    /// The I_OP and L_LOAD fields: the bit counter I and the loop counter L.
    #[inline(always)]
    fn counters(&mut self, i_op: IOp, l_load: LLoad, imm: u8) {
        match i_op {
            IOp::Keep => {}
            IOp::Clear => self.i = 0,
            IOp::Inc => self.i = self.i.wrapping_add(1),
        }
        match l_load {
            LLoad::None => {}
            LLoad::Opr(k) => self.l = self.opr[k as usize] as u8,
            LLoad::Imm => self.l = imm,
            LLoad::TreeLen => self.l = (73 - (self.fbits as u32).min(FBITS_MAX)) as u8,
        }
    }

    /// The MISC field of the microinstruction about to execute: sets the indicator or asks the
    /// board for a handshake (in [`Igc::misc_ctl`]). Returns false when the microinstruction
    /// must stall this cycle (the IGC state then says what it waits for).
    fn handshake(&mut self, m: &Microinstruction, events: &mut Vec<IgcEvent>) -> bool {
        let inp = self.inputs;
        let stall = |s: &mut Self, state| {
            s.state = state;
            false
        };
        match m.misc {
            Misc::None => {}
            Misc::IndOn => self.indicator = true,
            Misc::IndOff => self.indicator = false,
            Misc::Xfer | Misc::BsWait if inp.xfer_busy => return stall(self, IgcState::WaitXfer),
            Misc::Xfer => {
                self.misc_ctl = MiscCtl::StartXfer {
                    store: m.imm & 1 != 0,
                    sector: (self.opr[((m.imm >> 1) & 7) as usize % NUM_OPR] & 0x7f) as u8,
                }
            }
            Misc::BsWait => {}
            Misc::Vbs => {
                let later = m.imm & 1 != 0;
                self.misc_ctl = if later && inp.xfer_busy {
                    MiscCtl::VbsLater
                } else {
                    MiscCtl::Vbs
                };
            }
            Misc::Pigc if !inp.igc_sem_nonzero => return stall(self, IgcState::WaitSem),
            Misc::Pigc => self.misc_ctl = MiscCtl::Pigc,
            Misc::SendStatus if inp.tx_pending => {
                if self.state == IgcState::WaitTx && inp.error_strobe {
                    // Interrupted by an error while executing: the message is lost.
                    events.push(IgcEvent::StatusLost);
                    return true;
                }
                return stall(self, IgcState::WaitTx);
            }
            Misc::SendStatus => {
                self.misc_ctl = MiscCtl::SendStatus {
                    dest: self.sca(),
                    id: self.pword & !0xff | inp.board_id as u32,
                }
            }
        }
        true
    }

    /// Execute a flow-control instruction: resolve its constants and predicate address, let
    /// the unit decide, and go to PC+1 or the jump target. No array operation.
    fn flow_step(
        &mut self,
        m: &Microinstruction,
        instr: crate::flow_control::instruction::FcInstr,
        pc: u16,
        array: &EmcArray,
        events: &mut Vec<IgcEvent>,
    ) -> ArrayOp {
        let word = |a: usize| self.store.read(a as u32).unwrap_or(0);
        let (mut count, mut init, mut step) = (0, 0, 0);
        if matches!(instr.op, FcOp::Loop | FcOp::Rep) {
            let k = m.fc_const as usize;
            match LoopConst::decode(word(FC_CONST_BASE + k)) {
                Ok(c) => {
                    let src =
                        |s: Option<u8>, own: u8| s.map_or(own as u32, |r| self.opr[r as usize]);
                    count = src(c.count_src, c.count);
                    init = src(c.init_src, c.init) as i32;
                    step = c.step as i32;
                }
                Err(e) => {
                    events.push(IgcEvent::Fault {
                        pc,
                        why: format!("loop constant {k}: {e}"),
                    });
                    self.state = IgcState::Fault;
                    return ArrayOp::default();
                }
            }
        }
        let req = FcRequest {
            instr,
            pc,
            target: m.target,
            bool_value: (word(FC_BOOL_WORD) >> m.fc_bool) & 1 != 0,
            count,
            init,
            step,
        };
        let pred = self
            .addr(m.a)
            .and_then(|a| self.mem_addr(a, "A (predicate)", events))
            .map_or(&ZERO_PLANE, |a| &array.mem[a as usize]);
        let was_all = self.fc.all_active;
        let mut errors = Vec::new();
        let out = self
            .fc
            .step(&req, &array.carry, pred, &array.enable, &mut errors);
        self.fc_stepped = true;
        // aL may have changed.
        self.plan.valid = false;
        events.extend(errors.into_iter().map(IgcEvent::Flow));
        self.fc_changed = !(was_all && self.fc.all_active);
        self.state = IgcState::Run;
        self.pc = if out.jump {
            out.target % CONTROL_STORE_UINSTS as u16
        } else {
            (pc as usize + 1) as u16 % CONTROL_STORE_UINSTS as u16
        };
        ArrayOp::default()
    }

    /// Diagnose a QEE evaluation that uses a coefficient sent before the last FBITS change or
    /// before a microcode reload (seed §III.4.2.4 CAUTION: such values may not be re-used).
    fn check_coefficients(&self, mode_bits: u32, events: &mut Vec<IgcEvent>) {
        const NAMES: [&str; 6] = ["A", "B", "C", "D", "E", "F"];
        let used: &[usize] = match mode_bits & 3 {
            0 => &[],
            1 => &[llpr::COEF_C],
            2 => &[llpr::COEF_A, llpr::COEF_B, llpr::COEF_C],
            _ => &[0, 1, 2, 3, 4, 5],
        };
        for &k in used {
            match self.coef_fbits[k] {
                Some(f) if f == self.fbits => {}
                Some(f) => events.push(IgcEvent::Diagnostic {
                    pc: self.last_pc,
                    what: "QEE command",
                    msg: format!(
                        "re-uses coefficient {} sent at FBITS {f}; FBITS is now {} (coefficients must be sent again after FBITS)",
                        NAMES[k], self.fbits
                    ),
                }),
                None => events.push(IgcEvent::Diagnostic {
                    pc: self.last_pc,
                    what: "QEE command",
                    msg: format!(
                        "uses coefficient {}, which was not sent since reset or the last microcode load",
                        NAMES[k]
                    ),
                }),
            }
        }
    }

    /// Take the next command from the parser, if there is one.
    fn dispatch(&mut self, llpr: &mut Llpr, events: &mut Vec<IgcEvent>) {
        if !llpr.go {
            self.state = IgcState::WaitCmd;
            return;
        }
        llpr.go = false;
        // The operand registers and the flow-control unit change: so does the plan.
        self.plan.valid = false;
        let op = OpcodeWord(llpr.opcode);
        let cmd = op.cmd();
        self.state = IgcState::Run;
        if cmd >= HARDWIRED_BASE {
            events.push(IgcEvent::Control {
                cmd,
                opcode: llpr.opcode,
            });
            match cmd {
                CMD_RMODEON => {
                    // A microcode reload: previously sent coefficients may not be re-used.
                    self.coef_fbits = [None; 6];
                    self.state = IgcState::RMode
                }
                CMD_RMODEOFF => {}
                CMD_MCWRITE | CMD_MCREAD => events.push(IgcEvent::FormatError(format!(
                    "{} outside RMode (send RMODEON first); command ignored",
                    if cmd == CMD_MCWRITE { "MCWRITE" } else { "MCREAD" }
                ))),
                _ => events.push(IgcEvent::FormatError(format!(
                    "opcode {:#010x}: CMD {cmd:#04x} is a reserved IGC-control code; command ignored",
                    llpr.opcode
                ))),
            }
            if self.state != IgcState::RMode {
                self.state = IgcState::WaitCmd;
            }
            return;
        }
        let Some(entry) = self.store.entry(cmd) else {
            events.push(IgcEvent::FormatError(format!(
                "opcode {:#010x}: no microcode routine for CMD {cmd:#04x} (dispatch RAM entry not valid); command ignored",
                llpr.opcode
            )));
            self.state = IgcState::WaitCmd;
            return;
        };
        // Latch the command into the operand registers.
        self.opcode = llpr.opcode;
        self.pword = if op.long() { llpr.p } else { 0 };
        let pf = opcode::p_fields(self.pword);
        self.opr = [op.f0() & 0xff, pf[0], pf[1], pf[2], pf[3]];
        if op.fbits_load() {
            self.load_fbits(op, events);
        }
        for k in 0..6 {
            if llpr.coef_mask & (1 << k) != 0 {
                self.coef[k] = llpr.coef[k];
                self.coef_fbits[k] = Some(self.fbits);
            }
        }
        self.commands += 1;
        self.pc = entry;
        // Every command starts with every PE active and empty stacks, in the mode the
        // control register selects (docs/flow-control.md).
        if !self.fc.all_active {
            self.fc_changed = true;
        }
        let reset = self.fc.reset_state();
        let full = self.store.read(FC_CTRL_WORD as u32).unwrap_or(0) & 1 != 0;
        self.fc_stepped |= self.fc.set_full(full) | reset;
        events.push(IgcEvent::Dispatch {
            cmd,
            opcode: llpr.opcode,
            entry,
        });
    }
}
