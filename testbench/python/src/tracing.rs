//! `Board.trace`: a VCD or FST waveform of what the board does from now on, plus its `.gtkw`,
//! written by the simulator's own [`WaveWriter`] (the files `pp5 run --vcd/--fst` writes).

use pp5_rtl::clock::CYCLE_PS;
use pp5_rtl::renderer::TraceView;
use pp5_sim::trace::{gtkw, write_gtkw, Declaration, TraceConfig, WaveFormat, WaveWriter};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A waveform being written.
pub struct Wave {
    /// In a mutex only to make the board `Sync` (its writer holds a channel receiver); the
    /// board reaches it by `get_mut`, which never locks.
    writer: Mutex<WaveWriter>,
    pub path: PathBuf,
    view_cycles: u64,
    last_sampled: Option<u64>,
}

/// What `Board.trace` was asked for.
pub struct TraceRequest {
    pub path: PathBuf,
    pub scopes: Vec<String>,
    pub window: Option<(u64, u64)>,
    pub view_cycles: Option<u64>,
}

impl TraceRequest {
    /// Check the request against `board`: a known format, scopes that select something, a
    /// window that is not reversed. Returns the waveform's layout (the one walk that declares
    /// the signals also finds the scopes that select nothing).
    pub fn check(&self, board: &TraceView) -> Result<Declaration, String> {
        let format = WaveFormat::from_path(&self.path).ok_or_else(|| {
            format!(
                "{}: a waveform file ends in .vcd or .fst",
                self.path.display()
            )
        })?;
        let cfg = TraceConfig {
            scopes: self.scopes.clone(),
            window: self.window,
        };
        let decl = Declaration::new(board, format, cfg)
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        if let Some(u) = decl.unmatched_scopes() {
            return Err(format!(
                "scopes {}: no signal has that path or prefix; the scopes are: {}",
                u.unmatched.join(", "),
                u.scopes.join(", ")
            ));
        }
        if let Some((a, b)) = self.window {
            if b < a {
                return Err(format!(
                    "window ({a}, {b}): the last cycle is before the first"
                ));
            }
        }
        if self.view_cycles == Some(0) {
            return Err("view: show at least 1 cycle".into());
        }
        Ok(decl)
    }
}

impl Wave {
    /// Create the file laid out by [`TraceRequest::check`] and sample the board as it is.
    pub fn start(req: TraceRequest, decl: Declaration, board: &TraceView) -> io::Result<Wave> {
        let writer = WaveWriter::declared(&req.path, decl, board.board.cycle)?;
        let mut w = Wave {
            writer: Mutex::new(writer),
            path: req.path,
            view_cycles: req.view_cycles.unwrap_or(gtkw::VISIBLE_CYCLES),
            last_sampled: None,
        };
        w.sample(board)?;
        Ok(w)
    }

    /// Sample the board if its cycle moved since the last sample.
    #[inline]
    pub fn sample(&mut self, board: &TraceView) -> io::Result<()> {
        if self.last_sampled != Some(board.board.cycle) {
            writer(&mut self.writer)?.sample(board.board.cycle, board)?;
            self.last_sampled = Some(board.board.cycle);
        }
        Ok(())
    }

    /// The `.gtkw` beside the waveform.
    pub fn gtkw_path(&self) -> PathBuf {
        self.path.with_extension("gtkw")
    }

    /// Close the file and write the `.gtkw`; returns the two paths.
    pub fn finish(mut self) -> io::Result<(PathBuf, PathBuf)> {
        let gtkw = self.gtkw_path();
        let w = writer(&mut self.writer)?;
        let signals = w.signals().to_vec();
        let start_ps = w.first_sample_cycle().unwrap_or(0).saturating_mul(CYCLE_PS);
        let closed = self
            .writer
            .into_inner()
            .map_err(|_| io::Error::other("the waveform writer panicked"))?
            .finish();
        write_gtkw(&gtkw, &self.path, &signals, start_ps, self.view_cycles)?;
        closed?;
        Ok((self.path, gtkw))
    }
}

/// The command that opens a waveform with its save file.
pub fn open_command(wave: &Path, gtkw: &Path) -> String {
    pp5_sim::trace::gtkwave_command(wave, gtkw)
}

/// The writer inside its mutex (a poisoned one, after a panic while sampling, is an error).
fn writer(m: &mut Mutex<WaveWriter>) -> io::Result<&mut WaveWriter> {
    m.get_mut()
        .map_err(|_| io::Error::other("the waveform writer panicked"))
}
