//! `ValueAddTransformer` {value, targets: [{selector, fieldPath,
//! filePathPosition}], targetFilePath}: write one value into chosen fields
//! of chosen resources, either as the whole field or as a new part of a
//! file-path-like field.
//!
//! - `value` is trimmed; when empty it is the name of the kustomization
//!   directory (the last element of the root path), so one transformer
//!   config shared by `projects/dog-222` and `projects/cat-111` writes
//!   `dog-222` and `cat-111` respectively.
//! - `targetFilePath` names a file (relative to the kustomization root,
//!   under the load restrictor) whose `targets:` are added after the
//!   config's own. At least one target is required; a target needs a
//!   `fieldPath`, and `filePathPosition` may not be negative.
//! - A target without a `selector` takes every resource; otherwise the
//!   selector works as in patch targets. Targets run in order.
//! - `fieldPath: metadata/namespace` (exactly) sets the namespace the way
//!   kustomize's namespace filter does with no field specs: on every kind
//!   not known to be cluster-scoped, as a string, plus the namespace of
//!   RoleBinding / ClusterRoleBinding subjects named `default`. Unlike the
//!   `NamespaceTransformer` it keeps no record of the previous namespace.
//! - Any other `fieldPath` is split at `/` (`\/` is a literal slash), parts
//!   are trimmed and empty ones dropped, and it is walked as kyaml's
//!   `PathGetter` with creation does: `[key=value]` / `[=value]` pick the
//!   first matching list element and append one when none matches, a
//!   number picks an element by index (never created), `-` the last
//!   element; missing mapping fields are created. Under a null field
//!   nothing is changed. The field reached must be a scalar.
//! - With `filePathPosition` 0 the field becomes the value. With N > 0 the
//!   value is inserted into the field's text, read as a `/`-separated path,
//!   before its (N-1)th part (0 = in front; past the end = at the end) and
//!   the result is cleaned like Go's `filepath.Join` (`projects` with
//!   position 2 → `projects/dog-222`).
//! - The new text carries no YAML tag, so where the old value was plain it
//!   is typed as YAML would read it (`80` becomes a number), as in
//!   kustomize.
//!
//! Where kustomize v5.5.0 crashes (a position given and a null field on the
//! way, `-` on an empty list) this returns an error. A null leaf's text is
//! taken to be empty (kustomize uses its spelling: `null`, `~` or nothing).

use super::prefix_suffix::set_untagged_scalar;
use crate::selecting::path_elements::{self, atoi, is_index, is_list_selector, split_selector};
use crate::selecting::target::{select_with, Selector};
use crate::Ctx;
use kustom_api::fieldspec::{config_str_field, config_string, split_path, visit_fields, FieldSpec};
use kustom_api::{err, resource, yaml, Error, Gvk, Value};

/// The field path that means "the resource's namespace".
const NAMESPACE_PATH: &str = "metadata/namespace";

/// One entry of `targets:`.
#[derive(Debug, Clone, PartialEq)]
struct Target {
    /// Which resources; `None` is all of them.
    selector: Option<Selector>,
    /// The field, `/`-separated.
    field_path: String,
    /// 0: replace the field; N > 0: insert as path part N-1.
    file_path_position: i64,
}

/// The transformer's settings, validated.
#[derive(Debug, Clone, PartialEq)]
struct Settings {
    value: String,
    targets: Vec<Target>,
}

impl Settings {
    fn from_config(config: &Value, ctx: &Ctx) -> Result<Settings, Error> {
        let mut value = config_str_field(config, "value")?.trim().to_string();
        if value.is_empty() {
            value = go_base(&ctx.root.to_string_lossy());
        }
        let mut targets = read_targets(config.get("targets"), "ValueAddTransformerPlugin")?;
        let file = config_str_field(config, "targetFilePath")?;
        if !file.is_empty() {
            let text = ctx.read_to_string(&file)?;
            let doc = yaml::parse_stream(&text)
                .map_err(|e| e.context(format!("targetFilePath {file}")))?
                .into_iter()
                .next()
                .unwrap_or(Value::Null);
            let listed = match &doc {
                Value::Null => None,
                Value::Object(map) => map.get("targets"),
                other => {
                    return Err(err!(
                        "targetFilePath {file}: json: cannot unmarshal {} into Go value of type struct {{ Targets []builtins.Target }}",
                        kustom_api::resource::go_json_type(other)
                    ))
                }
            };
            let more = read_targets(listed, "")
                .map_err(|e| e.context(format!("targetFilePath {file}")))?;
            targets.extend(more);
        }
        if targets.is_empty() {
            return Err(err!("must specify at least one target"));
        }
        for target in &targets {
            if target.field_path.is_empty() {
                return Err(err!("fieldPath cannot be empty"));
            }
            if target.file_path_position < 0 {
                return Err(err!(
                    "value of FilePathPosition ({}) cannot be negative",
                    target.file_path_position
                ));
            }
        }
        Ok(Settings { value, targets })
    }
}

/// A `targets:` list; `owner` names the Go struct in error messages.
fn read_targets(value: Option<&Value>, owner: &str) -> Result<Vec<Target>, Error> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().map(read_target).collect(),
        Some(other) => Err(err!(
            "json: cannot unmarshal {} into Go struct field {owner}.targets of type []builtins.Target",
            kustom_api::resource::go_json_type(other)
        )),
    }
}

/// One target; a null entry is the zero target (and fails validation).
fn read_target(value: &Value) -> Result<Target, Error> {
    let map = match value {
        Value::Null => {
            return Ok(Target {
                selector: None,
                field_path: String::new(),
                file_path_position: 0,
            })
        }
        Value::Object(map) => map,
        other => {
            return Err(err!(
                "json: cannot unmarshal {} into Go value of type builtins.Target",
                kustom_api::resource::go_json_type(other)
            ))
        }
    };
    let selector = match map.get("selector") {
        None | Some(Value::Null) => None,
        Some(s) => Some(Selector::from_value(s).map_err(|e| e.context("target selector"))?),
    };
    let field_path = match map.get("fieldPath") {
        None => String::new(),
        Some(v) => config_string(v).map_err(|e| e.context("target fieldPath"))?,
    };
    let file_path_position = read_position(map.get("filePathPosition"))?;
    Ok(Target {
        selector,
        field_path,
        file_path_position,
    })
}

/// `filePathPosition`: an integer (a float with no fraction counts, as it
/// does after kustomize's YAML-to-JSON step); null or absent is 0.
fn read_position(value: Option<&Value>) -> Result<i64, Error> {
    let bad = |what: String| {
        err!("json: cannot unmarshal {what} into Go struct field Target.targets.filePathPosition of type int")
    };
    match value {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => {
            if let Some(i) = n.as_i64() {
                return Ok(i);
            }
            match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64 => {
                    Ok(f as i64)
                }
                _ => Err(bad(format!("number {n}"))),
            }
        }
        Some(other) => Err(bad(kustom_api::resource::go_json_type(other).to_string())),
    }
}

// ---------------------------------------------------------------------------
// Paths as Go's path/filepath handles them (always `/`-separated here)
// ---------------------------------------------------------------------------

use kustom_api::paths::clean as go_clean;

/// Go's `filepath.Join`: the non-empty elements joined and cleaned; empty
/// when every element is.
fn go_join<S: AsRef<str>>(parts: &[S]) -> String {
    let kept: Vec<&str> = parts
        .iter()
        .map(AsRef::as_ref)
        .filter(|p| !p.is_empty())
        .collect();
    if kept.is_empty() {
        return String::new();
    }
    go_clean(&kept.join("/"))
}

/// Go's `filepath.Base`: the last element, trailing slashes ignored; `.`
/// for an empty path and `/` for the root.
fn go_base(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".to_string();
    }
    match trimmed.rfind('/') {
        Some(i) => trimmed[i + 1..].to_string(),
        None => trimmed.to_string(),
    }
}

/// kyaml's `PathSplit`: the path's elements, a leading empty one marking an
/// absolute path (`/a/b` → ["", "a", "b"], `a//b` → ["a", "", "b"]).
fn path_split(path: &str) -> Vec<String> {
    let mut reversed: Vec<String> = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        let (dir, file) = match rest.rfind('/') {
            Some(i) => (&rest[..=i], &rest[i + 1..]),
            None => ("", rest),
        };
        if dir == "/" {
            if !file.is_empty() {
                reversed.push(file.to_string());
            }
            reversed.push(String::new());
            break;
        }
        reversed.push(file.to_string());
        rest = dir.strip_suffix('/').unwrap_or(dir);
    }
    reversed.reverse();
    reversed
}

/// kyaml's `PathJoin`, the inverse of [`path_split`].
fn path_join(parts: &[String]) -> String {
    match parts.split_first() {
        None => String::new(),
        Some((first, rest)) if first.is_empty() => format!("/{}", go_join(rest)),
        Some(_) => go_join(parts),
    }
}

/// kyaml's `InsertPathPart`: `part` inserted into `path` so that it becomes
/// element `pos` (clamped to the path's length; an absolute path's root
/// does not count), the result cleaned. An empty part changes nothing.
fn insert_path_part(path: &str, pos: usize, part: &str) -> String {
    if part.is_empty() {
        return path.to_string();
    }
    let mut parts = path_split(path);
    let mut pos = pos.min(parts.len());
    if parts.first().is_some_and(String::is_empty) && pos < parts.len() {
        pos += 1;
    }
    parts.insert(pos, part.to_string());
    path_join(&parts)
}

// ---------------------------------------------------------------------------
// Walking a field path
// ---------------------------------------------------------------------------

/// kyaml's "wrong node kind" error, with the node's contents.
fn wrong_kind(expected: &str, node: &Value) -> Error {
    path_elements::wrong_kind(expected, node, &yaml::to_yaml(node))
}

/// The text of a scalar node. A null's spelling is lost in the JSON model;
/// it is taken as empty (a blank field).
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null | Value::Object(_) | Value::Array(_) => String::new(),
    }
}

/// The field path's parts: split at unescaped `/`, trimmed, empties dropped.
fn path_parts(field_path: &str) -> Vec<String> {
    split_path(field_path)
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Called with the field a walk reaches: `None` when there is none (a null
/// on the way, an index past the end), else the field and, for a scalar the
/// walk itself made, its exact text.
type Finish<'f> = dyn FnMut(Option<(&mut Value, Option<&str>)>) -> Result<(), Error> + 'f;

/// Walk `parts` below `node` as kyaml's `PathGetter` with creation does.
/// `made` is the text of a scalar this walk created (`Some("")` for a new
/// empty leaf), which a null placeholder in `node` stands for.
fn walk(
    node: &mut Value,
    made: Option<&str>,
    parts: &[String],
    finish: &mut Finish<'_>,
) -> Result<(), Error> {
    let Some((part, rest)) = parts.split_first() else {
        return finish(Some((node, made)));
    };
    // A scalar the walk created is never null, whatever its JSON stand-in.
    let is_null = node.is_null() && made.is_none();
    if let Some(index) = atoi(part) {
        if index < 0 {
            return Err(err!("array index {index} cannot be negative"));
        }
        return match node {
            _ if is_null => finish(None),
            Value::Array(items) => match usize::try_from(index).ok().and_then(|i| items.get_mut(i))
            {
                Some(item) => walk(item, None, rest, finish),
                None => finish(None),
            },
            other => Err(wrong_kind("SequenceNode", other)),
        };
    }
    if part == "-" {
        return match node {
            Value::Array(items) if !items.is_empty() => match items.last_mut() {
                Some(item) => walk(item, None, rest, finish),
                None => finish(None),
            },
            // kustomize indexes an empty list here and crashes.
            Value::Array(_) => Err(err!("'-' (the last element) of an empty list")),
            _ if is_null => Err(err!("'-' (the last element) of a null field")),
            other => Err(wrong_kind("SequenceNode", other)),
        };
    }
    if part == "*" {
        return Err(err!("wildcard is not supported in PathGetter"));
    }
    if is_list_selector(part) {
        let (key, wanted) = split_selector(part)?;
        // What is appended when no element matches.
        let (new_elem, new_text) = if key.is_empty() {
            (yaml::plain_scalar_value(wanted), Some(wanted))
        } else {
            let mut map = kustom_api::Map::new();
            map.insert(key.to_string(), yaml::plain_scalar_value(wanted));
            (Value::Object(map), None)
        };
        return match node {
            _ if is_null => {
                // kyaml appends to the null node's content, which is never
                // written out: the walk goes on with no visible effect.
                let mut detached = new_elem;
                walk(&mut detached, new_text, rest, finish)
            }
            Value::Array(items) => {
                let found = items.iter().position(|item| {
                    if key.is_empty() {
                        return scalar_text(item) == wanted;
                    }
                    match item {
                        Value::Object(map) => {
                            map.get(key).is_some_and(|v| scalar_text(v) == wanted)
                        }
                        _ => false,
                    }
                });
                let (index, text) = match found {
                    Some(i) => (i, None),
                    None => {
                        items.push(new_elem);
                        (items.len() - 1, new_text)
                    }
                };
                match items.get_mut(index) {
                    Some(item) => walk(item, text, rest, finish),
                    None => finish(None),
                }
            }
            other => Err(wrong_kind("SequenceNode", other)),
        };
    }
    match node {
        // kyaml never looks into null fields, even when creating.
        _ if is_null => finish(None),
        Value::Object(map) => {
            if !map.contains_key(part.as_str()) {
                // Created by what comes next: a list before an index or
                // selector, an empty scalar at the end, a mapping otherwise.
                let next = rest.first().map(String::as_str);
                let new = match next {
                    None => Value::Null,
                    Some(n) if is_list_selector(n) || is_index(n) => Value::Array(Vec::new()),
                    Some(_) => Value::Object(kustom_api::Map::new()),
                };
                map.insert(part.clone(), new);
                let made = if rest.is_empty() { Some("") } else { None };
                return match map.get_mut(part.as_str()) {
                    Some(child) => walk(child, made, rest, finish),
                    None => finish(None),
                };
            }
            match map.get_mut(part.as_str()) {
                Some(child) => walk(child, None, rest, finish),
                None => finish(None),
            }
        }
        other => Err(wrong_kind("MappingNode", other)),
    }
}

/// Write the value into the field `target.field_path` names in `obj`.
fn add_value(obj: &mut Value, value: &str, target: &Target) -> Result<(), Error> {
    let position = target.file_path_position;
    let parts = path_parts(&target.field_path);
    walk(obj, None, &parts, &mut |reached| {
        let Some((field, made)) = reached else {
            if position > 0 {
                // kustomize dereferences the missing field and crashes.
                return Err(err!(
                    "fieldPath {}: no field to insert a path part into (a field on the way is null or a list is too short)",
                    target.field_path
                ));
            }
            return Ok(());
        };
        if matches!(field, Value::Object(_) | Value::Array(_)) && made.is_none() {
            return Err(wrong_kind("ScalarNode", field));
        }
        let new = if position > 0 {
            let old = made.map_or_else(|| scalar_text(field), str::to_string);
            let pos = usize::try_from(position - 1).unwrap_or(usize::MAX);
            insert_path_part(&old, pos, value)
        } else {
            value.to_string()
        };
        set_untagged_scalar(field, new);
        Ok(())
    })
}

/// Set a namespace field: always a string.
fn set_namespace_field(field: &mut Value, namespace: &str) -> Result<(), Error> {
    if matches!(field, Value::Object(_) | Value::Array(_)) {
        return Err(wrong_kind("ScalarNode", field));
    }
    *field = Value::String(namespace.to_string());
    Ok(())
}

/// kustomize's namespace filter with no field specs: `metadata.namespace`
/// of namespaced kinds, and RoleBinding / ClusterRoleBinding subjects named
/// `default`.
fn set_namespace(obj: &mut Value, namespace: &str) -> Result<(), Error> {
    let gvk = Gvk::from_api_version(resource::api_version(obj), resource::kind(obj));
    if !gvk.is_cluster_scoped() {
        let spec = FieldSpec {
            path: NAMESPACE_PATH.into(),
            create: true,
            ..Default::default()
        };
        let blank = Value::String(String::new());
        visit_fields(obj, &spec, Some(&blank), &mut |f| {
            set_namespace_field(f, namespace)
        })?;
    }
    if gvk.kind != "RoleBinding" && gvk.kind != "ClusterRoleBinding" {
        return Ok(());
    }
    let wrap = |e: Error| e.context("setting namespace on (cluster)role binding subjects");
    let subjects = match obj.get_mut("subjects") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(items)) => items,
        Some(other) => return Err(wrap(wrong_kind("SequenceNode", other))),
    };
    for subject in subjects.iter_mut() {
        let map = match subject {
            Value::Null => continue,
            Value::Object(map) => map,
            other => return Err(wrap(wrong_kind("MappingNode", other))),
        };
        if map.get("name").and_then(Value::as_str) != Some("default") {
            continue;
        }
        let field = map
            .entry("namespace")
            .or_insert_with(|| Value::String(String::new()));
        set_namespace_field(field, namespace).map_err(wrap)?;
    }
    Ok(())
}

/// `ValueAddTransformer`: see the module documentation.
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, ctx: &Ctx) -> Result<(), Error> {
    let settings = Settings::from_config(config, ctx)?;
    for target in &settings.targets {
        let chosen: Vec<usize> = match &target.selector {
            None => (0..resources.len()).collect(),
            Some(selector) => select_with(resources, selector)?,
        };
        for i in chosen {
            let Some(obj) = resources.get_mut(i) else {
                continue;
            };
            if target.field_path == NAMESPACE_PATH {
                set_namespace(obj, &settings.value)?;
            } else {
                add_value(obj, &settings.value, target)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::generator_common::test_support::Scratch;
    use kustom_api::protocol;
    use serde_json::json;
    use std::path::PathBuf;

    // Expected objects are `kubectl kustomize` (v5.5.0) output for the same
    // resources and transformer configs.

    fn ctx_at(root: &str) -> Ctx {
        Ctx {
            root: PathBuf::from(root),
            load_restrictor: crate::ctx::LoadRestrictor::RootOnly,
            kustomization: format!("{root}/kustomization.yaml"),
            remote_files: Default::default(),
            version: Default::default(),
        }
    }

    fn config(value: &str, targets: Value) -> Value {
        json!({"apiVersion": "builtin", "kind": "ValueAddTransformer",
            "metadata": {"name": "add"}, "value": value, "targets": targets})
    }

    fn run(config: &Value, resources: &mut Vec<Value>) -> Result<(), Error> {
        transform(config, resources, &ctx_at("/work/projects/dog-222"))
    }

    fn configmap(data: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": data})
    }

    #[test]
    fn go_path_functions() {
        assert_eq!(go_clean(""), ".");
        assert_eq!(go_clean("a//b/./c/.."), "a/b");
        assert_eq!(go_clean("../../x"), "../../x");
        assert_eq!(go_clean("/../x/"), "/x");
        assert_eq!(go_base("/work/projects/dog-222/"), "dog-222");
        assert_eq!(go_base("/"), "/");
        assert_eq!(go_base(""), ".");
        assert_eq!(path_split("/a/b"), vec!["", "a", "b"]);
        assert_eq!(path_split("a//b"), vec!["a", "", "b"]);
        assert_eq!(path_split("//a"), vec!["", "a"]);
        assert_eq!(path_split("/"), vec![""]);
        assert!(path_split("").is_empty());
    }

    #[test]
    fn insert_path_part_positions() {
        assert_eq!(insert_path_part("", 3, "X"), "X");
        assert_eq!(insert_path_part("/", 0, "X"), "/X");
        assert_eq!(insert_path_part("projects", 0, "X"), "X/projects");
        assert_eq!(insert_path_part("projects", 1, "X"), "projects/X");
        assert_eq!(insert_path_part("projects", 99, "X"), "projects/X");
        assert_eq!(insert_path_part("/abs/path", 1, "X"), "/abs/X/path");
        assert_eq!(insert_path_part("/abs/path", 0, "X"), "/X/abs/path");
        assert_eq!(insert_path_part("p/q/r", 1, "X"), "p/X/q/r");
        // Joined and cleaned; an empty part changes nothing.
        assert_eq!(insert_path_part("a//b/", 2, "X"), "a/X/b");
        assert_eq!(insert_path_part("a/../b", 0, "X"), "X/b");
        assert_eq!(insert_path_part("a//b", 1, ""), "a//b");
    }

    #[test]
    fn example_from_the_kustomize_docs() {
        // No value: the kustomization directory's name.
        let c = json!({"apiVersion": "builtin", "kind": "ValueAddTransformer",
        "metadata": {"name": "dirNameAdd"},
        "targets": [
            {"fieldPath": "metadata/namespace"},
            {"selector": {"kind": "IAMPolicyMember"}, "fieldPath": "spec/resourceRef/external",
             "filePathPosition": 2},
        ]});
        let mut res = vec![
            json!({"apiVersion": "iam.cnrm.cloud.google.com/v1beta1", "kind": "IAMCustomRole",
                "metadata": {"name": "engineer"}, "spec": {"stage": "GA"}}),
            json!({"apiVersion": "iam.cnrm.cloud.google.com/v1beta1", "kind": "IAMPolicyMember",
                "metadata": {"name": "red"},
                "spec": {"resourceRef": {"kind": "Project", "external": "projects"}}}),
        ];
        run(&c, &mut res).unwrap();
        assert_eq!(
            res,
            vec![
                json!({"apiVersion": "iam.cnrm.cloud.google.com/v1beta1", "kind": "IAMCustomRole",
                    "metadata": {"name": "engineer", "namespace": "dog-222"}, "spec": {"stage": "GA"}}),
                json!({"apiVersion": "iam.cnrm.cloud.google.com/v1beta1", "kind": "IAMPolicyMember",
                    "metadata": {"name": "red", "namespace": "dog-222"},
                    "spec": {"resourceRef": {"kind": "Project", "external": "projects/dog-222"}}}),
            ]
        );
    }

    #[test]
    fn namespace_path_follows_the_namespace_filter() {
        let mut res = vec![
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "nsx"}}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": "rb", "namespace": "old"},
                "subjects": [{"kind": "ServiceAccount", "name": "default"},
                             {"kind": "ServiceAccount", "name": "other"}]}),
        ];
        run(
            &config(" 80 ", json!([{"fieldPath": "metadata/namespace"}])),
            &mut res,
        )
        .unwrap();
        // Cluster-scoped: untouched. Namespaces are strings, even `80`.
        assert_eq!(
            res[0],
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "nsx"}})
        );
        assert_eq!(res[1]["metadata"]["namespace"], json!("80"));
        assert_eq!(res[1]["subjects"][0]["namespace"], json!("80"));
        assert!(res[1]["subjects"][1].get("namespace").is_none());
        // Unlike NamespaceTransformer, no record of the old namespace.
        assert_eq!(
            resource::annotation(&res[1], protocol::PREVIOUS_NAMESPACES),
            None
        );
    }

    #[test]
    fn new_text_is_typed_where_the_old_value_was_plain() {
        // `abc` stands for a plain scalar: the JSON model keeps no style.
        let mut res = vec![configmap(json!({"q": 12, "s": "abc", "t": "true"}))];
        let targets = json!([{"fieldPath": "data/q"}, {"fieldPath": "data/s"}, {"fieldPath": "data/t"},
            {"fieldPath": "data/new/deep"}, {"fieldPath": " /data// sp /"}]);
        run(&config("80", targets), &mut res).unwrap();
        assert_eq!(
            res[0]["data"],
            // `"true"` must have been quoted, so the new text stays a string.
            json!({"q": 80, "s": 80, "t": "80", "new": {"deep": 80}, "sp": 80})
        );
    }

    #[test]
    fn list_elements_by_selector_index_and_last() {
        let mut res = vec![configmap(json!({
            "list": ["a", "b"],
            "nested": [{"name": "foo", "v": "p/q/r"}, {"name": 7, "v": "/abs/path"}],
        }))];
        let targets = json!([
            {"fieldPath": "data/nested/[name=7]/v", "filePathPosition": 2},
            {"fieldPath": "data/nested/[name=bar]/v"},
            {"fieldPath": "data/fresh/[name=bar]/v"},
            {"fieldPath": "data/list/[=c]", "filePathPosition": 5},
            {"fieldPath": "data/list/-", "filePathPosition": 1},
            {"fieldPath": "data/list/0"},
            // Indexes never create: the list is made, its element is not.
            {"fieldPath": "data/list/9"},
            {"fieldPath": "data/made/0/x"},
        ]);
        run(&config("V", targets), &mut res).unwrap();
        assert_eq!(
            res[0]["data"],
            json!({
                "list": ["V", "b", "V/c/V"],
                "nested": [{"name": "foo", "v": "p/q/r"}, {"name": 7, "v": "/abs/V/path"},
                           {"name": "bar", "v": "V"}],
                "fresh": [{"name": "bar", "v": "V"}],
                "made": [],
            })
        );
    }

    #[test]
    fn null_fields_on_the_way_are_left_alone() {
        let mut res = vec![json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm"}, "spec": null, "data": {"n": null, "list": null}})];
        let targets = json!([{"fieldPath": "spec/x"}, {"fieldPath": "data/list/[=c]"},
            {"fieldPath": "data/list/0"}, {"fieldPath": "data/n", "filePathPosition": 1}]);
        run(&config("V", targets), &mut res).unwrap();
        assert_eq!(res[0]["spec"], Value::Null);
        assert_eq!(res[0]["data"], json!({"n": "V", "list": null}));
        // kustomize crashes here.
        let err = run(
            &config("V", json!([{"fieldPath": "spec/x", "filePathPosition": 1}])),
            &mut res,
        )
        .unwrap_err();
        assert!(err.message.contains("no field to insert"), "{err}");
    }

    #[test]
    fn selectors_choose_resources() {
        let mut res = vec![
            configmap(json!({})),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}),
        ];
        let targets = json!([{"selector": {"kind": "Sec.*"}, "fieldPath": "metadata/labels/app"}]);
        run(&config("V", targets), &mut res).unwrap();
        assert!(res[0]["metadata"].get("labels").is_none());
        assert_eq!(res[1]["metadata"]["labels"]["app"], "V");
    }

    #[test]
    fn field_path_errors() {
        let cases = [
            ("data/m", "expected ScalarNode but got MappingNode"),
            ("data/m/x/y", "expected MappingNode but got ScalarNode"),
            ("data/list/x", "expected MappingNode but got SequenceNode"),
            ("data/m/[a=b]", "expected SequenceNode but got MappingNode"),
            ("data/list/-1", "array index -1 cannot be negative"),
            ("data/m/*", "wildcard is not supported in PathGetter"),
            (
                "data/list/[x]",
                "list path element must contain fieldName=fieldValue",
            ),
            ("data/new/-", "expected SequenceNode but got MappingNode"),
            ("data/empty/-", "of an empty list"),
            (
                "data/list/[=a]/x",
                "expected MappingNode but got ScalarNode",
            ),
        ];
        for (path, want) in cases {
            let mut res = vec![configmap(
                json!({"m": {"x": 1}, "list": ["a"], "empty": []}),
            )];
            let err = run(&config("V", json!([{"fieldPath": path}])), &mut res).unwrap_err();
            assert!(err.message.contains(want), "{path}: {err}");
        }
    }

    #[test]
    fn config_errors() {
        let cases = [
            (
                json!({"metadata": {"name": "x"}}),
                "must specify at least one target",
            ),
            (json!({"targets": []}), "must specify at least one target"),
            (
                json!({"targets": [{"fieldPath": ""}]}),
                "fieldPath cannot be empty",
            ),
            (json!({"targets": [null]}), "fieldPath cannot be empty"),
            (
                json!({"targets": [{"fieldPath": "a", "filePathPosition": -1}]}),
                "value of FilePathPosition (-1) cannot be negative",
            ),
            (
                json!({"targets": [{"fieldPath": "a", "filePathPosition": 1.5}]}),
                "cannot unmarshal number 1.5",
            ),
            (
                json!({"targets": [{"fieldPath": "a", "filePathPosition": "1"}]}),
                "cannot unmarshal string",
            ),
            (json!({"targets": "a"}), "cannot unmarshal string"),
            (
                json!({"targets": [{"fieldPath": "a", "selector": {"kind": "["}}]}),
                "error parsing regexp",
            ),
        ];
        for (c, want) in cases {
            let err = run(&c, &mut vec![configmap(json!({}))]).unwrap_err();
            assert!(err.message.contains(want), "{c}: {err}");
        }
        // A whole-number float position is fine, as after Go's YAML-to-JSON.
        let mut res = vec![configmap(json!({"p": "a/b"}))];
        let c = json!({"value": 7, "targets": [{"fieldPath": "data/p", "filePathPosition": 2.0}]});
        run(&c, &mut res).unwrap();
        assert_eq!(res[0]["data"]["p"], "a/7/b");
    }

    #[test]
    fn target_file_adds_targets_after_the_configs() {
        let s = Scratch::new("value-add-targets");
        s.write(
            "targets.yaml",
            b"targets:\n- selector: {kind: ConfigMap}\n  fieldPath: data/p\n  filePathPosition: 9\n---\ntargets:\n- fieldPath: data/ignored\n",
        );
        s.write("bad.yaml", b"- a\n");
        let c = json!({"value": "V", "targetFilePath": "targets.yaml",
            "targets": [{"fieldPath": "data/q"}]});
        let mut res = vec![configmap(json!({"p": "projects/x"}))];
        transform(&c, &mut res, &s.ctx()).unwrap();
        // Only the file's first document counts.
        assert_eq!(res[0]["data"], json!({"p": "projects/x/V", "q": "V"}));

        let c = json!({"value": "V", "targetFilePath": "bad.yaml"});
        let err = transform(&c, &mut res, &s.ctx()).unwrap_err();
        assert!(err.message.contains("cannot unmarshal array"), "{err}");
        let c = json!({"value": "V", "targetFilePath": "missing.yaml"});
        assert!(transform(&c, &mut res, &s.ctx()).is_err());
        let c = json!({"value": "V", "targetFilePath": "../outside.yaml"});
        assert!(transform(&c, &mut res, &s.ctx()).is_err());
    }
}
