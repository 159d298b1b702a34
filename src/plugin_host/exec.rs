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
//! and is not a running plugin. That also closes the pipes, so reading
//! STDOUT never outlives the timeout. Processes kustom starts otherwise
//! (git for remote resources) stay in kustom's session and are left alone.

use super::sandbox::CallSandbox;
use kustom_api::Error;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

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

/// Process ids of plugin processes running now (direct children of kustom
/// that the sweep must not kill). Held while spawning, so that a sweep never
/// sees a plugin between fork and registration.
static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Make kustom the reaper of its descendants' orphans (once).
fn become_subreaper() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        // SAFETY: prctl with integer arguments.
        let rc = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
        if rc != 0 {
            tracing::debug!(
                "PR_SET_CHILD_SUBREAPER failed: {}",
                std::io::Error::last_os_error()
            );
        }
    });
}

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
    become_subreaper();
    let started = Instant::now();
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if sandbox.clear_env {
        cmd.env_clear();
    }
    for (k, v) in &sandbox.env {
        cmd.env(k, v);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let setup = sandbox.child_setup();
    // SAFETY: the closure only makes async-signal-safe system calls
    // (setsid, prctl, setrlimit, open, landlock, seccomp) on plain values.
    unsafe {
        cmd.pre_exec(move || {
            // Own session (and process group): see the module doc.
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            setup.apply()
        });
    }
    let note = sandbox.explain();
    let mut child = {
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        let child = cmd.spawn().map_err(|e| {
            let why = if e.kind() == std::io::ErrorKind::PermissionDenied && !note.is_empty() {
                " (the sandbox denied executing it or its interpreter)"
            } else {
                ""
            };
            Error::new(format!(
                "cannot start {}: {e}{why}{note}",
                program.display()
            ))
        })?;
        live.push(child.id() as i32);
        child
    };
    let pid = child.id() as i32;
    let child_stdin = child.stdin.take();
    let child_stdout = child.stdout.take();
    let child_stderr = child.stderr.take();
    let max_output = limits.max_output;
    std::thread::spawn(move || {
        if let Some(mut w) = child_stdin {
            // A plugin may exit without reading its input; that is not our error.
            let _ = w.write_all(&stdin);
        }
    });
    let (out_tx, out_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut overflow = false;
        if let Some(mut r) = child_stdout {
            let mut chunk = vec![0u8; 64 * 1024];
            loop {
                match r.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if buf.len() + n > max_output {
                            overflow = true;
                            // Stop the producer: it would block on a full pipe otherwise.
                            kill_group(pid);
                            break;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                    }
                }
            }
        }
        let _ = out_tx.send((buf, overflow));
    });
    let (err_tx, err_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut r) = child_stderr {
            let _ = (&mut r).take(STDERR_CAP as u64).read_to_end(&mut buf);
            // Drain the rest so the plugin never blocks on STDERR.
            let _ = std::io::copy(&mut r, &mut std::io::sink());
        }
        let _ = err_tx.send(buf);
    });
    let status = match child.wait_timeout(limits.timeout) {
        Ok(Some(st)) => Some(st),
        Ok(None) | Err(_) => {
            kill_group(pid);
            let _ = child.wait();
            None
        }
    };
    // The plugin is gone: its descendants go too, which closes the pipes.
    let left_behind = {
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|p| *p != pid);
        kill_group(pid);
        sweep(&live)
    };
    // Everything that could hold the pipes is dead; the readers end at once.
    // The deadline only guards against a process kustom could not reach.
    let grace = Duration::from_secs(2);
    let stdout = out_rx.recv_timeout(grace).ok();
    let stderr = err_rx.recv_timeout(grace).unwrap_or_default();
    let elapsed = started.elapsed();
    sandbox.set_finished(status.and_then(|s| s.code()), elapsed);
    let Some(status) = status else {
        return Err(Error::new(format!(
            "timed out after {:?} (--plugin-timeout); it and its {} descendant process(es) were killed{}{note}",
            limits.timeout,
            left_behind,
            stderr_tail(&stderr)
        )));
    };
    let Some((stdout, overflow)) = stdout else {
        return Err(Error::new(format!(
            "exited, but a process kustom cannot reach still holds its STDOUT{}{note}",
            stderr_tail(&stderr)
        )));
    };
    if overflow {
        return Err(Error::new(format!(
            "wrote more than {max_output} bytes to STDOUT (raise --plugin-max-output){}",
            stderr_tail(&stderr)
        )));
    }
    if left_behind > 0 {
        return Err(Error::new(format!(
            "exited (status {}) but left {left_behind} process(es) running; kustom killed them: a plugin's descendants must finish before it exits{}",
            status
                .code()
                .map(|c| c.to_string())
                .unwrap_or_else(|| "none".into()),
            stderr_tail(&stderr)
        )));
    }
    // With -v a plugin's STDERR is shown even when it succeeds (warnings,
    // progress); on failure it is part of the error instead.
    if !stderr.is_empty() && status.success() {
        tracing::debug!(
            plugin = %program.display(),
            stderr = %String::from_utf8_lossy(&stderr).trim_end(),
            "plugin stderr"
        );
    }
    Ok(Output {
        status: status.code(),
        stdout,
        stderr,
        elapsed,
        note,
    })
}

fn kill_group(pid: i32) {
    // SAFETY: kill(2) with a negative pid signals the process group we created.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// Kill and reap every child of kustom that is in another session than
/// kustom's and is not in `live` (a plugin's orphaned descendants, see the
/// module doc). Repeats until none is left, since killing a process
/// re-parents its own children to kustom. Returns how many were still
/// running (zombies are reaped without being counted).
fn sweep(live: &[i32]) -> usize {
    // SAFETY: getsid(0) asks for our own session.
    let own_session = unsafe { libc::getsid(0) };
    let mut running = 0;
    for _ in 0..1000 {
        let found: Vec<(i32, bool)> = children()
            .into_iter()
            .filter(|pid| !live.contains(pid))
            .filter_map(|pid| {
                let stat = stat_fields(pid)?;
                (stat.session != own_session).then_some((pid, stat.state == 'Z'))
            })
            .collect();
        if found.is_empty() {
            break;
        }
        for (pid, zombie) in found {
            if !zombie {
                running += 1;
            }
            // SAFETY: signalling and reaping our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
    running
}

/// Direct children of this process (of all its threads): from
/// `/proc/self/task/*/children` where the kernel has it
/// (`CONFIG_PROC_CHILDREN`), else by reading every process's parent.
fn children() -> Vec<i32> {
    let mut out = Vec::new();
    let mut listed = false;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
                listed = true;
                out.extend(
                    text.split_whitespace()
                        .filter_map(|p| p.parse::<i32>().ok()),
                );
            }
        }
    }
    if listed {
        return out;
    }
    let me = std::process::id() as i32;
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if stat_fields(pid).is_some_and(|f| f.ppid == me) {
            out.push(pid);
        }
    }
    out
}

/// The fields of `/proc/PID/stat` the sweep needs.
struct Stat {
    state: char,
    ppid: i32,
    session: i32,
}

fn stat_fields(pid: i32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state ppid pgrp session …"; comm may hold spaces and parens.
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let _pgrp = fields.next()?;
    let session = fields.next()?.parse().ok()?;
    Some(Stat {
        state,
        ppid,
        session,
    })
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
