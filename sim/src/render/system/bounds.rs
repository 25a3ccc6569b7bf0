//! What bounds a frame (docs/rendering.md, "What bounds the frame"): the frame on the full
//! system, and again with each resource unbounded in turn (the GPs: every primitive ready at
//! the start; the Ring: a channel for every message at once; the Renderers: each region
//! drawn the moment its stream has arrived), each row no longer than the full system's (an
//! unbounded resource can always do what the bounded one did: when the simulated schedule
//! without the limit comes out longer, a first-come-first-served anomaly, the row is the
//! full frame and says so); the utilisation of every GP, Ring channel and Renderer; a
//! one-line verdict (the resource with the highest utilisation); and the frame time at other
//! GP rates. The frames to simulate are independent and run in parallel (rayon).

use super::feed::{ready_times, Feed, FB_PACKET};
use super::gp_cost::GpSchedule;
use super::ring::{Node, Ring};
use super::{run_frame_tapped, DataTaps, FrameRun, Recorded, RendererRun, SystemError, SystemSpec};
use crate::asm::microcode::McImage;
use crate::render::gp::Frame;
use crate::render::region::RendererStream;
use crate::render::shading::Shading;
use crate::render::study::IgcTimeout;
use crate::stream::Port;
use pp5_rtl::clock::CYCLE_PS;
use pp5_rtl::emc_array::plane::ARRAY_DIM;
use rayon::prelude::*;
use std::fmt::Write;

/// GP rates of the sensitivity table, as multiples of the rate studied.
pub const SENSITIVITY: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

/// One system the frame was timed on.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BoundRow {
    pub system: String,
    /// The frame's cycles: for a row with a resource unbounded, the shorter of the simulated
    /// frame and the full system's.
    pub frame_cycles: u64,
    pub frame_us: f64,
    pub prims_per_sec: f64,
    /// The simulated frame, when it came out longer than the full system's (and the row is
    /// the full system's frame).
    pub anomaly: Option<u64>,
}

/// The study of what bounds a frame.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Bounds {
    pub feed: Feed,
    /// Full system; GPs unbounded; Ring unbounded; Renderers unbounded; GPs and Ring
    /// unbounded (the Renderers alone, `pp5 render --renderers-only`).
    pub rows: Vec<BoundRow>,
    /// Busy share of the full system's frame: each GP, Ring channel, Renderer (its IGC
    /// executing its commands: `RendererRun::work`; waiting is not working).
    pub gp_util: Vec<f64>,
    pub ring_util: Vec<f64>,
    pub renderer_util: Vec<f64>,
    /// Each Renderer's IGC waiting, share of the frame, by cause: for a command's words (the
    /// GPs, the Ring), for a free backing-store buffer (PIGC: its previous region's pixels
    /// still going out), for the transfer unit (BSWAIT) (`RendererRun::wait_input`, ...).
    pub renderer_wait_input: Vec<f64>,
    pub renderer_wait_buffer: Vec<f64>,
    pub renderer_wait_transfer: Vec<f64>,
    /// Busy cycles of each GP and Ring channel.
    pub gp_busy: Vec<u64>,
    pub ring_busy: Vec<u64>,
    /// Each Renderer's IGC cycles waiting for a command while it had a region.
    pub renderer_input_wait: Vec<u64>,
    /// "GPs", "Ring" or "Renderers": the bounded resource whose removal alone shortens the
    /// frame most (its row); "none" when no removal alone shortens it. Never a resource
    /// that is already unbounded.
    pub bound: String,
    pub verdict: String,
    /// (M operations/s per GP, frame cycles) on the full system.
    pub sensitivity: Vec<(f64, u64)>,
    /// The rates of `sensitivity` whose frame is longer than at a slower rate (first come,
    /// first served: faster GPs reorder the Ring's grants; docs/rendering.md, "Small
    /// anomalies"): shown as simulated, marked.
    pub sensitivity_anomalies: Vec<f64>,
    /// The study's frames that replayed the full system's frame, and those run in full
    /// (docs/rendering.md, "Which rows are simulated, which derived"; not in the report).
    #[serde(skip)]
    pub frames: FramesRun,
}

/// How a study's frames were simulated ([`Bounds::frames`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct FramesRun {
    pub replayed: usize,
    pub full: usize,
}

/// The rates of a sensitivity table whose frame is longer than at some slower rate.
fn slower_is_shorter(sensitivity: &[(f64, u64)]) -> Vec<f64> {
    sensitivity
        .iter()
        .enumerate()
        .filter(|&(k, &(_, c))| sensitivity[..k].iter().any(|&(_, s)| s < c))
        .map(|(_, &(m, _))| m)
        .collect()
}

fn us(cycles: u64) -> f64 {
    cycles as f64 * CYCLE_PS as f64 / 1e6
}

/// A row of the table; `bound`: the full frame, which an unbounded resource cannot exceed.
fn row(system: &str, cycles: u64, prims: usize, bound: Option<u64>) -> BoundRow {
    let (cycles, anomaly) = match bound {
        Some(b) if cycles > b => (b, Some(cycles)),
        _ => (cycles, None),
    };
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
        anomaly,
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

/// The frames the study of `feed` simulates whatever the full system's frame shows: the
/// Renderers alone and the slower GP rates (a faster rate, or a resource unbounded, may be
/// derived from the full frame instead). They can run beside the full system's frame
/// ([`simulate`]), their cycles handed to [`Bounds::new`].
pub fn unconditional(feed: Feed) -> Vec<Option<Feed>> {
    let slower = SENSITIVITY.iter().filter(|&&m| m < 1.0);
    let rates = slower.filter_map(|&m| at_rate(feed, m)).map(Some);
    std::iter::once(None).chain(rates).collect()
}

/// `feed` with its GPs at `m` times their rate (`None` without GPs): one expression, so that
/// the frames run early ([`unconditional`]) are found again by equality in [`Bounds::new`].
fn at_rate(feed: Feed, m: f64) -> Option<Feed> {
    let (g, mops) = feed.gps?;
    Some(Feed {
        gps: Some((g, mops * m)),
        ..feed
    })
}

/// The frame's cycles on `spec` with each of `feeds` (`None`: the Renderers alone), the
/// frames in parallel, each on one thread: a frame's Renderers are stepped in turn, as
/// their rounds on the Ring are short (docs/rendering.md, "Which rows are simulated").
/// With `recorded` (the full system's frame recorded), each frame replays it, and runs in
/// full only when the replay is not the recorded frame ([`DataTaps::Replay`]).
pub fn simulate(
    frame: &Frame,
    shading: &Shading,
    image: &McImage,
    spec: &SystemSpec,
    feeds: &[Option<Feed>],
    recorded: Option<&Recorded>,
) -> Result<Vec<Simulated>, SystemError> {
    feeds
        .par_iter()
        .map(|&f| {
            let s = SystemSpec {
                feed: f,
                keep_streams: false,
                profile: false,
                ..*spec
            };
            let run = |taps| run_frame_tapped(frame, shading, image, &s, &|_| {}, taps);
            let replayed = recorded.map(|r| run(DataTaps::Replay(r)));
            let (cycles, replayed) = match replayed {
                Some(Ok(r)) => (r.cycles, true),
                _ => (run(DataTaps::Compute)?.cycles, false),
            };
            Ok(Simulated {
                feed: f,
                cycles,
                replayed,
            })
        })
        .collect()
}

/// A study's frame simulated ([`simulate`]).
#[derive(Clone, Copy, Debug)]
pub struct Simulated {
    /// Its GPs and Ring (`None`: the Renderers alone).
    pub feed: Option<Feed>,
    /// Its cycles.
    pub cycles: u64,
    /// It replayed the full system's frame (otherwise it ran in full).
    pub replayed: bool,
}

impl Bounds {
    /// The study of `full`, the frame on `spec` with `feed`; `done`: frames already
    /// simulated, with their cycles ([`unconditional`], [`simulate`]).
    pub fn new(
        frame: &Frame,
        shading: &Shading,
        image: &McImage,
        spec: &SystemSpec,
        feed: Feed,
        full: &FrameRun,
        done: &[Simulated],
    ) -> Result<Bounds, SystemError> {
        let prims = frame.stats.prims;
        let frame_cycles = full.cycles.max(1);
        // The frames to simulate, each once: GPs unbounded, Ring unbounded, the Renderers
        // alone, the other GP rates. A resource already unbounded is the full frame, and so
        // is one that never held anything up in it (the same run, cycle for cycle): the Ring
        // when every message went the cycle it asked; faster GPs when no message asked in
        // the first slot after the GPs had it ready.
        let f = full.feed.as_ref();
        let ring_idle = f.is_some_and(|f| f.ring.transfers.iter().all(|t| t.start == t.ready));
        let gps_idle = f.is_some_and(|f| f.gp_waits == 0);
        let mut runs: Vec<Option<Feed>> = Vec::new();
        let mut want = |f: Option<Feed>| -> usize {
            if let Some(k) = runs.iter().position(|x| *x == f) {
                return k;
            }
            runs.push(f);
            runs.len() - 1
        };
        let no_gps = feed
            .gps
            .filter(|_| !gps_idle)
            .map(|_| want(Some(Feed { gps: None, ..feed })));
        let no_ring = feed
            .ring
            .filter(|_| !ring_idle)
            .map(|_| want(Some(Feed { ring: None, ..feed })));
        let alone = want(None);
        let rates: Vec<(f64, Option<usize>)> = match feed.gps {
            Some((_, mops)) => SENSITIVITY
                .iter()
                .map(|&m| {
                    let same = m == 1.0 || (m > 1.0 && gps_idle);
                    (mops * m, (!same).then(|| want(at_rate(feed, m))))
                })
                .collect(),
            None => Vec::new(),
        };
        let left: Vec<Option<Feed>> = runs
            .iter()
            .filter(|f| !done.iter().any(|d| d.feed == **f))
            .copied()
            .collect();
        let simulated = simulate(frame, shading, image, spec, &left, full.recorded.as_ref())?;
        let frames: Vec<&Simulated> = done.iter().chain(&simulated).collect();
        let cycles: Vec<u64> = runs
            .iter()
            .map(|f| {
                let run = frames.iter().find(|d| d.feed == *f);
                run.map(|d| d.cycles)
                    .ok_or_else(|| SystemError(format!("the study's frame {f:?} was not run")))
            })
            .collect::<Result<_, SystemError>>()?;
        let of = |k: Option<usize>| k.map_or(full.cycles, |k| cycles[k]);
        let renderers_free = renderers_unbounded(frame, shading, image, spec, feed)?;
        let bound = Some(full.cycles);
        let rows = vec![
            row("full system", full.cycles, prims, None),
            row("GPs unbounded", of(no_gps), prims, bound),
            row("Ring unbounded", of(no_ring), prims, bound),
            row("Renderers unbounded", renderers_free, prims, bound),
            row(
                "GPs and Ring unbounded (Renderers alone)",
                cycles[alone],
                prims,
                None,
            ),
        ];
        let sensitivity: Vec<(f64, u64)> = rates.iter().map(|&(m, k)| (m, of(k))).collect();
        let sensitivity_anomalies = slower_is_shorter(&sensitivity);
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
        let renderer_input_wait = input_waits(full);
        let of_renderers =
            |f: fn(&RendererRun) -> u64| util(&full.renderers.iter().map(f).collect::<Vec<_>>());
        let gp_util = util(&gp_busy);
        let ring_util = util(&ring_busy);
        let renderer_util = of_renderers(|r| r.work);
        let bounded = [feed.gps.is_some(), feed.ring.is_some(), true];
        let (bound, mut verdict) = verdict(&rows, [&gp_util, &ring_util, &renderer_util], bounded);
        if let Some(f) = IgcTimeout::of(&full.renderers).finding() {
            verdict = format!("{verdict}. Also: {f}");
        }
        Ok(Bounds {
            feed,
            rows,
            gp_util,
            ring_util,
            renderer_util,
            renderer_wait_input: of_renderers(|r| r.wait_input),
            renderer_wait_buffer: of_renderers(|r| r.wait_buffer),
            renderer_wait_transfer: of_renderers(|r| r.wait_transfer),
            gp_busy,
            ring_busy,
            renderer_input_wait,
            bound,
            verdict,
            sensitivity,
            sensitivity_anomalies,
            frames: FramesRun {
                replayed: frames.iter().filter(|d| d.replayed).count(),
                full: frames.iter().filter(|d| !d.replayed).count(),
            },
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
        let already = [false, self.feed.gps.is_none(), self.feed.ring.is_none()];
        for (k, r) in self.rows.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {:<42} {:>9} cycles {:>9.1} us {:>9.0} primitives/s{}{}",
                r.system,
                r.frame_cycles,
                r.frame_us,
                r.prims_per_sec,
                if r.anomaly.is_some() { " *" } else { "" },
                if already.get(k) == Some(&true) {
                    " (already unbounded: the full system)"
                } else {
                    ""
                }
            );
        }
        for r in &self.rows {
            if let Some(a) = r.anomaly {
                let _ = writeln!(
                    s,
                    "  * {}: simulated {a} cycles, longer than the full system (a \
                     first-come-first-served anomaly); the full system's schedule stays \
                     possible without the limit, so the row is the full frame",
                    r.system
                );
            }
        }
        let pct = |v: &[f64]| {
            v.iter()
                .map(|u| format!("{:.0}", 100.0 * u))
                .collect::<Vec<_>>()
                .join(" ")
        };
        match self.feed.gps {
            Some(_) => {
                let _ = writeln!(s, "utilisation %, GPs: {}", pct(&self.gp_util));
            }
            None => {
                let _ = writeln!(s, "utilisation %, GPs: unbounded");
            }
        }
        match self.feed.ring {
            Some(_) => {
                let _ = writeln!(s, "utilisation %, Ring channels: {}", pct(&self.ring_util));
            }
            None => {
                let _ = writeln!(
                    s,
                    "utilisation %, Ring channels: unbounded ({} used at most at once)",
                    self.ring_util.len()
                );
            }
        }
        let _ = writeln!(
            s,
            "utilisation %, Renderers (their IGCs working): {}",
            pct(&self.renderer_util)
        );
        let _ = writeln!(
            s,
            "Renderers' IGCs waiting, % of the frame: for a command's words (the GPs, the \
             Ring): {}; for a free buffer (PIGC: the previous region's pixels going out): {}; \
             for the transfer unit (BSWAIT): {}",
            pct(&self.renderer_wait_input),
            pct(&self.renderer_wait_buffer),
            pct(&self.renderer_wait_transfer)
        );
        if !self.sensitivity.is_empty() {
            let _ = writeln!(s, "frame time against the GP rate (an assumption):");
            for &(m, c) in &self.sensitivity {
                let _ = writeln!(
                    s,
                    "  {m:>7.1} M operations/s: {c:>9} cycles {:>9.1} us{}",
                    us(c),
                    if self.sensitivity_anomalies.contains(&m) {
                        " *"
                    } else {
                        ""
                    }
                );
            }
            if !self.sensitivity_anomalies.is_empty() {
                let _ = writeln!(
                    s,
                    "  * longer than at a slower rate: the Ring is first come, first served, \
                     and messages ready earlier take channels in another order \
                     (docs/rendering.md, \"Small anomalies\")"
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

/// The bound and the verdict. The bound is the bounded resource (`bounded`: GPs, Ring,
/// Renderers) whose removal alone shortens the frame most (its row: `rows[1..=3]`; on a tie
/// the busier): what the rows say. The verdict gives that gain beside the others, the mean
/// utilisations (an unbounded resource has none), and says so plainly when the busiest
/// resource is not the one whose removal gains most. No removal alone gains anything: the
/// bound is "none" (unless the Renderers are the only bounded resource: the frame is theirs).
fn verdict(rows: &[BoundRow], util: [&Vec<f64>; 3], bounded: [bool; 3]) -> (String, String) {
    const NAMES: [(&str, &str); 3] = [
        ("GPs", "the GPs"),
        ("Ring", "the Ring"),
        ("Renderers", "the Renderers"),
    ];
    let mean = |v: &[f64]| v.iter().copied().sum::<f64>() / v.len().max(1) as f64;
    let means = util.map(|u| mean(u).max(0.0));
    let full = rows[0].frame_cycles;
    let gain = |k: usize| full.saturating_sub(rows[k + 1].frame_cycles);
    let pct = |c: u64| 100.0 * c as f64 / full.max(1) as f64;
    let cands: Vec<usize> = (0..3).filter(|&k| bounded[k]).collect();
    // The most gain; on a tie the busier; then the first.
    let best = cands
        .iter()
        .copied()
        .max_by(|&a, &b| {
            gain(a)
                .cmp(&gain(b))
                .then(means[a].total_cmp(&means[b]))
                .then(b.cmp(&a))
        })
        .unwrap_or(2);
    let busiest = cands
        .iter()
        .copied()
        .max_by(|&a, &b| means[a].total_cmp(&means[b]).then(b.cmp(&a)))
        .unwrap_or(2);
    let most = util.map(|u| u.iter().copied().fold(0.0, f64::max));
    let busy: Vec<String> = (0..3)
        .map(|k| match bounded[k] {
            true => format!(
                "{} {:.0}% ({:.0}%)",
                NAMES[k].0,
                100.0 * means[k],
                100.0 * most[k]
            ),
            false => format!("{} unbounded", NAMES[k].0),
        })
        .collect();
    let busy = format!(
        "utilisation, mean (busiest unit): {} (a Renderer's: its IGC working)",
        busy.join(", ")
    );
    let others: Vec<String> = cands
        .iter()
        .filter(|&&k| k != best)
        .map(|&k| format!("{} unbounded: {:.1}% less", NAMES[k].0, pct(gain(k))))
        .collect();
    let (bound, head) = if gain(best) == 0 && cands.len() > 1 {
        let all: Vec<&str> = cands.iter().map(|&k| NAMES[k].1).collect();
        (
            "none".to_string(),
            format!(
                "no one resource bounds the frame: unbounding {} alone leaves it at {full} \
                 cycles; {busy}",
                all.join(" or ")
            ),
        )
    } else {
        let (name, the) = NAMES[best];
        let mut head = format!(
            "{name}-bound: with {the} unbounded the frame takes {} cycles instead of {full} \
             ({:.1}% less)",
            rows[best + 1].frame_cycles,
            pct(gain(best))
        );
        if others.is_empty() {
            let free: Vec<&str> = (0..3)
                .filter(|&k| !bounded[k])
                .map(|k| NAMES[k].1)
                .collect();
            let _ = write!(head, "; {} unbounded", free.join(" and "));
        } else {
            let _ = write!(
                head,
                ", the most of any one resource ({})",
                others.join(", ")
            );
        }
        let _ = write!(head, "; {busy}");
        if busiest != best {
            let _ = write!(
                head,
                "; {} busier ({:.0}% against {:.0}%), but unbounding it gains less \
                 ({:.1}%)",
                match busiest {
                    1 => "the Ring is",
                    0 => "the GPs are",
                    _ => "the Renderers are",
                },
                100.0 * means[busiest],
                100.0 * means[best],
                pct(gain(busiest))
            );
        }
        (name.to_string(), head)
    };
    (bound, head)
}

/// A Renderer's messages to one port, in order: (ready, words, GP, region, the region's
/// last).
type PortQueue = std::collections::VecDeque<(u64, u64, usize, usize, bool)>;

/// The frame with Renderers that draw a region the moment its stream has arrived (round
/// robin): each Renderer's ports take a message as soon as the previous one has arrived,
/// each region's pixels go to the frame buffer packet by packet from when its last message
/// arrived, on the same Ring (first come, first served) with the same GPs.
fn renderers_unbounded(
    frame: &Frame,
    shading: &Shading,
    image: &McImage,
    spec: &SystemSpec,
    feed: Feed,
) -> Result<u64, SystemError> {
    let n = spec.renderers;
    let gp = feed.gps.map(|(g, mops)| GpSchedule::new(frame, g, mops));
    // Each Renderer's messages per port, in order: (ready, words, gp, region, last of it).
    let mut msgs: Vec<[PortQueue; 2]> = Vec::new();
    for k in 0..n {
        let mut stream = RendererStream::new(&image.table);
        let mut last = (0, 0);
        let mut q: [PortQueue; 2] = Default::default();
        for r in (k..frame.bins.regions.len()).step_by(n) {
            let (s, counts) = stream
                .region(frame, r, shading)
                .map_err(|e| SystemError(format!("region {r}: {e}")))?;
            let p = ready_times(frame, gp.as_ref(), r, counts.0, &s, 0, &mut last);
            let count = p.len();
            for (i, m) in p.into_iter().enumerate() {
                let port = usize::from(m.port == Port::Bs);
                q[port].push_back((m.ready, m.words, m.gp, r, i + 1 == count));
            }
        }
        msgs.push(q);
    }
    Ok(transactions(&mut msgs, feed.ring))
}

/// The Ring of `channels` carrying `msgs` (per Renderer and port) to Renderers that take
/// them at once, and each region's pixels from when its last message arrived: the frame
/// buffer's last word.
fn transactions(msgs: &mut [[PortQueue; 2]], channels: Option<usize>) -> u64 {
    let mut ring = Ring::new(channels);
    let n = msgs.len();
    // Each Renderer: its ports free from, its packets out (region, words left, ready).
    let mut port_free = vec![[0u64; 2]; n];
    let mut out: Vec<std::collections::VecDeque<(usize, u64, u64)>> = vec![Default::default(); n];
    let region_words = (1 + ARRAY_DIM * ARRAY_DIM) as u64;
    let mut end = 0;
    loop {
        // Every request and the cycle it could go: (cycle, Renderer, what).
        let mut asks: Vec<(u64, usize, usize)> = Vec::new();
        for k in 0..n {
            for p in 0..2 {
                if let Some(m) = msgs[k][p].front() {
                    asks.push((m.0.max(port_free[k][p]), k, p));
                }
            }
            if let Some(o) = out[k].front() {
                asks.push((o.2, k, 2));
            }
        }
        let Some(&(t, _, _)) = asks.iter().min() else {
            break;
        };
        let d = (t.max(ring.next_free().unwrap_or(0)) + 1) & !1;
        asks.sort_unstable();
        for (t, k, what) in asks.into_iter().filter(|a| a.0 <= d) {
            let granted = if what < 2 {
                let Some(&(_, words, g, r, last)) = msgs[k][what].front() else {
                    continue;
                };
                let Some(e) = ring.grant(Node::Gp(g), Node::Renderer(k), r, words, t, d) else {
                    break;
                };
                msgs[k][what].pop_front();
                port_free[k][what] = e;
                if last {
                    out[k].push_back((r, region_words, e));
                }
                true
            } else {
                let Some(&(r, left, _)) = out[k].front() else {
                    continue;
                };
                let words = if left == region_words {
                    FB_PACKET + 1
                } else {
                    FB_PACKET
                };
                let words = words.min(left);
                let Some(e) = ring.grant(Node::Renderer(k), Node::FrameBuffer, r, words, t, d)
                else {
                    break;
                };
                end = end.max(e);
                let o = out[k].front_mut().map(|o| {
                    o.1 -= words;
                    o.2 = e;
                    o.1
                });
                if o == Some(0) {
                    out[k].pop_front();
                    if let Some(next) = out[k].front_mut() {
                        next.2 = next.2.max(e);
                    }
                }
                true
            };
            debug_assert!(granted);
        }
    }
    end.max(ring.end())
}
