//! `pp5 render --timeline FILE.svg`: a Gantt chart of the frame drawn with `plotters` (SVG
//! back end): a row per GP (busy), per Ring channel (carrying a region stream to a
//! Renderer, or pixels to the frame buffer) and per Renderer (drawing a region; its IGC
//! waiting for input within a region), time in µs across.

use super::ring::Node;
use super::FrameRun;
use plotters::prelude::*;
use pp5_rtl::clock::CYCLE_PS;
use std::path::Path;

/// Spans closer than this (cycles) are drawn as one bar (a GP's triangles, a channel's
/// packets): the picture stays small.
const MERGE: u64 = 64;

/// Sorted spans merged where they touch or nearly.
fn merged(mut spans: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    spans.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (s, e) in spans {
        match out.last_mut() {
            Some(l) if s <= l.1 + MERGE => l.1 = l.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// One bar: row, start, end (cycles), colour.
type Bar = (usize, u64, u64, RGBColor);

const GP: RGBColor = RGBColor(70, 130, 180);
const TO_RENDERER: RGBColor = RGBColor(60, 170, 90);
const TO_FB: RGBColor = RGBColor(230, 140, 30);
const DRAWING: RGBColor = RGBColor(120, 90, 170);
const WAITING: RGBColor = RGBColor(220, 60, 60);

/// The rows (labels, top to bottom) and bars of `run`.
fn bars(run: &FrameRun) -> Result<(Vec<String>, Vec<Bar>), String> {
    let feed = run
        .feed
        .as_ref()
        .ok_or("the GPs and the Ring were not modelled")?;
    let mut labels = Vec::new();
    let mut bars = Vec::new();
    if let Some(gp) = &feed.gp {
        for k in 0..gp.gps {
            let spans = gp.tri.iter().skip(k).step_by(gp.gps).copied();
            for (s, e) in merged(spans.filter(|x| x.1 > x.0).collect()) {
                bars.push((labels.len(), s, e, GP));
            }
            labels.push(format!("GP {k}"));
        }
    }
    for c in 0..feed.ring.channels() {
        let mine = || feed.ring.transfers.iter().filter(move |x| x.channel == c);
        for (to_fb, colour) in [(false, TO_RENDERER), (true, TO_FB)] {
            let spans = mine()
                .filter(|x| (x.to == Node::FrameBuffer) == to_fb)
                .map(|x| (x.start, x.end));
            for (s, e) in merged(spans.collect()) {
                bars.push((labels.len(), s, e, colour));
            }
        }
        labels.push(format!("Ring {c}"));
    }
    for r in &run.renderers {
        let row = labels.len();
        let spans: Vec<(u64, u64)> = run
            .regions
            .iter()
            .filter(|x| x.renderer == r.index)
            .map(|x| (x.start, x.end))
            .collect();
        for &(s, e) in &spans {
            bars.push((row, s, e, DRAWING));
        }
        let mut since = None;
        for &(c, on) in feed.waits.get(r.index).into_iter().flatten() {
            match (on, since) {
                (true, None) => since = Some(c),
                (false, Some(s)) => {
                    // Waits inside a region, long enough to see.
                    if c > s + MERGE && spans.iter().any(|&(a, b)| s >= a && c <= b) {
                        bars.push((row, s, c, WAITING));
                    }
                    since = None;
                }
                _ => {}
            }
        }
        labels.push(format!("Renderer {}", r.index));
    }
    Ok((labels, bars))
}

/// Characters of a note line under the chart (the verdict is wrapped to it).
const NOTE_CHARS: usize = 190;

/// `text` wrapped at spaces into lines of at most [`NOTE_CHARS`] characters.
pub fn wrap(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= NOTE_CHARS => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Draw the timeline of `run` into `path` (SVG), with `notes` (the study's verdict, wrapped)
/// under the chart.
pub fn write(path: &Path, run: &FrameRun, title: &str, notes: &[String]) -> Result<(), String> {
    let (labels, bars) = bars(run)?;
    let us = |c: u64| c as f64 * CYCLE_PS as f64 / 1e6;
    let end = us(run.cycles.max(1));
    let rows = labels.len();
    let note_h = 14 * notes.len() as u32;
    let height = (60 + 14 * rows as u32).max(200) + note_h;
    let root = SVGBackend::new(path, (1200, height)).into_drawing_area();
    let e = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let (root, foot) = root.split_vertically(height - note_h);
    for (k, line) in notes.iter().enumerate() {
        foot.draw(&Text::new(
            line.as_str(),
            (10, 14 * k as i32),
            ("sans-serif", 12),
        ))
        .map_err(|x| e(&x))?;
    }
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(30)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..end, rows as f64..0f64)
        .map_err(|x| e(&x))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        // Every row is labelled below, at its middle (plotters' own labels would be "nice"
        // points: every other row, at the rows' edges).
        .y_labels(0)
        .x_desc("µs from the frame's start (green: region streams, orange: pixels to the frame buffer, purple: drawing, red: waiting for input)")
        .label_style(("sans-serif", 10))
        .draw()
        .map_err(|x| e(&x))?;
    chart
        .draw_series(bars.iter().map(|&(row, s, t, colour)| {
            let y = row as f64;
            Rectangle::new([(us(s), y + 0.15), (us(t), y + 0.85)], colour.filled())
        }))
        .map_err(|x| e(&x))?;
    for (k, l) in labels.iter().enumerate() {
        let (_, py) = chart.backend_coord(&(0.0, k as f64 + 0.5));
        root.draw(&Text::new(l.as_str(), (6, py - 5), ("sans-serif", 10)))
            .map_err(|x| e(&x))?;
    }
    root.present().map_err(|x| e(&x))?;
    Ok(())
}
