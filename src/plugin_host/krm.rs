//! KRM exec functions: a config object whose `config.kubernetes.io/function`
//! annotation (or the older `config.k8s.io/function`, or `metadata.configFn`)
//! names an executable:
//!
//! ```yaml
//! metadata:
//!   annotations:
//!     config.kubernetes.io/function: |
//!       exec:
//!         path: ./fn.sh        # relative to the kustomization; a bare name is looked up in $PATH
//!         args: [--verbose]    # kustomize v5.7.0 on (kept in kustom's v5.5 mode too)
//!         envs: [MODE=strict]  # KEY=VALUE (v5.7.0 on), or KEY (kustom: the host's value)
//! ```
//!
//! The function reads a `ResourceList` (`config.kubernetes.io/v1`) on STDIN
//! with the config object as `functionConfig` (annotated
//! `config.kubernetes.io/local-config: "true"`) and `items`: for a generator
//! the function config itself, for a transformer every resource (annotated
//! with `kustomize.config.k8s.io/id`), exactly as kustomize sends them. It
//! writes a `ResourceList` (or a plain stream of resources) to STDOUT.
//! `results` are read back: an entry of severity `error` fails the build,
//! other entries are printed to STDERR. Generated resources honour the
//! legacy `needs-hash` / `behavior` annotations; transformer output is
//! matched back by current id, as for legacy exec plugins.

use super::exchange::{
    apply_generator_options, expand_lists, merge_by_current_id, LEGACY_ID_ANNOTATION,
};
use super::exec;
use super::sandbox::CallSandbox;
use super::settings::Settings;
use super::site::Site;
use kustom_api::protocol::LOCAL_CONFIG;
use kustom_api::{resource, yaml, Error, Value};
use serde_json::json;
use std::path::{Path, PathBuf};

/// The function annotation.
pub const FUNCTION_ANNOTATION: &str = "config.kubernetes.io/function";
/// The function annotation's older spelling.
pub const OLD_FUNCTION_ANNOTATION: &str = "config.k8s.io/function";
/// kustomize's legacy container-function annotation.
pub const CONTAINER_ANNOTATION: &str = "config.kubernetes.io/container";
/// apiVersion of the ResourceList wrapper.
pub const RESOURCE_LIST_API_VERSION: &str = "config.kubernetes.io/v1";

/// Annotations kyaml's reader and function runner put on items (and that
/// kustomize strips from its output).
pub const KIO_ANNOTATIONS: &[&str] = &[
    "config.kubernetes.io/index",
    "internal.config.kubernetes.io/index",
    "internal.config.kubernetes.io/id",
    "config.k8s.io/id",
    "config.kubernetes.io/path",
    "internal.config.kubernetes.io/path",
    "internal.config.kubernetes.io/seqindent",
    "internal.config.kubernetes.io/annotations-migration-resource-id",
];

/// How to run one exec function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecSpec {
    /// The executable, resolved (relative to the kustomization, or from `$PATH`).
    pub path: PathBuf,
    /// `exec.path` as the config wrote it (how `kustom.lock` names the function).
    pub written: String,
    /// `exec.args`.
    pub args: Vec<String>,
    /// `exec.envs`: `KEY=VALUE`, or `KEY` to pass the host's value.
    pub envs: Vec<String>,
}

/// The function spec a config object carries, and where it was found:
/// the `config.kubernetes.io/function` annotation (or the older
/// `config.k8s.io/function`) parsed, else `metadata.configFn`, else
/// kustomize's legacy `config.kubernetes.io/container: IMAGE` annotation
/// (its value a string), in kustomize's order. None when there is none.
pub(super) fn raw_function_spec(config: &Value) -> Result<Option<(String, Value)>, Error> {
    for key in [FUNCTION_ANNOTATION, OLD_FUNCTION_ANNOTATION] {
        if let Some(text) = resource::annotation(config, key).filter(|t| !t.is_empty()) {
            let docs = yaml::parse_stream(text)
                .map_err(|e| Error::new(format!("{key} unmarshal error: {}", e.message)))?;
            return Ok(Some((
                key.to_string(),
                docs.into_iter().next().unwrap_or(Value::Null),
            )));
        }
    }
    if let Some(v) = resource::get_at(config, &["metadata", "configFn"]).filter(|v| !v.is_null()) {
        return Ok(Some(("metadata.configFn".into(), v.clone())));
    }
    Ok(resource::annotation(config, CONTAINER_ANNOTATION)
        .filter(|t| !t.is_empty())
        .map(|image| {
            (
                CONTAINER_ANNOTATION.to_string(),
                Value::String(image.to_string()),
            )
        }))
}

/// The exec function spec of a config object, if it names one. (A
/// container function is found first, by [`super::container::container_spec`].)
///
/// With `root_only` (`LoadRestrictionsRootOnly`), a path with a `/` must
/// stay inside the kustomization's directory: a configuration cannot point
/// kustom at an executable elsewhere on the machine.
pub fn function_spec(
    config: &Value,
    dir: &Path,
    root_only: bool,
) -> Result<Option<ExecSpec>, Error> {
    let Some((key, spec)) = raw_function_spec(config)? else {
        return Ok(None);
    };
    if key == CONTAINER_ANNOTATION {
        // A container function (see [`super::container`]), found first.
        return Err(container_error(spec.as_str().unwrap_or_default()));
    }
    let Some(spec) = spec.as_object() else {
        return Err(Error::new(format!(
            "{key}: expected a mapping with `exec:` (got {spec})"
        )));
    };
    check_keys(&key, spec, &["deferFailure", "container", "exec"])?;
    let exec = match spec.get("exec") {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(Value::Object(m)) => {
            check_keys(&format!("{key} exec"), m, &["path", "args", "envs"])?;
            m.clone()
        }
        Some(other) => {
            return Err(Error::new(format!(
                "{key}: `exec` must be a mapping (got {other})"
            )))
        }
    };
    let path = exec.get("path").and_then(Value::as_str).unwrap_or("");
    if path.is_empty() {
        let image = spec
            .get("container")
            .and_then(|c| c.get("image"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if !image.is_empty() {
            return Err(container_error(image));
        }
        return Err(Error::new(format!("{key}: no `exec.path` to run")));
    }
    let strings = |field: &str| -> Result<Vec<String>, Error> {
        match exec.get(field) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    Value::Bool(b) => Ok(b.to_string()),
                    other => Err(Error::new(format!(
                        "{key}: exec.{field} entries must be strings (got {other})"
                    ))),
                })
                .collect(),
            Some(other) => Err(Error::new(format!(
                "{key}: exec.{field} must be a list (got {other})"
            ))),
        }
    };
    Ok(Some(ExecSpec {
        path: resolve_path(path, dir, root_only)?,
        written: path.to_string(),
        args: strings("args")?,
        envs: strings("envs")?,
    }))
}

fn container_error(image: &str) -> Error {
    Error::new(format!(
        "container function {image:?}: kustom runs no container runtime; use an exec function (`exec: {{path: …}}`) or a KEP plugin"
    ))
}

fn check_keys(what: &str, m: &serde_json::Map<String, Value>, known: &[&str]) -> Result<(), Error> {
    for k in m.keys() {
        if !known.contains(&k.as_str()) {
            return Err(Error::new(format!(
                "{what} unmarshal error: unknown field {k:?} (known: {})",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

/// A path with a `/` is relative to the kustomization's directory (as Go's
/// exec with a working directory); a bare name is looked up in `$PATH`.
fn resolve_path(path: &str, dir: &Path, root_only: bool) -> Result<PathBuf, Error> {
    if path.contains('/') {
        let joined = dir.join(path);
        if root_only {
            let real = joined.canonicalize().map_err(|e| {
                Error::new(format!("exec function {path:?}: {}: {e}", joined.display()))
            })?;
            let root = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
            if !real.starts_with(&root) {
                return Err(Error::new(format!(
                    "exec function {path:?}: {} is outside the kustomization's directory {}; a configuration may only run functions inside its own tree (a bare name is looked up in $PATH; --load-restrictor LoadRestrictionsNone lifts this)",
                    real.display(),
                    root.display()
                )));
            }
        }
        return Ok(joined);
    }
    which::which(path).map_err(|e| {
        Error::new(format!(
            "exec function {path:?}: not found in $PATH ({e}); write ./{path} for a file beside the kustomization"
        ))
    })
}

/// Items as kustomize's function runner hands them over: index and id
/// annotations added (kyaml's reader and FunctionFilter).
fn annotate_items(items: &mut [Value]) {
    for (i, item) in items.iter_mut().enumerate() {
        let index = i.to_string();
        let id = (i + 1).to_string();
        resource::set_annotation(item, "config.kubernetes.io/index", &index);
        resource::set_annotation(item, "internal.config.kubernetes.io/index", &index);
        resource::set_annotation(item, "internal.config.kubernetes.io/id", &id);
        resource::set_annotation(item, "config.k8s.io/id", &id);
    }
}

/// What a function gave back.
struct FnOutput {
    items: Vec<Value>,
}

/// Run the function over `items` once.
fn invoke(
    settings: &Settings,
    spec: &ExecSpec,
    config: &Value,
    mut items: Vec<Value>,
    dir: &Path,
    site: &Site<'_>,
    sandbox: &CallSandbox,
) -> Result<FnOutput, Error> {
    let mut function_config = config.clone();
    resource::set_annotation(&mut function_config, LOCAL_CONFIG, "true");
    annotate_items(&mut items);
    let list = json!({
        "apiVersion": RESOURCE_LIST_API_VERSION,
        "kind": "ResourceList",
        "items": items,
        "functionConfig": function_config,
    });
    let stdin = yaml::to_yaml(&list).into_bytes();
    let mut env: Vec<(String, String)> = Vec::new();
    for e in spec.envs.iter().chain(settings.exec_env.iter()) {
        // KEY alone means the host's value, which the function inherits anyway.
        // (passed explicitly, for --plugin-env=minimal).
        match e.split_once('=') {
            // kustomize #5316 (v5.7.0): an entry whose value holds `=` is dropped.
            Some((_, v)) if settings.kustomize_version.is_5_8() && v.contains('=') => {}
            Some((k, v)) => env.push((k.to_string(), v.to_string())),
            None => {
                if let Ok(v) = std::env::var(e) {
                    env.push((e.to_string(), v));
                }
            }
        }
    }
    let env_refs: Vec<(&str, String)> = env.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let args: Vec<&str> = spec.args.iter().map(String::as_str).collect();
    tracing::debug!(function = %spec.path.display(), dir = %dir.display(), "KRM exec function call");
    let out = exec::run(
        &spec.path,
        &args,
        dir,
        &env_refs,
        stdin,
        settings.limits,
        sandbox,
    )
    .map_err(|e| e.context(site))?;
    let parsed = parse_output(&out.stdout);
    let (items, results) = match parsed {
        Ok(v) => v,
        Err(why) if out.status == Some(0) => return Err(site.junk_error(&out, &why)),
        Err(_) => return Err(site.status_error(&out, "")),
    };
    let errors = report_results(&results, site);
    if out.status != Some(0) {
        let extra = if errors.is_empty() {
            String::new()
        } else {
            format!("; results:\n  {}", errors.join("\n  "))
        };
        return Err(site.status_error(&out, &extra));
    }
    if !errors.is_empty() {
        return Err(Error::new(format!(
            "{site} reported {} error result{}:\n  {}{}",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" },
            errors.join("\n  "),
            exec::stderr_tail(&out.stderr)
        )));
    }
    let mut items = expand_lists(items).map_err(|why| site.junk_error(&out, &why))?;
    for item in &mut items {
        for a in KIO_ANNOTATIONS {
            resource::remove_annotation(item, a);
        }
    }
    Ok(FnOutput { items })
}

/// Split a function's STDOUT into items and results: a `ResourceList`
/// gives its `items` and `results`, any other stream is all items.
pub(super) fn parse_output(stdout: &[u8]) -> Result<(Vec<Value>, Vec<Value>), String> {
    let docs = kustom_api::protocol::read_stream(stdout).map_err(|e| e.message)?;
    let is_list = |d: &Value| {
        resource::kind(d) == "ResourceList"
            && resource::api_version(d).starts_with("config.kubernetes.io/")
    };
    if docs.len() == 1 && is_list(&docs[0]) {
        let list = &docs[0];
        let items = match list.get("items") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a.clone(),
            Some(other) => return Err(format!("ResourceList items is not a list: {other}")),
        };
        let results = match list.get("results") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a.clone(),
            Some(other) => return Err(format!("ResourceList results is not a list: {other}")),
        };
        return Ok((items, results));
    }
    Ok((docs, Vec::new()))
}

/// Print warnings and infos to STDERR; return the error results as text.
fn report_results(results: &[Value], site: &Site<'_>) -> Vec<String> {
    let mut errors = Vec::new();
    for r in results {
        let severity = r.get("severity").and_then(Value::as_str).unwrap_or("error");
        let text = describe_result(r);
        match severity {
            "warning" | "info" => eprintln!("{severity}: {text} (from {site})"),
            _ => errors.push(format!("{severity}: {text}")),
        }
    }
    errors
}

/// One result entry as a line: message, resource, field and file when given.
fn describe_result(r: &Value) -> String {
    let mut text = r
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("(no message)")
        .to_string();
    if let Some(rr) = r.get("resourceRef").filter(|v| v.is_object()) {
        let kind = rr.get("kind").and_then(Value::as_str).unwrap_or("");
        let name = rr.get("name").and_then(Value::as_str).unwrap_or("");
        let ns = rr.get("namespace").and_then(Value::as_str).unwrap_or("");
        text.push_str(&format!(" [resource {kind}/{name}"));
        if !ns.is_empty() {
            text.push_str(&format!(" in namespace {ns}"));
        }
        text.push(']');
    }
    if let Some(path) = resource::get_at(r, &["field", "path"]).and_then(Value::as_str) {
        text.push_str(&format!(" [field {path}]"));
    }
    if let Some(path) = resource::get_at(r, &["file", "path"]).and_then(Value::as_str) {
        text.push_str(&format!(" [file {path}]"));
    }
    text
}

/// Run an exec function as a generator: `items` holds the function config
/// itself (as kustomize sends it); its output items are the generated
/// resources (a function that echoes the config back leaves it in, marked
/// local-config, and it is dropped from the build output, as in kustomize).
pub fn generate(
    settings: &Settings,
    spec: &ExecSpec,
    config: &Value,
    dir: &Path,
    site: &Site<'_>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let mut item = config.clone();
    resource::set_annotation(&mut item, LOCAL_CONFIG, "true");
    let mut out = invoke(settings, spec, config, vec![item], dir, site, sandbox)?;
    apply_generator_options(&mut out.items).map_err(|e| e.context(site))?;
    Ok(out.items)
}

/// Run an exec function as a transformer over `resources`.
pub fn transform(
    settings: &Settings,
    spec: &ExecSpec,
    config: &Value,
    resources: Vec<Value>,
    dir: &Path,
    site: &Site<'_>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let items = super::exchange::with_id_annotations(&resources);
    let out = invoke(settings, spec, config, items, dir, site, sandbox)?;
    merge_by_current_id(resources, out.items, LEGACY_ID_ANNOTATION).map_err(|e| e.context(site))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_fn(spec: &str) -> Value {
        json!({"apiVersion": "x.example.com/v1", "kind": "Fn", "metadata": {"name": "f",
            "annotations": {FUNCTION_ANNOTATION: spec}}})
    }

    #[test]
    fn exec_spec_is_read_from_the_annotation() {
        let dir = Path::new("/k");
        let spec = function_spec(
            &with_fn("exec:\n  path: ./fn.sh\n  args: [a, b]\n  envs: [X=1]\n"),
            dir,
            false,
        )
        .expect("valid")
        .expect("present");
        assert_eq!(spec.path, PathBuf::from("/k/./fn.sh"));
        assert_eq!(spec.args, vec!["a", "b"]);
        assert_eq!(spec.envs, vec!["X=1"]);
        assert_eq!(
            function_spec(
                &json!({"kind": "Fn", "metadata": {"name": "f"}}),
                dir,
                false
            )
            .expect("ok"),
            None
        );
    }

    #[test]
    fn exec_path_cannot_leave_the_tree() {
        let root = tempfile::tempdir().expect("tmp");
        let dir = root.path().join("k");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(root.path().join("outside.sh"), "#!/bin/sh\n").expect("write");
        std::fs::write(dir.join("inside.sh"), "#!/bin/sh\n").expect("write");
        for bad in ["../outside.sh", "/bin/sh"] {
            let e = function_spec(&with_fn(&format!("exec:\n  path: {bad}\n")), &dir, true)
                .expect_err(bad);
            assert!(e.message.contains("outside the kustomization"), "{e}");
        }
        let ok = function_spec(&with_fn("exec:\n  path: ./inside.sh\n"), &dir, true)
            .expect("inside")
            .expect("present");
        assert_eq!(ok.written, "./inside.sh");
    }

    #[test]
    fn container_and_unknown_fields_are_errors() {
        let dir = Path::new("/k");
        let e = function_spec(&with_fn("container:\n  image: gcr.io/x/y\n"), dir, false)
            .expect_err("container");
        assert!(e.message.contains("container runtime"), "{e}");
        let e = function_spec(&with_fn("exec:\n  path: ./x\n  pth: y\n"), dir, false)
            .expect_err("unknown");
        assert!(e.message.contains("unknown field \"pth\""), "{e}");
        let e = function_spec(&with_fn("exec: {}\n"), dir, false).expect_err("no path");
        assert!(e.message.contains("exec.path"), "{e}");
    }

    #[test]
    fn output_is_a_resource_list_or_a_plain_stream() {
        let list = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- kind: A\n  metadata: {name: a}\nresults:\n- message: hi\n  severity: warning\n";
        let (items, results) = parse_output(list).expect("parse");
        assert_eq!(items.len(), 1);
        assert_eq!(results.len(), 1);
        let (items, results) =
            parse_output(b"kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata: {name: b}\n")
                .expect("parse");
        assert_eq!(items.len(), 2);
        assert!(results.is_empty());
    }

    #[test]
    fn results_are_described_with_their_resource() {
        let r = json!({"message": "bad", "severity": "error",
            "resourceRef": {"kind": "Deployment", "name": "web", "namespace": "prod"},
            "field": {"path": "spec.replicas"}});
        assert_eq!(
            describe_result(&r),
            "bad [resource Deployment/web in namespace prod] [field spec.replicas]"
        );
    }
}
