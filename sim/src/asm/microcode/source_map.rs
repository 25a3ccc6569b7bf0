//! Where each store word of an assembled image came from: the source file and line, and the
//! routine and offset of its microinstruction (`MEMplusMEM+3`). The assembler returns it
//! beside the image ([`super::assemble_mapped`], [`super::assemble_files_mapped`]); the
//! listing ([`crate::asm::listing`]) and the microcode author's views use it.
//!
//! A microinstruction's routine is the command whose entry label is the nearest at or before
//! it (the same rule that puts a command's argument names in scope; where several commands
//! share an entry, the first declared names it), and before any entry the nearest label.

use std::fmt;

/// What a store word holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// Word `word` (W0..W3) of microinstruction `uinst`.
    Uinst {
        /// Microinstruction address.
        uinst: u32,
        /// Word within it, 0..=3.
        word: u8,
    },
    /// A command's dispatch entry, set by its `.command` line.
    Dispatch,
    /// A flow-control word (a loop constant, the boolean constants or the mode), set by a
    /// `.fcconst`, `.fcbool` or `.fcmode` line (the last one that set it).
    FlowControl,
}

/// Where one store word came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreSource {
    /// Store address.
    pub addr: u32,
    /// What the word holds.
    pub kind: StoreKind,
    /// Source file, as given to the assembler (e.g. `standard.pp5uc`).
    pub file: String,
    /// 1-based line in `file`. For a flow-control construct (`IF`, `ENDLOOP`, ...) the
    /// construct's own line: each lowers to the one microinstruction at this address.
    pub line: usize,
    /// The routine: for a microinstruction the command it belongs to (or the label before
    /// it), for a dispatch entry its command; None for flow-control words and for
    /// microinstructions before any label.
    pub routine: Option<String>,
    /// The microinstruction's offset from its routine's first one (its address when it has
    /// no routine); 0 for the other words.
    pub offset: u32,
    /// The microinstruction is a lowered flow-control construct.
    pub construct: bool,
}

impl StoreSource {
    /// The routine and offset, `MEMplusMEM+3` (`@12` without a routine).
    pub fn at(&self) -> String {
        match &self.routine {
            Some(r) => format!("{r}+{}", self.offset),
            None => format!("@{}", self.offset),
        }
    }

    /// The source position, `standard.pp5uc:141`.
    pub fn position(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

impl fmt::Display for StoreSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.at(), self.position())
    }
}

/// The sources of an image's store words, one entry per word of `McImage::words`, in the
/// same order: the microinstructions' words first (entry `k` is store address `k`), then the
/// dispatch entries and the flow-control words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// One per store word of the image, in its order.
    pub entries: Vec<StoreSource>,
}

impl SourceMap {
    /// The source of store address `addr`, if the image sets it.
    pub fn get(&self, addr: u32) -> Option<&StoreSource> {
        match self.entries.get(addr as usize) {
            Some(e) if e.addr == addr => Some(e),
            _ => self.entries.iter().find(|e| e.addr == addr),
        }
    }

    /// The source of the microinstruction at microcode address `pc` (its W0's entry).
    pub fn uinst(&self, pc: u32) -> Option<&StoreSource> {
        self.get(pc * pp5_rtl::igc::microinstruction::WORDS_PER_UINST as u32)
    }
}

/// The routines of a microprogram: `(first address, name)`, sorted by address.
pub(super) struct Routines(Vec<(u32, String)>);

impl Routines {
    /// Command entries (`(address, command)`, in declaration order) and, for the code before
    /// the first entry, the labels (in definition order).
    pub fn new(entries: &[(u32, &str)], labels: &[(String, u32)]) -> Self {
        let first_entry = entries.iter().map(|e| e.0).min().unwrap_or(u32::MAX);
        let mut r: Vec<(u32, String)> = Vec::new();
        for &(a, name) in entries {
            if !r.iter().any(|x| x.0 == a) {
                r.push((a, name.to_string()));
            }
        }
        for (l, a) in labels {
            if *a < first_entry && !r.iter().any(|x| x.0 == *a) {
                r.push((*a, l.clone()));
            }
        }
        r.sort_by_key(|x| x.0);
        Routines(r)
    }

    /// The routine of microinstruction `addr` and the offset from its start.
    pub fn of(&self, addr: u32) -> (Option<String>, u32) {
        match self.0.iter().rev().find(|x| x.0 <= addr) {
            Some((a, name)) => (Some(name.clone()), addr - a),
            None => (None, addr),
        }
    }
}
