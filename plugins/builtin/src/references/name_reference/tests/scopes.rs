//! Which candidates a referrer reaches: namespaces, RBAC subjects and
//! `roleRef`s, cluster scope, and many namespaces at scale.

use super::*;

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

/// Name-reference fixing grows linearly with the number of resources: four
/// times the namespaces take well under the sixteen times a quadratic
/// matching would (best of three runs each, so a busy machine's pauses do
/// not count).
#[test]
fn scales_linearly() {
    let best_of_three = |n: usize| {
        (0..3)
            .map(|_| {
                let mut rs = many_namespaces(n);
                let start = std::time::Instant::now();
                run(&mut rs).expect("nameref");
                assert_eq!(
                    at(&rs[1], "/spec/template/spec/volumes/0/configMap/name"),
                    "p-cm-h0"
                );
                start.elapsed()
            })
            .min()
            .unwrap_or_default()
    };
    let small = best_of_three(400);
    let large = best_of_three(1_600);
    assert!(
        large < small * 10,
        "400 namespaces took {small:?}, 1,600 took {large:?}: more than linear"
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
