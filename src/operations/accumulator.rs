//! The resource accumulator of one kustomization: resources in order, an
//! index by current id for conflict checks, the merged field-spec
//! configuration and the vars collected on the way.

use kustom_api::doc::Doc;
use kustom_api::fieldspec::TransformerConfig;
use kustom_api::protocol::{GENERATOR_BEHAVIOR, NEEDS_HASH_SUFFIX, ORIGIN};
use kustom_api::{resource, Error, Value};
use std::collections::HashMap;

/// Resources accumulated so far, with what travels up with them.
#[derive(Debug, Clone, Default)]
pub struct Accumulator {
    /// The resources, in accumulation order.
    pub resources: Vec<Doc>,
    /// Field-spec configuration merged from `configurations:` / `crds:` of this tree.
    pub config: TransformerConfig,
    /// `vars:` collected from this tree.
    pub vars: Vec<Value>,
    /// Hash suffixes, name references and vars are already done (the top
    /// kustomization ran them in its last transformer call).
    pub finished: bool,
    /// A Helm chart of this tree took its `--namespace` from above the
    /// tree's top kustomization (kustomize v5.8's helmRootNamespace), so the
    /// build differs with the namespace its parents set.
    pub reads_inherited_helm_namespace: bool,
    /// (kind, name) → indexes into `resources`; rebuilt lazily when stale.
    index: HashMap<(String, String), Vec<usize>>,
    index_valid: bool,
}

impl Accumulator {
    /// An empty accumulator; its field-spec config starts empty and gets
    /// the defaults merged in by each kustomization (kustomize's order).
    pub fn new() -> Accumulator {
        Accumulator::default()
    }

    /// Replace all resources (after a plugin call).
    pub fn set_resources(&mut self, resources: Vec<Doc>) {
        self.resources = resources;
        self.index_valid = false;
    }

    fn ensure_index(&mut self) {
        if self.index_valid {
            return;
        }
        self.index.clear();
        for (i, r) in self.resources.iter().enumerate() {
            self.index
                .entry((r.kind().to_string(), r.name().to_string()))
                .or_default()
                .push(i);
        }
        self.index_valid = true;
    }

    /// Index of the resource whose current id equals `id`, if any.
    fn find_current(&mut self, id: &kustom_api::ResId) -> Option<usize> {
        self.ensure_index();
        let key = (id.gvk.kind.clone(), id.name.clone());
        self.index
            .get(&key)?
            .iter()
            .copied()
            .find(|&i| self.resources[i].id().equals(id))
    }

    /// Append one resource; an id already present is an error.
    pub fn append(&mut self, r: Doc) -> Result<(), Error> {
        let id = r.id();
        if self.find_current(&id).is_some() {
            return Err(Error::new(format!(
                "may not add resource with an already registered id: {id}"
            )));
        }
        self.index
            .entry((id.gvk.kind.clone(), id.name.clone()))
            .or_default()
            .push(self.resources.len());
        self.resources.push(r);
        Ok(())
    }

    /// Append all resources; the first id conflict is an error.
    pub fn append_all(&mut self, rs: Vec<Doc>) -> Result<(), Error> {
        self.resources.reserve(rs.len());
        for r in rs {
            self.append(r)?;
        }
        Ok(())
    }

    /// Merge another accumulator (a built sub-kustomization) into this one.
    pub fn merge(&mut self, other: Accumulator) -> Result<(), Error> {
        self.append_all(other.resources)?;
        self.config.merge(&other.config)?;
        merge_vars(&mut self.vars, other.vars)?;
        self.reads_inherited_helm_namespace |= other.reads_inherited_helm_namespace;
        Ok(())
    }

    /// Add generated resources by their generator behavior (create, merge, replace).
    /// Conflicts are reported in the words of the release `version`.
    pub fn absorb_all(
        &mut self,
        generated: Vec<Doc>,
        version: kustom_api::KustomizeVersion,
    ) -> Result<(), Error> {
        // Candidates by (kind, name) of any id a resource has had, so that a
        // large generator output is not matched against every resource.
        type Key = (String, String);
        let mut by_any_id: HashMap<Key, Vec<usize>> = HashMap::new();
        let index = |by_any_id: &mut HashMap<Key, Vec<usize>>, i: usize, r: &Doc| {
            for id in std::iter::once(r.id()).chain(r.previous_ids()) {
                let slot = by_any_id.entry((id.gvk.kind, id.name)).or_default();
                if slot.last() != Some(&i) {
                    slot.push(i);
                }
            }
        };
        for (i, r) in self.resources.iter().enumerate() {
            index(&mut by_any_id, i, r);
        }
        for r in generated {
            let id = r.id();
            // Matches by any id the existing resource had (kustomize's
            // GetMatchingResourcesByAnyId); stale candidates fail the check.
            let mut matches: Vec<usize> = by_any_id
                .get(&(id.gvk.kind.clone(), id.name.clone()))
                .into_iter()
                .flatten()
                .copied()
                .filter(|&i| {
                    let old = &self.resources[i];
                    old.id().equals(&id) || old.previous_ids().iter().any(|p| p.equals(&id))
                })
                .collect();
            matches.sort_unstable();
            matches.dedup();
            let at = self.absorb(r, id, &matches, version)?;
            index(&mut by_any_id, at, &self.resources[at]);
        }
        Ok(())
    }

    /// Add or merge one generated resource given the resources it matches;
    /// returns where it is now.
    fn absorb(
        &mut self,
        r: Doc,
        id: kustom_api::ResId,
        matches: &[usize],
        version: kustom_api::KustomizeVersion,
    ) -> Result<usize, Error> {
        let given = r.annotation(GENERATOR_BEHAVIOR).map(str::to_string);
        let behavior = r
            .annotation(GENERATOR_BEHAVIOR)
            .unwrap_or("create")
            .to_string();
        match matches {
            [] => match behavior.as_str() {
                "merge" | "replace" => Err(Error::new(format!(
                    "id {id} does not exist; cannot merge or replace"
                ))),
                _ => self.append(r).map(|()| self.resources.len() - 1),
            },
            [i] => {
                let old = self.resources[*i].value();
                let old = &old;
                let mut r = r.value();
                match behavior.as_str() {
                    "replace" => copy_merge_metadata(&mut r, old),
                    "merge" => {
                        // The merged object keeps where the original came from.
                        let origin = resource::annotation(old, ORIGIN).map(str::to_string);
                        copy_merge_metadata(&mut r, old);
                        if let Some(o) = origin {
                            resource::set_annotation(&mut r, ORIGIN, &o);
                        }
                        for field in ["data", "binaryData"] {
                            merge_string_map(&mut r, old, field);
                        }
                    }
                    _ => {
                        return Err(kustom_api::protocol::behavior_conflict(
                            &id,
                            given.as_deref(),
                            version,
                        ))
                    }
                }
                self.resources[*i] = Doc::from_value(&r);
                self.index_valid = false;
                Ok(*i)
            }
            _ => Err(Error::new(format!(
                "found multiple objects that could accept merge of {id}"
            ))),
        }
    }
}

/// kustomize's CopyMergeMetaDataFieldsFrom: `new` keeps `old`'s name and
/// namespace; labels and annotations are merged (new wins), except build
/// annotations, which come from `old` only — and the hash-suffix request
/// survives only when `new` asks for it too.
fn copy_merge_metadata(new: &mut Value, old: &Value) {
    use kustom_api::protocol::BUILD_ANNOTATIONS;
    let keep_hash = resource::annotation(new, NEEDS_HASH_SUFFIX).is_some();
    for field in ["labels", "annotations"] {
        let mut merged = resource::get_at(old, &["metadata", field])
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if let Some(mine) = resource::get_at(new, &["metadata", field]).and_then(Value::as_object) {
            for (k, v) in mine {
                if field == "annotations" && BUILD_ANNOTATIONS.contains(&k.as_str()) {
                    continue;
                }
                merged.insert(k.clone(), v.clone());
            }
        }
        if field == "annotations" && !keep_hash {
            merged.remove(NEEDS_HASH_SUFFIX);
        }
        let meta = resource::map_at_mut(new, &["metadata"]);
        if merged.is_empty() {
            meta.remove(field);
        } else {
            meta.insert(field.to_string(), Value::Object(merged));
        }
    }
    resource::set_name(new, resource::name(old));
    let ns = resource::namespace(old).to_string();
    if ns.is_empty() {
        resource::map_at_mut(new, &["metadata"]).remove("namespace");
    } else {
        resource::set_namespace(new, &ns);
    }
}

/// `new.field` = `old.field` overlaid with `new.field` (string maps).
fn merge_string_map(new: &mut Value, old: &Value, field: &str) {
    let mut merged = old
        .get(field)
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if let Some(mine) = new.get(field).and_then(Value::as_object) {
        for (k, v) in mine {
            merged.insert(k.clone(), v.clone());
        }
    }
    if let Some(obj) = new.as_object_mut() {
        if merged.is_empty() {
            obj.remove(field);
        } else {
            obj.insert(field.to_string(), Value::Object(merged));
        }
    }
}

/// Add `more` vars to `vars`; the same var name twice is an error.
pub fn merge_vars(vars: &mut Vec<Value>, more: Vec<Value>) -> Result<(), Error> {
    for v in more {
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        if vars
            .iter()
            .any(|x| x.get("name").and_then(Value::as_str) == Some(name))
        {
            return Err(Error::new(format!("var '{name}' already encountered")));
        }
        vars.push(v);
    }
    Ok(())
}
