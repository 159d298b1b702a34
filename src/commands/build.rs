//! `kustom build DIR`: build one root and print it, or write it with `-o`.

use super::build_settings::BuildArgs;
use crate::fetch::lock::LockState;
use crate::operations::builder::Builder;
use crate::operations::{output, write_output};
use kustom_api::Error;
use std::sync::Arc;

/// `kustom build`.
pub fn run(args: &BuildArgs) -> Result<(), Error> {
    build_with(args, LockState::for_build(&args.dir, args.locked)?, true)
}

/// Build with the lock state `lock`; write the output when `write`.
pub fn build_with(args: &BuildArgs, lock: Arc<LockState>, write: bool) -> Result<(), Error> {
    if let Some(n) = args.max_alias_expansion {
        // Before any YAML is read; plugin processes inherit it.
        std::env::set_var(kustom_api::yaml::ENV_ALIAS_BUDGET, n.to_string());
    }
    let restrictor = args.restrictor()?;
    let reorder = args.reorder()?;
    let mut settings = args.plugin_settings(lock)?;
    if let Some(log) = &settings.audit {
        settings.audit = Some(log.for_root(&args.dir.display().to_string()));
    }
    let mut builder = Builder::new(settings, restrictor);
    builder.read_ahead();
    let built = builder.build_root(&args.dir, reorder, args.enable_managedby_label)?;
    // No builtin call follows: the fork server's cores are the printer's.
    crate::plugin_host::exec::fork_server::finish();
    let resources = &built.resources;
    // The lock learns new remotes only after a successful build.
    builder.settings.lock.after_build()?;
    if !write {
        return Ok(());
    }
    match &args.output {
        Some(path) => write_output::write(resources, &built.top, path),
        None => {
            super::stdout::widen_pipe_for(resources.iter().map(|r| r.json().len()).sum());
            let started = std::time::Instant::now();
            let written = super::stdout::checked(output::render_to(
                resources,
                &built.top,
                &mut std::io::stdout().lock(),
            ));
            tracing::debug!(ms = started.elapsed().as_millis() as u64, "rendered");
            log_peak_memory();
            written
        }
    }
}

/// Log the peak resident memory of the core and of its largest plugin process (`-v`).
fn log_peak_memory() {
    let peak_kib = |who| {
        // SAFETY: getrusage only writes the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        (unsafe { libc::getrusage(who, &mut u) } == 0).then_some(u.ru_maxrss)
    };
    tracing::debug!(
        core_kib = peak_kib(libc::RUSAGE_SELF),
        largest_plugin_kib = peak_kib(libc::RUSAGE_CHILDREN),
        "peak resident memory"
    );
}
