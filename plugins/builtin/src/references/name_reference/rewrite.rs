//! Rewriting a referrer's fields: walking a field path and writing the
//! chosen target's new name (and namespace) into what it finds.

use super::job::Job;
use super::matching::Sameness;
use kustom_api::{err, yaml, Error, Gvk, Value};

impl Job<'_> {
    /// Fix the value found at the end of the field path.
    pub(super) fn set(&mut self, node: &mut Value) -> Result<(), Error> {
        match node {
            Value::Null => Ok(()),
            Value::Object(_) => self.set_mapping(node),
            Value::Array(items) => {
                for item in items {
                    match item {
                        Value::Null => {}
                        Value::Object(_) => self.set_mapping(item)?,
                        Value::Array(_) => {
                            return Err(err!(
                                "{} is expected to be either a string or a map of string",
                                item
                            ))
                        }
                        _ => self.set_scalar(item)?,
                    }
                }
                Ok(())
            }
            _ => self.set_scalar(node),
        }
    }

    /// A plain name field.
    pub(super) fn set_scalar(&mut self, node: &mut Value) -> Result<(), Error> {
        let old = scalar_text(node);
        let Some(t) = self.select(&old, None, Sameness::Name)? else {
            return Ok(());
        };
        let new = &self.index.infos[t].id.name;
        if *new != old {
            replace_scalar(node, new);
        }
        Ok(())
    }

    /// A map naming the target by `name` and maybe `namespace` (RBAC
    /// subjects, webhook services): an explicit namespace narrows the
    /// candidates, and the target's namespace is copied back.
    pub(super) fn set_mapping(&mut self, node: &mut Value) -> Result<(), Error> {
        let Some(map) = node.as_object_mut() else {
            return Err(Error::new("expect a mapping node"));
        };
        let Some(old) = map.get("name").map(scalar_text) else {
            return Err(Error::new("path config error; no 'name' field in node"));
        };
        let ns = map.get("namespace").map(scalar_text);
        let Some(t) = self.select(&old, ns.as_deref(), Sameness::NameAndNamespace)? else {
            return Ok(());
        };
        let target = &self.index.infos[t].id;
        if target.name == old && target.namespace.is_empty() {
            return Ok(());
        }
        if let Some(v) = map.get_mut("name") {
            replace_scalar(v, &target.name);
        }
        // An unset target namespace is a wildcard, not "default": leave the
        // referrer's namespace alone then.
        if !target.namespace.is_empty() {
            match map.get_mut("namespace") {
                Some(v) => replace_scalar(v, &target.namespace),
                None => {
                    map.insert("namespace".into(), Value::String(target.namespace.clone()));
                }
            }
        }
        Ok(())
    }
}

/// A scalar as YAML text (what a reference is compared by).
pub(super) fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// Write a new name into a scalar field. kustomize keeps the field's
/// style: a string stays a string, but a plain scalar that read as a number,
/// boolean or null is re-read as plain YAML, so `1` renamed to `10` is the
/// number 10 while `p-1` is a string.
pub(super) fn replace_scalar(node: &mut Value, new: &str) {
    if node.is_string() {
        *node = Value::String(new.to_string());
        return;
    }
    *node = match yaml::parse_stream(new) {
        Ok(docs) => match docs.as_slice() {
            [v @ (Value::Number(_) | Value::Bool(_))] => v.clone(),
            _ => Value::String(new.to_string()),
        },
        Err(_) => Value::String(new.to_string()),
    };
}

/// The gvk a binding's `roleRef` names (`apiGroup` and `kind`), when both are there.
pub(super) fn role_ref_gvk(obj: &Value) -> Option<Gvk> {
    let role_ref = obj.get("roleRef")?.as_object()?;
    Some(Gvk {
        group: scalar_text(role_ref.get("apiGroup")?),
        version: String::new(),
        kind: scalar_text(role_ref.get("kind")?),
    })
}
