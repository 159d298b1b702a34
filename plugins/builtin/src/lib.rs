//! The `builtin` plugin: every kustomize builtin generator and transformer,
//! one module per kind, behind the KEP exec-plugin protocol
//! (`generate` / `transform`, Resource Config on STDIN/STDOUT).
//!
//! Configs are kustomize's `apiVersion: builtin` schemas, so the objects the
//! core derives from kustomization fields are the same ones a user may list
//! under `generators:` / `transformers:`.
//!
//! Layout: `generators/` and `transformers/` hold one module per kind (and
//! what the kinds of each share); the engines they use have folders of
//! their own: `merging/` (strategic merge, JSON patch), `selecting/`
//! (patch targets, resource ids, field-path elements) and `references/`
//! (name back-references, `$(VAR)` variables). `plugin` speaks the exec
//! protocol and `ctx` is what a call knows about its kustomization;
//! `reach` tells the core which part of each resource a call can touch.

pub mod ctx;
pub mod plugin;
pub mod reach;

mod generators;
mod go_json;
mod merging;
mod references;
mod selecting;
mod transformers;

pub use ctx::Ctx;
pub use generators::helm;
pub use merging::smp;
pub use plugin::{run, run_with};
pub use selecting::target;
/// kustomize's content hash (generated-name suffix) of a resource.
pub use transformers::hash::content_hash;

use generators::{configmap_generator, iam_policy_generator, secret_generator};
use references::{name_reference, refvar};
use transformers::{
    annotations, hash, image_tag, labels, namespace, patch, patch_json6902, patch_strategic_merge,
    prefix_suffix, replacement, replicas, value_add,
};

use kustom_api::{Error, Value};

/// A generator: config in, new resources out.
pub type GenerateFn = fn(&Value, &Ctx) -> Result<Vec<Value>, Error>;
/// A transformer: config and all resources; edits, adds or removes in place.
pub type TransformFn = fn(&Value, &mut Vec<Value>, &Ctx) -> Result<(), Error>;

/// Tables the builtin builds on first use, cheapest first. A process that
/// forks builtin calls (kustom's fork server) builds them ahead of the
/// calls, once, instead of once per call.
pub const PRELOAD: &[fn()] = &[
    || {
        name_reference::default_back_refs();
    },
    || {
        kustom_api::resource::is_cluster_scoped("v1", "Namespace");
        kustom_api::resource::is_precomputed_type("v1", "ConfigMap");
    },
    || {
        kustom_api::schema::Schema::builtin();
    },
];

/// The generator for a builtin kind, if it is one.
pub fn generator(kind: &str) -> Option<GenerateFn> {
    Some(match kind {
        "ConfigMapGenerator" => configmap_generator::generate,
        "SecretGenerator" => secret_generator::generate,
        "HelmChartInflationGenerator" => helm::generate,
        "IAMPolicyGenerator" => iam_policy_generator::generate,
        _ => return None,
    })
}

/// The transformer for a builtin kind, if it is one.
pub fn transformer(kind: &str) -> Option<TransformFn> {
    Some(match kind {
        "AnnotationsTransformer" => annotations::transform,
        "HashTransformer" => hash::transform,
        "ImageTagTransformer" => image_tag::transform,
        "LabelTransformer" => labels::transform,
        "NamespaceTransformer" => namespace::transform,
        "PatchJson6902Transformer" => patch_json6902::transform,
        "PatchStrategicMergeTransformer" => patch_strategic_merge::transform,
        "PatchTransformer" => patch::transform,
        "PrefixSuffixTransformer" => prefix_suffix::transform_prefix_suffix,
        "PrefixTransformer" => prefix_suffix::transform_prefix,
        "SuffixTransformer" => prefix_suffix::transform_suffix,
        "ReplicaCountTransformer" => replicas::transform,
        "ReplacementTransformer" => replacement::transform,
        "ValueAddTransformer" => value_add::transform,
        // kustom's name for kustomize's top-level `vars` resolution, which
        // kustomize runs in-process; config: `vars:` and `fieldSpecs:`.
        "RefVarTransformer" => refvar::transform,
        // kustom's name for kustomize's back-reference fixing pass, which
        // kustomize runs in-process; config: `nameReference:` back-ref specs.
        "NameReferenceTransformer" => name_reference::transform,
        _ => return None,
    })
}
