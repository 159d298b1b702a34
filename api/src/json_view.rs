//! A JSON text read in place, for printing it without building a
//! `serde_json::Value`.
//!
//! Printing a large build parsed every resource's JSON text into a `Value`
//! (a `String` per scalar, a B-tree per object) only to walk it once and
//! drop it: most of the cost of printing was allocating and freeing that
//! tree, and the page faults behind it. A [`JsonView`] borrows every string
//! without escapes and every number from the text; only arrays and objects
//! allocate (one vector each). It reads what `serde_json` reads into a
//! `Value` — the same strings, the same numbers, the last of duplicate
//! keys — and refuses (`None`) any text `serde_json` would refuse.

use serde_json::{Number, Value};
use std::borrow::Cow;

/// One JSON value, borrowing from its text.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonView<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as it is written (checked to be one `serde_json` reads).
    Number(&'a str),
    /// A string, decoded.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<JsonView<'a>>),
    /// An object: keys unique, in the order of the text (or in byte order
    /// when the text repeats a key; the last one is kept, as in `Value`).
    Object(Vec<(Cow<'a, str>, JsonView<'a>)>),
}

impl<'a> JsonView<'a> {
    /// Read one JSON value filling `text` (whitespace around it allowed);
    /// `None` where `serde_json` would fail, or nesting is deeper than
    /// [`crate::json::MAX_DEPTH`].
    pub fn parse(text: &'a str) -> Option<JsonView<'a>> {
        let mut r = Reader {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
        };
        let v = r.value()?;
        r.skip_space();
        (r.pos == r.bytes.len()).then_some(v)
    }

    /// The object's value at `key`.
    pub fn get(&self, key: &str) -> Option<&JsonView<'a>> {
        match self {
            JsonView::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The object's value at `key`, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut JsonView<'a>> {
        match self {
            JsonView::Object(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The same value as a `serde_json::Value`.
    pub fn to_value(&self) -> Value {
        match self {
            JsonView::Null => Value::Null,
            JsonView::Bool(b) => Value::Bool(*b),
            JsonView::Number(n) => Value::Number(number(n)),
            JsonView::String(s) => Value::String(s.to_string()),
            JsonView::Array(items) => Value::Array(items.iter().map(JsonView::to_value).collect()),
            JsonView::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

/// The number a [`JsonView::Number`]'s text stands for.
pub fn number(text: &str) -> Number {
    text.parse()
        .expect("a JsonView holds only numbers serde_json reads")
}

/// Whether a number's text is an integer that prints as it is written:
/// no sign but `-`, no leading zero, no `-0` (which serde_json reads as a
/// float), and short enough to fit an `i64`.
pub fn is_plain_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty()
        && digits.len() <= 18
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" && text.len() == 1 || !digits.starts_with('0'))
}

/// The entries of a JSON object's text, each value as its text, without
/// reading inside the values: brackets are matched outside strings. Meant
/// for text already known to be valid JSON (a resource's `Doc` text); `None`
/// when `text` is not an object. Repeated keys are all listed.
pub fn object_entries(text: &str) -> Option<Vec<(Cow<'_, str>, &str)>> {
    object_entries_opening(text, |_| false).map(|(entries, _)| entries)
}

/// An object's entries and their values' texts.
type Entries<'a> = Vec<(Cow<'a, str>, &'a str)>;

/// [`object_entries`], and in the same pass the entries of each value that
/// is an object under a key `open` picks: `(i, its entries)` for entry `i`.
pub fn object_entries_opening<'a>(
    text: &'a str,
    open: impl Fn(&str) -> bool,
) -> Option<(Entries<'a>, Vec<(usize, Entries<'a>)>)> {
    let mut r = Reader {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    r.skip_space();
    let mut opened = Vec::new();
    let entries = r.entries(|r, i, key| {
        if open(key) && r.bytes.get(r.pos) == Some(&b'{') {
            opened.push((i, r.entries(|r, _, _| r.skip_value())?));
            Some(())
        } else {
            r.skip_value()
        }
    })?;
    Some((entries, opened))
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
}

impl<'a> Reader<'a> {
    /// The entries of the object at `pos`, leaving `pos` past its end;
    /// `value` steps over entry `i`'s value (`key`), at its first byte.
    fn entries(
        &mut self,
        mut value: impl FnMut(&mut Self, usize, &str) -> Option<()>,
    ) -> Option<Vec<(Cow<'a, str>, &'a str)>> {
        let (text, bytes) = (self.text, self.bytes);
        if bytes.get(self.pos) != Some(&b'{') {
            return None;
        }
        self.pos += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_space();
            match *bytes.get(self.pos)? {
                b'}' => {
                    self.pos += 1;
                    return Some(entries);
                }
                b',' => {
                    self.pos += 1;
                    continue;
                }
                b'"' => {}
                _ => return None,
            }
            let key = self.string()?;
            self.skip_space();
            if bytes.get(self.pos) != Some(&b':') {
                return None;
            }
            self.pos += 1;
            self.skip_space();
            let start = self.pos;
            value(self, entries.len(), &key)?;
            entries.push((key, &text[start..self.pos]));
        }
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// Step over one value of valid JSON: a string, a bracketed value
    /// (matched outside strings), or a scalar up to the next delimiter.
    fn skip_value(&mut self) -> Option<()> {
        let b = self.bytes;
        match *b.get(self.pos)? {
            b'"' => self.skip_string().map(drop),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *b.get(self.pos)? {
                        b'"' => {
                            self.skip_string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
            _ => {
                while !matches!(
                    b.get(self.pos),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                ) {
                    self.pos += 1;
                }
                Some(())
            }
        }
    }

    fn value(&mut self) -> Option<JsonView<'a>> {
        self.skip_space();
        match *self.bytes.get(self.pos)? {
            b'{' => self.nested(Self::object),
            b'[' => self.nested(Self::array),
            b'"' => self.string().map(JsonView::String),
            b't' => self.word("true", JsonView::Bool(true)),
            b'f' => self.word("false", JsonView::Bool(false)),
            b'n' => self.word("null", JsonView::Null),
            _ => self.number(),
        }
    }

    fn nested(&mut self, read: fn(&mut Self) -> Option<JsonView<'a>>) -> Option<JsonView<'a>> {
        self.depth += 1;
        if self.depth > crate::json::MAX_DEPTH {
            return None;
        }
        let v = read(self);
        self.depth -= 1;
        v
    }

    fn word(&mut self, word: &str, v: JsonView<'a>) -> Option<JsonView<'a>> {
        let end = self.pos + word.len();
        (self.bytes.get(self.pos..end)? == word.as_bytes()).then(|| {
            self.pos = end;
            v
        })
    }

    fn number(&mut self) -> Option<JsonView<'a>> {
        let start = self.pos;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
        let text = &self.text[start..self.pos];
        // The grammar is serde_json's own: anything it would not read as a
        // number (`01`, `1.`, `+1`) is refused here too.
        (is_plain_integer(text) || text.parse::<Number>().is_ok()).then_some(JsonView::Number(text))
    }

    /// Step over a string; whether it holds escapes.
    fn skip_string(&mut self) -> Option<bool> {
        let mut i = self.pos + 1;
        let mut escaped = false;
        // Jump from one quote or backslash to the next: a resource's text
        // is mostly long strings (a CRD's descriptions).
        loop {
            let rest = self.bytes.get(i..)?;
            let k = memchr::memchr2(b'"', b'\\', rest)?;
            // A raw control character is not JSON; compares only, so
            // that the check runs as vector code.
            if rest[..k].iter().fold(false, |bad, &c| bad | (c < 0x20)) {
                return None;
            }
            i += k;
            if rest[k] == b'"' {
                break;
            }
            escaped = true;
            i += 2;
        }
        self.pos = i + 1;
        Some(escaped)
    }

    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.pos;
        let escaped = self.skip_string()?;
        let i = self.pos - 1;
        if escaped {
            serde_json::from_str::<String>(&self.text[start..self.pos])
                .ok()
                .map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(&self.text[start + 1..i]))
        }
    }

    fn array(&mut self) -> Option<JsonView<'a>> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Some(JsonView::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_space();
            match *self.bytes.get(self.pos)? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(JsonView::Array(items));
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self) -> Option<JsonView<'a>> {
        self.pos += 1;
        let mut entries: Vec<(Cow<'a, str>, JsonView<'a>)> = Vec::new();
        self.skip_space();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Some(JsonView::Object(entries));
        }
        // Text written from a `Value` has its keys in strictly rising byte
        // order; anything else may repeat a key.
        let mut rising = true;
        loop {
            self.skip_space();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return None;
            }
            let key = self.string()?;
            self.skip_space();
            if self.bytes.get(self.pos) != Some(&b':') {
                return None;
            }
            self.pos += 1;
            let value = self.value()?;
            if let Some((last, _)) = entries.last() {
                rising &= last.as_ref() < key.as_ref();
            }
            entries.push((key, value));
            self.skip_space();
            match *self.bytes.get(self.pos)? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    break;
                }
                _ => return None,
            }
        }
        if !rising {
            keep_last_of_each_key(&mut entries);
        }
        Some(JsonView::Object(entries))
    }
}

/// Leave one entry per key, the last one given, in byte order of the keys.
fn keep_last_of_each_key<T>(entries: &mut Vec<(Cow<'_, str>, T)>) {
    // A stable sort keeps equal keys in text order; keep the last of each run.
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut i = 0;
    while i + 1 < entries.len() {
        if entries[i].0 == entries[i + 1].0 {
            entries.remove(i);
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_as_serde(text: &str) {
        let ours = JsonView::parse(text).map(|v| v.to_value());
        let theirs = crate::json::from_str::<Value>(text).ok();
        assert_eq!(ours, theirs, "{text}");
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
            r#" { "x" : [ 1 , -2 , 3.5 , 1e3 , -0 , 18446744073709551615 , 123456789012345678901 ] } "#,
            r#"{"s":"tab\tquote\"slash\\ \u00e9 \ud83d\ude00","plain":"héllo"}"#,
            r#"{"b":1,"a":2,"b":3}"#,
            r#"{"k":{},"l":[],"m":[{}],"":""}"#,
            r#""just a string""#,
            "0",
            "-1.25E-3",
        ] {
            same_as_serde(text);
        }
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for text in [
            "",
            "{",
            "[1,]",
            r#"{"a":1,}"#,
            "01",
            "1.",
            "+1",
            "-",
            ".5",
            "tru",
            "nul",
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            "[1 2]",
            "\"unterminated",
            "\"ctrl\u{1}\"",
            "\"escaped \\n, then a control character: \u{1f} far into the string\"",
            "\"ends in a backslash\\",
            "1 2",
            r#""\x""#,
        ] {
            assert_eq!(JsonView::parse(text), None, "{text:?}");
            assert!(crate::json::from_str::<Value>(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn entries_skip_long_strings_with_brackets_quotes_and_escapes_inside() {
        let long = format!("{}\\\" }}] {{[ \\\\{}", "d".repeat(5000), "e".repeat(70));
        let text = format!(r#"{{"a":"{long}","b":{{"c":"}}","d":["]"]}},"e":1}}"#);
        let entries = object_entries(&text).expect("an object");
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["a", "b", "e"]);
        assert_eq!(entries[0].1, format!("\"{long}\""));
        assert_eq!(entries[1].1, r#"{"c":"}","d":["]"]}"#);
        same_as_serde(&text);
    }

    #[test]
    fn borrows_plain_strings_and_keeps_the_last_duplicate() {
        let v = JsonView::parse(r#"{"z":"plain","a":"esc\n","z":"again"}"#).unwrap();
        let JsonView::Object(entries) = &v else {
            panic!("an object")
        };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["a", "z"]);
        assert_eq!(v.get("z"), Some(&JsonView::String(Cow::Borrowed("again"))));
        assert!(matches!(v.get("a"), Some(JsonView::String(Cow::Owned(_)))));
    }

    #[test]
    fn plain_integers() {
        for (text, plain) in [
            ("0", true),
            ("-5", true),
            ("123", true),
            ("-0", false),
            ("007", false),
            ("1.0", false),
            ("1e3", false),
            ("1234567890123456789", false),
        ] {
            assert_eq!(is_plain_integer(text), plain, "{text}");
        }
    }

    #[test]
    fn object_entries_split_the_top_level() {
        let text =
            r#" {"a" : {"x":"}{\"","y":[1,{"z":[]}]},"b\n":"s","c":-1.5e3,"d":[],"e":true} "#;
        let entries = object_entries(text).unwrap();
        let got: Vec<(&str, &str)> = entries.iter().map(|(k, v)| (k.as_ref(), *v)).collect();
        assert_eq!(
            got,
            [
                ("a", r#"{"x":"}{\"","y":[1,{"z":[]}]}"#),
                ("b\n", r#""s""#),
                ("c", "-1.5e3"),
                ("d", "[]"),
                ("e", "true"),
            ]
        );
        assert_eq!(object_entries("{}"), Some(vec![]));
        assert_eq!(object_entries("[1]"), None);
        assert_eq!(object_entries(r#"{"a":[1"#), None);
    }

    #[test]
    fn objects_opened_in_the_same_pass_are_read_as_object_entries_reads_them() {
        let text = r#"{"a":{"x":"}{","y":[1,{"z":2}]},"b":{"k":1},"a":[{"w":3}],"c":{ "q" : {}}}"#;
        let (entries, opened) =
            object_entries_opening(text, |key| key == "a" || key == "c").unwrap();
        assert_eq!(entries, object_entries(text).unwrap());
        // The array under the second "a" is not an object: not opened.
        let opened: Vec<(usize, Vec<(&str, &str)>)> = opened
            .iter()
            .map(|(i, sub)| (*i, sub.iter().map(|(k, v)| (k.as_ref(), *v)).collect()))
            .collect();
        assert_eq!(
            opened,
            [
                (0, vec![("x", r#""}{""#), ("y", r#"[1,{"z":2}]"#)]),
                (3, vec![("q", "{}")]),
            ]
        );
        assert!(object_entries_opening(r#"{"a":{"x":1"#, |_| true).is_none());
        assert!(object_entries_opening(r#"{"a":{1:2}}"#, |_| true).is_none());
    }

    #[test]
    fn too_deep_is_refused() {
        let deep = format!(
            "{}{}",
            "[".repeat(crate::json::MAX_DEPTH + 1),
            "]".repeat(crate::json::MAX_DEPTH + 1)
        );
        assert_eq!(JsonView::parse(&deep), None);
    }
}
