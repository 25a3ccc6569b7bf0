//! The frame and its timing from the finished boards: each region's colours as the frame
//! buffer received them from the Renderer's BS port, and each Renderer's busy and idle time.

use super::board::Board;
use super::{FrameRun, RegionRun, RendererRun, SystemError, MAX_REPORTED};
use crate::engine::MicrocodeProfile;
use crate::render::gp::Frame;
use crate::render::region::FRAME_BUFFER;
use pp5_rtl::cause::Cause;
use pp5_rtl::emc_array::plane::ARRAY_DIM;

/// Turn the finished boards into the frame and its timing (`with_pixels` false: the
/// timing alone, the boards' pixels not computed).
pub(super) fn assemble(
    frame: &Frame,
    boards: Vec<Board>,
    width: u32,
    height: u32,
    with_pixels: bool,
) -> Result<FrameRun, SystemError> {
    let (w, h) = (width as usize, height as usize);
    let mut pixels = vec![[0u8; 3]; if with_pixels { w * h } else { 0 }];
    let mut regions = Vec::new();
    let mut renderers = Vec::new();
    let mut prim_cycles = Vec::new();
    let mut streams = Vec::new();
    let mut profile: Option<MicrocodeProfile> = None;
    for mut b in boards {
        match (&mut profile, &b.sim.profile) {
            (Some(all), Some(p)) => all.merge(p),
            (None, Some(p)) => profile = Some(p.clone()),
            _ => {}
        }
        b.read_timing(frame);
        if let Some(plan) = b.plans.get(b.measured.len()) {
            return Err(SystemError(format!(
                "Renderer {}: region {} did not run to its end",
                b.index, plan.region
            )));
        }
        let sent = b
            .sim
            .tx
            .iter()
            .filter(|m| m.words.first() == Some(&FRAME_BUFFER));
        let mut sent = sent.fuse();
        for region in &b.measured {
            // The region's colours as the frame buffer received them: 128 scanlines.
            let msg = sent.next().ok_or_else(|| {
                SystemError(format!(
                    "Renderer {}: region {} was not transmitted",
                    b.index, region.region
                ))
            })?;
            let (ox, oy) = region.origin;
            for (i, word) in msg
                .words
                .iter()
                .skip(1)
                .enumerate()
                .take(ARRAY_DIM * ARRAY_DIM)
            {
                let (x, y) = (ox + (i % ARRAY_DIM) as i64, oy + (i / ARRAY_DIM) as i64);
                if with_pixels && x < width as i64 && y < height as i64 {
                    pixels[y as usize * w + x as usize] =
                        [*word as u8, (word >> 8) as u8, (word >> 16) as u8];
                }
            }
        }
        let bs_busy = b.sim.causes().bs_port.get(Cause::Executing);
        let bs_held = b.sim.causes().bs_port.get(Cause::TxHold);
        let last_end = b.measured.iter().map(|r| r.end).max().unwrap_or(0);
        let sum = |f: fn(&RegionRun) -> u64| b.measured.iter().map(f).sum::<u64>();
        let work = b.prologue_work + sum(|r| r.work);
        let (wait_buffer, wait_transfer) = (sum(|r| r.wait_buffer), sum(|r| r.wait_transfer));
        let notes: Vec<String> = b
            .sim
            .diagnostics
            .iter()
            .filter(|d| d.level != "note")
            .map(|d| format!("cycle {}: {}: {}", d.cycle, d.level, d.msg))
            .collect();
        renderers.push(RendererRun {
            diagnostics: notes.iter().take(MAX_REPORTED).cloned().collect(),
            diagnostics_total: notes.len() + b.sim.diagnostics.dropped as usize,
            index: b.index,
            regions: b.plans.iter().map(|p| p.region).collect(),
            cycles: b.sim.board.cycle - b.boot_end,
            igc_busy: b.igc_busy,
            bs_busy,
            boot_cycles: b.boot_end,
            error_bits: b.sim.board.status() & pp5_rtl::status::ERROR_MASK,
            work,
            wait_input: last_end.saturating_sub(work + wait_buffer + wait_transfer),
            wait_buffer,
            wait_transfer,
            bs_held,
            still_cycles: b.sim.still_cycles(),
            longest_command_wait: b.longest_command_wait,
        });
        regions.append(&mut b.measured);
        prim_cycles.append(&mut b.prim_cycles);
        streams.extend(b.saved);
    }
    regions.sort_by_key(|r| r.region);
    let cycles = renderers.iter().map(|r| r.cycles).max().unwrap_or(0);
    Ok(FrameRun {
        regions,
        renderers,
        prim_cycles,
        pixels,
        cycles,
        streams,
        feed: None,
        profile,
        recorded: None,
    })
}
