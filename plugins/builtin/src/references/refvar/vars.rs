//! The `vars:` entries of the config (name, `objref`, `fieldref`) and the
//! values they take,
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

/// A var's value as kustomize reads it from a field.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum VarValue {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A mapping or sequence: kustomize cannot substitute it and leaves
    /// `$(NAME)` in place.
    Structured,
}

impl VarValue {
    /// Convert the value found at a field path. Integers beyond 64 bits are
    /// an error, as kustomize's `strconv.Atoi` makes them.
    pub(super) fn from_field(v: &Value) -> Option<VarValue> {
        Some(match v {
            Value::String(s) => VarValue::Str(s.clone()),
            Value::Bool(b) => VarValue::Bool(*b),
            Value::Number(n) if n.is_f64() => VarValue::Float(n.as_f64()?),
            Value::Number(n) => VarValue::Int(n.as_i64()?),
            // kustomize returns a null scalar's text; the JSON form keeps no
            // spelling, and `null` is the one it writes itself.
            Value::Null => VarValue::Str("null".into()),
            Value::Object(_) | Value::Array(_) => VarValue::Structured,
        })
    }

    /// The value standing alone in a field: typed, as kustomize retags the node.
    pub(super) fn to_json(&self) -> Option<Value> {
        Some(match self {
            VarValue::Str(s) => Value::String(s.clone()),
            VarValue::Int(i) => Value::from(*i),
            VarValue::Float(f) => serde_json::Number::from_f64(*f).map(Value::Number)?,
            VarValue::Bool(b) => Value::Bool(*b),
            VarValue::Structured => return None,
        })
    }

    /// The value inside a longer string: Go's `%v` formatting.
    pub(super) fn to_text(&self) -> Option<String> {
        Some(match self {
            VarValue::Str(s) => s.clone(),
            VarValue::Int(i) => i.to_string(),
            VarValue::Float(f) => go_format_float(*f),
            VarValue::Bool(b) => b.to_string(),
            VarValue::Structured => return None,
        })
    }
}

/// Go's `%v` for a float64: the shortest digits that round-trip, in
/// exponent form (`1.5e+06`, `1e-05`) when the exponent is below -4 or at
/// least 6, else plain.
pub(super) fn go_format_float(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    // Rust's `{:e}` gives the same shortest digits: `-1.234e5`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_first().unwrap_or((&b'0', &[]));
        out.push(char::from(*first));
        if !rest.is_empty() {
            out.push('.');
            out.extend(rest.iter().map(|&d| char::from(d)));
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
        return out;
    }
    // Plain: `dp` digits before the point.
    let dp = exp + 1;
    let digit_at = |i: i32| -> char {
        usize::try_from(i)
            .ok()
            .and_then(|i| digits.get(i))
            .map_or('0', |&d| char::from(d))
    };
    if dp > 0 {
        (0..dp).for_each(|i| out.push(digit_at(i)));
    } else {
        out.push('0');
    }
    let n_digits = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if n_digits > dp {
        out.push('.');
        (dp..n_digits).for_each(|i| out.push(digit_at(i)));
    }
    out
}
