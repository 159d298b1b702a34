//! The system paths every confined plugin may read: the minimum an
//! interpreted plugin (`sh`, `bash`, `python3`, helm's Python front end, the
//! shipped builtin, the example plugins) needs to start and do its work.
//! Found by running those plugins confined under
//! `strace -f -e trace=%file,execve`, adding what they were denied
//! (`EACCES`) and dropping entries no run opened. Each entry says why.
//!
//! Denials that are left on purpose, because the programs carry on without:
//! `/dev/tty` (bash), `/proc/filesystems` and `/proc/mounts` (sed's SELinux
//! probe), `/proc/self/maps` of a plugin's child processes (the Go runtime's
//! stack probe; `/proc/self` is granted to the plugin process only), the
//! `pyenv` shims under `$HOME` (`env python3` goes on to `/usr/bin/python3`).
//!
//! Deliberately absent: home directories, `/etc` as a whole (`/etc/passwd`,
//! `/etc/shadow`, credentials under `/etc`), `/root`, `/tmp`, `/var`, `/run`
//! (sockets of daemons), `/proc` beyond the plugin's own entry, `/sys`.

/// What a path grants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read files, list directories, execute programs below it.
    Read,
    /// Read and write (a device such as `/dev/null`).
    ReadWrite,
}

/// One allow-listed system path.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// Absolute path (a directory covers everything below it).
    pub path: &'static str,
    /// Read, or read and write.
    pub access: Access,
    /// Why a plugin needs it.
    pub reason: &'static str,
}

const fn read(path: &'static str, reason: &'static str) -> Entry {
    Entry {
        path,
        access: Access::Read,
        reason,
    }
}

/// The allow-list. Missing paths are skipped (the list covers merged-/usr
/// and split layouts alike).
pub const SYSTEM_READ: &[Entry] = &[
    read("/usr/bin", "interpreters (sh, bash, python3, env) and the tools shell plugins call (sed, tr, date, base64, …)"),
    read("/bin", "`#!/bin/sh`, `#!/bin/bash` (a link to /usr/bin on merged-/usr systems, a directory elsewhere)"),
    read("/usr/lib", "shared libraries, Python's standard library and dist-packages (PyYAML), compiled locales (/usr/lib/locale)"),
    read("/lib", "shared libraries and the dynamic loader as programs name them (/lib/x86_64-linux-gnu/libc.so.6)"),
    read("/lib64", "the dynamic loader named in every x86_64 executable (/lib64/ld-linux-x86-64.so.2)"),
    read("/usr/lib64", "the same loader on merged-/usr systems"),
    read("/usr/local/lib", "pip's site-packages (/usr/local/lib/python3.*/dist-packages, read at every Python start)"),
    read("/usr/local/bin", "locally installed interpreters and tools plugins call (a sops, a yq, a helm)"),
    read("/etc/ld.so.cache", "the dynamic loader's cache of library locations, read by every dynamically linked program"),
    read("/etc/localtime", "the system time zone (date, Python's time and datetime)"),
    read("/usr/share/zoneinfo", "time zones when TZ is set"),
    read("/etc/locale.alias", "setlocale's alias table (/usr/share/locale/locale.alias links here), read by sed, tr, bash"),
    read("/usr/share/locale", "message catalogues for LANG/LC_*"),
    read("/etc/python3.11", "Debian's sitecustomize.py (/usr/lib/python3.11/sitecustomize.py links here), imported at every python3.11 start"),
    read("/etc/python3.12", "the same for python3.12"),
    read("/etc/python3.13", "the same for python3.13"),
    read("/etc/ssl/certs", "CA certificates (Python's ssl, curl, Go's crypto/x509)"),
    read("/usr/share/ca-certificates", "the CA certificates /etc/ssl/certs links to"),
    read("/dev/urandom", "randomness for programs that read it rather than call getrandom(2)"),
    Entry {
        path: "/dev/null",
        access: Access::ReadWrite,
        reason: "the usual place to discard output (`2>/dev/null`)",
    },
    read("/sys/devices/system/cpu", "the number of CPUs (glibc's get_nprocs, Python's os.cpu_count)"),
    read("/sys/kernel/mm/transparent_hugepage", "Go's runtime reads the huge-page size at start (helm's engine)"),
];

/// Added with `--plugin-allow-net` (or a policy's `net: true`): what name
/// resolution reads.
pub const NET_READ: &[Entry] = &[
    read("/etc/resolv.conf", "DNS servers"),
    read("/etc/hosts", "static host names"),
    read("/etc/nsswitch.conf", "where the C library looks names up"),
    read("/etc/gai.conf", "address ordering for getaddrinfo"),
    read("/etc/host.conf", "resolver options"),
    read("/etc/services", "port names"),
    read("/etc/protocols", "protocol names"),
    read(
        "/etc/ssl/openssl.cnf",
        "OpenSSL's configuration, read when a TLS context is made",
    ),
];

/// `/proc/self` is added in the plugin's own process (it names a different
/// directory in every process): the plugin's own status, maps, file
/// descriptors and executable, which runtimes read at start.
pub const PROC_SELF_REASON: &str =
    "the plugin's own /proc entry (runtimes read their maps, limits and fds)";
