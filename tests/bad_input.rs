//! Bad input and faults: malformed YAML, kustomization errors, load
//! restrictions, plugin faults, `-o` targets, environment. Every case must
//! fail cleanly: non-zero exit, a message naming what is wrong (the file,
//! the plugin), nothing on STDOUT, no panic, within a time limit, and any
//! `-o` target exactly as it was. Determinism checks build one tree under
//! several environments and compare the bytes.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// What a file in a case's tree is.
enum F {
    Text(&'static str),
    Bytes(&'static [u8]),
    Owned(String),
    /// A symlink to this target (relative to the link, or absolute).
    Link(&'static str),
    Fifo,
    Exec(&'static str),
}

struct Case {
    name: &'static str,
    files: Vec<(&'static str, F)>,
    /// Arguments after `build`; `{T}` is the tree's root.
    args: Vec<&'static str>,
    /// Substrings the error must contain (`{T}` replaced).
    expect: Vec<&'static str>,
}

fn case(
    name: &'static str,
    files: Vec<(&'static str, F)>,
    args: &[&'static str],
    expect: &[&'static str],
) -> Case {
    Case {
        name,
        files,
        args: args.to_vec(),
        expect: expect.to_vec(),
    }
}

use F::*;

const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n";
const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n";
const K_CM: &str = "resources:\n- cm.yaml\n";

fn plugin_kust(group: &str, field: &str) -> String {
    format!(
        "resources:\n- cm.yaml\n{field}:\n- |-\n  apiVersion: {group}/v1\n  kind: Thing\n  metadata:\n    name: x\n"
    )
}

fn laughs() -> String {
    let mut s = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for i in 1..10 {
        let p = i - 1;
        s.push_str(&format!(
            "  a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
        ));
    }
    s
}

fn big_scalar_bomb() -> String {
    let big = "x".repeat(1 << 20);
    let refs = vec!["*a"; 500].join(",");
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: &a \"{big}\"\n  l: [{refs}]\n")
}

fn cases() -> Vec<Case> {
    let deep = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {}{}\n",
        "[".repeat(3000),
        "]".repeat(3000)
    );
    vec![
        // Malformed YAML and bad files.
        case("tab-indent", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: cm\n"))], &[], &["cm.yaml", "kustomization.yaml"]),
        case("unclosed-quote", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"cm\n"))], &[], &["cm.yaml", "kustomization.yaml"]),
        case("resource-latin1", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Bytes(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n"))], &[], &["cm.yaml", "UTF-8", "line 4", "kustomization.yaml"]),
        case("kustomization-latin1", vec![("kustomization.yaml", Bytes(b"namePrefix: caf\xe9-\n"))], &[], &["kustomization.yaml", "UTF-8"]),
        case("kustomization-malformed", vec![("kustomization.yaml", Text("resources:\n- a\n  b: [\n"))], &[], &["kustomization.yaml"]),
        case("kustomization-list", vec![("kustomization.yaml", Text("- a\n- b\n"))], &[], &["kustomization.yaml"]),
        case("kustomization-two-docs", vec![("kustomization.yaml", Text("namePrefix: a\n---\nnamePrefix: b\n"))], &[], &["kustomization.yaml"]),
        case("kustomization-unknown-field", vec![("kustomization.yaml", Text("resourcez:\n- cm.yaml\n"))], &[], &["kustomization.yaml"]),
        case("kustomization-wrong-type", vec![("kustomization.yaml", Text("resources: 3\n"))], &[], &["kustomization.yaml"]),
        case("duplicate-keys", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  name: dd\n"))], &[], &["cm.yaml"]),
        case("scalar-resource", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text("just a string\n"))], &[], &["cm.yaml"]),
        case("missing-kind", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text("apiVersion: v1\nmetadata:\n  name: cm\n"))], &[], &["cm.yaml", "kind"]),
        case("missing-name", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text("apiVersion: v1\nkind: ConfigMap\n"))], &[], &["cm.yaml", "name"]),
        case("list-items-not-array", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text("apiVersion: v1\nkind: List\nitems: 3\n"))], &[], &["cm.yaml", "items"]),
        case("unknown-anchor", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: *nope\n"))], &[], &["cm.yaml", "anchor"]),
        case("billion-laughs", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Owned(laughs()))], &[], &["cm.yaml", "aliasing"]),
        case("big-scalar-alias-bomb", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Owned(big_scalar_bomb()))], &[], &["cm.yaml", "aliasing", "--max-alias-expansion"]),
        case("too-deep", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Owned(deep))], &[], &["cm.yaml"]),
        case("control-character", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\u{7}b\n"))], &[], &["cm.yaml"]),
        case("bad-separator", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n--- junk\nkind: B\n"))], &[], &["cm.yaml"]),
        case("smp-malformed", vec![("kustomization.yaml", Text("resources:\n- d.yaml\npatches:\n- path: p.yaml\n")), ("d.yaml", Text(DEPLOY)), ("p.yaml", Text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n spec: [\n"))], &[], &["p.yaml", "kustomization.yaml"]),
        case("smp-latin1", vec![("kustomization.yaml", Text("resources:\n- d.yaml\npatchesStrategicMerge:\n- p.yaml\n")), ("d.yaml", Text(DEPLOY)), ("p.yaml", Bytes(b"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    a: \xe9\n"))], &[], &["p.yaml", "UTF-8", "kustomization.yaml"]),
        case("json6902-malformed", vec![("kustomization.yaml", Text("resources:\n- d.yaml\npatches:\n- path: p.json\n  target:\n    kind: Deployment\n")), ("d.yaml", Text(DEPLOY)), ("p.json", Text("[{\"op\": \"add\", \"path\": \"/x\", \"value\": }]"))], &[], &["kustomization.yaml"]),
        case("patch-missing", vec![("kustomization.yaml", Text("resources:\n- d.yaml\npatches:\n- path: nope.yaml\n")), ("d.yaml", Text(DEPLOY))], &[], &["nope.yaml"]),
        case("env-file-missing", vec![("kustomization.yaml", Text("configMapGenerator:\n- name: g\n  envs:\n  - nope.env\n"))], &[], &["nope.env"]),
        case("generator-file-missing", vec![("kustomization.yaml", Text("configMapGenerator:\n- name: g\n  files:\n  - nope.txt\n"))], &[], &["nope.txt"]),
        case("generator-file-fifo", vec![("kustomization.yaml", Text("configMapGenerator:\n- name: g\n  files:\n  - pipe\n")), ("pipe", Fifo)], &[], &["pipe", "not a regular file"]),
        case("generator-file-dir", vec![("kustomization.yaml", Text("configMapGenerator:\n- name: g\n  files:\n  - sub\n")), ("sub/x", Text("x"))], &[], &["sub"]),
        case("generator-env-latin1", vec![("kustomization.yaml", Text("configMapGenerator:\n- name: g\n  envs:\n  - a.env\n")), ("a.env", Bytes(b"A=caf\xe9\n"))], &[], &["a.env"]),
        case("resource-fifo", vec![("kustomization.yaml", Text("resources:\n- pipe.yaml\n")), ("pipe.yaml", Fifo)], &[], &["pipe.yaml"]),
        case("configurations-malformed", vec![("kustomization.yaml", Text("configurations:\n- c.yaml\n")), ("c.yaml", Text("nameReference: [\n"))], &[], &["c.yaml"]),
        // Kustomization errors.
        case("no-kustomization", vec![("cm.yaml", Text(CM))], &[], &["unable to find"]),
        case("two-kustomizations", vec![("kustomization.yaml", Text(K_CM)), ("kustomization.yml", Text(K_CM)), ("cm.yaml", Text(CM))], &[], &["multiple kustomization"]),
        case("missing-dir", vec![], &["{T}/nope"], &["nope"]),
        case("resource-missing", vec![("kustomization.yaml", Text("resources:\n- nope.yaml\n"))], &[], &["nope.yaml", "kustomization.yaml"]),
        case("cycle", vec![("a/kustomization.yaml", Text("resources:\n- ../b\n")), ("b/kustomization.yaml", Text("resources:\n- ../a\n"))], &["{T}/a"], &["cycle"]),
        case("base-is-parent", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text(CM)), ("o/kustomization.yaml", Text("resources:\n- ..\n"))], &["{T}/o"], &["cycle"]),
        case("absolute-base", vec![("kustomization.yaml", Text("resources:\n- /tmp\n"))], &[], &["absolute", "kustomization.yaml"]),
        case("component-as-resource", vec![("kustomization.yaml", Text("resources:\n- c\n")), ("c/kustomization.yaml", Text("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nnamePrefix: x-\n"))], &[], &["Component"]),
        case("kustomization-as-component", vec![("kustomization.yaml", Text("resources:\n- cm.yaml\ncomponents:\n- c\n")), ("cm.yaml", Text(CM)), ("c/kustomization.yaml", Text("namePrefix: x-\n"))], &[], &["Component"]),
        case("component-not-dir", vec![("kustomization.yaml", Text("resources:\n- cm.yaml\ncomponents:\n- cm.yaml\n")), ("cm.yaml", Text(CM))], &[], &["cm.yaml"]),
        case("duplicate-ids", vec![("kustomization.yaml", Text("resources:\n- cm.yaml\n- cm2.yaml\n")), ("cm.yaml", Text(CM)), ("cm2.yaml", Text(CM))], &[], &["cm2.yaml", "already registered"]),
        case("remote-resource", vec![("kustomization.yaml", Text("resources:\n- https://example.com/x.yaml\n"))], &[], &["https://example.com/x.yaml"]),
        case("empty-kustomization-file-dir", vec![("kustomization.yaml/x", Text("x"))], &[], &["kustomization"]),
        case("patch-target-bad-regex", vec![("kustomization.yaml", Text("resources:\n- d.yaml\npatches:\n- patch: |-\n    - op: add\n      path: /x\n      value: 1\n  target:\n    name: \"(\"\n")), ("d.yaml", Text(DEPLOY))], &[], &["kustomization.yaml"]),
        case("replicas-bad-count", vec![("kustomization.yaml", Text("resources:\n- d.yaml\nreplicas:\n- name: web\n  count: many\n")), ("d.yaml", Text(DEPLOY))], &[], &["kustomization.yaml"]),
        case("var-missing-object", vec![("kustomization.yaml", Text("resources:\n- cm.yaml\nvars:\n- name: V\n  objref:\n    kind: Service\n    name: nope\n    apiVersion: v1\n")), ("cm.yaml", Text(CM))], &[], &["V Service"]),
        // Load restrictions.
        case("resource-outside", vec![("k/kustomization.yaml", Text("resources:\n- ../cm.yaml\n")), ("cm.yaml", Text(CM))], &["{T}/k"], &["security", "cm.yaml", "LoadRestrictionsNone"]),
        case("resource-symlink-outside", vec![("k/kustomization.yaml", Text(K_CM)), ("k/cm.yaml", Link("../cm.yaml")), ("cm.yaml", Text(CM))], &["{T}/k"], &["security", "cm.yaml"]),
        case("kustomization-symlink-outside", vec![("k/kustomization.yaml", Link("../other/kustomization.yaml")), ("k/cm.yaml", Text(CM)), ("other/kustomization.yaml", Text(K_CM))], &["{T}/k"], &["security", "kustomization.yaml", "LoadRestrictionsNone"]),
        case("patch-outside", vec![("k/kustomization.yaml", Text("resources:\n- d.yaml\npatches:\n- path: ../p.yaml\n")), ("k/d.yaml", Text(DEPLOY)), ("p.yaml", Text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"))], &["{T}/k"], &["security", "p.yaml"]),
        case("patch-symlink-outside", vec![("k/kustomization.yaml", Text("resources:\n- d.yaml\npatchesStrategicMerge:\n- p.yaml\n")), ("k/d.yaml", Text(DEPLOY)), ("k/p.yaml", Link("../p.yaml")), ("p.yaml", Text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"))], &["{T}/k"], &["security", "p.yaml"]),
        case("generator-file-outside", vec![("k/kustomization.yaml", Text("configMapGenerator:\n- name: g\n  files:\n  - ../secret.txt\n")), ("secret.txt", Text("s"))], &["{T}/k"], &["security", "secret.txt"]),
        case("generator-file-etc-passwd", vec![("kustomization.yaml", Text("secretGenerator:\n- name: g\n  files:\n  - passwd\n")), ("passwd", Link("/etc/passwd"))], &[], &["security", "passwd"]),
        case("generator-env-outside", vec![("k/kustomization.yaml", Text("configMapGenerator:\n- name: g\n  envs:\n  - ../a.env\n")), ("a.env", Text("A=1\n"))], &["{T}/k"], &["security", "a.env"]),
        case("configurations-outside", vec![("k/kustomization.yaml", Text("configurations:\n- ../c.yaml\n")), ("c.yaml", Text("nameReference: []\n"))], &["{T}/k"], &["security", "c.yaml"]),
        case("crds-outside", vec![("k/kustomization.yaml", Text("crds:\n- ../crd.json\n")), ("crd.json", Text("{}"))], &["{T}/k"], &["security", "crd.json"]),
        case("openapi-outside", vec![("k/kustomization.yaml", Text("openapi:\n  path: ../schema.json\n")), ("schema.json", Text("{}"))], &["{T}/k"], &["security", "schema.json"]),
        case("replacements-outside", vec![("k/kustomization.yaml", Text("resources:\n- cm.yaml\nreplacements:\n- path: ../r.yaml\n")), ("k/cm.yaml", Text(CM)), ("r.yaml", Text("source:\n  kind: ConfigMap\n  fieldPath: data.a\ntargets: []\n"))], &["{T}/k"], &["security", "r.yaml"]),
        case("transformer-file-outside", vec![("k/kustomization.yaml", Text("resources:\n- cm.yaml\ntransformers:\n- ../t.yaml\n")), ("k/cm.yaml", Text(CM)), ("t.yaml", Text("apiVersion: builtin\nkind: PrefixTransformer\nmetadata:\n  name: p\nprefix: x-\n"))], &["{T}/k"], &["security", "t.yaml"]),
        case("resource-dev-zero-unrestricted", vec![("kustomization.yaml", Text("resources:\n- z.yaml\n")), ("z.yaml", Link("/dev/zero"))], &["--load-restrictor", "LoadRestrictionsNone"], &["z.yaml"]),
        case("generator-dev-zero-unrestricted", vec![("kustomization.yaml", Text("configMapGenerator:\n- name: g\n  files:\n  - z\n")), ("z", Link("/dev/zero"))], &["--load-restrictor", "LoadRestrictionsNone"], &["z", "not a regular file"]),
        // Plugin faults (KEP plugins under $XDG_CONFIG_HOME/kustomize/plugins).
        case("plugin-exit-1", vec![("kustomization.yaml", Owned(plugin_kust("fail.example.com", "generators"))), ("cm.yaml", Text(CM)), ("xdg/kustomize/plugins/fail.example.com", Exec("#!/bin/sh\necho boom >&2\nexit 1\n"))], &["--enable-alpha-plugins"], &["fail.example.com", "boom", "kustomization.yaml"]),
        case("plugin-junk", vec![("kustomization.yaml", Owned(plugin_kust("junk.example.com", "generators"))), ("cm.yaml", Text(CM)), ("xdg/kustomize/plugins/junk.example.com", Exec("#!/bin/sh\n[ \"$1\" = generate ] || exit 127\nprintf 'a: [\\n'\n"))], &["--enable-alpha-plugins"], &["junk.example.com", "kustomization.yaml"]),
        case("plugin-hangs", vec![("kustomization.yaml", Owned(plugin_kust("hang.example.com", "transformers"))), ("cm.yaml", Text(CM)), ("xdg/kustomize/plugins/hang.example.com", Exec("#!/bin/sh\nsleep 30\n"))], &["--enable-alpha-plugins", "--plugin-timeout", "1"], &["hang.example.com"]),
        case("plugin-too-much-output", vec![("kustomization.yaml", Owned(plugin_kust("loud.example.com", "generators"))), ("cm.yaml", Text(CM)), ("xdg/kustomize/plugins/loud.example.com", Exec("#!/bin/sh\n[ \"$1\" = generate ] || exit 127\nyes 'a: b' | head -c 100000\n"))], &["--enable-alpha-plugins", "--plugin-max-output", "1000"], &["loud.example.com", "1000"]),
        case("plugin-duplicate-ids", vec![("kustomization.yaml", Owned(plugin_kust("dup.example.com", "transformers"))), ("cm.yaml", Text(CM)), ("xdg/kustomize/plugins/dup.example.com", Exec("#!/bin/sh\n[ \"$1\" = transform ] || exit 127\ncat >/dev/null\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: z\\n---\\napiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: z\\n'\n"))], &["--enable-alpha-plugins"], &["dup.example.com", "same id", "ConfigMap.v1.[noGrp]/z"]),
        case("plugin-rename-onto-other", vec![("kustomization.yaml", Owned(plugin_kust("ren.example.com", "transformers"))), ("cm.yaml", Text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")), ("xdg/kustomize/plugins/ren.example.com", Exec("#!/bin/sh\n[ \"$1\" = transform ] || exit 127\nsed -e '/^apiVersion: ren/,/^---/d' -e 's/name: b$/name: a/'\n"))], &["--enable-alpha-plugins"], &["ren.example.com", "same id", "/a.", "/b."]),
        case("plugin-not-installed", vec![("kustomization.yaml", Owned(plugin_kust("none.example.com", "generators"))), ("cm.yaml", Text(CM))], &["--enable-alpha-plugins"], &["none.example.com"]),
        case("plugin-alpha-disabled", vec![("kustomization.yaml", Owned(plugin_kust("fail.example.com", "generators"))), ("cm.yaml", Text(CM)), ("xdg/kustomize/plugins/fail.example.com", Exec("#!/bin/sh\nexit 1\n"))], &[], &["--enable-alpha-plugins"]),
        case("plugin-killed-by-signal", vec![("kustomization.yaml", Owned(plugin_kust("sig.example.com", "transformers"))), ("cm.yaml", Text(CM)), ("xdg/kustomize/plugins/sig.example.com", Exec("#!/bin/sh\necho 'apiVersion: v1'\nkill -9 $$\n"))], &["--enable-alpha-plugins"], &["sig.example.com"]),
        case("plugin-not-utf8", vec![("kustomization.yaml", Owned(plugin_kust("bin.example.com", "generators"))), ("cm.yaml", Text(CM)), ("xdg/kustomize/plugins/bin.example.com", Exec("#!/bin/sh\n[ \"$1\" = generate ] || exit 127\nprintf 'a: \\377\\n'\n"))], &["--enable-alpha-plugins"], &["bin.example.com"]),
        case("krm-exec-missing", vec![("kustomization.yaml", Text("resources:\n- cm.yaml\ntransformers:\n- |-\n  apiVersion: fn.example.com/v1\n  kind: Fn\n  metadata:\n    name: f\n    annotations:\n      config.kubernetes.io/function: |\n        exec:\n          path: ./nope.sh\n")), ("cm.yaml", Text(CM))], &["--enable-alpha-plugins", "--enable-exec"], &["nope.sh"]),
        case("legacy-plugin-fails", vec![("kustomization.yaml", Owned(plugin_kust("leg.example.com", "transformers"))), ("cm.yaml", Text(CM)), ("legacy/leg.example.com/v1/thing/Thing", Exec("#!/bin/sh\necho legacy-broke >&2\nexit 3\n"))], &["--enable-alpha-plugins"], &["Thing", "legacy-broke"]),
        // CLI and environment.
        case("bad-load-restrictor", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text(CM))], &["--load-restrictor", "sometimes"], &["sometimes"]),
        case("bad-reorder", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text(CM))], &["--reorder", "random"], &["random"]),
        case("output-parent-missing", vec![("kustomization.yaml", Text(K_CM)), ("cm.yaml", Text(CM))], &["-o", "{T}/no/such/dir/out.yaml"], &["out.yaml"]),
    ]
}

fn write_tree(root: &Path, files: &[(&'static str, F)]) {
    for (rel, f) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        match f {
            Text(t) => std::fs::write(&p, t).unwrap(),
            Bytes(b) => std::fs::write(&p, b).unwrap(),
            Owned(t) => std::fs::write(&p, t).unwrap(),
            Link(target) => std::os::unix::fs::symlink(target, &p).unwrap(),
            Fifo => {
                let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
                // SAFETY: mkfifo reads a NUL-terminated path.
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
            }
            Exec(t) => {
                use std::os::unix::fs::PermissionsExt;
                std::fs::write(&p, t).unwrap();
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
    }
}

struct Outcome {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

/// Run kustom with a time limit; the test fails on a hang.
fn run<A: AsRef<std::ffi::OsStr> + std::fmt::Debug>(
    args: &[A],
    env: &[(&str, Option<&Path>)],
    cwd: &Path,
    limit: Duration,
) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kustom"));
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LOG")
        .env_remove("KUSTOMIZE_PLUGIN_HOME");
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let mut child = cmd.spawn().expect("kustom runs");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let status = match child.wait_timeout(limit).unwrap() {
        Some(s) => s,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kustom {args:?} did not finish within {limit:?}");
        }
    };
    Outcome {
        code: status.code(),
        stdout: t_out.join().unwrap(),
        stderr: String::from_utf8_lossy(&t_err.join().unwrap()).into_owned(),
    }
}

/// Every file under `dir` with its bytes (symlinks as their targets).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                out.insert(p.clone(), b"<dir>".to_vec());
                stack.push(p);
            } else if ft.is_symlink() {
                out.insert(
                    p.clone(),
                    std::fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                );
            } else if ft.is_file() {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            } else {
                out.insert(p.clone(), b"<special>".to_vec());
            }
        }
    }
    out
}

fn assert_clean_failure(name: &str, o: &Outcome, expect: &[String]) {
    assert!(
        o.code.is_some_and(|c| c != 0),
        "{name}: expected a non-zero exit, got {:?}; stderr:\n{}",
        o.code,
        o.stderr
    );
    assert!(
        o.stdout.is_empty(),
        "{name}: expected nothing on stdout, got {} bytes; stderr:\n{}",
        o.stdout.len(),
        o.stderr
    );
    for bad in [
        "panicked",
        "RUST_BACKTRACE",
        "memory allocation",
        "stack overflow",
    ] {
        assert!(
            !o.stderr.contains(bad),
            "{name}: {bad} in stderr:\n{}",
            o.stderr
        );
    }
    assert!(
        o.stderr.starts_with("Error: ")
            || o.stderr.contains("\nError: ")
            || o.stderr.starts_with("error:"),
        "{name}: no error message:\n{}",
        o.stderr
    );
    for e in expect {
        assert!(
            o.stderr.contains(e.as_str()),
            "{name}: message should mention {e:?}:\n{}",
            o.stderr
        );
    }
}

#[test]
fn every_bad_input_fails_cleanly() {
    let mut failures = Vec::new();
    let all = cases();
    let n = all.len();
    for c in all {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("t");
        std::fs::create_dir_all(&root).unwrap();
        write_tree(&root, &c.files);
        let t = root.display().to_string();
        let mut args = vec!["build".to_string()];
        let mut has_dir = false;
        let mut prev_flag = false;
        for a in &c.args {
            let a = a.replace("{T}", &t);
            if !a.starts_with('-') && !prev_flag {
                has_dir = true;
            }
            prev_flag =
                a.starts_with('-') && !a.starts_with("--enable") && a != "--load-restrictor-none";
            args.push(a);
        }
        if !has_dir {
            args.push(t.clone());
        }
        let xdg = root.join("xdg");
        let legacy = root.join("legacy");
        let empty = tmp.path().join("empty-xdg");
        std::fs::create_dir_all(&empty).unwrap();
        let env: Vec<(&str, Option<&Path>)> = vec![
            (
                "XDG_CONFIG_HOME",
                Some(if xdg.exists() { &xdg } else { &empty }),
            ),
            (
                "KUSTOMIZE_PLUGIN_HOME",
                Some(if legacy.exists() { &legacy } else { &empty }),
            ),
        ];
        let before = snapshot(&root);
        let o = run(&args, &env, tmp.path(), Duration::from_secs(30));
        let expect: Vec<String> = c.expect.iter().map(|e| e.replace("{T}", &t)).collect();
        let result = std::panic::catch_unwind(|| {
            assert_clean_failure(c.name, &o, &expect);
            assert_eq!(before, snapshot(&root), "{}: the tree changed", c.name);
        });
        if let Err(e) = result {
            failures.push(
                e.downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| format!("{}: failed", c.name)),
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    eprintln!("{n} bad-input cases failed cleanly");
}

fn two_configmaps_tree(root: &Path, second_name: &str) {
    let files = vec![
        ("kustomization.yaml", Text("resources:\n- cm.yaml\n")),
        (
            "cm.yaml",
            Owned(format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {second_name}\n"
            )),
        ),
    ];
    write_tree(root, &files);
}

fn kustom(args: &[&Path], extra: &[&str]) -> Outcome {
    let mut a: Vec<std::ffi::OsString> = vec!["build".into()];
    a.extend(extra.iter().map(std::ffi::OsString::from));
    a.extend(args.iter().map(|p| p.as_os_str().to_owned()));
    run(&a, &[], Path::new("/"), Duration::from_secs(60))
}

#[test]
fn output_dir_collisions_and_blocked_names_leave_the_directory_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("t");
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("v1_configmap_a.yaml"), "old\n").unwrap();
    std::fs::write(out.join("keep.txt"), "keep\n").unwrap();
    // `a` and `A` land in the same file name.
    two_configmaps_tree(&tree, "A");
    let before = snapshot(&out);
    let o = kustom(&[&tree], &["-o", out.to_str().unwrap()]);
    assert_clean_failure(
        "collision",
        &o,
        &["v1_configmap_a.yaml".into(), "ConfigMap".into()],
    );
    assert_eq!(before, snapshot(&out));
    // A directory where a file must go.
    let tree2 = tmp.path().join("t2");
    two_configmaps_tree(&tree2, "b");
    std::fs::create_dir_all(out.join("v1_configmap_b.yaml")).unwrap();
    let before = snapshot(&out);
    let o = kustom(&[&tree2], &["-o", out.to_str().unwrap()]);
    assert_clean_failure("blocked", &o, &["v1_configmap_b.yaml".into()]);
    assert_eq!(before, snapshot(&out));
    // Without the obstacle: both written, the old file replaced, nothing else left.
    std::fs::remove_dir(out.join("v1_configmap_b.yaml")).unwrap();
    let o = kustom(&[&tree2], &["-o", out.to_str().unwrap()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        names,
        ["keep.txt", "v1_configmap_a.yaml", "v1_configmap_b.yaml"]
    );
    assert_eq!(
        std::fs::read_to_string(out.join("v1_configmap_a.yaml")).unwrap(),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
    );
}

#[test]
fn output_dir_names_carry_the_namespace_when_there_are_several() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("t");
    write_tree(
        &tree,
        &[
            ("kustomization.yaml", Text("resources:\n- r.yaml\n")),
            ("r.yaml", Text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: One\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: One\n")),
        ],
    );
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let o = kustom(&[&tree], &["-o", out.to_str().unwrap()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // kustomize's names: namespace prefix (lower case) for namespaced
    // resources when there are several namespaces; none for cluster-scoped.
    assert_eq!(
        names,
        [
            "default_v1_configmap_b.yaml",
            "one_v1_configmap_a.yaml",
            "v1_namespace_one.yaml"
        ]
    );
}

#[test]
fn a_failed_build_keeps_the_output_file() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("t");
    write_tree(
        &tree,
        &[("kustomization.yaml", Text("resources:\n- nope.yaml\n"))],
    );
    let out = tmp.path().join("out.yaml");
    std::fs::write(&out, "old\n").unwrap();
    let o = kustom(&[&tree], &["-o", out.to_str().unwrap()]);
    assert_clean_failure("failed build -o FILE", &o, &["nope.yaml".into()]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old\n");
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        2,
        "no temporary file left"
    );
    // A good build replaces it, with ordinary permissions.
    let good = tmp.path().join("g");
    two_configmaps_tree(&good, "b");
    let o = kustom(&[&good], &["-o", out.to_str().unwrap()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(std::fs::read_to_string(&out).unwrap().contains("name: b"));
    use std::os::unix::fs::PermissionsExt;
    assert_ne!(
        std::fs::metadata(&out).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn non_utf8_paths_work() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join(std::ffi::OsStr::from_bytes(b"d\xff\xfe"));
    two_configmaps_tree(&tree, "b");
    let o = kustom(&[&tree], &[]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let out = tmp.path().join(std::ffi::OsStr::from_bytes(b"o\xff.yaml"));
    let mut a: Vec<std::ffi::OsString> = vec!["build".into(), "-o".into(), out.clone().into()];
    a.push(tree.clone().into());
    let status = Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(&a)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read(&out).unwrap(), o.stdout);
    // A missing non-UTF-8 directory is an error, not a panic.
    let missing = tmp.path().join(std::ffi::OsStr::from_bytes(b"nope\xff"));
    let o = kustom(&[&missing], &[]);
    assert_clean_failure("missing non-UTF-8 dir", &o, &["nope".into()]);
}

#[test]
fn builds_are_deterministic_across_runs_and_environments() {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/components/overlays/community");
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("xdg");
    std::fs::create_dir_all(&empty).unwrap();
    let args = vec!["build".to_string(), tree.display().to_string()];
    let base = run(
        &args,
        &[("XDG_CONFIG_HOME", Some(&empty))],
        Path::new("/"),
        Duration::from_secs(60),
    );
    assert_eq!(base.code, Some(0), "{}", base.stderr);
    assert!(!base.stdout.is_empty());
    let tz = PathBuf::from("Pacific/Chatham");
    let lang = PathBuf::from("tr_TR.UTF-8");
    let variants: Vec<Vec<(&str, Option<&Path>)>> = vec![
        vec![("XDG_CONFIG_HOME", Some(&empty))],
        vec![
            ("XDG_CONFIG_HOME", Some(&empty)),
            ("TZ", Some(&tz)),
            ("LANG", Some(&lang)),
            ("LC_ALL", Some(&lang)),
        ],
        vec![("XDG_CONFIG_HOME", None), ("HOME", None)],
    ];
    for env in &variants {
        // A working directory the build cannot write to, too.
        for cwd in [Path::new("/"), Path::new("/proc")] {
            let o = run(&args, env, cwd, Duration::from_secs(60));
            assert_eq!(o.code, Some(0), "{env:?}: {}", o.stderr);
            assert!(
                o.stdout == base.stdout,
                "output differs under {env:?} in {cwd:?}"
            );
        }
    }
}
