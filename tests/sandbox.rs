//! Plugins run confined, contained, pinned and audited (docs/security.md):
//! KEP, legacy and KRM plugins probing what they may touch, runaway
//! processes, `kustom lock` and `--audit-log`.

mod support;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use support::{fails, ok, Env};

/// `kustom` in the scratch tree, with a secret in its environment.
/// Whether this kernel has Landlock: without it kustom refuses third-party
/// plugins (by design), so these tests have nothing to check; they say so.
fn landlock_available() -> bool {
    // landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
    // answers the ABI version, or fails where Landlock is missing.
    // SAFETY: with a null attribute pointer and the version flag the call
    // reads and writes no memory.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32,
        )
    };
    if abi < 1 {
        support::skip("this kernel has no Landlock: the sandbox tests need it (kustom refuses third-party plugins there)");
        return false;
    }
    true
}

fn kustom(env: &Env, args: &[&str]) -> Output {
    env.command(Path::new(env!("CARGO_BIN_EXE_kustom")))
        .env("SECRET_TOKEN", "hunter2")
        .args(args)
        .output()
        .expect("run kustom")
}

/// How a probe plugin is called.
#[derive(Clone, Copy, Debug)]
enum Protocol {
    Kep,
    Legacy,
    Krm,
}

/// A shell plugin that tries everything a hostile plugin would and writes
/// one ConfigMap whose data says, per attempt, `OK` or `DENIED`. `own`
/// reads its own configuration (STDIN, or the legacy config file).
fn probe_script(protocol: Protocol, env: &Env, port: u16) -> String {
    let kustom_dir = Path::new(env!("CARGO_BIN_EXE_kustom"))
        .parent()
        .expect("dir")
        .display()
        .to_string();
    let header = match protocol {
        Protocol::Kep => "[ \"$1\" = generate ] || exit 127\nown() { cat; }\n",
        Protocol::Legacy => "own() { cat \"$CONFIG_FILE\"; }\nCONFIG_FILE=\"$1\"\n",
        Protocol::Krm => "own() { cat; }\n",
    };
    format!(
        r#"#!/bin/sh
{header}
try() {{ if eval "$2" >/dev/null 2>&1; then echo "  $1: OK"; else echo "  $1: DENIED"; fi; }}
own > "$TMPDIR/own.txt" 2>/dev/null
echo "apiVersion: v1"
echo "kind: ConfigMap"
echo "metadata:"
echo "  name: probe"
echo "data:"
try own_config "grep -q probe-config '$TMPDIR/own.txt'"
try tree_file "grep -q tree-data data.txt"
try home_key "cat '{home}/.ssh/id_ed25519'"
try beside_tree "cat '{root}/beside.txt'"
try etc_passwd "cat /etc/passwd"
try kustom_dir "ls '{kustom_dir}'"
try env_secret "test -n \"\$SECRET_TOKEN\""
try write_tree "echo x > ./written-by-plugin"
try write_outside "echo x > '{root}/written-by-plugin'"
try write_tmp "echo x > \"\$TMPDIR/scratch\""
try connect "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=2)'"
"#,
        home = env.home().display(),
        root = env.root().display(),
    )
}

/// Install the probe for `protocol` and a tree that runs it; the build's args.
fn install_probe(env: &Env, protocol: Protocol, port: u16) -> Vec<String> {
    env.write("home/.ssh/id_ed25519", "PRIVATE KEY\n");
    env.write("beside.txt", "beside\n");
    env.write("tree/data.txt", "tree-data\n");
    let script = probe_script(protocol, env, port);
    let (config, mut args) = match protocol {
        Protocol::Kep => {
            env.exe("xdg/kustomize/plugins/probe.example.com", &script);
            (
                "apiVersion: probe.example.com/v1\nkind: Probe\nmetadata:\n  name: probe-config\n"
                    .to_string(),
                vec!["--enable-alpha-plugins".to_string()],
            )
        }
        Protocol::Legacy => {
            env.exe(
                "xdg/kustomize/plugin/probe.example.com/v1/probe/Probe",
                &script,
            );
            (
                "apiVersion: probe.example.com/v1\nkind: Probe\nmetadata:\n  name: probe-config\n"
                    .to_string(),
                vec!["--enable-alpha-plugins".to_string()],
            )
        }
        Protocol::Krm => {
            env.exe("tree/probe.sh", &script);
            (
                "apiVersion: probe.example.com/v1\nkind: Probe\nmetadata:\n  name: probe-config\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./probe.sh\n".to_string(),
                vec!["--enable-alpha-plugins".to_string(), "--enable-exec".to_string()],
            )
        }
    };
    env.write("tree/probe.yaml", &config);
    env.write("tree/kustomization.yaml", "generators:\n- probe.yaml\n");
    args.push("tree".into());
    args
}

/// The probe's verdicts, from the build output.
fn verdicts(out: &str) -> Vec<(String, String)> {
    out.lines()
        .filter_map(|l| l.trim().split_once(": "))
        .filter(|(_, v)| *v == "OK" || *v == "DENIED")
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn probe(protocol: Protocol, extra: &[&str]) -> (Vec<(String, String)>, bool) {
    let env = Env::new();
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let mut args = vec!["build".to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(install_probe(&env, protocol, port));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ok(&kustom(&env, &argv));
    let connected = listener.accept().is_ok();
    let wrote = env.root().join("written-by-plugin").exists()
        || env.root().join("tree/written-by-plugin").exists();
    let mut v = verdicts(&out);
    assert_eq!(v.len(), 11, "{protocol:?}: probe output:\n{out}");
    assert_eq!(
        connected,
        v.iter().any(|(k, r)| k == "connect" && r == "OK"),
        "{protocol:?}: the listener's view and the plugin's disagree"
    );
    v.sort();
    (v, wrote)
}

fn expect(v: &[(String, String)], allowed: &[&str], protocol: Protocol) {
    for (k, r) in v {
        let want = if allowed.contains(&k.as_str()) {
            "OK"
        } else {
            "DENIED"
        };
        assert_eq!(r, want, "{protocol:?}: {k} was {r}, want {want}: {v:?}");
    }
}

#[test]
fn confined_plugins_of_every_protocol_touch_only_their_tree() {
    if !landlock_available() {
        return;
    }
    for protocol in [Protocol::Kep, Protocol::Legacy, Protocol::Krm] {
        let (v, wrote) = probe(protocol, &["--plugin-env=minimal"]);
        expect(&v, &["own_config", "tree_file", "write_tmp"], protocol);
        assert!(!wrote, "{protocol:?}: a file was written outside TMPDIR");
    }
}

#[test]
fn the_environment_is_inherited_by_default_and_grants_widen_the_sandbox() {
    if !landlock_available() {
        return;
    }
    let (v, _) = probe(Protocol::Kep, &[]);
    expect(
        &v,
        &["own_config", "tree_file", "write_tmp", "env_secret"],
        Protocol::Kep,
    );
    let env = Env::new();
    let (v, _) = probe(
        Protocol::Kep,
        &[
            "--plugin-env=minimal",
            "--plugin-env-pass",
            "SECRET_TOKEN",
            "--plugin-allow-read",
            &env.root().display().to_string(),
            "--plugin-allow-read",
            "/etc/passwd",
            "--plugin-allow-net",
        ],
    );
    // The grant names another scratch directory: the probe's own stay denied.
    expect(
        &v,
        &[
            "own_config",
            "tree_file",
            "write_tmp",
            "env_secret",
            "etc_passwd",
            "connect",
        ],
        Protocol::Kep,
    );
    let (v, wrote) = probe(Protocol::Kep, &["--plugin-sandbox=off"]);
    assert!(v.iter().all(|(k, r)| r == "OK" || k == "connect"), "{v:?}");
    assert!(wrote);
}

#[test]
fn a_denial_is_explained_with_the_grants_that_widen_it() {
    if !landlock_available() {
        return;
    }
    let env = Env::new();
    env.write("secret.txt", "s\n");
    env.exe(
        "xdg/kustomize/plugins/reader.example.com",
        &format!(
            "#!/bin/sh\n[ \"$1\" = generate ] || exit 127\ncat '{}'\n",
            env.root().join("secret.txt").display()
        ),
    );
    env.write(
        "tree/gen.yaml",
        "apiVersion: reader.example.com/v1\nkind: R\nmetadata:\n  name: r\n",
    );
    env.write("tree/kustomization.yaml", "generators:\n- gen.yaml\n");
    let err = fails(&kustom(&env, &["build", "--enable-alpha-plugins", "tree"]));
    for part in [
        "Permission denied",
        "ran confined",
        "could read",
        "no network",
        "--plugin-allow-read PATH",
        "plugin-policy.yaml",
        "\"KEP reader.example.com\"",
    ] {
        assert!(err.contains(part), "missing {part:?} in:\n{err}");
    }
    // The per-plugin grant in the user's policy file lets it read the file.
    env.write(
        "xdg/kustomize/plugin-policy.yaml",
        &format!(
            "plugins:\n- plugin: KEP reader.example.com\n  allowRead: ['{}']\n",
            env.root().join("secret.txt").display()
        ),
    );
    let err = fails(&kustom(&env, &["build", "--enable-alpha-plugins", "tree"]));
    assert!(
        !err.contains("Permission denied") && err.contains("\"s\""),
        "{err}"
    );
}

#[test]
fn lookup_names_cannot_leave_the_plugin_directories() {
    if !landlock_available() {
        return;
    }
    let env = Env::new();
    env.exe(
        "x/payload/v/evil/Evil",
        "#!/bin/sh\necho pwned > /tmp/kustom-lookup-pwned\n",
    );
    for (api_version, kind) in [
        ("../../../../x/payload/v", "Evil"),
        ("a..b/v1", "Evil"),
        ("example.com/../v1", "Evil"),
        ("example.com/v1", "../Evil"),
    ] {
        env.write(
            "tree/gen.yaml",
            &format!("apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: e\n"),
        );
        env.write("tree/kustomization.yaml", "generators:\n- gen.yaml\n");
        let err = fails(&kustom(&env, &["build", "--enable-alpha-plugins", "tree"]));
        assert!(err.contains("not a plain name"), "{api_version}: {err}");
    }
}

// ------------------------------------------------------------ containment

fn runaway(env: &Env, body: &str, pidfile: &Path) -> (String, Duration) {
    env.exe(
        "xdg/kustomize/plugins/runaway.example.com",
        &format!(
            "#!/bin/sh\n[ \"$1\" = generate ] || exit 127\nexport PIDFILE='{}'\n{body}",
            pidfile.display()
        ),
    );
    env.write(
        "tree/gen.yaml",
        "apiVersion: runaway.example.com/v1\nkind: R\nmetadata:\n  name: r\n",
    );
    env.write("tree/kustomization.yaml", "generators:\n- gen.yaml\n");
    std::fs::write(pidfile, "").expect("pid file");
    let grant = pidfile.display().to_string();
    let start = Instant::now();
    let err = fails(&kustom(
        env,
        &[
            "build",
            "--enable-alpha-plugins",
            "--plugin-timeout",
            "3",
            "--plugin-allow-write",
            &grant,
            "tree",
        ],
    ));
    (err, start.elapsed())
}

/// Every pid in the file is gone (or a zombie about to be reaped by init).
fn assert_gone(pidfile: &Path) {
    let pids = std::fs::read_to_string(pidfile).expect("pids");
    let pids: Vec<&str> = pids.split_whitespace().collect();
    assert!(!pids.is_empty(), "the plugin wrote no pid");
    let deadline = Instant::now() + Duration::from_secs(5);
    for pid in pids {
        let status = Path::new("/proc").join(pid).join("status");
        let gone = || {
            std::fs::read_to_string(&status)
                .map(|s| s.contains("State:\tZ"))
                .unwrap_or(true)
        };
        while !gone() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(gone(), "process {pid} outlived the build");
    }
}

#[test]
fn a_setsid_child_holding_stdout_is_killed_and_reported() {
    if !landlock_available() {
        return;
    }
    let env = Env::new();
    let pidfile = env.root().join("pids");
    // The child keeps STDOUT open in its own session; the plugin exits.
    let (err, took) = runaway(
        &env,
        "setsid sh -c 'echo $$ >> \"$PIDFILE\"; exec sleep 300' &\nsleep 0.2\necho 'apiVersion: v1'\n",
        &pidfile,
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(err.contains("left 1 process(es) running"), "{err}");
    assert_gone(&pidfile);
}

#[test]
fn a_daemonised_grandchild_does_not_outlive_the_build() {
    if !landlock_available() {
        return;
    }
    let env = Env::new();
    let pidfile = env.root().join("pids");
    // Double fork and setsid: the grandchild is re-parented at once, its
    // output goes nowhere, and the plugin waits for the timeout.
    let (err, took) = runaway(
        &env,
        "( setsid sh -c 'echo $$ >> \"$PIDFILE\"; exec sleep 300' >/dev/null 2>&1 </dev/null & )\nsleep 60\n",
        &pidfile,
    );
    assert!(took < Duration::from_secs(15), "took {took:?}");
    assert!(err.contains("timed out after 3s"), "{err}");
    assert!(err.contains("descendant process(es) were killed"), "{err}");
    assert_gone(&pidfile);
}

#[test]
fn a_two_gigabyte_allocation_fails_at_the_memory_limit() {
    if !landlock_available() {
        return;
    }
    let env = Env::new();
    let pidfile = env.root().join("pids");
    let (err, took) = runaway(
        &env,
        "echo $$ >> \"$PIDFILE\"\nexec python3 -c 'bytearray(2 * 1024 ** 3)'\n",
        &pidfile,
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(err.contains("MemoryError"), "{err}");
    assert!(err.contains("memory limit 1024 MiB"), "{err}");
    assert_gone(&pidfile);
}

// ------------------------------------------------------------ lock

#[test]
fn a_plugin_edited_after_kustom_lock_is_refused() {
    if !landlock_available() {
        return;
    }
    let env = Env::new();
    let plugin = env.exe(
        "xdg/kustomize/plugins/pinned.example.com",
        "#!/bin/sh\n[ \"$1\" = generate ] || exit 127\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: pinned\\n'\n",
    );
    env.write(
        "tree/gen.yaml",
        "apiVersion: pinned.example.com/v1\nkind: P\nmetadata:\n  name: p\n",
    );
    env.write("tree/kustomization.yaml", "generators:\n- gen.yaml\n");
    // --locked without a lock fails before building.
    let err = fails(&kustom(
        &env,
        &["build", "--enable-alpha-plugins", "--locked", "tree"],
    ));
    assert!(
        err.contains("--locked") && err.contains("kustom lock"),
        "{err}"
    );

    let lock = kustom(&env, &["lock", "--enable-alpha-plugins", "tree"]);
    assert!(
        lock.status.success(),
        "{}",
        String::from_utf8_lossy(&lock.stderr)
    );
    assert!(lock.stdout.is_empty());
    let text = std::fs::read_to_string(env.root().join("tree/kustom.lock")).expect("lock");
    let digest = sha256_hex(&std::fs::read(&plugin).expect("plugin"));
    assert!(
        text.contains("plugin: KEP pinned.example.com") && text.contains(&digest),
        "{text}"
    );
    ok(&kustom(&env, &["build", "--enable-alpha-plugins", "tree"]));
    ok(&kustom(
        &env,
        &["build", "--enable-alpha-plugins", "--locked", "tree"],
    ));

    std::fs::write(
        &plugin,
        "#!/bin/sh\n[ \"$1\" = generate ] || exit 127\ncat ~/.ssh/id_rsa\n",
    )
    .expect("edit");
    let edited = sha256_hex(&std::fs::read(&plugin).expect("plugin"));
    let err = fails(&kustom(&env, &["build", "--enable-alpha-plugins", "tree"]));
    for part in [
        "refusing to run KEP pinned.example.com",
        &digest,
        &edited,
        "kustom lock",
    ] {
        assert!(err.contains(part), "missing {part:?} in:\n{err}");
    }

    // A plugin the lock does not list is refused too.
    env.exe(
        "xdg/kustomize/plugins/other.example.com",
        "#!/bin/sh\nexit 127\n",
    );
    env.write(
        "tree/gen.yaml",
        "apiVersion: other.example.com/v1\nkind: P\nmetadata:\n  name: p\n",
    );
    let err = fails(&kustom(&env, &["build", "--enable-alpha-plugins", "tree"]));
    assert!(
        err.contains("refusing to run KEP other.example.com")
            && err.contains("pins no such plugin"),
        "{err}"
    );
}

fn sha256_hex(bytes: &[u8]) -> String {
    // The same digest `sha256sum` prints.
    let out = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().expect("stdin").write_all(bytes)?;
            let mut s = String::new();
            c.stdout.take().expect("stdout").read_to_string(&mut s)?;
            c.wait()?;
            Ok(s)
        })
        .expect("sha256sum");
    out.split_whitespace().next().expect("digest").to_string()
}

// ------------------------------------------------------------ audit

#[test]
fn the_audit_log_names_the_call_that_changed_each_field() {
    if !landlock_available() {
        return;
    }
    let env = Env::new();
    let overlay =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/components/overlays/community");
    let log = env.root().join("audit.jsonl");
    let out = ok(&kustom(
        &env,
        &[
            "build",
            "--audit-log",
            &log.display().to_string(),
            &overlay.display().to_string(),
        ],
    ));
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert!(!lines.is_empty());
    // Plugin calls (the other entries record resource files read).
    for l in lines.iter().filter(|l| l["op"] != "read") {
        for key in [
            "protocol",
            "executable",
            "sha256",
            "configs",
            "kustomization",
            "policy",
            "durationMs",
            "exitStatus",
            "resources",
        ] {
            assert!(l.get(key).is_some(), "no {key} in {l}");
        }
        assert_eq!(l["policy"]["confined"], true);
        // The builtin, forked rather than exec'd, starts no program: it
        // reads its tree, not the system paths programs need.
        assert_eq!(
            l["policy"]["system"],
            l["protocol"] != "builtin (shipped)",
            "{l}"
        );
        assert_eq!(l["sha256"].as_str().map(str::len), Some(64));
    }
    // Which call changed a field of a resource: the kinds of its configs.
    let changed_by = |resource: &str, field: &str| -> Vec<String> {
        lines
            .iter()
            .filter(|l| {
                l["resources"].as_array().into_iter().flatten().any(|r| {
                    r["resource"]
                        .as_str()
                        .is_some_and(|n| n.starts_with(resource))
                        && r["fields"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .any(|f| f == field)
                })
            })
            .map(|l| {
                l["configs"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c["kind"].as_str())
                    .collect::<Vec<_>>()
                    .join("+")
            })
            .collect()
    };
    assert!(out.contains("secretName: recaptcha-"), "{out}");
    // The hash suffix's reference: the overlay's name-reference config
    // (one entry per config of the shipped builtin).
    assert_eq!(
        changed_by(
            "Deployment.v1.apps/forum",
            "/spec/template/spec/volumes/2/secret/secretName"
        ),
        vec!["NameReferenceTransformer"]
    );
    // The volume itself: the recaptcha component's JSON patch.
    assert_eq!(
        changed_by("Deployment.v1.apps/forum", "/spec/template/spec/volumes/2"),
        vec!["PatchJson6902Transformer"]
    );
    // The renamed ConfigMap: the same hashing call, with where it came from.
    assert!(lines.iter().any(|l| l["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .any(
            |r| r["change"] == "renamed" && r["from"] == "ConfigMap.v1.[noGrp]/app-config.[noNs]"
        )));
    assert!(
        lines.iter().any(|l| l["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["change"] == "added")),
        "no call added a resource"
    );
}

// ------------------------------------------------------------ strict exec, errors

/// An executable the kernel refuses (empty, or a script without `#!`) is
/// an error naming it, never a `/bin/sh` run (an empty script would be a
/// transformer deleting every resource).
#[test]
fn an_executable_the_kernel_refuses_is_an_error() {
    if !landlock_available() {
        return;
    }
    for body in ["", "echo 'apiVersion: v1'\n"] {
        let env = Env::new();
        let plugin = env.kep("empty.example.com", body);
        env.write(
            "app/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
        );
        env.write(
            "app/kustomization.yaml",
            "resources:\n- cm.yaml\ntransformers:\n- |-\n  apiVersion: empty.example.com/v1\n  kind: E\n  metadata:\n    name: e\n",
        );
        let err = fails(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
        assert!(err.contains(&plugin.display().to_string()), "{err}");
        assert!(err.contains("no /bin/sh fallback"), "{err}");
    }
}

/// A transformer whose output carries one input's id twice is refused,
/// naming both resources.
#[test]
fn one_id_carried_twice_is_refused() {
    if !landlock_available() {
        return;
    }
    let env = Env::new();
    env.kep(
        "dup.example.com",
        "#!/bin/sh\n[ \"$1\" = transform ] || exit 127\nin=$(cat | sed '1,/^---$/d')\nprintf '%s\\n---\\n' \"$in\"\nprintf '%s\\n' \"$in\" | sed 's/name: c$/name: copy/'\n",
    );
    env.write(
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
    );
    env.write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\ntransformers:\n- |-\n  apiVersion: dup.example.com/v1\n  kind: D\n  metadata:\n    name: d\n",
    );
    let err = fails(&env.kustom(&["build", "--enable-alpha-plugins", "app"]));
    assert!(err.contains("config.k8s.io/id"), "{err}");
    assert!(
        err.contains("ConfigMap") && err.contains("c") && err.contains("copy"),
        "{err}"
    );
}

/// A HOME that is not a directory only means there is no policy file.
#[test]
fn a_home_that_is_a_file_means_no_policy_file() {
    let env = Env::new();
    let home = env.write("not-a-dir", "x");
    env.write(
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
    );
    env.write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\nnamePrefix: p-\n",
    );
    let out = env
        .command(Path::new(env!("CARGO_BIN_EXE_kustom")))
        .env("HOME", &home)
        .env_remove("XDG_CONFIG_HOME")
        .args(["build", "app"])
        .output()
        .expect("kustom");
    assert!(ok(&out).contains("name: p-c"));
}

/// A mistake in a builtin's configuration reads as a kustomization error:
/// the file, the field, no sandbox hint.
#[test]
fn a_builtin_configuration_error_has_no_sandbox_hint() {
    let env = Env::new();
    env.write(
        "app/kustomization.yaml",
        "configMapGenerator:\n- name: settings\n  files:\n  - missing.properties\n",
    );
    let err = fails(&env.kustom(&["build", "app"]));
    assert!(err.contains("app/kustomization.yaml"), "{err}");
    assert!(err.contains("missing.properties"), "{err}");
    assert!(!err.contains("ran confined"), "{err}");
    assert!(!err.contains("plugin-allow"), "{err}");
}

/// A ksops-style secret generator: decrypts an age-encrypted file of the
/// tree with the user's key under `~/.config/sops/age/`. Denied at first
/// (the key is under the home directory), it works after one
/// `kustom policy allow` command.
#[test]
fn an_age_secret_generator_decrypts_after_one_policy_allow() {
    if !landlock_available() {
        return;
    }
    let has = |p: &str| {
        std::process::Command::new(p)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    if !has("age") || !has("age-keygen") {
        support::skip(
            "`age` is not installed (apt-get install age): age secret generator not tested",
        );
        return;
    }
    let env = Env::new();
    let key = env.home().join(".config/sops/age/keys.txt");
    std::fs::create_dir_all(key.parent().expect("dir")).expect("mkdir");
    let gen = std::process::Command::new("age-keygen")
        .arg("-o")
        .arg(&key)
        .output()
        .expect("age-keygen");
    assert!(gen.status.success());
    let text = std::fs::read_to_string(&key).expect("key");
    let recipient = text
        .lines()
        .find_map(|l| l.strip_prefix("# public key: "))
        .expect("public key")
        .to_string();
    let mut enc = std::process::Command::new("age")
        .args(["-r", &recipient, "-o"])
        .arg(env.root().join("tree/password.age"))
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("age");
    std::fs::create_dir_all(env.root().join("tree")).expect("tree");
    enc.stdin
        .take()
        .expect("stdin")
        .write_all(b"s3cr3t-value")
        .expect("write");
    assert!(enc.wait().expect("age").success());
    env.kep(
        "age.example.com",
        "#!/bin/sh\n# generate: a Secret from each *.age file of the tree, decrypted with the user's age key.\n[ \"$1\" = generate ] || exit 127\nkey=\"${SOPS_AGE_KEY_FILE:-$HOME/.config/sops/age/keys.txt}\"\nprintf 'apiVersion: v1\\nkind: Secret\\nmetadata:\\n  name: decrypted\\ndata:\\n'\nfor f in *.age; do\n  plain=$(age -d -i \"$key\" \"$f\") || exit 1\n  v=$(printf %s \"$plain\" | base64 | tr -d '\\n')\n  printf '  %s: %s\\n' \"${f%.age}\" \"$v\"\ndone\n",
    );
    env.write(
        "tree/secret-gen.yaml",
        "apiVersion: age.example.com/v1\nkind: AgeSecret\nmetadata:\n  name: s\n",
    );
    env.write(
        "tree/kustomization.yaml",
        "generators:\n- secret-gen.yaml\n",
    );
    let err = fails(&env.kustom(&["build", "--enable-alpha-plugins", "tree"]));
    assert!(err.to_lowercase().contains("permission denied"), "{err}");
    assert!(err.contains("kustom policy allow"), "{err}");
    let allow = env.kustom(&[
        "policy",
        "allow",
        "KEP age.example.com",
        "--read",
        &key.display().to_string(),
    ]);
    assert!(
        allow.status.success(),
        "{}",
        String::from_utf8_lossy(&allow.stderr)
    );
    let out = ok(&env.kustom(&["build", "--enable-alpha-plugins", "tree"]));
    // base64("s3cr3t-value")
    assert!(out.contains("password: czNjcjN0LXZhbHVl"), "{out}");
}
