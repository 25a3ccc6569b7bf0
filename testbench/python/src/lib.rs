//! # `pp5`: the Pixel-Planes 5 Renderer model as a Python module
//!
//! PyO3 bindings over the one engine `pp5 run` and the Rust `Testbench` use (no second
//! implementation): [`board::Board`] boots microcode through the command stream and runs
//! streams, pixel memory and Enable/Carry come back as NumPy arrays indexed `[y, x]`,
//! registers by their waveform names; [`image`] is the assembler, [`streams`] the stream
//! formats. docs/python.md is the tutorial; `pp5.pyi` the typed interface.
//!
//! Built by maturin (`maturin develop --release` in this directory); `scripts/test.sh` builds
//! it into `.venv` and runs the pytest suite in `tests/`.

mod arrays;
mod board;
mod breakpoints;
mod debugger;
mod errors;
mod image;
mod machine;
mod outcome;
mod render;
mod run_log;
mod signals;
mod status;
mod streams;
mod tracing;

use pyo3::prelude::*;

/// The Pixel-Planes 5 Renderer model: boards, microcode images, command streams, render
/// studies. Imported as `pp5._pp5` by the package `pp5` (python/pp5/__init__.py), which adds
/// the sweeps written in Python.
#[pymodule]
fn _pp5(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<board::Board>()?;
    m.add_class::<board::Trace>()?;
    m.add_class::<image::Image>()?;
    m.add_class::<image::CommandInfo>()?;
    m.add_class::<outcome::Outcome>()?;
    m.add_class::<outcome::Command>()?;
    m.add_class::<outcome::BsCommand>()?;
    m.add_class::<outcome::Diagnostic>()?;
    m.add_class::<outcome::SentMessage>()?;
    m.add_class::<status::Status>()?;
    m.add_function(wrap_pyfunction!(image::assemble, m)?)?;
    m.add_function(wrap_pyfunction!(image::assemble_files, m)?)?;
    m.add_function(wrap_pyfunction!(image::microcode_source, m)?)?;
    m.add_class::<render::RenderResult>()?;
    m.add_function(wrap_pyfunction!(render::render, m)?)?;
    m.add_function(wrap_pyfunction!(streams::stream, m)?)?;
    m.add_function(wrap_pyfunction!(streams::disassemble, m)?)?;
    errors::register(m)?;
    m.add("ARRAY_DIM", pp5_rtl::emc_array::plane::ARRAY_DIM)?;
    m.add("MEM_BITS", pp5_rtl::emc_array::MEM_BITS)?;
    m.add("CYCLE_NS", pp5_rtl::clock::CYCLE_PS as f64 / 1000.0)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
