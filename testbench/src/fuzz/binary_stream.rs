//! Fuzz target: the binary Ring-message reader (`PP5R` files).
//!
//! Any bytes either read as a stream or give an error with a message (never a panic, never
//! an allocation the file's size does not justify). A stream that reads writes back to
//! bytes that read the same and write the same again, and its text form reads back the same
//! ([`super::text_stream::round_trips`]); the loader that detects the format by content
//! agrees with the binary reader.

use pp5_sim::stream::{self, binary};

pub fn check(data: &[u8]) {
    let table = &super::image().table;
    let read = binary::read(data);
    match &read {
        Ok(s) => {
            assert!(binary::is_binary(data), "read a file without the magic");
            super::text_stream::round_trips(s, table);
        }
        Err(e) => assert!(!e.msg.trim().is_empty(), "an error without a message"),
    }
    if binary::is_binary(data) {
        let loaded = stream::load(data, "fuzz.bin", table);
        assert_eq!(
            loaded.as_ref().ok(),
            read.as_ref().ok(),
            "the loader and the binary reader disagree"
        );
    }
}
