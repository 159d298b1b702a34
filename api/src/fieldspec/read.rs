//! Reading builtin configs as kustomize reads them: strings, booleans,
//! field specs and name back-references.

use super::*;
use crate::{resource, Error};
use serde_json::Value;

// ---------------------------------------------------------------------------
// Reading configs
// ---------------------------------------------------------------------------

/// A string-typed field of a builtin config, read as kustomize reads it: a
/// null or missing value is "", numbers and booleans become their text the
/// way Go's YAML-to-JSON conversion renders them (`1` → "1", `1.50` →
/// "1.5", `12345678.9` → "1.2345679e+07", `true` → "true"), and
/// sequences or mappings are errors.
pub fn config_string(value: &Value) -> Result<String, Error> {
    match value {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(go_number_text(n)),
        other => Err(Error::new(format!(
            "json: cannot unmarshal {} into Go value of type string",
            resource::go_json_type(other)
        ))),
    }
}

/// A string-typed field `key` of config object `config` (see [`config_string`]).
pub fn config_str_field(config: &Value, key: &str) -> Result<String, Error> {
    config
        .get(key)
        .map(config_string)
        .transpose()
        .map_err(|e| e.context(format!("field {key}")))
        .map(Option::unwrap_or_default)
}

/// A `[]FieldSpec` field `key` of a builtin config; None when absent or null
/// (kustomize's nil slice). Unknown keys inside a spec are ignored, as the
/// builtin plugins decode their configs leniently.
pub fn config_field_specs(config: &Value, key: &str) -> Result<Option<Vec<FieldSpec>>, Error> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| read_field_spec(item, false))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
            .map_err(|e| e.context(format!("field {key}"))),
        Some(other) => Err(Error::new(format!(
            "json: cannot unmarshal {} into Go struct field .{key} of type []types.FieldSpec",
            resource::go_json_type(other)
        ))),
    }
}

/// The text Go gives a YAML number decoded into a string field: integers as
/// decimals; floats are first printed as JSON (so integral ones below 1e21
/// come back as integers) and otherwise formatted as `%g` of a float32.
pub(super) fn go_number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.fract() == 0.0 && f.abs() < 1e21 {
        // 2^63 and 2^64 bound the integer types Go tries before float.
        let two_63 = -(i64::MIN as f64);
        if (-two_63..two_63).contains(&f) {
            return (f as i64).to_string();
        }
        // `u64::MAX as f64` rounds to 2^64.
        if (0.0..u64::MAX as f64).contains(&f) {
            return (f as u64).to_string();
        }
    }
    format_float32_g(f)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest digits that
/// identify the float32, in exponent form when the exponent is below -4 or
/// at least 6 (exponent with a sign and at least two digits).
pub(super) fn format_float32_g(f: f64) -> String {
    let x = f as f32;
    if x == 0.0 {
        return "0".into();
    }
    // Rust's `{:e}` prints the shortest round-trip digits: "1.2345679e7".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let nd = digits.len() as i64;
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        out.push(digits[0] as char);
        if nd > 1 {
            out.push('.');
            out.extend(digits[1..].iter().map(|&d| d as char));
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
    } else {
        // Decimal point after `dp` digits.
        let dp = exp + 1;
        let digit = |i: i64| -> char {
            if i >= 0 && i < nd {
                digits[i as usize] as char
            } else {
                '0'
            }
        };
        if dp > 0 {
            (0..dp).for_each(|i| out.push(digit(i)));
        } else {
            out.push('0');
        }
        let frac = (nd - dp).max(0);
        if frac > 0 {
            out.push('.');
            (0..frac).for_each(|i| out.push(digit(dp + i)));
        }
    }
    out
}

/// A list-valued `configurations:` key: null is empty, else a sequence.
pub(super) fn parse_list<T>(
    value: &Value,
    key: &str,
    item: fn(&Value) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items.iter().map(item).collect(),
        other => Err(Error::new(format!(
            "json: cannot unmarshal {} into Go struct field TransformerConfig.{key}",
            resource::go_json_type(other)
        ))),
    }
}

/// One field spec of a `configurations:` file: unknown keys are errors.
pub(super) fn parse_field_spec(value: &Value) -> Result<FieldSpec, Error> {
    read_field_spec(value, true)
}

pub(super) fn read_field_spec(value: &Value, strict: bool) -> Result<FieldSpec, Error> {
    let map = match value {
        // Go decodes a null element to the zero FieldSpec.
        Value::Null => return Ok(FieldSpec::default()),
        Value::Object(map) => map,
        other => {
            return Err(Error::new(format!(
                "json: cannot unmarshal {} into Go value of type types.FieldSpec",
                resource::go_json_type(other)
            )))
        }
    };
    let mut spec = FieldSpec::default();
    for (key, val) in map {
        match key.as_str() {
            "group" => spec.group = config_string(val)?,
            "version" => spec.version = config_string(val)?,
            "kind" => spec.kind = config_string(val)?,
            "path" => spec.path = config_string(val)?,
            "create" => spec.create = read_bool(val, "create")?,
            _ if strict => return Err(Error::new(format!("json: unknown field \"{key}\""))),
            _ => {}
        }
    }
    Ok(spec)
}

/// A boolean config field as Go decodes it: JSON booleans only, null is
/// false, anything else is an error naming `key`.
pub fn read_bool(value: &Value, key: &str) -> Result<bool, Error> {
    match value {
        Value::Null => Ok(false),
        Value::Bool(b) => Ok(*b),
        other => Err(Error::new(format!(
            "json: cannot unmarshal {} into Go struct field .{key} of type bool",
            resource::go_json_type(other)
        ))),
    }
}

/// One `nameReference:` entry of a `configurations:` file.
pub(super) fn parse_name_back_reference(value: &Value) -> Result<NameBackReference, Error> {
    let map = match value {
        Value::Null => return Ok(NameBackReference::default()),
        Value::Object(map) => map,
        other => {
            return Err(Error::new(format!(
                "json: cannot unmarshal {} into Go value of type builtinconfig.NameBackReferences",
                resource::go_json_type(other)
            )))
        }
    };
    let mut nbr = NameBackReference::default();
    for (key, val) in map {
        match key.as_str() {
            "group" => nbr.group = config_string(val)?,
            "version" => nbr.version = config_string(val)?,
            "kind" => nbr.kind = config_string(val)?,
            "fieldSpecs" => nbr.field_specs = parse_list(val, key, parse_field_spec)?,
            _ => return Err(Error::new(format!("json: unknown field \"{key}\""))),
        }
    }
    Ok(nbr)
}

// ---------------------------------------------------------------------------
// The embedded default tables
// ---------------------------------------------------------------------------
