//! How one plugin call runs: its pin in `kustom.lock`, its sandbox, the
//! process, the audit record, and the errors that name where it came from.

use super::exec;
use super::lookup::{group_of, plugin_name, Location};
use super::sandbox::{CallSandbox, Subject};
use super::settings::{Settings, BUILTIN_GROUP, CALLS, EXIT_UNSUPPORTED};
use super::site::Site;
use crate::fetch::lock::{LockMode, PluginPin};
use crate::plugin_host::audit::CallRecord;
use kustom_api::doc::Doc;
use kustom_api::protocol::{
    ENV_ENABLE_HELM, ENV_GENERATE_FIRST, ENV_HELM_COMMAND, ENV_KUSTOMIZATION, ENV_LOAD_RESTRICTOR,
};
use kustom_api::{Error, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// The API group of Helm chart generator plugins (the KEP's `Chart` kind).
const HELM_PLUGIN_GROUP: &str = "helm.kustomize.io";

/// One plugin call about to run: its name, digest and sandbox.
#[derive(Debug)]
pub(super) struct Call {
    pub(super) name: String,
    pub(super) sha256: String,
    pub(super) sandbox: CallSandbox,
    /// A container function's image as written (its digest is `sha256`).
    pub(super) image: Option<String>,
    /// Run by the fork server (the shipped builtin, starting no process),
    /// not exec'd.
    pub(super) forked: bool,
}

pub(super) fn unsupported_transform(site: &Site<'_>) -> Error {
    Error::new(format!(
        "{site} does not support `transform` (exit status 127), but {} lists it as a transformer",
        site.kust_file.display()
    ))
}

impl Settings {
    /// Prepare a call: the plugin's name, its digest checked against
    /// `kustom.lock` (and recorded), and its sandbox.
    pub(super) fn begin(&self, loc: &Location, batch: &[Value], dir: &Path) -> Result<Call, Error> {
        let config = &batch[0];
        let name = plugin_name(loc, config);
        if let Location::Container(spec) = loc {
            let digest = super::container::image_digest(self, spec)?;
            super::container::check_and_record_pin(self, &name, spec, &digest)?;
            return Ok(Call {
                sandbox: super::container::runtime_sandbox(&name, spec, dir)?,
                name,
                sha256: digest,
                image: Some(spec.image.clone()),
                forked: false,
            });
        }
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
        // The builtin with --enable-helm, and the Helm generator plugins of
        // group helm.kustomize.io (kustom-helm), run the helm the build names.
        let runs_helm = match group_of(config).as_str() {
            BUILTIN_GROUP => self.enable_helm,
            group => group == HELM_PLUGIN_GROUP,
        };
        if runs_helm {
            // The builtin runs helm: its executable's directory, and where
            // it is installed (a front end in a virtualenv under $HOME).
            if let Ok(helm) = which::which(&self.helm_command) {
                let helm = helm.canonicalize().unwrap_or(helm);
                extra_read.extend(helm.parent().map(Path::to_path_buf));
                extra_read.extend(crate::plugin_host::sandbox::interpreter::installation(
                    &helm,
                ));
            }
        }
        // The forked builtin writes nothing and starts nothing; a call that
        // runs helm is exec'd with a private TMPDIR.
        let forked = shipped && !runs_helm && exec::fork_server::running();
        let started = std::time::Instant::now();
        let sandbox = self.sandbox.prepare(&Subject {
            name: &name,
            exe: loc.path(),
            shipped,
            tree: dir,
            read_anywhere: self.load_restrictor == "LoadRestrictionsNone",
            extra_read,
            private_dir: !forked,
        })?;
        tracing::debug!(plugin = %name, us = started.elapsed().as_micros() as u64, "sandbox prepared");
        Ok(Call {
            name,
            sha256,
            sandbox,
            image: None,
            forked,
        })
    }

    /// The sha256 of an executable (computed once per build).
    pub(super) fn digest(&self, path: &Path) -> Result<String, Error> {
        let mut cache = self.digests.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = cache.get(path) {
            return Ok(d.clone());
        }
        let d = crate::fetch::lock::file_sha256(path)?;
        cache.insert(path.to_path_buf(), d.clone());
        Ok(d)
    }

    /// Refuse a plugin whose digest is not the one `kustom.lock` pins.
    pub(super) fn check_pin(&self, name: &str, path: &Path, sha256: &str) -> Result<(), Error> {
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
        if let Some(message) = self.lock.missing_file_error(&format!(
            "plugin {name} ({}, sha256 {sha256})",
            path.display()
        )) {
            return Err(Error::new(message));
        }
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
    pub(super) fn audit_call(
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
                image: call.image.as_deref(),
            },
            before,
            result,
        )
    }

    pub(super) fn args_for<'a>(&self, loc: &Location, subcommand: &'a str) -> Vec<&'a str> {
        match loc {
            Location::ShippedBuiltin(_) => vec!["builtin-plugin", subcommand],
            _ => vec![subcommand],
        }
    }

    /// Run one KEP call: the finished process, or `Ok(None)` when the
    /// plugin answered 127 (not supported).
    pub(super) fn call(
        &self,
        loc: &Location,
        site: &Site<'_>,
        dir: &Path,
        mut stdin: Vec<u8>,
        generate_first: usize,
        call: &Call,
    ) -> Result<Option<exec::Output>, Error> {
        let sandbox = &call.sandbox;
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
            (
                kustom_api::kustomize_version::ENV,
                self.kustomize_version.env_value().into(),
            ),
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
        let forked = if call.forked {
            exec::run_builtin(site.op, dir, &env, &mut stdin, self.limits, sandbox)
                .map_err(|e| e.context(site))?
        } else {
            None
        };
        let out = match forked {
            Some(out) => out,
            None => exec::run(
                path,
                &self.args_for(loc, site.op),
                dir,
                &env,
                stdin,
                self.limits,
                sandbox,
            )
            .map_err(|e| e.context(site))?,
        };
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
}
