//! Tests of the NameReferenceTransformer, with fixtures that build inputs the
//! way kustomize's renamers leave them.

use super::candidates::Info;
use super::*;
use kustom_api::ResId;
use serde_json::json;

mod errors;
mod renames;
mod scopes;
mod table;

// ----- building inputs the way kustomize's renamers leave them -----

/// An object with `extra` fields merged in.
fn obj(api_version: &str, kind: &str, name: &str, extra: Value) -> Value {
    let mut o = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}});
    if let (Some(m), Value::Object(extra)) = (o.as_object_mut(), extra) {
        for (k, v) in extra {
            if k == "metadata" {
                if let (Some(meta), Value::Object(more)) = (m["metadata"].as_object_mut(), v) {
                    meta.extend(more);
                }
            } else {
                m.insert(k, v);
            }
        }
    }
    o
}

fn append_csv(o: &mut Value, key: &str, v: &str) {
    let new = match resource::annotation(o, key) {
        Some(old) => format!("{old},{v}"),
        None => v.to_string(),
    };
    resource::set_annotation(o, key, &new);
}

/// kustomize's StorePreviousId.
fn store_prev(o: &mut Value) {
    let id = ResId::of(o);
    append_csv(o, protocol::PREVIOUS_NAMES, &id.name);
    append_csv(o, protocol::PREVIOUS_NAMESPACES, id.effective_namespace());
    append_csv(o, protocol::PREVIOUS_KINDS, &id.gvk.kind);
}

/// The namespace transformer (cluster-scoped kinds keep no namespace).
fn namespace(o: &mut Value, ns: &str) {
    store_prev(o);
    if !ResId::of(o).gvk.is_cluster_scoped() {
        resource::set_namespace(o, ns);
    }
}

fn prefix(o: &mut Value, p: &str) {
    append_csv(o, protocol::PREFIXES, p);
    store_prev(o);
    let n = format!("{p}{}", resource::name(o));
    resource::set_name(o, &n);
}

fn suffix(o: &mut Value, s: &str) {
    append_csv(o, protocol::SUFFIXES, s);
    store_prev(o);
    let n = format!("{}{s}", resource::name(o));
    resource::set_name(o, &n);
}

fn hash(o: &mut Value, h: &str) {
    store_prev(o);
    let n = format!("{}-{h}", resource::name(o));
    resource::set_name(o, &n);
}

/// The default table, read from the data file.
fn default_table() -> Value {
    let text = include_str!("../../../../../../api/src/data/fieldspecs/namereference.yaml");
    let docs = yaml::parse_stream(text).expect("namereference.yaml parses");
    match docs.as_slice() {
        [doc] => doc["nameReference"].clone(),
        _ => panic!("namereference.yaml: one document expected"),
    }
}

fn config_with(table: Value) -> Value {
    json!({"apiVersion": "builtin", "kind": "NameReferenceTransformer",
           "metadata": {"name": "nameref"}, "nameReference": table})
}

fn run(resources: &mut Vec<Value>) -> Result<(), Error> {
    transform(&config_with(default_table()), resources, &Ctx::for_tests())
}

fn find<'a>(rs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    rs.iter()
        .find(|r| resource::kind(r) == kind && resource::name(r) == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

fn at<'a>(v: &'a Value, pointer: &str) -> &'a Value {
    v.pointer(pointer)
        .unwrap_or_else(|| panic!("nothing at {pointer} in {v}"))
}
