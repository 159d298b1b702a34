//! Tests of the strategic merge.

use super::*;
use serde_json::json;

fn deployment(pod_spec: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
           "spec": {"template": {"spec": pod_spec}}})
}

fn pod_spec(v: &Value) -> &Value {
    &v["spec"]["template"]["spec"]
}

fn merge_builtin(dest: Value, patch: Value) -> Option<Value> {
    merge(dest, patch, Schema::builtin()).expect("merge succeeds")
}

#[test]
fn maps_merge_and_null_deletes() {
    let dest = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                      "data": {"a": "1", "b": "2"}, "keep": null});
    let patch = json!({"data": {"a": "x", "b": null, "c": "3"}, "gone": null});
    let out = merge_builtin(dest, patch).expect("kept");
    assert_eq!(out["data"], json!({"a": "x", "c": "3"}));
    // An explicit null in the target the patch does not mention stays.
    assert_eq!(out.get("keep"), Some(&Value::Null));
    assert!(out.get("gone").is_none());
}

#[test]
fn containers_merge_by_name_patch_first() {
    let dest = deployment(json!({"containers": [
        {"name": "a", "image": "a", "env": [{"name": "E1", "value": "1"}, {"name": "E2", "value": "2"}]},
        {"name": "b", "image": "b"}]}));
    let patch = deployment(json!({"containers": [
        {"name": "c", "image": "c"},
        {"name": "a", "image": "a2", "env": [{"name": "E3", "value": "3"}, {"name": "E1", "value": "one"}]}]}));
    let out = merge_builtin(dest, patch).expect("kept");
    assert_eq!(
        pod_spec(&out)["containers"],
        json!([
            {"name": "c", "image": "c"},
            {"name": "a", "image": "a2", "env": [
                {"name": "E3", "value": "3"}, {"name": "E1", "value": "one"}, {"name": "E2", "value": "2"}]},
            {"name": "b", "image": "b"}])
    );
}

#[test]
fn ports_merge_on_port_and_protocol() {
    let dest = deployment(json!({"containers": [{"name": "a", "ports": [
        {"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}]}]}));
    let patch = deployment(json!({"containers": [{"name": "a", "ports": [
        {"containerPort": 53, "protocol": "TCP"}, {"containerPort": 80, "name": "http"}]}]}));
    let out = merge_builtin(dest, patch).expect("kept");
    assert_eq!(
        pod_spec(&out)["containers"][0]["ports"],
        json!([{"containerPort": 53, "protocol": "TCP"}, {"containerPort": 80, "name": "http"},
               {"containerPort": 53, "protocol": "UDP"}])
    );
}

#[test]
fn port_with_protocol_against_port_without_is_lost() {
    // kubectl kustomize keeps the target's ports untouched here.
    let dest = deployment(json!({"containers": [{"name": "a", "ports": [
        {"containerPort": 80, "name": "x"}, {"containerPort": 90, "protocol": "UDP"}]}]}));
    let patch = deployment(json!({"containers": [{"name": "a", "ports": [
        {"containerPort": 80, "protocol": "TCP", "hostPort": 1}]}]}));
    let out = merge_builtin(dest, patch).expect("kept");
    assert_eq!(
        pod_spec(&out)["containers"][0]["ports"],
        json!([{"containerPort": 80, "name": "x"}, {"containerPort": 90, "protocol": "UDP"}])
    );
}

#[test]
fn element_and_list_directives() {
    let dest = deployment(json!({
        "containers": [{"name": "a", "image": "a"}, {"name": "b", "image": "b"}],
        "volumes": [{"name": "v1", "emptyDir": {}}]}));
    let patch = deployment(json!({
        "containers": [{"name": "a", "$patch": "replace", "image": "a9"}],
        "volumes": [{"name": "v1", "$patch": "delete"}, {"name": "v2", "configMap": {"name": "x"}}]}));
    let out = merge_builtin(dest, patch).expect("kept");
    // A replace inside a list element is undone by kustomize's merge.
    assert_eq!(
        pod_spec(&out)["containers"],
        json!([{"name": "a", "image": "a"}, {"name": "b", "image": "b"}])
    );
    assert_eq!(
        pod_spec(&out)["volumes"],
        json!([{"name": "v2", "configMap": {"name": "x"}}])
    );

    let dest = deployment(json!({"containers": [{"name": "a"}], "volumes": [{"name": "v"}]}));
    let patch = deployment(json!({
        "containers": [{"$patch": "replace"}, {"name": "z", "image": "z"}],
        "volumes": [{"$patch": "delete"}]}));
    let out = merge_builtin(dest, patch).expect("kept");
    assert_eq!(
        pod_spec(&out)["containers"],
        json!([{"name": "z", "image": "z"}])
    );
    assert!(pod_spec(&out).get("volumes").is_none());
}

#[test]
fn map_directives() {
    let dest = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
                 "selector": {"matchLabels": {"a": "b"}}}});
    let patch = json!({"spec": {"strategy": {"$patch": "replace", "type": "Recreate"},
                                "selector": {"$patch": "delete"}}});
    let out = merge_builtin(dest.clone(), patch).expect("kept");
    assert_eq!(out["spec"], json!({"strategy": {"type": "Recreate"}}));

    let e = merge(
        dest.clone(),
        json!({"spec": {"strategy": {"$patch": "weird"}}}),
        Schema::builtin(),
    )
    .expect_err("bad directive");
    assert_eq!(e.message, "unknown patch strategy 'weird'");
    // Under an added node a bad directive stays as a field.
    let out = merge_builtin(
        dest.clone(),
        json!({"spec": {"new": {"$patch": "weird", "a": 1}}}),
    )
    .expect("kept");
    assert_eq!(out["spec"]["new"], json!({"$patch": "weird", "a": 1}));
    // Delete at the top deletes the object.
    assert_eq!(merge_builtin(dest, json!({"$patch": "delete"})), None);
}

#[test]
fn scalars_replacing_quoted_strings_become_strings() {
    let dest = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
        "data": {"a": "80", "b": "x", "c": "true", "d": "multi\nline\n", "e": 3}});
    let patch = json!({"data": {"a": 8080, "b": 1, "c": false, "d": 5, "e": "7"}});
    let out = merge_builtin(dest, patch).expect("kept");
    assert_eq!(
        out["data"],
        json!({"a": "8080", "b": 1, "c": "false", "d": "5", "e": "7"})
    );
}

#[test]
fn unsupported_directives_are_plain_fields() {
    let dest = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "finalizers": ["f1", "f2"]}});
    let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["f1"], "finalizers": ["f3", "f1"]}});
    let out = merge_builtin(dest, patch).expect("kept");
    assert_eq!(out["metadata"]["finalizers"], json!(["f3", "f1", "f2"]));
    assert_eq!(
        out["metadata"]["$deleteFromPrimitiveList/finalizers"],
        json!(["f1"])
    );
}

#[test]
fn lists_without_strategy_are_replaced() {
    let dest = deployment(json!({"containers": [{"name": "a", "args": ["x", "y"]}]}));
    let patch =
        deployment(json!({"containers": [{"name": "a", "args": [{"$patch": "replace"}, "c"]}]}));
    let out = merge_builtin(dest, patch).expect("kept");
    assert_eq!(
        pod_spec(&out)["containers"][0]["args"],
        json!([{"$patch": "replace"}, "c"])
    );
    // Unknown kinds have no schema: their lists are replaced.
    let cr = json!({"apiVersion": "x.io/v1", "kind": "Thing", "metadata": {"name": "t"},
                    "spec": {"items": [{"name": "a"}, {"name": "b"}]}});
    let out = merge_builtin(cr, json!({"spec": {"items": [{"name": "c"}]}})).expect("kept");
    assert_eq!(out["spec"]["items"], json!([{"name": "c"}]));
}

#[test]
fn custom_schema_makes_lists_associative() {
    let doc = json!({"definitions": {"Thing": {
        "x-kubernetes-group-version-kind": [{"group": "x.io", "version": "v1", "kind": "Thing"}],
        "properties": {"spec": {"properties": {"items": {
            "type": "array", "items": {"type": "object"},
            "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}}}}}}});
    let schema = Schema::from_document(&doc).expect("schema");
    let cr = json!({"apiVersion": "x.io/v1", "kind": "Thing", "metadata": {"name": "t"},
                    "spec": {"items": [{"name": "a", "v": 1}, {"name": "b"}]}});
    let out = merge(
        cr,
        json!({"spec": {"items": [{"name": "a", "v": 2}, {"name": "c"}]}}),
        &schema,
    )
    .expect("merges")
    .expect("kept");
    assert_eq!(
        out["spec"]["items"],
        json!([{"name": "a", "v": 2}, {"name": "c"}, {"name": "b"}])
    );
}

#[test]
fn element_without_merge_key_quirks() {
    // A patch element without the key removes every keyed target element.
    let dest = deployment(json!({"containers": [{"name": "a"}, {"name": "b"}]}));
    let out = merge_builtin(
        dest,
        deployment(json!({"containers": [{"image": "noname"}]})),
    )
    .expect("kept");
    assert_eq!(pod_spec(&out)["containers"], json!([]));
    // A target element without the key leaves only itself.
    let dest =
        deployment(json!({"containers": [{"name": "a"}, {"image": "noname"}, {"name": "b"}]}));
    let out =
        merge_builtin(dest, deployment(json!({"containers": [{"name": "c"}]}))).expect("kept");
    assert_eq!(pod_spec(&out)["containers"], json!([{"image": "noname"}]));
    // Duplicate keys in the target: the later one wins.
    let dest = deployment(
        json!({"containers": [{"name": "a", "image": "a1"}, {"name": "a", "image": "a2"}, {"name": "b"}]}),
    );
    let out = merge_builtin(
        dest,
        deployment(json!({"containers": [{"name": "a", "image": "a3"}]})),
    )
    .expect("kept");
    assert_eq!(
        pod_spec(&out)["containers"],
        json!([{"name": "a", "image": "a2"}, {"name": "b"}])
    );
}

#[test]
fn added_lists_are_merged_with_themselves() {
    let dest = deployment(json!({"hostname": "h"}));
    let patch = deployment(json!({
        "containers": [{"$patch": "replace"}, {"name": "z", "image": "z"}],
        "volumes": [{"name": "v", "$patch": "delete"}, {"name": "w"}],
        "initContainers": [
            {"name": "i", "sub": {"$patch": "delete", "x": 1}, "sub3": null,
             "sub4": {"$patch": "replace", "z": 1}},
            {"name": "i", "image": "second"},
            {"name": "j", "ports": [{"containerPort": 1}, {"containerPort": 1, "name": "dup"}]}]}));
    let out = merge_builtin(dest, patch).expect("kept");
    let spec = pod_spec(&out);
    assert_eq!(spec["containers"], json!([{"$patch": "replace"}]));
    assert_eq!(spec["volumes"], json!([{"name": "w"}]));
    assert_eq!(
        spec["initContainers"],
        json!([{"name": "i", "image": "second"}, {"name": "j", "ports": [{"containerPort": 1, "name": "dup"}]}])
    );
}

#[test]
fn patch_elements_merge_into_first_match_only() {
    let dest =
        deployment(json!({"initContainers": [{"name": "i", "image": "orig"}, {"name": "j"}]}));
    let patch = deployment(json!({"initContainers": [
        {"name": "i", "sub": {"$patch": "delete", "x": 1}, "sub4": {"$patch": "replace", "z": 1},
         "args": [{"$patch": "delete"}]},
        {"name": "i", "image": "second"}]}));
    let out = merge_builtin(dest, patch).expect("kept");
    assert_eq!(
        pod_spec(&out)["initContainers"],
        json!([{"name": "i", "image": "orig", "sub4": {"z": 1}, "args": [{"$patch": "delete"}]}, {"name": "j"}])
    );
}

#[test]
fn kind_mismatch_is_an_error() {
    let dest = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}});
    let e = merge(dest, json!({"data": ["x"]}), Schema::builtin()).expect_err("mismatch");
    assert!(
        e.message
            .starts_with("wrong node kind: expected MappingNode but got SequenceNode"),
        "{}",
        e.message
    );
}

#[test]
fn resource_identity_is_restored() {
    let mut res = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "ns",
                     "annotations": {"config.k8s.io/id": "7", "internal.config.kubernetes.io/previousNames": "a", "x": "y"}}});
    let patch = json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "other", "namespace": "elsewhere", "annotations": {"$patch": "replace", "z": "1"}}});
    assert!(apply_to_resource(&mut res, patch, Schema::builtin()).expect("applies"));
    assert_eq!(res["kind"], "ConfigMap");
    assert_eq!(res["metadata"]["name"], "c");
    assert_eq!(res["metadata"]["namespace"], "ns");
    assert_eq!(
        res["metadata"]["annotations"],
        json!({"z": "1", "config.k8s.io/id": "7", "internal.config.kubernetes.io/previousNames": "a"})
    );
}

#[test]
fn allowed_rename_records_previous_id() {
    let mut res =
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "old"}});
    let patch = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "new",
        "annotations": {"internal.config.kubernetes.io/allowNameChange": "enabled"}}});
    assert!(apply_to_resource(&mut res, patch, Schema::builtin()).expect("applies"));
    assert_eq!(res["metadata"]["name"], "new");
    assert_eq!(res["kind"], "Deployment");
    let annos = &res["metadata"]["annotations"];
    assert_eq!(annos["internal.config.kubernetes.io/previousNames"], "old");
    assert_eq!(
        annos["internal.config.kubernetes.io/previousKinds"],
        "Deployment"
    );
    assert_eq!(
        annos["internal.config.kubernetes.io/previousNamespaces"],
        "default"
    );
}

#[test]
fn target_preparation_stringifies_metadata_maps() {
    let patch = json!({"apiVersion": "v9", "kind": "ConfigMap",
        "metadata": {"name": "c", "labels": {"n": 1, "m": true}, "annotations": null}});
    let target = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
    let p = prepare_for_target(&patch, &target);
    assert_eq!(p["apiVersion"], "v1");
    assert_eq!(p["metadata"]["labels"], json!({"n": "1", "m": "true"}));
    assert!(p["metadata"].get("annotations").is_none());
}
