//! YAML in and out, the way kustomize v5.5.0 does it.
//!
//! Reading follows go-yaml v3's scalar resolution as kustomize's kyaml
//! decodes into JSON (`010` → 8, `1_000` → 1000, `0x1F` → 31, `yes` stays a
//! string, `~` → null, timestamps stay strings). Writing reproduces
//! `sigs.k8s.io/yaml.JSONToYAML` (go-yaml v2's emitter over a JSON value):
//! keys sorted in go-yaml v2's natural order, sequences not indented under
//! their key, strings quoted only where a YAML 1.1 reader would misread them,
//! multi-line strings as literal blocks, long plain strings folded at 80
//! columns.

mod parse;
mod read;
mod resolve;
mod scan;
mod write;

pub use read::{parse_stream, parse_stream_with_lines, YamlError};
pub use write::{to_yaml, to_yaml_stream, try_to_yaml, try_to_yaml_stream, write_yaml};
