//! [`EmcArray::step`]: one cycle's operation on all 16,384 PEs. A cycle that writes nothing
//! returns at once. With every PE active and Enable not written, a memory write (with or
//! without Carry's) or a Carry write alone runs as one pass by a fast kernel, chosen once
//! per kind of operation ([`FastPlan`]: the tables with the constant inputs folded in, the
//! write controls, which port reads the written plane) and kept while the operations that
//! follow are of the same kind, as a bit-serial command's are. Otherwise the operand sources
//! are resolved, the Carry and result passes run and the registers are written, masked by
//! the flow-control unit's active PEs or not.

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

/// Port B's kind in a [`FastPlan`]'s key.
const B_MEM: u8 = 0;
const B_TREE: u8 = 1;
const B_ZERO: u8 = 2;
const B_ONE: u8 = 3;

/// An address that is no memory plane (a port or write that has none).
const NO_PLANE: usize = u8::MAX as usize;

/// The fast kernel chosen for a kind of operation: what the tables, the write controls and
/// which ports read the written plane (the key) select, kept from one cycle to the next (a
/// bit-serial command repeats one kind of operation on successive addresses).
#[derive(Clone, Copy, Default)]
pub(super) struct FastPlan {
    /// The key of the operations this plan is for (see [`EmcArray::fast_step`]; 0: none).
    key: u32,
    /// The kernel; `None`: the general passes.
    kernel: Option<kernel::Kernel>,
}

/// Bits of a [`FastPlan`] key's flags byte.
mod flag {
    pub const CRY: u8 = 1;
    pub const WRITE: u8 = 2;
    pub const WR_ALL: u8 = 4;
    pub const HAS_A: u8 = 8;
    /// Port B's kind, 2 bits.
    pub const B_KIND: u32 = 4;
    pub const A_IS_W: u8 = 64;
    pub const B_IS_W: u8 = 128;
}

impl FastPlan {
    /// The kernel for operations with the result table `tr`, the Carry table `tc` and the
    /// `flags` of a key: constant inputs folded into the tables, and the ports exchanged
    /// when port B reads the written plane (it becomes port A).
    #[cold]
    #[inline(never)]
    fn choose(tr: u8, tc: u8, flags: u8) -> Option<kernel::Kernel> {
        /// `f` applied to every table.
        const fn tabulate(f: u8) -> [u8; 256] {
            let mut t = [0; 256];
            let mut i = 0;
            while i < 256 {
                t[i] = match f {
                    0 => Lut::fix_b(i as u8, false),
                    1 => Lut::fix_b(i as u8, true),
                    _ => Lut::swap_ab(i as u8),
                };
                i += 1;
            }
            t
        }
        const FIX_B: [[u8; 256]; 2] = [tabulate(0), tabulate(1)];
        const SWAP_AB: [u8; 256] = tabulate(2);
        let (mut tr, mut tc) = (tr, tc);
        let b_kind = flags >> flag::B_KIND & 3;
        if flags & flag::HAS_A == 0 {
            tr = Lut::fix_a(tr, false);
            tc = Lut::fix_a(tc, false);
        }
        if b_kind == B_ZERO || b_kind == B_ONE {
            let fix = &FIX_B[(b_kind == B_ONE) as usize];
            (tr, tc) = (fix[tr as usize], fix[tc as usize]);
        }
        if flags & flag::B_IS_W != 0 {
            (tr, tc) = (SWAP_AB[tr as usize], SWAP_AB[tc as usize]);
        }
        if flags & flag::A_IS_W != 0 && flags & flag::B_IS_W != 0 {
            // Both ports read the written plane: the general passes.
            None
        } else if flags & (flag::WRITE | flag::CRY) == 0 {
            // No register written (an out-of-range write address): a no-op.
            Some(kernel::nothing)
        } else if flags & flag::WRITE != 0 {
            kernel::fused_kernel(
                tr,
                (flags & flag::CRY != 0).then_some(tc),
                flags & flag::WR_ALL != 0,
                flags & (flag::A_IS_W | flag::B_IS_W) != 0,
            )
        } else {
            kernel::carry_kernel(tc)
        }
    }
}

impl EmcArray {
    /// Execute one cycle's operation on all 16,384 PEs (the clock edge). With `active`
    /// (the flow-control unit's mask, `None` when every PE is active) inactive PEs keep their
    /// memory, Carry and Enable, and AEO looks at the active PEs only.
    ///
    /// A cycle that writes nothing returns at once (inlined into the caller); the others run
    /// out of line.
    #[inline]
    pub fn step(&mut self, op: &ArrayOp, tree: &Plane, active: Option<&Plane>) {
        if !op.is_nop() {
            self.step_op(op, tree, active);
        }
    }

    /// [`EmcArray::step`] of an operation that writes something.
    #[inline(never)]
    fn step_op(&mut self, op: &ArrayOp, tree: &Plane, active: Option<&Plane>) {
        if op.en_we || active.is_some() || !self.fast_step(op, tree) {
            self.general_step(op, tree, active);
        }
    }

    /// [`EmcArray::step`] by the general passes: the ALU results into scratch planes, then
    /// the registers written (Enable and the flow-control mask included).
    #[inline(never)]
    fn general_step(&mut self, op: &ArrayOp, tree: &Plane, active: Option<&Plane>) {
        if op.en_we {
            self.counts.invalidate();
            self.enable_full = None;
        }
        let o = Operands::fold(op);
        if o.b_from_enable {
            // Enable may be rewritten in the same pass: read a copy.
            *self.bbuf = *self.enable;
        }
        self.alu_passes(op, &o, tree);
        match active {
            Some(act) => self.write_active(op, o.w, act),
            None => self.write_all(op, o.w),
        }
    }

    /// The common cycles in one pass: with every PE active and Enable not written, a memory
    /// write (and Carry's) or a Carry write alone, by the kernel the operation's kind selects
    /// ([`FastPlan`]). Returns false (nothing done) when there is no such kernel: port B
    /// reads Enable, both ports read the written plane, or the tables have none.
    #[inline(always)]
    fn fast_step(&mut self, op: &ArrayOp, tree: &Plane) -> bool {
        // Addresses as plane numbers, NO_PLANE (or any number past the memory) for none.
        let a = op.a.map_or(NO_PLANE, usize::from);
        let w = op.w.map_or(NO_PLANE, usize::from);
        let write = w < MEM_BITS;
        let (b, b_kind) = match op.b {
            BSource::Mem(p) if (p as usize) < MEM_BITS => (p as usize, B_MEM),
            BSource::Tree => (NO_PLANE, B_TREE),
            BSource::Zero | BSource::Mem(_) => (NO_PLANE, B_ZERO),
            BSource::One => (NO_PLANE, B_ONE),
            BSource::Enable => return false,
        };
        let (a_is_w, b_is_w) = (write && a == w, write && b == w);
        // With every PE enabled, a write conditioned by Enable writes everywhere: the loop
        // without the blend (whether Enable is all set is known until Enable is written).
        let wr_all = write
            && (op.wr_all
                || match self.enable_full {
                    Some(full) => full,
                    None => self.enable_full(),
                });
        let flags = (op.cry_we as u8)
            | (write as u8) << 1
            | (wr_all as u8) << 2
            | ((a < MEM_BITS) as u8) << 3
            | b_kind << flag::B_KIND
            | (a_is_w as u8) << 6
            | (b_is_w as u8) << 7;
        let key = u32::from_le_bytes([op.lut_r, op.lut_c, flags, 1]);
        if key != self.fast.key {
            let kernel = FastPlan::choose(op.lut_r, op.lut_c, flags);
            self.fast = FastPlan { key, kernel };
        }
        let Some(k) = self.fast.kernel else {
            return false;
        };
        // Port A after the exchange (the written plane itself is read through `w`). A port
        // the tables do not read (no plane, a constant, the written plane) is given any
        // plane: Enable.
        let (pa, pb) = if b_is_w { (b, a) } else { (a, b) };
        let en: &Plane = &self.enable;
        if write {
            let (lo, rest) = self.mem.split_at_mut(w);
            let Some((wp, hi)) = rest.split_first_mut() else {
                return false;
            };
            let pick = |p: usize| -> &Plane {
                match lo.get(p) {
                    Some(p) => p,
                    None => hi.get(p.wrapping_sub(w + 1)).map_or(en, |p| &p.0),
                }
            };
            let pb = if b_kind == B_TREE { tree } else { pick(pb) };
            k(wp, pick(pa), pb, &mut self.carry, en);
        } else {
            let pick = |p: usize| self.mem.get(p).map_or(en, |p| &p.0);
            let pb = if b_kind == B_TREE { tree } else { pick(pb) };
            k(&mut self.rbuf, pick(pa), pb, &mut self.carry, en);
        }
        true
    }

    /// Whether every bit of Enable is set (scanned once after each change of Enable).
    #[inline(never)]
    fn enable_full(&mut self) -> bool {
        let full = kernel::all_ones(&self.enable);
        self.enable_full = Some(full);
        full
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

#[cfg(test)]
mod tests {
    use super::super::alu::enable_eval;
    use super::*;
    use crate::emc_array::plane::PLANE_WORDS;

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        /// A plane: random, all ones, all zeros, random with some all-zero words, or random
        /// with some runs of 16 all-zero words (the fast kernels' chunks).
        fn plane(&mut self) -> Plane {
            let kind = self.below(6);
            let zero_runs = self.next();
            std::array::from_fn(|i| match kind {
                0 => u64::MAX,
                1 => 0,
                2 if self.below(3) == 0 => 0,
                3 if zero_runs >> (i / 16) & 1 != 0 => 0,
                _ => self.next(),
            })
        }
    }

    /// The array's registers, PE by PE.
    #[derive(Clone, PartialEq, Debug)]
    struct Model {
        mem: Vec<Plane>,
        enable: Plane,
        carry: Plane,
    }

    fn bit(p: &Plane, i: usize) -> bool {
        p[i / 64] >> (i % 64) & 1 != 0
    }

    fn put(p: &mut Plane, i: usize, v: bool) {
        p[i / 64] = p[i / 64] & !(1 << (i % 64)) | (v as u64) << (i % 64);
    }

    /// One cycle of `op` on every PE, one PE at a time, from the instruction set's words:
    /// every register is written from the values before the edge.
    fn reference(m: &Model, op: &ArrayOp, tree: &Plane, active: Option<&Plane>) -> Model {
        let mut n = m.clone();
        for i in 0..PLANE_WORDS * 64 {
            let act = active.is_none_or(|p| bit(p, i));
            let mem = |x: u8| (x as usize) < MEM_BITS && bit(&m.mem[x as usize], i);
            let a = op.a.is_some_and(mem);
            let b = match op.b {
                BSource::Zero => false,
                BSource::One => true,
                BSource::Mem(x) => mem(x),
                BSource::Enable => bit(&m.enable, i),
                BSource::Tree => bit(tree, i),
            };
            let (c, e) = (bit(&m.carry, i), bit(&m.enable, i));
            let r = Lut::eval_bit(op.lut_r, a, b, c);
            if !act {
                continue;
            }
            if let Some(x) = op.w.filter(|&x| (x as usize) < MEM_BITS) {
                if op.wr_all || e {
                    put(&mut n.mem[x as usize], i, r);
                }
            }
            if op.cry_we {
                put(&mut n.carry, i, Lut::eval_bit(op.lut_c, a, b, c));
            }
            if op.en_we {
                let ne = enable_eval(op.lut_e, e as u64, r as u64) & 1 != 0;
                put(&mut n.enable, i, ne);
            }
        }
        n
    }

    /// Random operations (the tables the fast kernels know and any others, every source of
    /// port B, ports reading the written plane, out-of-range addresses, with and without the
    /// flow-control mask) step the array exactly as the per-PE reference does, and AEO is the
    /// NOR of the (active) Enables.
    #[test]
    fn step_matches_a_per_pe_reference() {
        const SPECIAL: [u8; 12] = [
            0x96, 0xe8, 0x8e, 0xb2, 0x5a, 0xa0, 0x0a, 0xa5, 0xcc, 0x33, 0xf0, 0x00,
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // Few addresses, so that ports and the written plane often coincide.
        const ADDRS: [u8; 5] = [0, 1, 2, 207, 208];
        let mut arr = EmcArray::new();
        for p in arr.mem.iter_mut().take(3) {
            p.0 = rng.plane();
        }
        arr.mem[207].0 = rng.plane();
        arr.carry.0 = rng.plane();
        arr.enable.0 = rng.plane();
        arr.refresh_aeo();
        let mut model = Model {
            mem: arr.mem.iter().map(|p| p.0).collect(),
            enable: arr.enable.0,
            carry: arr.carry.0,
        };
        for step in 0..3000 {
            let table = |rng: &mut Rng| {
                if rng.below(4) == 0 {
                    rng.next() as u8
                } else {
                    SPECIAL[rng.below(SPECIAL.len() as u64) as usize]
                }
            };
            let addr = |rng: &mut Rng| ADDRS[rng.below(ADDRS.len() as u64) as usize];
            let op = ArrayOp {
                a: (rng.below(5) != 0).then(|| addr(&mut rng)),
                b: match rng.below(6) {
                    0 => BSource::Zero,
                    1 => BSource::One,
                    2 => BSource::Enable,
                    3 => BSource::Tree,
                    _ => BSource::Mem(addr(&mut rng)),
                },
                lut_r: table(&mut rng),
                lut_c: table(&mut rng),
                lut_e: rng.below(16) as u8,
                cry_we: rng.below(3) != 0,
                en_we: rng.below(6) == 0,
                w: (rng.below(5) != 0).then(|| addr(&mut rng)),
                wr_all: rng.below(2) == 0,
            };
            let tree = rng.plane();
            let active = (rng.below(4) == 0).then(|| rng.plane());
            if rng.below(50) == 0 {
                // A testbench's direct write of Enable.
                arr.enable.0 = rng.plane();
                arr.refresh_aeo();
                model.enable = arr.enable.0;
            }
            model = reference(&model, &op, &tree, active.as_ref());
            arr.step(&op, &tree, active.as_ref());
            for (x, p) in model.mem.iter().enumerate() {
                assert!(*p == arr.mem[x].0, "step {step}: {op:?}: memory plane {x}");
            }
            assert!(model.carry == arr.carry.0, "step {step}: {op:?}: Carry");
            assert!(model.enable == arr.enable.0, "step {step}: {op:?}: Enable");
            if op.en_we {
                let acc = model
                    .enable
                    .iter()
                    .zip(active.unwrap_or([u64::MAX; PLANE_WORDS]))
                    .fold(0, |acc, (e, a)| acc | e & a);
                assert_eq!(arr.aeo(), acc == 0, "step {step}: {op:?}: AEO");
            }
        }
    }
}
