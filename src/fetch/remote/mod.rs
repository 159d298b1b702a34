//! Remote bases and files: what kustomize fetches (git repositories through
//! the `git` executable, http(s) files), kept in a cache that makes the
//! second build free, checked against `kustom.lock` pins.
//!
//! [`spec`] decides which strings are repositories, [`git`] and [`http`]
//! fetch, [`cache`] stores, and [`Fetcher`] ties them to one build: the
//! lock, `--offline`, and a per-build memo so that a repository named by
//! several URLs is resolved once.

pub mod cache;
pub mod git;
pub mod http;
pub mod spec;

use crate::fetch::lock::{LockMode, LockState, RemotePin};
use crate::fetch::progress;
use cache::{Cache, FileMeta};
use spec::RepoSpec;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

pub use kustom_api::protocol::ENV_REMOTE_FILES;

/// A repository checked out in the cache.
#[derive(Debug, Clone)]
pub struct Checkout {
    /// The checkout's root directory (the clone).
    pub dir: PathBuf,
    /// The commit checked out.
    pub commit: String,
}

/// Why a remote file could not be had.
#[derive(Debug, Clone)]
pub enum FileError {
    /// The server answered with a non-2xx status (kustomize's ErrHTTP).
    Status(u16, String),
    /// No response: DNS, connection, TLS, timeout.
    Transport(String),
    /// Anything else (offline and not cached, lock mismatch, cache I/O).
    Other(String),
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::Status(code, text) => write!(f, "HTTP status code {code} ({text})"),
            FileError::Transport(e) | FileError::Other(e) => f.write_str(e),
        }
    }
}

type Memo = Arc<OnceLock<Result<Checkout, String>>>;

/// Fetches remote content for one build.
#[derive(Debug)]
pub struct Fetcher {
    /// The cache.
    pub cache: Cache,
    /// `--offline`: the cache only.
    pub offline: bool,
    /// Pins and what this build fetched.
    pub lock: Arc<LockState>,
    /// URL → local copy of every remote file fetched so far.
    files: Mutex<BTreeMap<String, PathBuf>>,
    /// (clone URL, ref, submodules) → checkout, once per build.
    repos: Mutex<HashMap<(String, String, bool), Memo>>,
}

impl Fetcher {
    /// A fetcher over the cache at `cache_dir`.
    pub fn new(cache_dir: PathBuf, offline: bool, lock: Arc<LockState>) -> Fetcher {
        Fetcher {
            cache: Cache::new(cache_dir),
            offline,
            lock,
            files: Mutex::new(BTreeMap::new()),
            repos: Mutex::new(HashMap::new()),
        }
    }

    /// The pin for `url` when pins are in force.
    fn pin(&self, url: &str) -> Option<&RemotePin> {
        match self.lock.mode {
            LockMode::Enforce | LockMode::Locked => self.lock.pinned.remote(url),
            LockMode::Unlocked | LockMode::Record => None,
        }
    }

    fn not_in_lock(&self, url: &str) -> Option<String> {
        if let Some(message) = self.lock.missing_file_error(url) {
            return Some(message);
        }
        (self.lock.mode == LockMode::Locked && self.lock.pinned.remote(url).is_none()).then(|| {
            format!(
                "{url} is not in {} and --locked forbids adding it; run `kustom lock` to record it",
                self.lock
                    .path
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| crate::fetch::lock::LOCK_FILE.into())
            )
        })
    }

    /// Whether earlier builds (or the lock) know `url` as a repository, so
    /// the GET kustomize would try first can be skipped.
    pub fn known_repo(&self, url: &str) -> bool {
        if self.pin(url).is_some_and(|p| p.commit.is_some()) {
            return true;
        }
        self.cache.file_kind_is_repo(url)
    }

    /// Note that `url` (an http URL) turned out to be a repository.
    pub fn note_repo(&self, url: &str) {
        let _ = self.cache.set_file_kind_repo(url);
    }

    /// The local copies of remote files fetched so far, for plugins.
    pub fn files_json(&self) -> Option<String> {
        let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        (!files.is_empty()).then(|| serde_json::to_string(&*files).expect("plain map"))
    }

    /// The local copies of remote files fetched so far: a confined builtin
    /// plugin may read them (they stand for files of its kustomization).
    pub fn file_paths(&self) -> Vec<PathBuf> {
        let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files.values().cloned().collect()
    }

    /// Fetch an http(s) file; returns its local copy.
    pub fn file(&self, url: &str) -> Result<PathBuf, FileError> {
        if let Some(p) = self
            .files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(url)
        {
            return Ok(p.clone());
        }
        if let Some(e) = self.not_in_lock(url) {
            return Err(FileError::Other(e));
        }
        let pin = self.pin(url).cloned();
        let cached = self.cache.file(url);
        let path = match (&pin, cached) {
            // Pinned and cached with the pinned digest: no request at all.
            (Some(pin), Some((path, meta))) if meta.sha256 == pin.sha256 => path,
            (_, Some((path, _))) if self.offline => path,
            (_, None) if self.offline => {
                return Err(FileError::Other(format!(
                    "--offline: {url} is not in the cache ({}); build once online to fetch it",
                    self.cache.root.display()
                )))
            }
            (_, cached) => {
                let _announce = progress::announce_if_slow(url.to_string());
                self.download(url, cached)?
            }
        };
        let sha =
            crate::fetch::lock::file_sha256(&path).map_err(|e| FileError::Other(e.to_string()))?;
        if let Some(pin) = &pin {
            if pin.sha256 != sha {
                return Err(FileError::Other(format!(
                    "{url}: content (sha256 {sha}) does not match kustom.lock (sha256 {}); the file changed upstream: review it and run `kustom lock` to accept",
                    pin.sha256
                )));
            }
        }
        if self.lock.mode != LockMode::Unlocked {
            self.lock.record_remote(RemotePin {
                url: url.to_string(),
                commit: None,
                sha256: sha,
            });
        }
        self.files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(url.to_string(), path.clone());
        Ok(path)
    }

    fn download(
        &self,
        url: &str,
        cached: Option<(PathBuf, FileMeta)>,
    ) -> Result<PathBuf, FileError> {
        let validators = cached
            .as_ref()
            .map(|(_, m)| http::Validators {
                etag: m.etag.clone(),
                last_modified: m.last_modified.clone(),
            })
            .unwrap_or_default();
        match http::get(url, &validators).map_err(FileError::Transport)? {
            http::Response::NotModified => match cached {
                Some((path, _)) => Ok(path),
                None => Err(FileError::Status(304, "Not Modified".into())),
            },
            http::Response::Status(code, text) => Err(FileError::Status(code, text)),
            http::Response::Ok {
                body,
                etag,
                last_modified,
            } => {
                let meta = FileMeta {
                    url: url.to_string(),
                    sha256: crate::fetch::lock::sha256_hex(&body),
                    etag,
                    last_modified,
                };
                self.cache
                    .store_file(&meta, &body)
                    .map_err(|e| FileError::Other(e.to_string()))
            }
        }
    }

    /// Check out the repository of `spec` at its ref (or its pinned commit);
    /// returns the checkout and the kustomization root inside it.
    pub fn repo(&self, spec: &RepoSpec) -> Result<(Checkout, PathBuf), String> {
        if let Some(e) = self.not_in_lock(&spec.raw) {
            return Err(e);
        }
        let pin = self.pin(&spec.raw).cloned();
        let url = spec.clone_url();
        let git_ref = match pin.as_ref().and_then(|p| p.commit.clone()) {
            Some(c) => c,
            None => spec.git_ref.clone(),
        };
        let memo = {
            let mut repos = self.repos.lock().unwrap_or_else(|e| e.into_inner());
            repos
                .entry((url.clone(), git_ref.clone(), spec.submodules))
                .or_default()
                .clone()
        };
        let mut checkout = memo
            .get_or_init(|| {
                let _announce = (!self.offline).then(|| {
                    let at = if git_ref.is_empty() { "HEAD" } else { &git_ref };
                    progress::announce_if_slow(format!("{url} at {at}"))
                });
                self.checkout(spec, &url, &git_ref, false)
            })
            .clone()?;
        let root = checkout.dir.join(&spec.root);
        if !self
            .cache
            .verify_checkout(&checkout.dir, &spec.root)
            .map_err(|e| e.to_string())?
        {
            tracing::warn!(url = %spec.raw, "cached checkout was modified; fetching it again");
            checkout = self.checkout(spec, &url, &checkout.commit, true)?;
        }
        if let Some(pin) = &pin {
            let sha = tree_digest(&root)?;
            if sha != pin.sha256 {
                return Err(format!(
                    "content of {} at commit {} (sha256 {sha}) does not match kustom.lock (sha256 {}); run `kustom lock` to accept the change",
                    spec.raw, checkout.commit, pin.sha256
                ));
            }
        }
        if self.lock.mode != LockMode::Unlocked && root.is_dir() {
            self.lock.record_remote(RemotePin {
                url: spec.raw.clone(),
                commit: Some(checkout.commit.clone()),
                sha256: tree_digest(&root)?,
            });
        }
        Ok((checkout, root))
    }

    /// Resolve `git_ref` and make sure its checkout is in the cache
    /// (`refetch`: replace whatever entry is there).
    fn checkout(
        &self,
        spec: &RepoSpec,
        url: &str,
        git_ref: &str,
        refetch: bool,
    ) -> Result<Checkout, String> {
        let deadline = Instant::now() + spec.timeout;
        let ref_key = if git_ref.is_empty() { "HEAD" } else { git_ref };
        let commit = if spec::is_commit_id(git_ref) {
            Some(git_ref.to_string())
        } else if self.offline {
            match self.cache.refs(url).get(ref_key) {
                Some(c) => Some(c.clone()),
                None => {
                    return Err(format!(
                        "--offline: ref {ref_key} of {url} was never fetched into the cache ({}); build once online",
                        self.cache.root.display()
                    ))
                }
            }
        } else {
            git::ls_remote(url, git_ref, deadline).map_err(|e| {
                match self.cache.refs(url).get(ref_key) {
                    // The network is down (or the server refuses) but an
                    // earlier build cached the ref: say how to use it.
                    Some(cached) => format!(
                        "{e}\nthe cache holds {ref_key} of {url} (commit {cached}): `kustom build --offline` would build from it"
                    ),
                    None => e.to_string(),
                }
            })?
        };
        if let Some(c) = &commit {
            let entry = self.cache.checkout(url, c, spec.submodules);
            if !refetch && self.cache.complete_checkout(&entry) {
                if !spec::is_commit_id(git_ref) && !self.offline {
                    let _ = self.cache.set_ref(url, ref_key, c);
                }
                return Ok(Checkout {
                    dir: entry,
                    commit: c.clone(),
                });
            }
            if self.offline {
                return Err(format!(
                    "--offline: commit {c} of {url} is not in the cache ({}); build once online",
                    self.cache.root.display()
                ));
            }
        }
        // Fetch under the repository's lock; another build may have
        // fetched it meanwhile.
        let _guard = self.cache.lock_repo(url).map_err(|e| e.to_string())?;
        if let Some(c) = &commit {
            let entry = self.cache.checkout(url, c, spec.submodules);
            if !refetch && self.cache.complete_checkout(&entry) {
                return Ok(Checkout {
                    dir: entry,
                    commit: c.clone(),
                });
            }
        }
        let scratch = self.cache.scratch().map_err(|e| e.to_string())?;
        let work = scratch.path().join("checkout");
        std::fs::create_dir(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        let what = match (&commit, git_ref) {
            (Some(c), _) => c.as_str(),
            (None, "") => "HEAD",
            (None, r) => r,
        };
        let fetched = match git::clone_into(&work, url, what, spec.submodules, deadline) {
            Ok(c) => c,
            // A pinned or resolved commit the server will not serve by id:
            // fetch the ref by name instead, as kustomize would.
            Err(e) if commit.is_some() && !spec.git_ref.is_empty() && what != spec.git_ref => {
                tracing::debug!(error = %e, "fetch by commit failed; fetching the ref");
                let _ = std::fs::remove_dir_all(&work);
                std::fs::create_dir(&work).map_err(|e| format!("{}: {e}", work.display()))?;
                git::clone_into(&work, url, &spec.git_ref, spec.submodules, deadline)
                    .map_err(|e| e.to_string())?
            }
            Err(e) => return Err(e.to_string()),
        };
        if let Some(c) = &commit {
            if *c != fetched && spec::is_commit_id(git_ref) {
                return Err(format!("fetched commit {fetched} but {c} was asked for"));
            }
        }
        let entry = self.cache.checkout(url, &fetched, spec.submodules);
        self.cache
            .install_checkout(&work, &entry)
            .map_err(|e| e.to_string())?;
        if !spec::is_commit_id(git_ref) {
            let _ = self.cache.set_ref(url, ref_key, &fetched);
        }
        Ok(Checkout {
            dir: entry,
            commit: fetched,
        })
    }
}

fn tree_digest(root: &std::path::Path) -> Result<String, String> {
    crate::fetch::lock::tree_sha256(root).map_err(|e| e.to_string())
}
