//! YAML writer reproducing kustomize's canonical output.
//!
//! kustomize prints every resource with `sigs.k8s.io/yaml.JSONToYAML`: the
//! JSON text is read back by go-yaml v2 (JSON integers become ints, other
//! numbers floats) and marshalled by go-yaml v2's emitter with its defaults
//! (block style, indent 2, width 80, unicode allowed). The emitter is a
//! small state machine whose observable behaviour depends on a few pieces of
//! state (current column, indent, whether the last thing written was
//! whitespace or indentation); this writer keeps the same state while
//! walking the value recursively, so line breaks, folding and indentation
//! come out byte for byte the same.

use std::borrow::Cow;

use serde_json::{Number, Value};

use crate::json_view::{self, JsonView};
use crate::Error;

use super::resolve::{is_base60_float, resolve_plain, Resolved, Rules};

/// go-yaml's preferred line width: plain and quoted scalars fold at spaces
/// once a line is longer than this.
const WIDTH: usize = 80;
/// go-yaml's indentation step.
const INDENT: usize = 2;
/// Keys longer than this (in bytes) are written in the explicit `? key` form.
const MAX_SIMPLE_KEY: usize = 128;

/// One document in kustomize's canonical form, ending in a newline.
///
/// Text kustomize could not print (see [`try_to_yaml`]) is written as best
/// it can be; use [`try_to_yaml`] to get kustomize's error instead.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::with_capacity(1024);
    emit_document(&mut out, value);
    out
}

/// Append one document in kustomize's canonical form to `out`.
pub fn write_yaml(out: &mut String, value: &Value) {
    emit_document(out, value);
}

/// [`write_yaml`] for a JSON text read in place: the same output, without
/// building a `Value`.
pub fn write_yaml_view(out: &mut String, value: &JsonView<'_>) {
    emit_document_width(out, value, WIDTH);
}

/// Like [`to_yaml`], but fails where kustomize fails: its JSON-to-YAML
/// step re-reads the JSON text as YAML, which rejects strings holding
/// DEL, C1 control characters or U+FFFE/U+FFFF ("control characters are not
/// allowed"), and keys that contain U+0085 or whose JSON form is longer
/// than 1022 characters (a YAML simple key is limited to 1024).
pub fn try_to_yaml(value: &Value) -> Result<String, Error> {
    let mut out = String::with_capacity(1024);
    match emit_document(&mut out, value) {
        None => Ok(out),
        Some(problem) => Err(Error::new(problem)),
    }
}

/// Documents joined the way `kustomize build` prints them (`---` between).
pub fn to_yaml_stream(docs: &[Value]) -> String {
    let mut out = String::with_capacity(docs.len() * 1024);
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        emit_document(&mut out, d);
    }
    out
}

/// Like [`to_yaml_stream`], failing where kustomize fails (see
/// [`try_to_yaml`]).
pub fn try_to_yaml_stream(docs: &[Value]) -> Result<String, Error> {
    let mut out = String::with_capacity(docs.len() * 1024);
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        if let Some(problem) = emit_document(&mut out, d) {
            return Err(Error::new(problem).context(format!("document {}", i + 1)));
        }
    }
    Ok(out)
}

/// Write one document; returns the first thing kustomize would have
/// failed on, if any.
fn emit_document(out: &mut String, value: &Value) -> Option<&'static str> {
    emit_document_width(out, value, WIDTH)
}

/// One document as [`to_yaml`] writes it, but with no line folding: the
/// text kyaml (go-yaml v3, which keeps each scalar's style and never
/// folds) writes when it re-emits what [`to_yaml`] printed. This is how
/// kustomize's function runner writes resources into a `ResourceList`.
pub fn to_yaml_unfolded(value: &Value) -> String {
    let mut out = String::with_capacity(1024);
    emit_document_width(&mut out, value, usize::MAX / 2);
    out
}

fn emit_document_width<T: Tree>(out: &mut String, value: &T, width: usize) -> Option<&'static str> {
    let mut e = Emitter {
        out,
        column: 0,
        indent: None,
        whitespace: true,
        indention: true,
        problem: None,
        keys: Vec::new(),
        width,
    };
    e.node(value, Ctx::Root);
    // Document end: finish the last line.
    e.write_indent();
    e.problem
}

const CONTROL_CHARACTERS: &str = "yaml: control characters are not allowed";
const BAD_KEY: &str = "yaml: did not find expected ',' or '}'";

/// The longest key (in characters of its JSON form, quotes excluded) that
/// go-yaml v2 still reads as a simple key.
const MAX_JSON_KEY: usize = 1022;

/// What a string becomes after kustomize's JSON → YAML re-read. JSON
/// escapes every line break except U+0085 (NEL), which the YAML reader then
/// treats as a line break inside a double-quoted scalar and folds: a run of
/// spaces and NELs becomes one space, or n-1 newlines for n NELs.
fn reread<'s>(s: &'s str, problem: &mut Option<&'static str>, is_key: bool) -> Cow<'s, str> {
    // Everything of interest is outside ASCII, except DEL.
    if s.is_ascii() && !s.as_bytes().contains(&0x7F) {
        if is_key && s.len() > MAX_JSON_KEY / 6 && json_len(s) > MAX_JSON_KEY {
            problem.get_or_insert(BAD_KEY);
        }
        return Cow::Borrowed(s);
    }
    let mut nel = false;
    for c in s.chars() {
        match c {
            '\u{7F}'..='\u{84}' | '\u{86}'..='\u{9F}' | '\u{FFFE}' | '\u{FFFF}' => {
                problem.get_or_insert(CONTROL_CHARACTERS);
            }
            '\u{85}' => nel = true,
            _ => {}
        }
    }
    if is_key && (nel || json_len(s) > MAX_JSON_KEY) {
        problem.get_or_insert(BAD_KEY);
    }
    if !nel {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != ' ' && c != '\u{85}' {
            out.push(c);
            continue;
        }
        let mut spaces = usize::from(c == ' ');
        let mut breaks = usize::from(c == '\u{85}');
        while let Some(&n) = chars.peek() {
            match n {
                ' ' if breaks == 0 => spaces += 1,
                ' ' => {}
                '\u{85}' => breaks += 1,
                _ => break,
            }
            chars.next();
        }
        match breaks {
            0 => out.extend(std::iter::repeat_n(' ', spaces)),
            1 => out.push(' '),
            n => out.extend(std::iter::repeat_n('\n', n - 1)),
        }
    }
    Cow::Owned(out)
}

/// Characters in Go's `encoding/json` form of a string, quotes excluded.
fn json_len(s: &str) -> usize {
    s.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\x08' | '\x0c' => 2,
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => 6,
            c if c < ' ' => 6,
            _ => 1,
        })
        .sum()
}

/// Where a node sits; it decides sequence indentation and key handling.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Root,
    /// An item of a block sequence.
    Item,
    /// A mapping value, or a key written in the explicit `? key` form.
    Value,
    /// A key written in the implicit `key: value` form.
    SimpleKey,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// A JSON value the writer can walk: a `Value`, or a [`JsonView`].
trait Tree: Sized {
    /// What this node is.
    fn shape(&self) -> Shape<'_, Self>;
    /// An object's entries, appended to `out` in any order.
    fn entries<'a>(&'a self, out: &mut Vec<(&'a str, &'a Self)>);
}

/// One node as the writer sees it.
enum Shape<'a, T> {
    Null,
    Bool(bool),
    Number(NumberRef<'a>),
    String(&'a str),
    Array(&'a [T]),
    /// An object, empty or not (its entries come from [`Tree::entries`]).
    Object {
        empty: bool,
    },
}

/// A number, parsed or as written in JSON text.
enum NumberRef<'a> {
    Parsed(&'a Number),
    Text(&'a str),
}

impl Tree for Value {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            Value::Null => Shape::Null,
            Value::Bool(b) => Shape::Bool(*b),
            Value::Number(n) => Shape::Number(NumberRef::Parsed(n)),
            Value::String(s) => Shape::String(s),
            Value::Array(a) => Shape::Array(a),
            Value::Object(m) => Shape::Object {
                empty: m.is_empty(),
            },
        }
    }

    fn entries<'a>(&'a self, out: &mut Vec<(&'a str, &'a Self)>) {
        if let Value::Object(m) = self {
            out.extend(m.iter().map(|(k, v)| (k.as_str(), v)));
        }
    }
}

impl Tree for JsonView<'_> {
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            JsonView::Null => Shape::Null,
            JsonView::Bool(b) => Shape::Bool(*b),
            JsonView::Number(n) => Shape::Number(NumberRef::Text(n)),
            JsonView::String(s) => Shape::String(s),
            JsonView::Array(a) => Shape::Array(a),
            JsonView::Object(entries) => Shape::Object {
                empty: entries.is_empty(),
            },
        }
    }

    fn entries<'a>(&'a self, out: &mut Vec<(&'a str, &'a Self)>) {
        if let JsonView::Object(entries) = self {
            out.extend(entries.iter().map(|(k, v)| (k.as_ref(), v)));
        }
    }
}

struct Emitter<'o, 'v, T> {
    out: &'o mut String,
    /// Characters (not bytes) written on the current line.
    column: usize,
    /// Indentation of the innermost open node; None before the root.
    indent: Option<usize>,
    /// The last thing written was whitespace (so an indicator needs no
    /// separating space).
    whitespace: bool,
    /// Only indentation (and `-`/`?`/`:` indicators) on this line so far.
    indention: bool,
    /// The first reason kustomize would have failed to print this document.
    problem: Option<&'static str>,
    /// Sorted entries of the open mappings, innermost last (one buffer for
    /// the whole document instead of one per mapping).
    keys: Vec<(&'v str, &'v T)>,
    /// Line width at which scalars fold ([`WIDTH`], or unlimited).
    width: usize,
}

impl<'v, T: Tree> Emitter<'_, 'v, T> {
    fn node(&mut self, v: &'v T, ctx: Ctx) {
        match v.shape() {
            Shape::Object { empty: true } => self.empty_flow("{}"),
            Shape::Object { empty: false } => self.mapping(v),
            Shape::Array([]) => self.empty_flow("[]"),
            Shape::Array(a) => self.sequence(a, ctx),
            Shape::String(s) if is_plain_word(s) => self.word(s),
            Shape::String(s) => {
                let s = reread(s, &mut self.problem, false);
                self.scalar(&s, requested_style(&s), ctx)
            }
            // Numbers, booleans and null are plain words without spaces:
            // nothing to analyse or fold.
            Shape::Number(NumberRef::Text(text)) if json_view::is_plain_integer(text) => {
                self.word(text)
            }
            Shape::Number(n) => {
                let parsed;
                let n = match n {
                    NumberRef::Parsed(n) => n,
                    NumberRef::Text(text) => {
                        parsed = json_view::number(text);
                        &parsed
                    }
                };
                self.start_word();
                let before = self.out.len();
                write_number(self.out, n);
                self.end_word(self.out.len() - before);
            }
            Shape::Bool(true) => self.word("true"),
            Shape::Bool(false) => self.word("false"),
            Shape::Null => self.word("null"),
        }
    }

    fn empty_flow(&mut self, text: &str) {
        self.indicator(&text[..1], true, true, false);
        self.indicator(&text[1..], false, false, false);
    }

    /// A plain scalar known to need no quoting and to hold no space.
    fn word(&mut self, text: &str) {
        self.start_word();
        self.out.push_str(text);
        self.end_word(text.len());
    }

    fn start_word(&mut self) {
        if !self.whitespace {
            self.put(' ');
        }
    }

    fn end_word(&mut self, ascii_len: usize) {
        self.column += ascii_len;
        self.whitespace = false;
        self.indention = false;
    }

    fn mapping(&mut self, m: &'v T) {
        let saved = self.indent;
        self.indent = Some(self.indent.map_or(0, |i| i + INDENT));
        let start = self.keys.len();
        m.entries(&mut self.keys);
        sort_keys(&mut self.keys[start..]);
        for i in start..self.keys.len() {
            let (k, v) = self.keys[i];
            if is_plain_word(k) && k.len() <= MAX_SIMPLE_KEY {
                self.write_indent();
                self.word(k);
                self.indicator(":", false, false, false);
                self.node(v, Ctx::Value);
                continue;
            }
            let k = reread(k, &mut self.problem, true);
            let k = k.as_ref();
            self.write_indent();
            let analysis = analyze(k);
            if !analysis.multiline && k.len() <= MAX_SIMPLE_KEY {
                self.scalar_analyzed(k, requested_style(k), Ctx::SimpleKey, &analysis);
                self.indicator(":", false, false, false);
            } else {
                self.indicator("?", true, false, true);
                self.scalar_analyzed(k, requested_style(k), Ctx::Value, &analysis);
                self.write_indent();
                self.indicator(":", true, false, true);
            }
            self.node(v, Ctx::Value);
        }
        self.keys.truncate(start);
        self.indent = saved;
    }

    fn sequence(&mut self, a: &'v [T], ctx: Ctx) {
        let saved = self.indent;
        // A sequence right after `key:` is not indented relative to the key.
        let indentless = ctx == Ctx::Value && !self.indention;
        self.indent = Some(match self.indent {
            None => 0,
            Some(i) if indentless => i,
            Some(i) => i + INDENT,
        });
        for item in a {
            self.write_indent();
            self.indicator("-", true, false, true);
            self.node(item, Ctx::Item);
        }
        self.indent = saved;
    }

    fn scalar(&mut self, text: &str, requested: Style, ctx: Ctx) {
        let analysis = analyze(text);
        self.scalar_analyzed(text, requested, ctx, &analysis);
    }

    fn scalar_analyzed(&mut self, text: &str, requested: Style, ctx: Ctx, a: &Analysis) {
        let simple_key = ctx == Ctx::SimpleKey;
        let style = select_style(text, requested, simple_key, a);
        let saved = self.indent;
        // Scalars are indented one step in from their parent (two at the root).
        self.indent = Some(self.indent.map_or(INDENT, |i| i + INDENT));
        match style {
            Style::Plain => self.plain(text, !simple_key, a),
            Style::Single => self.single_quoted(text, !simple_key, a),
            Style::Double => self.double_quoted(text, !simple_key, a),
            Style::Literal => self.literal(text, a),
        }
        self.indent = saved;
    }

    // --- low-level output -------------------------------------------------

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// A line break character from a scalar's text: `\n` is a line break;
    /// the others (CR, NEL, LS, PS) are copied but also end the line.
    fn text_break(&mut self, c: char) {
        if c == '\n' {
            self.newline();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    /// Move to the current indentation, starting a new line unless the
    /// cursor is already exactly there on a line holding only indentation.
    fn write_indent(&mut self) {
        let indent = self.indent.unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.newline();
        }
        if self.column < indent {
            const SPACES: &str = "                                ";
            let mut n = indent - self.column;
            while n > 0 {
                let k = n.min(SPACES.len());
                self.out.push_str(&SPACES[..k]);
                n -= k;
            }
            self.column = indent;
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn indicator(&mut self, text: &str, need_space: bool, is_whitespace: bool, is_indention: bool) {
        if need_space && !self.whitespace {
            self.put(' ');
        }
        // Indicators are ASCII.
        self.out.push_str(text);
        self.column += text.len();
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    // --- scalar styles ----------------------------------------------------

    fn plain(&mut self, text: &str, allow_breaks: bool, a: &Analysis) {
        if !self.whitespace {
            self.put(' ');
        }
        // Fast path: ASCII text that cannot reach a folding point.
        if a.ascii && (!allow_breaks || !a.spaces || self.column + text.len() <= self.width) {
            self.out.push_str(text);
            self.column += text.len();
            self.whitespace = false;
            self.indention = false;
            return;
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == ' ' {
                let next_is_space = chars.peek() == Some(&' ');
                if allow_breaks && !spaces && self.column > self.width && !next_is_space {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.newline();
                }
                self.text_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, text: &str, allow_breaks: bool, a: &Analysis) {
        self.indicator("'", true, false, false);
        if a.ascii
            && !a.multiline
            && !text.contains('\'')
            && (!allow_breaks || !a.spaces || self.column + text.len() <= self.width)
        {
            self.out.push_str(text);
            self.column += text.len();
            self.indicator("'", false, false, false);
            self.whitespace = false;
            self.indention = false;
            return;
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == ' ' {
                let next = chars.peek().map(|&(_, n)| n);
                // Never fold at the first or last character.
                if allow_breaks
                    && !spaces
                    && self.column > self.width
                    && i > 0
                    && next.is_some()
                    && next != Some(' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.newline();
                }
                self.text_break(c);
                self.indention = true;
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
                spaces = false;
                breaks = false;
            }
        }
        self.indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn double_quoted(&mut self, text: &str, allow_breaks: bool, a: &Analysis) {
        self.indicator("\"", true, false, false);
        if a.ascii
            && !a.special
            && !a.multiline
            && !text.contains(['"', '\\'])
            && (!allow_breaks || !a.spaces || self.column + text.len() <= self.width)
        {
            self.out.push_str(text);
            self.column += text.len();
            self.indicator("\"", false, false, false);
            self.whitespace = false;
            self.indention = false;
            return;
        }
        // go-yaml's BOM test looks at the start of the text for every
        // character, so a text starting with U+FEFF is escaped throughout.
        let bom = text.starts_with('\u{FEFF}');
        let mut spaces = false;
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if bom || !is_printable(c) || is_break(c) || c == '"' || c == '\\' {
                self.escape(c);
                spaces = false;
            } else if c == ' ' {
                let next = chars.peek().map(|&(_, n)| n);
                if allow_breaks && !spaces && self.column > self.width && i > 0 && next.is_some() {
                    self.write_indent();
                    // A space starting the continuation line would be eaten
                    // by line folding; escape it.
                    if next == Some(' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn escape(&mut self, c: char) {
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
            return;
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
    }

    fn literal(&mut self, text: &str, a: &Analysis) {
        self.indicator("|", true, false, false);
        // Indentation indicator when the first line starts with a space (or
        // is empty): the reader could not guess the indentation otherwise.
        if text.starts_with(|c: char| c == ' ' || is_break(c)) {
            self.indicator(
                &char::from_digit(INDENT as u32, 10).map_or(String::new(), String::from),
                false,
                false,
                false,
            );
        }
        // Chomping: strip without a final break, keep with two or more.
        let mut rev = text.chars().rev();
        let chomp = match (rev.next(), rev.next()) {
            (Some(last), _) if !is_break(last) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(prev)) if is_break(prev) => Some("+"),
            (None, _) => Some("-"),
            _ => None,
        };
        if let Some(ch) = chomp {
            self.indicator(ch, false, false, false);
        }
        self.newline();
        self.indention = true;
        self.whitespace = true;
        if a.ascii {
            // ASCII has no line breaks but '\n' (CR is never in a block):
            // copy line by line.
            for line in text.split_inclusive('\n') {
                let (body, nl) = match line.strip_suffix('\n') {
                    Some(b) => (b, true),
                    None => (line, false),
                };
                if !body.is_empty() {
                    self.write_indent();
                    self.out.push_str(body);
                    self.column += body.len();
                    self.indention = false;
                }
                if nl {
                    self.newline();
                    self.indention = true;
                }
            }
            return;
        }
        let mut breaks = true;
        for c in text.chars() {
            if is_break(c) {
                self.text_break(c);
                self.indention = true;
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
}

/// ASCII letters, digits and `_ . / -`.
static WORD_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-');
        c += 1;
    }
    t
};

/// Fast path for the most common strings (names, keys, paths): a text of
/// word characters starting with a letter, `_` or `/` is written plain
/// as it is, unless it is one of YAML 1.1's keywords (`yes`, `off`, ...).
/// Such a text has no indicator, space, break or special character, and
/// cannot read as a number, timestamp or null.
fn is_plain_word(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if !(first.is_ascii_alphabetic() || first == b'_' || first == b'/') {
        return false;
    }
    if !b.iter().all(|&c| WORD_BYTES[usize::from(c)]) {
        return false;
    }
    match first {
        // The keywords are at most five letters long.
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' if b.len() <= 5 => {
            matches!(resolve_plain(s, Rules::V2, true), Resolved::Str)
        }
        _ => true,
    }
}

/// The style go-yaml v2's encoder asks for: literal for text with a
/// newline, plain when the text would read back as the same string,
/// double-quoted otherwise. The emitter may still override it.
fn requested_style(s: &str) -> Style {
    if s.contains('\n') {
        Style::Literal
    } else if matches!(resolve_plain(s, Rules::V2, true), Resolved::Str) && !is_base60_float(s) {
        Style::Plain
    } else {
        Style::Double
    }
}

/// What the emitter's scalar analysis allows for a text.
#[derive(Debug, Clone, Copy)]
struct Analysis {
    multiline: bool,
    block_plain: bool,
    single_quoted: bool,
    block: bool,
    /// Only ASCII characters (one byte, one column each).
    ascii: bool,
    /// Contains a space (a possible folding point).
    spaces: bool,
    /// Contains characters that must be escaped.
    special: bool,
}

/// Per-character findings of the emitter's scalar analysis.
#[derive(Default)]
struct Flags {
    indicators: bool,
    line_breaks: bool,
    special: bool,
    leading_space: bool,
    leading_break: bool,
    trailing_space: bool,
    trailing_break: bool,
    break_space: bool,
    space_break: bool,
}

fn scan(mut chars: impl Iterator<Item = char>) -> Flags {
    let mut f = Flags::default();
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let mut first = true;
    let mut current = chars.next();
    while let Some(c) = current {
        let next = chars.next();
        let last = next.is_none();
        let followed_by_whitespace = next.is_none_or(|n| n == ' ' || n == '\t');
        if first {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => f.indicators = true,
                '?' | ':' | '-' if followed_by_whitespace => f.indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => f.indicators = true,
                '#' if preceded_by_whitespace => f.indicators = true,
                _ => {}
            }
        }
        if !is_printable(c) {
            f.special = true;
        }
        if c == ' ' {
            f.leading_space |= first;
            f.trailing_space |= last;
            f.break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            f.line_breaks = true;
            f.leading_break |= first;
            f.trailing_break |= last;
            f.space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = c == ' ' || c == '\t' || c == '\0' || is_break(c);
        first = false;
        current = next;
    }
    f
}

/// Byte classes for [`scan_ascii`].
const SPECIAL: u8 = 1;
const NEWLINE: u8 = 2;
const SPACE: u8 = 4;
const COLON: u8 = 8;
const HASH: u8 = 16;

const fn byte_classes() -> [u8; 128] {
    let mut t = [SPECIAL; 128];
    let mut c = 0x20;
    while c <= 0x7E {
        t[c] = 0;
        c += 1;
    }
    t[b'\n' as usize] = NEWLINE;
    t[b' ' as usize] = SPACE;
    t[b':' as usize] = COLON;
    t[b'#' as usize] = HASH;
    t
}

static BYTE_CLASSES: [u8; 128] = byte_classes();

/// [`scan`] for ASCII text: one pass collecting byte classes, then pair
/// searches only when both halves of a pair occur (long literal blocks
/// dominate the writer's time otherwise).
fn scan_ascii(b: &[u8]) -> Flags {
    let mut f = Flags::default();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return f;
    };
    let mut classes = 0u8;
    for &c in b {
        classes |= BYTE_CLASSES[usize::from(c & 0x7F)];
    }
    // In ASCII the line breaks are LF and CR; CR is not printable.
    f.special = classes & SPECIAL != 0;
    f.line_breaks = classes & NEWLINE != 0 || (f.special && b.contains(&b'\r'));
    if f.special {
        // Only the line-break finding matters any more: special characters
        // rule out every style but double quotes.
        return f;
    }
    f.leading_space = first == b' ';
    f.leading_break = first == b'\n';
    f.trailing_space = last == b' ';
    f.trailing_break = last == b'\n';
    let spaces = classes & SPACE != 0;
    if f.line_breaks {
        if spaces {
            f.break_space = contains_pair(b, b'\n', b' ');
            f.space_break = contains_pair(b, b' ', b'\n');
        }
        // Plain style is ruled out by the line breaks: indicators are moot.
        return f;
    }
    let followed_by_space = b.get(1).is_none_or(|&c| c == b' ');
    f.indicators = match first {
        b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
        | b'"' | b'%' | b'@' | b'`' => true,
        b'?' | b':' | b'-' => followed_by_space,
        _ => false,
    } || (b.len() > 1 && last == b':')
        || (spaces && classes & COLON != 0 && contains_pair(b, b':', b' '))
        || (spaces && classes & HASH != 0 && contains_pair(b, b' ', b'#'));
    f
}

fn contains_pair(haystack: &[u8], a: u8, b: u8) -> bool {
    haystack.windows(2).any(|w| w[0] == a && w[1] == b)
}

/// Fast path of [`analyze`] for the common case: printable ASCII without
/// spaces whose first and last characters are not indicators. Such a text
/// can be written plain (as far as the emitter is concerned) in any style.
fn analyze_word(b: &[u8]) -> Option<Analysis> {
    let (&first, &last) = (b.first()?, b.last()?);
    if !b.iter().all(|&c| (0x21..=0x7E).contains(&c)) {
        return None;
    }
    let first_is_indicator = match first {
        b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
        | b'"' | b'%' | b'@' | b'`' => true,
        // Followed by whitespace only when alone.
        b'?' | b':' | b'-' => b.len() == 1,
        _ => false,
    };
    // Without spaces, ':' is followed by whitespace only at the end, and
    // '#' is never preceded by any.
    if first_is_indicator || last == b':' || b.starts_with(b"---") || b.starts_with(b"...") {
        return None;
    }
    Some(Analysis {
        multiline: false,
        block_plain: true,
        single_quoted: true,
        block: true,
        ascii: true,
        spaces: false,
        special: false,
    })
}

fn analyze(text: &str) -> Analysis {
    if text.is_empty() {
        return Analysis {
            multiline: false,
            block_plain: true,
            single_quoted: true,
            block: false,
            ascii: true,
            spaces: false,
            special: false,
        };
    }
    if let Some(a) = analyze_word(text.as_bytes()) {
        return a;
    }
    let ascii = text.is_ascii();
    let f = if ascii {
        scan_ascii(text.as_bytes())
    } else {
        scan(text.chars())
    };
    let indicators = f.indicators || text.starts_with("---") || text.starts_with("...");
    let Flags {
        line_breaks,
        special,
        leading_space,
        leading_break,
        trailing_space,
        trailing_break,
        break_space,
        space_break,
        ..
    } = f;
    let mut a = Analysis {
        multiline: line_breaks,
        block_plain: true,
        single_quoted: true,
        block: true,
        ascii,
        spaces: text.contains(' '),
        special,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain = false;
    }
    if trailing_space {
        a.block = false;
    }
    if break_space {
        a.block_plain = false;
        a.single_quoted = false;
    }
    if space_break || special {
        a.block_plain = false;
        a.single_quoted = false;
        a.block = false;
    }
    if line_breaks || indicators {
        a.block_plain = false;
    }
    a
}

fn select_style(text: &str, requested: Style, simple_key: bool, a: &Analysis) -> Style {
    let mut style = requested;
    if simple_key && a.multiline {
        style = Style::Double;
    }
    if style == Style::Plain && (!a.block_plain || (text.is_empty() && simple_key)) {
        style = Style::Single;
    }
    if style == Style::Single && !a.single_quoted {
        style = Style::Double;
    }
    if style == Style::Literal && (!a.block || simple_key) {
        style = Style::Double;
    }
    style
}

/// go-yaml's printable set: it works on UTF-8 bytes and leaves out, among
/// others, tab, DEL, the C1 controls, U+FEFF and everything beyond the
/// Basic Multilingual Plane.
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}')
        || (('\u{E000}'..='\u{FFFD}').contains(&c) && c != '\u{FEFF}')
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

// --- numbers ---------------------------------------------------------------

/// A JSON number as it comes out of JSON → go-yaml v2 → YAML: integers as
/// they are; a float is first printed the way Go's `encoding/json` does, and
/// if that text is an integer go-yaml reads it back as one, otherwise the
/// float is printed with Go's `%g`-style shortest formatting.
fn write_number(out: &mut String, n: &Number) {
    use std::fmt::Write;
    // Writing to a String cannot fail.
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else {
        out.push_str(&format_float(n.as_f64().unwrap_or(0.0)));
    }
}

#[cfg(test)]
fn format_number(n: &Number) -> String {
    let mut s = String::new();
    write_number(&mut s, n);
    s
}

fn format_float(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        // encoding/json uses plain decimal notation here; Rust's Display
        // gives the same shortest digits in the same notation.
        let text = format!("{f}");
        if !text.contains('.') {
            if let Ok(i) = text.parse::<i64>() {
                return i.to_string();
            }
            if let Ok(u) = text.parse::<u64>() {
                return u.to_string();
            }
        }
    }
    go_format_g(f)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`: shortest digits, exponent
/// form when the decimal exponent is below -4 or at least 6 (`1e+06`,
/// `1.5e-07`), decimal form otherwise.
fn go_format_g(f: f64) -> String {
    // Rust's `{:e}` gives the same shortest digits: "-1.2345e6".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
    } else {
        // Decimal point after `dp` digits.
        let dp = exp + 1;
        let nd = digits.len() as i32;
        if dp <= 0 {
            out.push_str("0.");
            for _ in 0..-dp {
                out.push('0');
            }
            out.push_str(&digits);
        } else if dp >= nd {
            out.push_str(&digits);
            for _ in 0..dp - nd {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..dp as usize]);
            out.push('.');
            out.push_str(&digits[dp as usize..]);
        }
    }
    out
}

// --- key order -------------------------------------------------------------

/// Sort keys in go-yaml v2's order. For up to 12 keys Go's sort is an
/// insertion sort, which is reproduced exactly; larger maps use a merge
/// sort (the order is the same for any consistent comparison).
fn sort_keys<T>(entries: &mut [(&str, &T)]) {
    if entries.len() <= 12 {
        for i in 1..entries.len() {
            let mut j = i;
            while j > 0 && key_less(entries[j].0, entries[j - 1].0) {
                entries.swap(j, j - 1);
                j -= 1;
            }
        }
        return;
    }
    let mid = entries.len() / 2;
    sort_keys(&mut entries[..mid]);
    sort_keys(&mut entries[mid..]);
    let mut merged = Vec::with_capacity(entries.len());
    let (mut i, mut j) = (0, mid);
    while i < mid && j < entries.len() {
        if key_less(entries[j].0, entries[i].0) {
            merged.push(entries[j]);
            j += 1;
        } else {
            merged.push(entries[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&entries[i..mid]);
    merged.extend_from_slice(&entries[j..]);
    entries.copy_from_slice(&merged);
}

/// go-yaml v2's key comparison: character by character; letters sort after
/// non-letters; runs of digits compare by numeric value (then by length).
fn key_less(a: &str, b: &str) -> bool {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let i = ab.iter().zip(bb).take_while(|(x, y)| x == y).count();
    let (Some(&x), Some(&y)) = (ab.get(i), bb.get(i)) else {
        // One is a prefix of the other.
        return ab.len() < bb.len();
    };
    // Fast path: ASCII up to the first difference, and no digit there.
    if x.is_ascii()
        && y.is_ascii()
        && !x.is_ascii_digit()
        && !y.is_ascii_digit()
        && ab[..i].is_ascii()
    {
        let (xl, yl) = (x.is_ascii_alphabetic(), y.is_ascii_alphabetic());
        return if xl == yl { x < y } else { yl };
    }
    if a.is_ascii() && b.is_ascii() {
        return key_less_chars(a.as_bytes(), b.as_bytes(), |&c| char::from(c));
    }
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    key_less_chars(&ar, &br, |&c| c)
}

fn key_less_chars<T: PartialEq + Copy>(ar: &[T], br: &[T], ch: impl Fn(&T) -> char) -> bool {
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (ac, bc) = (ch(&ar[i]), ch(&br[i]));
        let (al, bl) = (is_letter(ac), is_letter(bc));
        if al && bl {
            return ac < bc;
        }
        if al || bl {
            return bl;
        }
        // Both non-letters: compare the digit runs starting here. A zero
        // that continues a run of non-zero digits counts as part of that
        // number (the run is then "non-zero" whatever follows).
        let mut an: i64 = 0;
        let mut bn: i64 = 0;
        if ac == '0' || bc == '0' {
            for j in (0..i).rev() {
                let c = ch(&ar[j]);
                if !is_digit(c) {
                    break;
                }
                if c != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_digit(ch(&ar[ai])) {
            an = an
                .wrapping_mul(10)
                .wrapping_add(ch(&ar[ai]) as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_digit(ch(&br[bi])) {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(ch(&br[bi]) as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ac < bc;
    }
    ar.len() < br.len()
}

/// Go's `unicode.IsLetter` (exact for ASCII; Unicode's alphabetic property,
/// minus numbers, elsewhere).
fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic()
    } else {
        c.is_alphabetic() && !c.is_numeric()
    }
}

/// Go's `unicode.IsDigit` (exact for ASCII; Unicode numerics elsewhere).
fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_digit()
    } else {
        c.is_numeric()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn y(v: Value) -> String {
        to_yaml(&v)
    }

    #[test]
    fn block_layout() {
        let v = json!({
            "b": [1, "x", {"k": "v", "a": [true, null]}, [], {}],
            "a": {"n": {"m": "deep"}, "e": [], "f": {}},
        });
        assert_eq!(
            y(v),
            "a:\n  e: []\n  f: {}\n  \"n\":\n    m: deep\nb:\n- 1\n- x\n- a:\n  - true\n  - null\n  k: v\n- []\n- {}\n"
        );
        assert_eq!(y(json!([[1, 2], [3]])), "- - 1\n  - 2\n- - 3\n");
        assert_eq!(y(json!({})), "{}\n");
        assert_eq!(y(json!([])), "[]\n");
        assert_eq!(y(json!("hello")), "hello\n");
        assert_eq!(y(json!(null)), "null\n");
    }

    #[test]
    fn a_json_view_prints_as_its_value() {
        for v in [
            json!({"b": [1, -2, 3.5, 1e21, 0.000001, -0.0, 18446744073709551615u64, "x"],
                "a": {"n": null, "t": true, "e": [], "f": {}, "s": "two\nlines", "q": "yes",
                      "long": "word ".repeat(30), "é": "\u{85}"}}),
            json!("just text"),
            json!([[1], {}]),
        ] {
            let text = serde_json::to_string(&v).unwrap();
            let mut viewed = String::new();
            write_yaml_view(&mut viewed, &JsonView::parse(&text).unwrap());
            assert_eq!(viewed, y(v), "{text}");
        }
        // Numbers are printed from their text as serde_json reads them.
        let mut out = String::new();
        write_yaml_view(
            &mut out,
            &JsonView::parse(r#"{"a":1.50,"b":-0,"c":1E2}"#).unwrap(),
        );
        assert_eq!(out, y(json!({"a": 1.5, "b": -0.0, "c": 100.0})));
    }

    #[test]
    fn key_order_is_go_yaml_natural_order() {
        let mut keys = vec![
            "a10", "a2", "B", "_x", "a", "1", "10", "9", "a01", "a1", "Z9", "-",
        ];
        let mut entries: Vec<(String, Value)> =
            keys.iter().map(|k| (k.to_string(), Value::Null)).collect();
        let mut refs: Vec<(&str, &Value)> = entries.iter().map(|(k, v)| (k.as_str(), v)).collect();
        sort_keys(&mut refs);
        let got: Vec<&str> = refs.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            got,
            vec!["-", "_x", "1", "9", "10", "B", "Z9", "a", "a1", "a01", "a2", "a10"]
        );
        // The same order through the merge sort path.
        keys.extend(["c", "d", "e", "f"]);
        entries = keys.iter().map(|k| (k.to_string(), Value::Null)).collect();
        refs = entries.iter().map(|(k, v)| (k.as_str(), v)).collect();
        sort_keys(&mut refs);
        let got: Vec<&str> = refs.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            got,
            vec![
                "-", "_x", "1", "9", "10", "B", "Z9", "a", "a1", "a01", "a2", "a10", "c", "d", "e",
                "f"
            ]
        );
    }

    #[test]
    fn strings_that_would_change_type_are_double_quoted() {
        for s in [
            "true",
            "yes",
            "on",
            "y",
            "N",
            "off",
            "123",
            "1.5",
            "null",
            "~",
            "",
            "1:20",
            "2001-12-14",
            "0x1F",
            "1_000",
            ".5",
            "-1",
            "+5",
            "1e3",
            ".inf",
            "0b101",
            "0o17",
        ] {
            assert_eq!(y(json!({ "k": s })), format!("k: \"{s}\"\n"), "{s}");
        }
        for s in [
            "hello",
            "1.2.3",
            "yess",
            "0x",
            "1e400",
            "2001-02-29",
            "<<",
            "a:b",
            "a#b",
        ] {
            assert_eq!(y(json!({ "k": s })), format!("k: {s}\n"), "{s}");
        }
    }

    #[test]
    fn indicators_force_single_quotes() {
        for s in [
            " lead", "trail ", "- x", "a: b", "a #b", "*x", "&x", "!x", "|x", ">x", "'x", "\"x",
            "%x", "@x", "`x", "#x", "[x", "{x", ",x", "? x", ": x", "---", "...x", "-",
        ] {
            let want = format!("k: '{}'\n", s.replace('\'', "''"));
            if s == "-" {
                assert_eq!(y(json!({ "k": s })), "k: '-'\n");
                continue;
            }
            assert_eq!(y(json!({ "k": s })), want, "{s:?}");
        }
        // Keys too.
        assert_eq!(y(json!({"a: b": 1, "": 2})), "\"\": 2\n'a: b': 1\n");
    }

    #[test]
    fn special_characters_force_double_quotes() {
        assert_eq!(y(json!({"k": "a\tb"})), "k: \"a\\tb\"\n");
        assert_eq!(y(json!({"k": "a\rb"})), "k: \"a\\rb\"\n");
        assert_eq!(y(json!({"k": "\u{7f}"})), "k: \"\\x7F\"\n");
        assert_eq!(y(json!({"k": "😀"})), "k: \"\\U0001F600\"\n");
        assert_eq!(y(json!({"k": "é ü 日本"})), "k: é ü 日本\n");
        assert_eq!(y(json!({"k": "\u{FEFF}ab"})), "k: \"\\uFEFF\\x61\\x62\"\n");
        // NEL survives JSON unescaped and the YAML re-read folds it.
        assert_eq!(y(json!({"k": "a\u{85}b"})), "k: a b\n");
        assert_eq!(
            y(json!({"k": "a \u{85} \u{85}\u{85}b"})),
            "k: |-\n  a\n\n  b\n"
        );
        assert_eq!(
            try_to_yaml(&json!({"k": "a\u{7f}"})).map_err(|e| e.message),
            Err(CONTROL_CHARACTERS.to_string())
        );
        assert_eq!(
            try_to_yaml(&json!({"a\u{85}": 1})).map_err(|e| e.message),
            Err(BAD_KEY.to_string())
        );
        assert!(try_to_yaml(&json!({ "k".repeat(1022): 1 })).is_ok());
        assert!(try_to_yaml(&json!({ "<".repeat(171): 1 })).is_err());
    }

    #[test]
    fn literal_blocks() {
        assert_eq!(y(json!({"k": "a\nb\n"})), "k: |\n  a\n  b\n");
        assert_eq!(y(json!({"k": "a\nb"})), "k: |-\n  a\n  b\n");
        assert_eq!(y(json!({"k": "a\n\n"})), "k: |+\n  a\n\n");
        assert_eq!(y(json!({"k": "\n"})), "k: |2+\n\n");
        assert_eq!(y(json!({"k": " a\nb\n"})), "k: |2\n   a\n  b\n");
        assert_eq!(y(json!({"k": "\na"})), "k: |2-\n\n  a\n");
        assert_eq!(y(json!(["a\n\nb\n"])), "- |\n  a\n\n  b\n");
        assert_eq!(
            y(json!({"m": {"k": "x\ny\n"}})),
            "m:\n  k: |\n    x\n    y\n"
        );
        // Blocks cannot hold trailing spaces on a line, or tabs.
        assert_eq!(y(json!({"k": "a \nb"})), "k: \"a \\nb\"\n");
        assert_eq!(y(json!({"k": "a\tb\nc"})), "k: \"a\\tb\\nc\"\n");
        assert_eq!(y(json!({"k": "a\nb "})), "k: \"a\\nb \"\n");
        // Multi-line keys take the explicit `? key` form.
        assert_eq!(y(json!({"a\nb": 1})), "? |-\n  a\n  b\n: 1\n");
    }

    #[test]
    fn folding_at_80_columns() {
        let words = "word ".repeat(30);
        let text = words.trim_end();
        let out = y(json!({ "key": text }));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("key: word"));
        assert!(lines.len() > 1);
        // Breaks happen at the first space after column 80.
        assert_eq!(lines[0].len(), 84);
        assert!(lines[1].starts_with("  word"));
        // No spaces: no folding.
        let long = "x".repeat(200);
        assert_eq!(y(json!({ "key": long.clone() })), format!("key: {long}\n"));
        // Keys never fold.
        let k = "k ".repeat(50);
        assert!(y(json!({ k.trim_end(): 1 })).lines().count() == 1);
    }

    #[test]
    fn numbers() {
        let f = |v: f64| format_number(&Number::from_f64(v).unwrap_or(0.into()));
        assert_eq!(f(1.0), "1");
        assert_eq!(f(1.5), "1.5");
        assert_eq!(f(1e21), "1e+21");
        assert_eq!(f(1e20), "1e+20");
        assert_eq!(f(0.000001), "1e-06");
        assert_eq!(f(1e-7), "1e-07");
        assert_eq!(f(0.0001), "0.0001");
        assert_eq!(f(0.00001), "1e-05");
        assert_eq!(f(1234567.5), "1.2345675e+06");
        assert_eq!(f(123456.5), "123456.5");
        assert_eq!(f(-0.0), "0");
        // encoding/json prints 2^63 as 9223372036854776000, which reads back
        // as an unsigned integer.
        assert_eq!(f(9223372036854775808.0), "9223372036854776000");
        assert_eq!(f(1.2345678901234568e29), "1.2345678901234568e+29");
        assert_eq!(f(-9.223372036854776e18), "-9.223372036854776e+18");
        assert_eq!(
            format_number(&Number::from(u64::MAX)),
            "18446744073709551615"
        );
        assert_eq!(format_number(&Number::from(-5)), "-5");
    }

    #[test]
    fn long_keys_use_explicit_form() {
        let k = "k".repeat(129);
        assert_eq!(y(json!({ k.clone(): [1] })), format!("? {k}\n: - 1\n"));
        let k128 = "k".repeat(128);
        assert_eq!(y(json!({ k128.clone(): 1 })), format!("{k128}: 1\n"));
    }

    #[test]
    fn stream() {
        assert_eq!(
            to_yaml_stream(&[json!({"a": 1}), json!({"b": "x\n"})]),
            "a: 1\n---\nb: |\n  x\n"
        );
    }
}
