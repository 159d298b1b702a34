//! How plugins are found and run for one build: the settings every plugin
//! call reads (flags, sandbox, lock, audit log, remote fetcher).

use super::exec::Limits;
use super::helm_overrides;
use super::sandbox::Sandbox;
use crate::fetch::lock::LockState;
use crate::plugin_host::audit::AuditLog;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

/// The group of kustomize's builtin kinds.
pub const BUILTIN_GROUP: &str = "builtin";

/// Exit status meaning "operation not supported".
pub const EXIT_UNSUPPORTED: i32 = 127;

/// How plugins are found and run for a build.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `$XDG_CONFIG_HOME` (default `~/.config`).
    pub config_home: PathBuf,
    /// Plugins outside the builtin group may run (`--enable-alpha-plugins`).
    pub enable_alpha_plugins: bool,
    /// KRM exec functions may run (`--enable-exec`).
    pub enable_exec: bool,
    /// Timeout and output cap per plugin process.
    pub limits: Limits,
    /// This executable, which serves the shipped builtin plugin as `kustom builtin-plugin`.
    pub self_exe: PathBuf,
    /// `LoadRestrictionsRootOnly` or `LoadRestrictionsNone`, passed to builtins.
    pub load_restrictor: String,
    /// Where legacy kustomize exec plugins live: the first existing directory
    /// of [`legacy::home_candidates`] (None when none exists).
    pub legacy_home: Option<PathBuf>,
    /// `--env` entries (`KEY=VALUE`, or `KEY` to pass the host's value) for KRM functions.
    pub exec_env: Vec<String>,
    /// `--enable-helm`: the builtin HelmChartInflationGenerator may run helm.
    pub enable_helm: bool,
    /// `--helm-command`: the helm executable.
    pub helm_command: String,
    /// How plugin processes are confined (`--plugin-sandbox`, grants, policy file).
    pub sandbox: Arc<Sandbox>,
    /// `kustom.lock`: pins checked before a plugin runs, digests recorded.
    pub lock: Arc<LockState>,
    /// `--audit-log`: one JSON line per plugin call.
    pub audit: Option<Arc<AuditLog>>,
    /// sha256 of each executable run, computed once per build.
    pub digests: Arc<Mutex<HashMap<PathBuf, String>>>,
    /// Remote bases and files (cache, `--offline`).
    pub remote: std::sync::Arc<crate::fetch::remote::Fetcher>,
    /// `--helm-kube-version`, `--helm-api-versions`, `--helm-debug`: chart overrides.
    pub helm_overrides: helm_overrides::HelmOverrides,
    /// Container functions: runtime, `--network`, `--mount`, `--as-current-user`.
    pub container: Arc<super::container_settings::ContainerSettings>,
    /// The kustomize release the build reproduces (`--kustomize-version`),
    /// passed to every plugin call.
    pub kustomize_version: kustom_api::KustomizeVersion,
}

/// Counts plugin processes started (for tests and `-v` logging).
pub static CALLS: AtomicUsize = AtomicUsize::new(0);
