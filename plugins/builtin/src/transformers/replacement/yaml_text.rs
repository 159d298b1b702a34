//! Target paths walked through YAML nodes read from a string (kustomize
//! v5.8.0, #5679): kyaml's `PathMatcher` over the nodes of
//! `kustom_api::yaml::styled`, with kyaml's errors.
//!
//! kustomize walks such nodes in two places: when it sets a value inside
//! the text (the nodes are then written back), and when the ordinary walk
//! of a target path meets a string field with more of the path to go (the
//! nodes are a copy, so what is matched there is set to no effect). Both
//! use this walk. It differs from the walk over resources
//! ([`super::path`]) where YAML nodes differ from JSON values: nodes keep
//! their tags (an empty `key:` is a null scalar whose text is empty), a
//! list element is matched by its text as kyaml writes it (quotes and
//! comments included), and kyaml's own errors name the node kinds.

use super::path::NodeKind;
use crate::selecting::path_elements::{atoi, is_index, is_list_selector, split_selector};
use kustom_api::yaml::styled::{self, Node, NodeKind as Kind, ReadError};
use kustom_api::{err, Error};

/// One matched node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Found {
    /// Where it is: the indices into `content` from the walked root;
    /// `None` for a node that is not part of the walked tree (inside text
    /// read from a string, or under a null node).
    pub location: Option<Vec<usize>>,
    /// Whether it is a scalar (which takes the value's text only).
    pub scalar: bool,
}

/// Why a walk stopped.
#[derive(Debug)]
pub(super) enum WalkError {
    /// kyaml's error: where kustomize tries to set a value inside text, it
    /// gives up silently and walks the path the ordinary way instead.
    Kyaml(Error),
    /// An error kustomize does not recover from (it crashes).
    Fatal(Error),
}

impl From<Error> for WalkError {
    fn from(e: Error) -> Self {
        WalkError::Kyaml(e)
    }
}

impl WalkError {
    /// The error, whichever it is.
    pub(super) fn into_error(self) -> Error {
        match self {
            WalkError::Kyaml(e) | WalkError::Fatal(e) => e,
        }
    }
}

type Result<T> = std::result::Result<T, WalkError>;

/// Match `parts` from `root` (a document's root node), creating what is
/// missing when `create` says what the last part is.
pub(super) fn walk(
    root: &mut Node,
    parts: &[String],
    create: Option<NodeKind>,
) -> Result<Vec<Found>> {
    Walk { create }.filter(root, parts, Some(Vec::new()))
}

/// Walk `parts` into the YAML text of a string field, as the ordinary walk
/// does when it meets one: every match is in a copy. An empty text (or
/// one holding only comments) is a node of no kind, which no path enters.
pub(super) fn walk_text(
    text: &str,
    parts: &[String],
    create: Option<NodeKind>,
) -> Result<Vec<Found>> {
    Walk { create }.text(text, parts)
}

/// What kustom reads in a string field.
fn read(text: &str) -> Result<Option<Node>> {
    match styled::parse_document(text) {
        Ok(doc) => Ok(doc),
        Err(ReadError::TooDeep) => Err(WalkError::Fatal(err!(
            "kustom does not follow YAML text nested deeper than {} levels",
            styled::MAX_DEPTH
        ))),
        Err(ReadError::Invalid(message)) => Err(WalkError::Kyaml(Error::new(message))),
    }
}

/// kyaml's name for a node's kind.
fn kind_name(kind: Option<Kind>) -> &'static str {
    match kind {
        Some(Kind::Document) => "DocumentNode",
        Some(Kind::Sequence) => "SequenceNode",
        Some(Kind::Mapping) => "MappingNode",
        Some(Kind::Scalar) => "ScalarNode",
        Some(Kind::Alias) => "AliasNode",
        None => "",
    }
}

/// kyaml's "wrong node kind" error, with the node as kyaml writes it
/// (`None`: the node of no kind an empty text gives, written `null`).
fn wrong_kind(expected: &str, node: Option<&Node>) -> WalkError {
    let contents = match node {
        Some(n) => styled::to_text(n).ok(),
        None => Some("null\n".to_string()),
    };
    let actual = kind_name(node.map(|n| n.kind));
    WalkError::Kyaml(match contents {
        Some(c) => {
            err!("wrong node kind: expected {expected} but got {actual}: node contents:\n{c}")
        }
        None => err!("wrong node kind: expected {expected} but got {actual}"),
    })
}

/// The kind a part of the path expects of the node it is applied to.
fn expected_kind(part: &str) -> &'static str {
    if is_index(part) || is_list_selector(part) || part == "*" {
        "SequenceNode"
    } else if part.is_empty() {
        "ScalarNode"
    } else {
        "MappingNode"
    }
}

fn child_location(location: &Option<Vec<usize>>, index: usize) -> Option<Vec<usize>> {
    location.as_ref().map(|l| {
        let mut l = l.clone();
        l.push(index);
        l
    })
}

struct Walk {
    create: Option<NodeKind>,
}

impl Walk {
    fn text(&self, text: &str, parts: &[String]) -> Result<Vec<Found>> {
        match read(text)? {
            Some(mut doc) => match doc.root_mut() {
                Some(root) => self.filter(root, parts, None),
                None => Err(wrong_kind(expected_kind(&parts[0]), None)),
            },
            None => match parts.first() {
                Some(part) => Err(wrong_kind(expected_kind(part), None)),
                None => Ok(Vec::new()),
            },
        }
    }

    /// The node kyaml creates for a part followed by `rest`: a sequence
    /// before an index or a list selector, the value's kind at the end, a
    /// mapping otherwise.
    fn new_node(&self, rest: &[String], create: NodeKind) -> Node {
        let next = rest.first().map(String::as_str).unwrap_or("");
        let kind = if is_list_selector(next) || is_index(next) {
            Kind::Sequence
        } else if next.is_empty() {
            match create {
                NodeKind::Scalar => Kind::Scalar,
                NodeKind::Map => Kind::Mapping,
                NodeKind::Seq => Kind::Sequence,
            }
        } else {
            Kind::Mapping
        };
        Node::new(kind)
    }

    fn filter(
        &self,
        node: &mut Node,
        parts: &[String],
        location: Option<Vec<usize>>,
    ) -> Result<Vec<Found>> {
        let Some((part, rest)) = parts.split_first() else {
            return Ok(vec![Found {
                location,
                scalar: node.kind == Kind::Scalar,
            }]);
        };
        if is_index(part) {
            self.index(node, part, rest, location)
        } else if is_list_selector(part) {
            self.select(node, part, rest, location)
        } else if part == "*" {
            self.every(node, rest, location)
        } else {
            self.field(node, part, rest, location)
        }
    }

    /// The elements of a sequence (a null node's content, which holds
    /// what was appended to it and is never written).
    fn elements<'n>(
        node: &'n mut Node,
        location: &Option<Vec<usize>>,
    ) -> Result<(&'n mut Vec<Node>, Option<Vec<usize>>)> {
        if node.is_null() {
            return Ok((&mut node.content, None));
        }
        if node.kind != Kind::Sequence {
            return Err(wrong_kind("SequenceNode", Some(node)));
        }
        Ok((&mut node.content, location.clone()))
    }

    fn field(
        &self,
        node: &mut Node,
        part: &str,
        rest: &[String],
        location: Option<Vec<usize>>,
    ) -> Result<Vec<Found>> {
        // kyaml's field lookup: nothing under a null node, the node itself
        // for an empty name when its text is empty.
        let found = if node.is_null() {
            None
        } else if part.is_empty() {
            if node.kind != Kind::Scalar {
                return Err(wrong_kind("ScalarNode", Some(node)));
            }
            node.value.is_empty().then_some(None)
        } else {
            if node.kind != Kind::Mapping {
                return Err(wrong_kind("MappingNode", Some(node)));
            }
            node.field(part).map(Some)
        };
        match found {
            // The node itself (an empty name).
            Some(None) => self.descend(node, rest, location),
            Some(Some(i)) => {
                let location = child_location(&location, i);
                self.descend(&mut node.content[i], rest, location)
            }
            None => {
                let Some(create) = self.create else {
                    return Ok(Vec::new());
                };
                let mut new = self.new_node(rest, create);
                if part.is_empty() {
                    // kyaml replaces the scalar with the new node (keeping
                    // its style) and walks on in a copy of it.
                    new.presentation = node.presentation;
                    new.tagged = node.tagged;
                    *node = new.clone();
                    return self.descend(&mut new, rest, None);
                }
                node.content.push(Node::scalar(part));
                node.content.push(new);
                let i = node.content.len() - 1;
                // Under a null node the new field is never written.
                let location = if node.is_null() {
                    None
                } else {
                    child_location(&location, i)
                };
                self.descend(&mut node.content[i], rest, location)
            }
        }
    }

    /// Go on below a field: into the YAML text of a scalar when more of
    /// the path remains, else into the node.
    fn descend(
        &self,
        node: &mut Node,
        rest: &[String],
        location: Option<Vec<usize>>,
    ) -> Result<Vec<Found>> {
        if node.kind == Kind::Scalar && !rest.is_empty() {
            let text = node.value.clone();
            return self.text(&text, rest);
        }
        self.filter(node, rest, location)
    }

    fn index(
        &self,
        node: &mut Node,
        part: &str,
        rest: &[String],
        location: Option<Vec<usize>>,
    ) -> Result<Vec<Found>> {
        let index = atoi(part)
            .and_then(|i| usize::try_from(i).ok())
            .ok_or_else(|| err!("invalid list index {part:?}"))?;
        let new = self.create.map(|c| self.new_node(rest, c));
        let (items, location) = Self::elements(node, &location)?;
        if items.len() == index {
            if let Some(new) = new {
                items.push(new);
            }
        }
        let len = items.len();
        match items.get_mut(index) {
            Some(item) => self.filter(item, rest, child_location(&location, index)),
            None => Err(WalkError::Kyaml(err!(
                "index {index} specified but only {len} elements found"
            ))),
        }
    }

    fn select(
        &self,
        node: &mut Node,
        part: &str,
        rest: &[String],
        location: Option<Vec<usize>>,
    ) -> Result<Vec<Found>> {
        let (key, pattern) = split_selector(part)?;
        let found = self.select_in(node, key, pattern, rest, &location)?;
        if !found.is_empty() || self.create.is_none() {
            return Ok(found);
        }
        // Append an element the selector matches, and search again.
        let new = if key.is_empty() {
            Node::scalar(pattern)
        } else {
            Node {
                content: vec![Node::scalar(key), Node::scalar(pattern)],
                ..Node::new(Kind::Mapping)
            }
        };
        Self::elements(node, &location)?.0.push(new);
        let again = self.select_in(node, key, pattern, rest, &location)?;
        if again.is_empty() {
            // kustomize appends and searches again until its stack
            // overflows; stop at the first repetition instead.
            return Err(WalkError::Fatal(err!(
                "fatal error: stack overflow: the element created for {part} \
                 does not match {part} itself"
            )));
        }
        Ok(again)
    }

    /// The elements a list selector matches, by their text (or their
    /// field's) as kyaml writes it; `[=value]` makes the element itself
    /// the target, ignoring the rest of the path.
    fn select_in(
        &self,
        node: &mut Node,
        key: &str,
        pattern: &str,
        rest: &[String],
        location: &Option<Vec<usize>>,
    ) -> Result<Vec<Found>> {
        let (items, location) = Self::elements(node, location)?;
        let mut regex = None;
        let mut found = Vec::new();
        for (i, item) in items.iter_mut().enumerate() {
            // Go compiles the expression per element.
            if regex.is_none() {
                regex = Some(kustom_api::go_regex::compile(pattern)?);
            }
            let Some(regex) = regex.as_ref() else {
                continue;
            };
            let subject = if key.is_empty() {
                Some(&*item)
            } else if item.kind == Kind::Mapping {
                item.field(key).map(|v| &item.content[v])
            } else {
                None
            };
            let Some(subject) = subject else {
                continue;
            };
            let text = styled::to_text(subject).map_err(|e| err!("{}", e.0))?;
            if !regex.is_match(text.trim()) {
                continue;
            }
            let here = child_location(&location, i);
            if key.is_empty() {
                found.push(Found {
                    location: here,
                    scalar: item.kind == Kind::Scalar,
                });
            } else {
                found.extend(self.filter(item, rest, here)?);
            }
        }
        Ok(found)
    }

    fn every(
        &self,
        node: &mut Node,
        rest: &[String],
        location: Option<Vec<usize>>,
    ) -> Result<Vec<Found>> {
        let (items, location) = Self::elements(node, &location)?;
        let mut found = Vec::new();
        for (i, item) in items.iter_mut().enumerate() {
            found.extend(self.filter(item, rest, child_location(&location, i))?);
        }
        Ok(found)
    }
}

/// The node at `location` below `root`.
pub(super) fn at_mut<'n>(root: &'n mut Node, location: &[usize]) -> Option<&'n mut Node> {
    location
        .iter()
        .try_fold(root, |node, &i| node.content.get_mut(i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transformers::replacement::path::split;

    fn doc(text: &str) -> Node {
        styled::parse_document(text).unwrap().unwrap()
    }

    /// The locations matched by `path` in `text` (None: detached).
    fn matched(
        text: &str,
        path: &str,
        create: Option<NodeKind>,
    ) -> Result<Vec<Option<Vec<usize>>>> {
        let mut d = doc(text);
        let root = d.root_mut().unwrap();
        Ok(walk(root, &split(path), create)?
            .into_iter()
            .map(|f| f.location)
            .collect())
    }

    fn message(r: Result<Vec<Found>>) -> String {
        match r {
            Err(e) => e.into_error().message,
            Ok(found) => panic!("matched {found:?}"),
        }
    }

    #[test]
    fn fields_indices_selectors_and_wildcards() {
        let text = "l:\n- name: a\n  v: 1\n- name: b\n  v: 2\nm: {x: 1}\n";
        assert_eq!(matched(text, "l.1.v", None).unwrap(), [Some(vec![1, 1, 3])]);
        assert_eq!(
            matched(text, "l.[name=b].v", None).unwrap(),
            [Some(vec![1, 1, 3])]
        );
        assert_eq!(matched(text, "l.*.name", None).unwrap().len(), 2);
        assert_eq!(
            matched(text, "m.y", None).unwrap(),
            Vec::<Option<Vec<usize>>>::new()
        );
    }

    #[test]
    fn list_items_are_matched_by_their_text_as_written() {
        // kyaml compares the element as it writes it: quotes and comments
        // are part of the text the expression searches.
        let text = "l:\n- x\n- 'y'\n- z # c\n";
        assert_eq!(matched(text, "l.[=^y$]", None).unwrap().len(), 0);
        assert_eq!(matched(text, "l.[='y']", None).unwrap(), [Some(vec![1, 1])]);
        assert_eq!(
            matched(text, "l.[=z # c]", None).unwrap(),
            [Some(vec![1, 2])]
        );
    }

    #[test]
    fn create_appends_and_null_nodes_take_nothing_visible() {
        let mut d = doc("a:\n  b: 1\nn: ~\nl: [x]\n");
        let root = d.root_mut().unwrap();
        let found = walk(root, &split("a.c.d"), Some(NodeKind::Scalar)).unwrap();
        assert_eq!(found[0].location, Some(vec![1, 3, 1]));
        let found = walk(root, &split("n.x"), Some(NodeKind::Scalar)).unwrap();
        assert_eq!(found[0].location, None);
        let found = walk(root, &split("l.[=y]"), Some(NodeKind::Scalar)).unwrap();
        assert_eq!(found[0].location, Some(vec![5, 1]));
        assert_eq!(
            styled::to_text(&d).unwrap(),
            "a:\n  b: 1\n  c:\n    d:\nn: ~\nl: [x, y]\n"
        );
    }

    #[test]
    fn text_inside_is_walked_in_a_copy() {
        assert_eq!(matched("a: 'x: 1'\n", "a.x", None).unwrap(), [None]);
        // An empty value is empty text, which no path enters.
        assert_eq!(
            message(walk_text("a:\n", &split("a.x"), None)),
            "wrong node kind: expected MappingNode but got : node contents:\nnull\n"
        );
        assert_eq!(
            message(walk_text("", &split("0"), None)),
            "wrong node kind: expected SequenceNode but got : node contents:\nnull\n"
        );
    }

    #[test]
    fn errors_are_kyaml_s() {
        assert_eq!(
            message(walk_text("a: 1\n", &split("a.0"), None)),
            "wrong node kind: expected SequenceNode but got ScalarNode: node contents:\n1\n"
        );
        assert_eq!(
            message(walk_text("l: [x]\n", &split("l.3"), None)),
            "index 3 specified but only 1 elements found"
        );
        assert_eq!(
            message(walk_text("a: [x\n", &split("a.b"), None)),
            "yaml: line 1: did not find expected ',' or ']'"
        );
        assert!(matches!(
            walk_text("l: [x]\n", &split("l.[=(]"), None),
            Err(WalkError::Kyaml(_))
        ));
        // kustomize appends forever when the created item cannot match.
        assert!(matches!(
            walk_text("l: [x]\n", &split("l.[=^'a]"), Some(NodeKind::Scalar)),
            Err(WalkError::Fatal(_))
        ));
    }
}
