//! The on-disk cache under `$XDG_CACHE_HOME/kustom/` (default
//! `~/.cache/kustom/`):
//!
//! ```text
//! git/<repo key>/<commit>[-nosub]/        a checkout (no .git), immutable
//! git/<repo key>/<commit>[-nosub].sums     its file digests, written last
//! git/<repo key>/<commit>[-nosub]-at-<root key>[.sums]  a sparse checkout: what one root needs
//! git/<repo key>/refs.json                 last commit each ref resolved to (--offline)
//! git/<repo key>/.lock                     flock(2) held while fetching
//! http/<url key>.body, http/<url key>.json the file, its URL, validators and sha256
//! tmp/fetch-*, tmp/chart-*                 fetches and unpacked charts in progress
//! ```
//!
//! Entries appear by rename, so a reader sees a whole entry or none; a
//! checkout counts only once its `.sums` exists, and a file only when its
//! body matches the digest in its `.json`, so anything half-written or
//! edited is fetched again.
//!
//! A directory under `tmp/` is locked (`flock`) by the build that made it
//! for as long as that build lives, and removed when it ends, by any way
//! out but KILL; the first build that looks into the cache afterwards
//! removes every one whose lock it can take (see [`Scratch`]).

use crate::fetch::lock::{file_sha256, sha256_hex};
use kustom_api::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The cache root.
#[derive(Debug, Clone)]
pub struct Cache {
    /// `$XDG_CACHE_HOME/kustom`.
    pub root: PathBuf,
}

/// `$XDG_CACHE_HOME/kustom`, else `~/.cache/kustom`.
pub fn default_dir() -> PathBuf {
    let base = match std::env::var_os("XDG_CACHE_HOME") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => directories::BaseDirs::new()
            .map(|b| b.home_dir().join(".cache"))
            .unwrap_or_else(|| PathBuf::from(".cache")),
    };
    base.join("kustom")
}

/// Metadata of a cached http file.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct FileMeta {
    /// The URL.
    pub url: String,
    /// sha256 of the body.
    pub sha256: String,
    /// `ETag` of the response.
    #[serde(default)]
    pub etag: Option<String>,
    /// `Last-Modified` of the response.
    #[serde(default)]
    pub last_modified: Option<String>,
}

impl FileMeta {
    /// The conditional-request headers that revalidate this cached copy.
    pub fn validators(&self) -> super::http::Validators {
        super::http::Validators {
            etag: self.etag.clone(),
            last_modified: self.last_modified.clone(),
        }
    }
}

/// What the cache holds for one URL ([`Cache::file_state`]).
#[derive(Debug)]
pub enum FileState {
    /// A body matching its recorded digest, and its metadata.
    Ok(PathBuf, FileMeta),
    /// An entry whose body and record disagree (the path named).
    Damaged(PathBuf),
    /// Nothing.
    Missing,
}

/// A held exclusive lock on a repository's cache directory.
pub struct RepoLock(std::fs::File);

impl Drop for RepoLock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor we own.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::new(format!("kustom cache: {}: {e}", path.display()))
}

impl Cache {
    /// The cache at `root`.
    pub fn new(root: PathBuf) -> Cache {
        Cache { root }
    }

    /// The directory of one repository (by clone URL).
    pub fn repo_dir(&self, clone_url: &str) -> PathBuf {
        self.root.join("git").join(key(clone_url))
    }

    /// The checkout of `commit` (with or without submodules).
    pub fn checkout(&self, clone_url: &str, commit: &str, submodules: bool) -> PathBuf {
        let name = if submodules {
            commit.to_string()
        } else {
            format!("{commit}-nosub")
        };
        self.repo_dir(clone_url).join(name)
    }

    /// The sparse checkout of `commit` holding what the kustomization at
    /// `root` needs (see `remote::sparse`): keyed by the root as well,
    /// since two roots of one commit need different directories.
    pub fn sparse_checkout(
        &self,
        clone_url: &str,
        commit: &str,
        submodules: bool,
        root: &str,
    ) -> PathBuf {
        let full = self.checkout(clone_url, commit, submodules);
        let mut name = full.file_name().expect("a commit").to_owned();
        name.push(format!("-at-{}", &sha256_hex(root.as_bytes())[..12]));
        full.with_file_name(name)
    }

    /// A new private directory for a fetch in progress.
    pub fn scratch(&self) -> Result<Scratch, Error> {
        self.scratch_named("fetch-")
    }

    /// A new private directory under `tmp/` whose name starts with `prefix`.
    pub fn scratch_named(&self, prefix: &str) -> Result<Scratch, Error> {
        self.remove_abandoned();
        let tmp = self.root.join("tmp");
        std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
        // Made under a name no sweep takes, locked, then renamed: a
        // directory under its final name is locked from the start.
        let made = tempfile::Builder::new()
            .prefix(NEW_SCRATCH)
            .tempdir_in(&tmp)
            .map_err(io(&tmp))?;
        let held = lock_dir(made.path()).map_err(io(made.path()))?;
        let name = made
            .path()
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(NEW_SCRATCH))
            .map(|n| format!("{prefix}{n}"))
            .expect("tempfile names it with the prefix");
        let path = tmp.join(name);
        std::fs::rename(made.path(), &path).map_err(io(&path))?;
        let _ = made.keep();
        Ok(Scratch {
            path: Some(crate::processes::Temporary::new(path)),
            _held: held,
        })
    }

    /// Remove what killed builds left under `tmp/` (once per process):
    /// every directory whose lock can be taken, and half-made ones after a
    /// minute.
    pub fn remove_abandoned(&self) {
        static DONE: std::sync::Once = std::sync::Once::new();
        DONE.call_once(|| {
            for entry in read_dir(&self.root.join("tmp")) {
                let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or("");
                let abandoned = if name.starts_with(NEW_SCRATCH) {
                    std::fs::symlink_metadata(&entry)
                        .and_then(|m| m.modified())
                        .is_ok_and(|t| t.elapsed().unwrap_or_default().as_secs() > 60)
                } else {
                    // Taken without waiting: the build that made it is gone.
                    try_lock_dir(&entry).is_some()
                };
                if abandoned {
                    tracing::debug!(dir = %entry.display(), "removing what a killed build left");
                    remove_settled(&entry);
                }
            }
        });
    }

    /// Take the repository's lock (blocks while another build fetches it).
    pub fn lock_repo(&self, clone_url: &str) -> Result<RepoLock, Error> {
        use std::os::fd::AsRawFd;
        let dir = self.repo_dir(clone_url);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let path = dir.join(".lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io(&path))?;
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(io(&path)(std::io::Error::last_os_error()));
        }
        Ok(RepoLock(file))
    }

    /// A complete checkout entry: the directory and its digests.
    pub fn complete_checkout(&self, dir: &Path) -> bool {
        dir.is_dir() && sums_path(dir).is_file()
    }

    /// Move a finished checkout into place and record its digests.
    pub fn install_checkout(&self, from: &Path, to: &Path) -> Result<(), Error> {
        remove_git_dirs(from)?;
        let sums = digests(from, "")?;
        if to.exists() {
            // An earlier, incomplete or corrupted entry.
            self.discard(to)?;
        }
        std::fs::rename(from, to).map_err(io(to))?;
        let text = serde_json::to_string(&sums).expect("plain map");
        crate::fetch::lock::write_atomically(&sums_path(to), text.as_bytes())?;
        touch(to);
        Ok(())
    }

    /// Remove an entry (renamed away first, so no reader sees it half-deleted).
    pub fn discard(&self, entry: &Path) -> Result<(), Error> {
        let _ = std::fs::remove_file(sums_path(entry));
        if entry.exists() {
            let trash = self.scratch()?;
            let target = trash.path().join("old");
            std::fs::rename(entry, &target).map_err(io(entry))?;
        }
        Ok(())
    }

    /// Whether the files under `sub` of a checkout still have the digests
    /// recorded when it was fetched.
    pub fn verify_checkout(&self, entry: &Path, sub: &str) -> Result<bool, Error> {
        Ok(self.damage(entry, sub)?.is_none())
    }

    /// The first file under `sub` of a checkout that differs from the
    /// digests recorded when it was fetched (changed, added or removed), or
    /// the record itself when it is missing or unreadable; `None` when
    /// everything matches.
    pub fn damage(&self, entry: &Path, sub: &str) -> Result<Option<String>, Error> {
        let sums = sums_path(entry);
        let Ok(text) = std::fs::read_to_string(&sums) else {
            return Ok(Some(format!("{} is missing", sums.display())));
        };
        let Ok(recorded) = serde_json::from_str::<BTreeMap<String, String>>(&text) else {
            return Ok(Some(format!("{} is not a digest record", sums.display())));
        };
        let sub = sub.trim_matches('/');
        let prefix = if sub.is_empty() || sub == "." {
            String::new()
        } else {
            format!("{sub}/")
        };
        let start = if prefix.is_empty() {
            entry.to_path_buf()
        } else {
            entry.join(sub)
        };
        if !start.is_dir() {
            // A missing path, or a file where a directory belongs, is
            // reported by the build ("expecting directory"); nothing of it
            // is read, so there is nothing to verify.
            return Ok(None);
        }
        let now = digests(&start, &prefix)?;
        let expected: BTreeMap<&String, &String> = recorded
            .iter()
            .filter(|(k, _)| k.starts_with(&prefix))
            .collect();
        touch(entry);
        let changed = now
            .iter()
            .find(|(k, v)| expected.get(k) != Some(v))
            .map(|(k, _)| k.clone())
            .or_else(|| {
                expected
                    .keys()
                    .find(|k| !now.contains_key(**k))
                    .map(|k| format!("{k} (removed)"))
            });
        Ok(changed.map(|f| entry.join(f).display().to_string()))
    }

    /// The last commits refs of a repository resolved to.
    pub fn refs(&self, clone_url: &str) -> BTreeMap<String, String> {
        std::fs::read_to_string(self.repo_dir(clone_url).join("refs.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// Record what `git_ref` resolved to.
    pub fn set_ref(&self, clone_url: &str, git_ref: &str, commit: &str) -> Result<(), Error> {
        let mut refs = self.refs(clone_url);
        if refs.get(git_ref).map(String::as_str) == Some(commit) {
            return Ok(());
        }
        refs.insert(git_ref.to_string(), commit.to_string());
        let dir = self.repo_dir(clone_url);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let text = serde_json::to_string_pretty(&refs).expect("plain map");
        crate::fetch::lock::write_atomically(&dir.join("refs.json"), text.as_bytes())
    }

    fn file_paths(&self, url: &str) -> (PathBuf, PathBuf) {
        let dir = self.root.join("http");
        let k = key(url);
        (dir.join(format!("{k}.body")), dir.join(format!("{k}.json")))
    }

    /// A cached file whose body still matches its recorded digest.
    pub fn file(&self, url: &str) -> Option<(PathBuf, FileMeta)> {
        match self.file_state(url) {
            FileState::Ok(body, meta) => Some((body, meta)),
            FileState::Missing => None,
            FileState::Damaged(_) => {
                tracing::warn!(%url, "cached file does not match its digest; fetching it again");
                None
            }
        }
    }

    /// What the cache holds for `url`: a good copy, a damaged one (a body
    /// that no longer matches the digest recorded when it was fetched, or
    /// a body without its record), or nothing.
    pub fn file_state(&self, url: &str) -> FileState {
        let (body, meta_path) = self.file_paths(url);
        let meta = std::fs::read_to_string(&meta_path)
            .ok()
            .and_then(|t| serde_json::from_str::<FileMeta>(&t).ok())
            .filter(|m| m.url == url);
        match (meta, body.exists()) {
            (None, false) => FileState::Missing,
            (None, true) => FileState::Damaged(body),
            (Some(meta), _) => match file_sha256(&body) {
                Ok(d) if d == meta.sha256 => {
                    touch(&body);
                    FileState::Ok(body, meta)
                }
                Ok(_) => FileState::Damaged(body),
                Err(_) if !body.exists() => FileState::Damaged(meta_path),
                Err(_) => FileState::Damaged(body),
            },
        }
    }

    /// Store a fetched file; returns its path.
    pub fn store_file(&self, meta: &FileMeta, body: &[u8]) -> Result<PathBuf, Error> {
        let (body_path, meta_path) = self.file_paths(&meta.url);
        let dir = body_path.parent().expect("inside http/");
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        crate::fetch::lock::write_atomically(&body_path, body)?;
        let text = serde_json::to_string_pretty(meta).expect("plain struct");
        crate::fetch::lock::write_atomically(&meta_path, text.as_bytes())?;
        Ok(body_path)
    }

    /// Whether a GET of `url` failed earlier and it was cloned as a repository.
    pub fn file_kind_is_repo(&self, url: &str) -> bool {
        self.file_paths(url).0.with_extension("repo").is_file()
    }

    /// Remember that `url` is a repository, not a file.
    pub fn set_file_kind_repo(&self, url: &str) -> Result<(), Error> {
        let marker = self.file_paths(url).0.with_extension("repo");
        let dir = marker.parent().expect("inside http/");
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        crate::fetch::lock::write_atomically(&marker, url.as_bytes())
    }

    /// Remove entries not used for `max_age` (all of them with `None`);
    /// returns (entries removed, bytes freed).
    pub fn prune(&self, max_age: Option<std::time::Duration>) -> Result<(usize, u64), Error> {
        let now = std::time::SystemTime::now();
        let old = |p: &Path| match max_age {
            None => true,
            Some(age) => std::fs::metadata(p)
                .and_then(|m| m.modified())
                .map(|t| now.duration_since(t).unwrap_or_default() > age)
                .unwrap_or(true),
        };
        let (mut count, mut bytes) = (0, 0);
        let mut remove = |p: &Path| {
            bytes += du(p);
            count += 1;
            if p.is_dir() {
                let _ = std::fs::remove_dir_all(p);
            } else {
                let _ = std::fs::remove_file(p);
            }
        };
        for repo in read_dir(&self.root.join("git")) {
            let _guard = match self.lock_repo_at(&repo) {
                Some(g) => g,
                None => continue,
            };
            for entry in read_dir(&repo) {
                if entry.is_dir() && old(&entry) {
                    let _ = std::fs::remove_file(sums_path(&entry));
                    remove(&entry);
                }
            }
        }
        for f in read_dir(&self.root.join("http")) {
            if f.extension().is_some_and(|e| e == "body") && old(&f) {
                let _ = std::fs::remove_file(f.with_extension("json"));
                remove(&f);
            }
        }
        // Helm charts: archives, what versions resolved to, indexes.
        for sub in ["charts/archives", "charts/pulled", "charts/http"] {
            for f in read_dir(&self.root.join(sub)) {
                if f.is_file() && old(&f) {
                    remove(&f);
                }
            }
        }
        // Fetches abandoned by killed builds (not one a build still holds).
        for t in read_dir(&self.root.join("tmp")) {
            if t.is_dir() && try_lock_dir(&t).is_none() {
                continue;
            }
            if max_age.is_none()
                || old(&t) && {
                    let day = std::time::Duration::from_secs(86400);
                    std::fs::metadata(&t)
                        .and_then(|m| m.modified())
                        .map(|m| now.duration_since(m).unwrap_or_default() > day)
                        .unwrap_or(true)
                }
            {
                remove(&t);
            }
        }
        Ok((count, bytes))
    }

    fn lock_repo_at(&self, repo: &Path) -> Option<RepoLock> {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(repo.join(".lock"))
            .ok()?;
        // SAFETY: flock on a descriptor we own.
        (unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0).then_some(RepoLock(file))
    }
}

/// How a scratch directory is named until it is locked.
const NEW_SCRATCH: &str = ".new-";

/// A private directory under the cache's `tmp/`: removed when dropped (or
/// on a signal), and locked while the build that made it lives.
#[derive(Debug)]
pub struct Scratch {
    path: Option<crate::processes::Temporary<PathBuf>>,
    /// The `flock` on the directory, released when the build ends.
    _held: std::fs::File,
}

impl Scratch {
    /// The directory.
    pub fn path(&self) -> &Path {
        self.path.as_deref().expect("present until dropped")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            let path = path.into_inner();
            remove_any(&path);
        }
    }
}

/// Open `dir` and take its lock, waiting for nobody.
fn try_lock_dir(dir: &Path) -> Option<std::fs::File> {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(dir).ok()?;
    // SAFETY: flock on a descriptor we own.
    (unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0).then_some(file)
}

/// Open `dir` and take its lock (it is new: nobody else holds it).
fn lock_dir(dir: &Path) -> std::io::Result<std::fs::File> {
    try_lock_dir(dir).ok_or_else(std::io::Error::last_os_error)
}

/// Remove what a killed build left, waiting (up to a second) for its
/// stragglers: git dies with kustom, but a child of git's (`index-pack`,
/// `unpack-objects`) may write into the directory for a few more
/// milliseconds until it sees its pipe close, and a removal racing it fails
/// with "directory not empty".
fn remove_settled(p: &Path) {
    for _ in 0..50 {
        remove_any(p);
        if std::fs::symlink_metadata(p).is_err() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    tracing::warn!(dir = %p.display(), "could not remove what a killed build left; a later build will");
}

/// Remove a directory tree or a file.
fn remove_any(p: &Path) {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => {
            let _ = std::fs::remove_dir_all(p);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(p);
        }
        Err(_) => {}
    }
}

fn read_dir(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

fn du(p: &Path) -> u64 {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => read_dir(p).iter().map(|c| du(c)).sum(),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

/// Mark an entry used (prune removes the least recently used).
pub fn touch(p: &Path) {
    let _ = std::fs::File::open(p).and_then(|f| f.set_modified(std::time::SystemTime::now()));
}

fn sums_path(entry: &Path) -> PathBuf {
    let mut s = entry.as_os_str().to_owned();
    s.push(".sums");
    PathBuf::from(s)
}

/// A readable, collision-free file name for a URL.
fn key(url: &str) -> String {
    let readable: String = url
        .split("://")
        .last()
        .unwrap_or(url)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(48)
        .collect();
    format!("{readable}-{}", &sha256_hex(url.as_bytes())[..16])
}

/// `.git` directories and gitlink files go: the checkout is read-only content.
fn remove_git_dirs(root: &Path) -> Result<(), Error> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(io(&dir))? {
            let entry = entry.map_err(io(&dir))?;
            let path = entry.path();
            let ty = entry.file_type().map_err(io(&path))?;
            if entry.file_name() == ".git" {
                if ty.is_dir() {
                    std::fs::remove_dir_all(&path).map_err(io(&path))?;
                } else {
                    std::fs::remove_file(&path).map_err(io(&path))?;
                }
            } else if ty.is_dir() {
                stack.push(path);
            }
        }
    }
    Ok(())
}

/// Every file under `dir` (names prefixed by `prefix`) with its sha256
/// (symlinks: their target).
fn digests(dir: &Path, prefix: &str) -> Result<BTreeMap<String, String>, Error> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(io(&d))? {
            let entry = entry.map_err(io(&d))?;
            let path = entry.path();
            let ty = entry.file_type().map_err(io(&path))?;
            let rel = format!(
                "{prefix}{}",
                path.strip_prefix(dir).unwrap_or(&path).display()
            );
            if ty.is_dir() {
                stack.push(path);
            } else if ty.is_symlink() {
                let target = std::fs::read_link(&path).map_err(io(&path))?;
                out.insert(rel, format!("link:{}", target.display()));
            } else {
                out.insert(rel, file_sha256(&path)?);
            }
        }
    }
    Ok(out)
}
