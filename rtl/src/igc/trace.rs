//! The IGC in the waveform: scope `igc` (the sequencer, the registers a command loads, the
//! latched command's name, the counters, the executed microinstruction `uinst`) and the
//! flow-control unit's `fc`. The registers are records, decoded on the writer's thread.

use super::microinstruction::{self, Microinstruction};
use super::opcode::OpcodeWord;
use super::{Igc, IgcNames, IgcState};
use crate::trace::{wave_view, Tracer, Wave};

/// `state`, `rmode`, `pc`, `upc`: the registers that change every cycle.
#[wave_view(Igc)]
struct Sequencer {
    #[wave(name, then(rmode: 1 = state == IgcState::RMode))]
    state: IgcState,
    #[wave(bits = 11)]
    pc: u16,
    #[wave(bits = 11, get = self.last_pc)]
    upc: u16,
}

/// The registers a command loads: they change at dispatch, not every cycle.
#[wave_view(Igc)]
struct Loaded {
    #[wave(bits = 32, before(cmd: 8 = opcode & 0xff))]
    opcode: u32,
    pword: u32,
    #[wave(bits = 8, each = "opr{}")]
    opr: [u32; 5],
    #[wave(get = self.sca())]
    sca: u32,
    #[wave(bits = 5)]
    fbits: u8,
    indicator: bool,
    #[wave(bits = 32)]
    commands: u64,
}

/// The bit counter and the loop counter.
#[wave_view(Igc)]
struct Counters {
    i: u8,
    l: u8,
}

/// The executed microinstruction (`uinst`): its fields by name, decoded on the writer's
/// thread from the words it was fetched as, and the store's words at its address now.
#[derive(Wave)]
struct Uinst {
    #[wave(bits = 32, hide, each = "fetched{}", then("": Microinstruction =
        microinstruction::decode(&fetched.map(|w| w as u32)).unwrap_or_default()))]
    fetched: [u32; 4],
    #[wave(bits = 32, each = "w{}")]
    store: [u32; 4],
}

impl Igc {
    /// Trace the IGC as scope `igc`, with the names of `names` and the flow-control unit's
    /// scope keyed by `fc_key` (`renderer::TraceCtx::keys`).
    #[inline]
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, names: &IgcNames, fc_key: u64) {
        t.push_scope("igc");
        // Records, decoded on the waveform writer's thread (rtl/src/trace.rs).
        Sequencer(self).record_group(t);
        Loaded(self).record_group(t);
        // The latched command's name, by its dispatch index.
        t.record_with(&[u64::from(OpcodeWord(self.opcode).cmd())], &names.command);
        Counters(self).record_group(t);
        // No store write since the fetch: the store still holds the fetched words.
        let store = if self.last_fetch == Some(self.store.writes) {
            self.last_words
        } else {
            self.store.uinst_words(self.last_pc)
        };
        t.push_scope("uinst");
        let fetched = self.last_words;
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
