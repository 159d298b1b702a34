//! What a `ReplacementTransformer` config can read or change (for
//! [`crate::reach`]): the source resources with their source field, the
//! target resources with their target fields, and which identity fields
//! (names, labels, annotations) its writes may change for what runs after.

use super::{load, path, select, Selector, DEFAULT_FIELD_PATH};
use crate::Ctx;
use kustom_api::{protocol, Error, ResId, Value};

/// The resources one source or target can pick, and the paths it reads or
/// writes in them.
pub(crate) struct Side {
    id: select::IdMatch,
    label_selector: String,
    annotation_selector: String,
    /// Each path's leading map keys (at most two); an empty one: the
    /// whole resource.
    paths: Vec<Vec<String>>,
}

impl Side {
    /// Whether the side may pick the resource whose head is `head`.
    /// Errors (a bad label selector, broken rename annotations) are the
    /// call's to report.
    pub(crate) fn picks(&self, head: &Value) -> Result<bool, Error> {
        let ids = select::ids(head)?;
        Ok(ids.iter().any(|id| self.id.matches(id))
            && select::matches_expression(head, "annotations", &self.annotation_selector)?
            && select::matches_expression(head, "labels", &self.label_selector)?)
    }

    /// The paths it reads or writes, as leading map keys (empty: all).
    pub(crate) fn paths(&self) -> &[Vec<String>] {
        &self.paths
    }
}

/// What a replacement config touches.
pub(crate) struct Touches {
    /// Sources and targets, in order.
    pub(crate) sides: Vec<Side>,
    /// A target field may be a name or namespace: ids may change.
    pub(crate) writes_ids: bool,
    /// A target field may be under labels.
    pub(crate) writes_labels: bool,
    /// A target field may be under annotations.
    pub(crate) writes_annotations: bool,
    /// A target field may be the hash-suffix annotation.
    pub(crate) may_mark_hash: bool,
}

/// What `config` touches. `loose`: names, namespaces, labels and
/// annotations may have changed before it runs (an earlier transformer of
/// the call renames or relabels), so sides pick by kind, group and version
/// only. None when that cannot be told (a target changes `kind` or
/// `apiVersion`, or a config the call will reject).
pub(crate) fn touches(config: &Value, ctx: &Ctx, mut loose: bool) -> Option<Touches> {
    let replacements = load(config, ctx).ok()?;
    let mut out = Touches {
        sides: Vec::new(),
        writes_ids: false,
        writes_labels: false,
        writes_annotations: false,
        may_mark_hash: false,
    };
    for replacement in &replacements {
        match (&replacement.source, &replacement.source_value) {
            (Some(source), None) => {
                let field_path = match source.field_path.as_str() {
                    "" => DEFAULT_FIELD_PATH,
                    p => p,
                };
                out.sides.push(side(
                    &Selector {
                        id: source.id.clone(),
                        ..Selector::default()
                    },
                    vec![leading_keys(&steps(field_path))],
                    loose,
                    &|id| Ok(select::IdMatch::Exact(id.clone())),
                )?);
            }
            // A literal reads no resource.
            (None, Some(_)) => {}
            _ => return None,
        }
        for target in &replacement.targets {
            // A null reject is a crash the call reports; rejects only ever
            // narrow what `select` picks, so they are left out here.
            if target.reject.iter().any(Option::is_none) {
                return None;
            }
            let paths: Vec<&str> = if target.field_paths.is_empty() {
                vec![DEFAULT_FIELD_PATH]
            } else {
                target.field_paths.iter().map(String::as_str).collect()
            };
            let mut keys_of_paths = Vec::with_capacity(paths.len());
            for p in &paths {
                let steps = steps(p);
                let keys = leading_keys(&steps);
                match keys.first().map(String::as_str) {
                    None | Some("kind" | "apiVersion") => return None,
                    Some("metadata") => match keys.get(1).map(String::as_str) {
                        Some("name" | "namespace") => out.writes_ids = true,
                        Some("labels") => out.writes_labels = true,
                        Some("annotations") => {
                            out.writes_annotations = true;
                            out.may_mark_hash |= steps.get(2).is_none_or(|k| {
                                k == protocol::NEEDS_HASH_SUFFIX || k.starts_with('[') || k == "*"
                            });
                        }
                        Some(_) => {}
                        None => {
                            out.writes_ids = true;
                            out.writes_labels = true;
                            out.writes_annotations = true;
                            out.may_mark_hash = true;
                        }
                    },
                    Some(_) => {}
                }
                keys_of_paths.push(keys);
            }
            out.sides.push(side(
                target.select.as_ref()?,
                keys_of_paths,
                loose,
                &|id| select::IdMatch::target(id, ctx.version),
            )?);
        }
        // Later replacements select among what this one may have changed.
        loose |= out.writes_ids || out.writes_labels || out.writes_annotations;
    }
    Some(out)
}

/// A side picking what `selector` picks (see [`touches`] for `loose`),
/// touching the paths with these leading keys.
fn side(
    selector: &Selector,
    paths: Vec<Vec<String>>,
    loose: bool,
    id_match: IdMatchOf,
) -> Option<Side> {
    let mut id = selector.id.clone();
    let (mut labels, mut annotations) = (
        selector.label_selector.clone(),
        selector.annotation_selector.clone(),
    );
    if loose {
        id.name.clear();
        id.namespace.clear();
        labels.clear();
        annotations.clear();
    }
    Some(Side {
        id: id_match(&id).ok()?,
        label_selector: labels,
        annotation_selector: annotations,
        paths,
    })
}

/// How a side's id picks ids: exactly for a source, as the release
/// matches targets for a target.
type IdMatchOf<'a> = &'a dyn Fn(&ResId) -> Result<select::IdMatch, Error>;

/// A field path's steps, split and trimmed as the transformer does.
fn steps(field_path: &str) -> Vec<String> {
    path::split(field_path)
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// The leading map keys of a path's steps, at most two; they stop at the
/// first list index, selector or wildcard.
fn leading_keys(steps: &[String]) -> Vec<String> {
    steps
        .iter()
        .take_while(|p| !p.starts_with('[') && *p != "*" && *p != "-")
        .take(2)
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx() -> Ctx {
        Ctx::for_tests()
    }

    fn config(replacements: Value) -> Value {
        json!({"apiVersion": "builtin", "kind": "ReplacementTransformer", "replacements": replacements})
    }

    #[test]
    fn paths_keep_their_first_two_map_keys() {
        assert_eq!(
            leading_keys(&steps(
                ".metadata.annotations.[cert-manager.io/inject-ca-from]"
            )),
            ["metadata", "annotations"]
        );
        assert_eq!(
            leading_keys(&steps("spec.dnsNames.0")),
            ["spec", "dnsNames"]
        );
        assert_eq!(
            leading_keys(&steps("spec.[name=a.b].image")),
            vec!["spec".to_string()]
        );
        assert_eq!(leading_keys(&steps("data.a\\.b.c")), ["data", "a.b"]);
        assert!(leading_keys(&steps("[x=y]")).is_empty());
    }

    #[test]
    fn sides_pick_by_id_and_expressions_and_say_what_they_write() {
        let t = touches(
            &config(json!([{
                "source": {"kind": "Service", "name": "web"},
                "targets": [{"select": {"kind": "Certificate", "labelSelector": "app=x"},
                             "fieldPaths": ["spec.dnsNames.0", "metadata.annotations.[cert-manager.io/inject-ca-from]"]}]
            }])),
            &ctx(),
            false,
        )
        .unwrap();
        assert!(t.writes_annotations && !t.writes_ids && !t.writes_labels && !t.may_mark_hash);
        let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}});
        let other = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"}});
        let cert = json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
            "metadata": {"name": "c", "labels": {"app": "x"}}});
        assert!(t.sides[0].picks(&svc).unwrap());
        assert!(!t.sides[0].picks(&other).unwrap());
        assert_eq!(
            t.sides[0].paths(),
            [vec!["metadata".to_string(), "name".to_string()]]
        );
        assert!(t.sides[1].picks(&cert).unwrap());
        assert!(!t.sides[1].picks(&svc).unwrap());
    }

    #[test]
    fn after_a_write_to_metadata_later_sides_pick_by_kind_only() {
        let t = touches(
            &config(json!([
                {"source": {"kind": "Service", "name": "web"},
                 "targets": [{"select": {"kind": "Deployment"}, "fieldPaths": ["metadata.name"]}]},
                {"source": {"kind": "Service", "name": "web"},
                 "targets": [{"select": {"kind": "Deployment", "name": "app"}}]}
            ])),
            &ctx(),
            false,
        )
        .unwrap();
        assert!(t.writes_ids);
        let other = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"}});
        assert!(!t.sides[0].picks(&other).unwrap());
        assert!(t.sides[2].picks(&other).unwrap());
    }

    #[test]
    fn kind_targets_null_rejects_and_missing_selects_are_not_told() {
        for replacements in [
            json!([{"source": {"kind": "A"}, "targets": [{"select": {"kind": "B"}, "fieldPaths": ["kind"]}]}]),
            json!([{"source": {"kind": "A"}, "targets": [{"select": {"kind": "B"}, "reject": [null]}]}]),
            json!([{"source": {"kind": "A"}, "targets": [{"fieldPaths": ["spec"]}]}]),
            json!([{"targets": [{"select": {"kind": "B"}}]}]),
        ] {
            assert!(touches(&config(replacements), &ctx(), false).is_none());
        }
    }
}
