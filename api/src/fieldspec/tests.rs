//! Tests of field specs, their walker and the transformer configuration.
use super::*;
use serde_json::json;

fn spec(path: &str, create: bool) -> FieldSpec {
    FieldSpec {
        path: path.into(),
        create,
        ..Default::default()
    }
}

#[test]
fn splits_escaped_slashes() {
    assert_eq!(
        split_path("metadata/annotations/a\\/b"),
        vec!["metadata", "annotations", "a/b"]
    );
    assert_eq!(split_path("/spec/x"), vec!["spec", "x"]);
}

#[test]
fn descends_sequences_and_creates() {
    let mut obj = json!({"kind": "Pod", "spec": {"containers": [{"name": "a"}, {"name": "b"}]}});
    let mut seen = Vec::new();
    visit_fields(
        &mut obj,
        &spec("spec/containers/name", false),
        None,
        &mut |v| {
            seen.push(v.as_str().unwrap_or("").to_string());
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(seen, vec!["a", "b"]);
    visit_fields(
        &mut obj,
        &spec("metadata/labels", true),
        Some(&json!({})),
        &mut |v| {
            v.as_object_mut().unwrap().insert("x".into(), json!("y"));
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(obj["metadata"]["labels"]["x"], "y");
    // Without create, a missing field is skipped.
    let mut called = false;
    visit_fields(
        &mut obj,
        &spec("spec/nothing/here", false),
        None,
        &mut |_| {
            called = true;
            Ok(())
        },
    )
    .unwrap();
    assert!(!called);
}

#[test]
fn null_sequence_hint_becomes_empty_sequence() {
    let mut obj = serde_json::json!({"kind": "Pod", "spec": {"containers": null}});
    let mut called = 0;
    let s = spec("spec/containers[]/image", true);
    visit_fields(&mut obj, &s, Some(&Value::Null), &mut |_| {
        called += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(called, 0);
    assert_eq!(obj["spec"]["containers"], serde_json::json!([]));
    // A missing one is not created.
    let s = spec("spec/initContainers[]/image", true);
    visit_fields(&mut obj, &s, Some(&Value::Null), &mut |_| Ok(())).unwrap();
    assert!(obj["spec"].get("initContainers").is_none());
}

#[test]
fn gvk_filter() {
    let s = FieldSpec {
        kind: "Deployment".into(),
        group: "apps".into(),
        path: "spec/replicas".into(),
        ..Default::default()
    };
    assert!(s.applies_to(&Gvk::from_api_version("apps/v1", "Deployment")));
    assert!(!s.applies_to(&Gvk::from_api_version("v1", "Deployment")));
}

fn fs(kind: &str, path: &str, create: bool) -> FieldSpec {
    FieldSpec {
        kind: kind.into(),
        path: path.into(),
        create,
        ..Default::default()
    }
}

#[test]
fn merge_drops_duplicates_and_rejects_conflicts() {
    let mut list = vec![fs("", "metadata/name", false)];
    merge_field_specs(
        &mut list,
        &[
            fs("", "metadata/name", false),
            fs("Service", "spec/x", true),
        ],
    )
    .unwrap();
    assert_eq!(list.len(), 2);
    let err = merge_field_spec(&mut list, &fs("", "metadata/name", true)).unwrap_err();
    assert_eq!(err.message, "conflicting fieldspecs");
    // Asymmetric like kustomize: a kind-specific spec does not match a
    // kind-less one, but a kind-less one matches a kind-specific one.
    let mut list = vec![fs("", "metadata/name", false)];
    merge_field_spec(&mut list, &fs("Service", "metadata/name", true)).unwrap();
    assert_eq!(list.len(), 2);
    let mut list = vec![fs("Service", "metadata/name", true)];
    assert!(merge_field_spec(&mut list, &fs("", "metadata/name", false)).is_err());
}

#[test]
fn config_merge_sorts_and_conflicts_like_kustomize() {
    // The user adds a Service-only prefix spec: merged over the defaults
    // and sorted, it comes first and swallows the kind-less default when
    // this config is merged again (kustomize does that per kustomization).
    let user = TransformerConfig::from_value(&serde_json::json!({
        "namePrefix": [{"path": "metadata/name", "kind": "Service"}]
    }))
    .unwrap();
    let mut tc = TransformerConfig {
        name_prefix: vec![fs("", "metadata/name", false)],
        ..Default::default()
    };
    tc.merge(&user).unwrap();
    assert_eq!(
        tc.name_prefix,
        vec![
            fs("Service", "metadata/name", false),
            fs("", "metadata/name", false)
        ]
    );
    let mut acc = TransformerConfig::default();
    acc.merge(&tc).unwrap();
    assert_eq!(acc.name_prefix, vec![fs("Service", "metadata/name", false)]);

    // With create differing, the second merge is a conflict.
    let user = TransformerConfig::from_value(&serde_json::json!({
        "namePrefix": [{"path": "metadata/name", "kind": "Service", "create": true}]
    }))
    .unwrap();
    let mut tc = TransformerConfig {
        name_prefix: vec![fs("", "metadata/name", false)],
        ..Default::default()
    };
    tc.merge(&user).unwrap();
    let before = TransformerConfig::default();
    let mut acc = before.clone();
    let err = acc.merge(&tc).unwrap_err();
    assert_eq!(
        err.message,
        "failed to merge NamePrefix fieldSpec: conflicting fieldspecs"
    );
    assert_eq!(acc, before);
}

#[test]
fn name_references_merge_per_kind() {
    let a = TransformerConfig::from_value(&serde_json::json!({"nameReference": [
        {"kind": "Secret", "version": "v1", "fieldSpecs": [{"path": "a", "kind": "Pod"}]},
    ]}))
    .unwrap();
    let b = TransformerConfig::from_value(&serde_json::json!({"nameReference": [
        {"kind": "Secret", "version": "v1", "fieldSpecs": [{"path": "a", "kind": "Pod"}, {"path": "b"}]},
        {"kind": "ConfigMap", "version": "v1", "fieldSpecs": [{"path": "c"}]},
    ]}))
    .unwrap();
    let mut tc = a;
    tc.merge(&b).unwrap();
    // ConfigMap sorts before Secret; Secret's referrers are merged.
    let kinds: Vec<&str> = tc.name_reference.iter().map(|n| n.kind.as_str()).collect();
    assert_eq!(kinds, ["ConfigMap", "Secret"]);
    let paths: Vec<&str> = tc.name_reference[1]
        .field_specs
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(paths, ["a", "b"]);
}

#[test]
fn from_value_is_strict() {
    let err = TransformerConfig::from_value(&serde_json::json!({"bogus": []})).unwrap_err();
    assert_eq!(err.message, "json: unknown field \"bogus\"");
    let err = TransformerConfig::from_value(&serde_json::json!({
        "images": [{"path": "x", "foo": 1}]
    }))
    .unwrap_err();
    assert!(err.message.contains("unknown field \"foo\""));
    assert!(TransformerConfig::from_value(&serde_json::json!({"images": "x"})).is_err());
    assert!(TransformerConfig::from_value(&serde_json::json!({
        "images": [{"path": "x", "create": "yes"}]
    }))
    .is_err());
    let tc = TransformerConfig::from_value(&serde_json::json!({
        "labels": null,
        "replicas": [{"path": "spec/size", "kind": "Thing", "group": "x.io", "version": 1}],
    }))
    .unwrap();
    assert_eq!(tc.replicas[0].version, "1");
    assert_eq!(
        TransformerConfig::from_value(&Value::Null).unwrap(),
        TransformerConfig::default()
    );
}

#[test]
fn gvk_order() {
    let g = |k: &str, grp: &str| Gvk {
        group: grp.into(),
        version: String::new(),
        kind: k.into(),
    };
    let mut v = [
        g("", ""),
        g("ValidatingWebhookConfiguration", ""),
        g("Zebra", ""),
        g("Apple", "b.io"),
        g("Apple", "a.io"),
        g("Deployment", ""),
        g("Namespace", ""),
    ];
    v.sort_by(crate::resid::compare_gvk);
    let kinds: Vec<String> = v
        .iter()
        .map(|x| format!("{}/{}", x.kind, x.group))
        .collect();
    assert_eq!(
        kinds,
        [
            "Namespace/",
            "Deployment/",
            "Apple/a.io",
            "Apple/b.io",
            "Zebra/",
            "/",
            "ValidatingWebhookConfiguration/"
        ]
    );
}

#[test]
fn config_strings_like_go() {
    use serde_json::json;
    let cases = [
        (json!(null), ""),
        (json!("x"), "x"),
        (json!(true), "true"),
        (json!(1), "1"),
        (json!(-7), "-7"),
        (json!(1.5), "1.5"),
        (json!(3.0), "3"),
        (json!(1000000.0), "1000000"),
        (json!(0.00001), "1e-05"),
        (json!(0.0001), "0.0001"),
        (json!(12345678.9), "1.2345679e+07"),
        (json!(123456.7), "123456.7"),
        (json!(0.1), "0.1"),
        (json!(1e21), "1e+21"),
        (json!(1e20), "1e+20"),
        (json!(-2.5), "-2.5"),
        (json!(123456789012u64), "123456789012"),
    ];
    for (v, want) in cases {
        assert_eq!(config_string(&v).unwrap(), want, "{v}");
    }
    assert!(config_string(&json!([])).is_err());
    assert!(config_string(&json!({})).is_err());
}

#[test]
fn label_specs_for_labels_entries() {
    let tc = TransformerConfig {
        labels: vec![fs("Thing", "spec/labels", true)],
        common_labels: vec![
            fs("Service", "spec/selector", true),
            fs("", "metadata/labels", true),
        ],
        template_labels: vec![fs("Deployment", "spec/template/metadata/labels", true)],
        ..Default::default()
    };
    let paths = |v: Vec<FieldSpec>| v.into_iter().map(|f| f.path).collect::<Vec<_>>();
    assert_eq!(
        paths(label_field_specs(true, false, &tc).unwrap()),
        ["spec/labels", "spec/selector", "metadata/labels"]
    );
    assert_eq!(
        paths(label_field_specs(false, true, &tc).unwrap()),
        [
            "spec/labels",
            "spec/template/metadata/labels",
            "metadata/labels"
        ]
    );
    assert_eq!(
        paths(label_field_specs(false, false, &tc).unwrap()),
        ["spec/labels", "metadata/labels"]
    );
    // Custom fields come first; a conflicting one is an error.
    let custom = [fs("", "metadata/labels", false)];
    let err = label_field_specs_with(&custom, false, false, &tc).unwrap_err();
    assert_eq!(
        err.message,
        "failed to merge labels: conflicting fieldspecs"
    );
}

/// What the core's accumulator relies on to take a kustomization's
/// config as it is when it has none yet.
#[test]
fn merging_the_defaults_into_nothing_gives_the_defaults() {
    let mut merged = TransformerConfig::default();
    merged.merge(&TransformerConfig::defaults()).unwrap();
    assert_eq!(merged, TransformerConfig::defaults());
}

/// Lists that come unsorted are sorted; sorted ones stay as they are.
#[test]
fn sorting_orders_unsorted_lists_only() {
    let mut tc = TransformerConfig {
        images: vec![
            fs("StatefulSet", "spec/a", false),
            fs("Deployment", "spec/b", false),
            fs("", "spec/c", false),
            fs("Deployment", "spec/a", false),
        ],
        ..Default::default()
    };
    tc.sort_fields();
    let kinds_paths: Vec<_> = tc.images.iter().map(|f| (&*f.kind, &*f.path)).collect();
    assert_eq!(
        kinds_paths,
        [
            ("Deployment", "spec/b"),
            ("Deployment", "spec/a"),
            ("StatefulSet", "spec/a"),
            ("", "spec/c")
        ]
    );
    let before = tc.clone();
    tc.sort_fields();
    assert_eq!(tc, before);
}

#[test]
fn merging_nothing_or_an_equal_config_changes_nothing() {
    let mut merged = TransformerConfig::default();
    merged.merge(&TransformerConfig::defaults()).unwrap();
    let before = merged.clone();
    merged.merge(&before.clone()).unwrap();
    assert_eq!(merged, before);
    merged.merge(&TransformerConfig::default()).unwrap();
    assert_eq!(merged, before);
    // An equal config that is not the defaults takes the same path.
    let extra = TransformerConfig {
        images: vec![FieldSpec {
            path: "spec/image".into(),
            kind: "Custom".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    merged.merge(&extra).unwrap();
    let with_extra = merged.clone();
    assert!(with_extra.images.iter().any(|f| f.kind == "Custom"));
    merged.merge(&with_extra).unwrap();
    assert_eq!(merged, with_extra);
}

#[test]
fn defaults_match_kustomize_tables() {
    let tc = TransformerConfig::defaults();
    assert_eq!(tc.name_prefix, vec![fs("", "metadata/name", false)]);
    assert_eq!(tc.name_suffix, tc.name_prefix);
    assert_eq!(tc.namespace.len(), 3);
    // Sorted by kind order: Namespace first.
    assert_eq!(tc.namespace[0].kind, "Namespace");
    assert_eq!(tc.common_labels.len(), 32);
    assert_eq!(tc.template_labels.len(), 10);
    assert!(tc.labels.is_empty());
    assert_eq!(tc.common_annotations.len(), 9);
    assert_eq!(tc.images.len(), 4);
    assert!(tc.images.iter().all(|f| f.create && f.kind.is_empty()));
    assert_eq!(tc.replicas.len(), 4);
    assert_eq!(tc.var_reference.len(), 72);
    assert!(!tc.name_reference.is_empty());
    // The kind-less metadata spec sorts after all kind-specific ones.
    assert_eq!(
        tc.common_labels.last(),
        Some(&fs("", "metadata/labels", true))
    );
    // The defaults survive a round trip through the config schema.
    assert_eq!(TransformerConfig::from_value(&tc.to_value()).unwrap(), tc);
}
