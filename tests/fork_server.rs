//! The shipped builtin started by the fork server (no exec per call): each
//! builtin process is confined as an exec'd one would be, with the
//! builtin's own seccomp allow-list; nothing kustom starts holds its
//! output open or outlives it; many calls in one build give kubectl's bytes.

mod support;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::Env;

/// A tree whose one builtin call takes long enough to be looked at.
fn large_tree(env: &Env, n: usize) {
    let mut resources = String::new();
    for i in 0..n {
        resources.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  k: v{i}\n"
        ));
    }
    env.write("app/cms.yaml", &resources);
    env.write(
        "app/kustomization.yaml",
        "namePrefix: p-\nlabels:\n- pairs:\n    team: a\nresources:\n- cms.yaml\n",
    );
}

/// `/proc/PID/status` fields of each child of `parent`.
fn children_status(parent: u32) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            continue;
        };
        let ppid = status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))
            .and_then(|v| v.trim().parse::<u32>().ok());
        if ppid == Some(parent) {
            out.push((pid, status));
        }
    }
    out
}

fn field<'a>(status: &'a str, name: &str) -> &'a str {
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .map(str::trim)
        .unwrap_or("")
}

/// Start `kustom build app` in `env` with the given output streams.
fn start_build(env: &Env, out: Stdio, err: Stdio) -> std::process::Child {
    env.command(Path::new(env!("CARGO_BIN_EXE_kustom")))
        .args(["build", "app"])
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("run kustom")
}

#[test]
fn a_forked_builtin_process_is_confined() {
    let env = Env::new();
    large_tree(&env, 20_000);
    let mut child = start_build(&env, Stdio::null(), Stdio::null());
    let core = child.id();
    // Builtin processes run a seccomp filter; the server (the one other
    // child) does not and never runs plugin code.
    let mut confined = Vec::new();
    let mut unconfined = std::collections::BTreeSet::new();
    while child.try_wait().expect("wait").is_none() {
        for (pid, status) in children_status(core) {
            if field(&status, "Seccomp:") == "2" {
                confined.push((
                    pid,
                    field(&status, "NoNewPrivs:").to_string(),
                    field(&status, "CapEff:").to_string(),
                    field(&status, "CapBnd:").to_string(),
                ));
            } else {
                unconfined.insert(pid);
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(child.wait().expect("wait").success());
    assert!(
        !confined.is_empty(),
        "no confined builtin process was seen during a build of 20,000 resources"
    );
    for (_, nnp, eff, bnd) in &confined {
        assert_eq!(nnp, "1", "no_new_privs");
        assert_eq!(eff, "0000000000000000", "effective capabilities");
        assert_eq!(bnd, "0000000000000000", "bounding set");
    }
    // The server runs unconfined, and so does a builtin process for the
    // moments between its clone and its confinement (before it reads its
    // input): seen unconfined, each must be the server or seen confined too.
    let confined_pids: std::collections::BTreeSet<u32> = confined.iter().map(|c| c.0).collect();
    let never_confined: Vec<&u32> = unconfined
        .iter()
        .filter(|p| !confined_pids.contains(p))
        .collect();
    assert!(
        never_confined.len() <= 1,
        "only the fork server runs unconfined, saw {never_confined:?}"
    );
}

#[test]
fn nothing_holds_the_output_open_after_the_build() {
    let env = Env::new();
    large_tree(&env, 50);
    let mut child = start_build(&env, Stdio::piped(), Stdio::piped());
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let core = child.id();
    // Reading to the end needs every holder of the pipes gone.
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut err = Vec::new();
        stdout.read_to_end(&mut out).expect("read stdout");
        stderr.read_to_end(&mut err).expect("read stderr");
        (out, err)
    });
    let status = child.wait().expect("wait");
    let ended = Instant::now();
    while !reader.is_finished() {
        assert!(
            ended.elapsed() < Duration::from_secs(5),
            "STDOUT or STDERR still open 5 s after kustom ended"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let (out, err) = reader.join().expect("reader");
    assert!(status.success(), "{}", String::from_utf8_lossy(&err));
    assert!(String::from_utf8_lossy(&out).contains("name: p-cm-49"));
    // The server ends with kustom (its parent-death signal).
    let what = format!("processes of the build {core} still running");
    support::wait_until_none(&what, Duration::from_millis(10), || {
        std::fs::read_dir("/proc")
            .expect("/proc")
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                    // Processes started by this build: kustom's children were
                    // re-parented, but their session leader or group is not
                    // kustom's; match on the executable instead.
                    s.contains("(kustom)")
                        && std::fs::read_link(format!("/proc/{pid}/cwd"))
                            .is_ok_and(|cwd| cwd.starts_with(env.root()))
                })
            })
            .collect()
    });
}

#[test]
fn many_builtin_calls_give_kubectls_bytes() {
    let env = Env::new();
    // A base and three overlays on it, each with transformers: one call each.
    env.write(
        "base/kustomization.yaml",
        "resources:\n- cm.yaml\ncommonAnnotations:\n  tier: base\n",
    );
    env.write(
        "base/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n",
    );
    let mut top = String::from("resources:\n");
    for o in ["dev", "stage", "prod"] {
        env.write(
            &format!("{o}/kustomization.yaml"),
            &format!(
                "resources:\n- ../base\nnameSuffix: -{o}\nconfigMapGenerator:\n- name: extra\n  literals:\n  - env={o}\n"
            ),
        );
        top.push_str(&format!("- {o}\n"));
    }
    top.push_str("namespace: all\n");
    env.write("kustomization.yaml", &top);
    let ours = support::ok(&env.kustom(&["build", "."]));
    let Some(theirs) = env.kubectl(&["."]) else {
        support::skip("kubectl is not installed: the output is not compared");
        return;
    };
    assert_eq!(ours, support::ok(&theirs));
}

#[test]
fn the_exec_path_stays_available_to_the_builtin() {
    // `kustom builtin-plugin` is what the core execs when the server is
    // not running (and for calls that run helm): it still answers.
    let out = Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(["builtin-plugin", "transform"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    // No configs: "not supported" (KEP exit status 127).
    assert_eq!(out.status.code(), Some(127));
}
