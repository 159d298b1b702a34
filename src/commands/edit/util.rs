//! Helpers the edit verbs share: globbing, `k:v` lists, string lists in the
//! kustomization object, and checking a generator entry the way kustomize
//! does (by generating it).

use super::kustfile::Kustomization;
use kustom_api::Error;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// A notice kustomize prints with Go's `log` (to STDERR); edits go on.
pub fn notice(message: impl std::fmt::Display) {
    eprintln!("{message}");
}

/// Expand glob patterns against the working directory, as Go's
/// `filepath.Glob` (sorted matches; a pattern without matches is reported
/// and skipped).
pub fn glob_patterns(patterns: &[String]) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for pattern in patterns {
        let matches = glob_one(pattern)?;
        if matches.is_empty() {
            notice(format!("{pattern} has no match"));
        }
        out.extend(matches);
    }
    Ok(out)
}

/// The matches of one pattern, as strings relative to the working directory.
fn glob_one(pattern: &str) -> Result<Vec<String>, Error> {
    let opts = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: false,
    };
    let paths = glob::glob_with(pattern, opts)
        .map_err(|e| Error::new(format!("syntax error in pattern {pattern:?}: {e}")))?;
    let mut out: Vec<String> = paths
        .filter_map(Result::ok)
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    // Go keeps a pattern without meta characters as written (`./a.yaml`).
    if out.len() == 1 && !pattern.contains(['*', '?', '[']) {
        out[0] = pattern.to_string();
    }
    Ok(out)
}

/// kustomize's `GlobPatternsWithLoader`: a pattern that matches nothing must
/// be something kustomize could load instead (a remote URL); `no_verify`
/// takes every pattern as it is.
pub fn glob_patterns_with_loader(
    patterns: &[String],
    no_verify: bool,
) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for pattern in patterns {
        if no_verify {
            out.push(pattern.clone());
            continue;
        }
        let matches = glob_one(pattern).map_err(|e| e.context("error checking the filesystem"))?;
        if !matches.is_empty() {
            out.extend(matches);
            continue;
        }
        if !is_remote(pattern) {
            return Err(Error::new(format!(
                "{pattern} has no match: must build at directory: not a valid directory: '{pattern}' doesn't exist"
            )));
        }
        out.push(pattern.clone());
    }
    Ok(out)
}

/// Whether a resource entry is a remote target kustomize would fetch.
pub fn is_remote(s: &str) -> bool {
    s.contains("://")
        || s.starts_with("git@")
        || s.starts_with("github.com/")
        || s.starts_with("gh:")
        || s.starts_with("git::")
        || s.starts_with("gitlab.com/")
        || s.starts_with("bitbucket.org/")
}

/// Go's `filepath.Match` (a `*` does not cross `/`).
pub fn path_match(pattern: &str, name: &str) -> Result<bool, Error> {
    let p = glob::Pattern::new(pattern).map_err(|_| Error::new("syntax error in pattern"))?;
    Ok(p.matches_with(
        name,
        glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        },
    ))
}

/// kustomize's `ConvertSliceToMap`: `k:v` (value optionally in double
/// quotes) or a bare `k` (empty value).
pub fn convert_slice_to_map(
    inputs: &[String],
    kind: &str,
) -> Result<BTreeMap<String, String>, Error> {
    let mut out = BTreeMap::new();
    for input in inputs {
        match input.find(':') {
            Some(0) => {
                return Err(Error::new(format!(
                    "invalid {kind}: '{input}' (need k:v pair where v may be quoted)"
                )))
            }
            None => {
                out.insert(input.clone(), String::new());
            }
            Some(c) => {
                let value = &input[c + 1..];
                let value = if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
                    &value[1..value.len() - 1]
                } else {
                    value
                };
                out.insert(input[..c].to_string(), value.to_string());
            }
        }
    }
    Ok(out)
}

/// The strings of a list field (empty when absent).
pub fn strings(k: &Kustomization, field: &str) -> Vec<String> {
    match k.get(field) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// Replace a list field (removed when `None`).
pub fn set_strings(k: &mut Kustomization, field: &str, items: Option<Vec<String>>) {
    match items {
        Some(items) => {
            k.insert(
                field.to_string(),
                Value::Array(items.into_iter().map(Value::String).collect()),
            );
        }
        None => {
            k.remove(field);
        }
    }
}

/// The objects of a list field, mutable, created when absent.
pub fn objects_mut<'a>(k: &'a mut Kustomization, field: &str) -> &'a mut Vec<Value> {
    let v = k
        .entry(field.to_string())
        .or_insert_with(|| Value::Array(Vec::new()));
    if !v.is_array() {
        *v = Value::Array(Vec::new());
    }
    match v {
        Value::Array(a) => a,
        _ => unreachable!("just made an array"),
    }
}

/// A string map field, mutable, created when absent.
pub fn map_mut<'a>(k: &'a mut Map<String, Value>, field: &str) -> &'a mut Map<String, Value> {
    let v = k
        .entry(field.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !v.is_object() {
        *v = Value::Object(Map::new());
    }
    match v {
        Value::Object(m) => m,
        _ => unreachable!("just made a map"),
    }
}

/// A string field of an object ("" when absent).
pub fn str_of<'a>(o: &'a Value, field: &str) -> &'a str {
    o.get(field).and_then(Value::as_str).unwrap_or("")
}

/// kustomize's `NamespaceEqual`: an empty namespace is `default`.
pub fn namespace_equal(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        if s.is_empty() {
            "default".to_string()
        } else {
            s.to_string()
        }
    };
    norm(a) == norm(b)
}

/// Generate a ConfigMap or Secret from a generator entry (with the
/// kustomization's `generatorOptions` merged in, as kustomize does before
/// writing), to fail on what the build would fail on.
pub fn check_generator(kind: &str, args: &Value) -> Result<(), Error> {
    let mut config = args.as_object().cloned().unwrap_or_default();
    config.insert("apiVersion".into(), Value::String("builtin".into()));
    config.insert("kind".into(), Value::String(kind.into()));
    let generate = kustom_builtin::generator(kind)
        .ok_or_else(|| Error::new(format!("no builtin generator {kind}")))?;
    let root = std::env::current_dir().unwrap_or_else(|_| Path::new(".").to_path_buf());
    let ctx = kustom_builtin::Ctx {
        kustomization: root.join("kustomization.yaml").display().to_string(),
        root,
        load_restrictor: kustom_builtin::ctx::LoadRestrictor::RootOnly,
        remote_files: Default::default(),
        version: kustom_api::KustomizeVersion::choose(None)?,
    };
    generate(&Value::Object(config), &ctx).map(|_| ())
}

/// kustomize's `MergeGlobalOptionsIntoLocal`, applied to an entry's
/// `options` (which the edited file then keeps).
pub fn merge_global_options(entry: &mut Map<String, Value>, global: Option<&Value>) {
    let Some(Value::Object(global)) = global else {
        return;
    };
    let local = map_mut(entry, "options");
    for key in ["labels", "annotations"] {
        if let Some(Value::Object(g)) = global.get(key) {
            let l = map_mut(local, key);
            // The entry's own value wins over the global one.
            for (k, v) in g {
                l.entry(k.clone()).or_insert_with(|| v.clone());
            }
            if l.is_empty() {
                local.remove(key);
            }
        }
    }
    for key in ["disableNameSuffixHash", "immutable"] {
        if global.get(key) == Some(&Value::Bool(true)) {
            local.insert(key.into(), Value::Bool(true));
        }
    }
}

/// Whether the working directory holds this path.
pub fn exists(path: &str) -> bool {
    Path::new(path).exists()
}
