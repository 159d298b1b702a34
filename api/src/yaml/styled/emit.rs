//! Writing a [`Node`] tree as kyaml does (`yaml.String`): go-yaml v3's
//! encoder with an indentation of two, sequences flush with their key
//! ("compact"), no line folding, Unicode written as it is.
//!
//! The encoder turns the tree into events (start and end of each
//! collection, scalars, aliases), with each node's comments on them and a
//! key's foot comment moved to the next key as a "tail". The emitter then
//! writes the events with a small state machine whose observable state is
//! the cursor (column, whether only whitespace or indentation was written
//! since the last break), the indentation stack, and comments waiting to
//! be written; it looks ahead one or two events to write an empty
//! collection in flow style and to decide whether a key is simple.

use super::node::{long_tag, resolve_tag, Node, NodeKind, Presentation, LONG_TAG_PREFIX};

/// go-yaml's indentation step, as kyaml sets it.
const INDENT: isize = 2;
/// Longest simple key (anchor, tag and text), in bytes.
const MAX_SIMPLE_KEY: usize = 128;

/// Why a tree could not be written (go-yaml's emitter errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmitError(pub String);

/// The tree as kyaml's `String` writes it (ending in a line break). A node
/// other than a document is written as the content of one.
pub fn to_text(node: &Node) -> Result<String, EmitError> {
    let mut events = vec![Event::new(EventKind::StreamStart)];
    if node.kind == NodeKind::Document {
        encode(&mut events, node, "", true);
    } else {
        events.push(Event {
            implicit: true,
            ..Event::new(EventKind::DocumentStart)
        });
        encode(&mut events, node, "", true);
        events.push(Event {
            implicit: true,
            ..Event::new(EventKind::DocumentEnd)
        });
    }
    events.push(Event::new(EventKind::StreamEnd));
    let mut emitter = Emitter::default();
    for i in 0..events.len() {
        emitter.analyze(&events[i])?;
        emitter.dispatch(&events, i)?;
    }
    Ok(emitter.out)
}

// ---------------------------------------------------------------------------
// Encoder: the tree as events

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Debug, Clone)]
struct Event<'n> {
    kind: EventKind,
    /// Scalar text, or an alias's anchor name.
    value: &'n str,
    anchor: &'n str,
    /// Long form, empty when the tag is not written.
    tag: String,
    implicit: bool,
    style: ScalarStyle,
    flow: bool,
    head: &'n str,
    line: &'n str,
    foot: &'n str,
    tail: &'n str,
}

impl Event<'_> {
    fn new(kind: EventKind) -> Self {
        Event {
            kind,
            value: "",
            anchor: "",
            tag: String::new(),
            implicit: false,
            style: ScalarStyle::Plain,
            flow: false,
            head: "",
            line: "",
            foot: "",
            tail: "",
        }
    }
}

/// Append the events of `node`; `tail` is the foot comment of the key
/// before it in a mapping; `keep_foot` is false for a key, whose foot
/// comment is written after its value instead.
fn encode<'n>(events: &mut Vec<Event<'n>>, node: &'n Node, tail: &'n str, keep_foot: bool) {
    let foot: &str = if keep_foot { &node.comments.foot } else { "" };
    // The tag is written only when it was written in the text or when the
    // value alone would read as something else; a string that would read
    // as another type is quoted instead.
    let mut tag = node.tag.as_str();
    let mut force_quotes = false;
    if !tag.is_empty() && !node.tagged {
        match node.kind {
            NodeKind::Scalar => {
                let quoted = matches!(
                    node.presentation,
                    Presentation::SingleQuoted
                        | Presentation::DoubleQuoted
                        | Presentation::Literal
                        | Presentation::Folded
                );
                if (tag == "!!str" && quoted) || resolve_tag(&node.value) == tag {
                    tag = "";
                } else if tag == "!!str" {
                    tag = "";
                    force_quotes = true;
                }
            }
            NodeKind::Mapping if tag == "!!map" => tag = "",
            NodeKind::Sequence if tag == "!!seq" => tag = "",
            _ => {}
        }
    }
    let collection = |kind| Event {
        anchor: &node.anchor,
        tag: if tag.is_empty() {
            String::new()
        } else {
            long_tag(tag)
        },
        implicit: tag.is_empty(),
        flow: node.presentation == Presentation::Flow,
        head: &node.comments.head,
        ..Event::new(kind)
    };
    match node.kind {
        NodeKind::Document => {
            events.push(Event {
                implicit: true,
                head: &node.comments.head,
                ..Event::new(EventKind::DocumentStart)
            });
            for child in &node.content {
                encode(events, child, "", true);
            }
            events.push(Event {
                implicit: true,
                foot,
                ..Event::new(EventKind::DocumentEnd)
            });
        }
        NodeKind::Sequence => {
            events.push(collection(EventKind::SequenceStart));
            for child in &node.content {
                encode(events, child, "", true);
            }
            events.push(Event {
                line: &node.comments.line,
                foot,
                ..Event::new(EventKind::SequenceEnd)
            });
        }
        NodeKind::Mapping => {
            events.push(Event {
                tail,
                ..collection(EventKind::MappingStart)
            });
            // A key's foot comment is written after its value: it travels
            // as the tail of the next key, or of the mapping's end.
            let mut tail = "";
            for pair in node.content.chunks(2) {
                let key = &pair[0];
                encode(events, key, tail, false);
                tail = &key.comments.foot;
                if let Some(value) = pair.get(1) {
                    encode(events, value, "", true);
                }
            }
            events.push(Event {
                tail,
                line: &node.comments.line,
                foot,
                ..Event::new(EventKind::MappingEnd)
            });
        }
        NodeKind::Alias => events.push(Event {
            value: &node.value,
            head: &node.comments.head,
            line: &node.comments.line,
            foot,
            ..Event::new(EventKind::Alias)
        }),
        NodeKind::Scalar => {
            let style = match node.presentation {
                Presentation::DoubleQuoted => ScalarStyle::DoubleQuoted,
                Presentation::SingleQuoted => ScalarStyle::SingleQuoted,
                Presentation::Literal => ScalarStyle::Literal,
                Presentation::Folded => ScalarStyle::Folded,
                _ if node.value.contains('\n') => ScalarStyle::Literal,
                _ if force_quotes => ScalarStyle::DoubleQuoted,
                _ => ScalarStyle::Plain,
            };
            events.push(Event {
                value: &node.value,
                anchor: &node.anchor,
                tag: if tag.is_empty() {
                    String::new()
                } else {
                    long_tag(tag)
                },
                implicit: tag.is_empty(),
                style,
                head: &node.comments.head,
                line: &node.comments.line,
                foot,
                tail,
                ..Event::new(EventKind::Scalar)
            });
        }
    }
}

// ---------------------------------------------------------------------------
// Emitter

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    StreamStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    FlowSequenceFirstItem,
    FlowSequenceTrailItem,
    FlowSequenceItem,
    FlowMappingFirstKey,
    FlowMappingTrailKey,
    FlowMappingKey,
    FlowMappingSimpleValue,
    FlowMappingValue,
    BlockSequenceFirstItem,
    BlockSequenceItem,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingSimpleValue,
    BlockMappingValue,
    End,
}

/// What the scalar analysis allows for a text.
#[derive(Debug, Clone, Copy, Default)]
struct Allowed {
    multiline: bool,
    flow_plain: bool,
    block_plain: bool,
    single_quoted: bool,
    block: bool,
}

#[derive(Debug, Default)]
struct Emitter {
    out: String,
    state: State,
    states: Vec<State>,
    indent: isize,
    indents: Vec<isize>,
    flow_level: usize,
    column: usize,
    /// Only whitespace written since the last indicator.
    whitespace: bool,
    /// Only indentation (and indicators that count as such) on this line.
    indention: bool,
    /// A foot comment was just written at this indentation: the next line
    /// there gets a blank line before it.
    foot_indent: isize,
    mapping_context: bool,
    simple_key_context: bool,
    // Comments waiting to be written.
    head: String,
    line: String,
    foot: String,
    tail: String,
    key_line: String,
    // The current event's anchor, tag and scalar.
    anchor: Option<(String, bool)>,
    tag_handle: String,
    tag_suffix: String,
    scalar: Allowed,
    scalar_style: Option<ScalarStyle>,
}

fn error<T>(problem: &str) -> Result<T, EmitError> {
    Err(EmitError(problem.to_string()))
}

/// go-yaml's anchor characters.
fn is_alpha(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// go-yaml's printable set (tab, DEL, C1 controls, U+FEFF, U+FFFE/F and
/// everything beyond the Basic Multilingual Plane are not).
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}')
        || (('\u{E000}'..='\u{FFFD}').contains(&c) && c != '\u{FEFF}')
}

/// What styles a scalar's text allows (go-yaml's scalar analysis).
fn analyze_scalar(value: &str) -> Allowed {
    if value.is_empty() {
        return Allowed {
            multiline: false,
            flow_plain: false,
            block_plain: true,
            single_quoted: true,
            block: false,
        };
    }
    let mut block_indicators = false;
    let mut flow_indicators = false;
    if value.starts_with("---") || value.starts_with("...") {
        block_indicators = true;
        flow_indicators = true;
    }
    let (mut line_breaks, mut special, mut tabs) = (false, false, false);
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let chars: Vec<char> = value.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let first = i == 0;
        let last = i + 1 == chars.len();
        let followed_by_whitespace = chars.get(i + 1).is_none_or(|&n| n == ' ' || n == '\t');
        if first {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                '?' | ':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                '-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match c {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_indicators = true,
                ':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                '#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if c == '\t' {
            tabs = true;
        } else if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            leading_space |= first;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= first;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = c == ' ' || c == '\t' || c == '\0' || is_break(c);
    }
    let mut a = Allowed {
        multiline: line_breaks,
        flow_plain: true,
        block_plain: true,
        single_quoted: true,
        block: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if trailing_space {
        a.block = false;
    }
    if break_space {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if space_break || tabs || special {
        a.flow_plain = false;
        a.block_plain = false;
        a.single_quoted = false;
    }
    if space_break || special {
        a.block = false;
    }
    if line_breaks {
        a.flow_plain = false;
        a.block_plain = false;
    }
    if flow_indicators {
        a.flow_plain = false;
    }
    if block_indicators {
        a.block_plain = false;
    }
    a
}

impl Emitter {
    // --- writing -------------------------------------------------------------

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
        self.indention = true;
    }

    /// A line break taken from a text: `\n` as such, the others copied.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
            self.indention = true;
        }
    }

    fn write_all(&mut self, s: &str) {
        for c in s.chars() {
            self.put(c);
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0);
        let column = self.column as isize;
        if !self.indention || column > indent || (column == indent && !self.whitespace) {
            self.put_break();
        }
        if self.foot_indent == indent {
            self.put_break();
        }
        while (self.column as isize) < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.foot_indent = -1;
    }

    fn write_indicator(
        &mut self,
        s: &str,
        need_space: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_space && !self.whitespace {
            self.put(' ');
        }
        self.write_all(s);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn write_comment(&mut self, comment: &str) {
        let mut breaks = false;
        let mut pound = false;
        for c in comment.chars() {
            if is_break(c) {
                self.write_break(c);
                breaks = true;
                pound = false;
            } else {
                if breaks {
                    self.write_indent();
                }
                if !pound {
                    if c != '#' {
                        self.put('#');
                        self.put(' ');
                    }
                    pound = true;
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
        if !breaks {
            self.put_break();
        }
        self.whitespace = true;
    }

    fn process_head_comment(&mut self) {
        if !self.tail.is_empty() {
            self.write_indent();
            let tail = std::mem::take(&mut self.tail);
            self.write_comment(&tail);
            self.foot_indent = self.indent.max(0);
        }
        if self.head.is_empty() {
            return;
        }
        self.write_indent();
        let head = std::mem::take(&mut self.head);
        self.write_comment(&head);
    }

    fn process_line_comment(&mut self, linebreak: bool) {
        if self.line.is_empty() {
            if linebreak {
                self.put_break();
            }
            return;
        }
        if !self.whitespace {
            self.put(' ');
        }
        let line = std::mem::take(&mut self.line);
        self.write_comment(&line);
    }

    fn process_foot_comment(&mut self) {
        if self.foot.is_empty() {
            return;
        }
        self.write_indent();
        let foot = std::mem::take(&mut self.foot);
        self.write_comment(&foot);
        self.foot_indent = self.indent.max(0);
    }

    fn comments_follow(&self) -> bool {
        !(self.line.is_empty() && self.foot.is_empty() && self.tail.is_empty())
    }

    // --- indentation and states ---------------------------------------------

    fn increase_indent(&mut self, flow: bool, compact_sequence: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { INDENT } else { 0 };
        } else if self.states.last() == Some(&State::BlockSequenceItem) {
            // The first indentation inside a sequence item only skips "- ".
            self.indent += 2;
        } else {
            self.indent = INDENT * ((self.indent + INDENT) / INDENT);
            if compact_sequence {
                self.indent -= 2;
            }
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::End);
    }

    // --- events ---------------------------------------------------------------

    /// Take in an event's comments, anchor, tag and scalar analysis.
    fn analyze(&mut self, e: &Event<'_>) -> Result<(), EmitError> {
        self.anchor = None;
        self.tag_handle.clear();
        self.tag_suffix.clear();
        self.scalar = Allowed::default();
        for (slot, text) in [
            (&mut self.head, e.head),
            (&mut self.line, e.line),
            (&mut self.foot, e.foot),
            (&mut self.tail, e.tail),
        ] {
            if !text.is_empty() {
                *slot = text.to_string();
            }
        }
        let alias = e.kind == EventKind::Alias;
        let anchor = if alias { e.value } else { e.anchor };
        if alias || !anchor.is_empty() {
            let what = if alias { "alias" } else { "anchor" };
            if anchor.is_empty() {
                return error(&format!("{what} value must not be empty"));
            }
            if !anchor.chars().all(is_alpha) {
                return error(&format!(
                    "{what} value must contain alphanumerical characters only"
                ));
            }
            self.anchor = Some((anchor.to_string(), alias));
        }
        if matches!(
            e.kind,
            EventKind::Scalar | EventKind::SequenceStart | EventKind::MappingStart
        ) && !e.tag.is_empty()
            && !e.implicit
        {
            // The default directives: `!` and `!!`.
            if let Some(suffix) = e.tag.strip_prefix('!') {
                self.tag_handle = "!".to_string();
                self.tag_suffix = suffix.to_string();
            } else if let Some(suffix) = e.tag.strip_prefix(LONG_TAG_PREFIX) {
                self.tag_handle = "!!".to_string();
                self.tag_suffix = suffix.to_string();
            } else {
                self.tag_suffix = e.tag.clone();
            }
        }
        if e.kind == EventKind::Scalar {
            self.scalar = analyze_scalar(e.value);
        }
        Ok(())
    }

    fn dispatch(&mut self, events: &[Event<'_>], i: usize) -> Result<(), EmitError> {
        let e = &events[i];
        match self.state {
            State::StreamStart => {
                if e.kind != EventKind::StreamStart {
                    return error("expected STREAM-START");
                }
                self.indent = -1;
                self.column = 0;
                self.whitespace = true;
                self.indention = true;
                self.foot_indent = -1;
                self.state = State::DocumentStart;
            }
            State::DocumentStart => match e.kind {
                EventKind::DocumentStart => {
                    // Only one document is ever written: never `---`.
                    if !self.head.is_empty() {
                        self.process_head_comment();
                        self.put_break();
                    }
                    self.state = State::DocumentContent;
                }
                EventKind::StreamEnd => self.state = State::End,
                _ => return error("expected DOCUMENT-START or STREAM-END"),
            },
            State::DocumentContent => {
                self.states.push(State::DocumentEnd);
                self.process_head_comment();
                self.node(events, i, false, false)?;
                self.process_line_comment(false);
                self.process_foot_comment();
            }
            State::DocumentEnd => {
                if e.kind != EventKind::DocumentEnd {
                    return error("expected DOCUMENT-END");
                }
                // A document's foot is set off by a blank line.
                self.foot_indent = 0;
                self.process_foot_comment();
                self.foot_indent = -1;
                self.write_indent();
                if !e.implicit {
                    self.write_indicator("...", true, false, false);
                    self.write_indent();
                }
                self.state = State::DocumentStart;
            }
            State::FlowSequenceFirstItem => self.flow_sequence_item(events, i, true, false)?,
            State::FlowSequenceTrailItem => self.flow_sequence_item(events, i, false, true)?,
            State::FlowSequenceItem => self.flow_sequence_item(events, i, false, false)?,
            State::FlowMappingFirstKey => self.flow_mapping_key(events, i, true, false)?,
            State::FlowMappingTrailKey => self.flow_mapping_key(events, i, false, true)?,
            State::FlowMappingKey => self.flow_mapping_key(events, i, false, false)?,
            State::FlowMappingSimpleValue => self.flow_mapping_value(events, i, true)?,
            State::FlowMappingValue => self.flow_mapping_value(events, i, false)?,
            State::BlockSequenceFirstItem => self.block_sequence_item(events, i, true)?,
            State::BlockSequenceItem => self.block_sequence_item(events, i, false)?,
            State::BlockMappingFirstKey => self.block_mapping_key(events, i, true)?,
            State::BlockMappingKey => self.block_mapping_key(events, i, false)?,
            State::BlockMappingSimpleValue => self.block_mapping_value(events, i, true)?,
            State::BlockMappingValue => self.block_mapping_value(events, i, false)?,
            State::End => return error("expected nothing after STREAM-END"),
        }
        Ok(())
    }

    fn flow_sequence_item(
        &mut self,
        events: &[Event<'_>],
        i: usize,
        first: bool,
        trail: bool,
    ) -> Result<(), EmitError> {
        if first {
            self.write_indicator("[", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
        }
        if events[i].kind == EventKind::SequenceEnd {
            self.flow_level -= 1;
            self.pop_indent();
            if self.column == 0 {
                self.write_indent();
            }
            self.write_indicator("]", false, false, false);
            self.process_line_comment(false);
            self.process_foot_comment();
            self.pop_state();
            return Ok(());
        }
        if !first && !trail {
            self.write_indicator(",", false, false, false);
        }
        self.process_head_comment();
        if self.column == 0 {
            self.write_indent();
        }
        self.states.push(if self.comments_follow() {
            State::FlowSequenceTrailItem
        } else {
            State::FlowSequenceItem
        });
        self.node(events, i, false, false)?;
        if self.comments_follow() {
            self.write_indicator(",", false, false, false);
        }
        self.process_line_comment(false);
        self.process_foot_comment();
        Ok(())
    }

    fn flow_mapping_key(
        &mut self,
        events: &[Event<'_>],
        i: usize,
        first: bool,
        trail: bool,
    ) -> Result<(), EmitError> {
        if first {
            self.write_indicator("{", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
        }
        if events[i].kind == EventKind::MappingEnd {
            let pending = !(self.head.is_empty() && self.foot.is_empty() && self.tail.is_empty());
            if pending && !first && !trail {
                self.write_indicator(",", false, false, false);
            }
            self.process_head_comment();
            self.flow_level -= 1;
            self.pop_indent();
            self.write_indicator("}", false, false, false);
            self.process_line_comment(false);
            self.process_foot_comment();
            self.pop_state();
            return Ok(());
        }
        if !first && !trail {
            self.write_indicator(",", false, false, false);
        }
        self.process_head_comment();
        if self.column == 0 {
            self.write_indent();
        }
        if self.is_simple_key(events, i) {
            self.states.push(State::FlowMappingSimpleValue);
            self.node(events, i, true, true)
        } else {
            self.write_indicator("?", true, false, false);
            self.states.push(State::FlowMappingValue);
            self.node(events, i, true, false)
        }
    }

    fn flow_mapping_value(
        &mut self,
        events: &[Event<'_>],
        i: usize,
        simple: bool,
    ) -> Result<(), EmitError> {
        self.write_indicator(":", !simple, false, false);
        self.states.push(if self.comments_follow() {
            State::FlowMappingTrailKey
        } else {
            State::FlowMappingKey
        });
        self.node(events, i, true, false)?;
        if self.comments_follow() {
            self.write_indicator(",", false, false, false);
        }
        self.process_line_comment(false);
        self.process_foot_comment();
        Ok(())
    }

    fn block_sequence_item(
        &mut self,
        events: &[Event<'_>],
        i: usize,
        first: bool,
    ) -> Result<(), EmitError> {
        if first {
            // Under a mapping key, "- " counts as indentation (kyaml's
            // compact sequences).
            let compact = self.mapping_context && (self.column == 0 || !self.indention);
            self.increase_indent(false, compact);
        }
        if events[i].kind == EventKind::SequenceEnd {
            self.pop_indent();
            self.pop_state();
            return Ok(());
        }
        self.process_head_comment();
        self.write_indent();
        self.write_indicator("-", true, false, true);
        self.states.push(State::BlockSequenceItem);
        self.node(events, i, false, false)?;
        self.process_line_comment(false);
        self.process_foot_comment();
        Ok(())
    }

    fn block_mapping_key(
        &mut self,
        events: &[Event<'_>],
        i: usize,
        first: bool,
    ) -> Result<(), EmitError> {
        if first {
            self.increase_indent(false, false);
        }
        self.process_head_comment();
        if events[i].kind == EventKind::MappingEnd {
            self.pop_indent();
            self.pop_state();
            return Ok(());
        }
        self.write_indent();
        if !self.line.is_empty() {
            // A line comment on a key: written with its value.
            self.key_line = std::mem::take(&mut self.line);
        }
        if self.is_simple_key(events, i) {
            self.states.push(State::BlockMappingSimpleValue);
            self.node(events, i, true, true)
        } else {
            self.write_indicator("?", true, false, true);
            self.states.push(State::BlockMappingValue);
            self.node(events, i, true, false)
        }
    }

    fn block_mapping_value(
        &mut self,
        events: &[Event<'_>],
        i: usize,
        simple: bool,
    ) -> Result<(), EmitError> {
        let e = &events[i];
        if simple {
            self.write_indicator(":", false, false, false);
        } else {
            self.write_indent();
            self.write_indicator(":", true, false, true);
        }
        if !self.key_line.is_empty() {
            match e.kind {
                // A scalar value takes the key's line comment unless it has
                // one of its own (then the key's is lost).
                EventKind::Scalar if self.line.is_empty() => {
                    self.line = std::mem::take(&mut self.key_line);
                }
                // A block collection follows: write it now, after the ':'.
                EventKind::MappingStart | EventKind::SequenceStart if !e.flow => {
                    std::mem::swap(&mut self.line, &mut self.key_line);
                    self.process_line_comment(false);
                    std::mem::swap(&mut self.line, &mut self.key_line);
                }
                _ => {}
            }
        }
        self.states.push(State::BlockMappingKey);
        self.node(events, i, true, false)?;
        self.process_line_comment(false);
        self.process_foot_comment();
        Ok(())
    }

    /// Whether the node starting at event `i` can be written as a simple
    /// (implicit) key.
    fn is_simple_key(&self, events: &[Event<'_>], i: usize) -> bool {
        let e = &events[i];
        let anchor = self.anchor.as_ref().map_or(0, |(a, _)| a.len());
        let tag = self.tag_handle.len() + self.tag_suffix.len();
        let empty = |end| events.get(i + 1).is_some_and(|n| n.kind == end);
        let length = match e.kind {
            EventKind::Alias => anchor,
            EventKind::Scalar if self.scalar.multiline => return false,
            EventKind::Scalar => anchor + tag + e.value.len(),
            EventKind::SequenceStart if empty(EventKind::SequenceEnd) => anchor + tag,
            EventKind::MappingStart if empty(EventKind::MappingEnd) => anchor + tag,
            _ => return false,
        };
        length <= MAX_SIMPLE_KEY
    }

    fn node(
        &mut self,
        events: &[Event<'_>],
        i: usize,
        mapping: bool,
        simple_key: bool,
    ) -> Result<(), EmitError> {
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        let e = &events[i];
        match e.kind {
            EventKind::Alias => {
                self.process_anchor();
                self.pop_state();
            }
            EventKind::Scalar => {
                self.select_scalar_style(e);
                self.process_anchor();
                self.process_tag();
                self.increase_indent(true, false);
                self.process_scalar(e.value);
                self.pop_indent();
                self.pop_state();
            }
            EventKind::SequenceStart | EventKind::MappingStart => {
                self.process_anchor();
                self.process_tag();
                let sequence = e.kind == EventKind::SequenceStart;
                let end = if sequence {
                    EventKind::SequenceEnd
                } else {
                    EventKind::MappingEnd
                };
                let empty = events.get(i + 1).is_some_and(|n| n.kind == end);
                let flow = self.flow_level > 0 || e.flow || empty;
                self.state = match (sequence, flow) {
                    (true, true) => State::FlowSequenceFirstItem,
                    (true, false) => State::BlockSequenceFirstItem,
                    (false, true) => State::FlowMappingFirstKey,
                    (false, false) => State::BlockMappingFirstKey,
                };
            }
            _ => return error("expected SCALAR, SEQUENCE-START, MAPPING-START, or ALIAS"),
        }
        Ok(())
    }

    fn select_scalar_style(&mut self, e: &Event<'_>) {
        let no_tag = self.tag_handle.is_empty() && self.tag_suffix.is_empty();
        let a = self.scalar;
        let mut style = e.style;
        if self.simple_key_context && a.multiline {
            style = ScalarStyle::DoubleQuoted;
        }
        if style == ScalarStyle::Plain {
            let in_flow = self.flow_level > 0;
            if (in_flow && !a.flow_plain) || (!in_flow && !a.block_plain) {
                style = ScalarStyle::SingleQuoted;
            }
            if e.value.is_empty() && (in_flow || self.simple_key_context) {
                style = ScalarStyle::SingleQuoted;
            }
            if no_tag && !e.implicit {
                style = ScalarStyle::SingleQuoted;
            }
        }
        if style == ScalarStyle::SingleQuoted && !a.single_quoted {
            style = ScalarStyle::DoubleQuoted;
        }
        if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded)
            && (!a.block || self.flow_level > 0 || self.simple_key_context)
        {
            style = ScalarStyle::DoubleQuoted;
        }
        self.scalar_style = Some(style);
    }

    fn process_anchor(&mut self) {
        if let Some((anchor, alias)) = self.anchor.clone() {
            self.write_indicator(if alias { "*" } else { "&" }, true, false, false);
            self.write_all(&anchor);
            self.whitespace = false;
            self.indention = false;
        }
    }

    fn process_tag(&mut self) {
        if self.tag_handle.is_empty() && self.tag_suffix.is_empty() {
            return;
        }
        let suffix = std::mem::take(&mut self.tag_suffix);
        if self.tag_handle.is_empty() {
            self.write_indicator("!<", true, false, false);
            self.write_tag_content(&suffix);
            self.write_indicator(">", false, false, false);
        } else {
            if !self.whitespace {
                self.put(' ');
            }
            let handle = self.tag_handle.clone();
            self.write_all(&handle);
            self.whitespace = false;
            self.indention = false;
            if !suffix.is_empty() {
                self.write_tag_content(&suffix);
            }
        }
        self.tag_suffix = suffix;
    }

    /// A tag's text: URI characters as they are, others percent-encoded.
    fn write_tag_content(&mut self, value: &str) {
        for c in value.chars() {
            let kept = c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    ';' | '/'
                        | '?'
                        | ':'
                        | '@'
                        | '&'
                        | '='
                        | '+'
                        | '$'
                        | ','
                        | '_'
                        | '.'
                        | '~'
                        | '*'
                        | '\''
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | '-'
                );
            if kept {
                self.put(c);
            } else {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    self.put('%');
                    self.put(
                        char::from_digit(u32::from(b >> 4), 16)
                            .map_or('0', |d| d.to_ascii_uppercase()),
                    );
                    self.put(
                        char::from_digit(u32::from(b & 15), 16)
                            .map_or('0', |d| d.to_ascii_uppercase()),
                    );
                }
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn process_scalar(&mut self, value: &str) {
        match self.scalar_style.unwrap_or(ScalarStyle::Plain) {
            ScalarStyle::Plain => self.write_plain(value),
            ScalarStyle::SingleQuoted => self.write_single_quoted(value),
            ScalarStyle::DoubleQuoted => self.write_double_quoted(value),
            ScalarStyle::Literal => self.write_literal(value),
            ScalarStyle::Folded => self.write_folded(value),
        }
    }

    fn write_plain(&mut self, value: &str) {
        if !value.is_empty() && !self.whitespace {
            self.put(' ');
        }
        let mut breaks = false;
        for c in value.chars() {
            if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
        if !value.is_empty() {
            self.whitespace = false;
        }
        self.indention = false;
    }

    fn write_single_quoted(&mut self, value: &str) {
        self.write_indicator("'", true, false, false);
        let mut breaks = false;
        for c in value.chars() {
            if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &str) {
        self.write_indicator("\"", true, false, false);
        // go-yaml's byte order mark test looks at the start of the text
        // for every character.
        let bom = value.starts_with('\u{FEFF}');
        for c in value.chars() {
            if bom || !is_printable(c) || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let short = match c {
                    '\0' => Some('0'),
                    '\x07' => Some('a'),
                    '\x08' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\x0b' => Some('v'),
                    '\x0c' => Some('f'),
                    '\r' => Some('r'),
                    '\x1b' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{A0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                if let Some(s) = short {
                    self.put(s);
                    continue;
                }
                let v = c as u32;
                let (letter, digits) = if v <= 0xFF {
                    ('x', 2)
                } else if v <= 0xFFFF {
                    ('u', 4)
                } else {
                    ('U', 8)
                };
                self.put(letter);
                for k in (0..digits).rev() {
                    let d = (v >> (4 * k)) & 0xF;
                    self.put(char::from_digit(d, 16).map_or('0', |c| c.to_ascii_uppercase()));
                }
            } else {
                self.put(c);
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// The indentation and chomping indicators of a block scalar.
    fn write_block_hints(&mut self, value: &str) {
        if value.starts_with(|c: char| c == ' ' || is_break(c)) {
            self.write_indicator("2", false, false, false);
        }
        let mut rev = value.chars().rev();
        let chomp = match (rev.next(), rev.next()) {
            (None, _) => Some("-"),
            (Some(last), _) if !is_break(last) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(before)) if is_break(before) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        self.write_block_hints(value);
        self.process_line_comment(true);
        self.whitespace = true;
        let mut breaks = true;
        for c in value.chars() {
            if is_break(c) {
                self.write_break(c);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    fn write_folded(&mut self, value: &str) {
        self.write_indicator(">", true, false, false);
        self.write_block_hints(value);
        self.process_line_comment(true);
        self.whitespace = true;
        // go-yaml decides whether a line break needs a second one (so that
        // it is not folded into a space) by looking at the start of the
        // text, not at the line that follows.
        let first_content = value.chars().find(|&c| !is_break(c));
        let starts_blank = first_content.is_none_or(|c| c == ' ' || c == '\t' || c == '\0');
        let mut breaks = true;
        let mut leading_spaces = true;
        for c in value.chars() {
            if is_break(c) {
                if !breaks && !leading_spaces && c == '\n' && !starts_blank {
                    self.put_break();
                }
                self.write_break(c);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                    leading_spaces = c == ' ' || c == '\t';
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}
