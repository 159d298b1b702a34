//! The helm flags of `kustom build` as the plugin host carries them to the
//! builtin HelmChartInflationGenerator and helm plugins.

use kustom_api::protocol::{ENV_HELM_API_VERSIONS, ENV_HELM_DEBUG, ENV_HELM_KUBE_VERSION};

/// `--helm-kube-version`, `--helm-api-versions`, `--helm-debug`: they win
/// over every chart's own `kubeVersion`, `apiVersions`, `debug`, as in
/// kustomize's HelmChartInflationGenerator.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct HelmOverrides {
    /// Empty when unset.
    pub kube_version: String,
    /// Empty when unset.
    pub api_versions: Vec<String>,
    /// `--helm-debug`.
    pub debug: bool,
}

impl HelmOverrides {
    /// The environment that carries them to helm plugins.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            (ENV_HELM_KUBE_VERSION, self.kube_version.clone()),
            (ENV_HELM_API_VERSIONS, self.api_versions.join("\n")),
            (ENV_HELM_DEBUG, self.debug.to_string()),
        ]
    }
}
