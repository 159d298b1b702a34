//! `RefVarTransformer`: kustomize's legacy `vars:` — `$(NAME)` references
//! in the fields the `varReference` field specs name are replaced by a value
//! read from another resource.
//!
//! Config (`apiVersion: builtin`, `kind: RefVarTransformer`):
//!
//! ```yaml
//! vars:            # as written in the kustomizations
//! - name: SERVICE_NAME
//!   objref: {apiVersion: v1, kind: Service, name: my-svc}
//!   fieldref: {fieldPath: metadata.name}   # optional; this is the default
//! fieldSpecs: […]  # the varReference field specs
//! phase: match | resolve                   # optional, see below
//! ```
//!
//! kustomize works in two steps. When a kustomization's `vars:` are merged
//! (after that kustomization's transformers ran), each var is matched
//! against the resources accumulated *so far in that subtree*, and the one
//! resource it names remembers the var; at the very end of the build the
//! values are read from the remembered resources and substituted. The
//! `phase` field offers those two steps separately:
//!
//! * `phase: match`, with one kustomization's vars, where kustomize merges
//!   them: records each var on the resource it names (in the
//!   [`protocol::REF_VAR_NAMES`] annotation), or fails when it names more
//!   than one;
//! * `phase: resolve`, with all vars and the field specs, at the end: reads
//!   each value from the resource recorded for it and substitutes;
//! * no `phase`: resolve, but a var recorded on no resource is matched
//!   against the final resources first. That is kustomize's behaviour
//!   except where a subtree's var would only be unambiguous within that
//!   subtree (two bases with same-named objects in different namespaces),
//!   which only the `match` phase can reproduce.
//!
//! Resolving removes the bookkeeping annotation from every resource.

use crate::Ctx;
use base64::Engine as _;
use kustom_api::fieldspec::{split_path, FieldSpec};
use kustom_api::resid::previous_ids;
use kustom_api::{err, protocol, resource, Error, Gvk, ResId, Value};
use regex::Regex;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Run the var step the config asks for (see the module docs).
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, _ctx: &Ctx) -> Result<(), Error> {
    let vars = match config.get("vars") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(Var::parse).collect::<Result<_, _>>()?,
        Some(_) => return Err(Error::new("RefVarTransformer: `vars` must be a list")),
    };
    let phase = match config.get("phase") {
        None | Some(Value::Null) => Phase::MatchUnrecordedThenResolve,
        Some(Value::String(s)) if s == "match" => Phase::Match,
        Some(Value::String(s)) if s == "resolve" => Phase::Resolve,
        Some(other) => {
            return Err(err!(
                "RefVarTransformer: unknown phase {other}; expected \"match\" or \"resolve\""
            ))
        }
    };
    if phase == Phase::Match {
        return record_matches(&vars, resources);
    }
    let specs: Vec<FieldSpec> = match config.get("fieldSpecs") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| err!("RefVarTransformer: invalid fieldSpecs: {e}"))?,
    };
    resolve(
        vars,
        &specs,
        resources,
        phase == Phase::MatchUnrecordedThenResolve,
    )
}

/// Which part of kustomize's var handling a call performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Record each var on the resource it names.
    Match,
    /// Substitute values read from the recorded resources.
    Resolve,
    /// Resolve, matching vars that were recorded nowhere first.
    MatchUnrecordedThenResolve,
}

// ---------------------------------------------------------------------------
// Vars

/// One `vars:` entry.
#[derive(Debug, Clone, PartialEq)]
struct Var {
    name: String,
    /// `objref.apiVersion`; when set it overrides `group` / `version`.
    api_version: String,
    group: String,
    version: String,
    kind: String,
    objref_name: String,
    objref_namespace: String,
    /// `fieldref.fieldPath` as written; empty means `metadata.name`.
    field_path: String,
}

/// kustomize's default `fieldref.fieldPath`.
const DEFAULT_FIELD_PATH: &str = "metadata.name";

impl Var {
    /// Read a var the way kustomize decodes it: keys match case-insensitively
    /// (Go's JSON decoding), absent or null fields are empty.
    fn parse(v: &Value) -> Result<Var, Error> {
        let obj = v
            .as_object()
            .ok_or_else(|| err!("invalid var {v}: expected a mapping"))?;
        let name = string_field(obj, "name", "name")?;
        let objref = match field_ci(obj, "objref") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(_) => return Err(err!("invalid var '{name}': `objref` must be a mapping")),
        };
        let fieldref = match field_ci(obj, "fieldref") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(_) => return Err(err!("invalid var '{name}': `fieldref` must be a mapping")),
        };
        let from_objref = |key: &str| match objref {
            Some(m) => string_field(m, key, &format!("objref.{key}")),
            None => Ok(String::new()),
        };
        Ok(Var {
            api_version: from_objref("apiVersion")?,
            group: from_objref("group")?,
            version: from_objref("version")?,
            kind: from_objref("kind")?,
            objref_name: from_objref("name")?,
            objref_namespace: from_objref("namespace")?,
            field_path: match fieldref {
                Some(m) => string_field(m, "fieldPath", "fieldref.fieldPath")?,
                None => String::new(),
            },
            name,
        })
    }

    /// The objref's gvk: `apiVersion` (split at the first `/`) overrides
    /// the group and version, as kustomize's `Target.GVK()` does; a bare
    /// `v1` sets only the version.
    fn gvk(&self) -> Gvk {
        let (group, version) = if self.api_version.is_empty() {
            (self.group.clone(), self.version.clone())
        } else {
            match self.api_version.split_once('/') {
                Some((g, v)) => (g.to_string(), v.to_string()),
                None => (self.group.clone(), self.api_version.clone()),
            }
        };
        Gvk {
            group,
            version,
            kind: self.kind.clone(),
        }
    }

    /// The field path with kustomize's default applied.
    fn effective_field_path(&self) -> &str {
        if self.field_path.is_empty() {
            DEFAULT_FIELD_PATH
        } else {
            &self.field_path
        }
    }

    /// Go's `%v` of kustomize's `Var` struct, which its error messages
    /// embed: `{NAME Kind.version.group {fieldPath}}` (the objref prints as
    /// its gvk only). `gvk` and `field_path` are given because kustomize
    /// prints the var at different stages of defaulting.
    fn go_repr(&self, gvk: &Gvk, field_path: &str) -> String {
        format!("{{{} {gvk} {{{field_path}}}}}", self.name)
    }

    /// As printed while merging: gvk from apiVersion, field path as written.
    fn repr_merging(&self) -> String {
        self.go_repr(&self.gvk(), &self.field_path)
    }

    /// As printed while resolving: fully defaulted.
    fn repr_resolving(&self) -> String {
        self.go_repr(&self.gvk(), self.effective_field_path())
    }

    /// As written in the kustomization (`merging vars [...]`): only the
    /// inline group/version/kind, no defaults.
    fn repr_raw(&self) -> String {
        let gvk = Gvk {
            group: self.group.clone(),
            version: self.version.clone(),
            kind: self.kind.clone(),
        };
        self.go_repr(&gvk, &self.field_path)
    }

    /// Whether `id` is the object the objref names: same gvk and name, and,
    /// when the objref gives a namespace, the same effective namespace. (An
    /// objref never counts as cluster-scoped in kustomize, so a namespace
    /// of "default" or a name stands for itself.)
    fn names(&self, gvk: &Gvk, id: &ResId) -> bool {
        if id.name != self.objref_name || id.gvk != *gvk {
            return false;
        }
        if self.objref_namespace.is_empty() {
            return true;
        }
        id.effective_namespace() == self.objref_namespace
    }
}

/// The last value whose key equals `key` ignoring ASCII case (Go's JSON
/// decoder accepts any case, later keys overwriting earlier ones).
fn field_ci<'a>(obj: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v)
        .next_back()
}

/// A string field (empty when absent or null); anything else is an error.
fn string_field(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<String, Error> {
    match field_ci(obj, key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(err!("invalid var: `{what}` must be a string, got {other}")),
    }
}

// ---------------------------------------------------------------------------
// Matching vars to resources

/// Indexes of the resources that `var` names by any of their ids (current
/// or earlier, so an objref may use the name before prefixes and hashes).
fn matching_resources(var: &Var, resources: &[Value]) -> Vec<usize> {
    let gvk = var.gvk();
    resources
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            previous_ids(r)
                .iter()
                .chain(std::iter::once(&ResId::of(r)))
                .any(|id| var.names(&gvk, id))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The one resource `var` names, None when there is none; more than one
/// is kustomize's "unable to disambiguate" error.
fn unique_match(var: &Var, resources: &[Value]) -> Result<Option<usize>, Error> {
    let found = matching_resources(var, resources);
    match found.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(*one)),
        many => Err(err!(
            "found {} resId matches for var {} (unable to disambiguate)",
            many.len(),
            var.repr_merging()
        )),
    }
}

/// The `match` phase: record each var on the one resource it names.
fn record_matches(vars: &[Var], resources: &mut [Value]) -> Result<(), Error> {
    for var in vars {
        let found = unique_match(var, resources).map_err(|e| {
            let all: Vec<String> = vars.iter().map(Var::repr_raw).collect();
            e.context(format!("merging vars [{}]", all.join(" ")))
        })?;
        if let Some(i) = found {
            let mut names = recorded_names(&resources[i])?;
            names.push(var.name.clone());
            let encoded = serde_json::to_string(&names)
                .map_err(|e| err!("encoding {}: {e}", protocol::REF_VAR_NAMES))?;
            resource::set_annotation(&mut resources[i], protocol::REF_VAR_NAMES, &encoded);
        }
    }
    Ok(())
}

/// The var names recorded on a resource (a JSON list of strings, so any
/// var name survives).
fn recorded_names(r: &Value) -> Result<Vec<String>, Error> {
    match resource::annotation(r, protocol::REF_VAR_NAMES) {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(text).map_err(|e| {
            err!(
                "malformed {} annotation on {}: {e}",
                protocol::REF_VAR_NAMES,
                ResId::of(r)
            )
        }),
    }
}

// ---------------------------------------------------------------------------
// Resolving

/// A var's value as kustomize reads it from a field.
#[derive(Debug, Clone, PartialEq)]
enum VarValue {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A mapping or sequence: kustomize cannot substitute it and leaves
    /// `$(NAME)` in place.
    Structured,
}

impl VarValue {
    /// Convert the value found at a field path. Integers beyond 64 bits are
    /// an error, as kustomize's `strconv.Atoi` makes them.
    fn from_field(v: &Value) -> Option<VarValue> {
        Some(match v {
            Value::String(s) => VarValue::Str(s.clone()),
            Value::Bool(b) => VarValue::Bool(*b),
            Value::Number(n) if n.is_f64() => VarValue::Float(n.as_f64()?),
            Value::Number(n) => VarValue::Int(n.as_i64()?),
            // kustomize returns a null scalar's text; the JSON form keeps no
            // spelling, and `null` is the one it writes itself.
            Value::Null => VarValue::Str("null".into()),
            Value::Object(_) | Value::Array(_) => VarValue::Structured,
        })
    }

    /// The value standing alone in a field: typed, as kustomize retags the node.
    fn to_json(&self) -> Option<Value> {
        Some(match self {
            VarValue::Str(s) => Value::String(s.clone()),
            VarValue::Int(i) => Value::from(*i),
            VarValue::Float(f) => serde_json::Number::from_f64(*f).map(Value::Number)?,
            VarValue::Bool(b) => Value::Bool(*b),
            VarValue::Structured => return None,
        })
    }

    /// The value inside a longer string: Go's `%v` formatting.
    fn to_text(&self) -> Option<String> {
        Some(match self {
            VarValue::Str(s) => s.clone(),
            VarValue::Int(i) => i.to_string(),
            VarValue::Float(f) => go_format_float(*f),
            VarValue::Bool(b) => b.to_string(),
            VarValue::Structured => return None,
        })
    }
}

/// The final step: read every var's value, then substitute in the fields
/// `specs` name. With `match_unrecorded`, a var recorded on no resource is
/// matched against all resources first.
fn resolve(
    mut vars: Vec<Var>,
    specs: &[FieldSpec],
    resources: &mut [Value],
    match_unrecorded: bool,
) -> Result<(), Error> {
    let recorded: Vec<Vec<String>> = resources
        .iter()
        .map(recorded_names)
        .collect::<Result<_, _>>()?;
    // The bookkeeping goes first so substitution never sees it.
    for r in resources.iter_mut() {
        resource::remove_annotation(r, protocol::REF_VAR_NAMES);
    }
    // kustomize reads the values in name order, so the first failure
    // reported is that of the alphabetically first var.
    vars.sort_by(|a, b| a.name.cmp(&b.name));
    let mut values: HashMap<String, VarValue> = HashMap::new();
    for var in &vars {
        let source = match recorded.iter().position(|names| names.contains(&var.name)) {
            Some(i) => Some(i),
            None if match_unrecorded => unique_match(var, resources)?,
            None => None,
        };
        let Some(i) = source else {
            return Err(err!(
                "var '{}' cannot be mapped to a field in the set of known resources",
                var.repr_resolving()
            ));
        };
        let value = lookup_field(&resources[i], var.effective_field_path())
            .and_then(VarValue::from_field)
            .ok_or_else(|| {
                err!(
                    "field specified in var '{}' not found in corresponding resource",
                    var.repr_resolving()
                )
            })?;
        values.insert(var.name.clone(), value);
    }
    if values.is_empty() {
        return Ok(());
    }
    let mut subst = Substituter {
        values: &values,
        used: HashMap::new(),
    };
    for r in resources.iter_mut() {
        for spec in specs {
            subst.apply_spec(r, spec)?;
        }
    }
    let mut unused: Vec<&str> = vars
        .iter()
        .map(|v| v.name.as_str())
        .filter(|n| !subst.used.contains_key(*n))
        .collect();
    unused.dedup();
    if !unused.is_empty() {
        tracing::info!(
            "well-defined vars that were never replaced: {}",
            unused.join(",")
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Field paths (`fieldref.fieldPath`)

/// Split a var field path the way kustomize does: at dots (`\.` keeps a
/// dot), a bracketed part spanning dots stays whole (`[a.b]` becomes the
/// key `a.b`, `[name=x.y]` stays a list selector), `ports[0]` becomes
/// `ports`, `0`; blank parts are dropped.
fn split_field_path(path: &str) -> Vec<String> {
    // Dots, with backslash escapes (a leading dot is ignored).
    let mut raw: Vec<&str> = path.split('.').collect();
    if raw.len() > 1 && raw[0].is_empty() {
        raw.remove(0);
    }
    let mut parts: Vec<String> = Vec::new();
    for p in raw {
        match parts.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push('.');
                last.push_str(p);
            }
            _ => parts.push(p.to_string()),
        }
    }
    // Re-join brackets the dots cut apart.
    let mut grouped: Vec<String> = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let part = &parts[i];
        if part.starts_with('[') && !part.ends_with(']') {
            let mut pieces = vec![part.as_str()];
            while i + 1 < parts.len() {
                i += 1;
                pieces.push(&parts[i]);
                if parts[i].ends_with(']') {
                    break;
                }
            }
            let joined = pieces.join(".");
            if joined.contains('=') {
                grouped.push(joined);
            } else {
                grouped.push(joined.trim_matches(|c| c == '[' || c == ']').to_string());
            }
        } else {
            grouped.push(part.clone());
        }
        i += 1;
    }
    // `name[3]` → `name`, `3`.
    static INDEXED: OnceLock<Regex> = OnceLock::new();
    let indexed = INDEXED.get_or_init(|| {
        Regex::new(r"^(.*)\[([0-9]+)\]$").unwrap_or_else(|e| unreachable!("constant regex: {e}"))
    });
    let mut out = Vec::new();
    for part in grouped {
        match indexed.captures(&part) {
            Some(c) if part.ends_with(']') => {
                let field = c.get(1).map_or("", |m| m.as_str());
                if !field.is_empty() {
                    out.push(field.to_string());
                }
                out.push(c.get(2).map_or("", |m| m.as_str()).to_string());
            }
            _ => out.push(part),
        }
    }
    out.into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The value at a var field path, or None when it is missing or the path
/// does not fit the object (kustomize reports both the same way).
fn lookup_field<'a>(obj: &'a Value, path: &str) -> Option<&'a Value> {
    let mut node = obj;
    for part in split_field_path(path) {
        node = lookup_step(node, &part)?;
    }
    Some(node)
}

/// One step of a field path: a list index (`0`, `-` for the last), a list
/// selector (`[key=value]`, `[=value]` for scalar items) or a map key.
fn lookup_step<'a>(node: &'a Value, part: &str) -> Option<&'a Value> {
    if let Ok(idx) = part.parse::<i64>() {
        let idx = usize::try_from(idx).ok()?;
        return node.as_array()?.get(idx);
    }
    match part {
        "-" => return node.as_array()?.last(),
        // kustomize rejects wildcards here.
        "*" => return None,
        _ => {}
    }
    if part.starts_with('[') && part.ends_with(']') {
        let inner = part.strip_suffix(']').unwrap_or(part);
        let inner = inner.strip_prefix('[').unwrap_or(inner);
        let (key, value) = inner.split_once('=')?;
        let items = match node {
            Value::Null => return None,
            Value::Array(items) => items,
            _ => return None,
        };
        if key.is_empty() {
            return items.iter().find(|item| scalar_text(item) == value);
        }
        return items.iter().find(|item| {
            item.as_object()
                .and_then(|m| m.get(key))
                // `[key=]` asks only that the key be there.
                .is_some_and(|v| value.is_empty() || scalar_text(v) == value)
        });
    }
    node.as_object()?.get(part)
}

/// A node's scalar text as YAML compares it (collections have none).
fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Object(_) | Value::Array(_) => String::new(),
    }
}

// ---------------------------------------------------------------------------
// Substitution

/// Replaces `$(NAME)` references and counts which vars were used.
struct Substituter<'a> {
    values: &'a HashMap<String, VarValue>,
    used: HashMap<String, usize>,
}

impl Substituter<'_> {
    /// Substitute in every field of `obj` that `spec` names.
    fn apply_spec(&mut self, obj: &mut Value, spec: &FieldSpec) -> Result<(), Error> {
        if !spec.applies_to_object(obj) {
            return Ok(());
        }
        let id = ResId::of(obj);
        let path = split_path(&spec.path);
        self.walk(obj, &path)
            .map_err(|e| e.context(format!("considering field '{}' of object {id}", spec.path)))
    }

    /// Follow `path` down from `node`; sequences on the way are walked item
    /// by item, missing or null fields end the walk quietly.
    fn walk(&mut self, node: &mut Value, path: &[String]) -> Result<(), Error> {
        let Some((first, _)) = path.split_first() else {
            return self.substitute_field(node);
        };
        match node {
            Value::Null => Ok(()),
            Value::Array(items) => {
                for item in items {
                    self.walk(item, path).map_err(|e| {
                        e.context(format!("visit traversal on path: [{}]", path.join(" ")))
                    })?;
                }
                Ok(())
            }
            Value::Object(map) => {
                // A trailing `[]` only hints at a sequence.
                let key = first.strip_suffix("[]").unwrap_or(first);
                if key.is_empty() {
                    return Err(Error::new("cannot set or create an empty field name"));
                }
                match map.get_mut(key) {
                    Some(child) => self.walk(child, &path[1..]),
                    None => Ok(()),
                }
            }
            _ => Err(Error::new("expected sequence or mapping node")),
        }
    }

    /// The field the spec names: a string, the string values of a map, or
    /// the items of a sequence of strings.
    fn substitute_field(&mut self, node: &mut Value) -> Result<(), Error> {
        match node {
            Value::String(s) => {
                *node = self.expand(s);
                Ok(())
            }
            Value::Object(map) => {
                for v in map.values_mut() {
                    if let Value::String(s) = v {
                        *v = self.expand(s);
                    }
                }
                Ok(())
            }
            Value::Array(items) => {
                for item in items {
                    let Value::String(s) = item else {
                        return Err(Error::new("invalid value type expect a string"));
                    };
                    *item = self.expand(s);
                }
                Ok(())
            }
            // Null, numbers and booleans hold no references.
            _ => Ok(()),
        }
    }

    /// The value of `$(name)`, counting the use; None for an unknown or
    /// structured var (the reference then stays as written).
    fn value_of(&mut self, name: &str) -> Option<&VarValue> {
        let v = self.values.get(name)?;
        if *v == VarValue::Structured {
            tracing::info!("var {name}: a mapping or sequence cannot replace $({name})");
            return None;
        }
        *self.used.entry(name.to_string()).or_insert(0) += 1;
        Some(v)
    }

    /// Expand references in one string. A string that is exactly one
    /// known reference takes the var's value with its type; otherwise the
    /// result is a string. `$$` is an escaped `$`; `$(` without a closing
    /// `)` and `$` before anything else stay as written.
    fn expand(&mut self, input: &str) -> Value {
        if let Some(name) = whole_reference(input) {
            let typed = self.value_of(name).and_then(VarValue::to_json);
            return typed.unwrap_or_else(|| Value::String(input.to_string()));
        }
        let bytes = input.as_bytes();
        let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b != b'$' || i + 1 == bytes.len() {
                out.push(b);
                i += 1;
                continue;
            }
            match bytes[i + 1] {
                b'$' => {
                    out.push(b'$');
                    i += 2;
                }
                b'(' => match input[i + 2..].find(')') {
                    Some(len) => {
                        let name = &input[i + 2..i + 2 + len];
                        match self.value_of(name).and_then(VarValue::to_text) {
                            Some(text) => out.extend_from_slice(text.as_bytes()),
                            None => out.extend_from_slice(&bytes[i..i + 3 + len]),
                        }
                        i += 3 + len;
                    }
                    None => {
                        out.extend_from_slice(b"$(");
                        i += 2;
                    }
                },
                other => {
                    // kustomize copies the next *byte* as if it were a code
                    // point: ASCII passes through; the lead byte of a
                    // multi-byte character becomes its Latin-1 look-alike,
                    // leaving the continuation bytes dangling.
                    out.push(b'$');
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(char::from(other).encode_utf8(&mut buf).as_bytes());
                    i += 2;
                }
            }
        }
        match String::from_utf8(out) {
            Ok(s) => Value::String(s),
            // kustomize's YAML encoder writes a string that is not UTF-8 as
            // base64; that text is what its output shows.
            Err(e) => {
                Value::String(base64::engine::general_purpose::STANDARD.encode(e.into_bytes()))
            }
        }
    }
}

/// The name in a string that is exactly `$(name)`.
fn whole_reference(s: &str) -> Option<&str> {
    let name = s.strip_prefix("$(")?.strip_suffix(')')?;
    (!name.contains(')')).then_some(name)
}

/// Go's `%v` for a float64: the shortest digits that round-trip, in
/// exponent form (`1.5e+06`, `1e-05`) when the exponent is below -4 or at
/// least 6, else plain.
fn go_format_float(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    // Rust's `{:e}` gives the same shortest digits: `-1.234e5`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_first().unwrap_or((&b'0', &[]));
        out.push(char::from(*first));
        if !rest.is_empty() {
            out.push('.');
            out.extend(rest.iter().map(|&d| char::from(d)));
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
        return out;
    }
    // Plain: `dp` digits before the point.
    let dp = exp + 1;
    let digit_at = |i: i32| -> char {
        usize::try_from(i)
            .ok()
            .and_then(|i| digits.get(i))
            .map_or('0', |&d| char::from(d))
    };
    if dp > 0 {
        (0..dp).for_each(|i| out.push(digit_at(i)));
    } else {
        out.push('0');
    }
    let n_digits = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if n_digits > dp {
        out.push('.');
        (dp..n_digits).for_each(|i| out.push(digit_at(i)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::LoadRestrictor;
    use serde_json::json;

    fn ctx() -> Ctx {
        Ctx {
            root: ".".into(),
            load_restrictor: LoadRestrictor::RootOnly,
            kustomization: "kustomization.yaml".into(),
            remote_files: Default::default(),
        }
    }

    fn config(vars: Value, specs: Value) -> Value {
        json!({
            "apiVersion": "builtin", "kind": "RefVarTransformer",
            "metadata": {"name": "vars"}, "vars": vars, "fieldSpecs": specs,
        })
    }

    fn var(name: &str, kind: &str, obj: &str, path: &str) -> Value {
        json!({"name": name, "objref": {"apiVersion": "v1", "kind": kind, "name": obj},
               "fieldref": {"fieldPath": path}})
    }

    fn service(name: &str, ns: Option<&str>, port: i64) -> Value {
        let mut s = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                           "spec": {"ports": [{"name": "http", "port": port, "protocol": "TCP"}]}});
        if let Some(ns) = ns {
            resource::set_namespace(&mut s, ns);
        }
        s
    }

    fn pod(command: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod"},
               "spec": {"containers": [{"name": "c", "command": command}]}})
    }

    fn pod_specs() -> Value {
        json!([{"kind": "Pod", "path": "spec/containers/command"},
               {"kind": "Pod", "path": "spec/containers/env/value"}])
    }

    fn substituter(values: &HashMap<String, VarValue>) -> Substituter<'_> {
        Substituter {
            values,
            used: HashMap::new(),
        }
    }

    fn sample_values() -> HashMap<String, VarValue> {
        HashMap::from([
            ("S".to_string(), VarValue::Str("svc".into())),
            ("I".to_string(), VarValue::Int(8080)),
            ("F".to_string(), VarValue::Float(0.75)),
            ("B".to_string(), VarValue::Bool(true)),
            ("M".to_string(), VarValue::Structured),
            ("E".to_string(), VarValue::Str(String::new())),
        ])
    }

    #[test]
    fn whole_reference_keeps_the_value_type() {
        let values = sample_values();
        let mut s = substituter(&values);
        assert_eq!(s.expand("$(S)"), json!("svc"));
        assert_eq!(s.expand("$(I)"), json!(8080));
        assert_eq!(s.expand("$(F)"), json!(0.75));
        assert_eq!(s.expand("$(B)"), json!(true));
        assert_eq!(s.expand("$(E)"), json!(""));
        // Unknown and structured vars stay as written.
        assert_eq!(s.expand("$(NOPE)"), json!("$(NOPE)"));
        assert_eq!(s.expand("$(M)"), json!("$(M)"));
        assert_eq!(s.used.get("I"), Some(&1));
        assert!(!s.used.contains_key("M"));
        assert!(!s.used.contains_key("NOPE"));
    }

    #[test]
    fn references_inside_strings_become_text() {
        let values = sample_values();
        let mut s = substituter(&values);
        assert_eq!(
            s.expand("http://$(S):$(I)/?r=$(F)&b=$(B)"),
            json!("http://svc:8080/?r=0.75&b=true")
        );
        assert_eq!(s.expand("$(S)$(S)"), json!("svcsvc"));
        assert_eq!(s.expand("x$(M)y$(NOPE)"), json!("x$(M)y$(NOPE)"));
        assert_eq!(s.used.get("S"), Some(&3));
    }

    #[test]
    fn escapes_and_malformed_references() {
        let values = sample_values();
        let mut s = substituter(&values);
        let cases = [
            ("$$(S)", "$(S)"),
            ("$$$(S)", "$svc"),
            ("$$", "$"),
            ("$", "$"),
            ("a$", "a$"),
            ("cost $5", "cost $5"),
            ("$(", "$("),
            ("$(S", "$(S"),
            ("x$(S", "x$(S"),
            ("$($(S)", "$($(S)"),
            ("$()", "$()"),
            ("$(S$$x)", "$(S$$x)"),
            ("\n", "\n"),
        ];
        for (input, want) in cases {
            assert_eq!(s.expand(input), json!(want), "input {input:?}");
        }
    }

    #[test]
    fn dollar_before_a_multibyte_character_mimics_kustomize() {
        // kubectl kustomize prints "$€" as JMOigqw= and "€$é$(FLAG)" (FLAG
        // true) as 4oKsJMODqXRydWU=: the byte after `$` is taken for a code
        // point and the invalid result is written as base64.
        let values = HashMap::from([("FLAG".to_string(), VarValue::Bool(true))]);
        let mut s = substituter(&values);
        assert_eq!(s.expand("$€"), json!("JMOigqw="));
        assert_eq!(s.expand("€$é$(FLAG)"), json!("4oKsJMODqXRydWU="));
        // Non-ASCII text without a `$` before it is untouched.
        assert_eq!(s.expand("é$(FLAG)€"), json!("étrue€"));
    }

    #[test]
    fn floats_print_like_go() {
        let cases = [
            (0.75, "0.75"),
            (3.25159, "3.25159"),
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (2500000.5, "2.5000005e+06"),
            (1e21, "1e+21"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (2e-5, "2e-05"),
            (-1.5, "-1.5"),
            (0.0, "0"),
            (100.0, "100"),
            (1e-100, "1e-100"),
        ];
        for (f, want) in cases {
            assert_eq!(go_format_float(f), want, "{f}");
        }
    }

    #[test]
    fn field_paths_split_like_kustomize() {
        let cases: [(&str, &[&str]); 8] = [
            ("metadata.name", &["metadata", "name"]),
            ("spec.ports[0].port", &["spec", "ports", "0", "port"]),
            ("spec.a[1][2]", &["spec", "a[1]", "2"]),
            (
                "metadata.annotations.[example.com/owner]",
                &["metadata", "annotations", "example.com/owner"],
            ),
            (
                "spec.ports.[name=a.b].port",
                &["spec", "ports", "[name=a.b]", "port"],
            ),
            ("data.a\\.b", &["data", "a.b"]),
            (".spec..x", &["spec", "x"]),
            ("spec. x ", &["spec", "x"]),
        ];
        for (path, want) in cases {
            assert_eq!(split_field_path(path), want, "{path}");
        }
    }

    #[test]
    fn field_lookup() {
        let obj = json!({"spec": {
            "ports": [{"name": "http", "port": 80}, {"name": "metrics", "port": 9090}],
            "list": ["a", "b"],
            "nothing": null,
            "data": {"0": "zero"},
        }});
        let at = |p: &str| lookup_field(&obj, p).cloned();
        assert_eq!(at("spec.ports[1].port"), Some(json!(9090)));
        assert_eq!(at("spec.ports.[name=metrics].port"), Some(json!(9090)));
        assert_eq!(at("spec.ports.[name=].port"), Some(json!(80)));
        assert_eq!(at("spec.ports.-.name"), Some(json!("metrics")));
        assert_eq!(at("spec.list.[=b]"), Some(json!("b")));
        assert_eq!(at("spec.nothing"), Some(Value::Null));
        assert_eq!(at("spec.ports[2].port"), None);
        assert_eq!(at("spec.ports.[name=x].port"), None);
        assert_eq!(at("spec.ports.[name].port"), None);
        assert_eq!(at("spec.ports.*.port"), None);
        assert_eq!(at("spec.nothing.below"), None);
        assert_eq!(at("spec.list.name"), None);
        // A numeric part always indexes a list, never a map key.
        assert_eq!(at("spec.data.0"), None);
        // `ports[name=x]` without the dot is a (missing) key.
        assert_eq!(at("spec.ports[name=http]"), None);
    }

    #[test]
    fn vars_decode_like_go_json() {
        let v = Var::parse(&json!({
            "Name": "X",
            "objRef": {"APIVersion": "apps/v1", "Kind": "Deployment", "name": "d", "group": "ignored"},
            "FieldRef": {"fieldpath": "spec.replicas"},
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(v.name, "X");
        assert_eq!(v.gvk(), Gvk::from_api_version("apps/v1", "Deployment"));
        assert_eq!(v.field_path, "spec.replicas");
        assert_eq!(v.repr_resolving(), "{X Deployment.v1.apps {spec.replicas}}");

        // No fieldref: metadata.name; a bare version keeps an inline group.
        let v = Var::parse(&json!({"name": "Y", "objref": {"apiVersion": "v2", "group": "g", "kind": "K", "name": "n"}}))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(v.gvk(), Gvk::from_api_version("g/v2", "K"));
        assert_eq!(v.repr_resolving(), "{Y K.v2.g {metadata.name}}");
        assert_eq!(v.repr_merging(), "{Y K.v2.g {}}");
        assert_eq!(v.repr_raw(), "{Y K.[noVer].g {}}");

        assert!(Var::parse(&json!({"name": 3})).is_err());
        assert!(Var::parse(&json!({"name": "Z", "objref": "x"})).is_err());
    }

    #[test]
    fn substitutes_in_lists_maps_and_scalars_of_the_specs_fields() {
        let mut rs = vec![
            service("backend", None, 8080),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"template": {
                "metadata": {"annotations": {"a": "$(PORT)", "n": 1, "s": "svc=$(SVC)"}},
                "spec": {"containers": [
                    {"name": "one", "args": ["$(SVC)", "--port=$(PORT)"],
                     "env": [{"name": "P", "value": "$(PORT)"}, {"name": "Q", "valueFrom": {}}]},
                    {"name": "two"},
                ]}}}}),
        ];
        let specs = json!([
            {"kind": "Deployment", "path": "spec/template/metadata/annotations"},
            {"kind": "Deployment", "path": "spec/template/spec/containers/args"},
            {"kind": "Deployment", "path": "spec/template/spec/containers/env/value"},
            {"kind": "Deployment", "path": "spec/template/spec/containers/command"},
            {"kind": "Job", "path": "spec/template/spec/containers/args"},
        ]);
        let vars = json!([
            var("SVC", "Service", "backend", ""),
            var("PORT", "Service", "backend", "spec.ports[0].port"),
        ]);
        transform(&config(vars, specs), &mut rs, &ctx()).unwrap_or_else(|e| panic!("{e}"));
        let t = &rs[1]["spec"]["template"];
        assert_eq!(
            t["metadata"]["annotations"],
            json!({"a": 8080, "n": 1, "s": "svc=backend"})
        );
        let c = &t["spec"]["containers"];
        assert_eq!(c[0]["args"], json!(["backend", "--port=8080"]));
        assert_eq!(c[0]["env"][0]["value"], json!(8080));
        assert_eq!(c[0]["env"][1], json!({"name": "Q", "valueFrom": {}}));
        assert_eq!(c[1], json!({"name": "two"}));
    }

    #[test]
    fn objref_may_use_an_earlier_name() {
        let mut svc = service("dev-backend-x", None, 80);
        resource::set_annotation(&mut svc, protocol::PREVIOUS_NAMES, "backend,dev-backend");
        resource::set_annotation(&mut svc, protocol::PREVIOUS_NAMESPACES, "default,default");
        resource::set_annotation(&mut svc, protocol::PREVIOUS_KINDS, "Service,Service");
        let mut rs = vec![svc, pod(json!(["$(SVC)"]))];
        let vars = json!([var("SVC", "Service", "backend", "")]);
        transform(&config(vars, pod_specs()), &mut rs, &ctx()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            rs[1]["spec"]["containers"][0]["command"],
            json!(["dev-backend-x"])
        );
    }

    #[test]
    fn errors_read_like_kustomize() {
        let run = |vars: Value, rs: &mut Vec<Value>| {
            transform(&config(vars, pod_specs()), rs, &ctx())
                .err()
                .map(|e| e.message)
                .unwrap_or_default()
        };
        // An objref without apiVersion names no object (texts from kubectl kustomize).
        let mut rs = vec![service("svc", None, 80), pod(json!(["$(NOVER)"]))];
        let no_version = json!([{"name": "NOVER", "objref": {"kind": "Service", "name": "svc"}}]);
        assert_eq!(
            run(no_version, &mut rs),
            "var '{NOVER Service.[noVer].[noGrp] {metadata.name}}' cannot be mapped to a field in the set of known resources"
        );
        let missing = json!([var("MISSING", "Service", "svc", "spec.ports[1].port")]);
        assert_eq!(
            run(missing, &mut rs),
            "field specified in var '{MISSING Service.v1.[noGrp] {spec.ports[1].port}}' not found in corresponding resource"
        );
        // The alphabetically first bad var is reported.
        let two = json!([
            var("ZED", "Service", "nope", ""),
            var("ALPHA", "Service", "svc", "spec.x")
        ]);
        assert!(run(two, &mut rs).starts_with("field specified in var '{ALPHA "));
        // A sequence field must hold strings.
        let mut rs = vec![service("svc", None, 80), pod(json!(["$(SVC)", 1]))];
        assert_eq!(
            run(json!([var("SVC", "Service", "svc", "")]), &mut rs),
            "considering field 'spec/containers/command' of object Pod.v1.[noGrp]/pod.[noNs]: \
             visit traversal on path: [command]: invalid value type expect a string"
        );
        // Two objects of the same name in different namespaces.
        let mut rs = vec![service("svc", Some("a"), 1), service("svc", Some("b"), 2)];
        assert_eq!(
            run(json!([var("SVC", "Service", "svc", "")]), &mut rs),
            "found 2 resId matches for var {SVC Service.v1.[noGrp] {}} (unable to disambiguate)"
        );
    }

    #[test]
    fn objref_namespace_narrows_the_match() {
        let ns_var = |ns: &str| {
            json!([{"name": "V", "objref": {"apiVersion": "v1", "kind": "Service", "name": "svc", "namespace": ns},
                    "fieldref": {"fieldpath": "spec.ports[0].port"}}])
        };
        let mut rs = vec![
            service("svc", Some("a"), 1),
            service("svc", Some("b"), 2),
            pod(json!(["$(V)"])),
        ];
        transform(&config(ns_var("b"), pod_specs()), &mut rs, &ctx())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rs[2]["spec"]["containers"][0]["command"], json!([2]));

        // "default" stands for no namespace.
        let mut rs = vec![service("svc", None, 7), pod(json!(["$(V)"]))];
        transform(&config(ns_var("default"), pod_specs()), &mut rs, &ctx())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rs[1]["spec"]["containers"][0]["command"], json!([7]));

        // A namespace in the objref never matches a cluster-scoped object.
        let mut rs =
            vec![json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})];
        let vars = json!([{"name": "NS", "objref": {"apiVersion": "v1", "kind": "Namespace", "name": "team", "namespace": "team"}}]);
        let e = transform(&config(vars, pod_specs()), &mut rs, &ctx()).err();
        assert!(e.is_some_and(|e| e.message.contains("cannot be mapped")));
    }

    /// Two bases each declare vars naming their own `elasticsearch` Service
    /// (namespaces dev and test); only matching per kustomization, as
    /// kustomize does, tells them apart.
    #[test]
    fn match_phase_scopes_vars_to_their_kustomization() {
        let es_vars = |env: &str| {
            json!([
                var(&format!("{env}-name"), "Service", "elasticsearch", ""),
                var(
                    &format!("{env}-port"),
                    "Service",
                    "elasticsearch",
                    "spec.ports[0].port"
                )
            ])
        };
        let matching = |vars: Value| {
            json!({"apiVersion": "builtin", "kind": "RefVarTransformer", "metadata": {"name": "vars"},
                   "phase": "match", "vars": vars})
        };
        let mut dev = vec![
            service("elasticsearch", Some("dev"), 9300),
            pod(json!(["$(dev-name):$(dev-port)"])),
        ];
        let mut test = vec![
            service("elasticsearch", Some("test"), 9400),
            pod(json!(["$(test-name):$(test-port)"])),
        ];
        resource::set_name(&mut test[1], "pod2");
        transform(&matching(es_vars("dev")), &mut dev, &ctx()).unwrap_or_else(|e| panic!("{e}"));
        transform(&matching(es_vars("test")), &mut test, &ctx()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            resource::annotation(&dev[0], protocol::REF_VAR_NAMES),
            Some(r#"["dev-name","dev-port"]"#)
        );

        let mut all: Vec<Value> = dev.into_iter().chain(test).collect();
        let mut vars = es_vars("dev");
        if let (Some(v), Some(t)) = (vars.as_array_mut(), es_vars("test").as_array()) {
            v.extend(t.iter().cloned());
        }
        // Matching everything at the end would be ambiguous…
        let mut unrecorded = all.clone();
        for r in &mut unrecorded {
            resource::remove_annotation(r, protocol::REF_VAR_NAMES);
        }
        let e = transform(&config(vars.clone(), pod_specs()), &mut unrecorded, &ctx()).err();
        assert!(e.is_some_and(|e| e
            .message
            .starts_with("found 2 resId matches for var {dev-name ")));
        // …and without a phase, recorded vars are not matched again.
        let mut once = all.clone();
        transform(&config(vars.clone(), pod_specs()), &mut once, &ctx())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            once[3]["spec"]["containers"][0]["command"],
            json!(["elasticsearch:9400"])
        );
        // …and the recorded matches resolve each var from its own base.
        let mut resolving = config(vars, pod_specs());
        resolving["phase"] = json!("resolve");
        transform(&resolving, &mut all, &ctx()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            all[1]["spec"]["containers"][0]["command"],
            json!(["elasticsearch:9300"])
        );
        assert_eq!(
            all[3]["spec"]["containers"][0]["command"],
            json!(["elasticsearch:9400"])
        );
        assert!(all
            .iter()
            .all(|r| resource::annotation(r, protocol::REF_VAR_NAMES).is_none()));
        assert_eq!(
            all[0]["metadata"],
            json!({"name": "elasticsearch", "namespace": "dev"})
        );
    }

    #[test]
    fn match_phase_reports_ambiguity_with_the_kustomizations_vars() {
        // The text of kustomize's TestVariablesAmbiguous.
        let vars = json!([
            {"name": "elasticsearch-test-service-name",
             "objref": {"kind": "Service", "name": "elasticsearch", "apiVersion": "v1"},
             "fieldref": {"fieldpath": "metadata.name"}},
            {"name": "elasticsearch-test-protocol",
             "objref": {"kind": "Service", "name": "elasticsearch", "apiVersion": "v1"},
             "fieldref": {"fieldpath": "spec.ports[0].protocol"}},
            {"name": "elasticsearch-dev-service-name",
             "objref": {"kind": "Service", "name": "elasticsearch", "apiVersion": "v1"},
             "fieldref": {"fieldpath": "metadata.name"}},
            {"name": "elasticsearch-dev-protocol",
             "objref": {"kind": "Service", "name": "elasticsearch", "apiVersion": "v1"},
             "fieldref": {"fieldpath": "spec.ports[0].protocol"}},
        ]);
        let cfg = json!({"apiVersion": "builtin", "kind": "RefVarTransformer",
                         "metadata": {"name": "vars"}, "phase": "match", "vars": vars});
        let mut rs = vec![
            service("elasticsearch", Some("dev"), 1),
            service("elasticsearch", Some("test"), 2),
        ];
        let e = transform(&cfg, &mut rs, &ctx()).err().map(|e| e.message);
        assert_eq!(
            e.as_deref(),
            Some(
                "merging vars [{elasticsearch-test-service-name Service.[noVer].[noGrp] {metadata.name}} \
                 {elasticsearch-test-protocol Service.[noVer].[noGrp] {spec.ports[0].protocol}} \
                 {elasticsearch-dev-service-name Service.[noVer].[noGrp] {metadata.name}} \
                 {elasticsearch-dev-protocol Service.[noVer].[noGrp] {spec.ports[0].protocol}}]: \
                 found 2 resId matches for var {elasticsearch-test-service-name Service.v1.[noGrp] {metadata.name}} \
                 (unable to disambiguate)"
            )
        );
    }

    #[test]
    fn strict_resolve_needs_a_recorded_match() {
        let mut rs = vec![service("svc", None, 80), pod(json!(["$(SVC)"]))];
        let mut cfg = config(json!([var("SVC", "Service", "svc", "")]), pod_specs());
        cfg["phase"] = json!("resolve");
        let e = transform(&cfg, &mut rs, &ctx()).err();
        assert!(e.is_some_and(|e| e.message.contains("cannot be mapped")));
        cfg["phase"] = json!("later");
        assert!(transform(&cfg, &mut rs, &ctx()).is_err());
    }

    #[test]
    fn later_specs_see_earlier_substitutions() {
        // kustomize applies the field specs one after another, so a value
        // holding a reference is expanded again by a second spec naming the
        // same field.
        let mut cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
                            "data": {"a": "$(B)-x", "b": "bee"}});
        let mut rs = vec![cm.take(), pod(json!(["$(A)"]))];
        let vars = json!([
            var("A", "ConfigMap", "cm", "data.a"),
            var("B", "ConfigMap", "cm", "data.b")
        ]);
        let once = json!([{"kind": "Pod", "path": "spec/containers/command"}]);
        let mut one = rs.clone();
        transform(&config(vars.clone(), once), &mut one, &ctx()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            one[1]["spec"]["containers"][0]["command"],
            json!(["$(B)-x"])
        );
        let twice = json!([{"kind": "Pod", "path": "spec/containers/command"},
                           {"version": "v1", "path": "spec/containers/command"}]);
        transform(&config(vars, twice), &mut rs, &ctx()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rs[1]["spec"]["containers"][0]["command"], json!(["bee-x"]));
    }

    #[test]
    fn no_vars_changes_nothing() {
        let mut rs = vec![pod(json!(["$(X)"]))];
        let before = rs.clone();
        transform(&config(json!([]), pod_specs()), &mut rs, &ctx())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rs, before);
    }
}
