//! What a run records of its commands for the timing report: one record per IGC command and
//! per BS port command, the cycles of every block by cause, the backing-store transfers, and
//! per-command-name totals counted as each command ends. [`Keep`] says how many records a run
//! keeps: `pp5 run`'s table prints a few rows and the totals, so it keeps only the first
//! rows and its memory does not grow with the stream (issue 21, item 5).

use pp5_rtl::cause::Cause;
use pp5_rtl::igc::microinstruction::NUM_OPR;
use serde::Serialize;
use std::sync::Arc;

/// Cycles by [`Cause`], for the timing report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CauseCounts(pub [u64; 7]);

impl CauseCounts {
    /// Count one cycle.
    #[inline]
    pub fn add(&mut self, c: Cause) {
        self.0[c as usize] += 1;
    }

    /// Add `n` cycles of one cause.
    pub fn add_n(&mut self, c: Cause, n: u64) {
        self.0[c as usize] += n;
    }

    /// Cycles of one cause.
    pub fn get(&self, c: Cause) -> u64 {
        self.0[c as usize]
    }

    /// Add another count's cycles.
    pub fn merge(&mut self, other: &CauseCounts) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }

    /// All cycles counted.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The cycles counted since `earlier` (a copy of this count taken before).
    pub fn since(&self, earlier: &CauseCounts) -> CauseCounts {
        CauseCounts(std::array::from_fn(|k| {
            self.0[k].saturating_sub(earlier.0[k])
        }))
    }

    /// Cycles spent waiting for the board: a semaphore, a transfer, the transmitter (the
    /// `waited` column of the table).
    pub fn waited(&self) -> u64 {
        self.get(Cause::SemWait) + self.get(Cause::XferStall) + self.get(Cause::TxHold)
    }
}

impl Serialize for CauseCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(Cause::ALL.len()))?;
        for c in Cause::ALL {
            m.serialize_entry(c.name(), &self.get(c))?;
        }
        m.end()
    }
}

/// Every cycle of each block, attributed to a cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BlockCauses {
    /// The IGC (executing, waiting on PIGC, BSWAIT/transfer, SENDSTATUS, for commands).
    pub igc: CauseCounts,
    /// The BS port's command processor and transmitter.
    pub bs_port: CauseCounts,
    /// The transfer unit (executing = a transfer in progress).
    pub transfer: CauseCounts,
    /// The IGC port's transmitter (status and error messages).
    pub igc_tx: CauseCounts,
    /// Cycles in which two blocks worked at once: what the transfer unit and the BS port
    /// buy by running beside the IGC.
    pub overlap: Overlap,
}

/// Cycles in which two blocks were both executing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Overlap {
    /// The IGC executed while a backing-store transfer ran.
    pub igc_and_transfer: u64,
    /// The IGC executed while the BS port executed a command (receiving, transmitting).
    pub igc_and_bs_port: u64,
    /// A transfer ran while the BS port executed a command.
    pub transfer_and_bs_port: u64,
}
/// The most command records a report keeps per port (`pp5 run --report json|csv`, or the
/// table with `--rows 0`): about 200 bytes each, so at most some 20 MB however long the run;
/// the records past it are counted (`not_kept`) and in the per-name totals.
pub const MAX_REPORT_RECORDS: usize = 100_000;

/// The most messages the board sent that `pp5 run` keeps for its report (about 240 bytes
/// each, with their words); the rest are counted. With `--tx-out` every message is kept, for
/// the file.
pub const MAX_REPORT_MESSAGES: usize = 10_000;

/// The most Ring words the kept messages hold together (4 bytes each: 4 MiB), whatever
/// their number: 10,000 `BS_TRANSMIT` replies of 16,385 words would otherwise keep 655 MB.
/// The messages past it are counted as those past [`MAX_REPORT_MESSAGES`] are.
pub const MAX_REPORT_MESSAGE_WORDS: usize = 1 << 20;

/// How many command records a run keeps ([`crate::engine::SimOptions::keep`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// Every record (JSON and CSV reports, testbenches, Python).
    #[default]
    All,
    /// The first `n` records of the user's commands on each port (the boot's are not kept);
    /// the others are counted ([`NameTally`], the `*_not_kept` counts) and dropped as they end.
    First(usize),
}

/// Counts which records a log keeps under its [`Keep`] rule (one per log: IGC, BS port).
#[derive(Clone, Copy, Debug)]
pub struct Keeper {
    keep: Keep,
    kept: usize,
    /// Records of the user's commands not kept.
    pub not_kept: u64,
}

impl Keeper {
    /// Nothing kept yet.
    pub fn new(keep: Keep) -> Keeper {
        Keeper {
            keep,
            kept: 0,
            not_kept: 0,
        }
    }

    /// Whether the record of a command that just ended is kept (a boot command's never is
    /// under [`Keep::First`]), counting it as kept or not.
    pub fn keeps(&mut self, boot: bool) -> bool {
        match self.keep {
            Keep::All => true,
            Keep::First(_) if boot => false,
            Keep::First(n) if self.kept < n => {
                self.kept += 1;
                true
            }
            Keep::First(_) => {
                self.not_kept += 1;
                false
            }
        }
    }
}

/// The user's commands of one name: how many ended, their cycles and the cycles they waited.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NameTally {
    pub name: String,
    pub count: u64,
    pub cycles: u64,
    pub waited: u64,
}

/// Per-name totals in the order names first appear, found by the command's dispatch byte
/// (one name per byte), so counting a command costs no search.
#[derive(Clone, Debug)]
pub struct Tally {
    names: Vec<NameTally>,
    /// `slot[cmd]` = 1 + the index in `names` of the command byte's entry (0: none yet).
    slot: [u16; 256],
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            names: Vec::new(),
            slot: [0; 256],
        }
    }
}

impl Tally {
    /// Count a command record (its dispatch byte is bits 7:0 of its opcode word).
    pub fn add(&mut self, r: &CommandRecord) {
        let cmd = (r.opcode & 0xff) as usize;
        let k = match self.slot[cmd] {
            0 => {
                self.names.push(NameTally {
                    name: r.name.to_string(),
                    ..NameTally::default()
                });
                self.slot[cmd] = self.names.len() as u16;
                self.names.len() - 1
            }
            s => usize::from(s) - 1,
        };
        let t = &mut self.names[k];
        t.count += 1;
        t.cycles += r.cycles;
        t.waited += r.causes.waited();
    }

    /// The totals, in the order the names first appeared.
    pub fn names(&self) -> &[NameTally] {
        &self.names
    }
}

/// One BS port command, for the timing report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BsCommandRecord {
    /// Sequence number among the BS commands.
    pub index: u64,
    /// The macro name (BS_RECEIVE, ...).
    pub name: String,
    /// Its first word.
    pub word: u32,
    /// Cycle its first word was read.
    pub start: u64,
    /// Cycles until the port was ready for the next command.
    pub cycles: u64,
    /// Those cycles by cause.
    pub causes: CauseCounts,
}

/// One backing-store transfer, for the timing report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TransferRecord {
    /// `LOAD` (BSLOAD) or `STORE` (BSSTORE).
    pub dir: &'static str,
    pub sector: u8,
    /// Cycle of its first step, and of its last (`None` while it runs).
    pub start: u64,
    pub end: Option<u64>,
}

/// One executed command, for the timing report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommandRecord {
    /// Sequence number among all commands taken.
    pub index: u64,
    /// Mnemonic from the opcode table (or `CMD 0x..`): shared by the records of one name,
    /// so logging a command allocates nothing.
    pub name: CommandName,
    /// Operand registers as latched.
    pub operands: Operands,
    pub opcode: u32,
    /// First cycle of its routine.
    pub start: u64,
    /// Cycles from its first microinstruction through its dispatching one.
    pub cycles: u64,
    /// Part of the microcode boot sequence.
    pub boot: bool,
    /// Its cycles by cause (executing, waiting on a semaphore, a transfer, the transmitter).
    pub causes: CauseCounts,
}

/// A command's name, shared by the records of that name (cloning it allocates nothing).
/// Reads as a `str`; compares, prints and serialises as the string it is.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CommandName(Arc<str>);

impl CommandName {
    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for CommandName {
    fn from(s: String) -> CommandName {
        CommandName(s.into())
    }
}

impl std::ops::Deref for CommandName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for CommandName {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for CommandName {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl std::fmt::Display for CommandName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Debug for CommandName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl Serialize for CommandName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// A command's operand registers as latched (as many as its opcode table entry has, at most
/// the IGC's [`NUM_OPR`]), held inline: a record allocates nothing. Reads as a slice.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Operands {
    regs: [u32; NUM_OPR],
    len: u8,
}

impl Operands {
    /// The first `n` of the registers `opr` (all of them when `n` is larger).
    pub fn latched(opr: &[u32; NUM_OPR], n: usize) -> Operands {
        let len = n.min(NUM_OPR);
        let mut regs = [0; NUM_OPR];
        regs[..len].copy_from_slice(&opr[..len]);
        Operands {
            regs,
            len: len as u8,
        }
    }

    /// The operands, in order.
    pub fn as_slice(&self) -> &[u32] {
        &self.regs[..usize::from(self.len)]
    }
}

impl std::ops::Deref for Operands {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        self.as_slice()
    }
}

impl std::fmt::Debug for Operands {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl Serialize for Operands {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}
