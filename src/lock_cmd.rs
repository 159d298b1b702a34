//! `kustom lock [DIR]` and how `kustom build` treats `DIR/kustom.lock`:
//! a lock beside the build root is enforced; remotes it lacks are added
//! after a successful build, unless `--locked`.

use crate::cli::BuildArgs;
use crate::lock::{Lock, LockMode, LockState};
use kustom_api::Error;
use std::path::Path;
use std::sync::Arc;

/// The lock state of a build of `dir` (a local directory or a URL).
pub fn state_for_build(dir: &Path, locked: bool) -> Result<Arc<LockState>, Error> {
    if !dir.is_dir() {
        // A remote build target has no lock beside it.
        return Ok(Arc::new(LockState::new(
            LockMode::Unlocked,
            Lock::default(),
            None,
        )));
    }
    let path = Lock::path_for(dir);
    let (mode, pinned) = match (Lock::read(&path)?, locked) {
        (Some(lock), true) => (LockMode::Locked, lock),
        (Some(lock), false) => (LockMode::Enforce, lock),
        (None, true) => (LockMode::Locked, Lock::default()),
        (None, false) => (LockMode::Unlocked, Lock::default()),
    };
    Ok(Arc::new(LockState::new(mode, pinned, Some(path))))
}

/// After a successful build: write what `kustom lock` recorded, or add the
/// remotes an enforced lock did not know yet.
pub fn after_build(state: &LockState) -> Result<(), Error> {
    let Some(path) = &state.path else {
        return Ok(());
    };
    let recorded = state.recorded();
    match state.mode {
        LockMode::Record => {
            let mut lock = recorded;
            // Plugin pins are kept from the file when this build ran none.
            if lock.plugins.is_empty() {
                lock.plugins = state.pinned.plugins.clone();
            }
            lock.write(path)
        }
        LockMode::Enforce => {
            let new: Vec<_> = recorded
                .remotes
                .into_iter()
                .filter(|r| state.pinned.remote(&r.url).is_none())
                .collect();
            if new.is_empty() {
                return Ok(());
            }
            let mut lock = state.pinned.clone();
            lock.remotes.extend(new);
            lock.write(path)
        }
        LockMode::Unlocked | LockMode::Locked => Ok(()),
    }
}

/// `kustom lock [DIR]`: build DIR recording every remote and plugin, then
/// write DIR/kustom.lock.
pub fn run(args: &BuildArgs) -> Result<(), Error> {
    if !args.dir.is_dir() {
        return Err(Error::new(format!(
            "kustom lock: {} is not a local directory with a kustomization",
            args.dir.display()
        )));
    }
    let path = Lock::path_for(&args.dir);
    let pinned = Lock::read(&path)?.unwrap_or_default();
    let state = Arc::new(LockState::new(LockMode::Record, pinned, Some(path)));
    crate::cli::build_with(args, state)
}
