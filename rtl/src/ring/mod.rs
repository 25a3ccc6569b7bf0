//! The Ring side of the Renderer's two ports (seed 003 §III.4.1-3, §III.4.1-5): the receiver
//! and its receive FIFO each port has, and the transmitter each port sends its messages
//! through.

pub mod receiver;
pub mod rxfifo;
pub(crate) mod trace;
pub mod tx;

/// Which of the Renderer's two Ring ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortId {
    /// The Image Generation Controller port.
    Igc,
    /// The Backing Store port.
    Bs,
}

impl PortId {
    /// Name used in reports and waveforms.
    pub fn name(self) -> &'static str {
        match self {
            PortId::Igc => "igc",
            PortId::Bs => "bs",
        }
    }
}
