//! The seccomp filters of a confined plugin: an **allow-list** of system
//! calls (everything not named here fails with `EPERM`), some allowed only
//! with harmless arguments, plus two small deny filters (sockets answer
//! `EACCES`; a few newer calls whose arguments a filter cannot inspect
//! answer `ENOSYS`, so that C libraries fall back to the older call, which
//! is inspected).
//!
//! The list was drawn up from what interpreters and runtimes call (`sh`,
//! `bash`, coreutils, `python3`, Go's runtime, the shipped builtin), checked
//! against the shape of Docker's default profile (also an allow-list) and
//! systemd's `RestrictSUIDSGID=`; it is this project's own list, grouped by
//! purpose with a reason each. Left out on purpose, among others: `ptrace`,
//! `process_vm_readv/writev`, `kcmp`, `pidfd_getfd` (other processes'
//! memory and descriptors), `perf_event_open`, `bpf`, `userfaultfd`,
//! `keyctl`, `add_key`, `request_key` (the kernel keyring), `memfd_create`,
//! `shmget`/`shmat`, `mq_open` (memory that `RLIMIT_DATA` does not count),
//! `mount`, `umount2`, `pivot_root`, `chroot`, `unshare`, `setns`,
//! `mount_setattr`, `open_tree`, `fsopen` (namespaces and mounts),
//! `io_uring_*` (it runs system calls this filter never sees),
//! `migrate_pages`, `move_pages`, `set_mempolicy` (other processes' memory
//! placement), `init_module`, `kexec_load`, `reboot`, `swapon`, `syslog`,
//! `acct`, `quotactl`, `name_to_handle_at`, `open_by_handle_at`,
//! `fanotify_init`, `ioperm`, `iopl`, `modify_ldt`, `personality`.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// A group of system calls allowed without conditions, and why.
pub struct Group {
    /// What the group is for.
    pub reason: &'static str,
    /// The system calls.
    pub calls: &'static [i64],
}

macro_rules! calls {
    ($($name:ident),* $(,)?) => { &[$(libc::$name as i64),*] };
}

/// System calls allowed with any arguments.
pub const ALLOWED: &[Group] = &[
    Group {
        reason: "reading and writing open files, pipes and the plugin's STDIN/STDOUT/STDERR",
        calls: calls!(
            SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64,
            SYS_preadv, SYS_pwritev, SYS_preadv2, SYS_pwritev2, SYS_lseek, SYS_close,
            SYS_close_range, SYS_dup, SYS_dup3, SYS_fcntl, SYS_flock, SYS_fsync,
            SYS_fdatasync, SYS_sync_file_range, SYS_ftruncate, SYS_fallocate, SYS_ioctl,
            SYS_fadvise64, SYS_readahead, SYS_sendfile, SYS_copy_file_range, SYS_splice,
            SYS_tee, SYS_vmsplice, SYS_pipe2, SYS_sync, SYS_syncfs,
        ),
    },
    Group {
        reason: "paths: Landlock decides which paths may be opened, listed, created or removed",
        calls: calls!(
            SYS_openat, SYS_newfstatat, SYS_fstat, SYS_statx, SYS_statfs, SYS_fstatfs,
            SYS_faccessat, SYS_faccessat2, SYS_readlinkat, SYS_getdents64, SYS_getcwd,
            SYS_chdir, SYS_fchdir, SYS_renameat, SYS_renameat2, SYS_mkdirat, SYS_linkat,
            SYS_unlinkat, SYS_symlinkat, SYS_truncate, SYS_umask, SYS_getxattr,
            SYS_lgetxattr, SYS_fgetxattr, SYS_listxattr, SYS_llistxattr, SYS_flistxattr,
            SYS_inotify_init1, SYS_inotify_add_watch, SYS_inotify_rm_watch,
        ),
    },
    Group {
        reason: "waiting for several descriptors, events, timers and signals as descriptors",
        calls: calls!(
            SYS_ppoll, SYS_pselect6, SYS_epoll_create1, SYS_epoll_ctl, SYS_epoll_pwait,
            SYS_epoll_pwait2, SYS_eventfd2, SYS_signalfd4, SYS_timerfd_create,
            SYS_timerfd_settime, SYS_timerfd_gettime,
        ),
    },
    Group {
        reason: "private memory (RLIMIT_DATA counts it); shared mappings are checked below",
        calls: calls!(
            SYS_brk, SYS_munmap, SYS_mremap, SYS_mprotect, SYS_madvise, SYS_msync,
            SYS_mincore, SYS_mlock, SYS_mlock2, SYS_munlock, SYS_membarrier,
        ),
    },
    Group {
        reason: "running programs and their children (Landlock decides what may be executed; namespaces are refused below)",
        calls: calls!(
            SYS_execve, SYS_execveat, SYS_wait4, SYS_waitid, SYS_exit, SYS_exit_group,
            SYS_pidfd_open, SYS_pidfd_send_signal,
        ),
    },
    Group {
        reason: "signals (Landlock's signal scope and the pid namespace keep them inside the sandbox)",
        calls: calls!(
            SYS_kill, SYS_tkill, SYS_tgkill, SYS_rt_sigaction, SYS_rt_sigprocmask,
            SYS_rt_sigreturn, SYS_rt_sigpending, SYS_rt_sigtimedwait, SYS_rt_sigsuspend,
            SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo, SYS_sigaltstack, SYS_restart_syscall,
        ),
    },
    Group {
        reason: "threads and the runtime's own bookkeeping",
        calls: calls!(
            SYS_futex, SYS_futex_waitv, SYS_set_tid_address, SYS_set_robust_list,
            SYS_get_robust_list, SYS_rseq, SYS_sched_yield, SYS_sched_getaffinity,
            SYS_sched_getparam, SYS_sched_getscheduler, SYS_sched_get_priority_max,
            SYS_sched_get_priority_min, SYS_sched_rr_get_interval, SYS_sched_getattr,
            SYS_getcpu, SYS_prctl, SYS_seccomp, SYS_landlock_create_ruleset,
            SYS_landlock_add_rule, SYS_landlock_restrict_self, SYS_capget, SYS_capset,
        ),
    },
    Group {
        reason: "who and where the process is (identities can only be switched among its own: it holds no capability)",
        calls: calls!(
            SYS_getpid, SYS_getppid, SYS_gettid, SYS_getuid, SYS_geteuid, SYS_getgid,
            SYS_getegid, SYS_getgroups, SYS_getresuid, SYS_getresgid, SYS_getpgid,
            SYS_getsid, SYS_setpgid, SYS_setsid, SYS_setuid, SYS_setgid, SYS_setreuid,
            SYS_setregid, SYS_setresuid, SYS_setresgid, SYS_setfsuid, SYS_setfsgid,
            SYS_setgroups, SYS_uname, SYS_sysinfo, SYS_getrusage, SYS_times,
            SYS_getpriority, SYS_ioprio_get, SYS_getrlimit, SYS_setrlimit,
        ),
    },
    Group {
        reason: "clocks, sleeping and timers",
        calls: calls!(
            SYS_clock_gettime, SYS_clock_getres, SYS_clock_nanosleep, SYS_nanosleep,
            SYS_gettimeofday, SYS_getitimer, SYS_setitimer, SYS_timer_create,
            SYS_timer_settime, SYS_timer_gettime, SYS_timer_getoverrun, SYS_timer_delete,
        ),
    },
    Group {
        reason: "randomness",
        calls: calls!(SYS_getrandom),
    },
    Group {
        reason: "sockets the plugin already holds (socketpair; `socket` itself is refused unless the network is granted)",
        calls: calls!(
            SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_accept,
            SYS_accept4, SYS_sendto, SYS_recvfrom, SYS_sendmsg, SYS_recvmsg, SYS_sendmmsg,
            SYS_recvmmsg, SYS_shutdown, SYS_getsockname, SYS_getpeername, SYS_setsockopt,
            SYS_getsockopt,
        ),
    },
    #[cfg(target_arch = "x86_64")]
    Group {
        reason: "the older x86-64 forms of the calls above, which C libraries and static binaries still use",
        calls: calls!(
            SYS_open, SYS_stat, SYS_lstat, SYS_access, SYS_readlink, SYS_getdents,
            SYS_rename, SYS_mkdir, SYS_rmdir, SYS_link, SYS_unlink, SYS_symlink, SYS_pipe,
            SYS_dup2, SYS_poll, SYS_select, SYS_epoll_create, SYS_epoll_wait,
            SYS_eventfd, SYS_signalfd, SYS_inotify_init, SYS_fork, SYS_vfork,
            SYS_getpgrp, SYS_time, SYS_alarm, SYS_pause, SYS_arch_prctl,


        ),
    },
    #[cfg(target_arch = "x86_64")]
    Group {
        reason: "map_shadow_stack (453, not yet in libc): glibc's shadow stacks on CET hardware",
        calls: &[453],
    },
];

/// Metadata calls, allowed only where the mount namespace makes everything
/// outside the write grants read-only (`EROFS`); without it they are not
/// allowed at all, since Landlock does not govern metadata. Set-uid and
/// set-gid modes are refused either way ([`rules`]).
pub const METADATA: &[i64] = calls!(
    SYS_fchmod,
    SYS_fchown,
    SYS_fchownat,
    SYS_utimensat,
    SYS_setxattr,
    SYS_lsetxattr,
    SYS_fsetxattr,
    SYS_removexattr,
    SYS_lremovexattr,
    SYS_fremovexattr,
);
#[cfg(target_arch = "x86_64")]
const METADATA_X86: &[i64] = calls!(SYS_chown, SYS_lchown, SYS_utime, SYS_utimes, SYS_futimesat);
#[cfg(not(target_arch = "x86_64"))]
const METADATA_X86: &[i64] = &[];

const S_ISUID_ISGID: u64 = 0o6000;
/// `CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
/// CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME`.
const CLONE_NAMESPACES: u64 = 0x0002_0000
    | 0x0200_0000
    | 0x0400_0000
    | 0x0800_0000
    | 0x1000_0000
    | 0x2000_0000
    | 0x4000_0000
    | 0x80;
/// `O_CREAT | __O_TMPFILE`: an `open` that may create a file with `mode`.
const O_CREATES: u64 = 0o100 | 0o20_000_000;

fn cond(arg: u8, len: Len, op: Op, value: u64) -> SeccompCondition {
    SeccompCondition::new(arg, len, op, value).expect("a fixed, valid seccomp condition")
}

fn rule(conditions: Vec<SeccompCondition>) -> SeccompRule {
    SeccompRule::new(conditions).expect("a fixed, valid seccomp rule")
}

/// A mode argument without set-uid or set-gid bits.
fn no_suid(arg: u8) -> SeccompRule {
    rule(vec![cond(arg, Len::Dword, Op::MaskedEq(S_ISUID_ISGID), 0)])
}

/// A `mknod` mode making a file of `kind` (regular, FIFO; no devices),
/// without set-uid or set-gid bits.
fn regular_or_fifo(arg: u8, kind: u64) -> SeccompRule {
    rule(vec![cond(
        arg,
        Len::Dword,
        Op::MaskedEq(0o170_000 | S_ISUID_ISGID),
        kind,
    )])
}

/// A process argument naming the caller itself (0).
fn only_self(arg: u8) -> SeccompRule {
    rule(vec![cond(arg, Len::Dword, Op::Eq, 0)])
}

/// The calls allowed only with some arguments, each a list of alternatives.
fn rules(metadata: bool) -> Vec<(i64, Vec<SeccompRule>)> {
    let mut v: Vec<(i64, Vec<SeccompRule>)> = vec![
        // Other processes' limits, priority, scheduling, CPUs and I/O class
        // (`0` is the caller): a plugin may tune itself, nothing else.
        (libc::SYS_prlimit64, vec![only_self(0)]),
        (libc::SYS_setpriority, vec![only_self(1)]),
        (libc::SYS_sched_setaffinity, vec![only_self(0)]),
        (libc::SYS_sched_setscheduler, vec![only_self(0)]),
        (libc::SYS_sched_setparam, vec![only_self(0)]),
        (libc::SYS_sched_setattr, vec![only_self(0)]),
        (libc::SYS_ioprio_set, vec![only_self(1)]),
        // New files: never set-uid or set-gid.
        (
            libc::SYS_openat,
            vec![
                rule(vec![cond(2, Len::Dword, Op::MaskedEq(O_CREATES), 0)]),
                no_suid(3),
            ],
        ),
        (
            libc::SYS_mknodat,
            vec![regular_or_fifo(2, 0o100_000), regular_or_fifo(2, 0o010_000)],
        ),
        // Shared anonymous memory escapes RLIMIT_DATA: private mappings
        // only, or mappings of a file (which Landlock governs and
        // RLIMIT_FSIZE bounds).
        (
            libc::SYS_mmap,
            vec![
                rule(vec![cond(3, Len::Dword, Op::MaskedEq(0x20), 0)]),
                rule(vec![cond(3, Len::Dword, Op::MaskedEq(0x03), 0x02)]),
            ],
        ),
        // Children in the plugin's own namespaces only.
        (
            libc::SYS_clone,
            vec![rule(vec![cond(
                0,
                Len::Qword,
                Op::MaskedEq(CLONE_NAMESPACES),
                0,
            )])],
        ),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        v.push((
            libc::SYS_open,
            vec![
                rule(vec![cond(1, Len::Dword, Op::MaskedEq(O_CREATES), 0)]),
                no_suid(2),
            ],
        ));
        v.push((libc::SYS_creat, vec![no_suid(1)]));
        v.push((
            libc::SYS_mknod,
            vec![regular_or_fifo(1, 0o100_000), regular_or_fifo(1, 0o010_000)],
        ));
        if metadata {
            v.push((libc::SYS_chmod, vec![no_suid(1)]));
        }
    }
    if metadata {
        v.push((libc::SYS_fchmodat, vec![no_suid(2)]));
        v.push((libc::SYS_fchmod, vec![no_suid(1)]));
    }
    v
}

fn arch() -> TargetArch {
    std::env::consts::ARCH
        .try_into()
        .expect("seccompiler supports this architecture")
}

fn compile(filter: SeccompFilter) -> BpfProgram {
    filter.try_into().expect("a fixed filter compiles")
}

/// The allow-list's calls: those allowed with any arguments, and those
/// allowed only with some (with their rules).
fn allow_list_calls(metadata: bool) -> (BTreeSet<i64>, BTreeMap<i64, Vec<SeccompRule>>) {
    let conditional: BTreeMap<i64, Vec<SeccompRule>> = rules(metadata).into_iter().collect();
    let mut free = BTreeSet::new();
    let metadata_calls: &[&[i64]] = if metadata {
        &[METADATA, METADATA_X86]
    } else {
        &[]
    };
    let listed = ALLOWED
        .iter()
        .map(|g| g.calls)
        .chain(metadata_calls.iter().copied())
        // Refused by the ENOSYS program, but allowed here so that ENOSYS wins.
        .chain(std::iter::once(ENOSYS_CALLS));
    for calls in listed {
        free.extend(calls.iter().filter(|nr| !conditional.contains_key(nr)));
    }
    (free, conditional)
}

/// The allow-list program; `metadata`: whether metadata calls are allowed
/// (only under a read-only mount namespace). Built once per kind.
///
/// The calls allowed with any arguments are tested as ranges of call
/// numbers ahead of seccompiler's program for the rest: every plugin
/// process loads this program, and the kernel checks and compiles it each
/// time, in time proportional to its length (seccompiler's one chain of
/// comparisons was 1,337 instructions, about 0.45 ms per plugin call).
pub fn allow_list(metadata: bool) -> &'static BpfProgram {
    static WITH: OnceLock<BpfProgram> = OnceLock::new();
    static WITHOUT: OnceLock<BpfProgram> = OnceLock::new();
    let build = || {
        let (free, conditional) = allow_list_calls(metadata);
        ranges_first(&free, allow_only(conditional))
    };
    if metadata {
        WITH.get_or_init(build)
    } else {
        WITHOUT.get_or_init(build)
    }
}

/// Classic BPF opcodes (linux/bpf_common.h) and seccomp values.
mod bpf {
    /// `BPF_LD | BPF_W | BPF_ABS`.
    pub const LOAD_WORD: u16 = 0x20;
    /// `BPF_JMP | BPF_JEQ | BPF_K`.
    pub const JUMP_EQ: u16 = 0x15;
    /// `BPF_JMP | BPF_JGT | BPF_K`.
    pub const JUMP_GT: u16 = 0x25;
    /// `BPF_JMP | BPF_JGE | BPF_K`.
    pub const JUMP_GE: u16 = 0x35;
    /// `BPF_RET | BPF_K`.
    pub const RETURN: u16 = 0x06;
    /// Offsets in `struct seccomp_data`.
    pub const NR: u32 = 0;
    /// The architecture's offset.
    pub const ARCH: u32 = 4;
    /// `SECCOMP_RET_ALLOW`.
    pub const ALLOW: u32 = 0x7fff_0000;
    /// `SECCOMP_RET_KILL_PROCESS`.
    pub const KILL_PROCESS: u32 = 0x8000_0000;
    /// `AUDIT_ARCH_*` of this build's target.
    #[cfg(target_arch = "x86_64")]
    pub const AUDIT_ARCH: Option<u32> = Some(62 | 0x8000_0000 | 0x4000_0000);
    /// `AUDIT_ARCH_*` of this build's target.
    #[cfg(target_arch = "aarch64")]
    pub const AUDIT_ARCH: Option<u32> = Some(183 | 0x8000_0000 | 0x4000_0000);
    /// `AUDIT_ARCH_*` of this build's target (unknown: no ranges).
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub const AUDIT_ARCH: Option<u32> = None;
}

fn instruction(code: u16, k: u32, jt: u8, jf: u8) -> seccompiler::sock_filter {
    seccompiler::sock_filter { code, jt, jf, k }
}

/// `rest` preceded by tests that allow the calls of `free`, as ranges of
/// consecutive numbers: the architecture is checked as seccompiler checks
/// it, then each range costs three instructions; a call in no range falls
/// through to `rest` (classic BPF jumps are relative, so `rest` runs as
/// compiled).
fn ranges_first(free: &BTreeSet<i64>, rest: BpfProgram) -> BpfProgram {
    let Some(audit_arch) = bpf::AUDIT_ARCH else {
        return rest;
    };
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for &nr in free {
        let nr = nr as u32;
        match ranges.last_mut() {
            Some((_, last)) if *last + 1 == nr => *last = nr,
            _ => ranges.push((nr, nr)),
        }
    }
    let mut program = vec![
        instruction(bpf::LOAD_WORD, bpf::ARCH, 0, 0),
        instruction(bpf::JUMP_EQ, audit_arch, 1, 0),
        instruction(bpf::RETURN, bpf::KILL_PROCESS, 0, 0),
        instruction(bpf::LOAD_WORD, bpf::NR, 0, 0),
    ];
    for (first, last) in ranges {
        // Below the range: on to the next; above it: on to the next; else allow.
        program.push(instruction(bpf::JUMP_GE, first, 0, 2));
        program.push(instruction(bpf::JUMP_GT, last, 1, 0));
        program.push(instruction(bpf::RETURN, bpf::ALLOW, 0, 0));
    }
    program.extend(rest);
    program
}

/// Calls whose arguments a filter cannot inspect (a pointer to a struct, or
/// a newer form of an inspected call): `ENOSYS`, so that the C library
/// falls back to the older, inspected call.
const ENOSYS_CALLS: &[i64] = calls!(SYS_clone3, SYS_openat2, SYS_fchmodat2);

/// The `ENOSYS` program.
pub fn enosys() -> &'static BpfProgram {
    static P: OnceLock<BpfProgram> = OnceLock::new();
    P.get_or_init(|| deny(ENOSYS_CALLS, libc::ENOSYS))
}

/// The program that refuses `socket(2)` with `EACCES` (no network grant).
pub fn no_sockets() -> &'static BpfProgram {
    static P: OnceLock<BpfProgram> = OnceLock::new();
    P.get_or_init(|| deny(&[libc::SYS_socket, libc::SYS_io_uring_setup], libc::EACCES))
}

/// The shipped builtin's own allow-list, used when the fork server starts
/// it: the calls it makes after confining itself (read and write its
/// pipes, read the tree, memory, the runtime's bookkeeping, exit), drawn
/// from tracing it over the conformance cases. Nothing else: no process,
/// program, signal, socket, metadata change or new file. Far shorter than
/// [`allow_list`], so it costs less to load and to run.
pub const BUILTIN_ALLOWED: &[Group] = &[
    Group {
        reason: "its pipes and the files of the tree",
        calls: calls!(
            SYS_read,
            SYS_write,
            SYS_readv,
            SYS_writev,
            SYS_pread64,
            SYS_lseek,
            SYS_close,
            SYS_fcntl,
            SYS_newfstatat,
            SYS_fstat,
            SYS_statx,
            SYS_readlinkat,
            SYS_getdents64,
            SYS_getcwd,
            SYS_faccessat,
            SYS_faccessat2,
        ),
    },
    Group {
        reason: "private memory",
        calls: calls!(SYS_brk, SYS_munmap, SYS_mremap, SYS_mprotect, SYS_madvise),
    },
    Group {
        reason: "the runtime: locks, signals for panics, randomness for hash maps, clocks, exit",
        calls: calls!(
            SYS_futex,
            SYS_sched_yield,
            SYS_sched_getaffinity,
            SYS_getrandom,
            SYS_rt_sigaction,
            SYS_rt_sigprocmask,
            SYS_rt_sigreturn,
            SYS_sigaltstack,
            SYS_clock_gettime,
            SYS_clock_getres,
            SYS_getpid,
            SYS_gettid,
            SYS_exit,
            SYS_exit_group,
        ),
    },
    #[cfg(target_arch = "x86_64")]
    Group {
        reason: "the older x86-64 forms",
        calls: calls!(SYS_readlink, SYS_stat, SYS_lstat, SYS_access),
    },
];

/// The builtin's program (see [`BUILTIN_ALLOWED`]): opening only without
/// creating, mapping only private memory.
pub fn builtin_allow_list() -> &'static BpfProgram {
    static P: OnceLock<BpfProgram> = OnceLock::new();
    P.get_or_init(|| {
        let mut map: BTreeMap<i64, Vec<SeccompRule>> = BUILTIN_ALLOWED
            .iter()
            .flat_map(|g| g.calls.iter())
            .map(|&nr| (nr, Vec::new()))
            .collect();
        map.insert(
            libc::SYS_openat,
            vec![rule(vec![cond(2, Len::Dword, Op::MaskedEq(O_CREATES), 0)])],
        );
        #[cfg(target_arch = "x86_64")]
        map.insert(
            libc::SYS_open,
            vec![rule(vec![cond(1, Len::Dword, Op::MaskedEq(O_CREATES), 0)])],
        );
        map.insert(
            libc::SYS_mmap,
            vec![rule(vec![cond(3, Len::Dword, Op::MaskedEq(0x01), 0)])],
        );
        allow_only(map)
    })
}

/// The program allowing the calls of `map` (with their conditions) and
/// refusing every other call with `EPERM`.
fn allow_only(map: BTreeMap<i64, Vec<SeccompRule>>) -> BpfProgram {
    compile(
        SeccompFilter::new(
            map,
            SeccompAction::Errno(libc::EPERM as u32),
            SeccompAction::Allow,
            arch(),
        )
        .expect("a fixed, valid seccomp filter"),
    )
}

fn deny(calls: &[i64], errno: i32) -> BpfProgram {
    let map = calls.iter().map(|&nr| (nr, Vec::new())).collect();
    compile(
        SeccompFilter::new(
            map,
            SeccompAction::Allow,
            SeccompAction::Errno(errno as u32),
            arch(),
        )
        .expect("a fixed, valid seccomp filter"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run a classic BPF program over one `seccomp_data` (as 32-bit words):
    /// the instructions seccompiler and `ranges_first` emit.
    fn run(program: &[seccompiler::sock_filter], data: &[u32; 16]) -> u32 {
        let mut a: u32 = 0;
        let mut pc = 0usize;
        loop {
            let i = &program[pc];
            pc += 1;
            let jump = |taken: bool| if taken { i.jt as usize } else { i.jf as usize };
            match i.code {
                0x20 => a = data[i.k as usize / 4],
                0x54 => a &= i.k,
                0x05 => pc += i.k as usize,
                0x15 => pc += jump(a == i.k),
                0x25 => pc += jump(a > i.k),
                0x35 => pc += jump(a >= i.k),
                0x45 => pc += jump(a & i.k != 0),
                0x06 => return i.k,
                code => panic!("instruction {code:#x} not interpreted"),
            }
        }
    }

    /// `seccomp_data` words: nr, arch, ip, then six 64-bit arguments.
    fn data(nr: u32, arch: u32, args: [u64; 6]) -> [u32; 16] {
        let mut d = [0u32; 16];
        d[0] = nr;
        d[1] = arch;
        for (i, a) in args.iter().enumerate() {
            d[4 + 2 * i] = *a as u32;
            d[5 + 2 * i] = (*a >> 32) as u32;
        }
        d
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn ranges_first_decides_as_the_whole_chain_did() {
        for metadata in [false, true] {
            let (free, conditional) = allow_list_calls(metadata);
            let mut whole = conditional.clone();
            for nr in &free {
                whole.insert(*nr, Vec::new());
            }
            let chain = allow_only(whole);
            let compact = allow_list(metadata);
            assert!(
                compact.len() * 2 < chain.len(),
                "{} instructions against {}",
                compact.len(),
                chain.len()
            );
            let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            let special: [u64; 12] = [
                0,
                1,
                0o100,
                0o4755,
                0o2755,
                0o20_000_000,
                0x21,
                0x22,
                0x23,
                0x2_0000,
                0o010_000,
                0o020_000,
            ];
            for nr in (0..600u32).chain([0x4000_0000, 0x4000_0001, u32::MAX]) {
                for arch in [bpf::AUDIT_ARCH.expect("x86_64"), 0x4000_0003] {
                    let mut cases: Vec<[u64; 6]> = Vec::new();
                    for &x in &special {
                        for pos in 0..4 {
                            let mut args = [0u64; 6];
                            args[pos] = x;
                            cases.push(args);
                            args[(pos + 1) % 6] = 0o4755;
                            cases.push(args);
                        }
                    }
                    for _ in 0..8 {
                        cases.push([next(), next() & 0xffff, next() & 0o7777, next(), 0, 0]);
                    }
                    for args in cases {
                        let d = data(nr, arch, args);
                        assert_eq!(
                            run(&chain, &d),
                            run(compact, &d),
                            "call {nr}, arch {arch:#x}, arguments {args:?}, metadata {metadata}"
                        );
                    }
                }
            }
        }
    }

    /// Every call number the groups allow.
    fn calls_of(groups: &[Group]) -> Vec<i64> {
        groups
            .iter()
            .flat_map(|g| g.calls.iter().copied())
            .collect()
    }

    #[test]
    fn dangerous_calls_are_not_in_the_allow_list() {
        let allowed = calls_of(ALLOWED);
        for nr in [
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_perf_event_open,
            libc::SYS_bpf,
            libc::SYS_keyctl,
            libc::SYS_add_key,
            libc::SYS_request_key,
            libc::SYS_memfd_create,
            libc::SYS_shmget,
            libc::SYS_mount,
            libc::SYS_unshare,
            libc::SYS_setns,
            libc::SYS_io_uring_setup,
            libc::SYS_userfaultfd,
            libc::SYS_pidfd_getfd,
            libc::SYS_kcmp,
            libc::SYS_prlimit64,
            libc::SYS_setpriority,
            libc::SYS_sched_setaffinity,
            libc::SYS_ioprio_set,
        ] {
            assert!(!allowed.contains(&nr), "{nr} is allowed unconditionally");
        }
        assert!(!allow_list(true).is_empty());
        assert!(!allow_list(false).is_empty());
        assert!(!enosys().is_empty());
        assert!(!no_sockets().is_empty());
        assert!(!builtin_allow_list().is_empty());
        let builtin = calls_of(BUILTIN_ALLOWED);
        for nr in [
            libc::SYS_clone,
            libc::SYS_clone3,
            libc::SYS_execve,
            libc::SYS_socket,
            libc::SYS_kill,
            libc::SYS_fchmod,
            libc::SYS_prlimit64,
            libc::SYS_memfd_create,
        ] {
            assert!(!builtin.contains(&nr), "{nr} is allowed to the builtin");
        }
    }
}
