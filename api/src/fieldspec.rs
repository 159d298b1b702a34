//! Field specs: which fields of which kinds a builtin transformer touches,
//! the walker that visits those fields in an object, and the transformer
//! configuration (kustomize's `TransformerConfig`: the default field-spec
//! tables plus the user's `configurations:` files).
//!
//! The default tables are data (`data/fieldspecs/*.yaml`), embedded in the
//! binary and parsed once.

use crate::{resource, Error, Gvk};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// One field spec: a slash-separated path in objects of a (partial) gvk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct FieldSpec {
    /// API group to match; empty matches any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// API version to match; empty matches any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Kind to match; empty matches any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Slash-separated field path, e.g. `spec/template/metadata/labels`;
    /// `\/` escapes a slash inside a key, a trailing `[]` marks a sequence.
    #[serde(default)]
    pub path: String,
    /// Create the field when it is missing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub create: bool,
}

impl FieldSpec {
    /// `[group, version, kind]`, borrowed.
    fn gvk_parts(&self) -> [&str; 3] {
        [&self.group, &self.version, &self.kind]
    }

    /// Whether this spec applies to objects of `gvk` (empty fields match anything).
    pub fn applies_to(&self, gvk: &Gvk) -> bool {
        (self.kind.is_empty() || self.kind == gvk.kind)
            && (self.group.is_empty() || self.group == gvk.group)
            && (self.version.is_empty() || self.version == gvk.version)
    }

    /// Whether this spec applies to `obj`.
    pub fn applies_to_object(&self, obj: &Value) -> bool {
        self.applies_to(&Gvk::from_api_version(
            resource::api_version(obj),
            resource::kind(obj),
        ))
    }

    /// The path split into keys, honouring `\/` escapes and a leading `/`.
    pub fn path_segments(&self) -> Vec<String> {
        split_path(&self.path)
    }

    /// The spec's group/version/kind (possibly partial).
    pub fn gvk(&self) -> Gvk {
        Gvk {
            group: self.group.clone(),
            version: self.version.clone(),
            kind: self.kind.clone(),
        }
    }

    /// kustomize's `effectivelyEquals`: `other` names the same field as
    /// `self` when their paths are equal and `other`'s gvk, read as a
    /// selector, selects `self`'s. Deliberately asymmetric, as in kustomize:
    /// a kind-less spec matches a kind-specific one, not the reverse.
    fn same_field_as(&self, other: &FieldSpec) -> bool {
        self.path == other.path && other.applies_to(&self.gvk())
    }
}

/// Split a field-spec path at `/`, keeping `\/` as a literal slash.
pub fn split_path(path: &str) -> Vec<String> {
    let path = if path.len() > 1 {
        path.strip_prefix('/').unwrap_or(path)
    } else {
        path
    };
    let mut out: Vec<String> = Vec::new();
    for part in path.split('/') {
        match out.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push('/');
                last.push_str(part);
            }
            _ => out.push(part.to_string()),
        }
    }
    out
}

/// Call `f` on every field of `obj` that `spec` names, when `spec` applies
/// to `obj`'s gvk. Sequences met on the way are descended element by
/// element. When `spec.create` is set and `create_leaf` is given, missing
/// fields are created (intermediate ones as maps, the leaf as a clone of
/// `create_leaf`); a field that exists but is null is treated the same way.
/// A path step marked `[]` is never created, but when that field exists and
/// is null it becomes an empty sequence, as in kustomize.
pub fn visit_fields(
    obj: &mut Value,
    spec: &FieldSpec,
    create_leaf: Option<&Value>,
    f: &mut dyn FnMut(&mut Value) -> Result<(), Error>,
) -> Result<(), Error> {
    if !spec.applies_to_object(obj) {
        return Ok(());
    }
    let segments = spec.path_segments();
    let create = if spec.create { create_leaf } else { None };
    visit_path(obj, &segments, create, f).map_err(|e| {
        e.context(format!(
            "considering field '{}' of object {}",
            spec.path,
            crate::ResId::of(obj)
        ))
    })
}

/// Call `f` on every field at `segments` below `node` (see [`visit_fields`]),
/// without the gvk check.
pub fn visit_path(
    node: &mut Value,
    segments: &[String],
    create_leaf: Option<&Value>,
    f: &mut dyn FnMut(&mut Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some((first, rest)) = segments.split_first() else {
        return f(node);
    };
    match node {
        Value::Null => Ok(()),
        Value::Array(items) => {
            for item in items {
                visit_path(item, segments, create_leaf, f)?;
            }
            Ok(())
        }
        Value::Object(map) => {
            let (key, is_seq) = match first.strip_suffix("[]") {
                Some(k) => (k, true),
                None => (first.as_str(), false),
            };
            check_field_name(key)?;
            let missing = map.get(key).is_none_or(Value::is_null);
            if missing && is_seq {
                // kustomize takes the `[]` hint even when not creating: a
                // field that is there but null becomes an empty sequence
                // (`containers: null` comes out as `containers: []`).
                // A missing sequence is never created.
                match map.get_mut(key) {
                    Some(field) => *field = Value::Array(Vec::new()),
                    None => return Ok(()),
                }
            } else if missing {
                match create_leaf {
                    Some(leaf) => {
                        let fresh = if rest.is_empty() {
                            leaf.clone()
                        } else {
                            Value::Object(Map::new())
                        };
                        map.insert(key.to_string(), fresh);
                    }
                    _ => return Ok(()),
                }
            }
            match map.get_mut(key) {
                Some(child) => visit_path(child, rest, create_leaf, f),
                None => Ok(()),
            }
        }
        _ => Err(Error::new(format!(
            "expected sequence or mapping node at '{first}'"
        ))),
    }
}

/// A path step about to be looked up in a mapping, checked as kyaml's
/// lookup checks it: an empty name, or a `*` (its PathGetter has no
/// wildcards), is an error — only once a walk meets a mapping there.
pub fn check_field_name(key: &str) -> Result<(), Error> {
    match key {
        "" => Err(Error::new("cannot set or create an empty field name")),
        "*" => Err(Error::new(
            "fieldName: *: wildcard is not supported in PathGetter",
        )),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------
// Merging field-spec lists
// ---------------------------------------------------------------------------

/// Add `spec` to `list` unless the list already names the same field
/// (kustomize's `FsSlice.MergeOne`). A spec naming an existing field with a
/// different `create` is an error ("conflicting fieldspecs").
pub fn merge_field_spec(list: &mut Vec<FieldSpec>, spec: &FieldSpec) -> Result<(), Error> {
    match list.iter().find(|existing| existing.same_field_as(spec)) {
        Some(existing) if existing.create != spec.create => {
            Err(Error::new("conflicting fieldspecs"))
        }
        Some(_) => Ok(()),
        None => {
            list.push(spec.clone());
            Ok(())
        }
    }
}

/// Add every spec of `incoming` to `list`, in order (kustomize's
/// `FsSlice.MergeAll`); specs added earlier take part in later checks.
pub fn merge_field_specs(list: &mut Vec<FieldSpec>, incoming: &[FieldSpec]) -> Result<(), Error> {
    incoming
        .iter()
        .try_for_each(|spec| merge_field_spec(list, spec))
}

/// The field specs of one `labels:` entry of a kustomization: its own
/// `fields` (`custom`), then the configured `labels` specs, then either the
/// `commonLabels` specs (selectors included) or — without selectors — the
/// `templateLabels` specs when templates are included, and always
/// `metadata/labels`. Merged the way kustomize merges them, so conflicting
/// specs are an error.
///
/// For the `commonLabels:` field itself kustomize uses
/// `tc.common_labels` as it is, without this merge.
pub fn label_field_specs_with(
    custom: &[FieldSpec],
    include_selectors: bool,
    include_templates: bool,
    tc: &TransformerConfig,
) -> Result<Vec<FieldSpec>, Error> {
    let mut specs = custom.to_vec();
    merge_field_specs(&mut specs, &tc.labels).map_err(|e| e.context("failed to merge labels"))?;
    if include_selectors {
        merge_field_specs(&mut specs, &tc.common_labels)
            .map_err(|e| e.context("failed to merge labels"))?;
    } else {
        if include_templates {
            merge_field_specs(&mut specs, &tc.template_labels)
                .map_err(|e| e.context("failed to merge template fieldSpec"))?;
        }
        let metadata_labels = FieldSpec {
            path: "metadata/labels".into(),
            create: true,
            ..Default::default()
        };
        merge_field_spec(&mut specs, &metadata_labels)
            .map_err(|e| e.context("failed to merge labels"))?;
    }
    Ok(specs)
}

/// [`label_field_specs_with`] for a `labels:` entry without `fields`.
///
/// Fallible: even without custom specs, the configured `labels` and
/// `commonLabels`/`templateLabels` lists can conflict, which fails the
/// build in kustomize too.
pub fn label_field_specs(
    include_selectors: bool,
    include_templates: bool,
    tc: &TransformerConfig,
) -> Result<Vec<FieldSpec>, Error> {
    label_field_specs_with(&[], include_selectors, include_templates, tc)
}

// ---------------------------------------------------------------------------
// Transformer configuration
// ---------------------------------------------------------------------------

/// A referenced kind and the fields of other kinds that may hold the name of
/// an object of that kind (kustomize's `nameReference:` config entries).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct NameBackReference {
    /// API group of the referenced kind; empty for the core group.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// API version of the referenced kind; empty matches any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// The referenced kind.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// The referring fields (kustomize calls them referrers, spelled `fieldSpecs`).
    #[serde(rename = "fieldSpecs", default, skip_serializing_if = "Vec::is_empty")]
    pub field_specs: Vec<FieldSpec>,
}

impl NameBackReference {
    /// `[group, version, kind]`, borrowed.
    fn gvk_parts(&self) -> [&str; 3] {
        [&self.group, &self.version, &self.kind]
    }

    /// The referenced group/version/kind.
    pub fn gvk(&self) -> Gvk {
        Gvk {
            group: self.group.clone(),
            version: self.version.clone(),
            kind: self.kind.clone(),
        }
    }
}

/// Which fields each builtin transformer touches: kustomize's
/// `TransformerConfig`, the schema of a `configurations:` file.
///
/// kustomize builds the config a kustomization's transformers use like so
/// (the merge order matters: merging is asymmetric and sorts):
/// 1. `user` = an empty config merged with each `configurations:` file
///    ([`TransformerConfig::from_value`]) in turn;
/// 2. `tc` = [`TransformerConfig::defaults`] merged with `user` (just the
///    defaults when there are no files);
/// 3. the kustomization's accumulated config starts empty
///    ([`TransformerConfig::default`]), merges the accumulated configs of
///    its resources' kustomizations as they are accumulated, then merges
///    `tc`; its transformers then use this accumulated config.
///
/// `namePrefix`/`nameSuffix`/`namespace`/`commonAnnotations`/`images`/
/// `replicas` lists go to the builtin configs as they are; `commonLabels`
/// uses `common_labels`, a `labels:` entry uses [`label_field_specs_with`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TransformerConfig {
    /// Fields that get the name prefix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub name_prefix: Vec<FieldSpec>,
    /// Fields that get the name suffix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub name_suffix: Vec<FieldSpec>,
    /// Namespace fields besides `metadata/namespace`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub namespace: Vec<FieldSpec>,
    /// Fields that get `commonLabels` (selectors included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub common_labels: Vec<FieldSpec>,
    /// Extra fields for every `labels:` entry (empty by default).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<FieldSpec>,
    /// Fields for `labels:` entries with `includeTemplates`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub template_labels: Vec<FieldSpec>,
    /// Fields that get `commonAnnotations`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub common_annotations: Vec<FieldSpec>,
    /// Name back-references, one entry per referenced kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub name_reference: Vec<NameBackReference>,
    /// Fields in which `$(VAR)` references are expanded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub var_reference: Vec<FieldSpec>,
    /// Container image fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<FieldSpec>,
    /// Replica count fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<FieldSpec>,
}

/// The field-spec lists of a config by their `configurations:` key.
const FIELD_SPEC_KEYS: [&str; 10] = [
    "namePrefix",
    "nameSuffix",
    "namespace",
    "commonLabels",
    "labels",
    "templateLabels",
    "commonAnnotations",
    "varReference",
    "images",
    "replicas",
];

impl TransformerConfig {
    /// kustomize's default configuration (`MakeDefaultConfig`), from the
    /// embedded tables, sorted as kustomize sorts it.
    pub fn defaults() -> TransformerConfig {
        TransformerConfig::defaults_ref().clone()
    }

    /// The default configuration of the release `version`, borrowed (built
    /// once per process).
    pub fn defaults_for(version: crate::KustomizeVersion) -> &'static TransformerConfig {
        if !version.is_5_8() {
            return TransformerConfig::defaults_ref();
        }
        static V5_8: OnceLock<TransformerConfig> = OnceLock::new();
        V5_8.get_or_init(|| {
            let mut tc = load_defaults();
            // kustomize v5.7.0 (image volumes): images also rewrite volumes' image references.
            let volumes = [
                "spec/volumes[]/image/reference",
                "spec/template/spec/volumes[]/image/reference",
            ]
            .map(|path| FieldSpec {
                path: path.into(),
                create: true,
                ..FieldSpec::default()
            });
            tc.images.extend(volumes);
            tc.sort_fields();
            tc
        })
    }

    /// The default configuration, borrowed (built once per process).
    pub fn defaults_ref() -> &'static TransformerConfig {
        static DEFAULTS: OnceLock<TransformerConfig> = OnceLock::new();
        DEFAULTS.get_or_init(load_defaults)
    }

    /// Read one `configurations:` file (already parsed), strictly as
    /// kustomize does: unknown keys are errors, and the lists are sorted.
    pub fn from_value(value: &Value) -> Result<TransformerConfig, Error> {
        let mut tc = TransformerConfig::default();
        let map = match value {
            Value::Null => return Ok(tc),
            Value::Object(map) => map,
            other => {
                return Err(Error::new(format!(
                "json: cannot unmarshal {} into Go value of type builtinconfig.TransformerConfig",
                resource::go_json_type(other)
            )))
            }
        };
        for (key, val) in map {
            if key == "nameReference" {
                tc.name_reference = parse_list(val, key, parse_name_back_reference)?;
            } else if let Some(list) = tc.field_specs_mut(key) {
                *list = parse_list(val, key, parse_field_spec)?;
            } else {
                return Err(Error::new(format!("json: unknown field \"{key}\"")));
            }
        }
        tc.sort_fields();
        Ok(tc)
    }

    /// Merge `other` into `self` (kustomize's `TransformerConfig.Merge`):
    /// each list gets `other`'s specs that it lacks, a spec naming the same
    /// field with a different `create` is an error, name back-references of
    /// the same kind are merged into one; then every list is sorted.
    /// On error `self` is left unchanged.
    pub fn merge(&mut self, other: &TransformerConfig) -> Result<(), Error> {
        // Every kustomization merges kustomize's defaults (and its own
        // `configurations:`, usually none) into what its resources'
        // kustomizations accumulated, most often those same defaults: a
        // merge of nothing, or of a config into an equal one, only sorts.
        // (Equal configs come out of merges or the embedded tables, which
        // hold no two specs of one field with unlike `create`, the one case
        // where merging a config into itself would fail.) Each list is
        // otherwise searched once per incoming spec.
        if other.is_empty() || self == other {
            self.sort_fields();
            return Ok(());
        }
        let mut merged = self.clone();
        let mut incoming = other.clone();
        // kustomize's order of merging decides which conflict is reported.
        let order = [
            ("namePrefix", "NamePrefix"),
            ("nameSuffix", "NameSuffix"),
            ("namespace", "NameSpace"),
            ("commonAnnotations", "CommonAnnotations"),
            ("commonLabels", "CommonLabels"),
            ("labels", "Labels"),
            ("templateLabels", "TemplateLabels"),
        ];
        for (key, what) in order {
            let specs = incoming.field_specs_mut(key).map(std::mem::take);
            if let (Some(list), Some(specs)) = (merged.field_specs_mut(key), specs) {
                merge_field_specs(list, &specs)
                    .map_err(|e| e.context(format!("failed to merge {what} fieldSpec")))?;
            }
        }
        merge_field_specs(&mut merged.var_reference, &other.var_reference)
            .map_err(|e| e.context("failed to merge VarReference fieldSpec"))?;
        for nbr in &other.name_reference {
            merge_name_back_reference(&mut merged.name_reference, nbr)
                .map_err(|e| e.context("failed to merge NameReference fieldSpec"))?;
        }
        merge_field_specs(&mut merged.images, &other.images)
            .map_err(|e| e.context("failed to merge Images fieldSpec"))?;
        merge_field_specs(&mut merged.replicas, &other.replicas)
            .map_err(|e| e.context("failed to merge Replicas fieldSpec"))?;
        merged.sort_fields();
        *self = merged;
        Ok(())
    }

    /// Whether it holds no spec at all.
    pub fn is_empty(&self) -> bool {
        *self == TransformerConfig::default()
    }

    /// The config as a JSON object in the `configurations:` schema.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The field-spec list stored under a `configurations:` key.
    pub fn field_specs_mut(&mut self, key: &str) -> Option<&mut Vec<FieldSpec>> {
        Some(match key {
            "namePrefix" => &mut self.name_prefix,
            "nameSuffix" => &mut self.name_suffix,
            "namespace" => &mut self.namespace,
            "commonLabels" => &mut self.common_labels,
            "labels" => &mut self.labels,
            "templateLabels" => &mut self.template_labels,
            "commonAnnotations" => &mut self.common_annotations,
            "varReference" => &mut self.var_reference,
            "images" => &mut self.images,
            "replicas" => &mut self.replicas,
            _ => return None,
        })
    }

    /// Sort every list by gvk in kustomize's kind order (`sortFields`).
    /// kustomize's sort is not stable; ours is, keeping file order among
    /// specs of the same gvk.
    fn sort_fields(&mut self) {
        // Compared in place, without building sort texts: most lists come
        // sorted (from the tables or an earlier merge), which the stable
        // sort sees in one pass.
        for name in FIELD_SPEC_KEYS {
            if let Some(list) = self.field_specs_mut(name) {
                list.sort_by(|a, b| compare_gvk_parts(a.gvk_parts(), b.gvk_parts()));
            }
        }
        self.name_reference
            .sort_by(|a, b| compare_gvk_parts(a.gvk_parts(), b.gvk_parts()));
    }
}

/// Merge one back-reference into a list (kustomize's `nbrSlice.mergeOne`):
/// its referrers join every entry of the same gvk, or it is appended as is.
fn merge_name_back_reference(
    list: &mut Vec<NameBackReference>,
    incoming: &NameBackReference,
) -> Result<(), Error> {
    let mut found = false;
    for entry in list.iter_mut() {
        if entry.group == incoming.group
            && entry.version == incoming.version
            && entry.kind == incoming.kind
        {
            merge_field_specs(&mut entry.field_specs, &incoming.field_specs)?;
            found = true;
        }
    }
    if !found {
        list.push(incoming.clone());
    }
    Ok(())
}

use crate::resid::compare_gvk_parts;

// ---------------------------------------------------------------------------
// Reading configs
// ---------------------------------------------------------------------------

/// A string-typed field of a builtin config, read as kustomize reads it: a
/// null or missing value is "", numbers and booleans become their text the
/// way Go's YAML-to-JSON conversion renders them (`1` → "1", `1.50` →
/// "1.5", `12345678.9` → "1.2345679e+07", `true` → "true"), and
/// sequences or mappings are errors.
pub fn config_string(value: &Value) -> Result<String, Error> {
    match value {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(go_number_text(n)),
        other => Err(Error::new(format!(
            "json: cannot unmarshal {} into Go value of type string",
            resource::go_json_type(other)
        ))),
    }
}

/// A string-typed field `key` of config object `config` (see [`config_string`]).
pub fn config_str_field(config: &Value, key: &str) -> Result<String, Error> {
    config
        .get(key)
        .map(config_string)
        .transpose()
        .map_err(|e| e.context(format!("field {key}")))
        .map(Option::unwrap_or_default)
}

/// A `[]FieldSpec` field `key` of a builtin config; None when absent or null
/// (kustomize's nil slice). Unknown keys inside a spec are ignored, as the
/// builtin plugins decode their configs leniently.
pub fn config_field_specs(config: &Value, key: &str) -> Result<Option<Vec<FieldSpec>>, Error> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| read_field_spec(item, false))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
            .map_err(|e| e.context(format!("field {key}"))),
        Some(other) => Err(Error::new(format!(
            "json: cannot unmarshal {} into Go struct field .{key} of type []types.FieldSpec",
            resource::go_json_type(other)
        ))),
    }
}

/// The text Go gives a YAML number decoded into a string field: integers as
/// decimals; floats are first printed as JSON (so integral ones below 1e21
/// come back as integers) and otherwise formatted as `%g` of a float32.
fn go_number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.fract() == 0.0 && f.abs() < 1e21 {
        // 2^63 and 2^64 bound the integer types Go tries before float.
        let two_63 = -(i64::MIN as f64);
        if (-two_63..two_63).contains(&f) {
            return (f as i64).to_string();
        }
        // `u64::MAX as f64` rounds to 2^64.
        if (0.0..u64::MAX as f64).contains(&f) {
            return (f as u64).to_string();
        }
    }
    format_float32_g(f)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest digits that
/// identify the float32, in exponent form when the exponent is below -4 or
/// at least 6 (exponent with a sign and at least two digits).
fn format_float32_g(f: f64) -> String {
    let x = f as f32;
    if x == 0.0 {
        return "0".into();
    }
    // Rust's `{:e}` prints the shortest round-trip digits: "1.2345679e7".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let nd = digits.len() as i64;
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        out.push(digits[0] as char);
        if nd > 1 {
            out.push('.');
            out.extend(digits[1..].iter().map(|&d| d as char));
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
    } else {
        // Decimal point after `dp` digits.
        let dp = exp + 1;
        let digit = |i: i64| -> char {
            if i >= 0 && i < nd {
                digits[i as usize] as char
            } else {
                '0'
            }
        };
        if dp > 0 {
            (0..dp).for_each(|i| out.push(digit(i)));
        } else {
            out.push('0');
        }
        let frac = (nd - dp).max(0);
        if frac > 0 {
            out.push('.');
            (0..frac).for_each(|i| out.push(digit(dp + i)));
        }
    }
    out
}

/// A list-valued `configurations:` key: null is empty, else a sequence.
fn parse_list<T>(
    value: &Value,
    key: &str,
    item: fn(&Value) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items.iter().map(item).collect(),
        other => Err(Error::new(format!(
            "json: cannot unmarshal {} into Go struct field TransformerConfig.{key}",
            resource::go_json_type(other)
        ))),
    }
}

/// One field spec of a `configurations:` file: unknown keys are errors.
fn parse_field_spec(value: &Value) -> Result<FieldSpec, Error> {
    read_field_spec(value, true)
}

fn read_field_spec(value: &Value, strict: bool) -> Result<FieldSpec, Error> {
    let map = match value {
        // Go decodes a null element to the zero FieldSpec.
        Value::Null => return Ok(FieldSpec::default()),
        Value::Object(map) => map,
        other => {
            return Err(Error::new(format!(
                "json: cannot unmarshal {} into Go value of type types.FieldSpec",
                resource::go_json_type(other)
            )))
        }
    };
    let mut spec = FieldSpec::default();
    for (key, val) in map {
        match key.as_str() {
            "group" => spec.group = config_string(val)?,
            "version" => spec.version = config_string(val)?,
            "kind" => spec.kind = config_string(val)?,
            "path" => spec.path = config_string(val)?,
            "create" => spec.create = read_bool(val, "create")?,
            _ if strict => return Err(Error::new(format!("json: unknown field \"{key}\""))),
            _ => {}
        }
    }
    Ok(spec)
}

/// A boolean config field as Go decodes it: JSON booleans only, null is
/// false, anything else is an error naming `key`.
pub fn read_bool(value: &Value, key: &str) -> Result<bool, Error> {
    match value {
        Value::Null => Ok(false),
        Value::Bool(b) => Ok(*b),
        other => Err(Error::new(format!(
            "json: cannot unmarshal {} into Go struct field .{key} of type bool",
            resource::go_json_type(other)
        ))),
    }
}

/// One `nameReference:` entry of a `configurations:` file.
fn parse_name_back_reference(value: &Value) -> Result<NameBackReference, Error> {
    let map = match value {
        Value::Null => return Ok(NameBackReference::default()),
        Value::Object(map) => map,
        other => {
            return Err(Error::new(format!(
                "json: cannot unmarshal {} into Go value of type builtinconfig.NameBackReferences",
                resource::go_json_type(other)
            )))
        }
    };
    let mut nbr = NameBackReference::default();
    for (key, val) in map {
        match key.as_str() {
            "group" => nbr.group = config_string(val)?,
            "version" => nbr.version = config_string(val)?,
            "kind" => nbr.kind = config_string(val)?,
            "fieldSpecs" => nbr.field_specs = parse_list(val, key, parse_field_spec)?,
            _ => return Err(Error::new(format!("json: unknown field \"{key}\""))),
        }
    }
    Ok(nbr)
}

// ---------------------------------------------------------------------------
// The embedded default tables
// ---------------------------------------------------------------------------

/// One embedded field spec: group, version, kind, path, create.
type SpecRow = (&'static str, &'static str, &'static str, &'static str, bool);

/// One embedded name back-reference: group, version, kind, referrers.
type BackReferenceRow = (&'static str, &'static str, &'static str, &'static [SpecRow]);

// The tables as constants, from src/data/fieldspecs/*.yaml by build.rs:
// NAME_PREFIX, NAMESPACE, COMMON_LABELS, TEMPLATE_LABELS,
// COMMON_ANNOTATIONS, IMAGES, REPLICAS, VAR_REFERENCE, NAME_REFERENCE.
include!(concat!(env!("OUT_DIR"), "/fieldspecs.rs"));

fn specs(rows: &[SpecRow]) -> Vec<FieldSpec> {
    rows.iter()
        .map(|&(group, version, kind, path, create)| FieldSpec {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            path: path.into(),
            create,
        })
        .collect()
}

/// Build the default config from the embedded tables.
fn load_defaults() -> TransformerConfig {
    let name = specs(NAME_PREFIX);
    let template_labels = specs(TEMPLATE_LABELS);
    let mut common_labels = specs(COMMON_LABELS);
    common_labels.extend(template_labels.iter().cloned());
    let name_reference = NAME_REFERENCE
        .iter()
        .map(|&(group, version, kind, referrers)| NameBackReference {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            field_specs: specs(referrers),
        })
        .collect();
    let mut tc = TransformerConfig {
        name_prefix: name.clone(),
        name_suffix: name,
        namespace: specs(NAMESPACE),
        common_labels,
        labels: Vec::new(),
        template_labels,
        common_annotations: specs(COMMON_ANNOTATIONS),
        name_reference,
        var_reference: specs(VAR_REFERENCE),
        images: specs(IMAGES),
        replicas: specs(REPLICAS),
    };
    tc.sort_fields();
    tc
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(path: &str, create: bool) -> FieldSpec {
        FieldSpec {
            path: path.into(),
            create,
            ..Default::default()
        }
    }

    #[test]
    fn splits_escaped_slashes() {
        assert_eq!(
            split_path("metadata/annotations/a\\/b"),
            vec!["metadata", "annotations", "a/b"]
        );
        assert_eq!(split_path("/spec/x"), vec!["spec", "x"]);
    }

    #[test]
    fn descends_sequences_and_creates() {
        let mut obj =
            json!({"kind": "Pod", "spec": {"containers": [{"name": "a"}, {"name": "b"}]}});
        let mut seen = Vec::new();
        visit_fields(
            &mut obj,
            &spec("spec/containers/name", false),
            None,
            &mut |v| {
                seen.push(v.as_str().unwrap_or("").to_string());
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, vec!["a", "b"]);
        visit_fields(
            &mut obj,
            &spec("metadata/labels", true),
            Some(&json!({})),
            &mut |v| {
                v.as_object_mut().unwrap().insert("x".into(), json!("y"));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(obj["metadata"]["labels"]["x"], "y");
        // Without create, a missing field is skipped.
        let mut called = false;
        visit_fields(
            &mut obj,
            &spec("spec/nothing/here", false),
            None,
            &mut |_| {
                called = true;
                Ok(())
            },
        )
        .unwrap();
        assert!(!called);
    }

    #[test]
    fn null_sequence_hint_becomes_empty_sequence() {
        let mut obj = serde_json::json!({"kind": "Pod", "spec": {"containers": null}});
        let mut called = 0;
        let s = spec("spec/containers[]/image", true);
        visit_fields(&mut obj, &s, Some(&Value::Null), &mut |_| {
            called += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(called, 0);
        assert_eq!(obj["spec"]["containers"], serde_json::json!([]));
        // A missing one is not created.
        let s = spec("spec/initContainers[]/image", true);
        visit_fields(&mut obj, &s, Some(&Value::Null), &mut |_| Ok(())).unwrap();
        assert!(obj["spec"].get("initContainers").is_none());
    }

    #[test]
    fn gvk_filter() {
        let s = FieldSpec {
            kind: "Deployment".into(),
            group: "apps".into(),
            path: "spec/replicas".into(),
            ..Default::default()
        };
        assert!(s.applies_to(&Gvk::from_api_version("apps/v1", "Deployment")));
        assert!(!s.applies_to(&Gvk::from_api_version("v1", "Deployment")));
    }

    fn fs(kind: &str, path: &str, create: bool) -> FieldSpec {
        FieldSpec {
            kind: kind.into(),
            path: path.into(),
            create,
            ..Default::default()
        }
    }

    #[test]
    fn merge_drops_duplicates_and_rejects_conflicts() {
        let mut list = vec![fs("", "metadata/name", false)];
        merge_field_specs(
            &mut list,
            &[
                fs("", "metadata/name", false),
                fs("Service", "spec/x", true),
            ],
        )
        .unwrap();
        assert_eq!(list.len(), 2);
        let err = merge_field_spec(&mut list, &fs("", "metadata/name", true)).unwrap_err();
        assert_eq!(err.message, "conflicting fieldspecs");
        // Asymmetric like kustomize: a kind-specific spec does not match a
        // kind-less one, but a kind-less one matches a kind-specific one.
        let mut list = vec![fs("", "metadata/name", false)];
        merge_field_spec(&mut list, &fs("Service", "metadata/name", true)).unwrap();
        assert_eq!(list.len(), 2);
        let mut list = vec![fs("Service", "metadata/name", true)];
        assert!(merge_field_spec(&mut list, &fs("", "metadata/name", false)).is_err());
    }

    #[test]
    fn config_merge_sorts_and_conflicts_like_kustomize() {
        // The user adds a Service-only prefix spec: merged over the defaults
        // and sorted, it comes first and swallows the kind-less default when
        // this config is merged again (kustomize does that per kustomization).
        let user = TransformerConfig::from_value(&serde_json::json!({
            "namePrefix": [{"path": "metadata/name", "kind": "Service"}]
        }))
        .unwrap();
        let mut tc = TransformerConfig {
            name_prefix: vec![fs("", "metadata/name", false)],
            ..Default::default()
        };
        tc.merge(&user).unwrap();
        assert_eq!(
            tc.name_prefix,
            vec![
                fs("Service", "metadata/name", false),
                fs("", "metadata/name", false)
            ]
        );
        let mut acc = TransformerConfig::default();
        acc.merge(&tc).unwrap();
        assert_eq!(acc.name_prefix, vec![fs("Service", "metadata/name", false)]);

        // With create differing, the second merge is a conflict.
        let user = TransformerConfig::from_value(&serde_json::json!({
            "namePrefix": [{"path": "metadata/name", "kind": "Service", "create": true}]
        }))
        .unwrap();
        let mut tc = TransformerConfig {
            name_prefix: vec![fs("", "metadata/name", false)],
            ..Default::default()
        };
        tc.merge(&user).unwrap();
        let before = TransformerConfig::default();
        let mut acc = before.clone();
        let err = acc.merge(&tc).unwrap_err();
        assert_eq!(
            err.message,
            "failed to merge NamePrefix fieldSpec: conflicting fieldspecs"
        );
        assert_eq!(acc, before);
    }

    #[test]
    fn name_references_merge_per_kind() {
        let a = TransformerConfig::from_value(&serde_json::json!({"nameReference": [
            {"kind": "Secret", "version": "v1", "fieldSpecs": [{"path": "a", "kind": "Pod"}]},
        ]}))
        .unwrap();
        let b = TransformerConfig::from_value(&serde_json::json!({"nameReference": [
            {"kind": "Secret", "version": "v1", "fieldSpecs": [{"path": "a", "kind": "Pod"}, {"path": "b"}]},
            {"kind": "ConfigMap", "version": "v1", "fieldSpecs": [{"path": "c"}]},
        ]}))
        .unwrap();
        let mut tc = a;
        tc.merge(&b).unwrap();
        // ConfigMap sorts before Secret; Secret's referrers are merged.
        let kinds: Vec<&str> = tc.name_reference.iter().map(|n| n.kind.as_str()).collect();
        assert_eq!(kinds, ["ConfigMap", "Secret"]);
        let paths: Vec<&str> = tc.name_reference[1]
            .field_specs
            .iter()
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(paths, ["a", "b"]);
    }

    #[test]
    fn from_value_is_strict() {
        let err = TransformerConfig::from_value(&serde_json::json!({"bogus": []})).unwrap_err();
        assert_eq!(err.message, "json: unknown field \"bogus\"");
        let err = TransformerConfig::from_value(&serde_json::json!({
            "images": [{"path": "x", "foo": 1}]
        }))
        .unwrap_err();
        assert!(err.message.contains("unknown field \"foo\""));
        assert!(TransformerConfig::from_value(&serde_json::json!({"images": "x"})).is_err());
        assert!(TransformerConfig::from_value(&serde_json::json!({
            "images": [{"path": "x", "create": "yes"}]
        }))
        .is_err());
        let tc = TransformerConfig::from_value(&serde_json::json!({
            "labels": null,
            "replicas": [{"path": "spec/size", "kind": "Thing", "group": "x.io", "version": 1}],
        }))
        .unwrap();
        assert_eq!(tc.replicas[0].version, "1");
        assert_eq!(
            TransformerConfig::from_value(&Value::Null).unwrap(),
            TransformerConfig::default()
        );
    }

    #[test]
    fn gvk_order() {
        let g = |k: &str, grp: &str| Gvk {
            group: grp.into(),
            version: String::new(),
            kind: k.into(),
        };
        let mut v = [
            g("", ""),
            g("ValidatingWebhookConfiguration", ""),
            g("Zebra", ""),
            g("Apple", "b.io"),
            g("Apple", "a.io"),
            g("Deployment", ""),
            g("Namespace", ""),
        ];
        v.sort_by(crate::resid::compare_gvk);
        let kinds: Vec<String> = v
            .iter()
            .map(|x| format!("{}/{}", x.kind, x.group))
            .collect();
        assert_eq!(
            kinds,
            [
                "Namespace/",
                "Deployment/",
                "Apple/a.io",
                "Apple/b.io",
                "Zebra/",
                "/",
                "ValidatingWebhookConfiguration/"
            ]
        );
    }

    #[test]
    fn config_strings_like_go() {
        use serde_json::json;
        let cases = [
            (json!(null), ""),
            (json!("x"), "x"),
            (json!(true), "true"),
            (json!(1), "1"),
            (json!(-7), "-7"),
            (json!(1.5), "1.5"),
            (json!(3.0), "3"),
            (json!(1000000.0), "1000000"),
            (json!(0.00001), "1e-05"),
            (json!(0.0001), "0.0001"),
            (json!(12345678.9), "1.2345679e+07"),
            (json!(123456.7), "123456.7"),
            (json!(0.1), "0.1"),
            (json!(1e21), "1e+21"),
            (json!(1e20), "1e+20"),
            (json!(-2.5), "-2.5"),
            (json!(123456789012u64), "123456789012"),
        ];
        for (v, want) in cases {
            assert_eq!(config_string(&v).unwrap(), want, "{v}");
        }
        assert!(config_string(&json!([])).is_err());
        assert!(config_string(&json!({})).is_err());
    }

    #[test]
    fn label_specs_for_labels_entries() {
        let tc = TransformerConfig {
            labels: vec![fs("Thing", "spec/labels", true)],
            common_labels: vec![
                fs("Service", "spec/selector", true),
                fs("", "metadata/labels", true),
            ],
            template_labels: vec![fs("Deployment", "spec/template/metadata/labels", true)],
            ..Default::default()
        };
        let paths = |v: Vec<FieldSpec>| v.into_iter().map(|f| f.path).collect::<Vec<_>>();
        assert_eq!(
            paths(label_field_specs(true, false, &tc).unwrap()),
            ["spec/labels", "spec/selector", "metadata/labels"]
        );
        assert_eq!(
            paths(label_field_specs(false, true, &tc).unwrap()),
            [
                "spec/labels",
                "spec/template/metadata/labels",
                "metadata/labels"
            ]
        );
        assert_eq!(
            paths(label_field_specs(false, false, &tc).unwrap()),
            ["spec/labels", "metadata/labels"]
        );
        // Custom fields come first; a conflicting one is an error.
        let custom = [fs("", "metadata/labels", false)];
        let err = label_field_specs_with(&custom, false, false, &tc).unwrap_err();
        assert_eq!(
            err.message,
            "failed to merge labels: conflicting fieldspecs"
        );
    }

    /// The constants build.rs made hold what the YAML files say, read by
    /// the crate's own YAML reader and the strict `configurations:` parser.
    #[test]
    fn generated_tables_equal_the_yaml() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/data/fieldspecs");
        let read = |name: &str| {
            let yaml = std::fs::read_to_string(format!("{dir}/{name}.yaml")).unwrap();
            let parsed = crate::yaml::parse_stream(&yaml).unwrap();
            assert_eq!(parsed.len(), 1, "{name}");
            parsed.into_iter().next().unwrap()
        };
        for (name, key, rows) in [
            ("nameprefix", "namePrefix", NAME_PREFIX),
            ("namespace", "namespace", NAMESPACE),
            ("commonlabels", "commonLabels", COMMON_LABELS),
            ("templatelabels", "templateLabels", TEMPLATE_LABELS),
            ("commonannotations", "commonAnnotations", COMMON_ANNOTATIONS),
            ("images", "images", IMAGES),
            ("replicas", "replicas", REPLICAS),
            ("varreference", "varReference", VAR_REFERENCE),
        ] {
            let doc = read(name);
            let list = match &doc {
                Value::Object(map) => map.get(key).cloned().unwrap_or(Value::Null),
                other => other.clone(),
            };
            let strict = parse_list(&list, key, parse_field_spec).unwrap();
            assert!(!strict.is_empty(), "{name}");
            assert_eq!(specs(rows), strict, "{name}");
        }
        let strict = TransformerConfig::from_value(&read("namereference")).unwrap();
        let mut generated = TransformerConfig {
            name_reference: load_defaults().name_reference,
            ..Default::default()
        };
        generated.sort_fields();
        assert_eq!(generated.name_reference, strict.name_reference);
        assert!(!strict.name_reference.is_empty());
    }

    /// What the core's accumulator relies on to take a kustomization's
    /// config as it is when it has none yet.
    #[test]
    fn merging_the_defaults_into_nothing_gives_the_defaults() {
        let mut merged = TransformerConfig::default();
        merged.merge(&TransformerConfig::defaults()).unwrap();
        assert_eq!(merged, TransformerConfig::defaults());
    }

    /// Lists that come unsorted are sorted; sorted ones stay as they are.
    #[test]
    fn sorting_orders_unsorted_lists_only() {
        let mut tc = TransformerConfig {
            images: vec![
                fs("StatefulSet", "spec/a", false),
                fs("Deployment", "spec/b", false),
                fs("", "spec/c", false),
                fs("Deployment", "spec/a", false),
            ],
            ..Default::default()
        };
        tc.sort_fields();
        let kinds_paths: Vec<_> = tc.images.iter().map(|f| (&*f.kind, &*f.path)).collect();
        assert_eq!(
            kinds_paths,
            [
                ("Deployment", "spec/b"),
                ("Deployment", "spec/a"),
                ("StatefulSet", "spec/a"),
                ("", "spec/c")
            ]
        );
        let before = tc.clone();
        tc.sort_fields();
        assert_eq!(tc, before);
    }

    #[test]
    fn merging_nothing_or_an_equal_config_changes_nothing() {
        let mut merged = TransformerConfig::default();
        merged.merge(&TransformerConfig::defaults()).unwrap();
        let before = merged.clone();
        merged.merge(&before.clone()).unwrap();
        assert_eq!(merged, before);
        merged.merge(&TransformerConfig::default()).unwrap();
        assert_eq!(merged, before);
        // An equal config that is not the defaults takes the same path.
        let extra = TransformerConfig {
            images: vec![FieldSpec {
                path: "spec/image".into(),
                kind: "Custom".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        merged.merge(&extra).unwrap();
        let with_extra = merged.clone();
        assert!(with_extra.images.iter().any(|f| f.kind == "Custom"));
        merged.merge(&with_extra).unwrap();
        assert_eq!(merged, with_extra);
    }

    #[test]
    fn defaults_match_kustomize_tables() {
        let tc = TransformerConfig::defaults();
        assert_eq!(tc.name_prefix, vec![fs("", "metadata/name", false)]);
        assert_eq!(tc.name_suffix, tc.name_prefix);
        assert_eq!(tc.namespace.len(), 3);
        // Sorted by kind order: Namespace first.
        assert_eq!(tc.namespace[0].kind, "Namespace");
        assert_eq!(tc.common_labels.len(), 32);
        assert_eq!(tc.template_labels.len(), 10);
        assert!(tc.labels.is_empty());
        assert_eq!(tc.common_annotations.len(), 9);
        assert_eq!(tc.images.len(), 4);
        assert!(tc.images.iter().all(|f| f.create && f.kind.is_empty()));
        assert_eq!(tc.replicas.len(), 4);
        assert_eq!(tc.var_reference.len(), 72);
        assert!(!tc.name_reference.is_empty());
        // The kind-less metadata spec sorts after all kind-specific ones.
        assert_eq!(
            tc.common_labels.last(),
            Some(&fs("", "metadata/labels", true))
        );
        // The defaults survive a round trip through the config schema.
        assert_eq!(TransformerConfig::from_value(&tc.to_value()).unwrap(), tc);
    }
}
