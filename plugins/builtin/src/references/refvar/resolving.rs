//! Resolving: reading each var's value from the resource it names.

use super::field_path::lookup_field;
use super::matching::{recorded_names, unique_match};
use super::substitute::{go_format_float, Substituter};
use super::vars::Var;
use kustom_api::fieldspec::FieldSpec;
use kustom_api::{err, protocol, resource, Error, Value};
use std::collections::HashMap;

/// A var's value as kustomize reads it from a field.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum VarValue {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A mapping or sequence: kustomize cannot substitute it and leaves
    /// `$(NAME)` in place.
    Structured,
}

impl VarValue {
    /// Convert the value found at a field path. Integers beyond 64 bits are
    /// an error, as kustomize's `strconv.Atoi` makes them.
    fn from_field(v: &Value) -> Option<VarValue> {
        Some(match v {
            Value::String(s) => VarValue::Str(s.clone()),
            Value::Bool(b) => VarValue::Bool(*b),
            Value::Number(n) if n.is_f64() => VarValue::Float(n.as_f64()?),
            Value::Number(n) => VarValue::Int(n.as_i64()?),
            // kustomize returns a null scalar's text; the JSON form keeps no
            // spelling, and `null` is the one it writes itself.
            Value::Null => VarValue::Str("null".into()),
            Value::Object(_) | Value::Array(_) => VarValue::Structured,
        })
    }

    /// The value standing alone in a field: typed, as kustomize retags the node.
    pub(super) fn to_json(&self) -> Option<Value> {
        Some(match self {
            VarValue::Str(s) => Value::String(s.clone()),
            VarValue::Int(i) => Value::from(*i),
            VarValue::Float(f) => serde_json::Number::from_f64(*f).map(Value::Number)?,
            VarValue::Bool(b) => Value::Bool(*b),
            VarValue::Structured => return None,
        })
    }

    /// The value inside a longer string: Go's `%v` formatting.
    pub(super) fn to_text(&self) -> Option<String> {
        Some(match self {
            VarValue::Str(s) => s.clone(),
            VarValue::Int(i) => i.to_string(),
            VarValue::Float(f) => go_format_float(*f),
            VarValue::Bool(b) => b.to_string(),
            VarValue::Structured => return None,
        })
    }
}

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
