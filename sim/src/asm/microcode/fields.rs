//! One microinstruction from its tokens, field group by field group: the sequencer, the
//! address generators (ports A, B and the write port), the ALU's LUTs, the loop counter and
//! index, MISC and the QEE; then the checks across fields (IMM8 is shared) and a decode.
//! Also the microinstruction of a lowered flow-control construct.

use super::parse::{parse_num, Decl, Labels};
use crate::asm::expr::truth_table;
use crate::asm::flow::{FcPlan, Pred};
use pp5_rtl::igc::microinstruction::{
    decode, encode, AddrGen, BExt, BSrc, Base, IOp, Idx, LLoad, Microinstruction, Misc, QeeOp, Seq,
    NUM_OPR,
};

/// Every address generator off.
const OFF: AddrGen = AddrGen {
    base: Base::Off,
    idx: Idx::None,
};

/// A microinstruction line (no flow-control construct): its tokens, the command whose
/// arguments are in scope, and the labels.
pub(super) fn build_inst(
    tokens: &[String],
    scope: Option<&Decl>,
    labels: &Labels,
) -> Result<Microinstruction, String> {
    let mut b = Builder {
        m: Microinstruction {
            a: OFF,
            b: OFF,
            w: OFF,
            ..Microinstruction::default()
        },
        seq_set: false,
        imms: Vec::new(),
        misc_imm: None,
        scope,
        labels,
    };
    let mut it = tokens.iter();
    while let Some(tok) = it.next() {
        if !b.keyword(tok, &mut it)? {
            let (k, v) = tok
                .split_once('=')
                .ok_or_else(|| unknown_field(tok, KEYWORDS))?;
            b.field(tok, k, v)?;
        }
    }
    b.finish()
}

/// A microinstruction being built from its tokens.
struct Builder<'a> {
    m: Microinstruction,
    /// A sequencer operation was given.
    seq_set: bool,
    /// The constant addresses (`#N`) of the ports, which share IMM8.
    imms: Vec<u8>,
    /// The IMM8 operand of the MISC operation, if it has one.
    misc_imm: Option<u8>,
    scope: Option<&'a Decl>,
    labels: &'a Labels,
}

impl Builder<'_> {
    fn set_seq(&mut self, tok: &str, s: Seq) -> Result<(), String> {
        if self.seq_set {
            return Err(format!("second sequencer operation `{tok}`"));
        }
        self.seq_set = true;
        self.m.seq = s;
        Ok(())
    }

    fn set_misc(&mut self, misc: Misc) -> Result<(), String> {
        if self.m.misc != Misc::None {
            return Err(format!(
                "second MISC operation {} after {} (one per microinstruction)",
                misc.name(),
                self.m.misc.name()
            ));
        }
        self.m.misc = misc;
        Ok(())
    }

    /// The address of a jump label.
    fn label(&self, t: Option<&String>) -> Result<u16, String> {
        let t = t.ok_or("missing jump label")?;
        self.labels
            .get(t.as_str())
            .map(|l| l.0 as u16)
            .ok_or_else(|| {
                let known = self.labels.keys().map(String::as_str);
                format!(
                    "unknown label `{t}`{}",
                    crate::suggest::did_you_mean(t, known)
                )
            })
    }

    fn opr(&self, name: &str) -> Result<u8, String> {
        opr(name, self.scope)
    }

    /// A word without `=`: a sequencer operation (with its operands from `it`), `i++` or a
    /// MISC operation. `Ok(false)` if `tok` is none of them.
    fn keyword<'t>(
        &mut self,
        tok: &str,
        it: &mut impl Iterator<Item = &'t String>,
    ) -> Result<bool, String> {
        match tok {
            "next" => self.set_seq(tok, Seq::Next)?,
            "dispatch" => self.set_seq(tok, Seq::Dispatch)?,
            "hang" => self.set_seq(tok, Seq::Hang)?,
            "jump" | "loop" | "loopd" | "jaeo" | "jnaeo" => {
                let s = match tok {
                    "jump" => Seq::Jump,
                    "loop" => Seq::Loop,
                    "loopd" => Seq::LoopD,
                    "jaeo" => Seq::JAeo,
                    _ => Seq::JNAeo,
                };
                self.set_seq(tok, s)?;
                self.m.target = self.label(it.next())?;
            }
            "jgt" => {
                self.set_seq(tok, Seq::JOprGt)?;
                let x = self.opr(it.next().ok_or("jgt needs `x y label`")?)?;
                let y = self.opr(it.next().ok_or("jgt needs `x y label`")?)?;
                self.m.imm = x | (y << 4);
                self.m.target = self.label(it.next())?;
            }
            "i++" => self.m.i_op = IOp::Inc,
            "bswait" | "vbs" | "pigc" | "sendstatus" => {
                let misc = match tok {
                    "bswait" => Misc::BsWait,
                    "vbs" => Misc::Vbs,
                    "pigc" => Misc::Pigc,
                    _ => Misc::SendStatus,
                };
                self.set_misc(misc)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A `k=v` field.
    fn field(&mut self, tok: &str, k: &str, v: &str) -> Result<(), String> {
        match k {
            "a" => {
                let inner = bracket(v, "mem").ok_or("port A reads `mem[...]`")?;
                self.m.a = self.port(inner)?;
            }
            "b" => self.port_b(v)?,
            "w" | "wall" => {
                let inner = bracket(v, "mem").ok_or("write port takes `mem[...]`")?;
                self.m.w = self.port(inner)?;
                self.m.mem_we = true;
                self.m.wr_all = k == "wall";
            }
            "bext" | "rlen" => self.b_ext(k, v)?,
            "r" => self.m.lut_r = truth_table(v, &['a', 'b', 'c'])?,
            "c" => {
                self.m.lut_c = truth_table(v, &['a', 'b', 'c'])?;
                self.m.cry_we = true;
            }
            "e" => {
                self.m.lut_e = truth_table(v, &['e', 'r'])?;
                self.m.en_we = true;
            }
            "i" if v == "0" => self.m.i_op = IOp::Clear,
            "l" => self.loop_load(v)?,
            "boff" => {
                let (neg, reg) = match (v.strip_prefix('-'), v.strip_prefix('+')) {
                    (Some(r), _) => (true, r),
                    (_, Some(r)) => (false, r),
                    _ => return Err(format!("`boff={v}`: use -arg or +arg")),
                };
                self.m.b_off = Some((self.opr(reg)?, neg));
            }
            "qee" => {
                self.m.qee = match v {
                    "start" => QeeOp::Start,
                    "cfgall" => QeeOp::CfgAll,
                    "cfgone" => QeeOp::CfgOne,
                    _ => return Err(format!("`qee={v}`: start, cfgall or cfgone")),
                }
            }
            "ind" | "vbs" | "xfer" => self.misc_field(k, v)?,
            _ => return Err(unknown_field(tok, FIELDS)),
        }
        Ok(())
    }

    /// An address generator from the text inside `mem[...]` / `sca[...]`; a constant
    /// address is noted for IMM8.
    fn port(&mut self, inner: &str) -> Result<AddrGen, String> {
        let (g, imm) = addr_gen(inner, self.scope)?;
        self.imms.extend(imm);
        Ok(g)
    }

    /// `b=`: port B's source.
    fn port_b(&mut self, v: &str) -> Result<(), String> {
        match v {
            "0" => self.m.b_src = BSrc::Zero,
            "1" => self.m.b_src = BSrc::One,
            "enable" => self.m.b_src = BSrc::Enable,
            "tree" => self.m.b_src = BSrc::Tree,
            _ => {
                if let Some(inner) = bracket(v, "mem") {
                    self.m.b_src = BSrc::Mem;
                    self.m.b = self.port(inner)?;
                } else if let Some(inner) = bracket(v, "sca") {
                    self.m.b_src = BSrc::Sca;
                    self.m.b = self.port(inner)?;
                } else {
                    return Err(format!(
                        "port B source `{v}`: mem[..], sca[..], tree, enable, 0 or 1"
                    ));
                }
            }
        }
        Ok(())
    }

    /// `bext=zx(len)|sx(len)|azx(len)` and `rlen=len`: port B's extension and limit.
    fn b_ext(&mut self, k: &str, v: &str) -> Result<(), String> {
        let inside = |p: &str| v.strip_prefix(p).and_then(|r| r.strip_suffix(')'));
        let (mode, reg) = if k == "rlen" {
            (self.m.b_ext, v)
        } else if let Some(r) = inside("zx(") {
            (BExt::Zero, r)
        } else if let Some(r) = inside("sx(") {
            (BExt::Sign, r)
        } else if let Some(r) = inside("azx(") {
            (BExt::AZero, r)
        } else {
            return Err(format!("`bext={v}`: use zx(len) or sx(len)"));
        };
        self.m.b_ext = mode;
        self.m.b_lim = self.opr(reg)?;
        Ok(())
    }

    /// `l=`: the loop counter's load.
    fn loop_load(&mut self, v: &str) -> Result<(), String> {
        self.m.l_load = if v == "treelen" {
            LLoad::TreeLen
        } else if let Some(n) = v.strip_prefix('#') {
            self.m.imm = parse_num(n)
                .filter(|x| *x <= 255)
                .ok_or_else(|| format!("bad loop count `{v}`"))? as u8;
            LLoad::Imm
        } else {
            LLoad::Opr(self.opr(v)?)
        };
        Ok(())
    }

    /// `ind=`, `vbs=`, `xfer=`: MISC operations with an operand.
    fn misc_field(&mut self, k: &str, v: &str) -> Result<(), String> {
        match k {
            "ind" => {
                let misc = match v {
                    "on" => Misc::IndOn,
                    "off" => Misc::IndOff,
                    _ => return Err(format!("`ind={v}`: on or off")),
                };
                self.set_misc(misc)?;
            }
            "vbs" => {
                self.set_misc(Misc::Vbs)?;
                self.misc_imm = Some(match v {
                    "now" => 0,
                    "later" => 1,
                    _ => return Err(format!("`vbs={v}`: now or later")),
                });
            }
            _ => {
                let inside = |p: &str| v.strip_prefix(p).and_then(|r| r.strip_suffix(')'));
                let (store, reg) = if let Some(r) = inside("load(") {
                    (false, r)
                } else if let Some(r) = inside("store(") {
                    (true, r)
                } else {
                    return Err(format!("`xfer={v}`: load(sector) or store(sector)"));
                };
                self.set_misc(Misc::Xfer)?;
                self.misc_imm = Some(store as u8 | self.opr(reg)? << 1);
            }
        }
        Ok(())
    }

    /// The checks across fields (the users of IMM8), then a decode of the encoding.
    fn finish(mut self) -> Result<Microinstruction, String> {
        let m = &mut self.m;
        if let Some(v) = self.misc_imm {
            if m.b_off.is_some()
                || m.l_load == LLoad::Imm
                || m.seq == Seq::JOprGt
                || !self.imms.is_empty()
            {
                return Err(format!(
                    "{} keeps its operand in IMM8, which l=#N, jgt, boff and #N addresses also use; put them in different microinstructions",
                    m.misc.name()
                ));
            }
            m.imm = v;
        }
        port_imm(m, &self.imms)?;
        if m.b_off.is_some() && (m.l_load == LLoad::Imm || m.seq == Seq::JOprGt) {
            return Err(
                "boff shares IMM8 with l=#N and jgt; use them in different microinstructions"
                    .into(),
            );
        }
        // Uses of the index-reversal need B_LIM; check the result decodes.
        decode(&encode(m)).map_err(|e| format!("illegal microinstruction: {e}"))?;
        Ok(self.m)
    }
}

/// A lowered flow-control construct as a microinstruction.
pub(super) fn build_fc(plan: &FcPlan, scope: Option<&Decl>) -> Result<Microinstruction, String> {
    let mut m = Microinstruction {
        a: OFF,
        b: OFF,
        w: OFF,
        fc: Some(plan.instr),
        target: plan.target as u16,
        fc_bool: plan.fc_bool,
        fc_const: plan.fc_const,
        ..Microinstruction::default()
    };
    if let Some(Pred::Mem(inner)) = &plan.pred {
        let (a, imm) = addr_gen(inner, scope)?;
        m.a = a;
        port_imm(&mut m, imm.as_slice())?;
    }
    decode(&encode(&m)).map_err(|e| format!("illegal flow-control microinstruction: {e}"))?;
    Ok(m)
}

/// Resolve an operand-register name: `oprK` or an argument of the command in scope.
fn opr(name: &str, scope: Option<&Decl>) -> Result<u8, String> {
    if let Some(k) = name.strip_prefix("opr").and_then(|k| k.parse::<u8>().ok()) {
        if (k as usize) < NUM_OPR {
            return Ok(k);
        }
    }
    let d =
        scope.ok_or_else(|| format!("`{name}`: no command is in scope here; use opr0..opr4"))?;
    let mut k = 0u8;
    for (n, kind, _) in &d.args {
        if !kind.is_operand() {
            continue;
        }
        if n == name {
            return Ok(k);
        }
        k += 1;
    }
    Err(format!(
        "`{name}` is not an argument of {} ({})",
        d.name,
        d.args
            .iter()
            .map(|a| a.0.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Parse `mem[X]` / `sca[X]` address expressions: `base`, `base+i`, `base+ri`, `base+al`,
/// `i`, `al`, where `base` is an argument, `oprN`, `0` or `#N` (the constant address N, held in
/// IMM8: returned as the second value).
fn addr_gen(inner: &str, scope: Option<&Decl>) -> Result<(AddrGen, Option<u8>), String> {
    let (b, idx) = match inner.split_once('+') {
        Some((b, "i")) => (b, Idx::I),
        Some((b, "ri")) => (b, Idx::IRev),
        Some((b, "al")) => (b, Idx::Al),
        Some((_, x)) => return Err(format!("index `{x}` must be `i`, `ri` or `al`")),
        None if inner == "i" => ("0", Idx::I),
        None if inner == "al" => ("0", Idx::Al),
        None => (inner, Idx::None),
    };
    if let Some(n) = b.strip_prefix('#') {
        let v = parse_num(n)
            .filter(|v| *v <= 255)
            .ok_or_else(|| format!("constant address `{b}` must be #0..=#255"))?;
        return Ok((
            AddrGen {
                base: Base::Imm,
                idx,
            },
            Some(v as u8),
        ));
    }
    let base = if b == "0" {
        Base::Abs
    } else {
        Base::Opr(opr(b, scope)?)
    };
    Ok((AddrGen { base, idx }, None))
}

/// The IMM8 value the ports' constant addresses need (all must agree), checked against the
/// other users of IMM8.
fn port_imm(m: &mut Microinstruction, imms: &[u8]) -> Result<(), String> {
    let Some(&v) = imms.first() else {
        return Ok(());
    };
    if imms.iter().any(|&x| x != v) {
        return Err("the ports' constant addresses must be equal (they share IMM8)".into());
    }
    if m.l_load == LLoad::Imm || m.seq == Seq::JOprGt || m.b_off.is_some() {
        return Err("a constant address (#N) shares IMM8 with l=#N, jgt and boff".into());
    }
    m.imm = v;
    Ok(())
}

fn bracket<'a>(v: &'a str, prefix: &str) -> Option<&'a str> {
    v.strip_prefix(prefix)?.strip_prefix('[')?.strip_suffix(']')
}

/// The words a microinstruction may hold without `=` (sequencer and MISC operations).
const KEYWORDS: &[&str] = &[
    "next",
    "dispatch",
    "hang",
    "jump",
    "loop",
    "loopd",
    "jaeo",
    "jnaeo",
    "jgt",
    "i++",
    "bswait",
    "vbs",
    "pigc",
    "sendstatus",
];

/// The `name=` fields of a microinstruction.
const FIELDS: &[&str] = &[
    "a", "b", "w", "wall", "bext", "rlen", "r", "c", "e", "i", "l", "boff", "qee", "ind", "vbs",
    "xfer",
];

/// `unknown microinstruction field`, with the nearest known one when it is close (by the
/// name before `=`, against `known`).
fn unknown_field(tok: &str, known: &[&str]) -> String {
    let key = tok.split_once('=').map_or(tok, |(k, _)| k);
    let hint = match tok.split_once('=') {
        Some(_) => {
            crate::suggest::did_you_mean(key, known.iter().copied()).replace("`?)", "=...`?)")
        }
        None => crate::suggest::did_you_mean(key, known.iter().copied()),
    };
    format!("unknown microinstruction field `{tok}`{hint}")
}
