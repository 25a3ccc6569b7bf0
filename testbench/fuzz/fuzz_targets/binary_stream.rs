//! `cargo fuzz run binary_stream`: [`pp5_testbench::fuzz::binary_stream`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pp5_testbench::fuzz::binary_stream::check(data));
