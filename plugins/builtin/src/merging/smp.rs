//! Strategic merge patch, with the semantics kustomize v5.5.0 gives it
//! (kyaml's `merge2` walker with the "prepend" list direction of its
//! patchstrategicmerge filter), not apimachinery's.
//!
//! - Maps merge field by field; a `null` in the patch deletes the field.
//! - Lists whose schema has a `merge` patch strategy merge element by
//!   element, matched on the schema's merge keys (`name` for containers,
//!   `containerPort`+`protocol` for container ports, ...); elements of the
//!   patch come first, in patch order, followed by the target's elements
//!   the patch did not mention. Lists of scalars with a merge strategy
//!   (finalizers) merge as sets, patch values first.
//! - Every other list (no schema, custom resources, `args`, ...) is replaced.
//! - Directives: `$patch: delete|replace|merge` on a map, as a list element of
//!   its own (applies to the list) or inside a list element (applies to that
//!   element). kustomize ignores `$retainKeys`, `$setElementOrder/…` and
//!   `$deleteFromPrimitiveList/…`: they are merged in as ordinary fields, and
//!   so they are here.
//!
//! kyaml's walker mutates shared YAML nodes; a few of its results follow
//! from that sharing (a `$patch: replace` inside a list element is undone,
//! a patch element without merge key removes every target element that has
//! one, ...). `kubectl kustomize` shows them, so this module reproduces them:
//! the comments at each step say which outcome is being reproduced.

use crate::selecting::target;
use crate::Ctx;
use kustom_api::schema::{Schema, SchemaNode};
use kustom_api::{empty_nulls, err, protocol, resource, Error, Gvk, Map, Value};
use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};

/// Merge `patch` into `dest`; None when the patch deletes the whole object
/// (`$patch: delete` at the top) or leaves nothing of it.
pub fn merge(dest: Value, patch: Value, schema: &Schema) -> Result<Option<Value>, Error> {
    let merger = Merger { schema };
    let merged = merger.walk(Some(dest), Some(patch), None)?;
    Ok(merged.into_value().filter(|v| !is_empty_map(v)))
}

/// Apply a strategic merge patch to one resource the way kustomize's
/// `Resource.ApplySmPatch` does: the patch cannot rename the resource, change
/// its kind (unless the patch carries the allowNameChange/allowKindChange
/// build annotation, in which case the old identity is recorded) or move it
/// to another namespace. Build-state annotations (`config.k8s.io/id`,
/// `internal.config.kubernetes.io/*`) survive whatever the patch does to
/// `metadata.annotations`. Returns false when the patch deleted the resource.
pub fn apply_to_resource(res: &mut Value, patch: &Value, schema: &Schema) -> Result<bool, Error> {
    let name = resource::get_at(res, &["metadata", "name"]).cloned();
    let namespace = resource::get_at(res, &["metadata", "namespace"]).cloned();
    let kind = res.get("kind").cloned();
    let allow_name = resource::annotation(patch, protocol::ALLOW_NAME_CHANGE) == Some("enabled");
    let allow_kind = resource::annotation(patch, protocol::ALLOW_KIND_CHANGE) == Some("enabled");
    if allow_name || allow_kind {
        target::store_previous_id(res);
    }
    let planted = empty_nulls::plant(res);
    let id = hide_id(res);
    let kept = build_annotations(res);
    let original = std::mem::take(res);
    let merged = match merge(original.clone(), patch.clone(), schema) {
        Ok(Some(v)) => v,
        Ok(None) => return Ok(false),
        Err(e) => {
            *res = original;
            empty_nulls::clear(res);
            restore_id(res, id);
            return Err(e);
        }
    };
    *res = merged;
    restore_annotations(res, kept);
    restore_id(res, id);
    if planted {
        empty_nulls::restore(res);
    }
    if !allow_kind {
        resource::map_at_mut(res, &[]).insert(
            "kind".into(),
            kind.unwrap_or_else(|| Value::String(String::new())),
        );
    }
    if !allow_name {
        resource::map_at_mut(res, &["metadata"]).insert(
            "name".into(),
            name.unwrap_or_else(|| Value::String(String::new())),
        );
    }
    // The namespace always comes back; kustomize drops an empty one.
    match namespace {
        Some(ns) if !ns.is_null() && ns.as_str() != Some("") => {
            resource::map_at_mut(res, &["metadata"]).insert("namespace".into(), ns);
        }
        _ => {
            if let Some(meta) = res.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("namespace");
            }
        }
    }
    Ok(true)
}

/// Prepare a patch for a target found by selector or id, as kustomize's
/// ResMap.ApplySmPatch does with its copy of the patch: labels and
/// annotations become string maps (an empty or null map disappears, so it
/// deletes nothing), and the patch takes the target's apiVersion.
pub fn prepare_for_target(patch: &Value, target: &Value) -> Value {
    let mut p = patch.clone();
    for field in ["labels", "annotations"] {
        let strings: Map<String, Value> = match resource::get_at(&p, &["metadata", field]) {
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(raw_text(v))))
                .collect(),
            _ => Map::new(),
        };
        let meta = resource::map_at_mut(&mut p, &["metadata"]);
        meta.remove(field);
        if !strings.is_empty() {
            meta.insert(field.into(), Value::Object(strings));
        }
    }
    let gvk = Gvk::from_api_version(resource::api_version(target), resource::kind(target));
    resource::map_at_mut(&mut p, &[]).insert("apiVersion".into(), Value::String(gvk.api_version()));
    p
}

/// The schema strategic merges use for this transformer call.
///
/// kustomize's OpenAPI schema is global to a build: the builtin Kubernetes
/// 1.21.2 schema, or the document named by the kustomization's `openapi:`
/// field, which then replaces it. The core resolves which kustomization's
/// field applies and passes it to the patch transformers as an extra config
/// field `openapi` (not part of kustomize's schemas), one of:
///
/// - `{version: v1.21.2}`: the builtin schema (the only version built in);
/// - `{path: FILE}`: a swagger 2.0 document in JSON or YAML; an absolute path
///   is read as given (the core has already applied the load restrictor),
///   a relative one from the kustomization directory;
/// - `{document: DOC}`: the document itself, as a map or as its text.
///
/// Without the field, the builtin schema.
pub fn schema_from_config(config: &Value, ctx: &Ctx) -> Result<Cow<'static, Schema>, Error> {
    let Some(openapi) = config.get("openapi").filter(|v| !v.is_null()) else {
        return Ok(Cow::Borrowed(Schema::builtin()));
    };
    let field = |k: &str| openapi.get(k).filter(|v| !v.is_null());
    let custom = field("path").is_some() || field("document").is_some();
    if let Some(version) = field("version") {
        if custom {
            return Err(err!(
                "builtin version and custom schema provided, cannot use both"
            ));
        }
        if version.as_str() != Some(kustom_api::schema::BUILTIN_VERSION) {
            return Err(err!("the specified OpenAPI version is not built in"));
        }
        return Ok(Cow::Borrowed(Schema::builtin()));
    }
    let doc = match (field("document"), field("path")) {
        (Some(Value::String(text)), _) => parse_schema_text(text)?,
        (Some(doc), _) => doc.clone(),
        (None, Some(Value::String(path))) => {
            let text = if std::path::Path::new(path).is_absolute() {
                kustom_api::files::read_text(std::path::Path::new(path))?
            } else {
                ctx.read_to_string(path)?
            };
            parse_schema_text(&text).map_err(|e| e.context(format!("invalid file {path:?}")))?
        }
        (None, Some(_)) => return Err(err!("openapi path must be a string")),
        (None, None) => return Ok(Cow::Borrowed(Schema::builtin())),
    };
    let custom = Schema::from_document(&doc)?;
    // kyaml also parses its builtin schema into the same global tables when
    // a type outside its precomputed list was seen before the custom schema
    // was set; the core tells us so with `withBuiltin`.
    if field("withBuiltin").and_then(Value::as_bool) == Some(true) {
        return Ok(Cow::Owned(custom.merged_with(Schema::builtin())));
    }
    Ok(Cow::Owned(custom))
}

fn parse_schema_text(text: &str) -> Result<Value, Error> {
    if text.trim_start().starts_with('{') {
        if let Ok(v) = kustom_api::json::from_str(text) {
            return Ok(v);
        }
    }
    Ok(kustom_api::yaml::parse_stream(text)?
        .into_iter()
        .next()
        .unwrap_or(Value::Null))
}

/// Take the core's id annotation off a resource (kustomize's resources do
/// not have it, and patches must see them as kustomize's do).
pub(crate) fn hide_id(res: &mut Value) -> Option<Value> {
    resource::remove_annotation(res, protocol::ID_ANNOTATION)
}

/// Put the id annotation back.
pub(crate) fn restore_id(res: &mut Value, id: Option<Value>) {
    if let Some(id) = id {
        resource::map_at_mut(res, &["metadata", "annotations"])
            .insert(protocol::ID_ANNOTATION.to_string(), id);
    }
}

/// Annotations that carry build state, which patches must not lose.
fn build_annotations(res: &Value) -> Vec<(String, Value)> {
    match resource::get_at(res, &["metadata", "annotations"]) {
        Some(Value::Object(m)) => m
            .iter()
            .filter(|(k, _)| is_build_annotation(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `key` is an annotation the core or kustomize's build keeps state in.
pub(crate) fn is_build_annotation(key: &str) -> bool {
    key == protocol::ID_ANNOTATION || key.starts_with("internal.config.kubernetes.io/")
}

/// Put build-state annotations back after a patch.
pub(crate) fn restore_annotations(res: &mut Value, kept: Vec<(String, Value)>) {
    if kept.is_empty() {
        return;
    }
    let annos = resource::map_at_mut(res, &["metadata", "annotations"]);
    for (k, v) in kept {
        annos.insert(k, v);
    }
}

/// Prefix of the directive key.
const DIRECTIVE: &str = "$patch";

/// A `$patch` directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Directive {
    Merge,
    Replace,
    Delete,
}

/// The outcome of merging one node.
#[derive(Debug)]
enum Merged {
    /// Nothing: the field is removed, the list element deleted.
    Clear,
    /// An explicit null in the target that the patch did not mention stays.
    KeepNull,
    /// The target's node, merged in place. (Null here is a patch null: cleared.)
    Dest(Value),
    /// The patch's node (replacing the target's).
    Origin(Value),
}

impl Merged {
    /// The resulting value; None when it clears (including a patch null).
    fn into_value(self) -> Option<Value> {
        match self {
            Merged::Dest(v) | Merged::Origin(v) if !v.is_null() => Some(v),
            _ => None,
        }
    }
}

/// Node kinds, named as kyaml names them in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Map,
    Seq,
    Scalar,
}

impl Kind {
    fn of(v: &Value) -> Kind {
        match v {
            Value::Object(_) => Kind::Map,
            Value::Array(_) => Kind::Seq,
            _ => Kind::Scalar,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Map => "MappingNode",
            Kind::Seq => "SequenceNode",
            Kind::Scalar => "ScalarNode",
        }
    }
}

fn wrong_kind(expected: Kind, node: &Value) -> Error {
    err!(
        "wrong node kind: expected {} but got {}: node contents:\n{}",
        expected.name(),
        Kind::of(node).name(),
        kustom_api::yaml::to_yaml(node)
    )
}

/// Missing, or an explicit null.
fn is_missing_or_null(v: Option<&Value>) -> bool {
    matches!(v, None | Some(Value::Null))
}

fn is_empty_map(v: &Value) -> bool {
    matches!(v, Value::Object(m) if m.is_empty())
}

/// The text of a scalar as kyaml compares it; maps and lists have none.
fn raw_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Object(_) | Value::Array(_) => String::new(),
    }
}

/// Whether a string must have been quoted (or written as a block) in YAML:
/// read as a plain scalar, its text would not give back the string. Strings
/// that read back unchanged are taken to have been written plain, the usual
/// case (the reader keeps no style).
fn needs_quotes(s: &str) -> bool {
    match kustom_api::yaml::parse_stream(s) {
        Ok(docs) => !matches!(docs.as_slice(), [Value::String(t)] if t == s),
        Err(_) => true,
    }
}

/// The value of each merge key in a list element; "" for absent or empty ones.
fn key_values(elem: &Value, keys: &[String]) -> Vec<String> {
    keys.iter()
        .map(|k| match elem.get(k) {
            None | Some(Value::Null) => String::new(),
            Some(Value::Object(m)) if m.is_empty() => String::new(),
            Some(Value::Array(a)) if a.is_empty() => String::new(),
            Some(v) => raw_text(v),
        })
        .collect()
}

fn parse_directive(text: &str) -> Result<Directive, Error> {
    match text {
        "delete" => Ok(Directive::Delete),
        "replace" => Ok(Directive::Replace),
        "merge" => Ok(Directive::Merge),
        other => Err(err!("unknown patch strategy '{other}'")),
    }
}

/// Read and remove a map's `$patch` directive.
fn map_directive(m: &mut Map<String, Value>) -> Result<Directive, Error> {
    let Some(v) = m.get(DIRECTIVE) else {
        return Ok(Directive::Merge);
    };
    let d = parse_directive(&raw_text(v))?;
    m.remove(DIRECTIVE);
    Ok(d)
}

/// Read and remove a list's directive: the first map element with a
/// `$patch` key, when that is its only key. Removing it removes every map
/// element with the same `$patch` value (and, as a side effect of how
/// kustomize filters the list, null and empty-map elements).
fn list_directive(list: &mut Vec<Value>) -> Result<Directive, Error> {
    let first = list
        .iter()
        .filter_map(Value::as_object)
        .find(|m| m.contains_key(DIRECTIVE));
    let Some(elem) = first else {
        return Ok(Directive::Merge);
    };
    if elem.len() > 1 {
        return Ok(Directive::Merge);
    }
    let text = elem.get(DIRECTIVE).map(raw_text).unwrap_or_default();
    let d = parse_directive(&text)?;
    set_element(list, None, &[DIRECTIVE.to_string()], &[text])?;
    Ok(d)
}

/// Whether `elem` matches `key` = `value`; an empty value matches any
/// element having the key, and the empty key compares a scalar element.
fn field_matches(elem: &Value, key: &str, value: &str) -> Result<bool, Error> {
    if elem.is_null() {
        return Ok(false);
    }
    if key.is_empty() {
        if Kind::of(elem) != Kind::Scalar {
            return Err(wrong_kind(Kind::Scalar, elem));
        }
        return Ok(raw_text(elem) == value);
    }
    let Value::Object(m) = elem else {
        return Err(wrong_kind(Kind::Map, elem));
    };
    Ok(match m.get(key) {
        None => false,
        Some(f) => value.is_empty() || raw_text(f) == value,
    })
}

/// Replace the elements of `list` matching `keys`/`values` with `element`
/// (appending it when none matches), or delete them when `element` is None.
///
/// Matching is kyaml's: a key without a value (values shorter than keys)
/// reuses the previous key's verdict, with no values at all nothing matches
/// and non-matching elements are dropped, and null and empty-map elements
/// are always dropped.
fn set_element(
    list: &mut Vec<Value>,
    element: Option<Value>,
    keys: &[String],
    values: &[String],
) -> Result<(), Error> {
    let primitive = [String::new()];
    let keys = if keys.is_empty() {
        &primitive[..]
    } else {
        keys
    };
    let mapping_setter = !keys[0].is_empty() && values.first().is_some_and(|v| !v.is_empty());
    let mut matched = false;
    let mut out = Vec::with_capacity(list.len() + 1);
    for elem in std::mem::take(list) {
        if elem.is_null() || is_empty_map(&elem) {
            continue;
        }
        if !elem.is_object() && mapping_setter {
            out.push(elem);
            continue;
        }
        let mut verdict = false;
        let mut found = true;
        for (j, key) in keys.iter().enumerate() {
            if let Some(v) = values.get(j) {
                verdict = field_matches(&elem, key, v)?;
            }
            if !verdict {
                found = false;
                break;
            }
        }
        if !found {
            if !values.is_empty() {
                out.push(elem);
            }
            continue;
        }
        matched = true;
        if let Some(e) = &element {
            out.push(e.clone());
        }
    }
    *list = out;
    match element {
        Some(e) if !e.is_null() && !matched => list.push(e),
        _ => {}
    }
    Ok(())
}

/// The first map element whose key fields have exactly these values (the
/// empty key: the first element whose scalar text is the value).
fn find_element(
    list: &[Value],
    keys: &[String],
    values: &[String],
) -> Result<Option<usize>, Error> {
    let first_key = keys.first().map(String::as_str).unwrap_or("");
    let first_value = values.first().map(String::as_str).unwrap_or("");
    if first_key.is_empty() {
        return Ok(list.iter().position(|e| raw_text(e) == first_value));
    }
    if keys.len() != values.len() {
        return Err(err!(
            "length of keys must equal length of values when MatchAnyValue is false"
        ));
    }
    Ok(list.iter().position(|e| match e {
        Value::Object(m) => keys
            .iter()
            .zip(values)
            .all(|(k, v)| m.get(k).is_some_and(|f| raw_text(f) == *v)),
        _ => false,
    }))
}

/// Keep only the merge keys some element of the list has a value for (all
/// keys when none has); `values` is cut down to match.
fn validate_keys(
    all: &[Vec<String>],
    values: &[String],
    keys: &[String],
) -> (Vec<String>, Vec<String>) {
    let mut valid: HashSet<&str> = HashSet::new();
    for vals in all {
        for (i, v) in vals.iter().enumerate() {
            if let (false, Some(k)) = (v.is_empty(), keys.get(i)) {
                valid.insert(k);
            }
        }
    }
    if valid.is_empty() {
        return (keys.to_vec(), values.to_vec());
    }
    let vk = keys
        .iter()
        .filter(|k| valid.contains(k.as_str()))
        .cloned()
        .collect();
    let vv = values
        .iter()
        .enumerate()
        .filter(|(i, v)| !v.is_empty() || keys.get(*i).is_some_and(|k| valid.contains(k.as_str())))
        .map(|(_, v)| v.clone())
        .collect();
    (vk, vv)
}

/// Two key-value tuples denote the same element when they share a value and
/// differ only where one of them is empty (a port without protocol matches
/// the same port with one); the result fills in the blanks.
fn unify(a: &[String], b: &[String]) -> Option<Vec<String>> {
    if a.len() != b.len() {
        return None;
    }
    let mut common = false;
    let mut out = Vec::with_capacity(a.len());
    for (x, y) in a.iter().zip(b) {
        if x == y {
            common = true;
            out.push(x.clone());
        } else if !x.is_empty() && !y.is_empty() {
            return None;
        } else if x.is_empty() {
            out.push(y.clone());
        } else {
            out.push(x.clone());
        }
    }
    common.then_some(out)
}

/// Unify the key tuples of a multi-key list pairwise, in place, in kyaml's
/// order (the outer tuple is read once per outer step, so later unifications
/// in the same step do not feed back into it).
fn unify_all(values: &mut [Vec<String>]) {
    for i in 0..values.len() {
        let a = values[i].clone();
        for j in 0..values.len() {
            if let Some(m) = unify(&a, &values[j]) {
                values[i] = m.clone();
                values[j] = m;
            }
        }
    }
}

/// The value of field `key` of a list element, for re-adding target
/// elements after a merge.
fn element_field<'v>(elem: &'v Value, key: &str) -> Result<Option<&'v Value>, Error> {
    match elem {
        Value::Null => Ok(None),
        Value::Object(m) => Ok(m.get(key)),
        other => Err(wrong_kind(Kind::Map, other)),
    }
}

/// Add the target's remaining elements after the merged ones: each replaces
/// the merged element with the same keys (that is itself, merged in place,
/// or the target's element when the patch's replaced it) or is appended.
fn add_target_elements(
    mut items: Vec<Value>,
    dest: Vec<Value>,
    keys: &[String],
) -> Result<Vec<Value>, Error> {
    let primitive = keys.first().is_none_or(|k| k.is_empty());
    for elem in dest {
        if primitive {
            let text = raw_text(&elem);
            set_element(&mut items, Some(elem), &[String::new()], &[text])?;
            continue;
        }
        let mut values = Vec::with_capacity(keys.len());
        for key in keys {
            match element_field(&elem, key)? {
                // kyaml appends an element lacking a key, then filters the
                // list with the partial key set below.
                None => items.push(elem.clone()),
                Some(f) => values.push(raw_text(f)),
            }
        }
        if keys.len() > 1 {
            set_element(&mut items, None, keys, &values)?;
        }
        set_element(&mut items, Some(elem), keys, &values)?;
    }
    Ok(items)
}

/// Where the patch's side of an associative list comes from.
enum PatchList {
    /// The patch has no such list (only the target's elements are walked).
    Absent,
    /// The list is being merged with itself: the target had none, so the
    /// patch's list stands in for both sides.
    Same,
    /// The patch's list.
    List(Vec<Value>),
}

struct Merger<'s> {
    schema: &'s Schema,
}

impl<'s> Merger<'s> {
    /// The schema for a node: the one found from the parent, else the one
    /// of the resource type the node itself declares (apiVersion + kind).
    fn schema_for(
        &self,
        inherited: Option<SchemaNode<'s>>,
        sources: [Option<&Value>; 2],
    ) -> Option<SchemaNode<'s>> {
        if inherited.is_some() {
            return inherited;
        }
        sources.into_iter().flatten().find_map(|v| {
            let api_version = v.get("apiVersion")?.as_str()?;
            let kind = v.get("kind")?.as_str()?;
            if api_version.is_empty() || kind.is_empty() {
                return None;
            }
            self.schema.for_type(api_version, kind)
        })
    }

    /// Merge the patch's node `origin` into the target's node `dest`; either
    /// may be missing (None) or an explicit null.
    fn walk(
        &self,
        dest: Option<Value>,
        origin: Option<Value>,
        inherited: Option<SchemaNode<'s>>,
    ) -> Result<Merged, Error> {
        // A target value written empty (`key:`) is a null that is not kept
        // when the patch leaves it alone; an explicit `null` or `~` is.
        let written_empty = dest.as_ref().is_some_and(empty_nulls::is_marker);
        let dest = if written_empty {
            Some(Value::Null)
        } else {
            dest
        };
        let schema = self.schema_for(inherited, [dest.as_ref(), origin.as_ref()]);
        let dest_present = !is_missing_or_null(dest.as_ref());
        let origin_present = !is_missing_or_null(origin.as_ref());
        let kind = match (&dest, &origin) {
            (Some(d), _) if dest_present => Kind::of(d),
            (_, Some(o)) if origin_present => Kind::of(o),
            _ => {
                // Nothing on either side: a null the patch does not mention stays.
                return Ok(if origin.is_none() && dest.is_some() && !written_empty {
                    Merged::KeepNull
                } else {
                    Merged::Clear
                });
            }
        };
        for v in [&dest, &origin].into_iter().flatten() {
            if !v.is_null() && Kind::of(v) != kind {
                return Err(wrong_kind(kind, v));
            }
        }
        match kind {
            Kind::Map => self.walk_map(dest, origin, schema),
            Kind::Seq => self.walk_seq(dest, origin, schema),
            Kind::Scalar => Ok(match origin {
                Some(o) => Merged::Origin(o),
                None => dest.map_or(Merged::Clear, Merged::Dest),
            }),
        }
    }

    fn walk_map(
        &self,
        dest: Option<Value>,
        origin: Option<Value>,
        schema: Option<SchemaNode<'s>>,
    ) -> Result<Merged, Error> {
        let Some(Value::Object(d)) = dest else {
            // Added: the patch's map, merged with itself. A bad directive
            // here is not an error: it stays in the output as a field.
            let Some(Value::Object(mut o)) = origin else {
                return Ok(Merged::Clear);
            };
            if let Ok(Directive::Delete) = map_directive(&mut o) {
                return Ok(Merged::Clear);
            }
            return Ok(Merged::Origin(Value::Object(self.self_fields(o, schema)?)));
        };
        match origin {
            Some(Value::Null) => Ok(Merged::Clear),
            None => Ok(Merged::Dest(Value::Object(
                self.merge_fields(d, None, schema)?,
            ))),
            Some(Value::Object(mut o)) => match map_directive(&mut o)? {
                Directive::Delete => Ok(Merged::Clear),
                Directive::Replace => {
                    Ok(Merged::Origin(Value::Object(self.self_fields(o, schema)?)))
                }
                Directive::Merge => Ok(Merged::Dest(Value::Object(self.merge_fields(
                    d,
                    Some(o),
                    schema,
                )?))),
            },
            Some(other) => Err(wrong_kind(Kind::Map, &other)),
        }
    }

    fn walk_seq(
        &self,
        dest: Option<Value>,
        origin: Option<Value>,
        schema: Option<SchemaNode<'s>>,
    ) -> Result<Merged, Error> {
        let associative = schema.filter(|s| s.merges_lists());
        let Some(schema) = associative else {
            // Lists without a merge strategy are replaced.
            return Ok(match origin {
                Some(o) => Merged::Origin(o),
                None => dest.map_or(Merged::Clear, Merged::Dest),
            });
        };
        let Some(Value::Array(d)) = dest else {
            // Added: merged with itself, without looking for a list directive.
            let Some(Value::Array(o)) = origin else {
                return Ok(Merged::Clear);
            };
            return Ok(Merged::Origin(Value::Array(self.merge_list(
                o,
                PatchList::Same,
                schema,
            )?)));
        };
        match origin {
            Some(Value::Null) => Ok(Merged::Clear),
            None => Ok(Merged::Dest(Value::Array(self.merge_list(
                d,
                PatchList::Absent,
                schema,
            )?))),
            Some(Value::Array(mut o)) => match list_directive(&mut o)? {
                Directive::Delete => Ok(Merged::Clear),
                Directive::Replace => Ok(Merged::Origin(Value::Array(self.merge_list(
                    o,
                    PatchList::Same,
                    schema,
                )?))),
                Directive::Merge => Ok(Merged::Dest(Value::Array(self.merge_list(
                    d,
                    PatchList::List(o),
                    schema,
                )?))),
            },
            Some(other) => Err(wrong_kind(Kind::Seq, &other)),
        }
    }

    /// Merge a node with itself, as kyaml does for everything a patch adds
    /// below a node it added: directives are applied (and errors in them
    /// reported), associative lists deduplicated.
    fn walk_self(&self, value: Value, inherited: Option<SchemaNode<'s>>) -> Result<Merged, Error> {
        let schema = self.schema_for(inherited, [Some(&value), None]);
        match value {
            Value::Null => Ok(Merged::Clear),
            Value::Object(mut m) => match map_directive(&mut m)? {
                Directive::Delete => Ok(Merged::Clear),
                _ => Ok(Merged::Origin(Value::Object(self.self_fields(m, schema)?))),
            },
            Value::Array(mut l) => match schema.filter(|s| s.merges_lists()) {
                None => Ok(Merged::Origin(Value::Array(l))),
                Some(s) => match list_directive(&mut l)? {
                    Directive::Delete => Ok(Merged::Clear),
                    _ => Ok(Merged::Origin(Value::Array(self.merge_list(
                        l,
                        PatchList::Same,
                        s,
                    )?))),
                },
            },
            scalar => Ok(Merged::Origin(scalar)),
        }
    }

    fn self_fields(
        &self,
        mut m: Map<String, Value>,
        schema: Option<SchemaNode<'s>>,
    ) -> Result<Map<String, Value>, Error> {
        let keys: BTreeSet<String> = m.keys().cloned().collect();
        for key in keys {
            let value = m.get_mut(&key).map(std::mem::take).unwrap_or_default();
            let child = schema.and_then(|s| s.field(&key));
            set_field(&mut m, &key, self.walk_self(value, child)?);
        }
        Ok(m)
    }

    fn merge_fields(
        &self,
        mut dest: Map<String, Value>,
        origin: Option<Map<String, Value>>,
        schema: Option<SchemaNode<'s>>,
    ) -> Result<Map<String, Value>, Error> {
        let mut origin = origin.unwrap_or_default();
        // kyaml visits the union of the field names in sorted order.
        let keys: BTreeSet<String> = dest.keys().chain(origin.keys()).cloned().collect();
        for key in keys {
            let d = dest.get_mut(&key).map(std::mem::take);
            let o = origin.remove(&key);
            let child = schema.and_then(|s| s.field(&key));
            // (Only a number or boolean replacing a string can change type.)
            let quoted = matches!(
                (&d, &o),
                (Some(Value::String(s)), Some(Value::Number(_) | Value::Bool(_))) if needs_quotes(s)
            );
            let merged = match self.walk(d, o, child)? {
                // kyaml gives the new value the old one's quoting style: a
                // number or boolean replacing a quoted string becomes a string.
                Merged::Origin(v @ (Value::Number(_) | Value::Bool(_))) if quoted => {
                    Merged::Origin(Value::String(raw_text(&v)))
                }
                other => other,
            };
            set_field(&mut dest, &key, merged);
        }
        Ok(dest)
    }

    /// Merge an associative list: the target's `dest` with the patch's list.
    fn merge_list(
        &self,
        dest: Vec<Value>,
        patch: PatchList,
        schema: SchemaNode<'s>,
    ) -> Result<Vec<Value>, Error> {
        let keys: Vec<String> = schema.merge_keys().to_vec();
        let origin: &[Value] = match &patch {
            PatchList::List(o) => o,
            PatchList::Absent | PatchList::Same => &[],
        };
        // Patch elements first: kustomize's merge grows lists at the front.
        let sources: [&[Value]; 2] = [origin, &dest];
        let mut values: Vec<Vec<String>> = Vec::new();
        if !keys.is_empty() {
            for elem in sources.iter().flat_map(|s| s.iter()) {
                let kv = key_values(elem, &keys);
                if !values.contains(&kv) {
                    values.push(kv);
                }
            }
        }
        if !values.is_empty() || !keys.is_empty() {
            return self.merge_elements(values, &keys, dest, patch, schema);
        }
        // A list of scalars: merged as a set of their texts.
        let mut seen = HashSet::new();
        for elem in sources.iter().flat_map(|s| s.iter()) {
            let text = raw_text(elem);
            if seen.insert(text.clone()) {
                values.push(vec![text]);
            }
        }
        self.merge_elements(values, &[String::new()], dest, patch, schema)
    }

    fn merge_elements(
        &self,
        mut values: Vec<Vec<String>>,
        keys: &[String],
        mut dest: Vec<Value>,
        patch: PatchList,
        schema: SchemaNode<'s>,
    ) -> Result<Vec<Value>, Error> {
        let elem_schema = schema.elements();
        if keys.len() > 1 {
            unify_all(&mut values);
        }
        let mut items: Vec<Value> = Vec::new();
        let mut valid_keys: Vec<String> = Vec::new();
        for vals in &values {
            if vals.is_empty() {
                continue;
            }
            let (vk, vv) = validate_keys(&values, vals, keys);
            valid_keys.clone_from(&vk);
            let (lk, lv) = validate_keys(std::slice::from_ref(&vv), &vv, &vk);
            let d_idx = find_element(&dest, &lk, &lv)?;
            // Which target element the result is (merged in place), if any.
            let (merged, in_dest) = match &patch {
                PatchList::Same => match d_idx {
                    Some(i) => (self.walk_self(dest[i].clone(), elem_schema)?, d_idx),
                    None => (Merged::Clear, None),
                },
                PatchList::Absent => {
                    let m = self.walk(d_idx.map(|i| dest[i].clone()), None, elem_schema)?;
                    (m, d_idx)
                }
                PatchList::List(o) => {
                    let o_elem = find_element(o, &lk, &lv)?.map(|i| o[i].clone());
                    let m = self.walk(d_idx.map(|i| dest[i].clone()), o_elem, elem_schema)?;
                    let in_dest = if matches!(m, Merged::Dest(_)) {
                        d_idx
                    } else {
                        None
                    };
                    (m, in_dest)
                }
            };
            let mut val = merged.into_value().filter(|v| !is_empty_map(v));
            let Some(v) = val.as_mut() else {
                // Nothing left of the element: delete it from the target.
                // With empty key values this removes every element that has
                // the key at all, as kustomize does.
                set_element(&mut dest, None, &vk, &vv)?;
                continue;
            };
            for (key, value) in vk.iter().zip(&vv) {
                if value.is_empty() {
                    continue;
                }
                if key.is_empty() {
                    // A scalar element gets its own text back: no change.
                    if Kind::of(v) != Kind::Scalar {
                        return Err(wrong_kind(Kind::Scalar, v));
                    }
                    continue;
                }
                match v {
                    Value::Object(m) => {
                        if !m.contains_key(key) {
                            m.insert(key.clone(), Value::String(value.clone()));
                        }
                    }
                    other => return Err(wrong_kind(Kind::Map, other)),
                }
            }
            if let Some(i) = in_dest {
                dest[i] = v.clone();
            }
            if let Some(v) = val {
                set_element(&mut items, Some(v), &vk, &vv)?;
            }
        }
        if values.is_empty() {
            return Ok(dest);
        }
        add_target_elements(items, dest, &valid_keys)
    }
}

/// Set a merged field on a map (kyaml's FieldSetter): cleared values and
/// patch nulls remove the field.
fn set_field(map: &mut Map<String, Value>, key: &str, merged: Merged) {
    match merged {
        Merged::KeepNull => {
            map.insert(key.to_string(), Value::Null);
        }
        other => match other.into_value() {
            Some(v) => {
                map.insert(key.to_string(), v);
            }
            None => {
                map.remove(key);
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(pod_spec: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
               "spec": {"template": {"spec": pod_spec}}})
    }

    fn pod_spec(v: &Value) -> &Value {
        &v["spec"]["template"]["spec"]
    }

    fn merge_builtin(dest: Value, patch: Value) -> Option<Value> {
        merge(dest, patch, Schema::builtin()).expect("merge succeeds")
    }

    #[test]
    fn maps_merge_and_null_deletes() {
        let dest = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                          "data": {"a": "1", "b": "2"}, "keep": null});
        let patch = json!({"data": {"a": "x", "b": null, "c": "3"}, "gone": null});
        let out = merge_builtin(dest, patch).expect("kept");
        assert_eq!(out["data"], json!({"a": "x", "c": "3"}));
        // An explicit null in the target the patch does not mention stays.
        assert_eq!(out.get("keep"), Some(&Value::Null));
        assert!(out.get("gone").is_none());
    }

    #[test]
    fn containers_merge_by_name_patch_first() {
        let dest = deployment(json!({"containers": [
            {"name": "a", "image": "a", "env": [{"name": "E1", "value": "1"}, {"name": "E2", "value": "2"}]},
            {"name": "b", "image": "b"}]}));
        let patch = deployment(json!({"containers": [
            {"name": "c", "image": "c"},
            {"name": "a", "image": "a2", "env": [{"name": "E3", "value": "3"}, {"name": "E1", "value": "one"}]}]}));
        let out = merge_builtin(dest, patch).expect("kept");
        assert_eq!(
            pod_spec(&out)["containers"],
            json!([
                {"name": "c", "image": "c"},
                {"name": "a", "image": "a2", "env": [
                    {"name": "E3", "value": "3"}, {"name": "E1", "value": "one"}, {"name": "E2", "value": "2"}]},
                {"name": "b", "image": "b"}])
        );
    }

    #[test]
    fn ports_merge_on_port_and_protocol() {
        let dest = deployment(json!({"containers": [{"name": "a", "ports": [
            {"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}]}]}));
        let patch = deployment(json!({"containers": [{"name": "a", "ports": [
            {"containerPort": 53, "protocol": "TCP"}, {"containerPort": 80, "name": "http"}]}]}));
        let out = merge_builtin(dest, patch).expect("kept");
        assert_eq!(
            pod_spec(&out)["containers"][0]["ports"],
            json!([{"containerPort": 53, "protocol": "TCP"}, {"containerPort": 80, "name": "http"},
                   {"containerPort": 53, "protocol": "UDP"}])
        );
    }

    #[test]
    fn port_with_protocol_against_port_without_is_lost() {
        // kubectl kustomize keeps the target's ports untouched here.
        let dest = deployment(json!({"containers": [{"name": "a", "ports": [
            {"containerPort": 80, "name": "x"}, {"containerPort": 90, "protocol": "UDP"}]}]}));
        let patch = deployment(json!({"containers": [{"name": "a", "ports": [
            {"containerPort": 80, "protocol": "TCP", "hostPort": 1}]}]}));
        let out = merge_builtin(dest, patch).expect("kept");
        assert_eq!(
            pod_spec(&out)["containers"][0]["ports"],
            json!([{"containerPort": 80, "name": "x"}, {"containerPort": 90, "protocol": "UDP"}])
        );
    }

    #[test]
    fn element_and_list_directives() {
        let dest = deployment(json!({
            "containers": [{"name": "a", "image": "a"}, {"name": "b", "image": "b"}],
            "volumes": [{"name": "v1", "emptyDir": {}}]}));
        let patch = deployment(json!({
            "containers": [{"name": "a", "$patch": "replace", "image": "a9"}],
            "volumes": [{"name": "v1", "$patch": "delete"}, {"name": "v2", "configMap": {"name": "x"}}]}));
        let out = merge_builtin(dest, patch).expect("kept");
        // A replace inside a list element is undone by kustomize's merge.
        assert_eq!(
            pod_spec(&out)["containers"],
            json!([{"name": "a", "image": "a"}, {"name": "b", "image": "b"}])
        );
        assert_eq!(
            pod_spec(&out)["volumes"],
            json!([{"name": "v2", "configMap": {"name": "x"}}])
        );

        let dest = deployment(json!({"containers": [{"name": "a"}], "volumes": [{"name": "v"}]}));
        let patch = deployment(json!({
            "containers": [{"$patch": "replace"}, {"name": "z", "image": "z"}],
            "volumes": [{"$patch": "delete"}]}));
        let out = merge_builtin(dest, patch).expect("kept");
        assert_eq!(
            pod_spec(&out)["containers"],
            json!([{"name": "z", "image": "z"}])
        );
        assert!(pod_spec(&out).get("volumes").is_none());
    }

    #[test]
    fn map_directives() {
        let dest = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
                     "selector": {"matchLabels": {"a": "b"}}}});
        let patch = json!({"spec": {"strategy": {"$patch": "replace", "type": "Recreate"},
                                    "selector": {"$patch": "delete"}}});
        let out = merge_builtin(dest.clone(), patch).expect("kept");
        assert_eq!(out["spec"], json!({"strategy": {"type": "Recreate"}}));

        let e = merge(
            dest.clone(),
            json!({"spec": {"strategy": {"$patch": "weird"}}}),
            Schema::builtin(),
        )
        .expect_err("bad directive");
        assert_eq!(e.message, "unknown patch strategy 'weird'");
        // Under an added node a bad directive stays as a field.
        let out = merge_builtin(
            dest.clone(),
            json!({"spec": {"new": {"$patch": "weird", "a": 1}}}),
        )
        .expect("kept");
        assert_eq!(out["spec"]["new"], json!({"$patch": "weird", "a": 1}));
        // Delete at the top deletes the object.
        assert_eq!(merge_builtin(dest, json!({"$patch": "delete"})), None);
    }

    #[test]
    fn scalars_replacing_quoted_strings_become_strings() {
        let dest = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
            "data": {"a": "80", "b": "x", "c": "true", "d": "multi\nline\n", "e": 3}});
        let patch = json!({"data": {"a": 8080, "b": 1, "c": false, "d": 5, "e": "7"}});
        let out = merge_builtin(dest, patch).expect("kept");
        assert_eq!(
            out["data"],
            json!({"a": "8080", "b": 1, "c": "false", "d": "5", "e": "7"})
        );
    }

    #[test]
    fn unsupported_directives_are_plain_fields() {
        let dest = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "finalizers": ["f1", "f2"]}});
        let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["f1"], "finalizers": ["f3", "f1"]}});
        let out = merge_builtin(dest, patch).expect("kept");
        assert_eq!(out["metadata"]["finalizers"], json!(["f3", "f1", "f2"]));
        assert_eq!(
            out["metadata"]["$deleteFromPrimitiveList/finalizers"],
            json!(["f1"])
        );
    }

    #[test]
    fn lists_without_strategy_are_replaced() {
        let dest = deployment(json!({"containers": [{"name": "a", "args": ["x", "y"]}]}));
        let patch = deployment(
            json!({"containers": [{"name": "a", "args": [{"$patch": "replace"}, "c"]}]}),
        );
        let out = merge_builtin(dest, patch).expect("kept");
        assert_eq!(
            pod_spec(&out)["containers"][0]["args"],
            json!([{"$patch": "replace"}, "c"])
        );
        // Unknown kinds have no schema: their lists are replaced.
        let cr = json!({"apiVersion": "x.io/v1", "kind": "Thing", "metadata": {"name": "t"},
                        "spec": {"items": [{"name": "a"}, {"name": "b"}]}});
        let out = merge_builtin(cr, json!({"spec": {"items": [{"name": "c"}]}})).expect("kept");
        assert_eq!(out["spec"]["items"], json!([{"name": "c"}]));
    }

    #[test]
    fn custom_schema_makes_lists_associative() {
        let doc = json!({"definitions": {"Thing": {
            "x-kubernetes-group-version-kind": [{"group": "x.io", "version": "v1", "kind": "Thing"}],
            "properties": {"spec": {"properties": {"items": {
                "type": "array", "items": {"type": "object"},
                "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}}}}}}});
        let schema = Schema::from_document(&doc).expect("schema");
        let cr = json!({"apiVersion": "x.io/v1", "kind": "Thing", "metadata": {"name": "t"},
                        "spec": {"items": [{"name": "a", "v": 1}, {"name": "b"}]}});
        let out = merge(
            cr,
            json!({"spec": {"items": [{"name": "a", "v": 2}, {"name": "c"}]}}),
            &schema,
        )
        .expect("merges")
        .expect("kept");
        assert_eq!(
            out["spec"]["items"],
            json!([{"name": "a", "v": 2}, {"name": "c"}, {"name": "b"}])
        );
    }

    #[test]
    fn element_without_merge_key_quirks() {
        // A patch element without the key removes every keyed target element.
        let dest = deployment(json!({"containers": [{"name": "a"}, {"name": "b"}]}));
        let out = merge_builtin(
            dest,
            deployment(json!({"containers": [{"image": "noname"}]})),
        )
        .expect("kept");
        assert_eq!(pod_spec(&out)["containers"], json!([]));
        // A target element without the key leaves only itself.
        let dest =
            deployment(json!({"containers": [{"name": "a"}, {"image": "noname"}, {"name": "b"}]}));
        let out =
            merge_builtin(dest, deployment(json!({"containers": [{"name": "c"}]}))).expect("kept");
        assert_eq!(pod_spec(&out)["containers"], json!([{"image": "noname"}]));
        // Duplicate keys in the target: the later one wins.
        let dest = deployment(
            json!({"containers": [{"name": "a", "image": "a1"}, {"name": "a", "image": "a2"}, {"name": "b"}]}),
        );
        let out = merge_builtin(
            dest,
            deployment(json!({"containers": [{"name": "a", "image": "a3"}]})),
        )
        .expect("kept");
        assert_eq!(
            pod_spec(&out)["containers"],
            json!([{"name": "a", "image": "a2"}, {"name": "b"}])
        );
    }

    #[test]
    fn added_lists_are_merged_with_themselves() {
        let dest = deployment(json!({"hostname": "h"}));
        let patch = deployment(json!({
            "containers": [{"$patch": "replace"}, {"name": "z", "image": "z"}],
            "volumes": [{"name": "v", "$patch": "delete"}, {"name": "w"}],
            "initContainers": [
                {"name": "i", "sub": {"$patch": "delete", "x": 1}, "sub3": null,
                 "sub4": {"$patch": "replace", "z": 1}},
                {"name": "i", "image": "second"},
                {"name": "j", "ports": [{"containerPort": 1}, {"containerPort": 1, "name": "dup"}]}]}));
        let out = merge_builtin(dest, patch).expect("kept");
        let spec = pod_spec(&out);
        assert_eq!(spec["containers"], json!([{"$patch": "replace"}]));
        assert_eq!(spec["volumes"], json!([{"name": "w"}]));
        assert_eq!(
            spec["initContainers"],
            json!([{"name": "i", "image": "second"}, {"name": "j", "ports": [{"containerPort": 1, "name": "dup"}]}])
        );
    }

    #[test]
    fn patch_elements_merge_into_first_match_only() {
        let dest =
            deployment(json!({"initContainers": [{"name": "i", "image": "orig"}, {"name": "j"}]}));
        let patch = deployment(json!({"initContainers": [
            {"name": "i", "sub": {"$patch": "delete", "x": 1}, "sub4": {"$patch": "replace", "z": 1},
             "args": [{"$patch": "delete"}]},
            {"name": "i", "image": "second"}]}));
        let out = merge_builtin(dest, patch).expect("kept");
        assert_eq!(
            pod_spec(&out)["initContainers"],
            json!([{"name": "i", "image": "orig", "sub4": {"z": 1}, "args": [{"$patch": "delete"}]}, {"name": "j"}])
        );
    }

    #[test]
    fn kind_mismatch_is_an_error() {
        let dest = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}});
        let e = merge(dest, json!({"data": ["x"]}), Schema::builtin()).expect_err("mismatch");
        assert!(
            e.message
                .starts_with("wrong node kind: expected MappingNode but got SequenceNode"),
            "{}",
            e.message
        );
    }

    #[test]
    fn resource_identity_is_restored() {
        let mut res = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "ns",
                         "annotations": {"config.k8s.io/id": "7", "internal.config.kubernetes.io/previousNames": "a", "x": "y"}}});
        let patch = json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "other", "namespace": "elsewhere", "annotations": {"$patch": "replace", "z": "1"}}});
        assert!(apply_to_resource(&mut res, &patch, Schema::builtin()).expect("applies"));
        assert_eq!(res["kind"], "ConfigMap");
        assert_eq!(res["metadata"]["name"], "c");
        assert_eq!(res["metadata"]["namespace"], "ns");
        assert_eq!(
            res["metadata"]["annotations"],
            json!({"z": "1", "config.k8s.io/id": "7", "internal.config.kubernetes.io/previousNames": "a"})
        );
    }

    #[test]
    fn allowed_rename_records_previous_id() {
        let mut res =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "old"}});
        let patch = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "new",
            "annotations": {"internal.config.kubernetes.io/allowNameChange": "enabled"}}});
        assert!(apply_to_resource(&mut res, &patch, Schema::builtin()).expect("applies"));
        assert_eq!(res["metadata"]["name"], "new");
        assert_eq!(res["kind"], "Deployment");
        let annos = &res["metadata"]["annotations"];
        assert_eq!(annos["internal.config.kubernetes.io/previousNames"], "old");
        assert_eq!(
            annos["internal.config.kubernetes.io/previousKinds"],
            "Deployment"
        );
        assert_eq!(
            annos["internal.config.kubernetes.io/previousNamespaces"],
            "default"
        );
    }

    #[test]
    fn target_preparation_stringifies_metadata_maps() {
        let patch = json!({"apiVersion": "v9", "kind": "ConfigMap",
            "metadata": {"name": "c", "labels": {"n": 1, "m": true}, "annotations": null}});
        let target = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
        let p = prepare_for_target(&patch, &target);
        assert_eq!(p["apiVersion"], "v1");
        assert_eq!(p["metadata"]["labels"], json!({"n": "1", "m": "true"}));
        assert!(p["metadata"].get("annotations").is_none());
    }
}
