//! kustom: `kustomize build` as an exec-plugin host.
//!
//! The core loads kustomizations ([`kustomization`]), accumulates resources
//! ([`accumulator`]), runs components and the phase order ([`build`]),
//! turns kustomization fields into builtin plugin configs ([`plan`]), runs
//! plugins ([`plugins`]) and writes the result ([`output`]).

pub mod accumulator;
pub mod audit;
pub mod build;
pub mod build_flags;
pub mod cli;
pub mod crds;
pub mod create;
pub mod doc;
pub mod edit;
pub mod fuzz_targets;
pub mod kustomization;
pub mod localize;
pub mod lock;
pub mod lock_cmd;
pub mod origin;
pub mod output;
pub mod plan;
pub mod plugin_cmd;
pub mod plugins;
pub mod remote;
pub mod version;
pub mod write_output;
