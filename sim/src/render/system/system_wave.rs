//! The whole system over a frame as a waveform (`pp5 render --system-wave FILE.vcd|fst`,
//! docs/rendering.md, "The system waveform"): one scope per unit under `system`, times at
//! 20 MHz resolution (the Ring's slots: even 40 MHz cycles, in ps from the frame's start):
//!
//! - `gpK`: `busy`, `triangle` (the scene triangle it works on);
//! - `ringK` (channel K): `busy`, `sender`, `receiver` (a node code: GP k = k, Renderer k =
//!   0x20 + k, the frame buffer = 0x40, its Ring address), `region`;
//! - `rendererK`: `busy` (drawing a region), `region` (0xffff: none), `wait_input` (its IGC
//!   waiting for a command: the Ring's or the GPs' stall, "waiting for Ring input");
//! - `frame_buffer`: `received` (regions received whole), `region` (the last one).
//!
//! The `.gtkw` shows the node codes as names (`GP 3`, `Renderer 5`, `frame buffer`) through
//! GTKWave's translate filter file `waves/ring-nodes.txt` ([`node_filter`] makes its text; a
//! test checks the file is that text), named by its absolute path in the checkout the binary
//! was built from; without that file the codes show as numbers.

use super::ring::Node;
use super::FrameRun;
use crate::trace::{plain_sink, DeclItem, SignalInfo, WaveFormat};
use pp5_rtl::clock::CYCLE_PS;
use std::io;
use std::path::Path;

/// "No region" on a `region` signal.
pub const NO_REGION: u64 = 0xffff;

/// A node's code on the `sender` and `receiver` signals.
pub fn node_code(n: Node) -> u64 {
    match n {
        Node::Gp(k) => k as u64,
        Node::Renderer(k) => 0x20 + k as u64,
        Node::FrameBuffer => u64::from(crate::render::region::FRAME_BUFFER),
    }
}

/// The name of a node code (the inverse of [`node_code`]), for the translate filter.
pub fn node_name(code: u64) -> Option<String> {
    let fb = u64::from(crate::render::region::FRAME_BUFFER);
    match code {
        0..=0x1f => Some(format!("GP {code}")),
        0x20..=0x2f => Some(format!("Renderer {}", code - 0x20)),
        c if c == fb => Some("frame buffer".to_string()),
        _ => None,
    }
}

/// The text of the translate filter file `waves/ring-nodes.txt`: every node code as GTKWave
/// shows an 8-bit vector in hex (two digits) and its name.
pub fn node_filter() -> String {
    let mut out = String::from(
        "# GTKWave translate filter file: the Ring's node codes (`pp5 render --system-wave`,\n\
         # system.ringK.sender and .receiver; docs/rendering.md) as names. Made by\n\
         # pp5_sim::render::system::system_wave::node_filter (a test checks this file is its text).\n",
    );
    for code in 0..=0xffu64 {
        if let Some(name) = node_name(code) {
            out.push_str(&format!("{code:02X} {name}\n"));
        }
    }
    out
}

/// Where the `.gtkw` finds the translate filter file: `waves/ring-nodes.txt` in the checkout
/// the binary was built from, when it is there.
pub fn node_filter_path() -> Option<std::path::PathBuf> {
    let p = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../waves/ring-nodes.txt"
    ));
    p.canonicalize().ok().filter(|p| p.is_file())
}

/// GTKWave's trace flag: translated by a filter file (`^N FILE` before the trace).
const TR_FTRANSLATED: u32 = 1 << 13;

/// The `.gtkw` text with the Ring's `sender` and `receiver` traces shown through `filter`
/// (filter file 1): their flags with [`TR_FTRANSLATED`], the flags before them restored
/// after.
fn with_node_filter(gtkw: &str, filter: &Path) -> String {
    let mut out = String::new();
    let mut flags: Option<u32> = None;
    for line in gtkw.lines() {
        if let Some(f) = line.strip_prefix('@') {
            flags = u32::from_str_radix(f, 16).ok();
        }
        let node = line.starts_with("system.ring")
            && (line.contains(".sender[") || line.contains(".receiver["));
        match flags {
            Some(f) if node => {
                out.push_str(&format!("@{:x}\n", f | TR_FTRANSLATED));
                out.push_str(&format!("^1 {}\n", filter.display()));
                out.push_str(&format!("{line}\n@{f:x}\n"));
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// The system's signals and their changes.
struct Timeline {
    /// (scope, name, width).
    signals: Vec<(String, &'static str, u32)>,
    /// (cycle, signal, value), in the order made (sorted stably by time when written).
    changes: Vec<(u64, usize, u64)>,
}

impl Timeline {
    fn signal(&mut self, scope: &str, name: &'static str, width: u32, init: u64) -> usize {
        self.signals.push((scope.to_string(), name, width));
        let k = self.signals.len() - 1;
        self.changes.push((0, k, init));
        k
    }

    fn at(&mut self, cycle: u64, sig: usize, v: u64) {
        self.changes.push((cycle & !1, sig, v));
    }
}

fn build(run: &FrameRun) -> Result<Timeline, String> {
    let feed = run
        .feed
        .as_ref()
        .ok_or("the GPs and the Ring were not modelled")?;
    let mut t = Timeline {
        signals: Vec::new(),
        changes: Vec::new(),
    };
    if let Some(gp) = &feed.gp {
        let sigs: Vec<(usize, usize)> = (0..gp.gps)
            .map(|k| {
                let s = format!("gp{k}");
                (t.signal(&s, "busy", 1, 0), t.signal(&s, "triangle", 32, 0))
            })
            .collect();
        for (tri, &(start, end)) in gp.tri.iter().enumerate() {
            let (busy, idx) = sigs[tri % gp.gps];
            t.at(start, busy, 1);
            t.at(start, idx, tri as u64);
            t.at(end, busy, 0);
        }
        // A triangle that starts where the last ended keeps `busy` high: put each end
        // before the next start at the same time (the changes are sorted stably).
    }
    let ring = &feed.ring;
    let chans: Vec<[usize; 4]> = (0..ring.channels())
        .map(|c| {
            let s = format!("ring{c}");
            [
                t.signal(&s, "busy", 1, 0),
                t.signal(&s, "sender", 8, 0),
                t.signal(&s, "receiver", 8, 0),
                t.signal(&s, "region", 16, NO_REGION),
            ]
        })
        .collect();
    let mut transfers = ring.transfers.clone();
    transfers.sort_by_key(|x| (x.start, x.channel));
    for x in &transfers {
        let [busy, from, to, region] = chans[x.channel];
        t.at(x.end, busy, 0);
        t.at(x.start, busy, 1);
        t.at(x.start, from, node_code(x.from));
        t.at(x.start, to, node_code(x.to));
        t.at(x.start, region, x.region as u64);
    }
    for r in &run.renderers {
        let s = format!("renderer{}", r.index);
        let busy = t.signal(&s, "busy", 1, 0);
        let region = t.signal(&s, "region", 16, NO_REGION);
        let wait = t.signal(&s, "wait_input", 1, 1);
        for x in run.regions.iter().filter(|x| x.renderer == r.index) {
            t.at(x.start, busy, 1);
            t.at(x.start, region, x.region as u64);
            t.at(x.end, busy, 0);
            t.at(x.end, region, NO_REGION);
        }
        for &(c, on) in feed.waits.get(r.index).into_iter().flatten() {
            t.at(c, wait, u64::from(on));
        }
    }
    let received = t.signal("frame_buffer", "received", 16, 0);
    let last = t.signal("frame_buffer", "region", 16, NO_REGION);
    let mut ends: std::collections::BTreeMap<usize, u64> = Default::default();
    for x in ring.transfers.iter().filter(|x| x.to == Node::FrameBuffer) {
        let e = ends.entry(x.region).or_default();
        *e = (*e).max(x.end);
    }
    let mut done: Vec<(u64, usize)> = ends.into_iter().map(|(r, e)| (e, r)).collect();
    done.sort_unstable();
    for (n, &(e, r)) in done.iter().enumerate() {
        t.at(e, received, n as u64 + 1);
        t.at(e, last, r as u64);
    }
    Ok(t)
}

/// The changes to write: sorted by time, the last value of a signal at a time, only values
/// that differ from the signal's previous one. Yields (cycle, [(signal, value)]).
fn steps(t: &mut Timeline) -> Vec<(u64, Vec<(usize, u64)>)> {
    t.changes.sort_by_key(|c| c.0);
    let mut now: Vec<Option<u64>> = vec![None; t.signals.len()];
    let mut out: Vec<(u64, Vec<(usize, u64)>)> = Vec::new();
    let mut i = 0;
    while i < t.changes.len() {
        let time = t.changes[i].0;
        let mut last: Vec<(usize, u64)> = Vec::new();
        while i < t.changes.len() && t.changes[i].0 == time {
            let (_, s, v) = t.changes[i];
            match last.iter_mut().find(|x| x.0 == s) {
                Some(x) => x.1 = v,
                None => last.push((s, v)),
            }
            i += 1;
        }
        last.retain(|&(s, v)| now[s] != Some(v));
        for &(s, v) in &last {
            now[s] = Some(v);
        }
        if !last.is_empty() {
            out.push((time, last));
        }
    }
    out
}

/// Write the system waveform of `run` to `path` (`.fst`: FST, else VCD) and its `.gtkw`
/// beside it; returns the signals.
pub fn write(path: &Path, run: &FrameRun) -> io::Result<Vec<SignalInfo>> {
    let mut t = build(run).map_err(io::Error::other)?;
    let steps = steps(&mut t);
    // Whole or not at all, under a temporary name, as every other output (out_file).
    let fst = path.extension().is_some_and(|e| e == "fst");
    let format = if fst {
        WaveFormat::Fst
    } else {
        WaveFormat::Vcd
    };
    crate::out_file::write_with(path, |p| {
        let mut sink = plain_sink(p, format, &declaration(&t), t.signals.len())?;
        for (time, changes) in &steps {
            sink.time(time * CYCLE_PS)?;
            for &(s, v) in changes {
                sink.bits(s, v)?;
            }
        }
        sink.finish()
    })?;
    let infos: Vec<SignalInfo> = t
        .signals
        .iter()
        .map(|(scope, name, width)| SignalInfo {
            path: format!("system.{scope}.{name}"),
            width: *width,
            is_text: false,
        })
        .collect();
    let gtkw = path.with_extension("gtkw");
    crate::trace::write_gtkw(&gtkw, path, &gtkw_order(&infos), 0, run.cycles.max(1))?;
    if let Some(filter) = node_filter_path() {
        let text = std::fs::read_to_string(&gtkw)?;
        crate::out_file::write(&gtkw, with_node_filter(&text, &filter))?;
    }
    Ok(infos)
}

/// The signals in the order the `.gtkw` shows them: the Ring's channels, the Renderers and
/// the frame buffer before the (up to 32) GPs, so the view opens on what bounds most
/// frames rather than on rows of GPs (issue 39). The waveform file keeps its own order.
fn gtkw_order(infos: &[SignalInfo]) -> Vec<SignalInfo> {
    let rank = |p: &str| match p.strip_prefix("system.") {
        Some(s) if s.starts_with("ring") => 0,
        Some(s) if s.starts_with("renderer") => 1,
        Some(s) if s.starts_with("gp") => 3,
        _ => 2,
    };
    let mut v = infos.to_vec();
    v.sort_by_key(|i| rank(&i.path));
    v
}

/// The declaration: the signals under `system`, each scope's together in first-seen order.
fn declaration(t: &Timeline) -> Vec<DeclItem> {
    let mut scopes: Vec<(&str, Vec<usize>)> = Vec::new();
    for (k, (scope, _, _)) in t.signals.iter().enumerate() {
        match scopes.iter_mut().find(|s| s.0 == scope) {
            Some(s) => s.1.push(k),
            None => scopes.push((scope, vec![k])),
        }
    }
    let mut items = vec![DeclItem::Scope("system".into())];
    for (scope, sigs) in scopes {
        items.push(DeclItem::Scope(scope.to_string()));
        for k in sigs {
            let (_, name, width) = &t.signals[k];
            items.push(DeclItem::Var {
                slot: k,
                name: name.to_string(),
                width: *width,
                is_text: false,
            });
        }
        items.push(DeclItem::Up);
    }
    items.push(DeclItem::Up);
    items
}
