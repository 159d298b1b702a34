//! `ConfigMapGenerator`: a ConfigMap from literals, env files and files
//! (kustomize's `configMapGenerator` entries and `kind: ConfigMapGenerator`
//! configs).
//!
//! Values that are valid UTF-8 go under `data`; others under `binaryData`,
//! base64-encoded. The result carries the generator behavior and, unless
//! disabled, the hash-suffix request as build annotations; the name suffix
//! itself is added later by `HashTransformer`.

use crate::generator_common::{base64_wrapped, base_object, finish, load_data, GeneratorArgs};
use crate::Ctx;
use kustom_api::{Error, Map, Value};

/// Generate the ConfigMap described by a `ConfigMapGenerator` config.
pub fn generate(config: &Value, ctx: &Ctx) -> Result<Vec<Value>, Error> {
    let args = GeneratorArgs::from_config(config)?;
    let mut obj = base_object("ConfigMap", &args)?;
    let mut text = Map::new();
    let mut binary = Map::new();
    for (key, value) in load_data(&args, ctx)? {
        match String::from_utf8(value) {
            Ok(s) => text.insert(key, Value::String(s)),
            Err(e) => binary.insert(key, Value::String(base64_wrapped(e.as_bytes()))),
        };
    }
    if let Some(map) = obj.as_object_mut() {
        // kustomize leaves out empty `data` / `binaryData` maps entirely.
        if !text.is_empty() {
            map.insert("data".into(), Value::Object(text));
        }
        if !binary.is_empty() {
            map.insert("binaryData".into(), Value::Object(binary));
        }
    }
    finish(&mut obj, &args);
    Ok(vec![obj])
}
