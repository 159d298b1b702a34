//! How container functions run in a build: the settings made from the
//! build flags (runtime, network, mounts, user), which the plugin host's
//! settings carry.

use std::collections::HashMap;
use std::sync::Mutex;

/// Environment variable choosing the container runtime (`docker`, `podman`
/// or a path), like `--container-runtime`.
pub const ENV_CONTAINER_RUNTIME: &str = "KUSTOM_CONTAINER_RUNTIME";

/// How container functions run in a build (from the build flags).
#[derive(Debug, Default)]
pub struct ContainerSettings {
    /// `--container-runtime` (or `$KUSTOM_CONTAINER_RUNTIME`): `docker`,
    /// `podman` or a path; None: `docker`, else `podman`, from `$PATH`.
    pub runtime: Option<String>,
    /// `--network`: functions that declare `network: true` may have it.
    pub network: bool,
    /// `--network-name`: the network granted functions join (default: the host's).
    pub network_name: Option<String>,
    /// `--mount`: storage for every container function (kustomize's syntax).
    pub mounts: Vec<String>,
    /// `--as-current-user`: run as the caller's uid:gid instead of `nobody`.
    pub as_current_user: bool,
    /// `--offline`: never pull an image that is not present.
    pub offline: bool,
    /// Image digests resolved in this build (image → sha256 hex).
    pub(super) digests: Mutex<HashMap<String, String>>,
}

impl ContainerSettings {
    /// Settings from the build flags; `runtime` None reads `$KUSTOM_CONTAINER_RUNTIME`.
    pub fn new(
        runtime: Option<String>,
        network: bool,
        network_name: Option<String>,
        mounts: Vec<String>,
        as_current_user: bool,
        offline: bool,
    ) -> ContainerSettings {
        let runtime = runtime.filter(|r| !r.is_empty()).or_else(|| {
            std::env::var(ENV_CONTAINER_RUNTIME)
                .ok()
                .filter(|r| !r.is_empty())
        });
        ContainerSettings {
            runtime,
            network,
            network_name,
            mounts,
            as_current_user,
            offline,
            digests: Mutex::new(HashMap::new()),
        }
    }
}
