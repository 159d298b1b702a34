//! What a root reads, found without building it: the kustomization
//! directories it reaches through `resources:` (and `bases:`),
//! `components:` and directory entries of `generators:`, `transformers:`
//! and `validators:`, the symlinks followed on the way, and the remote
//! references it names.
//!
//! Under kustomize's default load restrictor every file a build reads (the
//! core's reads and the builtin plugins' patch and generator files) lies in
//! or below one of those directories, and a plugin is confined to the
//! directory of the kustomization that listed it; so "nothing below these
//! directories changed, and no symlink on the way moved" means "the root
//! builds to the same bytes". The walk works on any [`Tree`]: the file
//! system for `kustom render`, git objects for `kustom diff`.

use crate::fetch::remote::spec::{self, RepoSpec};
use crate::operations::kustomization::FILE_NAMES;
use kustom_api::{yaml, Value};
use std::collections::{BTreeSet, HashMap};

/// What a path names in a [`Tree`], after following symlinks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// A directory, by its canonical path.
    Dir(String),
    /// A file, by its canonical path.
    File(String),
    /// Nothing there.
    Missing,
    /// It leaves the tree (an absolute symlink, `..` above the top).
    Outside,
}

/// A tree of files: paths are `/`-separated, canonical (no `.`, `..` or
/// symlinks), relative to the tree's top (`""` is the top).
pub trait Tree: Sync {
    /// Resolve `rel` (as a kustomization writes it) against the directory
    /// `dir`; `links` receives every symlink followed.
    fn resolve(&self, dir: &str, rel: &str, links: &mut Vec<String>) -> Resolved;
    /// The bytes of a file.
    fn read(&self, file: &str) -> Option<Vec<u8>>;
    /// Read `files` ahead of the one-at-a-time reads that follow, where
    /// that is cheaper in one pass (git objects); the file system does
    /// nothing.
    fn read_ahead(&self, files: &[String]) {
        let _ = files;
    }
    /// The files among `files` whose bytes `keep` accepts, with their
    /// bytes. `test` names the test: a tree that remembers answers by
    /// content ([`crate::operations::review::git::GitTree`]) asks each
    /// content once, and reads many files in one pass.
    fn read_matching(
        &self,
        files: &[String],
        test: &'static str,
        keep: &dyn Fn(&[u8]) -> bool,
    ) -> Vec<(String, Vec<u8>)> {
        let _ = test;
        read_each_matching(self, files, keep)
    }
}

/// [`Tree::read_matching`] one file at a time.
pub fn read_each_matching<T: Tree + ?Sized>(
    tree: &T,
    files: &[String],
    keep: &dyn Fn(&[u8]) -> bool,
) -> Vec<(String, Vec<u8>)> {
    files
        .iter()
        .filter_map(|f| Some((f.clone(), tree.read(f)?)))
        .filter(|(_, bytes)| keep(bytes))
        .collect()
}

/// Join `rel` onto `dir`, both `/`-separated.
pub fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else if rel.is_empty() {
        dir.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// Whether `path` is `dir` or lies below it.
pub fn within(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path == dir
        || (path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/')
}

/// What one root reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// Kustomization directories reached (the root's first).
    pub dirs: BTreeSet<String>,
    /// Symlinks followed to reach them, and resource files named directly.
    pub files: BTreeSet<String>,
    /// Remote references (URLs as written).
    pub remotes: BTreeSet<String>,
    /// Something could not be followed: a missing directory or
    /// kustomization file, an unparsable kustomization, a path leaving
    /// the tree. The build will tell what; callers treat the root as
    /// reading everything.
    pub incomplete: bool,
    /// A directory is reached from one at or below it: the build's cycle
    /// check depends on the path taken, so base builds are not shared.
    pub cycle_risk: bool,
}

/// One kustomization directory: what it names.
#[derive(Debug, Clone, Default)]
struct Node {
    children: Vec<String>,
    files: Vec<String>,
    remotes: Vec<String>,
    incomplete: bool,
}

/// Walks roots of one tree; kustomizations are read once for all roots.
pub struct Walker<'t, T: Tree + ?Sized> {
    tree: &'t T,
    nodes: HashMap<String, Node>,
}

/// The kustomization file in a directory of `tree`: exactly one of
/// kustomize's names (None when none or several).
pub fn kustomization_file<T: Tree + ?Sized>(tree: &T, dir: &str) -> Option<String> {
    let mut found = None;
    for name in FILE_NAMES {
        if let Resolved::File(f) = tree.resolve(dir, name, &mut Vec::new()) {
            if found.is_some() {
                return None;
            }
            found = Some(f);
        }
    }
    found
}

/// The string entries of a list field of a kustomization (field names
/// match ignoring case, as the loader matches them).
fn entries<'v>(k: &'v Value, field: &'v str) -> impl Iterator<Item = &'v str> {
    k.as_object()
        .into_iter()
        .flatten()
        .filter(move |(key, _)| key.eq_ignore_ascii_case(field))
        .filter_map(|(_, v)| v.as_array())
        .flatten()
        .filter_map(Value::as_str)
}

/// A parsed kustomization's directory entries (`resources`, `bases`,
/// `components`, and non-inline `generators`/`transformers`/`validators`).
pub fn named_entries(k: &Value) -> Vec<&str> {
    let mut out: Vec<&str> = ["resources", "bases", "components"]
        .iter()
        .flat_map(|f| entries(k, f))
        .collect();
    for field in ["generators", "transformers", "validators"] {
        out.extend(
            entries(k, field).filter(|e| !e.contains('\n') && !e.trim_start().starts_with('{')),
        );
    }
    out
}

impl<'t, T: Tree + ?Sized> Walker<'t, T> {
    /// A walker over `tree`.
    pub fn new(tree: &'t T) -> Self {
        Walker {
            tree,
            nodes: HashMap::new(),
        }
    }

    fn node(&mut self, dir: &str) -> &Node {
        if !self.nodes.contains_key(dir) {
            let node = self.read_node(dir);
            self.nodes.insert(dir.to_string(), node);
        }
        &self.nodes[dir]
    }

    fn read_node(&self, dir: &str) -> Node {
        let mut node = Node::default();
        let Some(file) = kustomization_file(self.tree, dir) else {
            node.incomplete = true;
            return node;
        };
        let parsed = self
            .tree
            .read(&file)
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|text| yaml::parse_stream(&text).ok());
        let k = match parsed.as_deref() {
            Some([k]) if k.is_object() => k.clone(),
            Some([]) => return node,
            _ => {
                node.incomplete = true;
                return node;
            }
        };
        for e in named_entries(&k) {
            if spec::is_remote_file(e) {
                node.remotes.push(e.to_string());
                continue;
            }
            let mut links = Vec::new();
            let resolved = self.tree.resolve(dir, e, &mut links);
            node.files.extend(links);
            match resolved {
                Resolved::File(f) => node.files.push(f),
                _ if RepoSpec::parse(e).is_ok() => node.remotes.push(e.to_string()),
                Resolved::Dir(d) => node.children.push(d),
                Resolved::Missing | Resolved::Outside => node.incomplete = true,
            }
        }
        node
    }

    /// Everything `root` (a canonical directory) reaches.
    pub fn reach(&mut self, root: &str) -> Reach {
        let mut r = Reach::default();
        let mut todo = vec![root.to_string()];
        while let Some(dir) = todo.pop() {
            if !r.dirs.insert(dir.clone()) {
                continue;
            }
            let node = self.node(&dir).clone();
            r.files.extend(node.files);
            r.remotes.extend(node.remotes);
            r.incomplete |= node.incomplete;
            todo.extend(node.children);
        }
        // kustomize refuses a directory reached from one at or below it.
        let nested: Vec<(String, String)> = r
            .dirs
            .iter()
            .flat_map(|s| {
                r.dirs
                    .iter()
                    .filter(move |c| within(s, c) && s != *c)
                    .map(move |c| (s.clone(), c.clone()))
            })
            .collect();
        r.cycle_risk = r.dirs.iter().any(|d| self.reaches(d, d))
            || nested.iter().any(|(s, c)| self.reaches(s, c));
        r
    }

    /// Whether `to` is reached from `from` by at least one entry.
    fn reaches(&mut self, from: &str, to: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut todo = self.node(from).children.clone();
        while let Some(d) = todo.pop() {
            if d == to {
                return true;
            }
            if seen.insert(d.clone()) {
                todo.extend(self.node(&d).children.clone());
            }
        }
        false
    }
}

/// The file system as a [`Tree`] below `top` (a canonical directory).
pub struct FsTree {
    /// The canonical top directory.
    pub top: std::path::PathBuf,
}

impl FsTree {
    /// The tree below `top`.
    pub fn new(top: &std::path::Path) -> std::io::Result<FsTree> {
        Ok(FsTree {
            top: top.canonicalize()?,
        })
    }

    /// The tree path of a file-system path (None when outside).
    pub fn rel(&self, p: &std::path::Path) -> Option<String> {
        let rel = p.strip_prefix(&self.top).ok()?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_str().map(str::to_string))
            .collect::<Option<_>>()?;
        Some(parts.join("/"))
    }

    /// The file-system path of a tree path.
    pub fn path(&self, rel: &str) -> std::path::PathBuf {
        if rel.is_empty() {
            self.top.clone()
        } else {
            self.top.join(rel)
        }
    }
}

impl Tree for FsTree {
    fn resolve(&self, dir: &str, rel: &str, links: &mut Vec<String>) -> Resolved {
        let joined = self.path(dir).join(rel);
        // The symlinks on the way, lexically (what a change could retarget).
        let mut at = self.path(dir);
        for c in std::path::Path::new(rel).components() {
            at.push(c);
            if at
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink())
            {
                if let Some(r) = self.rel(&at) {
                    links.push(r);
                }
            }
        }
        let Ok(real) = joined.canonicalize() else {
            return Resolved::Missing;
        };
        let Some(r) = self.rel(&real) else {
            return Resolved::Outside;
        };
        if real.is_dir() {
            Resolved::Dir(r)
        } else {
            Resolved::File(r)
        }
    }

    fn read(&self, file: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(file)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_is_by_whole_components() {
        assert!(within("a/b", "a"));
        assert!(within("a", "a"));
        assert!(!within("ab", "a"));
        assert!(within("x", ""));
    }

    #[test]
    fn reach_follows_bases_and_components_and_flags_cycles() {
        let dir = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| {
            let f = dir.path().join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, t).unwrap();
        };
        w("base/kustomization.yaml", "resources: [cm.yaml]\n");
        w("base/cm.yaml", "kind: ConfigMap\n");
        w("comp/kustomization.yaml", "kind: Component\n");
        w(
            "app/prod/kustomization.yaml",
            "resources: [../../base, https://example.com/x.yaml]\ncomponents: [../../comp]\n",
        );
        w("upper/kustomization.yaml", "Resources: [../base]\n");
        w("loop/kustomization.yaml", "resources: [sub]\n");
        w("loop/sub/kustomization.yaml", "resources: [..]\n");
        let tree = FsTree::new(dir.path()).unwrap();
        let mut walker = Walker::new(&tree);
        let r = walker.reach("app/prod");
        assert_eq!(
            r.dirs.iter().map(String::as_str).collect::<Vec<_>>(),
            ["app/prod", "base", "comp"]
        );
        assert!(r.files.contains("base/cm.yaml"));
        assert!(r.remotes.contains("https://example.com/x.yaml"));
        assert!(!r.cycle_risk && !r.incomplete);
        assert!(walker.reach("loop").cycle_risk);
        // Field names match ignoring case, as the loader matches them.
        assert!(walker.reach("upper").dirs.contains("base"));
    }
}
