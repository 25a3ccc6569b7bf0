//! `cargo fuzz run microcode_run`: [`pp5_testbench::fuzz::microcode_run`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pp5_testbench::fuzz::microcode_run::check(data));
