//! `crds:` — OpenAPI definition files of custom types whose `x-kubernetes-*`
//! extensions say which fields hold annotations, label selectors, the
//! object's identity, or references to other objects by name. They become
//! field specs, the same as a `configurations:` file would declare.

use kustom_api::fieldspec::TransformerConfig;
use kustom_api::{yaml, Error, Value};
use serde_json::{json, Map};

/// The field-spec configuration described by one CRD definitions file.
pub fn config_from_crd_file(text: &str, file: &str) -> Result<TransformerConfig, Error> {
    let doc = if text.trim_start().starts_with('{') {
        kustom_api::json::from_str(text).map_err(|e| Error::new(e.to_string()))
    } else {
        yaml::parse_stream(text).map(|d| d.into_iter().next().unwrap_or(Value::Null))
    }
    .map_err(|e| e.context(format!("unable to parse open API definition from '{file}'")))?;
    let Some(types) = doc.as_object() else {
        return Err(Error::new(format!(
            "unable to parse open API definition from '{file}': expected a map of type names to definitions"
        )));
    };
    // kustomize decodes the file into a map of definition structs: any
    // other value fails it.
    if let Some((name, _)) = types.iter().find(|(_, d)| !(d.is_object() || d.is_null())) {
        return Err(Error::new(format!(
            "unable to parse open API definition from '{file}': the value of {name:?} is not a definition object"
        )));
    }
    let mut out = Collected::default();
    for (name, def) in types {
        let props = properties(def);
        let looks_like_k8s = ["kind", "apiVersion", "metadata"]
            .iter()
            .all(|k| props.is_some_and(|p| p.contains_key(*k)));
        if !looks_like_k8s {
            continue;
        }
        // The kind is the last dot-separated part of the type name.
        let kind = name.rsplit('.').next().unwrap_or(name);
        walk(types, name, kind, &mut Vec::new(), &mut out, 0);
    }
    TransformerConfig::from_value(&out.into_value())
        .map_err(|e| e.context(format!("field specs from CRD file '{file}'")))
}

/// The `properties` of a definition (`Schema.properties`, any key case).
fn properties(def: &Value) -> Option<&Map<String, Value>> {
    let schema = def
        .as_object()?
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("schema"))?
        .1;
    schema.get("properties")?.as_object()
}

#[derive(Default)]
struct Collected {
    annotations: Vec<Value>,
    labels: Vec<Value>,
    prefix: Vec<Value>,
    name_refs: Vec<Value>,
}

impl Collected {
    fn into_value(self) -> Value {
        json!({
            "commonAnnotations": self.annotations,
            "commonLabels": self.labels,
            "namePrefix": self.prefix,
            "nameReference": self.name_refs,
        })
    }
}

/// Visit the properties of `type_name` at `path`, following `$ref`s.
fn walk(
    types: &Map<String, Value>,
    type_name: &str,
    kind: &str,
    path: &mut Vec<String>,
    out: &mut Collected,
    depth: usize,
) {
    // A self-referencing type would recurse forever; kustomize has no such
    // guard, but no real CRD nests this deep.
    if depth > 32 {
        return;
    }
    let Some(props) = types.get(type_name).and_then(properties) else {
        return;
    };
    for (prop, schema) in props {
        path.push(prop.clone());
        let spec = |p: &[String]| json!({ "kind": kind, "path": p.join("/") });
        let ext = |key: &str| schema.get(key).and_then(Value::as_str);
        if ext("x-kubernetes-annotation").is_some() {
            out.annotations.push(spec(path));
        }
        if ext("x-kubernetes-label-selector").is_some() {
            out.labels.push(spec(path));
        }
        if ext("x-kubernetes-identity").is_some() {
            out.prefix.push(spec(path));
        }
        if let (Some(version), Some(ref_kind)) = (
            ext("x-kubernetes-object-ref-api-version"),
            ext("x-kubernetes-object-ref-kind"),
        ) {
            let name_key = ext("x-kubernetes-object-ref-name-key").unwrap_or("name");
            let mut p = path.clone();
            p.push(name_key.to_string());
            out.name_refs.push(json!({
                "kind": ref_kind,
                "version": version,
                "fieldSpecs": [spec(&p)],
            }));
        }
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            walk(types, r, kind, path, out, depth + 1);
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_identity_become_field_specs() {
        let text = r#"{
          "x.v1.MyKind": {"Schema": {"properties": {
            "apiVersion": {}, "kind": {}, "metadata": {},
            "spec": {"$ref": "x.v1.MyKindSpec"}}}},
          "x.v1.MyKindSpec": {"Schema": {"properties": {
            "secretRef": {"x-kubernetes-object-ref-api-version": "v1",
                          "x-kubernetes-object-ref-kind": "Secret"},
            "selector": {"x-kubernetes-label-selector": ""}}}}
        }"#;
        let tc = config_from_crd_file(text, "crd.json").expect("parses");
        let secret = tc
            .name_reference
            .iter()
            .find(|r| r.kind == "Secret")
            .expect("Secret back-reference");
        assert!(secret
            .field_specs
            .iter()
            .any(|f| f.kind == "MyKind" && f.path == "spec/secretRef/name"));
        assert!(tc.common_labels.iter().any(|f| f.path == "spec/selector"));
    }
}
