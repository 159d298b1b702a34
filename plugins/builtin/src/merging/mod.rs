//! Merging engines the patch transformers share: strategic merge.

pub mod smp;
