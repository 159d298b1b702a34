//! The two kustomize releases kustom reproduces: each change from v5.5.0 to
//! v5.8.1 (docs/kustomize-versions.md) built in the default mode (v5.8.1)
//! and with `KUSTOM_KUSTOMIZE_VERSION=5.5`, checked against kustom's own
//! expectation and, where installed, against the release itself: kubectl
//! 1.37.1 (`kubectl-1.37`, kustomize v5.8.1, installed by .ci/run) and
//! `kubectl` (v5.5.0). Without them the comparison is skipped visibly.

mod support;

use std::path::Path;
use std::process::Output;
use support::{skip, Env};

/// What a build must give: its output, or an error holding these parts.
enum Want<'a> {
    Yaml(&'a str),
    Error(&'a [&'a str]),
}

/// kustom in the mode `version` (None: the default) on `args`.
fn kustom(env: &Env, version: Option<&str>, args: &[&str]) -> Output {
    let mut c = env.command(Path::new(env!("CARGO_BIN_EXE_kustom")));
    match version {
        Some(v) => c.env("KUSTOM_KUSTOMIZE_VERSION", v),
        None => c.env_remove("KUSTOM_KUSTOMIZE_VERSION"),
    };
    c.args(args).output().expect("run kustom")
}

/// `REFERENCE kustomize DIR`, or None (with a notice) when not installed.
fn reference(env: &Env, kubectl: &str, dir: &str) -> Option<Output> {
    let out = env
        .command(Path::new(kubectl))
        .args(["kustomize", dir])
        .output();
    match out {
        Ok(o) => Some(o),
        Err(_) => {
            skip(&format!(
                "{kubectl} is not installed: kustom's output not compared with it"
            ));
            None
        }
    }
}

fn check(what: &str, got: &Output, want: &Want<'_>) {
    let stdout = String::from_utf8_lossy(&got.stdout);
    let stderr = String::from_utf8_lossy(&got.stderr);
    match want {
        Want::Yaml(yaml) => {
            assert!(got.status.success(), "{what}: failed:\n{stderr}");
            assert_eq!(stdout, *yaml, "{what}");
        }
        Want::Error(parts) => {
            assert!(!got.status.success(), "{what}: built:\n{stdout}");
            for p in *parts {
                assert!(stderr.contains(p), "{what}: {p:?} not in:\n{stderr}");
            }
        }
    }
}

/// Build `files` in both modes; compare each with its release when present.
fn both_modes(files: &[(&str, &str)], v5_8: Want<'_>, v5_5: Want<'_>) {
    let env = Env::new();
    for (path, text) in files {
        env.write(&format!("app/{path}"), text);
    }
    for (version, want, kubectl) in [
        (None, &v5_8, "kubectl-1.37"),
        (Some("5.5"), &v5_5, "kubectl"),
    ] {
        let what = format!("kustomize {}", version.unwrap_or("default (5.8)"));
        let got = kustom(&env, version, &["build", "app"]);
        check(&what, &got, want);
        if let Some(reference) = reference(&env, kubectl, "app") {
            assert_eq!(
                reference.status.success(),
                got.status.success(),
                "{what}: {kubectl} {}",
                String::from_utf8_lossy(&reference.stderr)
            );
            assert_eq!(
                String::from_utf8_lossy(&reference.stdout),
                String::from_utf8_lossy(&got.stdout),
                "{what}: output differs from {kubectl}"
            );
        }
    }
}

const DEPLOYMENTS: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: env
data:
  host: db.example.com
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-a
spec:
  template:
    spec:
      containers:
      - name: c
        image: x
        env:
        - name: HOST
          value: old
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-b
spec:
  template:
    spec:
      containers:
      - name: c
        image: x
        env:
        - name: HOST
          value: old
";

fn deployments_with(host_a: &str, host_b: &str) -> String {
    format!(
        "apiVersion: v1\ndata:\n  host: db.example.com\nkind: ConfigMap\nmetadata:\n  name: env\n---\n{}---\n{}",
        deployment("app-a", host_a),
        deployment("app-b", host_b)
    )
}

fn deployment(name: &str, host: &str) -> String {
    format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  template:\n    spec:\n      containers:\n      - env:\n        - name: HOST\n          value: {host}\n        image: x\n        name: c\n")
}

#[test]
fn replacement_targets_are_regular_expressions_in_v5_8() {
    let kustomization = "resources:\n- r.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n    name: env\n    fieldPath: data.host\n  targets:\n  - select:\n      kind: Deploy.*\n      name: app-.*\n    reject:\n    - name: app-b\n    fieldPaths:\n    - spec.template.spec.containers.0.env.0.value\n";
    both_modes(
        &[
            ("kustomization.yaml", kustomization),
            ("r.yaml", DEPLOYMENTS),
        ],
        Want::Yaml(&deployments_with("db.example.com", "old")),
        // v5.5.0 compares names exactly: nothing is selected.
        Want::Yaml(&deployments_with("old", "old")),
    );
}

#[test]
fn replacement_source_value_is_a_literal_in_v5_8() {
    let kustomization = "resources:\n- r.yaml\nreplacements:\n- sourceValue: db.internal\n  targets:\n  - select:\n      kind: Deployment\n    fieldPaths:\n    - spec.template.spec.containers.0.env.0.value\n";
    both_modes(
        &[
            ("kustomization.yaml", kustomization),
            ("r.yaml", DEPLOYMENTS),
        ],
        Want::Yaml(&deployments_with("db.internal", "db.internal")),
        Want::Error(&["sourceValue"]),
    );
    let both = "resources:\n- r.yaml\nreplacements:\n- sourceValue: x\n  source:\n    kind: ConfigMap\n  targets:\n  - select:\n      kind: Deployment\n";
    both_modes(
        &[("kustomization.yaml", both), ("r.yaml", DEPLOYMENTS)],
        Want::Error(&["value and resource selectors are mutually exclusive"]),
        Want::Error(&["sourceValue"]),
    );
}

const HELD_TEXT: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: src
data:
  host: a<b>&c
  port: \"8080\"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dst
data:
  compact.json: '{\"config\": {\"hostname\": \"old\", \"port\": 80, \"f\": 1.0}, \"list\": [{\"name\": \"a\"}]}'
  pretty.json: |
    {
      \"b\": {\"hostname\": \"old\"},
      \"a\": []
    }
";

#[test]
fn replacement_paths_go_on_into_json_text_in_v5_8() {
    let kustomization = "resources:\n- r.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n    name: src\n    fieldPath: data.host\n  targets:\n  - select:\n      name: dst\n    fieldPaths:\n    - data.compact\\.json.config.hostname\n    - data.compact\\.json.list.[name=a].name\n    - data.pretty\\.json.b.hostname\n  - select:\n      name: dst\n    options:\n      create: true\n    fieldPaths:\n    - data.compact\\.json.added.deep\n- source:\n    kind: ConfigMap\n    name: src\n    fieldPath: data.port\n  targets:\n  - select:\n      name: dst\n    fieldPaths:\n    - data.compact\\.json.config.port\n";
    let built = r#"apiVersion: v1
data:
  compact.json: '{"added":{"deep":"a\u003cb\u003e\u0026c"},"config":{"f":1,"hostname":"a\u003cb\u003e\u0026c","port":8080},"list":[{"name":"a\u003cb\u003e\u0026c"}]}'
  pretty.json: |-
    {
      "a": [],
      "b": {
        "hostname": "a\u003cb\u003e\u0026c"
      }
    }
kind: ConfigMap
metadata:
  name: dst
---
apiVersion: v1
data:
  host: a<b>&c
  port: "8080"
kind: ConfigMap
metadata:
  name: src
"#;
    both_modes(
        &[("kustomization.yaml", kustomization), ("r.yaml", HELD_TEXT)],
        Want::Yaml(built),
        Want::Error(&["unable to find field \"data.compact\\\\.json.config.hostname\""]),
    );
    // A value the field's type cannot take: the set fails, the ordinary walk
    // reaches the field in a copy, and nothing changes.
    let mistyped = "resources:\n- r.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n    name: src\n    fieldPath: data.host\n  targets:\n  - select:\n      name: dst\n    fieldPaths:\n    - data.compact\\.json.config.port\n";
    let unchanged = "apiVersion: v1\ndata:\n  compact.json: '{\"config\": {\"hostname\": \"old\", \"port\": 80, \"f\": 1.0}, \"list\": [{\"name\":\n    \"a\"}]}'\n  pretty.json: |\n    {\n      \"b\": {\"hostname\": \"old\"},\n      \"a\": []\n    }\nkind: ConfigMap\nmetadata:\n  name: dst\n---\napiVersion: v1\ndata:\n  host: a<b>&c\n  port: \"8080\"\nkind: ConfigMap\nmetadata:\n  name: src\n";
    both_modes(
        &[("kustomization.yaml", mistyped), ("r.yaml", HELD_TEXT)],
        Want::Yaml(unchanged),
        Want::Error(&["wrong node kind"]),
    );
    // Text that is not YAML ends the walk with the parser's error.
    let broken = HELD_TEXT.replace("\"list\": [", "\"list\": [[");
    both_modes(
        &[("kustomization.yaml", mistyped), ("r.yaml", &broken)],
        Want::Error(&["unable to find field", "yaml: "]),
        Want::Error(&["wrong node kind"]),
    );
}

const ONE_DEPLOYMENT: &str =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 1\n";
const PATCH: &str =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 2\n";
const PATCHED: &str =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 2\n";

#[test]
fn empty_patch_files_do_nothing_in_v5_8() {
    let kustomization = "resources:\n- d.yaml\npatches:\n- path: p.yaml\n- path: empty.yaml\n  target:\n    kind: Deployment\n- path: comments.yaml\n";
    both_modes(
        &[
            ("kustomization.yaml", kustomization),
            ("d.yaml", ONE_DEPLOYMENT),
            ("p.yaml", PATCH),
            ("empty.yaml", ""),
            ("comments.yaml", "# only a comment\n\n"),
        ],
        Want::Yaml(PATCHED),
        Want::Error(&[
            "illegally qualifies as both an SM and JSON patch",
            "comments.yaml",
        ]),
    );
}

#[test]
fn patch_options_are_a_fixed_type_in_v5_8() {
    let kustomization = "resources:\n- d.yaml\npatches:\n- path: p.yaml\n  options:\n    allowNameChange: true\n    mystery: true\n";
    both_modes(
        &[
            ("kustomization.yaml", kustomization),
            ("d.yaml", ONE_DEPLOYMENT),
            ("p.yaml", PATCH),
        ],
        Want::Error(&["unknown field \"mystery\"", "kustomization.yaml"]),
        Want::Yaml(PATCHED),
    );
}

#[test]
fn images_rewrite_volume_image_references_in_v5_8() {
    let kustomization =
        "resources:\n- r.yaml\nimages:\n- name: nginx\n  newName: apache\n  digest: sha256:12345\n";
    let resources = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n  volumes:\n  - name: v\n    image:\n      reference: nginx:1.0\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      volumes:\n      - name: v\n        image:\n          reference: nginx\n";
    let out = |reference: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      volumes:\n      - image:\n          reference: {reference}\n        name: v\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - image: apache@sha256:12345\n    name: c\n  volumes:\n  - image:\n      reference: {}\n    name: v\n", if reference == "nginx" { "nginx:1.0" } else { reference })
    };
    both_modes(
        &[("kustomization.yaml", kustomization), ("r.yaml", resources)],
        Want::Yaml(&out("apache@sha256:12345")),
        Want::Yaml(&out("nginx")),
    );
}

#[test]
fn generator_conflicts_name_the_behavior_in_v5_8() {
    let env = Env::new();
    env.write(
        "app/kustomization.yaml",
        "configMapGenerator:\n- name: cm\n  literals: [a=1]\n- name: cm\n  literals: [b=2]\n",
    );
    let new = kustom(&env, None, &["build", "app"]);
    check("default", &new, &Want::Error(&["id ConfigMap.v1.[noGrp]/cm.[noNs] exists; can not use behavior: 'unspecified', behavior must be merge or replace"]));
    let old = kustom(&env, Some("5.5"), &["build", "app"]);
    check(
        "5.5",
        &old,
        &Want::Error(&[
            "id ConfigMap.v1.[noGrp]/cm.[noNs] exists; behavior must be merge or replace",
        ]),
    );
    for (kubectl, text) in [
        ("kubectl-1.37", "can not use behavior: 'unspecified'"),
        ("kubectl", "exists; behavior must be merge or replace"),
    ] {
        if let Some(r) = reference(&env, kubectl, "app") {
            assert!(
                String::from_utf8_lossy(&r.stderr).contains(text),
                "{kubectl}"
            );
        }
    }
}

#[test]
fn the_managed_by_label_names_the_release() {
    let env = Env::new();
    env.write(
        "app/kustomization.yaml",
        "resources:\n- d.yaml\nbuildMetadata: [managedByLabel]\n",
    );
    env.write("app/d.yaml", ONE_DEPLOYMENT);
    let label = |v| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    app.kubernetes.io/managed-by: kustomize-{v}\n  name: d\nspec:\n  replicas: 1\n")
    };
    check(
        "default",
        &kustom(&env, None, &["build", "app"]),
        &Want::Yaml(&label("v5.8.1")),
    );
    check(
        "5.5",
        &kustom(&env, Some("5.5"), &["build", "app"]),
        &Want::Yaml(&label("(devel)")),
    );
    // The flag wins over the environment.
    check(
        "flag",
        &kustom(
            &env,
            Some("5.5"),
            &["build", "--kustomize-version", "5.8.1", "app"],
        ),
        &Want::Yaml(&label("v5.8.1")),
    );
    if let Some(r) = reference(&env, "kubectl-1.37", "app") {
        assert_eq!(String::from_utf8_lossy(&r.stdout), label("v5.8.1"));
    }
}

#[test]
fn version_reports_the_selected_release() {
    let env = Env::new();
    let short =
        |v| String::from_utf8_lossy(&kustom(&env, v, &["version", "--short"]).stdout).into_owned();
    assert!(
        short(None).starts_with("{v5.8.1+kustom."),
        "{}",
        short(None)
    );
    assert!(short(Some("5.5")).starts_with("{v5.5.0+kustom."));
    assert!(short(Some("5.8")).starts_with("{v5.8.1+kustom."));
    let long = kustom(
        &env,
        Some("5.5"),
        &["version", "--kustomize-version", "5.8"],
    );
    assert!(String::from_utf8_lossy(&long.stdout).starts_with("v5.8.1+kustom."));
    let bad = kustom(&env, Some("4.0"), &["version"]);
    check(
        "unknown",
        &bad,
        &Want::Error(&[
            "KUSTOM_KUSTOMIZE_VERSION",
            "unknown kustomize version \"4.0\"",
            "5.5.0",
            "5.8.1",
        ]),
    );
    let bad = kustom(&env, None, &["build", "--kustomize-version", "5.7", "."]);
    check(
        "unknown flag value",
        &bad,
        &Want::Error(&["--kustomize-version", "5.5.0 (5.5)", "5.8.1 (5.8)"]),
    );
    if let Ok(o) = std::process::Command::new("kubectl-1.37")
        .args(["version", "--client"])
        .output()
    {
        // What kustom names is what kubectl 1.37.1 embeds.
        assert!(String::from_utf8_lossy(&o.stdout).contains("Kustomize Version: v5.8.1"));
    } else {
        skip("kubectl-1.37 is not installed: the release it embeds not checked");
    }
}

/// Exec functions get `args`, and `envs` merged with `build -e` (kubectl
/// cannot run exec functions: kustom's own expectation only).
#[test]
fn exec_function_args_and_envs() {
    let env = Env::new();
    env.exe(
        "app/fn.sh",
        "#!/bin/sh\ncat >/dev/null\nprintf 'apiVersion: config.kubernetes.io/v1\\nkind: ResourceList\\nitems:\\n- apiVersion: v1\\n  kind: ConfigMap\\n  metadata:\\n    name: out\\n  data:\\n    args: \"%s\"\\n    mode: \"%s\"\\n    eq: \"%s\"\\n' \"$*\" \"$MODE\" \"${EQ-unset}\"\n",
    );
    env.write("app/kustomization.yaml", "generators:\n- gen.yaml\n");
    env.write(
        "app/gen.yaml",
        "apiVersion: example.com/v1\nkind: Gen\nmetadata:\n  name: g\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./fn.sh\n        args: [--one, two]\n        envs: [MODE=spec, EQ=a=b]\n",
    );
    let build = |version, extra: &[&str]| {
        let mut args = vec!["build", "--enable-alpha-plugins", "--enable-exec"];
        args.extend_from_slice(extra);
        args.push("app");
        kustom(&env, version, &args)
    };
    let out = |mode: &str, eq: &str| {
        format!("apiVersion: v1\ndata:\n  args: --one two\n  eq: {eq}\n  mode: {mode}\nkind: ConfigMap\nmetadata:\n  name: out\n")
    };
    // `-e` wins over the spec; an entry whose value holds `=` is dropped (v5.8).
    check(
        "default",
        &build(None, &["-e", "MODE=cli"]),
        &Want::Yaml(&out("cli", "unset")),
    );
    check(
        "default",
        &build(None, &[]),
        &Want::Yaml(&out("spec", "unset")),
    );
    check(
        "5.5",
        &build(Some("5.5"), &[]),
        &Want::Yaml(&out("spec", "a=b")),
    );
}

// --- Helm -----------------------------------------------------------------

/// A chart whose ConfigMaps record the release namespace, one of them
/// without `metadata.namespace` (kustomize #6058's case).
fn write_chart(env: &Env, dir: &str) {
    env.write(
        &format!("{dir}/charts/mini/Chart.yaml"),
        "apiVersion: v2\nname: mini\nversion: 0.1.0\n",
    );
    env.write(&format!("{dir}/charts/mini/values.yaml"), "x: 1\n");
    env.write(
        &format!("{dir}/charts/mini/templates/all.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-with-ns\n  namespace: {{ .Release.Namespace }}\ndata:\n  ns: {{ .Release.Namespace }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-without-ns\ndata:\n  ns: {{ .Release.Namespace }}\n",
    );
}

/// An executable in the scratch tree that appends its arguments to `log`
/// and runs `helm`; with `reports`, `helm version` answers that instead
/// (kubectl's kustomize v5.5.0 insists on helm 3; the engine here is 4).
fn helm_wrapper(env: &Env, name: &str, helm: &Path, log: &Path, reports: Option<&str>) -> String {
    let version = reports
        .map(|v| format!("[ \"$1\" = version ] && {{ echo {v}; exit 0; }}\n"))
        .unwrap_or_default();
    let path = env.exe(
        &format!("bin/{name}"),
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\n{version}exec '{}' \"$@\"\n",
            log.display(),
            helm.display()
        ),
    );
    path.display().to_string()
}

/// The helm command lines a log holds (emptied), the scratch root named
/// `ROOT` however it is spelled and the temporary values file `VALUES`
/// (its directory differs from run to run).
fn helm_calls(env: &Env, log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let _ = std::fs::remove_file(log);
    let root = env.root().display().to_string();
    let real = env.root().canonicalize().expect("root");
    let real = real.display().to_string();
    text.lines()
        .map(|l| {
            l.split(' ')
                .map(|w| {
                    if w.contains("kustomize-helm-") {
                        "VALUES".to_string()
                    } else {
                        w.replace(&real, "ROOT").replace(&root, "ROOT")
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// kustom with helm enabled (`helm` as the command), confined as usual
/// but allowed to run a helm installed outside the system paths and to
/// append to `log`.
fn kustom_helm(env: &Env, version: Option<&str>, helm: &str, real: &Path, dir: &str) -> Output {
    let log_dir = env.root().join("log").display().to_string();
    let mut args = vec![
        "build".to_string(),
        "--enable-helm".into(),
        "--helm-command".into(),
        helm.into(),
        "--plugin-allow-write".into(),
        log_dir,
    ];
    args.extend(support::helm_reads(real));
    args.push(dir.into());
    kustom(
        env,
        version,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    )
}

/// `kubectl kustomize --enable-helm` of the release `kubectl` names, or
/// None (with a notice) when not installed.
fn reference_helm(env: &Env, kubectl: &str, helm: &str, dir: &str) -> Option<Output> {
    match env
        .command(Path::new(kubectl))
        .args(["kustomize", "--enable-helm", "--helm-command", helm, dir])
        .output()
    {
        Ok(o) => Some(o),
        Err(_) => {
            skip(&format!(
                "{kubectl} is not installed: kustom's helm output not compared with it"
            ));
            None
        }
    }
}

fn config_map(name: &str, data_ns: &str, namespace: Option<&str>) -> String {
    let ns = namespace
        .map(|n| format!("  namespace: {n}\n"))
        .unwrap_or_default();
    format!(
        "apiVersion: v1\ndata:\n  ns: {data_ns}\nkind: ConfigMap\nmetadata:\n  name: {name}\n{ns}"
    )
}

/// kustomize v5.8.0: a chart without a namespace gets the nearest
/// ancestor's (`--namespace` for helm), what helm made is left alone by
/// every namespace transformer above it — so a chart that does not
/// template `metadata.namespace` comes out without one (#6058) — and the
/// marking is removed before output. v5.5.0 gives helm no namespace and
/// namespaces helm's output like any other.
#[test]
fn helm_charts_take_the_nearest_namespace_in_v5_8() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let env = Env::new();
    write_chart(&env, "base");
    env.write(
        "base/kustomization.yaml",
        "resources:\n- plain.yaml\nhelmCharts:\n- name: mini\n  releaseName: b\n",
    );
    env.write(
        "base/plain.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n",
    );
    // A level without a namespace, then the overlay that names one; a
    // component of the overlay inflates a chart of its own.
    env.write("mid/kustomization.yaml", "resources:\n- ../base\n");
    write_chart(&env, "comp");
    env.write(
        "comp/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nhelmCharts:\n- name: mini\n  releaseName: c\n",
    );
    env.write(
        "overlay/kustomization.yaml",
        "namespace: ov\nresources:\n- ../mid\ncomponents:\n- ../comp\n",
    );
    let log = env.root().join("log/helm.log");
    std::fs::create_dir_all(log.parent().expect("log dir")).expect("mkdir");
    let logged = helm_wrapper(&env, "helm", &helm, &log, None);
    let logged_v3 = helm_wrapper(&env, "helm3", &helm, &log, Some("v3.99.0"));
    let plain = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n  namespace: ov\n";
    let v5_8 = [
        config_map("b-with-ns", "ov", Some("ov")),
        config_map("c-with-ns", "ov", Some("ov")),
        plain.to_string(),
        config_map("b-without-ns", "ov", None),
        config_map("c-without-ns", "ov", None),
    ]
    .join("---\n");
    let v5_5 = [
        config_map("b-with-ns", "default", Some("ov")),
        config_map("b-without-ns", "default", Some("ov")),
        config_map("c-with-ns", "default", Some("ov")),
        config_map("c-without-ns", "default", Some("ov")),
        plain.to_string(),
    ]
    .join("---\n");
    for (version, want, kubectl, wrapper, template) in [
        (
            None,
            &v5_8,
            "kubectl-1.37",
            &logged,
            "--namespace ov -f VALUES",
        ),
        (Some("5.5"), &v5_5, "kubectl", &logged_v3, "-f VALUES"),
    ] {
        let what = format!("kustomize {}", version.unwrap_or("default (5.8)"));
        let got = kustom_helm(&env, version, &logged, &helm, "overlay");
        check(&what, &got, &Want::Yaml(want));
        let calls = helm_calls(&env, &log);
        let version_call = if version.is_none() {
            "version --short"
        } else {
            "version -c --short"
        };
        assert_eq!(
            calls,
            [
                version_call.to_string(),
                format!("template b ROOT/base/charts/mini {template}"),
                version_call.to_string(),
                format!("template c ROOT/comp/charts/mini {template}"),
            ],
            "{what}: helm's command lines"
        );
        if let Some(r) = reference_helm(&env, kubectl, wrapper, "overlay") {
            assert_eq!(
                String::from_utf8_lossy(&r.stdout),
                String::from_utf8_lossy(&got.stdout),
                "{what}: output differs from {kubectl}: {}",
                String::from_utf8_lossy(&r.stderr)
            );
            assert_eq!(
                helm_calls(&env, &log),
                calls,
                "{what}: {kubectl} ran helm otherwise"
            );
        }
    }
}

/// kustomize v5.8.0: `helmCharts[].devel` passes `--devel` to helm (after
/// the other flags, as kustomize does); v5.5.0 knows no such field.
#[test]
fn helm_devel_is_passed_in_v5_8() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let env = Env::new();
    write_chart(&env, "app");
    env.write(
        "app/kustomization.yaml",
        "helmCharts:\n- name: mini\n  releaseName: r\n  namespace: dev\n  devel: true\n",
    );
    let log = env.root().join("log/helm.log");
    std::fs::create_dir_all(log.parent().expect("log dir")).expect("mkdir");
    let logged = helm_wrapper(&env, "helm", &helm, &log, None);
    let got = kustom_helm(&env, None, &logged, &helm, "app");
    check(
        "default",
        &got,
        &Want::Yaml(&format!(
            "{}---\n{}",
            config_map("r-with-ns", "dev", Some("dev")),
            config_map("r-without-ns", "dev", None)
        )),
    );
    let calls = helm_calls(&env, &log);
    assert_eq!(
        calls,
        [
            "version --short",
            "template r ROOT/app/charts/mini --namespace dev -f VALUES --devel"
        ]
    );
    if let Some(r) = reference_helm(&env, "kubectl-1.37", &logged, "app") {
        assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&got.stdout),
            "{}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert_eq!(helm_calls(&env, &log), calls);
    }
    let old = kustom_helm(&env, Some("5.5"), &logged, &helm, "app");
    check(
        "5.5",
        &old,
        &Want::Error(&["unknown field \"devel\"", "app/kustomization.yaml"]),
    );
    assert!(helm_calls(&env, &log).is_empty(), "5.5 ran helm");
    if let Some(r) = reference_helm(&env, "kubectl", &logged, "app") {
        assert!(String::from_utf8_lossy(&r.stderr).contains("unknown field \\\"devel\\\""));
    }
}

/// A base reached through overlays with different namespaces is built
/// for each when its chart reads the namespace (once otherwise), in one
/// build and across the roots of `kustom render`.
#[test]
fn helm_namespaces_differ_per_parent_of_a_shared_base() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let env = Env::new();
    write_chart(&env, "base");
    env.write(
        "base/charts/mini/templates/all.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: {{ .Release.Namespace }}\ndata:\n  ns: {{ .Release.Namespace }}\n",
    );
    env.write(
        "base/kustomization.yaml",
        "resources:\n- ../plain\nhelmCharts:\n- name: mini\n  releaseName: r\n",
    );
    env.write("plain/kustomization.yaml", "resources:\n- s.yaml\n");
    env.write(
        "plain/s.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
    );
    for ns in ["a", "b"] {
        env.write(
            &format!("{ns}/kustomization.yaml"),
            &format!("namespace: {ns}\nresources:\n- ../base\n"),
        );
    }
    env.write("top/kustomization.yaml", "resources:\n- ../a\n- ../b\n");
    let secret = |ns: &str| {
        format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: {ns}\n")
    };
    let top = kustom_helm(&env, None, &helm.display().to_string(), &helm, "top");
    check(
        "one build",
        &top,
        &Want::Yaml(&format!(
            "{}---\n{}---\n{}---\n{}",
            config_map("cm", "a", Some("a")),
            config_map("cm", "b", Some("b")),
            secret("a"),
            secret("b")
        )),
    );
    if let Some(r) = reference_helm(&env, "kubectl-1.37", &helm.display().to_string(), "top") {
        assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&top.stdout)
        );
    }
    let mut args = vec![
        "render".to_string(),
        "--enable-helm".into(),
        "--helm-command".into(),
        helm.display().to_string(),
        "-o".into(),
        "out".into(),
    ];
    args.extend(support::helm_reads(&helm));
    // One root after the other, so that what is shared is certain.
    args.extend(["-j".into(), "1".into(), "-v".into(), "a".into(), "b".into()]);
    let render = kustom(
        &env,
        None,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    support::ok(&render);
    // The chart's base once per namespace; the base below it (no chart)
    // built once and reused.
    let log = String::from_utf8_lossy(&render.stderr);
    assert!(log.contains("bases_built: 3, bases_reused: 1"), "{log}");
    for ns in ["a", "b"] {
        let cm = std::fs::read_to_string(env.root().join(format!("out/{ns}/v1_configmap_cm.yaml")))
            .expect("rendered ConfigMap");
        assert_eq!(cm, config_map("cm", ns, Some(ns)), "render {ns}");
    }
}

/// The marking is kustomize v5.8's even when written by hand: such a
/// resource is not namespaced and loses the annotation; v5.5.0 treats it
/// as any annotation.
#[test]
fn the_helm_marking_is_internal_in_v5_8() {
    let marked = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    internal.config.kubernetes.io/helm-generated: \"true\"\n    note: kept\n";
    both_modes(
        &[
            ("kustomization.yaml", "namespace: ns\nresources:\n- c.yaml\n"),
            ("c.yaml", marked),
        ],
        Want::Yaml("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    note: kept\n  name: c\n"),
        Want::Yaml("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/helm-generated: \"true\"\n    note: kept\n  name: c\n  namespace: ns\n"),
    );
}

/// `helm version`: v5.8.1 asks `version --short` and accepts helm 3 and 4;
/// v5.5.0 asks `version -c --short` (kustom accepts helm 4 there too).
#[test]
fn helm_version_check_follows_the_release() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let env = Env::new();
    write_chart(&env, "app");
    env.write(
        "app/kustomization.yaml",
        "helmCharts:\n- name: mini\n  releaseName: r\n",
    );
    let log = env.root().join("log/helm.log");
    std::fs::create_dir_all(log.parent().expect("log dir")).expect("mkdir");
    let helm2 = helm_wrapper(&env, "helm2", &helm, &log, Some("v2.17.0+g1"));
    for (version, asked, says, kubectl) in [
        (
            None,
            "version --short",
            "this plugin requires helm V3 or V4 but got v2.17.0",
            "kubectl-1.37",
        ),
        (
            Some("5.5"),
            "version -c --short",
            "requires helm V3",
            "kubectl",
        ),
    ] {
        let got = kustom_helm(&env, version, &helm2, &helm, "app");
        check(asked, &got, &Want::Error(&[says, "app/kustomization.yaml"]));
        assert_eq!(helm_calls(&env, &log), [asked]);
        if let Some(r) = reference_helm(&env, kubectl, &helm2, "app") {
            assert!(
                String::from_utf8_lossy(&r.stderr).contains(says),
                "{kubectl}: {}",
                String::from_utf8_lossy(&r.stderr)
            );
            assert_eq!(helm_calls(&env, &log), [asked], "{kubectl}");
        }
    }
}

// --- Legacy exec plugins --------------------------------------------------

/// A legacy generator that writes its arguments (after the config file)
/// into a ConfigMap: `n` (how many) and `a1`, `a2`, ….
const ARGS_PLUGIN: &str = r#"#!/bin/sh
shift
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: args\ndata:\n  n: "%s"\n' "$#"
i=0
for a in "$@"; do
  i=$((i+1))
  printf '  a%s: "%s"\n' "$i" "$(printf %s "$a" | sed 's/\\/\\\\/g; s/"/\\"/g')"
done
"#;

/// What [`ARGS_PLUGIN`] makes of `args`, as a build prints it.
fn args_config_map(args: &[&str]) -> String {
    let mut data: Vec<(String, String)> = args
        .iter()
        .enumerate()
        .map(|(i, a)| (format!("a{}", i + 1), a.to_string()))
        .collect();
    data.push(("n".into(), format!("\"{}\"", args.len())));
    data.sort();
    // `n` is quoted (YAML 1.1 reads it as false), as is an empty value.
    let data: String = data
        .iter()
        .map(|(k, v)| {
            let k = if k == "n" { "\"n\"" } else { k };
            match v.as_str() {
                "" => format!("  {k}: \"\"\n"),
                _ => format!("  {k}: {v}\n"),
            }
        })
        .collect();
    format!("apiVersion: v1\ndata:\n{data}kind: ConfigMap\nmetadata:\n  name: args\n")
}

/// kustomize v5.7.1 splits `argsOneLiner` with its own splitter: `#`
/// anywhere outside quotes ends the line, `""` makes no word, an unclosed
/// quote is an error. v5.5.0 (google/shlex) comments from the start of a
/// word to the end of the line, keeps `""` as an empty word and silently
/// drops a word left unfinished.
#[test]
fn legacy_args_one_liner_splitting_follows_the_release() {
    let env = Env::new();
    env.legacy("example.com/v1", "ArgsGen", ARGS_PLUGIN);
    env.write("app/kustomization.yaml", "generators:\n- gen.yaml\n");
    let gen = |line: &str| {
        env.write(
            "app/gen.yaml",
            &format!("apiVersion: example.com/v1\nkind: ArgsGen\nmetadata:\n  name: g\nargsOneLiner: |-\n  {}\n", line.replace('\n', "\n  ")),
        );
    };
    let build =
        |version: Option<&str>| kustom(&env, version, &["build", "--enable-alpha-plugins", "app"]);
    let compare = |version: Option<&str>, got: &Output| {
        let kubectl = if version.is_none() {
            "kubectl-1.37"
        } else {
            "kubectl"
        };
        let Ok(r) = env
            .command(Path::new(kubectl))
            .args(["kustomize", "--enable-alpha-plugins", "app"])
            .output()
        else {
            skip(&format!(
                "{kubectl} is not installed: argsOneLiner not compared with it"
            ));
            return;
        };
        assert_eq!(
            r.status.success(),
            got.status.success(),
            "{kubectl}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&got.stdout),
            "{kubectl}"
        );
    };
    let cases: &[(&str, Want<'_>, Want<'_>)] = &[
        (
            r#"one "two three" 'fo ur' five\ six"#,
            Want::Yaml(&args_config_map(&["one", "two three", "fo ur", "five six"])),
            Want::Yaml(&args_config_map(&["one", "two three", "fo ur", "five six"])),
        ),
        (
            "a \"\" b x#y\nd",
            Want::Yaml(&args_config_map(&["a", "b", "x"])),
            Want::Yaml(&args_config_map(&["a", "", "b", "x#y", "d"])),
        ),
        (
            "a # b\nc \"x\\y\"",
            Want::Yaml(&args_config_map(&["a"])),
            Want::Yaml(&args_config_map(&["a", "c", "xy"])),
        ),
        (
            "a \"b c",
            Want::Error(&[
                "failed to parse argsOneLiner: unclosed quote in string",
                "app/kustomization.yaml",
            ]),
            Want::Yaml(&args_config_map(&["a"])),
        ),
    ];
    for (line, v5_8, v5_5) in cases {
        gen(line);
        for (version, want) in [(None, v5_8), (Some("5.5"), v5_5)] {
            let got = build(version);
            check(&format!("{line:?} in {version:?}"), &got, want);
            compare(version, &got);
        }
    }
}

// --- kustomize edit -------------------------------------------------------

/// `labels:` entries: with selectors, without (the default), with templates.
const LABEL_ENTRIES: &str = "resources:\n- cm.yaml\nlabels:\n- includeSelectors: true\n  pairs:\n    a: b\n- pairs:\n    x: w\n- includeTemplates: true\n  pairs:\n    t: \"1\"\n";

/// The kustomization after `edit ARGS` in the mode `version`, or the error.
fn edited(version: Option<&str>, given: &str, args: &[&str]) -> (Output, String) {
    let env = Env::new();
    env.write("app/kustomization.yaml", given);
    env.write(
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
    );
    let mut full = vec!["edit"];
    full.extend_from_slice(args);
    let mut c = env.command(Path::new(env!("CARGO_BIN_EXE_kustom")));
    match version {
        Some(v) => c.env("KUSTOM_KUSTOMIZE_VERSION", v),
        None => c.env_remove("KUSTOM_KUSTOMIZE_VERSION"),
    };
    let out = c
        .current_dir(env.root().join("app"))
        .args(&full)
        .output()
        .expect("run kustom edit");
    let file =
        std::fs::read_to_string(env.root().join("app/kustomization.yaml")).expect("kustomization");
    if out.status.success() {
        // The edited file means to the release what it means to kustom.
        let ours = kustom(&env, version, &["build", "app"]);
        let kubectl = if version.is_none() {
            "kubectl-1.37"
        } else {
            "kubectl"
        };
        if let Some(r) = reference(&env, kubectl, "app") {
            assert_eq!(
                String::from_utf8_lossy(&r.stdout),
                String::from_utf8_lossy(&ours.stdout),
                "{kubectl} builds the edited file otherwise"
            );
        }
    }
    (out, file)
}

const HEADER: &str = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n";

/// kustomize v5.8.0 (#5991): `edit add label --without-selector` writes
/// into the first `labels:` entry without selectors whose
/// `includeTemplates` matches (a key already there needs `--force`);
/// v5.5.0 always appends a new entry.
#[test]
fn edit_add_label_without_selector_merges_in_v5_8() {
    let merged = |x: &str, t: &str| {
        format!("resources:\n- cm.yaml\nlabels:\n- includeSelectors: true\n  pairs:\n    a: b\n- pairs:\n    {x}\n- includeTemplates: true\n  pairs:\n    {t}\n{HEADER}")
    };
    let (out, file) = edited(
        None,
        LABEL_ENTRIES,
        &["add", "label", "--without-selector", "c:d"],
    );
    support::ok(&out);
    assert_eq!(file, merged("c: d\n    x: w", "t: \"1\""));
    let (out, file) = edited(
        None,
        LABEL_ENTRIES,
        &[
            "add",
            "label",
            "--without-selector",
            "--include-templates",
            "e:f",
        ],
    );
    support::ok(&out);
    assert_eq!(file, merged("x: w", "e: f\n    t: \"1\""));
    let (out, file) = edited(
        None,
        LABEL_ENTRIES,
        &["add", "label", "--without-selector", "x:v"],
    );
    assert!(
        support::fails(&out)
            .contains("label x already in kustomization file. Use --force to override."),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(file, LABEL_ENTRIES, "a failed edit leaves the file alone");
    let (out, file) = edited(
        None,
        LABEL_ENTRIES,
        &["add", "label", "--force", "--without-selector", "x:v"],
    );
    support::ok(&out);
    assert_eq!(file, merged("x: v", "t: \"1\""));
    // v5.5: a new entry each time, whatever is there.
    for (args, entry) in [
        (
            &["add", "label", "--without-selector", "x:v"][..],
            "- pairs:\n    x: v\n",
        ),
        (
            &[
                "add",
                "label",
                "--without-selector",
                "--include-templates",
                "e:f",
            ][..],
            "- includeTemplates: true\n  pairs:\n    e: f\n",
        ),
    ] {
        let (out, file) = edited(Some("5.5"), LABEL_ENTRIES, args);
        support::ok(&out);
        assert_eq!(file, format!("{LABEL_ENTRIES}{entry}{HEADER}"));
    }
}

/// kustomize v5.8.0 (#5991): a label or annotation already set is refused
/// with a hint at `--force`; v5.5.0 says only that it is there.
#[test]
fn edit_duplicate_metadata_errors_name_force_in_v5_8() {
    let given =
        "resources:\n- cm.yaml\ncommonLabels:\n  env: dev\ncommonAnnotations:\n  note: old\n";
    for (kind, pair, key) in [
        ("label", "env:prod", "env"),
        ("annotation", "note:new", "note"),
    ] {
        let (out, _) = edited(None, given, &["add", kind, pair]);
        let err = support::fails(&out);
        assert!(
            err.contains(&format!(
                "{kind} {key} already in kustomization file. Use --force to override."
            )),
            "{err}"
        );
        let (out, _) = edited(Some("5.5"), given, &["add", kind, pair]);
        let err = support::fails(&out);
        assert!(
            err.contains(&format!("{kind} {key} already in kustomization file"))
                && !err.contains("--force"),
            "{err}"
        );
    }
}

// --- Errors -----------------------------------------------------------------

/// kustomize v5.8.0 refuses a container function mount whose cleaned path
/// starts with `..` (`..data` too); v5.5.0 refused `../…` only. Both are
/// checked before any container runs, so no container engine is needed.
#[test]
fn container_mounts_starting_with_dots_are_refused_in_v5_8() {
    let env = Env::new();
    env.write("app/kustomization.yaml", "transformers:\n- fn.yaml\n");
    env.write(
        "app/fn.yaml",
        "apiVersion: example.com/v1\nkind: Fn\nmetadata:\n  name: f\n  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: example.com/fn:1\n        mounts:\n        - type: bind\n          src: ..data\n          dst: /data\n",
    );
    let refused = "plugin Fn.v1.example.com/f.[noNs] with mount path '..data' is not permitted; mount paths must be under the current kustomization directory";
    let args = [
        "build",
        "--enable-alpha-plugins",
        "--load-restrictor",
        "LoadRestrictionsNone",
        "app",
    ];
    let new = kustom(&env, None, &args);
    check(
        "default",
        &new,
        &Want::Error(&[refused, "app/kustomization.yaml"]),
    );
    let old = kustom(&env, Some("5.5"), &args);
    assert!(
        !String::from_utf8_lossy(&old.stderr).contains("is not permitted"),
        "5.5 refused the mount: {}",
        String::from_utf8_lossy(&old.stderr)
    );
    match env
        .command(Path::new("kubectl-1.37"))
        .args(["kustomize", "--enable-alpha-plugins", "app"])
        .output()
    {
        Ok(r) => assert!(
            String::from_utf8_lossy(&r.stderr).contains(refused),
            "{}",
            String::from_utf8_lossy(&r.stderr)
        ),
        Err(_) => skip("kubectl-1.37 is not installed: its mount check not compared"),
    }
}
