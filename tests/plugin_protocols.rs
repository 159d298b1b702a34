//! Plugins from outside, end to end: KEP plugins in shell and Python,
//! legacy kustomize exec plugins (compared with `kubectl kustomize` when it
//! is installed), KRM exec functions with results, and the failures a
//! plugin can cause — non-zero exit, a hang, junk on STDOUT, too much
//! output — each reported with the plugin's path, protocol, kind,
//! kustomization, exit status and STDERR.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use support::{fails, ok, Env};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_contains(text: &str, parts: &[&str]) {
    for p in parts {
        assert!(text.contains(p), "missing {p:?} in:\n{text}");
    }
}

const CONFIGMAP: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  color: blue\n";

// ---------------------------------------------------------------- KEP

/// A KEP generator and a KEP transformer written in POSIX shell: the
/// transformer renames a resource (which keeps its identity) and adds one.
#[test]
fn kep_shell_generator_and_transformer() {
    let env = Env::new();
    env.kep(
        "shell.example.com",
        r#"#!/bin/sh
# generate: one ConfigMap per call; transform: drop the configs (the
# documents before the first resource), rename `settings`, add a Secret.
case "$1" in
generate)
  cat <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: generated
data:
  cwd: PWD
EOF
  ;;
transform)
  input=$(cat)
  # The generator is asked to transform too: not supported.
  echo "$input" | sed '/^---$/q' | grep -q '^kind: Renamer$' || exit 127
  echo "$input" | awk 'BEGIN { skip = 1 }
       /^---$/ { if (skip) { skip = 0; next } }
       !skip { print }' | sed 's/^  name: settings$/  name: settings-renamed/'
  printf -- '---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: added\n'
  ;;
*) exit 2 ;;
esac
"#,
    );
    env.write("app/cm.yaml", CONFIGMAP);
    env.write(
        "app/pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: nginx\n    envFrom:\n    - configMapRef:\n        name: settings\n",
    );
    env.write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\n- pod.yaml\ngenerators:\n- gen.yaml\ntransformers:\n- |-\n  apiVersion: shell.example.com/v1\n  kind: Renamer\n  metadata:\n    name: r\n",
    );
    env.write(
        "app/gen.yaml",
        "apiVersion: shell.example.com/v1\nkind: OneConfigMap\nmetadata:\n  name: g\n",
    );
    let out = ok(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
    assert_eq!(
        out,
        "apiVersion: v1\ndata:\n  cwd: PWD\nkind: ConfigMap\nmetadata:\n  name: generated\n---\napiVersion: v1\ndata:\n  color: blue\nkind: ConfigMap\nmetadata:\n  name: settings-renamed\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: added\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - envFrom:\n    - configMapRef:\n        name: settings-renamed\n    image: nginx\n    name: web\n"
    );
    // Without the flag, the error names the flag and the plugin.
    let err = fails(&env.kustom(&["build", "app"]));
    assert_contains(
        &err,
        &[
            "--enable-alpha-plugins",
            "shell.example.com",
            "app/kustomization.yaml",
        ],
    );
}

/// The generator is asked to transform too: 127 is "not supported"; and it
/// runs in the directory of the kustomization that lists it.
#[test]
fn kep_generator_runs_in_its_kustomization_directory() {
    let env = Env::new();
    let log = env.root().join("calls.log");
    env.kep(
        "dir.example.com",
        &format!(
            "#!/bin/sh\necho \"$1 $(pwd)\" >> '{}'\n[ \"$1\" = transform ] && exit 127\ncat <<EOF\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-$(basename $(pwd))\nEOF\n",
            log.display()
        ),
    );
    env.write("tree/base/kustomization.yaml", "generators:\n- gen.yaml\n");
    env.write(
        "tree/base/gen.yaml",
        "apiVersion: dir.example.com/v1\nkind: Here\nmetadata:\n  name: g\n",
    );
    env.write("tree/overlay/kustomization.yaml", "resources:\n- ../base\n");
    // The plugin runs confined: the log outside its tree needs a grant.
    std::fs::write(&log, "").expect("log");
    let grant = log.display().to_string();
    let out = ok(&env.kustom(&[
        "build",
        "--enable-alpha-plugins",
        "--plugin-allow-write",
        &grant,
        "tree/overlay",
    ]));
    assert_contains(&out, &["name: from-base"]);
    let calls = std::fs::read_to_string(&log).expect("log");
    let base = env.root().join("tree/base").canonicalize().expect("canon");
    assert_eq!(
        calls,
        format!("generate {0}\ntransform {0}\n", base.display())
    );
}

/// A Python KEP transformer written the easy way: it labels every document
/// it reads (its own configuration object too) and prints one JSON array.
/// The configuration object does not become a resource; ids still match.
#[test]
fn kep_python_transformer_echoing_its_config() {
    let env = Env::new();
    env.kep(
        "py.example.com",
        r#"#!/usr/bin/env python3
import json, sys, yaml
if sys.argv[1] != "transform":
    sys.exit(127)
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
label = docs[0]["spec"]["label"]
for d in docs:
    d.setdefault("metadata", {}).setdefault("labels", {})["stage"] = label
print(json.dumps(docs))
"#,
    );
    env.write("app/cm.yaml", CONFIGMAP);
    env.write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\ntransformers:\n- |-\n  apiVersion: py.example.com/v1\n  kind: Stage\n  metadata:\n    name: s\n  spec:\n    label: prod\n",
    );
    let out = ok(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
    assert_eq!(
        out,
        "apiVersion: v1\ndata:\n  color: blue\nkind: ConfigMap\nmetadata:\n  labels:\n    stage: prod\n  name: settings\n"
    );
}

/// The example org plugins: the Python CommonApp generator, the defaulting
/// transformer, installed with `kustom plugin install`.
#[test]
fn example_org_plugins_build_the_example_tree() {
    let env = Env::new();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for p in ["team.example.com", "gitops.example.com"] {
        let o = env.kustom(&[
            "plugin",
            "install",
            repo.join("plugins/examples")
                .join(p)
                .to_str()
                .expect("utf-8"),
        ]);
        assert_contains(&ok(&o), &["installed KEP plugin", p]);
    }
    let tree = repo.join("examples/plugins/shop");
    let out = ok(&env.kustom(&[
        "build",
        "--enable-alpha-plugins",
        tree.to_str().expect("utf-8"),
    ]));
    let want =
        std::fs::read_to_string(repo.join("examples/plugins/expected.yaml")).expect("expected");
    assert_eq!(out, want);
    // The same plugins behind two-line legacy-plugin wrappers give kubectl
    // kustomize's reference output (when kubectl is installed).
    env.legacy(
        "team.example.com/v1",
        "CommonApp",
        &format!(
            "#!/bin/sh\n'{}' generate < \"$1\"\n",
            repo.join("plugins/examples/team.example.com").display()
        ),
    );
    env.legacy(
        "gitops.example.com/v1",
        "Defaults",
        &format!(
            "#!/bin/sh\n{{ cat \"$1\"; echo ---; cat; }} | '{}' transform\n",
            repo.join("plugins/examples/gitops.example.com").display()
        ),
    );
    if let Some(reference) = env.kubectl(&["--enable-alpha-plugins", tree.to_str().expect("utf-8")])
    {
        assert_eq!(out, ok(&reference), "kustom and kubectl kustomize differ");
    }
}

// ---------------------------------------------------------------- legacy

const LEGACY_GENERATOR: &str = r#"#!/bin/sh
# kustomize legacy exec generator: config file in $1, extra args after it.
name=$(sed -n 's/^  name: //p' "$1" | head -1)
cat <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: $name
  annotations:
    kustomize.config.k8s.io/needs-hash: "true"
data:
  args: "$2 $3"
  root: "$(basename "$KUSTOMIZE_PLUGIN_CONFIG_ROOT")"
  inline: "$(echo "$KUSTOMIZE_PLUGIN_CONFIG_STRING" | sed -n 's/^kind: //p')"
EOF
"#;

const LEGACY_TRANSFORMER: &str = r#"#!/bin/sh
# kustomize legacy exec transformer: resources on STDIN, with their
# kustomize.config.k8s.io/id annotations; change a value, keep the rest.
sed 's/color: blue/color: green/'
"#;

/// A legacy generator and transformer, byte for byte as kubectl kustomize
/// runs them (when kubectl is installed).
#[test]
fn legacy_exec_generator_and_transformer_match_kustomize() {
    let env = Env::new();
    env.legacy("someteam.example.com/v1", "ArgsGen", LEGACY_GENERATOR);
    env.legacy("someteam.example.com/v1", "Recolor", LEGACY_TRANSFORMER);
    env.write("app/cm.yaml", CONFIGMAP);
    env.write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\ngenerators:\n- gen.yaml\ntransformers:\n- tr.yaml\n",
    );
    env.write(
        "app/gen.yaml",
        "apiVersion: someteam.example.com/v1\nkind: ArgsGen\nmetadata:\n  name: made\nargsOneLiner: one \"two  three\"\n",
    );
    env.write(
        "app/tr.yaml",
        "apiVersion: someteam.example.com/v1\nkind: Recolor\nmetadata:\n  name: t\n",
    );
    let out = ok(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
    assert_contains(
        &out,
        &[
            "color: green",
            "args: one two  three",
            "root: app",
            "inline: ArgsGen",
            "name: made-",
        ],
    );
    if let Some(reference) = env.kubectl(&["--enable-alpha-plugins", "app"]) {
        assert_eq!(out, ok(&reference), "kustom and kubectl kustomize differ");
    }
}

/// A failing legacy plugin: the message names everything needed.
#[test]
fn legacy_plugin_failure_is_reported() {
    let env = Env::new();
    let plugin = env.legacy(
        "someteam.example.com/v1",
        "Broken",
        "#!/bin/sh\necho 'first line' >&2\necho 'cannot decrypt secrets.enc' >&2\nexit 3\n",
    );
    env.write("app/kustomization.yaml", "generators:\n- gen.yaml\n");
    env.write(
        "app/gen.yaml",
        "apiVersion: someteam.example.com/v1\nkind: Broken\nmetadata:\n  name: b\n",
    );
    let err = fails(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
    assert_contains(
        &err,
        &[
            "legacy exec plugin",
            plugin.to_str().expect("utf-8"),
            "someteam.example.com/v1 Broken",
            "app/kustomization.yaml",
            "exit status 3",
            "cannot decrypt secrets.enc",
        ],
    );
}

// ---------------------------------------------------------------- KRM

/// KRM exec generator and transformer: ResourceList in, ResourceList out,
/// results reported (warnings on STDERR, errors fail the build).
#[test]
fn krm_exec_functions_with_results() {
    let env = Env::new();
    // The generator checks what it was given with Python's json-free parse:
    // it only greps, so it stays POSIX shell.
    env.exe(
        "app/gen.sh",
        r#"#!/bin/sh
input=$(cat)
echo "$input" | grep -q '^kind: ResourceList' || { echo "no ResourceList" >&2; exit 1; }
echo "$input" | grep -q 'config.kubernetes.io/local-config: "true"' || { echo "no local-config" >&2; exit 1; }
cat <<'EOF'
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: from-krm
  data:
    made: by-function
results:
- message: generated one ConfigMap
  severity: info
EOF
"#,
    );
    env.exe(
        "app/tr.py",
        r#"#!/usr/bin/env python3
import sys, yaml
rl = yaml.safe_load(sys.stdin)
assert rl["kind"] == "ResourceList", rl
mode = rl["functionConfig"]["spec"]["mode"]
for item in rl["items"]:
    assert "kustomize.config.k8s.io/id" in item["metadata"]["annotations"], item
    item.setdefault("metadata", {}).setdefault("labels", {})["mode"] = mode
rl["results"] = [{"message": "labelled %d resources" % len(rl["items"]), "severity": "warning"}]
if mode == "fail":
    rl["results"].append({"message": "replicas must be set", "severity": "error",
                          "resourceRef": {"kind": "ConfigMap", "name": "settings"}})
yaml.safe_dump(rl, sys.stdout)
"#,
    );
    env.write("app/cm.yaml", CONFIGMAP);
    let fnspec = |path: &str| {
        format!("  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: {path}\n")
    };
    env.write(
        "app/gen.yaml",
        &format!(
            "apiVersion: fn.example.com/v1\nkind: Gen\nmetadata:\n  name: g\n{}",
            fnspec("./gen.sh")
        ),
    );
    let tr = |mode: &str| {
        format!(
            "apiVersion: fn.example.com/v1\nkind: Label\nmetadata:\n  name: l\n{}spec:\n  mode: {mode}\n",
            fnspec("./tr.py")
        )
    };
    env.write("app/tr.yaml", &tr("strict"));
    env.write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\ngenerators:\n- gen.yaml\ntransformers:\n- tr.yaml\n",
    );
    let o = env.kustom(&["build", "--enable-alpha-plugins", "--enable-exec", "app"]);
    let out = ok(&o);
    assert_eq!(
        out,
        "apiVersion: v1\ndata:\n  made: by-function\nkind: ConfigMap\nmetadata:\n  labels:\n    mode: strict\n  name: from-krm\n---\napiVersion: v1\ndata:\n  color: blue\nkind: ConfigMap\nmetadata:\n  labels:\n    mode: strict\n  name: settings\n"
    );
    assert_contains(
        &stderr(&o),
        &["info: generated one ConfigMap", "warning: labelled"],
    );

    // --enable-exec is required, and --enable-alpha-plugins.
    let err = fails(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
    assert_contains(&err, &["--enable-exec", "gen.sh"]);
    let err = fails(&env.kustom(&["build", "app"]));
    assert_contains(
        &err,
        &[
            "add --enable-alpha-plugins --enable-exec",
            "KRM exec function",
            "gen.sh",
        ],
    );

    // An error result fails the build, naming the resource.
    env.write("app/tr.yaml", &tr("fail"));
    let err = fails(&env.kustom(&["build", "--enable-alpha-plugins", "--enable-exec", "app"]));
    assert_contains(
        &err,
        &[
            "KRM exec function",
            "tr.py",
            "fn.example.com/v1 Label",
            "replicas must be set",
            "ConfigMap/settings",
        ],
    );
}

// ---------------------------------------------------------------- failures

fn one_generator(env: &Env, group: &str) {
    env.write("app/kustomization.yaml", "generators:\n- gen.yaml\n");
    env.write(
        "app/gen.yaml",
        &format!("apiVersion: {group}/v1\nkind: Thing\nmetadata:\n  name: t\n"),
    );
}

#[test]
fn failing_kep_plugin_is_reported_with_status_and_stderr() {
    let env = Env::new();
    let plugin = env.kep(
        "fail.example.com",
        "#!/bin/sh\nfor i in $(seq 1 40); do echo \"noise $i\" >&2; done\necho 'the real reason' >&2\nexit 42\n",
    );
    one_generator(&env, "fail.example.com");
    let err = fails(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
    assert_contains(
        &err,
        &[
            "KEP plugin",
            plugin.to_str().expect("utf-8"),
            "fail.example.com/v1 Thing",
            "generate",
            "app/kustomization.yaml",
            "exit status 42",
            "the real reason",
        ],
    );
    assert!(
        !err.contains("noise 1\n"),
        "only the end of STDERR is shown:\n{err}"
    );
}

#[test]
fn hanging_plugin_is_killed_with_its_children() {
    let env = Env::new();
    let pidfile = env.root().join("child.pid");
    env.kep(
        "hang.example.com",
        &format!(
            "#!/bin/sh\necho 'about to hang' >&2\nsleep 300 &\necho $! > '{}'\nwait\n",
            pidfile.display()
        ),
    );
    one_generator(&env, "hang.example.com");
    // The plugin runs confined: the pid file outside its tree needs a grant.
    std::fs::write(&pidfile, "").expect("pid file");
    let grant = pidfile.display().to_string();
    let start = Instant::now();
    let err = fails(&env.kustom(&[
        "build",
        "--enable-alpha-plugins",
        "--plugin-allow-write",
        &grant,
        "--plugin-timeout",
        "1",
        "app",
    ]));
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    assert_contains(
        &err,
        &[
            "hang.example.com",
            "timed out",
            "about to hang",
            "app/kustomization.yaml",
        ],
    );
    let pid = std::fs::read_to_string(&pidfile).expect("pid file");
    let alive = Path::new("/proc").join(pid.trim()).join("status");
    // SIGKILL is delivered asynchronously: on a loaded machine the child
    // may still be listed for a moment after the build returned.
    let gone = || {
        std::fs::read_to_string(&alive)
            .map(|s| s.contains("State:\tZ"))
            .unwrap_or(true)
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while !gone() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let zombie_or_gone = gone();
    assert!(
        zombie_or_gone,
        "the plugin's child process {} survived",
        pid.trim()
    );
}

#[test]
fn plugin_printing_junk_is_reported() {
    let env = Env::new();
    env.kep(
        "junk.example.com",
        "#!/bin/sh\necho 'Loading configuration... done'\necho '{{{ this: [is not'\necho 'warned you' >&2\n",
    );
    one_generator(&env, "junk.example.com");
    let err = fails(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
    assert_contains(
        &err,
        &[
            "junk.example.com",
            "not YAML",
            "Loading configuration",
            "warned you",
            "exit status 0",
        ],
    );
}

#[test]
fn plugin_output_over_the_cap_is_reported() {
    let env = Env::new();
    env.kep(
        "big.example.com",
        "#!/bin/sh\nyes 'padding: 0123456789012345678901234567890123456789' | head -c 200000\n",
    );
    one_generator(&env, "big.example.com");
    let err = fails(&env.kustom(&[
        "build",
        "--enable-alpha-plugins",
        "--plugin-max-output",
        "10000",
        "app",
    ]));
    assert_contains(
        &err,
        &[
            "big.example.com",
            "more than 10000 bytes",
            "--plugin-max-output",
        ],
    );
}

#[test]
fn missing_plugin_names_every_place_looked() {
    let env = Env::new();
    one_generator(&env, "nowhere.example.com");
    let err = fails(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
    assert_contains(
        &err,
        &[
            "no plugin for nowhere.example.com/v1 Thing",
            "kustomize/plugins/nowhere.example.com",
            "kustom plugin install",
        ],
    );
}

// ---------------------------------------------------------------- kustom plugin

#[test]
fn plugin_list_which_and_install() {
    let env = Env::new();
    let fresh = ok(&env.kustom(&["plugin", "list"]));
    assert_contains(&fresh, &["builtin", "shipped"]);
    assert_eq!(
        fresh.lines().filter(|l| l.starts_with("KEP")).count(),
        0,
        "{fresh}"
    );

    let src = env.write("src/myplugin", "#!/bin/sh\nexit 127\n");
    let installed = ok(&env.kustom(&[
        "plugin",
        "install",
        src.to_str().expect("utf-8"),
        "--group",
        "team.example.com",
    ]));
    assert_contains(&installed, &["installed KEP plugin", "team.example.com"]);
    let dest = env.xdg().join("kustomize/plugins/team.example.com");
    let mode = std::fs::metadata(&dest)
        .expect("installed")
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "mode {mode:o}");

    let listed = ok(&env.kustom(&["plugin", "list"]));
    assert_contains(
        &listed,
        &["KEP", "team.example.com", dest.to_str().expect("utf-8")],
    );

    env.legacy("someteam.example.com/v1", "Recolor", LEGACY_TRANSFORMER);
    let listed = ok(&env.kustom(&["plugin", "list"]));
    assert_contains(&listed, &["legacy exec", "someteam.example.com/v1 Recolor"]);

    let which = ok(&env.kustom(&["plugin", "which", "team.example.com/v1", "CommonApp"]));
    assert_contains(&which, &["runs: KEP plugin", dest.to_str().expect("utf-8")]);
    let which = ok(&env.kustom(&["plugin", "which", "someteam.example.com/v1", "Recolor"]));
    assert_contains(&which, &["runs: legacy exec plugin", "recolor/Recolor"]);
    let which = ok(&env.kustom(&["plugin", "which", "builtin", "PatchTransformer"]));
    assert_contains(&which, &["shipped builtin", "builtin-plugin"]);
    let missing = env.kustom(&["plugin", "which", "x.example.com/v1", "Nope"]);
    assert_contains(
        &fails(&missing),
        &["No plugin would run x.example.com/v1 Nope: install one"],
    );
}

// ---------------------------------------------------------------- README

/// The complete minimal plugin in the README, and in the plugins guide,
/// works as printed there.
#[test]
fn readme_minimal_plugin_works() {
    for page in ["README.md", "docs/plugins.md"] {
        let env = Env::new();
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(page))
            .unwrap_or_else(|e| panic!("{page}: {e}"));
        let block = |start: &str| -> String {
            let i = text
                .find(start)
                .unwrap_or_else(|| panic!("{page} lost {start:?}"));
            let body = &text[i + start.len()..];
            body[..body.find("```").expect("closing fence")].to_string()
        };
        let script = block("```sh\n#!/bin/sh\n");
        assert!(
            script.contains("plugins/hello.example.com"),
            "{page}: {script}"
        );
        env.kep("hello.example.com", &format!("#!/bin/sh\n{script}"));
        env.write(
            "app/kustomization.yaml",
            &block("```yaml\n# kustomization.yaml\n"),
        );
        let out = ok(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
        assert_eq!(
            out,
            "apiVersion: v1\ndata:\n  greeting: hello\nkind: ConfigMap\nmetadata:\n  name: greeting\n",
            "{page}"
        );
    }
}
