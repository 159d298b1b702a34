//! Resource identity: group/version/kind plus name and namespace, as kustomize's `resid`.

use crate::resource;
use serde_json::Value;
use std::fmt;

/// Group, version and kind of an object.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Gvk {
    /// API group; empty for the core group.
    pub group: String,
    /// API version.
    pub version: String,
    /// Kind.
    pub kind: String,
}

impl Gvk {
    /// Split an `apiVersion` (`apps/v1`, `v1`) and a kind into a Gvk.
    pub fn from_api_version(api_version: &str, kind: &str) -> Gvk {
        // kustomize splits at the first '/'.
        let (group, version) = match api_version.split_once('/') {
            Some((g, v)) => (g.to_string(), v.to_string()),
            None => (String::new(), api_version.to_string()),
        };
        Gvk {
            group,
            version,
            kind: kind.to_string(),
        }
    }

    /// The `apiVersion` string for this Gvk.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// Whether `self` (a selector) matches `other`: empty fields match anything.
    pub fn selects(&self, other: &Gvk) -> bool {
        (self.group.is_empty() || self.group == other.group)
            && (self.version.is_empty() || self.version == other.version)
            && (self.kind.is_empty() || self.kind == other.kind)
    }

    /// Whether objects of this kind are known to live outside namespaces.
    pub fn is_cluster_scoped(&self) -> bool {
        resource::is_cluster_scoped(&self.api_version(), &self.kind)
    }
}

impl fmt::Display for Gvk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // kustomize prints `[noGrp]` for the core group.
        let g = if self.group.is_empty() {
            "[noGrp]"
        } else {
            &self.group
        };
        let v = if self.version.is_empty() {
            "[noVer]"
        } else {
            &self.version
        };
        let k = if self.kind.is_empty() {
            "[noKind]"
        } else {
            &self.kind
        };
        write!(f, "{k}.{v}.{g}")
    }
}

/// The identity of one resource.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct ResId {
    /// Group, version, kind.
    pub gvk: Gvk,
    /// metadata.name.
    pub name: String,
    /// metadata.namespace; empty when unset.
    pub namespace: String,
}

impl ResId {
    /// The current id of an object.
    pub fn of(obj: &Value) -> ResId {
        ResId {
            gvk: Gvk::from_api_version(
                resource::str_at(obj, &["apiVersion"]).unwrap_or(""),
                resource::str_at(obj, &["kind"]).unwrap_or(""),
            ),
            name: resource::str_at(obj, &["metadata", "name"])
                .unwrap_or("")
                .to_string(),
            namespace: resource::str_at(obj, &["metadata", "namespace"])
                .unwrap_or("")
                .to_string(),
        }
    }

    /// kustomize's EffectiveNamespace: a marker for cluster-scoped kinds,
    /// "default" for "" and "default", else the namespace.
    pub fn effective_namespace(&self) -> &str {
        if self.gvk.is_cluster_scoped() {
            "_non_namespaceable_"
        } else if self.namespace.is_empty() || self.namespace == "default" {
            "default"
        } else {
            &self.namespace
        }
    }

    /// kustomize's id equality: same gvk and name, same effective namespace.
    pub fn equals(&self, other: &ResId) -> bool {
        self.gvk == other.gvk
            && self.name == other.name
            && self.effective_namespace() == other.effective_namespace()
    }
}

impl fmt::Display for ResId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // kustomize's ResId.String(): `Kind.version.group/name.namespace`.
        let ns = if self.namespace.is_empty() {
            "[noNs]"
        } else {
            &self.namespace
        };
        let name = if self.name.is_empty() {
            "[noName]"
        } else {
            &self.name
        };
        write!(f, "{}/{name}.{ns}", self.gvk)
    }
}

/// The ids a resource had before its renames, oldest first, read from the
/// `previousNames` / `previousNamespaces` / `previousKinds` build annotations.
pub fn previous_ids(obj: &Value) -> Vec<ResId> {
    previous_ids_from(resource::api_version(obj), |key| {
        resource::annotation(obj, key)
    })
}

/// [`previous_ids`] of an object with apiVersion `api_version`, whose
/// annotations `annotation` looks up.
pub fn previous_ids_from<'a>(
    api_version: &str,
    annotation: impl Fn(&str) -> Option<&'a str>,
) -> Vec<ResId> {
    use crate::protocol::{PREVIOUS_KINDS, PREVIOUS_NAMES, PREVIOUS_NAMESPACES};
    let Some(names) = annotation(PREVIOUS_NAMES) else {
        return Vec::new();
    };
    let namespaces: Vec<&str> = annotation(PREVIOUS_NAMESPACES)
        .unwrap_or("")
        .split(',')
        .collect();
    let kinds: Vec<&str> = annotation(PREVIOUS_KINDS)
        .unwrap_or("")
        .split(',')
        .collect();
    let current = Gvk::from_api_version(api_version, "");
    names
        .split(',')
        .enumerate()
        .map(|(i, name)| ResId {
            gvk: Gvk {
                kind: kinds.get(i).copied().unwrap_or("").to_string(),
                ..current.clone()
            },
            name: name.to_string(),
            namespace: namespaces.get(i).copied().unwrap_or("").to_string(),
        })
        .collect()
}

/// The id a resource had when it entered the build (its oldest previous id, else its current id).
pub fn original_id(obj: &Value) -> ResId {
    previous_ids(obj)
        .into_iter()
        .next()
        .unwrap_or_else(|| ResId::of(obj))
}

/// kustomize's legacy resource order: these kinds first, in this order…
pub const KIND_ORDER_FIRST: &[&str] = &[
    "Namespace",
    "ResourceQuota",
    "StorageClass",
    "CustomResourceDefinition",
    "ServiceAccount",
    "PodSecurityPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "Service",
    "LimitRange",
    "PriorityClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
];

/// …and these last.
pub const KIND_ORDER_LAST: &[&str] = &[
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// A kind's rank in an order given as kinds to put first and last
/// (kustomize's `typeOrders`): negative for `first`, positive for `last`,
/// 0 for every other kind.
pub fn kind_rank<S: AsRef<str>>(kind: &str, first: &[S], last: &[S]) -> i64 {
    if let Some(i) = first.iter().position(|k| k.as_ref() == kind) {
        return i as i64 - first.len() as i64;
    }
    if let Some(i) = last.iter().position(|k| k.as_ref() == kind) {
        return i as i64 + 1;
    }
    0
}

/// kustomize's stable sort text of a gvk: `group_version_kind`, empty parts
/// spelled `~G`, `~V`, `~K` (so they sort after named ones).
pub fn gvk_sort_key(g: &Gvk) -> String {
    let or = |s: &str, empty: &'static str| {
        if s.is_empty() {
            empty.to_string()
        } else {
            s.to_string()
        }
    };
    format!(
        "{}_{}_{}",
        or(&g.group, "~G"),
        or(&g.version, "~V"),
        or(&g.kind, "~K")
    )
}

/// kustomize's gvk order: by rank in the legacy kind order, then by
/// [`gvk_sort_key`].
pub fn compare_gvk(a: &Gvk, b: &Gvk) -> std::cmp::Ordering {
    compare_gvk_parts(
        [&a.group, &a.version, &a.kind],
        [&b.group, &b.version, &b.kind],
    )
}

/// [`compare_gvk`] of `[group, version, kind]`, without building the sort
/// texts.
pub fn compare_gvk_parts<'a>(a: [&'a str; 3], b: [&'a str; 3]) -> std::cmp::Ordering {
    let rank = |k: &str| kind_rank(k, KIND_ORDER_FIRST, KIND_ORDER_LAST);
    // The bytes of `gvk_sort_key`'s text.
    fn or<'a>(empty: &'static str, part: &'a str) -> &'a str {
        if part.is_empty() {
            empty
        } else {
            part
        }
    }
    let text = |[g, v, k]: [&'a str; 3]| {
        or("~G", g)
            .bytes()
            .chain(*b"_")
            .chain(or("~V", v).bytes())
            .chain(*b"_")
            .chain(or("~K", k).bytes())
    };
    rank(a[2])
        .cmp(&rank(b[2]))
        .then_with(|| text(a).cmp(text(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The comparison without sort texts orders as the sort texts do.
    #[test]
    fn comparing_parts_agrees_with_the_sort_text() {
        let parts = [
            ["", "", ""],
            ["", "v1", "Service"],
            ["", "v1", "Namespace"],
            ["apps", "v1", "Deployment"],
            ["apps", "", "Deployment"],
            ["a_b", "v1", "X"],
            ["a", "b_v1", "X"],
            ["~", "v1", "X"],
            ["}", "v1", "X"],
            ["rbac.authorization.k8s.io", "v1", "ClusterRole"],
            ["", "", "ValidatingWebhookConfiguration"],
        ];
        let gvk = |[g, v, k]: [&str; 3]| Gvk {
            group: g.into(),
            version: v.into(),
            kind: k.into(),
        };
        for a in parts {
            for b in parts {
                let rank = |k: &str| kind_rank(k, KIND_ORDER_FIRST, KIND_ORDER_LAST);
                let by_text = rank(a[2])
                    .cmp(&rank(b[2]))
                    .then_with(|| gvk_sort_key(&gvk(a)).cmp(&gvk_sort_key(&gvk(b))));
                assert_eq!(compare_gvk_parts(a, b), by_text, "{a:?} {b:?}");
                assert_eq!(compare_gvk(&gvk(a), &gvk(b)), by_text, "{a:?} {b:?}");
            }
        }
    }
}
