//! Conformance cases that need plugins, which the corpus runner leaves out
//! (`expect: unknown`: `kubectl kustomize` cannot run KRM exec functions,
//! and the machines have no stock helm): the KRM exec function cases and the
//! local-chart helm cases, each built with kustom and compared with the
//! output kustomize's own test asserted (`krusty-expected.yaml`).
//!
//! The corpus is `../shared/conformance` (or `$KUSTOM_CONFORMANCE_DIR`);
//! without it, or without a helm for the helm cases, the tests say so and
//! pass without checking.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("KUSTOM_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            root.join("../shared/conformance"),
            root.join("shared/conformance"),
        ])
        .find(|p| p.join("cases").is_dir())
}

fn helm() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("KUSTOM_TEST_HELM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let prefix = std::env::var_os("KUSTOM_HELM_PREFIX")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kustom/helm")));
    prefix.map(|p| p.join("bin/helm")).filter(|p| p.is_file())
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A JSON list on the `key:` line of case.yaml.
fn case_list(meta: &str, key: &str) -> Vec<String> {
    meta.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}:")))
        .map(|rest| {
            let rest = rest.split('#').next().unwrap_or("").trim();
            serde_json::from_str::<Vec<String>>(rest).unwrap_or_default()
        })
        .unwrap_or_default()
}

fn case_build(meta: &str) -> String {
    meta.lines()
        .find_map(|l| l.strip_prefix("build:"))
        .map(|rest| {
            rest.split('#')
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches('"')
                .to_string()
        })
        .unwrap_or_else(|| ".".into())
}

/// Build one case; None when it matches, else what differs.
fn run_case(corpus: &Path, name: &str, extra: &[String]) -> Option<String> {
    let src = corpus.join("cases").join(name);
    let meta = std::fs::read_to_string(src.join("case.yaml")).expect("case.yaml");
    let tmp = tempfile::tempdir().expect("temp");
    let work = tmp.path().join("case");
    copy_tree(&src, &work);
    for f in case_list(&meta, "executable_files") {
        let p = work.join("input").join(f);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join(".config")).expect("home");
    let out = Command::new(env!("CARGO_BIN_EXE_kustom"))
        .arg("build")
        .args(case_list(&meta, "flags"))
        .args(extra)
        .arg(Path::new("input").join(case_build(&meta)))
        .current_dir(&work)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove("KUSTOMIZE_PLUGIN_HOME")
        .output()
        .expect("run kustom");
    let want =
        std::fs::read_to_string(src.join("krusty-expected.yaml")).expect("krusty-expected.yaml");
    let got = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && got == want {
        None
    } else {
        Some(format!(
            "{name}: status {:?}\n--- stderr\n{}\n--- got\n{got}\n--- want\n{want}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn check(cases: &[&str], extra: &[String]) {
    let Some(corpus) = corpus() else {
        support::skip("conformance corpus not found (../shared/conformance or $KUSTOM_CONFORMANCE_DIR): plugin corpus not run");
        return;
    };
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| run_case(&corpus, c, extra))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn krm_exec_function_cases() {
    check(
        &[
            "krusty__TestFnExecGeneratorInBase",
            "krusty__TestFnExecGeneratorInBaseWithOverlay",
            "krusty__TestFnExecGeneratorInOverlay",
            "krusty__TestFnExecTransformerInBase",
            "krusty__TestFnExecTransformerInBaseWithOverlay",
            "krusty__TestFnExecTransformerInOverlay",
            // buildMetadata origin / transformer annotations on what they made.
            "krusty__TestAnnoOriginCustomExecGenerator",
            "krusty__TestAnnoOriginCustomExecGeneratorWithOverlay",
            "krusty__TestAnnoOriginCustomExecTransformerWithOverlay",
            "krusty__TestAnnoOriginCustomInlineExecGenerator",
            "krusty__TestAnnoOriginCustomInlineExecGeneratorWithOverlay",
            "krusty__TestAnnoOriginCustomInlineTransformer",
            "krusty__TestAnnoOriginGeneratorInTransformersField",
            "krusty__TestAnnoOriginGeneratorInTransformersFieldWithOverlay",
        ],
        &[],
    );
}

/// The local-chart helm cases whose expectation kustomize v5.5.0 meets
/// (the namespace-propagation cases assert a later kustomize's behaviour).
#[test]
fn helm_local_chart_cases() {
    let Some(helm) = helm() else {
        support::skip("no helm: run .ci/install-helm.sh (or set KUSTOM_TEST_HELM)");
        return;
    };
    check(
        &[
            "krusty__TestHelmChartInflationGeneratorApiVersions",
            "krusty__TestHelmChartInflationGeneratorMultipleValuesFiles",
            "krusty__TestHelmChartInflationGeneratorNameTemplate",
            "krusty__TestHelmChartInflationGeneratorSkipTests",
            "krusty__TestHelmChartSameNamespace",
        ],
        &[
            vec!["--helm-command".to_string(), helm.display().to_string()],
            support::helm_reads(&helm),
        ]
        .concat(),
    );
}
