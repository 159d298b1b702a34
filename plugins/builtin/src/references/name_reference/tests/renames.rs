//! Whole builds' renames (prefixes, suffixes, namespaces, hashes) followed
//! into referrers, compared with `kustomize build`.

use super::*;

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
