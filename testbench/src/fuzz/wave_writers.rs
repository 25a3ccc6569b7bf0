//! Fuzz target: the VCD and FST writers and the `.gtkw` writer, fed random signals.
//!
//! The input declares a block (up to 12 signals in up to three nested scopes: bit vectors of
//! width 1..=64 and text signals, names with spaces, control characters and non-ASCII
//! letters), a scope selection and a cycle window, and the values of up to 24 samples. The
//! file is read back with `wellen` (the reader behind the Surfer viewer), and must hold:
//! exactly the selected signals, each with the value written at every sampled cycle in the
//! window (bit vectors masked to their width; VCD text with whitespace and control bytes as
//! `_`, the empty text as `-`; FST text as its first 32 bytes), a time axis that ends at the
//! falling clock edge of the last sample; the `.gtkw` names the file and every signal. A
//! repeated cycle is refused and changes nothing; a width outside 1..=64 is refused before
//! any file exists.

use super::bytes::Bytes;
use crate::support;
use pp5_rtl::clock::{CYCLE_PS, HALF_CYCLE_PS};
use pp5_rtl::trace::{DecodeWith, Traced, Tracer};
use pp5_sim::trace::{write_gtkw, TraceConfig, WaveFormat, WaveWriter, FST_TEXT_CHARS};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Name stems; each signal's name is a stem and its index, so names are unique.
const STEMS: [&str; 8] = ["a", "clk", "x y", "", "st\tate", "größe", "v_", "\u{7f}q"];
/// Text values.
const TEXTS: [&str; 8] = [
    "IDLE",
    "",
    "two words",
    "-",
    "tab\there",
    "ünï",
    "a text longer than thirty-two bytes, cut",
    "\u{1}ctl",
];

#[derive(Clone, Debug)]
struct Sig {
    /// Scope names inside the top scope `fz`.
    scopes: Vec<String>,
    name: String,
    /// `None`: a text signal.
    width: Option<u32>,
}

/// The fuzzed block: its signals and their current values.
struct Block {
    sigs: Vec<Sig>,
    bits: Vec<u64>,
    texts: Vec<&'static str>,
    /// Per text signal: a record's decode function that shows it, by its index in [`TEXTS`].
    shows: Vec<Option<DecodeWith>>,
}

impl Block {
    fn new(sigs: Vec<Sig>) -> Block {
        let n = sigs.len();
        let shows = (sigs.iter())
            .map(|s| {
                let name = s.name.clone();
                s.width.is_none().then(|| -> DecodeWith {
                    Arc::new(move |w, t| {
                        let k = w.first().map_or(0, |&k| k as usize);
                        t.text(&name, TEXTS.get(k).copied().unwrap_or(""));
                    })
                })
            })
            .collect();
        Block {
            sigs,
            bits: vec![0; n],
            texts: vec![""; n],
            shows,
        }
    }
}

impl Traced for Block {
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        t.push_scope("fz");
        for (i, s) in self.sigs.iter().enumerate() {
            for sc in &s.scopes {
                t.push_scope(sc);
            }
            match (s.width, &self.shows[i]) {
                (Some(w), _) => t.bits(&s.name, w, self.bits[i]),
                (None, Some(show)) => {
                    let k = TEXTS.iter().position(|&x| x == self.texts[i]);
                    t.record_with(&[k.unwrap_or(0) as u64], show);
                }
                (None, None) => {}
            }
            for _ in &s.scopes {
                t.pop_scope();
            }
        }
        t.pop_scope();
    }
}

/// What the writers make of a name.
use pp5_sim::trace::sanitize_name as token;

fn path_of(s: &Sig) -> String {
    let mut p = vec!["fz".to_string()];
    p.extend(s.scopes.iter().map(|x| token(x)));
    p.push(token(&s.name));
    p.join(".")
}

/// The value a reader must see for text `v`.
fn text_as_read(v: &str, fst: bool) -> String {
    if fst {
        let mut bytes: Vec<u8> = v.bytes().take(FST_TEXT_CHARS as usize).collect();
        bytes.resize(FST_TEXT_CHARS as usize, 0);
        bytes.iter().map(|b| format!("{b:08b}")).collect()
    } else if v.is_empty() {
        "-".into()
    } else {
        let b: Vec<u8> = v
            .bytes()
            .map(|b| if b <= b' ' || b == 0x7f { b'_' } else { b })
            .collect();
        String::from_utf8_lossy(&b).into_owned()
    }
}

/// A scratch file name for this process.
fn scratch(ext: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "pp5-fuzz-wave-{}-{}.{ext}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

pub fn check(data: &[u8]) {
    let mut r = Bytes::new(data);
    let format = if r.bool() {
        WaveFormat::Fst
    } else {
        WaveFormat::Vcd
    };
    let scope_names = ["p", "q r", "igc"];
    let mut sigs = Vec::new();
    for i in 0..=r.below(12) {
        let depth = r.below(4) as usize;
        let scopes = (0..depth)
            .map(|_| r.pick(&scope_names).to_string())
            .collect();
        let name = format!("{}{i}", r.pick(&STEMS));
        let width = match r.below(16) {
            0..=3 => None,
            4 => Some(64),
            _ => Some(1 + r.below(64)),
        };
        sigs.push(Sig {
            scopes,
            name,
            width,
        });
    }
    let bad_width = r.below(32) == 0;
    if bad_width {
        if let Some(s) = sigs.last_mut() {
            s.width = Some(if r.bool() { 0 } else { 65 });
        }
    }
    let cfg = TraceConfig {
        scopes: match r.below(4) {
            0 => vec!["fz.p".into()],
            1 => vec![format!("fz.{}", token(&sigs[0].name)), "fz.igc".into()],
            _ => Vec::new(),
        },
        window: (r.below(3) == 0).then(|| {
            let first = u64::from(r.below(12));
            (first, first + u64::from(r.below(16)))
        }),
    };
    let n = sigs.len();
    let mut block = Block::new(sigs);
    let path = scratch(format.extension());
    let made = WaveWriter::create(&path, format, cfg.clone(), &block);
    if bad_width {
        assert!(made.is_err(), "a width outside 1..=64 was accepted");
        assert!(!path.exists(), "a refused declaration left a file");
        return;
    }
    let mut w = made.unwrap_or_else(|e| panic!("create: {e}"));
    let signals = w.signals().to_vec();
    // Every selected signal of the block is declared, and nothing else but `clk`.
    let selected: Vec<String> = block
        .sigs
        .iter()
        .map(path_of)
        .filter(|p| cfg.selects(p))
        .collect();
    let declared: Vec<&str> = signals
        .iter()
        .map(|s| s.path.as_str())
        .filter(|p| *p != "fz.clk")
        .collect();
    assert_eq!(declared, selected, "declared signals");

    // Samples: (cycle, values).
    let mut samples: Vec<(u64, Vec<u64>, Vec<&'static str>)> = Vec::new();
    let mut cycle = u64::from(r.below(4));
    for _ in 0..=r.below(24) {
        for i in 0..n {
            block.bits[i] = if r.bool() { r.u64() } else { block.bits[i] };
            block.texts[i] = r.pick(&TEXTS);
        }
        w.sample(cycle, &block)
            .unwrap_or_else(|e| panic!("sample {cycle}: {e}"));
        samples.push((cycle, block.bits.clone(), block.texts.clone()));
        if r.below(8) == 0 && cfg.in_window(cycle) {
            let again = w.sample(cycle, &block);
            assert!(again.is_err(), "cycle {cycle} sampled twice");
        }
        cycle += 1 + u64::from(r.below(3));
    }
    let first = w.first_sample_cycle();
    w.finish().unwrap_or_else(|e| panic!("finish: {e}"));
    let gtkw = path.with_extension("gtkw");
    let start_ps = first.unwrap_or(0) * CYCLE_PS;
    write_gtkw(&gtkw, &path, &signals, start_ps, 200).unwrap_or_else(|e| panic!("gtkw: {e}"));
    let result = std::panic::catch_unwind(|| {
        read_back(&path, &gtkw, format, &block.sigs, &cfg, &samples, &signals)
    });
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&gtkw);
    if let Err(p) = result {
        std::panic::resume_unwind(p);
    }
}

/// Read the file back and compare every value at every sampled cycle in the window.
fn read_back(
    path: &std::path::Path,
    gtkw: &std::path::Path,
    format: WaveFormat,
    sigs: &[Sig],
    cfg: &TraceConfig,
    samples: &[(u64, Vec<u64>, Vec<&'static str>)],
    signals: &[pp5_sim::trace::SignalInfo],
) {
    let fst = format == WaveFormat::Fst;
    let written: Vec<&(u64, Vec<u64>, Vec<&str>)> =
        samples.iter().filter(|s| cfg.in_window(s.0)).collect();
    if fst && written.is_empty() {
        // An FST without a single time step: `wellen` 0.25 panics on it (an `unwrap` of the
        // first time-table entry). The simulator never writes one: a run samples every
        // cycle, and a window after the run's end is refused (session::run).
        return;
    }
    let mut wave = wellen::simple::read(path)
        .unwrap_or_else(|e| panic!("wellen cannot read the {format:?}: {e:?}"));
    let last = written.last().map(|s| s.0 * CYCLE_PS + HALF_CYCLE_PS);
    if let Some(last) = last {
        assert_eq!(
            wave.time_table().last().copied(),
            Some(last),
            "end of the time axis"
        );
    }
    for (i, s) in sigs.iter().enumerate() {
        let p = path_of(s);
        if !cfg.selects(&p) {
            continue;
        }
        let changes = support::wave_changes(&mut wave, &p);
        for (cycle, bits, texts) in &written {
            let t = cycle * CYCLE_PS;
            let seen = changes
                .iter()
                .rev()
                .find(|c| c.0 <= t)
                .map(|c| c.1.as_str())
                .unwrap_or("");
            let want = match s.width {
                Some(w) => {
                    let v = if w >= 64 {
                        bits[i]
                    } else {
                        bits[i] & ((1 << w) - 1)
                    };
                    format!("{v:0w$b}", w = w as usize)
                }
                None => text_as_read(texts[i], fst),
            };
            assert_eq!(seen, want, "{p} at cycle {cycle} ({format:?})");
        }
    }
    let save = std::fs::read_to_string(gtkw).expect("the .gtkw reads");
    let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
    assert!(
        file.is_some_and(|f| save.contains(&format!("[dumpfile] \"{f}\""))),
        "the .gtkw does not name its file"
    );
    for s in signals {
        assert!(
            save.lines().any(|l| l == s.path
                || l.strip_prefix(s.path.as_str())
                    .is_some_and(|r| r.starts_with('['))),
            "the .gtkw does not show {}",
            s.path
        );
    }
}
