//! The flow-control unit in the waveform: scope `fc` (the mode, the last instruction and its
//! decision, the loop and address stacks), keyed by a version the waveform's context keeps
//! (`TraceCtx::fc_key`, bumped in every cycle in which the unit changed).

use super::stacks::STACK_DEPTH;
use super::{FlowControl, PeFlowState};
use crate::trace::{bit, Tracer};

/// The states by their code in a probe's word ([`FlowControl::pe_word`]).
const PE_STATES: [PeFlowState; 8] = [
    PeFlowState::Active,
    PeFlowState::Branch,
    PeFlowState::Break,
    PeFlowState::Continue,
    PeFlowState::Call,
    PeFlowState::Active,
    PeFlowState::Active,
    PeFlowState::Active,
];

impl FlowControl {
    /// The flow-control view of the PE at pixel (x, y) as a probe's record packs it: the
    /// active bit at bit 9, the branch counter at bits 10-14, the state's code at bits 16-18
    /// ([`FlowControl::decode_pe_word`] shows them).
    #[inline]
    pub fn pe_word(&self, x: usize, y: usize) -> u64 {
        if self.all_active {
            // Every PE active: the view every probe has (see `FlowControl::pe_view`).
            return 1 << 9;
        }
        let (active, bcnt, state) = self.pe_view(x, y);
        let code = PE_STATES.iter().position(|&s| s == state).unwrap_or(0) as u64;
        (active as u64) << 9 | (bcnt as u64 & 0x1f) << 10 | code << 16
    }

    /// The signals `fc_active`, `fc_bcnt` and `fc_state` of a probe from its
    /// [`FlowControl::pe_word`] (other bits of `w` are ignored).
    pub fn decode_pe_word(w: u64, t: &mut dyn Tracer) {
        bit(t, "fc_active", w >> 9 & 1 != 0);
        t.bits("fc_bcnt", 5, w >> 10 & 0x1f);
        let state = PE_STATES[(w >> 16 & 7) as usize];
        t.text_static("fc_state", state.name());
    }

    /// Trace the unit as scope `fc`, skipped while `key` (which must change whenever the
    /// unit does) is unchanged. The key check inline (the scope is skipped in most cycles),
    /// the walk out of line.
    #[inline]
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, key: u64) {
        if t.group(key) {
            t.push_scope("fc");
            self.trace_scope(t);
            t.pop_scope();
            t.end_group();
        }
    }
}

impl FlowControl {
    /// The `fc` scope's signals.
    #[inline(never)]
    fn trace_scope<T: Tracer + ?Sized>(&self, t: &mut T) {
        let l = &self.last;
        bit(t, "full", self.full);
        bit(t, "all_active", self.all_active);
        let i = &l.req.instr;
        t.text_static("op", if l.valid { i.op.name() } else { "-" });
        bit(t, "b_else", i.b_else);
        bit(t, "jump_any", i.jump_any);
        t.text_static("a_op", i.a_op.name());
        t.bits("jump_func", 8, i.jump_func as u64);
        t.bits("b_pop_cnt", 5, i.b_pop_cnt as u64);
        t.text_static("b_op0", i.b_op0.name());
        t.text_static("b_op1", i.b_op1.name());
        bit(t, "ignore_uncovered", i.ignore_uncovered);
        t.bits("pc", 11, l.req.pc as u64);
        t.bits("jump_addr", 11, l.req.target as u64);
        bit(t, "bool", l.req.bool_value);
        t.bits("const_count", 8, l.req.count as u64 & 0xff);
        t.bits("const_init", 8, l.req.init as u64 & 0xff);
        t.bits("const_step", 8, l.req.step as u64 & 0xff);
        bit(t, "jump", l.jump);
        bit(t, "error", l.error);
        t.bits("wanted", 15, l.wanted as u64);
        t.bits("participants", 15, l.participants as u64);
        t.bits("loop_depth", 3, self.loops.depth() as u64);
        t.bits("addr_depth", 3, self.addrs.depth() as u64);
        // The R700 stack of our model (docs/flow-control.md, "The R700 stack"): its entries
        // in use, and whether the last instruction over- or underflowed it.
        t.bits(
            "r700_stack",
            4,
            (self.loops.depth() + self.addrs.depth()) as u64,
        );
        bit(
            t,
            "r700_uncounted",
            self.loops.top().is_some_and(|f| f.uncounted),
        );
        bit(
            t,
            "r700_call_waiting",
            self.addrs
                .waiting()
                .iter()
                .any(|p| p.iter().any(|&w| w != 0)),
        );
        const FRAME: [&str; STACK_DEPTH] = ["loop0", "loop1", "loop2", "loop3"];
        for (k, name) in FRAME.iter().enumerate() {
            t.push_scope(name);
            let f = self.loops.frames().get(k);
            t.text_static("kind", f.map_or("-", |f| f.kind.name()));
            t.bits("count", 8, f.map_or(0, |f| f.count as u64 & 0xff));
            t.bits(
                "al",
                16,
                f.and_then(|f| f.al).map_or(0, |a| a as u16 as u64),
            );
            t.pop_scope();
        }
        const ADDR: [&str; STACK_DEPTH] = ["addr0", "addr1", "addr2", "addr3"];
        for (k, name) in ADDR.iter().enumerate() {
            t.bits(
                name,
                11,
                self.addrs.entries().get(k).map_or(0, |&a| a as u64),
            );
        }
    }
}
