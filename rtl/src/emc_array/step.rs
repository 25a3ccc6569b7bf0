//! [`EmcArray::step`]: one cycle's operation on all 16,384 PEs. The operand sources are
//! resolved first (constants folded into the truth tables); a plain memory write then runs
//! as one fused pass when it can, and otherwise the Carry and result passes run and the
//! registers are written, masked by the flow-control unit's active PEs or not.

use super::alu::Lut;
use super::plane::{self, Plane, ZERO_PLANE};
use super::{kernel, ArrayOp, BSource, EmcArray, MEM_BITS};

/// Where the cycle's ALU inputs come from, with the constant ones folded into the tables.
#[derive(Clone, Copy, Debug)]
struct Operands {
    /// The result and Carry truth tables after folding.
    tr: u8,
    tc: u8,
    /// Port A's memory plane (`None`: it reads 0, folded into the tables).
    a: Option<usize>,
    /// Port B's memory plane (`None`: a folded constant, or the copy in `bbuf`).
    b: Option<usize>,
    /// Port B reads each PE's Enable (a copy in `bbuf`).
    b_from_enable: bool,
    /// Port B reads the QEE tree plane (the caller's, read in place: nothing the step writes).
    b_from_tree: bool,
    /// The memory plane written (`None`: no memory write).
    w: Option<usize>,
}

impl Operands {
    /// Fold constant inputs into the truth tables, so the loops read only real planes.
    #[inline]
    fn fold(op: &ArrayOp) -> Operands {
        let (mut tr, mut tc) = (op.lut_r, op.lut_c);
        let a = op.a.map(|a| a as usize).filter(|&a| a < MEM_BITS);
        if a.is_none() {
            tr = Lut::fix_a(tr, false);
            tc = Lut::fix_a(tc, false);
        }
        let mut b_from_enable = false;
        let mut b_from_tree = false;
        let b = match op.b {
            BSource::Tree => {
                b_from_tree = true;
                None
            }
            BSource::Mem(b) if (b as usize) < MEM_BITS => Some(b as usize),
            BSource::Enable => {
                b_from_enable = true;
                None
            }
            BSource::One => {
                tr = Lut::fix_b(tr, true);
                tc = Lut::fix_b(tc, true);
                None
            }
            BSource::Zero | BSource::Mem(_) => {
                tr = Lut::fix_b(tr, false);
                tc = Lut::fix_b(tc, false);
                None
            }
        };
        let w = op.w.map(|w| w as usize).filter(|&w| w < MEM_BITS);
        Operands {
            tr,
            tc,
            a,
            b,
            b_from_enable,
            b_from_tree,
            w,
        }
    }
}

impl EmcArray {
    /// Execute one cycle's operation on all 16,384 PEs (the clock edge). With `active`
    /// (the flow-control unit's mask, `None` when every PE is active) inactive PEs keep their
    /// memory, Carry and Enable, and AEO looks at the active PEs only.
    pub fn step(&mut self, op: &ArrayOp, tree: &Plane, active: Option<&Plane>) {
        if op.en_we {
            self.counts.invalidate();
            self.enable_full = None;
        }
        if op.is_nop() {
            return;
        }
        let o = Operands::fold(op);
        if o.b_from_enable {
            // Enable may be rewritten in the same pass: read a copy.
            *self.bbuf = *self.enable;
        }
        if let Some(x) = o.w {
            if !(op.en_we
                || active.is_some()
                || o.b_from_enable
                || (o.a == Some(x) && o.b == Some(x)))
                && self.fused_write(op, &o, x, tree)
            {
                return;
            }
        }
        self.alu_passes(op, &o, tree);
        match active {
            Some(act) => self.write_active(op, o.w, act),
            None => self.write_all(op, o.w),
        }
    }

    /// A memory write to plane `x` with every PE active and Enable unchanged, in one fused
    /// pass; when a port reads the written plane, it becomes port A (exchanging A and B in the
    /// tables if it was B). Returns false when no fused kernel fits (nothing was written).
    #[inline]
    fn fused_write(&mut self, op: &ArrayOp, o: &Operands, x: usize, tree: &Plane) -> bool {
        // With every PE enabled, a write conditioned by Enable writes everywhere: the loop
        // without the blend (whether Enable is all set is known until Enable is written).
        let wr_all = op.wr_all || self.enable_full();
        let (mut fa, mut fb, mut ftr, mut ftc) = (o.a, o.b, o.tr, o.tc);
        if fb == Some(x) {
            (fa, fb) = (fb, fa);
            ftr = Lut::swap_ab(o.tr);
            ftc = Lut::swap_ab(o.tc);
        }
        let (lo, rest) = self.mem.split_at_mut(x);
        let Some((wp, hi)) = rest.split_first_mut() else {
            return false;
        };
        let pick = |p: Option<usize>| -> &Plane {
            match p {
                Some(p) if p < x => &lo[p],
                Some(p) => &hi[p - x - 1],
                None => &ZERO_PLANE,
            }
        };
        let a = match fa {
            Some(p) if p == x => kernel::PortA::Dest,
            p => kernel::PortA::Plane(pick(p)),
        };
        let b = if o.b_from_tree { tree } else { pick(fb) };
        let tcs = op.cry_we.then_some(ftc);
        kernel::try_fused_write(ftr, tcs, wr_all, wp, a, b, &mut self.carry, &self.enable)
    }

    /// Whether every bit of Enable is set (scanned once after each change of Enable).
    #[inline]
    fn enable_full(&mut self) -> bool {
        let en = &self.enable;
        *self.enable_full.get_or_insert_with(|| kernel::all_ones(en))
    }

    /// The ALU passes: the next Carry into `cbuf`, the result into `rbuf`. Registers update
    /// together at the clock edge: every pass reads the old values.
    #[inline]
    fn alu_passes(&mut self, op: &ArrayOp, o: &Operands, tree: &Plane) {
        let zero: &Plane = &ZERO_PLANE;
        let a: &Plane = match o.a {
            Some(x) => &self.mem[x],
            None => zero,
        };
        let b: &Plane = match o.b {
            Some(x) => &self.mem[x],
            None if o.b_from_tree => tree,
            None if o.b_from_enable => &self.bbuf,
            None => zero,
        };
        if op.cry_we {
            kernel::carry_plane(o.tc, &mut self.cbuf, a, b, &self.carry);
        }
        if o.w.is_some() || op.en_we {
            kernel::result_plane(o.tr, &mut self.rbuf, a, b, &self.carry);
        }
    }

    /// Write the registers at the PEs in `act` only: the memory write mask, and keep-old
    /// blends for Carry and Enable (`cbuf`/`bbuf` are free again once the result and the new
    /// Carry are computed). AEO looks at the active PEs.
    #[inline]
    fn write_active(&mut self, op: &ArrayOp, w: Option<usize>, act: &Plane) {
        if let Some(x) = w {
            let all = if op.wr_all { u64::MAX } else { 0 };
            for ((m, a), e) in self.bbuf.iter_mut().zip(act).zip(self.enable.iter()) {
                *m = a & (e | all);
            }
            kernel::blend(&mut self.mem[x], &self.rbuf, &self.bbuf, false);
        }
        if op.en_we {
            *self.bbuf = *self.enable;
            kernel::enable_update(&mut self.enable, &self.rbuf, op.lut_e);
            kernel::keep_inactive(&mut self.enable, &self.bbuf, act);
        }
        if op.cry_we {
            kernel::keep_inactive(&mut self.cbuf, &self.carry, act);
            std::mem::swap(&mut self.carry, &mut self.cbuf);
        }
        if op.en_we {
            self.refresh_stripes(Some(act));
        }
    }

    /// Write the registers at every PE (memory where Enable is set, or everywhere with
    /// `wr_all`).
    #[inline]
    fn write_all(&mut self, op: &ArrayOp, w: Option<usize>) {
        if let Some(x) = w {
            kernel::blend(&mut self.mem[x], &self.rbuf, &self.enable, op.wr_all);
        }
        if op.en_we {
            let acc = kernel::enable_update(&mut self.enable, &self.rbuf, op.lut_e);
            self.stripes = std::array::from_fn(|k| acc & plane::stripe_mask(k) != 0);
        }
        if op.cry_we {
            std::mem::swap(&mut self.carry, &mut self.cbuf);
        }
    }
}
