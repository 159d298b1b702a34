//! Helm, with a real `helm template`: the builtin `helmCharts:` generator
//! and the `helm.kustomize.io` KEP plugin (`kustom-helm`), on the local
//! charts under `examples/`.
//!
//! The helm executable is `$KUSTOM_TEST_HELM`, else the one
//! `.ci/install-helm.sh` installs (`$KUSTOM_HELM_PREFIX/bin/helm`, default
//! `~/.cache/kustom/helm/bin/helm`), else `helm` on `$PATH`. Without one the
//! tests say so on STDERR and pass without checking anything.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::ok;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn kustom(xdg: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(args)
        .env("XDG_CONFIG_HOME", xdg)
        .output()
        .expect("run kustom")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// kubectl kustomize insists on helm 3; the engine here is Helm 4. A
/// wrapper that reports version 3 lets kubectl run the same engine.
fn helm3_wrapper(dir: &Path, helm: &Path) -> PathBuf {
    let w = dir.join("helm3");
    std::fs::write(
        &w,
        format!(
            "#!/bin/sh\n[ \"$1\" = version ] && {{ echo v3.99.0; exit 0; }}\nexec '{}' \"$@\"\n",
            helm.display()
        ),
    )
    .expect("write wrapper");
    std::fs::set_permissions(&w, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    w
}

#[test]
fn builtin_helm_charts_inflate_the_local_chart() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("temp");
    let tree = repo().join("examples/helm");
    // No grant: the sandbox lets the builtin read where helm is installed
    // (here a Python front end in a virtualenv under $HOME), so the
    // example runs as its comment says.
    let args = vec![
        "build",
        "--enable-helm",
        "--helm-command",
        s(&helm),
        s(&tree),
    ];
    let out = ok(&kustom(tmp.path(), &args));
    let want = std::fs::read_to_string(tree.join("expected.yaml")).expect("expected");
    assert_eq!(out, want);
    // Values inline and from files, CRDs in, test hooks out, api versions seen.
    for part in [
        "replicas: 3",
        "image: nginx:1.27",
        "GREETING: welcome",
        "METRICS: enabled",
        "kind: CustomResourceDefinition",
    ] {
        assert!(out.contains(part), "missing {part:?}");
    }
    assert!(!out.contains("-test"), "test hook not skipped");
    // The audit record credits the chart's resources to the helmCharts entry.
    let log = tmp.path().join("audit.jsonl");
    let mut logged = args.clone();
    logged.extend(["--audit-log", s(&log)]);
    ok(&kustom(tmp.path(), &logged));
    let audit = std::fs::read_to_string(&log).expect("audit log");
    let entry = audit
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .find(|e| e["op"] == "generate")
        .expect("a generate entry");
    assert_eq!(entry["entry"], "helmCharts[0] (name: webapp)");
    assert!(
        entry["resources"]
            .as_array()
            .is_some_and(|r| r.iter().all(|x| x["change"] == "added") && !r.is_empty()),
        "{entry}"
    );
    let wrapper = helm3_wrapper(tmp.path(), &helm);
    if let Ok(k) = Command::new("kubectl")
        .args([
            "kustomize",
            "--enable-helm",
            "--helm-command",
            s(&wrapper),
            s(&tree),
        ])
        .output()
    {
        assert_eq!(
            out,
            ok(&k),
            "kustom and kubectl kustomize differ on the same helm"
        );
    }
}

#[test]
fn helm_charts_need_enable_helm() {
    let tmp = tempfile::tempdir().expect("temp");
    let o = kustom(tmp.path(), &["build", s(&repo().join("examples/helm"))]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("must specify --enable-helm"), "{err}");
    assert!(err.contains("HelmChartInflationGenerator"), "{err}");
}

#[test]
fn missing_helm_command_is_reported() {
    let tmp = tempfile::tempdir().expect("temp");
    let o = kustom(
        tmp.path(),
        &[
            "build",
            "--enable-helm",
            "--helm-command",
            "/nonexistent/helm",
            s(&repo().join("examples/helm")),
        ],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("/nonexistent/helm") && err.contains("installed?"),
        "{err}"
    );
}

#[test]
fn kep_chart_plugin_inflates_and_references_follow_renames() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let plugin = Path::new(env!("CARGO_BIN_EXE_kustom")).with_file_name("kustom-helm");
    if !plugin.is_file() {
        support::skip(&format!(
            "{} is not built (cargo build -p kustom-helm)",
            plugin.display()
        ));
        return;
    }
    let tmp = tempfile::tempdir().expect("temp");
    let xdg = tmp.path().join("xdg");
    ok(&kustom(
        &xdg,
        &[
            "plugin",
            "install",
            s(&plugin),
            "--group",
            "helm.kustomize.io",
        ],
    ));
    let tree = repo().join("examples/helm-chart-plugin");
    let grants = support::helm_reads(&helm);
    let mut args = vec![
        "build",
        "--enable-alpha-plugins",
        "--helm-command",
        s(&helm),
        s(&tree),
    ];
    args.extend(grants.iter().map(String::as_str));
    let out = ok(&kustom(&xdg, &args));
    let want = std::fs::read_to_string(tree.join("expected.yaml")).expect("expected");
    assert_eq!(out, want);
    assert!(
        out.contains("name: team-greeter-message\n")
            && out.contains("              name: team-greeter-message\n")
    );
}

/// A relative `--helm-command` with a `/` is taken from the directory
/// kustom runs in (as kustomize runs it), not from the kustomization's.
#[test]
fn relative_helm_command_is_taken_from_the_working_directory() {
    let Some(helm) = support::helm_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("temp");
    std::fs::create_dir(tmp.path().join("bin")).expect("mkdir");
    std::os::unix::fs::symlink(&helm, tmp.path().join("bin/helm")).expect("symlink");
    let tree = repo().join("examples/helm");
    let grants = support::helm_reads(&helm);
    let build = |command: &str| {
        let mut args = vec![
            "build",
            "--enable-helm",
            "--helm-command",
            command,
            s(&tree),
        ];
        args.extend(grants.iter().map(String::as_str));
        Command::new(env!("CARGO_BIN_EXE_kustom"))
            .args(&args)
            .env("XDG_CONFIG_HOME", tmp.path().join("xdg"))
            .current_dir(tmp.path())
            .output()
            .expect("run kustom")
    };
    let relative = ok(&build("./bin/helm"));
    assert_eq!(relative, ok(&build(s(&helm))));
}
