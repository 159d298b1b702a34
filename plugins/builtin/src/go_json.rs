//! Go's `encoding/json` text, which kustomize's output depends on in two
//! places: the content hash of generated names (`json.Marshal` of the
//! hashed fields) and JSON held in a string that a replacement writes back.
//! Map keys sorted by bytes (serde_json's map order), `<>&` and U+2028/9
//! escaped, Go's float64 spelling.

use kustom_api::Value;
use std::fmt::Write as _;

/// How numbers are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Numbers {
    /// Every number as the float64 it becomes when Go decodes JSON into
    /// `interface{}` (large integers lose their low digits).
    Float64,
    /// Integers as integers (what go-yaml decodes), other numbers as float64.
    Decoded,
}

/// `json.Marshal` (`indent` None) or `json.MarshalIndent(v, "", "  ")`
/// (`indent` Some(0)) of `value`; `None` for what Go refuses (infinities,
/// NaN).
pub(crate) fn write(
    out: &mut String,
    value: &Value,
    numbers: Numbers,
    indent: Option<usize>,
) -> Option<()> {
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (numbers, n.as_i64(), n.as_u64()) {
            (Numbers::Decoded, Some(i), _) => {
                let _ = write!(out, "{i}");
            }
            (Numbers::Decoded, None, Some(u)) => {
                let _ = write!(out, "{u}");
            }
            _ => float(out, n.as_f64()?)?,
        },
        Value::String(s) => string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Some(d) = indent {
                    newline(out, d + 1);
                }
                write(out, item, numbers, indent.map(|d| d + 1))?;
            }
            if let (Some(d), false) = (indent, items.is_empty()) {
                newline(out, d);
            }
            out.push(']');
        }
        Value::Object(map) => {
            // Sorted here, not by the map: a dependency enabling serde_json's
            // `preserve_order` would otherwise change every hash.
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Some(d) = indent {
                    newline(out, d + 1);
                }
                string(out, key);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write(out, item, numbers, indent.map(|d| d + 1))?;
            }
            if let (Some(d), false) = (indent, map.is_empty()) {
                newline(out, d);
            }
            out.push('}');
        }
    }
    Some(())
}

/// Go's float64 text: the shortest digits that read back, with an exponent
/// below 1e-6 and from 1e21 (`1e-7`, `1e+21`); `None` for infinities and NaN.
pub(crate) fn float(out: &mut String, f: f64) -> Option<()> {
    if !f.is_finite() {
        return None;
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e')?;
        let _ = match exponent.strip_prefix('-') {
            Some(digits) => write!(out, "{mantissa}e-{digits}"),
            None => write!(out, "{mantissa}e+{exponent:0>2}"),
        };
    } else {
        let _ = write!(out, "{f}");
    }
    Some(())
}

/// A JSON string as Go writes it: `<`, `>`, `&`, U+2028 and U+2029 as `\u`
/// escapes, `\b \f \n \r \t` short, other control characters `\u00xx`.
pub(crate) fn string(out: &mut String, s: &str) {
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
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(v: &Value, numbers: Numbers, indent: Option<usize>) -> String {
        let mut out = String::new();
        write(&mut out, v, numbers, indent).unwrap();
        out
    }

    #[test]
    fn maps_sort_and_html_characters_escape() {
        let v = json!({"b": [1, 2.5, "x<y&z>"], "a": {}, "c": [], "d": null, "e": 1.0});
        assert_eq!(
            text(&v, Numbers::Decoded, None),
            r#"{"a":{},"b":[1,2.5,"x\u003cy\u0026z\u003e"],"c":[],"d":null,"e":1}"#
        );
        assert_eq!(
            text(
                &json!({"a": [1, {"b": true}], "c": {}}),
                Numbers::Decoded,
                Some(0)
            ),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": true\n    }\n  ],\n  \"c\": {}\n}"
        );
    }

    #[test]
    fn large_integers_depend_on_the_decoding() {
        let v = json!(12345678901234567890u64);
        assert_eq!(text(&v, Numbers::Decoded, None), "12345678901234567890");
        assert_eq!(text(&v, Numbers::Float64, None), "12345678901234567000");
    }

    #[test]
    fn floats_take_go_exponents() {
        let f = |x: f64| {
            let mut out = String::new();
            float(&mut out, x).map(|_| out)
        };
        assert_eq!(f(1e-7).unwrap(), "1e-7");
        assert_eq!(f(1.5e-10).unwrap(), "1.5e-10");
        assert_eq!(f(1e21).unwrap(), "1e+21");
        assert_eq!(f(2.5e300).unwrap(), "2.5e+300");
        assert_eq!(f(1e20).unwrap(), "100000000000000000000");
        assert_eq!(f(0.000001).unwrap(), "0.000001");
        assert_eq!(f(-0.0).unwrap(), "-0");
        assert_eq!(f(1.0).unwrap(), "1");
        assert_eq!(f(32000000000.0).unwrap(), "32000000000");
        assert_eq!(f(-2.25).unwrap(), "-2.25");
        assert!(f(f64::INFINITY).is_none());
    }

    #[test]
    fn control_characters_are_escaped() {
        let mut out = String::new();
        string(&mut out, "x<&>\u{2028}\u{8}\u{c}\u{1}\u{7f}é\t\n\"\\/");
        assert_eq!(
            out,
            "\"x\\u003c\\u0026\\u003e\\u2028\\b\\f\\u0001\u{7f}é\\t\\n\\\"\\\\/\""
        );
    }
}
