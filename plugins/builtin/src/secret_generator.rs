//! `SecretGenerator`: a Secret from literals, env files and files
//! (kustomize's `secretGenerator` entries and `kind: SecretGenerator`
//! configs).
//!
//! Every value is base64-encoded under `data` (kept even when empty, as
//! kustomize does); `type` defaults to `Opaque`. Build annotations as for
//! ConfigMapGenerator.

use crate::generator_common::{base64_wrapped, base_object, finish, load_data, GeneratorArgs};
use crate::Ctx;
use kustom_api::{Error, Map, Value};

/// Generate the Secret described by a `SecretGenerator` config.
pub fn generate(config: &Value, ctx: &Ctx) -> Result<Vec<Value>, Error> {
    let args = GeneratorArgs::from_config(config)?;
    let mut obj = base_object("Secret", &args)?;
    let secret_type = if args.secret_type.is_empty() {
        "Opaque"
    } else {
        args.secret_type.as_str()
    };
    let data: Map<String, Value> = load_data(&args, ctx)?
        .into_iter()
        .map(|(k, v)| (k, Value::String(base64_wrapped(&v))))
        .collect();
    if let Some(map) = obj.as_object_mut() {
        map.insert("type".into(), Value::String(secret_type.into()));
        map.insert("data".into(), Value::Object(data));
    }
    finish(&mut obj, &args);
    Ok(vec![obj])
}
