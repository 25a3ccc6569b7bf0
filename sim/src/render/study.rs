//! The timing study of a rendered frame (docs/rendering.md, "The timing study"): cycles per
//! region and per Renderer, busy against idle, cycles per primitive, the frame time at 40 MHz
//! and the primitives drawn per second beside the 1989 paper's goal, as a table, JSON or CSV.

use super::gp::GpStats;
use super::system::{FrameRun, Policy, RegionRun, RendererRun};
use pp5_rtl::clock::CYCLE_PS;
use std::fmt::Write;

/// The design goal of Pixel-Planes 5 (SIGGRAPH 1989): Phong-shaded triangles per second with
/// a full system of 16 Renderers.
pub const PAPER_GOAL_TRIS_PER_SEC: f64 = 1.0e6;

/// The IGC timeout's status bit (30).
const TIMEOUT_BIT: u32 = 1 << pp5_rtl::status::ST_IGC_TIMEOUT;

/// Summary statistics of a distribution of cycle counts.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Distribution {
    pub count: usize,
    pub mean: f64,
    pub min: u64,
    pub p50: u64,
    pub p90: u64,
    pub max: u64,
}

impl Distribution {
    pub fn of(values: &[u64]) -> Distribution {
        if values.is_empty() {
            return Distribution::default();
        }
        let mut v = values.to_vec();
        v.sort_unstable();
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        Distribution {
            count: v.len(),
            mean: v.iter().sum::<u64>() as f64 / v.len() as f64,
            min: v[0],
            p50: at(0.5),
            p90: at(0.9),
            max: v[v.len() - 1],
        }
    }
}

/// Everything the study reports.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Study {
    pub scene: String,
    pub screen: (u32, u32),
    pub renderers: usize,
    pub policy: Policy,
    pub gp: GpStats,
    /// The frame's cycles (the slowest Renderer, from the end of the microcode boot to its
    /// last transmission) and that time at 40 MHz.
    pub frame_cycles: u64,
    pub frame_us: f64,
    /// The headline: primitives drawn (front-facing, in view, after clipping; the figure the
    /// paper's goal counts) per second of frame time.
    pub prims_per_sec: f64,
    /// The scene's triangles per second of frame time, whatever became of them (those
    /// outside the view, back-facing or degenerate included): what the GPs took in.
    pub scene_triangles_per_sec: f64,
    /// Cycles of one primitive in one region (its 11 commands).
    pub prim_cycles: Distribution,
    /// Cycles of a region on its Renderer's IGC.
    pub region_cycles: Distribution,
    /// Cycles of all regions by stage.
    pub stage_cycles: Stages,
    pub regions: Vec<RegionRun>,
    pub renderer_runs: Vec<RendererRun>,
    /// The GPs and the Ring, when they were modelled (`system::bounds` reports them).
    #[serde(skip)]
    pub feed: Option<super::system::Feed>,
    /// The IGC timeout over the frame: a finding about the system, not an error in it.
    pub igc_timeout: IgcTimeout,
}

/// The IGC timeout (seed 003, status bit 30: "IGC timeout (64K 20 MHz cycles without a new
/// cmd)"): its counter runs while a command waits in the LLPR registers and the IGC does not
/// take it (docs/model-choices.md), as when PIGC or BSWAIT waits for pixels a scarce Ring
/// holds at the BS port. A real board would raise the error, but in the model it changes
/// nothing (the bit and an error message to Ring address 0): the picture and the timing are
/// valid, and `pp5 render` reports it as a finding about the configuration, not as a frame
/// not to be trusted (docs/rendering.md, "The IGC timeout").
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IgcTimeout {
    /// The counter's limit, 20 MHz cycles (65,536).
    pub limit: u64,
    /// The Renderers that raised it (status bit 30 set).
    pub renderers: Vec<usize>,
    /// The longest any command waited for its IGC, 20 MHz cycles, and on which Renderer
    /// (the lowest on a tie).
    pub longest_wait: u64,
    pub longest_renderer: usize,
}

impl IgcTimeout {
    /// The IGC timeout over `renderers`.
    pub fn of(renderers: &[RendererRun]) -> IgcTimeout {
        let longest = renderers
            .iter()
            .rev()
            .max_by_key(|r| r.longest_command_wait);
        IgcTimeout {
            limit: pp5_rtl::status::IGC_TIMEOUT_RING_CYCLES,
            renderers: renderers
                .iter()
                .filter(|r| r.error_bits & TIMEOUT_BIT != 0)
                .map(|r| r.index)
                .collect(),
            longest_wait: longest.map_or(0, |r| r.longest_command_wait),
            longest_renderer: longest.map_or(0, |r| r.index),
        }
    }

    /// One sentence for the report, when a Renderer raised it.
    pub fn finding(&self) -> Option<String> {
        if self.renderers.is_empty() {
            return None;
        }
        let list: Vec<String> = self.renderers.iter().map(usize::to_string).collect();
        Some(format!(
            "the IGC timeout (status bit 30: {} 20 MHz cycles with a command waiting for its \
             IGC) fired on Renderer(s) {}: the longest wait was {} 20 MHz cycles (Renderer \
             {}, {:.2}x the limit); a real board would raise the error, the picture and the \
             timing are valid",
            self.limit,
            list.join(", "),
            self.longest_wait,
            self.longest_renderer,
            self.longest_wait as f64 / self.limit.max(1) as f64
        ))
    }
}

/// Cycles by stage, summed over the regions. The stages add up to the regions' cycles (each
/// region's first command to the end of its last).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stages {
    /// The commands of each stage (docs/rendering.md, "A region's commands").
    pub setup: u64,
    pub primitives: u64,
    pub shading: u64,
    pub output: u64,
    /// The IGC between two commands of a region, waiting at its DISPATCH for the next
    /// command's words (state `WAIT_CMD`): the Stream Parser reads one word a cycle, so each
    /// three-word SEPCFG after its two one-cycle NOOPs waits one cycle (63 per region that
    /// needs the set-up); on the full system, also the Ring's and the GPs' stalls.
    pub input_wait: u64,
}

impl Stages {
    /// A region's stages: its commands' and the waits between them.
    pub fn of(r: &RegionRun) -> Stages {
        let commands = r.setup + r.primitives + r.shading + r.output;
        Stages {
            setup: r.setup,
            primitives: r.primitives,
            shading: r.shading,
            output: r.output,
            input_wait: (r.end - r.start).saturating_sub(commands),
        }
    }

    /// Every stage's cycles.
    pub fn total(&self) -> u64 {
        self.setup + self.primitives + self.shading + self.output + self.input_wait
    }

    fn add(&self, o: &Stages) -> Stages {
        Stages {
            setup: self.setup + o.setup,
            primitives: self.primitives + o.primitives,
            shading: self.shading + o.shading,
            output: self.output + o.output,
            input_wait: self.input_wait + o.input_wait,
        }
    }
}

impl Study {
    /// The Renderers that ended the frame with error bits set in their status word, and the
    /// bits: the frame is not to be trusted (`pp5 render` exits 4). The IGC timeout (bit 30)
    /// is not among them: it changes nothing in the frame ([`IgcTimeout`]).
    pub fn hardware_errors(&self) -> Vec<(usize, u32)> {
        self.renderer_runs
            .iter()
            .map(|r| (r.index, r.error_bits & !TIMEOUT_BIT))
            .filter(|&(_, bits)| bits != 0)
            .collect()
    }

    pub fn new(
        scene: &str,
        screen: (u32, u32),
        policy: Policy,
        gp: &GpStats,
        run: &FrameRun,
    ) -> Study {
        let frame_us = run.cycles as f64 * CYCLE_PS as f64 / 1e6;
        let per_sec = |n: usize| {
            if run.cycles == 0 {
                0.0
            } else {
                n as f64 / (frame_us / 1e6)
            }
        };
        let region_cycles: Vec<u64> = run.regions.iter().map(|r| r.end - r.start).collect();
        let stage_cycles = run
            .regions
            .iter()
            .fold(Stages::default(), |s, r| s.add(&Stages::of(r)));
        Study {
            scene: scene.to_string(),
            screen,
            renderers: run.renderers.len(),
            policy,
            gp: gp.clone(),
            frame_cycles: run.cycles,
            frame_us,
            prims_per_sec: per_sec(gp.prims),
            scene_triangles_per_sec: per_sec(gp.triangles),
            prim_cycles: Distribution::of(&run.prim_cycles),
            region_cycles: Distribution::of(&region_cycles),
            stage_cycles,
            regions: run.regions.clone(),
            renderer_runs: run.renderers.clone(),
            feed: run.feed.as_ref().map(|f| f.feed),
            igc_timeout: IgcTimeout::of(&run.renderers),
        }
    }

    /// The study as text tables.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let g = &self.gp;
        let _ = writeln!(
            s,
            "scene {}: {} triangles; {} outside the view, {} clipped, {} back-facing, {} degenerate; \
             {} primitives (mean area {:.1} pixels) sent to {} region(s) ({} region-primitive \
             pairs)",
            self.scene,
            g.triangles,
            g.outside,
            g.clipped,
            g.back_facing,
            g.degenerate,
            g.prims,
            g.mean_prim_area,
            self.regions.len(),
            g.binned
        );
        let _ = writeln!(
            s,
            "{} Renderer(s), {:?}, screen {}x{}\n",
            self.renderers, self.policy, self.screen.0, self.screen.1
        );
        let _ = writeln!(
            s,
            "each Renderer's IGC over the frame: work (executing its commands), waiting for a \
             command's words (input: the GPs, the Ring, the port's rate), for a free \
             backing-store buffer (buffer: PIGC, the previous region's pixels still going \
             out), for the transfer unit (transfer: BSWAIT), done after its last region; its \
             BS port sending (bs busy) and held by the Ring (bs held); cycles"
        );
        let _ = writeln!(
            s,
            "{:>8} {:>7} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}",
            "renderer",
            "regions",
            "prims",
            "work",
            "input",
            "buffer",
            "transfer",
            "done",
            "bs busy",
            "bs held",
            "finish",
            "work %"
        );
        for r in &self.renderer_runs {
            let prims: usize = self
                .regions
                .iter()
                .filter(|x| x.renderer == r.index)
                .map(|x| x.prims)
                .sum();
            let _ = writeln!(
                s,
                "{:>8} {:>7} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6.1}%",
                r.index,
                r.regions.len(),
                prims,
                r.work,
                r.wait_input,
                r.wait_buffer,
                r.wait_transfer,
                self.frame_cycles.saturating_sub(r.last_end()),
                r.bs_busy,
                r.bs_held,
                r.cycles,
                100.0 * r.work as f64 / self.frame_cycles.max(1) as f64
            );
        }
        for r in &self.renderer_runs {
            let errors = r.error_bits & !TIMEOUT_BIT;
            if errors != 0 {
                let _ = writeln!(
                    s,
                    "renderer {}: error bits {errors:#010x} set in its status word",
                    r.index
                );
            }
            if r.error_bits & TIMEOUT_BIT != 0 {
                let _ = writeln!(
                    s,
                    "renderer {}: status bit 30 (IGC timeout) set: a command waited {} 20 MHz \
                     cycles for its IGC (the limit: {}; a finding about the system, below)",
                    r.index, r.longest_command_wait, self.igc_timeout.limit
                );
            }
            for d in &r.diagnostics {
                let _ = writeln!(s, "renderer {}: {d}", r.index);
            }
            if r.diagnostics_total > r.diagnostics.len() {
                let _ = writeln!(
                    s,
                    "renderer {}: ... {} more diagnostics",
                    r.index,
                    r.diagnostics_total - r.diagnostics.len()
                );
            }
        }
        let st = &self.stage_cycles;
        let total = st.total().max(1) as f64;
        let pct = |v: u64| 100.0 * v as f64 / total;
        let _ = writeln!(
            s,
            "\nIGC cycles by stage: set-up {} ({:.1}%), primitives {} ({:.1}%), shading {} \
             ({:.1}%), output {} ({:.1}%, the waits for the previous transfer included), \
             waiting for the next command's words {} ({:.1}%)",
            st.setup,
            pct(st.setup),
            st.primitives,
            pct(st.primitives),
            st.shading,
            pct(st.shading),
            st.output,
            pct(st.output),
            st.input_wait,
            pct(st.input_wait)
        );
        let d = |x: &Distribution| {
            format!(
                "mean {:.0}, min {}, median {}, 90% {}, max {} ({} values)",
                x.mean, x.min, x.p50, x.p90, x.max, x.count
            )
        };
        let _ = writeln!(
            s,
            "cycles per primitive in a region: {}",
            d(&self.prim_cycles)
        );
        let _ = writeln!(s, "cycles per region: {}", d(&self.region_cycles));
        let _ = writeln!(
            s,
            "\nframe: {} cycles = {:.1} us at 40 MHz ({:.1} frames/s)",
            self.frame_cycles,
            self.frame_us,
            1e6 / self.frame_us.max(1e-9)
        );
        let _ = writeln!(
            s,
            "system: {:.0} drawn primitives/s (front-facing, in view); the scene's triangles, \
             culled ones included: {:.0}/s",
            self.prims_per_sec, self.scene_triangles_per_sec
        );
        self.goal(&mut s);
        if let Some(f) = self.igc_timeout.finding() {
            let _ = writeln!(s, "IGC timeout: {f}");
        }
        s
    }

    /// The frame beside the paper's goal, and what the model leaves out.
    fn goal(&self, s: &mut String) {
        if self.feed.is_some() {
            let _ = writeln!(
                s,
                "the 1989 paper's goal: {:.0} Phong-shaded triangles/s with 16 Renderers; this run: \
                 {:.0} drawn primitives/s with {} ({:.2}x the goal; triangles outside the view, \
                 back-facing or degenerate are not counted), on the full system: the Graphics \
                 Processors' cost model and the Ring's channels included (below); the paper's \
                 triangles were small (about 100 pixels), see `--scene random`.",
                PAPER_GOAL_TRIS_PER_SEC,
                self.prims_per_sec,
                self.renderers,
                self.prims_per_sec / PAPER_GOAL_TRIS_PER_SEC
            );
            return;
        }
        let _ = writeln!(
            s,
            "the 1989 paper's goal: {:.0} Phong-shaded triangles/s with 16 Renderers; this run: \
             {:.0} drawn primitives/s with {} ({:.2}x the goal; triangles outside the view, \
             back-facing or degenerate are not counted). Differences: the Graphics Processors' time and the \
             Ring's bandwidth for primitives are not modelled (each Renderer's commands arrive \
             at its port's 20 MHz rate, as fast as it can take them); every Renderer's region \
             set-up (64 SEPCFG), deferred shading and frame-buffer transfer (BSSTORE, \
             BS_TRANSMIT of 16,385 words at 20 MHz) are; the paper's triangles were small \
             (about 100 pixels), see `--scene random`.",
            PAPER_GOAL_TRIS_PER_SEC,
            self.prims_per_sec,
            self.renderers,
            self.prims_per_sec / PAPER_GOAL_TRIS_PER_SEC
        );
    }

    /// One CSV row per region, then one per Renderer.
    pub fn csv(&self) -> String {
        let mut s = String::from(
            "kind,index,renderer,origin_x,origin_y,prims,start,end,cycles,setup,primitives,\
             shading,output,regions,igc_busy,bs_busy,idle,error_bits,input_wait\n",
        );
        for r in &self.regions {
            let _ = writeln!(
                s,
                "region,{},{},{},{},{},{},{},{},{},{},{},{},,,,,,{}",
                r.region,
                r.renderer,
                r.origin.0,
                r.origin.1,
                r.prims,
                r.start,
                r.end,
                r.end - r.start,
                r.setup,
                r.primitives,
                r.shading,
                r.output,
                Stages::of(r).input_wait
            );
        }
        // A Renderer's row: its frame from the end of its boot to its last transmission, the
        // sums of its regions' columns, and its busy and idle time (idle: the frame's cycles
        // its IGC did not work on a region).
        for r in &self.renderer_runs {
            let mine = || self.regions.iter().filter(|x| x.renderer == r.index);
            let sum = |f: fn(&RegionRun) -> u64| mine().map(f).sum::<u64>();
            let _ = writeln!(
                s,
                "renderer,{},{},,,{},0,{},{},{},{},{},{},{},{},{},{},{:#x},{}",
                r.index,
                r.index,
                sum(|x| x.prims as u64),
                r.cycles,
                r.cycles,
                sum(|x| x.setup),
                sum(|x| x.primitives),
                sum(|x| x.shading),
                sum(|x| x.output),
                r.regions.len(),
                r.igc_busy,
                r.bs_busy,
                self.frame_cycles.saturating_sub(r.igc_busy),
                r.error_bits,
                mine().map(|x| Stages::of(x).input_wait).sum::<u64>()
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions() {
        let d = Distribution::of(&[5, 1, 3, 2, 4]);
        assert_eq!((d.count, d.min, d.p50, d.max), (5, 1, 3, 5));
        assert!((d.mean - 3.0).abs() < 1e-12);
        assert_eq!(Distribution::of(&[]), Distribution::default());
    }
}
