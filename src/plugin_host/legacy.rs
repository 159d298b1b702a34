//! Legacy kustomize exec plugins, run the way kustomize v5.5.0 runs them, so
//! that a plugin published for kustomize works unchanged:
//!
//! - found at `<plugin home>/<group>/<version>/<lowercase kind>/<Kind>`, the
//!   plugin home being the first existing directory of `$KUSTOMIZE_PLUGIN_HOME`,
//!   `$XDG_CONFIG_HOME/kustomize/plugin`, `$HOME/.config/kustomize/plugin`,
//!   `$HOME/kustomize/plugin`;
//! - run as `PLUGIN <config file> [args]`, the config file holding the config
//!   object as YAML, `args` from the config's `argsOneLiner` (split like a
//!   shell would) and `argsFromFile` (one argument per non-empty line);
//! - the environment inherited, plus `KUSTOMIZE_PLUGIN_CONFIG_STRING` (the
//!   config YAML) and `KUSTOMIZE_PLUGIN_CONFIG_ROOT` (the kustomization's
//!   directory), which is also the working directory;
//! - generators get empty STDIN; their output's
//!   `kustomize.config.k8s.io/needs-hash` and `kustomize.config.k8s.io/behavior`
//!   annotations become the build's hash-suffix and merge-behavior state;
//! - transformers get every resource on STDIN, each annotated with
//!   `kustomize.config.k8s.io/id` (its current id as YAML); the output is
//!   matched back by current id: a match replaces the resource in place, an
//!   unmatched output is appended, a resource missing from the output is
//!   removed.

use super::exec;
use super::sandbox::CallSandbox;
use super::settings::Settings;
use super::site::Site;
use kustom_api::protocol::{
    GENERATOR_BEHAVIOR, LEGACY_BEHAVIOR, LEGACY_NEEDS_HASH, NEEDS_HASH_SUFFIX,
};
use kustom_api::{protocol, resource, yaml, Error, Gvk, ResId, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// kustomize's annotation carrying a resource's id into a legacy transformer.
pub const LEGACY_ID_ANNOTATION: &str = "kustomize.config.k8s.io/id";
/// Environment variable holding the plugin's config YAML.
pub const ENV_CONFIG_STRING: &str = "KUSTOMIZE_PLUGIN_CONFIG_STRING";
/// Environment variable holding the kustomization's directory.
pub const ENV_CONFIG_ROOT: &str = "KUSTOMIZE_PLUGIN_CONFIG_ROOT";
/// Environment variable overriding the plugin home.
pub const ENV_PLUGIN_HOME: &str = "KUSTOMIZE_PLUGIN_HOME";
/// kustomize leaves out an environment entry longer than this.
const MAX_ENV_ENTRY: usize = 131_071;

/// The plugin-home candidates, in kustomize's order, each with how it was
/// found. Empty variables are skipped, as kustomize does.
pub fn home_candidates() -> Vec<(&'static str, PathBuf)> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let mut out = Vec::new();
    if let Some(p) = var(ENV_PLUGIN_HOME) {
        out.push(("$KUSTOMIZE_PLUGIN_HOME", p));
    }
    if let Some(x) = var("XDG_CONFIG_HOME") {
        out.push((
            "$XDG_CONFIG_HOME/kustomize/plugin",
            x.join("kustomize").join("plugin"),
        ));
    }
    // kustomize uses a literal "~" when $HOME is unset.
    let home = var("HOME").unwrap_or_else(|| PathBuf::from("~"));
    out.push((
        "$HOME/.config/kustomize/plugin",
        home.join(".config").join("kustomize").join("plugin"),
    ));
    out.push((
        "$HOME/kustomize/plugin",
        home.join("kustomize").join("plugin"),
    ));
    // $XDG_CONFIG_HOME is often $HOME/.config: name each directory once.
    let mut seen = Vec::new();
    out.retain(|(_, p)| {
        let fresh = !seen.contains(p);
        seen.push(p.clone());
        fresh
    });
    out
}

/// The legacy plugin home: the first candidate that exists.
pub fn plugin_home() -> Option<PathBuf> {
    home_candidates()
        .into_iter()
        .map(|(_, p)| p)
        .find(|p| p.exists())
}

/// Where the legacy plugin for a config object lives under `home`.
pub fn plugin_path(home: &Path, config: &Value) -> PathBuf {
    let gvk = Gvk::from_api_version(resource::api_version(config), resource::kind(config));
    relative_path(&gvk)
        .into_iter()
        .fold(home.to_path_buf(), |p, c| p.join(c))
}

/// `group/version/lowercase(kind)/Kind`, empty parts left out (as Go's filepath.Join).
pub fn relative_path(gvk: &Gvk) -> Vec<String> {
    [
        gvk.group.clone(),
        gvk.version.clone(),
        gvk.kind.to_lowercase(),
        gvk.kind.clone(),
    ]
    .into_iter()
    .filter(|s| !s.is_empty())
    .collect()
}

/// Split a command line the way kustomize's `argsOneLiner` is split:
/// whitespace separates words; single quotes keep everything literally;
/// double quotes keep everything but let `\` escape `"` and `\`; outside
/// quotes `\` escapes the next character; `#` at the start of a word starts
/// a comment that runs to the end of the line.
pub fn split_args(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if !in_word => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"') | Some('\\')) => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        c => word.push(c),
                    }
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

/// The extra arguments of a plugin: `argsOneLiner`, then the lines of `argsFromFile`.
pub fn plugin_args(config: &Value, dir: &Path, root_only: bool) -> Result<Vec<String>, Error> {
    let mut args = Vec::new();
    if let Some(line) = config.get("argsOneLiner").and_then(Value::as_str) {
        args.extend(split_args(line));
    }
    if let Some(file) = config.get("argsFromFile").and_then(Value::as_str) {
        if !file.is_empty() {
            let path = dir.join(file);
            let real = path.canonicalize().map_err(|e| {
                Error::new(format!("argsFromFile {file:?}: {}: {e}", path.display()))
            })?;
            if root_only && !real.starts_with(dir) {
                return Err(Error::new(format!(
                    "argsFromFile {file:?}: security; file '{}' is not in or below '{}' (build with --load-restrictor LoadRestrictionsNone to allow it)",
                    real.display(),
                    dir.display()
                )));
            }
            let text = kustom_api::files::read_text(&real)
                .map_err(|e| e.context(format!("argsFromFile {file:?}")))?;
            for line in text.split('\n') {
                let arg = line.trim_start_matches(' ');
                if !arg.is_empty() {
                    args.push(arg.to_string());
                }
            }
        }
    }
    Ok(args)
}

/// A config file in the temporary directory, removed when dropped.
struct TempConfig(PathBuf);

impl TempConfig {
    /// Create it in `dir` (the call's private directory, which the
    /// confined plugin may read).
    fn create(dir: &Path, content: &str) -> Result<TempConfig, Error> {
        static SEQ: AtomicUsize = AtomicUsize::new(0);
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let name = format!(
                "kust-plugin-config-{}{}{}",
                std::process::id(),
                SEQ.fetch_add(1, Ordering::Relaxed),
                nanos % 100_000
            );
            let path = dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    let guard = TempConfig(path);
                    f.write_all(content.as_bytes()).map_err(|e| {
                        Error::new(format!(
                            "writing plugin config to {}: {e}",
                            guard.0.display()
                        ))
                    })?;
                    return Ok(guard);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(Error::new(format!(
                        "creating tmp plugin config file in {}: {e}",
                        dir.display()
                    )))
                }
            }
        }
        Err(Error::new(format!(
            "creating tmp plugin config file in {}: no free name",
            dir.display()
        )))
    }
}

impl Drop for TempConfig {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Run the plugin once; the documents it wrote.
fn invoke(
    settings: &Settings,
    path: &Path,
    config: &Value,
    dir: &Path,
    site: &Site<'_>,
    stdin: Vec<u8>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let cfg = yaml::to_yaml(config);
    let root_only = settings.load_restrictor != "LoadRestrictionsNone";
    let extra = plugin_args(config, dir, root_only).map_err(|e| e.context(site))?;
    // Legacy calls always get a private directory (see `Settings::begin`).
    let private = sandbox
        .dir()
        .ok_or_else(|| Error::new(format!("{site}: no private directory for the config file")))?;
    let file = TempConfig::create(private, &cfg).map_err(|e| e.context(site))?;
    let file_arg = file.0.display().to_string();
    let mut args: Vec<&str> = vec![&file_arg];
    args.extend(extra.iter().map(String::as_str));
    let mut env = Vec::new();
    if ENV_CONFIG_STRING.len() + 1 + cfg.len() <= MAX_ENV_ENTRY {
        env.push((ENV_CONFIG_STRING, cfg.clone()));
    } else {
        eprintln!(
            "{ENV_CONFIG_STRING} exceeds hard limit of {MAX_ENV_ENTRY} characters, the environment variable will be omitted ({site})"
        );
    }
    env.push((ENV_CONFIG_ROOT, dir.display().to_string()));
    tracing::debug!(plugin = %path.display(), config = %file_arg, dir = %dir.display(), "legacy exec plugin call");
    let out = exec::run(path, &args, dir, &env, stdin, settings.limits, sandbox)
        .map_err(|e| e.context(site))?;
    if out.status != Some(0) {
        return Err(site.status_error(&out, &format!(" (config file {file_arg})")));
    }
    let docs = protocol::read_stream(&out.stdout).map_err(|e| site.junk_error(&out, &e.message))?;
    expand_lists(docs).map_err(|why| site.junk_error(&out, &why))
}

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

/// Run a legacy generator.
pub fn generate(
    settings: &Settings,
    path: &Path,
    config: &Value,
    dir: &Path,
    site: &Site<'_>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let mut docs = invoke(settings, path, config, dir, site, Vec::new(), sandbox)?;
    apply_generator_options(&mut docs).map_err(|e| e.context(site))?;
    Ok(docs)
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

/// Run a legacy transformer over `resources`.
pub fn transform(
    settings: &Settings,
    path: &Path,
    config: &Value,
    resources: Vec<Value>,
    dir: &Path,
    site: &Site<'_>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let input = with_id_annotations(&resources);
    let stdin = yaml::to_yaml_stream(&input).into_bytes();
    drop(input);
    let out = invoke(settings, path, config, dir, site, stdin, sandbox)?;
    merge_by_current_id(resources, out, LEGACY_ID_ANNOTATION).map_err(|e| e.context(site))
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
    fn splits_like_a_shell() {
        assert_eq!(
            split_args(r#"one "two three" 'fo ur' five\ six # seven"#),
            vec!["one", "two three", "fo ur", "five six"]
        );
        assert_eq!(
            split_args(r#"a"b c"d 'x\y' "q\"r""#),
            vec!["ab cd", r"x\y", "q\"r"]
        );
        assert_eq!(split_args("  "), Vec::<String>::new());
        assert_eq!(split_args("''"), vec![""]);
        assert_eq!(split_args("a#b"), vec!["a#b"]);
    }

    #[test]
    fn plugin_path_uses_group_version_and_kind() {
        let cfg = json!({"apiVersion": "someteam.example.com/v1", "kind": "SecretGen"});
        assert_eq!(
            plugin_path(Path::new("/h"), &cfg),
            PathBuf::from("/h/someteam.example.com/v1/secretgen/SecretGen")
        );
        let core = json!({"apiVersion": "v1", "kind": "Foo"});
        assert_eq!(
            plugin_path(Path::new("/h"), &core),
            PathBuf::from("/h/v1/foo/Foo")
        );
    }

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
