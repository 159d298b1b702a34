//! Target field paths that go on into a string holding JSON or YAML
//! (kustomize v5.8.0, #5679): `data.config\.json.config.hostname` sets
//! `config.hostname` inside the JSON text of `data["config.json"]`.
//!
//! kustomize tries this before the ordinary walk, for every path of two or
//! more parts: it looks for the first prefix of the path that ends on a
//! scalar, parses that scalar's text as YAML, matches the rest of the path
//! in it (creating with `create: true`), sets the value and writes the text
//! back. Any failure along the way is silent and the ordinary walk runs
//! instead, so a path that does not reach into a string behaves as before.
//!
//! Text that starts with `{` or `[` is written back as Go's `encoding/json`
//! writes the decoded value: keys sorted, HTML characters escaped, indented
//! by two spaces when the original had line breaks and double spaces, and
//! compact otherwise. Other text is written back by kyaml's YAML encoder,
//! which keeps comments and styles; kustom does not reproduce that encoder
//! yet, so such a path is an error that says so rather than other bytes.

use super::copied::Copied;
use super::path::{self, NodeKind, Target};
use super::scalar;
use kustom_api::{err, Error, Value};

/// What happened to one field path.
pub(super) enum Outcome {
    /// The path reached into a string and the value was set there; the
    /// string field's location is given.
    Set(Vec<path::Step>),
    /// The path does not reach into a string (or kustomize's attempt would
    /// fail): walk it the ordinary way.
    NotEmbedded,
}

/// Try to set `value` at `parts` through a string field of `resource`
/// holding JSON or YAML.
pub(super) fn set(
    resource: &mut Value,
    parts: &[String],
    value: &Copied,
    create: Option<NodeKind>,
) -> Result<Outcome, Error> {
    if parts.len() < 2 {
        return Ok(Outcome::NotEmbedded);
    }
    let Some((split, location, text)) = find_holder(resource, parts) else {
        return Ok(Outcome::NotEmbedded);
    };
    let Some(mut document) = parse(&text) else {
        return Ok(Outcome::NotEmbedded);
    };
    let mut failed = false;
    let found = path::for_each_target(&mut document, &parts[split..], create, true, &mut |t| {
        // Unlike the ordinary walk, delimiter options do not apply here.
        if set_node(t, value).is_err() {
            failed = true;
        }
        Ok(())
    });
    if failed || !matches!(found, Ok(n) if n > 0) {
        return Ok(Outcome::NotEmbedded);
    }
    let first = text.trim().chars().next();
    let written = if matches!(first, Some('{' | '[')) {
        let pretty = text.contains('\n') && text.contains("  ");
        match go_json(&document, pretty) {
            Some(json) => json,
            None => return Ok(Outcome::NotEmbedded),
        }
    } else {
        let field = parts[..split]
            .iter()
            .map(|p| p.replace('.', "\\."))
            .collect::<Vec<_>>()
            .join(".");
        return Err(err!(
            "unable to set field \"{}\" in replacement target: \"{field}\" holds YAML text and \
             kustomize v5.8 would set the value inside it, re-encoding the text with its \
             comments and styles; kustom re-encodes JSON held in a string but not yet YAML. \
             Replace the whole field instead, or build this kustomization with kustomize",
            parts
                .iter()
                .map(|p| p.replace('.', "\\."))
                .collect::<Vec<_>>()
                .join(".")
        ));
    };
    if let Some(slot) = path::at_mut(resource, &location) {
        *slot = Value::String(written);
    }
    Ok(Outcome::Set(location))
}

/// The first prefix of `parts` (shorter than the whole path) that kyaml's
/// `Lookup` resolves to a scalar: how many parts it takes, where the scalar
/// is, and its text.
fn find_holder(resource: &Value, parts: &[String]) -> Option<(usize, Vec<path::Step>, String)> {
    (1..parts.len()).find_map(|i| {
        let (node, location) = path::lookup(resource, &parts[..i]).ok()??;
        // A null scalar's text ("" or "null") never holds a mapping or a
        // sequence, so the attempt would fail whatever kustomize parsed.
        if node.is_null() {
            return None;
        }
        let (_, text) = scalar::tag_and_text(node)?;
        Some((i, location, text))
    })
}

/// The text's first YAML document as a value, when it is a mapping or a
/// sequence (only those can hold the rest of the path).
fn parse(text: &str) -> Option<Value> {
    let document = kustom_api::yaml::parse_stream(text)
        .ok()?
        .into_iter()
        .next()?;
    matches!(document, Value::Object(_) | Value::Array(_)).then_some(document)
}

/// Set one matched node inside the parsed text: a scalar keeps its type and
/// takes the text, anything else is replaced whole.
fn set_node(target: Target<'_>, value: &Copied) -> Result<(), Error> {
    let tag = if target.created {
        None
    } else {
        match scalar::tag_and_text(target.value) {
            Some((tag, _)) => Some(tag),
            None => {
                *target.value = value.to_json()?;
                return Ok(());
            }
        }
    };
    *target.value = scalar::materialize(tag, value.text())?;
    Ok(())
}

/// The text Go's `json.Marshal` (or `json.MarshalIndent` with two spaces)
/// gives for the value; `None` for what it refuses (infinities, NaN).
pub(crate) fn go_json(value: &Value, pretty: bool) -> Option<String> {
    let mut out = String::new();
    write_json(&mut out, value, pretty.then_some(0))?;
    Some(out)
}

/// Write one value; `indent` is the current depth when indenting.
fn write_json(out: &mut String, value: &Value, indent: Option<usize>) -> Option<()> {
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                out.push_str(&go_float(n.as_f64()?)?);
            }
        }
        Value::String(s) => go_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Some(d) = indent {
                    newline(out, d + 1);
                }
                write_json(out, item, indent.map(|d| d + 1))?;
            }
            if let (Some(d), false) = (indent, items.is_empty()) {
                newline(out, d);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            // serde_json's map iterates in key order, the byte order Go sorts by.
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Some(d) = indent {
                    newline(out, d + 1);
                }
                go_string(out, key);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_json(out, item, indent.map(|d| d + 1))?;
            }
            if let (Some(d), false) = (indent, map.is_empty()) {
                newline(out, d);
            }
            out.push('}');
        }
    }
    Some(())
}

/// Go's float64 text in JSON: the shortest digits that read back, with an
/// exponent below 1e-6 and from 1e21 (`1e-7`, `1e+21`).
fn go_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e')?;
        return Some(match exponent.strip_prefix('-') {
            Some(digits) => format!("{mantissa}e-{digits}"),
            None => format!("{mantissa}e+{exponent:0>2}"),
        });
    }
    Some(format!("{f}"))
}

/// A JSON string as Go writes it: HTML characters and U+2028/U+2029
/// escaped, control characters as `\n`-style or `\u00XX` escapes.
fn go_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_is_written_as_go_writes_it() {
        let v = json!({"b": [1, 2.5, "x<y&z>"], "a": {}, "c": [], "d": null, "e": 1.0});
        assert_eq!(
            go_json(&v, false).unwrap(),
            r#"{"a":{},"b":[1,2.5,"x\u003cy\u0026z\u003e"],"c":[],"d":null,"e":1}"#
        );
        assert_eq!(
            go_json(&json!({"a": [1, {"b": true}], "c": {}}), true).unwrap(),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": true\n    }\n  ],\n  \"c\": {}\n}"
        );
    }

    #[test]
    fn floats_take_go_exponents() {
        assert_eq!(go_float(1e-7).unwrap(), "1e-7");
        assert_eq!(go_float(1.5e-10).unwrap(), "1.5e-10");
        assert_eq!(go_float(1e21).unwrap(), "1e+21");
        assert_eq!(go_float(2.5e300).unwrap(), "2.5e+300");
        assert_eq!(go_float(1e20).unwrap(), "100000000000000000000");
        assert_eq!(go_float(0.000001).unwrap(), "0.000001");
        assert_eq!(go_float(-0.0).unwrap(), "-0");
        assert!(go_float(f64::INFINITY).is_none());
    }

    #[test]
    fn control_characters_are_escaped() {
        let mut out = String::new();
        go_string(&mut out, "a\u{1}\u{8}\u{c}\u{7f}\u{2028}");
        assert_eq!(out, "\"a\\u0001\\b\\f\u{7f}\\u2028\"");
    }
}
