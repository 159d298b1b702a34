//! `kustom-helm`: the KEP plugin for the API group `helm.kustomize.io`.
//!
//! Install it as the plugin of that group and build with
//! `--enable-alpha-plugins`:
//!
//! ```text
//! cargo build --release -p kustom-helm
//! kustom plugin install target/release/kustom-helm --group helm.kustomize.io
//! ```
//!
//! A `Chart` object names a local chart and how to render it:
//!
//! ```yaml
//! apiVersion: helm.kustomize.io/v1
//! kind: Chart
//! metadata:
//!   name: storefront          # the release name unless spec.releaseName is set
//!   namespace: shop           # --namespace unless spec.namespace is set
//! spec:
//!   chart: charts/webapp      # the chart directory, relative to the kustomization
//!   values:                   # inline values, over the chart's values.yaml
//!     replicaCount: 3
//!   valuesFiles: [prod.yaml]  # more values files, relative to the kustomization
//!   includeCRDs: true         # also: skipTests, skipHooks, kubeVersion, apiVersions
//! ```
//!
//! Rendering is the builtin HelmChartInflationGenerator's (a real
//! `helm template`); the helm executable is `$KUSTOM_HELM_COMMAND` (what
//! `kustom build --helm-command` sets) or `helm` from `$PATH`.

use kustom_api::{protocol, resource, Error, Value};
use kustom_builtin::helm::{inflate, Chart, Helm};
use kustom_builtin::Ctx;
use std::io::{Read, Write};
use std::path::Path;

/// This plugin's API group.
const GROUP: &str = "helm.kustomize.io";
/// KEP: "operation not supported".
const EXIT_UNSUPPORTED: i32 = 127;

/// A `Chart` object as the builtin generator's chart description.
fn chart_of(config: &Value) -> Result<Chart, Error> {
    let spec = config.get("spec").cloned().unwrap_or(Value::Null);
    let field = |k: &str| {
        spec.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let chart_path = field("chart");
    if chart_path.is_empty() {
        return Err(Error::new("spec.chart (the chart directory) is required"));
    }
    let path = Path::new(&chart_path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::new(format!("spec.chart {chart_path:?} names no directory")))?;
    let home = path
        .parent()
        .map(|p| p.display().to_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| ".".into());
    let mut fields = serde_json::Map::new();
    fields.insert("name".into(), Value::String(name));
    fields.insert("chartHome".into(), Value::String(home));
    let release = match field("releaseName") {
        r if r.is_empty() => resource::name(config).to_string(),
        r => r,
    };
    fields.insert("releaseName".into(), Value::String(release));
    let namespace = match field("namespace") {
        n if n.is_empty() => resource::namespace(config).to_string(),
        n => n,
    };
    if !namespace.is_empty() {
        fields.insert("namespace".into(), Value::String(namespace));
    }
    for (from, to) in [
        ("values", "valuesInline"),
        ("valuesFiles", "additionalValuesFiles"),
        ("valuesFile", "valuesFile"),
        ("includeCRDs", "includeCRDs"),
        ("skipTests", "skipTests"),
        ("skipHooks", "skipHooks"),
        ("kubeVersion", "kubeVersion"),
        ("apiVersions", "apiVersions"),
    ] {
        if let Some(v) = spec.get(from).filter(|v| !v.is_null()) {
            fields.insert(to.into(), v.clone());
        }
    }
    let mut chart = Chart::from_config(&Value::Object(fields))?;
    chart.apply_build_flags();
    Ok(chart)
}

fn generate(input: &[u8]) -> Result<Vec<u8>, Error> {
    let docs = protocol::read_stream(input)?;
    let ctx = Ctx::from_env();
    let command = std::env::var(protocol::ENV_HELM_COMMAND)
        .ok()
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "helm".into());
    let helm = Helm { command };
    let mut out = Vec::new();
    for config in docs.iter().filter(|d| {
        resource::api_version(d)
            .split('/')
            .next()
            .is_some_and(|g| g == GROUP)
    }) {
        let what = format!("{} {:?}", resource::kind(config), resource::name(config));
        if resource::kind(config) != "Chart" {
            return Err(Error::new(format!(
                "{GROUP}: unknown kind in {what}; the kind is Chart"
            )));
        }
        let chart = chart_of(config).map_err(|e| e.context(&what))?;
        out.extend(inflate(&chart, &ctx, &helm).map_err(|e| e.context(&what))?);
    }
    Ok(protocol::write_json_stream(&out))
}

fn main() {
    let op = std::env::args().nth(1).unwrap_or_default();
    let code = match op.as_str() {
        "transform" => EXIT_UNSUPPORTED,
        "generate" => {
            let mut input = Vec::new();
            let result = std::io::stdin()
                .read_to_end(&mut input)
                .map_err(|e| Error::new(format!("reading stdin: {e}")))
                .and_then(|_| generate(&input));
            match result {
                Ok(bytes) => {
                    let mut stdout = std::io::stdout().lock();
                    if stdout
                        .write_all(&bytes)
                        .and_then(|_| stdout.flush())
                        .is_err()
                    {
                        1
                    } else {
                        0
                    }
                }
                Err(e) => {
                    eprintln!("{GROUP}: {e}");
                    1
                }
            }
        }
        _ => {
            eprintln!("usage: kustom-helm generate|transform (the KEP plugin of {GROUP})");
            2
        }
    };
    std::process::exit(code);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chart_objects_map_to_the_builtin_schema() {
        let cfg = json!({"apiVersion": "helm.kustomize.io/v1", "kind": "Chart",
            "metadata": {"name": "storefront", "namespace": "shop"},
            "spec": {"chart": "charts/webapp", "values": {"a": 1}, "valuesFiles": ["p.yaml"], "includeCRDs": true}});
        let c = chart_of(&cfg).expect("chart");
        assert_eq!(c.name, "webapp");
        assert_eq!(c.chart_home, "charts");
        assert_eq!(c.release_name, "storefront");
        assert_eq!(c.namespace, "shop");
        assert_eq!(c.additional_values_files, vec!["p.yaml"]);
        assert!(c.include_crds);
        assert_eq!(c.values_inline.get("a"), Some(&json!(1)));
        let bare = chart_of(
            &json!({"kind": "Chart", "metadata": {"name": "x"}, "spec": {"chart": "webapp"}}),
        )
        .expect("chart");
        assert_eq!(bare.chart_home, ".");
        assert!(chart_of(&json!({"kind": "Chart", "metadata": {"name": "x"}})).is_err());
    }
}
