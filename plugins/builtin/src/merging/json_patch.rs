//! The RFC 6902 JSON-patch engine PatchJson6902Transformer and
//! PatchTransformer share.
//!
//! kustomize applies JSON patches with evanphx/json-patch v4.12.0, whose
//! behaviour differs from the RFC in ways kustomizations rely on and that
//! `kubectl kustomize` shows, so the engine here follows that library rather
//! than a strict RFC 6902 implementation:
//! - `replace` of a missing map key adds it;
//! - negative array indices count from the end (`add` at `-1` appends);
//! - a path without a leading `/` drops its first segment;
//! - `test` compares the document's value as a subset of the test value;
//! - error texts are the library's.
//!
//! Around the patch, kustomize round-trips the resource through JSON with
//! Go's float64 numbers and rewrites the annotations as strings, keeping its
//! internal annotations; this module does the same.

use super::smp;
use kustom_api::{err, resource, Error, Map, Value};

/// One JSON patch operation, as the library keeps it: the raw fields.
pub(crate) type Operation = Map<String, Value>;

/// Decode an op list: JSON when the text starts with `[`, else YAML (its
/// first document). A null document is an empty patch; anything but a list
/// of maps is an error.
pub(crate) fn decode(text: &str) -> Result<Vec<Operation>, Error> {
    let doc: Value = if text.starts_with('[') {
        kustom_api::json::from_str(text).map_err(|e| err!("{e}"))?
    } else {
        // kustomize converts YAML to JSON with sigs.k8s.io/yaml, i.e.
        // go-yaml v2: YAML 1.1 scalars (`y`, `on` are booleans), and
        // through Go's float64: a YAML 1.0 becomes the JSON 1, which
        // matters to `test`.
        let mut doc = kustom_api::yaml::parse_kustomization(text)?
            .into_iter()
            .next()
            .unwrap_or(Value::Null);
        integral_floats_to_ints(&mut doc);
        doc
    };
    match doc {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Object(m) => Ok(m),
                // A null operation has no kind; it fails when applied.
                Value::Null => Ok(Map::new()),
                other => Err(err!(
                    "json: cannot unmarshal {} into Go value of type jsonpatch.Operation",
                    kustom_api::resource::go_json_type(&other)
                )),
            })
            .collect(),
        other => Err(err!(
            "json: cannot unmarshal {} into Go value of type jsonpatch.Patch",
            kustom_api::resource::go_json_type(&other)
        )),
    }
}

fn integral_floats_to_ints(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
                if f.fract() == 0.0 && f.abs() < 9.0e15 {
                    *n = serde_json::Number::from(f as i64);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(integral_floats_to_ints),
        Value::Object(m) => m.values_mut().for_each(integral_floats_to_ints),
        _ => {}
    }
}

/// Apply `ops` to a resource as kustomize's patch transformers do: the
/// build-state annotations present before the patch are put back after it,
/// and the annotations are rewritten as a string map (dropped when empty).
pub(crate) fn apply_keeping_annotations(res: &mut Value, ops: &[Operation]) -> Result<(), Error> {
    // The core's id annotation is not in kustomize's resources: patches must
    // not see it (an op on /metadata/annotations/x fails there without other
    // annotations).
    // kustomize rebuilds a JSON-patched resource from JSON: its label and
    // annotation entries no longer share values (see `shared_entries`).
    resource::remove_annotation(res, kustom_api::protocol::SHARED_ENTRIES);
    let id = smp::hide_id(res);
    let kept: Vec<(String, Value)> = match resource::get_at(res, &["metadata", "annotations"]) {
        Some(Value::Object(m)) => m
            .iter()
            .filter(|(k, _)| smp::is_build_annotation(k) || is_legacy_annotation(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => Vec::new(),
    };
    let result = apply(res, ops);
    if let Err(e) = result {
        smp::restore_id(res, id);
        return Err(e);
    }
    float64_numbers(res);
    let mut annos: Map<String, Value> = match resource::get_at(res, &["metadata", "annotations"]) {
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(text(v))))
            .collect(),
        _ => Map::new(),
    };
    for (k, v) in kept {
        annos.insert(k, v);
    }
    let meta = resource::map_at_mut(res, &["metadata"]);
    meta.remove("annotations");
    if !annos.is_empty() {
        meta.insert("annotations".into(), Value::Object(annos));
    }
    smp::restore_id(res, id);
    Ok(())
}

/// kyaml's legacy internal annotations, kept alongside `internal.…` ones.
fn is_legacy_annotation(key: &str) -> bool {
    key == "config.kubernetes.io/path" || key == "config.kubernetes.io/index"
}

/// A scalar's text (annotation values are rewritten as strings).
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        _ => String::new(),
    }
}

/// kustomize decodes the patched JSON with Go's float64 numbers: integers
/// beyond 2^53 lose precision. Mirror that.
fn float64_numbers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            let exact = n.as_i64().is_some_and(|i| i.unsigned_abs() <= 1 << 53)
                || n.as_u64().is_some_and(|u| u <= 1 << 53)
                || n.is_f64();
            if !exact {
                if let Some(f) = n.as_f64().and_then(serde_json::Number::from_f64) {
                    *n = f;
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(float64_numbers),
        Value::Object(m) => m.values_mut().for_each(float64_numbers),
        _ => {}
    }
}

/// Apply a decoded JSON patch to a document, operation by operation.
pub(crate) fn apply(doc: &mut Value, ops: &[Operation]) -> Result<(), Error> {
    for op in ops {
        let kind = match op.get("op") {
            Some(Value::String(s)) => s.as_str(),
            _ => "unknown",
        };
        match kind {
            "add" => op_add(doc, op)?,
            "remove" => op_remove(doc, op)?,
            "replace" => op_replace(doc, op)?,
            "move" => op_move(doc, op)?,
            "test" => op_test(doc, op)?,
            "copy" => op_copy(doc, op)?,
            other => return Err(err!("Unexpected kind: {other}")),
        }
    }
    Ok(())
}

const MISSING: &str = "missing value";
const INVALID_INDEX: &str = "invalid index referenced";

fn op_string(op: &Operation, field: &str) -> Option<String> {
    match op.get(field) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The operation's value; a missing value is null.
fn op_value(op: &Operation) -> Value {
    op.get("value").cloned().unwrap_or(Value::Null)
}

/// Undo JSON pointer escaping (`~1` is `/`, `~0` is `~`), in one pass.
fn unescape(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.peek() {
                Some('1') => {
                    chars.next();
                    out.push('/');
                    continue;
                }
                Some('0') => {
                    chars.next();
                    out.push('~');
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
    }
    out
}

/// Go's strconv.Atoi, with its error text.
fn atoi(s: &str) -> Result<i64, Error> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err!("strconv.Atoi: parsing \"{s}\": invalid syntax"));
    }
    s.parse::<i64>()
        .map_err(|_| err!("strconv.Atoi: parsing \"{s}\": value out of range"))
}

/// The container holding the value at `path` and that value's key (the
/// library's findObject); None when some parent is missing.
fn find_parent<'d>(doc: &'d mut Value, path: &str) -> Option<(&'d mut Value, String)> {
    let parts: Vec<&str> = path.split('/').collect();
    if parts.len() < 2 {
        return None;
    }
    let key = unescape(parts[parts.len() - 1]);
    let mut cur = doc;
    for part in &parts[1..parts.len() - 1] {
        let part = unescape(part);
        let next = match cur {
            Value::Object(m) => m.get_mut(&part)?,
            Value::Array(a) => {
                let i = array_index(&part, a.len()).ok()?;
                a.get_mut(i)?
            }
            _ => return None,
        };
        // Null values and scalars cannot contain anything.
        if !(next.is_object() || next.is_array()) {
            return None;
        }
        cur = next;
    }
    if cur.is_object() || cur.is_array() {
        Some((cur, key))
    } else {
        None
    }
}

/// An array index as the library reads it: negative counts from the end.
fn array_index(key: &str, len: usize) -> Result<usize, Error> {
    let mut i = atoi(key)?;
    let len = len as i64;
    if i < 0 {
        if i < -len {
            return Err(err!("Unable to access invalid index: {i}: {INVALID_INDEX}"));
        }
        i += len;
    }
    if i >= len {
        return Err(err!("Unable to access invalid index: {i}: {INVALID_INDEX}"));
    }
    usize::try_from(i).map_err(|_| err!("Unable to access invalid index: {i}: {INVALID_INDEX}"))
}

/// The value at `key`; None for a missing map key or a JSON null.
fn container_get(con: &Value, key: &str) -> Result<Option<Value>, Error> {
    match con {
        Value::Object(m) => Ok(m.get(key).filter(|v| !v.is_null()).cloned()),
        Value::Array(a) => {
            let idx = array_index(key, a.len())?;
            Ok(a.get(idx).filter(|v| !v.is_null()).cloned())
        }
        _ => Err(err!("{MISSING}")),
    }
}

fn container_add(con: &mut Value, key: &str, value: Value) -> Result<(), Error> {
    match con {
        Value::Object(m) => {
            m.insert(key.to_string(), value);
            Ok(())
        }
        Value::Array(a) => {
            if key == "-" {
                a.push(value);
                return Ok(());
            }
            let mut i = atoi(key)
                .map_err(|e| e.context(format!("value was not a proper array index: '{key}'")))?;
            let size = a.len() as i64 + 1;
            if i >= size || i < -size {
                return Err(err!("Unable to access invalid index: {i}: {INVALID_INDEX}"));
            }
            if i < 0 {
                i += size;
            }
            let idx = usize::try_from(i).unwrap_or(a.len()).min(a.len());
            a.insert(idx, value);
            Ok(())
        }
        _ => Err(err!("{MISSING}")),
    }
}

fn container_set(con: &mut Value, key: &str, value: Value) -> Result<(), Error> {
    match con {
        Value::Object(m) => {
            m.insert(key.to_string(), value);
            Ok(())
        }
        Value::Array(a) => {
            let idx = array_index(key, a.len())?;
            if let Some(slot) = a.get_mut(idx) {
                *slot = value;
            }
            Ok(())
        }
        _ => Err(err!("{MISSING}")),
    }
}

fn container_remove(con: &mut Value, key: &str) -> Result<Value, Error> {
    match con {
        Value::Object(m) => m
            .remove(key)
            .ok_or_else(|| err!("Unable to remove nonexistent key: {key}: {MISSING}")),
        Value::Array(a) => {
            let mut i = atoi(key)?;
            let len = a.len() as i64;
            if i >= len || i < -len {
                return Err(err!("Unable to access invalid index: {i}: {INVALID_INDEX}"));
            }
            if i < 0 {
                i += len;
            }
            let idx = usize::try_from(i)
                .map_err(|_| err!("Unable to access invalid index: {i}: {INVALID_INDEX}"))?;
            Ok(a.remove(idx))
        }
        _ => Err(err!("{MISSING}")),
    }
}

fn op_add(doc: &mut Value, op: &Operation) -> Result<(), Error> {
    let path = op_string(op, "path")
        .ok_or_else(|| err!("add operation failed to decode path: {MISSING}"))?;
    let (con, key) = find_parent(doc, &path).ok_or_else(|| {
        err!("add operation does not apply: doc is missing path: \"{path}\": {MISSING}")
    })?;
    container_add(con, &key, op_value(op))
        .map_err(|e| e.context(format!("error in add for path: '{path}'")))
}

fn op_remove(doc: &mut Value, op: &Operation) -> Result<(), Error> {
    let path = op_string(op, "path")
        .ok_or_else(|| err!("remove operation failed to decode path: {MISSING}"))?;
    let (con, key) = find_parent(doc, &path).ok_or_else(|| {
        err!("remove operation does not apply: doc is missing path: \"{path}\": {MISSING}")
    })?;
    container_remove(con, &key)
        .map(|_| ())
        .map_err(|e| e.context(format!("error in remove for path: '{path}'")))
}

fn op_replace(doc: &mut Value, op: &Operation) -> Result<(), Error> {
    let path = op_string(op, "path").ok_or_else(|| {
        err!("replace operation failed to decode path: operation missing path field: {MISSING}")
    })?;
    if path.is_empty() {
        // The whole document; a scalar value is silently ignored.
        match op.get("value") {
            Some(v @ (Value::Object(_) | Value::Array(_))) => *doc = v.clone(),
            Some(Value::Null) => *doc = Value::Object(Map::new()),
            _ => {}
        }
        return Ok(());
    }
    let (con, key) = find_parent(doc, &path).ok_or_else(|| {
        err!("replace operation does not apply: doc is missing path: {path}: {MISSING}")
    })?;
    // A missing map key is no obstacle (the library's maps never fail a get).
    if container_get(con, &key).is_err() {
        return Err(err!(
            "replace operation does not apply: doc is missing key: {path}: {MISSING}"
        ));
    }
    container_set(con, &key, op_value(op))
        .map_err(|e| e.context(format!("error in remove for path: '{path}'")))
}

fn op_move(doc: &mut Value, op: &Operation) -> Result<(), Error> {
    let from = op_string(op, "from").ok_or_else(|| {
        err!("move operation failed to decode from: operation, missing from field: {MISSING}")
    })?;
    let (con, key) = find_parent(doc, &from).ok_or_else(|| {
        err!("move operation does not apply: doc is missing from path: {from}: {MISSING}")
    })?;
    let value = container_get(con, &key)
        .map_err(|e| e.context(format!("error in move for path: '{key}'")))?
        .unwrap_or(Value::Null);
    container_remove(con, &key)
        .map_err(|e| e.context(format!("error in move for path: '{key}'")))?;
    let path = op_string(op, "path").ok_or_else(|| {
        err!("move operation failed to decode path: operation missing path field: {MISSING}")
    })?;
    let (con, key) = find_parent(doc, &path).ok_or_else(|| {
        err!("move operation does not apply: doc is missing destination path: {path}: {MISSING}")
    })?;
    container_add(con, &key, value)
        .map_err(|e| e.context(format!("error in move for path: '{path}'")))
}

fn op_copy(doc: &mut Value, op: &Operation) -> Result<(), Error> {
    let from = op_string(op, "from").ok_or_else(|| {
        err!("copy operation failed to decode from: operation, missing from field: {MISSING}")
    })?;
    let (con, key) = find_parent(doc, &from).ok_or_else(|| {
        err!("copy operation does not apply: doc is missing from path: {from}: {MISSING}")
    })?;
    let value = container_get(con, &key)
        .map_err(|e| e.context(format!("error in copy for from: '{from}'")))?
        .unwrap_or(Value::Null);
    let path = op_string(op, "path")
        .ok_or_else(|| err!("copy operation failed to decode path: {MISSING}"))?;
    let (con, key) = find_parent(doc, &path).ok_or_else(|| {
        err!("copy operation does not apply: doc is missing destination path: {path}: {MISSING}")
    })?;
    container_add(con, &key, value).map_err(|e| e.context("error while adding value during copy"))
}

fn op_test(doc: &mut Value, op: &Operation) -> Result<(), Error> {
    let path = op_string(op, "path").ok_or_else(|| {
        err!("test operation failed to decode path: operation missing path field: {MISSING}")
    })?;
    let failed = || err!("testing value {path} failed: test failed");
    if path.is_empty() {
        return match op.get("value") {
            Some(want) if equal(doc, want) => Ok(()),
            _ => Err(failed()),
        };
    }
    let (con, key) = find_parent(doc, &path)
        .ok_or_else(|| err!("test operation does not apply: is missing path: {path}: {MISSING}"))?;
    let have = container_get(con, &key)
        .map_err(|e| e.context(format!("error in test for path: '{path}'")))?;
    match (have, op.get("value")) {
        // A missing (or null) value tests equal to an explicit null.
        (None, Some(Value::Null)) => Ok(()),
        (Some(have), Some(want)) if equal(&have, want) => Ok(()),
        _ => Err(failed()),
    }
}

/// The library's equality of the document's value with the test value:
/// objects key by key, arrays element by element, scalars by their JSON
/// text (the document's numbers as Go prints float64 and integers).
fn equal(have: &Value, want: &Value) -> bool {
    match (have, want) {
        (Value::Object(h), Value::Object(w)) => {
            h.len() == w.len()
                && h.iter().all(|(k, hv)| match (hv, w.get(k)) {
                    (Value::Null, Some(Value::Null)) => true,
                    (Value::Null, _) | (_, None) | (_, Some(Value::Null)) => false,
                    (hv, Some(wv)) => equal(hv, wv),
                })
        }
        (Value::Array(h), Value::Array(w)) => {
            h.len() == w.len()
                && h.iter().zip(w).all(|(a, b)| match (a, b) {
                    (Value::Null, Value::Null) => true,
                    (Value::Null, _) | (_, Value::Null) => false,
                    _ => equal(a, b),
                })
        }
        (Value::Number(a), Value::Number(b)) => go_number_text(a) == b.to_string(),
        (Value::Object(_) | Value::Array(_), _) | (_, Value::Object(_) | Value::Array(_)) => false,
        (a, b) => a == b,
    }
}

/// A number as Go's encoding/json prints it (integers as such, float64 in
/// the shortest form, exponent outside [1e-6, 1e21)).
fn go_number_text(n: &serde_json::Number) -> String {
    match n.as_f64().filter(|_| n.is_f64()) {
        None => n.to_string(),
        Some(f) => {
            let a = f.abs();
            if a == 0.0 || (1e-6..1e21).contains(&a) {
                format!("{f}")
            } else {
                let e = format!("{f:e}");
                match e.split_once('e') {
                    Some((m, exp)) if !exp.starts_with('-') => format!("{m}e+{exp}"),
                    _ => e,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ops(v: Value) -> Vec<Operation> {
        match v {
            Value::Array(items) => items
                .into_iter()
                .filter_map(|i| match i {
                    Value::Object(m) => Some(m),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn doc() -> Value {
        json!({"spec": {"replicas": 1, "list": ["a", "b"], "m": {"x": 1}}})
    }

    fn run(patch: Value) -> Result<Value, Error> {
        let mut d = doc();
        apply(&mut d, &ops(patch))?;
        Ok(d)
    }

    #[test]
    fn library_quirks() {
        // replace of a missing key adds it
        let d = run(json!([{"op": "replace", "path": "/spec/foo", "value": 3}])).expect("ok");
        assert_eq!(d["spec"]["foo"], 3);
        // -1 inserts before... the end of a list one longer: appends
        let d = run(json!([{"op": "add", "path": "/spec/list/-1", "value": "c"}])).expect("ok");
        assert_eq!(d["spec"]["list"], json!(["a", "b", "c"]));
        let d = run(json!([{"op": "add", "path": "/spec/list/01", "value": "z"}])).expect("ok");
        assert_eq!(d["spec"]["list"], json!(["a", "z", "b"]));
        // a path without leading slash loses its first segment
        let d = run(json!([{"op": "replace", "path": "spec/replicas", "value": 7}])).expect("ok");
        assert_eq!(d["replicas"], 7);
        assert_eq!(d["spec"]["replicas"], 1);
        // a missing value tests equal to null; negative indices count from the end
        run(json!([{"op": "test", "path": "/spec/replicas", "value": 1},
                   {"op": "test", "path": "/spec/m", "value": {"x": 1}},
                   {"op": "test", "path": "/spec/missing", "value": null},
                   {"op": "test", "path": "/spec/list/-1", "value": "b"}]))
        .expect("tests pass");
        assert!(
            run(json!([{"op": "test", "path": "/spec/m", "value": {"x": 1, "y": 2}}])).is_err()
        );
        // A JSON 1.0 is not the document's 1 (raw JSON texts differ).
        assert!(run(json!([{"op": "test", "path": "/spec/replicas", "value": 1.0}])).is_err());
        // Negative indices in replace.
        let d = run(json!([{"op": "replace", "path": "/spec/list/-2", "value": "z"}])).expect("ok");
        assert_eq!(d["spec"]["list"], json!(["z", "b"]));
        // Replacing the whole document; a scalar is ignored.
        let d = run(json!([{"op": "replace", "path": "", "value": {"a": 1}}])).expect("ok");
        assert_eq!(d, json!({"a": 1}));
        let d = run(json!([{"op": "replace", "path": "", "value": 3}])).expect("ok");
        assert_eq!(d, doc());
        let d = run(json!([{"op": "move", "from": "/spec/m", "path": "/spec/n"},
                           {"op": "copy", "from": "/spec/list/0", "path": "/spec/first"},
                           {"op": "remove", "path": "/spec/list/-1"}]))
        .expect("ok");
        assert_eq!(
            d["spec"],
            json!({"replicas": 1, "list": ["a"], "n": {"x": 1}, "first": "a"})
        );
    }

    #[test]
    fn library_error_texts() {
        let cases = [
            (json!([{"op": "test", "path": "/spec/replicas", "value": 2}]), "testing value /spec/replicas failed: test failed"),
            (json!([{"op": "remove", "path": "/spec/nope"}]), "error in remove for path: '/spec/nope': Unable to remove nonexistent key: nope: missing value"),
            (json!([{"op": "add", "path": "/spec/x/y", "value": 1}]), "add operation does not apply: doc is missing path: \"/spec/x/y\": missing value"),
            (json!([{"op": "bogus", "path": "/spec"}]), "Unexpected kind: bogus"),
            (json!([{"op": "add", "path": "/spec/list/5", "value": 1}]), "error in add for path: '/spec/list/5': Unable to access invalid index: 5: invalid index referenced"),
            (json!([{"op": "replace", "path": "/spec/list/5", "value": 1}]), "replace operation does not apply: doc is missing key: /spec/list/5: missing value"),
            (json!([{"op": "replace", "path": "/spec/list/{\"name\":\"b\"}/image", "value": "x"}]), "replace operation does not apply: doc is missing path: /spec/list/{\"name\":\"b\"}/image: missing value"),
        ];
        for (patch, want) in cases {
            assert_eq!(run(patch).expect_err("fails").message, want);
        }
    }

    #[test]
    fn decodes_json_and_yaml_lists() {
        let ops = decode("- op: test\n  path: /a\n  value: 1.0\n").expect("yaml");
        assert!(ops[0]["value"].is_i64());
        assert_eq!(decode("[{\"op\": \"add\"}]").expect("json").len(), 1);
        let ops = decode("- op: test\n  path: /a\n  value: 1.0\n").expect("yaml");
        assert_eq!(ops[0]["value"], json!(1));
        assert!(ops[0]["value"].is_i64());
        assert!(decode("[1]").is_err());
        assert!(
            decode("[{op: add}]").is_err(),
            "a YAML flow list is not JSON"
        );
        assert!(decode("{\"op\": \"add\"}").is_err());
    }

    #[test]
    fn keeps_internal_annotations_and_stringifies() {
        let mut res = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c",
            "annotations": {"config.k8s.io/id": "3", "internal.config.kubernetes.io/previousNames": "a", "n": 5}}});
        apply_keeping_annotations(
            &mut res,
            &ops(json!([{"op": "remove", "path": "/metadata/annotations"}])),
        )
        .expect("applies");
        assert_eq!(
            res["metadata"]["annotations"],
            json!({"config.k8s.io/id": "3", "internal.config.kubernetes.io/previousNames": "a"})
        );
        let mut res = json!({"metadata": {"name": "c", "annotations": {"n": 5}}, "big": 12345678901234567890u64});
        apply_keeping_annotations(&mut res, &[]).expect("applies");
        assert_eq!(res["metadata"]["annotations"], json!({"n": "5"}));
        assert!(res["big"].is_f64());
        let mut res = json!({"metadata": {"name": "c", "annotations": {}}});
        apply_keeping_annotations(&mut res, &[]).expect("applies");
        assert!(res["metadata"].get("annotations").is_none());
    }
}
