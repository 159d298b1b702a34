//! Label and annotation entries that share one value.
//!
//! kustomize's label and annotation transformers make one YAML value node
//! per resource and key, and every entry they *create* (the key was absent)
//! points at that node, while an entry that already existed gets the node's
//! content copied into its own node. So the entries one transformer created
//! in a resource stay linked: a later transformer that overwrites any one of
//! them (e.g. `labels:` without selectors after one with `includeSelectors`)
//! changes them all. Resources travel as JSON here, so the links are kept as
//! a list of `{key, paths}` groups in an internal annotation.

use super::prefix_suffix::wrong_kind;
use kustom_api::fieldspec::{visit_fields, FieldSpec};
use kustom_api::protocol::SHARED_ENTRIES;
use kustom_api::{resource, Error, Map, Value};

/// Stands for an entry created by this write (no resource holds NUL characters).
const CREATED: &str = "\u{0}kustom:created-entry\u{0}";
/// Stands for an entry overwritten by this write.
const OVERWRITTEN: &str = "\u{0}kustom:overwritten-entry\u{0}";

/// Set `key` to `value` in every mapping `specs` name in `obj`, creating the
/// mappings where a spec says so, and keep the links between entries that
/// kustomize's shared value nodes make.
pub(crate) fn set_entry(
    obj: &mut Value,
    key: &str,
    value: &str,
    specs: &[FieldSpec],
) -> Result<(), Error> {
    let empty_map = Value::Object(Map::new());
    let mut written = 0usize;
    for spec in specs {
        visit_fields(obj, spec, Some(&empty_map), &mut |field| match field {
            Value::Object(map) => {
                let marker = match map.get(key).and_then(Value::as_str) {
                    Some(CREATED) | Some(OVERWRITTEN) => return Ok(()),
                    _ if map.contains_key(key) => OVERWRITTEN,
                    _ => CREATED,
                };
                map.insert(key.to_string(), Value::String(marker.to_string()));
                written += 1;
                Ok(())
            }
            Value::Null => {
                let mut map = Map::new();
                map.insert(key.to_string(), Value::String(CREATED.to_string()));
                *field = Value::Object(map);
                written += 1;
                Ok(())
            }
            Value::Array(_) => Err(wrong_kind("MappingNode", "SequenceNode")),
            _ => Err(wrong_kind("MappingNode", "ScalarNode")),
        })
        .inspect_err(|_| clear_markers(obj, key, value))?;
    }
    if written == 0 {
        return Ok(());
    }
    let mut created = Vec::new();
    let mut overwritten = Vec::new();
    find_markers(obj, key, &mut Vec::new(), &mut created, &mut overwritten);
    clear_markers(obj, key, value);
    if created.is_empty() && overwritten.is_empty() {
        return Ok(());
    }
    let mut groups = read_groups(obj);
    // An overwritten entry writes through to the entries linked with it.
    for path in &overwritten {
        for group in groups
            .iter()
            .filter(|g| g.key == key && g.paths.contains(path))
        {
            for member in &group.paths {
                if let Some(slot) = lookup_mut(obj, member) {
                    *slot = Value::String(value.to_string());
                }
            }
        }
    }
    // Entries created now share a new value, whatever they were linked to.
    for group in groups.iter_mut().filter(|g| g.key == key) {
        group.paths.retain(|p| !created.contains(p));
    }
    groups.retain(|g| g.paths.len() > 1);
    if created.len() > 1 {
        groups.push(Group {
            key: key.to_string(),
            paths: created,
        });
    }
    write_groups(obj, &groups);
    Ok(())
}

/// Entries (paths to the key's value) that share one value.
struct Group {
    key: String,
    paths: Vec<Vec<Value>>,
}

fn read_groups(obj: &Value) -> Vec<Group> {
    let Some(text) = resource::annotation(obj, SHARED_ENTRIES) else {
        return Vec::new();
    };
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let key = item.get("key")?.as_str()?.to_string();
            let paths = item
                .get("paths")?
                .as_array()?
                .iter()
                .filter_map(|p| p.as_array().cloned())
                .collect();
            Some(Group { key, paths })
        })
        .collect()
}

fn write_groups(obj: &mut Value, groups: &[Group]) {
    if groups.is_empty() {
        resource::remove_annotation(obj, SHARED_ENTRIES);
        return;
    }
    // Only where an annotations map is there or can be added and dropped
    // again unseen: an explicit empty or null map would be changed.
    match resource::get_at(obj, &["metadata", "annotations"]) {
        None if obj.get("metadata").is_some_and(Value::is_object) => {}
        Some(Value::Object(m)) if !m.is_empty() => {}
        _ => return,
    }
    let list: Vec<Value> = groups
        .iter()
        .map(|g| {
            serde_json::json!({
                "key": g.key,
                "paths": g.paths.iter().cloned().map(Value::Array).collect::<Vec<_>>(),
            })
        })
        .collect();
    resource::set_annotation(obj, SHARED_ENTRIES, &Value::Array(list).to_string());
}

/// One step of a path being walked: a map key or a sequence index.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// A walked path as the annotation writes it (JSON keys and indices).
fn path_value(path: &[Step<'_>]) -> Vec<Value> {
    path.iter()
        .map(|step| match *step {
            Step::Key(k) => Value::String(k.to_string()),
            Step::Index(i) => Value::from(i),
        })
        .collect()
}

/// Collect the paths of the markers this write left at `key` (the path is
/// borrowed while walking: most of a resource holds no marker).
fn find_markers<'a>(
    node: &'a Value,
    key: &str,
    path: &mut Vec<Step<'a>>,
    created: &mut Vec<Vec<Value>>,
    overwritten: &mut Vec<Vec<Value>>,
) {
    match node {
        Value::Object(map) => {
            for (k, v) in map {
                path.push(Step::Key(k));
                match v.as_str() {
                    Some(CREATED) if k == key => created.push(path_value(path)),
                    Some(OVERWRITTEN) if k == key => overwritten.push(path_value(path)),
                    _ => find_markers(v, key, path, created, overwritten),
                }
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(Step::Index(i));
                find_markers(v, key, path, created, overwritten);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Replace every marker at `key` by `value`.
fn clear_markers(node: &mut Value, key: &str, value: &str) {
    match node {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                match v.as_str() {
                    Some(CREATED) | Some(OVERWRITTEN) if k == key => {
                        *v = Value::String(value.to_string())
                    }
                    _ => clear_markers(v, key, value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| clear_markers(v, key, value)),
        _ => {}
    }
}

/// The value at `steps` (map keys and list indexes), if there.
fn lookup_mut<'a>(node: &'a mut Value, steps: &[Value]) -> Option<&'a mut Value> {
    steps.iter().try_fold(node, |cur, step| match (cur, step) {
        (Value::Object(m), Value::String(k)) => m.get_mut(k),
        (Value::Array(a), Value::Number(n)) => a.get_mut(usize::try_from(n.as_u64()?).ok()?),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(path: &str) -> FieldSpec {
        serde_json::from_value(json!({"path": path, "create": true})).unwrap()
    }

    #[test]
    fn created_entries_stay_linked_overwritten_ones_do_not() {
        let mut obj = json!({"metadata": {"name": "x", "annotations": {"a": "b"}, "labels": {"old": "1"}},
            "spec": {"selector": {}}});
        let both = [spec("metadata/labels"), spec("spec/selector")];
        set_entry(&mut obj, "team", "a", &both).unwrap();
        set_entry(&mut obj, "old", "2", &both).unwrap();
        // Only metadata/labels is written now; the selector follows it.
        set_entry(&mut obj, "team", "b", &[spec("metadata/labels")]).unwrap();
        assert_eq!(obj["spec"]["selector"]["team"], "b");
        // `old` existed in metadata, so only the selector entry was created:
        // no link, the selector keeps its value.
        set_entry(&mut obj, "old", "3", &[spec("metadata/labels")]).unwrap();
        assert_eq!(obj["spec"]["selector"]["old"], "2");
        assert_eq!(obj["metadata"]["labels"]["old"], "3");
    }

    #[test]
    fn links_go_when_the_entries_are_created_again_and_errors_leave_no_marker() {
        let mut obj =
            json!({"metadata": {"name": "x", "annotations": {"a": "b"}}, "spec": {"s": "scalar"}});
        let two = [spec("metadata/labels"), spec("spec/t")];
        set_entry(&mut obj, "k", "v", &two).unwrap();
        assert!(resource::annotation(&obj, SHARED_ENTRIES).is_some());
        obj["metadata"]["labels"] = json!({});
        set_entry(&mut obj, "k", "w", &[spec("metadata/labels")]).unwrap();
        assert_eq!(obj["spec"]["t"]["k"], "v");
        assert!(resource::annotation(&obj, SHARED_ENTRIES).is_none());
        let bad = [spec("metadata/labels"), spec("spec/s")];
        assert!(set_entry(&mut obj, "k", "z", &bad).is_err());
        assert_eq!(obj["metadata"]["labels"]["k"], "z");
    }
}
