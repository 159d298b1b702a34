//! How the core holds a resource between plugin calls: its compact JSON
//! text, parsed only where the core must look inside, plus the few fields
//! the core reads on every resource (identity and build annotations).
//!
//! A parsed `serde_json::Value` costs ten to fifteen times its JSON text;
//! the core mostly passes resources from one plugin to the next, so keeping
//! the text keeps the core small and saves a parse and a serialisation per
//! resource per call (docs/benchmarks.md).

use crate::protocol::{
    self, GENERATOR_BEHAVIOR, HELM_GENERATED, LOCAL_CONFIG, NEEDS_HASH_SUFFIX, PREVIOUS_KINDS,
    PREVIOUS_NAMES, PREVIOUS_NAMESPACES,
};
use crate::{resid, resource, yaml, Error, ResId, Value};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use std::fmt;
use std::sync::Arc;

/// Annotations the core reads without parsing the whole resource.
const TRACKED_ANNOTATIONS: &[&str] = &[
    PREVIOUS_NAMES,
    PREVIOUS_NAMESPACES,
    PREVIOUS_KINDS,
    NEEDS_HASH_SUFFIX,
    GENERATOR_BEHAVIOR,
    LOCAL_CONFIG,
    HELM_GENERATED,
];

/// One resource as compact JSON, with its identity read out. Read-only
/// and shared: a clone (a cached base handed to each kustomization that
/// lists it, the audit log's copy before a call) costs a reference count,
/// not a copy of the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc(Arc<Text>);

/// Texts at least this long keep their spare capacity ([`Doc::of`]); the
/// YAML reader hands over its buffer for them rather than copying.
pub(crate) const KEEP_CAPACITY_BYTES: usize = 64 * 1024;

/// What a [`Doc`] shares between its clones.
#[derive(Debug, PartialEq)]
struct Text {
    /// A large text keeps the capacity it was written into ([`Doc::of`]).
    json: String,
    head: Head,
}

/// The fields read out of a resource: string values only, as
/// `crate::resource`'s accessors see them ("" when absent or not a string).
#[derive(Debug, Clone, Default, PartialEq)]
struct Head {
    api_version: String,
    kind: String,
    name: String,
    namespace: String,
    /// Tracked annotations that are present with a string value.
    annotations: Vec<(&'static str, String)>,
    /// Where the values of `apiVersion`, `kind` and `metadata` are in the
    /// text (byte ranges), so the head is read without scanning the rest.
    spans: HeadSpans,
}

/// Byte ranges of the head fields' values in a resource's text.
type HeadSpans = [Option<(usize, usize)>; 3];

/// The fields whose values [`HeadSpans`] locates, in its order.
const HEAD_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

impl Doc {
    fn of(mut json: String, head: Head) -> Doc {
        // A large text keeps its spare capacity, pages never touched: cut
        // to less than half its block, it would be copied (mimalloc's
        // realloc), into fresh pages (a CRD's YAML is 2.5 times its JSON,
        // and the reader reserves the YAML's length).
        if json.len() < KEEP_CAPACITY_BYTES {
            json.shrink_to_fit();
        }
        Doc(Arc::new(Text { json, head }))
    }

    /// Encode a parsed resource.
    pub fn from_value(v: &Value) -> Doc {
        let annotations = TRACKED_ANNOTATIONS
            .iter()
            .filter_map(|k| resource::annotation(v, k).map(|a| (*k, a.to_string())))
            .collect();
        let (json, spans) = encode(v);
        Doc::of(
            json,
            Head {
                api_version: resource::api_version(v).to_string(),
                kind: resource::kind(v).to_string(),
                name: resource::name(v).to_string(),
                namespace: resource::namespace(v).to_string(),
                annotations,
                spans,
            },
        )
    }

    /// A resource the YAML reader wrote straight to JSON text
    /// ([`yaml::for_each_resource_document`]): taken as it is, its head read
    /// from the head fields' values alone.
    pub fn from_object_text(object: yaml::ObjectText) -> Doc {
        let mut head = Head::default();
        for (key, (start, end)) in object.entries() {
            if let Some(field) = HEAD_FIELDS.iter().position(|f| *f == key) {
                head.spans[field] = Some((start, end));
                // Written by the reader, so valid JSON; a field of the wrong
                // type reads as absent, as everywhere.
                let _ = read_head_field(&mut head, field, &object.json()[start..end]);
            }
        }
        Doc::of(object.into_json(), head)
    }

    /// Take one JSON object's text as it is, reading only its identity.
    pub fn from_json(text: &str) -> Result<Doc, serde_json::Error> {
        let HeadOf(mut head, addresses) = crate::json::from_str::<HeadOf>(text)?;
        // The values were borrowed from `text`: their addresses give offsets.
        let base = text.as_ptr() as usize;
        head.spans = addresses.map(|a| a.map(|(at, len)| (at - base, at - base + len)));
        Ok(Doc::of(text.to_string(), head))
    }

    /// A resource from its top-level entries, whose values are JSON texts
    /// taken from other `Doc`s (so valid JSON): written as one object
    /// without reading the values again, except the head fields'.
    pub(crate) fn from_raw_entries<'a>(
        entries: impl Iterator<Item = (&'a str, &'a str)>,
        capacity: usize,
    ) -> Doc {
        let mut out = String::with_capacity(capacity);
        let mut head = Head::default();
        write_raw_object(&mut out, entries, |key, at, raw| {
            if let Some(field) = HEAD_FIELDS.iter().position(|f| *f == key) {
                head.spans[field] = Some((at, at + raw.len()));
                // Valid JSON by the caller's contract; a field of the wrong
                // type reads as absent, as everywhere.
                let _ = read_head_field(&mut head, field, raw);
            }
        });
        Doc::of(out, head)
    }

    /// The resource, parsed.
    pub fn value(&self) -> Value {
        crate::json::from_str(&self.0.json).expect("a Doc holds valid JSON")
    }

    /// Change the resource: parse, edit, encode again.
    pub fn update(&mut self, edit: impl FnOnce(&mut Value)) {
        let mut v = self.value();
        edit(&mut v);
        *self = Doc::from_value(&v);
    }

    /// The compact JSON text.
    pub fn json(&self) -> &str {
        &self.0.json
    }

    /// The JSON texts of `apiVersion`, `kind` and `metadata` (each `None`
    /// where absent), found without scanning the rest of the resource.
    pub fn head_texts(&self) -> [Option<&str>; 3] {
        self.0
            .head
            .spans
            .map(|span| span.map(|(a, b)| &self.0.json[a..b]))
    }

    /// apiVersion, or "".
    pub fn api_version(&self) -> &str {
        &self.0.head.api_version
    }

    /// kind, or "".
    pub fn kind(&self) -> &str {
        &self.0.head.kind
    }

    /// metadata.name, or "".
    pub fn name(&self) -> &str {
        &self.0.head.name
    }

    /// The current id.
    pub fn id(&self) -> ResId {
        ResId {
            gvk: crate::Gvk::from_api_version(&self.0.head.api_version, &self.0.head.kind),
            name: self.0.head.name.clone(),
            namespace: self.0.head.namespace.clone(),
        }
    }

    /// A tracked annotation's string value (see `TRACKED_ANNOTATIONS`).
    pub fn annotation(&self, key: &str) -> Option<&str> {
        debug_assert!(TRACKED_ANNOTATIONS.contains(&key), "{key} is not tracked");
        self.0
            .head
            .annotations
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The ids the resource had before its renames, oldest first.
    pub fn previous_ids(&self) -> Vec<ResId> {
        resid::previous_ids_from(&self.0.head.api_version, |k| self.annotation(k))
    }
}

/// Whether two resource lists hold the same resources in the same order
/// (compared as values: key order and spacing do not matter).
pub fn same_resources(a: &[Doc], b: &[Doc]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.0.json == y.0.json || x.value() == y.value())
}

/// Write `{"key":raw,…}` for the entries in order (each `raw` already JSON
/// text); `at` is told each entry with the offset its value starts at.
pub(crate) fn write_raw_object<'a>(
    out: &mut String,
    entries: impl Iterator<Item = (&'a str, &'a str)>,
    mut at: impl FnMut(&str, usize, &str),
) {
    out.push('{');
    for (i, (key, raw)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(key).expect("strings always serialise"));
        out.push(':');
        at(key, out.len(), raw);
        out.push_str(raw);
    }
    out.push('}');
}

/// A value's compact JSON text (as `serde_json::to_string` writes it) and
/// where the head fields' values are in it.
fn encode(v: &Value) -> (String, HeadSpans) {
    let mut spans = HeadSpans::default();
    let Value::Object(map) = v else {
        let text = serde_json::to_string(v).expect("JSON values always serialise");
        return (text, spans);
    };
    let mut out: Vec<u8> = Vec::with_capacity(256);
    out.push(b'{');
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut out, key).expect("strings always serialise");
        out.push(b':');
        let start = out.len();
        serde_json::to_writer(&mut out, value).expect("JSON values always serialise");
        if let Some(at) = HEAD_FIELDS.iter().position(|f| f == key) {
            spans[at] = Some((start, out.len()));
        }
    }
    out.push(b'}');
    let text = String::from_utf8(out).expect("serde_json writes UTF-8");
    (text, spans)
}

/// Encode parsed resources.
pub fn from_values(values: &[Value]) -> Vec<Doc> {
    values.iter().map(Doc::from_value).collect()
}

/// Encode parsed resources, dropping each value once it is encoded, so
/// that a large answer is never held twice in full.
pub fn from_owned_values(values: Vec<Value>) -> Vec<Doc> {
    values.into_iter().map(|v| Doc::from_value(&v)).collect()
}

/// Parse resources.
pub fn to_values(docs: &[Doc]) -> Vec<Value> {
    docs.iter().map(Doc::value).collect()
}

/// Write documents as [`protocol::write_json_stream`] does (`---` between
/// compact JSON documents), after the parsed `head` documents.
pub fn write_json_stream(head: &[Value], docs: &[Doc]) -> Vec<u8> {
    let mut out = protocol::write_json_stream(head);
    out.reserve(docs.iter().map(|d| d.0.json.len() + 5).sum());
    for d in docs {
        if !out.is_empty() {
            out.extend_from_slice(b"---\n");
        }
        out.extend_from_slice(d.0.json.as_bytes());
        out.push(b'\n');
    }
    out
}

/// Read a plugin's output stream: the JSON-documents framing is taken as
/// text without building values; any other YAML is parsed and encoded.
pub fn read_stream(bytes: &[u8]) -> Result<Vec<Doc>, Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::new(format!("not UTF-8: {e}")))?;
    if let Some(docs) = protocol::json_stream_chunks(text) {
        let mut out = Vec::new();
        let mut json_ok = true;
        for chunk in &docs {
            match Doc::from_json(chunk) {
                Ok(d) => out.push(d),
                Err(_) => {
                    json_ok = false;
                    break;
                }
            }
        }
        if json_ok {
            return Ok(out);
        }
    }
    Ok(from_values(&yaml::parse_stream(text)?))
}

// ---- Reading the head of a JSON object without building values ----
//
// Lenient as `crate::resource`'s accessors: a field of the wrong type
// reads as absent, and a repeated key replaces the earlier one, as in a
// parsed value.

/// What is read from a JSON map; any other JSON value reads as `default()`.
trait FromMap<'de>: Default {
    /// Read the fields of interest from `map`, skipping the rest.
    fn from_map<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;

    /// What a JSON string reads as.
    fn from_string(_: &str) -> Self {
        Self::default()
    }
}

/// Deserialize a [`FromMap`] from a map, or its default from anything else.
struct MapOrDefault<T>(T);

impl<'de, T: FromMap<'de>> serde::Deserialize<'de> for MapOrDefault<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Lenient::<T>(std::marker::PhantomData))
            .map(MapOrDefault)
    }
}

/// A string value, or None for any other value (which is skipped).
#[derive(Default)]
struct MaybeStr(Option<String>);

impl<'de> FromMap<'de> for MaybeStr {
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(MaybeStr(None))
    }

    fn from_string(s: &str) -> Self {
        MaybeStr(Some(s.to_string()))
    }
}

/// The visitor behind [`MapOrDefault`]: maps go to `T::from_map`, strings
/// to `T::from_string`, everything else is skipped.
struct Lenient<T>(std::marker::PhantomData<T>);

impl<'de, T: FromMap<'de>> Visitor<'de> for Lenient<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::from_map(map)
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<T, E> {
        Ok(T::from_string(s))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(T::default())
    }
    fn visit_bool<E>(self, _: bool) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::default())
    }
}

/// A string field's value ("" unless it is a string).
fn next_str<'de, A: MapAccess<'de>>(map: &mut A) -> Result<String, A::Error> {
    Ok(map
        .next_value::<MapOrDefault<MaybeStr>>()?
        .0
         .0
        .unwrap_or_default())
}

/// Reads a [`Head`] out of a JSON object, skipping everything else, with
/// the addresses and lengths of the head fields' values in the text.
struct HeadOf(Head, HeadSpans);

impl<'de> serde::Deserialize<'de> for HeadOf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(Lenient::<HeadAt>(std::marker::PhantomData))
            .map(|h| HeadOf(h.0, h.1))
    }
}

/// A [`Head`] and where its fields' values were (see [`HeadOf`]).
#[derive(Default)]
struct HeadAt(Head, HeadSpans);

impl<'de> FromMap<'de> for HeadAt {
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut head = Head::default();
        let mut at = HeadSpans::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let Some(field) = HEAD_FIELDS.iter().position(|f| *f == key.as_ref()) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            // Borrowed from the text: a resource's text is read from a
            // `&str`, so raw values are slices of it.
            let raw = map.next_value::<&'de serde_json::value::RawValue>()?;
            let text = raw.get();
            at[field] = Some((text.as_ptr() as usize, text.len()));
            read_head_field(&mut head, field, text).map_err(serde::de::Error::custom)?;
        }
        Ok(HeadAt(head, at))
    }
}

/// Read the value of `HEAD_FIELDS[field]`, given as JSON text, into `head`.
fn read_head_field(head: &mut Head, field: usize, text: &str) -> Result<(), serde_json::Error> {
    match field {
        0 => head.api_version = crate::json::from_str::<StrField>(text)?.0,
        1 => head.kind = crate::json::from_str::<StrField>(text)?.0,
        _ => {
            let m = crate::json::from_str::<MapOrDefault<Meta>>(text)?.0;
            head.name = m.name;
            head.namespace = m.namespace;
            head.annotations = m.annotations;
            // In the order `from_value` finds them, whatever the text's.
            head.annotations
                .sort_by_key(|(k, _)| TRACKED_ANNOTATIONS.iter().position(|t| t == k));
        }
    }
    Ok(())
}

/// A string field's value ("" unless it is a string), read on its own.
struct StrField(String);

impl<'de> serde::Deserialize<'de> for StrField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(StrField(
            MapOrDefault::<MaybeStr>::deserialize(d)?
                .0
                 .0
                .unwrap_or_default(),
        ))
    }
}

/// metadata: name, namespace and the tracked annotations.
#[derive(Default)]
struct Meta {
    name: String,
    namespace: String,
    annotations: Vec<(&'static str, String)>,
}

impl<'de> FromMap<'de> for Meta {
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut m = Meta::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "name" => m.name = next_str(&mut map)?,
                "namespace" => m.namespace = next_str(&mut map)?,
                "annotations" => {
                    m.annotations = map.next_value::<MapOrDefault<Annotations>>()?.0 .0
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(m)
    }
}

/// The tracked annotations of an annotations map (string values only).
#[derive(Default)]
struct Annotations(Vec<(&'static str, String)>);

impl<'de> FromMap<'de> for Annotations {
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut out: Vec<(&'static str, String)> = Vec::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match TRACKED_ANNOTATIONS.iter().find(|k| **k == key.as_ref()) {
                Some(k) => {
                    out.retain(|(old, _)| old != k);
                    let value = map.next_value::<MapOrDefault<MaybeStr>>()?.0 .0;
                    if let Some(v) = value {
                        out.push((k, v));
                    }
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Annotations(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn head_from_text_equals_head_from_value() {
        for v in [
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a", "namespace": "ns",
                "annotations": {PREVIOUS_NAMES: "x,y", "other": "z", LOCAL_CONFIG: true}}, "spec": {"x": [1, 2]}}),
            json!({"kind": 3, "metadata": "odd"}),
            json!({"kind": "K", "metadata": {"name": null, "annotations": [1]}}),
            json!({}),
        ] {
            let text = serde_json::to_string(&v).unwrap();
            let from_text = Doc::from_json(&text).unwrap();
            assert_eq!(from_text, Doc::from_value(&v));
            assert_eq!(from_text.value(), v);
        }
    }

    #[test]
    fn head_texts_locate_the_head_fields() {
        let v = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "{\"kind\":1}"},
            "metadata": {"name": "x", "labels": {"k": "v"}}, "zz": [1]});
        let from_value = Doc::from_value(&v);
        let from_text = Doc::from_json(&format!(" {} ", from_value.json())).unwrap();
        for d in [&from_value, &from_text] {
            assert_eq!(
                d.head_texts(),
                [
                    Some("\"v1\""),
                    Some("\"ConfigMap\""),
                    Some(r#"{"labels":{"k":"v"},"name":"x"}"#)
                ]
            );
        }
        let d = Doc::from_json(r#"{"kind":"A","spec":{"kind":"B"},"kind":"C"}"#).unwrap();
        assert_eq!(d.head_texts(), [None, Some("\"C\""), None]);
        assert_eq!(
            Doc::from_value(&json!([1])).head_texts(),
            [None, None, None]
        );
    }

    #[test]
    fn repeated_keys_keep_the_last_as_a_parsed_value_does() {
        let text = r#"{"kind":"A","kind":"B","metadata":{"name":"x","name":"y"}}"#;
        let d = Doc::from_json(text).unwrap();
        let v: Value = serde_json::from_str(text).unwrap();
        assert_eq!(d.kind(), resource::kind(&v));
        assert_eq!(d.name(), resource::name(&v));
    }

    #[test]
    fn reads_json_streams_and_yaml() {
        let docs =
            read_stream(b"{\"kind\":\"A\",\"metadata\":{\"name\":\"a\"}}\n---\n{\"kind\":\"B\"}\n")
                .unwrap();
        assert_eq!(docs.iter().map(Doc::kind).collect::<Vec<_>>(), ["A", "B"]);
        let docs = read_stream(b"kind: C\nmetadata:\n  name: c\n").unwrap();
        assert_eq!(docs[0].id().to_string(), "C.[noVer].[noGrp]/c.[noNs]");
        assert!(Doc::from_json("{\"kind\":\"A\"} x").is_err());
    }
}
