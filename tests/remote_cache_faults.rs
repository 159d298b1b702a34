//! The remote cache against what happens to it in production: builds
//! killed (KILL, TERM) at every step of a cold git fetch, and damage to
//! each kind of cached file, a file a base reaches with `../` included.
//! After any of it the next build is exact (it fetches again) or names
//! the damage; it is never built from a damaged file, nothing is left
//! running and nothing is left in the cache's `tmp/`.

mod remote_world;
mod support;

use remote_world::{sh, write, World};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::{DEPLOY, REPLICAS_PATCH as PATCH, SVC as SERVICE};

const CM: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: info\n";

/// A repository whose `overlay` reaches `../base` and `../extra`;
/// an http file; the app kustomization using both.
fn world() -> (World, PathBuf) {
    let w = World::new();
    w.repo("base", |d| {
        write(
            d,
            &[
                (
                    "base/kustomization.yaml",
                    "resources:\n- deployment.yaml\n- service.yaml\n",
                ),
                ("base/deployment.yaml", DEPLOY),
                ("base/service.yaml", SERVICE),
                ("overlay/replicas.yaml", PATCH),
                ("overlay/app.properties", "color=blue\n"),
                (
                    "overlay/kustomization.yaml",
                    "resources:\n- ../base\n- ../extra\npatches:\n- path: replicas.yaml\nconfigMapGenerator:\n- name: props\n  files:\n  - app.properties\nnamePrefix: o-\n",
                ),
                ("extra/kustomization.yaml", "resources:\n- cm.yaml\n"),
                ("extra/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"),
                ("unrelated/big.txt", "not read\n"),
            ],
        );
        sh(d, &["git", "add", "-A"]);
        sh(d, &["git", "commit", "-qm", "one"]);
        sh(d, &["git", "tag", "-a", "v1", "-m", "v1"]);
    });
    w.http
        .files
        .lock()
        .unwrap()
        .insert("cm.yaml".into(), CM.as_bytes().to_vec());
    let dir = w.tmp.path().join("app");
    write(
        &dir,
        &[(
            "kustomization.yaml",
            &format!(
                "resources:\n- github.com/org/base/overlay?ref=v1\n- {}\n",
                w.http.url("/files/cm.yaml")
            ),
        )],
    );
    (w, dir)
}

/// The build of the app.
const BUILD: &[&str] = &["build", "."];

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let ty = e.file_type().unwrap();
            if ty.is_dir() {
                stack.push(p);
            } else if ty.is_file() {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn copy_tree(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let out = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .output()
        .unwrap();
    support::ok(&out);
}

fn scratch_left(w: &World) -> Vec<PathBuf> {
    std::fs::read_dir(w.cache.join("kustom/tmp"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Processes whose command line holds `needle`, zombies aside.
fn running_with(needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if !zombie && cmd.contains(needle) {
            out.push(cmd);
        }
    }
    out
}

/// Every cached file damaged in turn (cut to half its length): the next
/// build, online, is exact; offline, it is exact or names the damage.
#[test]
fn a_damaged_cached_file_is_never_used() {
    let (w, dir) = world();
    let clean = w.kustom(BUILD, &dir);
    let expected = support::ok(&clean);
    assert!(expected.contains("o-props-"), "{expected}");
    let pristine = w.tmp.path().join("pristine-cache");
    copy_tree(&w.cache, &pristine);
    let files: Vec<PathBuf> = files_under(&pristine)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != ".lock"))
        .collect();
    // The checkout's files reached with `../`, its digest record, the
    // refs, the http body and its record.
    for needle in [
        "overlay/app.properties",
        "base/deployment.yaml",
        "extra/cm.yaml",
        ".sums",
        "refs.json",
        ".body",
    ] {
        assert!(
            files.iter().any(|f| f.to_string_lossy().contains(needle)),
            "no cached {needle} among {files:?}"
        );
    }
    for file in &files {
        let rel = file.strip_prefix(&pristine).unwrap();
        for offline in [true, false] {
            copy_tree(&pristine, &w.cache);
            let target = w.cache.join(rel);
            let bytes = std::fs::read(&target).unwrap();
            std::fs::write(&target, &bytes[..bytes.len() / 2]).unwrap();
            let args: Vec<&str> = if offline {
                let mut a = vec!["build", "--offline"];
                a.extend_from_slice(&BUILD[1..]);
                a
            } else {
                BUILD.to_vec()
            };
            let out = w.kustom(&args, &dir);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            if out.status.success() {
                assert_eq!(
                    stdout,
                    expected,
                    "{} damaged (offline: {offline}): built from it\n{stderr}",
                    rel.display()
                );
            } else {
                assert!(
                    offline,
                    "{} damaged: the online build failed instead of fetching again: {stderr}",
                    rel.display()
                );
                assert!(stdout.is_empty(), "partial output: {stdout}");
                assert!(
                    stderr.contains("damaged") || stderr.contains("never fetched"),
                    "{} damaged: the offline error does not say so: {stderr}",
                    rel.display()
                );
            }
        }
    }
}

/// A build killed with KILL while git fetches (at each git step, and at
/// moments across a whole cold fetch): no process is left, and the next
/// build is exact and removes what the killed one left in `tmp/`.
#[test]
fn a_fetch_killed_at_any_moment_leaves_nothing_a_later_build_trusts() {
    let (w, dir) = world();
    let expected = support::ok(&w.kustom(BUILD, &dir));
    let mark = w.tmp.path().join("hung");
    let steps = ["ls-remote", "fetch", "sparse-checkout", "checkout"];
    let mut seen_steps = 0;
    for step in steps {
        for signal in [libc::SIGKILL, libc::SIGTERM] {
            let _ = std::fs::remove_dir_all(&w.cache);
            let _ = std::fs::remove_file(&mark);
            let mut child = w.kustom_started(
                BUILD,
                &dir,
                &[
                    ("KUSTOM_TEST_GIT_HANG", step),
                    ("KUSTOM_TEST_GIT_HANG_MARK", mark.to_str().unwrap()),
                ],
            );
            let deadline = Instant::now() + Duration::from_secs(30);
            let mut reached = true;
            while !mark.exists() {
                if child.try_wait().unwrap().is_some() || Instant::now() > deadline {
                    reached = false;
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            if !reached {
                // This git does not run that step (a whole clone, say).
                let _ = child.kill();
                let _ = child.wait();
                continue;
            }
            seen_steps += 1;
            let sent = Instant::now();
            // SAFETY: signalling our own child.
            unsafe { libc::kill(child.id() as i32, signal) };
            let status = child.wait().unwrap();
            if signal == libc::SIGTERM {
                use std::os::unix::process::ExitStatusExt;
                assert_eq!(status.code(), Some(143), "TERM at {step}: {status:?}");
                assert!(sent.elapsed() < Duration::from_secs(1), "TERM at {step}");
                assert!(
                    scratch_left(&w).is_empty(),
                    "TERM at {step} left {:?}",
                    scratch_left(&w)
                );
                assert!(status.signal().is_none());
            }
            support::wait_until_none(
                &format!("signal {signal} at {step}: git left running"),
                Duration::from_millis(50),
                || running_with("sleep 3600"),
            );
            let next = w.kustom(BUILD, &dir);
            assert_eq!(
                support::ok(&next),
                expected,
                "after signal {signal} at {step}"
            );
            assert!(
                scratch_left(&w).is_empty(),
                "after signal {signal} at {step} the next build left {:?}",
                scratch_left(&w)
            );
        }
    }
    assert!(seen_steps >= 4, "only {seen_steps} git steps were reached");
    // KILL at moments across a cold fetch, without a hang.
    for delay_ms in [0u64, 5, 15, 30, 60, 100, 160, 250] {
        let _ = std::fs::remove_dir_all(&w.cache);
        let mut child = w.kustom_started(BUILD, &dir, &[]);
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let next = w.kustom(BUILD, &dir);
        assert_eq!(support::ok(&next), expected, "after KILL at {delay_ms} ms");
        assert!(
            scratch_left(&w).is_empty(),
            "after KILL at {delay_ms} ms: {:?}",
            scratch_left(&w)
        );
    }
}

/// With the network down and the http file cached, the error says that
/// `--offline` would build (it said so for git bases only).
#[test]
fn network_down_with_a_cached_http_file_suggests_offline() {
    let (w, dir) = world();
    write(
        &dir,
        &[(
            "kustomization.yaml",
            &format!("resources:\n- {}\n", w.http.url("/files/cm.yaml")),
        )],
    );
    let online = w.kustom(&["build", "."], &dir);
    support::ok(&online);
    // The server stops answering: every request now fails to connect.
    let port = w.http.port;
    write(
        &dir,
        &[(
            "kustomization.yaml",
            &format!("resources:\n- http://127.0.0.1:{port}/files/cm.yaml\n"),
        )],
    );
    drop(w.http.files.lock().unwrap().remove("cm.yaml"));
    let cache_copy = w.tmp.path().join("cache-copy");
    copy_tree(&w.cache, &cache_copy);
    // A closed port instead of the server: the same URL key is needed,
    // so route through a proxy that refuses (HTTP_PROXY to a closed port).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(["build", "."])
        .current_dir(&dir)
        .envs(w.env())
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("NO_PROXY", "")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--offline") && err.contains("would build"),
        "{err}"
    );
    let offline = w.kustom(&["build", "--offline", "."], &dir);
    assert_eq!(support::ok(&offline), support::ok(&online));
}
