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
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) == 1
                && libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0
            {
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
