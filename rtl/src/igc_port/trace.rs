//! The IGC port in the waveform: scope `igc_port`, whose receive side (the Ring input,
//! `rxfifo` and the Stream Parser's `parser`) is one record, and the message unit's
//! `messages` and `tx` another.

use super::messages::MessageUnit;
use super::parser::{ParserState, StreamParser};
use super::IgcPort;
use crate::ring::trace::{decode_tx, trace_ring, trace_rxfifo};
use crate::trace::{bit, words, Traced, Tracer};

impl Traced for IgcPort {
    /// The port as scope `igc_port`: its receive side (the Ring input, `rxfifo`, the Stream
    /// Parser's `parser`) and its message unit (`messages`, `tx`), two records.
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        t.push_scope("igc_port");
        // The receive side changes with most Ring words.
        let [p0, p1, p2] = self.parser.trace_words();
        let words = [self.rx.trace_word(), p0, p1, p2];
        t.record_group(&words, decode_receive);
        self.messages.trace(t);
        t.pop_scope();
    }
}

/// The receive side (Ring input, RxFIFO, Stream Parser) from its record.
fn decode_receive(w: &[u64], t: &mut dyn Tracer) {
    let [w0] = words(w);
    trace_ring(w0, t);
    t.push_scope("rxfifo");
    trace_rxfifo(w0, t);
    t.pop_scope();
    t.push_scope("parser");
    decode_parser(w.get(1..).unwrap_or(&[]), t);
    t.pop_scope();
}

impl StreamParser {
    /// Everything [`Traced::trace`] shows, packed ([`decode_parser`] shows it).
    pub fn trace_words(&self) -> [u64; 3] {
        let flags = self.fifo_read as u64
            | (self.wr_en_llpr as u64) << 1
            | (self.go_llpr as u64) << 2
            | (self.held as u64) << 3;
        [
            self.word as u64 | (self.dest as u64) << 32,
            self.cur.opcode as u64 | (self.cur.coef_mask as u64) << 32 | flags << 40,
            self.state.code(),
        ]
    }
}

/// The `parser` scope's signals from [`StreamParser::trace_words`]'s words.
fn decode_parser(w: &[u64], t: &mut dyn Tracer) {
    let [w0, w1, w2] = words(w);
    let flags = w1 >> 40;
    t.text_static("state", ParserState::name_of_code(w2));
    bit(t, "fifo_read", flags & 1 != 0);
    t.bits("word", 32, w0 & 0xffff_ffff);
    t.bits_packed(&["WrEnLLPR", "GoLLPR", "held"], flags >> 1 & 7);
    t.bits("dest", 32, w0 >> 32);
    t.bits("opcode", 32, w1 & 0xffff_ffff);
    t.bits("coef_mask", 6, w1 >> 32 & 0x3f);
}

impl Traced for StreamParser {
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        t.record("parser", &self.trace_words(), decode_parser);
    }
}

impl MessageUnit {
    /// The unit as scope `messages` and its transmitter's as `tx` (of the caller's scope).
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        let [t0, t1] = self.tx.trace_words();
        let words = [
            self.latched.is_some() as u64 | (self.error_req as u64) << 1,
            self.status_sent & 0xffff_ffff | self.errors_sent << 32,
            t0,
            t1,
        ];
        t.record_group(&words, decode_messages);
    }
}

/// The `messages` and `tx` scopes from [`MessageUnit::trace`]'s words.
fn decode_messages(w: &[u64], t: &mut dyn Tracer) {
    let [flags, sent, t0, t1] = words(w);
    t.push_scope("messages");
    bit(t, "status_latched", flags & 1 != 0);
    bit(t, "error_req", flags >> 1 & 1 != 0);
    t.bits("status_sent", 32, sent & 0xffff_ffff);
    t.bits("errors_sent", 32, sent >> 32);
    t.pop_scope();
    t.push_scope("tx");
    decode_tx(&[t0, t1], t);
    t.pop_scope();
}
