//! Round trips whose output was checked against kubectl 1.37.1 (kyaml over
//! go-yaml v3): what kustomize v5.8.1 writes back when it re-encodes the
//! text (the replacement trims the final line break, `to_text` keeps it).

use super::*;

/// Read the first document and write it back.
fn round_trip(text: &str) -> String {
    let doc = parse_document(text)
        .unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
        .unwrap_or_else(|| panic!("{text:?}: no document"));
    to_text(&doc).unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
}

fn same(pairs: &[(&str, &str)]) {
    for (text, want) in pairs {
        assert_eq!(round_trip(text), format!("{want}\n"), "{text:?}");
    }
}

#[test]
fn indentation_becomes_two_spaces_with_sequences_flush() {
    same(&[
        (
            "list:\n    - a\n    -   b: 1\n        c: 2\n",
            "list:\n- a\n- b: 1\n  c: 2",
        ),
        (
            "a:\n    b: 1\n    c:\n        - x\n",
            "a:\n  b: 1\n  c:\n  - x",
        ),
        ("- - nested\n  - x\n-   - y\n", "- - nested\n  - x\n- - y"),
    ]);
}

#[test]
fn comments_are_kept_where_go_yaml_attaches_them() {
    same(&[
        (
            "# document\n\n# head\nkey: value # line\n# foot\n",
            "# document\n\n# head\nkey: value # line\n# foot",
        ),
        ("key: # on key\n  sub: v\n", "key: # on key\n  sub: v"),
        (
            "a:\n  b: v\n  # foot of b\n# foot of a\nc: v\n",
            "a:\n  b: v\n  # foot of b\n# foot of a\nc: v",
        ),
        // Blank lines before a foot comment become one.
        ("k: v\n\n\n# far foot\n", "k: v\n\n# far foot"),
        // The comment after a lone `-` heads the item's mapping.
        (
            "- # stem\n  k: v\n- - nested\n",
            "- # stem\n  k: v\n- - nested",
        ),
        ("a: [x, # one\n  y]\n", "a: [x, # one\n  y]"),
    ]);
}

#[test]
fn styles_are_kept_and_spacing_normalised() {
    same(&[
        ("flow: {a: 1,   b: [x,y]}\n", "flow: {a: 1, b: [x, y]}"),
        (
            "s: 'single'\nd: \"double\\tescape\"\n",
            "s: 'single'\nd: \"double\\tescape\"",
        ),
        (
            "lit: |\n  one\n  two\nfold: >-\n  folded\n  text\n",
            "lit: |\n  one\n  two\nfold: >-\n  folded text",
        ),
        ("m: {}\ns: []\nk: v\n", "m: {}\ns: []\nk: v"),
        ("? complex key\n: value\n", "complex key: value"),
    ]);
}

#[test]
fn tags_anchors_and_merge_keys() {
    same(&[
        (
            "a: &anchor value\nb: *anchor\nc: !!str 12\nd: !custom x\n",
            "a: &anchor value\nb: *anchor\nc: !!str 12\nd: !custom x",
        ),
        // A merge key's tag is written out: go-yaml's resolver reads `<<`
        // as a string.
        (
            "base: &b\n  k: v\nc:\n  <<: *b\n",
            "base: &b\n  k: v\nc:\n  !!merge <<: *b",
        ),
    ]);
}

#[test]
fn only_the_first_document_without_markers() {
    same(&[
        ("---\nkey: value\n...\n", "key: value"),
        ("first: v\n---\nsecond: w\n", "first: v"),
    ]);
}

#[test]
fn a_changed_value_is_written_by_its_tag_and_style() {
    let mut doc = parse_document("i: 1\ns: x\nq: 'x'\n").unwrap().unwrap();
    let root = &mut doc.content[0];
    for (i, v) in [(1, "many"), (3, "42"), (5, "a: b")] {
        root.content[i].value = v.to_string();
    }
    // An integer keeps its tag; a string that would read as a number is
    // quoted; a quoted one stays quoted.
    assert_eq!(
        to_text(&doc).unwrap(),
        "i: !!int many\ns: \"42\"\nq: 'a: b'\n"
    );
    // A node made without a tag is written as its text reads.
    let root = &mut doc.content[0];
    root.content.push(Node::scalar("n"));
    root.content.push(Node::scalar("42"));
    assert!(to_text(&doc).unwrap().ends_with("\nn: 42\n"));
}

#[test]
fn nothing_to_read_and_errors_in_go_yaml_words() {
    assert_eq!(parse_document("").unwrap(), None);
    assert_eq!(parse_document("# only a comment\n").unwrap(), None);
    let invalid = |text: &str| match parse_document(text) {
        Err(ReadError::Invalid(e)) => e,
        other => panic!("{text:?}: {other:?}"),
    };
    assert_eq!(
        invalid("a: b: c"),
        "yaml: mapping values are not allowed in this context"
    );
    assert_eq!(
        invalid("a: [1, 2\n"),
        "yaml: line 1: did not find expected ',' or ']'"
    );
    assert_eq!(
        invalid("a: \"x\n"),
        "yaml: line 2: found unexpected end of stream"
    );
    assert_eq!(
        invalid("a: *nope\n"),
        "yaml: unknown anchor 'nope' referenced"
    );
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let text = format!(
        "{}{}",
        "[".repeat(MAX_DEPTH + 10),
        "]".repeat(MAX_DEPTH + 10)
    );
    assert_eq!(parse_document(&text), Err(ReadError::TooDeep));
}
