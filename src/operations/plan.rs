//! Where kustomization fields become plugin calls: each builtin field is
//! turned into a virtual resource of `apiVersion: builtin` with exactly
//! kustomize's builtin config schema, in kustomize's order. The same objects
//! work when a user lists them under `generators:` / `transformers:`.

use crate::operations::kustomization::{GeneratorOptions, Kustomization};
use crate::plugin_host::audit::ENTRY_INDEX;
use kustom_api::fieldspec::{label_field_specs_with, FieldSpec, TransformerConfig};
use kustom_api::{Error, Value};
use serde::Serialize;
use serde_json::{json, Map};

/// A builtin config object: `apiVersion: builtin`, the kind, a name, and the fields.
fn builtin(kind: &str, name: &str, fields: Value) -> Value {
    let mut obj = Map::new();
    obj.insert("apiVersion".into(), json!("builtin"));
    obj.insert("kind".into(), json!(kind));
    obj.insert("metadata".into(), json!({ "name": name }));
    if let Value::Object(f) = fields {
        for (k, v) in f {
            obj.insert(k, v);
        }
    }
    Value::Object(obj)
}

fn to_value<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap_or(Value::Null)
}

fn specs(fs: &[FieldSpec]) -> Value {
    to_value(&fs)
}

/// kustomize's MergeGlobalOptionsIntoLocal: global labels/annotations fill
/// keys the entry does not set; global flags switch on.
fn merge_options(
    local: Option<&GeneratorOptions>,
    global: Option<&GeneratorOptions>,
) -> Option<GeneratorOptions> {
    let Some(global) = global else {
        return local.cloned();
    };
    let mut out = local.cloned().unwrap_or_default();
    for (k, v) in &global.labels {
        out.labels.entry(k.clone()).or_insert_with(|| v.clone());
    }
    for (k, v) in &global.annotations {
        out.annotations
            .entry(k.clone())
            .or_insert_with(|| v.clone());
    }
    out.disable_name_suffix_hash |= global.disable_name_suffix_hash;
    out.immutable |= global.immutable;
    Some(out)
}

/// The builtin generator configs of a kustomization, in kustomize's order:
/// configMapGenerator, secretGenerator, helmCharts. `helm_namespace` is
/// the nearest ancestor's `namespace:` in the v5.8 mode, None in the v5.5
/// mode (see [`chart_namespace`]).
pub fn builtin_generators(k: &Kustomization, helm_namespace: Option<&str>) -> Vec<Value> {
    let mut out = Vec::new();
    for (kind, entries) in [
        ("ConfigMapGenerator", &k.config_map_generator),
        ("SecretGenerator", &k.secret_generator),
    ] {
        for (i, args) in entries.iter().enumerate() {
            let mut args = args.clone();
            args.options = merge_options(args.options.as_ref(), k.generator_options.as_ref());
            let mut v = builtin(kind, &args.name, to_value(&args));
            v["metadata"]["annotations"] = json!({ ENTRY_INDEX: i.to_string() });
            if !args.namespace.is_empty() {
                v["metadata"]["namespace"] = json!(args.namespace);
            }
            out.push(v);
        }
    }
    let (old_charts, old_globals) = split_helm_parameters(&k.helm_chart_inflation_generator);
    let globals = match &k.helm_globals {
        Some(g) => g.clone(),
        None => old_globals,
    };
    for (i, chart) in k.helm_charts.iter().chain(old_charts.iter()).enumerate() {
        let mut fields = globals.clone();
        if let (Some(f), Some(c)) = (fields.as_object_mut(), chart.as_object()) {
            for (key, v) in c {
                f.insert(key.clone(), v.clone());
            }
        }
        if let (Some(inherited), Some(f)) = (helm_namespace, fields.as_object_mut()) {
            if let Some(ns) = chart_namespace(k, chart, inherited) {
                f.insert("namespace".into(), json!(ns));
            }
        }
        let name = chart.get("name").and_then(Value::as_str).unwrap_or("");
        let mut v = builtin("HelmChartInflationGenerator", name, fields);
        v["metadata"]["annotations"] = json!({ ENTRY_INDEX: i.to_string() });
        out.push(v);
    }
    out
}

/// Whether a chart entry names no namespace of its own.
fn chart_lacks_namespace(chart: &Value) -> bool {
    match chart.get("namespace") {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(_) => false,
    }
}

/// The namespace kustomize v5.8 passes to helm for a chart that names
/// none: the kustomization's `namespace:`, else `inherited` (the nearest
/// ancestor's); None when the chart has its own or there is none
/// (kustomize v5.8.0, #5940 and #6044).
fn chart_namespace<'a>(k: &'a Kustomization, chart: &Value, inherited: &'a str) -> Option<&'a str> {
    if !chart_lacks_namespace(chart) {
        return None;
    }
    [k.namespace.as_str(), inherited]
        .into_iter()
        .find(|ns| !ns.is_empty())
}

/// Whether a chart of `k` takes its namespace from above `k` in the v5.8
/// mode: `k` names no namespace and a chart names none either (entries of
/// the old `helmChartInflationGenerator` never carry one).
pub fn helm_charts_read_inherited_namespace(k: &Kustomization) -> bool {
    k.namespace.is_empty()
        && (k.helm_charts.iter().any(chart_lacks_namespace)
            || !k.helm_chart_inflation_generator.is_empty())
}

/// kustomize's SplitHelmParameters: the deprecated `helmChartInflationGenerator`
/// entries as `helmCharts` entries, and the globals they set (last non-empty
/// `chartHome` / `helmHome` wins).
fn split_helm_parameters(old: &[Value]) -> (Vec<Value>, Value) {
    let mut charts = Vec::new();
    let mut globals = Map::new();
    for o in old {
        let mut c = Map::new();
        for (from, to) in [
            ("chartName", "name"),
            ("chartVersion", "version"),
            ("chartRepoUrl", "repo"),
            ("values", "valuesFile"),
            ("valuesLocal", "valuesInline"),
            ("valuesMerge", "valuesMerge"),
            ("releaseName", "releaseName"),
        ] {
            if let Some(v) = o.get(from).filter(|v| !v.is_null()) {
                c.insert(to.to_string(), v.clone());
            }
        }
        for (from, to) in [("helmHome", "configHome"), ("chartHome", "chartHome")] {
            if let Some(v) = o
                .get(from)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
            {
                globals.insert(to.to_string(), json!(v));
            }
        }
        charts.push(Value::Object(c));
    }
    (charts, Value::Object(globals))
}

/// The builtin transformer configs of a kustomization, in kustomize's
/// order: PatchStrategicMerge, Patch, Namespace, Prefix, Suffix, Label,
/// Annotations, PatchJson6902, ReplicaCount, ImageTag, Replacement.
///
/// With `tracking` (buildMetadata on), configs that change nothing but show
/// in transformer annotations are included too.
pub fn builtin_transformers(
    k: &Kustomization,
    tc: &TransformerConfig,
    tracking: bool,
    openapi: Option<&Value>,
) -> Result<Vec<Value>, Error> {
    let mut out = Vec::new();
    // Strategic merges follow the build's OpenAPI schema (kustomize's
    // global `openapi:` choice); kustom passes it in the patch configs.
    let with_schema = |mut v: Value| {
        if let Some(o) = openapi {
            v["openapi"] = o.clone();
        }
        v
    };
    if !k.patches_strategic_merge.is_empty() {
        out.push(with_schema(builtin(
            "PatchStrategicMergeTransformer",
            "patchesStrategicMerge",
            json!({ "paths": k.patches_strategic_merge }),
        )));
    }
    for (i, p) in k.patches.iter().enumerate() {
        out.push(with_schema(builtin(
            "PatchTransformer",
            &format!("patches-{i}"),
            to_value(p),
        )));
    }
    if !k.namespace.is_empty() {
        let mut v = builtin(
            "NamespaceTransformer",
            "namespace",
            json!({ "fieldSpecs": specs(&tc.namespace) }),
        );
        v["metadata"]["namespace"] = json!(k.namespace);
        out.push(v);
    }
    if !k.name_prefix.is_empty() {
        out.push(builtin(
            "PrefixTransformer",
            "namePrefix",
            json!({ "prefix": k.name_prefix, "fieldSpecs": specs(&tc.name_prefix) }),
        ));
    }
    if !k.name_suffix.is_empty() {
        out.push(builtin(
            "SuffixTransformer",
            "nameSuffix",
            json!({ "suffix": k.name_suffix, "fieldSpecs": specs(&tc.name_suffix) }),
        ));
    }
    for (i, label) in k.labels.iter().enumerate() {
        let mut custom: Vec<FieldSpec> = Vec::new();
        for extra in &label.field_specs {
            let spec: FieldSpec = serde_json::from_value(extra.clone())
                .map_err(|e| Error::new(format!("labels[{i}].fields: {e}")))?;
            custom.push(spec);
        }
        let fs = label_field_specs_with(
            &custom,
            label.include_selectors,
            label.include_templates,
            tc,
        )?;
        out.push(builtin(
            "LabelTransformer",
            &format!("labels-{i}"),
            json!({ "labels": label.pairs, "fieldSpecs": specs(&fs) }),
        ));
    }
    // kustomize always adds a commonLabels LabelTransformer after the
    // `labels:` ones; it only shows in transformer annotations.
    if !k.common_labels.is_empty() || (!k.labels.is_empty() && tracking) {
        out.push(builtin(
            "LabelTransformer",
            "commonLabels",
            json!({ "labels": k.common_labels, "fieldSpecs": specs(&tc.common_labels) }),
        ));
    }
    if !k.common_annotations.is_empty() {
        out.push(builtin(
            "AnnotationsTransformer",
            "commonAnnotations",
            json!({ "annotations": k.common_annotations, "fieldSpecs": specs(&tc.common_annotations) }),
        ));
    }
    for (i, p) in k.patches_json6902.iter().enumerate() {
        let mut fields = json!({});
        if let Some(t) = &p.target {
            fields["target"] = to_value(t);
        }
        if !p.path.is_empty() {
            fields["path"] = json!(p.path);
        }
        if !p.patch.is_empty() {
            fields["jsonOp"] = json!(p.patch);
        }
        out.push(builtin(
            "PatchJson6902Transformer",
            &format!("patchesJson6902-{i}"),
            fields,
        ));
    }
    for (i, r) in k.replicas.iter().enumerate() {
        out.push(builtin(
            "ReplicaCountTransformer",
            &format!("replicas-{i}"),
            json!({ "replica": to_value(r), "fieldSpecs": specs(&tc.replicas) }),
        ));
    }
    for (i, img) in k.images.iter().enumerate() {
        out.push(builtin(
            "ImageTagTransformer",
            &format!("images-{i}"),
            json!({ "imageTag": to_value(img), "fieldSpecs": specs(&tc.images) }),
        ));
    }
    if !k.replacements.is_empty() {
        out.push(builtin(
            "ReplacementTransformer",
            "replacements",
            json!({ "replacements": k.replacements }),
        ));
    }
    Ok(out)
}

/// The configs of the final, top-level pass: hash suffixes for generated
/// objects, name-reference fixing with the tree's merged back-references,
/// then `$(VAR)` resolution when the tree declares vars.
pub fn finishing_transformers(tc: &TransformerConfig, vars: &[Value]) -> Vec<Value> {
    let mut out = vec![
        builtin("HashTransformer", "hash", json!({})),
        builtin(
            "NameReferenceTransformer",
            "nameReference",
            // The builtin holds the default table itself.
            if tc.name_reference == TransformerConfig::defaults_ref().name_reference {
                json!({ "defaultNameReference": true })
            } else {
                json!({ "nameReference": to_value(&tc.name_reference) })
            },
        ),
    ];
    if !vars.is_empty() {
        out.push(builtin(
            "RefVarTransformer",
            "vars",
            json!({ "phase": "resolve", "vars": vars, "fieldSpecs": specs(&tc.var_reference) }),
        ));
    }
    out
}

/// kustomize's MergeVars step: record which resource each of one
/// kustomization's vars names, before the tree is merged upward.
pub fn var_matching(vars: &[Value]) -> Value {
    builtin(
        "RefVarTransformer",
        "vars",
        json!({ "phase": "match", "vars": vars }),
    )
}
