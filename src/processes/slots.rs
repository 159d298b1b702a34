//! Lock-free copies of the register of children and of the temporaries'
//! paths, for the signal handler (which may take no lock), and the
//! async-signal-safe routines it runs with them. Writers hold the
//! register's (or the temporaries') mutex, so the handler is the only
//! reader that runs alongside a writer.

use super::Kind;
use std::ffi::{c_char, CString};
use std::os::fd::RawFd;
use std::path::Path;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU8, Ordering};

/// Children registered at once, at most (more are still registered and
/// ended on the normal way out; on a signal, the sweep of
/// `/proc/self/task/*/children` reaches them).
const CHILD_SLOTS: usize = 1024;
static CHILD_PID: [AtomicI32; CHILD_SLOTS] = [const { AtomicI32::new(0) }; CHILD_SLOTS];
static CHILD_KIND: [AtomicU8; CHILD_SLOTS] = [const { AtomicU8::new(0) }; CHILD_SLOTS];

/// Temporaries alive at once, at most (likewise).
const TEMP_SLOTS: usize = 1024;
static TEMP_PATH: [AtomicPtr<c_char>; TEMP_SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; TEMP_SLOTS];

fn kind_code(kind: Kind) -> u8 {
    match kind {
        Kind::Init => 1,
        Kind::Group => 2,
        Kind::Process => 3,
    }
}

/// Copy a registered child (under the register's lock).
pub(super) fn add_child(pid: i32, kind: Kind) {
    if let Some(slot) = CHILD_PID.iter().position(|p| p.load(Ordering::SeqCst) == 0) {
        CHILD_KIND[slot].store(kind_code(kind), Ordering::SeqCst);
        CHILD_PID[slot].store(pid, Ordering::SeqCst);
    }
}

/// Drop a child's copy before it is reaped (under the register's lock).
pub(super) fn remove_child(pid: i32) {
    for p in &CHILD_PID {
        if p.load(Ordering::SeqCst) == pid {
            p.store(0, Ordering::SeqCst);
        }
    }
}

/// Copy a temporary's path (under the temporaries' lock); its slot.
pub(super) fn add_temporary(path: &Path) -> Option<usize> {
    use std::os::unix::ffi::OsStrExt;
    let slot = TEMP_PATH
        .iter()
        .position(|p| p.load(Ordering::SeqCst).is_null())?;
    let text = CString::new(path.as_os_str().as_bytes()).ok()?;
    TEMP_PATH[slot].store(text.into_raw(), Ordering::SeqCst);
    Some(slot)
}

/// Drop a temporary's copy (under the temporaries' lock). The path's
/// memory is left allocated: the handler may be reading it right now on
/// another thread (a few bytes per temporary, for a short-lived process).
pub(super) fn remove_temporary(slot: usize) {
    TEMP_PATH[slot].store(std::ptr::null_mut(), Ordering::SeqCst);
}

/// How long a call's init gets on a signal to end its plugin's tree and
/// remove the call's private directory, in milliseconds.
const INIT_GRACE_MS: i64 = 500;

fn now_ms() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime fills the struct it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec * 1000 + ts.tv_nsec / 1_000_000
}

unsafe fn send(pid: i32, kind: u8, sig: libc::c_int) {
    if kind == kind_code(Kind::Group) {
        libc::kill(-pid, sig);
    }
    libc::kill(pid, sig);
}

/// End every child (async-signal-safe): the registered ones by their kind
/// (a call's init TERM, then KILL after the grace; the rest KILL), then
/// every other child found, until none is left.
pub(super) unsafe fn end_children() {
    let mut done = [false; CHILD_SLOTS];
    let mut pids = [0i32; CHILD_SLOTS];
    let mut kinds = [0u8; CHILD_SLOTS];
    for i in 0..CHILD_SLOTS {
        pids[i] = CHILD_PID[i].load(Ordering::SeqCst);
        kinds[i] = CHILD_KIND[i].load(Ordering::SeqCst);
        if pids[i] <= 0 {
            done[i] = true;
            continue;
        }
        let sig = if kinds[i] == kind_code(Kind::Init) {
            libc::SIGTERM
        } else {
            libc::SIGKILL
        };
        send(pids[i], kinds[i], sig);
    }
    let grace_ends = now_ms() + INIT_GRACE_MS;
    loop {
        let mut pending = false;
        for i in 0..CHILD_SLOTS {
            if done[i] {
                continue;
            }
            // Reaped here, or already by the thread that waited for it.
            let r = libc::waitpid(pids[i], std::ptr::null_mut(), libc::WNOHANG);
            if r != 0 {
                done[i] = true;
            } else {
                pending = true;
            }
        }
        if !pending {
            break;
        }
        if now_ms() >= grace_ends {
            for i in 0..CHILD_SLOTS {
                if !done[i] {
                    send(pids[i], kinds[i], libc::SIGKILL);
                    libc::waitpid(pids[i], std::ptr::null_mut(), 0);
                }
            }
            break;
        }
        let pause = libc::timespec {
            tv_sec: 0,
            tv_nsec: 1_000_000,
        };
        libc::nanosleep(&pause, std::ptr::null_mut());
    }
    // Whatever else is a child now (the fork server's spare, a child
    // started meanwhile, orphans kustom inherited): killing one hands its
    // own children to kustom, so look again until none is left.
    for _ in 0..1000 {
        let mut found = 0;
        each_child(|pid| {
            found += 1;
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        });
        if found == 0 {
            break;
        }
    }
}

/// Remove every registered temporary (async-signal-safe).
pub(super) unsafe fn remove_temporaries() {
    for slot in &TEMP_PATH {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            remove_tree(libc::AT_FDCWD, path, 0);
        }
    }
}

/// Call `f` with each child of this process, from
/// `/proc/self/task/*/children` (async-signal-safe: stack buffers only).
unsafe fn each_child(mut f: impl FnMut(i32)) {
    let tasks = libc::open(
        c"/proc/self/task".as_ptr(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    if tasks < 0 {
        return;
    }
    let mut entries = [0u8; 4096];
    loop {
        let n = libc::syscall(
            libc::SYS_getdents64,
            tasks,
            entries.as_mut_ptr(),
            entries.len(),
        );
        if n <= 0 {
            break;
        }
        let mut off = 0usize;
        while off < n as usize {
            // struct linux_dirent64: ino u64, off i64, reclen u16, type u8, name.
            let reclen = u16::from_ne_bytes([entries[off + 16], entries[off + 17]]) as usize;
            let name = &entries[off + 19..off + reclen];
            let len = name.iter().position(|b| *b == 0).unwrap_or(name.len());
            let name = &name[..len];
            if !name.is_empty() && name.iter().all(u8::is_ascii_digit) {
                children_of_task(name, &mut f);
            }
            off += reclen;
        }
    }
    libc::close(tasks);
}

unsafe fn children_of_task(tid: &[u8], f: &mut impl FnMut(i32)) {
    const PREFIX: &[u8] = b"/proc/self/task/";
    const SUFFIX: &[u8] = b"/children\0";
    let mut path = [0u8; 64];
    if PREFIX.len() + tid.len() + SUFFIX.len() > path.len() {
        return;
    }
    path[..PREFIX.len()].copy_from_slice(PREFIX);
    path[PREFIX.len()..PREFIX.len() + tid.len()].copy_from_slice(tid);
    path[PREFIX.len() + tid.len()..PREFIX.len() + tid.len() + SUFFIX.len()].copy_from_slice(SUFFIX);
    let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return;
    }
    let mut buf = [0u8; 4096];
    let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
    libc::close(fd);
    let mut pid: i32 = 0;
    let mut digits = false;
    for &b in &buf[..n.max(0) as usize] {
        if b.is_ascii_digit() {
            pid = pid * 10 + (b - b'0') as i32;
            digits = true;
        } else {
            if digits {
                f(pid);
            }
            pid = 0;
            digits = false;
        }
    }
    if digits {
        f(pid);
    }
}

/// Remove `name` below the directory `dir_fd`, and what is in it (to a
/// depth of 16; symbolic links are removed, never followed).
/// Async-signal-safe: a stack buffer per level.
///
/// # Safety
/// `name` is a NUL-terminated path; `dir_fd` a directory or `AT_FDCWD`.
pub unsafe fn remove_tree(dir_fd: RawFd, name: *const c_char, depth: u32) {
    if libc::unlinkat(dir_fd, name, 0) == 0 || depth > 16 {
        return;
    }
    let fd = libc::openat(
        dir_fd,
        name,
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
    );
    if fd >= 0 {
        let mut buf = [0u8; 2048];
        loop {
            let n = libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len());
            if n <= 0 {
                break;
            }
            let mut off = 0usize;
            let mut removed = false;
            while off < n as usize {
                let reclen = u16::from_ne_bytes([buf[off + 16], buf[off + 17]]) as usize;
                let entry = buf.as_ptr().add(off + 19) as *const c_char;
                let dot = *entry == b'.' as c_char
                    && (*entry.add(1) == 0
                        || (*entry.add(1) == b'.' as c_char && *entry.add(2) == 0));
                if !dot {
                    remove_tree(fd, entry, depth + 1);
                    removed = true;
                }
                off += reclen;
            }
            if !removed {
                break;
            }
            // Entries were removed: read the directory from its start again.
            libc::lseek(fd, 0, libc::SEEK_SET);
        }
        libc::close(fd);
    }
    libc::unlinkat(dir_fd, name, libc::AT_REMOVEDIR);
}
