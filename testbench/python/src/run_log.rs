//! What a `Board` keeps of its runs, with memory bounded whatever their length (issue 27
//! item 1): the engine's logs are emptied after every chunk of cycles into a [`RunLog`] (the
//! current run's first [`MAX_RECORDS`] IGC and BS command records and first
//! [`MAX_MESSAGES`] messages, the rest counted) and the board's own first [`MAX_MESSAGES`]
//! messages (`Board.sent`), the caps of `pp5 run --report json`.

use pp5_rtl::renderer::OutMessage;
use pp5_sim::engine::{BsCommandRecord, CommandRecord, Sim};

/// The most IGC command records, and BS command records, one run's `Outcome` keeps: as
/// `pp5 run --report json` (about 200 bytes each, some 20 MB).
pub const MAX_RECORDS: usize = pp5_sim::records::MAX_REPORT_RECORDS;

/// The most Ring messages one run's `Outcome` keeps, and `Board.sent` (about 240 bytes each).
pub const MAX_MESSAGES: usize = pp5_sim::records::MAX_REPORT_MESSAGES;

/// The most Ring words those messages hold together (4 MiB each list).
pub const MAX_MESSAGE_WORDS: usize = pp5_sim::records::MAX_REPORT_MESSAGE_WORDS;

/// The first items pushed, at most `cap` of them and at most `max_weight` of their weight
/// together (a message's words), and how many more there were. What is kept is a prefix:
/// after one item did not fit, none is kept.
#[derive(Clone, Debug)]
pub struct Capped<T> {
    pub kept: Vec<T>,
    pub not_kept: u64,
    cap: usize,
    weight: usize,
    max_weight: usize,
}

impl<T> Capped<T> {
    /// At most `cap` items.
    pub fn new(cap: usize) -> Capped<T> {
        Capped {
            kept: Vec::new(),
            not_kept: 0,
            cap,
            weight: 0,
            max_weight: usize::MAX,
        }
    }

    /// Keep `items` but their first `*skip` (records that ended before this run), and take
    /// those off `*skip`.
    pub fn push_after(&mut self, items: Vec<T>, skip: &mut usize) {
        let n = (*skip).min(items.len());
        *skip -= n;
        items.into_iter().skip(n).for_each(|r| self.push(r));
    }

    /// Keep `item` if there is room, else count it.
    pub fn push(&mut self, item: T) {
        self.push_weighing(item, 0);
    }

    /// Keep `item` of weight `w` if there is room, else count it.
    pub fn push_weighing(&mut self, item: T, w: usize) {
        let full = self.not_kept > 0
            || self.kept.len() >= self.cap
            || self.weight.saturating_add(w) > self.max_weight;
        if full {
            self.not_kept += 1;
        } else {
            self.weight += w;
            self.kept.push(item);
        }
    }
}

impl Capped<OutMessage> {
    /// Messages: at most [`MAX_MESSAGES`] and [`MAX_MESSAGE_WORDS`] words of them, as
    /// `pp5 run`'s report keeps.
    pub fn messages() -> Self {
        Capped {
            max_weight: MAX_MESSAGE_WORDS,
            ..Capped::new(MAX_MESSAGES)
        }
    }

    /// Keep a message by its words.
    pub fn push_message(&mut self, m: &OutMessage) {
        self.push_weighing(m.clone(), m.words.len());
    }
}

/// One run's records, as the engine hands them over.
#[derive(Clone, Debug)]
pub struct RunLog {
    /// Records still in the engine's logs when the run started (a command under way): they
    /// belong to an earlier run, and are skipped when they end.
    skip_commands: usize,
    skip_bs: usize,
    pub commands: Capped<CommandRecord>,
    pub bs_commands: Capped<BsCommandRecord>,
    pub sent: Capped<OutMessage>,
}

impl RunLog {
    /// A run starting on `sim`, whose ended records were collected already.
    pub fn start(sim: &Sim) -> RunLog {
        RunLog {
            skip_commands: sim.commands.len(),
            skip_bs: sim.bs_commands.len(),
            commands: Capped::new(MAX_RECORDS),
            bs_commands: Capped::new(MAX_RECORDS),
            sent: Capped::messages(),
        }
    }

    /// Move the records of the commands that ended and the messages sent out of the engine's
    /// logs: into this run's (the first ones kept) and the board's messages `board_sent`.
    pub fn collect(&mut self, sim: &mut Sim, board_sent: &mut Capped<OutMessage>) {
        self.commands
            .push_after(sim.take_ended_commands(), &mut self.skip_commands);
        self.bs_commands
            .push_after(sim.bs_commands.take_ended(), &mut self.skip_bs);
        for m in sim.tx.iter() {
            self.sent.push_message(m);
            board_sent.push_message(m);
        }
        sim.tx.clear();
    }

    /// The commands still under way at the end of the run that started in it (a stuck
    /// command, one cut by the cycle limit): their records so far, after the ended ones.
    pub fn open_commands<'s>(&self, sim: &'s Sim) -> (&'s [CommandRecord], &'s [BsCommandRecord]) {
        let c = &sim.commands[self.skip_commands.min(sim.commands.len())..];
        let b = &sim.bs_commands[self.skip_bs.min(sim.bs_commands.len())..];
        (c, b)
    }
}
