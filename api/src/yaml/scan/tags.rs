//! Anchors, aliases, tags and directives.

use super::scalars::hex;
use super::{Mark, Result, Scanner, Tok, LINE_STOPS};

impl<'a> Scanner<'a> {
    pub(super) fn fetch_anchor(&mut self, alias: bool) -> Result<()> {
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

    pub(super) fn fetch_tag(&mut self) -> Result<()> {
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

    // --- directives and tags -----------------------------------------------

    pub(super) fn scan_directive(&mut self) -> Result<Tok> {
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

    pub(super) fn skip_blanks(&mut self) {
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
}
