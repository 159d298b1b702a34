//! Feeding a plugin process's STDIN while draining its STDOUT and STDERR
//! from one thread, with `poll`, until both end or the call's deadline:
//! the one way every call's pipes are driven, exec'd and forked alike.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::time::Instant;

/// A started plugin process whose pipes the pump drives: an exec'd call's
/// init, or a builtin process the fork server started.
pub struct Started {
    /// Its process id.
    pub pid: i32,
    /// Its STDIN.
    pub stdin: File,
    /// How much of the input was written to STDIN already.
    pub written: usize,
    /// Its STDOUT.
    pub stdout: File,
    /// Its STDERR.
    pub stderr: File,
}

/// What the pump collected.
pub struct Pumped {
    /// STDOUT, up to the cap.
    pub stdout: Vec<u8>,
    /// STDERR, up to its cap.
    pub stderr: Vec<u8>,
    /// STDOUT went past the cap.
    pub overflow: bool,
    /// The deadline passed before both outputs ended.
    pub timed_out: bool,
}

/// Make reads and writes of `f` return at once rather than wait.
pub(super) fn set_nonblocking(f: &File) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(f.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(f.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

/// Write the rest of `input` to the builtin process's STDIN (what
/// [`Started::written`] says is not there yet; then close it, and free
/// `input`: a large call's answer is read while the input is gone) and read
/// its STDOUT and STDERR to their ends, or until `deadline`, or until
/// STDOUT passes `max_output`.
pub fn pump(
    process: Started,
    mut input: Vec<u8>,
    deadline: Instant,
    max_output: usize,
    max_stderr: usize,
) -> Pumped {
    let mut stdin = Some(process.stdin);
    let mut written = process.written;
    let mut outputs = [Some(process.stdout), Some(process.stderr)];
    // Room for a small answer, read in one go (from empty, reading starts
    // with 32 bytes and doubles).
    let mut bufs = [Vec::with_capacity(1 << 16), Vec::new()];
    let caps = [max_output, max_stderr];
    for f in stdin.iter().chain(outputs.iter().flatten()) {
        set_nonblocking(f);
    }
    if written >= input.len() {
        stdin = None;
        input = Vec::new();
    }
    let mut result = Pumped {
        stdout: Vec::new(),
        stderr: Vec::new(),
        overflow: false,
        timed_out: false,
    };
    while outputs.iter().any(Option::is_some) {
        let now = Instant::now();
        if now >= deadline {
            result.timed_out = true;
            break;
        }
        let wait = (deadline - now).as_millis().min(i32::MAX as u128) as i32;
        let mut polled = Vec::with_capacity(3);
        if let Some(f) = &stdin {
            polled.push(libc::pollfd {
                fd: f.as_raw_fd(),
                events: libc::POLLOUT,
                revents: 0,
            });
        }
        for f in outputs.iter().flatten() {
            polled.push(libc::pollfd {
                fd: f.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
        }
        // SAFETY: poll over a local array of its length.
        let rc = unsafe {
            libc::poll(
                polled.as_mut_ptr(),
                polled.len() as libc::nfds_t,
                wait.max(1),
            )
        };
        if rc < 0 && std::io::Error::last_os_error().kind() != ErrorKind::Interrupted {
            break;
        }
        if let Some(f) = &mut stdin {
            match f.write(&input[written..]) {
                Ok(n) => written += n,
                Err(e)
                    if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {}
                // The process stopped reading (it may exit without reading
                // its input): not our error.
                Err(_) => written = input.len(),
            }
            if written >= input.len() {
                stdin = None;
                input = Vec::new();
            }
        }
        for (i, slot) in outputs.iter_mut().enumerate() {
            let Some(f) = slot else { continue };
            // Straight into the output (no zeroed bounce buffer), one byte
            // past the cap to see it passed.
            let room = (caps[i] + 1).saturating_sub(bufs[i].len()) as u64;
            let ended = match f.take(room).read_to_end(&mut bufs[i]) {
                Ok(_) => bufs[i].len() <= caps[i],
                Err(e) => e.kind() != ErrorKind::WouldBlock && e.kind() != ErrorKind::Interrupted,
            };
            if bufs[i].len() > caps[i] {
                if i == 0 {
                    result.overflow = true;
                    *slot = None;
                    continue;
                }
                // STDERR past its cap is dropped; the pipe is still drained
                // so that the process never blocks on it.
                bufs[i].truncate(caps[i]);
            }
            if ended {
                *slot = None;
            }
        }
        if result.overflow {
            break;
        }
    }
    let [stdout, stderr] = bufs;
    result.stdout = stdout;
    result.stderr = stderr;
    result
}
