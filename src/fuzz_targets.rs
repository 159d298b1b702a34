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
        let expected: Vec<&serde_json::Value> = if is_empty_doc(doc) {
            Vec::new()
        } else {
            vec![doc]
        };
        assert_eq!(
            again.iter().collect::<Vec<_>>(),
            expected,
            "round trip changed the value; printed:\n{printed}"
        );
        // Printing is deterministic.
        assert_eq!(yaml::to_yaml(doc), printed);
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
    let Ok(k) =
        crate::kustomization::Kustomization::parse(text, Path::new("/fuzz/kustomization.yaml"))
    else {
        return;
    };
    let _ = crate::plan::builtin_generators(&k);
    let _ = crate::plan::builtin_transformers(&k, &TransformerConfig::defaults(), false, None);
    let _ = crate::plan::builtin_transformers(&k, &TransformerConfig::defaults(), true, None);
}
