//! Every process kustom starts, and every temporary file it makes, from
//! start to end: registered when started, waited for, and ended on every
//! way out — success, error, a closed STDOUT, a panic, and TERM, INT or HUP.
//!
//! kustom runs inside controllers whose PID 1 reaps nothing but its own
//! children (Argo CD's `argocd-cmp-server`): a child kustom leaves behind,
//! even one that has exited, stays there as a zombie until the pod's PID
//! limit is reached. So:
//!
//! - kustom is a child subreaper from its start: what a child orphans (a
//!   git helper, a daemon a plugin started) is re-parented to kustom, not
//!   to PID 1, and kustom reaps it;
//! - every child is registered here when it starts ([`starting`]) and
//!   leaves the register only when it is reaped ([`wait`]). A process is
//!   signalled only while it is in the register ([`signal`]), so a pid the
//!   kernel may already have handed to another process is never signalled;
//! - at the end ([`end_all`], called by `main` and before any early exit)
//!   and on a signal ([`signals`], from lock-free copies of the register),
//!   what is still registered is ended (a
//!   call's init gets TERM, so that it ends its plugin's tree and removes
//!   the call's private directory first; anything else KILL, its whole
//!   process group for git), every remaining child is killed and reaped,
//!   and the registered temporary files and directories ([`temporary`])
//!   are removed.
//!
//! This module is below the four layers: any of them may start a process.

pub mod signals;
mod slots;
pub mod temporary;

pub use slots::remove_tree;

use std::os::unix::process::ExitStatusExt;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub use temporary::Temporary;

/// How a registered child is ended when kustom ends first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A plugin call's init: TERM, on which it kills the plugin's tree and
    /// removes the call's private directory; KILL if it has not ended
    /// within the grace period.
    Init,
    /// The leader of a process group of its own (git and its helpers): the
    /// whole group gets KILL.
    Group,
    /// Any other process (the fork server, a forked builtin): KILL.
    Process,
}

/// The children started and not yet reaped.
/// Once kustom is ending, the register's lock is held until the process
/// exits, so that nothing new starts and nothing is reaped behind the back
/// of the one ending it all.
struct Register {
    children: Vec<(i32, Kind)>,
}

static REGISTER: Mutex<Register> = Mutex::new(Register {
    children: Vec::new(),
});

fn register() -> MutexGuard<'static, Register> {
    REGISTER.lock().unwrap_or_else(|e| e.into_inner())
}

/// A child being started: held from before the clone to its registration,
/// so that neither a sweep nor the end sees it unregistered. Once kustom is
/// ending, taking it waits until the process exits.
pub struct Starting(MutexGuard<'static, Register>);

/// Prepare to start a child (see [`Starting`]).
pub fn starting() -> Starting {
    let register = register();
    if signals::ending() {
        // The signal handler is ending every child: start none.
        park();
    }
    Starting(register)
}

/// Wait for the signal handler to end the process.
fn park() -> ! {
    loop {
        // SAFETY: pause waits for a signal.
        unsafe { libc::pause() };
    }
}

impl Starting {
    /// Register the child just started.
    pub fn started(mut self, pid: i32, kind: Kind) {
        self.0.children.push((pid, kind));
        slots::add_child(pid, kind);
    }

    /// Kill and reap every child in a session other than kustom's that is
    /// not registered (what a plugin left behind: see
    /// `plugin_host::exec`); how many were still running.
    pub fn sweep_other_sessions(&self) -> usize {
        let registered: Vec<i32> = self.0.children.iter().map(|(p, _)| *p).collect();
        // SAFETY: getsid(0) asks for our own session.
        let own_session = unsafe { libc::getsid(0) };
        let mut running = 0;
        for _ in 0..1000 {
            let found: Vec<(i32, bool)> = children()
                .into_iter()
                .filter(|pid| !registered.contains(pid))
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
                // SAFETY: an unregistered child is reaped only here, under
                // the register's lock: the pid is still ours.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
            }
        }
        running
    }
}

/// Make kustom the reaper of what its children orphan (once).
pub fn become_subreaper() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        // SAFETY: prctl with integer arguments.
        if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
            tracing::debug!(
                "PR_SET_CHILD_SUBREAPER failed: {}",
                std::io::Error::last_os_error()
            );
        }
    });
}

/// Wait for the registered child `pid` to end, and reap it; its wait
/// status, or `None` when it was not kustom's to wait for.
pub fn wait(pid: i32) -> Option<i32> {
    loop {
        // SAFETY: waitid fills the struct it is given; WNOWAIT leaves the
        // child in place, so its pid stays reserved until it leaves the
        // register below.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            break;
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            forget(pid);
            return None;
        }
    }
    let mut register = register();
    if signals::ending() {
        // The signal handler reaps it.
        park();
    }
    register.children.retain(|(p, _)| *p != pid);
    slots::remove_child(pid);
    let mut status = 0;
    // SAFETY: reaping our own child, which has ended (waitid said so).
    let reaped = unsafe { libc::waitpid(pid, &mut status, 0) } == pid;
    drop(register);
    reaped.then_some(status)
}

/// Wait for the registered child `pid` until `deadline`; at the deadline
/// it gets KILL (its group too, for a [`Kind::Group`]) and is reaped.
/// `Ok(status)` when it ended in time, `Err(status)` when it was killed.
pub fn wait_until(pid: i32, deadline: Instant) -> Result<Option<i32>, Option<i32>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(wait(pid));
    });
    let left = deadline.saturating_duration_since(Instant::now());
    match rx.recv_timeout(left.max(Duration::from_millis(1))) {
        Ok(status) => Ok(status),
        Err(_) => {
            signal(pid, libc::SIGKILL);
            Err(rx.recv().ok().flatten())
        }
    }
}

/// Send `sig` to the registered child `pid` (and to its process group for
/// a [`Kind::Group`]); nothing once it has been reaped.
pub fn signal(pid: i32, sig: libc::c_int) {
    let register = register();
    if let Some((_, kind)) = register.children.iter().find(|(p, _)| *p == pid) {
        send(pid, *kind, sig);
    }
}

fn send(pid: i32, kind: Kind, sig: libc::c_int) {
    // SAFETY: signalling a registered, unreaped child (and its group).
    unsafe {
        if kind == Kind::Group {
            libc::kill(-pid, sig);
        }
        libc::kill(pid, sig);
    }
}

fn forget(pid: i32) {
    register().children.retain(|(p, _)| *p != pid);
    slots::remove_child(pid);
}

/// Start `cmd` as a registered child; a [`Kind::Group`] leads a process
/// group of its own. Wait for it with [`wait`] or [`wait_until`], not
/// `Child::wait`.
pub fn spawn(cmd: &mut std::process::Command, kind: Kind) -> std::io::Result<std::process::Child> {
    if kind == Kind::Group {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let starting = starting();
    let child = cmd.spawn()?;
    starting.started(child.id() as i32, kind);
    Ok(child)
}

/// `cmd.output()` with the child registered: STDOUT and STDERR collected,
/// STDIN from /dev/null unless set.
pub fn output(cmd: &mut std::process::Command) -> std::io::Result<std::process::Output> {
    use std::io::Read;
    use std::process::Stdio;
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = spawn(cmd, Kind::Process)?;
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        buf
    });
    let mut stdout = Vec::new();
    let _ = out.read_to_end(&mut stdout);
    let stderr = err_reader.join().unwrap_or_default();
    let status = wait(child.id() as i32).unwrap_or(128 + libc::SIGKILL);
    Ok(std::process::Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout,
        stderr,
    })
}

/// How long a call's init gets to end its plugin's tree and remove the
/// call's private directory before it is killed.
const INIT_GRACE: Duration = Duration::from_millis(500);

/// End every child and remove every registered temporary file: what is
/// registered is signalled by its kind and reaped, then every other child
/// (an orphan kustom inherited, the fork server's spare) is killed and
/// reaped. The register stays locked until the process exits: call only
/// on the way out.
pub fn end_all() {
    let mut register = register();
    end_locked(&mut register);
    // Held until the process ends: a thread still running may neither
    // start nor reap a child now.
    std::mem::forget(register);
    temporary::remove_all();
}

fn end_locked(register: &mut Register) {
    for (pid, kind) in &register.children {
        let sig = if *kind == Kind::Init {
            libc::SIGTERM
        } else {
            libc::SIGKILL
        };
        send(*pid, *kind, sig);
    }
    let grace_ends = Instant::now() + INIT_GRACE;
    let mut pending: Vec<(i32, Kind)> = std::mem::take(&mut register.children);
    // What got KILL ends at once: reap it without polling.
    pending.retain(|(pid, kind)| {
        if *kind == Kind::Init {
            return true;
        }
        // SAFETY: reaping our own killed child.
        unsafe { libc::waitpid(*pid, std::ptr::null_mut(), 0) };
        false
    });
    while !pending.is_empty() {
        pending.retain(|(pid, _)| {
            // SAFETY: reaping our own children without waiting.
            let r = unsafe { libc::waitpid(*pid, std::ptr::null_mut(), libc::WNOHANG) };
            r == 0
        });
        if pending.is_empty() {
            break;
        }
        if Instant::now() >= grace_ends {
            for (pid, kind) in &pending {
                send(*pid, *kind, libc::SIGKILL);
            }
            for (pid, _) in &pending {
                // SAFETY: reaping our own killed child.
                unsafe { libc::waitpid(*pid, std::ptr::null_mut(), 0) };
            }
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    // Whatever else is a child now: killing one hands its own children to
    // kustom (the subreaper), so look again until none is left.
    for _ in 0..1000 {
        let found = children();
        if found.is_empty() {
            break;
        }
        for pid in found {
            // SAFETY: an unregistered child, reaped only here.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
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

/// The fields of `/proc/PID/stat` the sweeps need.
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
