//! Cross-resource references: name back-references and `$(VAR)` variables.

pub(crate) mod name_reference;
pub(crate) mod refvar;
