//! The value a replacement copies: a scalar's tag and text (kustomize
//! copies only the text into a scalar target), or a whole mapping or
//! sequence.

use super::path::NodeKind;
use super::scalar::{self, Tag};
use kustom_api::{Error, Value};

/// The value being copied: a scalar's tag and text, or a whole mapping or
/// sequence.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Copied {
    /// A scalar's tag (none for a `sourceValue`, typed again on reading) and text.
    Scalar(Option<Tag>, String),
    Node(Value),
}

impl Copied {
    pub(super) fn of(value: &Value) -> Copied {
        match scalar::tag_and_text(value) {
            Some((tag, text)) => Copied::Scalar(Some(tag), text),
            None => Copied::Node(value.clone()),
        }
    }

    /// The scalar text; mappings and sequences have none.
    pub(super) fn text(&self) -> &str {
        match self {
            Copied::Scalar(_, text) => text,
            Copied::Node(_) => "",
        }
    }

    pub(super) fn kind(&self) -> NodeKind {
        match self {
            Copied::Scalar(..) => NodeKind::Scalar,
            Copied::Node(v) => NodeKind::of(v),
        }
    }

    /// The value as it replaces a whole mapping or sequence target.
    pub(super) fn to_json(&self) -> Result<Value, Error> {
        match self {
            Copied::Scalar(tag, text) => scalar::materialize(*tag, text),
            Copied::Node(v) => Ok(v.clone()),
        }
    }
}
