//! The `vars:` entries of the config: name, `objref` and `fieldref`,
//! decoded the way kustomize's Go JSON decoding reads them.

use kustom_api::{err, Error, Gvk, ResId, Value};

/// One `vars:` entry.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Var {
    pub(super) name: String,
    /// `objref.apiVersion`; when set it overrides `group` / `version`.
    pub(super) api_version: String,
    pub(super) group: String,
    pub(super) version: String,
    pub(super) kind: String,
    pub(super) objref_name: String,
    pub(super) objref_namespace: String,
    /// `fieldref.fieldPath` as written; empty means `metadata.name`.
    pub(super) field_path: String,
}

/// kustomize's default `fieldref.fieldPath`.
pub(super) const DEFAULT_FIELD_PATH: &str = "metadata.name";

impl Var {
    /// Read a var the way kustomize decodes it: keys match case-insensitively
    /// (Go's JSON decoding), absent or null fields are empty.
    pub(super) fn parse(v: &Value) -> Result<Var, Error> {
        let obj = v
            .as_object()
            .ok_or_else(|| err!("invalid var {v}: expected a mapping"))?;
        let name = string_field(obj, "name", "name")?;
        let objref = match field_ci(obj, "objref") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(_) => return Err(err!("invalid var '{name}': `objref` must be a mapping")),
        };
        let fieldref = match field_ci(obj, "fieldref") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(_) => return Err(err!("invalid var '{name}': `fieldref` must be a mapping")),
        };
        let from_objref = |key: &str| match objref {
            Some(m) => string_field(m, key, &format!("objref.{key}")),
            None => Ok(String::new()),
        };
        Ok(Var {
            api_version: from_objref("apiVersion")?,
            group: from_objref("group")?,
            version: from_objref("version")?,
            kind: from_objref("kind")?,
            objref_name: from_objref("name")?,
            objref_namespace: from_objref("namespace")?,
            field_path: match fieldref {
                Some(m) => string_field(m, "fieldPath", "fieldref.fieldPath")?,
                None => String::new(),
            },
            name,
        })
    }

    /// The objref's gvk: `apiVersion` (split at the first `/`) overrides
    /// the group and version, as kustomize's `Target.GVK()` does; a bare
    /// `v1` sets only the version.
    pub(super) fn gvk(&self) -> Gvk {
        let (group, version) = if self.api_version.is_empty() {
            (self.group.clone(), self.version.clone())
        } else {
            match self.api_version.split_once('/') {
                Some((g, v)) => (g.to_string(), v.to_string()),
                None => (self.group.clone(), self.api_version.clone()),
            }
        };
        Gvk {
            group,
            version,
            kind: self.kind.clone(),
        }
    }

    /// The field path with kustomize's default applied.
    pub(super) fn effective_field_path(&self) -> &str {
        if self.field_path.is_empty() {
            DEFAULT_FIELD_PATH
        } else {
            &self.field_path
        }
    }

    /// Go's `%v` of kustomize's `Var` struct, which its error messages
    /// embed: `{NAME Kind.version.group {fieldPath}}` (the objref prints as
    /// its gvk only). `gvk` and `field_path` are given because kustomize
    /// prints the var at different stages of defaulting.
    fn go_repr(&self, gvk: &Gvk, field_path: &str) -> String {
        format!("{{{} {gvk} {{{field_path}}}}}", self.name)
    }

    /// As printed while merging: gvk from apiVersion, field path as written.
    pub(super) fn repr_merging(&self) -> String {
        self.go_repr(&self.gvk(), &self.field_path)
    }

    /// As printed while resolving: fully defaulted.
    pub(super) fn repr_resolving(&self) -> String {
        self.go_repr(&self.gvk(), self.effective_field_path())
    }

    /// As written in the kustomization (`merging vars [...]`): only the
    /// inline group/version/kind, no defaults.
    pub(super) fn repr_raw(&self) -> String {
        let gvk = Gvk {
            group: self.group.clone(),
            version: self.version.clone(),
            kind: self.kind.clone(),
        };
        self.go_repr(&gvk, &self.field_path)
    }

    /// Whether `id` is the object the objref names: same gvk and name, and,
    /// when the objref gives a namespace, the same effective namespace. (An
    /// objref never counts as cluster-scoped in kustomize, so a namespace
    /// of "default" or a name stands for itself.)
    pub(super) fn names(&self, gvk: &Gvk, id: &ResId) -> bool {
        if id.name != self.objref_name || id.gvk != *gvk {
            return false;
        }
        if self.objref_namespace.is_empty() {
            return true;
        }
        id.effective_namespace() == self.objref_namespace
    }
}

/// The last value whose key equals `key` ignoring ASCII case (Go's JSON
/// decoder accepts any case, later keys overwriting earlier ones).
pub(super) fn field_ci<'a>(
    obj: &'a serde_json::Map<String, Value>,
    key: &str,
) -> Option<&'a Value> {
    obj.iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v)
        .next_back()
}

/// A string field (empty when absent or null); anything else is an error.
pub(super) fn string_field(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<String, Error> {
    match field_ci(obj, key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(err!("invalid var: `{what}` must be a string, got {other}")),
    }
}
