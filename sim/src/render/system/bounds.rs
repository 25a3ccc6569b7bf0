//! What bounds a frame (docs/rendering.md, "What bounds the frame"): the frame on the full
//! system, and again with each resource unbounded in turn (the GPs: every primitive ready at
//! the start; the Ring: as many channels as messages at once; the Renderers: each region
//! drawn the moment its stream has arrived), the utilisation of every GP, Ring channel and
//! Renderer, a one-line verdict, and the frame time at other GP rates.

use super::feed::{self, FbSend, Feed, Feeder};
use super::{run_frame, FrameRun, SystemError, SystemSpec};
use crate::asm::microcode::McImage;
use crate::render::gp::Frame;
use crate::render::region::RendererStream;
use crate::render::shading::Shading;
use pp5_rtl::clock::CYCLE_PS;
use pp5_rtl::emc_array::plane::ARRAY_DIM;
use std::fmt::Write;

/// GP rates of the sensitivity table, as multiples of the rate studied.
pub const SENSITIVITY: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

/// One system the frame was timed on.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BoundRow {
    pub system: String,
    pub frame_cycles: u64,
    pub frame_us: f64,
    pub prims_per_sec: f64,
}

/// The study of what bounds a frame.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Bounds {
    pub feed: Feed,
    /// Full system; GPs unbounded; Ring unbounded; Renderers unbounded; GPs and Ring
    /// unbounded (the Renderers alone, `pp5 render` before the GPs and the Ring were
    /// modelled).
    pub rows: Vec<BoundRow>,
    /// Busy share of the full system's frame: each GP, Ring channel, Renderer (IGC).
    pub gp_util: Vec<f64>,
    pub ring_util: Vec<f64>,
    pub renderer_util: Vec<f64>,
    /// Busy cycles of each GP and Ring channel.
    pub gp_busy: Vec<u64>,
    pub ring_busy: Vec<u64>,
    /// Each Renderer's IGC cycles waiting for a command while it had a region.
    pub renderer_input_wait: Vec<u64>,
    /// "GPs", "Ring" or "Renderers".
    pub bound: String,
    pub verdict: String,
    /// (M operations/s per GP, frame cycles) on the full system.
    pub sensitivity: Vec<(f64, u64)>,
}

fn us(cycles: u64) -> f64 {
    cycles as f64 * CYCLE_PS as f64 / 1e6
}

fn row(system: &str, cycles: u64, prims: usize) -> BoundRow {
    let frame_us = us(cycles);
    BoundRow {
        system: system.to_string(),
        frame_cycles: cycles,
        frame_us,
        prims_per_sec: if cycles == 0 {
            0.0
        } else {
            prims as f64 / (frame_us / 1e6)
        },
    }
}

/// Cycles of `waits` (on/off transitions) inside the spans.
fn waiting_in(waits: &[(u64, bool)], spans: &[(u64, u64)]) -> u64 {
    let mut total = 0;
    let mut since = Some(0);
    let mut add = |a: u64, b: u64| {
        for &(s, e) in spans {
            total += b.min(e).saturating_sub(a.max(s));
        }
    };
    for &(c, on) in waits {
        match (on, since) {
            (true, None) => since = Some(c),
            (false, Some(s)) => {
                add(s, c);
                since = None;
            }
            _ => {}
        }
    }
    if let Some(s) = since {
        add(s, u64::MAX);
    }
    total
}

/// Each Renderer's IGC cycles waiting for a command within its regions.
fn input_waits(full: &FrameRun) -> Vec<u64> {
    let f = full.feed.as_ref();
    full.renderers
        .iter()
        .map(|r| {
            let spans: Vec<(u64, u64)> = full
                .regions
                .iter()
                .filter(|x| x.renderer == r.index)
                .map(|x| (x.start, x.end))
                .collect();
            f.and_then(|f| f.waits.get(r.index))
                .map_or(0, |w| waiting_in(w, &spans))
        })
        .collect()
}

impl Bounds {
    /// The study of `full`, the frame on `spec` with `feed`.
    pub fn new(
        frame: &Frame,
        shading: &Shading,
        image: &McImage,
        spec: &SystemSpec,
        feed: Feed,
        full: &FrameRun,
    ) -> Result<Bounds, SystemError> {
        let rerun = |f: Option<Feed>| -> Result<u64, SystemError> {
            let s = SystemSpec {
                feed: f,
                keep_streams: false,
                ..*spec
            };
            Ok(run_frame(frame, shading, image, &s, &|_| {})?.cycles)
        };
        let prims = frame.stats.prims;
        let frame_cycles = full.cycles.max(1);
        let no_gps = Feed { gps: None, ..feed };
        let no_ring = Feed { ring: None, ..feed };
        let gps_free = if feed.gps.is_none() {
            full.cycles
        } else {
            rerun(Some(no_gps))?
        };
        let ring_free = if feed.ring.is_none() {
            full.cycles
        } else {
            rerun(Some(no_ring))?
        };
        let renderers_free = renderers_unbounded(frame, shading, image, spec, feed)?;
        let alone = rerun(None)?;
        let rows = vec![
            row("full system", full.cycles, prims),
            row("GPs unbounded", gps_free, prims),
            row("Ring unbounded", ring_free, prims),
            row("Renderers unbounded", renderers_free, prims),
            row("GPs and Ring unbounded (Renderers alone)", alone, prims),
        ];
        let f = full.feed.as_ref();
        let util = |busy: &[u64]| -> Vec<f64> {
            busy.iter()
                .map(|&b| b as f64 / frame_cycles as f64)
                .collect()
        };
        let gp_busy = f
            .and_then(|f| f.gp.as_ref())
            .map(|g| g.busy.clone())
            .unwrap_or_default();
        let ring_busy = f.map(|f| f.ring.busy()).unwrap_or_default();
        let gp_util = util(&gp_busy);
        let ring_util = util(&ring_busy);
        let renderer_util = util(
            &full
                .renderers
                .iter()
                .map(|r| r.igc_busy)
                .collect::<Vec<_>>(),
        );
        let renderer_input_wait = input_waits(full);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let cands = [
            ("GPs", gps_free, mean(&gp_util), "GP time"),
            ("Ring", ring_free, mean(&ring_util), "channel time"),
            (
                "Renderers",
                renderers_free,
                mean(&renderer_util),
                "Renderer IGC time",
            ),
        ];
        let (bound, free, u, what) = cands
            .iter()
            .copied()
            .min_by_key(|c| c.1)
            .unwrap_or(cands[2]);
        let verdict = format!(
            "{bound}-bound: {:.0}% of {what} busy; with the {bound} unbounded the frame takes {} \
             cycles instead of {} ({:.0}% less)",
            100.0 * u,
            free,
            full.cycles,
            100.0 * full.cycles.saturating_sub(free) as f64 / frame_cycles as f64
        );
        let mut sensitivity = Vec::new();
        if let Some((g, mops)) = feed.gps {
            for m in SENSITIVITY {
                let rate = mops * m;
                let c = if m == 1.0 {
                    full.cycles
                } else {
                    rerun(Some(Feed {
                        gps: Some((g, rate)),
                        ..feed
                    }))?
                };
                sensitivity.push((rate, c));
            }
        }
        Ok(Bounds {
            feed,
            rows,
            gp_util,
            ring_util,
            renderer_util,
            gp_busy,
            ring_busy,
            renderer_input_wait,
            bound: bound.to_string(),
            verdict,
            sensitivity,
        })
    }

    /// The study as text.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let gps = match self.feed.gps {
            Some((g, m)) => format!("{g} GP(s) at {m} M operations/s"),
            None => "GPs unbounded".into(),
        };
        let ring = match self.feed.ring {
            Some(c) => format!("a Ring of {c} channel(s)"),
            None => "the Ring unbounded".into(),
        };
        let _ = writeln!(s, "\nwhat bounds the frame ({gps}, {ring}):");
        for r in &self.rows {
            let _ = writeln!(
                s,
                "  {:<42} {:>9} cycles {:>9.1} us {:>9.0} primitives/s",
                r.system, r.frame_cycles, r.frame_us, r.prims_per_sec
            );
        }
        let pct = |v: &[f64]| {
            v.iter()
                .map(|u| format!("{:.0}", 100.0 * u))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let _ = writeln!(s, "utilisation %, GPs: {}", pct(&self.gp_util));
        let _ = writeln!(s, "utilisation %, Ring channels: {}", pct(&self.ring_util));
        let _ = writeln!(s, "utilisation %, Renderers: {}", pct(&self.renderer_util));
        let waits: Vec<String> = self
            .renderer_input_wait
            .iter()
            .map(u64::to_string)
            .collect();
        let _ = writeln!(
            s,
            "Renderers' IGC cycles waiting for a command within their regions: {}",
            waits.join(" ")
        );
        if !self.sensitivity.is_empty() {
            let _ = writeln!(s, "frame time against the GP rate (an assumption):");
            for &(m, c) in &self.sensitivity {
                let _ = writeln!(
                    s,
                    "  {m:>7.1} M operations/s: {c:>9} cycles {:>9.1} us",
                    us(c)
                );
            }
        }
        let _ = writeln!(s, "verdict: {}", self.verdict);
        s
    }

    /// CSV rows in the study's columns (`Study::csv`): `system` rows (the frame on each
    /// system of the table, its cycles in `cycles`), `gp` and `ring_channel` rows (busy
    /// cycles in `cycles`), `gp_rate` rows (the rate in `index`, the frame's cycles in
    /// `cycles`).
    pub fn csv(&self) -> String {
        let mut s = String::new();
        let mut line = |kind: &str, index: String, cycles: u64| {
            let _ = writeln!(s, "{kind},{index},,,,,,,{cycles},,,,,,,,,,");
        };
        for (k, r) in self.rows.iter().enumerate() {
            line("system", k.to_string(), r.frame_cycles);
        }
        for (k, &b) in self.gp_busy.iter().enumerate() {
            line("gp", k.to_string(), b);
        }
        for (k, &b) in self.ring_busy.iter().enumerate() {
            line("ring_channel", k.to_string(), b);
        }
        for &(m, c) in &self.sensitivity {
            line("gp_rate", m.to_string(), c);
        }
        s
    }
}

/// The frame with Renderers that draw a region the moment its stream has arrived: the GPs
/// and the Ring carry the same messages (round robin), and each region's pixels go to the
/// frame buffer from then.
fn renderers_unbounded(
    frame: &Frame,
    shading: &Shading,
    image: &McImage,
    spec: &SystemSpec,
    feed: Feed,
) -> Result<u64, SystemError> {
    let n = spec.renderers;
    let mut f = Feeder::new(frame, &feed, n);
    let mut all = Vec::new();
    for k in 0..n {
        let mut stream = RendererStream::new(&image.table);
        for (seq, r) in (k..frame.bins.regions.len()).step_by(n).enumerate() {
            let (s, counts) = stream
                .region(frame, r, shading)
                .map_err(|e| SystemError(format!("region {r}: {e}")))?;
            for (i, m) in f.pending(k, r, counts.0, &s, 0).into_iter().enumerate() {
                all.push((m.ready, seq, i, k, r, m));
            }
        }
    }
    all.sort_by_key(|e| (e.0, e.1, e.2, e.3));
    let mut arrived = std::collections::BTreeMap::new();
    for (_, _, _, k, r, m) in all {
        let start = f.place(k, r, &[m])[0];
        let end = start + m.words * pp5_rtl::clock::RING_DIVIDE;
        let e = arrived.entry(r).or_insert((k, 0));
        e.1 = e.1.max(end);
    }
    let sends: Vec<FbSend> = arrived
        .into_iter()
        .map(|(r, (k, at))| (k, r, at, (1 + ARRAY_DIM * ARRAY_DIM) as u64))
        .collect();
    let fb = feed::place_fb(&mut f.ring, &sends);
    Ok(fb.max(f.ring.end()))
}
