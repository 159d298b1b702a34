//! Helpers shared by the integration tests: scratch trees, plugin grants,
//! skip notices that stay visible, fixtures. Each test crate uses a part.
#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `--plugin-allow-read` grants for a helm installed outside the system
/// paths (plugins, and the builtin's helm, run confined): its prefix (the
/// directory above its `bin/`), and for `.ci/install-helm.sh`'s front end
/// the prefix of the Python its virtualenv was made from.
pub fn helm_reads(helm: &Path) -> Vec<String> {
    let prefix = |p: &Path| {
        p.canonicalize()
            .ok()
            .and_then(|p| p.parent()?.parent().map(Path::to_path_buf))
    };
    let mut dirs: Vec<PathBuf> = prefix(helm).into_iter().collect();
    if let Some(p) = dirs.first().map(|d| d.join("venv/bin/python")) {
        dirs.extend(prefix(&p));
    }
    dirs.iter()
        .flat_map(|d| ["--plugin-allow-read".to_string(), d.display().to_string()])
        .collect()
}

/// A scratch tree with its own `$XDG_CONFIG_HOME` and `$HOME`.
pub struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        let env = Env {
            dir: tempfile::tempdir().expect("temp dir"),
        };
        std::fs::create_dir_all(env.home()).expect("home");
        std::fs::create_dir_all(env.xdg()).expect("xdg");
        env
    }
    pub fn root(&self) -> &Path {
        self.dir.path()
    }
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }
    pub fn xdg(&self) -> PathBuf {
        self.root().join("xdg")
    }
    /// Write a file under the scratch root (parents created).
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
        p
    }
    /// Write an executable file under the scratch root.
    pub fn exe(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.write(rel, text);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        p
    }
    /// A KEP plugin for `group`.
    pub fn kep(&self, group: &str, text: &str) -> PathBuf {
        self.exe(&format!("xdg/kustomize/plugins/{group}"), text)
    }
    /// A legacy plugin under `$XDG_CONFIG_HOME/kustomize/plugin`.
    pub fn legacy(&self, group_version: &str, kind: &str, text: &str) -> PathBuf {
        self.exe(
            &format!(
                "xdg/kustomize/plugin/{group_version}/{}/{kind}",
                kind.to_lowercase()
            ),
            text,
        )
    }
    pub fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.env("XDG_CONFIG_HOME", self.xdg())
            .env("HOME", self.home())
            .env_remove("KUSTOMIZE_PLUGIN_HOME")
            .current_dir(self.root());
        c
    }
    pub fn kustom(&self, args: &[&str]) -> Output {
        self.command(Path::new(env!("CARGO_BIN_EXE_kustom")))
            .args(args)
            .output()
            .expect("run kustom")
    }
    /// `kubectl kustomize`, when kubectl is installed.
    pub fn kubectl(&self, args: &[&str]) -> Option<Output> {
        let mut c = self.command(Path::new("kubectl"));
        c.arg("kustomize").args(args);
        c.output().ok()
    }
}

/// The build's STDOUT; fails the test unless it succeeded.
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "expected success, got {:?}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr).into_owned()
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The build's STDERR; fails the test unless it failed without output.
pub fn fails(o: &Output) -> String {
    assert!(
        !o.status.success(),
        "expected failure, got output:\n{}",
        String::from_utf8_lossy(&o.stdout).into_owned()
    );
    assert!(
        o.stdout.is_empty(),
        "a failed build printed output:\n{}",
        String::from_utf8_lossy(&o.stdout).into_owned()
    );
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Call `left` every `step` until it returns nothing; fail with `what` and
/// what is left if that takes longer than five seconds.
#[allow(dead_code)] // not every test crate waits
pub fn wait_until_none<T: std::fmt::Debug>(
    what: &str,
    step: std::time::Duration,
    mut left: impl FnMut() -> Vec<T>,
) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let now_left = left();
        if now_left.is_empty() {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{what}: {now_left:?}");
        std::thread::sleep(step);
    }
}

/// Say that part of a test was skipped and why. Written to the process's
/// STDERR directly rather than with `eprintln!`, which the test harness
/// captures and hides for passing tests: a skipped check must show in
/// `cargo test`'s output.
pub fn skip(message: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {message}");
}

/// A Deployment `web` (two containers: nginx:1.25 and redis) for edit tests.
#[allow(dead_code)] // not every test crate uses the fixtures
pub const DEPLOY: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.25
      - name: cache
        image: redis
";

/// A Service `web` selecting `app: web`.
#[allow(dead_code)]
pub const SVC: &str = "apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
";

/// A strategic-merge patch that sets the `web` Deployment's replicas to 5.
#[allow(dead_code)]
pub const REPLICAS_PATCH: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 5
";

/// The helm the tests use: `$KUSTOM_TEST_HELM`, the one `.ci/install-helm.sh`
/// installed (under `$KUSTOM_HELM_PREFIX`, default `~/.cache/kustom/helm`),
/// or `helm` on `PATH`; None (with a `SKIPPED:` line) when there is none.
#[allow(dead_code)] // not every test crate runs helm
pub fn helm_or_skip() -> Option<PathBuf> {
    let found = std::env::var_os("KUSTOM_TEST_HELM")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("KUSTOM_HELM_PREFIX")
                .map(PathBuf::from)
                .or_else(|| {
                    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kustom/helm"))
                })
                .map(|p| p.join("bin/helm"))
                .filter(|p| p.is_file())
        })
        .or_else(|| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .map(|d| d.join("helm"))
                .find(|p| p.is_file())
        });
    if found.is_none() {
        skip("no helm found: run .ci/install-helm.sh (or set KUSTOM_TEST_HELM)");
    }
    found
}

/// `git ARGS` in `dir` with a fixed identity; its STDOUT. Panics when git fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .output()
        .expect("git");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}
