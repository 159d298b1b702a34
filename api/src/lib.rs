//! Types shared by the kustom core and its plugins.
//!
//! A resource is a `serde_json::Value` object: JSON is kustomize's own
//! intermediate form (its output is `JSONToYAML(MarshalJSON(resource))`), it
//! is what the shipped builtin plugin speaks on the wire. Build state (previous names, generator behavior, …)
//! travels inside the object as `internal.config.kubernetes.io/*`
//! annotations, exactly as kustomize keeps it, so it survives a plugin call.

pub mod doc;
pub mod empty_nulls;
pub mod error;
pub mod fieldspec;
pub mod files;
pub mod go_regex;
pub mod json;
pub mod json_view;
pub mod kustomize_version;
pub mod paths;
pub mod protocol;
pub mod resid;
pub mod resource;
pub mod schema;
pub mod sight;
pub mod yaml;

pub use error::Error;
pub use kustomize_version::KustomizeVersion;
pub use resid::{Gvk, ResId};
pub use serde_json::{Map, Value};
