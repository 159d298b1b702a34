//! Legacy kustomize exec plugins, run the way kustomize v5.5.0 runs them, so
//! that a plugin published for kustomize works unchanged:
//!
//! - found at `<plugin home>/<group>/<version>/<lowercase kind>/<Kind>`, the
//!   plugin home being the first existing directory of `$KUSTOMIZE_PLUGIN_HOME`,
//!   `$XDG_CONFIG_HOME/kustomize/plugin`, `$HOME/.config/kustomize/plugin`,
//!   `$HOME/kustomize/plugin`;
//! - run as `PLUGIN <config file> [args]`, the config file holding the config
//!   object as YAML, `args` from the config's `argsOneLiner` (split as the
//!   kustomize release splits it, see [`super::legacy_args`]) and
//!   `argsFromFile` (one argument per non-empty line);
//! - the environment inherited, plus `KUSTOMIZE_PLUGIN_CONFIG_STRING` (the
//!   config YAML) and `KUSTOMIZE_PLUGIN_CONFIG_ROOT` (the kustomization's
//!   directory), which is also the working directory;
//! - generators get empty STDIN; their output's
//!   `kustomize.config.k8s.io/needs-hash` and `kustomize.config.k8s.io/behavior`
//!   annotations become the build's hash-suffix and merge-behavior state;
//! - transformers get every resource on STDIN, each annotated with
//!   `kustomize.config.k8s.io/id` (its current id as YAML); the output is
//!   matched back by current id: a match replaces the resource in place, an
//!   unmatched output is appended, a resource missing from the output is
//!   removed.

pub use super::exchange::LEGACY_ID_ANNOTATION;
use super::exchange::{
    apply_generator_options, expand_lists, merge_by_current_id, with_id_annotations,
};
use super::exec;
use super::sandbox::CallSandbox;
use super::settings::Settings;
use super::site::Site;
use kustom_api::{protocol, resource, yaml, Error, Gvk, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Environment variable holding the plugin's config YAML.
pub const ENV_CONFIG_STRING: &str = "KUSTOMIZE_PLUGIN_CONFIG_STRING";
/// Environment variable holding the kustomization's directory.
pub const ENV_CONFIG_ROOT: &str = "KUSTOMIZE_PLUGIN_CONFIG_ROOT";
/// Environment variable overriding the plugin home.
pub const ENV_PLUGIN_HOME: &str = "KUSTOMIZE_PLUGIN_HOME";
/// kustomize leaves out an environment entry longer than this.
const MAX_ENV_ENTRY: usize = 131_071;

/// The plugin-home candidates, in kustomize's order, each with how it was
/// found. Empty variables are skipped, as kustomize does.
pub fn home_candidates() -> Vec<(&'static str, PathBuf)> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let mut out = Vec::new();
    if let Some(p) = var(ENV_PLUGIN_HOME) {
        out.push(("$KUSTOMIZE_PLUGIN_HOME", p));
    }
    if let Some(x) = var("XDG_CONFIG_HOME") {
        out.push((
            "$XDG_CONFIG_HOME/kustomize/plugin",
            x.join("kustomize").join("plugin"),
        ));
    }
    // kustomize uses a literal "~" when $HOME is unset.
    let home = var("HOME").unwrap_or_else(|| PathBuf::from("~"));
    out.push((
        "$HOME/.config/kustomize/plugin",
        home.join(".config").join("kustomize").join("plugin"),
    ));
    out.push((
        "$HOME/kustomize/plugin",
        home.join("kustomize").join("plugin"),
    ));
    // $XDG_CONFIG_HOME is often $HOME/.config: name each directory once.
    let mut seen = Vec::new();
    out.retain(|(_, p)| {
        let fresh = !seen.contains(p);
        seen.push(p.clone());
        fresh
    });
    out
}

/// The legacy plugin home: the first candidate that exists.
pub fn plugin_home() -> Option<PathBuf> {
    home_candidates()
        .into_iter()
        .map(|(_, p)| p)
        .find(|p| p.exists())
}

/// Where the legacy plugin for a config object lives under `home`.
pub fn plugin_path(home: &Path, config: &Value) -> PathBuf {
    let gvk = Gvk::from_api_version(resource::api_version(config), resource::kind(config));
    relative_path(&gvk)
        .into_iter()
        .fold(home.to_path_buf(), |p, c| p.join(c))
}

/// `group/version/lowercase(kind)/Kind`, empty parts left out (as Go's filepath.Join).
pub fn relative_path(gvk: &Gvk) -> Vec<String> {
    [
        gvk.group.clone(),
        gvk.version.clone(),
        gvk.kind.to_lowercase(),
        gvk.kind.clone(),
    ]
    .into_iter()
    .filter(|s| !s.is_empty())
    .collect()
}

/// A config file in the temporary directory, removed when dropped.
struct TempConfig(PathBuf);

impl TempConfig {
    /// Create it in `dir` (the call's private directory, which the
    /// confined plugin may read).
    fn create(dir: &Path, content: &str) -> Result<TempConfig, Error> {
        static SEQ: AtomicUsize = AtomicUsize::new(0);
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let name = format!(
                "kust-plugin-config-{}{}{}",
                std::process::id(),
                SEQ.fetch_add(1, Ordering::Relaxed),
                nanos % 100_000
            );
            let path = dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    let guard = TempConfig(path);
                    f.write_all(content.as_bytes()).map_err(|e| {
                        Error::new(format!(
                            "writing plugin config to {}: {e}",
                            guard.0.display()
                        ))
                    })?;
                    return Ok(guard);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(Error::new(format!(
                        "creating tmp plugin config file in {}: {e}",
                        dir.display()
                    )))
                }
            }
        }
        Err(Error::new(format!(
            "creating tmp plugin config file in {}: no free name",
            dir.display()
        )))
    }
}

impl Drop for TempConfig {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Run the plugin once; the documents it wrote.
fn invoke(
    settings: &Settings,
    path: &Path,
    config: &Value,
    dir: &Path,
    site: &Site<'_>,
    stdin: Vec<u8>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let cfg = yaml::to_yaml(config);
    let root_only = settings.load_restrictor != "LoadRestrictionsNone";
    let extra = super::legacy_args::plugin_args(config, dir, root_only, settings.kustomize_version)
        .map_err(|e| e.context(site))?;
    // Legacy calls always get a private directory (see `Settings::begin`).
    let private = sandbox
        .dir()
        .ok_or_else(|| Error::new(format!("{site}: no private directory for the config file")))?;
    let file = TempConfig::create(private, &cfg).map_err(|e| e.context(site))?;
    let file_arg = file.0.display().to_string();
    let mut args: Vec<&str> = vec![&file_arg];
    args.extend(extra.iter().map(String::as_str));
    let mut env = Vec::new();
    if ENV_CONFIG_STRING.len() + 1 + cfg.len() <= MAX_ENV_ENTRY {
        env.push((ENV_CONFIG_STRING, cfg.clone()));
    } else {
        eprintln!(
            "{ENV_CONFIG_STRING} exceeds hard limit of {MAX_ENV_ENTRY} characters, the environment variable will be omitted ({site})"
        );
    }
    env.push((ENV_CONFIG_ROOT, dir.display().to_string()));
    tracing::debug!(plugin = %path.display(), config = %file_arg, dir = %dir.display(), "legacy exec plugin call");
    let out = exec::run(path, &args, dir, &env, stdin, settings.limits, sandbox)
        .map_err(|e| e.context(site))?;
    if out.status != Some(0) {
        return Err(site.status_error(&out, &format!(" (config file {file_arg})")));
    }
    let docs = protocol::read_stream(&out.stdout).map_err(|e| site.junk_error(&out, &e.message))?;
    expand_lists(docs).map_err(|why| site.junk_error(&out, &why))
}

/// Run a legacy generator.
pub fn generate(
    settings: &Settings,
    path: &Path,
    config: &Value,
    dir: &Path,
    site: &Site<'_>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let mut docs = invoke(settings, path, config, dir, site, Vec::new(), sandbox)?;
    apply_generator_options(&mut docs).map_err(|e| e.context(site))?;
    Ok(docs)
}

/// Run a legacy transformer over `resources`.
pub fn transform(
    settings: &Settings,
    path: &Path,
    config: &Value,
    resources: Vec<Value>,
    dir: &Path,
    site: &Site<'_>,
    sandbox: &CallSandbox,
) -> Result<Vec<Value>, Error> {
    let input = with_id_annotations(&resources);
    let stdin = yaml::to_yaml_stream(&input).into_bytes();
    drop(input);
    let out = invoke(settings, path, config, dir, site, stdin, sandbox)?;
    merge_by_current_id(resources, out, LEGACY_ID_ANNOTATION).map_err(|e| e.context(site))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plugin_path_uses_group_version_and_kind() {
        let cfg = json!({"apiVersion": "someteam.example.com/v1", "kind": "SecretGen"});
        assert_eq!(
            plugin_path(Path::new("/h"), &cfg),
            PathBuf::from("/h/someteam.example.com/v1/secretgen/SecretGen")
        );
        let core = json!({"apiVersion": "v1", "kind": "Foo"});
        assert_eq!(
            plugin_path(Path::new("/h"), &core),
            PathBuf::from("/h/v1/foo/Foo")
        );
    }
}
