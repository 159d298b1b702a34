//! `kustom plugin install|which` and plugin lookup messages a new user
//! meets: a group that is not an API group name, replacing an installed
//! plugin, a KEP plugin without its executable bit, and `-v` output.

use std::path::Path;
use std::process::{Command, Output};

fn kustom(config: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(args)
        .current_dir(cwd)
        .env("XDG_CONFIG_HOME", config)
        .env_remove("KUSTOMIZE_PLUGIN_HOME")
        .env("HOME", config)
        .output()
        .expect("run kustom")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, body).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn install_needs_an_api_group_name_and_force_to_replace() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cfg = tmp.path().join("config");
    let plugin = tmp.path().join("my-plugin");
    script(&plugin, "#!/bin/sh\nexit 127\n");
    let o = kustom(
        &cfg,
        tmp.path(),
        &["plugin", "install", plugin.to_str().unwrap()],
    );
    assert!(!o.status.success());
    assert!(
        text(&o).contains("is not an API group name"),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("--group"), "{}", text(&o));
    let ok = kustom(
        &cfg,
        tmp.path(),
        &[
            "plugin",
            "install",
            plugin.to_str().unwrap(),
            "--group",
            "team.example.com",
        ],
    );
    assert!(ok.status.success(), "{}", text(&ok));
    // A second install without --force (and no terminal to ask on) refuses.
    let again = kustom(
        &cfg,
        tmp.path(),
        &[
            "plugin",
            "install",
            plugin.to_str().unwrap(),
            "--group",
            "team.example.com",
        ],
    );
    assert!(!again.status.success());
    assert!(
        text(&again).contains("already installed") && text(&again).contains("--force"),
        "{}",
        text(&again)
    );
    let forced = kustom(
        &cfg,
        tmp.path(),
        &[
            "plugin",
            "install",
            plugin.to_str().unwrap(),
            "--group",
            "team.example.com",
            "--force",
        ],
    );
    assert!(forced.status.success(), "{}", text(&forced));
    assert!(
        text(&forced).contains("replaced KEP plugin"),
        "{}",
        text(&forced)
    );
}

#[test]
fn unexecutable_kep_plugin_is_named() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cfg = tmp.path().join("config");
    let kep = cfg.join("kustomize/plugins/team.example.com");
    std::fs::create_dir_all(kep.parent().unwrap()).unwrap();
    std::fs::write(&kep, "#!/bin/sh\n").unwrap();
    let app = tmp.path().join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("kustomization.yaml"),
        "generators:\n- |-\n  apiVersion: team.example.com/v1\n  kind: App\n  metadata:\n    name: a\n",
    )
    .unwrap();
    let o = kustom(&cfg, &app, &["build", "--enable-alpha-plugins", "."]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("exists but is not executable"),
        "{}",
        text(&o)
    );
    let which = kustom(
        &cfg,
        &app,
        &["plugin", "which", "team.example.com/v1", "App"],
    );
    assert!(
        text(&which).contains("No plugin would run team.example.com/v1 App: the KEP plugin"),
        "{}",
        text(&which)
    );
    assert!(text(&which).contains("chmod +x"), "{}", text(&which));
}

#[test]
fn verbose_shows_stderr_of_successful_plugins_and_every_kind() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cfg = tmp.path().join("config");
    script(
        &cfg.join("kustomize/plugins/team.example.com"),
        "#!/bin/sh\necho 'note: generating' >&2\n[ \"$1\" = generate ] || exit 127\ncat >/dev/null\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: made\\n'\n",
    );
    let app = tmp.path().join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("kustomization.yaml"),
        "generators:\n- |-\n  apiVersion: team.example.com/v1\n  kind: Alpha\n  metadata:\n    name: a\n- |-\n  apiVersion: team.example.com/v1\n  kind: Beta\n  metadata:\n    name: b\n",
    )
    .unwrap();
    let o = kustom(&cfg, &app, &["build", "-v", "--enable-alpha-plugins", "."]);
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("note: generating"), "{err}");
    assert!(err.contains("Alpha, Beta"), "{err}");
}
