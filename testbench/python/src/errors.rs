//! The module's exceptions, and the conversions from the engine's errors.
//!
//! Bad input is a `ValueError` (or a subclass with the location: [`AsmError`],
//! [`StreamError`]); a wrong type is a `TypeError`; a run that cannot go on raises a
//! [`SimulationError`] ([`Deadlock`], [`Stuck`]) whose text is the CLI's.

use pp5_sim::asm::microcode::AsmErrors;
use pp5_sim::stream::StreamError as EngineStreamError;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

create_exception!(
    pp5,
    AsmError,
    PyValueError,
    "Microcode that does not assemble. `str(e)` lists every error as `file:line: message`; \
     `e.errors` holds them as `(file, line, message)` tuples."
);
create_exception!(
    pp5,
    StreamError,
    PyValueError,
    "A command stream that does not parse (text) or read (binary). `str(e)` is \
     `file:line: message`; `e.file`, `e.line` (0 for a binary stream) and `e.msg` hold the parts."
);
create_exception!(
    pp5,
    SimulationError,
    PyRuntimeError,
    "A run that cannot go on. `str(e)` is the CLI's `stopped:` text; `e.outcome` is the \
     Outcome of the run up to the stop."
);
create_exception!(
    pp5,
    Deadlock,
    SimulationError,
    "No block can make progress and some block waits (a PIGC with no BS_VIGC coming, a \
     message held with TxReady low, ...). `e.since` is the cycle it began, `e.waits` the \
     `(block, waits_for, since)` tuples of the CLI's report."
);
create_exception!(
    pp5,
    Stuck,
    SimulationError,
    "The IGC is stuck (HANG, an illegal microinstruction, a microcode self-loop) and nothing \
     else can happen."
);

/// An assembler error as a Python [`AsmError`] with its `errors` list.
pub fn asm_error(py: Python<'_>, e: &AsmErrors) -> PyErr {
    let err = AsmError::new_err(escaped(&e.to_string()));
    let items: Vec<(String, usize, String)> = e
        .errors
        .iter()
        .map(|a| (a.file.clone(), a.line, a.msg.clone()))
        .collect();
    if let Ok(list) = PyList::new(py, items) {
        let _ = err.value(py).setattr("errors", list);
    }
    let _ = err.value(py).setattr("more", e.more);
    err
}

/// A stream error as a Python [`StreamError`] with `file`, `line` and `msg`.
pub fn stream_error(py: Python<'_>, e: &EngineStreamError) -> PyErr {
    let err = StreamError::new_err(escaped(&e.to_string()));
    let v = err.value(py);
    let _ = v.setattr("file", e.file.clone());
    let _ = v.setattr("line", e.line);
    let _ = v.setattr("msg", e.msg.clone());
    err
}

/// `msg` with its control characters but line breaks escaped (`\u{0}`): a NUL or an escape
/// sequence from the input is shown, not echoed raw into a terminal or a log.
pub fn escaped(msg: &str) -> String {
    msg.chars()
        .map(|c| {
            if c.is_control() && c != '\n' {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A `ValueError` with `msg` (control characters escaped).
pub fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(escaped(&msg.into()))
}

/// A `TypeError` with `msg` (control characters escaped).
pub fn type_error(msg: impl Into<String>) -> PyErr {
    PyTypeError::new_err(escaped(&msg.into()))
}

/// An I/O error about `what` (a path) as an `OSError`.
pub fn os_error(what: &str, e: &std::io::Error) -> PyErr {
    PyOSError::new_err(escaped(&format!("{what}: {e}")))
}

/// Register the exception types on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("AsmError", py.get_type::<AsmError>())?;
    m.add("StreamError", py.get_type::<StreamError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("Deadlock", py.get_type::<Deadlock>())?;
    m.add("Stuck", py.get_type::<Stuck>())?;
    Ok(())
}
