//! The flow-control unit in the waveform: scope `fc` (the mode, the last instruction and its
//! decision, the loop and address stacks), a record in a group keyed by a version the
//! waveform's context keeps (`TraceCtx::fc_key`, bumped in every cycle in which the unit
//! changed).

use super::instruction::FcInstr;
use super::stacks::{LoopKind, STACK_DEPTH};
use super::{FlowControl, PeFlowState};
use crate::trace::{bit, words, Tracer};

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

    /// Trace the unit as scope `fc`, a record skipped while `key` (which must change
    /// whenever the unit does) is unchanged.
    #[inline]
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, key: u64) {
        if t.group(key) {
            t.record("fc", &self.trace_words(), decode_fc);
            t.end_group();
        }
    }

    /// Everything the `fc` scope shows, packed ([`decode_fc`] shows it): the last
    /// instruction (encoded as its W3 word) and its request and decision, the flags, the
    /// counts, the loop frames and the address stack.
    #[inline(never)]
    fn trace_words(&self) -> [u64; 5] {
        let l = &self.last;
        let r = &l.req;
        let flags = l.req.bool_value as u64
            | (l.jump as u64) << 1
            | (l.error as u64) << 2
            | (self.full as u64) << 3
            | (self.all_active as u64) << 4
            | (l.valid as u64) << 5
            | (self.loops.top().is_some_and(|f| f.uncounted) as u64) << 6
            | (self
                .addrs
                .waiting()
                .iter()
                .any(|p| p.iter().any(|&w| w != 0)) as u64)
                << 7;
        let w0 = r.instr.encode() as u64
            | (r.pc as u64 & 0x7ff) << 32
            | (r.target as u64 & 0x7ff) << 43
            | flags << 54;
        let w1 = (r.count as u64 & 0xff)
            | (r.init as u64 & 0xff) << 8
            | (r.step as u64 & 0xff) << 16
            | (l.wanted as u64 & 0x7fff) << 24
            | (l.participants as u64 & 0x7fff) << 40
            | (self.loops.depth() as u64 & 0xf) << 56
            | (self.addrs.depth() as u64 & 0xf) << 60;
        // A loop frame in 32 bits: present, REP, the count (8 bits), aL (16 bits).
        let frame = |k: usize| {
            self.loops.frames().get(k).map_or(0, |f| {
                1 | ((f.kind == LoopKind::Rep) as u64) << 1
                    | (f.count as u64 & 0xff) << 2
                    | f.al.map_or(0, |a| a as u16 as u64) << 10
            })
        };
        let addr = |k: usize| self.addrs.entries().get(k).map_or(0, |&a| a as u64 & 0x7ff);
        [
            w0,
            w1,
            frame(0) | frame(1) << 32,
            frame(2) | frame(3) << 32,
            addr(0) | addr(1) << 16 | addr(2) << 32 | addr(3) << 48,
        ]
    }
}

/// The `fc` scope's signals from [`FlowControl::trace_words`]'s words.
fn decode_fc(w: &[u64], t: &mut dyn Tracer) {
    let [w0, w1, w2, w3, w4] = words(w);
    let i = FcInstr::decode(w0 as u32).unwrap_or_default();
    let flag = |k: u32| w0 >> (54 + k) & 1 != 0;
    bit(t, "full", flag(3));
    bit(t, "all_active", flag(4));
    t.text_static("op", if flag(5) { i.op.name() } else { "-" });
    bit(t, "b_else", i.b_else);
    bit(t, "jump_any", i.jump_any);
    t.text_static("a_op", i.a_op.name());
    t.bits("jump_func", 8, i.jump_func as u64);
    t.bits("b_pop_cnt", 5, i.b_pop_cnt as u64);
    t.text_static("b_op0", i.b_op0.name());
    t.text_static("b_op1", i.b_op1.name());
    bit(t, "ignore_uncovered", i.ignore_uncovered);
    t.bits("pc", 11, w0 >> 32 & 0x7ff);
    t.bits("jump_addr", 11, w0 >> 43 & 0x7ff);
    bit(t, "bool", flag(0));
    t.bits("const_count", 8, w1 & 0xff);
    t.bits("const_init", 8, w1 >> 8 & 0xff);
    t.bits("const_step", 8, w1 >> 16 & 0xff);
    bit(t, "jump", flag(1));
    bit(t, "error", flag(2));
    t.bits("wanted", 15, w1 >> 24 & 0x7fff);
    t.bits("participants", 15, w1 >> 40 & 0x7fff);
    let (loops, addrs) = (w1 >> 56 & 0xf, w1 >> 60);
    t.bits("loop_depth", 3, loops);
    t.bits("addr_depth", 3, addrs);
    // The R700 stack of our model (docs/flow-control.md, "The R700 stack"): its entries
    // in use, and whether the last instruction over- or underflowed it.
    t.bits("r700_stack", 4, loops + addrs);
    bit(t, "r700_uncounted", flag(6));
    bit(t, "r700_call_waiting", flag(7));
    const FRAME: [&str; STACK_DEPTH] = ["loop0", "loop1", "loop2", "loop3"];
    for (k, name) in FRAME.iter().enumerate() {
        let f = if k < 2 { w2 } else { w3 } >> (32 * (k % 2)) & 0xffff_ffff;
        t.push_scope(name);
        let kind = match f & 3 {
            0 => "-",
            1 => LoopKind::Loop.name(),
            _ => LoopKind::Rep.name(),
        };
        t.text_static("kind", kind);
        t.bits("count", 8, f >> 2 & 0xff);
        t.bits("al", 16, f >> 10 & 0xffff);
        t.pop_scope();
    }
    const ADDR: [&str; STACK_DEPTH] = ["addr0", "addr1", "addr2", "addr3"];
    for (k, name) in ADDR.iter().enumerate() {
        t.bits(name, 11, w4 >> (16 * k) & 0x7ff);
    }
}
