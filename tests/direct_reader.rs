//! The direct YAML reader (`kustom_api::yaml` writing a resource's JSON text
//! without a value) against the value reader, on every YAML file of the
//! repository and of the shared conformance corpus (when it is beside the
//! repository): the same resources, byte for byte, heads included, or the
//! same error; and most documents read directly.

mod support;

use kustom_api::doc::Doc;
use kustom_api::yaml::{self, ResourceDocument};
use std::path::{Path, PathBuf};

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !matches!(
                path.file_name().and_then(|n| n.to_str()),
                Some("target" | ".git")
            ) {
                yaml_files(&path, out);
            }
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// Documents read directly, and all documents, in the files.
fn compare(files: &[PathBuf]) -> (usize, usize) {
    let (mut direct, mut all) = (0, 0);
    for file in files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let mut values = Vec::new();
        let by_value = yaml::for_each_document_with_empty_nulls(&text, |v, _| {
            values.push(Doc::from_value(&v));
            Ok(())
        })
        .map_err(|e| e.message);
        let mut docs = Vec::new();
        let by_direct = yaml::for_each_resource_document(&text, |d| {
            docs.push(match d {
                ResourceDocument::Text(o) => {
                    direct += 1;
                    Doc::from_object_text(o)
                }
                ResourceDocument::Value(v, _) => Doc::from_value(&v),
            });
            Ok(())
        })
        .map_err(|e| e.message);
        assert_eq!(by_direct, by_value, "{}", file.display());
        assert_eq!(docs, values, "{}", file.display());
        all += values.len();
    }
    (direct, all)
}

#[test]
fn the_direct_reader_reads_what_the_value_reader_reads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    yaml_files(root, &mut files);
    let (direct, all) = compare(&files);
    assert!(all > 100, "{all} documents in the repository");
    assert!(direct * 10 > all * 8, "{direct} of {all} read directly");
    let corpus = root.join("../shared/conformance");
    if !corpus.is_dir() {
        support::skip("conformance corpus (../shared/conformance) not found beside the repository: its YAML files not compared");
        return;
    }
    let mut files = Vec::new();
    yaml_files(&corpus, &mut files);
    let (direct, all) = compare(&files);
    assert!(all > 1000, "{all} documents in the corpus");
    assert!(direct * 10 > all * 8, "{direct} of {all} read directly");
}
