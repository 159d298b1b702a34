//! Null fields of a kustomization file, read as kustomize reads them.
//!
//! kustomize converts the file to JSON and decodes it into Go structs, where
//! `null` leaves a field at its zero value: `resources:` with no value is no
//! resources, `namePrefix:` is "", `count:` is 0, and a null inside a string
//! map or string list is "" (`commonLabels: {a: }` sets `a: ""`). The same
//! zero values decide whether a kustomization is empty.

use kustom_api::Value;

/// What a field holds, as far as nulls are concerned.
#[derive(Clone, Copy)]
enum Shape {
    /// A struct: a null field is dropped (the zero value is the default).
    Struct(&'static [(&'static str, Shape)]),
    /// `map[string]string`: a null value is "".
    StringMap,
    /// `map[string]bool`: a null value is false.
    BoolMap,
    /// `[]string`: a null element is "".
    StringList,
    /// A list of structs: a null element is an empty struct.
    List(&'static Shape),
    /// A Go struct not modelled field by field here: null fields are
    /// dropped at every level.
    Nested,
    /// `map[string]interface{}` (Helm values): nulls are data.
    Opaque,
}

use Shape::*;

const OPTIONS: Shape = Struct(&[("labels", StringMap), ("annotations", StringMap)]);
const GENERATOR: Shape = Struct(&[
    ("literals", StringList),
    ("files", StringList),
    ("envs", StringList),
    ("options", OPTIONS),
]);
const HELM_CHART: Shape = Struct(&[
    ("valuesInline", Opaque),
    ("valuesLocal", Opaque),
    ("additionalValuesFiles", StringList),
    ("apiVersions", StringList),
]);
const LABEL: Shape = Struct(&[("pairs", StringMap), ("fields", List(&Nested))]);
const PATCH: Shape = Struct(&[("target", Nested), ("options", BoolMap)]);

/// The kustomization's fields whose shape matters; any other field is a
/// scalar or a struct of scalars.
const KUSTOMIZATION: Shape = Struct(&[
    (
        "metadata",
        Struct(&[("labels", StringMap), ("annotations", StringMap)]),
    ),
    ("openapi", StringMap),
    ("commonLabels", StringMap),
    ("commonAnnotations", StringMap),
    ("labels", List(&LABEL)),
    ("patchesStrategicMerge", StringList),
    ("patchesJson6902", List(&PATCH)),
    ("patches", List(&PATCH)),
    ("images", List(&Nested)),
    ("imageTags", List(&Nested)),
    ("replacements", List(&Nested)),
    ("replicas", List(&Nested)),
    ("vars", List(&Nested)),
    ("sortOptions", Nested),
    ("resources", StringList),
    ("components", StringList),
    ("crds", StringList),
    ("bases", StringList),
    ("configMapGenerator", List(&GENERATOR)),
    ("secretGenerator", List(&GENERATOR)),
    ("helmGlobals", Nested),
    ("helmCharts", List(&HELM_CHART)),
    ("helmChartInflationGenerator", List(&HELM_CHART)),
    ("generatorOptions", OPTIONS),
    ("configurations", StringList),
    ("generators", StringList),
    ("transformers", StringList),
    ("validators", StringList),
    ("buildMetadata", StringList),
]);

/// Replace the nulls of a (case-folded) kustomization by what Go's decoder
/// makes of them.
pub fn zero_nulls(kustomization: &mut Value) {
    zero(kustomization, KUSTOMIZATION);
}

fn zero(v: &mut Value, shape: Shape) {
    match (shape, v) {
        (Struct(fields), Value::Object(map)) => {
            map.retain(|_, child| !child.is_null());
            for (key, child) in map.iter_mut() {
                let shape = fields
                    .iter()
                    .find(|(name, _)| name == key)
                    .map_or(Nested, |(_, s)| *s);
                zero(child, shape);
            }
        }
        (Nested, Value::Object(map)) => {
            map.retain(|_, child| !child.is_null());
            map.values_mut().for_each(|child| zero(child, Nested));
        }
        (Nested, Value::Array(items)) => items.iter_mut().for_each(|i| zero(i, Nested)),
        (StringMap, Value::Object(map)) => map
            .values_mut()
            .filter(|c| c.is_null())
            .for_each(|c| *c = Value::String(String::new())),
        (BoolMap, Value::Object(map)) => map
            .values_mut()
            .filter(|c| c.is_null())
            .for_each(|c| *c = Value::Bool(false)),
        (StringList, Value::Array(items)) => items
            .iter_mut()
            .filter(|c| c.is_null())
            .for_each(|c| *c = Value::String(String::new())),
        (List(element), Value::Array(items)) => {
            for item in items {
                if item.is_null() {
                    *item = Value::Object(Default::default());
                }
                zero(item, *element);
            }
        }
        _ => {}
    }
}

/// kustomize's CheckEmpty on a kustomization whose nulls are zeroed: no
/// field is set besides `apiVersion` and `kind`. A Go slice or map written
/// empty (`resources: []`) is set; the deprecated lists moved onto their
/// replacements on load count only when they add something.
pub fn is_empty(kustomization: &Value) -> bool {
    let Some(map) = kustomization.as_object() else {
        return true;
    };
    map.iter().all(|(key, v)| match key.as_str() {
        "apiVersion" | "kind" => true,
        "bases" | "imageTags" | "helmChartInflationGenerator" => {
            v.as_array().is_some_and(Vec::is_empty)
        }
        _ => v.as_str() == Some(""),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nulls_become_go_zero_values() {
        let mut k = json!({
            "resources": null, "namePrefix": null, "commonLabels": {"a": null, "b": "x"},
            "components": ["c", null],
            "replicas": [{"name": "w", "count": null}, null],
            "patches": [{"path": "p.yaml", "target": {"kind": null}, "options": {"allowNameChange": null}}],
            "configMapGenerator": [{"name": "g", "literals": null, "options": {"labels": {"l": null}}}],
            "helmCharts": [{"name": "h", "valuesInline": {"keep": null}, "version": null}],
        });
        zero_nulls(&mut k);
        assert_eq!(
            k,
            json!({
                "commonLabels": {"a": "", "b": "x"},
                "components": ["c", ""],
                "replicas": [{"name": "w"}, {}],
                "patches": [{"path": "p.yaml", "target": {}, "options": {"allowNameChange": false}}],
                "configMapGenerator": [{"name": "g", "options": {"labels": {"l": ""}}}],
                "helmCharts": [{"name": "h", "valuesInline": {"keep": null}}],
            })
        );
    }

    #[test]
    fn emptiness_follows_go_zero_values() {
        for empty in [
            json!({}),
            json!({"apiVersion": "v", "kind": "Component"}),
            json!({"namePrefix": ""}),
            json!({"bases": [], "imageTags": []}),
        ] {
            assert!(is_empty(&empty), "{empty}");
        }
        for set in [
            json!({"resources": []}),
            json!({"commonLabels": {}}),
            json!({"metadata": {}}),
            json!({"namespace": "x"}),
            json!({"bases": ["b"]}),
        ] {
            assert!(!is_empty(&set), "{set}");
        }
    }
}
