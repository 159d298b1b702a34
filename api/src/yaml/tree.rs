//! The general reader: builds the JSON value of one document from the
//! parser's events, with anchors, aliases, `<<` merges and their budget,
//! duplicate keys and `*List` items as kustomize sees them.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::error::YamlError;
use super::folded::folded_as_printed;
use super::parse::Event;
use super::scan::ScalarStyle;
use super::typing::{
    go_quote, is_merge_key, is_plain_null, nested_key, root_key, scalar_value, short_tag, Scalar,
    LENIENT_V2, MAX_NESTING, NULL_ANNOTATIONS_KEPT,
};

/// One document read from a stream.
pub(super) struct Document {
    pub(super) value: Value,
    /// 1-based line where its content starts.
    pub(super) line: usize,
    /// Paths of its `key:` values written empty.
    pub(super) empty_nulls: Vec<Value>,
}
/// Default upper bound, in bytes, on what alias expansion may add to one
/// document: a "billion laughs" input — nested or one big scalar repeated
/// — fails instead of exhausting memory (go-yaml likewise refuses
/// "excessive aliasing"). Counted as the text of the copied scalars and
/// keys plus [`NODE_COST`] per copied node.
pub const DEFAULT_ALIAS_BUDGET: usize = 64 << 20;

/// The environment variable that raises (or lowers) the alias budget, in
/// bytes: `kustom build --max-alias-expansion` sets it, so plugin processes
/// (the shipped builtin reading patch files) inherit it.
pub const ENV_ALIAS_BUDGET: &str = "KUSTOM_MAX_ALIAS_EXPANSION";

/// Roughly what one JSON node costs in memory besides its text.
const NODE_COST: usize = 48;

/// The alias budget in force (read once).
fn alias_budget() -> usize {
    static BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BUDGET.get_or_init(|| {
        std::env::var(ENV_ALIAS_BUDGET)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(DEFAULT_ALIAS_BUDGET)
    })
}
/// A finished node waiting to be placed in its parent.
#[derive(Debug)]
enum Node {
    Scalar(Scalar),
    /// A converted mapping or sequence; `is_map` tells which.
    Collection {
        value: Value,
        is_map: bool,
    },
}

/// What an anchor refers to.
#[derive(Debug, Clone)]
enum Anchored {
    Scalar(Scalar),
    Collection {
        value: Value,
        is_map: bool,
        size: usize,
    },
}

/// A mapping being read. Its entries wait in [`Builder::entries`] (one
/// buffer for all open mappings) until the end, when the JSON object is
/// built at its final size; `<<` keys are set aside and merged then.
struct MapFrame {
    /// Where this mapping's entries start in [`Builder::entries`].
    entries_start: usize,
    pending_key: Option<(Node, usize)>,
    /// The `<<` value, whether it came from an alias to a non-mapping, and
    /// the key's line.
    merge: Option<(Value, bool, usize)>,
    /// kyaml drops the first key spelled `<<` (whatever its style).
    dropped_lt: bool,
    is_root: bool,
    /// Where this mapping sits in the document (see [`MapRole`]).
    role: MapRole,
    anchor: Option<String>,
    line: usize,
}

/// The mappings of a document the reader treats specially.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MapRole {
    Root,
    /// The root's `metadata`.
    Metadata,
    /// The root's `metadata.annotations`: kustomize re-writes it as a
    /// string map of the scalars' texts before printing (`a: null` comes out
    /// as `"null"`, `b: 0x1F` as `"0x1F"`, a folded scalar as its plain
    /// text), so its values are read as those strings.
    Annotations,
    Other,
}

enum Frame {
    Seq {
        items: Vec<Value>,
        /// The `items` of a root whose `kind` (read before it) ends in
        /// `List`: kustomize makes each element a resource of its own.
        list_items: bool,
        anchor: Option<String>,
        line: usize,
    },
    Map(MapFrame),
}

pub(super) struct Builder {
    stack: Vec<Frame>,
    anchors: HashMap<String, Anchored>,
    /// Entries (JSON key, value, key line) of the open mappings, outermost
    /// first.
    entries: Vec<(String, Value, usize)>,
    first_line: usize,
    alias_budget: usize,
    root: Option<(Value, usize)>,
    root_null: bool,
    /// Paths of mapping values written empty (see [`parse_stream_with_empty_nulls`](super::parse_stream_with_empty_nulls)).
    empty_nulls: Vec<Value>,
}

impl Builder {
    pub(super) fn new(first_line: usize) -> Self {
        Builder {
            stack: Vec::new(),
            anchors: HashMap::new(),
            entries: Vec::new(),
            first_line,
            alias_budget: alias_budget(),
            root: None,
            root_null: false,
            empty_nulls: Vec::new(),
        }
    }

    /// Start a new document, keeping the buffers' memory.
    pub(super) fn reset(&mut self, first_line: usize) {
        self.stack.clear();
        self.anchors.clear();
        self.entries.clear();
        self.first_line = first_line;
        self.alias_budget = alias_budget();
        self.root = None;
        self.root_null = false;
        self.empty_nulls.clear();
    }

    /// The document's value and first line; None for an empty or null
    /// document.
    pub(super) fn finish(&mut self) -> Option<Document> {
        let empty_nulls = std::mem::take(&mut self.empty_nulls);
        if self.root_null {
            return None;
        }
        self.root.take().map(|(value, line)| Document {
            value,
            line,
            empty_nulls,
        })
    }

    pub(super) fn event(&mut self, event: Event) -> Result<(), YamlError> {
        match event {
            Event::Alias { name, mark } => {
                let line = self.first_line + mark.line;
                let node = self.alias(&name, line)?;
                self.attach(node, line, true)
            }
            Event::Scalar {
                value,
                style,
                tag,
                anchor,
                mark,
            } => {
                let line = self.first_line + mark.line;
                let annotation = self.is_annotation_value()
                    && !(style == ScalarStyle::Plain
                        && is_plain_null(&value)
                        && NULL_ANNOTATIONS_KEPT.with(|m| m.get()));
                let value = if style == ScalarStyle::Folded && !annotation {
                    folded_as_printed(value)
                } else {
                    value
                };
                let scalar = Scalar {
                    text: value,
                    // An annotation's value is its text, whatever it says.
                    plain: style == ScalarStyle::Plain && !annotation,
                    tag: if annotation {
                        Some("!!str".to_string())
                    } else {
                        tag.as_deref().and_then(short_tag)
                    },
                    line,
                };
                if let Some(name) = anchor {
                    self.anchors.insert(name, Anchored::Scalar(scalar.clone()));
                }
                self.attach(Node::Scalar(scalar), line, false)
            }
            Event::SeqStart { anchor, mark } => {
                self.check_depth(mark.line)?;
                let list_items = self.starts_list_items();
                self.stack.push(Frame::Seq {
                    items: Vec::new(),
                    list_items,
                    anchor,
                    line: self.first_line + mark.line,
                });
                Ok(())
            }
            Event::MapStart { anchor, mark } => {
                self.check_depth(mark.line)?;
                let is_root = self.stack.is_empty();
                let role = self.child_role();
                self.stack.push(Frame::Map(MapFrame {
                    entries_start: self.entries.len(),
                    pending_key: None,
                    merge: None,
                    dropped_lt: false,
                    is_root,
                    role,
                    anchor,
                    line: self.first_line + mark.line,
                }));
                Ok(())
            }
            Event::SeqEnd | Event::MapEnd => {
                let (value, is_map, anchor, line) = match self.stack.pop() {
                    Some(Frame::Seq {
                        items,
                        anchor,
                        line,
                        ..
                    }) => (Value::Array(items), false, anchor, line),
                    Some(Frame::Map(frame)) => {
                        let MapFrame {
                            entries_start,
                            pending_key,
                            merge,
                            anchor,
                            line,
                            ..
                        } = frame;
                        if pending_key.is_some() {
                            return Err(YamlError::at(line, "mapping key without a value"));
                        }
                        let entries = self.entries.get(entries_start..).unwrap_or_default();
                        check_duplicates(entries)?;
                        let mut map = Map::with_capacity(entries.len());
                        for (k, v, _) in self.entries.drain(entries_start..) {
                            map.insert(k, v);
                        }
                        if let Some(merge) = merge {
                            // Keys of the mapping itself win, then earlier
                            // sources over later ones.
                            for src in merge_sources(merge)? {
                                for (k, v) in src {
                                    if !map.contains_key(&k) {
                                        map.insert(k, v);
                                    }
                                }
                            }
                        }
                        (Value::Object(map), true, anchor, line)
                    }
                    None => {
                        return Err(YamlError::at(self.first_line, "unbalanced collection end"));
                    }
                };
                if let Some(name) = anchor {
                    let size = expansion_cost(&value);
                    self.anchors.insert(
                        name,
                        Anchored::Collection {
                            value: value.clone(),
                            is_map,
                            size,
                        },
                    );
                }
                self.attach(Node::Collection { value, is_map }, line, false)
            }
        }
    }

    /// Record the path of the entry just added to the innermost mapping,
    /// whose value was written empty.
    fn record_empty_null(&mut self) {
        let Some((key, Value::Null, _)) = self.entries.last() else {
            return;
        };
        let mut path = Vec::with_capacity(self.stack.len());
        let outer = self.stack.len() - 1;
        for frame in &self.stack[..outer] {
            match frame {
                Frame::Seq { items, .. } => path.push(Value::from(items.len())),
                Frame::Map(m) => match &m.pending_key {
                    Some((Node::Scalar(s), _)) => path.push(Value::String(s.text.clone())),
                    _ => return,
                },
            }
        }
        path.push(Value::String(key.clone()));
        self.empty_nulls.push(Value::Array(path));
    }

    /// The role of a mapping starting now, from the open mapping's role and
    /// its pending key.
    fn child_role(&self) -> MapRole {
        let parent = match self.stack.last() {
            None => return MapRole::Root,
            Some(Frame::Seq { list_items, .. }) => {
                return if *list_items {
                    MapRole::Root
                } else {
                    MapRole::Other
                };
            }
            Some(Frame::Map(parent)) => parent,
        };
        let key = match &parent.pending_key {
            Some((Node::Scalar(s), _)) => s.text.as_str(),
            _ => return MapRole::Other,
        };
        match (parent.role, key) {
            (MapRole::Root, "metadata") => MapRole::Metadata,
            (MapRole::Metadata, "annotations") => MapRole::Annotations,
            _ => MapRole::Other,
        }
    }

    /// Whether a sequence starting now is the `items` of a `*List` root.
    fn starts_list_items(&self) -> bool {
        let [Frame::Map(root)] = self.stack.as_slice() else {
            return false;
        };
        matches!(&root.pending_key, Some((Node::Scalar(k), _)) if k.text == "items")
            && self.entries[root.entries_start..]
                .iter()
                .any(|(k, v, _)| k == "kind" && v.as_str().is_some_and(|s| s.ends_with("List")))
    }

    /// Whether the next scalar is a value of the root's
    /// `metadata.annotations` (resources only, not kustomization files).
    fn is_annotation_value(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map(f))
            if f.role == MapRole::Annotations && f.pending_key.is_some())
            && !LENIENT_V2.with(|m| m.get())
    }

    fn check_depth(&self, line: usize) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_NESTING {
            return Err(YamlError::at(
                self.first_line + line,
                format!("collections are nested more than {MAX_NESTING} levels deep"),
            ));
        }
        Ok(())
    }

    /// Take `cost` bytes of alias expansion from the document's budget.
    fn charge(&mut self, cost: usize, line: usize) -> Result<(), YamlError> {
        if cost > self.alias_budget {
            return Err(YamlError::at(
                line,
                format!(
                    "document contains excessive aliasing: expanding its aliases takes more than {} bytes; if this is intended, raise the limit with --max-alias-expansion BYTES",
                    alias_budget()
                ),
            ));
        }
        self.alias_budget -= cost;
        Ok(())
    }

    fn alias(&mut self, name: &str, line: usize) -> Result<Node, YamlError> {
        let cost = match self.anchors.get(name) {
            Some(Anchored::Scalar(s)) => NODE_COST + s.text.len(),
            Some(Anchored::Collection { size, .. }) => *size,
            // Unknown, or still being defined (a node containing itself,
            // on which kustomize recurses forever).
            None => {
                return Err(YamlError::at(
                    line,
                    format!("unknown anchor '{name}' referenced"),
                ))
            }
        };
        self.charge(cost, line)?;
        Ok(match &self.anchors[name] {
            Anchored::Scalar(s) => Node::Scalar(s.clone()),
            Anchored::Collection { value, is_map, .. } => Node::Collection {
                value: value.clone(),
                is_map: *is_map,
            },
        })
    }

    /// Place a finished node into the open collection (or make it the root).
    fn attach(&mut self, node: Node, line: usize, from_alias: bool) -> Result<(), YamlError> {
        match self.stack.last_mut() {
            None => {
                let value = match node {
                    Node::Scalar(s) => {
                        let v = scalar_value(s)?;
                        self.root_null = v.is_null();
                        v
                    }
                    Node::Collection { value, .. } => value,
                };
                self.root = Some((value, line));
                Ok(())
            }
            Some(Frame::Seq { items, .. }) => {
                items.push(node_value(node)?);
                Ok(())
            }
            Some(Frame::Map(frame)) => match frame.pending_key.take() {
                None => {
                    frame.pending_key = Some((node, line));
                    Ok(())
                }
                Some((key, key_line)) => {
                    let alias_non_map =
                        from_alias && !matches!(node, Node::Collection { is_map: true, .. });
                    let written_empty = !from_alias
                        && matches!(&node, Node::Scalar(s) if s.plain && s.text.is_empty());
                    let value = node_value(node)?;
                    let entries_before = self.entries.len();
                    add_entry(
                        frame,
                        &mut self.entries,
                        key,
                        key_line,
                        value,
                        alias_non_map,
                    )?;
                    if written_empty && self.entries.len() > entries_before {
                        self.record_empty_null();
                    }
                    Ok(())
                }
            },
        }
    }
}

/// Put one key and value into a mapping being read.
fn add_entry(
    frame: &mut MapFrame,
    entries: &mut Vec<(String, Value, usize)>,
    key: Node,
    key_line: usize,
    value: Value,
    alias_non_map: bool,
) -> Result<(), YamlError> {
    let Node::Scalar(s) = key else {
        return Err(YamlError::at(
            key_line,
            "invalid map key: a mapping or sequence cannot be a key",
        ));
    };
    if is_merge_key(&s) {
        if frame.merge.is_some() {
            return Err(YamlError::at(frame.line, "duplicate merge key"));
        }
        frame.dropped_lt |= s.text == "<<";
        frame.merge = Some((value, alias_non_map, key_line));
        return Ok(());
    }
    if s.text == "<<" && !frame.dropped_lt {
        frame.dropped_lt = true;
        return Ok(());
    }
    let key = if frame.is_root {
        root_key(s)?
    } else {
        nested_key(s)?
    };
    entries.push((key, value, key_line));
    Ok(())
}

/// go-yaml compares keys by their text (`a` and "a" are the same key),
/// which is the JSON key here; the first repeated key is an error.
fn check_duplicates(entries: &[(String, Value, usize)]) -> Result<(), YamlError> {
    if LENIENT_V2.with(|m| m.get()) {
        return Ok(());
    }
    let duplicate = |j: usize, i: usize| {
        YamlError::at(
            entries[j].2,
            format!(
                "mapping key {} already defined at line {}",
                go_quote(&entries[j].0),
                entries[i].2
            ),
        )
    };
    if entries.len() <= 16 {
        for j in 1..entries.len() {
            if let Some(i) = entries[..j].iter().position(|e| e.0 == entries[j].0) {
                return Err(duplicate(j, i));
            }
        }
        return Ok(());
    }
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
    for (j, e) in entries.iter().enumerate() {
        if let Some(i) = seen.insert(e.0.as_str(), j) {
            return Err(duplicate(j, i));
        }
    }
    Ok(())
}

fn node_value(node: Node) -> Result<Value, YamlError> {
    match node {
        Node::Scalar(s) => scalar_value(s),
        Node::Collection { value, .. } => Ok(value),
    }
}

/// Number of JSON values in `v` (itself included): the cost of copying it.
/// What copying `v` costs against the alias budget: its strings and keys
/// plus [`NODE_COST`] per node.
fn expansion_cost(v: &Value) -> usize {
    NODE_COST
        + match v {
            Value::Array(a) => a.iter().map(expansion_cost).sum::<usize>(),
            Value::Object(m) => m
                .iter()
                .map(|(k, v)| k.len() + expansion_cost(v))
                .sum::<usize>(),
            Value::String(s) => s.len(),
            _ => 0,
        }
}
/// The mappings a `<<` value names, earliest first.
fn merge_sources(merge: (Value, bool, usize)) -> Result<Vec<Map<String, Value>>, YamlError> {
    let (value, alias_non_map, line) = merge;
    if alias_non_map {
        return Err(YamlError::at(
            line,
            "invalid map merge: received alias for a non-map value",
        ));
    }
    match value {
        Value::Object(m) => Ok(vec![m]),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Object(m) => Ok(m),
                Value::Array(_) => Err(YamlError::at(
                    line,
                    "invalid map merge: received a nested sequence",
                )),
                _ => Err(YamlError::at(
                    line,
                    "map merge requires map or sequence of maps as the value",
                )),
            })
            .collect(),
        _ => Err(YamlError::at(
            line,
            "map merge requires map or sequence of maps as the value",
        )),
    }
}
