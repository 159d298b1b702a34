//! Reading text into a [`Node`] tree the way go-yaml v3's `Unmarshal` into
//! a `yaml.Node` does: the first document only, styles, tags and anchors
//! as written, and comments handed to nodes by go-yaml's rules.
//!
//! The scanner (shared with the ordinary reader, comments turned on) says
//! which token each comment belongs to; the parser gathers the comments of
//! the tokens it looks at and gives them to the events it makes, with a
//! few moves of its own (a document's leading comment, comments before a
//! collection nested in a sequence item); the composer builds the nodes and
//! moves foot comments between a mapping's keys and values. Each of these
//! moves depends on exactly when tokens are looked at, so the parser looks
//! at them in go-yaml's order.

use super::node::{resolve_tag, short_tag, Comments, Node, NodeKind, Presentation};
use crate::yaml::scan::{Kind, Mark, ScalarStyle, Scanner, SyntaxError, Tok};

/// Nesting deeper than this is refused (the composer and the encoder
/// recurse).
pub const MAX_DEPTH: usize = 1000;

/// Why a text could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// go-yaml refuses it too (a syntax error, an unknown alias); go-yaml's
    /// error text (`yaml: line 3: did not find expected key`).
    Invalid(String),
    /// Readable, but nested deeper than kustom follows.
    TooDeep,
}

/// go-yaml's error text: the line of the error's context, else of where
/// the reader was, unless that is the first line (scanner errors count
/// from 1 there, parser errors from 0).
fn go_yaml_error(context: usize, reached: usize, scanner: bool, problem: &str) -> ReadError {
    let line = if context != 0 { context } else { reached };
    ReadError::Invalid(if line == 0 {
        format!("yaml: {problem}")
    } else {
        format!("yaml: line {}: {problem}", line + usize::from(scanner))
    })
}

impl From<SyntaxError> for ReadError {
    fn from(e: SyntaxError) -> Self {
        go_yaml_error(e.line, e.reached, true, &e.problem)
    }
}

type Result<T> = std::result::Result<T, ReadError>;

/// A parser error found at `problem` while reading what started at
/// `context` (when there is such a thing).
fn invalid<T>(context: Option<Mark>, problem: Mark, what: &str) -> Result<T> {
    Err(go_yaml_error(
        context.map_or(0, |m| m.line),
        problem.line,
        false,
        what,
    ))
}

/// An error of the composer (no position).
fn unpositioned<T>(what: &str) -> Result<T> {
    Err(ReadError::Invalid(format!("yaml: {what}")))
}

/// The first document of `text` (go-yaml's `Unmarshal` into a node): a
/// document node, or `None` when the text holds no document.
pub fn parse_document(text: &str) -> Result<Option<Node>> {
    // go-yaml reads an empty input as a lone line break.
    let text = if text.is_empty() { "\n" } else { text };
    let mut composer = Composer {
        parser: Parser::new(text),
        next: None,
        anchors: Vec::new(),
        depth: 0,
    };
    composer.expect(EventKind::StreamStart)?;
    match composer.peek()?.kind() {
        EventKind::DocumentStart => composer.document().map(Some),
        _ => Ok(None),
    }
}

// ---------------------------------------------------------------------------
// Events

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EventKind {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias,
    Scalar,
    SequenceStart,
    SequenceEnd,
    MappingStart,
    MappingEnd,
}

/// A parser event with the properties the composer uses.
#[derive(Debug, Clone)]
struct Event {
    kind: EventKind,
    /// Scalar text or alias name.
    value: String,
    style: ScalarStyle,
    /// Collections: written in flow style.
    flow: bool,
    /// The full tag (`tag:yaml.org,2002:str`, `!local`, `!`), or empty.
    tag: String,
    anchor: String,
    comments: Comments,
}

impl Event {
    fn new(kind: EventKind) -> Event {
        Event {
            kind,
            value: String::new(),
            style: ScalarStyle::Plain,
            flow: false,
            tag: String::new(),
            anchor: String::new(),
            comments: Comments::default(),
        }
    }

    fn kind(&self) -> EventKind {
        self.kind
    }
}

// ---------------------------------------------------------------------------
// Parser

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StreamStart,
    FirstDocumentStart,
    DocumentContent,
    DocumentEnd,
    BlockNode,
    BlockSequenceFirstEntry,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceFirstEntry,
    FlowSequenceEntry,
    FlowPairKey,
    FlowPairValue,
    FlowPairEnd,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
    Done,
}

struct Parser<'a> {
    scanner: Scanner<'a>,
    state: State,
    states: Vec<State>,
    tag_directives: Vec<(String, String)>,
    /// Where the collections being read started (for errors).
    marks: Vec<Mark>,
    /// Comments gathered from the tokens looked at, not yet given to an
    /// event.
    head: String,
    line: String,
    foot: String,
    /// A head comment set aside for the collection that starts a sequence
    /// item (go-yaml's stem comment).
    stem: Option<String>,
}

/// Append a comment block to one of the gathered ones.
fn gather(into: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    if !into.is_empty() {
        into.push('\n');
    }
    into.push_str(text);
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            scanner: Scanner::with_comments(text),
            state: State::StreamStart,
            states: Vec::new(),
            tag_directives: Vec::new(),
            marks: Vec::new(),
            head: String::new(),
            line: String::new(),
            foot: String::new(),
            stem: None,
        }
    }

    /// Look at the next token, taking the comments that belong to it (a
    /// head comment waits when the token is a block end).
    fn peek(&mut self) -> Result<(Kind, Mark)> {
        let (kind, mark) = self.scanner.peek_kind()?;
        if let Some(queue) = self.scanner.comments_mut() {
            while let Some(c) = queue.front() {
                if mark.index < c.token_mark.index {
                    break;
                }
                if !c.head.is_empty() && kind == Kind::BlockEnd {
                    break;
                }
                gather(&mut self.head, &c.head);
                gather(&mut self.foot, &c.foot);
                gather(&mut self.line, &c.line);
                queue.pop_front();
            }
        }
        Ok((kind, mark))
    }

    fn skip(&mut self) -> Result<Tok> {
        Ok(self.scanner.next()?.tok)
    }

    /// Hand the gathered comments to an event.
    fn take_comments(&mut self, event: &mut Event) {
        event.comments = Comments {
            head: std::mem::take(&mut self.head),
            line: std::mem::take(&mut self.line),
            foot: std::mem::take(&mut self.foot),
        };
        self.stem = None;
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::Done);
    }

    fn next_event(&mut self) -> Result<Event> {
        match self.state {
            State::StreamStart => {
                self.peek()?;
                self.skip()?;
                self.state = State::FirstDocumentStart;
                Ok(Event::new(EventKind::StreamStart))
            }
            State::FirstDocumentStart => self.document_start(),
            State::DocumentContent => {
                let (kind, _) = self.peek()?;
                if matches!(
                    kind,
                    Kind::Directive | Kind::DocumentStart | Kind::DocumentEnd | Kind::StreamEnd
                ) {
                    self.pop_state();
                    Ok(Event::new(EventKind::Scalar))
                } else {
                    self.node(true, false)
                }
            }
            State::DocumentEnd => {
                let (kind, _) = self.peek()?;
                if kind == Kind::DocumentEnd {
                    self.skip()?;
                }
                self.state = State::Done;
                let mut event = Event::new(EventKind::DocumentEnd);
                self.take_comments(&mut event);
                // What would head a next node is the document's foot.
                if !event.comments.head.is_empty() && event.comments.foot.is_empty() {
                    event.comments.foot = std::mem::take(&mut event.comments.head);
                }
                Ok(event)
            }
            State::BlockNode => self.node(true, false),
            State::BlockSequenceFirstEntry => {
                let (_, mark) = self.peek()?;
                self.marks.push(mark);
                self.skip()?;
                self.block_sequence_entry()
            }
            State::BlockSequenceEntry => self.block_sequence_entry(),
            State::IndentlessSequenceEntry => self.indentless_sequence_entry(),
            State::BlockMappingFirstKey => {
                let (_, mark) = self.peek()?;
                self.marks.push(mark);
                self.skip()?;
                self.block_mapping_key()
            }
            State::BlockMappingKey => self.block_mapping_key(),
            State::BlockMappingValue => self.block_mapping_value(),
            State::FlowSequenceFirstEntry => {
                let (_, mark) = self.peek()?;
                self.marks.push(mark);
                self.skip()?;
                self.flow_sequence_entry(true)
            }
            State::FlowSequenceEntry => self.flow_sequence_entry(false),
            State::FlowPairKey => self.flow_pair_key(),
            State::FlowPairValue => self.flow_pair_value(),
            State::FlowPairEnd => {
                self.peek()?;
                self.state = State::FlowSequenceEntry;
                Ok(Event::new(EventKind::MappingEnd))
            }
            State::FlowMappingFirstKey => {
                let (_, mark) = self.peek()?;
                self.marks.push(mark);
                self.skip()?;
                self.flow_mapping_key(true)
            }
            State::FlowMappingKey => self.flow_mapping_key(false),
            State::FlowMappingValue => self.flow_mapping_value(false),
            State::FlowMappingEmptyValue => self.flow_mapping_value(true),
            State::Done => Ok(Event::new(EventKind::StreamEnd)),
        }
    }

    fn document_start(&mut self) -> Result<Event> {
        let (kind, _) = self.peek()?;
        match kind {
            Kind::StreamEnd => {
                self.state = State::Done;
                self.skip()?;
                Ok(Event::new(EventKind::StreamEnd))
            }
            Kind::Directive | Kind::DocumentStart => {
                self.directives()?;
                let (kind, mark) = self.peek()?;
                if kind != Kind::DocumentStart {
                    return invalid(None, mark, "did not find expected <document start>");
                }
                self.states.push(State::DocumentEnd);
                self.state = State::DocumentContent;
                self.skip()?;
                Ok(Event::new(EventKind::DocumentStart))
            }
            _ => {
                self.directives()?;
                self.states.push(State::DocumentEnd);
                self.state = State::BlockNode;
                let mut event = Event::new(EventKind::DocumentStart);
                event.comments.head = self.split_document_head();
                Ok(event)
            }
        }
    }

    /// The part of the gathered head comment that belongs to an implicit
    /// document rather than to its first node: everything before the last
    /// blank line in it (or all of it when it ends with one).
    fn split_document_head(&mut self) -> String {
        let bytes = self.head.as_bytes();
        for i in (1..bytes.len()).rev() {
            if bytes[i] != b'\n' {
                continue;
            }
            if i == bytes.len() - 1 {
                let document = self.head[..i].to_string();
                self.head.clear();
                return document;
            }
            if bytes[i - 1] == b'\n' {
                let document = self.head[..i - 1].to_string();
                self.head = self.head[i + 1..].to_string();
                return document;
            }
        }
        String::new()
    }

    fn directives(&mut self) -> Result<()> {
        let mut version_seen = false;
        let mut declared: Vec<String> = Vec::new();
        loop {
            let (kind, mark) = self.peek()?;
            if kind != Kind::Directive {
                return Ok(());
            }
            match self.skip()? {
                Tok::VersionDirective(major, minor) => {
                    if version_seen {
                        return invalid(None, mark, "found duplicate %YAML directive");
                    }
                    if major != 1 || minor != 1 {
                        return invalid(None, mark, "found incompatible YAML document");
                    }
                    version_seen = true;
                }
                Tok::TagDirective(directive) => {
                    let (handle, prefix) = *directive;
                    if declared.contains(&handle) {
                        return invalid(None, mark, "found duplicate %TAG directive");
                    }
                    declared.push(handle.clone());
                    self.tag_directives.push((handle, prefix));
                }
                _ => {}
            }
        }
    }

    /// The full tag for a handle and suffix (`start`: where the node
    /// starts, `at`: where the tag is, for errors).
    fn resolve_handle(&self, handle: &str, suffix: &str, start: Mark, at: Mark) -> Result<String> {
        if handle.is_empty() {
            return Ok(suffix.to_string());
        }
        let declared = self.tag_directives.iter().find(|(h, _)| h == handle);
        let prefix = match (declared, handle) {
            (Some((_, prefix)), _) => prefix.as_str(),
            (None, "!") => "!",
            (None, "!!") => "tag:yaml.org,2002:",
            (None, _) => return invalid(Some(start), at, "found undefined tag handle"),
        };
        Ok(format!("{prefix}{suffix}"))
    }

    /// A node: alias, scalar, or the start of a collection.
    fn node(&mut self, block: bool, indentless: bool) -> Result<Event> {
        let (kind, start) = self.peek()?;
        if kind == Kind::Alias {
            self.pop_state();
            let mut event = Event::new(EventKind::Alias);
            self.take_comments(&mut event);
            if let Tok::Alias(name) = self.skip()? {
                event.value = name;
            }
            return Ok(event);
        }
        let mut anchor = String::new();
        let mut tag_parts = None;
        let mut tag_mark = start;
        for _ in 0..2 {
            let (kind, mark) = self.peek()?;
            match kind {
                Kind::Anchor if anchor.is_empty() => {
                    if let Tok::Anchor(name) = self.skip()? {
                        anchor = name;
                    }
                }
                Kind::Tag if tag_parts.is_none() => {
                    tag_mark = mark;
                    if let Tok::Tag(parts) = self.skip()? {
                        tag_parts = Some(*parts);
                    }
                }
                _ => break,
            }
        }
        let tag = match &tag_parts {
            Some((handle, suffix)) => self.resolve_handle(handle, suffix, start, tag_mark)?,
            None => String::new(),
        };
        let (kind, at) = self.peek()?;
        let mut event = Event::new(EventKind::Scalar);
        event.anchor = anchor;
        event.tag = tag;
        match kind {
            Kind::BlockEntry if indentless => {
                self.state = State::IndentlessSequenceEntry;
                event.kind = EventKind::SequenceStart;
            }
            Kind::Scalar => {
                self.pop_state();
                self.take_comments(&mut event);
                if let Tok::Scalar(value, style) = self.skip()? {
                    event.value = value;
                    event.style = style;
                }
            }
            Kind::FlowSequenceStart => {
                self.state = State::FlowSequenceFirstEntry;
                event.kind = EventKind::SequenceStart;
                event.flow = true;
                self.take_comments(&mut event);
            }
            Kind::FlowMappingStart => {
                self.state = State::FlowMappingFirstKey;
                event.kind = EventKind::MappingStart;
                event.flow = true;
                self.take_comments(&mut event);
            }
            Kind::BlockSequenceStart | Kind::BlockMappingStart if block => {
                if kind == Kind::BlockSequenceStart {
                    self.state = State::BlockSequenceFirstEntry;
                    event.kind = EventKind::SequenceStart;
                } else {
                    self.state = State::BlockMappingFirstKey;
                    event.kind = EventKind::MappingStart;
                }
                if let Some(stem) = self.stem.take() {
                    event.comments.head = stem;
                }
            }
            _ if !event.anchor.is_empty() || tag_parts.is_some() => {
                // Properties without content: an empty scalar.
                self.pop_state();
            }
            _ => return invalid(Some(start), at, "did not find expected node content"),
        }
        Ok(event)
    }

    /// After a `-`: when a collection starts the item, the head comment
    /// gathered before the `-` goes to that collection rather than to its
    /// first entry.
    fn split_stem(&mut self, stem_len: usize) -> Result<()> {
        if stem_len == 0 {
            return Ok(());
        }
        let (kind, _) = self.peek()?;
        if !matches!(kind, Kind::BlockSequenceStart | Kind::BlockMappingStart) {
            return Ok(());
        }
        let stem = self.head[..stem_len].to_string();
        self.head = self.head.get(stem_len + 1..).unwrap_or("").to_string();
        self.stem = Some(stem);
        Ok(())
    }

    fn block_sequence_entry(&mut self) -> Result<Event> {
        let (kind, mark) = self.peek()?;
        match kind {
            Kind::BlockEntry => {
                let stem_len = self.head.len();
                self.skip()?;
                self.split_stem(stem_len)?;
                let (kind, _) = self.peek()?;
                if matches!(kind, Kind::BlockEntry | Kind::BlockEnd) {
                    self.state = State::BlockSequenceEntry;
                    Ok(Event::new(EventKind::Scalar))
                } else {
                    self.states.push(State::BlockSequenceEntry);
                    self.node(true, false)
                }
            }
            Kind::BlockEnd => {
                self.pop_state();
                self.marks.pop();
                self.skip()?;
                Ok(Event::new(EventKind::SequenceEnd))
            }
            _ => invalid(
                self.marks.last().copied(),
                mark,
                "did not find expected '-' indicator",
            ),
        }
    }

    fn indentless_sequence_entry(&mut self) -> Result<Event> {
        let (kind, _) = self.peek()?;
        if kind != Kind::BlockEntry {
            self.pop_state();
            return Ok(Event::new(EventKind::SequenceEnd));
        }
        let stem_len = self.head.len();
        self.skip()?;
        self.split_stem(stem_len)?;
        let (kind, _) = self.peek()?;
        if matches!(
            kind,
            Kind::BlockEntry | Kind::Key | Kind::Value | Kind::BlockEnd
        ) {
            self.state = State::IndentlessSequenceEntry;
            Ok(Event::new(EventKind::Scalar))
        } else {
            self.states.push(State::IndentlessSequenceEntry);
            self.node(true, false)
        }
    }

    fn block_mapping_key(&mut self) -> Result<Event> {
        let (kind, mark) = self.peek()?;
        match kind {
            Kind::Key => {
                self.skip()?;
                let (kind, _) = self.peek()?;
                if matches!(kind, Kind::Key | Kind::Value | Kind::BlockEnd) {
                    self.state = State::BlockMappingValue;
                    Ok(Event::new(EventKind::Scalar))
                } else {
                    self.states.push(State::BlockMappingValue);
                    self.node(true, true)
                }
            }
            Kind::BlockEnd => {
                self.pop_state();
                self.marks.pop();
                let mut event = Event::new(EventKind::MappingEnd);
                self.take_comments(&mut event);
                self.skip()?;
                Ok(event)
            }
            _ => invalid(
                self.marks.last().copied(),
                mark,
                "did not find expected key",
            ),
        }
    }

    fn block_mapping_value(&mut self) -> Result<Event> {
        let (kind, _) = self.peek()?;
        if kind == Kind::Value {
            self.skip()?;
            let (kind, _) = self.peek()?;
            if !matches!(kind, Kind::Key | Kind::Value | Kind::BlockEnd) {
                self.states.push(State::BlockMappingKey);
                return self.node(true, true);
            }
        }
        self.state = State::BlockMappingKey;
        Ok(Event::new(EventKind::Scalar))
    }

    fn flow_sequence_entry(&mut self, first: bool) -> Result<Event> {
        let (mut kind, mark) = self.peek()?;
        if kind != Kind::FlowSequenceEnd {
            if !first {
                if kind != Kind::FlowEntry {
                    return invalid(
                        self.marks.last().copied(),
                        mark,
                        "did not find expected ',' or ']'",
                    );
                }
                self.skip()?;
                kind = self.peek()?.0;
            }
            if kind == Kind::Key {
                // A single-pair mapping inside a flow sequence: `[a: b]`.
                self.state = State::FlowPairKey;
                let mut event = Event::new(EventKind::MappingStart);
                event.flow = true;
                self.skip()?;
                return Ok(event);
            }
            if kind != Kind::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntry);
                return self.node(false, false);
            }
        }
        self.pop_state();
        self.marks.pop();
        let mut event = Event::new(EventKind::SequenceEnd);
        self.take_comments(&mut event);
        self.skip()?;
        Ok(event)
    }

    fn flow_pair_key(&mut self) -> Result<Event> {
        let (kind, _) = self.peek()?;
        if !matches!(kind, Kind::Value | Kind::FlowEntry | Kind::FlowSequenceEnd) {
            self.states.push(State::FlowPairValue);
            return self.node(false, false);
        }
        // go-yaml consumes the token here, whatever it is.
        self.skip()?;
        self.state = State::FlowPairValue;
        Ok(Event::new(EventKind::Scalar))
    }

    fn flow_pair_value(&mut self) -> Result<Event> {
        let (kind, _) = self.peek()?;
        if kind == Kind::Value {
            self.skip()?;
            let (kind, _) = self.peek()?;
            if !matches!(kind, Kind::FlowEntry | Kind::FlowSequenceEnd) {
                self.states.push(State::FlowPairEnd);
                return self.node(false, false);
            }
        }
        self.state = State::FlowPairEnd;
        Ok(Event::new(EventKind::Scalar))
    }

    fn flow_mapping_key(&mut self, first: bool) -> Result<Event> {
        let (mut kind, mark) = self.peek()?;
        if kind != Kind::FlowMappingEnd {
            if !first {
                if kind != Kind::FlowEntry {
                    return invalid(
                        self.marks.last().copied(),
                        mark,
                        "did not find expected ',' or '}'",
                    );
                }
                self.skip()?;
                kind = self.peek()?.0;
            }
            if kind == Kind::Key {
                self.skip()?;
                let (kind, _) = self.peek()?;
                if matches!(kind, Kind::Value | Kind::FlowEntry | Kind::FlowMappingEnd) {
                    self.state = State::FlowMappingValue;
                    return Ok(Event::new(EventKind::Scalar));
                }
                self.states.push(State::FlowMappingValue);
                return self.node(false, false);
            }
            if kind != Kind::FlowMappingEnd {
                self.states.push(State::FlowMappingEmptyValue);
                return self.node(false, false);
            }
        }
        self.pop_state();
        self.marks.pop();
        let mut event = Event::new(EventKind::MappingEnd);
        self.take_comments(&mut event);
        self.skip()?;
        Ok(event)
    }

    fn flow_mapping_value(&mut self, empty: bool) -> Result<Event> {
        let (kind, _) = self.peek()?;
        if !empty && kind == Kind::Value {
            self.skip()?;
            let (kind, _) = self.peek()?;
            if !matches!(kind, Kind::FlowEntry | Kind::FlowMappingEnd) {
                self.states.push(State::FlowMappingKey);
                return self.node(false, false);
            }
        }
        self.state = State::FlowMappingKey;
        Ok(Event::new(EventKind::Scalar))
    }
}

// ---------------------------------------------------------------------------
// Composer

struct Composer<'a> {
    parser: Parser<'a>,
    next: Option<Event>,
    /// Anchors defined so far (an alias must name one).
    anchors: Vec<String>,
    depth: usize,
}

impl Composer<'_> {
    fn peek(&mut self) -> Result<&Event> {
        if self.next.is_none() {
            self.next = Some(self.parser.next_event()?);
        }
        match &self.next {
            Some(e) => Ok(e),
            None => unpositioned("unexpected end of events"),
        }
    }

    fn take(&mut self) -> Result<Event> {
        self.peek()?;
        self.next
            .take()
            .map_or_else(|| unpositioned("unexpected end of events"), Ok)
    }

    fn expect(&mut self, kind: EventKind) -> Result<Event> {
        let event = self.take()?;
        if event.kind != kind {
            return unpositioned(&format!("expected {kind:?} event but got {:?}", event.kind));
        }
        Ok(event)
    }

    /// A node from its first event: the tag as written (then kept on
    /// output), else `default_tag`, else (scalars) the tag its text
    /// implies; the comments the event carries.
    fn node(kind: NodeKind, default_tag: &str, event: &Event) -> Node {
        let mut node = Node::new(kind);
        if !event.tag.is_empty() && event.tag != "!" {
            node.tag = short_tag(&event.tag);
            node.tagged = true;
        } else if !default_tag.is_empty() {
            node.tag = default_tag.to_string();
        } else if kind == NodeKind::Scalar {
            node.tag = resolve_tag(&event.value).to_string();
        }
        node.value = event.value.clone();
        node.comments = event.comments.clone();
        node
    }

    fn anchor(&mut self, node: &mut Node, anchor: &str) {
        if !anchor.is_empty() {
            node.anchor = anchor.to_string();
            self.anchors.push(anchor.to_string());
        }
    }

    fn document(&mut self) -> Result<Node> {
        let start = self.expect(EventKind::DocumentStart)?;
        let mut doc = Self::node(NodeKind::Document, "", &start);
        let root = self.child()?;
        doc.content.push(root);
        if self.peek()?.kind == EventKind::DocumentEnd {
            let end = self.take()?;
            doc.comments.foot = end.comments.foot;
        } else {
            return unpositioned("expected the document's end");
        }
        Ok(doc)
    }

    fn child(&mut self) -> Result<Node> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ReadError::TooDeep);
        }
        let node = match self.peek()?.kind {
            EventKind::Scalar => self.scalar(),
            EventKind::Alias => self.alias(),
            EventKind::SequenceStart => self.sequence(),
            EventKind::MappingStart => self.mapping(),
            other => unpositioned(&format!("unexpected {other:?} event")),
        };
        self.depth -= 1;
        node
    }

    fn alias(&mut self) -> Result<Node> {
        let event = self.take()?;
        if !self.anchors.contains(&event.value) {
            return unpositioned(&format!("unknown anchor '{}' referenced", event.value));
        }
        Ok(Self::node(NodeKind::Alias, "", &event))
    }

    fn scalar(&mut self) -> Result<Node> {
        let event = self.take()?;
        let presentation = match event.style {
            ScalarStyle::Plain => Presentation::Default,
            ScalarStyle::DoubleQuoted => Presentation::DoubleQuoted,
            ScalarStyle::SingleQuoted => Presentation::SingleQuoted,
            ScalarStyle::Literal => Presentation::Literal,
            ScalarStyle::Folded => Presentation::Folded,
        };
        let default_tag = match presentation {
            Presentation::Default if event.value == "<<" => "!!merge",
            Presentation::Default => "",
            _ => "!!str",
        };
        let mut node = Self::node(NodeKind::Scalar, default_tag, &event);
        node.presentation = presentation;
        self.anchor(&mut node, &event.anchor);
        Ok(node)
    }

    fn sequence(&mut self) -> Result<Node> {
        let start = self.take()?;
        let mut node = Self::node(NodeKind::Sequence, "!!seq", &start);
        if start.flow {
            node.presentation = Presentation::Flow;
        }
        self.anchor(&mut node, &start.anchor);
        while self.peek()?.kind != EventKind::SequenceEnd {
            let item = self.child()?;
            node.content.push(item);
        }
        let end = self.take()?;
        node.comments.line = end.comments.line;
        node.comments.foot = end.comments.foot;
        Ok(node)
    }

    fn mapping(&mut self) -> Result<Node> {
        let start = self.take()?;
        let mut node = Self::node(NodeKind::Mapping, "!!map", &start);
        let block = !start.flow;
        if start.flow {
            node.presentation = Presentation::Flow;
        }
        self.anchor(&mut node, &start.anchor);
        while self.peek()?.kind != EventKind::MappingEnd {
            let mut key = self.child()?;
            // A foot comment read before a key of a block mapping ends the
            // previous entry: it goes to the previous key (feet of keys are
            // written after their values).
            if block && !key.comments.foot.is_empty() {
                let n = node.content.len();
                if n >= 2 {
                    node.content[n - 2].comments.foot = std::mem::take(&mut key.comments.foot);
                }
            }
            let mut value = self.child()?;
            if key.comments.foot.is_empty() && !value.comments.foot.is_empty() {
                key.comments.foot = std::mem::take(&mut value.comments.foot);
            }
            node.content.push(key);
            node.content.push(value);
        }
        let end = self.take()?;
        node.comments.line = end.comments.line;
        node.comments.foot = end.comments.foot;
        if block && !node.comments.foot.is_empty() && node.content.len() > 1 {
            let n = node.content.len();
            node.content[n - 2].comments.foot = std::mem::take(&mut node.comments.foot);
        }
        Ok(node)
    }
}
