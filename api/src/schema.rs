//! The part of an OpenAPI (swagger 2.0) schema a strategic merge patch needs:
//! which fields exist, which lists merge by which keys.
//!
//! kustomize looks schemas up the way kyaml's `openapi` package does: the
//! schema of a resource comes from its apiVersion and kind
//! (`x-kubernetes-group-version-kind` on a definition), the schema of a field
//! from the parent's `properties` (or `additionalProperties` for maps), the
//! schema of a list element from `items`, `$ref`s being resolved at each step.
//! A list merges by key when its `x-kubernetes-patch-strategy` contains
//! `merge`; the keys are `x-kubernetes-list-map-keys` when present, else
//! `x-kubernetes-patch-merge-key`.
//!
//! The builtin schema is Kubernetes 1.21.2's, the one kustomize v5.5.0
//! embeds, reduced to that structure by `data/gen_k8s_openapi.py` into
//! `data/k8s_openapi_v1_21_2.txt`. A user-supplied schema (the kustomization
//! `openapi:` field) replaces it entirely, as in kustomize.

use crate::{err, Error};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A name from the schema: borrowed from the builtin schema's text, which
/// is part of the program, so that reading it allocates no strings.
type Name = Cow<'static, str>;

/// The Kubernetes version of the builtin schema, as kustomize names it.
pub const BUILTIN_VERSION: &str = "v1.21.2";

/// `$ref`s kustomize resolves point into the document's `definitions`.
const DEFINITIONS_PREFIX: &str = "#/definitions/";

/// A `$ref` chain longer than this is a cycle; the lookup gives up.
const MAX_REF_DEPTH: usize = 64;

type NodeId = usize;

/// One schema object, with only the parts the merge consults.
#[derive(Debug, Default, Clone)]
struct Node {
    /// Definition name this schema refers to (`$ref`), replacing everything else.
    reference: Option<Name>,
    /// `type` is exactly `array` (kyaml only walks into items then).
    is_array: bool,
    items: Option<NodeId>,
    /// Sorted by name, one entry per name (see [`sort_properties`]).
    properties: Vec<(Name, NodeId)>,
    additional: Option<NodeId>,
    /// `x-kubernetes-patch-strategy`, e.g. `merge` or `merge,retainKeys`.
    strategy: Option<Name>,
    /// The merge keys that go with the strategy.
    keys: Vec<String>,
}

/// A parsed schema: definitions plus the index from resource type to definition.
#[derive(Debug, Default, Clone)]
pub struct Schema {
    nodes: Vec<Node>,
    definitions: HashMap<Name, NodeId>,
    /// By kind, then apiVersion.
    by_type: HashMap<Name, HashMap<Name, NodeId>>,
}

/// The builtin schema in `data/gen_k8s_openapi.py`'s compact format.
const BUILTIN_TEXT: &str = include_str!("data/k8s_openapi_v1_21_2.txt");

/// A position in a [`Schema`]: the schema of one resource, field or list element.
#[derive(Debug, Clone, Copy)]
pub struct SchemaNode<'a> {
    schema: &'a Schema,
    id: NodeId,
}

impl Schema {
    /// The builtin Kubernetes schema (parsed once per process).
    pub fn builtin() -> &'static Schema {
        static BUILTIN: OnceLock<Schema> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            // The data file is generated and checked in; a parse failure is a
            // build defect, caught by this module's tests. Fall back to an
            // empty schema rather than aborting a build.
            Schema::from_compact(BUILTIN_TEXT).unwrap_or_default()
        })
    }

    /// A schema that knows no types: every list is replaced, never merged.
    pub fn empty() -> Schema {
        Schema::default()
    }

    /// The schema of resources with this apiVersion and kind, if known.
    pub fn for_type(&self, api_version: &str, kind: &str) -> Option<SchemaNode<'_>> {
        let id = *self.by_type.get(kind)?.get(api_version)?;
        Some(SchemaNode { schema: self, id })
    }

    /// Whether the schema knows any resource type.
    pub fn is_empty(&self) -> bool {
        self.by_type.is_empty()
    }

    /// This schema with `later` parsed into it afterwards, the way kyaml
    /// adds a second document to its global schema: definitions and
    /// resource types of `later` replace same-named ones, and `$ref`s
    /// resolve across both.
    pub fn merged_with(&self, later: &Schema) -> Schema {
        let mut out = self.clone();
        let offset = out.nodes.len();
        let shift = |id: NodeId| id + offset;
        for node in &later.nodes {
            let mut n = node.clone();
            n.items = n.items.map(shift);
            n.additional = n.additional.map(shift);
            for (_, id) in &mut n.properties {
                *id = shift(*id);
            }
            out.nodes.push(n);
        }
        for (name, id) in &later.definitions {
            out.definitions.insert(name.clone(), shift(*id));
        }
        for (kind, versions) in &later.by_type {
            for (api_version, id) in versions {
                out.add_type(api_version.clone(), kind.clone(), shift(*id));
            }
        }
        out
    }

    /// Parse an OpenAPI (swagger 2.0) document, JSON or YAML already decoded:
    /// its `definitions`, indexed by `x-kubernetes-group-version-kind`.
    pub fn from_document(doc: &Value) -> Result<Schema, Error> {
        let defs = match doc.get("definitions") {
            None | Some(Value::Null) => return Ok(Schema::default()),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(err!("invalid OpenAPI schema: definitions is not a map")),
        };
        let mut schema = Schema::default();
        for (name, def) in defs {
            let id = schema.add_json(def);
            schema.definitions.insert(name.clone().into(), id);
            let gvks = def
                .get("x-kubernetes-group-version-kind")
                .and_then(Value::as_array);
            for gvk in gvks.into_iter().flatten() {
                let field = |k: &str| gvk.get(k).and_then(Value::as_str).unwrap_or("");
                let (group, version, kind) = (field("group"), field("version"), field("kind"));
                // kyaml requires version and kind; entries without them index nothing.
                if version.is_empty() || kind.is_empty() {
                    continue;
                }
                let api_version = if group.is_empty() {
                    version.to_string()
                } else {
                    format!("{group}/{version}")
                };
                schema.add_type(api_version.into(), kind.to_string().into(), id);
            }
        }
        Ok(schema)
    }

    /// Index a resource type; a later one replaces an earlier one.
    fn add_type(&mut self, api_version: Name, kind: Name, id: NodeId) {
        self.by_type
            .entry(kind)
            .or_default()
            .insert(api_version, id);
    }

    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Add one JSON schema object (recursively) and return its id.
    fn add_json(&mut self, v: &Value) -> NodeId {
        let mut node = Node::default();
        if let Some(r) = v.get("$ref").and_then(Value::as_str) {
            // Only local definition references resolve; others never do.
            node.reference = Some(match r.strip_prefix(DEFINITIONS_PREFIX) {
                Some(name) => name.to_string().into(),
                None => format!("\u{0}{r}").into(),
            });
        }
        node.is_array = match v.get("type") {
            Some(Value::String(t)) => t == "array",
            Some(Value::Array(ts)) => ts.len() == 1 && ts[0].as_str() == Some("array"),
            _ => false,
        };
        if let Some(items @ Value::Object(_)) = v.get("items") {
            node.items = Some(self.add_json(items));
        }
        if let Some(Value::Object(props)) = v.get("properties") {
            for (k, p) in props {
                let id = self.add_json(p);
                node.properties.push((k.clone().into(), id));
            }
            sort_properties(&mut node.properties);
        }
        if let Some(add @ Value::Object(_)) = v.get("additionalProperties") {
            node.additional = Some(self.add_json(add));
        }
        if let Some(s) = v.get("x-kubernetes-patch-strategy").and_then(Value::as_str) {
            node.strategy = Some(s.to_string().into());
            if let Some(keys) = v
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
            {
                node.keys = keys
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect();
            } else if let Some(k) = v
                .get("x-kubernetes-patch-merge-key")
                .and_then(Value::as_str)
            {
                node.keys = vec![k.to_string()];
            }
        }
        self.push(node)
    }

    /// Parse the compact line format written by `data/gen_k8s_openapi.py`;
    /// the schema borrows its names from `text`.
    pub fn from_compact(text: &'static str) -> Result<Schema, Error> {
        let mut schema = Schema::default();
        // About one node per line, more for nested types: room up front
        // instead of copying the nodes as they double.
        schema.nodes.reserve(text.len() / 32);
        let mut current: Option<NodeId> = None;
        for (n, line) in text.lines().enumerate() {
            let line_err = |what: &str| err!("schema data line {}: {what}", n + 1);
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            // Split by hand: `str::split` with a char pattern costs more per
            // call than these short lines take to scan.
            let mut rest = line;
            let mut words = std::iter::from_fn(|| {
                if rest.is_empty() {
                    return None;
                }
                let end = rest.bytes().position(|b| b == b' ').unwrap_or(rest.len());
                let word = &rest[..end];
                rest = rest.get(end + 1..).unwrap_or("");
                Some(word)
            });
            let tag = words.next().unwrap_or("");
            if tag == "D" {
                let name = words.next().ok_or_else(|| line_err("missing name"))?;
                let id = schema.push(Node::default());
                schema.definitions.insert(name.into(), id);
                current = Some(id);
                continue;
            }
            let cur = current.ok_or_else(|| line_err("entry before any definition"))?;
            match tag {
                "G" => {
                    let api_version = words.next().ok_or_else(|| line_err("missing apiVersion"))?;
                    let kind = words.next().ok_or_else(|| line_err("missing kind"))?;
                    schema.add_type(api_version.into(), kind.into(), cur);
                }
                "P" => {
                    let name = words.next().ok_or_else(|| line_err("missing property"))?;
                    let expr = words.next().ok_or_else(|| line_err("missing type"))?;
                    let (id, rest) = schema.parse_expr(expr).map_err(|e| line_err(&e))?;
                    if !rest.is_empty() {
                        return Err(line_err("trailing characters in type"));
                    }
                    schema.set_strategy(id, words.next(), words.next());
                    schema.nodes[cur].properties.push((name.into(), id));
                }
                "A" => {
                    let expr = words.next().ok_or_else(|| line_err("missing type"))?;
                    let (id, _) = schema.parse_expr(expr).map_err(|e| line_err(&e))?;
                    schema.nodes[cur].additional = Some(id);
                }
                "S" => schema.set_strategy(cur, words.next(), words.next()),
                _ => return Err(line_err("unknown entry")),
            }
        }
        for node in &mut schema.nodes {
            sort_properties(&mut node.properties);
        }
        Ok(schema)
    }

    fn set_strategy(&mut self, id: NodeId, strategy: Option<&'static str>, keys: Option<&str>) {
        if let Some(s) = strategy {
            let node = &mut self.nodes[id];
            node.strategy = Some(s.into());
            node.keys = keys
                .map(|k| k.split(',').map(str::to_string).collect())
                .unwrap_or_default();
        }
    }

    /// Parse one type expression (`-`, `@Def`, `[expr]`, `[]`, `{expr}`),
    /// returning the node and the unparsed rest.
    fn parse_expr(&mut self, s: &'static str) -> Result<(NodeId, &'static str), String> {
        if let Some(rest) = s.strip_prefix('-') {
            return Ok((self.push(Node::default()), rest));
        }
        if let Some(name) = s.strip_prefix('@') {
            // A reference runs to the first closing bracket of an enclosing expression.
            let end = name
                .bytes()
                .position(|b| b == b']' || b == b'}')
                .unwrap_or(name.len());
            let node = Node {
                reference: Some(name[..end].into()),
                ..Node::default()
            };
            return Ok((self.push(node), &name[end..]));
        }
        if let Some(rest) = s.strip_prefix('[') {
            if let Some(rest) = rest.strip_prefix(']') {
                let node = Node {
                    is_array: true,
                    ..Node::default()
                };
                return Ok((self.push(node), rest));
            }
            let (inner, rest) = self.parse_expr(rest)?;
            let rest = rest.strip_prefix(']').ok_or("unclosed [")?;
            let node = Node {
                is_array: true,
                items: Some(inner),
                ..Node::default()
            };
            return Ok((self.push(node), rest));
        }
        if let Some(rest) = s.strip_prefix('{') {
            let (inner, rest) = self.parse_expr(rest)?;
            let rest = rest.strip_prefix('}').ok_or("unclosed {")?;
            let node = Node {
                additional: Some(inner),
                ..Node::default()
            };
            return Ok((self.push(node), rest));
        }
        Err(format!("bad type expression {s:?}"))
    }

    /// Follow `$ref`s from `id` to a schema without one; None when a
    /// reference does not resolve (kyaml then has no schema either).
    fn resolve(&self, mut id: NodeId) -> Option<NodeId> {
        for _ in 0..MAX_REF_DEPTH {
            match &self.nodes[id].reference {
                None => return Some(id),
                Some(name) => id = *self.definitions.get(name.as_ref())?,
            }
        }
        None
    }
}

/// Sort a node's properties by name for lookup; of two with one name the
/// later is kept, as a map insert would.
fn sort_properties(properties: &mut Vec<(Name, NodeId)>) {
    if properties.is_sorted_by(|a, b| a.0 < b.0) {
        return;
    }
    // Stable: equal names stay in order, so the last of each run is the latest.
    properties.sort_by(|a, b| a.0.cmp(&b.0));
    properties.reverse();
    properties.dedup_by(|later, earlier| later.0 == earlier.0);
    properties.reverse();
}

impl<'a> SchemaNode<'a> {
    fn node(&self) -> &'a Node {
        &self.schema.nodes[self.id]
    }

    fn at(&self, id: Option<NodeId>) -> Option<SchemaNode<'a>> {
        let id = self.schema.resolve(id?)?;
        Some(SchemaNode {
            schema: self.schema,
            id,
        })
    }

    /// The schema of field `name`: a declared property, else the map's value schema.
    pub fn field(&self, name: &str) -> Option<SchemaNode<'a>> {
        let node = self.node();
        let declared = node
            .properties
            .binary_search_by(|(k, _)| k.as_ref().cmp(name))
            .ok()
            .map(|i| node.properties[i].1);
        self.at(declared.or(node.additional))
    }

    /// The schema of the elements, when this is an array schema.
    pub fn elements(&self) -> Option<SchemaNode<'a>> {
        let node = self.node();
        if !node.is_array {
            return None;
        }
        self.at(node.items)
    }

    /// `x-kubernetes-patch-strategy`, "" when unset.
    pub fn patch_strategy(&self) -> &'a str {
        self.node().strategy.as_deref().unwrap_or("")
    }

    /// The merge keys of the list (list-map keys, else the patch merge key);
    /// empty for lists of scalars and when there is no strategy.
    pub fn merge_keys(&self) -> &'a [String] {
        &self.node().keys
    }

    /// Whether the patch strategy includes `merge`: lists with it are merged
    /// element by element, all others are replaced.
    pub fn merges_lists(&self) -> bool {
        self.patch_strategy().split(',').any(|s| s == "merge")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn properties_are_found_by_name_the_later_of_two_kept() {
        let mut props: Vec<(Name, NodeId)> = vec![
            ("b".into(), 1),
            ("a".into(), 2),
            ("b".into(), 3),
            ("c".into(), 4),
        ];
        sort_properties(&mut props);
        assert_eq!(
            props,
            vec![("a".into(), 2), ("b".into(), 3), ("c".into(), 4)]
        );
    }

    #[test]
    fn builtin_data_parses_completely() {
        let s = Schema::from_compact(BUILTIN_TEXT).expect("generated data parses");
        let types: usize = s.by_type.values().map(HashMap::len).sum();
        assert!(types > 150, "{types} types");
        assert!(s.definitions.len() > 600);
        // Every reference points at a definition.
        for n in &s.nodes {
            if let Some(r) = &n.reference {
                assert!(s.definitions.contains_key(r), "dangling {r}");
            }
        }
    }

    #[test]
    fn builtin_pod_spec_lists() {
        let s = Schema::builtin();
        let dep = s
            .for_type("apps/v1", "Deployment")
            .expect("Deployment known");
        let pod = dep
            .field("spec")
            .and_then(|x| x.field("template"))
            .and_then(|x| x.field("spec"))
            .expect("pod spec");
        let containers = pod.field("containers").expect("containers");
        assert!(containers.merges_lists());
        assert_eq!(containers.merge_keys(), ["name"]);
        let c = containers.elements().expect("container schema");
        let ports = c.field("ports").expect("ports");
        assert_eq!(ports.merge_keys(), ["containerPort", "protocol"]);
        assert_eq!(
            c.field("volumeMounts").map(|v| v.merge_keys().to_vec()),
            Some(vec!["mountPath".to_string()])
        );
        assert!(!c.field("args").expect("args").merges_lists());
        let volumes = pod.field("volumes").expect("volumes");
        assert_eq!(volumes.patch_strategy(), "merge,retainKeys");
        assert!(volumes.merges_lists());
        // Unknown fields have no schema.
        assert!(pod.field("noSuchField").is_none());
    }

    #[test]
    fn builtin_maps_and_primitive_lists() {
        let s = Schema::builtin();
        let cm = s.for_type("v1", "ConfigMap").expect("ConfigMap");
        // data is a map of strings: any key has the value schema.
        assert!(cm.field("data").and_then(|d| d.field("anything")).is_some());
        let fin = cm
            .field("metadata")
            .and_then(|m| m.field("finalizers"))
            .expect("finalizers");
        assert!(fin.merges_lists());
        assert!(fin.merge_keys().is_empty());
        assert!(s.for_type("example.com/v1", "Unknown").is_none());
        let svc = s.for_type("v1", "Service").expect("Service");
        let ports = svc
            .field("spec")
            .and_then(|x| x.field("ports"))
            .expect("ports");
        assert_eq!(ports.merge_keys(), ["port", "protocol"]);
    }

    #[test]
    fn custom_document() {
        let doc = json!({"definitions": {
            "my.Thing": {
                "type": "object",
                "x-kubernetes-group-version-kind": [
                    {"group": "example.com", "version": "v1", "kind": "Thing"},
                    {"group": "", "version": "v1", "kind": "Thing"}
                ],
                "properties": {
                    "items": {"type": "array", "items": {"$ref": "#/definitions/my.Item"},
                              "x-kubernetes-patch-strategy": "merge",
                              "x-kubernetes-patch-merge-key": "id"},
                    "loop": {"$ref": "#/definitions/my.Loop"},
                    "missing": {"$ref": "#/definitions/nope"}
                }
            },
            "my.Item": {"type": "object", "properties": {"id": {"type": "string"}}},
            "my.Loop": {"$ref": "#/definitions/my.Loop"}
        }});
        let s = Schema::from_document(&doc).expect("parses");
        for av in ["example.com/v1", "v1"] {
            let t = s.for_type(av, "Thing").expect("indexed");
            let items = t.field("items").expect("items");
            assert_eq!(items.merge_keys(), ["id"]);
            assert!(items.elements().and_then(|e| e.field("id")).is_some());
            assert!(
                t.field("loop").is_none(),
                "reference cycles resolve to nothing"
            );
            assert!(t.field("missing").is_none());
        }
        assert!(s.for_type("apps/v1", "Deployment").is_none());
    }

    #[test]
    fn compact_format_errors() {
        assert!(Schema::from_compact("P x -\n").is_err());
        assert!(Schema::from_compact("D a\nP x [-\n").is_err());
        assert!(Schema::from_compact("D a\nQ\n").is_err());
        let s = Schema::from_compact("D a\nG v1 A\nP x [{@b}] merge k1,k2\nD b\nP y -\n")
            .expect("valid");
        let a = s.for_type("v1", "A").expect("A");
        let x = a.field("x").expect("x");
        assert_eq!(x.merge_keys(), ["k1", "k2"]);
        let el = x.elements().expect("elements");
        assert!(el.field("anykey").and_then(|b| b.field("y")).is_some());
    }
}
