//! `ReplacementTransformer`: copy a value from one resource field into
//! fields of other resources (the kustomization's `replacements:`).
//!
//! Config (kustomize's `apiVersion: builtin` schema): `replacements:` lists
//! inline replacements or `{path: file}` entries whose file holds one
//! replacement or a list of them. Each replacement reads one field of the
//! single resource its `source` selects, optionally splits it at
//! `options.delimiter` and keeps element `options.index`, then writes it to
//! every `fieldPaths` entry of every resource a target `select`s and no
//! `reject` matches. Replacements run in order, each seeing the previous
//! one's results.

mod copied;
mod embedded;
mod path;
mod scalar;
mod select;
mod touches;
mod yaml_text;

pub(crate) use touches::{touches, Side};

use crate::Ctx;
use copied::Copied;
use kustom_api::{err, Error, Gvk, KustomizeVersion, Map, ResId, Value};
use path::{Step, Target};
use scalar::Tag;

/// The field a source or target names when it gives no field path.
const DEFAULT_FIELD_PATH: &str = "metadata.name";

/// Apply the configured replacements to `resources`.
// The signature is the shared `TransformFn`, which lets transformers add or
// remove resources; this one only edits them.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, ctx: &Ctx) -> Result<(), Error> {
    let replacements = load(config, ctx)?;
    for replacement in &replacements {
        apply(replacement, resources, ctx.version)?;
    }
    Ok(())
}

/// One replacement.
#[derive(Debug, Clone, Default, PartialEq)]
struct Replacement {
    source: Option<Source>,
    /// `sourceValue`: a literal in place of a source (v5.7.0 on).
    source_value: Option<String>,
    /// Empty when absent: kustomize re-serialises the kustomization's list
    /// with `omitempty`, so `targets: []` reads as no targets at all.
    targets: Vec<TargetSpec>,
}

/// Where the value comes from.
#[derive(Debug, Clone, Default, PartialEq)]
struct Source {
    id: ResId,
    field_path: String,
    options: Option<Options>,
}

/// A resource selector: an id (exact match) and label/annotation expressions.
#[derive(Debug, Clone, Default, PartialEq)]
struct Selector {
    id: ResId,
    annotation_selector: String,
    label_selector: String,
}

/// Where the value goes.
#[derive(Debug, Clone, Default, PartialEq)]
struct TargetSpec {
    select: Option<Selector>,
    /// `None` for a null entry, which crashes kustomize when it is used.
    reject: Vec<Option<Selector>>,
    field_paths: Vec<String>,
    options: Option<Options>,
}

/// kustomize's `FieldOptions` (its `encoding` is accepted and unused there too).
#[derive(Debug, Clone, Default, PartialEq)]
struct Options {
    delimiter: String,
    index: i64,
    create: bool,
}

impl Options {
    /// The options when they split at a delimiter (an empty one does not).
    fn splitting(options: Option<&Options>) -> Option<&Options> {
        options.filter(|o| !o.delimiter.is_empty())
    }
}

/// kustomize's `SourceSelector.String()`: id, field path, options.
fn describe_source(source: &Source) -> String {
    let mut out = source.id.to_string();
    if !source.field_path.is_empty() {
        out.push(':');
        out.push_str(&source.field_path);
    }
    if let Some(o) = &source.options {
        if !o.delimiter.is_empty() || o.create {
            out.push_str(&format!(
                ":{}({}), create={}",
                o.delimiter, o.index, o.create
            ));
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Configuration

/// Read the config's replacements, loading `path:` entries from files.
fn load(config: &Value, ctx: &Ctx) -> Result<Vec<Replacement>, Error> {
    let entries = match config.get("replacements") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(entries)) => entries,
        Some(other) => return Err(mismatch(other, "replacements", "[]types.ReplacementField")),
    };
    let mut out = Vec::new();
    for entry in entries {
        let fields = object(entry, "replacements", "types.ReplacementField")?;
        let path = string_field(fields, "path", "ReplacementField.path")?;
        let inline = parse_replacement(entry, "ReplacementField", ctx.version)?;
        if path.is_empty() {
            out.push(inline);
            continue;
        }
        if inline.source.is_some() || inline.source_value.is_some() || !inline.targets.is_empty() {
            return Err(err!("cannot specify both path and inline replacement"));
        }
        let text = ctx.read_to_string(&path)?;
        // Like kustomize (sigs.k8s.io/yaml), only the first document counts.
        let doc = kustom_api::yaml::parse_stream(&text)?
            .into_iter()
            .next()
            .unwrap_or(Value::Null);
        match &doc {
            Value::Array(items) => {
                for item in items {
                    out.push(parse_replacement(item, "Replacement", ctx.version)?);
                }
            }
            Value::Object(_) => out.push(parse_replacement(&doc, "Replacement", ctx.version)?),
            other => {
                return Err(err!(
                    "unsupported replacement type encountered within replacement path: {}",
                    go_kind(other)
                ))
            }
        }
    }
    Ok(out)
}

/// The `reflect.Kind` Go reports for a decoded YAML value.
fn go_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "invalid",
        Value::Bool(_) => "bool",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "slice",
        Value::Object(_) => "map",
    }
}

/// encoding/json's type-mismatch error.
fn mismatch(value: &Value, field: &str, go_type: &str) -> Error {
    err!(
        "json: cannot unmarshal {} into Go struct field {field} of type {go_type}",
        kustom_api::resource::go_json_type(value)
    )
}

fn object<'a>(
    value: &'a Value,
    field: &str,
    go_type: &str,
) -> Result<&'a Map<String, Value>, Error> {
    value
        .as_object()
        .ok_or_else(|| mismatch(value, field, go_type))
}

/// A string field; absent or null is "".
fn string_field(fields: &Map<String, Value>, key: &str, what: &str) -> Result<String, Error> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(mismatch(other, what, "string")),
    }
}

fn parse_replacement(
    value: &Value,
    what: &str,
    version: KustomizeVersion,
) -> Result<Replacement, Error> {
    let fields = object(value, what, "types.Replacement")?;
    // kustomize #5516 (v5.7.0): `sourceValue`, a literal instead of a source.
    let source_value = match fields.get("sourceValue") {
        Some(Value::String(s)) if version.is_5_8() => Some(s.clone()),
        Some(other @ (Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_)))
            if version.is_5_8() =>
        {
            return Err(mismatch(other, &format!("{what}.sourceValue"), "string"))
        }
        _ => None,
    };
    let source = match fields.get("source") {
        None | Some(Value::Null) => None,
        Some(v) => Some(parse_source(v)?),
    };
    let targets = match fields.get("targets") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(parse_target).collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(mismatch(
                other,
                "Replacement.targets",
                "[]*types.TargetSelector",
            ))
        }
    };
    Ok(Replacement {
        source,
        source_value,
        targets,
    })
}

fn parse_id(fields: &Map<String, Value>, what: &str) -> Result<ResId, Error> {
    let s = |key: &str| string_field(fields, key, &format!("{what}.{key}"));
    Ok(ResId {
        gvk: Gvk {
            group: s("group")?,
            version: s("version")?,
            kind: s("kind")?,
        },
        name: s("name")?,
        namespace: s("namespace")?,
    })
}

fn parse_source(value: &Value) -> Result<Source, Error> {
    let fields = object(value, "Replacement.source", "types.SourceSelector")?;
    Ok(Source {
        id: parse_id(fields, "SourceSelector")?,
        field_path: string_field(fields, "fieldPath", "SourceSelector.fieldPath")?,
        options: parse_options(fields.get("options"), "SourceSelector.options")?,
    })
}

fn parse_selector(value: &Value, what: &str) -> Result<Selector, Error> {
    let fields = object(value, what, "types.Selector")?;
    Ok(Selector {
        id: parse_id(fields, "Selector")?,
        annotation_selector: string_field(
            fields,
            "annotationSelector",
            "Selector.annotationSelector",
        )?,
        label_selector: string_field(fields, "labelSelector", "Selector.labelSelector")?,
    })
}

fn parse_target(value: &Value) -> Result<TargetSpec, Error> {
    let fields = object(value, "Replacement.targets", "types.TargetSelector")?;
    let select = match fields.get("select") {
        None | Some(Value::Null) => None,
        Some(v) => Some(parse_selector(v, "TargetSelector.select")?),
    };
    let reject = match fields.get("reject") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::Null => Ok(None),
                v => parse_selector(v, "TargetSelector.reject").map(Some),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(mismatch(
                other,
                "TargetSelector.reject",
                "[]*types.Selector",
            ))
        }
    };
    let field_paths = match fields.get("fieldPaths") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Null => Ok(String::new()),
                other => Err(mismatch(other, "TargetSelector.fieldPaths", "string")),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(mismatch(other, "TargetSelector.fieldPaths", "[]string")),
    };
    Ok(TargetSpec {
        select,
        reject,
        field_paths,
        options: parse_options(fields.get("options"), "TargetSelector.options")?,
    })
}

fn parse_options(value: Option<&Value>, what: &str) -> Result<Option<Options>, Error> {
    let fields = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(v) => object(v, what, "types.FieldOptions")?,
    };
    let index = match fields.get("index") {
        None | Some(Value::Null) => 0,
        Some(Value::Number(n)) => match n.as_i64() {
            Some(i) => i,
            None => {
                return Err(mismatch(
                    &Value::Number(n.clone()),
                    &format!("{what}.index"),
                    "int",
                ))
            }
        },
        Some(other) => return Err(mismatch(other, &format!("{what}.index"), "int")),
    };
    let create = match fields.get("create") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        // kustomize reads its YAML with YAML 1.1 booleans (`yes`, `on`, …),
        // which our reader leaves as strings.
        Some(Value::String(s)) => match yaml11_bool(s) {
            Some(b) => b,
            None => {
                return Err(mismatch(
                    &Value::String(s.clone()),
                    &format!("{what}.create"),
                    "bool",
                ))
            }
        },
        Some(other) => return Err(mismatch(other, &format!("{what}.create"), "bool")),
    };
    Ok(Some(Options {
        delimiter: string_field(fields, "delimiter", &format!("{what}.delimiter"))?,
        index,
        create,
    }))
}

/// A YAML 1.1 boolean spelling.
fn yaml11_bool(s: &str) -> Option<bool> {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            Some(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            Some(false)
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Application

/// The source value and, while it stays attached, where it lives: kustomize
/// copies from the live source node, so a target that rewrites the source
/// field (or something inside it) changes what later targets receive.
struct Held {
    value: Copied,
    live: Option<(usize, Vec<Step>)>,
}

fn apply(
    replacement: &Replacement,
    resources: &mut [Value],
    version: KustomizeVersion,
) -> Result<(), Error> {
    let mut held = match (
        &replacement.source,
        &replacement.source_value,
        replacement.targets.is_empty(),
    ) {
        (None, None, _) | (_, _, true) => {
            return Err(err!(
                "replacements must specify a source and at least one target"
            ))
        }
        (Some(_), Some(_), _) => {
            return Err(err!("value and resource selectors are mutually exclusive"))
        }
        // An untagged scalar, which never follows a resource field.
        (None, Some(literal), _) => Held {
            value: Copied::Scalar(None, literal.clone()),
            live: None,
        },
        (Some(source), None, _) => source_value(source, resources)?,
    };
    for target in &replacement.targets {
        let Some(select) = &target.select else {
            return Err(err!("target must specify resources to select"));
        };
        let field_paths = if target.field_paths.is_empty() {
            vec![DEFAULT_FIELD_PATH.to_string()]
        } else {
            target.field_paths.clone()
        };
        let select_id = select::IdMatch::target(&select.id, version)?;
        let mut reject_ids = Vec::with_capacity(target.reject.len());
        for r in &target.reject {
            reject_ids.push(match r {
                Some(r) if select::is_empty(&r.id) => None,
                Some(r) => Some(select::IdMatch::target(&r.id, version)?),
                // kustomize #5863 (v5.8.0): a null reject crashes as the selectors are compiled.
                None if version.is_5_8() => return Err(nil_dereference()),
                None => None,
            });
        }
        for index in 0..resources.len() {
            let Some(obj) = resources.get(index) else {
                continue;
            };
            let ids = select::ids(obj)?;
            if !selected_by_expressions(obj, select, &target.reject)? {
                continue;
            }
            if !ids.iter().any(|id| select_id.matches(id)) {
                continue;
            }
            let mut rejected = false;
            for (r, matcher) in target.reject.iter().zip(&reject_ids) {
                r.as_ref().ok_or_else(nil_dereference)?;
                if matcher
                    .as_ref()
                    .is_some_and(|m| ids.iter().any(|id| m.matches(id)))
                {
                    rejected = true;
                }
            }
            if !rejected {
                copy_to_target(
                    resources,
                    index,
                    &mut held,
                    &field_paths,
                    target.options.as_ref(),
                    version,
                )?;
            }
        }
    }
    Ok(())
}

/// The label and annotation half of target selection: `select`'s
/// expressions must match, and no reject that has expressions may match
/// through them (a reject's id is checked separately).
fn selected_by_expressions(
    obj: &Value,
    select: &Selector,
    reject: &[Option<Selector>],
) -> Result<bool, Error> {
    let matches = |s: &Selector| -> Result<bool, Error> {
        Ok(
            select::matches_expression(obj, "annotations", &s.annotation_selector)?
                && select::matches_expression(obj, "labels", &s.label_selector)?,
        )
    };
    if !matches(select)? {
        return Ok(false);
    }
    for r in reject {
        let r = r.as_ref().ok_or_else(nil_dereference)?;
        if r.annotation_selector.is_empty() && r.label_selector.is_empty() {
            continue;
        }
        if matches(r)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Find the one source resource, read its field and refine it by the
/// source options.
fn source_value(source: &Source, resources: &[Value]) -> Result<Held, Error> {
    let mut found = None;
    for (index, obj) in resources.iter().enumerate() {
        let ids = select::ids(obj).map_err(|e| e.context("error getting node IDs"))?;
        if ids.iter().any(|id| select::id_selected_by(id, &source.id)) {
            if found.is_some() {
                return Err(err!(
                    "multiple matches for selector {}",
                    describe_source(source)
                ));
            }
            found = Some(index);
        }
    }
    let Some(index) = found else {
        return Err(err!("nothing selected by {}", describe_source(source)));
    };
    let field_path = if source.field_path.is_empty() {
        DEFAULT_FIELD_PATH
    } else {
        &source.field_path
    };
    let obj = resources
        .get(index)
        .ok_or_else(|| err!("source resource vanished"))?;
    let looked_up = path::lookup(obj, &path::split(field_path)).map_err(|e| {
        // A crash in kustomize carries no context.
        if e.message.starts_with("panic: ") {
            e
        } else {
            e.context("error looking up replacement source")
        }
    })?;
    let (value, location) = match looked_up {
        Some((v, location)) if !is_nil_or_empty(v) => (v, location),
        _ => {
            return Err(err!(
                "fieldPath `{field_path}` is missing for replacement source {}",
                source.id
            ))
        }
    };
    let copied = Copied::of(value);
    let Some(options) = Options::splitting(source.options.as_ref()) else {
        return Ok(Held {
            value: copied,
            live: Some((index, location)),
        });
    };
    // A refined value is a copy: it no longer follows the source field.
    let Copied::Scalar(tag, text) = copied else {
        return Err(err!("delimiter option can only be used with scalar nodes"));
    };
    let part = usize::try_from(options.index)
        .ok()
        .and_then(|i| text.split(options.delimiter.as_str()).nth(i))
        .ok_or_else(|| {
            err!(
                "options.index {} is out of bounds for value {text}",
                options.index
            )
        })?;
    Ok(Held {
        value: Copied::Scalar(tag, part.to_string()),
        live: None,
    })
}

/// What kustomize dies of when a `reject` entry is null.
fn nil_dereference() -> Error {
    err!("panic: runtime error: invalid memory address or nil pointer dereference")
}

/// kyaml's `IsNilOrEmpty`: null, `{}` and `[]` count as missing.
fn is_nil_or_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// Write the held value into every field path of one target resource.
fn copy_to_target(
    resources: &mut [Value],
    index: usize,
    held: &mut Held,
    field_paths: &[String],
    options: Option<&Options>,
    version: KustomizeVersion,
) -> Result<(), Error> {
    let create = options.is_some_and(|o| o.create);
    for field_path in field_paths {
        let retrieval_error = || {
            if create {
                format!(
                    "unable to find or create field {} in replacement target",
                    go_quote(field_path)
                )
            } else {
                format!(
                    "unable to find field {} in replacement target",
                    go_quote(field_path)
                )
            }
        };
        let parts = path::split(field_path);
        let create_kind = create.then(|| held.value.kind());
        // kustomize #5679 (v5.8.0): a path may go on into a string holding JSON or YAML.
        if version.is_5_8() {
            let obj = resources
                .get_mut(index)
                .ok_or_else(|| err!("target resource vanished"))?;
            if let embedded::Outcome::Set(location) =
                embedded::set(obj, &parts, &held.value, create_kind)?
            {
                follow_source(held, resources, index, &[location]);
                continue;
            }
        }
        // Targets are set as they are found; kustomize gathers them first,
        // which only differs once an error has already ended the build.
        let mut written: Vec<Vec<Step>> = Vec::new();
        // Errors from setting a field are kustomize's own, not the path
        // walker's, and must not get the retrieval context.
        let mut set_error = None;
        // The source field itself may be among this path's targets; later
        // targets then receive what was written there.
        let source_here = match &held.live {
            Some((i, location)) if *i == index => Some(location.clone()),
            _ => None,
        };
        let mut current = held.value.clone();
        let walked = {
            let obj = resources
                .get_mut(index)
                .ok_or_else(|| err!("target resource vanished"))?;
            // kustomize #5679 (v5.8.0): a value written empty is text the
            // walk goes on into (and fails in), unlike `null`.
            let empty_nulls = if version.is_5_8() {
                recorded_empty_nulls(obj)
            } else {
                Vec::new()
            };
            path::for_each_target(
                obj,
                &parts,
                create_kind,
                version.is_5_8(),
                &empty_nulls,
                &mut |target: Target<'_>| {
                    let detached = target.path.is_none();
                    if let Err(e) =
                        set_field(target.value, target.created, detached, &current, options)
                    {
                        set_error = Some(e.clone());
                        return Err(e);
                    }
                    if let Some(p) = target.path {
                        if source_here.as_ref() == Some(&p) {
                            current = Copied::of(target.value);
                        }
                        written.push(p);
                    }
                    Ok(())
                },
            )
        };
        if let Some(e) = set_error {
            return Err(e);
        }
        held.value = current;
        let found = walked.map_err(|e| e.context(retrieval_error()))?;
        if found == 0 {
            return Err(Error::new(retrieval_error()));
        }
        follow_source(held, resources, index, &written);
    }
    Ok(())
}

/// Where a resource has values written empty (`key:`), as the core recorded
/// them when it read the resource.
fn recorded_empty_nulls(obj: &Value) -> Vec<Vec<Step>> {
    kustom_api::empty_nulls::recorded(obj)
        .into_iter()
        .filter_map(|steps| {
            steps
                .into_iter()
                .map(|s| match s {
                    Value::String(k) => Some(Step::Key(k)),
                    Value::Number(n) => n.as_u64().map(|i| Step::Index(i as usize)),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// Keep the held value in step with the live source node after targets in
/// the source's own resource were written.
fn follow_source(held: &mut Held, resources: &[Value], index: usize, written: &[Vec<Step>]) {
    let Some((source_index, location)) = &held.live else {
        return;
    };
    if *source_index != index {
        return;
    }
    // Replacing an ancestor cuts the source node out of the document: the
    // value kustomize holds stops changing.
    if written
        .iter()
        .any(|w| w.len() < location.len() && location.starts_with(w))
    {
        held.live = None;
        return;
    }
    if written.iter().any(|w| w.starts_with(location)) {
        if let Some(v) = resources.get(index).and_then(|obj| path::at(obj, location)) {
            held.value = Copied::of(v);
        }
    }
}

/// Set one target field (kustomize's `setFieldValue`).
fn set_field(
    target: &mut Value,
    created: bool,
    detached: bool,
    value: &Copied,
    options: Option<&Options>,
) -> Result<(), Error> {
    // A field created for a scalar has no tag yet; a mapping or sequence
    // (created or not) is replaced whole.
    let kind = if created {
        TargetKind::Untagged
    } else {
        match scalar::tag_and_text(target) {
            Some((tag, _)) => TargetKind::Tagged(tag),
            None => TargetKind::Container,
        }
    };
    let mut text = value.text().to_string();
    if let Some(o) = Options::splitting(options) {
        let current = match (&kind, &*target) {
            (TargetKind::Container, _) => {
                return Err(err!("delimiter option can only be used with scalar nodes"))
            }
            (TargetKind::Untagged, _) | (_, Value::Null) => String::new(),
            (_, other) => scalar::tag_and_text(other)
                .map(|(_, t)| t)
                .unwrap_or_default(),
        };
        let mut items: Vec<&str> = current.split(o.delimiter.as_str()).collect();
        let v = value.text();
        match usize::try_from(o.index) {
            Err(_) => items.insert(0, v),
            Ok(i) if i >= items.len() => items.push(v),
            Ok(i) => {
                if let Some(slot) = items.get_mut(i) {
                    *slot = v;
                }
            }
        }
        text = items.join(&o.delimiter);
    }
    let set = match kind {
        // A scalar target keeps its type and takes the text only.
        TargetKind::Tagged(tag) => scalar::materialize(Some(tag), &text),
        TargetKind::Untagged => scalar::materialize(None, &text),
        TargetKind::Container => value.to_json(),
    };
    match set {
        Ok(v) => *target = v,
        // A node kustomize never writes out is never typed either, so what
        // it could not print is no error there.
        Err(_) if detached => {}
        Err(e) => return Err(e),
    }
    Ok(())
}

/// How a target field takes a value.
enum TargetKind {
    Tagged(Tag),
    Untagged,
    Container,
}

/// Go's `%q` for a field path.
fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx() -> Ctx {
        Ctx {
            root: std::env::temp_dir(),
            load_restrictor: crate::ctx::LoadRestrictor::RootOnly,
            kustomization: "kustomization.yaml".into(),
            remote_files: Default::default(),
            version: Default::default(),
        }
    }

    #[test]
    fn source_description_matches_kustomize() {
        let mut source = Source {
            id: ResId::default(),
            field_path: String::new(),
            options: None,
        };
        source.id.gvk.kind = "Secret".into();
        assert_eq!(
            describe_source(&source),
            "Secret.[noVer].[noGrp]/[noName].[noNs]"
        );
        source.field_path = "data.x".into();
        source.options = Some(Options {
            delimiter: String::new(),
            index: 3,
            create: false,
        });
        assert_eq!(
            describe_source(&source),
            "Secret.[noVer].[noGrp]/[noName].[noNs]:data.x"
        );
        source.options = Some(Options {
            delimiter: "-".into(),
            index: 2,
            create: false,
        });
        assert_eq!(
            describe_source(&source),
            "Secret.[noVer].[noGrp]/[noName].[noNs]:data.x:-(2), create=false"
        );
    }

    #[test]
    fn config_type_errors_name_the_field() {
        let config = json!({"replacements": [
            {"source": {"kind": "A", "options": {"index": "1"}}, "targets": [{"select": {}}]}]});
        let e = transform(&config, &mut Vec::new(), &ctx()).unwrap_err();
        assert_eq!(
            e.message,
            "json: cannot unmarshal string into Go struct field SourceSelector.options.index of type int"
        );
        let config = json!({"replacements": [{"targets": [{"fieldPaths": "a"}]}]});
        assert!(transform(&config, &mut Vec::new(), &ctx()).is_err());
    }

    #[test]
    fn replacements_run_in_order_on_each_others_results() {
        let mut resources = vec![
            json!({"kind": "A", "metadata": {"name": "a"}, "v": "one"}),
            json!({"kind": "B", "metadata": {"name": "b"}, "v": "two"}),
        ];
        let config = json!({"replacements": [
            {"source": {"kind": "A", "fieldPath": "v"},
             "targets": [{"select": {"kind": "B"}, "fieldPaths": ["v"]}]},
            {"source": {"kind": "B", "fieldPath": "v"},
             "targets": [{"select": {"kind": "B"}, "fieldPaths": ["copy"],
                          "options": {"create": true}}]}]});
        transform(&config, &mut resources, &ctx()).unwrap();
        assert_eq!(
            resources[1],
            json!({"kind": "B", "metadata": {"name": "b"},
                                        "v": "one", "copy": "one"})
        );
    }

    #[test]
    fn go_quoting_escapes_like_percent_q() {
        assert_eq!(go_quote("a.\"b\"\n"), "\"a.\\\"b\\\"\\n\"");
        assert_eq!(go_quote("ä"), "\"ä\"");
    }
}
