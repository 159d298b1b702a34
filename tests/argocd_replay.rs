//! Argo CD's calls, replayed with kustom installed as `kustomize` (a
//! symlink): the version probe (`kustomize version --short`, parsed the way
//! Argo CD's util/kustomize parses it), the `edit` command lines it issues
//! for an Application's `spec.source.kustomize` overrides, in its order and
//! argument forms, then `kustomize build <path> [buildOptions]`. Each edited
//! tree's build must equal `kubectl kustomize`'s build of the same tree.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{DEPLOY, SVC};

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, content).expect("write");
}

/// A `kustomize` symlink to the kustom under test, in its own directory.
fn install_as_kustomize(root: &Path) -> PathBuf {
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    let link = bin.join("kustomize");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_kustom"), &link).expect("symlink");
    link
}

/// A repository with a base, a component and an overlay (the app path).
fn repo(root: &Path) -> PathBuf {
    let repo = root.join("repo");
    write(&repo.join("base/deploy.yaml"), DEPLOY);
    write(&repo.join("base/svc.yaml"), SVC);
    write(
        &repo.join("base/kustomization.yaml"),
        "resources:\n- deploy.yaml\n- svc.yaml\n",
    );
    write(
        &repo.join("components/monitoring/kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations:\n  prometheus.io/scrape: \"true\"\n",
    );
    write(
        &repo.join("app/kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n# the shared base\nresources:\n- ../base\n",
    );
    repo
}

fn run(cmd: &mut Command) -> std::process::Output {
    cmd.output().expect("run command")
}

/// What Argo CD's `getSemver` reads from `kustomize version --short`.
fn argocd_semver(output: &str) -> Option<(u64, u64, u64)> {
    let v = output.trim();
    let v = v.strip_prefix('{').unwrap_or(v);
    let v = v.strip_suffix('}').unwrap_or(v);
    let v = v.trim().replace("  ", " ");
    let v = v.strip_prefix("kustomize/").unwrap_or(&v).to_string();
    // The first `v?MAJOR(.MINOR)?(.PATCH)?` in the text (Masterminds' regex).
    let start = v.find(|c: char| c.is_ascii_digit())?;
    let nums: Vec<u64> = v[start..]
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .next()?
        .split('.')
        .take(3)
        .map(|n| n.parse().unwrap_or(0))
        .collect();
    Some((
        nums[0],
        nums.get(1).copied().unwrap_or(0),
        nums.get(2).copied().unwrap_or(0),
    ))
}

#[test]
fn version_probe_reads_at_least_5_5_0() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let kustomize = install_as_kustomize(tmp.path());
    let out = run(Command::new(&kustomize).args(["version", "--short"]));
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let v = argocd_semver(&text).expect("a semantic version");
    assert!(v >= (5, 5, 0), "{text:?} reads as {v:?}");
    // The plain form is the version alone, kustom's after `+`.
    // The default release is v5.8.1 (docs/kustomize-versions.md).
    let plain = run(Command::new(&kustomize)
        .env_remove("KUSTOM_KUSTOMIZE_VERSION")
        .arg("version"));
    let plain = String::from_utf8(plain.stdout).expect("utf-8");
    assert!(plain.starts_with("v5.8.1+kustom."), "{plain}");
}

/// One Application's overrides as the command lines Argo CD runs in the
/// app directory, in Argo CD's order.
fn edits(labels_without_selector: bool) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut label = s(&["edit", "add", "label", "--force"]);
    if labels_without_selector {
        label.extend(s(&["--without-selector", "--include-templates"]));
    }
    label.extend(s(&["team:platform", "env:prod"]));
    vec![
        s(&["edit", "set", "nameprefix", "--", "argo-"]),
        s(&["edit", "set", "namesuffix", "--", "-prod"]),
        s(&[
            "edit",
            "set",
            "image",
            "nginx=registry.example.com/nginx:1.27",
            "redis:7.2",
        ]),
        s(&["edit", "set", "replicas", "web=3"]),
        label,
        s(&[
            "edit",
            "add",
            "annotation",
            "--force",
            "owner:sre",
            "tier:front",
        ]),
        s(&["edit", "set", "namespace", "--", "prod"]),
        s(&["edit", "add", "component", "../components/monitoring"]),
    ]
}

fn kubectl_kustomize(dir: &Path) -> Option<std::process::Output> {
    Command::new("kubectl")
        .args(["kustomize"])
        .arg(dir)
        .output()
        .ok()
        .filter(|o| o.status.success() || !o.stderr.is_empty())
}

fn replay(labels_without_selector: bool) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let kustomize = install_as_kustomize(tmp.path());
    let repo = repo(tmp.path());
    let app = repo.join("app");
    for args in edits(labels_without_selector) {
        let out = run(Command::new(&kustomize)
            .args(&args)
            .current_dir(&app)
            .env("XDG_CONFIG_HOME", tmp.path().join("config")));
        assert!(
            out.status.success(),
            "kustomize {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let edited = std::fs::read_to_string(app.join("kustomization.yaml")).expect("read");
    assert!(edited.starts_with("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n# the shared base\nresources:\n- ../base\n"), "{edited}");
    // Argo CD builds from the repository root with the app's path.
    let built = run(Command::new(&kustomize)
        .arg("build")
        .arg(&app)
        .current_dir(&repo)
        .env("XDG_CONFIG_HOME", tmp.path().join("config")));
    assert!(
        built.status.success(),
        "build: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let text = String::from_utf8(built.stdout).expect("utf-8");
    assert!(text.contains("name: argo-web-prod"), "{text}");
    assert!(
        text.contains("image: registry.example.com/nginx:1.27"),
        "{text}"
    );
    match kubectl_kustomize(&app) {
        Some(reference) => {
            assert!(
                reference.status.success(),
                "kubectl kustomize failed: {}",
                String::from_utf8_lossy(&reference.stderr)
            );
            assert_eq!(
                text,
                String::from_utf8_lossy(&reference.stdout),
                "kustom and kubectl kustomize differ on the edited tree:\n{edited}"
            );
        }
        None => {
            support::skip("kubectl not installed: edited tree not compared with kubectl kustomize")
        }
    }
}

#[test]
fn edits_with_common_labels_build_as_kubectl_does() {
    replay(false);
}

#[test]
fn edits_with_labels_without_selector_build_as_kubectl_does() {
    replay(true);
}

/// Argo CD adds `--helm-kube-version` and one `--helm-api-versions` per API
/// version to the build options when they contain `--enable-helm`; they
/// reach `helm template` as `--kube-version` / `--api-versions`.
#[test]
fn helm_build_options_are_accepted_and_passed_to_helm() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let kustomize = install_as_kustomize(tmp.path());
    let app = tmp.path().join("repo/app");
    write(
        &app.join("charts/web/Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    );
    write(&app.join("charts/web/values.yaml"), "");
    write(
        &app.join("kustomization.yaml"),
        "helmCharts:\n- name: web\n  releaseName: web\n",
    );
    // A helm that records its arguments and renders one ConfigMap.
    let log = tmp.path().join("helm.log");
    let helm = tmp.path().join("bin/helm");
    write(
        &helm,
        &format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\ncase \"$1\" in\n  version) echo v3.15.0;;\n  template) printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: rendered\\n';;\nesac\n",
            log.display()
        ),
    );
    std::fs::set_permissions(&helm, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    // Argo CD: `build <path>` + kustomize.buildOptions + the helm flags.
    let out = run(Command::new(&kustomize)
        .arg("build")
        .arg(&app)
        .args(["--enable-helm", "--helm-command"])
        .arg(&helm)
        .args([
            "--helm-kube-version",
            "1.30",
            "--helm-api-versions",
            "monitoring.coreos.com/v1",
            "--helm-api-versions",
            "networking.k8s.io/v1/Ingress",
        ])
        // The fake helm's call log sits outside the tree: a confined
        // plugin (and the helm it runs) writes there only with a grant.
        .arg("--plugin-allow-write")
        .arg(tmp.path())
        .current_dir(tmp.path().join("repo"))
        .env("XDG_CONFIG_HOME", tmp.path().join("config")));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("name: rendered"));
    let calls = std::fs::read_to_string(&log).expect("helm ran");
    let template = calls
        .lines()
        .find(|l| l.starts_with("template"))
        .expect("helm template ran");
    assert!(template.contains("--kube-version 1.30"), "{template}");
    assert!(
        template.contains(
            "--api-versions monitoring.coreos.com/v1 --api-versions networking.k8s.io/v1/Ingress"
        ),
        "{template}"
    );
}

#[test]
fn help_and_completion_as_kustomize() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let kustomize = install_as_kustomize(tmp.path());
    let help = run(Command::new(&kustomize).args(["edit", "set", "--help"]));
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("Usage: kustomize edit set"), "{help}");
    assert!(help.contains("kustomize edit set image"), "{help}");
    let script = run(Command::new(&kustomize).args(["completion", "bash"]));
    assert!(script.status.success());
    let script = String::from_utf8_lossy(&script.stdout);
    assert!(
        script.contains("_kustomize()"),
        "completion for the kustomize name"
    );
}
