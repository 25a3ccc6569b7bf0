//! The study's frames replayed (issue 36; docs/rendering.md, "Which rows are simulated, which
//! derived"): the full system's frame records what its Renderers' data decided, and the
//! study's other frames replay it without the array, the QEE's evaluations or the transfers'
//! data. Every row must be what running each frame in full gives, and a replay that is not
//! the recorded frame must say so.

use pp5_sim::asm::microcode::{render_image, McImage};
use pp5_sim::render::gp::{self, Frame};
use pp5_sim::render::scene::builtin;
use pp5_sim::render::shading::Shading;
use pp5_sim::render::system::bounds::Bounds;
use pp5_sim::render::system::{self, DataTaps, Feed, SystemSpec};
use pp5_sim::render::view::View;
use pp5_sim::render::Policy;
use std::sync::OnceLock;

fn image() -> &'static McImage {
    static IMAGE: OnceLock<McImage> = OnceLock::new();
    IMAGE.get_or_init(render_image)
}

/// A small scene (two spheres, 320 triangles) on a 256×256 screen: 2×2 regions.
fn scene() -> (Frame, Shading) {
    let mesh = builtin("spheres:n=2,sub=2").unwrap_or_else(|e| panic!("{e}"));
    let view = View {
        width: 256,
        height: 256,
        ..View::default()
    };
    let frame = gp::process(&mesh, &view).unwrap_or_else(|e| panic!("{e}"));
    let shading = Shading::new(&frame, &view);
    (frame, shading)
}

fn spec(renderers: usize, policy: Policy, feed: Feed) -> SystemSpec {
    SystemSpec {
        renderers,
        policy,
        width: 256,
        height: 256,
        keep_streams: false,
        feed: Some(feed),
        profile: false,
    }
}

/// The study of `spec`'s frame, its other frames replayed from the full frame's record
/// (`replay`) or each run in full.
fn study(frame: &Frame, shading: &Shading, spec: &SystemSpec, replay: bool) -> Bounds {
    let taps = if replay {
        DataTaps::Record
    } else {
        DataTaps::Compute
    };
    let full = system::run_frame_tapped(frame, shading, image(), spec, &|_| {}, taps)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(full.recorded.is_some(), replay, "the full frame's record");
    let feed = spec.feed.unwrap_or_else(|| panic!("a study has a feed"));
    Bounds::new(frame, shading, image(), spec, feed, &full, &[]).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn replayed_frames_give_every_row_that_full_simulation_gives() {
    let (frame, shading) = scene();
    let feeds = [
        // Scarce GPs and a scarce Ring: every row differs from the full frame.
        Feed {
            gps: Some((1, 4.0)),
            ring: Some(1),
        },
        Feed {
            gps: Some((4, 16.0)),
            ring: Some(2),
        },
        Feed {
            gps: None,
            ring: Some(1),
        },
    ];
    for policy in [Policy::RoundRobin, Policy::NextFree] {
        for (renderers, feed) in [(4, feeds[0]), (3, feeds[1]), (2, feeds[2])] {
            let s = spec(renderers, policy, feed);
            let replayed = study(&frame, &shading, &s, true);
            let full = study(&frame, &shading, &s, false);
            let what = format!("{renderers} Renderers, {policy:?}, {feed:?}");
            let json = |b: &Bounds| serde_json::to_string(b).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(json(&replayed), json(&full), "{what}");
            assert_eq!(full.frames.replayed, 0, "{what}");
            let frames = replayed.frames.replayed + replayed.frames.full;
            assert_eq!(frames, full.frames.full, "{what}");
            if policy == Policy::RoundRobin {
                // The same regions on each Renderer in every frame: every frame replays.
                assert_eq!(replayed.frames.full, 0, "{what}: {:?}", replayed.frames);
                assert!(replayed.frames.replayed > 0, "{what}");
            }
        }
    }
}

#[test]
fn a_replay_of_another_frame_says_it_is_not_the_recorded_one() {
    let (frame, shading) = scene();
    let feed = Feed {
        gps: Some((4, 16.0)),
        ring: Some(2),
    };
    let s4 = spec(4, Policy::RoundRobin, feed);
    let full = system::run_frame_tapped(&frame, &shading, image(), &s4, &|_| {}, DataTaps::Record)
        .unwrap_or_else(|e| panic!("{e}"));
    let rec = full.recorded.unwrap_or_else(|| panic!("recorded"));
    // Three Renderers share the regions otherwise: Renderer 0's second region is another.
    let s3 = spec(3, Policy::RoundRobin, feed);
    let err = system::run_frame_tapped(
        &frame,
        &shading,
        image(),
        &s3,
        &|_| {},
        DataTaps::Replay(&rec),
    )
    .err()
    .unwrap_or_else(|| panic!("a replay of another frame ran"));
    assert!(
        err.0.contains("not the recorded frame's next region"),
        "{err}"
    );
    // The same frame replays, and gives the full frame's cycles without its pixels.
    let again = system::run_frame_tapped(
        &frame,
        &shading,
        image(),
        &s4,
        &|_| {},
        DataTaps::Replay(&rec),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.cycles, full.cycles);
    assert!(again.pixels.is_empty());
}
