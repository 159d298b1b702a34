//! The scalars of a YAML stream in document order, each with its path of
//! keys and sequence indexes: what kyaml's node walk (`VisitFields`,
//! `Elements`) sees, which a JSON value (sorted keys) cannot tell.

use super::error::YamlError;
use super::parse::{Event, Parser};
use super::read::split_documents;

/// One scalar value (keys excluded) and the keys/indexes leading to it.
pub type PathScalar = (Vec<String>, String);

/// An open collection: a sequence with its next index, or a mapping and
/// whether its next scalar is a key.
enum Open {
    Seq(usize),
    Map(bool),
}

/// Per document, its scalars in order. Aliases are not followed (kyaml's
/// walk does not enter alias nodes); empty documents are skipped.
pub fn scalars_in_order(text: &str) -> Result<Vec<Vec<PathScalar>>, YamlError> {
    let text = text.replace("\r\n", "\n");
    let pieces = split_documents(&text)?;
    let last = pieces.len().saturating_sub(1);
    let mut docs = Vec::new();
    for (i, &(start, end)) in pieces.iter().enumerate() {
        let end = if i == last { end } else { end + 1 };
        let mut parser = Parser::new(&text[start..end]);
        let mut stack: Vec<Open> = Vec::new();
        let mut path: Vec<String> = Vec::new();
        let mut out: Vec<PathScalar> = Vec::new();
        let mut seen = false;
        while let Some(event) = parser
            .next_event()
            .map_err(|e| YamlError::at(1 + e.line, e.problem))?
        {
            seen = true;
            if let Some(Open::Map(expect_key)) = stack.last_mut() {
                if *expect_key && !matches!(event, Event::MapEnd) {
                    *expect_key = false;
                    match event {
                        Event::Scalar { value, .. } => path.push(value),
                        // An aliased key names no path kustomize can use.
                        Event::Alias { .. } => path.push(String::new()),
                        _ => return Err(YamlError::at(1, "a collection as a mapping key")),
                    }
                    continue;
                }
            }
            match event {
                Event::Scalar { value, .. } => {
                    enter(&stack, &mut path);
                    out.push((path.clone(), value));
                    leave(&mut stack, &mut path);
                }
                Event::Alias { .. } => {
                    enter(&stack, &mut path);
                    leave(&mut stack, &mut path);
                }
                Event::SeqStart { .. } => {
                    enter(&stack, &mut path);
                    stack.push(Open::Seq(0));
                }
                Event::MapStart { .. } => {
                    enter(&stack, &mut path);
                    stack.push(Open::Map(true));
                }
                Event::SeqEnd | Event::MapEnd => {
                    stack.pop();
                    leave(&mut stack, &mut path);
                }
            }
        }
        if seen {
            docs.push(out);
        }
    }
    Ok(docs)
}

/// A value starts: as a sequence item it gets its index as path segment.
fn enter(stack: &[Open], path: &mut Vec<String>) {
    if let Some(Open::Seq(index)) = stack.last() {
        path.push(index.to_string());
    }
}

/// A value ended: drop its segment; the parent expects its next item/key.
fn leave(stack: &mut [Open], path: &mut Vec<String>) {
    match stack.last_mut() {
        Some(Open::Seq(index)) => {
            path.pop();
            *index += 1;
        }
        Some(Open::Map(expect_key)) => {
            path.pop();
            *expect_key = true;
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_in_document_order() {
        let docs = scalars_in_order("b: 1\na:\n- x\n- {c.d: y, &n e: *n}\n---\nk: v\n").unwrap();
        let flat: Vec<(String, String)> = docs[0]
            .iter()
            .map(|(p, v)| (p.join("/"), v.clone()))
            .collect();
        assert_eq!(
            flat,
            [("b", "1"), ("a/0", "x"), ("a/1/c.d", "y")]
                .map(|(p, v)| (p.to_string(), v.to_string()))
        );
        assert_eq!(docs[1], vec![(vec!["k".to_string()], "v".to_string())]);
    }
}
