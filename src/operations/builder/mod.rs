//! Building a kustomization tree: kustomize's AccumulateTarget order per
//! kustomization (resources, configurations/crds, generators, components,
//! transformers, validators, vars), then the top-level finishing steps.

/// The version kustomize writes into the managed-by label.
pub fn managed_by_version(version: kustom_api::KustomizeVersion) -> &'static str {
    if version.is_5_8() {
        // kustomize v5.7.0 (provenance.FindVersion reads the build info):
        // kubectl's embedded kustomize no longer reports itself as `(devel)`.
        version.release()
    } else {
        "(devel)"
    }
}

mod nesting;
mod prefetch;
mod remote;
mod resources;
pub mod shared;

use remote::RemoteRoot;
pub use resources::{each_resource_in_file, read_resource_file};
use resources::{parse_inline, Entry};

use crate::fetch::remote::spec::{self, RepoSpec};
use crate::operations::accumulator::{merge_vars, Accumulator};
use crate::operations::kustomization::{self, Kustomization};
use crate::operations::origin::{Origin, Trail};
use crate::operations::output::{self as output, Reorder};
use crate::operations::plan;
use crate::plugin_host::{self, Settings};
use kustom_api::doc::{self, Doc};
use kustom_api::fieldspec::TransformerConfig;
use kustom_api::{resource, yaml, Error, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Whether resource files must lie inside their kustomization's directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadRestrictor {
    /// kustomize's default.
    RootOnly,
    /// `--load-restrictor LoadRestrictionsNone`.
    None,
}

type CachedBuild = Arc<OnceLock<Result<Accumulator, Error>>>;

/// Builds kustomizations; shared by the threads that build sibling bases.
pub struct Builder {
    /// How plugins are found and run.
    pub settings: Settings,
    /// File load restriction.
    pub restrictor: LoadRestrictor,
    /// Directory builds by canonical path (and, for a base whose Helm
    /// charts read it, the namespace handed down): a base referenced by
    /// several overlays is built once.
    cache: Mutex<HashMap<shared::BaseKey, CachedBuild>>,
    /// The OpenAPI schema chosen for strategic merges: like kustomize's
    /// global schema, set by the first kustomization (top first, then in
    /// traversal order) whose `openapi:` names one.
    schema: Mutex<Option<Value>>,
    /// A resource of a type outside kyaml's precomputed scope table was
    /// loaded before the schema was chosen (see `choose_schema`).
    unknown_type_seen: std::sync::atomic::AtomicBool,
    /// Base builds shared with the builds of other roots (`kustom render`).
    shared: Option<Arc<shared::SharedBases>>,
    /// A base came from `shared` (see [`Builder::depends_on_sharing`]).
    used_shared: std::sync::atomic::AtomicBool,
    /// Read large resource files ahead (`kustom build`, see [`prefetch`]).
    read_ahead: bool,
    /// The reader ahead, once the root showed it has something to read.
    prefetch: OnceLock<prefetch::Prefetch>,
}

/// One kustomization being built: its directory, file and parsed content.
struct Target {
    dir: PathBuf,
    file: PathBuf,
    kust: Kustomization,
    /// With `buildMetadata` at the top: where this kustomization is, as
    /// kustomize's origin tracks it; None when not tracked.
    origin: Option<Trail>,
    /// The kustomization `kustom build` was pointed at.
    top: bool,
    /// The remote checkout this kustomization lies in, if any.
    remote: Option<Arc<RemoteRoot>>,
    /// The nearest ancestor's `namespace:`, which kustomize v5.8 hands
    /// helm for a chart when neither the chart nor this kustomization
    /// names one (its helmRootNamespace); empty in the v5.5 mode.
    helm_namespace: String,
}

/// The parts of an [`Entry::Dir`], borrowed.
type DirRef<'a> = (&'a PathBuf, &'a Option<Trail>, &'a Option<Arc<RemoteRoot>>);

impl Target {
    /// Origin of something named `rel` in this kustomization.
    fn origin_of(&self, rel: &str) -> Option<Trail> {
        self.origin.as_ref().map(|o| o.append(rel))
    }

    /// What this kustomization hands its bases and components as their
    /// [`Target::helm_namespace`]: its own `namespace:`, else its own
    /// inherited one (kustomize v5.8.0, #5940/#6044: namespace propagation
    /// to Helm charts; v5.5.0 has none).
    fn helm_namespace_for_children(&self, version: kustom_api::KustomizeVersion) -> String {
        if !version.is_5_8() {
            return String::new();
        }
        if self.kust.namespace.is_empty() {
            self.helm_namespace.clone()
        } else {
            self.kust.namespace.clone()
        }
    }

    /// Origin of the kustomization file itself.
    fn file_origin(&self) -> Option<Trail> {
        let name = self
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        self.origin_of(name.as_deref().unwrap_or("kustomization.yaml"))
    }
}

/// The result of a whole build, before output.
pub struct Built {
    /// The output resources, in build order (not yet sorted).
    pub resources: Vec<Doc>,
    /// The top kustomization.
    pub top: Kustomization,
    /// The directory built (a checkout in the cache for a URL).
    pub dir: PathBuf,
}

impl Builder {
    /// A builder with these plugin settings.
    pub fn new(settings: Settings, restrictor: LoadRestrictor) -> Builder {
        Builder {
            settings,
            restrictor,
            cache: Mutex::new(HashMap::new()),
            schema: Mutex::new(None),
            unknown_type_seen: std::sync::atomic::AtomicBool::new(false),
            shared: None,
            used_shared: std::sync::atomic::AtomicBool::new(false),
            read_ahead: false,
            prefetch: OnceLock::new(),
        }
    }

    /// Read the large resource files of the tree ahead on another core
    /// while the build goes (see [`prefetch`]); for one build of one local
    /// root. The reader starts once the root's kustomization is read, if
    /// it lists a directory or a large file.
    pub fn read_ahead(&mut self) {
        self.read_ahead = true;
    }

    /// A builder that takes base builds from, and gives them to, `shared`
    /// (see [`shared`] for when a base is shared).
    pub fn with_shared(
        settings: Settings,
        restrictor: LoadRestrictor,
        shared: Arc<shared::SharedBases>,
    ) -> Builder {
        Builder {
            shared: Some(shared),
            ..Builder::new(settings, restrictor)
        }
    }

    /// Whether this build reused a shared base and then chose an OpenAPI
    /// schema: the schema's `withBuiltin` depends on every type loaded
    /// before it, which a reused base did not report, so the caller builds
    /// such a root again on a private builder.
    pub fn depends_on_sharing(&self) -> bool {
        self.used_shared.load(std::sync::atomic::Ordering::Relaxed) && !self.schema_unset()
    }

    /// No OpenAPI schema has been chosen yet.
    fn schema_unset(&self) -> bool {
        self.schema
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_none()
    }

    /// Build the kustomization in `dir` the way `kustomize build` does,
    /// up to (not including) sorting and output.
    pub fn build(&self, dir: &Path) -> Result<Built, Error> {
        let (dir, remote) = match dir.to_str().map(RepoSpec::parse) {
            Some(Ok(spec)) if !dir.exists() => {
                let (checkout, root) = self.settings.remote.repo(&spec).map_err(|e| {
                    Error::new(format!("fetching the build target {}: {e}", spec.raw))
                })?;
                let remote = Arc::new(RemoteRoot {
                    raw: spec.raw.clone(),
                    clone_dir: checkout.dir,
                    parent: None,
                });
                (canonical_dir(&root)?, Some(remote))
            }
            _ => (canonical_dir(dir)?, None),
        };
        let mut target = load_target(&dir, None, self.restrictor, self.settings.kustomize_version)?;
        if self.read_ahead && remote.is_none() && prefetch::worth_it(&target.dir, &target.kust) {
            if let Some(reader) = prefetch::Prefetch::start(&dir) {
                let _ = self.prefetch.set(reader);
            }
        }
        target.top = true;
        target.remote = remote;
        // The top's buildMetadata governs the whole tree, as in kustomize.
        if !target.kust.build_metadata.is_empty() {
            target.origin = Some(Trail::default());
        }
        // A Component at the top is built like a Kustomization (as kustomize does).
        let acc =
            self.accumulate_target(&target, Accumulator::new(), std::slice::from_ref(&dir))?;
        // Hash suffixes and name references only matter when something was
        // generated or renamed; otherwise the finishing call is skipped.
        let resources = if acc.finished {
            acc.resources
        } else if !acc.vars.is_empty() || acc.resources.iter().any(needs_finishing) {
            let finish = plan::finishing_transformers(&acc.config, &acc.vars);
            self.settings_for(&target).transform(
                &finish,
                acc.resources,
                &target.dir,
                &target.file,
                false,
            )?
        } else {
            acc.resources
        };
        let mut resources = drop_local_config(resources);
        if self.settings.kustomize_version.is_5_8() {
            // kustomize v5.8.0 counts the helm marking among the build
            // annotations it removes before output.
            use kustom_api::protocol::HELM_GENERATED;
            for r in resources
                .iter_mut()
                .filter(|r| r.annotation(HELM_GENERATED).is_some())
            {
                r.update(|v| {
                    resource::remove_annotation(v, HELM_GENERATED);
                });
            }
        }
        Ok(Built {
            resources,
            top: target.kust,
            dir,
        })
    }

    /// Plugin settings for calls made for `t`: remote roots are restricted
    /// to their own root whatever `--load-restrictor` says (as kustomize's
    /// git loader is).
    fn settings_for(&self, t: &Target) -> Cow<'_, Settings> {
        if t.remote.is_some() && self.restrictor != LoadRestrictor::RootOnly {
            let mut s = self.settings.clone();
            s.load_restrictor = "LoadRestrictionsRootOnly".into();
            Cow::Owned(s)
        } else {
            Cow::Borrowed(&self.settings)
        }
    }

    /// The load restriction in force for `t`.
    fn restrictor_for(&self, t: &Target) -> LoadRestrictor {
        if t.remote.is_some() {
            LoadRestrictor::RootOnly
        } else {
            self.restrictor
        }
    }

    /// kustomize's accumulateTarget, starting from `acc` (empty for a
    /// kustomization, the parent's for a component). `stack` holds the
    /// directories being built, to report cycles.
    fn accumulate_target(
        &self,
        t: &Target,
        acc: Accumulator,
        stack: &[PathBuf],
    ) -> Result<Accumulator, Error> {
        let k = &t.kust;
        // Whether the result depends on the namespace handed down to `t`
        // is worked out per kustomization: what `acc` brought (a
        // component's parent state) is set aside and joined at the end.
        let mut acc = acc;
        let brought_inherited_helm_namespace =
            std::mem::take(&mut acc.reads_inherited_helm_namespace);
        if !k.patches.is_empty() || !k.patches_strategic_merge.is_empty() {
            // Its patch calls merge with the OpenAPI schema: have the
            // builtin's server build it while this tree still loads.
            crate::plugin_host::exec::fork_server::preload_schema();
        }
        self.fetch_remote_files(t)?;
        self.choose_schema(t)?;
        let mut acc = self
            .accumulate_resources(t, acc, &k.resources, stack)
            .map_err(|e| e.context("accumulating resources"))?;
        // configurations: extend the default field specs; the result joins
        // what the resources' kustomizations accumulated (kustomize's order).
        let mut user = TransformerConfig::default();
        for c in &k.configurations {
            let text = self.read_file(t, c)?;
            for doc in yaml::parse_stream(&text).map_err(|e| e.context(c))? {
                let tc = TransformerConfig::from_value(&doc)
                    .map_err(|e| e.context(format!("{} (in {})", c, t.file.display())))?;
                user.merge(&tc)?;
            }
        }
        let mut tc = TransformerConfig::defaults_for(self.settings.kustomize_version).clone();
        tc.merge(&user)?;
        // A leaf's accumulator has no config yet, and merging the defaults
        // into nothing gives them back as they are (a unit test of
        // kustom_api::fieldspec holds that). Not so a merge with a user's
        // `configurations:`: the second merge drops specs the first kept
        // (kustomize's field equality is not symmetric).
        if acc.config.is_empty() && user.is_empty() {
            acc.config = tc;
        } else {
            acc.config.merge(&tc)?;
        }
        for c in &k.crds {
            let text = self.read_file(t, c)?;
            let tc = crate::operations::crds::config_from_crd_file(&text, c)
                .map_err(|e| e.context(format!("loading CRDs of {}", t.file.display())))?;
            acc.config.merge(&tc)?;
        }
        // Generators: builtin fields first, then the `generators:` list.
        let helm_namespace = self
            .settings
            .kustomize_version
            .is_5_8()
            .then_some(t.helm_namespace.as_str());
        let mut gens = plan::builtin_generators(k, helm_namespace);
        acc.reads_inherited_helm_namespace |=
            helm_namespace.is_some() && plan::helm_charts_read_inherited_namespace(k);
        gens.extend(self.plugin_configs(t, &k.generators, stack, &mut acc)?);
        // Plain builtin generators of a kustomization without components
        // run in its transformer call: one process instead of two.
        let mut deferred = Vec::new();
        if !gens.is_empty()
            && k.components.is_empty()
            && t.file_origin().is_none()
            && self
                .settings_for(t)
                .can_generate_in_transform(&gens, &t.dir, &t.file)?
        {
            deferred = std::mem::take(&mut gens);
        }
        if !gens.is_empty() {
            acc = self.run_generators(t, &gens, acc)?;
        }
        // Components start from this accumulator.
        for c in &k.components {
            acc = self
                .accumulate_component(t, c, acc, stack)
                .map_err(|e| e.context("accumulating components"))?;
        }
        // Transformers: builtin fields in kustomize's order, then `transformers:`.
        let mut ts = plan::builtin_transformers(
            k,
            &acc.config,
            t.origin.is_some(),
            self.schema
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref(),
        )
        .map_err(|e| e.context(t.file.display()))?;
        ts.extend(self.plugin_configs(t, &k.transformers, stack, &mut acc)?);
        // At the top, the final passes (hash suffixes, name references,
        // vars) join the last transformer call instead of costing a process
        // of their own — unless validators must see the state before them,
        // or each config runs alone to record origins.
        let fuse_finish = t.top && !ts.is_empty() && k.validators.is_empty() && t.origin.is_none();
        if fuse_finish {
            if !k.vars.is_empty() {
                ts.push(plan::var_matching(&k.vars));
            }
            merge_vars(&mut acc.vars, k.vars.clone())
                .map_err(|e| e.context(format!("merging vars of {}", t.file.display())))?;
            ts.extend(plan::finishing_transformers(&acc.config, &acc.vars));
        }
        if ts.is_empty() && !deferred.is_empty() {
            acc = self.run_generators(t, &deferred, acc)?;
        }
        if !ts.is_empty() {
            let mut rs = std::mem::take(&mut acc.resources);
            match t.file_origin() {
                None if deferred.is_empty() => {
                    rs = self
                        .settings_for(t)
                        .transform(&ts, rs, &t.dir, &t.file, false)?
                }
                None => {
                    rs = self
                        .settings_for(t)
                        .generate_and_transform(&deferred, &ts, rs, &t.dir, &t.file)?;
                }
                // With origins tracked, each transformer runs alone and is
                // recorded on every resource after it ran (kustomize's
                // multiTransformer with AddTransformerAnnotation).
                Some(file_origin) => {
                    for tr in &ts {
                        rs = self.settings_for(t).transform(
                            std::slice::from_ref(tr),
                            rs,
                            &t.dir,
                            &t.file,
                            false,
                        )?;
                        if let Some(o) = config_origin(tr, &file_origin) {
                            rs.iter_mut()
                                .for_each(|r| r.update(|v| o.record_transformation(v)));
                        }
                    }
                }
            }
            acc.set_resources(rs);
        }
        // Validators must not change anything.
        let vs = self.plugin_configs(t, &k.validators, stack, &mut acc)?;
        if !vs.is_empty() {
            let out = self.settings_for(t).transform(
                &vs,
                acc.resources.clone(),
                &t.dir,
                &t.file,
                false,
            )?;
            if !doc::same_resources(&out, &acc.resources) {
                return Err(Error::new(format!(
                    "validator shouldn't modify the resource map (validators of {})",
                    t.file.display()
                )));
            }
        }
        // Below a kustomization with a namespace, what its bases read came
        // from it, not from above.
        acc.reads_inherited_helm_namespace = brought_inherited_helm_namespace
            || (acc.reads_inherited_helm_namespace && k.namespace.is_empty());
        acc.finished = fuse_finish;
        if fuse_finish {
            return Ok(acc);
        }
        // kustomize matches each kustomization's vars against the resources
        // accumulated so far (MergeVars); the matches travel as annotations.
        if !k.vars.is_empty() {
            let m = plan::var_matching(&k.vars);
            let rs = std::mem::take(&mut acc.resources);
            let rs = self
                .settings_for(t)
                .transform(&[m], rs, &t.dir, &t.file, false)?;
            acc.set_resources(rs);
        }
        merge_vars(&mut acc.vars, k.vars.clone())
            .map_err(|e| e.context(format!("merging vars of {}", t.file.display())))?;
        Ok(acc)
    }

    /// Run `gens` (generators of `t`), add what they made to `acc` by
    /// generator behavior, then let non-builtin generators transform.
    fn run_generators(
        &self,
        t: &Target,
        gens: &[Value],
        mut acc: Accumulator,
    ) -> Result<Accumulator, Error> {
        let generated = match t.file_origin() {
            None => self.settings_for(t).generate(gens, &t.dir, &t.file)?,
            // With origins tracked, each generator runs alone so that
            // what it made can be attributed to it.
            Some(file_origin) => {
                let mut all = Vec::new();
                for g in gens {
                    let mut made =
                        self.settings_for(t)
                            .generate(std::slice::from_ref(g), &t.dir, &t.file)?;
                    if let Some(o) = config_origin(g, &file_origin) {
                        made.iter_mut()
                            .for_each(|r| r.update(|v| o.set_if_missing(v)));
                    }
                    all.extend(made);
                }
                all
            }
        };
        acc.absorb_all(generated, self.settings.kustomize_version)
            .map_err(|e| {
                e.context(format!(
                    "merging generated resources in {}",
                    t.file.display()
                ))
            })?;
        // KEP: generators may also transform; 127 means they don't.
        let external: Vec<Value> = gens
            .iter()
            .filter(|g| plugin_host::group_of(g) != plugin_host::BUILTIN_GROUP)
            .cloned()
            .collect();
        if !external.is_empty() {
            let rs = std::mem::take(&mut acc.resources);
            let rs = self
                .settings_for(t)
                .transform(&external, rs, &t.dir, &t.file, true)?;
            acc.set_resources(rs);
        }
        Ok(acc)
    }

    /// kustomize's SetSchema for one kustomization: its `openapi:` file must
    /// be readable; the first `openapi:` met chooses the build's schema.
    fn choose_schema(&self, t: &Target) -> Result<(), Error> {
        if t.kust.openapi.is_empty() {
            return Ok(());
        }
        let path = match t.kust.openapi.get("path") {
            Some(p) if spec::is_remote_file(p) => {
                Some(self.remote_file(t, p)?.display().to_string())
            }
            Some(p) => {
                let full = t.dir.join(p);
                let real = self
                    .check_restriction(t, &full, p)
                    .map_err(|e| e.context(format!("openapi path in {}", t.file.display())))?;
                Some(real.display().to_string())
            }
            None => None,
        };
        let mut chosen = self.schema.lock().unwrap_or_else(|e| e.into_inner());
        if chosen.is_some() {
            return Ok(());
        }
        let version = t.kust.openapi.get("version");
        let choice = match (path, version) {
            (Some(_), Some(_)) => {
                return Err(Error::new(format!(
                    "{}: builtin version and custom schema provided, cannot use both",
                    t.file.display()
                )))
            }
            (Some(p), None) => serde_json::json!({
                "path": p,
                "withBuiltin": self.unknown_type_seen.load(std::sync::atomic::Ordering::Relaxed),
            }),
            (None, Some(v)) if v == kustom_api::schema::BUILTIN_VERSION => {
                serde_json::json!({ "version": v })
            }
            (None, Some(v)) => {
                return Err(Error::new(format!(
                    "{}: the specified OpenAPI version is not built in: {v:?} (kustom has {})",
                    t.file.display(),
                    kustom_api::schema::BUILTIN_VERSION
                )))
            }
            (None, None) => return Ok(()),
        };
        *chosen = Some(choice);
        Ok(())
    }

    /// Note loaded objects whose type kyaml would look up in its schema.
    fn note_types(&self, rs: &[Value]) {
        for r in rs {
            self.note_type(resource::api_version(r), resource::kind(r));
        }
    }

    /// [`Builder::note_types`] for one resource's `apiVersion` and `kind`.
    fn note_type(&self, api_version: &str, kind: &str) {
        use std::sync::atomic::Ordering;
        if self.unknown_type_seen.load(Ordering::Relaxed) {
            return;
        }
        let unknown = !resource::is_precomputed_type(api_version, kind);
        if unknown
            && self
                .schema
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_none()
        {
            self.unknown_type_seen.store(true, Ordering::Relaxed);
        }
    }

    /// The config objects of a `generators:` / `transformers:` / `validators:`
    /// list: inline YAML objects, files, or kustomization directories
    /// (whose reading of an inherited Helm namespace is noted in `acc`).
    fn plugin_configs(
        &self,
        t: &Target,
        entries: &[String],
        stack: &[PathBuf],
        acc: &mut Accumulator,
    ) -> Result<Vec<Value>, Error> {
        let mut out = Vec::new();
        for e in entries {
            if let Some(mut inline) = parse_inline(e) {
                if let Some(trail) = t.file_origin() {
                    let o = trail.origin();
                    inline.iter_mut().for_each(|r| o.set_on(r));
                }
                out.extend(inline);
                continue;
            }
            match self.resolve_entry(t, e)? {
                Entry::File(rs) => out.extend(doc::to_values(&rs)),
                Entry::Dir(dir, origin, remote) => {
                    let built = self.build_base(
                        &dir,
                        stack,
                        origin,
                        remote,
                        &t.helm_namespace_for_children(self.settings.kustomize_version),
                    )?;
                    acc.reads_inherited_helm_namespace |= built.reads_inherited_helm_namespace;
                    out.extend(doc::to_values(&built.resources));
                }
            }
        }
        Ok(out)
    }
}

impl Builder {
    /// Build the root at `dir` and finish it as `kustom build` writes it:
    /// sorted by `reorder`, with the managed-by label when `managed_by_label`
    /// or the root's `buildMetadata` asks for it.
    pub fn build_root(
        &self,
        dir: &Path,
        reorder: Reorder,
        managed_by_label: bool,
    ) -> Result<Built, Error> {
        let started = std::time::Instant::now();
        let mut built = self.build(dir)?;
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "tree built");
        let started = std::time::Instant::now();
        let mut resources = std::mem::take(&mut built.resources);
        output::sort(&mut resources, &built.top, reorder)?;
        if managed_by_label
            || built
                .top
                .build_metadata
                .iter()
                .any(|m| m == "managedByLabel")
        {
            let label = serde_json::json!({
                "apiVersion": "builtin",
                "kind": "LabelTransformer",
                "metadata": {"name": "managedByLabel"},
                "labels": {"app.kubernetes.io/managed-by": format!("kustomize-{}", managed_by_version(self.settings.kustomize_version))},
                "fieldSpecs": [{"path": "metadata/labels", "create": true}],
            });
            let dir = built.dir.clone();
            resources = self.settings.transform(
                &[label],
                resources,
                &dir,
                &dir.join("kustomization.yaml"),
                false,
            )?;
        }
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "sorted");
        built.resources = resources;
        Ok(built)
    }
}

/// `dir` as an absolute path without symlinks; kustomize's message when it
/// is no directory to build.
fn canonical_dir(dir: &Path) -> Result<PathBuf, Error> {
    dir.canonicalize().map_err(|e| {
        Error::new(format!(
            "must build at directory: not a valid directory: '{}': {e}",
            dir.display()
        ))
    })
}

/// Load the kustomization in `dir` (a canonical directory). Under
/// LoadRestrictionsRootOnly the file itself must resolve inside `dir`: a
/// `kustomization.yaml` that is a symlink to a file elsewhere is refused,
/// as kustomize refuses it.
fn load_target(
    dir: &Path,
    origin: Option<Trail>,
    restrictor: LoadRestrictor,
    version: kustom_api::KustomizeVersion,
) -> Result<Target, Error> {
    let file = kustomization::find_file(dir)?;
    if restrictor == LoadRestrictor::RootOnly {
        let real = file
            .canonicalize()
            .map_err(|e| Error::new(format!("{}: {e}", file.display())))?;
        if !real.starts_with(dir) {
            return Err(Error::new(format!(
                "security; kustomization file {} resolves to '{}', which is not in or below '{}'; copy the file into the directory instead of linking it, or build with --load-restrictor LoadRestrictionsNone",
                file.display(),
                real.display(),
                dir.display()
            )));
        }
    }
    let text = kustom_api::files::read_text(&file)?;
    let kust = Kustomization::parse(&text, &file)?;
    kust.check_for(version, &file)?;
    Ok(Target {
        dir: dir.to_path_buf(),
        file,
        kust,
        origin,
        top: false,
        remote: None,
        helm_namespace: String::new(),
    })
}

/// The origin recorded for what a generator or transformer config produces:
/// builtin kinds are attributed to the kustomization file, other plugins to
/// where their config came from (kustomize's OriginFromCustomPlugin).
fn config_origin(config: &Value, file_origin: &Trail) -> Option<Origin> {
    if plugin_host::group_of(config) == plugin_host::BUILTIN_GROUP
        && resource::annotation(config, kustom_api::protocol::ORIGIN).is_none()
    {
        return Some(Origin::builtin(file_origin, resource::kind(config)));
    }
    Origin::of_plugin_config(config)
}

/// Whether a resource carries a pending hash suffix or a rename that
/// references to it must follow.
fn needs_finishing(r: &Doc) -> bool {
    use kustom_api::protocol::{NEEDS_HASH_SUFFIX, PREVIOUS_NAMES};
    r.annotation(NEEDS_HASH_SUFFIX).is_some()
        || r.annotation(PREVIOUS_NAMES).is_some()
        || (r.kind() == "RoleBinding" && has_non_string_subject_namespace(&r.value()))
}

/// kustomize's name-reference pass rejects a RoleBinding whose
/// ServiceAccount subject has a null or non-string namespace even when
/// nothing was renamed, so such a tree still needs the finishing call.
fn has_non_string_subject_namespace(r: &Value) -> bool {
    resource::kind(r) == "RoleBinding"
        && r.get("subjects")
            .and_then(Value::as_array)
            .is_some_and(|subjects| {
                subjects.iter().any(|s| {
                    s.get("kind").and_then(Value::as_str) == Some("ServiceAccount")
                        && s.get("namespace").is_some_and(|ns| !ns.is_string())
                })
            })
}

/// Drop objects annotated `config.kubernetes.io/local-config` (unless "false").
fn drop_local_config(resources: Vec<Doc>) -> Vec<Doc> {
    resources
        .into_iter()
        .filter(|r| {
            !matches!(r.annotation(kustom_api::protocol::LOCAL_CONFIG), Some(v) if v != "false")
        })
        .collect()
}
