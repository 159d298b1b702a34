//! The direct YAML reader (`kustom_api::yaml` writing a resource's JSON text
//! without a value) against the value reader, on every YAML file of the
//! repository and of the shared conformance corpus (when it is beside the
//! repository), and on texts made to reach each of its cases: the same
//! resources, byte for byte, heads included, or the same error; most
//! documents read directly, and what it must leave to the value reader
//! left.

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

/// Documents and how many were read directly, or the error.
type Read = Result<(Vec<Doc>, usize), String>;

/// The documents of `text` as the direct reader's caller gets them, and
/// how many were read directly; the value reader's documents.
fn both(text: &str) -> (Read, Result<Vec<Doc>, String>) {
    let mut direct = 0;
    let mut docs = Vec::new();
    let fast = yaml::for_each_resource_document(text, |d| {
        docs.push(match d {
            ResourceDocument::Text(o) => {
                direct += 1;
                Doc::from_object_text(o)
            }
            ResourceDocument::Value(v, _) => Doc::from_value(&v),
        });
        Ok(())
    })
    .map(|()| (docs, direct))
    .map_err(|e| e.message);
    let mut values = Vec::new();
    let slow = yaml::for_each_document_with_empty_nulls(text, |v, _| {
        values.push(Doc::from_value(&v));
        Ok(())
    })
    .map(|()| values)
    .map_err(|e| e.message);
    (fast, slow)
}

/// `text` is read directly, every document, to what the value reader
/// gives.
fn direct(text: &str) {
    let (fast, slow) = both(text);
    let (docs, n) = fast.unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(docs, slow.expect("the value reader reads it"), "{text}");
    assert_eq!(
        n,
        docs.len(),
        "not every document was read directly: {text}"
    );
}

/// `text` is left to the value reader, with the same outcome.
fn left(text: &str) {
    let (fast, slow) = both(text);
    match (fast, slow) {
        (Ok((docs, n)), Ok(values)) => {
            assert_eq!(docs, values, "{text}");
            assert_eq!(n, 0, "read directly: {text}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{text}"),
        (a, b) => panic!("{text}: {a:?} against {b:?}"),
    }
}

/// Documents read directly, and all documents, in the files: each file
/// read to the same documents, or the same error, both ways.
fn compare(files: &[PathBuf]) -> (usize, usize) {
    let (mut direct, mut all) = (0, 0);
    for file in files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let (fast, slow) = both(&text);
        match (fast, slow) {
            (Ok((docs, n)), Ok(values)) => {
                assert_eq!(docs, values, "{}", file.display());
                direct += n;
                all += values.len();
            }
            (fast, slow) => assert_eq!(fast.map(|_| ()), slow.map(|_| ()), "{}", file.display()),
        }
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

#[test]
fn keys_are_sorted_wherever_they_come_out_of_order() {
    direct("kind: A\napiVersion: v1\nmetadata:\n  name: x\n  labels: {b: '1', a: '2'}\n");
    direct("apiVersion: v1\nkind: A\nmetadata: {name: x}\nspec:\n  z: [{b: 1, a: 2}, {d: [], c: {}}]\n  a: {y: {q: 1, p: 2}, x: 3}\n");
    direct("apiVersion: v1\nkind: A\nmetadata: {name: x}\nspec: {ab: 1, a: 2, abc: 3, 'b': 4, \"B\": 5, é: 6}\n");
    direct("a: 1\n---\nb: 2\n--- # two\nkind: K\r\nmetadata:\r\n  name: y\r\n");
}

#[test]
fn scalars_are_typed_as_the_value_reader_types_them() {
    direct(concat!(
        "kind: A\nmetadata: {name: x}\nv:\n",
        "- 010\n- 0x1F\n- 0o17\n- 1_000\n- -5\n- +7\n- 1.5\n- 1e3\n- .5\n- -.inf_not\n",
        "- 18446744073709551615\n- 99999999999999999999999\n- 9223372036854775808\n",
        "- true\n- False\n- yes\n- ~\n- null\n- NULL\n- ''\n- \"\"\n-\n",
        "- 2001-12-14\n- 2001-12-14t21:59:43.10-05:00\n- 2001-12-14 21:59:43.10 -5\n",
        "- 'quoted: 1'\n- \"esc \\t \\u00e9 \\\" \\\\\"\n- a \"b\" \\c\n- héllo wörld ✓\n",
        "- |\n  line one\n  line\ttwo\n- >\n  folded\n  text\n\n  para\n- >-\n  back\n   more indented\n  back\n",
        "- [1, two, {three: 3}]\n- {}\n- []\n",
    ));
}

#[test]
fn annotation_values_are_their_texts() {
    direct(concat!(
        "kind: A\nmetadata:\n  name: x\n  annotations:\n",
        "    n: null\n    t: true\n    i: 0x1F\n    f: 1.50\n    e: ''\n    s: >\n      folded\n      text\n",
        "    z: 2001-12-14\n    m: {a: 1}\n  labels: {l: 1}\nspec: {annotations: {n: null}}\n",
    ));
}

#[test]
fn root_keys_keep_their_text() {
    direct("1: a\n0x1F: b\ntrue: c\n2001-12-14: d\n'q': e\nkind: A\nmetadata: {name: x}\n");
}

#[test]
fn what_the_value_reader_must_read_is_left_to_it() {
    let head = "kind: A\nmetadata: {name: x}\n";
    for body in [
        "a: &x {b: 1}\nc: *x\n",
        "a: &x 1\n",
        "base: &b {p: 1}\nd:\n  <<: *b\n  q: 2\n",
        "'<<': 1\n",
        "a: !!str 5\n",
        "a: !custom x\n",
        "a:\n",
        "spec:\n  empty:\n  b: 1\n",
        "? [a, b]\n: c\n",
        "spec: {1: a}\n",
        "spec: {null: a}\n",
        "spec: {true: a}\n",
        "'a\"b': 1\n",
        "\"a\\tb\": 1\n",
    ] {
        left(&format!("{head}{body}"));
    }
    left("- a\n- b\n");
    left("just a scalar\n");
    left("~\n");
    left("kind: ConfigMapList\nitems:\n- kind: ConfigMap\n  metadata: {name: a}\n");
    left("kind: A\nmetadata: {name: x}\na: 1\nb: 2\na: 3\n");
    left("kind: A\nmetadata: {name: x}\nspec: {b: 1, a: 2, b: 3}\n");
    left("kind: A\nmetadata: {name: x}\nspec: {a: .inf}\n");
    left("kind: A\nmetadata: {name: x}\nspec: {a: [1, 2}\n");
    left("kind: A\nmetadata: {name: x}\nspec: \"\u{1}\"\n");
}

#[test]
fn the_head_is_read_from_the_text() {
    let text = "metadata:\n  namespace: ns\n  name: x\n  annotations: {config.kubernetes.io/local-config: 'true'}\nkind: K\napiVersion: g/v1\n";
    direct(text);
    let mut docs = Vec::new();
    yaml::for_each_resource_document(text, |d| {
        if let ResourceDocument::Text(o) = d {
            docs.push(Doc::from_object_text(o));
        }
        Ok(())
    })
    .unwrap();
    let d = &docs[0];
    assert_eq!((d.api_version(), d.kind(), d.name()), ("g/v1", "K", "x"));
    assert_eq!(d.id().namespace, "ns");
    assert_eq!(
        d.annotation(kustom_api::protocol::LOCAL_CONFIG),
        Some("true")
    );
}
