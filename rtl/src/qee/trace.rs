//! The QEE in the waveform: the `qee` scope (mode, bit index, coefficients) and, for the
//! selected EMCs, `emc[k].qee` (configuration register, shift chains, the root pixel's tree
//! bit).

use super::{Qee, TRACE_BIT_MAX};
use crate::emc_array::NUM_EMCS;
use crate::trace::{bit, words, Traced, Tracer};

/// Scope names of the per-EMC QEE scopes, `emc[k]` (the waveform's `renderer.emc[k].qee`).
const EMC_SCOPES: [&str; NUM_EMCS] = [
    "emc[0]", "emc[1]", "emc[2]", "emc[3]", "emc[4]", "emc[5]", "emc[6]", "emc[7]", "emc[8]",
    "emc[9]", "emc[10]", "emc[11]", "emc[12]", "emc[13]", "emc[14]", "emc[15]", "emc[16]",
    "emc[17]", "emc[18]", "emc[19]", "emc[20]", "emc[21]", "emc[22]", "emc[23]", "emc[24]",
    "emc[25]", "emc[26]", "emc[27]", "emc[28]", "emc[29]", "emc[30]", "emc[31]", "emc[32]",
    "emc[33]", "emc[34]", "emc[35]", "emc[36]", "emc[37]", "emc[38]", "emc[39]", "emc[40]",
    "emc[41]", "emc[42]", "emc[43]", "emc[44]", "emc[45]", "emc[46]", "emc[47]", "emc[48]",
    "emc[49]", "emc[50]", "emc[51]", "emc[52]", "emc[53]", "emc[54]", "emc[55]", "emc[56]",
    "emc[57]", "emc[58]", "emc[59]", "emc[60]", "emc[61]", "emc[62]", "emc[63]",
];

/// Names of the six coefficient shift chains, in the order A, B, C, D, E, F.
const CHAIN_NAMES: [&str; 6] = [
    "chain_A", "chain_B", "chain_C", "chain_D", "chain_E", "chain_F",
];

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
            let [a, b, c, d, e, f] = self.chains(k).map(|c| c as u64);
            // The root pixel's tree bit: its C chain's LSB while the QEE delivers.
            let tree = self.delivering() && c & 1 != 0;
            let state = u64::from(self.bit.min(TRACE_BIT_MAX)) | (tree as u64) << 8;
            t.push_scope(EMC_SCOPES[k]);
            t.record(
                "qee",
                &[u64::from(reg), state, a, b, c, d, e, f],
                decode_emc_qee,
            );
            t.pop_scope();
            t.end_group();
        }
    }
}

/// An EMC's `qee` scope from [`Qee::trace_emcs`]'s words: the configuration register, the
/// bit index and tree bit, the six chains (low 64 bits: the next 64 to be delivered).
fn decode_emc_qee(w: &[u64], t: &mut dyn Tracer) {
    let [reg, state] = words(w);
    t.bits("config", 32, reg);
    // The screen origin the register holds (`QeeConfig::origin`), 16 bits each.
    t.bits("origin_x", 16, reg & 0xffff);
    t.bits("origin_y", 16, reg >> 16);
    for (j, name) in CHAIN_NAMES.iter().enumerate() {
        t.bits(name, 64, w.get(j + 2).copied().unwrap_or(0));
    }
    t.bits("tree_bit_index", 8, state & 0xff);
    bit(t, "tree_bit", state >> 8 & 1 != 0);
}

impl Traced for Qee {
    /// The `qee` scope: one record of the mode, the bit index, the latency counter and the
    /// coefficients ([`decode_qee`]).
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        let [a, b, c, d, e, f] = self.coefs.map(|c| c as i64 as u64);
        let state = self.mode as u64
            | (self.delivering() as u64) << 2
            | u64::from(self.bit.min(TRACE_BIT_MAX)) << 8
            | u64::from(self.delay.min(15)) << 16
            | u64::from(self.fbits) << 24;
        t.record("qee", &[state, a, b, c, d, e, f], decode_qee);
    }
}

/// The mode names by [`QeeMode`]'s code.
const MODES: [&str; 4] = ["NONE", "CONSTANT", "LINEAR", "QUADRATIC"];

/// The `qee` scope's signals from [`Qee`]'s trace words.
fn decode_qee(w: &[u64], t: &mut dyn Tracer) {
    let [state] = words(w);
    t.text_static("mode", MODES[(state & 3) as usize]);
    bit(t, "delivering", state >> 2 & 1 != 0);
    t.bits("bit", 8, state >> 8 & 0xff);
    t.bits("delay", 4, state >> 16 & 0xff);
    t.bits("fbits", 5, state >> 24 & 0xff);
    for (k, name) in ["A", "B", "C", "D", "E", "F"].iter().enumerate() {
        t.bits(name, 64, w.get(k + 1).copied().unwrap_or(0));
    }
}

#[cfg(test)]
mod mode_tests {
    use super::MODES;
    use crate::qee::arith::QeeMode;

    #[test]
    fn the_mode_codes_name_the_modes() {
        let all = [
            QeeMode::None,
            QeeMode::Constant,
            QeeMode::Linear,
            QeeMode::Quadratic,
        ];
        for (k, m) in all.iter().enumerate() {
            assert_eq!(*m as usize, k, "{}", MODES[k]);
        }
    }
}
