//! Registers and signals by their waveform names (`renderer.igc.pc`): the board is walked
//! through the same [`Tracer`](pp5_rtl::trace::Tracer) interface the VCD/FST writers use, so
//! a name a user reads in GTKWave is a name a test can assert on.

use crate::errors::value_error;
use pp5_rtl::renderer::TraceView;
use pp5_rtl::trace::{Recorder, Traced};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Every signal of the board now: `(path, width, value, text)`; width 0 for text signals.
fn walk(board: &TraceView) -> Vec<(String, u32, u64, String)> {
    let mut rec = Recorder::default();
    board.trace(&mut rec);
    rec.signals
}

/// A signal's value for Python: an int, or a str for a text signal (FSM state, opcode name).
fn value(py: Python<'_>, s: &(String, u32, u64, String)) -> PyResult<Py<PyAny>> {
    Ok(if s.1 == 0 {
        s.3.clone().into_pyobject(py)?.into_any().unbind()
    } else {
        s.2.into_pyobject(py)?.into_any().unbind()
    })
}

/// The value of the signal `name`; a `KeyError` naming similar signals when there is none.
pub fn signal(py: Python<'_>, board: &TraceView, name: &str) -> PyResult<Py<PyAny>> {
    let all = walk(board);
    if let Some(s) = all.iter().find(|s| s.0 == name) {
        return value(py, s);
    }
    // Suggest the signals of the deepest scope the name shares with the board's.
    let mut scope = name;
    let near: Vec<&str> = loop {
        let Some((parent, _)) = scope.rsplit_once('.') else {
            break Vec::new();
        };
        scope = parent;
        let under: Vec<&str> = all
            .iter()
            .map(|s| s.0.as_str())
            .filter(|p| p.starts_with(scope) && p.as_bytes().get(scope.len()) == Some(&b'.'))
            .collect();
        if !under.is_empty() {
            break under;
        }
    };
    let hint = if near.is_empty() {
        "; board.signals() lists them all".to_string()
    } else {
        let shown: Vec<&str> = near.iter().take(12).copied().collect();
        format!(
            "; under {scope}: {}{}",
            shown.join(", "),
            if near.len() > shown.len() {
                ", ..."
            } else {
                ""
            }
        )
    };
    Err(pyo3::exceptions::PyKeyError::new_err(format!(
        "no signal named `{name}`{hint}"
    )))
}

/// Every signal whose path is `prefix` or continues it at a `.`: path → value.
pub fn signals<'py>(
    py: Python<'py>,
    board: &TraceView,
    prefix: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let p = prefix.trim_end_matches('.');
    let d = PyDict::new(py);
    for s in walk(board) {
        let hit = p.is_empty()
            || s.0 == p
            || (s.0.starts_with(p) && s.0.as_bytes().get(p.len()) == Some(&b'.'));
        if hit {
            d.set_item(&s.0, value(py, &s)?)?;
        }
    }
    if d.is_empty() {
        return Err(value_error(format!(
            "no signal has the path or prefix `{prefix}`"
        )));
    }
    Ok(d)
}
