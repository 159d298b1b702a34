//! `kustom diff --explain`: each changed field of a resource credited to
//! the kustomization entry that set it at head, read from the head build's
//! audit record (the same entries `--audit-log` writes).

use super::report::Credit;
use kustom_api::Value;

/// Whether a change to `field` is a change the entry made at `set`.
fn covers(set: &str, field: &str) -> bool {
    field == set
        || field.starts_with(&format!("{set}/"))
        || set.starts_with(&format!("{field}/"))
        || set.is_empty()
        || field.is_empty()
}

/// Credit `fields` of the output resource `id` (its final id, as the audit
/// record spells ids) to entries of `log` (one root's entries, in order).
/// `relative` turns a kustomization path into the one to show.
pub fn credit(
    log: &[Value],
    id: &str,
    fields: &[String],
    relative: &dyn Fn(&str) -> String,
) -> Vec<Credit> {
    let mut open: Vec<&String> = fields.iter().collect();
    let mut out = Vec::new();
    let mut current = id.to_string();
    // Checkouts of remote bases, named by their URLs.
    let remotes: Vec<(&str, &str)> = log
        .iter()
        .filter_map(|e| {
            let r = e.get("remote")?;
            Some((r.get("dir")?.as_str()?, r.get("url")?.as_str()?))
        })
        .collect();
    let shown = |k: &str| {
        for (dir, url) in &remotes {
            if let Some(rest) = k.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) {
                return format!("{url} ({rest})");
            }
        }
        relative(k)
    };
    let credit_of = |e: &Value, field: &str| Credit {
        field: field.to_string(),
        kustomization: shown(e.get("kustomization").and_then(Value::as_str).unwrap_or("")),
        entry: e
            .get("entry")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    };
    // Fields the hash-suffix step set (the name of a generated object) are
    // credited to the generator entry that made the object, found further
    // back; the hash step itself only when no entry made it.
    let mut hashed: Vec<(&Value, &String)> = Vec::new();
    'entries: for e in log.iter().rev() {
        let is_hash = e
            .get("configs")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("kind"))
            .and_then(Value::as_str)
            == Some("HashTransformer");
        let changes = e.get("resources").and_then(Value::as_array);
        for r in changes.into_iter().flatten() {
            if r.get("resource").and_then(Value::as_str) != Some(current.as_str()) {
                continue;
            }
            match r.get("change").and_then(Value::as_str) {
                Some("added") => {
                    // Made here (a generator, or read from a resource file):
                    // whatever is still open comes from this entry.
                    out.extend(open.drain(..).map(|f| credit_of(e, f)));
                    out.extend(hashed.drain(..).map(|(_, f)| credit_of(e, f)));
                    break 'entries;
                }
                Some("modified") | Some("renamed") => {
                    let set: Vec<&str> = r
                        .get("fields")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect();
                    open.retain(|f| {
                        // A whole resource is credited to the entry that made it.
                        if !f.is_empty() && set.iter().any(|s| covers(s, f)) {
                            if is_hash {
                                hashed.push((e, f));
                            } else {
                                out.push(credit_of(e, f));
                            }
                            false
                        } else {
                            true
                        }
                    });
                    if let Some(from) = r.get("from").and_then(Value::as_str) {
                        current = from.to_string();
                    }
                }
                _ => {}
            }
        }
        if open.is_empty() && hashed.is_empty() {
            break;
        }
    }
    out.extend(hashed.into_iter().map(|(e, f)| credit_of(e, f)));
    out.extend(open.into_iter().map(|f| Credit {
        field: f.clone(),
        kustomization: String::new(),
        entry: "no kustomization entry set it".into(),
    }));
    out.sort_by(|a, b| a.field.cmp(&b.field));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_are_credited_through_renames() {
        let log = vec![
            json!({"op": "read", "kustomization": "/r/base/kustomization.yaml", "entry": "resources: d.yaml",
                   "resources": [{"resource": "Deployment.v1.apps/web.[noNs]", "change": "added"}]}),
            json!({"kustomization": "/r/prod/kustomization.yaml", "entry": "replicas[0] (name: web)",
                   "resources": [{"resource": "Deployment.v1.apps/web.[noNs]", "change": "modified", "fields": ["/spec/replicas"]}]}),
            json!({"kustomization": "/r/prod/kustomization.yaml", "entry": "namePrefix (value: p-)",
                   "resources": [{"resource": "Deployment.v1.apps/p-web.[noNs]", "change": "renamed",
                                  "from": "Deployment.v1.apps/web.[noNs]", "fields": ["/metadata/name"]}]}),
        ];
        let rel = |p: &str| p.trim_start_matches("/r/").to_string();
        let got = credit(
            &log,
            "Deployment.v1.apps/p-web.[noNs]",
            &[
                "/spec/replicas".into(),
                "/spec/template/spec/containers/0/image".into(),
            ],
            &rel,
        );
        assert_eq!(got[0].entry, "replicas[0] (name: web)");
        assert_eq!(got[1].entry, "resources: d.yaml");
        assert_eq!(got[1].kustomization, "base/kustomization.yaml");
    }

    #[test]
    fn a_hash_suffix_is_credited_to_the_generator_entry() {
        let log = vec![
            json!({"kustomization": "/r/app/kustomization.yaml", "entry": "configMapGenerator[0] (name: app)",
                   "configs": [{"kind": "ConfigMapGenerator"}],
                   "resources": [{"resource": "ConfigMap.v1.[noGrp]/app.[noNs]", "change": "added"}]}),
            json!({"kustomization": "/r/app/kustomization.yaml", "entry": "name hash suffixes of generated objects",
                   "configs": [{"kind": "HashTransformer"}],
                   "resources": [{"resource": "ConfigMap.v1.[noGrp]/app-b5g778hd6d.[noNs]", "change": "renamed",
                                  "from": "ConfigMap.v1.[noGrp]/app.[noNs]", "fields": ["/metadata/name"]}]}),
        ];
        let rel = |p: &str| p.trim_start_matches("/r/").to_string();
        let got = credit(
            &log,
            "ConfigMap.v1.[noGrp]/app-b5g778hd6d.[noNs]",
            &["/data/mode".into(), "/metadata/name".into()],
            &rel,
        );
        let entries: Vec<(&str, &str)> = got
            .iter()
            .map(|c| (c.field.as_str(), c.entry.as_str()))
            .collect();
        assert_eq!(
            entries,
            [
                ("/data/mode", "configMapGenerator[0] (name: app)"),
                ("/metadata/name", "configMapGenerator[0] (name: app)")
            ]
        );
        // With no generator entry in the record, the hash step keeps it.
        let got = credit(
            &log[1..],
            "ConfigMap.v1.[noGrp]/app-b5g778hd6d.[noNs]",
            &["/metadata/name".into()],
            &rel,
        );
        assert_eq!(got[0].entry, "name hash suffixes of generated objects");
    }
}
