//! RefVarTransformer against `kubectl kustomize` (v5.5.0) output.
//!
//! Each directory under `tests/refvar/` holds a kustomization tree and the
//! fixtures `gen.py` derived from it: the resources just before var
//! resolution (`input.json`), the transformer config (`config.json`) and
//! kubectl's output for the whole tree (`expected.yaml`), which the result
//! must equal as data and, through kustom's YAML writer, byte for byte.

use kustom_api::{protocol, resource, yaml, Value};
use kustom_builtin::ctx::LoadRestrictor;
use kustom_builtin::Ctx;
use serde_json::json;
use std::path::{Path, PathBuf};

const CASES: &[&str] = &["deploy_service", "configmap_key", "values"];

fn case_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/refvar")
        .join(name)
}

fn load(name: &str, file: &str) -> Value {
    let path = case_dir(name).join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

fn ctx(name: &str) -> Ctx {
    Ctx {
        root: case_dir(name),
        load_restrictor: LoadRestrictor::RootOnly,
        kustomization: "kustomization.yaml".into(),
        remote_files: Default::default(),
        // The oracle is kubectl kustomize v5.5.0.
        version: kustom_api::KustomizeVersion::V5_5,
    }
}

fn resources(v: Value) -> Vec<Value> {
    match v {
        Value::Array(items) => items,
        other => panic!("expected a list of resources, got {other}"),
    }
}

/// Drop the build annotations the core strips before output.
fn strip_build_annotations(rs: &mut [Value]) {
    for r in rs {
        for key in protocol::BUILD_ANNOTATIONS {
            resource::remove_annotation(r, key);
        }
    }
}

/// JSON equality where numbers compare by value: kubectl prints the float
/// 2500000.0 as `2500000`, which reads back as an integer.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Where `a` and `b` first differ, as a path, with both values.
fn difference(a: &Value, b: &Value, at: &str) -> String {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find(|(_, (a, b))| !same(a, b))
            .map(|(i, (a, b))| difference(a, b, &format!("{at}[{i}]")))
            .unwrap_or_default(),
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => x
            .iter()
            .find(|(k, v)| !y.get(*k).is_some_and(|w| same(v, w)))
            .map(|(k, v)| difference(v, &y[k], &format!("{at}.{k}")))
            .unwrap_or_default(),
        _ => format!("{at}: got {a}, want {b}"),
    }
}

fn assert_matches_oracle(name: &str, mut got: Vec<Value>) {
    strip_build_annotations(&mut got);
    let path = case_dir(name).join("expected.yaml");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let want = yaml::parse_stream(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(got.len(), want.len(), "{name}: resource count");
    for (g, w) in got.iter().zip(&want) {
        assert!(same(g, w), "{name}: {}", difference(g, w, ""));
    }
    assert_eq!(yaml::to_yaml_stream(&got), text, "{name}: output text");
}

fn refvar() -> kustom_builtin::TransformFn {
    kustom_builtin::transformer("RefVarTransformer").expect("RefVarTransformer is registered")
}

#[test]
fn one_call_matches_kubectl() {
    for name in CASES {
        let config = load(name, "config.json");
        let mut rs = resources(load(name, "input.json"));
        refvar()(&config, &mut rs, &ctx(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_matches_oracle(name, rs);
    }
}

#[test]
fn match_then_resolve_matches_kubectl() {
    for name in CASES {
        let config = load(name, "config.json");
        let mut rs = resources(load(name, "input.json"));
        let matching = json!({
            "apiVersion": "builtin", "kind": "RefVarTransformer",
            "metadata": {"name": "vars"},
            "phase": "match", "vars": config["vars"],
        });
        refvar()(&matching, &mut rs, &ctx(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut resolving = config.clone();
        resolving["phase"] = json!("resolve");
        refvar()(&resolving, &mut rs, &ctx(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_matches_oracle(name, rs);
    }
}
