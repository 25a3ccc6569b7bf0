//! # pp5-sim: the simulation engine around the Renderer model
//!
//! - [`engine`]: the run loop, the Ring source, the timing log and diagnostics.
//! - [`exit`]: the CLI's exit codes and how a run's end maps onto them.
//! - [`session`]: one run from inputs to results (boot, stream, waveform, `.gtkw`).
//! - [`trace`]: waveform writers (VCD, FST) and GTKWave save files, fed by the
//!   [`pp5_rtl::trace::Tracer`] interface.
//! - [`asm`]: the microcode assembler and the opcode table it generates.
//! - [`stream`]: command streams: text format, binary Ring-message format, builder API.
//! - [`report`]: run summaries as tables, JSON and CSV.
//! - [`input`]: input files read with bounded memory.
//! - [`image`]: PNG pictures of pixel-memory fields and Enable (`--image`).
//! - [`out_file`]: output files written whole or not at all (temporary name, then rename).
//! - [`demo`], [`bench`]: the built-in examples (registers, shaded triangles) and the speed
//!   benchmark.

pub mod asm;
pub mod bench;
pub mod demo;
pub mod engine;
pub mod exit;
pub mod image;
pub mod input;
pub mod microcode_view;
pub mod out_file;
pub mod records;
pub mod render;
pub mod report;
pub mod session;
pub mod stream;
pub mod suggest;
pub mod trace;
