//! Large resource files read ahead on another core (`builder::prefetch`):
//! the build gives kubectl's bytes with them, reports a broken file in its
//! own words, and still refuses a file outside its kustomization.

mod support;

use support::Env;

/// A ConfigMap stream of about `kib` KiB (past the read-ahead threshold).
fn big_configmaps(prefix: &str, kib: usize) -> String {
    let mut out = String::new();
    for i in 0..kib {
        out.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {prefix}-{i}\ndata:\n  blob: \"{}\"\n",
            "x".repeat(950)
        ));
    }
    out
}

/// A root with a base and two components, each listing a large file.
fn tree(env: &Env) {
    env.write("base/big.yaml", &big_configmaps("base", 300));
    env.write("base/kustomization.yaml", "resources:\n- big.yaml\n");
    for c in ["one", "two"] {
        env.write(&format!("comp/{c}/big.yaml"), &big_configmaps(c, 300));
        env.write(
            &format!("comp/{c}/kustomization.yaml"),
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- big.yaml\n",
        );
    }
    env.write(
        "top/kustomization.yaml",
        "resources:\n- ../base\ncomponents:\n- ../comp/one\n- ../comp/two\nnamePrefix: p-\n",
    );
}

#[test]
fn files_read_ahead_give_kubectls_bytes() {
    let env = Env::new();
    tree(&env);
    // Whether the reader ahead gets to a file before the build does is up
    // to the scheduler (a busy machine may not run it in time): build
    // until it has, each output checked.
    let mut ours = String::new();
    let mut log = String::new();
    for _ in 0..10 {
        let out = env.kustom(&["build", "-v", "top"]);
        ours = support::ok(&out);
        assert_eq!(ours.matches("kind: ConfigMap").count(), 900);
        log = String::from_utf8_lossy(&out.stderr).into_owned();
        if log.contains("read ahead") {
            break;
        }
    }
    assert!(log.contains("read ahead"), "{log}");
    let Some(theirs) = env.kubectl(&["top"]) else {
        support::skip("kubectl is not installed: the output is not compared");
        return;
    };
    assert!(theirs.status.success());
    assert_eq!(ours, String::from_utf8_lossy(&theirs.stdout));
}

#[test]
fn a_broken_file_read_ahead_is_reported_by_the_build() {
    let env = Env::new();
    tree(&env);
    let mut broken = big_configmaps("two", 300);
    broken.push_str("---\nkind: [unclosed\n");
    env.write("comp/two/big.yaml", &broken);
    let out = env.kustom(&["build", "top"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("accumulating resources from 'big.yaml'") && err.contains("comp/two"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_file_outside_its_kustomization_is_still_refused() {
    let env = Env::new();
    tree(&env);
    env.write("outside/big.yaml", &big_configmaps("out", 300));
    env.write(
        "comp/two/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- ../../outside/big.yaml\n",
    );
    let out = env.kustom(&["build", "top"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not in or below"), "{err}");
}
