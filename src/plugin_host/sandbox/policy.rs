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
                "{}: not a plugin policy: {why} (see docs/security.md)",
                path.display()
            ))
        };
        let docs = yaml::parse_stream(&text).map_err(|e| bad(e.to_string()))?;
        if let [doc] = docs.as_slice() {
            check_keys(doc).map_err(bad)?;
        }
        let doc: PolicyDoc = match docs.as_slice() {
            [] => PolicyDoc::default(),
            [doc] => serde_json::from_value(doc.clone()).map_err(|e| bad(e.to_string()))?,
            _ => return Err(bad(format!("{} YAML documents, want one", docs.len()))),
        };
        for e in &doc.plugins {
            check_plugin_name(&e.plugin).map_err(bad)?;
        }
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

    /// An entry whose name is one or two letters from `plugin`, when none
    /// is exactly `plugin`: a misspelled grant, which would be ignored.
    pub fn near_miss(&self, plugin: &str) -> Option<&str> {
        if self.plugins.iter().any(|(n, _)| n == plugin) {
            return None;
        }
        self.plugins
            .iter()
            .map(|(n, _)| (edit_distance(&n.to_lowercase(), &plugin.to_lowercase()), n))
            .filter(|(d, _)| *d <= 2)
            .min_by_key(|(d, _)| *d)
            .map(|(_, n)| n.as_str())
    }

    /// Add `grants` to `plugin`'s entry (made if missing).
    pub fn allow(&mut self, plugin: &str, grants: &Grants) -> Result<(), Error> {
        check_plugin_name(plugin).map_err(Error::new)?;
        match self.plugins.iter_mut().find(|(n, _)| n == plugin) {
            Some((_, g)) => {
                let mut merged = g.union(grants);
                merged.read.dedup();
                merged.write.dedup();
                merged.env_pass.dedup();
                *g = merged;
            }
            None => self.plugins.push((plugin.to_string(), grants.clone())),
        }
        Ok(())
    }

    /// The file's text: one entry per plugin.
    pub fn to_yaml(&self) -> String {
        let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let list = |v: Vec<String>| format!("[{}]", v.join(", "));
        let mut out = String::from("plugins:\n");
        for (name, g) in &self.plugins {
            out.push_str(&format!("- plugin: {}\n", q(name)));
            if !g.read.is_empty() {
                let v = g.read.iter().map(|p| q(&p.display().to_string())).collect();
                out.push_str(&format!("  allowRead: {}\n", list(v)));
            }
            if !g.write.is_empty() {
                let v = g
                    .write
                    .iter()
                    .map(|p| q(&p.display().to_string()))
                    .collect();
                out.push_str(&format!("  allowWrite: {}\n", list(v)));
            }
            if g.net {
                out.push_str("  allowNet: true\n");
            }
            if !g.env_pass.is_empty() {
                let v = g.env_pass.iter().map(|n| q(n)).collect();
                out.push_str(&format!("  envPass: {}\n", list(v)));
            }
        }
        out
    }

    /// Write the file (its directory made if missing), atomically.
    pub fn save(&self) -> Result<(), Error> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::new(format!("creating {}: {e}", dir.display())))?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)
            .map_err(|e| Error::new(format!("writing {}: {e}", self.path.display())))?;
        std::io::Write::write_all(&mut tmp, self.to_yaml().as_bytes())
            .map_err(|e| Error::new(format!("writing {}: {e}", self.path.display())))?;
        tmp.persist(&self.path)
            .map_err(|e| Error::new(format!("writing {}: {}", self.path.display(), e.error)))?;
        Ok(())
    }

    /// The grants of one plugin (several entries add up).
    pub fn grants_for(&self, plugin: &str) -> Grants {
        self.plugins
            .iter()
            .filter(|(name, _)| name == plugin)
            .fold(Grants::default(), |acc, (_, g)| acc.union(g))
    }
}

/// The keys of a policy entry.
const ENTRY_KEYS: &[&str] = &["plugin", "allowRead", "allowWrite", "allowNet", "envPass"];

fn suggest(word: &str, known: &[&str]) -> String {
    known
        .iter()
        .map(|k| (edit_distance(&word.to_lowercase(), &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= 3.max(word.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| format!("; did you mean `{k}`?"))
        .unwrap_or_default()
}

/// Unknown keys, at the top or in an entry, with a did-you-mean.
fn check_keys(doc: &serde_json::Value) -> Result<(), String> {
    let Some(top) = doc.as_object() else {
        return Ok(());
    };
    for k in top.keys() {
        if k != "plugins" {
            return Err(format!("unknown key `{k}`{}", suggest(k, &["plugins"])));
        }
    }
    for entry in top
        .get("plugins")
        .and_then(|p| p.as_array())
        .into_iter()
        .flatten()
    {
        for k in entry.as_object().into_iter().flat_map(|o| o.keys()) {
            if !ENTRY_KEYS.contains(&k.as_str()) {
                return Err(format!(
                    "unknown key `{k}` (an entry has {}){}",
                    ENTRY_KEYS.join(", "),
                    suggest(k, ENTRY_KEYS)
                ));
            }
        }
    }
    Ok(())
}

/// A plugin is named as in `kustom.lock`: `KEP <group>`, `legacy
/// <group>/<version>/<Kind>`, `KRM <exec path>`, `builtin override`,
/// `builtin (shipped)`.
pub fn check_plugin_name(name: &str) -> Result<(), String> {
    let name = name.trim();
    let ok = match name.split_once(' ') {
        Some(("KEP", g)) => !g.is_empty() && !g.contains(' '),
        Some(("legacy", gvk)) => gvk.split('/').filter(|s| !s.is_empty()).count() >= 2,
        Some(("KRM", p)) => !p.is_empty(),
        _ => name == "builtin override" || name == "builtin (shipped)",
    };
    if ok {
        return Ok(());
    }
    let guess = match name.split_once(' ') {
        Some((kind, rest)) => {
            let kinds = ["KEP", "legacy", "KRM", "builtin"];
            let k = kinds
                .iter()
                .min_by_key(|k| edit_distance(&kind.to_lowercase(), &k.to_lowercase()))
                .copied()
                .unwrap_or("KEP");
            if k == "builtin" {
                "builtin (shipped)".to_string()
            } else {
                format!("{k} {rest}")
            }
        }
        None if name.starts_with("builtin") => "builtin (shipped)".to_string(),
        None if name.matches('/').count() >= 2 => format!("legacy {name}"),
        None => format!("KEP {name}"),
    };
    Err(format!(
        "unknown plugin name {name:?}: name plugins as kustom.lock and error messages do (`KEP <group>`, `legacy <group>/<version>/<Kind>`, `KRM <exec path>`, `builtin override`, `builtin (shipped)`); did you mean `{guess}`?"
    ))
}

/// Levenshtein distance (policy names and keys are short).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
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
        std::fs::write(&file, "plugins:\n- plugin: KEP a.b\n  allowReed: [/x]\n").unwrap();
        let err = PolicyFile::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("did you mean `allowRead`?"), "{err}");
    }

    #[test]
    fn plugin_names_are_checked_with_a_suggestion() {
        assert!(check_plugin_name("KEP sops.example.com").is_ok());
        assert!(check_plugin_name("legacy a.b/v1/Kind").is_ok());
        assert!(check_plugin_name("builtin (shipped)").is_ok());
        let err = check_plugin_name("sops.example.com").unwrap_err();
        assert!(
            err.contains("did you mean `KEP sops.example.com`?"),
            "{err}"
        );
        let err = check_plugin_name("kep sops.example.com").unwrap_err();
        assert!(
            err.contains("did you mean `KEP sops.example.com`?"),
            "{err}"
        );
        let policy = PolicyFile {
            path: PathBuf::new(),
            plugins: vec![("KEP sops.exmaple.com".into(), Grants::default())],
        };
        assert_eq!(
            policy.near_miss("KEP sops.example.com"),
            Some("KEP sops.exmaple.com")
        );
        assert_eq!(policy.near_miss("KEP other.example.org"), None);
    }
}
