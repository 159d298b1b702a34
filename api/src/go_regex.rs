//! Go's regular expressions (RE2 syntax, as kustomize's selectors and image
//! names use them) on Rust's `regex` engine: the two syntaxes agree except
//! where Go reads a character literally that Rust rejects (a `{` that does
//! not start a repetition, as in `${CLUSTER_NAME}-control-plane`), `\Q…\E`
//! quoting, and the ASCII-only meaning of `\d`, `\w`, `\s` and `\b` in Go.

use crate::Error;

/// Go's largest repetition count (`a{1001}` is an error there).
const MAX_REPEAT: u32 = 1000;

/// Characters with a meaning in Go's regexp syntax (those `regexp.QuoteMeta` escapes).
pub const META: &[char] = &[
    '\\', '.', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$',
];

/// Whether `go` has no metacharacter but `.`, which stands for any one
/// character but a line break: how API groups and image names are written
/// (`admissionregistration.k8s.io`, `ghcr.io/org/app`). Such a pattern is
/// matched with [`dotted_prefix`] rather than compiled (a compilation cost
/// about 0.2 ms and a hundred fresh pages in each process).
pub fn is_dotted_literal(go: &str) -> bool {
    !go.contains(|c| c != '.' && META.contains(&c))
}

/// The length in bytes of the start of `s` that the dotted literal
/// `pattern` matches ([`is_dotted_literal`]): as many characters as the
/// pattern's, each equal to it or, under a `.`, any but a line break.
pub fn dotted_prefix(pattern: &str, s: &str) -> Option<usize> {
    let mut rest = s.char_indices();
    for p in pattern.chars() {
        let (_, c) = rest.next()?;
        if c != p && (p != '.' || c == '\n') {
            return None;
        }
    }
    Some(rest.next().map_or(s.len(), |(i, _)| i))
}

/// Rewrite a Go RE2 pattern as the Rust pattern that matches the same text.
pub fn translate(go: &str) -> Result<String, Error> {
    let chars: Vec<char> = go.chars().collect();
    let mut out = String::with_capacity(go.len() + 8);
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let Some(&next) = chars.get(i + 1) else {
                    return Err(Error::new(
                        "error parsing regexp: trailing backslash at end of expression: ``",
                    ));
                };
                i += 2;
                match next {
                    'Q' => {
                        // Literal text up to `\E` (or the end).
                        let mut literal = String::new();
                        while i < chars.len() {
                            if chars[i] == '\\' && chars.get(i + 1) == Some(&'E') {
                                i += 2;
                                break;
                            }
                            literal.push(chars[i]);
                            i += 1;
                        }
                        if in_class {
                            for ch in literal.chars() {
                                push_class_literal(&mut out, ch);
                            }
                        } else {
                            out.push_str(&regex::escape(&literal));
                        }
                    }
                    'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                        let set = match next.to_ascii_lowercase() {
                            'd' => "0-9",
                            'w' => "0-9A-Za-z_",
                            _ => "\\t\\n\\x0C\\r ",
                        };
                        let negated = next.is_ascii_uppercase();
                        out.push_str(&format!("[{}{set}]", if negated { "^" } else { "" }));
                    }
                    'b' | 'B' if !in_class => out.push_str(&format!("(?-u:\\{next})")),
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
                continue;
            }
            '[' if in_class => {
                // A POSIX class `[:alpha:]` inside a bracket expression.
                if chars.get(i + 1) == Some(&':') {
                    if let Some(end) = find_from(&chars, i + 2, &[':', ']']) {
                        out.extend(&chars[i..end + 2]);
                        i = end + 2;
                        continue;
                    }
                }
                out.push_str("\\[");
            }
            '[' => {
                in_class = true;
                out.push('[');
                // `]` first (after an optional `^`) is a literal in Go.
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '{' if !in_class => match repeat_at(&chars, i)? {
                Some(end) => {
                    out.extend(&chars[i..=end]);
                    i = end + 1;
                    continue;
                }
                None => out.push_str("\\{"),
            },
            '}' if !in_class => out.push_str("\\}"),
            _ if in_class => push_class_literal(&mut out, c),
            _ => out.push(c),
        }
        i += 1;
    }
    Ok(out)
}

/// Compile a Go pattern so that it must match the whole text (kustomize's
/// selectors: `^(?:pattern)$`).
pub fn anchored(go: &str) -> Result<regex::Regex, Error> {
    let rust = translate(go)?;
    regex::Regex::new(&format!("^(?:{rust})$")).map_err(|e| go_error(&e, &format!("^(?:{go})$")))
}

/// Compile a Go pattern as written (unanchored).
pub fn compile(go: &str) -> Result<regex::Regex, Error> {
    let rust = translate(go)?;
    regex::Regex::new(&rust).map_err(|e| go_error(&e, go))
}

/// A `regex` syntax error in the words Go's regexp package uses for the
/// same mistake: `error parsing regexp: <what>: `<pattern>``.
fn go_error(e: &regex::Error, pattern: &str) -> Error {
    let detail = match e {
        regex::Error::Syntax(s) => s.lines().last().unwrap_or(s).trim().to_string(),
        other => other.to_string(),
    };
    let detail = detail.strip_prefix("error: ").unwrap_or(&detail);
    let go = match detail {
        "unclosed group" => "missing closing )",
        "unopened group" => "unexpected )",
        "unclosed character class" => "missing closing ]",
        "repetition operator missing expression" => "missing argument to repetition operator",
        "incomplete escape sequence, reached end of pattern prematurely"
        | "unrecognized escape sequence" => "invalid escape sequence",
        other => other,
    };
    Error::new(format!("error parsing regexp: {go}: `{pattern}`"))
}

/// Where `{` at `i` ends a Go repetition `{n}`, `{n,}` or `{n,m}`; None when
/// it does not start one (Go then reads `{` as a literal).
fn repeat_at(chars: &[char], i: usize) -> Result<Option<usize>, Error> {
    let mut j = i + 1;
    let digits = |j: &mut usize| {
        let start = *j;
        while *j < chars.len() && chars[*j].is_ascii_digit() {
            *j += 1;
        }
        (*j > start).then(|| chars[start..*j].iter().collect::<String>())
    };
    let Some(min) = digits(&mut j) else {
        return Ok(None);
    };
    let mut max = Some(min.clone());
    if chars.get(j) == Some(&',') {
        j += 1;
        max = digits(&mut j);
    }
    if chars.get(j) != Some(&'}') {
        return Ok(None);
    }
    let count = |s: &str| s.parse::<u32>().unwrap_or(u32::MAX);
    let (lo, hi) = (count(&min), max.as_deref().map(count));
    if lo > MAX_REPEAT || hi.is_some_and(|h| h > MAX_REPEAT || h < lo) {
        let text: String = chars[i..=j].iter().collect();
        return Err(Error::new(format!(
            "error parsing regexp: invalid repeat count: `{text}`"
        )));
    }
    Ok(Some(j))
}

fn find_from(chars: &[char], from: usize, pair: &[char; 2]) -> Option<usize> {
    (from..chars.len().saturating_sub(1)).find(|&k| chars[k] == pair[0] && chars[k + 1] == pair[1])
}

/// A character inside a bracket expression, escaped where Rust's class
/// syntax (which allows nested classes and `&&`, `--`, `~~`) would read it
/// otherwise than Go.
fn push_class_literal(out: &mut String, c: char) {
    if matches!(c, '[' | '&' | '~') {
        out.push('\\');
    }
    out.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(pattern: &str, text: &str) -> bool {
        anchored(pattern).unwrap().is_match(text)
    }

    #[test]
    fn braces_that_are_not_repetitions_are_literal() {
        // Go compiles it (`$` is the end of text, so it matches nothing);
        // Rust's syntax alone rejects the `{`.
        let templated = anchored("${CLUSTER_NAME}-control-plane").unwrap();
        assert!(!templated.is_match("${CLUSTER_NAME}-control-plane"));
        assert!(full(
            r"\${CLUSTER_NAME}-control-plane",
            "${CLUSTER_NAME}-control-plane"
        ));
        assert!(full("a{", "a{"));
        assert!(full("a{x}", "a{x}"));
        assert!(full("a{1,x}", "a{1,x}"));
        assert!(full("}", "}"));
        assert!(full("a{2}", "aa"));
        assert!(full("a{2,}", "aaa"));
        assert!(full("a{1,2}b", "ab"));
        assert!(translate("a{1001}").is_err());
        assert!(translate("a{3,2}").is_err());
    }

    #[test]
    fn go_classes_are_ascii() {
        assert!(full(r"\d+", "123"));
        assert!(!full(r"\d", "٣"));
        assert!(!full(r"\w", "é"));
        assert!(full(r"[\w-]+", "my-app_1"));
        assert!(full(r"[^\d]", "x"));
        assert!(full(r"\bapp\b.*", "app x"));
    }

    #[test]
    fn quoting_and_brackets() {
        assert!(full(r"\Qa.b*\E", "a.b*"));
        assert!(!full(r"\Qa.b\E", "axb"));
        assert!(full(r"[]a]+", "]a"));
        assert!(full(r"[[:alpha:]]+", "abc"));
        assert!(full(r"[a&&b]+", "a&&b"));
        assert!(full("(?i)APP", "app"));
        assert!(full("app|web", "web"));
    }

    #[test]
    fn errors_read_as_go() {
        let e = anchored("a(").unwrap_err();
        assert!(e.message.starts_with("error parsing regexp: "), "{e}");
    }
}
