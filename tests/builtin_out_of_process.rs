//! The builtins run as separate processes: a logging wrapper installed as
//! the `builtin` KEP plugin sees the calls, and the output is unchanged; a
//! tree with only `resources:` makes no plugin call at all; builtin
//! generators join the shipped builtin's transformer call with the same
//! result (and the same errors) as separate calls.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn kustom(dir: &Path, config_home: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kustom"))
        .arg("build")
        .arg(dir)
        .env("XDG_CONFIG_HOME", config_home)
        .output()
        .expect("run kustom")
}

/// Install a wrapper for the builtin group that logs its arguments to `log`
/// and forwards to the shipped builtin.
fn install_logging_wrapper(config_home: &Path, log: &Path) -> PathBuf {
    let dir = config_home.join("kustomize/plugins");
    std::fs::create_dir_all(&dir).expect("plugin dir");
    let wrapper = dir.join("builtin");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexec '{}' builtin-plugin \"$@\"\n",
            log.display(),
            env!("CARGO_BIN_EXE_kustom")
        ),
    )
    .expect("write wrapper");
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // The wrapper runs confined: grant it (and only it) what it needs.
    std::fs::write(log, "").expect("create log");
    std::fs::write(
        config_home.join("kustomize/plugin-policy.yaml"),
        format!(
            "plugins:\n- plugin: builtin override\n  allowRead: ['{}']\n  allowWrite: ['{}']\n",
            env!("CARGO_BIN_EXE_kustom"),
            log.display()
        ),
    )
    .expect("write policy");
    wrapper
}

#[test]
fn wrapper_sees_builtin_calls_and_output_is_unchanged() {
    let overlay =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/components/overlays/community");
    let plain_home = tempfile::tempdir().expect("temp");
    let plain = kustom(&overlay, plain_home.path());
    assert!(
        plain.status.success(),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );

    let home = tempfile::tempdir().expect("temp");
    let log = home.path().join("calls.log");
    install_logging_wrapper(home.path(), &log);
    let wrapped = kustom(&overlay, home.path());
    assert!(
        wrapped.status.success(),
        "{}",
        String::from_utf8_lossy(&wrapped.stderr)
    );
    assert_eq!(
        plain.stdout, wrapped.stdout,
        "output changed under the wrapper"
    );

    let calls = std::fs::read_to_string(&log).expect("wrapper was called");
    let lines: Vec<&str> = calls.lines().collect();
    assert!(lines.contains(&"generate"), "no generate call: {lines:?}");
    assert!(lines.contains(&"transform"), "no transform call: {lines:?}");
}

#[test]
fn resources_only_tree_makes_no_plugin_call() {
    let tree = tempfile::tempdir().expect("temp");
    let base = tree.path().join("base");
    let top = tree.path().join("top");
    std::fs::create_dir_all(&base).expect("mkdir");
    std::fs::create_dir_all(&top).expect("mkdir");
    std::fs::write(base.join("kustomization.yaml"), "resources:\n- cm.yaml\n").expect("write");
    std::fs::write(
        base.join("cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n",
    )
    .expect("write");
    std::fs::write(top.join("kustomization.yaml"), "resources:\n- ../base\n").expect("write");

    let home = tempfile::tempdir().expect("temp");
    let log = home.path().join("calls.log");
    install_logging_wrapper(home.path(), &log);
    let out = kustom(&top, home.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "apiVersion: v1\ndata:\n  a: b\nkind: ConfigMap\nmetadata:\n  name: settings\n"
    );
    assert_eq!(
        std::fs::read_to_string(&log).expect("log"),
        "",
        "a plugin was called"
    );
}

/// kustom with plugin-call logging on; the number of plugin calls it made.
fn kustom_counting_calls(dir: &Path, config_home: &Path) -> (std::process::Output, usize) {
    let out = Command::new(env!("CARGO_BIN_EXE_kustom"))
        .arg("build")
        .arg(dir)
        .env("XDG_CONFIG_HOME", config_home)
        .env("RUST_LOG", "kustom::plugin_host=debug")
        .output()
        .expect("run kustom");
    let calls = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("plugin call finished"))
        .count();
    (out, calls)
}

fn write_tree(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write");
    }
}

const TINY_DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n        envFrom:\n        - configMapRef:\n            name: settings\n";

#[test]
fn builtin_generators_run_in_the_transformer_call() {
    let tree = tempfile::tempdir().expect("temp");
    write_tree(
        tree.path(),
        &[
            (
                "kustomization.yaml",
                "namePrefix: tiny-\nresources:\n- deployment.yaml\nconfigMapGenerator:\n- name: settings\n  literals:\n  - LOG_LEVEL=info\n",
            ),
            ("deployment.yaml", TINY_DEPLOYMENT),
        ],
    );
    let home = tempfile::tempdir().expect("temp");
    let (fused, calls) = kustom_counting_calls(tree.path(), home.path());
    assert!(
        fused.status.success(),
        "{}",
        String::from_utf8_lossy(&fused.stderr)
    );
    assert_eq!(calls, 1, "{}", String::from_utf8_lossy(&fused.stderr));
    let text = String::from_utf8_lossy(&fused.stdout);
    assert!(text.contains("name: tiny-settings-"), "{text}");

    // The same tree through a KEP `builtin` plugin: separate generate and
    // transform calls, the same bytes.
    let wrapped_home = tempfile::tempdir().expect("temp");
    let log = wrapped_home.path().join("calls.log");
    install_logging_wrapper(wrapped_home.path(), &log);
    let separate = kustom(tree.path(), wrapped_home.path());
    assert!(separate.status.success());
    assert_eq!(fused.stdout, separate.stdout);
    let ops = std::fs::read_to_string(&log).expect("wrapper was called");
    assert_eq!(ops.lines().collect::<Vec<_>>(), ["generate", "transform"]);
}

#[test]
fn a_generated_id_that_exists_fails_whether_or_not_generation_is_fused() {
    let tree = tempfile::tempdir().expect("temp");
    write_tree(
        tree.path(),
        &[
            (
                "kustomization.yaml",
                "namePrefix: p-\nresources:\n- cm.yaml\nconfigMapGenerator:\n- name: settings\n  literals:\n  - A=1\n",
            ),
            (
                "cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  B: \"2\"\n",
            ),
        ],
    );
    let home = tempfile::tempdir().expect("temp");
    let fused = kustom(tree.path(), home.path());
    let wrapped_home = tempfile::tempdir().expect("temp");
    install_logging_wrapper(wrapped_home.path(), &wrapped_home.path().join("calls.log"));
    let separate = kustom(tree.path(), wrapped_home.path());
    for out in [fused, separate] {
        assert!(!out.status.success());
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        // v5.8.1's wording (the default); v5.5.0 has no "can not use" part.
        assert!(
            err.contains(
                "id ConfigMap.v1.[noGrp]/settings.[noNs] exists; can not use behavior: 'unspecified', behavior must be merge or replace"
            ) && err.contains("kustomization.yaml"),
            "{err}"
        );
    }
}
