//! The schema a strategic merge uses: the builtin OpenAPI one, or the
//! `openapi:` document a kustomization names.

use crate::Ctx;
use kustom_api::schema::Schema;
use kustom_api::{err, Error, Value};

/// The schema a strategic merge uses. The builtin one is parsed only when
/// a merge first needs it: the core configures patches just to see what a
/// call can touch, and never merges.
#[derive(Debug)]
pub enum PatchSchema {
    /// The builtin Kubernetes schema.
    Builtin,
    /// An `openapi:` document (maybe with the builtin schema merged in).
    Custom(Schema),
}

impl PatchSchema {
    /// The schema itself.
    pub fn get(&self) -> &Schema {
        match self {
            PatchSchema::Builtin => Schema::builtin(),
            PatchSchema::Custom(schema) => schema,
        }
    }

    /// Whether it is the builtin schema.
    pub fn is_builtin(&self) -> bool {
        matches!(self, PatchSchema::Builtin)
    }
}

/// The schema strategic merges use for this transformer call.
///
/// kustomize's OpenAPI schema is global to a build: the builtin Kubernetes
/// 1.21.2 schema, or the document named by the kustomization's `openapi:`
/// field, which then replaces it. The core resolves which kustomization's
/// field applies and passes it to the patch transformers as an extra config
/// field `openapi` (not part of kustomize's schemas), one of:
///
/// - `{version: v1.21.2}`: the builtin schema (the only version built in);
/// - `{path: FILE}`: a swagger 2.0 document in JSON or YAML; an absolute path
///   is read as given (the core has already applied the load restrictor),
///   a relative one from the kustomization directory;
/// - `{document: DOC}`: the document itself, as a map or as its text.
///
/// Without the field, the builtin schema.
pub fn schema_from_config(config: &Value, ctx: &Ctx) -> Result<PatchSchema, Error> {
    let Some(openapi) = config.get("openapi").filter(|v| !v.is_null()) else {
        return Ok(PatchSchema::Builtin);
    };
    let field = |k: &str| openapi.get(k).filter(|v| !v.is_null());
    let custom = field("path").is_some() || field("document").is_some();
    if let Some(version) = field("version") {
        if custom {
            return Err(err!(
                "builtin version and custom schema provided, cannot use both"
            ));
        }
        if version.as_str() != Some(kustom_api::schema::BUILTIN_VERSION) {
            return Err(err!("the specified OpenAPI version is not built in"));
        }
        return Ok(PatchSchema::Builtin);
    }
    let doc = match (field("document"), field("path")) {
        (Some(Value::String(text)), _) => parse_schema_text(text)?,
        (Some(doc), _) => doc.clone(),
        (None, Some(Value::String(path))) => {
            let text = if std::path::Path::new(path).is_absolute() {
                kustom_api::files::read_text(std::path::Path::new(path))?
            } else {
                ctx.read_to_string(path)?
            };
            parse_schema_text(&text).map_err(|e| e.context(format!("invalid file {path:?}")))?
        }
        (None, Some(_)) => return Err(err!("openapi path must be a string")),
        (None, None) => return Ok(PatchSchema::Builtin),
    };
    let custom = Schema::from_document(&doc)?;
    // kyaml also parses its builtin schema into the same global tables when
    // a type outside its precomputed list was seen before the custom schema
    // was set; the core tells us so with `withBuiltin`.
    if field("withBuiltin").and_then(Value::as_bool) == Some(true) {
        return Ok(PatchSchema::Custom(custom.merged_with(Schema::builtin())));
    }
    Ok(PatchSchema::Custom(custom))
}

/// An OpenAPI document's text: JSON when it reads as JSON, else YAML.
pub(super) fn parse_schema_text(text: &str) -> Result<Value, Error> {
    if text.trim_start().starts_with('{') {
        if let Ok(v) = kustom_api::json::from_str(text) {
            return Ok(v);
        }
    }
    Ok(kustom_api::yaml::parse_stream(text)?
        .into_iter()
        .next()
        .unwrap_or(Value::Null))
}
