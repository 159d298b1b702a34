//! Resolving: reading each var's value from the resource it names.

use super::field_path::lookup_field;
use super::matching::{recorded_names, unique_match};
use super::substitute::Substituter;
use super::vars::{Var, VarValue};
use kustom_api::fieldspec::FieldSpec;
use kustom_api::{err, protocol, resource, Error, Value};
use std::collections::HashMap;

/// The final step: read every var's value, then substitute in the fields
/// `specs` name. With `match_unrecorded`, a var recorded on no resource is
/// matched against all resources first.
pub(super) fn resolve(
    mut vars: Vec<Var>,
    specs: &[FieldSpec],
    resources: &mut [Value],
    match_unrecorded: bool,
) -> Result<(), Error> {
    let recorded: Vec<Vec<String>> = resources
        .iter()
        .map(recorded_names)
        .collect::<Result<_, _>>()?;
    // The bookkeeping goes first so substitution never sees it.
    for r in resources.iter_mut() {
        resource::remove_annotation(r, protocol::REF_VAR_NAMES);
    }
    // kustomize reads the values in name order, so the first failure
    // reported is that of the alphabetically first var.
    vars.sort_by(|a, b| a.name.cmp(&b.name));
    let mut values: HashMap<String, VarValue> = HashMap::new();
    for var in &vars {
        let source = match recorded.iter().position(|names| names.contains(&var.name)) {
            Some(i) => Some(i),
            None if match_unrecorded => unique_match(var, resources)?,
            None => None,
        };
        let Some(i) = source else {
            return Err(err!(
                "var '{}' cannot be mapped to a field in the set of known resources",
                var.repr_resolving()
            ));
        };
        let value = lookup_field(&resources[i], var.effective_field_path())
            .and_then(VarValue::from_field)
            .ok_or_else(|| {
                err!(
                    "field specified in var '{}' not found in corresponding resource",
                    var.repr_resolving()
                )
            })?;
        values.insert(var.name.clone(), value);
    }
    if values.is_empty() {
        return Ok(());
    }
    let mut subst = Substituter {
        values: &values,
        used: HashMap::new(),
    };
    for r in resources.iter_mut() {
        for spec in specs {
            subst.apply_spec(r, spec)?;
        }
    }
    let mut unused: Vec<&str> = vars
        .iter()
        .map(|v| v.name.as_str())
        .filter(|n| !subst.used.contains_key(*n))
        .collect();
    unused.dedup();
    if !unused.is_empty() {
        tracing::info!(
            "well-defined vars that were never replaced: {}",
            unused.join(",")
        );
    }
    Ok(())
}
