//! Fuzz target: a whole board fed random Ring words on both ports.
//!
//! The input chooses up to 12 messages for the IGC port and the BS port (opcode words of the
//! standard table with random flags, BS command heads, small numbers, raw words; random
//! destinations and arrival times), TxReady changes and Ring resets, and may plant two
//! errors the seed defines: an IGC message that ends in the middle of a command (formatting
//! error, status bit 29) and a BS message whose first command is bogus (status bit 28). The
//! booted board runs it for at most [`CYCLE_BOUND`] cycles. What must hold: the run
//! invariants ([`super::check_run`]), and a run that finished with no Ring reset on the way
//! and nothing lost to a full RxFIFO has the planted error bits set.

use super::bytes::Bytes;
use pp5_rtl::bs_port::command as bs;
use pp5_rtl::igc::opcode::{
    COEFMODE_SHIFT, F0_SHIFT, FBITS_SHIFT, FBLD_BIT, LONG_BIT, QEEMODE_SHIFT,
};
use pp5_rtl::status::{ST_BS_FORMAT, ST_IGC_FORMAT};
use pp5_sim::engine::StopReason;
use pp5_sim::stream::{Message, Port, RingEvent, RingEventKind, Stream};

/// Cycles a case may run: past one IGC timeout (64K 20 MHz cycles).
pub const CYCLE_BOUND: u64 = 150_000;

/// Latest arrival time or event time the input can choose.
const LATEST: u32 = 40_000;

/// An IGC word: an opcode of the standard table with random flags, a small number, or raw.
fn igc_word(r: &mut Bytes, cmds: &[u8]) -> u32 {
    match r.below(8) {
        0 | 1 => r.u32(),
        2 | 3 => r.below(256),
        _ => {
            let mut w = u32::from(r.pick(cmds))
                | if r.bool() { LONG_BIT } else { 0 }
                | r.below(4) << COEFMODE_SHIFT
                | r.below(4) << QEEMODE_SHIFT
                | r.below(1024) << F0_SHIFT;
            if r.below(8) == 0 {
                w |= FBLD_BIT | r.below(256) << FBITS_SHIFT;
            }
            w
        }
    }
}

/// A BS word: a command head (mostly valid), a small number, or raw.
fn bs_word(r: &mut Bytes) -> u32 {
    match r.below(6) {
        0 => r.u32(),
        1 => r.below(256),
        2 => bs::OP_NOOP + r.pick(&[0, bs::OP_SENDSTATUS, bs::OP_PBS, bs::OP_VIGC]),
        3 => 6 + r.below(10),
        _ => bs::region_word(
            r.pick(&[bs::OP_RECEIVE, bs::OP_TRANSMIT]),
            r.pick(&[0, 1, 2, 127]),
            r.below(128),
            1 + r.below(2),
        ),
    }
}

fn message(port: Port, dest: u32, body: Vec<u32>, at: Option<u64>) -> Message {
    Message {
        at,
        ..Message::new(port, dest, body)
    }
}

/// The stream the input describes, and the status bits it plants.
fn stream(r: &mut Bytes, cmds: &[u8], hanging: u32) -> (Stream, u32) {
    let mut s = Stream::default();
    let mut planted = 0;
    while !r.is_empty() && s.messages.len() < 12 {
        let at = (r.below(4) == 0).then(|| u64::from(r.below(LATEST)));
        let before = s.messages.len();
        match r.below(16) {
            0..=6 => {
                let dest = r.pick(&[0, 0, 0, 1, 2]);
                let body = (0..r.below(48)).map(|_| igc_word(r, cmds)).collect();
                s.messages.push(message(Port::Igc, dest, body, at));
            }
            7..=10 => {
                let dest = bs_word(r);
                let body = (0..r.below(48)).map(|_| bs_word(r)).collect();
                s.messages.push(message(Port::Bs, dest, body, at));
            }
            11 => {
                let at = r.bool().then(|| u64::from(r.below(LATEST)));
                s.events.push(event(RingEventKind::Reset, before, at));
            }
            12 => {
                let port = if r.bool() { Port::Igc } else { Port::Bs };
                let kind = RingEventKind::TxReady {
                    port,
                    ready: r.bool(),
                };
                s.events
                    .push(event(kind, before, Some(u64::from(r.below(LATEST)))));
            }
            13 => {
                // A command left hanging at the end of a message: formatting error.
                let body = vec![hanging];
                s.messages.push(message(Port::Igc, 0, body, at));
                planted |= 1 << ST_IGC_FORMAT;
            }
            14 => {
                // A bogus BS command.
                s.messages
                    .push(message(Port::Bs, 6 + r.below(10), Vec::new(), at));
                planted |= 1 << ST_BS_FORMAT;
            }
            _ => {
                let body = (0..r.below(8)).map(|_| r.u32()).collect();
                s.messages.push(message(Port::Igc, r.u32(), body, at));
            }
        }
    }
    (s, planted)
}

fn event(kind: RingEventKind, before: usize, at: Option<u64>) -> RingEvent {
    RingEvent {
        kind,
        before,
        at,
        line: 0,
    }
}

pub fn check(data: &[u8]) {
    let mut r = Bytes::new(data);
    let mut tb = super::booted().clone();
    let cmds: Vec<u8> = tb.image.table.commands.iter().map(|c| c.cmd).collect();
    // CLEAR's opcode word announces its P word: alone, it hangs.
    let hanging = tb.parse("CLEAR 0 8").messages[0].body[0];
    assert_ne!(hanging & LONG_BIT, 0);
    let (s, planted) = stream(&mut r, &cmds, hanging);
    let start = tb.sim.board.cycle;
    let out = tb.run(&s, CYCLE_BOUND);
    super::check_run(&tb, &out.stop, start, CYCLE_BOUND);
    let b = &tb.sim.board;
    let clean_path = out.stop == StopReason::Done
        && tb.sim.ring.resets_done.is_empty()
        && b.igc_port.rx.rxfifo.overruns == 0
        && b.bs_port.rx.rxfifo.overruns == 0;
    if clean_path {
        assert_eq!(
            b.status() & planted,
            planted,
            "planted error bits {planted:#x} not set: status {:#010x}",
            b.status()
        );
    }
}
