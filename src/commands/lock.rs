//! `kustom lock [DIR]`: build DIR as `kustom build` would, record the
//! sha256 of every plugin executable it runs (and the remote resources it
//! fetches), and write `DIR/kustom.lock`. Also how a build finds its lock.

use crate::commands::BuildArgs;
use crate::fetch::lock::{Lock, LockMode, LockState};
use clap::Args;
use kustom_api::Error;
use std::path::Path;
use std::sync::Arc;

/// Flags of `kustom lock`: those of `kustom build` (the plugins that run
/// depend on them: --enable-alpha-plugins, --enable-exec, --enable-helm…).
#[derive(Args, Debug)]
pub struct LockArgs {
    /// The build whose plugins and remotes are pinned.
    #[command(flatten)]
    pub build: BuildArgs,
}

/// The lock state of a build of `dir`: `Enforce` when `dir/kustom.lock`
/// exists, `Locked` with `--locked` (which needs the file), else `Unlocked`.
/// A remote build target (a URL) has no lock beside it.
pub fn lock_state(dir: &Path, locked: bool) -> Result<Arc<LockState>, Error> {
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
        (None, true) => {
            return Err(Error::new(format!(
                "--locked: there is no {}; run `kustom lock {}` (with the same flags) after reviewing the plugins, and commit the file",
                path.as_deref()
                    .unwrap_or_else(|| Path::new(crate::fetch::lock::LOCK_FILE))
                    .display(),
                dir.display()
            )))
        }
        (_, true) => LockMode::Locked,
        (Some(_), false) => LockMode::Enforce,
        (None, false) => LockMode::Unlocked,
    };
    Ok(Arc::new(LockState::new(
        mode,
        pinned.unwrap_or_default(),
        path,
    )))
}

/// Run `kustom lock`.
pub fn run(args: &LockArgs) -> Result<(), Error> {
    let dir = &args.build.dir;
    if !dir.is_dir() {
        return Err(Error::new(format!(
            "kustom lock {}: not a local directory (the lock lives beside the build root's kustomization)",
            dir.display()
        )));
    }
    let path = Lock::path_for(dir);
    // Existing pins are handed over (the remote fetcher may reuse commits);
    // plugins are re-hashed whatever the old file said.
    let pinned = Lock::read(&path)?.unwrap_or_default();
    let state = Arc::new(LockState::new(LockMode::Record, pinned, Some(path.clone())));
    crate::commands::build_with(&args.build, state.clone(), false)?;
    let lock = state.recorded();
    lock.write(&path)?;
    eprintln!(
        "wrote {} ({} plugin{}, {} remote{})",
        path.display(),
        lock.plugins.len(),
        if lock.plugins.len() == 1 { "" } else { "s" },
        lock.remotes.len(),
        if lock.remotes.len() == 1 { "" } else { "s" },
    );
    Ok(())
}

/// After a successful build under an enforced lock: add the remotes the
/// lock did not know yet (plugins are never added silently: an unpinned
/// plugin was refused before it ran). `--locked` refuses new remotes in the
/// fetcher instead, and `kustom lock` writes the whole lock itself.
pub fn after_build(state: &LockState) -> Result<(), Error> {
    let (Some(path), LockMode::Enforce) = (&state.path, state.mode) else {
        return Ok(());
    };
    let new: Vec<_> = state
        .recorded()
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
