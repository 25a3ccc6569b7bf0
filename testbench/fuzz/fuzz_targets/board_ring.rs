//! `cargo fuzz run board_ring`: [`pp5_testbench::fuzz::board_ring`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pp5_testbench::fuzz::board_ring::check(data));
