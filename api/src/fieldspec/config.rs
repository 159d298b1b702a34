//! The transformer configuration: kustomize's `TransformerConfig`, the
//! default tables merged with the user's `configurations:` files.

use super::defaults::*;
use super::read::*;
use super::*;
use crate::resid::compare_gvk_parts;
use crate::{resource, Error, Gvk};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::OnceLock;

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
    pub(super) fn sort_fields(&mut self) {
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
