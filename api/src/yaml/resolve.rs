//! Plain-scalar typing the way go-yaml decides it.
//!
//! Two rule sets matter to kustomize: go-yaml v3 types the scalars it reads
//! (only `true`/`false` are booleans, `0o17` is octal), and go-yaml v2 is
//! what `JSONToYAML` uses to decide whether a string must be quoted on output
//! (`yes`, `on`, `y` are booleans there too). Both share the number rules:
//! Go's `strconv.ParseInt(s, 0, 64)` after dropping `_`, then unsigned, then a
//! restricted float syntax, and both recognise a handful of timestamp layouts.

/// Which go-yaml generation's rules to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rules {
    /// go-yaml v2 (YAML 1.1 booleans `yes`/`no`/`on`/`off`/`y`/`n`).
    V2,
    /// go-yaml v3 (only `true`/`false` spellings; `0o` octal).
    V3,
}

/// What a plain scalar's text means.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    /// Only for values above `i64::MAX`.
    Uint(u64),
    /// May be infinite or NaN (`.inf`, `.nan`).
    Float(f64),
    Timestamp(Timestamp),
    Str,
}

impl Resolved {
    /// The go-yaml short tag of this resolution, for error messages.
    pub(crate) fn tag(&self) -> &'static str {
        match self {
            Resolved::Null => "!!null",
            Resolved::Bool(_) => "!!bool",
            Resolved::Int(_) | Resolved::Uint(_) => "!!int",
            Resolved::Float(_) => "!!float",
            Resolved::Timestamp(_) => "!!timestamp",
            Resolved::Str => "!!str",
        }
    }
}

/// Resolve an untagged plain scalar (or one tagged with a core type, whose
/// text is then checked by the caller). `timestamps` is false when the tag
/// asks for something other than a timestamp: go-yaml only tries the
/// timestamp layouts for untagged or `!!timestamp` scalars.
pub(crate) fn resolve_plain(text: &str, rules: Rules, timestamps: bool) -> Resolved {
    let Some(&first) = text.as_bytes().first() else {
        return Resolved::Null;
    };
    // The first byte decides which family the text can belong to; anything
    // else (letters outside the keyword initials, quotes, ...) is a string.
    let family = match first {
        b'+' | b'-' | b'0'..=b'9' => Family::Number,
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => {
            Family::Keyword
        }
        b'.' => Family::Dot,
        _ => return Resolved::Str,
    };
    if let Some(r) = keyword(text, rules) {
        return r;
    }
    match family {
        Family::Keyword => Resolved::Str,
        Family::Dot => match go_parse_float(text) {
            Some(f) => Resolved::Float(f),
            None => Resolved::Str,
        },
        Family::Number => resolve_number(text, rules, timestamps),
    }
}

enum Family {
    Number,
    Keyword,
    Dot,
}

/// The fixed spellings (booleans, nulls, special floats).
fn keyword(text: &str, rules: Rules) -> Option<Resolved> {
    let r = match text {
        "true" | "True" | "TRUE" => Resolved::Bool(true),
        "false" | "False" | "FALSE" => Resolved::Bool(false),
        "~" | "null" | "Null" | "NULL" => Resolved::Null,
        ".nan" | ".NaN" | ".NAN" => Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Resolved::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Resolved::Float(f64::NEG_INFINITY),
        _ if rules == Rules::V2 => match text {
            "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Resolved::Bool(true),
            "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Resolved::Bool(false),
            _ => return None,
        },
        _ => return None,
    };
    Some(r)
}

fn resolve_number(text: &str, rules: Rules, timestamps: bool) -> Resolved {
    if timestamps {
        if let Some(ts) = parse_timestamp(text) {
            return Resolved::Timestamp(ts);
        }
    }
    // Underscores are digit separators anywhere in the text.
    let plain: std::borrow::Cow<str> = if text.contains('_') {
        text.replace('_', "").into()
    } else {
        text.into()
    };
    let plain = plain.as_ref();
    if let Some(i) = parse_int(plain, 0) {
        return Resolved::Int(i);
    }
    if let Some(u) = parse_uint(plain, 0) {
        return Resolved::Uint(u);
    }
    if is_yaml_style_float(plain) {
        if let Some(f) = parse_decimal_float(plain) {
            return Resolved::Float(f);
        }
    }
    // Explicit binary (and, in v3, octal) prefixes parsed with an explicit
    // base: this also admits a sign after the prefix (`0b-101` is -5).
    let prefixes: &[(&str, u32)] = match rules {
        Rules::V2 => &[("0b", 2)],
        Rules::V3 => &[("0b", 2), ("0o", 8)],
    };
    for &(prefix, base) in prefixes {
        if let Some(rest) = plain.strip_prefix(prefix) {
            if let Some(i) = parse_int(rest, base) {
                return Resolved::Int(i);
            }
            if let Some(u) = parse_uint(rest, base) {
                return Resolved::Uint(u);
            }
        } else if let Some(rest) = plain.strip_prefix('-').and_then(|r| r.strip_prefix(prefix)) {
            if let Some(i) = parse_int(&format!("-{rest}"), base) {
                return Resolved::Int(i);
            }
        }
    }
    Resolved::Str
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// A decimal float in the restricted syntax above; None when it overflows
/// (Go's ParseFloat reports a range error there; underflow is a silent 0).
fn parse_decimal_float(s: &str) -> Option<f64> {
    // Rust's parser does not take a leading '+' in every version; drop it.
    let body = s.strip_prefix('+').unwrap_or(s);
    let f: f64 = body.parse().ok()?;
    f.is_finite().then_some(f)
}

/// Go's `strconv.ParseFloat(s, 64)` for texts starting with '.': decimal
/// digits with `_` separators between digits, an optional exponent.
fn go_parse_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut saw_digit = false;
    let mut saw_dot = false;
    while i < b.len() {
        match b[i] {
            b'0'..=b'9' => saw_digit = true,
            b'_' => {}
            b'.' if !saw_dot => saw_dot = true,
            _ => break,
        }
        i += 1;
    }
    if !saw_digit {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if i >= b.len() || !b[i].is_ascii_digit() {
            return None;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    if i != b.len() || !underscores_between_digits(s) {
        return None;
    }
    let cleaned = s.replace('_', "");
    let f: f64 = cleaned.parse().ok()?;
    f.is_finite().then_some(f)
}

/// Go's rule for `_` in number literals: only between digits.
fn underscores_between_digits(s: &str) -> bool {
    let mut prev_digit = false;
    let mut prev_underscore = false;
    for c in s.bytes() {
        if c.is_ascii_digit() {
            prev_digit = true;
            prev_underscore = false;
        } else if c == b'_' {
            if !prev_digit {
                return false;
            }
            prev_digit = false;
            prev_underscore = true;
        } else {
            if prev_underscore {
                return false;
            }
            prev_digit = false;
        }
    }
    !prev_underscore
}

/// Go's `strconv.ParseUint(s, base, 64)` without underscores; base 0 means
/// "from the prefix" (`0x`, `0o`, `0b`, a bare leading `0` for octal).
pub(crate) fn parse_uint(s: &str, base: u32) -> Option<u64> {
    // Only the bare leading `0` of base-0 octal may leave no digits ("0").
    let (digits, base, empty_ok) = if base == 0 {
        let b = s.as_bytes();
        if b.first() == Some(&b'0') {
            match b.get(1).map(|c| c.to_ascii_lowercase()) {
                Some(b'b') if b.len() >= 3 => (&s[2..], 2, false),
                Some(b'o') if b.len() >= 3 => (&s[2..], 8, false),
                Some(b'x') if b.len() >= 3 => (&s[2..], 16, false),
                _ => (&s[1..], 8, true),
            }
        } else {
            (s, 10, false)
        }
    } else {
        (s, base, false)
    };
    if digits.is_empty() && !empty_ok {
        return None;
    }
    let mut n: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(36)?;
        if d >= base {
            return None;
        }
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    Some(n)
}

/// Go's `strconv.ParseInt(s, base, 64)` without underscores.
pub(crate) fn parse_int(s: &str, base: u32) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        Some(_) => (false, s),
        None => return None,
    };
    // Base-0 parsing of "" after the sign must fail, not read as octal 0.
    if rest.is_empty() {
        return None;
    }
    let un = parse_uint(rest, base)?;
    if neg {
        if un <= 1u64 << 63 {
            Some((un as i64).wrapping_neg())
        } else {
            None
        }
    } else {
        i64::try_from(un).ok()
    }
}

/// A timestamp in one of the layouts go-yaml recognises, kept as its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Timestamp {
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    nanos: u32,
    /// None for UTC written as `Z` or without a zone; else minutes east.
    offset_minutes: Option<i32>,
}

impl Timestamp {
    /// What Go's `time.Time.MarshalJSON` prints (RFC 3339 with nanoseconds,
    /// trailing zeros of the fraction dropped), or its error for offsets of
    /// 24 hours or more.
    pub(crate) fn to_rfc3339(&self) -> Result<String, String> {
        let mut s = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        );
        if self.nanos != 0 {
            let frac = format!("{:09}", self.nanos);
            s.push('.');
            s.push_str(frac.trim_end_matches('0'));
        }
        match self.offset_minutes {
            None | Some(0) => s.push('Z'),
            Some(off) => {
                let (sign, abs) = if off < 0 { ('-', -off) } else { ('+', off) };
                let (h, m) = (abs / 60, abs % 60);
                if h >= 24 {
                    return Err(
                        "Time.MarshalJSON: timezone hour outside of range [0,23]".to_string()
                    );
                }
                s.push_str(&format!("{sign}{h:02}:{m:02}"));
            }
        }
        Ok(s)
    }
}

/// Parse the timestamp layouts go-yaml accepts: `2006-1-2`,
/// `2006-1-2 15:4:5.999999999` and `2006-1-2T15:4:5.999999999Z07:00`
/// (also with a lower-case `t`), with Go's `time.Parse` field rules.
pub(crate) fn parse_timestamp(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return None;
    }
    let mut p = Cursor { b, i: 5 };
    let year: u32 = s[..4].parse().ok()?;
    let month = p.num12()?;
    if !(1..=12).contains(&month) {
        return None;
    }
    p.expect(b'-')?;
    let day = p.num12()?;
    if day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut ts = Timestamp {
        year,
        month,
        day,
        hour: 0,
        minute: 0,
        second: 0,
        nanos: 0,
        offset_minutes: None,
    };
    if p.done() {
        return Some(ts);
    }
    let with_zone = match p.next()? {
        b'T' | b't' => true,
        b' ' => false,
        _ => return None,
    };
    ts.hour = p.num12()?;
    p.expect(b':')?;
    ts.minute = p.num12()?;
    p.expect(b':')?;
    ts.second = p.num12()?;
    if ts.hour >= 24 || ts.minute >= 60 || ts.second >= 60 {
        return None;
    }
    // Fraction: '.' or ',' and at least one digit; more than nine digits
    // are accepted and cut off.
    if matches!(p.peek(), Some(b'.' | b',')) && p.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
        p.i += 1;
        let start = p.i;
        while p.peek().is_some_and(|c| c.is_ascii_digit()) {
            p.i += 1;
        }
        let digits = &s[start..p.i];
        let kept = &digits[..digits.len().min(9)];
        let mut nanos: u32 = kept.parse().ok()?;
        for _ in kept.len()..9 {
            nanos *= 10;
        }
        ts.nanos = nanos;
    }
    if with_zone {
        match p.next()? {
            b'Z' => {}
            sign @ (b'+' | b'-') => {
                let hh = p.fixed2()?;
                p.expect(b':')?;
                let mm = p.fixed2()?;
                if hh > 24 || mm > 60 {
                    return None;
                }
                let off = (hh * 60 + mm) as i32;
                ts.offset_minutes = Some(if sign == b'-' { -off } else { off });
            }
            _ => return None,
        }
    }
    p.done().then_some(ts)
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn done(&self) -> bool {
        self.i == self.b.len()
    }
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }
    fn expect(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }
    /// One or two digits, greedily (Go's `getnum` for non-padded fields).
    fn num12(&mut self) -> Option<u32> {
        let d0 = self.peek().filter(u8::is_ascii_digit)?;
        self.i += 1;
        match self.peek().filter(u8::is_ascii_digit) {
            Some(d1) => {
                self.i += 1;
                Some(u32::from(d0 - b'0') * 10 + u32::from(d1 - b'0'))
            }
            None => Some(u32::from(d0 - b'0')),
        }
    }
    /// Exactly two digits.
    fn fixed2(&mut self) -> Option<u32> {
        let d0 = self.next().filter(u8::is_ascii_digit)?;
        let d1 = self.next().filter(u8::is_ascii_digit)?;
        Some(u32::from(d0 - b'0') * 10 + u32::from(d1 - b'0'))
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// YAML 1.1 base-60 floats (`1:20`, `-3:25:45.5`), which go-yaml v2 quotes
/// on output for the benefit of other parsers:
/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
pub(crate) fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    if !matches!(b.first(), Some(b'+' | b'-' | b'0'..=b'9')) || !b.contains(&b':') {
        return false;
    }
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        // `[0-5]?[0-9]`: one digit, or two with the first in 0..=5.
        match (b.get(i), b.get(i + 1)) {
            (Some(b'0'..=b'5'), Some(d1)) if d1.is_ascii_digit() => i += 2,
            (Some(d0), _) if d0.is_ascii_digit() => i += 1,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v3(s: &str) -> Resolved {
        resolve_plain(s, Rules::V3, true)
    }

    #[test]
    fn v3_numbers_follow_go_parse_int() {
        assert_eq!(v3("010"), Resolved::Int(8));
        assert_eq!(v3("0x1F"), Resolved::Int(31));
        assert_eq!(v3("0x_1F"), Resolved::Int(31));
        assert_eq!(v3("0o17"), Resolved::Int(15));
        assert_eq!(v3("0b101"), Resolved::Int(5));
        assert_eq!(v3("-0b11"), Resolved::Int(-3));
        assert_eq!(v3("0b-101"), Resolved::Int(-5));
        assert_eq!(v3("+5"), Resolved::Int(5));
        assert_eq!(v3("1_000"), Resolved::Int(1000));
        assert_eq!(v3("0"), Resolved::Int(0));
        assert_eq!(v3("-0"), Resolved::Int(0));
        assert_eq!(v3("08"), Resolved::Float(8.0));
        assert_eq!(v3("18446744073709551615"), Resolved::Uint(u64::MAX));
        assert_eq!(v3("9223372036854775808"), Resolved::Uint(1 << 63));
        assert_eq!(v3("-9223372036854775808"), Resolved::Int(i64::MIN));
        assert_eq!(
            v3("-9223372036854775809"),
            Resolved::Float(-9223372036854775809.0)
        );
        assert_eq!(v3("0xFFFFFFFFFFFFFFFFFF"), Resolved::Str);
        assert_eq!(v3("0x"), Resolved::Str);
        assert_eq!(v3("-"), Resolved::Str);
        assert_eq!(v3("1e400"), Resolved::Str);
    }

    #[test]
    fn v3_floats_and_keywords() {
        assert_eq!(v3("1.50"), Resolved::Float(1.5));
        assert_eq!(v3(".5"), Resolved::Float(0.5));
        assert_eq!(v3(".5_0"), Resolved::Float(0.5));
        assert_eq!(v3("._5"), Resolved::Str);
        assert_eq!(v3("1."), Resolved::Float(1.0));
        assert_eq!(v3("1e3"), Resolved::Float(1000.0));
        assert_eq!(v3("-.5"), Resolved::Float(-0.5));
        assert_eq!(v3("1_000.5"), Resolved::Float(1000.5));
        assert!(matches!(v3(".inf"), Resolved::Float(f) if f.is_infinite()));
        assert!(matches!(v3(".NaN"), Resolved::Float(f) if f.is_nan()));
        assert_eq!(v3("yes"), Resolved::Str);
        assert_eq!(v3("on"), Resolved::Str);
        assert_eq!(v3("True"), Resolved::Bool(true));
        assert_eq!(v3("~"), Resolved::Null);
        assert_eq!(v3(""), Resolved::Null);
        assert_eq!(v3("<<"), Resolved::Str);
        assert_eq!(v3("1.2.3"), Resolved::Str);
    }

    #[test]
    fn v2_has_yaml11_booleans() {
        for s in ["y", "Y", "yes", "on", "ON", "n", "no", "off", "Off"] {
            assert!(
                matches!(resolve_plain(s, Rules::V2, true), Resolved::Bool(_)),
                "{s}"
            );
        }
        assert_eq!(resolve_plain("0o17", Rules::V2, true), Resolved::Int(15));
    }

    #[test]
    fn timestamps_print_like_go_marshal_json() {
        let t = |s: &str| parse_timestamp(s).map(|t| t.to_rfc3339());
        assert_eq!(t("2001-12-14"), Some(Ok("2001-12-14T00:00:00Z".into())));
        assert_eq!(
            t("2001-12-14t21:59:43.10-05:00"),
            Some(Ok("2001-12-14T21:59:43.1-05:00".into()))
        );
        assert_eq!(
            t("2001-12-14 21:59:43.123456789123"),
            Some(Ok("2001-12-14T21:59:43.123456789Z".into()))
        );
        assert_eq!(
            t("2001-2-3T4:5:6+05:60"),
            Some(Ok("2001-02-03T04:05:06+06:00".into()))
        );
        assert!(matches!(t("2001-2-3T4:5:6+24:00"), Some(Err(_))));
        assert_eq!(
            t("2001-2-3T4:5:6+00:00"),
            Some(Ok("2001-02-03T04:05:06Z".into()))
        );
        assert_eq!(t("2000-02-29"), Some(Ok("2000-02-29T00:00:00Z".into())));
        assert_eq!(t("2001-02-29"), None);
        assert_eq!(t("2001-12-14 21:59:43 -5"), None);
        assert_eq!(t("2001-12-14T21:59:43"), None);
        assert_eq!(t("20011-12-14"), None);
        assert_eq!(t("2001-123-1"), None);
    }

    #[test]
    fn base60() {
        assert!(is_base60_float("1:20"));
        assert!(is_base60_float("-3:25:45.5"));
        assert!(is_base60_float("190:20:30"));
        assert!(!is_base60_float("1:60"));
        assert!(!is_base60_float("1:"));
        assert!(!is_base60_float("a:1"));
        assert!(!is_base60_float("12"));
    }
}
