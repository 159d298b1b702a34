//! Field paths of replacements: how a path string is split, how a source
//! path is looked up, and how target paths are matched (and created).
//!
//! kustomize uses two different walkers. A source `fieldPath` goes through
//! kyaml's `PathGetter`: list selectors compare exactly and return the first
//! match, `-` means the last element and `*` is refused. A target path goes
//! through kyaml's `PathMatcher`: `[key=value]` is an *unanchored regular
//! expression* matched against every element, `*` visits every element,
//! every match is a target, and `create: true` builds what is missing.
//! Both are reproduced here over JSON values, with their error texts.

use super::scalar;
use super::yaml_text;
use crate::selecting::path_elements::{self, atoi, is_index, is_list_selector, split_selector};
use kustom_api::{err, Error, Value};
use regex::Regex;

/// Split a field path the way kustomize's `SmarterPathSplitter` does: at
/// dots, except escaped ones (`a\.b`) and dots inside brackets. A bracketed
/// part holding `=` stays a list selector (`[name=a.b]`); any other part
/// that had to be re-joined loses its brackets (`[a.b/c]` is the key `a.b/c`).
pub(crate) fn split(path: &str) -> Vec<String> {
    let raw = split_escaped(path);
    let mut parts = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let part = &raw[i];
        if part.starts_with('[') && !part.ends_with(']') {
            let mut joined = part.clone();
            while i + 1 < raw.len() {
                i += 1;
                joined.push('.');
                joined.push_str(&raw[i]);
                if raw[i].ends_with(']') {
                    break;
                }
            }
            if joined.contains('=') {
                parts.push(joined);
            } else {
                parts.push(joined.trim_matches(|c| c == '[' || c == ']').to_string());
            }
        } else {
            parts.push(part.clone());
        }
        i += 1;
    }
    parts
}

/// Split at dots, gluing back parts whose dot was escaped with a backslash;
/// a single leading dot is allowed (`.spec.replicas`).
fn split_escaped(path: &str) -> Vec<String> {
    let mut pieces: Vec<&str> = path.split('.').collect();
    if pieces.len() > 1 && pieces[0].is_empty() {
        pieces.remove(0);
    }
    let mut out: Vec<String> = Vec::with_capacity(pieces.len());
    for piece in pieces {
        match out.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push('.');
                last.push_str(piece);
            }
            _ => out.push(piece.to_string()),
        }
    }
    out
}

/// kyaml's "wrong node kind" error, with the node printed as YAML.
fn wrong_kind(expected: &str, node: &Value) -> Error {
    path_elements::wrong_kind(expected, node, &render(node))
}

/// The text a YAML scalar node carries (kyaml's `Node.Value`); empty for
/// mappings and sequences.
fn node_text(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Object(_) | Value::Array(_) => String::new(),
        other => scalar::tag_and_text(other)
            .map(|(_, t)| t)
            .unwrap_or_default(),
    }
}

/// One step of a concrete location inside a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// The value at a concrete location, if it still exists.
pub(crate) fn at<'a>(root: &'a Value, path: &[Step]) -> Option<&'a Value> {
    path.iter().try_fold(root, |node, step| match step {
        Step::Key(k) => node.as_object()?.get(k),
        Step::Index(i) => node.as_array()?.get(*i),
    })
}

/// The value at a concrete location, to change it.
pub(crate) fn at_mut<'a>(root: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    path.iter().try_fold(root, |node, step| match step {
        Step::Key(k) => node.as_object_mut()?.get_mut(k),
        Step::Index(i) => node.as_array_mut()?.get_mut(*i),
    })
}

/// Look up a source field path (kyaml's `PathGetter` without creation):
/// the value and its concrete location, or `Ok(None)` when some step does
/// not exist.
pub(crate) fn lookup<'a>(
    root: &'a Value,
    parts: &[String],
) -> Result<Option<(&'a Value, Vec<Step>)>, Error> {
    let mut node = root;
    let mut path = Vec::new();
    // PathGetter trims every part and skips empty ones.
    for part in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        let next = if let Some(index) = atoi(part) {
            if index < 0 {
                return Err(err!("array index {index} cannot be negative"));
            }
            let i = usize::try_from(index).unwrap_or(usize::MAX);
            elements(node)?.and_then(|items| items.get(i).map(|v| (v, Step::Index(i))))
        } else if part == "-" {
            let last = elements(node)?.and_then(|items| items.iter().enumerate().next_back());
            match last {
                Some((i, v)) => Some((v, Step::Index(i))),
                // kustomize indexes an empty list with -1 here and crashes.
                None => return Err(err!("panic: runtime error: index out of range [-1]")),
            }
        } else if part == "*" {
            return Err(err!("wildcard is not supported in PathGetter"));
        } else if is_list_selector(part) {
            let (key, value) = split_selector(part)?;
            first_element_with(node, key, value)?
        } else {
            match node {
                Value::Null => None,
                Value::Object(map) => map.get(part).map(|v| (v, Step::Key(part.to_string()))),
                other => return Err(wrong_kind("MappingNode", other)),
            }
        };
        match next {
            Some((n, step)) => {
                node = n;
                path.push(step);
            }
            None => return Ok(None),
        }
    }
    Ok(Some((node, path)))
}

/// The elements of a sequence; a null node has none; `None` stands for an
/// empty element list only when the node is null.
fn elements(node: &Value) -> Result<Option<&Vec<Value>>, Error> {
    match node {
        Value::Array(items) => Ok(Some(items)),
        Value::Null => Ok(None),
        other => Err(wrong_kind("SequenceNode", other)),
    }
}

/// kyaml's `ElementMatcher`: the first element whose text is `value`
/// (`key` empty), or the first mapping whose field `key` has text `value`.
fn first_element_with<'a>(
    node: &'a Value,
    key: &str,
    value: &str,
) -> Result<Option<(&'a Value, Step)>, Error> {
    let Some(items) = elements(node)? else {
        return Ok(None);
    };
    let found = items.iter().position(|item| {
        if key.is_empty() {
            node_text(item) == value
        } else {
            item.as_object()
                .and_then(|m| m.get(key))
                .is_some_and(|v| node_text(v) == value)
        }
    });
    Ok(found.and_then(|i| items.get(i).map(|v| (v, Step::Index(i)))))
}

/// The kind of node `create: true` makes for the last path part: that of
/// the source value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeKind {
    Scalar,
    Map,
    Seq,
}

impl NodeKind {
    /// The kind of a JSON value.
    pub(crate) fn of(value: &Value) -> NodeKind {
        match value {
            Value::Object(_) => NodeKind::Map,
            Value::Array(_) => NodeKind::Seq,
            _ => NodeKind::Scalar,
        }
    }
}

/// One matched target field, handed to the caller to be set.
pub(crate) struct Target<'a> {
    /// The field's value in the resource.
    pub value: &'a mut Value,
    /// Whether the field was just created and so carries no YAML tag yet
    /// (its placeholder value is null).
    pub created: bool,
    /// Where the field is in the resource; `None` for a field created where
    /// kustomize never writes it out (under a null value).
    pub path: Option<Vec<Step>>,
}

/// Match a target field path (kyaml's `PathMatcher`), creating missing
/// parts when `create` is set, and hand every matched field to `visit`.
/// `into_strings`: a field holding text with more of the path to go is
/// read as YAML and walked into (kyaml v0.21's matcher, [`yaml_text`]);
/// what is matched there is a copy, so setting it changes nothing.
/// `empty_nulls`: where the resource has values written empty (`key:`),
/// which kyaml reads as empty text. Returns how many fields were visited.
pub(crate) fn for_each_target(
    root: &mut Value,
    parts: &[String],
    create: Option<NodeKind>,
    into_strings: bool,
    empty_nulls: &[Vec<Step>],
    visit: &mut dyn FnMut(Target<'_>) -> Result<(), Error>,
) -> Result<usize, Error> {
    Matcher {
        create,
        into_strings,
        empty_nulls,
        visit,
        path: Vec::new(),
        detached: 0,
    }
    .walk(root, false, parts)
}

struct Matcher<'v> {
    create: Option<NodeKind>,
    into_strings: bool,
    empty_nulls: &'v [Vec<Step>],
    visit: &'v mut dyn FnMut(Target<'_>) -> Result<(), Error>,
    /// The concrete location of the node being walked.
    path: Vec<Step>,
    /// Above zero while walking nodes that are not part of the resource.
    detached: usize,
}

impl Matcher<'_> {
    /// Walk into a child of the current node.
    fn child(
        &mut self,
        node: &mut Value,
        fresh: bool,
        step: Step,
        rest: &[String],
    ) -> Result<usize, Error> {
        self.path.push(step);
        let found = self.walk(node, fresh, rest);
        self.path.pop();
        found
    }

    /// Walk into a node kustomize builds but never writes out.
    fn detached(&mut self, node: &mut Value, fresh: bool, rest: &[String]) -> Result<usize, Error> {
        self.detached += 1;
        let found = self.walk(node, fresh, rest);
        self.detached -= 1;
        found
    }

    /// Walk on into the YAML text of a field: every match is in a copy,
    /// handed to the caller for its kind only.
    fn walk_held_text(&mut self, text: &str, rest: &[String]) -> Result<usize, Error> {
        let found = yaml_text::walk_text(text, rest, self.create).map_err(|e| e.into_error())?;
        self.detached += 1;
        let mut result = Ok(());
        for target in &found {
            let mut copy = if target.scalar {
                Value::String(String::new())
            } else {
                Value::Object(Default::default())
            };
            result = self.hit(&mut copy, false, None);
            if result.is_err() {
                break;
            }
        }
        self.detached -= 1;
        result.map(|()| found.len())
    }

    /// Hand one matched field to the caller.
    fn hit(&mut self, value: &mut Value, created: bool, step: Option<Step>) -> Result<(), Error> {
        let path = (self.detached == 0).then(|| {
            let mut p = self.path.clone();
            p.extend(step);
            p
        });
        (self.visit)(Target {
            value,
            created,
            path,
        })
    }

    /// `fresh`: `node` was created by this walk as an untagged empty scalar
    /// (represented by a null placeholder), which kyaml does not treat as null.
    fn walk(&mut self, node: &mut Value, fresh: bool, parts: &[String]) -> Result<usize, Error> {
        let Some((part, rest)) = parts.split_first() else {
            self.hit(node, fresh, None)?;
            return Ok(1);
        };
        if is_index(part) {
            self.index(node, fresh, part, rest)
        } else if is_list_selector(part) {
            self.select(node, fresh, part, rest)
        } else if part == "*" {
            self.every(node, fresh, rest)
        } else {
            self.field(node, fresh, part, rest)
        }
    }

    /// The node `create` makes for a part followed by `rest`: a sequence
    /// before an index or list selector, the source's kind at the end (or
    /// before an empty part), a mapping otherwise. Returns it and its freshness.
    fn new_node(&self, rest: &[String], create: NodeKind) -> (Value, bool) {
        let next = rest.first().map(String::as_str).unwrap_or("");
        let kind = if is_list_selector(next) || is_index(next) {
            NodeKind::Seq
        } else if next.is_empty() {
            create
        } else {
            NodeKind::Map
        };
        match kind {
            NodeKind::Seq => (Value::Array(Vec::new()), false),
            NodeKind::Map => (Value::Object(Default::default()), false),
            NodeKind::Scalar => (Value::Null, true),
        }
    }

    /// A node kyaml would see as a scalar (fresh placeholders included).
    fn scalar_view(node: &Value, fresh: bool) -> Option<Value> {
        if fresh {
            Some(Value::String(String::new()))
        } else if matches!(node, Value::Object(_) | Value::Array(_) | Value::Null) {
            None
        } else {
            Some(node.clone())
        }
    }

    fn field(
        &mut self,
        node: &mut Value,
        fresh: bool,
        part: &str,
        rest: &[String],
    ) -> Result<usize, Error> {
        if node.is_null() && !fresh {
            let Some(create) = self.create else {
                return Ok(0);
            };
            // kyaml appends the new field to the null node's content, which
            // is never written out: the walk goes on, with no visible effect.
            let (mut detached, fresh) = self.new_node(rest, create);
            return self.detached(&mut detached, fresh, rest);
        }
        if part.is_empty() {
            // A field matcher without a name compares a scalar's text with "".
            let Some(scalar) = Self::scalar_view(node, fresh) else {
                return Err(wrong_kind("ScalarNode", node));
            };
            if node_text(&scalar).is_empty() {
                return self.walk(node, fresh, rest);
            }
            let Some(create) = self.create else {
                return Ok(0);
            };
            // kyaml overwrites the scalar with the new empty node and walks
            // on in a copy of it.
            *node = Value::Null;
            let (mut detached, fresh) = self.new_node(rest, create);
            return self.detached(&mut detached, fresh, rest);
        }
        if let Some(scalar) = Self::scalar_view(node, fresh) {
            return Err(wrong_kind("MappingNode", &scalar));
        }
        let Value::Object(map) = node else {
            return Err(wrong_kind("MappingNode", node));
        };
        let step = Step::Key(part.to_string());
        if let Some(child) = map.get_mut(part) {
            if self.into_strings && !rest.is_empty() {
                // kyaml reads the text of any scalar; a null written as
                // `null` or `~` is not walked into, but one written empty is
                // empty text.
                let text = if child.is_null() {
                    let mut here = self.path.clone();
                    here.push(step.clone());
                    (self.detached == 0 && self.empty_nulls.contains(&here)).then(String::new)
                } else {
                    scalar::tag_and_text(child).map(|(_, t)| t)
                };
                if let Some(text) = text {
                    return self.walk_held_text(&text, rest);
                }
            }
            return self.child(child, false, step, rest);
        }
        let Some(create) = self.create else {
            return Ok(0);
        };
        let (new, fresh) = self.new_node(rest, create);
        let child = map.entry(part.to_string()).or_insert(new);
        self.child(child, fresh, step, rest)
    }

    fn index(
        &mut self,
        node: &mut Value,
        fresh: bool,
        part: &str,
        rest: &[String],
    ) -> Result<usize, Error> {
        let index = atoi(part)
            .and_then(|i| usize::try_from(i).ok())
            .ok_or_else(|| err!("invalid list index {part:?}"))?;
        if let Some(scalar) = Self::scalar_view(node, fresh) {
            return Err(wrong_kind("SequenceNode", &scalar));
        }
        match node {
            Value::Array(items) => {
                let mut created = false;
                if items.len() == index {
                    if let Some(create) = self.create {
                        let (new, fresh) = self.new_node(rest, create);
                        items.push(new);
                        created = fresh;
                    }
                }
                let len = items.len();
                match items.get_mut(index) {
                    Some(item) => self.child(item, created, Step::Index(index), rest),
                    None => Err(err!(
                        "index {index} specified but only {len} elements found"
                    )),
                }
            }
            Value::Null => match self.create {
                // Appended to the null node's content: walked, never written.
                Some(create) if index == 0 => {
                    let (mut detached, fresh) = self.new_node(rest, create);
                    self.detached(&mut detached, fresh, rest)
                }
                _ => Err(err!("index {index} specified but only 0 elements found")),
            },
            other => Err(wrong_kind("SequenceNode", other)),
        }
    }

    fn select(
        &mut self,
        node: &mut Value,
        fresh: bool,
        part: &str,
        rest: &[String],
    ) -> Result<usize, Error> {
        let (key, pattern) = split_selector(part)?;
        if let Some(scalar) = Self::scalar_view(node, fresh) {
            return Err(wrong_kind("SequenceNode", &scalar));
        }
        let mut regex = None;
        let found = match node {
            Value::Array(items) => self.select_in(items, key, pattern, &mut regex, rest)?,
            Value::Null => 0,
            other => return Err(wrong_kind("SequenceNode", other)),
        };
        if found > 0 || self.create.is_none() {
            return Ok(found);
        }
        // Append an element that the selector should match, then search again.
        let new = if key.is_empty() {
            Value::String(pattern.to_string())
        } else {
            let mut m = serde_json::Map::new();
            m.insert(key.to_string(), Value::String(pattern.to_string()));
            Value::Object(m)
        };
        let again = match node {
            Value::Array(items) => {
                items.push(new);
                self.select_in(items, key, pattern, &mut regex, rest)?
            }
            // A null node takes the element into content never written out.
            _ => {
                let mut detached = vec![new];
                self.detached += 1;
                let found = self.select_in(&mut detached, key, pattern, &mut regex, rest);
                self.detached -= 1;
                found?
            }
        };
        if again == 0 {
            // kustomize appends and searches again forever, until its stack
            // overflows; stop at the first repetition instead.
            return Err(err!(
                "fatal error: stack overflow: the element created for {part} \
                 does not match {part} itself"
            ));
        }
        Ok(again)
    }

    /// Visit the elements matching a list selector; a primitive selector
    /// (`[=value]`) makes the element itself the target, ignoring the rest
    /// of the path, as kyaml does.
    fn select_in(
        &mut self,
        items: &mut [Value],
        key: &str,
        pattern: &str,
        regex: &mut Option<Regex>,
        rest: &[String],
    ) -> Result<usize, Error> {
        let mut found = 0;
        for (i, item) in items.iter_mut().enumerate() {
            let text = if key.is_empty() {
                render(item)
            } else {
                match item.as_object().and_then(|m| m.get(key)) {
                    Some(v) => render(v),
                    None => continue,
                }
            };
            // Go compiles the expression per element, so a bad one only
            // fails when there is an element to test.
            if regex.is_none() {
                *regex = Some(compile(pattern)?);
            }
            if !regex.as_ref().is_some_and(|r| r.is_match(text.trim())) {
                continue;
            }
            if key.is_empty() {
                self.hit(item, false, Some(Step::Index(i)))?;
                found += 1;
            } else {
                found += self.child(item, false, Step::Index(i), rest)?;
            }
        }
        Ok(found)
    }

    fn every(&mut self, node: &mut Value, fresh: bool, rest: &[String]) -> Result<usize, Error> {
        if let Some(scalar) = Self::scalar_view(node, fresh) {
            return Err(wrong_kind("SequenceNode", &scalar));
        }
        match node {
            Value::Array(items) => {
                let mut found = 0;
                for (i, item) in items.iter_mut().enumerate() {
                    found += self.child(item, false, Step::Index(i), rest)?;
                }
                Ok(found)
            }
            Value::Null => Ok(0),
            other => Err(wrong_kind("SequenceNode", other)),
        }
    }
}

/// Compile a list-selector pattern (Go RE2 syntax), with Go's wording for
/// syntax errors.
fn compile(pattern: &str) -> Result<Regex, Error> {
    kustom_api::go_regex::compile(pattern)
}

/// A node printed as kyaml prints it (block YAML, keys in document order,
/// sequences flush with their key), ending in a newline.
pub(crate) fn render(value: &Value) -> String {
    let mut out = String::new();
    for line in render_lines(value) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn render_lines(value: &Value) -> Vec<String> {
    match value {
        Value::Object(map) if !map.is_empty() => {
            let mut lines = Vec::new();
            for (k, v) in map {
                let key = render_scalar(&Value::String(k.clone()));
                match v {
                    Value::Object(m) if !m.is_empty() => {
                        lines.push(format!("{key}:"));
                        lines.extend(render_lines(v).into_iter().map(|l| format!("  {l}")));
                    }
                    Value::Array(a) if !a.is_empty() => {
                        lines.push(format!("{key}:"));
                        lines.extend(render_lines(v));
                    }
                    _ => lines.push(format!("{key}: {}", render_lines(v).concat())),
                }
            }
            lines
        }
        Value::Array(items) if !items.is_empty() => {
            let mut lines = Vec::new();
            for item in items {
                for (i, l) in render_lines(item).into_iter().enumerate() {
                    lines.push(if i == 0 {
                        format!("- {l}")
                    } else {
                        format!("  {l}")
                    });
                }
            }
            lines
        }
        Value::Object(_) => vec!["{}".to_string()],
        Value::Array(_) => vec!["[]".to_string()],
        scalar => vec![render_scalar(scalar)],
    }
}

/// A scalar as go-yaml v3 writes it: plain where that reads back the same,
/// quoted otherwise.
fn render_scalar(value: &Value) -> String {
    let Value::String(s) = value else {
        return node_text(value);
    };
    let reads_back = scalar::materialize(None, s).is_ok_and(|v| v.as_str() == Some(s));
    if reads_back && is_plain_safe(s) {
        return s.clone();
    }
    if !reads_back && is_plain_safe(s) {
        return format!("\"{s}\"");
    }
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// Whether a string may be written as a plain scalar without changing its
/// structure (indicators, separators, surrounding blanks, line breaks).
fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    // A leading indicator makes the scalar something else, except a dash
    // glued to what follows (`-jar`).
    let glued_dash = first == '-' && s.len() > 1 && !s.starts_with("- ");
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) && !glued_dash {
        return false;
    }
    !(s.starts_with(' ')
        || s.ends_with(' ')
        || s.ends_with(':')
        || s.contains(": ")
        || s.contains(" #")
        || s.chars().any(|c| c.is_control()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parts(p: &str) -> Vec<String> {
        split(p)
    }

    #[test]
    fn splitting_keeps_selectors_and_bracketed_keys_whole() {
        assert_eq!(parts("a.b.c"), ["a", "b", "c"]);
        assert_eq!(parts(".spec.replicas"), ["spec", "replicas"]);
        assert_eq!(
            parts("spec.containers.[name=com.foo.app].image"),
            ["spec", "containers", "[name=com.foo.app]", "image"]
        );
        assert_eq!(
            parts("metadata.annotations.[a.b/c]"),
            ["metadata", "annotations", "a.b/c"]
        );
        // A bracketed part without a dot is left as it is.
        assert_eq!(parts("data.[s]"), ["data", "[s]"]);
        assert_eq!(parts(r"labels.x\.y"), ["labels", "x.y"]);
        assert_eq!(parts("a..b"), ["a", "", "b"]);
    }

    #[test]
    fn lookup_follows_pathgetter_rules() {
        let doc = json!({"spec": {"list": [{"name": "app1", "v": 1}, {"name": "app", "v": 2}],
                                  "args": ["x", "y"], "s": "abc"}});
        let get = |p: &str| lookup(&doc, &parts(p)).map(|found| found.map(|(v, _)| v));
        // Exact, first match (no regular expression).
        assert_eq!(get("spec.list.[name=app].v").unwrap(), Some(&json!(2)));
        assert_eq!(get("spec.args.[=y]").unwrap(), Some(&json!("y")));
        assert_eq!(get("spec.args.-").unwrap(), Some(&json!("y")));
        assert_eq!(get("spec.list.1.v").unwrap(), Some(&json!(2)));
        assert_eq!(get("spec.list.5").unwrap(), None);
        assert_eq!(get("spec. s ").unwrap(), Some(&json!("abc")));
        assert_eq!(get("spec.nope.x").unwrap(), None);
        assert_eq!(
            get("spec.args.-1").unwrap_err().message,
            "array index -1 cannot be negative"
        );
        assert_eq!(
            get("spec.*").unwrap_err().message,
            "wildcard is not supported in PathGetter"
        );
        assert_eq!(
            get("spec.s.x").unwrap_err().message,
            "wrong node kind: expected MappingNode but got ScalarNode: node contents:\nabc\n"
        );
        assert!(get("spec.[s]")
            .unwrap_err()
            .message
            .contains("fieldName=fieldValue"));
    }

    fn collect(doc: &mut Value, p: &str, create: Option<NodeKind>) -> Result<Vec<Value>, Error> {
        let mut seen = Vec::new();
        for_each_target(doc, &parts(p), create, false, &[], &mut |t| {
            seen.push(t.value.clone());
            *t.value = json!("SET");
            Ok(())
        })?;
        Ok(seen)
    }

    #[test]
    fn target_list_selectors_are_unanchored_regexes() {
        let mut doc = json!({"c": [{"name": "app", "image": "a"},
                                   {"name": "app-sidecar", "image": "b"},
                                   {"name": "other", "image": "c"}]});
        assert_eq!(
            collect(&mut doc, "c.[name=app].image", None).unwrap().len(),
            2
        );
        assert_eq!(doc["c"][2]["image"], "c");
        let mut doc2 = json!({"c": [{"name": "app"}, {"name": "app-sidecar"}]});
        assert_eq!(
            collect(&mut doc2, "c.[name=^app$].name", None)
                .unwrap()
                .len(),
            1
        );
        assert_eq!(doc2["c"][1]["name"], "app-sidecar");
    }

    #[test]
    fn primitive_selector_targets_the_element_itself() {
        let mut doc = json!({"args": ["x", "y", "123"]});
        collect(&mut doc, "args.[=12].ignored", None).unwrap();
        assert_eq!(doc, json!({"args": ["x", "y", "SET"]}));
    }

    #[test]
    fn create_builds_maps_lists_and_appends() {
        let mut doc = json!({"spec": {}});
        collect(&mut doc, "spec.env.[name=X].value", Some(NodeKind::Scalar)).unwrap();
        collect(&mut doc, "spec.ports.0.port", Some(NodeKind::Scalar)).unwrap();
        collect(&mut doc, "spec.ports.1", Some(NodeKind::Scalar)).unwrap();
        assert_eq!(
            doc,
            json!({"spec": {"env": [{"name": "X", "value": "SET"}],
                            "ports": [{"port": "SET"}, "SET"]}})
        );
        let e = collect(&mut doc, "spec.ports.5", Some(NodeKind::Scalar)).unwrap_err();
        assert_eq!(e.message, "index 5 specified but only 2 elements found");
    }

    #[test]
    fn create_under_a_null_value_has_no_visible_effect() {
        let mut doc = json!({"data": {"n": null}});
        let seen = collect(&mut doc, "data.n.x", Some(NodeKind::Scalar)).unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(doc, json!({"data": {"n": null}}));
    }

    #[test]
    fn wrong_kinds_are_reported_with_the_node() {
        let mut doc = json!({"spec": {"replicas": 1, "t": {"a": [1, {"b": "x y"}]}}});
        let e = collect(&mut doc, "spec.replicas.x", None).unwrap_err();
        assert_eq!(
            e.message,
            "wrong node kind: expected MappingNode but got ScalarNode: node contents:\n1\n"
        );
        let e = collect(&mut doc, "spec.t.*", None).unwrap_err();
        assert_eq!(
            e.message,
            "wrong node kind: expected SequenceNode but got MappingNode: node contents:\n\
             a:\n- 1\n- b: x y\n"
        );
        // Missing without create: nothing found, no error.
        assert_eq!(collect(&mut doc, "spec.nope.2", None).unwrap().len(), 0);
    }

    #[test]
    fn bad_selector_regex_fails_only_when_an_element_is_tested() {
        let mut doc = json!({"a": [], "b": [{"name": "x"}]});
        assert_eq!(collect(&mut doc, "a.[name=(]", None).unwrap().len(), 0);
        let e = collect(&mut doc, "b.[name=(]", None).unwrap_err();
        assert!(
            e.message.starts_with("error parsing regexp:"),
            "{}",
            e.message
        );
    }
}
