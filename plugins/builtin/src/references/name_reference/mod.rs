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
//! `configurations:` and CRD-derived entries. When these add nothing it
//! sends `defaultNameReference: true` instead, and the builtin uses the
//! default table it holds (built once per process, before the calls in the
//! fork server).
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
use kustom_api::fieldspec::{split_path, FieldSpec, TransformerConfig};
use kustom_api::{err, protocol, resource, yaml, Error, Gvk, Value};
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

mod candidates;
mod job;
mod matching;
mod rewrite;
mod table;
#[cfg(test)]
mod tests;

use crate::selecting::field_walk::walk;
use candidates::{subject_namespaces, Index, Referrer};
use job::Job;
use rewrite::role_ref_gvk;
use table::{normalize, BackRef, Config};

/// Rewrite name references in `resources` per the config's back-references.
// The signature is the dispatch table's `TransformFn`, shared with
// transformers that add or remove resources.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, _ctx: &Ctx) -> Result<(), Error> {
    fix_references(&back_refs(config)?, resources)
}

/// The config's back-references, merged as kustomize merges them.
fn back_refs(config: &Value) -> Result<Cow<'static, [BackRef]>, Error> {
    // Read from the borrowed value: the table is large, a copy is not free.
    let config = Config::deserialize(config)
        .map_err(|e| err!("invalid NameReferenceTransformer config: {e}"))?;
    match (config.default_table, config.name_reference) {
        (true, None) => Ok(Cow::Borrowed(default_back_refs())),
        (true, Some(_)) => Err(err!(
            "invalid NameReferenceTransformer config: defaultNameReference and nameReference are exclusive"
        )),
        (false, list) => Ok(Cow::Owned(normalize(list.unwrap_or_default())?)),
    }
}

/// The default table, merged and sorted (once per process).
pub(crate) fn default_back_refs() -> &'static [BackRef] {
    static TABLE: OnceLock<Vec<BackRef>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let list: Vec<BackRef> = TransformerConfig::defaults_ref()
            .name_reference
            .iter()
            .map(BackRef::from)
            .collect();
        // The default table merges (a test holds it); were it not to, the
        // calls would still see it as loaded.
        normalize(list.clone()).unwrap_or(list)
    })
}

/// The field specs of the referrers, whose objects the pass may rewrite
/// (see [`crate::reach`]).
pub(crate) fn referrer_specs(config: &Value) -> Result<Vec<FieldSpec>, Error> {
    Ok(back_refs(config)?
        .iter()
        .flat_map(|br| br.field_specs.iter().cloned())
        .collect())
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
