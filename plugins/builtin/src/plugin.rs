//! The KEP protocol loop of the builtin plugin: read configs and resources
//! from STDIN, run each config in order, write the result to STDOUT.

use crate::{generator, transformer, Ctx};
use kustom_api::{protocol, resource, Error, Value};
use std::io::{Read, Write};

/// Exit status meaning "operation not supported" (KEP).
pub const EXIT_UNSUPPORTED: i32 = 127;

/// Entry point: `args` are the arguments after the program name.
pub fn run(args: Vec<String>) -> i32 {
    // Room for a small call's whole input: reading to the end from an empty
    // buffer starts with 32-byte reads and doubles (ten reads for 15 KB).
    let mut input = Vec::with_capacity(1 << 16);
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("builtin: reading stdin: {e}");
        return 1;
    }
    let ctx = Ctx::from_env();
    // The answer goes out as it is written, never held whole.
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let op = args.first().map(String::as_str).unwrap_or("");
    match call(op, input, &ctx, true, &mut stdout) {
        Ok(true) => match stdout.flush() {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("builtin: writing stdout: {e}");
                1
            }
        },
        Ok(false) => EXIT_UNSUPPORTED,
        Err(e) => {
            eprintln!("{e}");
            1
        }
    }
}

/// Run one call; `Ok(None)` means the operation is not supported for these configs.
pub fn run_with(subcommand: &str, input: &[u8], ctx: &Ctx) -> Result<Option<Vec<u8>>, Error> {
    let mut out = Vec::new();
    let supported = call(subcommand, input.to_vec(), ctx, false, &mut out)?;
    Ok(supported.then_some(out))
}

/// One call, its answer written to `out`; `Ok(false)` means the operation
/// is not supported for these configs. `process_ends`: the process exits
/// right after it, so the resources are not freed node by node (a tenth of
/// a large call's time). The input is freed once read: the process's peak
/// is its resources, not them plus their text.
fn call(
    subcommand: &str,
    input: Vec<u8>,
    ctx: &Ctx,
    process_ends: bool,
    out: &mut impl Write,
) -> Result<bool, Error> {
    let docs = protocol::read_stream(&input)?;
    drop(input);
    let write_error = |e: std::io::Error| Error::new(format!("builtin: writing stdout: {e}"));
    // The leading documents of group `builtin` are this call's configs.
    let n_configs = docs
        .iter()
        .take_while(|d| resource::api_version(d) == "builtin")
        .count();
    let mut docs = docs;
    let resources = docs.split_off(n_configs);
    let configs = docs;
    match subcommand {
        "generate" => {
            let mut made = Vec::new();
            for config in &configs {
                let kind = resource::kind(config);
                let gen = generator(kind).ok_or_else(|| unknown_kind(kind, "generator"))?;
                made.extend(gen(config, ctx).map_err(|e| e.context(describe(config)))?);
            }
            protocol::write_json_stream_to(out, &made).map_err(write_error)?;
            Ok(true)
        }
        "transform" => {
            let generate_first = std::env::var(protocol::ENV_GENERATE_FIRST)
                .ok()
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(0)
                .min(configs.len());
            let (generators, transformers) = configs.split_at(generate_first);
            // Builtin generators need no transformation (KEP: 127 = not supported).
            if generators.is_empty()
                && transformers
                    .iter()
                    .all(|c| generator(resource::kind(c)).is_some())
            {
                return Ok(false);
            }
            let mut resources = resources;
            for config in generators {
                let kind = resource::kind(config);
                let gen = generator(kind).ok_or_else(|| unknown_kind(kind, "generator"))?;
                for made in gen(config, ctx).map_err(|e| e.context(describe(config)))? {
                    add_created(&mut resources, made, ctx.version).map_err(|e| {
                        e.context(format!(
                            "merging generated resources in {}",
                            ctx.kustomization
                        ))
                    })?;
                }
            }
            for config in transformers {
                let kind = resource::kind(config);
                if generator(kind).is_some() {
                    continue;
                }
                let t = transformer(kind).ok_or_else(|| unknown_kind(kind, "transformer"))?;
                let started = std::time::Instant::now();
                t(config, &mut resources, ctx).map_err(|e| e.context(describe(config)))?;
                tracing::debug!(
                    kind,
                    name = resource::name(config),
                    resources = resources.len(),
                    us = started.elapsed().as_micros() as u64,
                    "builtin transformer finished"
                );
            }
            protocol::write_json_stream_to(out, &resources).map_err(write_error)?;
            if process_ends {
                std::mem::forget(resources);
            }
            Ok(true)
        }
        other => Err(Error::new(format!(
            "usage: builtin generate|transform (got {other:?})"
        ))),
    }
}

/// Add a generated resource as the core's accumulator does for behavior
/// `create` (the core fuses generators into this call only then): an id
/// that is already taken, now or before a rename, is an error.
fn add_created(
    resources: &mut Vec<Value>,
    made: Value,
    version: kustom_api::KustomizeVersion,
) -> Result<(), Error> {
    let id = kustom_api::ResId::of(&made);
    if let Some(other @ ("merge" | "replace")) =
        resource::annotation(&made, protocol::GENERATOR_BEHAVIOR)
    {
        return Err(Error::new(format!(
            "id {id} has behavior {other:?}, which the core merges itself; it must not be generated in a transform call"
        )));
    }
    let taken = resources.iter().any(|r| {
        kustom_api::ResId::of(r).equals(&id)
            || kustom_api::resid::previous_ids(r)
                .iter()
                .any(|p| p.equals(&id))
    });
    if taken {
        let behavior = resource::annotation(&made, protocol::GENERATOR_BEHAVIOR);
        return Err(protocol::behavior_conflict(&id, behavior, version));
    }
    resources.push(made);
    Ok(())
}

fn unknown_kind(kind: &str, what: &str) -> Error {
    Error::new(format!(
        "builtin: unknown {what} kind {kind:?}; the builtin kinds are kustomize's (ConfigMapGenerator, PatchTransformer, …)"
    ))
}

fn describe(config: &Value) -> String {
    let name = resource::name(config);
    if name.is_empty() {
        format!("builtin {}", resource::kind(config))
    } else {
        format!("builtin {} {name:?}", resource::kind(config))
    }
}
