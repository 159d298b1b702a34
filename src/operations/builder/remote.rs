//! Remote bases and files inside a build: the containing remote root,
//! where a remote checkout may be read, and files fetched for plugins.

use super::canonical_dir;
use super::{Builder, Target};
use crate::fetch::charts::ChartRef;
use crate::fetch::remote::spec::{self, RepoSpec};
use kustom_api::protocol::chart_pull_version;
use kustom_api::{Error, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A remote root the build is inside (kustomize's containing repository):
/// its URL as written, its checkout, and the remote that listed it.
#[derive(Debug)]
pub(super) struct RemoteRoot {
    pub(super) raw: String,
    pub(super) clone_dir: PathBuf,
    pub(super) parent: Option<Arc<RemoteRoot>>,
}

impl Builder {
    /// Fetch the repository of `spec` (listed in `t`): the kustomization
    /// root inside its checkout, and the remote root it opens.
    pub(super) fn remote_base(
        &self,
        t: &Target,
        spec: &RepoSpec,
    ) -> Result<(PathBuf, Arc<RemoteRoot>), Error> {
        let listed = format!("'{}' (listed in {})", spec.raw, t.file.display());
        let mut up = t.remote.as_deref();
        while let Some(r) = up {
            if r.raw.starts_with(&spec.raw) {
                return Err(Error::new(format!(
                    "cycle detected: URI '{}' referenced by previous URI '{}' (in {})",
                    spec.raw,
                    r.raw,
                    t.file.display()
                )));
            }
            up = r.parent.as_deref();
        }
        let (checkout, root) = self
            .settings
            .remote
            .repo(spec)
            .map_err(|e| Error::new(format!("fetching remote base {listed}: {e}")))?;
        if root.is_file() {
            return Err(Error::new(format!(
                "fetching remote base {listed}: '{}' refers to file '{}'; expecting directory",
                spec.root,
                root.display()
            )));
        }
        if !root.is_dir() {
            return Err(Error::new(format!(
                "fetching remote base {listed}: path '{}' does not exist in {} at commit {}",
                spec.root,
                spec.clone_url(),
                checkout.commit
            )));
        }
        let root = canonical_dir(&root)?;
        let clone_dir = canonical_dir(&checkout.dir)?;
        if !root.starts_with(&clone_dir) {
            return Err(Error::new(format!(
                "fetching remote base {listed}: {:?} refers to directory outside of repo {:?}",
                root.display(),
                clone_dir.display()
            )));
        }
        Ok((
            root,
            Arc::new(RemoteRoot {
                raw: spec.raw.clone(),
                clone_dir,
                parent: t.remote.clone(),
            }),
        ))
    }

    /// kustomize's containment rule: a local base of a kustomization inside
    /// a cloned repository must lie inside that repository.
    pub(super) fn check_containment(&self, t: &Target, dir: &Path) -> Result<(), Error> {
        match &t.remote {
            Some(r) if !dir.starts_with(&r.clone_dir) => Err(Error::new(format!(
                "security; bases in kustomizations found in cloned git repos must be within the repo, but base '{}' is outside '{}' (listed in {}, from {})",
                dir.display(),
                r.clone_dir.display(),
                t.file.display(),
                r.raw
            ))),
            _ => Ok(()),
        }
    }

    /// The local copy of a remote file named in `t`.
    pub(super) fn remote_file(&self, t: &Target, url: &str) -> Result<PathBuf, Error> {
        self.settings.remote.file(url).map_err(|e| {
            Error::new(format!(
                "fetching '{url}' (named in {}): {e}",
                t.file.display()
            ))
        })
    }

    /// Fetch the http(s) files that `t`'s builtin generators and
    /// transformers read (patch files, generator files and env files,
    /// replacement files), so the builtin plugin finds their local copies.
    pub(super) fn fetch_remote_files(&self, t: &Target) -> Result<(), Error> {
        let k = &t.kust;
        let mut urls: Vec<&str> = Vec::new();
        urls.extend(k.patches.iter().map(|p| p.path.as_str()));
        urls.extend(k.patches_json6902.iter().map(|p| p.path.as_str()));
        urls.extend(k.patches_strategic_merge.iter().map(String::as_str));
        for g in k.config_map_generator.iter().chain(&k.secret_generator) {
            urls.extend(
                g.files
                    .iter()
                    .map(|f| f.split_once('=').map(|(_, v)| v).unwrap_or(f)),
            );
            urls.extend(g.envs.iter().map(String::as_str));
            urls.push(&g.env);
        }
        urls.extend(
            k.replacements
                .iter()
                .filter_map(|r| r.get("path").and_then(Value::as_str)),
        );
        for url in urls {
            if spec::is_remote_file(url) {
                self.remote_file(t, url)?;
            }
        }
        self.fetch_charts(t)
    }

    /// Pull the `helmCharts` of `t` that name a repository and are not in
    /// the kustomization's chart home (where kustomize would `helm pull`
    /// them) into the cache; the builtin gets their directories.
    fn fetch_charts(&self, t: &Target) -> Result<(), Error> {
        let k = &t.kust;
        if !self.settings.enable_helm || k.helm_charts.is_empty() {
            return Ok(());
        }
        let field = |v: &Value, key: &str| match v.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        };
        let globals = k.helm_globals.clone().unwrap_or(Value::Null);
        let home = match field(&globals, "chartHome") {
            h if h.is_empty() => "charts".to_string(),
            h => h,
        };
        for c in &k.helm_charts {
            let version = field(c, "version");
            // kustomize v5.8.0 (#5865): `devel` pulls with `helm pull --devel`.
            let devel = self.settings.kustomize_version.is_5_8()
                && c.get("devel").and_then(Value::as_bool) == Some(true);
            let chart = ChartRef {
                repo: field(c, "repo"),
                name: field(c, "name"),
                version: chart_pull_version(&version, devel).to_string(),
            };
            if chart.repo.is_empty() || chart.name.is_empty() {
                continue;
            }
            // kustomize's chart directory: <home>[/<name>-<version>]/<name>.
            let mut local = t.dir.join(&home);
            if !version.is_empty() {
                local = local.join(format!("{}-{}", chart.name, version));
            }
            if local.join(&chart.name).is_dir() {
                continue;
            }
            self.settings.remote.charts.pull(&chart).map_err(|e| {
                Error::new(format!(
                    "pulling {chart} (listed in {}): {e}",
                    t.file.display()
                ))
            })?;
        }
        Ok(())
    }
}
