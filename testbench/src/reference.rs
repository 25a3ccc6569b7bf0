//! Plain per-pixel reference models (see the module docs inside).
