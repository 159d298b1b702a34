//! The node tree: go-yaml v3's `yaml.Node` as kyaml holds it.

use crate::yaml::resolve::{resolve_plain, Rules};

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// A document: one child, the root, and the document's own comments.
    Document,
    Sequence,
    Mapping,
    Scalar,
    /// `*name`: the node's value is the anchor name.
    Alias,
}

/// How a node is written. Scalars are plain or one of the four other
/// styles; collections are block or flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Presentation {
    /// Plain scalar or block collection (go-yaml's style 0).
    #[default]
    Default,
    DoubleQuoted,
    SingleQuoted,
    Literal,
    Folded,
    /// A `[...]` or `{...}` collection.
    Flow,
}

/// The three comments go-yaml attaches to a node, each holding whole
/// comment lines (`# ...`) joined by `\n`; an empty line stands for a blank
/// line between comment lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comments {
    /// The lines above the node.
    pub head: String,
    /// The comment at the end of the node's line.
    pub line: String,
    /// The lines under the node.
    pub foot: String,
}

/// One node of a YAML document, with everything go-yaml's encoder needs to
/// write it back as it was read: styles, tags as written, anchors,
/// comments and key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub kind: NodeKind,
    pub presentation: Presentation,
    /// The tag was written in the text (go-yaml's `TaggedStyle`): it is
    /// written back whatever the value.
    pub tagged: bool,
    /// Short form (`!!str`, `!!int`, `!local`), or empty for nodes made
    /// without one (the encoder then lets the value speak for itself).
    pub tag: String,
    /// A scalar's text, or an alias's anchor name.
    pub value: String,
    pub anchor: String,
    pub comments: Comments,
    /// A sequence's items, a mapping's keys and values alternating, or a
    /// document's root.
    pub content: Vec<Node>,
}

impl Node {
    /// A node of `kind` with nothing set (as kyaml creates missing fields).
    pub fn new(kind: NodeKind) -> Node {
        Node {
            kind,
            presentation: Presentation::Default,
            tagged: false,
            tag: String::new(),
            value: String::new(),
            anchor: String::new(),
            comments: Comments::default(),
            content: Vec::new(),
        }
    }

    /// An untagged plain scalar (kyaml's `NewScalarRNode`).
    pub fn scalar(value: &str) -> Node {
        Node {
            value: value.to_string(),
            ..Node::new(NodeKind::Scalar)
        }
    }

    /// The node kyaml works on: a document's root, or the node itself.
    pub fn root(&self) -> Option<&Node> {
        match self.kind {
            NodeKind::Document => self.content.first(),
            _ => Some(self),
        }
    }

    /// [`Node::root`], to change it.
    pub fn root_mut(&mut self) -> Option<&mut Node> {
        match self.kind {
            NodeKind::Document => self.content.first_mut(),
            _ => Some(self),
        }
    }

    /// Whether kyaml treats the node as null (`IsMissingOrNull`): a `!!null`
    /// tag, whatever the text.
    pub fn is_null(&self) -> bool {
        self.tag == "!!null"
    }

    /// The value of a mapping's first key equal to `key` (kyaml's field
    /// lookup), with its index in `content`.
    pub fn field(&self, key: &str) -> Option<usize> {
        if self.kind != NodeKind::Mapping {
            return None;
        }
        self.content
            .chunks(2)
            .position(|pair| pair.len() == 2 && pair[0].value == key)
            .map(|i| 2 * i + 1)
    }
}

/// The tag go-yaml v3's resolver gives an untagged plain scalar of this
/// text. (`<<` resolves as a string there; the reader alone makes a plain
/// `<<` a merge key, so the encoder writes `!!merge <<` back.)
pub fn resolve_tag(text: &str) -> &'static str {
    resolve_plain(text, Rules::V3, true).tag()
}

/// The short form of a tag (`tag:yaml.org,2002:str` → `!!str`).
pub(super) fn short_tag(tag: &str) -> String {
    match tag.strip_prefix(LONG_TAG_PREFIX) {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_string(),
    }
}

/// The long form of a tag (`!!str` → `tag:yaml.org,2002:str`).
pub(super) fn long_tag(tag: &str) -> String {
    match tag.strip_prefix("!!") {
        Some(rest) => format!("{LONG_TAG_PREFIX}{rest}"),
        None => tag.to_string(),
    }
}

pub(super) const LONG_TAG_PREFIX: &str = "tag:yaml.org,2002:";
