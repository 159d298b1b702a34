//! Scalars: block (`|`, `>`), quoted and plain, with line folding.

use super::chars::LineBreak;
use super::{Mark, Result, ScalarStyle, Scanner, Tok, LINE_STOPS, PLAIN_STOPS, QUOTED_STOPS};

impl<'a> Scanner<'a> {
    // --- scalars ------------------------------------------------------------

    fn at_document_indicator(&self) -> bool {
        let rest = self.rest();
        self.mark.col == 0
            && (rest.starts_with(b"---") || rest.starts_with(b"..."))
            && self.is_blankz(3)
    }

    pub(super) fn scan_block_scalar(&mut self, literal: bool) -> Result<Tok> {
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
            if self.keeps_comments() {
                self.scan_line_comment(start);
            }
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

    pub(super) fn scan_flow_scalar(&mut self, single: bool) -> Result<Tok> {
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

    pub(super) fn scan_plain_scalar(&mut self) -> Result<Tok> {
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

pub(super) fn hex(c: u8) -> u8 {
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
