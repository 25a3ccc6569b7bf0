//! The executing microinstruction worked out for its cycles: what its fields make of the
//! registers that stay put while it repeats (the operand registers, aL, IMM8), so that a cycle
//! only adds the bit counter I. The IGC builds it when it fetches a microinstruction and again
//! after a dispatch or a flow-control instruction (which change OPR and aL); it is a
//! simulator's cache, not a hardware register, and is never traced.

use super::microinstruction::{AddrGen, BExt, BSrc, Base, Idx, Microinstruction, Misc, QeeOp};
use crate::emc_array::{ArrayOp, BSource};

/// An address generator with its base (and aL, and IRev's limit) resolved: the address is
/// `base + I × step`, wrapping, `step` being 0, 1 or -1 (as `u32`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct PortPlan {
    /// The port is used (its base is not off; for W: MEM_WE is set too).
    pub on: bool,
    pub base: u32,
    pub step: u32,
}

impl PortPlan {
    /// The generator's address at bit counter `i` (`None`: the port is off).
    #[inline(always)]
    pub fn at(self, i: u8) -> Option<u32> {
        self.on
            .then(|| self.base.wrapping_add(u32::from(i).wrapping_mul(self.step)))
    }
}

/// A plan's port B source, with the extension past the limit folded in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum BPlan {
    /// A source that is the same every cycle (0, 1, Enable, the tree).
    #[default]
    Fixed,
    /// Pixel memory at the B address.
    Mem,
    /// Bit `min(B address, 31)` of `sca`.
    Sca,
}

/// The executing microinstruction, pre-computed ([`super::Igc::plan`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Plan {
    /// Built for the microinstruction in `Igc::last` and the registers as they are now.
    pub valid: bool,
    /// None of: a flow-control instruction, a MISC field (the indicator or a handshake),
    /// B_OFF (port B's index with an operand offset), an address relative to aL outside
    /// every LOOP (a diagnostic every cycle). The IGC's common path.
    pub plain: bool,
    /// An address is relative to aL outside every LOOP.
    pub al_outside_loop: bool,
    /// QEE_OP is set.
    pub qee: bool,
    /// `OPR[B_LIM]`: B's extension and A's zeroing start at this I.
    pub lim: u32,
    /// Port A reads 0 from the limit on (B_EXT = AZERO).
    pub a_zero_past_lim: bool,
    /// From the limit on, B reads 0 (B_EXT = ZERO) ...
    pub b_zero_past_lim: bool,
    /// ... or the sign bit at `b_sign_addr` (B_EXT = SIGN).
    pub b_sign_past_lim: bool,
    pub b_sign_addr: u32,
    pub a: PortPlan,
    pub b: PortPlan,
    pub w: PortPlan,
    pub b_src: BPlan,
    /// The array operation with its constant fields (the LUTs, the write enables, B when
    /// fixed); A, W and a memory or scalar B are filled in each cycle.
    pub op: ArrayOp,
}

/// The registers a plan resolves.
pub(super) struct Regs<'a> {
    pub opr: &'a [u32],
    /// The flow-control unit's aL (`None`: outside every LOOP).
    pub al: Option<i32>,
}

impl Plan {
    /// The plan of `m` with the registers `r`, as [`super::Igc`]'s general path computes
    /// the same microinstruction.
    pub fn new(m: &Microinstruction, r: &Regs) -> Plan {
        let lim = r.opr[m.b_lim as usize];
        let port = |g: AddrGen| resolve(g, m, r);
        let base_only = |g: AddrGen| {
            port(AddrGen {
                base: g.base,
                idx: Idx::None,
            })
        };
        let mut w = port(m.w);
        w.on &= m.mem_we;
        let b_src = match m.b_src {
            BSrc::Mem => BPlan::Mem,
            BSrc::Sca => BPlan::Sca,
            BSrc::Zero | BSrc::One | BSrc::Enable | BSrc::Tree => BPlan::Fixed,
        };
        let fixed_b = match m.b_src {
            BSrc::One => BSource::One,
            BSrc::Enable => BSource::Enable,
            BSrc::Tree => BSource::Tree,
            _ => BSource::Zero,
        };
        let al_outside_loop = [m.a.idx, m.b.idx, m.w.idx].contains(&Idx::Al) && r.al.is_none();
        Plan {
            valid: true,
            plain: m.fc.is_none() && m.misc == Misc::None && m.b_off.is_none() && !al_outside_loop,
            al_outside_loop,
            qee: m.qee != QeeOp::None,
            lim,
            a_zero_past_lim: m.b_ext == BExt::AZero,
            b_zero_past_lim: m.b_ext == BExt::Zero,
            b_sign_past_lim: m.b_ext == BExt::Sign,
            b_sign_addr: base_only(m.b)
                .at(0)
                .unwrap_or(0)
                .wrapping_add(lim.saturating_sub(1)),
            a: port(m.a),
            b: port(m.b),
            w,
            b_src,
            op: ArrayOp {
                a: None,
                b: fixed_b,
                lut_r: m.lut_r,
                lut_c: m.lut_c,
                lut_e: m.lut_e,
                cry_we: m.cry_we,
                en_we: m.en_we,
                w: None,
                wr_all: m.wr_all,
            },
        }
    }
}

/// An address generator of `m` with its base and index resolved ([`super::Igc`]'s `addr`).
fn resolve(g: AddrGen, m: &Microinstruction, r: &Regs) -> PortPlan {
    let base = match g.base {
        Base::Off => return PortPlan::default(),
        Base::Opr(k) => r.opr[k as usize],
        Base::Abs => 0,
        Base::Imm => u32::from(m.imm),
    };
    let (base, step) = match g.idx {
        Idx::None => (base, 0),
        Idx::I => (base, 1),
        // Outside every LOOP aL reads as 0.
        Idx::Al => (base.wrapping_add(r.al.unwrap_or(0) as u32), 0),
        // `OPR[B_LIM] - 1 - I` from the base.
        Idx::IRev => (
            base.wrapping_add(r.opr[m.b_lim as usize]).wrapping_sub(1),
            u32::MAX,
        ),
    };
    PortPlan {
        on: true,
        base,
        step,
    }
}

#[cfg(test)]
mod tests {
    use super::super::microinstruction::{
        decode, A_BASE, B_BASE, B_OFF, FC_BOOL, FC_CONST, W_BASE,
    };
    use super::super::Igc;
    use super::*;

    /// A field's bits in its word.
    fn mask(f: &super::super::microinstruction::Field) -> u32 {
        f.max() << f.shift
    }

    #[test]
    fn the_plan_computes_what_the_general_path_does() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Bases 0..=7 (the top bit of each base field clear), no B_OFF, no FC fields.
        let w1_mask = !(mask(&FC_BOOL) | mask(&FC_CONST) | mask(&B_OFF))
            & !(8 << A_BASE.shift | 8 << B_BASE.shift | 8 << W_BASE.shift);
        let mut igc = Igc::new();
        let mut checked = 0;
        while checked < 50_000 {
            let r = next();
            let w = [r as u32, (r >> 32) as u32 & w1_mask, next() as u32, 0];
            let Ok(m) = decode(&w) else { continue };
            igc.last = m;
            // Operands around the 208 memory bits and the 32 a transfer owns, or anything.
            for o in igc.opr.iter_mut() {
                let v = next();
                *o = if v & 7 == 0 {
                    v as u32
                } else {
                    (v >> 8) as u32 % 240
                };
            }
            let v = next();
            igc.i = v as u8;
            igc.inputs.xfer_busy = v & 0x100 != 0;
            igc.coef[super::super::llpr::COEF_C] = (v >> 32) as u32;
            igc.plan = Plan::new(
                &igc.last,
                &Regs {
                    opr: &igc.opr,
                    al: igc.fc.al(),
                },
            );
            let (mut planned, mut general) = (Vec::new(), Vec::new());
            assert_eq!(
                igc.planned_op(&mut planned),
                igc.array_op(&igc.last, &mut general),
                "{m:?} with OPR {:?}, I {}",
                igc.opr,
                igc.i
            );
            assert_eq!(planned, general, "{m:?}");
            checked += 1;
        }
    }
}
