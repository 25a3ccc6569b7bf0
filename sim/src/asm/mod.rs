//! Assemblers: the IGC microcode assembler (our `asmpp5`) and its opcode table.

pub mod expr;
pub mod flow;
pub mod header;
pub mod listing;
pub mod microcode;
pub mod opcodes;
