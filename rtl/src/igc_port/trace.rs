//! The IGC port in the waveform: scope `igc_port`, whose receive side (the Ring input,
//! `rxfifo` and the Stream Parser's `parser`) is one record, and the message unit's
//! `messages` and `tx` another.

use super::messages::MessageUnit;
use super::parser::{ParserState, StreamParser};
use super::IgcPort;
use crate::ring::trace::{RingInput, RxFifoWave, TxWave};
use crate::trace::{Traced, Tracer, Wave};

#[derive(Wave)]
struct Receive {
    #[wave(flatten)]
    ring: RingInput,
    rxfifo: RxFifoWave,
    parser: ParserWave,
}

/// The Stream Parser (scope `parser`).
#[derive(Wave)]
struct ParserWave {
    state: ParserState,
    fifo_read: bool,
    word: u32,
    #[wave(rename = "WrEnLLPR")]
    wr_en_llpr: bool,
    #[wave(rename = "GoLLPR")]
    go_llpr: bool,
    held: bool,
    dest: u32,
    opcode: u32,
    #[wave(bits = 6)]
    coef_mask: u8,
}

impl StreamParser {
    fn wave(&self) -> ParserWave {
        ParserWave {
            state: self.state,
            fifo_read: self.fifo_read,
            word: self.word,
            wr_en_llpr: self.wr_en_llpr,
            go_llpr: self.go_llpr,
            held: self.held,
            dest: self.dest,
            opcode: self.cur.opcode,
            coef_mask: self.cur.coef_mask,
        }
    }
}

impl Traced for IgcPort {
    /// The port as scope `igc_port`: its receive side (the Ring input, `rxfifo`, the Stream
    /// Parser's `parser`) and its message unit (`messages`, `tx`), two records.
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        t.push_scope("igc_port");
        // The receive side changes with most Ring words.
        let (ring, rxfifo) = self.rx.wave();
        let parser = self.parser.wave();
        Receive {
            ring,
            rxfifo,
            parser,
        }
        .record_group(t);
        self.messages.trace(t);
        t.pop_scope();
    }
}

#[derive(Wave)]
struct MessagesWave {
    messages: Messages,
    tx: TxWave,
}

#[derive(Wave)]
struct Messages {
    status_latched: bool,
    error_req: bool,
    #[wave(bits = 32)]
    status_sent: u64,
    #[wave(bits = 32)]
    errors_sent: u64,
}

impl MessageUnit {
    /// The unit as scope `messages` and its transmitter's as `tx` (of the caller's scope).
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        MessagesWave {
            messages: Messages {
                status_latched: self.latched.is_some(),
                error_req: self.error_req,
                status_sent: self.status_sent,
                errors_sent: self.errors_sent,
            },
            tx: self.tx.wave(),
        }
        .record_group(t);
    }
}
