//! A git revision as a file source: its tree read from git objects
//! (`git ls-tree`, `git cat-file --batch`), never from or into the user's
//! work tree, and written into a private temporary directory only where a
//! build needs files on disk. Also what changed between two revisions.

use crate::operations::render::reach::{within, Resolved, Tree};
use kustom_api::Error;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

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
#[derive(Debug, Clone, PartialEq, Eq)]
struct Blob {
    mode: u32,
    oid: String,
}

const SYMLINK: u32 = 0o120000;
/// Object names up to this many bytes are written before the answers are
/// read, on the same thread: far below a pipe's 64 KiB buffer.
const SMALL_BATCH_BYTES: usize = 16 * 1024;
const EXECUTABLE: u32 = 0o100755;

/// Git objects read through one `git cat-file --batch`, shared by the
/// trees of one diff: a blob both revisions hold is read once, and many
/// blobs are asked for at once rather than one round trip each.
pub struct Objects {
    repo: Repo,
    cat: Mutex<Option<CatFile>>,
    /// Blobs read one at a time (kustomization files, symlink targets),
    /// and those [`Tree::read_matching`] kept.
    blobs: Mutex<HashMap<String, Arc<[u8]>>>,
    /// What a [`Tree::read_matching`] test said of a blob, by test name.
    verdicts: Mutex<HashMap<(&'static str, String), bool>>,
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
}

/// The next answer of a `git cat-file --batch`: the object's bytes, or an
/// error for a missing one.
fn answer(stdout: &mut impl BufRead) -> std::io::Result<Result<Vec<u8>, String>> {
    {
        let mut header = String::new();
        if stdout.read_line(&mut header)? == 0 {
            return Err(std::io::Error::other("git cat-file ended early"));
        }
        let Some(size) = header
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse::<usize>().ok())
        else {
            // `<oid> missing` (or ambiguous): no content follows.
            return Ok(Err(format!("git cat-file: {}", header.trim())));
        };
        let mut buf = vec![0; size + 1];
        stdout.read_exact(&mut buf)?;
        buf.pop();
        Ok(Ok(buf))
    }
}

impl Drop for CatFile {
    fn drop(&mut self) {
        let pid = self.child.id() as i32;
        crate::processes::signal(pid, libc::SIGKILL);
        crate::processes::wait(pid);
    }
}

impl Objects {
    /// The objects of `repo` (git starts on the first read).
    pub fn new(repo: &Repo) -> Arc<Objects> {
        Arc::new(Objects {
            repo: repo.clone(),
            cat: Mutex::new(None),
            blobs: Mutex::new(HashMap::new()),
            verdicts: Mutex::new(HashMap::new()),
        })
    }

    /// One blob, kept for the next read of it.
    fn read(&self, oid: &str) -> Result<Arc<[u8]>, Error> {
        if let Some(b) = lock(&self.blobs).get(oid) {
            return Ok(b.clone());
        }
        let mut got = None;
        self.stream(&[oid], |_, bytes| {
            got = Some(bytes);
            Ok(())
        })?;
        let bytes: Arc<[u8]> = got.expect("one answer").into();
        lock(&self.blobs).insert(oid.to_string(), bytes.clone());
        Ok(bytes)
    }

    /// Hand every object of `oids` to `each` (by index), in order: the
    /// names are written by a second thread while the answers are read,
    /// so a thousand objects cost one pass rather than a thousand round
    /// trips.
    fn stream(
        &self,
        oids: &[&str],
        mut each: impl FnMut(usize, Vec<u8>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if oids.is_empty() {
            return Ok(());
        }
        let mut cat = lock(&self.cat);
        if cat.is_none() {
            *cat = Some(CatFile::start(&self.repo)?);
        }
        let CatFile {
            child,
            stdin,
            stdout,
        } = cat.as_mut().expect("started");
        let names: Vec<u8> = oids
            .iter()
            .flat_map(|o| [o.as_bytes(), b"\n"].concat())
            .collect();
        let result = std::thread::scope(|s| {
            // A few names fit the pipe whole, so git's answers cannot hold
            // up their writing: no thread needed (a thread per kustomization
            // file read cost as much as the read).
            let few = names.len() <= SMALL_BATCH_BYTES;
            let written_now = few.then(|| stdin.write_all(&names).and_then(|()| stdin.flush()));
            let writer = (!few).then(|| {
                s.spawn(|| -> std::io::Result<()> {
                    stdin.write_all(&names)?;
                    stdin.flush()
                })
            });
            let mut out = Ok(());
            for (i, oid) in oids.iter().enumerate() {
                let step = match answer(stdout) {
                    Ok(Ok(bytes)) => each(i, bytes),
                    Ok(Err(e)) => Err(Error::new(format!("reading git object {oid}: {e}"))),
                    Err(e) => Err(Error::new(format!("reading git object {oid}: {e}"))),
                };
                if let Err(e) = step {
                    // The answers still due would be misread by the next
                    // call: end this git (the writer then stops on EPIPE).
                    crate::processes::signal(child.id() as i32, libc::SIGKILL);
                    out = Err(e);
                    break;
                }
            }
            let written = match (written_now, writer) {
                (Some(w), _) => Ok(w),
                (None, Some(t)) => t.join(),
                (None, None) => Ok(Ok(())),
            };
            match (out, written) {
                (Err(e), _) => Err(e),
                (Ok(()), Ok(Ok(()))) => Ok(()),
                (Ok(()), Ok(Err(e))) => Err(Error::new(format!("writing to git cat-file: {e}"))),
                (Ok(()), Err(_)) => Err(Error::new("writing to git cat-file: the writer panicked")),
            }
        });
        if result.is_err() {
            *cat = None;
        }
        result
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The tree of one commit, read from git objects.
pub struct GitTree {
    /// The commit.
    pub commit: String,
    blobs: HashMap<String, Blob>,
    /// Submodules (gitlinks): path and commit; no files of theirs are read.
    gitlinks: HashMap<String, String>,
    dirs: HashSet<String>,
    objects: Arc<Objects>,
}

impl GitTree {
    /// The tree of revision `rev` (a commit, or what names one) in `repo`.
    pub fn at(repo: &Repo, rev: &str, objects: &Arc<Objects>) -> Result<GitTree, Error> {
        GitTree::load(repo, &repo.commit(rev)?, objects)
    }

    /// The tree of `commit` in `repo`.
    pub fn load(repo: &Repo, commit: &str, objects: &Arc<Objects>) -> Result<GitTree, Error> {
        let out = repo.git(&["ls-tree", "-r", "-t", "-z", "--full-tree", commit])?;
        let mut blobs = HashMap::new();
        let mut gitlinks = HashMap::new();
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
                "commit" => {
                    gitlinks.insert(path.to_string(), oid.to_string());
                }
                _ => {}
            }
        }
        Ok(GitTree {
            commit: commit.to_string(),
            blobs,
            gitlinks,
            dirs,
            objects: objects.clone(),
        })
    }

    /// Every file path, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut v: Vec<String> = self.blobs.keys().cloned().collect();
        v.sort();
        v
    }

    /// The paths that differ from `other` (files added, removed, changed in
    /// content or mode, and submodules moved), as `git diff --name-only
    /// --no-renames` lists them, but from the trees already read.
    pub fn changed_from(&self, other: &GitTree) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (a, b) in [(self, other), (other, self)] {
            out.extend(
                a.blobs
                    .iter()
                    .filter(|(p, blob)| b.blobs.get(*p) != Some(*blob))
                    .map(|(p, _)| p.clone()),
            );
            out.extend(
                a.gitlinks
                    .iter()
                    .filter(|(p, oid)| b.gitlinks.get(*p) != Some(*oid))
                    .map(|(p, _)| p.clone()),
            );
        }
        out.sort();
        out.dedup();
        out
    }

    fn blob(&self, oid: &str) -> Result<Arc<[u8]>, Error> {
        self.objects.read(oid)
    }

    /// Write the files below `dirs` and the paths `files` into `into`
    /// (everything when `dirs` holds `""`): symlinks as symlinks,
    /// executables executable. Stops with [`Written::OverBudget`] before
    /// the files' bytes would pass `budget`.
    pub fn materialize(
        &self,
        into: &Path,
        dirs: &[String],
        files: &[String],
        budget: Option<u64>,
    ) -> Result<Written, Error> {
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
        let oids: Vec<&str> = wanted.iter().map(|(_, b)| b.oid.as_str()).collect();
        let mut total: u64 = 0;
        let mut over = false;
        self.objects
            .stream(&oids, |i, bytes| {
                let (path, blob) = wanted[i];
                total += bytes.len() as u64;
                if budget.is_some_and(|b| total > b) {
                    over = true;
                    return Err(Error::new("over budget"));
                }
                let target = into.join(path);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| fail(parent, e))?;
                }
                if blob.mode == SYMLINK {
                    let link = PathBuf::from(String::from_utf8_lossy(&bytes).into_owned());
                    std::os::unix::fs::symlink(&link, &target).map_err(|e| fail(&target, e))
                } else {
                    std::fs::write(&target, &bytes).map_err(|e| fail(&target, e))?;
                    if blob.mode == EXECUTABLE {
                        use std::os::unix::fs::PermissionsExt;
                        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755))
                            .map_err(|e| fail(&target, e))?;
                    }
                    Ok(())
                }
            })
            .or_else(|e| if over { Ok(()) } else { Err(e) })?;
        if over {
            return Ok(Written::OverBudget);
        }
        // Directories of the tree that hold no file still exist in a checkout.
        for d in &self.dirs {
            if dirs.iter().any(|w| within(d, w)) {
                let p = into.join(d);
                std::fs::create_dir_all(&p).map_err(|e| fail(&p, e))?;
            }
        }
        Ok(Written::Files(wanted.len()))
    }
}

/// What [`GitTree::materialize`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// Wrote this many files.
    Files(usize),
    /// Stopped: the files would not fit the budget.
    OverBudget,
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
        self.blob(&b.oid).ok().map(|b| b.to_vec())
    }

    fn read_ahead(&self, files: &[String]) {
        self.read_matching(files, "read ahead", &|_| true);
    }

    fn read_matching(
        &self,
        files: &[String],
        test: &'static str,
        keep: &dyn Fn(&[u8]) -> bool,
    ) -> Vec<(String, Vec<u8>)> {
        let objects = &self.objects;
        let present: Vec<(&String, &Blob)> = files
            .iter()
            .filter_map(|f| Some((f, self.blobs.get(f)?)))
            .collect();
        // Objects neither kept nor judged by this test yet.
        let unknown: Vec<&str> = {
            let verdicts = lock(&objects.verdicts);
            let mut seen = HashSet::new();
            present
                .iter()
                .map(|(_, b)| b.oid.as_str())
                .filter(|oid| !verdicts.contains_key(&(test, oid.to_string())) && seen.insert(*oid))
                .collect()
        };
        let mut judged = Vec::with_capacity(unknown.len());
        let streamed = objects.stream(&unknown, |i, bytes| {
            let kept = keep(&bytes);
            if kept {
                lock(&objects.blobs).insert(unknown[i].to_string(), bytes.into());
            }
            judged.push((unknown[i].to_string(), kept));
            Ok(())
        });
        {
            let mut verdicts = lock(&objects.verdicts);
            for (oid, kept) in judged {
                verdicts.insert((test, oid), kept);
            }
        }
        if streamed.is_err() {
            // Fall back to one read at a time, which reports nothing either.
            return crate::operations::render::reach::read_each_matching(self, files, keep);
        }
        let verdicts = lock(&objects.verdicts);
        present
            .into_iter()
            .filter(|(_, b)| verdicts.get(&(test, b.oid.clone())) == Some(&true))
            .filter_map(|(f, b)| Some((f.clone(), lock(&objects.blobs).get(&b.oid)?.to_vec())))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        let o = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .expect("git");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    /// A repository of two commits: files changed, added, removed, made
    /// executable, and one left alone.
    fn two_commits() -> (tempfile::TempDir, Repo, String, String) {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q", "-b", "main"]);
        for (f, text) in [
            ("a/k.yaml", "one\n"),
            ("a/same.yaml", "same\n"),
            ("b/gone.yaml", "x\n"),
            ("run.sh", "echo\n"),
        ] {
            std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
            std::fs::write(d.join(f), text).unwrap();
        }
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "one"]);
        let one = git(d, &["rev-parse", "HEAD"]);
        std::fs::write(d.join("a/k.yaml"), "two\n").unwrap();
        std::fs::write(d.join("a/new.yaml"), "argoproj.io\n").unwrap();
        std::fs::remove_file(d.join("b/gone.yaml")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "two"]);
        let two = git(d, &["rev-parse", "HEAD"]);
        let repo = Repo::open(d).unwrap();
        (dir, repo, one, two)
    }

    #[test]
    fn changed_paths_are_what_git_diff_lists() {
        let (_dir, repo, one, two) = two_commits();
        let objects = Objects::new(&repo);
        let a = GitTree::load(&repo, &one, &objects).unwrap();
        let b = GitTree::load(&repo, &two, &objects).unwrap();
        let mut by_git = split_z(
            &repo
                .git(&["diff", "--name-only", "-z", "--no-renames", &one, &two])
                .unwrap(),
        );
        by_git.sort();
        assert_eq!(a.changed_from(&b), by_git);
        assert_eq!(b.changed_from(&a), by_git);
        assert!(a.changed_from(&a).is_empty());
    }

    #[test]
    fn many_reads_in_one_pass_keep_what_matches_and_remember_verdicts() {
        let (_dir, repo, one, two) = two_commits();
        let objects = Objects::new(&repo);
        let a = GitTree::load(&repo, &one, &objects).unwrap();
        let b = GitTree::load(&repo, &two, &objects).unwrap();
        let files = b.files();
        let asked = std::sync::atomic::AtomicUsize::new(0);
        let keep = |bytes: &[u8]| {
            asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            bytes.starts_with(b"argo") || bytes.starts_with(b"two")
        };
        let got: Vec<String> = b
            .read_matching(&files, "t", &keep)
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert_eq!(got, ["a/k.yaml", "a/new.yaml"]);
        let first = asked.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(first, 4, "one test per distinct content");
        // The other side's unchanged files are not read or tested again.
        let again: Vec<String> = a
            .read_matching(&a.files(), "t", &keep)
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert!(again.is_empty(), "{again:?}");
        assert_eq!(
            asked.load(std::sync::atomic::Ordering::Relaxed),
            first + 2,
            "only one.k and gone are new"
        );
        assert_eq!(b.read("a/new.yaml").as_deref(), Some(&b"argoproj.io\n"[..]));
    }

    #[test]
    fn a_missing_object_fails_its_read_and_the_next_read_still_works() {
        let (_dir, repo, _one, two) = two_commits();
        let objects = Objects::new(&repo);
        let b = GitTree::load(&repo, &two, &objects).unwrap();
        let oid = b.blobs["a/k.yaml"].oid.clone();
        let missing = "0123456789012345678901234567890123456789";
        let mut seen = Vec::new();
        let r = objects.stream(&[&oid, missing, &oid], |i, bytes| {
            seen.push((i, bytes));
            Ok(())
        });
        assert!(r.unwrap_err().message.contains(missing));
        assert_eq!(seen, [(0, b"two\n".to_vec())]);
        assert_eq!(&*objects.read(&oid).unwrap(), b"two\n");
    }

    #[test]
    fn materializing_stops_at_the_budget() {
        let (_dir, repo, _one, two) = two_commits();
        let objects = Objects::new(&repo);
        let b = GitTree::load(&repo, &two, &objects).unwrap();
        let into = tempfile::tempdir().unwrap();
        let everything = [String::new()];
        assert_eq!(
            b.materialize(into.path(), &everything, &[], Some(5))
                .unwrap(),
            Written::OverBudget
        );
        let into = tempfile::tempdir().unwrap();
        assert_eq!(
            b.materialize(into.path(), &everything, &[], None).unwrap(),
            Written::Files(4)
        );
        assert_eq!(
            std::fs::read(into.path().join("a/k.yaml")).unwrap(),
            b"two\n"
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(into.path().join("run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111);
    }
}
