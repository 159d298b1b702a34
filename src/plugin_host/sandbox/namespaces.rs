//! The mount namespace of a confined plugin call, in the manner of
//! bubblewrap: every mount is read-only and `nosuid` except the write
//! grants, so that `chmod`, `chown`, `utime` and `setxattr` fail with
//! `EROFS` outside them (Landlock governs opening files, not their
//! metadata), and the private temporary directory is a fresh `tmpfs`
//! (mode 0700, `nosuid`, `nodev`, sized by the memory limit) that vanishes
//! with the namespace. When kustom is not root, a user namespace mapping
//! the user to itself comes first (making a mount namespace needs one).
//!
//! No pid namespace: containment comes from the init process of
//! `exec::spawn` (a child subreaper with a parent-death signal), which
//! keeps the plugin's process ids the system's own — a plugin that writes
//! `$!` to a file names a real process.
//!
//! Everything is prepared in kustom (paths as C strings); the child only
//! makes system calls.

use std::ffi::CString;
use std::path::Path;
use std::sync::OnceLock;

/// What a call's namespaces look like, prepared before the clone.
#[derive(Debug)]
pub struct Plan {
    /// `clone` flags (`CLONE_NEWNS`, and `CLONE_NEWUSER` unless root).
    pub clone_flags: u64,
    /// Map uid and gid to themselves (with `CLONE_NEWUSER`).
    pub user_maps: Option<(CString, CString)>,
    /// The mounts to make (with `CLONE_NEWNS`).
    pub mounts: Option<Mounts>,
}

/// The mount namespace of a confined call.
#[derive(Debug)]
pub struct Mounts {
    /// Writable paths (existing directories and files), bound onto themselves.
    pub writable: Vec<CString>,
    /// The private directory: a tmpfs goes there.
    pub tmp: CString,
    /// Its mount options (`mode=0700,size=…,uid=…,gid=…`).
    pub tmp_options: CString,
    /// `HOME` for `--plugin-env=minimal`, made inside the tmpfs.
    pub home: CString,
    /// The Landlock rights the plugin gets on the tmpfs: a rule must name
    /// the tmpfs itself (Landlock does not look through a mount point to
    /// the directory under it), so the plugin adds it before it restricts
    /// itself.
    pub tmp_rights: u64,
}

/// What the kernel lets kustom do, probed once per process.
#[derive(Debug, Clone, Copy)]
pub struct Support {
    /// kustom runs as root (no user namespace needed).
    pub root: bool,
    /// Namespaces can be made (as root, or through a user namespace).
    pub namespaces: bool,
    /// `mount_setattr(2)` (Linux 5.12): a recursive read-only remount.
    pub mount_setattr: bool,
}

/// The kernel's support, probed once (a short-lived child tries it).
pub fn support() -> Support {
    static S: OnceLock<Support> = OnceLock::new();
    *S.get_or_init(|| {
        // SAFETY: geteuid takes nothing.
        let root = unsafe { libc::geteuid() } == 0;
        let flags = libc::CLONE_NEWNS as u64 | if root { 0 } else { libc::CLONE_NEWUSER as u64 };
        let namespaces = probe_clone(flags);
        // mount_setattr with a bad descriptor: EBADF where it exists.
        // SAFETY: no pointer is dereferenced with fd -1 and a null path.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_mount_setattr,
                -1,
                std::ptr::null::<libc::c_char>(),
                0,
                std::ptr::null::<u8>(),
                0usize,
            )
        };
        let mount_setattr =
            rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ENOSYS);
        Support {
            root,
            namespaces,
            mount_setattr,
        }
    })
}

/// Whether a child can be cloned into new namespaces with `flags`.
fn probe_clone(flags: u64) -> bool {
    // SAFETY: a raw clone without a new stack behaves as fork; the child
    // only calls _exit.
    unsafe {
        let pid = libc::syscall(
            libc::SYS_clone,
            flags | libc::SIGCHLD as u64,
            0usize,
            0usize,
            0usize,
            0usize,
        );
        if pid == 0 {
            libc::_exit(0);
        }
        if pid < 0 {
            return false;
        }
        let mut status = 0;
        libc::waitpid(pid as i32, &mut status, 0);
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
    }
}

fn c_path(p: &Path) -> Option<CString> {
    CString::new(p.as_os_str().as_encoded_bytes()).ok()
}

/// The plan of a confined call (None when unconfined, or when the kernel
/// cannot make the namespace: then metadata calls are refused by seccomp
/// instead).
pub fn plan(
    confined: bool,
    writable: &[std::path::PathBuf],
    tmp: &Path,
    tmp_size: Option<u64>,
    tmp_rights: u64,
) -> Option<Plan> {
    let s = support();
    if !confined || !s.namespaces || !s.mount_setattr {
        return None;
    }
    // SAFETY: getuid/getgid take nothing.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let mut clone_flags = libc::CLONE_NEWNS as u64;
    let user_maps = (!s.root).then(|| {
        (
            CString::new(format!("{uid} {uid} 1")).expect("digits"),
            CString::new(format!("{gid} {gid} 1")).expect("digits"),
        )
    });
    if user_maps.is_some() {
        clone_flags |= libc::CLONE_NEWUSER as u64;
    }
    let size = tmp_size.map(|b| format!(",size={b}")).unwrap_or_default();
    let mounts = Mounts {
        writable: writable
            .iter()
            .filter(|p| p.as_path() != tmp && p.exists())
            .filter_map(|p| c_path(p))
            .collect(),
        tmp: c_path(tmp)?,
        tmp_options: CString::new(format!("mode=0700,uid={uid},gid={gid}{size}")).ok()?,
        home: c_path(&tmp.join("home"))?,
        tmp_rights,
    };
    Some(Plan {
        clone_flags,
        user_maps,
        mounts: Some(mounts),
    })
}

/// A step of the child's setup that failed, for the error message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Step {
    /// Writing the user namespace's uid/gid maps.
    UserMap = 1,
    /// Making the mounts private.
    Private = 2,
    /// Binding a write grant onto itself.
    Bind = 3,
    /// The recursive read-only remount.
    ReadOnly = 4,
    /// Making a write grant writable again.
    Writable = 5,
    /// Mounting the private tmpfs.
    Tmpfs = 6,
    /// Starting the plugin process.
    Fork = 7,
    /// Confining the plugin process (rlimits, capabilities, Landlock, seccomp).
    Confine = 8,
    /// `execve` of the plugin.
    Exec = 9,
    /// Changing to the working directory.
    Chdir = 10,
}

impl Step {
    /// From the number the child reported.
    pub fn from_u32(n: u32) -> Option<Step> {
        use Step::*;
        [
            UserMap, Private, Bind, ReadOnly, Writable, Tmpfs, Fork, Confine, Exec, Chdir,
        ]
        .into_iter()
        .find(|s| *s as u32 == n)
    }

    /// What the step does, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Step::UserMap => "writing the user namespace's uid and gid maps",
            Step::Private => "making the mount namespace private",
            Step::Bind => "binding a write grant in the mount namespace",
            Step::ReadOnly => "remounting the file systems read-only",
            Step::Writable => "making a write grant writable",
            Step::Tmpfs => "mounting the private temporary directory",
            Step::Fork => "starting the plugin process",
            Step::Confine => "confining the plugin process",
            Step::Exec => "executing the plugin",
            Step::Chdir => "changing to the kustomization's directory",
        }
    }
}

/// Write `text` to the file `path` (async-signal-safe).
unsafe fn write_file(path: &std::ffi::CStr, text: &[u8]) -> bool {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return false;
    }
    let ok = libc::write(fd, text.as_ptr().cast(), text.len()) == text.len() as isize;
    libc::close(fd);
    ok
}

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const AT_RECURSIVE: libc::c_uint = 0x8000;

unsafe fn mount_setattr(path: &std::ffi::CStr, flags: libc::c_uint, set: u64, clr: u64) -> bool {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clr,
        propagation: 0,
        userns_fd: 0,
    };
    libc::syscall(
        libc::SYS_mount_setattr,
        libc::AT_FDCWD,
        path.as_ptr(),
        flags,
        &attr as *const MountAttr,
        std::mem::size_of::<MountAttr>(),
    ) == 0
}

impl Plan {
    /// In the init process, right after the clone: the user maps and the
    /// mounts. Async-signal-safe. The failed step on error.
    ///
    /// # Safety
    /// Only between clone and exec/_exit of the child.
    pub unsafe fn apply(&self) -> Result<(), Step> {
        if let Some((uid_map, gid_map)) = &self.user_maps {
            let ok = write_file(c"/proc/self/setgroups", b"deny")
                && write_file(c"/proc/self/uid_map", uid_map.as_bytes())
                && write_file(c"/proc/self/gid_map", gid_map.as_bytes());
            if !ok {
                return Err(Step::UserMap);
            }
        }
        let Some(m) = &self.mounts else {
            return Ok(());
        };
        if libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            return Err(Step::Private);
        }
        for w in &m.writable {
            if libc::mount(
                w.as_ptr(),
                w.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            ) != 0
            {
                return Err(Step::Bind);
            }
        }
        if !mount_setattr(c"/", AT_RECURSIVE, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0) {
            return Err(Step::ReadOnly);
        }
        for w in &m.writable {
            if !mount_setattr(w, 0, 0, MOUNT_ATTR_RDONLY) {
                return Err(Step::Writable);
            }
        }
        if libc::mount(
            c"tmpfs".as_ptr(),
            m.tmp.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            m.tmp_options.as_ptr().cast(),
        ) != 0
        {
            return Err(Step::Tmpfs);
        }
        libc::mkdir(m.home.as_ptr(), 0o700);
        Ok(())
    }
}
