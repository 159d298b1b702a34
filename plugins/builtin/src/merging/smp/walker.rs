//! The merge walk: kyaml's `merge2` walker over maps, lists and scalars,
//! guided by the schema.

use super::directives::{list_directive, map_directive, Directive};
use super::elements::{
    add_target_elements, find_element, key_values, set_element, unify_all, validate_keys,
};
use super::nodes::{is_empty_map, is_missing_or_null, raw_text, wrong_kind, Kind};
use kustom_api::schema::{Schema, SchemaNode};
use kustom_api::{empty_nulls, Error, Map, Value};
use std::collections::{BTreeSet, HashSet};

/// The outcome of merging one node.
#[derive(Debug)]
pub(super) enum Merged {
    /// Nothing: the field is removed, the list element deleted.
    Clear,
    /// An explicit null in the target that the patch did not mention stays.
    KeepNull,
    /// The target's node, merged in place. (Null here is a patch null: cleared.)
    Dest(Value),
    /// The patch's node (replacing the target's).
    Origin(Value),
}

impl Merged {
    /// The resulting value; None when it clears (including a patch null).
    pub(super) fn into_value(self) -> Option<Value> {
        match self {
            Merged::Dest(v) | Merged::Origin(v) if !v.is_null() => Some(v),
            _ => None,
        }
    }
}

/// Whether a string must have been quoted (or written as a block) in YAML:
/// read as a plain scalar, its text would not give back the string. Strings
/// that read back unchanged are taken to have been written plain, the usual
/// case (the reader keeps no style).
pub(super) fn needs_quotes(s: &str) -> bool {
    match kustom_api::yaml::parse_stream(s) {
        Ok(docs) => !matches!(docs.as_slice(), [Value::String(t)] if t == s),
        Err(_) => true,
    }
}

/// Where the patch's side of an associative list comes from.
pub(super) enum PatchList {
    /// The patch has no such list (only the target's elements are walked).
    Absent,
    /// The list is being merged with itself: the target had none, so the
    /// patch's list stands in for both sides.
    Same,
    /// The patch's list.
    List(Vec<Value>),
}

/// The merge walk over one patch, with the schema that guides it.
pub(super) struct Merger<'s> {
    pub(super) schema: &'s Schema,
}

impl<'s> Merger<'s> {
    /// The schema for a node: the one found from the parent, else the one
    /// of the resource type the node itself declares (apiVersion + kind).
    fn schema_for(
        &self,
        inherited: Option<SchemaNode<'s>>,
        sources: [Option<&Value>; 2],
    ) -> Option<SchemaNode<'s>> {
        if inherited.is_some() {
            return inherited;
        }
        sources.into_iter().flatten().find_map(|v| {
            let api_version = v.get("apiVersion")?.as_str()?;
            let kind = v.get("kind")?.as_str()?;
            if api_version.is_empty() || kind.is_empty() {
                return None;
            }
            self.schema.for_type(api_version, kind)
        })
    }

    /// Merge the patch's node `origin` into the target's node `dest`; either
    /// may be missing (None) or an explicit null.
    pub(super) fn walk(
        &self,
        dest: Option<Value>,
        origin: Option<Value>,
        inherited: Option<SchemaNode<'s>>,
    ) -> Result<Merged, Error> {
        // A target value written empty (`key:`) is a null that is not kept
        // when the patch leaves it alone; an explicit `null` or `~` is.
        let written_empty = dest.as_ref().is_some_and(empty_nulls::is_marker);
        let dest = if written_empty {
            Some(Value::Null)
        } else {
            dest
        };
        let schema = self.schema_for(inherited, [dest.as_ref(), origin.as_ref()]);
        let dest_present = !is_missing_or_null(dest.as_ref());
        let origin_present = !is_missing_or_null(origin.as_ref());
        let kind = match (&dest, &origin) {
            (Some(d), _) if dest_present => Kind::of(d),
            (_, Some(o)) if origin_present => Kind::of(o),
            _ => {
                // Nothing on either side: a null the patch does not mention stays.
                return Ok(if origin.is_none() && dest.is_some() && !written_empty {
                    Merged::KeepNull
                } else {
                    Merged::Clear
                });
            }
        };
        for v in [&dest, &origin].into_iter().flatten() {
            if !v.is_null() && Kind::of(v) != kind {
                return Err(wrong_kind(kind, v));
            }
        }
        match kind {
            Kind::Map => self.walk_map(dest, origin, schema),
            Kind::Seq => self.walk_seq(dest, origin, schema),
            Kind::Scalar => Ok(match origin {
                Some(o) => Merged::Origin(o),
                None => dest.map_or(Merged::Clear, Merged::Dest),
            }),
        }
    }

    fn walk_map(
        &self,
        dest: Option<Value>,
        origin: Option<Value>,
        schema: Option<SchemaNode<'s>>,
    ) -> Result<Merged, Error> {
        let Some(Value::Object(d)) = dest else {
            // Added: the patch's map, merged with itself. A bad directive
            // here is not an error: it stays in the output as a field.
            let Some(Value::Object(mut o)) = origin else {
                return Ok(Merged::Clear);
            };
            if let Ok(Directive::Delete) = map_directive(&mut o) {
                return Ok(Merged::Clear);
            }
            return Ok(Merged::Origin(Value::Object(self.self_fields(o, schema)?)));
        };
        match origin {
            Some(Value::Null) => Ok(Merged::Clear),
            None => Ok(Merged::Dest(Value::Object(
                self.merge_fields(d, None, schema)?,
            ))),
            Some(Value::Object(mut o)) => match map_directive(&mut o)? {
                Directive::Delete => Ok(Merged::Clear),
                Directive::Replace => {
                    Ok(Merged::Origin(Value::Object(self.self_fields(o, schema)?)))
                }
                Directive::Merge => Ok(Merged::Dest(Value::Object(self.merge_fields(
                    d,
                    Some(o),
                    schema,
                )?))),
            },
            Some(other) => Err(wrong_kind(Kind::Map, &other)),
        }
    }

    fn walk_seq(
        &self,
        dest: Option<Value>,
        origin: Option<Value>,
        schema: Option<SchemaNode<'s>>,
    ) -> Result<Merged, Error> {
        let associative = schema.filter(|s| s.merges_lists());
        let Some(schema) = associative else {
            // Lists without a merge strategy are replaced.
            return Ok(match origin {
                Some(o) => Merged::Origin(o),
                None => dest.map_or(Merged::Clear, Merged::Dest),
            });
        };
        let Some(Value::Array(d)) = dest else {
            // Added: merged with itself, without looking for a list directive.
            let Some(Value::Array(o)) = origin else {
                return Ok(Merged::Clear);
            };
            return Ok(Merged::Origin(Value::Array(self.merge_list(
                o,
                PatchList::Same,
                schema,
            )?)));
        };
        match origin {
            Some(Value::Null) => Ok(Merged::Clear),
            None => Ok(Merged::Dest(Value::Array(self.merge_list(
                d,
                PatchList::Absent,
                schema,
            )?))),
            Some(Value::Array(mut o)) => match list_directive(&mut o)? {
                Directive::Delete => Ok(Merged::Clear),
                Directive::Replace => Ok(Merged::Origin(Value::Array(self.merge_list(
                    o,
                    PatchList::Same,
                    schema,
                )?))),
                Directive::Merge => Ok(Merged::Dest(Value::Array(self.merge_list(
                    d,
                    PatchList::List(o),
                    schema,
                )?))),
            },
            Some(other) => Err(wrong_kind(Kind::Seq, &other)),
        }
    }

    /// Merge a node with itself, as kyaml does for everything a patch adds
    /// below a node it added: directives are applied (and errors in them
    /// reported), associative lists deduplicated.
    fn walk_self(&self, value: Value, inherited: Option<SchemaNode<'s>>) -> Result<Merged, Error> {
        let schema = self.schema_for(inherited, [Some(&value), None]);
        match value {
            Value::Null => Ok(Merged::Clear),
            Value::Object(mut m) => match map_directive(&mut m)? {
                Directive::Delete => Ok(Merged::Clear),
                _ => Ok(Merged::Origin(Value::Object(self.self_fields(m, schema)?))),
            },
            Value::Array(mut l) => match schema.filter(|s| s.merges_lists()) {
                None => Ok(Merged::Origin(Value::Array(l))),
                Some(s) => match list_directive(&mut l)? {
                    Directive::Delete => Ok(Merged::Clear),
                    _ => Ok(Merged::Origin(Value::Array(self.merge_list(
                        l,
                        PatchList::Same,
                        s,
                    )?))),
                },
            },
            scalar => Ok(Merged::Origin(scalar)),
        }
    }

    fn self_fields(
        &self,
        mut m: Map<String, Value>,
        schema: Option<SchemaNode<'s>>,
    ) -> Result<Map<String, Value>, Error> {
        let keys: BTreeSet<String> = m.keys().cloned().collect();
        for key in keys {
            let value = m.get_mut(&key).map(std::mem::take).unwrap_or_default();
            let child = schema.and_then(|s| s.field(&key));
            set_field(&mut m, &key, self.walk_self(value, child)?);
        }
        Ok(m)
    }

    fn merge_fields(
        &self,
        mut dest: Map<String, Value>,
        origin: Option<Map<String, Value>>,
        schema: Option<SchemaNode<'s>>,
    ) -> Result<Map<String, Value>, Error> {
        let mut origin = origin.unwrap_or_default();
        // kyaml visits the union of the field names in sorted order.
        let keys: BTreeSet<String> = dest.keys().chain(origin.keys()).cloned().collect();
        for key in keys {
            let d = dest.get_mut(&key).map(std::mem::take);
            let o = origin.remove(&key);
            let child = schema.and_then(|s| s.field(&key));
            // (Only a number or boolean replacing a string can change type.)
            let quoted = matches!(
                (&d, &o),
                (Some(Value::String(s)), Some(Value::Number(_) | Value::Bool(_))) if needs_quotes(s)
            );
            let merged = match self.walk(d, o, child)? {
                // kyaml gives the new value the old one's quoting style: a
                // number or boolean replacing a quoted string becomes a string.
                Merged::Origin(v @ (Value::Number(_) | Value::Bool(_))) if quoted => {
                    Merged::Origin(Value::String(raw_text(&v)))
                }
                other => other,
            };
            set_field(&mut dest, &key, merged);
        }
        Ok(dest)
    }

    /// Merge an associative list: the target's `dest` with the patch's list.
    fn merge_list(
        &self,
        dest: Vec<Value>,
        patch: PatchList,
        schema: SchemaNode<'s>,
    ) -> Result<Vec<Value>, Error> {
        let keys: Vec<String> = schema.merge_keys().to_vec();
        let origin: &[Value] = match &patch {
            PatchList::List(o) => o,
            PatchList::Absent | PatchList::Same => &[],
        };
        // Patch elements first: kustomize's merge grows lists at the front.
        let sources: [&[Value]; 2] = [origin, &dest];
        let mut values: Vec<Vec<String>> = Vec::new();
        if !keys.is_empty() {
            for elem in sources.iter().flat_map(|s| s.iter()) {
                let kv = key_values(elem, &keys);
                if !values.contains(&kv) {
                    values.push(kv);
                }
            }
        }
        if !values.is_empty() || !keys.is_empty() {
            return self.merge_elements(values, &keys, dest, patch, schema);
        }
        // A list of scalars: merged as a set of their texts.
        let mut seen = HashSet::new();
        for elem in sources.iter().flat_map(|s| s.iter()) {
            let text = raw_text(elem);
            if seen.insert(text.clone()) {
                values.push(vec![text]);
            }
        }
        self.merge_elements(values, &[String::new()], dest, patch, schema)
    }

    fn merge_elements(
        &self,
        mut values: Vec<Vec<String>>,
        keys: &[String],
        mut dest: Vec<Value>,
        patch: PatchList,
        schema: SchemaNode<'s>,
    ) -> Result<Vec<Value>, Error> {
        let elem_schema = schema.elements();
        if keys.len() > 1 {
            unify_all(&mut values);
        }
        let mut items: Vec<Value> = Vec::new();
        let mut valid_keys: Vec<String> = Vec::new();
        for vals in &values {
            if vals.is_empty() {
                continue;
            }
            let (vk, vv) = validate_keys(&values, vals, keys);
            valid_keys.clone_from(&vk);
            let (lk, lv) = validate_keys(std::slice::from_ref(&vv), &vv, &vk);
            let d_idx = find_element(&dest, &lk, &lv)?;
            // Which target element the result is (merged in place), if any.
            let (merged, in_dest) = match &patch {
                PatchList::Same => match d_idx {
                    Some(i) => (self.walk_self(dest[i].clone(), elem_schema)?, d_idx),
                    None => (Merged::Clear, None),
                },
                PatchList::Absent => {
                    let m = self.walk(d_idx.map(|i| dest[i].clone()), None, elem_schema)?;
                    (m, d_idx)
                }
                PatchList::List(o) => {
                    let o_elem = find_element(o, &lk, &lv)?.map(|i| o[i].clone());
                    let m = self.walk(d_idx.map(|i| dest[i].clone()), o_elem, elem_schema)?;
                    let in_dest = if matches!(m, Merged::Dest(_)) {
                        d_idx
                    } else {
                        None
                    };
                    (m, in_dest)
                }
            };
            let mut val = merged.into_value().filter(|v| !is_empty_map(v));
            let Some(v) = val.as_mut() else {
                // Nothing left of the element: delete it from the target.
                // With empty key values this removes every element that has
                // the key at all, as kustomize does.
                set_element(&mut dest, None, &vk, &vv)?;
                continue;
            };
            for (key, value) in vk.iter().zip(&vv) {
                if value.is_empty() {
                    continue;
                }
                if key.is_empty() {
                    // A scalar element gets its own text back: no change.
                    if Kind::of(v) != Kind::Scalar {
                        return Err(wrong_kind(Kind::Scalar, v));
                    }
                    continue;
                }
                match v {
                    Value::Object(m) => {
                        if !m.contains_key(key) {
                            m.insert(key.clone(), Value::String(value.clone()));
                        }
                    }
                    other => return Err(wrong_kind(Kind::Map, other)),
                }
            }
            if let Some(i) = in_dest {
                dest[i] = v.clone();
            }
            if let Some(v) = val {
                set_element(&mut items, Some(v), &vk, &vv)?;
            }
        }
        if values.is_empty() {
            return Ok(dest);
        }
        add_target_elements(items, dest, &valid_keys)
    }
}

/// Set a merged field on a map (kyaml's FieldSetter): cleared values and
/// patch nulls remove the field.
pub(super) fn set_field(map: &mut Map<String, Value>, key: &str, merged: Merged) {
    match merged {
        Merged::KeepNull => {
            map.insert(key.to_string(), Value::Null);
        }
        other => match other.into_value() {
            Some(v) => {
                map.insert(key.to_string(), v);
            }
            None => {
                map.remove(key);
            }
        },
    }
}
