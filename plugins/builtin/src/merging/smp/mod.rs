//! Strategic merge patch, with the semantics kustomize v5.5.0 gives it
//! (kyaml's `merge2` walker with the "prepend" list direction of its
//! patchstrategicmerge filter), not apimachinery's.
//!
//! - Maps merge field by field; a `null` in the patch deletes the field.
//! - Lists whose schema has a `merge` patch strategy merge element by
//!   element, matched on the schema's merge keys (`name` for containers,
//!   `containerPort`+`protocol` for container ports, ...); elements of the
//!   patch come first, in patch order, followed by the target's elements
//!   the patch did not mention. Lists of scalars with a merge strategy
//!   (finalizers) merge as sets, patch values first.
//! - Every other list (no schema, custom resources, `args`, ...) is replaced.
//! - Directives: `$patch: delete|replace|merge` on a map, as a list element of
//!   its own (applies to the list) or inside a list element (applies to that
//!   element). kustomize ignores `$retainKeys`, `$setElementOrder/…` and
//!   `$deleteFromPrimitiveList/…`: they are merged in as ordinary fields, and
//!   so they are here.
//!
//! kyaml's walker mutates shared YAML nodes; a few of its results follow
//! from that sharing (a `$patch: replace` inside a list element is undone,
//! a patch element without merge key removes every target element that has
//! one, ...). `kubectl kustomize` shows them, so this module reproduces them:
//! the comments at each step say which outcome is being reproduced.

use crate::selecting::target;
use identity::build_annotations;
use kustom_api::schema::Schema;
use kustom_api::{empty_nulls, protocol, resource, Error, Gvk, Map, Value};
use nodes::{is_empty_map, raw_text};
use walker::Merger;

mod directives;
mod elements;
mod identity;
mod nodes;
mod schema;
#[cfg(test)]
mod tests;
mod walker;

pub(crate) use identity::{hide_id, is_build_annotation, restore_annotations, restore_id};
pub use schema::{schema_from_config, PatchSchema};

/// Merge `patch` into `dest`; None when the patch deletes the whole object
/// (`$patch: delete` at the top) or leaves nothing of it.
pub fn merge(dest: Value, patch: Value, schema: &Schema) -> Result<Option<Value>, Error> {
    let merger = Merger { schema };
    let merged = merger.walk(Some(dest), Some(patch), None)?;
    Ok(merged.into_value().filter(|v| !is_empty_map(v)))
}

/// Apply a strategic merge patch to one resource the way kustomize's
/// `Resource.ApplySmPatch` does: the patch cannot rename the resource, change
/// its kind (unless the patch carries the allowNameChange/allowKindChange
/// build annotation, in which case the old identity is recorded) or move it
/// to another namespace. Build-state annotations (`config.k8s.io/id`,
/// `internal.config.kubernetes.io/*`) survive whatever the patch does to
/// `metadata.annotations`. Returns false when the patch deleted the resource.
/// On error `res` is left null: the patch fails the whole call, and copying
/// every resource before each patch, to give it back, cost more than the
/// merge.
pub fn apply_to_resource(res: &mut Value, patch: Value, schema: &Schema) -> Result<bool, Error> {
    let name = resource::get_at(res, &["metadata", "name"]).cloned();
    let namespace = resource::get_at(res, &["metadata", "namespace"]).cloned();
    let kind = res.get("kind").cloned();
    let allow_name = resource::annotation(&patch, protocol::ALLOW_NAME_CHANGE) == Some("enabled");
    let allow_kind = resource::annotation(&patch, protocol::ALLOW_KIND_CHANGE) == Some("enabled");
    if allow_name || allow_kind {
        target::store_previous_id(res);
    }
    let planted = empty_nulls::plant(res);
    let id = hide_id(res);
    let kept = build_annotations(res);
    *res = match merge(std::mem::take(res), patch, schema)? {
        Some(v) => v,
        None => return Ok(false),
    };
    restore_annotations(res, kept);
    restore_id(res, id);
    if planted {
        empty_nulls::restore(res);
    }
    if !allow_kind {
        resource::map_at_mut(res, &[]).insert(
            "kind".into(),
            kind.unwrap_or_else(|| Value::String(String::new())),
        );
    }
    if !allow_name {
        resource::map_at_mut(res, &["metadata"]).insert(
            "name".into(),
            name.unwrap_or_else(|| Value::String(String::new())),
        );
    }
    // The namespace always comes back; kustomize drops an empty one.
    match namespace {
        Some(ns) if !ns.is_null() && ns.as_str() != Some("") => {
            resource::map_at_mut(res, &["metadata"]).insert("namespace".into(), ns);
        }
        _ => {
            if let Some(meta) = res.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("namespace");
            }
        }
    }
    Ok(true)
}

/// Prepare a patch for a target found by selector or id, as kustomize's
/// ResMap.ApplySmPatch does with its copy of the patch: labels and
/// annotations become string maps (an empty or null map disappears, so it
/// deletes nothing), and the patch takes the target's apiVersion.
pub fn prepare_for_target(patch: &Value, target: &Value) -> Value {
    let mut p = patch.clone();
    for field in ["labels", "annotations"] {
        let strings: Map<String, Value> = match resource::get_at(&p, &["metadata", field]) {
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(raw_text(v))))
                .collect(),
            _ => Map::new(),
        };
        let meta = resource::map_at_mut(&mut p, &["metadata"]);
        meta.remove(field);
        if !strings.is_empty() {
            meta.insert(field.into(), Value::Object(strings));
        }
    }
    let gvk = Gvk::from_api_version(resource::api_version(target), resource::kind(target));
    resource::map_at_mut(&mut p, &[]).insert("apiVersion".into(), Value::String(gvk.api_version()));
    p
}
