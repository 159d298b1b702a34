//! What the merge knows of a node: its kind as kyaml names it, kyaml's
//! wrong-kind error, and the text of a scalar as kyaml compares it.

use kustom_api::{err, Error, Value};

/// Node kinds, named as kyaml names them in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Map,
    Seq,
    Scalar,
}

impl Kind {
    /// The kind of a node.
    pub(super) fn of(v: &Value) -> Kind {
        match v {
            Value::Object(_) => Kind::Map,
            Value::Array(_) => Kind::Seq,
            _ => Kind::Scalar,
        }
    }

    /// kyaml's name for the kind, as its errors print it.
    fn name(self) -> &'static str {
        match self {
            Kind::Map => "MappingNode",
            Kind::Seq => "SequenceNode",
            Kind::Scalar => "ScalarNode",
        }
    }
}

/// kyaml's "wrong node kind" error, with the node printed as YAML.
pub(super) fn wrong_kind(expected: Kind, node: &Value) -> Error {
    err!(
        "wrong node kind: expected {} but got {}: node contents:\n{}",
        expected.name(),
        Kind::of(node).name(),
        kustom_api::yaml::to_yaml(node)
    )
}

/// Missing, or an explicit null.
pub(super) fn is_missing_or_null(v: Option<&Value>) -> bool {
    matches!(v, None | Some(Value::Null))
}

/// A mapping without fields.
pub(super) fn is_empty_map(v: &Value) -> bool {
    matches!(v, Value::Object(m) if m.is_empty())
}

/// The text of a scalar as kyaml compares it; maps and lists have none.
pub(super) fn raw_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Object(_) | Value::Array(_) => String::new(),
    }
}
