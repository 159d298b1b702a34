//! Bases shared between the builds of several roots (`kustom render`,
//! `kustom diff`): a base directory reached by many overlays is built once
//! per distinct set of inputs, not once per root.
//!
//! A base's result is the same for every root that reaches it when nothing
//! but its own tree decides it. In the v5.8 mode a Helm chart of the base
//! without a namespace of its own takes the nearest ancestor's
//! `namespace:`: such a base is shared between the roots that hand it the
//! same namespace ([`BaseKey`]). Three things could make it depend on the
//! root, and each keeps a build private (the root's own cache, as a single
//! `kustom build` has):
//!
//! - an OpenAPI schema (`openapi:`) chosen before or while the base is built
//!   (kustomize's global schema, set by the first kustomization met);
//! - origins (`buildMetadata`), which record the path a base was reached by;
//! - a remote base, whose cycle check follows the chain of URLs that led
//!   to it.
//!
//! Cycle errors depend on the directories above a base, so the caller only
//! shares for roots whose tree has no cycle risk (`render::reach`). Only
//! successful builds are shared; a base that fails is built again by each
//! root that reaches it, so each root's error is its own.

use crate::operations::accumulator::Accumulator;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// One shared base: `None` when its build turned out not to be shareable.
type Cell = Arc<OnceLock<Option<Accumulator>>>;

/// Which build of a base directory (canonical): `None` for one that reads
/// no namespace from above (it serves every parent), `Some(ns)` for one
/// whose Helm charts took `ns` from the parents (see
/// [`Accumulator::reads_inherited_helm_namespace`]).
pub(super) type BaseKey = (PathBuf, Option<String>);

/// Base builds shared by the roots of one tree.
#[derive(Debug, Default)]
pub struct SharedBases {
    cells: Mutex<HashMap<BaseKey, Cell>>,
    built: AtomicUsize,
    reused: AtomicUsize,
}

impl SharedBases {
    /// An empty set.
    pub fn new() -> SharedBases {
        SharedBases::default()
    }

    /// The cell of one build of a base directory.
    pub(super) fn cell(&self, key: &BaseKey) -> Cell {
        let mut cells = self.cells.lock().unwrap_or_else(|e| e.into_inner());
        cells.entry(key.clone()).or_default().clone()
    }

    pub(super) fn note(&self, built: bool) {
        let counter = if built { &self.built } else { &self.reused };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// (bases built, base builds reused) so far, for `-v` and tests.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.built.load(Ordering::Relaxed),
            self.reused.load(Ordering::Relaxed),
        )
    }
}
