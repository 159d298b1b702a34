//! `kustom build -o PATH`: the result goes to a file (replaced atomically)
//! or, when PATH is an existing directory, one file per resource named as
//! kustomize names them — all files or none.
//!
//! A directory is written in three steps so that a failure at any point
//! leaves it exactly as it was: every file is first written into a private
//! staging directory inside PATH (same file system, so renames are atomic);
//! then each staged file is renamed into place, an existing file of that
//! name first being moved aside into the staging directory; if any rename
//! fails, the placed files are removed and the moved-aside ones put back.

use crate::operations::kustomization::Kustomization;
use crate::operations::output;
use kustom_api::doc::Doc;
use kustom_api::{Error, ResId};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Write the build result to `path`: one file per resource into an existing
/// directory, else the whole stream into a file.
pub fn write(resources: &[Doc], top: &Kustomization, path: &Path) -> Result<(), Error> {
    if path.is_dir() {
        write_dir(resources, top, path)
    } else {
        crate::fetch::lock::write_atomically(path, output::render(resources, top).as_bytes())
            .map_err(|e| e.context("nothing was written"))
    }
}

/// kustomize's namespace for grouping: none for cluster-scoped kinds,
/// `default` for an unset namespace.
fn effective_namespace(id: &ResId) -> Option<&str> {
    if id.gvk.is_cluster_scoped() {
        None
    } else if id.namespace.is_empty() {
        Some("default")
    } else {
        Some(&id.namespace)
    }
}

/// The file name kustomize's `build -o DIR` gives each resource:
/// `[group_]version_kind_name.yaml` in lower case, prefixed with
/// `namespace_` when the namespaced resources span more than one namespace.
pub fn file_names(resources: &[Doc]) -> Vec<String> {
    let ids: Vec<ResId> = resources.iter().map(Doc::id).collect();
    let namespaces: std::collections::HashSet<&str> =
        ids.iter().filter_map(effective_namespace).collect();
    ids.iter()
        .map(|id| {
            let gvk: Vec<&str> = [&id.gvk.group, &id.gvk.version, &id.gvk.kind]
                .into_iter()
                .map(String::as_str)
                .filter(|s| !s.is_empty())
                .collect();
            let base = format!("{}_{}.yaml", gvk.join("_"), id.name).to_lowercase();
            match effective_namespace(id) {
                Some(ns) if namespaces.len() > 1 => format!("{}_{base}", ns.to_lowercase()),
                _ => base,
            }
        })
        .collect()
}

/// Refuse names that are not a single plain file name, and two resources
/// that would land in one file (compared case-insensitively, as a macOS or
/// Windows file system would).
fn check_names(resources: &[Doc], names: &[String], dir: &Path) -> Result<(), Error> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, name) in names.iter().enumerate() {
        let plain = !name.contains('/')
            && !name.contains('\0')
            && Path::new(name).file_name() == Some(std::ffi::OsStr::new(name));
        if !plain {
            return Err(Error::new(format!(
                "cannot write {} to {}: its file name {name:?} is not a plain file name; write to a file instead of a directory",
                resources[i].id(),
                dir.display()
            )));
        }
        if let Some(&j) = seen.get(&name.to_lowercase()) {
            return Err(Error::new(format!(
                "cannot write to {}: {} and {} would both be written to {name:?} (file names are compared ignoring case); nothing was written, write to a file instead",
                dir.display(),
                resources[j].id(),
                resources[i].id()
            )));
        }
        seen.insert(name.to_lowercase(), i);
        let target = dir.join(name);
        if target.is_dir() {
            return Err(Error::new(format!(
                "cannot write {} to {}: a directory is in the way; nothing was written",
                resources[i].id(),
                target.display()
            )));
        }
    }
    Ok(())
}

/// Write one file per resource into `dir`, all or nothing.
pub fn write_dir(resources: &[Doc], top: &Kustomization, dir: &Path) -> Result<(), Error> {
    let names = file_names(resources);
    check_names(resources, &names, dir)?;
    let fail = |what: &str, p: &Path, e: std::io::Error| {
        Error::new(format!(
            "{what} {}: {e}; {} was left as it was",
            p.display(),
            dir.display()
        ))
    };
    let mode = default_file_mode();
    // Files in name order, so that what is written does not depend on the
    // resource order when names are checked above.
    let files: BTreeMap<&str, &Doc> = names.iter().map(String::as_str).zip(resources).collect();
    if is_empty_dir(dir) {
        // Nothing to replace (a fresh `render` or `-o` directory): write in
        // place and, on a failure, remove what was written. Saves the
        // staging directories, which cost as much as the files on ext4.
        return write_into_empty(&files, top, dir, mode);
    }
    let stage = tempfile::Builder::new()
        .prefix(".kustom-output-")
        .tempdir_in(dir)
        .map(crate::processes::Temporary::new)
        .map_err(|e| fail("creating a staging directory in", dir, e))?;
    for (name, r) in &files {
        let staged = stage.path().join(name);
        let mut text = String::new();
        output::write_resource_file(&mut text, r, top);
        write_new_file(&staged, text.as_bytes(), mode).map_err(|e| fail("writing", &staged, e))?;
    }
    let aside = stage.path().join(".replaced");
    std::fs::create_dir(&aside).map_err(|e| fail("creating", &aside, e))?;
    // What was done, to undo it: (target, moved-aside old file).
    let mut placed: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let result = (|| {
        for name in files.keys() {
            let target = dir.join(name);
            let old = match std::fs::symlink_metadata(&target) {
                Ok(_) => {
                    let moved = aside.join(name);
                    std::fs::rename(&target, &moved).map_err(|e| fail("replacing", &target, e))?;
                    Some(moved)
                }
                Err(_) => None,
            };
            // Recorded before the rename so a failed rename still restores the old file.
            placed.push((target.clone(), old));
            std::fs::rename(stage.path().join(name), &target)
                .map_err(|e| fail("writing", &target, e))?;
        }
        Ok(())
    })();
    if result.is_err() {
        for (target, old) in placed.iter().rev() {
            match old {
                Some(moved) => {
                    let _ = std::fs::rename(moved, target);
                }
                None => {
                    let _ = std::fs::remove_file(target);
                }
            }
        }
    }
    // Dropping the staging directory removes the replaced files and any
    // staged file left behind.
    drop(stage);
    result
}

/// Whether `dir` is a directory with nothing in it.
fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none())
}

/// Write `files` into the empty `dir`; all or nothing.
fn write_into_empty(
    files: &BTreeMap<&str, &Doc>,
    top: &Kustomization,
    dir: &Path,
    mode: u32,
) -> Result<(), Error> {
    let mut written: Vec<PathBuf> = Vec::new();
    for (name, r) in files {
        let target = dir.join(name);
        let mut text = String::new();
        output::write_resource_file(&mut text, r, top);
        if let Err(e) = write_new_file(&target, text.as_bytes(), mode) {
            // create_new: a file that appeared meanwhile is not ours to remove.
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                let _ = std::fs::remove_file(&target);
            }
            for w in &written {
                let _ = std::fs::remove_file(w);
            }
            return Err(Error::new(format!(
                "writing {}: {e}; {} was left as it was",
                target.display(),
                dir.display()
            )));
        }
        written.push(target);
    }
    Ok(())
}

/// Create `path` (which must not exist) with `bytes` and permission `mode`.
fn write_new_file(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// 0666: the process umask applies when the file is created, as for any
/// new file (kustomize writes its files with 0666 too).
fn default_file_mode() -> u32 {
    0o666
}
