//! The elements of kyaml field paths, read the same way by replacements and
//! `ValueAddTransformer`: list indices, `[key=value]` list selectors, and
//! kyaml's error for a node of the wrong kind.

use kustom_api::{err, Error, Value};

/// Go's `strconv.Atoi`: an optional sign and decimal digits, in range.
pub(crate) fn atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A non-negative list index (`0`, `+1`).
pub(crate) fn is_index(part: &str) -> bool {
    atoi(part).is_some_and(|i| i >= 0)
}

/// A bracketed list selector (`[name=app]`, `[=value]`).
pub(crate) fn is_list_selector(part: &str) -> bool {
    part.starts_with('[') && part.ends_with(']')
}

/// `[name=value]` → ("name", "value"); `[=value]` → ("", "value").
pub(crate) fn split_selector(part: &str) -> Result<(&str, &str), Error> {
    let inner = part.strip_suffix(']').unwrap_or(part);
    let inner = inner.strip_prefix('[').unwrap_or(inner);
    inner.split_once('=').ok_or_else(|| {
        err!("list path element must contain fieldName=fieldValue for element to match")
    })
}

/// The YAML node kind names kyaml uses in its errors.
pub(crate) fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "MappingNode",
        Value::Array(_) => "SequenceNode",
        _ => "ScalarNode",
    }
}

/// kyaml's "wrong node kind" error; `contents` is the node as the caller
/// prints it.
pub(crate) fn wrong_kind(expected: &str, node: &Value, contents: &str) -> Error {
    err!(
        "wrong node kind: expected {expected} but got {}: node contents:\n{contents}",
        kind_name(node)
    )
}
