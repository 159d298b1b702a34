//! Who may be referred to: each resource's identities read once, and the
//! index of referral candidates by previous name and namespace.

use kustom_api::{err, protocol, resource, Error, Gvk, ResId, Value};
use std::collections::{HashMap, HashSet};

/// kustomize's pseudo-namespace of cluster-scoped ids
/// (`ResId::effective_namespace`).
pub(super) const CLUSTER_SCOPE: &str = "_non_namespaceable_";

/// What the pass needs to know about each resource, read once up front: its
/// identities (current, original, previous) and its prefix/suffix history.
///
/// Only referrer *fields* change during the pass, never a resource's
/// metadata, so this snapshot stays true throughout.
#[derive(Debug, Default)]
pub(super) struct Info {
    /// Current id.
    pub(super) id: ResId,
    /// Current effective namespace (`_non_namespaceable_` when cluster-scoped).
    pub(super) eff_ns: String,
    pub(super) cluster_scoped: bool,
    /// Previous (name, kind) pairs, oldest first; the group and version are
    /// the current ones, as kustomize builds previous ids.
    pub(super) prev: Vec<(String, String)>,
    /// Gvk of the original id (current group/version, first kind).
    pub(super) org_gvk: Gvk,
    /// Effective namespace of the original id; None when cluster-scoped.
    pub(super) org_eff_ns: Option<String>,
    /// Name prefixes applied so far; None when never recorded.
    pub(super) prefixes: Option<Vec<String>>,
    /// Name suffixes applied so far; None when never recorded.
    pub(super) suffixes: Option<Vec<String>>,
}

impl Info {
    /// Read a resource's identities and affix history from its annotations.
    pub(super) fn of(obj: &Value) -> Result<Info, Error> {
        let id = ResId::of(obj);
        let eff_ns = id.effective_namespace().to_string();
        let cluster_scoped = eff_ns == CLUSTER_SCOPE;
        let csv = |key: &str| {
            resource::annotation(obj, key).map(|v| v.split(',').map(str::to_string).collect())
        };
        let mut prev = Vec::new();
        let mut org_ns = None;
        if let Some(names) = csv(protocol::PREVIOUS_NAMES) {
            let names: Vec<String> = names;
            let namespaces: Vec<String> = csv(protocol::PREVIOUS_NAMESPACES).unwrap_or_default();
            let kinds: Vec<String> = csv(protocol::PREVIOUS_KINDS).unwrap_or_default();
            if names.len() != namespaces.len() || names.len() != kinds.len() {
                return Err(err!(
                    "{id}: number of previous names, number of previous namespaces, \
                     number of previous kinds not equal"
                ));
            }
            org_ns = namespaces.into_iter().next();
            prev = names.into_iter().zip(kinds).collect();
        }
        let org_gvk = Gvk {
            kind: prev
                .first()
                .map_or_else(|| id.gvk.kind.clone(), |(_, k)| k.clone()),
            ..id.gvk.clone()
        };
        let org_eff_ns = match org_ns {
            Some(ns) => ResId {
                gvk: org_gvk.clone(),
                name: String::new(),
                namespace: ns,
            }
            .effective_namespace()
            .to_string(),
            None => eff_ns.clone(),
        };
        Ok(Info {
            eff_ns,
            cluster_scoped,
            prev,
            org_eff_ns: (org_eff_ns != CLUSTER_SCOPE).then_some(org_eff_ns),
            org_gvk,
            prefixes: csv(protocol::PREFIXES),
            suffixes: csv(protocol::SUFFIXES),
            id,
        })
    }

    /// Whether one of the previous ids is of a gvk `selector` selects.
    pub(super) fn was_selected_by(&self, selector: &Gvk) -> bool {
        self.prev.iter().any(|(_, kind)| {
            (selector.group.is_empty() || selector.group == self.id.gvk.group)
                && (selector.version.is_empty() || selector.version == self.id.gvk.version)
                && (selector.kind.is_empty() || selector.kind == *kind)
        })
    }
}

/// Candidates sharing one previous name, bucketed so that a referrer in a
/// namespace only looks at the ones it may refer to.
#[derive(Debug, Default)]
pub(super) struct NameEntry {
    /// Every resource with this previous name, in resource order.
    pub(super) all: Vec<usize>,
    /// Namespaced ones by current effective namespace.
    pub(super) by_ns: HashMap<String, Vec<usize>>,
    /// Those with an original namespace, by it.
    pub(super) by_org_ns: HashMap<String, Vec<usize>>,
    /// Cluster-scoped ones.
    pub(super) cluster: Vec<usize>,
    /// Namespaced ServiceAccounts by current (raw) namespace: RoleBindings
    /// may name service accounts of the namespaces their subjects list.
    pub(super) service_accounts: HashMap<String, Vec<usize>>,
}

/// Everything precomputed over the resources.
pub(super) struct Index {
    pub(super) infos: Vec<Info>,
    pub(super) by_name: HashMap<String, NameEntry>,
    /// Original effective namespaces of all resources.
    pub(super) org_namespaces: HashSet<String>,
    /// Original namespaces having a currently cluster-scoped resource.
    pub(super) org_with_cluster: HashSet<String>,
    /// Original namespace → current effective namespaces of its resources.
    pub(super) org_to_eff: HashMap<String, HashSet<String>>,
    /// Original namespace → current raw namespaces of its resources.
    pub(super) org_to_raw: HashMap<String, HashSet<String>>,
}

impl Index {
    /// Index every resource by its previous names and namespaces.
    pub(super) fn build(resources: &[Value]) -> Result<Index, Error> {
        let infos = resources
            .iter()
            .map(Info::of)
            .collect::<Result<Vec<_>, _>>()?;
        let mut by_name: HashMap<String, NameEntry> = HashMap::new();
        let mut org_namespaces = HashSet::new();
        let mut org_with_cluster = HashSet::new();
        let mut org_to_eff: HashMap<String, HashSet<String>> = HashMap::new();
        let mut org_to_raw: HashMap<String, HashSet<String>> = HashMap::new();
        for (i, info) in infos.iter().enumerate() {
            if let Some(org) = &info.org_eff_ns {
                org_namespaces.insert(org.clone());
                if info.cluster_scoped {
                    org_with_cluster.insert(org.clone());
                } else {
                    org_to_eff
                        .entry(org.clone())
                        .or_default()
                        .insert(info.eff_ns.clone());
                }
                org_to_raw
                    .entry(org.clone())
                    .or_default()
                    .insert(info.id.namespace.clone());
            }
            let mut seen: HashSet<&str> = HashSet::new();
            for (name, _) in &info.prev {
                if !seen.insert(name) {
                    continue;
                }
                let entry = by_name.entry(name.clone()).or_default();
                entry.all.push(i);
                if let Some(org) = &info.org_eff_ns {
                    entry.by_org_ns.entry(org.clone()).or_default().push(i);
                }
                if info.cluster_scoped {
                    entry.cluster.push(i);
                } else {
                    entry.by_ns.entry(info.eff_ns.clone()).or_default().push(i);
                    if info.id.gvk.kind == "ServiceAccount" {
                        entry
                            .service_accounts
                            .entry(info.id.namespace.clone())
                            .or_default()
                            .push(i);
                    }
                }
            }
        }
        Ok(Index {
            infos,
            by_name,
            org_namespaces,
            org_with_cluster,
            org_to_eff,
            org_to_raw,
        })
    }

    /// Resources with previous name `name` that `referrer` may refer to:
    /// kustomize's "subset that could be referenced by" the referrer,
    /// intersected with its "same namespace as the referrer" sieve. Cluster-
    /// scoped resources are visible to and see everything; otherwise the
    /// namespaces must match, except that a RoleBinding may name the service
    /// accounts of the namespaces its subjects mention. In resource order.
    ///
    /// `namespace` (an explicit namespace and whether it is matched against
    /// original namespaces) only serves to pick a smaller bucket; callers
    /// still check it on each candidate.
    pub(super) fn reachable(
        &self,
        name: &str,
        referrer: &Referrer,
        namespace: Option<(&str, bool)>,
    ) -> Vec<usize> {
        let Some(entry) = self.by_name.get(name) else {
            return Vec::new();
        };
        if referrer.info.cluster_scoped {
            let bucket = match namespace {
                None => Some(&entry.all),
                Some((ns, true)) => entry.by_org_ns.get(ns),
                Some((ns, false)) => entry.by_ns.get(ns),
            };
            return bucket.cloned().unwrap_or_default();
        }
        let mut out: Vec<usize> = entry.cluster.clone();
        if let Some(same) = entry.by_ns.get(&referrer.info.eff_ns) {
            out.extend_from_slice(same);
        }
        for ns in &referrer.subject_namespaces {
            if let Some(sas) = entry.service_accounts.get(ns) {
                out.extend_from_slice(sas);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether any resource the referrer may refer to (kustomize's subset,
    /// before the name is looked at) originally lived in namespace `ns`.
    /// kustomize then narrows explicit-namespace references by original
    /// namespace, and otherwise by current namespace.
    pub(super) fn reachable_has_org_namespace(&self, ns: &str, referrer: &Referrer) -> bool {
        if referrer.info.cluster_scoped {
            return self.org_namespaces.contains(ns);
        }
        self.org_with_cluster.contains(ns)
            || self
                .org_to_eff
                .get(ns)
                .is_some_and(|s| s.contains(&referrer.info.eff_ns))
            || self.org_to_raw.get(ns).is_some_and(|raw| {
                referrer
                    .subject_namespaces
                    .iter()
                    .any(|sns| raw.contains(sns))
            })
    }
}

/// The object whose fields are being fixed.
pub(super) struct Referrer<'a> {
    pub(super) info: &'a Info,
    /// Current id as text, recorded in the targets' refBy annotation.
    pub(super) id_text: String,
    /// For a RoleBinding: the namespaces of its ServiceAccount subjects.
    pub(super) subject_namespaces: Vec<String>,
}

/// For a RoleBinding, the namespaces of its ServiceAccount subjects: service
/// accounts there are within its reach.
pub(super) fn subject_namespaces(obj: &Value, id: &ResId) -> Result<Vec<String>, Error> {
    if resource::kind(obj) != "RoleBinding" {
        return Ok(Vec::new());
    }
    let Some(subjects) = obj.get("subjects").and_then(Value::as_array) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for s in subjects {
        let (Some(ns), Some(Value::String(kind))) = (s.get("namespace"), s.get("kind")) else {
            continue;
        };
        if kind != "ServiceAccount" {
            continue;
        }
        match ns {
            Value::String(ns) => out.push(ns.clone()),
            _ => {
                return Err(err!(
                    "Invalid Input: namespace is blank for resource {:?}\n",
                    id.to_string()
                ))
            }
        }
    }
    Ok(out)
}
