//! YAML writer reproducing kustomize's canonical output. (Being written.)

use serde_json::Value;

/// One document in kustomize's canonical form, ending in a newline.
pub fn to_yaml(value: &Value) -> String {
    let _ = value;
    unimplemented!("yaml writer")
}

/// Documents joined the way `kustomize build` prints them (`---` between).
pub fn to_yaml_stream(docs: &[Value]) -> String {
    let mut out = String::new();
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&to_yaml(d));
    }
    out
}
