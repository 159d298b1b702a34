//! YAML writer reproducing kustomize's canonical output.
//!
//! kustomize prints every resource with `sigs.k8s.io/yaml.JSONToYAML`: the
//! JSON text is read back by go-yaml v2 (JSON integers become ints, other
//! numbers floats) and marshalled by go-yaml v2's emitter with its defaults
//! (block style, indent 2, width 80, unicode allowed). The emitter is a
//! small state machine whose observable behaviour depends on a few pieces of
//! state (current column, indent, whether the last thing written was
//! whitespace or indentation); this writer keeps the same state while
//! walking the value recursively, so line breaks, folding and indentation
//! come out byte for byte the same.

mod key_order;
mod numbers;
mod scalars;
mod style;

use std::borrow::Cow;

use serde_json::{Number, Value};

use crate::json_view::{self, JsonView};
use crate::Error;

use key_order::sort_keys;
use numbers::write_number;
use style::{analyze, is_plain_word, requested_style, select_style, Analysis};

/// go-yaml's preferred line width: plain and quoted scalars fold at spaces
/// once a line is longer than this.
const WIDTH: usize = 80;
/// go-yaml's indentation step.
const INDENT: usize = 2;
/// Keys longer than this (in bytes) are written in the explicit `? key` form.
const MAX_SIMPLE_KEY: usize = 128;

/// One document in kustomize's canonical form, ending in a newline.
///
/// Text kustomize could not print (see [`try_to_yaml`]) is written as best
/// it can be; use [`try_to_yaml`] to get kustomize's error instead.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::with_capacity(1024);
    emit_document(&mut out, value);
    out
}

/// Append one document in kustomize's canonical form to `out`.
pub fn write_yaml(out: &mut String, value: &Value) {
    emit_document(out, value);
}

/// [`write_yaml`] for a JSON text read in place: the same output, without
/// building a `Value`.
pub fn write_yaml_view(out: &mut String, value: &JsonView<'_>) {
    emit_document_width(out, value, WIDTH);
}

/// Like [`to_yaml`], but fails where kustomize fails: its JSON-to-YAML
/// step re-reads the JSON text as YAML, which rejects strings holding
/// DEL, C1 control characters or U+FFFE/U+FFFF ("control characters are not
/// allowed"), and keys that contain U+0085 or whose JSON form is longer
/// than 1022 characters (a YAML simple key is limited to 1024).
pub fn try_to_yaml(value: &Value) -> Result<String, Error> {
    let mut out = String::with_capacity(1024);
    match emit_document(&mut out, value) {
        None => Ok(out),
        Some(problem) => Err(Error::new(problem)),
    }
}

/// Documents joined the way `kustomize build` prints them (`---` between).
pub fn to_yaml_stream(docs: &[Value]) -> String {
    let mut out = String::with_capacity(docs.len() * 1024);
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        emit_document(&mut out, d);
    }
    out
}

/// Like [`to_yaml_stream`], failing where kustomize fails (see
/// [`try_to_yaml`]).
pub fn try_to_yaml_stream(docs: &[Value]) -> Result<String, Error> {
    let mut out = String::with_capacity(docs.len() * 1024);
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        if let Some(problem) = emit_document(&mut out, d) {
            return Err(Error::new(problem).context(format!("document {}", i + 1)));
        }
    }
    Ok(out)
}

/// Write one document; returns the first thing kustomize would have
/// failed on, if any.
fn emit_document(out: &mut String, value: &Value) -> Option<&'static str> {
    emit_document_width(out, value, WIDTH)
}

/// One document as [`to_yaml`] writes it, but with no line folding: the
/// text kyaml (go-yaml v3, which keeps each scalar's style and never
/// folds) writes when it re-emits what [`to_yaml`] printed. This is how
/// kustomize's function runner writes resources into a `ResourceList`.
pub fn to_yaml_unfolded(value: &Value) -> String {
    let mut out = String::with_capacity(1024);
    emit_document_width(&mut out, value, usize::MAX / 2);
    out
}

fn emit_document_width<T: Tree>(out: &mut String, value: &T, width: usize) -> Option<&'static str> {
    let mut e = Emitter {
        out,
        column: 0,
        indent: None,
        whitespace: true,
        indention: true,
        problem: None,
        keys: Vec::new(),
        width,
    };
    e.node(value, Ctx::Root);
    // Document end: finish the last line.
    e.write_indent();
    e.problem
}

const CONTROL_CHARACTERS: &str = "yaml: control characters are not allowed";
const BAD_KEY: &str = "yaml: did not find expected ',' or '}'";

/// The longest key (in characters of its JSON form, quotes excluded) that
/// go-yaml v2 still reads as a simple key.
const MAX_JSON_KEY: usize = 1022;

/// What a string becomes after kustomize's JSON → YAML re-read. JSON
/// escapes every line break except U+0085 (NEL), which the YAML reader then
/// treats as a line break inside a double-quoted scalar and folds: a run of
/// spaces and NELs becomes one space, or n-1 newlines for n NELs.
fn reread<'s>(s: &'s str, problem: &mut Option<&'static str>, is_key: bool) -> Cow<'s, str> {
    // Everything of interest is outside ASCII, except DEL.
    if s.is_ascii() && !s.as_bytes().contains(&0x7F) {
        if is_key && s.len() > MAX_JSON_KEY / 6 && json_len(s) > MAX_JSON_KEY {
            problem.get_or_insert(BAD_KEY);
        }
        return Cow::Borrowed(s);
    }
    let mut nel = false;
    for c in s.chars() {
        match c {
            '\u{7F}'..='\u{84}' | '\u{86}'..='\u{9F}' | '\u{FFFE}' | '\u{FFFF}' => {
                problem.get_or_insert(CONTROL_CHARACTERS);
            }
            '\u{85}' => nel = true,
            _ => {}
        }
    }
    if is_key && (nel || json_len(s) > MAX_JSON_KEY) {
        problem.get_or_insert(BAD_KEY);
    }
    if !nel {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != ' ' && c != '\u{85}' {
            out.push(c);
            continue;
        }
        let mut spaces = usize::from(c == ' ');
        let mut breaks = usize::from(c == '\u{85}');
        while let Some(&n) = chars.peek() {
            match n {
                ' ' if breaks == 0 => spaces += 1,
                ' ' => {}
                '\u{85}' => breaks += 1,
                _ => break,
            }
            chars.next();
        }
        match breaks {
            0 => out.extend(std::iter::repeat_n(' ', spaces)),
            1 => out.push(' '),
            n => out.extend(std::iter::repeat_n('\n', n - 1)),
        }
    }
    Cow::Owned(out)
}

/// Characters in Go's `encoding/json` form of a string, quotes excluded.
fn json_len(s: &str) -> usize {
    s.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\x08' | '\x0c' => 2,
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => 6,
            c if c < ' ' => 6,
            _ => 1,
        })
        .sum()
}

/// Where a node sits; it decides sequence indentation and key handling.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Root,
    /// An item of a block sequence.
    Item,
    /// A mapping value, or a key written in the explicit `? key` form.
    Value,
    /// A key written in the implicit `key: value` form.
    SimpleKey,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// A JSON value the writer can walk: a `Value`, or a [`JsonView`].
trait Tree: Sized {
    /// What this node is.
    fn shape(&self) -> Shape<'_, Self>;
    /// An object's entries, appended to `out` in any order.
    fn entries<'a>(&'a self, out: &mut Vec<(&'a str, &'a Self)>);
}

/// One node as the writer sees it.
enum Shape<'a, T> {
    Null,
    Bool(bool),
    Number(NumberRef<'a>),
    String(&'a str),
    Array(&'a [T]),
    /// An object, empty or not (its entries come from [`Tree::entries`]).
    Object {
        empty: bool,
    },
}

/// A number, parsed or as written in JSON text.
enum NumberRef<'a> {
    Parsed(&'a Number),
    Text(&'a str),
}

impl Tree for Value {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            Value::Null => Shape::Null,
            Value::Bool(b) => Shape::Bool(*b),
            Value::Number(n) => Shape::Number(NumberRef::Parsed(n)),
            Value::String(s) => Shape::String(s),
            Value::Array(a) => Shape::Array(a),
            Value::Object(m) => Shape::Object {
                empty: m.is_empty(),
            },
        }
    }

    fn entries<'a>(&'a self, out: &mut Vec<(&'a str, &'a Self)>) {
        if let Value::Object(m) = self {
            out.extend(m.iter().map(|(k, v)| (k.as_str(), v)));
        }
    }
}

impl Tree for JsonView<'_> {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            JsonView::Null => Shape::Null,
            JsonView::Bool(b) => Shape::Bool(*b),
            JsonView::Number(n) => Shape::Number(NumberRef::Text(n)),
            JsonView::String(s) => Shape::String(s),
            JsonView::Array(a) => Shape::Array(a),
            JsonView::Object(entries) => Shape::Object {
                empty: entries.is_empty(),
            },
        }
    }

    fn entries<'a>(&'a self, out: &mut Vec<(&'a str, &'a Self)>) {
        if let JsonView::Object(entries) = self {
            out.extend(entries.iter().map(|(k, v)| (k.as_ref(), v)));
        }
    }
}

struct Emitter<'o, 'v, T> {
    out: &'o mut String,
    /// Characters (not bytes) written on the current line.
    column: usize,
    /// Indentation of the innermost open node; None before the root.
    indent: Option<usize>,
    /// The last thing written was whitespace (so an indicator needs no
    /// separating space).
    whitespace: bool,
    /// Only indentation (and `-`/`?`/`:` indicators) on this line so far.
    indention: bool,
    /// The first reason kustomize would have failed to print this document.
    problem: Option<&'static str>,
    /// Sorted entries of the open mappings, innermost last (one buffer for
    /// the whole document instead of one per mapping).
    keys: Vec<(&'v str, &'v T)>,
    /// Line width at which scalars fold ([`WIDTH`], or unlimited).
    width: usize,
}

impl<'v, T: Tree> Emitter<'_, 'v, T> {
    fn node(&mut self, v: &'v T, ctx: Ctx) {
        match v.shape() {
            Shape::Object { empty: true } => self.empty_flow("{}"),
            Shape::Object { empty: false } => self.mapping(v),
            Shape::Array([]) => self.empty_flow("[]"),
            Shape::Array(a) => self.sequence(a, ctx),
            Shape::String(s) if is_plain_word(s) => self.word(s),
            Shape::String(s) => {
                let s = reread(s, &mut self.problem, false);
                self.scalar(&s, requested_style(&s), ctx)
            }
            // Numbers, booleans and null are plain words without spaces:
            // nothing to analyse or fold.
            Shape::Number(NumberRef::Text(text)) if json_view::is_plain_integer(text) => {
                self.word(text)
            }
            Shape::Number(n) => {
                let parsed;
                let n = match n {
                    NumberRef::Parsed(n) => n,
                    NumberRef::Text(text) => {
                        parsed = json_view::number(text);
                        &parsed
                    }
                };
                self.start_word();
                let before = self.out.len();
                write_number(self.out, n);
                self.end_word(self.out.len() - before);
            }
            Shape::Bool(true) => self.word("true"),
            Shape::Bool(false) => self.word("false"),
            Shape::Null => self.word("null"),
        }
    }

    fn empty_flow(&mut self, text: &str) {
        self.indicator(&text[..1], true, true, false);
        self.indicator(&text[1..], false, false, false);
    }

    /// A plain scalar known to need no quoting and to hold no space.
    fn word(&mut self, text: &str) {
        self.start_word();
        self.out.push_str(text);
        self.end_word(text.len());
    }

    fn start_word(&mut self) {
        if !self.whitespace {
            self.put(' ');
        }
    }

    fn end_word(&mut self, ascii_len: usize) {
        self.column += ascii_len;
        self.whitespace = false;
        self.indention = false;
    }

    fn mapping(&mut self, m: &'v T) {
        let saved = self.indent;
        self.indent = Some(self.indent.map_or(0, |i| i + INDENT));
        let start = self.keys.len();
        m.entries(&mut self.keys);
        sort_keys(&mut self.keys[start..]);
        for i in start..self.keys.len() {
            let (k, v) = self.keys[i];
            if is_plain_word(k) && k.len() <= MAX_SIMPLE_KEY {
                self.write_indent();
                self.word(k);
                self.indicator(":", false, false, false);
                self.node(v, Ctx::Value);
                continue;
            }
            let k = reread(k, &mut self.problem, true);
            let k = k.as_ref();
            self.write_indent();
            let analysis = analyze(k);
            if !analysis.multiline && k.len() <= MAX_SIMPLE_KEY {
                self.scalar_analyzed(k, requested_style(k), Ctx::SimpleKey, &analysis);
                self.indicator(":", false, false, false);
            } else {
                self.indicator("?", true, false, true);
                self.scalar_analyzed(k, requested_style(k), Ctx::Value, &analysis);
                self.write_indent();
                self.indicator(":", true, false, true);
            }
            self.node(v, Ctx::Value);
        }
        self.keys.truncate(start);
        self.indent = saved;
    }

    fn sequence(&mut self, a: &'v [T], ctx: Ctx) {
        let saved = self.indent;
        // A sequence right after `key:` is not indented relative to the key.
        let indentless = ctx == Ctx::Value && !self.indention;
        self.indent = Some(match self.indent {
            None => 0,
            Some(i) if indentless => i,
            Some(i) => i + INDENT,
        });
        for item in a {
            self.write_indent();
            self.indicator("-", true, false, true);
            self.node(item, Ctx::Item);
        }
        self.indent = saved;
    }

    fn scalar(&mut self, text: &str, requested: Style, ctx: Ctx) {
        let analysis = analyze(text);
        self.scalar_analyzed(text, requested, ctx, &analysis);
    }

    fn scalar_analyzed(&mut self, text: &str, requested: Style, ctx: Ctx, a: &Analysis) {
        let simple_key = ctx == Ctx::SimpleKey;
        let style = select_style(text, requested, simple_key, a);
        let saved = self.indent;
        // Scalars are indented one step in from their parent (two at the root).
        self.indent = Some(self.indent.map_or(INDENT, |i| i + INDENT));
        match style {
            Style::Plain => self.plain(text, !simple_key, a),
            Style::Single => self.single_quoted(text, !simple_key, a),
            Style::Double => self.double_quoted(text, !simple_key, a),
            Style::Literal => self.literal(text, a),
        }
        self.indent = saved;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn y(v: Value) -> String {
        to_yaml(&v)
    }

    #[test]
    fn block_layout() {
        let v = json!({
            "b": [1, "x", {"k": "v", "a": [true, null]}, [], {}],
            "a": {"n": {"m": "deep"}, "e": [], "f": {}},
        });
        assert_eq!(
            y(v),
            "a:\n  e: []\n  f: {}\n  \"n\":\n    m: deep\nb:\n- 1\n- x\n- a:\n  - true\n  - null\n  k: v\n- []\n- {}\n"
        );
        assert_eq!(y(json!([[1, 2], [3]])), "- - 1\n  - 2\n- - 3\n");
        assert_eq!(y(json!({})), "{}\n");
        assert_eq!(y(json!([])), "[]\n");
        assert_eq!(y(json!("hello")), "hello\n");
        assert_eq!(y(json!(null)), "null\n");
    }

    #[test]
    fn a_json_view_prints_as_its_value() {
        for v in [
            json!({"b": [1, -2, 3.5, 1e21, 0.000001, -0.0, 18446744073709551615u64, "x"],
                "a": {"n": null, "t": true, "e": [], "f": {}, "s": "two\nlines", "q": "yes",
                      "long": "word ".repeat(30), "é": "\u{85}"}}),
            json!("just text"),
            json!([[1], {}]),
        ] {
            let text = serde_json::to_string(&v).unwrap();
            let mut viewed = String::new();
            write_yaml_view(&mut viewed, &JsonView::parse(&text).unwrap());
            assert_eq!(viewed, y(v), "{text}");
        }
        // Numbers are printed from their text as serde_json reads them.
        let mut out = String::new();
        write_yaml_view(
            &mut out,
            &JsonView::parse(r#"{"a":1.50,"b":-0,"c":1E2}"#).unwrap(),
        );
        assert_eq!(out, y(json!({"a": 1.5, "b": -0.0, "c": 100.0})));
    }

    #[test]
    fn key_order_is_go_yaml_natural_order() {
        let mut keys = vec![
            "a10", "a2", "B", "_x", "a", "1", "10", "9", "a01", "a1", "Z9", "-",
        ];
        let mut entries: Vec<(String, Value)> =
            keys.iter().map(|k| (k.to_string(), Value::Null)).collect();
        let mut refs: Vec<(&str, &Value)> = entries.iter().map(|(k, v)| (k.as_str(), v)).collect();
        sort_keys(&mut refs);
        let got: Vec<&str> = refs.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            got,
            vec!["-", "_x", "1", "9", "10", "B", "Z9", "a", "a1", "a01", "a2", "a10"]
        );
        // The same order through the merge sort path.
        keys.extend(["c", "d", "e", "f"]);
        entries = keys.iter().map(|k| (k.to_string(), Value::Null)).collect();
        refs = entries.iter().map(|(k, v)| (k.as_str(), v)).collect();
        sort_keys(&mut refs);
        let got: Vec<&str> = refs.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            got,
            vec![
                "-", "_x", "1", "9", "10", "B", "Z9", "a", "a1", "a01", "a2", "a10", "c", "d", "e",
                "f"
            ]
        );
    }

    #[test]
    fn strings_that_would_change_type_are_double_quoted() {
        for s in [
            "true",
            "yes",
            "on",
            "y",
            "N",
            "off",
            "123",
            "1.5",
            "null",
            "~",
            "",
            "1:20",
            "2001-12-14",
            "0x1F",
            "1_000",
            ".5",
            "-1",
            "+5",
            "1e3",
            ".inf",
            "0b101",
            "0o17",
        ] {
            assert_eq!(y(json!({ "k": s })), format!("k: \"{s}\"\n"), "{s}");
        }
        for s in [
            "hello",
            "1.2.3",
            "yess",
            "0x",
            "1e400",
            "2001-02-29",
            "<<",
            "a:b",
            "a#b",
        ] {
            assert_eq!(y(json!({ "k": s })), format!("k: {s}\n"), "{s}");
        }
    }

    #[test]
    fn indicators_force_single_quotes() {
        for s in [
            " lead", "trail ", "- x", "a: b", "a #b", "*x", "&x", "!x", "|x", ">x", "'x", "\"x",
            "%x", "@x", "`x", "#x", "[x", "{x", ",x", "? x", ": x", "---", "...x", "-",
        ] {
            let want = format!("k: '{}'\n", s.replace('\'', "''"));
            if s == "-" {
                assert_eq!(y(json!({ "k": s })), "k: '-'\n");
                continue;
            }
            assert_eq!(y(json!({ "k": s })), want, "{s:?}");
        }
        // Keys too.
        assert_eq!(y(json!({"a: b": 1, "": 2})), "\"\": 2\n'a: b': 1\n");
    }

    #[test]
    fn special_characters_force_double_quotes() {
        assert_eq!(y(json!({"k": "a\tb"})), "k: \"a\\tb\"\n");
        assert_eq!(y(json!({"k": "a\rb"})), "k: \"a\\rb\"\n");
        assert_eq!(y(json!({"k": "\u{7f}"})), "k: \"\\x7F\"\n");
        assert_eq!(y(json!({"k": "😀"})), "k: \"\\U0001F600\"\n");
        assert_eq!(y(json!({"k": "é ü 日本"})), "k: é ü 日本\n");
        assert_eq!(y(json!({"k": "\u{FEFF}ab"})), "k: \"\\uFEFF\\x61\\x62\"\n");
        // NEL survives JSON unescaped and the YAML re-read folds it.
        assert_eq!(y(json!({"k": "a\u{85}b"})), "k: a b\n");
        assert_eq!(
            y(json!({"k": "a \u{85} \u{85}\u{85}b"})),
            "k: |-\n  a\n\n  b\n"
        );
        assert_eq!(
            try_to_yaml(&json!({"k": "a\u{7f}"})).map_err(|e| e.message),
            Err(CONTROL_CHARACTERS.to_string())
        );
        assert_eq!(
            try_to_yaml(&json!({"a\u{85}": 1})).map_err(|e| e.message),
            Err(BAD_KEY.to_string())
        );
        assert!(try_to_yaml(&json!({ "k".repeat(1022): 1 })).is_ok());
        assert!(try_to_yaml(&json!({ "<".repeat(171): 1 })).is_err());
    }

    #[test]
    fn literal_blocks() {
        assert_eq!(y(json!({"k": "a\nb\n"})), "k: |\n  a\n  b\n");
        assert_eq!(y(json!({"k": "a\nb"})), "k: |-\n  a\n  b\n");
        assert_eq!(y(json!({"k": "a\n\n"})), "k: |+\n  a\n\n");
        assert_eq!(y(json!({"k": "\n"})), "k: |2+\n\n");
        assert_eq!(y(json!({"k": " a\nb\n"})), "k: |2\n   a\n  b\n");
        assert_eq!(y(json!({"k": "\na"})), "k: |2-\n\n  a\n");
        assert_eq!(y(json!(["a\n\nb\n"])), "- |\n  a\n\n  b\n");
        assert_eq!(
            y(json!({"m": {"k": "x\ny\n"}})),
            "m:\n  k: |\n    x\n    y\n"
        );
        // Blocks cannot hold trailing spaces on a line, or tabs.
        assert_eq!(y(json!({"k": "a \nb"})), "k: \"a \\nb\"\n");
        assert_eq!(y(json!({"k": "a\tb\nc"})), "k: \"a\\tb\\nc\"\n");
        assert_eq!(y(json!({"k": "a\nb "})), "k: \"a\\nb \"\n");
        // Multi-line keys take the explicit `? key` form.
        assert_eq!(y(json!({"a\nb": 1})), "? |-\n  a\n  b\n: 1\n");
    }

    #[test]
    fn folding_at_80_columns() {
        let words = "word ".repeat(30);
        let text = words.trim_end();
        let out = y(json!({ "key": text }));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("key: word"));
        assert!(lines.len() > 1);
        // Breaks happen at the first space after column 80.
        assert_eq!(lines[0].len(), 84);
        assert!(lines[1].starts_with("  word"));
        // No spaces: no folding.
        let long = "x".repeat(200);
        assert_eq!(y(json!({ "key": long.clone() })), format!("key: {long}\n"));
        // Keys never fold.
        let k = "k ".repeat(50);
        assert!(y(json!({ k.trim_end(): 1 })).lines().count() == 1);
    }

    #[test]
    fn long_keys_use_explicit_form() {
        let k = "k".repeat(129);
        assert_eq!(y(json!({ k.clone(): [1] })), format!("? {k}\n: - 1\n"));
        let k128 = "k".repeat(128);
        assert_eq!(y(json!({ k128.clone(): 1 })), format!("{k128}: 1\n"));
    }

    #[test]
    fn stream() {
        assert_eq!(
            to_yaml_stream(&[json!({"a": 1}), json!({"b": "x\n"})]),
            "a: 1\n---\nb: |\n  x\n"
        );
    }
}
