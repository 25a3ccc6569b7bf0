//! The IGC port in the waveform: scope `igc_port`, whose receive side (the Ring input,
//! `rxfifo` and the Stream Parser's `parser`) is one record, and the message unit's
//! `messages` and `tx`.

use super::messages::MessageUnit;
use super::parser::{ParserState, StreamParser};
use super::IgcPort;
use crate::ring::trace::{trace_ring, trace_rxfifo};
use crate::trace::{bit, Traced, Tracer};

impl Traced for IgcPort {
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        self.trace_with(t, None);
    }
}

impl IgcPort {
    /// [`Traced::trace`], with the message unit skipped while `messages_key` (if given) is
    /// unchanged: the board's key of its usually idle blocks (`TraceCtx::slow_key`).
    #[inline]
    pub fn trace_with<T: Tracer + ?Sized>(&self, t: &mut T, messages_key: Option<u64>) {
        if !t.enter("igc_port", None) {
            return;
        }
        // The receive side changes with most Ring words: a record, decoded by the writer.
        let [p0, p1, p2] = self.parser.trace_key();
        let words = [self.rx.trace_word(), p0, p1, p2];
        t.record_group(&words, decode_receive);
        match messages_key {
            Some(k) => {
                if t.group(&[k]) {
                    self.messages.trace(t);
                    t.end_group();
                }
            }
            None => self.messages.trace(t),
        }
        t.pop_scope();
    }
}

/// The receive side (Ring input, RxFIFO, Stream Parser) from its record.
fn decode_receive(w: &[u64], t: &mut dyn Tracer) {
    let w0 = w.first().copied().unwrap_or(0);
    trace_ring(w0, t);
    t.push_scope("rxfifo");
    trace_rxfifo(w0, t);
    t.pop_scope();
    t.push_scope("parser");
    decode_parser(w.get(1..).unwrap_or(&[]), t);
    t.pop_scope();
}

impl StreamParser {
    /// Everything [`Traced::trace`] shows, packed (the skip key of the `parser` scope).
    pub fn trace_key(&self) -> [u64; 3] {
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

/// The `parser` scope's signals from [`StreamParser::trace_key`]'s words.
fn decode_parser(w: &[u64], t: &mut dyn Tracer) {
    let [w0, w1, w2] = [0, 1, 2].map(|k| w.get(k).copied().unwrap_or(0));
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
        t.record("parser", &self.trace_key(), decode_parser);
    }
}

impl MessageUnit {
    /// Walk the unit's signals as scope `messages`, and the transmitter's as `tx`.
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        let key = [
            self.latched.is_some() as u64 | (self.error_req as u64) << 1,
            self.status_sent | self.errors_sent << 32,
        ];
        let [t0, t1] = self.tx.trace_key();
        if !t.group(&[key[0], key[1], t0, t1]) {
            return;
        }
        self.trace_inner(t, &key);
        t.end_group();
    }

    fn trace_inner<T: Tracer + ?Sized>(&self, t: &mut T, key: &[u64; 2]) {
        if t.enter_keyed("messages", key) {
            bit(t, "status_latched", self.latched.is_some());
            bit(t, "error_req", self.error_req);
            t.bits("status_sent", 32, self.status_sent);
            t.bits("errors_sent", 32, self.errors_sent);
            t.pop_scope();
        }
        self.tx.trace(t);
    }
}
