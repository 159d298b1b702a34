//! Helpers over a resource (a JSON object): typed field access and the
//! annotations kustomize keeps build state in.

use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The string at `path` (map keys), if every step exists and the leaf is a string.
pub fn str_at<'a>(obj: &'a Value, path: &[&str]) -> Option<&'a str> {
    get_at(obj, path)?.as_str()
}

/// The value at `path` (map keys), if every step exists.
pub fn get_at<'a>(obj: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = obj;
    for key in path {
        cur = cur.as_object()?.get(*key)?;
    }
    Some(cur)
}

/// A mutable reference to the map at `path`, creating empty maps on the way
/// (and replacing a null or non-map leaf with an empty map).
pub fn map_at_mut<'a>(obj: &'a mut Value, path: &[&str]) -> &'a mut Map<String, Value> {
    let mut cur = obj;
    for key in path {
        if !cur.is_object() {
            *cur = Value::Object(Map::new());
        }
        cur = cur
            .as_object_mut()
            .expect("just made an object")
            .entry(key.to_string())
            .or_insert(Value::Null);
    }
    if !cur.is_object() {
        *cur = Value::Object(Map::new());
    }
    cur.as_object_mut().expect("just made an object")
}

/// The name Go's encoding/json gives a JSON value's type in its errors
/// (`cannot unmarshal array into …`), which kustomize's messages carry.
pub fn go_json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// metadata.name, or "".
pub fn name(obj: &Value) -> &str {
    str_at(obj, &["metadata", "name"]).unwrap_or("")
}

/// metadata.namespace, or "".
pub fn namespace(obj: &Value) -> &str {
    str_at(obj, &["metadata", "namespace"]).unwrap_or("")
}

/// kind, or "".
pub fn kind(obj: &Value) -> &str {
    str_at(obj, &["kind"]).unwrap_or("")
}

/// apiVersion, or "".
pub fn api_version(obj: &Value) -> &str {
    str_at(obj, &["apiVersion"]).unwrap_or("")
}

/// The value of one annotation, if set and a string.
pub fn annotation<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    get_at(obj, &["metadata", "annotations", key])?.as_str()
}

/// Set one annotation (creating metadata.annotations as needed).
pub fn set_annotation(obj: &mut Value, key: &str, value: &str) {
    map_at_mut(obj, &["metadata", "annotations"])
        .insert(key.to_string(), Value::String(value.to_string()));
}

/// Remove one annotation; drops an annotations map left empty.
pub fn remove_annotation(obj: &mut Value, key: &str) -> Option<Value> {
    let meta = obj.get_mut("metadata")?.as_object_mut()?;
    let annos = meta.get_mut("annotations")?.as_object_mut()?;
    let old = annos.remove(key);
    if annos.is_empty() {
        meta.remove("annotations");
    }
    old
}

/// The value of one label, if set and a string.
pub fn label<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    get_at(obj, &["metadata", "labels", key])?.as_str()
}

/// Set metadata.name.
pub fn set_name(obj: &mut Value, name: &str) {
    map_at_mut(obj, &["metadata"]).insert("name".into(), Value::String(name.to_string()));
}

/// Set metadata.namespace.
pub fn set_namespace(obj: &mut Value, ns: &str) {
    map_at_mut(obj, &["metadata"]).insert("namespace".into(), Value::String(ns.to_string()));
}

/// An embedded table of types (one `apiVersion Kind` pair a line, `#`
/// comments), sorted: its lines borrowed, nothing allocated per entry.
type TypeTable = Vec<(&'static str, &'static str)>;

fn read_type_table(text: &'static str) -> TypeTable {
    let mut table: TypeTable = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(' '))
        .map(|(a, k)| (a.trim(), k.trim()))
        .collect();
    table.sort_unstable();
    table
}

/// Whether the sorted `table` holds the type (no allocation per lookup:
/// every resource of a build is looked up).
fn table_holds(table: &TypeTable, api_version: &str, kind: &str) -> bool {
    table
        .binary_search_by(|&(a, k)| (a, k).cmp(&(api_version, kind)))
        .is_ok()
}

fn cluster_scoped_table() -> &'static TypeTable {
    static TABLE: OnceLock<TypeTable> = OnceLock::new();
    TABLE.get_or_init(|| read_type_table(include_str!("data/cluster_scoped.txt")))
}

/// Whether the (apiVersion, kind) is known to be cluster-scoped.
pub fn is_cluster_scoped(api_version: &str, kind: &str) -> bool {
    table_holds(cluster_scoped_table(), api_version, kind)
}

// ---- Build-annotation bookkeeping shared by the renaming transformers ----

/// The comma-separated values of a build annotation, as kustomize's
/// `getCsvAnnotation`: None when the annotation is absent.
pub fn csv_annotation(obj: &Value, key: &str) -> Option<Vec<String>> {
    annotation(obj, key).map(|v| v.split(',').map(str::to_string).collect())
}

/// Append `value` to a comma-separated build annotation; an empty value is
/// not recorded (kustomize skips it too, which keeps the lists aligned only
/// when names are non-empty — the same quirk).
pub fn append_csv_annotation(obj: &mut Value, key: &str, value: &str) {
    if value.is_empty() {
        return;
    }
    let joined = match annotation(obj, key) {
        Some(cur) => format!("{cur},{value}"),
        None => value.to_string(),
    };
    set_annotation(obj, key, &joined);
}

/// Record the object's current name, effective namespace and kind in the
/// `previousNames`/`previousNamespaces`/`previousKinds` build annotations
/// (kustomize's `StorePreviousId`), before a transformer changes its id.
pub fn store_previous_id(obj: &mut Value) {
    let id = crate::ResId::of(obj);
    let ns = id.effective_namespace().to_string();
    append_csv_annotation(obj, crate::protocol::PREVIOUS_NAMES, &id.name);
    append_csv_annotation(obj, crate::protocol::PREVIOUS_NAMESPACES, &ns);
    append_csv_annotation(obj, crate::protocol::PREVIOUS_KINDS, &id.gvk.kind);
}

/// The ids the object had before its current one, oldest first (kustomize's
/// `PrevIds`): built from the previous-name/namespace/kind annotations and
/// the current apiVersion. Errors when the three lists differ in length.
pub fn prev_ids(obj: &Value) -> Result<Vec<crate::ResId>, crate::Error> {
    use crate::protocol::{PREVIOUS_KINDS, PREVIOUS_NAMES, PREVIOUS_NAMESPACES};
    let Some(names) = csv_annotation(obj, PREVIOUS_NAMES) else {
        return Ok(Vec::new());
    };
    // A missing companion annotation reads as one empty entry, as in kustomize.
    let namespaces =
        csv_annotation(obj, PREVIOUS_NAMESPACES).unwrap_or_else(|| vec![String::new()]);
    let kinds = csv_annotation(obj, PREVIOUS_KINDS).unwrap_or_else(|| vec![String::new()]);
    if names.len() != namespaces.len() || names.len() != kinds.len() {
        return Err(crate::Error::new(
            "number of previous names, number of previous namespaces, number of previous kinds not equal",
        ));
    }
    let api_version = api_version(obj);
    Ok(names
        .into_iter()
        .zip(namespaces)
        .zip(kinds)
        .map(|((name, namespace), kind)| crate::ResId {
            gvk: crate::Gvk::from_api_version(api_version, &kind),
            name,
            namespace,
        })
        .collect())
}

/// The object's original id (kustomize's `OrgId`): its oldest previous id,
/// or its current id when it was never renamed. Malformed previous-id
/// annotations fall back to the current id.
pub fn org_id(obj: &Value) -> crate::ResId {
    prev_ids(obj)
        .ok()
        .and_then(|ids| ids.into_iter().next())
        .unwrap_or_else(|| crate::ResId::of(obj))
}

fn precomputed_table() -> &'static TypeTable {
    static TABLE: OnceLock<TypeTable> = OnceLock::new();
    TABLE.get_or_init(|| read_type_table(include_str!("data/precomputed_scope.txt")))
}

/// Whether kyaml knows this type's namespace scope without its OpenAPI
/// schema. Meeting any other type makes kyaml load its builtin schema
/// later, even next to a custom one — which changes strategic merges.
pub fn is_precomputed_type(api_version: &str, kind: &str) -> bool {
    table_holds(precomputed_table(), api_version, kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_type_is_found_and_no_other() {
        for (text, holds) in [
            (
                include_str!("data/cluster_scoped.txt"),
                is_cluster_scoped as fn(&str, &str) -> bool,
            ),
            (
                include_str!("data/precomputed_scope.txt"),
                is_precomputed_type,
            ),
        ] {
            let listed: Vec<(&str, &str)> = text
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .map(|l| l.split_once(' ').expect("apiVersion Kind"))
                .collect();
            assert!(listed.len() > 30);
            for (api_version, kind) in &listed {
                assert!(holds(api_version, kind), "{api_version} {kind}");
                // Neither half alone, nor another case, nor a swap.
                assert!(!holds(api_version, &kind.to_lowercase()));
                assert!(!holds(kind, api_version));
                assert!(!holds("", kind));
            }
            assert!(!holds("example.com/v1", "Widget"));
        }
        assert!(is_cluster_scoped("v1", "Namespace"));
        assert!(!is_cluster_scoped("v1", "ConfigMap"));
        assert!(is_precomputed_type("apps/v1", "Deployment"));
    }
}
