//! `NameReferenceTransformer`: after objects have been renamed (name prefix
//! or suffix, namespace, content-hash suffix, renaming patches), rewrite the
//! fields through which other objects refer to them by name.
//!
//! Config (kustom's name for the pass kustomize runs in-process after adding
//! hash suffixes):
//!
//! ```yaml
//! apiVersion: builtin
//! kind: NameReferenceTransformer
//! metadata: {name: …}
//! nameReference:          # kustomize's `nameReference:` configuration schema
//! - kind: ConfigMap       # the referral target (group/version/kind, empty = any)
//!   version: v1
//!   fieldSpecs:           # the fields of referrers that hold a target's name
//!   - kind: Deployment
//!     path: spec/template/spec/volumes/configMap/name
//! ```
//!
//! The core fills `nameReference` with the default table
//! (`api/src/data/fieldspecs/namereference.yaml`) merged with the user's
//! `configurations:` and CRD-derived entries.
//!
//! Renames are read from the build annotations the renamers write
//! (`previousNames`, `previousNamespaces`, `previousKinds`, `prefixes`,
//! `suffixes`). A referrer's field value is matched against the *previous*
//! names of the referral candidates; the candidate set is narrowed the way
//! kustomize narrows it (namespaces, `roleRef` kind, prefix/suffix history),
//! and ambiguity is an error. Each chosen target is told who referred to it
//! in its `refBy` annotation (kustomize only compares that annotation when
//! checking that validators left resources alone; it never reaches output).
//!
//! kustomize compares every referrer against every resource; here the
//! candidates come from an index keyed by previous name and bucketed by
//! namespace, so the pass stays near-linear on large builds.

use crate::Ctx;
use kustom_api::fieldspec::{split_path, FieldSpec};
use kustom_api::{err, protocol, resource, yaml, Error, Gvk, ResId, Value};
use serde::Deserialize;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

/// kustomize's pseudo-namespace of cluster-scoped ids
/// (`ResId::effective_namespace`).
const CLUSTER_SCOPE: &str = "_non_namespaceable_";

/// The transformer's config: `nameReference:` back-references.
#[derive(Debug, Default, Deserialize)]
struct Config {
    #[serde(default, rename = "nameReference")]
    name_reference: Option<Vec<BackRef>>,
}

/// One back-reference: objects of `group/version/kind` are referred to by
/// name from the `field_specs` fields of other objects.
#[derive(Debug, Clone, Default, Deserialize)]
struct BackRef {
    #[serde(default)]
    group: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    kind: String,
    #[serde(default, rename = "fieldSpecs", deserialize_with = "null_as_empty")]
    field_specs: Vec<FieldSpec>,
}

/// A list that may be written as `null` (`fieldSpecs:` with nothing after it).
fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<FieldSpec>, D::Error> {
    Ok(Option::<Vec<FieldSpec>>::deserialize(d)?.unwrap_or_default())
}

impl BackRef {
    fn gvk(&self) -> Gvk {
        Gvk {
            group: self.group.clone(),
            version: self.version.clone(),
            kind: self.kind.clone(),
        }
    }
}

/// Rewrite name references in `resources` per the config's back-references.
// The signature is the dispatch table's `TransformFn`, shared with
// transformers that add or remove resources.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, _ctx: &Ctx) -> Result<(), Error> {
    let config: Config = serde_json::from_value(config.clone())
        .map_err(|e| err!("invalid NameReferenceTransformer config: {e}"))?;
    let back_refs = normalize(config.name_reference.unwrap_or_default())?;
    fix_references(&back_refs, resources)
}

/// Merge back-references naming the same target and sort them as kustomize's
/// transformer config does. Both steps are idempotent, so a table the core
/// already merged and sorted passes through unchanged; the order matters
/// because the referrer fields are rewritten one back-reference after the
/// other (a field listed under two targets sees the first rewrite).
fn normalize(input: Vec<BackRef>) -> Result<Vec<BackRef>, Error> {
    let mut out: Vec<BackRef> = Vec::with_capacity(input.len());
    for br in input {
        let existing = out
            .iter_mut()
            .find(|o| o.group == br.group && o.version == br.version && o.kind == br.kind);
        let Some(existing) = existing else {
            // Kept as given, duplicates inside its own list included: kustomize
            // does not deduplicate within one back-reference.
            out.push(br);
            continue;
        };
        for fs in br.field_specs {
            let same = existing.field_specs.iter().find(|e| {
                e.path == fs.path
                    && (fs.group.is_empty() || e.group == fs.group)
                    && (fs.version.is_empty() || e.version == fs.version)
                    && (fs.kind.is_empty() || e.kind == fs.kind)
            });
            match same {
                Some(e) if e.create != fs.create => {
                    return Err(Error::new(
                        "failed to merge NameReference fieldSpec: conflicting fieldspecs",
                    ))
                }
                Some(_) => {}
                None => existing.field_specs.push(fs),
            }
        }
    }
    out.sort_by(|a, b| gvk_order(&a.gvk(), &b.gvk()));
    Ok(out)
}

/// kustomize's ordering of gvks in its transformer config: a fixed rank for
/// well-known kinds, then group/version/kind text with markers for empties.
fn gvk_order(a: &Gvk, b: &Gvk) -> Ordering {
    kustom_api::resid::compare_gvk(a, b)
}

/// What the pass needs to know about each resource, read once up front: its
/// identities (current, original, previous) and its prefix/suffix history.
///
/// Only referrer *fields* change during the pass, never a resource's
/// metadata, so this snapshot stays true throughout.
#[derive(Debug, Default)]
struct Info {
    /// Current id.
    id: ResId,
    /// Current effective namespace (`_non_namespaceable_` when cluster-scoped).
    eff_ns: String,
    cluster_scoped: bool,
    /// Previous (name, kind) pairs, oldest first; the group and version are
    /// the current ones, as kustomize builds previous ids.
    prev: Vec<(String, String)>,
    /// Gvk of the original id (current group/version, first kind).
    org_gvk: Gvk,
    /// Effective namespace of the original id; None when cluster-scoped.
    org_eff_ns: Option<String>,
    /// Name prefixes applied so far; None when never recorded.
    prefixes: Option<Vec<String>>,
    /// Name suffixes applied so far; None when never recorded.
    suffixes: Option<Vec<String>>,
}

impl Info {
    fn of(obj: &Value) -> Result<Info, Error> {
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
    fn was_selected_by(&self, selector: &Gvk) -> bool {
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
struct NameEntry {
    /// Every resource with this previous name, in resource order.
    all: Vec<usize>,
    /// Namespaced ones by current effective namespace.
    by_ns: HashMap<String, Vec<usize>>,
    /// Those with an original namespace, by it.
    by_org_ns: HashMap<String, Vec<usize>>,
    /// Cluster-scoped ones.
    cluster: Vec<usize>,
    /// Namespaced ServiceAccounts by current (raw) namespace: RoleBindings
    /// may name service accounts of the namespaces their subjects list.
    service_accounts: HashMap<String, Vec<usize>>,
}

/// Everything precomputed over the resources.
struct Index {
    infos: Vec<Info>,
    by_name: HashMap<String, NameEntry>,
    /// Original effective namespaces of all resources.
    org_namespaces: HashSet<String>,
    /// Original namespaces having a currently cluster-scoped resource.
    org_with_cluster: HashSet<String>,
    /// Original namespace → current effective namespaces of its resources.
    org_to_eff: HashMap<String, HashSet<String>>,
    /// Original namespace → current raw namespaces of its resources.
    org_to_raw: HashMap<String, HashSet<String>>,
}

impl Index {
    fn build(resources: &[Value]) -> Result<Index, Error> {
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
    fn reachable(
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
    fn reachable_has_org_namespace(&self, ns: &str, referrer: &Referrer) -> bool {
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
struct Referrer<'a> {
    info: &'a Info,
    /// Current id as text, recorded in the targets' refBy annotation.
    id_text: String,
    /// For a RoleBinding: the namespaces of its ServiceAccount subjects.
    subject_namespaces: Vec<String>,
}

/// How candidates narrowed to several count as one (kustomize takes the first).
#[derive(Clone, Copy)]
enum Sameness {
    /// Same current name: only the name is copied from the target.
    Name,
    /// Same current name and namespace: both are copied.
    NameAndNamespace,
}

/// One field spec being applied to one referrer.
struct Job<'a> {
    index: &'a Index,
    referrer: &'a Referrer<'a>,
    target: &'a Gvk,
    /// For a `…roleRef/name` field: the gvk its sibling `apiGroup`/`kind` name.
    role_ref: Option<Gvk>,
    /// Targets chosen, to receive a refBy entry.
    referred: &'a mut Vec<usize>,
    /// Set when the candidates are ambiguous: they are listed in the error.
    ambiguous: Option<Vec<usize>>,
}

impl Job<'_> {
    /// Fix the value found at the end of the field path.
    fn set(&mut self, node: &mut Value) -> Result<(), Error> {
        match node {
            Value::Null => Ok(()),
            Value::Object(_) => self.set_mapping(node),
            Value::Array(items) => {
                for item in items {
                    match item {
                        Value::Null => {}
                        Value::Object(_) => self.set_mapping(item)?,
                        Value::Array(_) => {
                            return Err(err!(
                                "{} is expected to be either a string or a map of string",
                                item
                            ))
                        }
                        _ => self.set_scalar(item)?,
                    }
                }
                Ok(())
            }
            _ => self.set_scalar(node),
        }
    }

    /// A plain name field.
    fn set_scalar(&mut self, node: &mut Value) -> Result<(), Error> {
        let old = scalar_text(node);
        let Some(t) = self.select(&old, None, Sameness::Name)? else {
            return Ok(());
        };
        let new = &self.index.infos[t].id.name;
        if *new != old {
            replace_scalar(node, new);
        }
        Ok(())
    }

    /// A map naming the target by `name` and maybe `namespace` (RBAC
    /// subjects, webhook services): an explicit namespace narrows the
    /// candidates, and the target's namespace is copied back.
    fn set_mapping(&mut self, node: &mut Value) -> Result<(), Error> {
        let Some(map) = node.as_object_mut() else {
            return Err(Error::new("expect a mapping node"));
        };
        let Some(old) = map.get("name").map(scalar_text) else {
            return Err(Error::new("path config error; no 'name' field in node"));
        };
        let ns = map.get("namespace").map(scalar_text);
        let Some(t) = self.select(&old, ns.as_deref(), Sameness::NameAndNamespace)? else {
            return Ok(());
        };
        let target = &self.index.infos[t].id;
        if target.name == old && target.namespace.is_empty() {
            return Ok(());
        }
        if let Some(v) = map.get_mut("name") {
            replace_scalar(v, &target.name);
        }
        // An unset target namespace is a wildcard, not "default": leave the
        // referrer's namespace alone then.
        if !target.namespace.is_empty() {
            match map.get_mut("namespace") {
                Some(v) => replace_scalar(v, &target.namespace),
                None => {
                    map.insert("namespace".into(), Value::String(target.namespace.clone()));
                }
            }
        }
        Ok(())
    }

    /// Pick the target a reference to `old_name` means, if any.
    fn select(
        &mut self,
        old_name: &str,
        namespace: Option<&str>,
        sameness: Sameness,
    ) -> Result<Option<usize>, Error> {
        let index = self.index;
        let infos = &index.infos;
        let referrer = self.referrer;
        // An explicit namespace narrows by original namespace when the
        // referrer can see anything that was originally there, else by
        // current namespace.
        let by_org = namespace.map(|ns| (ns, index.reachable_has_org_namespace(ns, referrer)));
        let mut cands: Vec<usize> = index
            .reachable(old_name, referrer, by_org)
            .into_iter()
            .filter(|&c| {
                let info = &infos[c];
                let in_ns = match by_org {
                    None => true,
                    Some((ns, true)) => info.org_eff_ns.as_deref() == Some(ns),
                    Some((ns, false)) => !info.cluster_scoped && info.eff_ns == ns,
                };
                in_ns
                    && info.was_selected_by(self.target)
                    && self
                        .role_ref
                        .as_ref()
                        .is_none_or(|g| info.was_selected_by(g))
            })
            .collect();
        if cands.len() > 1 {
            // Prefer targets renamed along with the referrer: their
            // prefix/suffix histories end alike (an empty history matching
            // anything at first, then only another empty one).
            cands.retain(|&c| same_affixes(&infos[c], referrer.info, true));
            if cands.len() > 1 {
                cands.retain(|&c| same_affixes(&infos[c], referrer.info, false));
            }
        }
        let chosen = match cands.as_slice() {
            [] => return Ok(None),
            [one] => *one,
            [first, rest @ ..] => {
                let a = &infos[*first].id;
                let same = rest.iter().all(|&c| {
                    let b = &infos[c].id;
                    a.name == b.name
                        && match sameness {
                            Sameness::Name => true,
                            Sameness::NameAndNamespace => a.namespace == b.namespace,
                        }
                });
                if !same {
                    let ids: Vec<String> = cands.iter().map(|&c| infos[c].id.to_string()).collect();
                    self.ambiguous = Some(cands);
                    return Err(err!(
                        "found multiple possible referrals: {}",
                        ids.join(", ")
                    ));
                }
                *first
            }
        };
        self.referred.push(chosen);
        Ok(Some(chosen))
    }
}

/// Whether the candidate's prefixes and suffixes end the same way as the
/// referrer's; with `allow_empty`, an empty history on either side matches.
fn same_affixes(cand: &Info, referrer: &Info, allow_empty: bool) -> bool {
    let fits = |a: &Option<Vec<String>>, b: &Option<Vec<String>>| {
        let a = a.as_deref().unwrap_or_default();
        let b = b.as_deref().unwrap_or_default();
        (allow_empty && (a.is_empty() || b.is_empty())) || same_ending(a, b)
    };
    fits(&cand.prefixes, &referrer.prefixes) && fits(&cand.suffixes, &referrer.suffixes)
}

/// Whether the shorter list is a tail of the longer (two empty lists match,
/// an empty and a non-empty one do not).
fn same_ending(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return long.is_empty();
    }
    long.ends_with(short)
}

/// A scalar as YAML text (what a reference is compared by).
fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// Write a new name into a scalar field. kustomize keeps the field's
/// style: a string stays a string, but a plain scalar that read as a number,
/// boolean or null is re-read as plain YAML, so `1` renamed to `10` is the
/// number 10 while `p-1` is a string.
fn replace_scalar(node: &mut Value, new: &str) {
    if node.is_string() {
        *node = Value::String(new.to_string());
        return;
    }
    *node = match yaml::parse_stream(new) {
        Ok(docs) => match docs.as_slice() {
            [v @ (Value::Number(_) | Value::Bool(_))] => v.clone(),
            _ => Value::String(new.to_string()),
        },
        Err(_) => Value::String(new.to_string()),
    };
}

/// Walk `path` from `node` the way kustomize's field-spec filter does
/// (sequences are entered element by element, missing and null fields end
/// the walk quietly, nothing is created) and call `f` on what is found.
fn walk(
    node: &mut Value,
    path: &[String],
    f: &mut dyn FnMut(&mut Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some((first, rest)) = path.split_first() else {
        return f(node);
    };
    match node {
        Value::Null => Ok(()),
        Value::Array(items) => {
            for item in items {
                walk(item, path, f).map_err(|e| {
                    e.context(format!("visit traversal on path: [{}]", path.join(" ")))
                })?;
            }
            Ok(())
        }
        Value::Object(map) => {
            let key = first.strip_suffix("[]").unwrap_or(first);
            if key.is_empty() {
                return Err(Error::new("cannot set or create an empty field name"));
            }
            match map.get_mut(key) {
                Some(child) => walk(child, rest, f),
                None => Ok(()),
            }
        }
        _ => Err(Error::new("expected sequence or mapping node")),
    }
}

/// A field spec ready to apply: its back-reference's target and split path.
struct Spec<'a> {
    target: Gvk,
    fs: &'a FieldSpec,
    path: Vec<String>,
}

fn fix_references(back_refs: &[BackRef], resources: &mut [Value]) -> Result<(), Error> {
    let specs: Vec<Spec> = back_refs
        .iter()
        .flat_map(|br| {
            let target = br.gvk();
            br.field_specs.iter().map(move |fs| Spec {
                target: target.clone(),
                fs,
                path: split_path(&fs.path),
            })
        })
        .collect();
    let index = Index::build(resources)?;
    // Which specs apply to a referrer depends only on its original gvk;
    // computed once per distinct gvk.
    let mut applicable: HashMap<Gvk, Vec<usize>> = HashMap::new();
    let mut ref_by: Vec<Vec<String>> = vec![Vec::new(); resources.len()];
    for i in 0..resources.len() {
        let info = &index.infos[i];
        let which = applicable.entry(info.org_gvk.clone()).or_insert_with(|| {
            (0..specs.len())
                .filter(|&s| specs[s].fs.applies_to(&info.org_gvk))
                .collect()
        });
        if which.is_empty() {
            continue;
        }
        let referrer = Referrer {
            info,
            id_text: info.id.to_string(),
            subject_namespaces: subject_namespaces(&resources[i], &info.id)?,
        };
        for &s in which.iter() {
            let spec = &specs[s];
            let role_ref = if spec.fs.path.ends_with("roleRef/name") {
                role_ref_gvk(&resources[i])
            } else {
                None
            };
            let mut referred = Vec::new();
            let mut job = Job {
                index: &index,
                referrer: &referrer,
                target: &spec.target,
                role_ref,
                referred: &mut referred,
                ambiguous: None,
            };
            let result = walk(&mut resources[i], &spec.path, &mut |node| job.set(node));
            let ambiguous = job.ambiguous.take();
            for t in referred {
                ref_by[t].push(referrer.id_text.clone());
            }
            if let Err(e) = result {
                let e = e
                    .context(format!(
                        "considering field '{}' of object {}",
                        spec.fs.path, info.id
                    ))
                    .context(format!(
                        "updating name reference in '{}' field of '{}'",
                        spec.fs.path, referrer.id_text
                    ));
                return Err(match ambiguous {
                    Some(cands) => Error::new(format!(
                        "{}\n{}",
                        e.message,
                        ambiguity_details(resources, i, &cands, &ref_by)
                    )),
                    None => e,
                });
            }
        }
    }
    for (obj, refs) in resources.iter_mut().zip(ref_by) {
        if !refs.is_empty() {
            let value = with_ref_by(obj, &refs);
            resource::set_annotation(obj, protocol::REF_BY, &value);
        }
    }
    Ok(())
}

/// The refBy annotation value after appending `refs`.
fn with_ref_by(obj: &Value, refs: &[String]) -> String {
    let added = refs.join(",");
    match resource::annotation(obj, protocol::REF_BY) {
        Some(old) => format!("{old},{added}"),
        None => added,
    }
}

/// The referrer and the candidates as kustomize lists them when it cannot
/// choose, refBy annotations recorded so far included.
fn ambiguity_details(
    resources: &[Value],
    referrer: usize,
    cands: &[usize],
    ref_by: &[Vec<String>],
) -> String {
    let dump = |i: usize| {
        if ref_by[i].is_empty() {
            return yaml::to_yaml(&resources[i]);
        }
        let mut obj = resources[i].clone();
        let value = with_ref_by(&obj, &ref_by[i]);
        resource::set_annotation(&mut obj, protocol::REF_BY, &value);
        yaml::to_yaml(&obj)
    };
    let mut out = format!(
        "\n**** Too many possible referral targets to referrer:\n{}\n",
        dump(referrer)
    );
    for (n, &c) in cands.iter().enumerate() {
        out.push_str(&format!("--- possible referral {n}:\n{}\n", dump(c)));
    }
    out
}

/// For a RoleBinding, the namespaces of its ServiceAccount subjects: service
/// accounts there are within its reach.
fn subject_namespaces(obj: &Value, id: &ResId) -> Result<Vec<String>, Error> {
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

/// The gvk a binding's `roleRef` names (`apiGroup` and `kind`), when both are there.
fn role_ref_gvk(obj: &Value) -> Option<Gvk> {
    let role_ref = obj.get("roleRef")?.as_object()?;
    Some(Gvk {
        group: scalar_text(role_ref.get("apiGroup")?),
        version: String::new(),
        kind: scalar_text(role_ref.get("kind")?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // ----- building inputs the way kustomize's renamers leave them -----

    /// An object with `extra` fields merged in.
    fn obj(api_version: &str, kind: &str, name: &str, extra: Value) -> Value {
        let mut o = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}});
        if let (Some(m), Value::Object(extra)) = (o.as_object_mut(), extra) {
            for (k, v) in extra {
                if k == "metadata" {
                    if let (Some(meta), Value::Object(more)) = (m["metadata"].as_object_mut(), v) {
                        meta.extend(more);
                    }
                } else {
                    m.insert(k, v);
                }
            }
        }
        o
    }

    fn append_csv(o: &mut Value, key: &str, v: &str) {
        let new = match resource::annotation(o, key) {
            Some(old) => format!("{old},{v}"),
            None => v.to_string(),
        };
        resource::set_annotation(o, key, &new);
    }

    /// kustomize's StorePreviousId.
    fn store_prev(o: &mut Value) {
        let id = ResId::of(o);
        append_csv(o, protocol::PREVIOUS_NAMES, &id.name);
        append_csv(o, protocol::PREVIOUS_NAMESPACES, id.effective_namespace());
        append_csv(o, protocol::PREVIOUS_KINDS, &id.gvk.kind);
    }

    /// The namespace transformer (cluster-scoped kinds keep no namespace).
    fn namespace(o: &mut Value, ns: &str) {
        store_prev(o);
        if !ResId::of(o).gvk.is_cluster_scoped() {
            resource::set_namespace(o, ns);
        }
    }

    fn prefix(o: &mut Value, p: &str) {
        append_csv(o, protocol::PREFIXES, p);
        store_prev(o);
        let n = format!("{p}{}", resource::name(o));
        resource::set_name(o, &n);
    }

    fn suffix(o: &mut Value, s: &str) {
        append_csv(o, protocol::SUFFIXES, s);
        store_prev(o);
        let n = format!("{}{s}", resource::name(o));
        resource::set_name(o, &n);
    }

    fn hash(o: &mut Value, h: &str) {
        store_prev(o);
        let n = format!("{}-{h}", resource::name(o));
        resource::set_name(o, &n);
    }

    /// The default table, read from the data file.
    fn default_table() -> Value {
        let text = include_str!("../../../../api/src/data/fieldspecs/namereference.yaml");
        let docs = yaml::parse_stream(text).expect("namereference.yaml parses");
        match docs.as_slice() {
            [doc] => doc["nameReference"].clone(),
            _ => panic!("namereference.yaml: one document expected"),
        }
    }

    fn config_with(table: Value) -> Value {
        json!({"apiVersion": "builtin", "kind": "NameReferenceTransformer",
               "metadata": {"name": "nameref"}, "nameReference": table})
    }

    fn ctx() -> Ctx {
        Ctx {
            root: ".".into(),
            load_restrictor: crate::ctx::LoadRestrictor::RootOnly,
            kustomization: "kustomization.yaml".into(),
            remote_files: Default::default(),
        }
    }

    fn run(resources: &mut Vec<Value>) -> Result<(), Error> {
        transform(&config_with(default_table()), resources, &ctx())
    }

    fn find<'a>(rs: &'a [Value], kind: &str, name: &str) -> &'a Value {
        rs.iter()
            .find(|r| resource::kind(r) == kind && resource::name(r) == name)
            .unwrap_or_else(|| panic!("no {kind} {name}"))
    }

    fn at<'a>(v: &'a Value, pointer: &str) -> &'a Value {
        v.pointer(pointer)
            .unwrap_or_else(|| panic!("nothing at {pointer} in {v}"))
    }

    // ----- whole builds, compared with `kubectl kustomize` on the same tree -----

    /// namePrefix p-, nameSuffix -s, namespace ns1, a generated ConfigMap and
    /// Secret, and the usual referrers. Expected values are kubectl
    /// kustomize v5.5.0's output for the same kustomization.
    #[test]
    fn prefix_suffix_namespace_and_generators() {
        let mut rs = vec![
            obj("v1", "ConfigMap", "cm", json!({"data": {"a": "b"}})),
            obj("v1", "Secret", "sec", json!({"data": {"x": "eQ=="}})),
            obj(
                "apps/v1",
                "Deployment",
                "dep",
                json!({"spec": {"template": {"spec": {
                "serviceAccountName": "sa",
                "imagePullSecrets": [{"name": "sec"}],
                "containers": [{"name": "c",
                    "env": [
                        {"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "a"}}},
                        {"name": "X", "valueFrom": {"secretKeyRef": {"name": "sec", "key": "x"}}}],
                    "envFrom": [{"configMapRef": {"name": "cm"}}, {"secretRef": {"name": "sec"}}]}],
                "volumes": [
                    {"name": "v1", "configMap": {"name": "cm"}},
                    {"name": "v2", "secret": {"secretName": "sec"}},
                    {"name": "v3", "projected": {"sources": [
                        {"configMap": {"name": "cm"}}, {"secret": {"name": "sec"}}]}},
                    {"name": "v4", "persistentVolumeClaim": {"claimName": "pvc"}}]}}}}),
            ),
            obj("v1", "ServiceAccount", "sa", json!({})),
            obj("v1", "PersistentVolumeClaim", "pvc", json!({})),
            obj("v1", "Service", "svc", json!({})),
            obj(
                "networking.k8s.io/v1",
                "Ingress",
                "ing",
                json!({"spec": {
                "defaultBackend": {"service": {"name": "svc"}},
                "tls": [{"secretName": "sec"}],
                "rules": [{"http": {"paths": [{"backend": {"service": {"name": "svc"}}}]}}]}}),
            ),
            obj(
                "rbac.authorization.k8s.io/v1",
                "Role",
                "role",
                json!({
                "rules": [{"resources": ["configmaps"], "resourceNames": ["cm", "other"]}]}),
            ),
            obj(
                "rbac.authorization.k8s.io/v1",
                "RoleBinding",
                "rb",
                json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "role"},
                "subjects": [
                    {"kind": "ServiceAccount", "name": "sa"},
                    {"kind": "ServiceAccount", "name": "sa", "namespace": "elsewhere"},
                    {"kind": "User", "name": "sa"}]}),
            ),
            obj(
                "rbac.authorization.k8s.io/v1",
                "ClusterRole",
                "crole",
                json!({}),
            ),
            obj(
                "rbac.authorization.k8s.io/v1",
                "ClusterRoleBinding",
                "crb",
                json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "crole"},
                "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "default"}]}),
            ),
            obj(
                "autoscaling/v2",
                "HorizontalPodAutoscaler",
                "hpa",
                json!({"spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "dep"}}}),
            ),
        ];
        for r in rs.iter_mut() {
            namespace(r, "ns1");
            prefix(r, "p-");
            suffix(r, "-s");
        }
        hash(&mut rs[0], "4h2mbtbbt6");
        hash(&mut rs[1], "t86b282gdf");
        run(&mut rs).expect("nameref");

        let cm = "p-cm-s-4h2mbtbbt6";
        let sec = "p-sec-s-t86b282gdf";
        let dep = find(&rs, "Deployment", "p-dep-s");
        let pod = at(dep, "/spec/template/spec");
        assert_eq!(pod["serviceAccountName"], "p-sa-s");
        assert_eq!(pod["imagePullSecrets"][0]["name"], sec);
        let c = &pod["containers"][0];
        assert_eq!(c["env"][0]["valueFrom"]["configMapKeyRef"]["name"], cm);
        assert_eq!(c["env"][1]["valueFrom"]["secretKeyRef"]["name"], sec);
        assert_eq!(c["envFrom"][0]["configMapRef"]["name"], cm);
        assert_eq!(c["envFrom"][1]["secretRef"]["name"], sec);
        let v = &pod["volumes"];
        assert_eq!(v[0]["configMap"]["name"], cm);
        assert_eq!(v[1]["secret"]["secretName"], sec);
        assert_eq!(v[2]["projected"]["sources"][0]["configMap"]["name"], cm);
        assert_eq!(v[2]["projected"]["sources"][1]["secret"]["name"], sec);
        assert_eq!(v[3]["persistentVolumeClaim"]["claimName"], "p-pvc-s");

        let ing = find(&rs, "Ingress", "p-ing-s");
        assert_eq!(at(ing, "/spec/defaultBackend/service/name"), "p-svc-s");
        assert_eq!(
            at(ing, "/spec/rules/0/http/paths/0/backend/service/name"),
            "p-svc-s"
        );
        assert_eq!(at(ing, "/spec/tls/0/secretName"), sec);

        let role = find(&rs, "Role", "p-role-s");
        assert_eq!(at(role, "/rules/0/resourceNames"), &json!([cm, "other"]));

        let rb = find(&rs, "RoleBinding", "p-rb-s");
        assert_eq!(at(rb, "/roleRef/name"), "p-role-s");
        assert_eq!(
            at(rb, "/subjects"),
            &json!([
                {"kind": "ServiceAccount", "name": "p-sa-s", "namespace": "ns1"},
                {"kind": "ServiceAccount", "name": "sa", "namespace": "elsewhere"},
                // kustomize does not look at the subject's kind.
                {"kind": "User", "name": "p-sa-s", "namespace": "ns1"}
            ])
        );
        let crb = find(&rs, "ClusterRoleBinding", "p-crb-s");
        assert_eq!(at(crb, "/roleRef/name"), "p-crole-s");
        assert_eq!(
            at(crb, "/subjects"),
            &json!([{"kind": "ServiceAccount", "name": "p-sa-s", "namespace": "ns1"}])
        );
        let hpa = find(&rs, "HorizontalPodAutoscaler", "p-hpa-s");
        assert_eq!(at(hpa, "/spec/scaleTargetRef/name"), "p-dep-s");

        // Targets learn who referred to them.
        let cm_obj = find(&rs, "ConfigMap", cm);
        let ref_by = resource::annotation(cm_obj, protocol::REF_BY).expect("refBy");
        assert!(
            ref_by.starts_with("Deployment.v1.apps/p-dep-s.ns1,"),
            "{ref_by}"
        );
        assert!(
            ref_by.contains("Role.v1.rbac.authorization.k8s.io/p-role-s.ns1"),
            "{ref_by}"
        );
        assert!(resource::annotation(find(&rs, "Service", "p-svc-s"), protocol::REF_BY).is_some());
        assert!(resource::annotation(dep, protocol::REF_BY).is_some());
        assert!(resource::annotation(ing, protocol::REF_BY).is_none());
    }

    /// Two overlays put the same base (a generated ConfigMap `cm` and a
    /// Deployment using it) into namespaces a and b; each Deployment must
    /// get the ConfigMap of its own namespace.
    #[test]
    fn same_name_in_two_namespaces() {
        let base = || {
            vec![
                obj("v1", "ConfigMap", "cm", json!({})),
                obj(
                    "apps/v1",
                    "Deployment",
                    "dep",
                    json!({"spec": {"template": {"spec": {
                    "volumes": [{"name": "v", "configMap": {"name": "cm"}}]}}}}),
                ),
            ]
        };
        let mut rs = Vec::new();
        for (ns, h) in [("a", "bdg947hgcc"), ("b", "797ght8c9h")] {
            let mut part = base();
            for r in part.iter_mut() {
                namespace(r, ns);
            }
            hash(&mut part[0], h);
            rs.extend(part);
        }
        run(&mut rs).expect("nameref");
        assert_eq!(
            at(&rs[1], "/spec/template/spec/volumes/0/configMap/name"),
            "cm-bdg947hgcc"
        );
        assert_eq!(
            at(&rs[3], "/spec/template/spec/volumes/0/configMap/name"),
            "cm-797ght8c9h"
        );
    }

    /// Overlays a (prefix a-) and b (prefix b-, suffix -x) of one base are
    /// combined: the prefix/suffix histories tell the candidates apart.
    #[test]
    fn multibase_told_apart_by_affixes() {
        let mut rs = Vec::new();
        for (p, s) in [("a-", None), ("b-", Some("-x"))] {
            let mut part = vec![
                obj("v1", "ConfigMap", "cm", json!({})),
                obj(
                    "apps/v1",
                    "Deployment",
                    "dep",
                    json!({"spec": {"template": {"spec": {
                    "volumes": [{"name": "v", "configMap": {"name": "cm"}}]}}}}),
                ),
            ];
            for r in part.iter_mut() {
                prefix(r, p);
                if let Some(s) = s {
                    suffix(r, s);
                }
            }
            rs.extend(part);
        }
        hash(&mut rs[0], "bdg947hgcc");
        hash(&mut rs[2], "bdg947hgcc");
        run(&mut rs).expect("nameref");
        assert_eq!(
            at(&rs[1], "/spec/template/spec/volumes/0/configMap/name"),
            "a-cm-bdg947hgcc"
        );
        assert_eq!(
            at(&rs[3], "/spec/template/spec/volumes/0/configMap/name"),
            "b-cm-x-bdg947hgcc"
        );
    }

    /// Subjects with explicit namespaces: ServiceAccount `sa` is put into
    /// namespace a (with prefix a-) by one overlay and into b by another.
    /// `namespace: a` matches no original namespace, so the current one
    /// decides; `namespace: default` matches both originals, and the empty
    /// prefix history of b's account matches the binding's.
    #[test]
    fn subjects_with_namespaces() {
        let mut rs = Vec::new();
        let mut a = obj("v1", "ServiceAccount", "sa", json!({}));
        namespace(&mut a, "a");
        prefix(&mut a, "a-");
        let mut b = obj("v1", "ServiceAccount", "sa", json!({}));
        namespace(&mut b, "b");
        rs.push(a);
        rs.push(b);
        let role_ref =
            json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "x"});
        rs.push(obj(
            "rbac.authorization.k8s.io/v1",
            "ClusterRoleBinding",
            "crb",
            json!({
            "roleRef": role_ref,
            "subjects": [
                {"kind": "ServiceAccount", "name": "sa", "namespace": "a"},
                {"kind": "ServiceAccount", "name": "sa", "namespace": "b"},
                {"kind": "ServiceAccount", "name": "sa", "namespace": "default"}]}),
        ));
        rs.push(obj(
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
            "rb",
            json!({
            "metadata": {"namespace": "c"},
            "roleRef": role_ref,
            "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "a"}]}),
        ));
        run(&mut rs).expect("nameref");
        assert_eq!(
            at(&rs[2], "/subjects"),
            &json!([
                {"kind": "ServiceAccount", "name": "a-sa", "namespace": "a"},
                {"kind": "ServiceAccount", "name": "sa", "namespace": "b"},
                {"kind": "ServiceAccount", "name": "sa", "namespace": "b"}])
        );
        // A RoleBinding in c reaches service accounts of the namespaces its
        // subjects name.
        assert_eq!(
            at(&rs[3], "/subjects"),
            &json!([{"kind": "ServiceAccount", "name": "a-sa", "namespace": "a"}])
        );
    }

    /// roleRef/name follows roleRef's kind; cluster-scoped targets
    /// (PersistentVolume, StorageClass) are found from a namespaced referrer.
    #[test]
    fn role_ref_kind_and_cluster_scoped_targets() {
        let rbac = "rbac.authorization.k8s.io/v1";
        let mut cr = obj(rbac, "ClusterRole", "r", json!({}));
        prefix(&mut cr, "cr-");
        let mut rs = vec![
            cr,
            obj(rbac, "Role", "r", json!({})),
            obj(
                rbac,
                "RoleBinding",
                "rb1",
                json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}}),
            ),
            obj(
                rbac,
                "RoleBinding",
                "rb2",
                json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"}}),
            ),
            obj(
                "v1",
                "PersistentVolumeClaim",
                "pvc",
                json!({"metadata": {"namespace": "x"},
                "spec": {"volumeName": "pv", "storageClassName": "sc"}}),
            ),
            obj(
                "v1",
                "PersistentVolume",
                "pv",
                json!({"spec": {"storageClassName": "sc"}}),
            ),
            obj("storage.k8s.io/v1", "StorageClass", "sc", json!({})),
        ];
        for r in rs.iter_mut() {
            prefix(r, "t-");
        }
        run(&mut rs).expect("nameref");
        assert_eq!(at(&rs[2], "/roleRef/name"), "t-r");
        assert_eq!(at(&rs[3], "/roleRef/name"), "t-cr-r");
        assert_eq!(at(&rs[4], "/spec/volumeName"), "t-pv");
        assert_eq!(at(&rs[4], "/spec/storageClassName"), "t-sc");
        assert_eq!(at(&rs[5], "/spec/storageClassName"), "t-sc");
    }

    /// The IngressClass entry of the default table names a group no object
    /// has, so kustomize never rewrites ingressClassName; neither do we.
    #[test]
    fn ingress_class_is_left_alone() {
        let mut rs = vec![
            obj("networking.k8s.io/v1", "IngressClass", "ic", json!({})),
            obj(
                "networking.k8s.io/v1",
                "Ingress",
                "ing",
                json!({"spec": {"ingressClassName": "ic"}}),
            ),
        ];
        for r in rs.iter_mut() {
            prefix(r, "p-");
        }
        run(&mut rs).expect("nameref");
        assert_eq!(at(&rs[1], "/spec/ingressClassName"), "ic");
    }

    /// The same generated ConfigMap put into namespaces a and b: a cluster-
    /// scoped referrer sees both. Equal names are no ambiguity for a plain
    /// name; a map with `name` and `namespace` picks by namespace, and
    /// without one the differing namespaces are ambiguous.
    #[test]
    fn candidates_in_several_namespaces() {
        let mut rs = Vec::new();
        for ns in ["a", "b"] {
            let mut cm = obj("v1", "ConfigMap", "cm", json!({}));
            namespace(&mut cm, ns);
            hash(&mut cm, "bdg947hgcc");
            rs.push(cm);
        }
        rs.push(obj(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            "cr",
            json!({"rules": [{"resourceNames": ["cm"]}]}),
        ));
        rs.push(obj(
            "v1",
            "Node",
            "node",
            json!({"spec": {"configSource": {
            "configMap": {"name": "cm", "namespace": "b", "kubeletConfigKey": "k"}}}}),
        ));
        run(&mut rs).expect("nameref");
        assert_eq!(
            at(&rs[2], "/rules/0/resourceNames"),
            &json!(["cm-bdg947hgcc"])
        );
        assert_eq!(
            at(&rs[3], "/spec/configSource/configMap"),
            &json!({"name": "cm-bdg947hgcc", "namespace": "b", "kubeletConfigKey": "k"})
        );
        // Only the first of equal candidates is told about the ClusterRole.
        assert_eq!(
            resource::annotation(&rs[0], protocol::REF_BY),
            Some("ClusterRole.v1.rbac.authorization.k8s.io/cr.[noNs]")
        );
        assert_eq!(
            resource::annotation(&rs[1], protocol::REF_BY),
            Some("Node.v1.[noGrp]/node.[noNs]")
        );

        // Without the namespace the Node's reference is ambiguous.
        let mut node = rs[3].clone();
        node["spec"]["configSource"]["configMap"] = json!({"name": "cm", "kubeletConfigKey": "k"});
        let mut index_only = vec![rs[0].clone(), rs[1].clone()];
        let index = Index::build(&index_only).expect("index");
        index_only.clear();
        let info = Info::of(&node).expect("info");
        let referrer = Referrer {
            info: &info,
            id_text: info.id.to_string(),
            subject_namespaces: vec![],
        };
        let mut referred = Vec::new();
        let target = Gvk {
            version: "v1".into(),
            kind: "ConfigMap".into(),
            ..Gvk::default()
        };
        let mut job = Job {
            index: &index,
            referrer: &referrer,
            target: &target,
            role_ref: None,
            referred: &mut referred,
            ambiguous: None,
        };
        let e = job
            .set(&mut node["spec"]["configSource"]["configMap"])
            .unwrap_err();
        assert_eq!(
            e.message,
            "found multiple possible referrals: ConfigMap.v1.[noGrp]/cm-bdg947hgcc.a, \
             ConfigMap.v1.[noGrp]/cm-bdg947hgcc.b"
        );
        assert_eq!(job.ambiguous, Some(vec![0, 1]));
    }

    /// Errors kustomize reports, with its wording.
    #[test]
    fn malformed_referrers() {
        let mut cm = obj("v1", "ConfigMap", "cm", json!({}));
        prefix(&mut cm, "p-");

        let mut dep = obj(
            "apps/v1",
            "Deployment",
            "dep",
            json!({"spec": {"template": {"spec": {
            "containers": [{"name": "c", "env": [{"name": "x", "valueFrom": 3}]}]}}}}),
        );
        prefix(&mut dep, "p-");
        let e = run(&mut vec![cm.clone(), dep]).unwrap_err();
        let path = "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name";
        assert_eq!(
            e.message,
            format!(
                "updating name reference in '{path}' field of 'Deployment.v1.apps/p-dep.[noNs]': \
                 considering field '{path}' of object Deployment.v1.apps/p-dep.[noNs]: \
                 visit traversal on path: [env valueFrom configMapKeyRef name]: \
                 visit traversal on path: [valueFrom configMapKeyRef name]: \
                 expected sequence or mapping node"
            )
        );

        let mut rb = obj(
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
            "rb",
            json!({
            "subjects": [{"kind": "ServiceAccount", "name": "x", "namespace": 3}]}),
        );
        prefix(&mut rb, "p-");
        let e = run(&mut vec![cm.clone(), rb]).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid Input: namespace is blank for resource \
             \"RoleBinding.v1.rbac.authorization.k8s.io/p-rb.[noNs]\"\n"
        );

        let mut rb = obj(
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
            "rb",
            json!({
            "subjects": [{"kind": "ServiceAccount", "noname": "x"}]}),
        );
        prefix(&mut rb, "p-");
        let e = run(&mut vec![cm, rb]).unwrap_err();
        assert!(
            e.message.ends_with(
                "of object RoleBinding.v1.rbac.authorization.k8s.io/p-rb.[noNs]: \
             path config error; no 'name' field in node"
            ),
            "{e}"
        );

        let mut bad = obj("v1", "ConfigMap", "cm", json!({}));
        resource::set_annotation(&mut bad, protocol::PREVIOUS_NAMES, "a,b");
        resource::set_annotation(&mut bad, protocol::PREVIOUS_NAMESPACES, "default");
        resource::set_annotation(&mut bad, protocol::PREVIOUS_KINDS, "ConfigMap,ConfigMap");
        assert!(run(&mut vec![bad]).is_err());
    }

    /// Only resources that were renamed are candidates, matched by any of
    /// their previous names but only through a previous id of the target
    /// kind; fields that name nothing renamed are left alone.
    #[test]
    fn matches_previous_names_of_the_target_kind_only() {
        let mut cm = obj("v1", "ConfigMap", "x", json!({}));
        prefix(&mut cm, "a-");
        prefix(&mut cm, "b-");
        let mut sec = obj("v1", "Secret", "x", json!({}));
        suffix(&mut sec, "-s");
        let plain = obj("v1", "ConfigMap", "untouched", json!({}));
        let pod = obj(
            "v1",
            "Pod",
            "pod",
            json!({"spec": {
            "volumes": [
                {"configMap": {"name": "x"}},
                {"configMap": {"name": "a-x"}},
                {"configMap": {"name": "untouched"}},
                {"configMap": {"name": "nothing"}},
                {"secret": {"secretName": "x"}}]}}),
        );
        let mut rs = vec![cm, sec, plain, pod];
        run(&mut rs).expect("nameref");
        assert_eq!(
            at(&rs[3], "/spec/volumes"),
            &json!([
                {"configMap": {"name": "b-a-x"}},
                {"configMap": {"name": "b-a-x"}},
                {"configMap": {"name": "untouched"}},
                {"configMap": {"name": "nothing"}},
                {"secret": {"secretName": "x-s"}}])
        );
    }

    /// Referrers are chosen by their original kind; a renamed target in
    /// another namespace is out of reach of a namespaced referrer.
    #[test]
    fn referrer_scope() {
        let mut cm = obj(
            "v1",
            "ConfigMap",
            "cm",
            json!({"metadata": {"namespace": "other"}}),
        );
        prefix(&mut cm, "p-");
        let mut pod = obj(
            "v1",
            "Pod",
            "pod",
            json!({"spec": {"volumes": [{"configMap": {"name": "cm"}}]}}),
        );
        let mut far = pod.clone();
        resource::set_namespace(&mut far, "other");
        // A patch changed this Pod's kind; it still counts as a Pod.
        store_prev(&mut pod);
        pod["kind"] = json!("Thing");
        pod["metadata"]["namespace"] = json!("other");
        let near = obj(
            "v1",
            "Pod",
            "near",
            json!({"spec": {"volumes": [{"configMap": {"name": "cm"}}]}}),
        );
        let mut rs = vec![cm, pod, far, near];
        run(&mut rs).expect("nameref");
        assert_eq!(at(&rs[1], "/spec/volumes/0/configMap/name"), "p-cm");
        assert_eq!(at(&rs[2], "/spec/volumes/0/configMap/name"), "p-cm");
        assert_eq!(at(&rs[3], "/spec/volumes/0/configMap/name"), "cm");
    }

    /// Many namespaces each holding a renamed ConfigMap of the same
    /// original name and a Deployment using it: each Deployment finds its
    /// own, and the index keeps this fast (see `scale` for timing).
    fn many_namespaces(n: usize) -> Vec<Value> {
        let rbac = "rbac.authorization.k8s.io/v1";
        let mut rs = Vec::with_capacity(5 * n);
        for i in 0..n {
            let ns = format!("ns{i}");
            let mut cm = obj("v1", "ConfigMap", "cm", json!({}));
            let mut dep = obj(
                "apps/v1",
                "Deployment",
                "dep",
                json!({"spec": {"template": {"spec": {
                "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "cm"}}]}],
                "volumes": [{"name": "v", "configMap": {"name": "cm"}}]}}}}),
            );
            let mut rb = obj(
                rbac,
                "RoleBinding",
                "rb",
                json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
                "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": ns}]}),
            );
            let mut sa = obj("v1", "ServiceAccount", "sa", json!({}));
            // Cluster-scoped, so it sees every `sa`; the namespace picks one.
            let mut crb = obj(
                rbac,
                "ClusterRoleBinding",
                &format!("crb{i}"),
                json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "c"},
                "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": ns}]}),
            );
            for r in [&mut cm, &mut dep, &mut rb, &mut sa, &mut crb] {
                namespace(r, &ns);
                prefix(r, "p-");
            }
            hash(&mut cm, &format!("h{i}"));
            rs.extend([cm, dep, rb, sa, crb]);
        }
        rs
    }

    #[test]
    fn many_namespaces_resolve_locally() {
        let mut rs = many_namespaces(500);
        run(&mut rs).expect("nameref");
        for i in [0, 17, 499] {
            let dep = &rs[5 * i + 1];
            assert_eq!(
                at(dep, "/spec/template/spec/volumes/0/configMap/name"),
                &json!(format!("p-cm-h{i}"))
            );
            assert_eq!(
                at(&rs[5 * i + 4], "/subjects/0"),
                &json!({"kind": "ServiceAccount", "name": "p-sa", "namespace": format!("ns{i}")})
            );
        }
    }

    /// `cargo test -p kustom-builtin --release -- --ignored scale --nocapture`
    #[test]
    #[ignore]
    fn scale() {
        let mut rs = many_namespaces(6_000);
        let start = std::time::Instant::now();
        run(&mut rs).expect("nameref");
        eprintln!("{} resources: {:?}", rs.len(), start.elapsed());
        assert_eq!(
            at(&rs[1], "/spec/template/spec/volumes/0/configMap/name"),
            "p-cm-h0"
        );
    }

    /// kustomize's TestRoleBindingAcrossNamespace: a RoleBinding in ns2
    /// reaches the service accounts of ns1 and ns3 its subjects name, but
    /// not other kinds there.
    #[test]
    fn role_binding_across_namespaces() {
        let mut rs: Vec<Value> = ["ns1", "ns2", "ns3"]
            .iter()
            .enumerate()
            .map(|(i, ns)| {
                obj(
                    "v1",
                    "ServiceAccount",
                    &format!("my-sa{}", i + 1),
                    json!({"metadata": {"namespace": ns}}),
                )
            })
            .collect();
        rs.push(obj(
            "v1",
            "NotServiceAccount",
            "my-nsa",
            json!({"metadata": {"namespace": "ns1"}}),
        ));
        rs.push(obj(
            "rbac.authorization.k8s.io/v1",
            "Role",
            "my-role",
            json!({"metadata": {"namespace": "ns2"}}),
        ));
        rs.push(obj(
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
            "my-role-binding",
            json!({
            "metadata": {"namespace": "ns2"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "my-role"},
            "subjects": [
                {"kind": "ServiceAccount", "name": "my-sa1", "namespace": "ns1"},
                {"kind": "ServiceAccount", "name": "my-sa2", "namespace": "ns2"},
                {"kind": "ServiceAccount", "name": "my-sa3", "namespace": "ns3"},
                {"kind": "NotServiceAccount", "name": "my-nsa", "namespace": "ns1"}]}),
        ));
        for r in rs.iter_mut() {
            suffix(r, "-ns2");
        }
        run(&mut rs).expect("nameref");
        let rb = &rs[5];
        assert_eq!(at(rb, "/roleRef/name"), "my-role-ns2");
        assert_eq!(
            at(rb, "/subjects"),
            &json!([
                {"kind": "ServiceAccount", "name": "my-sa1-ns2", "namespace": "ns1"},
                {"kind": "ServiceAccount", "name": "my-sa2-ns2", "namespace": "ns2"},
                {"kind": "ServiceAccount", "name": "my-sa3-ns2", "namespace": "ns3"},
                {"kind": "NotServiceAccount", "name": "my-nsa", "namespace": "ns1"}])
        );
    }

    /// An empty prefix history matches any at first: overlay p (prefix p-)
    /// holds a Deployment using `cm`, overlay q (prefix q-) a generated
    /// `cm`, and the top adds a plain `cm` and suffix -top. kubectl
    /// kustomize picks the top's ConfigMap.
    #[test]
    fn empty_affix_history_matches_first() {
        let mut dep = obj(
            "apps/v1",
            "Deployment",
            "dep",
            json!({"spec": {"template": {"spec": {
            "volumes": [{"name": "v", "configMap": {"name": "cm"}}]}}}}),
        );
        prefix(&mut dep, "p-");
        let mut qcm = obj("v1", "ConfigMap", "cm", json!({"data": {"a": "b"}}));
        prefix(&mut qcm, "q-");
        let mut rs = vec![dep, qcm, obj("v1", "ConfigMap", "cm", json!({}))];
        for r in rs.iter_mut() {
            suffix(r, "-top");
        }
        hash(&mut rs[1], "4h2mbtbbt6");
        run(&mut rs).expect("nameref");
        assert_eq!(
            at(&rs[0], "/spec/template/spec/volumes/0/configMap/name"),
            "cm-top"
        );
    }

    /// A name written as a plain number stays a number when the new name
    /// reads as one (kubectl kustomize: ConfigMap "1", nameSuffix "0").
    #[test]
    fn plain_scalars_keep_their_type() {
        let mut cm = obj("v1", "ConfigMap", "1", json!({}));
        suffix(&mut cm, "0");
        let mut p2 = obj("v1", "ConfigMap", "2", json!({}));
        prefix(&mut p2, "p-");
        let pod = obj(
            "v1",
            "Pod",
            "p",
            json!({"spec": {"volumes": [
            {"name": "a", "configMap": {"name": "1"}},
            {"name": "c", "configMap": {"name": 1}},
            {"name": "d", "configMap": {"name": 2}}]}}),
        );
        let mut rs = vec![cm, p2, pod];
        run(&mut rs).expect("nameref");
        assert_eq!(
            at(&rs[2], "/spec/volumes"),
            &json!([
                {"name": "a", "configMap": {"name": "10"}},
                {"name": "c", "configMap": {"name": 10}},
                {"name": "d", "configMap": {"name": "p-2"}}])
        );
    }

    /// kustomize's TestMultibasesWithConflict: overlay a adds its own
    /// ServiceAccount `serviceaccount` next to the base's, and both end
    /// alike enough for the base's RoleBinding. The whole message, dumps
    /// included, is kubectl kustomize's.
    #[test]
    fn ambiguity_is_reported_like_kustomize() {
        let rbac_v1beta1 = "rbac.authorization.k8s.io/v1beta1";
        let role_ref =
            json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "role"});
        let subjects = json!([{"kind": "ServiceAccount", "name": "serviceaccount"}]);
        let base = || {
            let mut rs = vec![
                obj("v1", "ServiceAccount", "serviceaccount", json!({})),
                obj(
                    rbac_v1beta1,
                    "RoleBinding",
                    "rolebinding",
                    json!({"roleRef": role_ref, "subjects": subjects}),
                ),
                obj(
                    rbac_v1beta1,
                    "ClusterRoleBinding",
                    "rolebinding",
                    json!({"roleRef": role_ref, "subjects": subjects}),
                ),
                obj(
                    "rbac.authorization.k8s.io/v1",
                    "ClusterRole",
                    "role",
                    json!({"rules": [
                    {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "watch", "list"]}]}),
                ),
            ];
            for r in rs.iter_mut() {
                prefix(r, "pfx-");
                suffix(r, "-sfx");
            }
            rs
        };
        let mut a = vec![obj("v1", "ServiceAccount", "serviceaccount", json!({}))];
        a.extend(base());
        let mut b = base();
        for r in a.iter_mut() {
            prefix(r, "a-");
            suffix(r, "-suffixA");
        }
        for r in b.iter_mut() {
            prefix(r, "b-");
            suffix(r, "-suffixB");
        }
        let mut rs = a;
        rs.extend(b);
        let e = run(&mut rs).unwrap_err();
        let expected = r#"updating name reference in 'subjects' field of 'RoleBinding.v1beta1.rbac.authorization.k8s.io/a-pfx-rolebinding-sfx-suffixA.[noNs]': considering field 'subjects' of object RoleBinding.v1beta1.rbac.authorization.k8s.io/a-pfx-rolebinding-sfx-suffixA.[noNs]: found multiple possible referrals: ServiceAccount.v1.[noGrp]/a-serviceaccount-suffixA.[noNs], ServiceAccount.v1.[noGrp]/a-pfx-serviceaccount-sfx-suffixA.[noNs]

**** Too many possible referral targets to referrer:
apiVersion: rbac.authorization.k8s.io/v1beta1
kind: RoleBinding
metadata:
  annotations:
    internal.config.kubernetes.io/prefixes: pfx-,a-
    internal.config.kubernetes.io/previousKinds: RoleBinding,RoleBinding,RoleBinding,RoleBinding
    internal.config.kubernetes.io/previousNames: rolebinding,pfx-rolebinding,pfx-rolebinding-sfx,a-pfx-rolebinding-sfx
    internal.config.kubernetes.io/previousNamespaces: default,default,default,default
    internal.config.kubernetes.io/suffixes: -sfx,-suffixA
  name: a-pfx-rolebinding-sfx-suffixA
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: role
subjects:
- kind: ServiceAccount
  name: serviceaccount

--- possible referral 0:
apiVersion: v1
kind: ServiceAccount
metadata:
  annotations:
    internal.config.kubernetes.io/prefixes: a-
    internal.config.kubernetes.io/previousKinds: ServiceAccount,ServiceAccount
    internal.config.kubernetes.io/previousNames: serviceaccount,a-serviceaccount
    internal.config.kubernetes.io/previousNamespaces: default,default
    internal.config.kubernetes.io/suffixes: -suffixA
  name: a-serviceaccount-suffixA

--- possible referral 1:
apiVersion: v1
kind: ServiceAccount
metadata:
  annotations:
    internal.config.kubernetes.io/prefixes: pfx-,a-
    internal.config.kubernetes.io/previousKinds: ServiceAccount,ServiceAccount,ServiceAccount,ServiceAccount
    internal.config.kubernetes.io/previousNames: serviceaccount,pfx-serviceaccount,pfx-serviceaccount-sfx,a-pfx-serviceaccount-sfx
    internal.config.kubernetes.io/previousNamespaces: default,default,default,default
    internal.config.kubernetes.io/suffixes: -sfx,-suffixA
  name: a-pfx-serviceaccount-sfx-suffixA"#;
        assert_eq!(e.message.trim_end(), expected);
    }

    /// kustomize's TestNamedspacedServiceAccountsWithOverlap: `sa` put into
    /// namespaces a and b; a ClusterRoleBinding's subject without a
    /// namespace cannot choose between them.
    #[test]
    fn ambiguous_namespaces_are_reported_like_kustomize() {
        let mut rs = Vec::new();
        for ns in ["a", "b"] {
            let mut part = vec![
                obj("v1", "ServiceAccount", "sa", json!({})),
                obj(
                    "rbac.authorization.k8s.io/v1",
                    "ClusterRoleBinding",
                    &format!("crb-{ns}"),
                    json!({
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                "name": format!("cr-{ns}")},
                    "subjects": [{"kind": "ServiceAccount", "name": "sa"}]}),
                ),
            ];
            for r in part.iter_mut() {
                namespace(r, ns);
            }
            rs.extend(part);
        }
        let e = run(&mut rs).unwrap_err();
        let expected = r#"updating name reference in 'subjects' field of 'ClusterRoleBinding.v1.rbac.authorization.k8s.io/crb-a.[noNs]': considering field 'subjects' of object ClusterRoleBinding.v1.rbac.authorization.k8s.io/crb-a.[noNs]: found multiple possible referrals: ServiceAccount.v1.[noGrp]/sa.a, ServiceAccount.v1.[noGrp]/sa.b

**** Too many possible referral targets to referrer:
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  annotations:
    internal.config.kubernetes.io/previousKinds: ClusterRoleBinding
    internal.config.kubernetes.io/previousNames: crb-a
    internal.config.kubernetes.io/previousNamespaces: _non_namespaceable_
  name: crb-a
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cr-a
subjects:
- kind: ServiceAccount
  name: sa

--- possible referral 0:
apiVersion: v1
kind: ServiceAccount
metadata:
  annotations:
    internal.config.kubernetes.io/previousKinds: ServiceAccount
    internal.config.kubernetes.io/previousNames: sa
    internal.config.kubernetes.io/previousNamespaces: default
  name: sa
  namespace: a

--- possible referral 1:
apiVersion: v1
kind: ServiceAccount
metadata:
  annotations:
    internal.config.kubernetes.io/previousKinds: ServiceAccount
    internal.config.kubernetes.io/previousNames: sa
    internal.config.kubernetes.io/previousNamespaces: default
  name: sa
  namespace: b"#;
        assert_eq!(e.message.trim_end(), expected);
    }

    // ----- the default table -----

    #[test]
    fn default_table_matches_the_schema() {
        let table = default_table();
        let refs: Vec<BackRef> = serde_json::from_value(table).expect("schema");
        assert_eq!(refs.len(), 16);
        let n_specs: usize = refs.iter().map(|r| r.field_specs.len()).sum();
        assert_eq!(n_specs, 167);
        let cm = refs
            .iter()
            .find(|r| r.kind == "ConfigMap")
            .expect("ConfigMap");
        assert_eq!(cm.version, "v1");
        assert!(cm.field_specs.iter().any(|f| f.kind == "CronJob"
            && f.path
                == "spec/jobTemplate/spec/template/spec/volumes/projected/sources/configMap/name"));
        let ing = cm
            .field_specs
            .iter()
            .find(|f| f.kind == "Ingress")
            .expect("ingress");
        // The escaped slash is part of the annotation key.
        assert_eq!(
            split_path(&ing.path),
            vec![
                "metadata",
                "annotations",
                "nginx.ingress.kubernetes.io/fastcgi-params-configmap"
            ]
        );
        let sa = refs
            .iter()
            .find(|r| r.kind == "ServiceAccount")
            .expect("SA");
        assert!(sa
            .field_specs
            .iter()
            .any(|f| f.kind == "ClusterRoleBinding" && f.path == "subjects"));
    }

    #[test]
    fn table_is_merged_and_sorted_like_kustomize() {
        let table = json!([
            {"kind": "Deployment", "fieldSpecs": [{"kind": "HorizontalPodAutoscaler", "path": "spec/scaleTargetRef/name"}]},
            {"kind": "Foo", "group": "x.io", "fieldSpecs": [{"kind": "Bar", "path": "spec/foo"}]},
            {"kind": "ConfigMap", "version": "v1", "fieldSpecs": [{"kind": "Pod", "path": "a"}]},
            {"kind": "ServiceAccount", "version": "v1", "fieldSpecs": []},
            {"kind": "ConfigMap", "version": "v1", "fieldSpecs": [{"kind": "Pod", "path": "a"}, {"kind": "Pod", "path": "b"}]},
            {"kind": "ClusterRole", "group": "rbac.authorization.k8s.io", "fieldSpecs": []},
        ]);
        let refs = normalize(serde_json::from_value(table).expect("schema")).expect("merge");
        let kinds: Vec<&str> = refs.iter().map(|r| r.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "ServiceAccount",
                "ClusterRole",
                "ConfigMap",
                "Deployment",
                "Foo"
            ]
        );
        let paths: Vec<&str> = refs[2]
            .field_specs
            .iter()
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(paths, ["a", "b"]);
        // Normalizing again changes nothing.
        let again = normalize(refs.clone()).expect("merge");
        assert_eq!(format!("{again:?}"), format!("{refs:?}"));

        let conflict = json!([
            {"kind": "ConfigMap", "fieldSpecs": [{"kind": "Pod", "path": "a"}]},
            {"kind": "ConfigMap", "fieldSpecs": [{"kind": "Pod", "path": "a", "create": true}]},
        ]);
        let e = normalize(serde_json::from_value(conflict).expect("schema")).unwrap_err();
        assert!(e.message.contains("conflicting fieldspecs"), "{e}");
    }

    #[test]
    fn affix_histories_compare_by_their_ends() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(same_ending(&s(&["a-"]), &s(&["pfx-", "a-"])));
        assert!(!same_ending(&s(&["b-"]), &s(&["pfx-", "a-"])));
        assert!(same_ending(&s(&[]), &s(&[])));
        assert!(!same_ending(&s(&[]), &s(&["a-"])));
    }
}
