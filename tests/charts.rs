//! Helm charts from repositories: a chart repository (an `index.yaml` and a
//! `.tgz` archive) and an OCI registry served on 127.0.0.1. Cold, warm
//! (zero requests), locked and `--offline` builds give the same bytes; the
//! user's tree gets no `charts/`; a chart whose bytes changed under the
//! same version is refused under the lock; `kubectl kustomize
//! --enable-helm` on the same chart (vendored where it would pull it) gives
//! the same bytes.
//!
//! Needs a helm (see tests/helm.rs); without one the tests say `SKIPPED:`.
//! The archives are made with `tar` (the installed helm front end has no
//! `helm package`); a chart archive is a gzipped tar of `<name>/…`.

mod remote_world;
mod support;

use remote_world::{sh, write, World};
use sha2::Digest;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn sha256(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The example chart, as a `.tgz` (with `replicaCount` set to `replicas`).
fn archive(w: &World, replicas: u32) -> Vec<u8> {
    let src = w.tmp.path().join(format!("chart-src-{replicas}"));
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/helm/charts/webapp");
    sh(
        &src,
        &["cp", "-r", example.to_str().unwrap(), src.to_str().unwrap()],
    );
    let values = src.join("webapp/values.yaml");
    let text = std::fs::read_to_string(&values).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("replicaCount:") {
            out.push_str(&format!("replicaCount: {replicas}\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    std::fs::write(&values, out).unwrap();
    let tgz = w.tmp.path().join(format!("webapp-{replicas}.tgz"));
    sh(
        &src,
        &[
            "tar",
            "-czf",
            tgz.to_str().unwrap(),
            "-C",
            src.to_str().unwrap(),
            "webapp",
        ],
    );
    std::fs::read(tgz).unwrap()
}

/// Publish `tgz` as webapp 0.3.0 in the chart repository at `/charts`
/// (with an older 0.2.0 beside it).
fn publish(w: &World, tgz: &[u8]) {
    let digest = sha256(tgz);
    let index = format!(
        "apiVersion: v1\nentries:\n  webapp:\n  - apiVersion: v2\n    name: webapp\n    version: 0.3.0\n    digest: {digest}\n    urls:\n    - webapp-0.3.0.tgz\n  - apiVersion: v2\n    name: webapp\n    version: 0.2.0\n    urls:\n    - https://127.0.0.1:1/never/webapp-0.2.0.tgz\ngenerated: \"2026-01-01T00:00:00Z\"\n"
    );
    let mut files = w.http.files.lock().unwrap();
    files.insert("charts/index.yaml".into(), index.into_bytes());
    files.insert("charts/webapp-0.3.0.tgz".into(), tgz.to_vec());
}

/// Publish `tgz` as webapp 0.3.0 in an OCI registry at `oci://…/charts`.
fn publish_oci(w: &World, tgz: &[u8]) {
    let digest = sha256(tgz);
    let config = b"{\"name\":\"webapp\",\"version\":\"0.3.0\"}";
    let manifest = format!(
        "{{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":{{\"mediaType\":\"application/vnd.cncf.helm.config.v1+json\",\"digest\":\"sha256:{}\",\"size\":{}}},\"layers\":[{{\"mediaType\":\"application/vnd.cncf.helm.chart.content.v1.tar+gzip\",\"digest\":\"sha256:{digest}\",\"size\":{}}}]}}",
        sha256(config),
        config.len(),
        tgz.len()
    );
    let mut files = w.https.files.lock().unwrap();
    files.insert(
        "v2/charts/webapp/manifests/0.3.0".into(),
        manifest.into_bytes(),
    );
    files.insert(
        "v2/charts/webapp/tags/list".into(),
        b"{\"name\":\"charts/webapp\",\"tags\":[\"0.2.0\",\"0.3.0\"]}".to_vec(),
    );
    files.insert(
        format!("v2/charts/webapp/blobs/sha256:{digest}"),
        tgz.to_vec(),
    );
}

fn kustomization(repo: &str, version: &str) -> String {
    format!(
        "namePrefix: shop-\nhelmCharts:\n- name: webapp\n  repo: {repo}\n  version: {version}\n  releaseName: storefront\n  namespace: shop\n  valuesInline:\n    config:\n      greeting: welcome\n  additionalValuesFiles:\n  - prod-values.yaml\n  includeCRDs: true\n  skipTests: true\n"
    )
}

fn tree(w: &World, name: &str, repo: &str, version: &str) -> PathBuf {
    let dir = w.tmp.path().join(name);
    write(
        &dir,
        &[
            ("kustomization.yaml", &kustomization(repo, version)),
            ("prod-values.yaml", "config:\n  metrics: enabled\n"),
        ],
    );
    dir
}

fn kustom(w: &World, helm: &Path, dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "build",
        "--enable-helm",
        "--helm-command",
        helm.to_str().unwrap(),
    ];
    let grants = support::helm_reads(helm);
    args.extend(grants.iter().map(String::as_str));
    args.extend_from_slice(extra);
    args.push(".");
    w.kustom(&args, dir)
}

fn ok(o: &Output) -> Vec<u8> {
    assert!(
        o.status.success(),
        "kustom failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout.clone()
}

fn lock(w: &World, helm: &Path, dir: &Path) {
    let mut args = vec![
        "lock",
        "--enable-helm",
        "--helm-command",
        helm.to_str().unwrap(),
    ];
    let grants = support::helm_reads(helm);
    args.extend(grants.iter().map(String::as_str));
    args.push(".");
    let o = w.kustom(&args, dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `kubectl kustomize --enable-helm` through a helm reporting v3, with the
/// chart vendored where kustomize would pull it (the front end cannot pull).
fn kubectl_with_vendored_chart(w: &World, helm: &Path, tgz: &[u8], repo: &str) -> Option<String> {
    if !remote_world::kubectl_available() {
        return None;
    }
    let dir = tree(w, "kubectl-tree", repo, "0.3.0");
    let home = dir.join("charts/webapp-0.3.0");
    std::fs::create_dir_all(&home).unwrap();
    let tgz_path = w.tmp.path().join("vendored.tgz");
    std::fs::write(&tgz_path, tgz).unwrap();
    sh(&home, &["tar", "-xzf", tgz_path.to_str().unwrap()]);
    let wrapper = w.tmp.path().join("helm3");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n[ \"$1\" = version ] && {{ echo v3.99.0; exit 0; }}\nexec '{}' \"$@\"\n",
            helm.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new("kubectl")
        .args(["kustomize", "--enable-helm", "--helm-command"])
        .arg(&wrapper)
        .arg(&dir)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "kubectl kustomize: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn chart_repository_cold_warm_locked_offline() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let w = World::new();
    let tgz = archive(&w, 3);
    publish(&w, &tgz);
    let repo = w.http.url("/files/charts");
    let dir = tree(&w, "app", &repo, "0.3.0");

    let cold = ok(&kustom(&w, &helm, &dir, &[]));
    let text = String::from_utf8_lossy(&cold).into_owned();
    assert!(
        text.contains("replicas: 3") && text.contains("GREETING: welcome"),
        "{text}"
    );
    let seen = w.http.requests();
    assert_eq!(seen.len(), 2, "index and archive: {seen:?}");
    assert!(
        !dir.join("charts").exists(),
        "kustom wrote into the user's tree"
    );

    w.http.clear();
    let warm = ok(&kustom(&w, &helm, &dir, &[]));
    assert_eq!(warm, cold);
    assert!(w.http.requests().is_empty(), "{:?}", w.http.requests());

    w.http.clear();
    lock(&w, &helm, &dir);
    let lock_text = std::fs::read_to_string(dir.join("kustom.lock")).unwrap();
    assert!(
        lock_text.contains("chart: webapp")
            && lock_text.contains("resolved: 0.3.0")
            && lock_text.contains(&sha256(&tgz)),
        "{lock_text}"
    );
    assert!(!dir.join("charts").exists());

    w.http.clear();
    let locked = ok(&kustom(&w, &helm, &dir, &["--locked"]));
    assert_eq!(locked, cold);
    assert!(w.http.requests().is_empty(), "{:?}", w.http.requests());

    let offline = ok(&kustom(&w, &helm, &dir, &["--offline"]));
    assert_eq!(offline, cold);
    assert!(w.http.requests().is_empty());

    // From an empty cache, the locked build fetches the pinned archive.
    std::fs::remove_dir_all(&w.cache).unwrap();
    w.http.clear();
    let relocked = ok(&kustom(&w, &helm, &dir, &["--locked"]));
    assert_eq!(relocked, cold);

    // The same version republished with other bytes: refused, both digests named.
    let changed = archive(&w, 5);
    publish(&w, &changed);
    std::fs::remove_dir_all(&w.cache).unwrap();
    let refused = kustom(&w, &helm, &dir, &[]);
    assert!(!refused.status.success());
    assert!(refused.stdout.is_empty());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains(&sha256(&tgz))
            && err.contains(&sha256(&changed))
            && err.contains("kustom lock"),
        "{err}"
    );
    // Without the lock it builds the new bytes.
    std::fs::remove_file(dir.join("kustom.lock")).unwrap();
    let unlocked = String::from_utf8_lossy(&ok(&kustom(&w, &helm, &dir, &[]))).into_owned();
    assert!(unlocked.contains("replicas: 5"), "{unlocked}");

    // kubectl kustomize, the chart vendored where it would pull it.
    match kubectl_with_vendored_chart(&w, &helm, &tgz, &repo) {
        Some(theirs) => assert_eq!(theirs, text),
        None => support::skip("kubectl not installed: no comparison with kubectl kustomize"),
    }
}

#[test]
fn chart_versions_ranges_and_offline_misses() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let w = World::new();
    let tgz = archive(&w, 3);
    publish(&w, &tgz);
    let repo = w.http.url("/files/charts");
    // A range resolves to the highest version it admits.
    let dir = tree(&w, "range", &repo, "\"~0.3\"");
    let out = String::from_utf8_lossy(&ok(&kustom(&w, &helm, &dir, &[]))).into_owned();
    assert!(out.contains("replicas: 3"));
    lock(&w, &helm, &dir);
    let lock_text = std::fs::read_to_string(dir.join("kustom.lock")).unwrap();
    assert!(
        lock_text.contains("version: ~0.3") && lock_text.contains("resolved: 0.3.0"),
        "{lock_text}"
    );
    // An unknown version names the chart and the repository.
    let bad = tree(&w, "bad", &repo, "9.9.9");
    let o = kustom(&w, &helm, &bad, &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("webapp") && err.contains("9.9.9") && err.contains("kustomization.yaml"),
        "{err}"
    );
    // Offline, a chart never pulled is named; a damaged archive is named damaged.
    let o = kustom(&w, &helm, &bad, &["--offline"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("not in the cache"));
    let exact = tree(&w, "exact", &repo, "0.3.0");
    ok(&kustom(&w, &helm, &exact, &[]));
    for a in std::fs::read_dir(w.cache.join("kustom/charts/archives")).unwrap() {
        std::fs::write(a.unwrap().path(), b"garbage").unwrap();
    }
    let o = kustom(&w, &helm, &exact, &["--offline"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("damaged"), "{err}");
    // Online it is fetched again.
    ok(&kustom(&w, &helm, &exact, &[]));
}

/// kustomize v5.8's `helmCharts[].devel` without a version pulls as
/// `helm pull --devel` does (version `>0.0.0-0`): the highest version,
/// prereleases included; without it the highest release. v5.5 knows no
/// `devel`.
#[test]
fn devel_charts_include_prereleases_in_v5_8() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let w = World::new();
    let release = archive(&w, 3);
    let prerelease = archive(&w, 4);
    let index = format!(
        "apiVersion: v1\nentries:\n  webapp:\n  - apiVersion: v2\n    name: webapp\n    version: 0.4.0-rc.1\n    digest: {}\n    urls:\n    - webapp-0.4.0-rc.1.tgz\n  - apiVersion: v2\n    name: webapp\n    version: 0.3.0\n    digest: {}\n    urls:\n    - webapp-0.3.0.tgz\n",
        sha256(&prerelease),
        sha256(&release)
    );
    {
        let mut files = w.http.files.lock().unwrap();
        files.insert("charts/index.yaml".into(), index.into_bytes());
        files.insert("charts/webapp-0.3.0.tgz".into(), release);
        files.insert("charts/webapp-0.4.0-rc.1.tgz".into(), prerelease);
    }
    let repo = w.http.url("/files/charts");
    for (name, devel, version, replicas) in [
        ("release", "", "5.8", Some(3)),
        ("devel", "  devel: true\n", "5.8", Some(4)),
        ("devel-5.5", "  devel: true\n", "5.5", None),
    ] {
        let dir = w.tmp.path().join(name);
        write(
            &dir,
            &[(
                "kustomization.yaml",
                &format!("helmCharts:\n- name: webapp\n  repo: {repo}\n  releaseName: r\n{devel}"),
            )],
        );
        let o = kustom(&w, &helm, &dir, &["--kustomize-version", version]);
        match replicas {
            Some(n) => {
                let out = String::from_utf8_lossy(&ok(&o)).into_owned();
                assert!(out.contains(&format!("replicas: {n}")), "{name}: {out}");
            }
            None => {
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(
                    !o.status.success() && err.contains("unknown field \"devel\""),
                    "{name}: {err}"
                );
            }
        }
    }
}

#[test]
fn oci_registry_cold_warm_locked_offline() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let w = World::new();
    let tgz = archive(&w, 3);
    publish_oci(&w, &tgz);
    let repo = format!("oci://127.0.0.1:{}/charts", w.https.port);
    let dir = tree(&w, "app", &repo, "0.3.0");
    let cold = ok(&kustom(&w, &helm, &dir, &[]));
    assert!(String::from_utf8_lossy(&cold).contains("replicas: 3"));
    assert_eq!(w.https.requests().len(), 2, "{:?}", w.https.requests());
    assert!(!dir.join("charts").exists());
    w.https.clear();
    assert_eq!(ok(&kustom(&w, &helm, &dir, &[])), cold);
    assert!(w.https.requests().is_empty());
    lock(&w, &helm, &dir);
    w.https.clear();
    assert_eq!(ok(&kustom(&w, &helm, &dir, &["--locked"])), cold);
    assert_eq!(ok(&kustom(&w, &helm, &dir, &["--offline"])), cold);
    assert!(w.https.requests().is_empty());
    // No version: the highest release tag.
    let latest = tree(&w, "latest", &repo, "\"\"");
    assert_eq!(ok(&kustom(&w, &helm, &latest, &[])), cold);
    // Retagged with other bytes: the lock pins the content-addressed
    // layer, so while the registry still serves it the build is the same…
    let changed = archive(&w, 5);
    publish_oci(&w, &changed);
    std::fs::remove_dir_all(&w.cache).unwrap();
    assert_eq!(ok(&kustom(&w, &helm, &dir, &[])), cold);
    // …and once it is gone, refused, naming both digests.
    w.https
        .files
        .lock()
        .unwrap()
        .remove(&format!("v2/charts/webapp/blobs/sha256:{}", sha256(&tgz)));
    std::fs::remove_dir_all(&w.cache).unwrap();
    let refused = kustom(&w, &helm, &dir, &[]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && err.contains(&sha256(&tgz)) && err.contains(&sha256(&changed)),
        "{err}"
    );
}
