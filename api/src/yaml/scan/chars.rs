//! Reading the input: the byte ahead, character classes, runs and line
//! breaks as go-yaml counts them.

use super::Scanner;

impl<'a> Scanner<'a> {
    // --- character access ---------------------------------------------------

    /// The byte `k` bytes ahead; 0 past the end (NUL cannot occur in input
    /// that passed the reader check, so it stands for "end").
    #[inline]
    pub(super) fn at(&self, k: usize) -> u8 {
        self.b.get(self.pos + k).copied().unwrap_or(0)
    }

    /// The unread input.
    #[inline]
    pub(super) fn rest(&self) -> &'a [u8] {
        self.b.get(self.pos..).unwrap_or_default()
    }

    /// The input between two byte offsets (empty if out of range).
    #[inline]
    pub(super) fn slice(&self, from: usize, to: usize) -> &'a [u8] {
        self.b.get(from..to).unwrap_or_default()
    }

    /// How many spaces follow (not tabs). Indentation is most of the
    /// bytes of a deeply nested file (three quarters of a CRD), so runs
    /// are measured eight bytes at a time.
    #[inline]
    pub(super) fn spaces_ahead(&self) -> usize {
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
    pub(super) fn skip_spaces(&mut self, n: usize) {
        self.pos += n;
        self.mark.index += n;
        self.mark.col += n;
    }

    #[inline]
    pub(super) fn is_z(&self, k: usize) -> bool {
        self.pos + k >= self.b.len()
    }

    #[inline]
    pub(super) fn is_blank(&self, k: usize) -> bool {
        matches!(self.at(k), b' ' | b'\t')
    }

    #[inline]
    pub(super) fn is_break(&self, k: usize) -> bool {
        match self.at(k) {
            b'\r' | b'\n' => true,
            0xC2 => self.at(k + 1) == 0x85,
            0xE2 => self.at(k + 1) == 0x80 && matches!(self.at(k + 2), 0xA8 | 0xA9),
            _ => false,
        }
    }

    #[inline]
    pub(super) fn is_breakz(&self, k: usize) -> bool {
        self.is_z(k) || self.is_break(k)
    }

    #[inline]
    pub(super) fn is_blankz(&self, k: usize) -> bool {
        self.is_blank(k) || self.is_breakz(k)
    }

    #[inline]
    pub(super) fn is_alpha(&self, k: usize) -> bool {
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
    pub(super) fn skip(&mut self) {
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
    pub(super) fn skip_run(&mut self, stops: &[bool; 128]) {
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
    pub(super) fn skip_line(&mut self) {
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
    pub(super) fn read(&mut self, out: &mut Vec<u8>) {
        let w = Self::width(self.at(0));
        out.extend_from_slice(self.slice(self.pos, self.pos + w));
        self.skip();
    }

    /// Copy one line break to `out` (CR, LF, CR LF and NEL become LF; LS
    /// and PS are kept) and move past it.
    pub(super) fn read_line(&mut self, out: &mut Vec<u8>) {
        if let Some(lb) = self.consume_break() {
            out.extend_from_slice(lb.as_bytes());
        }
    }

    /// Move past one line break, returning it as it goes into a scalar.
    pub(super) fn take_break(&mut self) -> LineBreak {
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
}

/// One line break as it goes into a scalar: LF (for CR, LF, CR LF, NEL),
/// or LS / PS kept as they are.
#[derive(Clone, Copy)]
pub(super) struct LineBreak {
    bytes: [u8; 3],
    pub(super) len: usize,
}

impl LineBreak {
    const LF: LineBreak = LineBreak {
        bytes: [b'\n', 0, 0],
        len: 1,
    };

    pub(super) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}
