//! `AnnotationsTransformer` {annotations, fieldSpecs}: add string entries to
//! the annotation mappings named by the field specs (object metadata and
//! pod templates with kustomize's defaults).

use super::labels::set_config_entries;
use crate::Ctx;
use kustom_api::{Error, Value};

/// `AnnotationsTransformer`: set `annotations` in the fields named by `fieldSpecs`.
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, _ctx: &Ctx) -> Result<(), Error> {
    set_config_entries(config, "annotations", resources)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kustom_api::protocol::PREVIOUS_NAMES;
    use serde_json::json;

    #[test]
    fn adds_to_metadata_and_templates_keeping_others() {
        let mut res = vec![
            json!({"apiVersion": "batch/v1", "kind": "CronJob",
                "metadata": {"name": "c", "annotations": {PREVIOUS_NAMES: "x"}},
                "spec": {"jobTemplate": {"spec": {"template": {"spec": {}}}}}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}),
        ];
        let config = json!({"annotations": {"note": "hi", "n": 2},
        "fieldSpecs": [
            {"path": "metadata/annotations", "create": true},
            {"path": "spec/jobTemplate/metadata/annotations", "group": "batch", "kind": "CronJob", "create": true},
            {"path": "spec/jobTemplate/spec/template/metadata/annotations", "group": "batch", "kind": "CronJob", "create": true},
        ]});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        // The entries created together are recorded as sharing a value.
        assert!(kustom_api::resource::remove_annotation(
            &mut res[0],
            kustom_api::protocol::SHARED_ENTRIES
        )
        .is_some());
        let cj = &res[0];
        assert_eq!(
            cj["metadata"]["annotations"],
            json!({PREVIOUS_NAMES: "x", "n": "2", "note": "hi"})
        );
        assert_eq!(
            cj["spec"]["jobTemplate"]["metadata"]["annotations"]["note"],
            "hi"
        );
        assert_eq!(
            cj["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["annotations"]["n"],
            "2"
        );
        assert_eq!(
            res[1]["metadata"]["annotations"],
            json!({"n": "2", "note": "hi"})
        );
        assert!(res[1].get("spec").is_none());
    }

    #[test]
    fn overwrites_existing_values() {
        let mut res = vec![json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "annotations": {"note": 5}}})];
        let config = json!({"annotations": {"note": "new"},
            "fieldSpecs": [{"path": "metadata/annotations", "create": true}]});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(res[0]["metadata"]["annotations"]["note"], "new");
    }
}
