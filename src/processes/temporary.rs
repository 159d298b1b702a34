//! Temporary files and directories removed on every way out: when their
//! owner drops them, as usual, and also when kustom ends on a signal,
//! which runs no destructors (the handler removes them from a lock-free
//! copy of their paths).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The paths of the temporaries alive now, by id, with their slot in the
/// signal handler's copy.
static ALIVE: Mutex<Vec<(u64, PathBuf, Option<usize>)>> = Mutex::new(Vec::new());

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A temporary file or directory (a `tempfile::TempDir` or
/// `NamedTempFile`) that is removed even when kustom ends on a signal.
#[derive(Debug)]
pub struct Temporary<T: AsRef<Path>> {
    inner: Option<T>,
    id: u64,
}

impl<T: AsRef<Path>> Temporary<T> {
    /// Register `inner`'s path for removal on a signal.
    pub fn new(inner: T) -> Temporary<T> {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let path = inner.as_ref().to_path_buf();
        let mut alive = lock();
        let slot = super::slots::add_temporary(&path);
        alive.push((id, path, slot));
        drop(alive);
        Temporary {
            inner: Some(inner),
            id,
        }
    }

    /// Keep the file: it is no longer removed on a signal (persisted by a
    /// rename, say).
    pub fn into_inner(mut self) -> T {
        self.forget();
        self.inner.take().expect("present until dropped")
    }

    fn forget(&self) {
        let mut alive = lock();
        alive.retain(|(id, _, slot)| {
            if *id == self.id {
                if let Some(slot) = slot {
                    super::slots::remove_temporary(*slot);
                }
            }
            *id != self.id
        });
    }
}

impl<T: AsRef<Path>> std::ops::Deref for Temporary<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.inner.as_ref().expect("present until dropped")
    }
}

impl<T: AsRef<Path>> std::ops::DerefMut for Temporary<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.inner.as_mut().expect("present until dropped")
    }
}

impl<T: AsRef<Path>> Drop for Temporary<T> {
    fn drop(&mut self) {
        if self.inner.is_some() {
            self.forget();
        }
    }
}

fn lock() -> std::sync::MutexGuard<'static, Vec<(u64, PathBuf, Option<usize>)>> {
    ALIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Remove every registered temporary; the list stays locked until the
/// process exits (call only on the way out).
pub(super) fn remove_all() {
    let alive = lock();
    for (_, path, _) in alive.iter() {
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => {
                // A thread still writing into it may add an entry meanwhile.
                if std::fs::remove_dir_all(path).is_err() {
                    let _ = std::fs::remove_dir_all(path);
                }
            }
            Ok(_) => {
                let _ = std::fs::remove_file(path);
            }
            Err(_) => {}
        }
    }
    std::mem::forget(alive);
}
