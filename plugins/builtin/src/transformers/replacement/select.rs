//! Which resources a replacement reads from and writes to.
//!
//! A source matches resource ids *exactly* (`ResId.IsSelectedBy`, no
//! regular expressions); targets do too in kustomize v5.5.0, and match as
//! anchored regular expressions from v5.8.0 on ([`IdMatch`]). A resource
//! matches if its current id or any of its previous ids (before name
//! prefixes, suffixes, namespace changes) does. The ids are built without
//! cluster-scope knowledge; in exact matching an empty namespace always
//! stands for "default".

use super::scalar;
use crate::selecting::target::{IdPattern, LabelSelector};
use kustom_api::{err, protocol, resource, Error, Gvk, KustomizeVersion, ResId, Value};

/// The current id of a resource followed by its previous ids, oldest first,
/// as recorded in kustomize's build annotations.
pub(crate) fn ids(obj: &Value) -> Result<Vec<ResId>, Error> {
    let mut ids = vec![ResId::of(obj)];
    let Some(names) = resource::annotation(obj, protocol::PREVIOUS_NAMES) else {
        return Ok(ids);
    };
    let names: Vec<&str> = names.split(',').collect();
    let split = |key| -> Vec<&str> {
        resource::annotation(obj, key)
            .unwrap_or("")
            .split(',')
            .collect()
    };
    let namespaces = split(protocol::PREVIOUS_NAMESPACES);
    let kinds = split(protocol::PREVIOUS_KINDS);
    if names.len() != namespaces.len() || names.len() != kinds.len() {
        return Err(err!(
            "number of previous names, number of previous namespaces, number of previous kinds not equal"
        ));
    }
    let current = &ids[0].gvk;
    let (group, version) = (current.group.clone(), current.version.clone());
    for ((name, namespace), kind) in names.iter().zip(&namespaces).zip(&kinds) {
        ids.push(ResId {
            gvk: Gvk {
                group: group.clone(),
                version: version.clone(),
                kind: kind.to_string(),
            },
            name: name.to_string(),
            namespace: namespace.to_string(),
        });
    }
    Ok(ids)
}

/// kustomize's `ResId.IsSelectedBy`: every non-empty selector field equals
/// the id's; namespaces compare with "" meaning "default".
pub(crate) fn id_selected_by(id: &ResId, selector: &ResId) -> bool {
    let effective = |ns: &str| if ns.is_empty() { "default" } else { ns }.to_string();
    let gvk = &selector.gvk;
    (selector.name.is_empty() || selector.name == id.name)
        && (selector.namespace.is_empty()
            || effective(&selector.namespace) == effective(&id.namespace))
        && (gvk.group.is_empty() || gvk.group == id.gvk.group)
        && (gvk.version.is_empty() || gvk.version == id.gvk.version)
        && (gvk.kind.is_empty() || gvk.kind == id.gvk.kind)
}

/// How a target's `select` or `reject` id picks resource ids.
#[derive(Debug, Clone)]
pub(crate) enum IdMatch {
    /// [`id_selected_by`].
    Exact(ResId),
    /// Anchored regular expressions, fields compared as they are.
    Regex(IdPattern),
}

impl IdMatch {
    /// The matcher of a target id in the release `version`.
    pub(crate) fn target(id: &ResId, version: KustomizeVersion) -> Result<IdMatch, Error> {
        if !version.is_5_8() {
            return Ok(IdMatch::Exact(id.clone()));
        }
        // kustomize #5863 (v5.8.0): target select/reject ids are regular expressions.
        IdPattern::compile(id)
            .map(IdMatch::Regex)
            .map_err(|e| e.context("error creating target selector"))
    }

    /// Whether `id` matches.
    pub(crate) fn matches(&self, id: &ResId) -> bool {
        match self {
            IdMatch::Exact(selector) => id_selected_by(id, selector),
            IdMatch::Regex(pattern) => pattern.matches(id),
        }
    }
}

/// Whether a selector is entirely empty (kustomize skips such rejects).
pub(crate) fn is_empty(id: &ResId) -> bool {
    *id == ResId::default()
}

/// Whether the object's labels (`field` = "labels") or annotations
/// (`field` = "annotations") satisfy a Kubernetes label-selector expression;
/// an empty expression matches everything.
pub(crate) fn matches_expression(obj: &Value, field: &str, expr: &str) -> Result<bool, Error> {
    if expr.is_empty() {
        return Ok(true);
    }
    let selector = LabelSelector::parse(expr)?;
    let pairs: Vec<(String, String)> = resource::get_at(obj, &["metadata", field])
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let text = scalar::tag_and_text(v).map(|(_, t)| t).unwrap_or_default();
                    (k.clone(), text)
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(selector.matches(&pairs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id(kind: &str, name: &str, ns: &str) -> ResId {
        ResId {
            gvk: Gvk {
                group: String::new(),
                version: String::new(),
                kind: kind.into(),
            },
            name: name.into(),
            namespace: ns.into(),
        }
    }

    #[test]
    fn previous_ids_come_from_build_annotations() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "p-app-s", "annotations": {
                protocol::PREVIOUS_NAMES: "app,p-app",
                protocol::PREVIOUS_NAMESPACES: "default,default",
                protocol::PREVIOUS_KINDS: "Deployment,Deployment"}}});
        let ids = ids(&obj).unwrap();
        let names: Vec<_> = ids.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["p-app-s", "app", "p-app"]);
        assert_eq!(ids[1].gvk.group, "apps");
        let sel = id("Deployment", "app", "");
        assert!(ids.iter().any(|i| id_selected_by(i, &sel)));
    }

    #[test]
    fn uneven_previous_id_annotations_are_an_error() {
        let obj = json!({"metadata": {"name": "a", "annotations": {
            protocol::PREVIOUS_NAMES: "x,y", protocol::PREVIOUS_KINDS: "K"}}});
        assert!(ids(&obj).is_err());
    }

    #[test]
    fn selection_is_exact_and_default_namespace_is_empty() {
        let cm = id("ConfigMap", "cm", "");
        assert!(id_selected_by(&cm, &id("ConfigMap", "", "default")));
        assert!(!id_selected_by(&cm, &id("Config.*", "", "")));
        assert!(!id_selected_by(&cm, &id("ConfigMap", "c", "")));
        assert!(!id_selected_by(
            &id("ConfigMap", "cm", "x"),
            &id("", "", "default")
        ));
    }

    #[test]
    fn target_ids_are_regular_expressions_from_v5_8() {
        let cm = id("ConfigMap", "app.conf", "");
        let sel = id("Config.*", "app.conf", "");
        let old = IdMatch::target(&sel, KustomizeVersion::V5_5).unwrap();
        let new = IdMatch::target(&sel, KustomizeVersion::V5_8).unwrap();
        assert!(!old.matches(&cm) && new.matches(&cm));
        // Anchored, `.` is any character, an empty namespace is not "default".
        assert!(new.matches(&id("ConfigMap", "appXconf", "")));
        assert!(!new.matches(&id("ConfigMap", "app.conf.x", "")));
        let default_ns = id("", "", "default");
        assert!(IdMatch::target(&default_ns, KustomizeVersion::V5_5)
            .unwrap()
            .matches(&cm));
        assert!(!IdMatch::target(&default_ns, KustomizeVersion::V5_8)
            .unwrap()
            .matches(&cm));
        assert!(IdMatch::target(&id("(", "", ""), KustomizeVersion::V5_8)
            .unwrap_err()
            .message
            .starts_with("error creating target selector"));
    }

    #[test]
    fn label_selector_expressions() {
        let obj = json!({"metadata": {"labels": {"app": "web", "tier": "1"}}});
        let m = |e: &str| matches_expression(&obj, "labels", e).unwrap();
        assert!(m(""));
        assert!(m("app=web"));
        assert!(m("app==web,tier"));
        assert!(!m("app!=web"));
        assert!(m("app in (db, web)"));
        assert!(!m("app notin (web)"));
        assert!(m("!missing"));
        assert!(!m("missing"));
        assert!(m("missing!=x"));
        assert!(m("tier>0"));
        assert!(!m("tier<1"));
        assert!(matches_expression(&obj, "labels", "app in (web").is_err());
    }
}
