//! Tokenizer with go-yaml v3's (libyaml's) rules.
//!
//! YAML's lexical structure depends on context: whether `key:` starts a
//! mapping is only known when the `:` arrives, so the scanner keeps "simple
//! key" candidates and inserts KEY / BLOCK-MAPPING-START tokens back into its
//! queue when a candidate turns out to be a key. Indentation changes turn
//! into BLOCK-SEQUENCE-START / BLOCK-MAPPING-START / BLOCK-END tokens. The
//! rules below are the ones go-yaml applies (YAML 1.1 line breaks: CR, LF,
//! NEL, LS, PS; a 1024-character limit on implicit keys; tabs refused where
//! they could be taken for indentation), so inputs kustomize accepts or
//! rejects are accepted or rejected here too.

mod chars;
mod comments;
mod scalars;
mod tags;

use std::collections::VecDeque;

/// A position: 0-based line and column (in characters), character index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    pub index: usize,
    pub line: usize,
    pub col: usize,
}

/// Scalar presentation styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    StreamStart,
    StreamEnd,
    VersionDirective(u8, u8),
    /// Handle and prefix; boxed, like [`Tok::Tag`]'s parts, because tags
    /// are rare and every token is moved through the queue at this size.
    TagDirective(Box<(String, String)>),
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias(String),
    Anchor(String),
    /// Handle and suffix (`!!` + `str`, `!` + `foo`, `` + `!` for the
    /// non-specific tag, `` + URI for verbatim tags).
    Tag(Box<(String, String)>),
    Scalar(String, ScalarStyle),
}

/// A token's type without its payload (cheap to copy and compare).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    StreamStart,
    StreamEnd,
    Directive,
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias,
    Anchor,
    Tag,
    Scalar,
}

impl Tok {
    pub(crate) fn kind(&self) -> Kind {
        match self {
            Tok::StreamStart => Kind::StreamStart,
            Tok::StreamEnd => Kind::StreamEnd,
            Tok::VersionDirective(..) | Tok::TagDirective(..) => Kind::Directive,
            Tok::DocumentStart => Kind::DocumentStart,
            Tok::DocumentEnd => Kind::DocumentEnd,
            Tok::BlockSequenceStart => Kind::BlockSequenceStart,
            Tok::BlockMappingStart => Kind::BlockMappingStart,
            Tok::BlockEnd => Kind::BlockEnd,
            Tok::FlowSequenceStart => Kind::FlowSequenceStart,
            Tok::FlowSequenceEnd => Kind::FlowSequenceEnd,
            Tok::FlowMappingStart => Kind::FlowMappingStart,
            Tok::FlowMappingEnd => Kind::FlowMappingEnd,
            Tok::BlockEntry => Kind::BlockEntry,
            Tok::FlowEntry => Kind::FlowEntry,
            Tok::Key => Kind::Key,
            Tok::Value => Kind::Value,
            Tok::Alias(_) => Kind::Alias,
            Tok::Anchor(_) => Kind::Anchor,
            Tok::Tag(..) => Kind::Tag,
            Tok::Scalar(..) => Kind::Scalar,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub tok: Tok,
    pub mark: Mark,
}

/// A scanner or parser error: what and where (0-based line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// The line go-yaml reports the error on (its "context" position).
    pub line: usize,
    /// The line the reader had reached (go-yaml's "problem" position),
    /// which go-yaml reports when the context is on the first line.
    pub reached: usize,
    pub problem: String,
}

impl SyntaxError {
    fn at(mark: Mark, reached: Mark, problem: impl Into<String>) -> Self {
        SyntaxError {
            line: mark.line,
            reached: reached.line,
            problem: problem.into(),
        }
    }
}

type Result<T> = std::result::Result<T, SyntaxError>;

#[derive(Debug, Clone, Copy, Default)]
struct SimpleKey {
    possible: bool,
    required: bool,
    token_number: usize,
    mark: Mark,
}

/// ASCII bytes that end a run of characters, for [`Scanner::skip_run`].
const fn stop_table(stops: &[u8]) -> [bool; 128] {
    let mut t = [false; 128];
    let mut i = 0;
    while i < stops.len() {
        t[stops[i] as usize] = true;
        i += 1;
    }
    t
}

/// A line's end.
static LINE_STOPS: [bool; 128] = stop_table(b"\r\n");
/// Where a plain scalar might end or fold.
static PLAIN_STOPS: [bool; 128] = stop_table(b" \t\r\n:,?[]{}");
/// Where a quoted scalar needs attention.
static QUOTED_STOPS: [bool; 128] = stop_table(b" \t\r\n'\"\\");

/// Longest lookahead go-yaml allows for an implicit key, in characters.
const MAX_SIMPLE_KEY: usize = 1024;
/// go-yaml's nesting limits.
const MAX_DEPTH: usize = 10_000;

pub(crate) struct Scanner<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    mark: Mark,
    /// Line breaks passed since the last non-blank character.
    newlines: usize,
    queue: VecDeque<Token>,
    /// Tokens already handed out (numbering for simple keys).
    taken: usize,
    indent: isize,
    indents: Vec<isize>,
    flow_level: usize,
    simple_keys: Vec<SimpleKey>,
    simple_key_allowed: bool,
    started: bool,
    ended: bool,
    /// Comments and where they belong, collected only for the
    /// style-keeping reader (`None` on the ordinary path, which skips them).
    comments: Option<Box<comments::Comments>>,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let mut scanner = Scanner {
            text,
            b: text.as_bytes(),
            pos: 0,
            mark: Mark::default(),
            newlines: 0,
            queue: VecDeque::new(),
            taken: 0,
            indent: -1,
            indents: Vec::new(),
            flow_level: 0,
            simple_keys: Vec::new(),
            simple_key_allowed: false,
            started: false,
            ended: false,
            comments: None,
        };
        scanner.reset(text);
        scanner
    }

    /// A scanner that also records comments (see [`Scanner::comments_mut`]).
    pub(crate) fn with_comments(text: &'a str) -> Self {
        let mut scanner = Scanner::new(text);
        scanner.comments = Some(Box::default());
        scanner
    }

    /// Start over on another text, keeping the buffers' memory.
    pub(crate) fn reset(&mut self, text: &'a str) {
        self.text = text;
        self.b = text.as_bytes();
        // A byte order mark at the very start is not content.
        self.pos = if self.b.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        self.mark = Mark::default();
        self.newlines = 0;
        self.queue.clear();
        self.taken = 0;
        self.indent = -1;
        self.indents.clear();
        self.flow_level = 0;
        self.simple_keys.clear();
        self.simple_key_allowed = false;
        self.started = false;
        self.ended = false;
        if let Some(c) = self.comments.as_mut() {
            c.queue.clear();
        }
    }
    fn error<T>(&self, mark: Mark, problem: &str) -> Result<T> {
        Err(SyntaxError::at(mark, self.mark, problem))
    }

    // --- token queue --------------------------------------------------------

    /// The next token without consuming it.
    #[inline(always)]
    pub(crate) fn peek(&mut self) -> Result<&Token> {
        self.fill()?;
        // fill() leaves at least one token unless the stream has ended.
        match self.queue.front() {
            Some(t) => Ok(t),
            None => self.error(self.mark, "unexpected end of stream"),
        }
    }

    /// The next token's kind and position.
    // Always inlined: returned through memory, the (kind, mark) pair cost
    // a store-forwarding stall on every call (a tenth of the parse time).
    #[inline(always)]
    pub(crate) fn peek_kind(&mut self) -> Result<(Kind, Mark)> {
        let t = self.peek()?;
        Ok((t.tok.kind(), t.mark))
    }

    /// Consume and return the next token.
    // Always inlined, like `peek_kind`: the token returned through memory
    // stalled on store forwarding, and most callers drop it anyway.
    #[inline(always)]
    pub(crate) fn next(&mut self) -> Result<Token> {
        self.fill()?;
        match self.queue.pop_front() {
            Some(t) => {
                self.taken += 1;
                if matches!(t.tok, Tok::StreamEnd) {
                    self.ended = true;
                }
                Ok(t)
            }
            None => self.error(self.mark, "unexpected end of stream"),
        }
    }

    /// Fetch tokens until the head of the queue cannot change any more (it
    /// is not a possible simple key).
    #[inline]
    fn fill(&mut self) -> Result<()> {
        // Fast path: enough lookahead and the head is not a key candidate.
        if self.queue.len() >= 3 && !self.head_is_key_candidate() {
            return Ok(());
        }
        self.fill_slow()
    }

    fn head_is_key_candidate(&self) -> bool {
        let head = self.taken;
        self.simple_keys
            .iter()
            .any(|k| k.possible && k.token_number == head)
    }

    fn fill_slow(&mut self) -> Result<()> {
        loop {
            // go-yaml keeps three tokens of lookahead (for its comment
            // handling), which decides how far past a document it reads.
            if self.queue.len() >= 3 {
                let head = self.taken;
                let mut pending = false;
                for i in 0..self.simple_keys.len() {
                    if self.simple_keys[i].possible && self.simple_keys[i].token_number == head {
                        pending = self.simple_key_valid(i)?;
                        break;
                    }
                }
                if !pending {
                    return Ok(());
                }
            }
            if self.ended
                || self
                    .queue
                    .back()
                    .is_some_and(|t| matches!(t.tok, Tok::StreamEnd))
            {
                return Ok(());
            }
            self.fetch_next_token()?;
        }
    }

    fn push(&mut self, tok: Tok, mark: Mark) {
        self.queue.push_back(Token { tok, mark });
    }

    /// Insert at an absolute token number (for KEY / BLOCK-MAPPING-START
    /// before a simple key found later).
    fn insert(&mut self, number: usize, tok: Tok, mark: Mark) {
        let at = number.saturating_sub(self.taken).min(self.queue.len());
        self.queue.insert(at, Token { tok, mark });
    }

    fn next_token_number(&self) -> usize {
        self.taken + self.queue.len()
    }

    // --- simple keys and indentation ---------------------------------------

    /// Whether simple key `i` can still be a key; a stale required key is
    /// an error.
    fn simple_key_valid(&mut self, i: usize) -> Result<bool> {
        let k = self.simple_keys[i];
        if !k.possible {
            return Ok(false);
        }
        if k.mark.line < self.mark.line || k.mark.index + MAX_SIMPLE_KEY < self.mark.index {
            if k.required {
                return self.error(k.mark, "could not find expected ':'");
            }
            self.simple_keys[i].possible = false;
            return Ok(false);
        }
        Ok(true)
    }

    fn save_simple_key(&mut self) -> Result<()> {
        let required = self.flow_level == 0 && self.indent == self.mark.col as isize;
        if self.simple_key_allowed {
            let key = SimpleKey {
                possible: true,
                required,
                token_number: self.next_token_number(),
                mark: self.mark,
            };
            self.remove_simple_key()?;
            if let Some(last) = self.simple_keys.last_mut() {
                *last = key;
            }
        }
        Ok(())
    }

    fn remove_simple_key(&mut self) -> Result<()> {
        if let Some(last) = self.simple_keys.last_mut() {
            if last.possible {
                if last.required {
                    let mark = last.mark;
                    return self.error(mark, "could not find expected ':'");
                }
                last.possible = false;
            }
        }
        Ok(())
    }

    fn increase_flow_level(&mut self) -> Result<()> {
        self.simple_keys.push(SimpleKey {
            token_number: self.next_token_number(),
            mark: self.mark,
            ..SimpleKey::default()
        });
        self.flow_level += 1;
        if self.flow_level > MAX_DEPTH {
            return self.error(self.mark, "exceeded max depth of 10000");
        }
        Ok(())
    }

    fn decrease_flow_level(&mut self) {
        if self.flow_level > 0 {
            self.flow_level -= 1;
            self.simple_keys.pop();
        }
    }

    /// Open a block collection at `col` if it is deeper than the current
    /// indentation; the start token goes at token `number` (or the end).
    fn roll_indent(
        &mut self,
        col: usize,
        number: Option<usize>,
        tok: Tok,
        mark: Mark,
    ) -> Result<()> {
        if self.flow_level > 0 {
            return Ok(());
        }
        if self.indent < col as isize {
            self.indents.push(self.indent);
            self.indent = col as isize;
            if self.indents.len() > MAX_DEPTH {
                return self.error(mark, "exceeded max depth of 10000");
            }
            match number {
                Some(n) => self.insert(n, tok, mark),
                None => self.push(tok, mark),
            }
        }
        Ok(())
    }

    /// Close block collections deeper than `col`. `scan_mark` is where
    /// the skip to the current position started: with comments kept, each
    /// BLOCK-END goes before the foot comments of its block found since.
    fn unroll_indent(&mut self, col: isize, scan_mark: Mark) {
        if self.flow_level > 0 {
            return;
        }
        let mut block_mark = Mark {
            index: scan_mark.index.saturating_sub(1),
            ..scan_mark
        };
        while self.indent > col {
            let mark = if self.keeps_comments() {
                block_mark = self.block_end_mark(block_mark);
                block_mark
            } else {
                self.mark
            };
            self.push(Tok::BlockEnd, mark);
            self.indent = self.indents.pop().unwrap_or(-1);
        }
    }

    // --- token dispatch -----------------------------------------------------

    fn fetch_next_token(&mut self) -> Result<()> {
        if !self.started {
            self.started = true;
            self.indent = -1;
            self.simple_keys.push(SimpleKey::default());
            self.simple_key_allowed = true;
            self.push(Tok::StreamStart, self.mark);
            return Ok(());
        }
        let scan_mark = self.mark;
        self.scan_to_next_token()?;
        self.unroll_indent(self.mark.col as isize, scan_mark);
        if self.is_z(0) {
            return self.fetch_stream_end();
        }
        let c = self.at(0);
        if self.mark.col == 0 {
            if c == b'%' {
                return self.fetch_directive();
            }
            let rest = self.rest();
            if (rest.starts_with(b"---") || rest.starts_with(b"...")) && self.is_blankz(3) {
                let tok = if c == b'-' {
                    Tok::DocumentStart
                } else {
                    Tok::DocumentEnd
                };
                return self.fetch_document_indicator(tok);
            }
        }
        let comment_mark = if self.keeps_comments() {
            self.line_comment_mark(c)
        } else {
            self.mark
        };
        match c {
            b'[' => self.fetch_flow_collection_start(Tok::FlowSequenceStart)?,
            b'{' => self.fetch_flow_collection_start(Tok::FlowMappingStart)?,
            b']' => self.fetch_flow_collection_end(Tok::FlowSequenceEnd)?,
            b'}' => self.fetch_flow_collection_end(Tok::FlowMappingEnd)?,
            b',' => self.fetch_flow_entry()?,
            b'-' if self.is_blankz(1) => self.fetch_block_entry()?,
            b'?' if self.flow_level > 0 || self.is_blankz(1) => self.fetch_key()?,
            b':' if self.flow_level > 0 || self.is_blankz(1) => self.fetch_value()?,
            b'*' => self.fetch_anchor(true)?,
            b'&' => self.fetch_anchor(false)?,
            b'!' => self.fetch_tag()?,
            b'|' if self.flow_level == 0 => self.fetch_block_scalar(true)?,
            b'>' if self.flow_level == 0 => self.fetch_block_scalar(false)?,
            b'\'' => self.fetch_flow_scalar(true)?,
            b'"' => self.fetch_flow_scalar(false)?,
            _ if self.can_start_plain(c) => self.fetch_plain_scalar()?,
            _ => return self.error(self.mark, "found character that cannot start any token"),
        }
        // go-yaml reads a comment on the same line as the token right away
        // (except after '-'), which lets tabs precede it.
        if !self
            .queue
            .back()
            .is_some_and(|t| matches!(t.tok, Tok::BlockEntry))
        {
            if self.keeps_comments() {
                self.scan_line_comment(comment_mark);
            } else {
                self.skip_line_comment();
            }
        }
        Ok(())
    }

    fn can_start_plain(&self, c: u8) -> bool {
        let indicator = matches!(
            c,
            b'-' | b'?'
                | b':'
                | b','
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'#'
                | b'&'
                | b'*'
                | b'!'
                | b'|'
                | b'>'
                | b'\''
                | b'"'
                | b'%'
                | b'@'
                | b'`'
        );
        !(self.is_blankz(0) || indicator)
            || (c == b'-' && !self.is_blank(1))
            || (self.flow_level == 0 && (c == b'?' || c == b':') && !self.is_blankz(1))
    }

    /// Skip blanks, comments and line breaks up to the next token.
    fn scan_to_next_token(&mut self) -> Result<()> {
        let scan_mark = self.mark;
        loop {
            if self.mark.col == 0 && self.rest().starts_with(b"\xEF\xBB\xBF") {
                self.skip();
            }
            // Tabs are whitespace in flow context and where no simple key
            // (hence no indentation) can start.
            let tabs_ok = self.flow_level > 0 || !self.simple_key_allowed;
            let mut n = self.spaces_ahead();
            while let Some(&c) = self.b.get(self.pos + n) {
                if c == b' ' || (tabs_ok && c == b'\t') {
                    n += 1;
                } else {
                    break;
                }
            }
            // Blanks leave `newlines` alone; only the position moves.
            self.skip_spaces(n);
            if self.keeps_comments() {
                self.retarget_entry_comment();
                if self.at(0) == b'#' {
                    self.scan_comments(scan_mark);
                }
            } else if self.at(0) == b'#' {
                self.skip_comments();
            }
            if self.is_break(0) {
                self.skip_line();
                if self.flow_level == 0 {
                    self.simple_key_allowed = true;
                }
            } else {
                return Ok(());
            }
        }
    }

    /// Consume a comment and any further comment lines that follow it
    /// (go-yaml collects them in one go, stepping over blank lines and
    /// blanks, tabs included); stops at the line break after the last one.
    fn skip_comments(&mut self) {
        loop {
            self.skip_run(&LINE_STOPS);
            // Look ahead over blanks and line breaks for another comment.
            // go-yaml steps byte by byte here, so a multi-byte line break
            // (NEL, LS, PS) ends the lookahead.
            let mut k = 0;
            let mut found = false;
            while k < 512 && !self.is_z(k) {
                if matches!(self.at(k), b' ' | b'\t' | b'\r' | b'\n') {
                    k += 1;
                } else {
                    found = self.at(k) == b'#';
                    break;
                }
            }
            if !found {
                return;
            }
            let target = self.pos + k;
            while self.pos < target {
                if self.is_break(0) {
                    self.skip_line();
                } else {
                    self.skip();
                }
            }
        }
    }

    /// A comment later on the line of the token just scanned.
    fn skip_line_comment(&mut self) {
        if self.newlines > 0 {
            return;
        }
        let mut k = 0;
        while k < 512 && self.is_blank(k) {
            k += 1;
        }
        if self.at(k) == b'#' {
            self.skip_run(&LINE_STOPS);
        }
    }

    fn fetch_stream_end(&mut self) -> Result<()> {
        if self.mark.col != 0 {
            self.mark.col = 0;
            self.mark.line += 1;
        }
        self.unroll_indent(-1, self.mark);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        self.push(Tok::StreamEnd, self.mark);
        Ok(())
    }

    fn fetch_directive(&mut self) -> Result<()> {
        self.unroll_indent(-1, self.mark);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        let tok = self.scan_directive()?;
        self.push(tok, start);
        Ok(())
    }

    fn fetch_document_indicator(&mut self, tok: Tok) -> Result<()> {
        self.unroll_indent(-1, self.mark);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        self.skip();
        self.skip();
        self.skip();
        self.push(tok, start);
        Ok(())
    }

    fn fetch_flow_collection_start(&mut self, tok: Tok) -> Result<()> {
        self.save_simple_key()?;
        self.increase_flow_level()?;
        self.simple_key_allowed = true;
        let start = self.mark;
        self.skip();
        self.push(tok, start);
        Ok(())
    }

    fn fetch_flow_collection_end(&mut self, tok: Tok) -> Result<()> {
        self.remove_simple_key()?;
        self.decrease_flow_level();
        self.simple_key_allowed = false;
        let start = self.mark;
        self.skip();
        self.push(tok, start);
        Ok(())
    }

    fn fetch_flow_entry(&mut self) -> Result<()> {
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let start = self.mark;
        self.skip();
        self.push(Tok::FlowEntry, start);
        Ok(())
    }

    fn fetch_block_entry(&mut self) -> Result<()> {
        if self.flow_level == 0 {
            if !self.simple_key_allowed {
                return self.error(
                    self.mark,
                    "block sequence entries are not allowed in this context",
                );
            }
            self.roll_indent(self.mark.col, None, Tok::BlockSequenceStart, self.mark)?;
        }
        // In flow context a '-' entry is left for the parser to reject.
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let start = self.mark;
        self.skip();
        self.push(Tok::BlockEntry, start);
        Ok(())
    }

    fn fetch_key(&mut self) -> Result<()> {
        if self.flow_level == 0 {
            if !self.simple_key_allowed {
                return self.error(self.mark, "mapping keys are not allowed in this context");
            }
            self.roll_indent(self.mark.col, None, Tok::BlockMappingStart, self.mark)?;
        }
        self.remove_simple_key()?;
        self.simple_key_allowed = self.flow_level == 0;
        let start = self.mark;
        self.skip();
        self.push(Tok::Key, start);
        Ok(())
    }

    fn fetch_value(&mut self) -> Result<()> {
        let i = self.simple_keys.len().saturating_sub(1);
        if self.simple_key_valid(i)? {
            // The candidate was a key after all: KEY goes before it, and a
            // block mapping may start there.
            let key = self.simple_keys[i];
            self.insert(key.token_number, Tok::Key, key.mark);
            self.roll_indent(
                key.mark.col,
                Some(key.token_number),
                Tok::BlockMappingStart,
                key.mark,
            )?;
            self.simple_keys[i].possible = false;
            self.simple_key_allowed = false;
        } else {
            // A value after an explicit ('?') key, or after nothing.
            if self.flow_level == 0 {
                if !self.simple_key_allowed {
                    return self.error(self.mark, "mapping values are not allowed in this context");
                }
                self.roll_indent(self.mark.col, None, Tok::BlockMappingStart, self.mark)?;
            }
            self.simple_key_allowed = self.flow_level == 0;
        }
        let start = self.mark;
        self.skip();
        self.push(Tok::Value, start);
        Ok(())
    }

    fn fetch_block_scalar(&mut self, literal: bool) -> Result<()> {
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let start = self.mark;
        let tok = self.scan_block_scalar(literal)?;
        self.push(tok, start);
        Ok(())
    }

    fn fetch_flow_scalar(&mut self, single: bool) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        let tok = self.scan_flow_scalar(single)?;
        self.push(tok, start);
        Ok(())
    }

    fn fetch_plain_scalar(&mut self) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        let tok = self.scan_plain_scalar()?;
        self.push(tok, start);
        Ok(())
    }
}
