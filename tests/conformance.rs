//! Runs the shared conformance corpus (`../shared/conformance`, when it is
//! there) against the kustom binary, and fails when a case fails that is not
//! in `tests/conformance/known-failures.txt` — or when a listed case now
//! passes, so that the list only shrinks.

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

fn known_failures() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/known-failures.txt");
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

#[test]
fn conformance_corpus() {
    let Some(corpus) = corpus() else {
        support::skip("conformance corpus (../shared/conformance) not found beside the repository: corpus not run");
        return;
    };
    let bin = env!("CARGO_BIN_EXE_kustom");
    let out_json = tempfile::NamedTempFile::new().expect("temp file");
    let status = Command::new("python3")
        .arg(corpus.join("run"))
        .args(["--bin", bin, "--show", "0", "--json"])
        .arg(out_json.path())
        .status()
        .expect("run python3 conformance runner");
    assert!(status.success(), "conformance runner failed to run");
    let verdicts: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_json.path()).expect("read verdicts"))
            .expect("verdict JSON");
    let known = known_failures();
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
        "conformance: {} of {total} exact; {} known failures listed",
        total - failing.len(),
        known.len()
    );
    assert!(
        unexpected.is_empty(),
        "cases failing that are not in tests/conformance/known-failures.txt:\n{}",
        unexpected.join("\n")
    );
    assert!(
        now_passing.is_empty(),
        "cases now passing: remove them from tests/conformance/known-failures.txt:\n{}",
        now_passing.join("\n")
    );
}
