//! `fieldref.fieldPath`: splitting it the way kustomize does and looking
//! the field up in a resource.

use kustom_api::Value;
use regex::Regex;
use std::sync::OnceLock;

/// Split a var field path the way kustomize does: at dots (`\.` keeps a
/// dot), a bracketed part spanning dots stays whole (`[a.b]` becomes the
/// key `a.b`, `[name=x.y]` stays a list selector), `ports[0]` becomes
/// `ports`, `0`; blank parts are dropped.
pub(super) fn split_field_path(path: &str) -> Vec<String> {
    // Dots, with backslash escapes (a leading dot is ignored).
    let mut raw: Vec<&str> = path.split('.').collect();
    if raw.len() > 1 && raw[0].is_empty() {
        raw.remove(0);
    }
    let mut parts: Vec<String> = Vec::new();
    for p in raw {
        match parts.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push('.');
                last.push_str(p);
            }
            _ => parts.push(p.to_string()),
        }
    }
    // Re-join brackets the dots cut apart.
    let mut grouped: Vec<String> = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let part = &parts[i];
        if part.starts_with('[') && !part.ends_with(']') {
            let mut pieces = vec![part.as_str()];
            while i + 1 < parts.len() {
                i += 1;
                pieces.push(&parts[i]);
                if parts[i].ends_with(']') {
                    break;
                }
            }
            let joined = pieces.join(".");
            if joined.contains('=') {
                grouped.push(joined);
            } else {
                grouped.push(joined.trim_matches(|c| c == '[' || c == ']').to_string());
            }
        } else {
            grouped.push(part.clone());
        }
        i += 1;
    }
    // `name[3]` → `name`, `3`.
    static INDEXED: OnceLock<Regex> = OnceLock::new();
    let indexed = INDEXED.get_or_init(|| {
        Regex::new(r"^(.*)\[([0-9]+)\]$").unwrap_or_else(|e| unreachable!("constant regex: {e}"))
    });
    let mut out = Vec::new();
    for part in grouped {
        match indexed.captures(&part) {
            Some(c) if part.ends_with(']') => {
                let field = c.get(1).map_or("", |m| m.as_str());
                if !field.is_empty() {
                    out.push(field.to_string());
                }
                out.push(c.get(2).map_or("", |m| m.as_str()).to_string());
            }
            _ => out.push(part),
        }
    }
    out.into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The value at a var field path, or None when it is missing or the path
/// does not fit the object (kustomize reports both the same way).
pub(super) fn lookup_field<'a>(obj: &'a Value, path: &str) -> Option<&'a Value> {
    let mut node = obj;
    for part in split_field_path(path) {
        node = lookup_step(node, &part)?;
    }
    Some(node)
}

/// One step of a field path: a list index (`0`, `-` for the last), a list
/// selector (`[key=value]`, `[=value]` for scalar items) or a map key.
pub(super) fn lookup_step<'a>(node: &'a Value, part: &str) -> Option<&'a Value> {
    if let Ok(idx) = part.parse::<i64>() {
        let idx = usize::try_from(idx).ok()?;
        return node.as_array()?.get(idx);
    }
    match part {
        "-" => return node.as_array()?.last(),
        // kustomize rejects wildcards here.
        "*" => return None,
        _ => {}
    }
    if part.starts_with('[') && part.ends_with(']') {
        let inner = part.strip_suffix(']').unwrap_or(part);
        let inner = inner.strip_prefix('[').unwrap_or(inner);
        let (key, value) = inner.split_once('=')?;
        let items = match node {
            Value::Null => return None,
            Value::Array(items) => items,
            _ => return None,
        };
        if key.is_empty() {
            return items.iter().find(|item| scalar_text(item) == value);
        }
        return items.iter().find(|item| {
            item.as_object()
                .and_then(|m| m.get(key))
                // `[key=]` asks only that the key be there.
                .is_some_and(|v| value.is_empty() || scalar_text(v) == value)
        });
    }
    node.as_object()?.get(part)
}

/// A node's scalar text as YAML compares it (collections have none).
pub(super) fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Object(_) | Value::Array(_) => String::new(),
    }
}
