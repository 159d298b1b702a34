//! The `git` executable, run the way kustomize runs it (so the user's git
//! configuration — credential helpers, `GIT_SSH_COMMAND`, `insteadOf`,
//! proxies, `GIT_CONFIG_*` — applies unchanged), under one deadline for a
//! whole fetch.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

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
        // Its own process group, so a timeout kills ssh and helpers too.
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().map_err(|e| {
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
    let left = deadline.saturating_duration_since(Instant::now());
    let status = match child.wait_timeout(left.max(Duration::from_millis(1))) {
        Ok(Some(s)) => s,
        Ok(None) => {
            // SAFETY: kill(2) on the process group we created.
            unsafe {
                libc::kill(-(child.id() as i32), libc::SIGKILL);
            }
            let _ = child.wait();
            let stderr = err_t.join().unwrap_or_default();
            return Err(fail(true, tail(&stderr)));
        }
        Err(e) => return Err(fail(false, e.to_string())),
    };
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    if !status.success() {
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
