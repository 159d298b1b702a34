//! The image of the top-level `Containerfile`, built as its contract says
//! (`podman build --build-arg BASE=<image> -f Containerfile .` from the top
//! of the repository, after `cargo build --release`) on a base made from
//! Debian's packages (`mmdebstrap --variant=minbase
//! --include=git,ca-certificates`, then `podman import`: no registry is
//! reachable). kustom runs in it as the image's user (uid 999) on a
//! read-only root with a tmpfs /tmp, on mounted trees, and its output is
//! compared byte for byte with `kubectl kustomize` on the host.
//!
//! The base tarball (about 90 s to make, 230 MB) is kept under
//! `target/tmp/container-image/`, named by what goes into it, and imported
//! once into the tests' own podman store. Without podman, mmdebstrap or a
//! reachable Debian mirror the test prints `SKIPPED:` and passes; without
//! kubectl it still checks that kustom runs and compares with nothing.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::skip;

/// Packages of the base, and the Debian suite.
const SUITE: &str = "bookworm";
const PACKAGES: &str = "git,ca-certificates";

/// podman with the tests' configuration (runc, low default ulimits:
/// ENVIRONMENT.md "Containers") and an image store of their own.
struct Podman {
    dir: PathBuf,
}

impl Podman {
    fn new(dir: &Path) -> Result<Podman, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        std::fs::write(
            dir.join("containers.conf"),
            "[containers]\ndefault_ulimits = [\"nofile=1024:1024\", \"nproc=4096:4096\"]\n[engine]\nruntime = \"runc\"\n",
        )
        .map_err(|e| e.to_string())?;
        // A short store path: conmon's socket addresses must fit 108 bytes.
        let store = std::env::temp_dir().join("kustom-ci-image");
        std::fs::write(
            dir.join("storage.conf"),
            format!(
                "[storage]\ndriver = \"overlay\"\ngraphroot = \"{}\"\nrunroot = \"{}\"\n",
                store.join("graph").display(),
                store.join("run").display()
            ),
        )
        .map_err(|e| e.to_string())?;
        Ok(Podman {
            dir: dir.to_path_buf(),
        })
    }
    fn command(&self) -> Command {
        let mut c = Command::new("podman");
        c.env("CONTAINERS_CONF", self.dir.join("containers.conf"))
            .env("CONTAINERS_STORAGE_CONF", self.dir.join("storage.conf"))
            .stdin(Stdio::null());
        c
    }
    fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("run podman")
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim().to_string()
}

/// The Debian mirror of the host's apt sources (mmdebstrap reads its
/// sources from STDIN unless given one), else deb.debian.org.
fn mirror() -> String {
    let mut files = vec![PathBuf::from("/etc/apt/sources.list")];
    if let Ok(dir) = std::fs::read_dir("/etc/apt/sources.list.d") {
        let mut more: Vec<PathBuf> = dir.flatten().map(|e| e.path()).collect();
        more.sort();
        files.extend(more);
    }
    for f in files {
        let Ok(t) = std::fs::read_to_string(&f) else {
            continue;
        };
        for line in t.lines().map(str::trim) {
            let uri = if let Some(rest) = line.strip_prefix("URIs:") {
                rest.split_whitespace().next()
            } else if let Some(rest) = line.strip_prefix("deb ") {
                rest.split_whitespace().find(|w| w.contains("://"))
            } else {
                None
            };
            if let Some(u) = uri.filter(|u| u.trim_end_matches('/').ends_with("/debian")) {
                return u.to_string();
            }
        }
    }
    "http://deb.debian.org/debian".to_string()
}

/// The base image's name, made and imported when missing.
fn base_image(podman: &Podman, dir: &Path) -> Result<String, String> {
    let mirror = mirror();
    let key = format!("{SUITE} {PACKAGES} {mirror}")
        .bytes()
        .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
    let image = format!("localhost/kustom-test-base:{SUITE}-{key:08x}");
    if podman.run(&["image", "exists", &image]).status.success() {
        return Ok(image);
    }
    let tar = dir.join(format!("base-{SUITE}-{key:08x}.tar"));
    if !tar.is_file() {
        which::which("mmdebstrap")
            .map_err(|_| "no mmdebstrap to make a base image (.ci/run installs it)")?;
        let partial = tar.with_extension("partial.tar");
        let out = Command::new("mmdebstrap")
            .args(["--variant=minbase", &format!("--include={PACKAGES}"), SUITE])
            .arg(&partial)
            .arg(&mirror)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("mmdebstrap: {e}"))?;
        if !out.status.success() {
            let _ = std::fs::remove_file(&partial);
            let err = text(&out.stderr);
            let tail: Vec<&str> = err.lines().rev().take(5).collect();
            return Err(format!(
                "mmdebstrap could not make a base from {mirror}: {}",
                tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
            ));
        }
        std::fs::rename(&partial, &tar).map_err(|e| e.to_string())?;
    }
    let out = podman.run(&["import", "-q", &tar.display().to_string(), &image]);
    if !out.status.success() {
        return Err(format!("podman import failed: {}", text(&out.stderr)));
    }
    Ok(image)
}

/// The directory `podman build` runs in, holding `target/release/kustom`:
/// the repository's top when the tests' kustom is that file (the contract
/// as written), else a copy of the layout around the tests' executable.
fn context(dir: &Path) -> PathBuf {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ours = Path::new(env!("CARGO_BIN_EXE_kustom"));
    let release = top.join("target/release/kustom");
    if release.canonicalize().ok() == ours.canonicalize().ok() {
        return top.to_path_buf();
    }
    let ctx = dir.join("context");
    std::fs::create_dir_all(ctx.join("target/release")).expect("context dir");
    std::fs::copy(top.join(".containerignore"), ctx.join(".containerignore"))
        .expect(".containerignore");
    std::fs::copy(ours, ctx.join("target/release/kustom")).expect("copy kustom");
    ctx
}

/// A base-and-overlay tree shaped like a real application's: generators,
/// a component, strategic-merge and JSON patches, images, replicas,
/// labels, a namespace and a name prefix.
fn write_app(root: &Path) {
    let files: &[(&str, &str)] = &[
        (
            "base/kustomization.yaml",
            "resources:\n- deployment.yaml\n- service.yaml\nconfigMapGenerator:\n- name: web-config\n  files:\n  - app.properties\n  literals:\n  - LOG_LEVEL=info\nsecretGenerator:\n- name: web-secret\n  literals:\n  - password=s3cr3t\nlabels:\n- pairs:\n    app.kubernetes.io/name: web\n  includeSelectors: true\n",
        ),
        (
            "base/deployment.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: web-config\n        - secretRef:\n            name: web-secret\n        ports:\n        - containerPort: 80\n",
        ),
        (
            "base/service.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n    targetPort: 80\n",
        ),
        ("base/app.properties", "greeting=hello\nworkers=4\n"),
        (
            "components/monitoring/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- monitor.yaml\npatches:\n- target:\n    kind: Deployment\n  patch: |-\n    - op: add\n      path: /spec/template/metadata/annotations\n      value:\n        prometheus.io/scrape: \"true\"\n",
        ),
        (
            "components/monitoring/monitor.yaml",
            "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: web\n  endpoints:\n  - port: http\n",
        ),
        (
            "overlays/prod/kustomization.yaml",
            "namespace: prod\nnamePrefix: prod-\nresources:\n- ../../base\ncomponents:\n- ../../components/monitoring\nimages:\n- name: nginx\n  newName: registry.example.com/nginx\n  newTag: \"1.27\"\nreplicas:\n- name: web\n  count: 3\ncommonAnnotations:\n  team: web\npatches:\n- path: resources.yaml\nconfigMapGenerator:\n- name: web-config\n  behavior: merge\n  literals:\n  - LOG_LEVEL=warn\n",
        ),
        (
            "overlays/prod/resources.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        resources:\n          limits:\n            memory: 256Mi\n",
        ),
    ];
    for (rel, body) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, body).expect("write");
    }
}

/// Run `git` in `dir`; fail the test unless it succeeds.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

/// A bare repository `repos/base.git` (tag v1) holding the app's base and
/// component, and an overlay `remote/` that reaches it through a
/// public-looking URL routed to the repository with `insteadOf`.
fn write_remote(root: &Path) {
    let work = root.join("repo-work");
    write_app(&work);
    std::fs::remove_dir_all(work.join("overlays")).expect("rm overlays");
    git(&work, &["init", "-q", "-b", "main"]);
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "base"]);
    git(&work, &["tag", "v1"]);
    git(
        root,
        &["clone", "-q", "--bare", "repo-work", "repos/base.git"],
    );
    std::fs::remove_dir_all(&work).expect("rm work tree");
    // The repository is the test's user's and the build runs as uid 999:
    // git trusts it only through a global (not a command-line) setting.
    std::fs::write(root.join("repos/gitconfig"), "[safe]\n\tdirectory = *\n")
        .expect("write gitconfig");
    let overlay = root.join("remote");
    std::fs::create_dir_all(&overlay).expect("mkdir");
    std::fs::write(
        overlay.join("kustomization.yaml"),
        format!("namespace: staging\nresources:\n- {REMOTE}//base?ref=v1\ncomponents:\n- {REMOTE}//components/monitoring?ref=v1\n"),
    )
    .expect("write");
}

/// The URL the remote overlay names (routed to `repos/base.git`).
const REMOTE: &str = "https://github.com/kustom-image-test/base";

/// git configuration through the environment routing [`REMOTE`] to the
/// bare repository under `repos` (in the container or on the host).
fn routing(repos: &str) -> Vec<(String, String)> {
    vec![
        ("GIT_CONFIG_COUNT".into(), "1".into()),
        (
            "GIT_CONFIG_KEY_0".into(),
            format!("url.file://{repos}/base.git.insteadOf"),
        ),
        ("GIT_CONFIG_VALUE_0".into(), REMOTE.into()),
    ]
}

#[test]
fn image_builds_and_runs_kustom_as_uid_999_on_a_read_only_root() {
    if !cfg!(target_os = "linux") {
        skip("container image test: Linux only");
        return;
    }
    if which::which("podman").is_err() {
        skip("container image test: no podman on PATH (.ci/run installs it)");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("container-image");
    let podman = Podman::new(&dir).expect("podman configuration");
    let base = match base_image(&podman, &dir) {
        Ok(b) => b,
        Err(why) => {
            skip(&format!("container image test: {why}"));
            return;
        }
    };
    let probe = podman.run(&["run", "--rm", "--network", "none", &base, "true"]);
    if !probe.status.success() {
        skip(&format!(
            "container image test: podman cannot run a container here: {}",
            text(&probe.stderr)
        ));
        return;
    }

    // The contract: from the top of the repository, -f Containerfile .
    let ctx = context(&dir);
    let image = "localhost/kustom-test-image:latest";
    let out = podman
        .command()
        .current_dir(&ctx)
        .args(["build", "-q", "--build-arg"])
        .arg(format!("BASE={base}"))
        .args(["-t", image, "-f"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Containerfile"))
        .arg(".")
        .output()
        .expect("podman build");
    assert!(
        out.status.success(),
        "podman build failed: {}",
        text(&out.stderr)
    );
    let user = podman.run(&["image", "inspect", "--format", "{{.Config.User}}", image]);
    assert_eq!(text(&user.stdout), "999:999", "the image's user");

    let trees = tempfile::tempdir().expect("temp dir");
    write_app(trees.path());
    write_remote(trees.path());
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    // (mount, host directory, root inside the mount)
    let cases: Vec<(&str, PathBuf, &str)> = vec![
        ("/src", examples.clone(), "components/overlays/community"),
        ("/src", examples.clone(), "components/overlays/enterprise"),
        ("/src", examples.clone(), "components/overlays/dev"),
        ("/src", trees.path().to_path_buf(), "overlays/prod"),
        ("/src", trees.path().to_path_buf(), "base"),
        ("/src", trees.path().to_path_buf(), "remote"),
    ];
    let host_routing = routing(&trees.path().join("repos").display().to_string());
    let mut compared = 0;
    for (mount, host_dir, root) in &cases {
        // As Argo CD's sidecar runs it: the image's user, a read-only root,
        // a writable /tmp only (its emptyDir), the tree mounted read-only.
        let mut c = podman.command();
        c.args([
            "run",
            "--rm",
            "--read-only",
            "--read-only-tmpfs=false",
            "--tmpfs",
            "/tmp:rw,mode=1777",
            "--network",
            "none",
            "-v",
        ])
        .arg(format!("{}:{mount}:ro", host_dir.display()))
        .arg("-v")
        .arg(format!(
            "{}:/repos:ro",
            trees.path().join("repos").display()
        ));
        for (k, v) in routing("/repos") {
            c.arg("-e").arg(format!("{k}={v}"));
        }
        c.args(["-e", "GIT_CONFIG_GLOBAL=/repos/gitconfig"]);
        let ours = c
            .arg(image)
            .arg("build")
            .arg(format!("{mount}/{root}"))
            .output()
            .expect("podman run");
        assert!(
            ours.status.success(),
            "kustom build {root} in the image failed: {}",
            text(&ours.stderr)
        );
        assert!(!ours.stdout.is_empty(), "{root}: no output");
        let theirs = Command::new("kubectl")
            .arg("kustomize")
            .arg(host_dir.join(root))
            .envs(host_routing.iter().map(|(k, v)| (k, v)))
            .output();
        match theirs {
            Ok(t) if t.status.success() => {
                assert!(
                    ours.stdout == t.stdout,
                    "{root}: the image's kustom differs from kubectl kustomize\n--- kustom\n{}\n--- kubectl\n{}",
                    String::from_utf8_lossy(&ours.stdout),
                    String::from_utf8_lossy(&t.stdout)
                );
                compared += 1;
            }
            Ok(t) => panic!("kubectl kustomize {root} failed: {}", text(&t.stderr)),
            Err(_) => {}
        }
    }
    if compared == 0 {
        skip("container image test: kubectl not installed: outputs not compared with kubectl kustomize");
    }

    // Nothing but /tmp is writable: the root and $HOME refuse a write.
    let out = podman.run(&[
        "run",
        "--rm",
        "--read-only",
        "--entrypoint",
        "sh",
        image,
        "-c",
        "touch /usr/local/bin/x 2>/dev/null && echo root; touch \"$HOME/x\" 2>/dev/null && echo home; for c in kustom kustomize git; do command -v $c; done",
    ]);
    assert_eq!(
        text(&out.stdout),
        "/usr/local/bin/kustom\n/usr/local/bin/kustomize\n/usr/bin/git",
        "{}",
        text(&out.stderr)
    );
}
