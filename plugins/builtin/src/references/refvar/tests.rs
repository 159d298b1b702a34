//! Tests of the RefVarTransformer.

use super::field_path::{lookup_field, split_field_path};
use super::substitute::Substituter;
use super::vars::{go_format_float, Var, VarValue};
use super::*;
use kustom_api::{protocol, resource, Gvk};
use serde_json::json;
use std::collections::HashMap;

fn config(vars: Value, specs: Value) -> Value {
    json!({
        "apiVersion": "builtin", "kind": "RefVarTransformer",
        "metadata": {"name": "vars"}, "vars": vars, "fieldSpecs": specs,
    })
}

fn var(name: &str, kind: &str, obj: &str, path: &str) -> Value {
    json!({"name": name, "objref": {"apiVersion": "v1", "kind": kind, "name": obj},
           "fieldref": {"fieldPath": path}})
}

fn service(name: &str, ns: Option<&str>, port: i64) -> Value {
    let mut s = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                       "spec": {"ports": [{"name": "http", "port": port, "protocol": "TCP"}]}});
    if let Some(ns) = ns {
        resource::set_namespace(&mut s, ns);
    }
    s
}

fn pod(command: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod"},
           "spec": {"containers": [{"name": "c", "command": command}]}})
}

fn pod_specs() -> Value {
    json!([{"kind": "Pod", "path": "spec/containers/command"},
           {"kind": "Pod", "path": "spec/containers/env/value"}])
}

fn substituter(values: &HashMap<String, VarValue>) -> Substituter<'_> {
    Substituter {
        values,
        used: HashMap::new(),
    }
}

fn sample_values() -> HashMap<String, VarValue> {
    HashMap::from([
        ("S".to_string(), VarValue::Str("svc".into())),
        ("I".to_string(), VarValue::Int(8080)),
        ("F".to_string(), VarValue::Float(0.75)),
        ("B".to_string(), VarValue::Bool(true)),
        ("M".to_string(), VarValue::Structured),
        ("E".to_string(), VarValue::Str(String::new())),
    ])
}

#[test]
fn whole_reference_keeps_the_value_type() {
    let values = sample_values();
    let mut s = substituter(&values);
    assert_eq!(s.expand("$(S)"), json!("svc"));
    assert_eq!(s.expand("$(I)"), json!(8080));
    assert_eq!(s.expand("$(F)"), json!(0.75));
    assert_eq!(s.expand("$(B)"), json!(true));
    assert_eq!(s.expand("$(E)"), json!(""));
    // Unknown and structured vars stay as written.
    assert_eq!(s.expand("$(NOPE)"), json!("$(NOPE)"));
    assert_eq!(s.expand("$(M)"), json!("$(M)"));
    assert_eq!(s.used.get("I"), Some(&1));
    assert!(!s.used.contains_key("M"));
    assert!(!s.used.contains_key("NOPE"));
}

#[test]
fn references_inside_strings_become_text() {
    let values = sample_values();
    let mut s = substituter(&values);
    assert_eq!(
        s.expand("http://$(S):$(I)/?r=$(F)&b=$(B)"),
        json!("http://svc:8080/?r=0.75&b=true")
    );
    assert_eq!(s.expand("$(S)$(S)"), json!("svcsvc"));
    assert_eq!(s.expand("x$(M)y$(NOPE)"), json!("x$(M)y$(NOPE)"));
    assert_eq!(s.used.get("S"), Some(&3));
}

#[test]
fn escapes_and_malformed_references() {
    let values = sample_values();
    let mut s = substituter(&values);
    let cases = [
        ("$$(S)", "$(S)"),
        ("$$$(S)", "$svc"),
        ("$$", "$"),
        ("$", "$"),
        ("a$", "a$"),
        ("cost $5", "cost $5"),
        ("$(", "$("),
        ("$(S", "$(S"),
        ("x$(S", "x$(S"),
        ("$($(S)", "$($(S)"),
        ("$()", "$()"),
        ("$(S$$x)", "$(S$$x)"),
        ("\n", "\n"),
    ];
    for (input, want) in cases {
        assert_eq!(s.expand(input), json!(want), "input {input:?}");
    }
}

#[test]
fn dollar_before_a_multibyte_character_mimics_kustomize() {
    // kubectl kustomize prints "$€" as JMOigqw= and "€$é$(FLAG)" (FLAG
    // true) as 4oKsJMODqXRydWU=: the byte after `$` is taken for a code
    // point and the invalid result is written as base64.
    let values = HashMap::from([("FLAG".to_string(), VarValue::Bool(true))]);
    let mut s = substituter(&values);
    assert_eq!(s.expand("$€"), json!("JMOigqw="));
    assert_eq!(s.expand("€$é$(FLAG)"), json!("4oKsJMODqXRydWU="));
    // Non-ASCII text without a `$` before it is untouched.
    assert_eq!(s.expand("é$(FLAG)€"), json!("étrue€"));
}

#[test]
fn floats_print_like_go() {
    let cases = [
        (0.75, "0.75"),
        (3.25159, "3.25159"),
        (123456.0, "123456"),
        (1234567.0, "1.234567e+06"),
        (2500000.5, "2.5000005e+06"),
        (1e21, "1e+21"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (2e-5, "2e-05"),
        (-1.5, "-1.5"),
        (0.0, "0"),
        (100.0, "100"),
        (1e-100, "1e-100"),
    ];
    for (f, want) in cases {
        assert_eq!(go_format_float(f), want, "{f}");
    }
}

#[test]
fn field_paths_split_like_kustomize() {
    let cases: [(&str, &[&str]); 8] = [
        ("metadata.name", &["metadata", "name"]),
        ("spec.ports[0].port", &["spec", "ports", "0", "port"]),
        ("spec.a[1][2]", &["spec", "a[1]", "2"]),
        (
            "metadata.annotations.[example.com/owner]",
            &["metadata", "annotations", "example.com/owner"],
        ),
        (
            "spec.ports.[name=a.b].port",
            &["spec", "ports", "[name=a.b]", "port"],
        ),
        ("data.a\\.b", &["data", "a.b"]),
        (".spec..x", &["spec", "x"]),
        ("spec. x ", &["spec", "x"]),
    ];
    for (path, want) in cases {
        assert_eq!(split_field_path(path), want, "{path}");
    }
}

#[test]
fn field_lookup() {
    let obj = json!({"spec": {
        "ports": [{"name": "http", "port": 80}, {"name": "metrics", "port": 9090}],
        "list": ["a", "b"],
        "nothing": null,
        "data": {"0": "zero"},
    }});
    let at = |p: &str| lookup_field(&obj, p).cloned();
    assert_eq!(at("spec.ports[1].port"), Some(json!(9090)));
    assert_eq!(at("spec.ports.[name=metrics].port"), Some(json!(9090)));
    assert_eq!(at("spec.ports.[name=].port"), Some(json!(80)));
    assert_eq!(at("spec.ports.-.name"), Some(json!("metrics")));
    assert_eq!(at("spec.list.[=b]"), Some(json!("b")));
    assert_eq!(at("spec.nothing"), Some(Value::Null));
    assert_eq!(at("spec.ports[2].port"), None);
    assert_eq!(at("spec.ports.[name=x].port"), None);
    assert_eq!(at("spec.ports.[name].port"), None);
    assert_eq!(at("spec.ports.*.port"), None);
    assert_eq!(at("spec.nothing.below"), None);
    assert_eq!(at("spec.list.name"), None);
    // A numeric part always indexes a list, never a map key.
    assert_eq!(at("spec.data.0"), None);
    // `ports[name=x]` without the dot is a (missing) key.
    assert_eq!(at("spec.ports[name=http]"), None);
}

#[test]
fn vars_decode_like_go_json() {
    let v = Var::parse(&json!({
        "Name": "X",
        "objRef": {"APIVersion": "apps/v1", "Kind": "Deployment", "name": "d", "group": "ignored"},
        "FieldRef": {"fieldpath": "spec.replicas"},
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v.name, "X");
    assert_eq!(v.gvk(), Gvk::from_api_version("apps/v1", "Deployment"));
    assert_eq!(v.field_path, "spec.replicas");
    assert_eq!(v.repr_resolving(), "{X Deployment.v1.apps {spec.replicas}}");

    // No fieldref: metadata.name; a bare version keeps an inline group.
    let v = Var::parse(&json!({"name": "Y", "objref": {"apiVersion": "v2", "group": "g", "kind": "K", "name": "n"}}))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v.gvk(), Gvk::from_api_version("g/v2", "K"));
    assert_eq!(v.repr_resolving(), "{Y K.v2.g {metadata.name}}");
    assert_eq!(v.repr_merging(), "{Y K.v2.g {}}");
    assert_eq!(v.repr_raw(), "{Y K.[noVer].g {}}");

    assert!(Var::parse(&json!({"name": 3})).is_err());
    assert!(Var::parse(&json!({"name": "Z", "objref": "x"})).is_err());
}

#[test]
fn substitutes_in_lists_maps_and_scalars_of_the_specs_fields() {
    let mut rs = vec![
        service("backend", None, 8080),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"template": {
            "metadata": {"annotations": {"a": "$(PORT)", "n": 1, "s": "svc=$(SVC)"}},
            "spec": {"containers": [
                {"name": "one", "args": ["$(SVC)", "--port=$(PORT)"],
                 "env": [{"name": "P", "value": "$(PORT)"}, {"name": "Q", "valueFrom": {}}]},
                {"name": "two"},
            ]}}}}),
    ];
    let specs = json!([
        {"kind": "Deployment", "path": "spec/template/metadata/annotations"},
        {"kind": "Deployment", "path": "spec/template/spec/containers/args"},
        {"kind": "Deployment", "path": "spec/template/spec/containers/env/value"},
        {"kind": "Deployment", "path": "spec/template/spec/containers/command"},
        {"kind": "Job", "path": "spec/template/spec/containers/args"},
    ]);
    let vars = json!([
        var("SVC", "Service", "backend", ""),
        var("PORT", "Service", "backend", "spec.ports[0].port"),
    ]);
    transform(&config(vars, specs), &mut rs, &Ctx::for_tests()).unwrap_or_else(|e| panic!("{e}"));
    let t = &rs[1]["spec"]["template"];
    assert_eq!(
        t["metadata"]["annotations"],
        json!({"a": 8080, "n": 1, "s": "svc=backend"})
    );
    let c = &t["spec"]["containers"];
    assert_eq!(c[0]["args"], json!(["backend", "--port=8080"]));
    assert_eq!(c[0]["env"][0]["value"], json!(8080));
    assert_eq!(c[0]["env"][1], json!({"name": "Q", "valueFrom": {}}));
    assert_eq!(c[1], json!({"name": "two"}));
}

#[test]
fn objref_may_use_an_earlier_name() {
    let mut svc = service("dev-backend-x", None, 80);
    resource::set_annotation(&mut svc, protocol::PREVIOUS_NAMES, "backend,dev-backend");
    resource::set_annotation(&mut svc, protocol::PREVIOUS_NAMESPACES, "default,default");
    resource::set_annotation(&mut svc, protocol::PREVIOUS_KINDS, "Service,Service");
    let mut rs = vec![svc, pod(json!(["$(SVC)"]))];
    let vars = json!([var("SVC", "Service", "backend", "")]);
    transform(&config(vars, pod_specs()), &mut rs, &Ctx::for_tests())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        rs[1]["spec"]["containers"][0]["command"],
        json!(["dev-backend-x"])
    );
}

#[test]
fn errors_read_like_kustomize() {
    let run = |vars: Value, rs: &mut Vec<Value>| {
        transform(&config(vars, pod_specs()), rs, &Ctx::for_tests())
            .err()
            .map(|e| e.message)
            .unwrap_or_default()
    };
    // An objref without apiVersion names no object (texts from kubectl kustomize).
    let mut rs = vec![service("svc", None, 80), pod(json!(["$(NOVER)"]))];
    let no_version = json!([{"name": "NOVER", "objref": {"kind": "Service", "name": "svc"}}]);
    assert_eq!(
        run(no_version, &mut rs),
        "var '{NOVER Service.[noVer].[noGrp] {metadata.name}}' cannot be mapped to a field in the set of known resources"
    );
    let missing = json!([var("MISSING", "Service", "svc", "spec.ports[1].port")]);
    assert_eq!(
        run(missing, &mut rs),
        "field specified in var '{MISSING Service.v1.[noGrp] {spec.ports[1].port}}' not found in corresponding resource"
    );
    // The alphabetically first bad var is reported.
    let two = json!([
        var("ZED", "Service", "nope", ""),
        var("ALPHA", "Service", "svc", "spec.x")
    ]);
    assert!(run(two, &mut rs).starts_with("field specified in var '{ALPHA "));
    // A sequence field must hold strings.
    let mut rs = vec![service("svc", None, 80), pod(json!(["$(SVC)", 1]))];
    assert_eq!(
        run(json!([var("SVC", "Service", "svc", "")]), &mut rs),
        "considering field 'spec/containers/command' of object Pod.v1.[noGrp]/pod.[noNs]: \
             visit traversal on path: [command]: invalid value type expect a string"
    );
    // Two objects of the same name in different namespaces.
    let mut rs = vec![service("svc", Some("a"), 1), service("svc", Some("b"), 2)];
    assert_eq!(
        run(json!([var("SVC", "Service", "svc", "")]), &mut rs),
        "found 2 resId matches for var {SVC Service.v1.[noGrp] {}} (unable to disambiguate)"
    );
}

#[test]
fn objref_namespace_narrows_the_match() {
    let ns_var = |ns: &str| {
        json!([{"name": "V", "objref": {"apiVersion": "v1", "kind": "Service", "name": "svc", "namespace": ns},
                "fieldref": {"fieldpath": "spec.ports[0].port"}}])
    };
    let mut rs = vec![
        service("svc", Some("a"), 1),
        service("svc", Some("b"), 2),
        pod(json!(["$(V)"])),
    ];
    transform(
        &config(ns_var("b"), pod_specs()),
        &mut rs,
        &Ctx::for_tests(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rs[2]["spec"]["containers"][0]["command"], json!([2]));

    // "default" stands for no namespace.
    let mut rs = vec![service("svc", None, 7), pod(json!(["$(V)"]))];
    transform(
        &config(ns_var("default"), pod_specs()),
        &mut rs,
        &Ctx::for_tests(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rs[1]["spec"]["containers"][0]["command"], json!([7]));

    // A namespace in the objref never matches a cluster-scoped object.
    let mut rs =
        vec![json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})];
    let vars = json!([{"name": "NS", "objref": {"apiVersion": "v1", "kind": "Namespace", "name": "team", "namespace": "team"}}]);
    let e = transform(&config(vars, pod_specs()), &mut rs, &Ctx::for_tests()).err();
    assert!(e.is_some_and(|e| e.message.contains("cannot be mapped")));
}

/// Two bases each declare vars naming their own `elasticsearch` Service
/// (namespaces dev and test); only matching per kustomization, as
/// kustomize does, tells them apart.
#[test]
fn match_phase_scopes_vars_to_their_kustomization() {
    let es_vars = |env: &str| {
        json!([
            var(&format!("{env}-name"), "Service", "elasticsearch", ""),
            var(
                &format!("{env}-port"),
                "Service",
                "elasticsearch",
                "spec.ports[0].port"
            )
        ])
    };
    let matching = |vars: Value| {
        json!({"apiVersion": "builtin", "kind": "RefVarTransformer", "metadata": {"name": "vars"},
               "phase": "match", "vars": vars})
    };
    let mut dev = vec![
        service("elasticsearch", Some("dev"), 9300),
        pod(json!(["$(dev-name):$(dev-port)"])),
    ];
    let mut test = vec![
        service("elasticsearch", Some("test"), 9400),
        pod(json!(["$(test-name):$(test-port)"])),
    ];
    resource::set_name(&mut test[1], "pod2");
    transform(&matching(es_vars("dev")), &mut dev, &Ctx::for_tests())
        .unwrap_or_else(|e| panic!("{e}"));
    transform(&matching(es_vars("test")), &mut test, &Ctx::for_tests())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        resource::annotation(&dev[0], protocol::REF_VAR_NAMES),
        Some(r#"["dev-name","dev-port"]"#)
    );

    let mut all: Vec<Value> = dev.into_iter().chain(test).collect();
    let mut vars = es_vars("dev");
    if let (Some(v), Some(t)) = (vars.as_array_mut(), es_vars("test").as_array()) {
        v.extend(t.iter().cloned());
    }
    // Matching everything at the end would be ambiguous…
    let mut unrecorded = all.clone();
    for r in &mut unrecorded {
        resource::remove_annotation(r, protocol::REF_VAR_NAMES);
    }
    let e = transform(
        &config(vars.clone(), pod_specs()),
        &mut unrecorded,
        &Ctx::for_tests(),
    )
    .err();
    assert!(e.is_some_and(|e| e
        .message
        .starts_with("found 2 resId matches for var {dev-name ")));
    // …and without a phase, recorded vars are not matched again.
    let mut once = all.clone();
    transform(
        &config(vars.clone(), pod_specs()),
        &mut once,
        &Ctx::for_tests(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        once[3]["spec"]["containers"][0]["command"],
        json!(["elasticsearch:9400"])
    );
    // …and the recorded matches resolve each var from its own base.
    let mut resolving = config(vars, pod_specs());
    resolving["phase"] = json!("resolve");
    transform(&resolving, &mut all, &Ctx::for_tests()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        all[1]["spec"]["containers"][0]["command"],
        json!(["elasticsearch:9300"])
    );
    assert_eq!(
        all[3]["spec"]["containers"][0]["command"],
        json!(["elasticsearch:9400"])
    );
    assert!(all
        .iter()
        .all(|r| resource::annotation(r, protocol::REF_VAR_NAMES).is_none()));
    assert_eq!(
        all[0]["metadata"],
        json!({"name": "elasticsearch", "namespace": "dev"})
    );
}

#[test]
fn match_phase_reports_ambiguity_with_the_kustomizations_vars() {
    // The text of kustomize's TestVariablesAmbiguous.
    let vars = json!([
        {"name": "elasticsearch-test-service-name",
         "objref": {"kind": "Service", "name": "elasticsearch", "apiVersion": "v1"},
         "fieldref": {"fieldpath": "metadata.name"}},
        {"name": "elasticsearch-test-protocol",
         "objref": {"kind": "Service", "name": "elasticsearch", "apiVersion": "v1"},
         "fieldref": {"fieldpath": "spec.ports[0].protocol"}},
        {"name": "elasticsearch-dev-service-name",
         "objref": {"kind": "Service", "name": "elasticsearch", "apiVersion": "v1"},
         "fieldref": {"fieldpath": "metadata.name"}},
        {"name": "elasticsearch-dev-protocol",
         "objref": {"kind": "Service", "name": "elasticsearch", "apiVersion": "v1"},
         "fieldref": {"fieldpath": "spec.ports[0].protocol"}},
    ]);
    let cfg = json!({"apiVersion": "builtin", "kind": "RefVarTransformer",
                     "metadata": {"name": "vars"}, "phase": "match", "vars": vars});
    let mut rs = vec![
        service("elasticsearch", Some("dev"), 1),
        service("elasticsearch", Some("test"), 2),
    ];
    let e = transform(&cfg, &mut rs, &Ctx::for_tests())
        .err()
        .map(|e| e.message);
    assert_eq!(
        e.as_deref(),
        Some(
            "merging vars [{elasticsearch-test-service-name Service.[noVer].[noGrp] {metadata.name}} \
                 {elasticsearch-test-protocol Service.[noVer].[noGrp] {spec.ports[0].protocol}} \
                 {elasticsearch-dev-service-name Service.[noVer].[noGrp] {metadata.name}} \
                 {elasticsearch-dev-protocol Service.[noVer].[noGrp] {spec.ports[0].protocol}}]: \
                 found 2 resId matches for var {elasticsearch-test-service-name Service.v1.[noGrp] {metadata.name}} \
                 (unable to disambiguate)"
        )
    );
}

#[test]
fn strict_resolve_needs_a_recorded_match() {
    let mut rs = vec![service("svc", None, 80), pod(json!(["$(SVC)"]))];
    let mut cfg = config(json!([var("SVC", "Service", "svc", "")]), pod_specs());
    cfg["phase"] = json!("resolve");
    let e = transform(&cfg, &mut rs, &Ctx::for_tests()).err();
    assert!(e.is_some_and(|e| e.message.contains("cannot be mapped")));
    cfg["phase"] = json!("later");
    assert!(transform(&cfg, &mut rs, &Ctx::for_tests()).is_err());
}

#[test]
fn later_specs_see_earlier_substitutions() {
    // kustomize applies the field specs one after another, so a value
    // holding a reference is expanded again by a second spec naming the
    // same field.
    let mut cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
                        "data": {"a": "$(B)-x", "b": "bee"}});
    let mut rs = vec![cm.take(), pod(json!(["$(A)"]))];
    let vars = json!([
        var("A", "ConfigMap", "cm", "data.a"),
        var("B", "ConfigMap", "cm", "data.b")
    ]);
    let once = json!([{"kind": "Pod", "path": "spec/containers/command"}]);
    let mut one = rs.clone();
    transform(&config(vars.clone(), once), &mut one, &Ctx::for_tests())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        one[1]["spec"]["containers"][0]["command"],
        json!(["$(B)-x"])
    );
    let twice = json!([{"kind": "Pod", "path": "spec/containers/command"},
                       {"version": "v1", "path": "spec/containers/command"}]);
    transform(&config(vars, twice), &mut rs, &Ctx::for_tests()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rs[1]["spec"]["containers"][0]["command"], json!(["bee-x"]));
}

#[test]
fn no_vars_changes_nothing() {
    let mut rs = vec![pod(json!(["$(X)"]))];
    let before = rs.clone();
    transform(&config(json!([]), pod_specs()), &mut rs, &Ctx::for_tests())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rs, before);
}
