//! `ReplicaCountTransformer` {replica: {name, count}, fieldSpecs}: set the
//! replica count of the resources of that name.
//!
//! A resource matches a field spec when its current name or any earlier one
//! equals `name` with that id's kind selected by the spec, so a replica
//! setting written against a base name still applies after a prefix. No
//! match for any spec is an error, as in kustomize.

use super::prefix_suffix::wrong_kind;
use crate::Ctx;
use kustom_api::fieldspec::{config_field_specs, config_str_field, visit_fields, FieldSpec};
use kustom_api::{resource, Error, ResId, Value};

/// Read `replica.count`: an integer (null or absent is 0).
fn read_count(replica: &Value) -> Result<i64, Error> {
    match replica.get("count") {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => n.as_i64().ok_or_else(|| {
            Error::new(format!(
                "json: cannot unmarshal number {n} into Go struct field Replica.replica.count of type int64"
            ))
        }),
        Some(other) => Err(Error::new(format!(
            "json: cannot unmarshal {other} into Go struct field Replica.replica.count of type int64"
        ))),
    }
}

/// Whether the resource has, or had, `name` (None: any name) under a kind
/// `spec` selects. Only its head is read.
pub(crate) fn matches(obj: &Value, name: Option<&str>, spec: &FieldSpec) -> Result<bool, Error> {
    let mut ids = resource::prev_ids(obj)?;
    ids.push(ResId::of(obj));
    Ok(ids
        .iter()
        .any(|id| name.is_none_or(|n| id.name == n) && spec.applies_to(&id.gvk)))
}

/// A config read: the replica's name and count, and the field specs.
pub(crate) struct Config {
    pub(crate) name: String,
    count: i64,
    pub(crate) specs: Vec<FieldSpec>,
}

/// Read a `ReplicaCountTransformer` config.
pub(crate) fn configure(config: &Value) -> Result<Config, Error> {
    let replica = match config.get("replica") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => return Err(Error::new("replica: expected a mapping")),
    };
    Ok(Config {
        name: config_str_field(&replica, "name")?,
        count: read_count(&replica)?,
        specs: config_field_specs(config, "fieldSpecs")?.unwrap_or_default(),
    })
}

/// `ReplicaCountTransformer`: see the module documentation.
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, _ctx: &Ctx) -> Result<(), Error> {
    let Config { name, count, specs } = configure(config)?;
    let count = Value::from(count);

    let mut found = false;
    for spec in &specs {
        for obj in resources.iter_mut() {
            if !matches(obj, Some(&name), spec)? {
                continue;
            }
            found = true;
            visit_fields(obj, spec, Some(&count), &mut |field| match field {
                Value::Object(_) => Err(wrong_kind("ScalarNode", "MappingNode")),
                Value::Array(_) => Err(wrong_kind("ScalarNode", "SequenceNode")),
                // Whatever the old value's type, the count is an integer.
                _ => {
                    *field = count.clone();
                    Ok(())
                }
            })?;
        }
    }
    if !found {
        let gvks: Vec<String> = specs.iter().map(|s| s.gvk().to_string()).collect();
        return Err(Error::new(format!(
            "resource with name {name} does not match a config with the following GVK [{}]",
            gvks.join(" ")
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kustom_api::protocol::{PREVIOUS_KINDS, PREVIOUS_NAMES, PREVIOUS_NAMESPACES};
    use serde_json::json;

    fn default_specs() -> Value {
        json!([
            {"path": "spec/replicas", "create": true, "kind": "Deployment"},
            {"path": "spec/replicas", "create": true, "kind": "ReplicationController"},
            {"path": "spec/replicas", "create": true, "kind": "ReplicaSet"},
            {"path": "spec/replicas", "create": true, "kind": "StatefulSet"},
        ])
    }

    #[test]
    fn sets_and_creates_by_current_or_earlier_name() {
        let mut res = vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "p-web",
                "annotations": {PREVIOUS_NAMES: "web", PREVIOUS_NAMESPACES: "default", PREVIOUS_KINDS: "Deployment"}},
                "spec": {"replicas": "1"}}),
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "other"}}),
        ];
        let config = json!({"replica": {"name": "web", "count": 5}, "fieldSpecs": default_specs()});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(res[0]["spec"]["replicas"], json!(5));
        assert_eq!(res[1]["spec"]["replicas"], json!(5));
        assert!(res[2].get("spec").is_none());
        assert!(res[3].get("spec").is_none());
    }

    #[test]
    fn zero_count_and_no_match() {
        let mut res = vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": 3}}),
        ];
        let config = json!({"replica": {"name": "web"}, "fieldSpecs": default_specs()});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(res[0]["spec"]["replicas"], json!(0));
        let config =
            json!({"replica": {"name": "nope", "count": 1}, "fieldSpecs": default_specs()});
        let err = transform(&config, &mut res, &Ctx::for_tests()).unwrap_err();
        assert_eq!(
            err.message,
            "resource with name nope does not match a config with the following GVK \
             [Deployment.[noVer].[noGrp] ReplicationController.[noVer].[noGrp] \
             ReplicaSet.[noVer].[noGrp] StatefulSet.[noVer].[noGrp]]"
        );
    }

    #[test]
    fn bad_count_is_an_error() {
        let mut res = vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}),
        ];
        for count in [json!(1.5), json!("3")] {
            let config =
                json!({"replica": {"name": "web", "count": count}, "fieldSpecs": default_specs()});
            assert!(transform(&config, &mut res, &Ctx::for_tests()).is_err());
        }
    }
}
