//! Field specs: which fields of which kinds a builtin transformer touches,
//! and the walker that visits those fields in an object.
//!
//! The default tables are data (`data/fieldspecs/*.yaml`).

use crate::{resource, Error, Gvk};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One field spec: a slash-separated path in objects of a (partial) gvk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct FieldSpec {
    /// API group to match; empty matches any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// API version to match; empty matches any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Kind to match; empty matches any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Slash-separated field path, e.g. `spec/template/metadata/labels`;
    /// `\/` escapes a slash inside a key, a trailing `[]` marks a sequence.
    #[serde(default)]
    pub path: String,
    /// Create the field when it is missing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub create: bool,
}

impl FieldSpec {
    /// Whether this spec applies to objects of `gvk` (empty fields match anything).
    pub fn applies_to(&self, gvk: &Gvk) -> bool {
        (self.kind.is_empty() || self.kind == gvk.kind)
            && (self.group.is_empty() || self.group == gvk.group)
            && (self.version.is_empty() || self.version == gvk.version)
    }

    /// Whether this spec applies to `obj`.
    pub fn applies_to_object(&self, obj: &Value) -> bool {
        self.applies_to(&Gvk::from_api_version(
            resource::api_version(obj),
            resource::kind(obj),
        ))
    }

    /// The path split into keys, honouring `\/` escapes and a leading `/`.
    pub fn path_segments(&self) -> Vec<String> {
        split_path(&self.path)
    }
}

/// Split a field-spec path at `/`, keeping `\/` as a literal slash.
pub fn split_path(path: &str) -> Vec<String> {
    let path = if path.len() > 1 {
        path.strip_prefix('/').unwrap_or(path)
    } else {
        path
    };
    let mut out: Vec<String> = Vec::new();
    for part in path.split('/') {
        match out.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push('/');
                last.push_str(part);
            }
            _ => out.push(part.to_string()),
        }
    }
    out
}

/// Call `f` on every field of `obj` that `spec` names, when `spec` applies
/// to `obj`'s gvk. Sequences met on the way are descended element by
/// element. When `spec.create` is set and `create_leaf` is given, missing
/// fields are created (intermediate ones as maps, the leaf as a clone of
/// `create_leaf`); a field that exists but is null is treated the same way.
pub fn visit_fields(
    obj: &mut Value,
    spec: &FieldSpec,
    create_leaf: Option<&Value>,
    f: &mut dyn FnMut(&mut Value) -> Result<(), Error>,
) -> Result<(), Error> {
    if !spec.applies_to_object(obj) {
        return Ok(());
    }
    let segments = spec.path_segments();
    let create = if spec.create { create_leaf } else { None };
    visit_path(obj, &segments, create, f).map_err(|e| {
        e.context(format!(
            "considering field '{}' of object {}",
            spec.path,
            crate::ResId::of(obj)
        ))
    })
}

/// Call `f` on every field at `segments` below `node` (see [`visit_fields`]),
/// without the gvk check.
pub fn visit_path(
    node: &mut Value,
    segments: &[String],
    create_leaf: Option<&Value>,
    f: &mut dyn FnMut(&mut Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some((first, rest)) = segments.split_first() else {
        return f(node);
    };
    match node {
        Value::Null => Ok(()),
        Value::Array(items) => {
            for item in items {
                visit_path(item, segments, create_leaf, f)?;
            }
            Ok(())
        }
        Value::Object(map) => {
            let (key, is_seq) = match first.strip_suffix("[]") {
                Some(k) => (k, true),
                None => (first.as_str(), false),
            };
            if key.is_empty() {
                return Err(Error::new("cannot set or create an empty field name"));
            }
            let missing = map.get(key).is_none_or(Value::is_null);
            if missing {
                match create_leaf {
                    Some(leaf) if !is_seq => {
                        let fresh = if rest.is_empty() {
                            leaf.clone()
                        } else {
                            Value::Object(Map::new())
                        };
                        map.insert(key.to_string(), fresh);
                    }
                    _ => return Ok(()),
                }
            }
            match map.get_mut(key) {
                Some(child) => visit_path(child, rest, create_leaf, f),
                None => Ok(()),
            }
        }
        _ => Err(Error::new(format!(
            "expected sequence or mapping node at '{first}'"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(path: &str, create: bool) -> FieldSpec {
        FieldSpec {
            path: path.into(),
            create,
            ..Default::default()
        }
    }

    #[test]
    fn splits_escaped_slashes() {
        assert_eq!(
            split_path("metadata/annotations/a\\/b"),
            vec!["metadata", "annotations", "a/b"]
        );
        assert_eq!(split_path("/spec/x"), vec!["spec", "x"]);
    }

    #[test]
    fn descends_sequences_and_creates() {
        let mut obj = json!({"kind": "Pod", "spec": {"containers": [{"name": "a"}, {"name": "b"}]}});
        let mut seen = Vec::new();
        visit_fields(&mut obj, &spec("spec/containers/name", false), None, &mut |v| {
            seen.push(v.as_str().unwrap_or("").to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec!["a", "b"]);
        visit_fields(
            &mut obj,
            &spec("metadata/labels", true),
            Some(&json!({})),
            &mut |v| {
                v.as_object_mut().unwrap().insert("x".into(), json!("y"));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(obj["metadata"]["labels"]["x"], "y");
        // Without create, a missing field is skipped.
        let mut called = false;
        visit_fields(&mut obj, &spec("spec/nothing/here", false), None, &mut |_| {
            called = true;
            Ok(())
        })
        .unwrap();
        assert!(!called);
    }

    #[test]
    fn gvk_filter() {
        let s = FieldSpec {
            kind: "Deployment".into(),
            group: "apps".into(),
            path: "spec/replicas".into(),
            ..Default::default()
        };
        assert!(s.applies_to(&Gvk::from_api_version("apps/v1", "Deployment")));
        assert!(!s.applies_to(&Gvk::from_api_version("v1", "Deployment")));
    }
}
