//! `$patch` directives (`delete`, `replace`, `merge`) on maps and lists.

use super::elements::set_element;
use super::nodes::raw_text;
use kustom_api::{err, Error, Map, Value};

/// Prefix of the directive key.
pub(super) const DIRECTIVE: &str = "$patch";

/// A `$patch` directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Directive {
    Merge,
    Replace,
    Delete,
}

/// A `$patch` value as a directive; kustomize's error for any other.
pub(super) fn parse_directive(text: &str) -> Result<Directive, Error> {
    match text {
        "delete" => Ok(Directive::Delete),
        "replace" => Ok(Directive::Replace),
        "merge" => Ok(Directive::Merge),
        other => Err(err!("unknown patch strategy '{other}'")),
    }
}

/// Read and remove a map's `$patch` directive.
pub(super) fn map_directive(m: &mut Map<String, Value>) -> Result<Directive, Error> {
    let Some(v) = m.get(DIRECTIVE) else {
        return Ok(Directive::Merge);
    };
    let d = parse_directive(&raw_text(v))?;
    m.remove(DIRECTIVE);
    Ok(d)
}

/// Read and remove a list's directive: the first map element with a
/// `$patch` key, when that is its only key. Removing it removes every map
/// element with the same `$patch` value (and, as a side effect of how
/// kustomize filters the list, null and empty-map elements).
pub(super) fn list_directive(list: &mut Vec<Value>) -> Result<Directive, Error> {
    let first = list
        .iter()
        .filter_map(Value::as_object)
        .find(|m| m.contains_key(DIRECTIVE));
    let Some(elem) = first else {
        return Ok(Directive::Merge);
    };
    if elem.len() > 1 {
        return Ok(Directive::Merge);
    }
    let text = elem.get(DIRECTIVE).map(raw_text).unwrap_or_default();
    let d = parse_directive(&text)?;
    set_element(list, None, &[DIRECTIVE.to_string()], &[text])?;
    Ok(d)
}
