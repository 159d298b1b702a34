//! Every expected output in the conformance corpus is canonical kustomize
//! output, so reading each document and writing it back must reproduce it
//! byte for byte. Skipped (with a note) when the corpus is not present.

use std::fs;
use std::path::{Path, PathBuf};

use kustom_api::yaml::{parse_stream, to_yaml};

fn corpus() -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The corpus sits next to the checkout (`/work/main` → `/work/shared`),
    // inside it, or next to a worktree's parent (`/work/wt/x` → `/work/shared`).
    [
        manifest.join("../../shared/conformance"),
        manifest.join("../shared/conformance"),
        manifest.join("../../../shared/conformance"),
        PathBuf::from("/work/shared/conformance"),
    ]
    .into_iter()
    .find(|p| p.join("cases").is_dir())
}

/// Split kustomize output at its `---` lines. Literal blocks are always
/// indented, so a bare `---` line is always a separator.
fn split_docs(text: &str) -> Vec<String> {
    let mut docs = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if line == "---\n" {
            docs.push(String::new());
        } else if let Some(last) = docs.last_mut() {
            last.push_str(line);
        }
    }
    docs.retain(|d| !d.is_empty());
    docs
}

#[test]
fn conformance_outputs_round_trip_exactly() {
    let Some(root) = corpus() else {
        eprintln!("note: conformance corpus not found; yaml round-trip check skipped");
        return;
    };
    let mut cases: Vec<PathBuf> = fs::read_dir(root.join("cases"))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    cases.sort();
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in &cases {
        for name in ["expected.yaml", "expected-default-order.yaml"] {
            let path = case.join(name);
            let Ok(text) = fs::read_to_string(&path) else {
                continue;
            };
            for (i, doc) in split_docs(&text).iter().enumerate() {
                checked += 1;
                let values = match parse_stream(doc) {
                    Ok(v) => v,
                    Err(e) => {
                        failures.push(format!("{} doc {i}: read error {e}", path.display()));
                        continue;
                    }
                };
                if values.len() != 1 {
                    failures.push(format!(
                        "{} doc {i}: {} values read",
                        path.display(),
                        values.len()
                    ));
                    continue;
                }
                let written = to_yaml(&values[0]);
                if &written != doc {
                    let line = written
                        .lines()
                        .zip(doc.lines())
                        .position(|(a, b)| a != b)
                        .unwrap_or(0);
                    failures.push(format!(
                        "{} doc {i}: differs at line {}:\n  want {:?}\n  got  {:?}",
                        path.display(),
                        line + 1,
                        doc.lines().nth(line).unwrap_or(""),
                        written.lines().nth(line).unwrap_or("")
                    ));
                }
            }
        }
    }
    eprintln!("yaml round trip: {checked} documents checked");
    assert!(checked > 0, "no documents found under {}", root.display());
    assert!(
        failures.is_empty(),
        "{} of {checked} documents do not round-trip:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
