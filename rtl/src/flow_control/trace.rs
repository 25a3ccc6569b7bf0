//! The flow-control unit in the waveform: scope `fc` (the mode, the last instruction and its
//! decision, the loop and address stacks), a record in a group keyed by a version the
//! waveform's context keeps (`TraceCtx::fc_key`, bumped in every cycle in which the unit
//! changed).

use super::instruction::{AOp, BOp, FcOp};
use super::stacks::{LoopKind, STACK_DEPTH};
use super::FlowControl;
use crate::trace::{Tracer, Wave};

#[derive(Wave)]
struct FcWave {
    full: bool,
    all_active: bool,
    /// The last instruction's fields ("-": none yet).
    #[wave(name, none = "-")]
    op: Option<FcOp>,
    b_else: bool,
    jump_any: bool,
    a_op: AOp,
    jump_func: u8,
    #[wave(bits = 5)]
    b_pop_cnt: u8,
    b_op0: BOp,
    b_op1: BOp,
    ignore_uncovered: bool,
    #[wave(bits = 11)]
    pc: u16,
    #[wave(bits = 11)]
    jump_addr: u16,
    #[wave(rename = "bool")]
    bool_value: bool,
    #[wave(bits = 8)]
    const_count: u32,
    #[wave(bits = 8)]
    const_init: i32,
    #[wave(bits = 8)]
    const_step: i32,
    /// Its decision.
    jump: bool,
    error: bool,
    #[wave(bits = 15)]
    wanted: u32,
    #[wave(bits = 15)]
    participants: u32,
    #[wave(bits = 3)]
    loop_depth: usize,
    // The R700 stack of our model (docs/flow-control.md, "The R700 stack"): its entries in
    // use, and whether the last instruction over- or underflowed it.
    #[wave(bits = 3, then(r700_stack: 4 = loop_depth + addr_depth))]
    addr_depth: usize,
    r700_uncounted: bool,
    r700_call_waiting: bool,
    #[wave(scope, each = "loop{}")]
    loops: [Frame; 4],
    #[wave(bits = 11, each = "addr{}")]
    addrs: [u16; 4],
}

const _: () = assert!(
    STACK_DEPTH == 4,
    "the waveform shows four frames and addresses"
);

/// A loop-stack frame ("-": none).
#[derive(Wave, Default)]
struct Frame {
    #[wave(name, none = "-")]
    kind: Option<LoopKind>,
    #[wave(bits = 8)]
    count: u32,
    #[wave(bits = 16)]
    al: i32,
}

impl FlowControl {
    /// Trace the unit as scope `fc`, a record skipped while `key` (which must change
    /// whenever the unit does) is unchanged.
    #[inline]
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, key: u64) {
        if t.group(key) {
            self.wave().record(t, "fc");
            t.end_group();
        }
    }

    #[inline(never)]
    fn wave(&self) -> FcWave {
        let (l, r) = (&self.last, &self.last.req);
        let i = &r.instr;
        let frame = |k: usize| {
            self.loops
                .frames()
                .get(k)
                .map_or(Frame::default(), |f| Frame {
                    kind: Some(f.kind),
                    count: f.count,
                    al: f.al.unwrap_or(0),
                })
        };
        let addr = |k: usize| self.addrs.entries().get(k).copied().unwrap_or(0);
        let waiting = self.addrs.waiting().iter();
        FcWave {
            full: self.full,
            all_active: self.all_active,
            op: l.valid.then_some(i.op),
            b_else: i.b_else,
            jump_any: i.jump_any,
            a_op: i.a_op,
            jump_func: i.jump_func,
            b_pop_cnt: i.b_pop_cnt,
            b_op0: i.b_op0,
            b_op1: i.b_op1,
            ignore_uncovered: i.ignore_uncovered,
            pc: r.pc,
            jump_addr: r.target,
            bool_value: r.bool_value,
            const_count: r.count,
            const_init: r.init,
            const_step: r.step,
            jump: l.jump,
            error: l.error,
            wanted: l.wanted,
            participants: l.participants,
            loop_depth: self.loops.depth(),
            addr_depth: self.addrs.depth(),
            r700_uncounted: self.loops.top().is_some_and(|f| f.uncounted),
            r700_call_waiting: waiting.flatten().any(|&w| w != 0),
            loops: std::array::from_fn(frame),
            addrs: std::array::from_fn(addr),
        }
    }
}
