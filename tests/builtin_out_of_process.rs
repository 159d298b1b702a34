//! The builtins run as separate processes: a logging wrapper installed as
//! the `builtin` KEP plugin sees the calls, and the output is unchanged; a
//! tree with only `resources:` makes no plugin call at all.

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
    assert!(
        !log.exists(),
        "a plugin was called: {:?}",
        std::fs::read_to_string(&log)
    );
}
