//! Choosing resources and fields: patch-target selectors, resource ids and
//! the elements of kyaml field paths.

pub(crate) mod field_walk;
pub(crate) mod path_elements;
pub(crate) mod picks;
pub mod target;
