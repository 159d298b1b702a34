//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

/// `--plugin-allow-read` grants for a helm installed outside the system
/// paths (plugins, and the builtin's helm, run confined): its prefix (the
/// directory above its `bin/`), and for `.ci/install-helm.sh`'s front end
/// the prefix of the Python its virtualenv was made from.
pub fn helm_reads(helm: &Path) -> Vec<String> {
    let prefix = |p: &Path| {
        p.canonicalize()
            .ok()
            .and_then(|p| p.parent()?.parent().map(Path::to_path_buf))
    };
    let mut dirs: Vec<PathBuf> = prefix(helm).into_iter().collect();
    if let Some(p) = dirs.first().map(|d| d.join("venv/bin/python")) {
        dirs.extend(prefix(&p));
    }
    dirs.iter()
        .flat_map(|d| ["--plugin-allow-read".to_string(), d.display().to_string()])
        .collect()
}
