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
use crate::go_json;
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
        let mut json = String::new();
        match go_json::write(
            &mut json,
            &document,
            go_json::Numbers::Decoded,
            pretty.then_some(0),
        ) {
            Some(()) => json,
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
