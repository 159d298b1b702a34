//! The `nameReference:` back-reference table: its schema, and merging and
//! sorting it the way kustomize's transformer config does.

use kustom_api::fieldspec::FieldSpec;
use kustom_api::{Error, Gvk};
use serde::Deserialize;
use std::cmp::Ordering;

/// The transformer's config: `nameReference:` back-references, or
/// `defaultNameReference: true` for the default table.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Config {
    #[serde(default, rename = "nameReference")]
    pub(super) name_reference: Option<Vec<BackRef>>,
    /// The default table, which the builtin holds itself: a tree that adds
    /// no back-references is sent this flag instead of 12 KB of table that
    /// the core would encode and each call decode and merge again.
    #[serde(default, rename = "defaultNameReference")]
    pub(super) default_table: bool,
}

/// One back-reference: objects of `group/version/kind` are referred to by
/// name from the `field_specs` fields of other objects.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct BackRef {
    #[serde(default)]
    pub(super) group: String,
    #[serde(default)]
    pub(super) version: String,
    #[serde(default)]
    pub(super) kind: String,
    #[serde(default, rename = "fieldSpecs", deserialize_with = "null_as_empty")]
    pub(super) field_specs: Vec<FieldSpec>,
}

/// A list that may be written as `null` (`fieldSpecs:` with nothing after it).
pub(super) fn null_as_empty<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Vec<FieldSpec>, D::Error> {
    Ok(Option::<Vec<FieldSpec>>::deserialize(d)?.unwrap_or_default())
}

impl From<&kustom_api::fieldspec::NameBackReference> for BackRef {
    fn from(b: &kustom_api::fieldspec::NameBackReference) -> BackRef {
        BackRef {
            group: b.group.clone(),
            version: b.version.clone(),
            kind: b.kind.clone(),
            field_specs: b.field_specs.clone(),
        }
    }
}

impl BackRef {
    /// The target's group/version/kind.
    pub(super) fn gvk(&self) -> Gvk {
        Gvk {
            group: self.group.clone(),
            version: self.version.clone(),
            kind: self.kind.clone(),
        }
    }
}

/// Merge back-references naming the same target and sort them as kustomize's
/// transformer config does. Both steps are idempotent, so a table the core
/// already merged and sorted passes through unchanged; the order matters
/// because the referrer fields are rewritten one back-reference after the
/// other (a field listed under two targets sees the first rewrite).
pub(super) fn normalize(input: Vec<BackRef>) -> Result<Vec<BackRef>, Error> {
    let mut out: Vec<BackRef> = Vec::with_capacity(input.len());
    for br in input {
        let existing = out
            .iter_mut()
            .find(|o| o.group == br.group && o.version == br.version && o.kind == br.kind);
        let Some(existing) = existing else {
            // Kept as given, duplicates inside its own list included: kustomize
            // does not deduplicate within one back-reference.
            out.push(br);
            continue;
        };
        for fs in br.field_specs {
            let same = existing.field_specs.iter().find(|e| {
                e.path == fs.path
                    && (fs.group.is_empty() || e.group == fs.group)
                    && (fs.version.is_empty() || e.version == fs.version)
                    && (fs.kind.is_empty() || e.kind == fs.kind)
            });
            match same {
                Some(e) if e.create != fs.create => {
                    return Err(Error::new(
                        "failed to merge NameReference fieldSpec: conflicting fieldspecs",
                    ))
                }
                Some(_) => {}
                None => existing.field_specs.push(fs),
            }
        }
    }
    out.sort_by(|a, b| gvk_order(&a.gvk(), &b.gvk()));
    Ok(out)
}

/// kustomize's ordering of gvks in its transformer config: a fixed rank for
/// well-known kinds, then group/version/kind text with markers for empties.
pub(super) fn gvk_order(a: &Gvk, b: &Gvk) -> Ordering {
    kustom_api::resid::compare_gvk(a, b)
}
