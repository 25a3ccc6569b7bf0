//! Signals by their waveform names for watchpoints and breakpoint conditions
//! (`--watch renderer.igc.l`, `--watch 'renderer.igc.l == 3'`, `--until 'five_l if
//! renderer.igc.i > 2'`). A signal is read by walking the board as the waveform writer does
//! ([`TraceView`], the same [`Tracer`] interface and decode functions), so a name is exactly
//! the one GTKWave shows; the walk skips every scope and record off the signal's path. One
//! name the waveform does not have reads pixel memory as `--peek` does:
//! `renderer.pixel_X_Y.mem[A]` (bit A) or `renderer.pixel_X_Y.mem[A:LEN]` (LEN bits from A,
//! unsigned), for any pixel.

use pp5_rtl::emc_array::MEM_BITS;
use pp5_rtl::renderer::TraceView;
use pp5_rtl::trace::{Decode, DecodeWith, Recorder, Traced, Tracer};
use serde::Serialize;
use std::fmt;

/// A signal's value: a number, or a name (an FSM state, a decoded field).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Num(u64),
    Text(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(n) => write!(f, "{n}"),
            Value::Text(t) => f.write_str(t),
        }
    }
}

/// A signal by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signal {
    /// A waveform signal, by its full path.
    Path(String),
    /// `len` bits of pixel (x, y)'s memory from bit `addr`.
    Mem {
        x: usize,
        y: usize,
        addr: usize,
        len: usize,
        name: String,
    },
}

impl Signal {
    /// The signal `name`: a pixel memory name (`renderer.pixel_X_Y.mem[A]`,
    /// `...mem[A:LEN]`) or a waveform path (checked against a board by [`Signal::check`]).
    pub fn parse(name: &str) -> Result<Signal, String> {
        let name = name.trim();
        if name.is_empty() {
            return Err("a signal name is missing".into());
        }
        if let Some(rest) = name.strip_prefix("renderer.pixel_") {
            if let Some((xy, mem)) = rest.split_once(".mem[") {
                return Signal::mem(name, xy, mem);
            }
        }
        if name.chars().any(char::is_whitespace) {
            return Err(format!("`{name}` is not a signal name"));
        }
        Ok(Signal::Path(name.to_string()))
    }

    fn mem(name: &str, xy: &str, mem: &str) -> Result<Signal, String> {
        let bad = || {
            format!(
                "`{name}`: a pixel's memory is renderer.pixel_X_Y.mem[A] or mem[A:LEN] \
                 (X, Y 0..=127, A..A+LEN within the {MEM_BITS} bits, LEN 1..=64)"
            )
        };
        let (x, y) = xy.split_once('_').ok_or_else(bad)?;
        let range = mem.strip_suffix(']').ok_or_else(bad)?;
        let (a, l) = match range.split_once(':') {
            Some((a, l)) => (a, l),
            None => (range, "1"),
        };
        let num = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
        let (x, y, addr, len) = (num(x)?, num(y)?, num(a)?, num(l)?);
        if x >= 128 || y >= 128 || len == 0 || len > 64 || addr + len > MEM_BITS {
            return Err(bad());
        }
        Ok(Signal::Mem {
            x,
            y,
            addr,
            len,
            name: name.to_string(),
        })
    }

    /// The name as the user wrote it.
    pub fn name(&self) -> &str {
        match self {
            Signal::Path(p) => p,
            Signal::Mem { name, .. } => name,
        }
    }

    /// Whether `view` has this signal: `Err` names the nearest signals it has.
    pub fn check(&self, view: &TraceView) -> Result<(), String> {
        let Signal::Path(path) = self else {
            return Ok(());
        };
        let mut rec = Recorder::default();
        view.trace(&mut rec);
        if rec.signals.iter().any(|s| &s.0 == path) {
            return Ok(());
        }
        let names: Vec<&str> = rec.signals.iter().map(|s| s.0.as_str()).collect();
        let mut hint = crate::suggest::did_you_mean(path, names.iter().copied());
        if hint.is_empty() {
            // The signals of the deepest scope the name shares with the board's.
            let mut scope = path.as_str();
            while let Some((parent, _)) = scope.rsplit_once('.') {
                scope = parent;
                let under: Vec<&str> = names
                    .iter()
                    .copied()
                    .filter(|p| p.len() > scope.len() && p.starts_with(scope))
                    .filter(|p| p.as_bytes()[scope.len()] == b'.')
                    .take(8)
                    .collect();
                if !under.is_empty() {
                    hint = format!(" (under {scope}: {}, ...)", under.join(", "));
                    break;
                }
            }
        }
        let probes = if path.starts_with("renderer.pixel_") {
            "; a probe pixel's signals exist when it is probed and a waveform is written \
             (--probe X,Y with --vcd or --fst), renderer.pixel_X_Y.mem[A] reads any pixel's \
             memory"
        } else {
            ""
        };
        Err(format!(
            "no signal named `{path}`{hint}{probes} (the names are the waveform's: \
             renderer.igc.pc, renderer.igc.l, ...)"
        ))
    }

    /// The signal's value on the board `view` shows (`None`: the board has no such signal).
    pub fn read(&self, view: &TraceView) -> Option<Value> {
        match self {
            Signal::Mem {
                x, y, addr, len, ..
            } => Some(Value::Num(view.board.array.peek(*x, *y, *addr, *len))),
            Signal::Path(path) => {
                let mut r = Reader::new(path);
                view.trace(&mut r);
                r.found
            }
        }
    }
}

/// A tracer that keeps one signal's value and skips everything off its path: scopes and
/// records are not decoded, groups not visited.
struct Reader<'a> {
    path: &'a str,
    /// Per scope entered while on the path: the length of the path matched (with its dot).
    on: Vec<usize>,
    /// Scopes entered since leaving the path.
    off: usize,
    found: Option<Value>,
}

impl<'a> Reader<'a> {
    fn new(path: &'a str) -> Self {
        Reader {
            path,
            on: Vec::new(),
            off: 0,
            found: None,
        }
    }

    /// What is left of the path in the current scope, if the walk is on it.
    fn rest(&self) -> Option<&'a str> {
        (self.off == 0).then(|| &self.path[self.on.last().copied().unwrap_or(0)..])
    }

    /// The rest of the path continues into scope `name`.
    fn enters(&self, name: &str) -> bool {
        self.rest().is_some_and(|r| {
            r.len() > name.len() && r.starts_with(name) && r.as_bytes()[name.len()] == b'.'
        })
    }

    /// The rest of the path is the signal `name`.
    fn is(&self, name: &str) -> bool {
        self.rest() == Some(name)
    }
}

impl Tracer for Reader<'_> {
    fn push_scope(&mut self, name: &str) {
        if self.enters(name) {
            let at = self.on.last().copied().unwrap_or(0) + name.len() + 1;
            self.on.push(at);
        } else {
            self.off += 1;
        }
    }
    fn pop_scope(&mut self) {
        if self.off > 0 {
            self.off -= 1;
        } else {
            self.on.pop();
        }
    }
    fn bits(&mut self, name: &str, width: u32, value: u64) {
        if self.is(name) {
            let mask = if width >= 64 {
                u64::MAX
            } else {
                (1 << width) - 1
            };
            self.found = Some(Value::Num(value & mask));
        }
    }
    fn text(&mut self, name: &str, value: &str) {
        if self.is(name) {
            self.found = Some(Value::Text(value.to_string()));
        }
    }
    fn group(&mut self, _key: u64) -> bool {
        // Off the path the block skips the group's content (and does not close it).
        self.off == 0
    }
    fn record(&mut self, name: &str, words: &[u64], decode: Decode) {
        if self.enters(name) {
            self.push_scope(name);
            decode(words, self);
            self.pop_scope();
        }
    }
    fn record_group(&mut self, words: &[u64], decode: Decode) {
        if self.off == 0 {
            decode(words, self);
        }
    }
    fn record_with(&mut self, words: &[u64], decode: &DecodeWith) {
        if self.off == 0 {
            decode(words, self);
        }
    }
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }
}

/// `SIGNAL OP VALUE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compare {
    pub signal: Signal,
    pub op: Op,
    pub value: Value,
}

/// A condition: comparisons joined by `&&` (all must hold).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cond(pub Vec<Compare>);

impl Cond {
    /// `SIGNAL OP VALUE [&& ...]`: OP one of `== != < <= > >=`, VALUE a number (decimal,
    /// `0x` hex, `0b` binary) or a name (`RUN`, for a text signal).
    pub fn parse(text: &str) -> Result<Cond, String> {
        let parts: Vec<&str> = text.split("&&").collect();
        let mut v = Vec::new();
        for p in parts {
            v.push(Compare::parse(p.trim())?);
        }
        Ok(Cond(v))
    }

    /// Every signal it reads exists on `view`.
    pub fn check(&self, view: &TraceView) -> Result<(), String> {
        self.0.iter().try_for_each(|c| c.signal.check(view))
    }

    /// Whether it holds on `view`.
    pub fn holds(&self, view: &TraceView) -> bool {
        self.0.iter().all(|c| c.holds(view))
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, c) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(" && ")?;
            }
            write!(f, "{} {} {}", c.signal.name(), c.op.text(), c.value)?;
        }
        Ok(())
    }
}

impl Compare {
    fn parse(text: &str) -> Result<Compare, String> {
        // Two-character operators first.
        let ops = [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ];
        let Some((at, s, op)) = ops
            .iter()
            .filter_map(|&(s, op)| text.find(s).map(|at| (at, s, op)))
            .min_by_key(|&(at, s, _)| (at, std::cmp::Reverse(s.len())))
        else {
            return Err(format!(
                "`{text}` is no comparison: write SIGNAL OP VALUE with OP one of == != < <= > >="
            ));
        };
        let signal = Signal::parse(&text[..at])?;
        let value = text[at + s.len()..].trim();
        if value.is_empty() {
            return Err(format!("`{text}`: the value after {s} is missing"));
        }
        Ok(Compare {
            signal,
            op,
            value: parse_value(value),
        })
    }

    fn holds(&self, view: &TraceView) -> bool {
        let Some(v) = self.signal.read(view) else {
            return false;
        };
        let ord = match (&v, &self.value) {
            (Value::Num(a), Value::Num(b)) => a.cmp(b),
            (Value::Text(a), Value::Text(b)) => a.as_str().cmp(b.as_str()),
            // A number against a name (or the reverse) compares their texts.
            (a, b) => a.to_string().cmp(&b.to_string()),
        };
        use std::cmp::Ordering::*;
        match self.op {
            Op::Eq => ord == Equal,
            Op::Ne => ord != Equal,
            Op::Lt => ord == Less,
            Op::Le => ord != Greater,
            Op::Gt => ord == Greater,
            Op::Ge => ord != Less,
        }
    }
}

/// A number (decimal, `0x`, `0b`) or a name.
fn parse_value(s: &str) -> Value {
    let num = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(&h.replace('_', ""), 16).ok()
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        u64::from_str_radix(&b.replace('_', ""), 2).ok()
    } else {
        s.replace('_', "").parse().ok()
    };
    num.map_or_else(|| Value::Text(s.to_string()), Value::Num)
}

/// What a watchpoint watches: a signal (stop when its value changes) or a condition (stop
/// when it becomes true).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Watch {
    Changes(Signal),
    Becomes(Cond),
}

impl Watch {
    /// `SIGNAL` or `SIGNAL OP VALUE [&& ...]`.
    pub fn parse(text: &str) -> Result<Watch, String> {
        if ["=", "<", ">"].iter().any(|o| text.contains(o)) {
            Cond::parse(text).map(Watch::Becomes)
        } else {
            Signal::parse(text).map(Watch::Changes)
        }
    }

    /// Every signal it reads exists on `view`.
    pub fn check(&self, view: &TraceView) -> Result<(), String> {
        match self {
            Watch::Changes(s) => s.check(view),
            Watch::Becomes(c) => c.check(view),
        }
    }
}

impl fmt::Display for Watch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Watch::Changes(s) => f.write_str(s.name()),
            Watch::Becomes(c) => write!(f, "{c}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pp5_rtl::renderer::TraceCtx;
    use pp5_rtl::{Renderer, RendererConfig};

    #[test]
    fn signals_read_by_their_waveform_names() {
        let mut b = Renderer::new(RendererConfig::default());
        b.igc.l = 7;
        b.array.poke(3, 4, 100, 4, 0b1010);
        let ctx = TraceCtx::default();
        let view = TraceView {
            board: &b,
            ctx: &ctx,
        };
        let read = |n: &str| Signal::parse(n).unwrap().read(&view);
        assert_eq!(read("renderer.igc.l"), Some(Value::Num(7)));
        assert_eq!(
            read("renderer.igc.state"),
            Some(Value::Text("RMODE".into()))
        );
        assert_eq!(read("renderer.igc.nope"), None);
        assert_eq!(read("renderer.pixel_3_4.mem[101]"), Some(Value::Num(1)));
        assert_eq!(read("renderer.pixel_3_4.mem[100:4]"), Some(Value::Num(10)));
        // Every signal the walk shows reads as the recorder has it.
        let mut rec = Recorder::default();
        view.trace(&mut rec);
        for (path, width, value, text) in &rec.signals {
            let want = if *width == 0 {
                Value::Text(text.clone())
            } else {
                Value::Num(*value)
            };
            assert_eq!(read(path).as_ref(), Some(&want), "{path}");
        }
        let e = Signal::parse("renderer.igc.ll").unwrap().check(&view);
        assert!(e.unwrap_err().contains("did you mean `renderer.igc.l`"));
        assert!(Signal::parse("renderer.pixel_3_4.mem[207:2]").is_err());
    }

    #[test]
    fn conditions() {
        let mut b = Renderer::new(RendererConfig::default());
        b.igc.l = 3;
        let ctx = TraceCtx::default();
        let view = TraceView {
            board: &b,
            ctx: &ctx,
        };
        let holds = |t: &str| Cond::parse(t).unwrap().holds(&view);
        assert!(holds("renderer.igc.l == 3"));
        assert!(holds("renderer.igc.l==0x3"));
        assert!(holds("renderer.igc.l >= 3 && renderer.igc.l < 4"));
        assert!(!holds("renderer.igc.l > 3"));
        assert!(holds("renderer.igc.state == RMODE"));
        assert!(holds("renderer.igc.state != RUN"));
        assert!(Cond::parse("renderer.igc.l").is_err());
        assert_eq!(
            Watch::parse("renderer.igc.l").unwrap(),
            Watch::Changes(Signal::Path("renderer.igc.l".into()))
        );
        assert_eq!(
            Cond::parse("renderer.igc.l<=0b11").unwrap().to_string(),
            "renderer.igc.l <= 3"
        );
    }
}
