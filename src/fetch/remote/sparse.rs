//! A cold fetch that takes only what a URL needs: a partial clone (commit
//! and trees, no blobs) and a cone-mode sparse checkout of the URL's
//! directory, widened to every directory inside the repository that the
//! kustomizations checked out name (`../base`, `../components/x`, a patch
//! file in a sibling directory, a symlink's target), until nothing new is
//! named. git fetches the blobs of each widening in one batch.
//!
//! Over-inclusion is harmless (a directory that happens to share a name
//! with a string in a kustomization costs its blobs); a directory the
//! build reads must never be left out, so every string of every
//! kustomization document is considered, not only the fields known to
//! name paths. A server that refuses filters sends the blobs anyway, and
//! the sparse checkout still writes and hashes only the cone.

use super::git::{self, EntryKind, GitError};
use kustom_api::paths;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Instant;

/// At most this many widenings; past it the whole tree is checked out.
const MAX_ROUNDS: usize = 32;

const KUSTOMIZATION_NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Clone `what` of `url` into `dir` with only what the kustomization at
/// `root` (a directory inside the repository, not its root) needs; returns
/// the commit checked out.
pub fn clone(
    dir: &Path,
    url: &str,
    what: &str,
    root: &str,
    submodules: bool,
    deadline: Instant,
) -> Result<String, GitError> {
    git::fetch_partial(dir, url, what, deadline)?;
    let tree = git::ls_tree(dir, "FETCH_HEAD", deadline)?;
    let start = match tree.get(root) {
        // A file where the root belongs: kustomize says "expecting
        // directory", so the file must be there to be seen.
        Some(EntryKind::File | EntryKind::Link) => parent(root).to_string(),
        _ => root.to_string(),
    };
    let mut cone: BTreeSet<String> = BTreeSet::new();
    if start.is_empty() {
        git::run(
            Some(dir),
            &["checkout", "--quiet", "--detach", "FETCH_HEAD"],
            deadline,
        )?;
        return git::finish(dir, submodules, deadline);
    }
    cone.insert(start);
    git::sparse_checkout(dir, &cone.iter().cloned().collect::<Vec<_>>(), deadline)?;
    let mut scanned = BTreeSet::new();
    for _ in 0..MAX_ROUNDS {
        let more = needed(dir, &tree, &cone, &mut scanned);
        if more.is_empty() {
            tracing::debug!(%url, cone = ?cone, "sparse checkout");
            return git::finish(dir, submodules, deadline);
        }
        if more.contains("") {
            break;
        }
        git::sparse_add(dir, &more.iter().cloned().collect::<Vec<_>>(), deadline)?;
        cone.extend(more);
    }
    tracing::debug!(%url, "sparse checkout widened to the whole tree");
    git::run(Some(dir), &["sparse-checkout", "disable"], deadline)?;
    git::finish(dir, submodules, deadline)
}

fn parent(p: &str) -> &str {
    p.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

/// Whether `path` is checked out recursively by the cone.
fn in_cone(cone: &BTreeSet<String>, path: &str) -> bool {
    cone.iter()
        .any(|c| path == c || path.starts_with(&format!("{c}/")))
}

/// Directories that checked-out kustomizations (and symlinks) name and the
/// cone lacks; `""` means the repository's root directory itself.
fn needed(
    dir: &Path,
    tree: &BTreeMap<String, EntryKind>,
    cone: &BTreeSet<String>,
    scanned: &mut BTreeSet<String>,
) -> BTreeSet<String> {
    let mut more = BTreeSet::new();
    let mut want = |from_dir: &str, reference: &str| {
        if reference.starts_with('/') {
            return;
        }
        let joined = if from_dir.is_empty() {
            paths::clean(reference)
        } else {
            paths::clean(&format!("{from_dir}/{reference}"))
        };
        if joined == "." {
            // The repository's root directory: everything is needed.
            more.insert(String::new());
            return;
        }
        let joined = joined.as_str();
        if joined.starts_with("../") || joined == ".." || joined.starts_with('/') {
            return;
        }
        let need = match tree.get(joined) {
            Some(EntryKind::Dir) => joined,
            Some(_) => parent(joined),
            None => return,
        };
        if !in_cone(cone, need) {
            more.insert(need.to_string());
        }
    };
    for (path, kind) in tree {
        if !in_cone(cone, path) || scanned.contains(path) {
            continue;
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        match kind {
            EntryKind::Link => {
                scanned.insert(path.clone());
                if let Ok(target) = std::fs::read_link(dir.join(path)) {
                    want(parent(path), &target.to_string_lossy());
                }
            }
            EntryKind::File if KUSTOMIZATION_NAMES.contains(&name) => {
                scanned.insert(path.clone());
                let Ok(text) = std::fs::read_to_string(dir.join(path)) else {
                    continue;
                };
                let mut strings = Vec::new();
                match kustom_api::yaml::parse_stream(&text) {
                    Ok(docs) => docs.iter().for_each(|d| collect_strings(d, &mut strings)),
                    // Unparsable: the build reports it; take every word.
                    Err(_) => strings.extend(
                        text.split(|c: char| c.is_whitespace() || c == ',' || c == '"')
                            .map(|w| {
                                w.trim_matches(|c| c == '\'' || c == '-' || c == '[' || c == ']')
                            })
                            .filter(|w| !w.is_empty())
                            .map(str::to_string),
                    ),
                }
                for s in strings {
                    if s.contains("://") || s.contains('\n') || s.is_empty() {
                        continue;
                    }
                    want(parent(path), &s);
                    // A generator file source: `key=path`.
                    if let Some((_, v)) = s.split_once('=') {
                        want(parent(path), v);
                    }
                }
            }
            _ => {}
        }
    }
    more
}

fn collect_strings(v: &kustom_api::Value, out: &mut Vec<String>) {
    match v {
        kustom_api::Value::String(s) => out.push(s.clone()),
        kustom_api::Value::Array(items) => items.iter().for_each(|i| collect_strings(i, out)),
        kustom_api::Value::Object(m) => m.values().for_each(|i| collect_strings(i, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cone_membership() {
        let cone: BTreeSet<String> = ["a/b".to_string()].into();
        assert!(in_cone(&cone, "a/b"));
        assert!(in_cone(&cone, "a/b/c.yaml"));
        assert!(!in_cone(&cone, "a/bc"));
        assert!(!in_cone(&cone, "a"));
    }

    #[test]
    fn kustomizations_widen_the_cone() {
        let dir = tempfile::tempdir().unwrap();
        let k = dir.path().join("deploy/prod");
        std::fs::create_dir_all(&k).unwrap();
        std::fs::write(
            k.join("kustomization.yaml"),
            "resources:\n- ../base\n- https://example.com/x.yaml\nconfigMapGenerator:\n- name: c\n  files:\n  - k=../../shared/app.properties\nimages:\n- name: nginx\n",
        )
        .unwrap();
        let tree: BTreeMap<String, EntryKind> = [
            ("deploy", EntryKind::Dir),
            ("deploy/base", EntryKind::Dir),
            ("deploy/prod", EntryKind::Dir),
            ("deploy/prod/kustomization.yaml", EntryKind::File),
            ("shared", EntryKind::Dir),
            ("shared/app.properties", EntryKind::File),
            ("nginx", EntryKind::Dir),
        ]
        .into_iter()
        .map(|(p, k)| (p.to_string(), k))
        .collect();
        let cone: BTreeSet<String> = ["deploy/prod".to_string()].into();
        let mut scanned = BTreeSet::new();
        let more = needed(dir.path(), &tree, &cone, &mut scanned);
        assert_eq!(
            more,
            ["deploy/base".to_string(), "shared".to_string()].into()
        );
        // Scanned once.
        assert!(needed(dir.path(), &tree, &cone, &mut scanned).is_empty());
    }
}
