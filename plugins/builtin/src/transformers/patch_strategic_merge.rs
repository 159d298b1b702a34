//! PatchStrategicMergeTransformer (`patchesStrategicMerge:`): each patch
//! goes to the one resource with the patch's id (its current or any earlier
//! id), and the patch's list of resources is parsed the way kustomize parses
//! resource files.

use super::patch_json6902::string_field;
use crate::merging::smp;
use crate::selecting::picks::Picks;
use crate::selecting::target;
use crate::Ctx;
use kustom_api::schema::Schema;
use kustom_api::{err, resource, Error, Value};
use std::collections::VecDeque;

/// The PatchStrategicMergeTransformer: `paths` (files, or for historical
/// reasons inline patch text) and `patches` (text with one or more patches).
pub fn transform(config: &Value, resources: &mut Vec<Value>, ctx: &Ctx) -> Result<(), Error> {
    configure(config, ctx)?.apply(resources)
}

/// A configured PatchStrategicMergeTransformer: the loaded patches.
#[derive(Debug)]
pub struct PatchStrategicMergeTransformer {
    patches: Vec<Value>,
    schema: smp::PatchSchema,
}

/// Read and check the config, loading the patches (kustomize's
/// configuration-time errors).
pub fn configure(config: &Value, ctx: &Ctx) -> Result<PatchStrategicMergeTransformer, Error> {
    let paths = string_list(config, "paths")?;
    let patches_text = string_field(config, "patches")?;
    if paths.is_empty() && patches_text.is_empty() {
        return Err(err!("empty file path and empty patch content"));
    }
    let mut patches = Vec::new();
    for path in &paths {
        // kustomize first tries the entry as patch content, then as a file.
        match parse_resources(path) {
            Ok(p) => patches.extend(p),
            Err(_) => {
                let text = ctx.read_to_string(path)?;
                patches.extend(parse_resources(&text).map_err(|e| e.in_file(path))?);
            }
        }
    }
    if !patches_text.is_empty() {
        patches.extend(parse_resources(&patches_text).map_err(ParseError::into_error)?);
    }
    if patches.is_empty() {
        return Err(err!(
            "patch appears to be empty; files=[{}], Patch={patches_text}",
            paths.join(" ")
        ));
    }
    Ok(PatchStrategicMergeTransformer {
        patches,
        schema: smp::schema_from_config(config, ctx)?,
    })
}

impl PatchStrategicMergeTransformer {
    /// Which resources the patches pick (see [`crate::reach`]).
    pub(crate) fn picks(&self) -> Picks {
        let builtin_schema = self.schema.is_builtin();
        Picks::by_ids(&self.patches, builtin_schema.then_some(&self.patches[..]))
    }

    /// Apply each patch to the resource with the patch's id.
    pub fn apply(&self, resources: &mut Vec<Value>) -> Result<(), Error> {
        for patch in &self.patches {
            let i = target::find_by_id(resources, &target::org_id(patch))?;
            apply_to_selected(resources, &[i], patch, self.schema.get())?;
        }
        Ok(())
    }
}

/// A list of strings from the config (missing or null: empty).
fn string_list(config: &Value, key: &str) -> Result<Vec<String>, Error> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| err!("{key} must be a list of strings"))
            })
            .collect(),
        Some(_) => Err(err!("{key} must be a list of strings")),
    }
}

/// Apply a patch to the resources at `indices`, each with its own copy of
/// the patch prepared for it (kustomize's ResMap.ApplySmPatch); resources the
/// patch deletes leave the list.
pub(crate) fn apply_to_selected(
    resources: &mut Vec<Value>,
    indices: &[usize],
    patch: &Value,
    schema: &Schema,
) -> Result<(), Error> {
    let mut deleted = vec![false; resources.len()];
    for &i in indices {
        let prepared = smp::prepare_for_target(patch, &resources[i]);
        if !smp::apply_to_resource(&mut resources[i], prepared, schema)? {
            deleted[i] = true;
        }
    }
    let mut n = 0;
    resources.retain(|_| {
        n += 1;
        !deleted[n - 1]
    });
    Ok(())
}

/// Why patch text is not a list of resources.
#[derive(Debug)]
pub(crate) struct ParseError {
    error: Error,
    /// The YAML itself is malformed (rather than not describing resources).
    syntax: bool,
}

impl ParseError {
    /// The error as kustomize reports it for a file.
    pub(crate) fn in_file(self, path: &str) -> Error {
        if self.syntax {
            err!("MalformedYAMLError: {} in File: {path}", self.error)
        } else {
            self.error
        }
    }

    /// The error without a file name.
    pub(crate) fn into_error(self) -> Error {
        self.error
    }
}

/// Parse text into resources as kustomize's resource factory does: empty
/// documents are skipped, every other document must be a map with a kind
/// and (unless it is a `…List`) a name, and `…List` documents with `items`
/// are replaced by their items (queued after the other documents).
pub(crate) fn parse_resources(text: &str) -> Result<Vec<Value>, ParseError> {
    parse_resources_with(text, kustom_api::yaml::parse_stream)
}

/// [`parse_resources`] for a patch merged as written (no `target`): a null
/// annotation stays null, the merge's delete directive, since kustomize
/// merges the patch's own nodes there instead of a string-map copy.
pub(crate) fn parse_patch_as_written(text: &str) -> Result<Vec<Value>, ParseError> {
    parse_resources_with(text, kustom_api::yaml::parse_stream_as_patch)
}

fn parse_resources_with(
    text: &str,
    parse: fn(&str) -> Result<Vec<Value>, Error>,
) -> Result<Vec<Value>, ParseError> {
    let docs = parse(text).map_err(|error| ParseError {
        error,
        syntax: true,
    })?;
    let bad = |error: Error| ParseError {
        error,
        syntax: false,
    };
    let mut docs: Vec<Value> = docs.into_iter().filter(|d| !is_nil_or_empty(d)).collect();
    // A lone `List` (or ResourceList) document is unwrapped before validation.
    if let [only] = docs.as_slice() {
        let kind = resource::kind(only);
        if (kind == "List" || kind == "ResourceList")
            && (only.get("items").is_some() || only.get("functionConfig").is_some())
        {
            docs = match only.get("items") {
                Some(Value::Array(items)) => items
                    .iter()
                    .filter(|d| !is_nil_or_empty(d))
                    .cloned()
                    .collect(),
                _ => Vec::new(),
            };
        }
    }
    for d in &docs {
        validate(d).map_err(bad)?;
    }
    let mut queue: VecDeque<Value> = docs.into();
    let mut out = Vec::new();
    while let Some(doc) = queue.pop_front() {
        let kind = resource::kind(&doc).to_string();
        if !kind.ends_with("List") {
            out.push(doc);
            continue;
        }
        match doc.get("items") {
            None => out.push(doc),
            Some(Value::Null) => {}
            Some(Value::Array(items)) => queue.extend(items.iter().cloned()),
            Some(other) => {
                return Err(bad(err!(
                    "expected array in {kind}/items, but found {}",
                    go_type(other)
                )))
            }
        }
    }
    Ok(out)
}

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "map[string]interface {}",
        Value::String(_) => "string",
        Value::Number(_) => "float64",
        Value::Bool(_) => "bool",
        Value::Array(_) => "[]interface {}",
        Value::Null => "<nil>",
    }
}

fn is_nil_or_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// A scalar field's text when set and not empty (kyaml's GetMeta reading).
fn meta_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// kustomize's check that a document describes a resource.
fn validate(doc: &Value) -> Result<(), Error> {
    let Value::Object(m) = doc else {
        return Err(err!("missing Resource metadata"));
    };
    let api_version = meta_text(m.get("apiVersion"));
    let kind = meta_text(m.get("kind"));
    let meta = m.get("metadata").filter(|v| !is_nil_or_empty(v));
    if api_version.is_empty() && kind.is_empty() && meta.is_none() {
        return Err(err!("missing Resource metadata"));
    }
    let name = meta_text(meta.and_then(|md| md.get("name")));
    let namespace = meta_text(meta.and_then(|md| md.get("namespace")));
    let described = format!("{{{{{api_version} {kind}}} {{{{{name} {namespace}}}}}}}");
    if kind.is_empty() {
        return Err(err!("missing kind in object {described}"));
    }
    if kind.ends_with("List") {
        return Ok(());
    }
    if name.is_empty() {
        return Err(err!("missing metadata.name in object {described}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::LoadRestrictor;
    use crate::generators::generator_common::test_support::Scratch;
    use kustom_api::protocol;
    use serde_json::json;

    const RESOURCES: &str = r#"apiVersion: v1
kind: Service
metadata:
  name: svc
spec:
  ports:
  - port: 80
    targetPort: 8080
  - port: 53
    protocol: UDP
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  finalizers: [a, b]
data:
  k: v
"#;
    const LIST_PATCH: &str = r#"apiVersion: v1
kind: ConfigMapList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm
    finalizers: [c, a]
  data:
    k2: v2
"#;
    const OPS: &str = r#"- op: add
  path: /spec/ports/-
  value: {port: 443}
- op: test
  path: /spec/ports/0/port
  value: 8443
- op: remove
  path: /spec/ports/1
"#;
    const INLINE: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\nspec:\n  ports:\n  - port: 80\n    protocol: TCP\n    name: http\n  - port: 8443\n";
    /// `kubectl kustomize --reorder=none` of RESOURCES with `patchesStrategicMerge:
    /// [list.yaml, INLINE]` and `patchesJson6902: [{target: Service svc, path: ops.yaml}]`.
    const EXPECTED: &str = r#"apiVersion: v1
kind: Service
metadata:
  name: svc
spec:
  ports:
  - port: 8443
  - port: 53
    protocol: UDP
  - port: 443
---
apiVersion: v1
data:
  k: v
  k2: v2
kind: ConfigMap
metadata:
  finalizers:
  - c
  - a
  - b
  name: cm
"#;

    #[test]
    fn legacy_patch_fields_match_kubectl_kustomize() {
        let dir = Scratch::new("psm");
        dir.write("list.yaml", LIST_PATCH.as_bytes());
        dir.write("ops.yaml", OPS.as_bytes());
        let ctx = Ctx {
            root: dir.dir.clone(),
            load_restrictor: LoadRestrictor::RootOnly,
            kustomization: "kustomization.yaml".into(),
            remote_files: Default::default(),
            version: Default::default(),
        };
        let mut resources = kustom_api::yaml::parse_stream(RESOURCES).expect("fixture");
        let psm = json!({"apiVersion": "builtin", "kind": "PatchStrategicMergeTransformer",
                         "paths": ["list.yaml", INLINE]});
        transform(&psm, &mut resources, &ctx).expect("strategic merge");
        let json6902 = json!({"apiVersion": "builtin", "kind": "PatchJson6902Transformer",
            "target": {"version": "v1", "kind": "Service", "name": "svc"}, "path": "ops.yaml"});
        crate::transformers::patch_json6902::transform(&json6902, &mut resources, &ctx)
            .expect("json6902");
        for r in &mut resources {
            for a in protocol::BUILD_ANNOTATIONS {
                resource::remove_annotation(r, a);
            }
        }
        assert_eq!(kustom_api::yaml::to_yaml_stream(&resources), EXPECTED);
        // A failing test operation fails the transformer with the library's text.
        let bad = json!({"apiVersion": "builtin", "kind": "PatchJson6902Transformer",
            "target": {"name": "svc"}, "jsonOp": "[{\"op\": \"test\", \"path\": \"/spec/ports/0/port\", \"value\": 80}]"});
        assert_eq!(
            crate::transformers::patch_json6902::transform(&bad, &mut resources, &ctx)
                .expect_err("test fails")
                .message,
            "testing value /spec/ports/0/port failed: test failed"
        );
        let empty =
            json!({"apiVersion": "builtin", "kind": "PatchStrategicMergeTransformer", "paths": []});
        assert_eq!(
            transform(&empty, &mut resources, &ctx)
                .expect_err("empty")
                .message,
            "empty file path and empty patch content"
        );
    }

    #[test]
    fn applies_to_selected_and_drops_deleted() {
        let mut rs = vec![
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}),
        ];
        let patch = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x",
            "labels": {"n": 1}}, "data": {"k": null, "k2": "v2"}});
        apply_to_selected(&mut rs, &[0, 1], &patch, Schema::builtin()).expect("applies");
        assert_eq!(rs[0]["data"], json!({"k2": "v2"}));
        assert_eq!(
            rs[0]["metadata"],
            json!({"name": "a", "labels": {"n": "1"}})
        );
        assert_eq!(rs[1]["metadata"]["name"], "b");
        let del = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "$patch": "delete"});
        apply_to_selected(&mut rs, &[0], &del, Schema::builtin()).expect("applies");
        assert_eq!(rs.len(), 1);
        assert_eq!(rs[0]["metadata"]["name"], "b");
    }

    #[test]
    fn validates_documents() {
        assert!(validate(&json!({"kind": "ConfigMap", "metadata": {"name": "a"}})).is_ok());
        assert!(validate(&json!({"kind": "ConfigMapList"})).is_ok());
        let e =
            validate(&json!({"apiVersion": "v1", "metadata": {"name": "a"}})).expect_err("kind");
        assert!(e.message.starts_with("missing kind in object"));
        let e = validate(&json!({"apiVersion": "v1", "kind": "ConfigMap"})).expect_err("name");
        assert!(e.message.starts_with("missing metadata.name in object"));
        assert_eq!(
            validate(&json!("patch.yaml")).expect_err("scalar").message,
            "missing Resource metadata"
        );
        assert!(validate(&json!([{"op": "add"}])).is_err());
    }
}
