//! The kustomization file: its schema (kustomize's `types.Kustomization`,
//! unknown fields rejected), finding it in a directory, and the fix-ups
//! kustomize applies to deprecated fields.

use kustom_api::{yaml, Error, Value};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod nulls;
pub mod types;

/// The file names kustomize accepts, in the order it looks for them.
pub const FILE_NAMES: &[&str] = &["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// `apiVersion` of a Kustomization.
pub const KUSTOMIZATION_VERSION: &str = "kustomize.config.k8s.io/v1beta1";
/// `apiVersion` of a Component.
pub const COMPONENT_VERSION: &str = "kustomize.config.k8s.io/v1alpha1";

/// A parsed kustomization (or component) file.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Kustomization {
    /// `kustomize.config.k8s.io/v1beta1` (or v1alpha1 for a Component).
    #[serde(default)]
    pub api_version: String,
    /// `Kustomization` or `Component`.
    #[serde(default)]
    pub kind: String,
    /// Ignored by the build.
    #[serde(default)]
    pub metadata: Option<Value>,
    /// Custom OpenAPI schema (`path:` or `version:`).
    #[serde(default)]
    pub openapi: BTreeMap<String, String>,
    /// Prefix for all names.
    #[serde(default)]
    pub name_prefix: String,
    /// Suffix for all names.
    #[serde(default)]
    pub name_suffix: String,
    /// Namespace for all namespaced objects.
    #[serde(default)]
    pub namespace: String,
    /// Deprecated: labels on metadata and selectors.
    #[serde(default)]
    pub common_labels: BTreeMap<String, String>,
    /// Labels with control over selectors and templates.
    #[serde(default)]
    pub labels: Vec<Label>,
    /// Annotations for all objects.
    #[serde(default)]
    pub common_annotations: BTreeMap<String, String>,
    /// Deprecated: strategic-merge patches, file paths or inline YAML.
    #[serde(default)]
    pub patches_strategic_merge: Vec<String>,
    /// Deprecated: JSON 6902 patches with targets.
    #[serde(default)]
    pub patches_json6902: Vec<Patch>,
    /// Patches with optional targets.
    #[serde(default)]
    pub patches: Vec<Patch>,
    /// Image rewrites.
    #[serde(default)]
    pub images: Vec<Image>,
    /// Deprecated spelling of `images`.
    #[serde(default)]
    pub image_tags: Vec<Image>,
    /// Replacements, inline or `path:`.
    #[serde(default)]
    pub replacements: Vec<Value>,
    /// Replica counts.
    #[serde(default)]
    pub replicas: Vec<Replica>,
    /// Deprecated: `$(VAR)` substitutions.
    #[serde(default)]
    pub vars: Vec<Value>,
    /// Output order.
    #[serde(default)]
    pub sort_options: Option<Value>,
    /// Files, directories and URLs to build from.
    #[serde(default)]
    pub resources: Vec<String>,
    /// Component directories applied on top of the accumulated resources.
    #[serde(default)]
    pub components: Vec<String>,
    /// CRD files whose schemas mark references.
    #[serde(default)]
    pub crds: Vec<String>,
    /// Deprecated spelling of `resources`.
    #[serde(default)]
    pub bases: Vec<String>,
    /// ConfigMap generators.
    #[serde(default)]
    pub config_map_generator: Vec<GeneratorArgs>,
    /// Secret generators.
    #[serde(default)]
    pub secret_generator: Vec<GeneratorArgs>,
    /// Helm settings shared by `helmCharts`.
    #[serde(default)]
    pub helm_globals: Option<Value>,
    /// Helm charts to inflate.
    #[serde(default)]
    pub helm_charts: Vec<Value>,
    /// Deprecated helm chart spelling.
    #[serde(default)]
    pub helm_chart_inflation_generator: Vec<Value>,
    /// Options for every generator of this kustomization.
    #[serde(default)]
    pub generator_options: Option<GeneratorOptions>,
    /// Field-spec configuration files.
    #[serde(default)]
    pub configurations: Vec<String>,
    /// Generator plugin configs: files, directories or inline objects.
    #[serde(default)]
    pub generators: Vec<String>,
    /// Transformer plugin configs.
    #[serde(default)]
    pub transformers: Vec<String>,
    /// Validator plugin configs.
    #[serde(default)]
    pub validators: Vec<String>,
    /// `originAnnotations`, `transformerAnnotations`, `managedByLabel`.
    #[serde(default)]
    pub build_metadata: Vec<String>,
}

/// One `labels:` entry.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Label {
    /// The labels.
    #[serde(default)]
    pub pairs: BTreeMap<String, String>,
    /// Also set selectors (and templates).
    #[serde(default)]
    pub include_selectors: bool,
    /// Also set pod templates.
    #[serde(default)]
    pub include_templates: bool,
    /// Extra field specs.
    #[serde(default, rename = "fields")]
    pub field_specs: Vec<Value>,
}

/// One `patches:` / `patchesJson6902:` entry.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Patch {
    /// File with the patch.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// Inline patch.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub patch: String,
    /// Which resources to patch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Selector>,
    /// allowNameChange / allowKindChange.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, bool>,
}

/// A resource selector (kustomize's `types.Selector`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Selector {
    /// API group.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// API version.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Kind.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Name (regex).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Namespace (regex).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Label selector.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label_selector: String,
    /// Annotation selector.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub annotation_selector: String,
}

/// One `images:` entry.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Image {
    /// Image name to match.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Replacement name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub new_name: String,
    /// Replacement tag.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub new_tag: String,
    /// Replacement digest.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub digest: String,
    /// Suffix appended to the tag.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tag_suffix: String,
}

/// One `replicas:` entry.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Replica {
    /// Name of the workload.
    #[serde(default)]
    pub name: String,
    /// Replica count.
    #[serde(default)]
    pub count: i64,
}

/// `generatorOptions:` and the per-generator `options:`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GeneratorOptions {
    /// Labels for generated objects.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Annotations for generated objects.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// No content-hash name suffix.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_name_suffix_hash: bool,
    /// Mark generated objects immutable.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub immutable: bool,
}

/// One `configMapGenerator:` / `secretGenerator:` entry.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GeneratorArgs {
    /// Name of the generated object.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Namespace of the generated object.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// create, merge or replace.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub behavior: String,
    /// `KEY=VALUE` entries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub literals: Vec<String>,
    /// Files (`[key=]path`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Env files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub envs: Vec<String>,
    /// Deprecated single env file.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub env: String,
    /// Per-generator options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<GeneratorOptions>,
    /// Secret type (secretGenerator only).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub r#type: String,
}

/// The kustomization file in `dir`, if there is exactly one.
pub fn find_file(dir: &Path) -> Result<PathBuf, Error> {
    let found: Vec<PathBuf> = FILE_NAMES
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.is_file())
        .collect();
    match found.len() {
        0 => Err(Error::new(format!(
            "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{}'",
            dir.display()
        ))),
        1 => Ok(found.into_iter().next().expect("one element")),
        _ => Err(Error::new(format!(
            "found multiple kustomization files under: {}",
            dir.display()
        ))),
    }
}

/// Fields this type holds as plain values (the build reads them later, or
/// never), which kustomize's decoder still types: checked against its
/// types, for its errors (`json: unknown field "bogus"`, `cannot unmarshal
/// string into Go struct field HelmChart.helmCharts.includeCRDs of type
/// bool`).
const UNTYPED_FIELDS: &[&str] = &[
    "metadata",
    "labels",
    "vars",
    "sortOptions",
    "helmGlobals",
    "helmCharts",
    "helmChartInflationGenerator",
];

/// Decode [`UNTYPED_FIELDS`] as kustomize's types, one at a time, so each
/// error names its own field.
fn check_untyped_fields(value: &Value, file: &Path) -> Result<(), Error> {
    for name in UNTYPED_FIELDS {
        let Some(field) = value.get(name) else {
            continue;
        };
        if let Err(e) = types::check_field(name, field) {
            let message = e.to_string();
            let detail = message
                .strip_prefix("invalid Kustomization: ")
                .unwrap_or(&message);
            return Err(Error::new(format!(
                "invalid Kustomization {}: {detail} (in {name}); fix the field (see the kustomization reference)",
                file.display()
            )));
        }
    }
    Ok(())
}

impl Kustomization {
    /// What the release `version` rejects in a kustomization that parsed.
    pub fn check_for(
        &self,
        version: kustom_api::KustomizeVersion,
        file: &Path,
    ) -> Result<(), Error> {
        // kustomize v5.8.0 (types.PatchArgs): a patch's `options` is a struct, so a key
        // other than allowNameChange/allowKindChange is an unknown field.
        // kustomize #5516 (v5.7.0): a replacement's `sourceValue`, unknown before.
        if !version.is_5_8() {
            if let Some(i) = self
                .replacements
                .iter()
                .position(|r| r.get("sourceValue").is_some())
            {
                return Err(Error::new(format!(
                    "invalid Kustomization {}: unknown field `sourceValue` in replacements[{i}], expected one of `source`, `targets`, `path`; kustomize v5.5 has no sourceValue: build with the default --kustomize-version 5.8",
                    file.display()
                )));
            }
        }
        // kustomize v5.8.0 (#5865): `helmCharts[].devel`, unknown before.
        if !version.is_5_8() && self.helm_charts.iter().any(|c| c.get("devel").is_some()) {
            return Err(Error::new(format!(
                "invalid Kustomization {}: json: unknown field \"devel\" in helmCharts (kustomize v5.5 has no devel: build with the default --kustomize-version 5.8)",
                file.display()
            )));
        }
        if version.is_5_8() {
            let unknown = self
                .patches
                .iter()
                .chain(&self.patches_json6902)
                .flat_map(|p| p.options.keys())
                .find(|k| {
                    !["allowNameChange", "allowKindChange"]
                        .iter()
                        .any(|known| known.eq_ignore_ascii_case(k))
                });
            if let Some(key) = unknown {
                return Err(Error::new(format!(
                    "invalid Kustomization {}: json: unknown field \"{key}\" in patches[].options (kustomize v5.8 knows allowNameChange and allowKindChange; build with --kustomize-version 5.5 to ignore it)",
                    file.display()
                )));
            }
        }
        Ok(())
    }

    /// Parse a kustomization file's text; `file` names it in errors.
    pub fn parse(text: &str, file: &Path) -> Result<Kustomization, Error> {
        let docs = yaml::parse_kustomization(text)
            .map_err(|e| e.context(format!("invalid Kustomization {}", file.display())))?;
        let value = match docs.len() {
            0 => Value::Object(Default::default()),
            1 => docs.into_iter().next().expect("one document"),
            _ => {
                return Err(Error::new(format!(
                    "invalid Kustomization {}: more than one YAML document",
                    file.display()
                )))
            }
        };
        if !value.is_object() {
            return Err(Error::new(format!(
                "invalid Kustomization {}: expected a mapping",
                file.display()
            )));
        }
        let mut value = value;
        // kustomize decodes kustomizations with Go's encoding/json, which
        // matches field names ignoring case at every depth; fold them to
        // their spelling before the strict decoding.
        let mut unknown = Vec::new();
        types::fold_field_names(&mut value, &types::KUSTOMIZATION, "", &mut unknown);
        if let Some(first) = unknown.first() {
            return Err(Error::new(format!(
                "invalid Kustomization {}: {first}{}; fix or remove the field (see the kustomization reference)",
                file.display(),
                did_you_mean(first)
            )));
        }
        nulls::zero_nulls(&mut value);
        check_untyped_fields(&value, file)?;
        let empty = nulls::is_empty(&value);
        for warning in deprecation_warnings(&value) {
            eprintln!("{warning}");
        }
        let mut k: Kustomization = serde_json::from_value(value).map_err(|e| {
            Error::new(format!(
                "invalid Kustomization {}: {e}{}; fix or remove the field (see the kustomization reference)",
                file.display(),
                did_you_mean(&e.to_string())
            ))
        })?;
        k.fix();
        if empty {
            return Err(Error::new(format!(
                "kustomization.yaml is empty: {} sets no field besides apiVersion and kind; \
                 add resources (or other fields) or remove it",
                file.display()
            )));
        }
        let problems = k.enforce_fields();
        if !problems.is_empty() {
            return Err(Error::new(format!(
                "Failed to read kustomization file under {}:\n{}",
                file.parent().unwrap_or(Path::new(".")).display(),
                problems.join("\n")
            )));
        }
        Ok(k)
    }

    /// Whether this is a `kind: Component`.
    pub fn is_component(&self) -> bool {
        self.kind == "Component"
    }

    /// Move deprecated fields to their replacements, as kustomize does on load.
    fn fix(&mut self) {
        if self.kind.is_empty() {
            self.kind = "Kustomization".into();
        }
        if self.api_version.is_empty() {
            self.api_version = if self.is_component() {
                COMPONENT_VERSION
            } else {
                KUSTOMIZATION_VERSION
            }
            .into();
        }
        self.resources.append(&mut self.bases);
        self.images.append(&mut self.image_tags);
        for g in self
            .config_map_generator
            .iter_mut()
            .chain(self.secret_generator.iter_mut())
        {
            if !g.env.is_empty() {
                let env = std::mem::take(&mut g.env);
                g.envs.push(env);
            }
        }
    }

    /// kustomize's EnforceFields: kind and apiVersion must agree.
    fn enforce_fields(&self) -> Vec<String> {
        let mut errs = Vec::new();
        if self.kind != "Kustomization" && self.kind != "Component" {
            errs.push("kind should be Kustomization or Component".to_string());
        }
        let required = if self.is_component() {
            COMPONENT_VERSION
        } else {
            KUSTOMIZATION_VERSION
        };
        if self.api_version != required {
            errs.push(format!("apiVersion for {} should be {required}", self.kind));
        }
        errs
    }
}

/// The warnings kustomize prints on STDERR, in its words and order, for
/// each deprecated field a kustomization sets (even to an empty list).
pub fn deprecation_warnings(value: &Value) -> Vec<String> {
    const RUN_FIX: &str = "Run 'kustomize edit fix' to update your Kustomization automatically.";
    const FIELDS: [(&str, &str, &str); 6] = [
        ("bases", "resources", ""),
        ("commonLabels", "labels", ""),
        ("imageTags", "images", ""),
        ("patchesJson6902", "patches", ""),
        ("patchesStrategicMerge", "patches", ""),
        ("vars", "replacements", "[EXPERIMENTAL] "),
    ];
    FIELDS
        .iter()
        .filter(|(field, _, _)| value.get(*field).is_some_and(|v| !v.is_null()))
        .map(|(field, instead, experimental)| {
            format!("# Warning: '{field}' is deprecated. Please use '{instead}' instead. {experimental}{RUN_FIX}")
        })
        .collect()
}

/// For serde's "unknown field `x`, expected one of `a`, `b`" (kustomize
/// rejects unknown fields at every level too): the closest expected name,
/// as "; did you mean `a`?", when one is near enough to be a typo.
fn did_you_mean(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return String::new();
    };
    let Some((field, rest)) = rest.split_once('`') else {
        return String::new();
    };
    let expected: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    let best = expected
        .iter()
        .map(|e| (edit_distance(&field.to_lowercase(), &e.to_lowercase()), *e))
        .min();
    match best {
        Some((d, name)) if d <= 2.max(field.len() / 4) => format!("; did you mean `{name}`?"),
        _ => String::new(),
    }
}

/// Levenshtein distance between two short names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod suggestion_tests {
    use super::*;

    #[test]
    fn unknown_field_suggestion() {
        let m = "unknown field `newTagg`, expected one of `name`, `newName`, `newTag`, `digest`";
        assert_eq!(did_you_mean(m), "; did you mean `newTag`?");
        let far = "unknown field `zzzzzz`, expected one of `name`, `newName`";
        assert_eq!(did_you_mean(far), "");
    }

    #[test]
    fn deprecated_fields_warn_in_kustomize_words() {
        let w = deprecation_warnings(&serde_json::json!({"bases": [], "vars": [{"name": "X"}]}));
        assert_eq!(w.len(), 2);
        assert_eq!(w[0], "# Warning: 'bases' is deprecated. Please use 'resources' instead. Run 'kustomize edit fix' to update your Kustomization automatically.");
        assert!(w[1].contains(
            "'vars' is deprecated. Please use 'replacements' instead. [EXPERIMENTAL] Run"
        ));
    }
}
