//! YAML in and out, the way kustomize v5.5.0 does it.
//!
//! Reading gives the JSON value kustomize would print: the stream is cut at
//! `---` lines as kyaml cuts it, each piece is parsed with go-yaml v3's
//! grammar (our own scanner and parser, YAML 1.1 line breaks included),
//! scalars are typed with v3's rules (`010` → 8, `1_000` → 1000, `0x1F` →
//! 31, `yes` stays a string, `~` → null, timestamps become RFC 3339
//! strings), aliases and `<<` merges are expanded, and what kustomize
//! rejects (duplicate keys, non-string nested keys, `.inf`) is an error.
//!
//! Writing reproduces `sigs.k8s.io/yaml.JSONToYAML` (go-yaml v2's emitter
//! over a JSON value): keys sorted in go-yaml v2's natural order, sequences
//! not indented under their key, strings quoted only where a YAML 1.1 reader
//! would misread them, multi-line strings as literal blocks, long scalars
//! folded at 80 columns. [`try_to_yaml`] also reports the few values
//! kustomize itself fails to print.

mod parse;
mod read;
mod resolve;
mod scan;
mod write;

pub use read::{parse_stream, parse_stream_with_lines, YamlError};
pub use write::{to_yaml, to_yaml_stream, try_to_yaml, try_to_yaml_stream, write_yaml};
