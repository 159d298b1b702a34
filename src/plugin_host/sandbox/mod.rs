//! Confinement of plugin processes (docs/security.md).
//!
//! Every plugin process — KEP, legacy exec, KRM exec function, the shipped
//! builtin and the helm it runs — starts confined, unless the build says
//! `--plugin-sandbox=off`:
//!
//! - **files** (Landlock): read the tree of the kustomization that listed
//!   the config (everything with `--load-restrictor LoadRestrictionsNone`),
//!   the plugin executable and its directory, the system paths of
//!   [`system::SYSTEM_READ`] and its own `/proc/self`; write only a private
//!   directory made for the call (`TMPDIR`, removed afterwards) and
//!   `/dev/null`.
//! - **network**: Landlock denies TCP bind and connect (ABI ≥ 4), and a
//!   seccomp filter makes `socket(2)` fail with `EACCES` for every address
//!   family (UDP, raw, netlink, packet, UNIX…) and `io_uring_setup(2)` fail
//!   too (io_uring could open sockets without `socket(2)`). `socketpair(2)`
//!   stays allowed: it connects nothing outside the plugin. Landlock's
//!   scopes (ABI ≥ 6) also deny connecting to abstract UNIX sockets and
//!   signalling processes outside the sandbox.
//! - **privileges**: `no_new_privs`, so set-uid programs gain nothing.
//! - **grants** widen this per build (flags) or per plugin (the user's
//!   policy file, [`policy`]).
//!
//! The ruleset is built in kustom before `fork` (opening the allowed paths
//! allocates); the child only calls `prctl`, `landlock_add_rule` for its own
//! `/proc/self`, `landlock_restrict_self` and `seccomp`, which are safe
//! between `fork` and `exec` of a multi-threaded process.

pub mod capabilities;
pub mod interpreter;
pub mod namespaces;
pub mod policy;
pub mod seccomp;
pub mod system;

use crate::processes::Temporary;
use kustom_api::Error;
use landlock::{
    Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr,
    Scope, ABI,
};
use policy::{Grants, PolicyFile};
use serde::Serialize;
use std::collections::HashMap;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Which environment a plugin gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EnvMode {
    /// The build's environment (the KEP's rule), plus the protocol's variables.
    Inherit,
    /// Only `PATH`, `LANG`, `LC_*`, `TZ`, `TMPDIR`, a private `HOME`, the
    /// protocol's variables and what `--plugin-env-pass` names.
    Minimal,
}

/// Variables `--plugin-env=minimal` keeps from the build's environment.
const MINIMAL_ENV: &[&str] = &["PATH", "LANG", "TZ"];

/// The sandbox settings of a build.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// Confine plugins (`--plugin-sandbox=on`, the default).
    pub enabled: bool,
    /// `--plugin-allow-read/-write/-net` and `--plugin-env-pass`: for every plugin.
    pub grants: Grants,
    /// The user's per-plugin grants.
    pub policy: PolicyFile,
    /// `--plugin-env`.
    pub env: EnvMode,
    /// `--plugin-memory-limit` in bytes (`RLIMIT_DATA`); None: unlimited.
    pub memory_limit: Option<u64>,
    /// Landlock rulesets of calls without a private directory, by what
    /// they allow: one ruleset serves every such call with the same paths
    /// (a ruleset is applied, not consumed, by `landlock_restrict_self`).
    pub rulesets: RulesetCache,
}

/// Rulesets by (read paths, write paths, network), shared by the clones
/// of a build's settings.
#[derive(Debug, Clone, Default)]
pub struct RulesetCache(Arc<Mutex<RulesetMap>>);

/// Rulesets by readable paths, writable paths, network, system allow-list.
type RulesetMap = HashMap<(Vec<PathBuf>, Vec<PathBuf>, bool, bool), Arc<OwnedFd>>;

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox {
            enabled: true,
            grants: Grants::default(),
            policy: PolicyFile::default(),
            env: EnvMode::Inherit,
            memory_limit: Some(DEFAULT_MEMORY_LIMIT),
            rulesets: RulesetCache::default(),
        }
    }
}

/// Default `--plugin-memory-limit`: 1 GiB of data (`RLIMIT_DATA`: the heap
/// and private writable mappings, i.e. what a process allocates). Not
/// `RLIMIT_AS`: Go's runtime (helm's engine) reserves address space it never
/// uses and aborted intermittently under a 1.5 GiB address-space limit.
/// The shipped builtin on the bench's largest tree, helm's Python front end
/// and the example plugins stay well below (docs/security.md);
/// a runaway allocation fails there instead of exhausting the machine.
pub const DEFAULT_MEMORY_LIMIT: u64 = 1 << 30;

/// The plugin a call runs, as the sandbox sees it.
#[derive(Debug, Clone)]
pub struct Subject<'a> {
    /// Its name as in `kustom.lock` (`KEP <group>`, …; `builtin (shipped)`).
    pub name: &'a str,
    /// The executable.
    pub exe: &'a Path,
    /// Whether it is the shipped builtin (part of kustom).
    pub shipped: bool,
    /// The directory of the kustomization that listed its config.
    pub tree: &'a Path,
    /// Whether the build may read outside the tree (`LoadRestrictionsNone`).
    pub read_anywhere: bool,
    /// More paths this call must read (the helm executable for the builtin).
    pub extra_read: Vec<PathBuf>,
    /// Whether the call gets a private directory (its TMPDIR) and a mount
    /// namespace. The forked builtin needs neither: it writes nothing and
    /// starts no process.
    pub private_dir: bool,
}

/// The policy a call ran under, as the audit log and error messages show it.
#[derive(Debug, Clone, Serialize)]
pub struct Policy {
    /// Whether the process was confined.
    pub confined: bool,
    /// Whether it could read the system allow-list ([`system::SYSTEM_READ`]):
    /// every program kustom execs needs it, the forked builtin (which
    /// starts no program and loads no library) does not.
    pub system: bool,
    /// Readable paths beyond the system allow-list.
    pub read: Vec<PathBuf>,
    /// Writable paths.
    pub write: Vec<PathBuf>,
    /// Whether it had the network.
    pub net: bool,
    /// `inherit` or `minimal`.
    pub env: EnvMode,
    /// Address-space limit in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<u64>,
}

/// One call's sandbox: its private directory, the policy, the prepared
/// Landlock ruleset and the environment.
#[derive(Debug)]
pub struct CallSandbox {
    dir: Option<Temporary<tempfile::TempDir>>,
    /// The policy applied.
    pub policy: Policy,
    /// The plugin's name (for messages).
    pub plugin: String,
    ruleset: Option<Arc<OwnedFd>>,
    seccomp: bool,
    /// The call's namespaces (None: the kernel allows none).
    pub namespaces: Option<namespaces::Plan>,
    /// Clear the inherited environment first (`--plugin-env=minimal`).
    pub clear_env: bool,
    /// Variables to set (after clearing, if so).
    pub env: Vec<(String, String)>,
    policy_path: PathBuf,
    finished: std::cell::Cell<Option<(Option<i32>, std::time::Duration)>>,
}

/// Whether the kernel has seccomp filters.
pub fn seccomp_supported() -> bool {
    static S: OnceLock<bool> = OnceLock::new();
    // SAFETY: PR_GET_SECCOMP takes no pointers.
    *S.get_or_init(|| unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0)
}

/// With `-v`: one line per confinement feature, saying what is weaker when
/// the kernel lacks it (once per build).
fn report_features() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let abi = landlock_abi();
        if abi < 1 {
            tracing::debug!("sandbox: no Landlock: third-party plugins are refused (--plugin-sandbox=off runs them unconfined); the shipped builtin runs without file or TCP rules");
        } else {
            tracing::debug!("sandbox: Landlock ABI {abi}: file rules{}{}", if abi >= 4 { ", TCP bind/connect denied" } else { "; no TCP rules before ABI 4 (Linux 6.7): the seccomp socket filter alone keeps plugins off the network" }, if abi >= 6 { ", signals and abstract UNIX sockets scoped" } else { "; no scopes before ABI 6 (Linux 6.12): a plugin may signal other processes of the user" });
        }
        if seccomp_supported() {
            tracing::debug!("sandbox: seccomp: system-call allow-list, sockets refused");
        } else {
            tracing::debug!("sandbox: no seccomp: plugins may make any system call (other processes, keyring, perf, bpf, sockets, shared memory beyond the memory limit)");
        }
        let ns = namespaces::support();
        match (ns.namespaces, ns.mount_setattr) {
            (true, true) => tracing::debug!("sandbox: mount namespace{}: read-only outside the write grants, private tmpfs TMPDIR", if ns.root { "" } else { " (in a user namespace)" }),
            (false, _) => tracing::debug!("sandbox: no {}mount namespace: chmod/chown/utime/xattr are refused everywhere (TMPDIR included) instead of only outside the write grants, and TMPDIR is a directory of the host's temporary directory", if ns.root { "" } else { "user namespace, so no " }),
            (true, false) => tracing::debug!("sandbox: no mount_setattr (Linux < 5.12): no read-only mount namespace; chmod/chown/utime/xattr are refused everywhere, TMPDIR is on the host"),
        }
        tracing::debug!("sandbox: capabilities: {}", if ns.root { "every capability dropped (bounding, permitted, effective, inheritable, ambient), SECBIT_NOROOT locked" } else { "none held; no_new_privs" });
    });
}

/// `--plugin-env=minimal` says once what it changed.
fn explain_minimal_env(passed: &[String]) {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let dropped: Vec<String> = std::env::vars_os()
            .filter_map(|(k, _)| k.into_string().ok())
            .filter(|k| {
                !MINIMAL_ENV.contains(&k.as_str())
                    && !k.starts_with("LC_")
                    && !passed.contains(k)
            })
            .collect();
        eprintln!(
            "note: --plugin-env=minimal: plugins get HOME=<their private TMPDIR>/home instead of {}, TMPDIR, PATH, LANG, LC_*, TZ{}; not passed: {} (pass one with --plugin-env-pass NAME or `kustom policy allow PLUGIN --env NAME`)",
            std::env::var("HOME").unwrap_or_else(|_| "(unset)".into()),
            passed.iter().map(|p| format!(", {p}")).collect::<String>(),
            if dropped.is_empty() { "nothing".to_string() } else { dropped.join(", ") }
        );
    });
}

/// The running kernel's Landlock ABI (0: none), asked once.
pub fn landlock_abi() -> i32 {
    static ABI_VERSION: OnceLock<i32> = OnceLock::new();
    *ABI_VERSION.get_or_init(|| {
        // SAFETY: the version query takes no pointers (LANDLOCK_CREATE_RULESET_VERSION = 1).
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                1u32,
            )
        };
        if v < 0 {
            0
        } else {
            v as i32
        }
    })
}

impl Sandbox {
    /// Prepare one call of `subject`: its private directory, environment and
    /// ruleset. Refuses third-party plugins when the kernel cannot confine them.
    pub fn prepare(&self, subject: &Subject<'_>) -> Result<CallSandbox, Error> {
        let dir = if subject.private_dir {
            Some(
                tempfile::Builder::new()
                    .prefix("kustom-plugin-")
                    .tempdir()
                    .map(Temporary::new)
                    .map_err(|e| {
                        Error::new(format!(
                            "creating the private temporary directory for {}: {e}",
                            subject.name
                        ))
                    })?,
            )
        } else {
            None
        };
        if let Some(near) = self.policy.near_miss(subject.name) {
            return Err(Error::new(format!(
                "{} grants {near:?}, but the plugin about to run is {:?} ({}): did you mean {:?}? Correct the name (an entry for both names, even an empty one, says they are two plugins)",
                self.policy.path.display(),
                subject.name,
                subject.exe.display(),
                subject.name
            )));
        }
        let grants = self.grants.union(&self.policy.grants_for(subject.name));
        let env_mode = self.env;
        // TMPDIR is `tmp` inside the private directory: kustom puts the
        // files it hands the plugin (a legacy plugin's config) beside it,
        // and a confined call gets a fresh tmpfs there.
        let tmp = dir.as_ref().map(|d| d.path().join("tmp"));
        if let (Some(dir), Some(tmp)) = (&dir, &tmp) {
            use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
            // Private: nobody else may look at, or run, what the plugin leaves.
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
                .and_then(|()| std::fs::DirBuilder::new().mode(0o700).create(tmp))
                .map_err(|e| Error::new(format!("creating {}: {e}", tmp.display())))?;
        }
        let home = tmp.as_ref().map(|t| t.join("home"));
        let mut env = Vec::new();
        if let (true, Some(tmp)) = (self.enabled, &tmp) {
            env.push(("TMPDIR".to_string(), tmp.display().to_string()));
        }
        let clear_env = self.enabled && env_mode == EnvMode::Minimal;
        if self.enabled && tracing::enabled!(tracing::Level::DEBUG) {
            report_features();
        }
        if clear_env {
            explain_minimal_env(&grants.env_pass);
            if let Some(home) = &home {
                env.push(("HOME".to_string(), home.display().to_string()));
            }
            for (k, v) in std::env::vars_os() {
                let (Some(k), Some(v)) = (k.to_str(), v.to_str()) else {
                    continue;
                };
                let keep = MINIMAL_ENV.contains(&k)
                    || k.starts_with("LC_")
                    || grants.env_pass.iter().any(|p| p == k);
                if keep {
                    env.push((k.to_string(), v.to_string()));
                }
            }
        }
        let mut read: Vec<PathBuf> = Vec::new();
        if subject.read_anywhere {
            read.push(PathBuf::from("/"));
        } else {
            read.push(subject.tree.to_path_buf());
        }
        let exe = subject
            .exe
            .canonicalize()
            .unwrap_or_else(|_| subject.exe.to_path_buf());
        if subject.shipped {
            // kustom itself: the executable, not its directory.
            read.push(exe.clone());
        } else if let Some(parent) = exe.parent() {
            read.push(parent.to_path_buf());
        }
        if !subject.shipped {
            // The interpreter on its `#!` line and its installation prefix.
            read.extend(interpreter::reads(&exe));
        }
        read.extend(subject.extra_read.iter().cloned());
        read.extend(grants.read.iter().cloned());
        read.extend(dir.as_ref().map(|d| d.path().to_path_buf()));
        let mut write: Vec<PathBuf> = tmp.iter().cloned().collect();
        write.extend(grants.write.iter().cloned());
        let policy = Policy {
            confined: self.enabled,
            // The forked builtin is the one call without a private directory.
            system: subject.private_dir || !subject.shipped,
            read,
            write,
            net: grants.net,
            env: env_mode,
            memory_limit: self.memory_limit,
        };
        let ruleset = if self.enabled {
            if landlock_abi() < 1 {
                if !subject.shipped {
                    return Err(Error::new(format!(
                        "refusing to run {} ({}): this kernel has no Landlock (Linux ≥ 5.13 with landlock enabled in the LSM list), so kustom cannot confine it to its tree; run it unconfined only if you trust it: --plugin-sandbox=off",
                        subject.name,
                        subject.exe.display()
                    )));
                }
                tracing::debug!(
                    "no Landlock: the shipped builtin runs with the seccomp filter only"
                );
                None
            } else {
                Some(self.ruleset(&policy, dir.is_none()).map_err(|e| {
                    Error::new(format!(
                        "preparing the sandbox of {} ({}): {e}",
                        subject.name,
                        subject.exe.display()
                    ))
                })?)
            }
        } else {
            None
        };
        let ns = match &tmp {
            Some(tmp) => namespaces::plan(
                self.enabled && ruleset.is_some(),
                &policy.write,
                tmp,
                self.memory_limit,
                AccessFs::from_all(ABI::from(landlock_abi())).bits(),
            ),
            None => None,
        };
        // Without a mount namespace the private directory is the host's:
        // HOME is made there (with one, the init makes it in the tmpfs).
        if let (true, Some(home)) = (self.enabled, &home) {
            if ns.as_ref().is_none_or(|p| p.mounts.is_none()) {
                std::fs::create_dir(home)
                    .map_err(|e| Error::new(format!("creating {}: {e}", home.display())))?;
            }
        }
        Ok(CallSandbox {
            dir,
            plugin: subject.name.to_string(),
            seccomp: self.enabled,
            namespaces: ns,
            policy,
            ruleset,
            clear_env,
            env,
            policy_path: self.policy.path.clone(),
            finished: std::cell::Cell::new(None),
        })
    }
}

impl Sandbox {
    /// The Landlock ruleset of `policy`; shared between calls when
    /// `reusable` (no private directory, so nothing unique to the call).
    fn ruleset(&self, policy: &Policy, reusable: bool) -> Result<Arc<OwnedFd>, String> {
        if !reusable {
            return build_ruleset(policy).map(Arc::new);
        }
        let key = (
            policy.read.clone(),
            policy.write.clone(),
            policy.net,
            policy.system,
        );
        let mut cache = self.rulesets.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(fd) = cache.get(&key) {
            return Ok(fd.clone());
        }
        let fd = Arc::new(build_ruleset(policy)?);
        cache.insert(key, fd.clone());
        Ok(fd)
    }
}

/// Landlock rights to read (and execute) below a path; files get the file
/// subset (directory rights on a file are invalid).
fn read_rights(abi: ABI, is_dir: bool) -> landlock::BitFlags<AccessFs> {
    let r = AccessFs::from_read(abi);
    if is_dir {
        r
    } else {
        r & AccessFs::from_file(abi)
    }
}

fn all_rights(abi: ABI, is_dir: bool) -> landlock::BitFlags<AccessFs> {
    let r = AccessFs::from_all(abi);
    if is_dir {
        r
    } else {
        r & AccessFs::from_file(abi)
    }
}

/// An `O_PATH` descriptor for a rule on `path` and the rights it gets;
/// None when the path does not exist.
fn open_rule(path: &Path, abi: ABI, write: bool) -> Option<(PathFd, landlock::BitFlags<AccessFs>)> {
    let meta = std::fs::metadata(path).ok()?;
    let fd = PathFd::new(path).ok()?;
    let rights = if write {
        all_rights(abi, meta.is_dir())
    } else {
        read_rights(abi, meta.is_dir())
    };
    Some((fd, rights))
}

type Rules = Vec<(PathFd, landlock::BitFlags<AccessFs>)>;

/// The system allow-list's descriptors, opened once per build (without and
/// with the network entries): the part of every ruleset that never changes.
fn system_fds(abi: ABI, net: bool) -> &'static Rules {
    static PLAIN: OnceLock<Rules> = OnceLock::new();
    static WITH_NET: OnceLock<Rules> = OnceLock::new();
    let open = |entries: &mut dyn Iterator<Item = &system::Entry>| -> Rules {
        entries
            .filter_map(|e| {
                open_rule(
                    Path::new(e.path),
                    abi,
                    e.access == system::Access::ReadWrite,
                )
            })
            .collect()
    };
    if net {
        WITH_NET.get_or_init(|| open(&mut system::SYSTEM_READ.iter().chain(system::NET_READ)))
    } else {
        PLAIN.get_or_init(|| open(&mut system::SYSTEM_READ.iter()))
    }
}

/// Build the Landlock ruleset of a policy (in kustom, before fork).
fn build_ruleset(policy: &Policy) -> Result<OwnedFd, String> {
    let abi = ABI::from(landlock_abi());
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| e.to_string())?;
    if !policy.net && AccessNet::from_all(abi) != landlock::BitFlags::EMPTY {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(|e| e.to_string())?;
    }
    if Scope::from_all(abi) != landlock::BitFlags::EMPTY {
        ruleset = ruleset
            .scope(Scope::from_all(abi))
            .map_err(|e| e.to_string())?;
    }
    let mut created = ruleset.create().map_err(|e| e.to_string())?;
    let system: &[_] = if policy.system {
        system_fds(abi, policy.net)
    } else {
        &[]
    };
    for (fd, rights) in system {
        (&mut created)
            .add_rule(PathBeneath::new(fd, *rights))
            .map_err(|e| e.to_string())?;
    }
    let mut add = |path: &Path, write: bool| -> Result<(), String> {
        // Missing paths are skipped (a grant may name a file not made yet).
        let Some((fd, rights)) = open_rule(path, abi, write) else {
            return Ok(());
        };
        (&mut created)
            .add_rule(PathBeneath::new(fd, rights))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(())
    };
    for p in &policy.read {
        add(p, false)?;
    }
    for p in &policy.write {
        add(p, true)?;
    }
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| "the kernel did not create a Landlock ruleset".to_string())
}

/// What confines a plugin process, as plain values: what the fork server
/// receives over its socket and turns into a [`ChildSetup`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Confinement {
    /// Install the seccomp allow-list (and the ENOSYS and socket filters).
    pub seccomp: bool,
    /// Sockets may be made (a network grant).
    pub net: bool,
    /// Metadata calls are allowed (only under a read-only mount namespace).
    pub metadata: bool,
    /// With `seccomp`: the shipped builtin's short allow-list instead of
    /// the general one (the fork server's builtin processes).
    pub builtin: bool,
    /// Drop every capability.
    pub drop_capabilities: bool,
    /// `RLIMIT_DATA`.
    pub memory_limit: Option<u64>,
    /// `RLIMIT_FSIZE`: no file larger than the memory limit (a file in a
    /// tmpfs is memory).
    pub file_limit: Option<u64>,
}

/// What the child applies between fork and exec: plain values only.
#[derive(Debug, Clone, Copy)]
pub struct ChildSetup {
    /// The Landlock ruleset's descriptor (renumbered in the child).
    pub ruleset: Option<RawFd>,
    /// The seccomp programs, installed in order.
    seccomp: [Option<&'static seccompiler::BpfProgram>; 3],
    /// Drop every capability.
    drop_capabilities: bool,
    memory_limit: Option<u64>,
    file_limit: Option<u64>,
}

impl ChildSetup {
    /// The setup of `confinement` with the Landlock ruleset `ruleset`
    /// (compiles the seccomp programs on first use, so call it before a
    /// fork, never after).
    pub fn new(confinement: Confinement, ruleset: Option<RawFd>) -> ChildSetup {
        if confinement.drop_capabilities {
            capabilities::prepare();
        }
        let supported = seccomp_supported();
        let all = confinement.seccomp && supported;
        let seccomp = if confinement.builtin {
            [all.then(seccomp::builtin_allow_list), None, None]
        } else {
            [
                all.then(seccomp::enosys),
                (all && !confinement.net).then(seccomp::no_sockets),
                all.then(|| seccomp::allow_list(confinement.metadata)),
            ]
        };
        ChildSetup {
            ruleset,
            seccomp,
            drop_capabilities: confinement.drop_capabilities,
            memory_limit: confinement.memory_limit,
            file_limit: confinement.file_limit,
        }
    }
}

impl CallSandbox {
    /// The private directory (TMPDIR is `tmp` in it), removed when the
    /// call is dropped.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_ref().map(|d| d.path())
    }

    /// Note how the process ended (exit status, wall-clock time).
    pub fn set_finished(&self, status: Option<i32>, elapsed: std::time::Duration) {
        self.finished.set(Some((status, elapsed)));
    }

    /// How the process ended, once it has.
    pub fn finished(&self) -> Option<(Option<i32>, std::time::Duration)> {
        self.finished.get()
    }

    /// What the child must apply before exec.
    pub fn child_setup(&self) -> ChildSetup {
        ChildSetup::new(self.confinement(), self.ruleset_fd())
    }

    /// The confinement of this call as plain values.
    pub fn confinement(&self) -> Confinement {
        let confined = self.policy.confined;
        Confinement {
            seccomp: self.seccomp,
            net: self.policy.net,
            metadata: self.namespaces.as_ref().is_some_and(|p| p.mounts.is_some()),
            builtin: false,
            drop_capabilities: confined,
            memory_limit: self.policy.memory_limit,
            file_limit: if confined {
                self.policy.memory_limit
            } else {
                None
            },
        }
    }

    /// The prepared Landlock ruleset, if the call is confined by one.
    pub fn ruleset_fd(&self) -> Option<RawFd> {
        self.ruleset.as_ref().map(|fd| fd.as_raw_fd())
    }

    /// For an error message: that the plugin ran confined, what it was
    /// allowed and which grant widens it. Empty when it was not confined.
    pub fn explain(&self) -> String {
        if !self.policy.confined {
            return String::new();
        }
        let list = |ps: &[PathBuf]| {
            ps.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mem = match self.policy.memory_limit {
            Some(m) => format!("; memory limit {} MiB (--plugin-memory-limit)", m >> 20),
            None => String::new(),
        };
        format!(
            "\nnote: the plugin ran confined (--plugin-sandbox=on): it could read {}{}, write only {}, {}; environment {}{mem}.\n  If it needs more, grant it to this plugin: `kustom policy allow {:?} --read PATH` (or --write PATH, --net, --env NAME; written to {}), or to every plugin of this build with --plugin-allow-read PATH, --plugin-allow-write PATH, --plugin-allow-net, --plugin-env-pass NAME, --plugin-memory-limit BYTES",
            list(&self.policy.read),
            if self.policy.system {
                " and the system paths kustom allows (docs/security.md)"
            } else {
                ""
            },
            if self.policy.write.is_empty() { "nothing".to_string() } else { list(&self.policy.write) },
            if self.policy.net { "with the network" } else { "no network (sockets denied)" },
            match self.policy.env {
                EnvMode::Inherit => "inherited",
                EnvMode::Minimal => "minimal (--plugin-env=minimal)",
            },
            self.plugin,
            self.policy_path.display(),
        )
    }
}

impl ChildSetup {
    /// Apply in the child, between fork and exec. Only async-signal-safe
    /// calls: no allocation, no locks.
    pub fn apply(&self) -> std::io::Result<()> {
        let confined = self.ruleset.is_some() || self.seccomp.iter().any(Option::is_some);
        // SAFETY: plain system calls on values owned by this process; the
        // pointers passed point to live stack values and static strings.
        unsafe {
            for (resource, limit) in [
                (libc::RLIMIT_DATA, self.memory_limit),
                (libc::RLIMIT_FSIZE, self.file_limit),
            ] {
                if let Some(limit) = limit {
                    let rl = libc::rlimit {
                        rlim_cur: limit,
                        rlim_max: limit,
                    };
                    if libc::setrlimit(resource, &rl) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
            }
            if confined && libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if self.drop_capabilities {
                capabilities::drop_all()?;
            }
            if let Some(fd) = self.ruleset {
                let proc_self = libc::open(
                    c"/proc/self".as_ptr(),
                    libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY,
                );
                if proc_self >= 0 {
                    #[repr(C, packed)]
                    struct PathBeneathAttr {
                        allowed_access: u64,
                        parent_fd: i32,
                    }
                    // LANDLOCK_ACCESS_FS_EXECUTE | READ_FILE | READ_DIR.
                    let attr = PathBeneathAttr {
                        allowed_access: 1 | 4 | 8,
                        parent_fd: proc_self,
                    };
                    // LANDLOCK_RULE_PATH_BENEATH = 1; a failure only leaves /proc/self unreadable.
                    libc::syscall(
                        libc::SYS_landlock_add_rule,
                        fd,
                        1u32,
                        &attr as *const PathBeneathAttr,
                        0u32,
                    );
                    libc::close(proc_self);
                }
                if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(fd);
            }
            for program in self.seccomp.iter().flatten() {
                seccompiler::apply_filter(program).map_err(|_| std::io::Error::last_os_error())?;
            }
        }
        Ok(())
    }
}
