//! Choosing resources: patch-target selectors and resource ids.

pub mod target;
