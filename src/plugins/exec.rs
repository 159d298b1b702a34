//! Running one plugin process: arguments, working directory, environment,
//! STDIN written while STDOUT/STDERR are drained, a timeout that kills the
//! whole process group, and a cap on STDOUT.

use kustom_api::Error;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
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

/// Run `program args…` in `cwd` with extra `env`, feeding `stdin`.
pub fn run(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    env: &[(&str, String)],
    stdin: Vec<u8>,
    limits: Limits,
) -> Result<Output, Error> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Own process group, so a timeout kills the plugin and its children.
        .process_group(0);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::new(format!("cannot start {}: {e}", program.display())))?;
    let pid = child.id() as i32;
    let mut child_stdin = child.stdin.take();
    let mut child_stdout = child.stdout.take();
    let mut child_stderr = child.stderr.take();
    let max_output = limits.max_output;
    let (status, stdout, stderr, overflow) = std::thread::scope(|s| {
        s.spawn(move || {
            if let Some(mut w) = child_stdin.take() {
                // A plugin may exit without reading its input; that is not our error.
                let _ = w.write_all(&stdin);
            }
        });
        let out = s.spawn(move || {
            let mut buf = Vec::new();
            let mut overflow = false;
            if let Some(r) = child_stdout.as_mut() {
                let mut chunk = [0u8; 64 * 1024];
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
            (buf, overflow)
        });
        let err = s.spawn(move || {
            let mut buf = Vec::new();
            if let Some(r) = child_stderr.as_mut() {
                let _ = r.take(STDERR_CAP as u64).read_to_end(&mut buf);
                // Drain the rest so the plugin never blocks on STDERR.
                let _ = std::io::copy(r, &mut std::io::sink());
            }
            buf
        });
        let status = match child.wait_timeout(limits.timeout) {
            Ok(Some(st)) => Ok(st),
            Ok(None) => {
                kill_group(pid);
                let _ = child.wait();
                Err(())
            }
            Err(_) => {
                kill_group(pid);
                let _ = child.wait();
                Err(())
            }
        };
        // Children of the plugin may still hold the pipes open.
        kill_group(pid);
        let (stdout, overflow) = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        (status, stdout, stderr, overflow)
    });
    let status = match status {
        Ok(st) => st,
        Err(()) => {
            return Err(Error::new(format!(
                "timed out after {:?} (process group killed){}",
                limits.timeout,
                stderr_tail(&stderr)
            )))
        }
    };
    if overflow {
        return Err(Error::new(format!(
            "wrote more than {max_output} bytes to STDOUT (raise --plugin-max-output){}",
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
    })
}

fn kill_group(pid: i32) {
    // SAFETY: kill(2) with a negative pid signals the process group we created.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
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
