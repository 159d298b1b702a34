//! Parsing JSON text as deep as the YAML reader accepts.
//!
//! serde_json stops at 128 levels of nesting to protect the stack, but
//! kustomize builds resources and patches nested far deeper, and every
//! resource crosses a process boundary as JSON text. Text is parsed with
//! serde_json's limit first; only text that reaches it is measured (a byte
//! scan) against [`MAX_DEPTH`] and parsed again with the limit lifted: deep
//! input builds, deeper input fails cleanly instead of overflowing the
//! stack, and the usual shallow text is not scanned twice.

use serde::de::DeserializeOwned;

/// Deepest JSON nesting accepted: the YAML reader's limit plus room for the
/// envelopes a resource travels in (a `ResourceList`, a patch wrapper).
pub const MAX_DEPTH: usize = crate::yaml::MAX_NESTING + 16;

/// `serde_json::from_str`, accepting nesting up to [`MAX_DEPTH`].
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    match serde_json::from_str(text) {
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {}
        parsed => return parsed,
    }
    if let Some(depth) = too_deep(text.as_bytes()) {
        return Err(<serde_json::Error as serde::de::Error>::custom(format!(
            "JSON nested more than {depth} levels deep"
        )));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// `Some(MAX_DEPTH)` when brackets outside strings nest deeper than it.
/// Malformed text is left to the parser to report.
fn too_deep(bytes: &[u8]) -> Option<usize> {
    // Shallow text cannot be too deep: skip the scan.
    if bytes.len() <= MAX_DEPTH {
        return None;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in bytes {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(MAX_DEPTH);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn nested(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn parses_beyond_serde_jsons_limit_up_to_max_depth() {
        assert!(serde_json::from_str::<Value>(&nested(200)).is_err());
        let v: Value = from_str(&nested(MAX_DEPTH)).unwrap();
        assert!(v.is_array());
        let e = from_str::<Value>(&nested(MAX_DEPTH + 1)).unwrap_err();
        assert!(e.to_string().contains("nested more than"), "{e}");
    }

    #[test]
    fn brackets_in_strings_do_not_count() {
        let text = format!("{{\"a\":\"{}\\\"{}\"}}", "[".repeat(5000), "{".repeat(5000));
        let v: Value = from_str(&text).unwrap();
        assert!(v["a"].as_str().unwrap().len() > 10000);
        assert!(from_str::<Value>("[1] x").is_err());
    }
}
