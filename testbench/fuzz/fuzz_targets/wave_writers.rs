//! `cargo fuzz run wave_writers`: [`pp5_testbench::fuzz::wave_writers`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pp5_testbench::fuzz::wave_writers::check(data));
