//! `kustom lock [DIR]`: build DIR as `kustom build` would, record the
//! sha256 of every plugin executable it runs (and the remote resources it
//! fetches), and write `DIR/kustom.lock`.

use super::build_settings::BuildArgs;
use crate::fetch::lock::{Lock, LockMode, LockState};
use clap::Args;
use kustom_api::Error;
use std::sync::Arc;

/// Flags of `kustom lock`: those of `kustom build` (the plugins that run
/// depend on them: --enable-alpha-plugins, --enable-exec, --enable-helm…).
#[derive(Args, Debug)]
pub struct LockArgs {
    /// The build whose plugins and remotes are pinned.
    #[command(flatten)]
    pub build: BuildArgs,
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
    super::build::build_with(&args.build, state.clone(), false)?;
    let lock = state.recorded();
    lock.write(&path)?;
    let charts = match lock.charts.len() {
        0 => String::new(),
        1 => ", 1 chart".to_string(),
        n => format!(", {n} charts"),
    };
    eprintln!(
        "wrote {} ({} plugin{}, {} remote{}{charts})",
        path.display(),
        lock.plugins.len(),
        if lock.plugins.len() == 1 { "" } else { "s" },
        lock.remotes.len(),
        if lock.remotes.len() == 1 { "" } else { "s" },
    );
    Ok(())
}
