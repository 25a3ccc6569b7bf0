//! What the board reports about the cycle it just stepped, beyond its registers: the outputs
//! an observer needs that the registers do not keep.

use crate::emc_array::ArrayOp;

/// The board's record of its last cycle, overwritten by every [`super::Renderer::step`]
/// (a plain value: no allocation per cycle).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CycleRecord {
    /// The operation the EMC array executed (the no-op when the IGC gave it none). Kept
    /// across a Ring reset, like the array it describes.
    pub array_op: ArrayOp,
    /// The flow-control unit's state changed (an instruction ran, or a dispatch reset the
    /// unit or changed its mode).
    pub fc_changed: bool,
}
