//! One field spec being applied to one referrer: what choosing a target
//! (matching.rs) and writing its name (rewrite.rs) share.

use super::candidates::{Index, Referrer};
use kustom_api::Gvk;

/// One field spec being applied to one referrer.
pub(super) struct Job<'a> {
    pub(super) index: &'a Index,
    pub(super) referrer: &'a Referrer<'a>,
    pub(super) target: &'a Gvk,
    /// For a `…roleRef/name` field: the gvk its sibling `apiGroup`/`kind` name.
    pub(super) role_ref: Option<Gvk>,
    /// Targets chosen, to receive a refBy entry.
    pub(super) referred: &'a mut Vec<usize>,
    /// Set when the candidates are ambiguous: they are listed in the error.
    pub(super) ambiguous: Option<Vec<usize>>,
}
