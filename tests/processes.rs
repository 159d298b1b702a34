//! kustom as a GitOps controller calls it, thousands of times, under a PID 1
//! that waits only for its own children (Argo CD's `argocd-cmp-server`):
//! a mix of builds (builtin only, KEP plugins, a plugin that leaves a
//! daemon, a failing build), renders and diffs, and builds ended with TERM
//! while a plugin runs, must leave no zombie, no live process and no
//! temporary file behind. Runs in a new PID namespace (`unshare`, as root
//! or with user namespaces); skips visibly where that is impossible.

mod support;

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use support::{git, skip, Env};

/// The command that runs `pid1.py` as PID 1 of a new PID namespace, if this
/// machine allows one.
fn pid_namespace() -> Option<Vec<&'static str>> {
    for prefix in [
        &["unshare", "--pid", "--fork", "--mount-proc"][..],
        &[
            "unshare",
            "--user",
            "--map-root-user",
            "--pid",
            "--fork",
            "--mount-proc",
        ],
    ] {
        let ok = Command::new(prefix[0])
            .args(&prefix[1..])
            .arg("true")
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(prefix.to_vec());
        }
    }
    None
}

/// The trees of the mixed calls, in one git repository (for `diff`).
fn trees(env: &Env) {
    git(env.root(), &["init", "-q", "-b", "main"]);
    env.write(
        "repo/base/kustomization.yaml",
        "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: app\n  literals:\n  - mode=a\n",
    );
    env.write(
        "repo/base/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: app\n",
    );
    env.write(
        "repo/prod/kustomization.yaml",
        "resources:\n- ../base\nnamePrefix: prod-\nimages:\n- name: nginx\n  newTag: \"1.27\"\n",
    );
    // A KEP generator and transformer, and one that leaves a daemon.
    env.kep(
        "gen.example.com",
        "#!/bin/sh\ncase \"$1\" in\ngenerate) printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: generated\\n' ;;\ntransform) cat ;;\nesac\n",
    );
    env.kep(
        "agent.example.com",
        "#!/bin/sh\n[ \"$1\" = generate ] || exit 127\n( setsid sleep 300 >/dev/null 2>&1 </dev/null & )\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: agent\\n'\n",
    );
    env.kep(
        "slow.example.com",
        "#!/bin/sh\n[ \"$1\" = generate ] || exit 127\nsleep 30\n",
    );
    for (name, group) in [
        ("kep", "gen.example.com"),
        ("daemon", "agent.example.com"),
        ("slow", "slow.example.com"),
    ] {
        env.write(
            &format!("repo/{name}/gen.yaml"),
            &format!("apiVersion: {group}/v1\nkind: G\nmetadata:\n  name: g\n"),
        );
        env.write(
            &format!("repo/{name}/kustomization.yaml"),
            "resources:\n- ../base\ngenerators:\n- gen.yaml\n",
        );
    }
    env.write(
        "repo/broken/kustomization.yaml",
        "resources:\n- missing.yaml\n",
    );
    git(env.root(), &["add", "-A"]);
    git(env.root(), &["commit", "-qm", "one"]);
    env.write(
        "repo/prod/kustomization.yaml",
        "resources:\n- ../base\nnamePrefix: prod-\nimages:\n- name: nginx\n  newTag: \"1.28\"\n",
    );
    git(env.root(), &["commit", "-qam", "two"]);
}

#[test]
fn a_thousand_calls_under_a_pid_1_that_reaps_only_its_own_leave_nothing() {
    let Some(namespace) = pid_namespace() else {
        skip("no new PID namespace here (unshare refused): the PID-1 long run was not run");
        return;
    };
    let env = Env::new();
    trees(&env);
    let tmp = env.root().join("tmp");
    let cache = env.root().join("cache");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let kustom = env!("CARGO_BIN_EXE_kustom");
    let repo = env.root().join("repo");
    let call = |args: &[&str]| -> Value {
        let mut argv = vec![kustom];
        argv.extend_from_slice(args);
        json!({"argv": argv, "cwd": repo, "env": {
            "TMPDIR": tmp, "XDG_CONFIG_HOME": env.xdg(), "HOME": env.home(),
            "XDG_CACHE_HOME": cache}})
    };
    let plugins = ["build", "--enable-alpha-plugins"];
    let mut calls = Vec::new();
    let mut terms = 0;
    for i in 0..1000 {
        let c = match i % 20 {
            0..=7 => call(&["build", "prod"]),
            8..=10 => call(&[plugins[0], plugins[1], "kep"]),
            11 => call(&[plugins[0], plugins[1], "daemon"]),
            12 => call(&["build", "broken"]),
            13 | 14 => call(&["render", "-o", "out", "prod", "base"]),
            15 | 16 => call(&["diff", "--base", "HEAD~1", "--head", "HEAD"]),
            17 => call(&["build", "-o", "built", "prod"]),
            18 if i % 100 == 18 => {
                terms += 1;
                let mut c = call(&[plugins[0], plugins[1], "slow"]);
                c["term_after"] = json!(0.4);
                c
            }
            _ => call(&["version"]),
        };
        calls.push(c);
    }
    let plan = env.write(
        "plan.json",
        &serde_json::to_string(&json!({ "calls": calls })).expect("json"),
    );
    let result = env.root().join("result.json");
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/pid1.py");
    let status = Command::new(namespace[0])
        .args(&namespace[1..])
        .arg("python3")
        .arg(&harness)
        .arg(&plan)
        .arg(&result)
        .status()
        .expect("unshare");
    assert!(status.success(), "the PID-1 harness failed: {status}");
    let result: Value =
        serde_json::from_slice(&std::fs::read(&result).expect("result")).expect("result json");
    let codes: Vec<i64> = result["codes"]
        .as_array()
        .expect("codes")
        .iter()
        .map(|c| c.as_i64().expect("code"))
        .collect();
    for (i, code) in codes.iter().enumerate() {
        let expected: &[i64] = match i % 20 {
            12 => &[1],
            15 | 16 => &[1],
            18 if i % 100 == 18 => &[143],
            _ => &[0],
        };
        assert!(
            expected.contains(code),
            "call {i} ({}) exited {code}",
            calls[i]["argv"]
        );
    }
    let term_seconds: Vec<f64> = result["term_seconds"]
        .as_array()
        .expect("term_seconds")
        .iter()
        .map(|s| s.as_f64().expect("seconds"))
        .collect();
    assert_eq!(term_seconds.len(), terms);
    for s in &term_seconds {
        assert!(*s < 1.0, "TERM took {s:.2} s to end kustom");
    }
    assert_eq!(result["zombies"], 0, "zombies left: {result}");
    assert_eq!(
        result["live"].as_array().map_or(0, Vec::len),
        0,
        "processes left running: {}",
        result["live"]
    );
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .expect("tmp")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    let scratch: Vec<_> = std::fs::read_dir(cache.join("kustom/tmp"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(scratch.is_empty(), "left in the cache's tmp/: {scratch:?}");
}
