//! The fork server: the shipped builtin without an `exec` per call.
//!
//! Starting the builtin the ordinary way (clone, exec kustom's own
//! executable, dynamic loading, the allocator's start, page faults) cost
//! about 1.5 ms per call on the project's 2-core machines: more than the
//! work of a small kustomization, and 180 starts for a 90-root `render`.
//! So `build`, `render` and `diff` fork one copy of kustom at their start,
//! while they are still single-threaded and before they read any file:
//! the fork server. For each builtin call the core sends it the call over
//! a UNIX socket (the three pipe ends and the Landlock ruleset go along as
//! `SCM_RIGHTS`), and the server clones a child with `CLONE_PARENT`, which
//! makes it the core's own child: the core waits for it, times it out and
//! kills it like any plugin process. The first call's child is cloned
//! before the call (a *spare*, see `spare`) and takes it off the socket
//! itself.
//!
//! The child takes a session of its own and a parent-death signal, takes
//! the pipes as STDIN/STDOUT/STDERR, sets the call's environment and
//! working directory, confines itself as an exec'd builtin would (limits,
//! `no_new_privs`, no capabilities, the call's Landlock ruleset, the
//! seccomp allow-list) plus a filter that refuses starting any process or
//! program, runs the builtin and exits. It is still a separate process that
//! exchanges Resource Config over STDIN/STDOUT, and its memory is what the
//! server was forked with: no file of the tree, no other call's data.
//!
//! Calls that start processes (the builtin's Helm generator with
//! `--enable-helm`) take the exec path.

use super::super::sandbox::{capabilities, ChildSetup, Confinement};
use super::pump::{set_nonblocking, Started};
use super::spawn::{close_from, pipe};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// The server as the core sees it.
struct Server {
    /// The core's end of the socket; one request and its answer at a time.
    socket: Mutex<OwnedFd>,
    /// The server's process id (the core's child).
    pid: libc::pid_t,
    /// Set by [`finish`]: calls take the exec path from then on.
    finished: std::sync::atomic::AtomicBool,
}

static SERVER: OnceLock<Server> = OnceLock::new();

/// Largest request (the call's environment, mostly).
const MAX_REQUEST: usize = 1 << 20;

/// One builtin call, as sent to the server.
#[derive(Serialize, Deserialize)]
struct Request {
    /// `generate` or `transform`.
    op: String,
    /// The working directory (bytes: paths need not be UTF-8).
    cwd: Vec<u8>,
    /// The whole environment, `NAME=value`.
    env: Vec<Vec<u8>>,
    /// What confines the child.
    confinement: Confinement,
    /// Whether a Landlock ruleset descriptor follows the three pipes.
    ruleset: bool,
}

/// Start the fork server (once). Call only while the process has a single thread (the server is a fork of
/// it that keeps running Rust code), and as early as possible: the smaller
/// the process, the cheaper the fork of each call. `child_init` runs first
/// in each builtin process (logging, when `RUST_LOG` asks for it). When
/// the fork fails, builtin calls take the exec path.
pub fn start(child_init: fn()) {
    if SERVER.get().is_some() {
        return;
    }
    let mut pair = [0; 2];
    // SAFETY: socketpair writes two descriptors into the array.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            pair.as_mut_ptr(),
        )
    };
    if rc != 0 {
        tracing::debug!(
            "fork server: socketpair: {}",
            std::io::Error::last_os_error()
        );
        return;
    }
    // SAFETY: fresh descriptors we own.
    let (core_end, server_end) =
        unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) };
    // SAFETY: getpid takes nothing.
    let core = unsafe { libc::getpid() };
    // SAFETY: sched_getcpu takes nothing.
    let core_cpu = unsafe { libc::sched_getcpu() };
    // SAFETY: the process is single-threaded (the caller's promise), so the
    // child may run any code; it never returns from `serve`.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        drop(core_end);
        // The core's handlers end the core's children: not the server's.
        crate::processes::signals::reset_in_child();
        let step_aside = StepAside::from(core_cpu);
        serve(server_end, core, child_init, step_aside);
    }
    if pid < 0 {
        tracing::debug!("fork server: fork: {}", std::io::Error::last_os_error());
        return;
    }
    drop(server_end);
    // Registered after the fork: the process has one thread, so nothing
    // can look at the register meanwhile.
    crate::processes::starting().started(pid, crate::processes::Kind::Process);
    let _ = SERVER.set(Server {
        socket: Mutex::new(core_end),
        pid,
        finished: std::sync::atomic::AtomicBool::new(false),
    });
}

/// The message that asks the server for the builtin's remaining tables
/// now; it sends no answer.
const PRELOAD_NOW: &[u8] = b"preload";

/// Tell the server that the build's calls will merge patches, so that it
/// builds the OpenAPI schema now, while the core still loads the tree,
/// rather than in each of the first calls (once per process).
pub fn preload_schema() {
    static SENT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let Some(server) = server() else {
        return;
    };
    if SENT.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let socket = server.socket.lock().unwrap_or_else(|e| e.into_inner());
    // A lost hint only leaves the schema to the calls.
    // SAFETY: sending a local buffer of its length.
    unsafe {
        libc::send(
            socket.as_raw_fd(),
            PRELOAD_NOW.as_ptr().cast(),
            PRELOAD_NOW.len(),
            libc::MSG_NOSIGNAL,
        )
    };
}

/// Whether builtin calls can go to the fork server.
pub fn running() -> bool {
    server().is_some()
}

/// The server, unless it was never started or is finished.
fn server() -> Option<&'static Server> {
    SERVER
        .get()
        .filter(|s| !s.finished.load(std::sync::atomic::Ordering::Relaxed))
}

/// End the server: the build's calls are over. Between calls it builds the
/// builtin's remaining tables (the OpenAPI schema, about a millisecond),
/// which after the last call only competes with the core's printing for
/// the two cores (training-operator's tree: 27.7 -> 25.7 ms).
/// A later call would take the exec path.
pub fn finish() {
    let Some(server) = server() else {
        return;
    };
    server
        .finished
        .store(true, std::sync::atomic::Ordering::Relaxed);
    // It holds nothing the core needs; it is reaped on the way out (see
    // `crate::processes`), as is a first call's spare it forked.
    crate::processes::signal(server.pid, libc::SIGKILL);
}

/// Have the server start the builtin for `op` in `cwd` with the whole
/// environment `env` (`NAME=value`), confined by `confinement` (what the
/// server did not apply to itself already) and the Landlock ruleset
/// `ruleset`, and write what the pipe takes of `input` to its STDIN.
/// `Ok(None)`: the server is gone or refused the request; the caller takes
/// the exec path (with all of `input`).
pub fn spawn(
    op: &str,
    cwd: &Path,
    env: Vec<Vec<u8>>,
    confinement: Confinement,
    ruleset: Option<RawFd>,
    input: &[u8],
) -> std::io::Result<Option<Started>> {
    use std::os::unix::ffi::OsStrExt;
    let Some(server) = server() else {
        return Ok(None);
    };
    let request = Request {
        op: op.to_string(),
        cwd: cwd.as_os_str().as_bytes().to_vec(),
        env,
        confinement,
        ruleset: ruleset.is_some(),
    };
    let body = serde_json::to_vec(&request).map_err(std::io::Error::other)?;
    if body.len() > MAX_REQUEST {
        return Ok(None);
    }
    let (stdin_r, stdin_w) = pipe()?;
    let (stdout_r, stdout_w) = pipe()?;
    let (stderr_r, stderr_w) = pipe()?;
    let mut fds = vec![
        stdin_r.as_raw_fd(),
        stdout_w.as_raw_fd(),
        stderr_w.as_raw_fd(),
    ];
    fds.extend(ruleset);
    let socket = server.socket.lock().unwrap_or_else(|e| e.into_inner());
    if send_with_fds(socket.as_raw_fd(), &body, &fds).is_err() {
        return Ok(None);
    }
    // The input first, the answer then: the builtin process (a spare, woken
    // on this CPU) runs until it waits for its input, so that the answer
    // only comes once the call's work is under way or done (tiny tree:
    // the answer came 0.34 ms after the request was taken, the input
    // followed it).
    let stdin = File::from(stdin_w);
    set_nonblocking(&stdin);
    let written = (&stdin).write(input).unwrap_or(0);
    let mut answer = [0u8; 4];
    // SAFETY: reading into a local buffer of its length.
    let n = unsafe { libc::recv(socket.as_raw_fd(), answer.as_mut_ptr().cast(), 4, 0) };
    drop(socket);
    if n != 4 {
        return Ok(None);
    }
    let pid = i32::from_ne_bytes(answer);
    if pid <= 0 {
        tracing::debug!(
            "fork server refused a call: {}",
            std::io::Error::from_raw_os_error(-pid)
        );
        return Ok(None);
    }
    Ok(Some(Started {
        pid,
        stdin,
        written,
        stdout: File::from(stdout_r),
        stderr: File::from(stderr_r),
    }))
}

/// Space for the control message carrying up to four descriptors.
const CMSG_SPACE: usize = 64;

fn send_with_fds(socket: RawFd, body: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
    let mut control = [0u8; CMSG_SPACE];
    let fds_len = std::mem::size_of_val(fds);
    // SAFETY: the message header points at live local buffers; CMSG_* walk
    // the control buffer, which is large enough for four descriptors.
    unsafe {
        let mut iov = libc::iovec {
            iov_base: body.as_ptr() as *mut libc::c_void,
            iov_len: body.len(),
        };
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(fds_len as u32) as usize;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(fds_len as u32) as usize;
        std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg).cast(), fds.len());
        if libc::sendmsg(socket, &msg, libc::MSG_NOSIGNAL) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Receive one request: its body and descriptors. `None`: the core closed
/// its end (or the socket failed).
fn receive(socket: RawFd) -> Option<(Vec<u8>, Vec<OwnedFd>)> {
    let mut control = [0u8; CMSG_SPACE];
    loop {
        // The request's length first (MSG_TRUNC reports a datagram's whole
        // length), so that the buffer is only as large as the request.
        // SAFETY: peeking with a null buffer of length zero.
        let len = unsafe {
            libc::recv(
                socket,
                std::ptr::null_mut(),
                0,
                libc::MSG_PEEK | libc::MSG_TRUNC,
            )
        };
        if len < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        if len <= 0 {
            return None;
        }
        let mut buf = vec![0u8; (len as usize).min(MAX_REQUEST)];
        // SAFETY: as in `send_with_fds`; received descriptors are taken
        // into `OwnedFd`s at once.
        unsafe {
            let mut iov = libc::iovec {
                iov_base: buf.as_mut_ptr().cast(),
                iov_len: buf.len(),
            };
            let mut msg: libc::msghdr = std::mem::zeroed();
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = control.len();
            let n = libc::recvmsg(socket, &mut msg, libc::MSG_CMSG_CLOEXEC);
            if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            if n <= 0 {
                return None;
            }
            let mut fds = Vec::new();
            let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
            while !cmsg.is_null() {
                if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                    let data = libc::CMSG_DATA(cmsg) as *const RawFd;
                    let count = ((*cmsg).cmsg_len - libc::CMSG_LEN(0) as usize)
                        / std::mem::size_of::<RawFd>();
                    for i in 0..count {
                        fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))));
                    }
                }
                cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
            }
            if msg.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) != 0 {
                buf.clear();
            }
            buf.truncate(n as usize);
            return Some((buf, fds));
        }
    }
}

/// The server: answer requests until the core goes away. Never returns.
fn serve(socket: OwnedFd, core: libc::pid_t, child_init: fn(), step_aside: StepAside) -> ! {
    // SAFETY: plain system calls in the single-threaded server.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() != core {
            libc::_exit(0);
        }
        // Hold none of the core's descriptors (a reader of the core's
        // STDOUT must see it close when the core ends): the socket goes
        // to 3, the standard ones to /dev/null.
        let high = libc::fcntl(socket.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 16);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        for fd in 0..3 {
            if null >= 0 {
                libc::dup2(null, fd);
            }
        }
        if high < 0 || libc::dup3(high, 3, libc::O_CLOEXEC) < 0 {
            libc::_exit(1);
        }
        close_from(4);
        std::mem::forget(socket);
        // The server needs no privilege: drop every capability here, once,
        // rather than in each child (80 prctl calls as root).
        if capabilities::drop_all().is_err() {
            libc::_exit(1);
        }
    }
    // The children's filter, compiled once here.
    let _ = ChildSetup::new(
        for_child(&Confinement {
            seccomp: true,
            ..Confinement::default()
        }),
        None,
    );
    // The builtin's cheap tables now, the rest between calls.
    let mut preload = kustom_builtin::PRELOAD.iter();
    for step in preload.by_ref().take(2) {
        step();
    }
    // Ready: the children it clones may run on any CPU again.
    step_aside.end();
    let mut served = 0usize;
    // The first call's builtin process is forked ahead (see `spare`).
    let mut first_call_ahead = true;
    loop {
        // Only after the second call: a step must not hold up a call that
        // is about to come, and most small builds make one call in all;
        // a schema built after it only competed with the core's printing
        // and exit for the two cores (tiny tree: 5.2 -> 4.4 ms without it).
        if served > 1 && idle(SOCKET) {
            if let Some(step) = preload.next() {
                step();
                continue;
            }
        }
        if first_call_ahead {
            first_call_ahead = false;
            match spare(core, child_init) {
                Some(SpareEnd::Call) => served += 1,
                Some(SpareEnd::Preload) => {
                    preload.by_ref().for_each(|step| step());
                    first_call_ahead = true;
                }
                // The call comes here instead.
                Some(SpareEnd::Lost) | None => {}
            }
            continue;
        }
        // Each later call's process is cloned when the call comes: a spare
        // forked ahead of it would be forked while the call before runs,
        // or the core prints and exits, and compete with them for the two
        // cores (tiny tree: 3.09 ms with the first call's spare only, 3.71
        // with the next spare forked as soon as the first was taken).
        let Some((body, fds)) = receive(SOCKET) else {
            // SAFETY: ending the server.
            unsafe { libc::_exit(0) }
        };
        if body == PRELOAD_NOW && fds.is_empty() {
            preload.by_ref().for_each(|step| step());
            continue;
        }
        let answer = match parse_request(&body, &fds) {
            Some(request) => {
                let setup = ChildSetup::new(for_child(&request.confinement), None);
                let pid = clone_for_core();
                if pid == 0 {
                    end_with(core);
                    // SAFETY: setsid takes nothing.
                    unsafe { libc::setsid() };
                    child(&request, &fds, setup, child_init);
                }
                if pid < 0 {
                    -std::io::Error::last_os_error()
                        .raw_os_error()
                        .unwrap_or(libc::EAGAIN)
                } else {
                    pid as i32
                }
            }
            None => -libc::EINVAL,
        };
        drop(fds);
        served += 1;
        answer_core(answer);
    }
}

/// Clone a builtin process as the core's child (`CLONE_PARENT`): as fork,
/// 0 in the new process, its pid in the server, or negative.
fn clone_for_core() -> libc::c_long {
    // SAFETY: a raw clone without a new stack behaves as fork; the server
    // is single-threaded, so the new process may run any code.
    unsafe {
        libc::syscall(
            libc::SYS_clone,
            (libc::CLONE_PARENT | libc::SIGCHLD) as u64,
            0usize,
            0usize,
            0usize,
            0usize,
        )
    }
}

/// The server's socket, in the server and its spares.
const SOCKET: RawFd = 3;

/// A request, if the body is one and the descriptors it announces came.
fn parse_request(body: &[u8], fds: &[OwnedFd]) -> Option<Request> {
    serde_json::from_slice::<Request>(body)
        .ok()
        .filter(|request| fds.len() == 3 + usize::from(request.ruleset))
}

/// Send the core the answer to its request: the builtin's process id, or
/// an `errno` negated.
fn answer_core(answer: i32) {
    // SAFETY: sending a local buffer.
    unsafe {
        libc::send(
            SOCKET,
            answer.to_ne_bytes().as_ptr().cast(),
            4,
            libc::MSG_NOSIGNAL,
        );
    }
}

/// How a spare stopped waiting.
enum SpareEnd {
    /// It took a call.
    Call,
    /// It took the core's hint to build the remaining tables now, and ended
    /// so that the next spare is forked with them.
    Preload,
    /// It ended without either.
    Lost,
}

/// The spare's message to the server: it took a call.
const SPARE_TOOK_CALL: u8 = b'C';
/// The spare's message to the server: it took the preload hint.
const SPARE_TOOK_PRELOAD: u8 = b'P';

/// Fork a spare, the first call's builtin process, ahead of the call: it
/// receives the call from the core itself, so that the clone, the session
/// and the environment's clearing are not part of the call, which most
/// small builds make only one of. Returns how it stopped waiting once it
/// has; `None` when it could not be forked.
fn spare(core: libc::pid_t, child_init: fn()) -> Option<SpareEnd> {
    let (said, say) = pipe().ok()?;
    let pid = clone_for_core();
    if pid == 0 {
        drop(said);
        wait_as_spare(core, child_init, say);
    }
    drop(say);
    if pid < 0 {
        return None;
    }
    let mut message = [0u8; 1];
    let end = loop {
        // SAFETY: reading into a local buffer of its length.
        let n = unsafe { libc::read(said.as_raw_fd(), message.as_mut_ptr().cast(), 1) };
        if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        break match (n, message[0]) {
            (1, SPARE_TOOK_CALL) => SpareEnd::Call,
            (1, SPARE_TOOK_PRELOAD) => SpareEnd::Preload,
            _ => SpareEnd::Lost,
        };
    };
    Some(end)
}

/// The spare: with an empty environment, it waits for the core's next
/// message on the server's socket, tells the server it took it (`say`),
/// takes a session of its own, answers the core and becomes the call's
/// builtin process. Never returns. Until it takes a call it stays in the
/// core's session, like the server: the core's sweep of plugin processes
/// left behind kills its children in other sessions.
fn wait_as_spare(core: libc::pid_t, child_init: fn(), say: OwnedFd) -> ! {
    end_with(core);
    for (name, _) in std::env::vars_os().collect::<Vec<_>>() {
        std::env::remove_var(name);
    }
    let tell = |message: u8| {
        // SAFETY: writing a local byte to the pipe this process owns.
        unsafe { libc::write(say.as_raw_fd(), (&message as *const u8).cast(), 1) };
    };
    let Some((body, fds)) = receive(SOCKET) else {
        // The core ended.
        // SAFETY: ending the spare.
        unsafe { libc::_exit(0) }
    };
    if body == PRELOAD_NOW && fds.is_empty() {
        tell(SPARE_TOOK_PRELOAD);
        // SAFETY: ending the spare.
        unsafe { libc::_exit(0) }
    }
    tell(SPARE_TOOK_CALL);
    let Some(request) = parse_request(&body, &fds) else {
        answer_core(-libc::EINVAL);
        // SAFETY: ending the spare.
        unsafe { libc::_exit(0) }
    };
    // SAFETY: setsid and getpid take nothing.
    unsafe { libc::setsid() };
    answer_core(unsafe { libc::getpid() });
    let setup = ChildSetup::new(for_child(&request.confinement), None);
    child(&request, &fds, setup, child_init)
}

/// A builtin process's first step: be killed when the core ends. Ends the
/// process if the core is already gone.
fn end_with(core: libc::pid_t) {
    // SAFETY: plain system calls in a single-threaded process.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() != core {
            libc::_exit(1);
        }
    }
}

/// The server's start, kept off the CPU the core runs on.
///
/// A new process runs first on its parent's CPU, and the core then waits
/// for the server's start-up (0.4 ms: dropping capabilities, compiling the
/// children's filter, the first tables) before it gets its own CPU back:
/// on the tiny tree the fork took 0.58 ms in the core instead of 0.16.
/// While starting, the server may use every allowed CPU but the core's; the
/// whole set is restored before it serves, since the builtin processes it
/// clones inherit it.
struct StepAside {
    /// The CPUs allowed before, when they were narrowed.
    allowed: Option<libc::cpu_set_t>,
}

impl StepAside {
    /// Leave `core_cpu` (the core's CPU at the fork), if another CPU is allowed.
    fn from(core_cpu: i32) -> StepAside {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: a zeroed cpu_set_t is an empty set; the calls read and
        // write sets of their given size.
        unsafe {
            let mut allowed: libc::cpu_set_t = std::mem::zeroed();
            if core_cpu < 0
                || core_cpu as usize >= 8 * size
                || libc::sched_getaffinity(0, size, &mut allowed) != 0
                || !libc::CPU_ISSET(core_cpu as usize, &allowed)
                || libc::CPU_COUNT(&allowed) < 2
            {
                return StepAside { allowed: None };
            }
            let mut others = allowed;
            libc::CPU_CLR(core_cpu as usize, &mut others);
            if libc::sched_setaffinity(0, size, &others) != 0 {
                return StepAside { allowed: None };
            }
            StepAside {
                allowed: Some(allowed),
            }
        }
    }

    /// Allow every CPU allowed before.
    fn end(self) {
        if let Some(allowed) = self.allowed {
            // SAFETY: writes the set of its size back.
            unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &allowed);
            }
        }
    }
}

/// Whether no request is waiting.
fn idle(socket: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd: socket,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll over one local entry, without waiting.
    unsafe { libc::poll(&mut p, 1, 0) == 0 }
}

/// What a builtin process applies: the call's confinement with the
/// builtin's own seccomp allow-list (no process, socket or metadata call)
/// in place of the general one, less the capabilities the server dropped.
fn for_child(call: &Confinement) -> Confinement {
    Confinement {
        builtin: true,
        drop_capabilities: false,
        ..*call
    }
}

/// The builtin process, in its session: descriptors, environment, directory,
/// confinement, then the builtin itself. Never returns.
fn child(request: &Request, fds: &[OwnedFd], mut setup: ChildSetup, child_init: fn()) -> ! {
    // SAFETY: system calls on descriptors this process owns; it is
    // single-threaded.
    unsafe {
        // Out of the way of 0..=3 first, then into place.
        let high: Vec<RawFd> = fds
            .iter()
            .map(|f| libc::fcntl(f.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 16))
            .collect();
        for (target, fd) in high.iter().enumerate() {
            if *fd < 0 || libc::dup2(*fd, target as RawFd) < 0 {
                libc::_exit(126);
            }
        }
        close_from(high.len() as RawFd);
    }
    setup.ruleset = request.ruleset.then_some(3);
    let fail = |what: &str, e: std::io::Error| -> ! {
        eprintln!("kustom: starting the builtin: {what}: {e}");
        // SAFETY: ending the child.
        unsafe { libc::_exit(126) }
    };
    use std::os::unix::ffi::OsStrExt;
    if let Err(e) = std::env::set_current_dir(std::ffi::OsStr::from_bytes(&request.cwd)) {
        fail("entering the kustomization's directory", e);
    }
    for (name, _) in std::env::vars_os().collect::<Vec<_>>() {
        std::env::remove_var(name);
    }
    for entry in &request.env {
        if let Some(eq) = entry.iter().position(|b| *b == b'=') {
            std::env::set_var(
                std::ffi::OsStr::from_bytes(&entry[..eq]),
                std::ffi::OsStr::from_bytes(&entry[eq + 1..]),
            );
        }
    }
    child_init();
    if let Err(e) = setup.apply() {
        fail("confining it", e);
    }
    let code = kustom_builtin::run(vec![request.op.clone()]);
    // SAFETY: ending the child; the builtin flushed its output.
    unsafe { libc::_exit(code) }
}
