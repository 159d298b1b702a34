//! Nested kustomizations: a base built once in an accumulator of its own
//! and merged into its parent; a component run on its parent's accumulator.

use super::canonical_dir;
use super::remote::RemoteRoot;
use super::resources::refuse_absolute_root;
use super::shared::BaseKey;
use super::{load_target, Builder, Target};
use crate::fetch::remote::spec::RepoSpec;
use crate::operations::accumulator::Accumulator;
use crate::operations::origin::Trail;
use kustom_api::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;

impl Builder {
    /// Build a base directory with a fresh accumulator (cached per
    /// directory). `helm_namespace` is what its parent hands down for Helm
    /// charts without a namespace (see [`Target::helm_namespace`]).
    pub(super) fn build_base(
        &self,
        dir: &Path,
        stack: &[PathBuf],
        origin: Option<Trail>,
        remote: Option<Arc<RemoteRoot>>,
        helm_namespace: &str,
    ) -> Result<Accumulator, Error> {
        // kustomize refuses a base that is, or contains, a directory being
        // built: it would include itself.
        if stack.iter().any(|s| s.starts_with(dir)) {
            return Err(Error::new(format!(
                "cycle detected: {} includes itself or a directory below it (through {})",
                dir.display(),
                stack
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" -> ")
            )));
        }
        let build = || {
            let mut t = load_target(
                dir,
                origin.clone(),
                self.restrictor,
                self.settings.kustomize_version,
            )?;
            t.remote = remote.clone();
            t.helm_namespace = helm_namespace.to_string();
            if t.kust.is_component() {
                return Err(Error::new(format!(
                    "expected kind != 'Component' for path '{}': a Component belongs under `components:`, not `resources:`",
                    dir.display()
                )));
            }
            let mut stack = stack.to_vec();
            stack.push(dir.to_path_buf());
            self.accumulate_target(&t, Accumulator::new(), &stack)
                .map_err(|e| {
                    e.context(format!("recursed accumulation of path '{}'", dir.display()))
                })
        };
        // Origins depend on the path a base was reached by: no caching then.
        if origin.is_some() {
            return build();
        }
        // A build that reads no namespace from above serves every parent;
        // one that does is kept for the parents handing down the same one.
        let any_parent: BaseKey = (dir.to_path_buf(), None);
        let these_parents: BaseKey = (dir.to_path_buf(), Some(helm_namespace.to_string()));
        let mut mine = None;
        if let (Some(shared), None) = (&self.shared, &remote) {
            if self.schema_unset() {
                if let Some(Some(acc)) = shared.cell(&any_parent).get() {
                    shared.note(false);
                    self.used_shared
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                    return Ok(acc.clone());
                }
                let cell = shared.cell(&these_parents);
                let mut built_here = false;
                let got = cell.get_or_init(|| {
                    built_here = true;
                    match build() {
                        // Shareable only when no schema was chosen meanwhile.
                        Ok(acc) if self.schema_unset() => Some(acc),
                        other => {
                            mine = Some(other);
                            None
                        }
                    }
                });
                if let Some(acc) = got {
                    if !acc.reads_inherited_helm_namespace {
                        let _ = shared.cell(&any_parent).set(Some(acc.clone()));
                    }
                    shared.note(built_here);
                    self.used_shared
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                    return Ok(acc.clone());
                }
            }
        }
        let cell = |key: &BaseKey| {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            cache.entry(key.clone()).or_default().clone()
        };
        if let Some(done) = cell(&any_parent).get() {
            return done.clone();
        }
        let result = match mine {
            Some(result) => cell(&these_parents).get_or_init(|| result).clone(),
            None => cell(&these_parents).get_or_init(build).clone(),
        };
        if let Ok(acc) = &result {
            if !acc.reads_inherited_helm_namespace {
                let _ = cell(&any_parent).set(result.clone());
            }
        }
        result
    }

    pub(super) fn accumulate_component(
        &self,
        parent: &Target,
        path: &str,
        acc: Accumulator,
        stack: &[PathBuf],
    ) -> Result<Accumulator, Error> {
        let (dir, remote) = if let Ok(spec) = RepoSpec::parse(path) {
            let (root, remote) = self.remote_base(parent, &spec)?;
            (root, Some(remote))
        } else {
            let full = parent.dir.join(path);
            if !full.is_dir() {
                return Err(Error::new(format!(
                    "component {path:?} listed in {} is not a directory: components must be directories with a kustomization of kind Component",
                    parent.file.display()
                )));
            }
            refuse_absolute_root(parent, path)?;
            let dir = canonical_dir(&full)?;
            self.check_containment(parent, &dir)?;
            (dir, parent.remote.clone())
        };
        if stack.iter().any(|s| s.starts_with(&dir)) {
            return Err(Error::new(format!(
                "cycle detected at component {}",
                dir.display()
            )));
        }
        let mut t = load_target(
            &dir,
            parent.origin_of(path),
            self.restrictor,
            self.settings.kustomize_version,
        )?;
        t.remote = remote;
        t.helm_namespace = parent.helm_namespace_for_children(self.settings.kustomize_version);
        if !t.kust.is_component() {
            return Err(Error::new(format!(
                "expected kind 'Component' for path '{}' but got '{}'",
                dir.display(),
                t.kust.kind
            )));
        }
        let mut stack = stack.to_vec();
        stack.push(dir.clone());
        self.accumulate_target(&t, acc, &stack)
            .map_err(|e| e.context(format!("accumulating component '{}'", dir.display())))
    }
}
