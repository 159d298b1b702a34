//! Dropping every capability of a plugin process, in the child before exec:
//! the bounding set (so that no later `execve` — of a set-uid or
//! file-capability program, or of any program while uid 0 — can give one
//! back), the ambient set, and the effective, permitted and inheritable
//! sets. With `SECBIT_NOROOT` locked, uid 0 alone no longer means "all
//! capabilities" at exec either. This is what systemd's
//! `CapabilityBoundingSet=` (empty) plus `NoNewPrivileges=` amount to.
//!
//! Direct `prctl`/`capset` calls through `libc` rather than a crate such as
//! `caps`: the calls happen between `fork` and `exec` of a multi-threaded
//! process, where only async-signal-safe code may run (no allocation), and
//! `caps` builds `HashSet`s.

/// `_LINUX_CAPABILITY_VERSION_3`.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
/// `SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
/// SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
/// SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED`.
const SECURE_BITS: libc::c_ulong = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40 | 0x80;

#[repr(C)]
struct Header {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Data {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Drop every capability of the calling process. Async-signal-safe.
///
/// Dropping from the bounding set needs `CAP_SETPCAP`: as root, and in a
/// user namespace kustom made, the process has it; an unprivileged process
/// outside one has no capability to drop and `no_new_privs` keeps it so.
pub fn drop_all() -> std::io::Result<()> {
    // SAFETY: prctl and capset with integer arguments and pointers to live
    // stack values.
    unsafe {
        // Before CAP_SETPCAP goes: lock uid 0 out of capabilities.
        libc::prctl(libc::PR_SET_SECUREBITS, SECURE_BITS, 0, 0, 0);
        // Dropping a capability the set lacks is a no-op, so up to the
        // kernel's last one a drop needs no read first (41 calls, not 105).
        let last = last_cap();
        for cap in 0..last.map_or(64, |l| l + 1) {
            let held = last.is_some() || libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) == 1;
            if held && libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                let err = std::io::Error::last_os_error();
                if err.raw_os_error() != Some(libc::EPERM) {
                    return Err(err);
                }
            }
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let header = Header {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(libc::SYS_capset, &header as *const Header, data.as_ptr()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The kernel's highest capability number (`/proc/sys/kernel/cap_last_cap`),
/// read before any fork (see [`prepare`]); -1 while unknown.
static LAST_CAP: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The last capability number, when known (else each one is read first).
fn last_cap() -> Option<libc::c_int> {
    let n = LAST_CAP.load(std::sync::atomic::Ordering::Relaxed);
    (n >= 0).then_some(n)
}

/// Read the kernel's last capability number, once, in kustom (the child
/// between fork and exec must not open files or allocate).
pub fn prepare() {
    static DONE: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        if let Some(n) = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
            .filter(|n| (0..64).contains(n))
        {
            LAST_CAP.store(n, std::sync::atomic::Ordering::Relaxed);
        }
    });
}
