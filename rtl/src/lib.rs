//! # pp5-rtl: the hardware blocks of the Pixel-Planes 5 Renderer
//!
//! Every block is a set of clocked registers plus next-state logic evaluated once per 40 MHz
//! edge. The module tree follows the block diagram in `docs/architecture.md`:
//!
//! - [`ring`]: what both Ring ports share: the RxFIFO and the transmitter.
//! - [`igc_port`]: the IGC Ring port: the [`igc_port::parser`] (Stream Parser) and the
//!   [`igc_port::messages`] unit (status and error messages).
//! - [`igc`]: the Image Generation Controller: microcode store, microsequencer, operand registers.
//! - [`flow_control`]: the IGC's SIMD flow-control unit.
//! - [`emc_array`]: the 64 EMCs as one bit-sliced array of 128×128 pixel processors.
//! - [`qee`]: the quadratic expression evaluators.
//! - [`backing_store`]: the 128 sectors of VRAM and the transfer unit (BSLOAD/BSSTORE).
//! - [`bs_port`]: the Backing Store Ring port.
//! - [`semaphore`]: the BS and IGC semaphores.
//! - [`renderer`]: the board: wires the blocks, the status word and the LEDs.
//! - [`cause`]: why a block spent a cycle (the IGC's and the BS port's, for timing reports).
//!
//! No block does I/O; waveforms are written by `pp5-sim` through the [`trace`] interface. How a
//! block shows itself in the waveform is a `trace` module beside it (`igc/trace.rs`,
//! `renderer/trace.rs`, ...), apart from its registers and its step.

// The derives of `trace` name this crate by its path (`::pp5_rtl::trace`), here too.
extern crate self as pp5_rtl;

pub mod backing_store;
pub mod bs_port;
pub mod cause;
pub mod clock;
pub mod emc_array;
pub mod flow_control;
pub mod igc;
pub mod igc_port;
pub mod qee;
pub mod renderer;
pub mod ring;
pub mod semaphore;
pub mod status;
pub mod trace;

pub use renderer::{Renderer, RendererConfig};
