//! `HashTransformer` and kustomize's content hash.
//!
//! Every resource marked `internal.config.kubernetes.io/needsHashSuffix:
//! enabled` (set by the ConfigMap/Secret generators) is renamed
//! `<name>-<hash>`, its old id being appended to the `previousNames` /
//! `previousNamespaces` / `previousKinds` build annotations so name
//! references can follow, as kustomize's `StorePreviousId` does. The marker
//! annotation stays; the core strips all build annotations before output.
//!
//! The hash is kustomize's (`api/hasher`): a small JSON document made of the
//! kind and the data fields, encoded as Go's `encoding/json` does (sorted
//! keys, HTML-safe escapes, numbers through float64), SHA-256, and the first
//! ten hex digits with `0 1 3 a e` swapped for `g h k m t` so that the suffix
//! never looks like a number or spells anything unfortunate.
//!
//! kustomize looks the name up with the single path element
//! `"metadata/name"`, which never matches, so the name always enters the
//! hash as "" — reproduced here because the suffixes must be identical.

use crate::{go_json, Ctx};
use kustom_api::{err, protocol, resource, Error, ResId, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Append the content hash to the name of every resource that asks for it.
#[allow(clippy::ptr_arg)] // the signature is the dispatch table's TransformFn
pub fn transform(_config: &Value, resources: &mut Vec<Value>, _ctx: &Ctx) -> Result<(), Error> {
    for res in resources.iter_mut() {
        if resource::annotation(res, protocol::NEEDS_HASH_SUFFIX) != Some("enabled") {
            continue;
        }
        let hash =
            content_hash(res).map_err(|e| e.context(format!("hashing {}", ResId::of(res))))?;
        store_previous_id(res);
        let renamed = format!("{}-{hash}", resource::name(res));
        resource::set_name(res, &renamed);
    }
    Ok(())
}

/// kustomize's content hash of a resource (the name suffix it would get).
///
/// ConfigMaps hash kind, `data` and (if it is a map) `binaryData`; Secrets
/// hash kind, `type`, `data` and (if a map) `stringData`. For other kinds
/// kustomize hashes the JSON form of its internal YAML node tree (including
/// source line numbers), which cannot be reproduced; kustom hashes the
/// Go-encoded JSON of the whole object instead, so such names differ.
pub fn content_hash(obj: &Value) -> Result<String, Error> {
    if !obj.is_object() {
        return Err(err!("cannot hash a resource that is not a map"));
    }
    let doc = match resource::kind(obj) {
        "ConfigMap" => {
            let mut m = BTreeMap::new();
            m.insert("kind", Value::String("ConfigMap".into()));
            m.insert("name", hashed_name());
            m.insert("data", field_value(obj, "data"));
            if let Some(v) = map_field_value(obj, "binaryData") {
                m.insert("binaryData", v);
            }
            encode_map(&m)
        }
        "Secret" => {
            let mut m = BTreeMap::new();
            m.insert("kind", Value::String("Secret".into()));
            m.insert("type", field_value(obj, "type"));
            m.insert("name", hashed_name());
            m.insert("data", field_value(obj, "data"));
            if let Some(v) = map_field_value(obj, "stringData") {
                m.insert("stringData", v);
            }
            encode_map(&m)
        }
        _ => {
            let mut out = String::new();
            let _ = go_json::write(&mut out, obj, go_json::Numbers::Float64, None);
            out
        }
    };
    Ok(encode_hex(&hex_sha256(&doc)))
}

/// The name as kustomize's hasher sees it (see the module doc).
fn hashed_name() -> Value {
    Value::String(String::new())
}

/// A top-level field as kustomize's hasher reads it: "" when absent, the
/// scalar's text for a scalar, the map for a map (a list, which cannot be
/// read into a map, becomes null).
fn field_value(obj: &Value, key: &str) -> Value {
    match obj.get(key) {
        None | Some(Value::Null) => Value::String(String::new()),
        Some(Value::String(s)) => Value::String(s.clone()),
        Some(Value::Number(n)) => Value::String(n.to_string()),
        Some(Value::Bool(b)) => Value::String(b.to_string()),
        Some(Value::Object(m)) => Value::Object(m.clone()),
        Some(Value::Array(_)) => Value::Null,
    }
}

/// The field, when kustomize's hasher would include it: only a non-scalar.
fn map_field_value(obj: &Value, key: &str) -> Option<Value> {
    matches!(obj.get(key), Some(Value::Object(_) | Value::Array(_))).then(|| field_value(obj, key))
}

fn encode_map(m: &BTreeMap<&str, Value>) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        go_json::string(&mut out, k);
        out.push(':');
        // Numbers go through float64, as Go decodes the JSON it hashes;
        // nothing JSON holds is refused.
        let _ = go_json::write(&mut out, v, go_json::Numbers::Float64, None);
    }
    out.push('}');
    out
}

fn hex_sha256(data: &str) -> String {
    let digest = Sha256::digest(data.as_bytes());
    let mut hex = String::with_capacity(64);
    for b in digest {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// The first ten hex digits, with 0 1 3 a e replaced by g h k m t.
fn encode_hex(hex: &str) -> String {
    hex.chars()
        .take(10)
        .map(|c| match c {
            '0' => 'g',
            '1' => 'h',
            '3' => 'k',
            'a' => 'm',
            'e' => 't',
            other => other,
        })
        .collect()
}

/// Record the current name, effective namespace and kind in the
/// `previous*` build annotations (comma-separated, oldest first).
fn store_previous_id(res: &mut Value) {
    let id = ResId::of(res);
    append_csv_annotation(res, protocol::PREVIOUS_NAMES, &id.name);
    append_csv_annotation(res, protocol::PREVIOUS_NAMESPACES, id.effective_namespace());
    append_csv_annotation(res, protocol::PREVIOUS_KINDS, &id.gvk.kind);
}

/// kustomize skips empty values and appends to whatever is there, even "".
fn append_csv_annotation(res: &mut Value, key: &str, value: &str) {
    if value.is_empty() {
        return;
    }
    let joined = match resource::annotation(res, key) {
        Some(current) => format!("{current},{value}"),
        None => value.to_string(),
    };
    resource::set_annotation(res, key, &joined);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Expected suffixes below were produced by `kubectl kustomize` (v5.5.0).

    #[test]
    fn configmap_hash_ignores_name() {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "mymap"},
            "data": {"FRUIT": "apple", "VEGETABLE": "carrot"}});
        assert_eq!(content_hash(&cm).unwrap(), "kfd8tf729k");
        let mut other = cm.clone();
        resource::set_name(&mut other, "something-else");
        assert_eq!(content_hash(&other).unwrap(), "kfd8tf729k");
    }

    #[test]
    fn secret_hash_includes_type_and_empty_data() {
        let s = json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "empty"}, "type": "Opaque", "data": {}});
        assert_eq!(content_hash(&s).unwrap(), "46f8b28mk5");
    }

    #[test]
    fn html_and_line_separators_hash_like_kustomize() {
        // kubectl kustomize named a ConfigMap holding exactly that file `cm-2fm7bk7k7t`.
        let cm = json!({"kind": "ConfigMap", "metadata": {"name": "cm"},
            "data": {"f.txt": "x<&>\u{2028}\u{8}\u{c}\u{1}\u{7f}é\t\n\"\\/"}});
        assert_eq!(content_hash(&cm).unwrap(), "2fm7bk7k7t");
    }

    #[test]
    fn patched_non_string_data_and_string_data_hash_like_kustomize() {
        // A generated ConfigMap and Secret patched before hashing; kubectl
        // kustomize named them cm-fkf7fdbckf and sec-gg287bdk9d.
        let cm: Value = serde_json::from_str(
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},
            "data":{"a":"b","i":1,"f":1.50,"b":true,"big":12345678901234567890,
            "small":0.0000001,"huge":1.5e300,"nested":{"x":[1,"two",null]}}}"#,
        )
        .unwrap();
        assert_eq!(content_hash(&cm).unwrap(), "fkf7fdbckf");
        let sec = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sec"},
            "type": "Opaque", "data": {"a": "Yg=="}, "stringData": {"plain": "text<>"}});
        assert_eq!(content_hash(&sec).unwrap(), "gg287bdk9d");
    }

    #[test]
    fn transform_renames_and_records_previous_id() {
        let mut resources = vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "mymap", "annotations": {
                    protocol::NEEDS_HASH_SUFFIX: "enabled",
                    protocol::GENERATOR_BEHAVIOR: "unspecified"}},
                "data": {"FRUIT": "apple", "VEGETABLE": "carrot"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "plain", "namespace": "ns"},
                "data": {"a": "b"}}),
        ];
        let before_plain = resources[1].clone();
        transform(&json!({}), &mut resources, &Ctx::for_tests()).unwrap();
        let r = &resources[0];
        assert_eq!(resource::name(r), "mymap-kfd8tf729k");
        assert_eq!(
            resource::annotation(r, protocol::PREVIOUS_NAMES),
            Some("mymap")
        );
        assert_eq!(
            resource::annotation(r, protocol::PREVIOUS_NAMESPACES),
            Some("default")
        );
        assert_eq!(
            resource::annotation(r, protocol::PREVIOUS_KINDS),
            Some("ConfigMap")
        );
        assert_eq!(
            resource::annotation(r, protocol::NEEDS_HASH_SUFFIX),
            Some("enabled")
        );
        assert_eq!(resources[1], before_plain);
    }

    #[test]
    fn transform_appends_to_existing_previous_names() {
        let mut resources = vec![json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "p-s", "namespace": "ns", "annotations": {
                protocol::NEEDS_HASH_SUFFIX: "enabled",
                protocol::PREVIOUS_NAMES: "s",
                protocol::PREVIOUS_NAMESPACES: "ns",
                protocol::PREVIOUS_KINDS: "Secret"}},
            "type": "Opaque", "data": {}})];
        transform(&json!({}), &mut resources, &Ctx::for_tests()).unwrap();
        let r = &resources[0];
        assert_eq!(resource::name(r), "p-s-46f8b28mk5");
        assert_eq!(
            resource::annotation(r, protocol::PREVIOUS_NAMES),
            Some("s,p-s")
        );
        assert_eq!(
            resource::annotation(r, protocol::PREVIOUS_NAMESPACES),
            Some("ns,ns")
        );
    }

    #[test]
    fn hash_field_forms() {
        // Absent data hashes as "" and absent binaryData is left out.
        let empty = json!({"kind": "ConfigMap", "metadata": {"name": "x"}});
        let doc = {
            let mut m = BTreeMap::new();
            m.insert("kind", Value::String("ConfigMap".into()));
            m.insert("name", hashed_name());
            m.insert("data", field_value(&empty, "data"));
            encode_map(&m)
        };
        assert_eq!(doc, r#"{"data":"","kind":"ConfigMap","name":""}"#);
        assert!(map_field_value(&empty, "binaryData").is_none());
        let with_bin = json!({"binaryData": {"k": "AAA="}});
        assert_eq!(
            map_field_value(&with_bin, "binaryData"),
            Some(json!({"k": "AAA="}))
        );
    }
}
