//! `kustom cache dir` and `kustom cache prune`.

use clap::Subcommand;
use kustom_api::Error;

/// Subcommands of `kustom cache`.
#[derive(Subcommand, Debug)]
pub enum CacheCommand {
    /// Print the cache directory.
    #[command(after_help = "Examples:\n  kustom cache dir\n  du -sh \"$(kustom cache dir)\"")]
    Dir,
    /// Remove cached checkouts and files.
    #[command(
        after_help = "Examples:\n  kustom cache prune\n  kustom cache prune --older-than-days 30"
    )]
    Prune {
        /// Only entries unused for this many days (default: everything).
        #[arg(long)]
        older_than_days: Option<u64>,
    },
}

/// Run a `kustom cache` subcommand.
pub fn run(cmd: &CacheCommand) -> Result<(), Error> {
    let cache = crate::fetch::remote::cache::Cache::new(crate::fetch::remote::cache::default_dir());
    match cmd {
        CacheCommand::Dir => super::stdout::println(&cache.root.display().to_string())?,
        CacheCommand::Prune { older_than_days } => {
            let age = older_than_days.map(|d| std::time::Duration::from_secs(d * 86400));
            let (n, bytes) = cache.prune(age)?;
            eprintln!(
                "removed {n} entries ({:.1} MiB) from {}",
                bytes as f64 / 1048576.0,
                cache.root.display()
            );
        }
    }
    Ok(())
}
