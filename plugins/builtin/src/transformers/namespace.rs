//! `NamespaceTransformer` {metadata: {namespace}, fieldSpecs, unsetOnly,
//! setRoleBindingSubjects}: move every namespaced resource into one
//! namespace.
//!
//! Besides the configured field specs, which kustomize's defaults point at
//! `Namespace` names, APIService services and CRD conversion webhooks:
//! - `metadata/namespace` is set on every kind not known to be
//!   cluster-scoped (and never through a field spec);
//! - `metadata/name` specs only apply to `apiVersion: v1` objects;
//! - the subjects of RoleBindings and ClusterRoleBindings get the namespace
//!   by rule (`setRoleBindingSubjects`): by default only subjects named
//!   `default`, or every ServiceAccount subject, or none.
//!
//! Every resource's id before the change is recorded in the previous-id
//! annotations, and two resources ending up with the same id is an error.
//! In the v5.8 mode a resource marked as made by helm
//! ([`kustom_api::protocol::HELM_GENERATED`]) is left as it is.

use super::prefix_suffix::wrong_kind;
use crate::Ctx;
use kustom_api::fieldspec::{
    config_field_specs, config_str_field, read_bool, visit_fields, FieldSpec,
};
use kustom_api::{protocol, resource, Error, Gvk, ResId, Value};
use std::collections::HashMap;

/// Which RoleBinding/ClusterRoleBinding subjects get the namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SubjectMode {
    /// Subjects named `default` (kustomize's default).
    DefaultOnly,
    /// Subjects of kind ServiceAccount.
    AllServiceAccounts,
    /// None.
    NoSubjects,
}

impl SubjectMode {
    fn parse(text: &str) -> Result<SubjectMode, Error> {
        match text {
            "" | "defaultOnly" => Ok(SubjectMode::DefaultOnly),
            "allServiceAccounts" => Ok(SubjectMode::AllServiceAccounts),
            "none" => Ok(SubjectMode::NoSubjects),
            other => Err(Error::new(format!(
                "invalid value {other:?} for setRoleBindingSubjects: must be one of \"defaultOnly\", \"none\" or \"allServiceAccounts\""
            ))),
        }
    }
}

/// The transformer's settings.
struct Settings {
    namespace: String,
    field_specs: Vec<FieldSpec>,
    unset_only: bool,
    subjects: SubjectMode,
}

impl Settings {
    fn from_config(config: &Value) -> Result<Settings, Error> {
        let namespace = match config.get("metadata") {
            None | Some(Value::Null) => String::new(),
            Some(meta @ Value::Object(_)) => config_str_field(meta, "namespace")?,
            Some(_) => return Err(Error::new("metadata: expected a mapping")),
        };
        Ok(Settings {
            namespace,
            field_specs: config_field_specs(config, "fieldSpecs")?.unwrap_or_default(),
            unset_only: read_bool(config.get("unsetOnly").unwrap_or(&Value::Null), "unsetOnly")?,
            subjects: SubjectMode::parse(&config_str_field(config, "setRoleBindingSubjects")?)?,
        })
    }

    /// Put the namespace into one scalar field, or leave a set one alone
    /// with `unsetOnly`.
    fn set(&self, field: &mut Value) -> Result<(), Error> {
        match field {
            Value::Object(_) => return Err(wrong_kind("ScalarNode", "MappingNode")),
            Value::Array(_) => return Err(wrong_kind("ScalarNode", "SequenceNode")),
            Value::String(s) if self.unset_only && !s.is_empty() => return Ok(()),
            Value::Number(_) | Value::Bool(_) if self.unset_only => return Ok(()),
            _ => {}
        }
        *field = Value::String(self.namespace.clone());
        Ok(())
    }

    /// Apply to one resource.
    fn apply(&self, obj: &mut Value) -> Result<(), Error> {
        let api_version = resource::api_version(obj).to_string();
        let gvk = Gvk::from_api_version(&api_version, resource::kind(obj));
        let blank = Value::String(String::new());

        // metadata/namespace is decided by scope, not by field specs.
        if !gvk.is_cluster_scoped() {
            let spec = FieldSpec {
                path: "metadata/namespace".into(),
                create: true,
                ..Default::default()
            };
            visit_fields(obj, &spec, Some(&blank), &mut |f| self.set(f))?;
        }

        let is_binding = is_role_binding(&gvk.kind);
        if is_binding {
            self.set_subjects(obj)?;
        }

        for spec in &self.field_specs {
            let skip = spec.path == "metadata/namespace"
                // Only core v1 objects (Namespaces) have a namespace as name.
                || (spec.path == "metadata/name" && api_version != "v1")
                // Binding subjects follow setRoleBindingSubjects instead.
                || (is_binding && is_role_binding(&spec.kind) && spec.path == "subjects/namespace");
            if skip {
                continue;
            }
            visit_fields(obj, spec, Some(&blank), &mut |f| self.set(f)).map_err(|e| {
                if e.message.contains("wrong node kind") {
                    e.context("namespace field specs must target scalar nodes")
                } else {
                    e.context("namespace transformation failed")
                }
            })?;
        }
        Ok(())
    }

    /// Set the namespace of the chosen subjects of a (Cluster)RoleBinding.
    fn set_subjects(&self, obj: &mut Value) -> Result<(), Error> {
        if self.subjects == SubjectMode::NoSubjects {
            return Ok(());
        }
        let wrap = |e: Error| e.context("setting namespace on (cluster)role binding subjects");
        let subjects = match obj.get_mut("subjects") {
            None | Some(Value::Null) => return Ok(()),
            Some(Value::Array(items)) => items,
            Some(Value::Object(_)) => return Err(wrap(wrong_kind("SequenceNode", "MappingNode"))),
            Some(_) => return Err(wrap(wrong_kind("SequenceNode", "ScalarNode"))),
        };
        let (field, wanted) = match self.subjects {
            SubjectMode::AllServiceAccounts => ("kind", "ServiceAccount"),
            _ => ("name", "default"),
        };
        for subject in subjects.iter_mut() {
            let map = match subject {
                Value::Null => continue,
                Value::Object(map) => map,
                Value::Array(_) => return Err(wrap(wrong_kind("MappingNode", "SequenceNode"))),
                _ => return Err(wrap(wrong_kind("MappingNode", "ScalarNode"))),
            };
            if map.get(field).and_then(Value::as_str) != Some(wanted) {
                continue;
            }
            let ns = map
                .entry("namespace")
                .or_insert_with(|| Value::String(String::new()));
            self.set(ns).map_err(wrap)?;
        }
        Ok(())
    }
}

fn is_role_binding(kind: &str) -> bool {
    kind == "RoleBinding" || kind == "ClusterRoleBinding"
}

/// kustomize skips objects that are null or empty.
fn is_nil_or_empty(obj: &Value) -> bool {
    match obj {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

/// The parts of an id kustomize's `ResId.Equals` compares.
type IdKey = (Gvk, String, String);

fn id_key(obj: &Value) -> IdKey {
    let id = ResId::of(obj);
    let ns = id.effective_namespace().to_string();
    (id.gvk, id.name, ns)
}

/// The field specs a config applies besides `metadata/namespace` and the
/// binding subjects (see [`crate::reach`]); None when it changes nothing.
pub(crate) fn reach_specs(config: &Value) -> Result<Option<Vec<FieldSpec>>, Error> {
    let settings = Settings::from_config(config)?;
    Ok((!settings.namespace.is_empty()).then_some(settings.field_specs))
}

/// `NamespaceTransformer`: see the module documentation.
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, ctx: &Ctx) -> Result<(), Error> {
    let settings = Settings::from_config(config)?;
    if settings.namespace.is_empty() {
        return Ok(());
    }
    // How many resources currently have each id, kept up to date as the
    // resources change one by one; kustomize checks for a clash after each.
    let mut counts: HashMap<IdKey, usize> = HashMap::new();
    for obj in resources.iter() {
        *counts.entry(id_key(obj)).or_default() += 1;
    }
    for i in 0..resources.len() {
        if is_nil_or_empty(&resources[i]) {
            continue;
        }
        // kustomize v5.8.0 (#5940): helm sets the namespace of what it made
        // (and leaves it unset where a chart does not template one, #6058).
        if ctx.version.is_5_8()
            && resource::annotation(&resources[i], protocol::HELM_GENERATED) == Some("true")
        {
            continue;
        }
        let before = id_key(&resources[i]);
        resource::store_previous_id(&mut resources[i]);
        settings.apply(&mut resources[i])?;
        let after = id_key(&resources[i]);
        if after != before {
            if let Some(n) = counts.get_mut(&before) {
                *n = n.saturating_sub(1);
            }
            *counts.entry(after.clone()).or_default() += 1;
        }
        if counts.get(&after).copied().unwrap_or(0) != 1 {
            let clashing: Vec<String> = resources
                .iter()
                .filter(|r| id_key(r) == after)
                .map(|r| ResId::of(r).to_string())
                .collect();
            return Err(Error::new(format!(
                "namespace transformation produces ID conflict: [{}]",
                clashing.join(" ")
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kustom_api::protocol::{PREVIOUS_KINDS, PREVIOUS_NAMES, PREVIOUS_NAMESPACES};
    use serde_json::json;

    /// kustomize's default namespace field specs.
    fn default_specs() -> Value {
        json!([
            {"path": "metadata/name", "kind": "Namespace", "create": true},
            {"path": "spec/service/namespace", "group": "apiregistration.k8s.io", "kind": "APIService", "create": true},
            {"path": "spec/conversion/webhook/clientConfig/service/namespace", "group": "apiextensions.k8s.io", "kind": "CustomResourceDefinition"},
        ])
    }

    fn config(extra: Value) -> Value {
        let mut c = json!({"apiVersion": "builtin", "kind": "NamespaceTransformer",
            "metadata": {"name": "ns", "namespace": "ns1"}, "fieldSpecs": default_specs()});
        if let (Some(c), Value::Object(extra)) = (c.as_object_mut(), extra) {
            c.extend(extra);
        }
        c
    }

    fn binding(kind: &str) -> Value {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": {"name": "b"},
        "subjects": [
            {"kind": "ServiceAccount", "name": "default"},
            {"kind": "ServiceAccount", "name": "other", "namespace": "foo"},
            {"kind": "User", "name": "default"},
        ]})
    }

    #[test]
    fn namespaced_cluster_scoped_and_special_kinds() {
        let mut res = vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "old"}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "cr"}}),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "whatever"}}),
            json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "a"}}),
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "c"}}),
            json!({"apiVersion": "example.com/v1", "kind": "Namespace", "metadata": {"name": "not-core"}}),
        ];
        transform(&config(json!({})), &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(resource::namespace(&res[0]), "ns1");
        assert_eq!(resource::namespace(&res[1]), "ns1");
        // Cluster-scoped kinds get no metadata.namespace.
        assert!(res[2]["metadata"].get("namespace").is_none());
        assert!(res[3]["metadata"].get("namespace").is_none());
        // A v1 Namespace takes the namespace as its name; others do not.
        assert_eq!(resource::name(&res[3]), "ns1");
        assert_eq!(res[4]["spec"]["service"]["namespace"], "ns1");
        assert!(res[4]["metadata"].get("namespace").is_none());
        // No conversion webhook: nothing created in the CRD.
        assert!(res[5].get("spec").is_none());
        assert_eq!(resource::name(&res[6]), "not-core");
        // Every id before the change is recorded.
        assert_eq!(
            resource::annotation(&res[0], PREVIOUS_NAMESPACES),
            Some("old")
        );
        assert_eq!(
            resource::annotation(&res[1], PREVIOUS_NAMESPACES),
            Some("default")
        );
        assert_eq!(
            resource::annotation(&res[2], PREVIOUS_NAMESPACES),
            Some("_non_namespaceable_")
        );
        assert_eq!(
            resource::annotation(&res[3], PREVIOUS_NAMES),
            Some("whatever")
        );
        assert_eq!(
            resource::annotation(&res[3], PREVIOUS_KINDS),
            Some("Namespace")
        );
    }

    #[test]
    fn role_binding_subject_modes() {
        let subject_ns = |obj: &Value| -> Vec<Option<String>> {
            obj["subjects"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.get("namespace").and_then(Value::as_str).map(String::from))
                .collect()
        };
        let mut res = vec![binding("ClusterRoleBinding"), binding("RoleBinding")];
        transform(&config(json!({})), &mut res, &Ctx::for_tests()).unwrap();
        let by_default = vec![
            Some("ns1".to_string()),
            Some("foo".to_string()),
            Some("ns1".to_string()),
        ];
        assert_eq!(subject_ns(&res[0]), by_default);
        assert_eq!(subject_ns(&res[1]), by_default);
        assert_eq!(resource::namespace(&res[1]), "ns1");

        let mut res = vec![binding("RoleBinding")];
        transform(
            &config(json!({"setRoleBindingSubjects": "allServiceAccounts"})),
            &mut res,
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(
            subject_ns(&res[0]),
            vec![Some("ns1".into()), Some("ns1".into()), None]
        );

        let mut res = vec![binding("RoleBinding")];
        transform(
            &config(json!({"setRoleBindingSubjects": "none"})),
            &mut res,
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(subject_ns(&res[0]), vec![None, Some("foo".into()), None]);

        let mut res = vec![binding("RoleBinding")];
        let err = transform(
            &config(json!({"setRoleBindingSubjects": "bogus"})),
            &mut res,
            &Ctx::for_tests(),
        )
        .unwrap_err();
        assert!(err.message.contains("invalid value \"bogus\""));
    }

    #[test]
    fn binding_subject_specs_are_replaced_by_the_rule() {
        // A user spec for RoleBinding subjects is ignored on bindings.
        let mut res = vec![binding("RoleBinding")];
        let mut c = config(json!({}));
        c["fieldSpecs"] =
            json!([{"path": "subjects/namespace", "kind": "RoleBinding", "create": true}]);
        transform(&c, &mut res, &Ctx::for_tests()).unwrap();
        // Applied, the spec would have overwritten this subject's namespace.
        assert_eq!(res[0]["subjects"][1]["namespace"], "foo");
        // A kind-less spec is not replaced and applies to every subject.
        let mut res = vec![binding("RoleBinding")];
        c["fieldSpecs"] = json!([{"path": "subjects/namespace", "create": true}]);
        transform(&c, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(res[0]["subjects"][1]["namespace"], "ns1");
    }

    #[test]
    fn unset_only() {
        let mut res = vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "keep"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": ""}}),
            binding("RoleBinding"),
        ];
        transform(
            &config(json!({"unsetOnly": true})),
            &mut res,
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(resource::namespace(&res[0]), "keep");
        assert_eq!(resource::namespace(&res[1]), "ns1");
        assert_eq!(resource::namespace(&res[2]), "ns1");
        assert_eq!(res[3]["subjects"][1]["namespace"], "foo");
        assert_eq!(res[3]["subjects"][0]["namespace"], "ns1");
    }

    #[test]
    fn helm_output_is_left_alone_in_v5_8_only() {
        let helm = || {
            vec![
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a",
                "annotations": {protocol::HELM_GENERATED: "true"}}}),
            ]
        };
        let mut res = helm();
        transform(&config(json!({})), &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(res, helm(), "v5.8 leaves helm output as it is");
        let mut old = Ctx::for_tests();
        old.version = kustom_api::KustomizeVersion::V5_5;
        transform(&config(json!({})), &mut res, &old).unwrap();
        assert_eq!(resource::namespace(&res[0]), "ns1");
    }

    #[test]
    fn empty_namespace_does_nothing() {
        let mut res =
            vec![json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}})];
        let c = json!({"metadata": {"name": "x"}, "fieldSpecs": default_specs()});
        transform(&c, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(
            res[0],
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}})
        );
    }

    #[test]
    fn id_conflict_is_an_error() {
        let mut res = vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "x"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "y"}}),
        ];
        let err = transform(&config(json!({})), &mut res, &Ctx::for_tests()).unwrap_err();
        assert!(err.message.contains("ID conflict"), "{err}");
        // "" and "default" are the same namespace.
        let mut res = vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "default"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}),
        ];
        let mut c = config(json!({}));
        c["metadata"]["namespace"] = json!("default");
        transform(&c, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(resource::namespace(&res[1]), "default");
    }

    #[test]
    fn non_scalar_target_is_an_error() {
        let mut res = vec![
            json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
            "metadata": {"name": "a"}, "spec": {"service": {"namespace": {"x": 1}}}}),
        ];
        let err = transform(&config(json!({})), &mut res, &Ctx::for_tests()).unwrap_err();
        assert!(err.message.contains("must target scalar nodes"), "{err}");
    }
}
