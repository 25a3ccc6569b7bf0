//! The IGC port in the waveform: scope `igc_port`, whose receive side (the Ring input,
//! `rxfifo` and the Stream Parser's registers, `parser`) is one record, and the message unit's
//! registers (`messages`) and its transmitter's (`tx`) another.

use super::messages::MessageUnit;
use super::parser::StreamParser;
use super::IgcPort;
use crate::ring::trace::{RingInput, RxFifoWave};
use crate::ring::tx::Transmitter;
use crate::trace::{Traced, Tracer, Wave};

#[derive(Wave)]
struct Receive<'a> {
    #[wave(flatten)]
    ring: RingInput<'a>,
    rxfifo: RxFifoWave<'a>,
    parser: &'a StreamParser,
}

#[derive(Wave)]
struct Messages<'a> {
    messages: &'a MessageUnit,
    tx: &'a Transmitter,
}

impl Traced for IgcPort {
    /// The port as scope `igc_port`: its receive side (changes with most Ring words) and its
    /// message unit, two records.
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        t.push_scope("igc_port");
        Receive {
            ring: RingInput(&self.rx),
            rxfifo: RxFifoWave(&self.rx),
            parser: &self.parser,
        }
        .record_group(t);
        let (messages, tx) = (&self.messages, &self.messages.tx);
        Messages { messages, tx }.record_group(t);
        t.pop_scope();
    }
}
