//! `buildMetadata` bookkeeping: where each resource came from
//! (`config.kubernetes.io/origin`) and which transformers touched it
//! (`alpha.config.kubernetes.io/transformations`), in kustomize's format.

use kustom_api::protocol::{ORIGIN, TRANSFORMATIONS};
use kustom_api::{resource, Value};

/// kustomize's `resource.Origin`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// Path of the resource file, from the top kustomization's directory.
    pub path: String,
    /// The kustomization (or plugin config file) that configured a generator or transformer.
    pub configured_in: String,
    /// apiVersion, kind, name, namespace of the generator or transformer config.
    pub configured_by: Option<[String; 4]>,
}

impl Origin {
    /// The origin of a builtin generator or transformer configured in `kust_file`.
    pub fn builtin(kust_file: &str, kind: &str) -> Origin {
        Origin {
            configured_in: kust_file.to_string(),
            configured_by: Some(["builtin".into(), kind.into(), String::new(), String::new()]),
            ..Default::default()
        }
    }

    /// kustomize's OriginFromCustomPlugin: a plugin config that carries an
    /// origin annotation gives the origin of what it generates/transforms.
    pub fn of_plugin_config(config: &Value) -> Option<Origin> {
        let text = resource::annotation(config, ORIGIN)?;
        let path = text
            .lines()
            .find_map(|l| l.strip_prefix("path: "))
            .unwrap_or("")
            .to_string();
        Some(Origin {
            configured_in: path,
            configured_by: Some([
                resource::api_version(config).to_string(),
                resource::kind(config).to_string(),
                resource::name(config).to_string(),
                resource::namespace(config).to_string(),
            ]),
            ..Default::default()
        })
    }

    /// The YAML lines of this origin, each prefixed by `indent`
    /// (the first by `first`), as kyaml marshals the struct.
    fn lines(&self, first: &str, indent: &str) -> String {
        let mut out = String::new();
        let mut push = |line: String| {
            out.push_str(if out.is_empty() { first } else { indent });
            out.push_str(&line);
            out.push('\n');
        };
        if !self.path.is_empty() {
            push(format!("path: {}", self.path));
        }
        if !self.configured_in.is_empty() {
            push(format!("configuredIn: {}", self.configured_in));
        }
        if let Some([api_version, kind, name, namespace]) = &self.configured_by {
            push("configuredBy:".into());
            for (k, v) in [
                ("apiVersion", api_version),
                ("kind", kind),
                ("name", name),
                ("namespace", namespace),
            ] {
                if !v.is_empty() {
                    push(format!("  {k}: {v}"));
                }
            }
        }
        out
    }

    /// The annotation value of this origin.
    pub fn annotation(&self) -> String {
        self.lines("", "")
    }

    /// Set as the origin of `r` (overwriting).
    pub fn set_on(&self, r: &mut Value) {
        resource::set_annotation(r, ORIGIN, &self.annotation());
    }

    /// kustomize's AddOriginAnnotation for one resource: only when it has none.
    pub fn set_if_missing(&self, r: &mut Value) {
        if resource::annotation(r, ORIGIN).is_none() {
            self.set_on(r);
        }
    }

    /// kustomize's AddTransformerAnnotation for one resource: a resource
    /// without an origin was made by the transformer; otherwise record the
    /// transformer in the transformations list.
    pub fn record_transformation(&self, r: &mut Value) {
        if resource::annotation(r, ORIGIN).is_none() {
            self.set_on(r);
            return;
        }
        let mut list = resource::annotation(r, TRANSFORMATIONS)
            .unwrap_or("")
            .to_string();
        list.push_str(&self.lines("- ", "  "));
        resource::set_annotation(r, TRANSFORMATIONS, &list);
    }
}

pub use kustom_api::paths::join;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn joins_like_go() {
        assert_eq!(join("", "kustomization.yaml"), "kustomization.yaml");
        assert_eq!(
            join("../base", "kustomization.yaml"),
            "../base/kustomization.yaml"
        );
        assert_eq!(join("../base", "../common/x.yaml"), "../common/x.yaml");
        assert_eq!(join("a/b", "../../.."), "..");
    }

    #[test]
    fn formats_and_accumulates() {
        let mut r = json!({"kind": "ConfigMap", "metadata": {"name": "x"}});
        let gen = Origin::builtin("kustomization.yaml", "ConfigMapGenerator");
        gen.set_if_missing(&mut r);
        assert_eq!(
            resource::annotation(&r, ORIGIN),
            Some("configuredIn: kustomization.yaml\nconfiguredBy:\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n")
        );
        let t = Origin::builtin("../base/kustomization.yaml", "PrefixTransformer");
        t.record_transformation(&mut r);
        t.record_transformation(&mut r);
        assert_eq!(
            resource::annotation(&r, TRANSFORMATIONS).map(|s| s.matches("- configuredIn").count()),
            Some(2)
        );
    }
}
