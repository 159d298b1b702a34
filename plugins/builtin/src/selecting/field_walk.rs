//! Walking an existing field path: what name-reference fixing and `vars`
//! substitution share (kustomize's field-spec filter without creation).

use kustom_api::{Error, Value};

/// Walk `path` from `node` the way kustomize's field-spec filter does
/// (sequences are entered element by element, missing and null fields end
/// the walk quietly, nothing is created) and call `f` on what is found.
pub(crate) fn walk(
    node: &mut Value,
    path: &[String],
    f: &mut dyn FnMut(&mut Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some((first, rest)) = path.split_first() else {
        return f(node);
    };
    match node {
        Value::Null => Ok(()),
        Value::Array(items) => {
            for item in items {
                walk(item, path, f).map_err(|e| {
                    e.context(format!("visit traversal on path: [{}]", path.join(" ")))
                })?;
            }
            Ok(())
        }
        Value::Object(map) => {
            let key = first.strip_suffix("[]").unwrap_or(first);
            kustom_api::fieldspec::check_field_name(key)?;
            match map.get_mut(key) {
                Some(child) => walk(child, rest, f),
                None => Ok(()),
            }
        }
        _ => Err(Error::new("expected sequence or mapping node")),
    }
}
