//! What a builtin plugin call knows about its surroundings: the
//! kustomization's directory (the working directory) and the load restrictor.

use kustom_api::{protocol, Error, KustomizeVersion};
use std::path::PathBuf;

/// Whether files outside the kustomization root may be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadRestrictor {
    /// Only files in or below the kustomization root (kustomize's default).
    RootOnly,
    /// Any file.
    None,
}

/// The context of one plugin call.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The directory of the kustomization that listed the virtual resources.
    pub root: PathBuf,
    /// File-loading restriction in force.
    pub load_restrictor: LoadRestrictor,
    /// The kustomization file, for error messages.
    pub kustomization: String,
    /// Local copies of the http(s) files the kustomization names, fetched
    /// by the core (URL → path).
    pub remote_files: std::collections::BTreeMap<String, PathBuf>,
    /// The kustomize release the build reproduces (the core's choice).
    pub version: KustomizeVersion,
}

impl Ctx {
    /// The context from the working directory and environment.
    pub fn from_env() -> Ctx {
        let root = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let kustomization = std::env::var(protocol::ENV_KUSTOMIZATION)
            .unwrap_or_else(|_| root.join("kustomization.yaml").display().to_string());
        Ctx::new(
            root,
            std::env::var(protocol::ENV_LOAD_RESTRICTOR).as_deref().ok(),
            kustomization,
            std::env::var(protocol::ENV_REMOTE_FILES).ok().as_deref(),
            KustomizeVersion::from_call_env(),
        )
    }

    /// The context of a call in `root` with the core's load restrictor
    /// setting, remote-file table (JSON) and kustomize version, as the
    /// call's environment carries them.
    pub fn new(
        root: PathBuf,
        load_restrictor: Option<&str>,
        kustomization: String,
        remote_files_json: Option<&str>,
        version: KustomizeVersion,
    ) -> Ctx {
        let load_restrictor = match load_restrictor {
            Some("LoadRestrictionsNone") => LoadRestrictor::None,
            _ => LoadRestrictor::RootOnly,
        };
        let remote_files = remote_files_json
            .and_then(|j| serde_json::from_str(j).ok())
            .unwrap_or_default();
        Ctx {
            root,
            load_restrictor,
            kustomization,
            remote_files,
            version,
        }
    }

    /// Resolve `rel` against the root, enforcing the load restrictor.
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, Error> {
        // kustomize's loader fetches http(s) URLs before any restriction.
        if kustom_api::protocol::is_remote_file(rel) {
            return self.remote_files.get(rel).cloned().ok_or_else(|| {
                Error::new(format!(
                    "{rel}: remote file was not fetched by kustom (named in {})",
                    self.kustomization
                ))
            });
        }
        let path = self.root.join(rel);
        if self.load_restrictor == LoadRestrictor::RootOnly {
            let real = path
                .canonicalize()
                .map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
            let root = self
                .root
                .canonicalize()
                .unwrap_or_else(|_| self.root.clone());
            if !real.starts_with(&root) {
                return Err(Error::new(format!(
                    "security; file '{}' is not in or below '{}'; move it under the kustomization or build with --load-restrictor LoadRestrictionsNone",
                    real.display(),
                    root.display()
                )));
            }
            return Ok(real);
        }
        Ok(path)
    }

    /// Read a file named relative to the root, enforcing the load restrictor.
    pub fn read_to_string(&self, rel: &str) -> Result<String, Error> {
        let path = self.resolve(rel)?;
        kustom_api::files::read_text(&path)
    }

    /// Read a file's bytes, enforcing the load restrictor.
    pub fn read_bytes(&self, rel: &str) -> Result<Vec<u8>, Error> {
        let path = self.resolve(rel)?;
        kustom_api::files::read_regular(&path)
    }
}

#[cfg(test)]
impl Ctx {
    /// The context unit tests run in: root `.`, root-only loading, no
    /// remote files.
    pub(crate) fn for_tests() -> Ctx {
        Ctx {
            root: PathBuf::from("."),
            load_restrictor: LoadRestrictor::RootOnly,
            kustomization: "kustomization.yaml".into(),
            remote_files: Default::default(),
            version: Default::default(),
        }
    }
}
