//! Shipped-builtin calls that are sent only the part of each resource they
//! can touch: a tree of patches, a namespace, labels, a deletion and a
//! generated ConfigMap gives kubectl's bytes while its CRD's schema never
//! crosses the pipe; a call whose answer goes beyond the parts it was sent
//! is made again whole and still gives kubectl's bytes.

mod support;

use support::Env;

/// A CRD whose schema is most of the tree's bytes.
fn crd(name: &str) -> String {
    let mut props = String::new();
    for i in 0..2000 {
        props.push_str(&format!(
            "                field{i}:\n                  type: string\n                  maximum: 9223372036854775807\n"
        ));
    }
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {name}.example.com
spec:
  group: example.com
  names:
    kind: {name}
    plural: {name}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
{props}"
    )
}

/// Besides the Deployment: a Namespace a patch deletes and a RoleBinding,
/// a name-reference referrer.
const OTHERS: &str = "---
apiVersion: v1
kind: Namespace
metadata:
  name: old
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: rb
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: r
subjects:
- kind: ServiceAccount
  name: default
";

/// Run `kustom build -v` on `dir`; its output and its log.
fn build(env: &Env, dir: &str) -> (String, String) {
    let out = env.kustom(&["build", "-v", dir]);
    let stdout = support::ok(&out);
    (stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A tree with two large CRDs in `base/crds.yaml`.
fn env_with_two_crds() -> Env {
    let env = Env::new();
    env.write(
        "base/crds.yaml",
        &format!("{}---\n{}", crd("alpha"), crd("beta")),
    );
    env
}

/// The CRDs' schemas were not sent: every call's input (the configs
/// included) is smaller than one of them.
fn calls_smaller_than_a_schema(log: &str) {
    let schema_bytes = crd("alpha").len();
    for line in log.lines().filter(|l| l.contains("builtin call in parts")) {
        let sent: usize = line
            .split("stdin_bytes=")
            .nth(1)
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .expect("stdin_bytes in the log");
        assert!(sent < schema_bytes, "{line}");
    }
}

fn same_as_kubectl(env: &Env, dir: &str, ours: &str) {
    let Some(theirs) = env.kubectl(&[dir]) else {
        support::skip("kubectl is not installed: the output is not compared");
        return;
    };
    assert!(theirs.status.success(), "kubectl failed on {dir}");
    assert_eq!(ours, String::from_utf8_lossy(&theirs.stdout), "{dir}");
}

#[test]
fn parts_give_kubectls_bytes() {
    let env = env_with_two_crds();
    env.write("base/app.yaml", &format!("{}{OTHERS}", support::DEPLOY));
    env.write(
        "base/kustomization.yaml",
        "resources:\n- crds.yaml\n- app.yaml\n",
    );
    env.write(
        "overlay/conversion.yaml",
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: alpha.example.com
spec:
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        service:
          name: hook
          namespace: system
",
    );
    env.write(
        "overlay/kustomization.yaml",
        "resources:
- ../base
namespace: prod
replicas:
- name: web
  count: 3
labels:
- includeSelectors: true
  pairs:
    team: a
configMapGenerator:
- name: settings
  literals:
  - k=v
patches:
- path: conversion.yaml
- patch: |-
    $patch: delete
    apiVersion: v1
    kind: Namespace
    metadata:
      name: old
- target:
    kind: Deployment
  patch: |-
    - op: add
      path: /spec/replicas
      value: 2
",
    );
    let (ours, log) = build(&env, "overlay");
    assert!(log.contains("builtin call in parts"), "{log}");
    assert!(!log.contains("made again whole"), "{log}");
    calls_smaller_than_a_schema(&log);
    assert!(!ours.contains("name: old"), "the Namespace was deleted");
    assert!(ours.contains("strategy: Webhook"));
    assert!(
        ours.contains("replicas: 3"),
        "the count after the JSON patch"
    );
    same_as_kubectl(&env, "overlay", &ours);
}

#[test]
fn an_answer_beyond_its_part_is_made_again_whole() {
    let env = Env::new();
    env.write("app/crds.yaml", &crd("alpha"));
    // The first patch renames the CRD; the second, picking it by its new
    // name, changes the schema that the first patch's part left out.
    env.write(
        "app/kustomization.yaml",
        "resources:
- crds.yaml
patches:
- options:
    allowNameChange: true
  target:
    kind: CustomResourceDefinition
    name: alpha.example.com
  patch: |-
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata:
      name: gamma.example.com
- patch: |-
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata:
      name: gamma.example.com
    spec:
      versions:
      - name: v1
        served: false
",
    );
    let (ours, log) = build(&env, "app");
    assert!(log.contains("made again whole"), "{log}");
    assert!(ours.contains("served: false"));
    same_as_kubectl(&env, "app", &ours);
}

#[test]
fn replacements_see_their_sources_and_targets_only() {
    let env = env_with_two_crds();
    env.write(
        "base/webhook.yaml",
        &format!(
            "{}---
apiVersion: v1
kind: Service
metadata:
  name: webhook-service
spec:
  ports:
  - port: 443
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: serving-cert
spec:
  dnsNames:
  - SERVICE_NAME.SERVICE_NAMESPACE.svc
  secretName: placeholder
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating
webhooks:
- name: v.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig:
    service:
      name: webhook-service
      namespace: system
",
            support::DEPLOY
        ),
    );
    env.write(
        "base/kustomization.yaml",
        "resources:\n- crds.yaml\n- webhook.yaml\n",
    );
    // kubebuilder's cert-manager wiring, after a namespace and a prefix;
    // the last replacement selects the Certificate by its prefixed name.
    let inject = |field: &str, index: u32| {
        format!(
            "- source:
    kind: Certificate
    group: cert-manager.io
    version: v1
    name: serving-cert
    fieldPath: {field}
  targets:
  - select:
      kind: ValidatingWebhookConfiguration
    fieldPaths:
    - .metadata.annotations.[cert-manager.io/inject-ca-from]
    options:
      delimiter: /
      index: {index}
      create: true
  - select:
      kind: CustomResourceDefinition
      name: alpha.example.com
    fieldPaths:
    - .metadata.annotations.[cert-manager.io/inject-ca-from]
    options:
      delimiter: /
      index: {index}
      create: true
"
        )
    };
    env.write(
        "overlay/kustomization.yaml",
        &format!(
            "resources:
- ../base
namespace: system
namePrefix: app-
replacements:
{}{}- source:
    kind: Service
    name: webhook-service
    fieldPath: .metadata.name
  targets:
  - select:
      kind: Certificate
    fieldPaths:
    - .spec.dnsNames.0
    options:
      delimiter: .
      index: 0
- source:
    kind: Deployment
  targets:
  - select:
      kind: Certificate
      name: app-serving-cert
    fieldPaths:
    - spec.secretName
",
            inject(".metadata.namespace", 0),
            inject(".metadata.name", 1)
        ),
    );
    let (ours, log) = build(&env, "overlay");
    assert!(log.contains("builtin call in parts"), "{log}");
    assert!(!log.contains("made again whole"), "{log}");
    calls_smaller_than_a_schema(&log);
    assert!(ours.contains("cert-manager.io/inject-ca-from: system/app-serving-cert"));
    assert!(ours.contains("secretName: app-"));
    same_as_kubectl(&env, "overlay", &ours);
}
