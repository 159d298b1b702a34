//! Merging engines the patch transformers share: strategic merge and RFC 6902 JSON patch.

pub(crate) mod json_patch;
pub mod smp;
