//! A git revision as a file source: its tree read from git objects
//! (`git ls-tree`, `git cat-file --batch`), never from or into the user's
//! work tree, and written into a private temporary directory only where a
//! build needs files on disk. Also what changed between two revisions.

use crate::operations::render::reach::{within, Resolved, Tree};
use kustom_api::Error;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// A git repository, by its top directory.
#[derive(Debug, Clone)]
pub struct Repo {
    /// The work tree's top directory (canonical).
    pub top: PathBuf,
}

impl Repo {
    /// The repository containing `dir`.
    pub fn open(dir: &Path) -> Result<Repo, Error> {
        let out = git_in(dir, &["rev-parse", "--show-toplevel"]).map_err(|e| {
            e.context(format!(
                "{} is not in a git work tree; run kustom diff inside the repository or pass -C REPO",
                dir.display()
            ))
        })?;
        let top = PathBuf::from(String::from_utf8_lossy(&out).trim_end_matches('\n'));
        let top = top
            .canonicalize()
            .map_err(|e| Error::new(format!("{}: {e}", top.display())))?;
        Ok(Repo { top })
    }

    /// Run git in the repository; its standard output.
    pub fn git(&self, args: &[&str]) -> Result<Vec<u8>, Error> {
        git_in(&self.top, args)
    }

    /// The full commit id of `rev`.
    pub fn commit(&self, rev: &str) -> Result<String, Error> {
        let out = self
            .git(&["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")])
            .map_err(|_| {
                Error::new(format!(
                    "{rev:?} is not a commit of {}; name a branch, tag or commit that exists (git fetch it first in a shallow CI checkout)",
                    self.top.display()
                ))
            })?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// The paths that differ between commit `base` and `head` (a commit, or
    /// None for the work tree with staged, unstaged and untracked changes,
    /// ignored files included). An untracked directory is given as one
    /// path ending in `/`.
    pub fn changed(&self, base: &str, head: Option<&str>) -> Result<Vec<String>, Error> {
        let mut args = vec![
            "diff",
            "--name-only",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            base,
        ];
        args.extend(head);
        let mut out = split_z(&self.git(&args)?);
        if head.is_none() {
            out.extend(split_z(&self.git(&[
                "ls-files",
                "-z",
                "--others",
                "--directory",
            ])?));
        }
        Ok(out)
    }

    /// The files of the work tree: tracked (and present) and untracked,
    /// ignored ones left out.
    pub fn worktree_files(&self) -> Result<Vec<String>, Error> {
        let out = self.git(&[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])?;
        let mut files: Vec<String> = split_z(&out)
            .into_iter()
            .filter(|f| self.top.join(f).symlink_metadata().is_ok())
            .collect();
        files.sort();
        files.dedup();
        Ok(files)
    }
}

fn split_z(out: &[u8]) -> Vec<String> {
    out.split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect()
}

fn git_in(dir: &Path, args: &[&str]) -> Result<Vec<u8>, Error> {
    let out = crate::processes::output(
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            // Never take the index lock for a stat refresh: read only.
            .env("GIT_OPTIONAL_LOCKS", "0")
            .stdin(Stdio::null()),
    )
    .map_err(|e| Error::new(format!("running git: {e}; kustom diff needs git on PATH")))?;
    if !out.status.success() {
        return Err(Error::new(format!(
            "git {} failed in {}: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

/// One blob of a tree.
#[derive(Debug, Clone)]
struct Blob {
    mode: u32,
    oid: String,
}

const SYMLINK: u32 = 0o120000;
const EXECUTABLE: u32 = 0o100755;

/// The tree of one commit, read from git objects.
pub struct GitTree {
    repo: Repo,
    /// The commit.
    pub commit: String,
    blobs: HashMap<String, Blob>,
    dirs: HashSet<String>,
    cat: Mutex<Option<CatFile>>,
}

/// A running `git cat-file --batch`.
struct CatFile {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl CatFile {
    fn start(repo: &Repo) -> Result<CatFile, Error> {
        let mut child = crate::processes::spawn(
            Command::new("git")
                .arg("-C")
                .arg(&repo.top)
                .args(["cat-file", "--batch"])
                .env("GIT_OPTIONAL_LOCKS", "0")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
            crate::processes::Kind::Process,
        )
        .map_err(|e| Error::new(format!("running git cat-file: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Ok(CatFile {
            child,
            stdin,
            stdout,
        })
    }

    fn read(&mut self, oid: &str) -> std::io::Result<Vec<u8>> {
        writeln!(self.stdin, "{oid}")?;
        self.stdin.flush()?;
        let mut header = String::new();
        self.stdout.read_line(&mut header)?;
        let size: usize = header
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("git cat-file: {}", header.trim())))?;
        let mut buf = vec![0; size + 1];
        self.stdout.read_exact(&mut buf)?;
        buf.pop();
        Ok(buf)
    }
}

impl Drop for CatFile {
    fn drop(&mut self) {
        let pid = self.child.id() as i32;
        crate::processes::signal(pid, libc::SIGKILL);
        crate::processes::wait(pid);
    }
}

impl GitTree {
    /// The tree of `commit` in `repo`.
    pub fn load(repo: &Repo, commit: &str) -> Result<GitTree, Error> {
        let out = repo.git(&["ls-tree", "-r", "-t", "-z", "--full-tree", commit])?;
        let mut blobs = HashMap::new();
        let mut dirs = HashSet::new();
        for entry in split_z(&out) {
            let Some((meta, path)) = entry.split_once('\t') else {
                continue;
            };
            let mut parts = meta.split(' ');
            let (Some(mode), Some(kind), Some(oid)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            match kind {
                "tree" => {
                    dirs.insert(path.to_string());
                }
                "blob" => {
                    blobs.insert(
                        path.to_string(),
                        Blob {
                            mode: u32::from_str_radix(mode, 8).unwrap_or(0o100644),
                            oid: oid.to_string(),
                        },
                    );
                }
                _ => {} // submodules: not part of this repository's files
            }
        }
        Ok(GitTree {
            repo: repo.clone(),
            commit: commit.to_string(),
            blobs,
            dirs,
            cat: Mutex::new(None),
        })
    }

    /// Every file path, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut v: Vec<String> = self.blobs.keys().cloned().collect();
        v.sort();
        v
    }

    fn blob(&self, oid: &str) -> Result<Vec<u8>, Error> {
        let mut cat = self.cat.lock().unwrap_or_else(|e| e.into_inner());
        if cat.is_none() {
            *cat = Some(CatFile::start(&self.repo)?);
        }
        let c = cat.as_mut().expect("started");
        c.read(oid).map_err(|e| {
            *cat = None;
            Error::new(format!("reading git object {oid}: {e}"))
        })
    }

    /// Write the files below `dirs` and the paths `files` into `into`
    /// (everything when `dirs` holds `""`): symlinks as symlinks,
    /// executables executable.
    pub fn materialize(
        &self,
        into: &Path,
        dirs: &[String],
        files: &[String],
    ) -> Result<usize, Error> {
        let files: HashSet<&str> = files.iter().map(String::as_str).collect();
        let mut wanted: Vec<(&String, &Blob)> = self
            .blobs
            .iter()
            .filter(|(p, _)| files.contains(p.as_str()) || dirs.iter().any(|d| within(p, d)))
            .collect();
        wanted.sort_by(|a, b| a.0.cmp(b.0));
        let fail = |p: &Path, e: std::io::Error| {
            Error::new(format!(
                "writing {} (a file of commit {}): {e}",
                p.display(),
                self.commit
            ))
        };
        for (path, blob) in &wanted {
            let target = into.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| fail(parent, e))?;
            }
            let bytes = self.blob(&blob.oid)?;
            if blob.mode == SYMLINK {
                let link = PathBuf::from(String::from_utf8_lossy(&bytes).into_owned());
                std::os::unix::fs::symlink(&link, &target).map_err(|e| fail(&target, e))?;
            } else {
                std::fs::write(&target, &bytes).map_err(|e| fail(&target, e))?;
                if blob.mode == EXECUTABLE {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755))
                        .map_err(|e| fail(&target, e))?;
                }
            }
        }
        // Directories of the tree that hold no file still exist in a checkout.
        for d in &self.dirs {
            if dirs.iter().any(|w| within(d, w)) {
                let p = into.join(d);
                std::fs::create_dir_all(&p).map_err(|e| fail(&p, e))?;
            }
        }
        Ok(wanted.len())
    }
}

impl Tree for GitTree {
    fn resolve(&self, dir: &str, rel: &str, links: &mut Vec<String>) -> Resolved {
        if rel.starts_with('/') {
            return Resolved::Outside;
        }
        let mut stack: Vec<String> = dir
            .split('/')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        let mut pending: std::collections::VecDeque<String> =
            rel.split('/').map(str::to_string).collect();
        let mut hops = 0;
        while let Some(c) = pending.pop_front() {
            match c.as_str() {
                "" | "." => {}
                ".." => {
                    if stack.pop().is_none() {
                        return Resolved::Outside;
                    }
                }
                _ => {
                    stack.push(c);
                    let p = stack.join("/");
                    if let Some(b) = self.blobs.get(&p).filter(|b| b.mode == SYMLINK) {
                        hops += 1;
                        if hops > 40 {
                            return Resolved::Missing;
                        }
                        links.push(p.clone());
                        let Ok(target) = self.blob(&b.oid) else {
                            return Resolved::Missing;
                        };
                        let target = String::from_utf8_lossy(&target).into_owned();
                        if target.starts_with('/') {
                            return Resolved::Outside;
                        }
                        stack.pop();
                        for part in target.split('/').rev() {
                            pending.push_front(part.to_string());
                        }
                    }
                }
            }
        }
        let p = stack.join("/");
        if p.is_empty() || self.dirs.contains(&p) {
            Resolved::Dir(p)
        } else if self.blobs.contains_key(&p) {
            Resolved::File(p)
        } else {
            Resolved::Missing
        }
    }

    fn read(&self, file: &str) -> Option<Vec<u8>> {
        let b = self.blobs.get(file)?;
        self.blob(&b.oid).ok()
    }
}
