//! Command streams from Python: text (`str`), a binary Ring-message file's bytes or text as
//! bytes, or a path; and `pp5.stream` / `pp5.disassemble`, the `pp5 stream` subcommand.

use crate::errors::{os_error, stream_error, type_error};
use crate::image::image_arg;
use pp5_sim::asm::opcodes::OpcodeTable;
use pp5_sim::stream::{binary, text, Stream};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// The stream a `stream=` argument holds: `str` is text in the `.pp5s` format; `bytes` or
/// `bytearray` is a binary Ring-message file (`PP5R`) or UTF-8 text; an `os.PathLike` is a
/// file of either. `name` names a text or bytes stream in error messages.
pub fn stream_arg(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    table: &OpcodeTable,
    name: &str,
) -> PyResult<Stream> {
    if let Ok(s) = obj.cast::<PyString>() {
        return text::parse(s.to_str()?, name, table).map_err(|e| stream_error(py, &e));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return load(py, b.as_bytes(), name, table);
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        let bytes = b.to_vec();
        return load(py, &bytes, name, table);
    }
    if obj.hasattr("__fspath__")? {
        let p: std::path::PathBuf = obj.extract()?;
        let file = p.display().to_string();
        let bytes = std::fs::read(&p).map_err(|e| os_error(&file, &e))?;
        return load(py, &bytes, &file, table);
    }
    Err(type_error(format!(
        "stream: expected text (str), a binary Ring-message file's bytes, or a path \
         (os.PathLike), got {}",
        obj.get_type().name()?
    )))
}

/// [`stream_arg`] for a stream to send a board: one holding messages a board sent
/// (`pp5 run --tx-out`) raises `pp5.StreamError`.
pub fn sendable_arg(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    table: &OpcodeTable,
    name: &str,
) -> PyResult<Stream> {
    let s = stream_arg(py, obj, table, name)?;
    s.check_sendable(name).map_err(|e| stream_error(py, &e))?;
    Ok(s)
}

fn load(py: Python<'_>, bytes: &[u8], name: &str, table: &OpcodeTable) -> PyResult<Stream> {
    pp5_sim::stream::load(bytes, name, table).map_err(|e| stream_error(py, &e))
}

/// stream(text, microcode=None, name="<stream>") -> bytes
///
/// Assemble a text stream into a binary Ring-message file (`pp5 stream IN -o OUT`), with
/// the opcode table of `microcode` (default: the image `Board()` boots). Errors raise
/// `pp5.StreamError` with `name:line: message`.
#[pyfunction]
#[pyo3(signature = (text, microcode = None, name = "<stream>"))]
pub fn stream<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    microcode: Option<&Bound<'py, PyAny>>,
    name: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let image = image_arg(py, microcode)?;
    let s = stream_arg(py, text, &image.table, name)?;
    let mut out = Vec::new();
    binary::write(&s, &mut out).map_err(|e| os_error(name, &e))?;
    Ok(PyBytes::new(py, &out))
}

/// disassemble(data, microcode=None) -> str
///
/// A stream (binary Ring messages as bytes, or text) as text in the `.pp5s` format
/// (`pp5 stream IN`), commands named by the opcode table of `microcode`.
#[pyfunction]
#[pyo3(signature = (data, microcode = None))]
pub fn disassemble(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    microcode: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let image = image_arg(py, microcode)?;
    let s = stream_arg(py, data, &image.table, "<stream>")?;
    Ok(text::disassemble(&s, &image.table))
}
