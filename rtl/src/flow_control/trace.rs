//! The flow-control unit in the waveform: scope `fc` (the mode, the last instruction and its
//! decision, the loop and address stacks), a record in a group keyed by a version the
//! waveform's context keeps (`TraceCtx::fc_key`, bumped in every cycle in which the unit
//! changed).

use super::instruction::FcOp;
use super::stacks::{LoopFrame, LoopKind, STACK_DEPTH};
use super::{FlowControl, LastFc};
use crate::trace::{wave_view, Tracer, Wave};

#[wave_view(FlowControl)]
struct FcWave {
    full: bool,
    all_active: bool,
    /// The last instruction ("-": none yet), its fields and its decision.
    #[wave(name, none = "-", get = self.last.valid.then_some(self.last.req.instr.op))]
    op: Option<FcOp>,
    #[wave(flatten)]
    last: LastFc,
    #[wave(bits = 3, get = self.loops.depth())]
    loop_depth: usize,
    // The R700 stack of our model (docs/flow-control.md, "The R700 stack"): its entries in
    // use, and whether the last instruction over- or underflowed it.
    #[wave(bits = 3, get = self.addrs.depth(), then(r700_stack: 4 = loop_depth + addr_depth))]
    addr_depth: usize,
    #[wave(get = self.loops.top().is_some_and(|f| f.uncounted))]
    r700_uncounted: bool,
    #[wave(get = self.addrs.waiting().iter().flatten().any(|&w| w != 0))]
    r700_call_waiting: bool,
    #[wave(scope, each = "loop{}", get = std::array::from_fn(|k| {
        Frame::of(self.loops.frames().get(k))
    }))]
    loops: [Frame; 4],
    #[wave(bits = 11, each = "addr{}", get = std::array::from_fn(|k| {
        self.addrs.entries().get(k).copied().unwrap_or(0)
    }))]
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

impl Frame {
    /// The waveform's view of a loop-stack entry (the default for an unused one).
    fn of(f: Option<&LoopFrame>) -> Frame {
        f.map_or(Frame::default(), |f| Frame {
            kind: Some(f.kind),
            count: f.count,
            al: f.al.unwrap_or(0),
        })
    }
}

impl FlowControl {
    /// Trace the unit as scope `fc`, a record skipped while `key` (which must change
    /// whenever the unit does) is unchanged.
    #[inline]
    pub fn trace<T: Tracer + ?Sized>(&self, t: &mut T, key: u64) {
        if t.group(key) {
            FcWave(self).record(t, "fc");
            t.end_group();
        }
    }
}
