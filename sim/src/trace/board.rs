//! The waveform's observer of the board: it keeps the waveform's context ([`TraceCtx`]: the
//! command names, the traced EMCs, the skip key of the flow-control unit, the probe pixels)
//! beside the board, so the board's step keeps none of it. The key advances after every cycle
//! in which the unit changed (the board's `CycleRecord::fc_changed`).
//!
//! A probe pixel's sample is its ALU inputs before the edge. Carry, Enable and the QEE's tree
//! bit are read before the edge; A and B, whose addresses the IGC chooses during the step,
//! from a copy of the pixel's memory column that the observer keeps: gathered when the probe
//! is added or the board was changed from outside, and after every cycle brought up to date
//! at the bit the array's operation addressed for writing and, while a BSLOAD moves the
//! pixel's words, at bits 0-31. In the cycles whose samples nobody shows (outside the
//! waveform's window, or all of them when its selection holds no probe) it takes none and
//! lets the columns go stale, to gather them again before the next sample.

use crate::engine::observer::{Cx, Observer};
use pp5_rtl::backing_store::transfer::{XferDir, XFER_PES_PER_STEP};
use pp5_rtl::backing_store::XFER_BITS;
use pp5_rtl::emc_array::{BSource, Probe, ProbeInputs, MEM_BITS};
use pp5_rtl::qee::arith::tree_bit;
use pp5_rtl::renderer::{TraceCtx, TraceView};
use pp5_rtl::Renderer;
use std::ops::RangeInclusive;

/// A probe pixel's memory column: bit k of the pixel's memory is bit `k % 64` of word `k / 64`.
type Column = [u64; MEM_BITS.div_ceil(64)];

/// What the observer reads of a probe pixel before the edge.
#[derive(Clone, Copy, Debug, Default)]
struct Before {
    carry: bool,
    enable: bool,
    /// The QEE's tree bit at the pixel (false when the QEE does not deliver).
    tree: bool,
}

/// The waveform's observer: its context, the key of the flow-control unit, and the probe
/// pixels' samples. Idle (and free) until [`BoardTrace::set_keyed`] turns it on (the
/// simulator does when it writes a waveform) or a probe is added.
#[derive(Clone, Debug)]
pub struct BoardTrace {
    /// What the waveform shows beside the board's registers.
    pub ctx: TraceCtx,
    /// The hooks run: the key is kept or there are probes.
    active: bool,
    /// Each probe's memory column as the board has it before the next edge.
    columns: Vec<Column>,
    /// Each probe's inputs read before this cycle's edge.
    before: Vec<Before>,
    /// A BSLOAD step this cycle: the plane word and first bit of the pixels it writes.
    xfer_lane: Option<(usize, u32)>,
    /// Each probe's value of the QEE's current evaluation (`Qee::value_at`), computed once per
    /// START: for the evaluation the QEE counts as `tree_starts` (`None`: none yet).
    tree_values: Vec<i128>,
    tree_starts: Option<u64>,
    /// The cycles whose probe samples are shown ([`BoardTrace::sample_probes_in`]).
    probe_cycles: RangeInclusive<u64>,
    /// This cycle's probe samples are taken (its number is in `probe_cycles`).
    sampling: bool,
    /// The memory columns missed a cycle's writes: gathered again before the next sample.
    stale: bool,
}

impl Default for BoardTrace {
    fn default() -> Self {
        BoardTrace {
            ctx: TraceCtx::default(),
            active: false,
            columns: Vec::new(),
            before: Vec::new(),
            xfer_lane: None,
            tree_values: Vec::new(),
            tree_starts: None,
            probe_cycles: 0..=u64::MAX,
            sampling: false,
            stale: false,
        }
    }
}

/// Bit `k` of a column.
#[inline]
fn column_bit(c: &Column, k: usize) -> bool {
    c.get(k / 64).is_some_and(|w| w >> (k % 64) & 1 != 0)
}

/// Set bit `k` of a column to the pixel's bit in `board`'s memory plane `k`.
#[inline]
fn refresh_bit(c: &mut Column, p: &Probe, board: &Renderer, k: usize) {
    if let (Some(w), Some(pl)) = (c.get_mut(k / 64), board.array.mem.get(k)) {
        let m = 1u64 << (k % 64);
        *w = if p.bit(pl) { *w | m } else { *w & !m };
    }
}

impl BoardTrace {
    /// The board as the waveform walks it.
    pub fn view<'a>(&'a self, board: &'a Renderer) -> TraceView<'a> {
        TraceView {
            board,
            ctx: &self.ctx,
        }
    }

    /// Whether the observer's hooks must run (the engine calls them only then).
    #[inline]
    pub fn active(&self) -> bool {
        self.active
    }

    /// Keep the flow-control unit's key from now on (`true`), or stop (the walk then keys
    /// its scope by the cycle number).
    pub fn set_keyed(&mut self, on: bool, board: &Renderer) {
        self.ctx.keyed = on;
        self.active = on || !self.ctx.probes.is_empty();
        self.touched(board);
    }

    /// Add a probe pixel traced as `pixel_<x>_<y>` (ignored off the array or if already
    /// there). Add probes before the first walk of a waveform.
    pub fn add_probe(&mut self, x: usize, y: usize, board: &Renderer) {
        if self.ctx.probes.iter().any(|p| p.x == x && p.y == y) {
            return;
        }
        if let Some(p) = Probe::new(x, y) {
            self.ctx.probes.push(p);
            self.columns.push(Column::default());
            self.before.push(Before::default());
            self.tree_values.push(0);
            self.active = true;
            self.touched(board);
        }
    }

    /// No cycle ([`BoardTrace::sample_probes_in`] for a waveform that shows no probe).
    pub const NO_CYCLES: RangeInclusive<u64> = RangeInclusive::new(1, 0);

    /// Sample the probe pixels only in the cycles `cycles` (a cycle is numbered as the board
    /// counts it after its step, as the waveform's samples are): the waveform's window, or
    /// an empty range when its selection shows no probe. Their samples of other cycles are
    /// never shown, and not taking them keeps the array's speed outside the window. The
    /// default: every cycle.
    pub fn sample_probes_in(&mut self, cycles: RangeInclusive<u64>) {
        self.probe_cycles = cycles;
    }

    /// The board was changed from outside its step (a testbench wrote it, a Ring reset): the
    /// next walk visits the flow-control unit again, and the probes' memory columns are
    /// gathered again.
    pub fn touched(&mut self, board: &Renderer) {
        self.ctx.fc_key += 1;
        self.tree_starts = None;
        self.gather(board);
    }

    /// Every probe's memory column from the board.
    fn gather(&mut self, board: &Renderer) {
        for (p, c) in self.ctx.probes.iter().zip(self.columns.iter_mut()) {
            for k in 0..MEM_BITS {
                refresh_bit(c, p, board, k);
            }
        }
        self.stale = false;
    }

    /// Read the probes' inputs that do not depend on the cycle's operation, before the edge.
    fn probes_before(&mut self, b: &Renderer) {
        let q = &b.qee;
        let delivering = q.delivering();
        if delivering && self.tree_starts != Some(q.starts) {
            // A START loaded new coefficients (the only thing that changes the values).
            for (p, v) in self.ctx.probes.iter().zip(self.tree_values.iter_mut()) {
                *v = q.value_at(p.x, p.y);
            }
            self.tree_starts = Some(q.starts);
        }
        let probes = self.ctx.probes.iter().zip(&self.tree_values);
        for ((p, &v), before) in probes.zip(self.before.iter_mut()) {
            *before = Before {
                carry: p.bit(&b.array.carry),
                enable: p.bit(&b.array.enable),
                // The tree plane's bit at the pixel, `Qee::bit_at` (equal by construction,
                // rtl/src/qee tests).
                tree: delivering && tree_bit(v, q.bit),
            };
        }
        self.xfer_lane = match b.transfer.active {
            Some((XferDir::Load, _)) => {
                let first = b.transfer.step as usize * XFER_PES_PER_STEP;
                Some((first / 64, (first % 64) as u32))
            }
            _ => None,
        };
    }

    /// Sample the probes after the edge (their inputs as they were before it), then bring
    /// their memory columns up to date.
    fn probes_after(&mut self, b: &Renderer) {
        let op = b.record.array_op;
        let active = b.igc.fc.active_mask();
        let xfer = self.xfer_lane;
        let op_sample = Probe::op_sample(&op);
        let probes = self.ctx.probes.iter_mut();
        for ((p, c), before) in probes.zip(self.columns.iter_mut()).zip(&self.before) {
            let mem = |a: u8| column_bit(c, a as usize);
            let inputs = ProbeInputs {
                a: op.a.is_some_and(mem),
                b: match op.b {
                    BSource::Zero => false,
                    BSource::One => true,
                    BSource::Mem(a) => mem(a),
                    BSource::Enable => before.enable,
                    BSource::Tree => before.tree,
                },
                carry: before.carry,
                enable: before.enable,
                active: active.is_none_or(|pl| p.bit(pl)),
            };
            p.sample = Probe::sample_of(op_sample, inputs);
            if let Some(w) = op.w {
                refresh_bit(c, p, b, w as usize);
            }
            if let Some((word, shift)) = xfer {
                if p.word == word && p.shift.wrapping_sub(shift) < XFER_PES_PER_STEP as u32 {
                    for k in 0..XFER_BITS {
                        refresh_bit(c, p, b, k);
                    }
                }
            }
        }
    }
}

impl Observer for BoardTrace {
    #[inline]
    fn before_step(&mut self, b: &Renderer) {
        if self.ctx.probes.is_empty() {
            return;
        }
        // The cycle this step makes.
        self.sampling = self.probe_cycles.contains(&b.cycle.wrapping_add(1));
        if !self.sampling {
            // Its writes are not followed: the columns are gathered again when needed.
            self.stale = true;
            return;
        }
        if self.stale {
            self.gather(b);
        }
        self.probes_before(b);
    }

    #[inline]
    fn cycle(&mut self, cx: &mut Cx) {
        let b = cx.board;
        if self.sampling {
            self.probes_after(b);
        }
        if b.record.fc_changed {
            self.ctx.fc_key += 1;
        }
    }

    /// A Ring reset changes every block (but the memories): the key moves on.
    fn ring_reset(&mut self, _at: u64) {
        self.ctx.fc_key += 1;
        // The QEE restarts its count of evaluations.
        self.tree_starts = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::microcode;
    use crate::engine::{SimOptions, StopReason};
    use crate::session::{boot, prepare, RunSpec, WaveSpec};

    /// After every cycle each probe's copy of its memory column is the board's column: on a
    /// BSSTORE / BSLOAD round trip (the transfer writes bits 0-31 of a few pixels per cycle,
    /// the probes' at different steps) with the array writing meanwhile, and on the demo.
    #[test]
    fn the_probe_columns_follow_the_board_every_cycle() {
        let img = microcode::standard();
        // Scanline 0 of sector 5 gets a ramp from the BS port, then BSLOAD brings it into
        // pixel memory (the probes on scanline 0 change), while the array writes bit 40.
        let text = "message bs\nBS_RECEIVE 5 0 1 ramp\n\
                    message at=3000\nSETENABS\nBSLOAD 5\nSCAIntoMEM_S1 40 8 5\nBSLOAD 5\n";
        let xfer = crate::stream::text::parse(text, "<xfer>", &img.table).expect("stream");
        let demo = crate::demo::demo_stream(&img.table).expect("demo");
        for (stream, max_cycles) in [(&xfer, 20_000u64), (&demo, 20_000)] {
            let spec = RunSpec {
                image: &img,
                boot: true,
                stream,
                opts: SimOptions {
                    probes: vec![(0, 0), (5, 0), (70, 5), (127, 127), (3, 64)],
                    ..SimOptions::default()
                },
                wave: Some(WaveSpec::new(std::path::Path::new("unused.vcd"))),
            };
            let mut sim = prepare(&spec).expect("prepare");
            assert_eq!(
                boot(&mut sim, None, |_, _, _| {}).ok(),
                Some(StopReason::Done)
            );
            sim.queue_stream(stream);
            let first = sim.board.cycle;
            while !sim.done() && sim.board.cycle - first < max_cycles {
                sim.step();
                let t = &sim.trace;
                for (p, c) in t.ctx.probes.iter().zip(&t.columns) {
                    let mut want = Column::default();
                    for k in 0..MEM_BITS {
                        refresh_bit(&mut want, p, &sim.board, k);
                    }
                    assert_eq!(c, &want, "{} at cycle {}", p.scope, sim.board.cycle);
                }
            }
            assert!(sim.done(), "the stream ran to its end");
        }
    }
}
