//! Starting a plugin process: kustom's own `clone` + `execve`, because the
//! standard library's `Command` can neither start a child in new
//! namespaces nor exec without glibc's `execvp` fallback (a file the kernel
//! refuses with `ENOEXEC` — an empty file, a script without `#!` — is run
//! by `/bin/sh` instead; here it is an error).
//!
//! The shape: kustom → *init* → *plugin*. The init is a forked copy of
//! kustom that never execs: it enters the call's namespaces (a mount
//! namespace for a confined call, inside a user namespace when kustom is
//! not root), makes the mounts, becomes a child subreaper in a session of
//! its own, forks the plugin, waits for it, kills and counts whatever the
//! plugin left running (every orphan of the plugin's tree is re-parented
//! to the init), and writes a [`Report`] on a pipe before it exits. When
//! kustom dies — TERM, INT, HUP, even KILL — the init gets a parent-death
//! signal, kills the plugin's whole tree and removes the private directory.
//! A confined plugin cannot signal the init (Landlock's signal scope).
//!
//! Everything the children use is made before the clone: C strings,
//! pointer arrays, pipes, the Landlock ruleset, the seccomp programs. The
//! children only make system calls (no allocation, no locks), which is
//! what is safe after cloning a multi-threaded process.

use crate::plugin_host::sandbox::namespaces::{Plan, Step};
use crate::plugin_host::sandbox::ChildSetup;
use crate::processes::remove_tree;
use std::ffi::{CStr, CString};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};

/// Descriptor numbers in the children.
const FD_ERR: RawFd = 3;
const FD_REPORT: RawFd = 4;
const FD_RULESET: RawFd = 5;
const FD_LIFELINE: RawFd = 6;
const FD_TMP_PARENT: RawFd = 7;
const FIRST_FREE: RawFd = 8;

const REPORT_MAGIC: u32 = 0x6b75_7374;

/// What a process needs to start, prepared in kustom.
pub struct Request<'a> {
    /// The executable (a path).
    pub program: &'a CStr,
    /// `argv`, null-terminated.
    pub argv: &'a [*const libc::c_char],
    /// `envp`, null-terminated.
    pub envp: &'a [*const libc::c_char],
    /// The working directory.
    pub cwd: &'a CStr,
    /// Confinement applied in the plugin process.
    pub setup: ChildSetup,
    /// Namespaces (None: the kernel allows none, or the call is unconfined).
    pub plan: Option<&'a Plan>,
    /// The private directory's parent and name (removed by the init when
    /// kustom dies first).
    pub tmp: Option<(&'a CStr, &'a CStr)>,
    /// The plugin process's stack until it execs (allocated by kustom).
    pub stack: *mut u8,
    /// Its length.
    pub stack_len: usize,
}

/// A started process.
pub struct Spawned {
    /// kustom's child: the init.
    pub pid: i32,
    /// The plugin's STDIN.
    pub stdin: Option<File>,
    /// The plugin's STDOUT.
    pub stdout: Option<File>,
    /// The plugin's STDERR.
    pub stderr: Option<File>,
    report: Option<File>,
    /// Held open while the call runs: the init sees kustom die by its end closing.
    _lifeline: Option<OwnedFd>,
}

/// Why a process could not start.
#[derive(Debug)]
pub struct StartError {
    /// The step that failed (None: making pipes or cloning, in kustom).
    pub step: Option<Step>,
    /// The error.
    pub error: std::io::Error,
}

/// What the init reports when it is done.
#[derive(Debug, Clone, Copy)]
pub enum Report {
    /// The plugin ended with this wait status; so many processes it left
    /// running were killed.
    Ended { status: i32, left: u32 },
    /// Setting up the namespace failed.
    SetupFailed { step: Option<Step>, errno: i32 },
    /// No report: the init was killed (the timeout).
    Missing,
}

/// A pipe whose ends close on exec.
pub(super) fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors we own.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Start the process.
pub fn spawn(req: &Request<'_>) -> Result<Spawned, StartError> {
    let start = |error| StartError { step: None, error };
    let (stdin_r, stdin_w) = pipe().map_err(start)?;
    let (stdout_r, stdout_w) = pipe().map_err(start)?;
    let (stderr_r, stderr_w) = pipe().map_err(start)?;
    let (err_r, err_w) = pipe().map_err(start)?;
    let (report_r, report_w) = pipe().map_err(start)?;
    let (lifeline_r, lifeline_w) = pipe().map_err(start)?;
    let tmp_parent: Option<OwnedFd> = match req.tmp {
        Some((parent, _)) => {
            // SAFETY: open with a valid C string.
            let fd = unsafe {
                libc::open(
                    parent.as_ptr(),
                    libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
                )
            };
            // SAFETY: a fresh descriptor we own.
            (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
        }
        _ => None,
    };
    let layout = Layout {
        stdio: [
            stdin_r.as_raw_fd(),
            stdout_w.as_raw_fd(),
            stderr_w.as_raw_fd(),
        ],
        err: err_w.as_raw_fd(),
        report: Some(report_w.as_raw_fd()),
        ruleset: req.setup.ruleset,
        lifeline: Some(lifeline_r.as_raw_fd()),
        tmp_parent: tmp_parent.as_ref().map(|f| f.as_raw_fd()),
    };
    let flags = req.plan.map(|p| p.clone_flags).unwrap_or(0) | libc::SIGCHLD as u64;
    // SAFETY: a raw clone without a new stack behaves as fork; the child
    // runs only async-signal-safe system calls on values prepared above
    // and ends in execve or _exit.
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    if pid == 0 {
        // SAFETY: in the child, see above.
        unsafe {
            layout.arrange();
            init(req)
        }
    }
    if pid < 0 {
        return Err(start(std::io::Error::last_os_error()));
    }
    let pid = pid as i32;
    drop((
        stdin_r, stdout_w, stderr_w, err_w, report_w, lifeline_r, tmp_parent,
    ));
    // The plugin's exec closes its end; a failure before it writes step and errno.
    let mut buf = [0u8; 8];
    let mut got = 0;
    let mut err_file = File::from(err_r);
    while got < buf.len() {
        match std::io::Read::read(&mut err_file, &mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if got == buf.len() {
        let step = u32::from_ne_bytes(buf[..4].try_into().expect("4 bytes"));
        let errno = i32::from_ne_bytes(buf[4..].try_into().expect("4 bytes"));
        // The child exits at once (the init after reporting); reap it.
        // SAFETY: waiting for our own child.
        unsafe {
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
        }
        return Err(StartError {
            step: Step::from_u32(step),
            error: std::io::Error::from_raw_os_error(errno),
        });
    }
    Ok(Spawned {
        pid,
        stdin: Some(File::from(stdin_w)),
        stdout: Some(File::from(stdout_r)),
        stderr: Some(File::from(stderr_r)),
        report: Some(File::from(report_r)),
        _lifeline: Some(lifeline_w),
    })
}

impl Spawned {
    /// The init's report, once it has exited.
    pub fn report(&mut self) -> Report {
        let Some(f) = self.report.as_mut() else {
            return Report::Missing;
        };
        let mut buf = [0u8; 16];
        match std::io::Read::read_exact(f, &mut buf) {
            Ok(()) => {}
            Err(_) => return Report::Missing,
        }
        let word = |i: usize| u32::from_ne_bytes(buf[i * 4..i * 4 + 4].try_into().expect("4"));
        if word(0) != REPORT_MAGIC {
            return Report::Missing;
        }
        match word(1) {
            0 => Report::Ended {
                status: word(2) as i32,
                left: word(3),
            },
            _ => Report::SetupFailed {
                step: Step::from_u32(word(2)),
                errno: word(3) as i32,
            },
        }
    }
}

/// Where the child's descriptors come from.
struct Layout {
    stdio: [RawFd; 3],
    err: RawFd,
    report: Option<RawFd>,
    ruleset: Option<RawFd>,
    lifeline: Option<RawFd>,
    tmp_parent: Option<RawFd>,
}

impl Layout {
    /// Move the descriptors to their fixed numbers and close every other
    /// one (a sibling call's pipes included). Async-signal-safe.
    unsafe fn arrange(&self) {
        let sources: [(Option<RawFd>, RawFd); 8] = [
            (Some(self.stdio[0]), 0),
            (Some(self.stdio[1]), 1),
            (Some(self.stdio[2]), 2),
            (Some(self.err), FD_ERR),
            (self.report, FD_REPORT),
            (self.ruleset, FD_RULESET),
            (self.lifeline, FD_LIFELINE),
            (self.tmp_parent, FD_TMP_PARENT),
        ];
        let high = sources
            .iter()
            .filter_map(|(s, _)| *s)
            .max()
            .unwrap_or(0)
            .max(FIRST_FREE)
            + 1;
        let mut moved: [RawFd; 8] = [-1; 8];
        for (i, (src, _)) in sources.iter().enumerate() {
            if let Some(src) = src {
                moved[i] = libc::fcntl(*src, libc::F_DUPFD_CLOEXEC, high);
            }
        }
        for (i, (_, target)) in sources.iter().enumerate() {
            if moved[i] >= 0 {
                let flags = if *target > 2 { libc::O_CLOEXEC } else { 0 };
                libc::dup3(moved[i], *target, flags);
            } else {
                libc::close(*target);
            }
        }
        close_from(FIRST_FREE);
    }
}

/// Close every descriptor from `first` on.
pub(super) unsafe fn close_from(first: RawFd) {
    if libc::syscall(
        libc::SYS_close_range,
        first as libc::c_uint,
        libc::c_uint::MAX,
        0,
    ) != 0
    {
        // Kernels before 5.9: close them one by one.
        let mut rl = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        let max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) == 0 {
            rl.rlim_cur.min(1 << 20) as RawFd
        } else {
            1024
        };
        for fd in first..max {
            libc::close(fd);
        }
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Write step and errno on the exec-error pipe and end the child.
unsafe fn fail(step: Step, errno: i32) -> ! {
    let mut buf = [0u8; 8];
    buf[..4].copy_from_slice(&(step as u32).to_ne_bytes());
    buf[4..].copy_from_slice(&errno.to_ne_bytes());
    libc::write(FD_ERR, buf.as_ptr().cast(), buf.len());
    libc::_exit(127)
}

/// The entry of the plugin process cloned by the init.
extern "C" fn plugin_entry(req: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `req` is the init's `Request`, alive: the init is suspended
    // until this process execs or exits.
    unsafe {
        let req = &*(req as *const Request<'_>);
        libc::close(FD_REPORT);
        libc::close(FD_LIFELINE);
        libc::close(FD_TMP_PARENT);
        plugin(req)
    }
}

/// The plugin process: signals back to their defaults, its own session,
/// confinement, exec. Never returns.
unsafe fn plugin(req: &Request<'_>) -> ! {
    for sig in 1..=64 {
        if sig != libc::SIGKILL && sig != libc::SIGSTOP {
            libc::signal(sig, libc::SIG_DFL);
        }
    }
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    libc::setsid();
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    if libc::chdir(req.cwd.as_ptr()) != 0 {
        fail(Step::Chdir, errno());
    }
    let mut setup = req.setup;
    setup.ruleset = setup.ruleset.map(|_| FD_RULESET);
    if let (Some(fd), Some(m)) = (setup.ruleset, req.plan.and_then(|p| p.mounts.as_ref())) {
        let tmp = libc::open(
            m.tmp.as_ptr(),
            libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY,
        );
        if tmp >= 0 {
            #[repr(C, packed)]
            struct PathBeneathAttr {
                allowed_access: u64,
                parent_fd: i32,
            }
            let attr = PathBeneathAttr {
                allowed_access: m.tmp_rights,
                parent_fd: tmp,
            };
            // LANDLOCK_RULE_PATH_BENEATH = 1.
            if libc::syscall(
                libc::SYS_landlock_add_rule,
                fd,
                1u32,
                &attr as *const PathBeneathAttr,
                0u32,
            ) != 0
            {
                fail(Step::Confine, errno());
            }
            libc::close(tmp);
        }
    }
    if let Err(e) = setup.apply() {
        fail(Step::Confine, e.raw_os_error().unwrap_or(0));
    }
    libc::execve(req.program.as_ptr(), req.argv.as_ptr(), req.envp.as_ptr());
    fail(Step::Exec, errno())
}

static PARENT_GONE: AtomicBool = AtomicBool::new(false);

extern "C" fn on_parent_death(_: libc::c_int) {
    PARENT_GONE.store(true, Ordering::SeqCst);
}

unsafe fn report(words: [u32; 4]) {
    let mut buf = [0u8; 16];
    for (i, w) in words.iter().enumerate() {
        buf[i * 4..i * 4 + 4].copy_from_slice(&w.to_ne_bytes());
    }
    libc::write(FD_REPORT, buf.as_ptr().cast(), buf.len());
}

/// Kill every descendant left (each is the init's child: it is their
/// subreaper) and reap them; how many were still running.
unsafe fn kill_rest(plugin: libc::pid_t) -> u32 {
    let mut left = 0;
    // Kill what is listed, reap, and look again: killing a process hands
    // its own children to the init.
    for _ in 0..10_000 {
        let mut listed = 0;
        let mut buf = [0u8; 4096];
        let fd = libc::open(
            c"/proc/thread-self/children".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd >= 0 {
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            libc::close(fd);
            let mut pid: libc::pid_t = 0;
            let mut digits = false;
            for &b in &buf[..n.max(0) as usize] {
                if b.is_ascii_digit() {
                    pid = pid * 10 + (b - b'0') as libc::pid_t;
                    digits = true;
                } else {
                    if digits {
                        libc::kill(pid, libc::SIGKILL);
                        listed += 1;
                    }
                    pid = 0;
                    digits = false;
                }
            }
            if digits {
                libc::kill(pid, libc::SIGKILL);
                listed += 1;
            }
        } else if plugin > 0 {
            // No /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN): the
            // plugin's session is what can be reached.
            libc::kill(-plugin, libc::SIGKILL);
        }
        let mut reaped = 0;
        loop {
            let mut status = 0;
            let r = libc::waitpid(-1, &mut status, libc::WNOHANG);
            if r == 0 && listed > reaped {
                // Killed, not yet reaped: wait for one.
                let r = libc::waitpid(-1, &mut status, 0);
                if r <= 0 {
                    break;
                }
            } else if r <= 0 {
                break;
            }
            reaped += 1;
            if libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL {
                left += 1;
            }
        }
        if listed == 0 && reaped == 0 {
            break;
        }
    }
    left
}

/// kustom died: end everything and remove the private directory.
unsafe fn parent_died(req: &Request<'_>, plugin: libc::pid_t) -> ! {
    kill_rest(plugin);
    if let Some((_, name)) = req.tmp {
        if let Some(m) = req.plan.and_then(|p| p.mounts.as_ref()) {
            libc::umount2(m.tmp.as_ptr(), libc::MNT_DETACH);
        }
        remove_tree(FD_TMP_PARENT, name.as_ptr(), 0);
    }
    libc::_exit(1)
}

/// The init. Never returns.
unsafe fn init(req: &Request<'_>) -> ! {
    // Handlers kustom installed (wait-timeout's SIGCHLD handler writes to
    // a pipe whose number may now be the report's) must not run here.
    for sig in 1..=64 {
        if sig != libc::SIGKILL && sig != libc::SIGSTOP {
            libc::signal(sig, libc::SIG_DFL);
        }
    }
    // Die with kustom, but first clean up: a handler, so that the signal
    // reaches pid 1 and interrupts its wait.
    let mut sa: libc::sigaction = std::mem::zeroed();
    sa.sa_sigaction = on_parent_death as *const () as usize;
    libc::sigemptyset(&mut sa.sa_mask);
    libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0);
    // kustom may have died before the parent-death signal was set: then
    // every write end of the lifeline is closed.
    let mut pfd = libc::pollfd {
        fd: FD_LIFELINE,
        events: libc::POLLIN,
        revents: 0,
    };
    if libc::poll(&mut pfd, 1, 0) > 0 && pfd.revents & libc::POLLHUP != 0 {
        parent_died(req, 0);
    }
    // Its own session: a signal to kustom's process group leaves it to
    // clean up. The subreaper of everything the plugin starts.
    libc::setsid();
    libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    if let Some(plan) = req.plan {
        if let Err(step) = plan.apply() {
            report([REPORT_MAGIC, 1, step as u32, errno() as u32]);
            libc::_exit(1);
        }
    }
    // The plugin shares the init's memory until it execs (CLONE_VM |
    // CLONE_VFORK, on a stack of its own, as posix_spawn does): no second
    // copy of kustom's page tables, which cost more than the rest of the
    // sandbox together on a large build. The init waits meanwhile.
    let stack_top = req.stack.add(req.stack_len & !15) as *mut libc::c_void;
    let pid = libc::clone(
        plugin_entry,
        stack_top,
        libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
        req as *const Request<'_> as *mut libc::c_void,
    );
    if pid < 0 {
        report([REPORT_MAGIC, 1, Step::Fork as u32, errno() as u32]);
        libc::_exit(1);
    }
    for fd in [0, 1, 2, FD_ERR, FD_RULESET] {
        libc::close(fd);
    }
    let pid = pid as libc::pid_t;
    let status = loop {
        // Before each wait as well as after it: kustom may have died while
        // the init set up or cloned the plugin, and the signal's flag would
        // otherwise wait for the plugin to end.
        if PARENT_GONE.load(Ordering::SeqCst) {
            parent_died(req, pid);
        }
        let mut status = 0;
        let r = libc::waitpid(-1, &mut status, 0);
        if r == pid {
            break status;
        }
        if PARENT_GONE.load(Ordering::SeqCst) {
            parent_died(req, pid);
        }
        if r < 0 && errno() != libc::EINTR {
            break 0;
        }
    };
    let left = kill_rest(pid);
    if PARENT_GONE.load(Ordering::SeqCst) {
        parent_died(req, pid);
    }
    report([REPORT_MAGIC, 0, status as u32, left]);
    libc::_exit(0)
}

/// Null-terminated pointer array over C strings (kept alive by the caller).
pub fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}
