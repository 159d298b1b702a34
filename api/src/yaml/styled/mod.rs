//! YAML that keeps its presentation: comments, scalar and collection
//! styles, tags as written, anchors and key order, read and written the
//! way kyaml (go-yaml v3's `yaml.Node`) reads and writes them.
//!
//! kustomize v5.8 edits YAML held in a string field (a replacement whose
//! target path goes on into the text): it reads the text into nodes, sets
//! the value and writes the nodes back. What comes out is go-yaml's
//! rewriting of the text: comments where go-yaml attaches them, two-space
//! indentation, sequences flush with their keys, the first document only.
//! This module gives the same bytes; the ordinary reader
//! ([`super::parse_stream`]) gives JSON values and drops all of it.
//!
//! ```
//! use kustom_api::yaml::styled;
//! let mut doc = styled::parse_document("a:   1 # one\nb: [x,  y]\n").unwrap().unwrap();
//! doc.content[0].content[1].value = "2".into();
//! assert_eq!(styled::to_text(&doc).unwrap(), "a: 2 # one\nb: [x, y]\n");
//! ```

mod emit;
mod node;
mod parse;

pub use emit::{to_text, EmitError};
pub use node::{resolve_tag, Comments, Node, NodeKind, Presentation};
pub use parse::{parse_document, ReadError, MAX_DEPTH};

#[cfg(test)]
mod tests;
