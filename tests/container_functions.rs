//! Container KRM functions run for real: images made locally from a busybox
//! root filesystem with `podman import` (no registry), run through podman
//! with a `CONTAINERS_CONF` and image store of the tests' own (runtime
//! `runc`, lower default ulimits: ENVIRONMENT.md, "Containers"), and each
//! scenario compared byte for byte with `kubectl kustomize
//! --enable-alpha-plugins` running the same function through a `docker`
//! shim that execs podman. Without a working podman every test prints
//! `SKIPPED:` and passes; without kubectl the comparison is skipped visibly.

mod support;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use support::{fails, ok, skip, Env};

/// The function scripts, one image each (entrypoint `/bin/<name>`).
const FUNCTIONS: &[(&str, &str)] = &[
    // Identity: the ResourceList back as it came.
    ("identity", "#!/bin/sh\ncat\n"),
    // What the function saw: its STDIN, environment, user and directory.
    (
        "seen",
        r#"#!/bin/sh
in=$(cat; echo x); in=${in%x}
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: seen\ndata:\n'
printf '  user: "%s"\n' "$(id -u):$(id -g)"
printf '  pwd: "%s"\n' "$(pwd)"
printf '  env: |\n'
env | grep -v '^HOSTNAME=' | sort | sed 's/^/    /'
printf '  stdin: |\n'
printf '%s' "$in" | sed 's/^/    /'
"#,
    ),
    // A transformer: images nginx -> nginx:1.27, every item renamed fn-NAME.
    (
        "retag",
        "#!/bin/sh\nsed -e 's/image: nginx$/image: nginx:1.27/' -e 's/^    name: \\(.*\\)$/    name: fn-\\1/'\n",
    ),
    // A generator: a ConfigMap that wants a hash suffix, and a Service.
    (
        "gen",
        r#"#!/bin/sh
cat >/dev/null
cat <<'EOF'
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: generated
    annotations:
      kustomize.config.k8s.io/needs-hash: "true"
  data:
    mode: "on"
- apiVersion: v1
  kind: Service
  metadata:
    name: gen-svc
  spec:
    ports:
    - port: 80
EOF
"#,
    ),
    ("fail", "#!/bin/sh\ncat >/dev/null\necho 'function: something is wrong' >&2\nexit 3\n"),
    ("garbage", "#!/bin/sh\ncat >/dev/null\necho '{{{ this: is: not yaml'\n"),
    // Whether 127.0.0.1:<spec.port> answers (the host's loopback when the
    // network is granted, the container's own otherwise).
    (
        "net",
        r#"#!/bin/sh
port=$(sed -n 's/^    port: //p' | head -1)
if printf 'GET / HTTP/1.0\r\n\r\n' | nc 127.0.0.1 "$port" 2>/dev/null | grep -q 200; then r=reachable; else r=unreachable; fi
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: net\ndata:\n  result: %s\n' "$r"
"#,
    ),
    // Reads /data/in.txt from a mount and tries to write beside it.
    (
        "mount",
        r#"#!/bin/sh
cat >/dev/null
if touch /data/written 2>/dev/null; then w=writable; else w=read-only; fi
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mounted\ndata:\n  content: "%s"\n  access: %s\n' "$(cat /data/in.txt)" "$w"
"#,
    ),
    // Items back unchanged, with an error result and exit 0 (kustomize ignores results).
    (
        "results",
        "#!/bin/sh\ncat\nprintf 'results:\\n- message: found a problem\\n  severity: error\\n'\n",
    ),
];

/// The applets the scripts use.
const APPLETS: &[&str] = &[
    "sh", "cat", "sed", "env", "sort", "id", "pwd", "printf", "grep", "head", "touch", "nc", "echo",
];

/// A working podman with the tests' configuration, and the images built.
struct Runtime {
    /// Directory with containers.conf, storage.conf, the image store and the docker shim.
    dir: PathBuf,
    /// The `docker` shim's directory (put first on kubectl's PATH).
    shim: PathBuf,
    /// Image id of each function.
    ids: std::collections::HashMap<String, String>,
}

impl Runtime {
    fn env(&self, c: &mut Command) {
        c.env("CONTAINERS_CONF", self.dir.join("containers.conf"))
            .env("CONTAINERS_STORAGE_CONF", self.dir.join("storage.conf"));
    }
    fn podman(&self, args: &[&str]) -> Output {
        let mut c = Command::new("podman");
        self.env(&mut c);
        c.args(args).output().expect("run podman")
    }
    fn image(name: &str) -> String {
        format!("localhost/kustom-test/{name}:v1")
    }
}

fn runtime() -> Option<&'static Runtime> {
    static RT: OnceLock<Result<Runtime, String>> = OnceLock::new();
    match RT.get_or_init(setup) {
        Ok(rt) => Some(rt),
        Err(why) => {
            skip(&format!("container function test: {why}"));
            None
        }
    }
}

fn setup() -> Result<Runtime, String> {
    which::which("podman").map_err(|_| "no podman on PATH (.ci/run installs it)".to_string())?;
    let busybox = ["/bin/busybox", "/usr/bin/busybox"]
        .into_iter()
        .map(Path::new)
        .find(|p| p.is_file())
        .ok_or("no busybox (busybox-static) for the images' root filesystem")?;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("container-functions");
    let _ = std::fs::remove_dir_all(dir.join("rootfs"));
    let rootfs = dir.join("rootfs");
    for d in ["bin", "etc", "tmp", "data"] {
        std::fs::create_dir_all(rootfs.join(d)).map_err(|e| e.to_string())?;
    }
    std::fs::copy(busybox, rootfs.join("bin/busybox")).map_err(|e| e.to_string())?;
    for a in APPLETS {
        std::os::unix::fs::symlink("busybox", rootfs.join("bin").join(a))
            .map_err(|e| e.to_string())?;
    }
    use std::os::unix::fs::PermissionsExt;
    for (name, script) in FUNCTIONS {
        let p = rootfs.join("bin").join(name);
        std::fs::write(&p, script).map_err(|e| e.to_string())?;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| e.to_string())?;
    }
    std::fs::set_permissions(rootfs.join("tmp"), std::fs::Permissions::from_mode(0o1777))
        .map_err(|e| e.to_string())?;
    std::fs::write(
        rootfs.join("etc/passwd"),
        "root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n",
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(rootfs.join("etc/group"), "root:x:0:\nnogroup:x:65534:\n")
        .map_err(|e| e.to_string())?;
    std::fs::write(
        dir.join("containers.conf"),
        "[containers]\ndefault_ulimits = [\"nofile=1024:1024\", \"nproc=4096:4096\"]\n[engine]\nruntime = \"runc\"\n",
    )
    .map_err(|e| e.to_string())?;
    // The image store lives at a short path: conmon's sockets under the
    // run root must fit a socket address (108 bytes), or every run waits
    // for conmon's timeout. One store per target directory.
    let key = dir
        .display()
        .to_string()
        .bytes()
        .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
    let store = std::env::temp_dir().join(format!("kustom-ct-{key:08x}"));
    std::fs::write(
        dir.join("storage.conf"),
        format!(
            "[storage]\ndriver = \"overlay\"\ngraphroot = \"{}\"\nrunroot = \"{}\"\n",
            store.join("graph").display(),
            store.join("run").display()
        ),
    )
    .map_err(|e| e.to_string())?;
    let shim = dir.join("shim");
    std::fs::create_dir_all(&shim).map_err(|e| e.to_string())?;
    let docker = shim.join("docker");
    std::fs::write(
        &docker,
        format!(
            "#!/bin/sh\nexport CONTAINERS_CONF='{}' CONTAINERS_STORAGE_CONF='{}'\nexec podman \"$@\"\n",
            dir.join("containers.conf").display(),
            dir.join("storage.conf").display()
        ),
    )
    .map_err(|e| e.to_string())?;
    std::fs::set_permissions(&docker, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| e.to_string())?;
    let mut rt = Runtime {
        dir: dir.clone(),
        shim,
        ids: Default::default(),
    };
    let tar = dir.join("rootfs.tar");
    let st = Command::new("tar")
        .arg("-C")
        .arg(&rootfs)
        .arg("-cf")
        .arg(&tar)
        .arg(".")
        .status()
        .map_err(|e| format!("tar: {e}"))?;
    if !st.success() {
        return Err("tar failed".into());
    }
    for (name, _) in FUNCTIONS {
        let out = rt.podman(&[
            "import",
            "-q",
            "--change",
            &format!("ENTRYPOINT [\"/bin/{name}\"]"),
            &tar.display().to_string(),
            &Runtime::image(name),
        ]);
        if !out.status.success() {
            return Err(format!(
                "podman import failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let id = String::from_utf8_lossy(&out.stdout)
            .trim()
            .trim_start_matches("sha256:")
            .to_string();
        rt.ids.insert(name.to_string(), id);
    }
    // Does a container run at all here?
    let mut c = Command::new("podman");
    rt.env(&mut c);
    let out = c
        .args([
            "run",
            "--rm",
            "-i",
            "--network",
            "none",
            &Runtime::image("identity"),
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "podman cannot run a container here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(rt)
}

/// A function config of `kind` running function `name` (container spec extras in `extra`).
fn fn_config(kind: &str, name: &str, extra: &str, body: &str) -> String {
    format!(
        "apiVersion: fn.example.com/v1\nkind: {kind}\nmetadata:\n  name: {name}\n  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: {}\n{extra}{body}",
        Runtime::image(name)
    )
}

fn kustom(rt: &Runtime, env: &Env, flags: &[&str]) -> Output {
    let mut c = env.command(Path::new(env!("CARGO_BIN_EXE_kustom")));
    rt.env(&mut c);
    c.args([
        "build",
        "--enable-alpha-plugins",
        "--container-runtime",
        "podman",
    ])
    .args(flags)
    .arg("k")
    .output()
    .expect("run kustom")
}

fn kubectl(rt: &Runtime, env: &Env, flags: &[&str]) -> Option<Output> {
    which::which("kubectl").ok()?;
    let mut c = env.command(Path::new("kubectl"));
    let path = format!(
        "{}:{}",
        rt.shim.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    c.env("PATH", path)
        .args(["kustomize", "--enable-alpha-plugins"])
        .args(flags)
        .arg("k");
    Some(c.output().expect("run kubectl"))
}

/// Build `k` with both; both must succeed with the same bytes. Returns kustom's output.
fn same(rt: &Runtime, env: &Env, flags: &[&str]) -> String {
    let mine = ok(&kustom(rt, env, flags));
    match kubectl(rt, env, flags) {
        Some(reference) => {
            let theirs = ok(&reference);
            assert_eq!(mine, theirs, "kustom and kubectl kustomize differ");
        }
        None => skip("kubectl not installed: output not compared with kubectl kustomize"),
    }
    mine
}

/// Both must fail; returns kustom's error.
fn both_fail(rt: &Runtime, env: &Env, flags: &[&str]) -> String {
    let err = fails(&kustom(rt, env, flags));
    match kubectl(rt, env, flags) {
        Some(reference) => assert!(
            !reference.status.success(),
            "kubectl kustomize succeeded where kustom failed:\n{}",
            String::from_utf8_lossy(&reference.stdout)
        ),
        None => skip("kubectl not installed: failure not compared with kubectl kustomize"),
    }
    err
}

const DEPLOY: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    note: \"on\"
spec:
  template:
    spec:
      containers:
      - name: web
        image: nginx
        args: [\"- a\", \"long text that goes on and on past the eightieth column of the line, surely it does\"]
        envFrom:
        - configMapRef:
            name: settings
";

#[test]
fn transformer_changes_resources_like_kustomize() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    env.write(
        "k/kustomization.yaml",
        "resources:\n- deploy.yaml\ntransformers:\n- fn.yaml\n",
    );
    env.write("k/deploy.yaml", DEPLOY);
    env.write("k/fn.yaml", &fn_config("Retag", "retag", "", ""));
    let out = same(rt, &env, &[]);
    assert!(
        out.contains("image: nginx:1.27") && out.contains("name: fn-web"),
        "{out}"
    );
}

#[test]
fn function_sees_kustomizes_resource_list_env_and_user() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    env.write(
        "k/kustomization.yaml",
        "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: settings\n  literals: [a=1]\ntransformers:\n- fn.yaml\n",
    );
    env.write("k/deploy.yaml", DEPLOY);
    env.write(
        "k/fn.yaml",
        &fn_config(
            "Seen",
            "seen",
            "        envs: [FROM_SPEC=1, KUSTOM_TEST_HOST_VAR]\n",
            "spec:\n  on: yes\n  list: [a, \"b c\"]\n",
        ),
    );
    // Inherited by kustom and kubectl, and passed on by `-e KEY`.
    std::env::set_var("KUSTOM_TEST_HOST_VAR", "from-host");
    let out = same(
        rt,
        &env,
        &["-e", "FROM_FLAG=2", "-e", "FROM_SPEC=overridden"],
    );
    for want in [
        "65534:65534",
        "FROM_FLAG=2",
        "FROM_SPEC=overridden",
        "KUSTOM_TEST_HOST_VAR=from-host",
        "LOG_TO_STDERR=true",
        "kind: ResourceList",
        "config.kubernetes.io/local-config: 'true'",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
}

#[test]
fn as_current_user_runs_with_the_callers_ids() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    env.write("k/kustomization.yaml", "generators:\n- fn.yaml\n");
    env.write("k/fn.yaml", &fn_config("Seen", "seen", "", ""));
    let out = same(rt, &env, &["--as-current-user"]);
    // SAFETY: getuid/getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    assert!(out.contains(&format!("{uid}:{gid}")), "{out}");
}

#[test]
fn generator_output_is_hashed_and_merged() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    env.write(
        "k/kustomization.yaml",
        "resources:\n- deploy.yaml\ngenerators:\n- fn.yaml\nnamePrefix: p-\n",
    );
    env.write(
        "k/deploy.yaml",
        &DEPLOY.replace("name: settings", "name: generated"),
    );
    env.write("k/fn.yaml", &fn_config("Gen", "gen", "", "spec: {}\n"));
    let out = same(rt, &env, &[]);
    assert!(
        out.contains("name: p-generated-") && out.contains("name: p-gen-svc"),
        "{out}"
    );
}

#[test]
fn every_function_config_form_kustomize_accepts() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    env.write(
        "k/kustomization.yaml",
        "generators:\n- a.yaml\n- b.yaml\n- c.yaml\n- d.yaml\n",
    );
    let image = Runtime::image("seen");
    env.write(
        "k/a.yaml",
        &format!("apiVersion: fn.example.com/v1\nkind: A\nmetadata:\n  name: a\n  annotations:\n    config.k8s.io/function: |\n      container:\n        image: {image}\n"),
    );
    env.write(
        "k/b.yaml",
        &format!("apiVersion: fn.example.com/v1\nkind: B\nmetadata:\n  name: b\n  configFn:\n    container:\n      image: {image}\n"),
    );
    env.write(
        "k/c.yaml",
        &format!("apiVersion: fn.example.com/v1\nkind: C\nmetadata:\n  name: c\n  annotations:\n    config.kubernetes.io/container: {image}\ndata: {{}}\n"),
    );
    env.write(
        "k/d.yaml",
        &format!("apiVersion: fn.example.com/v1\nkind: D\nmetadata:\n  name: d\n  annotations:\n    config.kubernetes.io/function: 'container: {{image: \"{image}\"}}'\n    x: \"on\"\nspec:\n  n: 1\n"),
    );
    // Four generators writing a ConfigMap of the same name: kustomize
    // refuses the second, and so must kustom. One at a time instead:
    for keep in ["a", "b", "c", "d"] {
        env.write(
            "k/kustomization.yaml",
            &format!("generators:\n- {keep}.yaml\n"),
        );
        let out = same(rt, &env, &[]);
        assert!(out.contains("name: seen"), "{keep}: {out}");
    }
}

#[test]
fn network_is_off_unless_declared_and_granted() {
    let Some(rt) = runtime() else { return };
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for s in listener.incoming().flatten() {
            let mut s = s;
            let mut buf = [0u8; 512];
            let _ = s.read(&mut buf);
            let _ = s.write_all(b"HTTP/1.0 200 OK\r\n\r\nhello\n");
        }
    });
    let env = Env::new();
    env.write("k/kustomization.yaml", "generators:\n- fn.yaml\n");
    let body = format!("spec:\n  port: {port}\n");
    // Not declared: no network, even with --network.
    env.write("k/fn.yaml", &fn_config("Net", "net", "", &body));
    assert!(same(rt, &env, &[]).contains("result: unreachable"));
    assert!(same(rt, &env, &["--network"]).contains("result: unreachable"));
    // Declared but not granted: refused, as kustomize does.
    env.write(
        "k/fn.yaml",
        &fn_config("Net", "net", "        network: true\n", &body),
    );
    let err = both_fail(rt, &env, &[]);
    assert!(err.contains("--network"), "{err}");
    // Declared and granted.
    assert!(same(rt, &env, &["--network"]).contains("result: reachable"));
}

#[test]
fn mounts_are_read_only_unless_rw() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    env.write("k/kustomization.yaml", "generators:\n- fn.yaml\n");
    env.write("k/data/in.txt", "hello from the tree");
    // Writable by the function's user (nobody) where the mount allows it.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        env.root().join("k/data"),
        std::fs::Permissions::from_mode(0o777),
    )
    .expect("chmod");
    let mount = |rw: &str| {
        format!("        mounts:\n        - type: bind\n          src: ./data\n          dst: /data\n{rw}")
    };
    env.write("k/fn.yaml", &fn_config("Mount", "mount", &mount(""), ""));
    let out = same(rt, &env, &[]);
    assert!(
        out.contains("hello from the tree") && out.contains("access: read-only"),
        "{out}"
    );
    assert!(!env.root().join("k/data/written").exists());
    env.write(
        "k/fn.yaml",
        &fn_config("Mount", "mount", &mount("          rw: true\n"), ""),
    );
    let out = same(rt, &env, &[]);
    assert!(out.contains("access: writable"), "{out}");
    // --mount, from the command line.
    std::fs::remove_file(env.root().join("k/data/written")).expect("rm");
    env.write("k/fn.yaml", &fn_config("Mount", "mount", "", ""));
    let out = same(rt, &env, &["--mount", "type=bind,src=./data,dst=/data"]);
    assert!(out.contains("access: read-only"), "{out}");
    // A mount outside the kustomization is refused, as kustomize does.
    env.write(
        "k/fn.yaml",
        &fn_config(
            "Mount",
            "mount",
            &mount("").replace("./data", "./data/../../elsewhere"),
            "",
        ),
    );
    let err = both_fail(rt, &env, &[]);
    assert!(err.contains("not permitted"), "{err}");
}

#[test]
fn failing_and_garbage_writing_functions_fail_the_build() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    env.write(
        "k/kustomization.yaml",
        "resources:\n- deploy.yaml\ntransformers:\n- fn.yaml\n",
    );
    env.write("k/deploy.yaml", DEPLOY);
    env.write("k/fn.yaml", &fn_config("Fail", "fail", "", ""));
    let err = both_fail(rt, &env, &[]);
    assert!(
        err.contains("exit status 3")
            && err.contains("something is wrong")
            && err.contains("kustomization.yaml"),
        "{err}"
    );
    env.write("k/fn.yaml", &fn_config("Garbage", "garbage", "", ""));
    let err = both_fail(rt, &env, &[]);
    assert!(err.contains("not YAML"), "{err}");
}

#[test]
fn error_results_are_reported_but_do_not_change_the_output() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    env.write(
        "k/kustomization.yaml",
        "resources:\n- deploy.yaml\ntransformers:\n- fn.yaml\n",
    );
    env.write("k/deploy.yaml", DEPLOY);
    env.write("k/fn.yaml", &fn_config("Results", "results", "", ""));
    same(rt, &env, &[]);
}

#[test]
fn functions_mix_with_builtins_and_components() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    env.write(
        "k/kustomization.yaml",
        "resources:\n- ../base\nnamespace: prod\ncommonLabels:\n  team: a\nconfigMapGenerator:\n- name: settings\n  literals: [x=1]\ncomponents:\n- ../comp\ntransformers:\n- retag.yaml\n",
    );
    env.write(
        "base/kustomization.yaml",
        "resources:\n- deploy.yaml\nnamePrefix: base-\ntransformers:\n- echo.yaml\n",
    );
    env.write("base/deploy.yaml", DEPLOY);
    env.write("base/echo.yaml", &fn_config("Echo", "identity", "", ""));
    env.write(
        "comp/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ngenerators:\n- gen.yaml\nimages:\n- name: nginx\n  newTag: \"1.26\"\n",
    );
    env.write("comp/gen.yaml", &fn_config("Gen", "gen", "", ""));
    env.write("k/retag.yaml", &fn_config("Retag", "retag", "", ""));
    let out = same(rt, &env, &[]);
    assert!(
        out.contains("namespace: prod") && out.contains("fn-"),
        "{out}"
    );
}

#[test]
fn a_locked_build_refuses_a_retagged_image_and_the_audit_log_names_it() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    // Its own tag, so that retagging it disturbs no other test.
    let image = "localhost/kustom-test/locked:v1";
    let tag = |src: &str| {
        let out = rt.podman(&["tag", &Runtime::image(src), image]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    tag("identity");
    env.write(
        "k/kustomization.yaml",
        "resources:\n- deploy.yaml\ntransformers:\n- fn.yaml\n",
    );
    env.write("k/deploy.yaml", DEPLOY);
    env.write(
        "k/fn.yaml",
        &fn_config("Echo", "identity", "", "").replace(&Runtime::image("identity"), image),
    );
    let mut c = env.command(Path::new(env!("CARGO_BIN_EXE_kustom")));
    rt.env(&mut c);
    let out = c
        .args([
            "lock",
            "--enable-alpha-plugins",
            "--container-runtime",
            "podman",
            "k",
        ])
        .output()
        .expect("kustom lock");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lock = std::fs::read_to_string(env.root().join("k/kustom.lock")).expect("lock");
    let echo_id = &rt.ids["identity"];
    assert!(
        lock.contains(&format!("container {image}")) && lock.contains(echo_id.as_str()),
        "{lock}"
    );
    let audit = env.root().join("audit.jsonl");
    let audit_flag = audit.display().to_string();
    ok(&kustom(rt, &env, &["--locked", "--audit-log", &audit_flag]));
    let log = std::fs::read_to_string(&audit).expect("audit");
    assert!(
        log.contains(&format!(
            "\"image\":{{\"digest\":\"sha256:{echo_id}\",\"name\":\"{image}\"}}"
        )),
        "{log}"
    );
    // Retag: the same name now points at another image.
    tag("retag");
    let err = fails(&kustom(rt, &env, &["--locked"]));
    let retag_id = &rt.ids["retag"];
    assert!(
        err.contains(echo_id.as_str())
            && err.contains(retag_id.as_str())
            && err.contains("retagged"),
        "{err}"
    );
}

#[test]
fn runtime_can_be_chosen_and_a_missing_one_is_named() {
    let Some(rt) = runtime() else { return };
    let env = Env::new();
    env.write("k/kustomization.yaml", "generators:\n- fn.yaml\n");
    env.write("k/fn.yaml", &fn_config("Gen", "gen", "", ""));
    let mut c = env.command(Path::new(env!("CARGO_BIN_EXE_kustom")));
    rt.env(&mut c);
    let out = c
        .env("KUSTOM_CONTAINER_RUNTIME", "podman")
        .args(["build", "--enable-alpha-plugins", "k"])
        .output()
        .expect("kustom");
    assert!(ok(&out).contains("gen-svc"));
    let mut c = env.command(Path::new(env!("CARGO_BIN_EXE_kustom")));
    let out = c
        .args([
            "build",
            "--enable-alpha-plugins",
            "--container-runtime",
            "no-such-runtime-xyz",
            "k",
        ])
        .output()
        .expect("kustom");
    let err = fails(&out);
    assert!(
        err.contains("no-such-runtime-xyz") && err.contains("kustomization.yaml"),
        "{err}"
    );
    // Without --enable-alpha-plugins nothing runs.
    let mut c = env.command(Path::new(env!("CARGO_BIN_EXE_kustom")));
    let out = c.args(["build", "k"]).output().expect("kustom");
    assert!(fails(&out).contains("--enable-alpha-plugins"));
}
