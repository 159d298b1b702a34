//! Plugins: finding the executable for a config object and running it.
//!
//! Four kinds of plugin are found, in this order (README, "Using plugins"):
//! a KEP plugin for the object's API group, a KRM exec function named by the
//! object's `config.kubernetes.io/function` annotation, a legacy kustomize
//! exec plugin under the plugin home, and the shipped builtin. KEP plugins
//! speak `generate` / `transform` (this module; identity across a call is
//! kept with the `config.k8s.io/id` annotation); the other two protocols
//! live in [`legacy`] and [`krm`] and behave as kustomize runs them.

pub mod audit;
pub mod exec;
pub mod helm_overrides;
pub mod krm;
pub mod legacy;
pub mod sandbox;

use exec::Limits;
use kustom_api::protocol::{
    self, ENV_ENABLE_HELM, ENV_GENERATE_FIRST, ENV_HELM_COMMAND, ENV_KUSTOMIZATION,
    ENV_LOAD_RESTRICTOR, ID_ANNOTATION, PREVIOUS_KINDS, PREVIOUS_NAMES, PREVIOUS_NAMESPACES,
};

use crate::fetch::lock::{LockMode, LockState, PluginPin};
use crate::plugin_host::audit::{AuditLog, CallRecord};
use kustom_api::doc::{self, Doc};
use kustom_api::{resource, yaml, Error, Gvk, ResId, Value};
use sandbox::{CallSandbox, Sandbox, Subject};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
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
}

/// One plugin call about to run: its name, digest and sandbox.
#[derive(Debug)]
struct Call {
    name: String,
    sha256: String,
    sandbox: CallSandbox,
}

/// Which plugin runs a config object, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A KEP plugin `$XDG_CONFIG_HOME/kustomize/plugins/<group>`.
    Kep(PathBuf),
    /// A KRM exec function named by the object's function annotation.
    Krm(krm::ExecSpec),
    /// A legacy kustomize exec plugin `<plugin home>/<group>/<version>/<lowercase kind>/<Kind>`.
    Legacy(PathBuf),
    /// The builtin plugin shipped with kustom (this executable).
    ShippedBuiltin(PathBuf),
}

impl Location {
    /// The executable that runs.
    pub fn path(&self) -> &Path {
        match self {
            Location::Kep(p) | Location::Legacy(p) | Location::ShippedBuiltin(p) => p,
            Location::Krm(spec) => &spec.path,
        }
    }

    /// The protocol's name, for messages and `kustom plugin` listings.
    pub fn protocol(&self) -> &'static str {
        match self {
            Location::Kep(_) => "KEP",
            Location::Krm(_) => "KRM exec function",
            Location::Legacy(_) => "legacy exec",
            Location::ShippedBuiltin(_) => "builtin (shipped)",
        }
    }
}

/// Where a plugin call comes from, for error messages: the protocol, the
/// executable, the config object's apiVersion and kind, the operation and
/// the kustomization file that listed the object.
#[derive(Debug, Clone)]
pub struct Site<'a> {
    /// Protocol name ([`Location::protocol`]).
    pub protocol: &'static str,
    /// The executable.
    pub path: &'a Path,
    /// apiVersion of the (first) config object.
    pub api_version: &'a str,
    /// Kind of the (first) config object.
    pub kind: &'a str,
    /// Kinds of every config object of the call, comma-separated (for `-v`).
    pub kinds: String,
    /// `generate` or `transform`.
    pub op: &'a str,
    /// The kustomization file that listed the config object.
    pub kust_file: &'a Path,
}

impl std::fmt::Display for Site<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} plugin {} ({} {}, {}, configured in {})",
            self.protocol,
            self.path.display(),
            self.api_version,
            self.kind,
            self.op,
            self.kust_file.display()
        )
    }
}

impl Site<'_> {
    /// The error for a finished process whose status is not success.
    pub fn status_error(&self, out: &exec::Output, extra: &str) -> Error {
        let status = match out.status {
            Some(code) => format!("failed with exit status {code}"),
            None => "was killed by a signal".to_string(),
        };
        Error::new(format!(
            "{self} {status}{extra}{}{}",
            exec::stderr_tail(&out.stderr),
            out.note
        ))
    }

    /// The error for STDOUT that does not parse.
    pub fn junk_error(&self, out: &exec::Output, why: &str) -> Error {
        Error::new(format!(
            "{self} wrote output that is not YAML (exit status {}): {why}{}{}{}",
            out.status
                .map(|c| c.to_string())
                .unwrap_or_else(|| "none".into()),
            stdout_head(&out.stdout),
            exec::stderr_tail(&out.stderr),
            out.note
        ))
    }
}

/// The first bytes of a plugin's STDOUT, for a "not YAML" message.
fn stdout_head(stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(&stdout[..stdout.len().min(400)]);
    let text = text.trim_end();
    if text.is_empty() {
        String::new()
    } else {
        format!(
            "\nstdout begins:\n  {}",
            text.lines().take(8).collect::<Vec<_>>().join("\n  ")
        )
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

    /// Find the plugin for a config object, listed by the kustomization
    /// `kust_file` in directory `dir`. Lookup order: KEP plugin for the
    /// group, KRM exec function annotation, legacy exec plugin, shipped
    /// builtin. Plugins outside the `builtin` group need
    /// `--enable-alpha-plugins`, KRM exec functions also `--enable-exec`.
    pub fn locate(&self, config: &Value, dir: &Path, kust_file: &Path) -> Result<Location, Error> {
        let group = group_of(config);
        if group != BUILTIN_GROUP {
            check_lookup_names(config, kust_file)?;
        }
        let what = || {
            format!(
                "{} {} {:?} (listed in {})",
                resource::api_version(config),
                resource::kind(config),
                resource::name(config),
                kust_file.display()
            )
        };
        let kep = self.kep_path(&group);
        // The core group ("v1") has no KEP plugin: its path would be the
        // plugins directory itself.
        let kep_found = !group.is_empty() && is_executable(&kep);
        if group == BUILTIN_GROUP {
            // kustomize never looks for builtin kinds elsewhere; an executable
            // at plugins/builtin replaces the shipped one (KEP).
            return Ok(if kep_found {
                Location::Kep(kep)
            } else {
                Location::ShippedBuiltin(self.self_exe.clone())
            });
        }
        let alpha = |loc: Location| -> Result<Location, Error> {
            if self.enable_alpha_plugins {
                Ok(loc)
            } else {
                let flags = match (&loc, self.enable_exec) {
                    (Location::Krm(_), false) => "--enable-alpha-plugins --enable-exec",
                    _ => "--enable-alpha-plugins",
                };
                Err(Error::new(format!(
                    "{} is not a builtin kind: the {} plugin {} would run it, but plugins other than the builtins are disabled; add {flags} to run it",
                    what(),
                    loc.protocol(),
                    loc.path().display()
                )))
            }
        };
        if kep_found {
            return alpha(Location::Kep(kep));
        }
        let root_only = self.load_restrictor != "LoadRestrictionsNone";
        if let Some(spec) =
            krm::function_spec(config, dir, root_only).map_err(|e| e.context(what()))?
        {
            let loc = alpha(Location::Krm(spec))?;
            if !self.enable_exec {
                return Err(Error::new(format!(
                    "{}: KRM exec function {} needs --enable-exec (with --enable-alpha-plugins) to run",
                    what(),
                    loc.path().display()
                )));
            }
            return Ok(loc);
        }
        let legacy = self
            .legacy_home
            .as_ref()
            .map(|home| legacy::plugin_path(home, config));
        if let Some(path) = &legacy {
            match std::fs::metadata(path) {
                Ok(m) if m.is_file() && is_executable(path) => {
                    return alpha(Location::Legacy(path.clone()));
                }
                Ok(_) => {
                    return Err(Error::new(format!(
                        "{}: unexecutable plugin at: {} (set its executable bit: chmod +x)",
                        what(),
                        path.display()
                    )))
                }
                Err(_) => {}
            }
        }
        let mut looked = vec![format!("KEP plugin {}", kep.display())];
        looked
            .push("KRM function: no config.kubernetes.io/function annotation on the object".into());
        match &legacy {
            Some(p) => looked.push(format!("legacy exec plugin {}", p.display())),
            None => looked.push(format!(
                "legacy exec plugin home: none of {} exists",
                legacy::home_candidates()
                    .iter()
                    .map(|(_, p)| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
        let hint = if self.enable_alpha_plugins {
            ""
        } else {
            "; plugins other than the builtins also need --enable-alpha-plugins"
        };
        if kep.is_file() {
            // Installed by hand without its executable bit: say so rather
            // than suggest installing what is already there.
            return Err(Error::new(format!(
                "{}: the KEP plugin {} exists but is not executable; run `chmod +x {}`{hint}",
                what(),
                kep.display(),
                kep.display()
            )));
        }
        Err(Error::new(format!(
            "no plugin for {} (group {group:?}); looked for:\n  {}\ninstall one (`kustom plugin install EXECUTABLE --group {group}`){hint}",
            what(),
            looked.join("\n  ")
        )))
    }

    /// Prepare a call: the plugin's name, its digest checked against
    /// `kustom.lock` (and recorded), and its sandbox.
    fn begin(&self, loc: &Location, batch: &[Value], dir: &Path) -> Result<Call, Error> {
        let config = &batch[0];
        let name = plugin_name(loc, config);
        let shipped = matches!(loc, Location::ShippedBuiltin(_));
        // The shipped builtin is part of kustom: hashed only for the audit log.
        let sha256 = if shipped && self.audit.is_none() {
            String::new()
        } else {
            self.digest(loc.path())?
        };
        if !shipped {
            self.check_pin(&name, loc.path(), &sha256)?;
            self.lock.record_plugin(PluginPin {
                plugin: name.clone(),
                sha256: sha256.clone(),
            });
        }
        let mut extra_read = Vec::new();
        // Files the core hands a builtin by path: the build's OpenAPI
        // schema (already checked against the load restrictor), which may
        // sit in another kustomization's directory.
        if group_of(config) == BUILTIN_GROUP {
            extra_read.extend(
                batch
                    .iter()
                    .filter_map(|c| c.get("openapi")?.get("path")?.as_str())
                    .map(PathBuf::from),
            );
            // Remote patch and generator files, fetched by the core into
            // the cache and handed over by path (KUSTOM_REMOTE_FILES).
            extra_read.extend(self.remote.file_paths());
        }
        if self.enable_helm && group_of(config) == BUILTIN_GROUP {
            // The builtin runs helm: its executable and directory, like a plugin's.
            if let Ok(helm) = which::which(&self.helm_command) {
                let helm = helm.canonicalize().unwrap_or(helm);
                extra_read.extend(helm.parent().map(Path::to_path_buf));
            }
        }
        let started = std::time::Instant::now();
        let sandbox = self.sandbox.prepare(&Subject {
            name: &name,
            exe: loc.path(),
            shipped,
            tree: dir,
            read_anywhere: self.load_restrictor == "LoadRestrictionsNone",
            extra_read,
        })?;
        tracing::debug!(plugin = %name, us = started.elapsed().as_micros() as u64, "sandbox prepared");
        Ok(Call {
            name,
            sha256,
            sandbox,
        })
    }

    /// The sha256 of an executable (computed once per build).
    fn digest(&self, path: &Path) -> Result<String, Error> {
        let mut cache = self.digests.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = cache.get(path) {
            return Ok(d.clone());
        }
        let d = crate::fetch::lock::file_sha256(path)?;
        cache.insert(path.to_path_buf(), d.clone());
        Ok(d)
    }

    /// Refuse a plugin whose digest is not the one `kustom.lock` pins.
    fn check_pin(&self, name: &str, path: &Path, sha256: &str) -> Result<(), Error> {
        if !matches!(self.lock.mode, LockMode::Enforce | LockMode::Locked) {
            return Ok(());
        }
        let lock = self
            .lock
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| crate::fetch::lock::LOCK_FILE.to_string());
        let root = self
            .lock
            .path
            .as_ref()
            .and_then(|p| p.parent())
            .map(|p| format!(" {}", p.display()))
            .unwrap_or_default();
        match self.lock.pinned.plugin(name) {
            Some(pin) if pin.sha256 == sha256 => Ok(()),
            Some(pin) => Err(Error::new(format!(
                "refusing to run {name} ({}): its sha256 is {sha256}, but {lock} pins sha256 {}: the plugin changed after it was locked; review the change, then run `kustom lock{root}` to accept it",
                path.display(),
                pin.sha256
            ))),
            None => Err(Error::new(format!(
                "refusing to run {name} ({}, sha256 {sha256}): {lock} pins no such plugin (pinned sha256: none); review it, then run `kustom lock{root}` to add it",
                path.display()
            ))),
        }
    }

    /// Write the audit line of a call (when `--audit-log` is on).
    fn audit_call(
        &self,
        call: &Call,
        site: &Site<'_>,
        configs: &[Value],
        before: Option<&[Doc]>,
        result: Result<&[Doc], &Error>,
    ) -> Result<(), Error> {
        let Some(log) = &self.audit else {
            return Ok(());
        };
        let (exit_status, duration) = call.sandbox.finished().unwrap_or_default();
        log.record(
            &CallRecord {
                protocol: site.protocol,
                plugin: &call.name,
                executable: site.path,
                sha256: &call.sha256,
                op: site.op,
                kustomization: site.kust_file,
                configs,
                policy: &call.sandbox.policy,
                duration,
                exit_status,
            },
            before,
            result,
        )
    }

    /// Locate the plugin of every config and group the calls: consecutive
    /// configs served by the same KEP (or shipped builtin) executable form
    /// one call; legacy plugins and KRM functions are called once per config,
    /// as kustomize does.
    fn plan<'c>(
        &self,
        configs: &'c [Value],
        dir: &Path,
        kust_file: &Path,
    ) -> Result<Vec<(Location, &'c [Value])>, Error> {
        let mut out: Vec<(Location, &'c [Value])> = Vec::new();
        let mut start = 0;
        for i in 0..configs.len() {
            let loc = self.locate(&configs[i], dir, kust_file)?;
            let joins = matches!(loc, Location::Kep(_) | Location::ShippedBuiltin(_))
                && out.last().is_some_and(|(prev, _)| *prev == loc)
                && group_of(&configs[i]) == group_of(&configs[start]);
            if joins {
                if let Some(last) = out.last_mut() {
                    last.1 = &configs[start..=i];
                }
            } else {
                start = i;
                out.push((loc, &configs[i..=i]));
            }
        }
        Ok(out)
    }

    fn args_for<'a>(&self, loc: &Location, subcommand: &'a str) -> Vec<&'a str> {
        match loc {
            Location::ShippedBuiltin(_) => vec!["builtin-plugin", subcommand],
            _ => vec![subcommand],
        }
    }

    /// Run one KEP call: the finished process, or `Ok(None)` when the
    /// plugin answered 127 (not supported).
    fn call(
        &self,
        loc: &Location,
        site: &Site<'_>,
        dir: &Path,
        stdin: Vec<u8>,
        generate_first: usize,
        sandbox: &CallSandbox,
    ) -> Result<Option<exec::Output>, Error> {
        CALLS.fetch_add(1, Ordering::Relaxed);
        let path = loc.path();
        tracing::debug!(plugin = %path.display(), protocol = site.protocol, kinds = %site.kinds, op = site.op, dir = %dir.display(), generate_first, "plugin call");
        let mut env = vec![
            (ENV_LOAD_RESTRICTOR, self.load_restrictor.clone()),
            (ENV_KUSTOMIZATION, site.kust_file.display().to_string()),
            (
                ENV_ENABLE_HELM,
                if self.enable_helm { "true" } else { "false" }.into(),
            ),
            (ENV_HELM_COMMAND, self.helm_command.clone()),
        ];
        env.extend(self.helm_overrides.env());
        // Private to the shipped builtin; always set there so that an
        // inherited value cannot change what a call means.
        if matches!(loc, Location::ShippedBuiltin(_)) {
            env.push((ENV_GENERATE_FIRST, generate_first.to_string()));
            if let Some(files) = self.remote.files_json() {
                env.push((crate::fetch::remote::ENV_REMOTE_FILES, files));
            }
        }
        let started = std::time::Instant::now();
        let out = exec::run(
            path,
            &self.args_for(loc, site.op),
            dir,
            &env,
            stdin,
            self.limits,
            sandbox,
        )
        .map_err(|e| e.context(site))?;
        tracing::debug!(
            plugin = %path.display(),
            op = site.op,
            dir = %dir.display(),
            ms = started.elapsed().as_millis() as u64,
            stdout_bytes = out.stdout.len(),
            "plugin call finished"
        );
        match out.status {
            Some(0) => Ok(Some(out)),
            Some(EXIT_UNSUPPORTED) => Ok(None),
            _ => Err(site.status_error(&out, "")),
        }
    }

    /// Run the generators `configs` (all of one kustomization, in order):
    /// one KEP call per run of consecutive configs of the same group, one
    /// call per config for legacy plugins and KRM functions.
    pub fn generate(
        &self,
        configs: &[Value],
        dir: &Path,
        kust_file: &Path,
    ) -> Result<Vec<Doc>, Error> {
        let mut out = Vec::new();
        for (loc, batch) in self.plan(configs, dir, kust_file)? {
            let first = &batch[0];
            let site = Site {
                protocol: loc.protocol(),
                path: loc.path(),
                api_version: resource::api_version(first),
                kind: resource::kind(first),
                kinds: kinds_of(batch),
                op: "generate",
                kust_file,
            };
            let call = self.begin(&loc, batch, dir)?;
            let result = self.generate_call(&loc, batch, dir, &site, &call.sandbox);
            self.audit_call(&call, &site, batch, None, result.as_deref())?;
            out.extend(result?);
        }
        Ok(out)
    }

    /// One generator call of [`Settings::generate`].
    fn generate_call(
        &self,
        loc: &Location,
        batch: &[Value],
        dir: &Path,
        site: &Site<'_>,
        sandbox: &CallSandbox,
    ) -> Result<Vec<Doc>, Error> {
        let first = &batch[0];
        let kust_file = site.kust_file;
        match loc {
            Location::Legacy(path) => {
                CALLS.fetch_add(1, Ordering::Relaxed);
                Ok(doc::from_owned_values(legacy::generate(
                    self, path, first, dir, site, sandbox,
                )?))
            }
            Location::Krm(spec) => {
                CALLS.fetch_add(1, Ordering::Relaxed);
                Ok(doc::from_owned_values(krm::generate(
                    self, spec, first, dir, site, sandbox,
                )?))
            }
            Location::Kep(_) | Location::ShippedBuiltin(_) => {
                let group = group_of(first);
                let stdin = encode(&group, batch, &[]);
                let Some(res) = self.call(loc, site, dir, stdin, 0, sandbox)? else {
                    return Err(Error::new(format!(
                        "{site} does not support `generate` (exit status 127), but {} lists it as a generator",
                        kust_file.display()
                    )));
                };
                if group == BUILTIN_GROUP {
                    return doc::read_stream(&res.stdout)
                        .map_err(|e| site.junk_error(&res, &e.message));
                }
                // Each document becomes a compact Doc as soon as it is read.
                let mut out = Vec::new();
                let mut wrote = None;
                protocol::for_each_in_stream(&res.stdout, |v| {
                    let docs = legacy::expand_lists(vec![v]).map_err(|why| {
                        wrote = Some(Error::new(format!("{site} wrote {why}")));
                        Error::new("")
                    })?;
                    for mut d in docs {
                        // KEP generators may use the legacy hash / behavior
                        // annotations too (they never see internal ones).
                        if resource::annotation(&d, protocol::LEGACY_NEEDS_HASH).is_some()
                            || resource::annotation(&d, protocol::LEGACY_BEHAVIOR).is_some()
                        {
                            legacy::apply_generator_options(std::slice::from_mut(&mut d)).map_err(
                                |e| {
                                    wrote = Some(e.context(site));
                                    Error::new("")
                                },
                            )?;
                        }
                        out.push(Doc::from_value(&d));
                    }
                    Ok(())
                })
                .map_err(|e| {
                    wrote
                        .take()
                        .unwrap_or_else(|| site.junk_error(&res, &e.message))
                })?;
                Ok(out)
            }
        }
    }

    /// Run the transformers `configs` over `resources`, one KEP call per run
    /// of consecutive configs of the same group, one call per config for
    /// legacy plugins and KRM functions. With `optional` (generators asked to
    /// transform, KEP only), a KEP plugin answering 127 leaves the resources
    /// unchanged, and legacy plugins and KRM functions are not called.
    pub fn transform(
        &self,
        configs: &[Value],
        resources: Vec<Doc>,
        dir: &Path,
        kust_file: &Path,
        optional: bool,
    ) -> Result<Vec<Doc>, Error> {
        self.transform_inner(configs, 0, resources, dir, kust_file, optional)
    }

    /// Whether [`Settings::generate_and_transform`] can run `generators`:
    /// all served by the shipped builtin, none merging into or replacing an
    /// existing resource (that merge is the core's).
    pub fn can_generate_in_transform(
        &self,
        generators: &[Value],
        dir: &Path,
        kust_file: &Path,
    ) -> Result<bool, Error> {
        for g in generators {
            if !matches!(self.locate(g, dir, kust_file)?, Location::ShippedBuiltin(_))
                || matches!(
                    g.get("behavior").and_then(Value::as_str),
                    Some("merge" | "replace")
                )
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Run builtin `generators` and then `transformers` in one call of the
    /// shipped builtin (see [`protocol::ENV_GENERATE_FIRST`]): the same
    /// result as generating, adding the new resources and transforming, one
    /// process fewer. Only for generators [`Settings::can_generate_in_transform`] accepts.
    pub fn generate_and_transform(
        &self,
        generators: &[Value],
        transformers: &[Value],
        resources: Vec<Doc>,
        dir: &Path,
        kust_file: &Path,
    ) -> Result<Vec<Doc>, Error> {
        let all: Vec<Value> = generators.iter().chain(transformers).cloned().collect();
        self.transform_inner(&all, generators.len(), resources, dir, kust_file, false)
    }

    /// [`Settings::transform`] where the first `generate_first` configs are
    /// builtin generators that the first (shipped builtin) call runs first.
    fn transform_inner(
        &self,
        configs: &[Value],
        mut generate_first: usize,
        mut resources: Vec<Doc>,
        dir: &Path,
        kust_file: &Path,
        optional: bool,
    ) -> Result<Vec<Doc>, Error> {
        for (loc, batch) in self.plan(configs, dir, kust_file)? {
            if optional && matches!(loc, Location::Legacy(_) | Location::Krm(_)) {
                continue;
            }
            let first = &batch[0];
            let site = Site {
                protocol: loc.protocol(),
                path: loc.path(),
                api_version: resource::api_version(first),
                kind: resource::kind(first),
                kinds: kinds_of(batch),
                op: "transform",
                kust_file,
            };
            let call = self.begin(&loc, batch, dir)?;
            // The shipped builtin's generators are consecutive configs of
            // it, so they all open the first call.
            debug_assert!(generate_first <= batch.len());
            let generators = std::mem::take(&mut generate_first).min(batch.len());
            let before = self.audit.as_ref().map(|_| resources.clone());
            let result = self.transform_call(
                &loc,
                batch,
                resources,
                dir,
                &site,
                optional,
                generators,
                &call.sandbox,
            );
            self.audit_call(&call, &site, batch, before.as_deref(), result.as_deref())?;
            resources = result?;
        }
        Ok(resources)
    }

    /// One transformer call of [`Settings::transform_inner`].
    #[allow(clippy::too_many_arguments)]
    fn transform_call(
        &self,
        loc: &Location,
        batch: &[Value],
        resources: Vec<Doc>,
        dir: &Path,
        site: &Site<'_>,
        optional: bool,
        generators: usize,
        sandbox: &CallSandbox,
    ) -> Result<Vec<Doc>, Error> {
        let first = &batch[0];
        Ok(match loc {
            Location::Legacy(path) => {
                CALLS.fetch_add(1, Ordering::Relaxed);
                let rs = doc::to_values(&resources);
                drop(resources);
                doc::from_owned_values(legacy::transform(
                    self, path, first, rs, dir, site, sandbox,
                )?)
            }
            Location::Krm(spec) => {
                CALLS.fetch_add(1, Ordering::Relaxed);
                let rs = doc::to_values(&resources);
                drop(resources);
                doc::from_owned_values(krm::transform(self, spec, first, rs, dir, site, sandbox)?)
            }
            // The shipped builtin keeps identities itself (it records
            // renames in the build annotations), so resources travel as
            // their JSON text both ways and are never parsed here.
            Location::ShippedBuiltin(_) => {
                let stdin = encode(BUILTIN_GROUP, batch, &resources);
                // Only a 127 answer needs the input back.
                let kept = if optional { resources } else { Vec::new() };
                match self.call(loc, site, dir, stdin, generators, sandbox)? {
                    Some(res) => doc::read_stream(&res.stdout)
                        .map_err(|e| site.junk_error(&res, &e.message))?,
                    None if optional => kept,
                    None => return Err(unsupported_transform(site)),
                }
            }
            Location::Kep(_) => {
                match self.transform_kep(loc, site, batch, &resources, dir, optional, sandbox)? {
                    Some(rs) => {
                        drop(resources);
                        doc::from_owned_values(rs)
                    }
                    None => resources,
                }
            }
        })
    }

    /// A transform call to a KEP plugin: resources are tagged with the id
    /// annotation and the output matched back by it. None: the plugin does
    /// not transform (127) and `optional` allows that.
    #[allow(clippy::too_many_arguments)]
    fn transform_kep(
        &self,
        loc: &Location,
        site: &Site<'_>,
        configs: &[Value],
        resources: &[Doc],
        dir: &Path,
        optional: bool,
        sandbox: &CallSandbox,
    ) -> Result<Option<Vec<Value>>, Error> {
        let group = group_of(&configs[0]);
        // Each resource is parsed, tagged and encoded in turn, so that only
        // the encoded stream is held besides the resources themselves.
        let mut before: Vec<ResId> = Vec::with_capacity(resources.len());
        let mut stdin = encode_values(&group, configs, &[]);
        for (i, d) in resources.iter().enumerate() {
            let mut r = d.value();
            resource::set_annotation(&mut r, ID_ANNOTATION, &i.to_string());
            before.push(ResId::of(&r));
            if !stdin.is_empty() {
                stdin.extend_from_slice(b"---\n");
            }
            stdin.extend_from_slice(&encode_values(&group, &[], std::slice::from_ref(&r)));
        }
        let res = match self.call(loc, site, dir, stdin, 0, sandbox)? {
            Some(res) => res,
            None if optional => return Ok(None),
            None => return Err(unsupported_transform(site)),
        };
        let out =
            protocol::read_stream(&res.stdout).map_err(|e| site.junk_error(&res, &e.message))?;
        let mut out =
            legacy::expand_lists(out).map_err(|why| Error::new(format!("{site} wrote {why}")))?;
        // A transformer that echoes its own configuration objects back (even
        // edited) has not made resources of them: an output without an id
        // that has a config's id is that config.
        let config_ids: Vec<ResId> = configs.iter().map(ResId::of).collect();
        out.retain(|r| {
            resource::annotation(r, ID_ANNOTATION).is_some()
                || !config_ids.iter().any(|c| c.equals(&ResId::of(r)))
        });
        // Where each output came from, to name both sides of an id clash.
        let mut sources: Vec<Option<&ResId>> = Vec::with_capacity(out.len());
        for r in &mut out {
            let id = resource::remove_annotation(r, ID_ANNOTATION)
                .and_then(|v| v.as_str().and_then(|s| s.parse::<usize>().ok()));
            sources.push(id.and_then(|i| before.get(i)));
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
        check_unique_ids(site, &out, &sources)?;
        Ok(Some(out))
    }
}

/// Two resources a transformer returns may not share an id (kustomize's
/// resource map refuses that too): name the plugin and both resources.
fn check_unique_ids(
    site: &Site<'_>,
    out: &[Value],
    sources: &[Option<&ResId>],
) -> Result<(), Error> {
    let mut seen: std::collections::HashMap<(ResId, String), usize> =
        std::collections::HashMap::with_capacity(out.len());
    let describe = |i: usize| match sources[i] {
        Some(old) if old.equals(&ResId::of(&out[i])) => format!("input resource {old}"),
        Some(old) => format!("input resource {old} (renamed)"),
        None => "a new resource".to_string(),
    };
    for (i, r) in out.iter().enumerate() {
        let id = ResId::of(r);
        let ns = id.effective_namespace().to_string();
        let key = (
            ResId {
                namespace: String::new(),
                ..id.clone()
            },
            ns,
        );
        if let Some(&j) = seen.get(&key) {
            return Err(Error::new(format!(
                "{site} returned two resources with the same id {id}: {} and {}; a transformer must keep resource ids unique (merge them, or give one another name)",
                describe(j),
                describe(i)
            )));
        }
        seen.insert(key, i);
    }
    Ok(())
}

fn unsupported_transform(site: &Site<'_>) -> Error {
    Error::new(format!(
        "{site} does not support `transform` (exit status 127), but {} lists it as a transformer",
        site.kust_file.display()
    ))
}

/// Encode configs and resources for a KEP call: compact JSON for the
/// builtin group (cheap, and valid YAML), readable YAML for everyone else.
fn encode(group: &str, configs: &[Value], resources: &[Doc]) -> Vec<u8> {
    if group == BUILTIN_GROUP {
        doc::write_json_stream(configs, resources)
    } else {
        encode_values(group, configs, &doc::to_values(resources))
    }
}

/// [`encode`] for parsed resources.
fn encode_values(group: &str, configs: &[Value], resources: &[Value]) -> Vec<u8> {
    if group == BUILTIN_GROUP {
        let all: Vec<Value> = configs.iter().chain(resources).cloned().collect();
        protocol::write_json_stream(&all)
    } else {
        let mut out = String::new();
        for (i, v) in configs.iter().chain(resources).enumerate() {
            if i > 0 {
                out.push_str("---\n");
            }
            yaml::write_yaml(&mut out, v);
        }
        out.into_bytes()
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

/// A plugin's name as `kustom.lock` and the policy file write it (see
/// [`crate::fetch::lock`]).
pub fn plugin_name(loc: &Location, config: &Value) -> String {
    match loc {
        Location::Kep(_) if group_of(config) == BUILTIN_GROUP => "builtin override".into(),
        Location::Kep(_) => format!("KEP {}", group_of(config)),
        Location::Legacy(_) => {
            let gvk = Gvk::from_api_version(resource::api_version(config), resource::kind(config));
            let parts: Vec<&str> = [gvk.group.as_str(), gvk.version.as_str(), gvk.kind.as_str()]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect();
            format!("legacy {}", parts.join("/"))
        }
        Location::Krm(spec) => format!("KRM {}", spec.written),
        Location::ShippedBuiltin(_) => "builtin (shipped)".into(),
    }
}

/// Refuse a config whose apiVersion or kind could steer the plugin lookup
/// out of the plugin directories: the group, version and kind become path
/// components, so each must be a plain name (letters, digits, `.`, `-`,
/// `_`; not `.` or `..`, no `..` inside a group).
fn check_lookup_names(config: &Value, kust_file: &Path) -> Result<(), Error> {
    let av = resource::api_version(config);
    let kind = resource::kind(config);
    let gvk = Gvk::from_api_version(av, kind);
    let plain = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
            && !s.starts_with('.')
            && !s.contains("..")
    };
    let bad = [
        (
            "group",
            gvk.group.as_str(),
            gvk.group.is_empty() || plain(&gvk.group),
        ),
        ("version", gvk.version.as_str(), plain(&gvk.version)),
        ("kind", kind, plain(kind)),
    ]
    .into_iter()
    .find(|(_, _, ok)| !ok);
    match bad {
        None => Ok(()),
        Some((what, value, _)) => Err(Error::new(format!(
            "apiVersion {av:?} kind {kind:?} (listed in {}): the {what} {value:?} is not a plain name (letters, digits, '.', '-', '_'; no '..' or '/'); kustom refuses it because plugin lookup turns it into a path",
            kust_file.display()
        ))),
    }
}

/// Whether `p` is a regular file with an executable bit set.
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The kinds of a batch of config objects, in order (`A, B, A`).
fn kinds_of(batch: &[Value]) -> String {
    batch
        .iter()
        .map(resource::kind)
        .collect::<Vec<_>>()
        .join(", ")
}
