//! `cargo fuzz run text_stream`: [`pp5_testbench::fuzz::text_stream`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pp5_testbench::fuzz::text_stream::check(data));
