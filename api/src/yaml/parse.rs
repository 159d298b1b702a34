//! Event parser over [`Scanner`] tokens, with go-yaml v3's grammar.
//!
//! It reads one document, as go-yaml's `Decoder.Decode` does, and reports
//! nodes as events (scalar, alias, collection start/end). Explicit states on
//! a stack rather than recursion keep deeply nested input from exhausting
//! the call stack.

use super::scan::{Kind, Mark, ScalarStyle, Scanner, SyntaxError, Tok};

/// A node event of the document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    Scalar {
        value: String,
        style: ScalarStyle,
        /// The resolved tag (`tag:yaml.org,2002:str`, `!foo`, `!`).
        tag: Option<String>,
        anchor: Option<String>,
        mark: Mark,
    },
    Alias {
        name: String,
        mark: Mark,
    },
    SeqStart {
        anchor: Option<String>,
        mark: Mark,
    },
    SeqEnd,
    MapStart {
        anchor: Option<String>,
        mark: Mark,
    },
    MapEnd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StreamStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    BlockNode,
    BlockSequenceStart,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingStart,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceStart,
    FlowSequenceEntry,
    FlowPairKey,
    FlowPairValue,
    FlowPairEnd,
    FlowMappingStart,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
}

type Result<T> = std::result::Result<T, SyntaxError>;

pub(crate) struct Parser<'a> {
    scanner: Scanner<'a>,
    state: State,
    states: Vec<State>,
    /// `%TAG` handles and prefixes declared by the document (the defaults
    /// `!` and `!!` apply unless redeclared).
    tag_directives: Vec<(String, String)>,
}

fn error<T>(mark: Mark, problem: &str) -> Result<T> {
    Err(SyntaxError {
        line: mark.line,
        reached: mark.line,
        problem: problem.to_string(),
    })
}

impl<'a> Parser<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Parser {
            scanner: Scanner::new(text),
            state: State::StreamStart,
            states: Vec::new(),
            tag_directives: Vec::new(),
        }
    }

    /// Start over on another text, keeping the buffers' memory.
    pub(crate) fn reset(&mut self, text: &'a str) {
        self.scanner.reset(text);
        self.state = State::StreamStart;
        self.states.clear();
        self.tag_directives.clear();
    }

    /// The next event of the first document; None once the document is
    /// complete (or when the text holds no document at all).
    pub(crate) fn next_event(&mut self) -> Result<Option<Event>> {
        loop {
            let event = match self.state {
                State::StreamStart => {
                    self.scanner.next()?;
                    self.state = State::DocumentStart;
                    continue;
                }
                State::DocumentStart => {
                    if !self.document_start()? {
                        return Ok(None);
                    }
                    continue;
                }
                State::DocumentContent => {
                    let (kind, mark) = self.scanner.peek_kind()?;
                    if matches!(
                        kind,
                        Kind::Directive | Kind::DocumentStart | Kind::DocumentEnd | Kind::StreamEnd
                    ) {
                        self.pop_state();
                        empty_scalar(mark)
                    } else {
                        self.node(true, false)?
                    }
                }
                State::DocumentEnd => return Ok(None),
                State::BlockNode => self.node(true, false)?,
                State::BlockSequenceStart => {
                    self.scanner.next()?;
                    self.state = State::BlockSequenceEntry;
                    continue;
                }
                State::BlockSequenceEntry => self.block_sequence_entry()?,
                State::IndentlessSequenceEntry => self.indentless_sequence_entry()?,
                State::BlockMappingStart => {
                    self.scanner.next()?;
                    self.state = State::BlockMappingKey;
                    continue;
                }
                State::BlockMappingKey => self.block_mapping_key()?,
                State::BlockMappingValue => self.block_mapping_value()?,
                State::FlowSequenceStart => {
                    self.scanner.next()?;
                    self.flow_sequence_entry(true)?
                }
                State::FlowSequenceEntry => self.flow_sequence_entry(false)?,
                State::FlowPairKey => self.flow_pair_key()?,
                State::FlowPairValue => self.flow_pair_value()?,
                State::FlowPairEnd => {
                    self.state = State::FlowSequenceEntry;
                    Event::MapEnd
                }
                State::FlowMappingStart => {
                    self.scanner.next()?;
                    self.flow_mapping_key(true)?
                }
                State::FlowMappingKey => self.flow_mapping_key(false)?,
                State::FlowMappingValue => self.flow_mapping_value()?,
                State::FlowMappingEmptyValue => {
                    let (_, mark) = self.scanner.peek_kind()?;
                    self.state = State::FlowMappingKey;
                    empty_scalar(mark)
                }
            };
            return Ok(Some(event));
        }
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::DocumentEnd);
    }

    fn peek_kind(&mut self) -> Result<Kind> {
        Ok(self.scanner.peek_kind()?.0)
    }

    /// Set up the first document; false when there is none.
    fn document_start(&mut self) -> Result<bool> {
        match self.peek_kind()? {
            Kind::StreamEnd => Ok(false),
            Kind::Directive | Kind::DocumentStart => {
                self.directives()?;
                let (kind, mark) = self.scanner.peek_kind()?;
                if kind != Kind::DocumentStart {
                    return error(mark, "did not find expected <document start>");
                }
                self.scanner.next()?;
                self.states.push(State::DocumentEnd);
                self.state = State::DocumentContent;
                Ok(true)
            }
            _ => {
                // An implicit document.
                self.directives()?;
                self.states.push(State::DocumentEnd);
                self.state = State::BlockNode;
                Ok(true)
            }
        }
    }

    fn directives(&mut self) -> Result<()> {
        let mut version_seen = false;
        while self.peek_kind()? == Kind::Directive {
            let t = self.scanner.next()?;
            match t.tok {
                Tok::VersionDirective(major, minor) => {
                    if version_seen {
                        return error(t.mark, "found duplicate %YAML directive");
                    }
                    if major != 1 || minor != 1 {
                        return error(t.mark, "found incompatible YAML document");
                    }
                    version_seen = true;
                }
                Tok::TagDirective(directive) => {
                    let (handle, prefix) = *directive;
                    if self.tag_directives.iter().any(|(h, _)| *h == handle) {
                        return error(t.mark, "found duplicate %TAG directive");
                    }
                    self.tag_directives.push((handle, prefix));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A node: alias, scalar, or the start of a collection.
    fn node(&mut self, block: bool, indentless: bool) -> Result<Event> {
        let (kind, mark) = self.scanner.peek_kind()?;
        if kind == Kind::Alias {
            if let Tok::Alias(name) = self.scanner.next()?.tok {
                self.pop_state();
                return Ok(Event::Alias { name, mark });
            }
        }
        let mut anchor = None;
        let mut tag_parts = None;
        let mut tag_mark = mark;
        for _ in 0..2 {
            let (kind, m) = self.scanner.peek_kind()?;
            match kind {
                Kind::Anchor if anchor.is_none() => {
                    if let Tok::Anchor(name) = self.scanner.next()?.tok {
                        anchor = Some(name);
                    }
                }
                Kind::Tag if tag_parts.is_none() => {
                    if let Tok::Tag(parts) = self.scanner.next()?.tok {
                        tag_parts = Some(*parts);
                        tag_mark = m;
                    }
                }
                _ => break,
            }
        }
        let tag = match tag_parts {
            None => None,
            Some((handle, suffix)) if handle.is_empty() => Some(suffix),
            Some((handle, suffix)) => {
                let declared = self.tag_directives.iter().find(|(h, _)| *h == handle);
                let prefix = match (declared, handle.as_str()) {
                    (Some((_, prefix)), _) => prefix.as_str(),
                    (None, "!") => "!",
                    (None, "!!") => "tag:yaml.org,2002:",
                    (None, _) => return error(tag_mark, "found undefined tag handle"),
                };
                Some(format!("{prefix}{suffix}"))
            }
        };
        let (kind, content_mark) = self.scanner.peek_kind()?;
        let start_mark = if anchor.is_some() || tag.is_some() {
            mark
        } else {
            content_mark
        };
        match kind {
            Kind::BlockEntry if indentless => {
                self.state = State::IndentlessSequenceEntry;
                Ok(Event::SeqStart {
                    anchor,
                    mark: start_mark,
                })
            }
            Kind::Scalar => {
                let Tok::Scalar(value, style) = self.scanner.next()?.tok else {
                    return error(content_mark, "did not find expected node content");
                };
                self.pop_state();
                Ok(Event::Scalar {
                    value,
                    style,
                    tag,
                    anchor,
                    mark: start_mark,
                })
            }
            Kind::FlowSequenceStart => {
                self.state = State::FlowSequenceStart;
                Ok(Event::SeqStart {
                    anchor,
                    mark: start_mark,
                })
            }
            Kind::FlowMappingStart => {
                self.state = State::FlowMappingStart;
                Ok(Event::MapStart {
                    anchor,
                    mark: start_mark,
                })
            }
            Kind::BlockSequenceStart if block => {
                self.state = State::BlockSequenceStart;
                Ok(Event::SeqStart {
                    anchor,
                    mark: start_mark,
                })
            }
            Kind::BlockMappingStart if block => {
                self.state = State::BlockMappingStart;
                Ok(Event::MapStart {
                    anchor,
                    mark: start_mark,
                })
            }
            _ if anchor.is_some() || tag.is_some() => {
                self.pop_state();
                Ok(Event::Scalar {
                    value: String::new(),
                    style: ScalarStyle::Plain,
                    tag,
                    anchor,
                    mark: start_mark,
                })
            }
            _ => error(content_mark, "did not find expected node content"),
        }
    }

    fn block_sequence_entry(&mut self) -> Result<Event> {
        let (kind, mark) = self.scanner.peek_kind()?;
        match kind {
            Kind::BlockEntry => {
                self.scanner.next()?;
                if matches!(self.peek_kind()?, Kind::BlockEntry | Kind::BlockEnd) {
                    self.state = State::BlockSequenceEntry;
                    Ok(empty_scalar(mark))
                } else {
                    self.states.push(State::BlockSequenceEntry);
                    self.node(true, false)
                }
            }
            Kind::BlockEnd => {
                self.scanner.next()?;
                self.pop_state();
                Ok(Event::SeqEnd)
            }
            _ => error(mark, "did not find expected '-' indicator"),
        }
    }

    fn indentless_sequence_entry(&mut self) -> Result<Event> {
        let (kind, mark) = self.scanner.peek_kind()?;
        if kind != Kind::BlockEntry {
            self.pop_state();
            return Ok(Event::SeqEnd);
        }
        self.scanner.next()?;
        if matches!(
            self.peek_kind()?,
            Kind::BlockEntry | Kind::Key | Kind::Value | Kind::BlockEnd
        ) {
            self.state = State::IndentlessSequenceEntry;
            Ok(empty_scalar(mark))
        } else {
            self.states.push(State::IndentlessSequenceEntry);
            self.node(true, false)
        }
    }

    fn block_mapping_key(&mut self) -> Result<Event> {
        let (kind, mark) = self.scanner.peek_kind()?;
        match kind {
            Kind::Key => {
                self.scanner.next()?;
                if matches!(self.peek_kind()?, Kind::Key | Kind::Value | Kind::BlockEnd) {
                    self.state = State::BlockMappingValue;
                    Ok(empty_scalar(mark))
                } else {
                    self.states.push(State::BlockMappingValue);
                    self.node(true, true)
                }
            }
            Kind::BlockEnd => {
                self.scanner.next()?;
                self.pop_state();
                Ok(Event::MapEnd)
            }
            _ => error(mark, "did not find expected key"),
        }
    }

    fn block_mapping_value(&mut self) -> Result<Event> {
        let (kind, mark) = self.scanner.peek_kind()?;
        if kind == Kind::Value {
            self.scanner.next()?;
            if !matches!(self.peek_kind()?, Kind::Key | Kind::Value | Kind::BlockEnd) {
                self.states.push(State::BlockMappingKey);
                return self.node(true, true);
            }
        }
        self.state = State::BlockMappingKey;
        Ok(empty_scalar(mark))
    }

    fn flow_sequence_entry(&mut self, first: bool) -> Result<Event> {
        let (mut kind, mut mark) = self.scanner.peek_kind()?;
        if kind != Kind::FlowSequenceEnd {
            if !first {
                if kind != Kind::FlowEntry {
                    return error(mark, "did not find expected ',' or ']'");
                }
                self.scanner.next()?;
                (kind, mark) = self.scanner.peek_kind()?;
            }
            if kind == Kind::Key {
                // A single-pair mapping inside a flow sequence: `[a: b]`.
                self.scanner.next()?;
                self.state = State::FlowPairKey;
                return Ok(Event::MapStart { anchor: None, mark });
            }
            if kind != Kind::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntry);
                return self.node(false, false);
            }
        }
        self.scanner.next()?;
        self.pop_state();
        Ok(Event::SeqEnd)
    }

    fn flow_pair_key(&mut self) -> Result<Event> {
        let (kind, mark) = self.scanner.peek_kind()?;
        if matches!(kind, Kind::Value | Kind::FlowEntry | Kind::FlowSequenceEnd) {
            // go-yaml consumes the token here.
            self.scanner.next()?;
            self.state = State::FlowPairValue;
            return Ok(empty_scalar(mark));
        }
        self.states.push(State::FlowPairValue);
        self.node(false, false)
    }

    fn flow_pair_value(&mut self) -> Result<Event> {
        let (kind, mark) = self.scanner.peek_kind()?;
        if kind == Kind::Value {
            self.scanner.next()?;
            if !matches!(self.peek_kind()?, Kind::FlowEntry | Kind::FlowSequenceEnd) {
                self.states.push(State::FlowPairEnd);
                return self.node(false, false);
            }
        }
        self.state = State::FlowPairEnd;
        Ok(empty_scalar(mark))
    }

    fn flow_mapping_key(&mut self, first: bool) -> Result<Event> {
        let (mut kind, mark) = self.scanner.peek_kind()?;
        if kind != Kind::FlowMappingEnd {
            if !first {
                if kind != Kind::FlowEntry {
                    return error(mark, "did not find expected ',' or '}'");
                }
                self.scanner.next()?;
                kind = self.peek_kind()?;
            }
            if kind == Kind::Key {
                self.scanner.next()?;
                let (next, mark) = self.scanner.peek_kind()?;
                if matches!(next, Kind::Value | Kind::FlowEntry | Kind::FlowMappingEnd) {
                    self.state = State::FlowMappingValue;
                    return Ok(empty_scalar(mark));
                }
                self.states.push(State::FlowMappingValue);
                return self.node(false, false);
            }
            if kind != Kind::FlowMappingEnd {
                self.states.push(State::FlowMappingEmptyValue);
                return self.node(false, false);
            }
        }
        self.scanner.next()?;
        self.pop_state();
        Ok(Event::MapEnd)
    }

    fn flow_mapping_value(&mut self) -> Result<Event> {
        let (kind, mark) = self.scanner.peek_kind()?;
        if kind == Kind::Value {
            self.scanner.next()?;
            if !matches!(self.peek_kind()?, Kind::FlowEntry | Kind::FlowMappingEnd) {
                self.states.push(State::FlowMappingKey);
                return self.node(false, false);
            }
        }
        self.state = State::FlowMappingKey;
        Ok(empty_scalar(mark))
    }
}

fn empty_scalar(mark: Mark) -> Event {
    Event::Scalar {
        value: String::new(),
        style: ScalarStyle::Plain,
        tag: None,
        anchor: None,
        mark,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events of the first document, compactly: `{`, `}`, `[`, `]`,
    /// `*name`, and scalars as `style:value` (P, S, D, L, F).
    fn events(text: &str) -> Result<Vec<String>> {
        let mut p = Parser::new(text);
        let mut out = Vec::new();
        while let Some(e) = p.next_event()? {
            out.push(match e {
                Event::MapStart { .. } => "{".to_string(),
                Event::MapEnd => "}".to_string(),
                Event::SeqStart { .. } => "[".to_string(),
                Event::SeqEnd => "]".to_string(),
                Event::Alias { name, .. } => format!("*{name}"),
                Event::Scalar {
                    value, style, tag, ..
                } => {
                    let s = match style {
                        ScalarStyle::Plain => 'P',
                        ScalarStyle::SingleQuoted => 'S',
                        ScalarStyle::DoubleQuoted => 'D',
                        ScalarStyle::Literal => 'L',
                        ScalarStyle::Folded => 'F',
                    };
                    match tag {
                        Some(t) => format!("{s}<{t}>:{value}"),
                        None => format!("{s}:{value}"),
                    }
                }
            });
        }
        Ok(out)
    }

    fn ev(text: &str) -> String {
        match events(text) {
            Ok(e) => e.join(" "),
            Err(e) => format!("error line {}: {}", e.line, e.problem),
        }
    }

    #[test]
    fn block_collections() {
        assert_eq!(ev("a: 1\nb:\n  c: d\n"), "{ P:a P:1 P:b { P:c P:d } }");
        assert_eq!(ev("a:\n- x\n- y\nb: z\n"), "{ P:a [ P:x P:y ] P:b P:z }");
        assert_eq!(ev("- a\n-\n- - b\n"), "[ P:a P: [ P:b ] ]");
        assert_eq!(ev("? a\n: b\n"), "{ P:a P:b }");
        assert_eq!(ev("a:\n"), "{ P:a P: }");
    }

    #[test]
    fn flow_collections() {
        assert_eq!(ev("{a: [1, 2], b}"), "{ P:a [ P:1 P:2 ] P:b P: }");
        assert_eq!(ev("[a: b, c]"), "[ { P:a P:b } P:c ]");
        assert_eq!(ev("[]"), "[ ]");
        assert_eq!(ev("{a: 1,}"), "{ P:a P:1 }");
    }

    #[test]
    fn plain_and_quoted_folding() {
        assert_eq!(ev("a: one\n  two\n\n  three\n"), "{ P:a P:one two\nthree }");
        assert_eq!(ev("a: x #c\nb: y#z\n"), "{ P:a P:x P:b P:y#z }");
        assert_eq!(ev("a: 'it''s\n  here'\n"), "{ P:a S:it's here }");
        assert_eq!(ev("a: \"x\\ty\\u00e9\\\n  z\"\n"), "{ P:a D:x\tyéz }");
        // NEL, LS and PS are line breaks (YAML 1.1): NEL folds like LF,
        // LS / PS are kept but eat the blanks around them.
        assert_eq!(ev("a: \"x \u{85} y\"\n"), "{ P:a D:x y }");
        assert_eq!(ev("a: \"x \u{2028} y\"\n"), "{ P:a D:x\u{2028}y }");
    }

    #[test]
    fn block_scalars() {
        assert_eq!(ev("a: |\n  x\n   y\n\n"), "{ P:a L:x\n y\n }");
        assert_eq!(ev("a: |-\n  x\n"), "{ P:a L:x }");
        assert_eq!(ev("a: |+\n  x\n\n"), "{ P:a L:x\n\n }");
        assert_eq!(ev("a: >\n  x\n  y\n\n  z\n"), "{ P:a F:x y\nz\n }");
        assert_eq!(ev("a: |2\n    x\n"), "{ P:a L:  x\n }");
        assert_eq!(ev("a: |\n  x"), "{ P:a L:x }");
        assert_eq!(ev("- >-\n  x\n- y\n"), "[ F:x P:y ]");
    }

    #[test]
    fn properties() {
        assert_eq!(
            ev("a: &x !!str 1\nb: *x\nc: !foo\n"),
            "{ P:a P<tag:yaml.org,2002:str>:1 P:b *x P:c P<!foo>: }"
        );
        assert_eq!(ev("a: ! 1\n"), "{ P:a P<!>:1 }");
        assert_eq!(
            ev("a: !e!x 1\n"),
            "error line 0: found undefined tag handle"
        );
        assert_eq!(ev("--- !!map\na: 1\n"), "{ P:a P:1 }");
    }

    #[test]
    fn documents() {
        assert_eq!(ev(""), "");
        assert_eq!(ev("# only\n"), "");
        assert_eq!(ev("---\n"), "P:");
        assert_eq!(ev("a: 1\n---\nb: 2\n"), "{ P:a P:1 }");
        assert_eq!(ev("x\n...\n"), "P:x");
        assert_eq!(
            ev("%YAML 1.1\n"),
            "error line 1: did not find expected <document start>"
        );
    }

    #[test]
    fn comments_and_tabs() {
        // A comment after a value may be preceded by tabs.
        assert_eq!(ev("a:\t# c\n  b: 1\n"), "{ P:a { P:b P:1 } }");
        assert_eq!(ev("# c\n\t# d\na: 1\n"), "{ P:a P:1 }");
        assert_eq!(
            ev("a:\n\tb: 1\n"),
            "error line 1: found character that cannot start any token"
        );
    }

    #[test]
    fn syntax_errors() {
        assert_eq!(
            ev("a: b: c\n"),
            "error line 0: mapping values are not allowed in this context"
        );
        assert_eq!(ev("a: 1\nb\n"), "error line 1: could not find expected ':'");
        assert_eq!(ev("a: 1\n- b\n"), "error line 1: did not find expected key");
        // (Indented further, the line continues the plain scalar.)
        assert_eq!(ev("a: 1\n - b\n"), "{ P:a P:1 - b }");
        assert_eq!(
            ev("a: \"\\q\"\n"),
            "error line 0: found unknown escape character"
        );
        assert_eq!(
            ev("a: 'x\n"),
            "error line 0: found unexpected end of stream"
        );
        assert_eq!(
            ev("[a, b\n"),
            "error line 1: did not find expected ',' or ']'"
        );
    }

    #[test]
    fn implicit_keys_are_limited_to_1024_characters() {
        let ok = format!("{}: v\n", "k".repeat(1024));
        assert!(ev(&ok).starts_with("{ P:k"));
        // Too long: no longer a key candidate when the ':' comes.
        let too_long = format!("{}: v\n", "k".repeat(1025));
        assert_eq!(
            ev(&too_long),
            "error line 0: mapping values are not allowed in this context"
        );
        // Where a key is required (at the mapping's indentation), that is
        // the error instead.
        let nested = format!("a:\n  b: 1\n  {}: v\n", "k".repeat(1025));
        assert_eq!(ev(&nested), "error line 2: could not find expected ':'");
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let text = format!("{}{}", "[".repeat(3000), "]".repeat(3000));
        assert!(events(&text).is_ok());
    }
}
