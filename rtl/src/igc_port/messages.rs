//! The IGC port's outgoing messages: status messages (SENDSTATUS) and error messages
//! (seed 003 §III.4.1-5).
//!
//! "When the IGC receives a IGC_SENDSTATUS command, it (1) waits for any pending status or
//! error message transmission to complete, (2) latches the return address, status message ID,
//! and status word into the status transmitter, and (3) tells the transmitter to begin
//! transmitting." Error messages "are always transmitted from the IGC Port [...] sent to Ring
//! address 0"; the OR of the error strobes requests one; "it will wait for any status message
//! to be sent out for which the IGC_SENDSTATUS command has completed"; "additional errors
//! which occur while the first error message is being transmitted will cause additional error
//! messages".
//!
//! Model (docs/model-choices.md, "Status and error messages"): one latched status message and
//! one error-request flip-flop. A latched status message goes out before a requested error
//! message. Strobes while an error request is still waiting merge into that request (its
//! status word, sampled when its transmission starts, carries every sticky bit set so far);
//! strobes while an error message is being sent request another.

use crate::ring::tx::{MsgKind, OutMessage, Transmitter};
use crate::ring::PortId;
use crate::trace::Wave;

/// Ring address error messages go to (seed §III.4.1-5).
pub const ERROR_MESSAGE_DEST: u32 = 0;

/// The message unit's registers, in the order the waveform shows them (scope `messages`).
#[derive(Clone, Debug, Wave)]
#[wave(part)]
pub struct MessageUnit {
    /// A status message latched by SENDSTATUS and not yet started.
    #[wave(rename = "status_latched", ty = bool, get = self.latched.is_some())]
    pub latched: Option<[u32; 3]>,
    /// An error message is requested.
    pub error_req: bool,
    /// Status messages sent, error messages sent, since reset.
    #[wave(bits = 32)]
    pub status_sent: u64,
    #[wave(bits = 32)]
    pub errors_sent: u64,
    /// The words of the message being sent (destination, ID, status word).
    #[wave(skip)]
    cur: [u32; 3],
    #[wave(skip)]
    pub tx: Transmitter,
}

impl Default for MessageUnit {
    fn default() -> Self {
        MessageUnit {
            tx: Transmitter::new(PortId::Igc),
            latched: None,
            error_req: false,
            cur: [0; 3],
            status_sent: 0,
            errors_sent: 0,
        }
    }
}

impl MessageUnit {
    /// A status or error message waits or is being sent (SENDSTATUS must wait).
    pub fn pending(&self) -> bool {
        self.tx.busy() || self.latched.is_some() || self.error_req
    }

    /// SENDSTATUS: latch a status message (only when not [`MessageUnit::pending`]).
    pub fn latch_status(&mut self, dest: u32, id: u32, status: u32) {
        self.latched = Some([dest, id, status]);
    }

    /// The OR of this cycle's error strobes: request an error message.
    pub fn request_error(&mut self) {
        self.error_req = true;
    }

    /// One 40 MHz cycle (after the board's other blocks): start the next message when idle,
    /// send a word when the Ring allows. `status` is the current status word (an error
    /// message's is sampled when it starts), `error_id` its ID word.
    pub fn clock(
        &mut self,
        cycle: u64,
        ring_slot: bool,
        status: u32,
        error_id: u32,
        sent: &mut Vec<OutMessage>,
    ) {
        if !self.tx.busy() {
            if let Some(words) = self.latched.take() {
                self.cur = words;
                self.tx.begin(MsgKind::Status, 3);
            } else if self.error_req {
                self.error_req = false;
                self.cur = [ERROR_MESSAGE_DEST, error_id, status];
                self.tx.begin(MsgKind::Error, 3);
            }
        }
        if self.tx.slot(ring_slot) {
            let w = self.cur[self.tx.next_index().min(2)];
            if let Some(m) = self.tx.send(cycle, w) {
                match m.kind {
                    MsgKind::Error => self.errors_sent += 1,
                    _ => self.status_sent += 1,
                }
                sent.push(m);
            }
        }
    }
}
