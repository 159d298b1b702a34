//! Plugins: finding the executable for an API group and running it with
//! the KEP protocol (`generate` / `transform`). Identity of resources across
//! a call is kept with the `config.k8s.io/id` annotation.

pub mod exec;

use exec::Limits;
use kustom_api::protocol::{
    self, ENV_KUSTOMIZATION, ENV_LOAD_RESTRICTOR, ID_ANNOTATION, PREVIOUS_KINDS, PREVIOUS_NAMES,
    PREVIOUS_NAMESPACES,
};
use kustom_api::{resource, yaml, Error, Gvk, ResId, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

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
}

/// Where the plugin for a group lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A KEP plugin `$XDG_CONFIG_HOME/kustomize/plugins/<group>`.
    Kep(PathBuf),
    /// The builtin plugin shipped with kustom (this executable).
    ShippedBuiltin(PathBuf),
}

impl Location {
    /// The executable that runs.
    pub fn path(&self) -> &Path {
        match self {
            Location::Kep(p) | Location::ShippedBuiltin(p) => p,
        }
    }
}

/// Counts plugin processes started (for tests and `-v` logging).
pub static CALLS: AtomicUsize = AtomicUsize::new(0);

/// The API group of a config object's apiVersion (`builtin` for `builtin`).
pub fn group_of(config: &Value) -> String {
    let av = resource::api_version(config);
    if av == BUILTIN_GROUP {
        return BUILTIN_GROUP.into();
    }
    Gvk::from_api_version(av, "").group
}

impl Settings {
    /// The KEP plugin path for a group.
    pub fn kep_path(&self, group: &str) -> PathBuf {
        self.config_home
            .join("kustomize")
            .join("plugins")
            .join(group)
    }

    /// Find the plugin for a config object's group, per DESIGN.md's lookup order.
    pub fn locate(&self, config: &Value) -> Result<Location, Error> {
        let group = group_of(config);
        let kep = self.kep_path(&group);
        if is_executable(&kep) {
            if group != BUILTIN_GROUP && !self.enable_alpha_plugins {
                return Err(Error::new(format!(
                    "plugin {} for group {group:?} needs --enable-alpha-plugins",
                    kep.display()
                )));
            }
            return Ok(Location::Kep(kep));
        }
        if group == BUILTIN_GROUP {
            return Ok(Location::ShippedBuiltin(self.self_exe.clone()));
        }
        Err(Error::new(format!(
            "no plugin for {} {} (group {group:?}); looked in {}; install one there (`kustom plugin install`)",
            resource::api_version(config),
            resource::kind(config),
            kep.display()
        )))
    }

    fn args_for<'a>(&self, loc: &Location, subcommand: &'a str) -> Vec<&'a str> {
        match loc {
            Location::ShippedBuiltin(_) => vec!["builtin-plugin", subcommand],
            Location::Kep(_) => vec![subcommand],
        }
    }

    /// Run one KEP call. `Ok(None)` when the plugin answered 127 (not supported).
    fn call(
        &self,
        loc: &Location,
        group: &str,
        subcommand: &str,
        dir: &Path,
        kust_file: &Path,
        stdin: Vec<u8>,
    ) -> Result<Option<Vec<Value>>, Error> {
        CALLS.fetch_add(1, Ordering::Relaxed);
        let path = loc.path();
        let describe = || {
            format!(
                "plugin {} (group {group:?}, `{subcommand}`, configured in {})",
                path.display(),
                kust_file.display()
            )
        };
        tracing::debug!(plugin = %path.display(), group, subcommand, dir = %dir.display(), "plugin call");
        let env = [
            (ENV_LOAD_RESTRICTOR, self.load_restrictor.clone()),
            (ENV_KUSTOMIZATION, kust_file.display().to_string()),
        ];
        let started = std::time::Instant::now();
        let out = exec::run(
            path,
            &self.args_for(loc, subcommand),
            dir,
            &env,
            stdin,
            self.limits,
        )
        .map_err(|e| e.context(describe()))?;
        tracing::debug!(
            plugin = %path.display(),
            subcommand,
            dir = %dir.display(),
            ms = started.elapsed().as_millis() as u64,
            stdout_bytes = out.stdout.len(),
            "plugin call finished"
        );
        match out.status {
            Some(0) => {}
            Some(EXIT_UNSUPPORTED) => return Ok(None),
            Some(code) => {
                return Err(Error::new(format!(
                    "{} failed with exit status {code}{}",
                    describe(),
                    exec::stderr_tail(&out.stderr)
                )))
            }
            None => {
                return Err(Error::new(format!(
                    "{} was killed by a signal{}",
                    describe(),
                    exec::stderr_tail(&out.stderr)
                )))
            }
        }
        let docs = protocol::read_stream(&out.stdout).map_err(|e| {
            Error::new(format!(
                "{} wrote output that is not YAML: {}{}",
                describe(),
                e.message,
                exec::stderr_tail(&out.stderr)
            ))
        })?;
        Ok(Some(docs))
    }

    /// Encode documents for a plugin: compact JSON for the builtin group
    /// (cheap, and valid YAML), readable YAML for everyone else.
    fn encode(&self, group: &str, docs: &[&Value]) -> Vec<u8> {
        if group == BUILTIN_GROUP {
            let mut out = Vec::new();
            for (i, d) in docs.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b"---\n");
                }
                serde_json::to_writer(&mut out, d).expect("JSON values serialise");
                out.push(b'\n');
            }
            out
        } else {
            let owned: Vec<Value> = docs.iter().map(|d| (*d).clone()).collect();
            yaml::to_yaml_stream(&owned).into_bytes()
        }
    }

    /// Run the generators `configs` (all of one kustomization, in order):
    /// one call per run of consecutive configs of the same group.
    pub fn generate(
        &self,
        configs: &[Value],
        dir: &Path,
        kust_file: &Path,
    ) -> Result<Vec<Value>, Error> {
        let mut out = Vec::new();
        for batch in batches(configs) {
            let group = group_of(&batch[0]);
            let loc = self.locate(&batch[0])?;
            let refs: Vec<&Value> = batch.iter().collect();
            let stdin = self.encode(&group, &refs);
            match self.call(&loc, &group, "generate", dir, kust_file, stdin)? {
                Some(docs) => out.extend(docs),
                None => {
                    return Err(Error::new(format!(
                        "plugin {} (group {group:?}) does not support `generate` (exit 127), but {} lists it as a generator",
                        loc.path().display(),
                        kust_file.display()
                    )))
                }
            }
        }
        Ok(out)
    }

    /// Run the transformers `configs` over `resources`, one call per run of
    /// consecutive configs of the same group. With `optional`, a plugin
    /// answering 127 leaves the resources unchanged (generators asked to transform).
    pub fn transform(
        &self,
        configs: &[Value],
        mut resources: Vec<Value>,
        dir: &Path,
        kust_file: &Path,
        optional: bool,
    ) -> Result<Vec<Value>, Error> {
        for batch in batches(configs) {
            let group = group_of(&batch[0]);
            let loc = self.locate(&batch[0])?;
            resources =
                self.transform_one(&loc, &group, batch, resources, dir, kust_file, optional)?;
        }
        Ok(resources)
    }

    #[allow(clippy::too_many_arguments)]
    fn transform_one(
        &self,
        loc: &Location,
        group: &str,
        configs: &[Value],
        mut resources: Vec<Value>,
        dir: &Path,
        kust_file: &Path,
        optional: bool,
    ) -> Result<Vec<Value>, Error> {
        // The shipped builtin keeps identities itself (it records renames in
        // the build annotations); any other plugin gets ids to match by.
        let track = !matches!(loc, Location::ShippedBuiltin(_));
        let before: Vec<ResId> = if track {
            resources
                .iter_mut()
                .enumerate()
                .map(|(i, r)| {
                    resource::set_annotation(r, ID_ANNOTATION, &i.to_string());
                    ResId::of(r)
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut docs: Vec<&Value> = configs.iter().collect();
        docs.extend(resources.iter());
        let stdin = self.encode(group, &docs);
        drop(docs);
        let result = self.call(loc, group, "transform", dir, kust_file, stdin);
        let out = match result {
            Ok(Some(out)) => out,
            Ok(None) if optional => {
                if track {
                    for r in &mut resources {
                        resource::remove_annotation(r, ID_ANNOTATION);
                    }
                }
                return Ok(resources);
            }
            Ok(None) => {
                return Err(Error::new(format!(
                    "plugin {} (group {group:?}) does not support `transform` (exit 127), but {} lists it as a transformer",
                    loc.path().display(),
                    kust_file.display()
                )))
            }
            Err(e) => return Err(e),
        };
        if !track {
            return Ok(out);
        }
        let mut out = out;
        for r in &mut out {
            let id = resource::remove_annotation(r, ID_ANNOTATION)
                .and_then(|v| v.as_str().and_then(|s| s.parse::<usize>().ok()));
            if let Some(old) = id.and_then(|i| before.get(i)) {
                let now = ResId::of(r);
                if now.name != old.name
                    || now.namespace != old.namespace
                    || now.gvk.kind != old.gvk.kind
                {
                    record_previous_id(r, old);
                }
            }
        }
        Ok(out)
    }
}

/// Record `old` as a previous id of `r`, as kustomize's renamers do.
fn record_previous_id(r: &mut Value, old: &ResId) {
    for (key, value) in [
        (PREVIOUS_NAMES, old.name.as_str()),
        (PREVIOUS_NAMESPACES, old.effective_namespace()),
        (PREVIOUS_KINDS, old.gvk.kind.as_str()),
    ] {
        let joined = match resource::annotation(r, key) {
            Some(prev) => format!("{prev},{value}"),
            None => value.to_string(),
        };
        resource::set_annotation(r, key, &joined);
    }
}

/// Split configs into runs of consecutive objects of the same group.
fn batches(configs: &[Value]) -> Vec<&[Value]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=configs.len() {
        if i == configs.len() || group_of(&configs[i]) != group_of(&configs[start]) {
            if start < i {
                out.push(&configs[start..i]);
            }
            start = i;
        }
    }
    out
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
