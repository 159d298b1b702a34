//! What a call's transformers can read or change of each resource, so that
//! the core sends each resource only in the part the call can touch
//! ([`kustom_api::sight`]) and keeps the rest of its text as it is.
//!
//! Each config kind that this module knows gives a rule; any other kind
//! (vars, generators, unknown kinds) makes the whole call see every
//! resource whole. The rules, by kind:
//! - patches (`PatchTransformer`, `PatchStrategicMergeTransformer`,
//!   `PatchJson6902Transformer`): the whole of each resource the target
//!   selector picks, or that has the patch's id now or before a rename;
//! - `HashTransformer`: the whole of each resource marked for a hash suffix;
//! - `ImageTagTransformer`: nothing of CRDs (it skips them), the whole of
//!   each resource with a `containers` or `initContainers` key anywhere,
//!   the fields its specs name of the others (none of a spec whose first
//!   key the resource does not have: it never creates a field);
//! - `NameReferenceTransformer`: the head of every resource (each may be a
//!   referral target, and an ambiguity is judged over all of them), and of
//!   each resource some referrer field spec applies to, the fields those
//!   specs name two keys deep, where a path of two keys shows its first
//!   whole (`roleRef/name` needs `roleRef`'s kind), and a RoleBinding's
//!   `subjects` (their namespaces pick candidates). An ambiguity's message
//!   shows whole resources: it makes the call again whole;
//! - field-spec transformers (namespace, labels, annotations, name prefix
//!   and suffix): the head of every resource, and the fields their specs
//!   name, two keys deep (`spec.template`), where a spec applies to the
//!   resource's current or original kind, and the label and annotation
//!   entries linked to them; binding subjects for namespaces;
//! - `ReplicaCountTransformer`: the head and the fields its specs name of
//!   each resource that has or had the replica's name (any name after a
//!   transformer that renames);
//! - `ReplacementTransformer`: the head of each resource a source or target
//!   may pick, and the fields its paths name, two keys deep. After a
//!   transformer that renames or relabels, sources and targets pick by
//!   kind, group and version alone.
//!
//! The decision is made on the resources as the call receives them. A
//! field-spec transformer can change any resource's labels, name or
//! namespace, which a later patch selector or id would see: a patch after
//! one makes the call see everything whole, and so does a hash after one
//! that may set the hash-suffix annotation.

use crate::selecting::picks::{touched, Picks, Which};
use crate::selecting::target;
use crate::transformers::{self, labels, namespace, replacement, replicas};
use crate::{references::name_reference, Ctx};
use kustom_api::fieldspec::{config_field_specs, split_path, FieldSpec};
use kustom_api::sight::Sight;
use kustom_api::{protocol, resource, Gvk, Value};

/// One config's rule.
enum Rule {
    /// A patch: what it touches of the resources it picks.
    Patch(Box<Picks>),
    /// The whole of resources marked for a hash suffix.
    Hashed,
    /// The head of all, and of referrers the fields each spec names: its
    /// map keys as [`referring_keys`] gives them (None: the whole).
    References(Vec<(FieldSpec, Option<Vec<String>>)>),
    /// The head of all and the named fields; with `subjects`, the subjects
    /// of role bindings too.
    FieldSpecs {
        specs: Vec<FieldSpec>,
        subjects: bool,
    },
    /// Images: nothing of CRDs, the whole of resources with containers
    /// anywhere, the named fields of others; each spec with its first key
    /// as it appears in JSON text (`"spec"`), None for an empty path.
    Images(Vec<(FieldSpec, Option<String>)>),
    /// Replacements: the head and the paths of what a source or target picks.
    Replacements(Vec<replacement::Side>),
    /// Replica counts: the head and the named fields of the resources with
    /// this name now or before (None: any name).
    Replicas {
        name: Option<String>,
        specs: Vec<FieldSpec>,
    },
}

/// What a call can touch, rule by rule.
pub struct Reach {
    rules: Vec<Rule>,
}

impl Reach {
    /// The reach of a transform call running `configs` in order, or None
    /// when the call must see every resource whole.
    pub fn of(configs: &[Value], ctx: &Ctx) -> Option<Reach> {
        let mut rules = Vec::with_capacity(configs.len());
        // A field-spec transformer ran before: ids and labels may change.
        let mut renames = false;
        // …and it may have set the hash-suffix annotation.
        let mut may_mark_hash = false;
        for config in configs {
            let rule = match resource::kind(config) {
                kind if !renames && transformers::patch_picks(kind).is_some() => {
                    Rule::Patch(Box::new(transformers::patch_picks(kind)?(config, ctx)?))
                }
                "HashTransformer" if !may_mark_hash => Rule::Hashed,
                "NameReferenceTransformer" => Rule::References(
                    name_reference::referrer_specs(config)
                        .ok()?
                        .into_iter()
                        .map(|fs| {
                            let keys = referring_keys(&fs.path);
                            (fs, keys)
                        })
                        .collect(),
                ),
                "NamespaceTransformer" => {
                    let Some(specs) = namespace::reach_specs(config).ok()? else {
                        continue;
                    };
                    renames = true;
                    Rule::FieldSpecs {
                        specs,
                        subjects: true,
                    }
                }
                kind @ ("LabelTransformer" | "AnnotationsTransformer") => {
                    let key = if kind == "LabelTransformer" {
                        "labels"
                    } else {
                        "annotations"
                    };
                    let entries = labels::string_map(config, key).ok()?;
                    renames = true;
                    may_mark_hash |= entries
                        .iter()
                        .any(|(k, _)| k == protocol::NEEDS_HASH_SUFFIX);
                    Rule::FieldSpecs {
                        specs: config_field_specs(config, "fieldSpecs")
                            .ok()?
                            .unwrap_or_default(),
                        subjects: false,
                    }
                }
                "ReplicaCountTransformer" => {
                    let replicas::Config { name, specs, .. } = replicas::configure(config).ok()?;
                    Rule::Replicas {
                        name: (!renames).then_some(name),
                        specs,
                    }
                }
                "ReplacementTransformer" => {
                    let t = replacement::touches(config, ctx, renames)?;
                    renames |= t.writes_ids || t.writes_labels || t.writes_annotations;
                    may_mark_hash |= t.may_mark_hash;
                    Rule::Replacements(t.sides)
                }
                "ImageTagTransformer" => Rule::Images(
                    config_field_specs(config, "fieldSpecs")
                        .ok()?
                        .unwrap_or_default()
                        .into_iter()
                        .map(|fs| {
                            let first = split_path(&fs.path).first().map(|first| {
                                format!("\"{}\"", first.split('[').next().unwrap_or(first))
                            });
                            (fs, first)
                        })
                        .collect(),
                ),
                "PrefixTransformer" | "SuffixTransformer" | "PrefixSuffixTransformer" => {
                    renames = true;
                    Rule::FieldSpecs {
                        specs: config_field_specs(config, "fieldSpecs").ok()??,
                        subjects: false,
                    }
                }
                _ => return None,
            };
            rules.push(rule);
        }
        Some(Reach { rules })
    }

    /// Whether the call sees at least the head of every resource (a
    /// field-spec transformer or name references).
    pub fn sees_every_head(&self) -> bool {
        self.rules
            .iter()
            .any(|r| matches!(r, Rule::References(_) | Rule::FieldSpecs { .. }))
    }

    /// What the call must see of a resource whose head (`apiVersion`,
    /// `kind`, `metadata`) is `head` and whose JSON text is `json`.
    pub fn sight(&self, head: &Value, json: &str) -> Sight {
        let mut sight = Sight::Nothing;
        let gvks = || {
            let now = Gvk::from_api_version(resource::api_version(head), resource::kind(head));
            let org = resource::org_id(head).gvk;
            [now, org]
        };
        for rule in &self.rules {
            match rule {
                Rule::Patch(picks) => {
                    let picked = match &picks.which {
                        Which::Selector(sel) => sel.matches(head),
                        Which::Ids(ids) => ids.iter().any(|id| target::has_id(head, id)),
                    };
                    if picked {
                        sight.widen(touched(picks, head));
                    }
                }
                Rule::Hashed => {
                    if resource::annotation(head, protocol::NEEDS_HASH_SUFFIX) == Some("enabled") {
                        return Sight::Whole;
                    }
                }
                Rule::References(specs) => {
                    sight.widen(Sight::head());
                    let gvks = gvks();
                    let mut referrer = false;
                    for (_, keys) in specs
                        .iter()
                        .filter(|(fs, _)| gvks.iter().any(|g| fs.applies_to(g)))
                    {
                        referrer = true;
                        match keys {
                            Some(keys) => sight.widen_to_path(keys),
                            None => return Sight::Whole,
                        }
                    }
                    if referrer && resource::kind(head) == "RoleBinding" {
                        sight.widen_to_path(&["subjects".to_string()]);
                    }
                }
                Rule::Images(specs) => {
                    // The transformer skips CRDs by kind, and rewrites the
                    // image of every element of any `containers` or
                    // `initContainers` sequence at any depth.
                    if resource::kind(head) == "CustomResourceDefinition" {
                        continue;
                    }
                    if json.contains("\"containers\"") || json.contains("\"initContainers\"") {
                        return Sight::Whole;
                    }
                    // It never creates a field: a spec whose first key is
                    // nowhere in the resource finds nothing there.
                    let present = specs
                        .iter()
                        .filter(|(_, first)| first.as_ref().is_none_or(|key| json.contains(key)))
                        .map(|(fs, _)| fs);
                    if !widen_to_specs(&mut sight, present, &gvks()) {
                        return Sight::Whole;
                    }
                }
                Rule::Replicas { name, specs } => {
                    let mut picked = false;
                    for fs in specs {
                        match replicas::matches(head, name.as_deref(), fs) {
                            Ok(m) => picked |= m,
                            // The call reports it; seen whole, it sees it.
                            Err(_) => return Sight::Whole,
                        }
                    }
                    if picked {
                        sight.widen(Sight::head());
                        if !widen_to_specs(&mut sight, specs, &gvks()) {
                            return Sight::Whole;
                        }
                    }
                }
                Rule::Replacements(sides) => {
                    for side in sides {
                        match side.picks(head) {
                            Ok(false) => continue,
                            Ok(true) => sight.widen(Sight::head()),
                            // The call reports it; seen whole, it sees it.
                            Err(_) => return Sight::Whole,
                        }
                        for keys in side.paths() {
                            if keys.is_empty() {
                                return Sight::Whole;
                            }
                            sight.widen_to_path(keys);
                        }
                    }
                }
                Rule::FieldSpecs { specs, subjects } => {
                    sight.widen(Sight::head());
                    if !widen_to_specs(&mut sight, specs, &gvks()) {
                        return Sight::Whole;
                    }
                    // Entries linked to the ones these specs name change
                    // with them (see `transformers::shared_entries`).
                    for path in linked_entries(head) {
                        match path {
                            Some(keys) => sight.widen_to_path(&keys),
                            None => return Sight::Whole,
                        }
                    }
                    if *subjects
                        && gvks()
                            .iter()
                            .any(|g| g.kind == "RoleBinding" || g.kind == "ClusterRoleBinding")
                    {
                        sight.widen_to_path(&["subjects".to_string()]);
                    }
                }
            }
        }
        sight
    }
}

/// The paths of the label and annotation entries that share a value in
/// `head`, as map keys (up to two: a part holds nothing deeper); None for
/// a path that does not start with a map key.
fn linked_entries(head: &Value) -> Vec<Option<Vec<String>>> {
    let Some(text) = resource::annotation(head, protocol::SHARED_ENTRIES) else {
        return Vec::new();
    };
    let Ok(Value::Array(groups)) = serde_json::from_str::<Value>(text) else {
        return vec![None];
    };
    let paths = groups.iter().flat_map(|g| {
        g.get("paths")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    });
    paths
        .map(|path| {
            let steps = path.as_array()?;
            let keys: Vec<String> = steps
                .iter()
                .take(2)
                .map_while(|s| s.as_str().map(str::to_string))
                .collect();
            (!keys.is_empty()).then_some(keys)
        })
        .collect()
}

/// Widen `sight` to the fields the `specs` that apply to one of `gvks`
/// name; false when one of them cannot be held by a part.
fn widen_to_specs<'a>(
    sight: &mut Sight,
    specs: impl IntoIterator<Item = &'a FieldSpec>,
    gvks: &[Gvk],
) -> bool {
    for fs in specs
        .into_iter()
        .filter(|fs| gvks.iter().any(|g| fs.applies_to(g)))
    {
        match map_keys(&fs.path) {
            Some(keys) => sight.widen_to_path(&keys),
            None => return false,
        }
    }
    true
}

/// The map keys a field path starts with, as far as a part is cut (two):
/// `spec/containers[]/image` starts with `spec`, `containers`. None when a
/// sequence step comes first (`[name=x]`), which no part can hold.
fn map_keys(path: &str) -> Option<Vec<String>> {
    let mut keys = Vec::new();
    for segment in split_path(path).into_iter().take(2) {
        if segment.starts_with('[') {
            return None;
        }
        let key = match segment.find('[') {
            Some(i) => segment[..i].to_string(),
            None => segment,
        };
        keys.push(key);
    }
    Some(keys)
}

/// The map keys of a referrer field a part must show: as [`map_keys`],
/// but a path of two keys or fewer shows its first whole, so that the
/// referring field's siblings are seen (`roleRef`'s `kind` and
/// `apiGroup` beside its `name`).
fn referring_keys(path: &str) -> Option<Vec<String>> {
    let mut keys = map_keys(path)?;
    if split_path(path).len() <= 2 {
        keys.truncate(1);
    }
    Some(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn head(api_version: &str, kind: &str, name: &str) -> Value {
        json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}})
    }

    fn reach(configs: &[Value]) -> Option<Reach> {
        Reach::of(configs, &Ctx::for_tests())
    }

    impl Reach {
        /// The sight of a resource that is just its head.
        fn sight_of(&self, head: &Value) -> Sight {
            self.sight(head, &head.to_string())
        }
    }

    #[test]
    fn images_skip_crds_and_see_containers_whole() {
        let r = reach(&[config(
            "ImageTagTransformer",
            json!({"imageTag": {"name": "nginx", "newTag": "2"},
                   "fieldSpecs": [{"path": "spec/template/spec/containers[]/image"}]}),
        )])
        .unwrap();
        let crd = head("apiextensions.k8s.io/v1", "CustomResourceDefinition", "x");
        assert_eq!(r.sight_of(&crd), Sight::Nothing);
        let mut pod = head("v1", "Pod", "p");
        pod["spec"] = json!({"containers": [{"image": "nginx"}]});
        assert_eq!(r.sight_of(&pod), Sight::Whole);
        let mut want = Sight::head();
        want.widen_to_path(&["spec".into(), "template".into()]);
        let mut service = head("v1", "Service", "s");
        service["spec"] = json!({"ports": [{"port": 80}]});
        assert_eq!(r.sight_of(&service), want);
        // No `spec` to walk: nothing to rewrite, nothing to see.
        let mut config_map = head("v1", "ConfigMap", "c");
        config_map["data"] = json!({"image": "nginx"});
        assert_eq!(r.sight_of(&config_map), Sight::Nothing);
    }

    fn config(kind: &str, mut body: Value) -> Value {
        body["apiVersion"] = json!("builtin");
        body["kind"] = json!(kind);
        body["metadata"]["name"] = json!("c");
        body
    }

    #[test]
    fn field_specs_and_references_see_every_head_patches_and_images_do_not() {
        let images = config(
            "ImageTagTransformer",
            json!({"imageTag": {"name": "nginx", "newTag": "2"}}),
        );
        let patch = config(
            "PatchTransformer",
            json!({"patch": "- op: add\n  path: /spec/x\n  value: 1\n",
                   "target": {"kind": "Deployment"}}),
        );
        let labels = config(
            "LabelTransformer",
            json!({"labels": {"a": "b"}, "fieldSpecs": [{"path": "metadata/labels", "create": true}]}),
        );
        let references = config("NameReferenceTransformer", json!({"nameReference": []}));
        assert!(!reach(&[images.clone(), patch.clone()])
            .unwrap()
            .sees_every_head());
        assert!(reach(&[patch.clone(), labels]).unwrap().sees_every_head());
        assert!(reach(&[images, references]).unwrap().sees_every_head());
    }

    #[test]
    fn a_patch_sees_its_targets_whole_and_nothing_else() {
        let r = reach(&[config(
            "PatchTransformer",
            json!({"patch": "- op: add\n  path: /spec/x\n  value: 1\n",
                   "target": {"kind": "Deployment", "name": "web"}}),
        )])
        .unwrap();
        assert_eq!(
            r.sight_of(&head("apps/v1", "Deployment", "web")),
            Sight::Whole
        );
        assert_eq!(
            r.sight_of(&head(
                "apiextensions.k8s.io/v1",
                "CustomResourceDefinition",
                "x"
            )),
            Sight::Nothing
        );
        // Without target, by the patch's own id, also under an earlier name.
        let r = reach(&[config(
            "PatchTransformer",
            json!({"patch": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n"}),
        )])
        .unwrap();
        let mut renamed = head("v1", "ConfigMap", "p-cm");
        renamed["metadata"]["annotations"] = json!({
            protocol::PREVIOUS_NAMES: "cm", protocol::PREVIOUS_NAMESPACES: "default",
            protocol::PREVIOUS_KINDS: "ConfigMap"});
        assert_eq!(r.sight_of(&renamed), Sight::Whole);
        assert_eq!(
            r.sight_of(&head("v1", "ConfigMap", "other")),
            Sight::Nothing
        );
    }

    #[test]
    fn field_specs_show_the_head_and_their_fields_two_keys_deep() {
        let r = reach(&[config(
            "NamespaceTransformer",
            json!({"metadata": {"namespace": "ns"}, "fieldSpecs": [
                {"path": "spec/conversion/webhook/clientConfig/service/namespace",
                 "group": "apiextensions.k8s.io", "kind": "CustomResourceDefinition"}]}),
        )])
        .unwrap();
        let mut crd = Sight::head();
        crd.widen_to_path(&["spec".into(), "conversion".into()]);
        assert_eq!(
            r.sight_of(&head(
                "apiextensions.k8s.io/v1",
                "CustomResourceDefinition",
                "x"
            )),
            crd
        );
        assert_eq!(r.sight_of(&head("v1", "Service", "s")), Sight::head());
        let mut binding = Sight::head();
        binding.widen_to_path(&["subjects".into()]);
        assert_eq!(
            r.sight_of(&head("rbac.authorization.k8s.io/v1", "RoleBinding", "b")),
            binding
        );
    }

    #[test]
    fn replica_counts_see_the_named_resources_replicas() {
        let replicas = config(
            "ReplicaCountTransformer",
            json!({"replica": {"name": "web", "count": 3}, "fieldSpecs": [
                {"path": "spec/replicas", "group": "apps", "kind": "Deployment"}]}),
        );
        let mut replicas_field = Sight::head();
        replicas_field.widen_to_path(&["spec".into(), "replicas".into()]);
        let r = reach(std::slice::from_ref(&replicas)).unwrap();
        assert_eq!(
            r.sight_of(&head("apps/v1", "Deployment", "web")),
            replicas_field
        );
        assert_eq!(
            r.sight_of(&head("apps/v1", "Deployment", "db")),
            Sight::Nothing
        );
        assert_eq!(r.sight_of(&head("v1", "Service", "web")), Sight::Nothing);
        // After a prefix the count may name the new name: any Deployment.
        let prefix = config(
            "PrefixTransformer",
            json!({"prefix": "p-", "fieldSpecs": [{"path": "metadata/name"}]}),
        );
        let r = reach(&[prefix, replicas]).unwrap();
        let mut renamed = replicas_field.clone();
        renamed.widen_to_path(&["metadata".into(), "name".into()]);
        assert_eq!(r.sight_of(&head("apps/v1", "Deployment", "db")), renamed);
    }

    #[test]
    fn a_patch_after_a_renaming_transformer_sees_everything() {
        let prefix = config(
            "PrefixTransformer",
            json!({"prefix": "p-", "fieldSpecs": [{"path": "metadata/name"}]}),
        );
        let patch = config(
            "PatchTransformer",
            json!({"patch": r#"[{"op": "add", "path": "/x", "value": 1}]"#, "target": {"kind": "Deployment"}}),
        );
        assert!(reach(&[patch.clone(), prefix.clone()]).is_some());
        assert!(reach(&[prefix, patch]).is_none());
    }

    #[test]
    fn unknown_kinds_and_bad_configs_see_everything() {
        assert!(reach(&[config("RefVarTransformer", json!({}))]).is_none());
        assert!(reach(&[config("PatchTransformer", json!({}))]).is_none());
        assert!(reach(&[
            config(
                "AnnotationsTransformer",
                json!({"annotations": {protocol::NEEDS_HASH_SUFFIX: "enabled"}, "fieldSpecs": []})
            ),
            config("HashTransformer", json!({}))
        ])
        .is_none());
    }

    #[test]
    fn references_see_all_heads_and_the_referring_fields_of_referrers() {
        let r = reach(&[config(
            "NameReferenceTransformer",
            json!({"nameReference": [
                {"kind": "ConfigMap", "version": "v1", "fieldSpecs": [
                    {"path": "spec/template/spec/volumes/configMap/name", "kind": "Deployment"}]},
                {"kind": "Role", "group": "rbac.authorization.k8s.io", "fieldSpecs": [
                    {"path": "roleRef/name", "kind": "RoleBinding"}]},
                {"kind": "Secret", "version": "v1", "fieldSpecs": [
                    {"path": "[odd]/name", "kind": "Odd"}]}]}),
        )])
        .unwrap();
        // Two keys deep: the whole pod template, nothing else of the spec.
        let mut deployment = Sight::head();
        deployment.widen_to_path(&["spec".into(), "template".into()]);
        assert_eq!(r.sight_of(&head("apps/v1", "Deployment", "d")), deployment);
        // A path of two keys shows its first whole (roleRef's kind and
        // apiGroup), and a RoleBinding's subjects go along.
        let mut binding = Sight::head();
        binding.widen_to_path(&["roleRef".into()]);
        binding.widen_to_path(&["subjects".into()]);
        let rb = head("rbac.authorization.k8s.io/v1", "RoleBinding", "b");
        assert_eq!(r.sight_of(&rb), binding);
        // A path no part can hold: the whole resource.
        assert_eq!(r.sight_of(&head("v1", "Odd", "o")), Sight::Whole);
        // Not a referrer: its head, as a possible referral target.
        assert_eq!(r.sight_of(&head("v1", "ConfigMap", "c")), Sight::head());
    }

    #[test]
    fn a_merge_patch_on_a_crd_sees_the_fields_it_names() {
        let patch = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x\nspec:\n  conversion:\n    strategy: None\n";
        let r = reach(&[config("PatchTransformer", json!({"patch": patch}))]).unwrap();
        let crd = head("apiextensions.k8s.io/v1", "CustomResourceDefinition", "x");
        let mut want = Sight::head();
        want.widen_to_path(&["spec".into(), "conversion".into()]);
        assert_eq!(r.sight_of(&crd), want);
        // Values written empty are dropped anywhere the merge walks.
        let mut with_empty = crd.clone();
        with_empty["metadata"]["annotations"] = json!({protocol::EMPTY_NULLS: "[]"});
        assert_eq!(r.sight_of(&with_empty), Sight::Whole);
        // A directive may reach anywhere.
        let directive = format!("{patch}  $retainKeys: [conversion]\n");
        let r = reach(&[config("PatchTransformer", json!({"patch": directive}))]).unwrap();
        assert_eq!(r.sight_of(&crd), Sight::Whole);
        // Other kinds have associative lists the merge normalises.
        let r = reach(&[config(
            "PatchTransformer",
            json!({"patch": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 2\n"}),
        )])
        .unwrap();
        assert_eq!(
            r.sight_of(&head("apps/v1", "Deployment", "d")),
            Sight::Whole
        );
    }

    /// Why a merge patch can be sent a CRD's part: no list in the builtin
    /// schema of the apiextensions group merges by key.
    #[test]
    fn no_crd_list_merges_by_key() {
        let schema = include_str!("../../../api/src/data/k8s_openapi_v1_21_2.txt");
        let mut in_crd = false;
        let mut checked = 0;
        for line in schema.lines() {
            if let Some(def) = line.strip_prefix("D ") {
                in_crd = def.starts_with("io.k8s.apiextensions-apiserver.");
            } else if in_crd && line.starts_with("P ") {
                checked += 1;
                assert_eq!(line.split_whitespace().count(), 3, "{line}");
            }
        }
        assert!(checked > 100);
    }

    #[test]
    fn field_paths_give_their_first_two_map_keys() {
        assert_eq!(
            map_keys("spec/containers[]/image"),
            Some(vec!["spec".to_string(), "containers".to_string()])
        );
        assert_eq!(
            map_keys("metadata/labels"),
            Some(vec!["metadata".into(), "labels".into()])
        );
        assert_eq!(map_keys("[name=x]/image"), None);
    }
}
