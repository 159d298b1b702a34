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
    pub line: usize,
    pub problem: String,
}

impl SyntaxError {
    fn at(mark: Mark, problem: impl Into<String>) -> Self {
        SyntaxError {
            line: mark.line,
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
        };
        scanner.reset(text);
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
    }

    // --- character access ---------------------------------------------------

    /// The byte `k` bytes ahead; 0 past the end (NUL cannot occur in input
    /// that passed the reader check, so it stands for "end").
    #[inline]
    fn at(&self, k: usize) -> u8 {
        self.b.get(self.pos + k).copied().unwrap_or(0)
    }

    /// The unread input.
    #[inline]
    fn rest(&self) -> &'a [u8] {
        self.b.get(self.pos..).unwrap_or_default()
    }

    /// The input between two byte offsets (empty if out of range).
    #[inline]
    fn slice(&self, from: usize, to: usize) -> &'a [u8] {
        self.b.get(from..to).unwrap_or_default()
    }

    /// How many spaces follow (not tabs). Indentation is most of the
    /// bytes of a deeply nested file (three quarters of a CRD), so runs
    /// are measured eight bytes at a time.
    #[inline]
    fn spaces_ahead(&self) -> usize {
        let rest = self.rest();
        let mut n = 0;
        while let Some(chunk) = rest.get(n..n + 8).and_then(|c| <[u8; 8]>::try_from(c).ok()) {
            let other = u64::from_le_bytes(chunk) ^ u64::from_le_bytes([b' '; 8]);
            if other != 0 {
                return n + (other.trailing_zeros() / 8) as usize;
            }
            n += 8;
        }
        while rest.get(n) == Some(&b' ') {
            n += 1;
        }
        n
    }

    /// Move past `n` spaces (which leave `newlines` alone).
    #[inline]
    fn skip_spaces(&mut self, n: usize) {
        self.pos += n;
        self.mark.index += n;
        self.mark.col += n;
    }

    #[inline]
    fn is_z(&self, k: usize) -> bool {
        self.pos + k >= self.b.len()
    }

    #[inline]
    fn is_blank(&self, k: usize) -> bool {
        matches!(self.at(k), b' ' | b'\t')
    }

    #[inline]
    fn is_break(&self, k: usize) -> bool {
        match self.at(k) {
            b'\r' | b'\n' => true,
            0xC2 => self.at(k + 1) == 0x85,
            0xE2 => self.at(k + 1) == 0x80 && matches!(self.at(k + 2), 0xA8 | 0xA9),
            _ => false,
        }
    }

    #[inline]
    fn is_breakz(&self, k: usize) -> bool {
        self.is_z(k) || self.is_break(k)
    }

    #[inline]
    fn is_blankz(&self, k: usize) -> bool {
        self.is_blank(k) || self.is_breakz(k)
    }

    #[inline]
    fn is_alpha(&self, k: usize) -> bool {
        matches!(self.at(k), b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' | b'_' | b'-')
    }

    fn width(c: u8) -> usize {
        match c {
            0..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        }
    }

    /// Move past one character.
    #[inline]
    fn skip(&mut self) {
        let c = self.at(0);
        if c != b' ' && c != b'\t' {
            self.newlines = 0;
        }
        self.pos += Self::width(c);
        self.mark.index += 1;
        self.mark.col += 1;
    }

    /// Move past a run of characters up to (not including) an ASCII byte
    /// marked in `stops`, a line break, or the end. Non-ASCII characters
    /// other than line breaks never stop the run.
    #[inline]
    fn skip_run(&mut self, stops: &[bool; 128]) {
        let b = self.b;
        let mut p = self.pos;
        let mut chars = 0;
        while let Some(&c) = b.get(p) {
            if c < 0x80 {
                if stops[usize::from(c)] {
                    break;
                }
                p += 1;
            } else {
                let next = b.get(p + 1).copied().unwrap_or(0);
                let third = b.get(p + 2).copied().unwrap_or(0);
                if (c == 0xC2 && next == 0x85)
                    || (c == 0xE2 && next == 0x80 && matches!(third, 0xA8 | 0xA9))
                {
                    break;
                }
                p += Self::width(c);
            }
            chars += 1;
        }
        // Like `skip`, passing a non-blank character resets `newlines`.
        if b.get(self.pos..p)
            .is_some_and(|run| run.iter().any(|&c| c != b' ' && c != b'\t'))
        {
            self.newlines = 0;
        }
        if chars > 0 {
            self.pos = p;
            self.mark.index += chars;
            self.mark.col += chars;
        }
    }

    /// Move past one line break (CR LF counts as one).
    fn skip_line(&mut self) {
        if self.at(0) == b'\r' && self.at(1) == b'\n' {
            self.pos += 2;
            self.mark.index += 2;
        } else if self.is_break(0) {
            self.pos += Self::width(self.at(0));
            self.mark.index += 1;
        } else {
            return;
        }
        self.mark.col = 0;
        self.mark.line += 1;
        self.newlines += 1;
    }

    /// Copy one character to `out` and move past it.
    #[inline]
    fn read(&mut self, out: &mut Vec<u8>) {
        let w = Self::width(self.at(0));
        out.extend_from_slice(self.slice(self.pos, self.pos + w));
        self.skip();
    }

    /// Copy one line break to `out` (CR, LF, CR LF and NEL become LF; LS
    /// and PS are kept) and move past it.
    fn read_line(&mut self, out: &mut Vec<u8>) {
        if let Some(lb) = self.consume_break() {
            out.extend_from_slice(lb.as_bytes());
        }
    }

    /// Move past one line break, returning it as it goes into a scalar.
    fn take_break(&mut self) -> LineBreak {
        self.consume_break().unwrap_or(LineBreak::LF)
    }

    fn consume_break(&mut self) -> Option<LineBreak> {
        let lb = if self.at(0) == b'\r' && self.at(1) == b'\n' {
            self.pos += 2;
            self.mark.index += 1;
            LineBreak::LF
        } else if matches!(self.at(0), b'\r' | b'\n') {
            self.pos += 1;
            LineBreak::LF
        } else if self.at(0) == 0xC2 && self.at(1) == 0x85 {
            self.pos += 2;
            LineBreak::LF
        } else if self.is_break(0) {
            let lb = LineBreak {
                bytes: [self.at(0), self.at(1), self.at(2)],
                len: 3,
            };
            self.pos += 3;
            lb
        } else {
            return None;
        };
        self.mark.index += 1;
        self.mark.col = 0;
        self.mark.line += 1;
        self.newlines += 1;
        Some(lb)
    }

    fn error<T>(&self, mark: Mark, problem: &str) -> Result<T> {
        Err(SyntaxError::at(mark, problem))
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

    /// Close block collections deeper than `col`.
    fn unroll_indent(&mut self, col: isize) {
        if self.flow_level > 0 {
            return;
        }
        while self.indent > col {
            self.push(Tok::BlockEnd, self.mark);
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
        self.scan_to_next_token()?;
        self.unroll_indent(self.mark.col as isize);
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
            self.skip_line_comment();
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
            if self.at(0) == b'#' {
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
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        self.push(Tok::StreamEnd, self.mark);
        Ok(())
    }

    fn fetch_directive(&mut self) -> Result<()> {
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        let tok = self.scan_directive()?;
        self.push(tok, start);
        Ok(())
    }

    fn fetch_document_indicator(&mut self, tok: Tok) -> Result<()> {
        self.unroll_indent(-1);
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

    fn fetch_anchor(&mut self, alias: bool) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        self.skip();
        let from = self.pos;
        while self.is_alpha(0) {
            self.skip();
        }
        let name = String::from_utf8_lossy(self.slice(from, self.pos)).into_owned();
        let ends_ok = self.is_blankz(0)
            || matches!(
                self.at(0),
                b'?' | b':' | b',' | b']' | b'}' | b'%' | b'@' | b'`'
            );
        if name.is_empty() || !ends_ok {
            return self.error(
                start,
                "did not find expected alphabetic or numeric character",
            );
        }
        let tok = if alias {
            Tok::Alias(name)
        } else {
            Tok::Anchor(name)
        };
        self.push(tok, start);
        Ok(())
    }

    fn fetch_tag(&mut self) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        let (handle, suffix) = if self.at(1) == b'<' {
            self.skip();
            self.skip();
            let uri = self.scan_tag_uri(b"", start)?;
            if self.at(0) != b'>' {
                return self.error(start, "did not find the expected '>'");
            }
            self.skip();
            (String::new(), uri)
        } else {
            let handle = self.scan_tag_handle(false, start)?;
            if handle.len() > 1 && handle.starts_with('!') && handle.ends_with('!') {
                let suffix = self.scan_tag_uri(b"", start)?;
                (handle, suffix)
            } else {
                // Not a handle: it is the start of a local tag's name.
                let suffix = self.scan_tag_uri(handle.as_bytes(), start)?;
                if suffix.is_empty() {
                    // The non-specific tag `!`.
                    (String::new(), "!".to_string())
                } else {
                    ("!".to_string(), suffix)
                }
            }
        };
        if !self.is_blankz(0) {
            return self.error(start, "did not find expected whitespace or line break");
        }
        self.push(Tok::Tag(Box::new((handle, suffix))), start);
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

    // --- directives and tags -----------------------------------------------

    fn scan_directive(&mut self) -> Result<Tok> {
        let start = self.mark;
        self.skip();
        let from = self.pos;
        while self.is_alpha(0) {
            self.skip();
        }
        let name = self.slice(from, self.pos);
        if name.is_empty() {
            return self.error(start, "could not find expected directive name");
        }
        if !self.is_blankz(0) {
            return self.error(start, "found unexpected non-alphabetical character");
        }
        let tok = match name {
            b"YAML" => {
                self.skip_blanks();
                let major = self.scan_version_number(start)?;
                if self.at(0) != b'.' {
                    return self.error(start, "did not find expected digit or '.' character");
                }
                self.skip();
                let minor = self.scan_version_number(start)?;
                Tok::VersionDirective(major, minor)
            }
            b"TAG" => {
                self.skip_blanks();
                let handle = self.scan_tag_handle(true, start)?;
                if !self.is_blank(0) {
                    return self.error(start, "did not find expected whitespace");
                }
                self.skip_blanks();
                let prefix = self.scan_tag_uri(b"", start)?;
                if !self.is_blankz(0) {
                    return self.error(start, "did not find expected whitespace or line break");
                }
                Tok::TagDirective(Box::new((handle, prefix)))
            }
            _ => return self.error(start, "found unknown directive name"),
        };
        self.skip_blanks();
        if self.at(0) == b'#' {
            self.skip_run(&LINE_STOPS);
        }
        if !self.is_breakz(0) {
            return self.error(start, "did not find expected comment or line break");
        }
        self.skip_line();
        Ok(tok)
    }

    fn skip_blanks(&mut self) {
        while self.is_blank(0) {
            self.skip();
        }
    }

    fn scan_version_number(&mut self, start: Mark) -> Result<u8> {
        let mut value: u8 = 0;
        let mut length = 0;
        while self.at(0).is_ascii_digit() {
            length += 1;
            if length > 2 {
                return self.error(start, "found extremely long version number");
            }
            value = value * 10 + (self.at(0) - b'0');
            self.skip();
        }
        if length == 0 {
            return self.error(start, "did not find expected version number");
        }
        Ok(value)
    }

    fn scan_tag_handle(&mut self, directive: bool, start: Mark) -> Result<String> {
        if self.at(0) != b'!' {
            return self.error(start, "did not find expected '!'");
        }
        let from = self.pos;
        self.skip();
        while self.is_alpha(0) {
            self.skip();
        }
        if self.at(0) == b'!' {
            self.skip();
        } else if directive && self.pos - from != 1 {
            return self.error(start, "did not find expected '!'");
        }
        Ok(String::from_utf8_lossy(self.slice(from, self.pos)).into_owned())
    }

    /// A tag URI; `head` is text already read that belongs to it (its
    /// leading '!' is dropped).
    fn scan_tag_uri(&mut self, head: &[u8], start: Mark) -> Result<String> {
        let mut s: Vec<u8> = head.get(1..).unwrap_or_default().to_vec();
        let mut has_tag = !head.is_empty();
        loop {
            let c = self.at(0);
            let uri_char = self.is_alpha(0)
                || matches!(
                    c,
                    b';' | b'/'
                        | b'?'
                        | b':'
                        | b'@'
                        | b'&'
                        | b'='
                        | b'+'
                        | b'$'
                        | b','
                        | b'.'
                        | b'!'
                        | b'~'
                        | b'*'
                        | b'\''
                        | b'('
                        | b')'
                        | b'['
                        | b']'
                        | b'%'
                );
            if !uri_char {
                break;
            }
            if c == b'%' {
                self.scan_uri_escapes(&mut s, start)?;
            } else {
                self.read(&mut s);
            }
            has_tag = true;
        }
        if !has_tag {
            return self.error(start, "did not find expected tag URI");
        }
        Ok(String::from_utf8_lossy(&s).into_owned())
    }

    fn scan_uri_escapes(&mut self, s: &mut Vec<u8>, start: Mark) -> Result<()> {
        let mut remaining: Option<usize> = None;
        while remaining != Some(0) {
            let (h, l) = (self.at(1), self.at(2));
            if self.at(0) != b'%' || !h.is_ascii_hexdigit() || !l.is_ascii_hexdigit() {
                return self.error(start, "did not find URI escaped octet");
            }
            let octet = (hex(h) << 4) | hex(l);
            match remaining {
                None => {
                    let w = match octet {
                        0..=0x7F => 1,
                        0xC0..=0xDF => 2,
                        0xE0..=0xEF => 3,
                        0xF0..=0xF7 => 4,
                        _ => return self.error(start, "found an incorrect leading UTF-8 octet"),
                    };
                    remaining = Some(w);
                }
                Some(_) if octet & 0xC0 != 0x80 => {
                    return self.error(start, "found an incorrect trailing UTF-8 octet")
                }
                Some(_) => {}
            }
            s.push(octet);
            self.skip();
            self.skip();
            self.skip();
            remaining = remaining.map(|r| r - 1);
        }
        Ok(())
    }

    // --- scalars ------------------------------------------------------------

    fn at_document_indicator(&self) -> bool {
        let rest = self.rest();
        self.mark.col == 0
            && (rest.starts_with(b"---") || rest.starts_with(b"..."))
            && self.is_blankz(3)
    }

    fn scan_block_scalar(&mut self, literal: bool) -> Result<Tok> {
        let start = self.mark;
        self.skip();
        // Header: chomping (+/-) and indentation (1-9) indicators, any order.
        let mut chomping = 0i8;
        let mut increment = 0usize;
        for _ in 0..2 {
            match self.at(0) {
                b'+' | b'-' if chomping == 0 => {
                    chomping = if self.at(0) == b'+' { 1 } else { -1 };
                    self.skip();
                }
                b'0' if increment == 0 => {
                    return self.error(start, "found an indentation indicator equal to 0")
                }
                c @ b'1'..=b'9' if increment == 0 => {
                    increment = usize::from(c - b'0');
                    self.skip();
                }
                _ => break,
            }
        }
        self.skip_blanks();
        if self.at(0) == b'#' {
            self.skip_run(&LINE_STOPS);
        }
        if !self.is_breakz(0) {
            return self.error(start, "did not find expected comment or line break");
        }
        self.skip_line();
        let mut indent = if increment > 0 {
            if self.indent >= 0 {
                self.indent as usize + increment
            } else {
                increment
            }
        } else {
            0
        };
        let mut s: Vec<u8> = Vec::new();
        let mut leading_break: Vec<u8> = Vec::new();
        let mut trailing_breaks: Vec<u8> = Vec::new();
        self.block_scalar_breaks(&mut indent, &mut trailing_breaks, start)?;
        let mut leading_blank = false;
        while self.mark.col == indent && !self.is_z(0) {
            let trailing_blank = self.is_blank(0);
            // Folded style joins lines with a space, except around
            // more-indented lines and blank lines.
            if !literal
                && !leading_blank
                && !trailing_blank
                && leading_break.first() == Some(&b'\n')
            {
                if trailing_breaks.is_empty() {
                    s.push(b' ');
                }
            } else {
                s.extend_from_slice(&leading_break);
            }
            leading_break.clear();
            s.append(&mut trailing_breaks);
            leading_blank = self.is_blank(0);
            let from = self.pos;
            self.skip_run(&LINE_STOPS);
            s.extend_from_slice(self.slice(from, self.pos));
            self.read_line(&mut leading_break);
            self.block_scalar_breaks(&mut indent, &mut trailing_breaks, start)?;
        }
        if chomping != -1 {
            s.extend_from_slice(&leading_break);
        }
        if chomping == 1 {
            s.extend_from_slice(&trailing_breaks);
        }
        let style = if literal {
            ScalarStyle::Literal
        } else {
            ScalarStyle::Folded
        };
        Ok(Tok::Scalar(into_string(s), style))
    }

    /// Indentation and empty lines before block scalar content; settles
    /// the indentation when it is not given.
    fn block_scalar_breaks(
        &mut self,
        indent: &mut usize,
        breaks: &mut Vec<u8>,
        start: Mark,
    ) -> Result<()> {
        let mut max_indent = 0;
        loop {
            // Indentation spaces (up to the block's indentation, if known).
            let limit = if *indent == 0 { usize::MAX } else { *indent };
            let n = self.spaces_ahead().min(limit.saturating_sub(self.mark.col));
            self.skip_spaces(n);
            max_indent = max_indent.max(self.mark.col);
            if (*indent == 0 || self.mark.col < *indent) && self.at(0) == b'\t' {
                return self.error(
                    start,
                    "found a tab character where an indentation space is expected",
                );
            }
            if !self.is_break(0) {
                break;
            }
            self.read_line(breaks);
        }
        if *indent == 0 {
            *indent = max_indent.max((self.indent + 1).max(1) as usize);
        }
        Ok(())
    }

    fn scan_flow_scalar(&mut self, single: bool) -> Result<Tok> {
        let start = self.mark;
        self.skip();
        let src = self.b;
        let mut s = TextBuf::new();
        let mut leading_break: Option<LineBreak> = None;
        let mut trailing_breaks: Vec<u8> = Vec::new();
        loop {
            if self.at_document_indicator() {
                return self.error(start, "found unexpected document indicator");
            }
            if self.is_z(0) {
                return self.error(start, "found unexpected end of stream");
            }
            let mut leading_blanks = false;
            while !self.is_blankz(0) {
                let c = self.at(0);
                if single && c == b'\'' && self.at(1) == b'\'' {
                    s.push_bytes(src, b"'");
                    self.skip();
                    self.skip();
                } else if (single && c == b'\'') || (!single && c == b'"') {
                    break;
                } else if !single && c == b'\\' && self.is_break(1) {
                    // An escaped line break joins the lines.
                    self.skip();
                    self.skip_line();
                    leading_blanks = true;
                    break;
                } else if !single && c == b'\\' {
                    let mut buf = Vec::new();
                    self.scan_escape(&mut buf, start)?;
                    s.push_bytes(src, &buf);
                } else {
                    // Copy a run of ordinary characters at once.
                    let from = self.pos;
                    self.skip();
                    self.skip_run(&QUOTED_STOPS);
                    s.push_input(src, from, self.pos);
                }
            }
            if (single && self.at(0) == b'\'') || (!single && self.at(0) == b'"') {
                break;
            }
            let mut whitespaces = (self.pos, self.pos);
            while self.is_blank(0) || self.is_break(0) {
                if self.is_blank(0) {
                    self.skip();
                    if !leading_blanks {
                        whitespaces.1 = self.pos;
                    }
                } else if leading_blanks {
                    self.read_line(&mut trailing_breaks);
                } else {
                    leading_break = Some(self.take_break());
                    leading_blanks = true;
                }
            }
            if leading_blanks {
                join_breaks(src, &mut s, &mut leading_break, &mut trailing_breaks);
            } else {
                s.push_input(src, whitespaces.0, whitespaces.1);
            }
        }
        self.skip();
        let style = if single {
            ScalarStyle::SingleQuoted
        } else {
            ScalarStyle::DoubleQuoted
        };
        Ok(Tok::Scalar(s.finish(self.text), style))
    }

    fn scan_escape(&mut self, s: &mut Vec<u8>, start: Mark) -> Result<()> {
        let simple: Option<&[u8]> = match self.at(1) {
            b'0' => Some(b"\0"),
            b'a' => Some(b"\x07"),
            b'b' => Some(b"\x08"),
            b't' | b'\t' => Some(b"\t"),
            b'n' => Some(b"\n"),
            b'v' => Some(b"\x0B"),
            b'f' => Some(b"\x0C"),
            b'r' => Some(b"\r"),
            b'e' => Some(b"\x1B"),
            b' ' => Some(b" "),
            b'"' => Some(b"\""),
            b'\'' => Some(b"'"),
            b'\\' => Some(b"\\"),
            b'N' => Some("\u{85}".as_bytes()),
            b'_' => Some("\u{A0}".as_bytes()),
            b'L' => Some("\u{2028}".as_bytes()),
            b'P' => Some("\u{2029}".as_bytes()),
            b'x' | b'u' | b'U' => None,
            _ => return self.error(start, "found unknown escape character"),
        };
        let code_length = match self.at(1) {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => 0,
        };
        self.skip();
        self.skip();
        if let Some(bytes) = simple {
            s.extend_from_slice(bytes);
            return Ok(());
        }
        let mut value: u32 = 0;
        for k in 0..code_length {
            let c = self.at(k);
            if !c.is_ascii_hexdigit() {
                return self.error(start, "did not find expected hexdecimal number");
            }
            value = (value << 4) | u32::from(hex(c));
        }
        let Some(ch) = char::from_u32(value) else {
            return self.error(start, "found invalid Unicode character escape code");
        };
        let mut buf = [0u8; 4];
        s.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        for _ in 0..code_length {
            self.skip();
        }
        Ok(())
    }

    fn scan_plain_scalar(&mut self) -> Result<Tok> {
        let start = self.mark;
        let indent = self.indent + 1;
        let src = self.b;
        let mut s = TextBuf::new();
        let mut leading_break: Option<LineBreak> = None;
        let mut trailing_breaks: Vec<u8> = Vec::new();
        // Blanks after the last word: a range of the input.
        let mut whitespaces = (0, 0);
        let mut leading_blanks = false;
        loop {
            if self.at_document_indicator() || self.at(0) == b'#' {
                break;
            }
            while !self.is_blankz(0) {
                let c = self.at(0);
                if (c == b':' && self.is_blankz(1))
                    || (self.flow_level > 0 && matches!(c, b',' | b'?' | b'[' | b']' | b'{' | b'}'))
                {
                    break;
                }
                if leading_blanks {
                    join_breaks(src, &mut s, &mut leading_break, &mut trailing_breaks);
                    leading_blanks = false;
                } else if whitespaces.0 != whitespaces.1 {
                    s.push_input(src, whitespaces.0, whitespaces.1);
                    whitespaces = (0, 0);
                }
                // Copy the run of characters up to the next possible end.
                let from = self.pos;
                self.skip();
                self.skip_run(&PLAIN_STOPS);
                s.push_input(src, from, self.pos);
            }
            if !(self.is_blank(0) || self.is_break(0)) {
                break;
            }
            while self.is_blank(0) || self.is_break(0) {
                if self.is_blank(0) {
                    if leading_blanks && (self.mark.col as isize) < indent && self.at(0) == b'\t' {
                        return self
                            .error(start, "found a tab character that violates indentation");
                    }
                    if !leading_blanks && whitespaces.0 == whitespaces.1 {
                        whitespaces = (self.pos, self.pos);
                    }
                    // Spaces go in one step (the next line's indentation,
                    // mostly); a tab alone, since the check above is for it.
                    match self.spaces_ahead() {
                        0 => self.skip(),
                        n => self.skip_spaces(n),
                    }
                    if !leading_blanks {
                        whitespaces.1 = self.pos;
                    }
                } else if leading_blanks {
                    self.read_line(&mut trailing_breaks);
                } else {
                    whitespaces = (0, 0);
                    leading_break = Some(self.take_break());
                    leading_blanks = true;
                }
            }
            if self.flow_level == 0 && (self.mark.col as isize) < indent {
                break;
            }
        }
        if leading_blanks {
            self.simple_key_allowed = true;
        }
        Ok(Tok::Scalar(s.finish(self.text), ScalarStyle::Plain))
    }
}

/// One line break as it goes into a scalar: LF (for CR, LF, CR LF, NEL),
/// or LS / PS kept as they are.
#[derive(Clone, Copy)]
struct LineBreak {
    bytes: [u8; 3],
    len: usize,
}

impl LineBreak {
    const LF: LineBreak = LineBreak {
        bytes: [b'\n', 0, 0],
        len: 1,
    };

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Scalar text being assembled: a range of the input while it is one
/// contiguous run (the common case, copied once at the end), an owned
/// buffer as soon as anything else goes in.
struct TextBuf {
    from: usize,
    to: usize,
    owned: Option<Vec<u8>>,
}

impl TextBuf {
    fn new() -> Self {
        TextBuf {
            from: 0,
            to: 0,
            owned: None,
        }
    }

    /// Append input bytes `from..to`.
    fn push_input(&mut self, src: &[u8], from: usize, to: usize) {
        if from == to {
            return;
        }
        match &mut self.owned {
            None if self.from == self.to => {
                self.from = from;
                self.to = to;
            }
            None if self.to == from => self.to = to,
            _ => self.push_bytes(src, src.get(from..to).unwrap_or_default()),
        }
    }

    /// Append bytes that are not (contiguous) input.
    fn push_bytes(&mut self, src: &[u8], bytes: &[u8]) {
        let owned = self.owned.get_or_insert_with(|| {
            let mut v = Vec::with_capacity(self.to - self.from + bytes.len() + 16);
            v.extend_from_slice(src.get(self.from..self.to).unwrap_or_default());
            v
        });
        owned.extend_from_slice(bytes);
    }

    fn finish(self, text: &str) -> String {
        match self.owned {
            Some(v) => into_string(v),
            None => match text.get(self.from..self.to) {
                Some(s) => s.to_string(),
                None => String::from_utf8_lossy(
                    text.as_bytes().get(self.from..self.to).unwrap_or_default(),
                )
                .into_owned(),
            },
        }
    }
}

/// Line folding shared by plain and quoted scalars: a single line break
/// becomes a space, n > 1 breaks become n-1 newlines; LS and PS are kept.
fn join_breaks(
    src: &[u8],
    s: &mut TextBuf,
    leading_break: &mut Option<LineBreak>,
    trailing_breaks: &mut Vec<u8>,
) {
    match leading_break.take() {
        Some(lb) if lb.len == 1 => {
            if trailing_breaks.is_empty() {
                s.push_bytes(src, b" ");
            } else {
                s.push_bytes(src, trailing_breaks);
            }
        }
        lb => {
            if let Some(lb) = lb {
                s.push_bytes(src, lb.as_bytes());
            }
            if !trailing_breaks.is_empty() {
                s.push_bytes(src, trailing_breaks);
            }
        }
    }
    trailing_breaks.clear();
}

fn hex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c.wrapping_sub(b'A').wrapping_add(10),
    }
}

/// Scalar bytes are UTF-8: they are copied from a `str` in whole
/// characters, or produced by escapes as encoded characters.
fn into_string(s: Vec<u8>) -> String {
    String::from_utf8(s).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
