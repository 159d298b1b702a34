//! `RefVarTransformer`: kustomize's legacy `vars:` — `$(NAME)` references
//! in the fields the `varReference` field specs name are replaced by a value
//! read from another resource.
//!
//! Config (`apiVersion: builtin`, `kind: RefVarTransformer`):
//!
//! ```yaml
//! vars:            # as written in the kustomizations
//! - name: SERVICE_NAME
//!   objref: {apiVersion: v1, kind: Service, name: my-svc}
//!   fieldref: {fieldPath: metadata.name}   # optional; this is the default
//! fieldSpecs: […]  # the varReference field specs
//! phase: match | resolve                   # optional, see below
//! ```
//!
//! kustomize works in two steps. When a kustomization's `vars:` are merged
//! (after that kustomization's transformers ran), each var is matched
//! against the resources accumulated *so far in that subtree*, and the one
//! resource it names remembers the var; at the very end of the build the
//! values are read from the remembered resources and substituted. The
//! `phase` field offers those two steps separately:
//!
//! * `phase: match`, with one kustomization's vars, where kustomize merges
//!   them: records each var on the resource it names (in the
//!   [`protocol::REF_VAR_NAMES`] annotation), or fails when it names more
//!   than one;
//! * `phase: resolve`, with all vars and the field specs, at the end: reads
//!   each value from the resource recorded for it and substitutes;
//! * no `phase`: resolve, but a var recorded on no resource is matched
//!   against the final resources first. That is kustomize's behaviour
//!   except where a subtree's var would only be unambiguous within that
//!   subtree (two bases with same-named objects in different namespaces),
//!   which only the `match` phase can reproduce.
//!
//! Resolving removes the bookkeeping annotation from every resource.

use crate::Ctx;
use kustom_api::fieldspec::FieldSpec;
use kustom_api::{err, Error, Value};
use matching::record_matches;
use resolving::resolve;
use vars::Var;

mod field_path;
mod matching;
mod resolving;
mod substitute;
#[cfg(test)]
mod tests;
mod vars;

/// Run the var step the config asks for (see the module docs).
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, _ctx: &Ctx) -> Result<(), Error> {
    let vars = match config.get("vars") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(Var::parse).collect::<Result<_, _>>()?,
        Some(_) => return Err(Error::new("RefVarTransformer: `vars` must be a list")),
    };
    let phase = match config.get("phase") {
        None | Some(Value::Null) => Phase::MatchUnrecordedThenResolve,
        Some(Value::String(s)) if s == "match" => Phase::Match,
        Some(Value::String(s)) if s == "resolve" => Phase::Resolve,
        Some(other) => {
            return Err(err!(
                "RefVarTransformer: unknown phase {other}; expected \"match\" or \"resolve\""
            ))
        }
    };
    if phase == Phase::Match {
        return record_matches(&vars, resources);
    }
    let specs: Vec<FieldSpec> = match config.get("fieldSpecs") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| err!("RefVarTransformer: invalid fieldSpecs: {e}"))?,
    };
    resolve(
        vars,
        &specs,
        resources,
        phase == Phase::MatchUnrecordedThenResolve,
    )
}

/// Which part of kustomize's var handling a call performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Record each var on the resource it names.
    Match,
    /// Substitute values read from the recorded resources.
    Resolve,
    /// Resolve, matching vars that were recorded nowhere first.
    MatchUnrecordedThenResolve,
}
