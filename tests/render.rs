//! `kustom render`: many roots in one process, each written as `kustom
//! build ROOT -o OUTDIR/ROOT` (and `kubectl kustomize ROOT -o DIR`) writes
//! it; failures reported per root; roots discovered; shards disjoint.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use support::{ok, skip, Env};

/// A small GitOps tree: a shared base, a component, three overlays, a
/// root that includes two others' bases, and a Component nobody uses.
fn tree(env: &Env) {
    env.write(
        "base/kustomization.yaml",
        "resources:\n- deploy.yaml\n- svc.yaml\nconfigMapGenerator:\n- name: cfg\n  literals: [A=1]\n",
    );
    env.write(
        "base/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: cfg\n",
    );
    env.write(
        "base/svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
    );
    env.write(
        "comp/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations:\n  team: web\n",
    );
    for (env_name, prefix) in [("dev", "dev-"), ("staging", "stg-"), ("prod", "prod-")] {
        let comps = if env_name == "prod" {
            "components:\n- ../../comp\n"
        } else {
            ""
        };
        env.write(
            &format!("overlays/{env_name}/kustomization.yaml"),
            &format!(
                "resources:\n- ../../base\n{comps}namePrefix: {prefix}\nnamespace: {env_name}\nimages:\n- name: nginx\n  newTag: \"1.27\"\nsecretGenerator:\n- name: token\n  literals: [T={env_name}]\n"
            ),
        );
    }
    env.write(
        "all/kustomization.yaml",
        "resources:\n- ../overlays/dev\n- ../overlays/staging\n",
    );
}

fn files_below(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            out.insert(
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            );
        }
    }
    out
}

#[test]
fn each_root_is_written_as_build_writes_it_and_as_kubectl_does() {
    let env = Env::new();
    tree(&env);
    let roots = ["overlays/dev", "overlays/staging", "overlays/prod", "all"];
    let mut args = vec!["render", "-o", "out"];
    args.extend(roots);
    ok(&env.kustom(&args));
    for root in roots {
        let got = files_below(&env.root().join("out").join(root));
        assert!(!got.is_empty(), "nothing written for {root}");
        let single = env.root().join("single").join(root);
        std::fs::create_dir_all(&single).unwrap();
        ok(&env.kustom(&["build", root, "-o", &single.display().to_string()]));
        assert_eq!(
            got,
            files_below(&single),
            "render and build -o differ for {root}"
        );
        let reference = env.root().join("kubectl").join(root);
        std::fs::create_dir_all(&reference).unwrap();
        match env.kubectl(&[root, "-o", &reference.display().to_string()]) {
            Some(o) if o.status.success() => {
                assert_eq!(
                    got,
                    files_below(&reference),
                    "render and kubectl differ for {root}"
                )
            }
            _ => skip("kubectl: render's files not compared with kubectl kustomize -o"),
        }
    }
}

/// A folded (`>`) scalar with a more-indented line, as a CEL expression in
/// an admission policy often is: `build` prints it re-read through go-yaml
/// v3's folded writer (a blank line appears), while `-o DIR` writes the
/// value as the file said, in kubectl too.
#[test]
fn folded_text_is_written_into_files_as_its_file_said() {
    let env = Env::new();
    env.write(
        "policy/kustomization.yaml",
        "resources:\n- cm.yaml\npatches:\n- path: patch.yaml\n",
    );
    // A patch file's folded text too (the builtin reads it in its process).
    env.write(
        "policy/patch.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rule\ndata:\n  patched: >-\n    all(x,\n      x.ok)\n",
    );
    env.write(
        "policy/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rule\ndata:\n  expression: >-\n    exists(c,\n      c.ok\n    )\n  plain: >\n    joined\n    words\n",
    );
    let printed = "apiVersion: v1\ndata:\n  expression: |-\n    exists(c,\n\n      c.ok\n    )\n  patched: |-\n    all(x,\n\n      x.ok)\n  plain: |\n    joined words\nkind: ConfigMap\nmetadata:\n  name: rule\n";
    let in_file = "apiVersion: v1\ndata:\n  expression: |-\n    exists(c,\n      c.ok\n    )\n  patched: |-\n    all(x,\n      x.ok)\n  plain: |\n    joined words\nkind: ConfigMap\nmetadata:\n  name: rule\n";
    let o = env.kustom(&["build", "policy"]);
    ok(&o);
    assert_eq!(String::from_utf8_lossy(&o.stdout), printed);
    ok(&env.kustom(&["render", "-o", "out", "policy"]));
    let got = files_below(&env.root().join("out/policy"));
    assert_eq!(
        got.get("v1_configmap_rule.yaml")
            .map(|b| String::from_utf8_lossy(b).into_owned()),
        Some(in_file.to_string())
    );
    let reference = env.root().join("kubectl");
    std::fs::create_dir_all(&reference).unwrap();
    match env.kubectl(&["policy", "-o", &reference.display().to_string()]) {
        Some(o) if o.status.success() => assert_eq!(got, files_below(&reference)),
        _ => skip("kubectl: folded text in -o files not compared with kubectl kustomize -o"),
    }
    match env.kubectl(&["policy"]) {
        Some(o) if o.status.success() => assert_eq!(String::from_utf8_lossy(&o.stdout), printed),
        _ => skip("kubectl: folded text in build's output not compared with kubectl kustomize"),
    }
}

#[test]
fn a_failing_root_is_reported_and_the_others_are_written() {
    let env = Env::new();
    tree(&env);
    env.write("broken/kustomization.yaml", "resources:\n- missing.yaml\n");
    let o = env.kustom(&[
        "render",
        "-o",
        "out",
        "broken",
        "overlays/dev",
        "overlays/prod",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("root broken") && err.contains("missing.yaml"),
        "{err}"
    );
    assert!(err.contains("1 of 3 roots failed"), "{err}");
    assert!(!files_below(&env.root().join("out/overlays/dev")).is_empty());
    assert!(!files_below(&env.root().join("out/overlays/prod")).is_empty());
    assert!(!env
        .root()
        .join("out/broken")
        .join("v1_configmap_cfg.yaml")
        .exists());
}

#[test]
fn roots_are_discovered_and_shards_split_them() {
    let env = Env::new();
    tree(&env);
    // Without roots: every kustomization directory no other includes
    // (overlays/prod and all; all includes dev and staging; comp is
    // included by prod).
    ok(&env.kustom(&["render", "-o", "out"]));
    let mut written: Vec<String> = Vec::new();
    for d in [
        "overlays/dev",
        "overlays/staging",
        "overlays/prod",
        "all",
        "base",
        "comp",
    ] {
        if env.root().join("out").join(d).is_dir() {
            written.push(d.to_string());
        }
    }
    assert_eq!(written, ["overlays/prod", "all"]);
    // Shards of a --roots list: disjoint, and together every root.
    env.write(
        "roots.txt",
        "# roots\noverlays/dev\noverlays/staging\n\n./overlays/prod/\nall\n",
    );
    let mut seen = Vec::new();
    for k in 1..=3 {
        let out = format!("shard{k}");
        ok(&env.kustom(&[
            "render",
            "-o",
            &out,
            "--roots",
            "roots.txt",
            "--shard",
            &format!("{k}/3"),
        ]));
        for d in ["overlays/dev", "overlays/staging", "overlays/prod", "all"] {
            if env.root().join(&out).join(d).is_dir() {
                seen.push(d.to_string());
            }
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        ["all", "overlays/dev", "overlays/prod", "overlays/staging"]
    );
}

#[test]
fn roots_sharing_a_base_get_what_separate_builds_give() {
    // Two roots reach the same base; one of them picks an OpenAPI schema
    // after it, which keeps its build private. Both must equal `build`.
    let env = Env::new();
    tree(&env);
    env.write(
        "schema/kustomization.yaml",
        "resources:\n- ../base\nopenapi:\n  version: v1.21.2\npatches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: web\n    spec:\n      replicas: 2\n",
    );
    let o = env.kustom(&[
        "render",
        "-v",
        "-o",
        "out",
        "overlays/dev",
        "schema",
        "overlays/prod",
    ]);
    ok(&o);
    for root in ["overlays/dev", "schema", "overlays/prod"] {
        let single = env.root().join("single").join(root);
        std::fs::create_dir_all(&single).unwrap();
        ok(&env.kustom(&["build", root, "-o", &single.display().to_string()]));
        assert_eq!(
            files_below(&env.root().join("out").join(root)),
            files_below(&single),
            "{root}"
        );
    }
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(log.contains("bases_reused: "), "{log}");
}

#[test]
fn the_audit_log_is_appended_one_entry_per_config_with_the_root() {
    let env = Env::new();
    tree(&env);
    let log = env.root().join("audit.jsonl");
    let log_arg = log.display().to_string();
    ok(&env.kustom(&[
        "render",
        "-o",
        "out",
        "--audit-log",
        &log_arg,
        "overlays/prod",
    ]));
    ok(&env.kustom(&["build", "--audit-log", &log_arg, "overlays/dev"]));
    // One call per config gives the same output as batched calls.
    ok(&env.kustom(&["render", "-o", "plain", "overlays/prod"]));
    assert_eq!(
        files_below(&env.root().join("out/overlays/prod")),
        files_below(&env.root().join("plain/overlays/prod"))
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let builds: std::collections::BTreeSet<&str> =
        lines.iter().filter_map(|l| l["build"].as_str()).collect();
    assert_eq!(builds.len(), 2, "two builds, appended");
    for l in &lines {
        for key in [
            "build",
            "time",
            "kustomVersion",
            "root",
            "seq",
            "op",
            "kustomization",
            "entry",
        ] {
            assert!(l.get(key).is_some(), "no {key} in {l}");
        }
        if l["op"] != "read" {
            assert_eq!(l["configs"].as_array().map(Vec::len), Some(1), "{l}");
        }
    }
    // The generator is logged as a generator, on its own.
    let secret = lines
        .iter()
        .find(|l| l["entry"] == "secretGenerator[0] (name: token)")
        .expect("a SecretGenerator entry");
    assert_eq!(secret["op"], "generate");
    assert_eq!(secret["root"], "overlays/prod");
    assert!(
        !secret.to_string().contains("T=prod"),
        "literal not masked: {secret}"
    );
    // Old and new values.
    let image = lines
        .iter()
        .find(|l| l["entry"] == "images[0] (name: nginx)" && l["root"] == "overlays/dev")
        .expect("an images entry");
    let v = &image["resources"][0]["values"][0];
    assert_eq!(v["old"], "nginx:1.25");
    assert_eq!(v["new"], "nginx:1.27");
}
