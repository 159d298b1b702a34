//! Many roots in one process (`kustom render`, and both sides of
//! `kustom diff`): roots are built on as many threads as there are cores,
//! and a base reached by several roots is built once (see
//! [`crate::operations::builder::shared`]). Each root's result is exactly
//! what `kustom build ROOT` gives.

pub mod reach;
pub mod roots;

use crate::fetch::lock::{LockMode, LockState};
use crate::operations::builder::shared::SharedBases;
use crate::operations::builder::{Builder, Built, LoadRestrictor};
use crate::operations::output::Reorder;
use crate::plugin_host::Settings;
use kustom_api::Error;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// How every root is built.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--load-restrictor`.
    pub restrictor: LoadRestrictor,
    /// `--reorder`.
    pub reorder: Reorder,
    /// `--enable-managedby-label`.
    pub managed_by_label: bool,
    /// `--locked`: every root needs its `kustom.lock`.
    pub locked: bool,
    /// Add newly fetched remotes to an enforced lock, as `kustom build`
    /// does (false for trees that must not be written, as in `kustom diff`).
    pub write_locks: bool,
    /// `--offline`.
    pub offline: bool,
    /// Roots built at once.
    pub threads: usize,
}

impl Options {
    /// One thread per core.
    pub fn default_threads() -> usize {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    }
}

/// What a render did, for `-v` and tests.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    /// Base builds made and reused through sharing.
    pub bases_built: usize,
    /// Base builds reused by another root.
    pub bases_reused: usize,
    /// Roots built without sharing (a lock beside them, an audit log, a
    /// cycle risk, an OpenAPI schema after a shared base).
    pub private_roots: usize,
}

/// Settings for a root under `lock`: the build's own when no lock is in
/// force (all such roots share one remote fetcher), else a copy with the
/// lock and a fetcher that follows its pins.
fn settings_under(settings: &Settings, lock: &Arc<LockState>, offline: bool) -> Settings {
    let mut s = settings.clone();
    if lock.mode != LockMode::Unlocked {
        s.lock = lock.clone();
        s.remote = Arc::new(crate::fetch::remote::Fetcher::new(
            crate::fetch::remote::cache::default_dir(),
            offline,
            lock.clone(),
        ));
    }
    s
}

/// Build each of `roots` with `settings` (whose lock is the unlocked
/// default) and hand each result to `each` as soon as it is ready, with
/// the root's index. `settings_for_root` may adjust the settings of one
/// root (its audit log's root name).
pub fn render_roots(
    settings: &Settings,
    roots: &[PathBuf],
    opts: &Options,
    settings_for_root: &(dyn Fn(usize, Settings) -> Settings + Sync),
    each: &(dyn Fn(usize, Result<Built, Error>) + Sync),
) -> Stats {
    // Which roots may share base builds: no cycle risk in their tree.
    let share: Vec<bool> = {
        let fs = reach::FsTree {
            top: PathBuf::from("/"),
        };
        let mut walker = reach::Walker::new(&fs);
        roots
            .iter()
            .map(|r| {
                r.canonicalize()
                    .ok()
                    .and_then(|c| fs.rel(&c))
                    .is_some_and(|rel| !walker.reach(&rel).cycle_risk)
            })
            .collect()
    };
    let shared = Arc::new(SharedBases::new());
    let private = AtomicUsize::new(0);
    let next = AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(root) = roots.get(i) else {
            return;
        };
        let started = std::time::Instant::now();
        let result = build_one(
            settings,
            root,
            opts,
            share[i].then_some(&shared),
            &private,
            &|s| settings_for_root(i, s),
        );
        tracing::debug!(root = %root.display(), ms = started.elapsed().as_millis() as u64, ok = result.is_ok(), "root built");
        each(i, result);
    };
    let threads = opts.threads.clamp(1, roots.len().max(1));
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
    let (bases_built, bases_reused) = shared.counts();
    let stats = Stats {
        bases_built,
        bases_reused,
        private_roots: private.load(Ordering::Relaxed),
    };
    tracing::debug!(?stats, roots = roots.len(), "render finished");
    stats
}

/// Build one root as `kustom build` does.
fn build_one(
    settings: &Settings,
    root: &Path,
    opts: &Options,
    shared: Option<&Arc<SharedBases>>,
    private: &AtomicUsize,
    adjust: &dyn Fn(Settings) -> Settings,
) -> Result<Built, Error> {
    let lock = LockState::for_build(root, opts.locked)?;
    let settings = adjust(settings_under(settings, &lock, opts.offline));
    // A root with a lock of its own pins what it runs, and an audited root
    // records every call of its own tree: never shared.
    let shared = shared.filter(|_| lock.mode == LockMode::Unlocked && settings.audit.is_none());
    let built = match shared {
        Some(shared) => {
            let builder = Builder::with_shared(settings.clone(), opts.restrictor, shared.clone());
            let built = builder.build_root(root, opts.reorder, opts.managed_by_label)?;
            if builder.depends_on_sharing() {
                private.fetch_add(1, Ordering::Relaxed);
                Builder::new(settings, opts.restrictor).build_root(
                    root,
                    opts.reorder,
                    opts.managed_by_label,
                )?
            } else {
                built
            }
        }
        None => {
            private.fetch_add(1, Ordering::Relaxed);
            Builder::new(settings, opts.restrictor).build_root(
                root,
                opts.reorder,
                opts.managed_by_label,
            )?
        }
    };
    if opts.write_locks {
        lock.after_build()?;
    }
    Ok(built)
}
