//! Which resources a patch applies to, and what it touches of them: what
//! the patch transformers tell [`crate::reach`].

use crate::selecting::target::{self, CompiledSelector, Selector};
use kustom_api::sight::Sight;
use kustom_api::{protocol, resource, ResId, Value};

/// Which resources a patch applies to, and what it touches of them.
pub(crate) struct Picks {
    pub(crate) which: Which,
    /// The fields a strategic merge patch names, when only those can
    /// change (see [`merged_fields`]); None: the whole resource.
    fields: Option<Sight>,
}

/// How a patch picks its resources.
pub(crate) enum Which {
    /// Those a target selector picks.
    Selector(Box<CompiledSelector>),
    /// Those with one of these ids, now or before a rename.
    Ids(Vec<ResId>),
}

impl Picks {
    /// Resources picked by `sel`; `merged`: the strategic merge patches
    /// applied to them (with the builtin schema), if that is what it is.
    /// None if the selector does not compile (the call then reports it).
    pub(crate) fn by_selector(sel: &Selector, merged: Option<&[Value]>) -> Option<Picks> {
        Some(Picks {
            which: Which::Selector(Box::new(sel.compile().ok()?)),
            fields: merged.and_then(merged_fields),
        })
    }

    /// Resources with the ids of the strategic merge `patches`; `merged`
    /// as for [`Picks::by_selector`].
    pub(crate) fn by_ids(patches: &[Value], merged: Option<&[Value]>) -> Picks {
        Picks {
            which: Which::Ids(patches.iter().map(target::org_id).collect()),
            fields: merged.and_then(merged_fields),
        }
    }
}

/// What strategic merge patches can change of a CustomResourceDefinition:
/// the fields they name, two keys deep. The walk of the merge also visits
/// fields a patch does not name, but changes them only in associative lists
/// (which no CRD schema has) and where values were written empty (which a
/// resource records, see [`touched`]). None when a directive (`$patch`,
/// `$retainKeys`, …) is among those keys.
fn merged_fields(patches: &[Value]) -> Option<Sight> {
    let mut sight = Sight::head();
    for patch in patches {
        for (key, value) in patch.as_object()? {
            if key.starts_with('$') {
                return None;
            }
            if ["apiVersion", "kind", "metadata"].contains(&key.as_str()) {
                continue;
            }
            match value {
                Value::Object(below) => {
                    for sub in below.keys() {
                        if sub.starts_with('$') {
                            return None;
                        }
                        sight.widen_to_path(&[key.clone(), sub.clone()]);
                    }
                    if below.is_empty() {
                        sight.widen_to_path(std::slice::from_ref(key));
                    }
                }
                _ => sight.widen_to_path(std::slice::from_ref(key)),
            }
        }
    }
    Some(sight)
}

/// What a patch picking `head` touches of it.
pub(crate) fn touched(picks: &Picks, head: &Value) -> Sight {
    let crd = resource::kind(head) == "CustomResourceDefinition"
        && resource::api_version(head).starts_with("apiextensions.k8s.io/");
    match &picks.fields {
        Some(fields) if crd && resource::annotation(head, protocol::EMPTY_NULLS).is_none() => {
            fields.clone()
        }
        _ => Sight::Whole,
    }
}
