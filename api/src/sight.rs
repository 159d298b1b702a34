//! What a shipped-builtin call sees of a resource: all of it, nothing, or a
//! part (its identity and metadata plus named fields); cutting a resource's
//! JSON text down to that part, and putting a changed part back.
//!
//! Most of a large build's bytes are CRD schemas and pod templates that a
//! call's transformers never read: a namespace transformer touches
//! `metadata` and a few named fields, a patch only its targets. Sending
//! only what can be touched keeps the pipe, the builtin's parse and its
//! encoding proportional to the work (docs/benchmarks.md).
//!
//! Parts are cut at most two keys deep (`spec.conversion`), and the text of
//! everything outside the part is kept byte for byte, so a resource put
//! back is exactly the one a whole call would have returned. Putting back
//! fails (`None`) when the answer holds a field that was hidden from the
//! call: the part was too small, and the caller must send the whole.

use crate::doc::Doc;
use crate::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// Top-level fields every part includes: the identity and build annotations.
const HEAD_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// What a call must see of one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sight {
    /// Nothing: the call can neither read nor change it.
    Nothing,
    /// `apiVersion`, `kind`, `metadata` and these fields.
    Part(Fields),
    /// The whole resource.
    Whole,
}

/// Fields of a part besides the head: a top-level key whole (`None`), or
/// one key below it (`Some`).
pub type Fields = BTreeSet<(String, Option<String>)>;

impl Sight {
    /// The head only: `apiVersion`, `kind` and `metadata`.
    pub fn head() -> Sight {
        Sight::Part(Fields::new())
    }

    /// See at least what `other` sees too.
    pub fn widen(&mut self, other: Sight) {
        match (&mut *self, other) {
            (Sight::Whole, _) | (_, Sight::Nothing) => {}
            (_, Sight::Whole) => *self = Sight::Whole,
            (Sight::Nothing, part) => *self = part,
            (Sight::Part(mine), Sight::Part(theirs)) => mine.extend(theirs),
        }
    }

    /// See at least the field at `path` (map keys from the top; only the
    /// first two count, everything below them is seen whole).
    pub fn widen_to_path(&mut self, path: &[String]) {
        let mut fields = Fields::new();
        match path {
            [] => return self.widen(Sight::Whole),
            [top] => fields.insert((top.clone(), None)),
            [top, sub, ..] => fields.insert((top.clone(), Some(sub.clone()))),
        };
        self.widen(Sight::Part(fields));
    }
}

/// A resource's top-level fields as text, in key order (the last of a
/// repeated key, as in a parsed value).
type RawMap<'a> = BTreeMap<Cow<'a, str>, &'a str>;

/// The entries of an object in a `Doc`'s text (valid JSON), not read inside.
fn raw_map(json: &str) -> Option<RawMap<'_>> {
    Some(
        crate::json_view::object_entries(json)?
            .into_iter()
            .collect(),
    )
}

/// Whether the part shows the top-level key whole.
fn shows_whole(fields: &Fields, key: &str) -> bool {
    HEAD_FIELDS.contains(&key) || fields.contains(&(key.to_string(), None))
}

/// The keys below `key` that the part shows (empty if none or shown whole).
fn shown_below<'f>(fields: &'f Fields, key: &str) -> BTreeSet<&'f str> {
    fields
        .iter()
        .filter(|(top, _)| top == key)
        .filter_map(|(_, sub)| sub.as_deref())
        .collect()
}

/// Write `{"key":raw,…}` for the entries in order.
fn write_object<'a>(out: &mut String, entries: impl Iterator<Item = (&'a str, &'a str)>) {
    crate::doc::write_raw_object(out, entries, |_, _, _| {});
}

/// A resource cut to the part that `fields` shows, read once for both
/// the cut and the putting back.
pub struct Cut<'a> {
    doc: &'a Doc,
    fields: Fields,
    /// The resource's top-level fields as text.
    top: RawMap<'a>,
    /// The objects cut below the top: keys shown in part whose value is an object.
    cut: BTreeMap<String, RawMap<'a>>,
}

impl<'a> Cut<'a> {
    /// Cut `doc` to what `fields` shows. None if the text is not a JSON
    /// object (then the whole must be sent).
    pub fn of(doc: &'a Doc, fields: Fields) -> Option<Cut<'a>> {
        // One pass over the text: the objects it cuts (a CRD's `spec`, most
        // of it) are read while the top is.
        let (entries, opened) = crate::json_view::object_entries_opening(doc.json(), |key| {
            !shows_whole(&fields, key) && !shown_below(&fields, key).is_empty()
        })?;
        let top: RawMap<'a> = entries.iter().cloned().collect();
        // A repeated key is its last value, which may not be the one read.
        let cut = opened
            .into_iter()
            .filter(|(i, _)| {
                let (key, raw) = &entries[*i];
                top.get(key).is_some_and(|t| std::ptr::eq(*t, *raw))
            })
            .map(|(i, sub)| (entries[i].0.to_string(), sub.into_iter().collect()))
            .collect();
        Some(Cut {
            doc,
            fields,
            top,
            cut,
        })
    }

    /// The JSON text of the part.
    pub fn text(&self) -> String {
        let mut kept: Vec<(&str, Cow<'_, str>)> = Vec::new();
        for (key, raw) in &self.top {
            if let Some(sub) = self.cut.get(key.as_ref()) {
                let shown = shown_below(&self.fields, key);
                let mut text = String::new();
                write_object(
                    &mut text,
                    sub.iter()
                        .filter(|(k, _)| shown.contains(k.as_ref()))
                        .map(|(k, v)| (k.as_ref(), *v)),
                );
                kept.push((key, Cow::Owned(text)));
            } else if self.shows(key) {
                kept.push((key, Cow::Borrowed(raw)));
            }
        }
        let mut out = String::with_capacity(256);
        write_object(&mut out, kept.iter().map(|(k, v)| (*k, v.as_ref())));
        out
    }

    /// Whether the part shows the top-level `key`, whole or in part.
    fn shows(&self, key: &str) -> bool {
        shows_whole(&self.fields, key) || !shown_below(&self.fields, key).is_empty()
    }

    /// Put `answer` (what the call returned for the part) back into the
    /// resource. None if the answer holds a field that the part hid, or
    /// drops a cut object: the call needed more than it was sent.
    pub fn put_back(&self, answer: &Doc) -> Option<Doc> {
        let new = raw_map(answer.json())?;
        let mut merged: BTreeMap<&str, Cow<'_, str>> = BTreeMap::new();
        for (key, raw) in &self.top {
            if let Some(sub) = self.cut.get(key.as_ref()) {
                // The hidden keys of a cut object stay; the shown ones come
                // from the answer, which must still have the object.
                let shown = shown_below(&self.fields, key);
                let answered = raw_map(new.get(key)?)?;
                if answered
                    .keys()
                    .any(|k| !shown.contains(k.as_ref()) && sub.contains_key(k))
                {
                    return None;
                }
                let mut entries: BTreeMap<&str, &str> = sub
                    .iter()
                    .filter(|(k, _)| !shown.contains(k.as_ref()))
                    .map(|(k, v)| (k.as_ref(), *v))
                    .collect();
                entries.extend(answered.iter().map(|(k, v)| (k.as_ref(), *v)));
                let mut text = String::new();
                write_object(&mut text, entries.into_iter());
                merged.insert(key, Cow::Owned(text));
            } else if self.shows(key) {
                if let Some(v) = new.get(key) {
                    merged.insert(key, Cow::Borrowed(v));
                }
            } else {
                // Hidden from the call: it cannot have answered it.
                if new.contains_key(key) {
                    return None;
                }
                merged.insert(key, Cow::Borrowed(raw));
            }
        }
        for (key, v) in &new {
            if !self.top.contains_key(key) {
                merged.insert(key, Cow::Borrowed(v));
            }
        }
        // Every value is the text of a value of `self.doc` or `answer`, or
        // an object written here from such texts: valid JSON, not re-read.
        Some(Doc::from_raw_entries(
            merged.iter().map(|(k, v)| (*k, v.as_ref())),
            self.doc.json().len() + 64,
        ))
    }
}

/// The head of a resource (`apiVersion`, `kind`, `metadata`) as a value,
/// read without building the rest.
pub fn head_value(doc: &Doc) -> Value {
    let mut out = crate::Map::new();
    for (key, text) in HEAD_FIELDS.iter().zip(doc.head_texts()) {
        // A Doc's text is valid JSON, and so is each value in it.
        if let Some(v) = text.and_then(|t| crate::json::from_str::<Value>(t).ok()) {
            out.insert(key.to_string(), v);
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(v: Value) -> Doc {
        Doc::from_value(&v)
    }

    fn cut(d: &Doc, f: &Fields) -> Option<String> {
        Cut::of(d, f.clone()).map(|c| c.text())
    }

    fn put_back(d: &Doc, f: &Fields, answer: &Doc) -> Option<Doc> {
        Cut::of(d, f.clone())?.put_back(answer)
    }

    fn fields(list: &[(&str, Option<&str>)]) -> Fields {
        list.iter()
            .map(|(k, s)| (k.to_string(), s.map(str::to_string)))
            .collect()
    }

    fn crd() -> Value {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.example.com"},
            "spec": {"group": "example.com", "versions": [{"name": "v1", "schema": {"x": 1.50}}],
                     "conversion": {"strategy": "None"}}})
    }

    #[test]
    fn a_part_keeps_the_head_and_the_named_fields_only() {
        let d = doc(crd());
        let part = cut(&d, &fields(&[("spec", Some("conversion"))])).unwrap();
        let v: Value = serde_json::from_str(&part).unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": "foos.example.com"}, "spec": {"conversion": {"strategy": "None"}}})
        );
        let head = cut(&d, &Fields::new()).unwrap();
        assert!(!head.contains("spec"));
    }

    #[test]
    fn an_answer_goes_back_with_the_hidden_text_unchanged() {
        let d = doc(crd());
        let f = fields(&[("spec", Some("conversion"))]);
        let mut answer: Value = serde_json::from_str(&cut(&d, &f).unwrap()).unwrap();
        answer["metadata"]["labels"] = json!({"app": "x"});
        answer["spec"]["conversion"]["webhook"] = json!({"clientConfig": {}});
        let merged = put_back(&d, &f, &doc(answer)).unwrap();
        let mut expected = crd();
        expected["metadata"]["labels"] = json!({"app": "x"});
        expected["spec"]["conversion"]["webhook"] = json!({"clientConfig": {}});
        assert_eq!(merged.json(), doc(expected).json());
        // The float's text is the original's, never re-encoded.
        assert!(merged.json().contains("1.5"));
    }

    #[test]
    fn an_answer_touching_a_hidden_field_is_refused() {
        let d = doc(crd());
        let f = Fields::new();
        let mut answer: Value = serde_json::from_str(&cut(&d, &f).unwrap()).unwrap();
        answer["spec"] = json!({"group": "other"});
        assert!(put_back(&d, &f, &doc(answer)).is_none());
        // Below a cut object too.
        let f = fields(&[("spec", Some("conversion"))]);
        let mut answer: Value = serde_json::from_str(&cut(&d, &f).unwrap()).unwrap();
        answer["spec"]["group"] = json!("other");
        assert!(put_back(&d, &f, &doc(answer)).is_none());
        // Dropping a cut object is refused as well.
        let mut answer: Value = serde_json::from_str(&cut(&d, &f).unwrap()).unwrap();
        answer.as_object_mut().unwrap().remove("spec");
        assert!(put_back(&d, &f, &doc(answer)).is_none());
    }

    #[test]
    fn new_fields_and_removed_shown_fields_are_taken_from_the_answer() {
        let d = doc(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "labels": {"x": "1"}}, "data": {"k": "v"}}),
        );
        let f = Fields::new();
        let mut answer: Value = serde_json::from_str(&cut(&d, &f).unwrap()).unwrap();
        answer["metadata"].as_object_mut().unwrap().remove("labels");
        answer["immutable"] = json!(true);
        let merged = put_back(&d, &f, &doc(answer)).unwrap();
        assert_eq!(
            merged.value(),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}, "immutable": true})
        );
    }

    #[test]
    fn sights_widen() {
        let mut s = Sight::Nothing;
        s.widen(Sight::head());
        assert_eq!(s, Sight::head());
        s.widen_to_path(&["spec".into(), "template".into(), "metadata".into()]);
        assert_eq!(s, Sight::Part(fields(&[("spec", Some("template"))])));
        s.widen(Sight::Whole);
        assert_eq!(s, Sight::Whole);
        s.widen(Sight::head());
        assert_eq!(s, Sight::Whole);
    }

    #[test]
    fn the_head_value_holds_identity_and_metadata_only() {
        let d = doc(crd());
        assert_eq!(
            head_value(&d),
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": "foos.example.com"}})
        );
    }
}
