//! The builtin transformer kinds, one module per kind, and what they share.

pub(crate) mod annotations;
pub(crate) mod hash;
pub(crate) mod image_tag;
pub(crate) mod labels;
pub(crate) mod namespace;
pub(crate) mod patch;
pub(crate) mod patch_json6902;
pub(crate) mod patch_strategic_merge;
pub(crate) mod prefix_suffix;
pub(crate) mod replacement;
pub(crate) mod replicas;
pub(crate) mod shared_entries;
pub(crate) mod value_add;

use crate::selecting::picks::Picks;
use crate::Ctx;
use kustom_api::Value;

/// What a patch config picks (see [`crate::reach`]); None when that cannot
/// be told before the call (a bad config or selector, a JSON patch without
/// a target), and the call then sees every resource whole.
pub(crate) type PicksFn = fn(&Value, &Ctx) -> Option<Picks>;

/// The patch kinds, each with how a config of it tells what it picks: the
/// table through which `reach` learns of the patch transformers without
/// importing them.
const PATCH_PICKS: &[(&str, PicksFn)] = &[
    ("PatchTransformer", |config, ctx| {
        patch::configure(config, ctx).ok()?.picks()
    }),
    ("PatchStrategicMergeTransformer", |config, ctx| {
        Some(patch_strategic_merge::configure(config, ctx).ok()?.picks())
    }),
    ("PatchJson6902Transformer", |config, ctx| {
        patch_json6902::configure(config, ctx).ok()?.picks()
    }),
];

/// How a config of `kind` tells what it picks, if `kind` is a patch.
pub(crate) fn patch_picks(kind: &str) -> Option<PicksFn> {
    PATCH_PICKS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|&(_, f)| f)
}
