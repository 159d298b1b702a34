//! Substitution: replacing `$(NAME)` references in the fields the
//! `varReference` specs name, with kustomize's escapes and number formats.

use super::vars::VarValue;
use crate::selecting::field_walk::walk;
use base64::Engine as _;
use kustom_api::fieldspec::{split_path, FieldSpec};
use kustom_api::{Error, ResId, Value};
use std::collections::HashMap;

/// Replaces `$(NAME)` references and counts which vars were used.
pub(super) struct Substituter<'a> {
    pub(super) values: &'a HashMap<String, VarValue>,
    pub(super) used: HashMap<String, usize>,
}

impl Substituter<'_> {
    /// Substitute in every field of `obj` that `spec` names.
    pub(super) fn apply_spec(&mut self, obj: &mut Value, spec: &FieldSpec) -> Result<(), Error> {
        if !spec.applies_to_object(obj) {
            return Ok(());
        }
        let id = ResId::of(obj);
        let path = split_path(&spec.path);
        walk(obj, &path, &mut |field| self.substitute_field(field))
            .map_err(|e| e.context(format!("considering field '{}' of object {id}", spec.path)))
    }

    /// The field the spec names: a string, the string values of a map, or
    /// the items of a sequence of strings.
    fn substitute_field(&mut self, node: &mut Value) -> Result<(), Error> {
        match node {
            Value::String(s) => {
                *node = self.expand(s);
                Ok(())
            }
            Value::Object(map) => {
                for v in map.values_mut() {
                    if let Value::String(s) = v {
                        *v = self.expand(s);
                    }
                }
                Ok(())
            }
            Value::Array(items) => {
                for item in items {
                    let Value::String(s) = item else {
                        return Err(Error::new("invalid value type expect a string"));
                    };
                    *item = self.expand(s);
                }
                Ok(())
            }
            // Null, numbers and booleans hold no references.
            _ => Ok(()),
        }
    }

    /// The value of `$(name)`, counting the use; None for an unknown or
    /// structured var (the reference then stays as written).
    fn value_of(&mut self, name: &str) -> Option<&VarValue> {
        let v = self.values.get(name)?;
        if *v == VarValue::Structured {
            tracing::info!("var {name}: a mapping or sequence cannot replace $({name})");
            return None;
        }
        *self.used.entry(name.to_string()).or_insert(0) += 1;
        Some(v)
    }

    /// Expand references in one string. A string that is exactly one
    /// known reference takes the var's value with its type; otherwise the
    /// result is a string. `$$` is an escaped `$`; `$(` without a closing
    /// `)` and `$` before anything else stay as written.
    pub(super) fn expand(&mut self, input: &str) -> Value {
        if let Some(name) = whole_reference(input) {
            let typed = self.value_of(name).and_then(VarValue::to_json);
            return typed.unwrap_or_else(|| Value::String(input.to_string()));
        }
        let bytes = input.as_bytes();
        let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b != b'$' || i + 1 == bytes.len() {
                out.push(b);
                i += 1;
                continue;
            }
            match bytes[i + 1] {
                b'$' => {
                    out.push(b'$');
                    i += 2;
                }
                b'(' => match input[i + 2..].find(')') {
                    Some(len) => {
                        let name = &input[i + 2..i + 2 + len];
                        match self.value_of(name).and_then(VarValue::to_text) {
                            Some(text) => out.extend_from_slice(text.as_bytes()),
                            None => out.extend_from_slice(&bytes[i..i + 3 + len]),
                        }
                        i += 3 + len;
                    }
                    None => {
                        out.extend_from_slice(b"$(");
                        i += 2;
                    }
                },
                other => {
                    // kustomize copies the next *byte* as if it were a code
                    // point: ASCII passes through; the lead byte of a
                    // multi-byte character becomes its Latin-1 look-alike,
                    // leaving the continuation bytes dangling.
                    out.push(b'$');
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(char::from(other).encode_utf8(&mut buf).as_bytes());
                    i += 2;
                }
            }
        }
        match String::from_utf8(out) {
            Ok(s) => Value::String(s),
            // kustomize's YAML encoder writes a string that is not UTF-8 as
            // base64; that text is what its output shows.
            Err(e) => {
                Value::String(base64::engine::general_purpose::STANDARD.encode(e.into_bytes()))
            }
        }
    }
}

/// The name in a string that is exactly `$(name)`.
pub(super) fn whole_reference(s: &str) -> Option<&str> {
    let name = s.strip_prefix("$(")?.strip_suffix(')')?;
    (!name.contains(')')).then_some(name)
}
