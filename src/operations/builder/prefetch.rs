//! Large resource files of a tree read ahead on another core.
//!
//! A build loads its kustomizations one after another: a component's CRD
//! bundle is parsed only once the kustomizations before it are done, on one
//! core, while the other waits. For `kustom build` of a root that lists a
//! directory or a large file ([`worth_it`]), a thread walks the tree
//! from the root in build order (`resources`, `bases`, `components` of each
//! local kustomization), lists the large resource files, and parses them
//! into `Doc`s (the same ones [`super::resources`] makes) from the last
//! one back: the build starts from the first, and the two meet in the
//! middle instead of queueing for the same file. When the build reaches a
//! file — after its own load-restrictor check — it takes the docs read
//! ahead, waits for a file being read, or claims the file and reads it
//! itself; a file the reader ahead failed on is read again by the build,
//! which reports the error in its own words.
//!
//! The reader ahead reads kustomization files, and resource files only
//! where the default load restrictor lets the build read them (regular
//! files in or below the directory of the kustomization that lists them,
//! after resolving symlinks); never a URL. Nothing it read is used unless
//! the build asks for that same file.

use super::resources::each_doc_in_file;
use crate::operations::kustomization;
use kustom_api::doc::Doc;
use kustom_api::{yaml, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Files smaller than this are not worth a thread's hand-over.
const AHEAD_MIN_BYTES: u64 = 256 * 1024;

/// Kustomizations deeper than this below the root are not walked.
const MAX_DEPTH: usize = 32;

/// Whether the kustomization `kust` in `dir` lists what a reader ahead is
/// for: a directory (whose tree may hold large files) or a large file. A
/// small overlay's build does not start the thread.
pub fn worth_it(dir: &Path, kust: &kustomization::Kustomization) -> bool {
    [&kust.resources, &kust.bases, &kust.components]
        .into_iter()
        .flatten()
        .filter(|entry| !entry.contains("://"))
        .filter_map(|entry| std::fs::metadata(dir.join(entry)).ok())
        .any(|m| m.is_dir() || (m.is_file() && m.len() >= AHEAD_MIN_BYTES))
}

/// Where one file stands.
enum State {
    /// Being read (by the reader ahead).
    Reading,
    /// Claimed by the build, which reads it itself.
    Claimed,
    /// Read ahead, not yet taken.
    Read(Vec<Doc>),
    /// The reader ahead failed: the build reads it again.
    Failed,
}

#[derive(Default)]
struct Shared {
    files: Mutex<HashMap<PathBuf, State>>,
    changed: Condvar,
    stop: AtomicBool,
}

/// The reader ahead of one build.
pub struct Prefetch {
    shared: Arc<Shared>,
}

impl Prefetch {
    /// Start reading ahead the tree of the kustomization in `root`.
    pub fn start(root: &Path) -> Option<Prefetch> {
        let root = root.canonicalize().ok()?;
        let shared = Arc::new(Shared::default());
        let worker = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("prefetch".into())
            .spawn(move || {
                let mut walk = Walk {
                    shared: &worker,
                    seen: HashSet::new(),
                    large: Vec::new(),
                };
                walk.kustomization(&root, 0);
                for file in std::mem::take(&mut walk.large).iter().rev() {
                    if walk.stopped() {
                        break;
                    }
                    walk.file(file);
                }
            })
            .ok()?;
        Some(Prefetch { shared })
    }

    /// The docs of the file at `real` (canonical, already checked by the
    /// build) if they were read ahead; None: the build reads it itself (as
    /// it does a file it loads a second time: the docs are handed over, not
    /// kept).
    pub fn take(&self, real: &Path) -> Option<Vec<Doc>> {
        let mut files = self.shared.files.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match files.get(real) {
                Some(State::Read(_)) => {
                    tracing::debug!(file = %real.display(), "taken from reading ahead");
                    return match files.insert(real.to_path_buf(), State::Claimed) {
                        Some(State::Read(docs)) => Some(docs),
                        _ => None,
                    };
                }
                Some(State::Reading) => {
                    tracing::debug!(file = %real.display(), "waiting for reading ahead");
                    files = self
                        .shared
                        .changed
                        .wait(files)
                        .unwrap_or_else(|e| e.into_inner());
                }
                Some(State::Claimed | State::Failed) => return None,
                None => {
                    files.insert(real.to_path_buf(), State::Claimed);
                    return None;
                }
            }
        }
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}

struct Walk<'a> {
    shared: &'a Shared,
    seen: HashSet<PathBuf>,
    /// The large resource files, in build order.
    large: Vec<PathBuf>,
}

impl Walk<'_> {
    fn stopped(&self) -> bool {
        self.shared.stop.load(Ordering::Relaxed)
    }

    /// Walk the kustomization in `dir` (canonical) in build order.
    fn kustomization(&mut self, dir: &Path, depth: usize) {
        if depth > MAX_DEPTH || self.stopped() || !self.seen.insert(dir.to_path_buf()) {
            return;
        }
        let Ok(file) = kustomization::find_file(dir) else {
            return;
        };
        let Some(kust) = kustom_api::files::read_text(&file)
            .ok()
            .and_then(|text| yaml::parse_kustomization(&text).ok())
            .and_then(|docs| docs.into_iter().next())
        else {
            return;
        };
        for field in ["resources", "bases", "components"] {
            let Some(Value::Array(entries)) = kust.get(field) else {
                continue;
            };
            for entry in entries.iter().filter_map(Value::as_str) {
                if self.stopped() {
                    return;
                }
                // URLs are the build's alone.
                if entry.contains("://") || entry.contains('?') {
                    continue;
                }
                let Ok(real) = dir.join(entry).canonicalize() else {
                    continue;
                };
                match std::fs::metadata(&real) {
                    Ok(m) if m.is_dir() => self.kustomization(&real, depth + 1),
                    // A file only where the default load restrictor lets
                    // the build read it: in or below its kustomization.
                    Ok(m) if m.is_file() && m.len() >= AHEAD_MIN_BYTES && real.starts_with(dir) => {
                        self.large.push(real)
                    }
                    _ => {}
                }
            }
        }
    }

    /// Read the resource file at `real`, unless the build claimed it.
    fn file(&mut self, real: &Path) {
        {
            let mut files = self.shared.files.lock().unwrap_or_else(|e| e.into_inner());
            if files.contains_key(real) {
                return;
            }
            files.insert(real.to_path_buf(), State::Reading);
        }
        let mut docs = Vec::new();
        // The names in an error do not matter: the build reads a failed
        // file again and reports it itself. A panic must not leave the
        // build waiting for the file.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            each_doc_in_file(real, "", real, |d| {
                docs.push(d);
                Ok(())
            })
        }));
        tracing::debug!(file = %real.display(), ok = matches!(read, Ok(Ok(()))), "read ahead");
        let state = match read {
            Ok(Ok(())) => State::Read(docs),
            _ => State::Failed,
        };
        let mut files = self.shared.files.lock().unwrap_or_else(|e| e.into_inner());
        files.insert(real.to_path_buf(), state);
        self.shared.changed.notify_all();
    }
}
