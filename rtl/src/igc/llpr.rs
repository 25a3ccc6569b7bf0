//! The IGC's command input registers, written by the Stream Parser.
//!
//! The parser writes each word of a command (opcode, P word, coefficients) with a WrEnLLPR
//! pulse and hands the complete command over with GoLLPR; the IGC takes it when its microcode
//! reaches a DISPATCH (seed 003 §III.4.1-1 names the two handshake signals). One command can
//! wait here while the IGC executes the previous one.

use crate::trace::Wave;

/// Index of each coefficient in [`Llpr::coef`] (the order the QEE names them).
pub const COEF_A: usize = 0;
/// Coefficient B.
pub const COEF_B: usize = 1;
/// Coefficient C, also the scalar `sca`.
pub const COEF_C: usize = 2;
/// Coefficient D.
pub const COEF_D: usize = 3;
/// Coefficient E.
pub const COEF_E: usize = 4;
/// Coefficient F.
pub const COEF_F: usize = 5;

/// One complete command as handed to the IGC (the Stream Parser's waveform shows the one it
/// assembles: its opcode and coefficient mask).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Wave)]
#[wave(part)]
pub struct Llpr {
    /// GoLLPR has been given and the IGC has not yet taken the command.
    #[wave(skip)]
    pub go: bool,
    pub opcode: u32,
    #[wave(skip)]
    pub p: u32,
    /// Coefficients A, B, C, D, E, F (raw words: IEEE floats, or C as the scalar).
    #[wave(skip)]
    pub coef: [u32; 6],
    /// Which coefficients were sent with this command (bit `k` = `coef[k]`); the others keep the
    /// IGC's previous values (coefficient re-use, seed §III.4.2.4).
    #[wave(bits = 6)]
    pub coef_mask: u8,
}
