//! `--audit-log FILE`: one JSON object per plugin call, so that a reviewer
//! can tell from the log alone which plugin set which field:
//!
//! ```json
//! {"seq":3,"protocol":"builtin (shipped)","plugin":"builtin (shipped)",
//!  "executable":"/usr/bin/kustom","sha256":"…","op":"transform",
//!  "kustomization":"/repo/overlays/prod/kustomization.yaml",
//!  "configs":[{…}],"policy":{"confined":true,"read":[…],…},
//!  "durationMs":4.1,"exitStatus":0,
//!  "resources":[{"resource":"Deployment.v1.apps/web.prod","change":"modified",
//!                "fields":["/spec/replicas"]},
//!               {"resource":"ConfigMap.v1.[noGrp]/cfg-5g2.prod","change":"renamed",
//!                "from":"ConfigMap.v1.[noGrp]/cfg.prod","fields":["/metadata/name"]}]}
//! ```
//!
//! Changes are found by comparing the resources before and after the call:
//! matched by current id, a renamed resource by the previous id the call
//! recorded; fields as JSON pointers (RFC 6901) of every value added,
//! removed or changed. kustom's internal bookkeeping annotations are left out.

use crate::plugin_host::sandbox::Policy;
use kustom_api::doc::Doc;
use kustom_api::protocol::BUILD_ANNOTATIONS;
use kustom_api::{Error, ResId, Value};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The audit log of one build.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    file: Mutex<std::fs::File>,
    seq: AtomicUsize,
}

/// One plugin call, as logged.
#[derive(Debug)]
pub struct CallRecord<'a> {
    /// Protocol name.
    pub protocol: &'a str,
    /// The plugin's name (as in kustom.lock).
    pub plugin: &'a str,
    /// The executable and its digest.
    pub executable: &'a Path,
    /// Lowercase hex sha256 of the executable.
    pub sha256: &'a str,
    /// generate or transform.
    pub op: &'a str,
    /// The kustomization that listed the configs.
    pub kustomization: &'a Path,
    /// The config objects of the call.
    pub configs: &'a [Value],
    /// The sandbox policy applied.
    pub policy: &'a Policy,
    /// Wall-clock duration.
    pub duration: std::time::Duration,
    /// Exit status (None: killed, or it did not run to the end).
    pub exit_status: Option<i32>,
    /// A container function's image as written; `sha256` is its digest.
    pub image: Option<&'a str>,
}

impl AuditLog {
    /// Create (truncate) `path`.
    pub fn create(path: &Path) -> Result<AuditLog, Error> {
        let file = std::fs::File::create(path)
            .map_err(|e| Error::new(format!("--audit-log {}: {e}", path.display())))?;
        Ok(AuditLog {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            seq: AtomicUsize::new(0),
        })
    }

    /// Log a call: `before` the resources it received (None for a
    /// generator), `after` what it gave back, or the error it failed with.
    pub fn record(
        &self,
        call: &CallRecord<'_>,
        before: Option<&[Doc]>,
        after: Result<&[Doc], &Error>,
    ) -> Result<(), Error> {
        let mut entry = json!({
            "seq": self.seq.fetch_add(1, Ordering::Relaxed) + 1,
            "protocol": call.protocol,
            "plugin": call.plugin,
            "executable": call.executable.display().to_string(),
            "sha256": call.sha256,
            "op": call.op,
            "kustomization": call.kustomization.display().to_string(),
            "configs": call.configs,
            "policy": call.policy,
            "durationMs": (call.duration.as_secs_f64() * 1e6).round() / 1e3,
            "exitStatus": call.exit_status,
        });
        if let Some(image) = call.image {
            entry["image"] = json!({"name": image, "digest": format!("sha256:{}", call.sha256)});
        }
        match after {
            Ok(after) => entry["resources"] = Value::Array(changes(before.unwrap_or(&[]), after)),
            Err(e) => entry["error"] = Value::String(e.to_string()),
        }
        let mut line = serde_json::to_string(&entry).expect("JSON values always serialise");
        line.push('\n');
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        f.write_all(line.as_bytes())
            .map_err(|e| Error::new(format!("writing --audit-log {}: {e}", self.path.display())))
    }
}

/// What a call did to each resource: added, removed, renamed (with the
/// fields changed) and modified (fields changed). Unchanged resources are
/// left out.
pub fn changes(before: &[Doc], after: &[Doc]) -> Vec<Value> {
    let before_ids: Vec<ResId> = before.iter().map(Doc::id).collect();
    let mut used = vec![false; before.len()];
    let mut out = Vec::new();
    for doc in after {
        let id = doc.id();
        let same = (0..before.len()).find(|&i| !used[i] && before_ids[i].equals(&id));
        let renamed = same.is_none().then(|| {
            // The most recent previous id first: the rename this call made.
            let prev = doc.previous_ids();
            prev.iter()
                .rev()
                .find_map(|p| (0..before.len()).find(|&i| !used[i] && before_ids[i].equals(p)))
        });
        match same.or(renamed.flatten()) {
            Some(i) => {
                used[i] = true;
                let mut fields = Vec::new();
                if before[i].json() != doc.json() {
                    diff("", &before[i].value(), &doc.value(), &mut fields);
                }
                if same.is_some() {
                    if !fields.is_empty() {
                        out.push(json!({"resource": id.to_string(), "change": "modified", "fields": fields}));
                    }
                } else {
                    out.push(json!({"resource": id.to_string(), "change": "renamed", "from": before_ids[i].to_string(), "fields": fields}));
                }
            }
            None => out.push(json!({"resource": id.to_string(), "change": "added"})),
        }
    }
    for (i, id) in before_ids.iter().enumerate() {
        if !used[i] {
            out.push(json!({"resource": id.to_string(), "change": "removed"}));
        }
    }
    out
}

/// Escape one JSON pointer token (RFC 6901).
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Push the pointers below `at` where `a` and `b` differ: leaves and whole
/// added or removed subtrees, kustom's internal annotations left out.
fn diff(at: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if is_internal(at) {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let empty = Value::Object(Default::default());
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for k in keys {
                let p = format!("{at}/{}", token(k));
                match (x.get(k), y.get(k)) {
                    (Some(va), Some(vb)) => diff(&p, va, vb, out),
                    // A mapping added or removed whole: name its leaves,
                    // so that bookkeeping annotations can be left out.
                    (Some(v @ Value::Object(_)), None) => diff(&p, v, &empty, out),
                    (None, Some(v @ Value::Object(_))) => diff(&p, &empty, v, out),
                    _ if !is_internal(&p) => out.push(p),
                    _ => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let p = format!("{at}/{i}");
                match (x.get(i), y.get(i)) {
                    (Some(va), Some(vb)) => diff(&p, va, vb, out),
                    _ => out.push(p),
                }
            }
        }
        _ if a != b => out.push(at.to_string()),
        _ => {}
    }
}

/// A pointer to one of kustom's bookkeeping annotations.
fn is_internal(pointer: &str) -> bool {
    pointer
        .strip_prefix("/metadata/annotations/")
        .is_some_and(|k| BUILD_ANNOTATIONS.iter().any(|b| token(b) == k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(v: Value) -> Doc {
        Doc::from_value(&v)
    }

    #[test]
    fn changes_name_added_removed_renamed_and_modified_fields() {
        let before = vec![
            doc(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "1"}}),
            ),
            doc(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gone"}})),
            doc(json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}})),
        ];
        let after = vec![
            doc(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "2", "a/b": "x"}}),
            ),
            doc(
                json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "p-s", "annotations": {
                "internal.config.kubernetes.io/previousNames": "s",
                "internal.config.kubernetes.io/previousKinds": "Service",
                "internal.config.kubernetes.io/previousNamespaces": "default"}}}),
            ),
            doc(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "new"}})),
        ];
        let got = changes(&before, &after);
        assert_eq!(
            got,
            vec![
                json!({"resource": "ConfigMap.v1.[noGrp]/a.[noNs]", "change": "modified", "fields": ["/data/k", "/data/a~1b"]}),
                json!({"resource": "Service.v1.[noGrp]/p-s.[noNs]", "change": "renamed", "from": "Service.v1.[noGrp]/s.[noNs]", "fields": ["/metadata/name"]}),
                json!({"resource": "Secret.v1.[noGrp]/new.[noNs]", "change": "added"}),
                json!({"resource": "ConfigMap.v1.[noGrp]/gone.[noNs]", "change": "removed"}),
            ]
        );
    }
}
