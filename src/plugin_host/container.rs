//! Container KRM functions: a config object whose function annotation names
//! an image, run through the `docker` CLI or `podman` as kustomize v5.5.0
//! runs it (kyaml's container runtime):
//!
//! ```yaml
//! metadata:
//!   annotations:
//!     config.kubernetes.io/function: |
//!       container:
//!         image: example.com/set-team:v1
//!         network: true          # needs --network
//!         mounts:                # relative to the kustomization, inside it
//!         - {type: bind, src: ./data, dst: /data}   # read-only unless rw: true
//!         envs: [MODE=strict, TOKEN]                # TOKEN: the host's value
//! ```
//!
//! The older forms kustomize accepts work too: the `config.k8s.io/function`
//! annotation, `metadata.configFn`, and `config.kubernetes.io/container:
//! IMAGE`. The function gets the `ResourceList` text kustomize writes (see
//! [`resource_list`]) and runs as kustomize runs it: `run --rm -i` with the
//! network `none` unless the function declares `network: true` and the
//! build grants `--network`, as user `nobody` (or `--as-current-user`),
//! with `--security-opt=no-new-privileges`, mounts read-only unless `rw`,
//! and the same environment flags. Two differences, both invisible to the
//! function: the container is named (so that a timed-out run can be
//! removed), and it runs the image by the id kustom resolved, checked
//! against `kustom.lock`, so that a tag moved between check and run cannot
//! slip in.
//!
//! kustomize records a function's `results` and otherwise ignores them;
//! so does kustom for container functions (they are printed to STDERR), so
//! that the output stays the same.

pub use super::container_settings::{ContainerSettings, ENV_CONTAINER_RUNTIME};
use super::exchange::{
    apply_generator_options, expand_lists, merge_by_current_id, LEGACY_ID_ANNOTATION,
};
use super::exec;
use super::krm::{parse_output, KIO_ANNOTATIONS};
use super::sandbox::{CallSandbox, Sandbox, Subject};
use super::{Settings, Site};
use crate::fetch::lock::{LockMode, PluginPin};
use kustom_api::protocol::LOCAL_CONFIG;
use kustom_api::{resource, yaml, Error, ResId, Value};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The network a granted function joins: kustomize v5.5.0 always uses the
/// host's (its `--network-name` flag is parsed but never used).
pub const GRANTED_NETWORK: &str = "host";

impl ContainerSettings {
    /// The runtime executable: the configured one, else `docker`, else
    /// `podman` from `$PATH` (kustomize runs `docker`).
    pub fn runtime_path(&self) -> Result<PathBuf, Error> {
        if let Some(r) = &self.runtime {
            return which::which(r).map_err(|e| {
                Error::new(format!(
                    "container runtime {r:?} (--container-runtime or ${ENV_CONTAINER_RUNTIME}): not found ({e}); install docker or podman, or name one on $PATH"
                ))
            });
        }
        for r in ["docker", "podman"] {
            if let Ok(p) = which::which(r) {
                return Ok(p);
            }
        }
        Err(Error::new(format!(
            "running a container function needs docker or podman on $PATH (neither was found); install one, or name it with --container-runtime / ${ENV_CONTAINER_RUNTIME}"
        )))
    }
}

/// One storage mount (kustomize's `StorageMount`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageMount {
    /// `bind`, `volume`, `tmpfs`.
    pub mount_type: String,
    /// Source: a host path (relative ones are relative to the kustomization).
    pub src: String,
    /// Target inside the container.
    pub dst: String,
    /// Read-write (`rw: true`); read-only otherwise.
    pub rw: bool,
}

impl StorageMount {
    /// kustomize's `--mount` syntax: `type=bind,src=PATH,dst=PATH[,rw=true]`
    /// (`source`/`target` also accepted; unknown options ignored, as kustomize does).
    pub fn parse_flag(s: &str) -> StorageMount {
        let mut m = StorageMount {
            mount_type: String::new(),
            src: String::new(),
            dst: String::new(),
            rw: false,
        };
        for option in s.split(',') {
            if let Some((k, v)) = option.split_once('=') {
                match k {
                    "type" => m.mount_type = v.to_string(),
                    "src" | "source" => m.src = v.to_string(),
                    "dst" | "target" => m.dst = v.to_string(),
                    "rw" if v == "true" => m.rw = true,
                    _ => {}
                }
            }
        }
        m
    }

    /// The runtime's `--mount` value, relative sources made absolute
    /// against `dir` (as kustomize does).
    fn flag(&self, dir: &Path) -> String {
        let src = if Path::new(&self.src).is_absolute() {
            self.src.clone()
        } else {
            clean(&dir.join(&self.src)).display().to_string()
        };
        format!(
            "type={},source={},target={}{}",
            self.mount_type,
            src,
            self.dst,
            if self.rw { "" } else { ",readonly" }
        )
    }
}

/// A path with `.` removed and `..` applied lexically (Go's `filepath.Clean`).
fn clean(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// How to run one container function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerSpec {
    /// The image as the config names it.
    pub image: String,
    /// `network: true`.
    pub network: bool,
    /// `mounts`.
    pub mounts: Vec<StorageMount>,
    /// `envs`: `KEY=VALUE`, or `KEY` for the host's value.
    pub envs: Vec<String>,
    /// The runtime executable (docker or podman).
    pub runtime: PathBuf,
}

/// The container function a config object names, if any. `root_only`: a
/// mount source must resolve (symlinks followed) inside the kustomization's
/// directory.
pub fn container_spec(
    settings: &Settings,
    config: &Value,
    dir: &Path,
    root_only: bool,
) -> Result<Option<ContainerSpec>, Error> {
    let Some((key, raw)) = super::krm::raw_function_spec(config)? else {
        return Ok(None);
    };
    let (image, network, mounts, envs) = if key == super::krm::CONTAINER_ANNOTATION {
        let image = raw.as_str().unwrap_or_default().to_string();
        (image, false, Vec::new(), Vec::new())
    } else {
        if let Some(top) = raw.as_object() {
            for k in top.keys() {
                if !["deferFailure", "container", "exec"].contains(&k.as_str()) {
                    return Err(Error::new(format!(
                        "{key} unmarshal error: unknown field {k:?} (known: deferFailure, container, exec)"
                    )));
                }
            }
        }
        let Some(container) = raw.get("container").filter(|c| !c.is_null()) else {
            return Ok(None);
        };
        let Some(c) = container.as_object() else {
            return Err(Error::new(format!(
                "{key}: `container` must be a mapping (got {container})"
            )));
        };
        for k in c.keys() {
            if !["image", "network", "mounts", "envs"].contains(&k.as_str()) {
                return Err(Error::new(format!(
                    "{key} unmarshal error: unknown field {k:?} in `container` (known: image, network, mounts, envs)"
                )));
            }
        }
        let image = match c.get("image") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(Error::new(format!(
                    "{key}: container.image must be a string (got {other})"
                )))
            }
        };
        let network = match c.get("network") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(Error::new(format!(
                    "{key}: container.network must be true or false (got {other})"
                )))
            }
        };
        let envs = match c.get("envs") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(Error::new(format!(
                        "{key}: container.envs entries must be strings (got {other})"
                    ))),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(Error::new(format!(
                    "{key}: container.envs must be a list of KEY=VALUE or KEY (got {other})"
                )))
            }
        };
        let mounts = match c.get("mounts") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|m| parse_mount(&key, m))
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(Error::new(format!(
                    "{key}: container.mounts must be a list (got {other})"
                )))
            }
        };
        (image, network, mounts, envs)
    };
    if image.is_empty() {
        return Ok(None);
    }
    for m in &mounts {
        check_mount(config, m, dir, root_only, settings.kustomize_version)?;
    }
    if network && !settings.container.network {
        return Err(Error::new(format!(
            "container function {image:?}: network required but not enabled with --network (the function declares `network: true`; add --network to grant it)"
        )));
    }
    Ok(Some(ContainerSpec {
        image,
        network,
        mounts,
        envs,
        runtime: settings.container.runtime_path()?,
    }))
}

fn parse_mount(key: &str, m: &Value) -> Result<StorageMount, Error> {
    let Some(obj) = m.as_object() else {
        return Err(Error::new(format!(
            "{key}: each container.mounts entry is a mapping with type, src, dst and rw (got {m})"
        )));
    };
    let mut out = StorageMount {
        mount_type: String::new(),
        src: String::new(),
        dst: String::new(),
        rw: false,
    };
    for (k, v) in obj {
        let text = || match v {
            Value::String(s) => Ok(s.clone()),
            Value::Null => Ok(String::new()),
            other => Err(Error::new(format!(
                "{key}: container.mounts {k} must be a string (got {other})"
            ))),
        };
        match k.as_str() {
            "type" => out.mount_type = text()?,
            "src" => out.src = text()?,
            "dst" => out.dst = text()?,
            "rw" => {
                out.rw = match v {
                    Value::Bool(b) => *b,
                    Value::Null => false,
                    other => {
                        return Err(Error::new(format!(
                            "{key}: container.mounts rw must be true or false (got {other})"
                        )))
                    }
                }
            }
            other => {
                return Err(Error::new(format!(
                    "{key} unmarshal error: unknown field {other:?} in a mount (known: type, src, dst, rw)"
                )))
            }
        }
    }
    Ok(out)
}

/// A function's own mounts must stay inside its kustomization (kustomize
/// checks the path as written; kustom also follows symlinks under the
/// default load restrictor).
fn check_mount(
    config: &Value,
    m: &StorageMount,
    dir: &Path,
    root_only: bool,
    version: kustom_api::KustomizeVersion,
) -> Result<(), Error> {
    let id = ResId::of(config);
    let src = Path::new(&m.src);
    if src.is_absolute() {
        return Err(Error::new(format!(
            "plugin {id} with mount path '{}' is not permitted; mount paths must be relative to the current kustomization directory",
            m.src
        )));
    }
    let cleaned = clean(src);
    // kustomize v5.8.0 refuses any cleaned path whose text starts with
    // `..` (`..data` too); v5.5.0 refused `../…` only, and so lets `..`
    // itself through, which kustom refuses in both modes.
    let escapes = cleaned.starts_with("..")
        || (version.is_5_8() && cleaned.to_string_lossy().starts_with(".."));
    if escapes {
        return Err(Error::new(format!(
            "plugin {id} with mount path '{}' is not permitted; mount paths must be under the current kustomization directory",
            m.src
        )));
    }
    if root_only && m.mount_type == "bind" {
        let joined = dir.join(&cleaned);
        if let (Ok(real), Ok(root)) = (joined.canonicalize(), dir.canonicalize()) {
            if !real.starts_with(&root) {
                return Err(Error::new(format!(
                    "plugin {id} with mount path '{}' is not permitted: it resolves to {}, outside the kustomization directory {} (--load-restrictor LoadRestrictionsNone lifts this)",
                    m.src,
                    real.display(),
                    root.display()
                )));
            }
        }
    }
    Ok(())
}

/// The plugin name of a container function, as `kustom.lock` records it.
pub fn plugin_name(spec: &ContainerSpec) -> String {
    format!("container {}", spec.image)
}

/// The image's id (sha256 hex of its configuration, what `inspect` reports
/// as `Id`), pulled first when absent and not `--offline`. Resolved once per
/// image per build.
pub fn image_digest(settings: &Settings, spec: &ContainerSpec) -> Result<String, Error> {
    let c = &settings.container;
    if let Some(d) = c
        .digests
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&spec.image)
    {
        return Ok(d.clone());
    }
    let inspect = || -> Result<Result<String, String>, Error> {
        let out = crate::processes::output(
            std::process::Command::new(&spec.runtime)
                .args(["image", "inspect", "--format", "{{.Id}}", &spec.image])
                .stdin(std::process::Stdio::null()),
        )
        .map_err(|e| {
            Error::new(format!(
                "cannot run {} to inspect image {:?}: {e}",
                spec.runtime.display(),
                spec.image
            ))
        })?;
        let text = String::from_utf8_lossy(&out.stdout);
        let id = text.trim().trim_start_matches("sha256:").to_string();
        if out.status.success() && id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Ok(id))
        } else {
            Ok(Err(String::from_utf8_lossy(&out.stderr).trim().to_string()))
        }
    };
    let id = match inspect()? {
        Ok(id) => id,
        Err(why) if c.offline => {
            return Err(Error::new(format!(
                "container image {:?} is not present in {}'s image store and --offline forbids pulling it ({why}); pull it first, or build without --offline",
                spec.image,
                spec.runtime.display()
            )))
        }
        Err(_) => {
            tracing::debug!(image = %spec.image, "pulling container image");
            let out = crate::processes::output(
                std::process::Command::new(&spec.runtime)
                    .args(["pull", &spec.image])
                    .stdin(std::process::Stdio::null()),
            )
            .map_err(|e| {
                    Error::new(format!("cannot run {}: {e}", spec.runtime.display()))
                })?;
            if !out.status.success() {
                return Err(Error::new(format!(
                    "container image {:?}: not present, and `{} pull` failed{}",
                    spec.image,
                    spec.runtime.display(),
                    exec::stderr_tail(&out.stderr)
                )));
            }
            inspect()?.map_err(|why| {
                Error::new(format!(
                    "container image {:?}: pulled, but `{} image inspect` failed: {why}",
                    spec.image,
                    spec.runtime.display()
                ))
            })?
        }
    };
    c.digests
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(spec.image.clone(), id.clone());
    Ok(id)
}

/// Check the image's digest against `kustom.lock` and record it.
pub fn check_and_record_pin(
    settings: &Settings,
    name: &str,
    spec: &ContainerSpec,
    digest: &str,
) -> Result<(), Error> {
    let lock = &settings.lock;
    if matches!(lock.mode, LockMode::Enforce | LockMode::Locked) {
        let file = lock
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| crate::fetch::lock::LOCK_FILE.to_string());
        let root = lock
            .path
            .as_ref()
            .and_then(|p| p.parent())
            .map(|p| format!(" {}", p.display()))
            .unwrap_or_default();
        match lock.pinned.plugin(name) {
            Some(pin) if pin.sha256 == digest => {}
            Some(pin) => {
                return Err(Error::new(format!(
                    "refusing to run container function {:?}: the image now has digest sha256:{digest}, but {file} pins sha256:{}: the tag was moved to another image (retagged or rebuilt) after it was locked; review the new image, then run `kustom lock{root}` to accept it",
                    spec.image, pin.sha256
                )))
            }
            None => {
                return Err(Error::new(format!(
                    "refusing to run container function {:?} (digest sha256:{digest}): {file} pins no such image (pinned digest: none); review it, then run `kustom lock{root}` to add it",
                    spec.image
                )))
            }
        }
    }
    lock.record_plugin(PluginPin {
        plugin: name.to_string(),
        sha256: digest.to_string(),
    });
    Ok(())
}

/// The process sandbox of a container call: the runtime CLI runs with
/// kustom's rights (the container is the confinement), under
/// [`supervise`].
pub fn runtime_sandbox(name: &str, spec: &ContainerSpec, dir: &Path) -> Result<CallSandbox, Error> {
    let unconfined = Sandbox {
        enabled: false,
        memory_limit: None,
        ..Sandbox::default()
    };
    unconfined.prepare(&Subject {
        name,
        exe: &spec.runtime,
        shipped: false,
        tree: dir,
        read_anywhere: false,
        extra_read: Vec::new(),
        private_dir: true,
    })
}

/// The hidden `kustom` subcommand that runs a container runtime for a call.
pub const SUPERVISE_SUBCOMMAND: &str = "container-supervise";

/// `kustom container-supervise RUNTIME ARGS…`: run the runtime and wait
/// for every process it leaves behind. podman's helpers (conmon and its
/// `podman container cleanup`) daemonise and outlive `podman run` by a few
/// milliseconds; as a child subreaper this process inherits them and
/// reaps them, so that the plugin call ends only when they have (kustom
/// fails a plugin that leaves processes running). Exits with the
/// runtime's status.
pub fn supervise(args: &[std::ffi::OsString]) -> i32 {
    use std::time::{Duration, Instant};
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
    let Some((program, rest)) = args.split_first() else {
        eprintln!("usage: kustom {SUPERVISE_SUBCOMMAND} RUNTIME [ARGS…]");
        return 2;
    };
    let status = match std::process::Command::new(program).args(rest).status() {
        Ok(st) => st,
        Err(e) => {
            eprintln!("cannot start {}: {e}", Path::new(program).display());
            return 127;
        }
    };
    // Reap what the runtime left; give it a while, then end it.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut st = 0;
        // SAFETY: waitpid on our own children.
        let pid = unsafe { libc::waitpid(-1, &mut st, libc::WNOHANG) };
        if pid > 0 {
            continue;
        }
        if pid < 0 {
            break; // no children left
        }
        if Instant::now() > deadline {
            // SAFETY: signalling our whole process group, then ourselves
            // exiting; the caller sweeps whatever escaped it.
            unsafe {
                libc::kill(0, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    status.code().unwrap_or(128 + 9)
}

/// Names containers uniquely within this process.
static RUNS: AtomicUsize = AtomicUsize::new(0);

/// The runtime's arguments for one run, in kustomize's order.
fn run_args(
    settings: &Settings,
    spec: &ContainerSpec,
    digest: &str,
    dir: &Path,
    name: &str,
) -> Vec<String> {
    let c = &settings.container;
    let network = if spec.network && c.network {
        c.network_name
            .clone()
            .unwrap_or_else(|| GRANTED_NETWORK.to_string())
    } else {
        "none".to_string()
    };
    let user = if c.as_current_user {
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        format!("{uid}:{gid}")
    } else {
        "nobody".to_string()
    };
    let mut args: Vec<String> = [
        "run",
        "--rm",
        "-i",
        "-a",
        "STDIN",
        "-a",
        "STDOUT",
        "-a",
        "STDERR",
        "--network",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(network);
    args.push("--user".into());
    args.push(user);
    args.push("--security-opt=no-new-privileges".into());
    args.push("--name".into());
    args.push(name.to_string());
    let flag_mounts = c.mounts.iter().map(|m| StorageMount::parse_flag(m));
    for m in spec.mounts.iter().cloned().chain(flag_mounts) {
        args.push("--mount".into());
        args.push(m.flag(dir));
    }
    args.extend(env_flags(&spec.envs, &settings.exec_env));
    args.push(digest.to_string());
    args
}

/// kustomize's environment flags: the function's `envs` merged with
/// `--env` (the flag wins), `KEY=VALUE` pairs sorted by key with the
/// defaults `LOG_TO_STDERR=true` and `STRUCTURED_RESULTS=true`, then the
/// bare `KEY`s (the host's value) in order.
pub fn env_flags(declared: &[String], flags: &[String]) -> Vec<String> {
    let mut pairs: std::collections::BTreeMap<String, String> = [
        ("LOG_TO_STDERR".to_string(), "true".to_string()),
        ("STRUCTURED_RESULTS".to_string(), "true".to_string()),
    ]
    .into_iter()
    .collect();
    let mut keys: Vec<String> = Vec::new();
    for e in declared.iter().chain(flags) {
        match e.split_once('=') {
            Some((k, v)) => {
                pairs.insert(k.to_string(), v.to_string());
            }
            None => {
                if !keys.contains(e) {
                    keys.push(e.clone());
                }
            }
        }
    }
    let mut out = Vec::new();
    for (k, v) in pairs {
        out.push("-e".to_string());
        out.push(format!("{k}={v}"));
    }
    for k in keys {
        out.push("-e".to_string());
        out.push(k);
    }
    out
}

/// Set annotations on a document's text as kyaml's `SetAnnotation` does on
/// a parsed copy: an existing key keeps its place and gets the new value, a
/// new one goes after the others (`annotations:` and `metadata:` are added
/// at the end of their parent when missing). Values are written as go-yaml
/// v3 writes a new string: single-quoted when they would read as something
/// else.
fn set_annotations(text: &str, set: &[(&str, &str)]) -> String {
    let entry = |k: &str, v: &str| format!("    {k}: {}\n", v3_string(v));
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    let indent_of = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let is_blank = |l: &str| l.trim().is_empty();
    let meta = lines
        .iter()
        .position(|l| l == "metadata:\n" || l == "metadata: {}\n");
    let Some(meta) = meta else {
        let mut out = text.to_string();
        out.push_str("metadata:\n  annotations:\n");
        for (k, v) in set {
            out.push_str(&entry(k, v));
        }
        return out;
    };
    if lines[meta] == "metadata: {}\n" {
        lines[meta] = "metadata:\n".into();
    }
    let meta_end = (meta + 1..lines.len())
        .find(|&i| !is_blank(&lines[i]) && indent_of(&lines[i]) == 0)
        .unwrap_or(lines.len());
    let ann = (meta + 1..meta_end)
        .find(|&i| lines[i] == "  annotations:\n" || lines[i] == "  annotations: {}\n");
    let Some(ann) = ann else {
        let mut block = String::from("  annotations:\n");
        for (k, v) in set {
            block.push_str(&entry(k, v));
        }
        lines.insert(meta_end, block);
        return lines.concat();
    };
    if lines[ann] == "  annotations: {}\n" {
        lines[ann] = "  annotations:\n".into();
    }
    for (k, v) in set {
        let end = (ann + 1..lines.len())
            .find(|&i| !is_blank(&lines[i]) && indent_of(&lines[i]) <= 2)
            .unwrap_or(lines.len());
        let prefix = format!("    {k}:");
        let found = (ann + 1..end).find(|&i| {
            lines[i].starts_with(&prefix)
                && matches!(lines[i].as_bytes().get(prefix.len()), Some(b' ' | b'\n'))
        });
        match found {
            Some(i) => {
                // The entry's continuation lines (a block scalar) go too.
                let next = (i + 1..end)
                    .find(|&j| !is_blank(&lines[j]) && indent_of(&lines[j]) <= 4)
                    .unwrap_or(end);
                lines.splice(i..next, [entry(k, v)]);
            }
            None => lines.insert(end, entry(k, v)),
        }
    }
    lines.concat()
}

/// A new string scalar as go-yaml v3 writes it: plain unless it would read
/// as another type (or is empty), then single-quoted.
fn v3_string(v: &str) -> String {
    let plain = !v.is_empty()
        && matches!(yaml::plain_scalar_value(v), Value::String(_))
        && !v.starts_with(|c: char| " -?:,[]{}#&*!|>'\"%@`".contains(c))
        && !v.contains(": ")
        && !v.contains(" #")
        && !v.ends_with([' ', ':']);
    if plain {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\'', "''"))
    }
}

/// Indent a document's text under a key or sequence entry: `first` on the
/// first line, `rest` on every other non-empty line.
fn indented(text: &str, first: &str, rest: &str, out: &mut String) {
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i == 0 {
            out.push_str(first);
        } else if line != "\n" {
            out.push_str(rest);
        }
        out.push_str(line);
    }
}

/// The `ResourceList` text kustomize v5.5.0 hands a function: each item is
/// the resource as kustomize prints it (keys sorted) re-emitted by kyaml
/// without line folding ([`yaml::to_yaml_unfolded`]; a generator's item is
/// [`function_config_text`]), with kyaml's reader annotations appended (index,
/// annotations-migration id, ids); `functionConfig` is the config object
/// with `config.kubernetes.io/local-config: 'true'`.
pub fn resource_list(function_config: &Value, items: &[String]) -> String {
    let mut out = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n");
    if items.is_empty() {
        out.push_str("items: []\n");
    } else {
        out.push_str("items:\n");
    }
    for (i, item) in items.iter().enumerate() {
        let index = i.to_string();
        let id = (i + 1).to_string();
        let text = set_annotations(
            item,
            &[
                ("config.kubernetes.io/index", &index),
                ("internal.config.kubernetes.io/index", &index),
                (
                    "internal.config.kubernetes.io/annotations-migration-resource-id",
                    &index,
                ),
                ("internal.config.kubernetes.io/id", &id),
                ("config.k8s.io/id", &id),
            ],
        );
        indented(&text, "- ", "  ", &mut out);
    }
    out.push_str("functionConfig:\n");
    indented(&function_config_text(function_config), "  ", "  ", &mut out);
    out
}

/// The function config as kustomize hands it over: printed, with the
/// local-config annotation set.
fn function_config_text(config: &Value) -> String {
    set_annotations(&yaml::to_yaml_unfolded(config), &[(LOCAL_CONFIG, "true")])
}

/// Run the container once over `items`; the items it gives back.
#[allow(clippy::too_many_arguments)]
fn invoke(
    settings: &Settings,
    spec: &ContainerSpec,
    digest: &str,
    config: &Value,
    items: &[String],
    dir: &Path,
    site: &Site<'_>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let stdin = resource_list(config, items).into_bytes();
    let name = format!(
        "kustom-fn-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    );
    let args = run_args(settings, spec, digest, dir, &name);
    tracing::debug!(image = %spec.image, digest, runtime = %spec.runtime.display(), args = ?args, dir = %dir.display(), "container function call");
    let runtime = spec.runtime.display().to_string();
    let arg_refs: Vec<&str> = [SUPERVISE_SUBCOMMAND, runtime.as_str()]
        .into_iter()
        .chain(args.iter().map(String::as_str))
        .collect();
    let out = exec::run(
        &settings.self_exe,
        &arg_refs,
        dir,
        &[],
        stdin,
        settings.limits,
        sandbox,
    );
    let out = match out {
        Ok(out) => out,
        Err(e) => {
            // A killed client can leave its container running: remove it.
            let _ = crate::processes::output(
                std::process::Command::new(&spec.runtime)
                    .args(["rm", "-f", &name])
                    .stdin(std::process::Stdio::null()),
            );
            return Err(e.context(site));
        }
    };
    let (items, results) = match parse_output(&out.stdout) {
        Ok(v) => v,
        Err(why) if out.status == Some(0) => return Err(site.junk_error(&out, &why)),
        Err(_) => return Err(site.status_error(&out, "")),
    };
    if out.status != Some(0) {
        return Err(site.status_error(&out, ""));
    }
    for r in &results {
        let severity = r.get("severity").and_then(Value::as_str).unwrap_or("error");
        let message = r
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)");
        eprintln!("{severity}: {message} (result of {site})");
    }
    if !out.stderr.is_empty() {
        tracing::debug!(image = %spec.image, stderr = %String::from_utf8_lossy(&out.stderr).trim_end(), "container function stderr");
    }
    let mut items = expand_lists(items).map_err(|why| site.junk_error(&out, &why))?;
    for item in &mut items {
        for a in KIO_ANNOTATIONS {
            resource::remove_annotation(item, a);
        }
    }
    Ok(items)
}

/// Run a container function as a generator: its one item is the function
/// config (as kustomize sends it); the items it returns are generated.
pub fn generate(
    settings: &Settings,
    spec: &ContainerSpec,
    digest: &str,
    config: &Value,
    dir: &Path,
    site: &Site<'_>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let item = function_config_text(config);
    let mut items = invoke(settings, spec, digest, config, &[item], dir, site, sandbox)?;
    apply_generator_options(&mut items).map_err(|e| e.context(site))?;
    Ok(items)
}

/// Run a container function as a transformer over `resources`.
#[allow(clippy::too_many_arguments)]
pub fn transform(
    settings: &Settings,
    spec: &ContainerSpec,
    digest: &str,
    config: &Value,
    resources: Vec<Value>,
    dir: &Path,
    site: &Site<'_>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let items: Vec<String> = super::exchange::with_id_annotations(&resources)
        .iter()
        .map(yaml::to_yaml_unfolded)
        .collect();
    let out = invoke(settings, spec, digest, config, &items, dir, site, sandbox)?;
    merge_by_current_id(resources, out, LEGACY_ID_ANNOTATION).map_err(|e| e.context(site))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn env_flags_are_kustomizes() {
        let flags = env_flags(
            &["B=2".into(), "HOME".into(), "A=1".into()],
            &["B=3".into(), "USER".into(), "HOME".into()],
        );
        assert_eq!(
            flags.join(" "),
            "-e A=1 -e B=3 -e LOG_TO_STDERR=true -e STRUCTURED_RESULTS=true -e HOME -e USER"
        );
    }

    #[test]
    fn mount_flags_are_kustomizes() {
        let m = StorageMount::parse_flag("type=bind,source=./data,target=/d,rw=true,x=y");
        assert_eq!(
            m.flag(Path::new("/k")),
            "type=bind,source=/k/data,target=/d"
        );
        let m = StorageMount::parse_flag("type=bind,src=/abs,dst=/d");
        assert_eq!(
            m.flag(Path::new("/k")),
            "type=bind,source=/abs,target=/d,readonly"
        );
    }

    #[test]
    fn annotations_are_appended_as_kyaml_does() {
        let r = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "annotations": {"a": "1", "b": "x\ny\n"}, "labels": {"l": "v"}},
            "data": {"k": "v"}});
        let text = set_annotations(
            &yaml::to_yaml_unfolded(&r),
            &[("n", "0"), ("a", "true"), ("w", "word")],
        );
        assert_eq!(
            text,
            "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  annotations:\n    a: 'true'\n    b: |\n      x\n      y\n    n: '0'\n    w: word\n  labels:\n    l: v\n  name: c\n"
        );
        let r = json!({"kind": "X", "metadata": {"name": "c"}, "z": 1});
        assert_eq!(
            set_annotations(&yaml::to_yaml_unfolded(&r), &[("n", "0")]),
            "kind: X\nmetadata:\n  name: c\n  annotations:\n    n: '0'\nz: 1\n"
        );
    }

    #[test]
    fn mounts_must_stay_in_the_kustomization() {
        use kustom_api::KustomizeVersion;
        let config = json!({"kind": "Fn", "metadata": {"name": "f"}});
        let m = |src: &str| StorageMount {
            mount_type: "bind".into(),
            src: src.into(),
            dst: "/d".into(),
            rw: false,
        };
        let dir = Path::new("/nonexistent-k");
        for version in [KustomizeVersion::V5_5, KustomizeVersion::V5_8] {
            let check = |src: &str| check_mount(&config, &m(src), dir, true, version);
            assert!(check("/etc").is_err());
            assert!(check("./a/../../b").is_err());
            assert!(check("..").is_err());
            assert!(check("./data").is_ok());
        }
        let dotted = |version| check_mount(&config, &m("./..data"), dir, false, version);
        assert!(dotted(KustomizeVersion::V5_5).is_ok());
        let e = dotted(KustomizeVersion::V5_8).expect_err("v5.8 refuses ..data");
        assert!(e
            .message
            .contains("mount paths must be under the current kustomization directory"));
    }
}
