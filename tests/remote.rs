//! Remote bases and files, offline: every case builds with `kustom` and,
//! where installed, with `kubectl kustomize` under the same git routing
//! and servers; the bytes must match, or both must fail.

mod remote_world;
mod support;

use remote_world::{sh, write, World};
use std::path::Path;
use support::{DEPLOY, REPLICAS_PATCH as PATCH, SVC as SERVICE};

const CM: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  level: info
";

/// An OpenAPI definitions file (kustomize's `crds:` format): Widget's
/// `spec.config` names a ConfigMap.
const CRD_DEFS: &str = r#"{"example.com/v1.Widget": {"properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"}, "spec": {"properties": {"config": {"type": "string", "x-kubernetes-object-ref-api-version": "v1", "x-kubernetes-object-ref-kind": "ConfigMap"}}}}}}"#;

const WIDGET: &str = "apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  config: settings
";

/// Commits of the `base` repository.
struct Shas {
    v1: String,
    v2: String,
    main: String,
}

/// Repositories used by the cases.
fn populate(w: &World) -> Shas {
    let mut shas = Shas {
        v1: String::new(),
        v2: String::new(),
        main: String::new(),
    };
    w.repo("subrepo", |d| {
        write(d, &[("cm.yaml", CM)]);
        sh(d, &["git", "add", "-A"]);
        sh(d, &["git", "commit", "-qm", "sub"]);
    });
    w.repo("other", |d| {
        write(
            d,
            &[
                (
                    "app/kustomization.yaml",
                    "resources:\n- cm.yaml\nnamePrefix: other-\ncommonLabels:\n  from: other\n",
                ),
                ("app/cm.yaml", CM),
            ],
        );
        sh(d, &["git", "add", "-A"]);
        sh(d, &["git", "commit", "-qm", "other"]);
        sh(d, &["git", "tag", "-a", "v1", "-m", "v1"]);
    });
    w.repo("base", |d| {
        write(
            d,
            &[
                ("kustomization.yaml", "resources:\n- deploy\n"),
                (
                    "deploy/kustomization.yaml",
                    "resources:\n- deployment.yaml\n- service.yaml\nnamePrefix: base-\nconfigMapGenerator:\n- name: gen\n  literals:\n  - k=v\n",
                ),
                ("deploy/deployment.yaml", DEPLOY),
                ("deploy/service.yaml", SERVICE),
                (
                    "component/kustomization.yaml",
                    "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nlabels:\n- pairs:\n    component: added\npatches:\n- path: patch.yaml\n",
                ),
                ("component/patch.yaml", PATCH),
                (
                    "files/kustomization.yaml",
                    "resources:\n- ../deploy\npatches:\n- path: patch.yaml\nconfigMapGenerator:\n- name: props\n  files:\n  - app.properties\n",
                ),
                ("files/patch.yaml", PATCH),
                ("files/app.properties", "color=blue\n"),
                ("sibling/kustomization.yaml", "resources:\n- ../deploy\nnameSuffix: -sib\n"),
                ("prefixed/kustomization.yaml", "resources:\n- ../deploy\nnamePrefix: p-\n"),
                (
                    "escape/kustomization.yaml",
                    "resources:\n- ../../outside\n",
                ),
                (
                    "reads-outside/kustomization.yaml",
                    "resources:\n- ../deploy/service.yaml\n",
                ),
                (
                    "cycle/kustomization.yaml",
                    "resources:\n- github.com/org/base/cycle?ref=v1\n",
                ),
                (
                    "nested/kustomization.yaml",
                    "resources:\n- https://github.com/org/other//app?ref=v1\nnamespace: nested\n",
                ),
                ("notakust/readme.txt", "nothing here\n"),
            ],
        );
        sh(d, &["git", "add", "-A"]);
        sh(d, &["git", "commit", "-qm", "one"]);
        sh(d, &["git", "tag", "-a", "v1", "-m", "release 1"]);
        shas.v1 = sh(d, &["git", "rev-parse", "HEAD"]);
        write(d, &[("deploy/deployment.yaml", &DEPLOY.replace("replicas: 1", "replicas: 2"))]);
        sh(d, &["git", "commit", "-qam", "two"]);
        sh(d, &["git", "tag", "v2"]);
        shas.v2 = sh(d, &["git", "rev-parse", "HEAD"]);
        sh(d, &["git", "checkout", "-qb", "dev"]);
        write(d, &[("deploy/service.yaml", &SERVICE.replace("port: 80", "port: 8080"))]);
        sh(d, &["git", "commit", "-qam", "dev"]);
        sh(d, &["git", "checkout", "-q", "main"]);
        write(d, &[("deploy/deployment.yaml", &DEPLOY.replace("replicas: 1", "replicas: 3"))]);
        sh(d, &["git", "commit", "-qam", "three"]);
        shas.main = sh(d, &["git", "rev-parse", "HEAD"]);
    });
    for name in ["gitlab", "azure"] {
        w.repo(name, |d| {
            write(
                d,
                &[
                    (
                        "deploy/kustomization.yaml",
                        "resources:\n- cm.yaml\nnamePrefix: hosted-\n",
                    ),
                    ("deploy/cm.yaml", CM),
                ],
            );
            sh(d, &["git", "add", "-A"]);
            sh(d, &["git", "commit", "-qm", name]);
            sh(d, &["git", "tag", "v1"]);
        });
    }
    let sub_url = "https://github.com/org/subrepo";
    w.repo("withsub", |d| {
        write(
            d,
            &[(
                "kustomization.yaml",
                "resources:\n- vendor/cm.yaml\nnamePrefix: sub-\n",
            )],
        );
        let out = std::process::Command::new("git")
            .args(["submodule", "add", "-q", sub_url, "vendor"])
            .current_dir(d)
            .envs(w.env())
            .output()
            .unwrap();
        support::ok(&out);
        sh(d, &["git", "add", "-A"]);
        sh(d, &["git", "commit", "-qm", "with submodule"]);
        sh(d, &["git", "tag", "v1"]);
    });
    let mut files = w.http.files.lock().unwrap();
    files.insert("cm.yaml".into(), CM.as_bytes().to_vec());
    files.insert("patch.yaml".into(), PATCH.as_bytes().to_vec());
    files.insert("app.properties".into(), b"size=large\n".to_vec());
    files.insert("app.env".into(), b"MODE=prod\n".to_vec());
    files.insert("broken.yaml".into(), b"a: [\n".to_vec());
    files.insert(
        "transformer.yaml".into(),
        b"apiVersion: builtin\nkind: PrefixSuffixTransformer\nmetadata:\n  name: t\nprefix: tr-\nfieldSpecs:\n- path: metadata/name\n".to_vec(),
    );
    files.insert("crd.json".into(), CRD_DEFS.as_bytes().to_vec());
    files.insert("widget.yaml".into(), WIDGET.as_bytes().to_vec());
    files.insert(
        "crd-broken.yaml".into(),
        b"apiVersion: v1\nkind: Widget\n".to_vec(),
    );
    drop(files);
    shas
}

/// One case: the app kustomization, extra build args, whether it builds.
struct Case {
    name: String,
    kustomization: String,
    args: Vec<String>,
    ok: bool,
    /// What kustom's message must say when the case fails.
    says: Option<&'static str>,
}

fn case(name: impl Into<String>, kustomization: impl Into<String>, ok: bool) -> Case {
    Case {
        name: name.into(),
        kustomization: kustomization.into(),
        args: Vec::new(),
        ok,
        says: None,
    }
}

fn cases(w: &World, s: &Shas) -> Vec<Case> {
    let repos = w.repos.display().to_string();
    let mut out = Vec::new();
    let refs: Vec<(&str, String)> = vec![
        ("annotated tag", "?ref=v1".into()),
        ("lightweight tag", "?ref=v2".into()),
        ("branch", "?ref=dev".into()),
        ("default branch", String::new()),
        ("commit", format!("?ref={}", s.v1)),
        ("version parameter", "?version=v1".into()),
    ];
    let forms = [
        ("github shorthand", "github.com/org/base/deploy".to_string()),
        (
            "https with //",
            "https://github.com/org/base//deploy".into(),
        ),
        (
            "https .git",
            "https://github.com/org/base.git//deploy".into(),
        ),
        (
            "git:: prefix",
            "git::https://github.com/org/base//deploy".into(),
        ),
        ("scp style", "git@github.com:org/base.git//deploy".into()),
        (
            "ssh://",
            "ssh://git@example.com/org/base.git//deploy".into(),
        ),
        ("file://", format!("file://{repos}/base//deploy")),
    ];
    for (form, url) in &forms {
        for (what, q) in &refs {
            out.push(case(
                format!("{form} at {what}"),
                format!("resources:\n- {url}{q}\n"),
                true,
            ));
        }
    }
    let ok = |name: &str, k: String| case(name, k, true);
    let bad = |name: &str, k: String| case(name, k, false);
    out.extend([
        ok("repository root", "resources:\n- github.com/org/base?ref=v1\n".into()),
        ok("gitlab subgroup", "resources:\n- https://gitlab.example.com/group/sub/gitlab.git//deploy?ref=v1\n".into()),
        ok("azure _git", "resources:\n- https://dev.azure.com/org/project/_git/azure/deploy?ref=v1\n".into()),
        ok("same repo at two refs", "resources:\n- github.com/org/base/deploy?ref=v1\n- github.com/org/base/prefixed?ref=v2\n".into()),
        ok("remote component", "resources:\n- github.com/org/base/deploy?ref=v1\ncomponents:\n- github.com/org/base/component?ref=v1\n".into()),
        ok("remote component over https", "resources:\n- https://github.com/org/base//deploy?ref=v2\ncomponents:\n- https://github.com/org/base//component?ref=v2\n".into()),
        ok("remote base using another remote base", "resources:\n- github.com/org/base/nested?ref=v1\n".into()),
        ok("remote base using a sibling directory", "resources:\n- github.com/org/base/sibling?ref=v1\n".into()),
        ok("remote patch and generator files inside the repo", "resources:\n- github.com/org/base/files?ref=v2\n".into()),
        ok("submodules on", "resources:\n- github.com/org/withsub?ref=v1\n".into()),
        bad("submodules off", "resources:\n- github.com/org/withsub?ref=v1&submodules=false\n".into()),
        bad("bad ref", "resources:\n- github.com/org/base/deploy?ref=nope\n".into()),
        bad("missing repository", "resources:\n- github.com/org/missing/deploy?ref=v1\n".into()),
        bad("path not in repository", "resources:\n- github.com/org/base/absent?ref=v1\n".into()),
        Case {
            says: Some("expecting directory"),
            ..bad("path that is a file", "resources:\n- github.com/org/base/deploy/deployment.yaml?ref=v1\n".into())
        },
        Case {
            says: Some("expecting directory"),
            ..bad("component path that is a file", "resources:\n- github.com/org/base/deploy?ref=v1\ncomponents:\n- github.com/org/base/deploy/service.yaml?ref=v1\n".into())
        },
        bad("directory without kustomization", "resources:\n- github.com/org/base/notakust?ref=v1\n".into()),
        bad("path exits repository", "resources:\n- https://github.com/org/base//deploy/../../x?ref=v1\n".into()),
        bad("local base escaping the clone", "resources:\n- github.com/org/base/escape?ref=v1\n".into()),
        bad("remote root reads outside itself", "resources:\n- github.com/org/base/reads-outside?ref=v1\n".into()),
        bad("cycle", "resources:\n- github.com/org/base/cycle?ref=v1\n".into()),
        bad("timeout", "resources:\n- https://slow.example.com/org/repo//deploy?timeout=2s\n".into()),
        bad("component that is a kustomization", "resources:\n- github.com/org/base/deploy?ref=v1\ncomponents:\n- github.com/org/base/sibling?ref=v1\n".into()),
        bad("kustomization that is a component", "resources:\n- github.com/org/base/component?ref=v1\n".into()),
        ok("http file", format!("resources:\n- {}\n", w.http.url("/files/cm.yaml"))),
        ok("https file", format!("resources:\n- {}\n", w.https.url("/files/cm.yaml"))),
        ok("https file through a redirect", format!("resources:\n- {}\n", w.https.url("/redirect/cm.yaml"))),
        ok("http file through two redirects", format!("resources:\n- {}\n", w.http.url("/redirect2/cm.yaml"))),
        bad("http 404", format!("resources:\n- {}\n", w.http.url("/nothing.yaml"))),
        bad("https 404 on a repo-like URL", format!("resources:\n- {}\n", w.https.url("/files/org/missing.yaml"))),
        bad("http file that is not YAML objects", format!("resources:\n- {}\n", w.http.url("/files/broken.yaml"))),
        ok("remote patch file", format!("resources:\n- github.com/org/base/deploy?ref=v1\npatches:\n- path: {}\n  target:\n    kind: Deployment\n", w.https.url("/files/patch.yaml"))),
        ok("remote strategic merge patch file", format!("resources:\n- github.com/org/base/deploy?ref=v1\npatchesStrategicMerge:\n- {}\n", w.http.url("/files/patch.yaml"))),
        ok("remote generator files", format!("configMapGenerator:\n- name: remote\n  files:\n  - {}\n  - renamed.properties={}\n", w.http.url("/files/app.properties"), w.https.url("/files/app.properties"))),
        ok("remote env file", format!("configMapGenerator:\n- name: env\n  envs:\n  - {}\n", w.http.url("/files/app.env"))),
        bad("remote generator file 404", format!("configMapGenerator:\n- name: remote\n  files:\n  - {}\n", w.http.url("/files/none.properties"))),
        ok("remote transformer config", format!("resources:\n- {}\ntransformers:\n- {}\n", w.http.url("/files/cm.yaml"), w.http.url("/files/transformer.yaml"))),
        ok("remote crds", format!("crds:\n- {}\nresources:\n- {}\n- {}\nnamePrefix: x-\n", w.http.url("/files/crd.json"), w.http.url("/files/cm.yaml"), w.http.url("/files/widget.yaml"))),
        bad("remote crds that are not definitions", format!("crds:\n- {}\nresources:\n- {}\n", w.http.url("/files/crd-broken.yaml"), w.http.url("/files/cm.yaml"))),
    ]);
    let meta = "buildMetadata: [originAnnotations]\n";
    out.extend([
        ok("origins: remote directory", format!("{meta}resources:\n- https://github.com/org/base//deploy?ref=v1\n")),
        ok("origins: remote repository root", format!("{meta}resources:\n- github.com/org/base?ref=v2\n")),
        ok("origins: http file", format!("{meta}resources:\n- {}\n", w.http.url("/files/cm.yaml"))),
        ok("origins: nested remotes", format!("{meta}resources:\n- github.com/org/base/nested?ref=v1\n")),
        ok("origins: remote component", format!("{meta}resources:\n- github.com/org/base/deploy?ref=v1\ncomponents:\n- github.com/org/base/component?ref=v1\n")),
        ok("origins: scp style", format!("{meta}resources:\n- git@github.com:org/base.git//files?ref=v1\n")),
        ok("origins: file://", format!("{meta}resources:\n- file://{repos}/base//sibling?ref=v1\n")),
        ok("origins: azure", format!("{meta}resources:\n- https://dev.azure.com/org/project/_git/azure/deploy?ref=v1\n")),
    ]);
    let mut none = case(
        "remote roots stay restricted with LoadRestrictionsNone",
        "resources:\n- github.com/org/base/reads-outside?ref=v1\n",
        false,
    );
    none.args = vec!["--load-restrictor".into(), "LoadRestrictionsNone".into()];
    out.push(none);
    out
}

/// Build `c` with both tools; returns a description of a mismatch.
fn check(w: &World, c: &Case) -> Option<String> {
    let dir = w
        .tmp
        .path()
        .join("cases")
        .join(c.name.replace([' ', '/', ':'], "_"));
    write(&dir, &[("kustomization.yaml", &c.kustomization)]);
    let mut args = vec!["build", "."];
    args.extend(c.args.iter().map(String::as_str));
    let ours = w.kustom(&args, &dir);
    let ours_ok = ours.status.success();
    let stdout = String::from_utf8_lossy(&ours.stdout).to_string();
    let stderr = String::from_utf8_lossy(&ours.stderr).to_string();
    if ours_ok != c.ok {
        return Some(format!(
            "{}: kustom {} (expected {}):\n{stdout}{stderr}",
            c.name,
            if ours_ok { "succeeded" } else { "failed" },
            if c.ok { "success" } else { "failure" }
        ));
    }
    if let (false, Some(says)) = (ours_ok, c.says) {
        if !stderr.contains(says) {
            return Some(format!(
                "{}: the message does not say {says:?}:\n{stderr}",
                c.name
            ));
        }
    }
    if !ours_ok && !stdout.is_empty() {
        return Some(format!("{}: partial output on failure:\n{stdout}", c.name));
    }
    let mut kargs = vec!["."];
    kargs.extend(c.args.iter().map(String::as_str));
    let theirs = w.kubectl(&kargs, &dir)?;
    if theirs.status.success() != ours_ok {
        return Some(format!(
            "{}: kubectl {} but kustom {}:\nkubectl: {}{}\nkustom: {stdout}{stderr}",
            c.name,
            if theirs.status.success() {
                "succeeded"
            } else {
                "failed"
            },
            if ours_ok { "succeeded" } else { "failed" },
            String::from_utf8_lossy(&theirs.stdout),
            String::from_utf8_lossy(&theirs.stderr),
        ));
    }
    if ours_ok && theirs.stdout != ours.stdout {
        return Some(format!(
            "{}: output differs\n--- kubectl\n{}--- kustom\n{stdout}",
            c.name,
            String::from_utf8_lossy(&theirs.stdout)
        ));
    }
    None
}

#[test]
fn remote_cases_match_kubectl() {
    let w = World::new();
    let shas = populate(&w);
    let cases = cases(&w, &shas);
    assert!(cases.len() >= 70, "{} cases", cases.len());
    if !remote_world::kubectl_available() {
        eprintln!("skipping the kubectl comparison: kubectl not installed (success/failure still checked)");
    }
    // Cold (empty cache) then warm: both must agree with kubectl.
    for pass in ["cold", "warm"] {
        let failures: Vec<String> = cases.iter().filter_map(|c| check(&w, c)).collect();
        assert!(
            failures.is_empty(),
            "{pass} pass: {} of {} cases failed:\n\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n\n")
        );
    }
}

/// A tree with a tag, a branch, a commit and an http file.
fn mixed_tree(w: &World, s: &Shas, dir: &Path) {
    write(
        dir,
        &[(
            "kustomization.yaml",
            &format!(
                "resources:\n- github.com/org/base/deploy?ref=v1\n- github.com/org/base/prefixed?ref=dev\n- github.com/org/base/sibling?ref={}\n- {}\n",
                s.main,
                w.https.url("/files/cm.yaml")
            ),
        )],
    );
}

fn fetches(log: &[String]) -> Vec<&String> {
    log.iter()
        .filter(|l| l.starts_with("fetch") || l.starts_with("clone"))
        .collect()
}

#[test]
fn second_build_fetches_nothing() {
    let w = World::new();
    if std::env::var_os("KEEP").is_some() {
        eprintln!("kept {}", w.tmp.path().display());
    }
    let w = std::mem::ManuallyDrop::new(w);
    let s = populate(&w);
    let dir = w.tmp.path().join("app");
    mixed_tree(&w, &s, &dir);
    w.take_git_log();
    let cold = w.kustom(&["build", "."], &dir);
    support::ok(&cold);
    let log = w.take_git_log();
    assert_eq!(
        fetches(&log).len(),
        3,
        "{log:#?}\n{}{}",
        String::from_utf8_lossy(&cold.stdout),
        String::from_utf8_lossy(&cold.stderr)
    );
    w.https.clear();
    let warm = w.kustom(&["build", "."], &dir);
    assert_eq!(warm.stdout, cold.stdout);
    let log = w.take_git_log();
    // One ls-remote per moving ref (v1, dev), none for the commit; no fetch.
    assert!(fetches(&log).is_empty(), "{log:#?}");
    assert_eq!(
        log.iter().filter(|l| l.starts_with("ls-remote")).count(),
        2,
        "{log:#?}"
    );
    // The file is revalidated, not downloaded.
    let seen = w.https.requests();
    assert!(seen.iter().all(|r| r.status == 304), "{seen:?}");

    // With a lock: no git process and no request at all.
    let locked = w.kustom(&["lock", "."], &dir);
    support::ok(&locked);
    let lock = std::fs::read_to_string(dir.join("kustom.lock")).unwrap();
    assert_eq!(lock.matches("url:").count(), 4, "{lock}");
    w.take_git_log();
    w.https.clear();
    let pinned = w.kustom(&["build", "."], &dir);
    assert_eq!(pinned.stdout, cold.stdout);
    assert!(w.take_git_log().is_empty());
    assert!(w.https.requests().is_empty());

    // Offline with the network cut: no routes, no servers reachable.
    std::fs::remove_file(dir.join("kustom.lock")).unwrap();
    let mut cut = World::new();
    cut.cache = w.cache.clone();
    cut.routes.truncate(1);
    let offline = cut.kustom(&["build", ".", "--offline"], &dir);
    support::ok(&offline);
    assert_eq!(offline.stdout, cold.stdout);
    assert!(cut.take_git_log().is_empty());
    // Something never fetched names its URL.
    write(
        &dir,
        &[(
            "kustomization.yaml",
            "resources:\n- github.com/org/other/app?ref=v1\n",
        )],
    );
    let missing = cut.kustom(&["build", ".", "--offline"], &dir);
    assert!(!missing.status.success());
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("github.com/org/other/app?ref=v1") && err.contains("offline"),
        "{err}"
    );
}

#[test]
fn lock_holds_when_the_tag_moves_and_detects_tampering() {
    let w = World::new();
    let s = populate(&w);
    let dir = w.tmp.path().join("app");
    write(
        &dir,
        &[(
            "kustomization.yaml",
            &format!(
                "resources:\n- github.com/org/base/deploy?ref=v1\n- {}\n",
                w.http.url("/files/cm.yaml")
            ),
        )],
    );
    let before = w.kustom(&["lock", "."], &dir);
    support::ok(&before);
    assert!(before.stdout.is_empty());
    let first = w.kustom(&["build", "."], &dir);
    assert!(first.status.success());
    let lock = std::fs::read_to_string(dir.join("kustom.lock")).unwrap();
    assert!(lock.contains(&s.v1), "{lock}");

    // Move v1 upstream to the newest commit.
    let work = w.tmp.path().join("work/base");
    sh(
        &work,
        &["git", "tag", "-f", "-a", "v1", "-m", "moved", "main"],
    );
    w.push("base");
    let unlocked_dir = w.tmp.path().join("unlocked");
    write(
        &unlocked_dir,
        &[(
            "kustomization.yaml",
            "resources:\n- github.com/org/base/deploy?ref=v1\n",
        )],
    );
    let moved = w.kustom(&["build", "."], &unlocked_dir);
    assert!(String::from_utf8_lossy(&moved.stdout).contains("replicas: 3"));
    let pinned = w.kustom(&["build", "."], &dir);
    assert_eq!(pinned.stdout, first.stdout);
    // Even from an empty cache, the pinned commit is fetched.
    std::fs::remove_dir_all(&w.cache).unwrap();
    let fresh = w.kustom(&["build", "."], &dir);
    support::ok(&fresh);
    assert_eq!(fresh.stdout, first.stdout);

    // Tampering with a cached checkout: detected and fetched again.
    let entry = w.cache.join("kustom/git");
    let repo_dir = std::fs::read_dir(&entry)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let checkout = std::fs::read_dir(&repo_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap();
    let file = checkout.join("deploy/deployment.yaml");
    std::fs::write(&file, DEPLOY.replace("nginx", "evil")).unwrap();
    let healed = w.kustom(&["build", "."], &dir);
    assert_eq!(
        healed.stdout,
        first.stdout,
        "{}",
        String::from_utf8_lossy(&healed.stderr)
    );
    // Tampering with a cached file: the same.
    let http = w.cache.join("kustom/http");
    for f in std::fs::read_dir(&http).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "body") {
            std::fs::write(&p, "kind: Evil\n").unwrap();
        }
    }
    let healed = w.kustom(&["build", "."], &dir);
    assert_eq!(healed.stdout, first.stdout);

    // The file changes upstream: the pin fails the build, naming the URL.
    w.http
        .files
        .lock()
        .unwrap()
        .insert("cm.yaml".into(), CM.replace("info", "debug").into_bytes());
    std::fs::remove_dir_all(&w.cache).unwrap();
    let changed = w.kustom(&["build", "."], &dir);
    assert!(!changed.status.success());
    assert!(changed.stdout.is_empty());
    let err = String::from_utf8_lossy(&changed.stderr);
    assert!(
        err.contains("/files/cm.yaml") && err.contains("kustom.lock"),
        "{err}"
    );

    // --locked refuses a remote the lock lacks; without it the lock grows.
    write(
        &dir,
        &[(
            "kustomization.yaml",
            "resources:\n- github.com/org/base/deploy?ref=v1\n- github.com/org/other/app?ref=v1\n",
        )],
    );
    let refused = w.kustom(&["build", ".", "--locked"], &dir);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("github.com/org/other/app?ref=v1") && err.contains("kustom lock"),
        "{err}"
    );
    let grown = w.kustom(&["build", "."], &dir);
    support::ok(&grown);
    let lock = std::fs::read_to_string(dir.join("kustom.lock")).unwrap();
    assert!(lock.contains("github.com/org/other/app?ref=v1"), "{lock}");
}

#[test]
fn build_target_url_and_concurrent_builds() {
    let w = World::new();
    let _ = populate(&w);
    let dir = w.tmp.path();
    let url = "https://github.com/org/base//files?ref=v1";
    let ours = w.kustom(&["build", url], dir);
    support::ok(&ours);
    if let Some(theirs) = w.kubectl(&[url], dir) {
        assert_eq!(
            String::from_utf8_lossy(&theirs.stdout),
            String::from_utf8_lossy(&ours.stdout)
        );
    } else {
        eprintln!("skipping the kubectl comparison: kubectl not installed");
    }
    // Four builds at once into an empty cache: all succeed, same bytes.
    std::fs::remove_dir_all(&w.cache).unwrap();
    let outs: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    w.kustom(
                        &["build", "https://github.com/org/base//deploy?ref=v2"],
                        dir,
                    )
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for o in &outs {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.stdout, outs[0].stdout);
    }
    // kustom cache dir / prune.
    let d = w.kustom(&["cache", "dir"], dir);
    assert_eq!(
        String::from_utf8_lossy(&d.stdout).trim(),
        w.cache.join("kustom").display().to_string()
    );
    let p = w.kustom(&["cache", "prune"], dir);
    assert!(p.status.success());
    assert!(std::fs::read_dir(w.cache.join("kustom/git"))
        .unwrap()
        .all(|e| {
            let repo = e.unwrap().path();
            std::fs::read_dir(repo)
                .unwrap()
                .all(|c| !c.unwrap().path().is_dir())
        }));
}

#[test]
fn localize_vendors_a_remote_tree() {
    let w = World::new();
    let _ = populate(&w);
    let dir = w.tmp.path().join("app");
    write(
        &dir,
        &[
            (
                "kustomization.yaml",
                &format!(
                    "resources:\n- github.com/org/base/nested?ref=v1\n- https://github.com/org/base//files?ref=v2\n- {}\n- local.yaml\ncomponents:\n- github.com/org/base/component?ref=v1\nconfigMapGenerator:\n- name: remote\n  files:\n  - {}\n",
                    w.https.url("/files/cm.yaml"),
                    w.http.url("/files/app.properties")
                ),
            ),
            ("local.yaml", &CM.replace("settings", "local")),
        ],
    );
    let original = w.kustom(&["build", "."], &dir);
    support::ok(&original);
    let out = w.kustom(&["localize", ".", "../vendored"], &dir);
    support::ok(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("VERIFICATION SUCCESS"));
    let vendored = w.tmp.path().join("vendored");
    let k = std::fs::read_to_string(vendored.join("kustomization.yaml")).unwrap();
    assert!(
        k.contains("localized-files/github.com/org/base/v1/nested"),
        "{k}"
    );
    assert!(k.contains("localized-files/127.0.0.1/files/cm.yaml"), "{k}");
    // Remote content lands beside the root that named it, as in kustomize.
    assert!(vendored
        .join("localized-files/github.com/org/base/v1/nested/localized-files/github.com/org/other/v1/app/cm.yaml")
        .is_file());
    // The copy builds with no routes, no cache and no servers' help.
    let mut cut = World::new();
    cut.routes.truncate(1);
    let copy = cut.kustom(&["build", "."], &vendored);
    support::ok(&copy);
    assert_eq!(copy.stdout, original.stdout);
    assert!(cut.take_git_log().is_empty());
    // An existing destination is refused; a remote root needs a ref.
    let again = w.kustom(&["localize", ".", "../vendored"], &dir);
    assert!(!again.status.success());
    let noref = w.kustom(&["localize", "github.com/org/base/deploy"], w.tmp.path());
    assert!(String::from_utf8_lossy(&noref.stderr).contains("missing ref"));
}

/// A fetch that takes over a second says so on STDERR, once; `-q` and fast
/// fetches say nothing.
#[test]
fn slow_fetches_say_what_they_are_doing() {
    let w = World::new();
    let _ = populate(&w);
    let dir = w.tmp.path().join("slow");
    let slow = w.http.url("/slow/cm.yaml");
    let fast = w.http.url("/files/cm.yaml");
    write(
        &dir,
        &[("kustomization.yaml", &format!("resources:\n- {slow}\n"))],
    );
    let out = w.kustom(&["build", "."], &dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches(&format!("Fetching {slow}")).count(), 1, "{err}");
    std::fs::remove_dir_all(&w.cache).unwrap();
    let quiet = w.kustom(&["build", "-q", "."], &dir);
    assert!(quiet.status.success());
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("Fetching"));
    write(
        &dir,
        &[("kustomization.yaml", &format!("resources:\n- {fast}\n"))],
    );
    let quick = w.kustom(&["build", "."], &dir);
    assert!(quick.status.success());
    assert!(!String::from_utf8_lossy(&quick.stderr).contains("Fetching"));
}

/// With the network down and the ref in the cache, the error says that
/// `--offline` would build.
#[test]
fn network_down_with_a_cached_ref_suggests_offline() {
    let mut w = World::new();
    let _ = populate(&w);
    let dir = w.tmp.path().join("down");
    write(
        &dir,
        &[(
            "kustomization.yaml",
            "resources:\n- github.com/org/base/deploy?ref=v1\n",
        )],
    );
    let online = w.kustom(&["build", "."], &dir);
    support::ok(&online);
    // Every route now leads nowhere.
    let nowhere = w.tmp.path().join("no-such-server/");
    for (k, _) in w.routes.iter_mut() {
        if k.ends_with(".insteadOf") {
            *k = format!("url.{}.insteadOf", nowhere.display());
        }
    }
    let down = w.kustom(&["build", "."], &dir);
    assert!(!down.status.success());
    let err = String::from_utf8_lossy(&down.stderr);
    assert!(
        err.contains("--offline") && err.contains("would build"),
        "{err}"
    );
    let offline = w.kustom(&["build", "--offline", "."], &dir);
    support::ok(&offline);
    assert_eq!(offline.stdout, online.stdout);
}

/// Every checkout directory in the cache (sparse or whole).
fn cached_checkouts(w: &World) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for repo in std::fs::read_dir(w.cache.join("kustom/git")).unwrap() {
        for e in std::fs::read_dir(repo.unwrap().path()).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.push(p);
            }
        }
    }
    out
}

/// Rewrite a cached file and its digest record so that the cache agrees
/// with itself (what an attacker with write access to the cache does).
fn tamper_consistently(entry: &Path, rel: &str, content: &str) {
    use sha2::Digest;
    std::fs::write(entry.join(rel), content).unwrap();
    let mut sums_name = entry.as_os_str().to_owned();
    sums_name.push(".sums");
    let sums_path = std::path::PathBuf::from(sums_name);
    let mut sums: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(&sums_path).unwrap()).unwrap();
    let digest: String = sha2::Sha256::digest(content.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    sums.insert(rel.to_string(), digest);
    std::fs::write(&sums_path, serde_json::to_string(&sums).unwrap()).unwrap();
}

/// `kustom lock` pins what the server sends for the commit, not what a
/// rewritten cache entry (and its rewritten digest record) holds: the
/// entry is fetched again and replaced. A locked build whose cache was
/// rewritten fetches the commit again before it refuses.
#[test]
fn tamper_then_lock_pins_the_servers_bytes() {
    let w = World::new();
    let _ = populate(&w);
    let dir = w.tmp.path().join("app");
    write(
        &dir,
        &[(
            "kustomization.yaml",
            &format!(
                "resources:\n- github.com/org/base/deploy?ref=v1\n- {}\n",
                w.http.url("/files/cm.yaml")
            ),
        )],
    );
    let clean = w.kustom(&["build", "."], &dir);
    support::ok(&clean);
    // The lock a fresh cache gives.
    let honest = w.kustom(&["lock", "."], &dir);
    support::ok(&honest);
    let honest_lock = std::fs::read_to_string(dir.join("kustom.lock")).unwrap();
    std::fs::remove_file(dir.join("kustom.lock")).unwrap();

    let evil = DEPLOY.replace("nginx", "evil");
    for entry in cached_checkouts(&w) {
        tamper_consistently(&entry, "deploy/deployment.yaml", &evil);
    }
    // The http copy and its record, consistently too.
    for f in std::fs::read_dir(w.cache.join("kustom/http")).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "body") {
            use sha2::Digest;
            let body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: evil\n";
            std::fs::write(&p, body).unwrap();
            let meta_path = p.with_extension("json");
            let mut meta: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
            let digest: String = sha2::Sha256::digest(body.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            meta["sha256"] = digest.into();
            std::fs::write(&meta_path, meta.to_string()).unwrap();
        }
    }
    // Unlocked, the cache is trusted (nothing to check it against).
    let fooled = w.kustom(&["build", "."], &dir);
    assert!(String::from_utf8_lossy(&fooled.stdout).contains("evil"));

    let lock = w.kustom(&["lock", "."], &dir);
    support::ok(&lock);
    let written = std::fs::read_to_string(dir.join("kustom.lock")).unwrap();
    assert_eq!(written, honest_lock, "the lock pinned the tampered cache");
    // The entries were replaced by what the server sent.
    let after = w.kustom(&["build", "."], &dir);
    assert_eq!(
        after.stdout,
        clean.stdout,
        "{}",
        String::from_utf8_lossy(&after.stderr)
    );

    // Locked build, cache rewritten again: fetched again, not refused, not fooled.
    for entry in cached_checkouts(&w) {
        tamper_consistently(&entry, "deploy/deployment.yaml", &evil);
    }
    let locked = w.kustom(&["build", "."], &dir);
    support::ok(&locked);
    assert_eq!(locked.stdout, clean.stdout);
}

/// `--offline` with a damaged cache entry says it is damaged (not "not in
/// the cache"); online, the entry is fetched again.
#[test]
fn offline_names_a_damaged_entry() {
    let w = World::new();
    let _ = populate(&w);
    let dir = w.tmp.path().join("app");
    write(
        &dir,
        &[(
            "kustomization.yaml",
            "resources:\n- github.com/org/base/deploy?ref=v1\n",
        )],
    );
    let clean = w.kustom(&["build", "."], &dir);
    assert!(clean.status.success());
    let entry = cached_checkouts(&w).pop().unwrap();
    std::fs::write(entry.join("deploy/service.yaml"), "kind: Evil\n").unwrap();
    let offline = w.kustom(&["build", "--offline", "."], &dir);
    assert!(!offline.status.success());
    let err = String::from_utf8_lossy(&offline.stderr);
    assert!(
        err.contains("damaged")
            && err.contains("deploy/service.yaml")
            && !err.contains("not in the cache"),
        "{err}"
    );
    let healed = w.kustom(&["build", "."], &dir);
    assert_eq!(
        healed.stdout,
        clean.stdout,
        "{}",
        String::from_utf8_lossy(&healed.stderr)
    );
    let offline = w.kustom(&["build", "--offline", "."], &dir);
    assert_eq!(offline.stdout, clean.stdout);

    // A damaged http copy, the same.
    write(
        &dir,
        &[(
            "kustomization.yaml",
            &format!("resources:\n- {}\n", w.http.url("/files/cm.yaml")),
        )],
    );
    assert!(w.kustom(&["build", "."], &dir).status.success());
    for f in std::fs::read_dir(w.cache.join("kustom/http")).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "body") {
            std::fs::write(&p, "kind: Evil\n").unwrap();
        }
    }
    let offline = w.kustom(&["build", "--offline", "."], &dir);
    assert!(!offline.status.success());
    let err = String::from_utf8_lossy(&offline.stderr);
    assert!(
        err.contains("damaged") && err.contains("/files/cm.yaml"),
        "{err}"
    );
}

/// A cold fetch from a server that allows filters is a partial clone with
/// a sparse checkout: the cache holds the URL's directory and the
/// directories its kustomizations name, not the rest of the repository.
#[test]
fn cold_fetch_takes_only_what_the_url_needs() {
    let w = World::new();
    let _ = populate(&w);
    sh(
        &w.repos.join("base"),
        &["git", "config", "uploadpack.allowFilter", "true"],
    );
    let dir = w.tmp.path().join("app");
    // `files` reads ../deploy; nothing else of the repository is needed.
    write(
        &dir,
        &[(
            "kustomization.yaml",
            "resources:\n- github.com/org/base/files?ref=v1\n",
        )],
    );
    w.take_git_log();
    let out = w.kustom(&["build", "."], &dir);
    support::ok(&out);
    let log = w.take_git_log();
    assert!(
        log.iter().any(|l| l.contains("--filter=blob:none")),
        "{log:#?}"
    );
    assert!(
        log.iter().any(|l| l.starts_with("sparse-checkout")),
        "{log:#?}"
    );
    let entry = cached_checkouts(&w).pop().unwrap();
    assert!(entry.join("files/patch.yaml").is_file());
    assert!(entry.join("deploy/deployment.yaml").is_file());
    assert!(!entry.join("notakust").exists() && !entry.join("component").exists());
    if let Some(theirs) = w.kubectl(&["."], &dir) {
        assert_eq!(
            String::from_utf8_lossy(&theirs.stdout),
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // kustomize's whole shallow clone on request gives the same bytes.
    std::fs::remove_dir_all(&w.cache).unwrap();
    let whole = std::process::Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(["build", "."])
        .current_dir(&dir)
        .envs(w.env())
        .env("KUSTOM_GIT_NO_SPARSE", "1")
        .output()
        .unwrap();
    assert_eq!(whole.stdout, out.stdout);
    assert!(cached_checkouts(&w)
        .pop()
        .unwrap()
        .join("notakust")
        .exists());
}

/// `kustom localize` fetches each remote once: its verifying build of the
/// original reuses what localizing fetched.
#[test]
fn localize_fetches_each_remote_once() {
    let w = World::new();
    let _ = populate(&w);
    let dir = w.tmp.path().join("app");
    write(
        &dir,
        &[(
            "kustomization.yaml",
            &format!(
                "resources:\n- github.com/org/base/deploy?ref=v1\n- https://github.com/org/other//app?ref=v1\n- {}\n",
                w.https.url("/files/cm.yaml")
            ),
        )],
    );
    w.take_git_log();
    w.https.clear();
    let out = w.kustom(&["localize", ".", "../vendored"], &dir);
    support::ok(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("VERIFICATION SUCCESS"));
    let log = w.take_git_log();
    assert_eq!(
        log.iter().filter(|l| l.starts_with("ls-remote")).count(),
        2,
        "{log:#?}"
    );
    assert_eq!(fetches(&log).len(), 2, "{log:#?}");
    let seen = w.https.requests();
    assert_eq!(
        seen.iter().filter(|r| r.path.contains("cm.yaml")).count(),
        1,
        "{seen:?}"
    );
}
