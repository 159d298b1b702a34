//! Running one plugin process: arguments, working directory, environment,
//! STDIN written while STDOUT/STDERR are drained, the sandbox applied in the
//! child before exec, a timeout and a cap on STDOUT, and containment: a
//! plugin's descendants die with it.
//!
//! Containment: kustom is a child subreaper (`PR_SET_CHILD_SUBREAPER`), so a
//! plugin's orphaned descendants — a daemonised grandchild, a `setsid` child
//! still holding STDOUT — are re-parented to kustom instead of to init. Each
//! plugin starts its own session (`setsid`), so every process it leads to
//! is in a session other than kustom's; when the plugin exits or is killed,
//! kustom kills and reaps every child of its own that is in another session
//! and is not a registered process (see `crate::processes`). That also
//! closes the pipes, so reading STDOUT never outlives the timeout. Processes
//! kustom starts otherwise (git for remote resources) stay in kustom's
//! session and are left alone.

pub mod fork_server;
mod pump;
mod spawn;

use super::sandbox::CallSandbox;
use crate::processes;
use kustom_api::Error;
use std::ffi::CString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::time::{Duration, Instant};

/// What a finished plugin process gave back.
#[derive(Debug)]
pub struct Output {
    /// Exit status code (None when killed by a signal).
    pub status: Option<i32>,
    /// Everything it wrote to STDOUT.
    pub stdout: Vec<u8>,
    /// Everything it wrote to STDERR (capped).
    pub stderr: Vec<u8>,
    /// Wall-clock time of the call.
    pub elapsed: Duration,
    /// What the sandbox allowed, for error messages (empty when unconfined).
    pub note: String,
}

/// Limits applied to each plugin process.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall-clock limit.
    pub timeout: Duration,
    /// Largest STDOUT accepted, in bytes.
    pub max_output: usize,
}

const STDERR_CAP: usize = 1 << 20;

/// Run `program args…` in `cwd` with extra `env`, feeding `stdin`, confined
/// by `sandbox`.
pub fn run(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(&str, String)],
    stdin: Vec<u8>,
    limits: Limits,
    sandbox: &CallSandbox,
) -> Result<Output, Error> {
    let started = Instant::now();
    let note = sandbox.explain();
    let bad = |what: &str| {
        Error::new(format!(
            "cannot start {}: {what} contains a NUL byte",
            program.display()
        ))
    };
    // A bare name (a KRM function's `exec.path`) is looked up in PATH.
    let resolved = if program.components().count() == 1 && !program.is_absolute() {
        which::which(program).unwrap_or_else(|_| program.to_path_buf())
    } else {
        program.to_path_buf()
    };
    let c_program = CString::new(resolved.as_os_str().as_bytes()).map_err(|_| bad("the path"))?;
    let mut argv = vec![CString::new(program.as_os_str().as_bytes()).map_err(|_| bad("the path"))?];
    for a in args {
        argv.push(CString::new(*a).map_err(|_| bad("an argument"))?);
    }
    let envp = environment(sandbox, env).map_err(|_| bad("the environment"))?;
    let cwd_c = CString::new(cwd.as_os_str().as_bytes()).map_err(|_| bad("the directory"))?;
    let tmp_parent = sandbox
        .dir()
        .and_then(Path::parent)
        .and_then(|p| CString::new(p.as_os_str().as_bytes()).ok());
    let tmp_name = sandbox
        .dir()
        .and_then(Path::file_name)
        .and_then(|n| CString::new(n.as_bytes()).ok());
    let argv_ptrs = spawn::pointers(&argv);
    let envp_ptrs = spawn::pointers(&envp);
    let plan = sandbox.namespaces.as_ref();
    processes::become_subreaper();
    // The plugin process's stack between the init's clone and exec.
    let mut stack = vec![0u8; 256 * 1024];
    let request = spawn::Request {
        stack: stack.as_mut_ptr(),
        stack_len: stack.len(),
        program: &c_program,
        argv: &argv_ptrs,
        envp: &envp_ptrs,
        cwd: &cwd_c,
        setup: sandbox.child_setup(),
        plan,
        tmp: match (&tmp_parent, &tmp_name) {
            (Some(p), Some(n)) => Some((p.as_c_str(), n.as_c_str())),
            _ => None,
        },
    };
    let mut child = {
        let starting = processes::starting();
        let child = spawn::spawn(&request).map_err(|e| start_error(&resolved, e, &note))?;
        starting.started(child.pid, processes::Kind::Init);
        child
    };
    let pid = child.pid;
    let (Some(child_stdin), Some(child_stdout), Some(child_stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        unreachable!("spawn makes the three pipes");
    };
    let max_output = limits.max_output;
    // The plugin's pipes end once it and everything it started are gone:
    // the init kills what the plugin leaves behind before it exits.
    let pumped = pump::pump(
        pump::Started {
            pid,
            stdin: child_stdin,
            written: 0,
            stdout: child_stdout,
            stderr: child_stderr,
        },
        stdin,
        started + limits.timeout,
        max_output,
        STDERR_CAP,
    );
    if pumped.timed_out || pumped.overflow {
        // The init: the plugin's tree goes to kustom, which sweeps it below.
        stop(pid);
    }
    processes::wait(pid);
    // What ended, and what was left behind.
    let (status, left_behind) = match child.report() {
        spawn::Report::SetupFailed { step, errno } => {
            return Err(start_error(
                &resolved,
                spawn::StartError {
                    step,
                    error: std::io::Error::from_raw_os_error(errno),
                },
                &note,
            ));
        }
        spawn::Report::Ended { status, left } if !pumped.timed_out => (Some(status), left as usize),
        _ => (None, 0),
    };
    let timed_out = pumped.timed_out;
    let left_behind = left_behind + processes::starting().sweep_other_sessions();
    let (stdout, stderr, overflow) = (pumped.stdout, pumped.stderr, pumped.overflow);
    let elapsed = started.elapsed();
    let code = status.and_then(|s| libc::WIFEXITED(s).then(|| libc::WEXITSTATUS(s)));
    sandbox.set_finished(code, elapsed);
    if timed_out {
        return Err(Error::new(format!(
            "timed out after {:?} (--plugin-timeout); it and its {} descendant process(es) were killed{}{note}",
            limits.timeout,
            left_behind.saturating_sub(1),
            stderr_tail(&stderr)
        )));
    }
    if overflow {
        return Err(overflow_error(max_output, &stderr));
    }
    if left_behind > 0 && code == Some(0) {
        // A daemon such as gpg-agent (started by sops, gpg): the output is
        // complete, so the build goes on.
        eprintln!(
            "warning: plugin {} exited but left {left_behind} process(es) running; kustom killed them",
            program.display()
        );
    }
    // With -v a plugin's STDERR is shown even when it succeeds (warnings,
    // progress); on failure it is part of the error instead.
    if !stderr.is_empty() && code == Some(0) {
        tracing::debug!(
            plugin = %program.display(),
            stderr = %String::from_utf8_lossy(&stderr).trim_end(),
            "plugin stderr"
        );
    }
    Ok(Output {
        status: code,
        stdout,
        stderr,
        elapsed,
        note,
    })
}

/// Run the shipped builtin's `op` through the fork server (see
/// [`fork_server`]): the same call as [`run`] with kustom's own executable,
/// without an exec. `Ok(None)`: the server is not running or refused the
/// call, so the caller takes [`run`] (with `stdin`, which is taken only
/// once the builtin started).
pub fn run_builtin(
    op: &str,
    cwd: &Path,
    env: &[(&str, String)],
    stdin: &mut Vec<u8>,
    limits: Limits,
    sandbox: &CallSandbox,
) -> Result<Option<Output>, Error> {
    if !fork_server::running() {
        return Ok(None);
    }
    let started = Instant::now();
    let envp = environment(sandbox, env)
        .map_err(|_| Error::new("cannot start the builtin: the environment contains a NUL byte"))?
        .into_iter()
        .map(CString::into_bytes)
        .collect();
    let child = {
        // Held from the clone to the registration, as in `run`.
        let starting = processes::starting();
        let Some(child) = fork_server::spawn(
            op,
            cwd,
            envp,
            sandbox.confinement(),
            sandbox.ruleset_fd(),
            stdin,
        )
        .map_err(|e| Error::new(format!("cannot start the builtin: {e}")))?
        else {
            return Ok(None);
        };
        starting.started(child.pid, processes::Kind::Process);
        child
    };
    let pid = child.pid;
    let pumped = pump::pump(
        child,
        std::mem::take(stdin),
        started + limits.timeout,
        limits.max_output,
        STDERR_CAP,
    );
    if pumped.timed_out || pumped.overflow {
        stop(pid);
    }
    // The server cloned it as kustom's own child.
    let status = processes::wait(pid);
    let elapsed = started.elapsed();
    let code = status.and_then(|s| libc::WIFEXITED(s).then(|| libc::WEXITSTATUS(s)));
    sandbox.set_finished(code, elapsed);
    let note = sandbox.explain();
    if pumped.timed_out {
        return Err(Error::new(format!(
            "timed out after {:?} (--plugin-timeout) and was killed{}{note}",
            limits.timeout,
            stderr_tail(&pumped.stderr)
        )));
    }
    if pumped.overflow {
        return Err(overflow_error(limits.max_output, &pumped.stderr));
    }
    Ok(Some(Output {
        status: code,
        stdout: pumped.stdout,
        stderr: pumped.stderr,
        elapsed,
        note,
    }))
}

/// The environment of the plugin: the build's (or none, with
/// `--plugin-env=minimal`), the sandbox's variables, then the call's.
fn environment(sandbox: &CallSandbox, env: &[(&str, String)]) -> Result<Vec<CString>, ()> {
    let mut vars: Vec<(std::ffi::OsString, std::ffi::OsString)> = if sandbox.clear_env {
        Vec::new()
    } else {
        std::env::vars_os().collect()
    };
    let mut set = |k: &str, v: &str| {
        vars.retain(|(n, _)| n != k);
        vars.push((k.into(), v.into()));
    };
    for (k, v) in &sandbox.env {
        set(k, v);
    }
    for (k, v) in env {
        set(k, v);
    }
    vars.into_iter()
        .map(|(k, v)| {
            let mut b = k.into_vec();
            b.push(b'=');
            b.extend_from_slice(v.as_bytes());
            CString::new(b).map_err(|_| ())
        })
        .collect()
}

/// The error of a process that did not start.
fn start_error(program: &Path, e: spawn::StartError, note: &str) -> Error {
    use crate::plugin_host::sandbox::namespaces::Step;
    let errno = e.error.raw_os_error();
    let what = match (e.step, errno) {
        (Some(Step::Exec), Some(libc::ENOEXEC)) => format!(
            "the kernel cannot execute it ({}): is it empty, or a script without a `#!` line? kustom runs only what the kernel runs (no /bin/sh fallback); add `#!/bin/sh` (or the interpreter it needs) as its first line",
            e.error
        ),
        (Some(Step::Exec), Some(libc::ENOENT)) => format!(
            "{}: it, or the interpreter on its `#!` line, does not exist",
            e.error
        ),
        (Some(Step::Exec), Some(libc::EACCES)) if !note.is_empty() => format!(
            "{} (the sandbox denied executing it or its interpreter)",
            e.error
        ),
        (Some(step), _) => format!("{}: {}", step.describe(), e.error),
        (None, _) => e.error.to_string(),
    };
    Error::new(format!("cannot start {}: {what}{note}", program.display()))
}

/// Stop a running call: its init (the plugin's tree goes to kustom, which
/// sweeps it).
fn stop(pid: i32) {
    processes::signal(pid, libc::SIGKILL);
}

/// The error of a process that wrote more than `max_output` bytes.
fn overflow_error(max_output: usize, stderr: &[u8]) -> Error {
    Error::new(format!(
        "wrote more than {max_output} bytes to STDOUT (raise --plugin-max-output){}",
        stderr_tail(stderr)
    ))
}

/// The last lines of a plugin's STDERR, formatted for an error message.
pub fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let tail = &lines[lines.len().saturating_sub(20)..];
    format!("\nstderr:\n  {}", tail.join("\n  "))
}
