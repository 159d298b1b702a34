//! `kustom diff` on real git repositories made in temporary directories:
//! the JSON sets and exit codes against `kubectl kustomize` of every root
//! at both revisions, skipping unaffected roots equals building all, the
//! work tree untouched, formats, masking, Argo CD / Flux roots, shards.

mod support;

use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;
use support::{git, skip, Env};

fn commit(env: &Env, msg: &str) -> String {
    git(env.root(), &["add", "-A"]);
    git(env.root(), &["commit", "-qm", msg, "--allow-empty"]);
    git(env.root(), &["rev-parse", "HEAD"]).trim().to_string()
}

const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n";

/// A repository: two apps with a base and two overlays each, a shared
/// platform base, a component; committed.
fn repo() -> (Env, String) {
    let env = Env::new();
    git(env.root(), &["init", "-q", "-b", "main"]);
    env.write("platform/kustomization.yaml", "resources:\n- limits.yaml\n");
    env.write(
        "platform/limits.yaml",
        "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: defaults\nspec:\n  limits:\n  - type: Container\n",
    );
    env.write(
        "comp/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations:\n  monitored: \"true\"\n",
    );
    for app in ["web", "api"] {
        env.write(
            &format!("apps/{app}/base/kustomization.yaml"),
            "resources:\n- deploy.yaml\n- cm.yaml\n",
        );
        env.write(&format!("apps/{app}/base/deploy.yaml"), DEPLOY);
        env.write(
            &format!("apps/{app}/base/cm.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: static\ndata:\n  k: v\n",
        );
        for e in ["dev", "prod"] {
            let comps = if e == "prod" {
                "components:\n- ../../../../comp\n"
            } else {
                ""
            };
            env.write(
                &format!("apps/{app}/overlays/{e}/kustomization.yaml"),
                &format!(
                    "namespace: {app}-{e}\nresources:\n- ../../base\n- ../../../../platform\n{comps}images:\n- name: nginx\n  newTag: \"1.26\"\nsecretGenerator:\n- name: creds\n  literals: [PASSWORD=s3cret-{e}]\n"
                ),
            );
        }
    }
    env.write("README.md", "repo\n");
    let base = commit(&env, "base");
    (env, base)
}

fn diff(env: &Env, args: &[&str]) -> (i32, String, String) {
    let mut a = vec!["diff"];
    a.extend(args);
    let o = env.kustom(&a);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn json(env: &Env, args: &[&str]) -> (i32, Value) {
    let mut a = vec!["--format", "json"];
    a.extend(args);
    let (code, out, err) = diff(env, &a);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v)
}

/// (root, status) and (root, change, kind, namespace, name) sets of a report.
type Sets = (
    BTreeSet<(String, String)>,
    BTreeSet<(String, String, String, String, String, String)>,
);

fn sets(report: &Value) -> Sets {
    let mut roots = BTreeSet::new();
    let mut res = BTreeSet::new();
    for r in report["roots"].as_array().unwrap() {
        let root = r["root"].as_str().unwrap().to_string();
        let status = r["status"].as_str().unwrap().to_string();
        if status == "unchanged" {
            continue;
        }
        roots.insert((root.clone(), status));
        for x in r["resources"].as_array().into_iter().flatten() {
            let s = |k: &str| x[k].as_str().unwrap().to_string();
            // A rename is the kubectl loop's removal of the old name and
            // addition of the new.
            let mut changes = vec![(s("change"), s("name"))];
            if changes[0].0 == "renamed" {
                changes = vec![("removed".into(), s("from")), ("added".into(), s("name"))];
            }
            for (change, name) in changes {
                res.insert((
                    root.clone(),
                    change,
                    s("apiVersion"),
                    s("kind"),
                    s("namespace"),
                    name,
                ));
            }
        }
    }
    (roots, res)
}

/// The reference: `kubectl kustomize` of every root at both commits
/// (checked out with `git archive`), compared by id and YAML text.
fn reference(env: &Env, base: &str, head: &str, roots: &[&str]) -> Option<Sets> {
    if Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
        .is_err()
    {
        return None;
    }
    let render =
        |rev: &str,
         root: &str|
         -> Option<std::collections::BTreeMap<(String, String, String, String), String>> {
            let dir = env.root().join(format!("../ref-{}", &rev[..7]));
            if !dir.exists() {
                std::fs::create_dir_all(&dir).unwrap();
                let tar = Command::new("git")
                    .arg("-C")
                    .arg(env.root())
                    .args(["archive", rev])
                    .output()
                    .unwrap();
                let mut x = Command::new("tar")
                    .arg("-x")
                    .arg("-C")
                    .arg(&dir)
                    .stdin(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                std::io::Write::write_all(x.stdin.as_mut().unwrap(), &tar.stdout).unwrap();
                x.wait().unwrap();
            }
            let path = dir.join(root);
            if !path.join("kustomization.yaml").exists() {
                return None;
            }
            let o = Command::new("kubectl")
                .arg("kustomize")
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "kubectl on {root}@{rev}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let text = String::from_utf8(o.stdout).unwrap();
            let mut out = std::collections::BTreeMap::new();
            for doc in text.split("\n---\n") {
                let v: Value = serde_json::to_value(serde_yaml_like(doc)).unwrap();
                let s = |p: &str| {
                    v.pointer(p)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                };
                out.insert(
                    (
                        s("/apiVersion"),
                        s("/kind"),
                        s("/metadata/namespace"),
                        s("/metadata/name"),
                    ),
                    doc.trim_end().to_string(),
                );
            }
            Some(out)
        };
    let mut roots_set = BTreeSet::new();
    let mut res = BTreeSet::new();
    for root in roots {
        let (b, h) = (render(base, root), render(head, root));
        let status = match (&b, &h) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            _ => "changed",
        };
        let empty = Default::default();
        let (b, h) = (b.as_ref().unwrap_or(&empty), h.as_ref().unwrap_or(&empty));
        let mut any = false;
        for key in b.keys().chain(h.keys()).collect::<BTreeSet<_>>() {
            let change = match (b.get(key), h.get(key)) {
                (Some(x), Some(y)) if x == y => continue,
                (Some(_), Some(_)) => "modified",
                (None, Some(_)) => "added",
                _ => "removed",
            };
            any = true;
            res.insert((
                root.to_string(),
                change.into(),
                key.0.clone(),
                key.1.clone(),
                key.2.clone(),
                key.3.clone(),
            ));
        }
        if any || status != "changed" {
            roots_set.insert((root.to_string(), status.to_string()));
        }
    }
    Some((roots_set, res))
}

/// The top-level fields of a YAML document that the reference needs
/// (apiVersion, kind, metadata.name, metadata.namespace), read by line.
fn serde_yaml_like(doc: &str) -> Value {
    let mut v = serde_json::json!({"metadata": {}});
    let mut in_meta = false;
    for line in doc.lines() {
        if let Some(x) = line.strip_prefix("apiVersion: ") {
            v["apiVersion"] = x.into();
        } else if let Some(x) = line.strip_prefix("kind: ") {
            v["kind"] = x.into();
        } else if line == "metadata:" {
            in_meta = true;
        } else if !line.starts_with(' ') {
            in_meta = false;
        } else if in_meta {
            if let Some(x) = line.strip_prefix("  name: ") {
                v["metadata"]["name"] = x.into();
            } else if let Some(x) = line.strip_prefix("  namespace: ") {
                v["metadata"]["namespace"] = x.into();
            }
        }
    }
    v
}

const ROOTS: &[&str] = &[
    "apps/web/overlays/dev",
    "apps/web/overlays/prod",
    "apps/api/overlays/dev",
    "apps/api/overlays/prod",
    "apps/new/overlays/prod",
];

/// A change touching one app's base, one overlay's image, a new root,
/// a removed ConfigMap and a new resource.
fn change(env: &Env) {
    env.write(
        "apps/web/base/deploy.yaml",
        &DEPLOY.replace("replicas: 1", "replicas: 2"),
    );
    env.write(
        "apps/web/base/kustomization.yaml",
        "resources:\n- deploy.yaml\n- svc.yaml\n",
    );
    env.write(
        "apps/web/base/svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
    );
    env.write(
        "apps/api/overlays/prod/kustomization.yaml",
        "namespace: api-prod\nresources:\n- ../../base\n- ../../../../platform\ncomponents:\n- ../../../../comp\nimages:\n- name: nginx\n  newTag: \"1.27\"\nsecretGenerator:\n- name: creds\n  literals: [PASSWORD=s3cret-prod]\n",
    );
    env.write(
        "apps/new/overlays/prod/kustomization.yaml",
        "resources:\n- ../../../api/base\nnamePrefix: new-\n",
    );
}

/// The roots `kustom diff` reports after a change that reaches every root
/// (a new file in the shared platform base).
fn roots_after_a_change_to_all(env: &Env) -> Vec<String> {
    env.write(
        "platform/limits.yaml",
        "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: other\n",
    );
    let (_, report) = json(env, &[]);
    report["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["root"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn sets_and_exit_codes_match_kubectl_at_both_revisions() {
    let (env, base) = repo();
    change(&env);
    let head = commit(&env, "change");
    let (code, report) = json(&env, &["--base", &base, "--head", &head]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["base"], base.as_str());
    assert_eq!(report["head"], head.as_str());
    let got = sets(&report);
    // What the change must give, written out.
    let roots: Vec<(&str, &str)> = got
        .0
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(
        roots,
        [
            ("apps/api/overlays/prod", "changed"),
            ("apps/new/overlays/prod", "added"),
            ("apps/web/overlays/dev", "changed"),
            ("apps/web/overlays/prod", "changed"),
        ]
    );
    assert!(got.1.contains(&(
        "apps/web/overlays/dev".into(),
        "removed".into(),
        "v1".into(),
        "ConfigMap".into(),
        "web-dev".into(),
        "static".into()
    )));
    assert!(got.1.contains(&(
        "apps/web/overlays/dev".into(),
        "added".into(),
        "v1".into(),
        "Service".into(),
        "web-dev".into(),
        "web".into()
    )));
    assert!(got.1.contains(&(
        "apps/web/overlays/prod".into(),
        "modified".into(),
        "apps/v1".into(),
        "Deployment".into(),
        "web-prod".into(),
        "web".into()
    )));
    match reference(&env, &base, &head, ROOTS) {
        Some(want) => assert_eq!(got, want, "kustom diff and the kubectl loop differ"),
        None => skip("kubectl: diff sets not compared with kubectl kustomize at both revisions"),
    }
    // Nothing differs: 0.
    let (code, report) = json(&env, &["--base", &head, "--head", &head]);
    assert_eq!(
        (code, report["roots"].as_array().map(Vec::len)),
        (0, Some(0)),
        "{report}"
    );
    // A root broken at head: 2, with the file named.
    env.write(
        "apps/api/overlays/dev/kustomization.yaml",
        "resources:\n- ../../base\n- missing.yaml\n",
    );
    let broken = commit(&env, "break");
    let (code, report) = json(&env, &["--base", &head, "--head", &broken]);
    assert_eq!(code, 2, "{report}");
    let failed = &report["roots"][0];
    assert_eq!(failed["status"], "failed");
    assert!(
        failed["error"].as_str().unwrap().contains("missing.yaml"),
        "{failed}"
    );
    // A revision that does not exist: 2, saying so.
    let (code, _, err) = diff(&env, &["--base", "no-such-branch"]);
    assert_eq!(code, 2);
    assert!(err.contains("no-such-branch"), "{err}");
}

#[test]
fn skipping_unaffected_roots_gives_what_building_every_root_gives() {
    let (env, base) = repo();
    // Several kinds of change, each compared with and without skipping.
    type Step = Box<dyn Fn(&Env)>;
    let changes: Vec<Step> = vec![
        Box::new(|e: &Env| {
            e.write("README.md", "edited\n");
        }),
        Box::new(|e: &Env| {
            e.write("platform/limits.yaml", "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: defaults\nspec:\n  limits:\n  - type: Pod\n");
        }),
        Box::new(change),
        Box::new(|e: &Env| {
            e.write("comp/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations:\n  monitored: \"false\"\n");
        }),
        Box::new(|e: &Env| {
            std::fs::remove_dir_all(e.root().join("apps/web/overlays/dev")).unwrap();
        }),
    ];
    let mut prev = base;
    let mut skipped_any = false;
    for c in changes {
        c(&env);
        let head = commit(&env, "step");
        let args = ["--base", prev.as_str(), "--head", head.as_str(), "-v"];
        let (code, skipping) = json(&env, &args);
        let mut all_args = args.to_vec();
        all_args.push("--no-skip");
        let (code_all, all) = json(&env, &all_args);
        assert_eq!(
            (code, &skipping),
            (code_all, &all),
            "skipping changed the result at {head}"
        );
        let (_, _, log) = diff(&env, &["--base", &prev, "--head", &head, "-v"]);
        skipped_any |= !log.contains("skipped: 0");
        // Against the kubectl loop too.
        if let Some(want) = reference(&env, &prev, &head, ROOTS) {
            assert_eq!(sets(&skipping), want, "at {head}");
        }
        prev = head;
    }
    assert!(skipped_any, "no root was ever skipped");
}

#[test]
fn the_work_tree_is_the_default_head_and_is_left_untouched() {
    let (env, _) = repo();
    let (code, report) = json(&env, &[]);
    assert_eq!((code, report["head"].as_str()), (0, Some("worktree")));
    env.write(
        "apps/web/base/deploy.yaml",
        &DEPLOY.replace("nginx:1.25", "nginx:1.24"),
    );
    env.write(
        "apps/web/base/extra.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: untracked\n",
    );
    env.write(
        "apps/web/base/kustomization.yaml",
        "resources:\n- deploy.yaml\n- cm.yaml\n- extra.yaml\n",
    );
    let status = git(
        env.root(),
        &["status", "--porcelain", "--untracked-files=all"],
    );
    let index = std::fs::read(env.root().join(".git/index")).unwrap();
    let (code, report) = json(&env, &[]);
    assert_eq!(code, 1);
    let (roots, res) = sets(&report);
    assert_eq!(roots.len(), 2, "{report}");
    assert!(
        res.iter().any(|r| r.5 == "untracked" && r.1 == "added"),
        "{report}"
    );
    assert_eq!(
        git(
            env.root(),
            &["status", "--porcelain", "--untracked-files=all"]
        ),
        status
    );
    assert_eq!(
        std::fs::read(env.root().join(".git/index")).unwrap(),
        index,
        "the index was written"
    );
    // -C from elsewhere.
    let (code, _) = json(
        &env,
        &["-C", &env.root().join("apps").display().to_string()],
    );
    assert_eq!(code, 1);
}

#[test]
fn secrets_are_masked_unless_asked() {
    let (env, _) = repo();
    env.write(
        "apps/web/overlays/dev/kustomization.yaml",
        "namespace: web-dev\nresources:\n- ../../base\n- ../../../../platform\nimages:\n- name: nginx\n  newTag: \"1.26\"\nsecretGenerator:\n- name: creds\n  literals: [PASSWORD=n3w-value]\n  options:\n    disableNameSuffixHash: true\n",
    );
    let (code, text, _) = diff(&env, &["--format", "text"]);
    assert_eq!(code, 1);
    let b64 = |s: &str| {
        // base64 of the literals, as they appear in the Secret.
        const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let b = s.as_bytes();
        let mut out = String::new();
        for c in b.chunks(3) {
            let n = (c[0] as u32) << 16
                | (*c.get(1).unwrap_or(&0) as u32) << 8
                | *c.get(2).unwrap_or(&0) as u32;
            for i in 0..4 {
                if i <= c.len() {
                    out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    };
    for secret in ["n3w-value", "s3cret-dev"] {
        assert!(
            !text.contains(&b64(secret)) && !text.contains(secret),
            "{secret} shown:\n{text}"
        );
    }
    assert!(text.contains("***"), "{text}");
    let (_, shown, _) = diff(&env, &["--format", "text", "--show-secrets"]);
    assert!(shown.contains(&b64("n3w-value")), "{shown}");
    let (_, json_out, _) = diff(&env, &["--format", "json"]);
    assert!(!json_out.contains(&b64("n3w-value")), "{json_out}");
    // The Secret whose only change is a value is named, with the key.
    commit(&env, "no hash suffix");
    env.write(
        "apps/web/overlays/dev/kustomization.yaml",
        "namespace: web-dev\nresources:\n- ../../base\n- ../../../../platform\nimages:\n- name: nginx\n  newTag: \"1.26\"\nsecretGenerator:\n- name: creds\n  literals: [PASSWORD=n3wer-value, USER=admin]\n  options:\n    disableNameSuffixHash: true\n",
    );
    let (_, text, _) = diff(&env, &["--format", "text"]);
    assert!(
        !text.contains(&b64("n3wer-value")) && !text.contains(&b64("admin")),
        "{text}"
    );
    assert!(text.contains("+  USER: '***'"), "{text}");
    assert!(
        text.contains("v1 Secret web-dev/creds") && text.contains("+  PASSWORD: '*** (changed)'"),
        "{text}"
    );
    let (_, md, _) = diff(&env, &["--format", "markdown"]);
    assert!(
        md.contains("v1 Secret web-dev/creds") && md.contains("PASSWORD: '*** (changed)'"),
        "{md}"
    );

    // A JSON 6902 patch that targets a Secret: its value stays out of the
    // audit log too.
    env.write(
        "apps/api/base/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: b2xk\n",
    );
    env.write(
        "apps/api/base/kustomization.yaml",
        "resources:\n- deploy.yaml\n- cm.yaml\n- secret.yaml\npatches:\n- target: {kind: Secret, name: db}\n  patch: |-\n    - op: replace\n      path: /data/password\n      value: aHVudGVyMg==\n",
    );
    let scratch = tempfile::tempdir().unwrap();
    let log = scratch.path().join("audit.jsonl");
    let (_, text, _) = diff(
        &env,
        &["--audit-log", &log.display().to_string(), "--explain"],
    );
    let audit = std::fs::read_to_string(&log).unwrap();
    assert!(audit.contains("\"resources\""), "the audit log is empty");
    for out in [&audit, &text] {
        assert!(
            !out.contains("aHVudGVyMg==") && !out.contains("hunter2"),
            "{out}"
        );
    }

    // A PEM block anywhere is a stable token: the same certificate gives
    // the same token, a changed one another.
    let cert =
        |body: &str| format!("-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n");
    let cm = |a: &str, b: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: static\n  annotations:\n    ca: |\n{}data:\n  tls.crt: |\n{}",
            a.lines().map(|l| format!("      {l}\n")).collect::<String>(),
            b.lines().map(|l| format!("    {l}\n")).collect::<String>()
        )
    };
    env.write(
        "apps/web/base/cm.yaml",
        &cm(&cert("MIIBold"), &cert("MIIBold")),
    );
    commit(&env, "certs");
    env.write(
        "apps/web/base/cm.yaml",
        &cm(&cert("MIIBold"), &cert("MIIBnew")),
    );
    let (_, text, _) = diff(&env, &[]);
    assert!(!text.contains("MIIB"), "{text}");
    let tokens: Vec<&str> = text
        .lines()
        .filter_map(|l| l.find("<PEM CERTIFICATE sha256:").map(|i| &l[i..]))
        .collect();
    // Per root: the annotation's token twice (context lines), then the
    // data's old and new.
    let distinct: BTreeSet<&str> = tokens.iter().copied().collect();
    assert_eq!(distinct.len(), 2, "{text}");
    assert!(
        text.contains("-    <PEM CERTIFICATE sha256:")
            && text.contains("+    <PEM CERTIFICATE sha256:"),
        "{text}"
    );
}

/// Whether every code fence and `<details>` block of a comment part is closed in it.
fn balanced(part: &str) -> bool {
    part.matches("```").count().is_multiple_of(2)
        && part.matches("<details>").count() == part.matches("</details>").count()
}

#[test]
fn markdown_comes_in_parts_that_fit_the_limit_and_stand_alone() {
    let (env, _) = repo();
    let big: String = (0..4000)
        .map(|i| format!("  key{i}: value-{i}-{}\n", "x".repeat(20)))
        .collect();
    for app in ["web", "api"] {
        env.write(
            &format!("apps/{app}/base/cm.yaml"),
            &format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: static\ndata:\n{big}"),
        );
        env.write(
            &format!("apps/{app}/base/deploy.yaml"),
            &DEPLOY.replace("replicas: 1", "replicas: 4"),
        );
    }
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("comments");
    let (code, stdout, err) = diff(
        &env,
        &[
            "--format",
            "markdown",
            "--comment-limit",
            "30000",
            "-o",
            &out.display().to_string(),
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    let mut parts = Vec::new();
    while let Ok(p) = std::fs::read_to_string(out.join(format!("comment-{}.md", parts.len() + 1))) {
        parts.push(p);
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), parts.len());
    assert!(parts.len() >= 4, "{} parts", parts.len());
    for (i, p) in parts.iter().enumerate() {
        assert!(p.len() <= 30_000, "part {} has {} bytes", i + 1, p.len());
        assert!(balanced(p), "part {} is not balanced", i + 1);
    }
    let roots = [
        "apps/api/overlays/dev",
        "apps/api/overlays/prod",
        "apps/web/overlays/dev",
        "apps/web/overlays/prod",
    ];
    for r in roots {
        assert!(
            parts[0].contains(&format!("| `{r}` |")),
            "{r} not in part 1"
        );
    }
    // Every changed resource is in some part; each ConfigMap's diff
    // (bigger than a part) is cut at a line, saying how much is left out.
    let all = parts.concat();
    for r in roots {
        let ns = r.split('/').nth(1).unwrap().to_string() + "-" + r.rsplit('/').next().unwrap();
        for res in [
            format!("v1 ConfigMap {ns}/static"),
            format!("apps/v1 Deployment {ns}/web"),
        ] {
            assert!(all.contains(&res), "{res} missing");
        }
    }
    assert_eq!(
        all.matches("Cut here: ").count(),
        4,
        "one cut per ConfigMap"
    );
    let cut = parts.iter().find(|p| p.contains("Cut here")).unwrap();
    assert!(
        cut.contains("more lines ("),
        "{}",
        &cut[cut.find("Cut here").unwrap()..]
    );
    // Without -o the same parts go to STDOUT, one after another.
    let (_, md, _) = diff(&env, &["--format", "markdown", "--comment-limit", "30000"]);
    assert_eq!(md.matches("<!-- kustom diff: part ").count(), parts.len());
    // A small diff is one part, whole.
    let (env, _) = repo();
    env.write(
        "apps/web/base/deploy.yaml",
        &DEPLOY.replace("replicas: 1", "replicas: 3"),
    );
    let (_, md, _) = diff(&env, &["--format", "markdown"]);
    assert!(
        !md.contains("part 1")
            && !md.contains("Cut here")
            && md.contains("<details>")
            && md.contains("```diff"),
        "{md}"
    );
    // No change: one short comment.
    let (code, md, _) = diff(
        &env,
        &["--format", "markdown", "--base", "HEAD", "--head", "HEAD"],
    );
    assert_eq!(code, 0);
    assert!(
        md.len() < 200 && md.contains("no rendered manifest changes"),
        "{md}"
    );
}

#[test]
fn generated_renames_are_renames_and_keyed_lists_ignore_order() {
    let (env, base) = repo();
    env.write(
        "apps/web/base/kustomization.yaml",
        "resources:\n- deploy.yaml\n- cm.yaml\nconfigMapGenerator:\n- name: app\n  literals: [mode=a]\n",
    );
    env.write(
        "apps/web/base/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        env:\n        - {name: A, value: \"1\"}\n        - {name: B, value: \"2\"}\n        envFrom:\n        - configMapRef: {name: app}\n      - name: side\n        image: busybox:1\n",
    );
    let with_cm = commit(&env, "generator");
    // mode a -> b; env and containers reordered.
    env.write(
        "apps/web/base/kustomization.yaml",
        "resources:\n- deploy.yaml\n- cm.yaml\nconfigMapGenerator:\n- name: app\n  literals: [mode=b]\n",
    );
    env.write(
        "apps/web/base/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: side\n        image: busybox:1\n      - name: web\n        image: nginx:1.25\n        env:\n        - {name: B, value: \"2\"}\n        - {name: A, value: \"1\"}\n        envFrom:\n        - configMapRef: {name: app}\n",
    );
    let head = commit(&env, "mode b");
    let (code, report) = json(&env, &["--base", &with_cm, "--head", &head, "--explain"]);
    assert_eq!(code, 1, "{report}");
    let root = report["roots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["root"] == "apps/web/overlays/dev")
        .expect("dev");
    let cm = root["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "ConfigMap" && r["change"] == "renamed")
        .unwrap_or_else(|| panic!("no rename: {root}"));
    let (from, to) = (cm["from"].as_str().unwrap(), cm["name"].as_str().unwrap());
    assert!(
        from.starts_with("app-") && to.starts_with("app-") && from != to,
        "{cm}"
    );
    let d = cm["diff"].as_str().unwrap();
    assert!(d.contains("-  mode: a\n+  mode: b\n"), "{d}");
    assert!(
        cm["explain"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["field"] == "/metadata/name"
                && c["entry"] == "configMapGenerator[0] (name: app)"
                && c["kustomization"] == "apps/web/base/kustomization.yaml"),
        "{cm}"
    );
    // The Deployment's only changes are the reference to the renamed
    // ConfigMap and the order of keyed lists: the diff shows the first only.
    let dep = root["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "Deployment")
        .expect("the reference changed");
    let d = dep["diff"].as_str().unwrap();
    let changed: Vec<&str> = d
        .lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-'))
                && !l.starts_with("+++")
                && !l.starts_with("---")
        })
        .collect();
    assert_eq!(changed.len(), 2, "{d}");
    assert!(changed.iter().all(|l| l.contains("name: app-")), "{d}");
    // A pure reorder is no change at all.
    env.write(
        "apps/web/base/deploy.yaml",
        &std::fs::read_to_string(env.root().join("apps/web/base/deploy.yaml"))
            .unwrap()
            .replace(
                "- {name: B, value: \"2\"}\n        - {name: A, value: \"1\"}",
                "- {name: A, value: \"1\"}\n        - {name: B, value: \"2\"}",
            ),
    );
    let (code, report) = json(&env, &["--base", &head]);
    assert_eq!(
        (code, report["roots"].as_array().map(Vec::len)),
        (0, Some(0)),
        "{report}"
    );
    // The kubectl loop agrees on what changed, a rename counted as a
    // removal and an addition.
    let got = sets(&json(&env, &["--base", &base, "--head", &head]).1);
    match reference(&env, &base, &head, ROOTS) {
        Some(want) => assert_eq!(got, want, "kustom diff and the kubectl loop differ"),
        None => skip("kubectl: renames not compared with kubectl kustomize"),
    }
}

#[test]
fn the_summary_lists_changed_images_and_risk_flags() {
    let (env, _) = repo();
    env.write(
        "apps/web/base/deploy.yaml",
        &DEPLOY.replace("replicas: 1", "replicas: 0").replace(
            "spec:\n  replicas",
            "spec:\n  selector:\n    matchLabels: {app: web2}\n  replicas",
        ),
    );
    // The overlays' `images:` entry names `nginx`; this image is another.
    env.write(
        "apps/api/base/deploy.yaml",
        &DEPLOY.replace("nginx:1.25", "registry.example.com/nginx:2.0"),
    );
    env.write("platform/kustomization.yaml", "resources: []\n");
    let (code, md, _) = diff(&env, &["--format", "markdown"]);
    assert_eq!(code, 1);
    let images = &md[md.find("**Changed images**").expect("images")..];
    // Each image pair once, over all roots.
    assert_eq!(
        images
            .matches("- `nginx:1.26` → `registry.example.com/nginx:2.0`")
            .count(),
        1,
        "{md}"
    );
    let risks = &md[md.find("**Risk flags**").expect("risks")..md.find("<details>").unwrap()];
    for root in ["apps/web/overlays/dev", "apps/web/overlays/prod"] {
        assert!(
            risks.contains(&format!(
                "`{root}`: apps/v1 Deployment {}/web — spec.selector changed",
                root.replace("apps/", "").replace("/overlays/", "-")
            )),
            "{risks}"
        );
        assert!(
            risks.contains(&format!(
                "`{root}`: apps/v1 Deployment {}/web — replicas go to 0",
                root.replace("apps/", "").replace("/overlays/", "-")
            )),
            "{risks}"
        );
    }
    assert!(!risks.contains("apps/api"), "{risks}");
    // Per root: resources added, removed and changed, and lines.
    assert!(
        md.contains("| `apps/api/overlays/dev` | changed | 0 | 1 | 1 | +1 −"),
        "{md}"
    );
    let (_, text, _) = diff(&env, &[]);
    assert!(
        text.contains("image nginx:1.26 -> registry.example.com/nginx:2.0"),
        "{text}"
    );
    assert!(
        text.contains("RISK apps/web/overlays/dev: apps/v1 Deployment web-dev/web: spec.selector"),
        "{text}"
    );
}

#[test]
fn ignore_rules_hide_changes_and_count_them() {
    let (env, _) = repo();
    env.write(
        "apps/web/base/deploy.yaml",
        &DEPLOY.replace("metadata:\n  name: web\n", "metadata:\n  name: web\n  annotations:\n    checksum/config: abc\n    helm.sh/chart: web-1.0.1\n"),
    );
    commit(&env, "annotations");
    env.write(
        "apps/web/base/deploy.yaml",
        &DEPLOY.replace("metadata:\n  name: web\n", "metadata:\n  name: web\n  annotations:\n    checksum/config: def\n    helm.sh/chart: web-1.0.2\n"),
    );
    env.write(
        "apps/api/base/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: static\ndata:\n  k: other\n",
    );
    // Without rules everything shows.
    let (code, report) = json(&env, &[]);
    assert_eq!(code, 1);
    assert_eq!(report["roots"].as_array().unwrap().len(), 4);
    // The defaults hide the annotations; a resource glob the ConfigMaps.
    let (code, md, _) = diff(
        &env,
        &[
            "--format",
            "markdown",
            "--ignore-defaults",
            "--ignore",
            "core/ConfigMap/api-*/static",
        ],
    );
    assert_eq!(code, 0, "{md}");
    assert!(
        md.contains("no rendered manifest changes. 6 changes hidden by rules."),
        "{md}"
    );
    // A field path, and the repository's rules file read by default.
    let (_, report) = json(&env, &["--ignore", ".metadata.annotations[checksum/*]"]);
    let web = &report["roots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["root"] == "apps/web/overlays/dev")
        .unwrap()
        .clone();
    assert_eq!(web["hidden"], 1, "{web}");
    let d = web["resources"][0]["diff"].as_str().unwrap();
    assert!(
        d.contains("helm.sh/chart") && !d.contains("checksum"),
        "{d}"
    );
    env.write(
        ".kustom/diff.yaml",
        "ignore:\n- \"*/ConfigMap/*/*\"\nignoreDefaults: true\n",
    );
    let (code, text, _) = diff(&env, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("6 changes hidden by rules"), "{text}");
    let (code, _, _) = diff(&env, &["--no-rules-file"]);
    assert_eq!(code, 1);
    // A bad rule names where it came from.
    env.write(".kustom/diff.yaml", "ignore:\n- Deployment/web\n");
    let (code, _, err) = diff(&env, &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains(".kustom/diff.yaml") && err.contains("Deployment/web"),
        "{err}"
    );
}

#[test]
fn explain_credits_each_changed_field_to_its_entry() {
    let (env, _) = repo();
    env.write(
        "apps/api/overlays/prod/kustomization.yaml",
        "namespace: api-prod\nresources:\n- ../../base\n- ../../../../platform\ncomponents:\n- ../../../../comp\nimages:\n- name: nginx\n  newTag: \"1.27\"\nreplicas:\n- name: web\n  count: 5\nsecretGenerator:\n- name: creds\n  literals: [PASSWORD=s3cret-prod]\n",
    );
    env.write(
        "apps/api/base/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: static\ndata:\n  k: changed\n",
    );
    let (code, report) = json(&env, &["--explain"]);
    assert_eq!(code, 1);
    let root = report["roots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["root"] == "apps/api/overlays/prod")
        .expect("prod");
    let credits: Vec<(String, String, String)> = root["resources"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["explain"].as_array().cloned().unwrap_or_default())
        .map(|c| {
            (
                c["field"].as_str().unwrap().into(),
                c["kustomization"].as_str().unwrap().into(),
                c["entry"].as_str().unwrap().into(),
            )
        })
        .collect();
    let k = "apps/api/overlays/prod/kustomization.yaml".to_string();
    assert!(
        credits.contains(&(
            "/spec/template/spec/containers/0/image".into(),
            k.clone(),
            "images[0] (name: nginx)".into()
        )),
        "{credits:?}"
    );
    assert!(
        credits.contains(&("/spec/replicas".into(), k, "replicas[0] (name: web)".into())),
        "{credits:?}"
    );
    assert!(
        credits.contains(&(
            "/data/k".into(),
            "apps/api/base/kustomization.yaml".into(),
            "resources: cm.yaml".into()
        )),
        "{credits:?}"
    );
    // The same attribution in text.
    let (_, text, _) = diff(&env, &["--explain"]);
    assert!(
        text.contains(
            "/spec/replicas <- apps/api/overlays/prod/kustomization.yaml: replicas[0] (name: web)"
        ),
        "{text}"
    );
}

/// A removed resource is credited to the entry that made it at base: the
/// reviewer sees which entry's removal took it away.
#[test]
fn explain_credits_a_removed_resource_to_its_entry_at_base() {
    let (env, _) = repo();
    env.write(
        "apps/web/base/kustomization.yaml",
        "resources:\n- deploy.yaml\n",
    );
    let (code, report) = json(&env, &["--explain"]);
    assert_eq!(code, 1);
    let credits = credits_of(&report, "apps/web/overlays/dev");
    assert_eq!(
        credits,
        [(
            "ConfigMap".to_string(),
            String::new(),
            "apps/web/base/kustomization.yaml".to_string(),
            "resources: cm.yaml".to_string()
        )],
        "{report}"
    );
    let (_, text, _) = diff(&env, &["--explain"]);
    assert!(
        text.contains("ConfigMap web-dev/static removed: made at base by\n#   (whole resource) <- apps/web/base/kustomization.yaml: resources: cm.yaml"),
        "{text}"
    );
}

/// The credits of `root`'s changed resources: (kind, field, kustomization, entry).
fn credits_of(report: &Value, root: &str) -> Vec<(String, String, String, String)> {
    let root = report["roots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["root"] == root)
        .unwrap_or_else(|| panic!("{root} not in {report}"));
    let mut out = Vec::new();
    for r in root["resources"].as_array().unwrap() {
        for c in r["explain"].as_array().into_iter().flatten() {
            let s = |v: &Value| v.as_str().unwrap().to_string();
            out.push((
                s(&r["kind"]),
                s(&c["field"]),
                s(&c["kustomization"]),
                s(&c["entry"]),
            ));
        }
    }
    out
}

#[test]
fn explain_credits_replacements_vars_components_and_remote_bases() {
    let (env, _) = repo();
    let scratch = tempfile::tempdir().unwrap();
    let remote = scratch.path().join("remote");
    std::fs::create_dir_all(remote.join("base")).unwrap();
    std::fs::write(
        remote.join("base/kustomization.yaml"),
        "resources:\n- cm.yaml\n",
    )
    .unwrap();
    std::fs::write(
        remote.join("base/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  tag: one\n  mode: fast\n",
    )
    .unwrap();
    git(&remote, &["init", "-q", "-b", "main"]);
    git(&remote, &["add", "-A"]);
    git(&remote, &["commit", "-qm", "one"]);
    git(&remote, &["tag", "v1"]);
    std::fs::write(
        remote.join("base/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  tag: two\n  mode: slow\n",
    )
    .unwrap();
    git(&remote, &["commit", "-qam", "two"]);
    git(&remote, &["tag", "v2"]);
    let url = |tag: &str| {
        format!(
            "file://{}//base?ref={tag}",
            remote.canonicalize().unwrap().display()
        )
    };
    let kustomization = |tag: &str| {
        format!(
            "resources:\n- ../../base\n- {}\ncomponents:\n- ../../../../comp\nreplacements:\n- source: {{kind: ConfigMap, name: shared, fieldPath: data.tag}}\n  targets:\n  - select: {{kind: Deployment, name: web}}\n    fieldPaths: [spec.template.metadata.annotations.tag]\n    options: {{create: true}}\nvars:\n- name: MODE\n  objref: {{kind: ConfigMap, name: shared, apiVersion: v1}}\n  fieldref: {{fieldpath: data.mode}}\n",
            url(tag)
        )
    };
    env.write(
        "apps/web/overlays/edge/kustomization.yaml",
        &kustomization("v1"),
    );
    env.write(
        "apps/web/base/deploy.yaml",
        &DEPLOY.replace(
            "image: nginx:1.25\n",
            "image: nginx:1.25\n        args: [\"--mode=$(MODE)\"]\n",
        ),
    );
    commit(&env, "edge");
    env.write(
        "apps/web/overlays/edge/kustomization.yaml",
        &kustomization("v2"),
    );
    env.write("comp/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations:\n  monitored: \"false\"\n");
    let (code, report) = json(&env, &["--explain"]);
    assert_eq!(code, 1, "{report}");
    let got = credits_of(&report, "apps/web/overlays/edge");
    let k = "apps/web/overlays/edge/kustomization.yaml".to_string();
    let want = [
        (
            "Deployment",
            "/spec/template/metadata/annotations/tag",
            k.as_str(),
            "replacements",
        ),
        (
            "Deployment",
            "/spec/template/spec/containers/0/args/0",
            k.as_str(),
            "vars",
        ),
        (
            "Deployment",
            "/metadata/annotations/monitored",
            "comp/kustomization.yaml",
            "commonAnnotations",
        ),
    ];
    for (kind, field, at, entry) in want {
        assert!(
            got.contains(&(kind.into(), field.into(), at.into(), entry.into())),
            "{kind} {field} not credited to {at}: {entry}: {got:?}"
        );
    }
    let from_remote = format!("{} (cm.yaml)", url("v2"));
    let from_remote = from_remote.replace("(cm.yaml)", "(kustomization.yaml)");
    assert!(
        got.contains(&(
            "ConfigMap".into(),
            "/data/mode".into(),
            from_remote,
            "resources: cm.yaml".into()
        )),
        "{got:?}"
    );
}

#[test]
fn roots_come_from_argocd_and_flux_objects() {
    let (env, _) = repo();
    env.write(
        "argocd/app.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web-prod\nspec:\n  source:\n    repoURL: https://git.example.com/r.git\n    path: apps/web/overlays/prod\n",
    );
    env.write(
        "argocd/set.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: dev\nspec:\n  generators:\n  - git:\n      repoURL: https://git.example.com/r.git\n      directories:\n      - path: apps/*\n      - path: apps/web\n        exclude: true\n  template:\n    spec:\n      source:\n        path: '{{path}}/overlays/dev'\n",
    );
    commit(&env, "argocd");
    // A change to every root: only the Argo CD ones are reported.
    assert_eq!(
        roots_after_a_change_to_all(&env),
        ["apps/api/overlays/dev", "apps/web/overlays/prod"]
    );
    // Flux.
    let (env, _) = repo();
    env.write(
        "clusters/prod/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: api\nspec:\n  path: ./apps/api/overlays/prod\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    );
    commit(&env, "flux");
    assert_eq!(
        roots_after_a_change_to_all(&env),
        ["apps/api/overlays/prod"]
    );
    // Without such objects: every kustomization no other includes.
    let (env, _) = repo();
    assert_eq!(
        roots_after_a_change_to_all(&env),
        [
            "apps/api/overlays/dev",
            "apps/api/overlays/prod",
            "apps/web/overlays/dev",
            "apps/web/overlays/prod"
        ]
    );
}

#[test]
fn shards_merge_into_the_whole_report() {
    let (env, base) = repo();
    change(&env);
    let head = commit(&env, "change");
    let (code, whole) = json(&env, &["--base", &base, "--head", &head]);
    let mut files = Vec::new();
    for k in 1..=3 {
        let (_, out, _) = diff(
            &env,
            &[
                "--base",
                &base,
                "--head",
                &head,
                "--format",
                "json",
                "--shard",
                &format!("{k}/3"),
            ],
        );
        let f = env.root().join(format!("../shard-{k}.json"));
        std::fs::write(&f, out).unwrap();
        files.push(f.display().to_string());
    }
    let mut args = vec!["--merge"];
    args.extend(files.iter().map(String::as_str));
    let (merged_code, merged) = json(&env, &args);
    assert_eq!((merged_code, &merged), (code, &whole));
    let mut md_args = args.clone();
    md_args.extend(["--format", "markdown"]);
    let (_, md, _) = diff(&env, &md_args);
    assert!(md.contains("4 roots differ"), "{md}");
    // Reports of different diffs are refused.
    let (_, other, _) = diff(
        &env,
        &["--base", &head, "--head", &head, "--format", "json"],
    );
    let f = env.root().join("../other.json");
    std::fs::write(&f, other).unwrap();
    let (code, _, err) = diff(&env, &["--merge", &files[0], &f.display().to_string()]);
    assert_eq!(code, 2);
    assert!(err.contains("merge reports of one diff only"), "{err}");
}

/// Debian's chromium (or another Chromium) when installed.
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// The opening tag of the element whose `data-name` is `name` in `dom`.
fn tag_of<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let at = dom.find(&format!("data-name=\"{name}\""))?;
    let start = dom[..at].rfind('<')?;
    let end = at + dom[at..].find('>')?;
    Some(&dom[start..=end])
}

#[test]
fn the_html_report_lists_every_change_and_filters_in_chromium() {
    let (env, base) = repo();
    change(&env);
    let head = commit(&env, "change");
    let (_, report) = json(&env, &["--base", &base, "--head", &head]);
    let (code, page, _) = diff(
        &env,
        &["--base", &base, "--head", &head, "--format", "html"],
    );
    assert_eq!(code, 1);
    assert!(
        page.starts_with("<!DOCTYPE html>")
            && !page.contains("http://")
            && !page.contains("https://")
    );
    assert!(!page.contains("s3cret"), "a secret value in the page");
    let scratch = tempfile::tempdir().unwrap();
    let file = scratch.path().join("report.html");
    std::fs::write(&file, &page).unwrap();
    let (roots, resources) = sets(&report);
    let label = |r: &(String, String, String, String, String, String)| {
        let ns = if r.4.is_empty() {
            String::new()
        } else {
            format!("{}/", r.4)
        };
        format!("{} {} {ns}{}", r.2, r.3, r.5)
    };
    let Some(chrome) = chromium() else {
        // Without a browser, the page's tree is still checked as text.
        for (root, _) in &roots {
            assert!(tag_of(&page, root).is_some(), "{root} not listed");
        }
        skip("chromium: the HTML report not opened in a browser");
        return;
    };
    let open = |hash: &str| {
        let o = Command::new(chrome)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--enable-logging=stderr",
                "--v=0",
                "--dump-dom",
            ])
            .arg(format!("file://{}{hash}", file.display()))
            .output()
            .expect("chromium");
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (dom, log) = open("");
    assert!(dom.contains("id=\"tree\""), "{dom}");
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    for (root, _) in &roots {
        let tag = tag_of(&dom, root).unwrap_or_else(|| panic!("{root} not listed"));
        assert!(!tag.contains("hidden"), "{tag}");
    }
    for r in &resources {
        assert!(tag_of(&dom, &label(r)).is_some(), "{} not listed", label(r));
    }
    // Filtering: one root's name leaves that root only.
    let (dom, _) = open("#filter=apps/web/overlays/dev");
    for (root, _) in &roots {
        let tag = tag_of(&dom, root).unwrap();
        assert_eq!(
            tag.contains("hidden"),
            root != "apps/web/overlays/dev",
            "{tag}"
        );
    }
    // A resource's name leaves the roots that have it, and it only.
    let (dom, _) = open("#filter=Service");
    for (root, _) in &roots {
        let has = resources.iter().any(|r| &r.0 == root && r.3 == "Service");
        assert_eq!(
            !tag_of(&dom, root).unwrap().contains("hidden"),
            has,
            "{root}"
        );
    }
}

/// The checkouts of a diff: under an explicit `$TMPDIR` when one is set,
/// in `/dev/shm` otherwise (where it is a tmpfs with room), with the same
/// report either way; nothing is left behind in either place.
#[test]
fn checkouts_go_to_memory_or_tmpdir_and_are_removed() {
    let (env, base) = repo();
    change(&env);
    let head = commit(&env, "change");
    let leftovers = |dir: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with("kustom-diff-"))
                    .collect()
            })
            .unwrap_or_default()
    };
    let run = |tmpdir: Option<&std::path::Path>| {
        let mut c = env.command(std::path::Path::new(env!("CARGO_BIN_EXE_kustom")));
        c.args([
            "-v", "diff", "--format", "json", "--base", &base, "--head", &head,
        ]);
        match tmpdir {
            Some(t) => c.env("TMPDIR", t),
            None => c.env_remove("TMPDIR"),
        };
        let o = c.output().expect("run kustom");
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let log = String::from_utf8_lossy(&o.stderr).into_owned();
        let dir = log
            .lines()
            .find(|l| l.contains("revisions checked out"))
            .and_then(|l| l.split(" dir=").nth(1))
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no checkout line in the log:\n{log}"))
            .to_string();
        (String::from_utf8_lossy(&o.stdout).into_owned(), dir)
    };
    let tmp = tempfile::tempdir().unwrap();
    let (explicit, dir) = run(Some(tmp.path()));
    assert!(
        dir.starts_with(&*tmp.path().to_string_lossy()),
        "{dir} is not under TMPDIR"
    );
    assert_eq!(leftovers(tmp.path()), Vec::<String>::new());
    let (default, dir) = run(None);
    let shm_is_tmpfs = Command::new("stat")
        .args(["-f", "-c", "%T", "/dev/shm"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "tmpfs");
    if shm_is_tmpfs {
        assert!(dir.starts_with("/dev/shm/"), "{dir} is not in /dev/shm");
    } else {
        skip("/dev/shm is not a tmpfs here: the memory-backed checkout is not checked");
    }
    // Other tests run diffs beside this one: look for this run's directory.
    assert!(
        !std::path::Path::new(&dir).exists(),
        "{dir} was left behind"
    );
    assert_eq!(
        explicit, default,
        "the report depends on where the checkout went"
    );
}
