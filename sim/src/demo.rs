//! The built-in example: a short stream that exercises the parser, the microcoded IGC and the
//! PE array, so `pp5 demo` shows something in GTKWave with no input files.

use crate::asm::opcodes::{EncodeError, OpcodeTable};
use crate::stream::builder::StreamBuilder;
use crate::stream::Stream;

/// Text of the demo stream (also written next to the waveform so users can edit and re-run
/// it with `pp5 run`).
pub const DEMO_STREAM: &str = "\
# pp5 demo: arithmetic on all 16,384 pixels, compares into Enable, a flushed message.
message
FBITS 10
SETENABS
SCAIntoMEM_S1 0 8 37          # mem[0:8]  = 37
SCAIntoMEM_S1 8 8 5           # mem[8:8]  = 5
MEMplusMEM 16 0 8 8 8         # mem[16:8] = 42
MEMminusMEM 24 16 8 8 8       # mem[24:8] = 37
INC 32 24 8                   # mem[32:8] = 38
NEGATE 40 32 8                # mem[40:8] = -38 = 218
CPY 48 40 8                   # mem[48:8] = 218
MEMgeSCA_S1 16 8 40           # enable &&= 42 >= 40   (stays on)
MEMeqSCA_S1 32 8 38           # enable &&= 38 == 38   (stays on)
ENABIntoMEM 56                # mem[56] = 1
MEMgtSCA_S1 0 8 99            # enable &&= 37 > 99    (all off: AEO)
NOOP
NOOP
NOOP
NOOP
message flush                 # flushed: AEO is asserted when it starts
SET 64 8
message
SETENABS
SCAIntoMEM_TBL 72 8 1 2 3     # three executions, the last value wins
INDON
";

/// Build the demo stream with `table` (the standard microcode's opcode table).
pub fn demo_stream(table: &OpcodeTable) -> Result<Stream, String> {
    crate::stream::text::parse(DEMO_STREAM, "<demo>", table).map_err(|e| e.to_string())
}

/// An ALU-heavy stream for the benchmark: `reps` rounds of 32-bit adds, subtracts, copies and
/// compares over all pixels.
pub fn alu_stream(table: &OpcodeTable, reps: usize) -> Result<Stream, EncodeError> {
    let mut b = StreamBuilder::new(table);
    b.igc("SETENABS", &[])?;
    b.igc("SCAIntoMEM_S1", &[0, 32, 123_456])?;
    b.igc("SCAIntoMEM_S1", &[32, 32, 654_321])?;
    for _ in 0..reps {
        b.igc("MEMplusMEM", &[64, 0, 32, 32, 32])?;
        b.igc("MEMminusMEM", &[96, 64, 0, 32, 32])?;
        b.igc("MEMplusseqMEM", &[0, 96, 32, 32])?;
        b.igc("CPY", &[128, 64, 32])?;
        b.igc("MEMgeMEM", &[0, 32, 32])?;
        b.igc("INVERT", &[160, 128, 32])?;
    }
    Ok(b.finish())
}
