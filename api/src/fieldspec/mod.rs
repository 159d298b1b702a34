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

mod config;
mod defaults;
mod read;
#[cfg(test)]
mod tests;

pub use config::*;
pub use read::*;
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
