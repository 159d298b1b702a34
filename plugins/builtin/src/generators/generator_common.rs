//! What ConfigMapGenerator and SecretGenerator share: reading kustomize's
//! `GeneratorArgs` config, collecting key/value pairs from env files,
//! literals and files, and stamping the generated object with options and
//! the build annotations the later steps (merge, hash suffix) read.
//!
//! Behaviour follows kustomize v5.5.0 (`api/kv`, `api/internal/generators`,
//! `api/resource`), including its quirks: keys are not validated (the field
//! validator kustomize wires in is a no-op), env values keep their quotes
//! and trailing blanks, and an env file is read only up to its first line of
//! 64 KiB or more (Go's line scanner stops there without reporting it).

use crate::Ctx;
use base64::Engine as _;
use kustom_api::{err, protocol, resource, Error, Map, Value};
use std::collections::BTreeMap;

/// Generator options after the core merged the global `generatorOptions` in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Options {
    /// Labels for the generated object (sorted, as kustomize applies them).
    pub labels: BTreeMap<String, String>,
    /// Annotations for the generated object.
    pub annotations: BTreeMap<String, String>,
    /// No content-hash suffix on the name.
    pub disable_name_suffix_hash: bool,
    /// Add `immutable: true`.
    pub immutable: bool,
}

/// kustomize's `GeneratorArgs` (plus the Secret `type`), read from a builtin config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GeneratorArgs {
    /// Name of the generated object (`name`, else `metadata.name`).
    pub name: String,
    /// Namespace (`namespace`, else `metadata.namespace`); empty for none.
    pub namespace: String,
    /// `behavior` as written (create, merge, replace or anything else).
    pub behavior: String,
    /// `literals`: `key=value` strings.
    pub literals: Vec<String>,
    /// `files`: `path` or `key=path`.
    pub files: Vec<String>,
    /// `envs`: env files.
    pub envs: Vec<String>,
    /// `options`.
    pub options: Options,
    /// Secret `type`; empty when unset.
    pub secret_type: String,
}

impl GeneratorArgs {
    /// Read the args from a `ConfigMapGenerator` / `SecretGenerator` config object.
    ///
    /// kustomize decodes the config with Go's `encoding/json` (via
    /// sigs.k8s.io/yaml): unknown fields are ignored, field names match
    /// case-insensitively, `null` means "unset", and a value of the wrong
    /// type is an error.
    pub fn from_config(config: &Value) -> Result<GeneratorArgs, Error> {
        let obj = config
            .as_object()
            .ok_or_else(|| err!("generator config is not a map"))?;
        let metadata = match field(obj, "metadata") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => return Err(type_error("metadata", "a map", other)),
        };
        let meta_str = |key: &str| -> Result<String, Error> {
            match metadata {
                Some(m) => opt_string(m, key, &format!("metadata.{key}")),
                None => Ok(String::new()),
            }
        };

        let mut name = opt_string(obj, "name", "name")?;
        if name.is_empty() {
            name = meta_str("name")?;
        }
        let mut namespace = opt_string(obj, "namespace", "namespace")?;
        if namespace.is_empty() {
            namespace = meta_str("namespace")?;
        }
        // The deprecated singular `env` is not read: kustomize folds it into
        // `envs` only for kustomization files (the core does the same), and
        // ignores it in a generator config.
        let envs = string_list(obj, "envs")?;
        let options = match field(obj, "options") {
            None | Some(Value::Null) => Options::default(),
            Some(Value::Object(o)) => Options {
                labels: string_map(o, "labels", "options.labels")?,
                annotations: string_map(o, "annotations", "options.annotations")?,
                disable_name_suffix_hash: opt_bool(
                    o,
                    "disableNameSuffixHash",
                    "options.disableNameSuffixHash",
                )?,
                immutable: opt_bool(o, "immutable", "options.immutable")?,
            },
            Some(other) => return Err(type_error("options", "a map", other)),
        };
        Ok(GeneratorArgs {
            name,
            namespace,
            behavior: opt_string(obj, "behavior", "behavior")?,
            literals: string_list(obj, "literals")?,
            files: string_list(obj, "files")?,
            envs,
            options,
            secret_type: opt_string(obj, "type", "type")?,
        })
    }
}

/// The value of `key` in a config map as Go's `encoding/json` decodes it:
/// every key equal to the field name ignoring case is assigned in turn, so
/// the last one wins.
fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v)
        .next_back()
}

fn describe_json(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

fn type_error(path: &str, want: &str, got: &Value) -> Error {
    err!(
        "generator config field `{path}` must be {want}, not {}",
        describe_json(got)
    )
}

fn opt_string(obj: &Map<String, Value>, key: &str, path: &str) -> Result<String, Error> {
    match field(obj, key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(type_error(path, "a string", other)),
    }
}

fn opt_bool(obj: &Map<String, Value>, key: &str, path: &str) -> Result<bool, Error> {
    match field(obj, key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(type_error(path, "true or false", other)),
    }
}

/// A list of strings; a `null` item reads as "" (as Go decodes it).
fn string_list(obj: &Map<String, Value>, key: &str) -> Result<Vec<String>, Error> {
    match field(obj, key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Null => Ok(String::new()),
                Value::String(s) => Ok(s.clone()),
                other => Err(type_error(&format!("{key}[{i}]"), "a string", other)),
            })
            .collect(),
        Some(other) => Err(type_error(key, "a list of strings", other)),
    }
}

fn string_map(
    obj: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<BTreeMap<String, String>, Error> {
    match field(obj, key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::Null => Ok((k.clone(), String::new())),
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(type_error(&format!("{path}.{k}"), "a string", other)),
            })
            .collect(),
        Some(other) => Err(type_error(path, "a map of strings", other)),
    }
}

/// Collect the key/value pairs in kustomize's order (env files, literals,
/// files), reject repeated keys, and return them sorted by key (Go's byte
/// order, which `BTreeMap<String, _>` shares).
///
/// Values are bytes: file contents need not be UTF-8.
pub(crate) fn load_data(
    args: &GeneratorArgs,
    ctx: &Ctx,
) -> Result<BTreeMap<String, Vec<u8>>, Error> {
    let pairs = load_pairs(args, ctx).map_err(|e| e.context("loading KV pairs"))?;
    let mut data = BTreeMap::new();
    for (key, value) in pairs {
        if data.contains_key(&key) {
            // kustomize says "configmap" for Secrets too.
            return Err(err!(
                "configmap {} illegally repeats the key `{key}`",
                args.name
            ));
        }
        data.insert(key, value);
    }
    Ok(data)
}

fn load_pairs(args: &GeneratorArgs, ctx: &Ctx) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let mut pairs = Vec::new();
    for path in &args.envs {
        let content = read_source(ctx, path)
            .and_then(|c| parse_env_file(&c).map_err(|e| e.context(path)))
            .map_err(|e| e.context(format!("env source files: {}", go_list(&args.envs))))?;
        pairs.extend(content.into_iter().map(|(k, v)| (k, v.into_bytes())));
    }
    for literal in &args.literals {
        let (k, v) = parse_literal(literal)
            .map_err(|e| e.context(format!("literal sources {}", go_list(&args.literals))))?;
        pairs.push((k.to_string(), v.as_bytes().to_vec()));
    }
    for source in &args.files {
        let pair = parse_file_source(source)
            .and_then(|(key, path)| Ok((key, read_source(ctx, &path)?)))
            .map_err(|e| e.context(format!("file sources: {}", go_list(&args.files))))?;
        pairs.push(pair);
    }
    Ok(pairs)
}

/// Go's `%v` of a string slice, which kustomize's messages use.
fn go_list(items: &[String]) -> String {
    format!("[{}]", items.join(" "))
}

/// Read a file named by a generator (`http(s)://` sources come from the
/// copies the core fetched).
fn read_source(ctx: &Ctx, path: &str) -> Result<Vec<u8>, Error> {
    ctx.read_bytes(path)
}

/// Split a literal source `key=value` at its first `=`; a value wrapped in a
/// matching pair of `"` or `'` loses them.
pub(crate) fn parse_literal(source: &str) -> Result<(&str, &str), Error> {
    match source.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key, strip_quotes(value))),
        _ => Err(err!("invalid literal source {source}, expected key=value")),
    }
}

fn strip_quotes(value: &str) -> &str {
    let bytes = value.as_bytes();
    if bytes.len() >= 2
        && bytes[0] == bytes[bytes.len() - 1]
        && (bytes[0] == b'"' || bytes[0] == b'\'')
    {
        // Both ends are ASCII, so these are char boundaries.
        &value[1..value.len() - 1]
    } else {
        value
    }
}

/// Split a file source into (key, path): `path` (key = its last path
/// element) or `key=path`; more than one `=` is an error.
pub(crate) fn parse_file_source(source: &str) -> Result<(String, String), Error> {
    match source.matches('=').count() {
        0 => Ok((base_name(source).to_string(), source.to_string())),
        1 => {
            let (key, path) = source.split_once('=').unwrap_or((source, ""));
            if key.is_empty() {
                Err(err!(
                    "missing key name for file path {path:?} in source {source:?}"
                ))
            } else if path.is_empty() {
                Err(err!(
                    "missing file path for key name {key:?} in source {source:?}"
                ))
            } else {
                Ok((key.to_string(), path.to_string()))
            }
        }
        _ => Err(err!("source {source:?} key name or file path contains '='")),
    }
}

/// Go's `path.Base`: the last slash-separated element, ignoring trailing
/// slashes; "." for "" and "/" for all-slashes.
fn base_name(path: &str) -> &str {
    if path.is_empty() {
        return ".";
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/";
    }
    match trimmed.rfind('/') {
        Some(i) => &trimmed[i + 1..],
        None => trimmed,
    }
}

/// Go's `bufio.Scanner` refuses a line that does not fit its 64 KiB buffer.
const MAX_SCANNED_LINE: usize = 64 * 1024;

/// The lines of `content` the way kustomize's env-file scanner sees them:
/// split at `\n`, one trailing `\r` dropped, no empty line after a final
/// newline, and nothing from the first over-long line on.
fn scan_lines(content: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut rest = content;
    while !rest.is_empty() {
        let (line, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) if i < MAX_SCANNED_LINE => (&rest[..i], &rest[i + 1..]),
            None if rest.len() < MAX_SCANNED_LINE => (rest, &rest[rest.len()..]),
            // kustomize ignores the scanner's "token too long" error and
            // keeps the pairs read so far.
            _ => break,
        };
        lines.push(line.strip_suffix(b"\r").unwrap_or(line));
        rest = next;
    }
    lines
}

/// Parse an env file: `KEY=value` per line, `KEY` alone meaning an empty
/// value. Leading whitespace is dropped; blank lines, `#` comments and lines
/// with an empty key are skipped; a UTF-8 BOM on the first line is ignored.
/// Values are taken verbatim (quotes and trailing blanks kept).
pub(crate) fn parse_env_file(content: &[u8]) -> Result<Vec<(String, String)>, Error> {
    let mut pairs = Vec::new();
    for (number, raw) in scan_lines(content).into_iter().enumerate() {
        let line = std::str::from_utf8(raw).map_err(|_| {
            // kustomize prints the raw line bytes as Go's `%d` of a byte slice.
            let bytes: Vec<String> = raw.iter().map(u8::to_string).collect();
            err!(
                "line [{}] has invalid utf8 bytes : {}",
                bytes.join(" "),
                String::from_utf8_lossy(raw)
            )
        })?;
        let line = if number == 0 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        // Go's unicode.IsSpace and Rust's char::is_whitespace are the same set.
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        if key.is_empty() {
            continue;
        }
        pairs.push((key.to_string(), value.to_string()));
    }
    Ok(pairs)
}

/// Base64 as kustomize writes generated data: standard alphabet, and when
/// the encoding is 70 characters or longer, broken into 70-character lines
/// each ending in `\n`.
pub(crate) fn base64_wrapped(bytes: &[u8]) -> String {
    const LINE: usize = 70;
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    if encoded.len() < LINE {
        return encoded;
    }
    let mut out = String::with_capacity(encoded.len() + encoded.len() / LINE + 1);
    // The encoding is ASCII, so any byte offset is a char boundary.
    let mut rest = encoded.as_str();
    while !rest.is_empty() {
        let (line, next) = rest.split_at(rest.len().min(LINE));
        out.push_str(line);
        out.push('\n');
        rest = next;
    }
    out
}

/// `apiVersion: v1`, the kind, and metadata name (required) and namespace.
pub(crate) fn base_object(kind: &str, args: &GeneratorArgs) -> Result<Value, Error> {
    if args.name.is_empty() {
        // kustomize's wording, for Secrets too.
        return Err(err!("a configmap must have a name"));
    }
    let mut metadata = Map::new();
    metadata.insert("name".into(), Value::String(args.name.clone()));
    if !args.namespace.is_empty() {
        metadata.insert("namespace".into(), Value::String(args.namespace.clone()));
    }
    let mut obj = Map::new();
    obj.insert("apiVersion".into(), Value::String("v1".into()));
    obj.insert("kind".into(), Value::String(kind.into()));
    obj.insert("metadata".into(), Value::Object(metadata));
    Ok(Value::Object(obj))
}

/// Apply the options (labels, annotations, `immutable`) and mark the object
/// with the build annotations kustomize puts on generated resources: the
/// generator behavior always, the hash-suffix request unless disabled.
pub(crate) fn finish(obj: &mut Value, args: &GeneratorArgs) {
    let opts = &args.options;
    if !opts.labels.is_empty() {
        let labels = resource::map_at_mut(obj, &["metadata", "labels"]);
        for (k, v) in &opts.labels {
            labels.insert(k.clone(), Value::String(v.clone()));
        }
    }
    for (k, v) in &opts.annotations {
        resource::set_annotation(obj, k, v);
    }
    if opts.immutable {
        if let Some(map) = obj.as_object_mut() {
            map.insert("immutable".into(), Value::Bool(true));
        }
    }
    if !opts.disable_name_suffix_hash {
        resource::set_annotation(obj, protocol::NEEDS_HASH_SUFFIX, "enabled");
    }
    resource::set_annotation(
        obj,
        protocol::GENERATOR_BEHAVIOR,
        behavior_name(&args.behavior),
    );
}

/// kustomize's GenerationBehavior round trip: known names stay, anything
/// else (including unset) becomes "unspecified", which acts as create.
fn behavior_name(behavior: &str) -> &'static str {
    match behavior {
        "create" => "create",
        "merge" => "merge",
        "replace" => "replace",
        _ => "unspecified",
    }
}

/// Test scaffolding shared by the generator tests: a scratch kustomization
/// directory and the generate → HashTransformer pipeline the core runs.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::ctx::LoadRestrictor;
    use crate::Ctx;
    use kustom_api::{protocol, Value};
    use std::path::PathBuf;

    /// A scratch directory, removed on drop.
    pub struct Scratch {
        /// The directory.
        pub dir: PathBuf,
    }

    impl Scratch {
        /// A fresh directory unique to this process and `name`.
        pub fn new(name: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("kustom-gen-test-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("create scratch dir");
            Scratch { dir }
        }

        /// Write a file (creating parent directories).
        pub fn write(&self, rel: &str, content: &[u8]) {
            let path = self.dir.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("create parent");
            }
            std::fs::write(path, content).expect("write file");
        }

        /// A plugin context rooted here.
        pub fn ctx(&self) -> Ctx {
            Ctx {
                root: self.dir.clone(),
                load_restrictor: LoadRestrictor::RootOnly,
                kustomization: self.dir.join("kustomization.yaml").display().to_string(),
                remote_files: Default::default(),
                version: Default::default(),
            }
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    /// Hash-suffix the generated objects and drop the build annotations, as
    /// the rest of a build does: the result is what `kubectl kustomize` prints.
    pub fn finish_build(mut objs: Vec<Value>, ctx: &Ctx) -> Vec<Value> {
        crate::transformers::hash::transform(&Value::Null, &mut objs, ctx).expect("hash");
        for obj in &mut objs {
            for key in protocol::BUILD_ANNOTATIONS {
                kustom_api::resource::remove_annotation(obj, key);
            }
        }
        objs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn literal_splits_at_first_equals_and_strips_matching_quotes() {
        assert_eq!(parse_literal("a=b=c").unwrap(), ("a", "b=c"));
        assert_eq!(parse_literal("a=\"x y\"").unwrap(), ("a", "x y"));
        assert_eq!(parse_literal("a='true'").unwrap(), ("a", "true"));
        // Mismatched or lone quotes stay.
        assert_eq!(parse_literal("a=\"z'").unwrap(), ("a", "\"z'"));
        assert_eq!(parse_literal("a='").unwrap(), ("a", "'"));
        assert_eq!(parse_literal("a=\"\"").unwrap(), ("a", ""));
        assert_eq!(parse_literal("a=").unwrap(), ("a", ""));
        // Keys are not validated, as in kustomize.
        assert_eq!(parse_literal("a b=c").unwrap(), ("a b", "c"));
        // Multi-line literals keep their newlines.
        assert_eq!(parse_literal("k=one\ntwo\n").unwrap(), ("k", "one\ntwo\n"));
    }

    #[test]
    fn literal_without_key_or_equals_is_rejected() {
        for bad in ["=x", "novalue", ""] {
            let e = parse_literal(bad).unwrap_err();
            assert_eq!(
                e.message,
                format!("invalid literal source {bad}, expected key=value")
            );
        }
    }

    #[test]
    fn file_source_key_is_basename_or_explicit() {
        assert_eq!(
            parse_file_source("./path/myfile").unwrap(),
            ("myfile".to_string(), "./path/myfile".to_string())
        );
        assert_eq!(
            parse_file_source("dir/sub/").unwrap(),
            ("sub".to_string(), "dir/sub/".to_string())
        );
        assert_eq!(
            parse_file_source("new.ini=old").unwrap(),
            ("new.ini".to_string(), "old".to_string())
        );
        assert!(parse_file_source("a==b")
            .unwrap_err()
            .message
            .contains("key name or file path contains '='"));
        assert!(parse_file_source("=f")
            .unwrap_err()
            .message
            .contains("missing key name"));
        assert!(parse_file_source("k=")
            .unwrap_err()
            .message
            .contains("missing file path"));
    }

    #[test]
    fn env_file_parsing_matches_kustomize() {
        let content = b"\xef\xbb\xbfA=1\n  # comment\n\nB=\"quoted\"\r\nC\n  D = x \nE=a=b\n\tF=tab\n=skipped\nLAST=end";
        let pairs = parse_env_file(content).unwrap();
        let expect: Vec<(String, String)> = [
            ("A", "1"),
            ("B", "\"quoted\""),
            ("C", ""),
            ("D ", " x "),
            ("E", "a=b"),
            ("F", "tab"),
            ("LAST", "end"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(pairs, expect);
    }

    #[test]
    fn env_file_bom_only_stripped_on_first_line() {
        let pairs = parse_env_file(b"A=1\n\xef\xbb\xbfB=2\n").unwrap();
        assert_eq!(pairs[1].0, "\u{feff}B");
    }

    #[test]
    fn env_file_invalid_utf8_is_an_error() {
        let e = parse_env_file(b"A=1\nB=\xff\n").unwrap_err();
        assert!(e
            .message
            .starts_with("line [66 61 255] has invalid utf8 bytes"));
    }

    #[test]
    fn env_file_stops_at_overlong_line() {
        let mut content = b"A=1\n".to_vec();
        content.extend(std::iter::repeat_n(b'x', MAX_SCANNED_LINE));
        content.extend(b"\nB=2\n");
        let pairs = parse_env_file(&content).unwrap();
        assert_eq!(pairs, vec![("A".to_string(), "1".to_string())]);
        // One byte shorter fits.
        let mut content = b"A=1\nK=".to_vec();
        content.extend(std::iter::repeat_n(b'x', MAX_SCANNED_LINE - 3));
        content.extend(b"\nB=2\n");
        assert_eq!(parse_env_file(&content).unwrap().len(), 3);
    }

    #[test]
    fn base64_wraps_at_seventy() {
        assert_eq!(base64_wrapped(b"<&>"), "PCY+");
        assert_eq!(base64_wrapped(&[0xff, 0xfd]), "//0=");
        // 51 bytes encode to exactly 68 chars: no wrapping.
        assert!(!base64_wrapped(&[b'a'; 51]).contains('\n'));
        // 52 bytes → 72 chars: a 70-char line and a 2-char line, each ending in \n.
        let w = base64_wrapped(&[b'a'; 52]);
        let lines: Vec<&str> = w.split_terminator('\n').collect();
        assert_eq!(lines.iter().map(|l| l.len()).collect::<Vec<_>>(), [70, 2]);
        assert!(w.ends_with('\n'));
    }

    #[test]
    fn config_reads_metadata_fallbacks_env_and_options() {
        let cfg = json!({
            "apiVersion": "builtin",
            "kind": "ConfigMapGenerator",
            "metadata": {"name": "meta", "namespace": "ns"},
            "Literals": ["a=b"],
            "envs": ["one.env"],
            "env": "two.env",
            "options": {"labels": {"z": "1", "a": "b"}, "immutable": true},
        });
        let args = GeneratorArgs::from_config(&cfg).unwrap();
        assert_eq!(args.name, "meta");
        assert_eq!(args.namespace, "ns");
        assert_eq!(args.literals, ["a=b"]);
        // `env` is ignored in a generator config, as kustomize does.
        assert_eq!(args.envs, ["one.env"]);
        assert!(args.options.immutable);
        assert!(!args.options.disable_name_suffix_hash);
        assert_eq!(args.options.labels.keys().collect::<Vec<_>>(), ["a", "z"]);
        let cfg = json!({"name": "top", "metadata": {"name": "meta"}});
        assert_eq!(GeneratorArgs::from_config(&cfg).unwrap().name, "top");
    }

    #[test]
    fn config_type_errors_name_the_field() {
        let e = GeneratorArgs::from_config(&json!({"name": "x", "literals": "a=b"})).unwrap_err();
        assert!(e.message.contains("`literals`"), "{}", e.message);
        let e = GeneratorArgs::from_config(&json!({"name": "x", "options": {"labels": {"a": 1}}}))
            .unwrap_err();
        assert!(e.message.contains("options.labels.a"), "{}", e.message);
        let e = GeneratorArgs::from_config(
            &json!({"name": "x", "options": {"disableNameSuffixHash": "true"}}),
        )
        .unwrap_err();
        assert!(e.message.contains("disableNameSuffixHash"), "{}", e.message);
    }

    #[test]
    fn finish_sets_build_annotations() {
        let mut args = GeneratorArgs {
            name: "n".into(),
            ..Default::default()
        };
        let mut obj = base_object("ConfigMap", &args).unwrap();
        finish(&mut obj, &args);
        assert_eq!(
            resource::annotation(&obj, protocol::NEEDS_HASH_SUFFIX),
            Some("enabled")
        );
        assert_eq!(
            resource::annotation(&obj, protocol::GENERATOR_BEHAVIOR),
            Some("unspecified")
        );
        args.behavior = "merge".into();
        args.options.disable_name_suffix_hash = true;
        let mut obj = base_object("ConfigMap", &args).unwrap();
        finish(&mut obj, &args);
        assert_eq!(
            resource::annotation(&obj, protocol::NEEDS_HASH_SUFFIX),
            None
        );
        assert_eq!(
            resource::annotation(&obj, protocol::GENERATOR_BEHAVIOR),
            Some("merge")
        );
    }

    #[test]
    fn missing_name_is_an_error() {
        let args = GeneratorArgs::default();
        assert_eq!(
            base_object("Secret", &args).unwrap_err().message,
            "a configmap must have a name"
        );
    }
}
