//! The Backing Store (BS) Ring port (seed 003 §III.4.1-2, §III.4.1-3).
//!
//! Its own RxFIFO, a command parser that executes one BS command at a time, and a transmitter
//! for status messages and backing-store data. "The Backing Store Port never processes two
//! commands simultaneously": BS_SENDSTATUS, BS_TRANSMIT and BS_PBS hold the incoming stream
//! until their message has gone out or their P completed.
//!
//! - [`command`]: the BS command encoding (opcode word fields, sizes in words).
//!
//! Rates (docs/model-choices.md, "BS port"): the parser reads at most one FIFO word per 40 MHz
//! cycle, twice the Ring's 20 MHz word rate, so BS_RECEIVE data is swallowed "at full speed"
//! and an over-long BS_RECEIVE message works as the seed describes; each command word costs
//! one cycle (the "small fixed per-command overhead"). A message that ends in the middle of a
//! command is a formatting error (status bit 28, an error message); the new message is parsed
//! from its first word. A bogus opcode word sets the same bit and the rest of its message is
//! skipped (its length is unknown).

pub mod command;
mod trace;

use crate::backing_store::{BackingStore, SCANLINE_WORDS};
use crate::cause::Cause;
use crate::ring::receiver::Receiver;
use crate::ring::rxfifo::{RxWord, RXFIFO_WORDS};
use crate::ring::tx::{MsgKind, OutMessage, Transmitter};
use crate::ring::PortId;
use crate::trace::WaveEnum;
use command::Head;

/// What the BS port is doing (an FSM, traced by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, WaveEnum)]
pub enum BsState {
    /// Expecting a command's first word.
    Opcode,
    /// BS_SENDSTATUS: expecting the ID word.
    #[wave(name = "STATUS_ARGS")]
    StatusId,
    /// BS_SENDSTATUS: expecting the return address.
    #[wave(name = "STATUS_ARGS")]
    StatusAddr { id: u32 },
    /// BS_SENDSTATUS: sending the status message.
    StatusSend { id: u32, dest: u32 },
    /// BS_RECEIVE: `k` of `total` data words written.
    Receive {
        sector: u8,
        scanline: u8,
        total: u32,
        k: u32,
    },
    /// BS_TRANSMIT: expecting the return address.
    #[wave(name = "TRANSMIT_ARGS")]
    TransmitAddr {
        sector: u8,
        scanline: u8,
        no_scanlines: u8,
    },
    /// BS_TRANSMIT: sending the data message (destination, then the data).
    Transmit { sector: u8, scanline: u8, dest: u32 },
    /// BS_PBS: waiting for the BS semaphore to be non-zero.
    Pbs,
    /// After a bogus command: discarding the rest of the message.
    Skip,
}

impl BsState {
    /// Name shown in the waveform.
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }

    /// A number per state (for trace keys and the board's progress key).
    pub fn code(self) -> u64 {
        WaveEnum::code(&self)
    }

    /// The command being executed, by its macro name (`None` between commands).
    pub fn command(self) -> Option<&'static str> {
        Some(match self {
            BsState::Opcode | BsState::Skip => return None,
            BsState::StatusId | BsState::StatusAddr { .. } | BsState::StatusSend { .. } => {
                command::NAMES[1]
            }
            BsState::Receive { .. } => command::NAMES[2],
            BsState::TransmitAddr { .. } | BsState::Transmit { .. } => command::NAMES[3],
            BsState::Pbs => command::NAMES[4],
        })
    }
}

/// Something the BS port reports to the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BsEvent {
    /// A command's first word was read (`name` is its macro name).
    Command { name: &'static str, word: u32 },
    /// A formatting error or bogus command (status bit 28, an error message).
    FormatError(String),
}

/// What the BS port asks of the rest of the board in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BsRequests {
    /// BS_VIGC: increment the IGC semaphore.
    pub v_igc: bool,
    /// BS_PBS granted: decrement the BS semaphore.
    pub p_bs: bool,
    /// BS_PBS waiting (the counter is zero).
    pub p_wait: bool,
    /// Raise status bit 28.
    pub format_error: bool,
}

/// The BS port's registers.
#[derive(Clone, Debug)]
pub struct BsPort {
    /// The Ring receiver and the RxFIFO.
    pub rx: Receiver,
    pub state: BsState,
    pub tx: Transmitter,
    /// A FIFO word was read this cycle.
    pub fifo_read: bool,
    /// How the port spent this cycle.
    pub cause: Cause,
    /// Commands started since reset.
    pub commands: u64,
}

impl Default for BsPort {
    fn default() -> Self {
        Self::new(RXFIFO_WORDS)
    }
}

impl BsPort {
    /// A port with an RxFIFO of `fifo_words` words, after Ring reset.
    pub fn new(fifo_words: usize) -> Self {
        BsPort {
            rx: Receiver::new(fifo_words),
            state: BsState::Opcode,
            tx: Transmitter::new(PortId::Bs),
            fifo_read: false,
            cause: Cause::Idle,
            commands: 0,
        }
    }

    /// RxReady towards the Ring: a sender may start a message.
    pub fn rx_ready(&self) -> bool {
        self.rx.rx_ready()
    }

    /// The Ring side of one cycle: takes the word delivered this cycle, if any
    /// ([`Receiver::cycle`]), and TxReady. Returns false if a word was lost because the FIFO
    /// was full.
    pub fn ring_cycle(&mut self, input: Option<(u32, bool)>, tx_ready: bool) -> bool {
        self.fifo_read = false;
        self.tx.clock(tx_ready);
        self.rx.cycle(input)
    }

    /// Whether the port is between commands with nothing buffered.
    pub fn idle(&self) -> bool {
        matches!(self.state, BsState::Opcode | BsState::Skip) && self.rx.rxfifo.is_empty()
    }

    /// One 40 MHz cycle of the parser and the transmitter. `bs_sem_nonzero` is the BS
    /// semaphore's zero detector at the start of the cycle; `status` the BS port's status
    /// word (sampled when a status message's status word goes out); `ring_slot` the 20 MHz
    /// enable. Messages sent completely this cycle are pushed on `sent`.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        cycle: u64,
        ring_slot: bool,
        bs_sem_nonzero: bool,
        status: u32,
        store: &mut BackingStore,
        sent: &mut Vec<OutMessage>,
        events: &mut Vec<BsEvent>,
    ) -> BsRequests {
        let mut req = BsRequests::default();
        self.cause = Cause::Executing;
        match self.state {
            BsState::Pbs => {
                if bs_sem_nonzero {
                    req.p_bs = true;
                    self.state = BsState::Opcode;
                } else {
                    req.p_wait = true;
                    self.cause = Cause::SemWait;
                }
            }
            BsState::StatusSend { id, dest } => {
                if self.tx.slot(ring_slot) {
                    let w = match self.tx.next_index() {
                        0 => dest,
                        1 => id,
                        _ => status,
                    };
                    if let Some(m) = self.tx.send(cycle, w) {
                        sent.push(m);
                        self.state = BsState::Opcode;
                    }
                } else if !self.tx.tx_ready {
                    self.cause = Cause::TxHold;
                }
            }
            BsState::Transmit {
                sector,
                scanline,
                dest,
            } => {
                if self.tx.slot(ring_slot) {
                    let w = match self.tx.next_index() {
                        0 => dest,
                        i => {
                            let k = i - 1;
                            let y = (scanline as usize + k / SCANLINE_WORDS) % SCANLINE_WORDS;
                            store.read(sector as usize, k % SCANLINE_WORDS, y)
                        }
                    };
                    if let Some(m) = self.tx.send(cycle, w) {
                        sent.push(m);
                        self.state = BsState::Opcode;
                    }
                } else if !self.tx.tx_ready {
                    self.cause = Cause::TxHold;
                }
            }
            _ => self.read_word(store, &mut req, events),
        }
        req
    }

    /// States that consume FIFO words: read one, if there is one.
    fn read_word(
        &mut self,
        store: &mut BackingStore,
        req: &mut BsRequests,
        events: &mut Vec<BsEvent>,
    ) {
        let Some(RxWord { word, sop }) = self.rx.rxfifo.pop() else {
            self.cause = match self.state {
                BsState::Opcode | BsState::Skip => Cause::Idle,
                _ => Cause::FifoEmpty,
            };
            return;
        };
        self.fifo_read = true;
        if sop && !matches!(self.state, BsState::Opcode | BsState::Skip) {
            // "Left hanging" at the message boundary: the new message starts afresh.
            req.format_error = true;
            events.push(BsEvent::FormatError(format!(
                "{} left hanging at the end of its message ({}); the next message is parsed from its first word",
                self.state.command().unwrap_or("a BS command"),
                self.state.name()
            )));
            self.state = BsState::Opcode;
        }
        match self.state {
            BsState::Skip if !sop => {}
            BsState::Opcode | BsState::Skip => self.opcode(word, req, events),
            BsState::StatusId => self.state = BsState::StatusAddr { id: word },
            BsState::StatusAddr { id } => {
                self.state = BsState::StatusSend { id, dest: word };
                self.tx.begin(MsgKind::Status, 3);
            }
            BsState::TransmitAddr {
                sector,
                scanline,
                no_scanlines,
            } => {
                self.state = BsState::Transmit {
                    sector,
                    scanline,
                    dest: word,
                };
                self.tx
                    .begin(MsgKind::Data, 1 + SCANLINE_WORDS * no_scanlines as usize);
            }
            BsState::Receive {
                sector,
                scanline,
                total,
                k,
            } => {
                let y = (scanline as usize + k as usize / SCANLINE_WORDS) % SCANLINE_WORDS;
                store.write(sector as usize, k as usize % SCANLINE_WORDS, y, word);
                self.state = if k + 1 >= total {
                    BsState::Opcode
                } else {
                    BsState::Receive {
                        sector,
                        scanline,
                        total,
                        k: k + 1,
                    }
                };
            }
            BsState::StatusSend { .. } | BsState::Transmit { .. } | BsState::Pbs => {}
        }
    }

    fn opcode(&mut self, word: u32, req: &mut BsRequests, events: &mut Vec<BsEvent>) {
        let Some(head) = Head::decode(word) else {
            req.format_error = true;
            events.push(BsEvent::FormatError(format!(
                "bogus BS command word {word:#010x}; the rest of its message is skipped"
            )));
            self.state = BsState::Skip;
            return;
        };
        self.commands += 1;
        events.push(BsEvent::Command {
            name: head.name(),
            word,
        });
        self.state = match head {
            Head::Noop => BsState::Opcode,
            Head::Vigc => {
                req.v_igc = true;
                BsState::Opcode
            }
            Head::Pbs => BsState::Pbs,
            Head::SendStatus => BsState::StatusId,
            Head::Receive {
                sector,
                scanline,
                no_scanlines,
            } => BsState::Receive {
                sector: sector as u8,
                scanline: scanline as u8,
                total: SCANLINE_WORDS as u32 * no_scanlines,
                k: 0,
            },
            Head::Transmit {
                sector,
                scanline,
                no_scanlines,
            } => BsState::TransmitAddr {
                sector: sector as u8,
                scanline: scanline as u8,
                // 1..=128 fits in a u8.
                no_scanlines: no_scanlines as u8,
            },
        };
    }
}
