//! The shape of kustomize's `Kustomization` type (data), for decoding a file as
//! kustomize does before an edit: unknown fields are errors (Go's
//! `DisallowUnknownFields`), scalars must have the field's type, empty
//! `omitempty` fields disappear and absent fields without `omitempty` come
//! back as their zero value — all of which shows in the file `edit` writes.

use kustom_api::Error;
use serde_json::{Map, Value};

/// The type of one field.
#[derive(Debug)]
pub enum Ty {
    /// Go `string`.
    Str,
    /// Go `bool`.
    Bool,
    /// Go `int64`.
    Int,
    /// Go `[]string`.
    StrList,
    /// Go `map[string]string`.
    StrMap,
    /// Go `map[string]bool`.
    BoolMap,
    /// Go `map[string]interface{}`: any object.
    AnyMap,
    /// A struct (named, for error messages).
    Obj(&'static Struct),
    /// A slice of structs.
    List(&'static Struct),
}

/// When a field is left out of the JSON.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Omit {
    /// `omitempty` on a scalar, slice or map: left out when zero or empty.
    Empty,
    /// `omitempty` on a pointer: left out when nil.
    Nil,
    /// No `omitempty` (or a non-pointer struct): always written.
    Never,
}

/// One JSON field of a struct.
#[derive(Debug)]
pub struct Field {
    /// JSON name.
    pub name: &'static str,
    /// Its type.
    pub ty: Ty,
    /// When it is omitted.
    pub omit: Omit,
}

/// A Go struct type.
#[derive(Debug)]
pub struct Struct {
    /// Go type name, for error messages.
    pub name: &'static str,
    /// Its JSON fields, inlined structs flattened.
    pub fields: &'static [Field],
}

const fn f(name: &'static str, ty: Ty, omit: Omit) -> Field {
    Field { name, ty, omit }
}

use Omit::{Empty, Never, Nil};
use Ty::{AnyMap, Bool, BoolMap, Int, List, Obj, Str, StrList, StrMap};

static OBJECT_META: Struct = Struct {
    name: "ObjectMeta",
    fields: &[
        f("name", Str, Empty),
        f("namespace", Str, Empty),
        f("labels", StrMap, Empty),
        f("annotations", StrMap, Empty),
    ],
};
static LEGACY_SORT: Struct = Struct {
    name: "LegacySortOptions",
    fields: &[
        f("orderFirst", StrList, Never),
        f("orderLast", StrList, Never),
    ],
};
static SORT_OPTIONS: Struct = Struct {
    name: "SortOptions",
    fields: &[
        f("order", Str, Empty),
        f("legacySortOptions", Obj(&LEGACY_SORT), Nil),
    ],
};
static FIELD_SPEC: Struct = Struct {
    name: "FieldSpec",
    fields: &[
        f("group", Str, Empty),
        f("version", Str, Empty),
        f("kind", Str, Empty),
        f("path", Str, Empty),
        f("create", Bool, Empty),
    ],
};
static LABEL: Struct = Struct {
    name: "Label",
    fields: &[
        f("pairs", StrMap, Empty),
        f("includeSelectors", Bool, Empty),
        f("includeTemplates", Bool, Empty),
        f("fields", List(&FIELD_SPEC), Empty),
    ],
};
static SELECTOR: Struct = Struct {
    name: "Selector",
    fields: &[
        f("group", Str, Empty),
        f("version", Str, Empty),
        f("kind", Str, Empty),
        f("name", Str, Empty),
        f("namespace", Str, Empty),
        f("annotationSelector", Str, Empty),
        f("labelSelector", Str, Empty),
    ],
};
static PATCH: Struct = Struct {
    name: "Patch",
    fields: &[
        f("path", Str, Empty),
        f("patch", Str, Empty),
        f("target", Obj(&SELECTOR), Nil),
        f("options", BoolMap, Empty),
    ],
};
static GENERATOR_OPTIONS: Struct = Struct {
    name: "GeneratorOptions",
    fields: &[
        f("labels", StrMap, Empty),
        f("annotations", StrMap, Empty),
        f("disableNameSuffixHash", Bool, Empty),
        f("immutable", Bool, Empty),
    ],
};
/// Fields shared by ConfigMapArgs and SecretArgs (GeneratorArgs and KvPairSources inlined).
macro_rules! generator_args {
    ($($extra:expr),*) => {
        &[
            f("namespace", Str, Empty),
            f("name", Str, Empty),
            f("behavior", Str, Empty),
            f("literals", StrList, Empty),
            f("files", StrList, Empty),
            f("envs", StrList, Empty),
            f("env", Str, Empty),
            f("options", Obj(&GENERATOR_OPTIONS), Nil),
            $($extra),*
        ]
    };
}
static CONFIG_MAP_ARGS: Struct = Struct {
    name: "ConfigMapArgs",
    fields: generator_args!(),
};
static SECRET_ARGS: Struct = Struct {
    name: "SecretArgs",
    fields: generator_args!(f("type", Str, Empty)),
};
static HELM_GLOBALS: Struct = Struct {
    name: "HelmGlobals",
    fields: &[f("chartHome", Str, Empty), f("configHome", Str, Empty)],
};
static HELM_CHART: Struct = Struct {
    name: "HelmChart",
    fields: &[
        f("name", Str, Empty),
        f("version", Str, Empty),
        f("repo", Str, Empty),
        f("releaseName", Str, Empty),
        f("namespace", Str, Empty),
        f("additionalValuesFiles", StrList, Empty),
        f("valuesFile", Str, Empty),
        f("valuesInline", AnyMap, Empty),
        f("valuesMerge", Str, Empty),
        f("includeCRDs", Bool, Empty),
        f("skipHooks", Bool, Empty),
        f("apiVersions", StrList, Empty),
        f("kubeVersion", Str, Empty),
        f("nameTemplate", Str, Empty),
        f("skipTests", Bool, Empty),
        f("debug", Bool, Empty),
        f("devel", Bool, Empty),
    ],
};
static HELM_CHART_ARGS: Struct = Struct {
    name: "HelmChartArgs",
    fields: &[
        f("chartName", Str, Empty),
        f("chartVersion", Str, Empty),
        f("chartRepoUrl", Str, Empty),
        f("chartHome", Str, Empty),
        f("chartRepoName", Str, Empty),
        f("helmBin", Str, Empty),
        f("helmHome", Str, Empty),
        f("values", Str, Empty),
        f("valuesLocal", AnyMap, Empty),
        f("valuesMerge", Str, Empty),
        f("releaseName", Str, Empty),
        f("releaseNamespace", Str, Empty),
        f("extraArgs", StrList, Empty),
    ],
};
static TARGET: Struct = Struct {
    name: "Target",
    fields: &[
        f("apiVersion", Str, Empty),
        f("group", Str, Empty),
        f("version", Str, Empty),
        f("kind", Str, Empty),
        f("name", Str, Never),
        f("namespace", Str, Empty),
    ],
};
static FIELD_SELECTOR: Struct = Struct {
    name: "FieldSelector",
    fields: &[f("fieldPath", Str, Empty)],
};
static VAR: Struct = Struct {
    name: "Var",
    fields: &[
        f("name", Str, Never),
        f("objref", Obj(&TARGET), Never),
        f("fieldref", Obj(&FIELD_SELECTOR), Never),
    ],
};
static FIELD_OPTIONS: Struct = Struct {
    name: "FieldOptions",
    fields: &[
        f("delimiter", Str, Empty),
        f("index", Int, Empty),
        f("encoding", Str, Empty),
        f("create", Bool, Empty),
    ],
};
static SOURCE_SELECTOR: Struct = Struct {
    name: "SourceSelector",
    fields: &[
        f("group", Str, Empty),
        f("version", Str, Empty),
        f("kind", Str, Empty),
        f("name", Str, Empty),
        f("namespace", Str, Empty),
        f("fieldPath", Str, Empty),
        f("options", Obj(&FIELD_OPTIONS), Nil),
    ],
};
static TARGET_SELECTOR: Struct = Struct {
    name: "TargetSelector",
    fields: &[
        f("select", Obj(&SELECTOR), Nil),
        f("reject", List(&SELECTOR), Empty),
        f("fieldPaths", StrList, Empty),
        f("options", Obj(&FIELD_OPTIONS), Nil),
    ],
};
/// `replacements:` entries (kustomize's ReplacementField: a Replacement
/// inline, or the `path` of a file of them).
static REPLACEMENT_FIELD: Struct = Struct {
    name: "ReplacementField",
    fields: &[
        f("source", Obj(&SOURCE_SELECTOR), Nil),
        // kustomize v5.7.0 on; `Kustomization::check_for` refuses it for v5.5.
        f("sourceValue", Str, Empty),
        f("targets", List(&TARGET_SELECTOR), Empty),
        f("path", Str, Empty),
    ],
};
static IMAGE: Struct = Struct {
    name: "Image",
    fields: &[
        f("name", Str, Empty),
        f("newName", Str, Empty),
        f("tagSuffix", Str, Empty),
        f("newTag", Str, Empty),
        f("digest", Str, Empty),
    ],
};
static REPLICA: Struct = Struct {
    name: "Replica",
    fields: &[f("name", Str, Empty), f("count", Int, Never)],
};

/// kustomize's `Kustomization` type.
pub static KUSTOMIZATION: Struct = Struct {
    name: "Kustomization",
    fields: &[
        f("apiVersion", Str, Empty),
        f("kind", Str, Empty),
        f("metadata", Obj(&OBJECT_META), Nil),
        f("openapi", StrMap, Empty),
        f("namePrefix", Str, Empty),
        f("nameSuffix", Str, Empty),
        f("namespace", Str, Empty),
        f("commonLabels", StrMap, Empty),
        f("labels", List(&LABEL), Empty),
        f("commonAnnotations", StrMap, Empty),
        f("patchesStrategicMerge", StrList, Empty),
        f("patchesJson6902", List(&PATCH), Empty),
        f("patches", List(&PATCH), Empty),
        f("images", List(&IMAGE), Empty),
        f("imageTags", List(&IMAGE), Empty),
        f("replacements", List(&REPLACEMENT_FIELD), Empty),
        f("replicas", List(&REPLICA), Empty),
        f("vars", List(&VAR), Empty),
        f("sortOptions", Obj(&SORT_OPTIONS), Nil),
        f("resources", StrList, Empty),
        f("components", StrList, Empty),
        f("crds", StrList, Empty),
        f("bases", StrList, Empty),
        f("configMapGenerator", List(&CONFIG_MAP_ARGS), Empty),
        f("secretGenerator", List(&SECRET_ARGS), Empty),
        f("helmGlobals", Obj(&HELM_GLOBALS), Nil),
        f("helmCharts", List(&HELM_CHART), Empty),
        f("helmChartInflationGenerator", List(&HELM_CHART_ARGS), Empty),
        f("generatorOptions", Obj(&GENERATOR_OPTIONS), Nil),
        f("configurations", StrList, Empty),
        f("generators", StrList, Empty),
        f("transformers", StrList, Empty),
        f("validators", StrList, Empty),
        f("buildMetadata", StrList, Empty),
    ],
};

/// Give every key of `v`, a value of type `s`, the spelling of the field
/// it names, at every depth: Go's JSON decoder matches field names exactly
/// or else ignoring case (`Target: {Kind: …}` is `target: {kind: …}`).
/// Map-typed fields (labels, annotations) keep their keys. Inside
/// `replacements`, a key that names no field is returned as
/// "unknown field `k` in PATH, expected one of …", as kustomize rejects it;
/// elsewhere it is left for the loader's own checks.
pub fn fold_field_names(v: &mut Value, s: &'static Struct, path: &str, unknown: &mut Vec<String>) {
    fold_fields(v, s, path, false, unknown);
}

/// [`fold_field_names`] below `path`; `strict` once the walk is inside
/// `replacements`, the one field the loader's own decoding leaves untyped.
fn fold_fields(
    v: &mut Value,
    s: &'static Struct,
    path: &str,
    strict: bool,
    unknown: &mut Vec<String>,
) {
    let Some(map) = v.as_object_mut() else {
        return;
    };
    let old = std::mem::take(map);
    for (k, mut child) in old {
        let field = s
            .fields
            .iter()
            .find(|f| f.name == k)
            .or_else(|| s.fields.iter().find(|f| f.name.eq_ignore_ascii_case(&k)));
        let Some(field) = field else {
            if strict {
                let names: Vec<String> = s.fields.iter().map(|f| format!("`{}`", f.name)).collect();
                unknown.push(format!(
                    "unknown field `{k}` in {path}, expected one of {}",
                    names.join(", ")
                ));
            }
            map.insert(k, child);
            continue;
        };
        let here = if path.is_empty() {
            field.name.to_string()
        } else {
            format!("{path}.{}", field.name)
        };
        let strict = strict || (path.is_empty() && field.name == "replacements");
        match (&field.ty, &mut child) {
            (Ty::Obj(inner), c @ Value::Object(_)) => fold_fields(c, inner, &here, strict, unknown),
            (Ty::List(inner), Value::Array(items)) => {
                for (i, item) in items.iter_mut().enumerate() {
                    fold_fields(item, inner, &format!("{here}[{i}]"), strict, unknown);
                }
            }
            _ => {}
        }
        map.insert(field.name.to_string(), child);
    }
}

/// Decode `value` as the Kustomization field `name` is decoded (Go's
/// errors, `invalid Kustomization: json: …`); a name that is no field
/// passes.
pub fn check_field(name: &str, value: &Value) -> Result<(), Error> {
    match KUSTOMIZATION.fields.iter().find(|f| f.name == name) {
        Some(field) => normalize_field(value, &field.ty, &KUSTOMIZATION, name).map(drop),
        None => Ok(()),
    }
}

/// Go's name for the kind of a JSON value in decode errors.
pub use kustom_api::resource::go_json_type as json_kind;

/// Decode an object of type `s` as Go's JSON decoder into kustomize's struct
/// and marshal it back: `Ok(None)` is a nil pointer.
pub fn normalize(v: &Value, s: &'static Struct) -> Result<Option<Value>, Error> {
    normalize_struct(v, s, "").map(|o| o.map(Value::Object))
}

fn mismatch(v: &Value, s: &Struct, path: &str, go_type: &str) -> Error {
    // Go names the number only when it does not fit an integer field.
    let number = match v {
        Value::Number(n) if go_type == "int64" => format!(" {n}"),
        _ => String::new(),
    };
    Error::new(format!(
        "invalid Kustomization: json: cannot unmarshal {}{number} into Go struct field {}.{path} of type {go_type}",
        json_kind(v),
        s.name
    ))
}

fn normalize_struct(
    v: &Value,
    s: &'static Struct,
    path: &str,
) -> Result<Option<Map<String, Value>>, Error> {
    let obj = match v {
        Value::Null => return Ok(None),
        Value::Object(o) => o,
        other => {
            let what = if path.is_empty() {
                format!("Go value of type types.{}", s.name)
            } else {
                return Err(mismatch(other, s, path, &format!("types.{}", s.name)));
            };
            return Err(Error::new(format!(
                "invalid Kustomization: json: cannot unmarshal {} into {what}",
                json_kind(other)
            )));
        }
    };
    // Go matches keys to fields exactly or, failing that, ignoring case.
    let mut given_for: Vec<Option<&Value>> = vec![None; s.fields.len()];
    for (key, value) in obj {
        let exact = s.fields.iter().position(|f| f.name == key);
        let index = exact.or_else(|| {
            s.fields
                .iter()
                .position(|f| f.name.eq_ignore_ascii_case(key))
        });
        let Some(i) = index else {
            return Err(Error::new(format!(
                "invalid Kustomization: json: unknown field \"{key}\""
            )));
        };
        if exact.is_some() || given_for[i].is_none() {
            given_for[i] = Some(value);
        }
    }
    let mut out = Map::new();
    for (field, given) in s.fields.iter().zip(given_for) {
        let sub = if path.is_empty() {
            field.name.to_string()
        } else {
            format!("{path}.{}", field.name)
        };
        let given = given.unwrap_or(&Value::Null);
        let mut value = normalize_field(given, &field.ty, s, &sub)?;
        if let (Ty::Obj(inner), Omit::Never, Value::Null) = (&field.ty, field.omit, &value) {
            // A struct that is not a pointer is never nil: its zero value prints.
            value = Value::Object(zero_struct(inner));
        }
        let keep = match field.omit {
            Omit::Never => true,
            Omit::Nil => !value.is_null(),
            Omit::Empty => !is_zero(&value),
        };
        if keep {
            out.insert(field.name.to_string(), value);
        }
    }
    Ok(Some(out))
}

fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// The value a field of type `ty` marshals to after decoding `v`.
fn normalize_field(v: &Value, ty: &Ty, parent: &Struct, path: &str) -> Result<Value, Error> {
    Ok(match ty {
        Ty::Str => match v {
            Value::Null => Value::String(String::new()),
            Value::String(_) => v.clone(),
            other => return Err(mismatch(other, parent, path, "string")),
        },
        Ty::Bool => match v {
            Value::Null => Value::Bool(false),
            Value::Bool(_) => v.clone(),
            other => return Err(mismatch(other, parent, path, "bool")),
        },
        Ty::Int => match v {
            Value::Null => Value::from(0),
            Value::Number(n) if n.is_i64() => v.clone(),
            other => return Err(mismatch(other, parent, path, "int64")),
        },
        Ty::StrList => match v {
            Value::Null => Value::Null,
            Value::Array(items) => {
                for item in items {
                    if !item.is_string() && !item.is_null() {
                        return Err(mismatch(item, parent, path, "string"));
                    }
                }
                Value::Array(
                    items
                        .iter()
                        .map(|i| {
                            if i.is_null() {
                                Value::String(String::new())
                            } else {
                                i.clone()
                            }
                        })
                        .collect(),
                )
            }
            other => return Err(mismatch(other, parent, path, "[]string")),
        },
        Ty::StrMap | Ty::BoolMap => {
            let (want, go) = match ty {
                Ty::StrMap => ("string", "map[string]string"),
                _ => ("bool", "map[string]bool"),
            };
            match v {
                Value::Null => Value::Null,
                Value::Object(m) => {
                    for item in m.values() {
                        let ok = item.is_null()
                            || (want == "string" && item.is_string())
                            || (want == "bool" && item.is_boolean());
                        if !ok {
                            return Err(mismatch(item, parent, path, want));
                        }
                    }
                    v.clone()
                }
                other => return Err(mismatch(other, parent, path, go)),
            }
        }
        Ty::AnyMap => match v {
            Value::Null | Value::Object(_) => v.clone(),
            other => return Err(mismatch(other, parent, path, "map[string]interface {}")),
        },
        Ty::Obj(s) => match normalize_struct(v, s, path)? {
            Some(m) => Value::Object(m),
            None => Value::Null,
        },
        Ty::List(s) => match v {
            Value::Null => Value::Null,
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|i| {
                        // A null item of a struct slice decodes to the zero struct.
                        normalize_struct(i, s, path)
                            .map(|o| Value::Object(o.unwrap_or_else(|| zero_struct(s))))
                    })
                    .collect::<Result<_, _>>()?,
            ),
            other => {
                return Err(mismatch(
                    other,
                    parent,
                    path,
                    &format!("[]types.{}", s.name),
                ))
            }
        },
    })
}

/// The JSON of a zero-valued struct.
fn zero_struct(s: &'static Struct) -> Map<String, Value> {
    normalize_struct(&Value::Object(Map::new()), s, "")
        .ok()
        .flatten()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zero_values_and_unknown_fields() {
        let k = json!({"replicas": [{"name": "a"}], "vars": [{"name": "V"}]});
        let out = normalize(&k, &KUSTOMIZATION).unwrap().unwrap();
        assert_eq!(out["replicas"], json!([{"name": "a", "count": 0}]));
        assert_eq!(
            out["vars"],
            json!([{"name": "V", "objref": {"name": ""}, "fieldref": {}}])
        );
        // Go matches field names ignoring case; what matches nothing is an error.
        let folded = json!({"images": [{"name": "a", "newtag": "1"}]});
        let out = normalize(&folded, &KUSTOMIZATION).unwrap().unwrap();
        assert_eq!(out["images"], json!([{"name": "a", "newTag": "1"}]));
        let bad = json!({"images": [{"name": "a", "tag": "1"}]});
        let e = normalize(&bad, &KUSTOMIZATION).unwrap_err();
        assert!(e.message.contains("unknown field \"tag\""), "{e}");
        let typed = json!({"namePrefix": 1});
        assert!(normalize(&typed, &KUSTOMIZATION).is_err());
    }
}
