//! `kustom edit fix --vars`: each `vars` entry becomes a `replacements`
//! entry whose targets are the fields that mention `$(NAME)` in the
//! resource and patch files the kustomization (and the kustomizations of
//! its directory resources) lists; the mentions become `NAME_PLACEHOLDER`
//! in those files. kustomize v5.5.0's conversion, quirks included (existing
//! replacements are dropped; nested directories are looked up from the
//! working directory), except that nothing is written when a var cannot be
//! converted: kustomize leaves the files of the vars before it rewritten.

use super::kustfile::{decode, Kustomization};
use super::util::str_of;
use kustom_api::paths::join;
use kustom_api::Error;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Names a directory resource's kustomization may have (kustomize's list).
const KUSTOMIZATION_NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// A file the conversion reads: its path from the working directory and, for
/// a patch, the patch entry that names it.
struct Touched {
    path: String,
    patch: Option<Value>,
}

/// The files read and rewritten, by path; None when unreadable.
#[derive(Default)]
struct Files {
    contents: HashMap<String, Option<String>>,
    changed: Vec<String>,
}

impl Files {
    fn get(&mut self, path: &str) -> Option<&str> {
        self.contents
            .entry(path.to_string())
            .or_insert_with(|| std::fs::read_to_string(path).ok())
            .as_deref()
    }

    fn set(&mut self, path: &str, text: String) {
        if !self.changed.iter().any(|p| p == path) {
            self.changed.push(path.to_string());
        }
        self.contents.insert(path.to_string(), Some(text));
    }
}

/// Convert `vars` into `replacements` in `k` and rewrite the files that use
/// them. Nothing happens when the kustomization has no `vars` field.
pub fn convert(k: &mut Kustomization) -> Result<(), Error> {
    let Some(Value::Array(vars)) = k.remove("vars") else {
        return Ok(());
    };
    let touched = touched_files(k, "")?;
    // By path, as kustomize looks patches up: a file that is also listed as
    // a resource counts as the (last listed) patch there too.
    let patches: HashMap<&str, &Value> = touched
        .iter()
        .filter_map(|t| Some((t.path.as_str(), t.patch.as_ref()?)))
        .collect();
    let mut files = Files::default();
    let mut replacements = Vec::new();
    for var in &vars {
        let name = str_of(var, "name");
        let mention = format!("$({name})");
        let mut targets = Vec::new();
        for file in &touched {
            let Some(text) = files.get(&file.path) else {
                continue;
            };
            // Files that are not YAML give no targets but still get the
            // placeholder below, as kustomize's text replacement does.
            let Ok(docs) = kustom_api::yaml::scalars_in_order(text) else {
                continue;
            };
            for doc in &docs {
                let mut found = Vec::new();
                for (path, value) in doc {
                    if value.contains(&mention) {
                        let options = field_options(value, &mention)
                            .map_err(|e| Error::new(format!("error with {}: {e}", file.path)))?;
                        found.push((field_path(path), options));
                    }
                }
                targets.extend(make_targets(
                    patches.get(file.path.as_str()).copied(),
                    doc,
                    found,
                ));
            }
        }
        replacements.push(replacement(var, targets));
        let placeholder = format!("{name}_PLACEHOLDER");
        for file in &touched {
            if let Some(text) = files.get(&file.path) {
                if text.contains(&mention) {
                    let new = text.replace(&mention, &placeholder);
                    files.set(&file.path, new);
                }
            }
        }
    }
    for path in &files.changed {
        if let Some(Some(text)) = files.contents.get(path) {
            std::fs::write(path, text).map_err(|e| Error::new(format!("writing {path}: {e}")))?;
        }
    }
    k.insert("replacements".into(), Value::Array(replacements));
    Ok(())
}

/// The resource and patch files of `k` (kustomize's
/// `filesTouchedByKustomize`): each resource (after the files of its
/// kustomization when it is a directory), then each patch file. `dir` is
/// the prefix of the file paths; directories are looked up from the working
/// directory with the name as written, as kustomize does.
fn touched_files(k: &Kustomization, dir: &str) -> Result<Vec<Touched>, Error> {
    let mut out = Vec::new();
    let list = |field: &str| -> Vec<Value> {
        match k.get(field) {
            Some(Value::Array(a)) => a.clone(),
            _ => Vec::new(),
        }
    };
    for r in list("resources") {
        let Some(r) = r.as_str() else { continue };
        if let Ok(entries) = std::fs::read_dir(r) {
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            for name in names
                .iter()
                .filter(|n| KUSTOMIZATION_NAMES.contains(&n.as_str()))
            {
                let file = join(r, name);
                let Ok(text) = std::fs::read_to_string(&file) else {
                    continue;
                };
                let sub = decode(&text).map_err(|e| Error::new(format!("{file}: {e}")))?;
                out.extend(touched_files(&sub, r)?);
            }
        }
        out.push(Touched {
            path: join(dir, r),
            patch: None,
        });
    }
    for p in list("patches") {
        let path = str_of(&p, "path");
        if !path.is_empty() {
            out.push(Touched {
                path: join(dir, path),
                patch: Some(p.clone()),
            });
        }
    }
    Ok(out)
}

/// The replacement field path of a scalar: keys and indexes joined by dots,
/// a key with a dot in brackets.
fn field_path(path: &[String]) -> String {
    let parts: Vec<String> = path
        .iter()
        .map(|p| {
            let p = p.trim();
            if p.contains('.') {
                format!("[{p}]")
            } else {
                p.to_string()
            }
        })
        .collect();
    parts.join(".")
}

/// The delimiter and index that locate `mention` in `value` (none when the
/// value is exactly the mention). The delimiter is the byte next to the
/// mention (after it when it starts the value, else before it); in the
/// middle of the value both neighbours must agree.
fn field_options(value: &str, mention: &str) -> Result<Option<(String, usize)>, String> {
    if value == mention {
        return Ok(None);
    }
    let bytes = value.as_bytes();
    let at = value.find(mention).unwrap_or(0);
    let after = at + mention.len();
    // Go's string(byte): the byte as a code point.
    let byte = |i: usize| char::from(bytes[i]).to_string();
    let (delimiter, index) = if at == 0 {
        (byte(after), 0)
    } else if after >= bytes.len() {
        let d = byte(at - 1);
        let n = value.split(d.as_str()).count();
        (d, n - 1)
    } else {
        let (pre, post) = (byte(at - 1), byte(after));
        if pre != post {
            return Err(format!(
                "cannot convert all vars to replacements; {mention} is not delimited"
            ));
        }
        let index = value
            .split(pre.as_str())
            .position(|part| part == mention)
            .ok_or_else(|| format!("internal error: could not get index of var {mention}"))?;
        (pre, index)
    };
    Ok(Some((delimiter, index)))
}

/// The scalar at a top-level path of a document ("" when absent).
fn doc_str<'a>(doc: &'a [(Vec<String>, String)], path: &[&str]) -> &'a str {
    doc.iter()
        .find(|(p, _)| p.len() == path.len() && p.iter().zip(path).all(|(a, b)| a == b))
        .map(|(_, v)| v.as_str())
        .unwrap_or("")
}

/// Split an apiVersion into group and version at its first slash.
fn group_version(api_version: &str) -> (&str, &str) {
    api_version.split_once('/').unwrap_or(("", api_version))
}

/// Insert `key` when `value` is not empty (Go's omitempty).
fn put(m: &mut Map<String, Value>, key: &str, value: &str) {
    if !value.is_empty() {
        m.insert(key.into(), Value::String(value.into()));
    }
}

/// One target per found field. A field of a patch file selects what the
/// patch targets (unless the patch may change both name and kind); any other
/// selects the document it is in.
fn make_targets(
    patch: Option<&Value>,
    doc: &[(Vec<String>, String)],
    found: Vec<(String, Option<(String, usize)>)>,
) -> Vec<Value> {
    let name = doc_str(doc, &["metadata", "name"]);
    let namespace = doc_str(doc, &["metadata", "namespace"]);
    let kind = doc_str(doc, &["kind"]);
    let mut select = Map::new();
    match patch {
        Some(p) if !(allowed(p, "allowNameChange") && allowed(p, "allowKindChange")) => {
            if let Some(Value::Object(t)) = p.get("target") {
                for (key, v) in t {
                    put(&mut select, key, v.as_str().unwrap_or(""));
                }
            }
            if allowed(p, "allowNameChange") {
                select.insert("name".into(), Value::String(name.into()));
            }
            if allowed(p, "allowKindChange") {
                select.insert("kind".into(), Value::String(kind.into()));
            }
            put(&mut select, "namespace", namespace);
        }
        _ => {
            put(&mut select, "name", name);
            put(&mut select, "namespace", namespace);
            put(&mut select, "kind", kind);
            let (group, version) = group_version(doc_str(doc, &["apiVersion"]));
            put(&mut select, "group", group);
            put(&mut select, "version", version);
        }
    }
    // Go's omitempty drops the empty strings set from the document above.
    select.retain(|_, v| v.as_str() != Some(""));
    found
        .into_iter()
        .map(|(path, options)| {
            let mut t = Map::new();
            t.insert("fieldPaths".into(), Value::Array(vec![Value::String(path)]));
            if let Some((delimiter, index)) = options {
                let mut o = Map::new();
                o.insert("delimiter".into(), Value::String(delimiter));
                if index != 0 {
                    o.insert("index".into(), Value::from(index));
                }
                t.insert("options".into(), Value::Object(o));
            }
            if !select.is_empty() {
                t.insert("select".into(), Value::Object(select.clone()));
            }
            Value::Object(t)
        })
        .collect()
}

/// Whether a patch's option is set.
fn allowed(patch: &Value, option: &str) -> bool {
    patch
        .get("options")
        .and_then(|o| o.get(option))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// The replacement of one var: its object and field as source.
fn replacement(var: &Value, targets: Vec<Value>) -> Value {
    let mut source = Map::new();
    let objref = var.get("objref").cloned().unwrap_or(Value::Null);
    let (group, version) = group_version(str_of(&objref, "apiVersion"));
    put(&mut source, "group", group);
    put(&mut source, "version", version);
    put(&mut source, "kind", str_of(&objref, "kind"));
    put(&mut source, "name", str_of(&objref, "name"));
    put(&mut source, "namespace", str_of(&objref, "namespace"));
    let fieldref = var.get("fieldref").cloned().unwrap_or(Value::Null);
    put(&mut source, "fieldPath", str_of(&fieldref, "fieldPath"));
    let mut r = Map::new();
    // A pointer to a struct: present (as `{}`) even when empty.
    r.insert("source".into(), Value::Object(source));
    if !targets.is_empty() {
        r.insert("targets".into(), Value::Array(targets));
    }
    Value::Object(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(value: &str) -> Result<Option<(String, usize)>, String> {
        field_options(value, "$(V)")
    }

    #[test]
    fn locates_the_mention_by_its_neighbours() {
        assert_eq!(opts("$(V)"), Ok(None));
        assert_eq!(opts("$(V).svc"), Ok(Some((".".into(), 0))));
        assert_eq!(opts("a/b/$(V)"), Ok(Some(("/".into(), 2))));
        assert_eq!(opts("x-$(V)-y-z"), Ok(Some(("-".into(), 1))));
        assert!(opts("x=$(V)-y").unwrap_err().contains("is not delimited"));
        // The mention must be a whole piece between delimiters.
        assert!(opts("a:b$(V)c:d").is_err());
    }

    #[test]
    fn dotted_keys_are_bracketed() {
        let path = ["metadata", "labels", "app.kubernetes.io/name"].map(String::from);
        assert_eq!(
            field_path(&path),
            "metadata.labels.[app.kubernetes.io/name]"
        );
        assert_eq!(field_path(&["a", "0", "b"].map(String::from)), "a.0.b");
    }

    #[test]
    fn source_from_objref_and_fieldref() {
        let var = serde_json::json!({"name": "V", "objref": {"apiVersion": "apps/v1",
            "kind": "Deployment", "name": "web", "namespace": "ns"},
            "fieldref": {"fieldPath": "spec.replicas"}});
        let r = replacement(&var, Vec::new());
        assert_eq!(
            r,
            serde_json::json!({"source": {"group": "apps", "version": "v1", "kind": "Deployment",
                "name": "web", "namespace": "ns", "fieldPath": "spec.replicas"}})
        );
    }
}
