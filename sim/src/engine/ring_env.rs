//! The Ring environment of one board: what arrives on both ports' Ring inputs and when (the
//! queued messages with their arrival times), the Ring resets still to happen, the TxReady
//! schedule, and since when each port's input has been held. The engine asks it for each
//! 20 MHz slot's words; it knows nothing of the board's insides beyond RxReady.

use crate::stream::{Port, RingEventKind, Stream};
use pp5_rtl::clock::RING_DIVIDE;
use pp5_rtl::Renderer;
use std::collections::VecDeque;

/// One Ring message for a port: destination word, then the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingMessage {
    pub dest: u32,
    pub body: Vec<u32>,
}

/// A message waiting in a [`RingSource`].
#[derive(Clone, Debug)]
struct Queued {
    msg: RingMessage,
    /// Not offered before this cycle.
    at: Option<u64>,
    /// Position in the input's file order (Ring resets order against it).
    seq: u64,
}

/// The arrival time of a message held for a Ring model outside the engine (the system
/// study's shared Ring): queued with `at` = `HELD`, it waits (the board sees input to come,
/// its IGC "waiting for Ring input") until [`RingSource::release_next`] gives it a time.
pub const HELD: u64 = u64::MAX;

/// The Ring side of one port: delivers queued messages one word per 20 MHz slot, starting
/// a message only while the port asserts RxReady (seed §III.4.1-3), not before its arrival
/// time, and not past a pending Ring reset.
#[derive(Clone, Debug, Default)]
pub struct RingSource {
    queue: VecDeque<Queued>,
    cur: Option<(RingMessage, usize, u64)>,
    /// Words delivered so far.
    pub delivered: u64,
    /// Words queued in total.
    pub total: u64,
}

impl RingSource {
    /// Queue a message offered as soon as possible.
    pub fn push(&mut self, m: RingMessage) {
        let seq = self.queue.back().map_or(0, |q| q.seq + 1);
        self.push_at(m, None, seq);
    }

    fn push_at(&mut self, m: RingMessage, at: Option<u64>, seq: u64) {
        self.total += 1 + m.body.len() as u64;
        self.queue.push_back(Queued { msg: m, at, seq });
    }

    /// Nothing left to deliver.
    pub fn is_empty(&self) -> bool {
        self.cur.is_none() && self.queue.is_empty()
    }

    /// Whether no message is under way and the next one is [`HELD`] (for a Ring model
    /// outside the engine to release).
    pub fn next_held(&self) -> bool {
        self.cur.is_none() && self.queue.front().is_some_and(|q| q.at == Some(HELD))
    }

    /// Give the next message not yet started the arrival time `at` (a [`HELD`] message
    /// released by a Ring model outside the engine). Returns false when there is none.
    pub fn release_next(&mut self, at: u64) -> bool {
        match self.queue.front_mut() {
            Some(q) => {
                q.at = Some(at);
                true
            }
            None => false,
        }
    }

    /// Words not yet delivered.
    pub fn pending_words(&self) -> u64 {
        self.total - self.delivered
    }

    /// File-order position of the oldest undelivered message.
    pub(crate) fn oldest_seq(&self) -> Option<u64> {
        match &self.cur {
            Some((_, _, seq)) => Some(*seq),
            None => self.queue.front().map(|q| q.seq),
        }
    }

    /// Whether a word can go out in the next Ring slot: the rest of a message under way
    /// (delivered whatever RxReady says, as the Ring does), or a message that may start
    /// (RxReady, its arrival time reached, before any pending Ring reset).
    pub fn can_deliver(&self, rx_ready: bool, now: u64, barrier: u64) -> bool {
        match (&self.cur, self.queue.front()) {
            (Some(_), _) => true,
            (None, Some(q)) => rx_ready && q.seq < barrier && q.at.is_none_or(|a| a <= now),
            (None, None) => false,
        }
    }

    /// The next message waits for its arrival time, later than `now`.
    pub fn waits_for_time(&self, now: u64) -> Option<u64> {
        match (&self.cur, self.queue.front()) {
            (None, Some(q)) => q.at.filter(|&a| a > now),
            _ => None,
        }
    }

    /// This slot's word, if any (`(word, start_of_message)`), and whether the input is held:
    /// it has words to send, sent none, and its next message does not wait for its arrival
    /// time (RxReady is low, or a pending Ring reset at `barrier` holds it). Messages at or
    /// past `barrier` are not started.
    #[inline(always)]
    fn slot(&mut self, rx_ready: bool, now: u64, barrier: u64) -> (Option<(u32, bool)>, bool) {
        if let Some((m, i, _)) = &mut self.cur {
            // The rest of a message under way (its body is never empty).
            let w = m.body[*i];
            *i += 1;
            if *i >= m.body.len() {
                self.cur = None;
            }
            self.delivered += 1;
            return (Some((w, false)), false);
        }
        let Some(q) = self.queue.front() else {
            return (None, self.pending_words() > 0);
        };
        if q.at.is_some_and(|a| a > now) {
            return (None, false);
        }
        if !rx_ready || q.seq >= barrier {
            return (None, self.pending_words() > 0);
        }
        self.start()
    }

    /// Start the next message: its destination word goes out.
    #[inline(never)]
    fn start(&mut self) -> (Option<(u32, bool)>, bool) {
        let Some(q) = self.queue.pop_front() else {
            return (None, false);
        };
        let dest = q.msg.dest;
        if !q.msg.body.is_empty() {
            self.cur = Some((q.msg, 0, q.seq));
        }
        self.delivered += 1;
        (Some((dest, true)), false)
    }
}

/// A Ring reset still to happen.
#[derive(Clone, Copy, Debug)]
pub struct PendingReset {
    /// File-order position: after every earlier message was delivered.
    seq: u64,
    /// The cycle it is due, or `None`: when the board can make no more progress.
    pub at: Option<u64>,
}

/// Both ports' Ring inputs, the Ring resets and the TxReady schedule.
#[derive(Clone, Debug, Default)]
pub struct RingEnv {
    /// The Ring input of the IGC port.
    pub igc: RingSource,
    /// The Ring input of the BS port.
    pub bs: RingSource,
    resets: VecDeque<PendingReset>,
    /// TxReady changes still to happen: (cycle, port, ready), in time order.
    tx_schedule: VecDeque<(u64, Port, bool)>,
    next_seq: u64,
    /// Ring resets carried out: the cycles.
    pub resets_done: Vec<u64>,
    /// Since when each port's Ring input has had words it could not deliver (IGC, BS).
    pub held_since: [Option<u64>; 2],
}

impl RingEnv {
    /// Queue a message for `port`, offered not before cycle `at`.
    pub fn queue_at(&mut self, port: Port, m: RingMessage, at: Option<u64>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        match port {
            Port::Igc => self.igc.push_at(m, at, seq),
            Port::Bs => self.bs.push_at(m, at, seq),
        }
    }

    /// Queue a Ring reset after everything queued so far: at cycle `at`, or (`None`) when
    /// the board can make no more progress.
    pub fn queue_reset(&mut self, at: Option<u64>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.resets.push_back(PendingReset { seq, at });
    }

    /// Schedule a TxReady change of `port` at cycle `at`.
    pub fn schedule_tx_ready(&mut self, at: u64, port: Port, ready: bool) {
        let k = self.tx_schedule.partition_point(|e| e.0 <= at);
        self.tx_schedule.insert(k, (at, port, ready));
    }

    /// Queue a whole stream: its messages for both ports, its resets and TxReady changes.
    pub fn queue_stream(&mut self, stream: &Stream) {
        let mut events = stream.events.iter().peekable();
        for (k, m) in stream.messages.iter().enumerate() {
            while let Some(e) = events.next_if(|e| e.before <= k) {
                self.queue_event(e.kind, e.at);
            }
            let rm = RingMessage {
                dest: m.dest,
                body: m.body.clone(),
            };
            self.queue_at(m.port, rm, m.at);
        }
        for e in events {
            self.queue_event(e.kind, e.at);
        }
    }

    fn queue_event(&mut self, kind: RingEventKind, at: Option<u64>) {
        match kind {
            RingEventKind::Reset => self.queue_reset(at),
            RingEventKind::TxReady { port, ready } => {
                self.schedule_tx_ready(at.unwrap_or(0), port, ready)
            }
        }
    }

    /// Words delivered on both ports, and words in total.
    pub fn progress(&self) -> (u64, u64) {
        (
            self.igc.delivered + self.bs.delivered,
            self.igc.total + self.bs.total,
        )
    }

    /// Nothing more will come: no message on either port, no Ring reset, no TxReady change.
    pub fn exhausted(&self) -> bool {
        self.igc.is_empty()
            && self.bs.is_empty()
            && self.resets.is_empty()
            && self.tx_schedule.is_empty()
    }

    /// Whether a Ring reset is still to happen.
    pub fn resets_pending(&self) -> bool {
        !self.resets.is_empty()
    }

    /// Apply the TxReady changes due at cycle `now` to the board's inputs; returns the ports
    /// whose TxReady changed (bit 0 IGC, bit 1 BS).
    pub fn apply_tx_ready(&mut self, board: &mut Renderer, now: u64) -> u8 {
        let mut changed = 0;
        while self.tx_schedule.front().is_some_and(|e| e.0 <= now) {
            if let Some((_, port, ready)) = self.tx_schedule.pop_front() {
                let (r, k) = match port {
                    Port::Igc => (&mut board.tx_ready_igc, 0),
                    Port::Bs => (&mut board.tx_ready_bs, 1),
                };
                if *r != ready {
                    changed |= 1 << k;
                }
                *r = ready;
            }
        }
        changed
    }

    /// The first pending Ring reset, if every message before it was delivered.
    pub fn reset_due(&self) -> Option<PendingReset> {
        let r = *self.resets.front()?;
        let before = |s: &RingSource| s.oldest_seq().is_none_or(|q| q > r.seq);
        (before(&self.igc) && before(&self.bs)).then_some(r)
    }

    /// Carry out the first pending Ring reset at cycle `now` (the caller resets the board).
    pub fn take_reset(&mut self, now: u64) {
        self.resets.pop_front();
        self.resets_done.push(now);
    }

    /// File-order position of the first pending Ring reset: messages at or past it wait.
    fn barrier(&self) -> u64 {
        self.resets.front().map_or(u64::MAX, |r| r.seq)
    }

    /// In a 20 MHz slot: hand each port the word its Ring input delivers, and note since when
    /// an input with words to send sent none (held by RxReady or a pending reset).
    // Inlined into the engine's step: most slots deliver nothing (nothing queued, or RxReady
    // low with the board behind its input), decided in a few instructions per port.
    #[inline(always)]
    pub fn deliver(&mut self, board: &mut Renderer, now: u64) {
        let barrier = self.barrier();
        let (igc, held) = self.igc.slot(board.rx_ready(), now, barrier);
        if let Some((w, sop)) = igc {
            board.ring_in(w, sop);
        }
        note_held(&mut self.held_since[0], held, now);
        let (bs, held) = self.bs.slot(board.bs_rx_ready(), now, barrier);
        if let Some((w, sop)) = bs {
            board.bs_ring_in(w, sop);
        }
        note_held(&mut self.held_since[1], held, now);
    }

    /// The first cycle from `now` on in which this environment may change the board's
    /// inputs (a word a port can take, a message's arrival time, a TxReady change, a timed
    /// Ring reset): before it, a still board stays still ([`super::Sim::skip_still`]). A
    /// [`HELD`] message waits for the Ring model outside, which limits the skip itself.
    pub fn next_change(&self, board: &Renderer, now: u64) -> u64 {
        let barrier = self.barrier();
        if self.igc.can_deliver(board.rx_ready(), now, barrier)
            || self.bs.can_deliver(board.bs_rx_ready(), now, barrier)
        {
            return now;
        }
        let times = [
            self.tx_schedule.front().map(|e| e.0),
            self.resets.front().and_then(|r| r.at),
            self.igc.waits_for_time(now),
            self.bs.waits_for_time(now),
        ];
        times
            .into_iter()
            .flatten()
            .fold(u64::MAX, u64::min)
            .max(now)
    }

    /// `n` still cycles from `from` passed at once ([`super::Sim::skip_still`]): what
    /// [`RingEnv::deliver`] would note in their Ring slots (no word goes out in them; an
    /// input with words held from the first of them on).
    pub fn still(&mut self, from: u64, n: u64) {
        let slot = from.next_multiple_of(RING_DIVIDE);
        if slot >= from + n {
            return;
        }
        for (since, src) in self.held_since.iter_mut().zip([&self.igc, &self.bs]) {
            let held = src.pending_words() > 0 && src.waits_for_time(slot).is_none();
            note_held(since, held, slot);
        }
    }

    /// Whether input may still come without the board moving: a message waiting for its
    /// arrival time, a TxReady change or a timed Ring reset to come, or a word a port can
    /// take now.
    pub fn input_to_come(&self, board: &Renderer, now: u64) -> bool {
        let barrier = self.barrier();
        self.igc.waits_for_time(now).is_some()
            || self.bs.waits_for_time(now).is_some()
            || !self.tx_schedule.is_empty()
            || self.reset_due().is_some_and(|r| r.at.is_some())
            || self.igc.can_deliver(board.rx_ready(), now, barrier)
            || self.bs.can_deliver(board.bs_rx_ready(), now, barrier)
    }
}

/// Since when an input has been held: from `now` if it is held and was not, none if it is not.
#[inline(always)]
fn note_held(since: &mut Option<u64>, held: bool, now: u64) {
    match (held, *since) {
        (true, None) => *since = Some(now),
        (false, Some(_)) => *since = None,
        _ => {}
    }
}
