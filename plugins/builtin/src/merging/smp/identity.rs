//! What a patch must not change: the core's id annotation and kustomize's
//! build annotations, set aside before a merge and put back after it.

use kustom_api::{protocol, resource, Value};

/// Take the core's id annotation off a resource (kustomize's resources do
/// not have it, and patches must see them as kustomize's do).
pub(crate) fn hide_id(res: &mut Value) -> Option<Value> {
    resource::remove_annotation(res, protocol::ID_ANNOTATION)
}

/// Put the id annotation back.
pub(crate) fn restore_id(res: &mut Value, id: Option<Value>) {
    if let Some(id) = id {
        resource::map_at_mut(res, &["metadata", "annotations"])
            .insert(protocol::ID_ANNOTATION.to_string(), id);
    }
}

/// Annotations that carry build state, which patches must not lose.
pub(super) fn build_annotations(res: &Value) -> Vec<(String, Value)> {
    match resource::get_at(res, &["metadata", "annotations"]) {
        Some(Value::Object(m)) => m
            .iter()
            .filter(|(k, _)| is_build_annotation(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `key` is an annotation the core or kustomize's build keeps state in.
pub(crate) fn is_build_annotation(key: &str) -> bool {
    key == protocol::ID_ANNOTATION || key.starts_with("internal.config.kubernetes.io/")
}

/// Put build-state annotations back after a patch.
pub(crate) fn restore_annotations(res: &mut Value, kept: Vec<(String, Value)>) {
    if kept.is_empty() {
        return;
    }
    let annos = resource::map_at_mut(res, &["metadata", "annotations"]);
    for (k, v) in kept {
        annos.insert(k, v);
    }
}
