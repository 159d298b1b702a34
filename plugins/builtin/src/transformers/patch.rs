//! PatchTransformer (`patches:`): one patch, inline (`patch`) or from a file
//! (`path`), that is either strategic merge (one or more resource documents)
//! or JSON 6902 (a list of operations), applied to the resources picked by
//! `target`, or for strategic merge patches without target to the resource
//! with the patch's own id.
//!
//! Which kind a patch is follows kustomize: the text is parsed both ways and
//! exactly one must succeed.

use super::patch_json6902::string_field;
use super::patch_strategic_merge::{apply_to_selected, parse_patch_as_written, parse_resources};
use crate::merging::json_patch::{self, Operation};
use crate::merging::smp;
use crate::selecting::picks::Picks;
use crate::selecting::target::{self, Selector};
use crate::Ctx;
use kustom_api::schema::Schema;
use kustom_api::{err, protocol, resource, Error, Map, Value};

/// The PatchTransformer: `patch` or `path`, optional `target`, and
/// `options: {allowNameChange, allowKindChange}`.
pub fn transform(config: &Value, resources: &mut Vec<Value>, ctx: &Ctx) -> Result<(), Error> {
    configure(config, ctx)?.apply(resources)
}

/// A configured PatchTransformer.
#[derive(Debug)]
pub struct PatchTransformer {
    patch: Patch,
    target: Option<Selector>,
    /// `[patch: "…"]` or `[path: "…"]`, for messages.
    source: String,
}

#[derive(Debug)]
enum Patch {
    StrategicMerge(Vec<Value>, smp::PatchSchema),
    Json(Vec<Operation>),
    /// A text without documents or operations, which does nothing.
    Empty,
}

/// Read and check a PatchTransformer config, loading and parsing the patch.
/// The errors are the ones kustomize reports while configuring the plugin
/// (before any transformer runs).
pub fn configure(config: &Value, ctx: &Ctx) -> Result<PatchTransformer, Error> {
    let inline = string_field(config, "patch")?.trim().to_string();
    let path = string_field(config, "path")?;
    let (text, source) = match (inline.is_empty(), path.is_empty()) {
        (true, true) => {
            return Err(err!(
                "must specify one of patch and path in\n{}",
                config_text(config)
            ))
        }
        (false, false) => {
            return Err(err!(
                "patch and path can't be set at the same time\n{}",
                config_text(config)
            ))
        }
        (false, true) => {
            let source = format!("[patch: {}]", go_quote(&inline));
            (inline, source)
        }
        (true, false) => {
            let text = ctx.read_to_string(&path).map_err(|e| {
                e.context(format!("failed to get the patch file from path({path})"))
            })?;
            (text, format!("[path: {}]", go_quote(&path)))
        }
    };
    let target = match config.get("target") {
        None | Some(Value::Null) => None,
        Some(t) => Some(Selector::from_value(t)?),
    };
    let sm = match target {
        Some(_) => parse_resources(&text),
        None => parse_patch_as_written(&text),
    };
    let json = json_ops(&text);
    // kustomize #5771 (v5.7.0) and #5956 (v5.8.1): a patch without documents does nothing.
    let empty = ctx.version.is_5_8() && sm.as_ref().is_ok_and(Vec::is_empty);
    let patch = match (sm, json) {
        _ if empty => Patch::Empty,
        (Ok(_), Ok(_)) => {
            return Err(err!(
                "illegally qualifies as both an SM and JSON patch: {source}"
            ))
        }
        (Err(_), Err(_)) => return Err(err!("unable to parse SM or JSON patch from {source}")),
        (Ok(patches), Err(_)) if !patches.is_empty() => Patch::StrategicMerge(
            with_options(patches, config),
            smp::schema_from_config(config, ctx)?,
        ),
        // A strategic merge patch without documents is treated as a JSON
        // patch without operations, as in kustomize.
        (Ok(_), Err(_)) => Patch::Json(Vec::new()),
        (Err(_), Ok(ops)) => Patch::Json(ops),
    };
    Ok(PatchTransformer {
        patch,
        target,
        source,
    })
}

impl PatchTransformer {
    /// Apply the patch to the resources.
    pub fn apply(&self, resources: &mut Vec<Value>) -> Result<(), Error> {
        match &self.patch {
            Patch::StrategicMerge(patches, schema) => {
                self.strategic_merge(resources, patches, schema.get())
            }
            Patch::Json(ops) => self.json6902(resources, ops),
            Patch::Empty => Ok(()),
        }
    }

    /// Which resources the patch picks (see [`crate::reach`]); None for a
    /// JSON patch without target or a bad selector, errors when applied.
    pub(crate) fn picks(&self) -> Option<Picks> {
        let merged = match &self.patch {
            Patch::StrategicMerge(patches, schema) if schema.is_builtin() => {
                Some(patches.as_slice())
            }
            _ => None,
        };
        match (&self.target, &self.patch) {
            (Some(sel), _) => Picks::by_selector(sel, merged),
            (None, Patch::StrategicMerge(patches, _)) => Some(Picks::by_ids(patches, merged)),
            (None, Patch::Json(_)) => None,
            (None, Patch::Empty) => Some(Picks::by_ids(&[], None)),
        }
    }

    fn strategic_merge(
        &self,
        resources: &mut Vec<Value>,
        patches: &[Value],
        schema: &Schema,
    ) -> Result<(), Error> {
        if let Some(sel) = &self.target {
            let [patch] = patches else {
                return Err(err!(
                    "Multiple Strategic-Merge Patches in one `patches` entry is not allowed to set `patches.target` field: {}",
                    self.source
                ));
            };
            let selected = target::select_with(resources, sel).map_err(|e| {
                err!(
                    "unable to find patch target {} in `resources`: {e}",
                    go_quote(&sel.to_string())
                )
            })?;
            return apply_to_selected(resources, &selected, patch, schema);
        }
        for patch in patches {
            let id = target::org_id(patch);
            let i = target::find_by_id(resources, &id).map_err(|e| {
                err!(
                    "no resource matches strategic merge patch {}: {e}",
                    go_quote(&id.to_string())
                )
            })?;
            // Without a target, the patch applies as written (no preparation).
            if !smp::apply_to_resource(&mut resources[i], patch.clone(), schema)? {
                resources.remove(i);
            }
        }
        Ok(())
    }

    fn json6902(&self, resources: &mut [Value], ops: &[Operation]) -> Result<(), Error> {
        let Some(sel) = &self.target else {
            return Err(err!("must specify a target for JSON patch {}", self.source));
        };
        for i in target::select_with(resources, sel)? {
            let res = &mut resources[i];
            target::store_previous_id(res);
            json_patch::apply_keeping_annotations(res, ops)?;
        }
        Ok(())
    }
}

/// kustomize's jsonPatchFromBytes: empty text is an error, text not
/// starting with `[` is read as YAML.
fn json_ops(text: &str) -> Result<Vec<Operation>, Error> {
    if text.is_empty() {
        return Err(err!("empty json patch operations"));
    }
    json_patch::decode(text)
}

/// The config as kustomize prints it in errors: the plugin fields only.
fn config_text(config: &Value) -> String {
    let mut shown = Map::new();
    for key in ["path", "patch", "target", "options"] {
        if let Some(v) = config.get(key).filter(|v| !v.is_null()) {
            shown.insert(key.to_string(), v.clone());
        }
    }
    kustom_api::yaml::to_yaml(&Value::Object(shown))
}

/// Mark each patch as allowed to rename or re-kind its target (kustomize
/// keeps this as build annotations on the patch, rewriting them as strings).
fn with_options(patches: Vec<Value>, config: &Value) -> Vec<Value> {
    let option = |k: &str| {
        config
            .get("options")
            .and_then(|o| o.get(k))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let enable: Vec<&str> = [
        ("allowNameChange", protocol::ALLOW_NAME_CHANGE),
        ("allowKindChange", protocol::ALLOW_KIND_CHANGE),
    ]
    .into_iter()
    .filter(|(opt, _)| option(opt))
    .map(|(_, anno)| anno)
    .collect();
    if enable.is_empty() {
        return patches;
    }
    patches
        .into_iter()
        .map(|mut p| {
            for anno in &enable {
                let mut strings: Map<String, Value> =
                    match resource::get_at(&p, &["metadata", "annotations"]) {
                        Some(Value::Object(m)) => m
                            .iter()
                            .map(|(k, v)| (k.clone(), Value::String(scalar_text(v))))
                            .collect(),
                        _ => Map::new(),
                    };
                strings.insert(anno.to_string(), Value::String("enabled".into()));
                resource::map_at_mut(&mut p, &["metadata"])
                    .insert("annotations".into(), Value::Object(strings));
            }
            p
        })
        .collect()
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        _ => String::new(),
    }
}

/// Go's `%q`: a double-quoted string with Go escapes.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            ' ' => out.push(' '),
            c if !c.is_control() && !c.is_whitespace() && c != '\u{ad}' => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::LoadRestrictor;
    use crate::generators::generator_common::test_support::Scratch;
    use serde_json::json;

    /// A scratch kustomization directory with these files (removed when
    /// the `Scratch` is dropped).
    fn scratch(name: &str, files: &[(&str, &str)]) -> (Scratch, Ctx) {
        let dir = Scratch::new(&format!("patch-{name}"));
        for (file, text) in files {
            dir.write(file, text.as_bytes());
        }
        let ctx = Ctx {
            root: dir.dir.clone(),
            load_restrictor: LoadRestrictor::RootOnly,
            kustomization: "kustomization.yaml".into(),
            remote_files: Default::default(),
            version: kustom_api::KustomizeVersion::V5_5, // the errors below are v5.5.0's
        };
        (dir, ctx)
    }

    fn run(
        kind: &str,
        mut config: Value,
        resources: &mut Vec<Value>,
        ctx: &Ctx,
    ) -> Result<(), Error> {
        config["apiVersion"] = json!("builtin");
        config["kind"] = json!(kind);
        crate::transformer(kind).expect("builtin")(&config, resources, ctx)
    }

    fn output(mut resources: Vec<Value>) -> String {
        for r in &mut resources {
            for a in protocol::BUILD_ANNOTATIONS {
                resource::remove_annotation(r, a);
            }
        }
        kustom_api::yaml::to_yaml_stream(&resources)
    }

    const DEPLOY: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 1
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: app
        image: app:1
        env:
        - name: MODE
          value: prod
        - name: PORT
          value: "8080"
        ports:
        - containerPort: 8080
        - containerPort: 9090
          protocol: UDP
        volumeMounts:
        - name: data
          mountPath: /data
      - name: sidecar
        image: side:1
      volumes:
      - name: data
        emptyDir: {}
      - name: old
        configMap:
          name: old
"#;
    const SMP: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: app
        image: app:2
        env:
        - name: DEBUG
          value: "true"
        - name: PORT
          value: 8081
        ports:
        - containerPort: 8080
          name: http
        volumeMounts:
        - name: cache
          mountPath: /cache
      - name: sidecar
        $patch: delete
      volumes:
      - name: old
        $patch: delete
      - name: cache
        emptyDir: {}
"#;
    /// `kubectl kustomize` (v5.5.0) of DEPLOY with the three patches below.
    const EXPECTED: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app: web
    tier: "1"
  name: web
spec:
  replicas: 3
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - image: extra:1
        name: extra
      - args:
        - --verbose
        env:
        - name: DEBUG
          value: "true"
        - name: PORT
          value: "8081"
        - name: MODE
          value: prod
        image: app:2
        name: app
        ports:
        - containerPort: 8080
          name: http
        - containerPort: 9090
          protocol: UDP
        volumeMounts:
        - mountPath: /cache
          name: cache
        - mountPath: /data
          name: data
      volumes:
      - emptyDir: {}
        name: cache
      - emptyDir: {}
        name: data
"#;

    #[test]
    fn deployment_patches_match_kubectl_kustomize() {
        let (_dir, ctx) = scratch("deploy", &[("smp.yaml", SMP)]);
        let mut resources = kustom_api::yaml::parse_stream(DEPLOY).expect("fixture");
        resource::set_annotation(&mut resources[0], protocol::ID_ANNOTATION, "0");
        run(
            "PatchTransformer",
            json!({"path": "smp.yaml"}),
            &mut resources,
            &ctx,
        )
        .expect("smp");
        let ops = "- op: replace\n  path: /spec/replicas\n  value: 3\n- op: add\n  path: /spec/template/spec/containers/0/args\n  value: [\"--verbose\"]";
        run(
            "PatchTransformer",
            json!({"patch": ops, "target": {"kind": "Deployment", "labelSelector": "app=web"}}),
            &mut resources,
            &ctx,
        )
        .expect("json6902");
        let targeted = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ignored\n  labels:\n    tier: 1\nspec:\n  template:\n    spec:\n      containers:\n      - name: extra\n        image: extra:1\n";
        run(
            "PatchTransformer",
            json!({"patch": targeted, "target": {"name": "w.*"}}),
            &mut resources,
            &ctx,
        )
        .expect("targeted smp");
        assert_eq!(
            resource::annotation(&resources[0], protocol::ID_ANNOTATION),
            Some("0")
        );
        assert_eq!(output(resources), EXPECTED);
    }

    #[test]
    fn kustomize_config_errors() {
        let (_dir, ctx) = scratch(
            "errors",
            &[
                ("empty.yaml", ""),
                ("comments.yaml", "# c\n"),
                ("ops.yaml", "- op: add\n  path: /x\n  value: 1\n"),
            ],
        );
        let err = |config: Value| {
            let mut rs = kustom_api::yaml::parse_stream(DEPLOY).expect("fixture");
            run("PatchTransformer", config, &mut rs, &ctx)
                .expect_err("fails")
                .message
        };
        assert_eq!(
            err(json!({"path": "comments.yaml"})),
            "illegally qualifies as both an SM and JSON patch: [path: \"comments.yaml\"]"
        );
        assert_eq!(
            err(json!({"path": "empty.yaml"})),
            "must specify a target for JSON patch [path: \"empty.yaml\"]"
        );
        assert_eq!(
            err(json!({"path": "ops.yaml"})),
            "must specify a target for JSON patch [path: \"ops.yaml\"]"
        );
        assert_eq!(
            err(json!({"patch": "a: [", "target": {"kind": "x"}})),
            "unable to parse SM or JSON patch from [patch: \"a: [\"]"
        );
        assert!(err(json!({})).starts_with("must specify one of patch and path in\n"));
        let two = "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: B\nmetadata:\n  name: b\n";
        assert!(err(json!({"patch": two, "target": {"kind": "A"}}))
            .starts_with("Multiple Strategic-Merge Patches in one `patches` entry"));
        assert_eq!(
            err(json!({"patch": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nope\n"})),
            "no resource matches strategic merge patch \"Deployment.v1.apps/nope.[noNs]\": no matches for Id Deployment.v1.apps/nope.[noNs]; failed to find unique target for patch Deployment.v1.apps/nope.[noNs]"
        );
        // An empty patch file with a target only records the previous ids.
        let mut rs = kustom_api::yaml::parse_stream(DEPLOY).expect("fixture");
        run(
            "PatchTransformer",
            json!({"path": "empty.yaml", "target": {"kind": "Deployment"}}),
            &mut rs,
            &ctx,
        )
        .expect("no-op");
        assert_eq!(
            resource::annotation(&rs[0], protocol::PREVIOUS_NAMES),
            Some("web")
        );
    }

    #[test]
    fn go_quoting() {
        assert_eq!(go_quote("a \"b\"\n\tc\\"), "\"a \\\"b\\\"\\n\\tc\\\\\"");
        assert_eq!(go_quote("é\u{1}\u{a0}"), "\"é\\x01\\u00a0\"");
    }
}
