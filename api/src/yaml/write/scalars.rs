//! Writing text: the column and indentation go-yaml keeps, and a scalar in
//! each of its styles (plain, single- and double-quoted, literal), folded
//! at the line width.

use super::style::{is_break, is_printable, Analysis};
use super::{Emitter, Tree, INDENT};

impl<'v, T: Tree> Emitter<'_, 'v, T> {
    // --- low-level output -------------------------------------------------

    pub(super) fn put(&mut self, c: char) {
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
    pub(super) fn write_indent(&mut self) {
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

    pub(super) fn indicator(
        &mut self,
        text: &str,
        need_space: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
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

    pub(super) fn plain(&mut self, text: &str, allow_breaks: bool, a: &Analysis) {
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

    pub(super) fn single_quoted(&mut self, text: &str, allow_breaks: bool, a: &Analysis) {
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

    pub(super) fn double_quoted(&mut self, text: &str, allow_breaks: bool, a: &Analysis) {
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

    pub(super) fn literal(&mut self, text: &str, a: &Analysis) {
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
