//! What every plugin protocol shares in exchanging resources with a
//! plugin process: reading its output as kustomize does (lists expanded,
//! malformed documents refused), the legacy generator options, and the id
//! annotations by which a transformer's output is matched back to its input.
//! A leaf: the protocols import it, it imports none of them.

use kustom_api::protocol::{
    GENERATOR_BEHAVIOR, LEGACY_BEHAVIOR, LEGACY_NEEDS_HASH, NEEDS_HASH_SUFFIX,
};
use kustom_api::{resource, yaml, Error, ResId, Value};

/// kustomize's annotation carrying a resource's id into a legacy transformer.
pub const LEGACY_ID_ANNOTATION: &str = "kustomize.config.k8s.io/id";

/// kustomize's reading of plugin output: empty documents skipped, `*List`
/// objects (and a JSON array at the top) expanded into their items, a
/// mapping without `kind` or `metadata.name`, or anything but a mapping,
/// rejected.
pub fn expand_lists(docs: Vec<Value>) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    let mut queue: std::collections::VecDeque<Value> = docs.into();
    while let Some(doc) = queue.pop_front() {
        match &doc {
            Value::Null => continue,
            Value::Object(m) if m.is_empty() => continue,
            Value::Object(_) => {}
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    queue.insert(i, item.clone());
                }
                continue;
            }
            other => {
                return Err(format!(
                    "a document is not a mapping: {}",
                    serde_json::to_string(other).unwrap_or_default()
                ))
            }
        }
        if resource::kind(&doc).ends_with("List") {
            if let Some(Value::Array(items)) = doc.get("items") {
                for (i, item) in items.iter().enumerate() {
                    queue.insert(i, item.clone());
                }
                continue;
            }
        }
        if resource::kind(&doc).is_empty() || resource::name(&doc).is_empty() {
            let text = serde_json::to_string(&doc).unwrap_or_default();
            let head: String = text.chars().take(200).collect();
            return Err(format!("a resource without kind or metadata.name: {head}"));
        }
        out.push(doc);
    }
    Ok(out)
}

/// Turn the legacy generator annotations into the build's state, as
/// kustomize's UpdateResourceOptions: no hash suffix unless `needs-hash`
/// parses as true; `behavior` create / merge / replace, else unspecified.
pub fn apply_generator_options(docs: &mut [Value]) -> Result<(), Error> {
    for r in docs.iter_mut() {
        let behavior = match resource::remove_annotation(r, LEGACY_BEHAVIOR) {
            Some(Value::String(s)) => s,
            _ => String::new(),
        };
        let needs_hash = match resource::remove_annotation(r, LEGACY_NEEDS_HASH) {
            None => false,
            Some(v) => {
                let text = v
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string());
                parse_go_bool(&text).ok_or_else(|| {
                    Error::new(format!(
                        "the annotation {LEGACY_NEEDS_HASH:?} contains an invalid value ({text:?})"
                    ))
                })?
            }
        };
        if needs_hash {
            resource::set_annotation(r, NEEDS_HASH_SUFFIX, "enabled");
        }
        let behavior = match behavior.as_str() {
            "create" | "merge" | "replace" => behavior.as_str(),
            _ => "unspecified",
        };
        resource::set_annotation(r, GENERATOR_BEHAVIOR, behavior);
    }
    Ok(())
}

/// Go's strconv.ParseBool.
fn parse_go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// The YAML of a resource's current id, as kustomize writes it into
/// `kustomize.config.k8s.io/id` (keys sorted, empty fields left out).
pub fn id_yaml(id: &ResId) -> String {
    yaml::to_yaml(&id_object(id))
}

/// A ResId as kustomize marshals one: keys sorted, empty fields left out.
fn id_object(id: &ResId) -> Value {
    let mut m = serde_json::Map::new();
    for (k, v) in [
        ("group", &id.gvk.group),
        ("version", &id.gvk.version),
        ("kind", &id.gvk.kind),
        ("name", &id.name),
        ("namespace", &id.namespace),
    ] {
        if !v.is_empty() {
            m.insert(k.to_string(), Value::String(v.clone()));
        }
    }
    Value::Object(m)
}

/// Copies of `resources`, each carrying its id in kustomize's legacy id
/// annotation, so a transformer's output can be matched back.
pub fn with_id_annotations(resources: &[Value]) -> Vec<Value> {
    resources
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let id = id_yaml(&ResId::of(&r));
            resource::set_annotation(&mut r, LEGACY_ID_ANNOTATION, &id);
            r
        })
        .collect()
}

/// kustomize's UpdateResMapValues: strip `id_annotation` from every output
/// resource; an output whose current id matches a resource replaces it in
/// place, other outputs are appended; resources without a matching output
/// are removed. Two outputs with the same id are an error.
pub fn merge_by_current_id(
    mut resources: Vec<Value>,
    output: Vec<Value>,
    id_annotation: &str,
) -> Result<Vec<Value>, Error> {
    let mut seen: Vec<ResId> = Vec::with_capacity(output.len());
    for mut r in output {
        resource::remove_annotation(&mut r, id_annotation);
        let id = ResId::of(&r);
        if seen.iter().any(|s| s.equals(&id)) {
            return Err(Error::new(format!(
                "plugin generated duplicate resource: {}",
                pretty_id(&id)
            )));
        }
        let matches: Vec<usize> = resources
            .iter()
            .enumerate()
            .filter(|(_, old)| ResId::of(old).equals(&id))
            .map(|(i, _)| i)
            .collect();
        match matches.as_slice() {
            [] => resources.push(r),
            [i] => resources[*i] = r,
            more => {
                return Err(Error::new(format!(
                    "id {} matched {} resources",
                    pretty_id(&id),
                    more.len()
                )))
            }
        }
        seen.push(id);
    }
    resources.retain(|r| {
        let id = ResId::of(r);
        seen.iter().any(|s| s.equals(&id))
    });
    Ok(resources)
}

/// A ResId as kustomize prints one in this message (its JSON form).
fn pretty_id(id: &ResId) -> String {
    id_object(id).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn generator_annotations_become_build_state() {
        let mut docs = vec![
            json!({"kind": "ConfigMap", "metadata": {"name": "a", "annotations": {
                "kustomize.config.k8s.io/needs-hash": "true",
                "kustomize.config.k8s.io/behavior": "merge"}}}),
            json!({"kind": "ConfigMap", "metadata": {"name": "b"}}),
        ];
        apply_generator_options(&mut docs).expect("valid");
        assert_eq!(
            docs[0]["metadata"]["annotations"],
            json!({NEEDS_HASH_SUFFIX: "enabled", GENERATOR_BEHAVIOR: "merge"})
        );
        assert_eq!(
            docs[1]["metadata"]["annotations"],
            json!({GENERATOR_BEHAVIOR: "unspecified"})
        );
        let mut bad = vec![
            json!({"kind": "ConfigMap", "metadata": {"name": "c", "annotations": {
            "kustomize.config.k8s.io/needs-hash": "yes"}}}),
        ];
        let e = apply_generator_options(&mut bad).expect_err("invalid bool");
        assert!(e.message.contains("invalid value (\"yes\")"), "{e}");
    }

    #[test]
    fn merge_replaces_appends_and_removes_by_current_id() {
        let a = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}});
        let b = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}});
        let c = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
        let mut b2 = b.clone();
        b2["data"] = json!({"x": "1"});
        b2["metadata"]["annotations"] = json!({LEGACY_ID_ANNOTATION: "kind: ConfigMap\n"});
        let mut new = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}});
        new["metadata"]["namespace"] = json!("default");
        let out = merge_by_current_id(
            vec![a, b.clone(), c.clone()],
            vec![new.clone(), c.clone(), b2],
            LEGACY_ID_ANNOTATION,
        )
        .expect("merge");
        let mut want_b = b;
        want_b["data"] = json!({"x": "1"});
        assert_eq!(out, vec![want_b, c.clone(), new]);
        let dup = merge_by_current_id(vec![], vec![c.clone(), c], LEGACY_ID_ANNOTATION)
            .expect_err("duplicate");
        assert!(dup.message.contains("duplicate resource"), "{dup}");
    }

    #[test]
    fn lists_are_expanded_and_empty_documents_skipped() {
        let docs = vec![
            Value::Null,
            json!({"kind": "ConfigMapList", "items": [{"kind": "ConfigMap", "metadata": {"name": "x"}}]}),
            json!({}),
        ];
        assert_eq!(expand_lists(docs).expect("ok").len(), 1);
        assert!(expand_lists(vec![json!("junk")]).is_err());
        let arr = json!([{"kind": "A", "metadata": {"name": "a"}}, {"kind": "B", "metadata": {"name": "b"}}]);
        let got =
            expand_lists(vec![arr, json!({"kind": "C", "metadata": {"name": "c"}})]).expect("ok");
        let kinds: Vec<&str> = got.iter().map(resource::kind).collect();
        assert_eq!(kinds, vec!["A", "B", "C"]);
        let e = expand_lists(vec![json!({"kind": "A", "metadata": {}})]).expect_err("nameless");
        assert!(e.contains("without kind or metadata.name"), "{e}");
    }
}
