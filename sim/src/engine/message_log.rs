//! The messages the board sent onto the Ring (status, error and data messages of both ports),
//! in the order their last word went out. A long run can send without end (a microcode loop
//! of SENDSTATUS), so the log keeps at most its cap and counts the rest ([`MessageLog::total`]).

use super::observer::{Cx, Observer};
use pp5_rtl::renderer::OutMessage;

/// The messages a log keeps when the run does not say otherwise: all.
pub const KEEP_ALL_MESSAGES: usize = usize::MAX;

/// The messages sent: the first `cap` kept, all counted.
#[derive(Clone, Debug)]
pub struct MessageLog {
    kept: Vec<OutMessage>,
    cap: usize,
    /// Every message sent, kept or not.
    pub total: u64,
}

impl MessageLog {
    /// A log keeping the first `cap` messages.
    pub fn new(cap: usize) -> MessageLog {
        MessageLog {
            kept: Vec::new(),
            cap,
            total: 0,
        }
    }

    /// Messages sent but not kept (past the cap).
    pub fn not_kept(&self) -> u64 {
        self.total - self.kept.len() as u64
    }

    /// Forget the kept messages (they are still counted).
    pub fn clear(&mut self) {
        self.kept.clear();
    }
}

impl Observer for MessageLog {
    #[inline]
    fn cycle_end(&mut self, cx: &mut Cx) {
        for m in &cx.board.tx {
            self.total += 1;
            if self.kept.len() < self.cap {
                self.kept.push(m.clone());
            }
        }
    }
}

impl std::ops::Deref for MessageLog {
    type Target = [OutMessage];
    fn deref(&self) -> &[OutMessage] {
        &self.kept
    }
}

impl<'a> IntoIterator for &'a MessageLog {
    type Item = &'a OutMessage;
    type IntoIter = std::slice::Iter<'a, OutMessage>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
