//! Mapping values written with no value at all (`key:`), remembered across
//! the JSON form resources travel in.
//!
//! JSON has one null, but kustomize's strategic merge (kyaml's merge walker)
//! tells two apart: a field whose value is an empty null is dropped from
//! every part of the patched resource the walker visits (maps and
//! associative lists, whether or not the patch mentions them), while an
//! explicit `null` or `~` there is kept. Every other transformer prints
//! both as `null`. The core reads resource files with the paths of their
//! empty values and records them in an internal annotation; the
//! strategic-merge transformer turns the values at those paths into a
//! marker for the walk and back into nulls afterwards.

use crate::protocol::EMPTY_NULLS;
use crate::resource;
use serde_json::Value;

/// Stands for an empty null during a strategic merge: a string no resource
/// read from YAML can hold (the reader refuses NUL characters).
const MARKER: &str = "\u{0}kustom:empty-null\u{0}";

/// Record `paths` (from `yaml::parse_stream_with_empty_nulls`) on a
/// resource. Nothing is recorded when the resource's annotations are
/// absent-but-null or an empty map, which an added annotation would change.
pub fn record(res: &mut Value, paths: Vec<Value>) {
    if paths.is_empty() {
        return;
    }
    match resource::get_at(res, &["metadata", "annotations"]) {
        None => {}
        Some(Value::Object(m)) if !m.is_empty() => {}
        Some(_) => return,
    }
    if !res.get("metadata").is_some_and(Value::is_object) {
        return;
    }
    let text = Value::Array(paths).to_string();
    resource::map_at_mut(res, &["metadata", "annotations"])
        .insert(EMPTY_NULLS.to_string(), Value::String(text));
}

/// The paths below `prefix` (e.g. `["items", 0]`), relative to it.
pub fn below(paths: &[Value], prefix: &[Value]) -> Vec<Value> {
    paths
        .iter()
        .filter_map(|p| {
            let steps = p.as_array()?;
            steps
                .starts_with(prefix)
                .then(|| Value::Array(steps[prefix.len()..].to_vec()))
        })
        .collect()
}

/// Take the recorded paths off a resource and put the marker at each of
/// them that still holds a null; returns whether any marker was placed.
pub fn plant(res: &mut Value) -> bool {
    let Some(text) = resource::annotation(res, EMPTY_NULLS).map(str::to_string) else {
        return false;
    };
    resource::remove_annotation(res, EMPTY_NULLS);
    let Ok(Value::Array(paths)) = serde_json::from_str::<Value>(&text) else {
        return false;
    };
    let mut planted = false;
    for path in paths {
        let Some(steps) = path.as_array() else {
            continue;
        };
        if let Some(slot) = lookup_mut(res, steps).filter(|v| v.is_null()) {
            *slot = Value::String(MARKER.to_string());
            planted = true;
        }
    }
    planted
}

/// The recorded paths of a resource's values written empty, each a list
/// of keys and indices (none when nothing was recorded).
pub fn recorded(res: &Value) -> Vec<Vec<Value>> {
    let Some(text) = resource::annotation(res, EMPTY_NULLS) else {
        return Vec::new();
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(paths)) => paths
            .into_iter()
            .filter_map(|p| match p {
                Value::Array(steps) => Some(steps),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `v` is the marker of an empty null.
pub fn is_marker(v: &Value) -> bool {
    v.as_str() == Some(MARKER)
}

/// Turn the markers left in a resource back into nulls and record their
/// paths again (they sat where the merge walker does not go).
pub fn restore(res: &mut Value) {
    let mut paths = Vec::new();
    let mut path = Vec::new();
    unplant(res, &mut path, &mut paths);
    record(res, paths);
}

/// Remove every marker from a resource, leaving nulls (when a merge failed
/// and the resource is given back as it was).
pub fn clear(res: &mut Value) {
    unplant(res, &mut Vec::new(), &mut Vec::new());
}

fn unplant(v: &mut Value, path: &mut Vec<Value>, found: &mut Vec<Value>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                path.push(Value::String(k.clone()));
                unplant(child, path, found);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                path.push(Value::from(i));
                unplant(child, path, found);
                path.pop();
            }
        }
        other if is_marker(other) => {
            *other = Value::Null;
            found.push(Value::Array(path.clone()));
        }
        _ => {}
    }
}

fn lookup_mut<'v>(v: &'v mut Value, steps: &[Value]) -> Option<&'v mut Value> {
    let mut cur = v;
    for step in steps {
        cur = match (cur, step) {
            (Value::Object(m), Value::String(k)) => m.get_mut(k)?,
            (Value::Array(items), Value::Number(n)) => items.get_mut(n.as_u64()? as usize)?,
            _ => return None,
        };
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn markers_round_trip_through_the_annotation() {
        let mut r = json!({"kind": "K", "metadata": {"name": "n"}, "spec": {"a": null, "l": [{"b": null}]}});
        record(
            &mut r,
            vec![json!(["spec", "a"]), json!(["spec", "l", 0, "b"])],
        );
        assert!(resource::annotation(&r, EMPTY_NULLS).is_some());
        assert_eq!(
            recorded(&r),
            vec![
                vec![json!("spec"), json!("a")],
                vec![json!("spec"), json!("l"), json!(0), json!("b")]
            ]
        );
        assert!(plant(&mut r));
        assert!(is_marker(&r["spec"]["a"]) && is_marker(&r["spec"]["l"][0]["b"]));
        r["spec"].as_object_mut().unwrap().remove("a");
        restore(&mut r);
        assert_eq!(r["spec"]["l"][0]["b"], Value::Null);
        assert_eq!(
            resource::annotation(&r, EMPTY_NULLS),
            Some(r#"[["spec","l",0,"b"]]"#)
        );
    }

    #[test]
    fn annotations_that_would_change_are_left_alone() {
        for meta in [
            json!({"name": "n", "annotations": null}),
            json!({"name": "n", "annotations": {}}),
        ] {
            let mut r = json!({"metadata": meta.clone(), "spec": {"a": null}});
            record(&mut r, vec![json!(["spec", "a"])]);
            assert_eq!(r["metadata"], meta);
        }
        assert_eq!(
            below(
                &[json!(["items", 1, "x"]), json!(["items", 0, "y"])],
                &[json!("items"), json!(0)]
            ),
            vec![json!(["y"])]
        );
    }
}
