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
//! compact otherwise. Other text is written back by kyaml's YAML encoder
//! (`kustom_api::yaml::styled`): comments, styles, tags and key order kept,
//! indentation made two spaces, sequences flush with their keys, only the
//! first document, surrounding whitespace trimmed.

use super::copied::Copied;
use super::path::{self, NodeKind, Target};
use super::scalar::{self, Tag};
use super::yaml_text::{self, WalkError};
use crate::go_json;
use kustom_api::yaml::styled::{self, Node, NodeKind as StyledKind, ReadError};
use kustom_api::{err, Error, Value};
use tracing::debug;

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
    let first = text.trim().chars().next();
    let written = if matches!(first, Some('{' | '[')) {
        match set_in_json(&text, &parts[split..], value, create)? {
            Some(json) => json,
            None => return Ok(Outcome::NotEmbedded),
        }
    } else {
        let field = || {
            let path: Vec<String> = parts.iter().map(|p| p.replace('.', "\\.")).collect();
            format!(
                "unable to set field {} in replacement target",
                super::go_quote(&path.join("."))
            )
        };
        match set_in_yaml(&text, &parts[split..], value, create).map_err(|e| e.context(field()))? {
            Some(yaml) => yaml,
            None => return Ok(Outcome::NotEmbedded),
        }
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

/// Set the value in JSON text; the text written back, or `None` when
/// kustomize's attempt would fail.
fn set_in_json(
    text: &str,
    rest: &[String],
    value: &Copied,
    create: Option<NodeKind>,
) -> Result<Option<String>, Error> {
    let Some(mut document) = parse(text) else {
        return Ok(None);
    };
    let mut failed = false;
    let found = path::for_each_target(&mut document, rest, create, true, &[], &mut |t| {
        // Unlike the ordinary walk, delimiter options do not apply here.
        if set_node(t, value).is_err() {
            failed = true;
        }
        Ok(())
    });
    if failed || !matches!(found, Ok(n) if n > 0) {
        return Ok(None);
    }
    let pretty = text.contains('\n') && text.contains("  ");
    let mut json = String::new();
    Ok(go_json::write(
        &mut json,
        &document,
        go_json::Numbers::Decoded,
        pretty.then_some(0),
    )
    .map(|()| json))
}

/// Set the value in YAML text, as kyaml's nodes; the text written back, or
/// `None` when kustomize's attempt would fail.
fn set_in_yaml(
    text: &str,
    rest: &[String],
    value: &Copied,
    create: Option<NodeKind>,
) -> Result<Option<String>, Error> {
    let mut document = match styled::parse_document(text) {
        Ok(Some(document)) => document,
        // Nothing to walk (kyaml's node of no kind), or not YAML.
        Ok(None) | Err(ReadError::Invalid(_)) => return Ok(None),
        Err(ReadError::TooDeep) => {
            return Err(err!(
                "kustom does not follow YAML text nested deeper than {} levels",
                styled::MAX_DEPTH
            ))
        }
    };
    let Some(root) = document.root_mut() else {
        return Ok(None);
    };
    let found = match yaml_text::walk(root, rest, create) {
        Ok(found) => found,
        Err(WalkError::Kyaml(e)) => {
            debug!(error = %e, "the path does not go on into the YAML text");
            return Ok(None);
        }
        Err(WalkError::Fatal(e)) => return Err(e),
    };
    if found.is_empty() {
        return Ok(None);
    }
    // Targets are set once all are found; a node replaced whole takes what
    // was below it out of the tree.
    let mut replaced: Vec<Vec<usize>> = Vec::new();
    for target in &found {
        let Some(location) = &target.location else {
            continue;
        };
        if replaced.iter().any(|r| location.starts_with(r)) {
            continue;
        }
        let Some(node) = yaml_text::at_mut(root, location) else {
            continue;
        };
        if node.kind == StyledKind::Scalar {
            // A scalar keeps its tag and style and takes the text (none
            // for a mapping or a sequence).
            node.value = value.text().to_string();
        } else {
            *node = whole_node(value)?;
            replaced.push(location.clone());
        }
    }
    match styled::to_text(&document) {
        Ok(yaml) => Ok(Some(yaml.trim().to_string())),
        Err(e) => {
            debug!(error = %e.0, "kyaml could not write the YAML text back");
            Ok(None)
        }
    }
}

/// The node kustomize puts in place of a mapping or sequence inside YAML
/// text: the source's node itself. Of a scalar kustom has the tag and the
/// text, which is all of it when the source was written plain (and for a
/// `sourceValue`); a mapping or sequence would come with the source's key
/// order, styles and comments, which kustom does not keep.
fn whole_node(value: &Copied) -> Result<Node, Error> {
    match value {
        Copied::Scalar(tag, text) => Ok(Node {
            tag: tag.map(short_tag).unwrap_or_default().to_string(),
            ..Node::scalar(text)
        }),
        Copied::Node(_) => Err(err!(
            "a replacement would copy a mapping or sequence into YAML text, which kustomize \
             writes with the source field's own key order, styles and comments; kustom keeps \
             only the value, so it cannot give those bytes. Copy scalar fields instead, or \
             build this kustomization with kustomize"
        )),
    }
}

/// go-yaml's short tag of a scalar tag.
fn short_tag(tag: Tag) -> &'static str {
    match tag {
        Tag::Str => "!!str",
        Tag::Int => "!!int",
        Tag::Float => "!!float",
        Tag::Bool => "!!bool",
        Tag::Null => "!!null",
    }
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
