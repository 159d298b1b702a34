//! kustom: `kustomize build` as an exec-plugin host.
//!
//! The core loads kustomizations ([`kustomization`]), accumulates resources
//! ([`accumulator`]), runs components and the phase order ([`build`]),
//! turns kustomization fields into builtin plugin configs ([`plan`]), runs
//! plugins ([`plugins`]) and writes the result ([`output`]).

pub mod accumulator;
pub mod build;
pub mod cli;
pub mod crds;
pub mod doc;
pub mod fuzz_targets;
pub mod kustomization;
pub mod lock;
pub mod origin;
pub mod output;
pub mod plan;
pub mod plugin_cmd;
pub mod plugins;
pub mod write_output;
