//! Reading and writing the kustomization file the way `kustomize edit` does.
//!
//! kustomize decodes the file into its typed `Kustomization` struct (unknown
//! fields are errors, absent non-`omitempty` fields get zero values, deprecated
//! spellings are moved to their replacements), then writes it back field by
//! field: first the top-level fields in the order the file had them, each
//! preceded by the comment lines that stood above it, then the other fields
//! in kustomize's canonical order. Each field is printed through
//! `sigs.k8s.io/yaml` (go-yaml v2 over JSON), which [`kustom_api::yaml::to_yaml`]
//! reproduces.

use kustom_api::Error;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The kustomization as the JSON object kustomize's struct marshals to.
pub type Kustomization = Map<String, Value>;

/// File names kustomize recognises, in its order.
pub const FILE_NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Top-level fields in kustomize's write order: (Go field name, JSON name).
/// The Go name is what a line of the file is matched against
/// (case-insensitively, followed by `:`).
const FIELD_ORDER: [(&str, &str); 33] = [
    ("APIVersion", "apiVersion"),
    ("Kind", "kind"),
    ("MetaData", "metadata"),
    ("SortOptions", "sortOptions"),
    ("Resources", "resources"),
    ("Bases", "bases"),
    ("NamePrefix", "namePrefix"),
    ("NameSuffix", "nameSuffix"),
    ("Namespace", "namespace"),
    ("Crds", "crds"),
    ("CommonLabels", "commonLabels"),
    ("Labels", "labels"),
    ("CommonAnnotations", "commonAnnotations"),
    ("PatchesStrategicMerge", "patchesStrategicMerge"),
    ("PatchesJson6902", "patchesJson6902"),
    ("Patches", "patches"),
    ("ConfigMapGenerator", "configMapGenerator"),
    ("SecretGenerator", "secretGenerator"),
    ("HelmCharts", "helmCharts"),
    ("HelmChartInflationGenerator", "helmChartInflationGenerator"),
    ("HelmGlobals", "helmGlobals"),
    ("GeneratorOptions", "generatorOptions"),
    ("Vars", "vars"),
    ("Images", "images"),
    ("Replacements", "replacements"),
    ("Replicas", "replicas"),
    ("Configurations", "configurations"),
    ("Generators", "generators"),
    ("Transformers", "transformers"),
    ("Validators", "validators"),
    ("Components", "components"),
    ("OpenAPI", "openapi"),
    ("BuildMetadata", "buildMetadata"),
];

/// The kustomization file of a directory, with the comments and field order
/// it was read with.
#[derive(Debug)]
pub struct KustFile {
    /// The file's path (directory joined with the recognised name).
    pub path: PathBuf,
    /// The recognised name (`kustomization.yaml`, …) as found.
    pub name: &'static str,
    /// (JSON field name, comment lines above it) in the file's order.
    original_fields: Vec<(&'static str, String)>,
}

impl KustFile {
    /// Find the one kustomization file of `dir`, with kustomize's errors when
    /// there is none or more than one.
    pub fn find(dir: &Path) -> Result<KustFile, Error> {
        let found: Vec<&'static str> = FILE_NAMES
            .iter()
            .copied()
            .filter(|n| exists_exactly(dir, n))
            .collect();
        let name = match found.as_slice() {
            [] => {
                return Err(Error::new(format!(
                    "Missing kustomization file '{}'.\n",
                    FILE_NAMES[0]
                )))
            }
            [one] => *one,
            many => {
                return Err(Error::new(format!(
                    "Found multiple kustomization file: [{}]\n",
                    many.join(" ")
                )))
            }
        };
        let path = dir.join(name);
        if path.is_dir() {
            return Err(Error::new(format!("{name} should be a file")));
        }
        Ok(KustFile {
            path,
            name,
            original_fields: Vec::new(),
        })
    }

    /// Read and decode the file as kustomize's `Read` does (typed decoding,
    /// then `FixKustomization`), remembering its field order and comments.
    pub fn read(&mut self) -> Result<Kustomization, Error> {
        let text = std::fs::read_to_string(&self.path)
            .map_err(|e| Error::new(format!("reading {}: {e}", self.path.display())))?;
        let mut k = decode(&text)?;
        fix_kustomization(&mut k);
        self.original_fields = commented_fields(&text);
        Ok(k)
    }

    /// Write the kustomization back, comments and field order kept.
    pub fn write(&self, k: &Kustomization) -> Result<(), Error> {
        let text = self.marshal(k);
        std::fs::write(&self.path, text)
            .map_err(|e| Error::new(format!("writing {}: {e}", self.path.display())))
    }

    /// The bytes kustomize would write for `k`.
    pub fn marshal(&self, k: &Kustomization) -> String {
        let mut out = String::new();
        for (field, comment) in &self.original_fields {
            out.push_str(comment);
            out.push_str(&marshal_field(field, k));
        }
        for (_, field) in FIELD_ORDER {
            if self.original_fields.iter().any(|(f, _)| *f == field) {
                continue;
            }
            out.push_str(&marshal_field(field, k));
        }
        out
    }
}

/// Whether `dir/name` exists with exactly that spelling (a case-insensitive
/// file system would otherwise find `Kustomization` for `kustomization.yaml`).
fn exists_exactly(dir: &Path, name: &str) -> bool {
    let path = dir.join(name);
    if std::fs::symlink_metadata(&path).is_err() && !path.exists() {
        return false;
    }
    match std::fs::read_dir(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .any(|e| e.file_name() == name),
        Err(_) => true,
    }
}

/// One field of `k` as its own YAML document, or nothing when it is empty
/// (kustomize's `marshalField`).
fn marshal_field(field: &str, k: &Kustomization) -> String {
    let Some(v) = k.get(field) else {
        return String::new();
    };
    let empty = match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        // A pointer to a struct that is present prints even when empty; maps
        // (commonLabels, openapi, …) are empty when they have no entries.
        Value::Object(o) => o.is_empty() && !POINTER_FIELDS.contains(&field),
        _ => false,
    };
    if empty {
        return String::new();
    }
    let mut doc = Map::new();
    doc.insert(field.to_string(), v.clone());
    kustom_api::yaml::to_yaml(&Value::Object(doc))
}

/// Top-level fields that are pointers to structs in kustomize's type.
const POINTER_FIELDS: [&str; 4] = ["metadata", "sortOptions", "helmGlobals", "generatorOptions"];

/// The top-level fields of the file in order, each with the comment and
/// blank lines that preceded it (kustomize's `parseCommentedFields`: a
/// comment between the items of a field moves above that field; comments
/// after the last field are dropped; the last line counts only when it ends
/// in a newline).
fn commented_fields(text: &str) -> Vec<(&'static str, String)> {
    let mut fields: Vec<(&'static str, String)> = Vec::new();
    let mut comments = String::new();
    for line in text.split_inclusive('\n') {
        if !line.ends_with('\n') {
            break;
        }
        let trimmed = line.trim_start_matches(' ');
        let trimmed = trimmed.trim_end_matches('\n');
        if trimmed.is_empty() || trimmed.starts_with('#') {
            comments.push_str(line);
            continue;
        }
        if let Some(field) = matched_field(line) {
            fields.push((field, std::mem::take(&mut comments)));
        } else if !comments.is_empty() {
            if let Some(last) = fields.last_mut() {
                last.1.push_str(&std::mem::take(&mut comments));
            }
        }
    }
    fields
}

/// The JSON name of the top-level field a line starts, if any.
fn matched_field(line: &str) -> Option<&'static str> {
    FIELD_ORDER.iter().find_map(|(go, json)| {
        let n = go.len();
        (line.len() > n
            && line.is_char_boundary(n)
            && line[..n].eq_ignore_ascii_case(go)
            && line.as_bytes()[n] == b':')
            .then_some(*json)
    })
}

/// Parse and type-check the file as kustomize's `Kustomization.Unmarshal`.
pub fn decode(text: &str) -> Result<Kustomization, Error> {
    let docs = kustom_api::yaml::parse_kustomization(text)
        .map_err(|e| Error::new(format!("invalid Kustomization: {e}")))?;
    let doc = docs.into_iter().next().unwrap_or(Value::Null);
    match doc {
        Value::Null => Ok(Map::new()),
        Value::Object(_) => match crate::operations::kustomization::types::normalize(&doc, &crate::operations::kustomization::types::KUSTOMIZATION)? {
            Some(Value::Object(m)) => Ok(m),
            _ => Ok(Map::new()),
        },
        other => Err(Error::new(format!(
            "invalid Kustomization: json: cannot unmarshal {} into Go value of type types.Kustomization",
            crate::operations::kustomization::types::json_kind(&other)
        ))),
    }
}

/// kustomize's `FixKustomization`: default apiVersion and kind, `bases` into
/// `resources`, `imageTags` into `images`, `env` into `envs`.
pub fn fix_kustomization(k: &mut Kustomization) {
    let kind = match k.get("kind").and_then(Value::as_str) {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => {
            k.insert("kind".into(), Value::String("Kustomization".into()));
            "Kustomization".to_string()
        }
    };
    if k.get("apiVersion")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        let v = if kind == "Component" {
            "kustomize.config.k8s.io/v1alpha1"
        } else {
            "kustomize.config.k8s.io/v1beta1"
        };
        k.insert("apiVersion".into(), Value::String(v.into()));
    }
    move_list(k, "bases", "resources");
    move_list(k, "imageTags", "images");
    for gen in ["configMapGenerator", "secretGenerator"] {
        if let Some(Value::Array(items)) = k.get_mut(gen) {
            for item in items.iter_mut().filter_map(Value::as_object_mut) {
                if let Some(Value::String(env)) = item.remove("env") {
                    if env.is_empty() {
                        continue;
                    }
                    let envs = item
                        .entry("envs")
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if !envs.is_array() {
                        *envs = Value::Array(Vec::new());
                    }
                    if let Value::Array(a) = envs {
                        a.push(Value::String(env));
                    }
                }
            }
        }
    }
    split_helm_parameters(k);
}

/// Append the list `from` to the list `to` and drop `from`.
pub fn move_list(k: &mut Kustomization, from: &str, to: &str) {
    let Some(Value::Array(moved)) = k.remove(from) else {
        return;
    };
    if moved.is_empty() {
        return;
    }
    let target = k
        .entry(to.to_string())
        .or_insert_with(|| Value::Array(Vec::new()));
    if !target.is_array() {
        *target = Value::Array(Vec::new());
    }
    if let Value::Array(a) = target {
        a.extend(moved);
    }
}

/// `helmChartInflationGenerator` entries become `helmCharts` and, when none
/// is set yet, `helmGlobals` (kustomize's `SplitHelmParameters`).
fn split_helm_parameters(k: &mut Kustomization) {
    let Some(Value::Array(old)) = k.remove("helmChartInflationGenerator") else {
        return;
    };
    let mut globals = Map::new();
    let mut charts = Vec::new();
    for entry in old.iter().filter_map(Value::as_object) {
        let s = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or("");
        // The last non-empty value wins.
        if !s("helmHome").is_empty() {
            globals.insert("configHome".into(), Value::String(s("helmHome").into()));
        }
        if !s("chartHome").is_empty() {
            globals.insert("chartHome".into(), Value::String(s("chartHome").into()));
        }
        let mut chart = Map::new();
        for (to, from) in [
            ("name", "chartName"),
            ("version", "chartVersion"),
            ("repo", "chartRepoUrl"),
            ("valuesFile", "values"),
            ("valuesMerge", "valuesMerge"),
            ("releaseName", "releaseName"),
        ] {
            if !s(from).is_empty() {
                chart.insert(to.into(), Value::String(s(from).into()));
            }
        }
        if let Some(Value::Object(local)) = entry.get("valuesLocal") {
            if !local.is_empty() {
                chart.insert("valuesInline".into(), Value::Object(local.clone()));
            }
        }
        charts.push(Value::Object(chart));
    }
    if !k.contains_key("helmGlobals") && !globals.is_empty() {
        k.insert("helmGlobals".into(), Value::Object(globals));
    }
    if !charts.is_empty() {
        let target = k
            .entry("helmCharts".to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(a) = target {
            a.extend(charts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_lines_match_case_insensitively() {
        assert_eq!(matched_field("apiVersion: v1\n"), Some("apiVersion"));
        assert_eq!(matched_field("NAMEPREFIX: x\n"), Some("namePrefix"));
        assert_eq!(matched_field("  namePrefix: x\n"), None);
        assert_eq!(matched_field("openapi:\n"), Some("openapi"));
        assert_eq!(matched_field("resourcesx: a\n"), None);
    }

    #[test]
    fn comments_between_items_move_above_their_field() {
        let fields = commented_fields("# top\nresources:\n# mid\n- a\nnamePrefix: p-\n# end\n");
        assert_eq!(
            fields,
            vec![
                ("resources", "# top\n# mid\n".to_string()),
                ("namePrefix", String::new())
            ]
        );
    }
}
