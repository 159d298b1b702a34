//! What both readers share (the general one in `tree.rs`, the direct one
//! in `direct.rs`): the rules in force, how deep collections may nest, and
//! how a scalar as written is typed and becomes a key or a value.

use serde_json::{Number, Value};

use super::error::YamlError;
use super::resolve::{resolve_plain, Resolved, Rules};

thread_local! {
    /// Set while [`parse_kustomization`] runs: the reader is shared, and
    /// only scalar typing and the duplicate-key check differ.
    pub(super) static LENIENT_V2: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

thread_local! {
    /// Set while [`parse_stream_as_patch`] runs.
    pub(super) static NULL_ANNOTATIONS_KEPT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
pub(super) fn rules() -> Rules {
    if LENIENT_V2.with(|m| m.get()) {
        Rules::V2
    } else {
        Rules::V3
    }
}

/// Deepest nesting of collections accepted. go-yaml allows 10000 levels,
/// but values this deep would overflow the stack of the (recursive) JSON
/// writer and destructor; real resources are nowhere near.
pub const MAX_NESTING: usize = 1000;

/// A scalar as written: text, whether it was plain, its (short) tag, its line.
#[derive(Debug, Clone)]
pub(super) struct Scalar {
    pub(super) text: String,
    pub(super) plain: bool,
    /// Short form (`!!int`, `!foo`); None when absent or the non-specific `!`.
    pub(super) tag: Option<String>,
    pub(super) line: usize,
}

/// The short form of a resolved tag; None for the non-specific `!`, which
/// go-yaml treats exactly like no tag at all.
pub(super) fn short_tag(tag: &str) -> Option<String> {
    if tag == "!" || tag.is_empty() {
        return None;
    }
    Some(match tag.strip_prefix("tag:yaml.org,2002:") {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_string(),
    })
}

/// How a scalar is typed, given its style and tag.
enum Typed {
    Resolved(Resolved),
    /// `!!binary`: the base64-decoded text.
    Binary(String),
}

fn type_scalar(s: &Scalar) -> Result<Typed, YamlError> {
    let tag = s.tag.as_deref();
    match tag {
        // Quoted and block scalars are strings unless a tag says otherwise.
        None if !s.plain => Ok(Typed::Resolved(Resolved::Str)),
        None => Ok(Typed::Resolved(resolve_plain(&s.text, rules(), true))),
        Some("!!str") => Ok(Typed::Resolved(Resolved::Str)),
        Some("!!binary") => decode_base64(&s.text)
            .map(|b| Typed::Binary(go_string_from_bytes(&b)))
            .ok_or_else(|| YamlError::at(s.line, "!!binary value contains invalid base64 data")),
        Some(t @ ("!!int" | "!!float" | "!!bool" | "!!null" | "!!timestamp")) => {
            let r = resolve_plain(&s.text, rules(), t == "!!timestamp");
            if r.tag() == t {
                return Ok(Typed::Resolved(r));
            }
            // go-yaml converts a (signed) integer to a float for `!!float`,
            // but nothing else.
            if let ("!!float", Resolved::Int(i)) = (t, &r) {
                return Ok(Typed::Resolved(Resolved::Float(*i as f64)));
            }
            Err(YamlError::at(
                s.line,
                format!("cannot decode {} `{}` as a {}", r.tag(), s.text, t),
            ))
        }
        // Unknown and local tags: go-yaml keeps the text as a string.
        Some(_) => Ok(Typed::Resolved(Resolved::Str)),
    }
}

pub(super) fn scalar_value(s: Scalar) -> Result<Value, YamlError> {
    Ok(match type_scalar(&s)? {
        Typed::Binary(text) => Value::String(text),
        Typed::Resolved(r) => match r {
            Resolved::Null => Value::Null,
            Resolved::Bool(b) => Value::Bool(b),
            Resolved::Int(i) => Value::Number(i.into()),
            Resolved::Uint(u) => Value::Number(u.into()),
            Resolved::Float(f) => match Number::from_f64(f) {
                Some(n) => Value::Number(n),
                None => {
                    return Err(YamlError::at(
                        s.line,
                        format!(
                            "value {} cannot be represented in JSON (json: unsupported value: {})",
                            s.text,
                            go_float_name(f)
                        ),
                    ))
                }
            },
            Resolved::Timestamp(t) => {
                Value::String(t.to_rfc3339().map_err(|e| YamlError::at(s.line, e))?)
            }
            Resolved::Str => Value::String(s.text),
        },
    })
}

fn go_float_name(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "+Inf"
    } else {
        "-Inf"
    }
}

/// A plain `<<` (or an explicitly `!!merge`-tagged key).
pub(super) fn is_merge_key(s: &Scalar) -> bool {
    match s.tag.as_deref() {
        None => s.plain && s.text == "<<",
        Some(t) => t == "!!merge",
    }
}

/// Keys of the document's top mapping: kyaml decodes it into
/// `map[string]interface{}`, which takes every scalar key's text as is
/// (`1: a` gives "1", `0x1F: b` gives "0x1F").
pub(super) fn root_key(s: Scalar) -> Result<String, YamlError> {
    match type_scalar(&s)? {
        Typed::Binary(text) => Ok(text),
        Typed::Resolved(Resolved::Null) => Err(YamlError::at(
            s.line,
            format!("mapping key {} is null", go_quote(&s.text)),
        )),
        Typed::Resolved(_) => Ok(s.text),
    }
}

/// Keys of nested mappings: go-yaml builds a `map[string]interface{}` only
/// when every key is a string; otherwise the map cannot be encoded as JSON
/// and kustomize fails.
pub(super) fn nested_key(s: Scalar) -> Result<String, YamlError> {
    match type_scalar(&s)? {
        Typed::Resolved(Resolved::Str) if matches!(s.tag.as_deref(), None | Some("!!str")) => {
            Ok(s.text)
        }
        _ => Err(YamlError::at(
            s.line,
            format!(
                "mapping key {} is not a string; kustomize cannot encode it as JSON \
                 (json: unsupported type: map[interface {{}}]interface {{}})",
                go_quote(&s.text)
            ),
        )),
    }
}

/// Go's `%q`-like quoting for messages.
pub(super) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Standard base64 with padding; CR and LF are skipped (Go's
/// `base64.StdEncoding.DecodeString`).
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let clean: Vec<u8> = text.bytes().filter(|&c| c != b'\r' && c != b'\n').collect();
    if !clean.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    let quads = clean.len() / 4;
    for (qi, quad) in clean.chunks(4).enumerate() {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && qi + 1 != quads) {
            return None;
        }
        let mut acc = 0u32;
        for &c in &quad[..4 - pad] {
            acc = (acc << 6) | sextet(c)?;
        }
        acc <<= 6 * pad as u32;
        let bytes = [(acc >> 16) as u8, (acc >> 8) as u8, acc as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

/// Bytes as Go's JSON encoder would print them as a string: each byte that
/// is not part of valid UTF-8 becomes U+FFFD.
fn go_string_from_bytes(mut b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    loop {
        match std::str::from_utf8(b) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let good = e.valid_up_to();
                // valid_up_to bytes are valid UTF-8 by definition.
                out.push_str(std::str::from_utf8(&b[..good]).unwrap_or_default());
                out.push('\u{FFFD}');
                b = &b[good + 1..];
            }
        }
    }
}

/// A plain scalar that YAML reads as null.
pub(super) fn is_plain_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_go_strings() {
        assert_eq!(decode_base64("aGVsbG8="), Some(b"hello".to_vec()));
        assert_eq!(decode_base64("aGVs\nbG8="), Some(b"hello".to_vec()));
        assert_eq!(decode_base64("aGVsbG8"), None);
        assert_eq!(decode_base64("aG=sbG8="), None);
        assert_eq!(go_string_from_bytes(b"a\xffb\xc3"), "a\u{FFFD}b\u{FFFD}");
    }
}
