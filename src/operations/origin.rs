//! `buildMetadata` bookkeeping: where each resource came from
//! (`config.kubernetes.io/origin`) and which transformers touched it
//! (`alpha.config.kubernetes.io/transformations`), in kustomize's format.

use kustom_api::protocol::{ORIGIN, TRANSFORMATIONS};
use kustom_api::{resource, Value};

/// Where the build is, for origins: kustomize's `Origin` as it travels
/// down the tree (path from the top, and the repository once remote).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trail {
    /// Path from the top kustomization's directory (or the repository's root).
    pub path: String,
    /// The clone URL once inside a remote base.
    pub repo: String,
    /// Its ref.
    pub git_ref: String,
}

impl Trail {
    /// kustomize's `Origin.Append`: a repository URL restarts the path at
    /// the repository (with its `notCloned` quirk), anything else joins.
    pub fn append(&self, entry: &str) -> Trail {
        let mut t = self.clone();
        match crate::fetch::remote::spec::RepoSpec::parse(entry) {
            Ok(spec) => {
                t.repo = spec.clone_url();
                t.git_ref = spec.git_ref.clone();
                t.path = join("", &spec.origin_path());
            }
            Err(_) => t.path = join(&t.path, entry),
        }
        t
    }

    /// The origin of a resource read at this point.
    pub fn origin(&self) -> Origin {
        Origin {
            path: self.path.clone(),
            repo: self.repo.clone(),
            git_ref: self.git_ref.clone(),
            ..Default::default()
        }
    }
}

/// kustomize's `resource.Origin`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// Path of the resource file, from the top kustomization's directory.
    pub path: String,
    /// The repository of a remote resource.
    pub repo: String,
    /// Its ref.
    pub git_ref: String,
    /// The kustomization (or plugin config file) that configured a generator or transformer.
    pub configured_in: String,
    /// apiVersion, kind, name, namespace of the generator or transformer config.
    pub configured_by: Option<[String; 4]>,
}

impl Origin {
    /// The origin of a builtin generator or transformer configured in the
    /// kustomization file at `kust_file`.
    pub fn builtin(kust_file: &Trail, kind: &str) -> Origin {
        Origin {
            repo: kust_file.repo.clone(),
            git_ref: kust_file.git_ref.clone(),
            configured_in: kust_file.path.clone(),
            configured_by: Some(["builtin".into(), kind.into(), String::new(), String::new()]),
            ..Default::default()
        }
    }

    /// kustomize's OriginFromCustomPlugin: a plugin config that carries an
    /// origin annotation gives the origin of what it generates/transforms.
    pub fn of_plugin_config(config: &Value) -> Option<Origin> {
        let text = resource::annotation(config, ORIGIN)?;
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name))
                .unwrap_or("")
                .to_string()
        };
        Some(Origin {
            repo: field("repo: "),
            git_ref: field("ref: "),
            configured_in: field("path: "),
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
        if !self.repo.is_empty() {
            push(format!("repo: {}", self.repo));
        }
        if !self.git_ref.is_empty() {
            push(format!("ref: {}", self.git_ref));
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
        let at = |p: &str| Trail {
            path: p.into(),
            ..Default::default()
        };
        let gen = Origin::builtin(&at("kustomization.yaml"), "ConfigMapGenerator");
        gen.set_if_missing(&mut r);
        assert_eq!(
            resource::annotation(&r, ORIGIN),
            Some("configuredIn: kustomization.yaml\nconfiguredBy:\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n")
        );
        let t = Origin::builtin(&at("../base/kustomization.yaml"), "PrefixTransformer");
        t.record_transformation(&mut r);
        t.record_transformation(&mut r);
        assert_eq!(
            resource::annotation(&r, TRANSFORMATIONS).map(|s| s.matches("- configuredIn").count()),
            Some(2)
        );
    }
}
