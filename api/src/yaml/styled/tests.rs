//! Round trips checked against go-yaml v3 as kyaml runs it.

use super::*;

/// Read the first document and write it back.
fn round_trip(text: &str) -> String {
    let doc = parse_document(text)
        .unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
        .unwrap_or_else(|| panic!("{text:?}: no document"));
    to_text(&doc).unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
}

#[test]
fn block_collections_are_reindented() {
    assert_eq!(
        round_trip("a:\n    b: 1\n    c:\n        - x\n"),
        "a:\n  b: 1\n  c:\n  - x\n"
    );
}
