//! Reference models and testbench helpers for pp5-rtl.
