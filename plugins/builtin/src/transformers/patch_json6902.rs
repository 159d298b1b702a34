//! PatchJson6902Transformer (`patchesJson6902:`): apply an RFC 6902 patch
//! (the engine in `merging::json_patch`) to the resources a target selects.

use crate::merging::json_patch::{apply_keeping_annotations, decode, Operation};
use crate::selecting::picks::Picks;
use crate::selecting::target::{self, Selector};
use crate::Ctx;
use kustom_api::{err, Error, Value};

/// The PatchJson6902Transformer: `target` (a name is required), and the op
/// list in `jsonOp` (JSON or YAML) or the file at `path`.
// The signature is the dispatch table's (TransformFn), shared by transformers
// that add or remove resources.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, ctx: &Ctx) -> Result<(), Error> {
    configure(config, ctx)?.apply(resources)
}

/// A configured PatchJson6902Transformer.
#[derive(Debug)]
pub struct PatchJson6902Transformer {
    selector: Value,
    ops: Vec<Operation>,
}

/// Read and check the config, loading and decoding the operations
/// (kustomize's configuration-time errors).
pub fn configure(config: &Value, ctx: &Ctx) -> Result<PatchJson6902Transformer, Error> {
    let target = config.get("target").filter(|t| !t.is_null());
    let target_name = target
        .and_then(|t| t.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if target_name.is_empty() {
        return Err(err!("must specify the target name"));
    }
    let path = string_field(config, "path")?;
    let mut json_op = string_field(config, "jsonOp")?;
    if path.is_empty() && json_op.is_empty() {
        return Err(err!("empty file path and empty jsonOp"));
    }
    if !path.is_empty() {
        if !json_op.is_empty() {
            return Err(err!("must specify a file path or jsonOp, not both"));
        }
        json_op = ctx.read_to_string(&path)?;
        if json_op.is_empty() {
            return Err(err!("patch file '{path}' empty seems to be empty"));
        }
    }
    let ops = match decode(&json_op) {
        Ok(ops) => ops,
        Err(e) => return Err(e.context(format!("decoding {json_op}"))),
    };
    if ops.is_empty() {
        return Err(err!(
            "patch appears to be empty; file={path}, JsonOp={json_op}"
        ));
    }
    Ok(PatchJson6902Transformer {
        selector: target.cloned().unwrap_or(Value::Null),
        ops,
    })
}

impl PatchJson6902Transformer {
    /// Which resources the operations apply to (see [`crate::reach`]);
    /// None if the target is not a valid selector.
    pub(crate) fn picks(&self) -> Option<Picks> {
        Picks::by_selector(&Selector::from_value(&self.selector).ok()?, None)
    }

    /// Apply the operations to every resource the target selects.
    pub fn apply(&self, resources: &mut [Value]) -> Result<(), Error> {
        for i in target::select(resources, &self.selector)? {
            apply_keeping_annotations(&mut resources[i], &self.ops)?;
        }
        Ok(())
    }
}

/// A string config field; missing and null read as "".
pub(crate) fn string_field(config: &Value, key: &str) -> Result<String, Error> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(err!("{key} must be a string")),
    }
}
