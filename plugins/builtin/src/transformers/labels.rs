//! `LabelTransformer` {labels, fieldSpecs}: add string entries to the
//! mappings named by the field specs (object labels, selectors, pod
//! templates, … — whichever specs the config lists). Also the shared engine
//! of `AnnotationsTransformer`.

use super::shared_entries;
use crate::Ctx;
use kustom_api::fieldspec::{config_field_specs, config_string, FieldSpec};
use kustom_api::{Error, Value};

/// Read a `map[string]string` config field: null or absent is empty, values
/// become strings the way kustomize's config decoding makes them (`1` →
/// "1", `true` → "true", null → ""). Sorted by key, the order kustomize
/// applies them in.
pub(crate) fn string_map(config: &Value, key: &str) -> Result<Vec<(String, String)>, Error> {
    let mut entries = match config.get(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                config_string(v)
                    .map(|s| (k.clone(), s))
                    .map_err(|e| e.context(format!("{key}.{k}")))
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => {
            return Err(Error::new(format!(
                "json: cannot unmarshal {key} into Go value of type map[string]string"
            )))
        }
    };
    entries.sort();
    Ok(entries)
}

/// Set every entry in every mapping that `specs` name in every resource,
/// creating the mappings where a spec says so. The target fields must be
/// mappings.
pub(crate) fn add_entries(
    entries: &[(String, String)],
    specs: &[FieldSpec],
    resources: &mut [Value],
) -> Result<(), Error> {
    if entries.is_empty() {
        return Ok(());
    }
    for obj in resources.iter_mut() {
        // kustomize goes key by key over all specs; the result is the same
        // as spec by spec, but this keeps its error order.
        for (key, value) in entries {
            shared_entries::set_entry(obj, key, value, specs)?;
        }
    }
    Ok(())
}

/// What `LabelTransformer` and `AnnotationsTransformer` do: set the entries
/// of the config's `key` map in the fields named by its `fieldSpecs`.
pub(crate) fn set_config_entries(
    config: &Value,
    key: &str,
    resources: &mut [Value],
) -> Result<(), Error> {
    let entries = string_map(config, key)?;
    let specs = config_field_specs(config, "fieldSpecs")?.unwrap_or_default();
    add_entries(&entries, &specs, resources)
}

/// `LabelTransformer`: set `labels` in the fields named by `fieldSpecs`.
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, _ctx: &Ctx) -> Result<(), Error> {
    set_config_entries(config, "labels", resources)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kustom_api::fieldspec::{label_field_specs, TransformerConfig};
    use serde_json::json;

    fn deployment() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labels": {"keep": "me"}},
            "spec": {"selector": {"matchLabels": {"app": "d"}},
                     "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": []}}}})
    }

    fn specs_value(specs: &[FieldSpec]) -> Value {
        serde_json::to_value(specs).unwrap()
    }

    #[test]
    fn labels_with_and_without_selectors() {
        let tc = TransformerConfig::defaults();
        // labels: with includeSelectors false, includeTemplates true.
        let specs = label_field_specs(false, true, &tc).unwrap();
        let mut res = vec![
            deployment(),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"selector": {"app": "d"}}}),
        ];
        let config = json!({"labels": {"team": "a"}, "fieldSpecs": specs_value(&specs)});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        let d = &res[0];
        assert_eq!(d["metadata"]["labels"], json!({"keep": "me", "team": "a"}));
        assert_eq!(d["spec"]["template"]["metadata"]["labels"]["team"], "a");
        assert!(d["spec"]["selector"]["matchLabels"].get("team").is_none());
        assert!(res[1]["spec"]["selector"].get("team").is_none());

        // commonLabels: selectors too, and a missing selector is created.
        let mut res = vec![
            deployment(),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}),
        ];
        let config = json!({"labels": {"team": "a"}, "fieldSpecs": specs_value(&tc.common_labels)});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(res[0]["spec"]["selector"]["matchLabels"]["team"], "a");
        assert_eq!(res[1]["spec"]["selector"], json!({"team": "a"}));
    }

    #[test]
    fn plain_labels_only_touch_metadata() {
        let tc = TransformerConfig::defaults();
        let specs = label_field_specs(false, false, &tc).unwrap();
        assert_eq!(specs.len(), 1);
        let mut res = vec![deployment()];
        let config = json!({"labels": {"team": "a"}, "fieldSpecs": specs_value(&specs)});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert!(res[0]["spec"]["template"]["metadata"]["labels"]
            .get("team")
            .is_none());
        assert_eq!(res[0]["metadata"]["labels"]["team"], "a");
    }

    #[test]
    fn values_become_strings() {
        let mut res =
            vec![json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})];
        let config = json!({"labels": {"a": 1, "b": 1.5, "c": true, "d": null, "e": 12345678.9},
            "fieldSpecs": [{"path": "metadata/labels", "create": true}]});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(
            res[0]["metadata"]["labels"],
            json!({"a": "1", "b": "1.5", "c": "true", "d": "", "e": "1.2345679e+07"})
        );
    }

    #[test]
    fn no_labels_no_change_and_bad_targets() {
        let mut res = vec![deployment()];
        let before = res.clone();
        let config = json!({"labels": {}, "fieldSpecs": [{"path": "metadata/name"}]});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(res, before);
        let config = json!({"labels": {"a": "b"}, "fieldSpecs": [{"path": "metadata/name"}]});
        let err = transform(&config, &mut res, &Ctx::for_tests()).unwrap_err();
        assert!(err.message.contains("expected MappingNode"), "{err}");
    }

    #[test]
    fn sequences_on_the_way_are_descended() {
        let mut res = vec![
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"},
            "spec": {"volumeClaimTemplates": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]}}),
        ];
        let config = json!({"labels": {"x": "y"},
            "fieldSpecs": [{"path": "spec/volumeClaimTemplates[]/metadata/labels", "group": "apps", "kind": "StatefulSet", "create": true}]});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(
            res[0]["spec"]["volumeClaimTemplates"][1]["metadata"]["labels"]["x"],
            "y"
        );
    }
}
