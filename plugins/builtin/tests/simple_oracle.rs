//! The simple builtin transformers against `kubectl kustomize` (v5.5.0).
//!
//! `data/simple_oracle/` holds a kustomization using namespace, namePrefix,
//! nameSuffix, commonLabels, labels (with and without selectors, templates
//! and custom fields), commonAnnotations, images and replicas, and the
//! oracle's output for it. The test builds the builtin configs from the
//! kustomization the way kustomize's target does (default field specs,
//! kustomize's transformer order), runs our transformers, drops the build
//! annotations and compares every resulting object with the oracle's.
//!
//! `data/simple_oracle_configs/` lists builtin configs directly under
//! `transformers:` (unsetOnly, setRoleBindingSubjects, the legacy
//! PrefixSuffixTransformer, numeric label values, custom field specs); the
//! test runs them in order.
//!
//! The trees have no name references, so no other transformer is involved.

use kustom_api::fieldspec::{config_field_specs, label_field_specs_with, TransformerConfig};
use kustom_api::{protocol, resource, yaml, Value};
use kustom_builtin::{ctx::LoadRestrictor, transformer, Ctx};
use serde_json::json;
use std::path::PathBuf;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

fn read_docs(dir: &str, file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{DATA}/{dir}/{file}")).expect("test data");
    yaml::parse_stream(&text).expect("test data is YAML")
}

fn specs(list: &[kustom_api::fieldspec::FieldSpec]) -> Value {
    serde_json::to_value(list).expect("field specs serialise")
}

fn builtin(kind: &str, mut body: Value) -> Value {
    body["apiVersion"] = json!("builtin");
    body["kind"] = json!(kind);
    body
}

/// The builtin configs kustomize derives from this kustomization, in the
/// order its target runs them.
fn configs(k: &Value, tc: &TransformerConfig) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(ns) = k.get("namespace") {
        out.push(builtin(
            "NamespaceTransformer",
            json!({"metadata": {"name": "ns", "namespace": ns}, "fieldSpecs": specs(&tc.namespace)}),
        ));
    }
    if let Some(p) = k.get("namePrefix") {
        out.push(builtin(
            "PrefixTransformer",
            json!({"prefix": p, "fieldSpecs": specs(&tc.name_prefix)}),
        ));
    }
    if let Some(s) = k.get("nameSuffix") {
        out.push(builtin(
            "SuffixTransformer",
            json!({"suffix": s, "fieldSpecs": specs(&tc.name_suffix)}),
        ));
    }
    for entry in k["labels"].as_array().into_iter().flatten() {
        let custom = config_field_specs(entry, "fields")
            .expect("fields")
            .unwrap_or_default();
        let selectors = entry["includeSelectors"].as_bool().unwrap_or(false);
        let templates = entry["includeTemplates"].as_bool().unwrap_or(false);
        let fs = label_field_specs_with(&custom, selectors, templates, tc).expect("label specs");
        out.push(builtin(
            "LabelTransformer",
            json!({"labels": entry["pairs"], "fieldSpecs": specs(&fs)}),
        ));
    }
    if let Some(l) = k.get("commonLabels") {
        out.push(builtin(
            "LabelTransformer",
            json!({"labels": l, "fieldSpecs": specs(&tc.common_labels)}),
        ));
    }
    if let Some(a) = k.get("commonAnnotations") {
        out.push(builtin(
            "AnnotationsTransformer",
            json!({"annotations": a, "fieldSpecs": specs(&tc.common_annotations)}),
        ));
    }
    for r in k["replicas"].as_array().into_iter().flatten() {
        out.push(builtin(
            "ReplicaCountTransformer",
            json!({"replica": r, "fieldSpecs": specs(&tc.replicas)}),
        ));
    }
    for i in k["images"].as_array().into_iter().flatten() {
        out.push(builtin(
            "ImageTagTransformer",
            json!({"imageTag": i, "fieldSpecs": specs(&tc.images)}),
        ));
    }
    out
}

/// What the core does before output: drop the build annotations, and the
/// annotations map when nothing else is left in it.
fn strip_build_annotations(obj: &mut Value) {
    for key in protocol::BUILD_ANNOTATIONS {
        resource::remove_annotation(obj, key);
    }
}

fn id(obj: &Value) -> String {
    format!(
        "{} {} {}/{}",
        resource::api_version(obj),
        resource::kind(obj),
        resource::namespace(obj),
        resource::name(obj)
    )
}

/// Run `configs` over the case's resources and compare with the oracle.
fn check(dir: &str, configs: &[Value]) {
    let mut resources = read_docs(dir, "resources.yaml");
    let expected = read_docs(dir, "expected.yaml");
    let root = PathBuf::from(format!("{DATA}/{dir}"));
    let ctx = Ctx {
        kustomization: root.join("kustomization.yaml").display().to_string(),
        root,
        load_restrictor: LoadRestrictor::RootOnly,
        remote_files: Default::default(),
        // The oracle is kubectl kustomize v5.5.0.
        version: kustom_api::KustomizeVersion::V5_5,
    };
    for config in configs {
        let kind = resource::kind(config).to_string();
        let run = transformer(&kind).expect("a builtin transformer");
        run(config, &mut resources, &ctx).unwrap_or_else(|e| panic!("{kind}: {e}"));
    }
    resources.iter_mut().for_each(strip_build_annotations);

    assert_eq!(resources.len(), expected.len());
    for want in &expected {
        let got = resources
            .iter()
            .find(|r| id(r) == id(want))
            .unwrap_or_else(|| panic!("no resource {} in our output", id(want)));
        assert_eq!(got, want, "resource {}", id(want));
    }
}

#[test]
fn kustomization_fields_match_kubectl_kustomize() {
    let kustomization = read_docs("simple_oracle", "kustomization.yaml").remove(0);
    let tc = TransformerConfig::defaults();
    check("simple_oracle", &configs(&kustomization, &tc));
}

#[test]
fn builtin_configs_match_kubectl_kustomize() {
    let configs = read_docs("simple_oracle_configs", "transformers.yaml");
    check("simple_oracle_configs", &configs);
}
