//! Small trees for behaviours seen on real kustomization repositories: each
//! is written to a temporary directory and built; the output must equal the
//! checked-in expectation, and `kubectl kustomize` when it is installed.

use std::path::Path;
use std::process::{Command, Output};

/// What a build must give: these bytes, or a failure whose message
/// contains this text.
enum Want<'a> {
    Yaml(&'a str),
    Fails(&'a str),
}

fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
}

/// kustom in the v5.5 mode: the oracle here is `kubectl kustomize`, v5.5.0
/// (the default mode is held to v5.8.1 by the conformance corpus and
/// tests/kustomize_versions.rs).
fn kustom(dir: &Path) -> Output {
    let home = tempfile::tempdir().expect("temp dir");
    Command::new(env!("CARGO_BIN_EXE_kustom"))
        .arg("build")
        .arg(dir)
        .env("XDG_CONFIG_HOME", home.path())
        .env("KUSTOM_KUSTOMIZE_VERSION", "5.5")
        .output()
        .expect("run kustom")
}

fn kubectl(dir: &Path) -> Option<Output> {
    Command::new("kubectl")
        .arg("kustomize")
        .arg(dir)
        .output()
        .ok()
}

/// Build `files` (the kustomization at the root) and check the result.
fn check(name: &str, files: &[(&str, &str)], want: Want) {
    let tmp = tempfile::tempdir().expect("temp dir");
    write_tree(tmp.path(), files);
    check_dir(name, tmp.path(), want);
}

fn check_dir(name: &str, dir: &Path, want: Want) {
    let got = kustom(dir);
    let stdout = String::from_utf8_lossy(&got.stdout);
    let stderr = String::from_utf8_lossy(&got.stderr);
    match want {
        Want::Yaml(yaml) => {
            assert!(got.status.success(), "{name}: kustom failed: {stderr}");
            assert_eq!(stdout, yaml, "{name}: output differs from the expectation");
        }
        Want::Fails(message) => {
            assert!(!got.status.success(), "{name}: kustom succeeded: {stdout}");
            assert!(stdout.is_empty(), "{name}: output on failure: {stdout}");
            assert!(
                stderr.contains(message) && !stderr.contains("panicked"),
                "{name}: message lacks {message:?}: {stderr}"
            );
        }
    }
    match kubectl(dir) {
        None => eprintln!("skipping: kubectl not installed ({name})"),
        Some(k) => {
            assert_eq!(
                k.status.success(),
                got.status.success(),
                "{name}: kubectl kustomize disagrees on success: {}",
                String::from_utf8_lossy(&k.stderr)
            );
            if k.status.success() {
                assert_eq!(
                    String::from_utf8_lossy(&k.stdout),
                    stdout,
                    "{name}: kustom differs from kubectl kustomize"
                );
            }
        }
    }
}

const CONFIGMAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n";

#[test]
fn null_fields_read_as_go_zero_values() {
    let kustomization = "resources:
- cm.yaml
components:
patchesStrategicMerge:
vars:
crds:
namePrefix:
nameSuffix: ~
commonLabels:
  a:
  b: null
commonAnnotations:
  c:
images:
- name: nginx
  newTag:
configMapGenerator:
- name: g
  literals:
  - k=v
  files:
  options:
    labels:
      z:
generatorOptions:
  disableNameSuffixHash:
patches:
- path:
  patch: |
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: cm
    data:
      x: y
  target:
    kind:
    name: cm
";
    check(
        "null fields",
        &[
            ("kustomization.yaml", kustomization),
            ("cm.yaml", CONFIGMAP),
        ],
        Want::Yaml(
            "apiVersion: v1
data:
  a: b
  x: \"y\"
kind: ConfigMap
metadata:
  annotations:
    c: \"\"
  labels:
    a: \"\"
    b: \"\"
  name: cm
---
apiVersion: v1
data:
  k: v
kind: ConfigMap
metadata:
  annotations:
    c: \"\"
  labels:
    a: \"\"
    b: \"\"
    z: \"\"
  name: g-bdg947hgcc
",
        ),
    );
}

#[test]
fn empty_kustomizations_fail() {
    for (name, text) in [
        (
            "type only",
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n",
        ),
        ("comments only", "# nothing here\n"),
        ("component alone", "kind: Component\n"),
        ("empty prefix", "namePrefix: \"\"\n"),
        ("null fields", "resources:\ncomponents: ~\n"),
        ("empty deprecated lists", "bases: []\nimageTags: []\n"),
    ] {
        check(
            name,
            &[("kustomization.yaml", text)],
            Want::Fails("kustomization.yaml is empty"),
        );
    }
    // An empty list is a set field in Go: not empty, just nothing to build.
    check(
        "empty resources list",
        &[("kustomization.yaml", "resources: []\n")],
        Want::Yaml(""),
    );
}

#[test]
fn top_level_annotations_keep_their_scalar_text() {
    let cm = "apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  labels:
    l1: null
    l2: ~
    l3:
  annotations:
    n1: null
    n2: ~
    n3:
    n4: Null
    h: 0x1F
    o: 010
    f: 1.50
    t: yes
    e: 1e3
    ts: 2001-12-14t21:59:43.10-05:00
    folded: >
      folded
        more indented
      back
data:
  folded: >
    folded
      more indented
    back
";
    check(
        "annotation texts",
        &[
            ("kustomization.yaml", "resources:\n- cm.yaml\n"),
            ("cm.yaml", cm),
        ],
        Want::Yaml(
            "apiVersion: v1
data:
  folded: |
    folded

      more indented
    back
kind: ConfigMap
metadata:
  annotations:
    e: \"1e3\"
    f: \"1.50\"
    folded: |
      folded
        more indented
      back
    h: \"0x1F\"
    n1: \"null\"
    n2: \"~\"
    n3: \"\"
    n4: \"Null\"
    o: \"010\"
    t: \"yes\"
    ts: \"2001-12-14t21:59:43.10-05:00\"
  labels:
    l1: null
    l2: null
    l3: null
  name: cm
",
        ),
    );
}

#[test]
fn floats_print_as_go_prints_them() {
    let svc = "apiVersion: v1
kind: Service
metadata:
  name: s
spec:
  a: 3e+100
  b: 123456789.12345678
  c: 1.0
  e: 1e-7
  f: 100000000000000000000.0
  g: 1e21
  i: 2.5e-300
  j: 1.7976931348623157e308
  k: 4.9e-324
  l: 12345678901234567890
  m: -0.0
  n: 0.30000000000000004
";
    check(
        "floats",
        &[
            (
                "kustomization.yaml",
                "resources:\n- s.yaml\nnamePrefix: p-\n",
            ),
            ("s.yaml", svc),
        ],
        Want::Yaml(
            "apiVersion: v1
kind: Service
metadata:
  name: p-s
spec:
  a: 3e+100
  b: 1.2345678912345678e+08
  c: 1
  e: 1e-07
  f: 1e+20
  g: 1e+21
  i: 2.5e-300
  j: 1.7976931348623157e+308
  k: 5e-324
  l: 12345678901234567890
  m: 0
  \"n\": 0.30000000000000004
",
        ),
    );
}

/// A ConfigMap whose `data` holds mappings nested `depth` levels deep
/// ending in `leaf`, as block YAML.
fn deep_configmap(depth: usize, leaf: &str) -> String {
    let mut s = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n");
    for i in 0..depth {
        s += &format!("{}k{i}:\n", "  ".repeat(i + 1));
    }
    s += &format!("{}{leaf}\n", "  ".repeat(depth + 1));
    s
}

fn deep_tree(depth: usize) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("temp dir");
    let kustomization = "resources:\n- cm.yaml\nnamePrefix: p-\ncommonLabels:\n  app: deep\n\
                         namespace: ns\npatches:\n- path: patch.yaml\n";
    write_tree(
        tmp.path(),
        &[
            ("kustomization.yaml", kustomization),
            ("cm.yaml", &deep_configmap(depth, "leaf: 1")),
            ("patch.yaml", &deep_configmap(depth, "leaf: 2")),
        ],
    );
    tmp
}

#[test]
fn deep_resources_and_patches_build() {
    for depth in [130, 990] {
        let tmp = deep_tree(depth);
        let got = kustom(tmp.path());
        assert!(
            got.status.success(),
            "depth {depth}: {}",
            String::from_utf8_lossy(&got.stderr)
        );
        let out = String::from_utf8(got.stdout).expect("UTF-8");
        let mut want = String::from("apiVersion: v1\ndata:\n");
        for i in 0..depth {
            want += &format!("{}k{i}:\n", "  ".repeat(i + 1));
        }
        want += &format!("{}leaf: 2\n", "  ".repeat(depth + 1));
        want += "kind: ConfigMap\nmetadata:\n  labels:\n    app: deep\n  name: p-deep\n  namespace: ns\n";
        assert!(out == want, "depth {depth}: output differs");
        if depth == 130 {
            check_dir("deep 130", tmp.path(), Want::Yaml(&want));
        }
    }
}

#[test]
fn nesting_past_the_reader_limit_fails_cleanly() {
    let tmp = deep_tree(1100);
    let got = kustom(tmp.path());
    assert!(!got.status.success());
    assert!(got.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(
        stderr.contains("nested more than 1000 levels") && stderr.contains("cm.yaml"),
        "{stderr}"
    );
}

#[test]
fn strategic_merge_drops_values_written_empty() {
    // kyaml's merge walker drops `key:` (no value) everywhere it walks —
    // maps and associative lists, patched or not — but keeps `null` and
    // `~`, and keeps everything inside lists it does not merge (`list`).
    // Resources no strategic-merge patch reaches print both as null.
    check(
        "empty values and strategic merge",
        &[
            (
                "kustomization.yaml",
                r##"resources:
- res.yaml
- list.yaml
patches:
- patch: |
    apiVersion: example.com/v1
    kind: Thing
    metadata:
      name: t
    spec:
      touched: 1
- patch: |
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: fromlist
    data:
      x: "1"
- patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: d
    spec:
      replicas: 2
- target:
    kind: Service
  patch: |
    - op: add
      path: /spec/x
      value: 1
namePrefix: p-
"##,
            ),
            (
                "res.yaml",
                r##"apiVersion: example.com/v1
kind: Thing
metadata:
  name: t
  annotations:
    keep: me
spec:
  top:
  tilde: ~
  list:
  - a:
    name: x
  - b: null
  nested:
    deep:
    deeper:
      e:
  flow: {f: , g: ~}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  labels:
spec:
  template:
    metadata:
      labels:
    spec:
      containers:
      - name: c
        image: i
        env:
        - name: E
          value:
        ports:
        - containerPort: 80
          hostPort:
      volumes:
      - name: v
        emptyDir:
---
apiVersion: v1
kind: Service
metadata:
  name: s
spec:
  clusterIP:
  ports:
  - port: 80
    nodePort:
---
apiVersion: v1
kind: Secret
metadata:
  name: untouched
  annotations:
stringData:
  a:
"##,
            ),
            (
                "list.yaml",
                r##"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: fromlist
  data:
    empty:
    nul: null
"##,
            ),
        ],
        Want::Yaml(
            r##"apiVersion: v1
data:
  nul: null
  x: "1"
kind: ConfigMap
metadata:
  name: p-fromlist
---
apiVersion: v1
kind: Secret
metadata:
  name: p-untouched
stringData:
  a: null
---
apiVersion: v1
kind: Service
metadata:
  name: p-s
spec:
  clusterIP: null
  ports:
  - nodePort: null
    port: 80
  x: 1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: p-d
spec:
  replicas: 2
  template:
    metadata: {}
    spec:
      containers:
      - env:
        - name: E
        image: i
        name: c
        ports:
        - containerPort: 80
      volumes:
      - name: v
---
apiVersion: example.com/v1
kind: Thing
metadata:
  annotations:
    keep: me
  name: p-t
spec:
  flow:
    g: null
  list:
  - a: null
    name: x
  - b: null
  nested:
    deeper: {}
  tilde: null
  touched: 1
"##,
        ),
    );
    check(
        "empty values in a patch and in the target",
        &[
            (
                "kustomization.yaml",
                r##"resources:
- dep.yaml
patches:
- patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: d
    spec:
      template:
        spec:
          containers:
          - name: c
            image: new
            emptyP:
            nullP: null
            tildeP: ~
"##,
            ),
            (
                "dep.yaml",
                r##"apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  labels:
    emptyL:
    nullL: null
spec:
  emptyS:
  nullS: null
  tildeS: ~
  template:
    spec:
      containers:
      - name: c
        image: old
        emptyC:
        nullC: null
        args:
        - 
        - null
      - name: other
        emptyO:
"##,
            ),
        ],
        Want::Yaml(
            r##"apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    nullL: null
  name: d
spec:
  nullS: null
  template:
    spec:
      containers:
      - args:
        - null
        - null
        image: new
        name: c
        nullC: null
      - name: other
  tildeS: null
"##,
        ),
    );
}

#[test]
fn list_items_annotations_keep_their_scalar_text() {
    // A `kind: *List` document's items become resources of their own, whose
    // annotations kustomize prints from their text like top-level ones.
    let list = "apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
    annotations:
      n: null
      h: 0x1F
      e:
";
    check(
        "list item annotations",
        &[
            ("kustomization.yaml", "resources:\n- l.yaml\n"),
            ("l.yaml", list),
        ],
        Want::Yaml(
            "apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    e: \"\"
    h: \"0x1F\"
    \"n\": \"null\"
  name: a
",
        ),
    );
}

/// A Deployment and a Service with selectors, for the label tests.
const SELECTED: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n  template:\n    metadata:\n      labels:\n        app: d\n    spec:\n      containers:\n      - name: c\n        image: nginx\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  selector:\n    app: d\n";

#[test]
fn labels_later_entry_rewrites_selectors_an_earlier_one_created() {
    // `labels:` entries become one LabelTransformer each, in order. Entries a
    // transformer creates share one value in kustomize, so the second
    // (metadata-only) entry rewrites the selectors and templates too.
    check(
        "labels selectors then plain",
        &[("kustomization.yaml", "resources:\n- res.yaml\nlabels:\n- pairs:\n    team: a\n  includeSelectors: true\n- pairs:\n    team: b\n"), ("res.yaml", SELECTED)],
        Want::Yaml("apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    team: b\n  name: s\nspec:\n  selector:\n    app: d\n    team: b\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    team: b\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n      team: b\n  template:\n    metadata:\n      labels:\n        app: d\n        team: b\n    spec:\n      containers:\n      - image: nginx\n        name: c\n"),
    );
}

#[test]
fn labels_templates_then_plain_same_key() {
    // includeTemplates only: the template entry shares the metadata one's value.
    check(
        "labels templates then plain",
        &[("kustomization.yaml", "resources:\n- res.yaml\nlabels:\n- pairs:\n    team: a\n  includeTemplates: true\n- pairs:\n    team: b\n"), ("res.yaml", SELECTED)],
        Want::Yaml("apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    team: b\n  name: s\nspec:\n  selector:\n    app: d\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    team: b\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n  template:\n    metadata:\n      labels:\n        app: d\n        team: b\n    spec:\n      containers:\n      - image: nginx\n        name: c\n"),
    );
}

#[test]
fn labels_with_fields_then_plain_same_key() {
    // Custom `fields:` are linked the same way.
    check(
        "labels fields then plain",
        &[("kustomization.yaml", "resources:\n- res.yaml\nlabels:\n- pairs:\n    team: a\n  fields:\n  - path: spec/selector\n    kind: Service\n    create: true\n- pairs:\n    team: b\n"), ("res.yaml", SELECTED)],
        Want::Yaml("apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    team: b\n  name: s\nspec:\n  selector:\n    app: d\n    team: b\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    team: b\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n  template:\n    metadata:\n      labels:\n        app: d\n    spec:\n      containers:\n      - image: nginx\n        name: c\n"),
    );
}

#[test]
fn labels_same_key_three_times() {
    // Three entries: each overwrite writes through to what the first created.
    check(
        "labels three times",
        &[("kustomization.yaml", "resources:\n- res.yaml\nlabels:\n- pairs:\n    team: a\n  includeTemplates: true\n- pairs:\n    team: b\n  includeSelectors: true\n- pairs:\n    team: c\n"), ("res.yaml", SELECTED)],
        Want::Yaml("apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    team: c\n  name: s\nspec:\n  selector:\n    app: d\n    team: b\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    team: c\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n      team: b\n  template:\n    metadata:\n      labels:\n        app: d\n        team: c\n    spec:\n      containers:\n      - image: nginx\n        name: c\n"),
    );
}

#[test]
fn common_labels_after_labels_same_key() {
    // commonLabels run after all `labels:` entries and write every field anyway.
    check(
        "commonLabels and labels",
        &[("kustomization.yaml", "resources:\n- res.yaml\ncommonLabels:\n  team: b\nlabels:\n- pairs:\n    team: a\n  includeTemplates: true\n"), ("res.yaml", SELECTED)],
        Want::Yaml("apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    team: b\n  name: s\nspec:\n  selector:\n    app: d\n    team: b\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    team: b\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n      team: b\n  template:\n    metadata:\n      labels:\n        app: d\n        team: b\n    spec:\n      containers:\n      - image: nginx\n        name: c\n"),
    );
}

#[test]
fn labels_existing_entries_are_not_linked() {
    // An entry that existed is overwritten in its own node: not linked, so the
    // metadata label goes its own way while selector and template stay together.
    check(
        "labels over existing",
        &[("kustomization.yaml", "resources:\n- res.yaml\nlabels:\n- pairs:\n    team: a\n  includeSelectors: true\n- pairs:\n    team: b\n- pairs:\n    team: c\n  includeTemplates: true\n"), ("res.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  labels:\n    team: x\nspec:\n  selector:\n    matchLabels:\n      app: d\n  template:\n    metadata:\n      labels:\n        app: d\n    spec:\n      containers:\n      - name: c\n        image: nginx\n")],
        Want::Yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    team: c\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n      team: c\n  template:\n    metadata:\n      labels:\n        app: d\n        team: c\n    spec:\n      containers:\n      - image: nginx\n        name: c\n"),
    );
}

#[test]
fn links_cross_layers_for_labels_and_common_annotations() {
    // Links survive into an overlay; commonAnnotations link metadata and
    // template annotations the same way.
    check(
        "labels and annotations across layers",
        &[("kustomization.yaml", "resources:\n- base\nlabels:\n- pairs:\n    team: b\ntransformers:\n- |-\n  apiVersion: builtin\n  kind: AnnotationsTransformer\n  metadata:\n    name: notes\n  annotations:\n    note: b\n  fieldSpecs:\n  - path: metadata/annotations\n    create: true\n"), ("base/kustomization.yaml", "resources:\n- res.yaml\nlabels:\n- pairs:\n    team: a\n  includeSelectors: true\ncommonAnnotations:\n  note: a\n"), ("base/res.yaml", SELECTED)],
        Want::Yaml("apiVersion: v1\nkind: Service\nmetadata:\n  annotations:\n    note: b\n  labels:\n    team: b\n  name: s\nspec:\n  selector:\n    app: d\n    team: b\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  annotations:\n    note: b\n  labels:\n    team: b\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n      team: b\n  template:\n    metadata:\n      annotations:\n        note: b\n      labels:\n        app: d\n        team: b\n    spec:\n      containers:\n      - image: nginx\n        name: c\n"),
    );
}

#[test]
fn json_patches_unlink_shared_entries() {
    // A JSON patch rebuilds the resource: its entries no longer share values.
    check(
        "json patch unlinks",
        &[("kustomization.yaml", "resources:\n- base\nlabels:\n- pairs:\n    team: b\npatches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: d\n    spec:\n      template:\n        metadata:\n          labels:\n            team: z\n- patch: |-\n    - op: replace\n      path: /spec/selector/team\n      value: q\n  target:\n    kind: Service\n"), ("base/kustomization.yaml", "resources:\n- res.yaml\nlabels:\n- pairs:\n    team: a\n  includeSelectors: true\n"), ("base/res.yaml", SELECTED)],
        Want::Yaml("apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    team: b\n  name: s\nspec:\n  selector:\n    app: d\n    team: q\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    team: b\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n      team: b\n  template:\n    metadata:\n      labels:\n        app: d\n        team: b\n    spec:\n      containers:\n      - image: nginx\n        name: c\n"),
    );
}

/// A multi-document patch under `patches:` without a `target` that sets
/// annotations to null removes them, and adds nothing where they were
/// absent (kustomize merges the patch's own nodes); with a target or under
/// `patchesStrategicMerge` kustomize copies the annotations as strings
/// first, so `null` comes out as `"null"` there.
#[test]
fn null_annotations_in_patches_without_target_delete() {
    const CRDS: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: a.example.com
  annotations:
    cert-manager.io/inject-ca-from: ns/cert
    keep: "yes"
spec:
  group: example.com
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: b.example.com
spec:
  group: example.com
"#;
    const PATCH: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: a.example.com
  annotations:
    cert-manager.io/inject-ca-from: null
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: b.example.com
  annotations:
    cert-manager.io/inject-ca-from: null
"#;
    check(
        "patch without target",
        &[
            (
                "kustomization.yaml",
                "resources:\n- crds.yaml\npatches:\n- path: patch.yaml\n",
            ),
            ("crds.yaml", CRDS),
            ("patch.yaml", PATCH),
        ],
        Want::Yaml(
            r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    keep: "yes"
  name: a.example.com
spec:
  group: example.com
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: b.example.com
spec:
  group: example.com
"#,
        ),
    );
    check(
        "json patch value null, labels and other null forms",
        &[
            (
                "kustomization.yaml",
                r#"resources:
- crds.yaml
patches:
- patch: |-
    - op: add
      path: /metadata/annotations/added
      value: null
  target:
    name: a.example.com
- patch: |-
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata:
      name: b.example.com
      labels:
        gone: null
        x: ~
      annotations:
        tilde: ~
        hex: 0x1F
        empty:
"#,
            ),
            ("crds.yaml", CRDS),
        ],
        Want::Yaml(
            r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    added: "null"
    cert-manager.io/inject-ca-from: ns/cert
    keep: "yes"
  name: a.example.com
spec:
  group: example.com
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    hex: "0x1F"
  labels: {}
  name: b.example.com
spec:
  group: example.com
"#,
        ),
    );
    let with_target = "resources:\n- crds.yaml\npatches:\n- path: patch.yaml\n  target:\n    kind: CustomResourceDefinition\n    name: a.example.com\n";
    let one = PATCH.split("---").next().unwrap_or(PATCH);
    check(
        "patch with target keeps the string",
        &[("kustomization.yaml", with_target), ("crds.yaml", CRDS), ("patch.yaml", one)],
        Want::Yaml(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: \"null\"\n    keep: \"yes\"\n  name: a.example.com\nspec:\n  group: example.com\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: b.example.com\nspec:\n  group: example.com\n",
        ),
    );
}

/// Selector fields are Go regular expressions: a `{` that starts no
/// repetition is a literal there, so a templated name like
/// `${CLUSTER_NAME}-control-plane` compiles (and, `$` being the end of the
/// text, matches nothing as a patch target).
#[test]
fn selectors_use_go_regex_syntax() {
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${CLUSTER_NAME}-control-plane\ndata:\n  a: b\n";
    let want = "apiVersion: v1\ndata:\n  a: b\nkind: ConfigMap\nmetadata:\n  name: ${CLUSTER_NAME}-control-plane\n";
    check(
        "templated name in a patch target",
        &[
            ("cm.yaml", cm),
            (
                "kustomization.yaml",
                "resources:\n- cm.yaml\npatches:\n- patch: |-\n    - op: add\n      path: /data/c\n      value: d\n  target:\n    kind: ConfigMap\n    name: ${CLUSTER_NAME}-control-plane\n",
            ),
        ],
        Want::Yaml(want),
    );
    check(
        "escaped template matches",
        &[
            ("cm.yaml", cm),
            (
                "kustomization.yaml",
                "resources:\n- cm.yaml\npatches:\n- patch: |-\n    - op: add\n      path: /data/c\n      value: d\n  target:\n    name: \\$\\{CLUSTER_NAME}-control-.*\n",
            ),
        ],
        Want::Yaml("apiVersion: v1\ndata:\n  a: b\n  c: d\nkind: ConfigMap\nmetadata:\n  name: ${CLUSTER_NAME}-control-plane\n"),
    );
    check(
        "templated name in a replacement target",
        &[
            ("cm.yaml", cm),
            (
                "kustomization.yaml",
                "resources:\n- cm.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n    fieldPath: data.a\n  targets:\n  - select:\n      name: ${CLUSTER_NAME}-control-plane\n    fieldPaths:\n    - data.z\n",
            ),
        ],
        // kustomize selects the ConfigMap here and then finds no `data.z`:
        // the selector compiles, where Rust's syntax alone would fail.
        Want::Fails("unable to find field \"data.z\" in replacement target"),
    );
}

/// Field names match ignoring case at every depth, as Go's JSON decoding
/// does (`Replacements`, `Source`, `FieldPath`, `Options.Delimiter`,
/// `Targets`, `Select`, `Patches`, `Target: {Kind: …}`); a key that names
/// no field of a replacement is an error, as in kustomize.
#[test]
fn field_names_match_ignoring_case_at_every_depth() {
    const RES: &str = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: src
data:
  value: a,b,c
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: c
        image: nginx:1.0
"#;
    check(
        "mixed-case keys in replacements and patches",
        &[
            ("res.yaml", RES),
            (
                "kustomization.yaml",
                r#"resources:
- res.yaml
Replacements:
- Source:
    Kind: ConfigMap
    name: src
    FieldPath: data.value
    Options:
      Delimiter: ","
      Index: 1
  Targets:
  - Select:
      Kind: Deployment
    FieldPaths:
    - spec.template.spec.containers.0.name
Patches:
- Patch: |-
    - op: add
      path: /metadata/labels
      value: {x: y}
  Target:
    Kind: Deployment
"#,
            ),
        ],
        Want::Yaml(
            r#"apiVersion: v1
data:
  value: a,b,c
kind: ConfigMap
metadata:
  name: src
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    x: true
  name: web
spec:
  template:
    spec:
      containers:
      - image: nginx:1.0
        name: b
"#,
        ),
    );
    check(
        "unknown key in a replacement source",
        &[
            ("res.yaml", RES),
            (
                "kustomization.yaml",
                r#"resources:
- res.yaml
replacements:
- source:
    kind: ConfigMap
    fieldpathx: data.value
  targets:
  - select:
      kind: Deployment
    fieldPaths:
    - spec.template.spec.containers.0.name
"#,
            ),
        ],
        Want::Fails("unknown field `fieldpathx`"),
    );
}

/// JSON patch operations written as YAML are read as YAML 1.1, as
/// sigs.k8s.io/yaml reads them (`on` and `y` are booleans, `010` is 8).
#[test]
fn json_patch_yaml_is_yaml_1_1() {
    check(
        "YAML 1.1 scalars in op values",
        &[
            (
                "res.yaml",
                r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: src
data:
  value: a,b,c
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: c
        image: nginx:1.0
"#,
            ),
            (
                "kustomization.yaml",
                r#"resources:
- res.yaml
patches:
- patch: |-
    - op: add
      path: /metadata/annotations
      value: {a: on, b: "on", c: 010, d: 1e3, e: 0x1F, f: no, g: ~, h: 1.0}
  target:
    kind: Deployment
- patch: |-
    - op: add
      path: /spec/replicas
      value: 010
  target:
    kind: Deployment
"#,
            ),
        ],
        Want::Yaml(
            r#"apiVersion: v1
data:
  value: a,b,c
kind: ConfigMap
metadata:
  name: src
---
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    a: "true"
    b: "on"
    c: "8"
    d: "1000"
    e: "31"
    f: "false"
    g: "null"
    h: "1"
  name: web
spec:
  replicas: 8
  template:
    spec:
      containers:
      - image: nginx:1.0
        name: c
"#,
        ),
    );
}

/// A `*` step in a field-spec path fails once the walk meets a mapping
/// there, in every transformer that walks field specs, as kyaml's
/// PathGetter does ("wildcard is not supported in PathGetter").
#[test]
fn wildcard_field_spec_steps_fail_as_in_kustomize() {
    const DEP: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  template:
    spec:
      containers:
      - name: c
        image: nginx:1.0
        env:
        - name: X
          value: $(V)
"#;
    check(
        "commonLabels configuration",
        &[
            ("dep.yaml", DEP),
            (
                "cfg.yaml",
                r#"commonLabels:
- path: metadata/labels/*
  create: true
"#,
            ),
            (
                "kustomization.yaml",
                r#"resources:
- dep.yaml
configurations:
- cfg.yaml
commonLabels:
  a: b
"#,
            ),
        ],
        Want::Fails("considering field 'metadata/labels/*' of object Deployment.v1.apps/"),
    );
    check(
        "varReference configuration",
        &[
            ("dep.yaml", DEP),
            (
                "cfg.yaml",
                r#"varReference:
- path: metadata/labels/*
"#,
            ),
            (
                "kustomization.yaml",
                r#"resources:
- dep.yaml
configurations:
- cfg.yaml
vars:
- name: V
  objref:
    kind: Deployment
    name: web
    apiVersion: apps/v1
"#,
            ),
        ],
        Want::Fails("considering field 'metadata/labels/*' of object Deployment.v1.apps/"),
    );
    check(
        "nameReference configuration",
        &[
            ("dep.yaml", DEP),
            (
                "cfg.yaml",
                r#"nameReference:
- kind: Deployment
  fieldSpecs:
  - path: metadata/labels/*
"#,
            ),
            (
                "kustomization.yaml",
                r#"resources:
- dep.yaml
configurations:
- cfg.yaml
namePrefix: p-
"#,
            ),
        ],
        Want::Fails("considering field 'metadata/labels/*' of object Deployment.v1.apps/"),
    );
    check(
        "images configuration",
        &[
            ("dep.yaml", DEP),
            (
                "cfg.yaml",
                r#"images:
- path: metadata/labels/*
"#,
            ),
            (
                "kustomization.yaml",
                r#"resources:
- dep.yaml
configurations:
- cfg.yaml
images:
- name: nginx
  newTag: "2"
"#,
            ),
        ],
        Want::Fails("considering field 'metadata/labels/*' of object Deployment.v1.apps/"),
    );
}

/// Fields the build reads late (helm charts, vars, label field specs,
/// metadata, sort options) are still typed when the kustomization is read,
/// as kustomize's decoder types them: an unknown or mistyped field there is
/// an error, not a chart that might run anyway.
#[test]
fn late_read_fields_are_typed_on_load() {
    let cases: &[(&str, &str)] = &[
        ("helmCharts:\n- name: x\n  bogus: 1\n", "json: unknown field \"bogus\" (in helmCharts)"),
        (
            "helmCharts:\n- name: x\n  includeCRDs: \"yes\"\n",
            "cannot unmarshal string into Go struct field HelmChart.helmCharts.includeCRDs of type bool",
        ),
        (
            "helmCharts:\n- name: x\n  version: 1.0\n",
            "json: cannot unmarshal number into Go struct field HelmChart.helmCharts.version of type string",
        ),
        (
            "helmCharts:\n- name: x\n  valuesInline: 3\n",
            "HelmChart.helmCharts.valuesInline of type map[string]interface {}",
        ),
        ("helmGlobals:\n  chartHome: c\n  bogus: 1\n", "json: unknown field \"bogus\" (in helmGlobals)"),
        ("helmChartInflationGenerator:\n- chartName: x\n  bogus: 1\n", "json: unknown field \"bogus\""),
        ("vars:\n- name: V\n  objref: {kind: A, name: b, bogus: 1}\n", "json: unknown field \"bogus\" (in vars)"),
        (
            "labels:\n- pairs: {a: b}\n  fields:\n  - path: x\n    create: \"yes\"\n",
            "Go struct field FieldSpec.labels.fields.create of type bool",
        ),
        ("metadata:\n  name: a\n  bogus: 1\n", "json: unknown field \"bogus\" (in metadata)"),
        ("sortOptions:\n  order: fifo\n  bogus: 1\n", "json: unknown field \"bogus\" (in sortOptions)"),
    ];
    for (i, (fields, message)) in cases.iter().enumerate() {
        let kustomization = format!("resources:\n- cm.yaml\n{fields}");
        check(
            &format!("late-read field {i}"),
            &[
                ("kustomization.yaml", kustomization.as_str()),
                (
                    "cm.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
                ),
            ],
            Want::Fails(message),
        );
    }
}
