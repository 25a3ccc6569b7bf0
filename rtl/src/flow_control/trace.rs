//! The flow-control unit in the waveform: scope `fc` (the mode, the last instruction and its
//! decision, the loop and address stacks), a record in a group keyed by a version the
//! waveform's context keeps (`TraceCtx::fc_key`, bumped in every cycle in which the unit
//! changed).

use super::instruction::FcOp;
use super::stacks::{LoopKind, STACK_DEPTH};
use super::{FlowControl, LastFc};
use crate::trace::{Tracer, Wave};

#[derive(Wave)]
struct FcWave {
    full: bool,
    all_active: bool,
    /// The last instruction ("-": none yet), its fields and its decision.
    #[wave(name, none = "-")]
    op: Option<FcOp>,
    #[wave(flatten)]
    last: LastFc,
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
            op: self.last.valid.then_some(self.last.req.instr.op),
            last: self.last,
            loop_depth: self.loops.depth(),
            addr_depth: self.addrs.depth(),
            r700_uncounted: self.loops.top().is_some_and(|f| f.uncounted),
            r700_call_waiting: waiting.flatten().any(|&w| w != 0),
            loops: std::array::from_fn(frame),
            addrs: std::array::from_fn(addr),
        }
    }
}
