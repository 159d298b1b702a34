//! `kustom edit fix --vars`: vars become replacements and the `$(VAR)`
//! mentions in resource and patch files become placeholders. Each case
//! gives a tree, the files expected afterwards (byte for byte), and whether
//! the fixed tree must build to what the original tree built to — checked
//! with `kustom build` and, when kubectl is installed, `kubectl kustomize`.

mod support;

use std::path::Path;
use std::process::Command;

struct Case {
    name: &'static str,
    /// (path, content) of every file of the tree.
    given: &'static [(&'static str, &'static str)],
    /// (path, content) of the files expected afterwards; others unchanged.
    want: &'static [(&'static str, &'static str)],
    /// Failure with this text in stderr, nothing changed.
    error: Option<&'static str>,
    /// The fixed tree builds to the original's output.
    same_output: bool,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "delimited mentions in several documents of one file",
            given: &[
                (
                    "kustomization.yaml",
                    "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
# the app
resources:
- app.yaml
vars:
- name: DB_HOST
  objref:
    kind: Service
    name: db
    apiVersion: v1
- name: DB_PORT
  objref:
    kind: ConfigMap
    name: db-conf
    apiVersion: v1
  fieldref:
    fieldpath: data.port
",
                ),
                (
                    "app.yaml",
                    "apiVersion: v1
kind: Service
metadata:
  name: db
spec:
  ports:
  - port: 5432
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: db-conf
data:
  port: \"5432\"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    example.com/db: $(DB_HOST)
spec:
  template:
    spec:
      containers:
      - name: web
        image: web:1
        args: [\"--db=$(DB_HOST)=$(DB_PORT)\", \"$(DB_HOST)/x\"]
        env:
        - name: URL
          value: pg://$(DB_HOST)
",
                ),
            ],
            want: &[
                (
                    "kustomization.yaml",
                    "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
# the app
resources:
- app.yaml
replacements:
- source:
    kind: Service
    name: db
    version: v1
  targets:
  - fieldPaths:
    - metadata.annotations.[example.com/db]
    select:
      group: apps
      kind: Deployment
      name: web
      version: v1
  - fieldPaths:
    - spec.template.spec.containers.0.args.0
    options:
      delimiter: =
      index: 1
    select:
      group: apps
      kind: Deployment
      name: web
      version: v1
  - fieldPaths:
    - spec.template.spec.containers.0.args.1
    options:
      delimiter: /
    select:
      group: apps
      kind: Deployment
      name: web
      version: v1
  - fieldPaths:
    - spec.template.spec.containers.0.env.0.value
    options:
      delimiter: /
      index: 2
    select:
      group: apps
      kind: Deployment
      name: web
      version: v1
- source:
    fieldPath: data.port
    kind: ConfigMap
    name: db-conf
    version: v1
  targets:
  - fieldPaths:
    - spec.template.spec.containers.0.args.0
    options:
      delimiter: =
      index: 2
    select:
      group: apps
      kind: Deployment
      name: web
      version: v1
",
                ),
                (
                    "app.yaml",
                    "apiVersion: v1
kind: Service
metadata:
  name: db
spec:
  ports:
  - port: 5432
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: db-conf
data:
  port: \"5432\"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    example.com/db: DB_HOST_PLACEHOLDER
spec:
  template:
    spec:
      containers:
      - name: web
        image: web:1
        args: [\"--db=DB_HOST_PLACEHOLDER=DB_PORT_PLACEHOLDER\", \"DB_HOST_PLACEHOLDER/x\"]
        env:
        - name: URL
          value: pg://DB_HOST_PLACEHOLDER
",
                ),
            ],
            error: None,
            same_output: true,
        },
        Case {
            name: "a mention in a directory resource's file; existing replacements dropped",
            given: &[
                (
                    "kustomization.yaml",
                    "resources:
- base
- cm.yaml
replacements:
- source:
    kind: ConfigMap
    name: cfg
  targets:
  - select:
      kind: ConfigMap
      name: cfg
    fieldPaths:
    - data.self
vars:
- name: CFG
  objref:
    kind: ConfigMap
    name: cfg
    apiVersion: v1
",
                ),
                (
                    "cm.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  self: x\n",
                ),
                ("base/kustomization.yaml", "resources:\n- pod.yaml\n"),
                (
                    "base/pod.yaml",
                    "apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: team
spec:
  containers:
  - name: c
    image: busybox
    envFrom:
    - configMapRef:
        name: $(CFG)
",
                ),
            ],
            want: &[
                (
                    "kustomization.yaml",
                    "resources:
- base
- cm.yaml
replacements:
- source:
    kind: ConfigMap
    name: cfg
    version: v1
  targets:
  - fieldPaths:
    - spec.containers.0.envFrom.0.configMapRef.name
    select:
      kind: Pod
      name: p
      namespace: team
      version: v1
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
",
                ),
                ("base/kustomization.yaml", "resources:\n- pod.yaml\n"),
                (
                    "base/pod.yaml",
                    "apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: team
spec:
  containers:
  - name: c
    image: busybox
    envFrom:
    - configMapRef:
        name: CFG_PLACEHOLDER
",
                ),
            ],
            error: None,
            // The dropped replacement wrote data.self.
            same_output: false,
        },
        Case {
            name: "a mention in a patch selects what the patch targets",
            given: &[
                (
                    "kustomization.yaml",
                    "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- deploy.yaml
- cm.yaml
patches:
- path: patch.yaml
  target:
    kind: Deployment
    labelSelector: app=web
vars:
- name: CM
  objref:
    kind: ConfigMap
    name: settings
    apiVersion: v1
",
                ),
                (
                    "cm.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
                ),
                (
                    "deploy.yaml",
                    "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  template:
    spec:
      containers:
      - name: web
        image: web:1
",
                ),
                (
                    "patch.yaml",
                    "apiVersion: apps/v1
kind: Deployment
metadata:
  name: any
  namespace: prod
  annotations:
    config: $(CM)
",
                ),
            ],
            want: &[
                (
                    "kustomization.yaml",
                    "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- deploy.yaml
- cm.yaml
patches:
- path: patch.yaml
  target:
    kind: Deployment
    labelSelector: app=web
replacements:
- source:
    kind: ConfigMap
    name: settings
    version: v1
  targets:
  - fieldPaths:
    - metadata.annotations.config
    select:
      kind: Deployment
      labelSelector: app=web
      namespace: prod
",
                ),
                (
                    "patch.yaml",
                    "apiVersion: apps/v1
kind: Deployment
metadata:
  name: any
  namespace: prod
  annotations:
    config: CM_PLACEHOLDER
",
                ),
            ],
            error: None,
            // The patch does not move web to prod, so the selector with
            // namespace prod finds nothing: the conversion's known limit.
            same_output: false,
        },
        Case {
            name: "a patch that may change name and kind selects its own document",
            given: &[
                (
                    "kustomization.yaml",
                    "resources:
- deploy.yaml
- cm.yaml
patches:
- path: patch.yaml
  options:
    allowNameChange: true
    allowKindChange: true
vars:
- name: CM
  objref:
    kind: ConfigMap
    name: settings
    apiVersion: v1
",
                ),
                (
                    "cm.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
                ),
                (
                    "deploy.yaml",
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n",
                ),
                (
                    "patch.yaml",
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    config: $(CM)\n",
                ),
            ],
            want: &[
                (
                    "kustomization.yaml",
                    "resources:
- deploy.yaml
- cm.yaml
patches:
- options:
    allowKindChange: true
    allowNameChange: true
  path: patch.yaml
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
replacements:
- source:
    kind: ConfigMap
    name: settings
    version: v1
  targets:
  - fieldPaths:
    - metadata.annotations.config
    select:
      group: apps
      kind: Deployment
      name: web
      version: v1
",
                ),
                (
                    "patch.yaml",
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    config: CM_PLACEHOLDER\n",
                ),
            ],
            error: None,
            same_output: true,
        },
        Case {
            name: "a var nothing mentions keeps its source",
            given: &[
                (
                    "kustomization.yaml",
                    "resources:\n- cm.yaml\nvars:\n- name: UNUSED\n  objref:\n    kind: ConfigMap\n    name: settings\n",
                ),
                (
                    "cm.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
                ),
            ],
            want: &[(
                "kustomization.yaml",
                "resources:\n- cm.yaml\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nreplacements:\n- source:\n    kind: ConfigMap\n    name: settings\n",
            )],
            error: None,
            // A replacement without targets is an error to kustomize build.
            same_output: false,
        },
        Case {
            name: "an undelimited mention fails and changes nothing",
            given: &[
                (
                    "kustomization.yaml",
                    "resources:
- cm.yaml
vars:
- name: FIRST
  objref:
    kind: ConfigMap
    name: settings
- name: SECOND
  objref:
    kind: ConfigMap
    name: settings
",
                ),
                (
                    "cm.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: $(FIRST)\n  b: x$(SECOND)-y\n",
                ),
            ],
            want: &[],
            error: Some(
                "error with cm.yaml: cannot convert all vars to replacements; $(SECOND) is not delimited",
            ),
            same_output: false,
        },
        Case {
            name: "without vars only the other fixes apply",
            given: &[
                (
                    "kustomization.yaml",
                    "commonLabels:\n  app: x\nresources:\n- cm.yaml\n",
                ),
                (
                    "cm.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: $(NOT_A_VAR)\n",
                ),
            ],
            want: &[(
                "kustomization.yaml",
                "resources:\n- cm.yaml\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nlabels:\n- includeSelectors: true\n  pairs:\n    app: x\n",
            )],
            error: None,
            same_output: true,
        },
    ]
}

fn write_tree(dir: &Path, files: &[(&str, &str)]) {
    for (rel, content) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, content).expect("write");
    }
}

fn kustom(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", dir.join(".config-home"))
        .output()
        .expect("run kustom")
}

/// `kubectl kustomize .`'s output, or None when kubectl is not installed
/// or the build fails.
fn kubectl_build(dir: &Path) -> Option<Vec<u8>> {
    let out = Command::new("kubectl")
        .args(["kustomize", "."])
        .current_dir(dir)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

fn kubectl_available() -> bool {
    Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn fix_vars_cases() {
    let kubectl = kubectl_available();
    if !kubectl {
        support::skip("kubectl not installed: fixed trees are not built with kubectl kustomize");
    }
    let mut failures = Vec::new();
    for case in cases() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        write_tree(dir, case.given);
        let before_kustom = kustom(dir, &["build", "."]);
        let before_kubectl = if kubectl { kubectl_build(dir) } else { None };
        let out = kustom(dir, &["edit", "fix", "--vars"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let read = |rel: &str| std::fs::read_to_string(dir.join(rel)).unwrap_or_default();
        if let Some(text) = case.error {
            if out.status.success() || !stderr.contains(text) {
                failures.push(format!(
                    "{}: wanted error {text:?}, got {stderr:?}",
                    case.name
                ));
            }
            for (rel, content) in case.given {
                if read(rel) != *content {
                    failures.push(format!("{}: failed but changed {rel}", case.name));
                }
            }
            continue;
        }
        if !out.status.success() {
            failures.push(format!("{}: failed: {stderr}", case.name));
            continue;
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !stdout.contains("  vars -> replacements\n") {
            failures.push(format!(
                "{}: stdout lacks the fixed-fields list: {stdout}",
                case.name
            ));
        }
        for (rel, content) in case.given {
            let want = case
                .want
                .iter()
                .find(|(r, _)| r == rel)
                .map_or(*content, |(_, c)| *c);
            let got = read(rel);
            if got != want {
                failures.push(format!(
                    "{}: {rel} differs\n--- want\n{want}--- got\n{got}",
                    case.name
                ));
            }
        }
        if case.same_output {
            let after = kustom(dir, &["build", "."]);
            if !before_kustom.status.success() || after.stdout != before_kustom.stdout {
                failures.push(format!(
                    "{}: kustom build changed:\n{}\n---\n{}",
                    case.name,
                    String::from_utf8_lossy(&before_kustom.stdout),
                    String::from_utf8_lossy(&after.stdout)
                ));
            }
            if kubectl {
                let after_kubectl = kubectl_build(dir);
                if before_kubectl.is_none() || after_kubectl != before_kubectl {
                    failures.push(format!("{}: kubectl kustomize output changed", case.name));
                }
                if after_kubectl.as_deref() != Some(after.stdout.as_slice()) {
                    failures.push(format!("{}: kustom and kubectl differ", case.name));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
