//! The IGC in the waveform: scope `igc` (the sequencer, the registers a command loads, the
//! latched command's name, the counters, the executed microinstruction `uinst`) and the
//! flow-control unit's `fc`. The registers are records, decoded on the writer's thread.

use super::microinstruction;
use super::opcode::OpcodeWord;
use super::{Igc, IgcNames, IgcState};
use crate::trace::{get, part, Tracer, Wave, WaveEnum};

/// `state`, `rmode`, `pc`, `upc`: the registers that change every cycle.
#[derive(Wave)]
struct Sequencer {
    #[wave(name, then(rmode: 1 = state == IgcState::RMode))]
    state: IgcState,
    #[wave(bits = 11)]
    pc: u16,
    #[wave(bits = 11)]
    upc: u16,
}

/// The registers a command loads: they change at dispatch, not every cycle.
#[derive(Wave)]
struct Loaded {
    #[wave(bits = 32, before(cmd: 8 = opcode & 0xff))]
    opcode: u32,
    pword: u32,
    #[wave(bits = 8, each = "opr{}")]
    opr: [u32; 5],
    sca: u32,
    #[wave(bits = 5)]
    fbits: u8,
    indicator: bool,
    #[wave(bits = 32)]
    commands: u64,
}

/// The bit counter and the loop counter.
#[derive(Wave)]
struct Counters {
    i: u8,
    l: u8,
}

/// The executed microinstruction (`uinst`): its fields by name, decoded from the words it
/// was fetched as, and the store's words at its address now.
#[derive(Wave)]
struct Uinst {
    #[wave(flatten)]
    fetched: Fetched,
    #[wave(bits = 32, each = "w{}")]
    store: [u32; 4],
}

/// A microinstruction's words, shown as its fields.
struct Fetched([u32; 4]);

impl Wave for Fetched {
    const BITS: u32 = 128;
    #[inline(always)]
    fn word(&self, at: u32, k: usize) -> u64 {
        let [a, b, c, d] = self.0.map(u64::from);
        part(a, at, 32, k)
            | part(b, at + 32, 32, k)
            | part(c, at + 64, 32, k)
            | part(d, at + 96, 32, k)
    }
    fn show(w: &[u64], at: u32, _: &str, t: &mut dyn Tracer) {
        let words = std::array::from_fn(|k| get(w, at + 32 * k as u32, 32) as u32);
        let m = microinstruction::decode(&words).unwrap_or_default();
        t.text_static("seq", m.seq.name());
        t.text_static("misc", m.misc.name());
        t.bits("target", 11, m.target.into());
        t.bits("lut_r", 8, m.lut_r.into());
        t.bits("lut_c", 8, m.lut_c.into());
        t.bits("lut_e", 4, m.lut_e.into());
        t.bits("mem_we", 1, m.mem_we.into());
        t.bits("cry_we", 1, m.cry_we.into());
        t.bits("en_we", 1, m.en_we.into());
        t.bits("wr_all", 1, m.wr_all.into());
        t.text_static("b_src", m.b_src.name());
    }
}

impl Igc {
    /// Trace the IGC as scope `igc`, with the names of `names` and the flow-control unit's
    /// scope keyed by `fc_key` (`renderer::TraceCtx::keys`).
    #[inline]
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, names: &IgcNames, fc_key: u64) {
        t.push_scope("igc");
        // Records, decoded on the waveform writer's thread (rtl/src/trace.rs).
        Sequencer {
            state: self.state,
            pc: self.pc,
            upc: self.last_pc,
        }
        .record_group(t);
        Loaded {
            opcode: self.opcode,
            pword: self.pword,
            opr: self.opr,
            sca: self.sca(),
            fbits: self.fbits,
            indicator: self.indicator,
            commands: self.commands,
        }
        .record_group(t);
        // The latched command's name, by its dispatch index.
        t.record_with(&[u64::from(OpcodeWord(self.opcode).cmd())], &names.command);
        Counters {
            i: self.i,
            l: self.l,
        }
        .record_group(t);
        // No store write since the fetch: the store still holds the fetched words.
        let store = if self.last_fetch == Some(self.store.writes) {
            self.last_words
        } else {
            self.store.uinst_words(self.last_pc)
        };
        t.push_scope("uinst");
        let fetched = Fetched(self.last_words);
        Uinst { fetched, store }.record_group(t);
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
