//! The `git` executable, run the way kustomize runs it (so the user's git
//! configuration — credential helpers, `GIT_SSH_COMMAND`, `insteadOf`,
//! proxies, `GIT_CONFIG_*` — applies unchanged), under one deadline for a
//! whole fetch.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// git processes started by this process (fetch counting in tests and `-v`).
pub static GIT_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Why a git command failed.
#[derive(Debug)]
pub struct GitError {
    /// The command line, for the message.
    pub command: String,
    /// The deadline passed.
    pub timed_out: bool,
    /// The tail of git's stderr (or why it could not start).
    pub stderr: String,
}

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.timed_out {
            write!(f, "timed out running '{}'", self.command)?;
        } else {
            write!(f, "failed to run '{}'", self.command)?;
        }
        if !self.stderr.is_empty() {
            write!(f, ": {}", self.stderr)?;
        }
        Ok(())
    }
}

/// Run `git args…` in `dir` (None: the current directory) before `deadline`;
/// returns stdout.
pub fn run(dir: Option<&Path>, args: &[&str], deadline: Instant) -> Result<String, GitError> {
    GIT_RUNS.fetch_add(1, Ordering::Relaxed);
    let command = format!("git {}", args.join(" "));
    tracing::debug!(%command, dir = ?dir, "git");
    let fail = |timed_out, stderr: String| GitError {
        command: command.clone(),
        timed_out,
        stderr,
    };
    let mut cmd = Command::new("git");
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    // A prompt nobody can answer would only wait for the deadline.
    if std::env::var_os("GIT_TERMINAL_PROMPT").is_none() {
        cmd.env("GIT_TERMINAL_PROMPT", "0");
    }
    {
        use std::os::unix::process::CommandExt;
        // KILL when kustom dies, even by KILL. The spawning thread waits
        // for git (the signal follows the thread, not the process).
        // SAFETY: prctl is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                Ok(())
            });
        }
    }
    // Its own process group, so a timeout, or kustom's end, kills ssh and
    // the helpers too.
    let mut child =
        crate::processes::spawn(&mut cmd, crate::processes::Kind::Group).map_err(|e| {
            fail(
                false,
                format!("no 'git' program on path or it cannot start: {e}"),
            )
        })?;
    // Drain both pipes on threads so a chatty git cannot block on a full pipe.
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let out_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let status = match crate::processes::wait_until(child.id() as i32, deadline) {
        Ok(status) => status,
        Err(_) => {
            let stderr = err_t.join().unwrap_or_default();
            return Err(fail(true, tail(&stderr)));
        }
    };
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    if status != Some(0) {
        return Err(fail(false, tail(&stderr)));
    }
    Ok(String::from_utf8_lossy(&stdout).into_owned())
}

/// The last lines of git's stderr, trimmed, for error messages.
fn tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(6);
    lines[start..].join("\n")
}

/// The commit `git fetch <url> <git_ref>` would fetch, from one
/// `git ls-remote`: git's own order of ref rules (exact, `refs/`,
/// `refs/tags/`, `refs/heads/`, `refs/remotes/`), annotated tags peeled.
/// `Ok(None)` when no ref of that name exists (a short commit id, say).
pub fn ls_remote(url: &str, git_ref: &str, deadline: Instant) -> Result<Option<String>, GitError> {
    let name = if git_ref.is_empty() { "HEAD" } else { git_ref };
    // ls-remote matches patterns against whole path components, so the
    // peeled line of an annotated tag (`refs/tags/v1^{}`) needs its own.
    let peeled_pattern = format!("{name}^{{}}");
    let out = run(
        None,
        &["ls-remote", "--", url, name, &peeled_pattern],
        deadline,
    )?;
    let refs: Vec<(&str, &str)> = out
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(sha, r)| (sha.trim(), r.trim()))
        .collect();
    let rules = [
        name.to_string(),
        format!("refs/{name}"),
        format!("refs/tags/{name}"),
        format!("refs/heads/{name}"),
        format!("refs/remotes/{name}"),
        format!("refs/remotes/{name}/HEAD"),
    ];
    for rule in &rules {
        let peeled = format!("{rule}^{{}}");
        if let Some((sha, _)) = refs.iter().find(|(_, r)| *r == peeled) {
            return Ok(Some(sha.to_string()));
        }
        if let Some((sha, _)) = refs.iter().find(|(_, r)| r == rule) {
            return Ok(Some(sha.to_string()));
        }
    }
    Ok(None)
}

/// One entry of `git ls-tree -r -t`: a path in a commit and whether it is
/// a directory (a tree), a file, or a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A tree.
    Dir,
    /// A blob (a regular file) or a submodule's gitlink.
    File,
    /// A symlink (mode 120000).
    Link,
}

/// Every path of `rev` (trees included) with its kind; works in a partial
/// clone without blobs (trees are all there).
pub fn ls_tree(
    dir: &Path,
    rev: &str,
    deadline: Instant,
) -> Result<std::collections::BTreeMap<String, EntryKind>, GitError> {
    let out = run(Some(dir), &["ls-tree", "-r", "-t", "-z", rev], deadline)?;
    Ok(out
        .split('\0')
        .filter_map(|line| {
            let (meta, path) = line.split_once('\t')?;
            let mut parts = meta.split(' ');
            let mode = parts.next()?;
            let kind = match (mode, parts.next()?) {
                (_, "tree") => EntryKind::Dir,
                ("120000", _) => EntryKind::Link,
                _ => EntryKind::File,
            };
            Some((path.to_string(), kind))
        })
        .collect())
}

/// A partial, sparse clone into `dir`: `init`, `remote add origin`, a
/// shallow fetch of `what` without blobs (`--filter=blob:none`; a server
/// that does not allow filters sends them anyway), then a cone-mode sparse
/// checkout of `cone` (more directories can be added with
/// [`sparse_add`]; git fetches the blobs a checkout needs in one batch).
/// Returns nothing checked out yet: call [`sparse_add`] or check out.
pub fn fetch_partial(dir: &Path, url: &str, what: &str, deadline: Instant) -> Result<(), GitError> {
    run(Some(dir), &["init", "--quiet"], deadline)?;
    run(Some(dir), &["remote", "add", "origin", url], deadline)?;
    run(
        Some(dir),
        &[
            "fetch",
            "--quiet",
            "--depth=1",
            "--filter=blob:none",
            "origin",
            what,
        ],
        deadline,
    )?;
    Ok(())
}

/// Check out `FETCH_HEAD` in a fresh partial clone with only the cone
/// directories `cone` (and the files directly in their parents).
pub fn sparse_checkout(dir: &Path, cone: &[String], deadline: Instant) -> Result<(), GitError> {
    let mut args = vec!["sparse-checkout", "set", "--cone", "--"];
    args.extend(cone.iter().map(String::as_str));
    run(Some(dir), &args, deadline)?;
    run(
        Some(dir),
        &["checkout", "--quiet", "--detach", "FETCH_HEAD"],
        deadline,
    )?;
    Ok(())
}

/// Add directories to a sparse checkout (their blobs are fetched).
pub fn sparse_add(dir: &Path, more: &[String], deadline: Instant) -> Result<(), GitError> {
    let mut args = vec!["sparse-checkout", "add", "--"];
    args.extend(more.iter().map(String::as_str));
    run(Some(dir), &args, deadline)?;
    Ok(())
}

/// After a checkout: submodules (if asked) and the commit checked out.
pub fn finish(dir: &Path, submodules: bool, deadline: Instant) -> Result<String, GitError> {
    if submodules {
        run(
            Some(dir),
            &["submodule", "update", "--init", "--recursive"],
            deadline,
        )?;
    }
    let head = run(Some(dir), &["rev-parse", "HEAD"], deadline)?;
    Ok(head.trim().to_string())
}

/// kustomize's clone into `dir`: `init`, `remote add origin`, a shallow
/// fetch of `what`, checkout, and (if asked) submodules; returns the commit
/// checked out.
pub fn clone_into(
    dir: &Path,
    url: &str,
    what: &str,
    submodules: bool,
    deadline: Instant,
) -> Result<String, GitError> {
    run(Some(dir), &["init", "--quiet"], deadline)?;
    run(Some(dir), &["remote", "add", "origin", url], deadline)?;
    run(
        Some(dir),
        &["fetch", "--quiet", "--depth=1", "--", url, what],
        deadline,
    )?;
    run(
        Some(dir),
        &["checkout", "--quiet", "--detach", "FETCH_HEAD"],
        deadline,
    )?;
    finish(dir, submodules, deadline)
}
