//! Scalar values as kustomize's replacement filter sees them: a YAML tag plus
//! the scalar's text.
//!
//! kustomize copies only the *text* of a scalar into an existing scalar
//! target and keeps the target's tag, so that `"123"` copied into an integer
//! field stays an integer while `42` copied into a string field becomes
//! `"42"`. Whether the result is representable is only decided when the
//! resource is serialised: go-yaml drops the tag when the text implies it,
//! and otherwise decodes `!!tag text` — which fails for `!!int abc`. A field
//! created by `create: true` has no tag at all, so its text is typed afresh
//! (`"123"` becomes 123). Resources here are JSON, so this module maps a JSON
//! scalar to (tag, text) and back, reproducing those outcomes.

use kustom_api::{err, Error, Value};

/// The YAML core-schema tag of a scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    Str,
    Int,
    Float,
    Bool,
    Null,
}

impl Tag {
    /// go-yaml's short spelling, as it appears in its decode errors.
    fn short(self) -> &'static str {
        match self {
            Tag::Str => "!!str",
            Tag::Int => "!!int",
            Tag::Float => "!!float",
            Tag::Bool => "!!bool",
            Tag::Null => "!!null",
        }
    }
}

/// The tag and text of a JSON scalar; `None` for objects and arrays.
pub(crate) fn tag_and_text(value: &Value) -> Option<(Tag, String)> {
    Some(match value {
        Value::String(s) => (Tag::Str, s.clone()),
        Value::Bool(b) => (Tag::Bool, b.to_string()),
        Value::Null => (Tag::Null, String::new()),
        Value::Number(n) if n.is_f64() => (Tag::Float, n.to_string()),
        Value::Number(n) => (Tag::Int, n.to_string()),
        Value::Object(_) | Value::Array(_) => return None,
    })
}

/// What go-yaml v3 makes of a plain scalar's text.
#[derive(Debug, Clone, PartialEq)]
enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    /// Only for values above `i64::MAX`.
    Uint(u64),
    /// May be infinite or NaN (`.inf`, `.nan`).
    Float(f64),
    Str,
}

impl Resolved {
    fn tag(&self) -> Tag {
        match self {
            Resolved::Null => Tag::Null,
            Resolved::Bool(_) => Tag::Bool,
            Resolved::Int(_) | Resolved::Uint(_) => Tag::Int,
            Resolved::Float(_) => Tag::Float,
            Resolved::Str => Tag::Str,
        }
    }
}

/// go-yaml v3's implicit typing of plain text, timestamps aside (see
/// [`timestamp_text`]): no timestamp could satisfy a non-string tag, so they
/// only matter for untagged nodes.
fn resolve(text: &str) -> Resolved {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let Some(&first) = text.as_bytes().first() else {
        return Resolved::Null;
    };
    if first == b'.' {
        return match parse_decimal_float(text) {
            Some(f) => Resolved::Float(f),
            None => Resolved::Str,
        };
    }
    if !(first.is_ascii_digit() || first == b'+' || first == b'-') {
        return Resolved::Str;
    }
    // go-yaml drops every underscore, then tries Go's ParseInt(s, 0, 64),
    // ParseUint(s, 0, 64) and a restricted float syntax, in that order.
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    if let Some(i) = go_parse_int(&plain) {
        return Resolved::Int(i);
    }
    if let Some(u) = go_parse_uint(&plain) {
        return Resolved::Uint(u);
    }
    if is_yaml_float(&plain) {
        if let Some(f) = parse_decimal_float(&plain) {
            return Resolved::Float(f);
        }
    }
    Resolved::Str
}

/// Go's `ParseFloat` on decimal syntax: overflow to infinity is an error.
fn parse_decimal_float(s: &str) -> Option<f64> {
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some(f)
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`, go-yaml's float syntax.
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseUint(s, 0, 64)`: base from a `0x`/`0o`/`0b`/`0`
/// prefix, no sign.
fn go_parse_uint(s: &str) -> Option<u64> {
    let (digits, radix) = match s.as_bytes() {
        [b'0', b'x' | b'X', ..] => (&s[2..], 16),
        [b'0', b'o' | b'O', ..] => (&s[2..], 8),
        [b'0', b'b' | b'B', ..] => (&s[2..], 2),
        [b'0', _, ..] => (&s[1..], 8),
        _ => (s, 10),
    };
    // from_str_radix would accept a sign of its own; Go does not here.
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Go's `strconv.ParseInt(s, 0, 64)`: an optional sign, then as ParseUint.
fn go_parse_int(s: &str) -> Option<i64> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = go_parse_uint(rest)?;
    if negative {
        if magnitude <= i64::MAX as u64 + 1 {
            Some((magnitude as i128).wrapping_neg() as i64)
        } else {
            None
        }
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// The JSON value of a resolved plain scalar; `text` is kept for strings.
fn to_json(resolved: Resolved, text: &str) -> Result<Value, Error> {
    Ok(match resolved {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::from(i),
        Resolved::Uint(u) => Value::from(u),
        Resolved::Float(f) => float_to_json(f)?,
        Resolved::Str => Value::String(text.to_string()),
    })
}

/// kustomize serialises resources with Go's encoding/json, which refuses
/// NaN and infinities.
fn float_to_json(f: f64) -> Result<Value, Error> {
    match serde_json::Number::from_f64(f) {
        Some(n) => Ok(Value::Number(n)),
        None if f.is_nan() => Err(err!("json: unsupported value: NaN")),
        None if f > 0.0 => Err(err!("json: unsupported value: +Inf")),
        None => Err(err!("json: unsupported value: -Inf")),
    }
}

/// An untagged plain scalar that go-yaml v3 reads as a timestamp comes out
/// of kustomize's JSON conversion as RFC 3339 text (`2001-12-14` →
/// `2001-12-14T00:00:00Z`). The YAML reader implements that conversion, so
/// the text is read back through it, as kustomize writes and re-reads it.
fn timestamp_text(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let year_first = b.len() > 4 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-';
    // Anything that could not be written as a plain scalar is quoted by
    // go-yaml and so stays a string.
    let plain = b
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || b":.+- ".contains(c))
        && !text.contains(": ")
        && !text.ends_with(' ')
        && !text.ends_with(':');
    if !(year_first && plain) {
        return None;
    }
    let doc = kustom_api::yaml::parse_stream(&format!("v: {text}\n"))
        .ok()?
        .into_iter()
        .next()?;
    match doc.as_object().filter(|m| m.len() == 1)?.get("v")? {
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The JSON value of a scalar node with `tag` (None: a node created without
/// one) and `text`, as kustomize's serialisation would come out.
pub(crate) fn materialize(tag: Option<Tag>, text: &str) -> Result<Value, Error> {
    let Some(tag) = tag else {
        // An untagged node is written plain and typed again on reading.
        return match resolve(text) {
            Resolved::Str => Ok(Value::String(
                timestamp_text(text).unwrap_or_else(|| text.to_string()),
            )),
            resolved => to_json(resolved, text),
        };
    };
    if tag == Tag::Str {
        // go-yaml quotes a string whose text would read as something else.
        return Ok(Value::String(text.to_string()));
    }
    let resolved = resolve(text);
    if resolved.tag() == tag {
        return to_json(resolved, text);
    }
    // The tag is written out (`!!int abc`) and decoding must honour it;
    // only an integer is accepted where a float is due.
    match (tag, resolved) {
        (Tag::Float, Resolved::Int(i)) => Ok(Value::from(i)),
        (Tag::Float, Resolved::Uint(u)) => float_to_json(u as f64),
        (_, other) => Err(err!(
            "map[string]interface {{}}(nil): yaml: cannot decode {} `{text}` as a {}",
            other.tag().short(),
            tag.short()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn untagged_text_is_typed_like_go_yaml_v3() {
        let m = |t: &str| materialize(None, t).unwrap();
        assert_eq!(m("123"), json!(123));
        assert_eq!(m("-0x1F"), json!(-31));
        assert_eq!(m("0o17"), json!(15));
        assert_eq!(m("017"), json!(15));
        assert_eq!(m("1_000"), json!(1000));
        assert_eq!(m("08"), json!(8.0));
        assert_eq!(m("1.5"), json!(1.5));
        assert_eq!(m(".5"), json!(0.5));
        assert_eq!(m("1e3"), json!(1000.0));
        assert_eq!(m("18446744073709551615"), json!(18446744073709551615u64));
        assert_eq!(m("true"), json!(true));
        assert_eq!(m("yes"), json!("yes"));
        assert_eq!(m("~"), json!(null));
        assert_eq!(m(""), json!(null));
        assert_eq!(m("2001-12-14"), json!("2001-12-14T00:00:00Z"));
        assert_eq!(m("2001-12-14: x"), json!("2001-12-14: x"));
        assert_eq!(m("1e400"), json!("1e400"));
        assert_eq!(m("+"), json!("+"));
        assert_eq!(m("0x"), json!("0x"));
        assert!(materialize(None, ".inf").is_err());
        assert!(materialize(None, ".nan").is_err());
    }

    #[test]
    fn untagged_typing_agrees_with_the_yaml_reader() {
        // The reader types plain scalars the way go-yaml v3 does; a created
        // field must come out as if its text had been read from a file.
        for text in [
            "123",
            "-7",
            "+7",
            "0x1F",
            "0o17",
            "017",
            "08",
            "1_000",
            "0b101",
            "1.5",
            "-.5",
            "1e3",
            "1E-2",
            "1.",
            "true",
            "False",
            "yes",
            "on",
            "~",
            "null",
            "NULL",
            "abc",
            "2001-12-14",
            "2001-12-14 21:59:43.10",
            "2001-12-14t21:59:43.10-05:00",
            "1e400",
            "9223372036854775808",
            "99999999999999999999",
            "0x",
            "+.5",
            "._5",
            "1__0",
        ] {
            let read = kustom_api::yaml::parse_stream(&format!("v: {text}\n"))
                .unwrap_or_default()
                .into_iter()
                .next()
                .and_then(|d| d.get("v").cloned());
            assert_eq!(materialize(None, text).ok(), read, "{text}");
        }
    }

    #[test]
    fn string_tag_keeps_any_text_a_string() {
        assert_eq!(materialize(Some(Tag::Str), "42").unwrap(), json!("42"));
        assert_eq!(materialize(Some(Tag::Str), "").unwrap(), json!(""));
    }

    #[test]
    fn typed_tags_accept_matching_text_and_reject_the_rest() {
        assert_eq!(materialize(Some(Tag::Int), "123").unwrap(), json!(123));
        assert_eq!(materialize(Some(Tag::Float), "0x1F").unwrap(), json!(31));
        assert_eq!(materialize(Some(Tag::Bool), "False").unwrap(), json!(false));
        assert_eq!(materialize(Some(Tag::Null), "~").unwrap(), json!(null));
        let e = materialize(Some(Tag::Int), "abc").unwrap_err();
        assert_eq!(
            e.message,
            "map[string]interface {}(nil): yaml: cannot decode !!str `abc` as a !!int"
        );
        let e = materialize(Some(Tag::Null), "42").unwrap_err();
        assert!(e.message.ends_with("cannot decode !!int `42` as a !!null"));
        let e = materialize(Some(Tag::Int), "").unwrap_err();
        assert!(e.message.ends_with("cannot decode !!null `` as a !!int"));
        let e = materialize(Some(Tag::Int), "1.5").unwrap_err();
        assert!(e
            .message
            .ends_with("cannot decode !!float `1.5` as a !!int"));
    }

    #[test]
    fn json_scalars_map_to_tag_and_text() {
        assert_eq!(tag_and_text(&json!(42)), Some((Tag::Int, "42".into())));
        assert_eq!(tag_and_text(&json!(1.5)), Some((Tag::Float, "1.5".into())));
        assert_eq!(tag_and_text(&json!("x")), Some((Tag::Str, "x".into())));
        assert_eq!(tag_and_text(&json!(true)), Some((Tag::Bool, "true".into())));
        assert_eq!(tag_and_text(&json!({"a": 1})), None);
    }
}
