//! The default back-reference table and its merging.

use super::*;

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
fn the_default_flag_stands_for_the_default_table() {
    // What the builtin holds is what the core would have sent.
    let sent = normalize(serde_json::from_value(default_table()).expect("schema")).expect("merge");
    let held = normalize(default_back_refs().to_vec()).expect("the default table merges");
    assert_eq!(format!("{held:?}"), format!("{sent:?}"));
    assert_eq!(format!("{:?}", default_back_refs()), format!("{sent:?}"));
    let flagged = json!({"apiVersion": "builtin", "kind": "NameReferenceTransformer",
                         "metadata": {"name": "nameref"}, "defaultNameReference": true});
    assert_eq!(
        format!("{:?}", back_refs(&flagged).expect("flag")),
        format!(
            "{:?}",
            back_refs(&config_with(default_table())).expect("table")
        )
    );
    // The flag and a table together are refused, not merged.
    let mut both = config_with(default_table());
    both["defaultNameReference"] = json!(true);
    let e = back_refs(&both).unwrap_err();
    assert!(e.message.contains("exclusive"), "{e}");
}
