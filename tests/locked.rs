//! `--locked` asks for a pin only where something needs one: a plain app
//! builds without a `kustom.lock`; a third-party plugin without a lock file
//! is refused with a message that says how to make one.

mod support;

use support::{fails, ok, Env, DEPLOY};

#[test]
fn plain_app_builds_locked_without_a_lock_file() {
    let env = Env::new();
    env.write("app/deployment.yaml", DEPLOY);
    env.write(
        "app/kustomization.yaml",
        "namePrefix: prod-\nresources:\n- deployment.yaml\nconfigMapGenerator:\n- name: settings\n  literals:\n  - level=info\n",
    );
    let locked = ok(&env.kustom(&["build", "--locked", "app"]));
    let unlocked = ok(&env.kustom(&["build", "app"]));
    assert_eq!(locked, unlocked);
    assert!(locked.contains("name: prod-web"), "{locked}");
    assert!(
        !env.root().join("app/kustom.lock").exists(),
        "--locked must never write a lock"
    );
}

#[test]
fn third_party_plugin_locked_without_a_lock_file_is_refused() {
    let env = Env::new();
    env.kep(
        "pinned.example.com",
        "#!/bin/sh\n[ \"$1\" = generate ] || exit 127\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: pinned\\n'\n",
    );
    env.write(
        "app/gen.yaml",
        "apiVersion: pinned.example.com/v1\nkind: P\nmetadata:\n  name: p\n",
    );
    env.write("app/kustomization.yaml", "generators:\n- gen.yaml\n");
    let args = [
        "build",
        "--enable-alpha-plugins",
        "--plugin-sandbox=off",
        "--locked",
        "app",
    ];
    let err = fails(&env.kustom(&args));
    for part in [
        "--locked",
        "pinned.example.com",
        "no ",
        "kustom.lock",
        "kustom lock app",
    ] {
        assert!(err.contains(part), "missing {part:?} in: {err}");
    }
    // Without --locked the same build runs (no lock file: nothing enforced).
    let out = ok(&env.kustom(&args[..3].iter().copied().chain(["app"]).collect::<Vec<_>>()));
    assert!(out.contains("name: pinned"), "{out}");
}
