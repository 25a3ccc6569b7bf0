//! # pp5-rtl: the hardware blocks of the Pixel-Planes 5 Renderer
//!
//! Every block is a set of clocked registers plus next-state logic evaluated once per 40 MHz
//! edge. The module tree follows the block diagram in `docs/architecture.md`:
//!
//! - [`igc_port`]: the IGC Ring port: [`igc_port::rxfifo`] and the [`igc_port::parser`] (Stream Parser).
//! - [`igc`]: the Image Generation Controller: microcode store, microsequencer, operand registers.
//! - [`emc_array`]: the 64 EMCs as one bit-sliced array of 128×128 pixel processors.
//! - [`renderer`]: the board: wires the blocks, the status word and the LEDs.
//!
//! No block does I/O; waveforms are written by `pp5-sim` through the [`trace`] interface.

pub mod clock;
pub mod emc_array;
pub mod flow_control;
pub mod igc;
pub mod igc_port;
pub mod qee;
pub mod renderer;
pub mod status;
pub mod trace;

pub use renderer::{Renderer, RendererConfig};
