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
pub mod sparse;
pub mod spec;

use crate::fetch::lock::{LockMode, LockState, RemotePin};
use crate::fetch::progress;
use cache::{Cache, FileMeta, FileState};
use spec::RepoSpec;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
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
    /// Fetched from the server by this build (not taken from the cache).
    pub fresh: bool,
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
type ResolveMemo = Arc<OnceLock<Result<Option<String>, String>>>;

/// (clone URL, ref, submodules, root directory) → checkout, once per build.
type RepoKey = (String, String, bool, String);

/// Fetches remote content for one build.
#[derive(Debug)]
pub struct Fetcher {
    /// The cache.
    pub cache: Cache,
    /// `--offline`: the cache only.
    pub offline: bool,
    /// Pins and what this build fetched.
    pub lock: Arc<LockState>,
    /// Helm charts pulled from repositories.
    pub charts: crate::fetch::charts::Charts,
    /// URL → local copy of every remote file fetched so far.
    files: Mutex<BTreeMap<String, PathBuf>>,
    /// URL → why it could not be had, so a file is asked for once per build.
    failed: Mutex<HashMap<String, FileError>>,
    /// One checkout per repository, ref and root directory per build.
    repos: Mutex<HashMap<RepoKey, Memo>>,
    /// Cache entries whose every file matched its digest in this build.
    verified: Mutex<std::collections::HashSet<PathBuf>>,
    /// (clone URL, ref) → commit, one `git ls-remote` per build.
    resolved: Mutex<HashMap<(String, String), ResolveMemo>>,
}

impl Fetcher {
    /// A fetcher over the cache at `cache_dir`.
    pub fn new(cache_dir: PathBuf, offline: bool, lock: Arc<LockState>) -> Fetcher {
        Fetcher {
            charts: crate::fetch::charts::Charts::new(&cache_dir, offline, lock.clone()),
            cache: Cache::new(cache_dir),
            offline,
            lock,
            files: Mutex::new(BTreeMap::new()),
            failed: Mutex::new(HashMap::new()),
            repos: Mutex::new(HashMap::new()),
            verified: Mutex::new(Default::default()),
            resolved: Mutex::new(HashMap::new()),
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

    /// The local copies of remote files (and the directories of Helm
    /// charts, under [`crate::fetch::charts::chart_key`]) fetched so far,
    /// for plugins.
    pub fn files_json(&self) -> Option<String> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner()).clone();
        files.extend(self.charts.handed());
        (!files.is_empty()).then(|| serde_json::to_string(&files).expect("plain map"))
    }

    /// The local copies of remote files and charts fetched so far: a
    /// confined builtin plugin may read them (they stand for files of its
    /// kustomization).
    pub fn file_paths(&self) -> Vec<PathBuf> {
        let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<PathBuf> = files.values().cloned().collect();
        out.extend(self.charts.handed().into_values());
        out
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
        if let Some(e) = self
            .failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(url)
        {
            return Err(e.clone());
        }
        let result = self.file_uncached(url);
        if let Err(e) = &result {
            self.failed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(url.to_string(), e.clone());
        }
        result
    }

    fn file_uncached(&self, url: &str) -> Result<PathBuf, FileError> {
        self.cache.remove_abandoned();
        if let Some(e) = self.not_in_lock(url) {
            return Err(FileError::Other(e));
        }
        let pin = self.pin(url).cloned();
        let cached = match self.cache.file_state(url) {
            FileState::Ok(path, meta) => Some((path, meta)),
            FileState::Missing => None,
            FileState::Damaged(path) if self.offline => {
                return Err(FileError::Other(format!(
                    "--offline: the cached copy of {url} is damaged ({} does not match the digest recorded when it was fetched); build once online to fetch it again",
                    path.display()
                )))
            }
            FileState::Damaged(path) => {
                tracing::warn!(%url, path = %path.display(), "cached file does not match its digest; fetching it again");
                None
            }
        };
        let path = match (&pin, cached) {
            // Pinned and cached with the pinned digest: no request at all
            // (a build; `kustom lock` pins only what the server sends).
            (Some(pin), Some((path, meta)))
                if meta.sha256 == pin.sha256 && self.lock.mode != LockMode::Record =>
            {
                path
            }
            (_, Some((path, _))) if self.offline => path,
            (_, None) if self.offline => {
                return Err(FileError::Other(format!(
                    "--offline: {url} is not in the cache ({}); build once online to fetch it",
                    self.cache.root.display()
                )))
            }
            // `kustom lock`: a full download, not a revalidation of the
            // cached copy (whose digest record could have been rewritten).
            (_, _) if self.lock.mode == LockMode::Record => {
                let _announce = progress::announce_if_slow(url.to_string());
                self.download(url, None)?
            }
            (_, cached) => {
                let _announce = progress::announce_if_slow(url.to_string());
                let held = cached.is_some();
                self.download(url, cached).map_err(|e| match e {
                    // The network is down (or the server unreachable) but an
                    // earlier build cached the file: say how to use it.
                    FileError::Transport(why) if held => FileError::Transport(format!(
                        "{why}\nthe cache holds {url}: `kustom build --offline` would build from it"
                    )),
                    e => e,
                })?
            }
        };
        let digest = |p: &Path| {
            crate::fetch::lock::file_sha256(p).map_err(|e| FileError::Other(e.to_string()))
        };
        let mut sha = digest(&path)?;
        let mut path = path;
        if let Some(pin) = &pin {
            if pin.sha256 != sha && !self.offline {
                // The cached copy may have been changed with its record:
                // a full download decides.
                path = self.download(url, None)?;
                sha = digest(&path)?;
            }
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
            .map(|(_, m)| m.validators())
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
    ///
    /// What is pinned and what is used are never taken on the cache's word
    /// alone: `kustom lock` fetches the commit again and pins what the
    /// server sent (replacing a cache entry that differs); a build whose
    /// pin disagrees with the cache fetches the commit again before it
    /// refuses; a damaged entry is fetched again, or under `--offline`
    /// named as damaged.
    pub fn repo(&self, spec: &RepoSpec) -> Result<(Checkout, PathBuf), String> {
        self.cache.remove_abandoned();
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
                .entry((
                    url.clone(),
                    git_ref.clone(),
                    spec.submodules,
                    sparse_root(&spec.root),
                ))
                .or_default()
                .clone()
        };
        let record = self.lock.mode == LockMode::Record;
        let mut checkout = memo
            .get_or_init(|| {
                let _announce = (!self.offline).then(|| {
                    let at = if git_ref.is_empty() { "HEAD" } else { &git_ref };
                    progress::announce_if_slow(format!("{url} at {at}"))
                });
                let refetch = if record { Refetch::Verify } else { Refetch::No };
                self.checkout(spec, &url, &git_ref, refetch)
            })
            .clone()?;
        // The whole entry, not only the root's directory: a base reads
        // files beside it too (`../components/x`, a sibling's patch).
        if let Some(damage) = self.damage_once(&checkout.dir)? {
            if self.offline {
                return Err(format!(
                    "--offline: the cached checkout of {} at commit {} is damaged ({damage} does not match the digest recorded when it was fetched); build once online to fetch it again",
                    spec.raw, checkout.commit
                ));
            }
            tracing::warn!(url = %spec.raw, %damage, "cached checkout was modified; fetching it again");
            let _ = self.cache.discard(&checkout.dir);
            checkout = self.checkout(spec, &url, &checkout.commit, Refetch::Yes)?;
        }
        if let Some(pin) = &pin {
            let mut sha = tree_digest(&checkout.dir.join(&spec.root))?;
            if sha != pin.sha256 && !checkout.fresh && !self.offline {
                // Same commit, other bytes: the cache entry (and its digest
                // record) were changed. The server decides.
                tracing::warn!(url = %spec.raw, cached = %sha, pinned = %pin.sha256, "cached checkout differs from kustom.lock; fetching the commit again");
                let _ = self.cache.discard(&checkout.dir);
                checkout = self.checkout(spec, &url, &checkout.commit, Refetch::Yes)?;
                sha = tree_digest(&checkout.dir.join(&spec.root))?;
            }
            if sha != pin.sha256 {
                let whence = if checkout.fresh {
                    "as fetched"
                } else {
                    "in the cache (--offline: not fetched again)"
                };
                return Err(format!(
                    "content of {} at commit {} {whence} has sha256 {sha}, but kustom.lock pins sha256 {}; review the change and run `kustom lock` to accept it",
                    spec.raw, checkout.commit, pin.sha256
                ));
            }
        }
        let root = checkout.dir.join(&spec.root);
        if self.lock.mode != LockMode::Unlocked && root.is_dir() {
            self.lock.record_remote(RemotePin {
                url: spec.raw.clone(),
                commit: Some(checkout.commit.clone()),
                sha256: tree_digest(&root)?,
            });
        }
        Ok((checkout, root))
    }

    /// The first damaged file of a cached checkout (see `Cache::damage`),
    /// checked once per entry per build: every file of the entry, since a
    /// build may read any of them.
    fn damage_once(&self, entry: &Path) -> Result<Option<String>, String> {
        if self
            .verified
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(entry)
        {
            return Ok(None);
        }
        let damage = self.cache.damage(entry, "").map_err(|e| e.to_string())?;
        if damage.is_none() {
            self.verified
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(entry.to_path_buf());
        }
        Ok(damage)
    }

    /// The cache entry holding `commit` for `spec`: a whole checkout if one
    /// is complete, else the sparse checkout for the spec's root.
    fn entry_for(&self, spec: &RepoSpec, url: &str, commit: &str) -> PathBuf {
        let full = self.cache.checkout(url, commit, spec.submodules);
        let root = sparse_root(&spec.root);
        if root.is_empty() || self.cache.complete_checkout(&full) {
            return full;
        }
        self.cache
            .sparse_checkout(url, commit, spec.submodules, &root)
    }

    /// Resolve `git_ref` and make sure its checkout is in the cache.
    fn checkout(
        &self,
        spec: &RepoSpec,
        url: &str,
        git_ref: &str,
        refetch: Refetch,
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
            let memo = {
                let mut resolved = self.resolved.lock().unwrap_or_else(|e| e.into_inner());
                resolved
                    .entry((url.to_string(), git_ref.to_string()))
                    .or_default()
                    .clone()
            };
            memo.get_or_init(|| {
                git::ls_remote(url, git_ref, deadline).map_err(|e| {
                    match self.cache.refs(url).get(ref_key) {
                        // The network is down (or the server refuses) but an
                        // earlier build cached the ref: say how to use it.
                        Some(cached) => format!(
                            "{e}\nthe cache holds {ref_key} of {url} (commit {cached}): `kustom build --offline` would build from it"
                        ),
                        None => e.to_string(),
                    }
                })
            })
            .clone()?
        };
        if let Some(c) = &commit {
            let entry = self.entry_for(spec, url, c);
            if refetch == Refetch::No && self.cache.complete_checkout(&entry) {
                if !spec::is_commit_id(git_ref) && !self.offline {
                    let _ = self.cache.set_ref(url, ref_key, c);
                }
                return Ok(Checkout {
                    dir: entry,
                    commit: c.clone(),
                    fresh: false,
                });
            }
            if self.offline {
                let why = if entry.exists() {
                    "is damaged (its digest record is missing: a fetch was interrupted, or the entry was changed)"
                } else {
                    "is not in the cache"
                };
                return Err(format!(
                    "--offline: commit {c} of {url} {why} ({}); build once online to fetch it again",
                    self.cache.root.display()
                ));
            }
        }
        // Fetch under the repository's lock; another build may have
        // fetched it meanwhile.
        let _guard = self.cache.lock_repo(url).map_err(|e| e.to_string())?;
        if let Some(c) = &commit {
            let entry = self.entry_for(spec, url, c);
            if refetch == Refetch::No && self.cache.complete_checkout(&entry) {
                return Ok(Checkout {
                    dir: entry,
                    commit: c.clone(),
                    fresh: false,
                });
            }
        }
        let scratch = self.cache.scratch().map_err(|e| e.to_string())?;
        let work = scratch.path().join("checkout");
        let what = match (&commit, git_ref) {
            (Some(c), _) => c.as_str(),
            (None, "") => "HEAD",
            (None, r) => r,
        };
        let root = sparse_root(&spec.root);
        let (fetched, sparse) = match self.clone_fresh(&work, url, what, &root, spec, deadline) {
            Ok(f) => f,
            // A pinned or resolved commit the server will not serve by id:
            // fetch the ref by name instead, as kustomize would.
            Err(e) if commit.is_some() && !spec.git_ref.is_empty() && what != spec.git_ref => {
                tracing::debug!(error = %e, "fetch by commit failed; fetching the ref");
                self.clone_fresh(&work, url, &spec.git_ref, &root, spec, deadline)?
            }
            Err(e) => return Err(e),
        };
        if let Some(c) = &commit {
            if *c != fetched && spec::is_commit_id(git_ref) {
                return Err(format!("fetched commit {fetched} but {c} was asked for"));
            }
        }
        let entry = if sparse {
            self.cache
                .sparse_checkout(url, &fetched, spec.submodules, &root)
        } else {
            self.cache.checkout(url, &fetched, spec.submodules)
        };
        let keep_cached = refetch == Refetch::Verify
            && self.cache.complete_checkout(&entry)
            && self.same_root(&entry, &work, spec)?;
        if !keep_cached {
            if refetch == Refetch::Verify && entry.exists() {
                tracing::warn!(%url, commit = %fetched, entry = %entry.display(), "the cached checkout differs from what the server sent for this commit; replaced");
            }
            self.cache
                .install_checkout(&work, &entry)
                .map_err(|e| e.to_string())?;
        }
        if !spec::is_commit_id(git_ref) {
            let _ = self.cache.set_ref(url, ref_key, &fetched);
        }
        Ok(Checkout {
            dir: entry,
            commit: fetched,
            fresh: true,
        })
    }

    /// Whether a cached entry holds exactly what a fresh fetch at `work`
    /// holds under the spec's root, and nothing in it was changed.
    fn same_root(&self, entry: &Path, work: &Path, spec: &RepoSpec) -> Result<bool, String> {
        if self
            .cache
            .damage(entry, "")
            .map_err(|e| e.to_string())?
            .is_some()
        {
            return Ok(false);
        }
        let (cached, fresh) = (entry.join(&spec.root), work.join(&spec.root));
        if !cached.is_dir() || !fresh.is_dir() {
            return Ok(cached.is_dir() == fresh.is_dir());
        }
        Ok(tree_digest(&cached)? == tree_digest(&fresh)?)
    }

    /// A new clone of `what` into `work` (emptied first): a partial, sparse
    /// one when the spec names a directory inside the repository, falling
    /// back to kustomize's whole shallow clone when git cannot do that.
    /// Returns the commit and whether the clone is sparse.
    fn clone_fresh(
        &self,
        work: &Path,
        url: &str,
        what: &str,
        root: &str,
        spec: &RepoSpec,
        deadline: Instant,
    ) -> Result<(String, bool), String> {
        let fresh_dir = || -> Result<(), String> {
            let _ = std::fs::remove_dir_all(work);
            std::fs::create_dir(work).map_err(|e| format!("{}: {e}", work.display()))
        };
        if !root.is_empty() && std::env::var_os(ENV_NO_SPARSE).is_none() {
            fresh_dir()?;
            match sparse::clone(work, url, what, root, spec.submodules, deadline) {
                Ok(c) => return Ok((c, true)),
                Err(e) if e.timed_out => return Err(e.to_string()),
                Err(e) => {
                    tracing::debug!(error = %e, "partial sparse clone failed; cloning the whole tree");
                }
            }
        }
        fresh_dir()?;
        git::clone_into(work, url, what, spec.submodules, deadline)
            .map(|c| (c, false))
            .map_err(|e| e.to_string())
    }
}

/// Set (to anything) to make every git fetch a whole shallow clone, as
/// kustomize does, instead of a partial sparse one.
pub const ENV_NO_SPARSE: &str = "KUSTOM_GIT_NO_SPARSE";

/// Whether a checkout may come from the cache as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refetch {
    /// Use a complete cache entry.
    No,
    /// Fetch again and replace the entry (it was found damaged).
    Yes,
    /// Fetch again; keep the entry if it holds the same content, else
    /// replace it (`kustom lock`: pin only what the server sent).
    Verify,
}

/// The root as a sparse checkout names it: clean, `""` for the
/// repository's root directory.
fn sparse_root(root: &str) -> String {
    let clean = kustom_api::paths::clean(root.trim_matches('/'));
    if clean == "." {
        String::new()
    } else {
        clean
    }
}

fn tree_digest(root: &std::path::Path) -> Result<String, String> {
    crate::fetch::lock::tree_sha256(root).map_err(|e| e.to_string())
}
