//! Which style a scalar needs: what a YAML 1.1 reader would misread, which
//! characters force quotes, and what may be folded.

use crate::yaml::resolve::{is_base60_float, resolve_plain, Resolved, Rules};

use super::Style;

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
pub(super) fn is_plain_word(s: &str) -> bool {
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
pub(super) fn requested_style(s: &str) -> Style {
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
pub(super) struct Analysis {
    pub(super) multiline: bool,
    pub(super) block_plain: bool,
    pub(super) single_quoted: bool,
    pub(super) block: bool,
    /// Only ASCII characters (one byte, one column each).
    pub(super) ascii: bool,
    /// Contains a space (a possible folding point).
    pub(super) spaces: bool,
    /// Contains characters that must be escaped.
    pub(super) special: bool,
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

pub(super) fn analyze(text: &str) -> Analysis {
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

pub(super) fn select_style(text: &str, requested: Style, simple_key: bool, a: &Analysis) -> Style {
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
pub(super) fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}')
        || (('\u{E000}'..='\u{FFFD}').contains(&c) && c != '\u{FEFF}')
}

pub(super) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}
