//! The system paths every confined plugin may read: the minimum an
//! interpreted plugin (`sh`, `bash`, `python3`, helm's Python front end, the
//! shipped builtin) needs to start and do its work. Found by running those
//! plugins confined with an empty list and adding what they were denied
//! (`strace -f -e trace=%file` shows the `EACCES`). Each entry says why.
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
    read("/usr/bin", "interpreters (sh, bash, python3, env) and the tools shell plugins call (sed, cat, base64, …)"),
    read("/bin", "the same on systems without merged /usr; `#!/bin/sh` names it"),
    read("/usr/sbin", "tools some distributions install there (e.g. ldconfig invoked by interpreters)"),
    read("/usr/lib", "shared libraries, the dynamic loader, Python's standard library and dist-packages (PyYAML)"),
    read("/usr/lib64", "the dynamic loader on x86_64 (/lib64/ld-linux-x86-64.so.2)"),
    read("/lib", "shared libraries on systems without merged /usr"),
    read("/lib64", "the dynamic loader on systems without merged /usr"),
    read("/usr/local/bin", "locally installed interpreters and tools (a helm, a sops)"),
    read("/usr/local/lib", "locally installed libraries and Python packages (pip's site-packages)"),
    read("/usr/share/zoneinfo", "time zones (TZ, Python's zoneinfo, date)"),
    read("/usr/share/ca-certificates", "CA certificates that /etc/ssl/certs links to (plugins that fetch over TLS with --plugin-allow-net)"),
    read("/usr/share/locale", "message catalogues for LANG/LC_*"),
    read("/usr/share/i18n", "locale definitions"),
    read("/etc/ld.so.cache", "the dynamic loader's cache of library locations"),
    read("/etc/ld.so.conf", "read by interpreters that look libraries up themselves (ctypes.util)"),
    read("/etc/ld.so.conf.d", "included by /etc/ld.so.conf"),
    read("/etc/localtime", "the system time zone"),
    read("/etc/ssl/certs", "CA certificates (Python's ssl, curl, Go's crypto/x509)"),
    read("/etc/ssl/openssl.cnf", "OpenSSL's configuration, read when Python's ssl module loads"),
    read("/etc/python3", "Debian's Python configuration read at interpreter start"),
    read("/etc/python3.11", "Debian's sitecustomize.py, imported by python3.11 at start"),
    read("/etc/python3.12", "the same for python3.12"),
    read("/etc/python3.13", "the same for python3.13"),
    read("/etc/alternatives", "Debian's links for interpreters and tools (awk, which, …)"),
    read("/etc/mime.types", "Python's mimetypes module at import"),
    read("/dev/urandom", "randomness (Python's hash seed, tempfile names)"),
    read("/dev/random", "randomness for programs that ask for it"),
    read("/dev/zero", "zero pages some runtimes map"),
    Entry {
        path: "/dev/null",
        access: Access::ReadWrite,
        reason: "the usual place to discard output (`2>/dev/null`)",
    },
    read("/sys/devices/system/cpu", "CPU counts (Go and Rust runtimes, Python's os.cpu_count)"),
    read("/sys/kernel/mm/transparent_hugepage", "Go's runtime reads the huge-page size at start (helm)"),
    read("/proc/cpuinfo", "CPU features some runtimes probe"),
    read("/proc/meminfo", "memory size some runtimes probe"),
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
];

/// `/proc/self` is added in the plugin's own process (it names a different
/// directory in every process): the plugin's own status, maps, file
/// descriptors and executable, which runtimes read at start.
pub const PROC_SELF_REASON: &str =
    "the plugin's own /proc entry (runtimes read their maps, limits and fds)";
