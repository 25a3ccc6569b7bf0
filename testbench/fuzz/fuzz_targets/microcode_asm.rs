//! `cargo fuzz run microcode_asm`: [`pp5_testbench::fuzz::microcode_asm`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pp5_testbench::fuzz::microcode_asm::check(data));
