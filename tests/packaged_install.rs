//! The crates as crates.io would hold them: `cargo package --workspace`
//! packs every workspace crate, the `kustom` package is unpacked, and
//! `cargo install --path` of that unpacked directory installs it into a
//! scratch root, with the other packed crates standing in for their
//! crates.io releases (`[patch.crates-io]`). The installed `kustom` then
//! builds the README's example, from the package's own copy of it, to the
//! same bytes as the tree's executable.
//!
//! A full release build of a fresh target directory (several minutes on
//! two cores), so it is ignored by default: `.ci/run` runs it with
//! `cargo test --release --test packaged_install -- --ignored`. It works
//! offline when the dependencies are in cargo's registry cache (a build of
//! this tree put them there) and tries the network otherwise.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim().to_string()
}

/// `cargo` as the tests were built with, with `args`, in `dir`.
fn cargo(dir: &Path, args: &[&str], target: &Path) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("run cargo")
}

/// Unpack `name-version.crate` from `packages` into `into`.
fn unpack(packages: &Path, name: &str, into: &Path) -> PathBuf {
    let version = env!("CARGO_PKG_VERSION");
    let file = packages.join(format!("{name}-{version}.crate"));
    assert!(file.is_file(), "cargo package made no {}", file.display());
    let st = Command::new("tar")
        .arg("-xzf")
        .arg(&file)
        .arg("-C")
        .arg(into)
        .status()
        .expect("run tar");
    assert!(st.success(), "tar -xzf {}", file.display());
    into.join(format!("{name}-{version}"))
}

#[test]
#[ignore = "a full release build: .ci/run runs it with --ignored"]
fn the_packaged_crate_installs_and_builds_the_readme_example() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Outside the repository: under it, the unpacked package would belong
    // to this workspace.
    let scratch_dir = tempfile::Builder::new()
        .prefix("kustom-packaged-")
        .tempdir()
        .expect("scratch dir");
    let scratch = scratch_dir.path().to_path_buf();
    // A target directory of its own (the one running this test is locked),
    // kept for the next run's dependencies.
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("packaged-install");
    let _ = std::fs::remove_dir_all(target.join("package"));

    let out = cargo(
        top,
        &["package", "--workspace", "--no-verify", "--allow-dirty"],
        &target,
    );
    assert!(
        out.status.success(),
        "cargo package --workspace: {}",
        text(&out.stderr)
    );
    let packages = target.join("package");
    let unpacked = scratch.join("unpacked");
    std::fs::create_dir_all(&unpacked).expect("unpack dir");
    let kustom = unpack(&packages, "kustom", &unpacked);
    let mut patches = Vec::new();
    for dep in ["kustom-api", "kustom-builtin"] {
        let dir = unpack(&packages, dep, &unpacked);
        patches.push("--config".to_string());
        patches.push(format!(
            "patch.crates-io.{dep}.path={:?}",
            dir.display().to_string()
        ));
    }
    // Nothing of the repository's comes along: not its README, not its
    // tests, not its build files outside the package.
    assert!(
        kustom.join("LICENSE").is_file(),
        "the package has no LICENSE"
    );
    assert!(
        kustom.join("README.md").is_file(),
        "the package has no README"
    );

    let root = scratch.join("root");
    let install = |offline: bool| {
        let mut args: Vec<String> = vec!["install".into()];
        if offline {
            args.push("--offline".into());
        }
        args.extend(patches.iter().cloned());
        args.extend(["--path".into(), kustom.display().to_string()]);
        args.extend(["--root".into(), root.display().to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // Run from the scratch directory, as a user's `cargo install` would
        // (no configuration of this repository's applies).
        cargo(&scratch, &args, &target)
    };
    let mut out = install(true);
    if !out.status.success() {
        let offline_err = text(&out.stderr);
        out = install(false);
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "note: cargo install --offline failed (dependencies not in cargo's cache?); installed with the network"
        );
        assert!(
            out.status.success(),
            "cargo install --path {} failed offline:\n{offline_err}\nand online:\n{}",
            kustom.display(),
            text(&out.stderr)
        );
    }
    let installed = root.join("bin/kustom");
    assert!(installed.is_file(), "no {}", installed.display());

    // The README's example, from the package's copy of the tree.
    let example = "examples/components/overlays/community";
    let run = |exe: &Path, tree: &Path| {
        let home = tempfile::tempdir().expect("temp dir");
        let out = Command::new(exe)
            .arg("build")
            .arg(tree.join(example))
            .env("XDG_CONFIG_HOME", home.path())
            .output()
            .expect("run kustom");
        assert!(
            out.status.success(),
            "{} build {example}: {}",
            exe.display(),
            text(&out.stderr)
        );
        out.stdout
    };
    let ours = run(&installed, &kustom);
    let tree = run(Path::new(env!("CARGO_BIN_EXE_kustom")), top);
    assert!(!ours.is_empty(), "the installed kustom printed nothing");
    assert!(
        ours == tree,
        "the installed kustom's output differs:\n{}\n--- the tree's:\n{}",
        String::from_utf8_lossy(&ours),
        String::from_utf8_lossy(&tree)
    );
    let version = Command::new(&installed)
        .arg("version")
        .output()
        .expect("kustom version");
    assert!(version.status.success(), "{}", text(&version.stderr));
}
