//! The example trees build to the checked-in reference output (produced by
//! `kubectl kustomize`), and to what `kubectl kustomize` prints now when it
//! is installed.

mod support;

use std::path::Path;
use std::process::Command;

fn kustom_build(dir: &Path) -> String {
    let home = tempfile::tempdir().expect("temp dir");
    let out = Command::new(env!("CARGO_BIN_EXE_kustom"))
        .arg("build")
        .arg(dir)
        .env("XDG_CONFIG_HOME", home.path())
        .output()
        .expect("run kustom");
    assert!(
        out.status.success(),
        "kustom build {} failed: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn kubectl_kustomize(dir: &Path) -> Option<String> {
    let out = Command::new("kubectl")
        .arg("kustomize")
        .arg(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn components_overlays_match_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/components");
    for overlay in ["community", "enterprise", "dev"] {
        let dir = root.join("overlays").join(overlay);
        let got = kustom_build(&dir);
        let want = std::fs::read_to_string(root.join("expected").join(format!("{overlay}.yaml")))
            .expect("expected output");
        assert_eq!(
            got, want,
            "overlay {overlay} differs from expected/{overlay}.yaml"
        );
        match kubectl_kustomize(&dir) {
            Some(live) => assert_eq!(
                got, live,
                "overlay {overlay} differs from kubectl kustomize"
            ),
            None => support::skip(&format!(
                "kubectl not available: live comparison of {overlay} not made"
            )),
        }
    }
}
