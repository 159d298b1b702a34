//! Associative-list elements: matching them on merge keys, unifying key
//! tuples, and adding back the target's elements after a merge.

use super::nodes::{is_empty_map, raw_text, wrong_kind, Kind};
use kustom_api::{err, Error, Value};
use std::collections::HashSet;

/// The value of each merge key in a list element; "" for absent or empty ones.
pub(super) fn key_values(elem: &Value, keys: &[String]) -> Vec<String> {
    keys.iter()
        .map(|k| match elem.get(k) {
            None | Some(Value::Null) => String::new(),
            Some(Value::Object(m)) if m.is_empty() => String::new(),
            Some(Value::Array(a)) if a.is_empty() => String::new(),
            Some(v) => raw_text(v),
        })
        .collect()
}

/// Whether `elem` matches `key` = `value`; an empty value matches any
/// element having the key, and the empty key compares a scalar element.
pub(super) fn field_matches(elem: &Value, key: &str, value: &str) -> Result<bool, Error> {
    if elem.is_null() {
        return Ok(false);
    }
    if key.is_empty() {
        if Kind::of(elem) != Kind::Scalar {
            return Err(wrong_kind(Kind::Scalar, elem));
        }
        return Ok(raw_text(elem) == value);
    }
    let Value::Object(m) = elem else {
        return Err(wrong_kind(Kind::Map, elem));
    };
    Ok(match m.get(key) {
        None => false,
        Some(f) => value.is_empty() || raw_text(f) == value,
    })
}

/// Replace the elements of `list` matching `keys`/`values` with `element`
/// (appending it when none matches), or delete them when `element` is None.
///
/// Matching is kyaml's: a key without a value (values shorter than keys)
/// reuses the previous key's verdict, with no values at all nothing matches
/// and non-matching elements are dropped, and null and empty-map elements
/// are always dropped.
pub(super) fn set_element(
    list: &mut Vec<Value>,
    element: Option<Value>,
    keys: &[String],
    values: &[String],
) -> Result<(), Error> {
    let primitive = [String::new()];
    let keys = if keys.is_empty() {
        &primitive[..]
    } else {
        keys
    };
    let mapping_setter = !keys[0].is_empty() && values.first().is_some_and(|v| !v.is_empty());
    let mut matched = false;
    let mut out = Vec::with_capacity(list.len() + 1);
    for elem in std::mem::take(list) {
        if elem.is_null() || is_empty_map(&elem) {
            continue;
        }
        if !elem.is_object() && mapping_setter {
            out.push(elem);
            continue;
        }
        let mut verdict = false;
        let mut found = true;
        for (j, key) in keys.iter().enumerate() {
            if let Some(v) = values.get(j) {
                verdict = field_matches(&elem, key, v)?;
            }
            if !verdict {
                found = false;
                break;
            }
        }
        if !found {
            if !values.is_empty() {
                out.push(elem);
            }
            continue;
        }
        matched = true;
        if let Some(e) = &element {
            out.push(e.clone());
        }
    }
    *list = out;
    match element {
        Some(e) if !e.is_null() && !matched => list.push(e),
        _ => {}
    }
    Ok(())
}

/// The first map element whose key fields have exactly these values (the
/// empty key: the first element whose scalar text is the value).
pub(super) fn find_element(
    list: &[Value],
    keys: &[String],
    values: &[String],
) -> Result<Option<usize>, Error> {
    let first_key = keys.first().map(String::as_str).unwrap_or("");
    let first_value = values.first().map(String::as_str).unwrap_or("");
    if first_key.is_empty() {
        return Ok(list.iter().position(|e| raw_text(e) == first_value));
    }
    if keys.len() != values.len() {
        return Err(err!(
            "length of keys must equal length of values when MatchAnyValue is false"
        ));
    }
    Ok(list.iter().position(|e| match e {
        Value::Object(m) => keys
            .iter()
            .zip(values)
            .all(|(k, v)| m.get(k).is_some_and(|f| raw_text(f) == *v)),
        _ => false,
    }))
}

/// Keep only the merge keys some element of the list has a value for (all
/// keys when none has); `values` is cut down to match.
pub(super) fn validate_keys(
    all: &[Vec<String>],
    values: &[String],
    keys: &[String],
) -> (Vec<String>, Vec<String>) {
    let mut valid: HashSet<&str> = HashSet::new();
    for vals in all {
        for (i, v) in vals.iter().enumerate() {
            if let (false, Some(k)) = (v.is_empty(), keys.get(i)) {
                valid.insert(k);
            }
        }
    }
    if valid.is_empty() {
        return (keys.to_vec(), values.to_vec());
    }
    let vk = keys
        .iter()
        .filter(|k| valid.contains(k.as_str()))
        .cloned()
        .collect();
    let vv = values
        .iter()
        .enumerate()
        .filter(|(i, v)| !v.is_empty() || keys.get(*i).is_some_and(|k| valid.contains(k.as_str())))
        .map(|(_, v)| v.clone())
        .collect();
    (vk, vv)
}

/// Two key-value tuples denote the same element when they share a value and
/// differ only where one of them is empty (a port without protocol matches
/// the same port with one); the result fills in the blanks.
pub(super) fn unify(a: &[String], b: &[String]) -> Option<Vec<String>> {
    if a.len() != b.len() {
        return None;
    }
    let mut common = false;
    let mut out = Vec::with_capacity(a.len());
    for (x, y) in a.iter().zip(b) {
        if x == y {
            common = true;
            out.push(x.clone());
        } else if !x.is_empty() && !y.is_empty() {
            return None;
        } else if x.is_empty() {
            out.push(y.clone());
        } else {
            out.push(x.clone());
        }
    }
    common.then_some(out)
}

/// Unify the key tuples of a multi-key list pairwise, in place, in kyaml's
/// order (the outer tuple is read once per outer step, so later unifications
/// in the same step do not feed back into it).
pub(super) fn unify_all(values: &mut [Vec<String>]) {
    for i in 0..values.len() {
        let a = values[i].clone();
        for j in 0..values.len() {
            if let Some(m) = unify(&a, &values[j]) {
                values[i] = m.clone();
                values[j] = m;
            }
        }
    }
}

/// The value of field `key` of a list element, for re-adding target
/// elements after a merge.
pub(super) fn element_field<'v>(elem: &'v Value, key: &str) -> Result<Option<&'v Value>, Error> {
    match elem {
        Value::Null => Ok(None),
        Value::Object(m) => Ok(m.get(key)),
        other => Err(wrong_kind(Kind::Map, other)),
    }
}

/// Add the target's remaining elements after the merged ones: each replaces
/// the merged element with the same keys (that is itself, merged in place,
/// or the target's element when the patch's replaced it) or is appended.
pub(super) fn add_target_elements(
    mut items: Vec<Value>,
    dest: Vec<Value>,
    keys: &[String],
) -> Result<Vec<Value>, Error> {
    let primitive = keys.first().is_none_or(|k| k.is_empty());
    for elem in dest {
        if primitive {
            let text = raw_text(&elem);
            set_element(&mut items, Some(elem), &[String::new()], &[text])?;
            continue;
        }
        let mut values = Vec::with_capacity(keys.len());
        for key in keys {
            match element_field(&elem, key)? {
                // kyaml appends an element lacking a key, then filters the
                // list with the partial key set below.
                None => items.push(elem.clone()),
                Some(f) => values.push(raw_text(f)),
            }
        }
        if keys.len() > 1 {
            set_element(&mut items, None, keys, &values)?;
        }
        set_element(&mut items, Some(elem), keys, &values)?;
    }
    Ok(items)
}
