//! `kustom.lock`: what a build ran and fetched, pinned beside the build root
//! (like `Cargo.lock`).
//!
//! One file serves two purposes: the sha256 of every plugin executable the
//! build runs (so a plugin edited after review cannot run silently) and the
//! commit and content digest of every remote resource it fetched (so a
//! moving tag or branch cannot change a render), and the version and
//! archive digest of every Helm chart pulled from a repository. It is YAML, written with
//! sorted entries so that re-locking an unchanged tree gives the same bytes:
//!
//! ```yaml
//! # kustom.lock: written by `kustom lock`. Commit it beside kustomization.yaml.
//! plugins:
//! - plugin: KEP team.example.com
//!   sha256: 3f1c…
//! remotes:
//! - commit: 0123…
//!   sha256: 9ab0…
//!   url: https://github.com/org/repo//deploy?ref=v1.2.0
//! version: 1
//! ```
//!
//! A plugin is named by how the build found it, not by a machine's absolute
//! path, so a lock written on a laptop holds in CI: `KEP <group>`,
//! `legacy <group>/<version>/<Kind>`, `KRM <exec path as written>` (relative
//! to the kustomization that listed it), `builtin override` for an installed
//! `builtin` plugin. The shipped builtin is part of kustom and is not listed.

use kustom_api::{yaml, Error};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file name, beside the build root's kustomization.
pub const LOCK_FILE: &str = "kustom.lock";

/// The format version written and understood.
pub const LOCK_VERSION: u32 = 1;

/// The contents of a `kustom.lock`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// Format version ([`LOCK_VERSION`]).
    pub version: u32,
    /// Plugin executables, sorted by `plugin`.
    #[serde(default)]
    pub plugins: Vec<PluginPin>,
    /// Remote resources, sorted by `url`.
    #[serde(default)]
    pub remotes: Vec<RemotePin>,
    /// Helm charts pulled from repositories, sorted by repository, chart
    /// and version (absent when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charts: Vec<ChartPin>,
}

/// One Helm chart as a kustomization names it (`helmCharts[].repo`,
/// `name`, `version`), the exact version it resolved to, where its archive
/// was and the archive's sha256.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChartPin {
    /// The repository as written (`https://…` or `oci://…`).
    pub repo: String,
    /// The chart's name.
    pub chart: String,
    /// The version as written (may be empty or a range).
    #[serde(default)]
    pub version: String,
    /// The exact version used.
    pub resolved: String,
    /// The archive's URL (or OCI reference) it was pulled from.
    pub url: String,
    /// Lowercase hex sha256 of the chart archive (.tgz).
    pub sha256: String,
}

/// One plugin executable and its digest.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginPin {
    /// How the build found it (see the module doc).
    pub plugin: String,
    /// Lowercase hex sha256 of the executable's bytes.
    pub sha256: String,
}

/// One remote reference as written in a kustomization, what it resolved to
/// and a digest of the content used.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemotePin {
    /// The URL as the kustomization wrote it.
    pub url: String,
    /// The full commit id a git ref resolved to (absent for http files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Lowercase hex sha256 of the file, or of the checked-out subtree used
    /// ([`tree_sha256`]).
    pub sha256: String,
}

impl Lock {
    /// The lock file beside a build root directory.
    pub fn path_for(root: &Path) -> PathBuf {
        root.join(LOCK_FILE)
    }

    /// Read `path`; `Ok(None)` when it does not exist.
    pub fn read(path: &Path) -> Result<Option<Lock>, Error> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::new(format!("reading {}: {e}", path.display()))),
        };
        let bad = |why: String| {
            Error::new(format!(
                "{}: not a kustom lock file: {why}; delete it and run `kustom lock` again",
                path.display()
            ))
        };
        let docs = yaml::parse_stream(&text).map_err(|e| bad(e.to_string()))?;
        let [doc] = docs.as_slice() else {
            return Err(bad(format!("{} YAML documents, want one", docs.len())));
        };
        let lock: Lock = serde_json::from_value(doc.clone()).map_err(|e| bad(e.to_string()))?;
        if lock.version != LOCK_VERSION {
            return Err(bad(format!(
                "version {} (this kustom reads version {LOCK_VERSION})",
                lock.version
            )));
        }
        Ok(Some(lock))
    }

    /// The canonical text: a header comment, then sorted entries.
    pub fn render(&self) -> String {
        let mut sorted = self.clone();
        sorted.version = LOCK_VERSION;
        sorted.plugins.sort();
        sorted.plugins.dedup();
        sorted.remotes.sort();
        sorted.remotes.dedup();
        sorted.charts.sort();
        sorted.charts.dedup();
        let value = serde_json::to_value(&sorted).expect("a lock is plain data");
        format!(
            "# kustom.lock: written by `kustom lock`. Commit it beside kustomization.yaml.\n{}",
            yaml::to_yaml(&value)
        )
    }

    /// Write to `path` atomically (a temporary file beside it, then rename).
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        write_atomically(path, self.render().as_bytes())
    }

    /// The pin recorded for a plugin, if any.
    pub fn plugin(&self, name: &str) -> Option<&PluginPin> {
        self.plugins.iter().find(|p| p.plugin == name)
    }

    /// The pin recorded for a chart, if any.
    pub fn chart(&self, repo: &str, chart: &str, version: &str) -> Option<&ChartPin> {
        self.charts
            .iter()
            .find(|c| c.repo == repo && c.chart == chart && c.version == version)
    }

    /// The pin recorded for a remote URL, if any.
    pub fn remote(&self, url: &str) -> Option<&RemotePin> {
        self.remotes.iter().find(|r| r.url == url)
    }
}

/// How a build treats `kustom.lock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LockMode {
    /// No lock beside the build root: nothing is checked.
    #[default]
    Unlocked,
    /// A lock is present: plugins must match their pins, remotes use their
    /// pinned commits and must match their digests.
    Enforce,
    /// `--locked`: as `Enforce`, and a missing or stale lock is an error
    /// instead of anything being added to it.
    Locked,
    /// `kustom lock`: run everything, record every digest, write the lock.
    Record,
}

/// The lock as one build sees it: the pins read from disk (if any), the
/// mode, and what the build actually ran and fetched. Shared by the plugin
/// runner and the remote fetcher (`Settings::lock`), so it is `Sync`.
#[derive(Debug, Default)]
pub struct LockState {
    /// How pins are treated.
    pub mode: LockMode,
    /// The lock read from disk (empty when there was none).
    pub pinned: Lock,
    /// Where the lock lives (`<build root>/kustom.lock`); None for builds
    /// whose root is not a local directory.
    pub path: Option<PathBuf>,
    /// `--locked` without a lock file: fine until something needs a pin
    /// (a third-party plugin, a remote resource), then an error.
    pub file_missing: bool,
    recorded: std::sync::Mutex<Lock>,
}

impl LockState {
    /// A state for `mode` with the pins of `pinned`.
    pub fn new(mode: LockMode, pinned: Lock, path: Option<PathBuf>) -> LockState {
        LockState {
            mode,
            pinned,
            path,
            file_missing: false,
            recorded: std::sync::Mutex::new(Lock {
                version: LOCK_VERSION,
                ..Lock::default()
            }),
        }
    }

    /// Note a plugin the build ran.
    pub fn record_plugin(&self, pin: PluginPin) {
        let mut rec = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        if !rec.plugins.contains(&pin) {
            rec.plugins.push(pin);
        }
    }

    /// Note a remote the build fetched.
    pub fn record_remote(&self, pin: RemotePin) {
        let mut rec = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        if !rec.remotes.contains(&pin) {
            rec.remotes.push(pin);
        }
    }

    /// Note a chart the build pulled.
    pub fn record_chart(&self, pin: ChartPin) {
        let mut rec = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        if !rec.charts.contains(&pin) {
            rec.charts.push(pin);
        }
    }

    /// Everything recorded so far.
    pub fn recorded(&self) -> Lock {
        self.recorded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// Replace `path` with `bytes` so that a reader sees the old or the new
/// content, never a mix: write a temporary file in the same directory,
/// flush it, rename it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let fail = |e: std::io::Error| Error::new(format!("writing {}: {e}", path.display()));
    let mut tmp = tempfile::Builder::new()
        .prefix(".kustom-")
        .tempfile_in(dir)
        .map(crate::processes::Temporary::new)
        .map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    // The temporary file is private (0600); the result gets the replaced
    // file's permissions, or those of any new file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match std::fs::metadata(path) {
            Ok(m) => m.permissions().mode() & 0o7777,
            Err(_) => 0o666 & !process_umask(),
        };
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(fail)?;
    }
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.into_inner().persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// The process umask, read from /proc (setting and restoring it with
/// umask(2) would race with other threads creating files); 022 elsewhere.
#[cfg(unix)]
fn process_umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

/// Lowercase hex sha256 of a byte string.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex sha256 of a file's bytes, read in chunks.
pub fn file_sha256(path: &Path) -> Result<String, Error> {
    let fail = |e: std::io::Error| Error::new(format!("reading {}: {e}", path.display()));
    let mut file = std::fs::File::open(path).map_err(fail)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).map_err(fail)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// Lowercase hex sha256 of a directory tree: every regular file and symlink
/// below `root` (`.git` excluded), in byte order of their relative paths,
/// each contributing its path, its kind and executable bit, and its content
/// (a symlink: its target). Two trees with the same digest read the same.
pub fn tree_sha256(root: &Path) -> Result<String, Error> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let fail = |p: &Path, e: std::io::Error| Error::new(format!("reading {}: {e}", p.display()));
    let mut entries: Vec<PathBuf> = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| fail(&dir, e))? {
            let entry = entry.map_err(|e| fail(&dir, e))?;
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            }
            let kind = entry.file_type().map_err(|e| fail(&path, e))?;
            if kind.is_dir() {
                stack.push(path);
            } else {
                entries.push(path);
            }
        }
    }
    entries.sort_by(|a, b| a.as_os_str().as_bytes().cmp(b.as_os_str().as_bytes()));
    let mut hasher = Sha256::new();
    for path in entries {
        let rel = path.strip_prefix(root).unwrap_or(&path);
        hasher.update(rel.as_os_str().as_bytes());
        hasher.update([0]);
        let meta = std::fs::symlink_metadata(&path).map_err(|e| fail(&path, e))?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path).map_err(|e| fail(&path, e))?;
            hasher.update(b"l\0");
            hasher.update(target.as_os_str().as_bytes());
        } else {
            let exec = meta.permissions().mode() & 0o111 != 0;
            hasher.update(if exec { b"x\0" } else { b"f\0" });
            hasher.update(file_sha256(&path)?.as_bytes());
        }
        hasher.update([0]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl LockState {
    /// The lock state of a build of `dir`: `Enforce` when `dir/kustom.lock`
    /// exists, `Locked` with `--locked` (a missing file is an error only once
    /// something needs a pin), else `Unlocked`.
    /// A remote build target (a URL) has no lock beside it.
    pub fn for_build(dir: &Path, locked: bool) -> Result<Arc<LockState>, Error> {
        if !dir.is_dir() && !locked {
            return Ok(Arc::new(LockState::new(
                LockMode::Unlocked,
                Lock::default(),
                None,
            )));
        }
        let path = dir.is_dir().then(|| Lock::path_for(dir));
        let pinned = match &path {
            Some(p) => Lock::read(p)?,
            None => None,
        };
        let mode = match (&pinned, locked) {
            (_, true) => LockMode::Locked,
            (Some(_), false) => LockMode::Enforce,
            (None, false) => LockMode::Unlocked,
        };
        let mut state = LockState::new(mode, pinned.clone().unwrap_or_default(), path);
        state.file_missing = locked && pinned.is_none();
        Ok(Arc::new(state))
    }

    /// With `--locked` and no lock file: the error for `what` (a plugin or
    /// remote that would need a pin).
    pub fn missing_file_error(&self, what: &str) -> Option<String> {
        self.file_missing.then(|| {
            let lock = self.path.as_deref().unwrap_or_else(|| Path::new(LOCK_FILE));
            let root = lock
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map(|p| format!(" {}", p.display()))
                .unwrap_or_default();
            format!(
                "--locked: {what} needs a pin, but there is no {}; run `kustom lock{root}` (with the same flags) after reviewing it, and commit the file",
                lock.display()
            )
        })
    }

    /// After a successful build under an enforced lock: add the remotes the
    /// lock did not know yet (plugins are never added silently: an unpinned
    /// plugin was refused before it ran). `--locked` refuses new remotes in the
    /// fetcher instead, and `kustom lock` writes the whole lock itself.
    pub fn after_build(&self) -> Result<(), Error> {
        let state = self;
        let (Some(path), LockMode::Enforce) = (&state.path, state.mode) else {
            return Ok(());
        };
        let recorded = state.recorded();
        let new: Vec<_> = recorded
            .remotes
            .into_iter()
            .filter(|r| state.pinned.remote(&r.url).is_none())
            .collect();
        let new_charts: Vec<_> = recorded
            .charts
            .into_iter()
            .filter(|c| state.pinned.chart(&c.repo, &c.chart, &c.version).is_none())
            .collect();
        if new.is_empty() && new_charts.is_empty() {
            return Ok(());
        }
        let mut lock = state.pinned.clone();
        lock.remotes.extend(new);
        lock.charts.extend(new_charts);
        lock.write(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_then_read_gives_the_same_lock() {
        let dir = tempfile::tempdir().unwrap();
        let lock = Lock {
            version: LOCK_VERSION,
            plugins: vec![
                PluginPin {
                    plugin: "legacy someteam.example.com/v1/Chart".into(),
                    sha256: sha256_hex(b"b"),
                },
                PluginPin {
                    plugin: "KEP team.example.com".into(),
                    sha256: sha256_hex(b"a"),
                },
            ],
            remotes: vec![RemotePin {
                url: "https://github.com/org/repo//deploy?ref=v1.2.0".into(),
                commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
                sha256: sha256_hex(b"tree"),
            }],
            charts: Vec::new(),
        };
        let path = dir.path().join(LOCK_FILE);
        lock.write(&path).unwrap();
        let back = Lock::read(&path).unwrap().unwrap();
        assert_eq!(back.plugins[0].plugin, "KEP team.example.com");
        assert_eq!(back.render(), lock.render());
        assert!(Lock::read(&dir.path().join("absent")).unwrap().is_none());
    }

    #[test]
    fn a_foreign_file_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        std::fs::write(&path, "plugins: 3\n").unwrap();
        let err = Lock::read(&path).unwrap_err().to_string();
        assert!(err.contains("not a kustom lock file"), "{err}");
    }

    #[test]
    fn tree_digest_sees_content_and_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.yaml"), "a").unwrap();
        let first = tree_sha256(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.yaml"), "b").unwrap();
        let second = tree_sha256(dir.path()).unwrap();
        assert_ne!(first, second);
        std::fs::rename(dir.path().join("a.yaml"), dir.path().join("c.yaml")).unwrap();
        assert_ne!(second, tree_sha256(dir.path()).unwrap());
    }
}
