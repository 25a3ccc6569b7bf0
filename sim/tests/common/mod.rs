//! The helpers of `pp5_testbench::support` for pp5-sim's own tests, which cannot depend on
//! pp5-testbench (it depends on pp5-sim): the same file, included.

// Each test executable uses some of the helpers.
#![allow(dead_code, unused_imports)]

#[path = "../../../testbench/src/support.rs"]
mod support;

pub use support::*;
