//! Every command's `--help` has an example, and the completion scripts are
//! valid for their shells (checked with `bash -n` when bash is installed).

mod support;

use clap::CommandFactory;
use std::path::Path;
use std::process::Command;

fn walk(cmd: &clap::Command, path: &mut Vec<String>, missing: &mut Vec<String>, count: &mut usize) {
    if cmd.is_hide_set() || cmd.get_name() == "help" {
        return;
    }
    *count += 1;
    let after = cmd
        .get_after_help()
        .map(|h| h.to_string())
        .unwrap_or_default();
    if !after.contains("Example") {
        missing.push(path.join(" "));
    }
    for sub in cmd.get_subcommands() {
        path.push(sub.get_name().to_string());
        walk(sub, path, missing, count);
        path.pop();
    }
}

#[test]
fn every_command_help_has_an_example() {
    let cmd = kustom::commands::Cli::command();
    let (mut missing, mut count) = (Vec::new(), 0);
    walk(
        &cmd,
        &mut vec!["kustom".to_string()],
        &mut missing,
        &mut count,
    );
    assert!(count > 40, "only {count} commands walked");
    assert!(missing.is_empty(), "no example in --help of: {missing:?}");
}

#[test]
fn help_prints_the_example() {
    let out = Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(["edit", "add", "label", "--help"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Example:\n  kustom edit add label"), "{text}");
}

#[test]
fn completion_scripts() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = Command::new(env!("CARGO_BIN_EXE_kustom"))
            .args(["completion", shell])
            .output()
            .expect("run");
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).expect("utf-8");
        assert!(script.contains("kustom"), "{shell}");
        assert!(
            script.contains("nameprefix"),
            "{shell}: edit subcommands completed"
        );
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("kustom.bash");
    let out = Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(["completion", "bash"])
        .output()
        .expect("run");
    std::fs::write(&path, out.stdout).expect("write");
    match Command::new("bash").arg("-n").arg(&path).output() {
        Ok(check) => assert!(
            check.status.success(),
            "bash -n: {}",
            String::from_utf8_lossy(&check.stderr)
        ),
        Err(_) => support::skip("bash not installed: completion script syntax not checked"),
    }
}

/// A reader that has gone (`kustom … | head`) ends kustom as SIGPIPE ends a
/// Unix tool: killed by the signal, with nothing on STDERR. kustom gets a
/// pipe whose read end is already closed, so every write meets it.
#[test]
fn closed_stdout_ends_quietly() {
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let env = support::Env::new();
    env.write("kustomization.yaml", "resources:\n- cm.yaml\n");
    env.write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n",
    );
    let root = env.root().to_str().unwrap().to_string();
    for args in [
        vec!["build", root.as_str()],
        vec!["completion", "fish"],
        vec!["version"],
        vec!["edit", "listbuiltin"],
    ] {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills the two descriptors it is given.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: both descriptors were just created and are owned here.
        let (read_end, write_end) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        drop(read_end);
        let out = env
            .command(Path::new(env!("CARGO_BIN_EXE_kustom")))
            .args(&args)
            .stdout(Stdio::from(write_end))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.signal(),
            Some(13),
            "{args:?}: {:?} {stderr}",
            out.status
        );
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Error"),
            "{args:?}: {stderr}"
        );
    }
}
