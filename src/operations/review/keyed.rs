//! Lists keyed by name compared by key: a resource at head has the
//! elements of its keyed lists put in the base's order before the two are
//! compared, so that reordering containers, env, ports, volumes — any list
//! the strategic-merge schema gives merge keys — is not a change, and a
//! changed element is shown against the element with the same key.

use kustom_api::schema::{Schema, SchemaNode};
use kustom_api::Value;

/// Put the elements of `head`'s keyed lists in `base`'s order (elements
/// new at head keep their relative order after those found at base).
/// Only lists the builtin schema gives merge keys are touched.
pub fn align(base: &Value, head: &mut Value) {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let (api, kind) = (s(head, "apiVersion"), s(head, "kind"));
    if s(base, "apiVersion") != api || s(base, "kind") != kind {
        return;
    }
    if let Some(node) = Schema::builtin().for_type(&api, &kind) {
        walk(base, head, node);
    }
}

fn walk(base: &Value, head: &mut Value, node: SchemaNode<'_>) {
    match (base, head) {
        (Value::Object(b), Value::Object(h)) => {
            for (k, hv) in h.iter_mut() {
                if let (Some(bv), Some(n)) = (b.get(k), node.field(k)) {
                    walk(bv, hv, n);
                }
            }
        }
        (Value::Array(b), Value::Array(h)) => {
            let Some(elements) = node.elements() else {
                return;
            };
            let keys = node.merge_keys();
            if node.merges_lists() && !keys.is_empty() {
                reorder(b, h, keys);
            }
            // Elements matched by key (or by position in unkeyed lists).
            for (i, hv) in h.iter_mut().enumerate() {
                let bv = if keys.is_empty() {
                    b.get(i)
                } else {
                    key_of(hv, keys)
                        .and_then(|k| b.iter().find(|x| key_of(x, keys) == Some(k.clone())))
                };
                if let Some(bv) = bv {
                    walk(bv, hv, elements);
                }
            }
        }
        _ => {}
    }
}

/// An element's merge-key values; None when it is not a mapping or has
/// none of the keys.
fn key_of(v: &Value, keys: &[String]) -> Option<Vec<Value>> {
    let m = v.as_object()?;
    let k: Vec<Value> = keys
        .iter()
        .map(|k| m.get(k).cloned().unwrap_or(Value::Null))
        .collect();
    k.iter().any(|x| !x.is_null()).then_some(k)
}

/// Reorder `head` to follow `base` when every element of both has a key
/// and no key repeats (otherwise order is left as it is: it may mean
/// something there).
fn reorder(base: &[Value], head: &mut Vec<Value>, keys: &[String]) {
    let bk: Option<Vec<Vec<Value>>> = base.iter().map(|v| key_of(v, keys)).collect();
    let hk: Option<Vec<Vec<Value>>> = head.iter().map(|v| key_of(v, keys)).collect();
    let (Some(bk), Some(hk)) = (bk, hk) else {
        return;
    };
    let unique = |ks: &[Vec<Value>]| ks.iter().enumerate().all(|(i, k)| !ks[..i].contains(k));
    if !unique(&bk) || !unique(&hk) {
        return;
    }
    let mut taken: Vec<Option<Value>> = std::mem::take(head).into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(taken.len());
    for k in &bk {
        if let Some(i) = hk.iter().position(|x| x == k) {
            if let Some(v) = taken[i].take() {
                out.push(v);
            }
        }
    }
    out.extend(taken.into_iter().flatten());
    *head = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deploy(containers: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
               "spec": {"template": {"spec": {"containers": containers}}}})
    }

    #[test]
    fn reordered_containers_and_env_are_the_same_and_changes_line_up() {
        let base = deploy(json!([
            {"name": "a", "image": "x:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
            {"name": "b", "image": "y:1"}
        ]));
        let mut head = deploy(json!([
            {"name": "b", "image": "y:1"},
            {"name": "a", "image": "x:1", "env": [{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]}
        ]));
        align(&base, &mut head);
        assert_eq!(head, base);
        let mut changed = deploy(json!([
            {"name": "c", "image": "z:1"},
            {"name": "b", "image": "y:2"},
            {"name": "a", "image": "x:1"}
        ]));
        align(&base, &mut changed);
        let names: Vec<&str> = changed["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
    }

    #[test]
    fn lists_without_merge_keys_keep_their_order() {
        let base = deploy(json!([{"name": "a", "image": "x", "args": ["1", "2"]}]));
        let mut head = deploy(json!([{"name": "a", "image": "x", "args": ["2", "1"]}]));
        align(&base, &mut head);
        assert_ne!(head, base);
        // A custom resource has no schema: untouched.
        let b = json!({"apiVersion": "tekton.dev/v1", "kind": "Task", "spec": {"steps": [{"name": "a"}, {"name": "b"}]}});
        let mut h = json!({"apiVersion": "tekton.dev/v1", "kind": "Task", "spec": {"steps": [{"name": "b"}, {"name": "a"}]}});
        align(&b, &mut h);
        assert_ne!(h, b);
    }
}
