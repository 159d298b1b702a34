//! Runs the shared conformance corpus (`../shared/conformance`, when it is
//! there) against the kustom binary in both kustomize modes, and fails when
//! a case fails that is not in the mode's known-failure list — or when a
//! listed case now passes, so that the list only shrinks.
//!
//! The corpus holds kustomize v5.5.0's bytes: it runs as it is with
//! `KUSTOM_KUSTOMIZE_VERSION=5.5` (known failures:
//! `tests/conformance/known-failures.txt`). In the default mode (v5.8.1) the
//! cases where v5.8.1 differs take their expectation from
//! `tests/conformance/v5.8/<case>/`, recorded with kubectl 1.37.1 by
//! `tests/conformance/v5.8/record` (known failures:
//! `tests/conformance/known-failures-v5.8.txt`).

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        root.join("../shared/conformance"),
        root.join("shared/conformance"),
    ]
    .into_iter()
    .find(|p| p.join("run").is_file())
}

fn known_failures(file: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(char::is_whitespace) {
            Some((name, why)) => (
                name.to_string(),
                why.trim().trim_start_matches('#').trim().to_string(),
            ),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

/// The corpus with v5.8.1's expectations in place of v5.5.0's where they
/// differ: a scratch copy of the runner, the unchanged cases linked, the
/// differing ones copied with the recorded expectation.
fn corpus_v5_8(shared: &Path, scratch: &Path) -> PathBuf {
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/v5.8");
    let corpus = scratch.join("conformance");
    let cases = corpus.join("cases");
    std::fs::create_dir_all(&cases).expect("scratch corpus");
    std::fs::copy(shared.join("run"), corpus.join("run")).expect("copy the runner");
    for entry in std::fs::read_dir(shared.join("cases")).expect("corpus cases") {
        let entry = entry.expect("case entry");
        let name = entry.file_name();
        let own = recorded.join(&name);
        if !own.join("expect").is_file() {
            std::os::unix::fs::symlink(entry.path(), cases.join(&name)).expect("link a case");
            continue;
        }
        let dst = cases.join(&name);
        let status = Command::new("cp")
            .arg("-a")
            .arg(entry.path())
            .arg(&dst)
            .status()
            .expect("cp");
        assert!(status.success(), "copying {}", entry.path().display());
        let expect = std::fs::read_to_string(own.join("expect")).expect("expect");
        let case_yaml = std::fs::read_to_string(dst.join("case.yaml")).expect("case.yaml");
        let case_yaml: String = case_yaml
            .lines()
            .map(|l| {
                if l.starts_with("expect:") {
                    format!("expect: {}\n", expect.trim())
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        std::fs::write(dst.join("case.yaml"), case_yaml).expect("write case.yaml");
        for file in ["expected.yaml", "expected-error.txt"] {
            let _ = std::fs::remove_file(dst.join(file));
            if own.join(file).is_file() {
                std::fs::copy(own.join(file), dst.join(file)).expect("copy expectation");
            }
        }
    }
    corpus
}

/// Run the corpus at `corpus` in the mode `version` (None: the default)
/// and hold its verdicts to the known failures listed in `known_file`.
fn run_corpus(corpus: &Path, version: Option<&str>, known_file: &str) {
    let bin = env!("CARGO_BIN_EXE_kustom");
    let out_json = tempfile::NamedTempFile::new().expect("temp file");
    let mut runner = Command::new("python3");
    runner
        .arg(corpus.join("run"))
        .args(["--bin", bin, "--show", "0", "--json"])
        .arg(out_json.path());
    match version {
        Some(v) => runner.env(kustom_api::kustomize_version::ENV, v),
        None => runner.env_remove(kustom_api::kustomize_version::ENV),
    };
    let status = runner.status().expect("run python3 conformance runner");
    assert!(status.success(), "conformance runner failed to run");
    let verdicts: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_json.path()).expect("read verdicts"))
            .expect("verdict JSON");
    let known = known_failures(known_file);
    let mut unexpected = Vec::new();
    let mut now_passing = Vec::new();
    let mut failing = BTreeSet::new();
    for (name, v) in verdicts.as_object().expect("object of cases") {
        let exact = v["verdict"] == "exact";
        if !exact {
            failing.insert(name.clone());
            if !known.contains_key(name) {
                unexpected.push(format!("{name}: {} {}", v["verdict"], v["why"]));
            }
        } else if known.contains_key(name) {
            now_passing.push(name.clone());
        }
    }
    let total = verdicts.as_object().map_or(0, |m| m.len());
    eprintln!(
        "conformance (kustomize {}): {} of {total} exact; {} known failures listed",
        version.unwrap_or("default"),
        total - failing.len(),
        known.len()
    );
    assert!(
        unexpected.is_empty(),
        "cases failing that are not in tests/conformance/{known_file}:\n{}",
        unexpected.join("\n")
    );
    assert!(
        now_passing.is_empty(),
        "cases now passing: remove them from tests/conformance/{known_file}:\n{}",
        now_passing.join("\n")
    );
}

#[test]
fn conformance_corpus_v5_5() {
    let Some(corpus) = corpus() else {
        support::skip("conformance corpus (../shared/conformance) not found beside the repository: corpus not run");
        return;
    };
    run_corpus(&corpus, Some("5.5"), "known-failures.txt");
}

#[test]
fn conformance_corpus_v5_8_default() {
    let Some(shared) = corpus() else {
        support::skip("conformance corpus (../shared/conformance) not found beside the repository: corpus not run");
        return;
    };
    let scratch = tempfile::tempdir().expect("scratch dir");
    let corpus = corpus_v5_8(&shared, scratch.path());
    run_corpus(&corpus, None, "known-failures-v5.8.txt");
}
