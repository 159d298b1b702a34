//! The builtin transformer kinds, one module per kind, and what they share.

pub(crate) mod annotations;
pub(crate) mod hash;
pub(crate) mod image_tag;
pub(crate) mod labels;
pub(crate) mod namespace;
pub(crate) mod patch;
pub(crate) mod patch_json6902;
pub(crate) mod patch_strategic_merge;
pub(crate) mod prefix_suffix;
pub(crate) mod replacement;
pub(crate) mod replicas;
pub(crate) mod shared_entries;
pub(crate) mod value_add;
