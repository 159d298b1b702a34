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
//!
//! [`styled`] reads and writes YAML the other way kustomize does, as kyaml's
//! nodes with their comments and styles, for text kustomize edits in place.

mod direct;
mod error;
mod folded;
mod parse;
mod read;
mod resolve;
mod scalars;
mod scan;
pub mod styled;
mod tree;
mod typing;
mod write;

pub use direct::ObjectText;
pub use error::YamlError;
pub use folded::{
    any_changed as any_folded_changed, restore_as_written as restore_folded_as_written,
};
pub use read::{
    for_each_document, for_each_document_with_empty_nulls, for_each_resource_document,
    parse_kustomization, parse_stream, parse_stream_as_patch, parse_stream_with_empty_nulls,
    parse_stream_with_lines, ResourceDocument,
};
pub use scalars::{scalars_in_order, PathScalar};
pub use tree::{DEFAULT_ALIAS_BUDGET, ENV_ALIAS_BUDGET};
pub use typing::MAX_NESTING;
pub use write::{
    to_yaml, to_yaml_stream, to_yaml_unfolded, try_to_yaml, try_to_yaml_stream, write_yaml,
    write_yaml_view,
};

/// The JSON value go-yaml v3 gives an untagged plain scalar of this text:
/// what a field that kustomize sets without a tag (name prefixes and
/// suffixes, image rewrites) becomes on output — `123` → 123, `true` →
/// true, `` → null, `nginx:1.2` → a string. Values JSON cannot hold
/// (`.inf`, `.nan`) stay strings.
pub fn plain_scalar_value(text: &str) -> serde_json::Value {
    use resolve::{resolve_plain, Resolved, Rules};
    use serde_json::{Number, Value};
    let string = || Value::String(text.to_string());
    match resolve_plain(text, Rules::V3, true) {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::Number(i.into()),
        Resolved::Uint(u) => Value::Number(u.into()),
        Resolved::Float(f) => Number::from_f64(f).map_or_else(string, Value::Number),
        Resolved::Timestamp(t) => t.to_rfc3339().map_or_else(|_| string(), Value::String),
        Resolved::Str => string(),
    }
}
