//! `kustom build` flags that kustomize has for helm and container
//! functions: the helm ones reach `helm template` through the builtin
//! HelmChartInflationGenerator; the container ones are accepted so that
//! command lines written for kustomize run, and a tree that needs a
//! container function fails with a message saying kustom has none.

use clap::Args;
use kustom_api::protocol::{ENV_HELM_API_VERSIONS, ENV_HELM_DEBUG, ENV_HELM_KUBE_VERSION};

/// kustomize's build flags for helm and container functions.
#[derive(Args, Debug, Default, Clone)]
pub struct KustomizeBuildFlags {
    /// Kubernetes version for helm's `--kube-version` (replaces each chart's kubeVersion).
    #[arg(long, default_value = "")]
    pub helm_kube_version: String,
    /// API versions for helm's `--api-versions` (replace each chart's apiVersions); repeatable or comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub helm_api_versions: Vec<String>,
    /// Run `helm template` with `--debug`.
    #[arg(long)]
    pub helm_debug: bool,
    /// Storage for container functions (accepted; kustom runs no container functions).
    #[arg(long)]
    pub mount: Vec<String>,
    /// Network access for container functions (accepted; kustom runs no container functions).
    #[arg(long)]
    pub network: bool,
    /// Docker network for container functions (accepted; kustom runs no container functions).
    #[arg(long, default_value = "bridge")]
    pub network_name: String,
    /// Run container functions as the current user (accepted; kustom runs no container functions).
    #[arg(long)]
    pub as_current_user: bool,
}

impl KustomizeBuildFlags {
    /// The helm overrides for plugin [`Settings`](crate::plugin_host::Settings).
    pub fn helm_overrides(&self) -> HelmOverrides {
        HelmOverrides {
            kube_version: self.helm_kube_version.clone(),
            api_versions: self.helm_api_versions.clone(),
            debug: self.helm_debug,
        }
    }
}

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
