//! What a reviewer looks at first: the images a change bumps and the
//! changes that are risky to apply (immutable fields, bindings, removals
//! of data-holding or cluster-wide objects, workloads scaled to zero).

use super::report::{Change, ImageChange, Risk};
use kustom_api::Value;

/// The workload kinds whose `spec.selector` is immutable.
const SELECTOR_IMMUTABLE: &[&str] = &["Deployment", "StatefulSet", "DaemonSet"];

/// Kinds whose removal deletes data or much else with them.
const REMOVAL_RISK: &[(&str, &str)] = &[
    (
        "CustomResourceDefinition",
        "a CustomResourceDefinition removed (its custom resources are deleted with it)",
    ),
    (
        "Namespace",
        "a Namespace removed (everything in it is deleted)",
    ),
    (
        "PersistentVolumeClaim",
        "a PersistentVolumeClaim removed (its volume may be deleted)",
    ),
];

/// Images of containers changed between `base` and `head` (one resource),
/// containers matched by their list and name.
pub fn images(base: &Value, head: &Value) -> Vec<ImageChange> {
    let (mut b, mut h) = (Vec::new(), Vec::new());
    containers(base, "", &mut b);
    containers(head, "", &mut h);
    let mut out: Vec<ImageChange> = h
        .iter()
        .filter_map(|(at, new)| {
            let (_, old) = b.iter().find(|(x, _)| x == at)?;
            (old != new).then(|| ImageChange {
                old: old.clone(),
                new: new.clone(),
            })
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Push (list path + container name, image) of every container below `v`.
fn containers(v: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                let here = format!("{at}/{k}");
                let is_list = matches!(
                    k.as_str(),
                    "containers" | "initContainers" | "ephemeralContainers"
                );
                match (is_list, c.as_array()) {
                    (true, Some(list)) => {
                        for e in list {
                            let s = |f: &str| e.get(f).and_then(Value::as_str);
                            if let (Some(name), Some(image)) = (s("name"), s("image")) {
                                out.push((format!("{here}/{name}"), image.to_string()));
                            }
                        }
                    }
                    _ => containers(c, &here, out),
                }
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                containers(c, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The risk flags of one resource's change (`label` names it).
pub fn risks(change: Change, base: Option<&Value>, head: Option<&Value>, label: &str) -> Vec<Risk> {
    let mut out = Vec::new();
    let mut flag = |f: String| {
        out.push(Risk {
            resource: label.to_string(),
            flag: f,
        })
    };
    fn kind_of(v: Option<&Value>) -> &str {
        v.and_then(|v| v.get("kind"))
            .and_then(Value::as_str)
            .unwrap_or("")
    }
    let group_of = |v: Option<&Value>| {
        let api = v
            .and_then(|v| v.get("apiVersion"))
            .and_then(Value::as_str)
            .unwrap_or("");
        api.rsplit_once('/').map_or("", |(g, _)| g).to_string()
    };
    if change == Change::Removed {
        let kind = kind_of(base);
        if let Some((_, why)) = REMOVAL_RISK.iter().find(|(k, _)| *k == kind) {
            flag(why.to_string());
        }
        return out;
    }
    let (Some(b), Some(h)) = (base, head) else {
        return out;
    };
    let kind = kind_of(head);
    let group = group_of(head);
    let differs = |p: &str| b.pointer(p) != h.pointer(p);
    if group == "apps" && SELECTOR_IMMUTABLE.contains(&kind) && differs("/spec/selector") {
        flag(
            "spec.selector changed: it is immutable, the apply fails (delete and recreate)".into(),
        );
    }
    if group.is_empty() && kind == "Service" && differs("/spec/clusterIP") {
        let set = |v: &Value| v.pointer("/spec/clusterIP").is_some();
        if set(b) || set(h) {
            flag("spec.clusterIP changed: it is immutable, the apply fails".into());
        }
    }
    if group == "batch" && kind == "Job" && differs("/spec/template") {
        flag("spec.template of a Job changed: it is immutable, the apply fails".into());
    }
    if group == "rbac.authorization.k8s.io"
        && matches!(kind, "RoleBinding" | "ClusterRoleBinding")
        && differs("/roleRef")
    {
        flag("roleRef changed: it is immutable, and it changes who may do what".into());
    }
    if group.is_empty() && kind == "PersistentVolumeClaim" && differs("/spec/storageClassName") {
        flag("spec.storageClassName changed: the claim cannot be changed in place".into());
    }
    let replicas = |v: &Value| v.pointer("/spec/replicas").and_then(Value::as_i64);
    if h.pointer("/spec/template").is_some() && replicas(h) == Some(0) && replicas(b) != Some(0) {
        flag("replicas go to 0".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deploy(image: &str, app: &str, replicas: i64) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
               "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}},
                        "template": {"spec": {"initContainers": [{"name": "init", "image": "busybox:1"}],
                                              "containers": [{"name": "web", "image": image}]}}}})
    }

    #[test]
    fn images_are_paired_by_container() {
        let got = images(&deploy("nginx:1.25", "a", 1), &deploy("nginx:1.26", "a", 1));
        assert_eq!(
            got,
            [ImageChange {
                old: "nginx:1.25".into(),
                new: "nginx:1.26".into()
            }]
        );
        assert!(images(&deploy("x", "a", 1), &deploy("x", "b", 1)).is_empty());
    }

    #[test]
    fn risky_changes_are_flagged() {
        let flags = |c, b: Option<&Value>, h: Option<&Value>| -> Vec<String> {
            risks(c, b, h, "r").into_iter().map(|r| r.flag).collect()
        };
        let got = flags(
            Change::Modified,
            Some(&deploy("x", "a", 2)),
            Some(&deploy("x", "b", 0)),
        );
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].starts_with("spec.selector") && got[1] == "replicas go to 0");
        assert!(flags(
            Change::Modified,
            Some(&deploy("x", "a", 2)),
            Some(&deploy("y", "a", 3))
        )
        .is_empty());
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod"}});
        assert!(flags(Change::Removed, Some(&ns), None)[0].contains("Namespace removed"));
        let rb = |role: &str| {
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                                     "roleRef": {"kind": "ClusterRole", "name": role}})
        };
        assert!(
            flags(Change::Modified, Some(&rb("view")), Some(&rb("admin")))[0]
                .starts_with("roleRef")
        );
        let pvc = |sc: &str| json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "spec": {"storageClassName": sc}});
        assert!(flags(Change::Modified, Some(&pvc("a")), Some(&pvc("b")))[0]
            .contains("storageClassName"));
        let svc =
            |ip: &str| json!({"apiVersion": "v1", "kind": "Service", "spec": {"clusterIP": ip}});
        assert!(
            flags(Change::Modified, Some(&svc("None")), Some(&svc("10.0.0.1")))[0]
                .contains("clusterIP")
        );
        let job = |i: &str| json!({"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": {"spec": {"containers": [{"name": "j", "image": i}]}}}});
        assert!(flags(Change::Modified, Some(&job("a")), Some(&job("b")))[0].contains("Job"));
    }
}
