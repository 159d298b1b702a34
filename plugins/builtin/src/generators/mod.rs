//! The builtin generator kinds, one module per kind, and what they share.

pub(crate) mod configmap_generator;
pub(crate) mod generator_common;
pub mod helm;
pub(crate) mod iam_policy_generator;
pub(crate) mod secret_generator;
