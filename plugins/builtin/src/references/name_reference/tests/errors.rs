//! Malformed referrers and ambiguous candidates, reported as kustomize does.

use super::*;

/// Errors kustomize reports, with its wording.
#[test]
fn malformed_referrers() {
    let mut cm = obj("v1", "ConfigMap", "cm", json!({}));
    prefix(&mut cm, "p-");

    let mut dep = obj(
        "apps/v1",
        "Deployment",
        "dep",
        json!({"spec": {"template": {"spec": {
        "containers": [{"name": "c", "env": [{"name": "x", "valueFrom": 3}]}]}}}}),
    );
    prefix(&mut dep, "p-");
    let e = run(&mut vec![cm.clone(), dep]).unwrap_err();
    let path = "spec/template/spec/containers/env/valueFrom/configMapKeyRef/name";
    assert_eq!(
        e.message,
        format!(
            "updating name reference in '{path}' field of 'Deployment.v1.apps/p-dep.[noNs]': \
                 considering field '{path}' of object Deployment.v1.apps/p-dep.[noNs]: \
                 visit traversal on path: [env valueFrom configMapKeyRef name]: \
                 visit traversal on path: [valueFrom configMapKeyRef name]: \
                 expected sequence or mapping node"
        )
    );

    let mut rb = obj(
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
        "rb",
        json!({
        "subjects": [{"kind": "ServiceAccount", "name": "x", "namespace": 3}]}),
    );
    prefix(&mut rb, "p-");
    let e = run(&mut vec![cm.clone(), rb]).unwrap_err();
    assert_eq!(
        e.message,
        "Invalid Input: namespace is blank for resource \
             \"RoleBinding.v1.rbac.authorization.k8s.io/p-rb.[noNs]\"\n"
    );

    let mut rb = obj(
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
        "rb",
        json!({
        "subjects": [{"kind": "ServiceAccount", "noname": "x"}]}),
    );
    prefix(&mut rb, "p-");
    let e = run(&mut vec![cm, rb]).unwrap_err();
    assert!(
        e.message.ends_with(
            "of object RoleBinding.v1.rbac.authorization.k8s.io/p-rb.[noNs]: \
             path config error; no 'name' field in node"
        ),
        "{e}"
    );

    let mut bad = obj("v1", "ConfigMap", "cm", json!({}));
    resource::set_annotation(&mut bad, protocol::PREVIOUS_NAMES, "a,b");
    resource::set_annotation(&mut bad, protocol::PREVIOUS_NAMESPACES, "default");
    resource::set_annotation(&mut bad, protocol::PREVIOUS_KINDS, "ConfigMap,ConfigMap");
    assert!(run(&mut vec![bad]).is_err());
}

/// kustomize's TestMultibasesWithConflict: overlay a adds its own
/// ServiceAccount `serviceaccount` next to the base's, and both end
/// alike enough for the base's RoleBinding. The whole message, dumps
/// included, is kubectl kustomize's.
#[test]
fn ambiguity_is_reported_like_kustomize() {
    let rbac_v1beta1 = "rbac.authorization.k8s.io/v1beta1";
    let role_ref =
        json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "role"});
    let subjects = json!([{"kind": "ServiceAccount", "name": "serviceaccount"}]);
    let base = || {
        let mut rs = vec![
            obj("v1", "ServiceAccount", "serviceaccount", json!({})),
            obj(
                rbac_v1beta1,
                "RoleBinding",
                "rolebinding",
                json!({"roleRef": role_ref, "subjects": subjects}),
            ),
            obj(
                rbac_v1beta1,
                "ClusterRoleBinding",
                "rolebinding",
                json!({"roleRef": role_ref, "subjects": subjects}),
            ),
            obj(
                "rbac.authorization.k8s.io/v1",
                "ClusterRole",
                "role",
                json!({"rules": [
                {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "watch", "list"]}]}),
            ),
        ];
        for r in rs.iter_mut() {
            prefix(r, "pfx-");
            suffix(r, "-sfx");
        }
        rs
    };
    let mut a = vec![obj("v1", "ServiceAccount", "serviceaccount", json!({}))];
    a.extend(base());
    let mut b = base();
    for r in a.iter_mut() {
        prefix(r, "a-");
        suffix(r, "-suffixA");
    }
    for r in b.iter_mut() {
        prefix(r, "b-");
        suffix(r, "-suffixB");
    }
    let mut rs = a;
    rs.extend(b);
    let e = run(&mut rs).unwrap_err();
    let expected = r#"updating name reference in 'subjects' field of 'RoleBinding.v1beta1.rbac.authorization.k8s.io/a-pfx-rolebinding-sfx-suffixA.[noNs]': considering field 'subjects' of object RoleBinding.v1beta1.rbac.authorization.k8s.io/a-pfx-rolebinding-sfx-suffixA.[noNs]: found multiple possible referrals: ServiceAccount.v1.[noGrp]/a-serviceaccount-suffixA.[noNs], ServiceAccount.v1.[noGrp]/a-pfx-serviceaccount-sfx-suffixA.[noNs]

**** Too many possible referral targets to referrer:
apiVersion: rbac.authorization.k8s.io/v1beta1
kind: RoleBinding
metadata:
  annotations:
    internal.config.kubernetes.io/prefixes: pfx-,a-
    internal.config.kubernetes.io/previousKinds: RoleBinding,RoleBinding,RoleBinding,RoleBinding
    internal.config.kubernetes.io/previousNames: rolebinding,pfx-rolebinding,pfx-rolebinding-sfx,a-pfx-rolebinding-sfx
    internal.config.kubernetes.io/previousNamespaces: default,default,default,default
    internal.config.kubernetes.io/suffixes: -sfx,-suffixA
  name: a-pfx-rolebinding-sfx-suffixA
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: role
subjects:
- kind: ServiceAccount
  name: serviceaccount

--- possible referral 0:
apiVersion: v1
kind: ServiceAccount
metadata:
  annotations:
    internal.config.kubernetes.io/prefixes: a-
    internal.config.kubernetes.io/previousKinds: ServiceAccount,ServiceAccount
    internal.config.kubernetes.io/previousNames: serviceaccount,a-serviceaccount
    internal.config.kubernetes.io/previousNamespaces: default,default
    internal.config.kubernetes.io/suffixes: -suffixA
  name: a-serviceaccount-suffixA

--- possible referral 1:
apiVersion: v1
kind: ServiceAccount
metadata:
  annotations:
    internal.config.kubernetes.io/prefixes: pfx-,a-
    internal.config.kubernetes.io/previousKinds: ServiceAccount,ServiceAccount,ServiceAccount,ServiceAccount
    internal.config.kubernetes.io/previousNames: serviceaccount,pfx-serviceaccount,pfx-serviceaccount-sfx,a-pfx-serviceaccount-sfx
    internal.config.kubernetes.io/previousNamespaces: default,default,default,default
    internal.config.kubernetes.io/suffixes: -sfx,-suffixA
  name: a-pfx-serviceaccount-sfx-suffixA"#;
    assert_eq!(e.message.trim_end(), expected);
}

/// kustomize's TestNamedspacedServiceAccountsWithOverlap: `sa` put into
/// namespaces a and b; a ClusterRoleBinding's subject without a
/// namespace cannot choose between them.
#[test]
fn ambiguous_namespaces_are_reported_like_kustomize() {
    let mut rs = Vec::new();
    for ns in ["a", "b"] {
        let mut part = vec![
            obj("v1", "ServiceAccount", "sa", json!({})),
            obj(
                "rbac.authorization.k8s.io/v1",
                "ClusterRoleBinding",
                &format!("crb-{ns}"),
                json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                            "name": format!("cr-{ns}")},
                "subjects": [{"kind": "ServiceAccount", "name": "sa"}]}),
            ),
        ];
        for r in part.iter_mut() {
            namespace(r, ns);
        }
        rs.extend(part);
    }
    let e = run(&mut rs).unwrap_err();
    let expected = r#"updating name reference in 'subjects' field of 'ClusterRoleBinding.v1.rbac.authorization.k8s.io/crb-a.[noNs]': considering field 'subjects' of object ClusterRoleBinding.v1.rbac.authorization.k8s.io/crb-a.[noNs]: found multiple possible referrals: ServiceAccount.v1.[noGrp]/sa.a, ServiceAccount.v1.[noGrp]/sa.b

**** Too many possible referral targets to referrer:
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  annotations:
    internal.config.kubernetes.io/previousKinds: ClusterRoleBinding
    internal.config.kubernetes.io/previousNames: crb-a
    internal.config.kubernetes.io/previousNamespaces: _non_namespaceable_
  name: crb-a
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cr-a
subjects:
- kind: ServiceAccount
  name: sa

--- possible referral 0:
apiVersion: v1
kind: ServiceAccount
metadata:
  annotations:
    internal.config.kubernetes.io/previousKinds: ServiceAccount
    internal.config.kubernetes.io/previousNames: sa
    internal.config.kubernetes.io/previousNamespaces: default
  name: sa
  namespace: a

--- possible referral 1:
apiVersion: v1
kind: ServiceAccount
metadata:
  annotations:
    internal.config.kubernetes.io/previousKinds: ServiceAccount
    internal.config.kubernetes.io/previousNames: sa
    internal.config.kubernetes.io/previousNamespaces: default
  name: sa
  namespace: b"#;
    assert_eq!(e.message.trim_end(), expected);
}
