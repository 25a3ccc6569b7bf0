//! The QEE in the waveform: the `qee` scope (mode, bit index, coefficients) and, for the
//! selected EMCs, `emc[k].qee` (configuration register, shift chains, the root pixel's tree
//! bit).

use super::{Qee, TRACE_BIT_MAX};
use crate::emc_array::NUM_EMCS;
use crate::trace::{Traced, Tracer, Wave};
use std::sync::LazyLock;

/// Scope names of the per-EMC QEE scopes, `emc[k]` (the waveform's `renderer.emc[k].qee`).
static EMC_SCOPES: LazyLock<Vec<String>> =
    LazyLock::new(|| (0..NUM_EMCS).map(|k| format!("emc[{k}]")).collect());

/// An EMC's `qee` scope: the configuration register, the six chains (low 64 bits: the next
/// 64 to be delivered), the bit index and the root pixel's tree bit.
#[derive(Wave)]
struct EmcQee {
    // The screen origin the register holds (`QeeConfig::origin`), 16 bits each.
    #[wave(bits = 32, then(origin_x: 16 = config & 0xffff, origin_y: 16 = config >> 16))]
    config: u32,
    #[wave(bits = 64, each = "chain_{A}")]
    chains: [u64; 6],
    #[wave(bits = 8)]
    tree_bit_index: u32,
    tree_bit: bool,
}

impl Qee {
    /// A key that changes whenever a signal of the `qee` scope or of the evaluation part of a
    /// per-EMC scope changes: the evaluation (START count), the bit index as traced, the
    /// latency counter, started or not.
    fn trace_key(&self) -> u64 {
        let bit = u64::from(self.bit.min(TRACE_BIT_MAX));
        (self.starts << 13) | (bit << 5) | (u64::from(self.delay.min(15)) << 1) | self.active as u64
    }

    /// Trace the evaluators of the EMCs in `emcs` (bit k = EMC k), in increasing k, each as a
    /// scope `emc[k]` holding a scope `qee` (siblings of the caller's scope's other blocks):
    ///
    /// - `config` (32 bits): the configuration register; `origin_x`, `origin_y` (16 bits,
    ///   two's complement): the screen origin it holds;
    /// - `chain_A` .. `chain_F` (64 bits): the coefficient shift chains, low 64 bits;
    /// - `tree_bit_index` (8 bits, saturating at [`TRACE_BIT_MAX`]): the result bit on the
    ///   tree this cycle; `tree_bit`: the root pixel's result bit.
    ///
    /// Each scope is a group keyed by its whole content (the evaluation state and the
    /// configuration register), so a waveform writer skips an idle EMC.
    pub fn trace_emcs<T: Tracer + ?Sized>(&self, t: &mut T, emcs: u64) {
        let mut rest = emcs;
        if rest == 0 {
            return;
        }
        let key = self.trace_key();
        while rest != 0 {
            let k = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let reg = self.config.reg[k];
            // The key's upper half: the evaluation state (its START count wraps, harmlessly:
            // it changes by at most one between two walks); the lower half: the register.
            if !t.group((key << 32) | u64::from(reg)) {
                continue;
            }
            let chains = self.chains(k).map(|c| c as u64);
            let w = EmcQee {
                config: reg,
                chains,
                tree_bit_index: self.bit.min(TRACE_BIT_MAX),
                // The root pixel's tree bit: its C chain's LSB while the QEE delivers.
                tree_bit: self.delivering() && chains[2] & 1 != 0,
            };
            t.push_scope(&EMC_SCOPES[k]);
            w.record(t, "qee");
            t.pop_scope();
            t.end_group();
        }
    }
}

impl Traced for Qee {
    /// The `qee` scope: the registers, one record.
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        self.record(t, "qee");
    }
}
