//! Grants: what a plugin may do beyond the default policy. From the command
//! line (every plugin of the build) and from the user's policy file
//! `$XDG_CONFIG_HOME/kustomize/plugin-policy.yaml` (one plugin each):
//!
//! ```yaml
//! plugins:
//! - plugin: KEP sops.example.com        # named as in kustom.lock
//!   allowRead: [~/.config/sops/age/keys.txt]
//!   allowWrite: []
//!   allowNet: false
//!   envPass: [SOPS_AGE_KEY_FILE]
//! ```
//!
//! The policy file is the user's, never the repository's: a repository
//! cannot widen what its own plugins may do.

use kustom_api::{yaml, Error};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The policy file's name under `$XDG_CONFIG_HOME/kustomize/`.
pub const POLICY_FILE: &str = "plugin-policy.yaml";

/// Extra rights for a plugin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Grants {
    /// Paths it may read (below, for a directory).
    pub read: Vec<PathBuf>,
    /// Paths it may write (below, for a directory).
    pub write: Vec<PathBuf>,
    /// Whether it may use the network.
    pub net: bool,
    /// Environment variables passed with `--plugin-env=minimal`.
    pub env_pass: Vec<String>,
}

impl Grants {
    /// Both sets of grants together.
    pub fn union(&self, other: &Grants) -> Grants {
        let mut g = self.clone();
        g.read.extend(other.read.iter().cloned());
        g.write.extend(other.write.iter().cloned());
        g.net |= other.net;
        g.env_pass.extend(other.env_pass.iter().cloned());
        g
    }
}

/// One entry of the policy file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PolicyEntry {
    plugin: String,
    #[serde(default)]
    allow_read: Vec<String>,
    #[serde(default)]
    allow_write: Vec<String>,
    #[serde(default)]
    allow_net: bool,
    #[serde(default)]
    env_pass: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyDoc {
    #[serde(default)]
    plugins: Vec<PolicyEntry>,
}

/// The user's per-plugin grants.
#[derive(Debug, Clone, Default)]
pub struct PolicyFile {
    /// Where it was read from (for messages), even when absent.
    pub path: PathBuf,
    /// Grants by plugin name (as in `kustom.lock`).
    pub plugins: Vec<(String, Grants)>,
}

impl PolicyFile {
    /// The policy file of a config home (`$XDG_CONFIG_HOME`).
    pub fn path_in(config_home: &Path) -> PathBuf {
        config_home.join("kustomize").join(POLICY_FILE)
    }

    /// Read the policy file under `config_home`; empty when there is none.
    pub fn load(config_home: &Path) -> Result<PolicyFile, Error> {
        let path = Self::path_in(config_home);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            // No file, or a HOME (or config home) that is not a
            // directory: no policy file.
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    || e.raw_os_error() == Some(libc::ENOTDIR) =>
            {
                return Ok(PolicyFile {
                    path,
                    plugins: Vec::new(),
                })
            }
            Err(e) => return Err(Error::new(format!("reading {}: {e}", path.display()))),
        };
        let bad = |why: String| {
            Error::new(format!(
                "{}: not a plugin policy: {why} (see README, \"Security model\")",
                path.display()
            ))
        };
        let docs = yaml::parse_stream(&text).map_err(|e| bad(e.to_string()))?;
        let doc: PolicyDoc = match docs.as_slice() {
            [] => PolicyDoc::default(),
            [doc] => serde_json::from_value(doc.clone()).map_err(|e| bad(e.to_string()))?,
            _ => return Err(bad(format!("{} YAML documents, want one", docs.len()))),
        };
        let plugins = doc
            .plugins
            .into_iter()
            .map(|e| {
                if e.plugin.trim().is_empty() {
                    return Err(bad("an entry without `plugin:`".into()));
                }
                let grants = Grants {
                    read: e.allow_read.iter().map(|p| expand_home(p)).collect(),
                    write: e.allow_write.iter().map(|p| expand_home(p)).collect(),
                    net: e.allow_net,
                    env_pass: e.env_pass,
                };
                Ok((e.plugin, grants))
            })
            .collect::<Result<_, Error>>()?;
        Ok(PolicyFile { path, plugins })
    }

    /// The grants of one plugin (several entries add up).
    pub fn grants_for(&self, plugin: &str) -> Grants {
        self.plugins
            .iter()
            .filter(|(name, _)| name == plugin)
            .fold(Grants::default(), |acc, (_, g)| acc.union(g))
    }
}

/// `~/x` is `$HOME/x`; other paths as written.
fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_are_per_plugin_and_add_up() {
        let dir = tempfile::tempdir().unwrap();
        let file = PolicyFile::path_in(dir.path());
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            "plugins:\n- plugin: KEP sops.example.com\n  allowRead: [/keys/age.txt]\n- plugin: KEP sops.example.com\n  allowNet: true\n  envPass: [SOPS_AGE_KEY_FILE]\n- plugin: legacy x/v1/Y\n  allowWrite: [/out]\n",
        )
        .unwrap();
        let policy = PolicyFile::load(dir.path()).unwrap();
        let sops = policy.grants_for("KEP sops.example.com");
        assert_eq!(sops.read, vec![PathBuf::from("/keys/age.txt")]);
        assert!(sops.net);
        assert_eq!(sops.env_pass, vec!["SOPS_AGE_KEY_FILE".to_string()]);
        assert_eq!(
            policy.grants_for("KEP other.example.com"),
            Grants::default()
        );
        assert_eq!(
            policy.grants_for("legacy x/v1/Y").write,
            vec![PathBuf::from("/out")]
        );
    }

    #[test]
    fn unknown_fields_are_errors_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = PolicyFile::path_in(dir.path());
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            "plugins:\n- plugin: KEP a.b\n  allowEverything: true\n",
        )
        .unwrap();
        let err = PolicyFile::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains(POLICY_FILE) && err.contains("allowEverything"),
            "{err}"
        );
    }
}
