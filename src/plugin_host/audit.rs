//! `--audit-log FILE`: the review record of a build. One JSON object per
//! line, appended (never overwritten): one per config a plugin ran (the
//! shipped builtin runs each config in a call of its own while the log is
//! on; a third-party KEP plugin's batch stays one call and one entry with
//! all its configs), and one per resource file read, so that every field
//! of the output can be traced to the kustomization entry that set it:
//!
//! ```json
//! {"build":"6f1c…","time":"2025-01-31T12:00:00Z","kustomVersion":"0.1.0",
//!  "root":"overlays/prod","seq":3,"op":"transform",
//!  "kustomization":"/repo/overlays/prod/kustomization.yaml",
//!  "entry":"replicas[0] (name: web)","configs":[{…}],
//!  "protocol":"builtin (shipped)","plugin":"builtin (shipped)",
//!  "executable":"/usr/bin/kustom","sha256":"…","policy":{…},
//!  "durationMs":4.1,"exitStatus":0,
//!  "resources":[{"resource":"Deployment.v1.apps/web.prod","change":"modified",
//!                "fields":["/spec/replicas"],
//!                "values":[{"path":"/spec/replicas","old":1,"new":3}]}]}
//! ```
//!
//! Changes are found by comparing the resources before and after the call:
//! matched by current id, a renamed resource by the previous id the call
//! recorded; fields as JSON pointers (RFC 6901) of every value added,
//! removed or changed, with the old and new values. The values of Secrets'
//! `data` and `stringData`, SecretGenerator literals and patches of Secrets
//! are masked. kustom's internal bookkeeping annotations are left out. The
//! JSON Schema of an entry is `docs/audit-log.schema.json`.

use crate::plugin_host::sandbox::Policy;
use kustom_api::doc::Doc;
use kustom_api::protocol::BUILD_ANNOTATIONS;
use kustom_api::{resource, Error, ResId, Value};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What stands for a masked secret value.
pub const MASK: &str = "***";

/// On a builtin generator's config: its index in the kustomization's list
/// (`configMapGenerator[0]`), for the entry label.
pub const ENTRY_INDEX: &str = "internal.config.kubernetes.io/entryIndex";

/// Where entries go: a file (appended) and/or memory (for `kustom diff --explain`).
#[derive(Debug)]
struct Sink {
    path: Option<PathBuf>,
    file: Option<Mutex<std::fs::File>>,
    memory: Option<Mutex<Vec<Value>>>,
    seq: AtomicUsize,
}

/// The audit log of one build, as seen from one root.
#[derive(Debug)]
pub struct AuditLog {
    sink: Arc<Sink>,
    build: String,
    root: String,
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
    /// Open `path` for appending (created when missing).
    pub fn create(path: &Path) -> Result<AuditLog, Error> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                Error::new(format!(
                    "--audit-log {}: {e}; name a file in a writable directory",
                    path.display()
                ))
            })?;
        Ok(AuditLog::with_sink(Sink {
            path: Some(path.to_path_buf()),
            file: Some(Mutex::new(file)),
            memory: None,
            seq: AtomicUsize::new(0),
        }))
    }

    /// A log kept in memory only ([`AuditLog::entries`]).
    pub fn in_memory() -> AuditLog {
        AuditLog::with_sink(Sink {
            path: None,
            file: None,
            memory: Some(Mutex::new(Vec::new())),
            seq: AtomicUsize::new(0),
        })
    }

    /// A log that writes to `path` (appending) and keeps entries in memory.
    pub fn create_with_memory(path: &Path) -> Result<AuditLog, Error> {
        let mut log = AuditLog::create(path)?;
        let sink = Arc::get_mut(&mut log.sink).expect("a new log has one owner");
        sink.memory = Some(Mutex::new(Vec::new()));
        Ok(log)
    }

    fn with_sink(sink: Sink) -> AuditLog {
        AuditLog {
            sink: Arc::new(sink),
            build: build_id(),
            root: String::new(),
        }
    }

    /// The same log (same file, build id and sequence) for the root `root`.
    pub fn for_root(&self, root: &str) -> Arc<AuditLog> {
        Arc::new(AuditLog {
            sink: self.sink.clone(),
            build: self.build.clone(),
            root: root.to_string(),
        })
    }

    /// A log of its own kept in memory for `root`, also writing to this
    /// log's file (if any) with this build id.
    pub fn in_memory_for_root(&self, root: &str) -> Arc<AuditLog> {
        Arc::new(AuditLog {
            sink: Arc::new(Sink {
                path: self.sink.path.clone(),
                file: self
                    .sink
                    .file
                    .as_ref()
                    .and_then(|f| f.lock().ok()?.try_clone().ok())
                    .map(Mutex::new),
                memory: Some(Mutex::new(Vec::new())),
                seq: AtomicUsize::new(0),
            }),
            build: self.build.clone(),
            root: root.to_string(),
        })
    }

    /// The entries kept in memory, in the order written.
    pub fn entries(&self) -> Vec<Value> {
        self.sink
            .memory
            .as_ref()
            .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()).clone())
            .unwrap_or_default()
    }

    /// The build id every entry of this build carries.
    pub fn build_id(&self) -> &str {
        &self.build
    }

    fn write(&self, mut entry: Value) -> Result<(), Error> {
        entry["build"] = json!(self.build);
        entry["time"] = json!(now_rfc3339());
        entry["kustomVersion"] = json!(env!("CARGO_PKG_VERSION"));
        entry["root"] = json!(self.root);
        entry["seq"] = json!(self.sink.seq.fetch_add(1, Ordering::Relaxed) + 1);
        if let Some(f) = &self.sink.file {
            let mut line = serde_json::to_string(&entry).expect("JSON values always serialise");
            line.push('\n');
            let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
            f.write_all(line.as_bytes()).map_err(|e| {
                Error::new(format!(
                    "writing --audit-log {}: {e}",
                    self.sink
                        .path
                        .as_deref()
                        .unwrap_or(Path::new("?"))
                        .display()
                ))
            })?;
        }
        if let Some(m) = &self.sink.memory {
            m.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
        }
        Ok(())
    }

    /// Log the resources read from a file named in a kustomization.
    pub fn record_read(
        &self,
        kustomization: &Path,
        entry: &str,
        read: &[Doc],
    ) -> Result<(), Error> {
        self.write(json!({
            "op": "read",
            "kustomization": kustomization.display().to_string(),
            "entry": format!("resources: {entry}"),
            "resources": read.iter().map(|d| json!({"resource": d.id().to_string(), "change": "added"})).collect::<Vec<_>>(),
        }))
    }

    /// Log a remote base opened by a kustomization: its URL as written and
    /// the directory of its checkout, so that entries of kustomizations
    /// inside it can be named by the URL.
    pub fn record_remote(&self, kustomization: &Path, url: &str, dir: &Path) -> Result<(), Error> {
        self.write(json!({
            "op": "read",
            "kustomization": kustomization.display().to_string(),
            "entry": format!("resources: {url}"),
            "remote": {"url": url, "dir": dir.display().to_string()},
            "resources": [],
        }))
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
            "protocol": call.protocol,
            "plugin": call.plugin,
            "executable": call.executable.display().to_string(),
            "sha256": call.sha256,
            "op": call.op,
            "kustomization": call.kustomization.display().to_string(),
            "entry": call.configs.iter().map(entry_label).collect::<Vec<_>>().join("; "),
            "configs": call.configs.iter().map(masked_config).collect::<Vec<_>>(),
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
        self.write(entry)
    }
}

/// Which kustomization entry a config stands for: `patches[1] (path:
/// p.yaml)`, `images[0] (name: nginx)`, `configMapGenerator[0] (name: cfg)`,
/// or for a plugin's own config its kind, name and apiVersion.
pub fn entry_label(config: &Value) -> String {
    let name = resource::name(config);
    let indexed = |field: &str| match name.rsplit_once('-') {
        Some((f, i)) if f == field && i.parse::<usize>().is_ok() => format!("{field}[{i}]"),
        _ => field.to_string(),
    };
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let with = |label: String, what: &str, detail: String| {
        if detail.is_empty() {
            label
        } else {
            format!("{label} ({what}: {detail})")
        }
    };
    if resource::api_version(config) != crate::plugin_host::BUILTIN_GROUP {
        return format!(
            "{} {} ({})",
            resource::kind(config),
            name,
            resource::api_version(config)
        );
    }
    // Generators are named for what they make; their place in the list
    // comes in an annotation (see ENTRY_INDEX).
    let listed = |field: &str| match resource::annotation(config, ENTRY_INDEX) {
        Some(i) => format!("{field}[{i}]"),
        None => field.to_string(),
    };
    match resource::kind(config) {
        "ConfigMapGenerator" => with(listed("configMapGenerator"), "name", name.into()),
        "SecretGenerator" => with(listed("secretGenerator"), "name", name.into()),
        "HelmChartInflationGenerator" => with(listed("helmCharts"), "name", name.into()),
        "PatchTransformer" => match s(config.get("path")) {
            p if !p.is_empty() => with(indexed("patches"), "path", p),
            _ => with(indexed("patches"), "inline patch on", target_label(config)),
        },
        "PatchStrategicMergeTransformer" => {
            let paths: Vec<String> = config
                .get("paths")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|p| {
                    p.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| "inline".into())
                })
                .collect();
            with("patchesStrategicMerge".into(), "paths", paths.join(", "))
        }
        "PatchJson6902Transformer" => match s(config.get("path")) {
            p if !p.is_empty() => with(indexed("patchesJson6902"), "path", p),
            _ => with(
                indexed("patchesJson6902"),
                "inline patch on",
                target_label(config),
            ),
        },
        "ImageTagTransformer" => with(
            indexed("images"),
            "name",
            s(config.get("imageTag").and_then(|t| t.get("name"))),
        ),
        "ReplicaCountTransformer" => with(
            indexed("replicas"),
            "name",
            s(config.get("replica").and_then(|t| t.get("name"))),
        ),
        "PrefixTransformer" => with("namePrefix".into(), "value", s(config.get("prefix"))),
        "SuffixTransformer" => with("nameSuffix".into(), "value", s(config.get("suffix"))),
        "NamespaceTransformer" => with(
            "namespace".into(),
            "value",
            s(config.get("metadata").and_then(|m| m.get("namespace"))),
        ),
        "LabelTransformer" if name == "managedByLabel" => "--enable-managedby-label".into(),
        "LabelTransformer" if name == "commonLabels" => "commonLabels".into(),
        "LabelTransformer" => indexed("labels"),
        "AnnotationsTransformer" => "commonAnnotations".into(),
        "ReplacementTransformer" => "replacements".into(),
        "HashTransformer" => "name hash suffixes of generated objects".into(),
        "NameReferenceTransformer" => "references to renamed objects".into(),
        "RefVarTransformer" | "VarMatchingTransformer" => "vars".into(),
        kind => format!("{kind} {name}"),
    }
}

fn target_label(config: &Value) -> String {
    let Some(t) = config.get("target").and_then(Value::as_object) else {
        return String::new();
    };
    ["kind", "name"]
        .iter()
        .filter_map(|k| t.get(*k).and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("/")
}

/// A config as logged: SecretGenerator literals and patches of Secrets masked.
pub fn masked_config(config: &Value) -> Value {
    let mut c = config.clone();
    if resource::kind(config) == "SecretGenerator" {
        if let Some(ls) = c.get_mut("literals").and_then(Value::as_array_mut) {
            for l in ls {
                if let Some(text) = l.as_str() {
                    let key = text.split_once('=').map_or(text, |(k, _)| k);
                    *l = json!(format!("{key}={MASK}"));
                }
            }
        }
    }
    let targets_secret = may_target_secrets(config);
    for field in ["patch", "jsonOp"] {
        if let Some(Value::String(p)) = c.get_mut(field) {
            if targets_secret || p.contains("Secret") {
                *p = format!("{MASK} (a patch that may touch a Secret)");
            }
        }
    }
    crate::plugin_host::pem::tokenize_all(&mut c);
    c
}

/// Whether a patch config's `target` may select a Secret: it names kind
/// Secret, names no kind, or gives a kind pattern (kustomize matches
/// `target.kind` as a regular expression). A patch with no target selects
/// by its own text, which names the kind.
fn may_target_secrets(config: &Value) -> bool {
    let Some(target) = config.get("target").filter(|t| t.is_object()) else {
        return false;
    };
    match target.get("kind").and_then(Value::as_str) {
        None | Some("") => true,
        Some(kind) => kind == "Secret" || !kind.chars().all(|c| c.is_ascii_alphanumeric()),
    }
}

/// Whether a pointer into a resource of kind `kind` is a secret value.
pub fn is_secret_path(kind: &str, pointer: &str) -> bool {
    kind == "Secret" && (pointer.starts_with("/data") || pointer.starts_with("/stringData"))
}

/// `v` with every scalar replaced by [`MASK`].
pub fn mask_all(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), mask_all(v))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(mask_all).collect()),
        Value::Null => Value::Null,
        _ => json!(MASK),
    }
}

/// The value at `pointer`, masked when it is a secret value of a Secret.
fn value_at(r: &Value, pointer: &str) -> Value {
    let mut v = r.pointer(pointer).cloned().unwrap_or(Value::Null);
    if is_secret_path(resource::kind(r), pointer) {
        mask_all(&v)
    } else {
        crate::plugin_host::pem::tokenize_all(&mut v);
        v
    }
}

/// A new build id: 16 hex digits.
fn build_id() -> String {
    let mut bytes = [0u8; 8];
    let random = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .is_ok();
    if !random {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        bytes = (nanos ^ u64::from(std::process::id()).rotate_left(32)).to_be_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The current time in UTC, RFC 3339 with milliseconds.
pub fn now_rfc3339() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
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
                let values: Vec<Value> = if fields.is_empty() {
                    Vec::new()
                } else {
                    let (old, new) = (before[i].value(), doc.value());
                    fields
                        .iter()
                        .map(|f| json!({"path": f, "old": value_at(&old, f), "new": value_at(&new, f)}))
                        .collect()
                };
                if same.is_some() {
                    if !fields.is_empty() {
                        out.push(json!({"resource": id.to_string(), "change": "modified", "fields": fields, "values": values}));
                    }
                } else {
                    out.push(json!({"resource": id.to_string(), "change": "renamed", "from": before_ids[i].to_string(), "fields": fields, "values": values}));
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

/// The JSON pointers where `a` and `b` differ (leaves, and subtrees added
/// or removed whole), kustom's internal annotations left out.
pub fn changed_fields(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    diff("", a, b, &mut out);
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
                json!({"resource": "ConfigMap.v1.[noGrp]/a.[noNs]", "change": "modified", "fields": ["/data/k", "/data/a~1b"],
                    "values": [{"path": "/data/k", "old": "1", "new": "2"}, {"path": "/data/a~1b", "old": null, "new": "x"}]}),
                json!({"resource": "Service.v1.[noGrp]/p-s.[noNs]", "change": "renamed", "from": "Service.v1.[noGrp]/s.[noNs]", "fields": ["/metadata/name"],
                    "values": [{"path": "/metadata/name", "old": "s", "new": "p-s"}]}),
                json!({"resource": "Secret.v1.[noGrp]/new.[noNs]", "change": "added"}),
                json!({"resource": "ConfigMap.v1.[noGrp]/gone.[noNs]", "change": "removed"}),
            ]
        );
    }

    #[test]
    fn secret_values_and_literals_are_masked() {
        let before = vec![doc(
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "YQ=="}}),
        )];
        let after = vec![doc(
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "Yg==", "n": "Yw=="}}),
        )];
        let got = serde_json::to_string(&changes(&before, &after)).unwrap();
        assert!(
            !got.contains("YQ==") && !got.contains("Yg==") && !got.contains("Yw=="),
            "{got}"
        );
        assert!(got.contains(MASK), "{got}");
        let config = json!({"apiVersion": "builtin", "kind": "SecretGenerator", "metadata": {"name": "db"}, "literals": ["password=hunter2"]});
        assert_eq!(masked_config(&config)["literals"], json!(["password=***"]));
        assert_eq!(entry_label(&config), "secretGenerator (name: db)");
        let patch = json!({"apiVersion": "builtin", "kind": "PatchTransformer", "metadata": {"name": "patches-2"}, "path": "p.yaml"});
        assert_eq!(entry_label(&patch), "patches[2] (path: p.yaml)");
    }

    #[test]
    fn time_is_rfc3339() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
    }
}
