//! `kustom render -o OUTDIR ROOT... | --roots FILE`: many roots in one
//! process, each written as `kustom build ROOT -o OUTDIR/ROOT` writes it.

use super::build_settings::BuildFlags;
use crate::fetch::lock::LockState;
use crate::operations::render::roots::{self, Shard};
use crate::operations::render::{self, Options};
use crate::operations::write_output;
use kustom_api::Error;
use std::path::PathBuf;
use std::sync::Mutex;

/// Arguments of `kustom render`.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// Kustomization directories to build (default: every kustomization
    /// directory below the current one that no other kustomization includes).
    pub roots: Vec<String>,
    /// Also build the roots listed in FILE (one per line, `#` comments).
    #[arg(long = "roots", value_name = "FILE")]
    pub roots_file: Option<PathBuf>,
    /// Write each root's resources into OUTDIR/ROOT, one file per resource.
    #[arg(short, long, value_name = "OUTDIR")]
    pub output: PathBuf,
    /// Build only the K-th of N parts of the roots (a CI matrix job).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Roots built at once (default: the number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// How to build.
    #[command(flatten)]
    pub build: BuildFlags,
}

/// The render options these flags ask for.
pub fn options(build: &BuildFlags, jobs: Option<usize>) -> Result<Options, Error> {
    Ok(Options {
        restrictor: build.restrictor()?,
        reorder: build.reorder()?,
        managed_by_label: build.enable_managedby_label,
        locked: build.locked,
        write_locks: true,
        offline: build.offline,
        threads: jobs.unwrap_or_else(Options::default_threads).max(1),
    })
}

/// `kustom render`.
pub fn run(args: &RenderArgs) -> Result<(), Error> {
    if let Some(n) = args.build.max_alias_expansion {
        std::env::set_var(kustom_api::yaml::ENV_ALIAS_BUDGET, n.to_string());
    }
    let mut names: Vec<String> = args.roots.iter().map(|r| roots::normalize(r)).collect();
    if let Some(file) = &args.roots_file {
        names.extend(roots::read_roots_file(file)?);
    }
    if names.is_empty() && args.roots_file.is_none() {
        names = crate::operations::review::discover::roots_below(std::path::Path::new("."))?;
    }
    let names = match args.shard {
        Some(shard) => shard.select(&names, |s| s),
        None => {
            let mut seen = std::collections::HashSet::new();
            names.retain(|n| seen.insert(n.clone()));
            names
        }
    };
    let opts = options(&args.build, args.jobs)?;
    let settings = args
        .build
        .plugin_settings(std::sync::Arc::new(LockState::default()))?;
    let dirs: Vec<PathBuf> = names.iter().map(PathBuf::from).collect();
    let outs: Vec<PathBuf> = names
        .iter()
        .map(|n| roots::output_dir(&args.output, n))
        .collect::<Result<_, _>>()?;
    let failed = Mutex::new(Vec::new());
    let audit = settings.audit.clone();
    render::render_roots(
        &settings,
        &dirs,
        &opts,
        &|i, mut s| {
            s.audit = audit.as_ref().map(|a| a.for_root(&names[i]));
            s
        },
        &|i, built| {
            let written = built.and_then(|b| {
                std::fs::create_dir_all(&outs[i])
                    .map_err(|e| Error::new(format!("creating {}: {e}", outs[i].display())))?;
                write_output::write_dir(&b.resources, &b.top, &outs[i])
            });
            if let Err(e) = written {
                eprintln!("Error: root {}: {}", names[i], e.message.trim_end());
                failed
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(names[i].clone());
            }
        },
    );
    let failed = failed.into_inner().unwrap_or_else(|e| e.into_inner());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::new(format!(
            "{} of {} roots failed ({}); the others were written to {}",
            failed.len(),
            names.len(),
            failed.join(", "),
            args.output.display()
        )))
    }
}
