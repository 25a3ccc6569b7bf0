//! The messages the board sent onto the Ring (status, error and data messages of both ports),
//! in the order their last word went out. A long run can send without end (a microcode loop
//! of SENDSTATUS), so the log keeps at most its cap of messages, and of their words together
//! ([`crate::records::MAX_REPORT_MESSAGE_WORDS`]), and counts the rest
//! ([`MessageLog::total`]).

use super::observer::{Cx, Observer};
use pp5_rtl::renderer::OutMessage;
use std::sync::{Arc, Mutex};

/// Where every message the board sends is written as it is sent (`pp5 run --tx-out`), so
/// that none has to be kept for it. The first error stops the writing and is kept
/// ([`MessageLog::sink_error`]).
#[derive(Clone)]
pub struct TxSink(pub Arc<Mutex<WriteMessage>>);

/// Writes one message somewhere.
pub type WriteMessage = dyn FnMut(&OutMessage) -> std::io::Result<()> + Send;

impl std::fmt::Debug for TxSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TxSink")
    }
}

/// The messages a log keeps when the run does not say otherwise: all.
pub const KEEP_ALL_MESSAGES: usize = usize::MAX;

/// The messages sent: the first ones kept, up to `cap` messages and `word_cap` words
/// together; all counted.
#[derive(Clone, Debug)]
pub struct MessageLog {
    kept: Vec<OutMessage>,
    cap: usize,
    /// Words the kept messages hold.
    words: usize,
    word_cap: usize,
    /// A message did not fit: the ones after it are not kept either (the log keeps a
    /// prefix of what was sent).
    full: bool,
    /// Every message sent, kept or not.
    pub total: u64,
    /// Where every message is written as it is sent, if anywhere.
    sink: Option<TxSink>,
    /// The first error writing to the sink (the writing stopped there).
    pub sink_error: Option<String>,
}

impl MessageLog {
    /// A log keeping the first `cap` messages, and with any cap but [`KEEP_ALL_MESSAGES`] at
    /// most [`crate::records::MAX_REPORT_MESSAGE_WORDS`] words of them.
    pub fn new(cap: usize) -> MessageLog {
        let word_cap = if cap == KEEP_ALL_MESSAGES {
            usize::MAX
        } else {
            crate::records::MAX_REPORT_MESSAGE_WORDS
        };
        MessageLog {
            kept: Vec::new(),
            cap,
            words: 0,
            word_cap,
            full: false,
            total: 0,
            sink: None,
            sink_error: None,
        }
    }

    /// Write every message to `sink` as it is sent (besides keeping the first ones).
    pub fn set_sink(&mut self, sink: TxSink) {
        self.sink = Some(sink);
    }

    /// Messages sent but not kept (past the cap).
    pub fn not_kept(&self) -> u64 {
        self.total - self.kept.len() as u64
    }

    /// Forget the kept messages (they are still counted); the log keeps again.
    pub fn clear(&mut self) {
        self.kept.clear();
        self.words = 0;
        self.full = false;
    }

    /// Keep `m` if it fits (and none before it was left out), count it either way, and
    /// write it to the sink.
    fn push(&mut self, m: &OutMessage) {
        if let (Some(sink), None) = (&self.sink, &self.sink_error) {
            let r = match sink.0.lock() {
                Ok(mut write) => write(m),
                Err(_) => Err(std::io::Error::other("the message writer panicked")),
            };
            if let Err(e) = r {
                self.sink_error = Some(e.to_string());
            }
        }
        self.total += 1;
        self.full |= self.kept.len() >= self.cap || self.words + m.words.len() > self.word_cap;
        if !self.full {
            self.words += m.words.len();
            self.kept.push(m.clone());
        }
    }
}

impl Observer for MessageLog {
    #[inline]
    fn cycle_end(&mut self, cx: &mut Cx) {
        for m in &cx.board.tx {
            self.push(m);
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

#[cfg(test)]
mod tests {
    use super::*;
    use pp5_rtl::ring::tx::MsgKind;
    use pp5_rtl::ring::PortId;

    fn msg(words: usize) -> OutMessage {
        OutMessage {
            port: PortId::Bs,
            kind: MsgKind::Data,
            start: 0,
            end: 0,
            words: vec![0; words],
        }
    }

    /// The kept messages are bounded in words as well as in number (issue 38 item 4: 10,000
    /// BS_TRANSMIT replies kept 655 MB), and what is kept is a prefix of what was sent.
    #[test]
    fn kept_messages_are_bounded_in_words() {
        let mut log = MessageLog::new(10_000);
        let big = 16_385;
        let n = crate::records::MAX_REPORT_MESSAGE_WORDS / big;
        for _ in 0..n + 10 {
            log.push(&msg(big));
        }
        log.push(&msg(1));
        assert_eq!(log.len(), n);
        assert_eq!(log.total, n as u64 + 11);
        assert_eq!(log.not_kept(), 11);
        // With every message asked for (--tx-out), every one is kept.
        let mut all = MessageLog::new(KEEP_ALL_MESSAGES);
        for _ in 0..n + 10 {
            all.push(&msg(big));
        }
        assert_eq!(all.len(), n + 10);
    }
}
