//! Folded (`>`) scalars, which kustomize reads two ways: `build`'s
//! output shows them re-read through go-yaml v3's folded writer, while
//! `build -o DIR` (and so `render`) writes the value as the file said.
//!
//! Values are read the way `build` prints them; each text that reading
//! changed is remembered with what the file said, so the writer of `-o DIR`
//! can put it back ([`restore_as_written`]). Remembered by content, so the
//! value may move (a replacement, a patch) and still be found. Not put
//! back, unlike kustomize: a value a JSON 6902 patch touched the resource
//! of (kustomize re-reads it from JSON there), and folded text that only a
//! plugin process read (a third-party plugin's own input files).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde_json::Value;

use super::parse::{Event, Parser};

/// Texts the reading changed, as printed → as the file said.
static CHANGED: Mutex<Option<HashMap<String, String>>> = Mutex::new(None);
/// Whether [`CHANGED`] holds anything: the usual answer, without a lock.
static ANY_CHANGED: AtomicBool = AtomicBool::new(false);

/// A folded scalar's value as `build` prints it; remembers what the file
/// said when that differs.
pub(super) fn folded_as_printed(value: String) -> String {
    match as_kyaml_prints(&value) {
        Some(printed) if printed != value => {
            let mut changed = CHANGED.lock().unwrap_or_else(|e| e.into_inner());
            changed
                .get_or_insert_with(HashMap::new)
                .insert(printed.clone(), value);
            ANY_CHANGED.store(true, Ordering::Release);
            printed
        }
        _ => value,
    }
}

/// Put back what the file said in each string of `value` that the reading
/// of a folded scalar changed.
pub fn restore_as_written(value: &mut Value) {
    if !any_changed() {
        return;
    }
    let changed = CHANGED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(changed) = changed.as_ref() {
        restore_in(value, changed);
    }
}

fn restore_in(value: &mut Value, changed: &HashMap<String, String>) {
    match value {
        Value::String(s) => {
            if let Some(written) = changed.get(s.as_str()) {
                s.clone_from(written);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| restore_in(v, changed)),
        Value::Object(map) => map.values_mut().for_each(|v| restore_in(v, changed)),
        _ => {}
    }
}

/// Whether any folded scalar read so far was changed by the reading: the
/// writer of `-o DIR` looks no further when none was.
pub fn any_changed() -> bool {
    ANY_CHANGED.load(Ordering::Acquire)
}

/// The value a folded (`>`) scalar has when kustomize prints it; None when
/// it is the value read (v3 would not write it folded).
///
/// kyaml re-encodes each resource with go-yaml v3 and decodes it again
/// before printing, and v3 writes folded scalars back in folded style with
/// a bug: whether a line break needs doubling is decided from the first
/// line of the whole text instead of the line that follows. So the text is
/// written the way v3 writes it and read back. (kustomize's encoder does
/// not fold long lines there: more-indented long lines come back intact.)
fn as_kyaml_prints(value: &str) -> Option<String> {
    // Any indentation will do: no line is folded for width.
    const INDENT: usize = 2;
    let is_break = |c: char| matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    // v3 keeps block style unless the text is empty, has a space before a
    // line break or at its very end, or characters it must escape.
    let printable = |c: char| {
        matches!(c, '\t' | '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}')
            || (('\u{E000}'..='\u{FFFD}').contains(&c) && c != '\u{FEFF}')
    };
    if value.is_empty()
        || value.ends_with(' ')
        || value.contains(" \n")
        || !value.chars().all(printable)
        || value.contains('\u{2028}')
        || value.contains('\u{2029}')
    {
        return None;
    }
    let mut out = String::with_capacity(value.len() + 16);
    out.push('>');
    if value.starts_with(|c: char| c == ' ' || is_break(c)) {
        out.push('2');
    }
    let mut rev = value.chars().rev();
    match (rev.next(), rev.next()) {
        (Some(last), _) if !is_break(last) => out.push('-'),
        (Some(_), None) => out.push('+'),
        (Some(_), Some(prev)) if is_break(prev) => out.push('+'),
        _ => {}
    }
    // The bug: the check looks at the first non-break character of the
    // whole text.
    let first_blank = value
        .chars()
        .find(|&c| !is_break(c))
        .is_none_or(|c| c == ' ' || c == '\t');
    // The header line ends right away (go-yaml v2 writes it so, and so
    // does the v3 kustomize uses: a leading empty line survives).
    out.push('\n');
    let mut column = 0;
    let mut indention = true;
    let newline = |out: &mut String, column: &mut usize, indention: &mut bool| {
        out.push('\n');
        *column = 0;
        *indention = true;
    };
    let write_indent = |out: &mut String, column: &mut usize, indention: &mut bool| {
        if !*indention || *column > INDENT {
            newline(out, column, indention);
        }
        if *column < INDENT {
            out.push_str("  ");
            *column = INDENT;
        }
    };
    let mut breaks = true;
    let mut leading_spaces = true;
    for c in value.chars() {
        if is_break(c) {
            if !breaks && !leading_spaces && c == '\n' && !first_blank {
                newline(&mut out, &mut column, &mut indention);
            }
            if c == '\n' {
                newline(&mut out, &mut column, &mut indention);
            } else {
                out.push(c);
                column = 0;
                indention = true;
            }
            breaks = true;
        } else {
            if breaks {
                write_indent(&mut out, &mut column, &mut indention);
                leading_spaces = c == ' ' || c == '\t';
            }
            out.push(c);
            column += 1;
            indention = false;
            breaks = false;
        }
    }
    let mut parser = Parser::new(&out);
    match parser.next_event() {
        Ok(Some(Event::Scalar { value: reread, .. })) => Some(reread),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_a_reading_changed_is_put_back_wherever_it_moved() {
        let docs = crate::yaml::parse_stream("a: >-\n  x(\n    y\n  )\nb: >\n  p\n  q\n").unwrap();
        let printed = docs[0]["a"].as_str().unwrap().to_string();
        assert_eq!(printed, "x(\n\n  y\n)");
        // Moved elsewhere, beside a text no reading changed.
        let mut moved = serde_json::json!({"k": [printed, "p q\n", "x(\n\n  y\n"]});
        restore_as_written(&mut moved);
        assert_eq!(
            moved,
            serde_json::json!({"k": ["x(\n  y\n)", "p q\n", "x(\n\n  y\n"]})
        );
    }
}
