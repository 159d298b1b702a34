//! The extra arguments of a legacy exec plugin: its config's `argsOneLiner`
//! split into words, then the non-empty lines of `argsFromFile`.
//!
//! The two kustomize releases split `argsOneLiner` differently:
//!
//! - v5.5.0 (github.com/google/shlex): whitespace is space, tab, CR and
//!   LF; `'…'` keeps everything; `"…"` keeps everything but `\` escapes
//!   the next character; outside quotes `\` escapes the next character;
//!   `#` at the start of a word comments out the rest of the line; `''`
//!   is an empty word. An unclosed quote or a trailing `\` ends the split
//!   and the word being read is dropped, silently (kustomize ignores the
//!   error).
//! - v5.8.1 (its own ShlexSplit since v5.7.1): whitespace is Unicode's;
//!   quotes and `\` as above, except that `\` is literal in `'…'` only;
//!   `#` anywhere outside quotes ends the whole line; an empty quoted
//!   string makes no word; a trailing `\` is dropped; an unclosed quote is
//!   an error.

use kustom_api::{Error, KustomizeVersion, Value};
use std::path::Path;

/// The extra arguments of a plugin: `argsOneLiner`, then the lines of
/// `argsFromFile` (relative to the kustomization directory `dir`).
pub fn plugin_args(
    config: &Value,
    dir: &Path,
    root_only: bool,
    version: KustomizeVersion,
) -> Result<Vec<String>, Error> {
    let mut args = Vec::new();
    if let Some(line) = config.get("argsOneLiner").and_then(Value::as_str) {
        if version.is_5_8() {
            // kustomize v5.7.1 (#5943): its own splitter, which reports an unclosed quote.
            args.extend(split_v5_8(line).map_err(|e| e.context("failed to parse argsOneLiner"))?);
        } else {
            args.extend(split_v5_5(line));
        }
    }
    if let Some(file) = config.get("argsFromFile").and_then(Value::as_str) {
        if !file.is_empty() {
            let path = dir.join(file);
            let real = path.canonicalize().map_err(|e| {
                Error::new(format!("argsFromFile {file:?}: {}: {e}", path.display()))
            })?;
            if root_only && !real.starts_with(dir) {
                return Err(Error::new(format!(
                    "argsFromFile {file:?}: security; file '{}' is not in or below '{}' (build with --load-restrictor LoadRestrictionsNone to allow it)",
                    real.display(),
                    dir.display()
                )));
            }
            let text = kustom_api::files::read_text(&real)
                .map_err(|e| e.context(format!("argsFromFile {file:?}")))?;
            for line in text.split('\n') {
                let arg = line.trim_start_matches(' ');
                if !arg.is_empty() {
                    args.push(arg.to_string());
                }
            }
        }
    }
    Ok(args)
}

/// Where the v5.5.0 splitter is inside a word.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inside {
    /// Between words.
    Nothing,
    /// An unquoted part of a word.
    Word,
    /// Right after an unquoted `\`.
    Escape,
    /// In `"…"`.
    Double,
    /// Right after `\` in `"…"`.
    DoubleEscape,
    /// In `'…'`.
    Single,
    /// In a `#` comment, up to the end of the line.
    Comment,
}

/// `argsOneLiner` as kustomize v5.5.0 splits it (see the module
/// documentation).
pub fn split_v5_5(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut at = Inside::Nothing;
    for c in line.chars() {
        let space = matches!(c, ' ' | '\t' | '\r' | '\n');
        at = match (at, c) {
            (Inside::Nothing, _) if space => Inside::Nothing,
            (Inside::Nothing, '#') => Inside::Comment,
            (Inside::Comment, '\n') => Inside::Nothing,
            (Inside::Comment, _) => Inside::Comment,
            (Inside::Nothing | Inside::Word, '"') => Inside::Double,
            (Inside::Nothing | Inside::Word, '\'') => Inside::Single,
            (Inside::Nothing | Inside::Word, '\\') => Inside::Escape,
            (Inside::Word, _) if space => {
                words.push(std::mem::take(&mut word));
                Inside::Nothing
            }
            (Inside::Nothing | Inside::Word | Inside::Escape, c) => {
                word.push(c);
                Inside::Word
            }
            (Inside::Double, '"') | (Inside::Single, '\'') => Inside::Word,
            (Inside::Double, '\\') => Inside::DoubleEscape,
            (Inside::Double | Inside::DoubleEscape, c) => {
                word.push(c);
                Inside::Double
            }
            (Inside::Single, c) => {
                word.push(c);
                Inside::Single
            }
        };
    }
    // An unfinished quote or escape drops the word being read.
    if at == Inside::Word {
        words.push(word);
    }
    words
}

/// `argsOneLiner` as kustomize v5.8.1 splits it (see the module
/// documentation); an unclosed quote is an error.
pub fn split_v5_8(line: &str) -> Result<Vec<String>, Error> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in line.chars() {
        if escaped {
            word.push(c);
            escaped = false;
            continue;
        }
        match (quote, c) {
            (q, '\\') if q != Some('\'') => escaped = true,
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') => break,
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            (_, c) => word.push(c),
        }
    }
    if quote.is_some() {
        return Err(Error::new("unclosed quote in string"));
    }
    if !word.is_empty() {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v5_5(line: &str) -> Vec<String> {
        split_v5_5(line)
    }

    fn v5_8(line: &str) -> Vec<String> {
        split_v5_8(line).expect("splits")
    }

    #[test]
    fn both_split_like_a_shell() {
        for split in [v5_5, v5_8] {
            assert_eq!(
                split(r#"one "two three" 'fo ur' five\ six # seven"#),
                vec!["one", "two three", "fo ur", "five six"]
            );
            assert_eq!(
                split(r#"a"b c"d 'x\y' "q\"r" "s\t""#),
                vec!["ab cd", r"x\y", "q\"r", "st"]
            );
            assert_eq!(split("  "), Vec::<String>::new());
            assert_eq!(split("--x=1 /p é$!"), vec!["--x=1", "/p", "é$!"]);
        }
    }

    #[test]
    fn v5_5_drops_an_unfinished_word_and_comments_start_words() {
        assert_eq!(v5_5(r#"a b "c d"#), vec!["a", "b"]);
        assert_eq!(v5_5(r"a b\"), vec!["a"]);
        assert_eq!(v5_5("a 'x"), vec!["a"]);
        assert_eq!(v5_5("''"), vec![""]);
        assert_eq!(v5_5(r#"a "" b"#), vec!["a", "", "b"]);
        assert_eq!(v5_5("ab#c d"), vec!["ab#c", "d"]);
        assert_eq!(v5_5("a # c\nd"), vec!["a", "d"]);
        // Only ASCII space, tab, CR and LF separate words.
        assert_eq!(v5_5("a\u{a0}b\u{b}c"), vec!["a\u{a0}b\u{b}c"]);
    }

    #[test]
    fn v5_8_reports_unclosed_quotes_and_comments_end_the_line() {
        let e = split_v5_8(r#"a b "c d"#).expect_err("unclosed");
        assert_eq!(e.message, "unclosed quote in string");
        assert!(split_v5_8("a 'x").is_err());
        assert_eq!(v5_8(r"a b\"), vec!["a", "b"]);
        assert_eq!(v5_8("''"), Vec::<String>::new());
        assert_eq!(v5_8(r#"a "" b"#), vec!["a", "b"]);
        assert_eq!(v5_8("ab#c d"), vec!["ab"]);
        assert_eq!(v5_8("a # c\nd"), vec!["a"]);
        assert_eq!(v5_8("a\u{a0}b\u{b}c"), vec!["a", "b", "c"]);
    }
}
