//! Field specs: which fields of which kinds a builtin transformer touches.
//! The default tables are data (`data/fieldspecs/*.yaml`). (Being written.)

use serde::{Deserialize, Serialize};

/// One field spec: a slash-separated path in objects of a (partial) gvk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct FieldSpec {
    /// API group to match; empty matches any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// API version to match; empty matches any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Kind to match; empty matches any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Slash-separated field path, e.g. `spec/template/metadata/labels`.
    #[serde(default)]
    pub path: String,
    /// Create the field when it is missing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub create: bool,
}
