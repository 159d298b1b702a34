//! `PrefixTransformer` {prefix, fieldSpecs}, `SuffixTransformer` {suffix,
//! fieldSpecs} and the legacy `PrefixSuffixTransformer` {prefix, suffix,
//! fieldSpecs} (prefix first, then suffix).
//!
//! Besides editing the named fields, a transformer that touches
//! `metadata/name` records the rename the way kustomize does, so that name
//! references can be fixed later: the prefix or suffix is appended to the
//! `prefixes`/`suffixes` build annotation and the id before the rename is
//! appended to the previous-id annotations.

use crate::Ctx;
use kustom_api::fieldspec::{config_field_specs, config_str_field, visit_fields, FieldSpec};
use kustom_api::{protocol, resource, yaml, Error, Gvk, Value};

/// Which end of the name a transformer extends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Prefix,
    Suffix,
}

impl End {
    /// The config key holding the affix.
    fn key(self) -> &'static str {
        match self {
            End::Prefix => "prefix",
            End::Suffix => "suffix",
        }
    }

    /// The build annotation that lists the affixes applied so far.
    fn annotation(self) -> &'static str {
        match self {
            End::Prefix => protocol::PREFIXES,
            End::Suffix => protocol::SUFFIXES,
        }
    }
}

/// One configured affix transformation.
struct Affix {
    end: End,
    value: String,
    field_specs: Vec<FieldSpec>,
}

impl Affix {
    /// Read the affix and the field specs; kustomize insists on the
    /// `fieldSpecs` key being present (an empty list is fine).
    fn from_config(config: &Value, end: End) -> Result<Affix, Error> {
        let value = config_str_field(config, end.key())?;
        let field_specs = config_field_specs(config, "fieldSpecs")?
            .ok_or_else(|| Error::new("fieldSpecs is not expected to be nil"))?;
        Ok(Affix {
            end,
            value,
            field_specs,
        })
    }

    /// Apply to every resource.
    fn apply(&self, resources: &mut [Value]) -> Result<(), Error> {
        for obj in resources.iter_mut() {
            // kustomize selects by the original id: a resource whose kind a
            // patch changed is still treated as its first kind.
            let org = resource::org_id(obj);
            if never_renamed(&org.gvk) {
                continue;
            }
            for spec in &self.field_specs {
                if !spec.applies_to(&org.gvk) {
                    continue;
                }
                // Exactly this path spelling, as in kustomize: only then is
                // the rename recorded for the name-reference pass.
                if spec.path == "metadata/name" {
                    resource::append_csv_annotation(obj, self.end.annotation(), &self.value);
                    if !self.value.is_empty() {
                        resource::store_previous_id(obj);
                    }
                }
                // A created field starts as null: an untagged, plain scalar.
                visit_fields(obj, spec, Some(&Value::Null), &mut |field| {
                    let current = scalar_text(field)?;
                    let text = match self.end {
                        End::Prefix => format!("{}{current}", self.value),
                        End::Suffix => format!("{current}{}", self.value),
                    };
                    set_untagged_scalar(field, text);
                    Ok(())
                })?;
            }
        }
        Ok(())
    }
}

/// Kinds whose names kustomize never prefixes or suffixes: their names are
/// API-defined (CRDs, APIServices) or are namespaces themselves.
fn never_renamed(gvk: &Gvk) -> bool {
    gvk.kind == "CustomResourceDefinition"
        || gvk.kind == "Namespace"
        || (gvk.kind == "APIService" && gvk.group == "apiregistration.k8s.io")
}

/// The text of a scalar field; mappings and sequences cannot take an affix.
pub(crate) fn scalar_text(field: &Value) -> Result<String, Error> {
    match field {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Array(_) => Err(wrong_kind("ScalarNode", "SequenceNode")),
        Value::Object(_) => Err(wrong_kind("ScalarNode", "MappingNode")),
    }
}

/// Replace a scalar field the way kustomize's `SetScalar` does: the new
/// text carries no tag and keeps the old style, so where the old value was
/// plain the text is typed as YAML would type it on output (prefix `1` on
/// name `23` gives the number 123). A string that plain YAML would not read
/// as a string must have been quoted, and then stays a string.
pub(crate) fn set_untagged_scalar(field: &mut Value, text: String) {
    let was_plain = match field {
        Value::String(s) => yaml::plain_scalar_value(s).is_string(),
        _ => true,
    };
    *field = if was_plain {
        yaml::plain_scalar_value(&text)
    } else {
        Value::String(text)
    };
}

/// kustomize's message for a field of the wrong shape.
pub(crate) fn wrong_kind(expected: &str, got: &str) -> Error {
    Error::new(format!(
        "wrong node kind: expected {expected} but got {got}"
    ))
}

/// `PrefixTransformer`: prepend `prefix` to the fields named by `fieldSpecs`.
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform_prefix(
    config: &Value,
    resources: &mut Vec<Value>,
    _ctx: &Ctx,
) -> Result<(), Error> {
    Affix::from_config(config, End::Prefix)?.apply(resources)
}

/// `SuffixTransformer`: append `suffix` to the fields named by `fieldSpecs`.
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform_suffix(
    config: &Value,
    resources: &mut Vec<Value>,
    _ctx: &Ctx,
) -> Result<(), Error> {
    Affix::from_config(config, End::Suffix)?.apply(resources)
}

/// `PrefixSuffixTransformer` (kustomize's legacy combined kind): the prefix
/// transformer, then the suffix transformer, both configured from the same
/// object. Both configs are checked before anything changes.
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform_prefix_suffix(
    config: &Value,
    resources: &mut Vec<Value>,
    _ctx: &Ctx,
) -> Result<(), Error> {
    let prefix = Affix::from_config(config, End::Prefix)?;
    let suffix = Affix::from_config(config, End::Suffix)?;
    prefix.apply(resources)?;
    suffix.apply(resources)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kustom_api::protocol::{
        PREFIXES, PREVIOUS_KINDS, PREVIOUS_NAMES, PREVIOUS_NAMESPACES, SUFFIXES,
    };
    use serde_json::json;

    fn name_specs() -> Value {
        json!([{"path": "metadata/name"}])
    }

    fn resources() -> Vec<Value> {
        vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "prod"}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}}),
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "foos.example.com"}}),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}),
            json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.x"}}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "cr"}}),
        ]
    }

    #[test]
    fn prefix_records_rename_and_skips_special_kinds() {
        let mut res = resources();
        let config = json!({"apiVersion": "builtin", "kind": "PrefixTransformer", "prefix": "p-", "fieldSpecs": name_specs()});
        transform_prefix(&config, &mut res, &Ctx::for_tests()).unwrap();
        let names: Vec<&str> = res.iter().map(resource::name).collect();
        assert_eq!(
            names,
            ["p-web", "p-svc", "foos.example.com", "ns", "v1.x", "p-cr"]
        );
        let dep = &res[0];
        assert_eq!(resource::annotation(dep, PREFIXES), Some("p-"));
        assert_eq!(resource::annotation(dep, PREVIOUS_NAMES), Some("web"));
        assert_eq!(resource::annotation(dep, PREVIOUS_NAMESPACES), Some("prod"));
        assert_eq!(
            resource::annotation(dep, PREVIOUS_KINDS),
            Some("Deployment")
        );
        // An unset namespace is recorded as kustomize's effective one.
        assert_eq!(
            resource::annotation(&res[1], PREVIOUS_NAMESPACES),
            Some("default")
        );
        // Skipped kinds carry no bookkeeping.
        assert!(res[2]["metadata"].get("annotations").is_none());
    }

    #[test]
    fn suffix_after_prefix_keeps_lists() {
        let mut res = resources();
        let config = json!({"prefix": "a-", "suffix": "-z", "fieldSpecs": name_specs()});
        transform_prefix_suffix(&config, &mut res, &Ctx::for_tests()).unwrap();
        let dep = &res[0];
        assert_eq!(resource::name(dep), "a-web-z");
        assert_eq!(resource::annotation(dep, PREFIXES), Some("a-"));
        assert_eq!(resource::annotation(dep, SUFFIXES), Some("-z"));
        assert_eq!(resource::annotation(dep, PREVIOUS_NAMES), Some("web,a-web"));
        assert_eq!(
            resource::annotation(dep, PREVIOUS_NAMESPACES),
            Some("prod,prod")
        );
        // A second prefix is appended to the list.
        let again = json!({"prefix": "b-", "fieldSpecs": name_specs()});
        transform_prefix(&again, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(resource::annotation(&res[0], PREFIXES), Some("a-,b-"));
        assert_eq!(resource::name(&res[0]), "b-a-web-z");
    }

    #[test]
    fn empty_prefix_records_nothing() {
        let mut res = resources();
        let config = json!({"prefix": "", "fieldSpecs": name_specs()});
        transform_prefix(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(resource::name(&res[0]), "web");
        assert!(res[0]["metadata"].get("annotations").is_none());
    }

    #[test]
    fn field_specs_are_required() {
        let mut res = resources();
        let err =
            transform_prefix(&json!({"prefix": "p-"}), &mut res, &Ctx::for_tests()).unwrap_err();
        assert!(err.message.contains("fieldSpecs is not expected to be nil"));
        // An empty list is accepted and does nothing.
        transform_prefix(
            &json!({"prefix": "p-", "fieldSpecs": []}),
            &mut res,
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(resource::name(&res[0]), "web");
    }

    #[test]
    fn other_paths_kinds_and_creation() {
        let mut res = vec![json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"template": {"spec": {"containers": [{"name": "a"}, {"name": "b"}]}}}
        })];
        let config = json!({"prefix": "x-", "fieldSpecs": [
            {"path": "spec/template/spec/containers/name", "kind": "Deployment"},
            {"path": "spec/serviceName", "kind": "Deployment", "create": true},
            {"path": "metadata/name", "kind": "Service"},
        ]});
        transform_prefix(&config, &mut res, &Ctx::for_tests()).unwrap();
        let obj = &res[0];
        assert_eq!(
            obj["spec"]["template"]["spec"]["containers"][1]["name"],
            "x-b"
        );
        assert_eq!(obj["spec"]["serviceName"], "x-");
        // No metadata/name spec applied: name and bookkeeping untouched.
        assert_eq!(resource::name(obj), "web");
        assert!(obj["metadata"].get("annotations").is_none());
    }

    #[test]
    fn original_kind_selects() {
        // A resource whose kind was changed from Namespace keeps being skipped.
        let mut res = vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
                "name": "x",
                "annotations": {PREVIOUS_NAMES: "x", PREVIOUS_NAMESPACES: "_non_namespaceable_", PREVIOUS_KINDS: "Namespace"}
            }}),
        ];
        transform_prefix(
            &json!({"prefix": "p-", "fieldSpecs": name_specs()}),
            &mut res,
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(resource::name(&res[0]), "x");
    }

    #[test]
    fn non_scalar_name_is_an_error() {
        let mut res =
            vec![json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": {"a": 1}}})];
        let err = transform_prefix(
            &json!({"prefix": "p-", "fieldSpecs": name_specs()}),
            &mut res,
            &Ctx::for_tests(),
        )
        .unwrap_err();
        assert!(err.message.contains("expected ScalarNode"), "{err}");
    }

    #[test]
    fn results_are_typed_like_plain_yaml() {
        let mut res = vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 23}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "45"}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}),
        ];
        transform_prefix(
            &json!({"prefix": "1", "fieldSpecs": name_specs()}),
            &mut res,
            &Ctx::for_tests(),
        )
        .unwrap();
        // A plain number stays plain and is read back as a number ...
        assert_eq!(res[0]["metadata"]["name"], json!(123));
        // ... a string that only quoting kept a string stays one.
        assert_eq!(res[1]["metadata"]["name"], json!("145"));
        assert_eq!(res[2]["metadata"]["name"], json!("1p"));
        // The suffix reads the number's text.
        transform_suffix(
            &json!({"suffix": "-s", "fieldSpecs": name_specs()}),
            &mut res,
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(res[0]["metadata"]["name"], json!("123-s"));
    }

    #[test]
    fn numeric_prefix_is_text() {
        let mut res = resources();
        transform_prefix(
            &json!({"prefix": 12, "fieldSpecs": name_specs()}),
            &mut res,
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(resource::name(&res[1]), "12svc");
    }
}
