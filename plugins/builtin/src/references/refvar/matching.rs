//! Matching vars to the resources they name, and recording the match on
//! the resource (the `match` phase).

use super::vars::Var;
use kustom_api::resid::previous_ids;
use kustom_api::{err, protocol, resource, Error, ResId, Value};

/// Indexes of the resources that `var` names by any of their ids (current
/// or earlier, so an objref may use the name before prefixes and hashes).
pub(super) fn matching_resources(var: &Var, resources: &[Value]) -> Vec<usize> {
    let gvk = var.gvk();
    resources
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            previous_ids(r)
                .iter()
                .chain(std::iter::once(&ResId::of(r)))
                .any(|id| var.names(&gvk, id))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The one resource `var` names, None when there is none; more than one
/// is kustomize's "unable to disambiguate" error.
pub(super) fn unique_match(var: &Var, resources: &[Value]) -> Result<Option<usize>, Error> {
    let found = matching_resources(var, resources);
    match found.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(*one)),
        many => Err(err!(
            "found {} resId matches for var {} (unable to disambiguate)",
            many.len(),
            var.repr_merging()
        )),
    }
}

/// The `match` phase: record each var on the one resource it names.
pub(super) fn record_matches(vars: &[Var], resources: &mut [Value]) -> Result<(), Error> {
    for var in vars {
        let found = unique_match(var, resources).map_err(|e| {
            let all: Vec<String> = vars.iter().map(Var::repr_raw).collect();
            e.context(format!("merging vars [{}]", all.join(" ")))
        })?;
        if let Some(i) = found {
            let mut names = recorded_names(&resources[i])?;
            names.push(var.name.clone());
            let encoded = serde_json::to_string(&names)
                .map_err(|e| err!("encoding {}: {e}", protocol::REF_VAR_NAMES))?;
            resource::set_annotation(&mut resources[i], protocol::REF_VAR_NAMES, &encoded);
        }
    }
    Ok(())
}

/// The var names recorded on a resource (a JSON list of strings, so any
/// var name survives).
pub(super) fn recorded_names(r: &Value) -> Result<Vec<String>, Error> {
    match resource::annotation(r, protocol::REF_VAR_NAMES) {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(text).map_err(|e| {
            err!(
                "malformed {} annotation on {}: {e}",
                protocol::REF_VAR_NAMES,
                ResId::of(r)
            )
        }),
    }
}
