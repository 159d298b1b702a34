//! HelmChartInflationGenerator: `helmCharts:` / `helmGlobals:` entries
//! inflated with a real `helm template`, as kustomize does: the chart under
//! the chart home (default `charts/`, `<name>-<version>` when a repo and
//! version are given), its values file (default `<chart>/values.yaml`)
//! merged with `valuesInline` by `valuesMerge` (override, merge, replace),
//! `additionalValuesFiles`, release name and namespace, `includeCRDs`,
//! `skipHooks`, `skipTests`, `apiVersions`, `kubeVersion`, `nameTemplate`,
//! and in the v5.8 mode `devel`. In that mode what helm made is marked
//! ([`HELM_GENERATED`]) so that namespace transformers leave it alone, as
//! kustomize v5.8 does; the core hands helm the nearest `namespace:` for
//! charts without one.
//!
//! Helm runs only with `--enable-helm` (the core passes it, and
//! `--helm-command`, in the environment). The same inflation serves the
//! `helm.kustomize.io` KEP plugin (`plugins/helm`).

use crate::Ctx;
use kustom_api::protocol::{ENV_ENABLE_HELM, ENV_HELM_COMMAND, HELM_GENERATED};
use kustom_api::{resource, yaml, Error, KustomizeVersion, Value};
use serde_json::Map;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One chart to inflate (kustomize's `HelmChart` plus `HelmGlobals`).
#[derive(Debug, Clone, Default)]
pub struct Chart {
    /// Chart name (a directory under the chart home).
    pub name: String,
    /// Chart version (with `repo`: the chart lives in `<home>/<name>-<version>`).
    pub version: String,
    /// Repository to pull from when the chart is not local.
    pub repo: String,
    /// Release name (`--generate-name` when empty).
    pub release_name: String,
    /// `--namespace`.
    pub namespace: String,
    /// Values files after the main one (relative to the kustomization).
    pub additional_values_files: Vec<String>,
    /// The main values file (default `<chart>/values.yaml`).
    pub values_file: String,
    /// Inline values.
    pub values_inline: Map<String, Value>,
    /// override (inline wins), merge (file wins), replace (inline only).
    pub values_merge: String,
    /// `--include-crds`.
    pub include_crds: bool,
    /// `--no-hooks`.
    pub skip_hooks: bool,
    /// `--api-versions`, each.
    pub api_versions: Vec<String>,
    /// `--kube-version`.
    pub kube_version: String,
    /// `--name-template`.
    pub name_template: String,
    /// `--skip-tests`.
    pub skip_tests: bool,
    /// `--debug`.
    pub debug: bool,
    /// `--devel` for `helm template` and `helm pull` (kustomize v5.8).
    pub devel: bool,
    /// Where charts live (default `charts`, relative to the kustomization).
    pub chart_home: String,
    /// HELM_CONFIG_HOME (default: a temporary directory).
    pub config_home: String,
}

fn s(config: &Value, key: &str) -> String {
    match config.get(key) {
        Some(Value::String(v)) => v.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

fn b(config: &Value, key: &str) -> bool {
    config.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn list(config: &Value, key: &str) -> Result<Vec<String>, Error> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| Error::new(format!("{key}: entries must be strings (got {v})")))
            })
            .collect(),
        Some(other) => Err(Error::new(format!(
            "{key}: expected a list of strings (got {other})"
        ))),
    }
}

impl Chart {
    /// Read a `HelmChartInflationGenerator` config (chart and global fields side by side).
    pub fn from_config(config: &Value) -> Result<Chart, Error> {
        let values_inline = match config.get("valuesInline") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(other) => {
                return Err(Error::new(format!(
                    "valuesInline: expected a mapping (got {other})"
                )))
            }
        };
        Ok(Chart {
            name: s(config, "name"),
            version: s(config, "version"),
            repo: s(config, "repo"),
            release_name: s(config, "releaseName"),
            namespace: s(config, "namespace"),
            additional_values_files: list(config, "additionalValuesFiles")?,
            values_file: s(config, "valuesFile"),
            values_inline,
            values_merge: s(config, "valuesMerge"),
            include_crds: b(config, "includeCRDs"),
            skip_hooks: b(config, "skipHooks"),
            api_versions: list(config, "apiVersions")?,
            kube_version: s(config, "kubeVersion"),
            name_template: s(config, "nameTemplate"),
            skip_tests: b(config, "skipTests"),
            debug: b(config, "debug"),
            devel: b(config, "devel"),
            chart_home: s(config, "chartHome"),
            config_home: s(config, "configHome"),
        })
    }

    /// Apply `--helm-kube-version`, `--helm-api-versions` and `--helm-debug`
    /// (passed by the core in the environment): they win over the chart's
    /// own fields, as kustomize's build flags do.
    pub fn apply_build_flags(&mut self) {
        use kustom_api::protocol::{ENV_HELM_API_VERSIONS, ENV_HELM_DEBUG, ENV_HELM_KUBE_VERSION};
        if let Ok(v) = std::env::var(ENV_HELM_KUBE_VERSION) {
            if !v.is_empty() {
                self.kube_version = v;
            }
        }
        if let Ok(v) = std::env::var(ENV_HELM_API_VERSIONS) {
            let versions: Vec<String> = v
                .lines()
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect();
            if !versions.is_empty() {
                self.api_versions = versions;
            }
        }
        if std::env::var(ENV_HELM_DEBUG).as_deref() == Ok("true") {
            self.debug = true;
        }
    }

    /// The directory holding the chart directory.
    fn abs_chart_home(&self, root: &Path) -> PathBuf {
        let home = if self.chart_home.is_empty() {
            "charts"
        } else {
            &self.chart_home
        };
        let home = root.join(home);
        if !self.version.is_empty() && !self.repo.is_empty() {
            home.join(format!("{}-{}", self.name, self.version))
        } else {
            home
        }
    }

    /// `helm template …` arguments, in kustomize's order.
    fn template_args(
        &self,
        chart_dir: &Path,
        values_file: &Path,
        extra_values: &[PathBuf],
    ) -> Vec<String> {
        let mut a = vec!["template".to_string()];
        if self.release_name.is_empty() {
            a.push("--generate-name".into());
        } else {
            a.push(self.release_name.clone());
        }
        a.push(chart_dir.display().to_string());
        if !self.namespace.is_empty() {
            a.extend(["--namespace".into(), self.namespace.clone()]);
        }
        if !self.name_template.is_empty() {
            a.extend(["--name-template".into(), self.name_template.clone()]);
        }
        a.extend(["-f".into(), values_file.display().to_string()]);
        for f in extra_values {
            a.extend(["-f".into(), f.display().to_string()]);
        }
        for v in &self.api_versions {
            a.extend(["--api-versions".into(), v.clone()]);
        }
        if !self.kube_version.is_empty() {
            a.extend(["--kube-version".into(), self.kube_version.clone()]);
        }
        if self.include_crds {
            a.push("--include-crds".into());
        }
        if self.skip_tests {
            a.push("--skip-tests".into());
        }
        if self.skip_hooks {
            a.push("--no-hooks".into());
        }
        if self.debug {
            a.push("--debug".into());
        }
        if self.devel {
            a.push("--devel".into());
        }
        a
    }

    /// `helm pull …` arguments into `home`, in kustomize's order.
    fn pull_args(&self, home: &Path) -> Vec<String> {
        let mut pull = vec![
            "pull".to_string(),
            "--untar".into(),
            "--untardir".into(),
            home.display().to_string(),
        ];
        if self.repo.starts_with("oci://") {
            pull.push(format!("{}/{}", self.repo.trim_end_matches('/'), self.name));
        } else {
            pull.extend(["--repo".into(), self.repo.clone(), self.name.clone()]);
        }
        if !self.version.is_empty() {
            pull.extend(["--version".into(), self.version.clone()]);
        }
        if self.devel {
            pull.push("--devel".into());
        }
        pull
    }
}

/// A temporary directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, Error> {
        let base = std::env::temp_dir();
        for i in 0..32u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let p = base.join(format!("kustomize-helm-{}-{nanos}-{i}", std::process::id()));
            match std::fs::create_dir(&p) {
                Ok(()) => return Ok(TempDir(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(Error::new(format!(
                        "cannot create tmp dir in {}: {e}",
                        base.display()
                    )))
                }
            }
        }
        Err(Error::new(format!(
            "cannot create tmp dir in {}",
            base.display()
        )))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// kyaml's merge2: `src` fields win over `dest`; maps merge key by key; a
/// null in `src` removes the field; anything else is replaced.
fn merge2(src: &Value, dest: &Value) -> Value {
    match (src, dest) {
        (Value::Object(s), Value::Object(d)) => {
            let mut out = d.clone();
            for (k, v) in s {
                if v.is_null() {
                    out.remove(k);
                } else if let Some(old) = d.get(k) {
                    out.insert(k.clone(), merge2(v, old));
                } else {
                    out.insert(k.clone(), v.clone());
                }
            }
            Value::Object(out)
        }
        (src, _) => src.clone(),
    }
}

/// How to run helm: the command, or why it may not run.
#[derive(Debug, Clone)]
pub struct Helm {
    /// The helm executable.
    pub command: String,
}

impl Helm {
    /// Helm as the core allows it for builtins: `--enable-helm` and `--helm-command`.
    pub fn from_env() -> Result<Helm, Error> {
        if std::env::var(ENV_ENABLE_HELM).as_deref() != Ok("true") {
            return Err(Error::new("must specify --enable-helm"));
        }
        let command = std::env::var(ENV_HELM_COMMAND).unwrap_or_default();
        if command.is_empty() {
            return Err(Error::new("must specify --helm-command"));
        }
        Ok(Helm { command })
    }

    fn run(&self, args: &[String], config_home: &Path) -> Result<Vec<u8>, Error> {
        let env = [
            ("HELM_CONFIG_HOME", config_home.display().to_string()),
            (
                "HELM_CACHE_HOME",
                format!("{}/.cache", config_home.display()),
            ),
            ("HELM_DATA_HOME", format!("{}/.data", config_home.display())),
        ];
        let out = Command::new(&self.command)
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .output()
            .map_err(|e| {
                Error::new(format!(
                    "unable to run: '{} {}' (is '{}' installed? use --helm-command to choose it): {e}",
                    self.command,
                    args.join(" "),
                    self.command
                ))
            })?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(Error::new(format!(
                "unable to run: '{} {}' with env={:?}: {}: {}",
                self.command,
                args.join(" "),
                env.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>(),
                out.status,
                stderr.trim_end()
            )));
        }
        Ok(out.stdout)
    }

    /// The major version `helm version --short` reports must be 3 or 4.
    /// kustomize v5.5.0 asks `helm version -c --short` and requires helm 3;
    /// kustom accepts helm 4 in that mode too (its Helm is Helm 4).
    fn check_version(&self, config_home: &Path, version: KustomizeVersion) -> Result<(), Error> {
        // kustomize v5.8.0 (#6016, helm v4 support) dropped `-c`.
        let args: &[&str] = if version.is_5_8() {
            &["version", "--short"]
        } else {
            &["version", "-c", "--short"]
        };
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let out = self.run(&args, config_home)?;
        let text = String::from_utf8_lossy(&out);
        let re = regex::Regex::new(r"v?\d+(\.\d+)+").map_err(|e| Error::new(e.to_string()))?;
        let v = re
            .find(&text)
            .map(|m| m.as_str().trim_start_matches('v').to_string())
            .ok_or_else(|| Error::new(format!("cannot find version string in {text}")))?;
        let major = v.split('.').next().unwrap_or("");
        if major != "3" && major != "4" {
            return Err(Error::new(if version.is_5_8() {
                format!("this plugin requires helm V3 or V4 but got v{v}")
            } else {
                format!("this plugin requires helm V3 (or V4) but got v{v}")
            }));
        }
        Ok(())
    }
}

/// Inflate one chart; `ctx.root` is the kustomization's directory.
pub fn inflate(chart: &Chart, ctx: &Ctx, helm: &Helm) -> Result<Vec<Value>, Error> {
    if chart.name.is_empty() {
        return Err(Error::new("chart name cannot be empty"));
    }
    let merge = if chart.values_merge.is_empty() {
        "override"
    } else {
        chart.values_merge.as_str()
    };
    if !["merge", "override", "replace"].contains(&merge) {
        return Err(Error::new(
            "valuesMerge must be one of [merge override replace]",
        ));
    }
    let home = chart.abs_chart_home(&ctx.root);
    // A chart kustom's core pulled from the repository into its cache
    // (kustomize would `helm pull` it into the chart home).
    let pulled = (!chart.repo.is_empty() && !home.join(&chart.name).is_dir())
        .then(|| {
            ctx.remote_files.get(&kustom_api::protocol::chart_key(
                &chart.repo,
                &chart.name,
                kustom_api::protocol::chart_pull_version(&chart.version, chart.devel),
            ))
        })
        .flatten();
    let values_file = match (chart.values_file.is_empty(), pulled) {
        (true, Some(dir)) => dir.join("values.yaml"),
        (true, None) => home.join(&chart.name).join("values.yaml"),
        (false, _) => ctx.root.join(&chart.values_file),
    };
    let mut extra = Vec::new();
    for f in &chart.additional_values_files {
        ctx.resolve(f)
            .map_err(|e| e.context("could not load additionalValuesFile"))?;
        extra.push(ctx.root.join(f));
    }
    let tmp = TempDir::new()?;
    let config_home = if chart.config_home.is_empty() {
        tmp.0.join("helm")
    } else {
        PathBuf::from(&chart.config_home)
    };
    helm.check_version(&config_home, ctx.version)?;
    let chart_dir = pulled.cloned().unwrap_or_else(|| home.join(&chart.name));
    if !chart_dir.is_dir() {
        if chart.repo.is_empty() {
            return Err(Error::new(format!(
                "no repo specified for pull, no chart found at '{}'",
                chart_dir.display()
            )));
        }
        helm.run(&chart.pull_args(&home), &config_home)?;
    }
    let values_rel = values_file.to_string_lossy().into_owned();
    let values_text = if chart.values_inline.is_empty() || merge != "replace" {
        Some(match pulled {
            // Inside the pulled chart, which kustom handed over.
            Some(_) if chart.values_file.is_empty() => kustom_api::files::read_text(&values_file)?,
            _ => ctx.read_to_string(&values_rel)?,
        })
    } else {
        None
    };
    let values_out = if chart.values_inline.is_empty() {
        values_text.unwrap_or_default()
    } else {
        let inline = Value::Object(chart.values_inline.clone());
        let merged = match (merge, values_text) {
            ("replace", _) | (_, None) => inline,
            (m, Some(text)) => {
                let file = yaml::parse_stream(&text)
                    .map_err(|e| {
                        e.context(format!(
                            "could not parse values file {} into rnode",
                            values_file.display()
                        ))
                    })?
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| Value::Object(Map::new()));
                if m == "override" {
                    merge2(&inline, &file)
                } else {
                    merge2(&file, &inline)
                }
            }
        };
        yaml::to_yaml(&merged)
    };
    let values_path = tmp.0.join(format!("{}-kustomize-values.yaml", chart.name));
    std::fs::write(&values_path, values_out).map_err(|e| {
        Error::new(format!(
            "failed to write values file {}: {e}",
            values_path.display()
        ))
    })?;
    let stdout = helm.run(
        &chart.template_args(&chart_dir, &values_path, &extra),
        &config_home,
    )?;
    let text = String::from_utf8_lossy(&stdout);
    let docs = match yaml::parse_stream(&text) {
        Ok(d) => d,
        // helm may print messages before the first document.
        Err(e) => match text.find("\n---") {
            Some(i) => yaml::parse_stream(&text[i + 1..])
                .map_err(|e| e.context("error reading helm output"))?,
            None => return Err(e.context("could not parse helm output into resources")),
        },
    };
    let mut out = Vec::new();
    let mut queue: std::collections::VecDeque<Value> = docs.into();
    while let Some(d) = queue.pop_front() {
        match &d {
            Value::Null => continue,
            Value::Object(m) if m.is_empty() => continue,
            Value::Object(_) => {}
            other => {
                return Err(Error::new(format!(
                    "helm output holds a document that is not a mapping: {other}"
                )))
            }
        }
        if resource::kind(&d).ends_with("List") {
            if let Some(Value::Array(items)) = d.get("items") {
                queue.extend(items.iter().cloned());
                continue;
            }
        }
        out.push(d);
    }
    Ok(out)
}

/// The builtin generator.
pub fn generate(config: &Value, ctx: &Ctx) -> Result<Vec<Value>, Error> {
    let helm = Helm::from_env()?;
    let mut chart = Chart::from_config(config)?;
    // kustomize v5.8.0 (#5865) added `devel`; v5.5.0's plugin config
    // ignores the unknown field (the kustomization's `helmCharts` rejects it).
    chart.devel &= ctx.version.is_5_8();
    chart.apply_build_flags();
    let mut made = inflate(&chart, ctx, &helm)?;
    if ctx.version.is_5_8() {
        // kustomize v5.8.0 (#5940): marked for the namespace transformer to skip.
        for r in &mut made {
            resource::set_annotation(r, HELM_GENERATED, "true");
        }
    }
    Ok(made)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge2_overrides_merges_and_deletes() {
        let file = json!({"a": 1, "m": {"x": 1, "y": 2}, "l": [1, 2], "gone": true});
        let inline = json!({"m": {"y": 3, "z": 4}, "l": [9], "gone": null, "new": "n"});
        assert_eq!(
            merge2(&inline, &file),
            json!({"a": 1, "m": {"x": 1, "y": 3, "z": 4}, "l": [9], "new": "n"})
        );
        // merge: the file wins where both set a value.
        assert_eq!(
            merge2(&json!({"m": {"y": 2}}), &json!({"m": {"y": 3, "z": 4}})),
            json!({"m": {"y": 2, "z": 4}})
        );
    }

    #[test]
    fn template_args_follow_kustomize() {
        let c = Chart::from_config(&json!({
            "name": "app", "releaseName": "r", "namespace": "ns", "includeCRDs": true,
            "skipTests": true, "skipHooks": true, "apiVersions": ["a/v1"], "kubeVersion": "1.29",
            "additionalValuesFiles": ["x.yaml"]}))
        .expect("config");
        let args = c.template_args(
            Path::new("/c/app"),
            Path::new("/t/v.yaml"),
            &[PathBuf::from("/k/x.yaml")],
        );
        assert_eq!(
            args.join(" "),
            "template r /c/app --namespace ns -f /t/v.yaml -f /k/x.yaml --api-versions a/v1 --kube-version 1.29 --include-crds --skip-tests --no-hooks"
        );
        let g = Chart::from_config(&json!({"name": "app"})).expect("config");
        assert_eq!(
            g.template_args(Path::new("/c/app"), Path::new("/v"), &[])[1],
            "--generate-name"
        );
        assert_eq!(
            g.abs_chart_home(Path::new("/k")),
            PathBuf::from("/k/charts")
        );
        let v = Chart::from_config(&json!({"name": "app", "version": "1.0", "repo": "https://x"}))
            .expect("config");
        assert_eq!(
            v.abs_chart_home(Path::new("/k")),
            PathBuf::from("/k/charts/app-1.0")
        );
    }

    #[test]
    fn helm_needs_enable_helm() {
        // The core always passes the variable; without "true" helm may not run.
        if std::env::var(ENV_ENABLE_HELM).is_err() {
            let e = Helm::from_env().expect_err("disabled");
            assert_eq!(e.message, "must specify --enable-helm");
        }
    }
}
