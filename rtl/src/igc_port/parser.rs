//! The Stream Parser (seed 003 §III.4.1-1 and §III.4.2.1).
//!
//! It strips the destination word of each message, parses the body into IGC commands (opcode,
//! P word when bit 31 is set, coefficients by CoefMode and bit 19, the lookup-table mode) and
//! hands each complete command to the IGC's LLPR registers (WrEnLLPR per word, GoLLPR per
//! command). It reads at most one FIFO word per 40 MHz cycle (docs/model-choices.md, "Stream
//! Parser rate"). A message that ends in the middle of a command is a formatting error: the
//! partial command is dropped and parsing restarts with the new message. A flush-able message
//! (destination LSB = 1) that starts while AEO is asserted is read and discarded.

use super::rxfifo::{RxFifo, RxWord};
use crate::igc::llpr::{Llpr, COEF_A, COEF_B, COEF_C, COEF_D, COEF_E, COEF_F};
use crate::igc::opcode::OpcodeWord;
use crate::trace::{Wave, WaveEnum};

/// Coefficient order for CoefMode 01.
const SEQ_C: &[usize] = &[COEF_C];
/// Coefficient order for CoefMode 10.
const SEQ_ABC: &[usize] = &[COEF_A, COEF_B, COEF_C];
/// Coefficient order for CoefMode 11 with bit 19 set (seed §III.4.2.1 table).
const SEQ_DEFABC: &[usize] = &[COEF_D, COEF_E, COEF_F, COEF_A, COEF_B, COEF_C];

/// Parser FSM state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, WaveEnum)]
pub enum ParserState {
    /// Expecting the destination word of a message.
    Dest,
    /// Expecting an opcode (or the next message).
    Opcode,
    /// Expecting the P word.
    #[wave(name = "PWORD")]
    PWord,
    /// Expecting coefficient number `k` of the command's sequence.
    Coef(u8),
    /// Lookup-table mode: expecting a C word (the one with bit 31 set ends the table).
    Table,
    /// Discarding a flushed message.
    Flush,
}

impl ParserState {
    /// Name shown in the waveform.
    pub fn name(self) -> &'static str {
        WaveEnum::name(&self)
    }

    /// The state's code in a trace record (the coefficient index is not traced).
    pub fn code(self) -> u64 {
        WaveEnum::code(&self)
    }
}

/// Something the parser reports to the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParserEvent {
    /// A command was left hanging at a message boundary (status bit 29, error message).
    FormatError(String),
    /// A flush-able message was discarded because AEO was asserted.
    Flushed { dest: u32 },
}

/// The Stream Parser's registers, in the order the waveform shows them (scope `parser`).
#[derive(Clone, Debug, Wave)]
#[wave(part)]
pub struct StreamParser {
    pub state: ParserState,
    /// Pulses of this cycle (for the waveform).
    pub fifo_read: bool,
    /// The word read this cycle.
    pub word: u32,
    #[wave(rename = "WrEnLLPR")]
    pub wr_en_llpr: bool,
    #[wave(rename = "GoLLPR")]
    pub go_llpr: bool,
    /// A complete command waiting for the LLPR registers to be free.
    pub(super) held: bool,
    /// The message's destination word.
    pub dest: u32,
    /// The command being assembled.
    #[wave(flatten)]
    pub(super) cur: Llpr,
    /// Coefficient sequence of the current command.
    #[wave(skip)]
    coef_seq: &'static [usize],
    /// Words read from the FIFO since reset.
    #[wave(skip)]
    pub words_read: u64,
    /// Messages flushed since reset.
    #[wave(skip)]
    pub flushed: u64,
    /// Conditional messages (destination bit 0 set: flushed when AEO) since reset.
    #[wave(skip)]
    pub conditional: u64,
}

impl Default for StreamParser {
    fn default() -> Self {
        Self::new()
    }
}

impl StreamParser {
    /// The parser after reset: waiting for a message.
    pub fn new() -> Self {
        StreamParser {
            state: ParserState::Dest,
            cur: Llpr::default(),
            held: false,
            coef_seq: &[],
            dest: 0,
            words_read: 0,
            wr_en_llpr: false,
            go_llpr: false,
            fifo_read: false,
            word: 0,
            flushed: 0,
            conditional: 0,
        }
    }

    /// Whether the parser holds a complete command for the LLPR, which is full.
    pub fn holds_command(&self) -> bool {
        self.held
    }

    /// Whether the parser holds part or all of a command.
    pub fn busy(&self) -> bool {
        self.held
            || matches!(
                self.state,
                ParserState::PWord | ParserState::Coef(_) | ParserState::Table
            )
    }

    /// One 40 MHz cycle. `aeo` is the array's AEO signal; `llpr` the IGC's command registers.
    pub fn step(
        &mut self,
        fifo: &mut RxFifo,
        llpr: &mut Llpr,
        aeo: bool,
        events: &mut Vec<ParserEvent>,
    ) {
        self.wr_en_llpr = false;
        self.go_llpr = false;
        self.fifo_read = false;
        if self.held {
            if llpr.go {
                return;
            }
            self.hand_over(llpr);
            self.held = false;
        }
        let Some(RxWord { word, sop }) = fifo.pop() else {
            return;
        };
        self.fifo_read = true;
        self.word = word;
        self.words_read += 1;
        if sop {
            if matches!(
                self.state,
                ParserState::PWord | ParserState::Coef(_) | ParserState::Table
            ) {
                events.push(ParserEvent::FormatError(format!(
                    "message ended in the middle of a command (opcode {:#010x}, parser in {}); the command was dropped",
                    self.cur.opcode,
                    self.state.name()
                )));
            }
            self.dest = word;
            self.conditional += (word & 1) as u64;
            self.state = if word & 1 == 1 && aeo {
                self.flushed += 1;
                events.push(ParserEvent::Flushed { dest: word });
                ParserState::Flush
            } else {
                ParserState::Opcode
            };
            return;
        }
        match self.state {
            ParserState::Flush => {}
            // A word without the start tag where a destination is expected cannot come from
            // the Ring model; treat it as the destination of a message.
            ParserState::Dest => {
                self.dest = word;
                self.state = ParserState::Opcode;
            }
            ParserState::Opcode => {
                let op = OpcodeWord(word);
                self.cur = Llpr {
                    go: false,
                    opcode: word,
                    p: 0,
                    coef: [0; 6],
                    coef_mask: 0,
                };
                self.wr_en_llpr = true;
                self.coef_seq = match op.coef_words() {
                    Some(0) => &[],
                    Some(1) => SEQ_C,
                    Some(3) => SEQ_ABC,
                    _ => SEQ_DEFABC,
                };
                self.after_p(op, llpr);
                if op.long() {
                    self.state = ParserState::PWord;
                }
            }
            ParserState::PWord => {
                self.cur.p = word;
                self.wr_en_llpr = true;
                self.after_p(OpcodeWord(self.cur.opcode), llpr);
            }
            ParserState::Coef(k) => {
                let idx = self.coef_seq[k as usize];
                self.cur.coef[idx] = word;
                self.cur.coef_mask |= 1 << idx;
                self.wr_en_llpr = true;
                if k as usize + 1 == self.coef_seq.len() {
                    self.complete(llpr);
                    self.state = ParserState::Opcode;
                } else {
                    self.state = ParserState::Coef(k + 1);
                }
            }
            ParserState::Table => {
                self.cur.coef[COEF_C] = word;
                self.cur.coef_mask = 1 << COEF_C;
                self.wr_en_llpr = true;
                self.complete(llpr);
                if word & (1 << 31) != 0 {
                    self.state = ParserState::Opcode;
                }
            }
        }
    }

    /// After the opcode (short command) or the P word: decide what follows.
    fn after_p(&mut self, op: OpcodeWord, llpr: &mut Llpr) {
        if op.long() && self.state != ParserState::PWord {
            return; // the P word comes next
        }
        if op.table_mode() {
            self.state = ParserState::Table;
        } else if self.coef_seq.is_empty() {
            self.complete(llpr);
            self.state = ParserState::Opcode;
        } else {
            self.state = ParserState::Coef(0);
        }
    }

    /// The command is complete: give it to the IGC now, or hold it until the LLPR is free.
    fn complete(&mut self, llpr: &mut Llpr) {
        if llpr.go {
            self.held = true;
        } else {
            self.hand_over(llpr);
        }
    }

    fn hand_over(&mut self, llpr: &mut Llpr) {
        *llpr = self.cur;
        llpr.go = true;
        self.go_llpr = true;
    }

    /// Whether the parser is stalled on a held command (for cycle attribution).
    pub fn held(&self) -> bool {
        self.held
    }
}
