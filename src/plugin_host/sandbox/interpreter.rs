//! The interpreter a plugin names on its `#!` line, and where it is
//! installed: readable by the plugin wherever it lives, so that a Python
//! plugin runs on the first try under pyenv, asdf, conda, nix, linuxbrew or
//! a virtualenv. `#!/usr/bin/env NAME` is resolved through `PATH`, as
//! `env` will resolve it; an interpreter that is itself a script (pyenv's
//! shims are `#!/usr/bin/env bash` scripts) is followed one step further.
//!
//! The installation prefix is the directory above the interpreter's
//! `bin/` (or `shims/`, `libexec/`): `~/.pyenv` for
//! `~/.pyenv/shims/python3`, `~/.venv` for `~/.venv/bin/python`. A prefix
//! that is `/`, the home directory or one of its ancestors is never
//! granted (the interpreter's own directory is, then); nor is anything
//! the system allow-list already covers.

use super::system;
use std::path::{Path, PathBuf};

/// Directories whose parent is an installation prefix.
const BIN_DIRS: &[&str] = &["bin", "sbin", "shims", "libexec"];

/// The interpreter of a script (`#!` line), resolved; None for a binary.
fn shebang(exe: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(exe).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = line.split(|b| *b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let program = PathBuf::from(words.next()?);
    if program.file_name().is_some_and(|n| n == "env") {
        // `env [-S] [-i] [NAME=VALUE…] PROGRAM`: the first plain word.
        let name = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
        if name.contains('/') {
            return Some(PathBuf::from(name));
        }
        return which::which(name).ok();
    }
    Some(program)
}

fn covered_by_system(p: &Path) -> bool {
    system::SYSTEM_READ.iter().any(|e| p.starts_with(e.path))
}

/// The prefix of an interpreter found at `p`, or its directory.
fn prefix(p: &Path) -> Option<PathBuf> {
    let dir = p.parent()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let too_wide =
        |d: &Path| d == Path::new("/") || home.as_deref().is_some_and(|h| h.starts_with(d));
    let prefix = dir
        .file_name()
        .filter(|n| BIN_DIRS.iter().any(|b| n == b))
        .and_then(|_| dir.parent())
        .filter(|d| !too_wide(d));
    match prefix {
        Some(d) => Some(d.to_path_buf()),
        None if !too_wide(dir) => Some(dir.to_path_buf()),
        None => None,
    }
}

/// Paths to grant for reading so that `exe`'s interpreter runs.
pub fn reads(exe: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut next = shebang(exe);
    for _ in 0..3 {
        let Some(found) = next.take() else { break };
        let real = found.canonicalize().unwrap_or_else(|_| found.clone());
        for p in [&found, &real] {
            if covered_by_system(p) {
                continue;
            }
            if let Some(d) = prefix(p) {
                if !out.iter().any(|o| d.starts_with(o)) {
                    out.push(d);
                }
            }
        }
        next = shebang(&real);
    }
    out
}

/// Paths to grant for reading so that a tool a plugin runs (the helm the
/// builtin runs) works where it is installed: its installation prefix,
/// the interpreter of its `#!` line, and, for a prefix holding a Python
/// virtualenv (`pyvenv.cfg` there or in `venv/`, `.venv/`: helm's Python
/// front end, pipx installs), the base interpreter's prefix the
/// virtualenv's `python` links to.
pub fn installation(exe: &Path) -> Vec<PathBuf> {
    let real = exe.canonicalize().unwrap_or_else(|_| exe.to_path_buf());
    let mut out = reads(&real);
    let Some(own) = prefix(&real).filter(|d| !covered_by_system(d)) else {
        return out;
    };
    for venv in [own.clone(), own.join("venv"), own.join(".venv")] {
        let python = venv.join("bin/python");
        if venv.join("pyvenv.cfg").is_file() {
            if let Some(base) = python.canonicalize().ok().as_deref().and_then(prefix) {
                if !covered_by_system(&base) && !out.contains(&base) {
                    out.push(base);
                }
            }
        }
    }
    if !out.iter().any(|o| own.starts_with(o)) {
        out.push(own);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn env_names_are_resolved_and_prefixes_granted() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("opt/py/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let python = bin.join("python3");
        std::fs::write(&python, b"\x7fELF").unwrap();
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
        let plugin = dir.path().join("plugin");
        std::fs::write(&plugin, format!("#!{}\nprint(1)\n", python.display())).unwrap();
        assert_eq!(reads(&plugin), vec![dir.path().join("opt/py")]);
        std::fs::write(&plugin, "#!/bin/sh\n").unwrap();
        assert!(reads(&plugin).is_empty());
        std::fs::write(&plugin, "no shebang").unwrap();
        assert!(reads(&plugin).is_empty());
    }
}
