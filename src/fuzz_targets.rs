//! Entry points for fuzzing: each takes arbitrary bytes and must neither
//! panic nor hang, whatever the bytes are. `fuzz/` (cargo-fuzz) drives
//! them with libFuzzer; `tests/fuzz_smoke.rs` runs them over the seed
//! corpus and a few seconds of mutations on every `cargo test`.

use kustom_api::fieldspec::TransformerConfig;
use kustom_api::yaml;
use std::path::Path;

/// The YAML reader/writer round trip: whatever the reader accepts, the
/// writer prints, and reading that output gives the same values back.
pub fn yaml_roundtrip(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(docs) = yaml::parse_stream(text) else {
        return;
    };
    for doc in &docs {
        // What kustomize itself cannot print is reported, not printed.
        let Ok(printed) = yaml::try_to_yaml(doc) else {
            continue;
        };
        let again = yaml::parse_stream(&printed).unwrap_or_else(|e| {
            panic!("the writer's output does not read back: {e}\n--- value: {doc}\n--- printed:\n{printed}")
        });
        let same = match again.as_slice() {
            [] => is_empty_doc(doc),
            [back] => same_value(back, doc),
            _ => false,
        };
        assert!(
            same,
            "round trip changed the value {doc}; printed:\n{printed}\nread back: {again:?}"
        );
        // Printing is deterministic.
        assert_eq!(yaml::to_yaml(doc), printed);
    }
}

/// Equal values, numbers compared by value: a float that is a whole
/// number (`0009` read as 9.0) prints as `9` and reads back as an integer,
/// which is the same number.
fn same_value(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || (x.as_f64().is_some() && x.as_f64() == y.as_f64())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

/// A document the reader skips when it reads it back.
fn is_empty_doc(v: &serde_json::Value) -> bool {
    v.is_null()
}

/// The kustomization loader: parse a kustomization file as `kustom build`
/// does, then plan its builtin generator and transformer calls.
pub fn kustomization(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(k) = crate::operations::kustomization::Kustomization::parse(
        text,
        Path::new("/fuzz/kustomization.yaml"),
    ) else {
        return;
    };
    let _ = crate::operations::plan::builtin_generators(&k, Some("fuzz"));
    let _ = crate::operations::plan::builtin_transformers(
        &k,
        &TransformerConfig::defaults(),
        false,
        None,
    );
    let _ = crate::operations::plan::builtin_transformers(
        &k,
        &TransformerConfig::defaults(),
        true,
        None,
    );
}
