//! The IGC in the waveform: scope `igc` (the sequencer, the registers a command loads, the
//! latched command's name, the counters, the executed microinstruction `uinst`) and the
//! flow-control unit's `fc`. The registers are records, decoded on the writer's thread.

use super::microinstruction::{self, BSrc};
use super::opcode::OpcodeWord;
use super::{Igc, IgcState};
use crate::trace::{bit, words, DecodeWith, Tracer};
use std::sync::Arc;

impl IgcState {
    /// All states, in code order (see [`IgcState::code`]).
    pub const ALL: [IgcState; 8] = [
        IgcState::RMode,
        IgcState::Run,
        IgcState::WaitCmd,
        IgcState::Hang,
        IgcState::Fault,
        IgcState::WaitXfer,
        IgcState::WaitSem,
        IgcState::WaitTx,
    ];

    /// A number per state (the waveform record carries it; [`IgcState::ALL`] maps it back).
    #[inline]
    pub fn code(self) -> u64 {
        // The declaration order is `ALL`'s (a test checks it).
        self as u64
    }
}

// `IgcState::code` is the declaration order, which must be `ALL`'s.
const _: () = {
    let mut k = 0;
    while k < IgcState::ALL.len() {
        assert!(IgcState::ALL[k] as usize == k);
        k += 1;
    }
};

/// Per microinstruction address: `(routine+offset, file:line)` ([`IgcNames::set_uinsts`]).
pub type UinstNames = Arc<[(Box<str>, Box<str>)]>;

/// The names the waveform shows in the IGC's scope beside its registers: simulation
/// annotations from the microcode's assembly, kept by whoever walks the board (the
/// waveform's context, `renderer::TraceCtx`), not hardware state. Each is a decode function
/// over the table it names by (the record carries the number): fix them before the first
/// walk.
#[derive(Clone)]
pub struct IgcNames {
    /// `command`: the latched command's name by its dispatch index.
    command: DecodeWith,
    /// `uinst.at` and `.src`, by the executed microinstruction's address; `None`: the
    /// microcode's sources are unknown, and so are those signals.
    uinst: Option<DecodeWith>,
}

impl Default for IgcNames {
    fn default() -> Self {
        let mut names = IgcNames {
            command: Arc::new(|_, _| {}),
            uinst: None,
        };
        names.set_commands(Arc::from([]));
        names
    }
}

impl std::fmt::Debug for IgcNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IgcNames")
            .field("uinst", &self.uinst.is_some())
            .finish_non_exhaustive()
    }
}

impl IgcNames {
    /// The commands' names by dispatch index (the opcode's `cmd` field), from the opcode table
    /// the microcode was assembled with, shown as `renderer.igc.command`
    /// (docs/model-choices.md, "Waveform annotations"). An empty or missing name shows as
    /// `CMD_0x..`.
    pub fn set_commands(&mut self, names: Arc<[Box<str>]>) {
        self.command = Arc::new(move |w, t| {
            let cmd = w.first().copied().unwrap_or(0) as u8;
            match names.get(usize::from(cmd)) {
                Some(name) if !name.is_empty() => t.text("command", name),
                _ => t.text("command", &format!("CMD_0x{cmd:02x}")),
            }
        });
    }

    /// Where each microinstruction came from in the microcode's sources, by address: its
    /// routine and offset (`MEMplusMEM+3`) and its source position (`standard.pp5uc:141`),
    /// shown as `renderer.igc.uinst.at` and `.src` (docs/microcode.md, "Debugging
    /// microcode"). Empty: no such signals.
    pub fn set_uinsts(&mut self, names: UinstNames) {
        self.uinst = (!names.is_empty()).then(|| -> DecodeWith {
            Arc::new(move |w, t| {
                let pc = w.first().copied().unwrap_or(0) as usize;
                let (at, src) = names.get(pc).map_or(("", ""), |(a, s)| (&**a, &**s));
                t.text("at", at);
                t.text("src", src);
            })
        });
    }
}

impl Igc {
    /// Trace the IGC as scope `igc`, with the names of `names` and the flow-control unit's
    /// scope keyed by `fc_key` (`renderer::TraceCtx::keys`).
    #[inline]
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, names: &IgcNames, fc_key: u64) {
        t.push_scope("igc");
        // The registers that change every cycle are handed over as records, decoded on the
        // waveform writer's thread (rtl/src/trace.rs).
        t.record_group(
            &[self.state.code() | (self.pc as u64) << 8 | (self.last_pc as u64) << 24],
            decode_sequencer,
        );
        // The registers a command loads change at dispatch, not every cycle.
        let loaded = [
            self.opcode as u64 | (self.pword as u64) << 32,
            self.opr
                .iter()
                .enumerate()
                .fold(0u64, |k, (n, &v)| k | (v as u64 & 0xff) << (8 * n))
                | (self.fbits as u64) << 40
                | (self.indicator as u64) << 48,
            self.sca() as u64 | self.commands << 32,
        ];
        t.record_group(&loaded, decode_loaded);
        // The latched command's name, by its dispatch index.
        t.record_with(&[u64::from(OpcodeWord(self.opcode).cmd())], &names.command);
        t.record_group(&[self.i as u64 | (self.l as u64) << 8], decode_counters);
        // Everything in `uinst` follows from the words the executed microinstruction was
        // decoded from and the store's words at its address now.
        let pack = |w: [u32; 4]| {
            [
                w[0] as u64 | (w[1] as u64) << 32,
                w[2] as u64 | (w[3] as u64) << 32,
            ]
        };
        let [l0, l1] = pack(self.last_words);
        // No store write since the fetch: the store still holds the fetched words.
        let [c0, c1] = if self.last_fetch == Some(self.store.writes) {
            [l0, l1]
        } else {
            pack(self.store.uinst_words(self.last_pc))
        };
        t.push_scope("uinst");
        t.record_group(&[l0, l1, c0, c1], decode_uinst);
        // Where the microinstruction at `pc` came from: the one the IGC executes in the
        // cycle this sample shows (the report's cycle numbers the same cycles; `upc` and the
        // fields above are the one it executed in the cycle before).
        if let Some(uinst) = &names.uinst {
            t.record_with(&[u64::from(self.pc)], uinst);
        }
        t.pop_scope();
        self.fc.trace(t, fc_key);
        t.pop_scope();
    }
}

/// `state`, `rmode`, `pc`, `upc` from their record.
fn decode_sequencer(w: &[u64], t: &mut dyn Tracer) {
    let [w0] = words(w);
    let state = IgcState::ALL
        .get((w0 & 0xff) as usize)
        .copied()
        .unwrap_or(IgcState::RMode);
    t.text_static("state", state.name());
    bit(t, "rmode", state == IgcState::RMode);
    t.bits("pc", 11, (w0 >> 8) & 0xffff);
    t.bits("upc", 11, (w0 >> 24) & 0xffff);
}

/// The registers a command loads, from their record.
fn decode_loaded(w: &[u64], t: &mut dyn Tracer) {
    let [w0, w1, w2] = words(w);
    let opcode = w0 & 0xffff_ffff;
    t.bits("cmd", 8, opcode & 0xff);
    t.bits("opcode", 32, opcode);
    t.bits("pword", 32, w0 >> 32);
    for (n, name) in ["opr0", "opr1", "opr2", "opr3", "opr4"].iter().enumerate() {
        t.bits(name, 8, (w1 >> (8 * n)) & 0xff);
    }
    t.bits("sca", 32, w2 & 0xffff_ffff);
    t.bits("fbits", 5, (w1 >> 40) & 0xff);
    bit(t, "indicator", (w1 >> 48) & 1 != 0);
    t.bits("commands", 32, w2 >> 32);
}

/// The bit counter and the loop counter, from their record.
fn decode_counters(w: &[u64], t: &mut dyn Tracer) {
    let [w0] = words(w);
    t.bits("i", 8, w0 & 0xff);
    t.bits("l", 8, (w0 >> 8) & 0xff);
}

/// The executed microinstruction's fields by name and the store words at its address.
fn decode_uinst(w: &[u64], t: &mut dyn Tracer) {
    let word = |k: usize| {
        let v = w.get(k / 2).copied().unwrap_or(0);
        (if k.is_multiple_of(2) { v } else { v >> 32 }) as u32
    };
    let m = microinstruction::decode(&[word(0), word(1), word(2), word(3)]).unwrap_or_default();
    t.text_static("seq", m.seq.name());
    t.text_static("misc", m.misc.name());
    t.bits("target", 11, m.target as u64);
    t.bits("lut_r", 8, m.lut_r as u64);
    t.bits("lut_c", 8, m.lut_c as u64);
    t.bits("lut_e", 4, m.lut_e as u64);
    bit(t, "mem_we", m.mem_we);
    bit(t, "cry_we", m.cry_we);
    bit(t, "en_we", m.en_we);
    bit(t, "wr_all", m.wr_all);
    t.text_static(
        "b_src",
        match m.b_src {
            BSrc::Zero => "0",
            BSrc::Mem => "MEM",
            BSrc::Sca => "SCA",
            BSrc::Enable => "ENABLE",
            BSrc::Tree => "TREE",
            BSrc::One => "1",
        },
    );
    for (k, name) in ["w0", "w1", "w2", "w3"].iter().enumerate() {
        t.bits(name, 32, word(4 + k) as u64);
    }
}
