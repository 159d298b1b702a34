//! What several commands share: the flags of `kustom build` (also taken by
//! `kustom lock`) and the plugin settings made from them.
//!
//! kustomize's build flags for helm and container
//! functions: the helm ones reach `helm template` through the builtin
//! HelmChartInflationGenerator; the container ones reach container KRM
//! functions (`crate::plugin_host::container`), with `--container-runtime`.

use crate::fetch::lock::LockState;
use crate::operations::builder::LoadRestrictor;
use crate::operations::output::Reorder;
use crate::plugin_host::helm_overrides::HelmOverrides;
use crate::plugin_host::{exec::Limits, Settings};
use clap::Args;
use kustom_api::Error;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

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
    /// Storage for every container function: type=bind,src=PATH,dst=PATH[,rw=true] (read-only unless rw=true); repeatable.
    #[arg(long)]
    pub mount: Vec<String>,
    /// Give the network to container functions that declare `network: true`.
    #[arg(long)]
    pub network: bool,
    /// The network granted container functions join (default: the host's, as kustomize v5.5.0 runs them).
    #[arg(long)]
    pub network_name: Option<String>,
    /// Run container functions as the current uid:gid instead of `nobody`.
    #[arg(long)]
    pub as_current_user: bool,
    /// docker or podman (or a path) for container functions [env: KUSTOM_CONTAINER_RUNTIME; default: docker, else podman, from $PATH].
    #[arg(long)]
    pub container_runtime: Option<String>,
}

impl KustomizeBuildFlags {
    /// The container-function settings of a build.
    pub fn container_settings(
        &self,
        offline: bool,
    ) -> crate::plugin_host::container::ContainerSettings {
        crate::plugin_host::container::ContainerSettings::new(
            self.container_runtime.clone(),
            self.network,
            self.network_name.clone(),
            self.mount.clone(),
            self.as_current_user,
            offline,
        )
    }

    /// The helm overrides for plugin [`Settings`](crate::plugin_host::Settings).
    pub fn helm_overrides(&self) -> HelmOverrides {
        HelmOverrides {
            kube_version: self.helm_kube_version.clone(),
            api_versions: self.helm_api_versions.clone(),
            debug: self.helm_debug,
        }
    }
}

/// Arguments of `kustom build`, as kustomize's.
#[derive(clap::Parser, Debug)]
pub struct BuildArgs {
    /// Directory with a kustomization file.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Write the output to this file, or one file per resource into this directory.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// How to build.
    #[command(flatten)]
    pub flags: BuildFlags,
}

impl std::ops::Deref for BuildArgs {
    type Target = BuildFlags;
    fn deref(&self) -> &BuildFlags {
        &self.flags
    }
}

/// The flags of `kustom build` that say how to build (shared with
/// `kustom render` and `kustom diff`, which build many roots).
#[derive(clap::Args, Debug)]
pub struct BuildFlags {
    /// LoadRestrictionsRootOnly (default) or LoadRestrictionsNone.
    #[arg(long, default_value = "LoadRestrictionsRootOnly")]
    pub load_restrictor: String,
    /// legacy (kind order) or none (input order).
    #[arg(long)]
    pub reorder: Option<String>,
    /// Allow plugins outside the builtin group.
    #[arg(long)]
    pub enable_alpha_plugins: bool,
    /// Allow KRM exec functions (with --enable-alpha-plugins).
    #[arg(long)]
    pub enable_exec: bool,
    /// Allow helmCharts.
    #[arg(long)]
    pub enable_helm: bool,
    /// The helm executable.
    #[arg(long, default_value = "helm")]
    pub helm_command: String,
    /// Environment variables for exec and container functions (KEY=VALUE or KEY).
    #[arg(short, long)]
    pub env: Vec<String>,
    /// Add app.kubernetes.io/managed-by to every resource.
    #[arg(long)]
    pub enable_managedby_label: bool,
    /// Seconds a plugin process may run.
    #[arg(long, default_value_t = 60)]
    pub plugin_timeout: u64,
    /// Largest output a plugin may write, in bytes.
    #[arg(long, default_value_t = 256 * 1024 * 1024)]
    pub plugin_max_output: usize,
    /// Fail if a plugin or remote the build needs is not pinned in DIR/kustom.lock
    /// (never add to or change it; a build needing no pin needs no lock file).
    #[arg(long)]
    pub locked: bool,
    /// Plugin confinement, grants and audit.
    #[command(flatten)]
    pub sandbox: super::sandbox_args::SandboxArgs,
    /// Remote bases and files from the cache only; no network.
    #[arg(long)]
    pub offline: bool,
    /// kustomize's helm and container-function flags.
    #[command(flatten)]
    pub kustomize: KustomizeBuildFlags,
    /// Largest expansion of YAML aliases in one document, in bytes.
    #[arg(long)]
    pub max_alias_expansion: Option<usize>,
    /// The kustomize release to reproduce: 5.8 (5.8.1, the default) or 5.5 (5.5.0) [env: KUSTOM_KUSTOMIZE_VERSION].
    #[arg(long)]
    pub kustomize_version: Option<String>,
}

/// The values clap gives flags left out (`commands::tests` holds the two
/// to each other).
impl Default for BuildFlags {
    fn default() -> Self {
        BuildFlags {
            load_restrictor: "LoadRestrictionsRootOnly".to_string(),
            reorder: None,
            enable_alpha_plugins: false,
            enable_exec: false,
            enable_helm: false,
            helm_command: "helm".to_string(),
            env: Vec::new(),
            enable_managedby_label: false,
            plugin_timeout: 60,
            plugin_max_output: 256 * 1024 * 1024,
            locked: false,
            sandbox: Default::default(),
            offline: false,
            kustomize: Default::default(),
            max_alias_expansion: None,
            kustomize_version: None,
        }
    }
}

impl BuildFlags {
    /// `--load-restrictor`, checked.
    pub fn restrictor(&self) -> Result<LoadRestrictor, Error> {
        match self.load_restrictor.as_str() {
            "LoadRestrictionsRootOnly" | "rootOnly" => Ok(LoadRestrictor::RootOnly),
            "LoadRestrictionsNone" | "none" => Ok(LoadRestrictor::None),
            other => Err(Error::new(format!(
                "--load-restrictor {other:?}: use LoadRestrictionsRootOnly or LoadRestrictionsNone"
            ))),
        }
    }

    /// `--reorder`, checked.
    pub fn reorder(&self) -> Result<Reorder, Error> {
        match self.reorder.as_deref() {
            None => Ok(Reorder::Unspecified),
            Some("legacy") => Ok(Reorder::Legacy),
            Some("none") => Ok(Reorder::None),
            Some(other) => Err(Error::new(format!(
                "--reorder {other:?}: use legacy or none"
            ))),
        }
    }

    /// `--kustomize-version`, else `KUSTOM_KUSTOMIZE_VERSION`, else the default.
    pub fn version(&self) -> Result<kustom_api::KustomizeVersion, Error> {
        kustom_api::KustomizeVersion::choose(self.kustomize_version.as_deref())
    }

    /// The plugin settings these flags ask for, under the lock state `lock`.
    pub fn plugin_settings(&self, lock: Arc<LockState>) -> Result<Settings, Error> {
        let restrictor = self.restrictor()?;
        let config_home = config_home();
        Ok(Settings {
            enable_alpha_plugins: self.enable_alpha_plugins,
            enable_exec: self.enable_exec,
            limits: Limits {
                timeout: Duration::from_secs(self.plugin_timeout),
                max_output: self.plugin_max_output,
            },
            load_restrictor: match restrictor {
                LoadRestrictor::RootOnly => "LoadRestrictionsRootOnly",
                LoadRestrictor::None => "LoadRestrictionsNone",
            }
            .to_string(),
            exec_env: self.env.clone(),
            enable_helm: self.enable_helm,
            helm_command: helm_command_from_cwd(&self.helm_command),
            sandbox: Arc::new(self.sandbox.sandbox(&config_home)?),
            audit: self.sandbox.audit()?,
            helm_overrides: self.kustomize.helm_overrides(),
            container: Arc::new(self.kustomize.container_settings(self.offline)),
            kustomize_version: self.version()?,
            ..base_settings(config_home, self.offline, lock)?
        })
    }
}

/// Plugin settings of the current environment with `kustom build`'s defaults
/// (for `kustom plugin` and `kustom edit fix`).
pub fn plugin_settings() -> Result<Settings, Error> {
    base_settings(config_home(), false, Default::default())
}

/// Settings with every flag at its default: no alpha plugins, no helm, the
/// default sandbox and limits, no audit log.
fn base_settings(
    config_home: PathBuf,
    offline: bool,
    lock: Arc<LockState>,
) -> Result<Settings, Error> {
    Ok(Settings {
        config_home,
        enable_alpha_plugins: false,
        enable_exec: false,
        limits: Limits {
            timeout: Duration::from_secs(60),
            max_output: 256 * 1024 * 1024,
        },
        self_exe: std::env::current_exe()
            .map_err(|e| Error::new(format!("cannot locate the kustom executable: {e}")))?,
        load_restrictor: "LoadRestrictionsRootOnly".into(),
        legacy_home: crate::plugin_host::legacy::plugin_home(),
        exec_env: Vec::new(),
        enable_helm: false,
        helm_command: "helm".into(),
        sandbox: Default::default(),
        audit: None,
        digests: Default::default(),
        remote: Arc::new(crate::fetch::remote::Fetcher::new(
            crate::fetch::remote::cache::default_dir(),
            offline,
            lock.clone(),
        )),
        lock,
        helm_overrides: Default::default(),
        container: Default::default(),
        kustomize_version: kustom_api::KustomizeVersion::choose(None)?,
    })
}
/// `$XDG_CONFIG_HOME`, else `~/.config`.
pub fn config_home() -> PathBuf {
    match std::env::var_os("XDG_CONFIG_HOME") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => directories::BaseDirs::new()
            .map(|b| b.home_dir().join(".config"))
            .unwrap_or_else(|| PathBuf::from(".config")),
    }
}

/// `--helm-command` as the builtin must run it: a relative path with a
/// `/` (`./bin/helm`) is taken from the directory kustom was started in,
/// as kustomize's `exec.Command` takes it, not from the kustomization's
/// directory the builtin runs in; a bare name is looked up on `PATH`.
fn helm_command_from_cwd(command: &str) -> String {
    let path = std::path::Path::new(command);
    if !command.contains('/') || path.is_absolute() {
        return command.to_string();
    }
    match std::env::current_dir() {
        Ok(cwd) => cwd.join(path).to_string_lossy().into_owned(),
        Err(_) => command.to_string(),
    }
}
