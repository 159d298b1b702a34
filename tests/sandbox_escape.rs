//! A confined plugin tried as an attacker would (issue 16): every probe of
//! every class must be denied, for each protocol, as root and as an
//! unprivileged user (`nobody`, through `setpriv`; skipped visibly where
//! that is impossible), and nothing may be left running or in the
//! temporary directory afterwards — also when kustom itself is killed.
//!
//! The probe is a Python plugin (`#!/usr/bin/env python3`, so with this
//! machine's `PATH` it is pyenv's interpreter for root) that makes the
//! system calls through `ctypes` and prints one `name: OK|DENIED` line per
//! attempt. `OK` means the escape worked.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::Env;

fn landlock_available() -> bool {
    // SAFETY: the version query reads and writes no memory.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32,
        )
    };
    if abi < 1 {
        support::skip("no Landlock: kustom refuses third-party plugins here, nothing to probe");
        return false;
    }
    true
}

const PROBE: &str = r##"#!/usr/bin/env python3
import ctypes, os, sys, errno, mmap, socket, subprocess, shutil, stat
PROTOCOL = os.environ.get("PROBE_PROTOCOL", "kep")
if PROTOCOL == "kep" and sys.argv[1:2] != ["generate"]:
    sys.exit(127)
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
VICTIM = int(os.environ["VICTIM_PID"])
TREE_FILE = os.path.abspath("data.txt")
SECRET = os.environ["PROBE_SECRET"]
TMP = os.environ["TMPDIR"]
results = []

def attempt(name, fn):
    try:
        ok = fn()
    except Exception:
        ok = False
    results.append((name, "OK" if ok else "DENIED"))

def sc(nr, *args):
    return libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args]) >= 0

class RLimit(ctypes.Structure):
    _fields_ = [("cur", ctypes.c_ulong), ("max", ctypes.c_ulong)]

# 1. other processes: limits, priority, scheduling, CPUs, I/O class, signals, memory
def prlimit_other():
    new = RLimit(4, 4)
    return libc.prlimit(VICTIM, 7, ctypes.byref(new), None) == 0
attempt("prlimit_other", prlimit_other)
attempt("prlimit_parent", lambda: libc.prlimit(os.getppid(), 7, ctypes.byref(RLimit(4, 4)), None) == 0)
attempt("setpriority_other", lambda: libc.setpriority(0, VICTIM, 19) == 0)
attempt("sched_setaffinity_other", lambda: libc.sched_setaffinity(VICTIM, 8, ctypes.byref(ctypes.c_ulong(1))) == 0)
attempt("sched_setscheduler_other", lambda: libc.sched_setscheduler(VICTIM, 3, ctypes.byref(ctypes.c_int(0))) == 0)
attempt("ioprio_set_other", lambda: sc(251, 1, VICTIM, 3 << 13))
attempt("signal_other", lambda: os.kill(VICTIM, 18) is None)
attempt("signal_parent", lambda: os.kill(os.getppid(), 18) is None)
attempt("ptrace_attach", lambda: sc(101, 16, VICTIM, 0, 0))
attempt("proc_other_environ", lambda: len(open("/proc/%d/environ" % VICTIM, "rb").read()) >= 0)
attempt("proc_1_status", lambda: len(open("/proc/1/status").read()) > 0)
def vm_read():
    buf = ctypes.create_string_buffer(8)
    class IoVec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
    local = IoVec(ctypes.cast(buf, ctypes.c_void_p), 8)
    remote = IoVec(0x400000, 8)
    return libc.process_vm_readv(VICTIM, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) >= 0
attempt("process_vm_readv", vm_read)

# 2. metadata outside the write grant
attempt("chmod_tree", lambda: os.chmod(TREE_FILE, 0o777) is None)
attempt("chmod_secret", lambda: os.chmod(SECRET, 0o644) is None)
attempt("chown_tree", lambda: os.chown(TREE_FILE, os.getuid(), os.getgid()) is None)
attempt("utime_tree", lambda: os.utime(TREE_FILE, (0, 0)) is None)
attempt("setxattr_tree", lambda: os.setxattr(TREE_FILE, "user.probe", b"1") is None)
def fchmod_tree():
    fd = os.open(TREE_FILE, os.O_RDONLY)
    try:
        os.fchmod(fd, 0o777)
        return True
    finally:
        os.close(fd)
attempt("fchmod_tree", fchmod_tree)
attempt("write_tree", lambda: open(TREE_FILE, "a").write("x") >= 0)
attempt("read_secret", lambda: len(open(SECRET).read()) >= 0)
attempt("read_etc_shadow", lambda: len(open("/etc/shadow").read()) >= 0)

# 3. set-uid files, and the private directory's privacy
def suid_chmod():
    p = os.path.join(TMP, "suid")
    shutil.copyfile("/bin/true", p)
    os.chmod(p, 0o4755)
    return bool(os.stat(p).st_mode & stat.S_ISUID)
attempt("setuid_chmod", suid_chmod)
def suid_open():
    p = os.path.join(TMP, "suid2")
    fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o6755)
    os.close(fd)
    return bool(os.stat(p).st_mode & (stat.S_ISUID | stat.S_ISGID))
attempt("setuid_open", suid_open)
attempt("tmpdir_shared", lambda: (os.stat(TMP).st_mode & 0o077) != 0 or (os.stat(os.path.dirname(TMP)).st_mode & 0o077) != 0)

# 4. the kernel keyring
attempt("keyctl_read", lambda: sc(250, 0, (-4) & 0xffffffffffffffff, 0))
attempt("add_key", lambda: libc.syscall(248, b"user", b"probe", b"x", 1, ctypes.c_long(-4)) >= 0)

# 5. perf and bpf, capabilities
attempt("perf_event_open", lambda: sc(298, 0, VICTIM, -1 & 0xffffffff, -1 & 0xffffffffffffffff, 0) or sc(298, 0, 0, -1 & 0xffffffff, -1 & 0xffffffffffffffff, 0))
attempt("bpf_map_create", lambda: sc(321, 0, 0, 0))
def caps():
    for line in open("/proc/self/status"):
        if line.startswith(("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")) and int(line.split()[1], 16) != 0:
            return True
    return False
attempt("capabilities", caps)
attempt("unshare_user", lambda: sc(272, 0x10000000))
attempt("unshare_mount", lambda: sc(272, 0x20000))

# 6. memory beyond the limit (256 MiB in this test)
SIZE = 400 << 20
def shared_anon():
    m = mmap.mmap(-1, SIZE, flags=mmap.MAP_SHARED)
    for i in range(0, SIZE, 4096):
        m[i] = 1
    return True
attempt("mmap_shared_anon", shared_anon)
def memfd():
    fd = os.memfd_create("probe")
    os.ftruncate(fd, SIZE)
    m = mmap.mmap(fd, SIZE)
    for i in range(0, SIZE, 4096):
        m[i] = 1
    return True
attempt("memfd", memfd)
attempt("shmget", lambda: libc.shmget(0, SIZE, 0o1600) >= 0)
def private_alloc():
    b = bytearray(SIZE)
    return len(b) == SIZE
attempt("private_alloc", private_alloc)
def tmpfile_big():
    with open(os.path.join(TMP, "big"), "wb") as f:
        chunk = b"x" * (1 << 20)
        for _ in range(SIZE >> 20):
            f.write(chunk)
    return True
attempt("tmpdir_fill", tmpfile_big)
try:
    os.unlink(os.path.join(TMP, "big"))
except OSError:
    pass

# earlier areas: sockets
attempt("socket_inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM) is not None)
attempt("socket_unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) is not None)
attempt("socket_netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0) is not None)

# what an honest plugin does must still work
def honest():
    p = os.path.join(TMP, "script")
    with open(p, "w") as f:
        f.write("#!/bin/sh\necho hi\n")
    os.chmod(p, 0o755)
    os.utime(p, None)
    os.mkfifo(os.path.join(TMP, "fifo"))
    return subprocess.run([p], capture_output=True).stdout == b"hi\n" and open("data.txt").read().startswith("tree")
attempt("honest_work", honest)

print("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata:")
for name, verdict in results:
    print("  %s: %s" % (name, verdict))
"##;

/// A process of the same user for the probe to attack.
fn victim(as_nobody: bool) -> Child {
    let mut c = if as_nobody {
        let mut c = Command::new("setpriv");
        c.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "sleep",
            "300",
        ]);
        c
    } else {
        let mut c = Command::new("sleep");
        c.arg("300");
        c
    };
    c.stdout(Stdio::null()).spawn().expect("victim")
}

fn chown_tree(p: &Path) {
    let status = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(p)
        .status()
        .expect("chown");
    assert!(status.success());
}

/// Whether this test can run kustom as `nobody`.
fn nobody_possible() -> bool {
    // SAFETY: geteuid takes nothing.
    if unsafe { libc::geteuid() } != 0 {
        support::skip("not root: cannot switch to nobody for the unprivileged probes");
        return false;
    }
    let ok = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "test",
            "-x",
        ])
        .arg(env!("CARGO_BIN_EXE_kustom"))
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        support::skip(
            "setpriv missing, or nobody cannot run the kustom binary: unprivileged probes not run",
        );
    }
    ok
}

struct Run {
    env: Env,
    tmp: PathBuf,
    args: Vec<String>,
    as_nobody: bool,
}

#[derive(Clone, Copy, Debug)]
enum Protocol {
    Kep,
    Legacy,
    Krm,
}

fn setup(protocol: Protocol, as_nobody: bool) -> Run {
    let env = Env::new();
    env.write("home/.ssh/id_rsa", "PRIVATE KEY\n");
    std::fs::set_permissions(
        env.home().join(".ssh/id_rsa"),
        std::fs::Permissions::from_mode(0o600),
    )
    .expect("chmod");
    env.write("tree/data.txt", "tree-data\n");
    let tmp = env.root().join("kustom-tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let config = "apiVersion: probe.example.com/v1\nkind: Probe\nmetadata:\n  name: probe-config\n";
    let mut args = vec![
        "build".to_string(),
        "--enable-alpha-plugins".to_string(),
        "--plugin-memory-limit".to_string(),
        "256M".to_string(),
    ];
    match protocol {
        Protocol::Kep => {
            env.kep("probe.example.com", PROBE);
            env.write("tree/probe.yaml", config);
        }
        Protocol::Legacy => {
            env.legacy("probe.example.com/v1", "Probe", PROBE);
            env.write("tree/probe.yaml", config);
        }
        Protocol::Krm => {
            env.exe("tree/probe.py", PROBE);
            env.write(
                "tree/probe.yaml",
                &format!("{}  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./probe.py\n", config),
            );
            args.push("--enable-exec".to_string());
        }
    }
    env.write("tree/kustomization.yaml", "generators:\n- probe.yaml\n");
    args.push("tree".to_string());
    if as_nobody {
        std::fs::set_permissions(env.root(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        chown_tree(env.root());
    }
    Run {
        env,
        tmp,
        args,
        as_nobody,
    }
}

impl Run {
    fn command(&self, protocol: Protocol, victim: u32) -> Command {
        let kustom = Path::new(env!("CARGO_BIN_EXE_kustom"));
        let mut c = if self.as_nobody {
            let mut c = self.env.command(Path::new("setpriv"));
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(kustom);
            // pyenv lives under /root, which nobody cannot enter.
            c.env("PATH", "/usr/local/bin:/usr/bin:/bin");
            c
        } else {
            self.env.command(kustom)
        };
        c.args(&self.args)
            .env("TMPDIR", &self.tmp)
            .env("VICTIM_PID", victim.to_string())
            .env("PROBE_SECRET", self.env.home().join(".ssh/id_rsa"))
            .env(
                "PROBE_PROTOCOL",
                match protocol {
                    Protocol::Kep => "kep",
                    Protocol::Legacy => "legacy",
                    Protocol::Krm => "krm",
                },
            );
        c
    }

    /// The temporary directory kustom was given holds nothing.
    fn assert_tmp_empty(&self) {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let left: Vec<_> = std::fs::read_dir(&self.tmp)
                .expect("tmp")
                .flatten()
                .map(|e| e.path())
                .collect();
            if left.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "left in the temporary directory: {left:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn verdicts(out: &Output) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "build failed: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .filter_map(|l| l.trim().split_once(": "))
        .filter(|(_, v)| *v == "OK" || *v == "DENIED")
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn probe_all(protocol: Protocol, as_nobody: bool) {
    let run = setup(protocol, as_nobody);
    let mut victim = victim(as_nobody);
    let before = std::fs::metadata(run.env.root().join("tree/data.txt")).expect("meta");
    let out = run
        .command(protocol, victim.id())
        .output()
        .expect("run kustom");
    let v = verdicts(&out);
    assert!(v.len() >= 40, "too few verdicts: {v:?}");
    let escaped: Vec<&String> = v
        .iter()
        .filter(|(k, verdict)| (k == "honest_work") != (verdict == "OK"))
        .map(|(k, _)| k)
        .collect();
    assert!(
        escaped.is_empty(),
        "{protocol:?} (as {}): escaped or broken: {escaped:?}\n{v:?}",
        if as_nobody { "nobody" } else { "root" }
    );
    // The victim is untouched and alive; the tree file's mode too.
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", victim.id())).expect("limits");
    assert!(
        !limits
            .lines()
            .any(|l| l.starts_with("Max open files") && l.split_whitespace().nth(3) == Some("4")),
        "{limits}"
    );
    let after = std::fs::metadata(run.env.root().join("tree/data.txt")).expect("meta");
    assert_eq!(before.permissions(), after.permissions());
    let _ = victim.kill();
    let _ = victim.wait();
    run.assert_tmp_empty();
}

#[test]
fn every_probe_is_denied_as_root() {
    if !landlock_available() {
        return;
    }
    for p in [Protocol::Kep, Protocol::Legacy, Protocol::Krm] {
        probe_all(p, false);
    }
}

#[test]
fn every_probe_is_denied_as_nobody() {
    if !landlock_available() || !nobody_possible() {
        return;
    }
    for p in [Protocol::Kep, Protocol::Legacy, Protocol::Krm] {
        probe_all(p, true);
    }
}

/// Processes whose command line holds `marker`.
fn running_with(marker: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .expect("proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
            !zombie && String::from_utf8_lossy(&cmd).contains(marker)
        })
        .collect()
}

/// A plugin that daemonises (double fork, setsid) and hangs; kustom is
/// killed with `signal` while it runs. Nothing may survive, and the
/// private directory must be gone.
fn killed_with(signal: i32, as_nobody: bool) {
    let env = Env::new();
    let marker = format!("31{}{}", std::process::id(), signal);
    env.kep(
        "hang.example.com",
        &format!(
            "#!/bin/sh\n[ \"$1\" = generate ] || exit 127\n( setsid sleep 3{marker} >/dev/null 2>&1 </dev/null & )\nsleep 3{marker}\n"
        ),
    );
    env.write(
        "tree/gen.yaml",
        "apiVersion: hang.example.com/v1\nkind: H\nmetadata:\n  name: h\n",
    );
    env.write("tree/kustomization.yaml", "generators:\n- gen.yaml\n");
    let tmp = env.root().join("kustom-tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    if as_nobody {
        std::fs::set_permissions(env.root(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        chown_tree(env.root());
    }
    let kustom = Path::new(env!("CARGO_BIN_EXE_kustom"));
    let mut c = if as_nobody {
        let mut c = env.command(Path::new("setpriv"));
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(kustom);
        c
    } else {
        env.command(kustom)
    };
    let mut child = c
        .args(["build", "--enable-alpha-plugins", "tree"])
        .env("TMPDIR", &tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("kustom");
    let deadline = Instant::now() + Duration::from_secs(20);
    while running_with(&marker).len() < 2 {
        assert!(
            Instant::now() < deadline,
            "the plugin never started its daemon"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: signalling our own child (setpriv execs kustom in place).
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let _ = child.wait();
    support::wait_until_none(
        &format!("signal {signal}: processes survived kustom"),
        Duration::from_millis(50),
        || running_with(&marker),
    );
    support::wait_until_none(
        &format!("signal {signal}: left in TMPDIR"),
        Duration::from_millis(50),
        || {
            std::fs::read_dir(&tmp)
                .expect("tmp")
                .flatten()
                .map(|e| e.path())
                .collect()
        },
    );
}

#[test]
fn nothing_outlives_kustom_killed_as_root() {
    if !landlock_available() {
        return;
    }
    for sig in [libc::SIGKILL, libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        killed_with(sig, false);
    }
}

#[test]
fn nothing_outlives_kustom_killed_as_nobody() {
    if !landlock_available() || !nobody_possible() {
        return;
    }
    for sig in [libc::SIGKILL, libc::SIGTERM] {
        killed_with(sig, true);
    }
}

/// A plugin that leaves a daemon behind (as sops leaves gpg-agent): the
/// daemon is killed, a warning says so, and the build keeps the output.
#[test]
fn a_daemon_left_behind_is_killed_and_the_build_succeeds() {
    if !landlock_available() {
        return;
    }
    let env = Env::new();
    let marker = format!("32{}", std::process::id());
    env.kep(
        "agent.example.com",
        &format!(
            "#!/bin/sh\n[ \"$1\" = generate ] || exit 127\n( setsid sleep 3{marker} >/dev/null 2>&1 </dev/null & )\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: made\\n'\n"
        ),
    );
    env.write(
        "tree/gen.yaml",
        "apiVersion: agent.example.com/v1\nkind: A\nmetadata:\n  name: a\n",
    );
    env.write("tree/kustomization.yaml", "generators:\n- gen.yaml\n");
    let out = env.kustom(&["build", "--enable-alpha-plugins", "tree"]);
    let stdout = support::ok(&out);
    assert!(stdout.contains("name: made"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("left 1 process(es) running"), "{stderr}");
    assert!(running_with(&marker).is_empty());
}
