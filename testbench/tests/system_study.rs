//! The whole system in the timing study (issue 30): the Graphics Processors, the Ring and the
//! frame buffer in front of and behind the cycle-accurate Renderers.
//!
//! - With the GPs and the Ring unbounded, the frame's cycles and picture are today's.
//! - Under Ring contention, each Renderer's cycles equal its saved stream re-run with the
//!   recorded arrival times.
//! - One resource made scarce (1 GP; 1 Ring channel) is the bound, busy nearly all the time.

use pp5_sim::asm::microcode::{render_image, McImage};
use pp5_sim::engine::{Sim, SimOptions, StopReason};
use pp5_sim::render::scene::{builtin, Mesh};
use pp5_sim::render::system::Feed;
use pp5_sim::render::view::View;
use pp5_sim::render::{render, render_system, Policy, RenderOptions, Rendered};
use pp5_testbench::support::wave_changes;
use std::sync::OnceLock;

fn image() -> &'static McImage {
    static IMAGE: OnceLock<McImage> = OnceLock::new();
    IMAGE.get_or_init(render_image)
}

/// `side`×`side` pixels (2×2 regions at 256) on 4 Renderers.
fn opts(policy: Policy, keep_streams: bool) -> RenderOptions {
    sized(policy, keep_streams, 256)
}

fn sized(policy: Policy, keep_streams: bool, side: u32) -> RenderOptions {
    RenderOptions {
        view: View {
            width: side,
            height: side,
            ..View::default()
        },
        renderers: 4,
        policy,
        keep_streams,
        profile: false,
    }
}

/// Two spheres of 320 triangles: small, so that slow GPs keep the boards' cycles few.
fn mesh() -> Mesh {
    builtin("spheres:n=2,sub=2").unwrap_or_else(|e| panic!("{e}"))
}

fn system(mesh: &Mesh, o: &RenderOptions, feed: Feed) -> Rendered {
    render_system(mesh, &mesh.name, o, Some(feed), image(), &|_| {})
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn with_gps_and_ring_unbounded_the_frame_is_the_renderers_alone() {
    let m = mesh();
    for policy in [Policy::RoundRobin, Policy::NextFree] {
        let o = opts(policy, false);
        let alone = render(&m, &m.name, &o, image(), &|_| {}).unwrap_or_else(|e| panic!("{e}"));
        let full = system(
            &m,
            &o,
            Feed {
                gps: Some((8, 16.0)),
                ring: Some(8),
            },
        );
        let b = full.bounds.as_ref().expect("bounds");
        let last = b.rows.last().expect("rows");
        assert_eq!(last.frame_cycles, alone.run.cycles, "{policy:?}");
        assert_eq!(full.run.pixels, alone.run.pixels, "{policy:?}");
        // The GPs and the Ring only ever delay the Renderers.
        assert!(full.run.cycles >= alone.run.cycles, "{policy:?}");
        for r in &b.rows {
            assert!(r.frame_cycles >= alone.run.cycles.min(r.frame_cycles));
        }
        // Each row with a resource unbounded is a bound: no longer than the full system.
        for r in &b.rows[1..4] {
            assert!(r.frame_cycles <= full.run.cycles, "{policy:?}: {r:?}");
            if let Some(a) = r.anomaly {
                assert!(
                    a > full.run.cycles && r.frame_cycles == full.run.cycles,
                    "{r:?}"
                );
            }
        }
    }
}

#[test]
fn the_boards_and_the_ring_stepped_together_with_nothing_in_the_way_are_the_renderers_alone() {
    let m = mesh();
    for policy in [Policy::RoundRobin, Policy::NextFree] {
        let o = opts(policy, false);
        let alone = render(&m, &m.name, &o, image(), &|_| {}).unwrap_or_else(|e| panic!("{e}"));
        let free = system(
            &m,
            &o,
            Feed {
                gps: None,
                ring: None,
            },
        );
        assert_eq!(free.run.pixels, alone.run.pixels, "{policy:?}");
        for (a, b) in free.run.renderers.iter().zip(&alone.run.renderers) {
            assert_eq!((a.cycles, &a.regions), (b.cycles, &b.regions), "{policy:?}");
        }
        for (a, b) in free.run.regions.iter().zip(&alone.run.regions) {
            assert_eq!((a.start, a.end), (b.start, b.end), "{policy:?}");
        }
        // Every message and packet went on the Ring the cycle it asked.
        let feed = free.run.feed.as_ref().expect("feed");
        assert!(feed.ring.transfers.len() > 4 * 128, "{policy:?}");
        assert!(feed.ring.transfers.iter().all(|t| t.start == t.ready));
    }
}

/// Run a saved Renderer stream on a fresh board: its cycles from the end of the boot to the
/// end, as the system counts them.
fn rerun(stream: &pp5_sim::stream::Stream) -> u64 {
    let (sim, boot_end) = rerun_sim(stream);
    sim.board.cycle - boot_end
}

/// The IGC's cycles with nothing to execute: idle between commands, or waiting for the
/// rest of one (the engine's causes).
fn input_waits(sim: &Sim) -> u64 {
    use pp5_rtl::cause::Cause;
    sim.causes().igc.get(Cause::Idle) + sim.causes().igc.get(Cause::FifoEmpty)
}

/// A saved stream run on a fresh board, and the end of its boot.
fn rerun_sim(stream: &pp5_sim::stream::Stream) -> (Sim, u64) {
    let opts = SimOptions {
        probes: Vec::new(),
        max_cycles: u64::MAX,
        ..SimOptions::default()
    };
    let mut sim = Sim::new(&opts, image().table.clone());
    pp5_sim::session::queue_boot(&mut sim, image());
    let stop = pp5_sim::session::boot(&mut sim, None, |_, _, _| {}).expect("boot");
    assert_eq!(stop, StopReason::Done);
    let boot_end = sim.board.cycle;
    sim.queue_stream(stream);
    loop {
        match sim.tick() {
            None => {}
            Some(StopReason::Done) => break,
            Some(stop) => panic!("{stop:?}"),
        }
    }
    (sim, boot_end)
}

#[test]
fn renderer_cycles_under_ring_contention_equal_their_saved_streams_rerun() {
    let m = mesh();
    for policy in [Policy::RoundRobin, Policy::NextFree] {
        let o = opts(policy, true);
        let r = system(
            &m,
            &o,
            Feed {
                gps: Some((2, 16.0)),
                ring: Some(1),
            },
        );
        assert_eq!(r.run.streams.len(), 4);
        let timed = r.run.streams[0].messages.iter().filter(|m| m.at.is_some());
        assert!(timed.count() > 1, "the Ring model gives arrival times");
        for (k, s) in r.run.streams.iter().enumerate() {
            assert_eq!(
                rerun(s),
                r.run.renderers[k].cycles,
                "{policy:?} Renderer {k}"
            );
        }
        // The Ring's waits show in the Renderers' own time: waiting for a command, in the
        // study and in the engine's causes (the same stream without arrival times and
        // without the Ring holding its BS port: less), and the BS port held by the Ring.
        let b = r.bounds.as_ref().expect("bounds");
        assert!(b.renderer_input_wait.iter().sum::<u64>() > 1000, "{b:?}");
        let timed = &r.run.streams[0];
        let mut fast = timed.clone();
        for m in &mut fast.messages {
            m.at = None;
        }
        assert!(fast.events.len() > 2, "the Ring drives TxReady");
        fast.events.clear();
        let (slow, _) = rerun_sim(timed);
        let (quick, _) = rerun_sim(&fast);
        let held = |s: &Sim| s.causes().bs_port.get(pp5_rtl::cause::Cause::TxHold);
        assert!(held(&slow) > 1000 && held(&quick) == 0, "{policy:?}");
        assert!(
            input_waits(&slow) > input_waits(&quick) + 1000,
            "{policy:?}: {} {}",
            input_waits(&slow),
            input_waits(&quick)
        );
    }
}

#[test]
fn a_scarce_resource_is_the_bound_and_busy_nearly_all_the_time() {
    let m = mesh();
    let o = opts(Policy::RoundRobin, false);
    let one_gp = system(
        &m,
        &o,
        Feed {
            gps: Some((1, 16.0)),
            ring: Some(8),
        },
    );
    let b = one_gp.bounds.as_ref().expect("bounds");
    assert_eq!(b.bound, "GPs", "{}", b.verdict);
    assert!(b.gp_util[0] > 0.9, "{:?} {}", b.gp_util, b.verdict);
    assert!(b.verdict.starts_with("GPs-bound"), "{}", b.verdict);
    // Faster GPs, a shorter frame.
    let s = &b.sensitivity;
    assert!(s.windows(2).all(|w| w[1].1 <= w[0].1), "{s:?}");

    // 4×4 regions: the frame buffer's 16 × 16,385 words on one channel.
    let one_channel = system(
        &m,
        &sized(Policy::RoundRobin, false, 512),
        Feed {
            gps: Some((32, 16.0)),
            ring: Some(1),
        },
    );
    let b = one_channel.bounds.as_ref().expect("bounds");
    assert_eq!(b.bound, "Ring", "{}", b.verdict);
    assert_eq!(b.ring_util.len(), 1);
    assert!(b.ring_util[0] > 0.9, "{:?} {}", b.ring_util, b.verdict);
}

#[test]
fn the_system_waveform_reads_back() {
    let r = four_gps_two_channels();
    let dir = std::env::temp_dir().join(format!("pp5-system-wave-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    for ext in ["vcd", "fst"] {
        let path = dir.join(format!("system.{ext}"));
        let signals = pp5_sim::render::system::system_wave::write(&path, &r.run).expect("write");
        // The view opens on the Ring and the Renderers, the GPs after them (issue 39).
        let gtkw = std::fs::read_to_string(dir.join("system.gtkw")).expect("gtkw");
        let first = |s: &str| gtkw.find(s).unwrap_or_else(|| panic!("{s} in\n{gtkw}"));
        assert!(
            first("system.ring0.") < first("system.renderer0."),
            "{gtkw}"
        );
        assert!(first("system.renderer3.") < first("system.gp0."), "{gtkw}");
        let mut w = wellen::simple::read(&path).unwrap_or_else(|e| panic!("{e:?}"));
        let h = w.hierarchy();
        let tops: Vec<String> = h.scopes().map(|s| h[s].name(h).to_string()).collect();
        assert_eq!(tops, ["system"]);
        assert_eq!(h.all_vars().count(), signals.len(), "{ext}");
        // 4 GPs, 2 channels, 4 Renderers and the frame buffer, one scope each.
        for s in ["gp3", "ring1", "renderer3", "frame_buffer"] {
            assert!(h.lookup_scope(&["system", s]).is_some(), "{ext}: {s}");
        }
        // The frame buffer received the 4 regions, the last by the frame's end.
        let fb = wave_changes(&mut w, "system.frame_buffer.received");
        let (t, v) = fb.last().expect("changes");
        assert_eq!(u64::from_str_radix(v, 2), Ok(4), "{ext}");
        let end_ps = r.run.cycles * pp5_rtl::clock::CYCLE_PS;
        assert!(*t > 0 && *t <= end_ps, "{ext}: {t} {end_ps}");
        // A GP works through its triangles without a pause: busy from the start to its
        // last triangle's end, at 20 MHz resolution.
        let busy = wave_changes(&mut w, "system.gp0.busy");
        let gp = r
            .run
            .feed
            .as_ref()
            .and_then(|f| f.gp.as_ref())
            .expect("GPs");
        let end = (gp.busy[0] & !1) * pp5_rtl::clock::CYCLE_PS;
        assert_eq!(
            busy,
            [(0, "1".to_string()), (end, "0".to_string())],
            "{ext}"
        );
        assert!(busy
            .iter()
            .all(|c| c.0 % (2 * pp5_rtl::clock::CYCLE_PS) == 0));
        // A Renderer's region: the first it drew (Renderer 1: region 1).
        let region = wave_changes(&mut w, "system.renderer1.region");
        assert!(
            region.iter().any(|c| u64::from_str_radix(&c.1, 2) == Ok(1)),
            "{ext}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The system waveform's `.gtkw` shows the Ring's node codes as names (issue 39): the
/// translate filter file `waves/ring-nodes.txt` is `node_filter`'s text, the `.gtkw` names it
/// for every channel's `sender` and `receiver` (flag `TR_FTRANSLATED`), and every code on
/// them in the waveform, as GTKWave shows it in hex, has a name there.
#[test]
fn the_ring_node_codes_show_as_names() {
    use pp5_sim::render::system::system_wave::{node_filter, node_filter_path, write};
    let filter = node_filter_path().expect("waves/ring-nodes.txt");
    let text = std::fs::read_to_string(&filter).expect("filter");
    assert_eq!(
        text,
        node_filter(),
        "regenerate waves/ring-nodes.txt from node_filter"
    );
    let names: std::collections::HashMap<&str, &str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(' '))
        .collect();
    assert_eq!(names.get("03"), Some(&"GP 3"));
    assert_eq!(names.get("25"), Some(&"Renderer 5"));
    assert_eq!(names.get("40"), Some(&"frame buffer"));

    let r = four_gps_two_channels();
    let dir = std::env::temp_dir().join(format!("pp5-ring-nodes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("system.vcd");
    write(&path, &r.run).expect("write");
    let gtkw = std::fs::read_to_string(dir.join("system.gtkw")).expect("gtkw");
    let lines: Vec<&str> = gtkw.lines().collect();
    let mut seen = std::collections::BTreeSet::new();
    for c in 0..2 {
        for end in ["sender", "receiver"] {
            let trace = format!("system.ring{c}.{end}[7:0]");
            let i = lines
                .iter()
                .position(|l| *l == trace)
                .unwrap_or_else(|| panic!("{trace} in\n{gtkw}"));
            assert_eq!(lines[i - 1], format!("^1 {}", filter.display()), "{gtkw}");
            let flags = u32::from_str_radix(&lines[i - 2][1..], 16).expect("flags");
            assert_ne!(flags & (1 << 13), 0, "{gtkw}");
            // The trace after it is not translated.
            assert!(lines[i + 1].starts_with('@'), "{gtkw}");
        }
    }
    let mut w = wellen::simple::read(&path).unwrap_or_else(|e| panic!("{e:?}"));
    for c in 0..2 {
        for end in ["sender", "receiver"] {
            for (_, v) in wave_changes(&mut w, &format!("system.ring{c}.{end}")) {
                let code = u64::from_str_radix(&v, 2).expect("code");
                let name = names.get(format!("{code:02X}").as_str());
                assert!(name.is_some(), "ring{c}.{end}: code {code:#x} has no name");
                seen.insert(name.unwrap().to_string());
            }
        }
    }
    // The GPs, the Renderers and the frame buffer all appear.
    for n in ["GP ", "Renderer ", "frame buffer"] {
        assert!(seen.iter().any(|s| s.starts_with(n)), "{n}: {seen:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The mesh on 4 GPs at 16 M operations/s and 2 Ring channels, round robin: the frame the
/// system waveform and the timeline tests draw.
fn four_gps_two_channels() -> Rendered {
    system(
        &mesh(),
        &opts(Policy::RoundRobin, false),
        Feed {
            gps: Some((4, 16.0)),
            ring: Some(2),
        },
    )
}

/// The timeline prints the study's verdict under its chart, wrapped, with a row per unit
/// labelled (issue 39: the verdict was not on it).
#[test]
fn the_timeline_prints_the_verdict() {
    use pp5_sim::render::system::timeline;
    let r = four_gps_two_channels();
    let verdict = format!("verdict: {}", "a long finding ".repeat(30));
    let notes = timeline::wrap(&verdict);
    assert!(notes.len() >= 2 && notes.iter().all(|l| l.chars().count() <= 190));
    assert_eq!(notes.join(" "), verdict.trim_end());
    let dir = std::env::temp_dir().join(format!("pp5-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("t.svg");
    timeline::write(&path, &r.run, "title", &notes).expect("write");
    let svg = std::fs::read_to_string(&path).expect("svg");
    for line in &notes {
        assert!(svg.contains(line.as_str()), "{line}");
    }
    for label in ["GP 3", "Ring 1", "Renderer 3"] {
        assert!(svg.contains(label), "{label}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_resource_that_held_nothing_up_is_reused_as_its_unbounded_row_exactly() {
    let m = mesh();
    let o = opts(Policy::NextFree, false);
    // GPs so fast that no message waits for them, a Ring so wide that none waits for it.
    let feed = Feed {
        gps: Some((32, 1e6)),
        ring: Some(16),
    };
    let full = system(&m, &o, feed);
    let f = full.run.feed.as_ref().expect("feed");
    assert_eq!(f.gp_waits, 0);
    assert!(f.ring.transfers.iter().all(|t| t.start == t.ready));
    let b = full.bounds.as_ref().expect("bounds");
    for (k, free) in [
        (1, Feed { gps: None, ..feed }),
        (2, Feed { ring: None, ..feed }),
    ] {
        let run = system(&m, &o, free);
        assert_eq!(b.rows[k].frame_cycles, run.run.cycles, "{free:?}");
        assert_eq!(b.rows[k].frame_cycles, full.run.cycles, "{free:?}");
    }
    // Slow GPs hold messages up: the count says so.
    let slow = system(
        &m,
        &o,
        Feed {
            gps: Some((2, 16.0)),
            ..feed
        },
    );
    assert!(slow.run.feed.as_ref().expect("feed").gp_waits > 0);
}

/// The verdict agrees with its rows (issue 39, defect 2): it names the bounded resource
/// whose removal alone shortens the frame most, with that row's gain, never one that is
/// already unbounded, and has no negative zero.
fn check_verdict(b: &pp5_sim::render::system::bounds::Bounds, what: &str) {
    let names = ["GPs", "Ring", "Renderers"];
    let bounded = [b.feed.gps.is_some(), b.feed.ring.is_some(), true];
    let full = b.rows[0].frame_cycles;
    let gain = |k: usize| full - b.rows[k + 1].frame_cycles;
    let most = (0..3)
        .filter(|&k| bounded[k])
        .map(gain)
        .max()
        .expect("a bounded resource");
    assert!(!b.verdict.contains("-0"), "{what}: {}", b.verdict);
    for k in (0..3).filter(|&k| !bounded[k]) {
        assert_ne!(b.bound, names[k], "{what}: {}", b.verdict);
        assert!(
            !b.verdict.contains(&format!("{}-bound", names[k])),
            "{what}: {}",
            b.verdict
        );
        assert!(
            b.verdict.contains(&format!("{} unbounded", names[k])),
            "{what}: {}",
            b.verdict
        );
    }
    if b.bound == "none" {
        assert_eq!(most, 0, "{what}: {}", b.verdict);
        return;
    }
    let k = names
        .iter()
        .position(|n| *n == b.bound)
        .unwrap_or_else(|| panic!("{what}: bound {}", b.bound));
    assert!(bounded[k], "{what}: {}", b.verdict);
    assert_eq!(gain(k), most, "{what}: {} {:?}", b.verdict, b.rows);
    assert!(
        b.verdict.starts_with(&format!("{}-bound", b.bound)),
        "{what}: {}",
        b.verdict
    );
    let pct = format!("({:.1}% less)", 100.0 * most as f64 / full as f64);
    assert!(b.verdict.contains(&pct), "{what}: {pct} in {}", b.verdict);
}

#[test]
fn the_verdict_names_the_removal_that_gains_most_and_never_an_unbounded_resource() {
    // One region (one triangle on 128×128): the Ring's one busy channel made it "Ring-bound:
    // 10%" while the Renderers' row gained 18%.
    let tri = builtin("triangle").unwrap_or_else(|e| panic!("{e}"));
    let mut o = sized(Policy::RoundRobin, false, 128);
    o.renderers = 16;
    let paper = Feed {
        gps: Some((32, 16.0)),
        ring: Some(8),
    };
    let r = system(&tri, &o, paper);
    let b = r.bounds.as_ref().expect("bounds");
    check_verdict(b, "one region");
    assert_eq!(b.bound, "Renderers", "{}", b.verdict);
    // The Ring is the busiest by its mean, and the verdict says both.
    assert!(b.verdict.contains("the Ring is busier"), "{}", b.verdict);
    // The Ring unbounded: never Ring-bound; the GPs unbounded: no "GPs -0%".
    let m = mesh();
    let o = opts(Policy::RoundRobin, false);
    for (what, feed) in [
        (
            "Ring unbounded",
            Feed {
                ring: None,
                ..paper
            },
        ),
        ("GPs unbounded", Feed { gps: None, ..paper }),
        (
            "both unbounded",
            Feed {
                gps: None,
                ring: None,
            },
        ),
        (
            "2 GPs",
            Feed {
                gps: Some((2, 16.0)),
                ..paper
            },
        ),
    ] {
        let r = system(&m, &o, feed);
        check_verdict(r.bounds.as_ref().expect("bounds"), what);
    }
}

#[test]
fn a_renderer_waiting_for_the_ring_is_not_working() {
    // Issue 39, defect 3: from an unbounded Ring to one channel the Renderers' utilisation
    // rose (their IGCs waiting in PIGC for pixels the Ring held counted as busy). The work
    // is the same commands: it does not grow, and its share of a longer frame falls.
    let m = mesh();
    let o = sized(Policy::RoundRobin, false, 512);
    let run = |ring| {
        system(
            &m,
            &o,
            Feed {
                gps: Some((32, 16.0)),
                ring,
            },
        )
    };
    let (free, scarce) = (run(None), run(Some(1)));
    let util = |r: &Rendered| {
        let b = r.bounds.as_ref().expect("bounds");
        b.renderer_util.iter().sum::<f64>() / b.renderer_util.len() as f64
    };
    assert!(scarce.run.cycles > 2 * free.run.cycles);
    assert!(
        util(&scarce) < util(&free) / 2.0,
        "{} {}",
        util(&scarce),
        util(&free)
    );
    for (a, b) in free.run.renderers.iter().zip(&scarce.run.renderers) {
        assert_eq!(a.work, b.work, "Renderer {}", a.index);
        // Waiting, by cause: the scarce Ring holds the pixels, PIGC waits for a buffer.
        assert!(b.wait_buffer > a.wait_buffer, "Renderer {}", a.index);
        assert!(b.bs_held > 0 && a.bs_held == 0, "Renderer {}", a.index);
    }
    for r in [&free, &scarce] {
        let b = r.bounds.as_ref().expect("bounds");
        for x in &r.run.renderers {
            // Work and the waits add up to the span to its last region's end.
            let regions = r.run.regions.iter().filter(|g| g.renderer == x.index);
            let last = regions.clone().map(|g| g.end).max().expect("a region");
            assert_eq!(x.last_end(), last, "Renderer {}", x.index);
            let k = x.index;
            let share = |c: u64| c as f64 / r.run.cycles as f64;
            assert_eq!(b.renderer_util[k], share(x.work));
            assert_eq!(b.renderer_wait_input[k], share(x.wait_input));
            assert_eq!(b.renderer_wait_buffer[k], share(x.wait_buffer));
            assert_eq!(b.renderer_wait_transfer[k], share(x.wait_transfer));
            // Each region's causes add up too.
            for g in regions {
                assert_eq!(
                    g.work + g.wait_buffer + g.wait_transfer + g.wait_input(),
                    g.end - g.start
                );
            }
        }
    }
}

#[test]
fn the_igc_timeout_on_a_scarce_ring_is_a_finding_not_an_error() {
    // Issue 39, defect 1: a Renderer's PIGC waits longer than 64K 20 MHz cycles for its
    // previous region's pixels, which one Ring channel holds; the board raises status bit
    // 30, but the picture and the timing are valid.
    let m = mesh();
    let o = sized(Policy::RoundRobin, false, 512);
    let r = system(
        &m,
        &o,
        Feed {
            gps: Some((32, 16.0)),
            ring: Some(1),
        },
    );
    let t = &r.study.igc_timeout;
    assert_eq!(t.limit, 65_536);
    assert!(!t.renderers.is_empty(), "{t:?}");
    assert!(t.longest_wait > t.limit, "{t:?}");
    let bit = 1 << pp5_rtl::status::ST_IGC_TIMEOUT;
    for k in &t.renderers {
        let x = &r.run.renderers[*k];
        assert_eq!(x.error_bits, bit, "Renderer {k}");
        assert!(x.longest_command_wait >= t.limit, "Renderer {k}");
    }
    for x in r
        .run
        .renderers
        .iter()
        .filter(|x| !t.renderers.contains(&x.index))
    {
        assert!(x.longest_command_wait < t.limit, "Renderer {}", x.index);
    }
    // Not an error in the frame: the same picture as the Renderers alone.
    assert!(r.study.hardware_errors().is_empty());
    let alone = render(&m, &m.name, &o, image(), &|_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.run.pixels, alone.run.pixels);
    // Reported in the verdict and the table.
    let b = r.bounds.as_ref().expect("bounds");
    let finding = t.finding().expect("a finding");
    assert!(finding.contains(&t.longest_wait.to_string()), "{finding}");
    assert!(b.verdict.contains(&finding), "{}", b.verdict);
    assert!(r.study.table().contains(&finding));
    // Below the limit, no finding, but the longest wait is kept.
    assert_eq!(alone.study.igc_timeout.renderers, Vec::<usize>::new());
    assert!(alone.study.igc_timeout.finding().is_none());
}

#[test]
fn a_faster_gp_rate_with_a_longer_frame_is_marked() {
    // Issue 39, defect 6: the Ring is first come, first served; GPs twice as fast reorder
    // its grants, and this frame comes out 1,112 cycles longer at 64 M operations/s than at
    // 32 M. The table keeps the simulated frame and marks it (docs/rendering.md).
    let m = mesh();
    let r = system(
        &m,
        &opts(Policy::RoundRobin, false),
        Feed {
            gps: Some((32, 16.0)),
            ring: Some(1),
        },
    );
    let b = r.bounds.as_ref().expect("bounds");
    let s = &b.sensitivity;
    let longer: Vec<f64> = s
        .iter()
        .enumerate()
        .filter(|&(k, x)| s[..k].iter().any(|y| y.1 < x.1))
        .map(|(_, x)| x.0)
        .collect();
    assert_eq!(b.sensitivity_anomalies, longer, "{s:?}");
    assert!(!longer.is_empty(), "the reproducer: {s:?}");
    assert!(b.table().contains("* longer than at a slower rate"));
}
